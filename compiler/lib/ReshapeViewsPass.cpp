//===- ReshapeViewsPass.cpp - sc-reshape-views ----------------------------===//
//
// A Copy that only reshapes a temporary becomes an scl.view of it when the
// bytes stay unchanged for as long as both are read: the copy is the
// destination's only writer, and nothing writes either side afterwards.
//
//===----------------------------------------------------------------------===//

#include "shardc/Compiler/Passes.h"
#include "shardc/Dialect/ScLocal/ScLocal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace shardc {
#define GEN_PASS_DEF_SCRESHAPEVIEWS
#include "shardc/Compiler/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace shardc {
namespace {

/// `root` and every view of it, transitively.
llvm::SmallPtrSet<Value, 4> aliasesOf(Value root) {
  llvm::SmallPtrSet<Value, 4> aliases;
  SmallVector<Value> work = {root};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!aliases.insert(v).second)
      continue;
    for (Operation *user : v.getUsers())
      if (auto view = dyn_cast<scl::ViewOp>(user))
        work.push_back(view.getResult());
  }
  return aliases;
}

/// Whether `op` may write one of `buffers`. An op that does not declare its
/// effects writes every buffer it takes.
bool mayWrite(Operation *op, const llvm::SmallPtrSetImpl<Value> &buffers) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return llvm::any_of(op->getOperands(),
                        [&](Value v) { return buffers.contains(v); });
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  return llvm::any_of(list, [&](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Write>(e.getEffect()) &&
           (!e.getValue() || buffers.contains(e.getValue()));
  });
}

/// Whether `copy` may become a view of its input (see the pass summary).
bool viewable(scl::KernelOp copy) {
  if (copy.getOpcode() != "Copy" || copy.getIns().size() != 1 ||
      copy.getOuts().size() != 1)
    return false;
  Value in = copy.getIns()[0], out = copy.getOuts()[0];
  auto from = cast<MemRefType>(in.getType());
  auto to = cast<MemRefType>(out.getType());
  if (from.getElementType() != to.getElementType() ||
      from.getNumElements() != to.getNumElements() ||
      !out.getDefiningOp<memref::AllocOp>())
    return false;
  Value root = scl::storageOf(in);
  if (!root.getDefiningOp<memref::AllocOp>())
    return false; // an input the caller may bind elsewhere, or a constant
  llvm::SmallPtrSet<Value, 4> aliases = aliasesOf(root);
  if (aliases.contains(out) || scl::isReturned(out) ||
      llvm::any_of(aliases, scl::isReturned))
    return false;
  // The copy is the only writer of `out`, and nothing reads it before.
  llvm::SmallPtrSet<Value, 1> destination = {out};
  for (Operation *user : out.getUsers())
    if (user != copy &&
        (user->isBeforeInBlock(copy) || mayWrite(user, destination)))
      return false;
  aliases.insert(out);
  for (Operation *op = copy->getNextNode(); op; op = op->getNextNode())
    if (mayWrite(op, aliases))
      return false;
  return true;
}

struct ScReshapeViewsPass : impl::ScReshapeViewsBase<ScReshapeViewsPass> {
  void runOnOperation() override {
    for (auto f : getOperation().getOps<func::FuncOp>()) {
      if (!f->hasAttr(scl::SclDialect::kRanksAttrName) || f.isExternal())
        continue;
      for (Operation &op : llvm::make_early_inc_range(f.getBody().front())) {
        auto copy = dyn_cast<scl::KernelOp>(op);
        if (!copy || !viewable(copy))
          continue;
        Value out = copy.getOuts()[0];
        OpBuilder b(copy);
        auto view = scl::ViewOp::create(b, copy.getLoc(), out.getType(),
                                        copy.getIns()[0]);
        Operation *alloc = out.getDefiningOp();
        copy.erase();
        out.replaceAllUsesWith(view.getResult());
        alloc->erase();
      }
    }
  }
};

} // namespace
} // namespace shardc
