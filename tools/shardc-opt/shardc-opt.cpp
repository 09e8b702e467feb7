//===- shardc-opt.cpp - pass driver for lit tests -------------------------===//
//
// Registers only what sc programs use (keeps this file cheap to compile).
//
//===----------------------------------------------------------------------===//

#include "shardc/Compiler/Passes.h"
#include "shardc/Dialect/Sc/ScDialect.h"
#include "shardc/Dialect/ScLocal/ScLocal.h"
#include "shardc/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<shardc::sc::ScDialect, shardc::scl::SclDialect,
                  mlir::func::FuncDialect, mlir::memref::MemRefDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  shardc::registerShardcPasses();
  shardc::registerShardcCompilerPasses();
  shardc::registerPartitionPipeline();
  shardc::registerTargetPipelines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "shardc pass driver\n", registry));
}
