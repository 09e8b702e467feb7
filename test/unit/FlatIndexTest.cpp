//===- FlatIndexTest.cpp - Generated-kernel indices against brute force ---===//

#include "shardc/Compiler/FlatIndex.h"
#include "IndexOracle.h"

#include <gtest/gtest.h>

#include <random>

using namespace shardc;

namespace {

using oracle::count;
using oracle::flatten;
using oracle::Shape;
using oracle::unflatten;

Shape randomShape(std::mt19937 &rng, size_t rank) {
  std::uniform_int_distribution<int64_t> extent(1, 4);
  Shape s(rank);
  for (int64_t &e : s)
    e = extent(rng);
  return s;
}

TEST(FlatIndex, SubspaceMatchesBruteForce) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 500; ++trial) {
    Shape domain = randomShape(rng, 1 + rng() % 5);
    Shape dims, sub;
    for (size_t d = 0; d < domain.size(); ++d)
      if (rng() % 2) {
        dims.push_back(int64_t(d));
        sub.push_back(domain[d]);
      }
    FlatIndex index = subspaceIndex(domain, dims);
    // The k-th element of the sub-space, the other dims held at a random
    // position (the index adds to their base).
    Shape base = unflatten(int64_t(rng() % count(domain)), domain);
    for (int64_t d : dims)
      base[d] = 0;
    for (int64_t k = 0; k < count(sub); ++k) {
      Shape at = unflatten(k, sub), idx = base;
      for (size_t j = 0; j < dims.size(); ++j)
        idx[dims[j]] = at[j];
      ASSERT_EQ(flatten(base, domain) + evaluate(index, k),
                flatten(idx, domain))
          << "trial " << trial << " element " << k << ": " << print(index, "k");
    }
  }
}

TEST(FlatIndex, BroadcastMatchesBruteForce) {
  std::mt19937 rng(12);
  for (int trial = 0; trial < 500; ++trial) {
    Shape output = randomShape(rng, 1 + rng() % 5);
    // Drop leading dims, and set some of the rest to 1.
    Shape input(output.begin() + rng() % output.size(), output.end());
    for (int64_t &e : input)
      if (rng() % 3 == 0)
        e = 1;
    FlatIndex index = broadcastIndex(input, output);
    for (int64_t i = 0; i < count(output); ++i) {
      ASSERT_EQ(evaluate(index, i),
                oracle::broadcastRead(input, output, unflatten(i, output)))
          << "trial " << trial << " element " << i << ": " << print(index, "i");
    }
  }
}

TEST(FlatIndex, FoldsContiguousDimsAndOutermostModulus) {
  // A group norm's reduction over (channels of a group, elements).
  EXPECT_EQ(print(subspaceIndex({8, 4, 307200}, {1, 2}), "r"), "r");
  EXPECT_EQ(print(subspaceIndex({8, 4, 307200}, {0}), "o"), "o * 1228800LL");
  // A per-channel input of (8, 4, 300, 1024): one term, no modulus.
  EXPECT_EQ(print(broadcastIndex({8, 4, 1, 1}, {8, 4, 300, 1024}), "i"),
            "(i / 307200LL)");
  // A per-group input of (2, 8, 4, 5): the batch dim keeps a modulus.
  EXPECT_EQ(print(broadcastIndex({8, 1, 1}, {2, 8, 4, 5}), "i"),
            "(i / 20LL % 8LL)");
  // Two terms: a broadcast dim between kept ones.
  EXPECT_EQ(print(broadcastIndex({2, 1, 5}, {2, 3, 5}), "i"),
            "(i / 15LL) * 5LL + (i % 5LL)");
  EXPECT_EQ(print(broadcastIndex({4, 5}, {4, 5}), "i"), "i");
  EXPECT_EQ(print(broadcastIndex({4, 0}, {4, 0}), "i"), "0LL");
  EXPECT_EQ(print(broadcastIndex({1}, {4, 5}), "i"), "0LL");
}

} // namespace
