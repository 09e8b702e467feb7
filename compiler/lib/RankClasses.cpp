//===- RankClasses.cpp - Rank programs <-> scl rank-class functions -------===//

#include "RankClasses.h"

#include "shardc/Dialect/ScLocal/ScLocal.h"
#include "shardrt/artifact/Artifact.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <map>
#include <type_traits>

using namespace mlir;
using namespace shardc::sc;
namespace art = shardrt::artifact;

namespace shardc {

FailureOr<func::FuncOp> entryFunction(ModuleOp module) {
  func::FuncOp entry;
  SmallVector<func::FuncOp> publics;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.getName() == "main")
      entry = f;
    if (f.isPublic() && !f.isExternal())
      publics.push_back(f);
  }
  if (entry && entry.isExternal())
    return entry.emitError("the entry function @main has no body");
  if (entry)
    return entry;
  if (publics.size() == 1)
    return publics.front();
  if (publics.empty())
    return emitError(module.getLoc())
           << "no function to run: the model needs a @main or one public "
              "function with a body";
  InFlightDiagnostic diag =
      publics[1].emitError("cannot tell the model's entry function: name it "
                           "@main or keep exactly one public function (found ")
      << publics.size() << ")";
  diag.attachNote(publics[0].getLoc()) << "another public function";
  return diag;
}

bool isShardedOverSeveralRanks(func::FuncOp f) {
  FailureOr<MeshOp> mesh = functionMesh(f);
  if (failed(mesh) || !*mesh || (*mesh).getNumDevices() == 1)
    return false;
  bool found = false;
  auto check = [&](Attribute attr) {
    if (auto s = dyn_cast_or_null<ShardingAttr>(attr))
      found = found || !s.isReplicated();
  };
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    check(f.getArgAttr(i, kShardingAttrName));
  for (unsigned i = 0; i < f.getNumResults(); ++i)
    check(f.getResultAttr(i, kShardingAttrName));
  f.walk([&](Operation *op) {
    check(op->getAttr(kShardingAttrName));
    if (auto c = dyn_cast<ShardingConstraintOp>(op))
      check(c.getSharding());
    if (auto r = dyn_cast<ReshardOp>(op))
      check(r.getSharding());
  });
  return found;
}

func::FuncOp partitionedEntry(ModuleOp module) {
  for (auto f : module.getOps<func::FuncOp>())
    if (f->hasAttr(scl::SclDialect::kRankClassesAttrName))
      return f;
  return {};
}

//===----------------------------------------------------------------------===//
// Programs -> scl
//===----------------------------------------------------------------------===//

namespace {

/// Fills and Casts: the instructions the partitioner may repeat where a
/// consumer needs their value in another box, leaving the first unread.
bool dropsUnread(fb::Opcode opcode) {
  return opcode == fb::Opcode::Fill || opcode == fb::Opcode::Cast;
}

/// The buffers written by a Fill or Cast nothing reads: a splat is filled
/// where it is defined, and again wherever a consumer needs it in another
/// box; a cast of a 16-bit value is cast again after its halo moved in 16
/// bits. The first may then have no reader left. Neither the instruction
/// nor its buffer is written out, and neither tells rank classes apart.
std::vector<bool> unreadOutputs(const ProgramBuilder &b) {
  std::vector<bool> unread(b.buffers.size(), false);
  for (size_t i = 0; i < b.program.size(); ++i) {
    const art::InstructionSpec &inst = b.program[i];
    if (!dropsUnread(inst.opcode) || inst.outputs.size() != 1)
      continue;
    const Buffer &out = b.buffers[inst.outputs[0]];
    if (!out.pinned && out.constant < 0 && out.last == int64_t(i))
      unread[inst.outputs[0]] = true;
  }
  for (const Buffer &buf : b.buffers)
    if (buf.viewOf >= 0)
      unread[buf.viewOf] = false;
  return unread;
}

/// Whether `inst` is a Fill or Cast of a buffer in `unread`.
bool writesUnread(const art::InstructionSpec &inst,
                  const std::vector<bool> &unread) {
  return dropsUnread(inst.opcode) && inst.outputs.size() == 1 &&
         unread[inst.outputs[0]];
}

/// Numbers the distinct long int lists of a set of programs, so that a key
/// names a list shared by many ranks (a collective's member extents) by its
/// number instead of repeating it: P keys then cost O(P), not O(P^2). Lists
/// are looked up by storage first (ranks share one) and by content when that
/// storage is new. Holds pointers into the lists: they must outlive it.
class ListNumbers {
public:
  uint64_t of(const art::IntList &list) {
    auto known = byStorage_.find(list.data());
    if (known != byStorage_.end())
      return known->second;
    ArrayRef<int64_t> values(list.data(), list.size());
    uint64_t n =
        byContent_.try_emplace(values, byContent_.size()).first->second;
    byStorage_[list.data()] = n;
    return n;
  }

private:
  llvm::DenseMap<const int64_t *, uint64_t> byStorage_;
  llvm::DenseMap<ArrayRef<int64_t>, uint64_t> byContent_;
};

/// Appends values as their bytes, each list after its length, so that two
/// keys are equal exactly when what went into them is. Bytes rather than
/// text: a large group's collectives carry an int per member on every rank,
/// and formatting them dominated compile time on big meshes.
struct KeyWriter {
  std::string &key;
  ListNumbers &numbers;

  /// Lists longer than this go into the key by number.
  static constexpr size_t kLongList = 16;

