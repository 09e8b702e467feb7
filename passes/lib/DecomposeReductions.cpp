//===- DecomposeReductions.cpp - norms, logsumexp, glu, adaptive pools ----===//
//
// PyTorch functions built from reductions: each becomes the reductions and
// elementwise ops PyTorch's own kernels compute it with, so over split dims
// it costs the all-reduces those reductions already have, and the
// elementwise parts fuse.
//
//===----------------------------------------------------------------------===//

#include "DecomposeForms.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace shardc::sc;
using shardc::detail::replaceKeepingPin;
using shardc::detail::scalar;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The dims `dims` reduces (all when absent or empty), normalised.
SmallVector<int64_t> reducedDims(std::optional<ArrayRef<int64_t>> dims,
                                 int64_t rank) {
  SmallVector<int64_t> out;
  // A rank-0 input's dim 0 (or -1) is its one element: no dim to list.
  if (!dims || dims->empty() || rank == 0) {
    for (int64_t d = 0; d < rank; ++d)
      out.push_back(d);
    return out;
  }
  for (int64_t d : *dims)
    out.push_back(*normalizeDim(d, rank));
  return out;
}

/// A verified dim attribute in [0, rank); I64Attr reads back unsigned.
int64_t dimOf(uint64_t attr, int64_t rank) {
  return *normalizeDim(static_cast<int64_t>(attr), rank);
}

/// An sc.constant of `type` filled with `value`: a reduction over no
/// elements.
Operation *filled(OpBuilder &b, Location loc, RankedTensorType type,
                  double value) {
  return ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(type,
                             b.getFloatAttr(type.getElementType(), value)));
}

int64_t elementsOver(Value x, ArrayRef<int64_t> dims) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(x.getType()).getShape();
  int64_t n = 1;
  for (int64_t d : dims)
    n *= shape[d];
  return n;
}

/// torch.linalg.vector_norm of `x` over `dims` (an attribute as reductions
/// take it), as its kernels compute each order.
Value vectorNorm(OpBuilder &b, Location loc, Value x, double ord,
                 DenseI64ArrayAttr dims, bool keepdim) {
  BoolAttr keep = b.getBoolAttr(keepdim);
  auto magnitude = [&]() -> Value { return AbsOp::create(b, loc, x); };
  if (ord == kInf)
    return AmaxOp::create(b, loc, magnitude(), dims, keep);
  if (ord == -kInf)
    return AminOp::create(b, loc, magnitude(), dims, keep);
  if (ord == 0) {
    Value nonzero = CompareOp::create(b, loc, x, scalar(b, loc, x, 0.0),
                                      b.getStringAttr("ne"));
    Value ones = SelectOp::create(b, loc, nonzero, scalar(b, loc, x, 1.0),
                                  scalar(b, loc, x, 0.0));
    return SumOp::create(b, loc, ones, dims, keep);
  }
  if (ord == 1)
    return SumOp::create(b, loc, magnitude(), dims, keep);
  if (ord == 2) {
    Value square = MulOp::create(b, loc, x, x);
    return SqrtOp::create(b, loc, SumOp::create(b, loc, square, dims, keep));
  }
  Value powered = PowOp::create(b, loc, magnitude(), scalar(b, loc, x, ord));
  Value sum = SumOp::create(b, loc, powered, dims, keep);
  return PowOp::create(b, loc, sum, scalar(b, loc, x, 1.0 / ord));
}

/// log(sum(exp(x - m))) + m with m the maximum, taken as 0 where it is
/// infinite (as PyTorch does), so all -inf gives -inf and a +inf +inf.
void decomposeLogsumexp(LogsumexpOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = op.getInput();
  auto type = cast<RankedTensorType>(op.getType());
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<int64_t> dims = reducedDims(op.getDims(), rank);
  if (elementsOver(x, dims) == 0) {
    // The log of an empty sum.
    return replaceKeepingPin(op, filled(b, loc, type, -kInf));
  }
  DenseI64ArrayAttr dimsAttr = op.getDimsAttr();
  Value max = AmaxOp::create(b, loc, x, dimsAttr, b.getBoolAttr(true));
  Value infinite =
      CompareOp::create(b, loc, AbsOp::create(b, loc, max),
                        scalar(b, loc, x, kInf), b.getStringAttr("eq"));
  Value shift = SelectOp::create(b, loc, infinite, scalar(b, loc, x, 0.0), max);
  Value exp = ExpOp::create(b, loc, SubOp::create(b, loc, x, shift));
  Value sum =
      SumOp::create(b, loc, exp, dimsAttr, b.getBoolAttr(op.getKeepdim()));
  Value back = shift;
  if (!op.getKeepdim())
    back = ReshapeOp::create(b, loc, type, shift);
  Operation *last = AddOp::create(b, loc, LogOp::create(b, loc, sum), back);
  replaceKeepingPin(op, last);
}

