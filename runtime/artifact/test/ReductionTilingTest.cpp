//===- ReductionTilingTest.cpp - Which side of a reduction is contiguous --===//

#include "shardrt/artifact/ReductionTiling.h"

#include <gtest/gtest.h>

#include <vector>

namespace shardrt::artifact {
namespace {

constexpr ReductionTiling kRow = ReductionTiling::RowPerBlock;
constexpr ReductionTiling kTiles = ReductionTiling::OutputTiles;

TEST(ReductionTiling, TheInnermostDimDecides) {
  // softmax over the last dim, group_norm's statistics: elements contiguous.
  EXPECT_EQ(reductionTiling({4, 1024}, {false, true}), kRow);
  EXPECT_EQ(
      reductionTiling({1, 8, 4, 64, 64}, {false, false, true, true, true}),
      kRow);
  // softmax over NCHW's channels, a mean over the batch: outputs contiguous.
  EXPECT_EQ(reductionTiling({1, 64, 128, 128}, {false, true, false, false}),
            kTiles);
  EXPECT_EQ(reductionTiling({256, 1024}, {true, false}), kTiles);
  // Non-adjacent reduced dims: the innermost (kept) one decides.
  EXPECT_EQ(reductionTiling({64, 3, 64, 5}, {true, false, true, false}),
            kTiles);
}

TEST(ReductionTiling, DimsOfExtentOneDoNotDecide) {
  // Reducing dim 0 of (1024, 1) reads contiguous elements: the trailing 1
  // is no side of the layout.
  EXPECT_EQ(reductionTiling({1024, 1}, {true, false}), kRow);
  EXPECT_EQ(reductionTiling({4, 1024, 1, 1}, {false, true, false, true}), kRow);
  EXPECT_EQ(reductionTiling({1024, 4, 1}, {true, false, true}), kTiles);
}

TEST(ReductionTiling, SmallReductionsUseTilesWhicheverSideIsContiguous) {
  // A row block would leave at least 7 of every 8 threads idle.
  EXPECT_EQ(reductionTiling({100000, 32}, {false, true}), kTiles);
  EXPECT_EQ(reductionTiling({100000, 33}, {false, true}), kRow);
  EXPECT_EQ(reductionTiling({100000, 4, 8}, {false, true, true}), kTiles);
  // Nothing reduced (one element per output), or nothing at all.
  EXPECT_EQ(reductionTiling({8, 8}, {false, false}), kTiles);
  EXPECT_EQ(reductionTiling({8, 0, 8}, {false, true, true}), kTiles);
  EXPECT_EQ(reductionTiling({}, {}), kTiles);
}

} // namespace
} // namespace shardrt::artifact
