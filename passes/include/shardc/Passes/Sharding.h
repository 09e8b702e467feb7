//===- Sharding.h - #sc.sharding <-> index layouts ----------------*- C++
//-*-===//
//
// The bridge between the IR's sharding attributes and the planner's plain
// layouts (BoxPlan.h): extents materialised, axes as mesh indices.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_SHARDING_H
#define SHARDC_PASSES_SHARDING_H

#include "shardc/Dialect/Sc/ScOps.h"
#include "shardc/Passes/BoxPlan.h"

namespace mlir {
class ModuleOp;
namespace func {
class FuncOp;
}
} // namespace mlir

namespace shardc {

/// A value's layout plus the reduction still pending over `partialAxes`.
struct ValueSharding {
  plan::Layout layout;
  std::vector<int> partialAxes;
  sc::ReductionKind partialKind = sc::ReductionKind::Sum;

  bool isPartial() const { return !partialAxes.empty(); }
  bool operator==(const ValueSharding &other) const;
  bool operator!=(const ValueSharding &other) const {
    return !(*this == other);
  }
};

plan::Mesh meshShape(sc::MeshOp mesh);

/// Extents materialised (canonical split where the attribute gives none).
ValueSharding materialize(sc::ShardingAttr sharding, mlir::Type type,
                          sc::MeshOp mesh);
/// Replicated over `mesh`.
ValueSharding replicatedSharding(mlir::Type type);

/// The attribute for `s`, omitting extents that equal the canonical split.
sc::ShardingAttr toAttr(mlir::MLIRContext *ctx, sc::MeshOp mesh,
                        const ValueSharding &s);

/// The attribute name carrying a value's sharding: on function arguments
/// and results (arg/result attributes) and on op results (one per result).
constexpr llvm::StringLiteral kShardingAttrName = "sc.sharding";

/// The sharding recorded for `value` (argument attribute, op attribute, or
/// the sharding op's own), or null.
sc::ShardingAttr recordedSharding(mlir::Value value);

/// The one mesh every sharding in `f` refers to; null when none is used.
/// Fails (with a diagnostic) when shardings name different meshes.
mlir::FailureOr<sc::MeshOp> functionMesh(mlir::func::FuncOp f);

/// Runs `fn` on every function of `module` with a body that uses a mesh
/// (functions without shardings are skipped); fails on the first failure,
/// and at an op not in core form (sc::isCoreForm), which `consumer` (the
/// pass, in words) then names in its error.
mlir::LogicalResult forEachShardedFunction(
    mlir::ModuleOp module,
    llvm::function_ref<mlir::LogicalResult(mlir::func::FuncOp, sc::MeshOp)> fn,
    llvm::StringRef consumer);

/// `s` without the splits that an op of `rule` cannot produce: a result dim
/// of a needs-replication factor (a slice's or concat's cut dim, a reshape's
/// minor dims) or of no factor is computed whole on every rank, and a scaled
/// dim (a reshape's merged dim) splits at the whole factor index at or below
/// each boundary. A consumer, declared result or pin wanting another split
/// gets a reshard after the op instead of an op computing the wrong block.
ValueSharding producibleSharding(const sc::ShardingRule &rule, ValueSharding s);

/// How each operand of `op` must arrive for the op to compute `result`
/// locally from `current` operand shardings (see sc-insert-reshards).
std::vector<ValueSharding>
requiredOperandShardings(mlir::Operation *op, const sc::ShardingRule &rule,
                         const plan::Mesh &mesh, const ValueSharding &result,
                         llvm::ArrayRef<ValueSharding> current);

} // namespace shardc

#endif // SHARDC_PASSES_SHARDING_H
