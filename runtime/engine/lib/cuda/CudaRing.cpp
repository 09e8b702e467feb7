//===- CudaRing.cpp - Ring attention on the device ------------------------===//
//
// The RingAttention step of the CPU backend (PrepareRing.cpp), with device
// buffers: each step posts the block at hand to the next member and the
// receive of the previous member's into the other of two device buffers,
// enqueues the block's folding (RingPlan.h: per batch entry and run of
// query rows, a cuBLAS GEMM of the scaled scores, the ring row kernel, a
// GEMM adding the weights times the values to the state) on the session's
// stream, and waits for the transfers while the device computes. Before a
// step posts its transfers the stream is drained: the communicator moves
// device memory off the stream, so the previous step's kernels must be done
// reading the buffer the next block lands in (and, at the first step, the
// kernels writing the keys must be done).
//
//===----------------------------------------------------------------------===//

#include "CudaSupport.h"
#include "RingPlan.h"

#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace shardrt::exec::cuda {
namespace {

/// 64 MiB of scores per run, as the Attention step's blocks.
constexpr long long kScoreBudget = 1LL << 24;

/// A ring's queries as one fold sees them: its RingStep (rows, first
/// position), the plan of its runs and the row kernel's view.
struct RingQueries {
  RingStep r;
  RingPlan plan;
  RingView view;
};

/// What a run of the step reads besides the slots and the ring area: this
/// member's queries, and in the balanced schedule those of each member it
/// helps (with the member's index).
struct RingDevice {
  RingQueries own;
  std::vector<std::pair<int64_t, RingQueries>> helped;
  cublasHandle_t handle = nullptr;
  LibraryContext *lib = nullptr;
};

Status sgemm(cublasHandle_t handle, const RingGemm &g, float alpha,
             const float *a, const float *b, float *c) {
  SHARDRT_CUBLAS_TRY(cublasSgemm(
      handle, g.transA ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, g.m, g.n, g.k,
      &alpha, a + g.a, g.lda, b + g.b, g.ldb, &g.beta, c + g.c, g.ldc));
  return Status();
}

/// Enqueues the folding of member `block`'s keys (`k`) and values (`v`)
/// into the state at `state` of the queries `at` describes (at `q`).
Status foldBlock(const RingDevice &d, const RingQueries &at, RunContext &rc,
                 const float *q, float *state, int64_t block, const float *k,
                 const float *v, bool first) {
  const RingStep &r = at.r;
  if (r.ev == 0)
    return Status(); // the output has no elements
  const float *mask = r.mask == kNoSlot ? nullptr : slotPtr<float>(rc, r.mask);
  float *m = state, *lsum = m + r.batch() * r.l, *o = lsum + r.batch() * r.l;
  float *scores = static_cast<float *>(d.lib->workspace);
  for (int64_t b = 0; b < r.batch(); ++b)
    for (int64_t q0 = 0; q0 < r.l; q0 += at.plan.rowsPerRun) {
      RingRows run{b,
                   q0,
                   std::min<long long>(at.plan.rowsPerRun, r.l - q0),
                   r.rows(block),
                   r.starts[size_t(block)],
                   first};
      RingGemms g = ringGemms(r, run);
      SHARDRT_RETURN_IF_ERROR(
          sgemm(d.handle, g.scores, float(r.scale), k, q, scores));
      SHARDRT_CUDA_TRY(launchRingRows(scores, mask, at.view, run, m, lsum, o,
                                      d.lib->stream));
      SHARDRT_RETURN_IF_ERROR(sgemm(d.handle, g.output, 1.0f, v, scores, o));
    }
  return Status();
}

Status runRing(const RingDevice &d, RunContext &rc) {
  const RingStep &r = d.own.r;
  if (r.members() > 1)
    SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "a ring attention"));
  cudaStream_t stream = d.lib->stream;
  RingSteps steps;
  steps.beforePost = [&]() -> Status {
    SHARDRT_CUDA_TRY(cudaStreamSynchronize(stream));
    return Status();
  };
  steps.landing = [&](int64_t t) {
    return std::make_pair(d.lib->ring.keys[t % 2],
                          r.passesValues() ? d.lib->ring.values[t % 2]
                                           : nullptr);
  };
  steps.attend = [&](int64_t block, const float *k, const float *v,
                     bool first) {
    return foldBlock(d, d.own, rc, slotPtr<float>(rc, r.q), d.lib->ring.state,
                     block, k, v, first);
  };
  if (r.balanced()) {
    steps.queryLanding = [&](int64_t t) { return d.lib->ring.queries[t % 2]; };
    steps.partialOut = d.lib->ring.partial[0];
    steps.partialIn = d.lib->ring.partial[1];
    steps.help = [&](int64_t member, const float *q, const float *k,
                     const float *v, float *partial) -> Status {
      for (const auto &[index, queries] : d.helped)
        if (index == member)
          return foldBlock(d, queries, rc, q, partial, int64_t(r.group.index),
                           k, v, true);
      return Status::internal("ring attention: no plan for member " +
                              std::to_string(member) + "'s queries");
    };
    steps.merge = [&]() -> Status {
      SHARDRT_CUDA_TRY(launchRingMerge(d.lib->ring.state, steps.partialIn,
                                       r.batch() * r.l, r.ev, stream));
      return Status();
    };
  }
  SHARDRT_ASSIGN_OR_RETURN(bool attended,
                           runRingSteps(rc, r, slotPtr<float>(rc, r.k),
                                        slotPtr<float>(rc, r.v), steps));
  float *y = slotPtr<float>(rc, r.out);
  int64_t outRows = r.batch() * r.l;
  const float *m = d.lib->ring.state, *lsum = m + outRows, *o = lsum + outRows;
  // With no key reaching the queries each row is an empty sum: zeros.
  SHARDRT_CUDA_TRY(attended
                       ? launchRingFinish(y, m, lsum, o, outRows, r.ev, stream)
                       : launchFill(y, outRows * r.ev, 0.0f, stream));
  return Status();
}

} // namespace

