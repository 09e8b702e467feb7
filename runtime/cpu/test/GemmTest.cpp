//===- GemmTest.cpp - batchedGemm and linear against naive loops ----------===//

#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <omp.h>
#include <random>
#include <thread>
#include <vector>

using namespace shardrt::cpu;

namespace {

std::vector<float> randomVector(std::mt19937 &rng, int64_t n) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// y[b] = a[b] * b[b] in double, plus the sum of |terms| per output, which
/// bounds the float rounding error of any summation order.
void referenceGemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                   const float *a, int64_t aStride, const float *b,
                   int64_t bStride, std::vector<double> &y,
                   std::vector<double> &mag) {
  y.assign(batch * m * n, 0.0);
  mag.assign(batch * m * n, 0.0);
  for (int64_t t = 0; t < batch; ++t)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t p = 0; p < k; ++p) {
          double term = static_cast<double>(a[t * aStride + i * k + p]) *
                        b[t * bStride + p * n + j];
          y[(t * m + i) * n + j] += term;
          mag[(t * m + i) * n + j] += std::fabs(term);
        }
}

void expectClose(const std::vector<double> &ref, const std::vector<double> &mag,
                 const float *got) {
  for (size_t i = 0; i < ref.size(); ++i)
    ASSERT_NEAR(ref[i], got[i], 1e-5 * mag[i] + 1e-6) << "at " << i;
}

void checkBatchedGemm(std::mt19937 &rng, int64_t batch, int64_t m, int64_t n,
                      int64_t k, bool broadcastA, bool broadcastB) {
  int64_t aStride = broadcastA ? 0 : m * k, bStride = broadcastB ? 0 : k * n;
  auto a = randomVector(rng, (broadcastA ? 1 : batch) * m * k);
  auto b = randomVector(rng, (broadcastB ? 1 : batch) * k * n);
  std::vector<float> y(batch * m * n, 123.0f);
  batchedGemm(batch, m, n, k, a.data(), aStride, b.data(), bStride, y.data());
  std::vector<double> ref, mag;
  referenceGemm(batch, m, n, k, a.data(), aStride, b.data(), bStride, ref, mag);
  SCOPED_TRACE(::testing::Message()
               << "batch " << batch << " m " << m << " n " << n << " k " << k);
  expectClose(ref, mag, y.data());
}

} // namespace

TEST(CpuGemm, KnownValues) {
  // [[1 2 3] [4 5 6]] x [[1 0] [0 1] [1 1]] = [[4 5] [10 11]]
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {1, 0, 0, 1, 1, 1};
  std::vector<float> y(4);
  batchedGemm(1, 2, 2, 3, a.data(), 6, b.data(), 6, y.data());
  EXPECT_EQ(y, (std::vector<float>{4, 5, 10, 11}));
}

TEST(CpuGemm, RandomShapesAndBroadcast) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> dim(1, 40), small(1, 5);
  for (int trial = 0; trial < 60; ++trial)
    checkBatchedGemm(rng, small(rng), dim(rng), dim(rng), dim(rng),
                     trial % 3 == 1, trial % 4 == 2);
}

TEST(CpuGemm, EmptyContractionGivesZeros) {
  std::mt19937 rng(7);
  checkBatchedGemm(rng, 2, 3, 4, 0, false, false);
}

TEST(CpuGemm, LargeProductsUseEveryParallelPath) {
  std::mt19937 rng(99);
  checkBatchedGemm(rng, 1, 300, 70, 90, false, false); // split rows
  checkBatchedGemm(rng, 1, 50, 400, 64, false, true);  // split columns
  checkBatchedGemm(rng, 9, 96, 80, 72, true, false);   // over the batch
}

TEST(CpuGemm, ConcurrentRankThreads) {
  // Ranks are std::threads with their own OpenMP teams calling sgemm at once.
  std::mt19937 rng(5);
  int64_t m = 120, n = 100, k = 80;
  auto a = randomVector(rng, m * k), b = randomVector(rng, k * n);
  std::vector<double> ref, mag;
  referenceGemm(1, m, n, k, a.data(), 0, b.data(), 0, ref, mag);
  std::vector<std::vector<float>> ys(4, std::vector<float>(m * n));
  std::vector<std::thread> ranks;
  for (int r = 0; r < 4; ++r)
    ranks.emplace_back([&, r] {
      omp_set_num_threads(1 + r % 2);
      for (int rep = 0; rep < 20; ++rep)
        batchedGemm(1, m, n, k, a.data(), 0, b.data(), 0, ys[r].data());
    });
  for (std::thread &t : ranks)
    t.join();
  for (const auto &y : ys)
    expectClose(ref, mag, y.data());
}

TEST(CpuLinear, KnownValues) {
  // x (2, 2), w (3, 2): y = x w^T + bias.
  std::vector<float> x = {1, 2, 3, 4}, w = {1, 0, 0, 1, 1, 1},
                     bias = {0.5f, -1, 2};
  std::vector<float> y(6);
  linear(x.data(), 2, 2, w.data(), bias.data(), 3, y.data());
  EXPECT_EQ(y, (std::vector<float>{1.5f, 1, 5, 3.5f, 3, 9}));
  linear(x.data(), 2, 2, w.data(), nullptr, 3, y.data());
  EXPECT_EQ(y, (std::vector<float>{1, 2, 3, 3, 4, 7}));
}

TEST(CpuLinear, RandomShapes) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> dim(1, 50);
  for (int trial = 0; trial < 30; ++trial) {
    int64_t rows = trial == 0 ? 500 : dim(rng), in = dim(rng), out = dim(rng);
    bool withBias = trial % 2 == 0;
    auto x = randomVector(rng, rows * in), w = randomVector(rng, out * in);
    auto bias = randomVector(rng, out);
    std::vector<float> y(rows * out, 7.0f);
    linear(x.data(), rows, in, w.data(), withBias ? bias.data() : nullptr, out,
           y.data());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t o = 0; o < out; ++o) {
        double ref = withBias ? bias[o] : 0.0, mag = std::fabs(ref);
        for (int64_t i = 0; i < in; ++i) {
          ref += static_cast<double>(x[r * in + i]) * w[o * in + i];
          mag += std::fabs(static_cast<double>(x[r * in + i]) * w[o * in + i]);
        }
        ASSERT_NEAR(ref, y[r * out + o], 1e-5 * mag + 1e-6);
      }
  }
}
