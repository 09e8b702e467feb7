//===- Local.cpp - The `local` backend: ranks as threads ------------------===//
//
// Each rank owns a mailbox. A message is matched by (source, tag) in FIFO
// order, like MPI's non-overtaking rule. isend copies the message into the
// destination's mailbox (or straight into an already posted receive buffer)
// before it returns, so a send never waits for its receiver: that is what
// makes any halo exchange pattern deadlock-free on this backend.
//
// Collectives are built on the same point-to-point path, one round each: post
// every receive, send everything, wait. Reductions fold the contributions in
// rank order on every rank, so all ranks get bitwise identical results.
//
//===----------------------------------------------------------------------===//

#include "shardrt/comm/Local.h"

#include "Reduce.h"

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

namespace shardrt::comm {

namespace {

/// Moves a message's bytes with `copy`, or std::memcpy without one.
Status copyMessage(CopyBytesFn copy, void *dst, const void *src,
                   std::size_t bytes) {
  if (bytes == 0)
    return Status();
  if (!copy) {
    std::memcpy(dst, src, bytes);
    return Status();
  }
  return copy(dst, src, bytes);
}

using Clock = std::chrono::steady_clock;

/// Collectives travel on a tag below every user tag, so they never match a
/// user receive. Successive collectives need no tag of their own: channels
/// are FIFO and every rank calls the collectives in the same order.
constexpr int kCollectiveTag = -1;

class RecvState;

struct Channel {
  std::deque<std::vector<std::byte>> messages; // sent, not yet received
  std::deque<RecvState *> posted;              // received, not yet sent
};

struct Mailbox {
  std::mutex mutex;
  std::condition_variable arrived;
  /// By (source, tag). Entries are never erased, so references stay valid
  /// while the mutex is released.
  std::map<std::pair<int, int>, Channel> channels;
};

struct World {
  explicit World(int size) : size(size), mailboxes(new Mailbox[size]) {}

  /// Rank `rank` failed (LocalWorld::run, Communicator::abort), so no rank
  /// should wait for it any longer. The first failure is kept; every waiting
  /// rank wakes up. A rank of -1: a rank thread could not start.
  void abort(int rank, const Status &status) {
    {
      std::lock_guard<std::mutex> lock(failureMutex);
      if (!failure.ok())
        return;
      failedRank = rank;
      failure = status;
    }
    for (int r = 0; r < size; ++r) {
      // Under the mailbox's mutex, so a rank between checking `aborted` and
      // sleeping cannot miss the wake-up.
      std::lock_guard<std::mutex> lock(mailboxes[r].mutex);
      aborted = true;
      mailboxes[r].arrived.notify_all();
    }
  }
  /// The first failure passed to abort() and its rank.
  std::pair<int, Status> firstFailure() {
    std::lock_guard<std::mutex> lock(failureMutex);
    return {failedRank, failure};
  }
  /// Why waits stop early once aborted.
  std::string abortReason() {
    int rank = firstFailure().first;
    return rank < 0 ? "a rank thread could not start"
                    : "rank " + std::to_string(rank) + " failed";
  }

  int size;
  std::unique_ptr<Mailbox[]> mailboxes; // by destination rank
  std::atomic<bool> aborted{false};

private:
  std::mutex failureMutex;
  int failedRank = -1;
  Status failure;
};

/// A posted receive. `done` and `error` are guarded by the mutex of the
/// receiving rank's mailbox, because the sender's thread completes it.
class RecvState final : public RequestState {
public:
  RecvState(const Communicator *owner, std::shared_ptr<World> world, int self,
            int source, int tag, void *buffer, std::size_t bytes,
            CopyBytesFn copy)
      : RequestState(owner), world_(std::move(world)), self_(self),
        source_(source), tag_(tag), buffer_(buffer), bytes_(bytes),
        copy_(copy) {}

  /// A pending receive is withdrawn, so that a later message is not copied
  /// into a buffer the caller may already have freed.
  ~RecvState() override {
    Mailbox &box = world_->mailboxes[self_];
    std::lock_guard<std::mutex> lock(box.mutex);
    if (done)
      return;
    auto &posted = box.channels[{source_, tag_}].posted;
    for (auto it = posted.begin(); it != posted.end(); ++it)
      if (*it == this) {
        posted.erase(it);
        break;
      }
  }

