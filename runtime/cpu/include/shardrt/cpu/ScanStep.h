//===- ScanStep.h - One step of a cumulative op, host and device -*- C++
//-*-===//
//
// torch.cumsum, cumprod, cummax, cummin and logcumsumexp fold each element
// into a running value, in order along the scanned dim. The fold is written
// once here and compiled for both the CPU kernel (cpu::scan) and the CUDA
// backend's scan kernel, so the two give the same bits. The running value
// is a double, as PyTorch's CPU kernels accumulate float input
// (at::acc_type<float, false>); max and min are exact in it.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_CPU_SCANSTEP_H
#define SHARDRT_CPU_SCANSTEP_H

#include <cmath>

#if defined(__CUDACC__)
#define SHARDRT_SCAN_FN __host__ __device__ inline
#else
#define SHARDRT_SCAN_FN inline
#endif

namespace shardrt::cpu {

enum class ScanKind { Sum, Prod, Max, Min, LogSumExp };

/// The running value before the first element: the fold's identity.
SHARDRT_SCAN_FN double scanIdentity(ScanKind kind) {
  switch (kind) {
  case ScanKind::Sum:
    return 0.0;
  case ScanKind::Prod:
    return 1.0;
  case ScanKind::Max:
  case ScanKind::LogSumExp:
    return -HUGE_VAL; // numeric_limits is host-only under nvcc
  case ScanKind::Min:
    return HUGE_VAL;
  }
  return 0.0;
}

/// `acc` with `x` folded in. cummax/cummin keep a NaN once they meet one
/// (PyTorch: `x >= acc || isnan(x)` replaces acc). logcumsumexp is
/// ATen's _log_add_exp_helper: log1p(exp(min - max)) + max, except that
/// two equal infinities give that infinity, and NaN propagates.
SHARDRT_SCAN_FN double scanFold(ScanKind kind, double acc, double x) {
  switch (kind) {
  case ScanKind::Sum:
    return acc + x;
  case ScanKind::Prod:
    return acc * x;
  case ScanKind::Max:
    return (x >= acc || x != x) ? x : acc;
  case ScanKind::Min:
    return (x <= acc || x != x) ? x : acc;
  case ScanKind::LogSumExp: {
    if (acc != acc || x != x)
      return acc != acc ? acc : x;
    double lo = x < acc ? x : acc, hi = x < acc ? acc : x;
    if (lo == hi && !(lo - lo == 0.0)) // equal infinities
      return x;
    return ::log1p(::exp(lo - hi)) + hi;
  }
  }
  return acc;
}

} // namespace shardrt::cpu

#undef SHARDRT_SCAN_FN

#endif // SHARDRT_CPU_SCANSTEP_H
