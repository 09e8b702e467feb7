//===- CudaBackend.cpp - Device arena, stream, kernels, CUDA graphs -------===//
//
// One session = one device, one stream (and one more for halo copies). Every
// instruction is first checked by the CPU decoder (so both backends accept and
// reject the same artifacts), then becomes one of:
//  - a native step: a copy or fill on the stream, a generated kernel from
//    the artifact's fatbin launched through the driver API, or a cuBLAS or
//    cuDNN call (CudaLibrarySteps.cpp);
//  - a native halo exchange (CudaExchange.h): boxes packed and unpacked on
//    the device, moved by the communicator device to device (nccl; local
//    with a device-aware copy) or through pinned host copies of the boxes
//    alone, on a stream of its own while the interior conv runs;
//  - a native collective (all-gather, all-reduce, reduce-scatter,
//    all-to-all, broadcast) between device buffers (CudaCollectives.cpp)
//    when the communicator takes device buffers;
//  - a host-staged step: its slots are copied to pinned host mirrors, the
//    CPU step runs on them (with the session's communicator for
//    communication), and what it wrote is copied back. Every opcode has one,
//    so any artifact runs; staged steps are correct but slow and cannot be
//    captured in a CUDA graph.
//
// The driver API is reached through cudaGetDriverEntryPointByVersion rather
// than by linking libcuda: binaries built with this backend still start on
// machines without a GPU driver (and then report Unavailable).
//
//===----------------------------------------------------------------------===//

#include "../Backend.h"
#include "../FusedLaunch.h"
#include "CudaExchange.h"
#include "CudaSupport.h"
#include "shardrt/artifact/Artifact.h"
#include "shardrt/comm/Communicator.h"
#include "shardrt/cuda/Device.h"

#include <cuda.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

namespace shardrt::exec::cuda {

Status cublasStatus(cublasStatus_t err, const char *call) {
  return Status::internal(std::string(call) + ": " + cublasGetStatusName(err) +
                          ": " + cublasGetStatusString(err));
}

#ifdef SHARDRT_HAVE_CUDNN
Status cudnnStatus(cudnnStatus_t err, const char *call) {
  return Status::internal(std::string(call) + ": " + cudnnGetErrorString(err));
}
#endif

namespace {

// The few driver entry points the backend uses (signatures of cuda.h).
using ModuleLoadDataFn = CUresult (*)(CUmodule *, const void *);
using ModuleUnloadFn = CUresult (*)(CUmodule);
using ModuleGetFunctionFn = CUresult (*)(CUfunction *, CUmodule, const char *);
using LaunchKernelFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned,
                                    unsigned, unsigned, unsigned, unsigned,
                                    CUstream, void **, void **);
using GetErrorNameFn = CUresult (*)(CUresult, const char **);

struct Driver {
  ModuleLoadDataFn moduleLoadData = nullptr;
  ModuleUnloadFn moduleUnload = nullptr;
  ModuleGetFunctionFn moduleGetFunction = nullptr;
  LaunchKernelFn launchKernel = nullptr;
  GetErrorNameFn getErrorName = nullptr;

