//===- MemoryPlan.cpp - Greedy-by-size arena planning ---------------------===//

#include "shardc/Compiler/MemoryPlan.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace shardc {

MemoryPlan planMemory(const std::vector<BufferLifetime> &buffers,
                      uint64_t alignment) {
  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  auto align = [&](uint64_t v) {
    return (v + alignment - 1) / alignment * alignment;
  };
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  // Largest first; ties by earlier start, then index, so plans are
  // deterministic.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].bytes != buffers[b].bytes)
      return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first < buffers[b].first;
  });
  std::vector<size_t> placed;
  for (size_t i : order) {
    const BufferLifetime &b = buffers[i];
    uint64_t size = align(b.bytes);
    // Byte ranges of already placed buffers whose lifetimes overlap b's,
    // sorted by offset; b goes into the first gap that holds it.
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    for (size_t j : placed) {
      const BufferLifetime &o = buffers[j];
      if (o.first <= b.last && b.first <= o.last && o.bytes > 0)
        busy.push_back({plan.offsets[j], plan.offsets[j] + align(o.bytes)});
    }
    std::sort(busy.begin(), busy.end());
    uint64_t offset = 0;
    for (auto [lo, hi] : busy) {
      if (offset + size <= lo)
        break;
      offset = std::max(offset, hi);
    }
    plan.offsets[i] = offset;
    plan.arenaBytes = std::max(plan.arenaBytes, offset + size);
    placed.push_back(i);
  }
  // Peak live bytes by a sweep over interval endpoints.
  std::map<int64_t, int64_t> delta;
  for (const BufferLifetime &b : buffers) {
    delta[b.first] += int64_t(b.bytes);
    delta[b.last + 1] -= int64_t(b.bytes);
  }
  int64_t live = 0;
  for (auto [at, d] : delta) {
    live += d;
    plan.peakLiveBytes = std::max(plan.peakLiveBytes, uint64_t(live));
  }
  return plan;
}

} // namespace shardc