  void complete(const std::byte *data, std::size_t size) {
    if (size != bytes_)
      error =
          describe() + " got a message of " + std::to_string(size) + " bytes";
    else if (Status s = copyMessage(copy_, buffer_, data, size); !s.ok())
      error = describe() + ": " + s.message();
    done = true;
  }

  std::string describe() const {
    if (tag_ == kCollectiveTag)
      return "message from rank " + std::to_string(source_) + " (" +
             std::to_string(bytes_) + " bytes)";
    return "irecv from rank " + std::to_string(source_) + " (tag " +
           std::to_string(tag_) + ", " + std::to_string(bytes_) + " bytes)";
  }

  bool done = false;
  std::string error;

private:
  std::shared_ptr<World> world_;
  int self_, source_, tag_;
  void *buffer_;
  std::size_t bytes_;
  CopyBytesFn copy_; ///< null: std::memcpy
};

/// Hands a message to the oldest posted receive of `channel` (mutex held).
void deliver(Channel &channel, const std::byte *data, std::size_t size) {
  RecvState *state = channel.posted.front();
  channel.posted.pop_front();
  state->complete(data, size);
}

const std::byte *at(const void *base, std::int64_t elements, DataType type) {
  return static_cast<const std::byte *>(base) +
         elements * static_cast<std::int64_t>(dataTypeSize(type));
}

std::byte *at(void *base, std::int64_t elements, DataType type) {
  return static_cast<std::byte *>(base) +
         elements * static_cast<std::int64_t>(dataTypeSize(type));
}

std::size_t byteCount(std::int64_t elements, DataType type) {
  return static_cast<std::size_t>(elements) * dataTypeSize(type);
}

std::vector<std::int64_t> offsetsOf(Span<const std::int64_t> counts) {
  std::vector<std::int64_t> offsets(counts.size());
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    offsets[i] = sum;
    sum += counts[i];
  }
  return offsets;
}

class LocalCommunicator final : public Communicator {
public:
  LocalCommunicator(std::shared_ptr<World> world, int rank, int size,
                    const CommOptions &options)
      : Communicator(rank, size, options), world_(std::move(world)),
        copyBytes_(options.copyBytes) {}

  const char *backendName() const override { return "local"; }
  bool takesDeviceBuffers() const override { return copyBytes_ != nullptr; }

protected:
  StatusOr<Request> doIsend(const void *buffer, std::size_t bytes, int peer,
                            int tag) override {
    SHARDRT_RETURN_IF_ERROR(refuseIfWorldStopped("isend"));
    SHARDRT_RETURN_IF_ERROR(postSend(buffer, bytes, peer, tag, copyBytes_));
    return Request(); // already complete: the message was copied
  }
  StatusOr<Request> doIrecv(void *buffer, std::size_t bytes, int peer,
                            int tag) override {
    SHARDRT_RETURN_IF_ERROR(refuseIfWorldStopped("irecv"));
    return postRecv(buffer, bytes, peer, tag, copyBytes_);
  }
  Status refuseCollective(const char *op) override {
    return refuseIfWorldStopped(op);
  }
  Status doWaitAll(Span<Request> requests,
                   std::chrono::milliseconds timeout) override {
    return wait(requests, timeout, "waitAll");
  }
  void doAbort(const Status &why) override { world_->abort(rank(), why); }
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

private:
  /// Once a rank gave up on the world, every other rank's operations fail
  /// at once: also those of a run whose messages all arrived before, which
  /// would otherwise succeed on a world its peers have left.
  Status refuseIfWorldStopped(const char *op) {
    if (!world_->aborted)
      return Status();
    return Status::unavailable(std::string(op) + " on rank " +
                               std::to_string(rank()) + ": " +
                               world_->abortReason() + "; make a new world");
  }
  /// Collectives move host buffers of their own with std::memcpy (`copy`
  /// null); isend and irecv use the world's copy, which may take device
  /// buffers.
  Status postSend(const void *buffer, std::size_t bytes, int peer, int tag,
                  CopyBytesFn copy = nullptr);
  Request postRecv(void *buffer, std::size_t bytes, int peer, int tag,
                   CopyBytesFn copy = nullptr);
  /// A collective's send of a host buffer (std::memcpy cannot fail).
  void sendHost(const void *buffer, std::size_t bytes, int peer, int tag) {
    (void)postSend(buffer, bytes, peer, tag);
  }
  Status wait(Span<Request> requests, std::chrono::milliseconds timeout,
              const char *op);
  /// Folds `count` elements of every rank's contribution in rank order into
  /// `recv`; `contribution(q)` points at rank q's elements.
  template <typename Fn>
  void foldInRankOrder(void *recv, std::int64_t count, DataType type,
                       ReduceOp op, Fn contribution);

