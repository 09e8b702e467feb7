//===- Box.cpp ------------------------------------------------------------===//

#include "shardrt/Box.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace shardrt {

static void checkWellFormed(const Box &box) {
  if (box.lo.size() != box.hi.size())
    throw std::invalid_argument(
        "box has " + std::to_string(box.lo.size()) + " lower bounds but " +
        std::to_string(box.hi.size()) + " upper bounds");
}

static void checkSameRank(const Box &a, const Box &b) {
  checkWellFormed(a);
  checkWellFormed(b);
  if (a.rank() != b.rank())
    throw std::invalid_argument("boxes of rank " + std::to_string(a.rank()) +
                                " and " + std::to_string(b.rank()) +
                                " cannot be combined");
}

bool empty(const Box &box) {
  checkWellFormed(box);
  for (size_t d = 0; d < box.rank(); ++d)
    if (box.hi[d] <= box.lo[d])
      return true;
  return false;
}

int64_t volume(const Box &box) {
  if (empty(box))
    return 0;
  int64_t v = 1;
  for (size_t d = 0; d < box.rank(); ++d) {
    // hi - lo itself can overflow for boxes spanning most of int64_t.
    if (box.lo[d] < 0 &&
        box.hi[d] > std::numeric_limits<int64_t>::max() + box.lo[d])
      throw std::overflow_error("box extent does not fit in int64_t");
    int64_t e = box.hi[d] - box.lo[d];
    if (v > std::numeric_limits<int64_t>::max() / e)
      throw std::overflow_error("box volume does not fit in int64_t");
    v *= e;
  }
  return v;
}

Box intersect(const Box &a, const Box &b) {
  checkSameRank(a, b);
  Box r;
  r.lo.resize(a.rank());
  r.hi.resize(a.rank());
  for (size_t d = 0; d < a.rank(); ++d) {
    r.lo[d] = std::max(a.lo[d], b.lo[d]);
    r.hi[d] = std::max(r.lo[d], std::min(a.hi[d], b.hi[d]));
  }
  return r;
}

bool contains(const Box &outer, const Box &inner) {
  checkSameRank(outer, inner);
  if (empty(inner))
    return true;
  for (size_t d = 0; d < inner.rank(); ++d)
    if (inner.lo[d] < outer.lo[d] || inner.hi[d] > outer.hi[d])
      return false;
  return true;
}

std::vector<Transfer> transferPlan(const std::vector<Box> &needed,
                                   const std::vector<Box> &owned) {
  // Validate everything first so that a bad box is reported even when some
  // pairs would never be intersected.
  const Box *first = !needed.empty()
                         ? &needed.front()
                         : (!owned.empty() ? &owned.front() : nullptr);
  for (const std::vector<Box> *boxes : {&needed, &owned})
    for (const Box &box : *boxes)
      checkSameRank(*first, box);

  std::vector<Transfer> plan;
  for (size_t r = 0; r < needed.size(); ++r) {
    if (empty(needed[r]))
      continue;
    for (size_t q = 0; q < owned.size(); ++q) {
      Box common = intersect(needed[r], owned[q]);
      if (!empty(common))
        plan.push_back({static_cast<int64_t>(r), static_cast<int64_t>(q),
                        std::move(common)});
    }
  }
  return plan;
}

} // namespace shardrt
