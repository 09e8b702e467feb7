//===- FusedBody.cpp - Fused bodies as chains of steps over tiles ---------===//

#include "FusedBody.h"

#include "shardrt/cpu/HalfFloats.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <type_traits>

namespace shardrt::exec::fused {

std::vector<std::string> words(const fb::Instruction &inst) {
  std::istringstream text(strAttr(inst));
  std::vector<std::string> list;
  for (std::string w; text >> w;)
    list.push_back(w);
  return list;
}

namespace {

/// `fn` as a step (its kind and arity), or an error naming it.
StatusOr<Step> stepOf(const std::string &fn) {
  Step step;
  if (StatusOr<cpu::UnaryKind> u = unaryKind(fn); u.ok()) {
    step.unary = *u;
    return step;
  }
  if (StatusOr<cpu::BinaryKind> b = binaryKind(fn); b.ok()) {
    step.kind = StepKind::Binary, step.binary = *b, step.arity = 2;
    return step;
  }
  if (StatusOr<cpu::CompareKind> c = compareKind(fn); c.ok()) {
    step.kind = StepKind::Compare, step.compare = *c, step.arity = 2;
    return step;
  }
  if (fn == "select") {
    step.kind = StepKind::Select, step.arity = 3;
    return step;
  }
  if (fn == "bool") {
    step.kind = StepKind::Bool;
    return step;
  }
  if (fn == "bf16" || fn == "f16") {
    step.kind = StepKind::Round;
    step.roundTo = fn == "bf16" ? cpu::ElemType::BF16 : cpu::ElemType::F16;
    return step;
  }
  return invalid("has an unknown function '" + fn + "' in its body");
}

} // namespace

StatusOr<Body> parseBody(const std::vector<std::string> &fns, IntReader &ints,
                         int64_t inputs, bool reduction) {
  if (fns.empty() && !reduction)
    return invalid("has no body (str lists no function)");
  std::vector<Step> steps;
  for (const std::string &fn : fns) {
    SHARDRT_ASSIGN_OR_RETURN(Step step, stepOf(fn));
    int64_t defined = inputs + int64_t(steps.size());
    for (int k = 0; k < step.arity; ++k) {
      int64_t r = ints.next();
      if (r < 0 || r >= defined)
        return invalid("step " + std::to_string(steps.size()) +
                       " reads register " + std::to_string(r) + " of " +
                       std::to_string(defined) + " defined");
      step.operands[size_t(k)] = r;
    }
    steps.push_back(step);
  }
  int64_t result = ints.next();
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  if (steps.empty()) {
    if (result < 0 || result >= inputs)
      return invalid("yields register " + std::to_string(result) + " of " +
                     std::to_string(inputs) + " inputs and no step");
    return Body{{}, result};
  }
  if (result != inputs + int64_t(steps.size()) - 1)
    return invalid("yields register " + std::to_string(result) +
                   "; the body's last step is register " +
                   std::to_string(inputs + int64_t(steps.size()) - 1));
  return Body{std::move(steps), result};
}

StatusOr<std::vector<InputRead>> broadcastReads(const fb::Instruction &inst,
                                                const PrepareContext &ctx,
                                                const Shape &domain,
                                                const std::string &what) {
  std::vector<InputRead> reads;
  for (size_t i = 0; i < numInputs(inst); ++i) {
    const SlotInfo &in = inSlot(inst, ctx, i);
    SHARDRT_ASSIGN_OR_RETURN(cpu::ElemType type, fusedElemType(in.dtype));
    if (in.shape.size() > domain.size())
      return invalid("input " + std::to_string(i) + " " + shapeStr(in.shape) +
                     " has more dims than " + what + " " + shapeStr(domain));
    Shape padded = padShape(in.shape, domain.size());
    InputRead r;
    r.slot = inIdx(inst, i);
    r.type = type;
    r.direct = padded == domain;
    r.strides.assign(domain.size(), 0);
    int64_t stride = 1;
    for (size_t d = domain.size(); d-- > 0;) {
      if (padded[d] != domain[d] && padded[d] != 1)
        return invalid("input " + std::to_string(i) + " " + shapeStr(in.shape) +
                       " does not broadcast to " + what + " " +
                       shapeStr(domain));
      r.strides[d] = padded[d] == 1 ? 0 : stride;
      stride *= padded[d];
    }
    reads.push_back(std::move(r));
  }
  return reads;
}

void runSteps(const std::vector<Step> &steps, size_t inputs,
              std::vector<Register> &reg, float *scratch, float *result,
              int64_t len) {
  static const float kZero = 0.0f;
  for (size_t s = 0; s < steps.size(); ++s) {
    size_t r = inputs + s;
    const Step &step = steps[s];
    Register x[3];
    bool single = true;
    for (int k = 0; k < step.arity; ++k) {
      x[k] = reg[size_t(step.operands[size_t(k)])];
      single &= x[k].single;
    }
    bool last = s + 1 == steps.size();
    float *dst = last && !single ? result : scratch + r * kTile;
    int64_t n = single ? 1 : len;
    auto stride = [](const Register &v) { return v.single ? 0 : 1; };
    // Tiles are the threads' work already: the serial kernels skip the
    // broadcast plan and OpenMP that the whole-tensor kernels set up per call.
    switch (step.kind) {
    case StepKind::Unary:
      cpu::unarySerial(step.unary, x[0].data, dst, n);
      break;
    case StepKind::Binary:
      cpu::binarySerial(step.binary, x[0].data, stride(x[0]), x[1].data,
                        stride(x[1]), dst, n);
      break;
    case StepKind::Compare:
      cpu::compareSerial(step.compare, x[0].data, stride(x[0]), x[1].data,
                         stride(x[1]), dst, n);
      break;
    case StepKind::Bool:
      cpu::compareSerial(cpu::CompareKind::Ne, x[0].data, stride(x[0]), &kZero,
                         0, dst, n);
      break;
    case StepKind::Select:
      cpu::selectSerial(x[0].data, stride(x[0]), x[1].data, stride(x[1]),
                        x[2].data, stride(x[2]), dst, n);
      break;
    case StepKind::Round: {
      // n is 1 where the operand is a single value, so the operand is read
      // at unit stride (which lets the bf16 loop vectorise).
      const float *src = x[0].data;
      if (step.roundTo == cpu::ElemType::BF16)
        for (int64_t e = 0; e < n; ++e)
          dst[e] = cpu::bf16ToFloat(cpu::floatToBf16(src[e]));
      else
        for (int64_t e = 0; e < n; ++e)
          dst[e] = cpu::f16ToFloat(cpu::floatToF16(src[e]));
      break;
    }
    }
    reg[r] = {dst, single};
    if (last && single)
      std::fill(result, result + len, dst[0]);
  }
}

TileRead tileRead(const InputRead &in, const Shape &space) {
  TileRead t;
  t.slot = in.slot;
  t.type = in.type;
  t.direct = in.direct;
  for (size_t d = 0; d < space.size(); ++d) {
    if (space[d] == 1)
      continue;
    if (!t.dims.empty() && t.strides.back() == in.strides[d] * space[d]) {
      t.dims.back() *= space[d];
      t.strides.back() = in.strides[d];
      continue;
    }
    t.dims.push_back(space[d]);
    t.strides.push_back(in.strides[d]);
  }
  if (t.dims.empty())
    t.dims = {1}, t.strides = {0};
  return t;
}

namespace {

const void *elementAt(cpu::ElemType type, const void *src, int64_t i) {
  return static_cast<const uint8_t *>(src) +
         size_t(i) * cpu::elementBytes(type);
}

/// One element of a converted input as the body's f32.
float widen(cpu::ElemType type, const void *src, int64_t i) {
  float v;
  widenedValues(type, elementAt(type, src, i), 1, &v, 1);
  return v;
}

} // namespace

const void *elementAt(RunContext &rc, const InputRead &read, int64_t i) {
  return elementAt(read.type, rc.slots[read.slot], i);
}

void widenedValues(cpu::ElemType type, const void *src, int64_t stride,
                   float *dst, int64_t n) {
  if (stride == 0 && n > 1) {
    widenedValues(type, src, 1, dst, 1);
    std::fill(dst + 1, dst + n, dst[0]);
    return;
  }
  // One loop per type, the switch outside it; unit stride gets its own loop
  // so that the compiler vectorises it.
  auto convert = [&](auto *typed, auto fn) {
    if (stride == 1)
      for (int64_t e = 0; e < n; ++e)
        dst[e] = fn(typed[e]);
    else
      for (int64_t e = 0; e < n; ++e)
        dst[e] = fn(typed[e * stride]);
  };
  switch (type) {
  case cpu::ElemType::Bool:
    return convert(static_cast<const uint8_t *>(src),
                   [](uint8_t v) { return v != 0 ? 1.0f : 0.0f; });
  case cpu::ElemType::BF16: // lambdas: inlined, not called through a pointer
    return convert(static_cast<const uint16_t *>(src),
                   [](uint16_t h) { return cpu::bf16ToFloat(h); });
  case cpu::ElemType::F16:
    return convert(static_cast<const uint16_t *>(src),
                   [](uint16_t h) { return cpu::f16ToFloat(h); });
  case cpu::ElemType::F32:
    return convert(static_cast<const float *>(src), [](float v) { return v; });
  case cpu::ElemType::I64: // fusedElemType refuses it; as a cast would read
    return convert(static_cast<const int64_t *>(src),
                   [](int64_t v) { return float(v); });
  }
}

Register gatherTile(RunContext &rc, const TileRead &read, int64_t lo,
                    int64_t len, std::vector<int64_t> &index, float *dst) {
  // f32 is read in place where it can be; other types are always
  // converted.
  const void *src = rc.slots[read.slot];
  bool inPlace = read.type == cpu::ElemType::F32;
  if (read.direct) {
    if (inPlace)
      return {static_cast<const float *>(src) + lo, false};
    widenedValues(read.type, elementAt(read.type, src, lo), 1, dst, len);
    return {dst, false};
  }
  const Shape &dims = read.dims;
  size_t inner = dims.size() - 1;
  int64_t flat = lo, at = 0;
  for (size_t d = dims.size(); d-- > 0;) {
    index[d] = flat % dims[d];
    flat /= dims[d];
    at += index[d] * read.strides[d];
  }
  if (read.strides[inner] == 0 && dims[inner] - index[inner] >= len) {
    if (inPlace)
      return {static_cast<const float *>(src) + at, true};
    dst[0] = widen(read.type, src, at);
    return {dst, true};
  }
  // Walk the tile in runs along the innermost dim: each run is a copy
  // (stride 1) or one repeated value (a broadcast dim).
  for (int64_t e = 0; e < len;) {
    int64_t run = std::min(len - e, dims[inner] - index[inner]);
    if (read.strides[inner] == 0)
      std::fill(dst + e, dst + e + run, widen(read.type, src, at));
    else if (inPlace)
      std::memcpy(dst + e, static_cast<const float *>(src) + at,
                  size_t(run) * sizeof(float));
    else
      widenedValues(read.type, elementAt(read.type, src, at), 1, dst + e, run);
    e += run;
    at += run * read.strides[inner];
    index[inner] += run;
    for (size_t d = inner; d > 0 && index[d] == dims[d]; --d) {
      at += read.strides[d - 1] - dims[d] * read.strides[d];
      index[d] = 0;
      ++index[d - 1];
    }
  }
  return {dst, false};
}

} // namespace shardrt::exec::fused
