//===- HostNcclOps.h - The host NCCL's operations ---------------*- C++ -*-===//
//
// An operation as a member posts it, and what a collective computes from
// its members' inputs: shared by the cliques whose ranks are threads
// (HostNccl.cpp) and those whose ranks are processes (HostNcclProcesses.cpp),
// so that both compute alike, bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDRT_HOSTCUDA_HOSTNCCLOPS_H
#define SHARDRT_HOSTCUDA_HOSTNCCLOPS_H

#include "include/nccl.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hostnccl {

inline size_t typeSize(ncclDataType_t t) {
  switch (t) {
  case ncclInt8:
  case ncclUint8:
    return 1;
  case ncclInt32:
  case ncclUint32:
  case ncclFloat32:
    return 4;
  case ncclInt64:
  case ncclUint64:
  case ncclFloat64:
    return 8;
  default:
    return 0; // half: not supported here
  }
}

enum class Kind { Send, Recv, AllReduce, Reduce, Broadcast, AllGather };

struct Op {
  Kind kind = Kind::Send;
  const void *send = nullptr;
  void *recv = nullptr;
  size_t count = 0; ///< elements (per member, for an all-gather)
  ncclDataType_t type = ncclUint8;
  ncclRedOp_t red = ncclSum;
  int root = 0, peer = 0;
  uint64_t seq = 0; ///< which collective, or which message between the pair
  size_t bytes() const { return count * typeSize(type); }
  bool sameCollective(const Op &o) const {
    return kind == o.kind && count == o.count && type == o.type &&
           red == o.red && root == o.root;
  }
};

/// The result of collective `op` (not a send or receive) whose members'
/// inputs are `sends`, in rank order: the reduction (all-reduce, reduce),
/// the root's block (broadcast), or every block in rank order (all-gather).
/// Only the entries a collective reads need be set: the root's for a
/// broadcast.
std::vector<char> collectiveResult(const Op &op,
                                   const std::vector<const void *> &sends);

} // namespace hostnccl

#endif // SHARDRT_HOSTCUDA_HOSTNCCLOPS_H
