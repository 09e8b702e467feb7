//===- PartitionAttention.cpp - Attention over split sequences ------------===//
//
// Attention over a split key sequence: a ring. Each rank keeps its queries
// and passes its key/value block around the key split's group (one ring
// over all its mesh axes), accumulating with an online softmax (running
// max, rescaled sum and output); blocks may differ in size from rank to
// rank. By default each rank gets one RingAttention instruction that runs
// the steps; with unroll-rings its program spells out
// every step's exchange and block. Values that arrive whole along the keys stay
// put and are sliced per block. Causal attention compares global positions from
// one shared constant; with whole keys and split queries it becomes a bool mask
// for the generic lowering.
//
//===----------------------------------------------------------------------===//

#include "PartitionLocal.h"

#include "shardc/Dialect/Sc/ScOps.h"
#include "shardrt/artifact/Artifact.h"

#include <limits>
#include <numeric>
#include <utility>

using namespace mlir;
using namespace shardc::sc;

namespace shardc {
using namespace partition;
namespace {

/// A constant of positions 0, 1, ..., longest - 1 (f32) on every rank, for
/// causal masks by global position: `longest` is the longest shard of any
/// of `splits`, and at least `atLeast` (a whole sequence). Positions are
/// compared in f32, exact up to 2^24: a sequence longer than that is a
/// located error ending in `why`.
FailureOr<std::vector<uint32_t>>
positionTable(Partitioner &p, Operation *op,
              std::initializer_list<const plan::DimSplit *> splits,
              int64_t atLeast, StringRef why) {
  int64_t span = atLeast, longest = atLeast;
  for (const plan::DimSplit *d : splits) {
    span = std::max(span, d->starts.back());
    for (int64_t b = 0; b < d->numShards(); ++b)
      longest = std::max(longest, d->shard(b).size());
  }
  if (span > (int64_t(1) << 24))
    return op->emitOpError("attends causally over more than 2^24 positions")
           << why;
  std::vector<float> values(static_cast<size_t>(longest));
  std::iota(values.begin(), values.end(), 0.0f);
  return p.constantTensor({longest}, values);
}

/// The global positions of `range` on rank r, shaped `shape` (range.size()
/// elements: (n, 1) for queries, (1, n) for keys), from its position table.
uint32_t globalPositions(Partitioner &p, int64_t r, uint32_t table,
                         Interval range, Shape shape) {
  Emit e{p.ranks[r]};
  uint32_t local =
      e.reshape(e.slice(table, {0}, {range.size()}), std::move(shape));
  if (range.lo == 0)
    return local;
  return e.binary("add", local, p.scalar(r, double(range.lo)));
}

/// An i1 (queries x keys) table of query position >= key position: which
/// keys a causal query sees.
uint32_t causalSeen(ProgramBuilder &b, uint32_t queryPositions,
                    uint32_t keyPositions, int64_t queries, int64_t keys) {
  uint32_t seen = b.temporary(fb::DType::I1, {queries, keys});
  b.emit(fb::Opcode::Compare, {queryPositions, keyPositions}, {seen}).str =
      "ge";
  return seen;
}

/// `scores` (..., Lq, keys of one ring block) plus the user's additive mask
/// for the block (its key dim arrives whole).
uint32_t maskScores(Emit &e, uint32_t scores, uint32_t mask, Interval keys) {
  Shape shape = e.shape(mask);
  if (shape.back() != 1) {
    Shape start(shape.size(), 0);
    start.back() = keys.lo;
    shape.back() = keys.size();
    mask = e.slice(mask, start, shape);
  }
  return e.binary("add", scores, mask);
}

/// The lowest f32. While no key of a row is visible its running max is
/// -inf; the weights are then shifted by this instead, so that each is
/// exp(-inf) = 0 where -inf - -inf would be NaN. Masked scores stay -inf:
/// a finite stand-in for them would take the weight of real scores as low.
constexpr double kLowestFloat = -3.4028234663852886e38;

int64_t wrap(int64_t i, int64_t n) { return (i % n + n) % n; }

/// What every rank of one ring agrees on.
struct Ring {
  ScaledDotProductAttentionOp op;
  /// The key split (its group is the ring, visited in shard order: over
  /// several axes, the first major) and the query split.
  const plan::DimSplit &keys, &queries;
  /// Values whose key dim lost the split's axes arrive whole: each block
  /// slices its rows of them, and only the keys travel.
  bool valuesWhole;
  /// Keys that are the values travel once.
  bool valuesAreKeys;
  std::vector<int64_t> transposeKeys;
  double scale;
  /// Each rank's table of positions (causal only).
  std::vector<uint32_t> positions;
};

/// Periodic mesh offsets from a rank to the ring's next member (which gets
/// its block) and to the previous one (whose block arrives).
struct Neighbours {
  std::vector<int32_t> next, previous;
};

Neighbours ringNeighbours(const plan::Mesh &mesh, const plan::DimSplit &keys,
                          const std::vector<int64_t> &coords) {
  int64_t members = keys.numShards(), self = keys.shardOf(mesh, coords);
  auto coordsOf = [&](int64_t member) {
    std::vector<int64_t> at = coords;
    for (size_t i = keys.axes.size(); i-- > 0;) {
      int a = keys.axes[i];
      at[a] = member % mesh.shape[a];
      member /= mesh.shape[a];
    }
    return at;
  };
  std::vector<int64_t> next = coordsOf(wrap(self + 1, members)),
                       previous = coordsOf(wrap(self - 1, members));
  // Stepping one member on moves each axis by 0 or +1 modulo its size (the
  // minor one wraps, carrying into the next), and one back by 0 or -1;
  // written as periodic offsets, every member gets the same ones where it
  // can, so that members share rank classes.
  Neighbours n{std::vector<int32_t>(coords.size(), 0),
               std::vector<int32_t>(coords.size(), 0)};
  for (size_t a = 0; a < coords.size(); ++a) {
    n.next[a] = next[a] == coords[a] ? 0 : 1;
    n.previous[a] = previous[a] == coords[a] ? 0 : -1;
  }
  return n;
}

/// One ring step's exchange on a rank: the blocks `sent` go to the next
/// member, and the previous member's blocks (of `rows` keys) arrive into
/// fresh buffers, returned in the same order. Tag i pairs the i-th block
/// sent with the i-th received.
std::vector<uint32_t> passBlocks(Emit &e, const std::vector<uint32_t> &sent,
                                 int64_t rows, const Neighbours &n) {
  std::vector<uint32_t> received;
  for (uint32_t block : sent) {
    Shape shape = e.shape(block);
    shape[shape.size() - 2] = rows;
    received.push_back(e.tmp(shape));
  }
  art::InstructionSpec &x = e.b.emit(fb::Opcode::HaloExchange, sent, received);
  for (auto [slots, peer, kind] :
       {std::tuple{&sent, &n.next, fb::TransferKind::Send},
        std::tuple{&std::as_const(received), &n.previous,
                   fb::TransferKind::Recv}})
    for (size_t i = 0; i < slots->size(); ++i) {
      art::TransferSpec t;
      t.kind = kind;
      t.peer = *peer;
      t.periodic = true;
      t.slot = (*slots)[i];
      t.hi = e.shape(t.slot);
      t.lo.assign(t.hi.size(), 0);
      t.tag = uint32_t(i);
      x.transfers.push_back(std::move(t));
    }
  return received;
}

/// A rank's side of the ring: its queries and what every block uses.
struct RankSide {
  /// The queries times the scale, once: scaling each block's scores
  /// instead would pass over a (queries x block) matrix every step.
  uint32_t scaledQueries;
  /// Scalars: the lowest float (a shift), and for causal rings -inf (a
  /// causally hidden score).
  uint32_t lowest;
  std::optional<uint32_t> negInf;
  std::optional<uint32_t> mask, queryPositions;
  Interval queries;
};

/// The scaled scores of rank r's queries against one block of keys `k`
/// (the sequence's `keys`), with the user's mask and the causal rule.
uint32_t blockScores(Partitioner &p, int64_t r, const Ring &ring,
                     const RankSide &side, uint32_t k, Interval keys) {
  Emit e{p.ranks[r]};
  uint32_t scores =
      e.matmul(side.scaledQueries, e.permute(k, ring.transposeKeys));
  if (side.mask)
    scores = maskScores(e, scores, *side.mask, keys);
  // A block that straddles the queries keeps the scores where the query's
  // position is at least the key's.
  if (side.queryPositions && keys.hi - 1 > side.queries.lo) {
    uint32_t keyPositions =
        globalPositions(p, r, ring.positions[r], keys, {1, keys.size()});
    uint32_t seen = causalSeen(p.ranks[r], *side.queryPositions, keyPositions,
                               side.queries.size(), keys.size());
    uint32_t kept = e.tmp(e.shape(scores));
    p.ranks[r].emit(fb::Opcode::Select, {seen, scores, *side.negInf}, {kept});
    scores = kept;
  }
  return scores;
}

/// The online softmax over the blocks seen so far: the running row max m,
/// sum l of exp(score - m), and output o, the sum of exp(score - m) v. A row
/// that no block showed a key ends with l = 0 and o = 0, so o / l is NaN,
/// as the unpartitioned op and the RingAttention instruction give.
struct OnlineSoftmax {
  std::optional<uint32_t> m, l, o;

