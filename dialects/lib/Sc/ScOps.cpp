//===- ScOps.cpp - sc op definitions, mesh and sharding ops ---------------===//

#include "OpUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace shardc::sc;
using namespace shardc::sc::detail;

#define GET_OP_CLASSES
#include "shardc/Dialect/Sc/ScOps.cpp.inc"

LogicalResult
shardc::sc::checkBytesFitInt64(Type type,
                               function_ref<InFlightDiagnostic()> emit) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return success();
  Type element = tensor.getElementType();
  int64_t bytes =
      element.isIntOrFloat()
          ? std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8)
          : 8;
  // An empty tensor's other extents still multiply in strides and element
  // counts along the way, so they must not overflow either.
  for (int64_t n : tensor.getShape())
    if (n != 0 && llvm::MulOverflow(bytes, n, bytes))
      return emit() << type
                    << (llvm::is_contained(tensor.getShape(), 0)
                            ? " has extents whose product overflows int64"
                            : " holds more bytes than an int64 counts; no "
                              "target can allocate it");
  return success();
}

LogicalResult shardc::sc::verifyBytesFitInt64(Operation *op) {
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(checkBytesFitInt64(type, [&, i = i] {
          return op->emitOpError() << "operand #" << i << " ";
        })))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(checkBytesFitInt64(type, [&, i = i] {
          return op->emitOpError() << "result #" << i << " ";
        })))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// MeshOp: sc.mesh @name ["x"=2, "y"=4]
//===----------------------------------------------------------------------===//

ParseResult MeshOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  SmallVector<Attribute> axes;
  SmallVector<int64_t> shape;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes) ||
      parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square,
          [&]() -> ParseResult {
            std::string axis;
            int64_t size;
            if (parser.parseString(&axis) || parser.parseEqual() ||
                parser.parseInteger(size))
              return failure();
            axes.push_back(parser.getBuilder().getStringAttr(axis));
            shape.push_back(size);
            return success();
          }) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  Builder &b = parser.getBuilder();
  result.addAttribute(getAxisNamesAttrName(result.name), b.getArrayAttr(axes));
  result.addAttribute(getShapeAttrName(result.name),
                      b.getDenseI64ArrayAttr(shape));
  return success();
}

void MeshOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printSymbolName(getSymName());
  p << " [";
  llvm::interleaveComma(
      llvm::zip(getAxisNames(), getShape()), p, [&](auto axis) {
        p.printString(cast<StringAttr>(std::get<0>(axis)).getValue());
        p << "=" << std::get<1>(axis);
      });
  p << "]";
  p.printOptionalAttrDict(
      (*this)->getAttrs(),
      {getSymNameAttrName(), getAxisNamesAttrName(), getShapeAttrName()});
}

LogicalResult MeshOp::verify() {
  if (getAxisNames().size() != getShape().size())
    return emitOpError("has ") << getAxisNames().size() << " axis names but "
                               << getShape().size() << " axis sizes";
  if (getShape().empty())
    return emitOpError("needs at least one axis");
  llvm::SmallSet<StringRef, 4> seen;
  int64_t devices = 1;
  for (auto [name, size] : llvm::zip(getAxisNames(), getShape())) {
    StringRef axis = cast<StringAttr>(name).getValue();
    if (axis.empty())
      return emitOpError("has an axis with an empty name");
    if (!seen.insert(axis).second)
      return emitOpError("has duplicate axis name \"") << axis << "\"";
    if (size < 1)
      return emitOpError("axis \"")
             << axis << "\" has size " << size << "; sizes must be at least 1";
    if (llvm::MulOverflow(devices, size, devices))
      return emitOpError("has too many devices (the axis sizes overflow)");
  }
  // shardc plans every rank's program and shard extents ahead of time, so
  // its time and memory grow with the device count.
  if (devices > kMaxMeshDevices)
    return emitOpError("has ")
           << devices << " devices; shardc supports at most "
           << kMaxMeshDevices;
  return success();
}

int64_t MeshOp::getAxisIndex(StringRef axis) {
  for (auto [i, name] : llvm::enumerate(getAxisNames()))
    if (cast<StringAttr>(name).getValue() == axis)
      return i;
  return -1;
}

int64_t MeshOp::getNumDevices() {
  int64_t n = 1;
  for (int64_t size : getShape())
    n *= size;
  return n;
}

//===----------------------------------------------------------------------===//
// Sharding constraint and reshard
//===----------------------------------------------------------------------===//

static LogicalResult verifyShardingOperand(Operation *op, ShardingAttr sharding,
                                           Type type,
                                           SymbolTableCollection &symbols) {
  // Resolve through the collection first so large modules are not rescanned;
  // the attribute's own check then reports anything else with context.
  if (!symbols.lookupNearestSymbolFrom<MeshOp>(op, sharding.getMesh()))
    return op->emitOpError("refers to unknown mesh ") << sharding.getMesh();
  return sharding.verifyFor(op, type, [&] { return op->emitOpError(); });
}

LogicalResult
ShardingConstraintOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyShardingOperand(*this, getSharding(), getType(), symbols);
}

