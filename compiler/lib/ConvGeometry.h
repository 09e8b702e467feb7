//===- ConvGeometry.h - The Conv kernel attributes sc-partition writes
//-----===//
//
// Shared by the passes that reshape convolutions after partitioning
// (sc-overlap-halos splits their output, sc-deepen-halos grows it).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_COMPILER_CONVGEOMETRY_H
#define SHARDC_COMPILER_CONVGEOMETRY_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace shardc {
namespace scl {
class KernelOp;
}

/// A `Conv` kernel's ints (r, stride, pad_lo, dilation, groups, per spatial
/// dim where it applies) and its weight's kernel extents.
struct ConvGeometry {
  int64_t r = 0, groups = 1;
  llvm::SmallVector<int64_t> stride, padLo, dilation, kernel;
};

/// The geometry of a whole-output `Conv` as sc-partition writes it; none for
/// other kernels and for a conv already split into output regions.
std::optional<ConvGeometry> convGeometry(scl::KernelOp k);

} // namespace shardc

#endif // SHARDC_COMPILER_CONVGEOMETRY_H
