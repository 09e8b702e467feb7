//===- ElementwiseOps.cpp - shape inference: elementwise and contractions -===//

#include "OpUtils.h"

using namespace mlir;
using namespace shardc::sc;
using namespace shardc::sc::detail;

//===----------------------------------------------------------------------===//
// Broadcasting ops
//===----------------------------------------------------------------------===//

/// Broadcasts `values`' shapes; requires equal element types among
/// `sameElementType` (indices into values).
static LogicalResult inferBroadcast(OptLoc loc, StringRef opName,
                                    ValueRange values, Type elementType,
                                    SmallVectorImpl<Type> &types) {
  SmallVector<int64_t> shape;
  for (auto [i, value] : llvm::enumerate(values)) {
    RankedTensorType type = tensorTypeOf(value);
    if (!type)
      return fail(loc, opName, "operand #", i, " is not a ranked tensor");
    SmallVector<int64_t> next;
    if (!broadcastShapes(shape, type.getShape(), next))
      return fail(loc, opName, "operand shapes ", shapeStr(shape), " and ",
                  shapeStr(type.getShape()), " do not broadcast (operand #", i,
                  ")");
    shape = std::move(next);
  }
  types.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

static LogicalResult inferBinary(OptLoc loc, StringRef opName, Value lhs,
                                 Value rhs, Type resultElement,
                                 SmallVectorImpl<Type> &types) {
  RankedTensorType l = tensorTypeOf(lhs), r = tensorTypeOf(rhs);
  if (!l || !r)
    return fail(loc, opName, "needs ranked tensor operands");
  if (l.getElementType() != r.getElementType())
    return fail(loc, opName, "operand element types differ (",
                l.getElementType(), " vs ", r.getElementType(),
                "); insert an sc.cast");
  return inferBroadcast(loc, opName, {lhs, rhs},
                        resultElement ? resultElement : l.getElementType(),
                        types);
}

/// add/sub/mul/div: as inferBinary, but a rank-0 operand (a Python scalar)
/// may have another float type than a ranked one, whose type the result
/// takes: PyTorch's promotion lets zero-dim tensors promote only across
/// categories (int to float). How the scalar's value enters is the op's
/// (sc-compute-in-f32 applies it).
static LogicalResult inferArithmetic(OptLoc loc, StringRef opName, Value lhs,
                                     Value rhs, SmallVectorImpl<Type> &types) {
  RankedTensorType l = tensorTypeOf(lhs), r = tensorTypeOf(rhs);
  if (l && r && l.getElementType() != r.getElementType() &&
      (l.getRank() == 0) != (r.getRank() == 0))
    return inferBroadcast(
        loc, opName, {lhs, rhs},
        l.getRank() == 0 ? r.getElementType() : l.getElementType(), types);
  return inferBinary(loc, opName, lhs, rhs, Type(), types);
}

#define SC_ARITHMETIC_INFER(OP)                                                \
  LogicalResult OP::inferReturnTypes(MLIRContext *, OptLoc loc,                \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    return inferArithmetic(loc, getOperationName(), adaptor.getLhs(),          \
                           adaptor.getRhs(), types);                           \
  }
SC_ARITHMETIC_INFER(AddOp)
SC_ARITHMETIC_INFER(SubOp)
SC_ARITHMETIC_INFER(MulOp)
SC_ARITHMETIC_INFER(DivOp)
#undef SC_ARITHMETIC_INFER

#define SC_BINARY_INFER(OP)                                                    \
  LogicalResult OP::inferReturnTypes(MLIRContext *, OptLoc loc,                \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    return inferBinary(loc, getOperationName(), adaptor.getLhs(),              \
                       adaptor.getRhs(), Type(), types);                       \
  }
SC_BINARY_INFER(MaximumOp)
SC_BINARY_INFER(MinimumOp)
SC_BINARY_INFER(PowOp)
SC_BINARY_INFER(LogaddexpOp)
SC_BINARY_INFER(Atan2Op)
SC_BINARY_INFER(FmodOp)
SC_BINARY_INFER(RemainderOp)
SC_BINARY_INFER(HypotOp)
SC_BINARY_INFER(CopysignOp)
#undef SC_BINARY_INFER

LogicalResult CompareOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferBinary(loc, getOperationName(), adaptor.getLhs(),
                     adaptor.getRhs(), IntegerType::get(ctx, 1), types);
}

