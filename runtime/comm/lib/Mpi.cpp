//===- Mpi.cpp - The `mpi` backend ----------------------------------------===//
//
// Thin: every operation maps to one non-blocking MPI call, completed by
// polling MPI_Test against the communicator's deadline. MPI_Wait and the
// blocking collectives would hang forever on a dead peer.
//
// A second communicator carries abort notices: each rank keeps one receive
// from any source posted on it, and a rank that gives up (abort) sends its
// reason to every peer. The polling loops test that receive too, so peers
// stop waiting for the failed rank at once instead of at their timeout, and
// start no collective after it; the failed rank's own waits stop likewise.
// A stopped wait withdraws its receives and returns once MPI confirms that
// none still writes its buffer.
//
//===----------------------------------------------------------------------===//

#include "shardrt/comm/Mpi.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace shardrt::comm {

namespace {

using Clock = std::chrono::steady_clock;

bool mpiFinalized() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  return finalized != 0;
}

/// Set when a process leaving after a failure found a peer that no longer
/// answers (leaveMpiAfterFailure).
std::atomic<bool> skipFinalize{false};

void finalizeAtExit() {
  if (!skipFinalize.load() && !mpiFinalized())
    MPI_Finalize();
}

/// MPI's argument-error classes become InvalidArgument (the backend checks
/// arguments before calling MPI, so these mean a mismatch between ranks,
/// e.g. a truncated message); anything else is Internal.
Status mpiError(const std::string &prefix, int code) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    text[0] = '\0';
  int errorClass = MPI_ERR_OTHER;
  MPI_Error_class(code, &errorClass);
  std::string message = prefix + "MPI error: " + text;
  switch (errorClass) {
  case MPI_ERR_TRUNCATE:
  case MPI_ERR_COUNT:
  case MPI_ERR_RANK:
  case MPI_ERR_TAG:
  case MPI_ERR_BUFFER:
  case MPI_ERR_TYPE:
  case MPI_ERR_OP:
  case MPI_ERR_ROOT:
  case MPI_ERR_ARG:
    return Status::invalidArgument(message);
  default:
    return Status::internal(message);
  }
}

MPI_Datatype mpiType(DataType type) {
  switch (type) {
  case DataType::Byte:
    return MPI_BYTE;
  case DataType::F32:
    return MPI_FLOAT;
  case DataType::F64:
    return MPI_DOUBLE;
  case DataType::I32:
    return MPI_INT32_T;
  case DataType::I64:
    return MPI_INT64_T;
  }
  return MPI_DATATYPE_NULL;
}

/// inout[i] = in[i] max (or min) inout[i] over floats, a NaN winning
/// wherever it sits, as torch.amax gives it and the local backend does;
/// MPI_MAX keeps or drops a NaN by its own operand order.
template <typename T, bool Max>
void nanPropagating(void *in, void *inout, int *len, MPI_Datatype *) {
  const T *a = static_cast<const T *>(in);
  T *acc = static_cast<T *>(inout);
  for (int i = 0; i < *len; ++i) {
    bool takeIn = Max ? acc[i] < a[i] : a[i] < acc[i];
    if (takeIn || a[i] != a[i])
      acc[i] = a[i];
  }
}

/// Made once MPI runs (MPI_Op_create needs it); never freed, as MPI's own.
MPI_Op userOp(MPI_User_function *fn) {
  MPI_Op op = MPI_OP_NULL;
  if (MPI_Op_create(fn, /*commute=*/1, &op) != MPI_SUCCESS)
    return MPI_OP_NULL;
  return op;
}

MPI_Op mpiOp(ReduceOp op, DataType type) {
  bool floating = type == DataType::F32 || type == DataType::F64;
  switch (op) {
  case ReduceOp::Sum:
    return MPI_SUM;
  case ReduceOp::Prod:
    return MPI_PROD;
  case ReduceOp::Max:
  case ReduceOp::Min: {
    if (!floating)
      return op == ReduceOp::Max ? MPI_MAX : MPI_MIN;
    static const MPI_Op ops[2][2] = {{userOp(nanPropagating<float, false>),
                                      userOp(nanPropagating<float, true>)},
                                     {userOp(nanPropagating<double, false>),
                                      userOp(nanPropagating<double, true>)}};
    return ops[type == DataType::F64][op == ReduceOp::Max];
  }
  }
  return MPI_OP_NULL;
}

