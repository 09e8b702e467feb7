//===- GatherPlanTest.cpp - CUDA pads and broadcasts, on the CPU ----------===//
//
// The CUDA backend's reflect, replicate and circular pads and its
// broadcasts copy output element i from input element gatherSource(view,
// i) of a GatherPlan. Here the same function runs on the host over the
// same packed tables and must reproduce cpu::pad and cpu::broadcastTo
// exactly: ranks 1 to 5, pads and crops of every mode within the CPU
// decoder's limits, broadcasts of any dims. Compare and Select read each
// operand through a broadcast view and must reproduce cpu::compare and
// cpu::select.
//
//===----------------------------------------------------------------------===//

#include "../lib/cuda/GatherPlan.h"

#include "TestModel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace shardrt::exec::cuda {
namespace {

using enginetest::count;
using enginetest::RandomInts;
using enginetest::Shape;

std::vector<float> gathered(const GatherPlan &plan,
                            const std::vector<float> &x) {
  GatherView v = plan.at(plan.tables.data());
  std::vector<float> y(size_t(v.count));
  for (long long i = 0; i < v.count; ++i) {
    long long s = gatherSource(v, i);
    EXPECT_GE(s, 0);
    EXPECT_LT(s, (long long)x.size());
    y[size_t(i)] = x[size_t(s)];
  }
  return y;
}

std::vector<float> iota(int64_t n) {
  std::vector<float> v(size_t(std::max<int64_t>(n, 0)));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = float(i);
  return v;
}

/// A random shape of `out`'s trailing dims, each kept or 1.
Shape randomOperand(RandomInts &pick, const Shape &out) {
  Shape s(out.begin() + pick(0, int64_t(out.size())), out.end());
  for (int64_t &n : s)
    if (pick(0, 1))
      n = 1;
  return s;
}

GatherView viewOf(const Shape &x, const Shape &out) {
  GatherPlan plan;
  EXPECT_TRUE(planBroadcastGather(x, out, plan));
  return plan.at(nullptr);
}

Shape padTo(const Shape &x, size_t rank) {
  Shape padded(rank - x.size(), 1);
  padded.insert(padded.end(), x.begin(), x.end());
  return padded;
}

TEST(GatherPlan, PadsMatchTheCpuKernel) {
  RandomInts pick(71);
  int merged = 0, crops = 0;
  for (int trial = 0; trial < 600; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    cpu::PadMode mode = cpu::PadMode(pick(1, 3));
    Shape x(size_t(pick(1, 5)));
    std::vector<int64_t> lo(x.size()), hi(x.size());
    for (size_t d = 0; d < x.size(); ++d) {
      x[d] = pick(1, 5);
      if (pick(0, 2) == 0)
        continue; // an unpadded dim
      // Within what the CPU decoder accepts for the mode.
      int64_t most = mode == cpu::PadMode::Reflect ? x[d] - 1 : x[d];
      lo[d] = pick(-(x[d] - 1) / 2, most);
      hi[d] = pick(-(x[d] - 1) / 2, most);
      if (mode == cpu::PadMode::Circular) {
        lo[d] = std::min(lo[d], x[d] + std::min<int64_t>(hi[d], 0));
        hi[d] = std::min(hi[d], x[d] + std::min<int64_t>(lo[d], 0));
      }
      if (mode == cpu::PadMode::Reflect) {
        lo[d] = std::min(lo[d], x[d] - 1);
        hi[d] = std::min(hi[d], x[d] - 1);
      }
      crops += lo[d] < 0 || hi[d] < 0;
    }
    Shape y(x.size());
    for (size_t d = 0; d < x.size(); ++d)
      y[d] = x[d] + lo[d] + hi[d];
    std::vector<float> in = iota(count(x)), want(size_t(count(y)), -1.0f);
    cpu::pad(in.data(), x, lo, hi, mode, 0.0, want.data(), sizeof(float), true);
    GatherPlan plan;
    ASSERT_TRUE(planPadGather(x, lo, hi, mode, plan));
    // Dims that are not dropped as an unpadded extent of 1, some merged.
    int kept = 0;
    for (size_t d = 0; d < x.size(); ++d)
      kept += !(x[d] == 1 && lo[d] == 0 && hi[d] == 0);
    merged += plan.shape.rank < kept;
    EXPECT_EQ(gathered(plan, in), want);
  }
  EXPECT_GT(merged, 50);
  EXPECT_GT(crops, 100);
}

TEST(GatherPlan, BroadcastsMatchTheCpuKernel) {
  RandomInts pick(72);
  for (int trial = 0; trial < 300; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    Shape y(size_t(pick(0, 5)));
    for (int64_t &n : y)
      n = pick(1, 4);
    Shape x = randomOperand(pick, y);
    std::vector<float> in = iota(count(x)), want(size_t(count(y)));
    cpu::broadcastTo(in.data(), padTo(x, y.size()), want.data(), y,
                     sizeof(float));
    GatherPlan plan;
    ASSERT_TRUE(planBroadcastGather(x, y, plan));
    EXPECT_TRUE(plan.tables.empty());
    EXPECT_EQ(gathered(plan, in), want);
  }
}

TEST(GatherPlan, ACropToOneElementKeepsItsOffset) {
  // Circular pad of -1 on both sides of 3: one output, source index 1.
  GatherPlan plan;
  ASSERT_TRUE(
      planPadGather({2, 3}, {0, -1}, {0, -1}, cpu::PadMode::Circular, plan));
  EXPECT_EQ(gathered(plan, iota(6)), (std::vector<float>{1, 4}));
}

TEST(GatherPlan, ComparesAndSelectsMatchTheCpuKernels) {
  RandomInts pick(73);
  const float nan = std::nanf("");
  for (int trial = 0; trial < 300; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    Shape out(size_t(pick(0, 4)));
    for (int64_t &n : out)
      n = pick(1, 4);
    Shape as = randomOperand(pick, out), bs = randomOperand(pick, out),
          cs = randomOperand(pick, out);
    // Few distinct values (and NaN), so that equal pairs occur.
    auto values = [&](const Shape &s) {
      std::vector<float> v(size_t(count(s)));
      for (float &x : v)
        x = pick(0, 9) == 0 ? nan : float(pick(-2, 2));
      return v;
    };
    std::vector<float> a = values(as), b = values(bs);
    auto kind = cpu::CompareKind(pick(0, 5));
    size_t n = size_t(count(out));
    std::vector<uint8_t> want(n), got(n);
    cpu::compare(kind, a.data(), padTo(as, out.size()), b.data(),
                 padTo(bs, out.size()), want.data(), out);
    GatherView va = viewOf(as, out), vb = viewOf(bs, out);
    for (size_t i = 0; i < n; ++i)
      got[i] = compareValues(kind, a[size_t(gatherSource(va, (long long)i))],
                             b[size_t(gatherSource(vb, (long long)i))]);
    EXPECT_EQ(got, want);

    std::vector<uint8_t> c(size_t(count(cs)));
    for (uint8_t &x : c)
      x = uint8_t(pick(0, 1));
    std::vector<float> selWant(n), selGot(n);
    cpu::select(c.data(), padTo(cs, out.size()), a.data(),
                padTo(as, out.size()), b.data(), padTo(bs, out.size()),
                selWant.data(), out, sizeof(float));
    GatherView vc = viewOf(cs, out);
    for (size_t i = 0; i < n; ++i) {
      long long at = (long long)i;
      selGot[i] = c[size_t(gatherSource(vc, at))]
                      ? a[size_t(gatherSource(va, at))]
                      : b[size_t(gatherSource(vb, at))];
    }
    // Bitwise: NaNs were copied, not computed.
    EXPECT_EQ(std::memcmp(selGot.data(), selWant.data(), n * sizeof(float)), 0);
  }
}

TEST(GatherPlan, WhatTheGatherCannotExpressIsRefused) {
  GatherPlan plan;
  // Replicate after cropping a dim away: the output takes the fill value.
  EXPECT_FALSE(
      planPadGather({2, 3}, {0, -3}, {0, 1}, cpu::PadMode::Replicate, plan));
  // 17 padded dims stay 17; 20 broadcast dims merge to fewer than 16.
  Shape x17(17, 2);
  EXPECT_FALSE(planPadGather(x17, std::vector<int64_t>(17, 1),
                             std::vector<int64_t>(17, 0), cpu::PadMode::Reflect,
                             plan));
  Shape y20(20, 2), x20 = y20;
  for (size_t d = 0; d < 20; d += 4)
    x20[d] = 1;
  ASSERT_TRUE(planBroadcastGather(x20, y20, plan));
  EXPECT_LE(plan.shape.rank, 16);
  std::vector<float> in = iota(count(x20)), want(size_t(count(y20)));
  cpu::broadcastTo(in.data(), x20, want.data(), y20, sizeof(float));
  EXPECT_EQ(gathered(plan, in), want);
  // An empty output: nothing to gather.
  ASSERT_TRUE(planBroadcastGather({1, 3}, {0, 3}, plan));
  EXPECT_EQ(plan.shape.count, 0);
}

} // namespace
} // namespace shardrt::exec::cuda
