//===- Backend.h - The interface every backend implements -------*- C++ -*-===//
//
// A backend owns the memory a rank's arena lives in, turns instructions into
// runnable steps, and brackets each run (the CPU backend sets its thread
// count; the CUDA backend binds its device and stream, and replays or
// captures a CUDA graph). Sessions only talk to this interface.
//
// "Backend memory" is host memory for the CPU backend and device memory for
// the CUDA backend: the arena, constants, slots, zero-copy bindings.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_BACKEND_H
#define SHARDRT_ENGINE_BACKEND_H

#include "Prepare.h"
#include "shardrt/Engine.h"

#include <memory>

namespace shardrt::artifact {
class Artifact;
}

namespace shardrt::exec {

/// Times the steps of one run for SessionOptions::profile. The session calls
/// mark(i) just before step i and mark(n) after the last of the n steps it
/// created the timer for, then, after Backend::endRun, millis() for the n
/// durations between the marks.
class StepTimer {
public:
  virtual ~StepTimer();
  virtual Status mark(size_t step) = 0;
  virtual Status millis(std::vector<double> &out) = 0;
};

/// The host's steady clock: right for a backend whose steps are done when
/// they return (the CPU backend).
std::unique_ptr<StepTimer> hostStepTimer(size_t steps);

class Backend {
public:
  virtual ~Backend();
  virtual const char *name() const = 0;
  /// Arena memory, 64-byte aligned; released with release().
  virtual StatusOr<void *> allocate(size_t bytes) = 0;
  virtual void release(void *arena) = 0;
  /// Host -> backend memory, backend memory -> host, and within backend
  /// memory (regions do not overlap: Session::run refuses bound buffers
  /// that overlap what it copies into).
  virtual Status copyIn(void *dst, const void *src, size_t bytes) = 0;
  virtual Status copyOut(void *dst, const void *src, size_t bytes) = 0;
  virtual Status copyWithin(void *dst, const void *src, size_t bytes) = 0;
  /// Where a constant (`bytes` at `data` in the loaded file) is read from
  /// during runs; the backend owns any copy it makes.
  virtual StatusOr<void *> placeConstant(const void *data, size_t bytes) = 0;
  /// Called once before prepare(): the artifact's generated kernels.
  virtual Status load(const artifact::Artifact &artifact) = 0;
  virtual StatusOr<RunFn> prepare(const fb::Instruction &inst,
                                  const PrepareContext &ctx) = 0;
  /// After the last prepare(): a whole-program check (e.g. that a requested
  /// CUDA graph can be captured).
  virtual Status finishPrepare() { return Status(); }
  /// The prepared steps that need the host (Session::hostSteps).
  virtual std::vector<HostStep> hostSteps() const { return {}; }
  /// Memory of its own the backend holds for the steps, beyond the arena
  /// and the constants (CUDA: native steps' device scratch, the libraries'
  /// workspace); the CPU backend's steps use the session's workspace.
  virtual uint64_t scratchBytes() const { return 0; }
  /// Starts a run over `rc`. True when the backend ran the whole program
  /// itself (a replayed CUDA graph): the session then skips the steps.
  virtual StatusOr<bool> beginRun(const RunContext &rc) = 0;
  /// Finishes what the run started (the CPU backend has nothing to wait
  /// for; the CUDA backend ends a capture and waits for its own stream).
  virtual Status endRun(bool failed) = 0;
  /// A timer for runs of `steps` steps (SessionOptions::profile).
  virtual StatusOr<std::unique_ptr<StepTimer>> createStepTimer(size_t steps) {
    return hostStepTimer(steps);
  }
};

#ifdef SHARDRT_HAVE_CUDA_BACKEND
/// cuda/CudaBackend.cpp; Unavailable without a usable device.
StatusOr<std::unique_ptr<Backend>>
createCudaBackend(const SessionOptions &options);
Status cudaBackendAvailable(int device);
#endif

/// The backend a session asks for; Unimplemented for one this build lacks.
StatusOr<std::unique_ptr<Backend>> createBackend(BackendKind kind,
                                                 const SessionOptions &options);

} // namespace shardrt::exec

#endif // SHARDRT_ENGINE_BACKEND_H
