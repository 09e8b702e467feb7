//===- ConvTest.cpp - conv / convTranspose against direct loops -----------===//
//
// The references follow the PyTorch definitions literally: conv as a gather
// over every (input channel, kernel tap) with zero padding, and the
// transposed conv in its scatter form y[i * s - p + k * d] += x[i] * w[k].
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/HalfFloats.h"
#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace shardrt::cpu;

namespace {

std::vector<float> randomVector(std::mt19937 &rng, int64_t n) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

int64_t volume(const int64_t *dims, int rank) {
  int64_t v = 1;
  for (int d = 0; d < rank; ++d)
    v *= dims[d];
  return v;
}

/// Unflattens a row-major index over dims[0..rank).
void unflatten(int64_t flat, const int64_t *dims, int rank, int64_t *idx) {
  for (int d = rank - 1; d >= 0; --d) {
    idx[d] = flat % dims[d];
    flat /= dims[d];
  }
}

/// Row-major flat index of idx in dims, or -1 if any coordinate is outside.
int64_t flatten(const int64_t *idx, const int64_t *dims, int rank) {
  int64_t flat = 0;
  for (int d = 0; d < rank; ++d) {
    if (idx[d] < 0 || idx[d] >= dims[d])
      return -1;
    flat = flat * dims[d] + idx[d];
  }
  return flat;
}

struct Reference {
  std::vector<double> y, mag; // value and sum of |terms| per output
};

Reference referenceConv(const ConvParams &p, const std::vector<float> &x,
                        const std::vector<float> &w,
                        const std::vector<float> &bias) {
  int r = p.rank;
  int64_t inVol = volume(p.in, r), outVol = volume(p.out, r);
  int64_t kVol = volume(p.kernel, r);
  int64_t cinG = p.cin / p.groups, coutG = p.cout / p.groups;
  Reference ref;
  ref.y.assign(p.n * p.cout * outVol, 0.0);
  ref.mag.assign(ref.y.size(), 0.0);
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t co = 0; co < p.cout; ++co)
      for (int64_t o = 0; o < outVol; ++o) {
        int64_t oIdx[3], kIdx[3], iIdx[3];
        unflatten(o, p.out, r, oIdx);
        double acc = bias.empty() ? 0.0 : bias[co];
        double mag = std::fabs(acc);
        int64_t grp = co / coutG;
        for (int64_t cl = 0; cl < cinG; ++cl)
          for (int64_t kk = 0; kk < kVol; ++kk) {
            unflatten(kk, p.kernel, r, kIdx);
            for (int d = 0; d < r; ++d)
              iIdx[d] =
                  oIdx[d] * p.stride[d] - p.padLo[d] + kIdx[d] * p.dilation[d];
            int64_t i = flatten(iIdx, p.in, r);
            if (i < 0)
              continue; // zero padding
            double term = static_cast<double>(
                              x[(n * p.cin + grp * cinG + cl) * inVol + i]) *
                          w[(co * cinG + cl) * kVol + kk];
            acc += term;
            mag += std::fabs(term);
          }
        ref.y[(n * p.cout + co) * outVol + o] = acc;
        ref.mag[(n * p.cout + co) * outVol + o] = mag;
      }
  return ref;
}

Reference referenceConvTranspose(const ConvParams &p,
                                 const std::vector<float> &x,
                                 const std::vector<float> &w,
                                 const std::vector<float> &bias) {
  int r = p.rank;
  int64_t inVol = volume(p.in, r), outVol = volume(p.out, r);
  int64_t kVol = volume(p.kernel, r);
  int64_t cinG = p.cin / p.groups, coutG = p.cout / p.groups;
  Reference ref;
  ref.y.assign(p.n * p.cout * outVol, 0.0);
  ref.mag.assign(ref.y.size(), 0.0);
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t co = 0; co < p.cout; ++co)
      for (int64_t o = 0; o < outVol; ++o) {
        double b = bias.empty() ? 0.0 : bias[co];
        ref.y[(n * p.cout + co) * outVol + o] = b;
        ref.mag[(n * p.cout + co) * outVol + o] = std::fabs(b);
      }
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t ci = 0; ci < p.cin; ++ci)
      for (int64_t i = 0; i < inVol; ++i) {
        int64_t iIdx[3], kIdx[3], oIdx[3];
        unflatten(i, p.in, r, iIdx);
        int64_t grp = ci / cinG;
        for (int64_t cl = 0; cl < coutG; ++cl)
          for (int64_t kk = 0; kk < kVol; ++kk) {
            unflatten(kk, p.kernel, r, kIdx);
            for (int d = 0; d < r; ++d)
              oIdx[d] =
                  iIdx[d] * p.stride[d] - p.padLo[d] + kIdx[d] * p.dilation[d];
            int64_t o = flatten(oIdx, p.out, r);
            if (o < 0)
              continue;
            double term = static_cast<double>(x[(n * p.cin + ci) * inVol + i]) *
                          w[(ci * coutG + cl) * kVol + kk];
            int64_t at = (n * p.cout + grp * coutG + cl) * outVol + o;
            ref.y[at] += term;
            ref.mag[at] += std::fabs(term);
          }
      }
  return ref;
}

