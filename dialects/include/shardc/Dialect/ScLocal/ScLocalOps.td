//===- ScLocalOps.td - scl ops -------------------------------*- tablegen -*-===//
#ifndef SHARDC_DIALECT_SCLOCAL_OPS_TD
#define SHARDC_DIALECT_SCLOCAL_OPS_TD

include "shardc/Dialect/ScLocal/ScLocalBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ViewLikeInterface.td"

class Scl_Op<string mnemonic, list<Trait> traits = []>
    : Op<Scl_Dialect, mnemonic, traits>;

// The buffers a rank program computes on: static shapes, the element types
// the runtime stores. bf16 and f16 buffers are only moved and cast (kernels
// compute in f32; see sc-compute-in-f32).
def Scl_Buffer : StaticShapeMemRefOf<[F32, BF16, F16, I1, I64]>;

def Scl_TransferArrayAttr
    : TypedArrayAttrBase<Scl_TransferAttr, "array of #scl.transfer">;
def Scl_ShardArrayAttr
    : TypedArrayAttrBase<Scl_ShardAttr, "array of #scl.shard">;

def Scl_KernelOp : Scl_Op<"kernel", [AttrSizedOperandSegments]> {
  let summary = "one local compute instruction of the runtime";
  let description = [{
    Reads `ins` and writes `outs` with the runtime instruction `opcode`
    (the artifact schema's names: `Conv`, `Pool`, `Binary`, `Pad`, ...),
    configured by `ints`, `floats` and `mode` as the schema documents for that
    opcode. The location names the `sc` op it came from.

    ```mlir
    scl.kernel "Binary" mode "add" ins(%a, %b : memref<4xf32>, memref<4xf32>)
        outs(%c : memref<4xf32>)
    ```

    `over` names a group of ranks (mesh axes, as the collectives name theirs)
    for the instructions that read their rank's place in it: a `Scan` from
    gathered totals folds the totals of the members before it, and a
    `ScanTotals` on the group's last member writes zeros, so every member of
    a split scan runs the same instructions.

    ```mlir
    scl.kernel "Scan" mode "sum" over [0] ins(%x, %totals : memref<2x3xf32>,
        memref<2x4x4xf32>) outs(%y : memref<2x3xf32>) {ints = array<i64: 1>}
    ```
  }];
  let arguments = (ins
    StrAttr:$opcode,
    Arg<Variadic<Scl_Buffer>, "", [MemRead]>:$ins,
    Arg<Variadic<Scl_Buffer>, "", [MemWrite]>:$outs,
    DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$ints,
    DefaultValuedAttr<DenseF64ArrayAttr, "{}">:$floats,
    OptionalAttr<StrAttr>:$mode,
    OptionalAttr<DenseI64ArrayAttr>:$mesh_axes
  );
  let assemblyFormat = [{
    $opcode (`mode` $mode^)? (`over` $mesh_axes^)?
    (`ins` `(` $ins^ `:` type($ins) `)`)?
    `outs` `(` $outs `:` type($outs) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Scl_FusedElementwiseOp : Scl_Op<"fused_elementwise"> {
  let summary = "one kernel for a chain of elementwise instructions";
  let description = [{
    Computes `output` element by element: the body gets one f32 per input,
    read at the output index (an input of lower rank or with dims of size 1
    is broadcast, numpy rules), and yields the output's value. An i1 input
    reads as 1.0 or 0.0, and an i1 output stores whether the value is not
    0 (NaN included). `sc-fuse` forms it from chains of `Unary`, `Binary`,
    `Compare`, `Select`, `Cast` and `Copy` kernels whose intermediate
    buffers nothing else reads, so they are never written to memory. The CUDA target turns each into a generated kernel; the CPU
    backend evaluates the body tile by tile.

    ```mlir
    scl.fused_elementwise ins(%x, %mean : memref<1x8x4xf32>, memref<1x8x1xf32>)
        outs(%y : memref<1x8x4xf32>) {
    ^bb0(%a: f32, %m: f32):
      %d = scl.scalar "sub"(%a, %m) : f32
      %r = scl.scalar "silu"(%d) : f32
      scl.yield %r : f32
    }
    ```
  }];
  let arguments = (ins Arg<Variadic<Scl_Buffer>, "", [MemRead]>:$ins,
                       Arg<Scl_Buffer, "", [MemWrite]>:$output);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `ins` `(` $ins `:` type($ins) `)` `outs` `(` $output `:` type($output) `)`
    $body attr-dict
  }];
  let hasVerifier = 1;
}

def Scl_FusedReductionOp : Scl_Op<"fused_reduction"> {
  let summary = "one kernel for an elementwise chain and the reduction after it";
  let description = [{
    Evaluates the body (as `scl.fused_elementwise` does) at every index of
    the iteration space `over`, reading each input there (numpy
    broadcasting; an i1 input reads as 1.0 or 0.0, so a masked sum is one
    kernel), and reduces the values over `dims` with `kind` (`sum`,
    `mean`, `amax`, `amin`: the runtime's `Reduce` modes, PyTorch's
    semantics: sums in double, NaN propagates through amax/amin). `output`
    holds the kept dims in order (a kept dim of size one may be anywhere:
    keepdim does not change the layout). `sc-fuse` forms it from a `Reduce`
    whose input only an elementwise chain writes, so that input (often the
    size of an activation, as for a norm's centred squares) is never
    written to memory. No input may share the output's buffer: an output's
    work may read an input where other outputs are written, in no set order.

    ```mlir
    scl.fused_reduction "sum" dims [1] over [8, 4096]
        ins(%x, %mean : memref<8x4096xf32>, memref<8x1xf32>)
        outs(%var : memref<8x1xf32>) {
    ^bb0(%a: f32, %m: f32):
      %d = scl.scalar "sub"(%a, %m) : f32
      %q = scl.scalar "mul"(%d, %d) : f32
      scl.yield %q : f32
    }
    ```
  }];
  let arguments = (ins StrAttr:$kind, DenseI64ArrayAttr:$dims,
                       DenseI64ArrayAttr:$domain,
                       Arg<Variadic<Scl_Buffer>, "", [MemRead]>:$ins,
                       Arg<Scl_Buffer, "", [MemWrite]>:$output);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind `dims` $dims `over` $domain `ins` `(` $ins `:` type($ins) `)`
    `outs` `(` $output `:` type($output) `)` $body attr-dict
  }];
  let hasVerifier = 1;
}

def Scl_ScalarOp : Scl_Op<"scalar",
    [Pure, ParentOneOf<["FusedElementwiseOp", "FusedReductionOp"]>]> {
  let summary = "one elementwise function on f32 scalars";
  let description = [{
    `fn` is a mode of the runtime's `Unary` (one operand: neg, abs, exp, log,
    sqrt, rsqrt, tanh, sin, cos, erf, log1p, expm1, tan, asin, acos, atan,
    sinh, cosh, asinh, acosh, atanh, log2, log10, exp2, erfc, floor, ceil,
    trunc, round, reciprocal, sigmoid, relu, silu, gelu, gelu_tanh)
    or `Binary`
    (two operands: add, sub, mul, div, maximum, minimum, pow, atan2, fmod,
    remainder, hypot, copysign) instruction,
    with the same semantics (PyTorch's), or works on bools held as 1.0 and
    0.0, so that a mask only the body reads is never a buffer:

    - a `Compare` predicate (two operands: eq, ne, lt, le, gt, ge) gives
      1.0 where it holds, else 0.0 (NaN compares unequal to everything);
    - `select` (three operands: c, t, f) is `t` where `c != 0`, else `f`
      (the runtime's `Select` on such a `c`);
    - `bool` (one operand) is 1.0 where `x != 0` (NaN included), else 0.0:
      a `Cast` from f32 to i1. The `Cast` back is the value itself.

    ```mlir
    // torch.where(x > 0, x, 0.2 * x), one kernel:
    %m = scl.scalar "gt"(%x, %zero) : f32
    %s = scl.scalar "mul"(%x, %slope) : f32
    %y = scl.scalar "select"(%m, %x, %s) : f32
    ```
  }];
  let arguments = (ins StrAttr:$fn, Variadic<F32>:$operands);
  let results = (outs F32:$result);
  let assemblyFormat = "$fn `(` $operands `)` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Scl_YieldOp : Scl_Op<"yield",
    [Pure, Terminator,
     ParentOneOf<["FusedElementwiseOp", "FusedReductionOp"]>]> {
  let summary = "the value a fused body computes for one element";
  let arguments = (ins F32:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

// The messages communication sends and receives (see CommResource).
def Scl_CommResource : Resource<"::shardc::scl::CommResource">;
def Scl_Communicates : MemoryEffects<[MemWrite<Scl_CommResource>]>;

def Scl_HaloExchangeOp : Scl_Op<"halo_exchange", [AttrSizedOperandSegments,
                                                  Scl_Communicates]> {
  let summary = "point-to-point sends and receives of boxes, as one step";
  let description = [{
    Sends boxes of `ins` to relative peers and receives boxes into `outs`,
    all at once (edge and corner blocks of an N-D halo in one step). Each
    `#scl.transfer` names the operand it reads (send) or writes (recv).

    ```mlir
    scl.halo_exchange ins(%x : memref<1x1x4xf32>) outs(%h : memref<1x1x5xf32>)
        [#scl.transfer<send 0 peer [1] box [0:1, 0:1, 3:4] tag 0>,
         #scl.transfer<recv 0 peer [1] box [0:1, 0:1, 4:5] tag 1>]
    ```

    With a `!scl.pending` result the op only packs its sends and posts every
    transfer; the `scl.wait` on the result (its one use) completes them and
    writes the received boxes into `outs`. Until then `outs` may be read
    outside the receive boxes only.
  }];
  let arguments = (ins
    Arg<Variadic<Scl_Buffer>, "", [MemRead]>:$ins,
    Arg<Variadic<Scl_Buffer>, "", [MemWrite]>:$outs,
    Scl_TransferArrayAttr:$transfers
  );
  let results = (outs Optional<Scl_PendingType>:$pending);
  let assemblyFormat = [{
    `ins` `(` $ins `:` type($ins) `)` (`outs` `(` $outs^ `:` type($outs) `)`)?
    $transfers attr-dict (`->` type($pending)^)?
  }];
  let hasVerifier = 1;
}

def Scl_WaitOp : Scl_Op<"wait", [Scl_Communicates]> {
  let summary = "completes a started halo exchange";
  let description = [{
    Waits for the transfers of the `scl.halo_exchange` that defined
    `pending` and writes its received boxes into `outs`, which must be that
    exchange's outputs. `sc-overlap-halos` places the interior part of the
    consuming op between the two:

    ```mlir
    %p = scl.halo_exchange ins(%x : memref<1x2x8xf32>)
        outs(%h : memref<1x2x10xf32>) [...] -> !scl.pending
    scl.kernel "Conv" ins(%h, %w : ...) outs(%y : memref<1x4x8xf32>)
        {ints = array<i64: 1, 1, 0, 1, 1, 1, 7>}   // output columns [1, 7)
    scl.wait %p outs(%h : memref<1x2x10xf32>)
    scl.kernel "Conv" ins(%h, %w : ...) outs(%y : memref<1x4x8xf32>)
        {ints = array<i64: 1, 1, 0, 1, 1, 0, 1>}   // column 0
    ```
  }];
  let arguments = (ins Scl_PendingType:$pending,
                       Arg<Variadic<Scl_Buffer>, "", [MemWrite]>:$outs);
  let assemblyFormat = [{
    $pending `outs` `(` $outs `:` type($outs) `)` attr-dict
  }];
  let hasVerifier = 1;
}

class Scl_CollectiveOp<string mnemonic>
    : Scl_Op<mnemonic, [Scl_Communicates]> {
  let hasVerifier = 1;
}

def Scl_AllReduceOp : Scl_CollectiveOp<"all_reduce"> {
  let summary = "every member of the group gets the reduction of all members";
  let description = [{
    The group is the ranks sharing this rank's coordinates on every mesh axis
    not in `mesh_axes`. Group order, in every collective, orders the members
    by their coordinates on `mesh_axes` as listed, the first major: over
    `[1, 0]` of a 2x2 mesh the members are world ranks 0, 2, 1, 3. Members
    combine in group order, so all get bitwise the same result.

    ```mlir
    scl.all_reduce sum over [0] ins(%p : memref<4x4xf32>) outs(%r : memref<4x4xf32>)
    ```
  }];
  let arguments = (ins
    Scl_ReductionAttr:$reduction,
    DenseI64ArrayAttr:$mesh_axes,
    Arg<Scl_Buffer, "", [MemRead]>:$input,
    Arg<Scl_Buffer, "", [MemWrite]>:$output
  );
  let assemblyFormat = [{
    $reduction `over` $mesh_axes `ins` `(` $input `:` type($input) `)`
    `outs` `(` $output `:` type($output) `)` attr-dict
  }];
}

def Scl_AllGatherOp : Scl_CollectiveOp<"all_gather"> {
  let summary = "concatenate the members' blocks along one dim (gather-v)";
  let description = [{
    Member i of the group contributes `extents[i]` rows along `dim`; every
    member receives all blocks in group order. Extents may differ (uneven
    splits) and may be zero.

    ```mlir
    scl.all_gather dim 2 extents [3, 1] over [0]
        ins(%x : memref<1x4x3xf32>) outs(%y : memref<1x4x4xf32>)
    ```
  }];
  let arguments = (ins
    I64Attr:$dim,
    DenseI64ArrayAttr:$extents,
    DenseI64ArrayAttr:$mesh_axes,
    Arg<Scl_Buffer, "", [MemRead]>:$input,
    Arg<Scl_Buffer, "", [MemWrite]>:$output
  );
  let assemblyFormat = [{
    `dim` $dim `extents` $extents `over` $mesh_axes
    `ins` `(` $input `:` type($input) `)` `outs` `(` $output `:` type($output) `)`
    attr-dict
  }];
}

def Scl_ReduceScatterOp : Scl_CollectiveOp<"reduce_scatter"> {
  let summary = "reduce over the group and keep one block along a dim "
                "(reduce-scatter-v)";
  let description = [{
    Every member holds the whole `dim`; member i keeps rows
    `[sum(extents[:i]), sum(extents[:i+1]))` of the reduction.

    ```mlir
    scl.reduce_scatter sum dim 0 extents [1, 3] over [1]
        ins(%p : memref<4x8xf32>) outs(%y : memref<1x8xf32>)
    ```
  }];
  let arguments = (ins
    Scl_ReductionAttr:$reduction,
    I64Attr:$dim,
    DenseI64ArrayAttr:$extents,
    DenseI64ArrayAttr:$mesh_axes,
    Arg<Scl_Buffer, "", [MemRead]>:$input,
    Arg<Scl_Buffer, "", [MemWrite]>:$output
  );
  let assemblyFormat = [{
    $reduction `dim` $dim `extents` $extents `over` $mesh_axes
    `ins` `(` $input `:` type($input) `)` `outs` `(` $output `:` type($output) `)`
    attr-dict
  }];
}

def Scl_AllToAllOp : Scl_CollectiveOp<"all_to_all"> {
  let summary = "move a split from one dim to another (all-to-all-v)";
  let description = [{
    Member i holds its block of `concat_dim` (`concat_extents[i]` rows) and
    the whole `split_dim`. It sends member j rows
    `[sum(split_extents[:j]), sum(split_extents[:j+1]))` of `split_dim` and
    receives member j's block of `concat_dim`, so the output holds the whole
    `concat_dim` (blocks in group order) and its own rows of `split_dim`.
    Extents may differ and may be zero. This is the reshard that moves a
    split from `concat_dim` to `split_dim` over the same mesh axes.

    ```mlir
    // dim 1 split [4, 10] -> dim 2 split [5, 5] over mesh axis 0
    scl.all_to_all split 2 [5, 5] concat 1 [4, 10] over [0]
        ins(%x : memref<2x4x10xf32>) outs(%y : memref<2x14x5xf32>)
    ```
  }];
  let arguments = (ins
    I64Attr:$split_dim,
    DenseI64ArrayAttr:$split_extents,
    I64Attr:$concat_dim,
    DenseI64ArrayAttr:$concat_extents,
    DenseI64ArrayAttr:$mesh_axes,
    Arg<Scl_Buffer, "", [MemRead]>:$input,
    Arg<Scl_Buffer, "", [MemWrite]>:$output
  );
  let assemblyFormat = [{
    `split` $split_dim $split_extents `concat` $concat_dim $concat_extents
    `over` $mesh_axes
    `ins` `(` $input `:` type($input) `)` `outs` `(` $output `:` type($output) `)`
    attr-dict
  }];
}

def Scl_RingAttentionOp : Scl_CollectiveOp<"ring_attention"> {
  let summary = "scaled dot-product attention over a key sequence split "
                "among the group (a ring)";
  let description = [{
    Member i of the group holds keys `[key_starts[i], key_starts[i+1])` of
    the sequence (blocks may differ in size or be empty). The op runs one
    step per member: the key block at hand (with its values, unless
    `values_whole` or `values_are_keys`) goes to the next member while this
    member folds it into an online softmax (running row max, rescaled sum
    and output), and the previous member's block arrives. `output` is
    softmax(query keys^T * scale + mask) values over every key.

    - `query` (..., Lq, E), `key` (..., own keys, E), `value` (..., own
      keys, Ev), or every key when `values_whole` (each block slices its
      rows); batch dims broadcast as PyTorch's.
    - `mask`, when given, is added to the scores (f32, its last dims 1 or
      Lq, and 1 or every key); a row whose every key is masked (-inf) gives
      NaN, as the unpartitioned op does.
    - `is_causal`: the queries are split over `query_axes` (the first
      major; none when whole) at `query_starts` (one per member of that
      group, then the end), and the query at global position
      `query_starts[j] + i` of member j sees the keys at or before it;
      blocks wholly after the queries are skipped. Every rank of a ring
      carries the same attributes, so that even splits share a class.

    ```mlir
    scl.ring_attention over [0] starts [0, 2, 2, 5] scale 0.5
        ins(%q, %k, %v : memref<2x3x4xf32>, memref<1x2x4xf32>,
                         memref<1x2x4xf32>)
        outs(%y : memref<2x3x4xf32>)
    scl.ring_attention over [0] starts [0, 2, 4, 6] scale 0.5
        causal queries over [0] starts [0, 2, 4, 6]
        ins(%q, %k, %k : memref<2x2x4xf32>, memref<2x2x4xf32>,
                         memref<2x2x4xf32>)
        outs(%y : memref<2x2x4xf32>) {values_are_keys}
    ```
  }];
  let arguments = (ins
    DenseI64ArrayAttr:$mesh_axes,
    DenseI64ArrayAttr:$key_starts,
    F64Attr:$scale,
    UnitAttr:$is_causal,
    OptionalAttr<DenseI64ArrayAttr>:$query_axes,
    OptionalAttr<DenseI64ArrayAttr>:$query_starts,
    UnitAttr:$values_whole,
    UnitAttr:$values_are_keys,
    Arg<Scl_Buffer, "", [MemRead]>:$query,
    Arg<Scl_Buffer, "", [MemRead]>:$key,
    Arg<Scl_Buffer, "", [MemRead]>:$value,
    Arg<Optional<Scl_Buffer>, "", [MemRead]>:$mask,
    Arg<Scl_Buffer, "", [MemWrite]>:$output
  );
  // The verifier requires the query split exactly when causal; an op it
  // refused prints in generic form, so the group never prints a null.
  let assemblyFormat = [{
    `over` $mesh_axes `starts` $key_starts `scale` $scale
    (`causal` $is_causal^ `queries` `over` $query_axes `starts`
     $query_starts)?
    `ins` `(` $query `,` $key `,` $value (`,` $mask^)? `:` type($query) `,`
    type($key) `,` type($value) (`,` type($mask)^)? `)`
    `outs` `(` $output `:` type($output) `)` attr-dict
  }];
}

def Scl_GlobalOp : Scl_Op<"global", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "a constant, with its value on each rank";
  let description = [{
    The artifact stores one value per shard; `scl.constant` binds it in a
    rank program. Every rank that reads the constant must hold exactly one
    shard.

    ```mlir
    scl.global @constant0 [#scl.shard<[0], dense<1.0> : tensor<2xf32>>,
                           #scl.shard<[1], dense<2.0> : tensor<2xf32>>]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Scl_ShardArrayAttr:$shards);
  let assemblyFormat = "$sym_name $shards attr-dict";
  let hasVerifier = 1;
}

def Scl_ConstantOp : Scl_Op<"constant",
    [Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "this rank's shard of an scl.global, read in place";
  let description = [{
    ```mlir
    %w = scl.constant @constant0 : memref<2xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$name);
  let results = (outs Scl_Buffer:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
}

def Scl_ViewOp : Scl_Op<"view",
    [Pure, DeclareOpInterfaceMethods<ViewLikeOpInterface>]> {
  let summary = "the same bytes as another buffer, in another shape";
  let description = [{
    `result` aliases `source`: the same elements in the same row-major
    order, through another static shape of the same element count (a
    reshape that moves nothing). Writing through a view writes the source's
    bytes; the memory plan keeps them live as long as either is used.
    `sc-reshape-views` turns reshaping `Copy` kernels into views, and
    `sc-fuse` views the buffers of a kernel that runs over a common
    refinement of several shapes (its output is written through a view).
    A view's source is a buffer of the program's own: the caller may bind
    inputs and outputs elsewhere.

    ```mlir
    %g = scl.view %y : memref<1x32x16x16xf32> to memref<8x1024xf32>
    ```
  }];
  let arguments = (ins Scl_Buffer:$source);
  let results = (outs Scl_Buffer:$result);
  let assemblyFormat = [{
    $source attr-dict `:` type($source) `to` type($result)
  }];
  let hasVerifier = 1;
}

#endif // SHARDC_DIALECT_SCLOCAL_OPS_TD