  template <typename T> void raw(T value) {
    static_assert(std::is_scalar_v<T> && !std::is_pointer_v<T>,
                  "a value whose bytes are all of it");
    key.append(reinterpret_cast<const char *>(&value), sizeof(T));
  }
  template <typename T> void list(const std::vector<T> &values) {
    static_assert(std::is_scalar_v<T> && !std::is_same_v<T, bool>,
                  "contiguous values whose bytes are all of them");
    raw(uint64_t(values.size()));
    key.append(reinterpret_cast<const char *>(values.data()),
               values.size() * sizeof(T));
  }
  /// By content when short, else by number: whether a list is numbered
  /// depends only on its length, so equal lists still give equal bytes.
  void list(const art::IntList &values) {
    if (values.size() <= kLongList)
      return list(values.vector());
    raw(uint64_t(values.size()));
    raw(numbers.of(values));
  }
  void text(const std::string &s) {
    raw(uint64_t(s.size()));
    key += s;
  }
};

/// Everything that makes two ranks' programs interchangeable: equal keys,
/// one rank class. `unread` is unreadOutputs(b), left out as writeProgram
/// leaves it out.
std::string programKey(const ProgramBuilder &b,
                       const std::vector<uint32_t> &inputs,
                       const std::vector<uint32_t> &outputs,
                       const std::vector<bool> &unread, ListNumbers &numbers,
                       size_t expectedSize) {
  std::string key;
  // Ranks' keys are alike in size: growing each from empty copied it about
  // log(size) times over.
  key.reserve(expectedSize);
  KeyWriter w{key, numbers};
  w.raw(uint64_t(llvm::count_if(
      b.program, [&](const auto &i) { return !writesUnread(i, unread); })));
  w.raw(uint64_t(llvm::count(unread, false)));
  for (const art::InstructionSpec &i : b.program) {
    if (writesUnread(i, unread))
      continue;
    w.raw(i.opcode), w.text(i.str), w.raw(i.reduce);
    w.list(i.inputs), w.list(i.outputs), w.list(i.ints), w.list(i.floats);
    w.list(i.meshAxes);
    w.raw(uint64_t(i.transfers.size()));
    for (const art::TransferSpec &t : i.transfers) {
      w.raw(t.kind), w.raw(t.periodic), w.raw(t.slot), w.raw(t.tag);
      w.list(t.peer), w.list(t.lo), w.list(t.hi);
    }
  }
  for (auto [id, buf] : llvm::enumerate(b.buffers)) {
    if (unread[id])
      continue;
    w.raw(buf.dtype), w.raw(buf.first), w.raw(buf.last);
    w.raw(buf.pinned), w.raw(buf.constant), w.list(buf.shape);
  }
  w.list(inputs), w.list(outputs);
  return key;
}

Type elementType(MLIRContext *ctx, fb::DType dtype) {
  switch (dtype) {
  case fb::DType::I1:
    return IntegerType::get(ctx, 1);
  case fb::DType::BF16:
    return BFloat16Type::get(ctx);
  case fb::DType::F16:
    return Float16Type::get(ctx);
  case fb::DType::I64:
    return IntegerType::get(ctx, 64);
  default:
    return Float32Type::get(ctx);
  }
}

MemRefType bufferType(MLIRContext *ctx, const Buffer &b) {
  return MemRefType::get(b.shape, elementType(ctx, b.dtype));
}

/// A constant's value as an attribute (the artifact's bytes: f32, or one
/// byte per i1).
DenseElementsAttr constantValue(MLIRContext *ctx, fb::DType dtype,
                                const art::ConstantShardSpec &shard) {
  auto type = RankedTensorType::get(shard.shape, elementType(ctx, dtype));
  const uint8_t *data = shard.data.data();
  if (dtype == fb::DType::I1) {
    SmallVector<bool> values(data, data + shard.data.size());
    return DenseElementsAttr::get(type, ArrayRef<bool>(values));
  }
  std::vector<float> values(shard.data.size() / 4);
  std::memcpy(values.data(), data, values.size() * 4);
  return DenseElementsAttr::get(type, ArrayRef<float>(values));
}

} // namespace

std::vector<uint8_t> constantBytes(DenseElementsAttr value) {
  std::vector<uint8_t> bytes;
  if (value.getElementType().isInteger(1)) {
    for (bool v : value.getValues<bool>())
      bytes.push_back(v ? 1 : 0);
    return bytes;
  }
  bytes.resize(size_t(value.getNumElements()) * 4);
  size_t i = 0;
  for (float f : value.getValues<float>())
    std::memcpy(bytes.data() + 4 * i++, &f, 4);
  return bytes;
}