  Status load() {
    SHARDRT_RETURN_IF_ERROR(entry("cuModuleLoadData", moduleLoadData));
    SHARDRT_RETURN_IF_ERROR(entry("cuModuleUnload", moduleUnload));
    SHARDRT_RETURN_IF_ERROR(entry("cuModuleGetFunction", moduleGetFunction));
    SHARDRT_RETURN_IF_ERROR(entry("cuLaunchKernel", launchKernel));
    return entry("cuGetErrorName", getErrorName);
  }
  Status check(CUresult r, const std::string &call) const {
    if (r == CUDA_SUCCESS)
      return Status();
    const char *name = nullptr;
    if (!getErrorName || getErrorName(r, &name) != CUDA_SUCCESS)
      name = "unknown CUresult";
    return Status::internal(call + ": " + name + " (" + std::to_string(r) +
                            ")");
  }

private:
  template <typename Fn> Status entry(const char *symbol, Fn &fn) {
    void *p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    SHARDRT_CUDA_TRY(cudaGetDriverEntryPointByVersion(
        symbol, &p, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || !p)
      return Status::unavailable(std::string("the CUDA driver has no ") +
                                 symbol);
    fn = reinterpret_cast<Fn>(p);
    return Status();
  }
};

/// Step times as the session's stream sees them: an event before each step
/// and after the last; a step's time ends when its work (or the host-staged
/// copy back) is done on the stream.
class StreamStepTimer final : public StepTimer {
public:
  StreamStepTimer(int device, cudaStream_t stream)
      : device_(device), stream_(stream) {}
  ~StreamStepTimer() override {
    cudaSetDevice(device_);
    for (cudaEvent_t e : events_)
      cudaEventDestroy(e);
  }
  Status create(size_t steps) {
    SHARDRT_CUDA_TRY(cudaSetDevice(device_));
    for (size_t i = 0; i <= steps; ++i) {
      cudaEvent_t e = nullptr;
      SHARDRT_CUDA_TRY(cudaEventCreate(&e));
      events_.push_back(e);
    }
    return Status();
  }
  Status mark(size_t step) override {
    SHARDRT_CUDA_TRY(cudaEventRecord(events_[step], stream_)); // step <= steps
    return Status();
  }
  Status millis(std::vector<double> &out) override {
    SHARDRT_CUDA_TRY(cudaEventSynchronize(events_.back()));
    out.resize(events_.size() - 1);
    for (size_t i = 0; i + 1 < events_.size(); ++i) {
      float ms = 0;
      SHARDRT_CUDA_TRY(cudaEventElapsedTime(&ms, events_[i], events_[i + 1]));
      out[i] = ms;
    }
    return Status();
  }

private:
  int device_;
  cudaStream_t stream_;
  std::vector<cudaEvent_t> events_;
};

class CudaBackend final : public Backend {
public:
  CudaBackend(const SessionOptions &options, cudaStream_t stream,
              bool ownStream, Driver driver)
      : device_(options.device), ownStream_(ownStream),
        wantGraph_(options.cudaGraph), driver_(driver) {
    lib_.stream = stream;
    lib_.allowTf32 = options.allowTf32;
  }
  ~CudaBackend() override;

  const char *name() const override { return "cuda"; }

  StatusOr<void *> allocate(size_t bytes) override {
    SHARDRT_CUDA_TRY(cudaSetDevice(device_));
    void *p = nullptr;
    cudaError_t err = cudaMalloc(&p, std::max<size_t>(bytes, 1));
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      return Status::unavailable("cannot allocate a device arena of " +
                                 std::to_string(bytes) +
                                 " bytes: " + cudaGetErrorString(err));
    }
    return p;
  }
  void release(void *arena) override {
    // Work on a caller's stream may still use the arena.
    cudaSetDevice(device_);
    cudaStreamSynchronize(lib_.stream);
    cudaFree(arena);
  }

  Status copyIn(void *dst, const void *src, size_t bytes) override {
    return copyAndWait(dst, src, bytes, cudaMemcpyHostToDevice);
  }
  Status copyOut(void *dst, const void *src, size_t bytes) override {
    return copyAndWait(dst, src, bytes, cudaMemcpyDeviceToHost);
  }
  Status copyWithin(void *dst, const void *src, size_t bytes) override {
    if (bytes == 0)
      return Status();
    SHARDRT_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                                     lib_.stream));
    return ownStream_ ? waitForStream() : Status();
  }
  StatusOr<void *> placeConstant(const void *data, size_t bytes) override {
    SHARDRT_ASSIGN_OR_RETURN(void *p, allocate(bytes));
    constants_.push_back(p);
    SHARDRT_RETURN_IF_ERROR(copyIn(p, data, bytes));
    return p;
  }

  Status load(const artifact::Artifact &artifact) override;
  StatusOr<RunFn> prepare(const fb::Instruction &inst,
                          const PrepareContext &ctx) override;
  Status finishPrepare() override;
  std::vector<HostStep> hostSteps() const override { return hostSteps_; }
  StatusOr<bool> beginRun(const RunContext &rc) override;
  uint64_t scratchBytes() const override {
    return scratchBytes_ + (lib_.workspace ? lib_.workspaceBytes : 0) +
           (lib_.ringBase ? lib_.ring.bytes() : 0);
  }
  Status endRun(bool failed) override;
  StatusOr<std::unique_ptr<StepTimer>> createStepTimer(size_t steps) override;

