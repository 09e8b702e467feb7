//===- ReduceNormTest.cpp - Reductions, softmax and norms -----------------===//
//
// The references visit x element by element with explicit multi-indices and
// accumulate in double; the norms use the textbook two-pass formulas.
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace shardrt::cpu;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

int64_t product(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

int64_t randInt(std::mt19937 &g, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(g);
}

std::vector<float> randFloats(std::mt19937 &g, int64_t n, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(g);
  return v;
}

void expectClose(float got, double want, double tol, const std::string &what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what;
    return;
  }
  if (std::isinf(want)) {
    EXPECT_EQ(got, want) << what;
    return;
  }
  EXPECT_NEAR(got, want, tol * (1.0 + std::fabs(want))) << what;
}

/// Reduces by visiting every x element and adding it to the output element
/// that its kept indices name.
std::vector<double> refReduce(ReduceKind kind, const std::vector<float> &x,
                              const Shape &shape,
                              const std::vector<bool> &mask) {
  int64_t outputs = 1, count = 1;
  for (size_t d = 0; d < shape.size(); ++d)
    (mask[d] ? count : outputs) *= shape[d];
  const double inf = std::numeric_limits<double>::infinity();
  const double init = kind == ReduceKind::Max   ? -inf
                      : kind == ReduceKind::Min ? inf
                                                : 0.0;
  std::vector<double> acc(outputs, init);
  std::vector<bool> nan(outputs, false);
  for (int64_t i = 0; i < product(shape); ++i) {
    int64_t rem = i, out = 0, outStride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      int64_t idx = rem % shape[d];
      rem /= shape[d];
      if (!mask[d]) {
        out += idx * outStride;
        outStride *= shape[d];
      }
    }
    double v = x[i];
    nan[out] = nan[out] || std::isnan(v);
    if (kind == ReduceKind::Max)
      acc[out] = std::max(acc[out], v);
    else if (kind == ReduceKind::Min)
      acc[out] = std::min(acc[out], v);
    else
      acc[out] += v;
  }
  for (int64_t o = 0; o < outputs; ++o) {
    if (nan[o])
      acc[o] = NAN;
    else if (kind == ReduceKind::Mean)
      acc[o] /= static_cast<double>(count);
  }
  return acc;
}

const ReduceKind kReduceKinds[] = {ReduceKind::Sum, ReduceKind::Mean,
                                   ReduceKind::Max, ReduceKind::Min};

void checkReduce(ReduceKind kind, const std::vector<float> &x,
                 const Shape &shape, const std::vector<bool> &mask) {
  std::vector<double> want = refReduce(kind, x, shape, mask);
  std::vector<float> y(want.size(), -7.0f);
  reduce(kind, x.data(), shape, mask, y.data());
  for (size_t o = 0; o < want.size(); ++o)
    expectClose(y[o], want[o], 1e-5,
                "kind " + std::to_string(int(kind)) + " output " +
                    std::to_string(o));
}

/// Softmax by its definition, one slice along dim at a time.
std::vector<double> refSoftmax(const std::vector<float> &x, const Shape &shape,
                               int64_t dim, bool log) {
  int64_t outer = 1, len = 1, inner = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    (d < dim ? outer : d == dim ? len : inner) *= shape[d];
  std::vector<double> y(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < inner; ++c) {
      auto at = [&](int64_t l) { return (o * len + l) * inner + c; };
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t l = 0; l < len; ++l)
        mx = std::isnan(mx) || std::isnan(x[at(l)])
                 ? NAN
                 : std::max(mx, double(x[at(l)]));
      double sum = 0.0;
      for (int64_t l = 0; l < len; ++l)
        sum += std::exp(x[at(l)] - mx);
      for (int64_t l = 0; l < len; ++l)
        y[at(l)] =
            log ? x[at(l)] - mx - std::log(sum) : std::exp(x[at(l)] - mx) / sum;
    }
  return y;
}

void checkSoftmax(const std::vector<float> &x, const Shape &shape, int64_t dim,
                  bool log) {
  std::vector<double> want = refSoftmax(x, shape, dim, log);
  std::vector<float> y(x.size(), -7.0f);
  softmax(x.data(), shape, dim, log, y.data());
  for (size_t i = 0; i < x.size(); ++i)
    expectClose(y[i], want[i], 1e-5,
                "dim " + std::to_string(dim) + " log " + std::to_string(log) +
                    " element " + std::to_string(i));
}

struct Stats {
  double mean, var;
};

Stats refStats(const float *x, int64_t n) {
  double mean = 0.0, var = 0.0;
  for (int64_t i = 0; i < n; ++i)
    mean += x[i];
  mean /= n;
  for (int64_t i = 0; i < n; ++i)
    var += (x[i] - mean) * (x[i] - mean);
  return {mean, var / n};
}

} // namespace

