//===- Status.h - Error values for the shardc runtime -----------*- C++ -*-===//
//
// The runtime reports failures as values rather than exceptions or aborts: a
// rank that fails must be able to tell its peers before it stops, and the C
// API must never let an exception escape.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_STATUS_H
#define SHARDRT_STATUS_H

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

// nvcc's front end flags every assignment of a [[nodiscard]] class with
// members that have their own operator= (warning 2810, a false positive).
// Real discards are still caught, as warning 3004 and by the host compiler.
#ifdef __NVCC_DIAG_PRAGMA_SUPPORT__
#pragma nv_diag_suppress 2810
#endif

namespace shardrt {

/// Values are part of the C API (SHARDRT_* codes in shardrt.h); never
/// renumber, only append.
enum class StatusCode : int {
  Ok = 0,
  InvalidArgument = 1,
  OutOfRange = 2,
  DataLoss = 3,
  FailedPrecondition = 4,
  Unavailable = 5,
  DeadlineExceeded = 6,
  Internal = 7,
  Unimplemented = 8,
};

/// The enumerator's spelling, e.g. "InvalidArgument"; "Unknown" for values
/// outside the enum (possible when a code comes through the C API).
const char *statusCodeName(StatusCode code);

class [[nodiscard]] Status {
public:
  /// Ok.
  Status() = default;
  Status(StatusCode code, std::string message);

  static Status invalidArgument(std::string message);
  static Status outOfRange(std::string message);
  static Status dataLoss(std::string message);
  static Status failedPrecondition(std::string message);
  static Status unavailable(std::string message);
  static Status deadlineExceeded(std::string message);
  static Status internal(std::string message);
  static Status unimplemented(std::string message);

  bool ok() const { return code_ == StatusCode::Ok; }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }

  /// "Ok", or "<CodeName>: <message>".
  std::string toString() const;

  friend bool operator==(const Status &a, const Status &b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }
  friend bool operator!=(const Status &a, const Status &b) { return !(a == b); }

private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

namespace detail {
// Out of line so that this header stays usable from code built with
// -fno-exceptions (the compiler side of the project).
[[noreturn]] void throwBadStatusOrAccess(const Status &status);
} // namespace detail

/// A value or the error that prevented computing it.
template <typename T> class [[nodiscard]] StatusOr {
  static_assert(!std::is_same_v<std::decay_t<T>, Status>,
                "StatusOr<Status> is ambiguous; use Status");

public:
  StatusOr(const T &value) : value_(value) {}
  StatusOr(T &&value) : value_(std::move(value)) {}
  /// An Ok status carries no value, so it is turned into an Internal error
  /// rather than producing a StatusOr that claims success without a value.
  StatusOr(Status status) : status_(std::move(status)) {
    if (status_.ok())
      status_ = Status::internal("StatusOr constructed from an Ok Status");
  }

  bool ok() const { return value_.has_value(); }
  const Status &status() const { return status_; }

  /// Throws std::logic_error when !ok(): reading a missing value is a bug in
  /// the caller, not a runtime condition.
  T &value() & {
    check();
    return *value_;
  }
  const T &value() const & {
    check();
    return *value_;
  }
  T &&value() && {
    check();
    return std::move(*value_);
  }

  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

private:
  void check() const {
    if (!value_)
      detail::throwBadStatusOrAccess(status_);
  }

  Status status_;
  std::optional<T> value_;
};

} // namespace shardrt

/// Returns the status of `expr` from the enclosing function when it is not
/// Ok.
#define SHARDRT_RETURN_IF_ERROR(expr)                                          \
  do {                                                                         \
    if (::shardrt::Status _shardrt_status = (expr); !_shardrt_status.ok())     \
      return _shardrt_status;                                                  \
  } while (false)

/// `lhs = *expr` for a StatusOr `expr`, or returns its status from the
/// enclosing function when it is not Ok. `lhs` may declare a variable
/// (`SHARDRT_ASSIGN_OR_RETURN(Group g, collectiveGroup(...))`).
#define SHARDRT_ASSIGN_OR_RETURN(lhs, expr)                                    \
  SHARDRT_ASSIGN_OR_RETURN_IMPL(                                               \
      SHARDRT_STATUS_CONCAT(_shardrt_status_or_, __LINE__), lhs, expr)
#define SHARDRT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr)                          \
  auto tmp = (expr);                                                           \
  if (!tmp.ok())                                                               \
    return tmp.status();                                                       \
  lhs = std::move(*tmp)
#define SHARDRT_STATUS_CONCAT(a, b) SHARDRT_STATUS_CONCAT_INNER(a, b)
#define SHARDRT_STATUS_CONCAT_INNER(a, b) a##b

#endif // SHARDRT_STATUS_H
