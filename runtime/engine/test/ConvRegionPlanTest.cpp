//===- ConvRegionPlanTest.cpp - Region convs with symmetric padding -------===//
//
// The CUDA backend runs a conv over an output region (or a conv whose two
// sides pad differently) as a cuDNN conv with symmetric padding over a view
// of the input, cropped. Here that plan is carried out with the CPU conv
// standing in for cuDNN (zero padding `pad` on both sides, output extent
// the plan's): the crop must equal the CPU conv over the region, for random
// 1-3 d convs with strides, dilations, groups and unequal padding.
//
//===----------------------------------------------------------------------===//

#include "../lib/cuda/ConvRegionPlan.h"
#include "TestModel.h"
#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace shardrt::exec::cuda {
namespace {

using enginetest::count;
using enginetest::randomFloats;
using enginetest::Shape;

struct Case {
  cpu::ConvParams p; // with the region
  std::vector<ConvDimAttrs> dims;
};

Case randomCase(std::mt19937 &rng) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  Case c;
  cpu::ConvParams &p = c.p;
  p.rank = int(pick(1, 3));
  p.groups = pick(1, 2);
  p.n = pick(1, 2);
  p.cin = p.groups * pick(1, 2);
  p.cout = p.groups * pick(1, 2);
  for (int d = 0; d < p.rank; ++d) {
    p.in[d] = pick(1, p.rank == 3 ? 6 : 9);
    p.kernel[d] = pick(1, 4);
    p.stride[d] = pick(1, 3);
    p.dilation[d] = pick(1, 2);
    p.padLo[d] = pick(0, 3);
    // Any padding after: the output extent is what PyTorch gives for it.
    int64_t padHi = pick(0, 3);
    int64_t span = p.dilation[d] * (p.kernel[d] - 1);
    int64_t room = p.in[d] + p.padLo[d] + padHi - span - 1;
    p.out[d] = room < 0 ? 1 : room / p.stride[d] + 1;
    p.regionLo[d] = pick(0, p.out[d] - 1);
    p.regionHi[d] = pick(p.regionLo[d] + 1, p.out[d]);
    ConvDimAttrs a;
    a.in = p.in[d];
    a.kernel = p.kernel[d];
    a.stride = p.stride[d];
    a.padLo = p.padLo[d];
    a.dilation = p.dilation[d];
    a.lo = p.regionLo[d];
    a.hi = p.regionHi[d];
    c.dims.push_back(a);
  }
  return c;
}

Shape shapeOf(int64_t n, int64_t c, const int64_t *spatial, int rank) {
  Shape s = {n, c};
  s.insert(s.end(), spatial, spatial + rank);
  return s;
}

/// The region computed as the plan says: the input view, a conv padded
/// `pad` on both sides into the plan's output, the region cropped into y.
std::vector<float> planned(const Case &c, const ConvRegionPlan &plan,
                           const std::vector<float> &x,
                           const std::vector<float> &w,
                           const std::vector<float> &bias,
                           std::vector<float> y) {
  const cpu::ConvParams &p = c.p;
  int r = p.rank;
  cpu::ConvParams lib = p;
  Shape viewLo = {0, 0}, outLo = {0, 0}, yLo = {0, 0};
  Shape box = {p.n, p.cout};
  for (int d = 0; d < r; ++d) {
    const ConvRegionDim &pd = plan.dims[size_t(d)];
    lib.in[d] = pd.inExtent;
    lib.padLo[d] = pd.pad;
    lib.out[d] = pd.outExtent;
    lib.regionLo[d] = 0;
    lib.regionHi[d] = -1;
    viewLo.push_back(pd.inBegin);
    outLo.push_back(pd.skip);
    yLo.push_back(p.regionLo[d]);
    box.push_back(p.regionHi[d] - p.regionLo[d]);
  }
  Shape xShape = shapeOf(p.n, p.cin, p.in, r),
        viewShape = shapeOf(p.n, p.cin, lib.in, r),
        outShape = shapeOf(p.n, p.cout, lib.out, r),
        yShape = shapeOf(p.n, p.cout, p.out, r);
  std::vector<float> view(size_t(count(viewShape)));
  cpu::copyBox(x.data(), xShape, viewLo, view.data(), viewShape,
               Shape(viewShape.size(), 0), viewShape, sizeof(float));
  std::vector<float> out(size_t(count(outShape)));
  cpu::conv(lib, view.data(), w.data(), bias.data(), out.data());
  cpu::copyBox(out.data(), outShape, outLo, y.data(), yShape, yLo, box,
               sizeof(float));
  return y;
}

