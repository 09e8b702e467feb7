//===- RankClasses.h - Rank programs <-> scl rank-class functions -*- C++
//-*-===//
//
// sc-partition builds one program per rank (ProgramBuilder), groups ranks
// whose programs are identical into classes and writes each class as an scl
// function; the artifact writer reads those functions back into programs.
// Both directions live here so that they stay each other's inverse.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_LIB_RANKCLASSES_H
#define SHARDC_COMPILER_LIB_RANKCLASSES_H

#include "Lowering.h"

#include "shardc/Compiler/MemoryPlan.h"

#include "shardc/Passes/Sharding.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"

#include <map>

namespace shardc {

/// What one rank's program moves, for `--emit=plan`.
struct RankTraffic {
  int64_t haloExchanges = 0, collectives = 0;
  int64_t bytesSent = 0, bytesReceived = 0;
};

/// Every rank's program, before ranks are grouped into classes.
struct RankPrograms {
  sc::MeshOp mesh; ///< null: a world of one
  std::vector<ProgramBuilder> ranks;
  std::vector<std::vector<uint32_t>> inputs, outputs; ///< per rank
  /// Per entry input/output; empty in a world of one (replicated).
  std::vector<ValueSharding> inputShardings, outputShardings;
  std::vector<shardrt::artifact::ConstantSpec> constants;
};

/// A dense f32 or i1 value in the artifact's layout (f32 little endian, i1
/// one byte each); the inverse of how sc-partition writes scl.global values.
std::vector<uint8_t> constantBytes(mlir::DenseElementsAttr value);

/// The model's entry function: `main`, or the only public function.
mlir::FailureOr<mlir::func::FuncOp> entryFunction(mlir::ModuleOp module);

/// Whether `entry` runs on more than one rank (some value split or partial
/// over a mesh of several devices).
bool isShardedOverSeveralRanks(mlir::func::FuncOp entry);

/// Rewrites `entry` into rank-class functions: groups identical programs,
/// writes one scl function per class and one scl.global per constant, and
/// leaves `entry` a declaration (global types, final shardings) naming its
/// classes.
mlir::LogicalResult writeRankClasses(mlir::func::FuncOp entry,
                                     RankPrograms &programs);

/// A partitioned entry: the declaration carrying `scl.rank_classes`.
mlir::func::FuncOp partitionedEntry(mlir::ModuleOp module);

/// One rank-class function read back as a program.
struct RankClassProgram {
  std::string name;
  std::vector<int32_t> ranks;
  ProgramBuilder builder;
  std::vector<uint32_t> inputs, outputs;
  RankTraffic traffic;
  /// The value that defines each buffer (argument, alloc or constant).
  std::vector<mlir::Value> values;
  /// Instruction index of every scl.fused_elementwise and
  /// scl.fused_reduction, in program order
  /// (the order cudaKernelSource numbers their kernels in).
  std::vector<size_t> fusedInstructions;
};

/// Each buffer's bytes and live range: inputs from before the first
/// instruction, inputs and outputs to the end, constants 0 bytes (they stay
/// in the file).
std::vector<BufferLifetime> bufferLifetimes(RankClassProgram &program);

/// The memory plan of `f` (read as `program`): the one sc-plan-memory wrote
/// on it, checked against the buffers' liveness, or a new one.
mlir::FailureOr<MemoryPlan> memoryPlanOf(mlir::func::FuncOp f,
                                         RankClassProgram &program);

/// Reads every rank-class function of `module` (constants indexed in
/// module order) and calls `fn` on each; stops at the first failure.
mlir::LogicalResult
forEachRankClass(mlir::ModuleOp module,
                 llvm::function_ref<mlir::LogicalResult(mlir::func::FuncOp,
                                                        RankClassProgram &)>
                     fn);

/// One IntList per distinct content, for the lists that every member of a
/// group carries alike (a collective's extents, a ring's ints): read
/// into each rank class separately, they would cost classes x members ints
/// where every rank is a class of its own.
class SharedIntLists {
public:
  shardrt::artifact::IntList get(std::vector<int64_t> values);
  /// The list `make` builds from `flags` and the (uniqued, possibly null)
  /// attributes `attrs`: found by them, without calling `make`, when seen
  /// before.
  shardrt::artifact::IntList
  get(std::vector<int64_t> flags, llvm::ArrayRef<mlir::Attribute> attrs,
      llvm::function_ref<std::vector<int64_t>()> make);

private:
  llvm::DenseMap<llvm::ArrayRef<int64_t>, shardrt::artifact::IntList> lists_;
  std::map<std::pair<std::vector<const void *>, std::vector<int64_t>>,
           shardrt::artifact::IntList>
      byAttrs_;
};

/// Reads the scl function `f`; `constantIndex` maps scl.global names to
/// artifact constant indices; `lists`, when given, shares the group lists
/// of the classes read with it. Fails with a diagnostic on what the runtime
/// cannot run.
mlir::FailureOr<RankClassProgram>
readRankClass(mlir::func::FuncOp f,
              const llvm::StringMap<int64_t> &constantIndex,
              SharedIntLists *lists = nullptr);

} // namespace shardc

#endif // SHARDC_COMPILER_LIB_RANKCLASSES_H
