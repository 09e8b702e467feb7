//===- FusePass.cpp - sc-fuse ---------------------------------------------===//
//
// Producer-consumer fusion of elementwise kernels in rank-class functions.
// Groups grow in program order: a fusable kernel adopts the groups of the
// kernels that wrote its inputs when it is the only reader of those buffers.
// A Reduce that is the only reader of a group's output takes the group in:
// one fused reduction, whose input is never written to memory.
//
//===----------------------------------------------------------------------===//

#include "shardc/Compiler/Passes.h"
#include "shardc/Dialect/ScLocal/ScLocal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace shardc {
#define GEN_PASS_DEF_SCFUSE
#include "shardc/Compiler/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace shardc {
namespace {

bool isF32(Value v) {
  return cast<MemRefType>(v.getType()).getElementType().isF32();
}

struct Group {
  SmallVector<scl::KernelOp> members; ///< in program order
  bool absorbed = false;
};

/// `v` is an alloc that only `producer` writes and only `consumer` reads.
bool privateBetween(Value v, Operation *producer, Operation *consumer) {
  if (!v.getDefiningOp<memref::AllocOp>())
    return false;
  return llvm::all_of(v.getUsers(), [&](Operation *user) {
    return user == producer || user == consumer;
  });
}

/// Whether a member computes (rather than only copying).
bool computes(const Group &g) {
  return llvm::any_of(g.members, [](scl::KernelOp k) {
    return !scl::elementwiseFunction(k)->empty();
  });
}

/// The inputs a group reads from outside it, in first-use order, and the
/// buffers only its members pass between them.
struct GroupBoundary {
  SmallVector<Value> ins;
  llvm::DenseSet<Value> internal;
};

GroupBoundary boundaryOf(const Group &g, bool outputInternal) {
  GroupBoundary b;
  scl::KernelOp last = g.members.back();
  for (scl::KernelOp k : g.members)
    if (k != last || outputInternal)
      b.internal.insert(k.getOuts()[0]);
  for (scl::KernelOp k : g.members)
    for (Value v : k.getIns())
      if (!b.internal.contains(v) && !llvm::is_contained(b.ins, v))
        b.ins.push_back(v);
  return b;
}

/// Fills `region` with the group's body (one scl.scalar per computing
/// kernel) and erases the kernels and their private buffers.
void moveIntoBody(Group &g, const GroupBoundary &boundary, Region &region) {
  scl::KernelOp last = g.members.back();
  OpBuilder b(last);
  Block *body = b.createBlock(&region);
  llvm::DenseMap<Value, Value> scalarOf;
  for (Value v : boundary.ins)
    scalarOf[v] = body->addArgument(b.getF32Type(), last.getLoc());
  for (scl::KernelOp k : g.members) {
    std::string fn = *scl::elementwiseFunction(k);
    if (fn.empty()) {
      scalarOf[k.getOuts()[0]] = scalarOf.lookup(k.getIns()[0]);
      continue;
    }
    SmallVector<Value> operands;
    for (Value v : k.getIns())
      operands.push_back(scalarOf.lookup(v));
    scalarOf[k.getOuts()[0]] =
        scl::ScalarOp::create(b, k.getLoc(), b.getF32Type(), fn, operands);
  }
  scl::YieldOp::create(b, last.getLoc(), scalarOf.lookup(last.getOuts()[0]));
  for (scl::KernelOp k : llvm::reverse(g.members))
    k.erase();
  for (Value v : boundary.internal)
    if (v.use_empty())
      v.getDefiningOp()->erase();
}

void fuseGroup(Group &g) {
  GroupBoundary boundary = boundaryOf(g, /*outputInternal=*/false);
  scl::KernelOp last = g.members.back();
  OpBuilder b(last);
  auto fused = scl::FusedElementwiseOp::create(b, last.getLoc(), boundary.ins,
                                               last.getOuts()[0]);
  moveIntoBody(g, boundary, fused.getBody());
}

/// A Reduce kernel (f32, one of the modes a fused reduction has).
bool isFusableReduce(scl::KernelOp k) {
  return k.getOpcode() == "Reduce" && k.getIns().size() == 1 &&
         k.getOuts().size() == 1 && isF32(k.getIns()[0]) &&
         isF32(k.getOuts()[0]) && k.getMode() &&
         llvm::is_contained({"sum", "mean", "amax", "amin"}, *k.getMode());
}

/// Every input of `boundary` broadcasts (numpy rules) to `domain`.
bool inputsBroadcastTo(const GroupBoundary &boundary,
                       ArrayRef<int64_t> domain) {
  return llvm::all_of(boundary.ins, [&](Value v) {
    return scl::broadcastsTo(cast<MemRefType>(v.getType()).getShape(), domain);
  });
}

/// The group and the Reduce reading its output become one
/// scl.fused_reduction: the group's output is never written.
void fuseReduction(Group &g, scl::KernelOp reduce) {
  GroupBoundary boundary = boundaryOf(g, /*outputInternal=*/true);
  Value domainBuffer = reduce.getIns()[0];
  SmallVector<int64_t> dims(reduce.getInts());
  llvm::sort(dims);
  OpBuilder b(reduce);
  auto fused = scl::FusedReductionOp::create(
      b, reduce.getLoc(), *reduce.getMode(), dims,
      cast<MemRefType>(domainBuffer.getType()).getShape(), boundary.ins,
      reduce.getOuts()[0]);
  reduce.erase();
  moveIntoBody(g, boundary, fused.getBody());
}

struct ScFusePass : impl::ScFuseBase<ScFusePass> {
  void runOnOperation() override {
    for (auto f : getOperation().getOps<func::FuncOp>())
      if (f->hasAttr(scl::SclDialect::kRanksAttrName) && !f.isExternal())
        fuseFunction(f);
  }

