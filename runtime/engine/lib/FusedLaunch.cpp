//===- FusedLaunch.cpp - How a generated fused kernel is launched ---------===//

#include "FusedLaunch.h"

#include <algorithm>

namespace shardrt::exec {
namespace {

/// The elements a ReductionFused reduces into each output (its header was
/// checked by the CPU decoder).
int64_t reducedCount(const fb::Instruction &inst) {
  IntReader ints(inst);
  Shape domain;
  std::vector<bool> reduced;
  if (!readReductionHeader(ints, domain, reduced).ok())
    return 0;
  int64_t count = 1;
  for (size_t d = 0; d < domain.size(); ++d)
    if (reduced[d])
      count *= domain[d];
  return count;
}

} // namespace

FusedLaunch planFusedLaunch(const fb::Instruction &inst,
                            const PrepareContext &ctx, int smCount) {
  FusedLaunch launch;
  for (size_t i = 0; i < numInputs(inst); ++i)
    launch.operands.push_back(inIdx(inst, i));
  launch.operands.push_back(outIdx(inst, 0));
  int64_t n = numElements(outSlot(inst, ctx, 0).shape);
  launch.outputs = n;
  launch.reduction = inst.opcode() == fb::Opcode::ReductionFused;
  int64_t wanted = (n + 255) / 256;
  if (launch.reduction) {
    // A group norm's 8 groups per rank would use 8 SMs otherwise.
    int64_t count = reducedCount(inst);
    int64_t target = 2 * int64_t(std::max(smCount, 1));
    if (n > 0 && n < target)
      launch.chunks =
          std::clamp<int64_t>(count / 8192, 1, (target + n - 1) / n);
    wanted = n * launch.chunks;
  }
  launch.blocks = unsigned(
      std::min<int64_t>(std::max<int64_t>(wanted, 1), int64_t(smCount) * 32));
  return launch;
}

} // namespace shardrt::exec
