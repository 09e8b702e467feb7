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

#ifdef __cplusplus
}
#endif

#endif /* SHARDRT_SHARDRT_H */
