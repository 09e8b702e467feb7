//===- CudaNeighborhood.cpp - Neighbourhood attention on the device -------===//
//
// The CPU decoder's windows become the CPU kernel's window-start tables
// (NeighborhoodPlan.h), uploaded once; each run is one kernel launch, one
// thread per (query, head) row. Every window the CPU backend takes (ranks 1
// to 3, dilation, borders, sharded offsets) runs here.
//
//===----------------------------------------------------------------------===//

#include "CudaSupport.h"
#include "NeighborhoodPlan.h"

namespace shardrt::exec::cuda {

StatusOr<RunFn> prepareNeighborhoodStep(const fb::Instruction &inst,
                                        const PrepareContext &ctx,
                                        cudaStream_t stream,
                                        const UploadFn &upload) {
  SHARDRT_ASSIGN_OR_RETURN(cpu::NeighborhoodParams params,
                           decodeNeighborhood(inst, ctx));
  if (cpu::neighborhoodIsEmpty(params))
    return RunFn([](RunContext &) { return Status(); });
  NeighborhoodPlan plan = planNeighborhood(params);
  SHARDRT_ASSIGN_OR_RETURN(void *tables,
                           upload(plan.bytes.data(), plan.bytes.size()));
  NeighborhoodView view = plan.at(tables);
  uint32_t q = inIdx(inst, 0), k = inIdx(inst, 1), v = inIdx(inst, 2),
           y = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_CUDA_TRY(launchNeighborhoodAttention(
        slotPtr<float>(rc, y), slotPtr<float>(rc, q), slotPtr<float>(rc, k),
        slotPtr<float>(rc, v), view, stream));
    return Status();
  });
}

} // namespace shardrt::exec::cuda
