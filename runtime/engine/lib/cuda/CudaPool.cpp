//===- CudaPool.cpp - Max and average pooling on the device ---------------===//
//
// cuDNN where it shares PyTorch's pooling rules (CudaLibrarySteps.cpp),
// else one kernel of our own evaluating the CPU kernels' rules per output
// (PoolPlan.h): padded, dilated and ceil-mode max pools, asymmetric
// padding, divisor overrides, and every pooling of a build without cuDNN.
//
//===----------------------------------------------------------------------===//

#include "CudaSupport.h"
#include "PoolPlan.h"

namespace shardrt::exec::cuda {

StatusOr<RunFn> preparePoolStep(const fb::Instruction &inst,
                                const PrepareContext &ctx,
                                LibraryContext &lib) {
  SHARDRT_ASSIGN_OR_RETURN(PoolStep step, decodePool(inst, ctx));
  // cuDNN refusing these shapes (an empty step; always, in a build without
  // it) leaves them to our kernel. A cuDNN call failing while it sets up a
  // pool it accepted is an error, reported as the conv steps report theirs:
  // falling back would hide a broken library or a bug in the descriptors.
  StatusOr<RunFn> library = prepareDnnPool(step, inSlot(inst, ctx, 0).shape,
                                           outSlot(inst, ctx, 0).shape, lib);
  if (!library.ok() || *library)
    return library;
  PoolView view = poolView(step.params, step.isMax);
  uint32_t x = step.x, y = step.y;
  cudaStream_t stream = lib.stream;
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_CUDA_TRY(
        launchPool(slotPtr<float>(rc, y), slotPtr<float>(rc, x), view, stream));
    return Status();
  });
}

} // namespace shardrt::exec::cuda
