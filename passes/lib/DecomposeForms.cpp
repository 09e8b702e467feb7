//===- DecomposeForms.cpp - sc-decompose-forms ----------------------------===//
//
// PyTorch ops take forms that would each need a sharding rule, windows and a
// runtime variant of their own, and parameterised activations would each need
// a kernel on every backend. Rewritten into core forms before propagation,
// they shard with the rules the core ops already have, and fuse.
//
//===----------------------------------------------------------------------===//

#include "DecomposeForms.h"

#include "shardc/Passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallBitVector.h"

#include <limits>

namespace shardc {
#define GEN_PASS_DEF_SCDECOMPOSEFORMS
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc::sc;
using shardc::detail::replaceKeepingPin;
using shardc::detail::scalar;

void shardc::detail::replaceKeepingPin(Operation *from, Operation *to) {
  if (Attribute pin = from->getAttr(ScDialect::kShardingAttrName))
    to->setAttr(ScDialect::kShardingAttrName, pin);
  from->getResult(0).replaceAllUsesWith(to->getResult(0));
  from->erase();
}

Value shardc::detail::scalar(OpBuilder &b, Location loc, Value like,
                             double value) {

  Type element = cast<RankedTensorType>(like.getType()).getElementType();
  auto type = RankedTensorType::get({}, element);
  return ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, b.getFloatAttr(element, value)));
}

