//===- CpuBackend.cpp - Host memory, OpenMP kernels -----------------------===//

#include "Backend.h"

#include <cstdint>
#include <cstdlib>
#include <omp.h>

namespace shardrt::exec {

Backend::~Backend() = default;

namespace {

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

  StatusOr<RunFn> prepare(const fb::Instruction &inst,
                          const PrepareContext &ctx) override {
    return prepareInstruction(inst, ctx);
  }

  // The thread count is per calling thread in OpenMP, so it is set at the
  // start of every run (a session may be run from different threads).
  Status beginRun() override {
    if (threads_ > 0)
      omp_set_num_threads(threads_);
    return Status();
  }
  // Kernels are synchronous.
  Status endRun() override { return Status(); }

private:
  int threads_;
};

} // namespace

StatusOr<std::unique_ptr<Backend>>
createBackend(BackendKind kind, const SessionOptions &options) {
  switch (kind) {
  case BackendKind::Cpu:
    return std::unique_ptr<Backend>(new CpuBackend(options.threads));
  case BackendKind::Cuda:
    return Status::unimplemented(
        "the CUDA backend is not part of this build yet");
  }
  return Status::invalidArgument("unknown backend kind " +
                                 std::to_string(int(kind)));
}

} // namespace shardrt::exec
