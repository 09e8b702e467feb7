//===- PrepareComm.cpp - Halo exchanges and collectives -------------------===//
//
// Exchanges pack each box into the session's workspace (Workspace.h), post
// every receive and
// send non-blocking, wait for all of them under the communicator's timeout
// (a dead peer becomes DeadlineExceeded, never a hang) and unpack. Peers are
// relative mesh offsets resolved against this rank's coordinates once, at
// prepare time.
//
// Collectives over the whole mesh use the communicator's collectives.
// Groups over a subset of the mesh axes (a row of a 2-D mesh) and
// reduce-scatters run point to point among the group's members under one
// reserved tag; each member reduces the blocks in group order, so all
// members get bitwise the same result.
//
//===----------------------------------------------------------------------===//

#include "Collectives.h"
#include "Prepare.h"
#include "shardrt/artifact/Artifact.h"
#include "shardrt/comm/Communicator.h"
#include "shardrt/cpu/Kernels.h"

#include <algorithm>
#include <cstring>
#include <memory>

namespace shardrt::exec {
namespace {

using fb::Opcode;

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

} // namespace

/// One exchange's transfers, the workspace each stages its box in and,
/// between a deferred start and its Wait, the requests in flight.
struct ExchangeState {
  std::vector<BoxTransfer> transfers;
  std::vector<WorkspacePlan::Ref> staging; // one per transfer
  std::vector<comm::Request> inFlight;
  comm::Communicator *postedOn = nullptr;

  /// Packs every send and posts every transfer, non-blocking.
  Status post(RunContext &rc) {
    SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "an exchange"));
    for (size_t i = 0; i < transfers.size(); ++i) {
      const BoxTransfer &t = transfers[i];
      uint8_t *buf = staging[i].data();
      StatusOr<comm::Request> r = Status::internal("unset");
      if (t.send) {
        cpu::copyBox(rc.slots[t.slot], t.slotShape, t.lo, buf, t.box,
                     Shape(t.box.size(), 0), t.box, t.elemBytes);
        r = rc.comm->isend(buf, t.bytes, t.peer, t.tag);
      } else {
        r = rc.comm->irecv(buf, t.bytes, t.peer, t.tag);
      }
      if (!r.ok()) {
        postedOn = rc.comm;
        drain();
        return r.status();
      }
      inFlight.push_back(std::move(*r));
    }
    postedOn = rc.comm;
    return Status();
  }

  /// Waits for what post() started (under the communicator's timeout) and
  /// unpacks the receives into rc's slots.
  Status complete(RunContext &rc) {
    if (!postedOn || postedOn != rc.comm)
      return Status::failedPrecondition(
          "no exchange of this instruction is in flight on this communicator");
    Status s = rc.comm->waitAll(
        comm::Span<comm::Request>(inFlight.data(), inFlight.size()));
    inFlight.clear();
    postedOn = nullptr;
    SHARDRT_RETURN_IF_ERROR(s);
    for (size_t i = 0; i < transfers.size(); ++i) {
      const BoxTransfer &t = transfers[i];
      if (t.send)
        continue;
      uint8_t *buf = staging[i].data();
      cpu::copyBox(buf, t.box, Shape(t.box.size(), 0), rc.slots[t.slot],
                   t.slotShape, t.lo, t.box, t.elemBytes);
    }
    return Status();
  }

  /// Completes and drops transfers left in flight; their data is stale.
  void drain() {
    if (postedOn && !inFlight.empty())
      (void)postedOn->waitAll(
          comm::Span<comm::Request>(inFlight.data(), inFlight.size()));
    inFlight.clear();
    postedOn = nullptr;
  }
};

PendingExchanges::PendingExchanges() = default;
PendingExchanges::~PendingExchanges() = default;

void PendingExchanges::add(uint32_t instruction,
                           std::shared_ptr<ExchangeState> state) {
  entries_.push_back({instruction, Entry{std::move(state), false}});
}

