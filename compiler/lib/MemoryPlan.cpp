//===- MemoryPlan.cpp - Arena offsets from buffer lifetimes ---------------===//

#include "shardc/Compiler/MemoryPlan.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

namespace shardc {

namespace {

uint64_t alignUp(uint64_t v, uint64_t alignment) {
  return (v + alignment - 1) / alignment * alignment;
}

/// The bytes a buffer takes in the arena: its size rounded up to its
/// alignment.
uint64_t footprint(uint64_t bytes, uint64_t alignment) {
  return alignUp(bytes, bufferAlignment(bytes, alignment));
}

bool together(const BufferLifetime &a, const BufferLifetime &b) {
  return a.first <= b.last && b.first <= a.last;
}

/// A placed buffer's bytes [lo, hi) in the arena.
struct Placed {
  uint64_t lo = 0, hi = 0;
  size_t index = 0;
};

/// Places the buffers in `order`, each at the lowest offset where it fits
/// beside the already placed buffers that live at the same time. Returns the
/// arena size and fills `offsets`. The placed buffers are kept sorted by
/// offset, so each placement is one scan that stops at the first gap wide
/// enough, with no per-buffer list to build and sort.
uint64_t placeInOrder(const std::vector<BufferLifetime> &buffers,
                      const std::vector<size_t> &order, uint64_t alignment,
                      std::vector<uint64_t> &offsets) {
  offsets.assign(buffers.size(), 0);
  uint64_t arena = 0;
  std::vector<Placed> byOffset;
  byOffset.reserve(buffers.size());
  for (size_t i : order) {
    const BufferLifetime &b = buffers[i];
    uint64_t own = bufferAlignment(b.bytes, alignment);
    uint64_t size = alignUp(b.bytes, own);
    // Ties in `lo` may come in any order: a buffer stops below all of them
    // or clears all of them.
    uint64_t offset = 0;
    for (const Placed &p : byOffset) {
      if (!together(buffers[p.index], b))
        continue;
      if (offset + size <= p.lo)
        break;
      offset = std::max(offset, alignUp(p.hi, own));
    }
    offsets[i] = offset;
    arena = std::max(arena, offset + size);
    if (size == 0)
      continue;
    auto at = std::upper_bound(
        byOffset.begin(), byOffset.end(), offset,
        [](uint64_t lo, const Placed &p) { return lo < p.lo; });
    byOffset.insert(at, Placed{offset, offset + size, i});
  }
  return arena;
}

/// The largest value over index ranges of a fixed array, in O(1) a query
/// after O(n log n) set-up (a sparse table).
class RangeMax {
public:
  explicit RangeMax(std::vector<uint64_t> values) {
    levels_.push_back(std::move(values));
    for (size_t span = 2; span <= levels_[0].size(); span *= 2) {
      const std::vector<uint64_t> &below = levels_.back();
      std::vector<uint64_t> level(levels_[0].size() - span + 1);
      for (size_t i = 0; i < level.size(); ++i)
        level[i] = std::max(below[i], below[i + span / 2]);
      levels_.push_back(std::move(level));
    }
  }
  /// The largest of values [begin, end); 0 for an empty range.
  uint64_t max(size_t begin, size_t end) const {
    if (begin >= end)
      return 0;
    size_t k = llvm::Log2_64(end - begin);
    return std::max(levels_[k][begin], levels_[k][end - (size_t(1) << k)]);
  }

private:
  std::vector<std::vector<uint64_t>> levels_;
};

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

/// The largest sum of aligned sizes live at one instruction: no placement
/// of the aligned buffers fits in less.
uint64_t alignedPeak(const std::vector<BufferLifetime> &buffers,
                     uint64_t alignment) {
  std::vector<BufferLifetime> aligned = buffers;
  for (BufferLifetime &b : aligned)
    b.bytes = footprint(b.bytes, alignment);
  return peakLiveBytes(aligned);
}

/// Improves `plan` by "squeaky wheel" reordering: the buffers that end above
/// the lower bound are blamed in proportion to how far above it they end,
/// move up the placement order by their blame, and the order is placed
/// again. A fixed ordering cannot see that a long-lived small buffer must go
/// first so that two short large ones can stack above it; the blame finds
/// such a buffer in a few rounds. The first round starts from the buffers
/// ordered by their offsets in `plan`, and a round's plan is kept only when
/// its arena is smaller. Deterministic: no randomness, stable sorts.
void improveBySqueakyWheel(const std::vector<BufferLifetime> &buffers,
                           uint64_t alignment, uint64_t lowerBound,
                           MemoryPlan &plan) {
  size_t n = buffers.size();
  if (n == 0 || plan.arenaBytes <= lowerBound)
    return;
  // Each round places every buffer (about n^2 steps where everything lives
  // together); cap the total work so that huge programs stay fast.
  constexpr uint64_t kWorkBudget = uint64_t(1) << 27;
  constexpr uint64_t kMaxRounds = 64;
  uint64_t rounds =
      std::min<uint64_t>(kMaxRounds, kWorkBudget / (uint64_t(n) * n + 1));
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return plan.offsets[a] < plan.offsets[b];
  });
  std::vector<uint64_t> offsets = plan.offsets;
  uint64_t arena = plan.arenaBytes;
  std::vector<double> priority(n);
  for (uint64_t round = 0; round < rounds; ++round) {
    // Rank in the current order, plus blame up to n: a buffer at the very
    // top overtakes every buffer that ends at or below the bound.
    for (size_t k = 0; k < n; ++k)
      priority[order[k]] = double(n - k);
    for (size_t i = 0; i < n; ++i) {
      uint64_t end = offsets[i] + footprint(buffers[i].bytes, alignment);
      if (end > lowerBound)
        priority[i] += double(n) * double(end - lowerBound) /
                       double(arena - lowerBound + 1);
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return priority[a] > priority[b];
    });
    arena = placeInOrder(buffers, order, alignment, offsets);
    if (arena < plan.arenaBytes) {
      plan.arenaBytes = arena;
      plan.offsets = offsets;
      if (arena <= lowerBound)
        return;
    }
  }
}

} // namespace

