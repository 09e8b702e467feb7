//===- RingPlanTest.cpp - CUDA ring attention rows, on the CPU ------------===//
//
// The CUDA backend's RingAttention step folds each block, per batch entry
// and run of query rows of planRing, through a GEMM, the ring row kernel
// (`ringScore`, the row max, `ringMerge`, exponentials and their sum) and a
// GEMM into the state, and ends with `ringOutput`. Here the same runs go on
// the host with plain loops in place of cuBLAS, over blocks in ring order
// (one empty), and must match cpu::sdpa over the whole sequence: causal
// with the rank's queries mid-sequence, f32 masks broadcast over the batch
// and over the queries, rows whose every key is masked (NaN) or whose
// visible scores are the lowest float (finite), keys
// broadcast over the batch, and budgets that split the query rows.
//
//===----------------------------------------------------------------------===//

#include "../lib/cuda/RingPlan.h"

#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace shardrt::exec::cuda {
namespace {

constexpr int64_t kBatch = 3, kE = 4, kEv = 3, kKeys = 10, kAllQueries = 9;
const std::vector<int64_t> kStarts = {0, 3, 3, 8, 10}; // blocks 3, 0, 5, 2

std::vector<float> smooth(size_t n, float salt) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = std::sin(0.61f * float(i) + salt);
  return v;
}

struct Case {
  bool causal = false;
  int maskRows = 0; ///< 0: no mask; 1: one row for every query; else all
  int64_t queryLo = 0, l = kAllQueries;
  long long budget = 1 << 20;
};

/// The ring's step as the CUDA backend runs it, on the host: this rank
/// (member 1 of 4) holds queries [queryLo, queryLo + l) and sees the blocks
/// in ring order 1, 0, 3, 2.
std::vector<float> runRingOnHost(const Case &c, const std::vector<float> &q,
                                 const std::vector<float> &k,
                                 const std::vector<float> &v,
                                 const std::vector<float> &mask) {
  RingStep r;
  r.starts = kStarts;
  r.causal = c.causal;
  r.scale = 0.8;
  r.queryLo = c.queryLo;
  r.l = c.l;
  r.e = kE;
  r.ev = kEv;
  r.qAt = {0, 1, 2};
  r.kAt = {0, 0, 0}; // keys broadcast over the batch
  r.vAt = {0, 1, 2};
  if (c.maskRows) {
    r.mask = 3;
    r.maskRows = c.maskRows == 1 ? 1 : c.l;
    r.maskCols = kKeys;
    r.maskAt = {0, 0, 0};
  }
  for (size_t m = 0; m + 1 < kStarts.size(); ++m)
    r.maxRows = std::max(r.maxRows, kStarts[m + 1] - kStarts[m]);
  RingPlan plan = planRing(r, c.budget);
  EXPECT_LE(plan.workspaceFloats, std::max<long long>(c.budget, r.maxRows));
  RingView view = plan.at(plan.maskOffsets.data());
  // The mask slot holds this rank's query rows (all of them when it has
  // one row for every query).
  const float *maskHere =
      c.maskRows > 1 ? mask.data() + c.queryLo * kKeys : mask.data();

  std::vector<float> state(size_t(kBatch * c.l * (2 + kEv)), 777.0f);
  float *m = state.data(), *lsum = m + kBatch * c.l, *o = lsum + kBatch * c.l;
  std::vector<float> scores(size_t(plan.workspaceFloats));
  bool attended = false;
  for (int64_t block : {1, 0, 3, 2}) {
    int64_t keyLo = kStarts[size_t(block)],
            cols = kStarts[size_t(block) + 1] - keyLo;
    if (cols == 0 || r.hidden(block))
      continue;
    for (int64_t b = 0; b < kBatch; ++b)
      for (int64_t q0 = 0; q0 < c.l; q0 += plan.rowsPerRun) {
        RingRows run{
            b,    q0,    std::min<long long>(plan.rowsPerRun, c.l - q0),
            cols, keyLo, !attended};
        for (int64_t i = 0; i < run.rows; ++i) {
          // GEMM: scale * q k^T (keys broadcast over the batch).
          float *row = scores.data() + i * cols;
          for (int64_t j = 0; j < cols; ++j) {
            double dot = 0;
            for (int64_t d = 0; d < kE; ++d)
              dot +=
                  q[size_t(((b * kAllQueries) + c.queryLo + q0 + i) * kE + d)] *
                  k[size_t((keyLo + j) * kE + d)];
            row[j] = float(r.scale * dot);
          }
          // The row kernel.
          float best = -HUGE_VALF;
          for (int64_t j = 0; j < cols; ++j) {
            row[j] = ringScore(view, maskHere, b, q0 + i, keyLo, j, row[j]);
            best = best < row[j] ? row[j] : best;
          }
          int64_t at = b * c.l + q0 + i;
          RingMerge g = ringMerge(run.first, m[at], best);
          float sum = 0;
          for (int64_t j = 0; j < cols; ++j) {
            row[j] = std::exp(row[j] - g.shift);
            sum += row[j];
          }
          for (int64_t e = 0; e < kEv; ++e)
            o[at * kEv + e] = run.first ? 0.0f : o[at * kEv + e] * g.alpha;
          lsum[at] = run.first ? sum : lsum[at] * g.alpha + sum;
          m[at] = g.max;
          // GEMM: o += weights v.
          for (int64_t e = 0; e < kEv; ++e)
            for (int64_t j = 0; j < cols; ++j)
              o[at * kEv + e] +=
                  row[j] * v[size_t(((b * kKeys) + keyLo + j) * kEv + e)];
        }
      }
    attended = true;
  }
  std::vector<float> y(size_t(kBatch * c.l * kEv), 0.0f);
  if (attended)
    for (int64_t at = 0; at < kBatch * c.l; ++at)
      for (int64_t e = 0; e < kEv; ++e)
        y[size_t(at * kEv + e)] = ringOutput(m[at], o[at * kEv + e], lsum[at]);
  return y;
}

