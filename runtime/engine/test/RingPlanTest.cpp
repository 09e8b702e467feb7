//===- RingPlanTest.cpp - CUDA ring attention runs, on the CPU ------------===//
//
// The CUDA backend's RingAttention step folds each block, per batch entry
// and run of query rows of planRing, through a GEMM, the ring row kernel
// (`ringScore`, the row max, `ringMerge`, `ringWeight`, `ringRescaled`) and
// a GEMM into the state, and ends with `ringOutput`. Here the same runs go
// on the host: the row and finish kernels are CudaKernels.cu's own, built
// for the host (hostcuda/: 256 threads a block as fibers, so its block
// reductions and warp shuffles run as written), and the GEMMs are a plain
// column-major sgemm fed `ringGemms`' arguments (which checks the leading
// dimensions and that every element read or written lies in its buffer), over
// key and value blocks laid out as members send them, in ring order (one block
// empty), with the state starting as NaN as device scratch may. They must match
// cpu::sdpa over the whole sequence: causal with the rank's queries
// mid-sequence, f32 masks broadcast over the batch and over the queries, rows
// whose every key is masked (NaN), whose first block is all masked, or whose
// visible scores are the lowest float, keys per batch entry or broadcast,
// values whole, and budgets that split the query rows.
//
//===----------------------------------------------------------------------===//

#include "../lib/cuda/RingPlan.h"
#include "../lib/cuda/CudaLaunch.h"

#include "TestModel.h"
#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace shardrt::exec::cuda {
namespace {

constexpr int64_t kBatch = 3, kE = 4, kEv = 3, kKeys = 10, kAllQueries = 9;
const std::vector<int64_t> kStarts = {0, 3, 3, 8, 10}; // blocks 3, 0, 5, 2
constexpr float kInf = std::numeric_limits<float>::infinity();

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
  bool keysPerEntry = false, valuesWhole = false;
};

using enginetest::rowsOf;

/// C = alpha op(A) op(B) + beta C, column-major, as cuBLAS computes it.
void sgemm(const RingGemm &g, float alpha, const std::vector<float> &a,
           const std::vector<float> &b, std::vector<float> &c) {
  int aRows = g.transA ? g.k : g.m;
  ASSERT_GE(g.lda, std::max(1, aRows));
  ASSERT_GE(g.ldb, std::max(1, g.k));
  ASSERT_GE(g.ldc, std::max(1, g.m));
  for (int j = 0; j < g.n; ++j)
    for (int i = 0; i < g.m; ++i) {
      double sum = 0;
      for (int p = 0; p < g.k; ++p) {
        long long at = g.a + (g.transA ? i * g.lda + p : p * g.lda + i),
                  bt = g.b + j * g.ldb + p;
        EXPECT_LT(size_t(at), a.size());
        EXPECT_LT(size_t(bt), b.size());
        sum += double(a.at(size_t(at))) * b.at(size_t(bt));
      }
      float &out = c.at(size_t(g.c + j * g.ldc + i));
      out = alpha * float(sum) + (g.beta == 0.0f ? 0.0f : g.beta * out);
    }
}

/// The decoded ring of rank 1 of four: keys [3, 3) of its own, queries
/// [queryLo, queryLo + l).
RingStep ringOf(const Case &c) {
  RingStep r;
  r.starts = kStarts;
  r.causal = c.causal;
  r.scale = 0.8;
  r.queryLo = c.queryLo;
  r.l = c.l;
  r.e = kE;
  r.ev = kEv;
  r.valuesWhole = c.valuesWhole;
  r.valueRows = c.valuesWhole ? kKeys : 0;
  r.qAt = {0, 1, 2};
  r.kAt = c.keysPerEntry ? std::vector<int64_t>{0, 1, 2}
                         : std::vector<int64_t>{0, 0, 0};
  r.vAt = {0, 1, 2};
  if (c.maskRows) {
    r.mask = 3;
    r.maskRows = c.maskRows == 1 ? 1 : c.l;
    r.maskCols = kKeys;
    r.maskAt = {0, 0, 0};
  }
  for (size_t m = 0; m + 1 < kStarts.size(); ++m)
    r.maxRows = std::max(r.maxRows, kStarts[m + 1] - kStarts[m]);
  return r;
}

