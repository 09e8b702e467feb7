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
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
}

namespace shardc {

struct LowerOptions {
  /// Compile for one rank, ignoring every sharding annotation: the
  /// unpartitioned model.
  bool unpartitioned = false;
  /// Run sc-fuse on the partitioned program (never on the world-of-one
  /// reference it embeds, which stays the unfused, independent check).
  bool fuse = false;
};

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

/// CUDA C++ for every scl.fused_elementwise of a partitioned module: one
/// `extern "C" __global__` kernel per region, named
/// `<rank-class function>_fused<k>`; compiles with nvcc on its own.
std::string cudaKernelSource(mlir::ModuleOp module);

} // namespace shardc

#endif // SHARDC_COMPILER_COMPILER_H
