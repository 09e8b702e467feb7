//===- BoxPlanTest.cpp - The interval planner against brute force ---------===//
//
// Part of the shardc project.
//
//===----------------------------------------------------------------------===//
//
// planMoves() is checked element by element: for every rank, every element
// of the buffer it assembles is mapped (virtual coordinate -> piece -> real
// index) by an oracle written here, and the moves must deliver each element
// exactly once, from a rank that really owns it, at the right place on both
// sides. Ownership is recomputed here from the shard starts, without the
// library's Mesh / DimSplit / Layout helpers.
//
//===----------------------------------------------------------------------===//

#include "shardc/Passes/BoxPlan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

using namespace shardc::plan;

namespace {

using Rng = std::mt19937_64;

int64_t uniform(Rng &rng, int64_t lo, int64_t hi) { // inclusive
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

bool chance(Rng &rng, double p) {
  return std::uniform_real_distribution<double>(0, 1)(rng) < p;
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

//===----------------------------------------------------------------------===//
// Printing (failure messages only)
//===----------------------------------------------------------------------===//

std::string str(const Interval &i) {
  return "[" + std::to_string(i.lo) + "," + std::to_string(i.hi) + ")";
}

std::string str(const Box &b) {
  std::string s;
  for (const Interval &i : b)
    s += str(i);
  return s.empty() ? "<>" : s;
}

template <typename T> std::string str(const std::vector<T> &v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s + "}";
}

std::string describe(const Mesh &mesh, const Layout &layout,
                     const std::vector<Need> &needs) {
  std::ostringstream os;
  os << "mesh " << str(mesh.shape) << " shape " << str(layout.shape) << "\n";
  for (size_t d = 0; d < layout.dims.size(); ++d)
    os << "  dim " << d << " axes " << str(layout.dims[d].axes) << " starts "
       << str(layout.dims[d].starts) << "\n";
  for (size_t r = 0; r < needs.size(); ++r) {
    os << "  need[" << r << "]";
    for (const std::vector<Piece> &pieces : needs[r].dims) {
      os << " {";
      for (const Piece &p : pieces)
        os << str(p.virt) << (p.shift ? "+" + std::to_string(p.shift) : "");
      os << "}";
    }
    os << "\n";
  }
  return os.str();
}

std::string describe(const Move &m) {
  return std::to_string(m.from) + "->" + std::to_string(m.to) + " src " +
         str(m.src) + " dst " + str(m.dst) + " tag " + std::to_string(m.tag);
}

//===----------------------------------------------------------------------===//
// Oracle
//===----------------------------------------------------------------------===//

/// Mesh coordinates of `rank`, via explicit strides (first axis slowest).
std::vector<int64_t> refCoords(const std::vector<int64_t> &shape,
                               int64_t rank) {
  std::vector<int64_t> c(shape.size());
  for (size_t a = 0; a < shape.size(); ++a) {
    int64_t stride = 1;
    for (size_t b = a + 1; b < shape.size(); ++b)
      stride *= shape[b];
    c[a] = (rank / stride) % shape[a];
  }
  return c;
}

int64_t refNumRanks(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

/// The box rank `rank` owns: per dim, the shard whose index is the
/// mixed-radix number formed by the rank's coordinates on the dim's axes.
Box refOwned(const Mesh &mesh, const Layout &layout, int64_t rank) {
  std::vector<int64_t> c = refCoords(mesh.shape, rank);
  Box box;
  for (const DimSplit &d : layout.dims) {
    int64_t index = 0, weight = 1;
    for (size_t i = d.axes.size(); i-- > 0;) {
      index += c[d.axes[i]] * weight;
      weight *= mesh.shape[d.axes[i]];
    }
    box.push_back({d.starts[index], d.starts[index + 1]});
  }
  return box;
}

/// Checks `moves` against brute force; returns "" or the first problem.
std::string checkPlan(const Mesh &mesh, const Layout &layout,
                      const std::vector<Need> &needs,
                      const std::vector<Move> &moves) {
  int64_t ranks = refNumRanks(mesh.shape);
  size_t rank = layout.shape.size();
  std::vector<Box> owned;
  for (int64_t q = 0; q < ranks; ++q)
    owned.push_back(refOwned(mesh, layout, q));
  std::vector<bool> axisUsed(mesh.shape.size(), false);
  for (const DimSplit &d : layout.dims)
    for (int a : d.axes)
      axisUsed[a] = true;

  // Sorted by (to, from); tags distinct per (from, to); no empty boxes.
  std::set<std::tuple<int64_t, int64_t, int>> tags;
  for (size_t i = 0; i < moves.size(); ++i) {
    const Move &m = moves[i];
    if (m.from < 0 || m.from >= ranks || m.to < 0 || m.to >= ranks)
      return "rank out of range: " + describe(m);
    if (i > 0 && std::make_pair(moves[i - 1].to, moves[i - 1].from) >
                     std::make_pair(m.to, m.from))
      return "moves not sorted by (to, from) at " + describe(m);
    if (!tags.insert({m.from, m.to, m.tag}).second)
      return "duplicate tag: " + describe(m);
    if (m.src.size() != rank || m.dst.size() != rank)
      return "box rank mismatch: " + describe(m);
    for (size_t d = 0; d < rank; ++d)
      if (m.src[d].size() != m.dst[d].size())
        return "src/dst sizes differ: " + describe(m);
    if (volume(m.src) <= 0 || volume(m.dst) <= 0)
      return "empty move: " + describe(m);
    std::vector<int64_t> cf = refCoords(mesh.shape, m.from),
                         ct = refCoords(mesh.shape, m.to);
    for (size_t a = 0; a < mesh.shape.size(); ++a)
      if (!axisUsed[a] && cf[a] != ct[a])
        return "sender not the closest owner (axis " + std::to_string(a) +
               "): " + describe(m);
  }

  for (int64_t to = 0; to < ranks; ++to) {
    const Need &need = needs[to];
    // Per dim: the buffer's virtual range and each position's real index.
    std::vector<int64_t> base(rank), extent(rank);
    std::vector<std::vector<int64_t>> realOf(rank);
    int64_t bufVolume = 1;
    for (size_t d = 0; d < rank; ++d) {
      const std::vector<Piece> &pieces = need.dims[d];
      if (pieces.empty() || pieces.front().virt.lo >= pieces.back().virt.hi) {
        extent[d] = 0;
      } else {
        base[d] = pieces.front().virt.lo;
        extent[d] = pieces.back().virt.hi - base[d];
        for (int64_t v = base[d]; v < base[d] + extent[d]; ++v) {
          int64_t real = -1;
          for (const Piece &p : pieces)
            if (p.virt.lo <= v && v < p.virt.hi)
              real = v + p.shift;
          if (real < 0 || real >= layout.shape[d])
            return "test bug: need maps outside the tensor";
          realOf[d].push_back(real);
        }
      }
      bufVolume *= extent[d];
    }
    std::vector<int> count(bufVolume, 0);
    int64_t moved = 0;
    for (const Move &m : moves) {
      if (m.to != to)
        continue;
      for (size_t d = 0; d < rank; ++d) {
        if (m.dst[d].lo < 0 || m.dst[d].hi > extent[d])
          return "dst outside the buffer: " + describe(m);
        if (m.src[d].lo < 0 || m.src[d].hi > owned[m.from][d].size())
          return "src outside the sender's shard: " + describe(m);
      }
      moved += volume(m.dst);
      // Every element of the dst box, last dim fastest.
      std::vector<int64_t> off(rank, 0);
      while (true) {
        int64_t linear = 0;
        for (size_t d = 0; d < rank; ++d) {
          int64_t pos = m.dst[d].lo + off[d];
          int64_t real = realOf[d][pos];
          int64_t srcReal = owned[m.from][d].lo + m.src[d].lo + off[d];
          if (srcReal != real)
            return "dim " + std::to_string(d) + ": buffer position " +
                   std::to_string(pos) + " wants real " + std::to_string(real) +
                   " but gets " + std::to_string(srcReal) + ": " + describe(m);
          if (real < owned[m.from][d].lo || real >= owned[m.from][d].hi)
            return "sender does not own the element: " + describe(m);
          linear = linear * extent[d] + pos;
        }
        ++count[linear];
        size_t d = rank;
        while (d-- > 0) {
          if (++off[d] < m.dst[d].size())
            break;
          off[d] = 0;
        }
        if (d == size_t(-1))
          break;
      }
    }
    if (moved != bufVolume)
      return "rank " + std::to_string(to) + " receives " +
             std::to_string(moved) + " elements for a buffer of " +
             std::to_string(bufVolume);
    for (int64_t i = 0; i < bufVolume; ++i)
      if (count[i] != 1)
        return "rank " + std::to_string(to) + " buffer element " +
               std::to_string(i) + " delivered " + std::to_string(count[i]) +
               " times";
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Generators
//===----------------------------------------------------------------------===//

Mesh randomMesh(Rng &rng) {
  Mesh mesh;
  int64_t axes = uniform(rng, 1, 3);
  for (int64_t a = 0; a < axes; ++a)
    mesh.shape.push_back(uniform(rng, 1, 4));
  return mesh;
}

/// `shards` non-negative extents summing to `n`, zeros included.
std::vector<int64_t> randomExtents(Rng &rng, int64_t shards, int64_t n) {
  std::vector<int64_t> cuts;
  if (chance(rng, 0.2)) { // canonical: ceil-div split, trailing zeros
    int64_t chunk = (n + shards - 1) / shards;
    for (int64_t i = 1; i < shards; ++i)
      cuts.push_back(std::min(n, i * chunk));
  } else {
    for (int64_t i = 1; i < shards; ++i)
      cuts.push_back(uniform(rng, 0, n));
    std::sort(cuts.begin(), cuts.end());
  }
  std::vector<int64_t> e;
  int64_t prev = 0;
  for (int64_t c : cuts) {
    e.push_back(c - prev);
    prev = c;
  }
  e.push_back(n - prev);
  return e;
}

Layout randomLayout(Rng &rng, const Mesh &mesh,
                    const std::vector<int64_t> &shape) {
  std::vector<int> pool;
  for (size_t a = 0; a < mesh.shape.size(); ++a)
    pool.push_back(int(a));
  std::shuffle(pool.begin(), pool.end(), rng);
  Layout layout;
  layout.shape = shape;
  for (int64_t n : shape) {
    int64_t k = std::min<int64_t>(uniform(rng, 0, 2), pool.size());
    std::vector<int> axes(pool.end() - k, pool.end());
    pool.resize(pool.size() - k);
    int64_t shards = 1;
    for (int a : axes)
      shards *= mesh.shape[a];
    layout.dims.push_back(
        DimSplit::fromExtents(axes, randomExtents(rng, shards, n)));
  }
  return layout;
}

/// Pieces of the virtual range [lo, hi) of a dim of size n, cut at multiples
/// of n, each shifted back into [0, n).
std::vector<Piece> periodicPieces(int64_t lo, int64_t hi, int64_t n) {
  std::vector<Piece> pieces;
  for (int64_t v = lo; v < hi;) {
    int64_t k = floorDiv(v, n);
    int64_t end = std::min(hi, (k + 1) * n);
    pieces.push_back({{v, end}, -k * n});
    v = end;
  }
  return pieces;
}

std::vector<Piece> randomDimNeed(Rng &rng, int64_t n, bool periodic) {
  if (periodic && n > 0 && chance(rng, 0.6)) {
    int64_t lo = uniform(rng, -n, n);
    int64_t hi = uniform(rng, lo, 2 * n);
    if (lo == hi)
      return chance(rng, 0.5) ? std::vector<Piece>{}
                              : std::vector<Piece>{{{lo, lo}, 0}};
    return periodicPieces(lo, hi, n);
  }
  int64_t lo = uniform(rng, 0, n), hi = uniform(rng, 0, n);
  if (lo > hi)
    std::swap(lo, hi);
  if (chance(rng, 0.05))
    hi = lo; // empty
  return {{{lo, hi}, 0}};
}

struct Case {
  Mesh mesh;
  Layout layout;
  std::vector<Need> needs;
};

Case randomCase(Rng &rng) {
  Case c;
  c.mesh = randomMesh(rng);
  std::vector<int64_t> shape;
  int64_t rank = uniform(rng, 1, 3);
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(uniform(rng, 0, 12));
  c.layout = randomLayout(rng, c.mesh, shape);
  int64_t ranks = refNumRanks(c.mesh.shape);
  int mode = int(uniform(rng, 0, 3));
  if (mode == 0) { // reshard: needs are another layout's owned boxes
    Layout target = randomLayout(rng, c.mesh, shape);
    for (int64_t r = 0; r < ranks; ++r)
      c.needs.push_back(Need::box(refOwned(c.mesh, target, r)));
    return c;
  }
  if (mode == 1) { // halo: owned box grown by random widths, clipped
    for (int64_t r = 0; r < ranks; ++r) {
      Box b = refOwned(c.mesh, c.layout, r);
      for (size_t d = 0; d < b.size(); ++d) {
        int64_t lo = std::max<int64_t>(0, b[d].lo - uniform(rng, 0, 4));
        int64_t hi = std::min(shape[d], b[d].hi + uniform(rng, 0, 4));
        b[d] = lo < hi ? Interval{lo, hi} : Interval{0, 0};
      }
      c.needs.push_back(Need::box(b));
    }
    return c;
  }
  bool periodic = mode == 3;
  for (int64_t r = 0; r < ranks; ++r) {
    Need need;
    for (int64_t d = 0; d < rank; ++d)
      need.dims.push_back(randomDimNeed(rng, shape[d], periodic));
    c.needs.push_back(need);
  }
  return c;
}

//===----------------------------------------------------------------------===//
// Random tests
//===----------------------------------------------------------------------===//

TEST(BoxPlan, MovesMatchBruteForce) {
  Rng rng(0x5eed0001);
  const int cases = 20000;
  int64_t totalMoves = 0;
  for (int i = 0; i < cases; ++i) {
    Case c = randomCase(rng);
    ASSERT_EQ(c.layout.validate(c.mesh), "") << describe(c.mesh, c.layout, {});
    std::vector<Move> moves = planMoves(c.mesh, c.layout, c.needs);
    totalMoves += moves.size();
    std::string err = checkPlan(c.mesh, c.layout, c.needs, moves);
    ASSERT_EQ(err, "") << "case " << i << "\n"
                       << describe(c.mesh, c.layout, c.needs);
  }
  EXPECT_GT(totalMoves, cases); // the generator is not degenerate
}

/// With a single piece per dim, the moves to a rank tile its box and their
/// volumes add up; re-checks Need::box / virtualBox / shape on the way.
TEST(BoxPlan, NeedBoxAccessors) {
  Rng rng(0x5eed0002);
  for (int i = 0; i < 2000; ++i) {
    Box b;
    int64_t rank = uniform(rng, 1, 3);
    bool empty = false;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t lo = uniform(rng, -5, 10), hi = uniform(rng, -5, 10);
      if (lo > hi)
        std::swap(lo, hi);
      empty = empty || lo == hi;
      b.push_back({lo, hi});
    }
    Need n = Need::box(b);
    ASSERT_EQ(n.dims.size(), b.size());
    EXPECT_EQ(n.empty(), empty);
    Box vb = n.virtualBox();
    std::vector<int64_t> shape = n.shape();
    for (int64_t d = 0; d < rank; ++d) {
      ASSERT_EQ(n.dims[d].size(), 1u);
      EXPECT_EQ(n.dims[d][0].shift, 0);
      EXPECT_EQ(vb[d], b[d]);
      EXPECT_EQ(shape[d], b[d].hi - b[d].lo);
    }
    int64_t vol = 1;
    for (int64_t s : shape)
      vol *= s;
    EXPECT_EQ(volume(b), vol);
  }
}

TEST(BoxPlan, IntersectMatchesBruteForce) {
  Rng rng(0x5eed0003);
  for (int i = 0; i < 2000; ++i) {
    int64_t rank = uniform(rng, 1, 3);
    Box a, b;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t l1 = uniform(rng, -3, 8), h1 = uniform(rng, l1, 9);
      int64_t l2 = uniform(rng, -3, 8), h2 = uniform(rng, l2, 9);
      a.push_back({l1, h1});
      b.push_back({l2, h2});
    }
    Box r = intersect(a, b);
    ASSERT_EQ(r.size(), a.size());
    for (int64_t d = 0; d < rank; ++d) {
      std::vector<int64_t> both;
      for (int64_t x = -3; x < 9; ++x)
        if (a[d].lo <= x && x < a[d].hi && b[d].lo <= x && x < b[d].hi)
          both.push_back(x);
      Interval want = both.empty() ? Interval{0, 0}
                                   : Interval{both.front(), both.back() + 1};
      EXPECT_EQ(r[d], want) << str(a) << " & " << str(b);
    }
  }
}

//===----------------------------------------------------------------------===//
// DimSplit / Mesh / Layout
//===----------------------------------------------------------------------===//

TEST(BoxPlan, OverlappingMatchesLinearScan) {
  Rng rng(0x5eed0004);
  for (int i = 0; i < 20000; ++i) {
    int64_t n = uniform(rng, 0, 12), shards = uniform(rng, 1, 6);
    DimSplit s = DimSplit::fromExtents({}, randomExtents(rng, shards, n));
    ASSERT_EQ(s.numShards(), shards);
    int64_t lo = uniform(rng, -4, n + 4), hi = uniform(rng, -4, n + 4);
    if (chance(rng, 0.7) && lo > hi)
      std::swap(lo, hi); // mostly proper ranges; some lo > hi
    Interval range{lo, hi};
    auto [first, last] = s.overlapping(range);
    std::string ctx = "starts " + str(s.starts) + " range " + str(range);
    ASSERT_LE(0, first) << ctx;
    ASSERT_LE(first, last) << ctx;
    ASSERT_LE(last, shards) << ctx;
    if (range.empty()) {
      EXPECT_EQ(first, last) << ctx;
    }
    for (int64_t k = 0; k < shards; ++k) {
      bool hit = std::max(lo, s.starts[k]) < std::min(hi, s.starts[k + 1]);
      bool inResult = first <= k && k < last;
      if (hit) {
        EXPECT_TRUE(inResult) << ctx << " misses shard " << k;
      } else if (inResult) { // only empty shards may ride along
        EXPECT_EQ(s.shard(k).size(), 0) << ctx << " reports shard " << k;
      }
    }
  }
}

TEST(BoxPlan, ExtentsRoundTrip) {
  Rng rng(0x5eed0005);
  for (int i = 0; i < 2000; ++i) {
    int64_t n = uniform(rng, 0, 12), shards = uniform(rng, 1, 8);
    std::vector<int64_t> e = randomExtents(rng, shards, n);
    DimSplit s = DimSplit::fromExtents({0}, e);
    EXPECT_EQ(s.extents(), e);
    EXPECT_EQ(s.starts.front(), 0);
    EXPECT_EQ(s.starts.back(), n);
    for (int64_t k = 0; k < shards; ++k)
      EXPECT_EQ(s.shard(k).size(), e[k]);
  }
  DimSplit w = DimSplit::whole(7);
  EXPECT_TRUE(w.axes.empty());
  EXPECT_EQ(w.numShards(), 1);
  EXPECT_EQ(w.shard(0), (Interval{0, 7}));
}

// A reshape's merged dim holds its major dim's shards k times finer: each
// shard of the merged dim covers exactly the rows of the major one, and
// dividing back finds the major split only where every shard is whole rows.
TEST(BoxPlan, ScaledSplitCoversWholeRows) {
  Rng rng(0x5eed000b);
  for (int i = 0; i < 2000; ++i) {
    int64_t n = uniform(rng, 0, 12), shards = uniform(rng, 1, 8);
    int64_t k = uniform(rng, 1, 6);
    DimSplit rows = DimSplit::fromExtents({0}, randomExtents(rng, shards, n));
    DimSplit fine = rows.scaledBy(k);
    EXPECT_EQ(fine.axes, rows.axes);
    for (int64_t q = 0; q < shards; ++q) {
      // Element e of the merged dim is row e / k.
      Interval f = fine.shard(q), r = rows.shard(q);
      for (int64_t e = 0; e < n * k; ++e)
        EXPECT_EQ(e >= f.lo && e < f.hi, e / k >= r.lo && e / k < r.hi);
    }
    std::optional<DimSplit> back = fine.dividedBy(k);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, rows);
    // Off whole rows: any boundary that is not a multiple of k.
    DimSplit any =
        DimSplit::fromExtents({0}, randomExtents(rng, shards, n * k));
    bool whole = std::all_of(any.starts.begin(), any.starts.end(),
                             [&](int64_t b) { return b % k == 0; });
    EXPECT_EQ(any.dividedBy(k).has_value(), whole);
  }
}

TEST(BoxPlan, MeshCoordsRoundTrip) {
  std::vector<std::vector<int64_t>> shapes = {
      {}, {1}, {4}, {2, 3}, {3, 1, 4}, {4, 4, 4}, {1, 1}, {2, 2, 2, 2}};
  for (const std::vector<int64_t> &shape : shapes) {
    Mesh mesh{shape};
    ASSERT_EQ(mesh.numRanks(), refNumRanks(shape));
    for (int64_t r = 0; r < mesh.numRanks(); ++r) {
      std::vector<int64_t> c = mesh.coords(r);
      EXPECT_EQ(c, refCoords(shape, r)) << str(shape) << " rank " << r;
      EXPECT_EQ(mesh.rankAt(c), r) << str(shape);
      // Row-major: the next rank bumps the last axis unless it wraps.
      if (!shape.empty() && r + 1 < mesh.numRanks() &&
          c.back() + 1 < shape.back()) {
        std::vector<int64_t> next = c;
        ++next.back();
        EXPECT_EQ(mesh.rankAt(next), r + 1);
      }
    }
  }
}

TEST(BoxPlan, ShardOfTwoAxesMajorToMinor) {
  Mesh mesh{{2, 3, 4}};
  DimSplit s{{2, 0}, {}}; // axis 2 major, axis 0 minor
  DimSplit t{{0, 2}, {}};
  DimSplit u{{1}, {}};
  DimSplit none{{}, {0, 5}};
  for (int64_t r = 0; r < mesh.numRanks(); ++r) {
    std::vector<int64_t> c = mesh.coords(r);
    EXPECT_EQ(s.shardOf(mesh, c), c[2] * 2 + c[0]);
    EXPECT_EQ(t.shardOf(mesh, c), c[0] * 4 + c[2]);
    EXPECT_EQ(u.shardOf(mesh, c), c[1]);
    EXPECT_EQ(none.shardOf(mesh, c), 0);
  }
  // And through Layout::owned.
  Layout l;
  l.shape = {8, 3};
  l.dims = {DimSplit::fromExtents({2, 0}, {1, 1, 1, 1, 1, 1, 1, 1}),
            DimSplit::fromExtents({1}, {1, 1, 1})};
  ASSERT_EQ(l.validate(mesh), "");
  for (int64_t r = 0; r < mesh.numRanks(); ++r) {
    std::vector<int64_t> c = mesh.coords(r);
    Box b = l.owned(mesh, r);
    EXPECT_EQ(b[0], (Interval{c[2] * 2 + c[0], c[2] * 2 + c[0] + 1}));
    EXPECT_EQ(b[1], (Interval{c[1], c[1] + 1}));
    EXPECT_EQ(l.ownedShape(mesh, r), (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(b, refOwned(mesh, l, r));
  }
}

// A rank owns under the coarser split exactly the union of what the ranks
// that differ from it only in the dropped axes own under the finer one.
TEST(BoxPlan, MajorAxesOwnTheUnionOverTheDroppedAxes) {
  Rng rng(0x5eed000b);
  for (int i = 0; i < 2000; ++i) {
    Mesh mesh = randomMesh(rng);
    Layout fine = randomLayout(rng, mesh, {uniform(rng, 0, 12)});
    const DimSplit &split = fine.dims[0];
    for (size_t count = 0; count <= split.axes.size(); ++count) {
      Layout coarse = fine;
      coarse.dims[0] = split.majorAxes(mesh, count);
      ASSERT_EQ(coarse.validate(mesh), "") << describe(mesh, fine, {});
      for (int64_t r = 0; r < mesh.numRanks(); ++r) {
        std::vector<int64_t> c = mesh.coords(r);
        int64_t lo = fine.shape[0], hi = 0;
        for (int64_t q = 0; q < mesh.numRanks(); ++q) {
          std::vector<int64_t> d = mesh.coords(q);
          bool kept = true;
          for (size_t a = 0; a < count; ++a)
            kept = kept && d[split.axes[a]] == c[split.axes[a]];
          Interval own = refOwned(mesh, fine, q)[0];
          if (kept && !own.empty())
            lo = std::min(lo, own.lo), hi = std::max(hi, own.hi);
        }
        Interval got = coarse.owned(mesh, r)[0];
        if (hi <= lo) // every shard it covers is empty
          EXPECT_TRUE(got.empty()) << describe(mesh, fine, {});
        else
          EXPECT_EQ(got, (Interval{lo, hi})) << describe(mesh, fine, {});
      }
    }
  }
}

TEST(BoxPlan, OwnedMatchesOracle) {
  Rng rng(0x5eed0006);
  for (int i = 0; i < 2000; ++i) {
    Mesh mesh = randomMesh(rng);
    std::vector<int64_t> shape;
    for (int64_t d = uniform(rng, 1, 3); d > 0; --d)
      shape.push_back(uniform(rng, 0, 12));
    Layout l = randomLayout(rng, mesh, shape);
    ASSERT_EQ(l.validate(mesh), "");
    for (int64_t r = 0; r < mesh.numRanks(); ++r)
      ASSERT_EQ(l.owned(mesh, r), refOwned(mesh, l, r))
          << describe(mesh, l, {}) << " rank " << r;
  }
  Layout rep = Layout::replicated({3, 0, 5});
  Mesh mesh{{2, 2}};
  EXPECT_EQ(rep.validate(mesh), "");
  for (int64_t r = 0; r < 4; ++r)
    EXPECT_EQ(rep.owned(mesh, r),
              (Box{Interval{0, 3}, Interval{0, 0}, Interval{0, 5}}));
}

TEST(BoxPlan, ValidateAcceptsAndRejects) {
  Mesh mesh{{2, 3}};
  Layout good;
  good.shape = {6, 4};
  good.dims = {DimSplit::fromExtents({1, 0}, {1, 0, 2, 3, 0, 0}),
               DimSplit::whole(4)};
  EXPECT_EQ(good.validate(mesh), "");
  Layout good2;
  good2.shape = {6, 4};
  good2.dims = {DimSplit::fromExtents({0}, {3, 3}),
                DimSplit::fromExtents({1}, {0, 4, 0})};
  EXPECT_EQ(good2.validate(mesh), "");

  auto rejects = [&](Layout l, const char *what) {
    EXPECT_NE(l.validate(mesh), "") << what;
  };
  Layout l = good;
  l.dims[0].starts.pop_back(); // 6 shards need 7 starts
  rejects(l, "wrong starts size (short)");
  l = good;
  l.dims[1].starts = {0, 2, 4}; // no axes: one shard
  rejects(l, "wrong starts size (long)");
  l = good;
  l.dims[1] = DimSplit::fromExtents({0}, {2, 2});
  rejects(l, "reused axis across dims");
  l = good;
  l.dims[0] = DimSplit::fromExtents({1, 1}, {1, 0, 2, 3, 0, 0, 0, 0, 0});
  rejects(l, "reused axis within a dim");
  l = good;
  l.dims[1] = DimSplit::fromExtents({2}, {2, 2});
  rejects(l, "axis out of range");
  l = good;
  l.dims[1] = DimSplit::fromExtents({-1}, {4});
  rejects(l, "negative axis");
  l = good;
  l.dims[1].starts = {0, 5};
  rejects(l, "starts ending past the dim size");
  l = good;
  l.dims[1].starts = {0, 3};
  rejects(l, "starts ending before the dim size");
  l = good;
  l.dims[0].starts = {1, 1, 1, 3, 6, 6, 6};
  rejects(l, "starts not beginning at 0");
  l = good;
  l.dims[0].starts = {0, 3, 2, 4, 6, 6, 6};
  rejects(l, "decreasing starts");
  l = good;
  l.dims.pop_back();
  rejects(l, "dims count differs from the shape");
}

//===----------------------------------------------------------------------===//
// Hand-written cases
//===----------------------------------------------------------------------===//

void expectMove(const Move &m, int64_t from, int64_t to, const Box &src,
                const Box &dst) {
  EXPECT_EQ(m.from, from) << describe(m);
  EXPECT_EQ(m.to, to) << describe(m);
  EXPECT_EQ(m.src, src) << describe(m);
  EXPECT_EQ(m.dst, dst) << describe(m);
}

std::vector<Move> movesTo(const std::vector<Move> &moves, int64_t to) {
  std::vector<Move> r;
  for (const Move &m : moves)
    if (m.to == to)
      r.push_back(m);
  return r;
}

TEST(BoxPlan, HaloOneDim) {
  Mesh mesh{{4}};
  Layout l;
  l.shape = {16};
  l.dims = {DimSplit::fromExtents({0}, {4, 4, 4, 4})};
  std::vector<Need> needs;
  for (int64_t r = 0; r < 4; ++r)
    needs.push_back(Need::box({Interval{std::max<int64_t>(0, 4 * r - 1),
                                        std::min<int64_t>(16, 4 * r + 5)}}));
  std::vector<Move> moves = planMoves(mesh, l, needs);
  EXPECT_EQ(checkPlan(mesh, l, needs, moves), "");
  std::vector<Move> to1 = movesTo(moves, 1);
  ASSERT_EQ(to1.size(), 3u);
  expectMove(to1[0], 0, 1, {{3, 4}}, {{0, 1}});
  expectMove(to1[1], 1, 1, {{0, 4}}, {{1, 5}});
  expectMove(to1[2], 2, 1, {{0, 1}}, {{5, 6}});
  EXPECT_EQ(movesTo(moves, 0).size(), 2u);
  EXPECT_EQ(movesTo(moves, 3).size(), 2u);
  EXPECT_EQ(moves.size(), 10u);
}

TEST(BoxPlan, MultiHopHalo) {
  Mesh mesh{{3}};
  Layout l;
  l.shape = {8};
  l.dims = {DimSplit::fromExtents({0}, {1, 1, 6})};
  std::vector<Need> needs = {Need::box({Interval{0, 2}}),
                             Need::box({Interval{0, 3}}),
                             Need::box({Interval{0, 8}})};
  std::vector<Move> moves = planMoves(mesh, l, needs);
  EXPECT_EQ(checkPlan(mesh, l, needs, moves), "");
  std::vector<Move> to2 = movesTo(moves, 2);
  ASSERT_EQ(to2.size(), 3u);
  expectMove(to2[0], 0, 2, {{0, 1}}, {{0, 1}});
  expectMove(to2[1], 1, 2, {{0, 1}}, {{1, 2}});
  expectMove(to2[2], 2, 2, {{0, 6}}, {{2, 8}});
}

TEST(BoxPlan, CornerExchangeTwoByTwo) {
  Mesh mesh{{2, 2}};
  Layout l;
  l.shape = {8, 6};
  l.dims = {DimSplit::fromExtents({0}, {4, 4}),
            DimSplit::fromExtents({1}, {3, 3})};
  std::vector<Need> needs;
  for (int64_t r = 0; r < 4; ++r) {
    Box b = l.owned(mesh, r);
    for (size_t d = 0; d < 2; ++d)
      b[d] = {std::max<int64_t>(0, b[d].lo - 1),
              std::min(l.shape[d], b[d].hi + 1)};
    needs.push_back(Need::box(b));
  }
  std::vector<Move> moves = planMoves(mesh, l, needs);
  EXPECT_EQ(checkPlan(mesh, l, needs, moves), "");
  EXPECT_EQ(moves.size(), 16u); // everyone hears from everyone
  std::vector<Move> to0 =
      movesTo(moves, 0); // owns [0,4)x[0,3), needs [0,5)x[0,4)
  ASSERT_EQ(to0.size(), 4u);
  expectMove(to0[0], 0, 0, {{0, 4}, {0, 3}}, {{0, 4}, {0, 3}});
  expectMove(to0[1], 1, 0, {{0, 4}, {0, 1}}, {{0, 4}, {3, 4}});
  expectMove(to0[2], 2, 0, {{0, 1}, {0, 3}}, {{4, 5}, {0, 3}});
  expectMove(to0[3], 3, 0, {{0, 1}, {0, 1}}, {{4, 5}, {3, 4}}); // the corner
  std::vector<Move> to3 =
      movesTo(moves, 3); // owns [4,8)x[3,6), needs [3,8)x[2,6)
  ASSERT_EQ(to3.size(), 4u);
  expectMove(to3[0], 0, 3, {{3, 4}, {2, 3}}, {{0, 1}, {0, 1}});
}

TEST(BoxPlan, PeriodicWrap) {
  Mesh mesh{{4}};
  Layout l;
  l.shape = {8};
  l.dims = {DimSplit::fromExtents({0}, {2, 2, 2, 2})};
  std::vector<Need> needs(4);
  needs[0].dims = {{Piece{{-1, 0}, 8}, Piece{{0, 3}, 0}}};
  for (int64_t r = 1; r < 4; ++r)
    needs[r] = Need::box({Interval{2 * r, 2 * r + 2}});
  std::vector<Move> moves = planMoves(mesh, l, needs);
  EXPECT_EQ(checkPlan(mesh, l, needs, moves), "");
  std::vector<Move> to0 = movesTo(moves, 0);
  ASSERT_EQ(to0.size(), 3u);
  expectMove(to0[0], 0, 0, {{0, 2}}, {{1, 3}});
  expectMove(to0[1], 1, 0, {{0, 1}}, {{3, 4}});
  expectMove(to0[2], 3, 0, {{1, 2}}, {{0, 1}});
}

TEST(BoxPlan, ReplicatedDimTakesClosestOwner) {
  // 2x3 mesh, the tensor split over axis 1 only: every column of the mesh
  // holds a full copy, and a rank must read from its own row.
  Mesh mesh{{2, 3}};
  Layout l;
  l.shape = {9};
  l.dims = {DimSplit::fromExtents({1}, {3, 3, 3})};
  std::vector<Need> needs(6, Need::box({Interval{0, 9}})); // all-gather
  std::vector<Move> moves = planMoves(mesh, l, needs);
  EXPECT_EQ(checkPlan(mesh, l, needs, moves), "");
  ASSERT_EQ(moves.size(), 18u);
  for (const Move &m : moves)
    EXPECT_EQ(mesh.coords(m.from)[0], mesh.coords(m.to)[0]) << describe(m);
  // A fully replicated tensor is a self copy.
  Layout rep = Layout::replicated({4, 5});
  std::vector<Need> sub(6, Need::box({Interval{1, 3}, Interval{2, 5}}));
  moves = planMoves(mesh, rep, sub);
  EXPECT_EQ(checkPlan(mesh, rep, sub, moves), "");
  ASSERT_EQ(moves.size(), 6u);
  for (const Move &m : moves) {
    EXPECT_EQ(m.from, m.to);
    EXPECT_EQ(m.src, (Box{{1, 3}, {2, 5}}));
    EXPECT_EQ(m.dst, (Box{{0, 2}, {0, 3}}));
  }
}

TEST(BoxPlan, WrapLongerThanTheDim) {
  // A virtual range of 3n reads each shard three times: distinct tags.
  Mesh mesh{{2}};
  Layout l;
  l.shape = {4};
  l.dims = {DimSplit::fromExtents({0}, {1, 3})};
  std::vector<Need> needs(2);
  needs[0].dims = {periodicPieces(-4, 8, 4)};
  needs[1] = Need::box({Interval{0, 0}}); // empty: no moves
  std::vector<Move> moves = planMoves(mesh, l, needs);
  EXPECT_EQ(checkPlan(mesh, l, needs, moves), "");
  EXPECT_EQ(moves.size(), 6u);
  EXPECT_TRUE(movesTo(moves, 1).empty());
}

} // namespace
