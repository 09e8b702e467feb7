//===- VectorExp.h - An expf the compiler can vectorise ---------*- C++ -*-===//
//
// std::exp is a call into libm, so a loop over it (sigmoid, SiLU, softmax)
// runs one element at a time. This exp is branch-free arithmetic on floats
// and their bits, so the same loop vectorises (the library compiles with
// -fno-trapping-math, which lets the selects become blends), and it gives
// the same bits on every x86 level, vectorised or not: only IEEE +, * and
// conversions, and no FMA contraction (-ffp-contract=off).
//
// Method: exp(x) = 2^k * exp(r) with k = round(x / ln 2) and r = x - k ln 2
// (ln 2 split in two so that k * ln2_hi is exact), |r| <= ln(2) / 2, and
// exp(r) from Cephes's degree-7 polynomial. 2^k is applied as two powers of
// two so that results down to the smallest subnormal come out right. Within
// 1 ulp of exp computed in double and rounded to float, over every 61st
// float from -104 to 89 (ElementwiseTest); exp(NaN) = NaN, exp(-inf) = 0,
// exp(x) = inf from the first float whose exp rounds past FLT_MAX.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_CPU_VECTOREXP_H
#define SHARDRT_CPU_VECTOREXP_H

#include <cstdint>
#include <cstring>
#include <limits>

namespace shardrt::cpu::detail {

inline float floatFromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline float vectorExp(float x) {
  // exp overflows above hi; below lo it is 0 even as a subnormal.
  constexpr float hi = 88.72283935546875f, lo = -103.972084045410f;
  constexpr float log2e = 1.44269504088896341f;
  constexpr float ln2Hi = 0.693145751953125f, ln2Lo = 1.428606765330187045e-6f;
  // Adding and subtracting 1.5 * 2^23 rounds to the nearest integer.
  constexpr float roundShift = 12582912.0f;
  // NaN goes to lo here (both compares are false), so that k stays a
  // number that converts to int; the last select returns the NaN.
  float c = x > lo ? x : lo;
  c = c < hi ? c : hi;
  float k = (c * log2e + roundShift) - roundShift;
  float r = (c - k * ln2Hi) - k * ln2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = (p * r) * r + r + 1.0f;
  // k is in [-150, 128]: each half lies in [-75, 64], a normal power of 2.
  int32_t ki = int32_t(k), k1 = ki >> 1, k2 = ki - k1;
  float y = p * floatFromBits(uint32_t(k1 + 127) << 23) *
            floatFromBits(uint32_t(k2 + 127) << 23);
  y = x < lo ? 0.0f : y;
  y = x > hi ? std::numeric_limits<float>::infinity() : y;
  return x != x ? x : y;
}

/// y[i] = vectorExp(x[i] - shift) for i < n (a softmax row's numerators);
/// y may be x. Vectorised and cloned per x86 level (Elementwise.cpp).
void expShifted(const float *x, float shift, float *y, int64_t n);
/// y[i] = vectorExp(x[i] - shift[i]) for i < n (neighbouring softmax
/// columns, each with its own max); y may be x.
void expShiftedEach(const float *x, const float *shift, float *y, int64_t n);
/// y[i] = exp(x[i] - shift) / sum_j exp(x[j] - shift): a softmax row whose
/// max is `shift`, the sum in double; y may be x.
void normalisedExp(const float *x, float shift, float *y, int64_t n);

} // namespace shardrt::cpu::detail

#endif // SHARDRT_CPU_VECTOREXP_H
