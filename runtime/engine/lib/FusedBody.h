//===- FusedBody.h - Fused bodies as chains of steps over tiles -*- C++ -*-===//
//
// What the CPU evaluators of ElementwiseFused and ReductionFused share: a
// body decoded into steps over registers, how each input is read where the
// body runs (numpy broadcasting), and the steps applied to a tile of
// registers that stays in cache.
//
// Registers hold f32. A bool (the result of a comparison, a `bool` cast, or
// a select's condition) is 0.0 or 1.0, so a mask that only the body reads
// is never a buffer. A bf16 or f16 input is widened as it is read, and a
// `bf16` / `f16` step rounds a register to that type's values (a cast down
// inside the body), so a 16-bit chain keeps PyTorch's per-op rounding.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_FUSEDBODY_H
#define SHARDRT_ENGINE_FUSEDBODY_H

#include "Prepare.h"

#include <array>
#include <string>
#include <vector>

namespace shardrt::exec::fused {

/// Elements a tile holds: a register of this many floats stays in L1.
constexpr int64_t kTile = 2048;

enum class StepKind {
  Unary,   ///< a Unary mode
  Binary,  ///< a Binary mode
  Compare, ///< eq ne lt le gt ge: 1.0 where it holds, else 0.0
  Select,  ///< select(c, t, f): t where c != 0, else f
  Bool,    ///< bool(x): 1.0 where x != 0 (NaN included), else 0.0
  Round,   ///< bf16(x) / f16(x): x rounded to that type's nearest value
};

struct Step {
  StepKind kind = StepKind::Unary;
  cpu::UnaryKind unary{};
  cpu::BinaryKind binary{};
  cpu::CompareKind compare{};
  cpu::ElemType roundTo = cpu::ElemType::BF16; ///< Round's type
  int arity = 1;
  std::array<int64_t, 3> operands{}; ///< registers
};

/// A body: its steps and the register it yields.
struct Body {
  std::vector<Step> steps;
  int64_t result = 0;
};

/// The space-separated words of the instruction's `str`.
std::vector<std::string> words(const fb::Instruction &inst);

/// The body's steps: `fns` are their functions, `ints` (read from where
/// the body starts) their operand registers, then the result register. A
/// reduction's body may have no step and yield an input (a plain Reduce).
StatusOr<Body> parseBody(const std::vector<std::string> &fns, IntReader &ints,
                         int64_t inputs, bool reduction);

/// How an input is read at the space's flat index: directly when it has
/// the space's shape, else through strides that are 0 on broadcast dims.
struct InputRead {
  uint32_t slot = 0;
  /// f32, or converted as read: i1 bytes as 1.0 or 0.0, bf16 and f16
  /// widened.
  cpu::ElemType type = cpu::ElemType::F32;
  bool direct = false;
  std::vector<int64_t> strides; ///< per dim of the space
};

/// How each input (f32, i1, bf16 or f16) of `inst` is read over `domain`
/// (numpy broadcasting). `what` names the domain in errors.
StatusOr<std::vector<InputRead>> broadcastReads(const fb::Instruction &inst,
                                                const PrepareContext &ctx,
                                                const Shape &domain,
                                                const std::string &what);

/// A tile's register: `len` values, or one value that stands for all of
/// them (an input broadcast across the whole tile, or a step on such).
struct Register {
  const float *data = nullptr;
  bool single = false;
};

/// Applies the steps to `len` elements whose inputs are in reg[0..inputs);
/// the last step writes `result`, the others registers of `scratch`. A step
/// on single values computes one value.
void runSteps(const std::vector<Step> &steps, size_t inputs,
              std::vector<Register> &reg, float *scratch, float *result,
              int64_t len);

/// `n` values of a converted input (`type` not f32) as the body reads them,
/// `stride` elements apart (0: one value, repeated).
void widenedValues(cpu::ElemType type, const void *src, int64_t stride,
                   float *dst, int64_t n);

/// An input of a body as its tiles read it: the space's dims merged
/// wherever the input is contiguous or broadcast across them, so that,
/// e.g., a per-channel value of an NCHW output spans H x W at once.
struct TileRead {
  uint32_t slot = 0;
  cpu::ElemType type = cpu::ElemType::F32;
  bool direct = false;
  Shape dims;
  std::vector<int64_t> strides;
};

TileRead tileRead(const InputRead &in, const Shape &space);

/// Where element `i` of `read`'s input lies (elements of its type).
const void *elementAt(RunContext &rc, const InputRead &read, int64_t i);

/// `read`'s values for elements [lo, lo + len) of the space it was made
/// for: in place when it is direct or one value for the whole tile (f32),
/// else copied to `dst` (other types always, converted). `index` is scratch of
/// read.dims.size() entries.
Register gatherTile(RunContext &rc, const TileRead &read, int64_t lo,
                    int64_t len, std::vector<int64_t> &index, float *dst);

} // namespace shardrt::exec::fused

#endif // SHARDRT_ENGINE_FUSEDBODY_H