StatusOr<std::shared_ptr<ExchangeState>>
PendingExchanges::claim(uint32_t instruction) {
  for (auto &[index, entry] : entries_) {
    if (index != instruction)
      continue;
    if (entry.claimed)
      return invalid("instruction " + std::to_string(instruction) +
                     " is waited for twice");
    entry.claimed = true;
    return entry.state;
  }
  return invalid("instruction " + std::to_string(instruction) +
                 " is not a halo exchange that is only started");
}

Status PendingExchanges::checkAllClaimed() const {
  for (const auto &[index, entry] : entries_)
    if (!entry.claimed)
      return invalid("the halo exchange started by instruction " +
                     std::to_string(index) + " has no Wait");
  return Status();
}

void PendingExchanges::drain() {
  for (auto &[index, entry] : entries_)
    entry.state->drain();
}

StatusOr<ExchangeTransfers> exchangeTransfers(const fb::Instruction &inst,
                                              const PrepareContext &ctx) {
  ExchangeTransfers x;
  for (uint32_t i = 0; inst.transfers() && i < inst.transfers()->size(); ++i) {
    const fb::Transfer &t = *inst.transfers()->Get(i);
    BoxTransfer bt;
    bt.send = t.kind() == fb::TransferKind::Send;
    bt.peer = peerRank(ctx, t.peer(), t.periodic());
    if (bt.peer < 0)
      return invalid("transfer " + std::to_string(i) +
                     " names a peer outside the mesh");
    if (t.tag() >= uint32_t(kGroupCollectiveTag))
      return invalid("transfer " + std::to_string(i) + " has tag " +
                     std::to_string(t.tag()) + "; exchanges use tags below " +
                     std::to_string(kGroupCollectiveTag) +
                     " (the last is reserved for group collectives)");
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
    x.transfers.push_back(std::move(bt));
  }
  IntReader ints(inst);
  x.startOnly = ints.size() > 0 && ints.next() != 0;
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  return x;
}

namespace {

StatusOr<RunFn> prepareExchange(const fb::Instruction &inst,
                                const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(ExchangeTransfers resolved,
                           exchangeTransfers(inst, ctx));
  auto state = std::make_shared<ExchangeState>();
  state->transfers = std::move(resolved.transfers);
  for (const BoxTransfer &t : state->transfers) {
    SHARDRT_ASSIGN_OR_RETURN(WorkspacePlan::Ref r,
                             ctx.reserveWorkspace(t.bytes));
    state->staging.push_back(r);
  }
  if (!resolved.startOnly)
    return RunFn([state](RunContext &rc) -> Status {
      SHARDRT_RETURN_IF_ERROR(state->post(rc));
      return state->complete(rc);
    });
  if (inst.opcode() != Opcode::HaloExchange || !ctx.pending)
    return invalid("only a halo exchange in a session's program can be "
                   "started without completing it");
  ctx.pending->add(ctx.instruction, state);
  return RunFn([state](RunContext &rc) { return state->post(rc); });
}

/// Completes the exchange started by instruction ints[0]. Its inputs and
/// outputs are the slots that exchange's receives write (so a backend that
/// stages steps through the host moves them).
StatusOr<RunFn> prepareWait(const fb::Instruction &inst,
                            const PrepareContext &ctx) {
  IntReader ints(inst);
  int64_t started = ints.next();
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  if (!ctx.pending)
    return invalid("a Wait needs a session's program");
  SHARDRT_ASSIGN_OR_RETURN(std::shared_ptr<ExchangeState> state,
                           ctx.pending->claim(uint32_t(started)));
  std::vector<uint32_t> outs;
  for (uint32_t i = 0; inst.outputs() && i < inst.outputs()->size(); ++i)
    outs.push_back(outIdx(inst, i));
  for (const BoxTransfer &t : state->transfers)
    if (!t.send && std::find(outs.begin(), outs.end(), t.slot) == outs.end())
      return invalid("its outputs do not list slot " + std::to_string(t.slot) +
                     ", which a receive of instruction " +
                     std::to_string(started) + " writes");
  std::shared_ptr<ExchangeState> s = state;
  // The boxes stay staged from the start until this Wait (staging was
  // reserved through ctx.workspace, which the Wait shares; a context that
  // lost it is refused, not followed).
  if (!s->staging.empty() && !ctx.workspace)
    return noWorkspace();
  for (WorkspacePlan::Ref r : s->staging)
    ctx.workspace->extendTo(r, ctx.instruction);
  return RunFn([s](RunContext &rc) { return s->complete(rc); });
}

Status wholeWorld(const fb::Instruction &inst, const PrepareContext &ctx) {
  size_t axes = inst.mesh_axes() ? inst.mesh_axes()->size() : 0;
  if (axes != ctx.meshShape.size())
    return Status::unimplemented(
        "this collective runs over the whole mesh only (" +
        std::to_string(axes) + " of " + std::to_string(ctx.meshShape.size()) +
        " axes given)");
  // The group must list the axes major to minor so that group order is world
  // rank order.
  for (uint32_t a = 0; a < axes; ++a)
    if (inst.mesh_axes()->Get(a) != a)
      return Status::unimplemented("collective groups must list the mesh "
                                   "axes in order");
  return Status();
}

} // namespace