namespace {

/// Replaces `op`, which moves nothing, by its first operand; a pin on its
/// result still holds, as a constraint.
void replaceByInput(Operation *op) {
  Value same = op->getOperand(0);
  if (auto pin =
          op->getAttrOfType<ShardingAttr>(ScDialect::kShardingAttrName)) {
    OpBuilder b(op);
    same = ShardingConstraintOp::create(b, op->getLoc(), same.getType(), same,
                                        pin);
  }
  op->getResult(0).replaceAllUsesWith(same);
  op->erase();
}

RankedTensorType withShape(Value value, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(
      shape, cast<RankedTensorType>(value.getType()).getElementType());
}

/// x @ w^T for a 1-D w is x @ (1, in)^T viewed without its last dim; a bias
/// F.linear broadcasts is added after.
void decomposeLinear(LinearOp linear) {
  OpBuilder b(linear);
  Location loc = linear.getLoc();
  Value weight = linear.getWeight();
  ArrayRef<int64_t> w = cast<RankedTensorType>(weight.getType()).getShape();
  bool vector = w.size() == 1;
  if (vector)
    weight = ReshapeOp::create(b, loc, withShape(weight, {1, w[0]}), weight);
  Value bias = linear.getBias();
  bool coreBias = !vector && bias &&
                  cast<RankedTensorType>(bias.getType()).getShape() ==
                      ArrayRef<int64_t>{w[0]};
  Operation *last = LinearOp::create(b, loc, linear.getInput(), weight,
                                     coreBias ? bias : Value());
  if (vector)
    last = ReshapeOp::create(b, loc, linear.getType(), last->getResult(0));
  if (bias && !coreBias)
    last = AddOp::create(b, loc, last->getResult(0), bias);
  replaceKeepingPin(linear, last);
}

/// A rewrite of an elementwise form: a builder at the op, its location and
/// first operand, rank-0 constants of its element type, and comparisons.
struct FormRewriter {
  explicit FormRewriter(Operation *op)
      : b(op), loc(op->getLoc()), x(op->getOperand(0)) {}
  Value constant(double v) { return scalar(b, loc, x, v); }
  Value compare(Value u, Value v, StringRef predicate) {
    return CompareOp::create(b, loc, u, v, b.getStringAttr(predicate));
  }
  Value compare(Value u, double bound, StringRef predicate) {
    return compare(u, constant(bound), predicate);
  }
  OpBuilder b;
  Location loc;
  Value x;
};

/// The parameterised activations as PyTorch's kernels define them, in ops
/// that have sharding rules and fuse: a comparison picks the branch (false
/// on NaN, whose other branch keeps it NaN).
void decomposeActivation(Operation *op) {
  FormRewriter f(op);
  OpBuilder &b = f.b;
  Location loc = f.loc;
  Value x = f.x;
  auto constant = [&](double v) { return f.constant(v); };
  auto greater = [&](Value v, double bound) {
    return f.compare(v, bound, "gt");
  };
  // max(x, low) then min(., high), as torch.clamp: NaN stays NaN.
  auto clampBetween = [&](std::optional<APFloat> low,
                          std::optional<APFloat> high) {
    Value v = x;
    if (low) {
      Value bound = constant(low->convertToDouble());
      v = MaximumOp::create(b, loc, v, bound);
    }
    if (high) {
      Value bound = constant(high->convertToDouble());
      v = MinimumOp::create(b, loc, v, bound);
    }
    return v;
  };
  // One statement per op: the order of the printed IR does not depend on
  // the order in which a compiler evaluates arguments.
  Value y;
  if (auto leaky = dyn_cast<LeakyReluOp>(op)) {
    Value slope = constant(leaky.getNegativeSlope().convertToDouble());
    Value positive = greater(x, 0.0);
    Value scaled = MulOp::create(b, loc, x, slope);
    y = SelectOp::create(b, loc, positive, x, scaled);
  } else if (auto elu = dyn_cast<EluOp>(op)) {
    Value expm1 = Expm1Op::create(b, loc, x);
    Value alpha = constant(elu.getAlpha().convertToDouble());
    Value negative = MulOp::create(b, loc, expm1, alpha);
    Value positive = greater(x, 0.0);
    y = SelectOp::create(b, loc, positive, x, negative);
  } else if (auto softplus = dyn_cast<SoftplusOp>(op)) {
    Value beta = constant(softplus.getBeta().convertToDouble());
    Value scaled = MulOp::create(b, loc, x, beta);
    Value exp = ExpOp::create(b, loc, scaled);
    Value log1pExp = Log1pOp::create(b, loc, exp);
    Value smooth = DivOp::create(b, loc, log1pExp, beta);
    Value linear = greater(scaled, softplus.getThreshold().convertToDouble());
    y = SelectOp::create(b, loc, linear, x, smooth);
  } else if (auto hardtanh = dyn_cast<HardtanhOp>(op)) {
    y = clampBetween(hardtanh.getMinVal(), hardtanh.getMaxVal());
  } else if (isa<HardsigmoidOp, HardswishOp>(op)) {
    // PyTorch's kernels: min(max(x + 3, 0), 6) / 6, times x for hardswish.
    Value three = constant(3.0);
    Value shifted = AddOp::create(b, loc, x, three);
    Value zero = constant(0.0);
    Value floor = MaximumOp::create(b, loc, shifted, zero);
    Value six = constant(6.0);
    Value ramp = MinimumOp::create(b, loc, floor, six);
    if (isa<HardswishOp>(op))
      ramp = MulOp::create(b, loc, x, ramp);
    y = DivOp::create(b, loc, ramp, six);
  } else if (isa<MishOp>(op)) {
    Value exp = ExpOp::create(b, loc, x);
    Value softplus = Log1pOp::create(b, loc, exp);
    Value tanh = TanhOp::create(b, loc, softplus);
    y = MulOp::create(b, loc, x, tanh);
  } else if (isa<SeluOp, CeluOp>(op)) {
    // PyTorch's elu kernel with its coefficients, each rounded to float as
    // the kernel takes them: x > 0 ? x * scale : expm1(x * input_scale) *
    // (alpha * scale); selu has scale 1.0507..., celu input_scale 1 / alpha
    // (computed in double first).
    auto celu = dyn_cast<CeluOp>(op);
    float alpha = celu ? float(celu.getAlpha().convertToDouble())
                       : 1.6732632423543772848170429916717f;
    float scale = celu ? 1.0f : 1.0507009873554804934193349852946f;
    Value inner = x;
    if (celu)
      inner = MulOp::create(
          b, loc, x, constant(float(1.0 / celu.getAlpha().convertToDouble())));
    Value expm1 = Expm1Op::create(b, loc, inner);
    Value negative = MulOp::create(b, loc, expm1, constant(alpha * scale));
    Value linear = x;
    if (!celu)
      linear = MulOp::create(b, loc, x, constant(scale));
    Value positive = greater(x, 0.0);
    y = SelectOp::create(b, loc, positive, linear, negative);
  } else if (isa<LogsigmoidOp>(op)) {
    Value zero = constant(0.0);
    Value low = MinimumOp::create(b, loc, x, zero);
    Value magnitude = AbsOp::create(b, loc, x);
    Value negated = NegOp::create(b, loc, magnitude);
    Value exp = ExpOp::create(b, loc, negated);
    Value log1p = Log1pOp::create(b, loc, exp);
    y = SubOp::create(b, loc, low, log1p);
  } else if (isa<SoftsignOp>(op)) {
    Value magnitude = AbsOp::create(b, loc, x);
    Value one = constant(1.0);
    Value sum = AddOp::create(b, loc, magnitude, one);
    y = DivOp::create(b, loc, x, sum);
  } else if (auto prelu = dyn_cast<PreluOp>(op)) {
    // One slope per channel broadcasts along dim 1: (C) viewed as (C, 1...).
    Value slope = prelu.getWeight();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t c = cast<RankedTensorType>(slope.getType()).getDimSize(0);
    if (type.getRank() >= 2 && c != 1) {
      SmallVector<int64_t> shape(type.getRank() - 1, 1);
      shape[0] = c;
      slope = ReshapeOp::create(
          b, loc, RankedTensorType::get(shape, type.getElementType()), slope);
    } else if (type.getRank() == 0) {
      // A scalar's one slope must not broadcast it to (1).
      slope = ReshapeOp::create(
          b, loc, RankedTensorType::get({}, type.getElementType()), slope);
    }
    Value positive = greater(x, 0.0);
    Value scaled = MulOp::create(b, loc, x, slope);
    y = SelectOp::create(b, loc, positive, x, scaled);
  } else {
    auto clamp = cast<ClampOp>(op);
    y = clampBetween(clamp.getMin(), clamp.getMax());
  }
  replaceKeepingPin(op, y.getDefiningOp());
}

/// Softmax over a scalar's one element: exp(x - x) (1, or NaN where x is
/// not finite, as exp(x - max) / sum gives); log_softmax is x - x.
void decomposeScalarSoftmax(Operation *op) {
  OpBuilder b(op);
  Value x = op->getOperand(0);
  Operation *last = SubOp::create(b, op->getLoc(), x, x);
  if (isa<SoftmaxOp>(op))
    last = ExpOp::create(b, op->getLoc(), last->getResult(0));
  replaceKeepingPin(op, last);
}

/// F.hardshrink, F.softshrink, F.tanhshrink, F.threshold and F.softmin as
/// ATen's kernels compute them: comparisons pick the branch (false on NaN,
/// which the other branch keeps).
void decomposeShrinkForm(Operation *op) {
  FormRewriter f(op);
  OpBuilder &b = f.b;
  Location loc = f.loc;
  Value x = f.x;
  Value y;
  if (auto shrink = dyn_cast<HardshrinkOp>(op)) {
    double lambd = shrink.getLambd().convertToDouble();
    Value inside =
        SelectOp::create(b, loc, f.compare(x, lambd, "le"), f.constant(0.0), x);
    Value above = f.compare(x, -lambd, "ge");
    y = SelectOp::create(b, loc, above, inside, x);
  } else if (auto shrink = dyn_cast<SoftshrinkOp>(op)) {
    double lambd = shrink.getLambd().convertToDouble();
    Value zeroed = MulOp::create(b, loc, x, f.constant(0.0));
    Value low = f.compare(x, -lambd, "lt");
    Value raised = AddOp::create(b, loc, x, f.constant(lambd));
    Value notHigh = SelectOp::create(b, loc, low, raised, zeroed);
    Value lowered = SubOp::create(b, loc, x, f.constant(lambd));
    y = SelectOp::create(b, loc, f.compare(x, lambd, "gt"), lowered, notHigh);
  } else if (isa<TanhshrinkOp>(op)) {
    y = SubOp::create(b, loc, x, TanhOp::create(b, loc, x));
  } else if (auto threshold = dyn_cast<ThresholdOp>(op)) {
    Value at = f.compare(x, threshold.getThreshold().convertToDouble(), "le");
    y = SelectOp::create(b, loc, at,
                         f.constant(threshold.getValue().convertToDouble()), x);
  } else if (auto softmin = dyn_cast<SoftminOp>(op)) {
    Value negated = NegOp::create(b, loc, x);
    auto softmax = SoftmaxOp::create(b, loc, negated, softmin.getDimAttr());
    replaceKeepingPin(op, softmax);
    // A scalar's softmax is no core form: rewritten here, as the pass would.
    if (softmax.getType().getRank() == 0)
      decomposeScalarSoftmax(softmax);
    return;
  }
  replaceKeepingPin(op, y.getDefiningOp());
}

/// torch.square, sign, logaddexp, nan_to_num, isnan, isinf and isfinite as
/// ATen computes them, in comparisons, selects and arithmetic.
void decomposeFloatForm(Operation *op) {
  FormRewriter f(op);
  OpBuilder &b = f.b;
  Location loc = f.loc;
  Value x = f.x;
  const double inf = std::numeric_limits<double>::infinity();
  Operation *last;
  if (isa<SquareOp>(op)) {
    last = MulOp::create(b, loc, x, x);
  } else if (isa<SignOp>(op)) {
    // (0 < x) - (x < 0): both zeros and NaN give 0.
    Value zero = f.constant(0.0);
    Value negative = SelectOp::create(b, loc, f.compare(x, zero, "lt"),
                                      f.constant(-1.0), zero);
    last = SelectOp::create(b, loc, f.compare(x, zero, "gt"), f.constant(1.0),
                            negative);
  } else if (isa<LogaddexpOp>(op)) {
    // max + log1p(exp(-|a - b|)), and a itself where a == b is infinite
    // (the difference would be NaN).
    Value y = op->getOperand(1);
    Value high = MaximumOp::create(b, loc, x, y);
    Value gap = AbsOp::create(b, loc, SubOp::create(b, loc, x, y));
    Value tail = Log1pOp::create(
        b, loc, ExpOp::create(b, loc, NegOp::create(b, loc, gap)));
    Value general = AddOp::create(b, loc, high, tail);
    Value infinite = f.compare(AbsOp::create(b, loc, x), f.constant(inf), "eq");
    Value same = SelectOp::create(b, loc, infinite, x, general);
    last = SelectOp::create(b, loc, f.compare(x, y, "eq"), same, general);
  } else if (auto clean = dyn_cast<NanToNumOp>(op)) {
    auto element =
        cast<FloatType>(cast<RankedTensorType>(x.getType()).getElementType());
    double largest =
        APFloat::getLargest(element.getFloatSemantics()).convertToDouble();
    double posinf =
        clean.getPosinf() ? clean.getPosinf()->convertToDouble() : largest;
    double neginf =
        clean.getNeginf() ? clean.getNeginf()->convertToDouble() : -largest;
    Value low = SelectOp::create(b, loc, f.compare(x, f.constant(-inf), "eq"),
                                 f.constant(neginf), x);
    Value high = SelectOp::create(b, loc, f.compare(x, f.constant(inf), "eq"),
                                  f.constant(posinf), low);
    last = SelectOp::create(b, loc, f.compare(x, x, "ne"),
                            f.constant(clean.getNan().convertToDouble()), high);
  } else if (isa<IsnanOp>(op)) {
    last = f.compare(x, x, "ne").getDefiningOp();
  } else {
    // |x| == inf, or |x| < inf (false for NaN and both infinities).
    Value magnitude = AbsOp::create(b, loc, x);
    last = f.compare(magnitude, f.constant(inf), isa<IsinfOp>(op) ? "eq" : "lt")
               .getDefiningOp();
  }
  replaceKeepingPin(op, last);
}

/// F.pad's circular mode crops first and wraps what is left: a constant
/// pad that only crops, then a circular pad that only grows.
void decomposeCircularCrop(PadOp pad) {
  OpBuilder b(pad);
  Location loc = pad.getLoc();
  // Crops that empty a dim leave nothing to wrap, and an empty result reads
  // nothing: a constant pad of the same amounts gives it (each rank fills
  // its part, which is none).
  if (pad.getType().getNumElements() == 0) {
    Operation *empty =
        PadOp::create(b, loc, pad.getInput(), pad.getPadAttr(),
                      b.getStringAttr("constant"), b.getF64FloatAttr(0.0));
    return replaceKeepingPin(pad, empty);
  }
  SmallVector<int64_t> crop, wrap;
  for (int64_t v : pad.getPad()) {
    crop.push_back(std::min<int64_t>(v, 0));
    wrap.push_back(std::max<int64_t>(v, 0));
  }
  Operation *last =
      PadOp::create(b, loc, pad.getInput(), b.getDenseI64ArrayAttr(crop),
                    b.getStringAttr("constant"), b.getF64FloatAttr(0.0));
  if (llvm::any_of(wrap, [](int64_t v) { return v > 0; }))
    last =
        PadOp::create(b, loc, last->getResult(0), b.getDenseI64ArrayAttr(wrap),
                      b.getStringAttr("circular"), pad.getValueAttr());
  replaceKeepingPin(pad, last);
}

/// torch.var's two passes: the mean, then the squared deviations' sum over
/// max(0, N - correction), which is inf or NaN with no degrees of freedom
/// left, as in PyTorch.
void decomposeVariance(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  auto var = dyn_cast<VarOp>(op);
  auto stdev = dyn_cast<StdOp>(op);
  Value x = op->getOperand(0);
  DenseI64ArrayAttr dims = var ? var.getDimsAttr() : stdev.getDimsAttr();
  bool keepdim = var ? var.getKeepdim() : stdev.getKeepdim();
  double correction =
      (var ? var.getCorrection() : stdev.getCorrection()).convertToDouble();
  ArrayRef<int64_t> shape = cast<RankedTensorType>(x.getType()).getShape();
  int64_t rank = shape.size();
  llvm::SmallBitVector reduced(rank, !dims || dims.empty());
  if (dims && rank > 0) // a rank-0 input's dim 0 is its one element
    for (int64_t dim : dims.asArrayRef())
      reduced.set(*normalizeDim(dim, rank));
  double count = 1;
  for (int64_t d = 0; d < rank; ++d)
    if (reduced.test(d))
      count *= static_cast<double>(shape[d]);
  Value mean = MeanOp::create(b, loc, x, dims, b.getBoolAttr(true));
  Value deviation = SubOp::create(b, loc, x, mean);
  Value square = MulOp::create(b, loc, deviation, deviation);
  Value sum = SumOp::create(b, loc, square, dims, b.getBoolAttr(keepdim));
  Value dof = scalar(b, loc, x, std::max(0.0, count - correction));
  Operation *last = DivOp::create(b, loc, sum, dof);
  if (count > 0 && count - correction <= 0) {
    // No degrees of freedom left: PyTorch gives NaN where the deviations
    // are all 0 (0 / 0) and inf elsewhere. A mean merged across ranks may
    // be an ulp off equal values, so "all equal" is max == min, which is
    // exact however the dims are split; NaN inputs still give NaN (their
    // sum is NaN and max == min is false).
    Value high = AmaxOp::create(b, loc, x, dims, b.getBoolAttr(keepdim));
    Value low = AminOp::create(b, loc, x, dims, b.getBoolAttr(keepdim));
    Value equal = CompareOp::create(b, loc, high, low, b.getStringAttr("eq"));
    Value nan = scalar(b, loc, x, std::numeric_limits<double>::quiet_NaN());
    last = SelectOp::create(b, loc, equal, nan, last->getResult(0));
  }
  if (stdev)
    last = SqrtOp::create(b, loc, last->getResult(0));
  replaceKeepingPin(op, last);
}

/// An instance norm is a group norm with a group per channel.
void decomposeInstanceNorm(InstanceNormOp norm) {
  OpBuilder b(norm);
  int64_t channels = norm.getType().getDimSize(1);
  // No channel, no group (and no element): the input is the result.
  if (channels == 0)
    return replaceByInput(norm);
  Operation *group =
      GroupNormOp::create(b, norm.getLoc(), norm.getInput(), norm.getAffine(),
                          b.getI64IntegerAttr(channels), norm.getEpsAttr());
  replaceKeepingPin(norm, group);
}

/// torch.roll as windows: out[i] = in[(i - s) mod n] is a circular pad of s
/// on the low side cropped by s on the high side, or, the shorter way round
/// for s > n / 2, a circular pad of n - s on the high side cropped on the
/// low side. One pad of each kind covers every rolled dim.
void decomposeRoll(RollOp roll) {
  OpBuilder b(roll);
  Location loc = roll.getLoc();
  Value input = roll.getInput();
  auto type = cast<RankedTensorType>(input.getType());
  std::optional<ArrayRef<int64_t>> dims = roll.getDims();
  bool flatten = !dims || dims->empty();
  // Flattened, the tensor is one dim of all its elements.
  SmallVector<int64_t> shape(type.getShape());
  if (flatten)
    shape.assign(1, type.getNumElements());
  int64_t rank = shape.size();
  SmallVector<int64_t> net(rank, 0);
  for (auto [k, shift] : llvm::enumerate(roll.getShifts())) {
    if (rank == 0)
      break;
    int64_t d = flatten ? 0 : *normalizeDim((*dims)[k], rank);
    if (int64_t n = shape[d])
      net[d] = (net[d] + (shift % n + n) % n) % n;
  }
  // An empty tensor has nothing to move (and no dim a circular pad takes).
  if (type.getNumElements() == 0 ||
      llvm::all_of(net, [](int64_t s) { return s == 0; }))
    return replaceByInput(roll);
  // F.pad lists amounts from the last dim backwards.
  SmallVector<int64_t> wrap(2 * rank, 0), crop(2 * rank, 0);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t s = net[d], n = shape[d], lo = 2 * (rank - 1 - d), hi = lo + 1;
    if (s == 0)
      continue;
    if (s <= n - s) {
      wrap[lo] = s;
      crop[hi] = -s;
    } else {
      wrap[hi] = n - s;
      crop[lo] = -(n - s);
    }
  }
  Value x = input;
  if (flatten && type.getRank() != 1)
    x = ReshapeOp::create(b, loc, withShape(x, shape), x);
  Operation *last =
      PadOp::create(b, loc, x, b.getDenseI64ArrayAttr(wrap),
                    b.getStringAttr("circular"), b.getF64FloatAttr(0.0));
  last = PadOp::create(b, loc, last->getResult(0), b.getDenseI64ArrayAttr(crop),
                       b.getStringAttr("constant"), b.getF64FloatAttr(0.0));
  if (x != input)
    last = ReshapeOp::create(b, loc, roll.getType(), last->getResult(0));
  replaceKeepingPin(roll, last);
}

