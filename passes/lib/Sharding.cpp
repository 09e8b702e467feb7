//===- Sharding.cpp - #sc.sharding <-> index layouts ----------------------===//

#include "shardc/Passes/Sharding.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace shardc::sc;

namespace shardc {

bool ValueSharding::operator==(const ValueSharding &other) const {
  if (layout.shape != other.layout.shape || partialAxes != other.partialAxes ||
      (isPartial() && partialKind != other.partialKind))
    return false;
  return layout.dims == other.layout.dims;
}

plan::Mesh meshShape(MeshOp mesh) {
  plan::Mesh m;
  m.shape.assign(mesh.getShape().begin(), mesh.getShape().end());
  return m;
}

static std::vector<int64_t> shapeOf(Type type) {
  auto t = cast<RankedTensorType>(type);
  return {t.getShape().begin(), t.getShape().end()};
}

ValueSharding replicatedSharding(Type type) {
  ValueSharding s;
  s.layout = plan::Layout::replicated(shapeOf(type));
  return s;
}

ValueSharding materialize(ShardingAttr sharding, Type type, MeshOp mesh) {
  ValueSharding s = replicatedSharding(type);
  if (!sharding)
    return s;
  for (auto [d, dim] : llvm::enumerate(sharding.getDims())) {
    std::vector<int> axes;
    int64_t shards = 1;
    for (StringAttr axis : dim.getAxes()) {
      axes.push_back(int(mesh.getAxisIndex(axis.getValue())));
      shards *= mesh.getShape()[axes.back()];
    }
    std::vector<int64_t> extents(dim.getExtents().begin(),
                                 dim.getExtents().end());
    if (extents.empty())
      extents = canonicalExtents(s.layout.shape[d], shards);
    s.layout.dims[d] = plan::DimSplit::fromExtents(std::move(axes), extents);
  }
  for (StringAttr axis : sharding.getPartialAxes())
    s.partialAxes.push_back(int(mesh.getAxisIndex(axis.getValue())));
  s.partialKind = sharding.getPartialKind();
  return s;
}

ShardingAttr toAttr(MLIRContext *ctx, MeshOp mesh, const ValueSharding &s) {
  auto axisNames = [&](const std::vector<int> &axes) {
    SmallVector<StringAttr> names;
    for (int a : axes)
      names.push_back(cast<StringAttr>(mesh.getAxisNames()[a]));
    return names;
  };
  SmallVector<DimShardingAttr> dims;
  for (const plan::DimSplit &d : s.layout.dims) {
    std::vector<int64_t> extents = d.extents();
    if (d.axes.empty() ||
        extents == canonicalExtents(d.starts.back(), d.numShards()))
      extents.clear();
    dims.push_back(DimShardingAttr::get(ctx, axisNames(d.axes), extents));
  }
  return ShardingAttr::get(ctx, FlatSymbolRefAttr::get(mesh.getSymNameAttr()),
                           dims, axisNames(s.partialAxes), s.partialKind);
}

ShardingAttr recordedSharding(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (auto f = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
      return f.getArgAttrOfType<ShardingAttr>(arg.getArgNumber(),
                                              kShardingAttrName);
    return {};
  }
  Operation *op = value.getDefiningOp();
  if (auto c = dyn_cast<ShardingConstraintOp>(op))
    return c.getSharding();
  if (auto r = dyn_cast<ReshardOp>(op))
    return r.getSharding();
  return op->getAttrOfType<ShardingAttr>(kShardingAttrName);
}

FailureOr<MeshOp> functionMesh(func::FuncOp f) {
  MeshOp found;
  Location foundAt = f.getLoc();
  auto visit = [&](Location at, ShardingAttr s) -> LogicalResult {
    if (!s)
      return success();
    auto mesh = SymbolTable::lookupNearestSymbolFrom<MeshOp>(f, s.getMesh());
    if (!mesh)
      return emitError(at) << "sharding refers to unknown mesh " << s.getMesh();
    if (found && found != mesh) {
      InFlightDiagnostic diag =
          emitError(at) << "this sharding uses mesh @" << mesh.getSymName()
                        << " but @" << found.getSymName()
                        << " is used too; a model runs on one mesh";
      diag.attachNote(foundAt) << "@" << found.getSymName() << " used here";
      return diag;
    }
    found = mesh, foundAt = at;
    return success();
  };
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    if (failed(visit(f.getArgument(i).getLoc(),
                     f.getArgAttrOfType<ShardingAttr>(i, kShardingAttrName))))
      return failure();
  for (unsigned i = 0; i < f.getNumResults(); ++i)
    if (failed(visit(f.getLoc(), f.getResultAttrOfType<ShardingAttr>(
                                     i, kShardingAttrName))))
      return failure();
  WalkResult walk = f.walk([&](Operation *op) {
    for (Value v : op->getResults())
      if (failed(visit(op->getLoc(), recordedSharding(v))))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return found;
}

LogicalResult
forEachShardedFunction(ModuleOp module,
                       function_ref<LogicalResult(func::FuncOp, MeshOp)> fn,
                       StringRef consumer) {
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isExternal())
      continue;
    FailureOr<MeshOp> mesh = functionMesh(f);
    if (failed(mesh))
      return failure();
    if (!*mesh)
      continue;
    // Rules and windows describe core forms only.
    WalkResult forms = f.walk([&](Operation *op) {
      return failed(sc::requireCoreForm(op, consumer)) ? WalkResult::interrupt()
                                                       : WalkResult::advance();
    });
    if (forms.wasInterrupted() || failed(fn(f, *mesh)))
      return failure();
  }
  return success();
}

ValueSharding producibleSharding(const ShardingRule &rule, ValueSharding s) {
  for (size_t rd = 0; rd < rule.resultDims[0].size(); ++rd) {
    int64_t f = rule.resultDims[0][rd];
    plan::DimSplit &split = s.layout.dims[rd];
    if (f == ShardingRule::kNoFactor ||
        rule.factors[f].kind == FactorKind::NeedsReplication) {
      split = plan::DimSplit::whole(s.layout.shape[rd]);
      continue;
    }
    // A scaled dim splits on whole factor indices only: the nearest such
    // split below, so the reshard after the op moves part of a row per
    // boundary rather than everything.
    int64_t scale = rule.resultScale(rd);
    for (int64_t &start : split.starts)
      start -= start % scale;
  }
  return s;
}

} // namespace shardc
