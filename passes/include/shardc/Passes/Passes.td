//===- Passes.td - shardc passes ---------------------------*- tablegen -*-===//
#ifndef SHARDC_PASSES_TD
#define SHARDC_PASSES_TD

include "mlir/Pass/PassBase.td"

def ScPrintShardingRules : Pass<"sc-print-sharding-rules", "mlir::ModuleOp"> {
  let summary = "Reports every op's sharding rule and windows as remarks";
  let description = [{
    Emits one remark per sc op with the factors of its sharding rule (see
    ShardingRuleOpInterface) and, for windowed ops, the window of every
    windowed dim together with the input range read by the first and by the
    last output index. The partitioner is built on exactly these facts, so lit
    tests pin them through this pass. The IR is left unchanged.

    Input:
    ```mlir
    %y = sc.conv %x, %w {padding = array<i64: 1>}
        : (tensor<1x2x8xf32>, tensor<4x2x3xf32>) -> tensor<1x4x8xf32>
    ```
    Remarks:
    ```
    remark: rule (i, l, k), (j, l, -) -> (i, j, k) {i=1 pass_through, j=4 pass_through, k=8 window, l=2 reduction}
    remark: window dim 2 <- operand 0 dim 2: strided k=3 s=1 d=1 pad=1/1 zeros; out [0,1) reads [-1,2), out [7,8) reads [6,9)
    ```
  }];
}

def ScModelSummary : Pass<"sc-model-summary", "mlir::ModuleOp"> {
  let summary = "Prints what a model holds and what partitioning will add";
  let description = [{
    For every function: the number of ops of each kind, the parameters
    (function arguments without a sharding, counted in elements), the sharded
    values with their per-shard extents on every mesh axis, and for each
    windowed op along each sharded dim the halo widths (low/high) every shard
    will need from its neighbours, computed with the window arithmetic. The
    IR is left unchanged; the report goes to stdout.

    ```
    func @unet: 151 ops, 2337604 parameters
      conv (47), group_norm (36), silu (36), ...
      %x: tensor<1x4x1024x1024xf32> dim 2 over "x": extents [300, 300, 212, 212]
    ```
  }];
}

