//===- BoxTest.cpp --------------------------------------------------------===//

#include "shardrt/Box.h"
#include "shardrt/Split.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <vector>

using namespace shardrt;

namespace {

using Point = std::vector<int64_t>;

bool inBox(const Point &p, const Box &b) {
  for (size_t d = 0; d < p.size(); ++d)
    if (p[d] < b.lo[d] || p[d] >= b.hi[d])
      return false;
  return true;
}

// Calls fn on every point of the cube [lo, hi)^rank, row-major.
template <typename Fn>
void forEachPoint(size_t rank, int64_t lo, int64_t hi, Fn fn) {
  Point p(rank, lo);
  while (true) {
    fn(p);
    size_t d = rank;
    while (d > 0 && ++p[d - 1] == hi)
      p[--d] = lo;
    if (d == 0)
      return;
  }
}

// Points of a (well-formed, possibly empty) box, by brute force.
template <typename Fn> void forEachPointOf(const Box &b, Fn fn) {
  if (empty(b))
    return;
  Point p = b.lo;
  while (true) {
    fn(p);
    size_t d = b.rank();
    while (d > 0 && ++p[d - 1] == b.hi[d - 1]) {
      p[d - 1] = b.lo[d - 1];
      --d;
    }
    if (d == 0)
      return;
  }
}

Box randomBox(std::mt19937_64 &rng, size_t rank, int64_t lo, int64_t hi) {
  std::uniform_int_distribution<int64_t> coord(lo, hi);
  Box b;
  for (size_t d = 0; d < rank; ++d) {
    // Independent endpoints, so inverted and zero-width intervals occur too.
    b.lo.push_back(coord(rng));
    b.hi.push_back(coord(rng));
  }
  return b;
}

TEST(BoxTest, Basics) {
  Box b{{0, 2}, {3, 5}};
  EXPECT_FALSE(empty(b));
  EXPECT_EQ(volume(b), 9);
  EXPECT_TRUE(empty(Box{{0, 2}, {3, 2}}));
  EXPECT_TRUE(empty(Box{{4}, {1}}));
  EXPECT_EQ(volume(Box{{4}, {1}}), 0);
  // A rank-0 box is one scalar.
  EXPECT_FALSE(empty(Box{}));
  EXPECT_EQ(volume(Box{}), 1);
}

TEST(BoxTest, IntersectClampsDisjointBoxes) {
  Box r = intersect(Box{{0}, {3}}, Box{{5}, {9}});
  EXPECT_TRUE(empty(r));
  EXPECT_EQ(r.lo, Point{5});
  EXPECT_EQ(r.hi, Point{5});
}

TEST(BoxTest, Errors) {
  EXPECT_THROW(intersect(Box{{0}, {1}}, Box{{0, 0}, {1, 1}}),
               std::invalid_argument);
  EXPECT_THROW(empty(Box{{0, 0}, {1}}), std::invalid_argument);
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_THROW(volume(Box{{-big}, {big}}), std::overflow_error);
  EXPECT_THROW(volume(Box{{0, 0}, {big, 2}}), std::overflow_error);
  EXPECT_EQ(volume(Box{{0}, {big}}), big);
  EXPECT_THROW(transferPlan({Box{{0}, {1}}}, {Box{{0, 0}, {1, 1}}}),
               std::invalid_argument);
}

TEST(BoxTest, IntersectMatchesPointEnumeration) {
  std::mt19937_64 rng(20240601);
  const int64_t lo = -3, hi = 5;
  for (int iter = 0; iter < 3000; ++iter) {
    size_t rank = 1 + iter % 3;
    Box a = randomBox(rng, rank, lo, hi);
    Box b = randomBox(rng, rank, lo, hi);
    Box r = intersect(a, b);
    ASSERT_EQ(r.rank(), rank);
    int64_t count = 0;
    // One margin cell each side catches boxes that reach too far.
    forEachPoint(rank, lo - 1, hi + 1, [&](const Point &p) {
      bool expected = inBox(p, a) && inBox(p, b);
      ASSERT_EQ(inBox(p, r), expected) << "iteration " << iter;
      count += expected;
    });
    ASSERT_EQ(volume(r), count) << "iteration " << iter;
    ASSERT_EQ(empty(r), count == 0) << "iteration " << iter;
    for (size_t d = 0; d < rank; ++d)
      ASSERT_LE(r.lo[d], r.hi[d]);
    ASSERT_EQ(intersect(b, a), r);
    ASSERT_TRUE(contains(a, r) && contains(b, r));
  }
}

TEST(BoxTest, ContainsMatchesPointEnumeration) {
  std::mt19937_64 rng(7);
  const int64_t lo = -2, hi = 4;
  for (int iter = 0; iter < 2000; ++iter) {
    size_t rank = 1 + iter % 3;
    Box outer = randomBox(rng, rank, lo, hi);
    Box inner = randomBox(rng, rank, lo, hi);
    bool all = true;
    forEachPointOf(inner,
                   [&](const Point &p) { all = all && inBox(p, outer); });
    ASSERT_EQ(contains(outer, inner), all) << "iteration " << iter;
  }
}

// Owned boxes partition a domain as a mesh of shards (canonical or random
// explicit extents, empty shards included); needed boxes are owned boxes
// grown by random halos, clipped to the domain. Every needed point must be
// delivered exactly once, from its owner.
TEST(BoxTest, TransferPlanCoversNeededPointsExactlyOnce) {
  std::mt19937_64 rng(12345);
  for (int iter = 0; iter < 1500; ++iter) {
    SCOPED_TRACE("iteration " + std::to_string(iter));
    size_t rank = 1 + iter % 3;
    std::vector<int64_t> shape, mesh;
    std::vector<std::vector<int64_t>> extents, offsets;
    for (size_t d = 0; d < rank; ++d) {
      int64_t n = std::uniform_int_distribution<int64_t>(0, 9)(rng);
      int64_t k = std::uniform_int_distribution<int64_t>(1, 4)(rng);
      std::vector<int64_t> e;
      if (rng() % 2) {
        e = canonicalExtents(n, k);
      } else {
        // Random explicit extents: k - 1 random cut points in [0, n].
        std::vector<int64_t> cuts{0, n};
        for (int64_t i = 1; i < k; ++i)
          cuts.push_back(std::uniform_int_distribution<int64_t>(0, n)(rng));
        std::sort(cuts.begin(), cuts.end());
        for (int64_t i = 0; i < k; ++i)
          e.push_back(cuts[i + 1] - cuts[i]);
      }
      ASSERT_TRUE(validateExtents(n, e, k).ok());
      shape.push_back(n);
      mesh.push_back(k);
      offsets.push_back(extentOffsets(e));
      extents.push_back(std::move(e));
    }
    Box domain{Point(rank, 0), shape};

    // Row-major ranks over the mesh.
    std::vector<Box> owned, needed;
    forEachPointOf(Box{Point(rank, 0), mesh}, [&](const Point &coord) {
      Box own, need;
      for (size_t d = 0; d < rank; ++d) {
        int64_t lo = offsets[d][coord[d]];
        int64_t hi = lo + extents[d][coord[d]];
        own.lo.push_back(lo);
        own.hi.push_back(hi);
        int64_t haloLo = std::uniform_int_distribution<int64_t>(-1, 3)(rng);
        int64_t haloHi = std::uniform_int_distribution<int64_t>(-1, 3)(rng);
        need.lo.push_back(std::max<int64_t>(0, lo - haloLo));
        need.hi.push_back(std::min<int64_t>(shape[d], hi + haloHi));
      }
      owned.push_back(std::move(own));
      needed.push_back(std::move(need));
    });

    // The harness itself: owned boxes must partition the domain.
    std::map<Point, int64_t> ownerOf;
    for (size_t q = 0; q < owned.size(); ++q)
      forEachPointOf(owned[q], [&](const Point &p) {
        ASSERT_TRUE(ownerOf.emplace(p, q).second);
      });
    ASSERT_EQ(static_cast<int64_t>(ownerOf.size()), volume(domain));

    std::vector<Transfer> plan = transferPlan(needed, owned);
    std::vector<std::map<Point, int>> delivered(needed.size());
    for (size_t i = 0; i < plan.size(); ++i) {
      const Transfer &t = plan[i];
      ASSERT_FALSE(empty(t.box));
      ASSERT_TRUE(contains(needed[t.needer], t.box));
      ASSERT_TRUE(contains(owned[t.owner], t.box));
      if (i > 0) {
        const Transfer &prev = plan[i - 1];
        ASSERT_LT(std::make_pair(prev.needer, prev.owner),
                  std::make_pair(t.needer, t.owner));
      }
      forEachPointOf(t.box, [&](const Point &p) {
        ASSERT_EQ(ownerOf.at(p), t.owner);
        ++delivered[t.needer][p];
      });
    }
    for (size_t r = 0; r < needed.size(); ++r) {
      int64_t count = 0;
      forEachPointOf(needed[r], [&](const Point &p) {
        ASSERT_EQ(delivered[r][p], 1) << "rank " << r;
        ++count;
      });
      // Nothing outside the needed box was delivered.
      ASSERT_EQ(static_cast<int64_t>(delivered[r].size()), count);
    }
  }
}

TEST(BoxTest, TransferPlanHaloExample) {
  // 1-D, 10 elements over 3 ranks ([0,4) [4,7) [7,10)), halo 1 each side.
  std::vector<Box> owned{{{0}, {4}}, {{4}, {7}}, {{7}, {10}}};
  std::vector<Box> needed{{{0}, {5}}, {{3}, {8}}, {{6}, {10}}};
  std::vector<Transfer> expected{
      {0, 0, {{0}, {4}}},  {0, 1, {{4}, {5}}}, {1, 0, {{3}, {4}}},
      {1, 1, {{4}, {7}}},  {1, 2, {{7}, {8}}}, {2, 1, {{6}, {7}}},
      {2, 2, {{7}, {10}}},
  };
  EXPECT_EQ(transferPlan(needed, owned), expected);
  EXPECT_TRUE(transferPlan({}, owned).empty());
  EXPECT_TRUE(transferPlan(needed, {}).empty());
}

} // namespace