TEST(ConvRegionPlan, MatchesTheCpuRegionConv) {
  std::mt19937 rng(7);
  int inPlace = 0, cropped = 0;
  for (int iter = 0; iter < 500; ++iter) {
    Case c = randomCase(rng);
    const cpu::ConvParams &p = c.p;
    int r = p.rank;
    Shape xShape = shapeOf(p.n, p.cin, p.in, r),
          yShape = shapeOf(p.n, p.cout, p.out, r);
    Shape wShape = shapeOf(p.cout, p.cin / p.groups, p.kernel, r);
    std::vector<float> x = randomFloats(size_t(count(xShape)), rng),
                       w = randomFloats(size_t(count(wShape)), rng),
                       bias = randomFloats(size_t(p.cout), rng),
                       y0 = randomFloats(size_t(count(yShape)), rng);
    ConvRegionPlan plan;
    bool reads = true; // does every dim's region read some input?
    for (const ConvDimAttrs &a : c.dims) {
      int64_t span = a.dilation * (a.kernel - 1);
      reads = reads && a.hi * a.stride - a.stride - a.padLo + span >= 0 &&
              a.lo * a.stride - a.padLo < a.in;
    }
    ASSERT_EQ(planConvRegion(c.dims, plan), reads) << "case " << iter;
    if (!reads)
      continue;
    (plan.inPlace ? inPlace : cropped)++;
    std::vector<float> want = y0;
    cpu::conv(p, x.data(), w.data(), bias.data(), want.data());
    std::vector<float> got = planned(c, plan, x, w, bias, y0);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-5f) << "case " << iter << " at " << i;
  }
  // Both kinds were exercised, often.
  EXPECT_GT(inPlace, 50);
  EXPECT_GT(cropped, 200);
}

TEST(ConvRegionPlan, EdgeRanksInteriorIsCropped) {
  // A 3x3 conv, padding 1, on a rank that holds rows [0, 8) of the tensor
  // and one halo row below: its interior, output rows [0, 7), needs the
  // zero row above and none below.
  ConvDimAttrs a;
  a.in = 9;
  a.kernel = 3;
  a.padLo = 1;
  a.lo = 0;
  a.hi = 7;
  ConvRegionDim d;
  ASSERT_TRUE(planConvRegionDim(a, d));
  EXPECT_EQ(d.inBegin, 0);
  EXPECT_EQ(d.inExtent, 8);
  EXPECT_EQ(d.pad, 1);
  EXPECT_EQ(d.skip, 0);
  EXPECT_EQ(d.outExtent, 8); // one extra trailing row, cropped
  // The boundary row 7 of the next rank up (halo row above, zero row
  // below): padded after only, so the library output starts one early.
  a.in = 9;
  a.lo = 7;
  a.hi = 8;
  a.padLo = 0; // the halo row is row 0 of the slot
  ASSERT_TRUE(planConvRegionDim(a, d));
  EXPECT_EQ(d.inBegin, 7);
  EXPECT_EQ(d.inExtent, 2);
  EXPECT_EQ(d.pad, 1);
  EXPECT_EQ(d.skip, 1);
  EXPECT_EQ(d.outExtent, 2);
  // Symmetric: in place.
  ConvRegionPlan plan;
  a.lo = 1;
  a.hi = 7;
  ASSERT_TRUE(planConvRegion({a}, plan));
  EXPECT_TRUE(plan.inPlace);
}

