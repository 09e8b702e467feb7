//===- HostCudnnLoops.cpp - The arithmetic of the stand-in cuDNN ----------===//
//
// The forward convolution sums in float per output row, as the library
// sums (the row stays in cache while every input channel and tap adds to
// it); backward data and pooling sum in double.
//
//===----------------------------------------------------------------------===//

#include "HostCudnnLoops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace hostcudnn {

Geometry geometryOf(const int *dims, const int *strides, int nb) {
  Geometry g;
  g.n = dims[0];
  g.c = dims[1];
  g.strideN = strides[0];
  g.strideC = strides[1];
  int lead = kSpatial - (nb - 2);
  for (int d = 2; d < nb; ++d) {
    g.sp[lead + d - 2] = dims[d];
    g.strideSp[lead + d - 2] = strides[d];
  }
  return g;
}

float toTf32(float v) {
  if (!std::isfinite(v))
    return v;
  uint32_t u;
  std::memcpy(&u, &v, 4);
  u = (u + 0xFFF + ((u >> 13) & 1)) & ~0x1FFFu;
  std::memcpy(&v, &u, 4);
  return v;
}

/// cuDNN's output extent of one spatial dim.
int64_t convOutExtent(int64_t in, int64_t kernel, int64_t pad, int64_t stride,
                      int64_t dilation) {
  int64_t span = (kernel - 1) * dilation + 1;
  return in + 2 * pad < span ? 0 : 1 + (in + 2 * pad - span) / stride;
}

namespace {

/// Calls `visit(in, out, count)` for every row of (in position, out
/// position) pairs that kernel tap `k` joins: out positions [out, out +
/// count) of the dense output, read from `in` (an offset into the input's
/// channel slab) on in steps of the last dim's stride.
template <typename Visit>
void forEachTapRow(const ConvProblem &p, const int64_t k[kSpatial],
                   Visit visit) {
  const Geometry &in = p.in, &out = p.out;
  int64_t off[kSpatial];
  for (int d = 0; d < kSpatial; ++d)
    off[d] = k[d] * p.dilation[d] - p.pad[d]; // in = o * stride + off
  // Out positions o with 0 <= o * stride + off < in extent.
  auto range = [&](int d, int64_t &lo, int64_t &hi) {
    lo = off[d] >= 0 ? 0 : (-off[d] + p.stride[d] - 1) / p.stride[d];
    hi = in.sp[d] - 1 - off[d] < 0
             ? 0
             : std::min(out.sp[d], (in.sp[d] - 1 - off[d]) / p.stride[d] + 1);
  };
  int64_t lo[kSpatial], hi[kSpatial];
  for (int d = 0; d < kSpatial; ++d)
    range(d, lo[d], hi[d]);
  if (lo[2] >= hi[2])
    return;
  for (int64_t o0 = lo[0]; o0 < hi[0]; ++o0)
    for (int64_t o1 = lo[1]; o1 < hi[1]; ++o1) {
      int64_t i0 = o0 * p.stride[0] + off[0], i1 = o1 * p.stride[1] + off[1];
      visit(i0 * in.strideSp[0] + i1 * in.strideSp[1] +
                (lo[2] * p.stride[2] + off[2]) * in.strideSp[2],
            (o0 * out.sp[1] + o1) * out.sp[2] + lo[2], hi[2] - lo[2]);
    }
}

/// The weight of output channel k, input channel c of its group, tap t.
float weightAt(const ConvProblem &p, const float *w, int64_t k, int64_t c,
               const int64_t t[kSpatial]) {
  int64_t idx = 0;
  for (int d = 0; d < kSpatial; ++d)
    idx = idx * p.kernel[d] + t[d];
  return w[(k * (p.in.c / p.groups) + c) * p.kernelVolume() + idx];
}

template <typename Body> void forEachTap(const ConvProblem &p, Body body) {
  int64_t t[kSpatial];
  for (t[0] = 0; t[0] < p.kernel[0]; ++t[0])
    for (t[1] = 0; t[1] < p.kernel[1]; ++t[1])
      for (t[2] = 0; t[2] < p.kernel[2]; ++t[2])
        body(t);
}

/// Stores alpha * acc + beta * dst over a tensor's N = n, channel c slab,
/// acc dense over the spatial dims; beta 0 does not read dst.
void store(const Geometry &g, float *base, int64_t n, int64_t c,
           const double *acc, float alpha, float beta) {
  float *slab = base + n * g.strideN + c * g.strideC;
  int64_t i = 0;
  for (int64_t a = 0; a < g.sp[0]; ++a)
    for (int64_t b = 0; b < g.sp[1]; ++b)
      for (int64_t e = 0; e < g.sp[2]; ++e, ++i) {
        float &dst =
            slab[a * g.strideSp[0] + b * g.strideSp[1] + e * g.strideSp[2]];
        float v = float(alpha * acc[i]);
        dst = beta == 0.0f ? v : v + beta * dst;
      }
}

} // namespace

