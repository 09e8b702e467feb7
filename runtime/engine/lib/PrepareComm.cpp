//===- PrepareComm.cpp - Halo exchanges and collectives -------------------===//
//
// Exchanges pack each box into a staging buffer, post every receive and
// send non-blocking, wait for all of them under the communicator's timeout
// (a dead peer becomes DeadlineExceeded, never a hang) and unpack. Peers are
// relative mesh offsets resolved against this rank's coordinates once, at
// prepare time.
//
// Collectives run over the whole world; groups that are a proper subset of
// the mesh axes need sub-communicators, which the comm layer does not offer
// yet, and are rejected at prepare time.
//
//===----------------------------------------------------------------------===//

#include "Prepare.h"
#include "shardrt/artifact/Artifact.h"
#include "shardrt/comm/Communicator.h"
#include "shardrt/cpu/Kernels.h"

#include <cstring>
#include <memory>

namespace shardrt::exec {
namespace {

using fb::Opcode;

struct BoxTransfer {
  bool send = false;
  int peer = 0;
  int tag = 0;
  uint32_t slot = 0;
  Shape slotShape, lo, box;
  size_t elemBytes = 0, bytes = 0;
};

/// The world rank at `coords + offset` (wrapping when periodic), or -1 when
/// the offset leaves the mesh.
int peerRank(const PrepareContext &ctx,
             const flatbuffers::Vector<int32_t> *offset, bool periodic) {
  size_t axes = ctx.meshShape.size();
  if ((offset ? offset->size() : 0) != axes)
    return -1;
  int64_t rank = 0;
  for (size_t a = 0; a < axes; ++a) {
    int64_t n = ctx.meshShape[a];
    int64_t c = ctx.meshCoords[a] + offset->Get(uint32_t(a));
    if (periodic)
      c = ((c % n) + n) % n;
    if (c < 0 || c >= n)
      return -1;
    rank = rank * n + c;
  }
  return int(rank);
}

StatusOr<RunFn> prepareExchange(const fb::Instruction &inst,
                                const PrepareContext &ctx) {
  auto transfers = std::make_shared<std::vector<BoxTransfer>>();
  for (uint32_t i = 0; inst.transfers() && i < inst.transfers()->size(); ++i) {
    const fb::Transfer &t = *inst.transfers()->Get(i);
    BoxTransfer bt;
    bt.send = t.kind() == fb::TransferKind::Send;
    bt.peer = peerRank(ctx, t.peer(), t.periodic());
    if (bt.peer < 0)
      return invalid("transfer " + std::to_string(i) +
                     " names a peer outside the mesh");
    if (t.tag() > uint32_t(comm::kMaxTag))
      return invalid("transfer " + std::to_string(i) + " has tag " +
                     std::to_string(t.tag()) + " > " +
                     std::to_string(comm::kMaxTag));
    bt.tag = int(t.tag());
    bt.slot = t.slot();
    const SlotInfo &slot = ctx.slots[bt.slot];
    bt.slotShape = slot.shape;
    bt.elemBytes = artifact::dtypeSize(slot.dtype);
    // The loader checked that [lo, hi) lies inside the slot's shape.
    for (uint32_t d = 0; d < t.lo()->size(); ++d) {
      bt.lo.push_back(t.lo()->Get(d));
      bt.box.push_back(t.hi()->Get(d) - t.lo()->Get(d));
    }
    bt.bytes = size_t(numElements(bt.box)) * bt.elemBytes;
    transfers->push_back(std::move(bt));
  }
  auto staging = std::make_shared<std::vector<std::vector<uint8_t>>>();
  for (const BoxTransfer &t : *transfers)
    staging->emplace_back(t.bytes);
  return RunFn([transfers, staging](RunContext &rc) -> Status {
    if (!rc.comm)
      return Status::failedPrecondition("an exchange needs a communicator");
    std::vector<comm::Request> requests;
    for (size_t i = 0; i < transfers->size(); ++i) {
      const BoxTransfer &t = (*transfers)[i];
      uint8_t *buf = (*staging)[i].data();
      StatusOr<comm::Request> r = Status::internal("unset");
      if (t.send) {
        cpu::copyBox(rc.slots[t.slot], t.slotShape, t.lo, buf, t.box,
                     Shape(t.box.size(), 0), t.box, t.elemBytes);
        r = rc.comm->isend(buf, t.bytes, t.peer, t.tag);
      } else {
        r = rc.comm->irecv(buf, t.bytes, t.peer, t.tag);
      }
      if (!r.ok())
        return r.status();
      requests.push_back(std::move(*r));
    }
    SHARDRT_RETURN_IF_ERROR(rc.comm->waitAll(
        comm::Span<comm::Request>(requests.data(), requests.size())));
    for (size_t i = 0; i < transfers->size(); ++i) {
      const BoxTransfer &t = (*transfers)[i];
      if (!t.send)
        cpu::copyBox((*staging)[i].data(), t.box, Shape(t.box.size(), 0),
                     rc.slots[t.slot], t.slotShape, t.lo, t.box, t.elemBytes);
    }
    return Status();
  });
}

Status wholeWorld(const fb::Instruction &inst, const PrepareContext &ctx) {
  size_t axes = inst.mesh_axes() ? inst.mesh_axes()->size() : 0;
  if (axes != ctx.meshShape.size())
    return Status::unimplemented(
        "collectives over a subset of the mesh axes (" + std::to_string(axes) +
        " of " + std::to_string(ctx.meshShape.size()) +
        ") are not supported "
        "by the CPU backend yet");
  // The group must list the axes major to minor so that group order is world
  // rank order.
  for (uint32_t a = 0; a < axes; ++a)
    if (inst.mesh_axes()->Get(a) != a)
      return Status::unimplemented("collective groups must list the mesh "
                                   "axes in order");
  return Status();
}

StatusOr<RunFn> prepareAllReduce(const fb::Instruction &inst,
                                 const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 1, 1));
  SHARDRT_RETURN_IF_ERROR(wholeWorld(inst, ctx));
  const SlotInfo &in = inSlot(inst, ctx, 0), &out = outSlot(inst, ctx, 0);
  SHARDRT_RETURN_IF_ERROR(requireDType(in, fb::DType::F32, "the input"));
  SHARDRT_RETURN_IF_ERROR(requireDType(out, fb::DType::F32, "the output"));
  SHARDRT_RETURN_IF_ERROR(requireShape(out, in.shape, "the output"));
  comm::ReduceOp op;
  switch (inst.reduce()) {
  case fb::ReduceKind::Sum:
    op = comm::ReduceOp::Sum;
    break;
  case fb::ReduceKind::Max:
    op = comm::ReduceOp::Max;
    break;
  case fb::ReduceKind::Min:
    op = comm::ReduceOp::Min;
    break;
  case fb::ReduceKind::Prod:
    op = comm::ReduceOp::Prod;
    break;
  default:
    return Status::unimplemented(std::string("all-reduce of kind ") +
                                 fb::EnumNameReduceKind(inst.reduce()));
  }
  int64_t n = numElements(in.shape);
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) -> Status {
    if (!rc.comm)
      return Status::failedPrecondition("an all-reduce needs a communicator");
    return rc.comm->allReduce(rc.slots[x], rc.slots[y], n, comm::DataType::F32,
                              op);
  });
}

