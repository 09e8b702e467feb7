//===- PrepareData.cpp - copy, fill, permute, slice, concat ---------------===//

#include "Prepare.h"
#include "shardrt/artifact/Artifact.h"
#include "shardrt/cpu/Kernels.h"

#include <cmath>
#include <cstring>

namespace shardrt::exec {
namespace {

using fb::DType;
using fb::Opcode;

Status sameDType(const fb::Instruction &inst, const PrepareContext &ctx) {
  DType t = outSlot(inst, ctx, 0).dtype;
  for (size_t i = 0; i < numInputs(inst); ++i)
    if (inSlot(inst, ctx, i).dtype != t)
      return invalid("input " + std::to_string(i) + " is " +
                     fb::EnumNameDType(inSlot(inst, ctx, i).dtype) +
                     " but the output is " + fb::EnumNameDType(t));
  return Status();
}

StatusOr<RunFn> prepareCopy(const fb::Instruction &inst,
                            const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 1, 1));
  SHARDRT_RETURN_IF_ERROR(sameDType(inst, ctx));
  const SlotInfo &in = inSlot(inst, ctx, 0), &out = outSlot(inst, ctx, 0);
  if (numElements(in.shape) != numElements(out.shape))
    return invalid("copies " + shapeStr(in.shape) + " into " +
                   shapeStr(out.shape) + " (different element counts)");
  size_t bytes = size_t(in.tensorBytes());
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) {
    if (rc.slots[x] != rc.slots[y] && bytes)
      std::memmove(rc.slots[y], rc.slots[x], bytes);
    return Status();
  });
}

StatusOr<RunFn> prepareFill(const fb::Instruction &inst,
                            const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 0, 0, 1));
  const SlotInfo &out = outSlot(inst, ctx, 0);
  std::vector<double> v = floatAttrs(inst);
  if (v.size() != 1)
    return invalid("needs one fill value");
  // A 16-bit fill is +0.0 (zero bytes); other values compute in f32. An
  // int64 fill (indices) is 0, also zero bytes.
  bool zeroOnly = out.dtype == DType::BF16 || out.dtype == DType::F16 ||
                  out.dtype == DType::I64;
  bool zero = v[0] == 0.0 && !std::signbit(v[0]);
  if (out.dtype != DType::F32 && out.dtype != DType::I1 && !(zeroOnly && zero))
    return Status::unimplemented(
        "fill of " + std::string(fb::EnumNameDType(out.dtype)) +
        (zeroOnly ? std::string(" with a value other than +0.0") : ""));
  int64_t n = numElements(out.shape);
  bool isFloat = out.dtype == DType::F32;
  float f = float(v[0]);
  uint8_t b = v[0] != 0;
  size_t bytes = out.tensorBytes();
  uint32_t y = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) {
    if (isFloat)
      std::fill_n(slotPtr<float>(rc, y), n, f);
    else
      std::memset(rc.slots[y], b, bytes);
    return Status();
  });
}

StatusOr<RunFn> preparePermute(const fb::Instruction &inst,
                               const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 1, 1));
  SHARDRT_RETURN_IF_ERROR(sameDType(inst, ctx));
  const SlotInfo &in = inSlot(inst, ctx, 0), &out = outSlot(inst, ctx, 0);
  IntReader ints(inst);
  std::vector<int64_t> perm = ints.next(in.shape.size());
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  std::vector<bool> seen(perm.size(), false);
  Shape expected;
  for (int64_t p : perm) {
    if (p < 0 || p >= int64_t(perm.size()) || seen[p])
      return invalid("is not a permutation of " + std::to_string(perm.size()) +
                     " dims");
    seen[p] = true;
    expected.push_back(in.shape[p]);
  }
  SHARDRT_RETURN_IF_ERROR(requireShape(out, expected, "the output"));
  Shape xs = in.shape;
  size_t bytes = artifact::dtypeSize(in.dtype);
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) {
    cpu::permute(rc.slots[x], xs, perm, rc.slots[y], bytes);
    return Status();
  });
}