StatusOr<Group> groupOf(const fb::Instruction &inst,
                        const PrepareContext &ctx) {
  std::vector<uint32_t> axes;
  if (inst.mesh_axes())
    axes.assign(inst.mesh_axes()->begin(), inst.mesh_axes()->end());
  std::vector<bool> seen(ctx.meshShape.size());
  for (uint32_t a : axes) {
    if (a >= ctx.meshShape.size() || seen[a])
      return invalid("the group's mesh axes must be distinct and inside the "
                     "mesh");
    seen[a] = true;
  }
  Group g;
  // The world's own collectives order members by world rank: they serve
  // only a group that lists every axis in mesh order.
  g.whole = axes.size() == ctx.meshShape.size() &&
            std::is_sorted(axes.begin(), axes.end());
  // Enumerate the group's coordinates in the listed order, first axis major.
  std::vector<int64_t> coords = ctx.meshCoords;
  for (uint32_t a : axes)
    coords[a] = 0;
  while (true) {
    int64_t rank = 0;
    bool self = true;
    for (size_t a = 0; a < coords.size(); ++a) {
      rank = rank * ctx.meshShape[a] + coords[a];
      self = self && coords[a] == ctx.meshCoords[a];
    }
    if (self)
      g.index = g.ranks.size();
    g.ranks.push_back(int(rank));
    size_t i = axes.size();
    while (i > 0 && ++coords[axes[i - 1]] == ctx.meshShape[axes[i - 1]])
      coords[axes[--i]] = 0;
    if (i == 0)
      break;
  }
  return g;
}

namespace {

/// A collective's operands (one input, one output) checked, and its group.
StatusOr<Group> collectiveGroup(const fb::Instruction &inst,
                                const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 1, 1));
  return groupOf(inst, ctx);
}

/// Reductions run on f32 buffers.
Status requireFloatReduction(const SlotInfo &in, const SlotInfo &out) {
  SHARDRT_RETURN_IF_ERROR(requireDType(in, fb::DType::F32, "the input"));
  return requireDType(out, fb::DType::F32, "the output");
}

} // namespace

Status exchangeInGroup(comm::Communicator &comm, const Group &g,
                       const std::vector<GroupMessage> &messages) {
  std::vector<comm::Request> requests;
  for (size_t q = 0; q < g.ranks.size(); ++q) {
    if (q == g.index)
      continue;
    StatusOr<comm::Request> r =
        comm.irecv(messages[q].recv, messages[q].recvBytes, g.ranks[q],
                   kGroupCollectiveTag);
    if (!r.ok())
      return r.status();
    requests.push_back(std::move(*r));
    r = comm.isend(messages[q].send, messages[q].sendBytes, g.ranks[q],
                   kGroupCollectiveTag);
    if (!r.ok())
      return r.status();
    requests.push_back(std::move(*r));
  }
  return comm.waitAll(
      comm::Span<comm::Request>(requests.data(), requests.size()));
}

