//===- PrepareRing.cpp - Ring attention as one step -----------------------===//
//
// A RingAttention instruction runs the whole ring on its rank: one step per
// member of the key split's group, each posting the key block at hand (and
// its values) to the next member, receiving the previous member's block
// into the other of two workspace buffers, and folding the block at hand
// into an online softmax while the next one travels. Which block a step
// holds, and how many rows it has, follow from this member's place in the
// group and the key starts every member carries alike, so the compiler
// emits one instruction per rank instead of one step per member.
//
//===----------------------------------------------------------------------===//

#include "RingStep.h"
#include "cuda/RingPlan.h" // ringCombine, the rule the CUDA step shares
#include "shardrt/artifact/Artifact.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <tuple>

namespace shardrt::exec {
namespace {

/// The batch dims of `shape` (all but the last two), right-aligned to
/// `rank` dims with 1s.
Shape batchDims(const Shape &shape, size_t rank) {
  return padShape(Shape(shape.begin(), shape.end() - 2), rank);
}

/// For every index of the broadcast batch `out`, the flat batch index of an
/// operand whose batch dims (aligned to out's) are `dims`.
std::vector<int64_t> batchIndices(const Shape &out, const Shape &dims) {
  int64_t count = numElements(out);
  std::vector<int64_t> index(size_t(count), 0);
  for (int64_t b = 0; b < count; ++b) {
    int64_t rest = b, flat = 0, stride = 1;
    for (size_t d = out.size(); d-- > 0;) {
      int64_t at = rest % out[d];
      rest /= out[d];
      if (dims[d] != 1)
        flat += at * stride;
      stride *= dims[d];
    }
    index[size_t(b)] = flat;
  }
  return index;
}

/// The ring's flags, groups, starts and scale (artifact::ringAttentionInts).
/// `queryRows` becomes the rows of this rank's query block (-1 when the
/// ring is not causal).
Status readRingAttrs(const fb::Instruction &inst, const PrepareContext &ctx,
                     RingStep &ring, bool &hasMask, int64_t &queryRows) {
  SHARDRT_ASSIGN_OR_RETURN(ring.group, groupOf(inst, ctx));
  size_t size = inst.ints() ? inst.ints()->size() : 0;
  artifact::IntAt at = [&](size_t i) { return inst.ints()->Get(uint32_t(i)); };
  SHARDRT_ASSIGN_OR_RETURN(artifact::RingIntsLayout l,
                           artifact::ringIntsLayout(at, size,
                                                    ring.group.ranks.size(),
                                                    ctx.meshShape));
  ring.causal = l.flags.causal;
  hasMask = l.flags.mask;
  ring.valuesWhole = l.flags.valuesWhole;
  ring.valuesAreKeys = l.flags.valuesAreKeys;
  for (auto [lo, n, what] :
       {std::tuple{l.queryStartsAt, l.queryStarts, "query"},
        std::tuple{l.keyStartsAt, l.keyStarts, "key"}})
    if (std::string problem = artifact::ringStartsProblem(at, lo, lo + n, what);
        !problem.empty())
      return invalid("its " + problem);
  for (size_t i = 0; i < l.keyStarts; ++i)
    ring.starts.push_back(at(l.keyStartsAt + i));
  // Balanced only where member s's queries are the rows of its own key
  // block, and with no mask (a member folding another's queries would not
  // hold their mask rows). Every member decides alike from the same ints.
  bool queriesAsKeys = ctx.balanceCausalRings && ring.causal && !hasMask &&
                       l.queryStarts == l.keyStarts && inst.mesh_axes() &&
                       inst.mesh_axes()->size() == l.queryAxes;
  for (size_t i = 0; queriesAsKeys && i < l.queryAxes; ++i)
    queriesAsKeys =
        at(l.queryAxesAt + i) == int64_t(inst.mesh_axes()->Get(uint32_t(i)));
  for (size_t i = 0; queriesAsKeys && i < l.keyStarts; ++i)
    queriesAsKeys = at(l.queryStartsAt + i) == at(l.keyStartsAt + i);
  if (queriesAsKeys)
    ring.near = balancedNear(int64_t(ring.group.ranks.size()));
  queryRows = -1;
  if (ring.causal) {
    size_t place = size_t(artifact::placeInGroup(
        ctx.meshShape, ctx.meshCoords,
        [&](size_t i) { return at(l.queryAxesAt + i); }, l.queryAxes));
    ring.queryLo = at(l.queryStartsAt + place);
    queryRows = at(l.queryStartsAt + place + 1) - ring.queryLo;
  }
  std::vector<double> floats = floatAttrs(inst);
  if (floats.size() != 1 || !std::isfinite(floats[0]))
    return invalid("takes one float: a finite scale");
  ring.scale = floats[0];
  return Status();
}

/// The operands' shapes against the starts, and the batch broadcast.
Status readRingShapes(const fb::Instruction &inst, const PrepareContext &ctx,
                      RingStep &ring, bool hasMask, int64_t queryRows) {
  const Shape &q = inSlot(inst, ctx, 0).shape, &k = inSlot(inst, ctx, 1).shape,
              &v = inSlot(inst, ctx, 2).shape,
              &out = outSlot(inst, ctx, 0).shape;
  for (const Shape *s : {&q, &k, &v, &out})
    if (s->size() < 2)
      return invalid("q, k, v and the output need a sequence dim and a "
                     "feature dim");
  ring.l = q[q.size() - 2];
  ring.e = q.back();
  ring.ev = v.back();
  if (queryRows >= 0 && ring.l != queryRows)
    return invalid("the queries are " + shapeStr(q) + "; expected " +
                   std::to_string(queryRows) + " rows (its query block)");
  int64_t own = ring.rows(int64_t(ring.group.index));
  if (k.back() != ring.e || k[k.size() - 2] != own)
    return invalid("the keys are " + shapeStr(k) + "; expected " +
                   std::to_string(own) + " rows (its block) of " +
                   std::to_string(ring.e) + " features");
  ring.valueRows = v[v.size() - 2];
  int64_t expectedValues = ring.valuesWhole ? ring.starts.back() : own;
  if (ring.valueRows != expectedValues)
    return invalid("the values have " + std::to_string(ring.valueRows) +
                   " rows; expected " + std::to_string(expectedValues));
  if (ring.valuesAreKeys &&
      (ring.valuesWhole || inIdx(inst, 1) != inIdx(inst, 2)))
    return invalid("values that are the keys must be the keys' slot");
  std::vector<Shape> batches = {Shape(q.begin(), q.end() - 2),
                                Shape(k.begin(), k.end() - 2),
                                Shape(v.begin(), v.end() - 2)};
  if (hasMask) {
    const Shape &m = inSlot(inst, ctx, 3).shape;
    if (m.size() < 2)
      return invalid("the mask needs a query dim and a key dim");
    ring.maskRows = m[m.size() - 2];
    ring.maskCols = m.back();
    if ((ring.maskRows != 1 && ring.maskRows != ring.l) ||
        (ring.maskCols != 1 && ring.maskCols != ring.starts.back()))
      return invalid("the mask is " + shapeStr(m) +
                     "; its last dims must be "
                     "1 or the queries, and 1 or every key");
    batches.push_back(Shape(m.begin(), m.end() - 2));
    ring.mask = inIdx(inst, 3);
  }
  SHARDRT_ASSIGN_OR_RETURN(Shape batch, broadcastShapes(batches));
  Shape expected = batch;
  expected.push_back(ring.l);
  expected.push_back(ring.ev);
  SHARDRT_RETURN_IF_ERROR(
      requireShape(outSlot(inst, ctx, 0), expected, "the output"));
  ring.qAt = batchIndices(batch, batchDims(q, batch.size()));
  ring.kAt = batchIndices(batch, batchDims(k, batch.size()));
  ring.vAt = batchIndices(batch, batchDims(v, batch.size()));
  if (hasMask)
    ring.maskAt = batchIndices(
        batch, batchDims(inSlot(inst, ctx, 3).shape, batch.size()));
  ring.queryBatch = numElements(batches[0]);
  ring.keyBatch = numElements(batches[1]);
  ring.valueBatch = numElements(batches[2]);
  ring.q = inIdx(inst, 0);
  ring.k = inIdx(inst, 1);
  ring.v = inIdx(inst, 2);
  ring.out = outIdx(inst, 0);
  for (int64_t member = 0; member < ring.members(); ++member)
    ring.maxRows = std::max(ring.maxRows, ring.rows(member));
  // Element counts of the block buffers and the state, checked: the rows
  // come from every member's starts.
  constexpr int64_t kMaxElems = int64_t(1) << 60;
  int64_t partialRows = 0; // every batch entry of the largest member's rows
  if (__builtin_mul_overflow(ring.batch(), ring.maxRows, &partialRows) ||
      __builtin_mul_overflow(ring.keyBatch * ring.e, ring.maxRows,
                             &ring.keyElems) ||
      __builtin_mul_overflow(ring.valueBatch * ring.ev, ring.maxRows,
                             &ring.valueElems) ||
      __builtin_mul_overflow(ring.batch() * ring.l, 2 + ring.ev,
                             &ring.stateElems) ||
      __builtin_mul_overflow(ring.queryBatch * ring.e, ring.maxRows,
                             &ring.queryElems) ||
      __builtin_mul_overflow(partialRows, 2 + ring.ev, &ring.partialElems) ||
      ring.keyElems > kMaxElems || ring.valueElems > kMaxElems ||
      ring.stateElems > kMaxElems || ring.queryElems > kMaxElems ||
      ring.partialElems > kMaxElems)
    return invalid("its blocks or state would take more than 2^62 bytes");
  return Status();
}

} // namespace

/// The loader has checked the ring's lists and every rank's blocks against
/// them; prepare checks again what it indexes with, as every step does, so
/// that no change to the loader can make a step read out of bounds.
StatusOr<RingStep> decodeRing(const fb::Instruction &inst,
                              const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 3, 4, 1));
  SHARDRT_RETURN_IF_ERROR(requireF32(inst, ctx));
  RingStep ring;
  bool hasMask = false;
  int64_t queryRows = -1;
  SHARDRT_RETURN_IF_ERROR(readRingAttrs(inst, ctx, ring, hasMask, queryRows));
  if (hasMask != (numInputs(inst) == 4))
    return invalid(std::string("says it has ") + (hasMask ? "a" : "no") +
                   " mask but has " + std::to_string(numInputs(inst)) +
                   " inputs");
  SHARDRT_RETURN_IF_ERROR(readRingShapes(inst, ctx, ring, hasMask, queryRows));
  return ring;
}

