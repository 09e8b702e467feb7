//===- StepFlops.cpp - Arithmetic of a step, for the profile --------------===//

#include "StepFlops.h"

#include <algorithm>

namespace shardrt::exec {
namespace {

using fb::Opcode;

uint64_t product(const Shape &s, size_t from = 0) {
  uint64_t n = 1;
  for (size_t d = from; d < s.size(); ++d)
    n *= uint64_t(s[d]);
  return n;
}

/// Output positions a conv computes: the whole output, or N x Cout x its
/// region's box.
uint64_t convOutputs(const ConvStep &step, const Shape &y) {
  if (!step.hasRegion)
    return product(y);
  const cpu::ConvParams &p = step.params;
  uint64_t n = uint64_t(y[0]) * uint64_t(y[1]);
  for (int d = 0; d < p.rank; ++d)
    n *= uint64_t(p.regionHi[d] - p.regionLo[d]);
  return n;
}

/// Product of a neighbourhood attention's kernel sizes.
uint64_t windowKeys(const cpu::NeighborhoodParams &p) {
  uint64_t keys = 1;
  for (int d = 0; d < p.rank; ++d)
    keys *= uint64_t(p.kernel[d]);
  return keys;
}

} // namespace

uint64_t stepFlops(const fb::Instruction &inst,
                   const std::vector<SlotInfo> &slots) {
  const auto *in = inst.inputs();
  const auto *out = inst.outputs();
  if (!in || !out || in->size() < 2 || out->size() < 1)
    return 0;
  const Shape &a = slots[in->Get(0)].shape, &b = slots[in->Get(1)].shape;
  const Shape &y = slots[out->Get(0)].shape;
  // The steps prepared already, so decoding again succeeds; a step that
  // does not decode counts nothing rather than guess.
  PrepareContext ctx{slots, 0, {}, {}};
  switch (inst.opcode()) {
  case Opcode::Conv: {
    // Every output position sums Cin / groups x kernel products.
    StatusOr<ConvStep> conv = decodeConv(inst, ctx);
    return conv.ok() ? 2 * convOutputs(*conv, y) * product(b, 1) : 0;
  }
  case Opcode::ConvTranspose:
    // Every input position scatters into Cout / groups x kernel outputs.
    return 2 * product(a) * product(b, 1);
  case Opcode::Matmul:
  case Opcode::Linear:
    // Both contract a's last dim (torch.matmul and linear alike).
    return a.empty() ? 0 : 2 * product(y) * uint64_t(a.back());
  case Opcode::Attention:
    // Each of the s keys meets every q element once and every output
    // element once.
    return b.size() < 2
               ? 0
               : 2 * uint64_t(b[b.size() - 2]) * (product(a) + product(y));
  case Opcode::RingAttention: {
    // As Attention, over every key of the ring (the last int: the key
    // starts come last); the blocks a causal rank skips are counted too,
    // as Attention counts its masked keys.
    const auto *ints = inst.ints();
    if (!ints || ints->size() < 5)
      return 0;
    uint64_t keys = uint64_t(std::max<int64_t>(ints->Get(ints->size() - 1), 0));
    return 2 * keys * (product(a) + product(y));
  }
  case Opcode::NeighborhoodAttention: {
    StatusOr<cpu::NeighborhoodParams> na = decodeNeighborhood(inst, ctx);
    return na.ok() ? 2 * windowKeys(*na) * (product(a) + product(y)) : 0;
  }
  default:
    return 0;
  }
}

} // namespace shardrt::exec
