//===- DecomposeEinsum.cpp - sc.einsum as sums and matmuls ----------------===//
//
// torch.einsum contracts two operands at a time, from the left (what torch
// does without opt_einsum). Each pair becomes one batched sc.matmul: labels
// both keep lead as batch dims, the left operand's own labels are its rows,
// the right's its columns, and the labels summed over are the inner dim.
// Labels only one operand has and nothing later needs are summed first.
// Those are core ops, so a split label shards as a matmul's or a sum's does.
//
//===----------------------------------------------------------------------===//

#include "DecomposeForms.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace shardc::sc;
using shardc::detail::replaceKeepingPin;

namespace {

/// A value and the label of each of its dims.
struct Labeled {
  Value value;
  SmallVector<int64_t> labels;

  ArrayRef<int64_t> shape() const {
    return cast<RankedTensorType>(value.getType()).getShape();
  }
  int64_t sizeOf(int64_t label) const {
    return shape()[llvm::find(labels, label) - labels.begin()];
  }
  bool has(int64_t label) const { return llvm::is_contained(labels, label); }
};

class EinsumBuilder {
public:
  EinsumBuilder(OpBuilder &b, Location loc, Type element)
      : b(b), loc(loc), element(element) {}

  /// `x` summed over the labels `keep` does not hold.
  Labeled sumOut(Labeled x, llvm::function_ref<bool(int64_t)> keep) {
    SmallVector<int64_t> dims;
    Labeled y{x.value, {}};
    for (auto [d, label] : llvm::enumerate(x.labels)) {
      if (keep(label))
        y.labels.push_back(label);
      else
        dims.push_back(d);
    }
    if (dims.empty())
      return x;
    // Summing size-1 dims only drops them: a view.
    if (llvm::all_of(dims, [&](int64_t d) { return x.shape()[d] == 1; })) {
      SmallVector<int64_t> shape;
      for (auto [d, size] : llvm::enumerate(x.shape()))
        if (!llvm::is_contained(dims, static_cast<int64_t>(d)))
          shape.push_back(size);
      y.value = reshape(x.value, shape);
      return y;
    }
    y.value = SumOp::create(b, loc, x.value, b.getDenseI64ArrayAttr(dims),
                            b.getBoolAttr(false));
    return y;
  }

  /// `x` with its dims in the order `labels`.
  Labeled permuteTo(Labeled x, ArrayRef<int64_t> labels) {
    SmallVector<int64_t> perm;
    for (int64_t label : labels)
      perm.push_back(llvm::find(x.labels, label) - x.labels.begin());
    Labeled y{x.value, SmallVector<int64_t>(labels)};
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
      y.value =
          PermuteOp::create(b, loc, x.value, b.getDenseI64ArrayAttr(perm));
    return y;
  }

  Value reshape(Value v, ArrayRef<int64_t> shape) {
    if (cast<RankedTensorType>(v.getType()).getShape() == shape)
      return v;
    return ReshapeOp::create(b, loc, RankedTensorType::get(shape, element), v);
  }

