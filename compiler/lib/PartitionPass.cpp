//===- PartitionPass.cpp - sc-partition and sc-partition-pipeline ---------===//

#include "Partition.h"
#include "RankClasses.h"

#include "shardc/Compiler/Passes.h"
#include "shardc/Dialect/Sc/ScOps.h"
#include "shardc/Dialect/ScLocal/ScLocal.h"
#include "shardc/Passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

namespace shardc {
#define GEN_PASS_DEF_SCPARTITION
#include "shardc/Compiler/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc::sc;
namespace art = shardrt::artifact;

namespace shardc {
namespace {

/// The program of `f` on one rank, every sharding ignored.
FailureOr<RankPrograms> worldOfOne(func::FuncOp f) {
  RankPrograms p;
  p.ranks.resize(1);
  p.inputs.resize(1);
  p.outputs.resize(1);
  ProgramBuilder &b = p.ranks[0];
  for (BlockArgument arg : f.getArguments()) {
    FailureOr<uint32_t> id = b.define(f, arg);
    if (failed(id))
      return failure();
    b.buffers[*id].pinned = true;
    p.inputs[0].push_back(*id);
  }
  for (Operation &op : f.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (Value v : ret.getOperands()) {
        uint32_t id = b.lookup(v);
        const Buffer &src = b.buffers[id];
        // Outputs get their own slot: the caller may bind it, and it must not
        // alias an input, a constant or another output.
        // (A value returned twice is pinned by its first use.)
        if (src.pinned || src.constant >= 0) {
          b.currentOp = "func.return";
          b.currentLoc = op.getLoc();
          FailureOr<uint32_t> copy = b.temporary(&op, v.getType());
          if (failed(copy))
            return failure();
          b.emit(fb::Opcode::Copy, {id}, {*copy});
          id = *copy;
        }
        b.buffers[id].pinned = true;
        p.outputs[0].push_back(id);
      }
      continue;
    }
    if (auto c = dyn_cast<ConstantOp>(op)) {
      if (isa<SplatElementsAttr>(c.getValue())) {
        b.currentOp = op.getName().getStringRef().str();
        b.currentLoc = op.getLoc();
        if (failed(fillSplat(b, c)))
          return failure();
        continue;
      }
      FailureOr<uint32_t> id = b.define(&op, c.getResult());
      if (failed(id))
        return failure();
      auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
      if (!dense)
        return c.emitOpError("holds a non-dense constant, which the cpu "
                             "target cannot embed yet");
      art::ConstantSpec spec;
      spec.name = "constant" + std::to_string(p.constants.size());
      spec.dtype = b.buffers[*id].dtype;
      spec.shards.push_back(
          {{0}, b.buffers[*id].shape, art::BlobBytes(constantBytes(dense))});
      b.buffers[*id].constant = int64_t(p.constants.size());
      p.constants.push_back(std::move(spec));
      continue;
    }
    if (op.getNumResults() != 1)
      return op.emitOpError("has ")
             << op.getNumResults() << " results; the lowering expects one";
    if (failed(lowerOp(&op, b)))
      return failure();
  }
  return p;
}

FailureOr<RankPrograms> partitioned(func::FuncOp f, MeshOp mesh,
                                    bool unrollRings,
                                    bool convReadsHalfFloats) {
  Partitioner partitioner(f, mesh);
  partitioner.unrollRings = unrollRings;
  partitioner.convReadsHalfFloats = convReadsHalfFloats;
  if (failed(partitioner.run()))
    return failure();
  RankPrograms p;
  p.mesh = mesh;
  p.ranks = std::move(partitioner.ranks);
  p.inputs = std::move(partitioner.inputs);
  p.outputs = std::move(partitioner.outputs);
  p.inputShardings = std::move(partitioner.inputShardings);
  p.outputShardings = std::move(partitioner.outputShardings);
  p.constants = std::move(partitioner.constants);
  return p;
}

/// The sc ops' verifier bounds their operands' and results' bytes (the
/// BytesFitInt64 trait); an argument that only reaches `return` is bounded
/// here, before its buffer is sized.
LogicalResult checkArgumentSizes(func::FuncOp f) {
  for (BlockArgument arg : f.getArguments())
    if (failed(sc::checkBytesFitInt64(arg.getType(),
                                      [&] { return emitError(arg.getLoc()); })))
      return failure();
  return success();
}

struct ScPartitionPass : impl::ScPartitionBase<ScPartitionPass> {
  using ScPartitionBase::ScPartitionBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (partitionedEntry(module))
      return; // already partitioned
    FailureOr<func::FuncOp> entry = entryFunction(module);
    if (failed(entry) || failed(checkArgumentSizes(*entry)))
      return signalPassFailure();
    // The runtime's instructions and the halo plans take core forms only.
    WalkResult forms = entry->walk([](Operation *op) {
      return failed(sc::requireCoreForm(op, "the partitioner"))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (forms.wasInterrupted())
      return signalPassFailure();
    FailureOr<RankPrograms> programs = failure();
    if (unpartitioned || !isShardedOverSeveralRanks(*entry)) {
      programs = worldOfOne(*entry);
    } else {
      FailureOr<MeshOp> mesh = functionMesh(*entry);
      if (failed(mesh))
        return signalPassFailure();
      programs = partitioned(*entry, *mesh, unrollRings, convReadsHalfFloats);
    }
    if (failed(programs) || failed(writeRankClasses(*entry, *programs)))
      return signalPassFailure();
  }
};

} // namespace

void buildPartitionPipeline(OpPassManager &pm) {
  pm.addPass(createScDecomposeForms());
  pm.addPass(createScPropagateSharding());
  pm.addPass(createScInsertReshards());
  pm.addPass(createScPartition());
  pm.addPass(createScPlanMemory());
}

void registerPartitionPipeline() {
  PassPipelineRegistration<>(
      "sc-partition-pipeline",
      "Propagates shardings, inserts reshards, partitions the entry "
      "function into per-rank-class scl programs and plans their memory",
      buildPartitionPipeline);
}

} // namespace shardc
