//===- Compiler.h - From sc modules to .shardbin artifacts ------*- C++ -*-===//
//
// The shardc pipeline's back half: lower the entry function of an sc module
// to a rank program (instructions over buffer slots), plan its memory, and
// serialise the artifact. Kept free of heavy MLIR headers.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_COMPILER_COMPILER_H
#define SHARDC_COMPILER_COMPILER_H

#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
class Operation;
class OpPassManager;
class TimingScope;
} // namespace mlir

namespace shardc {

/// A rank program of a written artifact that the runtime would refuse when
/// a session is made (LowerOptions::checkPrograms).
struct RankProgramDefect {
  size_t rankClass = 0;     ///< in the order of the entry's rank classes
  int64_t instruction = -1; ///< -1: the program as a whole
  std::string message;
};

struct LowerOptions {
  /// Compile for one rank, ignoring every sharding annotation: the
  /// unpartitioned model.
  bool unpartitioned = false;
  /// sc-partition's unroll-rings: one exchange and one attention block per
  /// ring member on every rank instead of one RingAttention instruction
  /// (which the CUDA backend would stage through the host).
  bool unrollRings = false;
  /// sc-partition's conv-reads-half-floats: a conv reads a 16-bit halo box
  /// itself (the CPU kernel widens it as it packs) instead of its f32 cast.
  bool convReadsHalfFloats = false;
  /// Run sc-deepen-halos right after sc-partition, weighing each exchange
  /// pair with these rates: an exchange's fixed cost, the halo bandwidth and
  /// the compute rate of the recomputed convolution rows.
  bool deepenHalos = false;
  double haloLatencyUs = 20.0, haloGBytesPerS = 20.0, convGFlops = 20000.0;
  /// Run sc-expand-norms before sc-fuse: norms and softmaxes become
  /// reductions and elementwise kernels (the CUDA backend has neither).
  bool expandNorms = false;
  /// Run sc-fuse on the partitioned program (never on the world-of-one
  /// reference it embeds, which stays the unfused, independent check).
  bool fuse = false;
  /// With `fuse`: lone computing kernels and Reduces become fused kernels
  /// of their own (the CUDA backend stages plain ones through the host).
  bool fuseLoneKernels = false;
  /// Run sc-sink-bias after sc-fuse: a library op's bias is added in the
  /// fused kernels that read its output instead of in a pass of its own.
  bool sinkBias = false;
  /// Run sc-shrink-splats after sc-fuse: a splat constant that only
  /// broadcasting kernels read is filled into one element.
  bool shrinkSplats = false;
  /// Run sc-overlap-halos after sc-fuse: convolutions compute their interior
  /// while their halo exchange is in flight.
  bool overlapHalos = false;
  /// Run sc-reshape-views last: copies that only reshape a temporary become
  /// views of it.
  bool reshapeViews = false;
  /// Compiles CUDA C++ (cudaKernelSource's) to a fatbin for `cudaTargets`.
  /// When set, the artifact carries the fatbin and every fused
  /// instruction names its kernel (and keeps its body for the CPU backend).
  std::function<llvm::Expected<std::vector<uint8_t>>(const std::string &)>
      compileCuda;
  /// What the fatbin holds, e.g. "sm_80,sm_90" (the artifact's target).
  std::string cudaTargets = "sm_80,sm_90";
  /// Decodes a written artifact's rank programs as the runtime does when a
  /// session is made (shardc passes shardrt::Session::checkPrograms, which
  /// this library does not link). When set, each defect is reported at the
  /// op its instruction came from: a hand-written rank program whose kernel
  /// attributes contradict its buffers fails at compile time, located,
  /// rather than at the first run.
  std::function<std::vector<RankProgramDefect>(const std::vector<uint8_t> &)>
      checkPrograms;
  /// Fill LoweredArtifact's programText and planText. Off when only the
  /// artifact is wanted: with a class per rank the text holds every class's
  /// group lists (ranks x members numbers to format).
  bool describe = true;
  /// When set, the back half's stages (the reference, each pass from
  /// sc-partition on, reading rank classes, kernels, memory plans, writing)
  /// are timed under it (shardc --timing).
  mlir::TimingScope *timing = nullptr;
};

/// The two code generators shardc targets.
enum class Target { Cpu, Cuda };

/// The passes `shardc -O<optLevel> --target=<target>` runs after sharding
/// propagation (its pass flags may then override each), with the cost
/// model's rates for that target.
LowerOptions targetDefaults(Target target, unsigned optLevel);

/// shardc's passes on the global program: sc-decompose-forms (always),
/// canonicalize and CSE (at -O1 and above), then sharding propagation and
/// reshard insertion (unless `unpartitioned`).
void addGlobalPasses(mlir::OpPassManager &pm, unsigned optLevel,
                     bool unpartitioned);

/// sc-partition, then the passes on the partitioned program that `options`
/// asks for, in the order lowering runs them.
void addLocalPasses(mlir::OpPassManager &pm, const LowerOptions &options);

/// Diagnoses, at its location, every op of `module` that first makes a
/// tensor of an element type the targets do not compute in (all but f32 and
/// i1). shardc runs it before optimising: canonicalization moves and merges
/// constants and drops their locations, and would delete an unread one, so a
/// later check would point nowhere or pass at -O1 what -O0 refuses.
mlir::LogicalResult checkElementTypes(mlir::ModuleOp module);

struct LoweredArtifact {
  std::vector<uint8_t> bytes; ///< the complete .shardbin
  std::string programText;    ///< per rank class: the instruction stream
  std::string planText;       ///< per rank class: ranks, shapes, memory
};

/// Lowers the entry function (`main`, or the only public function) of
/// `module`. `reference`, when given, is a complete world-size-1 artifact of
/// the same model computed another way, embedded for `shard-run --check`.
/// Errors are reported as located diagnostics.
llvm::FailureOr<LoweredArtifact>
lowerToArtifact(mlir::ModuleOp module, const LowerOptions &options,
                const std::vector<uint8_t> *reference = nullptr);

/// CUDA C++ for every fused region (elementwise or reduction) of a
/// partitioned module: one
/// `extern "C" __global__` kernel per region, named
/// `<rank-class function>_fused<k>`; compiles with nvcc on its own.
std::string cudaKernelSource(mlir::ModuleOp module);

/// The name cudaKernelSource gives the k-th fused region of `function`.
std::string fusedKernelName(llvm::StringRef function, int64_t k);

/// Whether a fused region (scl.fused_elementwise or scl.fused_reduction)
/// writes no element (a rank's empty shard): cudaKernelSource generates no
/// kernel for it, and its instruction names none.
bool writesNoElement(mlir::Operation *fused);

} // namespace shardc

#endif // SHARDC_COMPILER_COMPILER_H
