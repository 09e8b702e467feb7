//===- PoolPlanTest.cpp - CUDA pooling rule, on the CPU -------------------===//
//
// The CUDA backend's own pooling kernel evaluates `pooledValue` per output.
// Here the same function runs on the host for every output and must give
// bitwise what cpu::maxPool and cpu::avgPool give: ranks 1 to 3, padding
// (asymmetric, as a shard's is), dilation, ceil-mode windows, both
// count_include_pad settings, divisor overrides, NaNs in max windows.
//
//===----------------------------------------------------------------------===//

#include "../lib/cuda/PoolPlan.h"

#include "TestModel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace shardrt::exec::cuda {
namespace {

/// Equal, or both NaN.
bool same(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

/// A random valid pooling: every window starts inside the input or its
/// padding, the output extents are PyTorch's (floor or ceil mode).
cpu::PoolParams randomPool(enginetest::RandomInts &pick, bool isMax) {
  cpu::PoolParams p;
  p.rank = int(pick(1, 3));
  p.channels = pick(1, 3);
  p.countIncludePad = pick(0, 1);
  p.divisorOverride = !isMax && pick(0, 3) == 0 ? pick(1, 5) : 0;
  bool ceil = pick(0, 1);
  for (int d = 0; d < p.rank; ++d) {
    int64_t span;
    do {
      p.in[d] = pick(1, 9);
      p.kernel[d] = pick(1, 4);
      p.stride[d] = pick(1, 3);
      p.dilation[d] = isMax ? pick(1, 2) : 1;
      p.padLo[d] = pick(0, p.kernel[d] / 2);
      p.padHi[d] = pick(0, 1) ? p.padLo[d] : pick(0, p.kernel[d] / 2);
      span = (p.kernel[d] - 1) * p.dilation[d] + 1;
    } while (span > p.padLo[d] + p.in[d] + p.padHi[d]);
    int64_t room = p.padLo[d] + p.in[d] + p.padHi[d] - span;
    p.out[d] = room / p.stride[d] + 1;
    // Ceil mode adds the window past the last full one when it still
    // starts inside the input or its low padding.
    if (ceil && room % p.stride[d] &&
        p.out[d] * p.stride[d] < p.in[d] + p.padLo[d])
      ++p.out[d];
  }
  return p;
}

TEST(PoolPlan, DeviceRuleMatchesTheCpuKernels) {
  enginetest::RandomInts pick(41);
  int ceilWindows = 0;
  for (int trial = 0; trial < 600; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    bool isMax = trial % 2 == 0;
    cpu::PoolParams p = randomPool(pick, isMax);
    int64_t inVol = p.channels, outVol = p.channels;
    for (int d = 0; d < p.rank; ++d) {
      inVol *= p.in[d];
      outVol *= p.out[d];
      int64_t span = (p.kernel[d] - 1) * p.dilation[d] + 1;
      ceilWindows += (p.out[d] - 1) * p.stride[d] + span >
                     p.padLo[d] + p.in[d] + p.padHi[d];
    }
    // Repeated values and, in max pools, NaNs and infinities; sevenths, so
    // that an average's partial sums round and their order shows.
    std::vector<float> x(static_cast<size_t>(inVol));
    for (float &v : x) {
      int64_t k = pick(0, 19);
      v = isMax && k == 0   ? NAN
          : isMax && k == 1 ? -INFINITY
                            : float(k - 9) / 7.0f;
    }
    std::vector<float> want(size_t(outVol), -7.0f);
    if (isMax)
      cpu::maxPool(p, x.data(), want.data());
    else
      cpu::avgPool(p, x.data(), want.data());
    PoolView v = poolView(p, isMax);
    ASSERT_EQ(v.count, outVol);
    for (int64_t i = 0; i < outVol; ++i)
      ASSERT_TRUE(same(pooledValue(v, x.data(), i), want[size_t(i)]))
          << "output " << i << ": " << pooledValue(v, x.data(), i)
          << " != " << want[size_t(i)];
  }
  EXPECT_GT(ceilWindows, 20);
}

TEST(PoolPlan, PaddingNeverWinsAMaxAndAveragesCountAsAsked) {
  // (1, 1, 3) input [-5, -6, -7], kernel 3, stride 2, padding 1: windows
  // [pad, -5, -6] and [-6, -7, pad].
  cpu::PoolParams p;
  p.rank = 1;
  p.channels = 1;
  p.in[0] = 3;
  p.out[0] = 2;
  p.kernel[0] = 3;
  p.stride[0] = 2;
  p.padLo[0] = p.padHi[0] = 1;
  const float x[] = {-5, -6, -7};
  EXPECT_EQ(pooledValue(poolView(p, true), x, 0), -5.0f);
  EXPECT_EQ(pooledValue(poolView(p, true), x, 1), -6.0f);
  EXPECT_EQ(pooledValue(poolView(p, false), x, 0), -11.0f / 3.0f);
  p.countIncludePad = false;
  EXPECT_EQ(pooledValue(poolView(p, false), x, 1), -13.0f / 2.0f);
  p.divisorOverride = 4;
  EXPECT_EQ(pooledValue(poolView(p, false), x, 1), -13.0f / 4.0f);
}

} // namespace
} // namespace shardrt::exec::cuda
