//===- AttentionTest.cpp - sdpa and neighborhood attention ----------------===//
//
// References in double: sdpa as softmax(q k^T * scale + mask) v per query;
// neighborhood attention with windows from NATTEN's original piecewise
// window-start rule (not the header's closed form), so the two formulations
// check each other.
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace shardrt::cpu;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<float> randomVector(std::mt19937 &rng, int64_t n) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// Softmax-weighted sum of values: out = sum_j softmax(scores)_j * value(j).
/// All scores -inf gives NaN (the runtime's contract).
template <typename Value>
std::vector<double> attend(const std::vector<double> &scores, int64_t ev,
                           Value value) {
  double best = -kInf;
  for (double s : scores)
    best = std::max(best, s);
  std::vector<double> out(ev, 0.0);
  if (best == -kInf)
    return std::vector<double>(ev, std::nan(""));
  double sum = 0.0;
  for (double s : scores)
    sum += std::exp(s - best);
  for (size_t j = 0; j < scores.size(); ++j)
    for (int64_t c = 0; c < ev; ++c)
      out[c] += std::exp(scores[j] - best) / sum * value(j, c);
  return out;
}

struct SdpaCase {
  int64_t batch, l, s, e, ev, maskBatch = 1;
  bool causal = false, maskIsBool = false, hasMask = false;
  double scale;
};

void checkSdpa(std::mt19937 &rng, const SdpaCase &c) {
  auto q = randomVector(rng, c.batch * c.l * c.e);
  auto k = randomVector(rng, c.batch * c.s * c.e);
  auto v = randomVector(rng, c.batch * c.s * c.ev);
  int64_t maskSize = c.maskBatch * c.l * c.s;
  std::vector<uint8_t> boolMask(maskSize);
  std::vector<float> floatMask = randomVector(rng, maskSize);
  std::bernoulli_distribution keep(0.75);
  for (int64_t i = 0; i < maskSize; ++i) {
    boolMask[i] = keep(rng);
    if (!keep(rng))
      floatMask[i] = -std::numeric_limits<float>::infinity();
  }
  const void *mask = !c.hasMask     ? nullptr
                     : c.maskIsBool ? static_cast<const void *>(boolMask.data())
                                    : floatMask.data();
  std::vector<float> y(c.batch * c.l * c.ev, 1e30f);
  sdpa(c.batch, c.l, c.s, c.e, c.ev, q.data(), k.data(), v.data(), mask,
       c.maskIsBool, c.maskBatch, c.causal, c.scale, y.data());
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t i = 0; i < c.l; ++i) {
      std::vector<double> scores(c.s);
      int64_t mb = c.maskBatch == 1 ? 0 : b;
      for (int64_t j = 0; j < c.s; ++j) {
        double dot = 0.0;
        for (int64_t t = 0; t < c.e; ++t)
          dot +=
              double(q[(b * c.l + i) * c.e + t]) * k[(b * c.s + j) * c.e + t];
        scores[j] = dot * c.scale;
        int64_t m = (mb * c.l + i) * c.s + j;
        if (c.hasMask && c.maskIsBool && !boolMask[m])
          scores[j] = -kInf;
        if (c.hasMask && !c.maskIsBool)
          scores[j] += floatMask[m];
        if (c.causal && j > i)
          scores[j] = -kInf;
      }
      auto ref = attend(scores, c.ev, [&](size_t j, int64_t t) {
        return double(v[(b * c.s + j) * c.ev + t]);
      });
      for (int64_t t = 0; t < c.ev; ++t) {
        float got = y[(b * c.l + i) * c.ev + t];
        if (std::isnan(ref[t]))
          ASSERT_TRUE(std::isnan(got)) << "fully masked row " << i;
        else
          ASSERT_NEAR(ref[t], got, 2e-5) << "b " << b << " i " << i;
      }
    }
}

} // namespace

