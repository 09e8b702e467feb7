//===- Int64Casts.h - float -> int64 as ATen's CPU cast -----*- C++ -*-===//
//
// argmax/argmin indices are int64 (torch.long). A float stores into int64
// truncated toward zero; NaN and values outside int64's range give INT64_MIN,
// what x86's cvttss2si gives and so what ATen's CPU cast stores there (C++
// leaves it undefined, so the bound is checked rather than left to the
// conversion). ATen's CUDA cast saturates instead (NaN to 0); shardc's
// CUDA cast kernel follows the CPU so that both backends agree. Header-only
// so that the CPU cast and the CUDA cast kernel share it.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_CPU_INT64CASTS_H
#define SHARDRT_CPU_INT64CASTS_H

#include "shardrt/cpu/HalfFloats.h" // SHARDRT_HALF_FN: host and device

#include <cstdint>

namespace shardrt::cpu {

SHARDRT_HALF_FN int64_t floatToInt64(float v) {
  // -2^63 is a float; 2^63 is the first float past the range. NaN fails both.
  constexpr float kLimit = 9223372036854775808.0f;
  return v >= -kLimit && v < kLimit ? static_cast<int64_t>(v) : INT64_MIN;
}

} // namespace shardrt::cpu

#endif // SHARDRT_CPU_INT64CASTS_H