void expectClose(const Reference &ref, const std::vector<float> &got) {
  ASSERT_EQ(ref.y.size(), got.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(ref.y[i], got[i], 2e-5 * ref.mag[i] + 1e-6) << "at " << i;
}

/// Random conv geometry: 1..3-D, groups, stride, dilation, padding, an
/// implied high pad that may crop, odd and even kernels, unit sizes.
ConvParams randomParams(std::mt19937 &rng, bool transposed) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (;;) {
    ConvParams p;
    p.rank = pick(1, 3);
    p.n = pick(1, 2);
    p.groups = pick(1, 3);
    p.cin = p.groups * pick(1, 3);
    p.cout = p.groups * pick(1, 3);
    bool ok = true;
    for (int d = 0; d < p.rank; ++d) {
      int maxIn = p.rank == 3 ? 5 : p.rank == 2 ? 8 : 14;
      p.in[d] = pick(1, maxIn);
      p.kernel[d] = pick(1, 4);
      p.stride[d] = pick(1, 3);
      p.dilation[d] = pick(1, 2);
      int64_t span = p.dilation[d] * (p.kernel[d] - 1);
      p.padLo[d] = pick(0, static_cast<int>(span));
      int64_t padHi = pick(-1, static_cast<int>(span));
      if (transposed)
        p.out[d] = (p.in[d] - 1) * p.stride[d] - p.padLo[d] - padHi + span + 1 +
                   pick(0, static_cast<int>(p.stride[d]) - 1);
      else
        p.out[d] = (p.in[d] + p.padLo[d] + padHi - span - 1) / p.stride[d] + 1;
      ok = ok && p.out[d] >= 1 &&
           (transposed || p.in[d] + p.padLo[d] + padHi - span - 1 >= 0);
    }
    if (ok)
      return p;
  }
}

struct Problem {
  std::vector<float> x, w, bias, y;
};

Problem makeProblem(std::mt19937 &rng, const ConvParams &p, bool transposed,
                    bool withBias) {
  int64_t kVol = volume(p.kernel, p.rank);
  Problem pr;
  pr.x = randomVector(rng, p.n * p.cin * volume(p.in, p.rank));
  pr.w = randomVector(rng, transposed ? p.cin * (p.cout / p.groups) * kVol
                                      : p.cout * (p.cin / p.groups) * kVol);
  if (withBias)
    pr.bias = randomVector(rng, p.cout);
  pr.y.assign(p.n * p.cout * volume(p.out, p.rank), 1e30f);
  return pr;
}

void checkConv(std::mt19937 &rng, const ConvParams &p, bool withBias) {
  Problem pr = makeProblem(rng, p, false, withBias);
  conv(p, pr.x.data(), pr.w.data(), withBias ? pr.bias.data() : nullptr,
       pr.y.data());
  expectClose(referenceConv(p, pr.x, pr.w, pr.bias), pr.y);
}

void checkConvTranspose(std::mt19937 &rng, const ConvParams &p, bool withBias) {
  Problem pr = makeProblem(rng, p, true, withBias);
  convTranspose(p, pr.x.data(), pr.w.data(),
                withBias ? pr.bias.data() : nullptr, pr.y.data());
  expectClose(referenceConvTranspose(p, pr.x, pr.w, pr.bias), pr.y);
}

ConvParams params1d(int64_t cin, int64_t cout, int64_t in, int64_t out,
                    int64_t kernel, int64_t stride, int64_t pad) {
  ConvParams p;
  p.rank = 1;
  p.n = 1;
  p.cin = cin;
  p.cout = cout;
  p.in[0] = in;
  p.out[0] = out;
  p.kernel[0] = kernel;
  p.stride[0] = stride;
  p.padLo[0] = pad;
  return p;
}

} // namespace

