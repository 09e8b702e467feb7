//===- CudaScan.cpp - Cumulative ops on the device ------------------------===//
//
// A Scan or ScanTotals runs CudaKernels.cu's scan kernels, which fold with
// the CPU kernel's own step (shardrt/cpu/ScanStep.h): one thread per line,
// or per chunk of a line when there are too few lines to fill the device
// (the carry scheme a split dim uses across ranks, inside one device). The
// shared decoder (decodeScan) has checked every operand.
//
//===----------------------------------------------------------------------===//

#include "CudaSupport.h"

namespace shardrt::exec::cuda {

StatusOr<RunFn> prepareScanStep(const fb::Instruction &inst,
                                const PrepareContext &ctx, cudaStream_t stream,
                                const ScratchFn &scratch) {
  SHARDRT_ASSIGN_OR_RETURN(ScanStep step, decodeScan(inst, ctx));
  if (step.unread)
    return RunFn([=](RunContext &rc) -> Status {
      SHARDRT_CUDA_TRY(cudaMemsetAsync(slotPtr<float>(rc, step.y), 0,
                                       size_t(step.outer * step.inner) *
                                           cpu::kPackedScanFloats *
                                           sizeof(float),
                                       stream));
      return Status();
    });
  ScanChunking chunking = planScanChunks(step.outer, step.len, step.inner);
  bool totalsOnly = inst.opcode() == fb::Opcode::ScanTotals;
  int64_t lines = step.outer * step.inner;
  // Doubles of scratch: each line's initial value, then the chunks'
  // totals or carries.
  size_t initDoubles = step.totals == UINT32_MAX ? 0 : size_t(lines);
  size_t chunkDoubles =
      totalsOnly || chunking.chunks > 1 ? size_t(lines * chunking.chunks) : 0;
  double *init = nullptr, *chunks = nullptr;
  if (initDoubles + chunkDoubles > 0) {
    SHARDRT_ASSIGN_OR_RETURN(
        void *bytes, scratch((initDoubles + chunkDoubles) * sizeof(double)));
    init = initDoubles ? static_cast<double *>(bytes) : nullptr;
    chunks = static_cast<double *>(bytes) + initDoubles;
  }
  return RunFn([=](RunContext &rc) -> Status {
    const float *x = slotPtr<float>(rc, step.x);
    if (totalsOnly) {
      SHARDRT_CUDA_TRY(launchScanTotals(slotPtr<float>(rc, step.y), x, chunks,
                                        step.outer, step.len, step.inner,
                                        chunking, step.kind, stream));
      return Status();
    }
    if (init)
      SHARDRT_CUDA_TRY(launchScanCarries(init, slotPtr<float>(rc, step.totals),
                                         step.outer, step.members, step.inner,
                                         step.before, step.kind, stream));
    SHARDRT_CUDA_TRY(launchScan(slotPtr<float>(rc, step.y), x, init, chunks,
                                step.outer, step.len, step.inner, chunking,
                                step.kind, stream));
    return Status();
  });
}

} // namespace shardrt::exec::cuda
