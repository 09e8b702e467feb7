//===- BoxCopyPlan.h - Box copies as a few strided runs ---------*- C++ -*-===//
//
// How the CUDA backend's box-copy kernel (halo packing and unpacking) maps
// element i of a box to its offsets in the source and destination. Free of
// CUDA headers, so that the CPU unit tests check the plan against the CPU
// backend's copyBox on machines without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_CUDA_BOXCOPYPLAN_H
#define SHARDRT_ENGINE_CUDA_BOXCOPYPLAN_H

#include <cstdint>

#if defined(__CUDACC__)
#define SHARDRT_HOST_DEVICE __host__ __device__
#else
#define SHARDRT_HOST_DEVICE
#endif

namespace shardrt::exec::cuda {

/// The most dims a box copy takes.
constexpr int kMaxBoxRank = 16;

/// One side of a box copy: the whole buffer's shape and where the box
/// starts in it (`rank` entries each).
struct BoxView {
  const int64_t *shape;
  const int64_t *lo;
};

/// A box copy after merging dims: per merged dim (outermost first) its
/// extent and the element strides of both sides, and where the box starts
/// in each.
struct BoxCopyPlan {
  int rank = 0;
  long long box[kMaxBoxRank] = {}, srcStride[kMaxBoxRank] = {},
            dstStride[kMaxBoxRank] = {};
  long long srcBase = 0, dstBase = 0, count = 1;
};

/// Plans copying the box of extents `box` from `from` to `to`; false when
/// `rank` is outside [0, kMaxBoxRank]. Dims are walked innermost first: a
/// dim joins the run below it when that run spans exactly one step of the
/// dim on both sides (the two are then one contiguous run), so most halos
/// become a few long runs; dims of extent 1 only move the bases.
inline bool planBoxCopy(const BoxView &to, const BoxView &from,
                        const int64_t *box, int rank, BoxCopyPlan &plan) {
  if (rank < 0 || rank > kMaxBoxRank)
    return false;
  plan = BoxCopyPlan();
  long long boxR[kMaxBoxRank], srcS[kMaxBoxRank], dstS[kMaxBoxRank];
  long long srcStride = 1, dstStride = 1;
  int merged = 0;
  for (int d = rank - 1; d >= 0; --d) {
    plan.count *= box[d];
    plan.srcBase += from.lo[d] * srcStride;
    plan.dstBase += to.lo[d] * dstStride;
    if (box[d] != 1) {
      int m = merged - 1;
      if (m >= 0 && boxR[m] * srcS[m] == srcStride &&
          boxR[m] * dstS[m] == dstStride) {
        boxR[m] *= box[d];
      } else {
        boxR[merged] = box[d];
        srcS[merged] = srcStride;
        dstS[merged] = dstStride;
        ++merged;
      }
    }
    srcStride *= from.shape[d];
    dstStride *= to.shape[d];
  }
  plan.rank = merged;
  for (int k = 0; k < merged; ++k) {
    plan.box[k] = boxR[merged - 1 - k];
    plan.srcStride[k] = srcS[merged - 1 - k];
    plan.dstStride[k] = dstS[merged - 1 - k];
  }
  return true;
}

/// The source and destination element offsets of the box's element i
/// (row-major over the merged dims).
SHARDRT_HOST_DEVICE inline void boxCopyOffsets(const BoxCopyPlan &p,
                                               long long i, long long &src,
                                               long long &dst) {
  src = p.srcBase;
  dst = p.dstBase;
  for (int k = p.rank - 1; k >= 0; --k) {
    long long idx = i % p.box[k];
    i /= p.box[k];
    src += idx * p.srcStride[k];
    dst += idx * p.dstStride[k];
  }
}

} // namespace shardrt::exec::cuda

#endif // SHARDRT_ENGINE_CUDA_BOXCOPYPLAN_H