namespace {

StatusOr<comm::ReduceOp> reduceOp(const fb::Instruction &inst) {
  switch (inst.reduce()) {
  case fb::ReduceKind::Sum:
    return comm::ReduceOp::Sum;
  case fb::ReduceKind::Max:
    return comm::ReduceOp::Max;
  case fb::ReduceKind::Min:
    return comm::ReduceOp::Min;
  case fb::ReduceKind::Prod:
    return comm::ReduceOp::Prod;
  default:
    return Status::unimplemented(std::string("reductions of kind ") +
                                 fb::EnumNameReduceKind(inst.reduce()));
  }
}

/// acc[i] = acc[i] (op) x[i].
void accumulate(float *acc, const float *x, int64_t n, comm::ReduceOp op) {
  for (int64_t i = 0; i < n; ++i) {
    switch (op) {
    case comm::ReduceOp::Sum:
      acc[i] += x[i];
      break;
    case comm::ReduceOp::Prod:
      acc[i] *= x[i];
      break;
    // A NaN wins wherever it sits, as torch.amax and torch.amin give it.
    case comm::ReduceOp::Max:
      acc[i] = acc[i] < x[i] || x[i] != x[i] ? x[i] : acc[i];
      break;
    case comm::ReduceOp::Min:
      acc[i] = x[i] < acc[i] || x[i] != x[i] ? x[i] : acc[i];
      break;
    }
  }
}

/// Reduces the members' blocks (blocks[q] is member q's) in group order
/// into `acc` (n floats apart from all of them), so that every member gets
/// bitwise the same result, then copies it to `out`, which may be one of
/// the blocks.
void reduceInOrder(const std::vector<const float *> &blocks, float *acc,
                   float *out, int64_t n, comm::ReduceOp op) {
  std::copy(blocks[0], blocks[0] + n, acc);
  for (size_t q = 1; q < blocks.size(); ++q)
    accumulate(acc, blocks[q], n, op);
  std::copy(acc, acc + n, out);
}

StatusOr<RunFn> prepareAllReduce(const fb::Instruction &inst,
                                 const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(AllReduceLayout l, decodeAllReduce(inst, ctx));
  if (l.group.whole)
    return RunFn([=](RunContext &rc) -> Status {
      SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "an all-reduce"));
      return rc.comm->allReduce(rc.slots[l.inSlot], rc.slots[l.outSlot], l.n,
                                comm::DataType::F32, l.op);
    });
  const Group &g = l.group;
  // The members' blocks, one place per member; this member's place, which
  // nothing is received into, holds the running sum.
  size_t n = size_t(l.n);
  SHARDRT_ASSIGN_OR_RETURN(
      WorkspacePlan::Ref received,
      ctx.reserveWorkspace(uint64_t(n * g.ranks.size()) * 4));
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "an all-reduce"));
    auto *staged = reinterpret_cast<float *>(received.data());
    const float *own = static_cast<const float *>(rc.slots[l.inSlot]);
    std::vector<const float *> blocks(g.ranks.size());
    for (size_t q = 0; q < g.ranks.size(); ++q)
      blocks[q] = q == g.index ? own : staged + q * n;
    SHARDRT_RETURN_IF_ERROR(
        exchangeInGroup(*rc.comm, g, l.messages(own, staged)));
    reduceInOrder(blocks, staged + g.index * n,
                  static_cast<float *>(rc.slots[l.outSlot]), l.n, l.op);
    return Status();
  });
}

/// How a gather or scatter splits along one dim among the group.
struct GroupSplit {
  int64_t dim = 0;
  std::vector<int64_t> extents; ///< one per member
  Shape whole;                  ///< the block shape with every extent summed
};

/// Reads `dim` and one extent per group member from `ints` and checks them
/// against this rank's block shape `block` (whose `dim` must equal its own
/// extent).
StatusOr<GroupSplit> readGroupSplit(IntReader &ints, const Group &g,
                                    const Shape &block) {
  GroupSplit out;
  out.dim = ints.next();
  out.extents = ints.next(g.ranks.size());
  if (ints.overrun())
    return ints.finish();
  int64_t dim = out.dim;
  if (dim < 0 || dim >= int64_t(block.size()))
    return invalid("splits along dim " + std::to_string(dim) + " of a rank-" +
                   std::to_string(block.size()) + " tensor");
  for (int64_t e : out.extents)
    if (e < 0)
      return invalid("negative extent");
  if (out.extents[g.index] != block[size_t(dim)])
    return invalid("this rank's extent is " +
                   std::to_string(out.extents[g.index]) +
                   " but its block has " + std::to_string(block[size_t(dim)]));
  out.whole = block;
  out.whole[size_t(dim)] = 0;
  for (int64_t e : out.extents)
    out.whole[size_t(dim)] += e;
  return out;
}

