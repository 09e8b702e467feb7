//===- AttentionPlan.h - Scaled dot-product attention blocks ----*- C++ -*-===//
//
// The CUDA backend's scaled dot-product attention is two cuBLAS batched
// GEMMs around a masked softmax kernel, over blocks of (batch entries,
// query rows) whose scores fit a fixed workspace, so a long sequence never
// needs its whole (l, s) score matrix at once. A causal block computes only
// the keys its last row may see, as the CPU kernel does.
//
// The mask is read where it lies, whatever it broadcasts over: a table of
// per-batch-entry offsets (uploaded once) and strides of 0 for broadcast
// rows or columns, so no broadcast mask is materialised. `maskedScore` is
// the one place that applies the mask and the causal limit; it is free of
// CUDA headers, so the CPU unit tests run it over the same plan against
// cpu::sdpa.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_CUDA_ATTENTIONPLAN_H
#define SHARDRT_ENGINE_CUDA_ATTENTIONPLAN_H

#include "../Prepare.h"
#include "BoxCopyPlan.h" // SHARDRT_HOST_DEVICE

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace shardrt::exec::cuda {

/// How scores are masked, with the offsets table seen from where it lives.
struct AttentionView {
  /// Per flattened batch entry: the mask element of its (0, 0) score.
  const long long *maskOffset = nullptr;
  long long maskRowStride = 0, maskColStride = 0;
  enum : int { None, Bool, Float } mask = None;
  bool causal = false;
};

/// Batch entries [b0, b0 + batches) by query rows [q0, q0 + rows), against
/// keys [0, cols): scores (batches, rows, cols) in the workspace.
struct AttentionBlock {
  long long b0, batches, q0, rows, cols;
  long long scores() const { return batches * rows * cols; }
};

struct AttentionPlan {
  std::vector<long long> maskOffsets; ///< to upload; empty without a mask
  AttentionView shape;
  std::vector<AttentionBlock> blocks;
  long long workspaceFloats = 0; ///< the largest block's scores
  /// The view once `maskOffsets` lies at `base`.
  AttentionView at(const void *base) const {
    AttentionView v = shape;
    v.maskOffset = static_cast<const long long *>(base);
    return v;
  }
};

/// Blocks of at most `budgetFloats` scores each (at least one row of one
/// batch entry): whole sequences of as many batch entries as fit, else
/// runs of query rows of one entry.
inline AttentionPlan planAttention(const AttentionStep &a,
                                   long long budgetFloats) {
  AttentionPlan plan;
  AttentionView &v = plan.shape;
  v.causal = a.causal;
  if (a.mask != AttentionStep::Mask::None) {
    v.mask = a.mask == AttentionStep::Mask::Bool ? AttentionView::Bool
                                                 : AttentionView::Float;
    // Row-major strides of the (padded) mask, 0 where it broadcasts.
    size_t rank = a.maskShape.size();
    std::vector<long long> stride(rank, 0);
    long long next = 1;
    for (size_t d = rank; d-- > 0;) {
      stride[d] = a.maskShape[d] == 1 ? 0 : next;
      next *= a.maskShape[d];
    }
    v.maskRowStride = stride[rank - 2];
    v.maskColStride = stride[rank - 1];
    plan.maskOffsets.assign(size_t(std::max<int64_t>(a.batch, 0)), 0);
    for (long long b = 0; b < a.batch; ++b) {
      long long rest = b, offset = 0;
      for (size_t d = rank - 2; d-- > 0;) {
        offset += rest % a.fullMask[d] * stride[d];
        rest /= a.fullMask[d];
      }
      plan.maskOffsets[size_t(b)] = offset;
    }
  }
  if (a.batch <= 0 || a.l <= 0 || a.s <= 0 || a.ev <= 0)
    return plan;
  long long budget = std::max<long long>(budgetFloats, 1);
  // Keys past the last query are causally hidden from every row.
  long long wholeCols = a.causal ? std::min<long long>(a.s, a.l) : a.s;
  long long perEntry = a.l * wholeCols;
  if (perEntry <= budget) {
    long long batches = std::min<long long>(a.batch, budget / perEntry);
    for (long long b0 = 0; b0 < a.batch; b0 += batches)
      plan.blocks.push_back(
          {b0, std::min<long long>(batches, a.batch - b0), 0, a.l, wholeCols});
  } else {
    long long rows = std::max<long long>(1, budget / a.s);
    for (long long b = 0; b < a.batch; ++b)
      for (long long q0 = 0; q0 < a.l; q0 += rows) {
        long long n = std::min<long long>(rows, a.l - q0);
        // Keys past the block's last row are causally hidden from all of it.
        long long cols = a.causal ? std::min<long long>(a.s, q0 + n) : a.s;
        plan.blocks.push_back({b, 1, q0, n, cols});
      }
  }
  for (const AttentionBlock &blk : plan.blocks)
    plan.workspaceFloats = std::max(plan.workspaceFloats, blk.scores());
  return plan;
}

/// Score (b, i, j), already scaled, after the mask and the causal limit:
/// -inf where a bool mask is false or j > i under `causal`, plus the mask
/// where it is f32 (the CPU kernel's maskScores).
SHARDRT_HOST_DEVICE inline float maskedScore(const AttentionView &v,
                                             const void *mask, long long b,
                                             long long i, long long j,
                                             float score) {
  if (v.mask != AttentionView::None) {
    long long at = v.maskOffset[b] + i * v.maskRowStride + j * v.maskColStride;
    if (v.mask == AttentionView::Bool) {
      if (!static_cast<const unsigned char *>(mask)[at])
        score = -HUGE_VALF;
    } else {
      score += static_cast<const float *>(mask)[at];
    }
  }
  if (v.causal && j > i)
    score = -HUGE_VALF;
  return score;
}

} // namespace shardrt::exec::cuda

#endif // SHARDRT_ENGINE_CUDA_ATTENTIONPLAN_H
