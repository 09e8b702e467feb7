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
// `ringScore`, `ringMerge`, `ringWeight`, `ringRescaled`, `ringCombine`
// and `ringOutput` are the one place of each rule, and `ringGemms` of each
// cuBLAS argument; they are free of CUDA headers, so RingPlanTest runs them
// over the same plan on the host (a plain column-major sgemm in place of
// cuBLAS) against cpu::sdpa.
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

/// A block's weight of a score.
SHARDRT_HOST_DEVICE inline float ringWeight(float score, const RingMerge &g) {
  return expf(score - g.shift);
}

/// A running sum or output element after a block: what was kept, rescaled,
/// plus the block's part (`first`: started afresh, never reading what the
/// buffer held, which may be anything, NaN included).
SHARDRT_HOST_DEVICE inline float ringRescaled(bool first, float kept,
                                              const RingMerge &g, float added) {
  return first ? added : kept * g.alpha + added;
}

/// Merging a partial state (row max `added`, its sum and output) into a
/// row's state (row max `kept`) in the balanced schedule: the new row max,
/// and the factors that rescale what each side holds to it. Both sides are
/// shifted by their row max, or by the lowest float while it is -inf, so a
/// side that saw no key contributes exp(-inf) = 0.
struct RingCombine {
  float max, kept, added;
};
SHARDRT_HOST_DEVICE inline RingCombine ringCombine(float kept, float added) {
  float next = kept < added ? added : kept;
  float shift = next < kLowestFloat ? kLowestFloat : next;
  return {next, expf(kept - shift), expf(added - shift)};
}

/// An output element: o / l, or NaN where every key was masked (the row
/// max stayed -inf), as the CPU step and PyTorch < 2.5 give.
SHARDRT_HOST_DEVICE inline float ringOutput(float m, float o, float lsum) {
  return m == -HUGE_VALF ? nanf("") : o / lsum;
}

/// One column-major cuBLAS sgemm, C (m x n) = alpha op(A) op(B) + beta C
/// (op(A) m x k, transposed when `transA`; op(B) k x n), with the element
/// offsets of A, B and C into their buffers.
struct RingGemm {
  bool transA = false;
  int m = 0, n = 0, k = 0, lda = 1, ldb = 1, ldc = 1;
  long long a = 0, b = 0, c = 0;
  float beta = 0.0f;
};

/// The two GEMMs of `run`, row-major products written column-major:
///  - scores (run.rows, cols) = q (run.rows, e) k^T, as (cols, run.rows) =
///    k (e x cols, transposed) times q (e x run.rows); A is the key block,
///    B the queries, C the scores;
///  - o (run.rows, ev) += weights (run.rows, cols) v (cols, ev), as
///    v (ev x cols) times the weights (cols x run.rows); A is the values
///    (the block's, or its rows of the whole values), B the weights, C the
///    output state.
/// Leading dimensions are at least 1, as cuBLAS requires even of empty
/// extents.
struct RingGemms {
  RingGemm scores, output;
};
inline RingGemms ringGemms(const RingStep &r, const RingRows &run) {
  auto ld = [](int64_t n) { return int(std::max<int64_t>(n, 1)); };
  size_t b = size_t(run.b);
  RingGemms g;
  g.scores.transA = true;
  g.scores.m = int(run.cols);
  g.scores.n = int(run.rows);
  g.scores.k = int(r.e);
  g.scores.lda = g.scores.ldb = ld(r.e);
  g.scores.ldc = ld(run.cols);
  g.scores.a = r.kAt[b] * run.cols * r.e;
  g.scores.b = (r.qAt[b] * r.l + run.q0) * r.e;
  g.output.m = int(r.ev);
  g.output.n = int(run.rows);
  g.output.k = int(run.cols);
  g.output.lda = g.output.ldc = ld(r.ev);
  g.output.ldb = ld(run.cols);
  g.output.a = r.valuesWhole ? (r.vAt[b] * r.valueRows + run.keyLo) * r.ev
                             : r.vAt[b] * run.cols * r.ev;
  g.output.c = (run.b * r.l + run.q0) * r.ev;
  g.output.beta = 1.0f;
  return g;
}

} // namespace shardrt::exec::cuda

#endif // SHARDRT_ENGINE_CUDA_RINGPLAN_H