TEST(CpuSdpa, KnownValues) {
  // Scores 0 and ln 3 give weights 1/4 and 3/4: 4 / 4 + 8 * 3 / 4 = 7.
  std::vector<float> q = {1}, k = {0, std::log(3.0f)}, v = {4, 8}, y(1);
  sdpa(1, 1, 2, 1, 1, q.data(), k.data(), v.data(), nullptr, false, 1, false,
       1.0, y.data());
  EXPECT_NEAR(y[0], 7.0f, 1e-5f);
  // Causal: the first query sees only the first key.
  std::vector<float> q2 = {1, 1}, y2(2);
  sdpa(1, 2, 2, 1, 1, q2.data(), k.data(), v.data(), nullptr, false, 1, true,
       1.0, y2.data());
  EXPECT_EQ(y2[0], 4.0f);
  EXPECT_NEAR(y2[1], 7.0f, 1e-5f);
}

TEST(CpuSdpa, FullyMaskedRowIsNaN) {
  std::vector<float> q = {1, 1}, k = {0, 1}, v = {4, 8}, y(2);
  std::vector<uint8_t> mask = {0, 0, 1, 0};
  sdpa(1, 2, 2, 1, 1, q.data(), k.data(), v.data(), mask.data(), true, 1, false,
       1.0, y.data());
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[1], 4.0f);
}

TEST(CpuSdpa, RandomShapesAndMasks) {
  std::mt19937 rng(8);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 80; ++trial) {
    SdpaCase c;
    c.batch = pick(1, 3);
    c.l = pick(1, 30);
    c.s = pick(1, 30);
    c.e = pick(1, 12);
    c.ev = pick(1, 12);
    c.hasMask = trial % 3 != 0;
    c.maskIsBool = trial % 2 == 0;
    c.maskBatch = pick(0, 1) ? c.batch : 1;
    c.causal = trial % 5 < 2;
    c.scale = trial % 4 == 0 ? 1.0 / std::sqrt(double(c.e)) : 0.3 * pick(1, 5);
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    checkSdpa(rng, c);
  }
}

TEST(CpuSdpa, LongSequencesAreBlocked) {
  std::mt19937 rng(9);
  SdpaCase c{2, 700, 530, 16, 8, 1, false, false, false, 0.25};
  c.causal = true;
  checkSdpa(rng, c);
}

namespace {

/// NATTEN's window start for index i of a dim of length len, written from
/// its piecewise definition: centred, shifted in at the borders, per
/// dilation group.
int64_t nattenWindowStart(int64_t i, int64_t len, int64_t kernel, int64_t dil) {
  int64_t half = kernel / 2;
  if (dil <= 1) {
    int64_t start = std::max<int64_t>(i - half, 0);
    if (i + half >= len)
      start += len - i - half - 1;
    return start;
  }
  if (i - half * dil < 0)
    return i % dil;
  if (i + half * dil >= len) {
    int64_t imodd = i % dil, a = len / dil * dil, b = len - a;
    if (imodd < b)
      return len - b + imodd - 2 * half * dil;
    return a + imodd - kernel * dil;
  }
  return i - half * dil;
}

struct NaProblem {
  NeighborhoodParams p;
  std::vector<float> q, k, v;
};

int64_t volume(const int64_t *dims, int rank) {
  int64_t n = 1;
  for (int d = 0; d < rank; ++d)
    n *= dims[d];
  return n;
}

void unflatten(int64_t flat, const int64_t *dims, int rank, int64_t *idx) {
  for (int d = rank - 1; d >= 0; --d) {
    idx[d] = flat % dims[d];
    flat /= dims[d];
  }
}

/// Full-size (unpartitioned) reference, y (batch, global..., heads,
/// valueDim).
std::vector<double> referenceNa(const NaProblem &pr) {
  const NeighborhoodParams &p = pr.p;
  int r = p.rank;
  int64_t vol = volume(p.global, r), win = volume(p.kernel, r);
  int64_t hd = p.heads * p.valueDim;
  std::vector<double> y(p.batch * vol * hd);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t pos = 0; pos < vol; ++pos)
      for (int64_t h = 0; h < p.heads; ++h) {
        int64_t qi[3], t[3];
        unflatten(pos, p.global, r, qi);
        std::vector<int64_t> keys;
        for (int64_t w = 0; w < win; ++w) {
          unflatten(w, p.kernel, r, t);
          int64_t key = 0;
          for (int d = 0; d < r; ++d)
            key = key * p.global[d] +
                  nattenWindowStart(qi[d], p.global[d], p.kernel[d],
                                    p.dilation[d]) +
                  t[d] * p.dilation[d];
          keys.push_back(key);
        }
        std::vector<double> scores;
        const float *qv = &pr.q[((b * vol + pos) * p.heads + h) * p.dim];
        for (int64_t key : keys) {
          const float *kv = &pr.k[((b * vol + key) * p.heads + h) * p.dim];
          double dot = 0.0;
          for (int64_t c = 0; c < p.dim; ++c)
            dot += double(qv[c]) * kv[c];
          scores.push_back(dot * p.scale);
        }
        auto out = attend(scores, p.valueDim, [&](size_t j, int64_t c) {
          return double(
              pr.v[((b * vol + keys[j]) * p.heads + h) * p.valueDim + c]);
        });
        std::copy(out.begin(), out.end(),
                  &y[((b * vol + pos) * p.heads + h) * p.valueDim]);
      }
  return y;
}

