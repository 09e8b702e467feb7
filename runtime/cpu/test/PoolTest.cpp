//===- PoolTest.cpp - maxPool / avgPool against direct loops --------------===//
//
// The references enumerate every kernel tap: max over taps inside the input;
// average as the sum of taps inside the input divided by PyTorch's divisor,
// which counts taps before in + padHi (count_include_pad) or inside the input.
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace shardrt::cpu;

namespace {

int64_t volume(const int64_t *dims, int rank) {
  int64_t v = 1;
  for (int d = 0; d < rank; ++d)
    v *= dims[d];
  return v;
}

void unflatten(int64_t flat, const int64_t *dims, int rank, int64_t *idx) {
  for (int d = rank - 1; d >= 0; --d) {
    idx[d] = flat % dims[d];
    flat /= dims[d];
  }
}

enum class Kind { Max, Avg };

std::vector<float> reference(Kind kind, const PoolParams &p,
                             const std::vector<float> &x) {
  int r = p.rank;
  int64_t inVol = volume(p.in, r), outVol = volume(p.out, r);
  int64_t kVol = volume(p.kernel, r);
  std::vector<float> y(p.channels * outVol);
  for (int64_t c = 0; c < p.channels; ++c)
    for (int64_t o = 0; o < outVol; ++o) {
      int64_t oIdx[3], kIdx[3];
      unflatten(o, p.out, r, oIdx);
      float best = -std::numeric_limits<float>::infinity();
      double sum = 0.0;
      int64_t inside = 0, padded = 0;
      for (int64_t kk = 0; kk < kVol; ++kk) {
        unflatten(kk, p.kernel, r, kIdx);
        bool isInside = true, beforePadHi = true;
        int64_t flat = 0;
        for (int d = 0; d < r; ++d) {
          int64_t dil = kind == Kind::Max ? p.dilation[d] : 1;
          int64_t i = oIdx[d] * p.stride[d] - p.padLo[d] + kIdx[d] * dil;
          isInside = isInside && i >= 0 && i < p.in[d];
          beforePadHi = beforePadHi && i < p.in[d] + p.padHi[d];
          flat = flat * p.in[d] + i;
        }
        padded += beforePadHi;
        if (!isInside)
          continue;
        float v = x[c * inVol + flat];
        ++inside;
        sum += v;
        if (std::isnan(v) || v > best)
          best = std::isnan(best) ? best : v;
      }
      double divisor = p.divisorOverride   ? p.divisorOverride
                       : p.countIncludePad ? padded
                                           : inside;
      y[c * outVol + o] =
          kind == Kind::Max ? best : static_cast<float>(sum / divisor);
    }
  return y;
}

/// PyTorch's pooling_output_shape, generalised to unequal padding (a shard
/// of a padded input has padding on one side only).
int64_t outputSize(int64_t in, int64_t k, int64_t padLo, int64_t padHi,
                   int64_t stride, int64_t dil, bool ceil) {
  int64_t num =
      in + padLo + padHi - dil * (k - 1) - 1 + (ceil ? stride - 1 : 0);
  int64_t out = num / stride + 1;
  if (ceil && (out - 1) * stride >= in + padLo)
    --out;
  return out;
}

PoolParams randomParams(std::mt19937 &rng, Kind kind) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (;;) {
    PoolParams p;
    p.rank = pick(1, 3);
    p.channels = pick(1, 4);
    bool ceil = pick(0, 1);
    bool ok = true;
    for (int d = 0; d < p.rank; ++d) {
      p.in[d] = pick(1, p.rank == 3 ? 6 : 11);
      p.kernel[d] = pick(1, 4);
      p.stride[d] = pick(1, 3);
      p.dilation[d] = kind == Kind::Max ? pick(1, 2) : 1;
      p.padLo[d] = pick(0, static_cast<int>(p.kernel[d] / 2));
      p.padHi[d] = pick(0, 1) ? p.padLo[d] : pick(0, p.kernel[d] / 2);
      p.out[d] = outputSize(p.in[d], p.kernel[d], p.padLo[d], p.padHi[d],
                            p.stride[d], p.dilation[d], ceil);
      ok = ok && p.out[d] >= 1;
    }
    p.countIncludePad = pick(0, 1);
    p.divisorOverride = pick(0, 3) == 0 ? pick(1, 5) : 0;
    if (ok)
      return p;
  }
}

std::vector<float> randomInput(std::mt19937 &rng, const PoolParams &p) {
  std::uniform_real_distribution<float> dist(-3.0f, -1.0f);
  // All negative so that a padded zero winning a max would show.
  std::vector<float> x(p.channels * volume(p.in, p.rank));
  for (float &v : x)
    v = dist(rng);
  return x;
}

