//===- NormOps.cpp - shape inference: reductions, softmax, norms ----------===//

#include "OpUtils.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace shardc::sc;
using namespace shardc::sc::detail;

/// The reduced dims of a reduction op, normalized; all dims when absent.
static FailureOr<llvm::SmallBitVector>
reducedDims(OptLoc loc, StringRef name, std::optional<ArrayRef<int64_t>> dims,
            int64_t rank) {
  // As in ATen, an empty dim list reduces over every dim.
  bool all = !dims || dims->empty();
  llvm::SmallBitVector reduced(rank, all);
  if (all)
    return reduced;
  // As PyTorch wraps a dim of a rank-0 tensor: 0 or -1 name its one
  // element, and reduce it as a reduction over every dim does.
  llvm::SmallBitVector listed(std::max<int64_t>(rank, 1));
  for (int64_t dim : *dims) {
    std::optional<int64_t> d = normalizeDim(dim, listed.size());
    if (!d)
      return fail(loc, name, "dim ", dim, " is out of range for rank ", rank);
    if (listed.test(*d))
      return fail(loc, name, "dim ", dim, " is listed twice");
    listed.set(*d);
  }
  return rank == 0 ? reduced : listed;
}

/// The result of reducing `x` over `dims` (all when absent), of element
/// type `element`. `needsElements`: amax/amin and argmax/argmin, which have
/// no value over no elements.
static LogicalResult inferReduced(OptLoc loc, StringRef name,
                                  bool needsElements, RankedTensorType x,
                                  std::optional<ArrayRef<int64_t>> dims,
                                  bool keepdim, Type element,
                                  SmallVectorImpl<Type> &types) {
  FailureOr<llvm::SmallBitVector> reduced =
      reducedDims(loc, name, dims, x.getRank());
  if (failed(reduced))
    return failure();
  // As in PyTorch: a max or min over nothing has no value (no identity in
  // the element type's range).
  for (int64_t d = 0; needsElements && d < x.getRank(); ++d)
    if (reduced->test(d) && x.getDimSize(d) == 0)
      return fail(loc, name, "reduces dim ", d,
                  " of size 0; a max or min over no elements has no value");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < x.getRank(); ++d) {
    if (!reduced->test(d))
      shape.push_back(x.getDimSize(d));
    else if (keepdim)
      shape.push_back(1);
  }
  types.push_back(RankedTensorType::get(shape, element));
  return success();
}

template <typename Adaptor>
static LogicalResult inferReduction(OptLoc loc, StringRef name,
                                    bool needsElements, Adaptor adaptor,
                                    SmallVectorImpl<Type> &types) {
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  if (!x)
    return fail(loc, name, "needs a ranked tensor");
  return inferReduced(loc, name, needsElements, x, adaptor.getDims(),
                      adaptor.getKeepdim(), x.getElementType(), types);
}

/// argmax/argmin: one dim (every dim, flattened, when absent) to int64.
template <typename Adaptor>
static LogicalResult inferArgExtreme(MLIRContext *context, OptLoc loc,
                                     StringRef name, Adaptor adaptor,
                                     SmallVectorImpl<Type> &types) {
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  if (!x)
    return fail(loc, name, "needs a ranked tensor");
  // I64Attr reads back unsigned: the attribute's own value is signed.
  std::optional<int64_t> dim;
  if (IntegerAttr attr = adaptor.getDimAttr())
    dim = attr.getInt();
  std::optional<ArrayRef<int64_t>> dims;
  if (dim)
    dims = ArrayRef<int64_t>(*dim);
  return inferReduced(loc, name, /*needsElements=*/true, x, dims,
                      adaptor.getKeepdim(), IntegerType::get(context, 64),
                      types);
}

