//===- LowerToArtifact.cpp - Rank programs, memory plan, serialisation ----===//

#include "Lowering.h"
#include "Partition.h"

#include "shardc/Compiler/Compiler.h"
#include "shardc/Compiler/MemoryPlan.h"
#include "shardc/Dialect/Sc/ScAttrs.h"
#include "shardc/Dialect/Sc/ScOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "shardrt/artifact/Artifact.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <map>

using namespace mlir;
using namespace shardc::sc;
namespace art = shardrt::artifact;

namespace shardc {

FailureOr<fb::DType> artifactDType(Operation *op, Type type) {
  if (type.isF32())
    return fb::DType::F32;
  if (type.isInteger(1))
    return fb::DType::I1;
  return op->emitOpError("computes in ")
         << type << "; the cpu target supports f32 and i1 tensors";
}

static FailureOr<Buffer> bufferFor(Operation *op, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return op->emitOpError("needs statically shaped tensors; got ") << type;
  FailureOr<fb::DType> dtype = artifactDType(op, tensor.getElementType());
  if (failed(dtype))
    return failure();
  Buffer b;
  b.dtype = *dtype;
  b.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  return b;
}

FailureOr<uint32_t> ProgramBuilder::define(Operation *op, Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto tensor = dyn_cast<RankedTensorType>(arg.getType());
    Type elem = tensor ? tensor.getElementType() : arg.getType();
    if (!tensor || !tensor.hasStaticShape() ||
        !(elem.isF32() || elem.isInteger(1)))
      return emitError(arg.getLoc())
             << "model input " << arg.getArgNumber() << " is " << arg.getType()
             << "; the cpu target takes statically shaped f32 and i1 tensors";
  }
  FailureOr<uint32_t> id = temporary(op, value.getType());
  if (succeeded(id)) {
    auto local = localShapes.find(value);
    if (local != localShapes.end())
      buffers[*id].shape = local->second;
    buffers_[value] = *id;
  }
  return id;
}

std::vector<int64_t> ProgramBuilder::shapeOf(Value value) const {
  auto it = localShapes.find(value);
  if (it != localShapes.end())
    return it->second;
  ArrayRef<int64_t> s = cast<RankedTensorType>(value.getType()).getShape();
  return {s.begin(), s.end()};
}

uint32_t ProgramBuilder::temporary(fb::DType dtype,
                                   std::vector<int64_t> shape) {
  Buffer b;
  b.dtype = dtype;
  b.shape = std::move(shape);
  b.first = b.last = int64_t(program.size());
  buffers.push_back(std::move(b));
  return uint32_t(buffers.size() - 1);
}

FailureOr<uint32_t> ProgramBuilder::temporary(Operation *op, Type type) {
  FailureOr<Buffer> b = bufferFor(op, type);
  if (failed(b))
    return failure();
  b->first = b->last = int64_t(program.size());
  buffers.push_back(std::move(*b));
  return uint32_t(buffers.size() - 1);
}

art::InstructionSpec &ProgramBuilder::emit(fb::Opcode opcode,
                                           std::vector<uint32_t> inputs,
                                           std::vector<uint32_t> outputs) {
  int64_t index = int64_t(program.size());
  for (uint32_t i : inputs)
    buffers[i].last = std::max(buffers[i].last, index);
  for (uint32_t o : outputs) {
    // A buffer may be written by several instructions (a pad, then the
    // exchange that fills its halo): it is live from the first.
    buffers[o].first = std::min(buffers[o].first, index);
    buffers[o].last = std::max(buffers[o].last, index);
  }
  art::InstructionSpec inst;
  inst.opcode = opcode;
  inst.inputs = std::move(inputs);
  inst.outputs = std::move(outputs);
  program.push_back(std::move(inst));
  sourceOps.push_back(currentOp);
  return program.back();
}

namespace {

uint64_t bufferBytes(const Buffer &b) {
  return art::tensorBytes(b.dtype, b.shape);
}

FailureOr<func::FuncOp> entryFunction(ModuleOp module) {
  func::FuncOp entry, onlyPublic;
  unsigned publics = 0;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.getName() == "main")
      entry = f;
    if (f.isPublic() && !f.isExternal())
      onlyPublic = f, ++publics;
  }
  if (entry && entry.isExternal())
    return entry.emitError("the entry function @main has no body");
  if (entry)
    return entry;
  if (publics == 1)
    return onlyPublic;
  return emitError(module.getLoc())
         << "cannot tell the model's entry function: name it @main or keep "
            "exactly one public function (found "
         << publics << ")";
}