namespace {

Location instructionLoc(MLIRContext *ctx, const ProgramBuilder &b, size_t i) {
  if (i >= b.program.size())
    return UnknownLoc::get(ctx);
  Location inner = b.sourceLocs[i] ? Location(b.sourceLocs[i])
                                   : Location(UnknownLoc::get(ctx));
  return NameLoc::get(StringAttr::get(ctx, b.sourceOps[i]), inner);
}

/// A ring's lists as attributes (the query ones null unless causal), made
/// once per shared ints list: each attribute hashes every start when made,
/// and an uneven ring may have a class (and so an op) per rank.
struct RingAttrs {
  DenseI64ArrayAttr keyStarts, queryAxes, queryStarts;
};
using RingAttrsCache = llvm::DenseMap<const int64_t *, RingAttrs>;

/// The attributes of a ring whose ints (art::ringAttentionInts) are `ints`,
/// over a group of `members` on `mesh`.
FailureOr<RingAttrs> ringAttrs(Builder &builder, Location loc,
                               ArrayRef<int64_t> ints, int64_t members,
                               ArrayRef<int64_t> mesh) {
  shardrt::StatusOr<art::RingIntsLayout> l = art::ringIntsLayout(
      [&](size_t i) { return ints[i]; }, ints.size(), uint64_t(members),
      std::vector<int64_t>(mesh.begin(), mesh.end()));
  if (!l.ok())
    return emitError(loc, "internal error: a RingAttention ")
           << l.status().message();
  auto list = [&](size_t at, size_t size) {
    return builder.getDenseI64ArrayAttr(ints.slice(at, size));
  };
  RingAttrs attrs;
  attrs.keyStarts = list(l->keyStartsAt, l->keyStarts);
  if (l->flags.causal) {
    attrs.queryAxes = list(l->queryAxesAt, l->queryAxes);
    attrs.queryStarts = list(l->queryStartsAt, l->queryStarts);
  }
  return attrs;
}

/// Writes rank `r`'s program as the body of `f`, without the Fills and
/// Casts of buffers in `unread` (unreadOutputs of it) and those buffers.
LogicalResult writeProgram(OpBuilder &builder, func::FuncOp f,
                           const RankPrograms &programs, int64_t r,
                           const std::vector<bool> &unread,
                           ArrayRef<FlatSymbolRefAttr> constantSymbols,
                           RingAttrsCache &ringAttrsOf) {
  const ProgramBuilder &b = programs.ranks[r];
  MLIRContext *ctx = builder.getContext();
  Block *body = f.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  std::vector<Value> values(b.buffers.size());
  for (auto [i, id] : llvm::enumerate(programs.inputs[r]))
    values[id] = body->getArgument(i);
  // Buffers are numbered in the order they were made, and a buffer's live
  // range starts where it was made: allocate each just before the
  // instruction that was next when it was made.
  size_t nextBuffer = 0;
  auto allocateUpTo = [&](size_t instruction) {
    for (; nextBuffer < b.buffers.size(); ++nextBuffer) {
      const Buffer &buf = b.buffers[nextBuffer];
      if (values[nextBuffer] || unread[nextBuffer])
        continue;
      if (buf.first > int64_t(instruction))
        break;
      Location loc = instructionLoc(ctx, b, instruction);
      if (buf.constant >= 0)
        values[nextBuffer] = scl::ConstantOp::create(
            builder, loc, bufferType(ctx, buf), constantSymbols[buf.constant]);
      else
        values[nextBuffer] =
            memref::AllocOp::create(builder, loc, bufferType(ctx, buf));
    }
  };
  auto operands = [&](const std::vector<uint32_t> &ids) {
    SmallVector<Value> v;
    for (uint32_t id : ids)
      v.push_back(values[id]);
    return v;
  };
  for (size_t i = 0; i < b.program.size(); ++i) {
    allocateUpTo(i);
    const art::InstructionSpec &inst = b.program[i];
    if (writesUnread(inst, unread))
      continue;
    Location loc = instructionLoc(ctx, b, i);
    SmallVector<Value> ins = operands(inst.inputs),
                       outs = operands(inst.outputs);
    auto axes = [&] {
      return SmallVector<int64_t>(inst.meshAxes.begin(), inst.meshAxes.end());
    };
    auto reduction = [&] {
      if (inst.reduce == fb::ReduceKind::Max)
        return scl::Reduction::Max;
      if (inst.reduce == fb::ReduceKind::Min)
        return scl::Reduction::Min;
      return scl::Reduction::Sum;
    };
    auto extents = [&] { return ArrayRef<int64_t>(inst.ints).drop_front(); };
    switch (inst.opcode) {
    case fb::Opcode::HaloExchange: {
      SmallVector<Attribute> transfers;
      for (const art::TransferSpec &t : inst.transfers) {
        bool send = t.kind == fb::TransferKind::Send;
        const std::vector<uint32_t> &side = send ? inst.inputs : inst.outputs;
        int64_t operand = llvm::find(side, t.slot) - side.begin();
        transfers.push_back(scl::TransferAttr::get(
            ctx, send ? scl::TransferKind::Send : scl::TransferKind::Recv,
            operand, SmallVector<int64_t>(t.peer.begin(), t.peer.end()), t.lo,
            t.hi, t.tag, t.periodic));
      }
      scl::HaloExchangeOp::create(builder, loc, /*pending=*/Type(), ins, outs,
                                  builder.getArrayAttr(transfers));
      break;
    }
    case fb::Opcode::AllReduce:
      scl::AllReduceOp::create(builder, loc, reduction(), axes(), ins[0],
                               outs[0]);
      break;
    case fb::Opcode::AllGather:
      scl::AllGatherOp::create(builder, loc, inst.ints[0], extents(), axes(),
                               ins[0], outs[0]);
      break;
    case fb::Opcode::ReduceScatter:
      scl::ReduceScatterOp::create(builder, loc, reduction(), inst.ints[0],
                                   extents(), axes(), ins[0], outs[0]);
      break;
    case fb::Opcode::AllToAll: {
      // ints: split dim, its extents, concat dim, its extents.
      ArrayRef<int64_t> ints(inst.ints);
      size_t members = (ints.size() - 2) / 2;
      scl::AllToAllOp::create(
          builder, loc, ints[0], ints.slice(1, members), ints[1 + members],
          ints.slice(2 + members, members), axes(), ins[0], outs[0]);
      break;
    }
    case fb::Opcode::RingAttention: {
      // ints: art::ringAttentionInts; floats: the scale.
      ArrayRef<int64_t> ints(inst.ints);
      RingAttrs &attrs = ringAttrsOf[inst.ints.data()];
      if (!attrs.keyStarts) {
        int64_t members = 1;
        ArrayRef<int64_t> mesh = sc::MeshOp(programs.mesh).getShape();
        for (int64_t a : inst.meshAxes)
          members *= mesh[size_t(a)];
        FailureOr<RingAttrs> made =
            ringAttrs(builder, loc, ints, members, mesh);
        if (failed(made))
          return failure();
        attrs = *made;
      }
      auto unit = [&](int64_t flag) {
        return flag ? builder.getUnitAttr() : UnitAttr();
      };
      scl::RingAttentionOp::create(
          builder, loc, builder.getDenseI64ArrayAttr(axes()), attrs.keyStarts,
          builder.getF64FloatAttr(inst.floats[0]), unit(ints[0]),
          attrs.queryAxes, attrs.queryStarts, unit(ints[2]), unit(ints[3]),
          ins[0], ins[1], ins[2], ints[1] ? ins[3] : Value(), outs[0]);
      break;
    }
    case fb::Opcode::SendRecv:
    case fb::Opcode::Broadcast:
    case fb::Opcode::Barrier:
    case fb::Opcode::Wait:
      return emitError(loc, "internal error: no scl op for the instruction ")
             << fb::EnumNameOpcode(inst.opcode);
    default:
      scl::KernelOp::create(
          builder, loc, builder.getStringAttr(fb::EnumNameOpcode(inst.opcode)),
          ins, outs, builder.getDenseI64ArrayAttr(inst.ints),
          builder.getDenseF64ArrayAttr(inst.floats),
          inst.str.empty() ? StringAttr() : builder.getStringAttr(inst.str),
          inst.meshAxes.empty() ? DenseI64ArrayAttr()
                                : builder.getDenseI64ArrayAttr(axes()));
    }
  }
  allocateUpTo(b.program.size() + b.buffers.size());
  func::ReturnOp::create(builder, f.getLoc(), operands(programs.outputs[r]));
  return success();
}

} // namespace

