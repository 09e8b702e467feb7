//===- InterpolateTest.cpp - interpolate against per-point formulas -------===//
//
// The reference evaluates every output point on its own: source coordinates
// by PyTorch's formulas (in float, as PyTorch computes them, so that nearest
// rounding agrees) and the linear blend as a sum over the 2^rank corners in
// double.
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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

/// Global source index (first corner) and weight of the second corner for
/// global output index o along dim d.
struct Source {
  int64_t i0, i1;
  double lambda;
};

Source source(InterpMode mode, const InterpParams &p, int d, int64_t o) {
  float scale = static_cast<float>(p.scale[d]);
  int64_t last = p.inGlobal[d] - 1;
  if (mode == InterpMode::Nearest) {
    int64_t i =
        std::min<int64_t>(std::floor(static_cast<float>(o) * scale), last);
    return {i, i, 0.0};
  }
  if (mode == InterpMode::NearestExact) {
    int64_t i = std::min<int64_t>(
        std::floor(static_cast<float>((o + 0.5) * scale)), last);
    return {i, i, 0.0};
  }
  float real =
      p.alignCorners
          ? scale * static_cast<float>(o)
          : std::max(0.0f, scale * (static_cast<float>(o) + 0.5f) - 0.5f);
  int64_t i0 = std::min<int64_t>(std::floor(real), last);
  int64_t i1 = std::min(i0 + 1, last);
  double lambda = std::clamp(static_cast<double>(real) - i0, 0.0, 1.0);
  return {i0, i1, lambda};
}

/// Unpartitioned reference over global extents (p.in == p.inGlobal).
std::vector<double> reference(InterpMode mode, const InterpParams &p,
                              const std::vector<float> &x) {
  int r = p.rank;
  int64_t inVol = volume(p.in, r), outVol = volume(p.out, r);
  std::vector<double> y(p.channels * outVol);
  for (int64_t c = 0; c < p.channels; ++c)
    for (int64_t o = 0; o < outVol; ++o) {
      int64_t oIdx[3];
      unflatten(o, p.out, r, oIdx);
      Source s[3];
      for (int d = 0; d < r; ++d)
        s[d] = source(mode, p, d, oIdx[d]);
      double acc = 0.0;
      for (int corner = 0; corner < (1 << r); ++corner) {
        double weight = 1.0;
        int64_t flat = 0;
        for (int d = 0; d < r; ++d) {
          bool second = corner >> d & 1;
          weight *= second ? s[d].lambda : 1.0 - s[d].lambda;
          flat = flat * p.in[d] + (second ? s[d].i1 : s[d].i0);
        }
        acc += weight * x[c * inVol + flat];
      }
      y[c * outVol + o] = acc;
    }
  return y;
}

InterpParams params(int rank, const std::vector<int64_t> &in,
                    const std::vector<int64_t> &out, bool alignCorners) {
  InterpParams p;
  p.rank = rank;
  p.channels = 1;
  p.alignCorners = alignCorners;
  for (int d = 0; d < rank; ++d) {
    p.in[d] = p.inGlobal[d] = in[d];
    p.out[d] = out[d];
    // The compiler's rule when only sizes are given.
    if (alignCorners)
      p.scale[d] = out[d] > 1 ? double(in[d] - 1) / (out[d] - 1) : 0.0;
    else
      p.scale[d] = double(in[d]) / out[d];
  }
  return p;
}

std::vector<float> run(InterpMode mode, const InterpParams &p,
                       const std::vector<float> &x) {
  std::vector<float> y(p.channels * volume(p.out, p.rank), 1e30f);
  interpolate(mode, p, x.data(), y.data());
  return y;
}

InterpParams randomParams(std::mt19937 &rng, InterpMode mode) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  int rank = pick(1, 3);
  std::vector<int64_t> in(rank), out(rank);
  for (int d = 0; d < rank; ++d) {
    in[d] = pick(1, rank == 3 ? 6 : 12);
    out[d] = pick(1, rank == 3 ? 9 : 20);
  }
  InterpParams p =
      params(rank, in, out, mode == InterpMode::Linear && pick(0, 1));
  p.channels = pick(1, 3);
  // Sometimes a user scale_factor: the scale is 1/factor, not in/out.
  if (pick(0, 2) == 0 && !p.alignCorners)
    for (int d = 0; d < rank; ++d)
      p.scale[d] = 1.0 / (0.5 + 0.25 * pick(0, 8));
  return p;
}

const InterpMode kModes[] = {InterpMode::Nearest, InterpMode::NearestExact,
                             InterpMode::Linear};

} // namespace