#define SC_FLOAT_CLASS_INFER(OP)                                               \
  LogicalResult OP::inferReturnTypes(MLIRContext *ctx, OptLoc loc,             \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    RankedTensorType x = tensorTypeOf(adaptor.getInput());                     \
    if (!x)                                                                    \
      return fail(loc, getOperationName(), "needs a ranked tensor");           \
    types.push_back(x.clone(IntegerType::get(ctx, 1)));                        \
    return success();                                                          \
  }
SC_FLOAT_CLASS_INFER(IsnanOp)
SC_FLOAT_CLASS_INFER(IsinfOp)
SC_FLOAT_CLASS_INFER(IsfiniteOp)
#undef SC_FLOAT_CLASS_INFER

LogicalResult SelectOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  RankedTensorType t = tensorTypeOf(adaptor.getTrueValue());
  RankedTensorType f = tensorTypeOf(adaptor.getFalseValue());
  if (!t || !f)
    return fail(loc, getOperationName(), "needs ranked tensor operands");
  if (t.getElementType() != f.getElementType())
    return fail(loc, getOperationName(),
                "true and false values have different "
                "element types (",
                t.getElementType(), " vs ", f.getElementType(), ")");
  return inferBroadcast(loc, getOperationName(), adaptor.getOperands(),
                        t.getElementType(), types);
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType l = tensorTypeOf(adaptor.getLhs());
  RankedTensorType r = tensorTypeOf(adaptor.getRhs());
  if (!l || !r)
    return fail(loc, name, "needs ranked tensor operands");
  if (l.getRank() < 1 || r.getRank() < 1)
    return fail(loc, name, "operands must have rank >= 1 (torch.matmul)");
  if (l.getElementType() != r.getElementType())
    return fail(loc, name, "operand element types differ");
  // torch.matmul: a 1-D lhs is a row vector, a 1-D rhs a column vector; the
  // promoted dims are dropped from the result.
  SmallVector<int64_t> ls(l.getShape()), rs(r.getShape());
  bool lVec = ls.size() == 1, rVec = rs.size() == 1;
  if (lVec)
    ls.insert(ls.begin(), 1);
  if (rVec)
    rs.push_back(1);
  int64_t k = ls.back(), k2 = rs[rs.size() - 2];
  if (k != k2)
    return fail(loc, name, "contracting dims differ: lhs ",
                shapeStr(l.getShape()), " has ", k, ", rhs ",
                shapeStr(r.getShape()), " has ", k2);
  SmallVector<int64_t> batch;
  if (!broadcastShapes(ArrayRef(ls).drop_back(2), ArrayRef(rs).drop_back(2),
                       batch))
    return fail(loc, name, "batch dims of ", shapeStr(l.getShape()), " and ",
                shapeStr(r.getShape()), " do not broadcast");
  SmallVector<int64_t> shape(batch);
  if (!lVec)
    shape.push_back(ls[ls.size() - 2]);
  if (!rVec)
    shape.push_back(rs.back());
  types.push_back(RankedTensorType::get(shape, l.getElementType()));
  return success();
}

LogicalResult LinearOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  RankedTensorType w = tensorTypeOf(adaptor.getWeight());
  if (!x || !w)
    return fail(loc, name, "needs ranked tensor operands");
  if (x.getRank() < 1)
    return fail(loc, name, "input must have rank >= 1");
  if (w.getRank() != 1 && w.getRank() != 2)
    return fail(loc, name,
                "weight must be (out_features, in_features) or "
                "(in_features), got ",
                shapeStr(w.getShape()));
  if (w.getShape().back() != x.getShape().back())
    return fail(loc, name, "input has ", x.getShape().back(),
                " features but weight expects ", w.getShape().back());
  if (x.getElementType() != w.getElementType())
    return fail(loc, name, "input and weight element types differ");
  // F.linear: a 1-D weight contracts the last dim away.
  SmallVector<int64_t> shape(x.getShape().drop_back());
  if (w.getRank() == 2)
    shape.push_back(w.getDimSize(0));
  if (Value bias = adaptor.getBias()) {
    // F.linear's definition, matmul(x, w^T) + bias, with the bias added in
    // place as its matmul path does (`output.add_(bias)`): it broadcasts to
    // the result's shape without growing it. Eager torch's addmm paths take
    // a subset of these forms.
    RankedTensorType b = tensorTypeOf(bias);
    SmallVector<int64_t> grown;
    if (!b || b.getElementType() != x.getElementType())
      return fail(loc, name, "bias must have element type ",
                  x.getElementType());
    if (!broadcastShapes(b.getShape(), shape, grown) ||
        ArrayRef<int64_t>(grown) != ArrayRef<int64_t>(shape))
      return fail(loc, name, "bias of shape (", shapeStr(b.getShape()),
                  ") does not broadcast to the result's shape (",
                  shapeStr(shape), ")");
  }
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