StatusOr<RunFn> prepareSlice(const fb::Instruction &inst,
                             const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 1, 1));
  SHARDRT_RETURN_IF_ERROR(sameDType(inst, ctx));
  const SlotInfo &in = inSlot(inst, ctx, 0), &out = outSlot(inst, ctx, 0);
  size_t rank = in.shape.size();
  IntReader ints(inst);
  std::vector<int64_t> start = ints.next(rank), step = ints.next(rank);
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  if (out.shape.size() != rank)
    return invalid("the output has rank " + std::to_string(out.shape.size()));
  for (size_t d = 0; d < rank; ++d) {
    int64_t n = in.shape[d], m = out.shape[d];
    if (step[d] < 1 || step[d] > (int64_t(1) << 40))
      return invalid("slice of dim " + std::to_string(d) + " has step " +
                     std::to_string(step[d]) + "; steps are 1 to 2^40");
    bool ok =
        start[d] >= 0 &&
        (m == 0 || (start[d] < n && (m - 1) <= (n - 1 - start[d]) / step[d]));
    if (!ok)
      return invalid("slice of dim " + std::to_string(d) + " (start " +
                     std::to_string(start[d]) + ", step " +
                     std::to_string(step[d]) + ", " + std::to_string(m) +
                     " elements) reads outside its " + std::to_string(n));
  }
  Shape xs = in.shape, ys = out.shape;
  size_t bytes = artifact::dtypeSize(in.dtype);
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) {
    cpu::slice(rc.slots[x], xs, start, step, rc.slots[y], ys, bytes);
    return Status();
  });
}

StatusOr<RunFn> prepareConcat(const fb::Instruction &inst,
                              const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 1 << 16, 1));
  SHARDRT_RETURN_IF_ERROR(sameDType(inst, ctx));
  const SlotInfo &out = outSlot(inst, ctx, 0);
  IntReader ints(inst);
  int64_t dim = ints.next();
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  if (dim < 0 || dim >= int64_t(out.shape.size()))
    return invalid("concat dim " + std::to_string(dim) + " is out of range");
  std::vector<Shape> shapes;
  std::vector<uint32_t> slots;
  int64_t total = 0;
  for (size_t i = 0; i < numInputs(inst); ++i) {
    Shape s = inSlot(inst, ctx, i).shape;
    Shape other = s;
    if (s.size() != out.shape.size())
      return invalid("input " + std::to_string(i) + " has rank " +
                     std::to_string(s.size()));
    total += s[dim];
    other[dim] = out.shape[dim];
    if (other != out.shape)
      return invalid("input " + std::to_string(i) + " " + shapeStr(s) +
                     " does not fit the output " + shapeStr(out.shape));
    shapes.push_back(s);
    slots.push_back(inIdx(inst, i));
  }
  if (total != out.shape[dim])
    return invalid("the inputs sum to " + std::to_string(total) +
                   " along dim " + std::to_string(dim) + "; the output has " +
                   std::to_string(out.shape[dim]));
  size_t bytes = artifact::dtypeSize(out.dtype);
  uint32_t y = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) {
    std::vector<const void *> xs;
    xs.reserve(slots.size());
    for (uint32_t s : slots)
      xs.push_back(rc.slots[s]);
    cpu::concat(xs, shapes, dim, rc.slots[y], bytes);
    return Status();
  });
}

} // namespace

StatusOr<RunFn> prepareData(const fb::Instruction &inst,
                            const PrepareContext &ctx) {
  switch (inst.opcode()) {
  case Opcode::Copy:
    return prepareCopy(inst, ctx);
  case Opcode::Fill:
    return prepareFill(inst, ctx);
  case Opcode::Permute:
    return preparePermute(inst, ctx);
  case Opcode::Slice:
    return prepareSlice(inst, ctx);
  case Opcode::Concat:
    return prepareConcat(inst, ctx);
  default:
    return unsupportedOpcode(inst);
  }
}

} // namespace shardrt::exec
