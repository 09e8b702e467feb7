//===- PrepareWindowed.cpp - conv, pool, interpolate, pad, NA -------------===//

#include "Prepare.h"
#include "shardrt/artifact/Artifact.h"
#include "shardrt/cpu/Kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace shardrt::exec {
namespace {

using fb::DType;
using fb::Opcode;

/// Window parameters are bounded so that no index arithmetic in a kernel can
/// overflow int64 (extents are < 2^40 by the slot-size checks).
constexpr int64_t kMaxParam = int64_t(1) << 30;

Status checkRange(const std::vector<int64_t> &v, int64_t lo, const char *what) {
  for (int64_t x : v)
    if (x < lo || x > kMaxParam)
      return invalid(std::string(what) + " " + std::to_string(x) +
                     " is out of range [" + std::to_string(lo) + ", 2^30]");
  return Status();
}

/// Reads the spatial rank r and checks the (N, C, S...) operand shapes.
StatusOr<int> spatialRank(IntReader &ints, const Shape &x, const Shape &y) {
  int64_t r = ints.next();
  if (r < 1 || r > 3)
    return invalid("spatial rank " + std::to_string(r) + " (1 to 3)");
  if (x.size() != size_t(r) + 2 || y.size() != size_t(r) + 2)
    return invalid("a " + std::to_string(r) + "-d window op needs (N, C, " +
                   "spatial...) operands; got " + shapeStr(x) + " -> " +
                   shapeStr(y));
  return int(r);
}

void copyTo(int64_t *dst, const std::vector<int64_t> &src) {
  for (size_t i = 0; i < src.size(); ++i)
    dst[i] = src[i];
}

StatusOr<RunFn> prepareConv(const fb::Instruction &inst,
                            const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(ConvStep c, decodeConv(inst, ctx));
  return RunFn([=](RunContext &rc) {
    const float *bias = optionalSlot(rc, c.bias);
    if (c.transposed)
      cpu::convTranspose(c.params, slotPtr<float>(rc, c.x),
                         slotPtr<float>(rc, c.w), bias,
                         slotPtr<float>(rc, c.y));
    else
      cpu::conv(c.params, rc.slots[c.x], c.xType, slotPtr<float>(rc, c.w), bias,
                slotPtr<float>(rc, c.y));
    return Status();
  });
}

StatusOr<RunFn> preparePool(const fb::Instruction &inst,
                            const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(PoolStep p, decodePool(inst, ctx));
  return RunFn([=](RunContext &rc) {
    if (p.isMax)
      cpu::maxPool(p.params, slotPtr<float>(rc, p.x), slotPtr<float>(rc, p.y));
    else
      cpu::avgPool(p.params, slotPtr<float>(rc, p.x), slotPtr<float>(rc, p.y));
    return Status();
  });
}

} // namespace

