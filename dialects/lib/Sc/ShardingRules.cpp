//===- ShardingRules.cpp - ShardingRuleOpInterface for every sc op --------===//
//
// A rule lists factors (logical loops) and maps each operand/result dim to one.
// The partitioner reads the factor kinds to decide what sharding a dim costs;
// dims mapped to no factor must stay replicated.
//
//===----------------------------------------------------------------------===//

#include "OpUtils.h"

#include "llvm/ADT/SmallBitVector.h"

#include <sstream>

using namespace mlir;
using namespace shardc::sc;
using namespace shardc::sc::detail;

const char *shardc::sc::stringifyFactorKind(FactorKind kind) {
  switch (kind) {
  case FactorKind::PassThrough:
    return "pass_through";
  case FactorKind::Reduction:
    return "reduction";
  case FactorKind::Window:
    return "window";
  case FactorKind::Statistic:
    return "statistic";
  case FactorKind::NeedsReplication:
    return "needs_replication";
  }
  return "unknown";
}

/// i, j, ..., z for the first 18 factors, then f18, f19, ...
static std::string factorName(int64_t f) {
  return f < 18 ? std::string(1, static_cast<char>('i' + f))
                : "f" + std::to_string(f);
}

std::string ShardingRule::toString() const {
  std::ostringstream os;
  auto printDims = [&](const std::vector<std::vector<int64_t>> &values,
                       bool results) {
    for (size_t v = 0; v < values.size(); ++v) {
      os << (v ? ", " : "") << "(";
      for (size_t d = 0; d < values[v].size(); ++d) {
        int64_t scale = results ? resultScale(d) : operandScale(v, d);
        os << (d ? ", " : "")
           << (values[v][d] == kNoFactor ? std::string("-")
                                         : factorName(values[v][d]));
        if (scale != 1)
          os << "*" << scale;
      }
      os << ")";
    }
  };
  printDims(operandDims, false);
  os << (operandDims.empty() ? "-> " : " -> ");
  printDims(resultDims, true);
  os << " {";
  for (size_t f = 0; f < factors.size(); ++f)
    os << (f ? ", " : "") << factorName(f) << "=" << factors[f].size << " "
       << stringifyFactorKind(factors[f].kind);
  os << "}";
  return os.str();
}

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// One pass-through factor per result dim; operands align from the right
/// (numpy broadcasting) and their broadcast size-1 dims map to no factor.
static ShardingRule elementwiseRule(Operation *op) {
  ArrayRef<int64_t> out = shapeOf(op->getResult(0));
  ShardingRule rule(op->getNumOperands(), 1);
  for (int64_t size : out)
    rule.resultDims[0].push_back(rule.addFactor(FactorKind::PassThrough, size));
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    ArrayRef<int64_t> in = shapeOf(operand);
    int64_t offset = out.size() - in.size();
    for (auto [d, size] : llvm::enumerate(in))
      rule.operandDims[i].push_back(size == out[offset + d]
                                        ? offset + static_cast<int64_t>(d)
                                        : ShardingRule::kNoFactor);
  }
  return rule;
}

/// Result dims follow operand 0's dims, all pass-through, except the kinds
/// overridden in `kinds` (dim -> kind).
static ShardingRule
pointwiseRule(Operation *op,
              ArrayRef<std::pair<int64_t, FactorKind>> kinds = {}) {
  ArrayRef<int64_t> shape = shapeOf(op->getOperand(0));
  ShardingRule rule(op->getNumOperands(), 1);
  for (auto [d, size] : llvm::enumerate(shape)) {
    FactorKind kind = FactorKind::PassThrough;
    for (auto [dim, k] : kinds)
      if (dim == static_cast<int64_t>(d))
        kind = k;
    int64_t f = rule.addFactor(kind, size);
    rule.operandDims[0].push_back(f);
    rule.resultDims[0].push_back(f);
  }
  for (unsigned i = 1; i < op->getNumOperands(); ++i)
    rule.operandDims[i].assign(shapeOf(op->getOperand(i)).size(),
                               ShardingRule::kNoFactor);
  return rule;
}

#define SC_ELEMENTWISE_RULE(OP)                                                \
  ShardingRule OP::getShardingRule() { return elementwiseRule(*this); }