/// Spin (with yields) for low latency at first, then sleep between polls so
/// that oversubscribed ranks leave the core to the peer they wait for.
void backOff(Clock::time_point start) {
  if (Clock::now() - start < std::chrono::milliseconds(2))
    std::this_thread::yield();
  else
    std::this_thread::sleep_for(std::chrono::microseconds(20));
}

/// Polls `request` until it completes (`done`), `deadline` passes or
/// `stop()` says to give up; returns MPI's error code.
template <typename Stop>
int testUntil(MPI_Request &request, Clock::time_point deadline, bool &done,
              Stop stop) {
  Clock::time_point start = Clock::now();
  for (;;) {
    int flag = 0;
    if (int rc = MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
        rc != MPI_SUCCESS)
      return rc;
    done = flag != 0;
    if (done || Clock::now() >= deadline || stop())
      return MPI_SUCCESS;
    backOff(start);
  }
}

/// MPI counts and displacements are int.
Status toInt(const std::string &prefix, std::int64_t value, int &out) {
  if (value > INT_MAX)
    return Status::outOfRange(prefix + std::to_string(value) +
                              " exceeds the largest count one MPI call takes");
  out = static_cast<int>(value);
  return Status();
}

Status toInts(const std::string &prefix, Span<const std::int64_t> values,
              std::vector<int> &out) {
  out.resize(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    if (Status s = toInt(prefix, values[i], out[i]); !s.ok())
      return s;
  return Status();
}

/// After a collective timed out, MPI may still read its count arrays at any
/// time (a non-blocking collective cannot be cancelled), so they are kept
/// until the process ends.
void abandon(std::shared_ptr<void> keep) {
  static std::mutex mutex;
  static auto *graveyard = new std::vector<std::shared_ptr<void>>();
  std::lock_guard<std::mutex> lock(mutex);
  graveyard->push_back(std::move(keep));
}

/// Cancels a pending `request` and gives MPI up to `grace` to confirm it,
/// so that a withdrawn receive stops writing into its buffer. False when it
/// did not confirm in time: the request is then freed and completes on its
/// own, and its buffer must outlive it.
bool cancelWithin(MPI_Request &request, std::chrono::milliseconds grace) {
  if (request == MPI_REQUEST_NULL)
    return true;
  MPI_Cancel(&request);
  Clock::time_point until = Clock::now() + grace;
  int flag = 0;
  while (MPI_Test(&request, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag &&
         Clock::now() < until)
    std::this_thread::yield();
  if (flag || request == MPI_REQUEST_NULL)
    return true;
  MPI_Request_free(&request);
  return false;
}

/// What a rank that gives up tells each peer on the notice communicator.
struct AbortNotice {
  std::int32_t rank = -1;
  char reason[252] = {0};
};
constexpr int kAbortTag = 1;

class MpiRequestState final : public RequestState {
public:
  MpiRequestState(const Communicator *owner, bool isRecv, int peer, int tag,
                  std::size_t bytes)
      : RequestState(owner), isRecv(isRecv), peer(peer), tag(tag),
        bytes(bytes) {}

  /// A pending operation is withdrawn (the caller's buffer is theirs again
  /// unless MPI does not confirm the cancel in time).
  ~MpiRequestState() override {
    if (!mpiFinalized())
      (void)cancelWithin(request, std::chrono::milliseconds(100));
  }

  std::string describe() const {
    return std::string(isRecv ? "irecv from" : "isend to") + " rank " +
           std::to_string(peer) + " (tag " + std::to_string(tag) + ", " +
           std::to_string(bytes) + " bytes)";
  }

  MPI_Request request = MPI_REQUEST_NULL;
  bool isRecv;
  int peer, tag;
  std::size_t bytes;
};

class MpiCommunicator final : public Communicator {
public:
  /// `notices` is a duplicate of `comm` that carries only abort notices.
  MpiCommunicator(MPI_Comm comm, MPI_Comm notices, int rank, int size,
                  const CommOptions &options)
      : Communicator(rank, size, options), comm_(comm), notices_(notices) {
    if (MPI_Irecv(inbox_.get(), sizeof(AbortNotice), MPI_BYTE, MPI_ANY_SOURCE,
                  kAbortTag, notices_, &noticeRequest_) != MPI_SUCCESS)
      noticeRequest_ = MPI_REQUEST_NULL; // peers' failures then time out
  }
  ~MpiCommunicator() override {
    if (mpiFinalized())
      return;
    if (!cancelWithin(noticeRequest_, std::chrono::milliseconds(100)))
      abandon(inbox_); // MPI may still write it
    // Legal with operations still pending: MPI frees them once they finish.
    MPI_Comm_free(&notices_);
    MPI_Comm_free(&comm_);
  }

  const char *backendName() const override { return "mpi"; }

protected:
  StatusOr<Request> doIsend(const void *buffer, std::size_t bytes, int peer,
                            int tag) override;
  StatusOr<Request> doIrecv(void *buffer, std::size_t bytes, int peer,
                            int tag) override;
  Status doWaitAll(Span<Request> requests,
                   std::chrono::milliseconds timeout) override;
  Status doAllReduce(const void *send, void *recv, std::int64_t count,
                     DataType type, ReduceOp op) override;
  Status doAllGatherV(const void *send, std::int64_t sendCount, void *recv,
                      Span<const std::int64_t> recvCounts,
                      DataType type) override;
  Status doReduceScatterV(const void *send, void *recv,
                          Span<const std::int64_t> recvCounts, DataType type,
                          ReduceOp op) override;
  Status doAllToAllV(const void *send, Span<const std::int64_t> sendCounts,
                     Span<const std::int64_t> sendDispls, void *recv,
                     Span<const std::int64_t> recvCounts,
                     Span<const std::int64_t> recvDispls,
                     DataType type) override;
  Status doBroadcast(void *buffer, std::int64_t count, DataType type,
                     int root) override;
  Status doBarrier() override;
  void doAbort(const Status &why) override;

private:
  std::string prefix(const char *op) const {
    return std::string(op) + " on rank " + std::to_string(rank()) + ": ";
  }
  /// Completes one non-blocking collective started with return code `rc`.
  /// `keep` owns what MPI may still read (count arrays).
  Status finish(const char *op, int rc, MPI_Request request,
                std::shared_ptr<void> keep = nullptr);

  /// Why this rank no longer waits for the world: a peer's abort notice
  /// came ("rank N failed: ...") or this rank gave up itself; Ok otherwise.
  /// A poll that never blocks.
  Status stopReason();
  /// `where` stopped waiting for `what` (stopReason() is set).
  Status stoppedWaiting(const std::string &where, const std::string &what) {
    return Status::unavailable(where + "stopped waiting for " + what + ": " +
                               stopped_.message());
  }
  /// A collective is not started once the world was given up on: the
  /// failed rank would never join it.
  Status refuseCollective(const char *op) override {
    if (stopReason().ok())
      return Status();
    return Status::unavailable(prefix(op) +
                               "not started: " + stopped_.message());
  }

  MPI_Comm comm_;
  MPI_Comm notices_;
  /// Where the first peer's notice lands; shared so that an abandoned
  /// receive can outlive the communicator.
  std::shared_ptr<AbortNotice> inbox_ = std::make_shared<AbortNotice>();
  MPI_Request noticeRequest_ = MPI_REQUEST_NULL;
  /// The notice receive failed: peers' failures then surface as timeouts.
  bool noticeFailed_ = false;
  Status stopped_;
};

Status MpiCommunicator::stopReason() {
  if (!stopped_.ok() || noticeFailed_ || noticeRequest_ == MPI_REQUEST_NULL)
    return stopped_;
  int flag = 0;
  // On an error MPI nulls the handle if it released the request; one it
  // left active is cancelled by the destructor.
  if (MPI_Test(&noticeRequest_, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
    noticeFailed_ = true;
    return stopped_;
  }
  if (!flag)
    return stopped_;
  inbox_->reason[sizeof(inbox_->reason) - 1] = '\0';
  stopped_ = Status::unavailable("rank " + std::to_string(inbox_->rank) +
                                 " failed: " + inbox_->reason);
  return stopped_;
}

void MpiCommunicator::doAbort(const Status &why) {
  // A rank that gives up because a peer failed has nothing to add: that
  // peer told every rank itself.
  if (!stopReason().ok())
    return;
  // This rank's own waits for what is still in flight stop at once too, as
  // on a `local` world: its peers stop sending once they hear.
  stopped_ = Status::unavailable("this rank gave up (" + why.toString() + ")");
  auto notice = std::make_shared<AbortNotice>();
  notice->rank = rank();
  std::string text = why.toString();
  text.copy(notice->reason, sizeof(notice->reason) - 1);
  std::vector<MPI_Request> sends;
  for (int peer = 0; peer < size(); ++peer) {
    MPI_Request request = MPI_REQUEST_NULL;
    if (peer != rank() &&
        MPI_Isend(notice.get(), sizeof(AbortNotice), MPI_BYTE, peer, kAbortTag,
                  notices_, &request) == MPI_SUCCESS)
      sends.push_back(request);
  }
  // A notice is small enough to leave eagerly; a dead peer's must not hold
  // this rank up for long.
  Clock::time_point start = Clock::now();
  Clock::time_point until =
      start + std::min<Clock::duration>(timeout(), std::chrono::seconds(1));
  int flag = 0;
  while (MPI_Testall(int(sends.size()), sends.data(), &flag,
                     MPI_STATUSES_IGNORE) == MPI_SUCCESS &&
         !flag && Clock::now() < until)
    backOff(start);
  if (flag)
    return;
  for (MPI_Request &request : sends)
    if (request != MPI_REQUEST_NULL)
      MPI_Request_free(&request);
  abandon(notice);
}

StatusOr<Request> MpiCommunicator::doIsend(const void *buffer,
                                           std::size_t bytes, int peer,
                                           int tag) {
  int count = 0;
  if (Status s =
          toInt(prefix("isend"), static_cast<std::int64_t>(bytes), count);
      !s.ok())
    return s;
  auto state = std::make_unique<MpiRequestState>(this, false, peer, tag, bytes);
  // MPI's C binding predates const on the send buffer in some versions.
  int rc = MPI_Isend(const_cast<void *>(buffer), count, MPI_BYTE, peer, tag,
                     comm_, &state->request);
  if (rc != MPI_SUCCESS)
    return mpiError(prefix("isend"), rc);
  return Request(std::move(state));
}

StatusOr<Request> MpiCommunicator::doIrecv(void *buffer, std::size_t bytes,
                                           int peer, int tag) {
  int count = 0;
  if (Status s =
          toInt(prefix("irecv"), static_cast<std::int64_t>(bytes), count);
      !s.ok())
    return s;
  auto state = std::make_unique<MpiRequestState>(this, true, peer, tag, bytes);
  int rc =
      MPI_Irecv(buffer, count, MPI_BYTE, peer, tag, comm_, &state->request);
  if (rc != MPI_SUCCESS)
    return mpiError(prefix("irecv"), rc);
  return Request(std::move(state));
}

Status MpiCommunicator::doWaitAll(Span<Request> requests,
                                  std::chrono::milliseconds timeout) {
  Clock::time_point start = Clock::now();
  Clock::time_point deadline = start + timeout;
  std::string where = prefix("waitAll");
  // `stopped` is set once the world was given up on (stopReason): what is
  // still pending is then withdrawn, and a receive is waited for until MPI
  // confirms the withdrawal or completes it (one already matched keeps
  // writing its buffer until it completes). A withdrawn send only reads
  // its buffer; it is left to the request's destructor.
  Status error, stopped;
  for (;;) {
    MpiRequestState *late = nullptr;
    for (Request &request : requests) {
      auto *state = static_cast<MpiRequestState *>(request.state());
      if (!state)
        continue;
      int flag = 0;
      MPI_Status status;
      int rc = MPI_Test(&state->request, &flag, &status);
      if (rc != MPI_SUCCESS) {
        // The request is finished (with an error); MPI has released it.
        state->request = MPI_REQUEST_NULL;
        if (error.ok())
          error = mpiError(where + state->describe() + ": ", rc);
        request.reset();
        continue;
      }
      if (!flag) {
        if (stopped.ok() || state->isRecv)
          late = late ? late : state;
        continue;
      }
      int cancelled = 0, got = 0;
      MPI_Test_cancelled(&status, &cancelled);
      if (!cancelled && state->isRecv &&
          MPI_Get_count(&status, MPI_BYTE, &got) == MPI_SUCCESS &&
          static_cast<std::size_t>(got) != state->bytes && error.ok())
        error = Status::invalidArgument(where + state->describe() +
                                        " got a message of " +
                                        std::to_string(got) + " bytes");
      request.reset();
    }
    if (!late)
      return !error.ok() ? error : stopped;
    if (stopped.ok() && !stopReason().ok()) {
      stopped = stoppedWaiting(where, late->describe());
      for (Request &request : requests)
        if (auto *state = static_cast<MpiRequestState *>(request.state());
            state && state->request != MPI_REQUEST_NULL)
          MPI_Cancel(&state->request);
      continue; // test again at once: an unmatched receive is withdrawn
    }
    if (Clock::now() >= deadline)
      return !error.ok() ? error
             : !stopped.ok()
                 ? stopped
                 : Status::deadlineExceeded(
                       where + late->describe() + " did not complete within " +
                       std::to_string(timeout.count()) + " ms");
    backOff(start);
  }
}

Status MpiCommunicator::finish(const char *op, int rc, MPI_Request request,
                               std::shared_ptr<void> keep) {
  bool done = false;
  if (rc == MPI_SUCCESS)
    rc = testUntil(request, Clock::now() + timeout(), done,
                   [&] { return !stopReason().ok(); });
  // Every rank may already have joined when the notice came: a moment more
  // lets such a collective finish rather than write into `recv` after this
  // rank gave up on it.
  if (rc == MPI_SUCCESS && !done && !stopped_.ok())
    rc = testUntil(request, Clock::now() + std::chrono::milliseconds(100), done,
                   [] { return false; });
  if (rc != MPI_SUCCESS)
    return mpiError(prefix(op), rc);
  if (done)
    return Status();
  abandon(std::move(keep));
  if (!stopped_.ok())
    return stoppedWaiting(prefix(op), "the other ranks");
  return Status::deadlineExceeded(
      prefix(op) + "did not complete within " +
      std::to_string(timeout().count()) + " ms (of " + std::to_string(size()) +
      " ranks, one is dead or has not called " + op + ")");
}

Status MpiCommunicator::doAllReduce(const void *send, void *recv,
                                    std::int64_t count, DataType type,
                                    ReduceOp op) {
  int n = 0;
  if (Status s = toInt(prefix("allReduce"), count, n); !s.ok())
    return s;
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Iallreduce(send == recv ? MPI_IN_PLACE : send, recv, n,
                          mpiType(type), mpiOp(op, type), comm_, &request);
  return finish("allReduce", rc, request);
}

/// A byte to point an empty buffer at. Open MPI's non-blocking collectives
/// take a send buffer equal to the receive buffer for MPI_IN_PLACE; the
/// caller's buffers never overlap, so they are equal only where one side is
/// empty (a zero-byte workspace reservation lands where the next begins),
/// and that side gets this byte instead.
char emptyBuffer;

bool allZero(Span<const std::int64_t> counts) {
  for (std::int64_t c : counts)
    if (c != 0)
      return false;
  return true;
}

/// Count and displacement arrays of a v-collective, alive until it finishes.
struct VArrays {
  std::vector<int> sendCounts, sendDispls, recvCounts, recvDispls;
};

Status MpiCommunicator::doAllGatherV(const void *send,
                                     std::int64_t /*sendCount*/, void *recv,
                                     Span<const std::int64_t> recvCounts,
                                     DataType type) {
  auto arrays = std::make_shared<VArrays>();
  std::string where = prefix("allGatherV");
  if (Status s = toInts(where, recvCounts, arrays->recvCounts); !s.ok())
    return s;
  std::int64_t offset = 0, mine = 0;
  arrays->recvDispls.resize(recvCounts.size());
  for (std::size_t q = 0; q < recvCounts.size(); ++q) {
    if (Status s = toInt(where, offset, arrays->recvDispls[q]); !s.ok())
      return s;
    if (static_cast<int>(q) == rank())
      mine = offset;
    offset += recvCounts[q];
  }
  int n = arrays->recvCounts[rank()];
  auto *slot = static_cast<char *>(recv) +
               mine * static_cast<std::int64_t>(dataTypeSize(type));
  // MPI forbids aliasing send and recv unless said so with MPI_IN_PLACE.
  const void *source = send == slot && n > 0 ? MPI_IN_PLACE : send;
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Iallgatherv(source, n, mpiType(type), recv,
                           arrays->recvCounts.data(), arrays->recvDispls.data(),
                           mpiType(type), comm_, &request);
  return finish("allGatherV", rc, request, arrays);
}

Status MpiCommunicator::doReduceScatterV(const void *send, void *recv,
                                         Span<const std::int64_t> recvCounts,
                                         DataType type, ReduceOp op) {
  auto arrays = std::make_shared<VArrays>();
  if (Status s =
          toInts(prefix("reduceScatterV"), recvCounts, arrays->recvCounts);
      !s.ok())
    return s;
  if (send == recv) {
    if (recvCounts[static_cast<std::size_t>(rank())] == 0)
      recv = &emptyBuffer;
    else
      send = &emptyBuffer; // every count is 0, or they would overlap
  }
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Ireduce_scatter(send, recv, arrays->recvCounts.data(),
                               mpiType(type), mpiOp(op, type), comm_, &request);
  return finish("reduceScatterV", rc, request, arrays);
}

Status MpiCommunicator::doAllToAllV(const void *send,
                                    Span<const std::int64_t> sendCounts,
                                    Span<const std::int64_t> sendDispls,
                                    void *recv,
                                    Span<const std::int64_t> recvCounts,
                                    Span<const std::int64_t> recvDispls,
                                    DataType type) {
  auto a = std::make_shared<VArrays>();
  std::string where = prefix("allToAllV");
  for (Status s : {toInts(where, sendCounts, a->sendCounts),
                   toInts(where, sendDispls, a->sendDispls),
                   toInts(where, recvCounts, a->recvCounts),
                   toInts(where, recvDispls, a->recvDispls)})
    if (!s.ok())
      return s;
  if (send == recv) {
    if (allZero(recvCounts))
      recv = &emptyBuffer;
    else
      send = &emptyBuffer;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Ialltoallv(send, a->sendCounts.data(), a->sendDispls.data(),
                          mpiType(type), recv, a->recvCounts.data(),
                          a->recvDispls.data(), mpiType(type), comm_, &request);
  return finish("allToAllV", rc, request, a);
}

Status MpiCommunicator::doBroadcast(void *buffer, std::int64_t count,
                                    DataType type, int root) {
  int n = 0;
  if (Status s = toInt(prefix("broadcast"), count, n); !s.ok())
    return s;
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Ibcast(buffer, n, mpiType(type), root, comm_, &request);
  return finish("broadcast", rc, request);
}

Status MpiCommunicator::doBarrier() {
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Ibarrier(comm_, &request);
  return finish("barrier", rc, request);
}

} // namespace

Status initializeMpi() {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (mpiFinalized())
    return Status::failedPrecondition("MPI was already finalized");
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    return Status(); // the application owns MPI, and finalizes it
  // SERIALIZED: the runtime calls MPI from whichever thread drives the rank,
  // one call at a time.
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) !=
      MPI_SUCCESS)
    return Status::unavailable("MPI_Init_thread failed");
  std::atexit(finalizeAtExit);
  return Status();
}

StatusOr<std::unique_ptr<Communicator>>
createMpiCommunicator(const CommOptions &options) {
  return createMpiCommunicator(MPI_COMM_WORLD, options);
}

bool leaveMpiAfterFailure(std::chrono::milliseconds timeout) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized || mpiFinalized())
    return true;
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Ibarrier(MPI_COMM_WORLD, &request) != MPI_SUCCESS) {
    skipFinalize = true;
    return false;
  }
  Clock::time_point start = Clock::now(), until = start + timeout;
  int done = 0;
  while (MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done &&
         Clock::now() < until)
    backOff(start);
  // Left pending: MPI_Finalize would wait for the missing peers, so it is
  // not called, and the process's exit lets the launcher end the job.
  if (!done)
    skipFinalize = true;
  return done != 0;
}

