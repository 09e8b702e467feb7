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
//  - Collectives: the members of a group (ranks that differ only in the
//    coordinates of the collective's mesh axes) must run the same
//    collectives over those axes, in the same order, with the same
//    attributes and the same shapes where the members' shapes must agree.
//
// Both are compared through hashes: time proportional to the ranks times
// their programs' transfers, memory proportional to the rank classes. Only
// a mismatch builds the tables that name it.
//
//===----------------------------------------------------------------------===//

#include "Validate.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

namespace shardrt::artifact::detail {

namespace {

using flatbuffers::Vector;
using std::to_string;

template <typename T> uint32_t sizeOf(const Vector<T> *v) {
  return v ? v->size() : 0;
}

Status invalid(const std::string &message) {
  return Status::invalidArgument("invalid shardbin artifact: " + message);
}

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

std::string shapeString(const Vector<int64_t> *shape) {
  std::string s = "[";
  for (uint32_t i = 0; i < sizeOf(shape); ++i)
    s += (i ? ", " : "") + to_string(shape->Get(i));
  return s + "]";
}

int64_t rankAt(const std::vector<int64_t> &mesh,
               const std::vector<int64_t> &coords) {
  int64_t rank = 0;
  for (size_t a = 0; a < mesh.size(); ++a)
    rank = rank * mesh[a] + coords[a];
  return rank;
}

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
      fn(i, Message{t.kind() == fb::TransferKind::Send, rankAt(mesh, peer),
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

/// Every stream of rank `self` (it sends or receives on each), with the
/// sizes in program order.
std::map<StreamKey, Sequence> streamsOf(const fb::RankClass &rc,
                                        const std::vector<int64_t> &mesh,
                                        int64_t self, bool sends) {
  std::map<StreamKey, Sequence> streams;
  forEachMessage(rc, mesh, self, [&](uint32_t, const Message &m) {
    if (m.send != sends)
      return;
    StreamKey key =
        sends ? StreamKey{self, m.peer, m.tag} : StreamKey{m.peer, self, m.tag};
    streams[key].append(m.bytes);
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
    for (bool sends : {true, false})
      for (const auto &[key, seq] : streamsOf(classOf(r), mesh, r, sends))
        (sends ? sent : received) += streamHash(key, seq);
  }
  if (sent == received)
    return Status();
  // Name the first stream whose sides differ.
  std::map<StreamKey, std::pair<Sequence, Sequence>> all;
  for (int64_t r = 0; r < int64_t(rankToClass.size()); ++r)
    for (bool sends : {true, false})
      for (const auto &[key, seq] : streamsOf(classOf(r), mesh, r, sends))
        (sends ? all[key].first : all[key].second) = seq;
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

bool isCollective(fb::Opcode op) {
  return op == fb::Opcode::AllReduce || op == fb::Opcode::AllGather ||
         op == fb::Opcode::ReduceScatter || op == fb::Opcode::AllToAll ||
         op == fb::Opcode::Broadcast || op == fb::Opcode::Barrier;
}

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

/// What the members of a group must agree on for one collective.
uint64_t collectiveSignature(const fb::RankClass &rc,
                             const fb::Instruction &inst) {
  Sequence s;
  s.append(uint64_t(inst.opcode()));
  s.append(uint64_t(inst.reduce()));
  s.append(axesMask(inst));
  for (uint32_t i = 0; i < sizeOf(inst.ints()); ++i)
    s.append(uint64_t(inst.ints()->Get(i)));
  if (sizeOf(inst.inputs()) > 0)
    s.append(uint64_t(rc.buffers()->Get(inst.inputs()->Get(0))->dtype()));
  if (const Vector<int64_t> *shape = sharedShape(rc, inst)) {
    s.append(sizeOf(shape));
    for (uint32_t i = 0; i < sizeOf(shape); ++i)
      s.append(uint64_t(shape->Get(i)));
  }
  return s.hash ^ mix(s.count);
}

std::string describeCollective(const fb::RankClass &rc, uint32_t index) {
  const fb::Instruction &inst = *rc.program()->Get(index);
  std::string s = "instruction " + to_string(index) + " (" +
                  fb::EnumNameOpcode(inst.opcode()) + ", ints [";
  for (uint32_t i = 0; i < sizeOf(inst.ints()); ++i)
    s += (i ? ", " : "") + to_string(inst.ints()->Get(i));
  s += "]";
  if (const Vector<int64_t> *shape = sharedShape(rc, inst))
    s += ", shape " + shapeString(shape);
  return s + ")";
}

/// One rank class's collectives over one set of mesh axes, in order.
struct CollectiveList {
  Sequence signatures;
  std::vector<uint32_t> instructions;
};

/// The k-th collective of `list`, or "none" past its end.
std::string collectiveAt(const fb::RankClass &rc, const CollectiveList &list,
                         size_t k) {
  return k < list.instructions.size()
             ? describeCollective(rc, list.instructions[k])
             : std::string("none (it has ") +
                   to_string(list.instructions.size()) + ")";
}

std::string axesString(uint64_t mask) {
  std::string s = "[";
  for (uint32_t a = 0; a < 64; ++a)
    if (mask >> a & 1)
      s += (s.size() > 1 ? ", " : "") + to_string(a);
  return s + "]";
}

Status checkCollectives(const fb::Artifact &root,
                        const std::vector<int64_t> &mesh,
                        const std::vector<int32_t> &rankToClass) {
  uint32_t numClasses = sizeOf(root.rank_classes());
  std::vector<std::map<uint64_t, CollectiveList>> lists(numClasses);
  std::vector<uint64_t> masks;
  for (uint32_t c = 0; c < numClasses; ++c) {
    const fb::RankClass &rc = *root.rank_classes()->Get(c);
    for (uint32_t i = 0; i < sizeOf(rc.program()); ++i) {
      const fb::Instruction &inst = *rc.program()->Get(i);
      if (!isCollective(inst.opcode()))
        continue;
      CollectiveList &list = lists[c][axesMask(inst)];
      list.signatures.append(collectiveSignature(rc, inst));
      list.instructions.push_back(i);
    }
    for (const auto &entry : lists[c])
      if (!std::count(masks.begin(), masks.end(), entry.first))
        masks.push_back(entry.first);
  }
  if (masks.empty())
    return Status();
  const CollectiveList none;
  auto listOf = [&](int64_t rank, uint64_t mask) -> const CollectiveList & {
    const auto &byMask = lists[uint32_t(rankToClass[rank])];
    auto it = byMask.find(mask);
    return it == byMask.end() ? none : it->second;
  };
  // Every member is compared with the member at coordinate 0 of the
  // group's axes.
  for (int64_t r = 0; r < int64_t(rankToClass.size()); ++r) {
    std::vector<int64_t> coords = meshCoordinates(mesh, r);
    for (uint64_t mask : masks) {
      std::vector<int64_t> first = coords;
      for (size_t a = 0; a < mesh.size(); ++a)
        if (mask >> a & 1)
          first[a] = 0;
      int64_t lead = rankAt(mesh, first);
      const CollectiveList &mine = listOf(r, mask),
                           &theirs = listOf(lead, mask);
      if (lead == r || mine.signatures == theirs.signatures)
        continue;
      const fb::RankClass &myClass =
          *root.rank_classes()->Get(uint32_t(rankToClass[r]));
      const fb::RankClass &leadClass =
          *root.rank_classes()->Get(uint32_t(rankToClass[lead]));
      size_t k = 0;
      while (k < mine.instructions.size() && k < theirs.instructions.size() &&
             collectiveSignature(
                 myClass, *myClass.program()->Get(mine.instructions[k])) ==
                 collectiveSignature(leadClass, *leadClass.program()->Get(
                                                    theirs.instructions[k])))
        ++k;
      return invalid(
          "rank " + to_string(r) + " and rank " + to_string(lead) +
          ", one group over mesh axes " + axesString(mask) +
          ", disagree on collective " + to_string(k) + " of that group: rank " +
          to_string(r) + " runs " + collectiveAt(myClass, mine, k) + ", rank " +
          to_string(lead) + " runs " + collectiveAt(leadClass, theirs, k));
    }
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
