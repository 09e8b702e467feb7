//===- ScanTest.cpp - Cumulative ops against their definitions
//-------------===//
//
// Each output element is recomputed from its definition over the prefix
// it covers (O(n^2), in long double): a sum or product of the prefix, its
// extreme (NaN if any element is NaN), or log(sum(exp)) with the
// infinities PyTorch gives. Nothing is shared with the kernel's running
// fold.
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace shardrt::cpu;

namespace {

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

/// The definition of element i of a cumulative op over `prefix`
/// (the line's elements up to and including i), starting from `start`
/// when there is one.
long double definition(ScanKind kind, const std::vector<float> &prefix,
                       const float *start) {
  std::vector<long double> v;
  if (start)
    v.push_back(*start);
  for (float x : prefix)
    v.push_back(x);
  bool anyNaN = false;
  for (long double x : v)
    anyNaN |= std::isnan(x);
  switch (kind) {
  case ScanKind::Sum: {
    long double s = 0;
    for (long double x : v)
      s += x;
    return s;
  }
  case ScanKind::Prod: {
    long double p = 1;
    for (long double x : v)
      p *= x;
    return p;
  }
  case ScanKind::Max:
  case ScanKind::Min: {
    if (anyNaN)
      return NAN;
    long double m = v[0];
    for (long double x : v)
      m = kind == ScanKind::Max ? std::max(m, x) : std::min(m, x);
    return m;
  }
  case ScanKind::LogSumExp: {
    if (anyNaN)
      return NAN;
    long double hi = -INFINITY;
    for (long double x : v)
      hi = std::max(hi, x);
    if (std::isinf(hi))
      return hi; // all -inf, or some +inf
    long double s = 0;
    for (long double x : v)
      s += std::exp(x - hi);
    return std::log(s) + hi;
  }
  }
  return 0;
}

/// `want` is compared as the float the output stores: a product past
/// float's range is an infinity there, as in PyTorch.
void expectClose(float got, long double exact, const std::string &what) {
  float want = float(exact);
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what << ": got " << got;
  } else if (std::isinf(want)) {
    EXPECT_EQ(got, want) << what;
  } else {
    EXPECT_NEAR(got, want, 2e-6 * (1.0 + std::fabs(double(want)))) << what;
  }
}

/// Runs cpu::scan on x and checks every element against its definition.
void check(ScanKind kind, const std::vector<float> &x, const Shape &shape,
           int64_t dim, const std::vector<float> *init) {
  std::vector<float> y(x.size(), -12345.0f);
  scan(kind, x.data(), shape, dim, init ? init->data() : nullptr, y.data());
  int64_t outer = 1, inner = 1, len = shape[dim];
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  for (size_t d = dim + 1; d < shape.size(); ++d)
    inner *= shape[d];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < inner; ++c) {
      std::vector<float> prefix;
      for (int64_t l = 0; l < len; ++l) {
        int64_t i = (o * len + l) * inner + c;
        prefix.push_back(x[i]);
        const float *start = init ? &(*init)[o * inner + c] : nullptr;
        expectClose(y[i], definition(kind, prefix, start),
                    "kind " + std::to_string(int(kind)) + " dim " +
                        std::to_string(dim) + " at " + std::to_string(i));
      }
    }
}

const ScanKind kKinds[] = {ScanKind::Sum, ScanKind::Prod, ScanKind::Max,
                           ScanKind::Min, ScanKind::LogSumExp};

TEST(ScanTest, RandomShapesEveryDimAndKind) {
  std::mt19937 g(7);
  for (int trial = 0; trial < 40; ++trial) {
    Shape shape;
    int rank = 1 + trial % 4;
    for (int d = 0; d < rank; ++d)
      shape.push_back(std::uniform_int_distribution<int64_t>(1, 9)(g));
    // Wide rows exercise the column blocks (64 at a time) and their tail.
    if (trial % 5 == 0)
      shape.back() = 70;
    int64_t n = 1;
    for (int64_t e : shape)
      n *= e;
    std::uniform_real_distribution<float> dist(-1.5f, 1.5f);
    std::vector<float> x(n);
    for (float &v : x)
      v = dist(g);
    for (int64_t dim = 0; dim < rank; ++dim)
      for (ScanKind kind : kKinds)
        check(kind, x, shape, dim, nullptr);
  }
}

TEST(ScanTest, InitialValuesStartEachLine) {
  std::mt19937 g(11);
  Shape shape = {3, 5, 67};
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> x(3 * 5 * 67);
  for (float &v : x)
    v = dist(g);
  for (int64_t dim = 0; dim < 3; ++dim) {
    Shape line = shape;
    line[dim] = 1;
    std::vector<float> init(x.size() / shape[dim]);
    for (float &v : init)
      v = dist(g);
    for (ScanKind kind : kKinds)
      check(kind, x, shape, dim, &init);
  }
}

TEST(ScanTest, InfinitiesAndNaN) {
  // Each line of 6 along dim 1 of (8, 6): NaN first, NaN last, equal
  // infinities, mixed infinities, all -inf, and zeros in a product.
  std::vector<float> x = {kNaN,  1.0f,  2.0f,   -kInf, kInf,  0.5f,  //
                          1.0f,  2.0f,  3.0f,   4.0f,  5.0f,  kNaN,  //
                          -kInf, -kInf, 1.0f,   -kInf, 2.0f,  -3.0f, //
                          kInf,  kInf,  -kInf,  1.0f,  -1.0f, 0.0f,  //
                          -kInf, -kInf, -kInf,  -kInf, -kInf, -kInf, //
                          2.0f,  0.0f,  kInf,   3.0f,  -0.0f, 1.0f,  //
                          1e30f, 1e30f, -1e30f, 80.0f, 90.0f, -100.0f,
                          kInf,  -kInf, kInf,   -kInf, 0.0f,  kNaN};
  for (ScanKind kind : kKinds)
    check(kind, x, {8, 6}, 1, nullptr);
  std::vector<float> init = {1.0f, kNaN, -kInf, kInf, -kInf, 0.0f, 3.0f, 2.0f};
  for (ScanKind kind : kKinds)
    check(kind, x, {8, 6}, 1, &init);
}

TEST(ScanTest, EmptyShapesWriteNothing) {
  std::vector<float> y = {7.0f};
  scan(ScanKind::Sum, nullptr, {0, 3}, 1, nullptr, y.data());
  scan(ScanKind::Sum, nullptr, {3, 0}, 1, nullptr, y.data());
  EXPECT_EQ(y[0], 7.0f);
}

} // namespace
