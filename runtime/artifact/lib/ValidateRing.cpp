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

/// Members of the group over `count` axes, the i-th being `axisAt(i)`.
template <typename AxisAt>
uint64_t groupSize(const std::vector<int64_t> &mesh, AxisAt axisAt,
                   uint32_t count) {
  uint64_t members = 1;
  for (uint32_t i = 0; i < count; ++i)
    members *= uint64_t(mesh[size_t(axisAt(i))]);
  return members;
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
                   const RingIntsLayout &l, const std::vector<int64_t> &mesh,
                   const std::string &where) {
  uint32_t inputs = sizeOf(inst.inputs());
  if (inputs != (l.flags.mask ? 4u : 3u) || sizeOf(inst.outputs()) != 1)
    return invalid(where + " takes q, k, v" + (l.flags.mask ? ", a mask" : "") +
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
  auto block = [&](size_t startsAt, uint64_t member) {
    uint32_t i = uint32_t(startsAt + member);
    return ints.Get(i + 1) - ints.Get(i);
  };
  for (uint32_t i = 0; i < sizeOf(rc.ranks()); ++i) {
    int32_t rank = rc.ranks()->Get(i);
    std::vector<int64_t> coords = meshCoordinates(mesh, rank);
    auto wrong = [&](const char *what, int64_t has, int64_t needs) {
      return invalid(where + ": rank " + to_string(rank) + "'s " + what +
                     " have " + to_string(has) + " rows; its place in the " +
                     (what[0] == 'q' ? "query split" : "ring") + " gives " +
                     to_string(needs));
    };
    int64_t own =
        block(l.keyStartsAt,
              placeInGroup(
                  mesh, coords,
                  [&](size_t a) { return inst.mesh_axes()->Get(uint32_t(a)); },
                  sizeOf(inst.mesh_axes())));
    if (keys != own)
      return wrong("keys", keys, own);
    if (int64_t needs = l.flags.valuesWhole ? allKeys : own; values != needs)
      return wrong("values", values, needs);
    if (!l.flags.causal)
      continue;
    int64_t needs = block(
        l.queryStartsAt,
        placeInGroup(
            mesh, coords,
            [&](size_t a) { return ints.Get(uint32_t(l.queryAxesAt + a)); },
            l.queryAxes));
    if (queries != needs)
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
  uint64_t members = groupSize(
      mesh, [&](uint32_t i) { return inst.mesh_axes()->Get(i); },
      sizeOf(inst.mesh_axes()));
  IntAt at = [&](size_t i) { return inst.ints()->Get(uint32_t(i)); };
  StatusOr<RingIntsLayout> layout =
      ringIntsLayout(at, sizeOf(inst.ints()), members, mesh);
  if (!layout.ok())
    return invalid(where + " " + layout.status().message());
  // Members of a ring share one list (a class each when uneven): its
  // starts are read once.
  if (inst.ints() != checked.ints || members != checked.members) {
    for (auto [lo, size, what] :
         {std::tuple{layout->queryStartsAt, layout->queryStarts, "query"},
          std::tuple{layout->keyStartsAt, layout->keyStarts, "key"}})
      if (std::string problem = ringStartsProblem(at, lo, lo + size, what);
          !problem.empty())
        return invalid(where + "'s " + problem);
    checked = {inst.ints(), members};
  }
  return checkBlocks(rc, inst, *layout, mesh, where);
}

} // namespace shardrt::artifact::detail
