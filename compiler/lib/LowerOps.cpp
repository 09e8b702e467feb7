//===- LowerOps.cpp - sc ops to runtime instructions ----------------------===//
//
// One function per op family. The encodings are the schema's (shardbin.fbs,
// Opcode); the runtime re-checks every one of them when a session is
// prepared, so a mistake here is an error there, never a wrong read.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "shardc/Dialect/Sc/ScOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace shardc::sc;
using shardrt::artifact::InstructionSpec;

namespace shardc {
namespace {

int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}
/// The global shape (attributes are computed from it).
ArrayRef<int64_t> globalShape(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// The window the op computes on this rank along `d`: the global one unless
/// the partitioned lowering set a local one.
LocalWindow windowOf(const ProgramBuilder &b, const WindowedDim &d) {
  auto it = b.windows.find(d.inputDim);
  if (it != b.windows.end())
    return it->second;
  return {d.spec.padLow, d.spec.padHigh, 0, 0};
}

/// Inputs' buffers followed by the defined result buffer.
struct Operands {
  std::vector<uint32_t> inputs;
  uint32_t result = 0;
};

FailureOr<Operands> operands(Operation *op, ProgramBuilder &b) {
  Operands o;
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    o.inputs.push_back(b.operandBuffer(op, i));
  FailureOr<uint32_t> r = b.define(op, op->getResult(0));
  if (failed(r))
    return failure();
  o.result = *r;
  return o;
}

LogicalResult simple(Operation *op, ProgramBuilder &b, fb::Opcode opcode,
                     std::string str = {}, std::vector<int64_t> ints = {},
                     std::vector<double> floats = {}) {
  FailureOr<Operands> o = operands(op, b);
  if (failed(o))
    return failure();
  InstructionSpec &inst = b.emit(opcode, o->inputs, {o->result});
  inst.str = std::move(str);
  inst.ints = std::move(ints);
  inst.floats = std::move(floats);
  return success();
}

/// Window specs of a windowed op, one per spatial dim, in dim order.
std::vector<WindowedDim> spatialSpecs(Operation *op, unsigned operand = 0) {
  std::vector<WindowedDim> dims;
  for (WindowedDim &d : cast<WindowOpInterface>(op).getWindowedDims())
    if (d.operand == operand)
      dims.push_back(d);
  std::sort(dims.begin(), dims.end(),
            [](auto &a, auto &b) { return a.inputDim < b.inputDim; });
  return dims;
}

const char *padModeName(BoundaryMode mode) {
  switch (mode) {
  case BoundaryMode::Zeros:
    return "constant";
  case BoundaryMode::Reflect:
    return "reflect";
  case BoundaryMode::Replicate:
    return "replicate";
  case BoundaryMode::Circular:
    return "circular";
  }
  return "constant";
}

/// Pads `input` by (lo, hi) per dim into `result`. A partitioned rank's
/// window may crop (a negative amount) on one side while it reflects or
/// replicates on the other: its buffer then holds the rows the border
/// mirrors, which lie beyond its own outputs. The border must mirror the
/// whole buffer, whose edge is the global edge, where a Pad that crops
/// mirrors what it keeps (PyTorch's rule); so such a pad is two: the
/// border, then a constant-mode crop.
void emitPad(ProgramBuilder &b, uint32_t input, const std::string &mode,
             const std::vector<int64_t> &lo, const std::vector<int64_t> &hi,
             double value, uint32_t result) {
  auto ints = [](const std::vector<int64_t> &l, const std::vector<int64_t> &h) {
    std::vector<int64_t> v = l;
    v.insert(v.end(), h.begin(), h.end());
    return v;
  };
  bool crops = llvm::any_of(lo, [](int64_t v) { return v < 0; }) ||
               llvm::any_of(hi, [](int64_t v) { return v < 0; });
  if (mode != "constant" && crops) {
    std::vector<int64_t> grow = b.buffers[input].shape, growLo, growHi, cropLo,
                         cropHi;
    for (size_t d = 0; d < lo.size(); ++d) {
      growLo.push_back(std::max<int64_t>(lo[d], 0));
      growHi.push_back(std::max<int64_t>(hi[d], 0));
      cropLo.push_back(std::min<int64_t>(lo[d], 0));
      cropHi.push_back(std::min<int64_t>(hi[d], 0));
      grow[d] += growLo[d] + growHi[d];
    }
    uint32_t grown = b.temporary(b.buffers[input].dtype, std::move(grow));
    InstructionSpec &border = b.emit(fb::Opcode::Pad, {input}, {grown});
    border.str = mode;
    border.ints = ints(growLo, growHi);
    border.floats = {value};
    input = grown;
    InstructionSpec &crop = b.emit(fb::Opcode::Pad, {input}, {result});
    crop.str = "constant";
    crop.ints = ints(cropLo, cropHi);
    crop.floats = {0.0};
    return;
  }
  InstructionSpec &pad = b.emit(fb::Opcode::Pad, {input}, {result});
  pad.str = mode;
  pad.ints = ints(lo, hi);
  pad.floats = {value};
}

/// conv / conv_transpose. A non-zero padding mode becomes an explicit pad
/// (as PyTorch's own conv does) followed by an unpadded conv.
LogicalResult lowerConv(Operation *op, ProgramBuilder &b, bool transposed,
                        int64_t groups) {
  std::vector<WindowedDim> dims = spatialSpecs(op);
  int64_t r = int64_t(dims.size());
  uint32_t input = b.operandBuffer(op, 0);
  BoundaryMode mode =
      dims.empty() ? BoundaryMode::Zeros : dims[0].spec.boundary;
  std::vector<int64_t> ints = {r}, stride, padLo, dilation;
  for (WindowedDim &d : dims) {
    stride.push_back(d.spec.stride);
    padLo.push_back(mode == BoundaryMode::Zeros ? windowOf(b, d).padLo : 0);
    dilation.push_back(d.spec.dilation);
  }
  if (!transposed && mode != BoundaryMode::Zeros) {
    Value x = op->getOperand(0);
    std::vector<int64_t> padded = b.operandShape(op, 0);
    std::vector<int64_t> lo(rankOf(x), 0), hi(rankOf(x), 0);
    for (WindowedDim &d : dims) {
      LocalWindow w = windowOf(b, d);
      lo[d.inputDim] = w.padLo;
      hi[d.inputDim] = w.padHi;
      padded[d.inputDim] += w.padLo + w.padHi;
    }
    uint32_t tmp = b.temporary(b.buffers[input].dtype, std::move(padded));
    emitPad(b, input, padModeName(mode), lo, hi, 0.0, tmp);
    input = tmp;
  }
  ints.insert(ints.end(), stride.begin(), stride.end());
  ints.insert(ints.end(), padLo.begin(), padLo.end());
  ints.insert(ints.end(), dilation.begin(), dilation.end());
  ints.push_back(groups);
  std::vector<uint32_t> inputs = {input};
  for (unsigned i = 1; i < op->getNumOperands(); ++i)
    inputs.push_back(b.operandBuffer(op, i));
  FailureOr<uint32_t> result = b.define(op, op->getResult(0));
  if (failed(result))
    return failure();
  InstructionSpec &inst =
      b.emit(transposed ? fb::Opcode::ConvTranspose : fb::Opcode::Conv, inputs,
             {*result});
  inst.ints = ints;
  return success();
}

LogicalResult lowerPool(Operation *op, ProgramBuilder &b, bool isMax,
                        bool countIncludePad, int64_t divisorOverride) {
  std::vector<WindowedDim> dims = spatialSpecs(op);
  std::vector<int64_t> ints = {int64_t(dims.size())};
  for (WindowedDim &d : dims)
    ints.push_back(d.spec.kernel);
  for (WindowedDim &d : dims)
    ints.push_back(d.spec.stride);
  for (WindowedDim &d : dims)
    ints.push_back(windowOf(b, d).padLo);
  for (WindowedDim &d : dims)
    ints.push_back(windowOf(b, d).padHi);
  for (WindowedDim &d : dims)
    ints.push_back(d.spec.dilation);
  ints.push_back(countIncludePad);
  ints.push_back(divisorOverride);
  return simple(op, b, fb::Opcode::Pool, isMax ? "max" : "avg", ints);
}

} // namespace

std::optional<double> splatValue(Value v) {
  while (isa_and_nonnull<ReshardOp, ShardingConstraintOp>(v.getDefiningOp()))
    v = v.getDefiningOp()->getOperand(0);
  auto c = v.getDefiningOp<ConstantOp>();
  auto splat = c ? dyn_cast<SplatElementsAttr>(c.getValue()) : nullptr;
  if (!splat)
    return std::nullopt;
  Type element = splat.getElementType();
  if (element.isInteger(1))
    return double(splat.getSplatValue<bool>());
  if (isa<FloatType>(element))
    return splat.getSplatValue<APFloat>().convertToDouble();
  return std::nullopt; // a dtype shardc does not compute in
}

FailureOr<uint32_t> fillSplat(ProgramBuilder &b, ConstantOp splat) {
  // Defined first: it refuses, with a diagnostic, the dtypes shardc does not
  // compute in, of which splatValue knows no value.
  FailureOr<uint32_t> id = b.define(splat, splat.getResult());
  if (failed(id))
    return failure();
  std::optional<double> value = splatValue(splat.getResult());
  assert(value && "fillSplat takes a splat constant (f32 or i1: 16-bit "
                  "constants are made f32 by sc-compute-in-f32)");
  b.emit(fb::Opcode::Fill, {}, {*id}).floats = {*value};
  return id;
}

std::vector<int64_t> reducedDims(int64_t rank,
                                 std::optional<ArrayRef<int64_t>> dims) {
  std::vector<int64_t> ints;
  // A rank-0 input's dim 0 (or -1) is its one element: no dim to list.
  if (!dims || dims->empty() || rank == 0) {
    for (int64_t d = 0; d < rank; ++d)
      ints.push_back(d);
    return ints;
  }
  for (int64_t d : *dims)
    ints.push_back(d < 0 ? d + rank : d);
  std::sort(ints.begin(), ints.end());
  return ints;
}

double attentionScale(std::optional<APFloat> scale, Value query) {
  if (scale)
    return scale->convertToDouble();
  int64_t features = globalShape(query).back();
  return features > 0 ? 1.0 / std::sqrt(double(features)) : 1.0;
}

/// PyTorch's source-coordinate scale (area_pixel_compute_scale), including
/// the size-based shortcuts its kernels take before looking at a user's scale
/// factor: equal sizes copy, and nearest at exactly twice the size reads
/// o >> 1 (nearest_idx).
double coordinateScale(const WindowSpec &s) {
  if (s.outputSize == s.inputSize)
    return 1.0;
  if (s.resizeMode == ResizeMode::Nearest && s.outputSize == 2 * s.inputSize)
    return 0.5;
  if (s.alignCorners)
    return s.outputSize > 1 ? double(s.inputSize - 1) / double(s.outputSize - 1)
                            : 0.0;
  if (s.scaleFactor > 0.0)
    return 1.0 / s.scaleFactor;
  return double(s.inputSize) / double(s.outputSize);
}

namespace {

LogicalResult lowerInterpolate(InterpolateOp op, ProgramBuilder &b) {
  std::vector<WindowedDim> dims = spatialSpecs(op);
  int64_t r = int64_t(dims.size());
  std::vector<int64_t> ints = {r, op.getAlignCorners()};
  std::vector<double> scales;
  for (WindowedDim &d : dims)
    ints.push_back(windowOf(b, d).outOffset);
  for (WindowedDim &d : dims)
    ints.push_back(windowOf(b, d).inOffset);
  for (WindowedDim &d : dims) {
    ints.push_back(d.spec.inputSize);
    WindowSpec s = d.spec;
    s.outputSize = globalShape(op.getResult())[d.resultDim];
    scales.push_back(coordinateScale(s));
  }
  return simple(op, b, fb::Opcode::Interpolate, op.getMode().str(), ints,
                scales);
}

LogicalResult lowerPad(PadOp op, ProgramBuilder &b) {
  if (op.readsNothing()) {
    FailureOr<Operands> o = operands(op, b);
    if (failed(o))
      return failure();
    b.emit(fb::Opcode::Fill, {}, {o->result}).floats = {
        op.getValue().convertToDouble()};
    return success();
  }
  int64_t rank = rankOf(op.getInput());
  std::vector<int64_t> lo(rank, 0), hi(rank, 0);
  ArrayRef<int64_t> pad = op.getPad();
  // F.pad order: the last dim's (lo, hi) first.
  for (size_t i = 0; i + 1 < pad.size(); i += 2) {
    int64_t d = rank - 1 - int64_t(i / 2);
    lo[d] = pad[i];
    hi[d] = pad[i + 1];
    if (auto it = b.windows.find(d); it != b.windows.end()) {
      lo[d] = it->second.padLo;
      hi[d] = it->second.padHi;
    }
  }
  FailureOr<Operands> o = operands(op, b);
  if (failed(o))
    return failure();
  emitPad(b, o->inputs[0], op.getMode().str(), lo, hi,
          op.getValue().convertToDouble(), o->result);
  return success();
}

LogicalResult lowerNeighborhood(NeighborhoodAttentionOp op, ProgramBuilder &b) {
  // The windows are over the keys (and values); queries are read pointwise.
  std::vector<WindowedDim> dims = spatialSpecs(op, /*operand=*/1);
  int64_t r = int64_t(dims.size());
  std::vector<int64_t> ints = {r};
  for (WindowedDim &d : dims)
    ints.push_back(d.spec.kernel);
  for (WindowedDim &d : dims)
    ints.push_back(d.spec.dilation);
  for (WindowedDim &d : dims)
    ints.push_back(windowOf(b, d).outOffset); // query offsets
  for (WindowedDim &d : dims)
    ints.push_back(windowOf(b, d).inOffset); // key offsets
  for (WindowedDim &d : dims)
    ints.push_back(d.spec.inputSize);
  double scale = attentionScale(op.getScale(), op.getQuery());
  return simple(op, b, fb::Opcode::NeighborhoodAttention, "", ints, {scale});
}

/// Broadcasts operand `index` of `op` to `shape` through a temporary when
/// it differs.
uint32_t broadcastIfNeeded(Operation *op, ProgramBuilder &b, unsigned index,
                           ArrayRef<int64_t> shape) {
  uint32_t input = b.operandBuffer(op, index);
  if (llvm::equal(b.buffers[input].shape, shape))
    return input;
  uint32_t tmp = b.temporary(b.buffers[input].dtype,
                             std::vector<int64_t>(shape.begin(), shape.end()));
  b.emit(fb::Opcode::BroadcastTo, {input}, {tmp});
  return tmp;
}

LogicalResult lowerSdpa(ScaledDotProductAttentionOp op, ProgramBuilder &b) {
  std::vector<int64_t> out = b.shapeOf(op.getResult());
  SmallVector<int64_t> batch(out.begin(), out.end() - 2);
  std::vector<uint32_t> inputs;
  // Operands 0-2: query, key and value; 3: the optional mask.
  for (unsigned i = 0; i < 3; ++i) {
    SmallVector<int64_t> full(batch);
    std::vector<int64_t> shape = b.operandShape(op, i);
    full.append(shape.end() - 2, shape.end());
    inputs.push_back(broadcastIfNeeded(op, b, i, full));
  }
  if (op.getMask())
    inputs.push_back(b.operandBuffer(op, 3));
  else if (b.causalMask)
    inputs.push_back(*b.causalMask);
  FailureOr<uint32_t> result = b.define(op, op.getResult());
  if (failed(result))
    return failure();
  double scale = attentionScale(op.getScale(), op.getQuery());
  InstructionSpec &inst = b.emit(fb::Opcode::Attention, inputs, {*result});
  // causalMask is set only for causal ops (which the verifier keeps from
  // having a mask of their own).
  bool causalByMask = b.causalMask.has_value();
  inst.ints = {op.getIsCausal() && !causalByMask,
               op.getMask() || causalByMask ? 1 : 0};
  inst.floats = {scale};
  return success();
}

template <typename NormOp>
LogicalResult lowerNorm(NormOp op, ProgramBuilder &b, const char *kind,
                        int64_t param) {
  size_t affine = op.getAffine().size();
  return simple(op, b, fb::Opcode::Norm, kind,
                {affine >= 1, affine >= 2, param},
                {op.getEps().convertToDouble()});
}

LogicalResult lowerReduction(Operation *op, ProgramBuilder &b, const char *kind,
                             std::optional<ArrayRef<int64_t>> dims) {
  std::vector<int64_t> reduced = reducedDims(rankOf(op->getOperand(0)), dims);
  std::vector<int64_t> shape = b.operandShape(op, 0);
  bool empty = llvm::any_of(reduced, [&](int64_t d) { return shape[d] == 0; });
  StringRef k(kind);
  // The verifier keeps amax/amin off empty dims of the model, so an empty
  // one here is a rank's empty shard: it holds the identity of the max/min
  // that combines the shards, which the runtime's Reduce has no value for.
  if (empty && (k == "amax" || k == "amin")) {
    double identity = k == "amax" ? -INFINITY : INFINITY;
    FailureOr<uint32_t> result = b.define(op, op->getResult(0));
    if (failed(result))
      return failure();
    b.emit(fb::Opcode::Fill, {}, {*result}).floats = {identity};
    return success();
  }
  return simple(op, b, fb::Opcode::Reduce, kind, std::move(reduced));
}

int64_t normDim(int64_t dim, int64_t rank) {
  return dim < 0 ? dim + rank : dim;
}

LogicalResult lowerSlice(SliceOp op, ProgramBuilder &b) {
  std::vector<int64_t> shape = b.operandShape(op, 0);
  std::vector<int64_t> start, step;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t s = op.getStart()[d];
    if (s < 0)
      s += shape[d];
    start.push_back(std::clamp<int64_t>(s, 0, shape[d]));
    step.push_back(op.getStep() ? (*op.getStep())[d] : 1);
  }
  // An empty result may start at the end; the runtime only needs in-range
  // starts for non-empty dims. A dim of one element reads its start alone,
  // whatever the step (which the runtime bounds by 2^40).
  std::vector<int64_t> out = b.shapeOf(op.getResult());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (out[d] == 0)
      start[d] = 0;
    if (out[d] <= 1)
      step[d] = 1;
  }
  std::vector<int64_t> ints = start;
  ints.insert(ints.end(), step.begin(), step.end());
  return simple(op, b, fb::Opcode::Slice, "", ints);
}