StatusOr<ConvStep> decodeConv(const fb::Instruction &inst,
                              const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 2, 3, 1));
  bool transposed = inst.opcode() == Opcode::ConvTranspose;
  // A Conv's input may be bf16 or f16: im2col widens it as it packs.
  DType xType = inSlot(inst, ctx, 0).dtype;
  bool halfInput = !transposed && (xType == DType::BF16 || xType == DType::F16);
  if (halfInput)
    for (size_t i = 1; i < numInputs(inst); ++i)
      SHARDRT_RETURN_IF_ERROR(requireDType(inSlot(inst, ctx, i), DType::F32,
                                           "input " + std::to_string(i)));
  SHARDRT_RETURN_IF_ERROR(
      halfInput ? requireDType(outSlot(inst, ctx, 0), DType::F32, "the output")
                : requireF32(inst, ctx));
  const Shape &x = inSlot(inst, ctx, 0).shape, &w = inSlot(inst, ctx, 1).shape,
              &y = outSlot(inst, ctx, 0).shape;
  IntReader ints(inst);
  SHARDRT_ASSIGN_OR_RETURN(int r, spatialRank(ints, x, y));
  std::vector<int64_t> stride = ints.next(r), padLo = ints.next(r),
                       dilation = ints.next(r);
  int64_t groups = ints.next();
  // Optional (Conv only): the output box this instruction computes.
  std::vector<int64_t> regionLo, regionHi;
  if (!transposed && ints.size() == size_t(5 * r + 2)) {
    regionLo = ints.next(r);
    regionHi = ints.next(r);
  }
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  SHARDRT_RETURN_IF_ERROR(checkRange(stride, 1, "stride"));
  SHARDRT_RETURN_IF_ERROR(checkRange(padLo, 0, "padding"));
  SHARDRT_RETURN_IF_ERROR(checkRange(dilation, 1, "dilation"));
  cpu::ConvParams p;
  p.rank = r;
  p.n = x[0];
  p.cin = x[1];
  p.cout = y[1];
  p.groups = groups;
  if (groups < 1 || p.cin % groups || p.cout % groups)
    return invalid(std::to_string(groups) + " groups do not divide " +
                   std::to_string(p.cin) + " input and " +
                   std::to_string(p.cout) + " output channels");
  Shape wExpected = transposed ? Shape{p.cin, p.cout / groups}
                               : Shape{p.cout, p.cin / groups};
  for (int d = 0; d < r; ++d)
    wExpected.push_back(w.size() == size_t(r) + 2 ? w[d + 2] : 0);
  if (w != wExpected || y[0] != p.n)
    return invalid("weight " + shapeStr(w) + " does not fit input " +
                   shapeStr(x) + " and output " + shapeStr(y));
  for (int d = 0; d < r; ++d) {
    p.in[d] = x[d + 2];
    p.out[d] = y[d + 2];
    p.kernel[d] = w[d + 2];
  }
  SHARDRT_RETURN_IF_ERROR(
      checkRange(Shape(p.kernel, p.kernel + r), 1, "kernel size"));
  copyTo(p.stride, stride);
  copyTo(p.padLo, padLo);
  copyTo(p.dilation, dilation);
  for (int d = 0; d < int(regionLo.size()); ++d) {
    if (regionLo[d] < 0 || regionLo[d] > regionHi[d] || regionHi[d] > p.out[d])
      return invalid("the output region [" + std::to_string(regionLo[d]) +
                     ", " + std::to_string(regionHi[d]) + ") of spatial dim " +
                     std::to_string(d) + " is not inside [0, " +
                     std::to_string(p.out[d]) + ")");
    p.regionLo[d] = regionLo[d];
    p.regionHi[d] = regionHi[d];
  }
  // BLAS takes 32-bit sizes: the per-channel volumes and channel products
  // must fit.
  SHARDRT_RETURN_IF_ERROR(requireBlasDims(
      {numElements(Shape(x.begin() + 2, x.end())),
       numElements(Shape(y.begin() + 2, y.end())), numElements(w)},
      "a convolution"));
  if (numInputs(inst) == 3 && inSlot(inst, ctx, 2).shape != Shape{p.cout})
    return invalid("the bias has shape " +
                   shapeStr(inSlot(inst, ctx, 2).shape));
  ConvStep step;
  step.params = p;
  step.transposed = transposed;
  step.hasRegion = !regionLo.empty();
  step.x = inIdx(inst, 0);
  step.w = inIdx(inst, 1);
  step.y = outIdx(inst, 0);
  if (halfInput)
    step.xType =
        xType == DType::BF16 ? cpu::ElemType::BF16 : cpu::ElemType::F16;
  if (numInputs(inst) == 3)
    step.bias = inIdx(inst, 2);
  return step;
}

StatusOr<PoolStep> decodePool(const fb::Instruction &inst,
                              const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 1, 1));
  SHARDRT_RETURN_IF_ERROR(requireF32(inst, ctx));
  const Shape &x = inSlot(inst, ctx, 0).shape, &y = outSlot(inst, ctx, 0).shape;
  std::string kind = strAttr(inst);
  if (kind != "max" && kind != "avg")
    return invalid("unknown pooling '" + kind + "'");
  IntReader ints(inst);
  SHARDRT_ASSIGN_OR_RETURN(int r, spatialRank(ints, x, y));
  std::vector<int64_t> kernel = ints.next(r), stride = ints.next(r),
                       padLo = ints.next(r), padHi = ints.next(r),
                       dilation = ints.next(r);
  cpu::PoolParams p;
  p.countIncludePad = ints.next() != 0;
  p.divisorOverride = ints.next();
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  SHARDRT_RETURN_IF_ERROR(checkRange(kernel, 1, "kernel size"));
  SHARDRT_RETURN_IF_ERROR(checkRange(stride, 1, "stride"));
  SHARDRT_RETURN_IF_ERROR(checkRange(padLo, 0, "padding"));
  SHARDRT_RETURN_IF_ERROR(checkRange(padHi, 0, "padding"));
  SHARDRT_RETURN_IF_ERROR(checkRange(dilation, 1, "dilation"));
  if (p.divisorOverride < 0 || p.divisorOverride > kMaxParam)
    return invalid("divisor_override " + std::to_string(p.divisorOverride));
  if (x[0] != y[0] || x[1] != y[1])
    return invalid("pooling changes the batch or channels: " + shapeStr(x) +
                   " -> " + shapeStr(y));
  // The max-pool kernel visits every tap of a window, so the window must be
  // bounded by the input: a window starts inside the input or its padding
  // and (ceil mode) overhangs the padding by less than a stride (PyTorch's
  // pooling_output_shape). The kernel volume bound keeps the kernels' tap
  // counts and divisors within int64.
  int64_t volume = 1;
  for (int d = 0; d < r; ++d) {
    int64_t span = (kernel[d] - 1) * dilation[d] + 1;
    if (y[d + 2] > 0 && span > padLo[d] + x[d + 2] + padHi[d] + stride[d] - 1)
      return invalid("the pooling window of spatial dim " + std::to_string(d) +
                     " (" + std::to_string(span) +
                     " elements) is wider than the padded input");
    // At most one window past the last full one (ceil mode), so that the
    // kernels' o * stride stays far from overflow.
    int64_t room = padLo[d] + x[d + 2] + padHi[d] - span;
    if (y[d + 2] > std::max<int64_t>(room, 0) / stride[d] + 2)
      return invalid(
          "spatial dim " + std::to_string(d) + " has " +
          std::to_string(y[d + 2]) +
          " pooling windows; the padded input holds at most " +
          std::to_string(std::max<int64_t>(room, 0) / stride[d] + 2));
    volume *= kernel[d];
    if (volume > (int64_t(1) << 40))
      return invalid("the pooling kernel has more than 2^40 taps");
  }
  p.rank = r;
  p.channels = x[0] * x[1];
  for (int d = 0; d < r; ++d) {
    p.in[d] = x[d + 2];
    p.out[d] = y[d + 2];
  }
  copyTo(p.kernel, kernel);
  copyTo(p.stride, stride);
  copyTo(p.padLo, padLo);
  copyTo(p.padHi, padHi);
  copyTo(p.dilation, dilation);
  PoolStep step;
  step.params = p;
  step.isMax = kind == "max";
  step.x = inIdx(inst, 0);
  step.y = outIdx(inst, 0);
  return step;
}

