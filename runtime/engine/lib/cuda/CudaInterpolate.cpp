//===- CudaInterpolate.cpp - Nearest and linear resampling on the device --===//
//
// The CPU decoder's parameters become the CPU kernel's per-axis tables
// (InterpolatePlan.h), uploaded once; each run is one kernel launch. Every
// mode the CPU backend takes (nearest, nearest-exact, linear of rank 1 to 3,
// align_corners either way, sharded offsets) runs here; the nearest modes
// on bf16 and f16 as a gather of 16-bit elements.
//
//===----------------------------------------------------------------------===//

#include "CudaSupport.h"
#include "InterpolatePlan.h"

namespace shardrt::exec::cuda {

StatusOr<RunFn> prepareInterpolateStep(const fb::Instruction &inst,
                                       const PrepareContext &ctx,
                                       cudaStream_t stream,
                                       const UploadFn &upload) {
  SHARDRT_ASSIGN_OR_RETURN(InterpolateStep step, decodeInterpolate(inst, ctx));
  InterpolatePlan plan = planInterpolate(step.mode, step.params);
  if (plan.shape.count == 0)
    return RunFn([](RunContext &) { return Status(); });
  SHARDRT_ASSIGN_OR_RETURN(void *tables,
                           upload(plan.bytes.data(), plan.bytes.size()));
  InterpolateView view = plan.at(tables);
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  if (step.halfFloats)
    return RunFn([=](RunContext &rc) -> Status {
      SHARDRT_CUDA_TRY(launchGatherNearest(
          slotPtr<uint16_t>(rc, y), slotPtr<uint16_t>(rc, x), view, stream));
      return Status();
    });
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_CUDA_TRY(launchInterpolate(slotPtr<float>(rc, y),
                                       slotPtr<float>(rc, x), view, stream));
    return Status();
  });
}

} // namespace shardrt::exec::cuda
