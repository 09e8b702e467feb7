//===- CudaCollectives.cpp - All-gathers into device memory ---------------===//
//
// A communicator that takes device buffers (nccl; a local world of ranks on
// one GPU) gathers the members' blocks straight into device memory: into
// the output itself when the blocks, packed in member order, already are
// the output (a gather along a dim preceded only by 1s, which is what the
// partitioner writes for norm statistics), else into device staging that
// the box-copy kernel unpacks. A communicator that takes host buffers only
// leaves the step staged through the host.
//
// The whole world gathers with the communicator's all-gather when its
// collectives take device buffers (nccl); otherwise the group's members
// exchange blocks point to point (Collectives.h), as the CPU backend does
// for a group smaller than the world. Every rank of a world makes the same
// choice: it depends only on the communicator and the instruction.
//
//===----------------------------------------------------------------------===//

#include "../Collectives.h"
#include "CudaSupport.h"
#include "DataMovementPlan.h"

#include "shardrt/comm/Communicator.h"

#include <memory>

namespace shardrt::exec::cuda {

StatusOr<RunFn> prepareAllGatherStep(const fb::Instruction &inst,
                                     const PrepareContext &ctx,
                                     cudaStream_t stream,
                                     const ScratchFn &scratch) {
  if (!ctx.comm || !ctx.comm->takesDeviceBuffers())
    return RunFn();
  StatusOr<AllGatherLayout> decoded = decodeAllGather(inst, ctx);
  if (!decoded.ok())
    return decoded.status();
  auto layout = std::make_shared<const AllGatherLayout>(std::move(*decoded));
  bool direct = layout->packedIsOutput();
  auto unpack = std::make_shared<MovePlan>();
  char *staging = nullptr;
  if (!direct) {
    if (!planGatherUnpack(layout->input, layout->extents, layout->output,
                          layout->dim, *unpack))
      return RunFn(); // more dims than the box-copy kernel takes
    size_t bytes = size_t(numElements(layout->output)) * layout->elemBytes;
    StatusOr<void *> s = scratch(bytes);
    if (!s.ok())
      return s.status();
    staging = static_cast<char *>(*s);
  }
  bool allGather =
      layout->group.whole && ctx.comm->collectivesTakeDeviceBuffers();
  // Where this rank's block is sent from when the input overlaps the
  // output other than exactly at its own block (communication may overlap
  // freely; the CPU backend stages): allocated on the first such run.
  auto sendCopy = std::make_shared<void *>(nullptr);
  return RunFn([=](RunContext &rc) -> Status {
    if (!rc.comm)
      return Status::failedPrecondition("an all-gather needs a communicator");
    const AllGatherLayout &l = *layout;
    const Group &g = l.group;
    char *packed = direct ? static_cast<char *>(rc.slots[l.outSlot]) : staging;
    const char *own = static_cast<const char *>(rc.slots[l.inSlot]);
    size_t ownBytes = size_t(l.counts[g.index]);
    size_t packedBytes = size_t(l.displs.back() + l.counts.back());
    if (direct && ownBytes && own != packed + l.displs[g.index] &&
        own < packed + packedBytes && packed < own + ownBytes) {
      if (!*sendCopy) {
        StatusOr<void *> s = scratch(ownBytes);
        if (!s.ok())
          return s.status();
        *sendCopy = *s;
      }
      SHARDRT_CUDA_TRY(cudaMemcpyAsync(*sendCopy, own, ownBytes,
                                       cudaMemcpyDeviceToDevice, stream));
      own = static_cast<const char *>(*sendCopy);
    }
    // The communicator moves device memory on its own: the input must be
    // written, and nothing may still read what the blocks overwrite.
    SHARDRT_CUDA_TRY(cudaStreamSynchronize(stream));
    if (allGather) {
      SHARDRT_RETURN_IF_ERROR(rc.comm->allGatherV(
          own, int64_t(ownBytes), packed, l.counts, comm::DataType::Byte));
    } else {
      char *ownBlock = packed + l.displs[g.index];
      if (ownBytes && ownBlock != own)
        SHARDRT_CUDA_TRY(cudaMemcpyAsync(ownBlock, own, ownBytes,
                                         cudaMemcpyDeviceToDevice, stream));
      SHARDRT_RETURN_IF_ERROR(
          exchangeInGroup(*rc.comm, g, l.messages(own, packed)));
    }
    for (size_t k = 0; k < unpack->copies.size(); ++k)
      SHARDRT_CUDA_TRY(launchCopyBox(
          rc.slots[l.outSlot], staging + l.displs[size_t(unpack->sources[k])],
          unpack->copies[k], l.elemBytes, stream));
    return Status();
  });
}

} // namespace shardrt::exec::cuda
