//===- Collectives.h - Collective groups and their layouts ------*- C++ -*-===//
//
// What both backends need to run a collective: the group a collective's
// mesh axes select, the point-to-point form of a group collective, and
// each collective's checked block layout. The CPU decoder (PrepareComm.cpp)
// checks an instruction with these; the CUDA backend reuses the decoded
// layouts to move blocks straight between device buffers.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_COLLECTIVES_H
#define SHARDRT_ENGINE_COLLECTIVES_H

#include "Prepare.h"
#include "shardrt/comm/Communicator.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardrt::exec {

/// The ranks a collective over `mesh_axes` runs among: those sharing this
/// rank's coordinates on every other axis, ordered by their coordinates on
/// the group's axes as listed (the first major). Listing a split's axes in
/// its own order makes group order its shard order.
struct Group {
  std::vector<int> ranks;
  size_t index = 0;   ///< this rank's place in `ranks`
  bool whole = false; ///< the group is the whole world
};

StatusOr<Group> groupOf(const fb::Instruction &inst, const PrepareContext &ctx);

/// Whether a collective may send `bytes` at `src` itself while it writes
/// [dst, dst + dstBytes): when they lie apart, or `src` is `fineAt`
/// (exactly in place, where the step allows it). Otherwise the backends
/// send a copy (the planner may place an input inside its output, such as
/// an all-gather's own block, and blocks land in any order).
inline bool sendableInPlace(const void *src, size_t bytes, const void *dst,
                            size_t dstBytes, const void *fineAt) {
  return !comm::overlaps(src, bytes, dst, dstBytes) || src == fineAt;
}

/// Point-to-point form of a group collective: this rank sends `sends[q]`
/// to member q and receives `recvs[q]` from it (q != index), all under one
/// reserved tag. Every member runs the group's collectives in program
/// order, and messages of one pair and tag arrive in order, so successive
/// collectives cannot mix. The buffers may live on a device when the
/// communicator takes device buffers.
struct GroupMessage {
  const void *send = nullptr;
  void *recv = nullptr;
  size_t sendBytes = 0, recvBytes = 0;
};

Status exchangeInGroup(comm::Communicator &comm, const Group &g,
                       const std::vector<GroupMessage> &messages);

/// The tag of group collectives run point to point; exchanges may not use
/// it.
constexpr int kGroupCollectiveTag = comm::kMaxTag;

/// Whether the blocks of a tensor of `shape` split along `dim`, in member
/// order, already lie packed member-major in it: nothing precedes `dim`.
inline bool packedAlong(const Shape &shape, int64_t dim) {
  for (int64_t d = 0; d < dim; ++d)
    if (shape[size_t(d)] != 1)
      return false;
  return true;
}

/// Block q of a tensor of `shape` split along `dim`, member q's block being
/// `extents[q]` wide: its shape, and its byte count and offset when the
/// blocks are packed member-major.
struct BlockLayout {
  std::vector<Shape> shapes;
  std::vector<int64_t> counts, displs;
  int64_t total = 0;
};
BlockLayout blockLayout(const Shape &shape, int64_t dim,
                        const std::vector<int64_t> &extents, size_t elemBytes);

/// What every collective names: its group, its one input and one output.
struct CollectiveOperands {
  Group group;
  Shape input, output;
  uint32_t inSlot = 0, outSlot = 0;
};

/// A checked AllReduce: `n` f32 elements reduced by `op` over the group.
struct AllReduceLayout : CollectiveOperands {
  comm::ReduceOp op = comm::ReduceOp::Sum;
  int64_t n = 0;

  /// This member's block sent from `own` to every other member, and member
  /// q's block received at `received + q * n`.
  std::vector<GroupMessage> messages(const void *own, float *received) const {
    std::vector<GroupMessage> m(group.ranks.size());
    size_t bytes = size_t(n) * 4;
    for (size_t q = 0; q < m.size(); ++q)
      m[q] = {own, received + q * size_t(n), bytes, bytes};
    return m;
  }
};
StatusOr<AllReduceLayout> decodeAllReduce(const fb::Instruction &inst,
                                          const PrepareContext &ctx);