/// y = alpha * conv(x, w) + beta * y, one output row at a time (its sums
/// stay in cache while every input channel and tap adds to them), summed in
/// float as the library does.
void convForward(const ConvProblem &p, const float *x, const float *w, float *y,
                 float alpha, float beta, bool tf32) {
  const Geometry &in = p.in, &out = p.out;
  int64_t cg = in.c / p.groups, kg = out.c / p.groups;
  int64_t sx = in.strideSp[2] * p.stride[2];
  std::vector<float> acc(size_t(out.sp[2]));
  auto inRange = [&](int d, int64_t o, int64_t t, int64_t &i) {
    i = o * p.stride[d] + t * p.dilation[d] - p.pad[d];
    return i >= 0 && i < in.sp[d];
  };
  for (int64_t n = 0; n < in.n; ++n)
    for (int64_t k = 0; k < out.c; ++k) {
      const float *xg = x + n * in.strideN + k / kg * cg * in.strideC;
      float *yk = y + n * out.strideN + k * out.strideC;
      for (int64_t o0 = 0; o0 < out.sp[0]; ++o0)
        for (int64_t o1 = 0; o1 < out.sp[1]; ++o1) {
          std::fill(acc.begin(), acc.end(), 0.0f);
          int64_t t[kSpatial], i0, i1;
          for (int64_t c = 0; c < cg; ++c)
            for (t[0] = 0; t[0] < p.kernel[0]; ++t[0]) {
              if (!inRange(0, o0, t[0], i0))
                continue;
              for (t[1] = 0; t[1] < p.kernel[1]; ++t[1]) {
                if (!inRange(1, o1, t[1], i1))
                  continue;
                const float *xr = xg + c * in.strideC + i0 * in.strideSp[0] +
                                  i1 * in.strideSp[1];
                for (t[2] = 0; t[2] < p.kernel[2]; ++t[2]) {
                  // Out positions o with 0 <= o * stride + off < in extent.
                  int64_t off = t[2] * p.dilation[2] - p.pad[2];
                  int64_t lo =
                      off >= 0 ? 0 : (p.stride[2] - 1 - off) / p.stride[2];
                  int64_t hi =
                      in.sp[2] - 1 - off < 0
                          ? 0
                          : std::min(out.sp[2],
                                     (in.sp[2] - 1 - off) / p.stride[2] + 1);
                  float wv = weightAt(p, w, k, c, t);
                  const float *xs =
                      xr + (lo * p.stride[2] + off) * in.strideSp[2];
                  float *a = acc.data() + lo;
                  if (tf32) {
                    wv = toTf32(wv);
                    for (int64_t i = 0; i < hi - lo; ++i)
                      a[i] += wv * toTf32(xs[i * sx]);
                  } else if (sx == 1) {
                    for (int64_t i = 0; i < hi - lo; ++i)
                      a[i] += wv * xs[i];
                  } else {
                    for (int64_t i = 0; i < hi - lo; ++i)
                      a[i] += wv * xs[i * sx];
                  }
                }
              }
            }
          float *yr = yk + o0 * out.strideSp[0] + o1 * out.strideSp[1];
          for (int64_t o2 = 0; o2 < out.sp[2]; ++o2) {
            float &dst = yr[o2 * out.strideSp[2]];
            float v = alpha * acc[size_t(o2)];
            dst = beta == 0.0f ? v : v + beta * dst;
          }
        }
    }
}

