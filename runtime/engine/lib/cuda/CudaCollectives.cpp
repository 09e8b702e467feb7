//===- CudaCollectives.cpp - Collectives on device memory -----------------===//
//
// A communicator that takes device buffers (nccl; a local world of ranks on
// one GPU with the device-aware copy) moves collective blocks straight
// between device buffers: no host staging. Blocks go from and to the slots
// themselves where they already lie packed member-major along the split or
// gather dim (nothing but 1s precedes it, which is what the partitioner
// writes for norm statistics and batch-major reshards); otherwise the
// box-copy kernel packs them into device staging or unpacks them from it.
//
// Whole-world collectives use the communicator's own when its collectives
// take device buffers (nccl). Otherwise the group's members exchange
// blocks point to point (Collectives.h), as the CPU backend does for a
// group smaller than the world, and reductions combine the received blocks
// in group order in one kernel: every member, and the CPU backend, gets
// bitwise the same result. Every rank of a world makes the same choice: it
// depends only on the communicator and the instruction.
//
// A communicator that takes host buffers only leaves every collective
// staged through the host.
//
//===----------------------------------------------------------------------===//

#include "../Collectives.h"
#include "CudaSupport.h"
#include "DataMovementPlan.h"

#include <memory>

namespace shardrt::exec::cuda {
namespace {

/// Where a step can read `bytes` at `src` from while a communicator or a
/// kernel writes [dst, dst + dstBytes): `src` itself where
/// sendableInPlace, else a copy in device scratch allocated by the first
/// run that needs one.
class ApartSource {
public:
  explicit ApartSource(ScratchFn scratch) : scratch_(std::move(scratch)) {}

  StatusOr<const void *> operator()(const void *src, size_t bytes,
                                    const void *dst, size_t dstBytes,
                                    const void *fineAt, cudaStream_t stream) {
    if (sendableInPlace(src, bytes, dst, dstBytes, fineAt))
      return src;
    if (bytes > copyBytes_) {
      SHARDRT_ASSIGN_OR_RETURN(copy_, scratch_(bytes));
      copyBytes_ = bytes;
    }
    SHARDRT_CUDA_TRY(
        cudaMemcpyAsync(copy_, src, bytes, cudaMemcpyDeviceToDevice, stream));
    return static_cast<const void *>(copy_);
  }

private:
  ScratchFn scratch_;
  void *copy_ = nullptr;
  size_t copyBytes_ = 0;
};

/// The communicator moves device memory on its own, off the session's
/// stream: what the step sends must be written, and nothing may still read
/// what it receives into.
Status beforeCommunication(cudaStream_t stream) {
  SHARDRT_CUDA_TRY(cudaStreamSynchronize(stream));
  return Status();
}

/// Runs the box copies of `plan` from `src` (or the packed block
/// `src + displs[sources[k]]` when `packedSource`) into `dst` (or the
/// packed block `dst + displs[sources[k]]` otherwise): a split's packing or
/// a gather's unpacking.
Status runBlockCopies(const MovePlan &plan, const BlockLayout &blocks,
                      bool packedSource, const void *src, void *dst,
                      size_t elemBytes, cudaStream_t stream) {
  for (size_t k = 0; k < plan.copies.size(); ++k) {
    int64_t at = blocks.displs[size_t(plan.sources[k])];
    const char *from = static_cast<const char *>(src);
    char *to = static_cast<char *>(dst);
    if (packedSource)
      from += at;
    else
      to += at;
    SHARDRT_CUDA_TRY(
        launchCopyBox(to, from, plan.copies[k], elemBytes, stream));
  }
  return Status();
}

/// Device staging for blocks packed member-major, unless `direct` (they are
/// read or written in the slot itself).
StatusOr<char *> stagingUnless(bool direct, int64_t bytes,
                               const ScratchFn &scratch) {
  if (direct)
    return static_cast<char *>(nullptr);
  SHARDRT_ASSIGN_OR_RETURN(void *s, scratch(size_t(bytes)));
  return static_cast<char *>(s);
}

StatusOr<RunFn> prepareAllGather(const fb::Instruction &inst,
                                 const PrepareContext &ctx, cudaStream_t stream,
                                 const ScratchFn &scratch) {
  SHARDRT_ASSIGN_OR_RETURN(AllGatherLayout decoded, decodeAllGather(inst, ctx));
  auto layout = std::make_shared<const AllGatherLayout>(std::move(decoded));
  // As for an all-to-all, every rank stages or none.
  if (layout->input.size() > size_t(kMaxBoxRank))
    return RunFn();
  bool direct = layout->packedIsOutput();
  auto unpack = std::make_shared<MovePlan>();
  if (!direct && !planGatherUnpack(layout->input, layout->extents,
                                   layout->output, layout->dim, *unpack))
    return Status::internal("an all-gather's block copies did not plan");
  SHARDRT_ASSIGN_OR_RETURN(
      char *staging, stagingUnless(direct, layout->blocks.total, scratch));
  bool allGather =
      layout->group.whole && ctx.comm->collectivesTakeDeviceBuffers();
  auto apart = std::make_shared<ApartSource>(scratch);
  char *packedStaging = staging;
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "an all-gather"));
    const AllGatherLayout &l = *layout;
    const Group &g = l.group;
    char *packed =
        direct ? static_cast<char *>(rc.slots[l.outSlot]) : packedStaging;
    size_t ownBytes = size_t(l.blocks.counts[g.index]);
    // In place when this rank's block already sits at its place.
    char *ownBlock = packed + l.blocks.displs[g.index];
    SHARDRT_ASSIGN_OR_RETURN(
        const void *own, (*apart)(rc.slots[l.inSlot], ownBytes, packed,
                                  size_t(l.blocks.total), ownBlock, stream));
    SHARDRT_RETURN_IF_ERROR(beforeCommunication(stream));
    if (allGather) {
      SHARDRT_RETURN_IF_ERROR(rc.comm->allGatherV(own, int64_t(ownBytes),
                                                  packed, l.blocks.counts,
                                                  comm::DataType::Byte));
    } else {
      if (ownBytes && ownBlock != own)
        SHARDRT_CUDA_TRY(cudaMemcpyAsync(ownBlock, own, ownBytes,
                                         cudaMemcpyDeviceToDevice, stream));
      SHARDRT_RETURN_IF_ERROR(
          exchangeInGroup(*rc.comm, g, l.messages(own, packed)));
    }
    return runBlockCopies(*unpack, l.blocks, true, packedStaging,
                          rc.slots[l.outSlot], l.elemBytes, stream);
  });
}

