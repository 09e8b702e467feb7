//===- Status.cpp ---------------------------------------------------------===//

#include "shardrt/Status.h"

#include <stdexcept>

namespace shardrt {

const char *statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::Ok:
    return "Ok";
  case StatusCode::InvalidArgument:
    return "InvalidArgument";
  case StatusCode::OutOfRange:
    return "OutOfRange";
  case StatusCode::DataLoss:
    return "DataLoss";
  case StatusCode::FailedPrecondition:
    return "FailedPrecondition";
  case StatusCode::Unavailable:
    return "Unavailable";
  case StatusCode::DeadlineExceeded:
    return "DeadlineExceeded";
  case StatusCode::Internal:
    return "Internal";
  case StatusCode::Unimplemented:
    return "Unimplemented";
  }
  return "Unknown";
}

Status::Status(StatusCode code, std::string message)
    : code_(code), message_(std::move(message)) {}

Status Status::invalidArgument(std::string message) {
  return Status(StatusCode::InvalidArgument, std::move(message));
}
Status Status::outOfRange(std::string message) {
  return Status(StatusCode::OutOfRange, std::move(message));
}
Status Status::dataLoss(std::string message) {
  return Status(StatusCode::DataLoss, std::move(message));
}
Status Status::failedPrecondition(std::string message) {
  return Status(StatusCode::FailedPrecondition, std::move(message));
}
Status Status::unavailable(std::string message) {
  return Status(StatusCode::Unavailable, std::move(message));
}
Status Status::deadlineExceeded(std::string message) {
  return Status(StatusCode::DeadlineExceeded, std::move(message));
}
Status Status::internal(std::string message) {
  return Status(StatusCode::Internal, std::move(message));
}
Status Status::unimplemented(std::string message) {
  return Status(StatusCode::Unimplemented, std::move(message));
}

std::string Status::toString() const {
  if (ok())
    return "Ok";
  return std::string(statusCodeName(code_)) + ": " + message_;
}

namespace detail {
void throwBadStatusOrAccess(const Status &status) {
  throw std::logic_error("StatusOr::value() on an error: " + status.toString());
}
} // namespace detail

} // namespace shardrt
