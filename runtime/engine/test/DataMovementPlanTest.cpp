//===- DataMovementPlanTest.cpp - CUDA pad/slice/concat plans, on the CPU -===//
//
// The CUDA backend runs a constant Pad, a Slice, a Permute, a Concat, an
// all-gather's unpacking and a split's packing as box fills and strided box
// copies (DataMovementPlan). Here those plans, run on the host element by
// element as the kernels run them, must produce exactly what the CPU
// kernels produce, for random shapes of rank 0 to 4 (crops, empty inputs
// and outputs included), and must write no element twice.
//
//===----------------------------------------------------------------------===//

#include "../lib/cuda/DataMovementPlan.h"
#include "../lib/Collectives.h"
#include "TestModel.h"
#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

namespace shardrt::exec::cuda {
namespace {

using enginetest::count;
using enginetest::RandomInts;
using enginetest::Shape;

constexpr float kUnwritten = -12345.0f;

/// Runs `plan` as the CUDA backend does; counts writes per element.
std::vector<float> run(const MovePlan &plan,
                       const std::vector<std::vector<float>> &ins,
                       const Shape &out, std::vector<int> &writes) {
  std::vector<float> y(size_t(count(out)), kUnwritten);
  writes.assign(y.size(), 0);
  for (const BoxCopyPlan &f : plan.fills)
    for (long long i = 0; i < f.count; ++i) {
      long long s, d;
      boxCopyOffsets(f, i, s, d);
      y.at(size_t(d)) = float(plan.value);
      ++writes.at(size_t(d));
    }
  for (size_t k = 0; k < plan.copies.size(); ++k)
    for (long long i = 0; i < plan.copies[k].count; ++i) {
      long long s, d;
      boxCopyOffsets(plan.copies[k], i, s, d);
      y.at(size_t(d)) = ins.at(size_t(plan.sources[k])).at(size_t(s));
      ++writes.at(size_t(d));
    }
  return y;
}

/// `plan` produces `want` and writes every element of `out` exactly once.
void expectWritesOnce(const MovePlan &plan,
                      const std::vector<std::vector<float>> &ins,
                      const Shape &out, const std::vector<float> &want) {
  std::vector<int> writes;
  EXPECT_EQ(run(plan, ins, out, writes), want);
  EXPECT_TRUE(
      std::all_of(writes.begin(), writes.end(), [](int n) { return n == 1; }));
}

std::vector<float> iota(const Shape &shape, float from) {
  std::vector<float> v(size_t(count(shape)));
  std::iota(v.begin(), v.end(), from);
  return v;
}

TEST(DataMovementPlan, ConstantPadMatchesTheCpuPad) {
  RandomInts pick(21);
  for (int trial = 0; trial < 400; ++trial) {
    size_t rank = size_t(pick(0, 4));
    Shape in(rank), out(rank), lo(rank), hi(rank);
    for (size_t d = 0; d < rank; ++d) {
      in[d] = pick(trial % 40 == 0 ? 0 : 1, 4);
      // Crops past the input on either side too (the output only needs
      // in + lo + hi >= 0).
      lo[d] = pick(-in[d] - 3, 3);
      hi[d] = pick(-(in[d] + lo[d]), 3);
      out[d] = in[d] + lo[d] + hi[d];
    }
    std::vector<float> x = iota(in, 1.0f);
    std::vector<float> want(size_t(count(out)), kUnwritten);
    cpu::pad(x.data(), in, lo, hi, cpu::PadMode::Constant, 0.5, want.data(),
             sizeof(float), true);
    MovePlan plan;
    ASSERT_TRUE(planPadMove(in, out, lo, 0.5, plan));
    SCOPED_TRACE("trial " + std::to_string(trial));
    expectWritesOnce(plan, {x}, out, want);
  }
}

TEST(DataMovementPlan, StridedSliceMatchesTheCpuSlice) {
  RandomInts pick(22);
  for (int trial = 0; trial < 400; ++trial) {
    size_t rank = size_t(pick(0, 4));
    Shape in(rank), out(rank), start(rank), step(rank);
    for (size_t d = 0; d < rank; ++d) {
      in[d] = pick(1, 6);
      start[d] = pick(0, in[d] - 1);
      step[d] = trial % 2 ? pick(1, 3) : 1;
      out[d] = pick(0, (in[d] - start[d] + step[d] - 1) / step[d]);
    }
    std::vector<float> x = iota(in, 1.0f);
    std::vector<float> want(size_t(count(out)), kUnwritten);
    cpu::slice(x.data(), in, start, step, want.data(), out, sizeof(float));
    MovePlan plan;
    ASSERT_TRUE(planSliceMove(in, out, start, step, plan));
    SCOPED_TRACE("trial " + std::to_string(trial));
    expectWritesOnce(plan, {x}, out, want);
  }
  MovePlan plan;
  EXPECT_FALSE(planSliceMove({6}, {3}, {0}, {0}, plan));
}

TEST(DataMovementPlan, PermuteMatchesTheCpuPermute) {
  RandomInts pick(24);
  for (int trial = 0; trial < 400; ++trial) {
    size_t rank = size_t(pick(0, 5));
    Shape in(rank), perm(rank);
    for (size_t d = 0; d < rank; ++d)
      in[d] = pick(trial % 50 == 0 ? 0 : 1, 4);
    std::iota(perm.begin(), perm.end(), 0);
    for (size_t d = rank; d > 1; --d)
      std::swap(perm[d - 1], perm[size_t(pick(0, int64_t(d) - 1))]);
    Shape out(rank);
    for (size_t d = 0; d < rank; ++d)
      out[d] = in[size_t(perm[d])];
    std::vector<float> x = iota(in, 1.0f);
    std::vector<float> want(size_t(count(out)), kUnwritten);
    cpu::permute(x.data(), in, perm, want.data(), sizeof(float));
    MovePlan plan;
    ASSERT_TRUE(planPermuteMove(in, perm, plan));
    SCOPED_TRACE("trial " + std::to_string(trial));
    expectWritesOnce(plan, {x}, out, want);
  }
  // Merged runs: a swap of the two outer dims of (2, 3, 4) moves rows of 4.
  MovePlan plan;
  ASSERT_TRUE(planPermuteMove({2, 3, 4}, {1, 0, 2}, plan));
  ASSERT_EQ(plan.copies.size(), 1u);
  EXPECT_EQ(plan.copies[0].rank, 3);
  ASSERT_TRUE(planPermuteMove({2, 3, 4}, {0, 1, 2}, plan));
  EXPECT_EQ(plan.copies[0].rank, 1);
  EXPECT_FALSE(planPermuteMove({2, 3}, {0, 2}, plan));
}

TEST(DataMovementPlan, ConcatMatchesTheCpuConcat) {
  RandomInts pick(23);
  for (int trial = 0; trial < 300; ++trial) {
    size_t rank = size_t(pick(1, 4));
    int64_t dim = pick(0, int64_t(rank) - 1);
    Shape base(rank);
    for (int64_t &e : base)
      e = pick(1, 4);
    std::vector<Shape> shapes(size_t(pick(1, 4)), base);
    std::vector<std::vector<float>> xs;
    std::vector<const void *> ptrs;
    Shape out = base;
    out[size_t(dim)] = 0;
    for (Shape &s : shapes) {
      s[size_t(dim)] = pick(0, 3);
      out[size_t(dim)] += s[size_t(dim)];
      xs.push_back(iota(s, float(1000 * xs.size() + 1)));
    }
    for (const std::vector<float> &x : xs)
      ptrs.push_back(x.data());
    std::vector<float> want(size_t(count(out)), kUnwritten);
    cpu::concat(ptrs, shapes, dim, want.data(), sizeof(float));
    MovePlan plan;
    ASSERT_TRUE(planConcatMove(shapes, out, dim, plan));
    SCOPED_TRACE("trial " + std::to_string(trial));
    expectWritesOnce(plan, xs, out, want);
  }
}

TEST(DataMovementPlan, AllGatherBlocksLandWhereTheCpuConcatPutsThem) {
  RandomInts pick(25);
  int direct = 0;
  for (int trial = 0; trial < 300; ++trial) {
    size_t rank = size_t(pick(1, 4));
    AllGatherLayout l;
    l.dim = pick(0, int64_t(rank) - 1);
    l.input.resize(rank);
    for (int64_t &e : l.input)
      e = pick(1, 3);
    l.output = l.input;
    l.output[size_t(l.dim)] = 0;
    // Members' blocks as the communicator packs them, member-major.
    std::vector<Shape> shapes;
    std::vector<std::vector<float>> blocks;
    std::vector<float> packed;
    for (int64_t q = pick(1, 4); q > 0; --q) {
      l.extents.push_back(pick(trial % 10 ? 1 : 0, 3));
      shapes.push_back(l.input);
      shapes.back()[size_t(l.dim)] = l.extents.back();
      l.output[size_t(l.dim)] += l.extents.back();
      blocks.push_back(iota(shapes.back(), float(100 * blocks.size() + 1)));
      packed.insert(packed.end(), blocks.back().begin(), blocks.back().end());
    }
    std::vector<const void *> ptrs;
    for (const std::vector<float> &b : blocks)
      ptrs.push_back(b.data());
    std::vector<float> want(size_t(count(l.output)), kUnwritten);
    cpu::concat(ptrs, shapes, l.dim, want.data(), sizeof(float));
    SCOPED_TRACE("trial " + std::to_string(trial));
    MovePlan plan;
    ASSERT_TRUE(planGatherUnpack(l.input, l.extents, l.output, l.dim, plan));
    expectWritesOnce(plan, blocks, l.output, want);
    // Where the backend gathers straight into the output, the packed blocks
    // must already be it.
    if (l.packedIsOutput()) {
      ++direct;
      EXPECT_EQ(packed, want);
    }
  }
  EXPECT_GT(direct, 50);
  EXPECT_LT(direct, 250);
}

TEST(DataMovementPlan, SplitPackingCutsTheBlocksTheCpuSliceCuts) {
  // A reduce-scatter's or an all-to-all's sends: member q's rows of the
  // split dim, packed member-major where blockLayout says.
  RandomInts pick(26);
  int direct = 0;
  for (int trial = 0; trial < 300; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    size_t rank = size_t(pick(1, 4));
    Shape whole(rank);
    for (int64_t &e : whole)
      e = pick(1, 3);
    int64_t dim = pick(0, int64_t(rank) - 1);
    std::vector<int64_t> extents;
    whole[size_t(dim)] = 0;
    for (int64_t q = pick(1, 4); q > 0; --q) {
      extents.push_back(pick(trial % 10 ? 1 : 0, 3));
      whole[size_t(dim)] += extents.back();
    }
    std::vector<float> x = iota(whole, 1.0f);
    BlockLayout blocks = blockLayout(whole, dim, extents, sizeof(float));
    ASSERT_EQ(blocks.total, count(whole) * int64_t(sizeof(float)));
    // Each block as cpu::slice cuts it, one after the other.
    std::vector<float> want;
    std::vector<int64_t> start(rank, 0), step(rank, 1);
    for (size_t q = 0; q < extents.size(); ++q) {
      ASSERT_EQ(blocks.displs[q], int64_t(want.size() * sizeof(float)));
      std::vector<float> block(size_t(count(blocks.shapes[q])));
      cpu::slice(x.data(), whole, start, step, block.data(), blocks.shapes[q],
                 sizeof(float));
      ASSERT_EQ(blocks.counts[q], int64_t(block.size() * sizeof(float)));
      want.insert(want.end(), block.begin(), block.end());
      start[size_t(dim)] += extents[q];
    }
    MovePlan plan;
    ASSERT_TRUE(planSplitPack(whole, extents, dim, plan));
    EXPECT_TRUE(plan.fills.empty());
    // Run as the backend does: copy k into packed block sources[k].
    std::vector<float> packed(want.size(), kUnwritten);
    std::vector<int> writes(packed.size(), 0);
    for (size_t k = 0; k < plan.copies.size(); ++k) {
      int64_t at = blocks.displs.at(size_t(plan.sources[k])) / 4;
      for (long long i = 0; i < plan.copies[k].count; ++i) {
        long long s, d;
        boxCopyOffsets(plan.copies[k], i, s, d);
        packed.at(size_t(at + d)) = x.at(size_t(s));
        ++writes.at(size_t(at + d));
      }
    }
    EXPECT_EQ(packed, want);
    EXPECT_TRUE(std::all_of(writes.begin(), writes.end(),
                            [](int n) { return n == 1; }));
    // Where the backend sends straight from the input, it must already be
    // the packed blocks.
    if (packedAlong(whole, dim)) {
      ++direct;
      EXPECT_EQ(x, want);
    }
  }
  EXPECT_GT(direct, 50);
  EXPECT_LT(direct, 250);
}

} // namespace
} // namespace shardrt::exec::cuda
