//===- ShrinkSplatsPass.cpp - sc-shrink-splats ----------------------------===//
//
// A splat constant is a Fill of a buffer of the value's full local shape.
// Where every reader broadcasts its operands, one element of the same rank
// holds the same information: the buffer leaves the arena (an activation's
// worth for a full-size splat) and the Fill writes one element instead of
// all of them on every run.
//
//===----------------------------------------------------------------------===//

#include "FusedBuffers.h"

#include "shardc/Compiler/Passes.h"
#include "shardc/Dialect/ScLocal/ScLocal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace shardc {
#define GEN_PASS_DEF_SCSHRINKSPLATS
#include "shardc/Compiler/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace shardc {
namespace {

/// The numpy broadcast of `shapes`, or none where they do not broadcast.
std::optional<Extents> broadcastShape(ArrayRef<Extents> shapes) {
  size_t rank = 0;
  for (const Extents &s : shapes)
    rank = std::max(rank, s.size());
  Extents out(rank, 1);
  for (const Extents &s : shapes)
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t &o = out[rank - s.size() + k];
      if (s[k] == o || s[k] == 1)
        continue;
      if (o != 1)
        return std::nullopt;
      o = s[k];
    }
  return out;
}

/// Whether `user` only reads `buffer`, and would read its one-element
/// `shrunk` form (same rank) the same way: a fused kernel, which
/// broadcasts every input to its space, or a Binary, Compare or Select,
/// whose output stays the broadcast of its operands.
bool readsBroadcast(Operation *user, Value buffer, const Extents &shrunk) {
  if (auto fused = dyn_cast<scl::FusedElementwiseOp>(user))
    return fused.getOutput() != buffer;
  if (auto fused = dyn_cast<scl::FusedReductionOp>(user))
    return fused.getOutput() != buffer;
  auto kernel = dyn_cast<scl::KernelOp>(user);
  if (!kernel)
    return false;
  StringRef opcode = kernel.getOpcode();
  if ((opcode != "Binary" && opcode != "Compare" && opcode != "Select") ||
      kernel.getOuts().size() != 1 ||
      llvm::is_contained(kernel.getOuts(), buffer))
    return false;
  SmallVector<Extents> shapes;
  for (Value in : kernel.getIns())
    shapes.push_back(in == buffer ? shrunk : shapeOf(in));
  std::optional<Extents> out = broadcastShape(shapes);
  return out && *out == shapeOf(kernel.getOuts()[0]);
}

/// The alloc `fill` writes when the fill is its only writer and every other
/// user reads it broadcast; else null.
memref::AllocOp shrinkable(scl::KernelOp fill) {
  if (fill.getOpcode() != "Fill" || !fill.getIns().empty() ||
      fill.getOuts().size() != 1)
    return nullptr;
  Value buffer = fill.getOuts()[0];
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  auto type = cast<MemRefType>(buffer.getType());
  if (!alloc || type.getRank() == 0 || type.getNumElements() <= 1)
    return nullptr;
  Extents shrunk(type.getRank(), 1);
  for (Operation *user : buffer.getUsers())
    if (user != fill.getOperation() && !readsBroadcast(user, buffer, shrunk))
      return nullptr;
  return alloc;
}

struct ScShrinkSplatsPass : impl::ScShrinkSplatsBase<ScShrinkSplatsPass> {
  void runOnOperation() override {
    for (func::FuncOp f : rankClassFunctions(getOperation())) {
      bool changed = false;
      for (Operation &op : llvm::make_early_inc_range(f.getBody().front())) {
        auto fill = dyn_cast<scl::KernelOp>(op);
        memref::AllocOp alloc = fill ? shrinkable(fill) : nullptr;
        if (!alloc)
          continue;
        auto type = cast<MemRefType>(alloc.getType());
        OpBuilder b(alloc);
        auto one = memref::AllocOp::create(
            b, alloc.getLoc(),
            MemRefType::get(SmallVector<int64_t>(type.getRank(), 1),
                            type.getElementType()));
        alloc.getResult().replaceAllUsesWith(one.getResult());
        alloc.erase();
        changed = true;
      }
      if (changed)
        dropMemoryPlan(f);
    }
  }
};

} // namespace
} // namespace shardc
