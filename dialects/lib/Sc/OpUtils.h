//===- OpUtils.h - helpers shared by the sc op implementations ---*- C++
//-*-===//
//
// Private to dialects/lib/Sc. Shape inference runs both from verifiers (with a
// location, so failures become located diagnostics) and from builders and
// interfaces (without one, failing silently), hence the optional locations.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECT_SC_LIB_OPUTILS_H
#define SHARDC_DIALECT_SC_LIB_OPUTILS_H

#include "shardc/Dialect/Sc/ScOps.h"

#include <optional>
#include <string>

namespace shardc::sc::detail {

using mlir::LogicalResult;
using OptLoc = std::optional<mlir::Location>;

/// Reports `'op' op <message>` at `loc` when there is one, like emitOpError.
template <typename... Args>
LogicalResult fail(OptLoc loc, llvm::StringRef opName, Args &&...args) {
  return mlir::emitOptionalError(loc, "'", opName, "' op ",
                                 std::forward<Args>(args)...);
}

/// "2x16x128" for diagnostics.
std::string shapeStr(llvm::ArrayRef<int64_t> shape);

using shardc::sc::normalizeDim;

/// numpy broadcasting of two shapes; false when they do not broadcast.
bool broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
                     llvm::SmallVectorImpl<int64_t> &result);

/// Reads an optional per-spatial-dim attribute: absent gives `count` copies of
/// `fallback`; a present one must have `count` values.
LogicalResult spatialValues(OptLoc loc, llvm::StringRef opName,
                            llvm::StringRef attrName,
                            std::optional<llvm::ArrayRef<int64_t>> attr,
                            int64_t count, int64_t fallback,
                            llvm::SmallVectorImpl<int64_t> &values);

/// Reads a padding attribute holding `count` symmetric values or `2 * count`
/// values as [lo0, hi0, lo1, hi1, ...].
LogicalResult paddingPairs(OptLoc loc, llvm::StringRef opName,
                           std::optional<llvm::ArrayRef<int64_t>> attr,
                           int64_t count, llvm::SmallVectorImpl<int64_t> &lo,
                           llvm::SmallVectorImpl<int64_t> &hi);

/// An attention's optional `scale`: any finite value, as PyTorch takes it
/// (zero gives uniform weights, a negative one favours the least similar
/// keys).
LogicalResult checkAttentionScale(OptLoc loc, llvm::StringRef opName,
                                  std::optional<llvm::APFloat> scale);

/// The ranked tensor type of `value` (all sc operands are ranked tensors once
/// ODS constraints have passed; before that, inference must not crash).
mlir::RankedTensorType tensorTypeOf(mlir::Value value);

} // namespace shardc::sc::detail

#endif // SHARDC_DIALECT_SC_LIB_OPUTILS_H