private:
  /// A copy between host and device on the session's stream, complete when
  /// this returns (the caller may free or read the host side).
  Status copyAndWait(void *dst, const void *src, size_t bytes,
                     cudaMemcpyKind kind) {
    SHARDRT_CUDA_TRY(cudaSetDevice(device_));
    SHARDRT_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, kind, lib_.stream));
    return waitForStream();
  }
  Status waitForStream() {
    SHARDRT_CUDA_TRY(cudaStreamSynchronize(lib_.stream));
    return Status();
  }
  StatusOr<RunFn> prepareKernel(const fb::Instruction &inst,
                                const PrepareContext &ctx);
  RunFn prepareCopy(const fb::Instruction &inst, const PrepareContext &ctx);
  RunFn prepareFill(const fb::Instruction &inst, const PrepareContext &ctx);
  StatusOr<RunFn> prepareExchange(const fb::Instruction &inst,
                                  const PrepareContext &ctx);
  StatusOr<RunFn> prepareWait(const fb::Instruction &inst);
  RunFn stageThroughHost(RunFn hostStep, const fb::Instruction &inst,
                         const PrepareContext &ctx);
  PinnedBuffer *mirror(uint32_t slot, size_t bytes);
  /// Device memory of a native step, freed with the session.
  StatusOr<void *> scratch(size_t bytes) {
    StatusOr<void *> p = allocate(bytes);
    if (p.ok()) {
      scratchBuffers_.push_back(*p);
      scratchBytes_ += bytes;
    }
    return p;
  }
  /// placeConstant and scratch as the step families take them.
  UploadFn upload_ = [this](const void *data, size_t bytes) {
    return placeConstant(data, bytes);
  };
  ScratchFn scratch_ = [this](size_t bytes) { return scratch(bytes); };

  int device_;
  bool ownStream_;
  bool wantGraph_;
  Driver driver_;
  LibraryContext lib_;
  int smCount_ = 1;
  std::vector<void *> constants_;
  /// Loaded kernel binaries, and per kernel symbol: (module, load status).
  std::vector<CUmodule> modules_;
  std::map<uint32_t, std::pair<CUmodule, Status>> symbolModule_;
  const artifact::Artifact *artifact_ = nullptr;
  /// Host mirrors of the slots that staged steps touch, one per slot.
  std::map<uint32_t, std::unique_ptr<PinnedBuffer>> mirrors_;
  /// The steps staged through the host or waiting for it, in order: a CUDA
  /// graph cannot capture them.
  std::vector<HostStep> hostSteps_;
  /// Device scratch of native steps: halo exchange and all-gather staging,
  /// reduction partials and arrival counters.
  std::vector<void *> scratchBuffers_;
  uint64_t scratchBytes_ = 0;
  /// Pinned host staging of native exchanges over host-only communicators.
  std::vector<std::unique_ptr<PinnedBuffer>> exchangeHost_;
  /// Where native exchanges copy between device and host staging, beside
  /// the session's stream; their events.
  cudaStream_t exchangeStream_ = nullptr;
  std::vector<cudaEvent_t> events_;
  /// Native exchanges that only start, by instruction, until their Wait.
  std::map<uint32_t, std::shared_ptr<DeviceExchange>> startedOnDevice_;
  // CUDA graph of the whole program, captured over `graphSlots_`.
  cudaGraphExec_t graph_ = nullptr;
  /// The captured graph's bindings and those of the run being captured.
  std::vector<void *> graphSlots_, captureSlots_;
  bool capturing_ = false;
  /// A graph session's first run has run plainly (and succeeded).
  bool warmed_ = false;
};