/// A gather's or scatter's ints: one split and nothing else.
StatusOr<GroupSplit> groupSplit(const fb::Instruction &inst, const Group &g,
                                const Shape &block) {
  IntReader ints(inst);
  SHARDRT_ASSIGN_OR_RETURN(GroupSplit split, readGroupSplit(ints, g, block));
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  return split;
}

/// The group of a data-moving collective, whose output keeps its input's
/// dtype.
StatusOr<Group> sameDTypeGroup(const fb::Instruction &inst,
                               const PrepareContext &ctx) {
  StatusOr<Group> group = collectiveGroup(inst, ctx);
  if (group.ok() && inSlot(inst, ctx, 0).dtype != outSlot(inst, ctx, 0).dtype)
    return invalid("the input and output differ in dtype");
  return group;
}

} // namespace

namespace {

/// `l`'s group, slots and their shapes.
void setOperands(CollectiveOperands &l, Group group,
                 const fb::Instruction &inst, const PrepareContext &ctx) {
  l.group = std::move(group);
  l.input = inSlot(inst, ctx, 0).shape;
  l.output = outSlot(inst, ctx, 0).shape;
  l.inSlot = inIdx(inst, 0);
  l.outSlot = outIdx(inst, 0);
}

} // namespace

BlockLayout blockLayout(const Shape &shape, int64_t dim,
                        const std::vector<int64_t> &extents, size_t elemBytes) {
  BlockLayout l;
  for (int64_t e : extents) {
    Shape block = shape;
    block[size_t(dim)] = e;
    l.counts.push_back(numElements(block) * int64_t(elemBytes));
    l.displs.push_back(l.total);
    l.total += l.counts.back();
    l.shapes.push_back(std::move(block));
  }
  return l;
}

StatusOr<AllReduceLayout> decodeAllReduce(const fb::Instruction &inst,
                                          const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(Group group, collectiveGroup(inst, ctx));
  const SlotInfo &in = inSlot(inst, ctx, 0), &out = outSlot(inst, ctx, 0);
  SHARDRT_RETURN_IF_ERROR(requireFloatReduction(in, out));
  SHARDRT_RETURN_IF_ERROR(requireShape(out, in.shape, "the output"));
  AllReduceLayout l;
  SHARDRT_ASSIGN_OR_RETURN(l.op, reduceOp(inst));
  setOperands(l, std::move(group), inst, ctx);
  l.n = numElements(in.shape);
  return l;
}

/// ints: dim, then the extent of every group member's shard along dim.
StatusOr<AllGatherLayout> decodeAllGather(const fb::Instruction &inst,
                                          const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(Group group, sameDTypeGroup(inst, ctx));
  const SlotInfo &in = inSlot(inst, ctx, 0), &out = outSlot(inst, ctx, 0);
  SHARDRT_ASSIGN_OR_RETURN(GroupSplit split, groupSplit(inst, group, in.shape));
  SHARDRT_RETURN_IF_ERROR(requireShape(out, split.whole, "the output"));
  AllGatherLayout l;
  setOperands(l, std::move(group), inst, ctx);
  l.dim = split.dim;
  l.extents = split.extents;
  l.elemBytes = artifact::dtypeSize(in.dtype);
  l.blocks = blockLayout(in.shape, l.dim, l.extents, l.elemBytes);
  return l;
}

