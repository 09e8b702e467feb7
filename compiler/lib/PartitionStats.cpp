//===- PartitionStats.cpp - Ops whose local program differs ---------------===//
//
// Statistics over split dims (group/layer norm): each rank computes its
// local mean and sum of squared deviations, one all-gather brings every
// rank's pair, and each rank merges them with Chan's formula, weighting by
// the (static, possibly uneven) shard sizes; the two-level form keeps the
// merge as stable as the single-device two-pass one. group_norm channels
// split inside a group first gather per-channel statistics over the channel
// axes and merge each group's channels.
//
// Attention over a split key sequence: a ring. Each rank keeps its queries
// and passes its key/value block around the key split's group (one ring over
// all its mesh axes), accumulating with an
// online softmax (running max, rescaled sum and output); blocks may differ
// in size from rank to rank. Values that arrive whole along the keys stay
// put and are sliced per block.
//
// Softmax over a split dim: local max and sum of exponentials, one
// all-gather of the pairs, and the online-softmax merge.
//
// A mean over split dims: a local sum scaled by the global count, leaving
// a partial sum.
//
//===----------------------------------------------------------------------===//

#include "Partition.h"

#include "shardc/Dialect/Sc/ScOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace shardc::sc;
namespace art = shardrt::artifact;

namespace shardc {
namespace {

using Shape = std::vector<int64_t>;

int64_t product(const Shape &s, size_t from = 0, size_t to = size_t(-1)) {
  int64_t p = 1;
  for (size_t i = from; i < std::min(to, s.size()); ++i)
    p *= s[i];
  return p;
}

Shape broadcast(const Shape &a, const Shape &b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    int64_t y = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    out[i] = x == 1 ? y : x;
  }
  return out;
}

/// Instructions on one rank's program, each into a fresh buffer.
struct Emit {
  ProgramBuilder &b;

