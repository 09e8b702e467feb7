//===- CudaDataMovement.cpp - Pads, slices, permutes, concats on device ---===//
//
// Box fills and strided box copies (DataMovementPlan, planned once here) on
// the session's stream; instructions the plans do not cover (other pad
// modes, non-f32 constant pads, rank above 16) stay staged through the host.
//
//===----------------------------------------------------------------------===//

#include "CudaSupport.h"
#include "DataMovementPlan.h"

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

} // namespace

RunFn prepareMoveStep(const fb::Instruction &inst, const PrepareContext &ctx,
                      cudaStream_t stream) {
  std::optional<MovePlan> plan = movePlanOf(inst, ctx);
  if (!plan)
    return RunFn();
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
