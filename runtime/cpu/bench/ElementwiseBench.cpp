//===- ElementwiseBench.cpp - Elementwise kernels, Google Benchmark -------===//
//
//   build/runtime/cpu/bench/shardrt_cpu_bench [--benchmark_filter=Silu]
//
// One thread each. Side by side in one run:
//  - SiLU and exp through the kernels (lib/VectorExp.h, vectorised and
//    cloned per x86 level) against the same loop over libm's expf, which is
//    what the kernels ran before;
//  - a fused body's binary step on one 2048-element tile through the
//    whole-tensor kernel (broadcast plan, OpenMP check) and through
//    binarySerial, which the fused evaluator now calls per tile.
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/Kernels.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

namespace {

using namespace shardrt::cpu;

std::vector<float> inputs(int64_t n) {
  std::mt19937 g(1);
  std::uniform_real_distribution<float> dist(-8, 8);
  std::vector<float> v(static_cast<size_t>(n));
  for (float &x : v)
    x = dist(g);
  return v;
}

void setBytes(benchmark::State &state, int64_t n, int operands) {
  state.SetBytesProcessed(int64_t(state.iterations()) * n * operands *
                          int64_t(sizeof(float)));
}

/// The loop the kernels ran before: f(x) with libm's expf inside.
template <typename F> void libmLoop(benchmark::State &state, F f) {
  int64_t n = state.range(0);
  std::vector<float> x = inputs(n), y(x.size());
  for (auto _ : state) {
    const float *in = x.data();
    float *out = y.data();
    for (int64_t i = 0; i < n; ++i)
      out[i] = f(in[i]);
    benchmark::DoNotOptimize(y.data());
  }
  setBytes(state, n, 2);
}

void kernelLoop(benchmark::State &state, UnaryKind kind) {
  int64_t n = state.range(0);
  std::vector<float> x = inputs(n), y(x.size());
  for (auto _ : state) {
    unarySerial(kind, x.data(), y.data(), n);
    benchmark::DoNotOptimize(y.data());
  }
  setBytes(state, n, 2);
}

void BM_SiluLibm(benchmark::State &state) {
  libmLoop(state, [](float v) { return v * (1.0f / (1.0f + std::exp(-v))); });
}
void BM_SiluKernel(benchmark::State &state) {
  kernelLoop(state, UnaryKind::Silu);
}
void BM_ExpLibm(benchmark::State &state) {
  libmLoop(state, [](float v) { return std::exp(v); });
}
void BM_ExpKernel(benchmark::State &state) {
  kernelLoop(state, UnaryKind::Exp);
}

void BM_TileMulBroadcastPlan(benchmark::State &state) {
  const int64_t n = 2048;
  std::vector<float> a = inputs(n), b = inputs(n), y(a.size());
  for (auto _ : state) {
    binary(BinaryKind::Mul, a.data(), {n}, b.data(), {n}, y.data(), {n});
    benchmark::DoNotOptimize(y.data());
  }
  setBytes(state, n, 3);
}

void BM_TileMulSerial(benchmark::State &state) {
  const int64_t n = 2048;
  std::vector<float> a = inputs(n), b = inputs(n), y(a.size());
  for (auto _ : state) {
    binarySerial(BinaryKind::Mul, a.data(), 1, b.data(), 1, y.data(), n);
    benchmark::DoNotOptimize(y.data());
  }
  setBytes(state, n, 3);
}

BENCHMARK(BM_SiluLibm)->Arg(1 << 16)->Arg(1 << 22);
BENCHMARK(BM_SiluKernel)->Arg(1 << 16)->Arg(1 << 22);
BENCHMARK(BM_ExpLibm)->Arg(1 << 16);
BENCHMARK(BM_ExpKernel)->Arg(1 << 16);
BENCHMARK(BM_TileMulBroadcastPlan);
BENCHMARK(BM_TileMulSerial);

} // namespace

BENCHMARK_MAIN();