LogicalResult ReshardOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyShardingOperand(*this, getSharding(), getType(), symbols);
}

//===----------------------------------------------------------------------===//
// Constant and cast
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  auto value = dyn_cast_or_null<ElementsAttr>(adaptor.getValueAttr());
  if (!value)
    return fail(loc, getOperationName(), "needs an elements attribute");
  types.push_back(value.getType());
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }

OpFoldResult CastOp::fold(FoldAdaptor) {
  // A pinned sharding is a layout the user asked for at this value; folding
  // the cast would drop the pin with it.
  if (getInput().getType() == getResult().getType() &&
      !(*this)->hasAttr(ScDialect::kShardingAttrName))
    return getInput();
  return {};
}

LogicalResult ClampOp::verify() {
  if (!getMin() && !getMax())
    return emitOpError("needs 'min', 'max' or both (as torch.clamp)");
  return success();
}

LogicalResult RollOp::verify() {
  ArrayRef<int64_t> shifts = getShifts();
  std::optional<ArrayRef<int64_t>> dims = getDims();
  if (shifts.empty())
    return emitOpError("needs at least one shift");
  if (!dims || dims->empty()) {
    if (shifts.size() != 1)
      return emitOpError("without dims rolls the flattened tensor by one "
                         "shift; got ")
             << shifts.size() << " shifts (as torch.roll)";
    return success();
  }
  if (dims->size() != shifts.size())
    return emitOpError("has ") << shifts.size() << " shifts but "
                               << dims->size() << " dims; they must pair up";
  // As in PyTorch, a rank-0 tensor takes dim 0 or -1.
  int64_t rank = std::max<int64_t>(getType().getRank(), 1);
  for (int64_t dim : *dims)
    if (!detail::normalizeDim(dim, rank))
      return emitOpError("dim ")
             << dim << " is out of range for rank " << getType().getRank();
  return success();
}

LogicalResult HardtanhOp::verify() {
  // nn.Hardtanh asserts the same: an empty range has no meaning.
  if (getMinVal().convertToDouble() > getMaxVal().convertToDouble())
    return emitOpError("min_val (")
           << getMinVal().convertToDouble() << ") must not exceed max_val ("
           << getMaxVal().convertToDouble() << ")";
  return success();
}

LogicalResult FlipOp::verify() {
  int64_t rank = getType().getRank();
  llvm::SmallBitVector seen(rank);
  for (int64_t dim : getDims()) {
    std::optional<int64_t> d = detail::normalizeDim(dim, rank);
    if (!d)
      return emitOpError("dim ") << dim << " is out of range for rank " << rank;
    if (seen.test(*d))
      return emitOpError("dim ") << dim << " is listed twice";
    seen.set(*d);
  }
  return success();
}

LogicalResult CastOp::verify() {
  auto in = getInput().getType();
  auto out = getResult().getType();
  if (in.getShape() != out.getShape())
    return emitOpError("changes the shape from ")
           << shapeStr(in.getShape()) << " to " << shapeStr(out.getShape())
           << "; cast only changes the element type";
  return success();
}

bool shardc::sc::isCoreForm(Operation *op) {
  if (auto linear = dyn_cast<LinearOp>(op))
    return linear.isCoreForm();
  if (auto pad = dyn_cast<PadOp>(op))
    return pad.isCoreForm();
  // Softmax over a scalar's one element has no dim for the runtime's step.
  if (isa<SoftmaxOp, LogSoftmaxOp>(op))
    return cast<RankedTensorType>(op->getResult(0).getType()).getRank() > 0;
  return !isa<LeakyReluOp, EluOp, SoftplusOp, ClampOp, HardtanhOp, SeluOp,
              CeluOp, LogsigmoidOp, SoftsignOp, PreluOp, HardsigmoidOp,
              HardswishOp, MishOp, VarOp, StdOp, InstanceNormOp, RollOp, FlipOp,
              PixelShuffleOp, PixelUnshuffleOp, FftOp, IfftOp, RfftOp, IrfftOp,
              EinsumOp, LogsumexpOp, VectorNormOp, NormalizeOp, GluOp,
              AdaptiveAvgPoolOp, AdaptiveMaxPoolOp, RmsNormOp, ProdOp, SquareOp,
              SignOp, LogaddexpOp, NanToNumOp, IsnanOp, IsinfOp, IsfiniteOp,
              HardshrinkOp, SoftshrinkOp, TanhshrinkOp, ThresholdOp, SoftminOp,
              ArgmaxOp, ArgminOp, MaxOp, MinOp>(op);
}

LogicalResult shardc::sc::requireCoreForm(Operation *op, StringRef consumer) {
  if (isCoreForm(op))
    return success();
  InFlightDiagnostic diag = op->emitOpError();
  if (isa<LinearOp>(op))
    diag << "with a 1-D weight or a broadcast bias ";
  else if (isa<PadOp>(op))
    diag << "in circular mode with crops ";
  else if (isa<SoftmaxOp, LogSoftmaxOp>(op))
    diag << "of a rank-0 tensor ";
  return diag << "is not taken by " << consumer
              << "; run -sc-decompose-forms first (shardc runs it)";
}