LogicalResult writeRankClasses(func::FuncOp entry, RankPrograms &programs) {
  MLIRContext *ctx = entry.getContext();
  auto module = entry->getParentOfType<ModuleOp>();
  SymbolTable symbols(module);
  OpBuilder builder(ctx);

  // Classes, in order of their first rank.
  std::vector<std::vector<int32_t>> classRanks;
  std::map<std::string, size_t> byKey;
  std::vector<std::vector<bool>> classUnread; // the first rank's
  ListNumbers numbers;
  size_t keySize = 0;
  for (size_t r = 0; r < programs.ranks.size(); ++r) {
    std::vector<bool> unread = unreadOutputs(programs.ranks[r]);
    std::string key =
        programKey(programs.ranks[r], programs.inputs[r], programs.outputs[r],
                   unread, numbers, keySize + keySize / 8);
    keySize = key.size();
    auto [it, fresh] = byKey.try_emplace(key, classRanks.size());
    if (fresh) {
      classRanks.emplace_back();
      classUnread.push_back(std::move(unread));
    }
    classRanks[it->second].push_back(int32_t(r));
  }

  builder.setInsertionPoint(entry);
  SmallVector<FlatSymbolRefAttr> constantSymbols;
  for (const art::ConstantSpec &c : programs.constants) {
    SmallVector<Attribute> shards;
    for (const art::ConstantShardSpec &s : c.shards)
      shards.push_back(
          scl::ShardAttr::get(ctx, s.ranks, constantValue(ctx, c.dtype, s)));
    auto global = scl::GlobalOp::create(builder, entry.getLoc(), c.name,
                                        builder.getArrayAttr(shards));
    constantSymbols.push_back(FlatSymbolRefAttr::get(symbols.insert(global)));
  }

  SmallVector<Attribute> classSymbols;
  RingAttrsCache ringAttrsOf;
  Block::iterator after = std::next(Block::iterator(entry));
  for (size_t c = 0; c < classRanks.size(); ++c) {
    int64_t r = classRanks[c].front();
    const ProgramBuilder &b = programs.ranks[r];
    SmallVector<Type> in, out;
    for (uint32_t id : programs.inputs[r])
      in.push_back(bufferType(ctx, b.buffers[id]));
    for (uint32_t id : programs.outputs[r])
      out.push_back(bufferType(ctx, b.buffers[id]));
    std::string name = entry.getName().str() + "_" +
                       (programs.mesh ? "class" + std::to_string(c) : "all");
    builder.setInsertionPoint(module.getBody(), after);
    auto f = func::FuncOp::create(builder, entry.getLoc(), name,
                                  builder.getFunctionType(in, out));
    f->setAttr(scl::SclDialect::kRanksAttrName,
               builder.getDenseI32ArrayAttr(classRanks[c]));
    if (programs.mesh)
      f->setAttr(scl::SclDialect::kMeshAttrName,
                 FlatSymbolRefAttr::get(programs.mesh.getSymNameAttr()));
    classSymbols.push_back(FlatSymbolRefAttr::get(symbols.insert(f)));
    after = std::next(Block::iterator(f));
    if (failed(writeProgram(builder, f, programs, r, classUnread[c],
                            constantSymbols, ringAttrsOf)))
      return failure();
  }

  // The entry becomes a declaration: global types and how each input and
  // output is laid out over the ranks.
  entry.getBody().getBlocks().clear();
  entry.setPrivate();
  entry->setAttr(scl::SclDialect::kRankClassesAttrName,
                 builder.getArrayAttr(classSymbols));
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    entry.removeArgAttr(i, kShardingAttrName);
    if (programs.mesh)
      entry.setArgAttr(i, kShardingAttrName,
                       toAttr(ctx, programs.mesh, programs.inputShardings[i]));
  }
  for (unsigned i = 0; i < entry.getNumResults(); ++i) {
    entry.removeResultAttr(i, StringAttr::get(ctx, kShardingAttrName));
    if (programs.mesh)
      entry.setResultAttr(
          i, kShardingAttrName,
          toAttr(ctx, programs.mesh, programs.outputShardings[i]));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// scl -> programs
//===----------------------------------------------------------------------===//

namespace {

fb::DType dtypeOf(MemRefType type) {
  return storedDType(type.getElementType());
}

fb::ReduceKind reduceKind(scl::Reduction r) {
  switch (r) {
  case scl::Reduction::Max:
    return fb::ReduceKind::Max;
  case scl::Reduction::Min:
    return fb::ReduceKind::Min;
  case scl::Reduction::Sum:
    break;
  }
  return fb::ReduceKind::Sum;
}

int64_t bytesOf(MemRefType type) {
  return int64_t(art::tensorBytes(
      dtypeOf(type), {type.getShape().begin(), type.getShape().end()}));
}

/// Traffic of a gather or scatter as the direct algorithm moves it (what
/// the CPU backend does): a gather sends the own block to every other member
/// and receives the rest; a reduce-scatter the other way round.
void countBlocks(RankTraffic &t, bool gather, MemRefType block, int64_t dim,
                 ArrayRef<int64_t> extents) {
  int64_t rowBytes = int64_t(art::tensorBytes(dtypeOf(block), {1}));
  for (int64_t d = 0; d < block.getRank(); ++d)
    if (d != dim)
      rowBytes *= block.getDimSize(d);
  int64_t total = 0;
  for (int64_t e : extents)
    total += e;
  int64_t mine = block.getDimSize(dim), others = int64_t(extents.size()) - 1;
  int64_t toEach = mine * others * rowBytes, rest = (total - mine) * rowBytes;
  t.bytesSent += gather ? toEach : rest;
  t.bytesReceived += gather ? rest : toEach;
  ++t.collectives;
}

/// Traffic of an all-to-all: everything but the own block (the input's rows
/// of the split dim this rank keeps) leaves, everything but it arrives.
void countAllToAll(RankTraffic &t, MemRefType in, MemRefType out,
                   int64_t splitDim) {
  std::vector<int64_t> own(in.getShape().begin(), in.getShape().end());
  own[size_t(splitDim)] = out.getDimSize(splitDim);
  int64_t ownBytes = int64_t(art::tensorBytes(dtypeOf(in), own));
  t.bytesSent += bytesOf(in) - ownBytes;
  t.bytesReceived += bytesOf(out) - ownBytes;
  ++t.collectives;
}

/// Traffic of a ring on the member at `self`: it passes on every block but
/// the next member's own, and receives every block but its own.
void countRing(RankTraffic &t, scl::RingAttentionOp ring, int64_t self) {
  ArrayRef<int64_t> starts = ring.getKeyStarts();
  int64_t members = int64_t(starts.size()) - 1;
  // Bytes of one sequence row across the other dims (f32).
  auto rowBytes = [](Value v) {
    auto type = cast<MemRefType>(v.getType());
    int64_t bytes = 4;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != type.getRank() - 2)
        bytes *= type.getDimSize(d);
    return bytes;
  };
  int64_t perRow = rowBytes(ring.getKey());
  if (!ring.getValuesWhole() && !ring.getValuesAreKeys())
    perRow += rowBytes(ring.getValue());
  auto rows = [&](int64_t member) {
    member %= members;
    return starts[member + 1] - starts[member];
  };
  if (members > 1) {
    t.bytesSent += (starts.back() - rows(self + 1)) * perRow;
    t.bytesReceived += (starts.back() - rows(self)) * perRow;
  }
  ++t.collectives;
}

/// A ring's group, ints (art::ringAttentionInts, shared with its other
/// members' classes) and scale into `inst`, and its traffic on the member
/// at `self`.
void readRing(RankClassProgram &p, art::InstructionSpec &inst,
              scl::RingAttentionOp ring, SharedIntLists &lists, int64_t self) {
  inst.meshAxes.assign(ring.getMeshAxes().begin(), ring.getMeshAxes().end());
  art::RingFlags flags{ring.getIsCausal(), bool(ring.getMask()),
                       ring.getValuesWhole(), ring.getValuesAreKeys()};
  inst.ints = lists.get(
      {flags.causal, flags.mask, flags.valuesWhole, flags.valuesAreKeys},
      {ring.getKeyStartsAttr(), ring.getQueryAxesAttr(),
       ring.getQueryStartsAttr()},
      [&] {
        auto vec = [](std::optional<ArrayRef<int64_t>> a) {
          return a ? std::vector<int64_t>(a->begin(), a->end())
                   : std::vector<int64_t>();
        };
        return art::ringAttentionInts(flags, vec(ring.getQueryAxes()),
                                      vec(ring.getQueryStarts()),
                                      vec(ring.getKeyStarts()));
      });
  inst.floats = {ring.getScale().convertToDouble()};
  countRing(p.traffic, ring, self);
}

/// The transfers of `x` into `inst`, and their traffic (local copies move
/// nothing between ranks).
void readHaloExchange(RankClassProgram &p, art::InstructionSpec &inst,
                      scl::HaloExchangeOp x,
                      const llvm::DenseMap<Value, uint32_t> &ids) {
  for (auto t : x.getTransfers().getAsRange<scl::TransferAttr>()) {
    art::TransferSpec spec;
    spec.kind = t.isSend() ? fb::TransferKind::Send : fb::TransferKind::Recv;
    spec.peer.assign(t.getPeer().begin(), t.getPeer().end());
    spec.periodic = t.getPeriodic();
    Value buffer = (t.isSend() ? x.getIns() : x.getOuts())[t.getOperand()];
    spec.slot = ids.lookup(buffer);
    spec.lo.assign(t.getLo().begin(), t.getLo().end());
    spec.hi.assign(t.getHi().begin(), t.getHi().end());
    spec.tag = uint32_t(t.getTag());
    inst.transfers.push_back(std::move(spec));
    if (t.isSelf())
      continue;
    std::vector<int64_t> box;
    for (size_t d = 0; d < t.getLo().size(); ++d)
      box.push_back(t.getHi()[d] - t.getLo()[d]);
    auto type = cast<MemRefType>(buffer.getType());
    int64_t bytes = int64_t(art::tensorBytes(dtypeOf(type), box));
    (t.isSend() ? p.traffic.bytesSent : p.traffic.bytesReceived) += bytes;
  }
  ++p.traffic.haloExchanges;
}

/// A gather or scatter's group, dim and extents into `inst`; `block` is the
/// per-member side.
void readBlockCollective(RankClassProgram &p, art::InstructionSpec &inst,
                         ArrayRef<int64_t> axes, int64_t dim,
                         ArrayRef<int64_t> extents, MemRefType block,
                         SharedIntLists &lists) {
  inst.meshAxes.assign(axes.begin(), axes.end());
  std::vector<int64_t> ints = {dim};
  ints.insert(ints.end(), extents.begin(), extents.end());
  inst.ints = lists.get(std::move(ints));
  countBlocks(p.traffic, inst.opcode == fb::Opcode::AllGather, block, dim,
              extents);
}

/// A fused body as registers: the inputs, then one per scl.scalar; `str`
/// names the steps' functions and `ints` their operands, then the result.
LogicalResult readFusedBody(Operation *fused, Region &region,
                            art::InstructionSpec &inst) {
  Block &body = region.front();
  llvm::DenseMap<Value, int64_t> reg;
  for (BlockArgument arg : body.getArguments())
    reg[arg] = arg.getArgNumber();
  int64_t next = body.getNumArguments();
  for (Operation &o : body.without_terminator()) {
    auto scalar = cast<scl::ScalarOp>(o);
    inst.str += (inst.str.empty() ? "" : " ") + scalar.getFn().str();
    for (Value v : scalar.getOperands())
      inst.ints.push_back(reg.lookup(v));
    reg[scalar.getResult()] = next++;
  }
  // The verifier keeps every value the body uses inside it.
  int64_t result = reg.lookup(cast<scl::YieldOp>(body.back()).getValue());
  // A reduction may reduce an input as it is (a plain Reduce).
  bool plainReduction =
      isa<scl::FusedReductionOp>(fused) && next == body.getNumArguments();
  if (!plainReduction && (next == body.getNumArguments() || result != next - 1))
    return fused->emitOpError(
        "must yield its last scl.scalar, or an argument when it reduces "
        "without one (the runtime evaluates bodies as a chain of steps)");
  inst.ints.push_back(result);
  return success();
}

std::string sourceOpName(Operation *op) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    return name.getName().str();
  return op->getName().getStringRef().str();
}

} // namespace