  const Shape &shape(uint32_t x) const { return b.buffers[x].shape; }
  uint32_t tmp(Shape s) { return b.temporary(fb::DType::F32, std::move(s)); }
  uint32_t unary(const char *fn, uint32_t x) {
    uint32_t y = tmp(shape(x));
    b.emit(fb::Opcode::Unary, {x}, {y}).str = fn;
    return y;
  }
  uint32_t binary(const char *fn, uint32_t x, uint32_t z) {
    uint32_t y = tmp(broadcast(shape(x), shape(z)));
    b.emit(fb::Opcode::Binary, {x, z}, {y}).str = fn;
    return y;
  }
  uint32_t reduce(const char *fn, uint32_t x, std::vector<int64_t> dims,
                  bool keepdim) {
    Shape out;
    for (size_t d = 0; d < shape(x).size(); ++d) {
      bool reduced = llvm::is_contained(dims, int64_t(d));
      if (!reduced)
        out.push_back(shape(x)[d]);
      else if (keepdim)
        out.push_back(1);
    }
    uint32_t y = tmp(out);
    art::InstructionSpec &inst = b.emit(fb::Opcode::Reduce, {x}, {y});
    inst.str = fn;
    inst.ints = dims;
    return y;
  }
  uint32_t reshape(uint32_t x, Shape s) {
    uint32_t y = b.temporary(b.buffers[x].dtype, std::move(s));
    b.emit(fb::Opcode::Copy, {x}, {y});
    return y;
  }
  uint32_t slice(uint32_t x, Shape start, Shape out, Shape step = {}) {
    uint32_t y = b.temporary(b.buffers[x].dtype, std::move(out));
    art::InstructionSpec &inst = b.emit(fb::Opcode::Slice, {x}, {y});
    inst.ints = start;
    if (step.empty())
      step.assign(start.size(), 1);
    inst.ints.insert(inst.ints.end(), step.begin(), step.end());
    return y;
  }
  uint32_t fill(Shape s, double value) {
    uint32_t y = tmp(std::move(s));
    b.emit(fb::Opcode::Fill, {}, {y}).floats = {value};
    return y;
  }
  uint32_t broadcastTo(uint32_t x, Shape s) {
    uint32_t y = tmp(std::move(s));
    b.emit(fb::Opcode::BroadcastTo, {x}, {y});
    return y;
  }
  uint32_t concat(uint32_t x, uint32_t z, int64_t dim) {
    Shape out = shape(x);
    out[dim] += shape(z)[dim];
    uint32_t y = tmp(out);
    b.emit(fb::Opcode::Concat, {x, z}, {y}).ints = {dim};
    return y;
  }
  uint32_t permute(uint32_t x, std::vector<int64_t> perm) {
    Shape out;
    for (int64_t p : perm)
      out.push_back(shape(x)[p]);
    uint32_t y = tmp(out);
    b.emit(fb::Opcode::Permute, {x}, {y}).ints = perm;
    return y;
  }
  /// torch.matmul of two matrices or batches of them (rank >= 2 each),
  /// their batch dims broadcast.
  uint32_t matmul(uint32_t x, uint32_t z) {
    Shape xs = shape(x), zs = shape(z);
    Shape out = broadcast(Shape(xs.begin(), xs.end() - 2),
                          Shape(zs.begin(), zs.end() - 2));
    out.push_back(xs[xs.size() - 2]);
    out.push_back(zs.back());
    uint32_t y = tmp(out);
    b.emit(fb::Opcode::Matmul, {x, z}, {y});
    return y;
  }
};

/// The mesh axes a value's dims `dims` are split over, ascending (the
/// order a collective's group lists them in).
std::vector<int> splitAxes(const ValueSharding &s,
                           const std::vector<int64_t> &dims) {
  std::vector<int> out;
  for (int64_t d : dims) {
    const std::vector<int> &axes = s.layout.dims[d].axes;
    out.insert(out.end(), axes.begin(), axes.end());
  }
  llvm::sort(out);
  return out;
}

/// The ranks of r's group over mesh axes `axes` (ascending), in group order:
/// those sharing r's coordinates on the other axes.
std::vector<int64_t> groupRanks(const plan::Mesh &mesh,
                                const std::vector<int> &axes, int64_t r) {
  std::vector<int64_t> coords = mesh.coords(r), out;
  for (int a : axes)
    coords[a] = 0;
  while (true) {
    out.push_back(mesh.rankAt(coords));
    size_t i = axes.size();
    while (i > 0 && ++coords[axes[i - 1]] == mesh.shape[axes[i - 1]])
      coords[axes[--i]] = 0;
    if (i == 0)
      return out;
  }
}

/// Each row's mean and sum of squared deviations over the columns of x,
/// viewed (R, c): an (R, 2) buffer. Zeros where c is 0: the runtime's mean
/// of nothing is not a number, and such a shard has weight 0 in the merge.
uint32_t localMoments(Emit &e, uint32_t x) {
  Shape s = e.shape(x);
  if (s[1] == 0)
    return e.fill({s[0], 2}, 0.0);
  uint32_t mean = e.reduce("mean", x, {1}, true);
  uint32_t centered = e.binary("sub", x, mean);
  uint32_t m2 = e.reduce("sum", e.binary("mul", centered, centered), {1}, true);
  return e.concat(mean, m2, 1);
}

/// A rank's rows merged over its group: (R, 1) means and sums of squared
/// deviations of the whole rows, and the whole rows' length.
struct MergedMoments {
  uint32_t mean, m2;
  int64_t total;
};

/// Merges each rank's (R, 2) local moments `stats` over the ranks of its
/// group on mesh axes `axes` (ascending; none: the moments are whole), whose
/// rows hold rankCounts[q] of the elements each: one AllGather of the
/// moments and Chan's merge, weighted by the static counts.
std::vector<MergedMoments> mergeMoments(Partitioner &p,
                                        const std::vector<uint32_t> &stats,
                                        const std::vector<int64_t> &rankCounts,
                                        const std::vector<int> &axes) {
  // Per-row counts depend only on the coordinates on `axes`, so every
  // group sees the same counts in group order (rank 0's group).
  std::vector<int64_t> counts;
  for (int64_t q : groupRanks(p.mesh, axes, 0))
    counts.push_back(rankCounts[q]);
  int64_t P = int64_t(counts.size());
  int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t(0));
  std::vector<float> weights, sizes;
  for (int64_t c : counts) {
    weights.push_back(float(double(c) / double(total)));
    sizes.push_back(float(c));
  }
  std::vector<uint32_t> w = p.constantTensor({P, 1, 1}, weights);
  std::vector<uint32_t> n = p.constantTensor({P, 1, 1}, sizes);
  art::IntList gatherInts = collectiveInts(0, std::vector<int64_t>(P, 1));
  std::vector<MergedMoments> out;
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    Emit e{p.ranks[r]};
    int64_t R = e.shape(stats[r])[0];
    uint32_t all = e.reshape(stats[r], {1, R, 2});
    if (!axes.empty()) {
      uint32_t mine = all;
      all = e.tmp({P, R, 2});
      art::InstructionSpec &gather =
          p.ranks[r].emit(fb::Opcode::AllGather, {mine}, {all});
      gather.ints = gatherInts;
      gather.meshAxes.assign(axes.begin(), axes.end());
    }
    uint32_t means = e.slice(all, {0, 0, 0}, {P, R, 1});
    uint32_t m2s = e.slice(all, {0, 0, 1}, {P, R, 1});
    // Chan: mean = sum w_q m_q; M2 = sum (M2_q + n_q (m_q - mean)^2).
    uint32_t gmean = e.reduce("sum", e.binary("mul", means, w[r]), {0}, false);
    uint32_t d = e.binary("sub", means, gmean);
    uint32_t spread = e.binary("mul", e.binary("mul", d, d), n[r]);
    uint32_t gm2 = e.reduce("sum", e.binary("add", m2s, spread), {0}, false);
    out.push_back({gmean, gm2, total});
  }
  return out;
}

