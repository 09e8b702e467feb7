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
// Softmax over a split dim: local max and sum of exponentials, one
// all-gather of the pairs, and the online-softmax merge.
//
// A mean over split dims: a local sum scaled by the global count, leaving
// a partial sum.
//
//===----------------------------------------------------------------------===//

#include "PartitionLocal.h"

#include "shardc/Dialect/Sc/ScOps.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace shardc::sc;

namespace shardc {
using namespace partition;
namespace {

/// The ranks of r's group over mesh axes `axes`, in group order (by their
/// coordinates on `axes` as listed, the first major): those sharing r's
/// coordinates on the other axes.
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

/// The weighted mean over dim 0 of (P, R, 1) `means`, whose weights sum to
/// 1, taken about the pivot shard's (R, 1) pivotMean, marked 1 in the
/// one-hot `isPivot`: sum_q (w_q (m_q - m_p) + [q = p] m_p), one reduction.
/// Equal means give exactly that mean whatever the weights' rounding, so a
/// constant row centres to exactly 0 as in PyTorch, not to a residue that a
/// small eps (BERT's 1e-12) blows up; sum_q w_q m_q alone does not.
uint32_t weightedMeanAboutPivot(Emit &e, uint32_t means, uint32_t pivotMean,
                                uint32_t weights, uint32_t isPivot) {
  uint32_t offsets =
      e.binary("mul", e.binary("sub", means, pivotMean), weights);
  uint32_t terms =
      e.binary("add", offsets, e.binary("mul", isPivot, pivotMean));
  return e.reduce("sum", terms, {0}, false);
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
  // The first shard holding elements: an empty one's mean is a stand-in 0.
  int64_t pivot = std::find_if(counts.begin(), counts.end(),
                               [](int64_t c) { return c > 0; }) -
                  counts.begin();
  if (pivot == P)
    pivot = 0;
  std::vector<float> weights, sizes;
  for (int64_t c : counts) {
    weights.push_back(float(double(c) / double(total)));
    sizes.push_back(float(c));
  }
  std::vector<uint32_t> w = p.constantTensor({P, 1, 1}, weights);
  std::vector<float> pivotOneHot(P, 0.0f);
  pivotOneHot[pivot] = 1.0f;
  std::vector<uint32_t> isPivot = p.constantTensor({P, 1, 1}, pivotOneHot);
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
    uint32_t pivotMean =
        e.reshape(e.slice(all, {pivot, 0, 0}, {1, R, 1}), {R, 1});
    uint32_t gmean =
        weightedMeanAboutPivot(e, means, pivotMean, w[r], isPivot[r]);
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
    // Chan with equal counts: the mean of the means (exact when they are
    // equal: the runtime sums in double), and the channels' M2 plus
    // `spatial` times their means' squared deviations.
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
  // ignores (exp(lowest - M) is 0). A shard of a row that is all -inf does
  // the same: its max is raised to the lowest float, where -inf would make
  // its sum exp(-inf - -inf) = NaN; a real value of the lowest float keeps
  // its weight (exp(0) = 1).
  const double lowest = -3.4028234663852886e38;
  art::IntList gatherInts =
      collectiveInts(dim, std::vector<int64_t>(members, 2));
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    Emit e{p.ranks[r]};
    uint32_t x = xs[r];
    Shape rowShape = e.shape(x);
    rowShape[dim] = 1;
    bool empty = e.shape(x)[dim] == 0;
    uint32_t m = empty ? e.fill(rowShape, lowest)
                       : e.binary("maximum", e.reduce("amax", x, {dim}, true),
                                  p.scalar(r, lowest));
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
  if (std::optional<CumulativeScan> scan = getCumulativeScan(op);
      scan && scan->dim) {
    if (!splitAny(p, op->getOperand(0), {*scan->dim}))
      return std::nullopt;
    return lowerSplitScan(p, op, scan->kind, *scan->dim, in[0]);
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
      return lowerRingAttention(p, a, in);
    return std::nullopt; // causal split queries: causalQueryMasks
  }
  return std::nullopt;
}

} // namespace shardc
