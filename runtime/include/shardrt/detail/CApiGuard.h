//===- CApiGuard.h - Status-to-C-code plumbing for C API files --*- C++ -*-===//
//
// Internal to the runtime's C API implementation files: records a Status as
// the thread's last error and runs bodies so that no exception crosses into
// C.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_DETAIL_CAPIGUARD_H
#define SHARDRT_DETAIL_CAPIGUARD_H

#include "shardrt/Status.h"

#include <exception>
#include <string>

namespace shardrt::detail {

/// Stores the message as shardrt_last_error() and returns the C code.
int reportStatus(const Status &status) noexcept;

template <typename Fn> int guardStatus(Fn &&body) noexcept {
  try {
    return reportStatus(body());
  } catch (const std::exception &e) {
    return reportStatus(
        Status::internal(std::string("unexpected exception: ") + e.what()));
  } catch (...) {
    return reportStatus(Status::internal("unexpected non-standard exception"));
  }
}

} // namespace shardrt::detail

#endif // SHARDRT_DETAIL_CAPIGUARD_H
