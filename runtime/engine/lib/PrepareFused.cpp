//===- PrepareFused.cpp - Fused elementwise bodies on the CPU -------------===//
//
// An ElementwiseFused instruction carries its body (and, from the CUDA
// target, also a generated kernel, which this backend ignores): `str` lists the
// steps' functions (Unary and Binary modes, space separated) and `ints` each
// step's operand registers, then the register the output takes. Registers
// 0..n-1 are the inputs, read at the output index (broadcast, numpy rules);
// register n+i is step i's result.
//
// The body runs tile by tile: each step applies the CPU kernel of its mode to
// a tile of registers that stays in cache, so the chain reads its inputs and
// writes its output once, as a generated kernel would.
//
//===----------------------------------------------------------------------===//

#include "Prepare.h"
#include "shardrt/cpu/Kernels.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace shardrt::exec {
namespace {

constexpr int64_t kTile = 2048;

struct Step {
  bool binary = false;
  cpu::UnaryKind unary{};
  cpu::BinaryKind binaryKind{};
  int64_t a = 0, b = 0; ///< operand registers
};

/// How an input is read at the output's flat index: directly when it has
/// the output's shape, else through strides that are 0 on broadcast dims.
struct InputRead {
  uint32_t slot = 0;
  bool direct = false;
  std::vector<int64_t> strides; ///< per output dim
};

StatusOr<std::vector<Step>> parseBody(const fb::Instruction &inst,
                                      int64_t inputs) {
  std::istringstream words(inst.str() ? inst.str()->str() : "");
  std::vector<std::string> fns;
  for (std::string w; words >> w;)
    fns.push_back(w);
  if (fns.empty())
    return invalid("has no body (str lists no function)");
  IntReader ints(inst);
  std::vector<Step> steps;
  for (const std::string &fn : fns) {
    Step step;
    StatusOr<cpu::UnaryKind> u = unaryKind(fn);
    if (u.ok()) {
      step.unary = *u;
      step.a = ints.next();
    } else {
      StatusOr<cpu::BinaryKind> b = binaryKind(fn);
      if (!b.ok())
        return invalid("has an unknown function '" + fn + "' in its body");
      step.binary = true;
      step.binaryKind = *b;
      step.a = ints.next();
      step.b = ints.next();
    }
    int64_t defined = inputs + int64_t(steps.size());
    for (int64_t r : {step.a, step.binary ? step.b : 0})
      if (r < 0 || r >= defined)
        return invalid("step " + std::to_string(steps.size()) +
                       " reads register " + std::to_string(r) + " of " +
                       std::to_string(defined) + " defined");
    steps.push_back(step);
  }
  int64_t result = ints.next();
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  if (result != inputs + int64_t(steps.size()) - 1)
    return invalid("yields register " + std::to_string(result) +
                   "; the body's last step is register " +
                   std::to_string(inputs + int64_t(steps.size()) - 1));
  return steps;
}

} // namespace

StatusOr<RunFn> prepareElementwiseFused(const fb::Instruction &inst,
                                        const PrepareContext &ctx) {
  // A generated kernel (the CUDA target's) comes with its body, which is
  // what the CPU backend evaluates.
  if (!inst.str() || inst.str()->size() == 0)
    return Status::unimplemented(
        "the CPU backend evaluates fused bodies; this ElementwiseFused "
        "carries only a generated kernel");
  size_t numIn = inst.inputs() ? inst.inputs()->size() : 0;
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 64, 1));
  StatusOr<std::vector<Step>> body = parseBody(inst, int64_t(numIn));
  if (!body.ok())
    return body.status();
  const SlotInfo &out = outSlot(inst, ctx, 0);
  SHARDRT_RETURN_IF_ERROR(requireDType(out, fb::DType::F32, "the output"));
  Shape outShape = out.shape;
  std::vector<InputRead> reads;
  for (size_t i = 0; i < numIn; ++i) {
    const SlotInfo &in = inSlot(inst, ctx, i);
    SHARDRT_RETURN_IF_ERROR(
        requireDType(in, fb::DType::F32, "input " + std::to_string(i)));
    if (in.shape.size() > outShape.size())
      return invalid("input " + std::to_string(i) + " " + shapeStr(in.shape) +
                     " has more dims than the output " + shapeStr(outShape));
    Shape padded = padShape(in.shape, outShape.size());
    InputRead r;
    r.slot = inIdx(inst, i);
    r.direct = padded == outShape;
    r.strides.assign(outShape.size(), 0);
    int64_t stride = 1;
    for (size_t d = outShape.size(); d-- > 0;) {
      if (padded[d] != outShape[d] && padded[d] != 1)
        return invalid("input " + std::to_string(i) + " " + shapeStr(in.shape) +
                       " does not broadcast to " + shapeStr(outShape));
      r.strides[d] = padded[d] == 1 ? 0 : stride;
      stride *= padded[d];
    }
    reads.push_back(std::move(r));
  }
  std::vector<Step> steps = std::move(*body);
  int64_t n = numElements(outShape);
  uint32_t y = outIdx(inst, 0);
  int64_t registers = int64_t(numIn + steps.size());
  return RunFn([=](RunContext &rc) -> Status {
    int64_t tiles = (n + kTile - 1) / kTile;
#pragma omp parallel
    {
      std::vector<float> scratch(static_cast<size_t>(registers * kTile));
      std::vector<const float *> reg(static_cast<size_t>(registers));
      std::vector<int64_t> index(outShape.size());
#pragma omp for schedule(static)
      for (int64_t t = 0; t < tiles; ++t) {
        int64_t lo = t * kTile, len = std::min(kTile, n - lo);
        for (size_t i = 0; i < reads.size(); ++i) {
          const float *src = slotPtr<float>(rc, reads[i].slot);
          if (reads[i].direct) {
            reg[i] = src + lo;
            continue;
          }
          // Walk the tile in runs along the innermost dim: each run is a
          // copy (stride 1) or one repeated value (a broadcast dim).
          int64_t flat = lo;
          for (size_t d = outShape.size(); d-- > 0;) {
            index[d] = flat % outShape[d];
            flat /= outShape[d];
          }
          float *dst = scratch.data() + i * kTile;
          const std::vector<int64_t> &strides = reads[i].strides;
          size_t inner = outShape.size() - 1;
          for (int64_t e = 0; e < len;) {
            int64_t at = 0;
            for (size_t d = 0; d < outShape.size(); ++d)
              at += index[d] * strides[d];
            int64_t run = std::min(len - e, outShape[inner] - index[inner]);
            if (strides[inner] == 0)
              std::fill(dst + e, dst + e + run, src[at]);
            else
              std::memcpy(dst + e, src + at, size_t(run) * sizeof(float));
            e += run;
            index[inner] = 0;
            for (size_t d = inner; d-- > 0;) {
              if (++index[d] < outShape[d])
                break;
              index[d] = 0;
            }
          }
          reg[i] = dst;
        }
        for (size_t s = 0; s < steps.size(); ++s) {
          size_t r = reads.size() + s;
          bool last = s + 1 == steps.size();
          float *dst =
              last ? slotPtr<float>(rc, y) + lo : scratch.data() + r * kTile;
          const Step &step = steps[s];
          if (step.binary)
            cpu::binary(step.binaryKind, reg[size_t(step.a)], {len},
                        reg[size_t(step.b)], {len}, dst, {len});
          else
            cpu::unary(step.unary, reg[size_t(step.a)], dst, len);
          reg[r] = dst;
        }
      }
    }
    return Status();
  });
}

} // namespace shardrt::exec