void check(const Case &c) {
  std::vector<float> q = smooth(kBatch * kAllQueries * kE, 0.3f),
                     k = smooth(kKeys * kE, 1.7f),
                     v = smooth(kBatch * kKeys * kEv, 2.2f),
                     mask(kAllQueries * kKeys, 0.0f);
  const float inf = std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < mask.size(); ++i)
    mask[i] = i % 5 == 2 ? -inf : 0.3f * float(i % 3);
  if (c.maskRows > 1) { // query 4 sees no key at all
    std::fill(mask.begin() + 4 * kKeys, mask.begin() + 5 * kKeys, -inf);
    // Query 6 sees only keys at the lowest float: a real score, whose
    // weights must not be mistaken for masked ones (nor NaN).
    for (int64_t j = 0; j < kKeys; ++j)
      mask[size_t(6 * kKeys + j)] =
          j % 2 ? -inf : std::numeric_limits<float>::lowest();
  }
  std::vector<float> fullMask = mask;
  if (c.maskRows == 1)
    for (int64_t i = 0; i < kAllQueries; ++i)
      std::copy(mask.begin(), mask.begin() + kKeys,
                fullMask.begin() + i * kKeys);
  std::vector<float> kk;
  for (int64_t b = 0; b < kBatch; ++b)
    kk.insert(kk.end(), k.begin(), k.end());
  std::vector<float> expected(size_t(kBatch * kAllQueries * kEv));
  cpu::sdpa(kBatch, kAllQueries, kKeys, kE, kEv, q.data(), kk.data(), v.data(),
            c.maskRows ? fullMask.data() : nullptr, false, 1, c.causal, 0.8,
            expected.data());

  std::vector<float> got = runRingOnHost(c, q, k, v, mask);
  for (int64_t b = 0; b < kBatch; ++b)
    for (int64_t i = 0; i < c.l; ++i)
      for (int64_t e = 0; e < kEv; ++e) {
        float
            want =
                expected[size_t(((b * kAllQueries) + c.queryLo + i) * kEv + e)],
            have = got[size_t((b * c.l + i) * kEv + e)];
        if (std::isnan(want))
          EXPECT_TRUE(std::isnan(have)) << b << " " << i << " " << e;
        else
          EXPECT_NEAR(have, want, 1e-5) << b << " " << i << " " << e;
      }
}

TEST(RingPlan, FoldsEveryBlockLikeSdpa) { check({}); }

TEST(RingPlan, CausalQueriesMidSequence) {
  check({true, 0, 0, kAllQueries});
  check({true, 0, 4, 3}); // queries 4-6: block 3 (keys 8, 9) is hidden
}

TEST(RingPlan, MasksOfEveryQueryAndOfOneRow) {
  check({false, 2, 0, kAllQueries}); // query 4 is NaN
  check({false, 2, 3, 4});
  check({false, 1, 2, 5});
}

TEST(RingPlan, SmallBudgetsSplitTheQueryRows) {
  check({true, 2, 1, 7, 10});           // two rows of the 5-key block per run
  check({false, 0, 0, kAllQueries, 1}); // one row per run
}

} // namespace
} // namespace shardrt::exec::cuda
