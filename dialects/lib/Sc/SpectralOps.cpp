//===- SpectralOps.cpp - shape inference: fft, ifft, rfft, irfft ----------===//
//
// torch.fft's n-dimensional transforms on complex tensors written as
// torch.view_as_real writes them (a trailing dim of 2). The shape rules and
// refusals are torch.fft's; one resolver serves inference, the sharding rule
// and sc-decompose-forms, so they cannot disagree on dims or lengths.
//
//===----------------------------------------------------------------------===//

#include "OpUtils.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace shardc::sc;
using namespace shardc::sc::detail;

using Kind = SpectralTransform::Kind;

namespace {
/// A resolved transform and the complex shape of its result.
struct Resolved {
  SpectralTransform transform;
  SmallVector<int64_t> resultShape;
};
} // namespace

/// Resolves dims and lengths, failing with torch.fft's refusals.
static FailureOr<Resolved>
resolveSpectral(OptLoc loc, StringRef name, Kind kind, Type inputType,
                std::optional<ArrayRef<int64_t>> dimsAttr,
                std::optional<ArrayRef<int64_t>> sizesAttr, StringRef norm) {
  auto x = dyn_cast<RankedTensorType>(inputType);
  if (!x)
    return fail(loc, name, "needs a ranked tensor");
  Resolved r;
  r.transform.kind = kind;
  r.transform.norm = norm;
  bool complexInput = r.transform.complexInput();
  SmallVector<int64_t> shape(x.getShape());
  if (complexInput) {
    if (shape.size() < 2 || shape.back() != 2)
      return fail(loc, name,
                  "needs a complex tensor as torch.view_as_real writes it: "
                  "at least 2 dims, the last of size 2 (got ",
                  shapeStr(shape), ")");
    shape.pop_back();
  } else if (shape.empty()) {
    return fail(loc, name, "needs a tensor of at least 1 dim");
  }
  int64_t rank = shape.size();
  SmallVector<int64_t> listed =
      dimsAttr ? SmallVector<int64_t>(*dimsAttr) : SmallVector<int64_t>{-1};
  if (listed.empty())
    return fail(loc, name, "needs at least one dim to transform");
  if (sizesAttr && sizesAttr->size() != listed.size())
    return fail(loc, name, "sizes has ", sizesAttr->size(),
                " values but there are ", listed.size(),
                " dims to transform; give one per dim");
  llvm::SmallBitVector seen(rank);
  for (auto [i, dim] : llvm::enumerate(listed)) {
    std::optional<int64_t> d = normalizeDim(dim, rank);
    if (!d)
      return fail(loc, name, "dim ", dim, " is out of range for ",
                  complexInput ? "the complex tensor's " : "", "rank ", rank);
    if (seen.test(*d))
      return fail(loc, name, "dim ", *d, " is listed twice");
    seen.set(*d);
    bool halved = i + 1 == listed.size() && kind == Kind::RealInverse;
    int64_t n = sizesAttr ? (*sizesAttr)[i]
                : halved  ? 2 * (shape[*d] - 1)
                          : shape[*d];
    if (n < 1 || n > (int64_t(1) << 30))
      return fail(loc, name, "dim ", *d, " would transform ", n,
                  " points; each length must be 1 to 2^30",
                  sizesAttr ? "" : " (give sizes)");
    r.transform.dims.push_back(*d);
    r.transform.lengths.push_back(n);
  }
  r.resultShape = shape;
  for (auto [i, d] : llvm::enumerate(r.transform.dims)) {
    int64_t n = r.transform.lengths[i];
    bool last = i + 1 == listed.size();
    r.resultShape[d] = last && kind == Kind::RealForward ? n / 2 + 1 : n;
  }
  return r;
}

template <typename Adaptor>
static LogicalResult inferSpectral(OptLoc loc, StringRef name, Kind kind,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &types) {
  FailureOr<Resolved> r =
      resolveSpectral(loc, name, kind, adaptor.getInput().getType(),
                      adaptor.getDims(), adaptor.getSizes(), adaptor.getNorm());
  if (failed(r))
    return failure();
  if (r->transform.complexResult())
    r->resultShape.push_back(2);
  auto element =
      cast<RankedTensorType>(adaptor.getInput().getType()).getElementType();
  types.push_back(RankedTensorType::get(r->resultShape, element));
  return success();
}

#define SC_SPECTRAL_INFER(OP, KIND)                                            \
  LogicalResult OP::inferReturnTypes(MLIRContext *, OptLoc loc,                \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    return inferSpectral(loc, getOperationName(), KIND, adaptor, types);       \
  }
SC_SPECTRAL_INFER(FftOp, Kind::Forward)
SC_SPECTRAL_INFER(IfftOp, Kind::Inverse)
SC_SPECTRAL_INFER(RfftOp, Kind::RealForward)
SC_SPECTRAL_INFER(IrfftOp, Kind::RealInverse)
#undef SC_SPECTRAL_INFER

template <typename OpT>
static std::optional<SpectralTransform> transformOf(OpT op, Kind kind) {
  FailureOr<Resolved> r =
      resolveSpectral(std::nullopt, "", kind, op.getInput().getType(),
                      op.getDims(), op.getSizes(), op.getNorm());
  if (failed(r))
    return std::nullopt;
  return r->transform;
}

std::optional<SpectralTransform>
shardc::sc::getSpectralTransform(Operation *op) {
  if (auto fft = dyn_cast<FftOp>(op))
    return transformOf(fft, Kind::Forward);
  if (auto ifft = dyn_cast<IfftOp>(op))
    return transformOf(ifft, Kind::Inverse);
  if (auto rfft = dyn_cast<RfftOp>(op))
    return transformOf(rfft, Kind::RealForward);
  if (auto irfft = dyn_cast<IrfftOp>(op))
    return transformOf(irfft, Kind::RealInverse);
  return std::nullopt;
}