TEST(ReduceTest, RandomShapesEveryKind) {
  std::mt19937 g(21);
  for (int iter = 0; iter < 400; ++iter) {
    Shape shape;
    std::vector<bool> mask;
    for (int d = 0, rank = int(randInt(g, 0, 5)); d < rank; ++d) {
      shape.push_back(randInt(g, 0, 12) == 0 ? 0 : randInt(g, 1, 5));
      mask.push_back(randInt(g, 0, 1));
    }
    std::vector<float> x = randFloats(g, product(shape), -10, 10);
    if (!x.empty() && randInt(g, 0, 9) == 0)
      x[randInt(g, 0, x.size() - 1)] = kNaN;
    int64_t count = 1;
    for (size_t d = 0; d < shape.size(); ++d)
      count *= mask[d] ? shape[d] : 1;
    for (ReduceKind kind : kReduceKinds) {
      // The executor rejects max/min over nothing.
      if (count == 0 && (kind == ReduceKind::Max || kind == ReduceKind::Min))
        continue;
      checkReduce(kind, x, shape, mask);
    }
  }
}

TEST(ReduceTest, LargeShapesTakeParallelPaths) {
  std::mt19937 g(22);
  const std::pair<Shape, std::vector<bool>> cases[] = {
      {{3, 12000}, {false, true}},
      {{3, 12000}, {true, false}},
      {{3, 12000}, {true, true}},
      {{12000, 3}, {true, false}},
      {{40, 50, 30}, {true, false, true}},
      {{64, 2, 300}, {false, true, false}},
      {{40000}, {true}}};
  for (const auto &[shape, mask] : cases) {
    std::vector<float> x = randFloats(g, product(shape), -1, 1);
    for (ReduceKind kind : kReduceKinds)
      checkReduce(kind, x, shape, mask);
    // NaN in a lane, in a tail and in a column block must all win.
    x[x.size() / 3] = kNaN;
    x[x.size() - 1] = kNaN;
    for (ReduceKind kind : {ReduceKind::Max, ReduceKind::Min})
      checkReduce(kind, x, shape, mask);
  }
}

TEST(ReduceTest, ReductionOverNothing) {
  std::vector<float> y(3, -1.0f);
  float dummy = 0.0f;
  reduce(ReduceKind::Sum, &dummy, {3, 0}, {false, true}, y.data());
  EXPECT_EQ(y, std::vector<float>(3, 0.0f));
  reduce(ReduceKind::Mean, &dummy, {3, 0}, {false, true}, y.data());
  for (float v : y)
    EXPECT_TRUE(std::isnan(v));
}

// The serial sums the fused evaluator calls: against a long double sum in
// order, for lengths around the 16 lanes, cancelling values, and NaN and
// infinities (which no lane may drop).
TEST(ReduceTest, SerialSumsMatchAnOrderedSum) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1e3f, 1e3f);
  for (int64_t n : {0, 1, 15, 16, 17, 31, 33, 1000, 4099}) {
    std::vector<float> x(static_cast<size_t>(n));
    for (float &v : x)
      v = dist(rng);
    long double exact = 0;
    for (float v : x)
      exact += v;
    EXPECT_NEAR(double(sumSerial(x.data(), n)), double(exact),
                1e-12 * double(n) * 1e3)
        << n;
    std::vector<double> acc(static_cast<size_t>(n), 0.5);
    accumulateSerial(acc.data(), x.data(), n);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(acc[size_t(i)], 0.5 + double(x[size_t(i)])) << n << " " << i;
  }
  std::vector<float> x(37, 1.0f);
  x[35] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(sumSerial(x.data(), 37)));
  x[35] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(sumSerial(x.data(), 37), std::numeric_limits<double>::infinity());
  x[3] = -std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::isnan(sumSerial(x.data(), 37)));
}

TEST(SoftmaxTest, RandomShapesEveryDim) {
  std::mt19937 g(23);
  for (int iter = 0; iter < 200; ++iter) {
    Shape shape;
    for (int d = 0, rank = int(randInt(g, 0, 5)); d < rank; ++d)
      shape.push_back(randInt(g, 0, 15) == 0 ? 0 : randInt(g, 1, 5));
    std::vector<float> x = randFloats(g, product(shape), -8, 8);
    for (int64_t dim = 0; dim < std::max<int64_t>(1, shape.size()); ++dim)
      for (bool log : {false, true})
        checkSoftmax(x, shape, dim, log);
  }
}

TEST(SoftmaxTest, LargeShapesAndSpecialValues) {
  std::mt19937 g(24);
  const std::pair<Shape, int64_t> cases[] = {
      {{4, 20000}, 1}, {{20000, 4}, 0}, {{8, 300, 40}, 1}, {{3, 5, 700}, 1}};
  for (const auto &[shape, dim] : cases) {
    std::vector<float> x = randFloats(g, product(shape), -20, 20);
    for (bool log : {false, true})
      checkSoftmax(x, shape, dim, log);
  }
  // -inf entries get probability 0; a NaN poisons its whole slice.
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {1.0f, -inf, 2.0f, 3.0f, kNaN, 0.0f};
  for (bool log : {false, true}) {
    checkSoftmax(x, {2, 3}, 1, log);
    checkSoftmax(x, {3, 2}, 0, log);
  }
  // The same in slices long enough for the vectorised exp loops (64+), with
  // log_softmax's exps spanning several scratch blocks.
  std::vector<float> wide = randFloats(g, 3 * 2500, -30, 30);
  for (int64_t i = 0; i < 2500; i += 7)
    wide[i] = -inf;
  wide[2500 + 1234] = kNaN;
  for (bool log : {false, true}) {
    checkSoftmax(wide, {3, 2500}, 1, log);
    checkSoftmax(wide, {25, 300}, 0, log);
  }
}

