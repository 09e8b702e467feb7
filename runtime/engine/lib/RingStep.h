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
  /// Elements of one row of queries (keys, values) across their batch
  /// dims.
  int64_t queryBatch = 0, keyBatch = 0, valueBatch = 0;
  /// The balanced causal schedule (balancedNear): a block at most `near`
  /// members before the queries it serves is folded by the member holding
  /// its keys, at a step where that member is idle; 0: the plain ring.
  int64_t near = 0;
  /// Per output batch index: the q, k, v and mask batch index.
  std::vector<int64_t> qAt, kAt, vAt, maskAt;
  int64_t maskRows = 0, maskCols = 0; ///< 0: no mask
  int64_t valueRows = 0;              ///< rows of v when it arrives whole
  uint32_t q = 0, k = 0, v = 0, mask = kNoSlot, out = 0;
  int64_t maxRows = 0;
  /// Elements of the largest key (value) block, and of the running state
  /// (m and the sum per query row, o per query row and value feature); in
  /// the balanced schedule, of the largest query block and of the largest
  /// member's state.
  int64_t keyElems = 0, valueElems = 0, stateElems = 0;
  int64_t queryElems = 0, partialElems = 0;

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

  bool balanced() const { return near > 0; }
  /// Whether step t folds the block at hand: one that is not empty, into
  /// queries that are not, and not hidden; the plain ring at every step,
  /// the balanced one at step 0 (the member's own block) and past `near`
  /// (blocks the member is the one to fold).
  bool foldsAtHand(int64_t t) const {
    int64_t block = wrap(int64_t(group.index) - t);
    return (!balanced() || t == 0 || t > near) && rows(block) > 0 && l > 0 &&
           !hidden(block);
  }
  /// Balanced: the member whose queries this member folds its own block
  /// into at step t, or -1. The step is one where the block at hand is
  /// hidden, and the queries are those `members() - t` members on.
  int64_t helps(int64_t t) const;
  /// Balanced: the member that folds its own block into this member's
  /// queries at step t (and sends the partial state back), or -1.
  int64_t helpedBy(int64_t t) const;
};

/// `near` of the balanced causal schedule of a ring of `members`: with the
/// plain ring member s folds s + 1 blocks (every block up to its own) and
/// the last member's P blocks, one per step, are the ring's critical path.
/// Moving the blocks at most ceil(P/2) - 1 members before their queries to
/// the members holding their keys (at step P - distance, where those hold a
/// hidden block) leaves every member at most one block per step and every
/// step from 1 to `near` without one: 1 + (P - 1 - near) blocks in a row,
/// e.g. 5 instead of 8 for P = 8. Below 3 members nothing moves.
inline int64_t balancedNear(int64_t members) {
  return members < 3 ? 0 : (members + 1) / 2 - 1;
}

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
/// `landing`, `attend` always; the rest in the balanced schedule.
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
  /// Where the queries step t helps with land: one of two buffers,
  /// alternating, so that they arrive a step early.
  std::function<float *(int64_t t)> queryLanding;
  /// Folds this member's own block (`k`, `v`) into member `member`'s
  /// queries `q`, started afresh in `partial` (laid out as that member's
  /// state). The partial is sent once `beforePost` returned.
  std::function<Status(int64_t member, const float *q, const float *k,
                       const float *v, float *partial)>
      help;
  /// Where partial states are made (`out`) and arrive (`in`).
  float *partialOut = nullptr, *partialIn = nullptr;
  /// Merges the partial state at `partialIn` into the state.
  std::function<Status()> merge;
};

/// The ring's steps on this rank, from its own block `k`, `v`: each posts
/// the block at hand to the next member and the receive of the previous
/// member's, has `attend` fold the block at hand unless it is empty or
/// causally hidden (or, balanced, another member's to fold), and waits for
/// the transfers, so that the next block travels during the fold.
/// Balanced, a step also sends this member's queries to the member that
/// helps it at the next step and receives those it helps with next, helps
/// (and sends the partial state back), and merges the partial state of
/// the member that helped it. Returns whether any block was folded.
StatusOr<bool> runRingSteps(RunContext &rc, const RingStep &ring,
                            const float *k, const float *v,
                            const RingSteps &steps);

} // namespace shardrt::exec

#endif // SHARDRT_ENGINE_LIB_RINGSTEP_H
