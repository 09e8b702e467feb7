//===- CudaAttention.cpp - Scaled dot-product attention on the device -----===//
//
// Per block of AttentionPlan: scores = scale * q k^T (one strided-batched
// GEMM over the block's batch entries), the masked softmax kernel in place,
// then y = probabilities v (a second one). The scores live in the session's
// shared library workspace, at most kScoreBudget floats. Every mask the CPU
// backend takes (bool or f32, any broadcast), the causal limit and rows
// with no visible key (NaN, as PyTorch < 2.5 and the CPU kernel give) run
// here.
//
//===----------------------------------------------------------------------===//

#include "AttentionPlan.h"
#include "CudaSupport.h"

namespace shardrt::exec::cuda {
namespace {

/// 64 MiB of scores per block: room for a 4096-key row block of 4096 rows,
/// small next to the activations a sharded model keeps.
constexpr long long kScoreBudget = 1LL << 24;

} // namespace

StatusOr<RunFn> prepareAttentionStep(const fb::Instruction &inst,
                                     const PrepareContext &ctx,
                                     LibraryContext &lib,
                                     const UploadFn &upload) {
  SHARDRT_ASSIGN_OR_RETURN(const AttentionStep a, decodeAttention(inst, ctx));
  AttentionPlan plan = planAttention(a, kScoreBudget);
  void *offsets = nullptr;
  if (!plan.maskOffsets.empty()) {
    SHARDRT_ASSIGN_OR_RETURN(
        offsets, upload(plan.maskOffsets.data(),
                        plan.maskOffsets.size() * sizeof(long long)));
  }
  AttentionView view = plan.at(offsets);
  lib.needWorkspace(size_t(plan.workspaceFloats) * sizeof(float));
  // The handle is made now, not during a run, which may be a CUDA graph
  // capture.
  SHARDRT_ASSIGN_OR_RETURN(cublasHandle_t handle, lib.cublas());
  LibraryContext *libp = &lib;
  // With no keys each output row is an empty sum (the CPU GEMM's zeros).
  bool noKeys = a.s == 0;
  long long outCount = a.batch * a.l * a.ev;
  int lde = int(std::max<int64_t>(a.e, 1));
  float scale = float(a.scale);
  return RunFn([=, blocks = std::move(plan.blocks)](RunContext &rc) -> Status {
    float *y = slotPtr<float>(rc, a.y);
    if (noKeys)
      SHARDRT_CUDA_TRY(launchFill(y, outCount, 0.0f, libp->stream));
    const float *q = slotPtr<float>(rc, a.q), *k = slotPtr<float>(rc, a.k),
                *v = slotPtr<float>(rc, a.v);
    const void *mask = a.maskSlot == kNoSlot ? nullptr : rc.slots[a.maskSlot];
    float *scores = static_cast<float *>(libp->workspace);
    const float one = 1.0f, zero = 0.0f;
    for (const AttentionBlock &blk : blocks) {
      // Row-major (rows, cols) scores are cuBLAS's column-major
      // (cols, rows): k (as e x s, transposed) times q (e x rows).
      SHARDRT_CUBLAS_TRY(cublasSgemmStridedBatched(
          handle, CUBLAS_OP_T, CUBLAS_OP_N, int(blk.cols), int(blk.rows),
          int(a.e), &scale, k + blk.b0 * a.s * a.e, lde, a.s * a.e,
          q + (blk.b0 * a.l + blk.q0) * a.e, lde, a.l * a.e, &zero, scores,
          int(blk.cols), blk.rows * blk.cols, int(blk.batches)));
      SHARDRT_CUDA_TRY(
          launchMaskedSoftmax(scores, mask, view, blk, libp->stream));
      SHARDRT_CUBLAS_TRY(cublasSgemmStridedBatched(
          handle, CUBLAS_OP_N, CUBLAS_OP_N, int(a.ev), int(blk.rows),
          int(blk.cols), &one, v + blk.b0 * a.s * a.ev, int(a.ev), a.s * a.ev,
          scores, int(blk.cols), blk.rows * blk.cols, &zero,
          y + (blk.b0 * a.l + blk.q0) * a.ev, int(a.ev), a.l * a.ev,
          int(blk.batches)));
    }
    return Status();
  });
}

} // namespace shardrt::exec::cuda
