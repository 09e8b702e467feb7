//===- SplitTest.cpp ------------------------------------------------------===//

#include "shardrt/Split.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

using namespace shardrt;

namespace {

// numpy.array_split's rule, rebuilt without arithmetic on n and k: deal the
// elements out one at a time to the shards in turn (round robin). Each shard
// ends up with the same count as array_split's contiguous block, since the
// first n mod k shards receive one extra card.
std::vector<int64_t> dealtExtents(int64_t n, int64_t k) {
  std::vector<int64_t> extents(k, 0);
  for (int64_t elem = 0, shard = 0; elem < n; ++elem) {
    ++extents[shard];
    if (++shard == k)
      shard = 0;
  }
  return extents;
}

TEST(SplitTest, MatchesRoundRobinReference) {
  for (int64_t n = 0; n <= 100; ++n) {
    for (int64_t k = 1; k <= 17; ++k) {
      SCOPED_TRACE("n=" + std::to_string(n) + " k=" + std::to_string(k));
      std::vector<int64_t> extents = canonicalExtents(n, k);
      ASSERT_EQ(extents, dealtExtents(n, k));
      std::vector<int64_t> offsets = extentOffsets(extents);
      for (int64_t i = 0; i < k; ++i) {
        EXPECT_EQ(canonicalExtent(n, k, i), extents[i]);
        EXPECT_EQ(canonicalOffset(n, k, i), offsets[i]);
      }
      EXPECT_TRUE(validateExtents(n, extents, k).ok());
    }
  }
}

// [len(a) for a in np.array_split(np.arange(n), k)]; (8, 3) is the example in
// numpy's documentation, the rest follow its divmod(n, k) rule.
TEST(SplitTest, KnownNumpyValues) {
  EXPECT_EQ(canonicalExtents(8, 3), (std::vector<int64_t>{3, 3, 2}));
  EXPECT_EQ(canonicalExtents(10, 4), (std::vector<int64_t>{3, 3, 2, 2}));
  EXPECT_EQ(canonicalExtents(3, 5), (std::vector<int64_t>{1, 1, 1, 0, 0}));
  EXPECT_EQ(canonicalExtents(0, 2), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(canonicalExtents(7, 1), (std::vector<int64_t>{7}));
}

TEST(SplitTest, LargeSizesDoNotOverflow) {
  const int64_t n = std::numeric_limits<int64_t>::max();
  const int64_t k = 3;
  std::vector<int64_t> extents = canonicalExtents(n, k);
  EXPECT_TRUE(validateExtents(n, extents, k).ok());
  EXPECT_EQ(canonicalOffset(n, k, 2), n - extents[2]);
}

TEST(SplitTest, InvalidArgumentsThrow) {
  EXPECT_THROW(canonicalExtents(-1, 2), std::invalid_argument);
  EXPECT_THROW(canonicalExtents(4, 0), std::invalid_argument);
  EXPECT_THROW(canonicalExtent(4, 2, 2), std::invalid_argument);
  EXPECT_THROW(canonicalExtent(4, 2, -1), std::invalid_argument);
  EXPECT_THROW(canonicalOffset(4, 0, 0), std::invalid_argument);
}

TEST(SplitTest, ValidateAcceptsExplicitExtents) {
  EXPECT_TRUE(validateExtents(5, {0, 5, 0}, 3).ok());
  EXPECT_TRUE(validateExtents(0, {0, 0}, 2).ok());
  EXPECT_TRUE(validateExtents(9, {1, 7, 1}, 3).ok());
}

TEST(SplitTest, ValidateRejects) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  struct Case {
    int64_t n;
    std::vector<int64_t> extents;
    int64_t count;
    const char *why;
  } cases[] = {
      {5, {2, 3}, 3, "too few extents"},
      {5, {1, 1, 3}, 2, "too many extents"},
      {5, {}, 0, "zero shards"},
      {5, {6, -1}, 2, "negative extent"},
      {5, {2, 2}, 2, "sum too small"},
      {5, {3, 3}, 2, "sum too large"},
      {5, {big, big, big}, 3, "sum overflows int64"},
      {0, {big, 1}, 2, "huge extent on empty dim"},
      {-1, {}, 1, "negative size"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.why);
    Status s = validateExtents(c.n, c.extents, c.count);
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
    EXPECT_FALSE(s.message().empty());
  }
}

TEST(SplitTest, ExtentOffsets) {
  EXPECT_EQ(extentOffsets({}), std::vector<int64_t>{});
  EXPECT_EQ(extentOffsets({3, 3, 2}), (std::vector<int64_t>{0, 3, 6}));
  EXPECT_EQ(extentOffsets({0, 4, 0, 1}), (std::vector<int64_t>{0, 0, 4, 4}));
}

} // namespace
