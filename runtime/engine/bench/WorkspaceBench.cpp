//===- WorkspaceBench.cpp - Placing a session's host workspace ------------===//
//
// WorkspacePlan::finish places one reservation per staged transfer, at
// prepare time. A program shaped like a partitioned model: every
// instruction reserves a few boxes for itself, and every tenth is a started
// exchange whose boxes stay until a Wait a few instructions later.
//
//===----------------------------------------------------------------------===//

#include "Workspace.h"

#include <benchmark/benchmark.h>

#include <memory>
#include <random>

namespace {

void BM_WorkspaceFinish(benchmark::State &state) {
  int64_t reservations = state.range(0);
  for (auto _ : state) {
    state.PauseTiming();
    // The plan's block is freed outside the timed part.
    auto owned = std::make_unique<shardrt::exec::WorkspacePlan>();
    shardrt::exec::WorkspacePlan &plan = *owned;
    std::mt19937 rng(1);
    uint32_t instruction = 0;
    for (int64_t i = 0; i < reservations; ++i) {
      if (i % 6 == 0)
        ++instruction;
      uint32_t last = instruction % 10 == 0 ? instruction + 4 : instruction;
      plan.reserve(64 + rng() % 65536, instruction, last);
    }
    state.ResumeTiming();
    benchmark::DoNotOptimize(plan.finish());
    benchmark::DoNotOptimize(plan.bytes());
    state.PauseTiming();
    owned.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * reservations);
}

} // namespace

BENCHMARK(BM_WorkspaceFinish)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
