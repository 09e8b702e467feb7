//===- CApi.cpp - The C API -----------------------------------------------===//

#include "shardrt/shardrt.h"

#include "shardrt/Split.h"
#include "shardrt/Status.h"
#include "shardrt/detail/CApiGuard.h"

#include <exception>
#include <string>

using namespace shardrt;

#define SHARDRT_CHECK_CODE(C, E)                                               \
  static_assert(static_cast<int>(StatusCode::C) == E, "C API code drifted")
SHARDRT_CHECK_CODE(Ok, SHARDRT_OK);
SHARDRT_CHECK_CODE(InvalidArgument, SHARDRT_INVALID_ARGUMENT);
SHARDRT_CHECK_CODE(OutOfRange, SHARDRT_OUT_OF_RANGE);
SHARDRT_CHECK_CODE(DataLoss, SHARDRT_DATA_LOSS);
SHARDRT_CHECK_CODE(FailedPrecondition, SHARDRT_FAILED_PRECONDITION);
SHARDRT_CHECK_CODE(Unavailable, SHARDRT_UNAVAILABLE);
SHARDRT_CHECK_CODE(DeadlineExceeded, SHARDRT_DEADLINE_EXCEEDED);
SHARDRT_CHECK_CODE(Internal, SHARDRT_INTERNAL);
SHARDRT_CHECK_CODE(Unimplemented, SHARDRT_UNIMPLEMENTED);
#undef SHARDRT_CHECK_CODE

#define SHARDRT_STR2(X) #X
#define SHARDRT_STR(X) SHARDRT_STR2(X)

namespace {

// Thread-local so that ranks run as threads (the in-process comm backend)
// cannot see each other's errors.
thread_local std::string lastError;

int report(const Status &status) {
  // Assigning can itself throw (bad_alloc); the caller must still get a code.
  try {
    lastError = status.message();
  } catch (...) {
    lastError.clear();
  }
  return static_cast<int>(status.code());
}

} // namespace

int shardrt::detail::reportStatus(const Status &status) noexcept {
  return report(status);
}

extern "C" {

const char *shardrt_version(void) {
  return SHARDRT_STR(SHARDRT_VERSION_MAJOR) "." SHARDRT_STR(
      SHARDRT_VERSION_MINOR) "." SHARDRT_STR(SHARDRT_VERSION_PATCH);
}

const char *shardrt_last_error(void) { return lastError.c_str(); }

int shardrt_canonical_extents(int64_t n, int64_t k, int64_t *out,
                              int64_t out_len) {
  return detail::guardStatus([&]() -> Status {
    if (n < 0)
      return Status::invalidArgument(
          "shardrt_canonical_extents: n must be >= 0, got " +
          std::to_string(n));
    if (k < 1)
      return Status::invalidArgument(
          "shardrt_canonical_extents: k must be >= 1, got " +
          std::to_string(k));
    if (!out)
      return Status::invalidArgument("shardrt_canonical_extents: out is NULL");
    if (out_len < k)
      return Status::invalidArgument(
          "shardrt_canonical_extents: out_len " + std::to_string(out_len) +
          " is smaller than k = " + std::to_string(k));
    // One extent at a time: k may be far larger than what is worth
    // allocating a temporary vector for.
    for (int64_t i = 0; i < k; ++i)
      out[i] = canonicalExtent(n, k, i);
    return Status();
  });
}

} // extern "C"
