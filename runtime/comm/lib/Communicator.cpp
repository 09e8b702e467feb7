//===- Communicator.cpp - Argument checks shared by every backend ---------===//
//
// The public entry points validate here, once, so that `local`, `mpi` and
// later `nccl` reject exactly the same calls with the same messages, and a
// program debugged on threads behaves the same under mpirun.
//
//===----------------------------------------------------------------------===//

#include "shardrt/comm/Communicator.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace shardrt::comm {

std::size_t dataTypeSize(DataType type) {
  switch (type) {
  case DataType::Byte:
    return 1;
  case DataType::F32:
  case DataType::I32:
    return 4;
  case DataType::F64:
  case DataType::I64:
    return 8;
  }
  return 0;
}

const char *dataTypeName(DataType type) {
  switch (type) {
  case DataType::Byte:
    return "byte";
  case DataType::F32:
    return "f32";
  case DataType::F64:
    return "f64";
  case DataType::I32:
    return "i32";
  case DataType::I64:
    return "i64";
  }
  return "unknown";
}

const char *reduceOpName(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
    return "sum";
  case ReduceOp::Prod:
    return "prod";
  case ReduceOp::Max:
    return "max";
  case ReduceOp::Min:
    return "min";
  }
  return "unknown";
}

RequestState::~RequestState() = default;

namespace {

std::string where(const char *op, int rank) {
  return std::string(op) + " on rank " + std::to_string(rank) + ": ";
}

Status checkType(const char *op, int rank, DataType type) {
  if (dataTypeSize(type) == 0)
    return Status::invalidArgument(where(op, rank) + "unknown data type " +
                                   std::to_string(static_cast<int>(type)));
  return Status();
}

Status checkReduction(const char *op, int rank, DataType type,
                      ReduceOp reduce) {
  if (Status s = checkType(op, rank, type); !s.ok())
    return s;
  if (std::string(reduceOpName(reduce)) == "unknown")
    return Status::invalidArgument(where(op, rank) + "unknown reduction " +
                                   std::to_string(static_cast<int>(reduce)));
  if (type == DataType::Byte)
    return Status::invalidArgument(where(op, rank) +
                                   "no reduction on byte buffers");
  return Status();
}

/// Checks that `count` elements of `type` are addressable and, when there are
/// any, that the buffer is not null.
Status checkBuffer(const char *op, int rank, const char *what,
                   const void *buffer, std::int64_t count, DataType type) {
  if (count < 0)
    return Status::invalidArgument(where(op, rank) + "negative " + what +
                                   " count " + std::to_string(count));
  std::int64_t maxCount = std::numeric_limits<std::int64_t>::max() /
                          static_cast<std::int64_t>(dataTypeSize(type));
  if (count > maxCount)
    return Status::invalidArgument(where(op, rank) + what + " count " +
                                   std::to_string(count) + " overflows");
  if (count > 0 && !buffer)
    return Status::invalidArgument(where(op, rank) + "null " + what +
                                   " buffer with " + std::to_string(count) +
                                   " elements");
  return Status();
}

/// Checks one count per rank, each non-negative, and returns their sum (or
/// -1 with `status` set).
std::int64_t checkCounts(const char *op, int rank, int size, const char *what,
                         Span<const std::int64_t> counts, DataType type,
                         Status &status) {
  if (counts.size() != static_cast<std::size_t>(size)) {
    status = Status::invalidArgument(
        where(op, rank) + what + " has " + std::to_string(counts.size()) +
        " entries, the communicator " + std::to_string(size) + " ranks");
    return -1;
  }
  std::int64_t maxCount = std::numeric_limits<std::int64_t>::max() /
                          static_cast<std::int64_t>(dataTypeSize(type));
  std::int64_t total = 0;
  for (std::size_t q = 0; q < counts.size(); ++q) {
    if (counts[q] < 0 || counts[q] > maxCount - total) {
      status = Status::invalidArgument(
          where(op, rank) + what + "[" + std::to_string(q) +
          "] = " + std::to_string(counts[q]) +
          (counts[q] < 0 ? " is negative" : " overflows the total"));
      return -1;
    }
    total += counts[q];
  }
  return total;
}

/// Largest end (displacement + count) over ranks, for the null-buffer check.
std::int64_t checkDispls(const char *op, int rank, const char *what,
                         Span<const std::int64_t> counts,
                         Span<const std::int64_t> displs, DataType type,
                         Status &status) {
  if (displs.size() != counts.size()) {
    status = Status::invalidArgument(
        where(op, rank) + what + " has " + std::to_string(displs.size()) +
        " entries, the counts " + std::to_string(counts.size()));
    return -1;
  }
  std::int64_t maxCount = std::numeric_limits<std::int64_t>::max() /
                          static_cast<std::int64_t>(dataTypeSize(type));
  std::int64_t extent = 0;
  for (std::size_t q = 0; q < displs.size(); ++q) {
    if (displs[q] < 0 || displs[q] > maxCount - counts[q]) {
      status = Status::invalidArgument(
          where(op, rank) + what + "[" + std::to_string(q) +
          "] = " + std::to_string(displs[q]) +
          (displs[q] < 0 ? " is negative" : " overflows"));
      return -1;
    }
    if (counts[q] > 0)
      extent = std::max(extent, displs[q] + counts[q]);
  }
  return extent;
}

} // namespace

