//===- Session.cpp - One rank's execution state ---------------------------===//

#include "Backend.h"
#include "Prepare.h"
#include "StepFlops.h"
#include "shardrt/Engine.h"
#include "shardrt/artifact/Artifact.h"
#include "shardrt/comm/Communicator.h"

#include <algorithm>
#include <cstring>

namespace shardrt {

using exec::RunFn;
using exec::SlotInfo;

struct Session::Impl {
  const artifact::Artifact *artifact = nullptr;
  const fb::RankClass *rankClass = nullptr;
  comm::Communicator *comm = nullptr;
  bool balanceCausalRings = true; ///< SessionOptions::balanceCausalRings
  std::unique_ptr<exec::Backend> backend;
  void *ownedArena = nullptr; // from backend->allocate, released in ~Impl
  uint8_t *arena = nullptr;
  uint64_t arenaBytes = 0;
  std::vector<SlotInfo> slots;
  std::vector<void *> base; // slot pointers before binding
  std::vector<uint32_t> inputSlots, outputSlots;
  std::vector<const void *> boundInputs;
  std::vector<bool> inputReady;
  std::vector<void *> boundOutputs;
  /// A bound address changed since checkDisjointBindings last passed.
  bool bindingsChanged = true;
  /// Per output, isItsOwnInput() as of the last check of the bindings.
  std::vector<bool> ownInput;
  /// Per output: its slot is an input or a constant, which the program only
  /// reads; a bound buffer then receives a copy after the run instead of
  /// replacing the slot.
  std::vector<bool> outputReadOnly;
  std::vector<std::vector<int64_t>> inputShapes, outputShapes;
  std::vector<RunFn> program;
  std::vector<std::string> names; // per instruction, for error messages
  exec::PendingExchanges pending; // exchanges the program starts and waits
  exec::WorkspacePlan workspace;  // host memory the steps use beyond the arena
  std::vector<HostStep> hostSteps;
  /// SessionOptions::profile: the timer of each run and the sums so far.
  std::unique_ptr<exec::StepTimer> timer;
  std::vector<StepProfile> profile;
  std::vector<double> stepMs;

  /// Session::checkPrograms: decode without an arena (slot pointers stay
  /// null) or workspace, passing over Unimplemented steps.
  bool checkOnly = false;
  /// After a failed prepare(): the instruction at fault, or -1.
  int64_t failedAt = -1;

