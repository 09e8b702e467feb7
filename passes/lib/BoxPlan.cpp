//===- BoxPlan.cpp - intersections of needed and owned boxes --------------===//

#include "shardc/Passes/BoxPlan.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <utility>

namespace shardc::plan {

int64_t Mesh::numRanks() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

std::vector<int64_t> Mesh::coords(int64_t rank) const {
  std::vector<int64_t> c(shape.size());
  for (size_t a = shape.size(); a-- > 0;) {
    c[a] = rank % shape[a];
    rank /= shape[a];
  }
  return c;
}

int64_t Mesh::rankAt(const std::vector<int64_t> &coords) const {
  int64_t rank = 0;
  for (size_t a = 0; a < shape.size(); ++a)
    rank = rank * shape[a] + coords[a];
  return rank;
}

std::vector<int64_t> DimSplit::extents() const {
  std::vector<int64_t> e;
  for (size_t i = 0; i + 1 < starts.size(); ++i)
    e.push_back(starts[i + 1] - starts[i]);
  return e;
}

int64_t DimSplit::shardOf(const Mesh &mesh,
                          const std::vector<int64_t> &coords) const {
  int64_t index = 0;
  for (int axis : axes)
    index = index * mesh.shape[axis] + coords[axis];
  return index;
}

std::pair<int64_t, int64_t> DimSplit::overlapping(Interval range) const {
  if (range.empty())
    return {0, 0};
  // First shard whose end is past range.lo, last whose start is before hi;
  // empty shards in between are harmless (their intersection is empty).
  auto firstEnd = std::upper_bound(starts.begin() + 1, starts.end(), range.lo);
  auto lastStart = std::lower_bound(starts.begin(), starts.end() - 1, range.hi);
  int64_t first = firstEnd - (starts.begin() + 1);
  int64_t last = lastStart - starts.begin();
  return {first, std::max(first, last)};
}

DimSplit DimSplit::majorAxes(const Mesh &mesh, size_t count) const {
  if (count >= axes.size())
    return *this;
  int64_t minorShards = 1;
  for (size_t a = count; a < axes.size(); ++a)
    minorShards *= mesh.shape[axes[a]];
  DimSplit s;
  s.axes.assign(axes.begin(), axes.begin() + count);
  for (size_t i = 0; i < starts.size(); i += minorShards)
    s.starts.push_back(starts[i]);
  return s;
}

DimSplit DimSplit::scaledBy(int64_t k) const {
  DimSplit s = *this;
  for (int64_t &b : s.starts)
    b *= k;
  return s;
}

std::optional<DimSplit> DimSplit::dividedBy(int64_t k) const {
  DimSplit s = *this;
  for (int64_t &b : s.starts) {
    if (b % k != 0)
      return std::nullopt;
    b /= k;
  }
  return s;
}

DimSplit DimSplit::fromExtents(std::vector<int> axes,
                               const std::vector<int64_t> &extents) {
  DimSplit s;
  s.axes = std::move(axes);
  s.starts.push_back(0);
  for (int64_t e : extents)
    s.starts.push_back(s.starts.back() + e);
  return s;
}

Layout Layout::replicated(const std::vector<int64_t> &shape) {
  Layout l;
  l.shape = shape;
  for (int64_t n : shape)
    l.dims.push_back(DimSplit::whole(n));
  return l;
}

Box Layout::owned(const Mesh &mesh, int64_t rank) const {
  std::vector<int64_t> c = mesh.coords(rank);
  Box box;
  for (const DimSplit &d : dims)
    box.push_back(d.shard(d.shardOf(mesh, c)));
  return box;
}

std::vector<int64_t> Layout::ownedShape(const Mesh &mesh, int64_t rank) const {
  std::vector<int64_t> s;
  for (const Interval &i : owned(mesh, rank))
    s.push_back(i.size());
  return s;
}

std::string Layout::validate(const Mesh &mesh) const {
  if (dims.size() != shape.size())
    return "layout has " + std::to_string(dims.size()) + " dims for rank " +
           std::to_string(shape.size());
  std::vector<bool> used(mesh.shape.size(), false);
  for (size_t d = 0; d < dims.size(); ++d) {
    int64_t shards = 1;
    for (int a : dims[d].axes) {
      if (a < 0 || a >= int(mesh.shape.size()) || used[a])
        return "dim " + std::to_string(d) + " names a bad or reused axis";
      used[a] = true;
      shards *= mesh.shape[a];
    }
    const std::vector<int64_t> &s = dims[d].starts;
    if (int64_t(s.size()) != shards + 1 || s.front() != 0 ||
        s.back() != shape[d])
      return "dim " + std::to_string(d) + " has inconsistent shard starts";
    for (size_t i = 1; i < s.size(); ++i)
      if (s[i] < s[i - 1])
        return "dim " + std::to_string(d) + " has a negative extent";
  }
  return "";
}

Need Need::box(const Box &box) {
  Need n;
  for (const Interval &i : box)
    n.dims.push_back({{i, 0}});
  return n;
}

bool Need::isBox(const Box &box) const {
  if (dims.size() != box.size())
    return false;
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d].size() != 1 || !(dims[d][0] == Piece{box[d], 0}))
      return false;
  return true;
}