/// A constant's bytes in the artifact's layout (i1 as one byte each).
FailureOr<std::vector<uint8_t>> constantBytes(ConstantOp op, fb::DType dtype) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense)
    return op.emitOpError("holds a non-dense constant, which the cpu target "
                          "cannot embed yet");
  std::vector<uint8_t> bytes;
  if (dtype == fb::DType::F32) {
    bytes.resize(size_t(dense.getNumElements()) * 4);
    size_t i = 0;
    for (float f : dense.getValues<float>())
      std::memcpy(bytes.data() + 4 * i++, &f, 4);
  } else {
    for (bool v : dense.getValues<bool>())
      bytes.push_back(v ? 1 : 0);
  }
  return bytes;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + ")";
}

std::string rankList(const std::vector<int32_t> &ranks) {
  std::string s = "[";
  for (size_t i = 0; i < ranks.size(); ++i) {
    // Runs of consecutive ranks print as a range.
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
      ++j;
    s += (i ? ", " : "") + std::to_string(ranks[i]);
    if (j > i + 1)
      s += ".." + std::to_string(ranks[j]), i = j;
  }
  return s + "]";
}

void describeProgram(const std::string &name, const std::vector<int32_t> &ranks,
                     const ProgramBuilder &b, const MemoryPlan &plan,
                     const RankTraffic &traffic,
                     const std::vector<uint32_t> &inputs,
                     const std::vector<uint32_t> &outputs,
                     LoweredArtifact &out) {
  llvm::raw_string_ostream os(out.programText);
  os << "rank class '" << name << "' (ranks " << rankList(ranks) << "):\n";
  for (size_t i = 0; i < b.program.size(); ++i) {
    const art::InstructionSpec &inst = b.program[i];
    os << "  " << i << ": " << fb::EnumNameOpcode(inst.opcode);
    if (!inst.str.empty())
      os << " \"" << inst.str << "\"";
    os << " (";
    for (size_t k = 0; k < inst.inputs.size(); ++k)
      os << (k ? ", " : "") << "%" << inst.inputs[k];
    os << ") -> ";
    if (inst.outputs.empty())
      os << "()";
    else
      os << "%" << inst.outputs[0];
    if (!inst.ints.empty()) {
      os << " ints [";
      for (size_t k = 0; k < inst.ints.size(); ++k)
        os << (k ? ", " : "") << inst.ints[k];
      os << "]";
    }
    if (!inst.floats.empty()) {
      os << " floats [";
      for (size_t k = 0; k < inst.floats.size(); ++k)
        os << (k ? ", " : "") << inst.floats[k];
      os << "]";
    }
    if (!inst.meshAxes.empty()) {
      os << " group [";
      for (size_t k = 0; k < inst.meshAxes.size(); ++k)
        os << (k ? ", " : "") << inst.meshAxes[k];
      os << "]";
    }
    if (inst.reduce != fb::ReduceKind::None)
      os << " reduce " << fb::EnumNameReduceKind(inst.reduce);
    for (const art::TransferSpec &t : inst.transfers) {
      os << (t.kind == fb::TransferKind::Send ? " send" : " recv") << " %"
         << t.slot << "[";
      for (size_t k = 0; k < t.lo.size(); ++k)
        os << (k ? "," : "") << t.lo[k] << ":" << t.hi[k];
      os << "] peer (";
      for (size_t k = 0; k < t.peer.size(); ++k)
        os << (k ? "," : "") << t.peer[k];
      os << ")" << (t.periodic ? " periodic" : "");
    }
    os << "  // " << b.sourceOps[i] << "\n";
  }
  llvm::raw_string_ostream ps(out.planText);
  ps << "rank class '" << name << "': ranks " << rankList(ranks) << "\n";
  ps << "  inputs:";
  for (uint32_t i : inputs)
    ps << " " << shapeText(b.buffers[i].shape);
  ps << "\n  outputs:";
  for (uint32_t i : outputs)
    ps << " " << shapeText(b.buffers[i].shape);
  ps << "\n  instructions: " << b.program.size()
     << ", halo exchanges: " << traffic.haloExchanges
     << ", collectives: " << traffic.collectives
     << ", bytes sent: " << traffic.bytesSent
     << ", received: " << traffic.bytesReceived << "\n";
  ps << "  arena: " << plan.arenaBytes << " bytes (peak live "
     << plan.peakLiveBytes << " bytes)\n";
  for (size_t i = 0; i < b.buffers.size(); ++i) {
    const Buffer &buf = b.buffers[i];
    ps << "  %" << i << " " << fb::EnumNameDType(buf.dtype)
       << shapeText(buf.shape) << " " << bufferBytes(buf) << " B";
    if (buf.constant >= 0)
      ps << " constant " << buf.constant;
    else
      ps << " @" << plan.offsets[i] << " live [" << buf.first << ", "
         << buf.last << "]";
    ps << "\n";
  }
}

