//===- Passes.h - shardc partitioning passes --------------------*- C++ -*-===//
#ifndef SHARDC_COMPILER_PASSES_H
#define SHARDC_COMPILER_PASSES_H

#include "mlir/Pass/Pass.h"

namespace shardc {

#define GEN_PASS_DECL
#include "shardc/Compiler/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "shardc/Compiler/Passes.h.inc"

/// Registers `sc-partition-pipeline`: sc-propagate-sharding,
/// sc-insert-reshards, sc-partition, sc-plan-memory.
void registerPartitionPipeline();

/// Registers `sc-to-cpu` and `sc-to-cuda`: what shardc runs for that target
/// at `opt-level`, up to the artifact writer, then sc-plan-memory.
void registerTargetPipelines();

/// Adds the sc-partition-pipeline passes to `pm`.
void buildPartitionPipeline(mlir::OpPassManager &pm);

} // namespace shardc

#endif // SHARDC_COMPILER_PASSES_H
