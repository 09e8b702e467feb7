//===- Box.h - N-D index boxes and transfer planning ------------*- C++ -*-===//
//
// DESIGN.md core idea 2: all data movement is planned from index intervals.
// Each rank owns a box of a value and needs a box of it; the transfer plan is
// the set of intersections needed-by-r with owned-by-q. Halo exchange,
// reshards and corner exchange are all this one computation.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_BOX_H
#define SHARDRT_BOX_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardrt {

/// A product of half-open intervals [lo[d], hi[d]). lo and hi have one entry
/// per dimension. A box with hi[d] <= lo[d] in any dimension is empty; a
/// rank-0 box is a single point (a scalar), not empty.
struct Box {
  std::vector<int64_t> lo, hi;

  std::size_t rank() const { return lo.size(); }

  friend bool operator==(const Box &a, const Box &b) {
    return a.lo == b.lo && a.hi == b.hi;
  }
  friend bool operator!=(const Box &a, const Box &b) { return !(a == b); }
};

/// True when the box holds no index.
bool empty(const Box &box);

/// Number of indices in the box (0 when empty). Throws std::overflow_error if
/// the count does not fit in int64_t.
int64_t volume(const Box &box);

/// The common indices of a and b. When they do not meet, the result is empty
/// with hi clamped to lo, so hi - lo is never negative. Throws
/// std::invalid_argument on a rank mismatch or malformed box.
Box intersect(const Box &a, const Box &b);

/// True when every index of `inner` lies in `outer` (an empty inner box is
/// contained in anything of the same rank).
bool contains(const Box &outer, const Box &inner);

/// One entry of a transfer plan: `box` moves from `owner`'s shard to
/// `needer`'s buffer. owner == needer is a local copy.
struct Transfer {
  int64_t needer;
  int64_t owner;
  Box box;

  friend bool operator==(const Transfer &a, const Transfer &b) {
    return a.needer == b.needer && a.owner == b.owner && a.box == b.box;
  }
};

/// For every needing rank r (index into `needed`) and owning rank q (index
/// into `owned`), the non-empty intersection needed[r] ∩ owned[q], ordered by
/// r then q. Self-transfers (r == q) are included so that callers see the
/// whole plan. When the owned boxes partition the domain, every needed index
/// inside the domain appears in exactly one transfer. Throws
/// std::invalid_argument when the boxes do not all have the same rank.
///
/// Quadratic in the number of ranks on purpose: plans are built once at
/// compile/load time for small meshes, and the plain loop is easy to trust.
std::vector<Transfer> transferPlan(const std::vector<Box> &needed,
                                   const std::vector<Box> &owned);

} // namespace shardrt

#endif // SHARDRT_BOX_H
