//===- Engine.h - Loaded artifacts and per-rank sessions --------*- C++ -*-===//
//
// An Engine is a loaded, verified .shardbin: immutable after load, so one
// Engine may be shared by any number of threads and sessions. A Session is
// one rank's execution state (its arena, bound inputs/outputs, prepared
// program and communicator); it is thread-compatible: use it from one thread
// at a time.
//
// Preparing a session decodes every instruction of the rank's class once and
// checks it against the slot shapes (operand counts, dtypes, shapes,
// attribute ranges). A malformed program is reported there, with the
// instruction's index, and never reaches a kernel.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_H
#define SHARDRT_ENGINE_H

#include "shardrt/Status.h"
#include "shardrt/comm/Communicator.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace shardrt {

namespace artifact {
class Artifact;
}

/// Element types of inputs and outputs (values of the schema's DType).
enum class DType : int {
  F32 = 0,
  F16 = 1,
  BF16 = 2,
  F64 = 3,
  I32 = 4,
  I64 = 5,
  Bool = 6
};
const char *dtypeName(DType dtype);
size_t dtypeSize(DType dtype);

/// How one dimension of a tensor is split over the mesh.
struct DimSplit {
  std::vector<uint32_t> meshAxes; ///< empty: not split
  std::vector<int64_t> extents;   ///< one per shard
};

/// An input or output of the model, on global shapes.
struct TensorInfo {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<DimSplit> dims;
  /// Non-empty when the value is partial (pending reduction): "sum", "max",
  /// "min", "mean" (or "prod"). The global value is that reduction of the
  /// ranks' local values over `partialAxes` (a mean sums and divides by the
  /// number of ranks along them).
  std::string partial;
  std::vector<uint32_t> partialAxes;
};

/// The box of a global tensor one rank holds.
struct LocalBox {
  std::vector<int64_t> offset, shape;
};

class Engine {
public:
  /// Loads and verifies (header, checksum, FlatBuffer, semantics).
  static StatusOr<std::shared_ptr<const Engine>> load(const std::string &path);
  static StatusOr<std::shared_ptr<const Engine>>
  loadFromMemory(const void *data, size_t size);

  ~Engine();

  int worldSize() const;
  std::vector<std::string> meshAxisNames() const;
  std::vector<int64_t> meshShape() const;
  std::string producer() const;

  size_t numInputs() const { return inputs_.size(); }
  size_t numOutputs() const { return outputs_.size(); }
  const TensorInfo &input(size_t i) const { return inputs_.at(i); }
  const TensorInfo &output(size_t i) const { return outputs_.at(i); }
  /// Index of the input/output named `name`, or -1.
  int findInput(const std::string &name) const;
  int findOutput(const std::string &name) const;

  /// The part of input/output i that `rank` holds (OutOfRange for a bad
  /// rank or index).
  StatusOr<LocalBox> localInput(size_t i, int rank) const;
  StatusOr<LocalBox> localOutput(size_t i, int rank) const;
  /// Bytes of the arena a session of `rank` needs.
  StatusOr<uint64_t> arenaBytes(int rank) const;

  /// The unpartitioned world-size-1 model embedded by shardc, or null.
  std::shared_ptr<const Engine> reference() const { return reference_; }

  const artifact::Artifact &artifact() const { return *artifact_; }

private:
  Engine() = default;
  static StatusOr<std::shared_ptr<const Engine>>
  fromArtifact(artifact::Artifact artifact);

  std::unique_ptr<artifact::Artifact> artifact_;
  std::vector<TensorInfo> inputs_, outputs_;
  std::shared_ptr<const Engine> reference_;
};

/// Where a session executes. Every backend runs the same artifact.
enum class BackendKind : int { Cpu = 0, Cuda = 1 };

/// "Backend memory" below is host memory for the CPU backend and memory of
/// the session's device for the CUDA backend.
/// Ok when sessions of `kind` can run on `device` here: Unimplemented for a
/// build without that backend, Unavailable without a usable device.
Status backendAvailable(BackendKind kind, int device = 0);