NaProblem randomNa(std::mt19937 &rng) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  NaProblem pr;
  NeighborhoodParams &p = pr.p;
  p.rank = pick(1, 3);
  p.batch = pick(1, 2);
  p.heads = pick(1, 3);
  p.dim = pick(1, 8);
  p.valueDim = pick(0, 1) ? p.dim : pick(1, 8); // v's may differ
  for (int d = 0; d < p.rank; ++d) {
    p.kernel[d] = 2 * pick(0, p.rank == 3 ? 1 : 3) + 1;
    p.dilation[d] = pick(1, 3);
    int64_t minLen = p.kernel[d] * p.dilation[d];
    p.global[d] = p.qExtent[d] = p.kvExtent[d] = minLen + pick(0, 6);
  }
  p.scale = 0.5;
  int64_t n = p.batch * volume(p.global, p.rank) * p.heads;
  pr.q = randomVector(rng, n * p.dim);
  pr.k = randomVector(rng, n * p.dim);
  pr.v = randomVector(rng, n * p.valueDim);
  return pr;
}

std::vector<float> runNa(const NeighborhoodParams &p,
                         const std::vector<float> &q,
                         const std::vector<float> &k,
                         const std::vector<float> &v) {
  std::vector<float> y(q.size() / size_t(p.dim) * size_t(p.valueDim), 1e30f);
  neighborhoodAttention(p, q.data(), k.data(), v.data(), y.data());
  return y;
}

/// Copies box [lo, lo + ext) of a (batch, global..., heads * dim) tensor.
std::vector<float> sliceBox(const std::vector<float> &t,
                            const NeighborhoodParams &p, int64_t dim,
                            const int64_t *lo, const int64_t *ext) {
  int r = p.rank;
  int64_t hd = p.heads * dim, vol = volume(ext, r);
  std::vector<float> out;
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t i = 0; i < vol; ++i) {
      int64_t idx[3], flat = 0;
      unflatten(i, ext, r, idx);
      for (int d = 0; d < r; ++d)
        flat = flat * p.global[d] + idx[d] + lo[d];
      auto from = t.begin() + (b * volume(p.global, r) + flat) * hd;
      out.insert(out.end(), from, from + hd);
    }
  return out;
}

} // namespace

TEST(CpuNeighborhoodAttention, KnownValues1d) {
  // Zero queries attend uniformly: y is the mean of the window's values.
  NeighborhoodParams p;
  p.rank = 1;
  p.batch = p.heads = p.dim = p.valueDim = 1;
  p.kernel[0] = 3;
  p.qExtent[0] = p.kvExtent[0] = p.global[0] = 5;
  std::vector<float> q(5, 0.0f), v = {1, 2, 3, 4, 5};
  // Windows {0,1,2} {0,1,2} {1,2,3} {2,3,4} {2,3,4}: shifted in, not padded.
  EXPECT_EQ(runNa(p, q, v, v), (std::vector<float>{2, 2, 3, 4, 4}));
  // Dilation 2 over 6: each parity class is one whole window.
  p.dilation[0] = 2;
  p.qExtent[0] = p.kvExtent[0] = p.global[0] = 6;
  q.assign(6, 0.0f);
  v = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(runNa(p, q, v, v), (std::vector<float>{3, 4, 3, 4, 3, 4}));
  // A zero q/k head dim: every score is 0, so again the windows' means.
  p.dim = 0;
  std::vector<float> y(6, -1.0f);
  neighborhoodAttention(p, nullptr, nullptr, v.data(), y.data());
  EXPECT_EQ(y, (std::vector<float>{3, 4, 3, 4, 3, 4}));
}

