/*===- shardrt.h - C API of the shardc runtime ---------------------*- C -*-===*
 *
 * Plain C so that any language can bind it. Every function that can fail
 * returns a shardrt_status_code; on failure, shardrt_last_error() describes
 * the error. No C++ exception crosses this boundary and no function aborts on
 * bad arguments.
 *
 *===----------------------------------------------------------------------===*/

#ifndef SHARDRT_SHARDRT_H
#define SHARDRT_SHARDRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHARDRT_VERSION_MAJOR 0
#define SHARDRT_VERSION_MINOR 1
#define SHARDRT_VERSION_PATCH 0

/* Same values as shardrt::StatusCode. */
typedef enum shardrt_status_code {
  SHARDRT_OK = 0,
  SHARDRT_INVALID_ARGUMENT = 1,
  SHARDRT_OUT_OF_RANGE = 2,
  SHARDRT_DATA_LOSS = 3,
  SHARDRT_FAILED_PRECONDITION = 4,
  SHARDRT_UNAVAILABLE = 5,
  SHARDRT_DEADLINE_EXCEEDED = 6,
  SHARDRT_INTERNAL = 7,
  SHARDRT_UNIMPLEMENTED = 8
} shardrt_status_code;

/* "MAJOR.MINOR.PATCH" of the library actually linked, which may differ from
 * the SHARDRT_VERSION_* macros the caller was compiled with. */
const char *shardrt_version(void);

/* Message of the most recent status-returning call on this thread: "" if it
 * succeeded. Never NULL. Valid until the next shardrt_* call on the same
 * thread. */
const char *shardrt_last_error(void);

/* Writes the canonical (numpy.array_split) extents of a dimension of size n
 * over k shards to out[0..k). Fails with SHARDRT_INVALID_ARGUMENT when n < 0,
 * k < 1, out is NULL or out_len < k; out is not written then. */
int shardrt_canonical_extents(int64_t n, int64_t k, int64_t *out,
                              int64_t out_len);

/*===-- Engines and sessions (link shardrt::engine) ------------------------===*
 *
 * An engine is a loaded, verified artifact; it is immutable and may be used
 * from any number of threads. A session is one rank's execution state; use it
 * from one thread at a time. Handles are released with the matching
 * *_release function (NULL is accepted and ignored).
 */

typedef struct shardrt_engine shardrt_engine;
typedef struct shardrt_session shardrt_session;
typedef struct shardrt_comm shardrt_comm;

/* Element types; same values as the artifact's DType. */
typedef enum shardrt_dtype {
  SHARDRT_F32 = 0,
  SHARDRT_F16 = 1,
  SHARDRT_BF16 = 2,
  SHARDRT_F64 = 3,
  SHARDRT_I32 = 4,
  SHARDRT_I64 = 5,
  SHARDRT_BOOL = 6
} shardrt_dtype;

int shardrt_engine_load(const char *path, shardrt_engine **out);
int shardrt_engine_load_from_memory(const void *data, size_t size,
                                    shardrt_engine **out);
void shardrt_engine_release(shardrt_engine *engine);
int shardrt_engine_world_size(const shardrt_engine *engine, int *out);
int shardrt_engine_num_inputs(const shardrt_engine *engine, size_t *out);
int shardrt_engine_num_outputs(const shardrt_engine *engine, size_t *out);
/* Name (valid while the engine lives), dtype and rank of input/output i. */
int shardrt_engine_input_info(const shardrt_engine *engine, size_t i,
                              const char **name, shardrt_dtype *dtype,
                              size_t *rank);
int shardrt_engine_output_info(const shardrt_engine *engine, size_t i,
                               const char **name, shardrt_dtype *dtype,
                               size_t *rank);
/* The global shape and the box [offset, offset + shape) rank `rank` holds;
 * each array has `len` >= the tensor's rank entries (any may be NULL). */
int shardrt_engine_input_shape(const shardrt_engine *engine, size_t i, int rank,
                               int64_t *global, int64_t *offset, int64_t *local,
                               size_t len);
int shardrt_engine_output_shape(const shardrt_engine *engine, size_t i,
                                int rank, int64_t *global, int64_t *offset,
                                int64_t *local, size_t len);
int shardrt_engine_arena_bytes(const shardrt_engine *engine, int rank,
                               uint64_t *out);

/* In-process communicators: *out receives `size` handles, one per rank; run
 * each rank's session on its own thread. A run that fails part way on one
 * rank gives up on the world: the other ranks' runs fail at once
 * (SHARDRT_UNAVAILABLE) instead of at the timeout; make a new world.
 * timeout_ms 0: the default (60 s); negative: SHARDRT_INVALID_ARGUMENT. */
int shardrt_local_world_create(int size, int timeout_ms, shardrt_comm **out);
void shardrt_comm_release(shardrt_comm *comm);

/* comm may be NULL for a world of one rank. arena may be NULL (the session
 * allocates) or at least shardrt_engine_arena_bytes bytes, 64-byte aligned.
 * threads: the rank's kernel threads, 0 for the OpenMP default, at most 4096.
 * The session keeps its communicator: the comm handle may be released
 * before the session. Sessions of one rank (two models, say) may share its
 * communicator and run one at a time: a run started while another holds the
 * communicator returns SHARDRT_FAILED_PRECONDITION at once. */
int shardrt_session_create(const shardrt_engine *engine, shardrt_comm *comm,
                           void *arena, size_t arena_bytes, int threads,
                           shardrt_session **out);
void shardrt_session_release(shardrt_session *session);
/* Zero copy (memory must stay valid until run returns) or copy now. The
 * shape is this rank's local shape. */
int shardrt_session_bind_input(shardrt_session *session, size_t i,
                               const void *data, shardrt_dtype dtype,
                               const int64_t *shape, size_t rank);
int shardrt_session_copy_input(shardrt_session *session, size_t i,
                               const void *data, shardrt_dtype dtype,
                               const int64_t *shape, size_t rank);
int shardrt_session_bind_output(shardrt_session *session, size_t i, void *data,
                                shardrt_dtype dtype, const int64_t *shape,
                                size_t rank);
/* Fails with SHARDRT_INVALID_ARGUMENT, before running anything, when a bound
 * output overlaps another bound buffer or a bound buffer overlaps the
 * session's arena (where unbound outputs are); bound inputs may overlap, and
 * an output that returns an input unchanged may share that input's buffer. */
int shardrt_session_run(shardrt_session *session);
/* Where output i is after a run. */
int shardrt_session_output_data(const shardrt_session *session, size_t i,
                                const void **out);
/* Bytes the session holds beyond its arena and the constants for its steps
 * to stage and scratch in, as of now (Session::workspaceBytes): the host
 * workspace is allocated when the session is made. */
int shardrt_session_workspace_bytes(const shardrt_session *session,
                                    uint64_t *out);

#ifdef __cplusplus
}
#endif

#endif /* SHARDRT_SHARDRT_H */