SC_ELEMENTWISE_RULE(ConstantOp)
SC_ELEMENTWISE_RULE(NegOp)
SC_ELEMENTWISE_RULE(AbsOp)
SC_ELEMENTWISE_RULE(ExpOp)
SC_ELEMENTWISE_RULE(LogOp)
SC_ELEMENTWISE_RULE(SqrtOp)
SC_ELEMENTWISE_RULE(RsqrtOp)
SC_ELEMENTWISE_RULE(TanhOp)
SC_ELEMENTWISE_RULE(SinOp)
SC_ELEMENTWISE_RULE(CosOp)
SC_ELEMENTWISE_RULE(ErfOp)
SC_ELEMENTWISE_RULE(Log1pOp)
SC_ELEMENTWISE_RULE(Expm1Op)
SC_ELEMENTWISE_RULE(TanOp)
SC_ELEMENTWISE_RULE(AsinOp)
SC_ELEMENTWISE_RULE(AcosOp)
SC_ELEMENTWISE_RULE(AtanOp)
SC_ELEMENTWISE_RULE(SinhOp)
SC_ELEMENTWISE_RULE(CoshOp)
SC_ELEMENTWISE_RULE(AsinhOp)
SC_ELEMENTWISE_RULE(AcoshOp)
SC_ELEMENTWISE_RULE(AtanhOp)
SC_ELEMENTWISE_RULE(Log2Op)
SC_ELEMENTWISE_RULE(Log10Op)
SC_ELEMENTWISE_RULE(Exp2Op)
SC_ELEMENTWISE_RULE(ErfcOp)
SC_ELEMENTWISE_RULE(FloorOp)
SC_ELEMENTWISE_RULE(CeilOp)
SC_ELEMENTWISE_RULE(TruncOp)
SC_ELEMENTWISE_RULE(RoundOp)
SC_ELEMENTWISE_RULE(ReciprocalOp)
SC_ELEMENTWISE_RULE(SigmoidOp)
SC_ELEMENTWISE_RULE(ReluOp)
SC_ELEMENTWISE_RULE(SiluOp)
SC_ELEMENTWISE_RULE(GeluOp)
SC_ELEMENTWISE_RULE(LeakyReluOp)
SC_ELEMENTWISE_RULE(EluOp)
SC_ELEMENTWISE_RULE(SoftplusOp)
SC_ELEMENTWISE_RULE(ClampOp)
SC_ELEMENTWISE_RULE(HardtanhOp)
SC_ELEMENTWISE_RULE(HardsigmoidOp)
SC_ELEMENTWISE_RULE(HardswishOp)
SC_ELEMENTWISE_RULE(MishOp)
SC_ELEMENTWISE_RULE(SeluOp)
SC_ELEMENTWISE_RULE(CeluOp)
SC_ELEMENTWISE_RULE(LogsigmoidOp)
SC_ELEMENTWISE_RULE(SoftsignOp)
SC_ELEMENTWISE_RULE(HardshrinkOp)
SC_ELEMENTWISE_RULE(SoftshrinkOp)
SC_ELEMENTWISE_RULE(TanhshrinkOp)
SC_ELEMENTWISE_RULE(ThresholdOp)
SC_ELEMENTWISE_RULE(AddOp)
SC_ELEMENTWISE_RULE(SubOp)
SC_ELEMENTWISE_RULE(MulOp)
SC_ELEMENTWISE_RULE(DivOp)
SC_ELEMENTWISE_RULE(MaximumOp)
SC_ELEMENTWISE_RULE(MinimumOp)
SC_ELEMENTWISE_RULE(PowOp)
SC_ELEMENTWISE_RULE(SquareOp)
SC_ELEMENTWISE_RULE(SignOp)
SC_ELEMENTWISE_RULE(LogaddexpOp)
SC_ELEMENTWISE_RULE(NanToNumOp)
SC_ELEMENTWISE_RULE(IsnanOp)
SC_ELEMENTWISE_RULE(IsinfOp)
SC_ELEMENTWISE_RULE(IsfiniteOp)
SC_ELEMENTWISE_RULE(Atan2Op)
SC_ELEMENTWISE_RULE(FmodOp)
SC_ELEMENTWISE_RULE(RemainderOp)
SC_ELEMENTWISE_RULE(HypotOp)
SC_ELEMENTWISE_RULE(CopysignOp)
SC_ELEMENTWISE_RULE(CompareOp)
SC_ELEMENTWISE_RULE(SelectOp)
SC_ELEMENTWISE_RULE(CastOp)
SC_ELEMENTWISE_RULE(BroadcastToOp)
SC_ELEMENTWISE_RULE(ShardingConstraintOp)
SC_ELEMENTWISE_RULE(ReshardOp)
#undef SC_ELEMENTWISE_RULE

//===----------------------------------------------------------------------===//
// Reductions and statistics
//===----------------------------------------------------------------------===//

/// A reduction of `in` over the `reduced` dims, kept as size 1 or dropped.
static ShardingRule reducingRule(ArrayRef<int64_t> in,
                                 const llvm::SmallBitVector &reduced,
                                 bool keepdim) {
  ShardingRule rule(1, 1);
  for (int64_t d = 0; d < int64_t(in.size()); ++d) {
    int64_t f = rule.addFactor(reduced.test(d) ? FactorKind::Reduction
                                               : FactorKind::PassThrough,
                               in[d]);
    rule.operandDims[0].push_back(f);
    if (!reduced.test(d))
      rule.resultDims[0].push_back(f);
    else if (keepdim)
      rule.resultDims[0].push_back(ShardingRule::kNoFactor);
  }
  return rule;
}

