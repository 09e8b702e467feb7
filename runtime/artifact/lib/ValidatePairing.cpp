//===- ValidatePairing.cpp - Ranks agree on what they exchange ------------===//
//
// Validate.cpp checks each rank class's program on its own; here the
// programs are checked against each other, so that an artifact whose ranks
// disagree about what they send (corruption that kept the checksum valid, or
// a compiler bug) is refused at load instead of leaving ranks waiting, until
// the communicator's timeout, for messages that never come.
//
//  - Point to point: messages from one rank to another with one tag arrive
//    in the order sent (Communicator::irecv), so for every (sender,
//    receiver, tag) the sender's sends and the receiver's receives, in
//    program order, must agree in number and sizes.
//  - Collectives: two ranks that meet in collectives (those whose mesh axes
//    include every axis the two ranks' coordinates differ in) must run
//    them alike and in the same order: the same attributes, and the same
//    shapes where the members' shapes must agree.
//
// Both are compared through hashes. Messages take time proportional to the
// ranks times their programs' lengths; collectives, to the ranks times the
// axis sets compared (each subset of the axes a rank differs from its lead
// in, or past the bound of 64 MiB of signatures, the collectives' own axis
// sets and single axes). Only a mismatch builds the tables that name it.
//
//===----------------------------------------------------------------------===//

#include "Validate.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>

