//===- PrepareFused.cpp - Fused elementwise bodies on the CPU -------------===//
//
// An ElementwiseFused instruction carries its body (and, from the CUDA
// target, also a generated kernel, which this backend ignores): `str` lists the
// steps' functions (space separated: Unary and Binary modes, the Compare
// predicates, `select` and `bool`) and `ints` each step's operand
// registers, then the register the output takes. Registers 0..n-1 are the
// inputs, read at the output index (broadcast, numpy rules); register n+i
// is step i's result. FusedBody.h decodes and runs bodies. An i1 input
// reads as 1.0 or 0.0 (in both instructions); an i1 output (elementwise
// only) stores whether the value is not 0.
//
// The body runs tile by tile: each step applies the CPU kernel of its mode to
// a tile of registers that stays in cache, so the chain reads its inputs and
// writes its output once, as a generated kernel would.
//
// A ReductionFused instruction evaluates such a body over an iteration space
// and reduces it over some of its dims: each output's values are gathered
// along the reduced dims in tiles and accumulated (in double for sum and
// mean, as the Reduce kernel does), so the reduced tensor is never written.
// Threads take outputs; when there are few outputs, each one's reduced range
// is also split into chunks whose partials are combined afterwards. Where
// the outputs are contiguous instead (a channel-wise sum of NCHW), threads
// take rows of outputs, which read every input a row at a time; where each
// output reduces a few consecutive elements (a vector's components), the
// body runs on tiles of whole outputs. A
// reduction's body may have no step and yield an input: a plain Reduce the
// CUDA target made a fused kernel.
//
//===----------------------------------------------------------------------===//

#include "FusedBody.h"
#include "Prepare.h"
#include "shardrt/artifact/FusedLimits.h"
#include "shardrt/cpu/Kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <utility>

namespace shardrt::exec {
using namespace fused;
namespace {

/// A prepared ElementwiseFused: tiles of the output, each gathering the
/// inputs it reads and running the body on them.
struct FusedElementwise {
  std::vector<TileRead> reads;
  std::vector<Step> steps;
  int64_t n = 0;
  uint32_t y = 0;
  /// Not f32: the body's values go to a tile of scratch, and each element
  /// stores as an i1 whether its value is not 0 (NaN included), as a bf16
  /// or f16 the value rounded to nearest even.
  cpu::ElemType outType = cpu::ElemType::F32;

  Status run(RunContext &rc) const;
};

Status FusedElementwise::run(RunContext &rc) const {
  int64_t tiles = (n + kTile - 1) / kTile;
  size_t registers = reads.size() + steps.size();
#pragma omp parallel
  {
    std::vector<float> scratch((registers + 1) * kTile);
    float *values = scratch.data() + registers * kTile;
    std::vector<Register> reg(registers);
    std::vector<int64_t> index;
#pragma omp for schedule(static)
    for (int64_t t = 0; t < tiles; ++t) {
      int64_t lo = t * kTile, len = std::min(kTile, n - lo);
      for (size_t i = 0; i < reads.size(); ++i) {
        index.resize(reads[i].dims.size());
        reg[i] = gatherTile(rc, reads[i], lo, len, index,
                            scratch.data() + i * kTile);
      }
      if (outType == cpu::ElemType::F32) {
        runSteps(steps, reads.size(), reg, scratch.data(),
                 slotPtr<float>(rc, y) + lo, len);
        continue;
      }
      runSteps(steps, reads.size(), reg, scratch.data(), values, len);
      // cpu::cast's rules: bool is value != 0, 16 bits round to nearest. A
      // tile is below the cast's parallel threshold: it runs on this thread.
      size_t bytes = cpu::elementBytes(outType);
      cpu::cast(cpu::ElemType::F32, values, outType,
                static_cast<uint8_t *>(rc.slots[y]) + size_t(lo) * bytes, len);
    }
  }
  return Status();
}

} // namespace

StatusOr<RunFn> prepareElementwiseFused(const fb::Instruction &inst,
                                        const PrepareContext &ctx) {
  // Operands are checked even when only a generated kernel will run (the
  // CUDA backend trusts them); a generated kernel (the CUDA target's) comes
  // with its body, which is what the CPU backend evaluates.
  size_t numIn = numInputs(inst);
  SHARDRT_RETURN_IF_ERROR(
      checkOperands(inst, ctx, 1, artifact::kMaxFusedInputs, 1));
  const SlotInfo &out = outSlot(inst, ctx, 0);
  SHARDRT_ASSIGN_OR_RETURN(cpu::ElemType outType, fusedElemType(out.dtype));
  Shape outShape = out.shape;
  SHARDRT_ASSIGN_OR_RETURN(std::vector<InputRead> inputReads,
                           broadcastReads(inst, ctx, outShape, "the output"));
  if (!inst.str() || inst.str()->size() == 0)
    return Status::unimplemented(
        "the CPU backend evaluates fused bodies; this ElementwiseFused "
        "carries only a generated kernel");
  IntReader ints(inst);
  SHARDRT_ASSIGN_OR_RETURN(
      Body body,
      parseBody(words(inst), ints, int64_t(numIn), /*reduction=*/false));
  FusedElementwise plan;
  for (const InputRead &in : inputReads)
    plan.reads.push_back(tileRead(in, outShape));
  plan.steps = std::move(body.steps);
  plan.n = numElements(outShape);
  plan.y = outIdx(inst, 0);
  plan.outType = outType;
  return RunFn([plan = std::move(plan)](RunContext &rc) -> Status {
    return plan.run(rc);
  });
}

} // namespace shardrt::exec

