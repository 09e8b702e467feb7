//===- RingPlan.h - Ring attention blocks on the device ---------*- C++ -*-===//
//
// The CUDA backend's RingAttention step folds each block of keys into the
// running state (row max m, sum l, output o) as the CPU's attendOnline
// does: per batch entry and run of query rows whose scores fit a fixed
// workspace, a GEMM of the scaled scores, the ring row kernel (mask and
// causal rule, the block's row max, the merge that rescales the state, the
// exponentials in place of the scores and their sum), and a GEMM that adds
// the weights times the values to o. At the end o / l, or NaN where every
// key was masked. Masked scores are -inf, never a finite stand-in, so that
// a real score of the lowest float keeps its weight.
//
// `ringScore`, `ringMerge` and `ringOutput` are the one place of each rule;
// they are free of CUDA headers, so RingPlanTest runs them over the same
// plan on the host against cpu::sdpa.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_CUDA_RINGPLAN_H
#define SHARDRT_ENGINE_CUDA_RINGPLAN_H

#include "../RingStep.h"
#include "BoxCopyPlan.h" // SHARDRT_HOST_DEVICE

#include <algorithm>
#include <cmath>
#include <vector>

namespace shardrt::exec::cuda {

/// The lowest f32: while no key of a row is visible its max is -inf, and
/// the weights are shifted by this instead (every weight exp(-inf) = 0,
/// where -inf - -inf would be NaN), as the CPU step does.
constexpr float kLowestFloat = -3.40282347e+38f;

/// How the row kernel reads the mask and applies the causal rule.
struct RingView {
  /// Per output batch entry: the mask element of (query 0, key 0).
  const long long *maskOffset = nullptr;
  long long maskRowStride = 0, maskColStride = 0;
  bool hasMask = false, causal = false;
  long long queryLo = 0; ///< global position of the rank's query 0
  long long l = 0, ev = 0;
};

/// Query rows [q0, q0 + rows) of batch entry b against a block of `cols`
/// keys whose first is at global position keyLo; `first` when no block was
/// folded into the state before.
struct RingRows {
  long long b, q0, rows, cols, keyLo;
  bool first;
};

struct RingPlan {
  std::vector<long long> maskOffsets; ///< to upload; empty without a mask
  RingView shape;
  long long rowsPerRun = 1;      ///< query rows per GEMM run
  long long workspaceFloats = 0; ///< scores of one run of the largest block
  RingView at(const void *base) const {
    RingView v = shape;
    v.maskOffset = static_cast<const long long *>(base);
    return v;
  }
};

/// Runs of as many query rows as keep a run's scores against the largest
/// block within `budgetFloats` (at least one row).
inline RingPlan planRing(const RingStep &r, long long budgetFloats) {
  RingPlan plan;
  RingView &v = plan.shape;
  v.causal = r.causal;
  v.queryLo = r.queryLo;
  v.l = r.l;
  v.ev = r.ev;
  if (r.mask != kNoSlot) {
    v.hasMask = true;
    v.maskRowStride = r.maskRows == 1 ? 0 : r.maskCols;
    v.maskColStride = r.maskCols == 1 ? 0 : 1;
    for (int64_t at : r.maskAt)
      plan.maskOffsets.push_back(at * r.maskRows * r.maskCols);
  }
  long long cols = std::max<long long>(r.maxRows, 1);
  plan.rowsPerRun = std::clamp<long long>(budgetFloats / cols, 1,
                                          std::max<long long>(r.l, 1));
  plan.workspaceFloats = plan.rowsPerRun * cols;
  return plan;
}

/// Score j of query row i of batch entry b against the block whose first
/// key is at `keyLo`, already scaled: plus the mask, and -inf where the
/// key is after the query (causal).
SHARDRT_HOST_DEVICE inline float ringScore(const RingView &v, const float *mask,
                                           long long b, long long i,
                                           long long keyLo, long long j,
                                           float score) {
  if (v.hasMask)
    score += mask[v.maskOffset[b] + i * v.maskRowStride +
                  (keyLo + j) * v.maskColStride];
  if (v.causal && keyLo + j > v.queryLo + i)
    score = -HUGE_VALF;
  return score;
}

/// The state's new row max after a block whose row max is `blockMax`, what
/// the block's weights are shifted by (exp(score - shift)), and the factor
/// that rescales the sum and output kept so far.
struct RingMerge {
  float max, shift, alpha;
};
SHARDRT_HOST_DEVICE inline RingMerge ringMerge(bool first, float m,
                                               float blockMax) {
  float next = first || m < blockMax ? blockMax : m;
  float shift = next < kLowestFloat ? kLowestFloat : next;
  return {next, shift, first ? 0.0f : expf(m - shift)};
}

/// An output element: o / l, or NaN where every key was masked (the row
/// max stayed -inf), as the CPU step and PyTorch < 2.5 give.
SHARDRT_HOST_DEVICE inline float ringOutput(float m, float o, float lsum) {
  return m == -HUGE_VALF ? nanf("") : o / lsum;
}

} // namespace shardrt::exec::cuda

#endif // SHARDRT_ENGINE_CUDA_RINGPLAN_H
