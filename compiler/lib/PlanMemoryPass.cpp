//===- PlanMemoryPass.cpp - sc-plan-memory --------------------------------===//

#include "RankClasses.h"

#include "shardc/Compiler/Passes.h"
#include "shardc/Dialect/ScLocal/ScLocal.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace shardc {
#define GEN_PASS_DEF_SCPLANMEMORY
#include "shardc/Compiler/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace shardc {
namespace {

struct ScPlanMemoryPass : impl::ScPlanMemoryBase<ScPlanMemoryPass> {
  void runOnOperation() override {
    auto annotate = [](func::FuncOp f,
                       RankClassProgram &program) -> LogicalResult {
      // Planned afresh: an earlier plan on `f` is replaced.
      f->removeAttr(scl::SclDialect::kArenaBytesAttrName);
      MemoryPlan plan = planMemory(bufferLifetimes(program));
      Builder b(f.getContext());
      SmallVector<int64_t> inputOffsets;
      for (auto [value, offset] : llvm::zip(program.values, plan.offsets)) {
        if (isa<BlockArgument>(value))
          inputOffsets.push_back(int64_t(offset));
        else if (isa<memref::AllocOp>(value.getDefiningOp()))
          value.getDefiningOp()->setAttr(scl::SclDialect::kOffsetAttrName,
                                         b.getI64IntegerAttr(offset));
      }
      f->setAttr(scl::SclDialect::kArenaBytesAttrName,
                 b.getI64IntegerAttr(int64_t(plan.arenaBytes)));
      f->setAttr(scl::SclDialect::kInputOffsetsAttrName,
                 b.getDenseI64ArrayAttr(inputOffsets));
      return success();
    };
    if (failed(forEachRankClass(getOperation(), annotate)))
      signalPassFailure();
  }
};

} // namespace
} // namespace shardc