//===----------------------------------------------------------------------===//
// ReductionFused: the body evaluated over an iteration space and reduced
//===----------------------------------------------------------------------===//

namespace shardrt::exec {
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

namespace {

enum class FusedReduce { Sum, Mean, Max, Min };

/// The smallest stretch of one output's reduced range worth a unit of work,
/// and how many units a reduction is split into at least (when its range is
/// long enough): a full sum or a group norm's few groups would otherwise
/// run on as many threads as they have outputs. Both are constants, not the
/// thread count, so that the result does not depend on how many threads run.
constexpr int64_t kMinChunk = 4 * kTile;
constexpr int64_t kMinUnits = 64;
/// Outputs reduced a row at a time need rows at least this long to
/// amortise a pass over the body per reduced element.
constexpr int64_t kMinRow = 16;

/// Combines two partial results of `kind` (NaN wins for amax/amin, as in
/// torch.amax).
double combine(FusedReduce kind, double acc, double v) {
  if (kind == FusedReduce::Sum || kind == FusedReduce::Mean)
    return acc + v;
  if (std::isnan(acc) || std::isnan(v))
    return std::isnan(acc) ? acc : v;
  return kind == FusedReduce::Max ? std::max(acc, v) : std::min(acc, v);
}

/// What a `kind` reduction of nothing gives (before a mean divides it).
double identity(FusedReduce kind) {
  return kind == FusedReduce::Max   ? -INFINITY
         : kind == FusedReduce::Min ? INFINITY
                                    : 0.0;
}

/// Per-thread buffers: the registers of one tile and the gather state (and,
/// over rows of outputs, the row's accumulators).
struct ReductionScratch {
  std::vector<float> tile;
  std::vector<Register> reg;
  std::vector<int64_t> index, at, base;
  std::vector<double> sums;
};

/// A prepared ReductionFused: the space, which dims it keeps and reduces,
/// how each input is read, the body, and how each output's reduced range is
/// split into chunks.
struct FusedReduction {
  FusedReduce kind{};
  Shape domain;
  std::vector<int64_t> keptDims, reducedDims;
  int64_t outputs = 0, count = 0, chunks = 1, chunkLen = 0;
  /// The dim along which outputs lie contiguously (the innermost dim longer
  /// than 1, kept), when they are reduced a row of them at a time; else -1.
  int64_t rowDim = -1;
  /// Outputs a tile holds whole, when the reduced dims are the innermost
  /// (output o's elements are [o * count, (o + 1) * count) of the space)
  /// and few: the body then runs on tiles of the space; else 0.
  int64_t perTile = 0;
  std::vector<TileRead> spaceReads; ///< with perTile: the inputs over the space
  std::vector<InputRead> reads;
  /// How accumulate() reads each input along an output's reduced range.
  enum class RangeRead : uint8_t {
    Gathered,   ///< copied into the tile, run by run
    Contiguous, ///< element r of the range is base + r: read in place
    Uniform,    ///< one value for the whole range (its strides are all 0)
  };
  std::vector<RangeRead> rangeReads;
  bool gathers = true; ///< some input is Gathered
  std::vector<Step> steps;
  int64_t result = 0; ///< the register reduced (an input when no step)
  uint32_t y = 0;

