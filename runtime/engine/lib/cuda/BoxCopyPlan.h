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

/// Plans copying `rank` dims of extents `box` where dim d steps the source
/// by `srcStride[d]` and the destination by `dstStride[d]` elements, from
/// the given bases; false when `rank` is outside [0, kMaxBoxRank]. Dims are
/// walked innermost first: a dim joins the run below it when that run spans
/// exactly one step of the dim on both sides (the two are then one run), so
/// most copies become a few long runs; dims of extent 1 are dropped.
inline bool planStridedCopy(const int64_t *box, const long long *srcStride,
                            const long long *dstStride, int rank,
                            long long srcBase, long long dstBase,
                            BoxCopyPlan &plan) {
  if (rank < 0 || rank > kMaxBoxRank)
    return false;
  plan = BoxCopyPlan();
  plan.srcBase = srcBase;
  plan.dstBase = dstBase;
  long long boxR[kMaxBoxRank], srcS[kMaxBoxRank], dstS[kMaxBoxRank];
  int merged = 0;
  for (int d = rank - 1; d >= 0; --d) {
    plan.count *= box[d];
    if (box[d] == 1)
      continue;
    int m = merged - 1;
    if (m >= 0 && boxR[m] * srcS[m] == srcStride[d] &&
        boxR[m] * dstS[m] == dstStride[d]) {
      boxR[m] *= box[d];
    } else {
      boxR[merged] = box[d];
      srcS[merged] = srcStride[d];
      dstS[merged] = dstStride[d];
      ++merged;
    }
  }
  plan.rank = merged;
  for (int k = 0; k < merged; ++k) {
    plan.box[k] = boxR[merged - 1 - k];
    plan.srcStride[k] = srcS[merged - 1 - k];
    plan.dstStride[k] = dstS[merged - 1 - k];
  }
  return true;
}

/// Row-major element strides of `shape` (`rank` dims) into `strides`.
inline void rowMajorStrides(const int64_t *shape, int rank,
                            long long *strides) {
  long long stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape[d];
  }
}

/// Plans copying the box of extents `box` from `from` to `to` (row-major
/// buffers); false when `rank` is outside [0, kMaxBoxRank].
inline bool planBoxCopy(const BoxView &to, const BoxView &from,
                        const int64_t *box, int rank, BoxCopyPlan &plan) {
  if (rank < 0 || rank > kMaxBoxRank)
    return false;
  long long srcS[kMaxBoxRank], dstS[kMaxBoxRank];
  rowMajorStrides(from.shape, rank, srcS);
  rowMajorStrides(to.shape, rank, dstS);
  long long srcBase = 0, dstBase = 0;
  for (int d = 0; d < rank; ++d) {
    srcBase += from.lo[d] * srcS[d];
    dstBase += to.lo[d] * dstS[d];
  }
  return planStridedCopy(box, srcS, dstS, rank, srcBase, dstBase, plan);
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