namespace {

/// Adds a posted transfer to `requests`, or returns why it was not posted.
Status keep(StatusOr<comm::Request> r, std::vector<comm::Request> &requests) {
  if (!r.ok())
    return r.status();
  requests.push_back(std::move(*r));
  return Status();
}

} // namespace

Status postRingBlocks(RunContext &rc, const RingStep &ring, const float *k,
                      const float *v, int64_t rows, float *nextK, float *nextV,
                      int64_t incoming, std::vector<comm::Request> &requests) {
  size_t self = ring.group.index, n = ring.group.ranks.size();
  int next = ring.group.ranks[(self + 1) % n],
      previous = ring.group.ranks[(self + n - 1) % n];
  auto post = [&](StatusOr<comm::Request> r) {
    return keep(std::move(r), requests);
  };
  size_t keyBytes = size_t(ring.keyBatch * ring.e) * 4,
         valueBytes = size_t(ring.valueBatch * ring.ev) * 4;
  // Both sides know every block's rows: empty ones are not sent.
  if (incoming > 0) {
    SHARDRT_RETURN_IF_ERROR(post(rc.comm->irecv(
        nextK, keyBytes * size_t(incoming), previous, kGroupCollectiveTag)));
    if (ring.passesValues())
      SHARDRT_RETURN_IF_ERROR(
          post(rc.comm->irecv(nextV, valueBytes * size_t(incoming), previous,
                              kGroupCollectiveTag)));
  }
  if (rows > 0) {
    SHARDRT_RETURN_IF_ERROR(post(
        rc.comm->isend(k, keyBytes * size_t(rows), next, kGroupCollectiveTag)));
    if (ring.passesValues())
      SHARDRT_RETURN_IF_ERROR(post(rc.comm->isend(v, valueBytes * size_t(rows),
                                                  next, kGroupCollectiveTag)));
  }
  return Status();
}