/// The runtime instruction of an elementwise function's name
/// (shardrt/artifact/ElementwiseFunctions.def), if it is one.
std::optional<fb::Opcode> elementwiseOpcode(StringRef name) {
#define SHARDRT_UNARY_FUNCTION(fn, kind, call)                                 \
  if (name == #fn)                                                             \
    return fb::Opcode::Unary;
#define SHARDRT_BINARY_FUNCTION(fn, kind, call)                                \
  if (name == #fn)                                                             \
    return fb::Opcode::Binary;
#include "shardrt/artifact/ElementwiseFunctions.def"
  return std::nullopt;
}

} // namespace

LogicalResult lowerOp(Operation *op, ProgramBuilder &b) {
  b.currentOp = op->getName().getStringRef().str();
  b.currentLoc = op->getLoc();
  // An sc op named as one of the runtime's Unary or Binary functions is
  // that instruction (gelu's tanh form is named by its attribute).
  StringRef fn = op->getName().stripDialect();
  if (std::optional<fb::Opcode> opcode = elementwiseOpcode(fn);
      opcode && isa<ScDialect>(op->getDialect()) && !isa<GeluOp>(op))
    return simple(op, b, *opcode, fn.str());
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](GeluOp g) {
        return simple(op, b, fb::Opcode::Unary,
                      g.getApproximate() == "tanh" ? "gelu_tanh" : "gelu");
      })
      .Case([&](CompareOp c) {
        return simple(op, b, fb::Opcode::Compare, c.getPredicate().str());
      })
      .Case([&](SelectOp) { return simple(op, b, fb::Opcode::Select); })
      .Case([&](CastOp) { return simple(op, b, fb::Opcode::Cast); })
      .Case([&](MatmulOp) { return simple(op, b, fb::Opcode::Matmul); })
      .Case([&](LinearOp) { return simple(op, b, fb::Opcode::Linear); })
      .Case([&](ConvOp c) { return lowerConv(op, b, false, c.getGroups()); })
      .Case([&](ConvTransposeOp c) {
        return lowerConv(op, b, true, c.getGroups());
      })
      .Case([&](MaxPoolOp) { return lowerPool(op, b, true, false, 0); })
      .Case([&](AvgPoolOp p) {
        return lowerPool(
            op, b, false, p.getCountIncludePad(),
            p.getDivisorOverride() ? int64_t(*p.getDivisorOverride()) : 0);
      })
      .Case([&](InterpolateOp i) { return lowerInterpolate(i, b); })
      .Case([&](PadOp p) { return lowerPad(p, b); })
      .Case([&](NeighborhoodAttentionOp n) { return lowerNeighborhood(n, b); })
      .Case([&](ScaledDotProductAttentionOp s) { return lowerSdpa(s, b); })
      .Case([&](SumOp s) { return lowerReduction(op, b, "sum", s.getDims()); })
      .Case(
          [&](MeanOp s) { return lowerReduction(op, b, "mean", s.getDims()); })
      .Case(
          [&](AmaxOp s) { return lowerReduction(op, b, "amax", s.getDims()); })
      .Case(
          [&](AminOp s) { return lowerReduction(op, b, "amin", s.getDims()); })
      .Case([&](SoftmaxOp s) {
        return simple(op, b, fb::Opcode::Softmax, "",
                      {normDim(int64_t(s.getDim()), rankOf(s.getInput())), 0});
      })
      .Case([&](LogSoftmaxOp s) {
        return simple(op, b, fb::Opcode::Softmax, "",
                      {normDim(int64_t(s.getDim()), rankOf(s.getInput())), 1});
      })
      .Case<CumsumOp, CumprodOp, CummaxOp, CumminOp, LogcumsumexpOp>(
          [&](Operation *c) {
            CumulativeScan scan = *getCumulativeScan(c);
            if (!scan.dim) // a scalar is its own scan
              return simple(op, b, fb::Opcode::Copy);
            return simple(op, b, fb::Opcode::Scan, scan.kind.str(),
                          {*scan.dim});
          })
      .Case([&](LayerNormOp n) {
        return lowerNorm(n, b, "layer", int64_t(n.getNormalizedShape().size()));
      })
      .Case([&](GroupNormOp n) {
        return lowerNorm(n, b, "group", int64_t(n.getNumGroups()));
      })
      .Case([&](BatchNormOp n) { return lowerNorm(n, b, "batch", 0); })
      .Case([&](ConcatOp c) {
        return simple(op, b, fb::Opcode::Concat, "",
                      {normDim(int64_t(c.getDim()), rankOf(c.getResult()))});
      })
      .Case([&](SliceOp s) { return lowerSlice(s, b); })
      .Case([&](PermuteOp p) {
        std::vector<int64_t> perm;
        for (int64_t d : p.getDims())
          perm.push_back(normDim(d, rankOf(p.getInput())));
        return simple(op, b, fb::Opcode::Permute, "", perm);
      })
      .Case([&](TransposeOp t) {
        int64_t rank = rankOf(t.getInput());
        std::vector<int64_t> perm(rank);
        for (int64_t d = 0; d < rank; ++d)
          perm[d] = d;
        std::swap(perm[normDim(int64_t(t.getDim0()), rank)],
                  perm[normDim(int64_t(t.getDim1()), rank)]);
        return simple(op, b, fb::Opcode::Permute, "", perm);
      })
      .Case(
          [&](BroadcastToOp) { return simple(op, b, fb::Opcode::BroadcastTo); })
      // Same bytes, new shape; at world size 1 the sharding ops are
      // identities too.
      .Case<ReshapeOp, UnsqueezeOp, SqueezeOp, ShardingConstraintOp, ReshardOp>(
          [&](Operation *) { return simple(op, b, fb::Opcode::Copy); })
      .Default([&](Operation *) {
        return op->emitOpError("is not supported by the cpu target yet");
      });
}

} // namespace shardc