MemoryPlan placeFirstFit(const std::vector<BufferLifetime> &buffers,
                         const std::vector<size_t> &order, uint64_t alignment) {
  MemoryPlan plan;
  plan.arenaBytes = placeInOrder(buffers, order, alignment, plan.offsets);
  plan.peakLiveBytes = peakLiveBytes(buffers);
  return plan;
}

uint64_t bufferAlignment(uint64_t bytes, uint64_t alignment) {
  if (bytes >= alignment)
    return alignment;
  // 16 bytes from 16 up keeps the vector loads that libraries such as
  // cuDNN and cuBLAS prefer; below, the lowest set bit: the largest power
  // of two dividing the size, so a multiple of the element size.
  constexpr uint64_t kVector = 16;
  if (bytes >= kVector && alignment >= kVector)
    return kVector;
  return bytes == 0 ? 1 : bytes & (~bytes + 1);
}

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
  std::vector<int64_t> changes;
  std::vector<uint64_t> liveAt;
  for (auto [at, live] : liveBytesFrom(buffers)) {
    changes.push_back(at);
    liveAt.push_back(live);
    plan.peakLiveBytes = std::max(plan.peakLiveBytes, live);
  }
  RangeMax busiest(std::move(liveAt));
  std::vector<uint64_t> pressure(buffers.size(), 0);
  for (size_t i = 0; i < buffers.size(); ++i) {
    // Liveness changes only at the points in first..last.
    auto begin =
        std::lower_bound(changes.begin(), changes.end(), buffers[i].first);
    auto end =
        std::upper_bound(changes.begin(), changes.end(), buffers[i].last);
    pressure[i] = busiest.max(size_t(begin - changes.begin()),
                              size_t(end - changes.begin()));
  }
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
      // Where buffers of two sizes alternate (bf16 activations beside their
      // f32 casts), the orders above leave the small ones' holes unused
      // (UNet-2D in bf16: 1.27x the peak); program order within a pressure
      // packs them (1.00x).
      [&](size_t a, size_t b) {
        if (pressure[a] != pressure[b])
          return pressure[a] > pressure[b];
        if (buffers[a].first != buffers[b].first)
          return buffers[a].first < buffers[b].first;
        return buffers[a].bytes > buffers[b].bytes;
      },
  };
  uint64_t lowerBound = alignedPeak(buffers, alignment);
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
    if (plan.arenaBytes <= lowerBound)
      return plan; // cannot do better than the lower bound
  }
  improveBySqueakyWheel(buffers, alignment, lowerBound, plan);
  return plan;
}

} // namespace shardc
