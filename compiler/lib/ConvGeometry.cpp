//===- ConvGeometry.cpp - The Conv kernel attributes sc-partition writes
//---===//

#include "ConvGeometry.h"
#include "shardc/Dialect/ScLocal/ScLocal.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

std::optional<shardc::ConvGeometry> shardc::convGeometry(scl::KernelOp k) {
  ArrayRef<int64_t> ints = k.getInts();
  if (k.getOpcode() != "Conv" || k.getIns().size() < 2 ||
      k.getOuts().size() != 1 || ints.empty())
    return std::nullopt;
  ConvGeometry g;
  g.r = ints[0];
  auto w = cast<MemRefType>(k.getIns()[1].getType());
  if (g.r < 1 || int64_t(ints.size()) != 3 * g.r + 2 || w.getRank() != g.r + 2)
    return std::nullopt; // already split, or not what sc-partition writes
  g.stride.assign(ints.begin() + 1, ints.begin() + 1 + g.r);
  g.padLo.assign(ints.begin() + 1 + g.r, ints.begin() + 1 + 2 * g.r);
  g.dilation.assign(ints.begin() + 1 + 2 * g.r, ints.begin() + 1 + 3 * g.r);
  g.groups = ints[3 * g.r + 1];
  g.kernel.assign(w.getShape().begin() + 2, w.getShape().end());
  return g;
}
