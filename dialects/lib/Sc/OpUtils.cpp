//===- OpUtils.cpp - helpers shared by the sc op implementations ----------===//

#include "OpUtils.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

std::optional<int64_t> shardc::sc::normalizeDim(int64_t dim, int64_t rank) {
  if (dim < -rank || dim >= rank)
    return std::nullopt;
  return dim < 0 ? dim + rank : dim;
}

namespace shardc::sc::detail {

std::string shapeStr(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  return llvm::join(
      llvm::map_range(shape, [](int64_t d) { return std::to_string(d); }), "x");
}

bool broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                     SmallVectorImpl<int64_t> &result) {
  size_t rank = std::max(a.size(), b.size());
  result.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return false;
    result[i] = da == 1 ? db : da;
  }
  return true;
}

LogicalResult spatialValues(OptLoc loc, StringRef opName, StringRef attrName,
                            std::optional<ArrayRef<int64_t>> attr,
                            int64_t count, int64_t fallback,
                            SmallVectorImpl<int64_t> &values) {
  if (!attr) {
    values.assign(count, fallback);
    return success();
  }
  if (static_cast<int64_t>(attr->size()) != count)
    return fail(loc, opName, "'", attrName, "' needs ", count, " values, got ",
                attr->size());
  values.assign(attr->begin(), attr->end());
  return success();
}

LogicalResult paddingPairs(OptLoc loc, StringRef opName,
                           std::optional<ArrayRef<int64_t>> attr, int64_t count,
                           SmallVectorImpl<int64_t> &lo,
                           SmallVectorImpl<int64_t> &hi) {
  lo.assign(count, 0);
  hi.assign(count, 0);
  if (!attr)
    return success();
  int64_t size = attr->size();
  if (size != count && size != 2 * count)
    return fail(loc, opName, "'padding' needs ", count, " (symmetric) or ",
                2 * count, " ([lo, hi] per spatial dim) values, got ", size);
  for (int64_t i = 0; i < count; ++i) {
    lo[i] = size == count ? (*attr)[i] : (*attr)[2 * i];
    hi[i] = size == count ? (*attr)[i] : (*attr)[2 * i + 1];
    if (lo[i] < 0 || hi[i] < 0)
      return fail(loc, opName, "negative padding ", std::min(lo[i], hi[i]),
                  " on spatial dim ", i);
  }
  return success();
}

LogicalResult checkAttentionScale(OptLoc loc, StringRef opName,
                                  std::optional<APFloat> scale) {
  if (scale && !scale->isFinite())
    return fail(loc, opName, "scale must be finite");
  return success();
}

RankedTensorType tensorTypeOf(Value value) {
  return value ? dyn_cast<RankedTensorType>(value.getType())
               : RankedTensorType();
}

} // namespace shardc::sc::detail