  void fuseFunction(func::FuncOp f) {
    std::vector<std::unique_ptr<Group>> groups;
    llvm::DenseMap<Value, Group *> groupWriting; // a group's current output
    SmallVector<std::pair<Group *, scl::KernelOp>> reductions;
    for (Operation &op : f.getBody().front()) {
      auto k = dyn_cast<scl::KernelOp>(op);
      if (k && isFusableReduce(k)) {
        // A Reduce of a chain's output takes the chain into its kernel.
        Value in = k.getIns()[0];
        auto it = groupWriting.find(in);
        if (it != groupWriting.end() && !it->second->absorbed &&
            computes(*it->second) &&
            privateBetween(in, it->second->members.back(), k) &&
            inputsBroadcastTo(boundaryOf(*it->second, true),
                              cast<MemRefType>(in.getType()).getShape())) {
          it->second->absorbed = true;
          reductions.emplace_back(it->second, k);
          groupWriting.erase(it);
        }
        continue;
      }
      if (!k || !scl::elementwiseFunction(k))
        continue;
      auto g = std::make_unique<Group>();
      Value out = k.getOuts()[0];
      for (Value in : llvm::make_early_inc_range(k.getIns())) {
        auto it = groupWriting.find(in);
        if (it == groupWriting.end() || it->second->absorbed ||
            in.getType() != out.getType() ||
            !privateBetween(in, it->second->members.back(), k))
          continue;
        Group *producer = it->second;
        producer->absorbed = true;
        g->members.append(producer->members);
        groupWriting.erase(it);
      }
      g->members.push_back(k);
      llvm::sort(g->members, [](scl::KernelOp a, scl::KernelOp b) {
        return a->isBeforeInBlock(b);
      });
      groupWriting[out] = g.get();
      groups.push_back(std::move(g));
    }
    for (auto &g : groups)
      if (!g->absorbed && g->members.size() > 1 && computes(*g))
        fuseGroup(*g);
    for (auto &[g, reduce] : reductions)
      fuseReduction(*g, reduce);
  }
};

} // namespace
} // namespace shardc
