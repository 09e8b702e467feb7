//===- MemoryPlan.h - Static arena offsets from buffer lifetimes -*- C++
//-*-===//
//
// Plain C++ (no MLIR): given each buffer's size and live interval in program
// order, assign arena offsets so that buffers whose intervals overlap never
// share bytes. Each buffer goes to the lowest offset where it fits; the
// order of placement decides how close the arena comes to the lower bound
// (the largest sum of simultaneously live buffers), so several orders are
// tried (by size as TFLite's arena planner does, by the pressure of the
// busiest instruction a buffer lives through, by lifetime) and the smallest
// arena is kept.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_COMPILER_MEMORYPLAN_H
#define SHARDC_COMPILER_MEMORYPLAN_H

#include <cstdint>
#include <string>
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

/// The arena offsets with the smallest arena that the planner finds.
MemoryPlan planMemory(const std::vector<BufferLifetime> &buffers,
                      uint64_t alignment = 64);

/// The largest sum of bytes live at one instruction.
uint64_t peakLiveBytes(const std::vector<BufferLifetime> &buffers);

/// "" when `offsets` (one per buffer) place every buffer inside an arena of
/// `arenaBytes` and no two buffers that live together share a byte; else
/// which buffers break it.
std::string checkOffsets(const std::vector<BufferLifetime> &buffers,
                         const std::vector<uint64_t> &offsets,
                         uint64_t arenaBytes);

} // namespace shardc

#endif // SHARDC_COMPILER_MEMORYPLAN_H
