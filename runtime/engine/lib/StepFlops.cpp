//===- StepFlops.cpp - Arithmetic of a step, for the profile --------------===//

#include "StepFlops.h"

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
/// region box when ints carry one (r, stride, pad, dilation, groups, lo, hi).
uint64_t convOutputs(const fb::Instruction &inst, const Shape &y) {
  const auto *ints = inst.ints();
  if (!ints || ints->size() == 0)
    return product(y);
  int64_t r = ints->Get(0);
  if (r < 1 || ints->size() != size_t(5 * r + 2) || y.size() != size_t(r + 2))
    return product(y);
  uint64_t n = uint64_t(y[0]) * uint64_t(y[1]);
  for (int64_t d = 0; d < r; ++d)
    n *= uint64_t(ints->Get(3 * r + 2 + d + r) - ints->Get(3 * r + 2 + d));
  return n;
}

/// Product of a neighbourhood attention's kernel sizes (ints: r, kernel xr,
/// ...).
uint64_t windowKeys(const fb::Instruction &inst) {
  const auto *ints = inst.ints();
  if (!ints || ints->size() == 0)
    return 0;
  int64_t r = ints->Get(0);
  if (r < 1 || ints->size() < size_t(1 + r))
    return 0;
  uint64_t keys = 1;
  for (int64_t d = 0; d < r; ++d)
    keys *= uint64_t(ints->Get(1 + d));
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
  switch (inst.opcode()) {
  case Opcode::Conv:
    // Every output position sums Cin / groups x kernel products.
    return 2 * convOutputs(inst, y) * product(b, 1);
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
  case Opcode::NeighborhoodAttention:
    return 2 * windowKeys(inst) * (product(a) + product(y));
  default:
    return 0;
  }
}

} // namespace shardrt::exec
