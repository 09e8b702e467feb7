//===- Interpolate.cpp - Nearest and (bi/tri)linear resampling ------------===//
//
// Separable: each dim gets a table of source indices and weights per output
// index, computed from the output's global position so that a shard with its
// halo reproduces the unpartitioned result exactly. Coordinates are computed
// in float with PyTorch's expressions (not in double) because nearest
// rounding at exact integer boundaries must agree with PyTorch bit for bit.
//
//===----------------------------------------------------------------------===//

#include "Blas.h"
#include "shardrt/cpu/Kernels.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace shardrt::cpu {

using namespace detail;

namespace {

/// floor(v) as an index clamped to [0, last], converted only after
/// clamping (a float beyond int64's range would be undefined to convert).
int64_t floorIndex(float v, int64_t last) {
  float f = std::floor(v);
  if (!(f > 0.0f))
    return 0;
  return f >= static_cast<float>(last) ? last : static_cast<int64_t>(f);
}

int64_t globalSource(InterpMode mode, const InterpParams &p, int d, int64_t o,
                     float &lambda1) {
  float scale = static_cast<float>(p.scale[d]);
  int64_t last = p.inGlobal[d] - 1;
  lambda1 = 0.0f;
  if (mode == InterpMode::Nearest)
    return floorIndex(o * scale, last);
  if (mode == InterpMode::NearestExact)
    return floorIndex(static_cast<float>((o + 0.5) * scale), last);
  float real = p.alignCorners ? scale * o : scale * (o + 0.5f) - 0.5f;
  real = std::max(real, 0.0f);
  int64_t i0 = floorIndex(real, last);
  lambda1 = std::min(std::max(real - i0, 0.0f), 1.0f);
  return i0;
}

InterpAxis makeAxis(InterpMode mode, const InterpParams &p, int d) {
  InterpAxis t;
  int64_t n = p.out[d];
  t.index0.resize(n);
  t.index1.resize(n);
  t.weight0.assign(n, 1.0f);
  t.weight1.assign(n, 0.0f);
  t.taps = mode == InterpMode::Linear ? 2 : 1;
  // The executor guarantees the sources are local; clamping only keeps a
  // bad halo from reading outside the buffer.
  auto local = [&](int64_t global) {
    return std::clamp<int64_t>(global - p.inOffset[d], 0, p.in[d] - 1);
  };
  for (int64_t o = 0; o < n; ++o) {
    float lambda1;
    int64_t i0 = globalSource(mode, p, d, o + p.outOffset[d], lambda1);
    int64_t i1 = i0 + (i0 < p.inGlobal[d] - 1 ? 1 : 0);
    t.index0[o] = local(i0);
    t.index1[o] = local(i1);
    if (t.taps == 2) {
      t.weight0[o] = 1.0f - lambda1;
      t.weight1[o] = lambda1;
    }
  }
  return t;
}

/// Leading unit dims of ranks below 3: one tap at index 0.
InterpAxis unitAxis() {
  InterpAxis t;
  t.index0 = t.index1 = {0};
  t.weight0 = {1.0f};
  t.weight1 = {0.0f};
  return t;
}

} // namespace

InterpAxes interpolationAxes(InterpMode mode, const InterpParams &p) {
  InterpAxes t;
  for (int d = 0; d < 3; ++d) {
    int src = d - (3 - p.rank);
    if (src < 0) {
      t.axis[d] = unitAxis();
      continue;
    }
    t.axis[d] = makeAxis(mode, p, src);
    t.in[d] = p.in[src];
    t.out[d] = p.out[src];
  }
  return t;
}

void interpolate(InterpMode mode, const InterpParams &p, const float *x,
                 float *y) {
  InterpAxes tables = interpolationAxes(mode, p);
  const InterpAxis *axes = tables.axis;
  const int64_t *in = tables.in, *out = tables.out;
  int64_t inVol = in[0] * in[1] * in[2];
  int64_t rowsPerChannel = out[0] * out[1];
  int64_t rows = p.channels * rowsPerChannel;
  if (rows <= 0 || out[2] <= 0)
    return;
  const InterpAxis &a0 = axes[0], &a1 = axes[1], &a2 = axes[2];
  int threads = threadsFor(8.0 * rows * out[2]);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t row = 0; row < rows; ++row) {
    int64_t c = row / rowsPerChannel, r = row % rowsPerChannel;
    int64_t o0 = r / out[1], o1 = r % out[1];
    const float *xc = x + c * inVol;
    float *yrow = y + row * out[2];
    // Same nesting as PyTorch: the innermost dim is interpolated first and
    // each outer dim blends the two inner results.
    auto inner = [&](int64_t i0, int64_t i1, int64_t o2) {
      const float *xr = xc + (i0 * in[1] + i1) * in[2];
      float v = xr[a2.index0[o2]] * a2.weight0[o2];
      if (a2.taps == 2)
        v += xr[a2.index1[o2]] * a2.weight1[o2];
      return v;
    };
    auto middle = [&](int64_t i0, int64_t o2) {
      float v = inner(i0, a1.index0[o1], o2) * a1.weight0[o1];
      if (a1.taps == 2)
        v += inner(i0, a1.index1[o1], o2) * a1.weight1[o1];
      return v;
    };
    for (int64_t o2 = 0; o2 < out[2]; ++o2) {
      float v = middle(a0.index0[o0], o2) * a0.weight0[o0];
      if (a0.taps == 2)
        v += middle(a0.index1[o0], o2) * a0.weight1[o0];
      yrow[o2] = v;
    }
  }
}

namespace {

template <typename T>
void gatherNearest(const InterpAxes &tables, int64_t channels, const T *x,
                   T *y) {
  const InterpAxis *axes = tables.axis;
  const int64_t *in = tables.in, *out = tables.out;
  int64_t inVol = in[0] * in[1] * in[2];
  int64_t rowsPerChannel = out[0] * out[1], rows = channels * rowsPerChannel;
  int threads = threadsFor(2.0 * rows * out[2]);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t row = 0; row < rows; ++row) {
    int64_t c = row / rowsPerChannel, r = row % rowsPerChannel;
    int64_t o0 = r / out[1], o1 = r % out[1];
    const T *xr = x + c * inVol +
                  (axes[0].index0[o0] * in[1] + axes[1].index0[o1]) * in[2];
    T *yrow = y + row * out[2];
    for (int64_t o2 = 0; o2 < out[2]; ++o2)
      yrow[o2] = xr[axes[2].index0[o2]];
  }
}

} // namespace

void interpolateNearest(InterpMode mode, const InterpParams &p, const void *x,
                        void *y, size_t elemBytes) {
  InterpAxes tables = interpolationAxes(mode, p);
  if (p.channels <= 0 || tables.out[0] * tables.out[1] * tables.out[2] <= 0)
    return;
  if (elemBytes == 2)
    gatherNearest(tables, p.channels, static_cast<const uint16_t *>(x),
                  static_cast<uint16_t *>(y));
  else
    gatherNearest(tables, p.channels, static_cast<const uint32_t *>(x),
                  static_cast<uint32_t *>(y));
}

} // namespace shardrt::cpu