  std::shared_ptr<World> world_;
  CopyBytesFn copyBytes_;
};

Status LocalCommunicator::postSend(const void *buffer, std::size_t bytes,
                                   int peer, int tag, CopyBytesFn copy) {
  const auto *data = static_cast<const std::byte *>(buffer);
  Mailbox &box = world_->mailboxes[peer];
  std::unique_lock<std::mutex> lock(box.mutex);
  Channel &channel = box.channels[{rank(), tag}];
  if (channel.posted.empty()) {
    // Copy without the lock: a large halo must not stall the receiver's
    // other traffic. Only this thread sends on this channel, so the order of
    // its messages cannot change meanwhile.
    lock.unlock();
    std::vector<std::byte> message(bytes);
    SHARDRT_RETURN_IF_ERROR(copyMessage(copy, message.data(), data, bytes));
    lock.lock();
    if (channel.posted.empty()) {
      channel.messages.push_back(std::move(message));
      return Status(); // nobody waits for a message without a posted receive
    }
    deliver(channel, message.data(), message.size());
  } else {
    deliver(channel, data, bytes);
  }
  box.arrived.notify_all();
  return Status();
}

Request LocalCommunicator::postRecv(void *buffer, std::size_t bytes, int peer,
                                    int tag, CopyBytesFn copy) {
  auto state = std::make_unique<RecvState>(this, world_, rank(), peer, tag,
                                           buffer, bytes, copy);
  Mailbox &box = world_->mailboxes[rank()];
  std::vector<std::byte> message;
  {
    std::lock_guard<std::mutex> lock(box.mutex);
    Channel &channel = box.channels[{peer, tag}];
    if (channel.messages.empty()) {
      channel.posted.push_back(state.get());
      return Request(std::move(state));
    }
    message = std::move(channel.messages.front());
    channel.messages.pop_front();
  }
  // Not posted anywhere yet, so no other thread can see `state`.
  state->complete(message.data(), message.size());
  return Request(std::move(state));
}

Status LocalCommunicator::wait(Span<Request> requests,
                               std::chrono::milliseconds timeout,
                               const char *op) {
  auto stateOf = [&](std::size_t i) {
    return static_cast<RecvState *>(requests[i].state());
  };
  Clock::time_point deadline = Clock::now() + timeout;
  Mailbox &box = world_->mailboxes[rank()];
  std::unique_lock<std::mutex> lock(box.mutex);
  box.arrived.wait_until(lock, deadline, [&] {
    if (world_->aborted)
      return true;
    for (std::size_t i = 0; i < requests.size(); ++i)
      if (requests[i].pending() && !stateOf(i)->done)
        return false;
    return true;
  });

  std::string prefix =
      std::string(op) + " on rank " + std::to_string(rank()) + ": ";
  Status error, late;
  std::vector<std::size_t> finished;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (!requests[i].pending())
      continue;
    RecvState *state = stateOf(i);
    if (state->done) {
      finished.push_back(i);
      if (!state->error.empty() && error.ok())
        error = Status::invalidArgument(prefix + state->error);
    } else if (late.ok() && world_->aborted) {
      late =
          Status::unavailable(prefix + "stopped waiting for " +
                              state->describe() + ": " + world_->abortReason());
    } else if (late.ok()) {
      late = Status::deadlineExceeded(prefix + state->describe() +
                                      " did not complete within " +
                                      std::to_string(timeout.count()) + " ms");
    }
  }
  lock.unlock(); // resetting a request takes the lock again
  for (std::size_t i : finished)
    requests[i].reset();
  return !error.ok() ? error : late;
}