/// max/min along a dim: the values in x's type, the indices in int64.
template <typename Adaptor>
static LogicalResult inferExtremeAlong(MLIRContext *context, OptLoc loc,
                                       StringRef name, Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  if (!x)
    return fail(loc, name, "needs a ranked tensor");
  int64_t dim = adaptor.getDimAttr().getInt();
  if (failed(inferReduced(loc, name, /*needsElements=*/true, x,
                          ArrayRef<int64_t>(dim), adaptor.getKeepdim(),
                          x.getElementType(), types)))
    return failure();
  return inferArgExtreme(context, loc, name, adaptor, types);
}

#define SC_INDEX_INFER(OP, INFER)                                              \
  LogicalResult OP::inferReturnTypes(MLIRContext *context, OptLoc loc,         \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    return INFER(context, loc, getOperationName(), adaptor, types);            \
  }
SC_INDEX_INFER(MaxOp, inferExtremeAlong)
SC_INDEX_INFER(MinOp, inferExtremeAlong)
SC_INDEX_INFER(ArgmaxOp, inferArgExtreme)
SC_INDEX_INFER(ArgminOp, inferArgExtreme)
#undef SC_INDEX_INFER

#define SC_REDUCTION_INFER(OP, NEEDS_ELEMENTS)                                 \
  LogicalResult OP::inferReturnTypes(MLIRContext *, OptLoc loc,                \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    return inferReduction(loc, getOperationName(), NEEDS_ELEMENTS, adaptor,    \
                          types);                                              \
  }
SC_REDUCTION_INFER(SumOp, false)
SC_REDUCTION_INFER(MeanOp, false)
SC_REDUCTION_INFER(AmaxOp, true)
SC_REDUCTION_INFER(AminOp, true)
SC_REDUCTION_INFER(VarOp, false)
SC_REDUCTION_INFER(StdOp, false)
SC_REDUCTION_INFER(LogsumexpOp, false)
SC_REDUCTION_INFER(ProdOp, false)
#undef SC_REDUCTION_INFER

LogicalResult VectorNormOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  double ord = adaptor.getOrd().convertToDouble();
  if (std::isnan(ord))
    return fail(loc, getOperationName(), "ord must not be NaN");
  // As torch.linalg.vector_norm: the inf norms have no identity, so they
  // need elements; the others are 0 over none.
  return inferReduction(loc, getOperationName(), std::isinf(ord), adaptor,
                        types);
}

LogicalResult NormalizeOp::verify() {
  int64_t rank = getType().getRank();
  if (!normalizeDim(getDim(), std::max<int64_t>(rank, 1)))
    return emitOpError("dim ")
           << getDim() << " is out of range for rank " << rank;
  if (std::isnan(getP().convertToDouble()) ||
      std::isnan(getEps().convertToDouble()))
    return emitOpError("p and eps must not be NaN");
  return success();
}

LogicalResult GluOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  if (!x)
    return fail(loc, name, "needs a ranked tensor");
  std::optional<int64_t> d = normalizeDim(adaptor.getDim(), x.getRank());
  if (!d)
    return fail(loc, name, "dim ", static_cast<int64_t>(adaptor.getDim()),
                " is out of range for rank ", x.getRank());
  SmallVector<int64_t> shape(x.getShape());
  if (shape[*d] % 2 != 0)
    return fail(loc, name, "halves dim ", *d, ", which must be even (size ",
                shape[*d], ")");
  shape[*d] /= 2;
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

template <typename Op> static LogicalResult verifyCorrection(Op op) {
  if (!std::isfinite(op.getCorrection().convertToDouble()))
    return op.emitOpError("correction must be finite");
  return success();
}

LogicalResult VarOp::verify() { return verifyCorrection(*this); }
LogicalResult StdOp::verify() { return verifyCorrection(*this); }

template <typename Adaptor>
static LogicalResult inferSoftmax(OptLoc loc, StringRef name, Adaptor adaptor,
                                  SmallVectorImpl<Type> &types) {
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  if (!x)
    return fail(loc, name, "needs a ranked tensor");
  // A rank-0 input takes dim 0 or -1, as PyTorch wraps its dims.
  if (!normalizeDim(adaptor.getDim(), std::max<int64_t>(x.getRank(), 1)))
    return fail(loc, name, "dim ", static_cast<int64_t>(adaptor.getDim()),
                " is out of range for rank ", x.getRank());
  types.push_back(x);
  return success();
}

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferSoftmax(loc, getOperationName(), adaptor, types);
}