/// torch.flip as a window: a reflect pad of n - 1 in front, cropped by as
/// much behind, reads out[i] = in[n - 1 - i].
void decomposeFlip(FlipOp flip) {
  auto type = cast<RankedTensorType>(flip.getInput().getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> mirror(2 * rank, 0);
  bool moves = false;
  for (int64_t dim : flip.getDims()) {
    int64_t d = *normalizeDim(dim, rank), n = type.getDimSize(d);
    if (n < 2)
      continue;
    // F.pad lists amounts from the last dim backwards.
    mirror[2 * (rank - 1 - d)] = n - 1;
    mirror[2 * (rank - 1 - d) + 1] = -(n - 1);
    moves = true;
  }
  if (!moves || type.getNumElements() == 0)
    return replaceByInput(flip);
  OpBuilder b(flip);
  Operation *pad = PadOp::create(
      b, flip.getLoc(), flip.getInput(), b.getDenseI64ArrayAttr(mirror),
      b.getStringAttr("reflect"), b.getF64FloatAttr(0.0));
  replaceKeepingPin(flip, pad);
}

/// F.pixel_shuffle as reshape, permute, reshape: (*, C, r, r, H, W) ->
/// (*, C, H, r, W, r) -> (*, C, H * r, W * r); unshuffle the other way. The
/// reshapes keep a split of H on whole rows, so neither moves data.
void decomposePixelShuffle(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value x = op->getOperand(0);
  bool shuffle = isa<PixelShuffleOp>(op);
  int64_t r = shuffle ? cast<PixelShuffleOp>(op).getFactor()
                      : cast<PixelUnshuffleOp>(op).getFactor();
  // The (C, H, W) of the side whose channels are not multiplied by r * r.
  auto plain =
      cast<RankedTensorType>((shuffle ? op->getResult(0) : x).getType());
  ArrayRef<int64_t> full = plain.getShape();
  int64_t nb = full.size() - 3, c = full[nb], h = full[nb + 1] / r,
          w = full[nb + 2] / r;
  SmallVector<int64_t> stacked(full.take_front(nb)), interleaved = stacked,
                                                     perm;
  stacked.append({c, r, r, h, w});
  interleaved.append({c, h, r, w, r});
  for (int64_t d = 0; d < nb; ++d)
    perm.push_back(d);
  // Shuffle: (c, i, j, h, w) -> (c, h, i, w, j); unshuffle the inverse.
  static constexpr int64_t kShuffle[] = {0, 3, 1, 4, 2};
  static constexpr int64_t kUnshuffle[] = {0, 2, 4, 1, 3};
  ArrayRef<int64_t> order = shuffle ? kShuffle : kUnshuffle;
  for (int64_t o : order)
    perm.push_back(nb + o);
  Value view = ReshapeOp::create(
      b, loc, withShape(x, shuffle ? stacked : interleaved), x);
  Value moved = PermuteOp::create(b, loc, view, b.getDenseI64ArrayAttr(perm));
  Operation *last =
      ReshapeOp::create(b, loc, op->getResult(0).getType(), moved);
  replaceKeepingPin(op, last);
}

struct DecomposeForms
    : public shardc::impl::ScDecomposeFormsBase<DecomposeForms> {
  void runOnOperation() override {
    SmallVector<Operation *> todo;
    getOperation().walk([&](Operation *op) {
      if (!isCoreForm(op))
        todo.push_back(op);
    });
    for (Operation *op : todo) {
      if (auto linear = dyn_cast<LinearOp>(op))
        decomposeLinear(linear);
      else if (auto pad = dyn_cast<PadOp>(op))
        decomposeCircularCrop(pad);
      else if (isa<VarOp, StdOp>(op))
        decomposeVariance(op);
      else if (isa<SoftmaxOp, LogSoftmaxOp>(op))
        decomposeScalarSoftmax(op);
      else if (isa<SquareOp, SignOp, LogaddexpOp, NanToNumOp, IsnanOp, IsinfOp,
                   IsfiniteOp>(op))
        decomposeFloatForm(op);
      else if (isa<HardshrinkOp, SoftshrinkOp, TanhshrinkOp, ThresholdOp,
                   SoftminOp>(op))
        decomposeShrinkForm(op);
      else if (auto norm = dyn_cast<InstanceNormOp>(op))
        decomposeInstanceNorm(norm);
      else if (auto roll = dyn_cast<RollOp>(op))
        decomposeRoll(roll);
      else if (auto flip = dyn_cast<FlipOp>(op))
        decomposeFlip(flip);
      else if (isa<PixelShuffleOp, PixelUnshuffleOp>(op))
        decomposePixelShuffle(op);
      else if (isa<LogsumexpOp, VectorNormOp, NormalizeOp, GluOp,
                   AdaptiveAvgPoolOp, AdaptiveMaxPoolOp, RmsNormOp, ProdOp>(op))
        shardc::detail::decomposeReductionForm(op);
      else if (auto einsum = dyn_cast<EinsumOp>(op))
        shardc::detail::decomposeEinsum(einsum);
      else if (isa<ArgmaxOp, ArgminOp, MaxOp, MinOp>(op)) {
        if (failed(shardc::detail::decomposeArgExtreme(op)))
          return signalPassFailure();
      } else if (isa<FftOp, IfftOp, RfftOp, IrfftOp>(op)) {
        if (failed(shardc::detail::decomposeSpectral(op)))
          return signalPassFailure();
      } else
        decomposeActivation(op);
    }
  }
};

} // namespace
