//===- ComputeInF32.cpp - sc-compute-in-f32 -------------------------------===//
//
// bf16 and f16 models keep their tensors in 16 bits, which halves the bytes
// of every activation a rank holds and moves, but compute each op in f32:
// the runtime's kernels are f32, and PyTorch's eager kernels compute these
// types in float (its opmath type) and round each op's result back. Casting
// around every computing op reproduces exactly that rounding, op by op.
//
//===----------------------------------------------------------------------===//

#include "DecomposeForms.h"

#include "shardc/Passes/Passes.h"

#include "shardc/Dialect/Sc/ScDialect.h"
#include "shardc/Dialect/Sc/ScOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"

namespace shardc {
#define GEN_PASS_DEF_SCCOMPUTEINF32
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc::sc;

namespace {

bool isHalfFloat(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isBF16() || element.isF16();
}

Type widened(Type type) {
  if (!isHalfFloat(type))
    return type;
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(),
                               Float32Type::get(type.getContext()));
}

/// Ops that only move, repeat or drop elements, which is exact in any type:
/// they stay in 16 bits and move half the bytes. A constant pad fills with
/// +0.0 only, whose pattern is zero bytes in every float type.
bool movesOnly(Operation *op) {
  if (auto pad = dyn_cast<PadOp>(op))
    return pad.getMode() != "constant" ||
           (pad.getValue().isZero() && !pad.getValue().isNegative());
  // Nearest resampling copies elements (PyTorch's nearest upsample of a
  // bf16 tensor is bit-exact too).
  if (auto resize = dyn_cast<InterpolateOp>(op))
    return resize.getMode() != "linear";
  return isa<ShardingConstraintOp, ReshardOp, ConcatOp, SliceOp, RollOp, FlipOp,
             PixelShuffleOp, PixelUnshuffleOp, ReshapeOp, PermuteOp,
             TransposeOp, BroadcastToOp, UnsqueezeOp, SqueezeOp, CastOp>(op);
}

/// torch.nan_to_num's default bounds are the input type's largest finite
/// values; computing in f32 must keep those of bf16 or f16, not f32's
/// (which would round to infinity in bf16).
void pinNanToNumBounds(NanToNumOp op) {
  Type element = getElementTypeOrSelf(op.getInput().getType());
  if (!isHalfFloat(element))
    return;
  auto semantics = &cast<FloatType>(element).getFloatSemantics();
  double largest = llvm::APFloat::getLargest(*semantics).convertToDouble();
  Builder b(op.getContext());
  if (!op.getPosinfAttr())
    op.setPosinfAttr(b.getF64FloatAttr(largest));
  if (!op.getNeginfAttr())
    op.setNeginfAttr(b.getF64FloatAttr(-largest));
}

class Widener {
public:
  /// A 16-bit constant becomes an f32 constant (exactly: every bf16 and f16
  /// value is an f32 value) cast down for ops that keep 16 bits; computing
  /// ops read the f32 constant itself.
  LogicalResult widenConstant(ConstantOp op) {
    auto dense = dyn_cast<DenseFPElementsAttr>(op.getValue());
    if (!dense)
      return op.emitOpError("holds a ")
             << op.getType()
             << " that is not a dense float attribute; shardc takes bf16 and "
                "f16 constants as dense<...> (sc-compute-in-f32 widens them "
                "to f32)";
    OpBuilder b(op);
    auto type = cast<RankedTensorType>(widened(op.getType()));
    Attribute wide = dense.mapValues(
        Float32Type::get(op.getContext()), [](const APFloat &v) {
          APFloat f = v;
          bool lost;
          f.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
          return f.bitcastToAPInt();
        });
    Value f32 =
        ConstantOp::create(b, op.getLoc(), type, cast<ElementsAttr>(wide));
    auto narrow = CastOp::create(b, op.getLoc(), op.getType(), f32);
    copyPin(op, narrow);
    wideOf[narrow.getResult()] = f32;
    op.getResult().replaceAllUsesWith(narrow.getResult());
    op.erase();
    return success();
  }

