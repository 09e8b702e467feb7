//===- Pool.cpp - Max and average pooling ---------------------------------===//
//
// Direct loops: pooling does O(kernel) work per output and is memory bound,
// so there is nothing for a GEMM formulation to win. Spatial ranks 1..3 are
// handled as 3-D with leading unit dims; rows of (channel, d0, d1) outputs
// are the unit of parallel work so a single large image still spreads out.
//
//===----------------------------------------------------------------------===//

#include "Blas.h"
#include "shardrt/cpu/Kernels.h"

#include "KernelSupport.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace shardrt::cpu {

using namespace detail;

namespace {

struct Geometry {
  int64_t in[3], out[3], kernel[3], stride[3], padLo[3], padHi[3], dilation[3];
  int64_t inVol, outVol;

  explicit Geometry(const PoolParams &p) {
    detail::rightAlign3(p.in, p.rank, 1, in);
    detail::rightAlign3(p.out, p.rank, 1, out);
    detail::rightAlign3(p.kernel, p.rank, 1, kernel);
    detail::rightAlign3(p.stride, p.rank, 1, stride);
    detail::rightAlign3(p.padLo, p.rank, 0, padLo);
    detail::rightAlign3(p.padHi, p.rank, 0, padHi);
    detail::rightAlign3(p.dilation, p.rank, 1, dilation);
    inVol = in[0] * in[1] * in[2];
    outVol = out[0] * out[1] * out[2];
  }
};

/// Runs fn(xChannel, yRow, o0, o1) for every output row, in parallel.
template <typename Fn>
void forEachRow(const PoolParams &p, const Geometry &g, const float *x,
                float *y, Fn fn) {
  int64_t rowsPerChannel = g.out[0] * g.out[1];
  int64_t rows = p.channels * rowsPerChannel;
  int64_t work = 1;
  for (int d = 0; d < 3; ++d)
    work *= g.kernel[d];
  int threads = threadsFor(static_cast<double>(work) * p.channels * g.outVol);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t row = 0; row < rows; ++row) {
    int64_t c = row / rowsPerChannel, r = row % rowsPerChannel;
    fn(x + c * g.inVol, y + row * g.out[2], r / g.out[1], r % g.out[1]);
  }
}

} // namespace

void maxPool(const PoolParams &p, const float *x, float *y) {
  Geometry g(p);
  if (p.channels <= 0 || g.outVol <= 0)
    return;
  forEachRow(p, g, x, y,
             [&](const float *xc, float *yrow, int64_t o0, int64_t o1) {
               int64_t s0 = o0 * g.stride[0] - g.padLo[0];
               int64_t s1 = o1 * g.stride[1] - g.padLo[1];
               for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
                 int64_t s2 = o2 * g.stride[2] - g.padLo[2];
                 float best = -std::numeric_limits<float>::infinity();
                 for (int64_t k0 = 0; k0 < g.kernel[0]; ++k0) {
                   int64_t i0 = s0 + k0 * g.dilation[0];
                   if (i0 < 0 || i0 >= g.in[0])
                     continue;
                   for (int64_t k1 = 0; k1 < g.kernel[1]; ++k1) {
                     int64_t i1 = s1 + k1 * g.dilation[1];
                     if (i1 < 0 || i1 >= g.in[1])
                       continue;
                     const float *xr = xc + (i0 * g.in[1] + i1) * g.in[2];
                     for (int64_t k2 = 0; k2 < g.kernel[2]; ++k2) {
                       int64_t i2 = s2 + k2 * g.dilation[2];
                       if (i2 < 0 || i2 >= g.in[2])
                         continue;
                       float v = xr[i2];
                       // PyTorch lets NaN win so it propagates.
                       if (v > best || std::isnan(v))
                         best = v;
                     }
                   }
                 }
                 yrow[o2] = best;
               }
             });
}

void avgPool(const PoolParams &p, const float *x, float *y) {
  Geometry g(p);
  if (p.channels <= 0 || g.outVol <= 0)
    return;
  forEachRow(
      p, g, x, y, [&](const float *xc, float *yrow, int64_t o0, int64_t o1) {
        // Per dim: the window clipped to the padded extent (what
        // count_include_pad counts) and then to the real input (what is
        // summed).
        int64_t lo[3], hi[3], padded[3];
        int64_t o[3] = {o0, o1, 0};
        for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
          o[2] = o2;
          for (int d = 0; d < 3; ++d) {
            int64_t start = o[d] * g.stride[d] - g.padLo[d];
            int64_t end = std::min(start + g.kernel[d], g.in[d] + g.padHi[d]);
            padded[d] = end - start;
            lo[d] = std::max<int64_t>(start, 0);
            hi[d] = std::min(end, g.in[d]);
          }
          float sum = 0.0f;
          for (int64_t i0 = lo[0]; i0 < hi[0]; ++i0)
            for (int64_t i1 = lo[1]; i1 < hi[1]; ++i1) {
              const float *xr = xc + (i0 * g.in[1] + i1) * g.in[2];
              for (int64_t i2 = lo[2]; i2 < hi[2]; ++i2)
                sum += xr[i2];
            }
          int64_t divisor;
          if (p.divisorOverride)
            divisor = p.divisorOverride;
          else if (p.countIncludePad)
            divisor = padded[0] * padded[1] * padded[2];
          else
            divisor = std::max<int64_t>(hi[0] - lo[0], 0) *
                      std::max<int64_t>(hi[1] - lo[1], 0) *
                      std::max<int64_t>(hi[2] - lo[2], 0);
          yrow[o2] = sum / static_cast<float>(divisor);
        }
      });
}

} // namespace shardrt::cpu
