//===- AttentionPlanTest.cpp - CUDA attention blocks, on the CPU ----------===//
//
// The CUDA backend's scaled dot-product attention runs, per block of
// planAttention, a GEMM into the workspace, the masked softmax kernel
// (`maskedScore`, then max, exponentials, sum, scale; NaN where no key is
// visible) and a GEMM into the output. Here the same blocks run on the host
// with plain loops in place of cuBLAS, over a workspace of exactly the
// planned size (the masked softmax is CudaKernels.cu's own kernel, built
// for the host by hostcuda/), and must match cpu::sdpa fed the mask
// materialised at full shape by cpu::broadcastTo: every broadcast of bool and
// f32 masks, causal, rows with nothing visible, NaN and -inf in masks, empty
// extents, and workspace budgets that split batches and query rows.
//
//===----------------------------------------------------------------------===//

#include "../lib/cuda/AttentionPlan.h"
#include "../lib/cuda/CudaLaunch.h"

#include "TestModel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace shardrt::exec::cuda {
namespace {

using enginetest::RandomInts;

/// What the device does for the plan: GEMM, softmax kernel, GEMM per block.
/// The softmax is CudaKernels.cu's kernel built for the host.
std::vector<float>
runPlanOnHost(const AttentionStep &a, const AttentionPlan &plan,
              const std::vector<float> &q, const std::vector<float> &k,
              const std::vector<float> &v, const void *mask) {
  // Rows the blocks miss keep this value (and fail the comparison).
  std::vector<float> y(size_t(a.batch * a.l * a.ev), 1234.5f);
  if (a.s == 0)
    std::fill(y.begin(), y.end(), 0.0f);
  AttentionView view = plan.at(plan.maskOffsets.data());
  std::vector<float> scores(size_t(plan.workspaceFloats));
  for (const AttentionBlock &blk : plan.blocks) {
    EXPECT_LE(blk.scores(), plan.workspaceFloats);
    for (long long r = 0; r < blk.batches * blk.rows; ++r) {
      long long b = blk.b0 + r / blk.rows, i = blk.q0 + r % blk.rows;
      for (long long j = 0; j < blk.cols; ++j) {
        float dot = 0.0f;
        for (long long c = 0; c < a.e; ++c)
          dot += q[size_t((b * a.l + i) * a.e + c)] *
                 k[size_t((b * a.s + j) * a.e + c)];
        scores[size_t(r * blk.cols + j)] = float(a.scale) * dot;
      }
    }
    EXPECT_EQ(launchMaskedSoftmax(scores.data(), mask, view, blk, nullptr),
              cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
    for (long long r = 0; r < blk.batches * blk.rows; ++r) {
      long long b = blk.b0 + r / blk.rows, i = blk.q0 + r % blk.rows;
      const float *row = scores.data() + r * blk.cols;
      for (long long c = 0; c < a.ev; ++c) {
        float acc = 0.0f;
        for (long long j = 0; j < blk.cols; ++j)
          acc += row[j] * v[size_t((b * a.s + j) * a.ev + c)];
        y[size_t((b * a.l + i) * a.ev + c)] = acc;
      }
    }
  }
  return y;
}

TEST(AttentionPlan, BlocksMatchTheCpuKernel) {
  RandomInts pick(53);
  int split = 0, rowSplit = 0, broadcastMasks = 0, nanRows = 0;
  for (int trial = 0; trial < 400; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    AttentionStep a;
    Shape batch;
    for (int64_t d = pick(0, 2); d > 0; --d)
      batch.push_back(pick(trial % 50 ? 1 : 0, 3));
    a.batch = enginetest::count(batch);
    a.l = pick(trial % 40 ? 1 : 0, 9);
    // Some rows wider than a block's 256 threads, so every warp's partial
    // and the threads' strides count.
    a.s = trial % 25 == 7 ? pick(257, 700) : pick(trial % 30 ? 1 : 0, 9);
    a.e = pick(trial % 35 ? 1 : 0, 4);
    a.ev = pick(trial % 45 ? 1 : 0, 4);
    a.causal = pick(0, 1);
    a.scale = 0.3 + 0.1 * double(pick(0, 8));
    a.fullMask = batch;
    a.fullMask.push_back(a.l);
    a.fullMask.push_back(a.s);
    a.mask = AttentionStep::Mask(pick(0, 2));
    std::vector<uint8_t> maskBytes;
    size_t elem = a.mask == AttentionStep::Mask::Bool ? 1 : sizeof(float);
    if (a.mask != AttentionStep::Mask::None) {
      // Each dim whole or broadcast.
      a.maskShape = a.fullMask;
      for (int64_t &n : a.maskShape)
        if (pick(0, 2) == 0)
          n = 1;
      broadcastMasks += a.maskShape != a.fullMask;
      maskBytes.resize(size_t(enginetest::count(a.maskShape)) * elem);
      for (size_t i = 0; i < maskBytes.size() / elem; ++i) {
        if (a.mask == AttentionStep::Mask::Bool) {
          maskBytes[i] = pick(0, 9) < 7;
          continue;
        }
        int64_t r = pick(0, 40);
        float m = r == 0   ? -std::numeric_limits<float>::infinity()
                  : r == 1 ? std::nanf("")
                           : float(r - 20) / 8.0f;
        std::memcpy(maskBytes.data() + i * elem, &m, sizeof m);
      }
    }
    std::vector<float> q(size_t(a.batch * a.l * a.e)),
        k(size_t(a.batch * a.s * a.e)), v(size_t(a.batch * a.s * a.ev));
    for (std::vector<float> *t : {&q, &k, &v})
      for (float &x : *t)
        x = float(pick(-12, 12)) / 6.0f;
    long long budget = pick(1, 2 * std::max<int64_t>(a.l * a.s, 1) + 2);
    AttentionPlan plan = planAttention(a, budget);
    for (const AttentionBlock &blk : plan.blocks) {
      EXPECT_LE(blk.scores(), std::max<long long>(budget, a.s));
      split += blk.batches < a.batch;
      rowSplit += blk.rows < a.l;
    }
    std::vector<float> got = runPlanOnHost(
        a, plan, q, k, v, maskBytes.empty() ? nullptr : maskBytes.data());

    std::vector<uint8_t> full;
    if (!maskBytes.empty()) {
      full.resize(size_t(enginetest::count(a.fullMask)) * elem);
      cpu::broadcastTo(maskBytes.data(), a.maskShape, full.data(), a.fullMask,
                       elem);
    }
    std::vector<float> want(got.size(), -7.0f);
    cpu::sdpa(a.batch, a.l, a.s, a.e, a.ev, q.data(), k.data(), v.data(),
              full.empty() ? nullptr : full.data(),
              a.mask == AttentionStep::Mask::Bool, a.batch, a.causal, a.scale,
              want.data());
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(std::isnan(got[i]), std::isnan(want[i])) << "element " << i;
      nanRows += std::isnan(want[i]);
      if (!std::isnan(want[i])) {
        ASSERT_NEAR(got[i], want[i], 1e-5f * (1.0f + std::fabs(want[i])))
            << "element " << i;
      }
    }
  }
  // Every kind of block and mask was exercised.
  EXPECT_GT(split, 20);
  EXPECT_GT(rowSplit, 20);
  EXPECT_GT(broadcastMasks, 50);
  EXPECT_GT(nanRows, 20);
}

TEST(AttentionPlan, MaskOffsetsFollowTheBroadcastDims) {
  // A (2, 1, 4, 1) mask over (2, 3, 4, 5) scores: batch entry b = 3 * i0
  // + i1 reads block i0, every row of its own and one column for all keys.
  AttentionStep a;
  a.batch = 6;
  a.l = 4;
  a.s = 5;
  a.e = a.ev = 1;
  a.mask = AttentionStep::Mask::Float;
  a.fullMask = {2, 3, 4, 5};
  a.maskShape = {2, 1, 4, 1};
  AttentionPlan plan = planAttention(a, 1 << 20);
  EXPECT_EQ(plan.maskOffsets, (std::vector<long long>{0, 0, 0, 4, 4, 4}));
  EXPECT_EQ(plan.shape.maskRowStride, 1);
  EXPECT_EQ(plan.shape.maskColStride, 0);
  // One block holds all six entries when they fit; one row each when not.
  ASSERT_EQ(plan.blocks.size(), 1u);
  EXPECT_EQ(plan.blocks[0].batches, 6);
  EXPECT_EQ(plan.workspaceFloats, 6 * 4 * 5);
  a.causal = true;
  plan = planAttention(a, 5);
  ASSERT_EQ(plan.blocks.size(), 24u);
  // A causal row block sees only the keys up to its last row.
  EXPECT_EQ(plan.blocks[1].q0, 1);
  EXPECT_EQ(plan.blocks[1].cols, 2);
  EXPECT_EQ(plan.workspaceFloats, 4);
}

} // namespace
} // namespace shardrt::exec::cuda