  /// `lowest` is the scalar kLowestFloat.
  void add(Emit &e, uint32_t scores, uint32_t values, uint32_t lowest) {
    // The key dim is the scores' last, whichever operands added dims.
    int64_t keyDim = int64_t(e.shape(scores).size()) - 1;
    uint32_t blockMax = e.reduce("amax", scores, {keyDim}, true);
    if (!m) {
      uint32_t shift = e.binary("maximum", blockMax, lowest);
      uint32_t probs = e.unary("exp", e.binary("sub", scores, shift));
      m = blockMax;
      l = e.reduce("sum", probs, {keyDim}, true);
      o = e.matmul(probs, values);
      return;
    }
    uint32_t newMax = e.binary("maximum", *m, blockMax);
    uint32_t shift = e.binary("maximum", newMax, lowest);
    uint32_t alpha = e.unary("exp", e.binary("sub", *m, shift));
    uint32_t probs = e.unary("exp", e.binary("sub", scores, shift));
    l = e.binary("add", e.binary("mul", *l, alpha),
                 e.reduce("sum", probs, {keyDim}, true));
    o = e.binary("add", e.binary("mul", *o, alpha), e.matmul(probs, values));
    m = newMax;
  }
};

/// Rank r's program of the ring: one step per member, each passing the
/// blocks on and attending to the one at hand. A causal block wholly after
/// the rank's queries is skipped (it is still passed on).
LogicalResult attendOnRank(Partitioner &p, const Ring &ring,
                           const std::vector<std::vector<uint32_t>> &in,
                           int64_t r) {
  ScaledDotProductAttentionOp op = ring.op;
  Emit e{p.ranks[r]};
  std::vector<int64_t> coords = p.mesh.coords(r);
  Neighbours neighbours = ringNeighbours(p.mesh, ring.keys, coords);
  RankSide side;
  side.scaledQueries = e.binary("mul", in[0][r], p.scalar(r, ring.scale));
  side.lowest = p.scalar(r, kLowestFloat);
  if (op.getIsCausal())
    side.negInf = p.scalar(r, -std::numeric_limits<double>::infinity());
  if (op.getMask()) {
    side.mask = in[3][r];
    int64_t keys = e.shape(*side.mask).back();
    if (keys != 1 && keys != ring.keys.starts.back())
      return op.emitOpError("internal error: the mask reaches the ring with "
                            "a split key dim");
  }
  side.queries = ring.queries.shard(ring.queries.shardOf(p.mesh, coords));
  if (op.getIsCausal())
    side.queryPositions = globalPositions(p, r, ring.positions[r], side.queries,
                                          {side.queries.size(), 1});
  uint32_t k = in[1][r], v = in[2][r];
  int64_t self = ring.keys.shardOf(p.mesh, coords),
          members = ring.keys.numShards();
  OnlineSoftmax softmax;
  for (int64_t t = 0; t < members; ++t) {
    int64_t block = wrap(self - t, members);
    std::vector<uint32_t> arrived;
    if (t + 1 < members) {
      std::vector<uint32_t> sent = {k};
      if (!ring.valuesWhole && !ring.valuesAreKeys)
        sent.push_back(v);
      int64_t rows = ring.keys.shard(wrap(block - 1, members)).size();
      arrived = passBlocks(e, sent, rows, neighbours);
    }
    Interval keys = ring.keys.shard(block);
    bool hidden = op.getIsCausal() && keys.lo >= side.queries.hi;
    if (keys.size() > 0 && !hidden) {
      uint32_t values = v;
      if (ring.valuesWhole) {
        Shape start(e.shape(v).size(), 0), shape = e.shape(v);
        start[start.size() - 2] = keys.lo;
        shape[shape.size() - 2] = keys.size();
        values = e.slice(v, start, shape);
      }
      uint32_t scores = blockScores(p, r, ring, side, k, keys);
      softmax.add(e, scores, values, side.lowest);
    }
    if (!arrived.empty()) {
      k = arrived[0];
      if (ring.valuesAreKeys)
        v = k;
      else if (!ring.valuesWhole)
        v = arrived[1];
    }
  }
  if (!softmax.o) {
    // No key reached this rank's queries: it has none (an empty shard that
    // sees no keys causally), or there are no keys at all. Every row is
    // then an empty sum, 0, as the unpartitioned op gives.
    Shape out = p.shardingOf(op.getResult()).layout.ownedShape(p.mesh, r);
    p.ranks[r].bind(op.getResult(), e.fill(out, 0.0));
    return success();
  }
  p.ranks[r].bind(op.getResult(), e.binary("div", *softmax.o, *softmax.l));
  return success();
}

/// Rank r's ring as one RingAttention instruction: the runtime runs the
/// steps, and finds its blocks (and a causal ring its first query's
/// position) from its place in the groups and `header`, one list every
/// rank shares, so that even splits make one class.
LogicalResult ringInstruction(Partitioner &p, const Ring &ring,
                              const art::IntList &header,
                              const std::vector<std::vector<uint32_t>> &in,
                              int64_t r) {
  ScaledDotProductAttentionOp op = ring.op;
  std::vector<uint32_t> ins = {in[0][r], in[1][r], in[2][r]};
  if (op.getMask()) {
    ins.push_back(in[3][r]);
    int64_t keys = p.ranks[r].buffers[in[3][r]].shape.back();
    if (keys != 1 && keys != ring.keys.starts.back())
      return op.emitOpError("internal error: the mask reaches the ring with "
                            "a split key dim");
  }
  Emit e{p.ranks[r]};
  uint32_t out =
      e.tmp(p.shardingOf(op.getResult()).layout.ownedShape(p.mesh, r));
  art::InstructionSpec &x =
      p.ranks[r].emit(fb::Opcode::RingAttention, ins, {out});
  x.meshAxes.assign(ring.keys.axes.begin(), ring.keys.axes.end());
  x.ints = header;
  x.floats = {ring.scale};
  p.ranks[r].bind(op.getResult(), out);
  return success();
}

/// Causal attention over whole keys with split queries: each rank's
/// queries start at a global position the Attention instruction does not
/// know (it counts from 0), so the generic lowering gets a bool mask of
/// query position >= key position (ProgramBuilder::causalMask) instead of
/// is_causal. Positions are compared in f32, exact up to 2^24. Returns
/// each rank's mask.
FailureOr<std::vector<uint32_t>>
maskCausalQueries(Partitioner &p, ScaledDotProductAttentionOp op) {
  const plan::Layout &q = p.shardingOf(op.getQuery()).layout;
  int64_t qDim = int64_t(q.shape.size()) - 2;
  const plan::DimSplit &qseq = q.dims[qDim];
  Shape keyShape = p.shardingOf(op.getKey()).layout.shape;
  int64_t keys = keyShape[keyShape.size() - 2];
  FailureOr<std::vector<uint32_t>> positions =
      positionTable(p, op, {&qseq}, keys,
                    " with split queries; positions are compared in f32");
  if (failed(positions))
    return failure();
  std::vector<uint32_t> masks;
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    Interval queries = qseq.shard(qseq.shardOf(p.mesh, p.mesh.coords(r)));
    uint32_t queryPositions =
        globalPositions(p, r, (*positions)[r], queries, {queries.size(), 1});
    uint32_t keyPositions =
        globalPositions(p, r, (*positions)[r], {0, keys}, {1, keys});
    masks.push_back(causalSeen(p.ranks[r], queryPositions, keyPositions,
                               queries.size(), keys));
  }
  return masks;
}

} // namespace