  ~Impl() {
    if (ownedArena)
      backend->release(ownedArena);
  }
  Status prepare(int rank, const std::vector<int64_t> &meshShape);
  /// The profile's rows, one per instruction, before any run.
  Status prepareProfile();
  /// Runs the program's steps, marking each for the timer when there is one.
  Status runSteps(exec::RunContext &rc);
  /// After a run that succeeded: its step times into the profile.
  Status addProfiledRun();
  /// Where slot `slot` is during a run: a zero-copy input or the arena.
  void *slotData(uint32_t slot) const;
  Status checkBinding(size_t i, bool input, DType dtype,
                      const std::vector<int64_t> &shape) const;
  /// Refuses a run where memory the program writes (a bound output, the
  /// arena) overlaps other caller memory it reads or writes: the steps would
  /// read values they already overwrote.
  /// Also records isItsOwnInput() per output (`ownInput`) for the runs
  /// until the next change of a binding.
  Status checkDisjointBindings(const Engine &engine);
  /// Output i is an input the program returns as it is, bound to the very
  /// buffer that input is bound to: nothing writes it, so it may overlap
  /// what the input may.
  bool isItsOwnInput(size_t i) const;
};

namespace {
std::string where(const fb::RankClass &rc, size_t i,
                  const fb::Instruction &inst) {
  return "rank class '" + (rc.name() ? rc.name()->str() : std::string()) +
         "' instruction " + std::to_string(i) + " (" +
         fb::EnumNameOpcode(inst.opcode()) + ")";
}

/// Largest element count a slot's shape may describe, zero dims counted as
/// one. The loader bounds a tensor's bytes, which says nothing about the
/// other dims of a zero-sized one ((0, 2^62) holds no bytes); with this bound
/// no product of extents in the decoder or a kernel can overflow. No real
/// per-rank buffer comes near 2^40 elements.
constexpr uint64_t kMaxSlotVolume = uint64_t(1) << 40;

/// Checks what the kernels assume of a tensor slot beyond the loader's
/// checks: bounded extents and elements aligned to their size (the arena
/// itself is 64-byte aligned).
Status checkSlot(uint32_t index, const fb::BufferSlot &b) {
  if (!b.has_shape())
    return Status();
  std::string where = "buffer slot " + std::to_string(index);
  uint64_t volume = 1;
  for (uint32_t d = 0; b.shape() && d < b.shape()->size(); ++d) {
    int64_t n = b.shape()->Get(d);
    if (n < 0 ||
        __builtin_mul_overflow(volume, uint64_t(std::max<int64_t>(n, 1)),
                               &volume) ||
        volume > kMaxSlotVolume)
      return Status::invalidArgument(where +
                                     " has a shape with more than 2^40 "
                                     "elements (zero dims counted as one)");
  }
  size_t elem = artifact::dtypeSize(b.dtype());
  if (elem > 1 && b.offset() % elem != 0)
    return Status::invalidArgument(
        where + " at arena offset " + std::to_string(b.offset()) +
        " is not aligned to its " + std::to_string(elem) + "-byte elements");
  return Status();
}

/// A compute instruction's output may not share arena bytes with one of its
/// inputs (the kernels read inputs while writing outputs, some with memcpy),
/// except an elementwise op writing exactly over an input: it reads each
/// element of that input only for the output element at the same place, so
/// both backends may overwrite it (a fused kernel's generated source then
/// drops __restrict__ and __ldg). Communication works in place by design
/// and stages its own buffers.
Status checkNoOverlap(const fb::Instruction &inst, const fb::RankClass &rc,
                      const std::vector<exec::SlotInfo> &slots,
                      const std::vector<bool> &isConstant) {
  if (artifact::communicates(inst.opcode()) || !inst.inputs() ||
      !inst.outputs())
    return Status();
  bool inPlace = inst.opcode() == fb::Opcode::Copy ||
                 inst.opcode() == fb::Opcode::Unary ||
                 inst.opcode() == fb::Opcode::Binary ||
                 inst.opcode() == fb::Opcode::ElementwiseFused;
  auto range = [&](uint32_t slot) {
    uint64_t lo = rc.buffers()->Get(slot)->offset();
    return std::make_pair(lo, lo + slots[slot].tensorBytes());
  };
  for (uint32_t o : *inst.outputs()) {
    auto [oLo, oHi] = range(o);
    for (uint32_t in : *inst.inputs()) {
      auto [iLo, iHi] = range(in);
      if (isConstant[in] || oLo == oHi || iLo == iHi || oHi <= iLo ||
          iHi <= oLo || (inPlace && oLo == iLo && oHi == iHi))
        continue;
      return Status::invalidArgument(
          "output slot " + std::to_string(o) +
          " overlaps the arena bytes of input slot " + std::to_string(in));
    }
  }
  return Status();
}

bool aligned(const void *p, size_t elem) {
  return elem <= 1 || reinterpret_cast<uintptr_t>(p) % elem == 0;
}

} // namespace

Status Session::Impl::prepare(int rank, const std::vector<int64_t> &meshShape) {
  const fb::RankClass &rc = *rankClass;
  for (uint32_t i = 0; rc.buffers() && i < rc.buffers()->size(); ++i) {
    const fb::BufferSlot &b = *rc.buffers()->Get(i);
    SHARDRT_RETURN_IF_ERROR(checkSlot(i, b));
    slots.push_back(exec::slotInfo(b));
    // A slot bound to a constant is read from the file, whatever its offset
    // (the loader checks only the others against the arena); its base is
    // replaced below. Pointing past the arena would be undefined.
    base.push_back(arena && b.offset() <= arenaBytes ? arena + b.offset()
                                                     : nullptr);
  }
  // Read-only slots: constants live in the loaded file, inputs may be bound
  // to the caller's const memory. No instruction may write them.
  std::vector<bool> readOnly(slots.size(), false), isConstant(slots.size());
  for (uint32_t i = 0; rc.constants() && i < rc.constants()->size(); ++i) {
    const fb::ConstantBinding &cb = *rc.constants()->Get(i);
    artifact::ByteSpan data = artifact->constantShard(cb.constant(), rank);
    // A constant's alignment may be as small as 1.
    if (!aligned(data.data, artifact::dtypeSize(slots[cb.slot()].dtype)))
      return Status::invalidArgument(
          "constant " + std::to_string(cb.constant()) + " bound to slot " +
          std::to_string(cb.slot()) + " is not aligned to its elements");
    SHARDRT_ASSIGN_OR_RETURN(base[cb.slot()],
                             backend->placeConstant(data.data, data.size));
    readOnly[cb.slot()] = isConstant[cb.slot()] = true;
  }
  if (rc.input_slots())
    inputSlots.assign(rc.input_slots()->begin(), rc.input_slots()->end());
  if (rc.output_slots())
    outputSlots.assign(rc.output_slots()->begin(), rc.output_slots()->end());
  for (uint32_t s : inputSlots) {
    readOnly[s] = true;
    inputShapes.push_back(slots[s].shape);
  }
  for (uint32_t s : outputSlots) {
    outputShapes.push_back(slots[s].shape);
    outputReadOnly.push_back(readOnly[s]);
  }
  boundInputs.assign(inputSlots.size(), nullptr);
  inputReady.assign(inputSlots.size(), false);
  boundOutputs.assign(outputSlots.size(), nullptr);

  SHARDRT_RETURN_IF_ERROR(backend->load(*artifact));
  exec::PrepareContext ctx{slots, rank, meshShape,
                           artifact->meshCoordinates(rank)};
  ctx.pending = &pending;
  ctx.comm = comm;
  ctx.workspace = &workspace;
  ctx.balanceCausalRings = balanceCausalRings;
  for (uint32_t i = 0; rc.program() && i < rc.program()->size(); ++i) {
    const fb::Instruction &inst = *rc.program()->Get(i);
    ctx.instruction = i;
    failedAt = i;
    for (uint32_t k = 0; inst.outputs() && k < inst.outputs()->size(); ++k)
      if (readOnly[inst.outputs()->Get(k)])
        return Status::invalidArgument(
            where(rc, i, inst) + " writes slot " +
            std::to_string(inst.outputs()->Get(k)) +
            ", which holds a constant or a model input");
    StatusOr<RunFn> fn = backend->prepare(inst, ctx);
    if (!fn.ok() &&
        !(checkOnly && fn.status().code() == StatusCode::Unimplemented))
      return Status(fn.status().code(),
                    where(rc, i, inst) + ": " + fn.status().message());
    if (Status s = checkNoOverlap(inst, rc, slots, isConstant); !s.ok())
      return Status(s.code(), where(rc, i, inst) + ": " + s.message());
    program.push_back(fn.ok() ? std::move(*fn) : RunFn());
    names.push_back(where(rc, i, inst));
  }
  failedAt = -1;
  SHARDRT_RETURN_IF_ERROR(pending.checkAllClaimed());
  if (checkOnly)
    return Status();
  SHARDRT_RETURN_IF_ERROR(workspace.finish());
  hostSteps = backend->hostSteps();
  return backend->finishPrepare();
}

Status Session::Impl::prepareProfile() {
  const fb::RankClass &rc = *rankClass;
  const fb::Artifact &root = artifact->root();
  auto bytesOf = [&](const flatbuffers::Vector<uint32_t> *list) {
    uint64_t bytes = 0;
    for (uint32_t k = 0; list && k < list->size(); ++k)
      bytes += slots[list->Get(k)].tensorBytes();
    return bytes;
  };
  for (uint32_t i = 0; i < program.size(); ++i) {
    const fb::Instruction &inst = *rc.program()->Get(i);
    StepProfile p;
    p.instruction = i;
    p.opcode = fb::EnumNameOpcode(inst.opcode());
    if (inst.kernel() >= 0 && root.kernel_symbols() &&
        uint32_t(inst.kernel()) < root.kernel_symbols()->size())
      p.kernel = root.kernel_symbols()->Get(uint32_t(inst.kernel()))->str();
    // A ring computes as much as it communicates: its bytes are its slots',
    // like a compute step's.
    if (!artifact::communicates(inst.opcode()) ||
        inst.opcode() == fb::Opcode::RingAttention) {
      p.bytesRead = bytesOf(inst.inputs());
      p.bytesWritten = bytesOf(inst.outputs());
      p.flops = exec::stepFlops(inst, slots);
    }
    profile.push_back(std::move(p));
  }
  SHARDRT_ASSIGN_OR_RETURN(timer, backend->createStepTimer(program.size()));
  return Status();
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

StatusOr<std::unique_ptr<Session>>
Session::create(std::shared_ptr<const Engine> engine, comm::Communicator *comm,
                const SessionOptions &options) {
  if (!engine)
    return Status::invalidArgument("no engine");
  int world = engine->worldSize();
  if (!comm && world != 1)
    return Status::failedPrecondition(
        "the artifact is compiled for a world of " + std::to_string(world) +
        " ranks; a session needs a communicator of that size");
  if (comm && comm->size() != world)
    return Status::failedPrecondition(
        "the artifact is compiled for a world of " + std::to_string(world) +
        " ranks but the communicator has " + std::to_string(comm->size()));
  if (options.threads < 0 || options.threads > SessionOptions::kMaxThreads)
    return Status::invalidArgument(
        "threads " + std::to_string(options.threads) +
        " (expected 0 for the default, or 1 to " +
        std::to_string(SessionOptions::kMaxThreads) + ")");
  if (options.profile && options.cudaGraph)
    return Status::invalidArgument(
        "profiling times each step; a CUDA graph replays the program as one "
        "(ask for one or the other)");
  int rank = comm ? comm->rank() : 0;
  auto impl = std::make_unique<Impl>();
  impl->artifact = &engine->artifact();
  impl->comm = comm;
  SHARDRT_ASSIGN_OR_RETURN(impl->backend,
                           exec::createBackend(options.backend, options));
  int32_t cls = impl->artifact->rankClassOf(rank);
  if (cls < 0)
    return Status::outOfRange("rank " + std::to_string(rank) +
                              " has no program");
  impl->rankClass = &impl->artifact->rankClass(uint32_t(cls));
  impl->arenaBytes = impl->rankClass->arena_bytes();
  if (options.arena) {
    if (options.arenaBytes < impl->arenaBytes)
      return Status::invalidArgument(
          "the caller's arena has " + std::to_string(options.arenaBytes) +
          " bytes; rank " + std::to_string(rank) + " needs " +
          std::to_string(impl->arenaBytes));
    if (reinterpret_cast<uintptr_t>(options.arena) % 64 != 0)
      return Status::invalidArgument(
          "the caller's arena is not 64-byte aligned");
    impl->arena = static_cast<uint8_t *>(options.arena);
  } else if (impl->arenaBytes > 0) {
    SHARDRT_ASSIGN_OR_RETURN(void *arena,
                             impl->backend->allocate(size_t(impl->arenaBytes)));
    impl->ownedArena = arena;
    impl->arena = static_cast<uint8_t *>(arena);
  }
  impl->balanceCausalRings = options.balanceCausalRings;
  if (Status s = impl->prepare(rank, engine->meshShape()); !s.ok())
    return s;
  if (options.profile)
    SHARDRT_RETURN_IF_ERROR(impl->prepareProfile());
  std::unique_ptr<Session> session(new Session(std::move(impl)));
  session->engine_ = std::move(engine);
  session->rank_ = rank;
  return session;
}

std::vector<ProgramDefect> Session::checkPrograms(const Engine &engine) {
  std::vector<ProgramDefect> defects;
  const artifact::Artifact &artifact = engine.artifact();
  for (uint32_t c = 0; c < artifact.numRankClasses(); ++c) {
    const fb::RankClass &rc = artifact.rankClass(c);
    if (!rc.ranks() || rc.ranks()->size() == 0)
      continue; // the loader refuses such a class; nothing would run it
    Impl impl;
    impl.artifact = &artifact;
    impl.rankClass = &rc;
    impl.checkOnly = true;
    StatusOr<std::unique_ptr<exec::Backend>> backend =
        exec::createBackend(BackendKind::Cpu, SessionOptions());
    Status s = backend.status();
    if (s.ok()) {
      impl.backend = std::move(*backend);
      s = impl.prepare(rc.ranks()->Get(0), engine.meshShape());
    }
    if (!s.ok())
      defects.push_back({c, impl.failedAt, std::move(s)});
  }
  return defects;
}

uint64_t Session::arenaBytes() const { return impl_->arenaBytes; }

uint64_t Session::workspaceBytes() const {
  return impl_->workspace.bytes() + impl_->backend->scratchBytes();
}

const std::vector<HostStep> &Session::hostSteps() const {
  return impl_->hostSteps;
}

const std::vector<StepProfile> &Session::profile() const {
  return impl_->profile;
}

void Session::resetProfile() {
  for (StepProfile &p : impl_->profile)
    p.runs = 0, p.totalMs = p.minMs = 0;
}

const std::vector<int64_t> &Session::inputShape(size_t i) const {
  return impl_->inputShapes.at(i);
}
const std::vector<int64_t> &Session::outputShape(size_t i) const {
  return impl_->outputShapes.at(i);
}

Status Session::Impl::checkBinding(size_t i, bool input, DType dtype,
                                   const std::vector<int64_t> &shape) const {
  const char *what = input ? "input" : "output";
  size_t count = input ? inputSlots.size() : outputSlots.size();
  if (i >= count)
    return Status::outOfRange(std::string("no ") + what + " " +
                              std::to_string(i) + "; the model has " +
                              std::to_string(count));
  const SlotInfo &s = slots[input ? inputSlots[i] : outputSlots[i]];
  if (static_cast<fb::DType>(dtype) != s.dtype)
    return Status::invalidArgument(
        std::string(what) + " " + std::to_string(i) + " is " +
        dtypeName(static_cast<DType>(s.dtype)) + ", not " + dtypeName(dtype));
  if (shape != s.shape)
    return Status::invalidArgument(std::string(what) + " " + std::to_string(i) +
                                   " of this rank has shape " +
                                   exec::shapeStr(s.shape) + ", not " +
                                   exec::shapeStr(shape));
  return Status();
}

Status Session::bindInput(size_t i, const void *data, DType dtype,
                          const std::vector<int64_t> &shape) {
  SHARDRT_RETURN_IF_ERROR(impl_->checkBinding(i, true, dtype, shape));
  if (!data && exec::numElements(shape) > 0)
    return Status::invalidArgument("input " + std::to_string(i) + " is null");
  if (!aligned(data, dtypeSize(dtype)))
    return Status::invalidArgument("input " + std::to_string(i) +
                                   " is not aligned to its elements; copy it");
  // The overlap check depends on the bound addresses alone.
  impl_->bindingsChanged |= impl_->boundInputs[i] != data;
  impl_->boundInputs[i] = data;
  impl_->inputReady[i] = true;
  return Status();
}

Status Session::copyInput(size_t i, const void *data, DType dtype,
                          const std::vector<int64_t> &shape) {
  SHARDRT_RETURN_IF_ERROR(impl_->checkBinding(i, true, dtype, shape));
  size_t bytes = size_t(exec::numElements(shape)) * dtypeSize(dtype);
  if (!data && bytes > 0)
    return Status::invalidArgument("input " + std::to_string(i) + " is null");
  if (bytes)
    SHARDRT_RETURN_IF_ERROR(
        impl_->backend->copyIn(impl_->base[impl_->inputSlots[i]], data, bytes));
  impl_->bindingsChanged |= impl_->boundInputs[i] != nullptr;
  impl_->boundInputs[i] = nullptr;
  impl_->inputReady[i] = true;
  return Status();
}

Status Session::bindOutput(size_t i, void *data, DType dtype,
                           const std::vector<int64_t> &shape) {
  SHARDRT_RETURN_IF_ERROR(impl_->checkBinding(i, false, dtype, shape));
  if (!data && exec::numElements(shape) > 0)
    return Status::invalidArgument("output " + std::to_string(i) + " is null");
  if (!aligned(data, dtypeSize(dtype)))
    return Status::invalidArgument("output " + std::to_string(i) +
                                   " is not aligned to its elements");
  impl_->bindingsChanged |= impl_->boundOutputs[i] != data;
  impl_->boundOutputs[i] = data;
  return Status();
}

void *Session::Impl::slotData(uint32_t slot) const {
  void *p = base[slot];
  for (size_t i = 0; i < inputSlots.size(); ++i)
    if (inputSlots[i] == slot && boundInputs[i])
      p = const_cast<void *>(boundInputs[i]);
  return p;
}

const void *Session::outputData(size_t i) const {
  if (i >= impl_->outputSlots.size())
    return nullptr;
  if (impl_->boundOutputs[i])
    return impl_->boundOutputs[i];
  return impl_->slotData(impl_->outputSlots[i]);
}

Status Session::copyOutput(size_t i, void *data, DType dtype,
                           const std::vector<int64_t> &shape) const {
  SHARDRT_RETURN_IF_ERROR(impl_->checkBinding(i, false, dtype, shape));
  size_t bytes = size_t(exec::numElements(shape)) * dtypeSize(dtype);
  if (!data && bytes > 0)
    return Status::invalidArgument("output " + std::to_string(i) +
                                   " destination is null");
  return bytes ? impl_->backend->copyOut(data, outputData(i), bytes) : Status();
}

namespace {
/// A byte range of memory that a run touches: the arena, or input/output
/// `index`.
struct BoundRange {
  enum Kind { Arena, Input, Output } kind;
  size_t index;
  uintptr_t begin, end;
  bool written() const { return kind != Input; }
};
} // namespace

bool Session::Impl::isItsOwnInput(size_t i) const {
  if (!outputReadOnly[i] || !boundOutputs[i])
    return false;
  for (size_t j = 0; j < inputSlots.size(); ++j)
    if (inputSlots[j] == outputSlots[i] && boundInputs[j] == boundOutputs[i])
      return true;
  return false;
}

Status Session::Impl::checkDisjointBindings(const Engine &engine) {
  std::vector<BoundRange> ranges;
  auto add = [&](BoundRange::Kind kind, size_t index, const void *data,
                 uint64_t bytes) {
    auto begin = reinterpret_cast<uintptr_t>(data);
    if (data && bytes)
      ranges.push_back({kind, index, begin, begin + uintptr_t(bytes)});
  };
  add(BoundRange::Arena, 0, arena, arenaBytes);
  for (size_t i = 0; i < inputSlots.size(); ++i)
    add(BoundRange::Input, i, boundInputs[i],
        slots[inputSlots[i]].tensorBytes());
  ownInput.assign(outputSlots.size(), false);
  for (size_t i = 0; i < outputSlots.size(); ++i)
    if (!(ownInput[i] = isItsOwnInput(i)))
      add(BoundRange::Output, i, boundOutputs[i],
          slots[outputSlots[i]].tensorBytes());
  std::stable_sort(ranges.begin(), ranges.end(),
                   [](const BoundRange &a, const BoundRange &b) {
                     return a.begin < b.begin;
                   });
  auto describe = [&](const BoundRange &r) -> std::string {
    if (r.kind == BoundRange::Arena)
      return "the session's arena";
    const std::string &name = r.kind == BoundRange::Input
                                  ? engine.input(r.index).name
                                  : engine.output(r.index).name;
    return std::string(r.kind == BoundRange::Input ? "input " : "output ") +
           std::to_string(r.index) + " ('" + name + "')";
  };
  // Sorted by start, a range overlaps an earlier one iff that one ends past
  // its start, so the farthest-reaching earlier range (and the farthest-
  // reaching written one) is the only one to test.
  const BoundRange *reach = nullptr, *writtenReach = nullptr;
  for (const BoundRange &r : ranges) {
    const BoundRange *clash = r.written() ? reach : writtenReach;
    if (clash && clash->end > r.begin)
      return Status::invalidArgument(
          describe(*clash) + " and " + describe(r) +
          " overlap in memory, and a run writes " +
          describe(clash->written() ? *clash : r) +
          "; bind disjoint buffers or copy the input in");
    if (!reach || r.end > reach->end)
      reach = &r;
    if (r.written() && (!writtenReach || r.end > writtenReach->end))
      writtenReach = &r;
  }
  return Status();
}

Status Session::Impl::runSteps(exec::RunContext &rc) {
  for (size_t i = 0; i < program.size(); ++i) {
    if (timer)
      SHARDRT_RETURN_IF_ERROR(timer->mark(i));
    if (Status s = program[i](rc); !s.ok())
      return Status(s.code(), names[i] + ": " + s.message());
  }
  return timer ? timer->mark(program.size()) : Status();
}

Status Session::run() {
  Impl &im = *impl_;
  for (size_t i = 0; i < im.inputReady.size(); ++i)
    if (!im.inputReady[i])
      return Status::failedPrecondition("input " + std::to_string(i) + " ('" +
                                        engine_->input(i).name +
                                        "') is neither bound nor copied");
  if (im.comm && !im.comm->claimForRun())
    return Status::failedPrecondition(
        "rank " + std::to_string(rank_) +
        "'s communicator is running another program; sessions sharing a "
        "communicator run one at a time");
  struct ReleaseComm {
    comm::Communicator *comm;
    ~ReleaseComm() {
      if (comm)
        comm->releaseFromRun();
    }
  } releaseComm{im.comm};
  if (im.bindingsChanged) {
    SHARDRT_RETURN_IF_ERROR(im.checkDisjointBindings(*engine_));
    im.bindingsChanged = false;
  }
  exec::RunContext rc;
  rc.slots = im.base;
  rc.comm = im.comm;
  for (size_t i = 0; i < im.inputSlots.size(); ++i)
    if (im.boundInputs[i])
      rc.slots[im.inputSlots[i]] = const_cast<void *>(im.boundInputs[i]);
  for (size_t i = 0; i < im.outputSlots.size(); ++i)
    if (im.boundOutputs[i] && !im.outputReadOnly[i])
      rc.slots[im.outputSlots[i]] = im.boundOutputs[i];
  // A failure part way leaves the peers waiting for this rank and the
  // world's messages out of step: the communicator is given up on, so that
  // peers stop waiting (`local`, `mpi`) and no later run mismatches
  // messages.
  auto giveUp = [&](const Status &s) {
    if (im.comm)
      im.comm->abort(s);
    return s;
  };
  StatusOr<bool> replayed = im.backend->beginRun(rc);
  if (!replayed.ok())
    return giveUp(replayed.status());
  if (!*replayed)
    if (Status s = im.runSteps(rc); !s.ok()) {
      // Given up on first, so that a peer's message this rank still waits
      // for in the drain does not hold it until the timeout (`local`,
      // `mpi`).
      (void)giveUp(s);
      (void)im.backend->endRun(true); // the first error is the one to report
      im.pending.drain();             // leave no transfer of this run in flight
      return s;
    }
  if (Status s = im.backend->endRun(false); !s.ok())
    return giveUp(s);
  // An output that is an input or a constant: the program read the slot
  // where it is; the caller's buffer gets a copy.
  for (size_t i = 0; i < im.outputSlots.size(); ++i) {
    uint32_t slot = im.outputSlots[i];
    size_t bytes = size_t(im.slots[slot].tensorBytes());
    if (im.boundOutputs[i] && im.outputReadOnly[i] && bytes && !im.ownInput[i])
      SHARDRT_RETURN_IF_ERROR(
          im.backend->copyWithin(im.boundOutputs[i], rc.slots[slot], bytes));
  }
  return im.timer ? im.addProfiledRun() : Status();
}

Status Session::Impl::addProfiledRun() {
  SHARDRT_RETURN_IF_ERROR(timer->millis(stepMs));
  for (size_t i = 0; i < profile.size(); ++i) {
    StepProfile &p = profile[i];
    p.minMs = p.runs ? std::min(p.minMs, stepMs[i]) : stepMs[i];
    p.totalMs += stepMs[i];
    ++p.runs;
  }
  return Status();
}

} // namespace shardrt
