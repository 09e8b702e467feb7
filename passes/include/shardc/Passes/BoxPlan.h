//===- BoxPlan.h - who sends which box to whom --------------------*- C++
//-*-===//
//
// The partitioner's data movement, planned from index intervals (DESIGN.md,
// core idea 2). Every rank owns a box of a value; every rank needs a box of
// it (the windows of the outputs it computes, or the box a reshard gives it).
// The moves are the intersections needed-by-r with owned-by-q. Halo
// exchanges of any width (multi-hop), uneven shards, corners of N-D meshes,
// gathers and reshards all come out of this one computation.
//
// Plain C++ without MLIR, so it is tested against brute force directly.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_BOXPLAN_H
#define SHARDC_PASSES_BOXPLAN_H

#include "shardc/Dialect/Sc/WindowMath.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardc::plan {

using sc::Interval;
/// One half-open interval per tensor dimension.
using Box = std::vector<Interval>;

/// Devices laid out row-major over named axes (the last varies fastest).
struct Mesh {
  std::vector<int64_t> shape;

  int64_t numRanks() const;
  std::vector<int64_t> coords(int64_t rank) const;
  int64_t rankAt(const std::vector<int64_t> &coords) const;
};

/// How one tensor dimension is split: over `axes` (major to minor) into
/// shards whose boundaries are `starts` (shards + 1 entries, starts[0] = 0,
/// non-decreasing, back() = the dim size). No axes: one shard.
struct DimSplit {
  std::vector<int> axes;
  std::vector<int64_t> starts;

  int64_t numShards() const { return int64_t(starts.size()) - 1; }
  Interval shard(int64_t i) const { return {starts[i], starts[i + 1]}; }
  std::vector<int64_t> extents() const;
  /// Shard index of the rank at `coords`.
  int64_t shardOf(const Mesh &mesh, const std::vector<int64_t> &coords) const;
  /// Shards whose interval intersects [lo, hi), as [first, last).
  std::pair<int64_t, int64_t> overlapping(Interval range) const;

  /// The same split over its first `count` axes only: each of their
  /// shards is the union of the shards the dropped minor axes told apart.
  DimSplit majorAxes(const Mesh &mesh, size_t count) const;

  /// The split of a dim `k` times finer (every boundary times k), and back:
  /// none unless every boundary is a multiple of k.
  DimSplit scaledBy(int64_t k) const;
  std::optional<DimSplit> dividedBy(int64_t k) const;

  static DimSplit whole(int64_t size) { return {{}, {0, size}}; }
  bool operator==(const DimSplit &other) const {
    return axes == other.axes && starts == other.starts;
  }
  bool operator!=(const DimSplit &other) const { return !(*this == other); }
  static DimSplit fromExtents(std::vector<int> axes,
                              const std::vector<int64_t> &extents);
};

/// Where every element of a (non-partial) tensor lives.
struct Layout {
  std::vector<int64_t> shape;
  std::vector<DimSplit> dims;

  static Layout replicated(const std::vector<int64_t> &shape);
  Box owned(const Mesh &mesh, int64_t rank) const;
  std::vector<int64_t> ownedShape(const Mesh &mesh, int64_t rank) const;
  /// "" when consistent with `mesh` and `shape`, else why not.
  std::string validate(const Mesh &mesh) const;
};

/// One dimension of a buffer a rank assembles: the contiguous virtual range
/// it covers, in pieces that each read real indices `virt + shift` (shift is
/// a multiple of the dim size for periodic wrap-around, 0 otherwise). The
/// pieces are sorted and tile the range.
struct Piece {
  Interval virt;
  int64_t shift = 0;

  bool operator==(const Piece &other) const {
    return virt == other.virt && shift == other.shift;
  }
};
struct Need {
  std::vector<std::vector<Piece>> dims;

  /// A need without wrap-around: one piece per dim.
  static Need box(const Box &box);
  /// Whether this is Need::box(box), compared in place.
  bool isBox(const Box &box) const;
  Box virtualBox() const;
  std::vector<int64_t> shape() const;
  bool empty() const;
  bool operator==(const Need &other) const { return dims == other.dims; }
  bool operator!=(const Need &other) const { return !(*this == other); }
};

/// One box moving from rank `from` (in its owned buffer's coordinates) to
/// rank `to` (in its assembled buffer's coordinates). `tag` tells apart the
/// boxes one rank sends another within one exchange.
struct Move {
  int64_t from = 0, to = 0;
  Box src, dst;
  int tag = 0;
};

/// Every move that assembles `needs[r]` on every rank r from `owner`'s
/// shards, self moves included (from == to). Ordered by (to, from, piece).
std::vector<Move> planMoves(const Mesh &mesh, const Layout &owner,
                            const std::vector<Need> &needs);

/// Bytes-free summary used by plans and tests: element count of a box.
int64_t volume(const Box &box);
Box intersect(const Box &a, const Box &b);

} // namespace shardc::plan

#endif // SHARDC_PASSES_BOXPLAN_H