/// How a `local` world whose ranks run sessions of `kind` should copy its
/// point-to-point messages (comm::CommOptions::copyBytes): for CUDA, a
/// device-aware copy, so that ranks on one GPU exchange halos device to
/// device; null (std::memcpy) for the CPU or a build without CUDA.
comm::CopyBytesFn localMessageCopy(BackendKind kind);

struct SessionOptions {
  BackendKind backend = BackendKind::Cpu;
  /// Caller-provided arena in backend memory (at least
  /// Engine::arenaBytes(rank) bytes, 64-byte aligned) or null to let the
  /// session allocate one.
  void *arena = nullptr;
  size_t arenaBytes = 0;
  /// CPU: kernel threads of this rank; 0: the OpenMP default. At most
  /// kMaxThreads (Session::create refuses more, and negative counts).
  int threads = 0;
  static constexpr int kMaxThreads = 4096;
  /// CUDA: the device this rank runs on (ranks of a local world may share
  /// one).
  int device = 0;
  /// CUDA: a cudaStream_t of the caller's to run on, or null for the
  /// session's own. With the caller's stream, run() returns once the work
  /// is enqueued (steps the backend stages through the host still wait);
  /// with its own, run() waits for it.
  void *cudaStream = nullptr;
  /// CUDA: capture the whole rank program as a CUDA graph and replay it
  /// while the bound buffers stay the same; new bindings capture again. The
  /// session's first run runs plainly (the libraries' first-use setup
  /// cannot be captured). Session::create fails if a step cannot be
  /// captured (host-staged steps).
  bool cudaGraph = false;
  /// CUDA: let cuBLAS and cuDNN use TF32 tensor cores for f32 (faster, about
  /// 1e-3 relative error, PyTorch's default for convolutions), and cuDNN
  /// its FFT and Winograd algorithms and non-deterministic ones. Off, every
  /// convolution runs a deterministic GEMM-family algorithm in FP32.
  bool allowTf32 = false;
  /// Time every step of every run (Session::profile). The CUDA backend
  /// records an event before each step and after the last on its stream, so
  /// the times are the device's; run() then waits for the last event, even
  /// on a caller's stream. A CUDA graph runs the program as one launch, so
  /// Session::create refuses it with profiling.
  bool profile = false;
  /// Causal rings whose queries are split as their keys (and have no mask)
  /// run the balanced schedule (docs/runtime.md): fewer folds in a row, one
  /// more message pair per helped block. False keeps the plain ring, e.g.
  /// to compare the two. Every rank of a world must choose alike.
  bool balanceCausalRings = true;
};

/// One step of a profiled session (SessionOptions::profile), summed over the
/// runs since the session was created or Session::resetProfile.
struct StepProfile {
  uint32_t instruction = 0;
  std::string opcode;
  /// The generated kernel's symbol for a fused step, else empty.
  std::string kernel;
  /// Bytes of the step's input and output slots: the least a compute step
  /// reads and writes per run (a kernel reading an input twice moves more).
  /// Zero for communication, whose traffic depends on the peers.
  uint64_t bytesRead = 0, bytesWritten = 0;
  /// Floating-point operations per run (2 per multiply-add) of a
  /// convolution, transposed convolution, matmul, linear or attention step;
  /// zero for every other step, whose cost is its bytes.
  uint64_t flops = 0;
  uint64_t runs = 0;
  /// Milliseconds summed over the runs, and the fastest run's.
  double totalMs = 0, minMs = 0;
};

/// An instruction that a session's backend runs with the host's help. The
/// CPU backend has none; the CUDA backend lists each step it copies to host
/// memory for the CPU kernel (slow: every slot it touches crosses PCIe) and
/// each native step after which the host waits for the communicator. A
/// CUDA graph can capture neither.
struct HostStep {
  uint32_t instruction = 0;
  std::string opcode;
  /// Staged through host memory; otherwise native but waits on the host.
  bool staged = false;
};

/// Where a rank program fails the checks Session::create makes
/// (Session::checkPrograms).
struct ProgramDefect {
  uint32_t rankClass = 0;
  /// The instruction at fault in that class's program, or -1 when the
  /// program as a whole is (a buffer slot, an exchange without its Wait).
  int64_t instruction = -1;
  Status status; ///< names the class and instruction, as create's would
};

