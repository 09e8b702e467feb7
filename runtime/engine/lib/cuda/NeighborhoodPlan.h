//===- NeighborhoodPlan.h - Neighbourhood attention tables ------*- C++ -*-===//
//
// The CUDA backend's neighbourhood attention reads where each query's
// window starts from per-axis tables made once on the host with the CPU
// kernel's own rule (cpu::neighborhoodWindowStart: NATTEN's window, centred
// and shifted inward at the borders, in local key indices), packed into one
// buffer uploaded once per session. One thread computes one (query, head)
// row with `attendRow`: the max of the scaled scores, then the softmax
// weights and their sum with the values accumulated straight into the
// output row (the scores are computed twice rather than kept: a window may
// hold any number of keys). Free of CUDA headers, so the CPU unit tests run
// `attendRow` over the same packed tables against cpu::neighborhoodAttention.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_CUDA_NEIGHBORHOODPLAN_H
#define SHARDRT_ENGINE_CUDA_NEIGHBORHOODPLAN_H

#include "BoxCopyPlan.h" // SHARDRT_HOST_DEVICE
#include "shardrt/cpu/Kernels.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace shardrt::exec::cuda {

/// The packed tables seen from where they live, with the shapes. Spatial
/// dims are right-aligned into three (a rank-1 window uses axis 2); a
/// missing axis has one query, one key and a window of one.
struct NeighborhoodView {
  /// Per axis: the first local key of the window of each local query.
  const long long *first[3];
  long long qExt[3], kvExt[3], kernel[3], step[3];
  long long heads, dim, valueDim; ///< q/k's head dim, v/y's
  float scale;
  long long rows; ///< batch * query positions * heads
};

struct NeighborhoodPlan {
  std::vector<unsigned char> bytes;
  size_t first[3]; ///< byte offsets of the tables
  NeighborhoodView shape{};

  /// The view of the tables once `bytes` lies at `base`.
  NeighborhoodView at(const void *base) const {
    NeighborhoodView v = shape;
    for (int d = 0; d < 3; ++d)
      v.first[d] = reinterpret_cast<const long long *>(
          static_cast<const unsigned char *>(base) + first[d]);
    return v;
  }
};

inline NeighborhoodPlan planNeighborhood(const cpu::NeighborhoodParams &p) {
  NeighborhoodPlan plan;
  NeighborhoodView &v = plan.shape;
  std::vector<long long> all;
  size_t offset[3];
  for (int d = 0; d < 3; ++d) {
    int src = d - (3 - p.rank);
    offset[d] = all.size();
    if (src < 0) {
      v.qExt[d] = v.kvExt[d] = v.kernel[d] = v.step[d] = 1;
      all.push_back(0);
      continue;
    }
    v.qExt[d] = p.qExtent[src];
    v.kvExt[d] = p.kvExtent[src];
    v.kernel[d] = p.kernel[src];
    v.step[d] = p.dilation[src];
    for (int64_t i = 0; i < p.qExtent[src]; ++i)
      all.push_back(cpu::neighborhoodWindowStart(i + p.qOffset[src],
                                                 p.global[src], p.kernel[src],
                                                 p.dilation[src]) -
                    p.kvOffset[src]);
  }
  plan.bytes.resize(all.size() * sizeof(long long));
  std::memcpy(plan.bytes.data(), all.data(), plan.bytes.size());
  for (int d = 0; d < 3; ++d)
    plan.first[d] = offset[d] * sizeof(long long);
  v.heads = p.heads;
  v.dim = p.dim;
  v.valueDim = p.valueDim;
  v.scale = float(p.scale);
  v.rows = p.batch * v.qExt[0] * v.qExt[1] * v.qExt[2] * p.heads;
  return plan;
}

/// Row `row` (row-major over (batch, query positions..., heads)) of the
/// output: softmax(scale * q.k) . v over the row's window, keys walked in
/// the CPU kernel's order. q, k, v and y are heads-last.
SHARDRT_HOST_DEVICE inline void attendRow(const NeighborhoodView &v,
                                          const float *q, const float *k,
                                          const float *val, float *y,
                                          long long row) {
  long long h = row % v.heads, item = row / v.heads;
  long long qVol = v.qExt[0] * v.qExt[1] * v.qExt[2];
  long long b = item / qVol, pos = item % qVol;
  long long q0 = pos / (v.qExt[1] * v.qExt[2]),
            q1 = pos / v.qExt[2] % v.qExt[1], q2 = pos % v.qExt[2];
  long long kvVol = v.kvExt[0] * v.kvExt[1] * v.kvExt[2];
  long long rowStride = v.heads * v.dim, valueStride = v.heads * v.valueDim;
  const float *qv = q + item * rowStride + h * v.dim;
  const float *kb = k + b * kvVol * rowStride + h * v.dim;
  const float *vb = val + b * kvVol * valueStride + h * v.valueDim;
  float *out = y + item * valueStride + h * v.valueDim;
  long long s0 = v.first[0][q0], s1 = v.first[1][q1], s2 = v.first[2][q2];
  auto score = [&](long long key) {
    const float *kv = kb + key * rowStride;
    float dot = 0.0f;
    for (long long c = 0; c < v.dim; ++c)
      dot += qv[c] * kv[c];
    return dot * v.scale;
  };
  // Pass 1: the largest score; pass 2: weights, their sum and the values.
  float best = -HUGE_VALF, sum = 0.0f;
  for (int pass = 0; pass < 2; ++pass)
    for (long long t0 = 0; t0 < v.kernel[0]; ++t0)
      for (long long t1 = 0; t1 < v.kernel[1]; ++t1) {
        long long base =
            ((s0 + t0 * v.step[0]) * v.kvExt[1] + s1 + t1 * v.step[1]) *
            v.kvExt[2];
        for (long long t2 = 0; t2 < v.kernel[2]; ++t2) {
          long long key = base + s2 + t2 * v.step[2];
          float s = score(key);
          if (pass == 0) {
            best = best < s ? s : best; // a NaN score is not the max
            continue;
          }
          float w = expf(s - best);
          const float *vv = vb + key * valueStride;
          bool firstKey = t0 == 0 && t1 == 0 && t2 == 0;
          for (long long c = 0; c < v.valueDim; ++c)
            out[c] = (firstKey ? 0.0f : out[c]) + w * vv[c];
          sum += w;
        }
      }
  float inv = 1.0f / sum;
  for (long long c = 0; c < v.valueDim; ++c)
    out[c] *= inv;
}

} // namespace shardrt::exec::cuda

#endif // SHARDRT_ENGINE_CUDA_NEIGHBORHOODPLAN_H
