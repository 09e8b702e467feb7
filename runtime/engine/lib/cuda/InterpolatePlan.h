//===- InterpolatePlan.h - Interpolation tables for the device --*- C++ -*-===//
//
// The CUDA backend resamples with the CPU kernel's own per-axis tables
// (cpu::interpolationAxes: PyTorch's coordinate rounding, done once on the
// host), packed into one buffer that is uploaded once per session. The
// kernel evaluates one output element with `interpolateAt`, blending in the
// CPU kernel's order. Free of CUDA headers, so the CPU unit tests run the
// same function over the same packed tables against cpu::interpolate.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_CUDA_INTERPOLATEPLAN_H
#define SHARDRT_ENGINE_CUDA_INTERPOLATEPLAN_H

#include "BoxCopyPlan.h" // SHARDRT_HOST_DEVICE
#include "shardrt/cpu/Kernels.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace shardrt::exec::cuda {

/// The packed tables seen from where they live (host or device): per axis,
/// `out[d]` source indices and weights of each tap.
struct InterpolateView {
  const long long *index0[3], *index1[3];
  const float *weight0[3], *weight1[3];
  int taps[3];
  long long in[3], out[3];
  long long count; ///< output elements: channels * out[0] * out[1] * out[2]
};

/// The tables as one buffer (all indices, then all weights), where each
/// table starts in it, and the view's sizes.
struct InterpolatePlan {
  std::vector<unsigned char> bytes;
  size_t index0[3], index1[3], weight0[3], weight1[3]; ///< byte offsets
  InterpolateView shape{};                             ///< pointers unset

  /// The view of the tables once `bytes` lies at `base`.
  InterpolateView at(const void *base) const {
    const unsigned char *b = static_cast<const unsigned char *>(base);
    InterpolateView v = shape;
    for (int d = 0; d < 3; ++d) {
      v.index0[d] = reinterpret_cast<const long long *>(b + index0[d]);
      v.index1[d] = reinterpret_cast<const long long *>(b + index1[d]);
      v.weight0[d] = reinterpret_cast<const float *>(b + weight0[d]);
      v.weight1[d] = reinterpret_cast<const float *>(b + weight1[d]);
    }
    return v;
  }
};

inline InterpolatePlan planInterpolate(cpu::InterpMode mode,
                                       const cpu::InterpParams &p) {
  cpu::InterpAxes axes = cpu::interpolationAxes(mode, p);
  InterpolatePlan plan;
  size_t at = 0;
  auto place = [&](const void *data, size_t bytes) {
    size_t offset = at;
    plan.bytes.resize(at + bytes);
    if (bytes)
      std::memcpy(plan.bytes.data() + offset, data, bytes);
    at += bytes;
    return offset;
  };
  // Indices first: every offset stays 8-byte aligned.
  for (int d = 0; d < 3; ++d) {
    const cpu::InterpAxis &a = axes.axis[d];
    static_assert(sizeof(long long) == sizeof(int64_t));
    plan.index0[d] = place(a.index0.data(), a.index0.size() * sizeof(int64_t));
    plan.index1[d] = place(a.index1.data(), a.index1.size() * sizeof(int64_t));
  }
  for (int d = 0; d < 3; ++d) {
    const cpu::InterpAxis &a = axes.axis[d];
    plan.weight0[d] = place(a.weight0.data(), a.weight0.size() * sizeof(float));
    plan.weight1[d] = place(a.weight1.data(), a.weight1.size() * sizeof(float));
    plan.shape.taps[d] = a.taps;
    plan.shape.in[d] = axes.in[d];
    plan.shape.out[d] = axes.out[d];
  }
  plan.shape.count = p.channels * axes.out[0] * axes.out[1] * axes.out[2];
  return plan;
}

/// Output element `i` (row-major over (channels, out[0], out[1], out[2]))
/// of the resampled `x`: the innermost dim blended first, as the CPU does.
SHARDRT_HOST_DEVICE inline float interpolateAt(const InterpolateView &v,
                                               const float *x, long long i) {
  long long o2 = i % v.out[2], rest = i / v.out[2];
  long long o1 = rest % v.out[1];
  rest /= v.out[1];
  long long o0 = rest % v.out[0], c = rest / v.out[0];
  const float *xc = x + c * v.in[0] * v.in[1] * v.in[2];
  auto inner = [&](long long i0, long long i1) {
    const float *xr = xc + (i0 * v.in[1] + i1) * v.in[2];
    float r = xr[v.index0[2][o2]] * v.weight0[2][o2];
    if (v.taps[2] == 2)
      r += xr[v.index1[2][o2]] * v.weight1[2][o2];
    return r;
  };
  auto middle = [&](long long i0) {
    float r = inner(i0, v.index0[1][o1]) * v.weight0[1][o1];
    if (v.taps[1] == 2)
      r += inner(i0, v.index1[1][o1]) * v.weight1[1][o1];
    return r;
  };
  float r = middle(v.index0[0][o0]) * v.weight0[0][o0];
  if (v.taps[0] == 2)
    r += middle(v.index1[0][o0]) * v.weight1[0][o0];
  return r;
}

/// The source element of output `i` when every axis takes one tap of
/// weight 1 (the nearest modes): resampling is then a gather, exact for
/// elements of any type.
SHARDRT_HOST_DEVICE inline long long nearestSourceOf(const InterpolateView &v,
                                                     long long i) {
  long long o2 = i % v.out[2], rest = i / v.out[2];
  long long o1 = rest % v.out[1];
  rest /= v.out[1];
  long long o0 = rest % v.out[0], c = rest / v.out[0];
  return ((c * v.in[0] + v.index0[0][o0]) * v.in[1] + v.index0[1][o1]) *
             v.in[2] +
         v.index0[2][o2];
}

} // namespace shardrt::exec::cuda

#endif // SHARDRT_ENGINE_CUDA_INTERPOLATEPLAN_H