Communicator::Communicator(int rank, int size, const CommOptions &options)
    : rank_(rank), size_(size), timeout_(options.timeout) {}

Communicator::~Communicator() = default;

Status Communicator::setTimeout(std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0)
    return Status::invalidArgument("comm timeout must be positive, got " +
                                   std::to_string(timeout.count()) + " ms");
  timeout_ = timeout;
  return Status();
}

void Communicator::abort(const Status &why) {
  if (!aborted_.ok())
    return;
  aborted_ = why.ok() ? Status::internal("aborted") : why;
  if (broken_.ok())
    broken_ = aborted_;
  doAbort(aborted_);
}

Status Communicator::refuseIfAborted(const char *op) const {
  if (aborted_.ok())
    return Status();
  return Status::failedPrecondition(where(op, rank_) +
                                    "the communicator was given up on after "
                                    "a failed run (" +
                                    aborted_.toString() + ")");
}

template <typename Fn>
Status Communicator::runCollective(const char *name, Fn &&fn) {
  if (!broken_.ok())
    return Status::failedPrecondition(
        where(name, rank_) +
        "collectives are disabled after an earlier one "
        "failed (" +
        broken_.toString() + ")");
  Status status = refuseCollective(name);
  if (status.ok())
    status = fn();
  if (!status.ok())
    broken_ = status;
  return status;
}

//===--- Point-to-point ---------------------------------------------------===//

static Status checkPeer(const char *op, int rank, int size, const void *buffer,
                        std::size_t bytes, int peer, int tag) {
  if (peer < 0 || peer >= size)
    return Status::invalidArgument(
        where(op, rank) + "peer " + std::to_string(peer) +
        " is outside the communicator (size " + std::to_string(size) + ")");
  if (tag < 0 || tag > kMaxTag)
    return Status::invalidArgument(where(op, rank) + "tag " +
                                   std::to_string(tag) + " is outside 0.." +
                                   std::to_string(kMaxTag));
  if (bytes > 0 && !buffer)
    return Status::invalidArgument(where(op, rank) + "null buffer with " +
                                   std::to_string(bytes) + " bytes");
  return Status();
}

StatusOr<Request> Communicator::isend(const void *buffer, std::size_t bytes,
                                      int peer, int tag) {
  if (Status s = checkPeer("isend", rank_, size_, buffer, bytes, peer, tag);
      !s.ok())
    return s;
  SHARDRT_RETURN_IF_ERROR(refuseIfAborted("isend"));
  return doIsend(buffer, bytes, peer, tag);
}

StatusOr<Request> Communicator::irecv(void *buffer, std::size_t bytes, int peer,
                                      int tag) {
  if (Status s = checkPeer("irecv", rank_, size_, buffer, bytes, peer, tag);
      !s.ok())
    return s;
  SHARDRT_RETURN_IF_ERROR(refuseIfAborted("irecv"));
  return doIrecv(buffer, bytes, peer, tag);
}

Status Communicator::waitAll(Span<Request> requests,
                             std::chrono::milliseconds timeout) {
  if (timeout.count() < 0)
    return Status::invalidArgument(where("waitAll", rank_) +
                                   "negative timeout");
  for (std::size_t i = 0; i < requests.size(); ++i) {
    RequestState *state = requests[i].state();
    if (state && state->owner() != this)
      return Status::invalidArgument(where("waitAll", rank_) + "request " +
                                     std::to_string(i) +
                                     " belongs to another communicator");
  }
  return doWaitAll(requests, timeout);
}

//===--- Collectives ------------------------------------------------------===//

Status Communicator::allReduce(const void *send, void *recv, std::int64_t count,
                               DataType type, ReduceOp op) {
  const char *name = "allReduce";
  if (Status s = checkReduction(name, rank_, type, op); !s.ok())
    return s;
  if (Status s = checkBuffer(name, rank_, "send", send, count, type); !s.ok())
    return s;
  if (Status s = checkBuffer(name, rank_, "recv", recv, count, type); !s.ok())
    return s;
  std::size_t bytes = static_cast<std::size_t>(count) * dataTypeSize(type);
  if (send != recv && overlaps(send, bytes, recv, bytes))
    return Status::invalidArgument(where(name, rank_) +
                                   "send and recv overlap without being equal");
  return runCollective(
      name, [&] { return doAllReduce(send, recv, count, type, op); });
}

