//===- ValidateRing.cpp - The checks of a RingAttention -------------------===//
//
// A RingAttention's ints (ringAttentionInts) are one list every rank of the
// ring carries: the loader checks its layout and starts once per list, and
// then, for every rank of each class that runs it, that the rank's query,
// key and value slots hold the rows the starts give its place in the groups.
// Checked here, a wrong block fails the load on every rank alike; left to
// each rank's session, one rank would fail its set-up while its peers wait
// for blocks that never come.
//
//===----------------------------------------------------------------------===//

#include "Validate.h"

#include <string>
#include <tuple>

namespace shardrt::artifact::detail {

using flatbuffers::Vector;
using std::to_string;

namespace {

/// Where a ring's lists lie in its ints, and which groups they split over.
struct RingLayout {
  bool causal = false, mask = false, valuesWhole = false;
  /// The query axes are ints [5, keysAt - queryMembers - 1), the query
  /// starts follow, then the key starts from keysAt to the end.
  uint32_t queryAxes = 0, keysAt = 0;
  uint64_t members = 0, queryMembers = 0;
};

/// Members of the group over `count` axes, the i-th being `axisAt(i)`.
template <typename AxisAt>
uint64_t groupSize(const std::vector<int64_t> &mesh, AxisAt axisAt,
                   uint32_t count) {
  uint64_t members = 1;
  for (uint32_t i = 0; i < count; ++i)
    members *= uint64_t(mesh[size_t(axisAt(i))]);
  return members;
}

/// The place of the rank at `coords` in the group over `count` axes (the
/// first major).
template <typename AxisAt>
uint64_t groupPosition(const std::vector<int64_t> &mesh,
                       const std::vector<int64_t> &coords, AxisAt axisAt,
                       uint32_t count) {
  uint64_t at = 0;
  for (uint32_t i = 0; i < count; ++i) {
    size_t axis = size_t(axisAt(i));
    at = at * uint64_t(mesh[axis]) + uint64_t(coords[axis]);
  }
  return at;
}

/// The layout of `inst`'s ints, checked as far as it can be without reading
/// the starts: its size, flags and query axes.
StatusOr<RingLayout> ringLayout(const fb::Instruction &inst,
                                const std::vector<int64_t> &mesh,
                                const std::string &where) {
  uint32_t size = sizeOf(inst.ints());
  if (size < 5)
    return invalid(where + " has " + to_string(size) +
                   " ints; a ring takes at least 5");
  const Vector<int64_t> &ints = *inst.ints();
  for (uint32_t i = 0; i < 4; ++i)
    if (ints.Get(i) != 0 && ints.Get(i) != 1)
      return invalid(where + " flag " + to_string(i) + " is " +
                     to_string(ints.Get(i)) + "; flags are 0 or 1");
  RingLayout l;
  l.causal = ints.Get(0) != 0;
  l.mask = ints.Get(1) != 0;
  l.valuesWhole = ints.Get(2) != 0;
  int64_t queryAxes = ints.Get(4);
  if (queryAxes < 0 || uint64_t(queryAxes) > mesh.size() ||
      (!l.causal && queryAxes != 0) || uint64_t(queryAxes) + 5 > size)
    return invalid(where + " names " + to_string(queryAxes) +
                   " query axes; a causal ring names at most the mesh's, "
                   "others none");
  l.queryAxes = uint32_t(queryAxes);
  std::vector<bool> seen(mesh.size(), false);
  for (uint32_t i = 5; i < 5 + l.queryAxes; ++i) {
    int64_t axis = ints.Get(i);
    if (axis < 0 || uint64_t(axis) >= mesh.size() || seen[size_t(axis)])
      return invalid(where + "'s query axes must be distinct mesh axes");
    seen[size_t(axis)] = true;
  }
  l.members = groupSize(
      mesh, [&](uint32_t i) { return inst.mesh_axes()->Get(i); },
      sizeOf(inst.mesh_axes()));
  if (l.causal)
    l.queryMembers = groupSize(
        mesh, [&](uint32_t i) { return ints.Get(5 + i); }, l.queryAxes);
  uint64_t queryStarts = l.causal ? l.queryMembers + 1 : 0;
  uint64_t keysAt = 5 + uint64_t(l.queryAxes) + queryStarts;
  if (size != keysAt + l.members + 1)
    return invalid(where + " has " + to_string(size) + " ints; a ring of " +
                   to_string(l.members) + " members takes 5, " +
                   to_string(l.queryAxes) + " query axes, " +
                   to_string(queryStarts) + " query starts and " +
                   to_string(l.members + 1) + " key starts");
  l.keysAt = uint32_t(keysAt);
  return l;
}

/// The query and key starts of `inst`: from 0, never decreasing.
Status checkStarts(const fb::Instruction &inst, const RingLayout &l,
                   const std::string &where) {
  const Vector<int64_t> &ints = *inst.ints();
  uint32_t queriesAt = 5 + l.queryAxes;
  for (auto [lo, hi, what] :
       {std::tuple{queriesAt, l.keysAt, "query"},
        std::tuple{l.keysAt, uint32_t(ints.size()), "key"}}) {
    if (lo == hi)
      continue;
    if (ints.Get(lo) != 0)
      return invalid(where + "'s " + what + " starts must begin at 0");
    for (uint32_t i = lo + 1; i < hi; ++i)
      if (ints.Get(i) < ints.Get(i - 1))
        return invalid(where + "'s " + what + " starts decrease at member " +
                       to_string(i - 1 - lo));
  }
  return Status();
}

/// Rows (the next-to-last dim) of slot `slot` of `rc`, or -1 when the slot
/// has no shape with a sequence and a feature dim.
int64_t rowsOf(const fb::RankClass &rc, uint32_t slot) {
  const Vector<int64_t> *shape = rc.buffers()->Get(slot)->shape();
  uint32_t dims = sizeOf(shape);
  return dims < 2 ? -1 : shape->Get(dims - 2);
}

/// Every rank of `rc`: its query, key and value slots hold the rows that
/// its places in the query split and the ring give it.
Status checkBlocks(const fb::RankClass &rc, const fb::Instruction &inst,
                   const RingLayout &l, const std::vector<int64_t> &mesh,
                   const std::string &where) {
  uint32_t inputs = sizeOf(inst.inputs());
  if (inputs != (l.mask ? 4u : 3u) || sizeOf(inst.outputs()) != 1)
    return invalid(where + " takes q, k, v" + (l.mask ? ", a mask" : "") +
                   " and one output; it has " + to_string(inputs) +
                   " inputs and " + to_string(sizeOf(inst.outputs())) +
                   " outputs");
  const Vector<int64_t> &ints = *inst.ints();
  int64_t queries = rowsOf(rc, inst.inputs()->Get(0)),
          keys = rowsOf(rc, inst.inputs()->Get(1)),
          values = rowsOf(rc, inst.inputs()->Get(2));
  if (queries < 0 || keys < 0 || values < 0)
    return invalid(where + "'s q, k and v slots need a sequence and a "
                           "feature dim");
  int64_t allKeys = ints.Get(ints.size() - 1);
  for (uint32_t i = 0; i < sizeOf(rc.ranks()); ++i) {
    int32_t rank = rc.ranks()->Get(i);
    std::vector<int64_t> coords = meshCoordinates(mesh, rank);
    uint64_t at = groupPosition(
        mesh, coords, [&](uint32_t a) { return inst.mesh_axes()->Get(a); },
        sizeOf(inst.mesh_axes()));
    uint32_t start = l.keysAt + uint32_t(at);
    int64_t own = ints.Get(start + 1) - ints.Get(start);
    auto wrong = [&](const char *what, int64_t has, int64_t needs) {
      return invalid(where + ": rank " + to_string(rank) + "'s " + what +
                     " have " + to_string(has) + " rows; its place in the " +
                     (what[0] == 'q' ? "query split" : "ring") + " gives " +
                     to_string(needs));
    };
    if (keys != own)
      return wrong("keys", keys, own);
    if (int64_t needs = l.valuesWhole ? allKeys : own; values != needs)
      return wrong("values", values, needs);
    if (!l.causal)
      continue;
    uint64_t q = groupPosition(
        mesh, coords, [&](uint32_t a) { return ints.Get(5 + a); }, l.queryAxes);
    start = 5 + l.queryAxes + uint32_t(q);
    if (int64_t needs = ints.Get(start + 1) - ints.Get(start); queries != needs)
      return wrong("queries", queries, needs);
  }
  return Status();
}

} // namespace

Status checkRingAttention(const fb::RankClass &rc, const fb::Instruction &inst,
                          const std::vector<int64_t> &mesh,
                          const std::string &where, CheckedRing &checked) {
  if (sizeOf(inst.floats()) != 1)
    return invalid(where + " takes 1 float (the scale)");
  StatusOr<RingLayout> layout = ringLayout(inst, mesh, where);
  if (!layout.ok())
    return layout.status();
  // Members of a ring share one list (a class each when uneven): its
  // starts are read once.
  if (inst.ints() != checked.ints || layout->members != checked.members) {
    if (Status s = checkStarts(inst, *layout, where); !s.ok())
      return s;
    checked = {inst.ints(), layout->members};
  }
  return checkBlocks(rc, inst, *layout, mesh, where);
}

} // namespace shardrt::artifact::detail
