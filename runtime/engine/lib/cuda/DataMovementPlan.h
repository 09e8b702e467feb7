//===- DataMovementPlan.h - Pads, slices, permutes, concats -----*- C++ -*-===//
//
// A constant Pad, a Slice, a Permute and a Concat only move strided boxes:
// the input (or each input) lands in one box of the output, and a Pad sets
// the rest to its value. Collectives pack and unpack their members' blocks
// the same way. The CUDA backend runs them as the box-copy and
// box-fill kernels instead of staging them through the host (a pad before
// every halo exchange is an activation's worth of bytes). Free of CUDA
// headers, so the CPU unit tests check the plans against the CPU kernels on
// machines without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_CUDA_DATAMOVEMENTPLAN_H
#define SHARDRT_ENGINE_CUDA_DATAMOVEMENTPLAN_H

#include "BoxCopyPlan.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace shardrt::exec::cuda {

struct MovePlan {
  /// Output boxes set to `value` (their destination side only).
  std::vector<BoxCopyPlan> fills;
  double value = 0;
  /// Input `sources[k]` copied into the output by `copies[k]`.
  std::vector<BoxCopyPlan> copies;
  std::vector<int> sources;
};

namespace detail {

/// Adds `p` as a copy from input `source` unless it moves nothing.
inline void addPlanned(MovePlan &plan, int source, const BoxCopyPlan &p) {
  if (p.count > 0) {
    plan.copies.push_back(p);
    plan.sources.push_back(source);
  }
}

inline bool addCopy(MovePlan &plan, int source, const std::vector<int64_t> &to,
                    const std::vector<int64_t> &toLo,
                    const std::vector<int64_t> &from,
                    const std::vector<int64_t> &fromLo,
                    const std::vector<int64_t> &box) {
  BoxCopyPlan p;
  if (!planBoxCopy({to.data(), toLo.data()}, {from.data(), fromLo.data()},
                   box.data(), int(box.size()), p))
    return false;
  addPlanned(plan, source, p);
  return true;
}

inline bool addFill(MovePlan &plan, const std::vector<int64_t> &to,
                    const std::vector<int64_t> &lo,
                    const std::vector<int64_t> &box) {
  BoxCopyPlan p;
  if (!planBoxCopy({to.data(), lo.data()}, {to.data(), lo.data()}, box.data(),
                   int(box.size()), p))
    return false;
  if (p.count > 0)
    plan.fills.push_back(p);
  return true;
}

} // namespace detail

/// Pads `in` by `lo` before each dim into `out` (hi follows from the
/// shapes; negative amounts crop), filling with `value`: one copy of the
/// kept input box, and the output outside it as at most two slabs per dim
/// (dim d's slabs span the kept box in the dims before d and all of the
/// dims after it), so no element is written twice.
inline bool planPadMove(const std::vector<int64_t> &in,
                        const std::vector<int64_t> &out,
                        const std::vector<int64_t> &lo, double value,
                        MovePlan &plan) {
  size_t rank = in.size();
  if (out.size() != rank || lo.size() != rank)
    return false;
  plan = MovePlan();
  plan.value = value;
  std::vector<int64_t> inLo(rank), outLo(rank), box(rank);
  for (size_t d = 0; d < rank; ++d) {
    inLo[d] = std::min(std::max<int64_t>(0, -lo[d]), in[d]);
    outLo[d] = std::min(std::max<int64_t>(0, lo[d]), out[d]);
    box[d] = std::max<int64_t>(0, std::min(in[d] - inLo[d], out[d] - outLo[d]));
  }
  if (!detail::addCopy(plan, 0, out, outLo, in, inLo, box))
    return false;
  for (size_t d = 0; d < rank; ++d) {
    std::vector<int64_t> slabLo(rank, 0), slab = out;
    for (size_t e = 0; e < d; ++e) {
      slabLo[e] = outLo[e];
      slab[e] = box[e];
    }
    slab[d] = outLo[d];
    if (!detail::addFill(plan, out, slabLo, slab))
      return false;
    slabLo[d] = outLo[d] + box[d];
    slab[d] = out[d] - slabLo[d];
    if (!detail::addFill(plan, out, slabLo, slab))
      return false;
  }
  return true;
}