StatusOr<InterpolateStep> decodeInterpolate(const fb::Instruction &inst,
                                            const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 1, 1));
  const Shape &x = inSlot(inst, ctx, 0).shape, &y = outSlot(inst, ctx, 0).shape;
  std::string mode = strAttr(inst);
  // The nearest modes only gather: bf16 and f16 stay as they are.
  DType dtype = inSlot(inst, ctx, 0).dtype;
  bool half = (dtype == DType::BF16 || dtype == DType::F16) &&
              mode != "linear" && outSlot(inst, ctx, 0).dtype == dtype;
  if (!half)
    SHARDRT_RETURN_IF_ERROR(requireF32(inst, ctx));
  cpu::InterpMode m;
  if (mode == "nearest")
    m = cpu::InterpMode::Nearest;
  else if (mode == "nearest-exact")
    m = cpu::InterpMode::NearestExact;
  else if (mode == "linear")
    m = cpu::InterpMode::Linear;
  else
    return invalid("unknown interpolation mode '" + mode + "'");
  IntReader ints(inst);
  SHARDRT_ASSIGN_OR_RETURN(int r, spatialRank(ints, x, y));
  cpu::InterpParams p;
  p.rank = r;
  p.alignCorners = ints.next() != 0;
  std::vector<int64_t> outOffset = ints.next(r), inOffset = ints.next(r),
                       inGlobal = ints.next(r);
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  std::vector<double> scale = floatAttrs(inst);
  if (scale.size() != size_t(r))
    return invalid("needs " + std::to_string(r) + " scales");
  if (x[0] != y[0] || x[1] != y[1])
    return invalid("interpolation changes the batch or channels");
  SHARDRT_RETURN_IF_ERROR(checkRange(outOffset, 0, "output offset"));
  SHARDRT_RETURN_IF_ERROR(checkRange(inOffset, 0, "input offset"));
  SHARDRT_RETURN_IF_ERROR(checkRange(inGlobal, 1, "global input size"));
  p.channels = x[0] * x[1];
  for (int d = 0; d < r; ++d) {
    p.in[d] = x[d + 2];
    p.out[d] = y[d + 2];
    p.scale[d] = scale[d];
    if (!std::isfinite(scale[d]) || scale[d] < 0 || scale[d] > kMaxParam)
      return invalid("coordinate scale " + std::to_string(scale[d]));
    if (p.in[d] < 1 && p.out[d] > 0)
      return invalid("interpolates from an empty input");
  }
  copyTo(p.outOffset, outOffset);
  copyTo(p.inOffset, inOffset);
  copyTo(p.inGlobal, inGlobal);
  return InterpolateStep{m, p, half};
}