  int64_t registers() const { return int64_t(reads.size() + steps.size()); }

  ReductionScratch scratch() const {
    ReductionScratch s;
    s.tile.resize(size_t(registers() + 1) * kTile);
    s.reg.resize(size_t(registers()));
    s.index.resize(reducedDims.size());
    s.at.resize(reads.size());
    s.base.resize(reads.size());
    if (rowDim >= 0 || perTile > 0)
      s.sums.resize(size_t(kTile));
    return s;
  }

  /// Where output `o`'s values start in each input, into s.base.
  void outputBase(ReductionScratch &s, int64_t o) const;

  /// Reduces outputs [o, o + len), whose elements are consecutive in the
  /// space (perTile): the body runs on them as one tile, and each output
  /// folds its `count` values in order. A sum over the 3 components of a
  /// vector field then costs a tile's pass, not one per output.
  void reduceGroup(RunContext &rc, ReductionScratch &s, int64_t o,
                   int64_t len) const;

  /// Reduces outputs [o, o + len) of one row along rowDim: per reduced
  /// element in order, the row's values through the body, folded into one
  /// accumulator per output. A channel-wise sum of NCHW then reads whole
  /// rows of W instead of one float per H x W stride.
  void reduceRow(RunContext &rc, ReductionScratch &s, int64_t o,
                 int64_t len) const;

  /// Output `o`'s partial result over its reduced elements [r0, r1) (flat,
  /// row-major over the reduced dims).
  double accumulate(RunContext &rc, ReductionScratch &s, int64_t o, int64_t r0,
                    int64_t r1) const;

  /// Gathers `len` elements of every input starting at the gather state
  /// into the tile's registers, advancing the state.
  void gather(RunContext &rc, ReductionScratch &s, int64_t len) const;

