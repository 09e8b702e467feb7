//===- FusedLaunch.cpp - How a generated fused kernel is launched ---------===//

#include "FusedLaunch.h"

#include "shardrt/artifact/ReductionTiling.h"

#include <algorithm>
#include <utility>

namespace shardrt::exec {
namespace {

/// The elements a ReductionFused reduces into each output, and its tiling
/// (its header was checked by the CPU decoder).
std::pair<int64_t, artifact::ReductionTiling>
reductionShape(const fb::Instruction &inst) {
  IntReader ints(inst);
  Shape domain;
  std::vector<bool> reduced;
  if (!readReductionHeader(ints, domain, reduced).ok())
    return {0, artifact::ReductionTiling::RowPerBlock};
  int64_t count = 1;
  for (size_t d = 0; d < domain.size(); ++d)
    if (reduced[d])
      count *= domain[d];
  return {count, artifact::reductionTiling(domain, reduced)};
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
    // A group norm's 8 groups per rank would use 8 SMs otherwise: units
    // (an output, or a tile of outputs) few against the SMs are split into
    // chunks of at least 8192 elements.
    auto [count, tiling] = reductionShape(inst);
    launch.tiled = tiling == artifact::ReductionTiling::OutputTiles;
    int64_t width = launch.tiled ? artifact::kOutputTile : 1;
    int64_t units = (n + width - 1) / width;
    int64_t target = 2 * int64_t(std::max(smCount, 1));
    if (units > 0 && units < target)
      launch.chunks = std::clamp<int64_t>(count * std::min(n, width) / 8192, 1,
                                          (target + units - 1) / units);
    wanted = units * launch.chunks;
  }
  launch.blocks = unsigned(
      std::min<int64_t>(std::max<int64_t>(wanted, 1), int64_t(smCount) * 32));
  return launch;
}

} // namespace shardrt::exec
