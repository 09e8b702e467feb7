//===- InsertReshards.cpp - sc-insert-reshards ----------------------------===//
//
// After propagation every value has a sharding; here every operand is made
// to arrive the way its consumer computes: dims that share a factor with a
// result dim take the result's split (so misaligned elementwise operands are
// resharded, never paired silently), contracted dims keep a split the
// result's partial axes account for, windowed dims keep whatever split they
// have (the partitioner fetches halos from any layout) over the major axes
// those leave free, and everything else is gathered. Partial operands are
// resolved first. Function results take their declared sharding, or lose
// their pending reduction.
//
//===----------------------------------------------------------------------===//

#include "shardc/Passes/Passes.h"
#include "shardc/Passes/Sharding.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace shardc {
#define GEN_PASS_DEF_SCINSERTRESHARDS
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;
using namespace shardc::sc;

namespace shardc {
namespace {

/// What every operand's required layout is derived from: the op's rule,
/// windows and mesh, and the split each factor computes with (none: whole).
struct FactorSplits {
  const ShardingRule &rule;
  const std::vector<WindowedDim> &windows;
  const plan::Mesh &mesh;
  std::vector<std::optional<plan::DimSplit>> split;
  std::vector<bool> inResult;
};

/// The split each factor computes with: a result dim's factor the result's
/// split; contracted factors may stay split over the result's partial axes;
/// statistic factors the result lacks (attention's key sequence) stay split
/// too, the same way on every operand: the partitioner runs a ring.
void chooseFactorSplits(FactorSplits &fs, const ValueSharding &result,
                        ArrayRef<ValueSharding> current) {
  const ShardingRule &rule = fs.rule;
  fs.split.assign(rule.factors.size(), std::nullopt);
  fs.inResult.assign(rule.factors.size(), false);
  for (size_t rd = 0; rd < rule.resultDims[0].size(); ++rd)
    if (int64_t f = rule.resultDims[0][rd]; f != ShardingRule::kNoFactor) {
      // A scaled dim split off whole factor indices computes whole (a
      // pinned result is then resharded after the op).
      fs.split[f] = result.layout.dims[rd].dividedBy(rule.resultScale(rd));
      fs.inResult[f] = true;
    }
  auto inPartial = [&](const plan::DimSplit &s) {
    return !s.axes.empty() && llvm::all_of(s.axes, [&](int a) {
      return llvm::is_contained(result.partialAxes, a);
    });
  };
  for (size_t f = 0; f < rule.factors.size(); ++f) {
    FactorKind kind = rule.factors[f].kind;
    if (fs.split[f] ||
        (kind != FactorKind::Reduction && kind != FactorKind::Statistic))
      continue;
    int64_t bestBytes = -1;
    for (size_t i = 0; i < current.size(); ++i) {
      int64_t bytes = 1;
      for (int64_t n : current[i].layout.shape)
        bytes *= n;
      for (size_t d = 0; d < rule.operandDims[i].size(); ++d) {
        const plan::DimSplit &s = current[i].layout.dims[d];
        bool allowed =
            kind == FactorKind::Statistic ? !s.axes.empty() : inPartial(s);
        if (rule.operandDims[i][d] == int64_t(f) && allowed &&
            bytes > bestBytes)
          fs.split[f] = s, bestBytes = bytes;
      }
    }
  }
}

/// Operand i's required layout, given the factor splits and its current
/// layout (whose windowed dims keep what they can).
ValueSharding requiredLayout(const FactorSplits &fs, size_t i,
                             const ValueSharding &current) {
  const ShardingRule &rule = fs.rule;
  ValueSharding req;
  req.layout = plan::Layout::replicated(current.layout.shape);
  // A mesh axis splits one dim of an operand at most: dims that follow a
  // result dim claim their axes first, so an operand holding both an
  // output factor and a kept statistic factor (an attention mask's query
  // and key dims) keeps the first split and gathers the other.
  llvm::SmallVector<int> used;
  auto claim = [&](size_t d, const plan::DimSplit &split) {
    if (llvm::any_of(split.axes,
                     [&](int a) { return llvm::is_contained(used, a); }))
      return;
    used.append(split.axes.begin(), split.axes.end());
    req.layout.dims[d] = split;
  };
  // Windowed dims claim last: keeping their split only saves a gather,
  // while a contracted factor must be split alike on every operand that
  // has it (the result's partial axes sum the parts), so a windowed dim
  // split over the same axis gives way.
  enum Phase { ResultFactors, OtherFactors, Windowed };
  for (Phase phase : {ResultFactors, OtherFactors, Windowed}) {
    for (size_t d = 0; d < rule.operandDims[i].size(); ++d) {
      int64_t f = rule.operandDims[i][d];
      if (f == ShardingRule::kNoFactor)
        continue;
      bool windowed = llvm::any_of(fs.windows, [&](const WindowedDim &w) {
        return w.operand == i && w.inputDim == int64_t(d);
      });
      if (windowed) {
        if (phase != Windowed)
          continue;
        // The major axes the other dims left free still split the
        // window's dim; only the rest is gathered.
        const plan::DimSplit &split = current.layout.dims[d];
        size_t free = 0;
        while (free < split.axes.size() &&
               !llvm::is_contained(used, split.axes[free]))
          ++free;
        if (free > 0)
          claim(d, split.majorAxes(fs.mesh, free));
        continue;
      }
      if (phase != (fs.inResult[f] ? ResultFactors : OtherFactors))
        continue;
      FactorKind kind = rule.factors[f].kind;
      if (kind == FactorKind::NeedsReplication || !fs.split[f])
        continue;
      plan::DimSplit split = fs.split[f]->scaledBy(rule.operandScale(i, d));
      if (split.starts.back() == req.layout.shape[d])
        claim(d, split);
    }
  }
  return req;
}

/// A kept statistic factor that the first operand holding it (its leader)
/// could not claim, because the leader's other dims took its axes.
struct Unclaimed {
  size_t factor, leader;
  int64_t leaderDim;
};

/// The first kept statistic factor its leader could not claim, if any.
std::optional<Unclaimed> unclaimedStatistic(const FactorSplits &fs,
                                            ArrayRef<ValueSharding> required) {
  for (size_t f = 0; f < fs.rule.factors.size(); ++f) {
    if (fs.inResult[f] || !fs.split[f] ||
        fs.rule.factors[f].kind != FactorKind::Statistic)
      continue;
    for (size_t i = 0; i < required.size(); ++i) {
      const std::vector<int64_t> &dims = fs.rule.operandDims[i];
      auto d = llvm::find(dims, int64_t(f));
      if (d == dims.end())
        continue;
      int64_t dim = d - dims.begin();
      if (required[i].layout.dims[dim] != *fs.split[f])
        return Unclaimed{f, i, dim};
      break; // only the first holder decides
    }
  }
  return std::nullopt;
}

} // namespace

std::vector<ValueSharding>
requiredOperandShardings(Operation *op, const ShardingRule &rule,
                         const plan::Mesh &mesh, const ValueSharding &result,
                         ArrayRef<ValueSharding> current) {
  std::vector<WindowedDim> windows;
  if (auto w = dyn_cast<WindowOpInterface>(op))
    windows = w.getWindowedDims();
  FactorSplits fs{rule, windows, mesh, {}, {}};
  chooseFactorSplits(fs, result, current);
  // A kept statistic factor is led by the first operand holding it
  // (attention's keys: their split makes the ring); later ones keep the
  // split or arrive whole and are sliced (values whose axis went to their
  // last dim). When the leader cannot keep the split chosen from a larger
  // operand (its batch dim took the axis, say), it tries its own current
  // split of the factor once; failing that, no operand keeps it.
  std::vector<bool> triedLeaderSplit(rule.factors.size(), false);
  for (;;) {
    std::vector<ValueSharding> required;
    for (size_t i = 0; i < current.size(); ++i)
      required.push_back(requiredLayout(fs, i, current[i]));
    std::optional<Unclaimed> unclaimed = unclaimedStatistic(fs, required);
    if (!unclaimed)
      return required;
    std::optional<plan::DimSplit> &split = fs.split[unclaimed->factor];
    const plan::DimSplit &own =
        current[unclaimed->leader].layout.dims[unclaimed->leaderDim];
    if (!triedLeaderSplit[unclaimed->factor] && !own.axes.empty() &&
        own != *split) {
      triedLeaderSplit[unclaimed->factor] = true;
      split = own;
      continue;
    }
    split.reset();
  }
}

} // namespace shardc

