//===- NeighborhoodPlanTest.cpp - CUDA neighbourhood attention, on the CPU ===//
//
// The CUDA backend's neighbourhood attention kernel runs `attendRow` over
// the window tables of planNeighborhood. Here the same function runs on the
// host over the same packed bytes, for every (query, head) row, and must
// match cpu::neighborhoodAttention to f32 rounding: ranks 1 to 3, odd
// kernels, dilations, windows shifted at the borders, and shards (queries
// and keys at offsets into the global extent, as the partitioner emits
// them, with keys only as far as the windows reach).
//
//===----------------------------------------------------------------------===//

#include "../lib/cuda/NeighborhoodPlan.h"

#include "TestModel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace shardrt::exec::cuda {
namespace {

TEST(NeighborhoodPlan, DeviceEvaluationMatchesTheCpuKernel) {
  enginetest::RandomInts pick(41);
  int shifted = 0;
  for (int trial = 0; trial < 300; ++trial) {
    cpu::NeighborhoodParams p;
    p.rank = int(pick(1, 3));
    p.batch = pick(1, 2);
    p.heads = pick(1, 3);
    p.dim = pick(1, 9);
    p.valueDim = trial % 2 ? p.dim : pick(1, 9); // v's may differ
    p.scale = 1.0 / std::sqrt(double(p.dim));
    int64_t qVol = 1, kvVol = 1;
    for (int d = 0; d < p.rank; ++d) {
      int64_t K = 2 * pick(0, 2) + 1, D = pick(1, 2);
      int64_t L = pick(K * D, K * D + 6);
      p.kernel[d] = K;
      p.dilation[d] = D;
      p.global[d] = L;
      p.qOffset[d] = pick(0, L - 1);
      p.qExtent[d] = pick(trial % 25 ? 1 : 0, L - p.qOffset[d]);
      // The keys every local query's window reaches, plus some.
      int64_t lo = L, hi = 0;
      for (int64_t i = p.qOffset[d]; i < p.qOffset[d] + p.qExtent[d]; ++i) {
        int64_t first = cpu::neighborhoodWindowStart(i, L, K, D);
        lo = std::min(lo, first);
        hi = std::max(hi, first + (K - 1) * D + 1);
        shifted += first != i - K / 2 * D;
      }
      if (lo > hi)
        lo = hi = 0;
      p.kvOffset[d] = pick(0, lo);
      p.kvExtent[d] = pick(hi, L) - p.kvOffset[d];
      qVol *= p.qExtent[d];
      kvVol *= p.kvExtent[d];
    }
    int64_t rowStride = p.heads * p.dim, valueStride = p.heads * p.valueDim;
    std::vector<float> q(size_t(p.batch * qVol * rowStride)),
        k(size_t(p.batch * kvVol * rowStride)),
        v(size_t(p.batch * kvVol * valueStride));
    for (size_t i = 0; i < q.size(); ++i)
      q[i] = float(int(i * 7 % 23) - 11) / 5.0f;
    for (size_t i = 0; i < k.size(); ++i)
      k[i] = float(int(i * 5 % 17) - 8) / 4.0f;
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = float(int(i * 11 % 29) - 14) / 3.0f;
    size_t outputs = size_t(p.batch * qVol * valueStride);
    std::vector<float> want(outputs, -7.0f), got(outputs, -9.0f);
    cpu::neighborhoodAttention(p, q.data(), k.data(), v.data(), want.data());
    NeighborhoodPlan plan = planNeighborhood(p);
    NeighborhoodView view = plan.at(plan.bytes.data());
    ASSERT_EQ(view.rows, p.batch * qVol * p.heads);
    for (long long row = 0; row < view.rows; ++row)
      attendRow(view, q.data(), k.data(), v.data(), got.data(), row);
    SCOPED_TRACE("trial " + std::to_string(trial));
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-5f * (1.0f + std::fabs(want[i])))
          << "element " << i;
  }
  EXPECT_GT(shifted, 100); // windows at the borders were exercised
}

TEST(NeighborhoodPlan, ANaNKeyPoisonsOnlyTheRowsThatSeeIt) {
  // One spatial dim of 5, kernel 3: queries 0-1 see keys 0-2, query 2 keys
  // 1-3, queries 3-4 keys 2-4. A NaN in the first key of a window (key 0)
  // or its last (key 4) must not be taken for the max: it reaches exactly
  // the rows that see it, as on the CPU.
  for (int nanKey : {0, 4}) {
    SCOPED_TRACE("NaN in key " + std::to_string(nanKey));
    cpu::NeighborhoodParams p;
    p.rank = 1;
    p.batch = p.heads = 1;
    p.dim = p.valueDim = 2;
    p.kernel[0] = 3;
    p.global[0] = p.qExtent[0] = p.kvExtent[0] = 5;
    std::vector<float> q(10), k(10), v(10), y(10, 0.0f), want(10);
    for (size_t i = 0; i < 10; ++i) {
      q[i] = float(i % 3) * 0.5f;
      k[i] = float(i % 4) * 0.25f;
      v[i] = float(i);
    }
    k[size_t(2 * nanKey)] = std::nanf("");
    NeighborhoodPlan plan = planNeighborhood(p);
    NeighborhoodView view = plan.at(plan.bytes.data());
    for (long long row = 0; row < view.rows; ++row)
      attendRow(view, q.data(), k.data(), v.data(), y.data(), row);
    cpu::neighborhoodAttention(p, q.data(), k.data(), v.data(), want.data());
    for (int query = 0; query < 5; ++query) {
      int first = std::min(std::max(query - 1, 0), 2);
      bool sees = nanKey >= first && nanKey < first + 3;
      for (int c = 0; c < 2; ++c) {
        size_t i = size_t(2 * query + c);
        EXPECT_EQ(std::isnan(y[i]), sees) << "query " << query;
        EXPECT_EQ(std::isnan(want[i]), sees) << "query " << query;
        if (!sees) {
          EXPECT_NEAR(y[i], want[i], 1e-6f) << "query " << query;
        }
      }
    }
  }
}

} // namespace
} // namespace shardrt::exec::cuda
