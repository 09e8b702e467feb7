//===- RingIntsTest.cpp - The ints of a RingAttention ---------------------===//
//
// The layout the compiler writes and the loader, the prepare step and the
// scl reader read (ringAttentionInts, ringIntsLayout, ringStartsProblem):
// written lists read back to the same places, and malformed ones refused
// with what is wrong.
//
//===----------------------------------------------------------------------===//

#include "shardrt/artifact/Artifact.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace shardrt;
using namespace shardrt::artifact;

namespace {

const std::vector<int64_t> kMesh = {2, 3};

StatusOr<RingIntsLayout> layoutOf(const std::vector<int64_t> &ints,
                                  uint64_t members) {
  return ringIntsLayout([&](size_t i) { return ints.at(i); }, ints.size(),
                        members, kMesh);
}

std::string problemOf(const std::vector<int64_t> &ints, const char *what) {
  return ringStartsProblem([&](size_t i) { return ints.at(i); }, 0, ints.size(),
                           what);
}

/// The message of a refused layout ("" when it was accepted).
std::string refusal(const std::vector<int64_t> &ints, uint64_t members) {
  StatusOr<RingIntsLayout> l = layoutOf(ints, members);
  return l.ok() ? "" : l.status().message();
}

TEST(RingInts, ACausalRingReadsBackWhereItWasWritten) {
  // Keys over both axes (6 members), queries over axis 1 (3 members).
  std::vector<int64_t> keys = {0, 1, 1, 4, 6, 6, 9}, queries = {0, 2, 5, 9};
  std::vector<int64_t> ints =
      ringAttentionInts({true, true, false, true}, {1}, queries, keys);
  EXPECT_EQ(ints.size(), 5u + 1 + 4 + 7);
  EXPECT_EQ(ints.back(), 9); // the number of keys comes last
  StatusOr<RingIntsLayout> l = layoutOf(ints, 6);
  ASSERT_TRUE(l.ok()) << l.status().toString();
  EXPECT_TRUE(l->flags.causal && l->flags.mask && l->flags.valuesAreKeys);
  EXPECT_FALSE(l->flags.valuesWhole);
  ASSERT_EQ(l->queryAxes, 1u);
  EXPECT_EQ(ints[l->queryAxesAt], 1);
  EXPECT_EQ(
      std::vector<int64_t>(ints.begin() + l->queryStartsAt,
                           ints.begin() + l->queryStartsAt + l->queryStarts),
      queries);
  EXPECT_EQ(std::vector<int64_t>(ints.begin() + l->keyStartsAt,
                                 ints.begin() + l->keyStartsAt + l->keyStarts),
            keys);
}

TEST(RingInts, ARingThatIsNotCausalCarriesNoQuerySplit) {
  std::vector<int64_t> keys = {0, 3, 5};
  std::vector<int64_t> ints = ringAttentionInts({}, {1}, {0, 2, 5, 9}, keys);
  EXPECT_EQ(ints, (std::vector<int64_t>{0, 0, 0, 0, 0, 0, 3, 5}));
  StatusOr<RingIntsLayout> l = layoutOf(ints, 2);
  ASSERT_TRUE(l.ok()) << l.status().toString();
  EXPECT_EQ(l->queryAxes, 0u);
  EXPECT_EQ(l->queryStarts, 0u);
  EXPECT_EQ(l->keyStartsAt, 5u);
}

TEST(RingInts, WholeQueriesAreASplitOverNoAxes) {
  std::vector<int64_t> ints =
      ringAttentionInts({true, false, false, false}, {}, {0, 7}, {0, 3, 5});
  StatusOr<RingIntsLayout> l = layoutOf(ints, 2);
  ASSERT_TRUE(l.ok()) << l.status().toString();
  EXPECT_EQ(l->queryAxes, 0u);
  EXPECT_EQ(l->queryStarts, 2u);
  EXPECT_EQ(ints[l->queryStartsAt + 1], 7);
}

TEST(RingInts, MalformedLayoutsAreRefused) {
  EXPECT_EQ(refusal({0, 0, 0, 0}, 1), "has 4 ints; a ring takes at least 5");
  EXPECT_EQ(refusal({0, 2, 0, 0, 0, 0, 5}, 1), "flag 1 is 2; flags are 0 or 1");
  // A count of query axes that is negative, huge, past the mesh's, or on a
  // ring that is not causal.
  for (int64_t axes : {int64_t(-1), INT64_MAX, int64_t(3)})
    EXPECT_NE(refusal({1, 0, 0, 0, axes, 0, 5}, 1)
                  .find("query axes; a causal "
                        "ring names at most "
                        "the mesh's 2"),
              std::string::npos)
        << axes;
  EXPECT_NE(refusal({0, 0, 0, 0, 1, 0, 0, 5}, 1).find("others none"),
            std::string::npos);
  EXPECT_EQ(refusal({1, 0, 0, 0, 2, 0}, 1),
            "has 6 ints; its 2 query axes need more");
  EXPECT_EQ(refusal({1, 0, 0, 0, 2, 1, 1, 0, 1, 2, 3, 0, 5}, 1),
            "has query axes that are not distinct mesh axes");
  EXPECT_EQ(refusal({1, 0, 0, 0, 1, 2, 0, 1, 2, 3, 0, 5}, 1),
            "has query axes that are not distinct mesh axes");
  // Axis 0 has 2 members: 3 query starts, then 1 + 1 key starts.
  EXPECT_EQ(refusal({1, 0, 0, 0, 1, 0, 0, 1, 2, 3, 0, 5}, 1),
            "has 12 ints; a ring of 1 members takes 5, 1 query axes, 3 query "
            "starts and 2 key starts");
  EXPECT_EQ(refusal({1, 0, 0, 0, 1, 0, 0, 1, 2, 0, 5}, 1), "");
}

TEST(RingInts, StartsMustBeASplit) {
  EXPECT_EQ(problemOf({0, 2, 2, 5}, "key"), "");
  EXPECT_EQ(problemOf({1, 2, 5}, "key"), "key starts must begin at 0");
  EXPECT_EQ(problemOf({0, 3, 2, 5}, "query"),
            "query starts decrease at member 1");
  EXPECT_EQ(problemOf({0, (int64_t(1) << 52) + 1}, "key"),
            "key starts pass 2^52");
  EXPECT_EQ(problemOf({0, int64_t(1) << 52}, "key"), "");
}

} // namespace
