//===- Norm.cpp - Layer, group and batch normalisation --------------------===//
//
// Statistics are computed in double with two passes (mean, then the mean of
// squared deviations), which stays accurate for rows whose mean is large
// next to their spread, where a one-pass E[x^2] - E[x]^2 in float cancels.
// The variance is biased, as PyTorch normalises. The output pass is
// y = (x - mean) * scale + shift in float: subtracting the mean first keeps
// the error at the rounding of the mean, where folding it into the shift
// (x * scale - mean * scale) would cancel two large products. Batch norm's
// running statistics are small in practice, so there the mean is folded as
// PyTorch does.
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/Kernels.h"

#include "KernelSupport.h"

#include <omp.h>

#include <cmath>
#include <vector>

namespace shardrt::cpu {

namespace {

using detail::forChunks;
using detail::kParallelMin;

// Independent partial sums, so that the compiler can vectorise without
// reassociating a single accumulator.
constexpr int kLanes = 8;

struct Moments {
  double mean;
  double rstd; // 1 / sqrt(biased variance + eps)
};

/// Two-pass mean and biased variance of n > 0 contiguous elements.
Moments moments(const float *x, int64_t n, double eps) {
  const double mean = detail::laneSum(x, n) / static_cast<double>(n);

  double q[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      double d = x[i + j] - mean;
      q[j] += d * d;
    }
  for (; i < n; ++i) {
    double d = x[i] - mean;
    q[0] += d * d;
  }
  double sq = 0.0;
  for (int j = 0; j < kLanes; ++j)
    sq += q[j];
  const double var = sq / static_cast<double>(n);
  return {mean, 1.0 / std::sqrt(var + eps)};
}

void normalize(const float *x, float *y, int64_t n, float mean, float scale,
               float shift) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = (x[i] - mean) * scale + shift;
}

} // namespace

void layerNorm(const float *x, int64_t outer, int64_t inner,
               const float *weight, const float *bias, double eps, float *y) {
  if (inner <= 0 || outer <= 0)
    return;
  forChunks(outer, outer * inner, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float *row = x + r * inner;
      float *out = y + r * inner;
      Moments m = moments(row, inner, eps);
      const float mean = static_cast<float>(m.mean);
      const float rstd = static_cast<float>(m.rstd);
      if (!weight && !bias) {
        normalize(row, out, inner, mean, rstd, 0.0f);
        continue;
      }
      // Normalise first, then apply the affine map element by element, the
      // order in which PyTorch rounds.
      for (int64_t i = 0; i < inner; ++i) {
        float v = (row[i] - mean) * rstd;
        if (weight)
          v *= weight[i];
        if (bias)
          v += bias[i];
        out[i] = v;
      }
    }
  });
}

void groupNorm(const float *x, int64_t n, int64_t c, int64_t spatial,
               int64_t groups, const float *weight, const float *bias,
               double eps, float *y) {
  if (n <= 0 || c <= 0 || spatial <= 0 || groups <= 0)
    return;
  const int64_t perGroup = c / groups;
  const int64_t blockSize = perGroup * spatial;
  forChunks(n * groups, n * c * spatial, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t offset = task * blockSize;
      Moments m = moments(x + offset, blockSize, eps);
      const int64_t ch0 = task % groups * perGroup;
      for (int64_t k = 0; k < perGroup; ++k) {
        const int64_t ch = ch0 + k;
        const double w = weight ? weight[ch] : 1.0;
        const int64_t off = offset + k * spatial;
        normalize(x + off, y + off, spatial, static_cast<float>(m.mean),
                  static_cast<float>(m.rstd * w), bias ? bias[ch] : 0.0f);
      }
    }
  });
}

void batchNormInference(const float *x, int64_t n, int64_t c, int64_t spatial,
                        const float *mean, const float *var,
                        const float *weight, const float *bias, double eps,
                        float *y) {
  if (n <= 0 || c <= 0 || spatial <= 0)
    return;
  // One scale and shift per channel, computed once rather than per row.
  std::vector<float> scale(c), shift(c);
  for (int64_t ch = 0; ch < c; ++ch) {
    double s = 1.0 / std::sqrt(static_cast<double>(var[ch]) + eps);
    if (weight)
      s *= weight[ch];
    scale[ch] = static_cast<float>(s);
    shift[ch] = static_cast<float>((bias ? bias[ch] : 0.0) - mean[ch] * s);
  }
  const int64_t rows = n * c;
  if (spatial == 1) {
    // (N, C) inputs: rows of one element would make every task trivial.
    forChunks(n, rows, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        for (int64_t ch = 0; ch < c; ++ch)
          y[i * c + ch] = x[i * c + ch] * scale[ch] + shift[ch];
    });
    return;
  }
  forChunks(rows, rows * spatial, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t ch = r % c;
      normalize(x + r * spatial, y + r * spatial, spatial, 0.0f, scale[ch],
                shift[ch]);
    }
  });
}

} // namespace shardrt::cpu