namespace {

/// MPI_Comm_idup, not MPI_Comm_dup: creation is collective too, and a rank
/// that never arrives must not hang the others. The handle lives on the heap
/// because an abandoned idup may still write it.
StatusOr<MPI_Comm> duplicateBefore(MPI_Comm base, Clock::time_point deadline,
                                   std::chrono::milliseconds timeout) {
  auto comm = std::make_shared<MPI_Comm>(MPI_COMM_NULL);
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Comm_idup(base, comm.get(), &request);
  bool done = false;
  if (rc == MPI_SUCCESS)
    rc = testUntil(request, deadline, done, [] { return false; });
  if (rc != MPI_SUCCESS)
    return mpiError("MPI_Comm_idup: ", rc);
  if (!done) {
    abandon(comm);
    int baseRank = -1;
    MPI_Comm_rank(base, &baseRank);
    return Status::deadlineExceeded(
        "MPI_Comm_idup on rank " + std::to_string(baseRank) +
        " did not complete within " + std::to_string(timeout.count()) +
        " ms (a rank is dead or is not creating the communicator)");
  }
  // Errors on our own duplicate come back as codes; the application's
  // handler on `base` is left alone.
  MPI_Comm_set_errhandler(*comm, MPI_ERRORS_RETURN);
  return *comm;
}

} // namespace