StatusOr<RunFn> prepareRingStep(const fb::Instruction &inst,
                                const PrepareContext &ctx, LibraryContext &lib,
                                const UploadFn &upload, bool &communicates) {
  SHARDRT_ASSIGN_OR_RETURN(RingStep r, decodeRing(inst, ctx));
  communicates = r.members() > 1;
  if (communicates && (!ctx.comm || !ctx.comm->takesDeviceBuffers()))
    return RunFn();
  auto d = std::make_shared<RingDevice>();
  d->own.plan = planRing(r, kScoreBudget);
  // cuBLAS takes int extents.
  constexpr int64_t kMaxInt = std::numeric_limits<int>::max();
  if (r.maxRows > kMaxInt || r.e > kMaxInt || r.ev > kMaxInt ||
      d->own.plan.rowsPerRun > kMaxInt)
    return RunFn();
  void *offsets = nullptr;
  if (!d->own.plan.maskOffsets.empty()) {
    SHARDRT_ASSIGN_OR_RETURN(
        offsets, upload(d->own.plan.maskOffsets.data(),
                        d->own.plan.maskOffsets.size() * sizeof(long long)));
  }
  d->own.view = d->own.plan.at(offsets);
  lib.needWorkspace(size_t(d->own.plan.workspaceFloats) * sizeof(float));
  // The members this one helps: their rows and first position in place of
  // its own (the balanced schedule has no mask to offset).
  for (int64_t t = 0; t < r.members(); ++t)
    if (int64_t member = r.helps(t); member >= 0) {
      RingQueries queries;
      queries.r = r;
      queries.r.l = r.rows(member);
      queries.r.queryLo = r.starts[size_t(member)];
      queries.plan = planRing(queries.r, kScoreBudget);
      queries.view = queries.plan.at(nullptr);
      lib.needWorkspace(size_t(queries.plan.workspaceFloats) * sizeof(float));
      d->helped.emplace_back(member, std::move(queries));
    }
  lib.needRingArea(
      communicates ? size_t(r.keyElems) * 4 : 0,
      communicates && r.passesValues() ? size_t(r.valueElems) * 4 : 0,
      size_t(r.stateElems) * 4, r.balanced() ? size_t(r.queryElems) * 4 : 0,
      r.balanced() ? size_t(r.partialElems) * 4 : 0);
  // The handle is made now, not during a run, which may be a CUDA graph
  // capture.
  SHARDRT_ASSIGN_OR_RETURN(d->handle, lib.cublas());
  d->lib = &lib;
  d->own.r = std::move(r);
  return RunFn([d](RunContext &rc) { return runRing(*d, rc); });
}

} // namespace shardrt::exec::cuda
