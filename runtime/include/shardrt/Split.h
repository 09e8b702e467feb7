//===- Split.h - The canonical split of a dimension over shards -*- C++ -*-===//
//
// DESIGN.md core idea 3: unless extents are given explicitly, a dimension of
// size n over k shards is split like numpy.array_split (the first n mod k
// shards get ceil(n/k), the rest floor(n/k)). The compiler and the runtime
// must agree on this to the element, so both use these functions.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_SPLIT_H
#define SHARDRT_SPLIT_H

#include "shardrt/Status.h"

#include <cstdint>
#include <vector>

namespace shardrt {

/// Extent of shard `i` of the canonical split of `n` over `k` shards, without
/// materialising all k extents. Throws std::invalid_argument unless n >= 0,
/// k >= 1 and 0 <= i < k.
int64_t canonicalExtent(int64_t n, int64_t k, int64_t i);

/// Start of shard `i` in the canonical split (same preconditions).
int64_t canonicalOffset(int64_t n, int64_t k, int64_t i);

/// All k extents of the canonical split. Throws std::invalid_argument unless
/// n >= 0 and k >= 1.
std::vector<int64_t> canonicalExtents(int64_t n, int64_t k);

/// Checks explicit extents: exactly `expectedCount` (>= 1) of them, each
/// non-negative, summing to n. Empty shards are allowed. Never overflows,
/// whatever the values.
Status validateExtents(int64_t n, const std::vector<int64_t> &extents,
                       int64_t expectedCount);

/// Exclusive prefix sums: result[i] is the offset of shard i (same length as
/// `extents`; result[0] == 0 when non-empty).
std::vector<int64_t> extentOffsets(const std::vector<int64_t> &extents);

} // namespace shardrt

#endif // SHARDRT_SPLIT_H