/// ints: dim, then the extent of every group member's block along dim. The
/// input holds every member's block (the sum of the extents along dim).
StatusOr<ReduceScatterLayout> decodeReduceScatter(const fb::Instruction &inst,
                                                  const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(Group group, collectiveGroup(inst, ctx));
  const SlotInfo &in = inSlot(inst, ctx, 0), &out = outSlot(inst, ctx, 0);
  SHARDRT_RETURN_IF_ERROR(requireFloatReduction(in, out));
  ReduceScatterLayout l;
  SHARDRT_ASSIGN_OR_RETURN(l.op, reduceOp(inst));
  SHARDRT_ASSIGN_OR_RETURN(GroupSplit split,
                           groupSplit(inst, group, out.shape));
  SHARDRT_RETURN_IF_ERROR(requireShape(in, split.whole, "the input"));
  setOperands(l, std::move(group), inst, ctx);
  l.dim = split.dim;
  l.extents = split.extents;
  l.sent = blockLayout(in.shape, l.dim, l.extents, 4);
  return l;
}

/// ints: the split dim and every member's extent along it, then the concat
/// dim and every member's extent along it. The input holds this member's
/// block of the concat dim and the whole split dim; member q gets its rows of
/// the split dim. The output holds this member's rows of the split dim and
/// every member's block of the concat dim, in group order.
StatusOr<AllToAllLayout> decodeAllToAll(const fb::Instruction &inst,
                                        const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(Group group, sameDTypeGroup(inst, ctx));
  const SlotInfo &in = inSlot(inst, ctx, 0), &out = outSlot(inst, ctx, 0);
  IntReader ints(inst);
  SHARDRT_ASSIGN_OR_RETURN(GroupSplit split,
                           readGroupSplit(ints, group, out.shape));
  SHARDRT_ASSIGN_OR_RETURN(GroupSplit concat,
                           readGroupSplit(ints, group, in.shape));
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  if (split.dim == concat.dim)
    return invalid("splits and concatenates the same dim " +
                   std::to_string(split.dim));
  Shape expected = split.whole;
  expected[size_t(concat.dim)] = in.shape[size_t(concat.dim)];
  SHARDRT_RETURN_IF_ERROR(requireShape(in, expected, "the input"));
  AllToAllLayout l;
  setOperands(l, std::move(group), inst, ctx);
  l.splitDim = split.dim;
  l.concatDim = concat.dim;
  l.splitExtents = split.extents;
  l.concatExtents = concat.extents;
  l.elemBytes = artifact::dtypeSize(in.dtype);
  l.sent = blockLayout(l.input, l.splitDim, l.splitExtents, l.elemBytes);
  l.received = blockLayout(l.output, l.concatDim, l.concatExtents, l.elemBytes);
  return l;
}

/// ints: the root's world rank.
StatusOr<BroadcastLayout> decodeBroadcast(const fb::Instruction &inst,
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
  BroadcastLayout l;
  l.root = int(root);
  l.bytes = int64_t(in.tensorBytes());
  l.inSlot = inIdx(inst, 0);
  l.outSlot = outIdx(inst, 0);
  return l;
}