TEST(ConvRegionPlan, TransposedConvsMatchTheCpuKernel) {
  // planConvTransposeDim carried out with the CPU kernel standing in for
  // cuDNN's backward-data conv (padding `pad` before, `extent` outputs),
  // cropped from `skip`: equal to the CPU transposed conv for random 1-3 d
  // cases with strides, dilations, groups, output_padding and the crops a
  // shard's output gets. The plan must exist exactly when no output lies
  // more than stride - 1 past the last one any input reaches.
  enginetest::RandomInts pick(9);
  std::mt19937 rng(9); // the values
  int inPlace = 0, cropped = 0, refused = 0;
  for (int iter = 0; iter < 500; ++iter) {
    cpu::ConvParams p;
    p.rank = int(pick(1, 3));
    p.groups = pick(1, 2);
    p.n = pick(1, 2);
    p.cin = p.groups * pick(1, 2);
    p.cout = p.groups * pick(1, 2);
    std::vector<ConvTransposeDim> dims(size_t(p.rank));
    bool plannable = true, planned = true, symmetric = true;
    for (int d = 0; d < p.rank; ++d) {
      p.in[d] = pick(1, p.rank == 3 ? 5 : 8);
      p.kernel[d] = pick(1, 4);
      p.stride[d] = pick(1, 3);
      p.dilation[d] = pick(1, 2);
      p.padLo[d] = pick(0, 3);
      int64_t span = p.dilation[d] * (p.kernel[d] - 1);
      int64_t reach = (p.in[d] - 1) * p.stride[d] - p.padLo[d] + span + 1;
      // PyTorch's extents (reach plus output_padding) half the time.
      p.out[d] = pick(0, 1) && reach >= 1
                     ? reach + pick(0, p.stride[d] - 1)
                     : pick(1, std::max<int64_t>(reach, 1) + p.stride[d] + 1);
      plannable = plannable && p.out[d] <= reach + p.stride[d] - 1;
      planned = planned && planConvTransposeDim(
                               p.in[d], p.kernel[d], p.stride[d], p.padLo[d],
                               p.dilation[d], p.out[d], dims[size_t(d)]);
      symmetric = symmetric && dims[size_t(d)].skip == 0 &&
                  dims[size_t(d)].extent == p.out[d];
    }
    ASSERT_EQ(planned, plannable) << "case " << iter;
    if (!planned) {
      ++refused;
      continue;
    }
    (symmetric ? inPlace : cropped)++;
    int r = p.rank;
    Shape xShape = shapeOf(p.n, p.cin, p.in, r),
          yShape = shapeOf(p.n, p.cout, p.out, r),
          wShape = shapeOf(p.cin, p.cout / p.groups, p.kernel, r);
    std::vector<float> x = randomFloats(size_t(count(xShape)), rng),
                       w = randomFloats(size_t(count(wShape)), rng),
                       bias = randomFloats(size_t(p.cout), rng);
    std::vector<float> want(size_t(count(yShape)), -5.0f);
    cpu::convTranspose(p, x.data(), w.data(), bias.data(), want.data());
    cpu::ConvParams lib = p;
    Shape tempLo = {0, 0};
    for (int d = 0; d < r; ++d) {
      lib.padLo[d] = dims[size_t(d)].pad;
      lib.out[d] = dims[size_t(d)].extent;
      tempLo.push_back(dims[size_t(d)].skip);
      // cuDNN's extent rule: the forward conv of `extent` gives `in`.
      int64_t span = p.dilation[d] * (p.kernel[d] - 1);
      ASSERT_EQ((lib.out[d] + 2 * lib.padLo[d] - span - 1) / p.stride[d] + 1,
                p.in[d])
          << "case " << iter << " dim " << d;
    }
    Shape tempShape = shapeOf(p.n, p.cout, lib.out, r);
    std::vector<float> temp(size_t(count(tempShape)));
    cpu::convTranspose(lib, x.data(), w.data(), bias.data(), temp.data());
    std::vector<float> got(want.size(), 7.0f);
    cpu::copyBox(temp.data(), tempShape, tempLo, got.data(), yShape,
                 Shape(yShape.size(), 0), yShape, sizeof(float));
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-5f * (1.0f + std::fabs(want[i])))
          << "case " << iter << " element " << i;
  }
  EXPECT_GT(inPlace, 30);
  EXPECT_GT(cropped, 30);
  EXPECT_GT(refused, 10);
}

TEST(ConvRegionPlan, ShardsOfAnOutputPaddedTransposedConv) {
  // conv_transpose2d(k3, s2, padding 1, output_padding 1) of 64 rows split
  // in four, as r11 partitions it: the last shard's 33 rows reach past
  // what a symmetric pad of 2 gives, so the library pads 1 and the crop
  // starts one row in; a middle shard's 32 rows are in place.
  ConvTransposeDim d;
  ASSERT_TRUE(planConvTransposeDim(17, 3, 2, 2, 1, 33, d));
  EXPECT_EQ(d.pad, 1);
  EXPECT_EQ(d.skip, 1);
  EXPECT_EQ(d.extent, 34);
  ASSERT_TRUE(planConvTransposeDim(17, 3, 2, 2, 1, 32, d));
  EXPECT_EQ(d.pad, 2);
  EXPECT_EQ(d.skip, 0);
  EXPECT_EQ(d.extent, 32);
}

} // namespace
} // namespace shardrt::exec::cuda