/// rsqrt(M2 / total + eps) of merged moments on rank r.
uint32_t reciprocalStd(Partitioner &p, int64_t r, const MergedMoments &m,
                       double eps) {
  Emit e{p.ranks[r]};
  uint32_t var = e.binary("mul", m.m2, p.scalar(r, 1.0 / double(m.total)));
  return e.unary("rsqrt", e.binary("add", var, p.scalar(r, eps)));
}

/// Normalises each rank's x, viewed (rows[r], rankCounts[r]), over whole
/// rows whose columns are split over mesh axes `axes`; returns per rank the
/// normalised buffer, same shape as x.
std::vector<uint32_t> normalize(Partitioner &p, const std::vector<uint32_t> &xs,
                                const std::vector<int64_t> &rows,
                                const std::vector<int64_t> &rankCounts,
                                const std::vector<int> &axes, double eps) {
  std::vector<uint32_t> views, stats, out;
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    Emit e{p.ranks[r]};
    views.push_back(e.reshape(xs[r], {rows[r], rankCounts[r]}));
    stats.push_back(localMoments(e, views.back()));
  }
  std::vector<MergedMoments> merged = mergeMoments(p, stats, rankCounts, axes);
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    uint32_t rstd = reciprocalStd(p, r, merged[r], eps);
    Emit e{p.ranks[r]};
    uint32_t y =
        e.binary("mul", e.binary("sub", views[r], merged[r].mean), rstd);
    out.push_back(e.reshape(y, e.shape(xs[r])));
  }
  return out;
}

/// Each rank's (N, Cl, 2) per-channel statistics, gathered over the channel
/// split's axes into (N, C, 2) in channel order: the group lists the axes in
/// the split's order, so group order is shard order.
std::vector<uint32_t> gatherChannels(Partitioner &p,
                                     const std::vector<uint32_t> &stats,
                                     const plan::DimSplit &channels) {
  art::IntList gatherInts = collectiveInts(1, channels.extents());
  std::vector<uint32_t> out;
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    Emit e{p.ranks[r]};
    Shape shape = e.shape(stats[r]);
    shape[1] = channels.starts.back();
    uint32_t joined = e.tmp(shape);
    art::InstructionSpec &gather =
        p.ranks[r].emit(fb::Opcode::AllGather, {stats[r]}, {joined});
    gather.ints = gatherInts;
    gather.meshAxes.assign(channels.axes.begin(), channels.axes.end());
    out.push_back(joined);
  }
  return out;
}