class Session {
public:
  /// Decodes every rank class's program as create() does for the class's
  /// first rank on the CPU backend, without allocating its arena or
  /// workspace: what a session of the artifact would refuse, found before
  /// any runs (shardc checks the artifacts it writes with this). At most
  /// one defect per class, its first. A step the CPU backend does not
  /// implement (Unimplemented) is not a defect of the artifact: another
  /// backend may run it.
  static std::vector<ProgramDefect> checkPrograms(const Engine &engine);

  /// `comm` may be null only for a world of one rank; otherwise its size
  /// must equal the artifact's world size and rank() selects the program.
  /// The communicator must outlive the session.
  static StatusOr<std::unique_ptr<Session>>
  create(std::shared_ptr<const Engine> engine, comm::Communicator *comm,
         const SessionOptions &options = {});
  /// World size 1 without a communicator.
  static StatusOr<std::unique_ptr<Session>>
  create(std::shared_ptr<const Engine> engine,
         const SessionOptions &options = {}) {
    return create(std::move(engine), nullptr, options);
  }
  ~Session();

  int rank() const { return rank_; }
  const Engine &engine() const { return *engine_; }
  uint64_t arenaBytes() const;
  /// Memory the session holds beyond the arena and the constants for its
  /// steps to stage and scratch in, as of now: the host workspace planned
  /// like the arena (halo and collective staging, allocated when the
  /// session was made) plus, on CUDA, the native steps' device scratch and
  /// the libraries' workspace (a collective whose bound input overlaps its
  /// output adds a device copy at the first run that needs it).
  uint64_t workspaceBytes() const;
  /// This rank's steps that need the host, in program order.
  const std::vector<HostStep> &hostSteps() const;
  /// Per instruction, in program order, the time its steps took over the
  /// runs so far (a step's time runs from the end of the previous step to
  /// its own end, as the backend's stream sees it). Empty unless the session
  /// was created with SessionOptions::profile. A failed run adds nothing.
  const std::vector<StepProfile> &profile() const;
  /// Forgets the runs profiled so far (e.g. warm-up runs).
  void resetProfile();

  /// Local (this rank's) shape of input/output i.
  const std::vector<int64_t> &inputShape(size_t i) const;
  const std::vector<int64_t> &outputShape(size_t i) const;

  /// Zero copy: the session reads input i from `data` (backend memory)
  /// during run(); the memory must stay valid and unchanged until run()
  /// returns. dtype and shape must match the local input exactly.
  Status bindInput(size_t i, const void *data, DType dtype,
                   const std::vector<int64_t> &shape);
  /// Copies input i from host memory into the arena now (data may be freed
  /// afterwards).
  Status copyInput(size_t i, const void *data, DType dtype,
                   const std::vector<int64_t> &shape);
  /// Zero copy: run() writes output i to `data` (backend memory).
  Status bindOutput(size_t i, void *data, DType dtype,
                    const std::vector<int64_t> &shape);
  /// Where output i is after run(): the bound buffer or the arena (backend
  /// memory).
  const void *outputData(size_t i) const;
  /// Copies output i, after run(), to host memory `data`.
  Status copyOutput(size_t i, void *data, DType dtype,
                    const std::vector<int64_t> &shape) const;

  /// Runs the rank's program. Every input must have been bound or copied.
  /// Sessions may share a communicator but run on it one at a time: a run
  /// while another holds it is refused with FailedPrecondition.
  /// A bound output may not overlap another bound buffer, and no bound
  /// buffer may overlap the session's arena (outputData() of an unbound
  /// output points there): such a run is refused with InvalidArgument
  /// before it starts.
  /// Bound inputs may overlap each other.
  /// A failure in a collective (dead peer, timeout) is returned, not hung on.
  Status run();

private:
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::shared_ptr<const Engine> engine_;
  int rank_ = 0;
};

} // namespace shardrt

#endif // SHARDRT_ENGINE_H
