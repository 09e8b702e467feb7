//===- Passes.td - shardc partitioning passes ---------------*- tablegen -*-===//
#ifndef SHARDC_COMPILER_PASSES_TD
#define SHARDC_COMPILER_PASSES_TD

include "mlir/Pass/PassBase.td"

def ScPartition : Pass<"sc-partition", "mlir::ModuleOp"> {
  let summary = "Rewrites the sharded entry function into per-rank-class "
                "local programs (scl)";
  let description = [{
    Lowers the entry function (`@main`, or the only public function), whose
    values all carry shardings (run `sc-propagate-sharding` and
    `sc-insert-reshards` first, or `sc-partition-pipeline`), into one program
    per rank on its local static shapes. All data movement is planned from
    index intervals: halo exchanges for windowed ops (per-side widths, halos
    wider than a neighbour's shard, N-D corners in one step, edge padding,
    periodic wrap-around), collectives for reshards and partial values
    (all-reduce, all-gather-v, reduce-scatter-v), rings for attention over a
    split sequence (one `scl.ring_attention` per rank, or with
    `unroll-rings` an exchange and a block of attention per member), one
    gather of local moments for norms and softmax over a split dim. Ranks
    whose programs come out identical share one `scl` function (peers are
    relative mesh offsets), so an even 1-D split gives at most three classes
    at any world size. What cannot be partitioned yet is a located error
    naming the op and the sharding.

    Without a split over several ranks (or with `unpartitioned`) the result
    is one class `@<entry>_all` for rank 0: the unpartitioned model.

    The halo of an f32 cast of a bf16 or f16 value (what `sc-compute-in-f32`
    makes) moves in 16 bits and is cast on arrival; with
    `conv-reads-half-floats` a conv reads the 16-bit box itself.

    Input:
    ```mlir
    sc.mesh @mesh ["x"=2]
    func.func @main(%x: tensor<1x1x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[4, 4]]>})
        -> tensor<1x1x8xf32> {
      %y = sc.max_pool %x {kernel_size = array<i64: 3>, stride = array<i64: 1>,
                           padding = array<i64: 1>} {sc.sharding = ...}
      return %y : tensor<1x1x8xf32>
    }
    ```
    Output (rank class 0 of 2; class 1 mirrors it):
    ```mlir
    func.func private @main(tensor<1x1x8xf32> {sc.sharding = ...}) -> (...)
        attributes {scl.rank_classes = [@main_class0, @main_class1]}
    func.func @main_class0(%arg0: memref<1x1x4xf32>) -> memref<1x1x4xf32>
        attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
      %0 = memref.alloc() : memref<1x1x5xf32>
      scl.kernel "Pad" mode "constant" ins(%arg0 : memref<1x1x4xf32>)
          outs(%0 : memref<1x1x5xf32>) {ints = array<i64: 0, 0, 0, 0, 0, 1>, ...}
      scl.halo_exchange ins(%arg0 : memref<1x1x4xf32>) outs(%0 : memref<1x1x5xf32>)
          [#scl.transfer<send 0 peer [1] box [0:1, 0:1, 3:4] tag 0>,
           #scl.transfer<recv 0 peer [1] box [0:1, 0:1, 4:5] tag 1>]
      %1 = memref.alloc() : memref<1x1x4xf32>
      scl.kernel "Pool" mode "max" ins(%0 : ...) outs(%1 : ...) {ints = ...}
      return %1 : memref<1x1x4xf32>
    }
    ```
  }];
  let options = [
    Option<"unpartitioned", "unpartitioned", "bool", /*default=*/"false",
           "Lower for one rank, ignoring every sharding (the reference model)">,
    Option<"unrollRings", "unroll-rings", "bool", /*default=*/"false",
           "Lower attention rings to one exchange and one block of attention "
           "per member on every rank instead of one scl.ring_attention "
           "(ranks x members instructions)">,
    Option<"convReadsHalfFloats", "conv-reads-half-floats", "bool",
           /*default=*/"false",
           "A conv reads the bf16/f16 halo box of its input's f32 cast "
           "directly instead of a cast of it (the CPU kernel widens as it "
           "packs; cuDNN would need the cast)">
  ];
  let dependentDialects = ["::shardc::scl::SclDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ScPlanMemory : Pass<"sc-plan-memory", "mlir::ModuleOp"> {
  let summary = "Places every buffer of each rank class in one static arena";
  let description = [{
    For each rank-class function (`scl.ranks`), computes every buffer's live
    range in program order (inputs from before the first op, inputs and
    outputs to the end; `scl.constant` buffers stay in the file) and assigns
    arena offsets so that buffers that live at the same time never share a
    byte, while dead buffers' bytes are reused. Several placement orders are
    tried, a short search reorders the buffers that end above the lower
    bound, and the smallest arena is kept; `shardc --emit=plan` prints it
    beside the lower bound (the largest sum of simultaneously live bytes).
    Offsets are 64-byte aligned (16 for a buffer under 64 bytes; under 16
    bytes, the largest power of two dividing its size). The artifact writer
    uses the plan as written (checking it against liveness) and plans
    functions that carry none.

    Input:
    ```mlir
    func.func @main_class0(%arg0: memref<256xf32>) -> memref<256xf32>
        attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
      %0 = memref.alloc() : memref<256xf32>
      scl.kernel "Elementwise" mode "relu" ins(%arg0 : ...) outs(%0 : ...)
      %1 = memref.alloc() : memref<256xf32>
      scl.kernel "Elementwise" mode "neg" ins(%0 : ...) outs(%1 : ...)
      %2 = memref.alloc() : memref<256xf32>
      scl.kernel "Elementwise" mode "relu" ins(%1 : ...) outs(%2 : ...)
      return %2 : memref<256xf32>
    }
    ```
    Output (`%0` is dead once `%1` is written, so `%2` reuses its bytes):
    ```mlir
    func.func @main_class0(%arg0: memref<256xf32>) -> memref<256xf32>
        attributes {scl.arena_bytes = 3072 : i64,
                    scl.input_offsets = array<i64: 0>, ...} {
      %0 = memref.alloc() {scl.offset = 1024 : i64} : memref<256xf32>
      ...
      %1 = memref.alloc() {scl.offset = 2048 : i64} : memref<256xf32>
      ...
      %2 = memref.alloc() {scl.offset = 1024 : i64} : memref<256xf32>
      ...
    }
    ```
  }];
}

def ScExpandNorms : Pass<"sc-expand-norms", "mlir::ModuleOp"> {
  let summary = "Expands norm and softmax kernels into reductions and "
                "elementwise kernels";
  let description = [{
    In every rank-class function, a `Norm` kernel (layer, group or batch
    norm) and a `Softmax` kernel (softmax or log-softmax) become the
    `Reduce`, `Unary` and `Binary` kernels that compute them, the way
    sc-partition writes a norm whose statistic dims are split: the mean,
    the variance as the mean of the centred squares, `rsqrt(var + eps)`
    (eps a `Fill`ed scalar), the normalised values and the affine
    parameters (reshaped to broadcast); a group norm runs on
    (N, groups, elements) between two reshaping copies. A value that two
    consumers read (`x - mean`, `exp(x - max)`) is computed once per
    consumer, so that `sc-fuse` makes each statistic one fused reduction
    and each epilogue one fused kernel. `shardc --target=cuda` runs it
    before sc-fuse: the CUDA backend has no native norm or softmax and
    would stage them through the host. Kernels whose attributes the runtime
    would reject (eps, parameter sizes, dims) are left for it to report, as
    is a softmax over an empty dim.

    Input:
    ```mlir
    scl.kernel "Norm" mode "layer" ins(%x, %w, %b : memref<4x8xf32>, memref<8xf32>, memref<8xf32>)
        outs(%y : memref<4x8xf32>) {floats = array<f64: 1.0e-05>, ints = array<i64: 1, 1, 1>}
    ```
    Output:
    ```mlir
    %m = memref.alloc() : memref<4x1xf32>
    scl.kernel "Reduce" mode "mean" ins(%x : memref<4x8xf32>) outs(%m : memref<4x1xf32>) {ints = array<i64: 1>}
    %c = memref.alloc() : memref<4x8xf32>
    scl.kernel "Binary" mode "sub" ins(%x, %m : memref<4x8xf32>, memref<4x1xf32>) outs(%c : memref<4x8xf32>)
    %s = memref.alloc() : memref<4x8xf32>
    scl.kernel "Binary" mode "mul" ins(%c, %c : memref<4x8xf32>, memref<4x8xf32>) outs(%s : memref<4x8xf32>)
    %v = memref.alloc() : memref<4x1xf32>
    scl.kernel "Reduce" mode "mean" ins(%s : memref<4x8xf32>) outs(%v : memref<4x1xf32>) {ints = array<i64: 1>}
    %e = memref.alloc() : memref<f32>
    scl.kernel "Fill" outs(%e : memref<f32>) {floats = array<f64: 1.0e-05>}
    ...
    %r = memref.alloc() : memref<4x1xf32>
    scl.kernel "Unary" mode "rsqrt" ins(%ve : memref<4x1xf32>) outs(%r : memref<4x1xf32>)
    ...
    scl.kernel "Binary" mode "add" ins(%yw, %b : memref<4x8xf32>, memref<8xf32>) outs(%y : memref<4x8xf32>)
    ```
  }];
  let dependentDialects = ["::shardc::scl::SclDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ScFuse : Pass<"sc-fuse", "mlir::ModuleOp"> {
  let summary = "Fuses chains of elementwise kernels, and the reductions "
                "that read them, into one kernel each";
  let description = [{
    In every rank-class function, a `Unary`, `Binary` or plain `Copy` kernel
    joins the group of the kernel that wrote one of its inputs when nothing
    else reads or writes that buffer and it has the consumer's shape. Each
    group of two or more kernels becomes one `scl.fused_elementwise` at the
    position of its last kernel: its inputs are the group's outside buffers
    (broadcast ones included, such as a norm's per-channel scale), its body
    one `scl.scalar` per kernel (a copy is just the value), and the
    intermediate buffers disappear. Moving a read later is safe because rank
    programs never write a buffer after it has been read.

    A `Reduce` (sum, mean, amax, amin) that is the only reader of a group's
    output takes the group in (one computing kernel suffices): an
    `scl.fused_reduction` over the group's output shape whose body is the
    group's, so the reduced tensor (a norm's centred squares, the size of an
    activation) is never written. Groups whose outside inputs do not
    broadcast to that shape stay apart, as do chains that read the buffer
    the `Reduce` writes (one output's work reads other outputs' inputs, so
    an in-place reduction would race); such a `Reduce` reduces the chain's
    output alone (a lone fused reduction under `lone-kernels`, else the
    runtime's `Reduce`).

    A group whose output only a reshaping `Copy` reads (a group norm's
    (groups, elements) rows going back to (N, C, H, W)) merges with the
    group that reads the copy when both can run over the *common
    refinement* of their shapes, the shape whose dim boundaries are all of
    theirs: (8, 1228800) and (1, 32, 300, 1024) give (8, 4, 300, 1024). The
    kernel reads views of its temporaries on that shape (the caller's small
    inputs, such as a norm's gamma, are copied) and writes its output
    through a view, so the normalised rows are never written. The groups
    stay apart when the output is returned, when a full-size input is not a
    temporary, or when the boundaries do not nest (2x3 and 3x2).

    `Compare`, `Select` and `Cast` between f32 and i1 join as functions on
    bools the body holds as 1.0 and 0.0 (`"gt"`, `"select"`, `"bool"`; the
    cast to f32 passes the value through): `torch.where(x > 0, x, 0.2 * x)`
    is one kernel, and its mask never a buffer. Fused kernels read i1
    inputs (as 1.0 or 0.0), so `where(valid, x, 0).sum()` over a mask input
    is one fused reduction, and a fused elementwise kernel writes an i1
    output (value != 0) where a mask is returned or read elsewhere.

    Input (a group norm's epilogue and the activation after it):
    ```mlir
    %0 = memref.alloc() : memref<1x8x4xf32>
    scl.kernel "Binary" mode "sub" ins(%x, %mean : memref<1x8x4xf32>, memref<1x8x1xf32>) outs(%0 : memref<1x8x4xf32>)
    %1 = memref.alloc() : memref<1x8x4xf32>
    scl.kernel "Binary" mode "mul" ins(%0, %rstd : memref<1x8x4xf32>, memref<1x8x1xf32>) outs(%1 : memref<1x8x4xf32>)
    %2 = memref.alloc() : memref<1x8x4xf32>
    scl.kernel "Unary" mode "silu" ins(%1 : memref<1x8x4xf32>) outs(%2 : memref<1x8x4xf32>)
    ```
    Output:
    ```mlir
    %2 = memref.alloc() : memref<1x8x4xf32>
    scl.fused_elementwise ins(%x, %mean, %rstd : memref<1x8x4xf32>, memref<1x8x1xf32>, memref<1x8x1xf32>)
        outs(%2 : memref<1x8x4xf32>) {
    ^bb0(%a: f32, %m: f32, %r: f32):
      %d = scl.scalar "sub"(%a, %m) : f32
      %n = scl.scalar "mul"(%d, %r) : f32
      %y = scl.scalar "silu"(%n) : f32
      scl.yield %y : f32
    }
    ```

    With `lone-kernels` (the CUDA target's default), a computing kernel
    that joins no group and a `Reduce` that takes none in become fused
    kernels of their own: the CUDA backend runs fused kernels on the device
    but stages a plain `Unary`, `Binary` or `Reduce` through the host.
    ```mlir
    scl.kernel "Reduce" mode "mean" ins(%x : memref<2x8xf32>) outs(%m : memref<2x1xf32>) {ints = array<i64: 1>}
    ```
    becomes
    ```mlir
    scl.fused_reduction "mean" dims [1] over [2, 8] ins(%x : memref<2x8xf32>)
        outs(%m : memref<2x1xf32>) {
    ^bb0(%a: f32):
      scl.yield %a : f32
    }
    ```
  }];
  let options = [
    Option<"loneKernels", "lone-kernels", "bool", /*default=*/"false",
           "Also make a lone computing kernel and a Reduce that takes no "
           "group in fused kernels of their own">
  ];
  let dependentDialects = ["::shardc::scl::SclDialect"];
}

def ScShrinkSplats : Pass<"sc-shrink-splats", "mlir::ModuleOp"> {
  let summary = "Fills a splat constant into one element where its readers "
                "broadcast";
  let description = [{
    A splat `sc.constant` becomes a `Fill` of a buffer of its full local
    shape on every rank: a full-size splat (a `full_like` mask, a constant
    scale) costs an activation's worth of arena and a write of every
    element on every run. In every rank-class function, a `Fill` of a
    temporary alloc that it alone writes becomes a `Fill` of a
    one-element buffer of the same rank when every other user only reads
    the buffer and broadcasts it: an `scl.fused_elementwise` or
    `scl.fused_reduction` input (every input broadcasts to the kernel's
    space), or an operand of a `Binary`, `Compare` or `Select` whose
    output is still the broadcast of its operands. A buffer that is
    returned, viewed, written by anything else, or read by any other
    kernel keeps its shape. An earlier plan of a function it changes is
    dropped (the writer plans again).

    Input:
    ```mlir
    %c = memref.alloc() : memref<2x8xf32>
    scl.kernel "Fill" outs(%c : memref<2x8xf32>) {floats = array<f64: 1.5>}
    scl.fused_elementwise ins(%x, %c : memref<2x8xf32>, memref<2x8xf32>) outs(%y : memref<2x8xf32>) {...}
    ```
    Output:
    ```mlir
    %c = memref.alloc() : memref<1x1xf32>
    scl.kernel "Fill" outs(%c : memref<1x1xf32>) {floats = array<f64: 1.5>}
    scl.fused_elementwise ins(%x, %c : memref<2x8xf32>, memref<1x1xf32>) outs(%y : memref<2x8xf32>) {...}
    ```
  }];
  let dependentDialects = ["::shardc::scl::SclDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ScSinkBias : Pass<"sc-sink-bias", "mlir::ModuleOp"> {
  let summary = "Adds a convolution's or linear layer's bias inside the "
                "fused kernels that read its output";
  let description = [{
    cuDNN and cuBLAS add a bias in a pass of its own over the output: one
    more read and write of an activation. Where every reader of a `Conv`,
    `ConvTranspose` or `Linear` output is a fused kernel, a `Reduce` or an
    elementwise kernel (directly, or through views and reshaping copies of
    temporaries), this pass drops the bias from the library op and adds it
    in each reader's body instead, where it costs one add per element.

    A reader whose iteration space does not separate channels (a group
    norm's statistics over (groups, elements)) is re-expressed over the
    common refinement of that space and (outer, C, inner), so the bias
    broadcasts along it: (8, 1228800) becomes (8, 4, 307200), and the bias
    is read as (8, 4, 1) (a copy of the caller's bias, a few hundred bytes).
    A plain `Reduce` or elementwise kernel becomes a fused one.

    The output stays as it is when it is returned or read by anything else
    (a pad, an exchange, another convolution), when the library op is not
    its only writer, or when a reader's output is not a temporary and would
    have to be written through a view, or when anything between the
    library op and its last reader writes the bias. Run it after `sc-fuse` and before
    `sc-overlap-halos`; `shardc` runs it for `--target=cuda` (the CPU
    kernels seed the output with the bias at no cost).

    Input (a group norm's mean):
    ```mlir
    scl.kernel "Conv" ins(%x, %w, %b : memref<1x4x18x16xf32>, memref<32x4x3x3xf32>, memref<32xf32>)
        outs(%y : memref<1x32x16x16xf32>) {ints = array<i64: 2, 1, 1, 1, 1, 1, 1, 1>}
    %g = memref.alloc() : memref<8x1024xf32>
    scl.kernel "Copy" ins(%y : memref<1x32x16x16xf32>) outs(%g : memref<8x1024xf32>)
    scl.kernel "Reduce" mode "mean" ins(%g : memref<8x1024xf32>) outs(%m : memref<8x1xf32>) {ints = array<i64: 1>}
    ```
    Output:
    ```mlir
    %bias = memref.alloc() : memref<8x4x1xf32>
    scl.kernel "Copy" ins(%b : memref<32xf32>) outs(%bias : memref<8x4x1xf32>)
    scl.kernel "Conv" ins(%x, %w : memref<1x4x18x16xf32>, memref<32x4x3x3xf32>)
        outs(%y : memref<1x32x16x16xf32>) {ints = array<i64: 2, 1, 1, 1, 1, 1, 1, 1>}
    %g = memref.alloc() : memref<8x1024xf32>
    scl.kernel "Copy" ins(%y : memref<1x32x16x16xf32>) outs(%g : memref<8x1024xf32>)
    %v = scl.view %g : memref<8x1024xf32> to memref<8x4x256xf32>
    scl.fused_reduction "mean" dims [1, 2] over [8, 4, 256]
        ins(%v, %bias : memref<8x4x256xf32>, memref<8x4x1xf32>)
        outs(%m : memref<8x1xf32>) {
    ^bb0(%a: f32, %c: f32):
      %s = scl.scalar "add"(%a, %c) : f32
      scl.yield %s : f32
    }
    ```
  }];
  let dependentDialects = ["::shardc::scl::SclDialect"];
}

def ScDeepenHalos : Pass<"sc-deepen-halos", "mlir::ModuleOp"> {
  let summary = "Exchanges one deeper halo before a conv -> elementwise -> "
                "conv chain and recomputes the overlap";
  let description = [{
    Where a convolution's output, after a chain of elementwise kernels
    (`Unary`, `Binary`, `Copy`, `scl.fused_elementwise`; other operands may
    only broadcast along the split dim), is padded and halo-exchanged for a
    second stencil op, the second exchange is folded into the first: the
    first exchange receives (and sends) that many more rows, the convolution
    computes its output over the neighbours' rows the second op reads, the
    chain runs on the grown buffers, and the second pad and exchange
    disappear. One exchange and its latency are saved per pair; the price is
    a wider first halo and the recomputed rows.

    Applies to 1-D slab exchanges (one split spatial dim, nearest neighbours)
    before a stride-1 convolution whose output rows are the input's rows
    (`same` padding), when every neighbour owns enough rows to send the
    deeper halo. Both ends of every transfer must agree, so each pair is
    decided for all rank classes of the entry at once, and only when every
    rank's neighbours receive (and send) on the facing side as many rows as
    it sends (and receives) in both exchanges. Pairs do not chain:
    of conv -> conv -> conv -> conv the exchanges go in pairs.

    Cost model, per rank class (a pair is deepened when it pays for every
    class): saved `latency + bytes(second exchange) / bandwidth` against
    extra `bytes(deeper rows of the first) / bandwidth + recomputed conv
    flops / compute rate`. The three rates are options; `shardc` sets them
    per target.

    Input (a middle rank; 3x3 convs with padding 1, one row of halo each):
    ```mlir
    %a = memref.alloc() : memref<1x4x10x20xf32>
    scl.kernel "Pad" mode "constant" ins(%x : memref<1x4x8x20xf32>) outs(%a : memref<1x4x10x20xf32>)
        {floats = array<f64: 0.0>, ints = array<i64: 0, 0, 1, 0, 0, 0, 1, 0>}
    scl.halo_exchange ins(%x : ...) outs(%a : ...) [
        #scl.transfer<send 0 peer [-1] box [0:1, 0:4, 0:1, 0:20] tag 0>,
        #scl.transfer<recv 0 peer [-1] box [0:1, 0:4, 0:1, 0:20] tag 0>, ...]
    %c = memref.alloc() : memref<1x8x8x20xf32>
    scl.kernel "Conv" ins(%a, %w1 : ...) outs(%c : memref<1x8x8x20xf32>) {ints = array<i64: 2, 1, 1, 0, 1, 1, 1, 1>}
    %s = memref.alloc() : memref<1x8x8x20xf32>
    scl.kernel "Unary" mode "silu" ins(%c : ...) outs(%s : memref<1x8x8x20xf32>)
    %b = memref.alloc() : memref<1x8x10x20xf32>
    scl.kernel "Pad" mode "constant" ins(%s : ...) outs(%b : memref<1x8x10x20xf32>) {...}
    scl.halo_exchange ins(%s : ...) outs(%b : ...) [...]
    scl.kernel "Conv" ins(%b, %w2 : ...) outs(%y : memref<1x4x8x20xf32>) {...}
    ```
    Output:
    ```mlir
    %a = memref.alloc() : memref<1x4x12x20xf32>
    scl.kernel "Pad" mode "constant" ins(%x : memref<1x4x8x20xf32>) outs(%a : memref<1x4x12x20xf32>)
        {floats = array<f64: 0.0>, ints = array<i64: 0, 0, 2, 0, 0, 0, 2, 0>}
    scl.halo_exchange ins(%x : ...) outs(%a : ...) [
        #scl.transfer<send 0 peer [-1] box [0:1, 0:4, 0:2, 0:20] tag 0>,
        #scl.transfer<recv 0 peer [-1] box [0:1, 0:4, 0:2, 0:20] tag 0>, ...]
    %c = memref.alloc() : memref<1x8x10x20xf32>
    scl.kernel "Conv" ins(%a, %w1 : ...) outs(%c : memref<1x8x10x20xf32>) {ints = array<i64: 2, 1, 1, 0, 1, 1, 1, 1>}
    %s = memref.alloc() : memref<1x8x10x20xf32>
    scl.kernel "Unary" mode "silu" ins(%c : ...) outs(%s : memref<1x8x10x20xf32>)
    scl.kernel "Conv" ins(%s, %w2 : ...) outs(%y : memref<1x4x8x20xf32>) {...}
    ```
  }];
  let options = [
    Option<"latencyUs", "latency-us", "double", /*default=*/"20.0",
           "Fixed cost of one halo exchange, in microseconds">,
    Option<"gbytesPerS", "gbytes-per-s", "double", /*default=*/"20.0",
           "Halo transfer bandwidth, in GB/s">,
    Option<"gflops", "gflops", "double", /*default=*/"20000.0",
           "Convolution compute rate for the recomputed rows, in GFLOP/s">
  ];
  let dependentDialects = ["::shardc::scl::SclDialect"];
}

def ScOverlapHalos : Pass<"sc-overlap-halos", "mlir::ModuleOp"> {
  let summary = "Computes while halo exchanges are in flight (a conv's "
                "interior, a ring's block)";
  let description = [{
    In every rank-class function, a `scl.halo_exchange` whose one output is
    first read by a `Conv` kernel (as its input) becomes a start and an
    `scl.wait`, and the conv becomes several kernels over output regions
    (the Conv ints gain `region_lo`, `region_hi` per spatial dim):
     1. the exchange starts (packs its sends, posts every transfer);
     2. the *interior* runs: the output box whose windows read only the
        rank's own part of the buffer (receive boxes are edge slabs);
     3. `scl.wait` completes the exchange;
     4. the *boundary* runs: the slabs around the interior, at most two per
        spatial dim.

    Cost model: a split pays when the interior is at least half of the
    output, so that it can hide the transfer while the extra kernels stay
    few; smaller local blocks keep the plain exchange.

    Any other exchange (not split as above: pooling, a ring attention's pass
    of the next key block) with compute kernels before the first op that
    uses one of its outputs starts where it is, and its `scl.wait` goes just
    before that op, so the kernels in between run while it is in flight.
    They may overwrite its inputs (the start packs the sends). Communication
    in between keeps the exchange blocking (see below), and so does an
    output that a view aliases (its readers would not show).

    Input (one ring step: the next key block arrives while this one is
    attended):
    ```mlir
    scl.halo_exchange ins(%k : memref<8x4xf32>) outs(%next : memref<8x4xf32>)
        [#scl.transfer<send 0 peer [1] box [0:8, 0:4] tag 0 periodic>,
         #scl.transfer<recv 0 peer [-1] box [0:8, 0:4] tag 0 periodic>]
    scl.kernel "Matmul" ins(%q, %k : ...) outs(%s : memref<4x4xf32>)
    scl.kernel "Matmul" ins(%q, %next : ...) outs(%t : memref<4x4xf32>)
    ```
    Output:
    ```mlir
    %p = scl.halo_exchange ins(%k : memref<8x4xf32>)
        outs(%next : memref<8x4xf32>) [...] -> !scl.pending
    scl.kernel "Matmul" ins(%q, %k : ...) outs(%s : memref<4x4xf32>)
    scl.wait %p outs(%next : memref<8x4xf32>)
    scl.kernel "Matmul" ins(%q, %next : ...) outs(%t : memref<4x4xf32>)
    ```

    Neither form starts an exchange with communication before its wait: a
    communicator that posts point-to-point transfers only when waited on
    (NCCL groups them) would leave a peer that kept its blocking exchange
    waiting for this one.

    Input (a rank with halos of one column on both sides):
    ```mlir
    scl.halo_exchange ins(%x : memref<1x2x8xf32>) outs(%h : memref<1x2x10xf32>)
        [#scl.transfer<send 0 peer [-1] box [0:1, 0:2, 0:1] tag 0>, ...,
         #scl.transfer<recv 0 peer [1] box [0:1, 0:2, 9:10] tag 0>]
    scl.kernel "Conv" ins(%h, %w : memref<1x2x10xf32>, memref<4x2x3xf32>)
        outs(%y : memref<1x4x8xf32>) {ints = array<i64: 1, 1, 0, 1, 1>}
    ```
    Output:
    ```mlir
    %p = scl.halo_exchange ins(%x : memref<1x2x8xf32>)
        outs(%h : memref<1x2x10xf32>) [...] -> !scl.pending
    scl.kernel "Conv" ins(%h, %w : ...) outs(%y : memref<1x4x8xf32>)
        {ints = array<i64: 1, 1, 0, 1, 1, 1, 7>}
    scl.wait %p outs(%h : memref<1x2x10xf32>)
    scl.kernel "Conv" ins(%h, %w : ...) outs(%y : memref<1x4x8xf32>)
        {ints = array<i64: 1, 1, 0, 1, 1, 0, 1>}
    scl.kernel "Conv" ins(%h, %w : ...) outs(%y : memref<1x4x8xf32>)
        {ints = array<i64: 1, 1, 0, 1, 1, 7, 8>}
    ```
  }];
  let dependentDialects = ["::shardc::scl::SclDialect"];
}

def ScReshapeViews : Pass<"sc-reshape-views", "mlir::ModuleOp"> {
  let summary = "Turns copies that only reshape a buffer into views of it";
  let description = [{
    Partitioned programs reshape with `Copy` kernels: a group norm views
    its input as (groups, elements) and its result back, each a full pass
    over an activation. In every rank-class function, a `Copy` into an alloc
    of the same element count becomes an `scl.view` of its input when the
    copy is the alloc's only writer and, from the copy on, nothing writes
    the input's buffer, any view of it, or the alloc. The alloc goes; its
    readers read the input's bytes. The source must be a temporary (an
    alloc, not an input the caller may bind elsewhere) and neither may be
    returned.

    The memory plan then keeps the source's bytes live until the view's
    last reader, which never raises the peak: at the copy both buffers were
    live; an earlier plan of a function it changes is dropped (the writer
    plans again). Run it last, before `sc-plan-memory`: `sc-fuse`,
    `sc-deepen-halos` and `sc-overlap-halos` leave views alone.

    Input:
    ```mlir
    %y = memref.alloc() : memref<1x32x16x16xf32>
    scl.kernel "Conv" ins(...) outs(%y : memref<1x32x16x16xf32>) {...}
    %g = memref.alloc() : memref<8x1024xf32>
    scl.kernel "Copy" ins(%y : memref<1x32x16x16xf32>) outs(%g : memref<8x1024xf32>)
    scl.kernel "Reduce" mode "mean" ins(%g : memref<8x1024xf32>) outs(...) {ints = array<i64: 1>}
    ```
    Output:
    ```mlir
    %y = memref.alloc() : memref<1x32x16x16xf32>
    scl.kernel "Conv" ins(...) outs(%y : memref<1x32x16x16xf32>) {...}
    %g = scl.view %y : memref<1x32x16x16xf32> to memref<8x1024xf32>
    scl.kernel "Reduce" mode "mean" ins(%g : memref<8x1024xf32>) outs(...) {ints = array<i64: 1>}
    ```
  }];
  let dependentDialects = ["::shardc::scl::SclDialect"];
}

#endif // SHARDC_COMPILER_PASSES_TD