/// The ring's step as the CUDA backend runs it, on the host: this rank sees
/// the blocks in ring order 1, 0, 3, 2. `q` holds the rank's queries,
/// `mask` the rank's mask slot.
std::vector<float> runRingOnHost(const Case &c, const std::vector<float> &q,
                                 const std::vector<float> &k,
                                 const std::vector<float> &v,
                                 const std::vector<float> &mask) {
  RingStep r = ringOf(c);
  RingPlan plan = planRing(r, c.budget);
  EXPECT_LE(plan.workspaceFloats, std::max<long long>(c.budget, r.maxRows));
  RingView view = plan.at(plan.maskOffsets.data());
  int64_t keyBatch = c.keysPerEntry ? kBatch : 1;
  // The state (m and the sum per row, o per row and feature) as scratch
  // may hold it.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> stats(size_t(2 * kBatch * c.l), nan),
      out(size_t(kBatch * c.l * kEv), nan);
  float *m = stats.data(), *lsum = m + kBatch * c.l;
  std::vector<float> scores(size_t(plan.workspaceFloats));
  bool attended = false;
  for (int64_t block : {1, 0, 3, 2}) {
    if (r.rows(block) == 0 || r.hidden(block))
      continue;
    int64_t lo = kStarts[size_t(block)], hi = kStarts[size_t(block) + 1];
    // The blocks as their members send them.
    std::vector<float> keys = rowsOf(k, keyBatch, kKeys, kE, lo, hi),
                       values = c.valuesWhole
                                    ? v
                                    : rowsOf(v, kBatch, kKeys, kEv, lo, hi);
    for (int64_t b = 0; b < kBatch; ++b)
      for (int64_t q0 = 0; q0 < c.l; q0 += plan.rowsPerRun) {
        RingRows run{
            b,       q0, std::min<long long>(plan.rowsPerRun, c.l - q0),
            hi - lo, lo, !attended};
        RingGemms g = ringGemms(r, run);
        sgemm(g.scores, float(r.scale), keys, q, scores);
        EXPECT_EQ(launchRingRows(scores.data(), mask.data(), view, run, m, lsum,
                                 out.data(), nullptr),
                  cudaSuccess);
        EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
        sgemm(g.output, 1.0f, values, scores, out);
      }
    attended = true;
  }
  std::vector<float> y(size_t(kBatch * c.l * kEv), 0.0f);
  if (attended) {
    EXPECT_EQ(launchRingFinish(y.data(), m, lsum, out.data(), kBatch * c.l, kEv,
                               nullptr),
              cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  }
  return y;
}

/// A (kAllQueries, kKeys) mask: -inf and finite entries; with `rows` > 1
/// also a query that sees nothing (4), one whose first block is all masked
/// (5), and one that sees only keys at the lowest float (6).
std::vector<float> maskOf(int rows) {
  std::vector<float> mask(kAllQueries * kKeys);
  for (size_t i = 0; i < mask.size(); ++i)
    mask[i] = i % 5 == 2 ? -kInf : 0.3f * float(i % 3);
  if (rows > 1) {
    auto row = [&](int64_t i) { return mask.begin() + i * kKeys; };
    std::fill(row(4), row(5), -kInf);
    std::fill(row(5), row(5) + 3, -kInf); // block 1 is first
    for (int64_t j = 0; j < kKeys; ++j)
      row(6)[j] = j % 2 ? -kInf : std::numeric_limits<float>::lowest();
  }
  return mask;
}

void check(const Case &c) {
  int64_t keyBatch = c.keysPerEntry ? kBatch : 1;
  std::vector<float> q = smooth(kBatch * kAllQueries * kE, 0.3f),
                     k = smooth(keyBatch * kKeys * kE, 1.7f),
                     v = smooth(kBatch * kKeys * kEv, 2.2f),
                     mask = maskOf(c.maskRows), fullMask = mask;
  if (c.maskRows == 1)
    for (int64_t i = 0; i < kAllQueries; ++i)
      std::copy(mask.begin(), mask.begin() + kKeys,
                fullMask.begin() + i * kKeys);
  std::vector<float> kk = k;
  for (int64_t b = keyBatch; b < kBatch; ++b)
    kk.insert(kk.end(), k.begin(), k.end());
  std::vector<float> expected(size_t(kBatch * kAllQueries * kEv));
  cpu::sdpa(kBatch, kAllQueries, kKeys, kE, kEv, q.data(), kk.data(), v.data(),
            c.maskRows ? fullMask.data() : nullptr, false, 1, c.causal, 0.8,
            expected.data());

  // The rank's slots: its queries, and its rows of the mask (one row when
  // the mask has one for every query).
  std::vector<float> myQ = rowsOf(q, kBatch, kAllQueries, kE, c.queryLo,
                                  c.queryLo + c.l),
                     myMask = c.maskRows > 1
                                  ? rowsOf(mask, 1, kAllQueries, kKeys,
                                           c.queryLo, c.queryLo + c.l)
                                  : mask;
  std::vector<float> got = runRingOnHost(c, myQ, k, v, myMask);
  std::vector<float> want =
      rowsOf(expected, kBatch, kAllQueries, kEv, c.queryLo, c.queryLo + c.l);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got[i])) << i;
    else
      EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  }
}

TEST(RingPlan, FoldsEveryBlockLikeSdpa) {
  check({});
  check({false, 0, 0, kAllQueries, 1 << 20, true}); // keys per entry
  check({false, 0, 2, 5, 1 << 20, false, true});    // values whole
  check({true, 2, 1, 7, 1 << 20, true, true});      // all of it
}

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
