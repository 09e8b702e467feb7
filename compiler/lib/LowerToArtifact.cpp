//===- LowerToArtifact.cpp - Rank programs, memory plan, serialisation ----===//

#include "Lowering.h"
#include "Partition.h"
#include "RankClasses.h"

#include "shardc/Compiler/Compiler.h"
#include "shardc/Compiler/MemoryPlan.h"
#include "shardc/Compiler/Passes.h"
#include "shardc/Dialect/Sc/ScAttrs.h"
#include "shardc/Dialect/Sc/ScOps.h"
#include "shardc/Dialect/ScLocal/ScLocal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "shardrt/artifact/Artifact.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <map>

using namespace mlir;
using namespace shardc::sc;
namespace art = shardrt::artifact;

namespace shardc {

fb::DType storedDType(Type element) {
  if (element.isInteger(1))
    return fb::DType::I1;
  if (element.isBF16())
    return fb::DType::BF16;
  if (element.isF16())
    return fb::DType::F16;
  if (element.isInteger(64))
    return fb::DType::I64;
  return fb::DType::F32;
}

FailureOr<fb::DType> artifactDType(Operation *op, Type type) {
  if (type.isInteger(64) && isa<sc::ConstantOp>(op))
    return op->emitOpError("is an i64 constant; shardc's i64 tensors are "
                           "argmax/argmin indices (write constants as f32 "
                           "and cast them)");
  if (scl::isBufferElement(type))
    return storedDType(type);
  return op->emitOpError("computes in ")
         << type
         << "; shardc holds f32, bf16, f16, i1 and i64 tensors (bf16 and f16 "
            "compute in f32, i64 holds argmax/argmin indices; cpu and cuda "
            "targets)";
}

static bool computable(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  return !tensor || scl::isBufferElement(tensor.getElementType());
}

/// int64 tensors are argmax/argmin indices: made by those ops (or a cast),
/// moved, cast and returned, never computed with; the runtime's kernels
/// other than casts and moves take no int64 operand.
static bool handlesInt64(Operation *op) {
  return isa<sc::ArgmaxOp, sc::ArgminOp, sc::MaxOp, sc::MinOp, sc::CastOp,
             sc::ShardingConstraintOp, sc::ReshardOp, sc::ReshapeOp,
             sc::PermuteOp, sc::TransposeOp, sc::SliceOp, sc::ConcatOp,
             sc::BroadcastToOp, sc::UnsqueezeOp, sc::SqueezeOp, func::ReturnOp>(
      op);
}

static bool isInt64Tensor(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  return tensor && tensor.getElementType().isInteger(64);
}

static InFlightDiagnostic int64InputError(BlockArgument arg) {
  return emitError(arg.getLoc())
         << "model input " << arg.getArgNumber() << " is " << arg.getType()
         << "; shardc's i64 tensors are argmax/argmin indices, which a model "
            "returns or casts, not takes";
}

LogicalResult checkElementTypes(ModuleOp module) {
  bool ok = true;
  // The entry is the public function (private ones are helpers).
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      for (BlockArgument arg : func.getArguments())
        if (isInt64Tensor(arg.getType())) {
          (void)int64InputError(arg);
          ok = false;
        }
  module.walk([&](Operation *op) {
    // Ops downstream of the first one would each repeat its error.
    if (!llvm::all_of(op->getOperandTypes(), computable))
      return;
    if (isa<sc::ConstantOp>(op) &&
        llvm::any_of(op->getResultTypes(), isInt64Tensor)) {
      (void)artifactDType(op, IntegerType::get(op->getContext(), 64));
      ok = false;
      return;
    }
    if (!handlesInt64(op) &&
        (llvm::any_of(op->getOperandTypes(), isInt64Tensor) ||
         llvm::any_of(op->getResultTypes(), isInt64Tensor))) {
      op->emitOpError("computes with i64 tensors; shardc's i64 tensors are "
                      "argmax/argmin indices, which are moved, cast and "
                      "returned only");
      ok = false;
      return;
    }
    for (Type type : op->getResultTypes())
      if (!computable(type)) {
        (void)artifactDType(op, cast<TensorType>(type).getElementType());
        ok = false;
        return;
      }
  });
  return success(ok);
}

static FailureOr<Buffer> bufferFor(Operation *op, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return op->emitOpError("needs statically shaped tensors; got ") << type;
  // Shardings are sc.sharding attributes; an encoding would be dropped.
  if (tensor.getEncoding())
    return op->emitOpError("has a tensor with an encoding, ")
           << type << "; shardc takes plain tensors (shardings go in "
           << "sc.sharding attributes)";
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
    if (isInt64Tensor(arg.getType()))
      return int64InputError(arg);
    if (!tensor || !tensor.hasStaticShape() || tensor.getEncoding() ||
        !scl::isBufferElement(elem))
      return emitError(arg.getLoc())
             << "model input " << arg.getArgNumber() << " is " << arg.getType()
             << "; shardc takes statically shaped f32, bf16, f16 and i1 "
                "tensors without an encoding (cpu and cuda targets)";
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

uint32_t ProgramBuilder::operandBuffer(Operation *op, unsigned index) const {
  if (!fetchedOperands.empty()) {
    assert(index < fetchedOperands.size() && "an operand without a buffer");
    return fetchedOperands[index];
  }
  return lookup(op->getOperand(index));
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
  // A view keeps the bytes of the buffer it views live as well.
  auto storage = [&](uint32_t slot) -> Buffer & {
    Buffer &b = buffers[slot];
    return b.viewOf >= 0 ? buffers[b.viewOf] : b;
  };
  for (uint32_t i : inputs)
    for (Buffer *b : {&buffers[i], &storage(i)})
      b->last = std::max(b->last, index);
  for (uint32_t o : outputs) {
    // A buffer may be written by several instructions (a pad, then the
    // exchange that fills its halo): it is live from the first.
    for (Buffer *b : {&buffers[o], &storage(o)}) {
      b->first = std::min(b->first, index);
      b->last = std::max(b->last, index);
    }
  }
  art::InstructionSpec inst;
  inst.opcode = opcode;
  inst.inputs = std::move(inputs);
  inst.outputs = std::move(outputs);
  program.push_back(std::move(inst));
  sourceOps.push_back(currentOp);
  sourceLocs.push_back(currentLoc);
  return program.back();
}

uint64_t bufferBytes(const Buffer &b) {
  return art::tensorBytes(b.dtype, b.shape);
}

namespace {

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
      // A group list (one entry per member) is cut: a listing, not a dump.
      constexpr size_t kShownInts = 40;
      os << " ints [";
      for (size_t k = 0; k < std::min(inst.ints.size(), kShownInts); ++k)
        os << (k ? ", " : "") << inst.ints[k];
      if (inst.ints.size() > kShownInts)
        os << ", ... (" << inst.ints.size() << " in all)";
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
     << plan.peakLiveBytes << " bytes, "
     << llvm::format("%.3f", plan.peakLiveBytes
                                 ? double(plan.arenaBytes) / plan.peakLiveBytes
                                 : 1.0)
     << "x)\n";
  for (size_t i = 0; i < b.buffers.size(); ++i) {
    const Buffer &buf = b.buffers[i];
    ps << "  %" << i << " " << fb::EnumNameDType(buf.dtype)
       << shapeText(buf.shape) << " " << bufferBytes(buf) << " B";
    if (buf.constant >= 0)
      ps << " constant " << buf.constant;
    else if (buf.viewOf >= 0)
      ps << " view of %" << buf.viewOf << " @" << plan.offsets[i];
    else
      ps << " @" << plan.offsets[i] << " live [" << buf.first << ", "
         << buf.last << "]";
    ps << "\n";
  }
}

/// The slots of one finished rank program, placed by `plan`.
art::RankClassSpec rankClassSpec(const RankClassProgram &program,
                                 const MemoryPlan &plan) {
  const ProgramBuilder &b = program.builder;
  art::RankClassSpec rc;
  rc.program = b.program;
  rc.inputSlots = program.inputs;
  rc.outputSlots = program.outputs;
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
  return rc;
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
    fb::DType dtype = storedDType(tensor.getElementType());
    // A 0-d tensor's shape may be stored as no vector at all.
    if (!desc.shape())
      return desc.dtype() == dtype && tensor.getRank() == 0;
    return desc.dtype() == dtype &&
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

/// An input's or output's descriptor: global shape and layout.
art::TensorDescSpec tensorDesc(std::string name, Type type,
                               ShardingAttr sharding, MeshOp mesh) {
  auto tensor = cast<RankedTensorType>(type);
  art::TensorDescSpec t;
  t.name = std::move(name);
  t.dtype = storedDType(tensor.getElementType());
  t.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  ValueSharding s = mesh && sharding ? materialize(sharding, type, mesh)
                                     : replicatedSharding(type);
  for (const plan::DimSplit &d : s.layout.dims) {
    art::DimShardingSpec spec;
    for (int a : d.axes)
      spec.meshAxes.push_back(uint32_t(a));
    spec.extents = d.extents();
    t.dims.push_back(std::move(spec));
  }
  // Only an input can be partial (sc-insert-reshards resolves outputs); the
  // caller needs to know which ranks hold which contribution.
  if (s.isPartial()) {
    t.partial = artifactReduceKind(s.partialKind);
    for (int a : s.partialAxes)
      t.partialAxes.push_back(uint32_t(a));
  }
  return t;
}

/// The artifact's constants: one per scl.global, in module order.
std::vector<art::ConstantSpec> constantsOf(ModuleOp module,
                                           llvm::StringMap<int64_t> &index) {
  std::vector<art::ConstantSpec> constants;
  for (auto global : module.getOps<scl::GlobalOp>()) {
    index[global.getSymName()] = int64_t(constants.size());
    art::ConstantSpec spec;
    spec.name = global.getSymName().str();
    for (auto shard : global.getShards().getAsRange<scl::ShardAttr>()) {
      DenseElementsAttr value = shard.getValue();
      if (value.getElementType().isInteger(1))
        spec.dtype = fb::DType::I1;
      ArrayRef<int64_t> shape = value.getType().getShape();
      spec.shards.push_back({{shard.getRanks().begin(), shard.getRanks().end()},
                             {shape.begin(), shape.end()},
                             art::BlobBytes(constantBytes(value))});
    }
    constants.push_back(std::move(spec));
  }
  return constants;
}

/// Compiles the generated kernels of `module` into one fatbin and points
/// every fused instruction (elementwise or reduction) at its kernel. The
/// bodies stay: the CPU backend evaluates them, and the same artifact runs
/// on either. Kernels are named by their position among the class's fused
/// ops in program order, which cudaKernelSource walks the same way.
LogicalResult
addCudaKernels(ModuleOp module, func::FuncOp entry, const LowerOptions &options,
               std::vector<std::pair<RankClassProgram, func::FuncOp>> &classes,
               art::ArtifactWriter &writer) {
  size_t fused = 0;
  // Whether each fused op (in program order, per class) writes nothing: a
  // rank's empty shard has no kernel (the backend skips the step).
  std::vector<std::vector<bool>> empty;
  for (auto &[program, f] : classes) {
    std::vector<bool> &classEmpty = empty.emplace_back();
    f.walk([&](Operation *op) {
      if (isa<scl::FusedElementwiseOp, scl::FusedReductionOp>(op))
        classEmpty.push_back(writesNoElement(op));
    });
    // The kernel names below and in the source count the same ops.
    if (classEmpty.size() != program.fusedInstructions.size())
      return emitError(f.getLoc())
             << "rank class has " << classEmpty.size() << " fused ops but "
             << program.fusedInstructions.size() << " fused instructions";
    fused += size_t(llvm::count(classEmpty, false));
  }
  if (fused == 0)
    return success();
  llvm::Expected<std::vector<uint8_t>> fatbin =
      options.compileCuda(cudaKernelSource(module));
  if (!fatbin)
    return emitError(entry.getLoc())
           << "cannot compile the generated CUDA kernels: "
           << llvm::toString(fatbin.takeError());
  art::KernelBinarySpec spec;
  spec.target = options.cudaTargets;
  spec.format = fb::KernelFormat::Fatbin;
  for (auto [c, classAndFunction] : llvm::enumerate(classes)) {
    auto &[program, f] = classAndFunction;
    for (auto [k, index] : llvm::enumerate(program.fusedInstructions)) {
      if (empty[c][k])
        continue;
      uint32_t symbol =
          writer.addKernelSymbol(fusedKernelName(f.getName(), int64_t(k)));
      program.builder.program[index].kernel = int32_t(symbol);
      spec.symbols.push_back(symbol);
    }
  }
  spec.data = art::BlobBytes(std::move(*fatbin));
  writer.addKernelBinary(std::move(spec));
  return success();
}

/// A scope for one stage under `options.timing`; a no-op one without it.
TimingScope stage(const LowerOptions &options, StringRef name) {
  return options.timing ? options.timing->nest(name) : TimingScope();
}

/// Reports each rank program defect the runtime found in a written artifact
/// at the op its instruction was lowered from (else at its class's function,
/// else at `entry`); failure when there is one.
LogicalResult
reportDefects(const std::vector<RankProgramDefect> &defects,
              ArrayRef<std::pair<RankClassProgram, func::FuncOp>> classes,
              func::FuncOp entry, bool givenPartitioned) {
  for (const RankProgramDefect &d : defects) {
    Location loc = entry.getLoc();
    if (d.rankClass < classes.size()) {
      func::FuncOp f = classes[d.rankClass].second;
      const std::vector<LocationAttr> &locs =
          classes[d.rankClass].first.builder.sourceLocs;
      loc = f.getLoc();
      if (d.instruction >= 0 && size_t(d.instruction) < locs.size() &&
          locs[d.instruction])
        loc = locs[d.instruction];
    }
    emitError(loc) << (givenPartitioned
                           ? "the runtime would refuse this rank program: "
                           : "internal error: the runtime would refuse the "
                             "lowered rank program: ")
                   << d.message;
  }
  return failure(!defects.empty());
}

/// Whether a value of `type` has more than 2^40 elements (zero dims counted
/// as one), which the runtime refuses in a buffer slot.
bool exceedsSlotVolume(Type type) {
  constexpr uint64_t kMaxVolume = uint64_t(1) << 40;
  // Rank programs hold memrefs; the source, tensors.
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return false;
  uint64_t volume = 1;
  for (int64_t n : shaped.getShape())
    if (__builtin_mul_overflow(volume, uint64_t(std::max<int64_t>(n, 1)),
                               &volume) ||
        volume > kMaxVolume)
      return true;
  return false;
}

/// The location and type of the first argument or op result in `f` that
/// exceeds the runtime's slot volume, if any.
std::optional<std::pair<Location, Type>> firstOversized(func::FuncOp f) {
  for (BlockArgument arg : f.getArguments())
    if (exceedsSlotVolume(arg.getType()))
      return std::make_pair(arg.getLoc(), arg.getType());
  std::optional<std::pair<Location, Type>> found;
  f.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (exceedsSlotVolume(type)) {
        found = std::make_pair(op->getLoc(), type);
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return found;
}

std::string shapeOf(Type type) {
  auto shaped = cast<ShapedType>(type);
  std::string text;
  for (int64_t n : shaped.getShape())
    text += std::to_string(n) + "x";
  llvm::raw_string_ostream os(text);
  os << shaped.getElementType();
  return text;
}

/// Fails, at the op (or argument) that makes it, for a per-rank value the
/// runtime would refuse: a buffer slot has no location of its own.
LogicalResult checkPerRankVolumes(func::FuncOp f) {
  std::optional<std::pair<Location, Type>> big = firstOversized(f);
  if (!big)
    return success();
  return emitError(big->first)
         << "needs a per-rank buffer of " << shapeOf(big->second)
         << ", more than 2^40 elements (zero dims counted as one), which the "
            "runtime's buffers hold at most; split it over more ranks or make "
            "it smaller";
}

/// Serialises the partitioned `entry` of `module`: its rank classes, their
/// memory plans, inputs, outputs and constants (and, for the CUDA target,
/// the compiled kernels). `givenPartitioned`: the module came in as rank
/// programs, so an artifact that fails its checks is the input's fault,
/// not shardc's.
FailureOr<LoweredArtifact> writeArtifact(ModuleOp module, func::FuncOp entry,
                                         const std::vector<uint8_t> *reference,
                                         const LowerOptions &options,
                                         bool givenPartitioned = false) {
  TimingScope reading = stage(options, "Read rank classes");
  llvm::StringMap<int64_t> constantIndex;
  std::vector<art::ConstantSpec> constants = constantsOf(module, constantIndex);
  MeshOp mesh;
  std::vector<std::pair<RankClassProgram, func::FuncOp>> classes;
  SharedIntLists lists;
  SymbolTable symbols(module);
  for (Attribute a :
       entry->getAttrOfType<ArrayAttr>(scl::SclDialect::kRankClassesAttrName)) {
    auto f = symbols.lookup<func::FuncOp>(cast<FlatSymbolRefAttr>(a).getAttr());
    if (failed(checkPerRankVolumes(f)))
      return failure();
    FailureOr<RankClassProgram> program =
        readRankClass(f, constantIndex, &lists);
    if (failed(program))
      return failure();
    if (auto ref =
            f->getAttrOfType<FlatSymbolRefAttr>(scl::SclDialect::kMeshAttrName))
      mesh = symbols.lookup<MeshOp>(ref.getAttr());
    classes.push_back({std::move(*program), f});
  }
  std::vector<std::string> axisNames;
  std::vector<int32_t> meshShape;
  if (mesh) {
    for (Attribute a : mesh.getAxisNames())
      axisNames.push_back(cast<StringAttr>(a).str());
    meshShape.assign(mesh.getShape().begin(), mesh.getShape().end());
  }
  art::ArtifactWriter writer(axisNames, meshShape);
  writer.setProducer("shardc 0.1");
  if (reference)
    writer.setReference(
        art::BlobBytes::borrow(reference->data(), reference->size()));
  reading.stop();
  if (options.compileCuda) {
    TimingScope kernels = stage(options, "Compile CUDA kernels");
    if (failed(addCudaKernels(module, entry, options, classes, writer)))
      return failure();
  }
  TimingScope planning = stage(options, "Plan memory");
  LoweredArtifact out;
  std::string prefix = entry.getName().str() + "_";
  for (auto &[program, f] : classes) {
    FailureOr<MemoryPlan> plan = memoryPlanOf(f, program);
    if (failed(plan))
      return failure();
    art::RankClassSpec rc = rankClassSpec(program, *plan);
    StringRef name = program.name;
    name.consume_front(prefix);
    rc.name = name.str();
    rc.ranks = program.ranks;
    if (options.describe)
      describeProgram(rc.name, rc.ranks, program.builder, *plan,
                      program.traffic, program.inputs, program.outputs, out);
    writer.addRankClass(std::move(rc));
  }
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    writer.addInput(tensorDesc(
        "arg" + std::to_string(i), entry.getArgumentTypes()[i],
        entry.getArgAttrOfType<ShardingAttr>(i, kShardingAttrName), mesh));
  for (unsigned i = 0; i < entry.getNumResults(); ++i)
    writer.addOutput(tensorDesc(
        "result" + std::to_string(i), entry.getResultTypes()[i],
        entry.getResultAttrOfType<ShardingAttr>(i, kShardingAttrName), mesh));
  for (art::ConstantSpec &c : constants)
    writer.addConstant(std::move(c));
  planning.stop();
  TimingScope writing = stage(options, "Write and check the artifact");
  shardrt::StatusOr<std::vector<uint8_t>> bytes = writer.serialize();
  if (!bytes.ok())
    return emitError(entry.getLoc())
           << (givenPartitioned
                   ? "the given rank programs fail the artifact checks: "
                   : "internal error: the lowered artifact fails its own "
                     "checks: ")
           << bytes.status().message();
  out.bytes = std::move(*bytes);
  writing.stop();
  TimingScope checking = stage(options, "Check rank programs as the runtime");
  if (options.checkPrograms &&
      failed(reportDefects(options.checkPrograms(out.bytes), classes, entry,
                           givenPartitioned)))
    return failure();
  return out;
}

/// Runs sc-partition (then sc-deepen-halos, sc-expand-norms, sc-fuse,
/// sc-sink-bias, sc-shrink-splats, sc-overlap-halos and sc-reshape-views,
/// as `options` asks)
/// on `module`.
LogicalResult partition(ModuleOp module, const LowerOptions &options) {
  PassManager pm(module.getContext());
  TimingScope passes = stage(options, "Partition and local passes");
  if (options.timing)
    pm.enableTiming(passes);
  addLocalPasses(pm, options);
  return pm.run(module);
}

} // namespace

FailureOr<LoweredArtifact>
lowerToArtifact(ModuleOp module, const LowerOptions &options,
                const std::vector<uint8_t> *reference) {
  func::FuncOp entry = partitionedEntry(module);
  if (!entry) {
    FailureOr<func::FuncOp> source = entryFunction(module);
    if (failed(source))
      return failure();
    if (reference && failed(checkReference(*source, *reference)))
      return failure();
    // A partitioned program carries the world-of-one program of the same
    // source as its reference (shard-run --check), unless one is given.
    std::vector<uint8_t> own;
    if (!reference && !options.unpartitioned &&
        isShardedOverSeveralRanks(*source)) {
      TimingScope t = stage(options, "Reference (world of one)");
      OwningOpRef<ModuleOp> single = module.clone();
      LowerOptions plain;
      plain.unpartitioned = true;
      plain.checkPrograms = options.checkPrograms;
      if (failed(partition(*single, plain)))
        return failure();
      // The world of one holds whole tensors, and the decompositions'
      // intermediates: past the runtime's slot volume it cannot run, but
      // the sharded program may.
      std::optional<std::pair<Location, Type>> wholeTooBig =
          firstOversized(*source);
      single->walk([&](func::FuncOp f) {
        if (!wholeTooBig && !f.isExternal())
          wholeTooBig = firstOversized(f);
      });
      if (wholeTooBig) {
        emitWarning(wholeTooBig->first)
            << "no unpartitioned reference is embedded (shard-run --check "
               "needs one): this value of "
            << shapeOf(wholeTooBig->second)
            << " has more than 2^40 elements on one rank";
      } else {
        FailureOr<LoweredArtifact> lowered =
            writeArtifact(*single, partitionedEntry(*single), nullptr, plain);
        if (failed(lowered))
          return failure();
        own = std::move(lowered->bytes);
        reference = &own;
      }
    }
    if (failed(partition(module, options)))
      return failure();
    entry = partitionedEntry(module);
    return writeArtifact(module, entry, reference, options);
  }
  if (reference && failed(checkReference(entry, *reference)))
    return failure();
  return writeArtifact(module, entry, reference, options,
                       /*givenPartitioned=*/true);
}

} // namespace shardc
