//===- FusedBuffers.cpp - Buffers of fused kernels ------------------------===//

#include "FusedBuffers.h"

#include "shardc/Dialect/ScLocal/ScLocal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace shardc {

Extents shapeOf(Value buffer) {
  ArrayRef<int64_t> shape = cast<MemRefType>(buffer.getType()).getShape();
  return Extents(shape.begin(), shape.end());
}

bool isReshape(scl::KernelOp k) {
  if (k.getOpcode() != "Copy" || k.getIns().size() != 1 ||
      k.getOuts().size() != 1)
    return false;
  auto in = cast<MemRefType>(k.getIns()[0].getType());
  auto out = cast<MemRefType>(k.getOuts()[0].getType());
  return in.getElementType().isF32() && out.getElementType().isF32() &&
         in.getNumElements() == out.getNumElements() &&
         in.getShape() != out.getShape();
}

bool isF32(Value buffer) {
  return cast<MemRefType>(buffer.getType()).getElementType().isF32();
}

bool isFusableReduce(scl::KernelOp k) {
  if (k.getOpcode() != "Reduce" || k.getIns().size() != 1 ||
      k.getOuts().size() != 1 || !isF32(k.getIns()[0]) ||
      !isF32(k.getOuts()[0]) || !k.getMode() ||
      !scl::isReductionKind(*k.getMode()))
    return false;
  // What scl.fused_reduction verifies; a Reduce that fails it stays for the
  // runtime's Reduce, as does one writing in place.
  // Sorted; a repeated dim then fails the strictly ascending check.
  SmallVector<int64_t> dims(k.getInts());
  llvm::sort(dims);
  ArrayRef<int64_t> in = cast<MemRefType>(k.getIns()[0].getType()).getShape();
  int64_t outputs = cast<MemRefType>(k.getOuts()[0].getType()).getNumElements();
  return scl::reductionShapeError(*k.getMode(), in, dims, outputs).empty() &&
         !scl::sharesStorage(k.getIns()[0], k.getOuts()[0]);
}

bool readsWithoutFullCopy(Value v, const Extents &shape, int64_t domainCount) {
  return shape == shapeOf(v) || scl::isTemporary(v) ||
         elementCount(shape) != domainCount;
}

Value readAs(Value v, const Extents &shape, OpBuilder &b,
             std::optional<Location> loc) {
  if (shapeOf(v) == shape)
    return v;
  Location at = loc.value_or(v.getLoc());
  // A mask stays a mask: the kernel reads its bytes as 1.0 or 0.0.
  auto type =
      MemRefType::get(shape, cast<MemRefType>(v.getType()).getElementType());
  if (scl::isTemporary(v))
    return scl::ViewOp::create(b, at, type, v);
  Value copy = memref::AllocOp::create(b, at, type);
  scl::KernelOp::create(b, at, b.getStringAttr("Copy"), ValueRange{v},
                        ValueRange{copy}, b.getDenseI64ArrayAttr({}),
                        b.getDenseF64ArrayAttr({}), StringAttr(),
                        DenseI64ArrayAttr());
  return copy;
}

SmallVector<func::FuncOp, 4> rankClassFunctions(ModuleOp module) {
  SmallVector<func::FuncOp, 4> functions;
  for (auto f : module.getOps<func::FuncOp>())
    if (f->hasAttr(scl::SclDialect::kRanksAttrName) && !f.isExternal())
      functions.push_back(f);
  return functions;
}

void dropMemoryPlan(func::FuncOp f) {
  f->removeAttr(scl::SclDialect::kArenaBytesAttrName);
  f->removeAttr(scl::SclDialect::kInputOffsetsAttrName);
  f.walk([](memref::AllocOp alloc) {
    alloc->removeAttr(scl::SclDialect::kOffsetAttrName);
  });
}

} // namespace shardc