template <typename OpT> static ShardingRule reductionRule(OpT op) {
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  int64_t rank = in.size();
  llvm::SmallBitVector reduced(rank, !op.getDims() || op.getDims()->empty());
  if (auto dims = op.getDims(); dims && rank > 0)
    for (int64_t dim : *dims)
      reduced.set(*normalizeDim(dim, rank));
  return reducingRule(in, reduced, op.getKeepdim());
}

ShardingRule SumOp::getShardingRule() { return reductionRule(*this); }
ShardingRule MeanOp::getShardingRule() { return reductionRule(*this); }
ShardingRule AmaxOp::getShardingRule() { return reductionRule(*this); }
ShardingRule AminOp::getShardingRule() { return reductionRule(*this); }
ShardingRule VarOp::getShardingRule() { return reductionRule(*this); }
ShardingRule LogsumexpOp::getShardingRule() { return reductionRule(*this); }
ShardingRule ProdOp::getShardingRule() { return reductionRule(*this); }

/// argmax/argmin reduce their dim (every dim without one) to an index.
template <typename Op> static ShardingRule argExtremeRule(Op op) {
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  int64_t rank = int64_t(in.size());
  std::optional<int64_t> dim = op.getSignedDim();
  llvm::SmallBitVector reduced(rank, !dim);
  if (dim && rank > 0)
    reduced.set(*normalizeDim(*dim, rank));
  return reducingRule(in, reduced, op.getKeepdim());
}

/// max/min along a dim: both results reduce it.
template <typename Op> static ShardingRule extremeAlongRule(Op op) {
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  int64_t rank = int64_t(in.size());
  llvm::SmallBitVector reduced(rank, rank == 0);
  if (rank > 0)
    reduced.set(*normalizeDim(op.getSignedDim(), rank));
  ShardingRule rule = reducingRule(in, reduced, op.getKeepdim());
  rule.resultDims.push_back(rule.resultDims[0]);
  return rule;
}

ShardingRule MaxOp::getShardingRule() { return extremeAlongRule(*this); }
ShardingRule MinOp::getShardingRule() { return extremeAlongRule(*this); }
ShardingRule ArgmaxOp::getShardingRule() { return argExtremeRule(*this); }
ShardingRule ArgminOp::getShardingRule() { return argExtremeRule(*this); }

ShardingRule PreluOp::getShardingRule() {
  // The weight follows the channel dim when it has one slope per channel.
  ShardingRule rule = pointwiseRule(*this);
  if (getType().getRank() >= 2 && shapeOf(getWeight())[0] != 1)
    rule.operandDims[1][0] = rule.resultDims[0][1];
  return rule;
}

ShardingRule RmsNormOp::getShardingRule() {
  // As a layer norm: the normalized dims are statistics; the weight follows
  // them from the right.
  int64_t rank = getType().getRank();
  int64_t first = rank - static_cast<int64_t>(getNormalizedShape().size());
  SmallVector<std::pair<int64_t, FactorKind>> kinds;
  for (int64_t d = first; d < rank; ++d)
    kinds.push_back({d, FactorKind::Statistic});
  ShardingRule rule = pointwiseRule(*this, kinds);
  if (getWeight())
    for (int64_t d = first; d < rank; ++d)
      rule.operandDims[1][d - first] = rule.resultDims[0][d];
  return rule;
}
ShardingRule VectorNormOp::getShardingRule() { return reductionRule(*this); }

/// A cumulative op: its scanned dim needs the running values of the shards
/// before it (a carry merged after one all-gather, as statistics are).
static ShardingRule cumulativeRule(Operation *op) {
  std::optional<CumulativeScan> scan = getCumulativeScan(op);
  if (!scan->dim)
    return pointwiseRule(op);
  return pointwiseRule(op, {{*scan->dim, FactorKind::Statistic}});
}
ShardingRule CumsumOp::getShardingRule() { return cumulativeRule(*this); }
ShardingRule CumprodOp::getShardingRule() { return cumulativeRule(*this); }
ShardingRule CummaxOp::getShardingRule() { return cumulativeRule(*this); }
ShardingRule CumminOp::getShardingRule() { return cumulativeRule(*this); }
ShardingRule LogcumsumexpOp::getShardingRule() { return cumulativeRule(*this); }

ShardingRule NormalizeOp::getShardingRule() {
  return pointwiseRule(*this, {{*normalizeDim(getDim(), getType().getRank()),
                                FactorKind::Statistic}});
}

/// Dims in `whole` are read across (a factor each side, replicated); the
/// others pass through.
static ShardingRule wholeDimsRule(Operation *op,
                                  const llvm::SmallBitVector &whole) {
  ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
  ArrayRef<int64_t> out = shapeOf(op->getResult(0));
  ShardingRule rule(1, 1);
  for (size_t d = 0; d < in.size(); ++d) {
    int64_t f = rule.addFactor(whole.test(d) ? FactorKind::NeedsReplication
                                             : FactorKind::PassThrough,
                               in[d]);
    rule.operandDims[0].push_back(f);
    rule.resultDims[0].push_back(
        whole.test(d) ? rule.addFactor(FactorKind::NeedsReplication, out[d])
                      : f);
  }
  return rule;
}

