//===- IntListTest.cpp - Copy-on-write instruction ints -------------------===//

#include "shardrt/artifact/IntList.h"
#include "shardrt/artifact/ArtifactWriter.h"

#include "TestArtifacts.h"

#include <gtest/gtest.h>

#include <vector>

namespace shardrt::artifact {
namespace {

using Ints = std::vector<int64_t>;

TEST(IntListTest, CopiesShareOneListUntilWritten) {
  IntList a{1, 2, 3};
  IntList b = a;
  EXPECT_TRUE(b.sharesStorageWith(a));
  EXPECT_EQ(b.data(), a.data());

  b.push_back(4);
  EXPECT_FALSE(b.sharesStorageWith(a));
  EXPECT_EQ(a.vector(), (Ints{1, 2, 3}));
  EXPECT_EQ(b.vector(), (Ints{1, 2, 3, 4}));

  IntList c = a;
  c.set(0, 7);
  EXPECT_EQ(a.vector(), (Ints{1, 2, 3}));
  EXPECT_EQ(c.vector(), (Ints{7, 2, 3}));

  IntList d = a;
  d.pop_back();
  EXPECT_EQ(a.vector(), (Ints{1, 2, 3}));
  EXPECT_EQ(d.vector(), (Ints{1, 2}));
}

TEST(IntListTest, InsertAtAPositionOfASharedListWritesOnlyTheCopy) {
  // The partitioner's pattern, `ints.insert(ints.end(), ...)`: the position
  // points into storage still shared with others, which the write then
  // leaves for a copy of its own; the position must count in the new one.
  IntList shared{0, 1};
  IntList copy = shared;
  const int64_t *end = copy.end();
  ASSERT_EQ(end, shared.end()); // reading did not copy
  std::vector<int64_t> extents{5, 6, 7};
  EXPECT_EQ(copy.insert(end, extents.begin(), extents.end()), 2u);
  EXPECT_EQ(shared.vector(), (Ints{0, 1}));
  EXPECT_EQ(copy.vector(), (Ints{0, 1, 5, 6, 7}));

  IntList middle = copy;
  EXPECT_EQ(middle.insert(middle.begin() + 1, size_t(2), int64_t(9)), 1u);
  EXPECT_EQ(middle.vector(), (Ints{0, 9, 9, 1, 5, 6, 7}));
  EXPECT_EQ(copy.vector(), (Ints{0, 1, 5, 6, 7}));
}

TEST(IntListTest, ReadingACopyDoesNotCopyIt) {
  IntList a{1, 2, 3};
  IntList b = a;
  int64_t sum = 0;
  for (int64_t v : b) // b is not const: still read in place
    sum += v;
  EXPECT_EQ(sum, 6);
  EXPECT_EQ(b[2], 3);
  EXPECT_TRUE(b.sharesStorageWith(a));
}

TEST(IntListTest, EmptyAndAssigned) {
  IntList none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.data(), nullptr);
  EXPECT_EQ(none.begin(), none.end());
  EXPECT_TRUE(none.vector().empty());
  EXPECT_FALSE(none.sharesStorageWith(IntList()));
  IntList inserted;
  Ints two{4, 5};
  inserted.insert(inserted.end(), two.begin(), two.end());
  EXPECT_EQ(inserted.vector(), two);
  none.push_back(3);
  EXPECT_EQ(none.vector(), (Ints{3}));

  IntList a{1, 2};
  IntList b = a;
  Ints source{4, 5, 6};
  b.assign(source.begin(), source.end());
  EXPECT_EQ(a.vector(), (Ints{1, 2}));
  EXPECT_EQ(b.vector(), source);
  b.clear();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(a.vector(), (Ints{1, 2}));
}

TEST(IntListTest, EqualityIsByContent) {
  IntList a{1, 2}, b{1, 2}, c{1, 3};
  EXPECT_EQ(a, b);
  EXPECT_FALSE(a.sharesStorageWith(b));
  EXPECT_NE(a, c);
  EXPECT_EQ(IntList(), IntList{});
  EXPECT_NE(IntList(), IntList{0});
}

TEST(IntListTest, InstructionCopiesKeepTheirOwnInts) {
  // What a pass that copies an instruction and edits the copy relies on.
  InstructionSpec inst;
  inst.ints = {2, 4, 4};
  InstructionSpec other = inst;
  other.ints.set(0, 1);
  EXPECT_EQ(inst.ints.vector(), (Ints{2, 4, 4}));
  EXPECT_EQ(other.ints.vector(), (Ints{1, 4, 4}));
}

TEST(IntListTest, AWriterCopyEditsNotTheOriginal) {
  // A copied writer shares every instruction's ints with the original; an
  // edit to the copy must leave the original's bytes as they were.
  ArtifactWriter original = test::richWriter();
  std::vector<uint8_t> before = original.serializeUnchecked();
  ArtifactWriter copy = original;
  InstructionSpec &conv =
      copy.rankClass(test::rich::kTopClass).program[test::rich::kConvInst];
  ASSERT_FALSE(conv.ints.empty());
  EXPECT_TRUE(
      conv.ints.sharesStorageWith(original.rankClass(test::rich::kTopClass)
                                      .program[test::rich::kConvInst]
                                      .ints));
  conv.ints.set(0, conv.ints[0] + 1);
  EXPECT_EQ(original.serializeUnchecked(), before);
  EXPECT_NE(copy.serializeUnchecked(), before);
}

} // namespace
} // namespace shardrt::artifact