void decomposeVectorNorm(VectorNormOp op) {
  OpBuilder b(op);
  Value norm =
      vectorNorm(b, op.getLoc(), op.getInput(), op.getOrd().convertToDouble(),
                 op.getDimsAttr(), op.getKeepdim());
  replaceKeepingPin(op, norm.getDefiningOp());
}

/// F.normalize: x / max(norm, eps), the norm kept for broadcasting.
void decomposeNormalize(NormalizeOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = op.getInput();
  // A rank-0 input's dim 0 (or -1) names its one element.
  int64_t dim =
      dimOf(op.getDim(), std::max<int64_t>(op.getType().getRank(), 1));
  Value norm = vectorNorm(b, loc, x, op.getP().convertToDouble(),
                          b.getDenseI64ArrayAttr({dim}), true);
  Value floor = MaximumOp::create(
      b, loc, norm, scalar(b, loc, x, op.getEps().convertToDouble()));
  replaceKeepingPin(op, DivOp::create(b, loc, x, floor));
}

/// F.rms_norm: x * rsqrt(mean(x^2) + eps) [* weight].
void decomposeRmsNorm(RmsNormOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = op.getInput();
  int64_t rank = op.getType().getRank();
  SmallVector<int64_t> dims;
  for (int64_t d = rank - op.getNormalizedShape().size(); d < rank; ++d)
    dims.push_back(d);
  // ATen computes f16 and bf16 in float and defaults eps to float's
  // machine epsilon; f64 to its own.
  double eps = op.getType().getElementType().isF64()
                   ? std::numeric_limits<double>::epsilon()
                   : double(std::numeric_limits<float>::epsilon());
  if (auto given = op.getEps())
    eps = given->convertToDouble();
  Value square = MulOp::create(b, loc, x, x);
  Value mean = MeanOp::create(b, loc, square, b.getDenseI64ArrayAttr(dims),
                              b.getBoolAttr(true));
  Value shifted = AddOp::create(b, loc, mean, scalar(b, loc, x, eps));
  Operation *last = MulOp::create(b, loc, x, RsqrtOp::create(b, loc, shifted));
  if (Value weight = op.getWeight())
    last = MulOp::create(b, loc, last->getResult(0), weight);
  replaceKeepingPin(op, last);
}

/// `x[..., start:end, ...]` along `dim`.
Value sliceDim(OpBuilder &b, Location loc, Value x, int64_t dim, int64_t start,
               int64_t end) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(x.getType()).getShape();
  SmallVector<int64_t> lo(shape.size(), 0), hi(shape);
  lo[dim] = start;
  hi[dim] = end;
  return SliceOp::create(b, loc, x, b.getDenseI64ArrayAttr(lo),
                         b.getDenseI64ArrayAttr(hi), DenseI64ArrayAttr());
}