/// A checked ReduceScatter: the f32 input holds every member's block along
/// `dim` (member q's `extents[q]` wide, `sent` packed member-major); the
/// output is this member's block reduced over the group in group order.
struct ReduceScatterLayout : CollectiveOperands {
  comm::ReduceOp op = comm::ReduceOp::Sum;
  int64_t dim = 0;
  std::vector<int64_t> extents;
  BlockLayout sent;

  /// Member q's block sent from `packed + sent.displs[q]`, and member q's
  /// copy of this member's block (`own` elements) received at
  /// `received + q * own`.
  std::vector<GroupMessage> messages(const char *packed,
                                     float *received) const {
    std::vector<GroupMessage> m(group.ranks.size());
    size_t own = size_t(numElements(output));
    for (size_t q = 0; q < m.size(); ++q)
      m[q] = {packed + sent.displs[q], received + q * own,
              size_t(sent.counts[q]), own * 4};
    return m;
  }
};
StatusOr<ReduceScatterLayout> decodeReduceScatter(const fb::Instruction &inst,
                                                  const PrepareContext &ctx);

/// A checked AllToAll: member q gets the input's rows `splitExtents[q]` of
/// `splitDim` (`sent`, packed member-major), and member q's block lands
/// `concatExtents[q]` wide along `concatDim` of the output (`received`,
/// packed member-major).
struct AllToAllLayout : CollectiveOperands {
  int64_t splitDim = 0, concatDim = 0;
  std::vector<int64_t> splitExtents, concatExtents;
  BlockLayout sent, received;
  size_t elemBytes = 0;

  /// Member q's rows sent from `send + sent.displs[q]` and its block
  /// received at `recv + received.displs[q]`.
  std::vector<GroupMessage> messages(const char *send, char *recv) const {
    std::vector<GroupMessage> m(group.ranks.size());
    for (size_t q = 0; q < m.size(); ++q)
      m[q] = {send + sent.displs[q], recv + received.displs[q],
              size_t(sent.counts[q]), size_t(received.counts[q])};
    return m;
  }
};
StatusOr<AllToAllLayout> decodeAllToAll(const fb::Instruction &inst,
                                        const PrepareContext &ctx);

/// A checked Broadcast over the whole world: `bytes` bytes from `root`.
struct BroadcastLayout {
  int root = 0;
  int64_t bytes = 0;
  uint32_t inSlot = 0, outSlot = 0;
};
StatusOr<BroadcastLayout> decodeBroadcast(const fb::Instruction &inst,
                                          const PrepareContext &ctx);

/// A checked AllGather: member q's block is `extents[q]` wide along `dim`;
/// the blocks arrive packed member-major (`blocks`) and then take their
/// places along `dim` of the output.
struct AllGatherLayout : CollectiveOperands {
  int64_t dim = 0;
  std::vector<int64_t> extents;
  BlockLayout blocks;
  size_t elemBytes = 0;

  /// This member's block sent from `own` to every other member, and
  /// member q's block received at `packed + blocks.displs[q]`.
  std::vector<GroupMessage> messages(const void *own, char *packed) const {
    std::vector<GroupMessage> m(group.ranks.size());
    for (size_t q = 0; q < m.size(); ++q)
      m[q] = {own, packed + blocks.displs[q],
              size_t(blocks.counts[group.index]), size_t(blocks.counts[q])};
    return m;
  }

  /// The packed blocks already are the output.
  bool packedIsOutput() const { return packedAlong(output, dim); }
};
StatusOr<AllGatherLayout> decodeAllGather(const fb::Instruction &inst,
                                          const PrepareContext &ctx);

} // namespace shardrt::exec

#endif // SHARDRT_ENGINE_COLLECTIVES_H
