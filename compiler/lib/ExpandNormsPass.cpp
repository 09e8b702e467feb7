//===- ExpandNormsPass.cpp - sc-expand-norms ------------------------------===//
//
// Norm and Softmax kernels become the Reduce, Unary and Binary kernels that
// compute them, as the partitioner already writes them for a split
// statistic dim: sc-fuse then makes each statistic one fused reduction and
// each epilogue one fused kernel, which the CUDA target generates (its
// backend has no native norm or softmax and would stage them through the
// host). Every value that two consumers read is computed once per consumer
// (x - mean, exp(x - max)), so that each stays private to its fused kernel.
//
//===----------------------------------------------------------------------===//

#include "FusedBuffers.h"

#include "shardc/Compiler/Passes.h"
#include "shardc/Compiler/ShapeRefinement.h"
#include "shardc/Dialect/ScLocal/ScLocal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <cmath>

namespace shardc {
#define GEN_PASS_DEF_SCEXPANDNORMS
#include "shardc/Compiler/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace shardc {
namespace {

/// Emits kernels before the op being expanded, located at it.
struct KernelEmitter {
  OpBuilder b;
  Location loc;

  Value alloc(ArrayRef<int64_t> shape) {
    return memref::AllocOp::create(b, loc,
                                   MemRefType::get(shape, b.getF32Type()));
  }
  void into(StringRef opcode, StringRef mode, ValueRange ins, Value out,
            ArrayRef<int64_t> ints = {}, ArrayRef<double> floats = {}) {
    scl::KernelOp::create(b, loc, b.getStringAttr(opcode), ins, ValueRange{out},
                          b.getDenseI64ArrayAttr(ints),
                          b.getDenseF64ArrayAttr(floats),
                          mode.empty() ? StringAttr() : b.getStringAttr(mode),
                          DenseI64ArrayAttr());
  }
  Value unary(StringRef fn, Value x) {
    Value out = alloc(shapeOf(x));
    into("Unary", fn, {x}, out);
    return out;
  }
  /// Binary over a's shape (b broadcasts to it).
  Value binary(StringRef fn, Value a, Value c) {
    Value out = alloc(shapeOf(a));
    into("Binary", fn, {a, c}, out);
    return out;
  }
  /// `kind` over `dims`, keeping them as 1s.
  Value reduce(StringRef kind, Value x, ArrayRef<int64_t> dims) {
    Extents shape = shapeOf(x);
    for (int64_t d : dims)
      shape[size_t(d)] = 1;
    Value out = alloc(shape);
    into("Reduce", kind, {x}, out, dims);
    return out;
  }
  Value scalar(double value) {
    Value out = alloc({});
    into("Fill", "", {}, out, {}, {value});
    return out;
  }
  /// `v` in `shape` (same element count): itself, or a reshaping copy.
  /// Not readAs's view of a temporary: sc-fuse merges the groups on both
  /// sides of a reshaping Copy (a group norm's rows and its epilogue).
  Value reshape(Value v, ArrayRef<int64_t> shape) {
    if (shapeOf(v) == Extents(shape.begin(), shape.end()))
      return v;
    Value out = alloc(shape);
    into("Copy", "", {v}, out);
    return out;
  }
};

/// (x - mean) * rsqrt(var + eps) over `dims` of x, both statistics
/// computed from x (the variance as the mean of the centred squares).
Value normalize(KernelEmitter &e, Value x, ArrayRef<int64_t> dims, double eps) {
  Value mean = e.reduce("mean", x, dims);
  Value centred = e.binary("sub", x, mean);
  Value var = e.reduce("mean", e.binary("mul", centred, centred), dims);
  Value rstd = e.unary("rsqrt", e.binary("add", var, e.scalar(eps)));
  return e.binary("mul", e.binary("sub", x, mean), rstd);
}

/// y * weight + bias (each optional) written into `out`; weight and bias
/// are read in `paramShape`.
void finishAffine(KernelEmitter &e, Value y, std::optional<Value> weight,
                  std::optional<Value> bias, ArrayRef<int64_t> paramShape,
                  Value out) {
  if (weight && bias)
    y = e.binary("mul", y, e.reshape(*weight, paramShape));
  if (bias)
    e.into("Binary", "add", {y, e.reshape(*bias, paramShape)}, out);
  else if (weight)
    e.into("Binary", "mul", {y, e.reshape(*weight, paramShape)}, out);
  else
    e.into("Copy", "", {y}, out);
}

/// Expands a Norm kernel; false when its attributes are not a norm the
/// runtime takes (the runtime then reports it).
bool expandNorm(scl::KernelOp k) {
  ArrayRef<int64_t> ints = k.getInts();
  if (ints.size() != 3 || k.getFloats().size() != 1 || !k.getMode() ||
      k.getOuts().size() != 1 || !llvm::all_of(k.getIns(), isF32) ||
      !isF32(k.getOuts()[0]))
    return false;
  bool hasWeight = ints[0] != 0, hasBias = ints[1] != 0;
  int64_t param = ints[2];
  double eps = k.getFloats()[0];
  if (!std::isfinite(eps) || eps < 0)
    return false;
  StringRef kind = *k.getMode();
  Value x = k.getIns()[0], out = k.getOuts()[0];
  Extents shape = shapeOf(x);
  int64_t rank = int64_t(shape.size());
  size_t first = kind == "batch" ? 3 : 1;
  if (k.getIns().size() != first + hasWeight + hasBias || shapeOf(out) != shape)
    return false;
  std::optional<Value> weight, bias;
  if (hasWeight)
    weight = k.getIns()[first];
  if (hasBias)
    bias = k.getIns()[first + hasWeight];
  // The runtime checks parameters (and running statistics) by count.
  auto paramsHold = [&](const Extents &paramShape) {
    int64_t count = elementCount(paramShape);
    return llvm::all_of(k.getIns().drop_front(), [&](Value v) {
      return elementCount(shapeOf(v)) == count;
    });
  };
  KernelEmitter e{OpBuilder(k), k.getLoc()};
  if (kind == "layer") {
    if (param < 1 || param > rank)
      return false;
    Extents paramShape(shape.end() - param, shape.end());
    if (!paramsHold(paramShape))
      return false;
    SmallVector<int64_t> dims;
    for (int64_t d = rank - param; d < rank; ++d)
      dims.push_back(d);
    finishAffine(e, normalize(e, x, dims, eps), weight, bias, paramShape, out);
    return true;
  }
  if (rank < 2)
    return false;
  // (C) -> (C, 1, ...): per channel over (N, C, spatial...).
  Extents channelShape(size_t(rank - 1), 1);
  channelShape[0] = shape[1];
  if (!paramsHold(channelShape))
    return false;
  if (kind == "group") {
    if (param < 1 || shape[1] % param != 0)
      return false;
    int64_t n = shape[0],
            perGroup = elementCount(shape) / std::max<int64_t>(n * param, 1);
    Value rows = e.reshape(x, {n, param, perGroup});
    Value y = e.reshape(normalize(e, rows, {2}, eps), shape);
    finishAffine(e, y, weight, bias, channelShape, out);
    return true;
  }
  if (kind == "batch") {
    Value mean = e.reshape(k.getIns()[1], channelShape);
    Value var = e.reshape(k.getIns()[2], channelShape);
    Value rstd = e.unary("rsqrt", e.binary("add", var, e.scalar(eps)));
    Value y = e.binary("mul", e.binary("sub", x, mean), rstd);
    finishAffine(e, y, weight, bias, channelShape, out);
    return true;
  }
  return false;
}

/// softmax(x, dim) = exp(x - max) / sum(exp(x - max)); log-softmax is
/// (x - max) - log(sum(exp(x - max))).
bool expandSoftmax(scl::KernelOp k) {
  ArrayRef<int64_t> ints = k.getInts();
  if (ints.size() != 2 || k.getIns().size() != 1 || k.getOuts().size() != 1 ||
      !isF32(k.getIns()[0]) || !isF32(k.getOuts()[0]))
    return false;
  Value x = k.getIns()[0], out = k.getOuts()[0];
  int64_t rank = int64_t(shapeOf(x).size()), dim = ints[0];
  // Over an empty dim there is nothing to compute (and no maximum).
  if (dim < 0 || dim >= rank || shapeOf(out) != shapeOf(x) ||
      shapeOf(x)[size_t(dim)] == 0)
    return false;
  KernelEmitter e{OpBuilder(k), k.getLoc()};
  Value max = e.reduce("amax", x, {dim});
  Value sum = e.reduce("sum", e.unary("exp", e.binary("sub", x, max)), {dim});
  if (ints[1] != 0) {
    Value logSum = e.unary("log", sum);
    e.into("Binary", "sub", {e.binary("sub", x, max), logSum}, out);
  } else {
    e.into("Binary", "div", {e.unary("exp", e.binary("sub", x, max)), sum},
           out);
  }
  return true;
}

struct ScExpandNormsPass : impl::ScExpandNormsBase<ScExpandNormsPass> {
  void runOnOperation() override {
    for (func::FuncOp f : rankClassFunctions(getOperation())) {
      bool changed = false;
      for (auto k : llvm::make_early_inc_range(f.getOps<scl::KernelOp>())) {
        bool expanded = k.getOpcode() == "Norm"      ? expandNorm(k)
                        : k.getOpcode() == "Softmax" ? expandSoftmax(k)
                                                     : false;
        if (expanded)
          k.erase();
        changed |= expanded;
      }
      if (changed)
        dropMemoryPlan(f);
    }
  }
};

} // namespace
} // namespace shardc