CudaBackend::~CudaBackend() {
  cudaSetDevice(device_);
  if (capturing_) {
    cudaGraph_t g = nullptr;
    cudaStreamEndCapture(lib_.stream, &g);
    if (g)
      cudaGraphDestroy(g);
  }
  // A caller's stream may still be running the graph.
  cudaStreamSynchronize(lib_.stream);
  if (graph_)
    cudaGraphExecDestroy(graph_);
  if (exchangeStream_) {
    cudaStreamSynchronize(exchangeStream_);
    cudaStreamDestroy(exchangeStream_);
  }
  for (cudaEvent_t e : events_)
    cudaEventDestroy(e);
  for (void *p : constants_)
    cudaFree(p);
  for (void *p : scratchBuffers_)
    cudaFree(p);
  if (lib_.workspace)
    cudaFree(lib_.workspace);
  if (lib_.ringBase)
    cudaFree(lib_.ringBase);
  for (CUmodule m : modules_)
    driver_.moduleUnload(m);
  mirrors_.clear();
  lib_.destroyHandles();
  if (ownStream_)
    cudaStreamDestroy(lib_.stream);
}

Status CudaBackend::load(const artifact::Artifact &artifact) {
  artifact_ = &artifact;
  SHARDRT_CUDA_TRY(cudaSetDevice(device_));
  SHARDRT_CUDA_TRY(cudaDeviceGetAttribute(
      &smCount_, cudaDevAttrMultiProcessorCount, device_));
  const fb::Artifact &root = artifact.root();
  for (uint32_t k = 0; root.kernels() && k < root.kernels()->size(); ++k) {
    const fb::KernelBinary &kb = *root.kernels()->Get(k);
    if (kb.format() == fb::KernelFormat::SharedObject)
      continue; // host code for another backend
    // The blob may sit at any offset in the file; the driver wants the
    // image aligned (and PTX text terminated).
    artifact::ByteSpan bytes = artifact.kernelBinary(k);
    std::vector<uint64_t> image(bytes.size / 8 + 1, 0);
    std::memcpy(image.data(), bytes.data, bytes.size);
    CUmodule module = nullptr;
    Status s = driver_.check(
        driver_.moduleLoadData(&module, image.data()),
        "cuModuleLoadData (kernel binary " + std::to_string(k) + " for " +
            (kb.target() ? kb.target()->str() : "?") + ")");
    if (s.ok())
      modules_.push_back(module);
    for (uint32_t i = 0; kb.symbols() && i < kb.symbols()->size(); ++i)
      symbolModule_[kb.symbols()->Get(i)] = {module, s};
  }
  return Status();
}