def ScComputeInF32 : Pass<"sc-compute-in-f32", "mlir::ModuleOp"> {
  let summary = "Computes bf16 and f16 ops in f32, rounding each result back";
  let description = [{
    A model in bf16 or f16 keeps its tensors in 16 bits: every activation a
    rank holds, and every halo or gather it sends, takes half the bytes of
    f32. The kernels compute in f32, as PyTorch's eager kernels compute
    these types in float: this pass casts each computing op's 16-bit
    operands to f32 and its result back, so each op's result is rounded
    once, to nearest even, exactly where PyTorch rounds it.

    - Ops that only move elements (reshape, permute, transpose, slice,
      concat, broadcast_to, squeeze/unsqueeze, roll, flip, pixel
      (un)shuffle, reflect/replicate/circular pads and zero pads, nearest
      interpolation, sharding constraints and reshards) stay in 16 bits:
      they are exact in any type.
    - A 16-bit constant becomes an f32 constant, which computing ops read
      directly (exact: every bf16 and f16 value is an f32 value). Constants
      are small (model weights are function arguments, which stay 16-bit);
      one that is not a dense attribute is refused at the op. A 0-d bf16
      constant is a bf16 tensor (`torch.tensor(0.1, dtype=bfloat16)`), not
      a Python scalar.
    - A Python scalar is a 0-d f32 operand of `sc.add`/`sub`/`mul`/`div`
      beside a 16-bit tensor. As ATen's CPU kernels read it, a right-hand
      scalar of `sc.mul` or `sc.div` enters in f32 unrounded
      (`original_scalar_value<opmath_t>`), and every other one (add and
      sub's, a left-hand one) is first cast to the tensor's type: the pass
      inserts that cast.
    - `sc.nan_to_num` without bounds gets the 16-bit type's largest finite
      values, its default.
    - A 16-bit `sc.einsum` is first decomposed as `sc-decompose-forms` does
      (sums, permutes and one matmul per pair of operands), so that each
      of those rounds, as torch.einsum's own sums and bmm calls do.
    - A value read by several ops is cast up once; a `sc.sharding` pin moves
      to the cast that gives the op's result its type.

    f64 is not narrowed: it stays an error at lowering. shardc runs the pass
    first, at every -O level, so that every later pass sees f32 compute.

    Before:
    ```mlir
    %y = sc.conv %x, %w : (tensor<1x4x8x8xbf16>, tensor<4x4x3x3xbf16>) -> tensor<1x4x6x6xbf16>
    %z = sc.silu %y : tensor<1x4x6x6xbf16>
    ```
    After:
    ```mlir
    %0 = sc.cast %x : tensor<1x4x8x8xbf16> to tensor<1x4x8x8xf32>
    %1 = sc.cast %w : tensor<4x4x3x3xbf16> to tensor<4x4x3x3xf32>
    %2 = sc.conv %0, %1 : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
    %y = sc.cast %2 : tensor<1x4x6x6xf32> to tensor<1x4x6x6xbf16>
    %3 = sc.cast %y : tensor<1x4x6x6xbf16> to tensor<1x4x6x6xf32>
    %4 = sc.silu %3 : tensor<1x4x6x6xf32>
    %z = sc.cast %4 : tensor<1x4x6x6xf32> to tensor<1x4x6x6xbf16>
    ```
  }];
}

def ScDecomposeForms : Pass<"sc-decompose-forms", "mlir::ModuleOp"> {
  let summary = "Rewrites PyTorch op forms the partitioner lacks into core ones";
  let description = [{
    Some ops take PyTorch forms that sharding rules, windows and the runtime
    do not: they would each need a variant for little gain. This pass
    rewrites them, before sharding propagation, into ops that have rules:

    - `sc.linear` with a 1-D weight (in) becomes a linear with the weight
      viewed as (1, in), whose (..., 1) result is viewed as (...);
    - `sc.linear` with a bias other than (out) adds it with `sc.add`;
    - a circular `sc.pad` with crops becomes a constant-mode pad that crops
      and a circular pad of what is left (F.pad wraps the cropped tensor),
      so both keep their windows and halos;
    - `sc.leaky_relu`, `sc.elu`, `sc.softplus`, `sc.clamp`, `sc.hardtanh`,
      `sc.hardsigmoid`, `sc.hardswish`, `sc.mish`, `sc.selu`, `sc.celu`,
      `sc.logsigmoid`, `sc.softsign` and `sc.prelu` (its per-channel
      slopes viewed along dim 1) become
      `sc.compare`/`sc.select`, `sc.maximum`/`sc.minimum` and arithmetic on
      rank-0 constants, as PyTorch's kernels compute them (with `sc.expm1`
      and `sc.log1p` where they call expm1 and log1p); they shard as
      elementwise ops and fuse into one kernel;
    - `sc.var` and `sc.std` become a mean kept for broadcasting, the
      squared deviations' sum and a division by `max(0, N - correction)`
      (then `sc.sqrt`);
    - `sc.instance_norm` becomes `sc.group_norm` with a group per channel;
    - `sc.hardshrink`, `sc.softshrink`, `sc.tanhshrink` and
      `sc.threshold` become comparisons, selects and arithmetic as ATen's
      kernels compute them, and `sc.softmin` a softmax of `-x`;
    - `sc.square`, `sc.sign`, `sc.logaddexp`, `sc.nan_to_num`, `sc.isnan`,
      `sc.isinf` and `sc.isfinite` become products, comparisons, selects
      and `sc.log1p` as ATen computes them (`sign(NaN)` is 0);
    - `sc.softmax` and `sc.log_softmax` of a rank-0 tensor become
      `exp(x - x)` and `x - x` (1 and 0, NaN where x is not finite);
    - `sc.roll` becomes a circular `sc.pad` that wraps the shifted-in rows
      and a constant-mode `sc.pad` that crops as many on the other side
      (the shorter way round; flattened through `sc.reshape` without
      `dims`), so a short shift over a split dim moves halos only;
    - `sc.flip` becomes one reflect-mode `sc.pad` that mirrors `n - 1`
      elements in front and crops as many behind;
    - `sc.pixel_shuffle` and `sc.pixel_unshuffle` become `sc.reshape`,
      `sc.permute` and `sc.reshape`, which keep a split of H on whole rows;
    - `sc.logsumexp` becomes `sc.amax`, a shift that is 0 where the max is
      infinite, `sc.exp`, `sc.sum`, `sc.log` and `sc.add`;
      `sc.vector_norm` and `sc.normalize` the reductions and elementwise
      ops of their order (`sc.normalize` then `sc.maximum` with `eps` and
      `sc.div`); `sc.glu` two `sc.slice`s, `sc.sigmoid` and `sc.mul`;
      `sc.rms_norm` a kept `sc.mean` of squares, `sc.add` of eps,
      `sc.rsqrt` and `sc.mul`s; `sc.prod` an `sc.permute` and
      `sc.reshape` that move and merge several reduced dims last, one
      `sc.cumprod` and an `sc.slice` of its last element (a product in
      double; over a split dim the cumprod's carry), then `sc.reshape` to
      the result;
    - `sc.max` and `sc.min` along a dim (values and indices) become
      `sc.amax` (`sc.amin`) and `sc.argmax` (`sc.argmin`), decomposed in
      turn;
    - `sc.argmax` and `sc.argmin` become the kept `sc.amax` (`sc.amin`),
      `sc.compare`s of `x` with it and with itself (NaN), `sc.select`s of
      candidates from indices along the dim (a constant, or past 2^16 an
      `sc.cumsum` of ones, so that a rank holds its own shard's; `i` for a NaN,
      `n + i` for the extreme, `2n` elsewhere, so NaN wins even where the
      extreme's reduction dropped it), the least of those (`sc.amin`),
      `c < n ? c : c - n` and an `sc.cast` to i64; without a dim every dim is
      reduced and the flattened index is a sum of per-dim constants
      (`i * stride`, added by broadcasting), so nothing is reshaped or
      gathered. Over a split dim that is two all-reduces. An extent past
      2^23 (where the f32 candidates stop being exact) is refused at the op;
    - `sc.adaptive_avg_pool` and `sc.adaptive_max_pool` become a pool of
      kernel and stride `n / out` over the dims the output size divides,
      and, per other dim, a slice and a `sc.mean` (`sc.amax`) per window
      and a `sc.concat`;
    - `sc.einsum` becomes `sc.sum` (labels only one operand has that
      nothing later needs), `sc.permute`, `sc.reshape` and, per pair of
      operands from the left, one batched `sc.matmul` (shared kept labels
      as batch dims, summed labels as the inner dim) or, when nothing is
      summed, a broadcasting `sc.mul`;
    - `sc.fft`, `sc.ifft`, `sc.rfft` and `sc.irfft` become, per transformed
      dim, an `sc.matmul` against a constant DFT matrix (the dim moved last
      by `sc.permute` and flattened with its (real, imaginary) pair by
      `sc.reshape`). Over a split dim that is a contraction: each rank
      transforms its part and the partial spectra are all-reduced. Slices
      of an unpinned result select the matrices' columns, and zero pads or
      all-zero concat blocks of the input drop their rows, so a transform
      truncated to the modes a spectral layer keeps costs points x modes
      and all-reduces only those modes. A matrix past 2^28 elements is
      refused at the op.

    Every new op takes the location of the op it replaces, and the last one
    takes its `sc.sharding` pin, so annotations hold as written (a roll or
    flip that moves nothing leaves an `sc.sharding_constraint` for its
    pin, or nothing). shardc runs
    the pass at every -O level; sharding propagation and the partitioner
    refuse the forms with an error that names it.

    Before:
    ```mlir
    %y = sc.linear %x, %v, %c : (tensor<8x16xf32>, tensor<16xf32>, tensor<f32>) -> tensor<8xf32>
    ```
    After:
    ```mlir
    %0 = sc.reshape %v : (tensor<16xf32>) -> tensor<1x16xf32>
    %1 = sc.linear %x, %0 : (tensor<8x16xf32>, tensor<1x16xf32>) -> tensor<8x1xf32>
    %2 = sc.reshape %1 : (tensor<8x1xf32>) -> tensor<8xf32>
    %y = sc.add %2, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
    ```

    Before (an rfft of 8 points keeping 2 modes):
    ```mlir
    %f = sc.rfft %x : (tensor<4x8xf32>) -> tensor<4x5x2xf32>
    %m = sc.slice %f {start = array<i64: 0, 0, 0>, end = array<i64: 4, 2, 2>} : (tensor<4x5x2xf32>) -> tensor<4x2x2xf32>
    ```
    After (`dense<...>`: cos and -sin of the 2 bins, per point):
    ```mlir
    %0 = sc.constant dense<...> : tensor<8x4xf32>
    %1 = sc.matmul %x, %0 : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    %m = sc.reshape %1 : (tensor<4x4xf32>) -> tensor<4x2x2xf32>
    ```
  }];
}

def ScPropagateSharding : Pass<"sc-propagate-sharding", "mlir::ModuleOp"> {
  let summary = "Gives every value a sharding, starting from the annotations";
  let description = [{
    Walks each function through every op's sharding rule and records the
    inferred sharding of each op result as an `sc.sharding` attribute (and of
    each unannotated argument that backward propagation splits as an
    argument attribute). Forward: a result takes its operands' splits.
    Backward (`strategy=bidirectional`, the default): a value still
    replicated takes the split its consumer's result, a
    `sc.sharding_constraint` or the function's declared result sharding
    needs, so annotating an output shards the computation that produces it.
    Rounds repeat until nothing changes; forward never replaces a split with
    a replication and backward only fills replicated values, so inferred
    shardings settle and user annotations are never changed.
    A factor takes its split from the operand dims mapped to it; when
    operands disagree the split of the operand with the most bytes wins
    (ties: lower operand index). Windowed factors derive the result extents
    from the input's: output index o belongs to the shard that owns
    `anchorInputIndex(o)`, so an uneven split stays aligned through strided,
    transposed and resizing ops. Reduction factors leave a *partial* result,
    statistic factors keep the split, needs-replication factors drop it.
    User annotations (arguments, op results carrying `sc.sharding` before
    the pass, `sc.sharding_constraint`, `sc.reshard`) are kept: an annotated
    op result is pinned, and its operands and consumers work around it. A
    partial sharding on an op result is not a pin (the op's rule decides
    what is partial), so this pass's own output propagates to itself.

    Before:
    ```mlir
    sc.mesh @mesh ["x"=3]
    func.func @f(%x: tensor<1x1x250xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[90, 90, 70]]>},
                 %w: tensor<1x1x3xf32>) -> tensor<1x1x125xf32> {
      %y = sc.conv %x, %w {padding = array<i64: 1>, stride = array<i64: 2>}
          : (tensor<1x1x250xf32>, tensor<1x1x3xf32>) -> tensor<1x1x125xf32>
      return %y : tensor<1x1x125xf32>
    }
    ```
    After (the stride-2 output keeps each rank's windows):
    ```mlir
      %y = sc.conv %x, %w {padding = array<i64: 1>, sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[45, 45, 35]]>, stride = array<i64: 2>} ...
    ```
  }];
  let options = [
    Option<"checkOnly", "check-only", "bool", /*default=*/"false",
           "Report each inferred sharding as a remark and leave the IR unchanged">,
    Option<"strategy", "strategy", "std::string", /*default=*/"\"bidirectional\"",
           "'bidirectional' (forward, then backward into replicated values, "
           "until nothing changes) or 'forward' (forward from the annotations only)">
  ];
}

def ScInsertReshards : Pass<"sc-insert-reshards", "mlir::ModuleOp"> {
  let summary = "Inserts sc.reshard where an operand arrives in another layout";
  let description = [{
    Runs after `sc-propagate-sharding`. For every op, each operand must
    arrive split like the result dims it shares a factor with; contracted
    dims may stay split over the result's partial axes; windowed dims keep
    their split (halos are the partitioner's job); every other dim is
    gathered. Partial operands are resolved. An operand that differs gets an
    `sc.reshard`; misaligned operands of elementwise ops are therefore never
    paired silently. Function results take their declared `sc.sharding`, or
    lose any pending reduction. An op result pinned to a split its op cannot
    produce (along a dim the op cuts, joins or reshapes) is computed whole
    there, and one `sc.reshard` after the op gives every use the pinned
    layout.

    Before (operands split with different extents):
    ```mlir
    %z = sc.add %x, %y {sc.sharding = #sc.sharding<@mesh, [{"x"}[6, 2]]>}
        : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>   // %y is [4, 4]
    ```
    After:
    ```mlir
    %0 = sc.reshard %y : tensor<8xf32> to #sc.sharding<@mesh, [{"x"}[6, 2]]>
    %z = sc.add %x, %0 {sc.sharding = ...} : ...
    ```
  }];
}

#endif // SHARDC_PASSES_TD
