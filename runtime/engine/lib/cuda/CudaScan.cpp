//===- CudaScan.cpp - Cumulative ops on the device ------------------------===//
//
// A Scan runs CudaKernels.cu's scan kernels, which fold with the CPU
// kernel's own step (shardrt/cpu/ScanStep.h): one thread per line, or per
// chunk of a line when there are too few lines to fill the device (the
// same carry scheme as a split dim's across ranks, inside one device). The
// CPU decoder has checked the dim, the kind and the initial values' shape.
//
//===----------------------------------------------------------------------===//

#include "CudaSupport.h"

namespace shardrt::exec::cuda {

StatusOr<RunFn> prepareScanStep(const fb::Instruction &inst,
                                const PrepareContext &ctx, cudaStream_t stream,
                                const ScratchFn &scratch) {
  StatusOr<cpu::ScanKind> kind = scanKind(strAttr(inst));
  if (!kind.ok())
    return RunFn(); // the decoder refused it already
  const Shape &shape = inSlot(inst, ctx, 0).shape;
  int64_t dim = inst.ints()->Get(0), outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  for (size_t d = size_t(dim) + 1; d < shape.size(); ++d)
    inner *= shape[d];
  int64_t len = shape[dim];
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  uint32_t init = numInputs(inst) == 2 ? inIdx(inst, 1) : UINT32_MAX;
  ScanChunking chunking = planScanChunks(outer, len, inner);
  double *carries = nullptr;
  if (chunking.chunks > 1) {
    SHARDRT_ASSIGN_OR_RETURN(
        void *bytes,
        scratch(size_t(outer * inner * chunking.chunks) * sizeof(double)));
    carries = static_cast<double *>(bytes);
  }
  cpu::ScanKind k = *kind;
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_CUDA_TRY(
        launchScan(slotPtr<float>(rc, y), slotPtr<float>(rc, x),
                   init == UINT32_MAX ? nullptr : slotPtr<float>(rc, init),
                   carries, outer, len, inner, chunking, k, stream));
    return Status();
  });
}

} // namespace shardrt::exec::cuda
