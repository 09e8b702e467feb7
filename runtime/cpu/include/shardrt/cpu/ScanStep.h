//===- ScanStep.h - A cumulative op's fold, host and device ---*- C++ -*-===//
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

/// Floats per packed running value.
constexpr int kPackedScanFloats = 4;

/// `v` as four floats: its mantissa in [0.5, 1) split into three floats
/// that hold all 53 of its bits (24 + 24 + 5), and its binary exponent, so
/// a double's value and range survive exactly. Zeros (with their sign),
/// infinities and NaN are stored as themselves.
SHARDRT_SCAN_FN void packScanValue(double v, float *out) {
  out[1] = out[2] = out[3] = 0.0f;
  if (v == 0.0 || !(v - v == 0.0)) {
    out[0] = float(v);
    return;
  }
  int e = 0;
  double m = ::frexp(v, &e);
  float hi = float(m);
  double rest = m - double(hi);
  float mid = float(rest);
  out[0] = hi;
  out[1] = mid;
  out[2] = float(rest - double(mid));
  out[3] = float(e);
}

/// The double packScanValue packed.
SHARDRT_SCAN_FN double unpackScanValue(const float *in) {
  // The parts do not overlap, so these sums are exact; adding zero parts
  // would turn -0 into +0.
  double m = double(in[0]);
  if (in[1] != 0.0f)
    m += double(in[1]) + double(in[2]);
  // Clamped, so that totals that no ScanTotals wrote (a malformed program's
  // input) convert without undefined behaviour: out of range is inf or 0.
  float e = in[3];
  int exponent = e > 4096.0f    ? 4096
                 : e < -4096.0f ? -4096
                 : e == e       ? int(e)
                                : 0;
  return ::ldexp(m, exponent);
}

} // namespace shardrt::cpu

#undef SHARDRT_SCAN_FN

#endif // SHARDRT_CPU_SCANSTEP_H