bool LinearOp::isCoreForm() {
  auto w = cast<RankedTensorType>(getWeight().getType());
  Value bias = getBias();
  return w.getRank() == 2 &&
         (!bias || cast<RankedTensorType>(bias.getType()).getShape() ==
                       ArrayRef<int64_t>{w.getDimSize(0)});
}

LogicalResult ScaledDotProductAttentionOp::inferReturnTypes(
    MLIRContext *, OptLoc loc, Adaptor adaptor, SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType q = tensorTypeOf(adaptor.getQuery());
  RankedTensorType k = tensorTypeOf(adaptor.getKey());
  RankedTensorType v = tensorTypeOf(adaptor.getValue());
  if (!q || !k || !v)
    return fail(loc, name, "needs ranked tensor operands");
  if (q.getRank() < 2 || k.getRank() < 2 || v.getRank() < 2)
    return fail(loc, name, "query, key and value need rank >= 2");
  if (q.getElementType() != k.getElementType() ||
      q.getElementType() != v.getElementType())
    return fail(loc, name, "query, key and value element types differ");
  int64_t e = q.getShape().back(), s = k.getShape().end()[-2];
  if (k.getShape().back() != e)
    return fail(loc, name, "query head dim ", e, " differs from key head dim ",
                k.getShape().back());
  if (v.getShape().end()[-2] != s)
    return fail(loc, name, "key has sequence length ", s, " but value has ",
                v.getShape().end()[-2]);
  SmallVector<int64_t> batch, batchQK;
  if (!broadcastShapes(q.getShape().drop_back(2), k.getShape().drop_back(2),
                       batchQK) ||
      !broadcastShapes(batchQK, v.getShape().drop_back(2), batch))
    return fail(loc, name,
                "batch dims of query, key and value do not broadcast");
  int64_t l = q.getShape().end()[-2];
  if (adaptor.getIsCausal() && adaptor.getMask())
    return fail(loc, name, "takes either a mask or is_causal, not both");
  if (Value mask = adaptor.getMask()) {
    RankedTensorType m = tensorTypeOf(mask);
    SmallVector<int64_t> full(batch), out;
    full.append({l, s});
    if (!m || m.getElementType() != q.getElementType() ||
        !broadcastShapes(m.getShape(), full, out) ||
        ArrayRef<int64_t>(out) != ArrayRef<int64_t>(full))
      return fail(loc, name,
                  "mask must have the query's element type and "
                  "broadcast to ",
                  shapeStr(full));
  }
  if (failed(checkAttentionScale(loc, name, adaptor.getScale())))
    return failure();
  SmallVector<int64_t> shape(batch);
  shape.append({l, v.getShape().back()});
  types.push_back(RankedTensorType::get(shape, q.getElementType()));
  return success();
}

LogicalResult CeluOp::verify() {
  // F.celu divides by alpha.
  if (getAlpha().convertToDouble() == 0)
    return emitOpError("alpha must not be 0 (F.celu divides by it)");
  return success();
}

LogicalResult PreluOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  RankedTensorType w = tensorTypeOf(adaptor.getWeight());
  if (!x || !w)
    return fail(loc, name, "needs ranked tensors");
  int64_t channels = x.getRank() >= 2 ? x.getDimSize(1) : 1;
  if (w.getRank() != 1 || (w.getDimSize(0) != 1 && w.getDimSize(0) != channels))
    return fail(loc, name, "weight ", shapeStr(w.getShape()),
                " must hold one slope or one per channel (", channels,
                "), as a 1-D tensor");
  if (w.getElementType() != x.getElementType())
    return fail(loc, name, "weight must have the input's element type ",
                x.getElementType());
  types.push_back(x);
  return success();
}