TEST(CpuConv, KnownValues1d) {
  // F.conv1d([1..5], [1, 0, -1], bias 0.5, stride 2, padding 1):
  // windows (0,1,2) (2,3,4) (4,5,pad) of [0 1 2 3 4 5 0].
  ConvParams p = params1d(1, 1, 5, 3, 3, 2, 1);
  std::vector<float> x = {1, 2, 3, 4, 5}, w = {1, 0, -1}, b = {0.5f}, y(3);
  conv(p, x.data(), w.data(), b.data(), y.data());
  EXPECT_EQ(y, (std::vector<float>{-1.5f, -1.5f, 4.5f}));
}

TEST(CpuConv, KnownValues2dGroups) {
  // Two groups of one channel: a 2x2 box sum of 1..9 and its negation.
  ConvParams p;
  p.rank = 2;
  p.n = 1;
  p.cin = p.cout = p.groups = 2;
  p.in[0] = p.in[1] = 3;
  p.out[0] = p.out[1] = 2;
  p.kernel[0] = p.kernel[1] = 2;
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<float> w = {1, 1, 1, 1, -1, -1, -1, -1}, y(8);
  conv(p, x.data(), w.data(), nullptr, y.data());
  EXPECT_EQ(y, (std::vector<float>{12, 16, 24, 28, -12, -16, -24, -28}));
}

TEST(CpuConv, RandomGeometries) {
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 150; ++trial) {
    ConvParams p = randomParams(rng, false);
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    checkConv(rng, p, trial % 2 == 0);
  }
}

TEST(CpuConv, PointwiseAndTiledImages) {
  std::mt19937 rng(11);
  // 1x1 conv (no im2col), grouped.
  ConvParams p;
  p.rank = 2;
  p.n = 2;
  p.cin = 6;
  p.cout = 4;
  p.groups = 2;
  p.in[0] = p.out[0] = 33;
  p.in[1] = p.out[1] = 31;
  checkConv(rng, p, true);
  // A 63x65 image: several position tiles that start and end mid-row.
  p.n = 1;
  p.cin = p.cout = 8;
  p.groups = 1;
  p.in[0] = p.out[0] = 63;
  p.in[1] = p.out[1] = 65;
  p.kernel[0] = p.kernel[1] = 3;
  p.padLo[0] = p.padLo[1] = 1;
  checkConv(rng, p, true);
  // Many input channels: tiles narrower than one output row.
  checkConv(rng, params1d(600, 3, 300, 148, 5, 2, 0), false);
}

TEST(CpuConv, HalfFloatInputIsItsF32Cast) {
  // bf16 or f16 x, widened as im2col packs it: the definition's values on
  // the widened x, and (im2col on both sides) the f32 conv's very bits.
  std::mt19937 rng(16);
  for (int trial = 0; trial < 60; ++trial) {
    ConvParams p = randomParams(rng, false);
    if (trial == 0) { // pointwise: read in place in f32, packed in 16 bits
      p = ConvParams();
      p.rank = 2;
      p.n = 1;
      p.cin = 5;
      p.cout = 3;
      p.in[0] = p.out[0] = 9;
      p.in[1] = p.out[1] = 7;
    }
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    Problem pr = makeProblem(rng, p, false, true);
    bool bf16 = trial % 2 == 0;
    std::vector<uint16_t> narrow(pr.x.size());
    std::vector<float> wide(pr.x.size());
    for (size_t i = 0; i < pr.x.size(); ++i) {
      narrow[i] = bf16 ? floatToBf16(pr.x[i]) : floatToF16(pr.x[i]);
      wide[i] = bf16 ? bf16ToFloat(narrow[i]) : f16ToFloat(narrow[i]);
    }
    std::vector<float> fromWide = pr.y;
    conv(p, narrow.data(), bf16 ? ElemType::BF16 : ElemType::F16, pr.w.data(),
         pr.bias.data(), pr.y.data());
    conv(p, wide.data(), pr.w.data(), pr.bias.data(), fromWide.data());
    expectClose(referenceConv(p, wide, pr.w, pr.bias), pr.y);
    if (trial > 0)
      ASSERT_EQ(pr.y, fromWide);
  }
}