art::IntList SharedIntLists::get(std::vector<int64_t> values) {
  auto known = lists_.find(ArrayRef<int64_t>(values));
  if (known != lists_.end())
    return known->second;
  art::IntList list(std::move(values));
  // The key points into the list's own storage, which the map keeps.
  lists_.try_emplace(ArrayRef<int64_t>(list.data(), list.size()), list);
  return list;
}

art::IntList
SharedIntLists::get(std::vector<int64_t> flags, ArrayRef<Attribute> attrs,
                    llvm::function_ref<std::vector<int64_t>()> make) {
  std::vector<const void *> pointers;
  for (Attribute a : attrs)
    pointers.push_back(a.getAsOpaquePointer());
  auto key = std::make_pair(std::move(pointers), std::move(flags));
  auto known = byAttrs_.find(key);
  if (known != byAttrs_.end())
    return known->second;
  art::IntList list = get(make());
  byAttrs_.emplace(std::move(key), list);
  return list;
}

FailureOr<RankClassProgram>
readRankClass(func::FuncOp f, const llvm::StringMap<int64_t> &constantIndex,
              SharedIntLists *given) {
  SharedIntLists own;
  SharedIntLists &lists = given ? *given : own;
  RankClassProgram p;
  p.name = f.getName().str();
  auto ranks =
      f->getAttrOfType<DenseI32ArrayAttr>(scl::SclDialect::kRanksAttrName);
  if (!ranks || f.isExternal() || !f.getBody().hasOneBlock())
    return f.emitOpError("is not a rank-class function with one block");
  p.ranks.assign(ranks.asArrayRef().begin(), ranks.asArrayRef().end());
  ProgramBuilder &b = p.builder;
  llvm::DenseMap<Value, uint32_t> ids;
  std::optional<FailureOr<scl::RankContext>> context; // read once, on need
  llvm::DenseMap<Value, size_t> startedBy; // pending -> its instruction
  auto define = [&](Value v) {
    auto type = cast<MemRefType>(v.getType());
    uint32_t id = b.temporary(dtypeOf(type),
                              {type.getShape().begin(), type.getShape().end()});
    ids[v] = id;
    p.values.push_back(v);
    return id;
  };
  auto slots = [&](ValueRange values) {
    std::vector<uint32_t> v;
    for (Value x : values)
      v.push_back(ids.lookup(x));
    return v;
  };
  for (BlockArgument arg : f.getArguments()) {
    if (!isa<MemRefType>(arg.getType()))
      return emitError(arg.getLoc(), "rank-class input ")
             << arg.getArgNumber() << " is not a buffer";
    uint32_t id = define(arg);
    b.buffers[id].pinned = true;
    p.inputs.push_back(id);
  }
  for (Operation &op : f.getBody().front()) {
    b.currentOp = sourceOpName(&op);
    b.currentLoc = op.getLoc();
    auto emit = [&](fb::Opcode opcode, ValueRange ins,
                    ValueRange outs) -> art::InstructionSpec & {
      return b.emit(opcode, slots(ins), slots(outs));
    };
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() ||
          !scl::isBufferElement(type.getElementType()))
        return alloc.emitOpError("allocates ")
               << type
               << "; rank programs hold static f32, bf16, f16, i1 or i64 "
                  "buffers";
      define(alloc.getResult());
    } else if (auto view = dyn_cast<scl::ViewOp>(op)) {
      uint32_t source = ids.lookup(view.getSource());
      int64_t storage = b.buffers[source].viewOf >= 0 ? b.buffers[source].viewOf
                                                      : int64_t(source);
      // The caller may bind inputs elsewhere; constants stay in the file.
      if (b.buffers[storage].pinned || b.buffers[storage].constant >= 0)
        return view.emitOpError("views an input or a constant; rank "
                                "programs view buffers of their own");
      b.buffers[define(view.getResult())].viewOf = storage;
    } else if (auto c = dyn_cast<scl::ConstantOp>(op)) {
      auto it = constantIndex.find(c.getName());
      if (it == constantIndex.end())
        return c.emitOpError("reads an unknown constant");
      b.buffers[define(c.getResult())].constant = it->second;
    } else if (auto k = dyn_cast<scl::KernelOp>(op)) {
      // The verifier made sure the opcode names a compute instruction.
      art::InstructionSpec &inst =
          emit(*scl::computeOpcode(k.getOpcode()), k.getIns(), k.getOuts());
      inst.ints.assign(k.getInts().begin(), k.getInts().end());
      inst.floats.assign(k.getFloats().begin(), k.getFloats().end());
      inst.str = k.getMode().value_or("").str();
      if (std::optional<ArrayRef<int64_t>> axes = k.getMeshAxes())
        inst.meshAxes.assign(axes->begin(), axes->end());
    } else if (auto x = dyn_cast<scl::HaloExchangeOp>(op)) {
      if (x.getPending())
        startedBy[x.getPending()] = b.program.size();
      art::InstructionSpec &inst =
          emit(fb::Opcode::HaloExchange, x.getIns(), x.getOuts());
      readHaloExchange(p, inst, x, ids);
      if (x.getPending())
        inst.ints = {1}; // start only; the Wait completes it
    } else if (auto w = dyn_cast<scl::WaitOp>(op)) {
      // Reads and writes the receive buffers, so a staging backend moves
      // them and the memory plan keeps them live until here.
      emit(fb::Opcode::Wait, w.getOuts(), w.getOuts()).ints = {
          int64_t(startedBy.lookup(w.getPending()))};
    } else if (auto a = dyn_cast<scl::AllReduceOp>(op)) {
      art::InstructionSpec &inst =
          emit(fb::Opcode::AllReduce, a.getInput(), a.getOutput());
      inst.reduce = reduceKind(a.getReduction());
      inst.meshAxes.assign(a.getMeshAxes().begin(), a.getMeshAxes().end());
      // Direct algorithm: the whole buffer to and from every other member.
      if (!context)
        context = scl::rankContextOf(&op);
      if (failed(*context))
        return failure();
      int64_t members = (*context)->groupSize(a.getMeshAxes());
      int64_t bytes = bytesOf(a.getInput().getType()) * (members - 1);
      p.traffic.bytesSent += bytes;
      p.traffic.bytesReceived += bytes;
      ++p.traffic.collectives;
    } else if (auto g = dyn_cast<scl::AllGatherOp>(op)) {
      readBlockCollective(
          p, emit(fb::Opcode::AllGather, g.getInput(), g.getOutput()),
          g.getMeshAxes(), g.getDim(), g.getExtents(), g.getInput().getType(),
          lists);
    } else if (auto s = dyn_cast<scl::ReduceScatterOp>(op)) {
      art::InstructionSpec &inst =
          emit(fb::Opcode::ReduceScatter, s.getInput(), s.getOutput());
      inst.reduce = reduceKind(s.getReduction());
      readBlockCollective(p, inst, s.getMeshAxes(), s.getDim(), s.getExtents(),
                          s.getOutput().getType(), lists);
    } else if (auto a = dyn_cast<scl::AllToAllOp>(op)) {
      art::InstructionSpec &inst =
          emit(fb::Opcode::AllToAll, a.getInput(), a.getOutput());
      inst.meshAxes.assign(a.getMeshAxes().begin(), a.getMeshAxes().end());
      std::vector<int64_t> ints = {int64_t(a.getSplitDim())};
      llvm::append_range(ints, a.getSplitExtents());
      ints.push_back(a.getConcatDim());
      llvm::append_range(ints, a.getConcatExtents());
      inst.ints = lists.get(std::move(ints));
      countAllToAll(p.traffic, a.getInput().getType(), a.getOutput().getType(),
                    a.getSplitDim());
    } else if (auto ring = dyn_cast<scl::RingAttentionOp>(op)) {
      SmallVector<Value> ins = {ring.getQuery(), ring.getKey(),
                                ring.getValue()};
      if (ring.getMask())
        ins.push_back(ring.getMask());
      if (!context)
        context = scl::rankContextOf(&op);
      if (failed(*context))
        return failure();
      readRing(p, emit(fb::Opcode::RingAttention, ins, ring.getOutput()), ring,
               lists,
               (*context)->groupPosition(ring.getMeshAxes(), p.ranks.front()));
    } else if (auto fused = dyn_cast<scl::FusedElementwiseOp>(op)) {
      p.fusedInstructions.push_back(b.program.size());
      if (failed(readFusedBody(fused, fused.getBody(),
                               emit(fb::Opcode::ElementwiseFused,
                                    fused.getIns(), fused.getOutput()))))
        return failure();
    } else if (auto fused = dyn_cast<scl::FusedReductionOp>(op)) {
      // ReductionFused: str is the reduction, then the body's functions;
      // ints the iteration space (rank, extents), the reduced dims (count,
      // dims), then the body's registers.
      p.fusedInstructions.push_back(b.program.size());
      art::InstructionSpec &inst =
          emit(fb::Opcode::ReductionFused, fused.getIns(), fused.getOutput());
      inst.str = fused.getKind().str();
      inst.ints.push_back(int64_t(fused.getDomain().size()));
      llvm::append_range(inst.ints, fused.getDomain());
      inst.ints.push_back(int64_t(fused.getDims().size()));
      llvm::append_range(inst.ints, fused.getDims());
      if (failed(readFusedBody(fused, fused.getBody(), inst)))
        return failure();
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (Value v : ret.getOperands()) {
        uint32_t id = ids.lookup(v);
        Buffer &buf = b.buffers[id];
        // The caller binds output slots: they must not alias an input, a
        // constant or another output.
        if (buf.pinned || buf.constant >= 0)
          return ret.emitOpError("returns a buffer that is an input, a "
                                 "constant or another output; rank programs "
                                 "return buffers of their own");
        // The caller may bind an output elsewhere, away from its views.
        if (buf.viewOf >= 0 ||
            llvm::any_of(b.buffers, [&](const Buffer &other) {
              return other.viewOf == int64_t(id);
            }))
          return ret.emitOpError("returns a buffer that is a view or is "
                                 "viewed; outputs need bytes of their own");
        buf.pinned = true;
        p.outputs.push_back(id);
      }
    } else {
      return op.emitOpError("cannot run in a rank program (expected scl ops, "
                            "memref.alloc and func.return)");
    }
  }
  return p;
}

