//===- TargetPipelines.cpp - What shardc runs per target and level --------===//
//
// One place says which passes `shardc -O<level> --target=<target>` runs, so
// that shardc, its lowering and the `sc-to-cpu` / `sc-to-cuda` pipelines of
// shardc-opt cannot drift apart.
//
//===----------------------------------------------------------------------===//

#include "shardc/Compiler/Compiler.h"
#include "shardc/Compiler/Passes.h"
#include "shardc/Passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace shardc {

LowerOptions targetDefaults(Target target, unsigned optLevel) {
  bool cuda = target == Target::Cuda;
  LowerOptions options;
  // The CUDA backend runs elementwise ops, reductions and norms only as
  // fused kernels: unfused, each would be staged through the host.
  options.fuse = cuda || optLevel >= 3;
  options.fuseLoneKernels = cuda;
  options.expandNorms = cuda;
  options.overlapHalos = optLevel >= 1;
  // The CPU kernels seed their output with the bias at no cost; cuDNN and
  // cuBLAS add it in a pass of its own.
  options.sinkBias = cuda && optLevel >= 1;
  options.reshapeViews = optLevel >= 1;
  options.shrinkSplats = optLevel >= 1;
  options.deepenHalos = optLevel >= 2;
  // Both backends run the RingAttention instruction natively; unrolled, a
  // ring costs ranks x members of compile time and memory.
  options.unrollRings = false;
  // The CPU conv widens a bf16/f16 input as it packs it; cuDNN takes x in
  // the conv's own type.
  options.convReadsHalfFloats = !cuda;
  // The rates the cost model weighs: NCCL between GPUs, or in-process / MPI
  // ranks on CPU cores.
  if (!cuda) {
    options.haloLatencyUs = 10.0;
    options.haloGBytesPerS = 5.0;
    options.convGFlops = 50.0;
  }
  return options;
}

void addGlobalPasses(OpPassManager &pm, unsigned optLevel, bool unpartitioned) {
  // Not optimisations: the kernels compute in f32, and the partitioner
  // takes core forms only.
  pm.addPass(createScComputeInF32());
  pm.addPass(createScDecomposeForms());
  if (optLevel > 0) {
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  if (!unpartitioned) {
    pm.addPass(createScPropagateSharding());
    pm.addPass(createScInsertReshards());
  }
}

void addLocalPasses(OpPassManager &pm, const LowerOptions &options) {
  ScPartitionOptions partitionOptions;
  partitionOptions.unpartitioned = options.unpartitioned;
  partitionOptions.unrollRings = options.unrollRings;
  partitionOptions.convReadsHalfFloats = options.convReadsHalfFloats;
  pm.addPass(createScPartition(partitionOptions));
  if (options.deepenHalos) {
    ScDeepenHalosOptions rates;
    rates.latencyUs = options.haloLatencyUs;
    rates.gbytesPerS = options.haloGBytesPerS;
    rates.gflops = options.convGFlops;
    pm.addPass(createScDeepenHalos(rates));
  }
  if (options.expandNorms)
    pm.addPass(createScExpandNorms());
  if (options.fuse) {
    ScFuseOptions fuseOptions;
    fuseOptions.loneKernels = options.fuseLoneKernels;
    pm.addPass(createScFuse(fuseOptions));
  }
  if (options.sinkBias)
    pm.addPass(createScSinkBias());
  if (options.shrinkSplats)
    pm.addPass(createScShrinkSplats());
  if (options.overlapHalos)
    pm.addPass(createScOverlapHalos());
  if (options.reshapeViews)
    pm.addPass(createScReshapeViews());
}

namespace {

struct TargetPipelineOptions
    : public PassPipelineOptions<TargetPipelineOptions> {
  Option<unsigned> optLevel{
      *this, "opt-level",
      llvm::cl::desc("shardc's -O level (0-3) whose passes to run"),
      llvm::cl::init(2)};
};

void buildTargetPipeline(OpPassManager &pm, Target target,
                         const TargetPipelineOptions &pipeline) {
  // Levels above 3 run what -O3 runs (shardc itself refuses them).
  unsigned level = std::min(unsigned(pipeline.optLevel), 3u);
  addGlobalPasses(pm, level, /*unpartitioned=*/false);
  addLocalPasses(pm, targetDefaults(target, level));
  // The artifact writer plans memory itself; planned here, the printed
  // program shows the arena and `shardc -` uses the plan as written.
  pm.addPass(createScPlanMemory());
}

} // namespace

void registerTargetPipelines() {
  struct Named {
    const char *name;
    Target target;
    const char *description;
  };
  for (Named p :
       {Named{"sc-to-cpu", Target::Cpu,
              "What `shardc --target=cpu -O<opt-level>` runs, up to the "
              "artifact writer: canonicalize and CSE (level 1+), sharding "
              "propagation, reshard insertion, sc-partition, the local passes "
              "of that level, then sc-plan-memory"},
        Named{"sc-to-cuda", Target::Cuda,
              "What `shardc --target=cuda -O<opt-level>` runs, up to the "
              "kernel compiler and the artifact writer: as sc-to-cpu, with "
              "norms expanded, every computing kernel fused and (level 1+) "
              "biases sunk into the fused kernels"}})
    PassPipelineRegistration<TargetPipelineOptions>(
        p.name, p.description,
        [target = p.target](OpPassManager &pm,
                            const TargetPipelineOptions &options) {
          buildTargetPipeline(pm, target, options);
        });
}

} // namespace shardc