int64_t RingStep::helps(int64_t t) const {
  int64_t self = int64_t(group.index), P = members();
  if (!balanced() || t < P - near || self >= t)
    return -1;
  int64_t member = self + P - t;
  return rows(self) > 0 && rows(member) > 0 ? member : -1;
}

int64_t RingStep::helpedBy(int64_t t) const {
  int64_t self = int64_t(group.index), P = members();
  if (!balanced() || t < P - near || self < P - t)
    return -1;
  int64_t member = self - (P - t);
  return rows(self) > 0 && rows(member) > 0 ? member : -1;
}

namespace {

/// Balanced: posts at step t what step t + 1 helps with: this member's
/// queries to the member that helps it then, and the receive of the
/// queries it helps with into `landing`.
Status postQueries(RunContext &rc, const RingStep &ring, int64_t t,
                   float *landing, std::vector<comm::Request> &requests) {
  size_t rowBytes = size_t(ring.queryBatch * ring.e) * 4;
  if (int64_t to = ring.helpedBy(t + 1); to >= 0)
    SHARDRT_RETURN_IF_ERROR(keep(
        rc.comm->isend(slotPtr<float>(rc, ring.q), rowBytes * size_t(ring.l),
                       ring.group.ranks[size_t(to)], kGroupCollectiveTag),
        requests));
  if (int64_t from = ring.helps(t + 1); from >= 0)
    SHARDRT_RETURN_IF_ERROR(keep(
        rc.comm->irecv(landing, rowBytes * size_t(ring.rows(from)),
                       ring.group.ranks[size_t(from)], kGroupCollectiveTag),
        requests));
  return Status();
}

/// Bytes of member `member`'s state.
size_t stateBytes(const RingStep &ring, int64_t member) {
  return size_t(ring.batch() * ring.rows(member) * (2 + ring.ev)) * 4;
}

} // namespace

