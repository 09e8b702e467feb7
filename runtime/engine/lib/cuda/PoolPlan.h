//===- PoolPlan.h - Max and average pooling, one output at a time -*- C++
//-*-===//
//
// The CUDA backend hands cuDNN the poolings it shares PyTorch's rules for
// (no dilation, symmetric padding, max pools unpadded, no ceil-mode window
// past the padding, no divisor override). Every other pooling the CPU
// backend takes (acceptance case r13's padded max pool among them) runs as
// one kernel of our own that computes each output from `pooledValue`: the
// CPU kernels' rules (cpu::maxPool, cpu::avgPool: windows clipped to the
// input, NaN wins a max, count_include_pad over the window clipped to the
// padded extent, divisor_override), summed in the same order so that the
// results are bitwise the CPU's. Free of CUDA headers, so the CPU unit
// tests run it against the CPU kernels.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_CUDA_POOLPLAN_H
#define SHARDRT_ENGINE_CUDA_POOLPLAN_H

#include "BoxCopyPlan.h" // SHARDRT_HOST_DEVICE
#include "shardrt/cpu/Kernels.h"

#include <cmath>

namespace shardrt::exec::cuda {

/// A pooling's geometry as 3 spatial dims (leading unit dims for ranks 1
/// and 2), passed to the kernel by value.
struct PoolView {
  long long channels = 0, count = 0; ///< (n * c) and output elements
  long long in[3], out[3], kernel[3], stride[3], padLo[3], padHi[3],
      dilation[3];
  long long divisorOverride = 0;
  bool isMax = false, countIncludePad = true;
};

inline PoolView poolView(const cpu::PoolParams &p, bool isMax) {
  PoolView v;
  v.channels = p.channels;
  v.isMax = isMax;
  v.countIncludePad = p.countIncludePad;
  v.divisorOverride = p.divisorOverride;
  int lead = 3 - p.rank;
  for (int d = 0; d < 3; ++d) {
    int s = d - lead; // the params' dim, when d is one of the rank's
    bool real = s >= 0;
    v.in[d] = real ? p.in[s] : 1;
    v.out[d] = real ? p.out[s] : 1;
    v.kernel[d] = real ? p.kernel[s] : 1;
    v.stride[d] = real ? p.stride[s] : 1;
    v.padLo[d] = real ? p.padLo[s] : 0;
    v.padHi[d] = real ? p.padHi[s] : 0;
    v.dilation[d] = real ? p.dilation[s] : 1;
  }
  v.count = v.channels * v.out[0] * v.out[1] * v.out[2];
  return v;
}

/// Output element i (row-major over (channel, o0, o1, o2)) of pooling `x`.
SHARDRT_HOST_DEVICE inline float pooledValue(const PoolView &v, const float *x,
                                             long long i) {
  long long o[3];
  o[2] = i % v.out[2];
  i /= v.out[2];
  o[1] = i % v.out[1];
  i /= v.out[1];
  o[0] = i % v.out[0];
  const float *xc = x + (i / v.out[0]) * (v.in[0] * v.in[1] * v.in[2]);
  long long start[3];
  for (int d = 0; d < 3; ++d)
    start[d] = o[d] * v.stride[d] - v.padLo[d];
  if (v.isMax) {
    float best = -HUGE_VALF;
    for (long long k0 = 0; k0 < v.kernel[0]; ++k0) {
      long long i0 = start[0] + k0 * v.dilation[0];
      if (i0 < 0 || i0 >= v.in[0])
        continue;
      for (long long k1 = 0; k1 < v.kernel[1]; ++k1) {
        long long i1 = start[1] + k1 * v.dilation[1];
        if (i1 < 0 || i1 >= v.in[1])
          continue;
        const float *row = xc + (i0 * v.in[1] + i1) * v.in[2];
        for (long long k2 = 0; k2 < v.kernel[2]; ++k2) {
          long long i2 = start[2] + k2 * v.dilation[2];
          if (i2 < 0 || i2 >= v.in[2])
            continue;
          float value = row[i2];
          if (value > best || value != value) // NaN wins, as in PyTorch
            best = value;
        }
      }
    }
    return best;
  }
  // The window clipped to the padded extent (what count_include_pad
  // counts), then to the input (what is summed).
  long long lo[3], hi[3], padded = 1, inside = 1;
  for (int d = 0; d < 3; ++d) {
    long long end = start[d] + v.kernel[d];
    if (end > v.in[d] + v.padHi[d])
      end = v.in[d] + v.padHi[d];
    padded *= end - start[d];
    lo[d] = start[d] > 0 ? start[d] : 0;
    hi[d] = end < v.in[d] ? end : v.in[d];
    inside *= hi[d] > lo[d] ? hi[d] - lo[d] : 0;
  }
  float sum = 0.0f;
  for (long long i0 = lo[0]; i0 < hi[0]; ++i0)
    for (long long i1 = lo[1]; i1 < hi[1]; ++i1) {
      const float *row = xc + (i0 * v.in[1] + i1) * v.in[2];
      for (long long i2 = lo[2]; i2 < hi[2]; ++i2)
        sum += row[i2];
    }
  long long divisor = v.divisorOverride   ? v.divisorOverride
                      : v.countIncludePad ? padded
                                          : inside;
  return sum / float(divisor);
}

} // namespace shardrt::exec::cuda

#endif // SHARDRT_ENGINE_CUDA_POOLPLAN_H
