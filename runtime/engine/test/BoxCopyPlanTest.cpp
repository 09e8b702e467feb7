//===- BoxCopyPlanTest.cpp - The CUDA box copy's plan, on the CPU ---------===//
//
// The CUDA backend packs and unpacks halos with one kernel whose element
// mapping is BoxCopyPlan; here that mapping, run on the host, must copy
// exactly what the CPU backend's copyBox copies, for random boxes of rank 0
// to 5 (1-extent dims, whole dims, empty boxes included).
//
//===----------------------------------------------------------------------===//

#include "../lib/cuda/BoxCopyPlan.h"
#include "TestModel.h"
#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

namespace shardrt::exec::cuda {
namespace {

using enginetest::count;
using enginetest::Shape;

/// Copies with the plan, as the kernel does (element i of the box).
std::vector<int32_t> planned(const std::vector<int32_t> &src,
                             const Shape &srcShape, const Shape &srcLo,
                             std::vector<int32_t> dst, const Shape &dstShape,
                             const Shape &dstLo, const Shape &box,
                             BoxCopyPlan *planOut = nullptr) {
  BoxCopyPlan plan;
  EXPECT_TRUE(planBoxCopy({dstShape.data(), dstLo.data()},
                          {srcShape.data(), srcLo.data()}, box.data(),
                          int(box.size()), plan));
  EXPECT_EQ(plan.count, count(box));
  for (long long i = 0; i < plan.count; ++i) {
    long long s = 0, d = 0;
    boxCopyOffsets(plan, i, s, d);
    dst.at(size_t(d)) = src.at(size_t(s));
  }
  if (planOut)
    *planOut = plan;
  return dst;
}

TEST(BoxCopyPlan, MatchesTheCpuCopyBox) {
  enginetest::RandomInts pick(7);
  for (int trial = 0; trial < 400; ++trial) {
    int rank = int(pick(0, 5));
    const size_t n = static_cast<size_t>(rank);
    Shape box(n), srcShape(n), dstShape(n), srcLo(n), dstLo(n);
    for (int d = 0; d < rank; ++d) {
      box[size_t(d)] = pick(trial % 50 == 0 ? 0 : 1, 4);
      // Often whole on one side or both, so that dims merge.
      srcShape[size_t(d)] = box[size_t(d)] + (pick(0, 2) ? 0 : pick(1, 3));
      dstShape[size_t(d)] = box[size_t(d)] + (pick(0, 2) ? 0 : pick(1, 3));
      srcLo[size_t(d)] = pick(0, srcShape[size_t(d)] - box[size_t(d)]);
      dstLo[size_t(d)] = pick(0, dstShape[size_t(d)] - box[size_t(d)]);
    }
    std::vector<int32_t> src(size_t(count(srcShape)));
    std::iota(src.begin(), src.end(), 1);
    std::vector<int32_t> dst(size_t(count(dstShape)), -1);
    std::vector<int32_t> want = dst;
    cpu::copyBox(src.data(), srcShape, srcLo, want.data(), dstShape, dstLo, box,
                 sizeof(int32_t));
    SCOPED_TRACE("trial " + std::to_string(trial) + ", rank " +
                 std::to_string(rank));
    EXPECT_EQ(planned(src, srcShape, srcLo, dst, dstShape, dstLo, box), want);
  }
}

TEST(BoxCopyPlan, HaloSlabsBecomeFewRuns) {
  // Rows [3, 5) of a (2, 4, 10, 6) NCHW slot into a packed (2, 4, 2, 6)
  // buffer: the rows of one (n, c) are one run of 12, and n and c merge
  // into one dim of 8 such runs.
  Shape slot = {2, 4, 10, 6}, lo = {0, 0, 3, 0}, box = {2, 4, 2, 6},
        zero = {0, 0, 0, 0};
  std::vector<int32_t> src(size_t(count(slot)));
  std::iota(src.begin(), src.end(), 0);
  BoxCopyPlan plan;
  std::vector<int32_t> packed =
      planned(src, slot, lo, std::vector<int32_t>(size_t(count(box))), box,
              zero, box, &plan);
  ASSERT_EQ(plan.rank, 2);
  EXPECT_EQ(plan.box[0], 8);
  EXPECT_EQ(plan.box[1], 12);
  EXPECT_EQ(plan.srcStride[0], 60);
  EXPECT_EQ(plan.dstStride[0], 12);
  EXPECT_EQ(plan.srcBase, 18);
  EXPECT_EQ(packed[12], 60 + 18); // (n=0, c=1) starts one slab further
  // A rank beyond the kernel's limit is refused, not overrun.
  Shape big(static_cast<size_t>(kMaxBoxRank + 1), 1);
  EXPECT_FALSE(planBoxCopy({big.data(), big.data()}, {big.data(), big.data()},
                           big.data(), int(big.size()), plan));
}

} // namespace
} // namespace shardrt::exec::cuda