/// `out` = in[start[d] : : step[d]] (steps >= 1): one strided copy.
inline bool planSliceMove(const std::vector<int64_t> &in,
                          const std::vector<int64_t> &out,
                          const std::vector<int64_t> &start,
                          const std::vector<int64_t> &step, MovePlan &plan) {
  int rank = int(in.size());
  if (out.size() != in.size() || start.size() != in.size() ||
      step.size() != in.size() || rank > kMaxBoxRank ||
      std::any_of(step.begin(), step.end(), [](int64_t s) { return s < 1; }))
    return false;
  plan = MovePlan();
  long long inS[kMaxBoxRank], outS[kMaxBoxRank], srcS[kMaxBoxRank];
  rowMajorStrides(in.data(), rank, inS);
  rowMajorStrides(out.data(), rank, outS);
  long long base = 0;
  for (int d = 0; d < rank; ++d) {
    srcS[d] = inS[d] * step[size_t(d)];
    base += start[size_t(d)] * inS[d];
  }
  BoxCopyPlan p;
  if (!planStridedCopy(out.data(), srcS, outS, rank, base, 0, p))
    return false;
  detail::addPlanned(plan, 0, p);
  return true;
}

/// `out` = in.permute(perm): the output walked in order, each of its dims
/// stepping the input by the stride of the input dim it takes.
inline bool planPermuteMove(const std::vector<int64_t> &in,
                            const std::vector<int64_t> &perm, MovePlan &plan) {
  int rank = int(in.size());
  if (perm.size() != in.size() || rank > kMaxBoxRank)
    return false;
  plan = MovePlan();
  long long inS[kMaxBoxRank], outS[kMaxBoxRank], srcS[kMaxBoxRank];
  int64_t out[kMaxBoxRank];
  rowMajorStrides(in.data(), rank, inS);
  for (int d = 0; d < rank; ++d) {
    int64_t p = perm[size_t(d)];
    if (p < 0 || p >= rank)
      return false;
    out[d] = in[size_t(p)];
    srcS[d] = inS[p];
  }
  rowMajorStrides(out, rank, outS);
  BoxCopyPlan p;
  if (!planStridedCopy(out, srcS, outS, rank, 0, 0, p))
    return false;
  detail::addPlanned(plan, 0, p);
  return true;
}

/// torch.cat(ins, dim) into `out`: input k at its offset along `dim`.
inline bool planConcatMove(const std::vector<std::vector<int64_t>> &ins,
                           const std::vector<int64_t> &out, int64_t dim,
                           MovePlan &plan) {
  if (dim < 0 || size_t(dim) >= out.size())
    return false;
  plan = MovePlan();
  std::vector<int64_t> at(out.size(), 0), zero(out.size(), 0);
  for (size_t k = 0; k < ins.size(); ++k) {
    if (ins[k].size() != out.size())
      return false;
    if (!detail::addCopy(plan, int(k), out, at, ins[k], zero, ins[k]))
      return false;
    at[size_t(dim)] += ins[k][size_t(dim)];
  }
  return true;
}

/// An all-gather's unpacking: member q's block (`block` but `extents[q]`
/// wide along `dim`), packed member-major in staging, into its place along
/// `dim` of `out`. Copy k reads the packed block `sources[k]` (each from its
/// own start).
inline bool planGatherUnpack(const std::vector<int64_t> &block,
                             const std::vector<int64_t> &extents,
                             const std::vector<int64_t> &out, int64_t dim,
                             MovePlan &plan) {
  if (dim < 0 || size_t(dim) >= block.size())
    return false;
  std::vector<std::vector<int64_t>> blocks(extents.size(), block);
  for (size_t q = 0; q < extents.size(); ++q)
    blocks[q][size_t(dim)] = extents[q];
  return planConcatMove(blocks, out, dim, plan);
}

/// A split's packing, the reverse of planGatherUnpack: member q's block of
/// `whole` (`extents[q]` wide along `dim`, in member order) copied to the
/// start of its own packed block. Here `sources[k]` names the packed block
/// that copy k writes (a reduce-scatter's or an all-to-all's sends).
inline bool planSplitPack(const std::vector<int64_t> &whole,
                          const std::vector<int64_t> &extents, int64_t dim,
                          MovePlan &plan) {
  if (dim < 0 || size_t(dim) >= whole.size())
    return false;
  plan = MovePlan();
  std::vector<int64_t> at(whole.size(), 0), zero(whole.size(), 0);
  for (size_t q = 0; q < extents.size(); ++q) {
    std::vector<int64_t> block = whole;
    block[size_t(dim)] = extents[q];
    if (!detail::addCopy(plan, int(q), block, zero, whole, at, block))
      return false;
    at[size_t(dim)] += extents[q];
  }
  return true;
}

} // namespace shardrt::exec::cuda

#endif // SHARDRT_ENGINE_CUDA_DATAMOVEMENTPLAN_H
