//===- ScOps.td - sc operations ----------------------------*- tablegen -*-===//
//
// Op semantics follow PyTorch. Every compute op infers its result type (the
// declared type is checked against the inferred one) or verifies it where the
// result shape is an input (reshape, broadcast_to, interpolate, cast).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECT_SC_OPS_TD
#define SHARDC_DIALECT_SC_OPS_TD

include "shardc/Dialect/Sc/ScBase.td"
include "shardc/Dialect/Sc/ScAttrs.td"
include "shardc/Dialect/Sc/ScInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Mesh and sharding ops
//===----------------------------------------------------------------------===//

def Sc_MeshOp : Sc_Op<"mesh", [Symbol]> {
  let summary = "Declares a named device mesh with named axes";
  let description = [{
    ```mlir
    sc.mesh @mesh ["x"=4]
    sc.mesh @grid ["data"=2, "domain"=4]
    ```
    Ranks are laid out row-major over the axes (the last axis varies fastest).
    Every axis has at least 1 device, and the mesh at most 65536 in all:
    shardc plans every rank's program ahead of time.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$axis_names,
                       DenseI64ArrayAttr:$shape);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Index of `axis` in this mesh, or -1.
    int64_t getAxisIndex(::llvm::StringRef axis);
    int64_t getNumDevices();
    /// The most devices a mesh may have.
    static constexpr int64_t kMaxMeshDevices = int64_t(1) << 16;
  }];
}

def Sc_ShardingConstraintOp : Sc_Op<"sharding_constraint", [Pure,
    SameOperandsAndResultType, DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<Sc_ShardingRuleOpInterface>]> {
  let summary = "Pins the sharding of a value in the middle of a graph";
  let description = [{
    Propagation treats the result's sharding as a user annotation; the op
    itself moves no data (the partitioner inserts a reshard if the operand
    arrives differently).
    ```mlir
    %1 = sc.sharding_constraint %0 : tensor<4x8xf32> to #sc.sharding<@mesh, [{}, {"x"} ]>
    ```
  }];
  let arguments = (ins Sc_AnyTensor:$input, Sc_ShardingAttr:$sharding);
  let results = (outs Sc_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result) `to` qualified($sharding)";
}

def Sc_ReshardOp : Sc_Op<"reshard", [Pure, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<Sc_ShardingRuleOpInterface>]> {
  let summary = "Explicitly changes the sharding of a value";
  let description = [{
    The result holds the same global value as the operand, laid out as
    `sharding`; partitioning turns it into all-gather-v, all-to-all-v,
    reduce-scatter-v, all-reduce or local slicing.
    ```mlir
    %2 = sc.reshard %1 : tensor<4x8xf32> to #sc.sharding<@mesh, [{"x"}, {} ]>
    ```
  }];
  let arguments = (ins Sc_AnyTensor:$input, Sc_ShardingAttr:$sharding);
  let results = (outs Sc_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result) `to` qualified($sharding)";
}

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

// A side-effect-free op on tensors that carries a sharding rule.
class Sc_ComputeOp<string mnemonic, list<Trait> traits = []>
    : Sc_Op<mnemonic, !listconcat([Pure,
        DeclareOpInterfaceMethods<Sc_ShardingRuleOpInterface>], traits)>;

// A compute op whose result type is inferred from operands and attributes.
class Sc_InferredOp<string mnemonic, list<Trait> traits = []>
    : Sc_ComputeOp<mnemonic, !listconcat(traits, [InferTypeOpAdaptor])> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

// An op whose output index along some dims reads a window of the input.
class Sc_WindowedOp<string mnemonic, list<Trait> traits = []>
    : Sc_InferredOp<mnemonic, !listconcat(traits,
        [DeclareOpInterfaceMethods<Sc_WindowOpInterface>])>;

