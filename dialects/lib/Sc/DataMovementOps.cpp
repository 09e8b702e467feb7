//===- DataMovementOps.cpp - shape inference: concat, slice, reshape, ... -===//

#include "OpUtils.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace shardc::sc;
using namespace shardc::sc::detail;

/// Element count, or nullopt when it overflows int64.
static std::optional<int64_t> numElements(ArrayRef<int64_t> shape) {
  if (llvm::is_contained(shape, 0))
    return 0;
  int64_t n = 1;
  for (int64_t d : shape)
    if (llvm::MulOverflow(n, d, n))
      return std::nullopt;
  return n;
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return fail(loc, name, "needs at least one input");
  RankedTensorType first = tensorTypeOf(inputs.front());
  if (!first)
    return fail(loc, name, "needs ranked tensor inputs");
  std::optional<int64_t> dim = normalizeDim(adaptor.getDim(), first.getRank());
  if (!dim)
    return fail(loc, name, "dim ", static_cast<int64_t>(adaptor.getDim()),
                " is out of range for rank ", first.getRank());
  SmallVector<int64_t> shape(first.getShape());
  shape[*dim] = 0;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    RankedTensorType t = tensorTypeOf(input);
    if (!t || t.getRank() != first.getRank() ||
        t.getElementType() != first.getElementType())
      return fail(loc, name, "input #", i, " must have rank ", first.getRank(),
                  " and element type ", first.getElementType());
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != *dim && t.getDimSize(d) != first.getDimSize(d))
        return fail(loc, name, "input #", i, " has shape ",
                    shapeStr(t.getShape()), " but input #0 has ",
                    shapeStr(first.getShape()), "; only dim ", *dim,
                    " may differ");
    shape[*dim] += t.getDimSize(*dim);
  }
  types.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  if (!x)
    return fail(loc, name, "needs a ranked tensor");
  int64_t rank = x.getRank();
  ArrayRef<int64_t> start = adaptor.getStart(), end = adaptor.getEnd();
  SmallVector<int64_t> step;
  if (failed(
          spatialValues(loc, name, "step", adaptor.getStep(), rank, 1, step)))
    return failure();
  if (static_cast<int64_t>(start.size()) != rank ||
      static_cast<int64_t>(end.size()) != rank)
    return fail(loc, name, "start and end need one value per dim (", rank, ")");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (step[d] < 1)
      return fail(loc, name, "step ", step[d], " on dim ", d, " must be >= 1");
    if (start[d] < 0 || start[d] > end[d] || end[d] > x.getDimSize(d))
      return fail(
          loc, name, "slice [", start[d], ", ", end[d], ") of dim ", d,
          " is out of range: needs 0 <= start <= end <= ", x.getDimSize(d),
          " (write the bounds PyTorch resolves: negative ones "
          "counted from the end, past-the-end ones clamped, an empty "
          "slice as start == end)");
    int64_t length = end[d] - start[d];
    shape.push_back(length == 0 ? 0 : (length - 1) / step[d] + 1);
  }
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult ReshapeOp::verify() {
  ArrayRef<int64_t> in = getInput().getType().getShape();
  ArrayRef<int64_t> out = getResult().getType().getShape();
  // BytesFitInt64 verifies both types first, so neither count overflows;
  // should a caller verify the op alone, it still gets a diagnostic.
  std::optional<int64_t> nIn = numElements(in), nOut = numElements(out);
  if (!nIn || !nOut)
    return emitOpError("has more elements than int64 counts");
  if (*nIn != *nOut)
    return emitOpError("cannot reshape ")
           << shapeStr(in) << " (" << *nIn << " elements) to " << shapeStr(out)
           << " (" << *nOut << " elements)";
  if (getInput().getType().getElementType() !=
      getResult().getType().getElementType())
    return emitOpError("must keep the element type");
  return success();
}