/// torch.prod: one cumprod along the reduced dims, keeping its last
/// element, so the product runs in double and a split dim's product comes
/// from the cumprod's carry (one all-gather of packed shard totals) instead
/// of an all-reduce of float partial products. Several reduced dims are
/// moved last and merged first: a cumprod per dim would round each dim's
/// partial products to float (1e20 * 1e20 would overflow before a 1e-30
/// in the next dim brought it back).
void decomposeProd(ProdOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = op.getInput();
  auto type = cast<RankedTensorType>(op.getType());
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t rank = xType.getRank();
  SmallVector<int64_t> dims = reducedDims(op.getDims(), rank);
  if (elementsOver(x, dims) == 0)
    return replaceKeepingPin(op, filled(b, loc, type, 1.0));
  // A scalar's product is itself: a cumprod of it, which keeps the pin.
  if (rank == 0)
    return replaceKeepingPin(
        op, CumprodOp::create(b, loc, x, b.getI64IntegerAttr(0)));
  Value v = x;
  int64_t along = dims.front();
  if (dims.size() > 1) {
    llvm::sort(dims);
    SmallVector<int64_t> perm, merged;
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(dims, d)) {
        perm.push_back(d);
        merged.push_back(xType.getDimSize(d));
      }
    perm.append(dims.begin(), dims.end());
    merged.push_back(elementsOver(x, dims));
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, rank)))
      v = PermuteOp::create(b, loc, v, b.getDenseI64ArrayAttr(perm));
    v = ReshapeOp::create(
        b, loc, RankedTensorType::get(merged, xType.getElementType()), v);
    along = int64_t(merged.size()) - 1;
  }
  int64_t n = cast<RankedTensorType>(v.getType()).getDimSize(along);
  v = CumprodOp::create(b, loc, v, b.getI64IntegerAttr(along));
  v = sliceDim(b, loc, v, along, n - 1, n);
  if (v.getType() != type)
    v = ReshapeOp::create(b, loc, type, v);
  replaceKeepingPin(op, v.getDefiningOp());
}

/// F.glu: the first half times the sigmoid of the second.
void decomposeGlu(GluOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = op.getInput();
  int64_t dim = dimOf(op.getDim(), op.getType().getRank());
  int64_t half = op.getType().getDimSize(dim);
  Value a = sliceDim(b, loc, x, dim, 0, half);
  Value gate =
      SigmoidOp::create(b, loc, sliceDim(b, loc, x, dim, half, 2 * half));
  replaceKeepingPin(op, MulOp::create(b, loc, a, gate));
}

/// F.adaptive_{avg,max}_pool: dims the output size divides become one pool
/// of kernel and stride n / out; each other dim a concat of its windows
/// [floor(i n / out), ceil((i + 1) n / out)), each reduced. Windows are
/// separable: a mean (or max) over a box is one over each dim in turn.
void decomposeAdaptivePool(Operation *op, ArrayRef<int64_t> outputSize) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  bool average = isa<AdaptiveAvgPoolOp>(op);
  Value x = op->getOperand(0);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (resultType.getNumElements() == 0)
    return replaceKeepingPin(op, filled(b, loc, resultType, 0.0));
  ArrayRef<int64_t> in = cast<RankedTensorType>(x.getType()).getShape();
  SmallVector<int64_t> kernel;
  bool pools = false;
  for (auto [i, out] : llvm::enumerate(outputSize)) {
    int64_t n = in[2 + i];
    bool divides = n % out == 0;
    kernel.push_back(divides ? n / out : 1);
    pools |= divides && n != out;
  }
  Value v = x;
  if (pools) {
    DenseI64ArrayAttr k = b.getDenseI64ArrayAttr(kernel);
    if (average)
      v = AvgPoolOp::create(b, loc, v, k, k, DenseI64ArrayAttr(),
                            b.getBoolAttr(false), b.getBoolAttr(true),
                            IntegerAttr());
    else
      v = MaxPoolOp::create(b, loc, v, k, k, DenseI64ArrayAttr(),
                            DenseI64ArrayAttr(), b.getBoolAttr(false));
  }
  for (auto [i, out] : llvm::enumerate(outputSize)) {
    int64_t n = in[2 + i], dim = 2 + i;
    if (n % out == 0)
      continue;
    SmallVector<Value> windows;
    DenseI64ArrayAttr along = b.getDenseI64ArrayAttr({dim});
    for (int64_t j = 0; j < out; ++j) {
      int64_t start = j * n / out, end = ((j + 1) * n + out - 1) / out;
      Value window = sliceDim(b, loc, v, dim, start, end);
      windows.push_back(
          average ? MeanOp::create(b, loc, window, along, b.getBoolAttr(true))
                        .getResult()
                  : AmaxOp::create(b, loc, window, along, b.getBoolAttr(true))
                        .getResult());
    }
    v = windows.size() == 1
            ? windows.front()
            : ConcatOp::create(b, loc, windows, b.getI64IntegerAttr(dim))
                  .getResult();
  }
  if (v != x)
    return replaceKeepingPin(op, v.getDefiningOp());
  // Every window is one element: the pool is the identity.
  if (auto pin = op->getAttrOfType<ShardingAttr>(ScDialect::kShardingAttrName))
    v = ShardingConstraintOp::create(b, loc, x.getType(), x, pin);
  op->getResult(0).replaceAllUsesWith(v);
  op->erase();
}

