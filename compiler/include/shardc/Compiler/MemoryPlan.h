//===- MemoryPlan.h - Static arena offsets from buffer lifetimes -*- C++
//-*-===//
//
// Plain C++ (no MLIR): given each buffer's size and live interval in program
// order, assign arena offsets so that buffers whose intervals overlap never
// share bytes. Greedy by size (largest first, lowest fitting offset), which
// is what TFLite's arena planner does and is within a few percent of the
// lower bound (the largest sum of simultaneously live buffers) on conv nets.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_COMPILER_MEMORYPLAN_H
#define SHARDC_COMPILER_MEMORYPLAN_H

#include <cstdint>
#include <vector>

namespace shardc {

struct BufferLifetime {
  uint64_t bytes = 0;
  /// Inclusive instruction indices: written at `first`, last read at `last`.
  int64_t first = 0, last = 0;
};

struct MemoryPlan {
  std::vector<uint64_t> offsets; ///< one per buffer, `alignment`-aligned
  uint64_t arenaBytes = 0;
  /// The largest sum of bytes live at one instruction (a lower bound).
  uint64_t peakLiveBytes = 0;
};

MemoryPlan planMemory(const std::vector<BufferLifetime> &buffers,
                      uint64_t alignment = 64);

} // namespace shardc

#endif // SHARDC_COMPILER_MEMORYPLAN_H
