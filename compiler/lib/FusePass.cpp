//===- FusePass.cpp - sc-fuse ---------------------------------------------===//
//
// Producer-consumer fusion of elementwise kernels in rank-class functions.
// Groups grow in program order: a fusable kernel adopts the groups of the
// kernels that wrote its inputs when it is the only reader of those buffers.
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

/// The scl.scalar function of a fusable kernel: its Unary or Binary mode,
/// or "" for a plain copy (the value passes through).
std::optional<std::string> scalarFunction(scl::KernelOp k) {
  if (k.getOuts().size() != 1 || !isF32(k.getOuts()[0]) ||
      !llvm::all_of(k.getIns(), isF32))
    return std::nullopt;
  StringRef opcode = k.getOpcode();
  if (opcode == "Copy" && k.getIns().size() == 1 && k.getInts().empty() &&
      k.getIns()[0].getType() == k.getOuts()[0].getType())
    return std::string();
  if ((opcode == "Unary" || opcode == "Binary") && k.getMode()) {
    int arity = scl::scalarArity(*k.getMode());
    if (arity == int(k.getIns().size()) && (arity == 1) == (opcode == "Unary"))
      return k.getMode()->str();
  }
  return std::nullopt;
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

void fuseGroup(Group &g) {
  scl::KernelOp last = g.members.back();
  Value output = last.getOuts()[0];
  llvm::DenseSet<Value> internal;
  for (scl::KernelOp k : g.members)
    if (k != last)
      internal.insert(k.getOuts()[0]);
  SmallVector<Value> ins;
  for (scl::KernelOp k : g.members)
    for (Value v : k.getIns())
      if (!internal.contains(v) && !llvm::is_contained(ins, v))
        ins.push_back(v);
  OpBuilder b(last);
  auto fused = b.create<scl::FusedElementwiseOp>(last.getLoc(), ins, output);
  Block *body = b.createBlock(&fused.getBody());
  llvm::DenseMap<Value, Value> scalarOf;
  for (Value v : ins)
    scalarOf[v] = body->addArgument(b.getF32Type(), last.getLoc());
  for (scl::KernelOp k : g.members) {
    std::string fn = *scalarFunction(k);
    if (fn.empty()) {
      scalarOf[k.getOuts()[0]] = scalarOf.lookup(k.getIns()[0]);
      continue;
    }
    SmallVector<Value> operands;
    for (Value v : k.getIns())
      operands.push_back(scalarOf.lookup(v));
    scalarOf[k.getOuts()[0]] =
        b.create<scl::ScalarOp>(k.getLoc(), b.getF32Type(), fn, operands);
  }
  b.create<scl::YieldOp>(last.getLoc(), scalarOf.lookup(output));
  for (scl::KernelOp k : llvm::reverse(g.members))
    k.erase();
  for (Value v : internal)
    if (v.use_empty())
      v.getDefiningOp()->erase();
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
    for (Operation &op : f.getBody().front()) {
      auto k = dyn_cast<scl::KernelOp>(op);
      if (!k || !scalarFunction(k))
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
      if (!g->absorbed && g->members.size() > 1 &&
          llvm::any_of(g->members, [](scl::KernelOp k) {
            return !scalarFunction(k)->empty();
          }))
        fuseGroup(*g);
  }
};

} // namespace
} // namespace shardc
