//===- Validate.cpp - Semantic checks of a verified artifact --------------===//
//
// The FlatBuffers verifier only proves that every offset stays inside the
// buffer. Everything the executor indexes with (ranks, slots, constants,
// kernel symbols, blob ranges, mesh axes, box corners) is checked here, so
// that a corrupted or inconsistent artifact is an error at load and never an
// out-of-bounds access while running.
//
//===----------------------------------------------------------------------===//

#include "Validate.h"

#include "shardrt/Split.h"
#include "shardrt/artifact/Format.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_set>

namespace shardrt::artifact::detail {

namespace {

using flatbuffers::Offset;
using flatbuffers::Vector;
using std::to_string;

constexpr uint32_t kMaxMeshAxes = 32;

std::string str(const flatbuffers::String *s) {
  return s ? s->str() : std::string();
}

Status unknownEnum(const std::string &where, const char *what, uint64_t value,
                   uint64_t max) {
  return Status::unimplemented(
      "shardbin artifact: " + where + " uses " + what + " " + to_string(value) +
      ", unknown to this runtime (it knows 0.." + to_string(max) +
      "); the artifact needs a newer runtime");
}

bool inBlob(const fb::BlobRef *ref, uint64_t blobBytes) {
  return ref && ref->bytes() <= blobBytes &&
         ref->offset() <= blobBytes - ref->bytes();
}

/// Bytes of a dense tensor; false on a negative dimension or on overflow.
bool tensorBytes(fb::DType dtype, const Vector<int64_t> *shape,
                 uint64_t &bytes) {
  bytes = dtypeSize(dtype);
  for (uint32_t i = 0; i < sizeOf(shape); ++i) {
    int64_t d = shape->Get(i);
    if (d < 0 || __builtin_mul_overflow(bytes, uint64_t(d), &bytes))
      return false;
  }
  return true;
}

/// Shapes as stored (a 0-d shape may be an absent vector).
bool sameShape(const Vector<int64_t> *a, const Vector<int64_t> *b) {
  if (sizeOf(a) != sizeOf(b))
    return false;
  for (uint32_t i = 0; i < sizeOf(a); ++i)
    if (a->Get(i) != b->Get(i))
      return false;
  return true;
}

bool sameShape(const Vector<int64_t> *a, const std::vector<int64_t> &b) {
  if (sizeOf(a) != b.size())
    return false;
  for (uint32_t i = 0; i < b.size(); ++i)
    if (a->Get(i) != b[i])
      return false;
  return true;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + to_string(shape[i]);
  return s + "]";
}
// The overload for stored shapes is shared (Validate.h).
using detail::shapeString;

/// Fused instructions may instead carry their body (str and ints) for the
/// CPU.
bool needsKernel(const fb::Instruction &inst) {
  fb::Opcode op = inst.opcode();
  if (op == fb::Opcode::ElementwiseFused || op == fb::Opcode::ReductionFused)
    return !inst.str() || inst.str()->size() == 0;
  return op == fb::Opcode::KernelLaunch;
}

class Validator {
public:
  explicit Validator(const fb::Artifact &root) : root_(root) {}
  Status run(std::vector<int32_t> &rankToClass);

private:
  Status checkMesh();
  Status checkRankCoverage();
  Status checkTensors(const Vector<Offset<fb::TensorDesc>> *tensors,
                      const char *what);
  Status checkTensor(const fb::TensorDesc &tensor, const std::string &where);
  Status checkAxes(const Vector<uint32_t> *axes, std::vector<bool> &used,
                   const std::string &where);
  Status checkKernels();
  Status checkRankClass(uint32_t index);
  Status checkSlots(const fb::RankClass &rc, const std::string &where);
  Status checkInstruction(const fb::RankClass &rc, uint32_t index,
                          const std::string &where);
  Status checkTransfer(const fb::RankClass &rc, const fb::Transfer &t,
                       const std::string &where);
  Status checkIoBindings(const fb::RankClass &rc, bool inputs,
                         const std::string &where);
  Status checkConstants();
  Status checkConstant(uint32_t index, std::vector<int32_t> &shardOfRank);
  Status checkRankList(const Vector<int32_t> *ranks,
                       std::vector<int32_t> &owner, int32_t id,
                       const std::string &where, const char *ownerKind);

  std::string classWhere(uint32_t index) const;