/// ints: dim, then the extent of every rank's shard along dim.
StatusOr<RunFn> prepareAllGather(const fb::Instruction &inst,
                                 const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 1, 1));
  SHARDRT_RETURN_IF_ERROR(wholeWorld(inst, ctx));
  const SlotInfo &in = inSlot(inst, ctx, 0), &out = outSlot(inst, ctx, 0);
  if (in.dtype != out.dtype)
    return invalid("the input and output differ in dtype");
  int64_t world = 1;
  for (int64_t n : ctx.meshShape)
    world *= n;
  IntReader ints(inst);
  int64_t dim = ints.next();
  std::vector<int64_t> extents = ints.next(size_t(world));
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  if (dim < 0 || dim >= int64_t(in.shape.size()))
    return invalid("gathers along dim " + std::to_string(dim));
  Shape expected = in.shape;
  expected[dim] = 0;
  for (int64_t e : extents) {
    if (e < 0)
      return invalid("negative extent");
    expected[dim] += e;
  }
  if (extents[size_t(ctx.rank)] != in.shape[dim])
    return invalid("this rank's extent is " +
                   std::to_string(extents[size_t(ctx.rank)]) +
                   " but its shard has " + std::to_string(in.shape[dim]));
  SHARDRT_RETURN_IF_ERROR(requireShape(out, expected, "the output"));
  size_t elem = artifact::dtypeSize(in.dtype);
  std::vector<int64_t> counts;
  for (int64_t e : extents) {
    Shape s = in.shape;
    s[dim] = e;
    counts.push_back(numElements(s) * int64_t(elem));
  }
  Shape inShape = in.shape, outShape = out.shape;
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  auto staging = std::make_shared<std::vector<uint8_t>>(
      size_t(numElements(outShape)) * elem);
  return RunFn([=](RunContext &rc) -> Status {
    if (!rc.comm)
      return Status::failedPrecondition("an all-gather needs a communicator");
    SHARDRT_RETURN_IF_ERROR(
        rc.comm->allGatherV(rc.slots[x], counts[size_t(rc.comm->rank())],
                            staging->data(), counts, comm::DataType::Byte));
    // Rank-major blocks -> their place along `dim`.
    int64_t at = 0, byteAt = 0;
    for (size_t r = 0; r < extents.size(); ++r) {
      Shape block = inShape;
      block[dim] = extents[r];
      Shape dst(outShape.size(), 0);
      dst[dim] = at;
      cpu::copyBox(staging->data() + byteAt, block, Shape(block.size(), 0),
                   rc.slots[y], outShape, dst, block, elem);
      at += extents[r];
      byteAt += counts[r];
    }
    return Status();
  });
}