Status Communicator::allGatherV(const void *send, std::int64_t sendCount,
                                void *recv, Span<const std::int64_t> recvCounts,
                                DataType type) {
  const char *name = "allGatherV";
  if (Status s = checkType(name, rank_, type); !s.ok())
    return s;
  Status status;
  std::int64_t total =
      checkCounts(name, rank_, size_, "recvCounts", recvCounts, type, status);
  if (!status.ok())
    return status;
  if (sendCount != recvCounts[rank_])
    return Status::invalidArgument(
        where(name, rank_) + "sendCount " + std::to_string(sendCount) +
        " differs from recvCounts[" + std::to_string(rank_) +
        "] = " + std::to_string(recvCounts[rank_]));
  if (Status s = checkBuffer(name, rank_, "send", send, sendCount, type);
      !s.ok())
    return s;
  if (Status s = checkBuffer(name, rank_, "recv", recv, total, type); !s.ok())
    return s;
  // Other ranks' blocks may land before this one is sent.
  std::size_t elem = dataTypeSize(type);
  std::int64_t before = 0;
  for (int q = 0; q < rank_; ++q)
    before += recvCounts[q];
  const char *ownSlot = static_cast<const char *>(recv) + before * elem;
  if (send != ownSlot &&
      overlaps(send, static_cast<std::size_t>(sendCount) * elem, recv,
               static_cast<std::size_t>(total) * elem))
    return Status::invalidArgument(where(name, rank_) +
                                   "send overlaps recv other than exactly at "
                                   "this rank's own slot");
  return runCollective(name, [&] {
    return doAllGatherV(send, sendCount, recv, recvCounts, type);
  });
}

Status Communicator::reduceScatterV(const void *send, void *recv,
                                    Span<const std::int64_t> recvCounts,
                                    DataType type, ReduceOp op) {
  const char *name = "reduceScatterV";
  if (Status s = checkReduction(name, rank_, type, op); !s.ok())
    return s;
  Status status;
  std::int64_t total =
      checkCounts(name, rank_, size_, "recvCounts", recvCounts, type, status);
  if (!status.ok())
    return status;
  if (Status s = checkBuffer(name, rank_, "send", send, total, type); !s.ok())
    return s;
  std::int64_t mine = recvCounts[rank_];
  if (Status s = checkBuffer(name, rank_, "recv", recv, mine, type); !s.ok())
    return s;
  std::size_t elem = dataTypeSize(type);
  if (overlaps(send, static_cast<std::size_t>(total) * elem, recv,
               static_cast<std::size_t>(mine) * elem))
    return Status::invalidArgument(where(name, rank_) +
                                   "send and recv overlap");
  return runCollective(
      name, [&] { return doReduceScatterV(send, recv, recvCounts, type, op); });
}

Status Communicator::allToAllV(const void *send,
                               Span<const std::int64_t> sendCounts,
                               Span<const std::int64_t> sendDispls, void *recv,
                               Span<const std::int64_t> recvCounts,
                               Span<const std::int64_t> recvDispls,
                               DataType type) {
  const char *name = "allToAllV";
  if (Status s = checkType(name, rank_, type); !s.ok())
    return s;
  Status status;
  checkCounts(name, rank_, size_, "sendCounts", sendCounts, type, status);
  if (status.ok())
    checkCounts(name, rank_, size_, "recvCounts", recvCounts, type, status);
  std::int64_t sendExtent = 0, recvExtent = 0;
  if (status.ok())
    sendExtent = checkDispls(name, rank_, "sendDispls", sendCounts, sendDispls,
                             type, status);
  if (status.ok())
    recvExtent = checkDispls(name, rank_, "recvDispls", recvCounts, recvDispls,
                             type, status);
  if (!status.ok())
    return status;
  if (sendCounts[rank_] != recvCounts[rank_])
    return Status::invalidArgument(
        where(name, rank_) + "sends " + std::to_string(sendCounts[rank_]) +
        " elements to itself but expects " + std::to_string(recvCounts[rank_]));
  if (Status s = checkBuffer(name, rank_, "send", send, sendExtent, type);
      !s.ok())
    return s;
  if (Status s = checkBuffer(name, rank_, "recv", recv, recvExtent, type);
      !s.ok())
    return s;
  std::size_t elem = dataTypeSize(type);
  if (overlaps(send, static_cast<std::size_t>(sendExtent) * elem, recv,
               static_cast<std::size_t>(recvExtent) * elem))
    return Status::invalidArgument(where(name, rank_) +
                                   "send and recv overlap");
  return runCollective(name, [&] {
    return doAllToAllV(send, sendCounts, sendDispls, recv, recvCounts,
                       recvDispls, type);
  });
}

Status Communicator::broadcast(void *buffer, std::int64_t count, DataType type,
                               int root) {
  const char *name = "broadcast";
  if (Status s = checkType(name, rank_, type); !s.ok())
    return s;
  if (root < 0 || root >= size_)
    return Status::invalidArgument(
        where(name, rank_) + "root " + std::to_string(root) +
        " is outside the communicator (size " + std::to_string(size_) + ")");
  if (Status s = checkBuffer(name, rank_, "data", buffer, count, type); !s.ok())
    return s;
  return runCollective(name,
                       [&] { return doBroadcast(buffer, count, type, root); });
}

Status Communicator::barrier() {
  return runCollective("barrier", [&] { return doBarrier(); });
}

} // namespace shardrt::comm
