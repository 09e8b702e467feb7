//===- MemoryPlanTest.cpp - The arena planner against brute force ---------===//

#include "shardc/Compiler/MemoryPlan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>

using namespace shardc;

namespace {

/// Checks the plan's invariants directly: alignment, buffers inside the
/// arena, no two buffers with overlapping lifetimes sharing a byte, and the
/// lower bound recomputed by brute force over every instruction.
void expectValid(const std::vector<BufferLifetime> &buffers,
                 const MemoryPlan &plan, uint64_t alignment) {
  ASSERT_EQ(plan.offsets.size(), buffers.size());
  int64_t end = 0;
  for (const BufferLifetime &b : buffers)
    end = std::max(end, b.last);
  uint64_t peak = 0;
  for (int64_t t = -1; t <= end; ++t) {
    uint64_t live = 0;
    for (const BufferLifetime &b : buffers)
      if (b.first <= t && t <= b.last)
        live += b.bytes;
    peak = std::max(peak, live);
  }
  EXPECT_EQ(plan.peakLiveBytes, peak);
  EXPECT_EQ(peakLiveBytes(buffers), peak);
  EXPECT_EQ(checkOffsets(buffers, plan.offsets, plan.arenaBytes), "");
  EXPECT_GE(plan.arenaBytes, peak);
  for (size_t i = 0; i < buffers.size(); ++i) {
    // Whole `alignment` from that many bytes up, then 16 from 16 bytes up;
    // a smaller buffer to the largest power of two that divides its size.
    uint64_t own = alignment;
    if (buffers[i].bytes < alignment && buffers[i].bytes >= 16 &&
        alignment >= 16) {
      own = 16;
    } else if (buffers[i].bytes < alignment) {
      own = 1;
      while (buffers[i].bytes % (own * 2) == 0 && own * 2 <= buffers[i].bytes)
        own *= 2;
    }
    EXPECT_EQ(bufferAlignment(buffers[i].bytes, alignment), own);
    EXPECT_EQ(plan.offsets[i] % own, 0u) << "buffer " << i;
    EXPECT_LE(plan.offsets[i] + buffers[i].bytes, plan.arenaBytes);
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const BufferLifetime &a = buffers[i], &b = buffers[j];
      bool together = a.first <= b.last && b.first <= a.last;
      bool overlap = a.bytes && b.bytes &&
                     plan.offsets[i] < plan.offsets[j] + b.bytes &&
                     plan.offsets[j] < plan.offsets[i] + a.bytes;
      EXPECT_FALSE(together && overlap) << "buffers " << i << " and " << j;
    }
  }
}

/// First fit written the plain way, as a reference for the fast one: each
/// placement collects the live placed buffers and sorts them by offset.
/// Returns the arena size and fills `offsets`.
uint64_t plainFirstFit(const std::vector<BufferLifetime> &buffers,
                       const std::vector<size_t> &order, uint64_t alignment,
                       std::vector<uint64_t> &offsets) {
  auto roundUp = [](uint64_t v, uint64_t to) { return (v + to - 1) / to * to; };
  auto ownAlignment = [&](size_t i) {
    return bufferAlignment(buffers[i].bytes, alignment);
  };
  auto size = [&](size_t i) {
    return roundUp(buffers[i].bytes, ownAlignment(i));
  };
  auto together = [&](size_t a, size_t b) {
    return buffers[a].first <= buffers[b].last &&
           buffers[b].first <= buffers[a].last;
  };
  offsets.assign(buffers.size(), 0);
  std::vector<size_t> placed;
  uint64_t arena = 0;
  for (size_t i : order) {
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    for (size_t j : placed)
      if (together(i, j))
        busy.push_back({offsets[j], offsets[j] + size(j)});
    std::sort(busy.begin(), busy.end());
    uint64_t offset = 0;
    for (auto [from, to] : busy) {
      if (offset + size(i) <= from)
        break;
      offset = std::max(offset, roundUp(to, ownAlignment(i)));
    }
    offsets[i] = offset;
    arena = std::max(arena, offset + size(i));
    if (size(i) > 0)
      placed.push_back(i);
  }
  return arena;
}