class Sc_UnaryOp<string mnemonic, string torchName>
    : Sc_ComputeOp<mnemonic, [SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "Elementwise " # torchName;
  let description = "Elementwise `" # torchName # "`, as PyTorch defines it.";
  let arguments = (ins Sc_FloatTensor:$input);
  let results = (outs Sc_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

class Sc_BinaryOp<string mnemonic, string torchName>
    : Sc_InferredOp<mnemonic> {
  let summary = "Elementwise " # torchName # " with numpy broadcasting";
  let description = "Elementwise `" # torchName # "` with numpy/PyTorch "
      "broadcasting; both operands have the same element type.";
  let arguments = (ins Sc_FloatTensor:$lhs, Sc_FloatTensor:$rhs);
  let results = (outs Sc_FloatTensor:$result);
}

class Sc_ReductionOp<string mnemonic, string torchName>
    : Sc_InferredOp<mnemonic> {
  let summary = "torch." # torchName # " over dims";
  let description = [{
    Reduces over `dims` (all dims when absent; negative dims count from the
    end), keeping size-1 dims when `keepdim` is set.
  }];
  let arguments = (ins Sc_FloatTensor:$input, OptionalAttr<DenseI64ArrayAttr>:$dims,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs Sc_FloatTensor:$result);
}

class Sc_SoftmaxLikeOp<string mnemonic, string torchName>
    : Sc_InferredOp<mnemonic> {
  let summary = "torch." # torchName # " over one dim";
  let description = "Numerically stable `" # torchName # "` over `dim` "
      "(negative counts from the end). Over a sharded dim the partitioner "
      "computes global statistics.";
  let arguments = (ins Sc_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Sc_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Constants and elementwise ops
//===----------------------------------------------------------------------===//

def Sc_ConstantOp : Sc_ComputeOp<"constant", [ConstantLike, InferTypeOpAdaptor]> {
  let summary = "A constant tensor (dense or splat)";
  let description = [{
    ```mlir
    %c = sc.constant dense<1.0> : tensor<2x3xf32>
    ```
    Model weights are function arguments, not constants.
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Sc_AnyTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Sc_NegOp : Sc_UnaryOp<"neg", "neg">;
def Sc_AbsOp : Sc_UnaryOp<"abs", "abs">;
def Sc_ExpOp : Sc_UnaryOp<"exp", "exp">;
def Sc_LogOp : Sc_UnaryOp<"log", "log">;
def Sc_SqrtOp : Sc_UnaryOp<"sqrt", "sqrt">;
def Sc_RsqrtOp : Sc_UnaryOp<"rsqrt", "rsqrt">;
def Sc_TanhOp : Sc_UnaryOp<"tanh", "tanh">;
def Sc_SinOp : Sc_UnaryOp<"sin", "sin">;
def Sc_CosOp : Sc_UnaryOp<"cos", "cos">;
def Sc_ErfOp : Sc_UnaryOp<"erf", "erf">;
// Accurate where log(1 + x) and exp(x) - 1 round away what x adds.
def Sc_Log1pOp : Sc_UnaryOp<"log1p", "log1p">;
def Sc_Expm1Op : Sc_UnaryOp<"expm1", "expm1">;
// The rest of torch's math functions on floats, as the C library computes
// them (round: half to even, as torch.round).
def Sc_TanOp : Sc_UnaryOp<"tan", "tan">;
def Sc_AsinOp : Sc_UnaryOp<"asin", "asin">;
def Sc_AcosOp : Sc_UnaryOp<"acos", "acos">;
def Sc_AtanOp : Sc_UnaryOp<"atan", "atan">;
def Sc_SinhOp : Sc_UnaryOp<"sinh", "sinh">;
def Sc_CoshOp : Sc_UnaryOp<"cosh", "cosh">;
def Sc_AsinhOp : Sc_UnaryOp<"asinh", "asinh">;
def Sc_AcoshOp : Sc_UnaryOp<"acosh", "acosh">;
def Sc_AtanhOp : Sc_UnaryOp<"atanh", "atanh">;
def Sc_Log2Op : Sc_UnaryOp<"log2", "log2">;
def Sc_Log10Op : Sc_UnaryOp<"log10", "log10">;
def Sc_Exp2Op : Sc_UnaryOp<"exp2", "exp2">;
def Sc_ErfcOp : Sc_UnaryOp<"erfc", "erfc">;
def Sc_FloorOp : Sc_UnaryOp<"floor", "floor">;
def Sc_CeilOp : Sc_UnaryOp<"ceil", "ceil">;
def Sc_TruncOp : Sc_UnaryOp<"trunc", "trunc">;
def Sc_RoundOp : Sc_UnaryOp<"round", "round">;
def Sc_ReciprocalOp : Sc_UnaryOp<"reciprocal", "reciprocal">;
def Sc_SigmoidOp : Sc_UnaryOp<"sigmoid", "sigmoid">;
def Sc_ReluOp : Sc_UnaryOp<"relu", "relu">;
def Sc_SiluOp : Sc_UnaryOp<"silu", "silu">;
def Sc_GeluOp : Sc_UnaryOp<"gelu", "gelu"> {
  let description = [{
    `torch.nn.functional.gelu`: `approximate = "none"` uses erf, `"tanh"` the
    tanh approximation.
  }];
  let arguments = (ins Sc_FloatTensor:$input,
                       Sc_StrEnumAttr<["none", "tanh"], "none">:$approximate);
}

// Activations with parameters or PyTorch-specific formulas.
// sc-decompose-forms rewrites each into compare/select, maximum/minimum
// and arithmetic on rank-0 constants before sharding
// propagation, so they shard as elementwise ops and fuse into one kernel.
class Sc_ActivationOp<string mnemonic, string torchName>
    : Sc_ComputeOp<mnemonic, [SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "torch.nn.functional." # torchName;
  let results = (outs Sc_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Sc_LeakyReluOp : Sc_ActivationOp<"leaky_relu", "leaky_relu"> {
  let description = [{
    `x > 0 ? x : negative_slope * x`, as F.leaky_relu (NaN stays NaN).
    ```mlir
    %y = sc.leaky_relu %x {negative_slope = 0.2} : tensor<1x8x64x64xf32>
    ```
  }];
  let arguments = (ins Sc_FloatTensor:$input,
      DefaultValuedAttr<F64Attr, "0.01">:$negative_slope);
}

def Sc_EluOp : Sc_ActivationOp<"elu", "elu"> {
  let description = "`x > 0 ? x : alpha * (exp(x) - 1)`, as F.elu.";
  let arguments = (ins Sc_FloatTensor:$input,
      DefaultValuedAttr<F64Attr, "1.0">:$alpha);
}

def Sc_SoftplusOp : Sc_ActivationOp<"softplus", "softplus"> {
  let description = [{
    `beta * x > threshold ? x : log(1 + exp(beta * x)) / beta`, as
    F.softplus (the threshold keeps large inputs linear).
  }];
  let arguments = (ins Sc_FloatTensor:$input,
      DefaultValuedAttr<F64Attr, "1.0">:$beta,
      DefaultValuedAttr<F64Attr, "20.0">:$threshold);
}

def Sc_ClampOp : Sc_ActivationOp<"clamp", "clamp (torch.clamp)"> {
  let summary = "torch.clamp: min(max(x, min), max)";
  let description = [{
    At least one bound, as torch.clamp. NaN stays NaN; with `min` above
    `max` every element is `max`, as in PyTorch.
    ```mlir
    %y = sc.clamp %x {min = 0.0, max = 6.0} : tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Sc_FloatTensor:$input, OptionalAttr<F64Attr>:$min,
      OptionalAttr<F64Attr>:$max);
  let hasVerifier = 1;
}

def Sc_HardtanhOp : Sc_ActivationOp<"hardtanh", "hardtanh"> {
  let description = [{
    `min(max(x, min_val), max_val)`, as F.hardtanh (NaN stays NaN);
    F.relu6 is `min_val = 0.0, max_val = 6.0`.
  }];
  let arguments = (ins Sc_FloatTensor:$input,
      DefaultValuedAttr<F64Attr, "-1.0">:$min_val,
      DefaultValuedAttr<F64Attr, "1.0">:$max_val);
  let hasVerifier = 1;
}

def Sc_HardsigmoidOp : Sc_ActivationOp<"hardsigmoid", "hardsigmoid"> {
  let description = "`min(max(x + 3, 0), 6) / 6`, as F.hardsigmoid.";
  let arguments = (ins Sc_FloatTensor:$input);
}

def Sc_HardswishOp : Sc_ActivationOp<"hardswish", "hardswish"> {
  let description = "`x * min(max(x + 3, 0), 6) / 6`, as F.hardswish.";
  let arguments = (ins Sc_FloatTensor:$input);
}

def Sc_MishOp : Sc_ActivationOp<"mish", "mish"> {
  let description = "`x * tanh(log(1 + exp(x)))`, as F.mish.";
  let arguments = (ins Sc_FloatTensor:$input);
}

def Sc_SeluOp : Sc_ActivationOp<"selu", "selu"> {
  let description = [{
    `scale * (x > 0 ? x : alpha * (exp(x) - 1))` with PyTorch's constants
    (alpha 1.6732632423543772, scale 1.0507009873554805), as F.selu.
  }];
  let arguments = (ins Sc_FloatTensor:$input);
}

def Sc_CeluOp : Sc_ActivationOp<"celu", "celu"> {
  let description = [{
    `x > 0 ? x : alpha * (exp(x / alpha) - 1)`, as F.celu (`alpha` 1.0,
    not 0).
  }];
  let arguments = (ins Sc_FloatTensor:$input,
      DefaultValuedAttr<F64Attr, "1.0">:$alpha);
  let hasVerifier = 1;
}

def Sc_LogsigmoidOp : Sc_ActivationOp<"logsigmoid", "logsigmoid"> {
  let description = [{
    `log(sigmoid(x))` as PyTorch computes it without overflow:
    `min(x, 0) - log(1 + exp(-|x|))`.
  }];
  let arguments = (ins Sc_FloatTensor:$input);
}

def Sc_SoftsignOp : Sc_ActivationOp<"softsign", "softsign"> {
  let description = "`x / (1 + |x|)`, as F.softsign.";
  let arguments = (ins Sc_FloatTensor:$input);
}

def Sc_HardshrinkOp : Sc_ActivationOp<"hardshrink", "hardshrink"> {
  let description = "`-lambd <= x <= lambd ? 0 : x`, as F.hardshrink.";
  let arguments = (ins Sc_FloatTensor:$input,
      DefaultValuedAttr<F64Attr, "0.5">:$lambd);
}

def Sc_SoftshrinkOp : Sc_ActivationOp<"softshrink", "softshrink"> {
  let description = [{
    `x > lambd ? x - lambd : x < -lambd ? x + lambd : x * 0`, as
    F.softshrink (a small negative x gives -0; NaN stays NaN).
  }];
  let arguments = (ins Sc_FloatTensor:$input,
      DefaultValuedAttr<F64Attr, "0.5">:$lambd);
}

def Sc_TanhshrinkOp : Sc_ActivationOp<"tanhshrink", "tanhshrink"> {
  let description = "`x - tanh(x)`, as F.tanhshrink.";
  let arguments = (ins Sc_FloatTensor:$input);
}

def Sc_ThresholdOp : Sc_ActivationOp<"threshold", "threshold"> {
  let description = [{
    `x <= threshold ? value : x`, as F.threshold (NaN stays NaN).
    ```mlir
    %y = sc.threshold %x {threshold = 0.1, value = 20.0} : tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Sc_FloatTensor:$input, F64Attr:$threshold,
      F64Attr:$value);
}

def Sc_PreluOp : Sc_InferredOp<"prelu"> {
  let summary = "torch.nn.functional.prelu";
  let description = [{
    `x > 0 ? x : weight * x` with one learned slope per channel (dim 1; a
    tensor of fewer than 2 dims has one channel) or one for all, as F.prelu.
    ```mlir
    %y = sc.prelu %x, %a : (tensor<1x8x64x64xf32>, tensor<8xf32>) -> tensor<1x8x64x64xf32>
    ```
    `sc-decompose-forms` rewrites it into `sc.compare`, `sc.mul` (the
    weight viewed along dim 1) and `sc.select`.
  }];
  let arguments = (ins Sc_FloatTensor:$input, Sc_FloatTensor:$weight);
  let results = (outs Sc_FloatTensor:$result);
}

// torch's arithmetic with a Python scalar (or a zero-dim tensor) of another
// float type: the result takes the other operand's type; the scalar enters
// the f32 computation as ATen's CPU kernel reads it (see the description).
class Sc_ArithmeticOp<string mnemonic, string torchName>
    : Sc_BinaryOp<mnemonic, torchName> {
  let description = "Elementwise `" # torchName # "` with numpy/PyTorch "
      "broadcasting. The operands have the same element type, or one is "
      "rank 0 (a Python scalar, `x * 0.1`) and may be another float type: "
      "as in PyTorch, the result takes the other operand's type. The scalar "
      "enters the f32 computation as ATen's CPU kernels read it: the right "
      "operand of `sc.mul` and `sc.div` unrounded "
      "(`original_scalar_value<opmath_t>`: `x_bf16 * 0.1` is "
      "`bf16(float(x) * 0.1f)`), any other rounded to the result's type "
      "first (the iterator's common dtype: `x_bf16 + 0.3` adds 0.30078125); "
      "`sc-compute-in-f32` applies it.\n\n"
      "```mlir\n"
      "%y = sc." # mnemonic # " %x, %s : (tensor<4xbf16>, tensor<f32>) -> tensor<4xbf16>\n"
      "```";
}
def Sc_AddOp : Sc_ArithmeticOp<"add", "add">;
def Sc_SubOp : Sc_ArithmeticOp<"sub", "sub">;
def Sc_MulOp : Sc_ArithmeticOp<"mul", "mul">;
def Sc_DivOp : Sc_ArithmeticOp<"div", "div">;
def Sc_MaximumOp : Sc_BinaryOp<"maximum", "maximum">;
def Sc_MinimumOp : Sc_BinaryOp<"minimum", "minimum">;
def Sc_PowOp : Sc_BinaryOp<"pow", "pow">;
def Sc_Atan2Op : Sc_BinaryOp<"atan2", "atan2">;
def Sc_FmodOp : Sc_BinaryOp<"fmod", "fmod">;
def Sc_RemainderOp : Sc_BinaryOp<"remainder", "remainder">;
def Sc_HypotOp : Sc_BinaryOp<"hypot", "hypot">;
def Sc_CopysignOp : Sc_BinaryOp<"copysign", "copysign">;

// Forms `sc-decompose-forms` rewrites into the ops above.
def Sc_SquareOp : Sc_UnaryOp<"square", "square"> {
  let description = "`x * x`, as torch.square.";
}
def Sc_SignOp : Sc_UnaryOp<"sign", "sign"> {
  let description = [{
    1, -1 or 0 (for both zeros), as ATen's kernel `(0 < x) - (x < 0)`
    computes torch.sign: NaN gives 0 (PyTorch issue 41245).
  }];
}
def Sc_LogaddexpOp : Sc_BinaryOp<"logaddexp", "logaddexp"> {
  let description = [{
    `log(exp(a) + exp(b))` with numpy/PyTorch broadcasting, as ATen computes
    torch.logaddexp: `max(a, b) + log1p(exp(-|a - b|))`, and `a` where both
    are the same infinity.
  }];
}

def Sc_NanToNumOp : Sc_ActivationOp<"nan_to_num", "nan_to_num"> {
  let summary = "torch.nan_to_num";
  let description = [{
    NaN becomes `nan` (0.0), +inf `posinf` and -inf `neginf` (absent: the
    element type's largest and lowest finite values), as torch.nan_to_num.
    ```mlir
    %y = sc.nan_to_num %x {posinf = 1.0e4} : tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Sc_FloatTensor:$input,
      DefaultValuedAttr<F64Attr, "0.0">:$nan, OptionalAttr<F64Attr>:$posinf,
      OptionalAttr<F64Attr>:$neginf);
}

// torch.isnan, isinf, isfinite: an i1 tensor of the input's shape.
class Sc_FloatClassOp<string mnemonic> : Sc_InferredOp<mnemonic> {
  let summary = "torch." # mnemonic;
  let arguments = (ins Sc_FloatTensor:$input);
  let results = (outs Sc_BoolTensor:$result);
}
def Sc_IsnanOp : Sc_FloatClassOp<"isnan">;
def Sc_IsinfOp : Sc_FloatClassOp<"isinf">;
def Sc_IsfiniteOp : Sc_FloatClassOp<"isfinite">;

def Sc_CompareOp : Sc_InferredOp<"compare"> {
  let summary = "Elementwise comparison with broadcasting, giving i1";
  let description = "`predicate` is one of eq, ne, lt, le, gt, ge.";
  let arguments = (ins Sc_FloatTensor:$lhs, Sc_FloatTensor:$rhs,
      ConfinedAttr<StrAttr, [Sc_StrOneOf<["eq", "ne", "lt", "le", "gt", "ge"]>]>:$predicate);
  let results = (outs Sc_BoolTensor:$result);
}

def Sc_SelectOp : Sc_InferredOp<"select"> {
  let summary = "torch.where(cond, a, b) with three-way broadcasting";
  let arguments = (ins Sc_BoolTensor:$condition, Sc_AnyTensor:$true_value,
                       Sc_AnyTensor:$false_value);
  let results = (outs Sc_AnyTensor:$result);
}

def Sc_CastOp : Sc_ComputeOp<"cast"> {
  let summary = "Converts the element type, keeping the shape";
  let description = [{
    ```mlir
    %h = sc.cast %x : tensor<4xf32> to tensor<4xf16>
    ```
    A cast to the type it already has folds to its input (a model's
    `x.float()` on an f32 tensor would otherwise copy it), unless its result
    carries a pinned `sc.sharding`.
  }];
  let arguments = (ins Sc_NumericTensor:$input);
  let results = (outs Sc_NumericTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def Sc_MatmulOp : Sc_InferredOp<"matmul"> {
  let summary = "torch.matmul";
  let description = [{
    1-D operands are promoted as in torch.matmul (a vector on the left is a
    row, on the right a column, and the promoted dim is dropped); batch dims
    broadcast.
  }];
  let arguments = (ins Sc_FloatTensor:$lhs, Sc_FloatTensor:$rhs);
  let results = (outs Sc_FloatTensor:$result);
}

def Sc_LinearOp : Sc_InferredOp<"linear"> {
  let summary = "torch.nn.functional.linear: x @ weight^T + bias";
  let description = [{
    x (..., in), weight (out, in) -> (..., out). As F.linear, the weight may
    also be 1-D, (in), which contracts the last dim away: x (..., in) ->
    (...). The optional bias broadcasts to the result's shape (it may not
    grow it): (out), (1), a scalar, or any shape that broadcasts. That is
    F.linear's definition, `matmul(x, weight^T) + bias`, and its
    matmul-then-`add_` path; eager PyTorch's addmm paths (2-D or contiguous
    inputs) take fewer forms, e.g. no 1-D weight with a bias.
    ```mlir
    %y = sc.linear %x, %w, %b
        : (tensor<8x16xf32>, tensor<4x16xf32>, tensor<4xf32>) -> tensor<8x4xf32>
    %s = sc.linear %x, %v, %c
        : (tensor<8x16xf32>, tensor<16xf32>, tensor<f32>) -> tensor<8xf32>
    ```
    The partitioner and the runtime take the core form, a 2-D weight and a
    bias of shape (out) or none; `sc-decompose-forms` rewrites the others
    into it with `sc.reshape` and `sc.add` before sharding propagation.
  }];
  let arguments = (ins Sc_FloatTensor:$input, Sc_FloatTensor:$weight,
                       Optional<Sc_FloatTensor>:$bias);
  let results = (outs Sc_FloatTensor:$result);
  let extraClassDeclaration = [{
    /// A 2-D weight and a bias of shape (out) or none: the form the
    /// partitioner and the runtime's Linear instruction take.
    bool isCoreForm();
  }];
}

//===----------------------------------------------------------------------===//
// Windowed ops
//===----------------------------------------------------------------------===//

def Sc_ConvOp : Sc_WindowedOp<"conv"> {
  let summary = "1/2/3-D convolution (torch.nn.functional.conv1d/2d/3d)";
  let description = [{
    x (N, Cin, spatial...), weight (Cout, Cin/groups, kernel...), bias (Cout).
    `padding` holds one value per spatial dim (symmetric) or two,
    `[lo0, hi0, lo1, hi1, ...]` (asymmetric). `padding_mode` other than
    "zeros" pads by reflection, replication or wrap-around like nn.Conv2d.
    ```mlir
    %y = sc.conv %x, %w, %b {padding = array<i64: 1, 1>, stride = array<i64: 2, 2>}
        : (tensor<1x8x64x64xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32>
    ```
  }];
  let arguments = (ins Sc_FloatTensor:$input, Sc_FloatTensor:$weight,
      Optional<Sc_FloatTensor>:$bias,
      OptionalAttr<DenseI64ArrayAttr>:$stride,
      OptionalAttr<DenseI64ArrayAttr>:$padding,
      OptionalAttr<DenseI64ArrayAttr>:$dilation,
      DefaultValuedAttr<I64Attr, "1">:$groups,
      Sc_StrEnumAttr<["zeros", "reflect", "replicate", "circular"], "zeros">:$padding_mode);
  let results = (outs Sc_FloatTensor:$result);
}

def Sc_ConvTransposeOp : Sc_WindowedOp<"conv_transpose"> {
  let summary = "1/2/3-D transposed convolution (conv_transpose1d/2d/3d)";
  let description = [{
    x (N, Cin, spatial...), weight (Cin, Cout/groups, kernel...), bias (Cout).
    out = (in - 1) * stride - pad_lo - pad_hi + dilation * (kernel - 1)
          + output_padding + 1.
  }];
  let arguments = (ins Sc_FloatTensor:$input, Sc_FloatTensor:$weight,
      Optional<Sc_FloatTensor>:$bias,
      OptionalAttr<DenseI64ArrayAttr>:$stride,
      OptionalAttr<DenseI64ArrayAttr>:$padding,
      OptionalAttr<DenseI64ArrayAttr>:$output_padding,
      OptionalAttr<DenseI64ArrayAttr>:$dilation,
      DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Sc_FloatTensor:$result);
}

def Sc_MaxPoolOp : Sc_WindowedOp<"max_pool"> {
  let summary = "1/2/3-D max pooling (max_pool1d/2d/3d)";
  let description = [{
    `stride` defaults to `kernel_size`; padding (at most half of
    `kernel_size`, dilation aside, as PyTorch requires) contributes -inf.
  }];
  let arguments = (ins Sc_FloatTensor:$input, DenseI64ArrayAttr:$kernel_size,
      OptionalAttr<DenseI64ArrayAttr>:$stride,
      OptionalAttr<DenseI64ArrayAttr>:$padding,
      OptionalAttr<DenseI64ArrayAttr>:$dilation,
      DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs Sc_FloatTensor:$result);
}

def Sc_AvgPoolOp : Sc_WindowedOp<"avg_pool"> {
  let summary = "1/2/3-D average pooling (avg_pool1d/2d/3d)";
  let description = [{
    `count_include_pad` counts zero padding in the divisor;
    `divisor_override` replaces the divisor.
  }];
  let arguments = (ins Sc_FloatTensor:$input, DenseI64ArrayAttr:$kernel_size,
      OptionalAttr<DenseI64ArrayAttr>:$stride,
      OptionalAttr<DenseI64ArrayAttr>:$padding,
      DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
      DefaultValuedAttr<BoolAttr, "true">:$count_include_pad,
      OptionalAttr<I64Attr>:$divisor_override);
  let results = (outs Sc_FloatTensor:$result);
}

class Sc_AdaptivePoolOp<string mnemonic, string torchName>
    : Sc_InferredOp<mnemonic> {
  let summary = "torch.nn.functional." # torchName # "1d/2d/3d";
  let arguments = (ins Sc_FloatTensor:$input,
      DenseI64ArrayAttr:$output_size);
  let results = (outs Sc_FloatTensor:$result);
}

def Sc_AdaptiveAvgPoolOp : Sc_AdaptivePoolOp<"adaptive_avg_pool",
                                              "adaptive_avg_pool"> {
  let description = [{
    Averages (N, C, spatial...) over windows that tile each spatial dim into
    `output_size` parts, as F.adaptive_avg_pool1d/2d/3d: output i of a dim
    of n covers [floor(i n / out), ceil((i + 1) n / out)).
    ```mlir
    %p = sc.adaptive_avg_pool %x {output_size = array<i64: 1, 1>} : (tensor<2x8x7x9xf32>) -> tensor<2x8x1x1xf32>
    ```
    `sc-decompose-forms` rewrites a dim that `out` divides into an
    `sc.avg_pool` (kernel and stride n / out) and any other into slices,
    means and a concat.
  }];
}

def Sc_AdaptiveMaxPoolOp : Sc_AdaptivePoolOp<"adaptive_max_pool",
                                              "adaptive_max_pool"> {
  let description = [{
    The maximum over the windows `sc.adaptive_avg_pool` averages, as
    F.adaptive_max_pool1d/2d/3d (without indices), rewritten the same way
    into `sc.max_pool` or slices, `sc.amax` and a concat.
    ```mlir
    %p = sc.adaptive_max_pool %x {output_size = array<i64: 3, 4>} : (tensor<2x8x7x9xf32>) -> tensor<2x8x3x4xf32>
    ```
  }];
}

def Sc_InterpolateOp : Sc_ComputeOp<"interpolate",
    [DeclareOpInterfaceMethods<Sc_WindowOpInterface>]> {
  let summary = "torch.nn.functional.interpolate over the spatial dims";
  let description = [{
    `mode` "nearest" (PyTorch's legacy nearest), "nearest-exact" or "linear"
    (linear/bilinear/trilinear by spatial rank). The output size is the result
    type's; when `scale_factors` are given they must produce it
    (floor(in * scale)) and, as in PyTorch, the index mapping uses 1/scale.
  }];
  let arguments = (ins Sc_FloatTensor:$input,
      Sc_StrEnumAttr<["nearest", "nearest-exact", "linear"], "nearest">:$mode,
      OptionalAttr<DenseF64ArrayAttr>:$scale_factors,
      DefaultValuedAttr<BoolAttr, "false">:$align_corners);
  let results = (outs Sc_FloatTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Sc_PadOp : Sc_WindowedOp<"pad"> {
  let summary = "torch.nn.functional.pad";
  let description = [{
    `pad` lists (low, high) pairs starting from the LAST dim, as F.pad does.
    Negative amounts crop. As F.pad, reflect and replicate may crop one side
    and pad the other, mirroring the input's edge (a reflection may reach
    into the cropped part). Circular mode, as F.pad, crops first and wraps
    the cropped tensor, so each amount may be at most the size left after
    cropping (F.pad itself reads unset memory past that). The partitioner
    takes circular pads without crops only: `sc-decompose-forms` rewrites
    one with crops into a constant-mode crop and a circular pad:
    ```mlir
    %y = sc.pad %x {pad = array<i64: -1, 2>, mode = "circular"}
        : (tensor<6xf32>) -> tensor<7xf32>
    // becomes
    %c = sc.pad %x {pad = array<i64: -1, 0>} : (tensor<6xf32>) -> tensor<5xf32>
    %y = sc.pad %c {pad = array<i64: 0, 2>, mode = "circular"}
        : (tensor<5xf32>) -> tensor<7xf32>
    ```

    In constant mode, as in PyTorch, an empty dim may be padded (the output
    is all `value`) and a crop may leave nothing (an empty output):
    ```mlir
    %y = sc.pad %x {pad = array<i64: 0, 0, 1, 2>, value = 1.5}
        : (tensor<2x0x4xf32>) -> tensor<2x3x4xf32>
    ```
    Such a pad reads no element: each rank fills its part of the result.
    A dim the pad leaves alone splits as the input's, so nothing moves.
  }];
  let arguments = (ins Sc_FloatTensor:$input, DenseI64ArrayAttr:$pad,
      Sc_StrEnumAttr<["constant", "reflect", "replicate", "circular"], "constant">:$mode,
      DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Sc_FloatTensor:$result);
  let extraClassDeclaration = [{
    /// A constant-mode pad whose input or result has no element: every
    /// element of the result is `value` (or there is none).
    bool readsNothing();
    /// Not a circular pad with crops, which the window algebra (indices of
    /// the input) cannot express: F.pad wraps the cropped tensor.
    bool isCoreForm();
  }];
}

def Sc_NeighborhoodAttentionOp : Sc_WindowedOp<"neighborhood_attention"> {
  let summary = "1/2/3-D neighbourhood attention (NATTEN semantics)";
  let description = [{
    Heads-last layout as NATTEN: q, k, v are (B, spatial..., heads, D). Each
    query attends to the kernel_size window of keys around it (shifted inward
    at the borders), with optional dilation. `scale` defaults to 1/sqrt(D)
    (any finite value).
  }];
  let arguments = (ins Sc_FloatTensor:$query, Sc_FloatTensor:$key,
      Sc_FloatTensor:$value, DenseI64ArrayAttr:$kernel_size,
      OptionalAttr<DenseI64ArrayAttr>:$dilation, OptionalAttr<F64Attr>:$scale);
  let results = (outs Sc_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Reductions, normalisation, softmax
//===----------------------------------------------------------------------===//

def Sc_SumOp : Sc_ReductionOp<"sum", "sum">;
def Sc_MeanOp : Sc_ReductionOp<"mean", "mean">;
def Sc_AmaxOp : Sc_ReductionOp<"amax", "amax">;
def Sc_AminOp : Sc_ReductionOp<"amin", "amin">;
// torch.argmax / torch.argmin: int64 indices of the extreme along one dim.
class Sc_ArgExtremeOp<string mnemonic, string torchName, string extreme,
                      string reduction>
    : Sc_InferredOp<mnemonic> {
  let summary = "torch." # torchName # ": index of the " # extreme # " along a dim";
  let description = "The index (int64) along `dim` (negative counts from the "
      "end) of the " # extreme # " element, as `torch." # torchName # "`; "
      "without `dim`, the index into the flattened input. As in PyTorch, "
      "ties give the first index, NaN counts as the " # extreme # " (the "
      "first NaN's index is returned), `keepdim` keeps the reduced dim (every "
      "dim without `dim`) as size 1, and a reduced dim of size 0 is an error."
      "\n\n```mlir\n"
      "%i = sc." # mnemonic # " %x {dim = 1 : i64} : (tensor<2x5xf32>) -> tensor<2xi64>\n"
      "```\n\n"
      "`sc-decompose-forms` rewrites it into the " # extreme # " (`sc." #
      reduction # "`), compares, selects of candidate indices (constants "
      "along the dim, or past 2^16 a cumsum of ones) "
      "and an `sc.amin` of those, cast to i64: over a split dim it costs the "
      "two all-reduces those reductions have. The candidates (up to twice the "
      "extent) are exact in f32, so more than 2^23 reduced elements are refused.";
  let arguments = (ins Sc_FloatTensor:$input, OptionalAttr<I64Attr>:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs Sc_IndexTensor:$result);
  let extraClassDeclaration = [{
    /// `dim` as written (getDim() reads an I64Attr back unsigned).
    std::optional<int64_t> getSignedDim() {
      if (mlir::IntegerAttr dim = getDimAttr())
        return dim.getInt();
      return std::nullopt;
    }
  }];
}
def Sc_ArgmaxOp : Sc_ArgExtremeOp<"argmax", "argmax", "maximum", "amax">;
def Sc_ArgminOp : Sc_ArgExtremeOp<"argmin", "argmin", "minimum", "amin">;

// torch.max(x, dim) / torch.min(x, dim): the (values, indices) pair.
class Sc_ExtremeAlongOp<string mnemonic, string torchName, string extreme,
                        string reduction, string arg>
    : Sc_InferredOp<mnemonic> {
  let summary = "torch." # torchName # "(x, dim): the " # extreme #
      " along a dim and its index";
  let description = "`(values, indices)` of `torch." # torchName # "(x, dim, "
      "keepdim)`: the " # extreme # " along `dim` (negative counts from the "
      "end; NaN propagates) and the index (int64) of its first occurrence "
      "(the first NaN's where there is one), each with the reduced dim "
      "dropped, or kept as size 1 with `keepdim`.\n\n"
      "```mlir\n"
      "%v, %i = sc." # mnemonic # " %x {dim = 1 : i64} : (tensor<2x5xf32>) -> (tensor<2xf32>, tensor<2xi64>)\n"
      "```\n\n"
      "`sc-decompose-forms` rewrites it into `sc." # reduction # "` and `sc." #
      arg # "` (which it decomposes in turn), whose extremes CSE merges.";
  let arguments = (ins Sc_FloatTensor:$input, I64Attr:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs Sc_FloatTensor:$values, Sc_IndexTensor:$indices);
  let extraClassDeclaration = [{
    /// `dim` as written (getDim() reads an I64Attr back unsigned).
    int64_t getSignedDim() { return getDimAttr().getInt(); }
  }];
}
def Sc_MaxOp : Sc_ExtremeAlongOp<"max", "max", "maximum", "amax", "argmax">;
def Sc_MinOp : Sc_ExtremeAlongOp<"min", "min", "minimum", "amin", "argmin">;

def Sc_ProdOp : Sc_ReductionOp<"prod", "prod"> {
  let description = [{
    The product over `dims` (all dims when absent; negative dims count from
    the end), keeping size-1 dims when `keepdim` is set; 1 over no elements.
    `sc-decompose-forms` moves the reduced dims last, merges them and
    rewrites it into one `sc.cumprod` whose last element it keeps, so the
    whole product runs in double (ATen's
    CPU and CUDA kernels multiply in float: a product that leaves float's
    range part way and comes back is inf or 0 there, finite here) and a
    split dim costs one all-gather of each shard's total.
  }];
}
// torch.var/std; sc-decompose-forms rewrites them into a mean, the squared
// deviations' sum and a division before sharding propagation, so over split
// dims they cost the two all-reduces the core reductions already have.
class Sc_VarianceOp<string mnemonic, string torchName>
    : Sc_ReductionOp<mnemonic, torchName> {
  let arguments = (ins Sc_FloatTensor:$input, OptionalAttr<DenseI64ArrayAttr>:$dims,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim,
                       DefaultValuedAttr<F64Attr, "1.0">:$correction);
  let hasVerifier = 1;
}

def Sc_VarOp : Sc_VarianceOp<"var", "var"> {
  let description = [{
    torch.var over `dims` (all dims when absent or empty; negative dims count
    from the end): the sum of squared deviations from the mean divided by
    `max(0, N - correction)`, N the number of elements reduced. As in
    PyTorch, `correction = 1` (the default) is Bessel's correction, 0 the
    population variance, and no degrees of freedom left give inf (NaN where
    the deviations are all 0).
    ```mlir
    %v = sc.var %x {dims = array<i64: 2, 3>, keepdim = true, correction = 0.0}
        : (tensor<1x4x64x64xf32>) -> tensor<1x4x1x1xf32>
    ```
  }];
}

def Sc_StdOp : Sc_VarianceOp<"std", "std"> {
  let description = [{
    torch.std: the square root of `sc.var` with the same `dims`, `keepdim`
    and `correction`.
  }];
}

def Sc_LogsumexpOp : Sc_ReductionOp<"logsumexp", "logsumexp"> {
  let description = [{
    torch.logsumexp over `dims` (all dims when absent or empty): the log of
    the sum of exponentials, shifted by the maximum so it neither overflows
    nor underflows; all -inf gives -inf, a +inf gives +inf, no elements
    give -inf, as in PyTorch.
    ```mlir
    %l = sc.logsumexp %x {dims = array<i64: -1>} : (tensor<2x8x16xf32>) -> tensor<2x8xf32>
    ```
    `sc-decompose-forms` rewrites it into `sc.amax`, `sc.exp`, `sc.sum` and
    `sc.log`, so over split dims it costs a max and a sum all-reduce.
  }];
}

def Sc_VectorNormOp : Sc_InferredOp<"vector_norm"> {
  let summary = "torch.linalg.vector_norm over dims";
  let description = [{
    The `ord`-norm over `dims` (all dims when absent or empty), as
    torch.linalg.vector_norm: `ord` 2 (the default) is sqrt(sum(x^2)), 1
    sum(|x|), inf max(|x|), -inf min(|x|), 0 the count of non-zeros, and
    any other value (sum(|x|^ord))^(1/ord).
    ```mlir
    %n = sc.vector_norm %x {dims = array<i64: 1>, keepdim = true} : (tensor<2x8x16xf32>) -> tensor<2x1x16xf32>
    ```
    `sc-decompose-forms` rewrites it into elementwise ops and a reduction.
  }];
  let arguments = (ins Sc_FloatTensor:$input,
      DefaultValuedAttr<F64Attr, "2.0">:$ord,
      OptionalAttr<DenseI64ArrayAttr>:$dims,
      DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs Sc_FloatTensor:$result);
}

def Sc_NormalizeOp : Sc_ComputeOp<"normalize",
    [SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "torch.nn.functional.normalize";
  let description = [{
    `x / max(vector_norm(x, p, dim, keepdim = true), eps)`, as F.normalize:
    unit vectors along `dim` (default 1) in the `p`-norm (default 2), for
    cosine attention and similarity.
    ```mlir
    %u = sc.normalize %x {dim = -1, eps = 1.0e-6} : tensor<2x8x16xf32>
    ```
    `sc-decompose-forms` rewrites it into `sc.vector_norm`'s ops, a
    `sc.maximum` and a `sc.div`.
  }];
  let arguments = (ins Sc_FloatTensor:$input,
      DefaultValuedAttr<F64Attr, "2.0">:$p,
      DefaultValuedAttr<I64Attr, "1">:$dim,
      DefaultValuedAttr<F64Attr, "1.0e-12">:$eps);
  let results = (outs Sc_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Sc_GluOp : Sc_InferredOp<"glu"> {
  let summary = "torch.nn.functional.glu";
  let description = [{
    Splits `dim` (default -1, even-sized) into halves a and b and gives
    `a * sigmoid(b)`, as F.glu.
    ```mlir
    %g = sc.glu %x {dim = 1} : (tensor<2x16x8xf32>) -> tensor<2x8x8xf32>
    ```
    `sc-decompose-forms` rewrites it into two `sc.slice`s, `sc.sigmoid`
    and `sc.mul`.
  }];
  let arguments = (ins Sc_FloatTensor:$input,
      DefaultValuedAttr<I64Attr, "-1">:$dim);
  let results = (outs Sc_FloatTensor:$result);
}

def Sc_SoftmaxOp : Sc_SoftmaxLikeOp<"softmax", "softmax">;
def Sc_LogSoftmaxOp : Sc_SoftmaxLikeOp<"log_softmax", "log_softmax">;
// F.softmin: softmax of -x (`sc-decompose-forms` rewrites it so).
def Sc_SoftminOp : Sc_SoftmaxLikeOp<"softmin", "softmin">;

// torch's cumulative ops. PyTorch's cummax/cummin also return indices;
// these give the values (integer tensors are not in the dialect).
class Sc_CumulativeOp<string mnemonic, string torchName, string fold>
    : Sc_InferredOp<mnemonic> {
  let summary = "torch." # torchName # " along one dim";
  let description = "Element i along `dim` (negative counts from the end; "
      "a scalar takes 0 or -1 and is returned as is) is " # fold # " of the "
      "elements up to and including i, as `torch." # torchName # "` "
      "computes it (running values in double, as ATen's CPU kernels keep "
      "them). Over a dim split across ranks one all-gather brings every "
      "shard's total (a double, packed into four floats) to every rank, and "
      "each rank scans its own shard starting from the fold of the totals "
      "of the shards before it, as one device's running value would be."
      "\n\n```mlir\n%y = sc." # mnemonic # " %x {dim = 1 : i64} : "
      "(tensor<2x8xf32>) -> tensor<2x8xf32>\n```";
  let arguments = (ins Sc_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Sc_FloatTensor:$result);
}

def Sc_CumsumOp : Sc_CumulativeOp<"cumsum", "cumsum", "the sum">;
def Sc_CumprodOp : Sc_CumulativeOp<"cumprod", "cumprod", "the product">;
def Sc_CummaxOp : Sc_CumulativeOp<"cummax", "cummax(...).values",
    "the maximum (NaN once a NaN is met)">;
def Sc_CumminOp : Sc_CumulativeOp<"cummin", "cummin(...).values",
    "the minimum (NaN once a NaN is met)">;
def Sc_LogcumsumexpOp : Sc_CumulativeOp<"logcumsumexp", "logcumsumexp",
    "log(sum(exp(.))) (-inf while every element so far is -inf)">;

def Sc_LayerNormOp : Sc_InferredOp<"layer_norm"> {
  let summary = "torch.nn.functional.layer_norm";
  let description = [{
    Normalises over the trailing dims given by `normalized_shape`; optional
    elementwise affine `weight` and `bias` of that shape.
  }];
  let arguments = (ins Sc_FloatTensor:$input, Variadic<Sc_FloatTensor>:$affine,
      DenseI64ArrayAttr:$normalized_shape,
      DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs Sc_FloatTensor:$result);
}

def Sc_RmsNormOp : Sc_InferredOp<"rms_norm"> {
  let summary = "torch.nn.functional.rms_norm";
  let description = [{
    `x * rsqrt(mean(x^2 over the trailing normalized_shape dims) + eps)`,
    times `weight` (of shape `normalized_shape`) when given, as F.rms_norm;
    without `eps`, float's machine epsilon (2^-23; double's for f64), as
    ATen computes it (f16 and bf16 in float).
    ```mlir
    %y = sc.rms_norm %x, %w {normalized_shape = array<i64: 16>}
        : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
    ```
    `sc-decompose-forms` rewrites it into `sc.mul`, `sc.mean` (kept for
    broadcasting), `sc.add` and `sc.rsqrt`, so over split normalized dims
    it costs one all-reduce.
  }];
  let arguments = (ins Sc_FloatTensor:$input, Optional<Sc_FloatTensor>:$weight,
      DenseI64ArrayAttr:$normalized_shape, OptionalAttr<F64Attr>:$eps);
  let results = (outs Sc_FloatTensor:$result);
}

def Sc_GroupNormOp : Sc_InferredOp<"group_norm"> {
  let summary = "torch.nn.functional.group_norm";
  let description = "x (N, C, ...); optional affine weight and bias of shape (C).";
  let arguments = (ins Sc_FloatTensor:$input, Variadic<Sc_FloatTensor>:$affine,
      I64Attr:$num_groups, DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs Sc_FloatTensor:$result);
}

def Sc_InstanceNormOp : Sc_InferredOp<"instance_norm"> {
  let summary = "torch.nn.functional.instance_norm with the input's statistics";
  let description = [{
    x (N, C, ...) normalised per sample and channel over the spatial dims,
    with optional affine weight and bias of shape (C): InstanceNorm1d/2d/3d
    as they run without running statistics (use_input_stats). As in
    PyTorch, there must be more than one spatial element. (With running
    statistics, an instance norm is `sc.batch_norm`.)
    ```mlir
    %y = sc.instance_norm %x, %w, %b {eps = 1.0e-5}
        : (tensor<1x8x64x64xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x64x64xf32>
    ```
    `sc-decompose-forms` rewrites it into `sc.group_norm` with one group per
    channel before sharding propagation: split over space it merges moments
    across ranks, split over channels it needs no communication.
  }];
  let arguments = (ins Sc_FloatTensor:$input, Variadic<Sc_FloatTensor>:$affine,
      DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs Sc_FloatTensor:$result);
}

def Sc_BatchNormOp : Sc_InferredOp<"batch_norm"> {
  let summary = "torch.nn.functional.batch_norm with inference statistics";
  let description = "x (N, C, ...), running_mean/var (C), optional weight and bias (C).";
  let arguments = (ins Sc_FloatTensor:$input, Sc_FloatTensor:$running_mean,
      Sc_FloatTensor:$running_var, Variadic<Sc_FloatTensor>:$affine,
      DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs Sc_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Sc_ConcatOp : Sc_InferredOp<"concat"> {
  let summary = "torch.cat along dim";
  let arguments = (ins Variadic<Sc_AnyTensor>:$inputs, I64Attr:$dim);
  let results = (outs Sc_AnyTensor:$result);
}

def Sc_SliceOp : Sc_InferredOp<"slice"> {
  let summary = "Static strided slice x[start:end:step] on every dim";
  let arguments = (ins Sc_AnyTensor:$input, DenseI64ArrayAttr:$start,
      DenseI64ArrayAttr:$end, OptionalAttr<DenseI64ArrayAttr>:$step);
  let results = (outs Sc_AnyTensor:$result);
}

def Sc_RollOp : Sc_ComputeOp<"roll",
    [SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "torch.roll: circular shifts along dims";
  let description = [{
    Element `i` along dim `dims[k]` moves to `(i + shifts[k]) mod n`; shifts
    may be negative or exceed the dim, and a dim listed twice shifts by the
    sum. Without `dims` the tensor is rolled as if flattened, by one shift,
    and viewed back in its shape, as torch.roll.
    ```mlir
    %y = sc.roll %x {shifts = array<i64: 1, -3>, dims = array<i64: 2, 3>}
        : tensor<1x4x64x64xf32>
    ```
    `sc-decompose-forms` rewrites it into a circular `sc.pad` that wraps the
    shifted-in rows around and a constant-mode `sc.pad` that crops as many
    off the other side (by the shorter way round). Both are windows, so over
    a split dim a shift shorter than the shards (the periodic case) moves
    only the `shift` rows each rank passes to its neighbour.
  }];
  let arguments = (ins Sc_FloatTensor:$input, DenseI64ArrayAttr:$shifts,
      OptionalAttr<DenseI64ArrayAttr>:$dims);
  let results = (outs Sc_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Sc_FlipOp : Sc_ComputeOp<"flip",
    [SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "torch.flip: reverses the order along dims";
  let description = [{
    Element `i` along each listed dim moves to `n - 1 - i`. Each dim may be
    listed once; negative dims count from the end. torch.fliplr is dim 1,
    torch.flipud dim 0.
    ```mlir
    %y = sc.flip %x {dims = array<i64: 2>} : tensor<1x4x64x64xf32>
    ```
    `sc-decompose-forms` rewrites it into a reflect-mode `sc.pad` that
    mirrors `n - 1` elements in front and crops as many behind, a window
    whose halos bring each rank the mirror image of its part.
  }];
  let arguments = (ins Sc_FloatTensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Sc_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

class Sc_PixelShuffleLikeOp<string mnemonic, string torchName>
    : Sc_InferredOp<mnemonic> {
  let summary = "torch.nn.functional." # torchName;
  let arguments = (ins Sc_FloatTensor:$input, I64Attr:$factor);
  let results = (outs Sc_FloatTensor:$result);
}

def Sc_PixelShuffleOp : Sc_PixelShuffleLikeOp<"pixel_shuffle", "pixel_shuffle"> {
  let description = [{
    (*, C * r * r, H, W) -> (*, C, H * r, W * r) with `factor` r, as
    F.pixel_shuffle: `out[c][h * r + i][w * r + j] = in[c * r * r + i * r + j][h][w]`.
    ```mlir
    %y = sc.pixel_shuffle %x {factor = 2} : (tensor<1x8x6x5xf32>) -> tensor<1x2x12x10xf32>
    ```
    `sc-decompose-forms` rewrites it into `sc.reshape`, `sc.permute` and
    `sc.reshape`; the reshapes keep a split of H (H * r) on whole rows, so
    a split image shuffles without moving data.
  }];
}

def Sc_PixelUnshuffleOp : Sc_PixelShuffleLikeOp<"pixel_unshuffle", "pixel_unshuffle"> {
  let description = [{
    (*, C, H * r, W * r) -> (*, C * r * r, H, W), the inverse of
    `sc.pixel_shuffle`, as F.pixel_unshuffle. Rewritten by
    `sc-decompose-forms` the same way; a split of H * r on multiples of r
    moves no data.
  }];
}

def Sc_ReshapeOp : Sc_ComputeOp<"reshape"> {
  let summary = "torch.reshape to the result type's shape";
  let arguments = (ins Sc_AnyTensor:$input);
  let results = (outs Sc_AnyTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Sc_PermuteOp : Sc_InferredOp<"permute"> {
  let summary = "torch.permute";
  let arguments = (ins Sc_AnyTensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Sc_AnyTensor:$result);
}

def Sc_TransposeOp : Sc_InferredOp<"transpose"> {
  let summary = "torch.transpose: swaps two dims";
  let arguments = (ins Sc_AnyTensor:$input, I64Attr:$dim0, I64Attr:$dim1);
  let results = (outs Sc_AnyTensor:$result);
}

def Sc_BroadcastToOp : Sc_ComputeOp<"broadcast_to"> {
  let summary = "torch.broadcast_to the result type's shape (numpy rules)";
  let arguments = (ins Sc_AnyTensor:$input);
  let results = (outs Sc_AnyTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Sc_UnsqueezeOp : Sc_InferredOp<"unsqueeze"> {
  let summary = "torch.unsqueeze";
  let arguments = (ins Sc_AnyTensor:$input, I64Attr:$dim);
  let results = (outs Sc_AnyTensor:$result);
}

def Sc_SqueezeOp : Sc_InferredOp<"squeeze"> {
  let summary = "torch.squeeze";
  let description = [{
    Removes the listed size-1 dims (all size-1 dims when `dims` is absent);
    a listed dim whose size is not 1 is kept, as in PyTorch.
  }];
  let arguments = (ins Sc_AnyTensor:$input, OptionalAttr<DenseI64ArrayAttr>:$dims);
  let results = (outs Sc_AnyTensor:$result);
}

def Sc_EinsumOp : Sc_InferredOp<"einsum"> {
  let summary = "torch.einsum";
  let description = [{
    Sums products of the operands' elements over the labels `equation`
    names, as torch.einsum: `"bixy,ioxy->boxy"` mixes channels per mode,
    `"bhqd,bhkd->bhqk"` is attention's scores, `"ij->ji"` a transpose,
    `"ii"` is not taken (diagonals). Labels are letters; `...` stands for
    the dims no label names, broadcast from the right as in PyTorch; without
    `->` the result has the `...` dims, then the labels used once, in
    alphabetical order. Dims sharing a label must agree in size or be 1
    (broadcast).
    ```mlir
    %y = sc.einsum %x, %w {equation = "bixy,ioxy->boxy"}
        : (tensor<2x4x8x8xf32>, tensor<4x6x8x8xf32>) -> tensor<2x6x8x8xf32>
    ```
    `sc-decompose-forms` rewrites it into `sc.sum` (labels only one operand
    has), `sc.permute`, `sc.reshape` and `sc.matmul` (batch labels first,
    contracted labels last), two operands at a time from the left, so it
    shards as those do: a split contracted label gives a partial sum.
  }];
  let arguments = (ins Variadic<Sc_FloatTensor>:$inputs, StrAttr:$equation);
  let results = (outs Sc_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Discrete Fourier transforms
//===----------------------------------------------------------------------===//

// Complex tensors are written as torch.view_as_real writes them: a trailing
// dim of 2 holding (real, imaginary). `dims` are dims of the complex tensor.
class Sc_SpectralOp<string mnemonic, string torchName>
    : Sc_InferredOp<mnemonic> {
  let summary = "torch.fft." # torchName # " on view_as_real tensors";
  let arguments = (ins Sc_FloatTensor:$input,
      OptionalAttr<DenseI64ArrayAttr>:$dims,
      OptionalAttr<DenseI64ArrayAttr>:$sizes,
      Sc_StrEnumAttr<["backward", "ortho", "forward"], "backward">:$norm);
  let results = (outs Sc_FloatTensor:$result);
}

def Sc_FftOp : Sc_SpectralOp<"fft", "fftn"> {
  let description = [{
    The complex-to-complex DFT over `dims` (the last dim when absent; each
    dim once, negative dims counted from the end of the complex tensor), as
    `torch.view_as_real(torch.fft.fftn(torch.view_as_complex(x), s, dims,
    norm))`: torch.fft.fft is one dim, fft2 two. `sizes` (torch's `n` / `s`,
    one per dim) trims or zero-pads the input along each dim first. `norm`
    scales the forward transform by 1 (`"backward"`, the default),
    1/sqrt(n) (`"ortho"`) or 1/n (`"forward"`).
    ```mlir
    %y = sc.fft %x {dims = array<i64: 2, 3>} : (tensor<1x4x64x64x2xf32>) -> tensor<1x4x64x64x2xf32>
    ```
    `sc-decompose-forms` rewrites every transform into one GEMM per dim
    against a constant DFT matrix (see the pass), so a split transformed dim
    is a contraction over a split dim: each rank transforms its part and an
    all-reduce (or reduce-scatter) sums the spectra. Truncating slices of
    the result and zero pads of the input fold into the matrices.
  }];
}

def Sc_IfftOp : Sc_SpectralOp<"ifft", "ifftn"> {
  let description = [{
    The inverse complex DFT over `dims`, as torch.fft.ifftn on view_as_real
    tensors; the same `dims` and `sizes` as `sc.fft`. `norm` scales the
    inverse by 1/n (`"backward"`), 1/sqrt(n) (`"ortho"`) or 1 (`"forward"`).
    ```mlir
    %y = sc.ifft %x {dims = array<i64: -1>, norm = "ortho"} : (tensor<2x16x2xf32>) -> tensor<2x16x2xf32>
    ```
  }];
}

def Sc_RfftOp : Sc_SpectralOp<"rfft", "rfftn"> {
  let description = [{
    The DFT of a real tensor over `dims`, keeping the `n // 2 + 1`
    non-negative frequencies of the last listed dim (the others are whole),
    as `torch.view_as_real(torch.fft.rfftn(x, s, dims, norm))`: the result
    is complex, with a trailing dim of 2. torch.fft.rfft is one dim, rfft2
    two.
    ```mlir
    %y = sc.rfft %x {dims = array<i64: 2, 3>} : (tensor<1x4x64x64xf32>) -> tensor<1x4x64x33x2xf32>
    ```
  }];
}

def Sc_IrfftOp : Sc_SpectralOp<"irfft", "irfftn"> {
  let description = [{
    The inverse of `sc.rfft`: a complex (view_as_real) tensor holding the
    non-negative frequencies of the last listed dim to a real tensor, as
    torch.fft.irfftn. The last dim's output size is `sizes`' last value or
    `2 * (m - 1)` for `m` input frequencies; the imaginary parts of its
    zero (and, for an even size, Nyquist) frequency are ignored, as in
    PyTorch.
    ```mlir
    %y = sc.irfft %x {dims = array<i64: 2, 3>, sizes = array<i64: 64, 64>}
        : (tensor<1x4x64x33x2xf32>) -> tensor<1x4x64x64xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def Sc_ScaledDotProductAttentionOp : Sc_InferredOp<"scaled_dot_product_attention"> {
  let summary = "torch.nn.functional.scaled_dot_product_attention";
  let description = [{
    q (..., L, E), k (..., S, E), v (..., S, Ev) -> (..., L, Ev); batch dims
    broadcast. `mask` is additive and broadcasts to (..., L, S); it excludes
    `is_causal`. `scale` defaults to 1/sqrt(E); as in PyTorch, any finite
    scale is valid (0 weighs every visible key alike). Over a sharded
    sequence the partitioner runs a ring with online softmax.
  }];
  let arguments = (ins Sc_FloatTensor:$query, Sc_FloatTensor:$key,
      Sc_FloatTensor:$value, Optional<Sc_FloatTensor>:$mask,
      OptionalAttr<F64Attr>:$scale, DefaultValuedAttr<BoolAttr, "false">:$is_causal);
  let results = (outs Sc_FloatTensor:$result);
}

#endif // SHARDC_DIALECT_SC_OPS_TD