template <typename Fn>
void LocalCommunicator::foldInRankOrder(void *recv, std::int64_t count,
                                        DataType type, ReduceOp op,
                                        Fn contribution) {
  std::size_t bytes = byteCount(count, type);
  if (bytes == 0)
    return;
  // Accumulate aside: with an in-place allReduce `recv` is also this rank's
  // contribution, which must stay intact until its turn in the fold.
  std::vector<std::byte> acc(contribution(0), contribution(0) + bytes);
  for (int q = 1; q < size(); ++q)
    detail::reduceInto(acc.data(), contribution(q), count, type, op);
  std::memcpy(recv, acc.data(), bytes);
}

Status LocalCommunicator::doAllReduce(const void *send, void *recv,
                                      std::int64_t count, DataType type,
                                      ReduceOp op) {
  std::size_t bytes = byteCount(count, type);
  // Declared before the requests: a request still pending when we return
  // (after a timeout) is withdrawn before its buffer goes away.
  std::vector<std::vector<std::byte>> inbox(size());
  std::vector<Request> requests;
  for (int q = 0; q < size(); ++q)
    if (q != rank()) {
      inbox[q].resize(bytes);
      requests.push_back(postRecv(inbox[q].data(), bytes, q, kCollectiveTag));
    }
  for (int q = 0; q < size(); ++q)
    if (q != rank())
      sendHost(send, bytes, q, kCollectiveTag);
  if (Status s = wait(requests, timeout(), "allReduce"); !s.ok())
    return s;
  foldInRankOrder(recv, count, type, op, [&](int q) {
    return q == rank() ? static_cast<const std::byte *>(send) : inbox[q].data();
  });
  return Status();
}

Status LocalCommunicator::doAllGatherV(const void *send, std::int64_t sendCount,
                                       void *recv,
                                       Span<const std::int64_t> recvCounts,
                                       DataType type) {
  std::vector<std::int64_t> offsets = offsetsOf(recvCounts);
  std::vector<Request> requests;
  for (int q = 0; q < size(); ++q)
    if (q != rank())
      requests.push_back(postRecv(at(recv, offsets[q], type),
                                  byteCount(recvCounts[q], type), q,
                                  kCollectiveTag));
  std::size_t bytes = byteCount(sendCount, type);
  for (int q = 0; q < size(); ++q)
    if (q != rank())
      sendHost(send, bytes, q, kCollectiveTag);
  // memmove: in place, `send` is this very slot.
  if (bytes > 0)
    std::memmove(at(recv, offsets[rank()], type), send, bytes);
  return wait(requests, timeout(), "allGatherV");
}

Status LocalCommunicator::doReduceScatterV(const void *send, void *recv,
                                           Span<const std::int64_t> recvCounts,
                                           DataType type, ReduceOp op) {
  std::vector<std::int64_t> offsets = offsetsOf(recvCounts);
  std::int64_t mine = recvCounts[rank()];
  std::vector<std::vector<std::byte>> inbox(size());
  std::vector<Request> requests;
  for (int q = 0; q < size(); ++q)
    if (q != rank()) {
      inbox[q].resize(byteCount(mine, type));
      requests.push_back(
          postRecv(inbox[q].data(), inbox[q].size(), q, kCollectiveTag));
    }
  for (int q = 0; q < size(); ++q)
    if (q != rank())
      sendHost(at(send, offsets[q], type), byteCount(recvCounts[q], type), q,
               kCollectiveTag);
  if (Status s = wait(requests, timeout(), "reduceScatterV"); !s.ok())
    return s;
  foldInRankOrder(recv, mine, type, op, [&](int q) {
    return q == rank() ? at(send, offsets[rank()], type) : inbox[q].data();
  });
  return Status();
}