/// The planner's fixed orderings written the plain way: pressure by visiting
/// every instruction of a lifetime. The planner's search starts from the
/// best of these, so its arena is never larger.
MemoryPlan plainPlan(const std::vector<BufferLifetime> &buffers,
                     uint64_t alignment) {
  auto align = [&](uint64_t v) {
    return (v + alignment - 1) / alignment * alignment;
  };
  size_t n = buffers.size();
  int64_t lo = 0, hi = -1;
  for (const BufferLifetime &b : buffers) {
    lo = std::min(lo, b.first);
    hi = std::max(hi, b.last);
  }
  std::vector<uint64_t> liveAt(size_t(hi - lo + 1), 0);
  for (const BufferLifetime &b : buffers)
    for (int64_t t = b.first; t <= b.last; ++t)
      liveAt[size_t(t - lo)] += b.bytes;
  MemoryPlan plan;
  for (uint64_t live : liveAt)
    plan.peakLiveBytes = std::max(plan.peakLiveBytes, live);
  std::vector<uint64_t> pressure(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (int64_t t = buffers[i].first; t <= buffers[i].last; ++t)
      pressure[i] = std::max(pressure[i], liveAt[size_t(t - lo)]);
  auto length = [&](size_t i) { return buffers[i].last - buffers[i].first; };
  auto bySize = [&](size_t a, size_t b) {
    if (buffers[a].bytes != buffers[b].bytes)
      return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first < buffers[b].first;
  };
  std::vector<std::function<bool(size_t, size_t)>> orderings = {
      bySize,
      [&](size_t a, size_t b) {
        return pressure[a] != pressure[b] ? pressure[a] > pressure[b]
                                          : bySize(a, b);
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
      [&](size_t a, size_t b) {
        if (pressure[a] != pressure[b])
          return pressure[a] > pressure[b];
        if (buffers[a].first != buffers[b].first)
          return buffers[a].first < buffers[b].first;
        return buffers[a].bytes > buffers[b].bytes;
      },
  };
  bool first = true;
  for (auto &before : orderings) {
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(), before);
    std::vector<uint64_t> offsets;
    uint64_t arena = plainFirstFit(buffers, order, alignment, offsets);
    if (first || arena < plan.arenaBytes) {
      plan.arenaBytes = arena;
      plan.offsets = offsets;
      first = false;
    }
    if (plan.arenaBytes <= align(plan.peakLiveBytes))
      break;
  }
  return plan;
}

TEST(MemoryPlan, ReusesDeadBuffers) {
  // A chain a -> b -> c: a and c never live together, so they share bytes.
  std::vector<BufferLifetime> chain = {
      {1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}};
  MemoryPlan plan = planMemory(chain);
  expectValid(chain, plan, 64);
  EXPECT_EQ(plan.offsets[0], plan.offsets[2]);
  EXPECT_EQ(plan.arenaBytes, 2 * 1024u);
}

TEST(MemoryPlan, StacksTheHeaviestCliqueFirst) {
  // Greedy by size alone puts the two 5-byte buffers one above the other,
  // the 4-byte one at 0, and strands the 3-byte one at 10: 13 bytes for a
  // peak of 12 (buffers 1, 2 and 3 at instruction 4). Placing the buffers
  // of the heaviest instant first stacks them exactly.
  std::vector<BufferLifetime> buffers = {
      {5, 3, 3}, {3, 4, 6}, {5, 3, 4}, {4, 4, 4}};
  MemoryPlan plan = planMemory(buffers, 1);
  expectValid(buffers, plan, 1);
  EXPECT_EQ(plan.peakLiveBytes, 12u);
  EXPECT_EQ(plan.arenaBytes, 12u);
}

TEST(MemoryPlan, TinyBuffersTakeTheirOwnBytes) {
  // A rank with an empty shard holds a few scalars, a 48-byte block and an
  // index: each aligned to the largest power of two dividing its size (16
  // from 16 bytes up), not a 64-byte line each (which was 384 bytes for 80
  // live, 4.8x). The 36-byte buffer takes 48.
  std::vector<BufferLifetime> buffers = {{4, 0, 5},  {4, 1, 5},  {4, 2, 5},
                                         {8, 3, 5},  {12, 4, 5}, {48, 4, 5},
                                         {64, 5, 5}, {8, 6, 7},  {36, 6, 7}};
  MemoryPlan plan = planMemory(buffers);
  expectValid(buffers, plan, 64);
  EXPECT_EQ(plan.peakLiveBytes, 144u);
  EXPECT_EQ(plan.arenaBytes, 144u);
  EXPECT_EQ(plan.offsets[8] % 16, 0u);
  EXPECT_EQ(plan.offsets[6] % 64, 0u);
  EXPECT_EQ(plan.offsets[5] % 16, 0u);
}

TEST(MemoryPlan, CheckOffsetsFindsSharedBytes) {
  std::vector<BufferLifetime> buffers = {{100, 0, 2}, {100, 2, 3}, {50, 3, 4}};
  // Buffer 2 may reuse buffer 0's bytes (they never live together).
  EXPECT_EQ(checkOffsets(buffers, {0, 100, 0}, 200), "");
  EXPECT_EQ(checkOffsets(buffers, {0, 50, 150}, 200),
            "buffers 0 and 1 live together and share bytes");
  EXPECT_EQ(checkOffsets(buffers, {0, 100, 160}, 200),
            "buffer 2 ends past the arena");
  EXPECT_EQ(checkOffsets(buffers, {0, 100}, 200), "2 offsets for 3 buffers");
}

TEST(MemoryPlan, EmptyAndZeroSized) {
  EXPECT_EQ(planMemory({}).arenaBytes, 0u);
  std::vector<BufferLifetime> zeros = {{0, 0, 5}, {0, 1, 2}};
  expectValid(zeros, planMemory(zeros), 64);
}

TEST(MemoryPlan, RandomLifetimes) {
  std::mt19937 rng(1234);
  double worst = 1.0, sum = 0;
  int counted = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    int n = 1 + int(rng() % 24);
    int len = 1 + int(rng() % 30);
    std::vector<BufferLifetime> buffers;
    for (int i = 0; i < n; ++i) {
      int64_t a = int64_t(rng() % len) - 1, b = int64_t(rng() % len);
      uint64_t bytes = (rng() % 4 == 0) ? 0 : 1 + rng() % 5000;
      buffers.push_back({bytes, std::min(a, b), std::max(a, b)});
    }
    uint64_t alignment = trial % 2 ? 64 : 1;
    MemoryPlan plan = planMemory(buffers, alignment);
    expectValid(buffers, plan, alignment);
    if (plan.peakLiveBytes > 0 && alignment == 1) {
      double ratio = double(plan.arenaBytes) / plan.peakLiveBytes;
      worst = std::max(worst, ratio);
      sum += ratio;
      ++counted;
    }
  }
  // No ordering is optimal on every interval set, but the best of them,
  // improved by the search, stays close to the lower bound on random ones
  // (the fixed orderings alone: worst 1.219, mean 1.0019).
  EXPECT_LT(worst, 1.1);
  EXPECT_LT(sum / counted, 1.001);
  std::printf("worst %.4f mean %.4f\n", worst, sum / counted);
}