ShardingRule GluOp::getShardingRule() {
  llvm::SmallBitVector whole(getType().getRank());
  whole.set(*normalizeDim(getDim(), getType().getRank()));
  return wholeDimsRule(*this, whole);
}

static ShardingRule adaptivePoolRule(Operation *op) {
  llvm::SmallBitVector whole(shapeOf(op->getOperand(0)).size(), true);
  whole.reset(0, 2);
  return wholeDimsRule(op, whole);
}

ShardingRule AdaptiveAvgPoolOp::getShardingRule() {
  return adaptivePoolRule(*this);
}
ShardingRule AdaptiveMaxPoolOp::getShardingRule() {
  return adaptivePoolRule(*this);
}
ShardingRule StdOp::getShardingRule() { return reductionRule(*this); }

ShardingRule SoftmaxOp::getShardingRule() {
  return pointwiseRule(*this, {{*normalizeDim(getDim(), getType().getRank()),
                                FactorKind::Statistic}});
}

ShardingRule SoftminOp::getShardingRule() {
  return pointwiseRule(
      *this,
      {{*normalizeDim(getDim(), std::max<int64_t>(getType().getRank(), 1)),
        FactorKind::Statistic}});
}

ShardingRule LogSoftmaxOp::getShardingRule() {
  return pointwiseRule(*this, {{*normalizeDim(getDim(), getType().getRank()),
                                FactorKind::Statistic}});
}

/// Affine parameters (and running statistics) index the factor of `firstDim`
/// onwards of the input.
static void mapParameters(ShardingRule &rule, Operation *op, unsigned first,
                          int64_t firstDim) {
  for (unsigned i = first; i < op->getNumOperands(); ++i) {
    rule.operandDims[i].clear();
    for (size_t d = 0; d < shapeOf(op->getOperand(i)).size(); ++d)
      rule.operandDims[i].push_back(rule.operandDims[0][firstDim + d]);
  }
}

ShardingRule LayerNormOp::getShardingRule() {
  int64_t rank = getType().getRank();
  int64_t first = rank - getNormalizedShape().size();
  SmallVector<std::pair<int64_t, FactorKind>> kinds;
  for (int64_t d = first; d < rank; ++d)
    kinds.push_back({d, FactorKind::Statistic});
  ShardingRule rule = pointwiseRule(*this, kinds);
  mapParameters(rule, *this, 1, first);
  return rule;
}

/// A norm over (N, C, ...) whose statistics run over dims `first` onwards,
/// with per-channel affine parameters.
static ShardingRule channelNormRule(Operation *op, int64_t first) {
  SmallVector<std::pair<int64_t, FactorKind>> kinds;
  int64_t rank = shapeOf(op->getOperand(0)).size();
  for (int64_t d = first; d < rank; ++d)
    kinds.push_back({d, FactorKind::Statistic});
  ShardingRule rule = pointwiseRule(op, kinds);
  mapParameters(rule, op, 1, 1);
  return rule;
}

// Group norm: statistics over channels-in-group and all spatial dims.
ShardingRule GroupNormOp::getShardingRule() {
  return channelNormRule(*this, 1);
}

// Instance norm: each (sample, channel) over the spatial dims.
ShardingRule InstanceNormOp::getShardingRule() {
  return channelNormRule(*this, 2);
}

