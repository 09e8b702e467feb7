//===- CudaDataMovement.cpp - Pad, slice and concat on the device ---------===//
//
// Box fills and box copies (DataMovementPlan, planned once here) on the
// session's stream; instructions the plans do not cover (other pad modes,
// strided slices, boxes of rank above 16) stay staged through the host.
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

std::vector<int64_t> intsOf(const fb::Instruction &inst) {
  std::vector<int64_t> v;
  if (inst.ints())
    v.assign(inst.ints()->begin(), inst.ints()->end());
  return v;
}

/// The plan of `inst`, or none when the host keeps it.
std::optional<MovePlan> movePlanOf(const fb::Instruction &inst,
                                   const PrepareContext &ctx) {
  const SlotInfo &out = outSlot(inst, ctx, 0);
  const Shape &x = inSlot(inst, ctx, 0).shape;
  std::vector<int64_t> ints = intsOf(inst);
  size_t rank = x.size();
  MovePlan plan;
  switch (inst.opcode()) {
  case fb::Opcode::Pad: {
    std::vector<double> value = floatAttrs(inst);
    if (strAttr(inst) != "constant" || out.dtype != fb::DType::F32 ||
        ints.size() != 2 * rank || value.size() != 1 ||
        !planPadMove(x, out.shape,
                     std::vector<int64_t>(ints.begin(), ints.begin() + rank),
                     value[0], plan))
      return std::nullopt;
    return plan;
  }
  case fb::Opcode::Slice:
    if (ints.size() != 2 * rank ||
        !planSliceMove(x, out.shape,
                       std::vector<int64_t>(ints.begin(), ints.begin() + rank),
                       std::vector<int64_t>(ints.begin() + rank, ints.end()),
                       plan))
      return std::nullopt;
    return plan;
  case fb::Opcode::Concat: {
    std::vector<Shape> shapes;
    for (size_t k = 0; k < numInputs(inst); ++k)
      shapes.push_back(inSlot(inst, ctx, k).shape);
    if (ints.size() != 1 || !planConcatMove(shapes, out.shape, ints[0], plan))
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
  fb::DType dtype = outSlot(inst, ctx, 0).dtype;
  // The fill kernel writes floats.
  if (!plan || (!plan->fills.empty() && dtype != fb::DType::F32))
    return RunFn();
  size_t elemBytes = artifact::dtypeSize(dtype);
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
