//===- ScDialect.cpp - sc dialect registration and attribute hooks --------===//

#include "shardc/Dialect/Sc/ScOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace shardc::sc;

#include "shardc/Dialect/Sc/ScDialect.cpp.inc"
#include "shardc/Dialect/Sc/ScEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "shardc/Dialect/Sc/ScAttrs.cpp.inc"
#include "shardc/Dialect/Sc/ScInterfaces.cpp.inc"

void ScDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "shardc/Dialect/Sc/ScAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "shardc/Dialect/Sc/ScOps.cpp.inc"
      >();
}

/// Verifies the `sc.sharding` attribute for the values of `types`: either one
/// sharding (exactly one value) or an array with one sharding per value.
static LogicalResult
verifyShardingAttr(Operation *anchor, Attribute attr, TypeRange types,
                   StringRef what,
                   function_ref<InFlightDiagnostic()> emitError) {
  if (auto sharding = dyn_cast<ShardingAttr>(attr)) {
    if (types.size() != 1)
      return emitError() << "'" << ScDialect::kShardingAttrName << "' on "
                         << what << " with " << types.size()
                         << " values needs an array of shardings";
    return sharding.verifyFor(anchor, types.front(), emitError);
  }
  auto array = dyn_cast<ArrayAttr>(attr);
  if (!array)
    return emitError() << "'" << ScDialect::kShardingAttrName
                       << "' must be a #sc.sharding or an array of them";
  if (array.size() != types.size())
    return emitError() << "'" << ScDialect::kShardingAttrName << "' has "
                       << array.size() << " shardings for " << types.size()
                       << " values";
  for (auto [element, type] : llvm::zip(array, types)) {
    auto sharding = dyn_cast<ShardingAttr>(element);
    if (!sharding)
      return emitError() << "'" << ScDialect::kShardingAttrName
                         << "' array holds a non-sharding attribute";
    if (failed(sharding.verifyFor(anchor, type, emitError)))
      return failure();
  }
  return success();
}

LogicalResult ScDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  if (attr.getName() != kShardingAttrName)
    return op->emitError() << "unknown sc attribute '"
                           << attr.getName().getValue() << "'";
  return verifyShardingAttr(op, attr.getValue(), op->getResultTypes(), "an op",
                            [&] { return op->emitOpError(); });
}

/// The type of argument or result `index` of the function-like op `op`.
static Type functionValueType(Operation *op, unsigned index, bool isResult) {
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    return {};
  ArrayRef<Type> types =
      isResult ? func.getResultTypes() : func.getArgumentTypes();
  return index < types.size() ? types[index] : Type();
}

static LogicalResult verifyFunctionValueAttr(Operation *op, unsigned index,
                                             NamedAttribute attr,
                                             bool isResult) {
  StringRef what = isResult ? "result" : "argument";
  if (attr.getName() != ScDialect::kShardingAttrName)
    return op->emitError() << "unknown sc attribute '"
                           << attr.getName().getValue() << "' on " << what
                           << " " << index;
  Type type = functionValueType(op, index, isResult);
  if (!type)
    return op->emitError()
           << "'" << ScDialect::kShardingAttrName
           << "' is only valid on function arguments and results";
  auto emitError = [&] {
    return op->emitError() << "sharding of " << what << " #" << index << ": ";
  };
  return verifyShardingAttr(op, attr.getValue(), TypeRange(type), what,
                            emitError);
}

LogicalResult ScDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                  unsigned argIndex,
                                                  NamedAttribute attr) {
  return verifyFunctionValueAttr(op, argIndex, attr, /*isResult=*/false);
}

LogicalResult ScDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                     unsigned resultIndex,
                                                     NamedAttribute attr) {
  return verifyFunctionValueAttr(op, resultIndex, attr, /*isResult=*/true);
}

Operation *ScDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
