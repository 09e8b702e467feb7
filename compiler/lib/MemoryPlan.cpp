//===- MemoryPlan.cpp - Arena offsets from buffer lifetimes ---------------===//

#include "shardc/Compiler/MemoryPlan.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

namespace shardc {

namespace {

uint64_t alignUp(uint64_t v, uint64_t alignment) {
  return (v + alignment - 1) / alignment * alignment;
}

bool together(const BufferLifetime &a, const BufferLifetime &b) {
  return a.first <= b.last && b.first <= a.last;
}

/// Places the buffers in `order`, each at the lowest offset where it fits
/// beside the already placed buffers that live at the same time. Returns the
/// arena size and fills `offsets`.
uint64_t placeInOrder(const std::vector<BufferLifetime> &buffers,
                      const std::vector<size_t> &order, uint64_t alignment,
                      std::vector<uint64_t> &offsets) {
  offsets.assign(buffers.size(), 0);
  uint64_t arena = 0;
  std::vector<size_t> placed;
  std::vector<std::pair<uint64_t, uint64_t>> busy;
  for (size_t i : order) {
    const BufferLifetime &b = buffers[i];
    uint64_t size = alignUp(b.bytes, alignment);
    busy.clear();
    for (size_t j : placed)
      if (together(buffers[j], b))
        busy.push_back(
            {offsets[j], offsets[j] + alignUp(buffers[j].bytes, alignment)});
    std::sort(busy.begin(), busy.end());
    uint64_t offset = 0;
    for (auto [lo, hi] : busy) {
      if (offset + size <= lo)
        break;
      offset = std::max(offset, hi);
    }
    offsets[i] = offset;
    arena = std::max(arena, offset + size);
    if (size > 0)
      placed.push_back(i);
  }
  return arena;
}

/// The bytes live from each instruction at which liveness changes on.
std::map<int64_t, uint64_t>
liveBytesFrom(const std::vector<BufferLifetime> &buffers) {
  std::map<int64_t, int64_t> delta;
  for (const BufferLifetime &b : buffers) {
    delta[b.first] += int64_t(b.bytes);
    delta[b.last + 1] -= int64_t(b.bytes);
  }
  std::map<int64_t, uint64_t> liveFrom;
  int64_t live = 0;
  for (auto [at, d] : delta) {
    live += d;
    liveFrom[at] = uint64_t(live);
  }
  return liveFrom;
}

} // namespace

uint64_t peakLiveBytes(const std::vector<BufferLifetime> &buffers) {
  uint64_t peak = 0;
  for (auto [at, live] : liveBytesFrom(buffers))
    peak = std::max(peak, live);
  return peak;
}

std::string checkOffsets(const std::vector<BufferLifetime> &buffers,
                         const std::vector<uint64_t> &offsets,
                         uint64_t arenaBytes) {
  if (offsets.size() != buffers.size())
    return std::to_string(offsets.size()) + " offsets for " +
           std::to_string(buffers.size()) + " buffers";
  // Sweep in start order, keeping the buffers still live.
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return buffers[a].first < buffers[b].first;
  });
  std::vector<size_t> live;
  for (size_t i : order) {
    const BufferLifetime &b = buffers[i];
    if (b.bytes == 0)
      continue;
    if (offsets[i] + b.bytes > arenaBytes || offsets[i] + b.bytes < offsets[i])
      return "buffer " + std::to_string(i) + " ends past the arena";
    live.erase(
        std::remove_if(live.begin(), live.end(),
                       [&](size_t j) { return buffers[j].last < b.first; }),
        live.end());
    for (size_t j : live)
      if (offsets[i] < offsets[j] + buffers[j].bytes &&
          offsets[j] < offsets[i] + b.bytes)
        return "buffers " + std::to_string(j) + " and " + std::to_string(i) +
               " live together and share bytes";
    live.push_back(i);
  }
  return "";
}

MemoryPlan planMemory(const std::vector<BufferLifetime> &buffers,
                      uint64_t alignment) {
  MemoryPlan plan;
  // Bytes live at each instruction, by a sweep over interval endpoints; a
  // buffer's pressure is the most that is live at once during its lifetime.
  std::map<int64_t, uint64_t> liveFrom = liveBytesFrom(buffers);
  for (auto [at, live] : liveFrom)
    plan.peakLiveBytes = std::max(plan.peakLiveBytes, live);
  std::vector<uint64_t> pressure(buffers.size(), 0);
  for (size_t i = 0; i < buffers.size(); ++i)
    for (auto it = liveFrom.lower_bound(buffers[i].first);
         it != liveFrom.end() && it->first <= buffers[i].last; ++it)
      pressure[i] = std::max(pressure[i], it->second);
  // Each ordering below is optimal on some programs and poor on others
  // (greedy by size strands a long-lived small buffer above short large
  // ones; pressure first stacks the heaviest clique exactly), so the
  // planner tries them all and keeps the smallest arena. Ties keep the
  // earlier ordering, and every sort is stable over indices: plans are
  // deterministic.
  auto length = [&](size_t i) { return buffers[i].last - buffers[i].first; };
  using Before = std::function<bool(size_t, size_t)>;
  auto bySize = [&](size_t a, size_t b) {
    if (buffers[a].bytes != buffers[b].bytes)
      return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first < buffers[b].first;
  };
  std::vector<Before> orderings = {
      bySize,
      [&](size_t a, size_t b) {
        if (pressure[a] != pressure[b])
          return pressure[a] > pressure[b];
        return bySize(a, b);
      },
      [&](size_t a, size_t b) {
        if (pressure[a] != pressure[b])
          return pressure[a] > pressure[b];
        if (length(a) != length(b))
          return length(a) > length(b);
        return buffers[a].bytes > buffers[b].bytes;
      },
      [&](size_t a, size_t b) {
        if (length(a) != length(b))
          return length(a) > length(b);
        return buffers[a].bytes > buffers[b].bytes;
      },
  };
  std::vector<size_t> order(buffers.size());
  std::vector<uint64_t> offsets;
  bool first = true;
  for (const Before &before : orderings) {
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), before);
    uint64_t arena = placeInOrder(buffers, order, alignment, offsets);
    if (first || arena < plan.arenaBytes) {
      plan.arenaBytes = arena;
      plan.offsets = offsets;
      first = false;
    }
    if (plan.arenaBytes <= alignUp(plan.peakLiveBytes, alignment))
      break; // cannot do better than the lower bound
  }
  return plan;
}

} // namespace shardc
