//===- MemoryPlan.h - Static arena offsets from buffer lifetimes -*- C++
//-*-===//
//
// Plain C++ (no MLIR): given each buffer's size and live interval in program
// order, assign arena offsets so that buffers whose intervals overlap never
// share bytes. Each buffer goes to the lowest offset where it fits; the
// order of placement decides how close the arena comes to the lower bound
// (the largest sum of simultaneously live buffers), so several orders are
// tried (by size as TFLite's arena planner does, by the pressure of the
// busiest instruction a buffer lives through, by lifetime), the smallest
// arena is kept, and a short search reorders the buffers that end above the
// lower bound. Searching over orders loses nothing: placing the buffers of
// any plan by ascending offset, each at its lowest fit, puts every buffer at
// or below its offset in that plan.
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
  std::vector<uint64_t> offsets; ///< one per buffer, at bufferAlignment
  uint64_t arenaBytes = 0;
  /// The largest sum of bytes live at one instruction (a lower bound).
  uint64_t peakLiveBytes = 0;
};

/// The arena offsets with the smallest arena that the planner finds.
/// Buffers of `alignment` bytes or more are `alignment`-aligned.
MemoryPlan planMemory(const std::vector<BufferLifetime> &buffers,
                      uint64_t alignment = 64);

/// A buffer's alignment in the arena: `alignment` (a power of two) for one
/// of that many bytes or more, 16 bytes for one of 16 or more, else the
/// largest power of two dividing its size, which its element size divides.
/// Scalars and other small buffers then take (about) their own bytes, not
/// a cache line each (a rank with an empty shard holds little else);
/// kernels need element alignment only.
uint64_t bufferAlignment(uint64_t bytes, uint64_t alignment);

/// Places the buffers in `order` (each index once), each at the lowest
/// offset aligned to its bufferAlignment where it fits beside the buffers
/// placed before it that live at the same time.
MemoryPlan placeFirstFit(const std::vector<BufferLifetime> &buffers,
                         const std::vector<size_t> &order,
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