StatusOr<RunFn> prepareAllReduce(const fb::Instruction &inst,
                                 const PrepareContext &ctx, cudaStream_t stream,
                                 const ScratchFn &scratch) {
  SHARDRT_ASSIGN_OR_RETURN(AllReduceLayout l, decodeAllReduce(inst, ctx));
  size_t members = l.group.ranks.size(), bytes = size_t(l.n) * 4;
  // The kernel (or the communicator) reads this member's block as it
  // writes the output: in place is fine, a shifted overlap is not.
  auto apart = std::make_shared<ApartSource>(scratch);
  if (l.group.whole && ctx.comm->collectivesTakeDeviceBuffers())
    return RunFn([=](RunContext &rc) -> Status {
      SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "an all-reduce"));
      void *y = rc.slots[l.outSlot];
      SHARDRT_ASSIGN_OR_RETURN(
          const void *own,
          (*apart)(rc.slots[l.inSlot], bytes, y, bytes, y, stream));
      SHARDRT_RETURN_IF_ERROR(beforeCommunication(stream));
      return rc.comm->allReduce(own, y, l.n, comm::DataType::F32, l.op);
    });
  // Member q's copy of the block at q * n (this member's place unused).
  SHARDRT_ASSIGN_OR_RETURN(void *received, scratch(bytes * members));
  auto blocks = static_cast<float *>(received);
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "an all-reduce"));
    float *y = static_cast<float *>(rc.slots[l.outSlot]);
    SHARDRT_ASSIGN_OR_RETURN(
        const void *own,
        (*apart)(rc.slots[l.inSlot], bytes, y, bytes, y, stream));
    SHARDRT_RETURN_IF_ERROR(beforeCommunication(stream));
    SHARDRT_RETURN_IF_ERROR(
        exchangeInGroup(*rc.comm, l.group, l.messages(own, blocks)));
    SHARDRT_CUDA_TRY(launchReduceInOrder(
        y, static_cast<const float *>(own), blocks, l.n, int(members),
        int(l.group.index), l.n, l.op, stream));
    return Status();
  });
}

