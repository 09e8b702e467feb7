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
// A ReductionFused instruction evaluates such a body over an iteration space
// and reduces it over some of its dims: one thread per run of outputs, each
// output's values gathered along the reduced dims in tiles and accumulated
// (in double for sum and mean, as the Reduce kernel does), so the reduced
// tensor is never written.
//
//===----------------------------------------------------------------------===//

#include "Prepare.h"
#include "shardrt/cpu/Kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
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

std::vector<std::string> words(const fb::Instruction &inst) {
  std::istringstream text(inst.str() ? inst.str()->str() : "");
  std::vector<std::string> list;
  for (std::string w; text >> w;)
    list.push_back(w);
  return list;
}

/// The body's steps: `fns` are their functions, `ints` (read from where
/// the body starts) their operand registers, then the result register.
StatusOr<std::vector<Step>> parseBody(const std::vector<std::string> &fns,
                                      IntReader &ints, int64_t inputs) {
  if (fns.empty())
    return invalid("has no body (str lists no function)");
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

/// How each input is read over `domain` (numpy broadcasting).
StatusOr<std::vector<InputRead>> broadcastReads(const fb::Instruction &inst,
                                                const PrepareContext &ctx,
                                                const Shape &domain,
                                                const std::string &what) {
  std::vector<InputRead> reads;
  for (size_t i = 0; i < numInputs(inst); ++i) {
    const SlotInfo &in = inSlot(inst, ctx, i);
    SHARDRT_RETURN_IF_ERROR(
        requireDType(in, fb::DType::F32, "input " + std::to_string(i)));
    if (in.shape.size() > domain.size())
      return invalid("input " + std::to_string(i) + " " + shapeStr(in.shape) +
                     " has more dims than " + what + " " + shapeStr(domain));
    Shape padded = padShape(in.shape, domain.size());
    InputRead r;
    r.slot = inIdx(inst, i);
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

/// Applies the steps to `len` elements whose inputs are in reg[0..inputs);
/// the last step writes `result`, the others registers of `scratch`.
void runSteps(const std::vector<Step> &steps, size_t inputs,
              std::vector<const float *> &reg, float *scratch, float *result,
              int64_t len) {
  for (size_t s = 0; s < steps.size(); ++s) {
    size_t r = inputs + s;
    float *dst = s + 1 == steps.size() ? result : scratch + r * kTile;
    const Step &step = steps[s];
    if (step.binary)
      cpu::binary(step.binaryKind, reg[size_t(step.a)], {len},
                  reg[size_t(step.b)], {len}, dst, {len});
    else
      cpu::unary(step.unary, reg[size_t(step.a)], dst, len);
    reg[r] = dst;
  }
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
  IntReader ints(inst);
  StatusOr<std::vector<Step>> body =
      parseBody(words(inst), ints, int64_t(numIn));
  if (!body.ok())
    return body.status();
  const SlotInfo &out = outSlot(inst, ctx, 0);
  SHARDRT_RETURN_IF_ERROR(requireDType(out, fb::DType::F32, "the output"));
  Shape outShape = out.shape;
  StatusOr<std::vector<InputRead>> inputReads =
      broadcastReads(inst, ctx, outShape, "the output");
  if (!inputReads.ok())
    return inputReads.status();
  std::vector<InputRead> reads = std::move(*inputReads);
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
        runSteps(steps, reads.size(), reg, scratch.data(),
                 slotPtr<float>(rc, y) + lo, len);
      }
    }
    return Status();
  });
}

} // namespace shardrt::exec

//===----------------------------------------------------------------------===//
// ReductionFused: the body evaluated over an iteration space and reduced
//===----------------------------------------------------------------------===//