namespace {

StatusOr<RunFn> prepareInterpolate(const fb::Instruction &inst,
                                   const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(InterpolateStep step, decodeInterpolate(inst, ctx));
  cpu::InterpMode m = step.mode;
  cpu::InterpParams p = step.params;
  uint32_t xi = inIdx(inst, 0), yi = outIdx(inst, 0);
  if (step.halfFloats)
    return RunFn([=](RunContext &rc) {
      cpu::interpolateNearest(m, p, rc.slots[xi], rc.slots[yi], 2);
      return Status();
    });
  return RunFn([=](RunContext &rc) {
    cpu::interpolate(m, p, slotPtr<float>(rc, xi), slotPtr<float>(rc, yi));
    return Status();
  });
}

StatusOr<RunFn> preparePad(const fb::Instruction &inst,
                           const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 1, 1));
  const SlotInfo &in = inSlot(inst, ctx, 0), &out = outSlot(inst, ctx, 0);
  bool half = in.dtype == DType::BF16 || in.dtype == DType::F16;
  bool index = in.dtype == DType::I64; // argmax/argmin indices, moved
  if (in.dtype != out.dtype ||
      (in.dtype != DType::F32 && in.dtype != DType::I1 && !half && !index))
    return Status::unimplemented("pad of " +
                                 std::string(fb::EnumNameDType(in.dtype)) +
                                 " to " + fb::EnumNameDType(out.dtype));
  std::string mode = strAttr(inst);
  SHARDRT_ASSIGN_OR_RETURN(cpu::PadMode m, padMode(mode));
  size_t rank = in.shape.size();
  IntReader ints(inst);
  std::vector<int64_t> lo = ints.next(rank), hi = ints.next(rank);
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  std::vector<double> value = floatAttrs(inst);
  if (value.size() != 1)
    return invalid("needs one fill value");
  // A 16-bit pad fills with +0.0, whose pattern is zero bytes; others compute
  // in f32 (sc-compute-in-f32).
  if (half && (value[0] != 0.0 || std::signbit(value[0])))
    return Status::unimplemented("pad of " +
                                 std::string(fb::EnumNameDType(in.dtype)) +
                                 " with a fill other than +0.0");
  // An int64 pad (a reshard's shift of indices) fills with zeros.
  if (index && (value[0] != 0.0 || std::signbit(value[0])))
    return Status::unimplemented("pad of I64 with a fill other than +0.0");
  Shape expected = in.shape;
  for (size_t d = 0; d < rank; ++d) {
    int64_t n = in.shape[d];
    // Not std::abs: INT64_MIN has no absolute value.
    if (lo[d] < -kMaxParam || lo[d] > kMaxParam || hi[d] < -kMaxParam ||
        hi[d] > kMaxParam)
      return invalid("padding amount out of range");
    expected[d] = n + lo[d] + hi[d];
    if (expected[d] < 0)
      return invalid("crops more than dim " + std::to_string(d) + " holds");
    // Only a dim that grows reflects: a shard may be empty along a dim
    // padded on some other rank only.
    bool tooWide =
        (m == cpu::PadMode::Reflect &&
         ((lo[d] > 0 && lo[d] >= n) || (hi[d] > 0 && hi[d] >= n))) ||
        ((m == cpu::PadMode::Circular || m == cpu::PadMode::Replicate) &&
         (lo[d] > 0 || hi[d] > 0) && n == 0) ||
        (m == cpu::PadMode::Circular &&
         (lo[d] > n + std::min<int64_t>(hi[d], 0) ||
          hi[d] > n + std::min<int64_t>(lo[d], 0)));
    if (tooWide)
      return invalid(mode + " padding of " + std::to_string(lo[d]) + "/" +
                     std::to_string(hi[d]) + " is too wide for dim " +
                     std::to_string(d) + " of size " + std::to_string(n));
  }
  SHARDRT_RETURN_IF_ERROR(requireShape(out, expected, "the output"));
  Shape xs = in.shape;
  size_t bytes = artifact::dtypeSize(in.dtype);
  bool isFloat = in.dtype == DType::F32;
  double v = value[0];
  uint32_t xi = inIdx(inst, 0), yi = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) {
    cpu::pad(rc.slots[xi], xs, lo, hi, m, v, rc.slots[yi], bytes, isFloat);
    return Status();
  });
}

} // namespace

StatusOr<cpu::PadMode> padMode(const std::string &name) {
  if (name == "constant")
    return cpu::PadMode::Constant;
  if (name == "reflect")
    return cpu::PadMode::Reflect;
  if (name == "replicate")
    return cpu::PadMode::Replicate;
  if (name == "circular")
    return cpu::PadMode::Circular;
  return invalid("unknown padding mode '" + name + "'");
}

StatusOr<RunFn> prepareWindowed(const fb::Instruction &inst,
                                const PrepareContext &ctx) {
  switch (inst.opcode()) {
  case Opcode::Conv:
  case Opcode::ConvTranspose:
    return prepareConv(inst, ctx);
  case Opcode::Pool:
    return preparePool(inst, ctx);
  case Opcode::Interpolate:
    return prepareInterpolate(inst, ctx);
  case Opcode::Pad:
    return preparePad(inst, ctx);
  default:
    return unsupportedOpcode(inst);
  }
}

} // namespace shardrt::exec