TEST(LayerNormTest, RandomShapesWithAndWithoutAffine) {
  std::mt19937 g(25);
  std::vector<std::pair<int64_t, int64_t>> sizes = {{200, 512}, {1, 70000}};
  for (int iter = 0; iter < 60; ++iter)
    sizes.push_back({randInt(g, 0, 6), randInt(g, 1, 300)});
  for (auto [outer, inner] : sizes) {
    // An offset large next to the spread catches one-pass float variance.
    float offset = randInt(g, 0, 1) ? 1000.0f : 0.0f;
    std::vector<float> x = randFloats(g, outer * inner, offset - 2, offset + 2);
    std::vector<float> w = randFloats(g, inner, -2, 2);
    std::vector<float> b = randFloats(g, inner, -2, 2);
    for (int affine = 0; affine < 4; ++affine) {
      const float *wp = affine & 1 ? w.data() : nullptr;
      const float *bp = affine & 2 ? b.data() : nullptr;
      std::vector<float> y(x.size());
      layerNorm(x.data(), outer, inner, wp, bp, 1e-5, y.data());
      for (int64_t r = 0; r < outer; ++r) {
        Stats s = refStats(&x[r * inner], inner);
        for (int64_t i = 0; i < inner; ++i) {
          double want = (x[r * inner + i] - s.mean) / std::sqrt(s.var + 1e-5);
          want = want * (wp ? wp[i] : 1.0) + (bp ? bp[i] : 0.0);
          expectClose(y[r * inner + i], want, 1e-4,
                      "row " + std::to_string(r) + " of " +
                          std::to_string(inner));
        }
      }
    }
  }
}

TEST(GroupNormTest, RandomShapesWithAndWithoutAffine) {
  std::mt19937 g(26);
  for (int iter = 0; iter < 80; ++iter) {
    int64_t n = randInt(g, 1, 3), groups = randInt(g, 1, 4);
    int64_t c = groups * randInt(g, 1, 3), spatial = randInt(g, 1, 40);
    if (iter == 0)
      n = 4, groups = 8, c = 32, spatial = 1024; // the parallel path
    std::vector<float> x = randFloats(g, n * c * spatial, -3, 5);
    std::vector<float> w = randFloats(g, c, -2, 2), b = randFloats(g, c, -2, 2);
    bool affine = randInt(g, 0, 1);
    std::vector<float> y(x.size());
    groupNorm(x.data(), n, c, spatial, groups, affine ? w.data() : nullptr,
              affine ? b.data() : nullptr, 1e-5, y.data());
    const int64_t per = c / groups * spatial;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < groups; ++k) {
        const int64_t base = (i * groups + k) * per;
        Stats s = refStats(&x[base], per);
        for (int64_t j = 0; j < per; ++j) {
          int64_t ch = k * (c / groups) + j / spatial;
          double want = (x[base + j] - s.mean) / std::sqrt(s.var + 1e-5);
          if (affine)
            want = want * w[ch] + b[ch];
          expectClose(y[base + j], want, 1e-4, "group " + std::to_string(k));
        }
      }
  }
}

TEST(BatchNormInferenceTest, RandomShapes) {
  std::mt19937 g(27);
  for (int iter = 0; iter < 60; ++iter) {
    int64_t n = randInt(g, 1, 4), c = randInt(g, 1, 6);
    int64_t spatial = randInt(g, 0, 2) == 0 ? 1 : randInt(g, 1, 50);
    if (iter == 0)
      n = 8, c = 16, spatial = 4096; // the parallel path
    if (iter == 1)
      n = 20000, c = 3, spatial = 1; // (N, C) input, parallel
    std::vector<float> x = randFloats(g, n * c * spatial, -3, 3);
    std::vector<float> mean = randFloats(g, c, -1, 1);
    std::vector<float> var = randFloats(g, c, 0.1f, 3);
    std::vector<float> w = randFloats(g, c, -2, 2), b = randFloats(g, c, -2, 2);
    bool affine = iter % 2 == 0;
    std::vector<float> y(x.size());
    batchNormInference(x.data(), n, c, spatial, mean.data(), var.data(),
                       affine ? w.data() : nullptr, affine ? b.data() : nullptr,
                       1e-5, y.data());
    for (int64_t i = 0; i < n * c * spatial; ++i) {
      int64_t ch = i / spatial % c;
      double want = (x[i] - mean[ch]) / std::sqrt(var[ch] + 1e-5);
      if (affine)
        want = want * w[ch] + b[ch];
      expectClose(y[i], want, 1e-5, "element " + std::to_string(i));
    }
  }
}
