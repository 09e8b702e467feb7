//===- Communicator.h - Point-to-point and collective comm ------*- C++ -*-===//
//
// One interface for every communication backend of the runtime: `local` (all
// ranks as threads of one process), `mpi` (one process per rank) and, later,
// `nccl`. Buffers are untyped pointers plus an element type and a count, which
// is what NCCL takes too, so the interface does not change when device
// buffers (and, later, streams) arrive.
//
// Two properties matter more than speed here:
//  - Point-to-point is non-blocking (isend/irecv, then waitAll), so a halo
//    exchange that posts all its sends and receives at once cannot deadlock
//    whatever order the ranks reach it in.
//  - Every wait has a deadline. A dead or diverged peer becomes a
//    DeadlineExceeded Status that names the operation and the peer, never a
//    hang and never an abort, so the failing rank can report before it stops.
//
// Collectives take explicit per-rank counts: shards are uneven (DESIGN.md core
// idea 3) and zero counts are ordinary.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_COMM_COMMUNICATOR_H
#define SHARDRT_COMM_COMMUNICATOR_H

#include "shardrt/Status.h"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace shardrt::comm {

/// Element types of collective buffers. Values may be stored in artifacts;
/// never renumber, only append (f16/bf16 come with the NCCL backend).
enum class DataType : int {
  Byte = 0, // raw bytes: gathers, scatters and broadcasts only, no reductions
  F32 = 1,
  F64 = 2,
  I32 = 3,
  I64 = 4,
};

/// Size of one element in bytes; 0 for a value outside the enum.
std::size_t dataTypeSize(DataType type);

/// Whether the byte ranges [a, a + aBytes) and [b, b + bBytes) share a byte
/// (an empty range shares none).
inline bool overlaps(const void *a, std::size_t aBytes, const void *b,
                     std::size_t bBytes) {
  auto x = reinterpret_cast<std::uintptr_t>(a);
  auto y = reinterpret_cast<std::uintptr_t>(b);
  return aBytes > 0 && bBytes > 0 && x < y + bBytes && y < x + aBytes;
}
/// "f32", "i64", ...; "unknown" for a value outside the enum.
const char *dataTypeName(DataType type);

/// The DataType of a C++ element type, for typed call sites.
template <typename T> constexpr DataType dataTypeOf() {
  if constexpr (std::is_same_v<T, float>)
    return DataType::F32;
  else if constexpr (std::is_same_v<T, double>)
    return DataType::F64;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return DataType::I32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return DataType::I64;
  else {
    static_assert(std::is_same_v<T, std::byte> ||
                      std::is_same_v<T, unsigned char>,
                  "no comm::DataType for this element type");
    return DataType::Byte;
  }
}

/// Reductions. Integer sums and products wrap (two's complement) instead of
/// being undefined, as MPI and NCCL do in practice.
enum class ReduceOp : int { Sum = 0, Prod = 1, Max = 2, Min = 3 };
const char *reduceOpName(ReduceOp op);

/// User tags are 0..kMaxTag: the smallest upper bound MPI guarantees, so a
/// program that runs on `local` also runs on `mpi`.
constexpr int kMaxTag = 32767;

constexpr std::chrono::milliseconds kDefaultTimeout{60000};

/// Copies `bytes` bytes between two buffers of this process, each in host
/// or device memory (cudaMemcpy with cudaMemcpyDefault does this).
using CopyBytesFn = Status (*)(void *dst, const void *src, std::size_t bytes);

struct CommOptions {
  /// Deadline of every collective and of waitAll without an explicit timeout.
  std::chrono::milliseconds timeout = kDefaultTimeout;
  /// How the `local` backend copies point-to-point messages; std::memcpy
  /// when null. With a device-aware copy, isend and irecv take device
  /// buffers (takesDeviceBuffers()), so ranks on one GPU exchange halos
  /// device to device. Collectives always take host buffers there.
  CopyBytesFn copyBytes = nullptr;
};

/// A non-owning view of contiguous elements (std::span is C++20).
template <typename T> class Span {
public:
  constexpr Span() = default;
  constexpr Span(T *data, std::size_t size) : data_(data), size_(size) {}
  /// One element, e.g. a single Request.
  constexpr Span(T &one) : data_(&one), size_(1) {}
  template <typename U, typename A,
            typename = std::enable_if_t<std::is_convertible_v<U *, T *>>>
  Span(std::vector<U, A> &v) : data_(v.data()), size_(v.size()) {}
  template <typename U, typename A,
            typename = std::enable_if_t<std::is_convertible_v<const U *, T *>>>
  Span(const std::vector<U, A> &v) : data_(v.data()), size_(v.size()) {}

  constexpr T *data() const { return data_; }
  constexpr std::size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T &operator[](std::size_t i) const { return data_[i]; }
  constexpr T *begin() const { return data_; }
  constexpr T *end() const { return data_ + size_; }

private:
  T *data_ = nullptr;
  std::size_t size_ = 0;
};