StatusOr<bool> runRingSteps(RunContext &rc, const RingStep &ring,
                            const float *k, const float *v,
                            const RingSteps &steps) {
  int64_t members = ring.members(), self = int64_t(ring.group.index);
  const float *ownK = k, *ownV = v;
  bool attended = false;
  for (int64_t t = 0; t < members; ++t) {
    int64_t block = ring.wrap(self - t);
    float *nextK = nullptr, *nextV = nullptr;
    std::vector<comm::Request> requests;
    int64_t helped = ring.helps(t), helper = ring.helpedBy(t);
    // Before anything lands in a buffer the previous step's work may still
    // read (the partial state it merged, at the last step too).
    if ((t + 1 < members || helper >= 0) && steps.beforePost)
      SHARDRT_RETURN_IF_ERROR(steps.beforePost());
    if (t + 1 < members) {
      std::tie(nextK, nextV) = steps.landing(t);
      // A failed post returns at once: dropping a request cancels it.
      SHARDRT_RETURN_IF_ERROR(
          postRingBlocks(rc, ring, k, v, ring.rows(block), nextK, nextV,
                         ring.rows(ring.wrap(block - 1)), requests));
      if (ring.balanced())
        SHARDRT_RETURN_IF_ERROR(
            postQueries(rc, ring, t, steps.queryLanding(t + 1), requests));
    }
    if (helper >= 0)
      SHARDRT_RETURN_IF_ERROR(keep(
          rc.comm->irecv(steps.partialIn, stateBytes(ring, self),
                         ring.group.ranks[size_t(helper)], kGroupCollectiveTag),
          requests));
    if (ring.foldsAtHand(t)) {
      SHARDRT_RETURN_IF_ERROR(steps.attend(block, k, v, !attended));
      attended = true;
    }
    if (helped >= 0) {
      SHARDRT_RETURN_IF_ERROR(steps.help(helped, steps.queryLanding(t), ownK,
                                         ownV, steps.partialOut));
      if (steps.beforePost)
        SHARDRT_RETURN_IF_ERROR(steps.beforePost());
      SHARDRT_RETURN_IF_ERROR(keep(
          rc.comm->isend(steps.partialOut, stateBytes(ring, helped),
                         ring.group.ranks[size_t(helped)], kGroupCollectiveTag),
          requests));
    }
    if (!requests.empty())
      SHARDRT_RETURN_IF_ERROR(rc.comm->waitAll(
          comm::Span<comm::Request>(requests.data(), requests.size())));
    // The member's own block came first (step 0): the state is started.
    if (helper >= 0)
      SHARDRT_RETURN_IF_ERROR(steps.merge());
    if (t + 1 < members) {
      k = nextK;
      if (ring.valuesAreKeys)
        v = k;
      else if (ring.passesValues())
        v = nextV;
    }
  }
  return attended;
}