StatusOr<RunFn> CudaBackend::prepare(const fb::Instruction &inst,
                                     const PrepareContext &ctx) {
  uint32_t index = ctx.instruction;
  // The CPU decoder checks everything a kernel would trust, for both; the
  // host workspace it reserves is given back if the step runs natively.
  size_t workspaceMark = ctx.workspace ? ctx.workspace->reservations() : 0;
  StatusOr<RunFn> host = prepareInstruction(inst, ctx);
  bool fused = inst.opcode() == fb::Opcode::ElementwiseFused ||
               inst.opcode() == fb::Opcode::ReductionFused;
  if (!host.ok() &&
      !(fused && host.status().code() == StatusCode::Unimplemented))
    return host.status();
  StatusOr<RunFn> native = RunFn();
  // Communication steps that run natively still wait on the host.
  bool waitsOnHost = false;
  switch (inst.opcode()) {
  case fb::Opcode::Copy:
    native = prepareCopy(inst, ctx);
    break;
  case fb::Opcode::Fill:
    native = prepareFill(inst, ctx);
    break;
  case fb::Opcode::Pad:
  case fb::Opcode::Slice:
  case fb::Opcode::Permute:
  case fb::Opcode::Concat:
  case fb::Opcode::BroadcastTo:
    native = prepareMoveStep(inst, ctx, lib_.stream, upload_);
    break;
  case fb::Opcode::Compare:
  case fb::Opcode::Select:
  case fb::Opcode::Cast:
    native = preparePredicateStep(inst, ctx, lib_.stream);
    break;
  case fb::Opcode::Interpolate:
    native = prepareInterpolateStep(inst, ctx, lib_.stream, upload_);
    break;
  case fb::Opcode::Scan:
  case fb::Opcode::ScanTotals:
    native = prepareScanStep(inst, ctx, lib_.stream, scratch_);
    break;
  case fb::Opcode::Attention:
    native = prepareAttentionStep(inst, ctx, lib_, upload_);
    break;
  case fb::Opcode::NeighborhoodAttention:
    native = prepareNeighborhoodStep(inst, ctx, lib_.stream, upload_);
    break;
  case fb::Opcode::RingAttention:
    // A ring of several members waits for its blocks on the host.
    native = prepareRingStep(inst, ctx, lib_, upload_, waitsOnHost);
    break;
  case fb::Opcode::ElementwiseFused:
  case fb::Opcode::ReductionFused:
    native = prepareKernel(inst, ctx);
    break;
  case fb::Opcode::Matmul:
  case fb::Opcode::Linear:
    native = prepareBlasStep(inst, ctx, lib_);
    break;
  case fb::Opcode::Conv:
  case fb::Opcode::ConvTranspose:
    native = prepareDnnStep(inst, ctx, lib_);
    break;
  case fb::Opcode::Pool:
    native = preparePoolStep(inst, ctx, lib_);
    break;
  case fb::Opcode::HaloExchange:
    native = prepareExchange(inst, ctx);
    // An exchange that only starts packs on the device; its Wait waits.
    waitsOnHost = !startedOnDevice_.count(index);
    break;
  case fb::Opcode::Wait:
    native = prepareWait(inst);
    waitsOnHost = true;
    break;
  case fb::Opcode::AllGather:
  case fb::Opcode::AllReduce:
  case fb::Opcode::ReduceScatter:
  case fb::Opcode::AllToAll:
  case fb::Opcode::Broadcast:
    native = prepareCollectiveStep(inst, ctx, lib_.stream, scratch_);
    waitsOnHost = true;
    break;
  default:
    break;
  }
  if (!native.ok())
    return native.status();
  if (*native) {
    if (waitsOnHost)
      hostSteps_.push_back({index, fb::EnumNameOpcode(inst.opcode()), false});
    if (ctx.workspace)
      ctx.workspace->forgetSince(workspaceMark);
    return native;
  }
  if (!host.ok())
    return host.status(); // a kernel-only fused region without its kernel
  hostSteps_.push_back({index, fb::EnumNameOpcode(inst.opcode()), true});
  return stageThroughHost(std::move(*host), inst, ctx);
}

StatusOr<RunFn> CudaBackend::prepareKernel(const fb::Instruction &inst,
                                           const PrepareContext &ctx) {
  if (inst.kernel() < 0) {
    // shardc generates no kernel for a region that writes nothing (an empty
    // shard): the step has nothing to do on the device.
    if (numElements(outSlot(inst, ctx, 0).shape) == 0)
      return RunFn([](RunContext &) { return Status(); });
    return RunFn();
  }
  auto found = symbolModule_.find(uint32_t(inst.kernel()));
  if (found == symbolModule_.end())
    return Status::unimplemented(
        "its kernel is defined only by binaries for other backends");
  SHARDRT_RETURN_IF_ERROR(found->second.second);
  std::string symbol =
      artifact_->root().kernel_symbols()->Get(uint32_t(inst.kernel()))->str();
  CUfunction fn = nullptr;
  SHARDRT_RETURN_IF_ERROR(driver_.check(
      driver_.moduleGetFunction(&fn, found->second.first, symbol.c_str()),
      "cuModuleGetFunction(" + symbol + ")"));
  // 256 threads a block; a reduction also takes its scratch and chunks.
  FusedLaunch launch = planFusedLaunch(inst, ctx, smCount_);
  void *partials = nullptr, *arrivals = nullptr;
  if (launch.chunks > 1) {
    // The arrival counters are zeroed on the session's stream (so before
    // the first launch); the kernel's last block of each output resets its
    // counter. With one chunk the kernel touches neither.
    SHARDRT_ASSIGN_OR_RETURN(void *space, scratch(launch.scratchBytes()));
    partials = space;
    arrivals = static_cast<char *>(space) + launch.partialBytes();
    SHARDRT_CUDA_TRY(cudaMemsetAsync(
        arrivals, 0, launch.scratchBytes() - launch.partialBytes(),
        lib_.stream));
  }
  const Driver *driver = &driver_;
  cudaStream_t stream = lib_.stream;
  return RunFn([=](RunContext &rc) -> Status {
    if (launch.outputs == 0)
      return Status();
    std::array<void *, FusedLaunch::kMaxPointers + 1> pointers, params;
    size_t count =
        launch.pointerArguments(rc.slots, partials, arrivals, pointers.data());
    for (size_t i = 0; i < count; ++i)
      params[i] = &pointers[i];
    long long chunks = launch.chunks;
    if (launch.reduction)
      params[count++] = &chunks;
    CUresult r = driver->launchKernel(fn, launch.blocks, 1, 1, 256, 1, 1, 0,
                                      stream, params.data(), nullptr);
    if (r == CUDA_SUCCESS)
      return Status();
    return driver->check(r, "cuLaunchKernel(" + symbol + ")");
  });
}

