//===- PropagateSharding.cpp - sc-propagate-sharding ----------------------===//
//
// Gives every sc op result a sharding, walking the program forward from the
// user's annotations through each op's sharding rule (factors), then
// (strategy=bidirectional) backward into values still replicated, in rounds
// until nothing changes. A factor takes its split from the operand dims
// mapped to it; when operands disagree, the split of the operand with the
// most bytes wins (moving the smaller one is cheaper), and factors competing
// for one mesh axis are served in the same order, ties going to the lower
// index, so the result is deterministic. Windowed factors *derive* the result's
// extents from the input's: an output index belongs to the shard that owns its
// window's anchor input (anchorInputIndex), so uneven splits stay aligned
// through strided, transposed and resizing ops. Reduction factors leave a
// partial result; statistic factors keep the split; needs-replication
// factors drop it. Annotated values (arguments, sharding_constraint,
// reshard) keep the user's sharding.
//
//===----------------------------------------------------------------------===//

#include "shardc/Passes/Passes.h"
#include "shardc/Passes/Sharding.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace shardc {
#define GEN_PASS_DEF_SCPROPAGATESHARDING
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;
using namespace shardc::sc;

namespace {

int64_t bytesOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return t.getNumElements() *
         std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
}

ReductionKind partialKindOf(Operation *op) {
  if (isa<AmaxOp>(op))
    return ReductionKind::Max;
  if (isa<AminOp>(op))
    return ReductionKind::Min;
  // sum, mean (lowered as a local sum scaled by the global count) and
  // contractions.
  return ReductionKind::Sum;
}

/// Extents of a windowed result dim whose input dim is split as `in`: output
/// o goes to the shard owning anchorInputIndex(o).
std::vector<int64_t> derivedExtents(const plan::DimSplit &in,
                                    const WindowSpec &spec) {
  std::vector<int64_t> extents(in.numShards(), 0);
  int64_t shard = 0;
  for (int64_t o = 0; o < spec.outputSize; ++o) {
    int64_t a = anchorInputIndex(spec, o);
    while (shard + 1 < in.numShards() && in.starts[shard + 1] <= a)
      ++shard;
    ++extents[shard];
  }
  return extents;
}

struct Candidate {
  unsigned operand;
  int64_t dim;
  plan::DimSplit split;
};

/// The result sharding of `op` from its operands' shardings.
ValueSharding inferResult(Operation *op, const ShardingRule &rule,
                          ArrayRef<ValueSharding> operands) {
  Value result = op->getResult(0);
  ValueSharding out = replicatedSharding(result.getType());
  // Windowed (result dim -> windows) for derivation.
  std::vector<WindowedDim> windows;
  if (auto w = dyn_cast<WindowOpInterface>(op))
    windows = w.getWindowedDims();

  // Each factor's best candidate: the split operand dim with the most bytes.
  std::vector<std::optional<Candidate>> bestOf(rule.factors.size());
  for (size_t f = 0; f < rule.factors.size(); ++f) {
    std::optional<Candidate> &best = bestOf[f];
    for (unsigned i = 0; i < operands.size(); ++i) {
      const std::vector<int64_t> &dims = rule.operandDims[i];
      for (size_t d = 0; d < dims.size(); ++d) {
        if (dims[d] != int64_t(f))
          continue;
        const plan::DimSplit &dimSplit = operands[i].layout.dims[d];
        if (dimSplit.axes.empty())
          continue;
        // A scaled dim's split is its factor's only on whole factor indices.
        std::optional<plan::DimSplit> split =
            dimSplit.dividedBy(rule.operandScale(i, d));
        if (!split)
          continue;
        if (!best ||
            bytesOf(op->getOperand(i)) > bytesOf(op->getOperand(best->operand)))
          best = Candidate{i, int64_t(d), *split};
      }
    }
  }
  // Factors competing for a mesh axis: the one whose operand has the most
  // bytes claims it first (the others' operands are the cheaper ones to
  // move), ties going to the lower factor.
  std::vector<size_t> order;
  for (size_t f = 0; f < rule.factors.size(); ++f)
    if (bestOf[f])
      order.push_back(f);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return bytesOf(op->getOperand(bestOf[a]->operand)) >
           bytesOf(op->getOperand(bestOf[b]->operand));
  });
  std::vector<bool> axisUsed(64, false);
  for (size_t f : order) {
    std::optional<Candidate> best = bestOf[f];
    bool free =
        llvm::none_of(best->split.axes, [&](int a) { return axisUsed[a]; });
    if (!free)
      continue;
    FactorKind kind = rule.factors[f].kind;
    if (kind == FactorKind::NeedsReplication)
      continue;
    if (kind == FactorKind::Reduction) {
      for (int a : best->split.axes)
        out.partialAxes.push_back(a), axisUsed[a] = true;
      out.partialKind = partialKindOf(op);
      continue;
    }
    for (size_t rd = 0; rd < rule.resultDims[0].size(); ++rd) {
      if (rule.resultDims[0][rd] != int64_t(f))
        continue;
      plan::DimSplit split = best->split.scaledBy(rule.resultScale(rd));
      if (kind == FactorKind::Window) {
        for (const WindowedDim &w : windows)
          if (w.resultDim == int64_t(rd) && w.operand == best->operand &&
              w.inputDim == best->dim)
            split = plan::DimSplit::fromExtents(
                split.axes, derivedExtents(best->split, w.spec));
      }
      if (split.starts.back() != out.layout.shape[rd])
        continue; // cannot happen for verified ops; stay replicated
      out.layout.dims[rd] = split;
      for (int a : split.axes)
        axisUsed[a] = true;
    }
  }
  std::sort(out.partialAxes.begin(), out.partialAxes.end());
  return out;
}

