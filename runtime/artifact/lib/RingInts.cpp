//===- RingInts.cpp - The ints of a RingAttention -------------------------===//
//
// One layout, written by the compiler and read by the loader, the prepare
// step and the scl reader: the writer and the one reader of where each
// list lies live here, so that the three cannot drift apart.
//
//===----------------------------------------------------------------------===//

#include "shardrt/artifact/Artifact.h"

namespace shardrt::artifact {

using std::to_string;

std::vector<int64_t> ringAttentionInts(const RingFlags &flags,
                                       const std::vector<int64_t> &queryAxes,
                                       const std::vector<int64_t> &queryStarts,
                                       const std::vector<int64_t> &keyStarts) {
  std::vector<int64_t> ints = {flags.causal, flags.mask, flags.valuesWhole,
                               flags.valuesAreKeys,
                               flags.causal ? int64_t(queryAxes.size()) : 0};
  if (flags.causal) {
    ints.insert(ints.end(), queryAxes.begin(), queryAxes.end());
    ints.insert(ints.end(), queryStarts.begin(), queryStarts.end());
  }
  ints.insert(ints.end(), keyStarts.begin(), keyStarts.end());
  return ints;
}

StatusOr<RingIntsLayout> ringIntsLayout(const IntAt &at, size_t size,
                                        uint64_t members,
                                        const std::vector<int64_t> &mesh) {
  auto invalid = [](std::string message) {
    return Status::invalidArgument(std::move(message));
  };
  if (size < 5)
    return invalid("has " + to_string(size) + " ints; a ring takes at least 5");
  for (size_t i = 0; i < 4; ++i)
    if (at(i) != 0 && at(i) != 1)
      return invalid("flag " + to_string(i) + " is " + to_string(at(i)) +
                     "; flags are 0 or 1");
  RingIntsLayout l;
  l.flags = {at(0) != 0, at(1) != 0, at(2) != 0, at(3) != 0};
  int64_t axes = at(4);
  if (axes < 0 || uint64_t(axes) > mesh.size() ||
      (!l.flags.causal && axes != 0))
    return invalid("names " + to_string(axes) +
                   " query axes; a causal ring names at most the mesh's " +
                   to_string(mesh.size()) + ", others none");
  l.queryAxes = size_t(axes);
  if (5 + l.queryAxes > size)
    return invalid("has " + to_string(size) + " ints; its " + to_string(axes) +
                   " query axes need more");
  std::vector<bool> seen(mesh.size(), false);
  uint64_t queryMembers = 1;
  for (size_t i = 5; i < 5 + l.queryAxes; ++i) {
    int64_t axis = at(i);
    if (axis < 0 || uint64_t(axis) >= mesh.size() || seen[size_t(axis)])
      return invalid("has query axes that are not distinct mesh axes");
    seen[size_t(axis)] = true;
    queryMembers *= uint64_t(mesh[size_t(axis)]);
  }
  l.queryStartsAt = 5 + l.queryAxes;
  l.queryStarts = l.flags.causal ? size_t(queryMembers) + 1 : 0;
  l.keyStartsAt = l.queryStartsAt + l.queryStarts;
  l.keyStarts = size_t(members) + 1;
  if (size != l.keyStartsAt + l.keyStarts)
    return invalid("has " + to_string(size) + " ints; a ring of " +
                   to_string(members) + " members takes 5, " +
                   to_string(l.queryAxes) + " query axes, " +
                   to_string(l.queryStarts) + " query starts and " +
                   to_string(l.keyStarts) + " key starts");
  return l;
}

uint64_t placeInGroup(const std::vector<int64_t> &mesh,
                      const std::vector<int64_t> &coords, const IntAt &axisAt,
                      size_t count) {
  uint64_t place = 0;
  for (size_t i = 0; i < count; ++i) {
    size_t axis = size_t(axisAt(i));
    place = place * uint64_t(mesh[axis]) + uint64_t(coords[axis]);
  }
  return place;
}

std::string ringStartsProblem(const IntAt &at, size_t lo, size_t hi,
                              const char *what) {
  if (lo == hi)
    return "";
  std::string starts = std::string(what) + " starts";
  if (at(lo) != 0)
    return starts + " must begin at 0";
  for (size_t i = lo + 1; i < hi; ++i)
    if (at(i) < at(i - 1))
      return starts + " decrease at member " + to_string(i - 1 - lo);
  if (at(hi - 1) > (int64_t(1) << 52))
    return starts + " pass 2^52";
  return "";
}

} // namespace shardrt::artifact