RunFn CudaBackend::prepareCopy(const fb::Instruction &inst,
                               const PrepareContext &ctx) {
  size_t bytes = size_t(outSlot(inst, ctx, 0).tensorBytes());
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  cudaStream_t stream = lib_.stream;
  return RunFn([=](RunContext &rc) -> Status {
    if (bytes == 0 || rc.slots[x] == rc.slots[y])
      return Status();
    SHARDRT_CUDA_TRY(cudaMemcpyAsync(rc.slots[y], rc.slots[x], bytes,
                                     cudaMemcpyDeviceToDevice, stream));
    return Status();
  });
}

RunFn CudaBackend::prepareFill(const fb::Instruction &inst,
                               const PrepareContext &ctx) {
  const SlotInfo &out = outSlot(inst, ctx, 0);
  int64_t n = numElements(out.shape);
  uint32_t y = outIdx(inst, 0);
  cudaStream_t stream = lib_.stream;
  if (out.dtype == fb::DType::I1) {
    // A mask splat (all true or all false): one byte per element.
    int byte = floatAttrs(inst).at(0) != 0 ? 1 : 0;
    return RunFn([=](RunContext &rc) -> Status {
      SHARDRT_CUDA_TRY(cudaMemsetAsync(rc.slots[y], byte, size_t(n), stream));
      return Status();
    });
  }
  if (out.dtype == fb::DType::BF16 || out.dtype == fb::DType::F16) {
    // +0.0, the one 16-bit fill the CPU decoder lets through: zero bytes.
    size_t bytes = size_t(out.tensorBytes());
    return RunFn([=](RunContext &rc) -> Status {
      SHARDRT_CUDA_TRY(cudaMemsetAsync(rc.slots[y], 0, bytes, stream));
      return Status();
    });
  }
  if (out.dtype != fb::DType::F32)
    return RunFn();
  float value = float(floatAttrs(inst).at(0));
  return RunFn([=](RunContext &rc) -> Status {
    SHARDRT_CUDA_TRY(launchFill(slotPtr<float>(rc, y), n, value, stream));
    return Status();
  });
}