art::TensorDescSpec replicatedDesc(std::string name, const Buffer &b) {
  art::TensorDescSpec t;
  t.name = std::move(name);
  t.dtype = b.dtype;
  t.shape = b.shape;
  for (int64_t n : b.shape) {
    art::DimShardingSpec d;
    d.extents = {n};
    t.dims.push_back(std::move(d));
  }
  return t;
}

/// The first sharding annotation that splits or leaves a value partial over
/// more than one device, if any.
std::optional<Location> firstRealSharding(func::FuncOp f) {
  std::optional<Location> found;
  auto check = [&](Location at, Attribute attr) {
    if (auto s = dyn_cast_or_null<ShardingAttr>(attr); s && !s.isReplicated())
      if (!found)
        found = at;
  };
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    check(f.getArgument(i).getLoc(), f.getArgAttr(i, "sc.sharding"));
  for (unsigned i = 0; i < f.getNumResults(); ++i)
    check(f.getLoc(), f.getResultAttr(i, "sc.sharding"));
  f.walk([&](Operation *op) {
    check(op->getLoc(), op->getAttr("sc.sharding"));
    if (auto c = dyn_cast<ShardingConstraintOp>(op))
      check(op->getLoc(), c.getSharding());
    if (auto r = dyn_cast<ReshardOp>(op))
      check(op->getLoc(), r.getSharding());
  });
  return found;
}

/// Liveness, memory plan and slots of one finished rank program.
std::pair<art::RankClassSpec, MemoryPlan>
finishRankProgram(ProgramBuilder &b, const std::vector<uint32_t> &inputs,
                  const std::vector<uint32_t> &outputs) {
  int64_t end = int64_t(b.program.size());
  std::vector<BufferLifetime> lifetimes;
  for (Buffer &buf : b.buffers) {
    if (buf.pinned)
      buf.last = end;
    // Inputs are written before the first instruction.
    BufferLifetime l{bufferBytes(buf), buf.first, buf.last};
    if (buf.constant >= 0)
      l.bytes = 0; // lives in the file, not the arena
    lifetimes.push_back(l);
  }
  for (uint32_t i : inputs)
    lifetimes[i].first = -1;
  MemoryPlan plan = planMemory(lifetimes);

  art::RankClassSpec rc;
  rc.program = b.program;
  rc.inputSlots = inputs;
  rc.outputSlots = outputs;
  for (size_t i = 0; i < b.buffers.size(); ++i) {
    const Buffer &buf = b.buffers[i];
    art::BufferSlotSpec slot;
    slot.dtype = buf.dtype;
    slot.shape = buf.shape;
    slot.bytes = bufferBytes(buf);
    slot.offset = buf.constant >= 0 ? 0 : plan.offsets[i];
    if (buf.constant >= 0) // read in place from the file
      rc.constants.push_back({uint32_t(buf.constant), uint32_t(i)});
    rc.buffers.push_back(std::move(slot));
  }
  rc.arenaBytes = plan.arenaBytes;
  return {std::move(rc), std::move(plan)};
}