std::vector<BufferLifetime> bufferLifetimes(RankClassProgram &program) {
  ProgramBuilder &b = program.builder;
  int64_t end = int64_t(b.program.size());
  std::vector<BufferLifetime> lifetimes;
  for (Buffer &buf : b.buffers) {
    if (buf.pinned)
      buf.last = end;
    BufferLifetime l{bufferBytes(buf), buf.first, buf.last};
    if (buf.constant >= 0 || buf.viewOf >= 0)
      l.bytes = 0; // in the file, or in the bytes of the buffer it views
    lifetimes.push_back(l);
  }
  // Inputs are written before the first instruction.
  for (uint32_t i : program.inputs)
    lifetimes[i].first = -1;
  return lifetimes;
}

FailureOr<MemoryPlan> memoryPlanOf(func::FuncOp f, RankClassProgram &program) {
  std::vector<BufferLifetime> lifetimes = bufferLifetimes(program);
  // Views sit on the bytes of the buffer they view.
  auto placeViews = [&](MemoryPlan &plan) {
    for (auto [i, buf] : llvm::enumerate(program.builder.buffers))
      if (buf.viewOf >= 0)
        plan.offsets[i] = plan.offsets[buf.viewOf];
  };
  auto arena =
      f->getAttrOfType<IntegerAttr>(scl::SclDialect::kArenaBytesAttrName);
  if (!arena) {
    MemoryPlan plan = planMemory(lifetimes);
    placeViews(plan);
    return plan;
  }
  MemoryPlan plan;
  plan.arenaBytes = uint64_t(arena.getInt());
  plan.peakLiveBytes = peakLiveBytes(lifetimes);
  auto inputs = f->getAttrOfType<DenseI64ArrayAttr>(
      scl::SclDialect::kInputOffsetsAttrName);
  for (Value v : program.values) {
    int64_t offset = 0;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (!inputs)
        return f.emitOpError("has '")
               << scl::SclDialect::kArenaBytesAttrName << "' but no '"
               << scl::SclDialect::kInputOffsetsAttrName << "'";
      offset = inputs[arg.getArgNumber()];
    } else if (isa<memref::AllocOp>(v.getDefiningOp())) {
      auto attr = v.getDefiningOp()->getAttrOfType<IntegerAttr>(
          scl::SclDialect::kOffsetAttrName);
      if (!attr)
        return v.getDefiningOp()->emitOpError("has no '")
               << scl::SclDialect::kOffsetAttrName
               << "' in a function with a memory plan";
      offset = attr.getInt();
    }
    plan.offsets.push_back(uint64_t(offset));
  }
  placeViews(plan);
  std::string problem = checkOffsets(lifetimes, plan.offsets, plan.arenaBytes);
  if (!problem.empty())
    return f.emitOpError("has a memory plan that does not hold: ") << problem;
  return plan;
}

LogicalResult forEachRankClass(
    ModuleOp module,
    function_ref<LogicalResult(func::FuncOp, RankClassProgram &)> fn) {
  llvm::StringMap<int64_t> constantIndex;
  for (auto global : module.getOps<scl::GlobalOp>())
    constantIndex[global.getSymName()] = int64_t(constantIndex.size());
  for (auto f : module.getOps<func::FuncOp>()) {
    if (!f->hasAttr(scl::SclDialect::kRanksAttrName))
      continue;
    FailureOr<RankClassProgram> program = readRankClass(f, constantIndex);
    if (failed(program) || failed(fn(f, *program)))
      return failure();
  }
  return success();
}

} // namespace shardc