PoolParams params1d(int64_t in, int64_t out, int64_t k, int64_t s,
                    int64_t pad) {
  PoolParams p;
  p.rank = 1;
  p.channels = 1;
  p.in[0] = in;
  p.out[0] = out;
  p.kernel[0] = k;
  p.stride[0] = s;
  p.padLo[0] = p.padHi[0] = pad;
  return p;
}

} // namespace

TEST(CpuMaxPool, KnownValues) {
  std::vector<float> x = {1, 3, 2, 5, 4}, y(3);
  // kernel 2, stride 2, ceil_mode: the last window holds only x[4].
  maxPool(params1d(5, 3, 2, 2, 0), x.data(), y.data());
  EXPECT_EQ(y, (std::vector<float>{3, 5, 4}));
  // Padding never wins, dilation 2 skips neighbours.
  std::vector<float> neg = {-1, -3, -2, -5, -4};
  PoolParams p = params1d(5, 3, 2, 2, 1);
  p.dilation[0] = 2;
  maxPool(p, neg.data(), y.data()); // windows {pad,-3}, {-3,-5}, {-5,pad}
  EXPECT_EQ(y, (std::vector<float>{-3, -3, -5}));
}

TEST(CpuMaxPool, NaNPropagates) {
  std::vector<float> x = {1, std::nanf(""), 2, 0}, y(2);
  maxPool(params1d(4, 2, 2, 2, 0), x.data(), y.data());
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[1], 2.0f);
}

TEST(CpuMaxPool, RandomGeometries) {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 200; ++trial) {
    PoolParams p = randomParams(rng, Kind::Max);
    auto x = randomInput(rng, p);
    std::vector<float> y(p.channels * volume(p.out, p.rank));
    maxPool(p, x.data(), y.data());
    ASSERT_EQ(reference(Kind::Max, p, x), y) << "trial " << trial;
  }
}

TEST(CpuAvgPool, KnownValues) {
  std::vector<float> x = {1, 2, 3, 4, 5}, y(3);
  // kernel 2, stride 2, ceil_mode: the last window is clipped to x[4].
  avgPool(params1d(5, 3, 2, 2, 0), x.data(), y.data());
  EXPECT_EQ(y, (std::vector<float>{1.5f, 3.5f, 5}));
  // kernel 3, stride 2, padding 1, ceil_mode on [1 2 3 4]: windows
  // [-1, 2), [1, 4), [3, 5) after clipping to in + padHi = 5.
  PoolParams p = params1d(4, 3, 3, 2, 1);
  avgPool(p, x.data(), y.data());
  EXPECT_EQ(y, (std::vector<float>{1, 3, 2}));
  p.countIncludePad = false;
  avgPool(p, x.data(), y.data());
  EXPECT_EQ(y, (std::vector<float>{1.5f, 3, 4}));
  p.divisorOverride = 2;
  avgPool(p, x.data(), y.data());
  EXPECT_EQ(y, (std::vector<float>{1.5f, 4.5f, 2}));
}

TEST(CpuAvgPool, RandomGeometries) {
  std::mt19937 rng(32);
  for (int trial = 0; trial < 200; ++trial) {
    PoolParams p = randomParams(rng, Kind::Avg);
    auto x = randomInput(rng, p);
    std::vector<float> y(p.channels * volume(p.out, p.rank));
    avgPool(p, x.data(), y.data());
    auto ref = reference(Kind::Avg, p, x);
    for (size_t i = 0; i < y.size(); ++i)
      ASSERT_NEAR(ref[i], y[i], 1e-5f * std::fabs(ref[i]) + 1e-6f)
          << "trial " << trial << " at " << i;
  }
}

TEST(CpuAvgPool, LargeImageSpreadsOverThreads) {
  std::mt19937 rng(33);
  PoolParams p;
  p.rank = 2;
  p.channels = 3;
  p.in[0] = p.in[1] = 130;
  p.kernel[0] = p.kernel[1] = 3;
  p.stride[0] = p.stride[1] = 2;
  p.padLo[0] = p.padLo[1] = p.padHi[0] = p.padHi[1] = 1;
  p.out[0] = p.out[1] = outputSize(130, 3, 1, 1, 2, 1, true);
  auto x = randomInput(rng, p);
  std::vector<float> y(p.channels * p.out[0] * p.out[1]);
  avgPool(p, x.data(), y.data());
  auto ref = reference(Kind::Avg, p, x);
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_NEAR(ref[i], y[i], 1e-5f * std::fabs(ref[i]));
  maxPool(p, x.data(), y.data());
  EXPECT_EQ(reference(Kind::Max, p, x), y);
}