StatusOr<RunFn> prepareReduceScatter(const fb::Instruction &inst,
                                     const PrepareContext &ctx,
                                     cudaStream_t stream,
                                     const ScratchFn &scratch) {
  SHARDRT_ASSIGN_OR_RETURN(ReduceScatterLayout decoded,
                           decodeReduceScatter(inst, ctx));
  auto layout = std::make_shared<const ReduceScatterLayout>(std::move(decoded));
  const ReduceScatterLayout &l = *layout;
  bool direct = packedAlong(l.input, l.dim);
  auto pack = std::make_shared<MovePlan>();
  if (!direct && !planSplitPack(l.input, l.extents, l.dim, *pack))
    return RunFn();
  SHARDRT_ASSIGN_OR_RETURN(char *packedStaging,
                           stagingUnless(direct, l.sent.total, scratch));
  size_t members = l.group.ranks.size();
  int64_t own = numElements(l.output);
  SHARDRT_ASSIGN_OR_RETURN(void *received, scratch(size_t(own) * 4 * members));
  char *staging = packedStaging;
  auto blocks = static_cast<float *>(received);
  auto apart = std::make_shared<ApartSource>(scratch);
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "a reduce-scatter"));
    const ReduceScatterLayout &L = *layout;
    size_t self = L.group.index;
    const char *packed = static_cast<const char *>(rc.slots[L.inSlot]);
    if (!direct) {
      SHARDRT_RETURN_IF_ERROR(
          runBlockCopies(*pack, L.sent, false, packed, staging, 4, stream));
      packed = staging;
    }
    float *y = static_cast<float *>(rc.slots[L.outSlot]);
    SHARDRT_ASSIGN_OR_RETURN(const void *ownBlock,
                             (*apart)(packed + L.sent.displs[self],
                                      size_t(L.sent.counts[self]), y,
                                      size_t(own) * 4, y, stream));
    SHARDRT_RETURN_IF_ERROR(beforeCommunication(stream));
    SHARDRT_RETURN_IF_ERROR(
        exchangeInGroup(*rc.comm, L.group, L.messages(packed, blocks)));
    SHARDRT_CUDA_TRY(
        launchReduceInOrder(y, static_cast<const float *>(ownBlock), blocks,
                            own, int(members), int(self), own, L.op, stream));
    return Status();
  });
}

StatusOr<RunFn> prepareAllToAll(const fb::Instruction &inst,
                                const PrepareContext &ctx, cudaStream_t stream,
                                const ScratchFn &scratch) {
  SHARDRT_ASSIGN_OR_RETURN(AllToAllLayout decoded, decodeAllToAll(inst, ctx));
  auto layout = std::make_shared<const AllToAllLayout>(std::move(decoded));
  const AllToAllLayout &l = *layout;
  // Staged, a whole world's all-to-all is the communicator's own: all
  // ranks must stage it or none, so the choice rests on the rank of the
  // tensors alone, not on which of this rank's blocks need packing.
  if (l.input.size() > size_t(kMaxBoxRank))
    return RunFn();
  bool sendDirect = packedAlong(l.input, l.splitDim),
       recvDirect = packedAlong(l.output, l.concatDim);
  auto pack = std::make_shared<MovePlan>(),
       unpack = std::make_shared<MovePlan>();
  if ((!sendDirect &&
       !planSplitPack(l.input, l.splitExtents, l.splitDim, *pack)) ||
      (!recvDirect && !planGatherUnpack(l.output, l.concatExtents, l.output,
                                        l.concatDim, *unpack)))
    return Status::internal("an all-to-all's block copies did not plan");
  SHARDRT_ASSIGN_OR_RETURN(char *sendStaging,
                           stagingUnless(sendDirect, l.sent.total, scratch));
  SHARDRT_ASSIGN_OR_RETURN(
      char *recvStaging, stagingUnless(recvDirect, l.received.total, scratch));
  bool allToAll = l.group.whole && ctx.comm->collectivesTakeDeviceBuffers();
  // Blocks may land before every block is sent: what is sent must lie
  // apart from what is received, even exactly in place.
  auto apart = std::make_shared<ApartSource>(scratch);
  char *sendAt = sendStaging, *recvAt = recvStaging;
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "an all-to-all"));
    const AllToAllLayout &L = *layout;
    const void *send = rc.slots[L.inSlot];
    if (!sendDirect) {
      SHARDRT_RETURN_IF_ERROR(runBlockCopies(*pack, L.sent, false, send, sendAt,
                                             L.elemBytes, stream));
      send = sendAt;
    }
    char *recv = recvDirect ? static_cast<char *>(rc.slots[L.outSlot]) : recvAt;
    SHARDRT_ASSIGN_OR_RETURN(
        const void *from, (*apart)(send, size_t(L.sent.total), recv,
                                   size_t(L.received.total), nullptr, stream));
    const char *sent = static_cast<const char *>(from);
    SHARDRT_RETURN_IF_ERROR(beforeCommunication(stream));
    if (allToAll) {
      SHARDRT_RETURN_IF_ERROR(rc.comm->allToAllV(
          sent, L.sent.counts, L.sent.displs, recv, L.received.counts,
          L.received.displs, comm::DataType::Byte));
    } else {
      size_t self = L.group.index;
      if (L.sent.counts[self])
        SHARDRT_CUDA_TRY(cudaMemcpyAsync(
            recv + L.received.displs[self], sent + L.sent.displs[self],
            size_t(L.sent.counts[self]), cudaMemcpyDeviceToDevice, stream));
      SHARDRT_RETURN_IF_ERROR(
          exchangeInGroup(*rc.comm, L.group, L.messages(sent, recv)));
    }
    return runBlockCopies(*unpack, L.received, true, recvAt,
                          rc.slots[L.outSlot], L.elemBytes, stream);
  });
}