TEST(CpuInterpolate, KnownValues1d) {
  std::vector<float> x = {0, 10};
  // align_corners=False, 2 -> 4: sources 0, 0.25, 0.75, 1.25 (clamped to 1).
  EXPECT_EQ(run(InterpMode::Linear, params(1, {2}, {4}, false), x),
            (std::vector<float>{0, 2.5f, 7.5f, 10}));
  // align_corners=True, 2 -> 5: sources 0, 0.25, 0.5, 0.75, 1.
  EXPECT_EQ(run(InterpMode::Linear, params(1, {2}, {5}, true), x),
            (std::vector<float>{0, 2.5f, 5, 7.5f, 10}));
  std::vector<float> three = {1, 2, 3};
  // 3 -> 5, scale 0.6: floor(o * 0.6) = 0 0 1 1 2; exact: floor((o + .5) *
  // 0.6) = 0 0 1 2 2.
  EXPECT_EQ(run(InterpMode::Nearest, params(1, {3}, {5}, false), three),
            (std::vector<float>{1, 1, 2, 2, 3}));
  EXPECT_EQ(run(InterpMode::NearestExact, params(1, {3}, {5}, false), three),
            (std::vector<float>{1, 1, 2, 3, 3}));
}

TEST(CpuInterpolate, KnownValuesBilinear) {
  // [[0 1] [2 3]] -> 3x3 with align_corners: the centre is the mean, 1.5.
  std::vector<float> x = {0, 1, 2, 3};
  EXPECT_EQ(run(InterpMode::Linear, params(2, {2, 2}, {3, 3}, true), x),
            (std::vector<float>{0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3}));
}

TEST(CpuInterpolate, RandomShapes) {
  std::mt19937 rng(55);
  for (int trial = 0; trial < 240; ++trial) {
    InterpMode mode = kModes[trial % 3];
    InterpParams p = randomParams(rng, mode);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> x(p.channels * volume(p.in, p.rank));
    for (float &v : x)
      v = dist(rng);
    auto y = run(mode, p, x);
    auto ref = reference(mode, p, x);
    for (size_t i = 0; i < y.size(); ++i)
      ASSERT_NEAR(ref[i], y[i], 1e-5) << "trial " << trial << " at " << i;
  }
}

TEST(CpuInterpolate, ShardWithHaloMatchesFullResult) {
  std::mt19937 rng(56);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 90; ++trial) {
    InterpMode mode = kModes[trial % 3];
    InterpParams full = randomParams(rng, mode);
    int r = full.rank;
    std::vector<float> x(full.channels * volume(full.in, r));
    for (float &v : x)
      v = static_cast<float>(pick(-100, 100)) / 7.0f;
    auto whole = run(mode, full, x);
    // A random output box; its input box is the span of the sources read.
    InterpParams shard = full;
    int64_t outLo[3] = {0, 0, 0}, inLo[3] = {0, 0, 0};
    for (int d = 0; d < r; ++d) {
      outLo[d] = pick(0, full.out[d] - 1);
      shard.out[d] = pick(1, full.out[d] - outLo[d]);
      int64_t lo = full.in[d], hi = 0;
      for (int64_t o = outLo[d]; o < outLo[d] + shard.out[d]; ++o) {
        Source s = source(mode, full, d, o);
        lo = std::min(lo, s.i0);
        hi = std::max(hi, s.i1 + 1);
      }
      inLo[d] = lo;
      shard.in[d] = hi - lo;
      shard.outOffset[d] = outLo[d];
      shard.inOffset[d] = lo;
    }
    std::vector<float> xs;
    for (int64_t c = 0; c < full.channels; ++c)
      for (int64_t i = 0; i < volume(shard.in, r); ++i) {
        int64_t idx[3], flat = 0;
        unflatten(i, shard.in, r, idx);
        for (int d = 0; d < r; ++d)
          flat = flat * full.in[d] + idx[d] + inLo[d];
        xs.push_back(x[c * volume(full.in, r) + flat]);
      }
    auto part = run(mode, shard, xs);
    for (int64_t c = 0; c < full.channels; ++c)
      for (int64_t o = 0; o < volume(shard.out, r); ++o) {
        int64_t idx[3], flat = 0;
        unflatten(o, shard.out, r, idx);
        for (int d = 0; d < r; ++d)
          flat = flat * full.out[d] + idx[d] + outLo[d];
        ASSERT_EQ(whole[c * volume(full.out, r) + flat],
                  part[c * volume(shard.out, r) + o])
            << "trial " << trial;
      }
  }
}
