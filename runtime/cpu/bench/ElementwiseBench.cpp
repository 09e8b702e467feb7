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
//    binarySerial, which the fused evaluator now calls per tile;
//  - a select on a random mask through the kernel (both operands loaded, a
//    blend) against the loop it ran before (a branch per element, which a
//    random mask mispredicts half the time).
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

/// A random half-true mask and two operands of n elements each.
struct SelectOperands {
  std::vector<uint8_t> mask;
  std::vector<float> t, f, y;
  explicit SelectOperands(int64_t n) : t(inputs(n)), f(inputs(n)), y(t.size()) {
    std::mt19937 g(2);
    for (int64_t i = 0; i < n; ++i)
      mask.push_back(uint8_t(g() & 1));
  }
};

void BM_SelectBranchLoop(benchmark::State &state) {
  int64_t n = state.range(0);
  SelectOperands o(n);
  // Strides known only at run time, as the kernel's broadcast plan has them.
  volatile int64_t one = 1;
  int64_t st = one, sf = one;
  for (auto _ : state) {
    const uint8_t *c = o.mask.data();
    const float *t = o.t.data(), *f = o.f.data();
    float *y = o.y.data();
    for (int64_t i = 0; i < n; ++i)
      y[i] = c[i] ? t[i * st] : f[i * sf];
    benchmark::DoNotOptimize(o.y.data());
  }
  setBytes(state, n, 3);
}

void BM_SelectKernel(benchmark::State &state) {
  int64_t n = state.range(0);
  SelectOperands o(n);
  for (auto _ : state) {
    select(o.mask.data(), {n}, o.t.data(), {n}, o.f.data(), {n}, o.y.data(),
           {n}, sizeof(float));
    benchmark::DoNotOptimize(o.y.data());
  }
  setBytes(state, n, 3);
}

BENCHMARK(BM_SiluLibm)->Arg(1 << 16)->Arg(1 << 22);
BENCHMARK(BM_SiluKernel)->Arg(1 << 16)->Arg(1 << 22);
BENCHMARK(BM_ExpLibm)->Arg(1 << 16);
BENCHMARK(BM_ExpKernel)->Arg(1 << 16);
BENCHMARK(BM_TileMulBroadcastPlan);
BENCHMARK(BM_TileMulSerial);
BENCHMARK(BM_SelectBranchLoop)->Arg(1 << 20);
BENCHMARK(BM_SelectKernel)->Arg(1 << 20);

} // namespace

BENCHMARK_MAIN();