namespace {

/// Cuts the blocks of `l` out of `whole` into `packed`.
void packBlocks(const void *whole, const Shape &shape, int64_t dim,
                const BlockLayout &l, uint8_t *packed, size_t elem) {
  Shape lo(shape.size(), 0), origin(shape.size(), 0);
  for (size_t q = 0; q < l.shapes.size(); ++q) {
    cpu::copyBox(whole, shape, lo, packed + l.displs[q], l.shapes[q], origin,
                 l.shapes[q], elem);
    lo[size_t(dim)] += l.shapes[q][size_t(dim)];
  }
}

/// Puts the packed blocks of `l` into their places along `dim` of `whole`.
void unpackBlocks(const uint8_t *packed, const BlockLayout &l, void *whole,
                  const Shape &shape, int64_t dim, size_t elem) {
  Shape lo(shape.size(), 0), origin(shape.size(), 0);
  for (size_t q = 0; q < l.shapes.size(); ++q) {
    cpu::copyBox(packed + l.displs[q], l.shapes[q], origin, whole, shape, lo,
                 l.shapes[q], elem);
    lo[size_t(dim)] += l.shapes[q][size_t(dim)];
  }
}

/// What a collective may send while [dst, dst + dstBytes) is written:
/// `src` itself where sendableInPlace, else a copy in `spare`.
const void *apartFrom(const void *src, size_t bytes, const void *dst,
                      size_t dstBytes, const void *fineAt,
                      std::vector<uint8_t> &spare) {
  if (sendableInPlace(src, bytes, dst, dstBytes, fineAt))
    return src;
  const auto *s = static_cast<const uint8_t *>(src);
  spare.assign(s, s + bytes);
  return spare.data();
}

/// A copy of an input that overlaps what the step receives, made only when
/// the bindings of a run make them overlap; the one host memory of these
/// steps outside the session's workspace.
using Spare = std::shared_ptr<std::vector<uint8_t>>;

/// Workspace of `bytes` unless the step goes `direct` (from or into its
/// slot); a Ref to nothing then.
StatusOr<WorkspacePlan::Ref> reserveUnless(bool direct, uint64_t bytes,
                                           const PrepareContext &ctx) {
  if (direct)
    return WorkspacePlan::Ref{};
  return ctx.reserveWorkspace(bytes);
}

StatusOr<RunFn> prepareAllGather(const fb::Instruction &inst,
                                 const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(AllGatherLayout decoded, decodeAllGather(inst, ctx));
  auto l = std::make_shared<const AllGatherLayout>(std::move(decoded));
  // The blocks land member-major: in the output itself when that is its
  // layout (nothing precedes the gathered dim), else in staging and then
  // each in its place along `dim`.
  bool direct = l->packedIsOutput();
  SHARDRT_ASSIGN_OR_RETURN(
      WorkspacePlan::Ref staging,
      reserveUnless(direct, uint64_t(l->blocks.total), ctx));
  Spare spare = std::make_shared<std::vector<uint8_t>>();
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "an all-gather"));
    const BlockLayout &blocks = l->blocks;
    const Group &g = l->group;
    size_t total = size_t(blocks.total),
           ownBytes = size_t(blocks.counts[g.index]);
    auto *packed = static_cast<char *>(rc.slots[l->outSlot]);
    if (!direct)
      packed = reinterpret_cast<char *>(staging.data());
    char *ownBlock = packed + blocks.displs[g.index];
    const void *own = apartFrom(rc.slots[l->inSlot], ownBytes, packed, total,
                                ownBlock, *spare);
    if (g.whole) {
      // The communicators take a send buffer that is its own slot.
      SHARDRT_RETURN_IF_ERROR(rc.comm->allGatherV(
          own, int64_t(ownBytes), packed, blocks.counts, comm::DataType::Byte));
    } else {
      if (ownBytes && own != ownBlock)
        std::memcpy(ownBlock, own, ownBytes);
      SHARDRT_RETURN_IF_ERROR(
          exchangeInGroup(*rc.comm, g, l->messages(own, packed)));
    }
    if (!direct)
      unpackBlocks(reinterpret_cast<const uint8_t *>(packed), blocks,
                   rc.slots[l->outSlot], l->output, l->dim, l->elemBytes);
    return Status();
  });
}

/// The output gets this member's block reduced over the group, in group
/// order.
StatusOr<RunFn> prepareReduceScatter(const fb::Instruction &inst,
                                     const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(ReduceScatterLayout decoded,
                           decodeReduceScatter(inst, ctx));
  auto l = std::make_shared<const ReduceScatterLayout>(std::move(decoded));
  size_t members = l->group.ranks.size(), own = size_t(numElements(l->output));
  // The blocks go straight from the input when they lie packed in it
  // (nothing precedes the split dim), else packed member-major first. The
  // members' copies of this member's block arrive apart from both, in one
  // place per member; this member's place holds the running sum, and the
  // output is written only once all have arrived.
  bool direct = packedAlong(l->input, l->dim);
  SHARDRT_ASSIGN_OR_RETURN(WorkspacePlan::Ref packing,
                           reserveUnless(direct, uint64_t(l->sent.total), ctx));
  SHARDRT_ASSIGN_OR_RETURN(WorkspacePlan::Ref received,
                           ctx.reserveWorkspace(uint64_t(own * members) * 4));
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "a reduce-scatter"));
    const ReduceScatterLayout &L = *l;
    const auto *packed = static_cast<const uint8_t *>(rc.slots[L.inSlot]);
    if (!direct) {
      uint8_t *at = packing.data();
      packBlocks(packed, L.input, L.dim, L.sent, at, 4);
      packed = at;
    }
    auto *staged = reinterpret_cast<float *>(received.data());
    std::vector<const float *> terms(members);
    for (size_t q = 0; q < members; ++q)
      terms[q] =
          q == L.group.index
              ? reinterpret_cast<const float *>(packed + L.sent.displs[q])
              : staged + q * own;
    SHARDRT_RETURN_IF_ERROR(exchangeInGroup(
        *rc.comm, L.group,
        L.messages(reinterpret_cast<const char *>(packed), staged)));
    reduceInOrder(terms, staged + L.group.index * own,
                  static_cast<float *>(rc.slots[L.outSlot]), int64_t(own),
                  L.op);
    return Status();
  });
}