namespace {

/// The CPU step: the decoded ring and its workspace.
struct Ring : RingStep {
  WorkspacePlan::Ref keys[2], values[2], state;
  WorkspacePlan::Ref queries[2], partial[2]; ///< balanced only
};

/// Queries and the state they are folded into: this member's, or (helping)
/// another member's queries and a partial state laid out like its state.
struct QueryBlock {
  const float *q;
  int64_t l, queryLo;
  float *state;
};

/// Folds the block of member `block` (its keys at `k`, values at `v`) into
/// every batch entry's running state of `queries`.
void attendBlock(RunContext &rc, const Ring &ring, const QueryBlock &queries,
                 int64_t block, const float *k, const float *v, bool first) {
  int64_t rows = ring.rows(block), keyLo = ring.starts[size_t(block)];
  const float *q = queries.q;
  const float *mask =
      ring.mask == kNoSlot ? nullptr : slotPtr<float>(rc, ring.mask);
  float *state = queries.state;
  int64_t batch = int64_t(ring.qAt.size()), l = queries.l;
  float *m = state, *lsum = m + batch * l, *o = lsum + batch * l;
  for (int64_t b = 0; b < batch; ++b) {
    cpu::OnlineBlock blk;
    blk.l = l;
    blk.s = rows;
    blk.e = ring.e;
    blk.ev = ring.ev;
    blk.q = q + ring.qAt[size_t(b)] * l * ring.e;
    blk.k = k + ring.kAt[size_t(b)] * rows * ring.e;
    blk.v = ring.valuesWhole
                ? v + (ring.vAt[size_t(b)] * ring.valueRows + keyLo) * ring.ev
                : v + ring.vAt[size_t(b)] * rows * ring.ev;
    blk.scale = ring.scale;
    if (mask) {
      blk.maskRowStride = ring.maskRows == 1 ? 0 : ring.maskCols;
      blk.maskColStride = ring.maskCols == 1 ? 0 : 1;
      blk.mask = mask + ring.maskAt[size_t(b)] * ring.maskRows * ring.maskCols +
                 (ring.maskCols == 1 ? 0 : keyLo);
    }
    blk.causal = ring.causal;
    blk.queryLo = queries.queryLo;
    blk.keyLo = keyLo;
    cpu::attendOnline(blk, first, m + b * l, lsum + b * l, o + b * l * ring.ev);
  }
}

/// o / lsum into the output, or zeros where no key reached the queries
/// (the empty sum the unpartitioned op gives).
void finish(RunContext &rc, const Ring &ring, bool attended) {
  auto *y = slotPtr<float>(rc, ring.out);
  int64_t batch = int64_t(ring.qAt.size()), l = ring.l, ev = ring.ev;
  if (!attended) {
    std::fill(y, y + batch * l * ev, 0.0f);
    return;
  }
  const auto *state = reinterpret_cast<const float *>(ring.state.data());
  const float *m = state, *lsum = m + batch * l, *o = lsum + batch * l;
  // A row whose every key was masked kept the max -inf: NaN, as the
  // Attention instruction and PyTorch (< 2.5) give.
  const float negInf = -std::numeric_limits<float>::infinity();
  for (int64_t row = 0; row < batch * l; ++row)
    for (int64_t c = 0; c < ev; ++c)
      y[row * ev + c] = m[row] == negInf
                            ? std::numeric_limits<float>::quiet_NaN()
                            : o[row * ev + c] / lsum[row];
}

/// Merges the partial state at `partial` into this member's state (both
/// over its query rows).
void mergePartial(const Ring &ring, const float *partial) {
  auto *state = reinterpret_cast<float *>(ring.state.data());
  int64_t rows = ring.batch() * ring.l, ev = ring.ev;
  float *m = state, *lsum = m + rows, *o = lsum + rows;
  const float *pm = partial, *plsum = pm + rows, *po = plsum + rows;
  for (int64_t row = 0; row < rows; ++row) {
    cuda::RingCombine c = cuda::ringCombine(m[row], pm[row]);
    m[row] = c.max;
    lsum[row] = lsum[row] * c.kept + plsum[row] * c.added;
    for (int64_t j = 0; j < ev; ++j)
      o[row * ev + j] = o[row * ev + j] * c.kept + po[row * ev + j] * c.added;
  }
}

Status runRing(RunContext &rc, const Ring &ring) {
  if (ring.members() > 1)
    SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "a ring attention"));
  QueryBlock own{slotPtr<float>(rc, ring.q), ring.l, ring.queryLo,
                 reinterpret_cast<float *>(ring.state.data())};
  RingSteps steps;
  // The workspace buffers exist only in rings of several members.
  steps.landing = [&](int64_t t) {
    return std::make_pair(reinterpret_cast<float *>(ring.keys[t % 2].data()),
                          ring.passesValues() ? reinterpret_cast<float *>(
                                                    ring.values[t % 2].data())
                                              : nullptr);
  };
  steps.attend = [&](int64_t block, const float *k, const float *v,
                     bool first) {
    attendBlock(rc, ring, own, block, k, v, first);
    return Status();
  };
  if (ring.balanced()) {
    steps.queryLanding = [&](int64_t t) {
      return reinterpret_cast<float *>(ring.queries[t % 2].data());
    };
    steps.partialOut = reinterpret_cast<float *>(ring.partial[0].data());
    steps.partialIn = reinterpret_cast<float *>(ring.partial[1].data());
    int64_t self = int64_t(ring.group.index);
    // By value: runRingSteps calls it after this block has closed.
    steps.help = [&rc, &ring, self](int64_t member, const float *q,
                                    const float *k, const float *v,
                                    float *partial) {
      attendBlock(rc, ring,
                  {q, ring.rows(member), ring.starts[size_t(member)], partial},
                  self, k, v, true);
      return Status();
    };
    steps.merge = [&]() {
      mergePartial(ring, steps.partialIn);
      return Status();
    };
  }
  SHARDRT_ASSIGN_OR_RETURN(bool attended,
                           runRingSteps(rc, ring, slotPtr<float>(rc, ring.k),
                                        slotPtr<float>(rc, ring.v), steps));
  finish(rc, ring, attended);
  return Status();
}

} // namespace