/// group_norm with the channels split inside a group: each rank's
/// per-channel moments over its spatial shard are gathered over the channel
/// axes, merged per group (the channels of a group weigh the same), merged
/// over the spatial axes `spatialAxes` (ascending), and spread back to the
/// rank's own channels.
std::vector<uint32_t>
normalizeSplitGroups(Partitioner &p, const ValueSharding &s,
                     const std::vector<uint32_t> &xs, int64_t groups,
                     const std::vector<int> &spatialAxes, double eps) {
  int64_t C = s.layout.shape[1], perGroup = C / groups;
  const plan::DimSplit &channels = s.layout.dims[1];
  std::vector<uint32_t> channelStats;
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    Emit e{p.ranks[r]};
    Shape local = e.shape(xs[r]); // a copy: emitting grows the buffers
    uint32_t rows = e.reshape(xs[r], {local[0] * local[1], product(local, 2)});
    channelStats.push_back(
        e.reshape(localMoments(e, rows), {local[0], local[1], 2}));
  }
  std::vector<uint32_t> allChannels = gatherChannels(p, channelStats, channels);
  std::vector<uint32_t> groupStats;
  std::vector<int64_t> counts;
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    Emit e{p.ranks[r]};
    Shape local = e.shape(xs[r]); // a copy: emitting grows the buffers
    int64_t N = local[0], spatial = product(local, 2);
    uint32_t all = e.reshape(allChannels[r], {N * groups, perGroup, 2});
    uint32_t means = e.slice(all, {0, 0, 0}, {N * groups, perGroup, 1});
    uint32_t m2s = e.slice(all, {0, 0, 1}, {N * groups, perGroup, 1});
    // Chan with equal counts: the mean of the means, and the channels' M2
    // plus `spatial` times their means' squared deviations.
    uint32_t gmean = e.reduce("mean", means, {1}, true);
    uint32_t d = e.binary("sub", means, gmean);
    uint32_t spread =
        e.binary("mul", e.reduce("sum", e.binary("mul", d, d), {1}, true),
                 p.scalar(r, double(spatial)));
    uint32_t gm2 = e.binary("add", e.reduce("sum", m2s, {1}, true), spread);
    groupStats.push_back(e.reshape(e.concat(gmean, gm2, 2), {N * groups, 2}));
    counts.push_back(perGroup * spatial);
  }
  std::vector<MergedMoments> merged =
      mergeMoments(p, groupStats, counts, spatialAxes);
  std::vector<uint32_t> out;
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    uint32_t rstd = reciprocalStd(p, r, merged[r], eps);
    Emit e{p.ranks[r]};
    Shape local = e.shape(xs[r]); // a copy: emitting grows the buffers
    int64_t N = local[0], first = s.layout.owned(p.mesh, r)[1].lo;
    // (N x G, 1) -> (N, G, perGroup) -> this rank's (N, Cl, 1).
    auto perChannel = [&](uint32_t stat) {
      uint32_t spread =
          e.broadcastTo(e.reshape(stat, {N, groups, 1}), {N, groups, perGroup});
      uint32_t mine =
          e.slice(e.reshape(spread, {N, C}), {0, first}, {N, local[1]});
      return e.reshape(mine, {N, local[1], 1});
    };
    uint32_t x = e.reshape(xs[r], {N, local[1], product(local, 2)});
    uint32_t y = e.binary("mul", e.binary("sub", x, perChannel(merged[r].mean)),
                          perChannel(rstd));
    out.push_back(e.reshape(y, local));
  }
  return out;
}

/// Binds `result` on rank r to a fresh buffer holding a * w + b (affine
/// parameters optional).
void finishAffine(Partitioner &p, Operation *op, int64_t r, uint32_t y,
                  std::optional<uint32_t> weight, std::optional<uint32_t> bias,
                  const Shape &paramShape) {
  Emit e{p.ranks[r]};
  if (weight)
    y = e.binary("mul", y, e.reshape(*weight, paramShape));
  if (bias)
    y = e.binary("add", y, e.reshape(*bias, paramShape));
  p.ranks[r].bind(op->getResult(0), y);
}

