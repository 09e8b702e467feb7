//===- ReshapeViewsPass.cpp - sc-reshape-views ----------------------------===//
//
// A Copy that only reshapes a temporary becomes an scl.view of it when the
// bytes stay unchanged for as long as both are read: the copy is the
// destination's only writer, and nothing writes either side afterwards.
//
//===----------------------------------------------------------------------===//

#include "FusedBuffers.h"

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
  // Not an input the caller may bind elsewhere, a constant or an output.
  if (!scl::isTemporary(in) || !scl::isTemporary(out))
    return false;
  llvm::SmallPtrSet<Value, 4> aliases = scl::aliasesOf(scl::storageOf(in));
  if (aliases.contains(out))
    return false;
  // The copy is the only writer of `out` (or a view of it), and nothing
  // reads them before.
  llvm::SmallPtrSet<Value, 4> destination = scl::aliasesOf(out);
  for (Value v : destination)
    for (Operation *user : v.getUsers())
      if (user != copy && !isa<scl::ViewOp>(user) &&
          (user->isBeforeInBlock(copy) || scl::mayWrite(user, destination)))
        return false;
  aliases.insert(destination.begin(), destination.end());
  return !scl::mayWriteBetween(copy, nullptr, aliases);
}

struct ScReshapeViewsPass : impl::ScReshapeViewsBase<ScReshapeViewsPass> {
  void runOnOperation() override {
    for (func::FuncOp f : rankClassFunctions(getOperation())) {
      bool changed = false;
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
        changed = true;
      }
      // The views keep their sources live longer.
      if (changed)
        dropMemoryPlan(f);
    }
  }
};

} // namespace
} // namespace shardc