/// F.pixel_shuffle's and F.pixel_unshuffle's shape rules and refusals.
template <typename Adaptor>
static LogicalResult inferPixelShuffle(OptLoc loc, StringRef name,
                                       Adaptor adaptor, bool shuffle,
                                       SmallVectorImpl<Type> &types) {
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  if (!x || x.getRank() < 3)
    return fail(loc, name, "needs an input of at least 3 dims (*, C, H, W)");
  int64_t r = adaptor.getFactor(), square;
  if (r < 1 || llvm::MulOverflow(r, r, square))
    return fail(loc, name,
                "factor must be positive and its square fit int64 "
                "(got ",
                r, ")");
  SmallVector<int64_t> shape(x.getShape());
  int64_t &c = shape[shape.size() - 3], &h = shape[shape.size() - 2],
          &w = shape.back();
  if (shuffle) {
    if (c % square != 0)
      return fail(loc, name, "channels (", c,
                  ") must be divisible by the factor's square (", square, ")");
    c /= square;
    if (llvm::MulOverflow(h, r, h) || llvm::MulOverflow(w, r, w))
      return fail(loc, name, "result extents overflow int64");
  } else {
    if (h % r != 0 || w % r != 0)
      return fail(loc, name, "height (", h, ") and width (", w,
                  ") must be divisible by the factor (", r, ")");
    h /= r;
    w /= r;
    if (llvm::MulOverflow(c, square, c))
      return fail(loc, name, "result extents overflow int64");
  }
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult PixelShuffleOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  return inferPixelShuffle(loc, getOperationName(), adaptor, true, types);
}

LogicalResult PixelUnshuffleOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  return inferPixelShuffle(loc, getOperationName(), adaptor, false, types);
}

LogicalResult PermuteOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  if (!x)
    return fail(loc, name, "needs a ranked tensor");
  ArrayRef<int64_t> dims = adaptor.getDims();
  int64_t rank = x.getRank();
  llvm::SmallBitVector seen(rank);
  SmallVector<int64_t> shape;
  if (static_cast<int64_t>(dims.size()) != rank)
    return fail(loc, name, "dims must be a permutation of the ", rank, " dims");
  for (int64_t dim : dims) {
    std::optional<int64_t> d = normalizeDim(dim, rank);
    if (!d || seen.test(*d))
      return fail(
          loc, name, "dims [",
          llvm::join(llvm::map_range(
                         dims, [](int64_t v) { return std::to_string(v); }),
                     ", "),
          "] is not a permutation of the ", rank, " dims");
    seen.set(*d);
    shape.push_back(x.getDimSize(*d));
  }
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  if (!x)
    return fail(loc, name, "needs a ranked tensor");
  std::optional<int64_t> d0 = normalizeDim(adaptor.getDim0(), x.getRank());
  std::optional<int64_t> d1 = normalizeDim(adaptor.getDim1(), x.getRank());
  if (!d0 || !d1)
    return fail(loc, name, "dims ", static_cast<int64_t>(adaptor.getDim0()),
                " and ", static_cast<int64_t>(adaptor.getDim1()),
                " must be in range for rank ", x.getRank());
  SmallVector<int64_t> shape(x.getShape());
  std::swap(shape[*d0], shape[*d1]);
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult BroadcastToOp::verify() {
  ArrayRef<int64_t> in = getInput().getType().getShape();
  ArrayRef<int64_t> out = getResult().getType().getShape();
  SmallVector<int64_t> result;
  if (in.size() > out.size() || !broadcastShapes(in, out, result) ||
      ArrayRef<int64_t>(result) != out)
    return emitOpError("cannot broadcast ")
           << shapeStr(in) << " to " << shapeStr(out);
  if (getInput().getType().getElementType() !=
      getResult().getType().getElementType())
    return emitOpError("must keep the element type");
  return success();
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  if (!x)
    return fail(loc, name, "needs a ranked tensor");
  // As torch.unsqueeze: the dim indexes the result, so rank + 1 positions.
  std::optional<int64_t> dim = normalizeDim(adaptor.getDim(), x.getRank() + 1);
  if (!dim)
    return fail(loc, name, "dim ", static_cast<int64_t>(adaptor.getDim()),
                " is out of range for rank ", x.getRank());
  SmallVector<int64_t> shape(x.getShape());
  shape.insert(shape.begin() + *dim, 1);
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  if (!x)
    return fail(loc, name, "needs a ranked tensor");
  int64_t rank = x.getRank();
  llvm::SmallBitVector listed(rank, !adaptor.getDims().has_value());
  if (auto dims = adaptor.getDims()) {
    for (int64_t dim : *dims) {
      std::optional<int64_t> d = normalizeDim(dim, rank);
      if (!d)
        return fail(loc, name, "dim ", dim, " is out of range for rank ", rank);
      // As torch.squeeze, which refuses a dim that appears twice.
      if (listed.test(*d))
        return fail(loc, name, "dim ", dim, " is listed twice");
      listed.set(*d);
    }
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d)
    if (!(listed.test(d) && x.getDimSize(d) == 1))
      shape.push_back(x.getDimSize(d));
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}