class Communicator;

/// Backend state of one in-flight request. Destroying a pending one cancels
/// it (a receive no longer writes into the caller's buffer).
class RequestState {
public:
  explicit RequestState(const Communicator *owner) : owner_(owner) {}
  virtual ~RequestState();
  RequestState(const RequestState &) = delete;
  RequestState &operator=(const RequestState &) = delete;

  /// The communicator that created it; only that one may wait on it.
  const Communicator *owner() const { return owner_; }

private:
  const Communicator *owner_;
};

/// Handle of a non-blocking send or receive. A completed request is empty
/// (like MPI_REQUEST_NULL); waiting on an empty request succeeds at once.
class Request {
public:
  Request() = default;
  explicit Request(std::unique_ptr<RequestState> state)
      : state_(std::move(state)) {}

  /// False once the request completed (or when it never held an operation).
  bool pending() const { return state_ != nullptr; }
  RequestState *state() const { return state_.get(); }
  /// Cancels the operation if it is still pending.
  void reset() { state_.reset(); }

private:
  std::unique_ptr<RequestState> state_;
};

/// A group of `size()` ranks. One Communicator object belongs to one rank and
/// is used by one thread at a time; the ranks of a `local` world each run on
/// their own thread.
///
/// Every rank must call the collectives in the same order with matching
/// arguments. Argument errors found locally return InvalidArgument and leave
/// the communicator usable. A collective that fails after communication
/// started (a timeout, a count mismatch between ranks) leaves its peers in an
/// unknown state, so later collectives on that rank return
/// FailedPrecondition; point-to-point keeps working.
///
/// Buffers are host memory for `local` and `mpi`.
class Communicator {
public:
  virtual ~Communicator();
  Communicator(const Communicator &) = delete;
  Communicator &operator=(const Communicator &) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// "local", "mpi", ...
  virtual const char *backendName() const = 0;

  /// Whether isend and irecv take buffers in device memory of the GPU this
  /// rank runs on (`nccl`; `local` with a device-aware copy). Host memory
  /// is always accepted.
  virtual bool takesDeviceBuffers() const { return false; }
  /// Whether the collectives take device buffers too (`nccl`; `local`
  /// reduces on the host even with a device-aware copy).
  virtual bool collectivesTakeDeviceBuffers() const { return false; }

  std::chrono::milliseconds timeout() const { return timeout_; }
  /// InvalidArgument unless timeout > 0.
  Status setTimeout(std::chrono::milliseconds timeout);

  //===--- Point-to-point ------------------------------------------------===//

  /// Starts sending `bytes` bytes to `peer` (may be this rank). The buffer
  /// must stay unchanged until the request completes: `local` happens to copy
  /// it at once, but `mpi` and `nccl` do not.
  StatusOr<Request> isend(const void *buffer, std::size_t bytes, int peer,
                          int tag);
  /// Starts receiving exactly `bytes` bytes from `peer` with `tag`. Messages
  /// between one pair of ranks with one tag arrive in the order sent. A
  /// message of another size completes the request with InvalidArgument.
  StatusOr<Request> irecv(void *buffer, std::size_t bytes, int peer, int tag);

  /// Waits until every request completed or `timeout` passed. Completed
  /// requests become empty; the others stay pending, to be waited on again
  /// or dropped. Returns the first error among the completed requests (e.g.
  /// a message of the wrong size), else DeadlineExceeded naming the first
  /// request still pending, else Ok.
  Status waitAll(Span<Request> requests, std::chrono::milliseconds timeout);
  /// Same, with timeout().
  Status waitAll(Span<Request> requests) { return waitAll(requests, timeout_); }

  //===--- Collectives (all take timeout()) ------------------------------===//

  /// Elementwise reduction of `count` elements over all ranks; every rank
  /// gets the result. `send == recv` reduces in place; otherwise the buffers
  /// must not overlap. No reduction on DataType::Byte.
  Status allReduce(const void *send, void *recv, std::int64_t count,
                   DataType type, ReduceOp op);

  /// Concatenation in rank order: rank q contributes recvCounts[q] elements,
  /// which land at offset recvCounts[0] + ... + recvCounts[q-1] of `recv` on
  /// every rank. sendCount must equal recvCounts[rank()]. `send` may be this
  /// rank's own slot of `recv` (in place) and must not overlap `recv`
  /// otherwise.
  Status allGatherV(const void *send, std::int64_t sendCount, void *recv,
                    Span<const std::int64_t> recvCounts, DataType type);

