//===- HalfFloats.h - bfloat16 and IEEE binary16 <-> f32 ---------*- C++
//-*-===//
//
// Models stored in bf16 or f16 compute in f32 (as PyTorch's CPU and CUDA
// kernels do) and round each result back. These are the conversions, on
// the raw 16-bit patterns:
//  - widening is exact (every bf16 and f16 value is an f32 value);
//  - narrowing rounds to nearest, ties to even, as torch's .to(), CUDA's
//    __float2bfloat16_rn / __float2half_rn and numpy's astype do: values past
//    the largest finite one round to infinity, f16 keeps subnormals, and NaN
//    stays a quiet NaN of the same sign.
//
// Header-only so that the CPU kernels, the CUDA backend's cast kernel and
// the tools share one definition.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_CPU_HALFFLOATS_H
#define SHARDRT_CPU_HALFFLOATS_H

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define SHARDRT_HALF_FN __host__ __device__ inline
#else
#define SHARDRT_HALF_FN inline
#endif

namespace shardrt::cpu {

SHARDRT_HALF_FN uint32_t floatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

SHARDRT_HALF_FN float bitsFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// bf16 is the top half of an f32.
SHARDRT_HALF_FN float bf16ToFloat(uint16_t h) {
  return bitsFloat(uint32_t(h) << 16);
}

SHARDRT_HALF_FN uint16_t floatToBf16(float f) {
  uint32_t bits = floatBits(f);
  // Adding 0x7fff plus the kept part's lowest bit rounds ties to even; a
  // carry out of the mantissa moves the exponent up, up to infinity.
  uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  uint32_t quietNaN = (bits >> 16) | 0x0040u; // NaN: truncated, kept quiet
  // A select rather than an early return, so that loops over it vectorise.
  return uint16_t((bits & 0x7fffffffu) > 0x7f800000u ? quietNaN : rounded);
}

SHARDRT_HALF_FN float f16ToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0x1f) // infinity or NaN, payload kept
    return bitsFloat(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) { // zero or subnormal: mantissa * 2^-24, exact in f32
    float magnitude = float(mantissa) * (1.0f / 16777216.0f);
    return sign ? -magnitude : magnitude;
  }
  return bitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

SHARDRT_HALF_FN uint16_t floatToF16(float f) {
  uint32_t bits = floatBits(f);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000u);
  uint32_t x = bits & 0x7fffffffu;
  if (x > 0x7f800000u) // NaN: quiet, the payload's top bits kept
    return uint16_t(sign | 0x7e00u | ((x >> 13) & 0x3ffu));
  if (x >= 0x477ff000u) // from 65520 (halfway past 65504) up: infinity
    return uint16_t(sign | 0x7c00u);
  if (x >= 0x38800000u) { // a normal f16: rebias, round the dropped 13 bits
    x -= 112u << 23;
    x += 0x0fffu + ((x >> 13) & 1u);
    return uint16_t(sign | (x >> 13));
  }
  if (x < 0x33000000u) // at most 2^-25, half the smallest subnormal: zero
    return sign;
  // A subnormal: the value in units of 2^-24 is the significand shifted
  // right by (126 - exponent), rounded to nearest even; rounding up from the
  // largest subnormal gives the smallest normal's pattern, as it should.
  uint32_t exponent = x >> 23, significand = (x & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126u - exponent;
  uint32_t q = significand >> shift, rest = significand & ((1u << shift) - 1u);
  uint32_t halfway = 1u << (shift - 1u);
  if (rest > halfway || (rest == halfway && (q & 1u)))
    ++q;
  return uint16_t(sign | q);
}

} // namespace shardrt::cpu

#endif // SHARDRT_CPU_HALFFLOATS_H