StatusOr<RunFn> prepareBroadcast(const fb::Instruction &inst,
                                 const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 1, 1));
  SHARDRT_RETURN_IF_ERROR(wholeWorld(inst, ctx));
  const SlotInfo &in = inSlot(inst, ctx, 0), &out = outSlot(inst, ctx, 0);
  if (in.dtype != out.dtype || in.shape != out.shape)
    return invalid("a broadcast's input and output must match");
  IntReader ints(inst);
  int64_t root = ints.next();
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  int64_t world = 1;
  for (int64_t n : ctx.meshShape)
    world *= n;
  if (root < 0 || root >= world)
    return invalid("broadcast root " + std::to_string(root));
  int64_t bytes =
      numElements(in.shape) * int64_t(artifact::dtypeSize(in.dtype));
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) -> Status {
    if (!rc.comm)
      return Status::failedPrecondition("a broadcast needs a communicator");
    if (rc.slots[x] != rc.slots[y] && bytes)
      std::memmove(rc.slots[y], rc.slots[x], size_t(bytes));
    return rc.comm->broadcast(rc.slots[y], bytes, comm::DataType::Byte,
                              int(root));
  });
}

} // namespace

StatusOr<RunFn> prepareComm(const fb::Instruction &inst,
                            const PrepareContext &ctx) {
  switch (inst.opcode()) {
  case Opcode::HaloExchange:
  case Opcode::SendRecv:
    return prepareExchange(inst, ctx);
  case Opcode::AllReduce:
    return prepareAllReduce(inst, ctx);
  case Opcode::AllGather:
    return prepareAllGather(inst, ctx);
  case Opcode::Broadcast:
    return prepareBroadcast(inst, ctx);
  case Opcode::Barrier:
    SHARDRT_RETURN_IF_ERROR(wholeWorld(inst, ctx));
    return RunFn([](RunContext &rc) -> Status {
      return rc.comm ? rc.comm->barrier() : Status();
    });
  case Opcode::Wait:
    // Exchanges complete before their instruction returns, so the transfers
    // a Wait names are already done.
    return RunFn([](RunContext &) { return Status(); });
  case Opcode::ReduceScatter:
  case Opcode::AllToAll:
    return Status::unimplemented(std::string("the CPU backend does not run ") +
                                 fb::EnumNameOpcode(inst.opcode()) +
                                 " instructions yet");
  default:
    return unsupportedOpcode(inst);
  }
}

} // namespace shardrt::exec
