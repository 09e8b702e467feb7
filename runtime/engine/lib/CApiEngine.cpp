//===- CApiEngine.cpp - C API over Engine, Session and local comms --------===//

#include "shardrt/Engine.h"
#include "shardrt/artifact/shardbin_generated.h"
#include "shardrt/comm/Local.h"
#include "shardrt/detail/CApiGuard.h"
#include "shardrt/shardrt.h"

#include <chrono>
#include <memory>

using namespace shardrt;
using detail::guardStatus;

struct shardrt_engine {
  std::shared_ptr<const Engine> engine;
};
struct shardrt_session {
  /// The session's communicator lives while the session does, whenever its
  /// handle is released (declared first: destroyed after the session).
  std::shared_ptr<comm::Communicator> comm;
  std::unique_ptr<Session> session;
};
struct shardrt_comm {
  std::shared_ptr<comm::Communicator> comm;
};

// The C, C++ and file enums are converted by value; keep them in step.
#define SHARDRT_SAME_DTYPE(C, E, F)                                            \
  static_assert(int(C) == int(DType::E) && int(C) == int(fb::DType::F),        \
                "dtype enums drifted")
SHARDRT_SAME_DTYPE(SHARDRT_F32, F32, F32);
SHARDRT_SAME_DTYPE(SHARDRT_F16, F16, F16);
SHARDRT_SAME_DTYPE(SHARDRT_BF16, BF16, BF16);
SHARDRT_SAME_DTYPE(SHARDRT_F64, F64, F64);
SHARDRT_SAME_DTYPE(SHARDRT_I32, I32, I32);
SHARDRT_SAME_DTYPE(SHARDRT_I64, I64, I64);
SHARDRT_SAME_DTYPE(SHARDRT_BOOL, Bool, I1);
#undef SHARDRT_SAME_DTYPE

namespace {

Status needArg(const void *p, const char *name) {
  return p ? Status() : Status::invalidArgument(std::string(name) + " is NULL");
}

#define SHARDRT_C_ARG(p) SHARDRT_RETURN_IF_ERROR(needArg(p, #p))

Status engineLoaded(StatusOr<std::shared_ptr<const Engine>> e,
                    shardrt_engine **out) {
  if (!e.ok())
    return e.status();
  *out = new shardrt_engine{std::move(*e)};
  return Status();
}

Status info(const shardrt_engine *e, size_t i, bool input, const char **name,
            shardrt_dtype *dtype, size_t *rank) {
  SHARDRT_C_ARG(e);
  size_t n = input ? e->engine->numInputs() : e->engine->numOutputs();
  if (i >= n)
    return Status::outOfRange("index " + std::to_string(i) + " of " +
                              std::to_string(n));
  const TensorInfo &t = input ? e->engine->input(i) : e->engine->output(i);
  if (name)
    *name = t.name.c_str();
  if (dtype)
    *dtype = static_cast<shardrt_dtype>(t.dtype);
  if (rank)
    *rank = t.shape.size();
  return Status();
}

Status shape(const shardrt_engine *e, size_t i, int rank, bool input,
             int64_t *global, int64_t *offset, int64_t *local, size_t len) {
  SHARDRT_C_ARG(e);
  SHARDRT_ASSIGN_OR_RETURN(LocalBox box, input
                                             ? e->engine->localInput(i, rank)
                                             : e->engine->localOutput(i, rank));
  const TensorInfo &t = input ? e->engine->input(i) : e->engine->output(i);
  if (len < t.shape.size())
    return Status::invalidArgument("the shape arrays have " +
                                   std::to_string(len) + " entries; need " +
                                   std::to_string(t.shape.size()));
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (global)
      global[d] = t.shape[d];
    if (offset)
      offset[d] = box.offset[d];
    if (local)
      local[d] = box.shape[d];
  }
  return Status();
}