StatusOr<std::unique_ptr<Communicator>>
createMpiCommunicator(MPI_Comm base, const CommOptions &options) {
  if (options.timeout.count() <= 0)
    return Status::invalidArgument("comm timeout must be positive, got " +
                                   std::to_string(options.timeout.count()) +
                                   " ms");
  if (Status s = initializeMpi(); !s.ok())
    return s;
  Clock::time_point deadline = Clock::now() + options.timeout;
  SHARDRT_ASSIGN_OR_RETURN(MPI_Comm comm,
                           duplicateBefore(base, deadline, options.timeout));
  StatusOr<MPI_Comm> notices = duplicateBefore(comm, deadline, options.timeout);
  if (!notices.ok()) {
    MPI_Comm_free(&comm);
    return notices.status();
  }
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  return std::unique_ptr<Communicator>(
      std::make_unique<MpiCommunicator>(comm, *notices, rank, size, options));
}

StatusOr<int> nodeLocalRank(Communicator &comm) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    return Status::failedPrecondition("nodeLocalRank needs MPI");
  // A rank that cannot name its node still takes part in the gather (with
  // a name no node has), so that the others are not left waiting.
  std::vector<char> name(MPI_MAX_PROCESSOR_NAME, '\0');
  int length = 0;
  bool named = MPI_Get_processor_name(name.data(), &length) == MPI_SUCCESS;
  if (!named)
    std::fill(name.begin(), name.end(), '\xff');
  std::vector<char> names(name.size() * size_t(comm.size()));
  std::vector<std::int64_t> counts(size_t(comm.size()),
                                   std::int64_t(name.size()));
  SHARDRT_RETURN_IF_ERROR(comm.allGatherV(
      name.data(), std::int64_t(name.size()), names.data(),
      Span<const std::int64_t>(counts.data(), counts.size()), DataType::Byte));
  if (!named)
    return Status::unavailable("MPI_Get_processor_name failed");
  int local = 0;
  for (int q = 0; q < comm.rank(); ++q)
    local += std::equal(name.begin(), name.end(),
                        names.begin() + std::ptrdiff_t(q) * name.size());
  return local;
}

} // namespace shardrt::comm
