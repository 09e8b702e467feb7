//===- PropagateSharding.cpp - sc-propagate-sharding ----------------------===//
//
// Gives every sc op result a sharding, walking the program forward from the
// user's annotations through each op's sharding rule (factors). A factor
// takes its split from the operand dims mapped to it; when operands
// disagree, the split of the operand with the most bytes wins (moving the
// smaller one is cheaper), ties going to the lower operand index, so the
// result is deterministic. Windowed factors *derive* the result's extents
// from the input's: an output index belongs to the shard that owns its
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

  std::vector<bool> axisUsed(64, false);
  for (size_t f = 0; f < rule.factors.size(); ++f) {
    std::optional<Candidate> best;
    for (unsigned i = 0; i < operands.size(); ++i) {
      const std::vector<int64_t> &dims = rule.operandDims[i];
      for (size_t d = 0; d < dims.size(); ++d) {
        if (dims[d] != int64_t(f))
          continue;
        const plan::DimSplit &split = operands[i].layout.dims[d];
        if (split.axes.empty())
          continue;
        if (!best ||
            bytesOf(op->getOperand(i)) > bytesOf(op->getOperand(best->operand)))
          best = Candidate{i, int64_t(d), split};
      }
    }
    if (!best)
      continue;
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
      plan::DimSplit split = best->split;
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

struct PropagateShardingPass
    : public shardc::impl::ScPropagateShardingBase<PropagateShardingPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(forEachShardedFunction(getOperation(),
                                      [&](func::FuncOp f, MeshOp mesh) {
                                        return runOnFunction(f, mesh);
                                      })))
      signalPassFailure();
  }

  LogicalResult runOnFunction(func::FuncOp f, MeshOp mesh) {
    llvm::DenseMap<Value, ValueSharding> known;
    auto shardingOf = [&](Value v) -> ValueSharding {
      auto it = known.find(v);
      if (it != known.end())
        return it->second;
      return materialize(recordedSharding(v), v.getType(), mesh);
    };
    for (BlockArgument arg : f.getArguments())
      known[arg] = shardingOf(arg);
    WalkResult walk = f.walk([&](Operation *op) {
      if (op->getNumResults() != 1 ||
          !isa<RankedTensorType>(op->getResult(0).getType()))
        return WalkResult::advance();
      Value result = op->getResult(0);
      ValueSharding s;
      if (isa<ShardingConstraintOp, ReshardOp>(op)) {
        s = shardingOf(result); // the user's
      } else if (auto ruleOp = dyn_cast<ShardingRuleOpInterface>(op)) {
        SmallVector<ValueSharding> operands;
        for (Value v : op->getOperands())
          operands.push_back(shardingOf(v));
        s = inferResult(op, ruleOp.getShardingRule(), operands);
      } else {
        s = replicatedSharding(result.getType());
      }
      known[result] = s;
      if (checkOnly) {
        op->emitRemark("sharding ") << toAttr(op->getContext(), mesh, s);
      } else if (!isa<ShardingConstraintOp, ReshardOp>(op)) {
        op->setAttr(kShardingAttrName, toAttr(op->getContext(), mesh, s));
      }
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }
};

} // namespace
