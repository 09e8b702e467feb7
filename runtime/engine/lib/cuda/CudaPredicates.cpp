//===- CudaPredicates.cpp - Compare, Select and Cast on the device --------===//
//
// The masks a causal ring builds (Compare, Select) and dtype casts between
// f32, bool, bf16, f16 and int64, as one small kernel each. Broadcast operands
// are read in place through a GatherPlan view each (stride 0 where they
// repeat), so nothing is materialised; the CPU decoder has checked every
// operand.
//
//===----------------------------------------------------------------------===//

#include "CudaSupport.h"
#include "GatherPlan.h"

#include "shardrt/artifact/Artifact.h"

namespace shardrt::exec::cuda {
namespace {

/// Views of operands 0..n-1 of `inst` broadcast to its output, or false.
bool broadcastViews(const fb::Instruction &inst, const PrepareContext &ctx,
                    size_t n, GatherView *views) {
  const Shape &out = outSlot(inst, ctx, 0).shape;
  for (size_t k = 0; k < n; ++k) {
    GatherPlan plan;
    if (!planBroadcastGather(inSlot(inst, ctx, k).shape, out, plan))
      return false;
    views[k] = plan.at(nullptr); // no tables: broadcasts only
  }
  return true;
}

StatusOr<RunFn> prepareCompare(const fb::Instruction &inst,
                               const PrepareContext &ctx, cudaStream_t stream) {
  SHARDRT_ASSIGN_OR_RETURN(cpu::CompareKind kind, compareKind(strAttr(inst)));
  GatherView v[2];
  if (!broadcastViews(inst, ctx, 2, v))
    return RunFn();
  uint32_t a = inIdx(inst, 0), b = inIdx(inst, 1), y = outIdx(inst, 0);
  cpu::CompareKind k = kind;
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_CUDA_TRY(launchCompare(slotPtr<uint8_t>(rc, y),
                                   slotPtr<float>(rc, a), slotPtr<float>(rc, b),
                                   v[0], v[1], k, stream));
    return Status();
  });
}

StatusOr<RunFn> prepareSelect(const fb::Instruction &inst,
                              const PrepareContext &ctx, cudaStream_t stream) {
  GatherView v[3];
  if (!broadcastViews(inst, ctx, 3, v))
    return RunFn();
  size_t elemBytes = artifact::dtypeSize(outSlot(inst, ctx, 0).dtype);
  uint32_t c = inIdx(inst, 0), t = inIdx(inst, 1), f = inIdx(inst, 2),
           y = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_CUDA_TRY(launchSelect(rc.slots[y], slotPtr<uint8_t>(rc, c),
                                  rc.slots[t], rc.slots[f], v[0], v[1], v[2],
                                  elemBytes, stream));
    return Status();
  });
}

StatusOr<RunFn> prepareCast(const fb::Instruction &inst,
                            const PrepareContext &ctx, cudaStream_t stream) {
  fb::DType from = inSlot(inst, ctx, 0).dtype, to = outSlot(inst, ctx, 0).dtype;
  int64_t n = numElements(inSlot(inst, ctx, 0).shape);
  size_t bytes = size_t(n) * artifact::dtypeSize(from);
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  SHARDRT_ASSIGN_OR_RETURN(cpu::ElemType f, castElemType(from));
  SHARDRT_ASSIGN_OR_RETURN(cpu::ElemType t, castElemType(to));
  return RunFn([=](RunContext &rc) -> Status {
    if (from == to)
      SHARDRT_CUDA_TRY(cudaMemcpyAsync(rc.slots[y], rc.slots[x], bytes,
                                       cudaMemcpyDeviceToDevice, stream));
    else
      SHARDRT_CUDA_TRY(launchCast(rc.slots[y], rc.slots[x], n, f, t, stream));
    return Status();
  });
}

} // namespace

StatusOr<RunFn> preparePredicateStep(const fb::Instruction &inst,
                                     const PrepareContext &ctx,
                                     cudaStream_t stream) {
  switch (inst.opcode()) {
  case fb::Opcode::Compare:
    return prepareCompare(inst, ctx, stream);
  case fb::Opcode::Select:
    return prepareSelect(inst, ctx, stream);
  case fb::Opcode::Cast:
    return prepareCast(inst, ctx, stream);
  default:
    return RunFn();
  }
}

} // namespace shardrt::exec::cuda
