//===- CudaDataMovement.cpp - Pads, slices, permutes, concats on device ---===//
//
// Box fills and strided box copies (DataMovementPlan, planned once here) on
// the session's stream; reflect, replicate and circular pads and
// broadcasts gather through per-dim index tables (GatherPlan). What the
// plans do not cover (non-f32 constant pads, pads whose output needs the
// fill value where nothing is left to reflect, more than 16 dims after
// merging) stays staged through the host.
//
//===----------------------------------------------------------------------===//

#include "CudaSupport.h"
#include "DataMovementPlan.h"
#include "GatherPlan.h"

#include "shardrt/artifact/Artifact.h"

#include <memory>
#include <optional>
#include <vector>

namespace shardrt::exec::cuda {

namespace {

/// The plan of `inst`, or none when the host keeps it. The CPU decoder has
/// checked the operands and attributes.
std::optional<MovePlan> movePlanOf(const fb::Instruction &inst,
                                   const PrepareContext &ctx) {
  const SlotInfo &out = outSlot(inst, ctx, 0);
  const Shape &x = inSlot(inst, ctx, 0).shape;
  IntReader ints(inst);
  MovePlan plan;
  switch (inst.opcode()) {
  case fb::Opcode::Pad:
    // The fill kernel writes floats.
    if (strAttr(inst) != "constant" || out.dtype != fb::DType::F32 ||
        !planPadMove(x, out.shape, ints.next(x.size()), floatAttrs(inst)[0],
                     plan))
      return std::nullopt;
    return plan;
  case fb::Opcode::Slice: {
    std::vector<int64_t> start = ints.next(x.size());
    if (!planSliceMove(x, out.shape, start, ints.next(x.size()), plan))
      return std::nullopt;
    return plan;
  }
  case fb::Opcode::Permute:
    if (!planPermuteMove(x, ints.next(x.size()), plan))
      return std::nullopt;
    return plan;
  case fb::Opcode::Concat: {
    std::vector<Shape> shapes;
    for (size_t k = 0; k < numInputs(inst); ++k)
      shapes.push_back(inSlot(inst, ctx, k).shape);
    if (!planConcatMove(shapes, out.shape, ints.next(), plan))
      return std::nullopt;
    return plan;
  }
  default:
    return std::nullopt;
  }
}

/// The gather of a non-constant Pad or a BroadcastTo, or none.
std::optional<GatherPlan> gatherPlanOf(const fb::Instruction &inst,
                                       const PrepareContext &ctx) {
  const Shape &x = inSlot(inst, ctx, 0).shape, &y = outSlot(inst, ctx, 0).shape;
  GatherPlan plan;
  if (inst.opcode() == fb::Opcode::BroadcastTo)
    return planBroadcastGather(x, y, plan) ? std::optional(plan) : std::nullopt;
  if (inst.opcode() != fb::Opcode::Pad)
    return std::nullopt;
  StatusOr<cpu::PadMode> mode = padMode(strAttr(inst));
  if (!mode.ok() || *mode == cpu::PadMode::Constant)
    return std::nullopt; // constant: box fills, when f32
  IntReader ints(inst);
  std::vector<int64_t> lo = ints.next(x.size()), hi = ints.next(x.size());
  return planPadGather(x, lo, hi, *mode, plan) ? std::optional(plan)
                                               : std::nullopt;
}

StatusOr<RunFn> prepareGather(const fb::Instruction &inst,
                              const PrepareContext &ctx, cudaStream_t stream,
                              const UploadFn &upload) {
  size_t elemBytes = artifact::dtypeSize(outSlot(inst, ctx, 0).dtype);
  if (elemBytes != 1 && elemBytes != 2 && elemBytes != 4 && elemBytes != 8)
    return RunFn();
  std::optional<GatherPlan> plan = gatherPlanOf(inst, ctx);
  if (!plan)
    return RunFn();
  const void *tables = nullptr;
  if (!plan->tables.empty()) {
    SHARDRT_ASSIGN_OR_RETURN(
        tables,
        upload(plan->tables.data(), plan->tables.size() * sizeof(long long)));
  }
  GatherView view = plan->at(tables);
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_CUDA_TRY(
        launchGather(rc.slots[y], rc.slots[x], view, elemBytes, stream));
    return Status();
  });
}

} // namespace

StatusOr<RunFn> prepareMoveStep(const fb::Instruction &inst,
                                const PrepareContext &ctx, cudaStream_t stream,
                                const UploadFn &upload) {
  std::optional<MovePlan> plan = movePlanOf(inst, ctx);
  if (!plan)
    return prepareGather(inst, ctx, stream, upload);
  size_t elemBytes = artifact::dtypeSize(outSlot(inst, ctx, 0).dtype);
  std::vector<uint32_t> inputSlots;
  for (size_t k = 0; k < numInputs(inst); ++k)
    inputSlots.push_back(inIdx(inst, k));
  uint32_t y = outIdx(inst, 0);
  auto p = std::make_shared<const MovePlan>(std::move(*plan));
  return RunFn([=](RunContext &rc) -> Status {
    for (const BoxCopyPlan &fill : p->fills)
      SHARDRT_CUDA_TRY(
          launchFillBox(slotPtr<float>(rc, y), fill, float(p->value), stream));
    for (size_t k = 0; k < p->copies.size(); ++k)
      SHARDRT_CUDA_TRY(launchCopyBox(
          rc.slots[y], rc.slots[inputSlots[size_t(p->sources[k])]],
          p->copies[k], elemBytes, stream));
    return Status();
  });
}

} // namespace shardrt::exec::cuda