/// An sc.constant of `shape` holding `values`, in `element` (f32 or f64).
Value constantOf(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                 Type element, ArrayRef<double> values) {
  auto type = RankedTensorType::get(shape, element);
  if (element.isF64())
    return ConstantOp::create(b, loc, DenseElementsAttr::get(type, values));
  SmallVector<float> narrow(values.begin(), values.end());
  return ConstantOp::create(b, loc,
                            DenseElementsAttr::get(type, ArrayRef(narrow)));
}

/// Dims longer than this count their indices with a cumsum rather than
/// hold them as a constant: every rank holds a constant whole (and the
/// artifact stores it), while a cumsum over a split dim computes each
/// rank's own shard (from the shards' totals).
constexpr int64_t kLongIndexDim = int64_t(1) << 16;

/// i * stride along dim `d` (of size n) of a rank-`rank` tensor that is 1
/// elsewhere.
Value indexTerm(OpBuilder &b, Location loc, Type element, int64_t rank,
                int64_t d, int64_t n, int64_t stride) {
  SmallVector<int64_t> shape(rank, 1);
  shape[d] = n;
  if (n <= kLongIndexDim) {
    SmallVector<double> values;
    for (int64_t i = 0; i < n; ++i)
      values.push_back(double(i * stride));
    return constantOf(b, loc, shape, element, values);
  }
  // cumsum of ones (exact: it runs in double), minus one, times the stride.
  Value ones =
      filled(b, loc, RankedTensorType::get(shape, element), 1.0)->getResult(0);
  Value counts = CumsumOp::create(b, loc, ones, b.getI64IntegerAttr(d));
  Value one = scalar(b, loc, counts, 1.0);
  Value term = SubOp::create(b, loc, counts, one);
  if (stride == 1)
    return term;
  Value by = scalar(b, loc, counts, double(stride));
  return MulOp::create(b, loc, term, by);
}

/// Each element's index among the `reduced` dims of `type`, row-major over
/// those dims (the flattened index when every dim is reduced): i * stride
/// along each dim, broadcast and added. n_d elements per dim, never the
/// size of the input, and nothing a split dim would have to gather (a
/// reshape to 1-D would).
Value rowMajorIndex(OpBuilder &b, Location loc, RankedTensorType type,
                    ArrayRef<int64_t> reduced) {
  Type element = type.getElementType();
  Value index;
  int64_t stride = 1;
  for (int64_t d : llvm::reverse(reduced)) {
    int64_t n = type.getDimSize(d);
    if (n > 1) {
      Value term = indexTerm(b, loc, element, type.getRank(), d, n, stride);
      index = index ? AddOp::create(b, loc, term, index).getResult() : term;
    }
    stride *= n;
  }
  return index ? index
               : filled(b, loc, RankedTensorType::get({}, element), 0.0)
                     ->getResult(0);
}