  /// `op` on f32 operands, each 16-bit result cast back.
  void widenOp(Operation *op) {
    if (auto nanToNum = dyn_cast<NanToNumOp>(op))
      pinNanToNumBounds(nanToNum);
    OpBuilder b(op);
    IRMapping operands;
    for (Value operand : op->getOperands())
      if (isHalfFloat(operand.getType()))
        operands.map(operand, wide(b, operand));
    // A clone keeps the op's attributes and properties as they are.
    Operation *computed = b.clone(*op, operands);
    for (Value result : computed->getResults())
      result.setType(widened(result.getType()));
    for (auto [old, now] :
         llvm::zip_equal(op->getResults(), computed->getResults())) {
      Value result = now;
      if (old.getType() != now.getType()) {
        auto narrow = CastOp::create(b, op->getLoc(), old.getType(), now);
        copyPin(op, narrow, cast<OpResult>(old).getResultNumber());
        result = narrow;
      }
      old.replaceAllUsesWith(result);
    }
    op->erase();
  }

private:
  /// The f32 value of a 16-bit operand, cast once per value, just before
  /// its first computing reader (ops are widened in program order, so that
  /// reader comes before every later one). Cast where the value is defined,
  /// a weight's f32 copy would be live from the program's start.
  Value wide(OpBuilder &b, Value narrow) {
    Value &w = wideOf[narrow];
    if (!w)
      w = CastOp::create(b, narrow.getLoc(), widened(narrow.getType()), narrow);
    return w;
  }

  /// `from`'s pin of result `result` onto single-result `to` (an op with
  /// several results, sc.max's values and indices, pins an array).
  static void copyPin(Operation *from, Operation *to, unsigned result = 0) {
    Attribute pin = from->getAttr(ScDialect::kShardingAttrName);
    if (auto pins = dyn_cast_if_present<ArrayAttr>(pin))
      pin = pins[result];
    if (pin)
      to->setAttr(ScDialect::kShardingAttrName, pin);
  }

  llvm::DenseMap<Value, Value> wideOf;
};

struct ComputeInF32 : public shardc::impl::ScComputeInF32Base<ComputeInF32> {
  /// A Python scalar (a rank-0 operand of another type than the result) is
  /// cast to the result's type first, except a right-hand one of mul or
  /// div: ATen's CPU mul and div read their second operand unrounded in f32
  /// (original_scalar_value<opmath_t>, which widening the 16-bit operand
  /// alone gives), while add and sub, and any first operand, go through the
  /// iterator's common dtype (bf16 + 0.3 adds 0.30078125).
  void narrowScalars() {
    getOperation().walk([&](Operation *op) {
      if (!isa<AddOp, SubOp, MulOp, DivOp>(op))
        return;
      bool keepsRhs = isa<MulOp, DivOp>(op);
      Type result = getElementTypeOrSelf(op->getResult(0).getType());
      for (OpOperand &operand : op->getOpOperands()) {
        if (keepsRhs && operand.getOperandNumber() == 1)
          continue;
        auto type = cast<RankedTensorType>(operand.get().getType());
        if (type.getElementType() == result)
          continue;
        OpBuilder b(op);
        operand.set(
            CastOp::create(b, op->getLoc(), type.clone(result), operand.get()));
      }
    });
  }

  void runOnOperation() override {
    // torch.einsum runs as its own sums, permutes and one bmm per pair of
    // operands, each rounded: a 16-bit einsum is decomposed first, so that
    // each of those ops is widened and rounded on its own.
    SmallVector<EinsumOp> einsums;
    getOperation().walk([&](EinsumOp op) {
      if (isHalfFloat(op.getType()))
        einsums.push_back(op);
    });
    for (EinsumOp op : einsums)
      shardc::detail::decomposeEinsum(op);
    narrowScalars();
    SmallVector<Operation *> todo;
    getOperation().walk([&](Operation *op) {
      if (!isa<ScDialect>(op->getDialect()) || movesOnly(op))
        return;
      if (llvm::any_of(op->getOperandTypes(), isHalfFloat) ||
          llvm::any_of(op->getResultTypes(), isHalfFloat))
        todo.push_back(op);
    });
    Widener widener;
    for (Operation *op : todo) {
      if (auto constant = dyn_cast<ConstantOp>(op)) {
        if (failed(widener.widenConstant(constant)))
          return signalPassFailure();
      } else {
        widener.widenOp(op);
      }
    }
  }
};

} // namespace
