//===- Collectives.h - Collective groups and their layouts ------*- C++ -*-===//
//
// What both backends need to run a collective: the group a collective's
// mesh axes select, the point-to-point form of a group collective, and an
// all-gather's block layout. The CPU decoder (PrepareComm.cpp) checks an
// instruction with these; the CUDA backend reuses the decoded layout to
// gather straight into device memory.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_COLLECTIVES_H
#define SHARDRT_ENGINE_COLLECTIVES_H

#include "Prepare.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardrt::exec {

/// The ranks a collective over `mesh_axes` runs among: those sharing this
/// rank's coordinates on every other axis, ordered by their coordinates on
/// the group's axes (major to minor, i.e. world rank order).
struct Group {
  std::vector<int> ranks;
  size_t index = 0;   ///< this rank's place in `ranks`
  bool whole = false; ///< the group is the whole world
};

StatusOr<Group> groupOf(const fb::Instruction &inst, const PrepareContext &ctx);

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

/// A checked AllGather: member q's block is `extents[q]` wide along `dim`
/// and `counts[q]` bytes; the blocks arrive packed member-major (block q at
/// byte `displs[q]`) and then take their places along `dim` of the output.
struct AllGatherLayout {
  Group group;
  int64_t dim = 0;
  std::vector<int64_t> extents, counts, displs;
  Shape input, output;
  size_t elemBytes = 0;
  uint32_t inSlot = 0, outSlot = 0;

  /// This member's block sent from `own` to every other member, and
  /// member q's block received at `packed + displs[q]`.
  std::vector<GroupMessage> messages(const void *own, char *packed) const {
    std::vector<GroupMessage> m(group.ranks.size());
    for (size_t q = 0; q < m.size(); ++q)
      m[q] = {own, packed + displs[q], size_t(counts[group.index]),
              size_t(counts[q])};
    return m;
  }

  /// The packed blocks already are the output: nothing precedes `dim`, so
  /// member order along `dim` is byte order.
  bool packedIsOutput() const {
    for (int64_t d = 0; d < dim; ++d)
      if (output[size_t(d)] != 1)
        return false;
    return true;
  }
};

StatusOr<AllGatherLayout> decodeAllGather(const fb::Instruction &inst,
                                          const PrepareContext &ctx);

} // namespace shardrt::exec

#endif // SHARDRT_ENGINE_COLLECTIVES_H