/// torch.argmax / argmin along `dim` (every dim, flattened, when absent).
/// Each element's candidate is its index i if it is NaN (torch counts NaN
/// as the extreme), n + i if it equals the extreme, 2n otherwise; the least
/// candidate c gives c < n ? c : c - n. Ties and NaN thus give the first
/// index, as ATen's kernels do, and NaN wins even where the extreme's
/// reduction lost it (NCCL's max need not keep NaN).
template <typename Op> LogicalResult decomposeArgExtremeOf(Op op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  bool max = isa<ArgmaxOp>(op);
  Value v = op.getInput();
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> reduced;
  if (std::optional<int64_t> dim = op.getSignedDim(); dim && type.getRank())
    reduced.push_back(*normalizeDim(*dim, type.getRank()));
  else
    reduced = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  int64_t n = elementsOver(v, reduced);
  // Candidates are f32 values until the final cast: f32 holds them (up to
  // 2n) exactly while 2n <= 2^24.
  constexpr int64_t kExactInF32 = int64_t(1) << 24;
  if (2 * n > kExactInF32)
    return op.emitOpError("reduces ")
           << n << " elements; more than 2^23 (" << kExactInF32 / 2
           << ") are not supported";
  if (!type.getElementType().isF32() && !type.getElementType().isF64()) {
    type = type.clone(b.getF32Type());
    v = CastOp::create(b, loc, type, v); // exact: every bf16/f16 is an f32
  }
  DenseI64ArrayAttr dims = b.getDenseI64ArrayAttr(reduced);
  BoolAttr keep = b.getBoolAttr(true);
  Value extreme = max ? AmaxOp::create(b, loc, v, dims, keep).getResult()
                      : AminOp::create(b, loc, v, dims, keep).getResult();
  Value index = rowMajorIndex(b, loc, type, reduced);
  Value count = scalar(b, loc, v, double(n));
  Value isNan = CompareOp::create(b, loc, v, v, b.getStringAttr("ne"));
  Value hit = CompareOp::create(b, loc, v, extreme, b.getStringAttr("eq"));
  // One op per statement: the IR's order does not hang on the order in
  // which a compiler evaluates arguments.
  Value shifted = AddOp::create(b, loc, index, count);
  Value none = scalar(b, loc, v, 2.0 * double(n));
  Value candidate = SelectOp::create(b, loc, hit, shifted, none);
  candidate = SelectOp::create(b, loc, isNan, index, candidate);
  Value least =
      AminOp::create(b, loc, candidate, dims, b.getBoolAttr(op.getKeepdim()));
  Value nanFirst =
      CompareOp::create(b, loc, least, count, b.getStringAttr("lt"));
  Value unshifted = SubOp::create(b, loc, least, count);
  Value first = SelectOp::create(b, loc, nanFirst, least, unshifted);
  replaceKeepingPin(op, CastOp::create(b, loc, op.getType(), first));
  return success();
}

/// torch.max(x, dim) / torch.min(x, dim): the kept-or-dropped amax (amin)
/// and argmax (argmin), decomposed in turn; the pins (an array, one per
/// result) go to each.
template <typename Op, typename Reduce, typename Arg>
LogicalResult decomposeExtremeAlong(Op op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  BoolAttr keep = b.getBoolAttr(op.getKeepdim());
  auto values = Reduce::create(
      b, loc, op.getInput(), b.getDenseI64ArrayAttr({op.getSignedDim()}), keep);
  auto indices = Arg::create(b, loc, op.getInput(), op.getDimAttr(), keep);
  if (auto pins =
          op->template getAttrOfType<ArrayAttr>(ScDialect::kShardingAttrName)) {
    values->setAttr(ScDialect::kShardingAttrName, pins[0]);
    indices->setAttr(ScDialect::kShardingAttrName, pins[1]);
  }
  op.getValues().replaceAllUsesWith(values.getResult());
  op.getIndices().replaceAllUsesWith(indices.getResult());
  op.erase();
  return decomposeArgExtremeOf(indices);
}

} // namespace

LogicalResult shardc::detail::decomposeArgExtreme(Operation *op) {
  if (auto argmax = dyn_cast<ArgmaxOp>(op))
    return decomposeArgExtremeOf(argmax);
  if (auto argmin = dyn_cast<ArgminOp>(op))
    return decomposeArgExtremeOf(argmin);
  if (auto max = dyn_cast<MaxOp>(op))
    return decomposeExtremeAlong<MaxOp, AmaxOp, ArgmaxOp>(max);
  return decomposeExtremeAlong<MinOp, AminOp, ArgminOp>(cast<MinOp>(op));
}

void shardc::detail::decomposeReductionForm(Operation *op) {
  if (auto lse = dyn_cast<LogsumexpOp>(op))
    return decomposeLogsumexp(lse);
  if (auto norm = dyn_cast<VectorNormOp>(op))
    return decomposeVectorNorm(norm);
  if (auto normalize = dyn_cast<NormalizeOp>(op))
    return decomposeNormalize(normalize);
  if (auto glu = dyn_cast<GluOp>(op))
    return decomposeGlu(glu);
  if (auto norm = dyn_cast<RmsNormOp>(op))
    return decomposeRmsNorm(norm);
  if (auto prod = dyn_cast<ProdOp>(op))
    return decomposeProd(prod);
  if (auto pool = dyn_cast<AdaptiveAvgPoolOp>(op))
    return decomposeAdaptivePool(op, pool.getOutputSize());
  if (auto pool = dyn_cast<AdaptiveMaxPoolOp>(op))
    return decomposeAdaptivePool(op, pool.getOutputSize());
}