namespace {

struct InsertReshardsPass
    : public shardc::impl::ScInsertReshardsBase<InsertReshardsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(forEachShardedFunction(
            getOperation(),
            [&](func::FuncOp f, MeshOp mesh) { return runOnFunction(f, mesh); },
            "reshard insertion")))
      signalPassFailure();
  }

  LogicalResult runOnFunction(func::FuncOp f, MeshOp mesh) {
    MLIRContext *ctx = f.getContext();
    plan::Mesh meshAxes = meshShape(mesh);
    auto shardingOf = [&](Value v) {
      return materialize(recordedSharding(v), v.getType(), mesh);
    };
    // One reshard per (value, layout) and consumer, however many operands
    // read it.
    llvm::DenseMap<std::pair<Value, Attribute>, Value> made;
    auto reshard = [&](OpOperand &use, const ValueSharding &to) {
      Value v = use.get();
      if (shardingOf(v) == to)
        return;
      Attribute attr = toAttr(ctx, mesh, to);
      Value &r = made[{v, attr}];
      if (!r) {
        OpBuilder b(use.getOwner());
        r = ReshardOp::create(b, use.getOwner()->getLoc(), v.getType(), v,
                              cast<ShardingAttr>(attr))
                .getResult();
      }
      use.set(r);
    };
    // A pinned op result the op cannot produce as given (split along a dim
    // it cuts, joins or reshapes): the op computes what it can, and a
    // reshard after it makes the pinned layout for every use. Producers
    // come before consumers, so a consumer reached below reads the reshard.
    auto repairPin = [&](Operation *op, const ShardingRule &rule) {
      Value result = op->getResult(0);
      ValueSharding pinned = shardingOf(result);
      ValueSharding computed = producibleSharding(rule, pinned);
      if (computed == pinned)
        return;
      op->setAttr(kShardingAttrName, toAttr(ctx, mesh, computed));
      OpBuilder b(ctx);
      b.setInsertionPointAfter(op);
      auto after =
          ReshardOp::create(b, op->getLoc(), result.getType(), result,
                            cast<ShardingAttr>(toAttr(ctx, mesh, pinned)));
      result.replaceAllUsesExcept(after.getResult(), after);
    };
    SmallVector<Operation *> ops;
    f.walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops) {
      made.clear();
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (OpOperand &use : ret->getOpOperands()) {
          unsigned i = use.getOperandNumber();
          ValueSharding want = shardingOf(use.get());
          if (auto declared =
                  f.getResultAttrOfType<ShardingAttr>(i, kShardingAttrName))
            want = materialize(declared, use.get().getType(), mesh);
          want.partialAxes.clear();
          reshard(use, want);
        }
        continue;
      }
      if (isa<ReshardOp, ShardingConstraintOp>(op) || op->getNumResults() != 1)
        continue;
      auto ruleOp = dyn_cast<ShardingRuleOpInterface>(op);
      if (!ruleOp || !recordedSharding(op->getResult(0)))
        continue;
      ShardingRule rule = ruleOp.getShardingRule();
      repairPin(op, rule);
      SmallVector<ValueSharding> current;
      for (Value v : op->getOperands())
        current.push_back(shardingOf(v));
      std::vector<ValueSharding> required = requiredOperandShardings(
          op, rule, meshAxes, shardingOf(op->getResult(0)), current);
      for (OpOperand &use : op->getOpOperands())
        reshard(use, required[use.getOperandNumber()]);
    }
    return success();
  }
};

} // namespace