LogicalResult lowerNormOp(Partitioner &p, Operation *op,
                          const std::vector<std::vector<uint32_t>> &in,
                          std::vector<int64_t> statDims, int64_t firstStat,
                          double eps, unsigned numAffine, bool grouped,
                          int64_t groups) {
  Value x = op->getOperand(0);
  const ValueSharding &s = p.shardingOf(x);
  // A tensor of no elements (no channels, say) normalises to itself.
  if (llvm::is_contained(s.layout.shape, 0)) {
    for (int64_t r = 0; r < p.numRanks(); ++r) {
      Emit e{p.ranks[r]};
      p.ranks[r].bind(op->getResult(0),
                      e.fill(p.ranks[r].buffers[in[0][r]].shape, 0.0));
    }
    return success();
  }
  // group_norm: a channel split along group boundaries keeps each group on
  // one rank, so only the spatial dims' axes gather statistics; a split
  // inside a group gathers per-channel statistics over the channel axes too.
  int64_t perGroup = 0;
  bool splitGroups = false;
  if (grouped) {
    perGroup = s.layout.shape[1] / groups;
    splitGroups = llvm::any_of(s.layout.dims[1].starts,
                               [&](int64_t at) { return at % perGroup != 0; });
    statDims.erase(statDims.begin()); // the channel dim
  }
  std::vector<int> statAxes = splitAxes(s, statDims);
  std::vector<uint32_t> normalized;
  if (splitGroups) {
    normalized = normalizeSplitGroups(p, s, in[0], groups, statAxes, eps);
  } else {
    std::vector<int64_t> counts, rows;
    for (int64_t r = 0; r < p.numRanks(); ++r) {
      const Shape &local = p.ranks[r].buffers[in[0][r]].shape;
      int64_t perRow = product(local, firstStat);
      int64_t n = product(local, 0, firstStat);
      if (grouped) {
        int64_t localGroups = local[1] / perGroup;
        n *= localGroups;
        perRow = perGroup * product(local, 2);
      }
      counts.push_back(perRow);
      rows.push_back(n);
    }
    normalized = normalize(p, in[0], rows, counts, statAxes, eps);
  }
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    const Shape &local = p.ranks[r].buffers[in[0][r]].shape;
    std::optional<uint32_t> weight, bias;
    if (numAffine >= 1)
      weight = in[1][r];
    if (numAffine >= 2)
      bias = in[2][r];
    Shape paramShape;
    if (grouped) { // (C) -> (C, 1, ...)
      paramShape = {local[1]};
      paramShape.insert(paramShape.end(), local.size() - 2, 1);
    } else {
      paramShape.assign(local.begin() + firstStat, local.end());
    }
    finishAffine(p, op, r, normalized[r], weight, bias, paramShape);
  }
  return success();
}

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
/// for the block (its key dim arrives whole), kept at `floor` or above so
/// that -inf entries cannot make a block's row max -inf.
uint32_t maskScores(Emit &e, uint32_t scores, uint32_t mask, Interval keys,
                    uint32_t floor) {
  Shape shape = e.shape(mask);
  if (shape.back() != 1) {
    Shape start(shape.size(), 0);
    start.back() = keys.lo;
    shape.back() = keys.size();
    mask = e.slice(mask, start, shape);
  }
  return e.binary("maximum", e.binary("add", scores, mask), floor);
}