  const fb::Artifact &root_;
  std::vector<int64_t> mesh_;
  int32_t worldSize_ = 0;
  uint64_t blobBytes_ = 0;
  std::vector<int32_t> rankToClass_;
  std::vector<bool> symbolDefined_;
  /// The last ring list checked: the members of a ring (a class each
  /// when uneven) share it.
  CheckedRing checkedRing_;
};

Status Validator::run(std::vector<int32_t> &rankToClass) {
  blobBytes_ = root_.blob_bytes();
  if (Status s = checkMesh(); !s.ok())
    return s;
  if (Status s = checkRankCoverage(); !s.ok())
    return s;
  if (Status s = checkTensors(root_.inputs(), "input"); !s.ok())
    return s;
  if (Status s = checkTensors(root_.outputs(), "output"); !s.ok())
    return s;
  if (Status s = checkKernels(); !s.ok())
    return s;
  for (uint32_t i = 0; i < sizeOf(root_.rank_classes()); ++i)
    if (Status s = checkRankClass(i); !s.ok())
      return s;
  if (Status s = checkConstants(); !s.ok())
    return s;
  if (Status s = checkPairing(root_, rankToClass_); !s.ok())
    return s;
  rankToClass = std::move(rankToClass_);
  return Status();
}

std::string Validator::classWhere(uint32_t index) const {
  const fb::RankClass *rc = root_.rank_classes()->Get(index);
  std::string name = str(rc->name());
  return "rank class " + to_string(index) +
         (name.empty() ? "" : " ('" + name + "')");
}

Status Validator::checkMesh() {
  const fb::Mesh *mesh = root_.mesh();
  if (!mesh)
    return invalid("no mesh");
  uint32_t rank = sizeOf(mesh->shape());
  // Per-instruction work is proportional to the mesh rank; real meshes have
  // a handful of axes, so a huge rank can only be corruption.
  if (rank > kMaxMeshAxes)
    return invalid("the mesh has " + to_string(rank) + " axes; at most " +
                   to_string(kMaxMeshAxes) + " are supported");
  if (sizeOf(mesh->axis_names()) != rank)
    return invalid("the mesh has " + to_string(rank) + " axes but " +
                   to_string(sizeOf(mesh->axis_names())) + " axis names");
  int64_t product = 1;
  for (uint32_t a = 0; a < rank; ++a) {
    int32_t n = mesh->shape()->Get(a);
    std::string name = str(mesh->axis_names()->Get(a));
    if (n < 1)
      return invalid("mesh axis " + to_string(a) + " has size " + to_string(n) +
                     "; sizes must be at least 1");
    if (name.empty())
      return invalid("mesh axis " + to_string(a) + " has no name");
    for (uint32_t b = 0; b < a; ++b)
      if (str(mesh->axis_names()->Get(b)) == name)
        return invalid("mesh axis name '" + name + "' is used twice");
    product *= n;
    if (product > std::numeric_limits<int32_t>::max())
      return invalid("the mesh has more than 2^31 - 1 devices");
    mesh_.push_back(n);
  }
  worldSize_ = root_.world_size();
  if (worldSize_ != product)
    return invalid("world size " + to_string(worldSize_) +
                   " differs from the mesh's device count " +
                   to_string(product));
  return Status();
}

/// Checks that no rank of `ranks` is outside the world or already owned, and
/// records `id` as the owner of each.
Status Validator::checkRankList(const Vector<int32_t> *ranks,
                                std::vector<int32_t> &owner, int32_t id,
                                const std::string &where,
                                const char *ownerKind) {
  for (uint32_t i = 0; i < sizeOf(ranks); ++i) {
    int32_t r = ranks->Get(i);
    if (r < 0 || r >= worldSize_)
      return invalid(where + " lists rank " + to_string(r) +
                     ", outside the world of " + to_string(worldSize_) +
                     " ranks");
    if (owner[r] >= 0)
      return invalid("rank " + to_string(r) + " appears in " + ownerKind + " " +
                     to_string(owner[r]) + " and in " + where);
    owner[r] = id;
  }
  return Status();
}

Status Validator::checkRankCoverage() {
  uint32_t numClasses = sizeOf(root_.rank_classes());
  if (numClasses == 0)
    return invalid("no rank classes");
  uint64_t listed = 0;
  for (uint32_t c = 0; c < numClasses; ++c) {
    uint32_t n = sizeOf(root_.rank_classes()->Get(c)->ranks());
    if (n == 0)
      return invalid(classWhere(c) + " has no ranks");
    listed += n;
  }
  // The world size comes from the file; bound the table below by what the
  // file itself lists so that a corrupted size cannot demand gigabytes.
  if (listed < uint64_t(worldSize_) && worldSize_ > (1 << 20))
    return invalid("the rank classes list " + to_string(listed) +
                   " ranks, the world has " + to_string(worldSize_));
  rankToClass_.assign(worldSize_, -1);
  for (uint32_t c = 0; c < numClasses; ++c)
    if (Status s =
            checkRankList(root_.rank_classes()->Get(c)->ranks(), rankToClass_,
                          int32_t(c), classWhere(c), "rank class");
        !s.ok())
      return s;
  for (int32_t r = 0; r < worldSize_; ++r)
    if (rankToClass_[r] < 0)
      return invalid("rank " + to_string(r) + " is in no rank class");
  return Status();
}

Status Validator::checkTensors(const Vector<Offset<fb::TensorDesc>> *tensors,
                               const char *what) {
  std::unordered_set<std::string> names;
  for (uint32_t i = 0; i < sizeOf(tensors); ++i) {
    const fb::TensorDesc &t = *tensors->Get(i);
    std::string name = str(t.name());
    std::string where = std::string(what) + " " + to_string(i) +
                        (name.empty() ? "" : " ('" + name + "')");
    if (name.empty())
      return invalid(where + " has no name");
    if (!names.insert(name).second)
      return invalid(std::string(what) + " name '" + name + "' is used twice");
    if (Status s = checkTensor(t, where); !s.ok())
      return s;
  }
  return Status();
}

/// Mesh axes in range and each used at most once per tensor (`used`).
Status Validator::checkAxes(const Vector<uint32_t> *axes,
                            std::vector<bool> &used, const std::string &where) {
  for (uint32_t i = 0; i < sizeOf(axes); ++i) {
    uint32_t a = axes->Get(i);
    if (a >= mesh_.size())
      return invalid(where + " names mesh axis " + to_string(a) +
                     "; the mesh has " + to_string(mesh_.size()) + " axes");
    if (used[a])
      return invalid(where + " uses mesh axis " + to_string(a) + " twice");
    used[a] = true;
  }
  return Status();
}

Status Validator::checkTensor(const fb::TensorDesc &t,
                              const std::string &where) {
  if (dtypeSize(t.dtype()) == 0)
    return unknownEnum(where, "dtype", uint64_t(t.dtype()),
                       uint64_t(fb::DType::MAX));
  uint32_t rank = sizeOf(t.shape());
  if (sizeOf(t.dims()) != rank)
    return invalid(where + " has " + to_string(rank) + " dimensions but " +
                   to_string(sizeOf(t.dims())) + " dimension shardings");
  std::vector<bool> used(mesh_.size(), false);
  for (uint32_t d = 0; d < rank; ++d) {
    std::string dimWhere = where + " dimension " + to_string(d);
    const fb::DimSharding &ds = *t.dims()->Get(d);
    if (Status s = checkAxes(ds.mesh_axes(), used, dimWhere); !s.ok())
      return s;
    int64_t shards = 1;
    for (uint32_t i = 0; i < sizeOf(ds.mesh_axes()); ++i)
      shards *= mesh_[ds.mesh_axes()->Get(i)];
    std::vector<int64_t> extents;
    for (uint32_t i = 0; i < sizeOf(ds.extents()); ++i)
      extents.push_back(ds.extents()->Get(i));
    if (Status s = validateExtents(t.shape()->Get(d), extents, shards); !s.ok())
      return invalid(dimWhere + ": " + s.message());
  }
  if (t.partial() > fb::ReduceKind::MAX)
    return unknownEnum(where, "partial kind", uint64_t(t.partial()),
                       uint64_t(fb::ReduceKind::MAX));
  bool partial = t.partial() != fb::ReduceKind::None;
  if (partial != (sizeOf(t.partial_axes()) > 0))
    return invalid(where + (partial ? " is partial over no mesh axes"
                                    : " lists partial axes but is not "
                                      "partial"));
  return checkAxes(t.partial_axes(), used, where + " partial axes");
}

Status Validator::checkKernels() {
  uint32_t numSymbols = sizeOf(root_.kernel_symbols());
  std::unordered_set<std::string> names;
  for (uint32_t i = 0; i < numSymbols; ++i) {
    std::string name = str(root_.kernel_symbols()->Get(i));
    if (name.empty())
      return invalid("kernel symbol " + to_string(i) + " is empty");
    if (!names.insert(name).second)
      return invalid("kernel symbol '" + name + "' is listed twice");
  }
  if (root_.reference() && !inBlob(root_.reference(), blobBytes_))
    return invalid("the reference artifact lies outside the blob region of " +
                   to_string(blobBytes_) + " bytes");
  symbolDefined_.assign(numSymbols, false);
  for (uint32_t k = 0; k < sizeOf(root_.kernels()); ++k) {
    const fb::KernelBinary &kb = *root_.kernels()->Get(k);
    std::string where = "kernel binary " + to_string(k);
    if (str(kb.target()).empty())
      return invalid(where + " has no target");
    if (kb.format() > fb::KernelFormat::MAX)
      return unknownEnum(where, "kernel format", uint64_t(kb.format()),
                         uint64_t(fb::KernelFormat::MAX));
    if (!inBlob(kb.data(), blobBytes_))
      return invalid(where + " lies outside the blob region of " +
                     to_string(blobBytes_) + " bytes");
    for (uint32_t i = 0; i < sizeOf(kb.symbols()); ++i) {
      uint32_t sym = kb.symbols()->Get(i);
      if (sym >= numSymbols)
        return invalid(where + " defines symbol " + to_string(sym) + " of " +
                       to_string(numSymbols));
      symbolDefined_[sym] = true;
    }
  }
  return Status();
}

Status Validator::checkRankClass(uint32_t index) {
  const fb::RankClass &rc = *root_.rank_classes()->Get(index);
  std::string where = classWhere(index);
  if (Status s = checkSlots(rc, where); !s.ok())
    return s;
  for (uint32_t i = 0; i < sizeOf(rc.program()); ++i)
    if (Status s = checkInstruction(rc, i, where); !s.ok())
      return s;
  if (Status s = checkIoBindings(rc, /*inputs=*/true, where); !s.ok())
    return s;
  if (Status s = checkIoBindings(rc, /*inputs=*/false, where); !s.ok())
    return s;
  // Per-rank shard coverage of the bindings is checked with the constants.
  uint32_t numSlots = sizeOf(rc.buffers());
  for (uint32_t i = 0; i < sizeOf(rc.constants()); ++i) {
    const fb::ConstantBinding &b = *rc.constants()->Get(i);
    if (b.constant() >= sizeOf(root_.constants()))
      return invalid(where + " binds constant " + to_string(b.constant()) +
                     "; the artifact has " +
                     to_string(sizeOf(root_.constants())));
    if (b.slot() >= numSlots)
      return invalid(where + " binds a constant to buffer slot " +
                     to_string(b.slot()) + "; the class has " +
                     to_string(numSlots) + " slots");
  }
  return Status();
}

Status Validator::checkSlots(const fb::RankClass &rc,
                             const std::string &where) {
  uint64_t arena = rc.arena_bytes();
  // A slot bound to a constant is read from the file, not the arena; the
  // constant checks make its shard fit the slot.
  std::vector<bool> inFile(sizeOf(rc.buffers()), false);
  for (uint32_t i = 0; i < sizeOf(rc.constants()); ++i)
    if (rc.constants()->Get(i)->slot() < inFile.size())
      inFile[rc.constants()->Get(i)->slot()] = true;
  for (uint32_t i = 0; i < sizeOf(rc.buffers()); ++i) {
    const fb::BufferSlot &slot = *rc.buffers()->Get(i);
    std::string slotWhere = where + " buffer slot " + to_string(i);
    if (!inFile[i] &&
        (slot.bytes() > arena || slot.offset() > arena - slot.bytes()))
      return invalid(slotWhere + " [" + to_string(slot.offset()) + ", +" +
                     to_string(slot.bytes()) + ") lies outside the arena of " +
                     to_string(arena) + " bytes");
    if (dtypeSize(slot.dtype()) == 0)
      return unknownEnum(slotWhere, "dtype", uint64_t(slot.dtype()),
                         uint64_t(fb::DType::MAX));
    if (!slot.has_shape())
      continue;
    uint64_t bytes;
    if (!tensorBytes(slot.dtype(), slot.shape(), bytes) || bytes > slot.bytes())
      return invalid(slotWhere + " of " + to_string(slot.bytes()) +
                     " bytes cannot hold its tensor of shape " +
                     shapeString(slot.shape()));
  }
  return Status();
}

Status Validator::checkInstruction(const fb::RankClass &rc, uint32_t index,
                                   const std::string &classWhere) {
  const fb::Instruction &inst = *rc.program()->Get(index);
  std::string where = classWhere + " instruction " + to_string(index);
  if (inst.opcode() > fb::Opcode::MAX || inst.opcode() == fb::Opcode::Invalid)
    return unknownEnum(where, "opcode", uint64_t(inst.opcode()),
                       uint64_t(fb::Opcode::MAX));
  where += std::string(" (") + fb::EnumNameOpcode(inst.opcode()) + ")";
  uint32_t numSlots = sizeOf(rc.buffers());
  for (const auto *operands : {inst.inputs(), inst.outputs()})
    for (uint32_t i = 0; i < sizeOf(operands); ++i)
      if (operands->Get(i) >= numSlots)
        return invalid(where +
                       (operands == inst.inputs() ? " input " : " output ") +
                       to_string(i) + " refers to buffer slot " +
                       to_string(operands->Get(i)) + "; the class has " +
                       to_string(numSlots) + " slots");
  if (inst.kernel() < -1 ||
      inst.kernel() >= int64_t(sizeOf(root_.kernel_symbols())))
    return invalid(where + " refers to kernel symbol " +
                   to_string(inst.kernel()) + "; the artifact has " +
                   to_string(sizeOf(root_.kernel_symbols())));
  if (inst.kernel() >= 0 && !symbolDefined_[inst.kernel()])
    return invalid(where + " calls kernel '" +
                   str(root_.kernel_symbols()->Get(inst.kernel())) +
                   "', which no kernel binary defines");
  if (needsKernel(inst) && inst.kernel() < 0)
    return invalid(where + " names no kernel" +
                   (inst.opcode() == fb::Opcode::ElementwiseFused ||
                            inst.opcode() == fb::Opcode::ReductionFused
                        ? " and carries no body"
                        : ""));
  if (inst.reduce() > fb::ReduceKind::MAX)
    return unknownEnum(where, "reduction", uint64_t(inst.reduce()),
                       uint64_t(fb::ReduceKind::MAX));
  if ((inst.opcode() == fb::Opcode::AllReduce ||
       inst.opcode() == fb::Opcode::ReduceScatter) &&
      inst.reduce() == fb::ReduceKind::None)
    return invalid(where + " has no reduction");
  std::vector<bool> used(mesh_.size(), false);
  if (Status s = checkAxes(inst.mesh_axes(), used, where); !s.ok())
    return s;
  if (isCollective(inst.opcode()) && sizeOf(inst.mesh_axes()) == 0 &&
      !mesh_.empty())
    return invalid(where + " names no mesh axes");
  // The runtime broadcasts and synchronises the world only, in world rank
  // order (the root is a world rank).
  if (inst.opcode() == fb::Opcode::Broadcast ||
      inst.opcode() == fb::Opcode::Barrier) {
    bool inMeshOrder = sizeOf(inst.mesh_axes()) == mesh_.size();
    for (uint32_t i = 0; inMeshOrder && i < sizeOf(inst.mesh_axes()); ++i)
      inMeshOrder = inst.mesh_axes()->Get(i) == i;
    if (!inMeshOrder)
      return invalid(where + " must run over every mesh axis, in mesh order");
  }
  if (inst.opcode() == fb::Opcode::RingAttention)
    if (Status st = checkRingAttention(rc, inst, mesh_, where, checkedRing_);
        !st.ok())
      return st;
  if (inst.opcode() == fb::Opcode::Wait &&
      (sizeOf(inst.ints()) < 1 || inst.ints()->Get(0) < 0 ||
       inst.ints()->Get(0) >= int64_t(index)))
    return invalid(where + " must name an earlier instruction in ints[0]");
  for (uint32_t i = 0; i < sizeOf(inst.transfers()); ++i)
    if (Status s = checkTransfer(rc, *inst.transfers()->Get(i),
                                 where + " transfer " + to_string(i));
        !s.ok())
      return s;
  return Status();
}

Status Validator::checkTransfer(const fb::RankClass &rc, const fb::Transfer &t,
                                const std::string &where) {
  if (t.kind() > fb::TransferKind::MAX)
    return unknownEnum(where, "transfer kind", uint64_t(t.kind()),
                       uint64_t(fb::TransferKind::MAX));
  if (sizeOf(t.peer()) != mesh_.size())
    return invalid(where + " has a peer offset of " +
                   to_string(sizeOf(t.peer())) + " coordinates; the mesh has " +
                   to_string(mesh_.size()) + " axes");
  if (t.slot() >= sizeOf(rc.buffers()) ||
      !rc.buffers()->Get(t.slot())->has_shape())
    return invalid(where + " refers to buffer slot " + to_string(t.slot()) +
                   ", which does not exist or has no shape");
  const fb::BufferSlot &slot = *rc.buffers()->Get(t.slot());
  uint32_t rank = sizeOf(slot.shape());
  if (sizeOf(t.lo()) != rank || sizeOf(t.hi()) != rank)
    return invalid(where +
                   ": the box has the wrong number of dimensions "
                   "for buffer slot " +
                   to_string(t.slot()) + " of rank " + to_string(rank));
  for (uint32_t d = 0; d < rank; ++d)
    if (t.lo()->Get(d) < 0 || t.lo()->Get(d) > t.hi()->Get(d) ||
        t.hi()->Get(d) > slot.shape()->Get(d))
      return invalid(where + ": the box lies outside buffer slot " +
                     to_string(t.slot()) + " of shape " +
                     shapeString(slot.shape()) + " in dimension " +
                     to_string(d));
  if (t.periodic())
    return Status();
  for (uint32_t i = 0; i < sizeOf(rc.ranks()); ++i) {
    std::vector<int64_t> coords = meshCoordinates(mesh_, rc.ranks()->Get(i));
    for (size_t a = 0; a < mesh_.size(); ++a) {
      int64_t c = coords[a] + t.peer()->Get(a);
      if (c < 0 || c >= mesh_[a])
        return invalid(where + ": rank " + to_string(rc.ranks()->Get(i)) +
                       " at " + shapeString(coords) +
                       " has no peer at that offset on a non-periodic mesh");
    }
  }
  return Status();
}

/// Each input (output) of the artifact has a slot in every class whose
/// shape is the local shard of every rank of the class: ranks share a class
/// only when their local shapes agree (DESIGN.md core idea 1).
Status Validator::checkIoBindings(const fb::RankClass &rc, bool inputs,
                                  const std::string &where) {
  const auto *tensors = inputs ? root_.inputs() : root_.outputs();
  const auto *slots = inputs ? rc.input_slots() : rc.output_slots();
  const char *what = inputs ? "input" : "output";
  if (sizeOf(slots) != sizeOf(tensors))
    return invalid(where + " binds " + to_string(sizeOf(slots)) + " " + what +
                   "s; the artifact has " + to_string(sizeOf(tensors)));
  for (uint32_t i = 0; i < sizeOf(slots); ++i) {
    const fb::TensorDesc &t = *tensors->Get(i);
    std::string bindWhere = where + " " + what + " '" + str(t.name()) + "'";
    uint32_t s = slots->Get(i);
    if (s >= sizeOf(rc.buffers()) || !rc.buffers()->Get(s)->has_shape())
      return invalid(bindWhere + " is bound to buffer slot " + to_string(s) +
                     ", which does not exist or has no shape");
    const fb::BufferSlot &slot = *rc.buffers()->Get(s);
    if (slot.dtype() != t.dtype())
      return invalid(bindWhere + " is " + fb::EnumNameDType(t.dtype()) +
                     " but its slot is " + fb::EnumNameDType(slot.dtype()));
    for (uint32_t r = 0; r < sizeOf(rc.ranks()); ++r) {
      int32_t rank = rc.ranks()->Get(r);
      LocalShard local = localShardAt(t, mesh_, meshCoordinates(mesh_, rank),
                                      /*withOffsets=*/false);
      if (!sameShape(slot.shape(), local.shape))
        return invalid(bindWhere + ": rank " + to_string(rank) +
                       " owns a shard of shape " + shapeString(local.shape) +
                       " but buffer slot " + to_string(s) + " has shape " +
                       shapeString(slot.shape()));
    }
  }
  return Status();
}

Status Validator::checkConstant(uint32_t index,
                                std::vector<int32_t> &shardOfRank) {
  const fb::Constant &c = *root_.constants()->Get(index);
  std::string name = str(c.name());
  std::string where = "constant " + to_string(index) +
                      (name.empty() ? "" : " ('" + name + "')");
  if (dtypeSize(c.dtype()) == 0)
    return unknownEnum(where, "dtype", uint64_t(c.dtype()),
                       uint64_t(fb::DType::MAX));
  uint32_t align = c.alignment();
  // The blob region is only 64-byte aligned in the file (Format.h), so a
  // larger alignment of an offset would not be an alignment in memory.
  if (align == 0 || (align & (align - 1)) != 0 || align > kBlobAlignment)
    return invalid(where + " has alignment " + to_string(align) +
                   "; it must be a power of two up to " +
                   to_string(kBlobAlignment));
  std::fill(shardOfRank.begin(), shardOfRank.end(), -1);
  for (uint32_t s = 0; s < sizeOf(c.shards()); ++s) {
    const fb::ConstantShard &shard = *c.shards()->Get(s);
    std::string shardWhere = where + " shard " + to_string(s);
    if (!inBlob(shard.data(), blobBytes_))
      return invalid(shardWhere + " lies outside the blob region of " +
                     to_string(blobBytes_) + " bytes");
    if (shard.data()->offset() % align != 0)
      return invalid(shardWhere + " at blob offset " +
                     to_string(shard.data()->offset()) + " is not aligned to " +
                     to_string(align));
    uint64_t bytes;
    if (!tensorBytes(c.dtype(), shard.shape(), bytes) ||
        bytes != shard.data()->bytes())
      return invalid(shardWhere + " has " + to_string(shard.data()->bytes()) +
                     " bytes, not those of a tensor of shape " +
                     shapeString(shard.shape()));
    if (Status st = checkRankList(shard.ranks(), shardOfRank, int32_t(s),
                                  shardWhere, "shard");
        !st.ok())
      return st;
  }
  return Status();
}

/// Every rank of a class that binds a constant has a shard of it, and the
/// shard fits the slot it is bound to.
Status Validator::checkConstants() {
  std::vector<int32_t> shardOfRank(worldSize_, -1);
  for (uint32_t i = 0; i < sizeOf(root_.constants()); ++i) {
    if (Status s = checkConstant(i, shardOfRank); !s.ok())
      return s;
    const fb::Constant &c = *root_.constants()->Get(i);
    for (uint32_t ci = 0; ci < sizeOf(root_.rank_classes()); ++ci) {
      const fb::RankClass &rc = *root_.rank_classes()->Get(ci);
      for (uint32_t b = 0; b < sizeOf(rc.constants()); ++b) {
        const fb::ConstantBinding &binding = *rc.constants()->Get(b);
        if (binding.constant() != i)
          continue;
        const fb::BufferSlot &slot = *rc.buffers()->Get(binding.slot());
        for (uint32_t r = 0; r < sizeOf(rc.ranks()); ++r) {
          int32_t rank = rc.ranks()->Get(r);
          std::string where = classWhere(ci) + " binds constant " +
                              to_string(i) + " ('" + str(c.name()) + "')";
          if (shardOfRank[rank] < 0)
            return invalid(where + ", which has no shard for rank " +
                           to_string(rank));
          const fb::ConstantShard &shard = *c.shards()->Get(shardOfRank[rank]);
          if (slot.dtype() != c.dtype() || !slot.has_shape() ||
              !sameShape(slot.shape(), shard.shape()))
            return invalid(where + ": the shard of rank " + to_string(rank) +
                           " does not match buffer slot " +
                           to_string(binding.slot()) + "'s dtype and shape");
        }
      }
    }
  }
  return Status();
}

/// True when the elements of an 8-byte vector are 8-byte aligned. The
/// FlatBuffers verifier (2.0.8) only checks the alignment of a vector's length
/// field, so a corrupted offset can leave int64/double elements at 4 mod 8,
/// and reading them would be undefined behaviour. Empty vectors have nothing
/// to read (and the builder does not align them).
template <typename T> bool wideAligned(const Vector<T> *v) {
  static_assert(sizeof(T) == 8, "only 8-byte elements can be misaligned");
  return !v || v->size() == 0 ||
         reinterpret_cast<uintptr_t>(v->Data()) % alignof(T) == 0;
}

bool tensorsAligned(const Vector<Offset<fb::TensorDesc>> *tensors) {
  for (uint32_t i = 0; i < sizeOf(tensors); ++i) {
    const fb::TensorDesc &t = *tensors->Get(i);
    if (!wideAligned(t.shape()))
      return false;
    for (uint32_t d = 0; d < sizeOf(t.dims()); ++d)
      if (!wideAligned(t.dims()->Get(d)->extents()))
        return false;
  }
  return true;
}

bool rankClassAligned(const fb::RankClass &rc) {
  for (uint32_t i = 0; i < sizeOf(rc.buffers()); ++i)
    if (!wideAligned(rc.buffers()->Get(i)->shape()))
      return false;
  for (uint32_t i = 0; i < sizeOf(rc.program()); ++i) {
    const fb::Instruction &inst = *rc.program()->Get(i);
    if (!wideAligned(inst.ints()) || !wideAligned(inst.floats()))
      return false;
    for (uint32_t t = 0; t < sizeOf(inst.transfers()); ++t)
      if (!wideAligned(inst.transfers()->Get(t)->lo()) ||
          !wideAligned(inst.transfers()->Get(t)->hi()))
        return false;
  }
  return true;
}

/// Every vector of 8-byte elements in the artifact is aligned.
bool wideVectorsAligned(const fb::Artifact &root) {
  if (!tensorsAligned(root.inputs()) || !tensorsAligned(root.outputs()))
    return false;
  for (uint32_t c = 0; c < sizeOf(root.rank_classes()); ++c)
    if (!rankClassAligned(*root.rank_classes()->Get(c)))
      return false;
  for (uint32_t k = 0; k < sizeOf(root.constants()); ++k) {
    const fb::Constant &c = *root.constants()->Get(k);
    for (uint32_t s = 0; s < sizeOf(c.shards()); ++s)
      if (!wideAligned(c.shards()->Get(s)->shape()))
        return false;
  }
  return true;
}

} // namespace

Status invalid(const std::string &message) {
  return Status::invalidArgument("invalid shardbin artifact: " + message);
}

std::string shapeString(const Vector<int64_t> *shape, uint32_t shown) {
  std::vector<int64_t> v;
  for (uint32_t i = 0; i < std::min(sizeOf(shape), shown); ++i)
    v.push_back(shape->Get(i));
  std::string s = shapeString(v);
  if (sizeOf(shape) > shown)
    s.insert(s.size() - 1, ", ... (" + to_string(sizeOf(shape)) + " in all)");
  return s;
}

bool isCollective(fb::Opcode op) {
  return op == fb::Opcode::AllReduce || op == fb::Opcode::AllGather ||
         op == fb::Opcode::ReduceScatter || op == fb::Opcode::AllToAll ||
         op == fb::Opcode::Broadcast || op == fb::Opcode::Barrier ||
         op == fb::Opcode::RingAttention;
}

Status verifyFlatBuffer(const uint8_t *buffer, size_t size) {
  if (size < sizeof(flatbuffers::uoffset_t) ||
      size >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return Status::dataLoss("corrupted shardbin artifact: FlatBuffer of " +
                            to_string(size) + " bytes");
  flatbuffers::Verifier::Options options;
  // A table costs at least a few bytes, so this bound only rejects buffers
  // that revisit shared tables over and over (the verifier's DoS guard)
  // while never limiting a legitimately large program.
  options.max_tables = std::max<flatbuffers::uoffset_t>(
      options.max_tables, flatbuffers::uoffset_t(size / 4));
  flatbuffers::Verifier verifier(buffer, size, options);
  if (!fb::VerifySizePrefixedArtifactBuffer(verifier))
    return Status::dataLoss(
        "corrupted shardbin artifact: the FlatBuffer fails verification "
        "(out-of-bounds offsets, bad identifier or malformed tables)");
  // The buffer itself must be 8-byte aligned for the check below to mean
  // anything; Artifact's storage and the builder's buffer both are.
  if (reinterpret_cast<uintptr_t>(buffer) % 8 != 0 ||
      !wideVectorsAligned(*fb::GetSizePrefixedArtifact(buffer)))
    return Status::dataLoss("corrupted shardbin artifact: a vector of 8-byte "
                            "elements is misaligned");
  return Status();
}

Status validateArtifact(const fb::Artifact &root,
                        std::vector<int32_t> &rankToClass) {
  return Validator(root).run(rankToClass);
}

std::vector<int64_t> meshShape(const fb::Artifact &root) {
  std::vector<int64_t> shape;
  for (uint32_t a = 0; a < sizeOf(root.mesh()->shape()); ++a)
    shape.push_back(root.mesh()->shape()->Get(a));
  return shape;
}

std::vector<int64_t> meshCoordinates(const std::vector<int64_t> &mesh,
                                     int64_t rank) {
  std::vector<int64_t> coords(mesh.size());
  for (size_t a = mesh.size(); a-- > 0;) {
    coords[a] = rank % mesh[a];
    rank /= mesh[a];
  }
  return coords;
}

int64_t meshRank(const std::vector<int64_t> &mesh,
                 const std::vector<int64_t> &coords) {
  int64_t rank = 0;
  for (size_t a = 0; a < mesh.size(); ++a)
    rank = rank * mesh[a] + coords[a];
  return rank;
}

LocalShard localShardAt(const fb::TensorDesc &tensor,
                        const std::vector<int64_t> &mesh,
                        const std::vector<int64_t> &coords, bool withOffsets) {
  LocalShard local;
  for (uint32_t d = 0; d < sizeOf(tensor.shape()); ++d) {
    const fb::DimSharding &ds = *tensor.dims()->Get(d);
    // Linear shard index over the dimension's axes, the first axis major.
    int64_t index = 0;
    for (uint32_t i = 0; i < sizeOf(ds.mesh_axes()); ++i) {
      uint32_t a = ds.mesh_axes()->Get(i);
      index = index * mesh[a] + coords[a];
    }
    int64_t offset = 0;
    for (int64_t s = 0; withOffsets && s < index; ++s)
      offset += ds.extents()->Get(uint32_t(s));
    local.offset.push_back(offset);
    local.shape.push_back(ds.extents()->Get(uint32_t(index)));
  }
  return local;
}

} // namespace shardrt::artifact::detail