  Status run(RunContext &rc) const;
};

double FusedReduction::accumulate(RunContext &rc, ReductionScratch &s,
                                  int64_t o, int64_t r0, int64_t r1) const {
  double acc = identity(kind);
  if (r0 >= r1)
    return acc; // nothing to reduce (a reduced dim may have extent 0)
  // Where this output's values start in each input, and where r0 is.
  outputBase(s, o);
  std::fill(s.at.begin(), s.at.end(), 0);
  int64_t rest = r0;
  for (size_t j = reducedDims.size(); j-- > 0;) {
    size_t d = size_t(reducedDims[j]);
    s.index[j] = rest % domain[d];
    rest /= domain[d];
    for (size_t i = 0; i < reads.size(); ++i)
      s.at[i] += s.index[j] * reads[i].strides[d];
  }
  float *values = s.tile.data() + size_t(registers()) * kTile;
  for (int64_t t = r0; t < r1; t += kTile) {
    int64_t len = std::min(kTile, r1 - t);
    if (gathers)
      gather(rc, s, len);
    for (size_t i = 0; i < reads.size(); ++i) {
      if (rangeReads[i] == RangeRead::Gathered) {
        s.reg[i] = {s.tile.data() + i * kTile, false};
        continue;
      }
      const float *at = slotPtr<float>(rc, reads[i].slot) + s.base[i];
      s.reg[i] = rangeReads[i] == RangeRead::Contiguous
                     ? Register{at + t, false}
                     : Register{at, true};
    }
    runSteps(steps, reads.size(), s.reg, s.tile.data(), values, len);
    const float *reduced = steps.empty() ? s.reg[size_t(result)].data : values;
    if (kind == FusedReduce::Sum || kind == FusedReduce::Mean) {
      acc += cpu::sumSerial(reduced, len);
    } else {
      for (int64_t e = 0; e < len; ++e)
        acc = combine(kind, acc, double(reduced[e]));
    }
  }
  return acc;
}

void FusedReduction::outputBase(ReductionScratch &s, int64_t o) const {
  std::fill(s.base.begin(), s.base.end(), 0);
  for (size_t j = keptDims.size(); j-- > 0;) {
    size_t d = size_t(keptDims[j]);
    int64_t idx = o % domain[d];
    o /= domain[d];
    for (size_t i = 0; i < reads.size(); ++i)
      s.base[i] += idx * reads[i].strides[d];
  }
}

void FusedReduction::reduceGroup(RunContext &rc, ReductionScratch &s, int64_t o,
                                 int64_t len) const {
  int64_t lo = o * count, n = len * count;
  for (size_t i = 0; i < spaceReads.size(); ++i) {
    s.index.resize(spaceReads[i].dims.size());
    s.reg[i] = gatherTile(rc, spaceReads[i], lo, n, s.index,
                          s.tile.data() + i * kTile);
  }
  float *values = s.tile.data() + size_t(registers()) * kTile;
  runSteps(steps, reads.size(), s.reg, s.tile.data(), values, n);
  Register all =
      steps.empty() ? s.reg[size_t(result)] : Register{values, false};
  for (int64_t q = 0; q < len; ++q) {
    double acc = identity(kind);
    for (int64_t e = q * count; e < (q + 1) * count; ++e)
      acc = combine(kind, acc, double(all.data[all.single ? 0 : e]));
    s.sums[size_t(q)] = acc;
  }
}

void FusedReduction::reduceRow(RunContext &rc, ReductionScratch &s, int64_t o,
                               int64_t len) const {
  bool sum = kind == FusedReduce::Sum || kind == FusedReduce::Mean;
  std::fill(s.sums.begin(), s.sums.begin() + len, identity(kind));
  outputBase(s, o);
  std::fill(s.at.begin(), s.at.end(), 0);
  std::fill(s.index.begin(), s.index.end(), 0);
  float *values = s.tile.data() + size_t(registers()) * kTile;
  for (int64_t r = 0; r < count; ++r) {
    // The row of every input at reduced element r, read in place: every
    // dim after rowDim has extent 1, so an input's stride along it is 1,
    // or 0 where the input broadcasts (one value for the whole row).
    // A bool row is converted into the input's register.
    for (size_t i = 0; i < reads.size(); ++i) {
      bool single = reads[i].strides[size_t(rowDim)] == 0;
      size_t at = size_t(s.base[i] + s.at[i]);
      if (reads[i].type != cpu::ElemType::F32) {
        float *dst = s.tile.data() + i * kTile;
        widenedValues(reads[i].type, elementAt(rc, reads[i], at), 1, dst,
                      single ? 1 : len);
        s.reg[i] = {dst, single};
      } else {
        s.reg[i] = {slotPtr<float>(rc, reads[i].slot) + at, single};
      }
    }
    runSteps(steps, reads.size(), s.reg, s.tile.data(), values, len);
    Register row =
        steps.empty() ? s.reg[size_t(result)] : Register{values, false};
    if (sum && !row.single)
      cpu::accumulateSerial(s.sums.data(), row.data, len);
    else
      for (int64_t q = 0; q < len; ++q)
        s.sums[size_t(q)] = combine(kind, s.sums[size_t(q)],
                                    double(row.data[row.single ? 0 : q]));
    // The next reduced element: an odometer over the reduced dims.
    for (size_t j = reducedDims.size(); j-- > 0;) {
      size_t d = size_t(reducedDims[j]);
      for (size_t i = 0; i < reads.size(); ++i)
        s.at[i] += reads[i].strides[d];
      if (++s.index[j] < domain[d])
        break;
      for (size_t i = 0; i < reads.size(); ++i)
        s.at[i] -= reads[i].strides[d] * domain[d];
      s.index[j] = 0;
    }
  }
}

void FusedReduction::gather(RunContext &rc, ReductionScratch &s,
                            int64_t len) const {
  // Runs along the innermost reduced dim (a copy, a repeated value or a
  // strided walk), then a step of the odometer that moves every input's
  // offset.
  size_t inner = reducedDims.empty() ? 0 : reducedDims.size() - 1;
  size_t innerDim = reducedDims.empty() ? 0 : size_t(reducedDims[inner]);
  for (int64_t e = 0; e < len;) {
    int64_t run = len - e;
    if (!reducedDims.empty())
      run = std::min(run, domain[innerDim] - s.index[inner]);
    for (size_t i = 0; i < reads.size(); ++i) {
      if (rangeReads[i] != RangeRead::Gathered)
        continue;
      size_t offset = size_t(s.base[i] + s.at[i]);
      float *dst = s.tile.data() + i * kTile + e;
      int64_t step = reducedDims.empty() ? 0 : reads[i].strides[innerDim];
      if (reads[i].type != cpu::ElemType::F32) {
        widenedValues(reads[i].type, elementAt(rc, reads[i], offset), step, dst,
                      run);
        continue;
      }
      const float *src = slotPtr<float>(rc, reads[i].slot) + offset;
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
      return;
    // The run ends the innermost dim (or the tile): advance by it.
    for (size_t i = 0; i < reads.size(); ++i)
      s.at[i] += run * reads[i].strides[innerDim];
    s.index[inner] += run;
    for (size_t j = inner + 1; j-- > 0;) {
      size_t d = size_t(reducedDims[j]);
      if (s.index[j] < domain[d] || j == 0)
        break;
      for (size_t i = 0; i < reads.size(); ++i)
        s.at[i] += reads[i].strides[size_t(reducedDims[j - 1])] -
                   reads[i].strides[d] * domain[d];
      s.index[j] = 0;
      ++s.index[j - 1];
    }
  }
}

Status FusedReduction::run(RunContext &rc) const {
  // Units of work are (output, chunk) pairs; with one chunk per output its
  // result is final, else the chunks' partials are combined in order.
  float *result = slotPtr<float>(rc, y);
  int64_t units = outputs * chunks;
  std::vector<double> partials(chunks > 1 ? size_t(units) : 0);
  auto finish = [&](int64_t o, double acc) {
    result[o] = float(kind == FusedReduce::Mean ? acc / double(count) : acc);
  };
  // Tiles of whole outputs and rows of outputs: each unit reduces a range
  // of outputs [o, o + len) at once and finishes them.
  using Reducer = void (FusedReduction::*)(RunContext &, ReductionScratch &,
                                           int64_t, int64_t) const;
  auto finishRanges = [&](int64_t count, auto rangeOf, Reducer reduce) {
#pragma omp parallel
    {
      ReductionScratch s = scratch();
#pragma omp for schedule(static)
      for (int64_t u = 0; u < count; ++u) {
        auto [o, len] = rangeOf(u);
        (this->*reduce)(rc, s, o, len);
        for (int64_t q = 0; q < len; ++q)
          finish(o + q, s.sums[size_t(q)]);
      }
    }
    return Status();
  };
  if (perTile > 0)
    return finishRanges((outputs + perTile - 1) / perTile,
                        [&](int64_t u) {
                          int64_t o = u * perTile;
                          return std::pair(o, std::min(perTile, outputs - o));
                        },
                        &FusedReduction::reduceGroup);
  if (rowDim >= 0) {
    // Units are rows of up to kTile outputs along rowDim (its extent is the
    // output's innermost: every dim after it has extent 1).
    int64_t extent = domain[size_t(rowDim)];
    int64_t segments = (extent + kTile - 1) / kTile;
    return finishRanges((outputs / extent) * segments,
                        [&](int64_t u) {
                          int64_t at = (u % segments) * kTile;
                          return std::pair((u / segments) * extent + at,
                                           std::min(kTile, extent - at));
                        },
                        &FusedReduction::reduceRow);
  }
#pragma omp parallel
  {
    ReductionScratch s = scratch();
#pragma omp for schedule(static)
    for (int64_t u = 0; u < units; ++u) {
      int64_t o = u / chunks, c = u % chunks;
      int64_t r0 = std::min(count, c * chunkLen);
      double acc = accumulate(rc, s, o, r0, std::min(count, r0 + chunkLen));
      if (chunks == 1)
        finish(o, acc);
      else
        partials[size_t(u)] = acc;
    }
  }
  if (chunks > 1)
    for (int64_t o = 0; o < outputs; ++o) {
      double acc = partials[size_t(o * chunks)];
      for (int64_t c = 1; c < chunks; ++c)
        acc = combine(kind, acc, partials[size_t(o * chunks + c)]);
      finish(o, acc);
    }
  return Status();
}

} // namespace

StatusOr<RunFn> prepareReductionFused(const fb::Instruction &inst,
                                      const PrepareContext &ctx) {
  // Operands and the header are checked even when only a generated kernel
  // will run (the CUDA backend trusts them).
  SHARDRT_RETURN_IF_ERROR(
      checkOperands(inst, ctx, 1, artifact::kMaxFusedInputs, 1));
  IntReader ints(inst);
  Shape domain;
  std::vector<bool> reduced;
  SHARDRT_RETURN_IF_ERROR(readReductionHeader(ints, domain, reduced));
  const SlotInfo &out = outSlot(inst, ctx, 0);
  SHARDRT_RETURN_IF_ERROR(requireDType(out, fb::DType::F32, "the output"));
  SHARDRT_ASSIGN_OR_RETURN(
      std::vector<InputRead> inputReads,
      broadcastReads(inst, ctx, domain, "the iteration space"));
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
  SHARDRT_ASSIGN_OR_RETURN(
      Body body,
      parseBody(fns, ints, int64_t(numInputs(inst)), /*reduction=*/true));
  FusedReduction plan;
  plan.kind = kind->second;
  if (count == 0 &&
      (plan.kind == FusedReduce::Max || plan.kind == FusedReduce::Min))
    return invalid("amax/amin over zero elements");
  plan.domain = std::move(domain);
  plan.keptDims = std::move(keptDims);
  plan.reducedDims = std::move(reducedDims);
  plan.outputs = outputs;
  plan.count = count;
  if (outputs > 0 && outputs < kMinUnits)
    plan.chunks = std::clamp<int64_t>(count / kMinChunk, 1,
                                      (kMinUnits + outputs - 1) / outputs);
  plan.chunkLen = (count + plan.chunks - 1) / plan.chunks;
  // Outputs contiguous along a long enough innermost dim: reduce a row of
  // them at a time (ReductionTiling's output tiles, on the CPU).
  for (size_t d = plan.domain.size(); d-- > 0;)
    if (plan.domain[d] > 1) {
      if (!reduced[d] && plan.domain[d] >= kMinRow && plan.chunks == 1 &&
          count > 0)
        plan.rowDim = int64_t(d);
      break;
    }
  plan.reads = std::move(inputReads);
  // Inputs whose reduced range is one run of memory (the reduced dims
  // innermost in the input, as in a norm's statistics) are read in place,
  // and inputs constant over it (a per-output value) as one value, instead
  // of being copied into the tile. A body with no step yields an input,
  // which must then span the tile. Bools are converted as they are
  // gathered.
  for (const InputRead &in : plan.reads) {
    bool uniform = true, contiguous = true;
    int64_t expected = 1;
    for (size_t j = plan.reducedDims.size(); j-- > 0;) {
      size_t d = size_t(plan.reducedDims[j]);
      if (plan.domain[d] == 1)
        continue;
      uniform &= in.strides[d] == 0;
      contiguous &= in.strides[d] == expected;
      expected *= plan.domain[d];
    }
    using RangeRead = FusedReduction::RangeRead;
    plan.rangeReads.push_back(
        in.type != cpu::ElemType::F32    ? RangeRead::Gathered
        : contiguous                     ? RangeRead::Contiguous
        : uniform && !body.steps.empty() ? RangeRead::Uniform
                                         : RangeRead::Gathered);
  }
  plan.gathers = std::count(plan.rangeReads.begin(), plan.rangeReads.end(),
                            FusedReduction::RangeRead::Gathered) > 0;
  // Few elements an output, consecutive in the space (every dim longer than
  // 1 after the first reduced one is reduced): whole outputs a tile.
  int64_t lastKept = -1, firstReduced = int64_t(plan.domain.size());
  for (size_t d = 0; d < plan.domain.size(); ++d)
    if (plan.domain[d] > 1) {
      if (reduced[d])
        firstReduced = std::min(firstReduced, int64_t(d));
      else
        lastKept = int64_t(d);
    }
  if (count > 0 && count <= kTile / 8 && lastKept < firstReduced &&
      plan.chunks == 1) {
    plan.perTile = kTile / count;
    for (const InputRead &in : plan.reads)
      plan.spaceReads.push_back(tileRead(in, plan.domain));
  }
  plan.steps = std::move(body.steps);
  plan.result = body.result;
  plan.y = outIdx(inst, 0);
  return RunFn([plan = std::move(plan)](RunContext &rc) -> Status {
    return plan.run(rc);
  });
}

} // namespace shardrt::exec