LogicalResult lowerRing(Partitioner &p, ScaledDotProductAttentionOp op,
                        const std::vector<std::vector<uint32_t>> &in) {
  // q, k and v may differ in rank, their batch dims broadcasting as
  // PyTorch's: each is indexed by its own rank, and the scores (with a
  // mask's batch dims too) and the output have the broadcast batch dims
  // (the matmuls and the mask's add broadcast them).
  auto rankOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getRank();
  };
  int64_t qRank = rankOf(op.getQuery()), kRank = rankOf(op.getKey()),
          vRank = rankOf(op.getValue());
  const plan::DimSplit &seq = p.shardingOf(op.getKey()).layout.dims[kRank - 2];
  const plan::DimSplit &qseq =
      p.shardingOf(op.getQuery()).layout.dims[qRank - 2];
  const plan::DimSplit &vseq =
      p.shardingOf(op.getValue()).layout.dims[vRank - 2];
  // Values may arrive whole along the key sequence (their key dim lost its
  // axes to another dim, say their last one to a result split): each
  // block's rows are then sliced from them, and only the keys travel.
  bool valuesWhole = vseq.axes.empty();
  // Keys that are the values (one value, fetched once) travel once. Every
  // member of the ring must agree on how many blocks pass, so it is decided
  // for all ranks at once.
  bool valuesAreKeys =
      !valuesWhole && op.getKey() == op.getValue() &&
      llvm::all_of(llvm::seq<int64_t>(0, p.numRanks()),
                   [&](int64_t r) { return in[1][r] == in[2][r]; });
  if (!valuesWhole && vseq != seq)
    return op.emitOpError("internal error: keys and values are split "
                          "differently along the key sequence");
  // The ring visits the members of the key split's group in shard order:
  // over several axes, the first major.
  int64_t ringSize = seq.numShards();
  auto memberCoords = [&](std::vector<int64_t> coords, int64_t member) {
    for (size_t i = seq.axes.size(); i-- > 0;) {
      int a = seq.axes[i];
      coords[a] = member % p.mesh.shape[a];
      member /= p.mesh.shape[a];
    }
    return coords;
  };
  double scale = attentionScale(op.getScale(), op.getQuery());
  std::vector<int64_t> perm(kRank);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[kRank - 1], perm[kRank - 2]);
  // Masked scores become the lowest float, not -inf: a row whose keys in
  // one block are all masked then has a finite block max, and the online
  // merge scales its terms to zero once a visible key arrives.
  const double lowest = -3.4028234663852886e38;
  int64_t seqLength = seq.starts.back();
  // Causal (query i sees keys j <= i): a block wholly after the rank's
  // queries is skipped, one wholly before them is visible, and one that
  // straddles them keeps the scores where the query's position is at least
  // the key's, both taken from one shared constant of positions.
  std::vector<uint32_t> positions;
  if (op.getIsCausal()) {
    FailureOr<std::vector<uint32_t>> table = positionTable(
        p, op, {&seq, &qseq}, 0, "; the causal ring compares positions in f32");
    if (failed(table))
      return failure();
    positions = std::move(*table);
  }
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    Emit e{p.ranks[r]};
    std::vector<int64_t> coords = p.mesh.coords(r);
    int64_t c = seq.shardOf(p.mesh, coords);
    // Offsets to the next member (which gets this rank's block) and the
    // previous one (whose block arrives).
    std::vector<int32_t> fwd(coords.size(), 0), back = fwd;
    std::vector<int64_t> next = memberCoords(coords, (c + 1) % ringSize),
                         prev = memberCoords(coords,
                                             (c + ringSize - 1) % ringSize);
    // Stepping one member on moves each axis by 0 or +1 modulo its size
    // (the minor one wraps, carrying into the next), and one back by 0 or
    // -1; written as periodic offsets, every member gets the same ones
    // where it can, so that members share rank classes.
    for (size_t a = 0; a < coords.size(); ++a) {
      fwd[a] = next[a] == coords[a] ? 0 : 1;
      back[a] = prev[a] == coords[a] ? 0 : -1;
    }
    uint32_t k = in[1][r], v = in[2][r], q = in[0][r];
    uint32_t sc = p.scalar(r, scale);
    std::optional<uint32_t> m, l, o;
    std::optional<uint32_t> mask;
    uint32_t floor = p.scalar(r, lowest);
    if (op.getMask()) {
      mask = in[3][r];
      int64_t keys = e.shape(*mask).back();
      if (keys != 1 && keys != seqLength)
        return op.emitOpError("internal error: the mask reaches the ring with "
                              "a split key dim");
    }
    Interval queries = qseq.shard(qseq.shardOf(p.mesh, coords));
    auto positionsOf = [&](Interval range, Shape shape) {
      return globalPositions(p, r, positions[r], range, std::move(shape));
    };
    std::optional<uint32_t> queryPositions;
    if (op.getIsCausal())
      queryPositions = positionsOf(queries, {queries.size(), 1});
    for (int64_t t = 0; t < ringSize; ++t) {
      int64_t block = ((c - t) % ringSize + ringSize) % ringSize;
      uint32_t kNext = 0, vNext = 0;
      if (t + 1 < ringSize) {
        // Pass the block on: send to +1, receive the previous rank's.
        int64_t prev = ((block - 1) % ringSize + ringSize) % ringSize;
        Shape kShape = e.shape(k);
        kShape[kRank - 2] = seq.shard(prev).size();
        kNext = e.tmp(kShape);
        std::vector<uint32_t> sent = {k}, received = {kNext};
        if (!valuesWhole && !valuesAreKeys) {
          Shape vShape = e.shape(v);
          vShape[vRank - 2] = kShape[kRank - 2];
          vNext = e.tmp(vShape);
          sent.push_back(v);
          received.push_back(vNext);
        }
        art::InstructionSpec &x =
            p.ranks[r].emit(fb::Opcode::HaloExchange, sent, received);
        // Tag i pairs the i-th block sent with the i-th received.
        for (auto [slots, dir, kind] :
             {std::tuple{&sent, fwd, fb::TransferKind::Send},
              std::tuple{&received, back, fb::TransferKind::Recv}})
          for (size_t i = 0; i < slots->size(); ++i) {
            art::TransferSpec ts;
            ts.kind = kind;
            ts.peer = dir;
            ts.periodic = true;
            ts.slot = (*slots)[i];
            ts.hi = e.shape(ts.slot);
            ts.lo.assign(ts.hi.size(), 0);
            ts.tag = uint32_t(i);
            x.transfers.push_back(std::move(ts));
          }
      }
      Interval keys = seq.shard(block);
      bool causal = op.getIsCausal();
      bool hidden = causal && keys.lo >= queries.hi;
      if (keys.size() > 0 && !hidden) {
        uint32_t values = v;
        if (valuesWhole) {
          Shape start(vRank, 0), shape = e.shape(v);
          start[vRank - 2] = keys.lo;
          shape[vRank - 2] = keys.size();
          values = e.slice(v, start, shape);
        }
        uint32_t scores = e.binary("mul", e.matmul(q, e.permute(k, perm)), sc);
        if (mask)
          scores = maskScores(e, scores, *mask, keys, floor);
        if (causal && keys.hi - 1 > queries.lo) {
          uint32_t seen = causalSeen(p.ranks[r], *queryPositions,
                                     positionsOf(keys, {1, keys.size()}),
                                     queries.size(), keys.size());
          uint32_t kept = e.tmp(e.shape(scores));
          p.ranks[r].emit(fb::Opcode::Select, {seen, scores, floor}, {kept});
          scores = kept;
        }
        // The key dim is the scores' last, whichever operands added dims.
        int64_t keyDim = int64_t(e.shape(scores).size()) - 1;
        uint32_t blockMax = e.reduce("amax", scores, {keyDim}, true);
        if (!m) {
          uint32_t probs = e.unary("exp", e.binary("sub", scores, blockMax));
          m = blockMax;
          l = e.reduce("sum", probs, {keyDim}, true);
          o = e.matmul(probs, values);
        } else {
          uint32_t newMax = e.binary("maximum", *m, blockMax);
          uint32_t alpha = e.unary("exp", e.binary("sub", *m, newMax));
          uint32_t probs = e.unary("exp", e.binary("sub", scores, newMax));
          l = e.binary("add", e.binary("mul", *l, alpha),
                       e.reduce("sum", probs, {keyDim}, true));
          o = e.binary("add", e.binary("mul", *o, alpha),
                       e.matmul(probs, values));
          m = newMax;
        }
      }
      if (t + 1 < ringSize) {
        k = kNext;
        if (valuesAreKeys)
          v = kNext;
        else if (!valuesWhole)
          v = vNext;
      }
    }
    if (!o) {
      // No key reached this rank's queries: it has none (an empty shard
      // that sees no keys causally), or there are no keys at all. Every
      // row is then an empty sum, 0, as the unpartitioned op gives.
      Shape out = p.shardingOf(op.getResult()).layout.ownedShape(p.mesh, r);
      p.ranks[r].bind(op.getResult(), e.fill(out, 0.0));
      continue;
    }
    p.ranks[r].bind(op.getResult(), e.binary("div", *o, *l));
  }
  return success();
}