/// Over a communicator whose collectives take device buffers, its own
/// broadcast; otherwise the root sends the block to every other rank.
StatusOr<RunFn> prepareBroadcast(const fb::Instruction &inst,
                                 const PrepareContext &ctx, cudaStream_t stream,
                                 const ScratchFn &scratch) {
  SHARDRT_ASSIGN_OR_RETURN(BroadcastLayout l, decodeBroadcast(inst, ctx));
  bool collective = ctx.comm->collectivesTakeDeviceBuffers();
  auto apart = std::make_shared<ApartSource>(scratch);
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "a broadcast"));
    char *y = static_cast<char *>(rc.slots[l.outSlot]);
    size_t bytes = size_t(l.bytes);
    bool root = rc.comm->rank() == l.root;
    if ((root || collective) && bytes && rc.slots[l.inSlot] != y) {
      SHARDRT_ASSIGN_OR_RETURN(
          const void *x,
          (*apart)(rc.slots[l.inSlot], bytes, y, bytes, nullptr, stream));
      SHARDRT_CUDA_TRY(
          cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, stream));
    }
    SHARDRT_RETURN_IF_ERROR(beforeCommunication(stream));
    if (collective)
      return rc.comm->broadcast(y, l.bytes, comm::DataType::Byte, l.root);
    std::vector<comm::Request> requests;
    for (int q = 0; q < rc.comm->size(); ++q) {
      if (q == rc.comm->rank() || (!root && q != l.root))
        continue;
      SHARDRT_ASSIGN_OR_RETURN(
          comm::Request r,
          root ? rc.comm->isend(y, bytes, q, kGroupCollectiveTag)
               : rc.comm->irecv(y, bytes, q, kGroupCollectiveTag));
      requests.push_back(std::move(r));
    }
    return rc.comm->waitAll(
        comm::Span<comm::Request>(requests.data(), requests.size()));
  });
}

} // namespace

StatusOr<RunFn> prepareCollectiveStep(const fb::Instruction &inst,
                                      const PrepareContext &ctx,
                                      cudaStream_t stream,
                                      const ScratchFn &scratch) {
  if (!ctx.comm || !ctx.comm->takesDeviceBuffers())
    return RunFn();
  switch (inst.opcode()) {
  case fb::Opcode::AllGather:
    return prepareAllGather(inst, ctx, stream, scratch);
  case fb::Opcode::AllReduce:
    return prepareAllReduce(inst, ctx, stream, scratch);
  case fb::Opcode::ReduceScatter:
    return prepareReduceScatter(inst, ctx, stream, scratch);
  case fb::Opcode::AllToAll:
    return prepareAllToAll(inst, ctx, stream, scratch);
  case fb::Opcode::Broadcast:
    return prepareBroadcast(inst, ctx, stream, scratch);
  default:
    return RunFn();
  }
}

} // namespace shardrt::exec::cuda
