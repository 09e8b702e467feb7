//===- GatherPlanTest.cpp - CUDA pads and broadcasts, on the CPU ----------===//
//
// The CUDA backend's reflect, replicate and circular pads and its
// broadcasts copy output element i from input element gatherSource(view,
// i) of a GatherPlan. Here the same function runs on the host over the
// same packed tables and must reproduce cpu::pad and cpu::broadcastTo
// exactly: ranks 1 to 5, pads and crops of every mode within the CPU
// decoder's limits, broadcasts of any dims.
//
//===----------------------------------------------------------------------===//

#include "../lib/cuda/GatherPlan.h"

#include "TestModel.h"

#include <gtest/gtest.h>

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
    merged += plan.shape.rank < int(x.size());
    EXPECT_EQ(gathered(plan, in), want);
  }
  EXPECT_GT(merged, 100);
  EXPECT_GT(crops, 100);
}

TEST(GatherPlan, BroadcastsMatchTheCpuKernel) {
  RandomInts pick(72);
  for (int trial = 0; trial < 300; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    Shape y(size_t(pick(0, 5)));
    for (int64_t &n : y)
      n = pick(1, 4);
    Shape x(y.begin() + pick(0, int64_t(y.size())), y.end());
    for (int64_t &n : x)
      if (pick(0, 1))
        n = 1;
    Shape padded(y.size() - x.size(), 1);
    padded.insert(padded.end(), x.begin(), x.end());
    std::vector<float> in = iota(count(x)), want(size_t(count(y)));
    cpu::broadcastTo(in.data(), padded, want.data(), y, sizeof(float));
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

} // namespace
} // namespace shardrt::exec::cuda