LogicalResult
partition::lowerRingAttention(Partitioner &p, ScaledDotProductAttentionOp op,
                              const std::vector<std::vector<uint32_t>> &in) {
  // q, k and v may differ in rank, their batch dims broadcasting as
  // PyTorch's: each is indexed by its own rank, and the scores (with a
  // mask's batch dims too) and the output have the broadcast batch dims
  // (the matmuls and the mask's add broadcast them).
  auto sequenceSplit = [&](Value v) -> const plan::DimSplit & {
    const plan::Layout &layout = p.shardingOf(v).layout;
    return layout.dims[layout.shape.size() - 2];
  };
  const plan::DimSplit &keys = sequenceSplit(op.getKey()),
                       &queries = sequenceSplit(op.getQuery()),
                       &values = sequenceSplit(op.getValue());
  bool valuesWhole = values.axes.empty();
  // Every member of the ring must agree on how many blocks pass, so
  // whether the keys are the values (one value, fetched once) is decided
  // for all ranks at once.
  bool valuesAreKeys =
      !valuesWhole && op.getKey() == op.getValue() &&
      llvm::all_of(llvm::seq<int64_t>(0, p.numRanks()),
                   [&](int64_t r) { return in[1][r] == in[2][r]; });
  if (!valuesWhole && values != keys)
    return op.emitOpError("internal error: keys and values are split "
                          "differently along the key sequence");
  int64_t kRank = int64_t(p.shardingOf(op.getKey()).layout.shape.size());
  std::vector<int64_t> transposeKeys(kRank);
  std::iota(transposeKeys.begin(), transposeKeys.end(), 0);
  std::swap(transposeKeys[kRank - 1], transposeKeys[kRank - 2]);
  Ring ring{op,
            keys,
            queries,
            valuesWhole,
            valuesAreKeys,
            std::move(transposeKeys),
            attentionScale(op.getScale(), op.getQuery()),
            {}};
  // A mask of rank 0 or 1 (as PyTorch's, broadcast to (L, S)) is viewed
  // with its query and key dims: both ring forms index those.
  std::vector<std::vector<uint32_t>> ins = in;
  if (op.getMask())
    for (int64_t r = 0; r < p.numRanks(); ++r) {
      Emit e{p.ranks[r]};
      Shape shape = e.shape(ins[3][r]);
      if (shape.size() < 2) {
        shape.insert(shape.begin(), 2 - shape.size(), 1);
        ins[3][r] = e.reshape(ins[3][r], shape);
      }
    }
  if (!p.unrollRings) {
    art::IntList header(art::ringAttentionInts(
        {op.getIsCausal(), bool(op.getMask()), valuesWhole, valuesAreKeys},
        std::vector<int64_t>(queries.axes.begin(), queries.axes.end()),
        queries.starts, keys.starts));
    for (int64_t r = 0; r < p.numRanks(); ++r)
      if (failed(ringInstruction(p, ring, header, ins, r)))
        return failure();
    return success();
  }
  // Unrolled, every rank spells out every member's step: said before the
  // compile runs long (1024 ranks: about 40 s and 8 GB).
  constexpr int64_t kManySteps = int64_t(1) << 14;
  if (p.numRanks() * keys.numShards() > kManySteps)
    op.emitWarning("--unroll-rings spells this ring out as ")
        << p.numRanks() << " ranks x " << keys.numShards()
        << " member steps, which can take minutes and gigabytes to compile; "
           "the default RingAttention instruction compiles once per rank";
  if (op.getIsCausal()) {
    FailureOr<std::vector<uint32_t>> table =
        positionTable(p, op, {&keys, &queries}, 0,
                      "; the causal ring compares positions in f32");
    if (failed(table))
      return failure();
    ring.positions = std::move(*table);
  }
  for (int64_t r = 0; r < p.numRanks(); ++r)
    if (failed(attendOnRank(p, ring, ins, r)))
      return failure();
  return success();
}

FailureOr<std::vector<std::optional<uint32_t>>>
causalQueryMasks(Partitioner &p, Operation *op) {
  std::vector<std::optional<uint32_t>> none(size_t(p.numRanks()));
  auto a = dyn_cast<ScaledDotProductAttentionOp>(op);
  if (!a || !a.getIsCausal())
    return none;
  int64_t rank = cast<RankedTensorType>(a.getKey().getType()).getRank();
  int64_t qRank = cast<RankedTensorType>(a.getQuery().getType()).getRank();
  if (splitAny(p, a.getKey(), {rank - 2}) || // the ring's
      !splitAny(p, a.getQuery(), {qRank - 2}))
    return none;
  FailureOr<std::vector<uint32_t>> masks = maskCausalQueries(p, a);
  if (failed(masks))
    return failure();
  return std::vector<std::optional<uint32_t>>(masks->begin(), masks->end());
}

} // namespace shardc