StatusOr<RunFn> CudaBackend::prepareExchange(const fb::Instruction &inst,
                                             const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(ExchangeTransfers resolved,
                           exchangeTransfers(inst, ctx));
  auto x = std::make_shared<DeviceExchange>();
  if (!x->plan(std::move(resolved.transfers)))
    return RunFn(); // element sizes or ranks the kernel does not copy
  if (x->bytes) {
    SHARDRT_ASSIGN_OR_RETURN(void *staging, scratch(x->bytes));
    x->device = static_cast<char *>(staging);
  }
  // The session's communicator is fixed: the path is chosen here.
  x->onDevice = ctx.comm && ctx.comm->takesDeviceBuffers();
  if (!x->onDevice && x->bytes) {
    exchangeHost_.push_back(std::make_unique<PinnedBuffer>());
    x->host = exchangeHost_.back().get();
    SHARDRT_CUDA_TRY(cudaMallocHost(&x->host->data, x->bytes));
    x->host->bytes = x->bytes;
  }
  if (!exchangeStream_)
    SHARDRT_CUDA_TRY(
        cudaStreamCreateWithFlags(&exchangeStream_, cudaStreamNonBlocking));
  x->stream = lib_.stream;
  x->ownStream = exchangeStream_;
  for (cudaEvent_t *e : {&x->packed, &x->received}) {
    SHARDRT_CUDA_TRY(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
    events_.push_back(*e);
  }
  if (!resolved.startOnly)
    return RunFn([x](RunContext &rc) -> Status {
      SHARDRT_RETURN_IF_ERROR(x->start(rc));
      return x->finish(rc);
    });
  // The CPU decoder has registered the start and checks its Wait.
  startedOnDevice_[ctx.instruction] = x;
  return RunFn([x](RunContext &rc) { return x->start(rc); });
}

StatusOr<RunFn> CudaBackend::prepareWait(const fb::Instruction &inst) {
  IntReader ints(inst);
  auto it = startedOnDevice_.find(uint32_t(ints.next()));
  if (it == startedOnDevice_.end())
    return RunFn(); // its exchange is staged: so is the Wait
  std::shared_ptr<DeviceExchange> x = std::move(it->second);
  startedOnDevice_.erase(it);
  return RunFn([x](RunContext &rc) { return x->finish(rc); });
}

PinnedBuffer *CudaBackend::mirror(uint32_t slot, size_t bytes) {
  std::unique_ptr<PinnedBuffer> &m = mirrors_[slot];
  if (!m)
    m = std::make_unique<PinnedBuffer>();
  m->bytes = std::max(m->bytes, bytes);
  return m.get();
}

RunFn CudaBackend::stageThroughHost(RunFn hostStep, const fb::Instruction &inst,
                                    const PrepareContext &ctx) {
  // Everything the step reads or writes. Outputs are copied in too: an
  // exchange writes only the halo part of its slot.
  std::vector<uint32_t> touched, written;
  for (size_t i = 0; i < numInputs(inst); ++i)
    touched.push_back(inIdx(inst, i));
  // An exchange that only starts packs its sends; its Wait (staged too)
  // moves the slots the receives write.
  bool startOnly = inst.opcode() == fb::Opcode::HaloExchange && inst.ints() &&
                   inst.ints()->size() == 1 && inst.ints()->Get(0) != 0;
  for (uint32_t i = 0;
       !startOnly && inst.outputs() && i < inst.outputs()->size(); ++i)
    written.push_back(outIdx(inst, i));
  for (uint32_t i = 0; inst.transfers() && i < inst.transfers()->size(); ++i) {
    const fb::Transfer &t = *inst.transfers()->Get(i);
    if (t.kind() != fb::TransferKind::Recv)
      touched.push_back(t.slot());
    else if (!startOnly)
      written.push_back(t.slot());
  }
  touched.insert(touched.end(), written.begin(), written.end());
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  std::sort(written.begin(), written.end());
  written.erase(std::unique(written.begin(), written.end()), written.end());
  struct Staged {
    uint32_t slot;
    size_t bytes;
    PinnedBuffer *host;
  };
  auto staged = std::make_shared<std::vector<Staged>>();
  for (uint32_t s : touched) {
    size_t bytes = size_t(ctx.slots[s].tensorBytes());
    staged->push_back({s, bytes, mirror(s, bytes)});
  }
  cudaStream_t stream = lib_.stream;
  auto step = std::make_shared<RunFn>(std::move(hostStep));
  return RunFn([=](RunContext &rc) -> Status {
    RunContext host = rc;
    for (const Staged &s : *staged) {
      host.slots[s.slot] = s.host->data;
      if (s.bytes)
        SHARDRT_CUDA_TRY(cudaMemcpyAsync(s.host->data, rc.slots[s.slot],
                                         s.bytes, cudaMemcpyDeviceToHost,
                                         stream));
    }
    SHARDRT_CUDA_TRY(cudaStreamSynchronize(stream));
    SHARDRT_RETURN_IF_ERROR((*step)(host));
    for (const Staged &s : *staged)
      if (s.bytes && std::binary_search(written.begin(), written.end(), s.slot))
        SHARDRT_CUDA_TRY(cudaMemcpyAsync(rc.slots[s.slot], s.host->data,
                                         s.bytes, cudaMemcpyHostToDevice,
                                         stream));
    return Status();
  });
}

Status CudaBackend::finishPrepare() {
  for (auto &[slot, m] : mirrors_)
    if (m->bytes) {
      SHARDRT_CUDA_TRY(cudaMallocHost(&m->data, m->bytes));
    }
  if (lib_.workspaceBytes) {
    SHARDRT_ASSIGN_OR_RETURN(lib_.workspace, allocate(lib_.workspaceBytes));
  }
  if (lib_.ring.bytes()) {
    SHARDRT_ASSIGN_OR_RETURN(lib_.ringBase, allocate(lib_.ring.bytes()));
    lib_.placeRingArea(lib_.ringBase);
  }
  if (wantGraph_ && !hostSteps_.empty()) {
    const HostStep &first = hostSteps_.front();
    return Status::failedPrecondition(
        "a CUDA graph was asked for, but instruction " +
        std::to_string(first.instruction) + " (" + first.opcode + ") " +
        (first.staged ? "runs staged through the host"
                      : "waits for its communicator on the host") +
        ", which a graph cannot capture");
  }
  return Status();
}

StatusOr<bool> CudaBackend::beginRun(const RunContext &rc) {
  SHARDRT_CUDA_TRY(cudaSetDevice(device_));
  if (!wantGraph_)
    return false;
  if (graph_ && rc.slots == graphSlots_) {
    SHARDRT_CUDA_TRY(cudaGraphLaunch(graph_, lib_.stream));
    return true;
  }
  // New bindings: capture again.
  if (graph_) {
    SHARDRT_CUDA_TRY(cudaGraphExecDestroy(graph_));
    graph_ = nullptr;
  }
  // cuBLAS, cuDNN and the module loader set themselves up on first use with
  // calls a stream capture may not contain (allocations, synchronous
  // copies): the session's first run runs plainly, later ones capture. The
  // setup is per handle and module, not per binding.
  if (!warmed_) {
    warmed_ = true;
    return false;
  }
  SHARDRT_CUDA_TRY(
      cudaStreamBeginCapture(lib_.stream, cudaStreamCaptureModeThreadLocal));
  capturing_ = true;
  captureSlots_ = rc.slots;
  return false;
}

StatusOr<std::unique_ptr<StepTimer>>
CudaBackend::createStepTimer(size_t steps) {
  auto timer = std::make_unique<StreamStepTimer>(device_, lib_.stream);
  SHARDRT_RETURN_IF_ERROR(timer->create(steps));
  return std::unique_ptr<StepTimer>(std::move(timer));
}

Status CudaBackend::endRun(bool failed) {
  if (capturing_) {
    capturing_ = false;
    cudaGraph_t g = nullptr;
    SHARDRT_CUDA_TRY(cudaStreamEndCapture(lib_.stream, &g));
    std::unique_ptr<CUgraph_st, cudaError_t (*)(cudaGraph_t)> owned(
        g, cudaGraphDestroy);
    if (failed)
      return Status();
    SHARDRT_CUDA_TRY(cudaGraphInstantiate(&graph_, g, 0));
    graphSlots_ = captureSlots_;
    SHARDRT_CUDA_TRY(cudaGraphLaunch(graph_, lib_.stream));
  } else if (failed) {
    // A graph session's plain run is its warm-up; failed, it warmed nothing.
    warmed_ = false;
  }
  return ownStream_ || failed ? waitForStream() : Status();
}

} // namespace
} // namespace shardrt::exec::cuda

namespace shardrt::exec {

Status cudaBackendAvailable(int device) {
  int count = 0;
  if (Status s = ::shardrt::cuda::deviceCount(&count); !s.ok())
    return Status::unavailable("no usable CUDA device: " + s.message());
  if (device < 0 || device >= count)
    return Status::unavailable("CUDA device " + std::to_string(device) +
                               " does not exist; this machine has " +
                               std::to_string(count));
  return Status();
}

StatusOr<std::unique_ptr<Backend>>
createCudaBackend(const SessionOptions &options) {
  SHARDRT_RETURN_IF_ERROR(cudaBackendAvailable(options.device));
  SHARDRT_CUDA_TRY(cudaSetDevice(options.device));
  cuda::Driver driver;
  SHARDRT_RETURN_IF_ERROR(driver.load());
  cudaStream_t stream = static_cast<cudaStream_t>(options.cudaStream);
  bool own = stream == nullptr;
  if (own)
    SHARDRT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return std::unique_ptr<Backend>(
      new cuda::CudaBackend(options, stream, own, driver));
}

} // namespace shardrt::exec
