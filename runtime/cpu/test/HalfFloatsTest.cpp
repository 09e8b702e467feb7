//===- HalfFloatsTest.cpp - bf16 / f16 conversions, exhaustively
//-----------===//
//
// Every one of the 65536 patterns of each format is decoded against a
// reference built from the format's definition with ldexp, and every
// rounding boundary (the midpoint between each pair of neighbouring values,
// and the floats on either side of it) is narrowed against the rule "nearest,
// ties to the even pattern", with infinity as the neighbour past the largest
// finite value.
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/HalfFloats.h"
#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace shardrt::cpu {
namespace {

struct Format {
  int exponentBits, mantissaBits;
  float (*widen)(uint16_t);
  uint16_t (*narrow)(float);
};

const Format kBf16{8, 7, bf16ToFloat, floatToBf16};
const Format kF16{5, 10, f16ToFloat, floatToF16};

/// The value of pattern `p` from the definition: sign, biased exponent,
/// implicit leading one unless the exponent is 0 (subnormal).
double reference(const Format &f, uint16_t p) {
  int bias = (1 << (f.exponentBits - 1)) - 1;
  int maxExponent = (1 << f.exponentBits) - 1;
  int exponent = (p >> f.mantissaBits) & maxExponent;
  int mantissa = p & ((1 << f.mantissaBits) - 1);
  double magnitude;
  if (exponent == maxExponent)
    magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN()
                         : std::numeric_limits<double>::infinity();
  else if (exponent == 0)
    magnitude = std::ldexp(mantissa, 1 - bias - f.mantissaBits);
  else
    magnitude = std::ldexp(mantissa + (1 << f.mantissaBits),
                           exponent - bias - f.mantissaBits);
  return (p & 0x8000) ? -magnitude : magnitude;
}

uint16_t infinityPattern(const Format &f) {
  return uint16_t(((1 << f.exponentBits) - 1) << f.mantissaBits);
}

void checkWidening(const Format &f) {
  for (uint32_t p = 0; p < 0x10000; ++p) {
    double want = reference(f, uint16_t(p));
    float got = f.widen(uint16_t(p));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << std::hex << p;
      ASSERT_EQ(std::signbit(got), bool(p & 0x8000)) << std::hex << p;
    } else {
      ASSERT_EQ(double(got), want) << std::hex << p;
      ASSERT_EQ(std::signbit(got), bool(p & 0x8000)) << std::hex << p;
    }
  }
}

void checkNarrowing(const Format &f) {
  uint16_t inf = infinityPattern(f);
  for (uint16_t sign : {uint16_t(0), uint16_t(0x8000)}) {
    // Positive patterns are ordered by value, from +0 to infinity.
    for (uint16_t p = 0; p < inf; ++p) {
      uint16_t lo = sign | p, hi = sign | uint16_t(p + 1);
      double a = reference(f, lo);
      // Past the largest finite value the neighbour is the next binade's
      // first value, which rounds to infinity.
      double b = p + 1 == inf ? std::ldexp(std::copysign(1.0, a),
                                           1 << (f.exponentBits - 1))
                              : reference(f, hi);
      ASSERT_EQ(f.narrow(float(a)), lo) << std::hex << lo;
      double mid = (a + b) / 2;
      float m = float(mid);
      ASSERT_EQ(double(m), mid) << "midpoints are floats";
      uint16_t even = (lo & 1) ? hi : lo;
      ASSERT_EQ(f.narrow(m), even) << std::hex << lo;
      float towardA = std::nextafter(m, float(a));
      float towardB = std::nextafter(m, float(b));
      ASSERT_EQ(f.narrow(towardA), lo) << std::hex << lo;
      ASSERT_EQ(f.narrow(towardB), hi) << std::hex << lo;
    }
    ASSERT_EQ(f.narrow(sign ? -INFINITY : INFINITY), sign | inf);
    ASSERT_EQ(f.narrow(sign ? -std::numeric_limits<float>::max()
                            : std::numeric_limits<float>::max()),
              sign | inf);
  }
}

void checkNaN(const Format &f) {
  uint16_t inf = infinityPattern(f);
  // A payload only in the low bits must not truncate to infinity.
  for (uint32_t bits : {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu}) {
    float nan;
    std::memcpy(&nan, &bits, 4);
    uint16_t h = f.narrow(nan);
    EXPECT_GT(h & 0x7fff, inf) << std::hex << bits;
    EXPECT_EQ(bool(h & 0x8000), bool(bits >> 31)) << std::hex << bits;
    EXPECT_TRUE(std::isnan(f.widen(h)));
  }
}