bool isReplicated(const ValueSharding &s) {
  return !s.isPartial() &&
         llvm::all_of(s.layout.dims,
                      [](const plan::DimSplit &d) { return d.axes.empty(); });
}

/// The split of a windowed input dim under which forward derivation gives
/// the result split `out`: each output shard's first anchor starts an input
/// shard. None when no such split exists (several output shards share an
/// anchor, as upsampling can make them).
std::optional<plan::DimSplit> inputSplitFor(const plan::DimSplit &out,
                                            const WindowSpec &spec) {
  std::vector<int64_t> starts = {0};
  for (int64_t k = 1; k < out.numShards(); ++k) {
    int64_t b = out.starts[k];
    starts.push_back(b >= spec.outputSize ? spec.inputSize
                                          : anchorInputIndex(spec, b));
  }
  starts.push_back(spec.inputSize);
  plan::DimSplit in{out.axes, starts};
  for (size_t k = 1; k < starts.size(); ++k)
    if (starts[k] < starts[k - 1])
      return std::nullopt;
  if (plan::DimSplit::fromExtents(out.axes, derivedExtents(in, spec)).starts !=
      out.starts)
    return std::nullopt;
  return in;
}

/// The sharding operand `i` of `op` needs for its result to come out as
/// `result`: each dim takes the split of the result dim it shares a factor
/// with (windowed dims the split whose windows produce it). Dims of factors
/// the result lacks (contracted, reduced) and needs-replication factors stay
/// whole, and an axis splits one dim at most.
ValueSharding inferOperand(Operation *op, const ShardingRule &rule,
                           const ValueSharding &result, unsigned i) {
  Value v = op->getOperand(i);
  ValueSharding out = replicatedSharding(v.getType());
  std::vector<WindowedDim> windows;
  if (auto w = dyn_cast<WindowOpInterface>(op))
    windows = w.getWindowedDims();
  llvm::SmallVector<int> used;
  for (size_t d = 0; d < rule.operandDims[i].size(); ++d) {
    int64_t f = rule.operandDims[i][d];
    if (f == ShardingRule::kNoFactor)
      continue;
    if (rule.factors[f].kind == FactorKind::NeedsReplication)
      continue;
    for (size_t rd = 0; rd < rule.resultDims[0].size(); ++rd) {
      const plan::DimSplit &split = result.layout.dims[rd];
      if (rule.resultDims[0][rd] != f || split.axes.empty())
        continue;
      std::optional<plan::DimSplit> in = split.dividedBy(rule.resultScale(rd));
      if (in)
        in = in->scaledBy(rule.operandScale(i, d));
      for (const WindowedDim &w : windows)
        if (w.operand == i && w.inputDim == int64_t(d) &&
            w.resultDim == int64_t(rd))
          in = inputSplitFor(split, w.spec);
      if (!in || in->starts.back() != out.layout.shape[d] ||
          llvm::any_of(in->axes,
                       [&](int a) { return llvm::is_contained(used, a); }))
        continue;
      used.append(in->axes.begin(), in->axes.end());
      out.layout.dims[d] = *in;
      break;
    }
  }
  return out;
}

