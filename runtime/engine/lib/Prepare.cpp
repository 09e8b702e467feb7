//===- Prepare.cpp - Instruction dispatch and shared checks ---------------===//

#include "Prepare.h"
#include "shardrt/artifact/Artifact.h"

#include <algorithm>

namespace shardrt::exec {

uint64_t SlotInfo::tensorBytes() const {
  return hasShape ? uint64_t(numElements(shape)) * artifact::dtypeSize(dtype)
                  : bytes;
}

SlotInfo slotInfo(const fb::BufferSlot &slot) {
  SlotInfo s;
  s.dtype = slot.dtype();
  s.hasShape = slot.has_shape();
  if (slot.shape())
    s.shape.assign(slot.shape()->begin(), slot.shape()->end());
  s.bytes = slot.bytes();
  return s;
}

IntReader::IntReader(const fb::Instruction &inst)
    : ints_(inst.ints()), size_(ints_ ? ints_->size() : 0) {}

int64_t IntReader::next() {
  if (pos_ >= size_) {
    shortfall_ = true;
    ++pos_;
    return 0;
  }
  return ints_->Get(static_cast<flatbuffers::uoffset_t>(pos_++));
}

std::vector<int64_t> IntReader::next(size_t n) {
  std::vector<int64_t> v;
  v.reserve(std::min<size_t>(n, 64));
  for (size_t i = 0; i < n && !shortfall_; ++i)
    v.push_back(next());
  return v;
}

Status IntReader::finish() const {
  if (shortfall_ || pos_ != size_)
    return invalid("has " + std::to_string(size_) +
                   " integer attributes; its encoding needs " +
                   (shortfall_ ? "more" : std::to_string(pos_)));
  return Status();
}

std::string shapeStr(const Shape &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

Status invalid(const std::string &message) {
  return Status::invalidArgument(message);
}

Status checkOperands(const fb::Instruction &inst, const PrepareContext &ctx,
                     size_t minIn, size_t maxIn, size_t outs) {
  size_t nin = inst.inputs() ? inst.inputs()->size() : 0;
  size_t nout = inst.outputs() ? inst.outputs()->size() : 0;
  if (nin < minIn || nin > maxIn)
    return invalid("has " + std::to_string(nin) + " inputs; expected " +
                   (minIn == maxIn ? std::to_string(minIn)
                                   : std::to_string(minIn) + " to " +
                                         std::to_string(maxIn)));
  if (nout != outs)
    return invalid("has " + std::to_string(nout) + " outputs; expected " +
                   std::to_string(outs));
  for (const auto *list : {inst.inputs(), inst.outputs()})
    for (size_t i = 0; list && i < list->size(); ++i)
      if (!ctx.slots[list->Get(i)].hasShape)
        return invalid("operand slot " + std::to_string(list->Get(i)) +
                       " is scratch space without a tensor shape");
  return Status();
}

const SlotInfo &inSlot(const fb::Instruction &inst, const PrepareContext &ctx,
                       size_t i) {
  return ctx.slots[inst.inputs()->Get(static_cast<flatbuffers::uoffset_t>(i))];
}

const SlotInfo &outSlot(const fb::Instruction &inst, const PrepareContext &ctx,
                        size_t i) {
  return ctx.slots[inst.outputs()->Get(static_cast<flatbuffers::uoffset_t>(i))];
}

Status requireDType(const SlotInfo &slot, fb::DType dtype,
                    const std::string &what) {
  if (slot.dtype == dtype)
    return Status();
  return Status::unimplemented(what + " is " + fb::EnumNameDType(slot.dtype) +
                               "; the CPU backend computes this op in " +
                               fb::EnumNameDType(dtype));
}

Status requireShape(const SlotInfo &slot, const Shape &expected,
                    const std::string &what) {
  if (slot.shape == expected)
    return Status();
  return invalid(what + " has shape " + shapeStr(slot.shape) + "; expected " +
                 shapeStr(expected));
}

Status requireF32(const fb::Instruction &inst, const PrepareContext &ctx,
                  size_t inputs) {
  for (size_t i = 0; i < std::min(inputs, numInputs(inst)); ++i)
    SHARDRT_RETURN_IF_ERROR(requireDType(inSlot(inst, ctx, i), fb::DType::F32,
                                         "input " + std::to_string(i)));
  for (size_t i = 0; inst.outputs() && i < inst.outputs()->size(); ++i)
    SHARDRT_RETURN_IF_ERROR(
        requireDType(outSlot(inst, ctx, i), fb::DType::F32, "the output"));
  return Status();
}

Status requireBlasDims(std::initializer_list<int64_t> dims, const char *op) {
  for (int64_t d : dims)
    if (d >= (int64_t(1) << 31))
      return Status::unimplemented(std::string(op) +
                                   " with a GEMM dimension of 2^31 or more");
  return Status();
}

StatusOr<Shape> broadcastShapes(const std::vector<Shape> &shapes) {
  size_t rank = 0;
  for (const Shape &s : shapes)
    rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape &s : shapes) {
    Shape p = padShape(s, rank);
    for (size_t d = 0; d < rank; ++d) {
      if (p[d] == out[d] || p[d] == 1)
        continue;
      if (out[d] != 1)
        return invalid("shapes " + shapeStr(shapes[0]) + " and " + shapeStr(s) +
                       " do not broadcast");
      out[d] = p[d];
    }
  }
  return out;
}

Shape padShape(const Shape &shape, size_t rank) {
  Shape p(rank - std::min(rank, shape.size()), 1);
  p.insert(p.end(), shape.begin(), shape.end());
  return p;
}

namespace {
/// True when `inst` has outputs and none of them has an element. A compute
/// instruction then has nothing to write, and its kernel must not see the
/// extents that only a zero dim makes legal (a (0, 2^40) slot holds no bytes
/// but a kernel sizing per-dim tables from it would allocate terabytes).
bool writesNothing(const fb::Instruction &inst, const PrepareContext &ctx) {
  if (!inst.outputs() || inst.outputs()->size() == 0)
    return false;
  for (uint32_t i = 0; i < inst.outputs()->size(); ++i)
    if (numElements(ctx.slots[inst.outputs()->Get(i)].shape) != 0)
      return false;
  return true;
}
} // namespace

Status unsupportedOpcode(const fb::Instruction &inst) {
  return Status::unimplemented(
      std::string("the CPU backend does not implement opcode ") +
      fb::EnumNameOpcode(inst.opcode()));
}

namespace {
StatusOr<RunFn> routeToFamily(const fb::Instruction &inst,
                              const PrepareContext &ctx) {
  using fb::Opcode;
  switch (inst.opcode()) {
  case Opcode::ElementwiseFused:
    return prepareElementwiseFused(inst, ctx);
  case Opcode::ReductionFused:
    return prepareReductionFused(inst, ctx);
  case Opcode::Unary:
  case Opcode::Binary:
  case Opcode::Compare:
  case Opcode::Select:
  case Opcode::Cast:
  case Opcode::BroadcastTo:
  case Opcode::Reduce:
  case Opcode::Softmax:
  case Opcode::Scan:
  case Opcode::ScanTotals:
  case Opcode::Norm:
    return prepareCompute(inst, ctx);
  case Opcode::Matmul:
  case Opcode::Linear:
  case Opcode::Attention:
  case Opcode::NeighborhoodAttention:
    return prepareContraction(inst, ctx);
  case Opcode::Conv:
  case Opcode::ConvTranspose:
  case Opcode::Pool:
  case Opcode::Interpolate:
  case Opcode::Pad:
    return prepareWindowed(inst, ctx);
  case Opcode::Copy:
  case Opcode::Fill:
  case Opcode::Permute:
  case Opcode::Slice:
  case Opcode::Concat:
    return prepareData(inst, ctx);
  case Opcode::HaloExchange:
  case Opcode::SendRecv:
  case Opcode::AllReduce:
  case Opcode::AllGather:
  case Opcode::ReduceScatter:
  case Opcode::AllToAll:
  case Opcode::Broadcast:
  case Opcode::Barrier:
  case Opcode::Wait:
    return prepareComm(inst, ctx);
  case Opcode::RingAttention:
    return prepareRingAttention(inst, ctx);
  default:
    return unsupportedOpcode(inst);
  }
}
} // namespace

StatusOr<RunFn> prepareInstruction(const fb::Instruction &inst,
                                   const PrepareContext &ctx) {
  StatusOr<RunFn> fn = routeToFamily(inst, ctx);
  // Communication must run even when empty: the peers take part too.
  if (fn.ok() && !artifact::communicates(inst.opcode()) &&
      writesNothing(inst, ctx))
    return RunFn([](RunContext &) { return Status(); });
  return fn;
}

} // namespace shardrt::exec