LogicalResult SoftminOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferSoftmax(loc, getOperationName(), adaptor, types);
}

LogicalResult LogSoftmaxOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  return inferSoftmax(loc, getOperationName(), adaptor, types);
}

// Cumulative ops take dim 0 or -1 on a scalar, as PyTorch wraps dims of a
// rank-0 tensor as if it had one dim.
static std::optional<int64_t> cumulativeDim(int64_t dim, int64_t rank) {
  return normalizeDim(dim, std::max<int64_t>(rank, 1));
}

template <typename Adaptor>
static LogicalResult inferCumulative(OptLoc loc, StringRef name,
                                     Adaptor adaptor,
                                     SmallVectorImpl<Type> &types) {
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  if (!x)
    return fail(loc, name, "needs a ranked tensor");
  if (!cumulativeDim(adaptor.getDim(), x.getRank()))
    return fail(loc, name, "dim ", static_cast<int64_t>(adaptor.getDim()),
                " is out of range for rank ", x.getRank());
  types.push_back(x);
  return success();
}

#define SC_CUMULATIVE_OP(OP)                                                   \
  LogicalResult OP::inferReturnTypes(MLIRContext *, OptLoc loc,                \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    return inferCumulative(loc, getOperationName(), adaptor, types);           \
  }
SC_CUMULATIVE_OP(CumsumOp)
SC_CUMULATIVE_OP(CumprodOp)
SC_CUMULATIVE_OP(CummaxOp)
SC_CUMULATIVE_OP(CumminOp)
SC_CUMULATIVE_OP(LogcumsumexpOp)
#undef SC_CUMULATIVE_OP

std::optional<CumulativeScan> shardc::sc::getCumulativeScan(Operation *op) {
  StringRef kind = llvm::TypeSwitch<Operation *, StringRef>(op)
                       .Case([](CumsumOp) { return "sum"; })
                       .Case([](CumprodOp) { return "prod"; })
                       .Case([](CummaxOp) { return "max"; })
                       .Case([](CumminOp) { return "min"; })
                       .Case([](LogcumsumexpOp) { return "logsumexp"; })
                       .Default([](Operation *) { return StringRef(); });
  if (kind.empty())
    return std::nullopt;
  int64_t rank = cast<RankedTensorType>(op->getResult(0).getType()).getRank();
  int64_t dim = static_cast<int64_t>(
      op->getAttrOfType<IntegerAttr>("dim").getValue().getSExtValue());
  if (rank == 0)
    return CumulativeScan{kind, std::nullopt};
  return CumulativeScan{kind, cumulativeDim(dim, rank)};
}

/// Checks optional affine parameters (weight, then bias) against `shape`.
static LogicalResult checkAffine(OptLoc loc, StringRef name, ValueRange affine,
                                 ArrayRef<int64_t> shape, Type elementType) {
  if (affine.size() > 2)
    return fail(loc, name,
                "takes at most two affine operands (weight, bias), got ",
                affine.size());
  const char *roles[] = {"weight", "bias"};
  for (auto [i, value] : llvm::enumerate(affine)) {
    RankedTensorType t = tensorTypeOf(value);
    if (!t || t.getShape() != shape || t.getElementType() != elementType)
      return fail(loc, name, roles[i], " must have shape ", shapeStr(shape),
                  " and element type ", elementType);
  }
  return success();
}

/// The checks every norm ends with: a finite eps that is not negative and
/// affine parameters of `affineShape`; the result is the input's type.
static LogicalResult inferNormResult(OptLoc loc, StringRef name, APFloat eps,
                                     ValueRange affine,
                                     ArrayRef<int64_t> affineShape,
                                     RankedTensorType x,
                                     SmallVectorImpl<Type> &types) {
  // The runtime takes a finite eps only. PyTorch takes eps = 0 (a constant
  // row then normalises to NaN, as 0 * inf); a negative one would take the
  // root of a negative variance.
  if (!(eps.convertToDouble() >= 0) || !std::isfinite(eps.convertToDouble()))
    return fail(loc, name, "eps must be finite and not negative");
  if (failed(checkAffine(loc, name, affine, affineShape, x.getElementType())))
    return failure();
  types.push_back(x);
  return success();
}

