//===- SoftmaxBench.cpp - Softmax and attention kernels, Google Benchmark -===//
//
//   OMP_NUM_THREADS=1 build/runtime/cpu/bench/shardrt_cpu_bench
//       --benchmark_filter='Softmax|Sdpa|Neighborhood'   (one line)
//
// Softmax rows and columns and the two attention kernels, whose softmax
// takes exp of every score. Side by side in one run: the row softmax
// against the loop it ran before (libm's expf, one element at a time, with a
// serial double sum).
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/Kernels.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace shardrt::cpu;

std::vector<float> randomFloats(int64_t n) {
  std::mt19937 g(2);
  std::normal_distribution<float> dist(0, 3);
  std::vector<float> v(static_cast<size_t>(n));
  for (float &x : v)
    x = dist(g);
  return v;
}

void setBytes(benchmark::State &state, int64_t n) {
  state.SetBytesProcessed(int64_t(state.iterations()) * n * 2 *
                          int64_t(sizeof(float)));
}

/// The row softmax as it was: libm's expf and a serial double sum.
void libmSoftmaxRow(const float *x, float *y, int64_t n) {
  float mx = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i)
    mx = std::max(mx, x[i]);
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    y[i] = std::exp(x[i] - mx);
    sum += y[i];
  }
  float r = static_cast<float>(1.0 / sum);
  for (int64_t i = 0; i < n; ++i)
    y[i] *= r;
}

constexpr int64_t kRows = 256, kRowLength = 1024;

void BM_SoftmaxRowsLibm(benchmark::State &state) {
  std::vector<float> x = randomFloats(kRows * kRowLength), y(x.size());
  for (auto _ : state) {
    for (int64_t r = 0; r < kRows; ++r)
      libmSoftmaxRow(x.data() + r * kRowLength, y.data() + r * kRowLength,
                     kRowLength);
    benchmark::DoNotOptimize(y.data());
  }
  setBytes(state, kRows * kRowLength);
}

/// softmax (range(0): log_softmax) of a 256 x 1024 tensor along `dim`.
void softmaxLoop(benchmark::State &state, int64_t dim) {
  std::vector<float> x = randomFloats(kRows * kRowLength), y(x.size());
  for (auto _ : state) {
    softmax(x.data(), {kRows, kRowLength}, dim, /*log=*/state.range(0) != 0,
            y.data());
    benchmark::DoNotOptimize(y.data());
  }
  setBytes(state, kRows * kRowLength);
}

void BM_SoftmaxRows(benchmark::State &state) { softmaxLoop(state, 1); }
void BM_SoftmaxColumns(benchmark::State &state) { softmaxLoop(state, 0); }

/// Self-attention of 1024 queries and keys, head dim 64.
void BM_Sdpa(benchmark::State &state) {
  const int64_t l = 1024, e = 64;
  std::vector<float> q = randomFloats(l * e), k = randomFloats(l * e),
                     v = randomFloats(l * e), y(q.size());
  for (auto _ : state) {
    sdpa(1, l, l, e, e, q.data(), k.data(), v.data(), nullptr, false, 1, false,
         0.125, y.data());
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * l * l);
}

/// 2-D neighbourhood attention, 64 x 64 queries, 7 x 7 window, 4 heads of 32.
void BM_Neighborhood(benchmark::State &state) {
  NeighborhoodParams p;
  p.rank = 2;
  p.batch = 1;
  p.heads = 4;
  p.dim = p.valueDim = 32;
  for (int d = 0; d < 2; ++d) {
    p.qExtent[d] = p.kvExtent[d] = p.global[d] = 64;
    p.kernel[d] = 7;
  }
  p.scale = 0.17;
  const int64_t n = 64 * 64 * p.heads * p.dim;
  std::vector<float> q = randomFloats(n), k = randomFloats(n),
                     v = randomFloats(n), y(q.size());
  for (auto _ : state) {
    neighborhoodAttention(p, q.data(), k.data(), v.data(), y.data());
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * 64 * 64 * p.heads * 49);
}

BENCHMARK(BM_SoftmaxRowsLibm);
BENCHMARK(BM_SoftmaxRows)->ArgName("log")->Arg(0)->Arg(1);
BENCHMARK(BM_SoftmaxColumns)->ArgName("log")->Arg(0)->Arg(1);
BENCHMARK(BM_Sdpa);
BENCHMARK(BM_Neighborhood);

} // namespace
