//===- Backend.h - The interface every backend implements -------*- C++ -*-===//
//
// A backend owns the memory a rank's arena lives in, turns instructions into
// runnable steps, and brackets each run (the CPU backend sets its thread
// count; a CUDA backend binds its stream and synchronises its events there).
// Sessions only talk to this interface.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_BACKEND_H
#define SHARDRT_ENGINE_BACKEND_H

#include "Prepare.h"
#include "shardrt/Engine.h"

#include <memory>

namespace shardrt::exec {

class Backend {
public:
  virtual ~Backend();
  virtual const char *name() const = 0;
  /// Arena memory, 64-byte aligned; released with release().
  virtual StatusOr<void *> allocate(size_t bytes) = 0;
  virtual void release(void *arena) = 0;
  virtual StatusOr<RunFn> prepare(const fb::Instruction &inst,
                                  const PrepareContext &ctx) = 0;
  virtual Status beginRun() = 0;
  /// Waits for everything the run started.
  virtual Status endRun() = 0;
};

/// The backend a session asks for; Unimplemented for one this build lacks.
StatusOr<std::unique_ptr<Backend>> createBackend(BackendKind kind,
                                                 const SessionOptions &options);

} // namespace shardrt::exec

#endif // SHARDRT_ENGINE_BACKEND_H