ShardingRule BatchNormOp::getShardingRule() {
  ShardingRule rule = pointwiseRule(*this);
  mapParameters(rule, *this, 1, 1);
  return rule;
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

ShardingRule MatmulOp::getShardingRule() {
  ArrayRef<int64_t> l = shapeOf(getLhs()), r = shapeOf(getRhs());
  ArrayRef<int64_t> out = getType().getShape();
  ShardingRule rule(2, 1);
  bool lVec = l.size() == 1, rVec = r.size() == 1;
  int64_t batchRank = out.size() - (lVec ? 0 : 1) - (rVec ? 0 : 1);
  for (int64_t d = 0; d < batchRank; ++d)
    rule.resultDims[0].push_back(
        rule.addFactor(FactorKind::PassThrough, out[d]));
  auto mapBatch = [&](ArrayRef<int64_t> shape, std::vector<int64_t> &dims,
                      int64_t operandBatch) {
    int64_t offset = batchRank - operandBatch;
    for (int64_t d = 0; d < operandBatch; ++d)
      dims.push_back(shape[d] == out[offset + d] ? offset + d
                                                 : ShardingRule::kNoFactor);
  };
  mapBatch(l, rule.operandDims[0], std::max<int64_t>(0, l.size() - 2));
  mapBatch(r, rule.operandDims[1], std::max<int64_t>(0, r.size() - 2));
  int64_t k = rule.addFactor(FactorKind::Reduction, l.back());
  if (!lVec) {
    int64_t m = rule.addFactor(FactorKind::PassThrough, l[l.size() - 2]);
    rule.operandDims[0].push_back(m);
    rule.resultDims[0].push_back(m);
  }
  rule.operandDims[0].push_back(k);
  rule.operandDims[1].push_back(k);
  if (!rVec) {
    int64_t n = rule.addFactor(FactorKind::PassThrough, r.back());
    rule.operandDims[1].push_back(n);
    rule.resultDims[0].push_back(n);
  }
  return rule;
}

ShardingRule LinearOp::getShardingRule() {
  ArrayRef<int64_t> x = shapeOf(getInput());
  ShardingRule rule(getNumOperands(), 1);
  for (size_t d = 0; d + 1 < x.size(); ++d) {
    int64_t f = rule.addFactor(FactorKind::PassThrough, x[d]);
    rule.operandDims[0].push_back(f);
    rule.resultDims[0].push_back(f);
  }
  int64_t in = rule.addFactor(FactorKind::Reduction, x.back());
  rule.operandDims[0].push_back(in);
  rule.operandDims[1] = {in};
  // A 1-D weight (F.linear's other form) has no output dim.
  if (shapeOf(getWeight()).size() == 2) {
    int64_t out =
        rule.addFactor(FactorKind::PassThrough, getType().getShape().back());
    rule.operandDims[1].insert(rule.operandDims[1].begin(), out);
    rule.resultDims[0].push_back(out);
  }
  // The bias broadcasts to the result from the right, as an elementwise
  // operand does.
  if (Value bias = getBias()) {
    ArrayRef<int64_t> b = shapeOf(bias);
    ArrayRef<int64_t> result = getType().getShape();
    int64_t offset = result.size() - b.size();
    for (auto [d, size] : llvm::enumerate(b)) {
      int64_t r = offset + static_cast<int64_t>(d);
      rule.operandDims[2].push_back(
          size == result[r] ? rule.resultDims[0][r] : ShardingRule::kNoFactor);
    }
  }
  return rule;
}

ShardingRule ScaledDotProductAttentionOp::getShardingRule() {
  ArrayRef<int64_t> out = getType().getShape();
  int64_t batchRank = out.size() - 2;
  ShardingRule rule(getNumOperands(), 1);
  for (int64_t d = 0; d < batchRank; ++d)
    rule.resultDims[0].push_back(
        rule.addFactor(FactorKind::PassThrough, out[d]));
  int64_t l = rule.addFactor(FactorKind::PassThrough, out[batchRank]);
  // The key/value sequence: softmax statistics over it (a ring when sharded).
  int64_t s =
      rule.addFactor(FactorKind::Statistic, shapeOf(getKey()).end()[-2]);
  // The head dim is contracted inside the softmax, so a split of it cannot
  // leave a partial output: it must be gathered first.
  int64_t e =
      rule.addFactor(FactorKind::NeedsReplication, shapeOf(getQuery()).back());
  int64_t ev = rule.addFactor(FactorKind::PassThrough, out.back());
  rule.resultDims[0].insert(rule.resultDims[0].end(), {l, ev});
  auto mapOperand = [&](unsigned i, int64_t second, int64_t last) {
    ArrayRef<int64_t> shape = shapeOf(getOperand(i));
    int64_t offset = batchRank - (shape.size() - 2);
    for (size_t d = 0; d + 2 < shape.size(); ++d)
      rule.operandDims[i].push_back(shape[d] == out[offset + d]
                                        ? offset + static_cast<int64_t>(d)
                                        : ShardingRule::kNoFactor);
    rule.operandDims[i].insert(rule.operandDims[i].end(), {second, last});
  };
  mapOperand(0, l, e);
  mapOperand(1, s, e);
  mapOperand(2, s, ev);
  // The mask's key dim stays whole (no factor): the ring slices from it the
  // columns of the keys each step holds, wherever they came from.
  if (getMask()) {
    ArrayRef<int64_t> m = shapeOf(getMask());
    std::vector<int64_t> &dims = rule.operandDims[3];
    int64_t offset = out.size() - m.size();
    for (size_t d = 0; d < m.size(); ++d) {
      int64_t outDim = offset + d;
      bool batch = outDim < batchRank, queries = outDim == batchRank;
      int64_t f = batch ? outDim : queries ? l : ShardingRule::kNoFactor;
      int64_t full = batch ? out[outDim] : out[batchRank];
      dims.push_back(m[d] == full ? f : ShardingRule::kNoFactor);
    }
  }
  return rule;
}

//===----------------------------------------------------------------------===//
// Windowed ops
//===----------------------------------------------------------------------===//

/// Marks the windowed dims (from the window interface) as window factors.
static ShardingRule windowRule(Operation *op, ShardingRule rule) {
  for (const WindowedDim &w : cast<WindowOpInterface>(op).getWindowedDims()) {
    int64_t f = rule.resultDims[0][w.resultDim];
    if (f != ShardingRule::kNoFactor)
      rule.factors[f].kind = FactorKind::Window;
  }
  return rule;
}

/// (N, C, spatial...) ops reading operand 0 pointwise in N and C.
static ShardingRule spatialRule(Operation *op) {
  ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
  ArrayRef<int64_t> out = shapeOf(op->getResult(0));
  ShardingRule rule(op->getNumOperands(), 1);
  for (size_t d = 0; d < in.size(); ++d) {
    int64_t f = rule.addFactor(FactorKind::PassThrough, out[d]);
    rule.operandDims[0].push_back(f);
    rule.resultDims[0].push_back(f);
  }
  return windowRule(op, std::move(rule));
}

template <typename ConvLike>
static ShardingRule convRule(ConvLike op, bool transposed) {
  ShardingRule rule = spatialRule(op);
  ArrayRef<int64_t> w = shapeOf(op.getWeight());
  int64_t cout = rule.resultDims[0][1];
  // Channels: the result's channel factor is Cout; the input's is Cin, which
  // is contracted. Grouped convs tie both to groups, so they stay replicated.
  int64_t cin =
      rule.addFactor(op.getGroups() == 1 ? FactorKind::Reduction
                                         : FactorKind::NeedsReplication,
                     shapeOf(op.getInput())[1]);
  rule.operandDims[0][1] = cin;
  rule.factors[cout].kind = op.getGroups() == 1 ? FactorKind::PassThrough
                                                : FactorKind::NeedsReplication;
  std::vector<int64_t> &wd = rule.operandDims[1];
  wd.assign(w.size(), ShardingRule::kNoFactor);
  if (op.getGroups() == 1) {
    wd[transposed ? 1 : 0] = cout;
    wd[transposed ? 0 : 1] = cin;
  }
  if (op.getBias())
    rule.operandDims[2] = {cout};
  return rule;
}

ShardingRule ConvOp::getShardingRule() { return convRule(*this, false); }
ShardingRule ConvTransposeOp::getShardingRule() {
  return convRule(*this, true);
}
ShardingRule MaxPoolOp::getShardingRule() { return spatialRule(*this); }
ShardingRule AvgPoolOp::getShardingRule() { return spatialRule(*this); }
ShardingRule InterpolateOp::getShardingRule() { return spatialRule(*this); }
ShardingRule PadOp::getShardingRule() {
  if (!readsNothing())
    return spatialRule(*this);
  // A fill, which reads no element: a dim the pad leaves alone splits as
  // the input's (so the input moves nothing), a padded one freely, its
  // input dim whole.
  ArrayRef<int64_t> in = getInput().getType().getShape();
  ArrayRef<int64_t> out = getType().getShape();
  ShardingRule rule(1, 1);
  for (size_t d = 0; d < out.size(); ++d) {
    int64_t f = rule.addFactor(FactorKind::PassThrough, out[d]);
    rule.resultDims[0].push_back(f);
    rule.operandDims[0].push_back(in[d] == out[d] ? f
                                                  : ShardingRule::kNoFactor);
  }
  return rule;
}

ShardingRule NeighborhoodAttentionOp::getShardingRule() {
  ArrayRef<int64_t> q = shapeOf(getQuery());
  ShardingRule rule(3, 1);
  for (size_t d = 0; d + 1 < q.size(); ++d) {
    int64_t f = rule.addFactor(FactorKind::PassThrough, q[d]);
    for (unsigned i = 0; i < 3; ++i)
      rule.operandDims[i].push_back(f);
    rule.resultDims[0].push_back(f);
  }
  // Contracted inside the softmax: see ScaledDotProductAttentionOp.
  int64_t e = rule.addFactor(FactorKind::NeedsReplication, q.back());
  int64_t ev =
      rule.addFactor(FactorKind::PassThrough, getType().getShape().back());
  rule.operandDims[0].push_back(e);
  rule.operandDims[1].push_back(e);
  rule.operandDims[2].push_back(ev);
  rule.resultDims[0].push_back(ev);
  return windowRule(*this, std::move(rule));
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

ShardingRule ConcatOp::getShardingRule() {
  int64_t rank = getType().getRank();
  int64_t dim = *normalizeDim(getDim(), rank);
  ShardingRule rule(getNumOperands(), 1);
  for (int64_t d = 0; d < rank; ++d) {
    // Each input covers a different range of the concat dim, so that dim is
    // not one loop shared by all operands.
    int64_t f = rule.addFactor(d == dim ? FactorKind::NeedsReplication
                                        : FactorKind::PassThrough,
                               getType().getDimSize(d));
    rule.resultDims[0].push_back(f);
    for (unsigned i = 0; i < getNumOperands(); ++i)
      rule.operandDims[i].push_back(d == dim ? ShardingRule::kNoFactor : f);
  }
  return rule;
}

ShardingRule RollOp::getShardingRule() {
  // The rule states what a roll needs, not what sc-decompose-forms makes of
  // it: a rolled dim's index moves, so it must be whole on each rank.
  int64_t rank = getType().getRank();
  llvm::SmallBitVector rolled(rank, !getDims() || getDims()->empty());
  if (auto dims = getDims())
    for (int64_t dim : *dims)
      if (rank > 0)
        rolled.set(*normalizeDim(dim, rank));
  SmallVector<std::pair<int64_t, FactorKind>> kinds;
  for (int64_t d = 0; d < rank; ++d)
    if (rolled.test(d))
      kinds.push_back({d, FactorKind::NeedsReplication});
  return pointwiseRule(*this, kinds);
}

ShardingRule FlipOp::getShardingRule() {
  // As for a roll: a flipped dim's index moves across the whole dim.
  int64_t rank = getType().getRank();
  SmallVector<std::pair<int64_t, FactorKind>> kinds;
  for (int64_t dim : getDims())
    kinds.push_back({*normalizeDim(dim, rank), FactorKind::NeedsReplication});
  return pointwiseRule(*this, kinds);
}

/// The batch dims pass through; channels, height and width exchange
/// elements, so they must be whole.
static ShardingRule pixelShuffleRule(Operation *op) {
  ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
  ArrayRef<int64_t> out = shapeOf(op->getResult(0));
  ShardingRule rule(1, 1);
  for (size_t d = 0; d < in.size(); ++d) {
    bool batch = d + 3 < in.size();
    int64_t f = rule.addFactor(
        batch ? FactorKind::PassThrough : FactorKind::NeedsReplication, in[d]);
    rule.operandDims[0].push_back(f);
    rule.resultDims[0].push_back(
        batch ? f : rule.addFactor(FactorKind::NeedsReplication, out[d]));
  }
  return rule;
}

ShardingRule PixelShuffleOp::getShardingRule() {
  return pixelShuffleRule(*this);
}

ShardingRule PixelUnshuffleOp::getShardingRule() {
  return pixelShuffleRule(*this);
}

/// A transformed dim mixes all its points, and the view_as_real trailing 2
/// pairs real and imaginary parts, so both must be whole; the other dims pass
/// through.
static ShardingRule spectralRule(Operation *op) {
  ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
  ArrayRef<int64_t> out = shapeOf(op->getResult(0));
  SpectralTransform transform = *getSpectralTransform(op);
  int64_t complexRank = transform.complexInput() ? in.size() - 1 : in.size();
  auto whole = [&](int64_t d) {
    return d >= complexRank || llvm::is_contained(transform.dims, d);
  };
  ShardingRule rule(1, 1);
  for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d)
    rule.operandDims[0].push_back(rule.addFactor(
        whole(d) ? FactorKind::NeedsReplication : FactorKind::PassThrough,
        in[d]));
  for (int64_t d = 0; d < static_cast<int64_t>(out.size()); ++d)
    rule.resultDims[0].push_back(
        whole(d) ? rule.addFactor(FactorKind::NeedsReplication, out[d])
                 : rule.operandDims[0][d]);
  return rule;
}

/// A factor per label: pass-through where the result keeps it, a reduction
/// where the product is summed over it; broadcast size-1 dims map to none.
ShardingRule EinsumOp::getShardingRule() {
  EinsumEquation eq = *parseEinsumEquation(std::nullopt, "", getEquation(),
                                           getInputs().getTypes());
  ShardingRule rule(getInputs().size(), 1);
  llvm::DenseMap<int64_t, int64_t> factors;
  auto factorOf = [&](int64_t label) {
    auto [it, fresh] = factors.try_emplace(label, 0);
    if (fresh)
      it->second = rule.addFactor(llvm::is_contained(eq.resultLabels, label)
                                      ? FactorKind::PassThrough
                                      : FactorKind::Reduction,
                                  eq.sizes.lookup(label));
    return it->second;
  };
  for (auto [i, labels] : llvm::enumerate(eq.operandLabels)) {
    ArrayRef<int64_t> shape = shapeOf(getInputs()[i]);
    for (auto [d, label] : llvm::enumerate(labels))
      rule.operandDims[i].push_back(shape[d] == 1 && eq.sizes.lookup(label) != 1
                                        ? ShardingRule::kNoFactor
                                        : factorOf(label));
  }
  for (int64_t label : eq.resultLabels)
    rule.resultDims[0].push_back(factorOf(label));
  return rule;
}

ShardingRule FftOp::getShardingRule() { return spectralRule(*this); }
ShardingRule IfftOp::getShardingRule() { return spectralRule(*this); }
ShardingRule RfftOp::getShardingRule() { return spectralRule(*this); }
ShardingRule IrfftOp::getShardingRule() { return spectralRule(*this); }

ShardingRule SliceOp::getShardingRule() {
  ArrayRef<int64_t> in = shapeOf(getInput());
  ShardingRule rule(1, 1);
  for (size_t d = 0; d < in.size(); ++d) {
    bool whole = getType().getDimSize(d) == in[d];
    int64_t f = rule.addFactor(whole ? FactorKind::PassThrough
                                     : FactorKind::NeedsReplication,
                               getType().getDimSize(d));
    rule.operandDims[0].push_back(whole ? f : ShardingRule::kNoFactor);
    rule.resultDims[0].push_back(f);
  }
  return rule;
}

ShardingRule ReshapeOp::getShardingRule() {
  // Pair dims into groups of equal element count; a group that maps one dim
  // to one dim of the same size is pass-through, and size-1 dims map to no
  // factor.
  ArrayRef<int64_t> in = shapeOf(getInput()), out = getType().getShape();
  auto replicateAll = [&] {
    ShardingRule all(1, 1);
    for (int64_t size : in)
      all.operandDims[0].push_back(
          all.addFactor(FactorKind::NeedsReplication, size));
    for (int64_t size : out)
      all.resultDims[0].push_back(
          all.addFactor(FactorKind::NeedsReplication, size));
    return all;
  };
  // Zero-size tensors have no meaningful grouping.
  if (llvm::is_contained(in, 0) || llvm::is_contained(out, 0))
    return replicateAll();
  ShardingRule rule(1, 1);
  rule.operandScales.resize(1);
  size_t i = 0, o = 0;
  while (i < in.size() || o < out.size()) {
    if (i < in.size() && in[i] == 1) {
      rule.operandDims[0].push_back(ShardingRule::kNoFactor), ++i;
      rule.operandScales[0].push_back(1);
      continue;
    }
    if (o < out.size() && out[o] == 1) {
      rule.resultDims[0].push_back(ShardingRule::kNoFactor), ++o;
      rule.resultScales.push_back(1);
      continue;
    }
    if (i == in.size() || o == out.size())
      return replicateAll(); // element counts differ: unreachable if verified
    size_t i0 = i, o0 = o;
    int64_t pi = in[i++], po = out[o++];
    while (pi != po) {
      bool moreIn = i < in.size(), moreOut = o < out.size();
      if (!moreIn && !moreOut)
        return replicateAll();
      if ((pi < po && moreIn) || !moreOut)
        pi *= in[i++];
      else
        po *= out[o++];
    }
    // A group that merges dims into one, or splits one into several, keeps
    // its major dim's split: the merged dim's shards are the major dim's
    // times the minor dims' size (contiguous rows stay contiguous). The
    // minor dims must be whole; a group that is both (6x4 -> 4x6) too.
    bool merge = o - o0 == 1, split = i - i0 == 1;
    for (size_t d = i0; d < i; ++d) {
      bool major = d == i0 && (merge || split);
      rule.operandDims[0].push_back(rule.addFactor(
          major ? FactorKind::PassThrough : FactorKind::NeedsReplication,
          split ? out[o0] : in[d]));
      rule.operandScales[0].push_back(major && split ? in[d] / out[o0] : 1);
    }
    int64_t major = rule.operandDims[0][i0];
    for (size_t d = o0; d < o; ++d) {
      bool keep = d == o0 && (merge || split);
      rule.resultDims[0].push_back(
          keep ? major : rule.addFactor(FactorKind::NeedsReplication, out[d]));
      rule.resultScales.push_back(keep && merge && !split ? out[d] / in[i0]
                                                          : 1);
    }
  }
  return rule;
}

static ShardingRule permutationRule(Operation *op, ArrayRef<int64_t> perm) {
  ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
  ShardingRule rule(1, 1);
  for (int64_t size : in)
    rule.operandDims[0].push_back(
        rule.addFactor(FactorKind::PassThrough, size));
  for (int64_t d : perm)
    rule.resultDims[0].push_back(rule.operandDims[0][d]);
  return rule;
}

ShardingRule PermuteOp::getShardingRule() {
  SmallVector<int64_t> perm;
  for (int64_t d : getDims())
    perm.push_back(*normalizeDim(d, getType().getRank()));
  return permutationRule(*this, perm);
}

ShardingRule TransposeOp::getShardingRule() {
  int64_t rank = getType().getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[*normalizeDim(getDim0(), rank)],
            perm[*normalizeDim(getDim1(), rank)]);
  return permutationRule(*this, perm);
}

/// Squeeze/unsqueeze: non-unit dims correspond in order; unit dims are free.
static ShardingRule unitDimRule(Operation *op) {
  ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
  ArrayRef<int64_t> out = shapeOf(op->getResult(0));
  ShardingRule rule(1, 1);
  size_t o = 0;
  for (int64_t size : in) {
    while (o < out.size() && out[o] == 1 && size != 1)
      rule.resultDims[0].push_back(ShardingRule::kNoFactor), ++o;
    if (o < out.size() && out[o] == size) {
      int64_t f = rule.addFactor(FactorKind::PassThrough, size);
      rule.operandDims[0].push_back(f);
      rule.resultDims[0].push_back(f);
      ++o;
    } else {
      rule.operandDims[0].push_back(ShardingRule::kNoFactor);
    }
  }
  while (o < out.size())
    rule.resultDims[0].push_back(ShardingRule::kNoFactor), ++o;
  return rule;
}

ShardingRule UnsqueezeOp::getShardingRule() { return unitDimRule(*this); }
ShardingRule SqueezeOp::getShardingRule() { return unitDimRule(*this); }