Box Need::virtualBox() const {
  Box b;
  for (const std::vector<Piece> &pieces : dims)
    b.push_back(pieces.empty()
                    ? Interval{0, 0}
                    : Interval{pieces.front().virt.lo, pieces.back().virt.hi});
  return b;
}

std::vector<int64_t> Need::shape() const {
  std::vector<int64_t> s;
  for (const Interval &i : virtualBox())
    s.push_back(i.size());
  return s;
}

bool Need::empty() const {
  for (const Interval &i : virtualBox())
    if (i.empty())
      return true;
  return false;
}

int64_t volume(const Box &box) {
  int64_t v = 1;
  for (const Interval &i : box)
    v *= i.size();
  return v;
}

Box intersect(const Box &a, const Box &b) {
  Box r;
  for (size_t d = 0; d < a.size(); ++d) {
    int64_t lo = std::max(a[d].lo, b[d].lo), hi = std::min(a[d].hi, b[d].hi);
    r.push_back(lo < hi ? Interval{lo, hi} : Interval{0, 0});
  }
  return r;
}

namespace {

/// One dim's contribution to a move: the pieces of the need that meet one
/// shard of the owner.
struct DimHit {
  int64_t shard;
  Interval src, dst; // owner-local and buffer-local
};

std::vector<DimHit> dimHits(const DimSplit &split,
                            const std::vector<Piece> &pieces) {
  std::vector<DimHit> hits;
  if (pieces.empty())
    return hits;
  int64_t base = pieces.front().virt.lo;
  for (const Piece &p : pieces) {
    Interval real{p.virt.lo + p.shift, p.virt.hi + p.shift};
    auto [first, last] = split.overlapping(real);
    for (int64_t s = first; s < last; ++s) {
      Interval shard = split.shard(s);
      int64_t lo = std::max(shard.lo, real.lo),
              hi = std::min(shard.hi, real.hi);
      if (lo >= hi)
        continue;
      hits.push_back({s,
                      {lo - shard.lo, hi - shard.lo},
                      {lo - p.shift - base, hi - p.shift - base}});
    }
  }
  return hits;
}

} // namespace

std::vector<Move> planMoves(const Mesh &mesh, const Layout &owner,
                            const std::vector<Need> &needs) {
  assert(int64_t(needs.size()) == mesh.numRanks());
  size_t rank = owner.shape.size();
  // Ranks by the shard index they hold along each dim: a rank q holds, for
  // every dim d, shard owner.dims[d].shardOf(coords(q)). For every combination
  // of per-dim hits, the owners are the ranks whose coordinates select those
  // shards; ranks not named by any dim's axes are free (any of them owns the
  // box), and we take the one closest to the receiver: its own coordinates.
  std::vector<Move> moves;
  for (int64_t to = 0; to < int64_t(needs.size()); ++to) {
    const Need &need = needs[to];
    if (need.dims.size() != rank || need.empty())
      continue;
    std::vector<std::vector<DimHit>> hits;
    for (size_t d = 0; d < rank; ++d)
      hits.push_back(dimHits(owner.dims[d], need.dims[d]));
    std::vector<int64_t> toCoords = mesh.coords(to);
    std::map<int64_t, int> tags; // per sender
    std::vector<size_t> idx(rank, 0);
    bool done = false;
    for (size_t d = 0; d < rank; ++d)
      done = done || hits[d].empty();
    while (!done) {
      std::vector<int64_t> coords = toCoords;
      Move m;
      m.to = to;
      for (size_t d = 0; d < rank; ++d) {
        const DimHit &h = hits[d][idx[d]];
        const DimSplit &split = owner.dims[d];
        // Decompose the shard index into the axes' coordinates.
        int64_t s = h.shard;
        for (size_t a = split.axes.size(); a-- > 0;) {
          coords[split.axes[a]] = s % mesh.shape[split.axes[a]];
          s /= mesh.shape[split.axes[a]];
        }
        m.src.push_back(h.src);
        m.dst.push_back(h.dst);
      }
      m.from = mesh.rankAt(coords);
      m.tag = tags[m.from]++;
      moves.push_back(std::move(m));
      // Next combination (odometer, last dim fastest).
      size_t d = rank;
      while (d-- > 0) {
        if (++idx[d] < hits[d].size())
          break;
        idx[d] = 0;
      }
      done = d == size_t(-1);
    }
  }
  std::stable_sort(moves.begin(), moves.end(),
                   [](const Move &a, const Move &b) {
                     return a.to != b.to ? a.to < b.to : a.from < b.from;
                   });
  return moves;
}

} // namespace shardc::plan
