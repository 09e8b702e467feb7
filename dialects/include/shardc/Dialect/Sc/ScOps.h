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

#define GET_OP_CLASSES
#include "shardc/Dialect/Sc/ScOps.h.inc"

#endif // SHARDC_DIALECT_SC_SCOPS_H