  /// The product of `lhs` and `rhs` summed over the labels they share that
  /// `kept` does not hold; the result holds the shared kept labels, then the
  /// left's own, then the right's.
  Labeled contract(Labeled lhs, Labeled rhs,
                   llvm::function_ref<bool(int64_t)> kept) {
    lhs = sumOut(lhs, [&](int64_t l) { return kept(l) || rhs.has(l); });
    rhs = sumOut(rhs, [&](int64_t l) { return kept(l) || lhs.has(l); });
    // A summed label of size 1 on one side broadcasts: a[0] * sum_k c[k], so
    // both sides are summed over it (the size-1 side's sum drops the dim).
    auto agrees = [&, lhs, rhs](int64_t l) {
      return kept(l) || !lhs.has(l) || !rhs.has(l) ||
             lhs.sizeOf(l) == rhs.sizeOf(l);
    };
    lhs = sumOut(lhs, agrees);
    rhs = sumOut(rhs, agrees);
    SmallVector<int64_t> batch, rows, inner, cols;
    for (int64_t label : lhs.labels) {
      if (!rhs.has(label))
        rows.push_back(label);
      else if (kept(label))
        batch.push_back(label);
      else
        inner.push_back(label);
    }
    for (int64_t label : rhs.labels)
      if (!lhs.has(label))
        cols.push_back(label);
    auto product = [](const Labeled &x, ArrayRef<int64_t> labels) {
      int64_t n = 1;
      for (int64_t label : labels)
        n *= x.sizeOf(label);
      return n;
    };
    auto batchShape = [&](const Labeled &x) {
      SmallVector<int64_t> shape;
      for (int64_t label : batch)
        shape.push_back(x.sizeOf(label));
      return shape;
    };
    if (inner.empty())
      return outerProduct(lhs, rhs, batch, rows, cols);
    SmallVector<int64_t> lhsOrder(batch), rhsOrder(batch);
    lhsOrder.append(rows.begin(), rows.end());
    lhsOrder.append(inner.begin(), inner.end());
    rhsOrder.append(inner.begin(), inner.end());
    rhsOrder.append(cols.begin(), cols.end());
    Labeled a = permuteTo(lhs, lhsOrder), c = permuteTo(rhs, rhsOrder);
    SmallVector<int64_t> aShape = batchShape(a), cShape = batchShape(c);
    aShape.append({product(a, rows), product(a, inner)});
    cShape.append({product(c, inner), product(c, cols)});
    Value product2 = MatmulOp::create(b, loc, reshape(a.value, aShape),
                                      reshape(c.value, cShape));
    Labeled y{product2, batch};
    y.labels.append(rows.begin(), rows.end());
    y.labels.append(cols.begin(), cols.end());
    SmallVector<int64_t> shape;
    for (int64_t label : batch)
      shape.push_back(a.sizeOf(label) == 1 ? c.sizeOf(label) : a.sizeOf(label));
    for (int64_t label : rows)
      shape.push_back(a.sizeOf(label));
    for (int64_t label : cols)
      shape.push_back(c.sizeOf(label));
    y.value = reshape(y.value, shape);
    return y;
  }

private:
  /// Nothing to sum over: a broadcasting sc.mul of (batch, rows, 1...) and
  /// (batch, 1..., cols), which fuses with its neighbours where a matmul
  /// would not.
  Labeled outerProduct(const Labeled &lhs, const Labeled &rhs,
                       ArrayRef<int64_t> batch, ArrayRef<int64_t> rows,
                       ArrayRef<int64_t> cols) {
    SmallVector<int64_t> lhsOrder(batch), rhsOrder(batch);
    lhsOrder.append(rows.begin(), rows.end());
    rhsOrder.append(cols.begin(), cols.end());
    Labeled a = permuteTo(lhs, lhsOrder), c = permuteTo(rhs, rhsOrder);
    SmallVector<int64_t> aShape(a.shape()), cShape(c.shape());
    aShape.append(cols.size(), 1);
    cShape.insert(cShape.begin() + batch.size(), rows.size(), 1);
    Labeled y{MulOp::create(b, loc, reshape(a.value, aShape),
                            reshape(c.value, cShape)),
              SmallVector<int64_t>(batch)};
    y.labels.append(rows.begin(), rows.end());
    y.labels.append(cols.begin(), cols.end());
    return y;
  }

  OpBuilder &b;
  Location loc;
  Type element;
};

} // namespace

void shardc::detail::decomposeEinsum(EinsumOp op) {
  EinsumEquation eq =
      *parseEinsumEquation(op.getLoc(), op->getName().getStringRef(),
                           op.getEquation(), op.getInputs().getTypes());
  OpBuilder b(op);
  auto resultType = cast<RankedTensorType>(op.getType());
  EinsumBuilder builder(b, op.getLoc(), resultType.getElementType());
  ValueRange inputs = op.getInputs();
  auto isOutput = [&](int64_t label) {
    return llvm::is_contained(eq.resultLabels, label);
  };
  Labeled acc{inputs[0], eq.operandLabels[0]};
  for (size_t i = 1; i < inputs.size(); ++i) {
    // Labels a later operand or the result still needs.
    auto kept = [&](int64_t label) {
      if (isOutput(label))
        return true;
      for (size_t j = i + 1; j < inputs.size(); ++j)
        if (llvm::is_contained(eq.operandLabels[j], label))
          return true;
      return false;
    };
    acc = builder.contract(acc, Labeled{inputs[i], eq.operandLabels[i]}, kept);
  }
  acc = builder.sumOut(acc, isOutput);
  acc = builder.permuteTo(acc, eq.resultLabels);
  // A size-1 dim broadcast against no other operand stays 1: the result
  // type already says so, so only the view may differ.
  Value result = builder.reshape(acc.value, resultType.getShape());
  if (Operation *last = result.getDefiningOp();
      last && !llvm::is_contained(inputs, result)) {
    replaceKeepingPin(op, last);
    return;
  }
  // The equation moves nothing ("ij->ij"): the operand is the result.
  if (auto pin = op->getAttrOfType<ShardingAttr>(ScDialect::kShardingAttrName))
    result = ShardingConstraintOp::create(b, op.getLoc(), result.getType(),
                                          result, pin);
  op.getResult().replaceAllUsesWith(result);
  op.erase();
}