/// Lowers `f` for one rank, ignoring shardings; embeds `reference` (a
/// complete artifact) when given.
FailureOr<LoweredArtifact>
lowerWorldOfOne(func::FuncOp f, const std::vector<uint8_t> *reference) {
  art::ArtifactWriter writer({}, {});
  writer.setProducer("shardc 0.1");
  if (reference)
    writer.setReference(
        art::BlobBytes::borrow(reference->data(), reference->size()));
  ProgramBuilder b;
  std::vector<uint32_t> inputs, outputs;
  for (BlockArgument arg : f.getArguments()) {
    FailureOr<uint32_t> id = b.define(f, arg);
    if (failed(id))
      return failure();
    b.buffers[*id].pinned = true;
    inputs.push_back(*id);
  }
  std::vector<art::ConstantSpec> constants;
  for (Operation &op : f.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (Value v : ret.getOperands()) {
        uint32_t id = b.lookup(v);
        const Buffer &src = b.buffers[id];
        // Outputs get their own slot: the caller may bind it, and it must not
        // alias an input, a constant or another output.
        // (A value returned twice is pinned by its first use.)
        if (src.pinned || src.constant >= 0) {
          b.currentOp = "func.return";
          FailureOr<uint32_t> copy = b.temporary(&op, v.getType());
          if (failed(copy))
            return failure();
          b.emit(fb::Opcode::Copy, {id}, {*copy});
          id = *copy;
        }
        b.buffers[id].pinned = true;
        outputs.push_back(id);
      }
      continue;
    }
    if (auto c = dyn_cast<ConstantOp>(op)) {
      FailureOr<uint32_t> id = b.define(&op, c.getResult());
      if (failed(id))
        return failure();
      FailureOr<std::vector<uint8_t>> bytes =
          constantBytes(c, b.buffers[*id].dtype);
      if (failed(bytes))
        return failure();
      art::ConstantSpec spec;
      spec.name = "constant" + std::to_string(constants.size());
      spec.dtype = b.buffers[*id].dtype;
      spec.shards.push_back(
          {{0}, b.buffers[*id].shape, art::BlobBytes(std::move(*bytes))});
      b.buffers[*id].constant = int64_t(constants.size());
      constants.push_back(std::move(spec));
      continue;
    }
    if (op.getNumResults() != 1)
      return op.emitOpError("has ")
             << op.getNumResults() << " results; the lowering expects one";
    if (failed(lowerOp(&op, b)))
      return failure();
  }
  auto [rc, plan] = finishRankProgram(b, inputs, outputs);
  rc.name = "all";
  rc.ranks = {0};
  writer.addRankClass(std::move(rc));
  for (size_t i = 0; i < inputs.size(); ++i)
    writer.addInput(
        replicatedDesc("arg" + std::to_string(i), b.buffers[inputs[i]]));
  for (size_t i = 0; i < outputs.size(); ++i)
    writer.addOutput(
        replicatedDesc("result" + std::to_string(i), b.buffers[outputs[i]]));
  for (art::ConstantSpec &c : constants)
    writer.addConstant(std::move(c));

  LoweredArtifact out;
  describeProgram("all", {0}, b, plan, RankTraffic(), inputs, outputs, out);
  shardrt::StatusOr<std::vector<uint8_t>> bytes = writer.serialize();
  if (!bytes.ok())
    return emitError(f.getLoc())
           << "internal error: the lowered artifact fails its own checks: "
           << bytes.status().message();
  out.bytes = std::move(*bytes);
  return out;
}

art::TensorDescSpec shardedDesc(std::string name, fb::DType dtype,
                                const ValueSharding &s) {
  art::TensorDescSpec t;
  t.name = std::move(name);
  t.dtype = dtype;
  t.shape = s.layout.shape;
  for (const plan::DimSplit &d : s.layout.dims) {
    art::DimShardingSpec spec;
    for (int a : d.axes)
      spec.meshAxes.push_back(uint32_t(a));
    spec.extents = d.extents();
    t.dims.push_back(std::move(spec));
  }
  return t;
}

/// Everything that makes two ranks' programs interchangeable.
std::string classKey(const art::RankClassSpec &rc) {
  std::string key;
  llvm::raw_string_ostream os(key);
  auto list = [&](const auto &v) {
    os << "[";
    for (const auto &x : v)
      os << x << ",";
    os << "]";
  };
  for (const art::InstructionSpec &i : rc.program) {
    os << int(i.opcode) << i.str << int(i.reduce);
    list(i.inputs), list(i.outputs), list(i.ints), list(i.floats);
    list(i.meshAxes);
    for (const art::TransferSpec &t : i.transfers) {
      os << int(t.kind) << t.periodic << t.slot << ":" << t.tag;
      list(t.peer), list(t.lo), list(t.hi);
    }
    os << ";";
  }
  for (const art::BufferSlotSpec &b : rc.buffers) {
    os << int(b.dtype) << "@" << b.offset;
    if (b.shape)
      list(*b.shape);
  }
  for (const art::ConstantBindingSpec &c : rc.constants)
    os << c.constant << ">" << c.slot << ",";
  list(rc.inputSlots), list(rc.outputSlots);
  os << rc.arenaBytes;
  return key;
}