/// F.layer_norm's and F.rms_norm's normalized_shape: the input's trailing
/// dims.
static LogicalResult checkNormalizedShape(OptLoc loc, StringRef name,
                                          RankedTensorType x,
                                          ArrayRef<int64_t> normalized) {
  if (!x)
    return fail(loc, name, "needs a ranked tensor");
  if (normalized.empty() ||
      static_cast<int64_t>(normalized.size()) > x.getRank() ||
      x.getShape().take_back(normalized.size()) != normalized)
    return fail(loc, name, "normalized_shape ", shapeStr(normalized),
                " does not match the trailing dims of ",
                shapeStr(x.getShape()));
  return success();
}

LogicalResult RmsNormOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  ArrayRef<int64_t> normalized = adaptor.getNormalizedShape();
  if (failed(checkNormalizedShape(loc, name, x, normalized)))
    return failure();
  // PyTorch takes any eps; a NaN or infinite one only makes NaNs or zeros.
  if (auto eps = adaptor.getEps();
      eps &&
      (!std::isfinite(eps->convertToDouble()) || eps->convertToDouble() < 0))
    return fail(loc, name, "eps must be finite and not negative");
  Value weight = adaptor.getWeight();
  if (failed(checkAffine(loc, name, weight ? ValueRange(weight) : ValueRange(),
                         normalized, x.getElementType())))
    return failure();
  types.push_back(x);
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  ArrayRef<int64_t> normalized = adaptor.getNormalizedShape();
  if (failed(checkNormalizedShape(loc, name, x, normalized)))
    return failure();
  return inferNormResult(loc, name, adaptor.getEps(), adaptor.getAffine(),
                         normalized, x, types);
}

LogicalResult GroupNormOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  if (!x || x.getRank() < 2)
    return fail(loc, name, "input must be (N, C, ...)");
  int64_t groups = adaptor.getNumGroups(), channels = x.getDimSize(1);
  if (groups < 1)
    return fail(loc, name, "num_groups must be >= 1 (got ", groups, ")");
  if (channels % groups != 0)
    return fail(loc, name, "num_groups ", groups, " must divide the ", channels,
                " channels");
  return inferNormResult(loc, name, adaptor.getEps(), adaptor.getAffine(),
                         {channels}, x, types);
}

LogicalResult InstanceNormOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  if (!x || x.getRank() < 3)
    return fail(loc, name, "input must be (N, C, L, ...), with spatial dims");
  // F.instance_norm's own check: one spatial element has no spread.
  if (llvm::all_of(x.getShape().drop_front(2),
                   [](int64_t n) { return n == 1; }))
    return fail(loc, name, "needs more than one spatial element, got input ",
                shapeStr(x.getShape()));
  return inferNormResult(loc, name, adaptor.getEps(), adaptor.getAffine(),
                         {x.getDimSize(1)}, x, types);
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  if (!x || x.getRank() < 2)
    return fail(loc, name, "input must be (N, C, ...)");
  int64_t channels = x.getDimSize(1);
  for (auto [role, value] : {std::pair<const char *, Value>{
                                 "running_mean", adaptor.getRunningMean()},
                             {"running_var", adaptor.getRunningVar()}}) {
    RankedTensorType t = tensorTypeOf(value);
    if (!t || t.getShape() != ArrayRef<int64_t>{channels} ||
        t.getElementType() != x.getElementType())
      return fail(loc, name, role, " must have shape (", channels,
                  ") and element type ", x.getElementType());
  }
  return inferNormResult(loc, name, adaptor.getEps(), adaptor.getAffine(),
                         {channels}, x, types);
}
