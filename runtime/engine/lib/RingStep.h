//===- RingStep.h - A RingAttention, decoded -------------------*- C++ -*-===//
//
// What every backend's ring step needs of a RingAttention instruction,
// checked once by decodeRing (PrepareRing.cpp): the group, the blocks' rows
// from the key starts, where this rank's queries start, the flags, and the
// batch broadcast of q, k, v and the mask.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_LIB_RINGSTEP_H
#define SHARDRT_ENGINE_LIB_RINGSTEP_H

#include "Collectives.h"
#include "Prepare.h"

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace shardrt::exec {

struct RingStep {
  Group group;
  std::vector<int64_t> starts; ///< the key split: member q's keys
  bool causal = false, valuesWhole = false, valuesAreKeys = false;
  double scale = 1.0;
  int64_t queryLo = 0; ///< this rank's first query's global position
  int64_t l = 0, e = 0, ev = 0;
  /// Elements of one row of keys (values) across their batch dims.
  int64_t keyBatch = 0, valueBatch = 0;
  /// Per output batch index: the q, k, v and mask batch index.
  std::vector<int64_t> qAt, kAt, vAt, maskAt;
  int64_t maskRows = 0, maskCols = 0; ///< 0: no mask
  int64_t valueRows = 0;              ///< rows of v when it arrives whole
  uint32_t q = 0, k = 0, v = 0, mask = kNoSlot, out = 0;
  int64_t maxRows = 0;
  /// Elements of the largest key (value) block, and of the running state
  /// (m and the sum per query row, o per query row and value feature).
  int64_t keyElems = 0, valueElems = 0, stateElems = 0;

  int64_t batch() const { return int64_t(qAt.size()); }
  int64_t members() const { return int64_t(group.ranks.size()); }
  int64_t rows(int64_t member) const {
    return starts[size_t(member) + 1] - starts[size_t(member)];
  }
  int64_t wrap(int64_t member) const {
    return (member % members() + members()) % members();
  }
  bool passesValues() const { return !valuesWhole && !valuesAreKeys; }
  /// Whether member `block`'s keys are wholly after this rank's
  /// queries under the causal rule: it is passed on but not attended.
  bool hidden(int64_t block) const {
    return causal && starts[size_t(block)] >= queryLo + l;
  }
};

StatusOr<RingStep> decodeRing(const fb::Instruction &inst,
                              const PrepareContext &ctx);

/// Posts a step's sends of the block at hand (`rows` keys at `k`, values at
/// `v`) to the next member and the receives of the previous member's
/// (`incoming` rows) into `nextK` and `nextV`, adding them to `requests`.
/// Empty blocks are not sent: both sides know every block's rows. The
/// pointers are device memory when the communicator takes it.
Status postRingBlocks(RunContext &rc, const RingStep &ring, const float *k,
                      const float *v, int64_t rows, float *nextK, float *nextV,
                      int64_t incoming, std::vector<comm::Request> &requests);

/// What a backend's ring step does at each step of runRingSteps.
struct RingSteps {
  /// Runs before a step posts its transfers (the CUDA step drains its
  /// stream there: the communicator moves device memory off the stream).
  std::function<Status()> beforePost;
  /// Where step t's incoming keys and values land: one of two buffers each,
  /// alternating, so that the block at hand stays put (values null when
  /// they do not travel).
  std::function<std::pair<float *, float *>(int64_t t)> landing;
  /// Folds member `block`'s keys `k` and values `v` into the state; `first`
  /// when nothing was folded before.
  std::function<Status(int64_t block, const float *k, const float *v,
                       bool first)>
      attend;
};

/// The ring's steps on this rank, from its own block `k`, `v`: each posts
/// the block at hand to the next member and the receive of the previous
/// member's, has `attend` fold the block at hand unless it is empty or
/// causally hidden, and waits for the transfers, so that the next block
/// travels during the fold. Returns whether any block was folded.
StatusOr<bool> runRingSteps(RunContext &rc, const RingStep &ring,
                            const float *k, const float *v,
                            const RingSteps &steps);

} // namespace shardrt::exec

#endif // SHARDRT_ENGINE_LIB_RINGSTEP_H