TEST(CpuConv, RegionWritesOnlyItsBox) {
  // Interior/boundary splitting computes a conv in several output boxes;
  // each call must match the full conv inside its box and leave the rest.
  std::mt19937 rng(77);
  for (int trial = 0; trial < 120; ++trial) {
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    ConvParams p = randomParams(rng, false);
    for (int d = 0; d < p.rank; ++d) {
      p.regionLo[d] = std::uniform_int_distribution<int64_t>(0, p.out[d])(rng);
      p.regionHi[d] =
          std::uniform_int_distribution<int64_t>(p.regionLo[d], p.out[d])(rng);
    }
    Problem pr = makeProblem(rng, p, false, trial % 2 == 0);
    conv(p, pr.x.data(), pr.w.data(),
         pr.bias.empty() ? nullptr : pr.bias.data(), pr.y.data());
    Reference ref = referenceConv(p, pr.x, pr.w, pr.bias);
    int64_t outVol = volume(p.out, p.rank);
    for (size_t i = 0; i < pr.y.size(); ++i) {
      int64_t idx[3];
      unflatten(int64_t(i) % outVol, p.out, p.rank, idx);
      bool inside = true;
      for (int d = 0; d < p.rank; ++d)
        inside = inside && idx[d] >= p.regionLo[d] && idx[d] < p.regionHi[d];
      if (inside)
        ASSERT_NEAR(ref.y[i], pr.y[i], 2e-5 * ref.mag[i] + 1e-6) << "at " << i;
      else
        ASSERT_EQ(pr.y[i], 1e30f) << "wrote outside the region at " << i;
    }
  }
}

TEST(CpuConv, InteriorAndBoundaryBoxesMakeTheWholeConv) {
  // The split sc-overlap-halos makes: rows [1, 62) first, then the first
  // and the last row, of a 63x65 image with a 3x3 kernel.
  std::mt19937 rng(5);
  ConvParams p;
  p.rank = 2;
  p.n = 1;
  p.cin = p.cout = 4;
  p.in[0] = p.out[0] = 63;
  p.in[1] = p.out[1] = 65;
  p.kernel[0] = p.kernel[1] = 3;
  p.padLo[0] = p.padLo[1] = 1;
  Problem pr = makeProblem(rng, p, false, true);
  for (auto [lo, hi] : {std::pair<int64_t, int64_t>{1, 62}, {0, 1}, {62, 63}}) {
    p.regionLo[0] = lo;
    p.regionHi[0] = hi;
    conv(p, pr.x.data(), pr.w.data(), pr.bias.data(), pr.y.data());
  }
  expectClose(referenceConv(p, pr.x, pr.w, pr.bias), pr.y);
}

TEST(CpuConvTranspose, KnownValues1d) {
  // F.conv_transpose1d([1, 2], [1, 2, 3], stride 2):
  // [1 2 3 0 0] + [0 0 2 4 6]; padding 1 crops one element per side.
  ConvParams p = params1d(1, 1, 2, 5, 3, 2, 0);
  std::vector<float> x = {1, 2}, w = {1, 2, 3}, y(5);
  convTranspose(p, x.data(), w.data(), nullptr, y.data());
  EXPECT_EQ(y, (std::vector<float>{1, 2, 5, 4, 6}));
  p = params1d(1, 1, 2, 3, 3, 2, 1);
  y.assign(3, 0.0f);
  convTranspose(p, x.data(), w.data(), nullptr, y.data());
  EXPECT_EQ(y, (std::vector<float>{2, 5, 4}));
}

TEST(CpuConvTranspose, RandomGeometries) {
  std::mt19937 rng(777);
  for (int trial = 0; trial < 150; ++trial) {
    ConvParams p = randomParams(rng, true);
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    checkConvTranspose(rng, p, trial % 2 == 1);
  }
}

TEST(CpuConvTranspose, PointwiseAndLargeInputs) {
  std::mt19937 rng(12);
  ConvParams p;
  p.rank = 2;
  p.n = 2;
  p.cin = 4;
  p.cout = 6;
  p.groups = 2;
  p.in[0] = p.out[0] = 17;
  p.in[1] = p.out[1] = 19;
  checkConvTranspose(rng, p, true);
  // Upsampling 2x with enough positions for several input tiles.
  p.n = 1;
  p.cin = 16;
  p.cout = 5;
  p.groups = 1;
  p.in[0] = 40;
  p.in[1] = 45;
  p.kernel[0] = p.kernel[1] = 4;
  p.stride[0] = p.stride[1] = 2;
  p.padLo[0] = p.padLo[1] = 1;
  p.out[0] = 80;
  p.out[1] = 90;
  checkConvTranspose(rng, p, true);
}