TEST(HalfFloats, Bf16WidensExactly) { checkWidening(kBf16); }
TEST(HalfFloats, F16WidensExactly) { checkWidening(kF16); }
TEST(HalfFloats, Bf16NarrowsToNearestEven) { checkNarrowing(kBf16); }
TEST(HalfFloats, F16NarrowsToNearestEven) { checkNarrowing(kF16); }
TEST(HalfFloats, NaNStaysNaN) {
  checkNaN(kBf16);
  checkNaN(kF16);
}

TEST(HalfFloats, KnownPatterns) {
  // IEEE 754 binary16 and bfloat16 constants, not computed here.
  EXPECT_EQ(floatToF16(1.0f), 0x3c00);
  EXPECT_EQ(floatToF16(65504.0f), 0x7bff);
  EXPECT_EQ(floatToF16(65519.99f), 0x7bff);
  EXPECT_EQ(floatToF16(65520.0f), 0x7c00);
  EXPECT_EQ(floatToF16(5.9604645e-8f), 0x0001); // 2^-24
  EXPECT_EQ(floatToF16(6.1035156e-5f), 0x0400); // 2^-14
  EXPECT_EQ(floatToF16(-0.0f), 0x8000);
  EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBf16(3.140625f), 0x4049);
  EXPECT_EQ(floatToBf16(-3.0f), 0xc040);
  EXPECT_EQ(floatToBf16(1.00390625f), 0x3f80); // 1 + 2^-8: a tie, to even
  EXPECT_EQ(floatToBf16(1.01171875f), 0x3f82); // 1 + 3 * 2^-8: tie, to even
}

TEST(HalfFloats, CastKernelConvertsBetweenAllTypes) {
  // Large enough for the kernel's parallel loop.
  const int64_t n = 70000;
  std::vector<float> f(n);
  for (int64_t i = 0; i < n; ++i)
    f[i] = std::ldexp(float(i % 977) - 488.0f, int(i % 41) - 20) / 3.0f;
  f[1] = std::numeric_limits<float>::quiet_NaN();
  f[2] = 1e30f; // beyond f16: infinity; within bf16
  std::vector<uint16_t> bf(n), h(n), hb(n);
  cast(ElemType::F32, f.data(), ElemType::BF16, bf.data(), n);
  cast(ElemType::F32, f.data(), ElemType::F16, h.data(), n);
  cast(ElemType::F16, h.data(), ElemType::BF16, hb.data(), n);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(bf[i], floatToBf16(f[i])) << i;
    ASSERT_EQ(h[i], floatToF16(f[i])) << i;
    ASSERT_EQ(hb[i], floatToBf16(f16ToFloat(h[i]))) << i;
  }
  EXPECT_EQ(h[2], 0x7c00);
  std::vector<float> back(n);
  cast(ElemType::BF16, bf.data(), ElemType::F32, back.data(), n);
  for (int64_t i = 3; i < n; ++i)
    ASSERT_EQ(back[i], bf16ToFloat(bf[i])) << i;
  EXPECT_TRUE(std::isnan(back[1]));

  std::vector<uint8_t> bools = {0, 1, 1, 0};
  std::vector<uint16_t> asBf16(4), asF16(4);
  cast(ElemType::Bool, bools.data(), ElemType::BF16, asBf16.data(), 4);
  cast(ElemType::Bool, bools.data(), ElemType::F16, asF16.data(), 4);
  EXPECT_EQ(asBf16, (std::vector<uint16_t>{0, 0x3f80, 0x3f80, 0}));
  EXPECT_EQ(asF16, (std::vector<uint16_t>{0, 0x3c00, 0x3c00, 0}));
  std::vector<uint16_t> halves = {0x0000, 0x8000, 0x7e00, 0x0001};
  std::vector<uint8_t> truth(4, 9);
  cast(ElemType::F16, halves.data(), ElemType::Bool, truth.data(), 4);
  EXPECT_EQ(truth, (std::vector<uint8_t>{0, 0, 1, 1}));
  std::vector<uint16_t> same(4);
  cast(ElemType::F16, halves.data(), ElemType::F16, same.data(), 4);
  EXPECT_EQ(same, halves);
}

} // namespace
} // namespace shardrt::cpu