/// dx = alpha * conv^T(dy, w) + beta * dx: each dy position adds its
/// weighted taps into the dx positions the forward conv read.
void convBackwardData(const ConvProblem &p, const float *w, const float *dy,
                      float *dx, float alpha, float beta, bool tf32) {
  int64_t cg = p.in.c / p.groups, kg = p.out.c / p.groups;
  // forEachTapRow's offsets are into dx (p.in): accumulate a dense copy.
  ConvProblem dense = p;
  dense.in.strideSp[2] = 1;
  dense.in.strideSp[1] = p.in.sp[2];
  dense.in.strideSp[0] = p.in.sp[1] * p.in.sp[2];
  std::vector<double> acc(size_t(p.in.spatialSize()));
  for (int64_t n = 0; n < p.in.n; ++n)
    for (int64_t c = 0; c < p.in.c; ++c) {
      std::fill(acc.begin(), acc.end(), 0.0);
      int64_t g = c / cg;
      for (int64_t k = g * kg; k < (g + 1) * kg; ++k) {
        const float *dyk = dy + n * p.out.strideN + k * p.out.strideC;
        forEachTap(dense, [&](const int64_t t[kSpatial]) {
          float wf = weightAt(p, w, k, c % cg, t);
          double wv = tf32 ? toTf32(wf) : wf;
          forEachTapRow(dense, t, [&](int64_t in, int64_t out, int64_t count) {
            // out runs over dy's dense positions: find them in dy.
            int64_t o2 = out % p.out.sp[2], o01 = out / p.out.sp[2];
            int64_t o1 = o01 % p.out.sp[1], o0 = o01 / p.out.sp[1];
            const float *dr = dyk + o0 * p.out.strideSp[0] +
                              o1 * p.out.strideSp[1] + o2 * p.out.strideSp[2];
            for (int64_t i = 0; i < count; ++i) {
              float v = dr[i * p.out.strideSp[2]];
              acc[size_t(in + i * p.stride[2])] += wv * (tf32 ? toTf32(v) : v);
            }
          });
        });
      }
      store(p.in, dx, n, c, acc.data(), alpha, beta);
    }
}

/// y = alpha * pool(x) + beta * y.
void poolForward(const PoolProblem &p, const float *x, float *y, float alpha,
                 float beta) {
  std::vector<double> acc(size_t(p.out.spatialSize()));
  for (int64_t n = 0; n < p.in.n; ++n)
    for (int64_t c = 0; c < p.in.c; ++c) {
      const float *xc = x + n * p.in.strideN + c * p.in.strideC;
      int64_t o[kSpatial], i = 0;
      for (o[0] = 0; o[0] < p.out.sp[0]; ++o[0])
        for (o[1] = 0; o[1] < p.out.sp[1]; ++o[1])
          for (o[2] = 0; o[2] < p.out.sp[2]; ++o[2], ++i) {
            double sum = 0, best = -std::numeric_limits<double>::infinity();
            int64_t inside = 0;
            bool nan = false;
            int64_t t[kSpatial];
            for (t[0] = 0; t[0] < p.window[0]; ++t[0])
              for (t[1] = 0; t[1] < p.window[1]; ++t[1])
                for (t[2] = 0; t[2] < p.window[2]; ++t[2]) {
                  int64_t off = 0;
                  bool in = true;
                  for (int d = 0; d < kSpatial; ++d) {
                    int64_t at = o[d] * p.stride[d] - p.pad[d] + t[d];
                    in = in && at >= 0 && at < p.in.sp[d];
                    off += at * p.in.strideSp[d];
                  }
                  if (!in)
                    continue;
                  float v = xc[off];
                  ++inside;
                  nan = nan || std::isnan(v);
                  sum += v;
                  if (v > best)
                    best = v;
                }
            int64_t divisor = p.kind == PoolKind::AverageOverWindow
                                  ? p.window[0] * p.window[1] * p.window[2]
                                  : inside;
            acc[size_t(i)] =
                p.kind == PoolKind::Max
                    ? (nan && p.propagateNan
                           ? std::numeric_limits<double>::quiet_NaN()
                           : best)
                    : sum / double(divisor);
          }
      store(p.out, y, n, c, acc.data(), alpha, beta);
    }
}

} // namespace hostcudnn