/// softmax / log_softmax over a dim split over mesh axes `axes`: each rank
/// takes its local max m and sum s = sum exp(x - m) per row; one all-gather
/// over the group brings every member's (m, s); each rank merges them into
/// the global max M = max m_q and sum S = sum s_q exp(m_q - M) (the same
/// merge an online softmax does, so no exp overflows), then normalises its
/// shard. Other dims may be split too: the group is the ranks sharing the
/// rank's coordinates on the other axes.
LogicalResult lowerSoftmax(Partitioner &p, Operation *op, int64_t dim, bool log,
                           const std::vector<uint32_t> &xs) {
  std::vector<int> axes = splitAxes(p.shardingOf(op->getOperand(0)), {dim});
  int64_t members = groupSize(p.mesh, axes);
  // An empty shard contributes m = lowest float and s = 0, which the merge
  // ignores (exp(lowest - M) is 0).
  const double lowest = -3.4028234663852886e38;
  art::IntList gatherInts =
      collectiveInts(dim, std::vector<int64_t>(members, 2));
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    Emit e{p.ranks[r]};
    uint32_t x = xs[r];
    Shape rowShape = e.shape(x);
    rowShape[dim] = 1;
    bool empty = e.shape(x)[dim] == 0;
    uint32_t m =
        empty ? e.fill(rowShape, lowest) : e.reduce("amax", x, {dim}, true);
    uint32_t sum = empty
                       ? e.fill(rowShape, 0.0)
                       : e.reduce("sum", e.unary("exp", e.binary("sub", x, m)),
                                  {dim}, true);
    uint32_t stats = e.concat(m, sum, dim);
    Shape allShape = e.shape(stats);
    allShape[dim] = 2 * members;
    uint32_t all = e.tmp(allShape);
    art::InstructionSpec &gather =
        p.ranks[r].emit(fb::Opcode::AllGather, {stats}, {all});
    gather.ints = gatherInts;
    gather.meshAxes.assign(axes.begin(), axes.end());
    Shape start(rowShape.size(), 0), step(rowShape.size(), 1);
    Shape each = rowShape;
    each[dim] = members;
    step[dim] = 2;
    uint32_t ms = e.slice(all, start, each, step);
    start[dim] = 1;
    uint32_t ss = e.slice(all, start, each, step);
    uint32_t gmax = e.reduce("amax", ms, {dim}, true);
    uint32_t gsum = e.reduce(
        "sum", e.binary("mul", ss, e.unary("exp", e.binary("sub", ms, gmax))),
        {dim}, true);
    uint32_t shifted = e.binary("sub", x, gmax);
    uint32_t y = log ? e.binary("sub", shifted, e.unary("log", gsum))
                     : e.binary("div", e.unary("exp", shifted), gsum);
    p.ranks[r].bind(op->getResult(0), y);
  }
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

