//===- ScOps.h - sc operations --------------------------------------*- C++
//-*-===//
#ifndef SHARDC_DIALECT_SC_SCOPS_H
#define SHARDC_DIALECT_SC_SCOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "shardc/Dialect/Sc/ScAttrs.h"
#include "shardc/Dialect/Sc/ScDialect.h"
#include "shardc/Dialect/Sc/ShardingRule.h"

#include "shardc/Dialect/Sc/ScInterfaces.h.inc"

namespace shardc::sc {
/// Fails, with `emit() << type << " holds more bytes than an int64 ..."`,
/// for a static tensor `type` whose byte size an int64 does not hold.
mlir::LogicalResult
checkBytesFitInt64(mlir::Type type,
                   llvm::function_ref<mlir::InFlightDiagnostic()> emit);
/// Fails (at `op`) for a tensor operand or result whose bytes overflow int64.
mlir::LogicalResult verifyBytesFitInt64(mlir::Operation *op);

namespace OpTrait {
template <typename ConcreteType>
class BytesFitInt64
    : public mlir::OpTrait::TraitBase<ConcreteType, BytesFitInt64> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyBytesFitInt64(op);
  }
};
} // namespace OpTrait
} // namespace shardc::sc

#define GET_OP_CLASSES
#include "shardc/Dialect/Sc/ScOps.h.inc"

namespace shardc::sc {
/// False for an op in a form that sharding propagation and the partitioner
/// do not take (an sc.linear with a 1-D weight or a broadcast bias, a
/// circular sc.pad with crops, the parameterised activations such as
/// sc.leaky_relu); `sc-decompose-forms` rewrites those.
bool isCoreForm(mlir::Operation *op);
/// Fails, with an error at `op` that names the pass to run first, where
/// `isCoreForm(op)` is false; `consumer` names who refuses it.
mlir::LogicalResult requireCoreForm(mlir::Operation *op,
                                    llvm::StringRef consumer);
} // namespace shardc::sc

#endif // SHARDC_DIALECT_SC_SCOPS_H