  /// `send` holds sum(recvCounts) elements on every rank; they are reduced
  /// over ranks and rank q keeps the recvCounts[q] elements at offset
  /// recvCounts[0] + ... + recvCounts[q-1] (MPI_Reduce_scatter).
  Status reduceScatterV(const void *send, void *recv,
                        Span<const std::int64_t> recvCounts, DataType type,
                        ReduceOp op);

  /// Rank r sends sendCounts[q] elements at element offset sendDispls[q] to
  /// rank q, and receives recvCounts[q] elements from rank q at element
  /// offset recvDispls[q]. Send and receive buffers must not overlap, nor
  /// may the receive slots.
  Status allToAllV(const void *send, Span<const std::int64_t> sendCounts,
                   Span<const std::int64_t> sendDispls, void *recv,
                   Span<const std::int64_t> recvCounts,
                   Span<const std::int64_t> recvDispls, DataType type);

  /// Copies `count` elements of `buffer` on `root` into `buffer` everywhere.
  Status broadcast(void *buffer, std::int64_t count, DataType type, int root);

  /// Returns once every rank has entered it.
  Status barrier();

  /// Gives up on the world after this rank failed part way through a
  /// program (Session::run does so), which leaves its peers waiting for
  /// messages it will never send and the ranks' message order out of step.
  /// Every backend: this rank's later isend, irecv and collectives return
  /// FailedPrecondition naming `why` (waitAll still completes what is in
  /// flight). `local`: every rank's pending and later waits return
  /// Unavailable at once ("rank N failed"), as under LocalWorld::run;
  /// `mpi`: every rank's pending and later waits on this communicator
  /// return Unavailable at once, with `why` (a notice sent to each peer; a
  /// peer gone dead is given up on after a second), and the peers'
  /// collectives stop or are not started;
  /// `nccl`: a communicator it created is aborted. Call it from this rank's
  /// thread; the first call wins.
  void abort(const Status &why);

  //===--- One program at a time ----------------------------------------===//

  /// Claims the communicator for one run of a rank program (Session::run
  /// does): false while another run holds it. Two programs on one
  /// communicator at once (sessions of one rank sharing it, or one session
  /// run from two threads) could take each other's messages, which have the
  /// same peers and tags, and compute wrong values without an error; the
  /// second run is refused instead.
  bool claimForRun() {
    return !inRun_.exchange(true, std::memory_order_acquire);
  }
  void releaseFromRun() { inRun_.store(false, std::memory_order_release); }
  /// Whether a run holds it now.
  bool inRun() const { return inRun_.load(std::memory_order_acquire); }

protected:
  Communicator(int rank, int size, const CommOptions &options);

  // Backends implement these; the public functions above validate the
  // arguments first (so every backend rejects the same calls) and disable
  // collectives after a failed one.
  virtual StatusOr<Request> doIsend(const void *buffer, std::size_t bytes,
                                    int peer, int tag) = 0;
  virtual StatusOr<Request> doIrecv(void *buffer, std::size_t bytes, int peer,
                                    int tag) = 0;
  virtual Status doWaitAll(Span<Request> requests,
                           std::chrono::milliseconds timeout) = 0;
  virtual Status doAllReduce(const void *send, void *recv, std::int64_t count,
                             DataType type, ReduceOp op) = 0;
  virtual Status doAllGatherV(const void *send, std::int64_t sendCount,
                              void *recv, Span<const std::int64_t> recvCounts,
                              DataType type) = 0;
  virtual Status doReduceScatterV(const void *send, void *recv,
                                  Span<const std::int64_t> recvCounts,
                                  DataType type, ReduceOp op) = 0;
  virtual Status doAllToAllV(const void *send,
                             Span<const std::int64_t> sendCounts,
                             Span<const std::int64_t> sendDispls, void *recv,
                             Span<const std::int64_t> recvCounts,
                             Span<const std::int64_t> recvDispls,
                             DataType type) = 0;
  virtual Status doBroadcast(void *buffer, std::int64_t count, DataType type,
                             int root) = 0;
  virtual Status doBarrier() = 0;
  /// What abort() does beyond disabling this rank's collectives.
  virtual void doAbort(const Status &why) { (void)why; }
  /// Why collective `op` must not start (a backend that learns of a
  /// peer's failure: that peer would never join it); Ok to start it.
  virtual Status refuseCollective(const char *op) {
    (void)op;
    return Status();
  }

private:
  /// Runs a validated collective; a failure disables later collectives.
  template <typename Fn> Status runCollective(const char *name, Fn &&fn);

  int rank_;
  int size_;
  std::chrono::milliseconds timeout_;
  /// FailedPrecondition once abort() was called.
  Status refuseIfAborted(const char *op) const;

  /// Set by the first collective that failed after it started communicating.
  Status broken_;
  /// Why abort() gave up on the world.
  Status aborted_;
  std::atomic<bool> inRun_{false};
};

} // namespace shardrt::comm

#endif // SHARDRT_COMM_COMMUNICATOR_H
