//===- CudaScan.cpp - Cumulative ops on the device ------------------------===//
//
// A Scan is one launch of CudaKernels.cu's scan kernel, which folds with
// the CPU kernel's own step (shardrt/cpu/ScanStep.h); the CPU decoder has
// checked the dim, the kind and the initial values' shape.
//
//===----------------------------------------------------------------------===//

#include "CudaSupport.h"

namespace shardrt::exec::cuda {

StatusOr<RunFn> prepareScanStep(const fb::Instruction &inst,
                                const PrepareContext &ctx,
                                cudaStream_t stream) {
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
  cpu::ScanKind k = *kind;
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_CUDA_TRY(
        launchScan(slotPtr<float>(rc, y), slotPtr<float>(rc, x),
                   init == UINT32_MAX ? nullptr : slotPtr<float>(rc, init),
                   outer, len, inner, k, stream));
    return Status();
  });
}

} // namespace shardrt::exec::cuda