struct PropagateShardingPass
    : public shardc::impl::ScPropagateShardingBase<PropagateShardingPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(forEachShardedFunction(
            getOperation(),
            [&](func::FuncOp f, MeshOp mesh) { return runOnFunction(f, mesh); },
            "sharding propagation")))
      signalPassFailure();
  }

  LogicalResult runOnFunction(func::FuncOp f, MeshOp mesh) {
    bool backward;
    if (strategy == "bidirectional")
      backward = true;
    else if (strategy == "forward")
      backward = false;
    else
      return f.emitError("sc-propagate-sharding: unknown strategy '")
             << strategy << "' (expected 'bidirectional' or 'forward')";

    // Values whose sharding the user gave: annotated arguments and op
    // results, and the results of sharding_constraint / reshard. Everything
    // else is inferred. A pinned op result the op cannot produce as given
    // is repaired by sc-insert-reshards (a reshard after the op). A partial
    // sharding on an op result is no pin: the op's rule decides what is
    // partial (this pass's own output carries such shardings, and must
    // propagate again to the same result).
    llvm::DenseSet<Value> fixed;
    llvm::DenseMap<Value, ValueSharding> known;
    for (BlockArgument arg : f.getArguments()) {
      if (recordedSharding(arg))
        fixed.insert(arg);
      known[arg] = materialize(recordedSharding(arg), arg.getType(), mesh);
    }
    SmallVector<Operation *> ops;
    f.walk([&](Operation *op) {
      if (op->getNumResults() != 1 ||
          !isa<RankedTensorType>(op->getResult(0).getType()))
        return;
      ops.push_back(op);
      Value result = op->getResult(0);
      ShardingAttr pin = recordedSharding(result);
      if (!pin || (!isa<ShardingConstraintOp, ReshardOp>(op) &&
                   !pin.getPartialAxes().empty()))
        return;
      fixed.insert(result);
      known[result] = materialize(pin, result.getType(), mesh);
    });
    auto shardingOf = [&](Value v) -> ValueSharding {
      auto it = known.find(v);
      return it != known.end() ? it->second : replicatedSharding(v.getType());
    };

    // Forward from the operands; backward (bidirectional) into values that
    // are still replicated, from consumers' results, constraints and the
    // declared function results. Forward never replaces a split with a
    // replication and backward only fills replicated values, so the rounds
    // settle; user annotations are never changed.
    for (int round = 0; round < 8; ++round) {
      bool changed = false;
      for (Operation *op : ops) {
        Value result = op->getResult(0);
        if (fixed.contains(result))
          continue;
        ValueSharding s = replicatedSharding(result.getType());
        if (auto ruleOp = dyn_cast<ShardingRuleOpInterface>(op)) {
          SmallVector<ValueSharding> operands;
          for (Value v : op->getOperands())
            operands.push_back(shardingOf(v));
          s = inferResult(op, ruleOp.getShardingRule(), operands);
        }
        auto it = known.find(result);
        if (it == known.end() || (it->second != s && !isReplicated(s))) {
          known[result] = s;
          changed = true;
        }
      }
      if (!backward)
        break;
      auto fill = [&](Value v, ValueSharding s) {
        if (fixed.contains(v) || !isReplicated(shardingOf(v)))
          return;
        if (auto producer = v.getDefiningOp<ShardingRuleOpInterface>())
          s = producibleSharding(producer.getShardingRule(), s);
        if (isReplicated(s))
          return;
        known[v] = s;
        changed = true;
      };
      Operation *ret = f.getBody().back().getTerminator();
      for (auto [i, v] : llvm::enumerate(ret->getOperands()))
        if (auto declared =
                f.getResultAttrOfType<ShardingAttr>(i, kShardingAttrName)) {
          ValueSharding s = materialize(declared, v.getType(), mesh);
          s.partialAxes.clear();
          fill(v, s);
        }
      for (Operation *op : llvm::reverse(ops)) {
        ValueSharding r = shardingOf(op->getResult(0));
        if (isa<ShardingConstraintOp>(op)) {
          fill(op->getOperand(0), r);
          continue;
        }
        auto ruleOp = dyn_cast<ShardingRuleOpInterface>(op);
        if (!ruleOp || isa<ReshardOp>(op) || isReplicated(r))
          continue;
        ShardingRule rule = ruleOp.getShardingRule();
        for (unsigned i = 0; i < op->getNumOperands(); ++i)
          fill(op->getOperand(i), inferOperand(op, rule, r, i));
      }
      if (!changed)
        break;
    }

    MLIRContext *ctx = f.getContext();
    for (BlockArgument arg : f.getArguments()) {
      if (fixed.contains(arg) || isReplicated(shardingOf(arg)))
        continue;
      ShardingAttr attr = toAttr(ctx, mesh, shardingOf(arg));
      if (checkOnly)
        emitRemark(arg.getLoc(), "argument ")
            << arg.getArgNumber() << " sharding " << attr;
      else
        f.setArgAttr(arg.getArgNumber(), kShardingAttrName, attr);
    }
    for (Operation *op : ops) {
      ValueSharding s = shardingOf(op->getResult(0));
      if (checkOnly)
        op->emitRemark("sharding ") << toAttr(ctx, mesh, s);
      else if (!isa<ShardingConstraintOp, ReshardOp>(op))
        op->setAttr(kShardingAttrName, toAttr(ctx, mesh, s));
    }
    return success();
  }
};

} // namespace