namespace shardrt::artifact::detail {

namespace {

using flatbuffers::Vector;
using std::to_string;

/// splitmix64's finaliser: spreads every input bit over the whole word.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// An order-sensitive hash of a sequence, with its length.
struct Sequence {
  uint64_t hash = 0;
  uint64_t count = 0;
  void append(uint64_t v) {
    hash = mix(hash ^ mix(v + count));
    ++count;
  }
  bool operator==(const Sequence &o) const {
    return hash == o.hash && count == o.count;
  }
  bool operator!=(const Sequence &o) const { return !(*this == o); }
};

//===----------------------------------------------------------------------===//
// Point to point
//===----------------------------------------------------------------------===//

/// One transfer as rank `self` runs it.
struct Message {
  bool send = false;
  int64_t peer = 0;
  uint32_t tag = 0;
  uint64_t bytes = 0;
};

/// Calls `fn(instruction index, Message)` for every transfer of `self`'s
/// program, in program order. Peers and boxes were checked before.
template <typename Fn>
void forEachMessage(const fb::RankClass &rc, const std::vector<int64_t> &mesh,
                    int64_t self, Fn fn) {
  std::vector<int64_t> coords = meshCoordinates(mesh, self), peer(mesh.size());
  for (uint32_t i = 0; i < sizeOf(rc.program()); ++i) {
    const fb::Instruction &inst = *rc.program()->Get(i);
    for (uint32_t k = 0; k < sizeOf(inst.transfers()); ++k) {
      const fb::Transfer &t = *inst.transfers()->Get(k);
      for (size_t a = 0; a < mesh.size(); ++a) {
        int64_t c = coords[a] + t.peer()->Get(a);
        peer[a] = ((c % mesh[a]) + mesh[a]) % mesh[a];
      }
      const fb::BufferSlot &slot = *rc.buffers()->Get(t.slot());
      uint64_t bytes = dtypeSize(slot.dtype());
      for (uint32_t d = 0; d < sizeOf(t.lo()); ++d)
        bytes *= uint64_t(t.hi()->Get(d) - t.lo()->Get(d));
      fn(i, Message{t.kind() == fb::TransferKind::Send, meshRank(mesh, peer),
                    t.tag(), bytes});
    }
  }
}

/// (sender, receiver, tag): one ordered stream of messages.
using StreamKey = std::tuple<int64_t, int64_t, uint32_t>;

uint64_t streamHash(const StreamKey &key, const Sequence &s) {
  return mix(mix(mix(mix(uint64_t(std::get<0>(key))) ^
                     uint64_t(std::get<1>(key))) ^
                 std::get<2>(key)) ^
             s.hash) ^
         mix(s.count);
}

/// Every stream of rank `self`, with the sizes in program order: those it
/// sends on and those it receives on, from one walk of its program.
struct RankStreams {
  std::map<StreamKey, Sequence> sent, received;
};
RankStreams streamsOf(const fb::RankClass &rc, const std::vector<int64_t> &mesh,
                      int64_t self) {
  RankStreams streams;
  forEachMessage(rc, mesh, self, [&](uint32_t, const Message &m) {
    if (m.send)
      streams.sent[{self, m.peer, m.tag}].append(m.bytes);
    else
      streams.received[{m.peer, self, m.tag}].append(m.bytes);
  });
  return streams;
}

/// The sizes rank `self` sends (receives) on `key`, as "16, 16 bytes".
std::string sizesOn(const fb::RankClass &rc, const std::vector<int64_t> &mesh,
                    int64_t self, bool sends, const StreamKey &key) {
  std::string s;
  uint64_t n = 0;
  forEachMessage(rc, mesh, self, [&](uint32_t i, const Message &m) {
    StreamKey k =
        sends ? StreamKey{self, m.peer, m.tag} : StreamKey{m.peer, self, m.tag};
    if (m.send != sends || k != key || n++ >= 8)
      return;
    s += (s.empty() ? "" : ", ") + to_string(m.bytes) + " B (instruction " +
         to_string(i) + ")";
  });
  if (n > 8)
    s += ", ...";
  return n == 0 ? "none" : to_string(n) + ": " + s;
}

Status checkMessages(const fb::Artifact &root, const std::vector<int64_t> &mesh,
                     const std::vector<int32_t> &rankToClass) {
  auto classOf = [&](int64_t r) -> const fb::RankClass & {
    return *root.rank_classes()->Get(uint32_t(rankToClass[r]));
  };
  // Each stream's send side belongs to one rank and its receive side to
  // one rank, so per-rank tables are complete: summing their hashes over
  // the world compares every stream's two sides at once.
  uint64_t sent = 0, received = 0;
  bool any = false;
  for (uint32_t c = 0; c < sizeOf(root.rank_classes()); ++c) {
    const fb::RankClass &rc = *root.rank_classes()->Get(c);
    for (uint32_t i = 0; i < sizeOf(rc.program()) && !any; ++i)
      any = sizeOf(rc.program()->Get(i)->transfers()) > 0;
  }
  if (!any)
    return Status();
  for (int64_t r = 0; r < int64_t(rankToClass.size()); ++r) {
    RankStreams streams = streamsOf(classOf(r), mesh, r);
    for (const auto &[key, seq] : streams.sent)
      sent += streamHash(key, seq);
    for (const auto &[key, seq] : streams.received)
      received += streamHash(key, seq);
  }
  if (sent == received)
    return Status();
  // Name the first stream whose sides differ.
  std::map<StreamKey, std::pair<Sequence, Sequence>> all;
  for (int64_t r = 0; r < int64_t(rankToClass.size()); ++r) {
    RankStreams streams = streamsOf(classOf(r), mesh, r);
    for (auto &[key, seq] : streams.sent)
      all[key].first = std::move(seq);
    for (auto &[key, seq] : streams.received)
      all[key].second = std::move(seq);
  }
  for (const auto &[key, sides] : all) {
    if (sides.first == sides.second)
      continue;
    auto [from, to, tag] = key;
    return invalid("rank " + to_string(from) + " and rank " + to_string(to) +
                   " disagree on their messages with tag " + to_string(tag) +
                   ": rank " + to_string(from) + " sends " +
                   sizesOn(classOf(from), mesh, from, true, key) + "; rank " +
                   to_string(to) + " receives " +
                   sizesOn(classOf(to), mesh, to, false, key));
  }
  return invalid("the ranks' messages do not pair up");
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

uint64_t axesMask(const fb::Instruction &inst) {
  uint64_t mask = 0;
  for (uint32_t i = 0; i < sizeOf(inst.mesh_axes()); ++i)
    mask |= uint64_t(1) << inst.mesh_axes()->Get(i);
  return mask;
}

/// The shape every member of the group holds alike, if any: the reduced
/// buffer, the gathered result, the scattered input, the broadcast buffer.
/// (The other side of a gather-v, scatter-v or all-to-all-v differs per
/// member; each member checks it against the extents when it prepares.)
const Vector<int64_t> *sharedShape(const fb::RankClass &rc,
                                   const fb::Instruction &inst) {
  auto slotShape =
      [&](const Vector<uint32_t> *slots) -> const Vector<int64_t> * {
    if (sizeOf(slots) == 0)
      return nullptr;
    return rc.buffers()->Get(slots->Get(0))->shape();
  };
  switch (inst.opcode()) {
  case fb::Opcode::AllReduce:
  case fb::Opcode::ReduceScatter:
  case fb::Opcode::Broadcast:
    return slotShape(inst.inputs());
  case fb::Opcode::AllGather:
    return slotShape(inst.outputs());
  default:
    return nullptr;
  }
}

/// The element type of the collective's first input; Barrier has none.
std::optional<fb::DType> collectiveDType(const fb::RankClass &rc,
                                         const fb::Instruction &inst) {
  if (sizeOf(inst.inputs()) == 0)
    return std::nullopt;
  return rc.buffers()->Get(inst.inputs()->Get(0))->dtype();
}

/// Digests of int lists by their place in the buffer: a long list is stored
/// once and shared by its group's members, who may each be a class.
using IntsDigests = std::unordered_map<const void *, uint64_t>;

/// What the members of a group must agree on for one collective; every
/// variable-length part is preceded by its length.

uint64_t collectiveSignature(const fb::RankClass &rc,
                             const fb::Instruction &inst,
                             IntsDigests *digests = nullptr) {
  Sequence s;
  s.append(uint64_t(inst.opcode()));
  s.append(uint64_t(inst.reduce()));
  // The axes in their order: it orders the group's members.
  s.append(sizeOf(inst.mesh_axes()));
  for (uint32_t i = 0; i < sizeOf(inst.mesh_axes()); ++i)
    s.append(uint64_t(inst.mesh_axes()->Get(i)));
  s.append(sizeOf(inst.ints()));
  auto digest = [&] {
    Sequence ints;
    for (uint32_t i = 0; i < sizeOf(inst.ints()); ++i)
      ints.append(uint64_t(inst.ints()->Get(i)));
    return ints.hash;
  };
  if (digests && inst.ints()) {
    auto [at, added] = digests->try_emplace(inst.ints(), 0);
    if (added)
      at->second = digest();
    s.append(at->second);
  } else {
    s.append(digest());
  }
  std::optional<fb::DType> dtype = collectiveDType(rc, inst);
  s.append(dtype ? uint64_t(*dtype) + 1 : 0);
  const Vector<int64_t> *shape = sharedShape(rc, inst);
  s.append(sizeOf(shape));
  for (uint32_t i = 0; i < sizeOf(shape); ++i)
    s.append(uint64_t(shape->Get(i)));
  // A ring passes its key blocks (and value blocks, unless they arrive
  // whole or are the keys): their shapes but the rows must agree.
  if (inst.opcode() == fb::Opcode::RingAttention &&
      sizeOf(inst.inputs()) >= 3 && sizeOf(inst.ints()) >= 4) {
    bool valuesTravel = inst.ints()->Get(2) == 0 && inst.ints()->Get(3) == 0;
    for (uint32_t input = 1; input < (valuesTravel ? 3u : 2u); ++input) {
      const Vector<int64_t> *block =
          rc.buffers()->Get(inst.inputs()->Get(input))->shape();
      s.append(sizeOf(block));
      for (uint32_t d = 0; d < sizeOf(block); ++d)
        if (d + 2 != sizeOf(block))
          s.append(uint64_t(block->Get(d)));
    }
  }
  return s.hash ^ mix(s.count);
}

std::string describeCollective(const fb::RankClass &rc, uint32_t index) {
  const fb::Instruction &inst = *rc.program()->Get(index);
  std::string s = "instruction " + to_string(index) + " (" +
                  fb::EnumNameOpcode(inst.opcode()) + " over mesh axes [";
  for (uint32_t i = 0; i < sizeOf(inst.mesh_axes()); ++i)
    s += (i ? ", " : "") + to_string(inst.mesh_axes()->Get(i));
  s += "]";
  if (inst.reduce() != fb::ReduceKind::None)
    s += std::string(", ") + fb::EnumNameReduceKind(inst.reduce());
  // A group's extents (one per member) are cut: a message, not a dump.
  s += ", ints " + shapeString(inst.ints(), 16);
  if (std::optional<fb::DType> dtype = collectiveDType(rc, inst))
    s += std::string(", ") + fb::EnumNameDType(*dtype);
  if (const Vector<int64_t> *shape = sharedShape(rc, inst))
    s += " " + shapeString(shape);
  return s + ")";
}

/// The k-th collective (instruction index) of `list`, or "none" past its
/// end.
std::string collectiveAt(const fb::RankClass &rc,
                         const std::vector<uint32_t> &list, size_t k) {
  return k < list.size()
             ? describeCollective(rc, list[k])
             : std::string("none (it has ") + to_string(list.size()) + ")";
}

std::string axesString(uint64_t mask) {
  std::string s = "[";
  for (uint32_t a = 0; a < 64; ++a)
    if (mask >> a & 1)
      s += (s.size() > 1 ? ", " : "") + to_string(a);
  return s + "]";
}

/// At most this many (rank class, axis set) signatures are kept: 64 MiB.
constexpr uint64_t kMaxCollectiveLists = uint64_t(1) << 22;

/// Two ranks that differ in the coordinates of axes D meet in every
/// collective whose axes include D, and those share one channel between
/// them (a reserved tag, or the communicator's own collectives), so they
/// must run them alike and in the same order. Each rank is compared, for
/// every D, with the rank at coordinate 0 of D's axes; equality is
/// transitive, so every pair that meets is covered. D ranges over the
/// non-empty subsets of the axes (of extent above 1) any collective names:
/// a handful on real meshes. Past 12 such axes, or past
/// kMaxCollectiveLists signatures, only the collectives' own axis sets and
/// (within the bound) the single axes are compared.
Status checkCollectives(const fb::Artifact &root,
                        const std::vector<int64_t> &mesh,
                        const std::vector<int32_t> &rankToClass) {
  uint32_t numClasses = sizeOf(root.rank_classes());
  auto classAt = [&](uint32_t c) -> const fb::RankClass & {
    return *root.rank_classes()->Get(c);
  };
  struct Collective {
    uint32_t rankClass, instruction;
    uint64_t mask, signature;
  };
  std::vector<Collective> collectives;
  uint64_t used = 0;
  std::vector<uint64_t> masks;
  IntsDigests digests;
  for (uint32_t c = 0; c < numClasses; ++c)
    for (uint32_t i = 0; i < sizeOf(classAt(c).program()); ++i) {
      const fb::Instruction &inst = *classAt(c).program()->Get(i);
      if (!isCollective(inst.opcode()))
        continue;
      uint64_t mask = axesMask(inst);
      collectives.push_back(
          {c, i, mask, collectiveSignature(classAt(c), inst, &digests)});
      used |= mask;
      if (std::find(masks.begin(), masks.end(), mask) == masks.end())
        masks.push_back(mask);
    }
  if (collectives.empty())
    return Status();
  // No two ranks differ in an axis of extent 1.
  for (size_t a = 0; a < mesh.size(); ++a)
    if (mesh[a] == 1)
      used &= ~(uint64_t(1) << a);
  // With every subset of `used` at hand, a rank need only be compared for
  // the subsets of the axes it has non-zero coordinates in: for any other D
  // its lead is the same as for a smaller subset, whose list holds D's.
  int usedAxes = __builtin_popcountll(used);
  bool allSubsets = usedAxes <= 12 &&
                    uint64_t(numClasses) * ((uint64_t(1) << usedAxes) - 1) <=
                        kMaxCollectiveLists;
  std::vector<uint64_t> differing;
  if (allSubsets) {
    for (uint64_t d = used; d; d = (d - 1) & used)
      differing.push_back(d);
  } else {
    // The collectives' own axis sets, and each axis alone: ranks differing
    // in one axis meet in every collective over it, and must run those in
    // one order even where the collectives' sets differ.
    differing = masks;
    std::vector<uint64_t> singles;
    for (uint32_t a = 0; a < 64; ++a)
      if ((used >> a & 1) && std::find(masks.begin(), masks.end(),
                                       uint64_t(1) << a) == masks.end())
        singles.push_back(uint64_t(1) << a);
    if (uint64_t(numClasses) * (masks.size() + singles.size()) <=
        kMaxCollectiveLists)
      differing.insert(differing.end(), singles.begin(), singles.end());
  }
  std::map<uint64_t, size_t> indexOf;
  for (size_t k = 0; k < differing.size(); ++k)
    indexOf[differing[k]] = k;
  // signatures[c * K + k]: class c's collectives whose axes include
  // differing[k], in program order.
  size_t K = differing.size();
  std::vector<Sequence> signatures(numClasses * K);
  for (const Collective &coll : collectives)
    for (size_t k = 0; k < K; ++k)
      if ((coll.mask & differing[k]) == differing[k])
        signatures[coll.rankClass * K + k].append(coll.signature);
  // Only a mismatch lists the instructions, to name them.
  auto instructionsOf = [&](uint32_t c, uint64_t d) {
    std::vector<uint32_t> list;
    for (const Collective &coll : collectives)
      if (coll.rankClass == c && (coll.mask & d) == d)
        list.push_back(coll.instruction);
    return list;
  };
  // Ranks are row-major over the mesh: moving along axis a by one moves
  // stride[a] ranks.
  std::vector<int64_t> stride(mesh.size(), 1);
  for (size_t a = mesh.size(); a-- > 1;)
    stride[a - 1] = stride[a] * mesh[a];
  // Rank r against the rank it meets with coordinates `differs` zeroed,
  // over the collectives that include differing[k].
  auto compare = [&](int64_t r, const std::vector<int64_t> &coords, size_t k,
                     uint64_t differs) -> Status {
    int64_t lead = r;
    for (size_t a = 0; a < mesh.size(); ++a)
      if (differs >> a & 1)
        lead -= coords[a] * stride[a];
    uint32_t myClass = uint32_t(rankToClass[r]),
             leadClass = uint32_t(rankToClass[lead]);
    if (signatures[myClass * K + k] == signatures[leadClass * K + k])
      return Status();
    const fb::RankClass &mine = classAt(myClass), &theirs = classAt(leadClass);
    std::vector<uint32_t> myList = instructionsOf(myClass, differing[k]),
                          leadList = instructionsOf(leadClass, differing[k]);
    size_t n = 0;
    while (n < myList.size() && n < leadList.size() &&
           collectiveSignature(mine, *mine.program()->Get(myList[n])) ==
               collectiveSignature(theirs, *theirs.program()->Get(leadList[n])))
      ++n;
    return invalid("rank " + to_string(r) + " and rank " + to_string(lead) +
                   ", which differ in mesh axes " + axesString(differs) +
                   ", disagree on collective " + to_string(n) +
                   " of those over (at least) these axes: rank " +
                   to_string(r) + " runs " + collectiveAt(mine, myList, n) +
                   ", rank " + to_string(lead) + " runs " +
                   collectiveAt(theirs, leadList, n));
  };
  for (int64_t r = 0; r < int64_t(rankToClass.size()); ++r) {
    std::vector<int64_t> coords = meshCoordinates(mesh, r);
    uint64_t nonzero = 0;
    for (size_t a = 0; a < mesh.size(); ++a)
      if (coords[a] != 0)
        nonzero |= uint64_t(1) << a;
    if (allSubsets) {
      uint64_t mine = nonzero & used;
      for (uint64_t d = mine; d; d = (d - 1) & mine)
        if (Status s = compare(r, coords, indexOf.at(d), d); !s.ok())
          return s;
      continue;
    }
    for (size_t k = 0; k < K; ++k)
      if (uint64_t differs = differing[k] & nonzero; differs != 0)
        if (Status s = compare(r, coords, k, differs); !s.ok())
          return s;
  }
  return Status();
}

} // namespace

Status checkPairing(const fb::Artifact &root,
                    const std::vector<int32_t> &rankToClass) {
  std::vector<int64_t> mesh = meshShape(root);
  if (Status s = checkMessages(root, mesh, rankToClass); !s.ok())
    return s;
  return checkCollectives(root, mesh, rankToClass);
}

} // namespace shardrt::artifact::detail
