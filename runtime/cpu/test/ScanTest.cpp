//===- ScanTest.cpp - Cumulative ops against their definitions ------------===//
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
  std::vector<double> start;
  if (init)
    start.assign(init->begin(), init->end());
  scan(kind, x.data(), shape, dim, init ? start.data() : nullptr, y.data());
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

TEST(ScanTest, PackedValuesKeepADoublesValueAndRange) {
  // Cancellation and float overflow are what a float total would lose.
  // Every bit: 2^52 + 2^27 + 7 needs all 53 of the mantissa's.
  for (double v : {1e8 + 1.0, -(1e8 + 1.0), 1e40, -1e-45, 1e-320, 1e308, 0.1,
                   3.0, 1.0 / 3.0, 0x1p52 + 0x1p27 + 7.0, -(0x1p52 + 1.0),
                   0x1.fffffffffffffp1023}) {
    float packed[kPackedScanFloats];
    packScanValue(v, packed);
    EXPECT_EQ(unpackScanValue(packed), v) << v;
  }
  for (double v : {0.0, -0.0, double(kInf), -double(kInf)}) {
    float packed[kPackedScanFloats];
    packScanValue(v, packed);
    double back = unpackScanValue(packed);
    EXPECT_EQ(back, v);
    EXPECT_EQ(std::signbit(back), std::signbit(v));
  }
  float packed[kPackedScanFloats];
  packScanValue(double(kNaN), packed);
  EXPECT_TRUE(std::isnan(unpackScanValue(packed)));
}

TEST(ScanTest, TotalsAndCarriesContinueASplitLine) {
  // A line cut into shards: every shard's packed total, the carries of the
  // shards before each, and each shard scanned from its carry give the
  // whole line's scan, including where float totals would not: 1e8 + 1
  // cancelling across a cut, and a product past float's range.
  std::vector<float> line = {1e8f,  1.0f,   -1e8f, 2.0f,  1e20f,
                             1e20f, 1e-30f, 0.5f,  -3.0f, 0.0f};
  const std::vector<int64_t> cuts = {0, 2, 2, 4, 6, 10}; // an empty shard
  const int64_t members = int64_t(cuts.size()) - 1;
  for (ScanKind kind : kKinds) {
    std::vector<float> whole(line.size());
    scan(kind, line.data(), {int64_t(line.size())}, 0, nullptr, whole.data());
    std::vector<float> totals(size_t(members) * kPackedScanFloats);
    for (int64_t m = 0; m < members; ++m)
      scanTotals(kind, line.data() + cuts[m], {cuts[m + 1] - cuts[m]}, 0,
                 totals.data() + m * kPackedScanFloats);
    // An empty shard's total is the identity.
    EXPECT_EQ(unpackScanValue(totals.data() + kPackedScanFloats),
              scanIdentity(kind));
    for (int64_t m = 1; m < members; ++m) {
      double init = 0.0;
      scanCarries(kind, totals.data(), 1, members, 1, m, &init);
      std::vector<float> y(size_t(cuts[m + 1] - cuts[m]));
      scan(kind, line.data() + cuts[m], {int64_t(y.size())}, 0, &init,
           y.data());
      for (size_t i = 0; i < y.size(); ++i) {
        float want = whole[size_t(cuts[m]) + i];
        // Exact doubles, regrouped: equal up to float rounding.
        if (std::isnan(want))
          EXPECT_TRUE(std::isnan(y[i]));
        else if (std::isinf(want))
          EXPECT_EQ(y[i], want);
        else
          EXPECT_NEAR(y[i], want, 1e-6 * std::fabs(want))
              << "kind " << int(kind) << " shard " << m << " element " << i;
      }
    }
  }
}

TEST(ScanTest, EmptyShapesWriteNothing) {
  std::vector<float> y = {7.0f};
  scan(ScanKind::Sum, nullptr, {0, 3}, 1, nullptr, y.data());
  scan(ScanKind::Sum, nullptr, {3, 0}, 1, nullptr, y.data());
  EXPECT_EQ(y[0], 7.0f);
}

} // namespace