/// mean over split dims: local sum / global count, a partial sum.
LogicalResult lowerPartialMean(Partitioner &p, MeanOp op,
                               const std::vector<std::vector<uint32_t>> &in) {
  auto type = cast<RankedTensorType>(op.getInput().getType());
  std::vector<int64_t> dims = reducedDims(type.getRank(), op.getDims());
  int64_t count = 1;
  for (int64_t d : dims)
    count *= type.getDimSize(d);
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    Emit e{p.ranks[r]};
    uint32_t sum = e.reduce("sum", in[0][r], dims, op.getKeepdim());
    p.ranks[r].bind(op.getResult(), p.scaled(r, sum, 1.0 / double(count)));
  }
  return success();
}

} // namespace

/// Whether `v` is split along any of `dims`.
static bool splitAny(Partitioner &p, Value v,
                     const std::vector<int64_t> &dims) {
  return !splitAxes(p.shardingOf(v), dims).empty();
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

std::optional<LogicalResult>
lowerStatisticOp(Partitioner &p, Operation *op,
                 std::vector<std::vector<uint32_t>> &in) {
  const ValueSharding &rs = p.shardingOf(op->getResult(0));
  if (auto mean = dyn_cast<MeanOp>(op); mean && rs.isPartial())
    return lowerPartialMean(p, mean, in);
  if (isa<LinearOp, ConvOp, ConvTransposeOp>(op) && rs.isPartial() &&
      op->getNumOperands() == 3) {
    // A contraction over a split dim with a bias: the partial sums add up
    // over the partial axes, so only the ranks at coordinate 0 on all of
    // them add the bias; the others add zeros.
    for (int64_t r = 0; r < p.numRanks(); ++r) {
      std::vector<int64_t> coords = p.mesh.coords(r);
      if (llvm::all_of(rs.partialAxes, [&](int a) { return coords[a] == 0; }))
        continue;
      Emit e{p.ranks[r]};
      in[2][r] = e.fill(e.shape(in[2][r]), 0.0);
    }
    return std::nullopt;
  }
  if (auto g = dyn_cast<GroupNormOp>(op)) {
    int64_t rank = g.getType().getRank();
    std::vector<int64_t> stat;
    for (int64_t d = 1; d < rank; ++d)
      stat.push_back(d);
    if (!splitAny(p, g.getInput(), stat))
      return std::nullopt;
    return lowerNormOp(p, op, in, stat, 1, g.getEps().convertToDouble(),
                       g.getAffine().size(), true, g.getNumGroups());
  }
  if (auto n = dyn_cast<LayerNormOp>(op)) {
    int64_t rank = n.getType().getRank();
    int64_t first = rank - int64_t(n.getNormalizedShape().size());
    std::vector<int64_t> stat;
    for (int64_t d = first; d < rank; ++d)
      stat.push_back(d);
    if (!splitAny(p, n.getInput(), stat))
      return std::nullopt;
    return lowerNormOp(p, op, in, stat, first, n.getEps().convertToDouble(),
                       n.getAffine().size(), false, 1);
  }
  if (isa<SoftmaxOp, LogSoftmaxOp>(op)) {
    int64_t rank = cast<RankedTensorType>(op->getResult(0).getType()).getRank();
    int64_t dim = isa<SoftmaxOp>(op) ? cast<SoftmaxOp>(op).getDim()
                                     : cast<LogSoftmaxOp>(op).getDim();
    if (dim < 0)
      dim += rank;
    if (!splitAny(p, op->getOperand(0), {dim}))
      return std::nullopt;
    return lowerSoftmax(p, op, dim, isa<LogSoftmaxOp>(op), in[0]);
  }
  if (auto a = dyn_cast<ScaledDotProductAttentionOp>(op)) {
    int64_t rank = cast<RankedTensorType>(a.getKey().getType()).getRank();
    if (splitAny(p, a.getKey(), {rank - 2}))
      return lowerRing(p, a, in);
    return std::nullopt; // causal split queries: causalQueryMasks
  }
  return std::nullopt;
}

} // namespace shardc