/// Lowers `f` partitioned over `mesh`: one program per rank, ranks with
/// identical programs merged into a class.
FailureOr<LoweredArtifact>
lowerPartitioned(func::FuncOp f, MeshOp mesh,
                 const std::vector<uint8_t> &reference) {
  Partitioner p(f, mesh);
  if (failed(p.run()))
    return failure();
  std::vector<std::string> axisNames;
  for (Attribute a : mesh.getAxisNames())
    axisNames.push_back(cast<StringAttr>(a).str());
  art::ArtifactWriter writer(
      axisNames,
      std::vector<int32_t>(mesh.getShape().begin(), mesh.getShape().end()));
  writer.setProducer("shardc 0.1");
  writer.setReference(
      art::BlobBytes::borrow(reference.data(), reference.size()));
  struct Class {
    art::RankClassSpec spec;
    MemoryPlan plan;
    int64_t firstRank;
  };
  std::vector<Class> classes;
  std::map<std::string, size_t> byKey;
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    auto [rc, plan] = finishRankProgram(p.ranks[r], p.inputs[r], p.outputs[r]);
    std::string key = classKey(rc);
    auto [it, fresh] = byKey.try_emplace(key, classes.size());
    if (fresh)
      classes.push_back({std::move(rc), std::move(plan), r});
    classes[it->second].spec.ranks.push_back(int32_t(r));
  }
  LoweredArtifact out;
  for (size_t c = 0; c < classes.size(); ++c) {
    Class &cls = classes[c];
    cls.spec.name = "class" + std::to_string(c);
    int64_t r = cls.firstRank;
    describeProgram(cls.spec.name, cls.spec.ranks, p.ranks[r], cls.plan,
                    p.traffic[r], p.inputs[r], p.outputs[r], out);
    writer.addRankClass(std::move(cls.spec));
  }
  for (size_t i = 0; i < p.inputShardings.size(); ++i)
    writer.addInput(shardedDesc("arg" + std::to_string(i),
                                p.ranks[0].buffers[p.inputs[0][i]].dtype,
                                p.inputShardings[i]));
  for (size_t i = 0; i < p.outputShardings.size(); ++i)
    writer.addOutput(shardedDesc("result" + std::to_string(i),
                                 p.ranks[0].buffers[p.outputs[0][i]].dtype,
                                 p.outputShardings[i]));
  for (art::ConstantSpec &c : p.constants)
    writer.addConstant(std::move(c));
  shardrt::StatusOr<std::vector<uint8_t>> bytes = writer.serialize();
  if (!bytes.ok())
    return emitError(f.getLoc())
           << "internal error: the partitioned artifact fails its own "
              "checks: "
           << bytes.status().message();
  out.bytes = std::move(*bytes);
  return out;
}

/// The reference must take and return exactly what `f` does.
LogicalResult checkReference(func::FuncOp f,
                             const std::vector<uint8_t> &reference) {
  shardrt::StatusOr<art::Artifact> ref =
      art::Artifact::loadFromMemory(reference);
  if (!ref.ok())
    return f.emitError("the reference model does not load: ")
           << ref.status().message();
  auto matches = [](Type type, const fb::TensorDesc &desc) {
    auto tensor = cast<RankedTensorType>(type);
    fb::DType dtype =
        tensor.getElementType().isInteger(1) ? fb::DType::I1 : fb::DType::F32;
    return desc.dtype() == dtype && desc.shape() &&
           llvm::equal(tensor.getShape(), *desc.shape());
  };
  const fb::Artifact &root = ref->root();
  auto count = [](auto *v) { return v ? v->size() : 0u; };
  bool same = count(root.inputs()) == f.getNumArguments() &&
              count(root.outputs()) == f.getNumResults();
  for (unsigned i = 0; same && i < f.getNumArguments(); ++i)
    same = matches(f.getArgumentTypes()[i], *root.inputs()->Get(i));
  for (unsigned i = 0; same && i < f.getNumResults(); ++i)
    same = matches(f.getResultTypes()[i], *root.outputs()->Get(i));
  if (!same)
    return f.emitError("the reference model's inputs and outputs differ from "
                       "this model's ")
           << f.getFunctionType();
  return success();
}

} // namespace

FailureOr<LoweredArtifact>
lowerToArtifact(ModuleOp module, const LowerOptions &options,
                const std::vector<uint8_t> *reference) {
  FailureOr<func::FuncOp> entry = entryFunction(module);
  if (failed(entry))
    return failure();
  if (reference && failed(checkReference(*entry, *reference)))
    return failure();
  FailureOr<MeshOp> mesh = functionMesh(*entry);
  if (failed(mesh))
    return failure();
  if (options.unpartitioned || !*mesh || !firstRealSharding(*entry) ||
      (*mesh).getNumDevices() == 1)
    // One rank: nothing of our own to embed as a reference (it would be
    // the program itself); an independent one may be given.
    return lowerWorldOfOne(*entry, reference);
  // The partitioned program carries the world-of-one program of the same
  // source as its reference (shard-run --check), unless one is given.
  std::vector<uint8_t> own;
  if (!reference) {
    FailureOr<LoweredArtifact> single = lowerWorldOfOne(*entry, nullptr);
    if (failed(single))
      return failure();
    own = std::move(single->bytes);
    reference = &own;
  }
  return lowerPartitioned(*entry, *mesh, *reference);
}

} // namespace shardc