Status LocalCommunicator::doAllToAllV(const void *send,
                                      Span<const std::int64_t> sendCounts,
                                      Span<const std::int64_t> sendDispls,
                                      void *recv,
                                      Span<const std::int64_t> recvCounts,
                                      Span<const std::int64_t> recvDispls,
                                      DataType type) {
  std::vector<Request> requests;
  for (int q = 0; q < size(); ++q)
    if (q != rank())
      requests.push_back(postRecv(at(recv, recvDispls[q], type),
                                  byteCount(recvCounts[q], type), q,
                                  kCollectiveTag));
  for (int q = 0; q < size(); ++q)
    if (q != rank())
      sendHost(at(send, sendDispls[q], type), byteCount(sendCounts[q], type), q,
               kCollectiveTag);
  if (std::size_t bytes = byteCount(sendCounts[rank()], type); bytes > 0)
    std::memcpy(at(recv, recvDispls[rank()], type),
                at(send, sendDispls[rank()], type), bytes);
  return wait(requests, timeout(), "allToAllV");
}

Status LocalCommunicator::doBroadcast(void *buffer, std::int64_t count,
                                      DataType type, int root) {
  std::size_t bytes = byteCount(count, type);
  if (rank() != root) {
    Request request = postRecv(buffer, bytes, root, kCollectiveTag);
    return wait(request, timeout(), "broadcast");
  }
  for (int q = 0; q < size(); ++q)
    if (q != root)
      sendHost(buffer, bytes, q, kCollectiveTag);
  return Status();
}

Status LocalCommunicator::doBarrier() {
  // Everyone tells everyone it has arrived: no rank leaves before it heard
  // from all the others.
  std::vector<Request> requests;
  for (int q = 0; q < size(); ++q)
    if (q != rank())
      requests.push_back(postRecv(nullptr, 0, q, kCollectiveTag));
  for (int q = 0; q < size(); ++q)
    if (q != rank())
      sendHost(nullptr, 0, q, kCollectiveTag);
  return wait(requests, timeout(), "barrier");
}

} // namespace

/// The communicators of a new world, and the world itself.
static StatusOr<std::vector<std::unique_ptr<Communicator>>>
createWorld(int size, const CommOptions &options,
            std::shared_ptr<World> &world) {
  if (size < 1)
    return Status::invalidArgument("local world size must be >= 1, got " +
                                   std::to_string(size));
  if (options.timeout.count() <= 0)
    return Status::invalidArgument("comm timeout must be positive, got " +
                                   std::to_string(options.timeout.count()) +
                                   " ms");
  world = std::make_shared<World>(size);
  std::vector<std::unique_ptr<Communicator>> comms;
  comms.reserve(size);
  for (int r = 0; r < size; ++r)
    comms.push_back(
        std::make_unique<LocalCommunicator>(world, r, size, options));
  return comms;
}

StatusOr<std::vector<std::unique_ptr<Communicator>>>
LocalWorld::create(int size, const CommOptions &options) {
  std::shared_ptr<World> world;
  return createWorld(size, options, world);
}

static Status runRank(const std::function<Status(Communicator &)> &body,
                      Communicator &comm) {
  try {
    return body(comm);
  } catch (const std::exception &e) {
    return Status::internal(std::string("exception: ") + e.what());
  } catch (...) {
    return Status::internal("unknown exception");
  }
}

Status LocalWorld::run(int size,
                       const std::function<Status(Communicator &)> &body,
                       const CommOptions &options) {
  std::shared_ptr<World> world;
  auto comms = createWorld(size, options, world);
  if (!comms.ok())
    return comms.status();
  std::vector<std::thread> threads;
  Status spawn;
  try {
    for (int r = 0; r < size; ++r)
      threads.emplace_back([&, r] {
        if (Status s = runRank(body, *(*comms)[r]); !s.ok())
          world->abort(r, s);
      });
  } catch (const std::system_error &e) {
    spawn = Status::unavailable(std::string("cannot start a rank thread: ") +
                                e.what());
    world->abort(-1, spawn); // the ranks already started stop waiting
  }
  for (std::thread &t : threads)
    t.join();
  auto [rank, failure] = world->firstFailure();
  if (failure.ok() || rank < 0)
    return failure;
  return Status(failure.code(),
                "rank " + std::to_string(rank) + ": " + failure.message());
}

} // namespace shardrt::comm