StatusOr<RunFn> prepareRingAttention(const fb::Instruction &inst,
                                     const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(RingStep decoded, decodeRing(inst, ctx));
  auto ring = std::make_shared<Ring>();
  static_cast<RingStep &>(*ring) = std::move(decoded);
  if (ring->members() > 1)
    for (int i = 0; i < 2; ++i) {
      SHARDRT_ASSIGN_OR_RETURN(
          ring->keys[i], ctx.reserveWorkspace(uint64_t(ring->keyElems) * 4));
      if (ring->passesValues()) {
        SHARDRT_ASSIGN_OR_RETURN(
            ring->values[i],
            ctx.reserveWorkspace(uint64_t(ring->valueElems) * 4));
      }
    }
  SHARDRT_ASSIGN_OR_RETURN(
      ring->state, ctx.reserveWorkspace(uint64_t(ring->stateElems) * 4));
  if (ring->balanced())
    for (int i = 0; i < 2; ++i) {
      SHARDRT_ASSIGN_OR_RETURN(
          ring->queries[i],
          ctx.reserveWorkspace(uint64_t(ring->queryElems) * 4));
      SHARDRT_ASSIGN_OR_RETURN(
          ring->partial[i],
          ctx.reserveWorkspace(uint64_t(ring->partialElems) * 4));
    }
  return RunFn([ring](RunContext &rc) { return runRing(rc, *ring); });
}

} // namespace shardrt::exec
