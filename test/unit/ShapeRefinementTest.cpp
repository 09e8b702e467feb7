//===- ShapeRefinementTest.cpp - Common refinements against brute force ---===//

#include "shardc/Compiler/ShapeRefinement.h"
#include "IndexOracle.h"

#include <gtest/gtest.h>

#include <random>

using namespace shardc;

namespace {

using oracle::broadcastRead;
using oracle::count;
using oracle::unflatten;

/// Whether the flat index `b` is a dim boundary of `shape` (a suffix product
/// divides nothing else: b is one of them).
bool isBoundary(int64_t b, const Extents &shape) {
  int64_t p = 1;
  if (b == p)
    return true;
  for (size_t d = shape.size(); d-- > 0;) {
    p *= shape[d];
    if (p == b)
      return true;
  }
  return false;
}

/// A random shape of `n` elements: a random factorisation, 1s sprinkled in.
Extents randomShape(int64_t n, std::mt19937 &rng) {
  Extents s;
  while (n > 1) {
    std::vector<int64_t> divisors;
    for (int64_t f = 2; f <= n; ++f)
      if (n % f == 0)
        divisors.push_back(f);
    int64_t f = divisors[rng() % divisors.size()];
    s.push_back(f);
    n /= f;
    if (rng() % 4 == 0)
      s.push_back(1);
  }
  if (s.empty() || rng() % 3 == 0)
    s.insert(s.begin(), 1);
  return s;
}

TEST(ShapeRefinement, GroupNormViews) {
  // (N*G, C/G*H*W) and (N, C, H, W) with N=1, G=8, C=32.
  EXPECT_EQ(commonRefinement({{8, 1228800}, {1, 32, 300, 1024}}),
            (Extents{8, 4, 300, 1024}));
  EXPECT_EQ(broadcastOnRefinement({8, 1}, {8, 1228800}, {8, 4, 300, 1024}),
            (Extents{8, 1, 1, 1}));
  EXPECT_EQ(
      broadcastOnRefinement({32, 1, 1}, {1, 32, 300, 1024}, {8, 4, 300, 1024}),
      (Extents{8, 4, 1, 1}));
  EXPECT_EQ(broadcastOnRefinement({1}, {1, 32, 300, 1024}, {8, 4, 300, 1024}),
            (Extents{1, 1, 1, 1}));
}

TEST(ShapeRefinement, RefusesWhatDoesNotNest) {
  EXPECT_FALSE(commonRefinement({{2, 3}, {3, 2}}));
  EXPECT_FALSE(commonRefinement({{4, 6}, {6, 4}}));
  EXPECT_FALSE(commonRefinement({{4}, {5}}));
  EXPECT_FALSE(commonRefinement({{0, 3}, {3, 0}}));
  EXPECT_FALSE(commonRefinement({}));
  EXPECT_EQ(commonRefinement({{1, 1}, {1}}), Extents{});
  // Not a broadcast, or not a refinement of the shape.
  EXPECT_FALSE(broadcastOnRefinement({3}, {4, 6}, {4, 6}));
  EXPECT_FALSE(broadcastOnRefinement({6}, {4, 6}, {6, 4}));
  EXPECT_FALSE(broadcastOnRefinement({1, 1, 6}, {4, 6}, {4, 6}));
}

/// Random shapes of one count: the refinement's boundaries are exactly the
/// union of theirs (brute force over every flat index), and every
/// broadcast input re-shaped onto it reads, at every element, what it reads
/// through its own shape.
TEST(ShapeRefinement, MatchesBruteForce) {
  std::mt19937 rng(17);
  int refined = 0;
  for (int trial = 0; trial < 400; ++trial) {
    int64_t n = std::vector<int64_t>{12, 24, 36, 60, 64, 72, 96}[rng() % 7];
    std::vector<Extents> shapes = {randomShape(n, rng), randomShape(n, rng)};
    if (rng() % 2)
      shapes.push_back(randomShape(n, rng));
    std::optional<Extents> r = commonRefinement(shapes);
    bool nests = true;
    for (int64_t b = 1; b <= n; ++b) {
      bool cut = false;
      for (const Extents &s : shapes)
        cut |= isBoundary(b, s);
      // Boundaries of different shapes must divide one another.
      for (int64_t c = 1; c < b && cut; ++c) {
        bool cutC = false;
        for (const Extents &s : shapes)
          cutC |= isBoundary(c, s);
        if (cutC && b % c != 0)
          nests = false;
      }
      if (r) {
        bool own = isBoundary(b, *r);
        EXPECT_EQ(own, cut) << "boundary " << b;
      }
    }
    ASSERT_EQ(bool(r), nests) << "trial " << trial;
    if (!r)
      continue;
    ++refined;
    EXPECT_EQ(count(*r), n);
    for (const Extents &s : shapes) {
      // Each dim of the input is kept or broadcast at random.
      Extents input;
      for (int64_t e : s)
        input.push_back(rng() % 2 ? e : 1);
      input.erase(input.begin(), input.begin() + rng() % (input.size() + 1));
      std::optional<Extents> on = broadcastOnRefinement(input, s, *r);
      ASSERT_TRUE(on);
      EXPECT_EQ(count(*on), count(input));
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(broadcastRead(*on, *r, unflatten(i, *r)),
                  broadcastRead(input, s, unflatten(i, s)))
            << "element " << i;
    }
  }
  EXPECT_GT(refined, 100);
}

} // namespace