StatusOr<RunFn> prepareAllToAll(const fb::Instruction &inst,
                                const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(AllToAllLayout decoded, decodeAllToAll(inst, ctx));
  auto l = std::make_shared<const AllToAllLayout>(std::move(decoded));
  // Rows go straight from the input when they lie packed in it, blocks
  // straight into the output when that is their layout; otherwise through
  // staging, packed member-major.
  bool sendDirect = packedAlong(l->input, l->splitDim),
       recvDirect = packedAlong(l->output, l->concatDim);
  SHARDRT_ASSIGN_OR_RETURN(
      WorkspacePlan::Ref sendStaging,
      reserveUnless(sendDirect, uint64_t(l->sent.total), ctx));
  SHARDRT_ASSIGN_OR_RETURN(
      WorkspacePlan::Ref recvStaging,
      reserveUnless(recvDirect, uint64_t(l->received.total), ctx));
  Spare spare = std::make_shared<std::vector<uint8_t>>();
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "an all-to-all"));
    const AllToAllLayout &L = *l;
    const void *send = rc.slots[L.inSlot];
    if (!sendDirect) {
      uint8_t *at = sendStaging.data();
      packBlocks(send, L.input, L.splitDim, L.sent, at, L.elemBytes);
      send = at;
    }
    auto *recv = static_cast<char *>(rc.slots[L.outSlot]);
    if (!recvDirect)
      recv = reinterpret_cast<char *>(recvStaging.data());
    // Blocks may land before every row is sent: what is sent lies apart
    // from what is received, even exactly in place.
    const auto *sent = static_cast<const char *>(
        apartFrom(send, size_t(L.sent.total), recv, size_t(L.received.total),
                  nullptr, *spare));
    if (L.group.whole) {
      SHARDRT_RETURN_IF_ERROR(rc.comm->allToAllV(
          sent, L.sent.counts, L.sent.displs, recv, L.received.counts,
          L.received.displs, comm::DataType::Byte));
    } else {
      size_t self = L.group.index;
      if (L.sent.counts[self])
        std::memcpy(recv + L.received.displs[self], sent + L.sent.displs[self],
                    size_t(L.sent.counts[self]));
      SHARDRT_RETURN_IF_ERROR(
          exchangeInGroup(*rc.comm, L.group, L.messages(sent, recv)));
    }
    if (!recvDirect)
      unpackBlocks(reinterpret_cast<const uint8_t *>(recv), L.received,
                   rc.slots[L.outSlot], L.output, L.concatDim, L.elemBytes);
    return Status();
  });
}

StatusOr<RunFn> prepareBroadcast(const fb::Instruction &inst,
                                 const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(BroadcastLayout l, decodeBroadcast(inst, ctx));
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "a broadcast"));
    void *y = rc.slots[l.outSlot];
    if (rc.slots[l.inSlot] != y && l.bytes)
      std::memmove(y, rc.slots[l.inSlot], size_t(l.bytes));
    return rc.comm->broadcast(y, l.bytes, comm::DataType::Byte, l.root);
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
    return prepareWait(inst, ctx);
  case Opcode::ReduceScatter:
    return prepareReduceScatter(inst, ctx);
  case Opcode::AllToAll:
    return prepareAllToAll(inst, ctx);
  default:
    return unsupportedOpcode(inst);
  }
}

} // namespace shardrt::exec