namespace shardrt::exec {
namespace {

enum class FusedReduce { Sum, Mean, Max, Min };

/// Reads the iteration space and the reduced dims (ascending) of a
/// ReductionFused header.
Status readReductionHeader(IntReader &ints, Shape &domain,
                           std::vector<bool> &reduced) {
  int64_t rank = ints.next();
  if (rank < 0 || rank > 16 || ints.overrun())
    return invalid("iterates over a rank-" + std::to_string(rank) + " space");
  domain = ints.next(size_t(rank));
  for (int64_t n : domain)
    if (n < 0)
      return invalid("iterates over " + shapeStr(domain));
  int64_t count = ints.next();
  if (count < 0 || count > rank || ints.overrun())
    return invalid("reduces " + std::to_string(count) + " dims of a rank-" +
                   std::to_string(rank) + " space");
  reduced.assign(size_t(rank), false);
  int64_t previous = -1;
  for (int64_t d : ints.next(size_t(count))) {
    if (d <= previous || d >= rank)
      return invalid("reduces dim " + std::to_string(d) + " of " +
                     shapeStr(domain) + " (dims must ascend, in range)");
    reduced[size_t(d)] = true;
    previous = d;
  }
  return Status();
}

} // namespace

StatusOr<RunFn> prepareReductionFused(const fb::Instruction &inst,
                                      const PrepareContext &ctx) {
  std::vector<std::string> fns = words(inst);
  if (fns.empty())
    return Status::unimplemented(
        "the CPU backend evaluates fused bodies; this ReductionFused "
        "carries only a generated kernel");
  static const std::map<std::string, FusedReduce> kinds = {
      {"sum", FusedReduce::Sum},
      {"mean", FusedReduce::Mean},
      {"amax", FusedReduce::Max},
      {"amin", FusedReduce::Min}};
  auto kind = kinds.find(fns.front());
  if (kind == kinds.end())
    return invalid("has an unknown reduction '" + fns.front() +
                   "' (sum, mean, amax, amin)");
  fns.erase(fns.begin());
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 64, 1));
  IntReader ints(inst);
  Shape domain;
  std::vector<bool> reduced;
  SHARDRT_RETURN_IF_ERROR(readReductionHeader(ints, domain, reduced));
  size_t numIn = numInputs(inst);
  StatusOr<std::vector<Step>> body = parseBody(fns, ints, int64_t(numIn));
  if (!body.ok())
    return body.status();
  const SlotInfo &out = outSlot(inst, ctx, 0);
  SHARDRT_RETURN_IF_ERROR(requireDType(out, fb::DType::F32, "the output"));
  StatusOr<std::vector<InputRead>> inputReads =
      broadcastReads(inst, ctx, domain, "the iteration space");
  if (!inputReads.ok())
    return inputReads.status();
  std::vector<int64_t> keptDims, reducedDims;
  int64_t outputs = 1, count = 1;
  for (size_t d = 0; d < domain.size(); ++d) {
    (reduced[d] ? reducedDims : keptDims).push_back(int64_t(d));
    (reduced[d] ? count : outputs) *= domain[d];
  }
  if (numElements(out.shape) != outputs)
    return invalid("the output has " + std::to_string(numElements(out.shape)) +
                   " elements; reducing " + shapeStr(domain) + " leaves " +
                   std::to_string(outputs));
  FusedReduce k = kind->second;
  if (count == 0 && (k == FusedReduce::Max || k == FusedReduce::Min))
    return invalid("amax/amin over zero elements");
  std::vector<InputRead> reads = std::move(*inputReads);
  std::vector<Step> steps = std::move(*body);
  uint32_t y = outIdx(inst, 0);
  int64_t registers = int64_t(numIn + steps.size());
  return RunFn([=](RunContext &rc) -> Status {
    float *result = slotPtr<float>(rc, y);
#pragma omp parallel
    {
      std::vector<float> scratch(size_t(registers + 1) * kTile);
      std::vector<const float *> reg(static_cast<size_t>(registers));
      std::vector<int64_t> index(reducedDims.size()), at(reads.size()),
          base(reads.size());
#pragma omp for schedule(static)
      for (int64_t o = 0; o < outputs; ++o) {
        // Where this output's values start in each input.
        std::fill(base.begin(), base.end(), 0);
        int64_t rest = o;
        for (size_t j = keptDims.size(); j-- > 0;) {
          size_t d = size_t(keptDims[j]);
          int64_t idx = rest % domain[d];
          rest /= domain[d];
          for (size_t i = 0; i < reads.size(); ++i)
            base[i] += idx * reads[i].strides[d];
        }
        std::fill(index.begin(), index.end(), 0);
        std::fill(at.begin(), at.end(), 0);
        double acc = k == FusedReduce::Max   ? -INFINITY
                     : k == FusedReduce::Min ? INFINITY
                                             : 0.0;
        float *values = scratch.data() + size_t(registers) * kTile;
        for (int64_t r0 = 0; r0 < count; r0 += kTile) {
          int64_t len = std::min(kTile, count - r0);
          // Gather the inputs along the reduced dims in runs along the
          // innermost one (a copy, a repeated value or a strided walk), then
          // step the odometer that moves every input's offset.
          for (int64_t e = 0; e < len;) {
            int64_t run = len - e;
            size_t inner = reducedDims.empty() ? 0 : reducedDims.size() - 1;
            size_t innerDim =
                reducedDims.empty() ? 0 : size_t(reducedDims[inner]);
            if (!reducedDims.empty())
              run = std::min(run, domain[innerDim] - index[inner]);
            for (size_t i = 0; i < reads.size(); ++i) {
              const float *src =
                  slotPtr<float>(rc, reads[i].slot) + base[i] + at[i];
              float *dst = scratch.data() + i * kTile + e;
              int64_t step =
                  reducedDims.empty() ? 0 : reads[i].strides[innerDim];
              if (step == 1)
                std::memcpy(dst, src, size_t(run) * sizeof(float));
              else if (step == 0)
                std::fill(dst, dst + run, *src);
              else
                for (int64_t q = 0; q < run; ++q)
                  dst[q] = src[q * step];
            }
            e += run;
            if (reducedDims.empty())
              break;
            // The run ends the innermost dim (or the tile): advance by it.
            for (size_t i = 0; i < reads.size(); ++i)
              at[i] += run * reads[i].strides[innerDim];
            index[inner] += run;
            for (size_t j = inner + 1; j-- > 0;) {
              size_t d = size_t(reducedDims[j]);
              if (index[j] < domain[d])
                break;
              for (size_t i = 0; i < reads.size(); ++i)
                at[i] -= reads[i].strides[d] * domain[d];
              index[j] = 0;
              if (j == 0)
                break;
              size_t outer = size_t(reducedDims[j - 1]);
              for (size_t i = 0; i < reads.size(); ++i)
                at[i] += reads[i].strides[outer];
              ++index[j - 1];
            }
          }
          for (size_t i = 0; i < reads.size(); ++i)
            reg[i] = scratch.data() + i * kTile;
          runSteps(steps, reads.size(), reg, scratch.data(), values, len);
          if (k == FusedReduce::Sum || k == FusedReduce::Mean) {
            // Four independent partial sums keep the adds pipelined.
            double lane[4] = {0, 0, 0, 0};
            int64_t e = 0;
            for (; e + 4 <= len; e += 4)
              for (int q = 0; q < 4; ++q)
                lane[q] += double(values[e + q]);
            for (; e < len; ++e)
              lane[0] += double(values[e]);
            acc += (lane[0] + lane[1]) + (lane[2] + lane[3]);
          } else {
            for (int64_t e = 0; e < len; ++e) {
              double v = values[e];
              if (std::isnan(v) || (k == FusedReduce::Max ? v > acc : v < acc))
                acc = std::isnan(acc) ? acc : v;
            }
          }
        }
        if (k == FusedReduce::Mean)
          acc /= double(count);
        result[o] = float(acc);
      }
    }
    return Status();
  });
}

} // namespace shardrt::exec
