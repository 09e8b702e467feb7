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

#include <memory>

namespace shardrt::exec::cuda {
namespace {

/// 64 MiB of scores per run, as the Attention step's blocks.
constexpr long long kScoreBudget = 1LL << 24;

/// The step's device memory: two buffers each for passed key and value
/// blocks, and the state (m, lsum, o).
struct RingBuffers {
  float *keys[2] = {nullptr, nullptr}, *values[2] = {nullptr, nullptr};
  float *state = nullptr;
};

StatusOr<RingBuffers> allocate(const RingStep &r, const ScratchFn &scratch) {
  RingBuffers b;
  auto floats = [&](int64_t n) -> StatusOr<float *> {
    SHARDRT_ASSIGN_OR_RETURN(void *p,
                             scratch(size_t(std::max<int64_t>(n, 1)) * 4));
    return static_cast<float *>(p);
  };
  if (r.members() > 1)
    for (int i = 0; i < 2; ++i) {
      SHARDRT_ASSIGN_OR_RETURN(b.keys[i], floats(r.keyElems));
      if (r.passesValues()) {
        SHARDRT_ASSIGN_OR_RETURN(b.values[i], floats(r.valueElems));
      }
    }
  SHARDRT_ASSIGN_OR_RETURN(b.state, floats(r.stateElems));
  return b;
}

/// What a run of the step reads besides the slots.
struct RingDevice {
  RingStep r;
  RingPlan plan;
  RingView view;
  RingBuffers buffers;
  cublasHandle_t handle = nullptr;
  LibraryContext *lib = nullptr;
};

/// Enqueues the folding of member `block`'s keys (`k`) and values (`v`)
/// into the state.
Status foldBlock(const RingDevice &d, RunContext &rc, int64_t block,
                 const float *k, const float *v, bool first) {
  const RingStep &r = d.r;
  int64_t rows = r.rows(block), keyLo = r.starts[size_t(block)];
  const float *q = slotPtr<float>(rc, r.q);
  const float *mask = r.mask == kNoSlot ? nullptr : slotPtr<float>(rc, r.mask);
  float *m = d.buffers.state, *lsum = m + r.batch() * r.l,
        *o = lsum + r.batch() * r.l;
  float *scores = static_cast<float *>(d.lib->workspace);
  cudaStream_t stream = d.lib->stream;
  const float scale = float(r.scale), one = 1.0f, zero = 0.0f;
  for (int64_t b = 0; b < r.batch(); ++b) {
    const float *kb = k + r.kAt[size_t(b)] * rows * r.e;
    const float *vb = r.valuesWhole
                          ? v + (r.vAt[size_t(b)] * r.valueRows + keyLo) * r.ev
                          : v + r.vAt[size_t(b)] * rows * r.ev;
    for (int64_t q0 = 0; q0 < r.l; q0 += d.plan.rowsPerRun) {
      RingRows run{
          b,    q0,    std::min<long long>(d.plan.rowsPerRun, r.l - q0),
          rows, keyLo, first};
      // Row-major (rows, cols) scores are cuBLAS's column-major (cols,
      // rows): k (e x cols, transposed) times q (e x rows).
      SHARDRT_CUBLAS_TRY(cublasSgemm(d.handle, CUBLAS_OP_T, CUBLAS_OP_N,
                                     int(rows), int(run.rows), int(r.e), &scale,
                                     kb, int(r.e),
                                     q + (r.qAt[size_t(b)] * r.l + q0) * r.e,
                                     int(r.e), &zero, scores, int(rows)));
      SHARDRT_CUDA_TRY(
          launchRingRows(scores, mask, d.view, run, m, lsum, o, stream));
      // o (rows, ev) += weights (rows, cols) v (cols, ev), column-major.
      SHARDRT_CUBLAS_TRY(cublasSgemm(d.handle, CUBLAS_OP_N, CUBLAS_OP_N,
                                     int(r.ev), int(run.rows), int(rows), &one,
                                     vb, int(r.ev), scores, int(rows), &one,
                                     o + (b * r.l + q0) * r.ev, int(r.ev)));
    }
  }
  return Status();
}

Status runRing(const RingDevice &d, RunContext &rc) {
  const RingStep &r = d.r;
  if (r.members() > 1)
    SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "a ring attention"));
  cudaStream_t stream = d.lib->stream;
  RingSteps steps;
  steps.beforePost = [&]() -> Status {
    SHARDRT_CUDA_TRY(cudaStreamSynchronize(stream));
    return Status();
  };
  steps.landing = [&](int64_t t) {
    return std::make_pair(d.buffers.keys[t % 2], d.buffers.values[t % 2]);
  };
  steps.attend = [&](int64_t block, const float *k, const float *v,
                     bool first) {
    return foldBlock(d, rc, block, k, v, first);
  };
  SHARDRT_ASSIGN_OR_RETURN(bool attended,
                           runRingSteps(rc, r, slotPtr<float>(rc, r.k),
                                        slotPtr<float>(rc, r.v), steps));
  float *y = slotPtr<float>(rc, r.out);
  int64_t outRows = r.batch() * r.l;
  const float *m = d.buffers.state, *lsum = m + outRows, *o = lsum + outRows;
  // With no key reaching the queries each row is an empty sum: zeros.
  SHARDRT_CUDA_TRY(attended
                       ? launchRingFinish(y, m, lsum, o, outRows, r.ev, stream)
                       : launchFill(y, outRows * r.ev, 0.0f, stream));
  return Status();
}

} // namespace

StatusOr<RunFn> prepareRingStep(const fb::Instruction &inst,
                                const PrepareContext &ctx, LibraryContext &lib,
                                const UploadFn &upload,
                                const ScratchFn &scratch) {
  SHARDRT_ASSIGN_OR_RETURN(RingStep r, decodeRing(inst, ctx));
  if (r.members() > 1 && (!ctx.comm || !ctx.comm->takesDeviceBuffers()))
    return RunFn();
  auto d = std::make_shared<RingDevice>();
  d->plan = planRing(r, kScoreBudget);
  void *offsets = nullptr;
  if (!d->plan.maskOffsets.empty()) {
    SHARDRT_ASSIGN_OR_RETURN(
        offsets, upload(d->plan.maskOffsets.data(),
                        d->plan.maskOffsets.size() * sizeof(long long)));
  }
  d->view = d->plan.at(offsets);
  SHARDRT_ASSIGN_OR_RETURN(d->buffers, allocate(r, scratch));
  lib.needWorkspace(size_t(d->plan.workspaceFloats) * sizeof(float));
  // The handle is made now, not during a run, which may be a CUDA graph
  // capture.
  SHARDRT_ASSIGN_OR_RETURN(d->handle, lib.cublas());
  d->lib = &lib;
  d->r = std::move(r);
  return RunFn([d](RunContext &rc) { return runRing(*d, rc); });
}

} // namespace shardrt::exec::cuda
