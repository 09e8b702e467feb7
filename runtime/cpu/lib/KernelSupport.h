//===- KernelSupport.h - Helpers shared by the CPU kernels ------*- C++ -*-===//

#ifndef SHARDRT_CPU_LIB_KERNELSUPPORT_H
#define SHARDRT_CPU_LIB_KERNELSUPPORT_H

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

/// On x86-64 with GCC 12+ and glibc (ifuncs), a hot elementwise loop is
/// compiled three times (baseline SSE2, AVX2, AVX-512) and the loader picks
/// the widest the CPU has, so a portable build still runs 8 or 16 floats at
/// a time. The clones compute the same bits: the library is compiled with
/// -ffp-contract=off (no FMA contraction), and IEEE +, -, *, / and
/// conversions round the same in any vector width.
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) &&          \
    !defined(__clang__) && __GNUC__ >= 12
#define SHARDRT_CPU_VECTOR_CLONES                                              \
  __attribute__((target_clones("default", "avx2", "arch=x86-64-v4")))
#else
#define SHARDRT_CPU_VECTOR_CLONES
#endif

namespace shardrt::cpu::detail {

/// Below this many elements a parallel region costs more than it saves.
constexpr int64_t kParallelMin = 32768;

/// Runs f(begin, end) over [0, n), split across the OpenMP team when `work`
/// (the elements touched) is large. Thread boundaries are rounded up to
/// multiples of `align` (e.g. so that threads never share a cache line).
template <typename F>
void forChunks(int64_t n, int64_t work, F &&f, int64_t align = 1) {
  if (work < kParallelMin || n < 2) {
    f(int64_t(0), n);
    return;
  }
#pragma omp parallel
  {
    int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    auto bound = [&](int64_t i) {
      return std::min(n, (n * i / nt + align - 1) / align * align);
    };
    if (bound(t) < bound(t + 1))
      f(bound(t), bound(t + 1));
  }
}

/// Sum of n contiguous floats in double, over 8 independent lanes (so the
/// compiler vectorises it and rounding does not grow with n).
inline double laneSum(const float *x, int64_t n) {
  constexpr int kLanes = 8;
  double s[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j)
      s[j] += x[i + j];
  for (; i < n; ++i)
    s[0] += x[i];
  double sum = 0.0;
  for (int j = 0; j < kLanes; ++j)
    sum += s[j];
  return sum;
}

/// Type-agnostic kernels move elements in the widest unit (8, 4, 2 or 1
/// bytes) dividing elemBytes.
inline size_t byteUnit(size_t elemBytes) {
  for (size_t u : {8, 4, 2})
    if (elemBytes % u == 0)
      return u;
  return 1;
}

/// Calls run(T()) with the unsigned type of `unit` bytes (a byteUnit).
template <typename F> void withByteUnit(size_t unit, F &&run) {
  switch (unit) {
  case 8:
    return run(uint64_t());
  case 4:
    return run(uint32_t());
  case 2:
    return run(uint16_t());
  default:
    return run(uint8_t());
  }
}

/// Copies the `rank` (1..3) per-spatial-dim values of `src` into the last
/// `rank` entries of dst[3], filling the leading entries with `fill`, so that
/// 1-, 2- and 3-D windows share one 3-D loop nest.
inline void rightAlign3(const int64_t *src, int rank, int64_t fill,
                        int64_t dst[3]) {
  for (int d = 0; d < 3; ++d) {
    int s = d - (3 - rank);
    dst[d] = s >= 0 ? src[s] : fill;
  }
}

} // namespace shardrt::cpu::detail

#endif // SHARDRT_CPU_LIB_KERNELSUPPORT_H