TEST(MemoryPlan, FirstFitMatchesThePlainPlacement) {
  // Long-lived buffers (a model's inputs) beside many short ones, as in a
  // deep chain, and sizes with many ties: every offset must match.
  std::mt19937 rng(99);
  for (int trial = 0; trial < 300; ++trial) {
    int n = 1 + int(rng() % 200);
    int len = 1 + int(rng() % 400);
    std::vector<BufferLifetime> buffers;
    for (int i = 0; i < n; ++i) {
      int64_t a = int64_t(rng() % len) - 1;
      int64_t b = rng() % 5 == 0 ? len : a + int64_t(rng() % 8);
      // Whole lines, and small sizes whose alignments differ (1 to 32).
      static const uint64_t kSmall[] = {1, 4, 6, 12, 20, 48};
      uint64_t bytes = (rng() % 6 == 0)   ? 0
                       : (rng() % 3 == 0) ? kSmall[rng() % 6]
                                          : 64 * (1 + rng() % 8);
      buffers.push_back({bytes, a, b});
    }
    uint64_t alignment = trial % 3 ? 64 : 1;
    std::vector<size_t> order(buffers.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    MemoryPlan fast = placeFirstFit(buffers, order, alignment);
    std::vector<uint64_t> plainOffsets;
    uint64_t plainArena =
        plainFirstFit(buffers, order, alignment, plainOffsets);
    ASSERT_EQ(fast.offsets, plainOffsets) << "trial " << trial;
    EXPECT_EQ(fast.arenaBytes, plainArena);
    expectValid(buffers, fast, alignment);

    // The planner keeps the best fixed ordering or finds better.
    MemoryPlan plan = planMemory(buffers, alignment);
    MemoryPlan plain = plainPlan(buffers, alignment);
    EXPECT_LE(plan.arenaBytes, plain.arenaBytes) << "trial " << trial;
    EXPECT_EQ(plan.peakLiveBytes, plain.peakLiveBytes);
    expectValid(buffers, plan, alignment);
  }
}

/// The smallest arena over every placement order: the optimum, because
/// placing any plan's buffers by ascending offset at their lowest fit puts
/// each at or below its offset in that plan.
uint64_t bestOverEveryOrder(const std::vector<BufferLifetime> &buffers,
                            uint64_t alignment) {
  std::vector<size_t> order(buffers.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  uint64_t best = UINT64_MAX;
  std::vector<uint64_t> offsets;
  do
    best = std::min(best, plainFirstFit(buffers, order, alignment, offsets));
  while (std::next_permutation(order.begin(), order.end()));
  return best;
}

TEST(MemoryPlan, OptimalOnSmallProgramsAgainstEveryOrder) {
  // Mixed 2- and 4-byte element sizes, as in bf16 models beside their f32
  // casts. Without the search, some of them plan above the optimum (in an
  // earlier sample, 7 of 3000, by up to 1.13x).
  std::mt19937 rng(7);
  int missedByFixedOrders = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    int n = 3 + int(rng() % 5);
    int len = 2 + int(rng() % 10);
    std::vector<BufferLifetime> buffers;
    for (int i = 0; i < n; ++i) {
      int64_t a = rng() % len, b = rng() % len;
      uint64_t bytes = (rng() % 2 ? 2 : 4) * (1 + rng() % 4);
      buffers.push_back({bytes, std::min(a, b), std::max(a, b)});
    }
    uint64_t alignment = trial % 2 ? 2 : 1;
    MemoryPlan plan = planMemory(buffers, alignment);
    expectValid(buffers, plan, alignment);
    uint64_t optimum = bestOverEveryOrder(buffers, alignment);
    EXPECT_EQ(plan.arenaBytes, optimum) << "trial " << trial;
    missedByFixedOrders += plainPlan(buffers, alignment).arenaBytes > optimum;
  }
  // The programs include some the fixed orders alone plan above the
  // optimum, so the search is what passes them.
  EXPECT_GT(missedByFixedOrders, 0);
  std::printf("fixed orders above the optimum on %d of 3000\n",
              missedByFixedOrders);
}

} // namespace
