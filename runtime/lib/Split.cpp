//===- Split.cpp ----------------------------------------------------------===//

#include "shardrt/Split.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace shardrt {

static void checkSplitArgs(int64_t n, int64_t k) {
  if (n < 0)
    throw std::invalid_argument("split: dimension size must be >= 0, got " +
                                std::to_string(n));
  if (k < 1)
    throw std::invalid_argument("split: shard count must be >= 1, got " +
                                std::to_string(k));
}

static void checkShardIndex(int64_t k, int64_t i) {
  if (i < 0 || i >= k)
    throw std::invalid_argument("split: shard index " + std::to_string(i) +
                                " outside [0, " + std::to_string(k) + ")");
}

int64_t canonicalExtent(int64_t n, int64_t k, int64_t i) {
  checkSplitArgs(n, k);
  checkShardIndex(k, i);
  return n / k + (i < n % k ? 1 : 0);
}

int64_t canonicalOffset(int64_t n, int64_t k, int64_t i) {
  checkSplitArgs(n, k);
  checkShardIndex(k, i);
  // i * (n / k) <= n, so nothing here can overflow.
  return i * (n / k) + std::min(i, n % k);
}

std::vector<int64_t> canonicalExtents(int64_t n, int64_t k) {
  checkSplitArgs(n, k);
  std::vector<int64_t> extents(static_cast<size_t>(k), n / k);
  for (int64_t i = 0, e = n % k; i < e; ++i)
    ++extents[static_cast<size_t>(i)];
  return extents;
}

Status validateExtents(int64_t n, const std::vector<int64_t> &extents,
                       int64_t expectedCount) {
  if (n < 0)
    return Status::invalidArgument("dimension size must be >= 0, got " +
                                   std::to_string(n));
  if (expectedCount < 1)
    return Status::invalidArgument("shard count must be >= 1, got " +
                                   std::to_string(expectedCount));
  if (static_cast<int64_t>(extents.size()) != expectedCount)
    return Status::invalidArgument("expected " + std::to_string(expectedCount) +
                                   " extents, got " +
                                   std::to_string(extents.size()));
  // Comparing against what is left of n instead of summing keeps arbitrary
  // (hostile) extents from overflowing.
  int64_t remaining = n;
  for (size_t i = 0; i < extents.size(); ++i) {
    int64_t e = extents[i];
    if (e < 0)
      return Status::invalidArgument("extent " + std::to_string(i) + " is " +
                                     std::to_string(e) + ", must be >= 0");
    if (e > remaining)
      return Status::invalidArgument(
          "extents exceed the dimension size " + std::to_string(n) +
          " at extent " + std::to_string(i) + " (" + std::to_string(e) + ")");
    remaining -= e;
  }
  if (remaining != 0)
    return Status::invalidArgument("extents sum to " +
                                   std::to_string(n - remaining) +
                                   ", dimension size is " + std::to_string(n));
  return Status();
}

std::vector<int64_t> extentOffsets(const std::vector<int64_t> &extents) {
  std::vector<int64_t> offsets(extents.size());
  int64_t running = 0;
  for (size_t i = 0; i < extents.size(); ++i) {
    offsets[i] = running;
    running += extents[i];
  }
  return offsets;
}

} // namespace shardrt