/// The caller's shape array; NULL is only a shape for rank 0.
StatusOr<std::vector<int64_t>> shapeOf(const int64_t *shape, size_t rank) {
  if (!shape && rank > 0)
    return Status::invalidArgument("shape is NULL for a rank-" +
                                   std::to_string(rank) + " tensor");
  // Far past any tensor's rank: a size_t that wrapped, say. Refused before
  // the shape is copied.
  constexpr size_t kMostDims = 1024;
  if (rank > kMostDims)
    return Status::invalidArgument("a shape of " + std::to_string(rank) +
                                   " dims");
  return shape ? std::vector<int64_t>(shape, shape + rank)
               : std::vector<int64_t>();
}

} // namespace

extern "C" {

int shardrt_engine_load(const char *path, shardrt_engine **out) {
  return guardStatus([&] {
    SHARDRT_C_ARG(path);
    SHARDRT_C_ARG(out);
    return engineLoaded(Engine::load(path), out);
  });
}

int shardrt_engine_load_from_memory(const void *data, size_t size,
                                    shardrt_engine **out) {
  return guardStatus([&] {
    SHARDRT_C_ARG(data);
    SHARDRT_C_ARG(out);
    return engineLoaded(Engine::loadFromMemory(data, size), out);
  });
}

void shardrt_engine_release(shardrt_engine *engine) { delete engine; }

int shardrt_engine_world_size(const shardrt_engine *engine, int *out) {
  return guardStatus([&] {
    SHARDRT_C_ARG(engine);
    SHARDRT_C_ARG(out);
    *out = engine->engine->worldSize();
    return Status();
  });
}

int shardrt_engine_num_inputs(const shardrt_engine *engine, size_t *out) {
  return guardStatus([&] {
    SHARDRT_C_ARG(engine);
    SHARDRT_C_ARG(out);
    *out = engine->engine->numInputs();
    return Status();
  });
}

int shardrt_engine_num_outputs(const shardrt_engine *engine, size_t *out) {
  return guardStatus([&] {
    SHARDRT_C_ARG(engine);
    SHARDRT_C_ARG(out);
    *out = engine->engine->numOutputs();
    return Status();
  });
}

int shardrt_engine_input_info(const shardrt_engine *engine, size_t i,
                              const char **name, shardrt_dtype *dtype,
                              size_t *rank) {
  return guardStatus([&] { return info(engine, i, true, name, dtype, rank); });
}

int shardrt_engine_output_info(const shardrt_engine *engine, size_t i,
                               const char **name, shardrt_dtype *dtype,
                               size_t *rank) {
  return guardStatus([&] { return info(engine, i, false, name, dtype, rank); });
}

int shardrt_engine_input_shape(const shardrt_engine *engine, size_t i, int rank,
                               int64_t *global, int64_t *offset, int64_t *local,
                               size_t len) {
  return guardStatus(
      [&] { return shape(engine, i, rank, true, global, offset, local, len); });
}

int shardrt_engine_output_shape(const shardrt_engine *engine, size_t i,
                                int rank, int64_t *global, int64_t *offset,
                                int64_t *local, size_t len) {
  return guardStatus([&] {
    return shape(engine, i, rank, false, global, offset, local, len);
  });
}

int shardrt_engine_arena_bytes(const shardrt_engine *engine, int rank,
                               uint64_t *out) {
  return guardStatus([&] {
    SHARDRT_C_ARG(engine);
    SHARDRT_C_ARG(out);
    SHARDRT_ASSIGN_OR_RETURN(*out, engine->engine->arenaBytes(rank));
    return Status();
  });
}

int shardrt_local_world_create(int size, int timeout_ms, shardrt_comm **out) {
  return guardStatus([&] {
    SHARDRT_C_ARG(out);
    if (timeout_ms < 0)
      return Status::invalidArgument("timeout_ms " +
                                     std::to_string(timeout_ms) +
                                     " (expected 0 for the default, or a "
                                     "positive number of ms)");
    comm::CommOptions options;
    if (timeout_ms > 0)
      options.timeout = std::chrono::milliseconds(timeout_ms);
    auto comms = comm::LocalWorld::create(size, options);
    if (!comms.ok())
      return comms.status();
    // Build every handle before publishing any, so that a failed allocation
    // leaks nothing and leaves `out` untouched.
    std::vector<std::unique_ptr<shardrt_comm>> handles;
    for (int r = 0; r < size; ++r)
      handles.push_back(std::unique_ptr<shardrt_comm>(
          new shardrt_comm{std::shared_ptr<comm::Communicator>(
              std::move((*comms)[size_t(r)]))}));
    for (int r = 0; r < size; ++r)
      out[r] = handles[size_t(r)].release();
    return Status();
  });
}

void shardrt_comm_release(shardrt_comm *comm) { delete comm; }

int shardrt_session_create(const shardrt_engine *engine, shardrt_comm *comm,
                           void *arena, size_t arena_bytes, int threads,
                           shardrt_session **out) {
  return guardStatus([&] {
    SHARDRT_C_ARG(engine);
    SHARDRT_C_ARG(out);
    SessionOptions options;
    options.arena = arena;
    options.arenaBytes = arena_bytes;
    options.threads = threads;
    auto s = Session::create(engine->engine, comm ? comm->comm.get() : nullptr,
                             options);
    if (!s.ok())
      return s.status();
    *out = new shardrt_session{comm ? comm->comm : nullptr, std::move(*s)};
    return Status();
  });
}

void shardrt_session_release(shardrt_session *session) { delete session; }

int shardrt_session_bind_input(shardrt_session *session, size_t i,
                               const void *data, shardrt_dtype dtype,
                               const int64_t *shape, size_t rank) {
  return guardStatus([&] {
    SHARDRT_C_ARG(session);
    SHARDRT_ASSIGN_OR_RETURN(std::vector<int64_t> dims, shapeOf(shape, rank));
    return session->session->bindInput(i, data, static_cast<DType>(dtype),
                                       dims);
  });
}

int shardrt_session_copy_input(shardrt_session *session, size_t i,
                               const void *data, shardrt_dtype dtype,
                               const int64_t *shape, size_t rank) {
  return guardStatus([&] {
    SHARDRT_C_ARG(session);
    SHARDRT_ASSIGN_OR_RETURN(std::vector<int64_t> dims, shapeOf(shape, rank));
    return session->session->copyInput(i, data, static_cast<DType>(dtype),
                                       dims);
  });
}

int shardrt_session_bind_output(shardrt_session *session, size_t i, void *data,
                                shardrt_dtype dtype, const int64_t *shape,
                                size_t rank) {
  return guardStatus([&] {
    SHARDRT_C_ARG(session);
    SHARDRT_ASSIGN_OR_RETURN(std::vector<int64_t> dims, shapeOf(shape, rank));
    return session->session->bindOutput(i, data, static_cast<DType>(dtype),
                                        dims);
  });
}

int shardrt_session_run(shardrt_session *session) {
  return guardStatus([&] {
    SHARDRT_C_ARG(session);
    return session->session->run();
  });
}

int shardrt_session_output_data(const shardrt_session *session, size_t i,
                                const void **out) {
  return guardStatus([&] {
    SHARDRT_C_ARG(session);
    SHARDRT_C_ARG(out);
    if (i >= session->session->engine().numOutputs())
      return Status::outOfRange("no output " + std::to_string(i));
    *out = session->session->outputData(i);
    return Status();
  });
}

int shardrt_session_workspace_bytes(const shardrt_session *session,
                                    uint64_t *out) {
  return guardStatus([&] {
    SHARDRT_C_ARG(session);
    SHARDRT_C_ARG(out);
    *out = session->session->workspaceBytes();
    return Status();
  });
}

} // extern "C"
