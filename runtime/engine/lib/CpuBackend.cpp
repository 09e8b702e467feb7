//===- CpuBackend.cpp - Host memory, OpenMP kernels -----------------------===//

#include "Backend.h"
#ifdef SHARDRT_HAVE_CUDA_BACKEND
#include "shardrt/cuda/Device.h"
#endif

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <omp.h>

namespace shardrt::exec {

Backend::~Backend() = default;
StepTimer::~StepTimer() = default;

namespace {
class HostStepTimer final : public StepTimer {
public:
  explicit HostStepTimer(size_t steps) : marks_(steps + 1) {}
  Status mark(size_t step) override {
    marks_[step] = std::chrono::steady_clock::now(); // step <= steps
    return Status();
  }
  Status millis(std::vector<double> &out) override {
    out.resize(marks_.size() - 1);
    for (size_t i = 0; i + 1 < marks_.size(); ++i)
      out[i] =
          std::chrono::duration<double, std::milli>(marks_[i + 1] - marks_[i])
              .count();
    return Status();
  }

private:
  std::vector<std::chrono::steady_clock::time_point> marks_;
};
} // namespace

std::unique_ptr<StepTimer> hostStepTimer(size_t steps) {
  return std::make_unique<HostStepTimer>(steps);
}

namespace {

[[maybe_unused]] constexpr const char *kNoCudaBackend =
    "this build of shardrt has no CUDA backend (configure with the CUDA "
    "toolkit and SHARDRT_ENABLE_CUDA=ON)";

class CpuBackend final : public Backend {
public:
  explicit CpuBackend(int threads) : threads_(threads) {}
  const char *name() const override { return "cpu"; }

  StatusOr<void *> allocate(size_t bytes) override {
    // The size comes from the artifact: rounding it up must not wrap.
    if (bytes > SIZE_MAX - 63)
      return Status::unavailable("an arena of " + std::to_string(bytes) +
                                 " bytes cannot be allocated");
    void *p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p)
      return Status::unavailable("cannot allocate an arena of " +
                                 std::to_string(bytes) + " bytes");
    return p;
  }
  void release(void *arena) override { std::free(arena); }
  Status copyIn(void *dst, const void *src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
    return Status();
  }
  Status copyOut(void *dst, const void *src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
    return Status();
  }
  Status copyWithin(void *dst, const void *src, size_t bytes) override {
    std::memmove(dst, src, bytes);
    return Status();
  }
  // Kernels read constants where the loaded file holds them.
  StatusOr<void *> placeConstant(const void *data, size_t) override {
    return const_cast<void *>(data);
  }
  // Fused regions run from their bodies; generated kernels are not used.
  Status load(const artifact::Artifact &) override { return Status(); }

  StatusOr<RunFn> prepare(const fb::Instruction &inst,
                          const PrepareContext &ctx) override {
    return prepareInstruction(inst, ctx);
  }

  // The thread count is per calling thread in OpenMP, so it is set at the
  // start of every run (a session may be run from different threads).
  StatusOr<bool> beginRun(const RunContext &) override {
    if (threads_ > 0)
      omp_set_num_threads(threads_);
    return false;
  }
  // Kernels are synchronous.
  Status endRun(bool) override { return Status(); }

private:
  int threads_;
};

} // namespace

} // namespace shardrt::exec

namespace shardrt {
Status backendAvailable(BackendKind kind, int device) {
  switch (kind) {
  case BackendKind::Cpu:
    return Status();
  case BackendKind::Cuda:
#ifdef SHARDRT_HAVE_CUDA_BACKEND
    return exec::cudaBackendAvailable(device);
#else
    (void)device;
    return Status::unimplemented(exec::kNoCudaBackend);
#endif
  }
  return Status::invalidArgument("unknown backend kind " +
                                 std::to_string(int(kind)));
}

comm::CopyBytesFn localMessageCopy(BackendKind kind) {
#ifdef SHARDRT_HAVE_CUDA_BACKEND
  if (kind == BackendKind::Cuda)
    return cuda::copyAnyMemory;
#else
  (void)kind;
#endif
  return nullptr;
}
} // namespace shardrt

namespace shardrt::exec {

StatusOr<std::unique_ptr<Backend>>
createBackend(BackendKind kind, const SessionOptions &options) {
  switch (kind) {
  case BackendKind::Cpu:
    return std::unique_ptr<Backend>(new CpuBackend(options.threads));
  case BackendKind::Cuda:
#ifdef SHARDRT_HAVE_CUDA_BACKEND
    return createCudaBackend(options);
#else
    return Status::unimplemented(kNoCudaBackend);
#endif
  }
  return Status::invalidArgument("unknown backend kind " +
                                 std::to_string(int(kind)));
}

} // namespace shardrt::exec