TEST(CpuNeighborhoodAttention, HeaderRuleMatchesNatten) {
  for (int64_t len = 1; len <= 40; ++len)
    for (int64_t kernel = 1; kernel <= 9; kernel += 2)
      for (int64_t dil = 1; kernel * dil <= len; ++dil)
        for (int64_t i = 0; i < len; ++i) {
          int64_t g = i % dil, lg = (len - g + dil - 1) / dil;
          int64_t start =
              std::clamp<int64_t>(i / dil - kernel / 2, 0, lg - kernel);
          ASSERT_EQ(start * dil + g, nattenWindowStart(i, len, kernel, dil))
              << "len " << len << " kernel " << kernel << " dil " << dil
              << " i " << i;
        }
}

TEST(CpuNeighborhoodAttention, RandomShapes) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 60; ++trial) {
    NaProblem pr = randomNa(rng);
    auto y = runNa(pr.p, pr.q, pr.k, pr.v);
    auto ref = referenceNa(pr);
    for (size_t i = 0; i < y.size(); ++i)
      ASSERT_NEAR(ref[i], y[i], 2e-5) << "trial " << trial << " at " << i;
  }
}

TEST(CpuNeighborhoodAttention, ShardWithHaloMatchesFullResult) {
  std::mt19937 rng(22);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 60; ++trial) {
    NaProblem pr = randomNa(rng);
    NeighborhoodParams full = pr.p, shard = pr.p;
    auto whole = runNa(full, pr.q, pr.k, pr.v);
    int64_t qLo[3] = {0, 0, 0}, kvLo[3] = {0, 0, 0};
    for (int d = 0; d < full.rank; ++d) {
      qLo[d] = pick(0, full.global[d] - 1);
      shard.qExtent[d] = pick(1, full.global[d] - qLo[d]);
      // Halo: the union of the windows of the local queries.
      int64_t lo = full.global[d], hi = 0;
      for (int64_t i = qLo[d]; i < qLo[d] + shard.qExtent[d]; ++i) {
        int64_t s = nattenWindowStart(i, full.global[d], full.kernel[d],
                                      full.dilation[d]);
        lo = std::min(lo, s);
        hi = std::max(hi, s + (full.kernel[d] - 1) * full.dilation[d] + 1);
      }
      kvLo[d] = lo;
      shard.kvExtent[d] = hi - lo;
      shard.qOffset[d] = qLo[d];
      shard.kvOffset[d] = lo;
    }
    auto qs = sliceBox(pr.q, full, full.dim, qLo, shard.qExtent);
    auto ks = sliceBox(pr.k, full, full.dim, kvLo, shard.kvExtent);
    auto vs = sliceBox(pr.v, full, full.valueDim, kvLo, shard.kvExtent);
    std::vector<float> part(qs.size() / size_t(full.dim) *
                            size_t(full.valueDim));
    neighborhoodAttention(shard, qs.data(), ks.data(), vs.data(), part.data());
    EXPECT_EQ(sliceBox(whole, full, full.valueDim, qLo, shard.qExtent), part)
        << "trial " << trial;
  }
}

TEST(CpuNeighborhoodAttention, LargeImageSpreadsOverThreads) {
  std::mt19937 rng(23);
  NaProblem pr;
  NeighborhoodParams &p = pr.p;
  p.rank = 2;
  p.batch = 1;
  p.heads = 2;
  p.dim = p.valueDim = 16;
  p.kernel[0] = p.kernel[1] = 7;
  p.dilation[1] = 2;
  p.global[0] = p.qExtent[0] = p.kvExtent[0] = 40;
  p.global[1] = p.qExtent[1] = p.kvExtent[1] = 33;
  p.scale = 0.25;
  int64_t n = 40 * 33 * 2 * 16;
  pr.q = randomVector(rng, n);
  pr.k = randomVector(rng, n);
  pr.v = randomVector(rng, n);
  auto y = runNa(p, pr.q, pr.k, pr.v);
  auto ref = referenceNa(pr);
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_NEAR(ref[i], y[i], 2e-5) << "at " << i;
}
