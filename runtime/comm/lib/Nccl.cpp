//===- Nccl.cpp - One GPU per rank over NCCL ------------------------------===//

#include "shardrt/comm/Nccl.h"
#include "shardrt/cuda/Device.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace shardrt::comm {
namespace {

using Clock = std::chrono::steady_clock;

#define SHARDRT_NCCL_CUDA(call, what)                                          \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess)                                                     \
      return cuda::cudaCallStatus(e_, what);                                   \
  } while (0)

ncclDataType_t ncclType(DataType t) {
  switch (t) {
  case DataType::F32:
    return ncclFloat32;
  case DataType::F64:
    return ncclFloat64;
  case DataType::I32:
    return ncclInt32;
  case DataType::I64:
    return ncclInt64;
  case DataType::Byte:
    break;
  }
  return ncclUint8;
}

ncclRedOp_t ncclOp(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
    return ncclSum;
  case ReduceOp::Prod:
    return ncclProd;
  case ReduceOp::Max:
    return ncclMax;
  case ReduceOp::Min:
    return ncclMin;
  }
  return ncclSum;
}

/// NCCL's name for `result`, with its last error on `comm` where it has
/// one.
std::string ncclDetail(ncclComm_t comm, ncclResult_t result) {
  std::string detail = ncclGetErrorString(result);
  if (const char *last = ncclGetLastError(comm); last && *last)
    detail += std::string(" (") + last + ")";
  return detail;
}

/// Polls a non-blocking communicator until `result` (a call's return) is
/// settled: Ok, an error, or the deadline (the caller then aborts).
Status settle(ncclComm_t comm, ncclResult_t result, const std::string &what,
              Clock::time_point deadline) {
  while (result == ncclInProgress) {
    if (Clock::now() > deadline)
      return Status::deadlineExceeded(what + " did not complete in time");
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    if (ncclCommGetAsyncError(comm, &result) != ncclSuccess)
      result = ncclInternalError;
  }
  if (result == ncclSuccess)
    return Status();
  return Status::unavailable(what + ": " + ncclDetail(comm, result));
}

/// A host buffer staged through device scratch for one operation.
struct Staged {
  const void *user = nullptr;
  void *device = nullptr;
  size_t bytes = 0;
  bool copyBack = false;
};

bool isDevicePointer(const void *p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeDevice ||
         attr.type == cudaMemoryTypeManaged;
}

class NcclCommunicator;

/// A deferred send or receive.
struct P2pOp {
  bool send = false;
  const void *buffer = nullptr;
  size_t bytes = 0;
  int peer = 0;
  bool cancelled = false;
};

class NcclRequestState final : public RequestState {
public:
  NcclRequestState(const Communicator *owner, std::shared_ptr<P2pOp> op)
      : RequestState(owner), op(std::move(op)) {}
  ~NcclRequestState() override {
    if (op)
      op->cancelled = true; // not issued yet: never will be
  }
  std::shared_ptr<P2pOp> op;
};

class NcclCommunicator final : public Communicator {
public:
  NcclCommunicator(ncclComm_t comm, bool owned, int rank, int size,
                   const NcclOptions &options, cudaStream_t stream,
                   bool ownStream)
      : Communicator(rank, size, options.comm), comm_(comm), owned_(owned),
        device_(options.device), stream_(stream), ownStream_(ownStream) {}
  ~NcclCommunicator() override;

  const char *backendName() const override { return "nccl"; }
  bool takesDeviceBuffers() const override { return true; }
  bool collectivesTakeDeviceBuffers() const override { return true; }

protected:
  StatusOr<Request> doIsend(const void *buffer, std::size_t bytes, int peer,
                            int) override {
    return post(true, buffer, bytes, peer);
  }
  StatusOr<Request> doIrecv(void *buffer, std::size_t bytes, int peer,
                            int) override {
    return post(false, buffer, bytes, peer);
  }
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

private:
  StatusOr<Request> post(bool send, const void *buffer, size_t bytes,
                         int peer) {
    if (!usable_.ok())
      return usable_;
    auto op = std::make_shared<P2pOp>();
    *op = {send, buffer, bytes, peer, false};
    pending_.push_back(op);
    return Request(std::make_unique<NcclRequestState>(this, op));
  }

  /// Runs one operation: stages host buffers in, calls `issue` with the
  /// device pointers (inside a group), waits, stages results out.
  template <typename Issue>
  Status run(const std::string &what, std::vector<Staged> buffers,
             std::chrono::milliseconds timeout, Issue &&issue);
  /// Waits for the stream; a deadline (`timeout` after the operation
  /// began) or an asynchronous error aborts.
  Status wait(const std::string &what, Clock::time_point deadline,
              std::chrono::milliseconds timeout);
  /// Makes the staging scratch at least `bytes` long.
  Status reserveScratch(size_t bytes, const std::string &what);
  Status fail(Status s) {
    if (owned_ && comm_ && usable_.ok())
      ncclCommAbort(comm_);
    usable_ = Status::failedPrecondition(
        "the nccl communicator was aborted after an earlier error: " +
        s.message());
    return s;
  }
  void doAbort(const Status &why) override {
    if (usable_.ok())
      (void)fail(why);
  }
  size_t elem(DataType t) const { return dataTypeSize(t); }

  ncclComm_t comm_;
  bool owned_;
  int device_;
  cudaStream_t stream_;
  bool ownStream_;
  Status usable_;
  std::vector<std::shared_ptr<P2pOp>> pending_;
  /// Device staging of host buffers (and the barrier's word), and the event
  /// waits poll.
  void *scratch_ = nullptr;
  size_t scratchBytes_ = 0;
  cudaEvent_t done_ = nullptr;
};

NcclCommunicator::~NcclCommunicator() {
  cudaSetDevice(device_);
  if (owned_ && comm_) {
    if (usable_.ok()) {
      // Flush, bounded by the timeout; abort if a peer is gone.
      Clock::time_point deadline = Clock::now() + timeout();
      if (!settle(comm_, ncclCommFinalize(comm_), "ncclCommFinalize", deadline)
               .ok())
        ncclCommAbort(comm_);
      else
        ncclCommDestroy(comm_);
    }
  }
  // After a failure the application's communicator (never aborted by us)
  // may still have kernels reading the scratch: freeing it would block on
  // them, so it is left allocated.
  if (usable_.ok() || owned_) {
    if (scratch_)
      cudaFree(scratch_);
  }
  if (done_)
    cudaEventDestroy(done_);
  if (ownStream_)
    cudaStreamDestroy(stream_);
}

Status NcclCommunicator::wait(const std::string &what,
                              Clock::time_point deadline,
                              std::chrono::milliseconds timeout) {
  if (!done_)
    SHARDRT_NCCL_CUDA(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming),
                      what);
  SHARDRT_NCCL_CUDA(cudaEventRecord(done_, stream_), what);
  auto asyncError = [&]() -> Status {
    ncclResult_t async = ncclSuccess;
    if (ncclCommGetAsyncError(comm_, &async) != ncclSuccess ||
        (async != ncclSuccess && async != ncclInProgress)) {
      return fail(Status::unavailable(
          what + ": asynchronous NCCL error: " + ncclDetail(comm_, async)));
    }
    return Status();
  };
  for (;;) {
    cudaError_t q = cudaEventQuery(done_);
    // Completed kernels may still have left an error (a peer's failure
    // seen by the proxy thread): one last look before reporting success.
    if (q == cudaSuccess)
      return asyncError();
    if (q != cudaErrorNotReady)
      return fail(cuda::cudaCallStatus(q, what));
    SHARDRT_RETURN_IF_ERROR(asyncError());
    if (Clock::now() > deadline)
      return fail(Status::deadlineExceeded(
          what + " did not complete within " + std::to_string(timeout.count()) +
          " ms (a peer is missing or stuck); the communicator was aborted"));
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

Status NcclCommunicator::reserveScratch(size_t bytes, const std::string &what) {
  if (bytes <= scratchBytes_)
    return Status();
  // The stream is idle here (every operation waits for it), so the old
  // scratch has no readers left.
  if (scratch_)
    cudaFree(scratch_);
  scratch_ = nullptr;
  scratchBytes_ = 0;
  SHARDRT_NCCL_CUDA(cudaMalloc(&scratch_, bytes),
                    what + ": staging " + std::to_string(bytes) + " bytes");
  scratchBytes_ = bytes;
  return Status();
}

template <typename Issue>
Status NcclCommunicator::run(const std::string &what,
                             std::vector<Staged> buffers,
                             std::chrono::milliseconds timeout, Issue &&issue) {
  if (!usable_.ok())
    return usable_;
  SHARDRT_NCCL_CUDA(cudaSetDevice(device_), what);
  Clock::time_point deadline = Clock::now() + timeout;
  // Host buffers go through the communicator's device scratch, which
  // grows to the largest operation's and is then reused.
  std::vector<void *> device(buffers.size());
  std::vector<size_t> offsets(buffers.size(), 0);
  size_t total = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    Staged &b = buffers[i];
    if (!b.user || b.bytes == 0 || isDevicePointer(b.user)) {
      device[i] = const_cast<void *>(b.user); // used as it is
      continue;
    }
    offsets[i] = total;
    total += (b.bytes + 255) / 256 * 256;
  }
  SHARDRT_RETURN_IF_ERROR(reserveScratch(total, what));
  for (size_t i = 0; i < buffers.size(); ++i) {
    Staged &b = buffers[i];
    if (device[i] || !b.user || b.bytes == 0)
      continue;
    b.device = static_cast<char *>(scratch_) + offsets[i];
    device[i] = b.device;
    SHARDRT_NCCL_CUDA(cudaMemcpyAsync(b.device, b.user, b.bytes,
                                      cudaMemcpyHostToDevice, stream_),
                      what);
  }
  Status s = settle(comm_, ncclGroupStart(), what, deadline);
  if (s.ok()) {
    ncclResult_t issued = issue(device);
    ncclResult_t ended = ncclGroupEnd();
    s = settle(comm_, issued != ncclSuccess ? issued : ended, what, deadline);
  }
  if (s.ok())
    s = wait(what, deadline, timeout);
  else
    s = fail(s);
  bool copiedBack = false;
  for (size_t i = 0; s.ok() && i < buffers.size(); ++i)
    if (buffers[i].device && buffers[i].copyBack) {
      cudaError_t err = cudaMemcpyAsync(const_cast<void *>(buffers[i].user),
                                        buffers[i].device, buffers[i].bytes,
                                        cudaMemcpyDeviceToHost, stream_);
      if (err != cudaSuccess)
        s = cuda::cudaCallStatus(err, what);
      copiedBack = true;
    }
  // wait() saw the operation complete; only copies back are left.
  if (s.ok() && copiedBack) {
    cudaError_t err = cudaStreamSynchronize(stream_);
    if (err != cudaSuccess)
      s = cuda::cudaCallStatus(err, what);
  }
  return s;
}

Status NcclCommunicator::doWaitAll(Span<Request> requests,
                                   std::chrono::milliseconds timeout) {
  // Every posted, uncancelled operation goes out as one group.
  std::vector<std::shared_ptr<P2pOp>> ops;
  for (const std::shared_ptr<P2pOp> &op : pending_)
    if (!op->cancelled)
      ops.push_back(op);
  pending_.clear();
  std::vector<Staged> buffers;
  for (const std::shared_ptr<P2pOp> &op : ops)
    buffers.push_back({op->buffer, nullptr, op->bytes, !op->send});
  Status s =
      run("waitAll (" + std::to_string(ops.size()) + " sends and receives)",
          buffers, timeout, [&](const std::vector<void *> &dev) {
            for (size_t i = 0; i < ops.size(); ++i) {
              ncclResult_t r = ops[i]->send
                                   ? ncclSend(dev[i], ops[i]->bytes, ncclUint8,
                                              ops[i]->peer, comm_, stream_)
                                   : ncclRecv(dev[i], ops[i]->bytes, ncclUint8,
                                              ops[i]->peer, comm_, stream_);
              if (r != ncclSuccess && r != ncclInProgress)
                return r;
            }
            return ncclSuccess;
          });
  for (Request &r : requests) {
    if (auto *state = static_cast<NcclRequestState *>(r.state()))
      state->op.reset(); // issued: complete or failed with the group
    r.reset();
  }
  return s;
}

Status NcclCommunicator::doAllReduce(const void *send, void *recv,
                                     std::int64_t count, DataType type,
                                     ReduceOp op) {
  size_t bytes = size_t(count) * elem(type);
  return run("allReduce",
             {{send, nullptr, bytes, false}, {recv, nullptr, bytes, true}},
             timeout(), [&](const std::vector<void *> &d) {
               return ncclAllReduce(d[0], d[1], size_t(count), ncclType(type),
                                    ncclOp(op), comm_, stream_);
             });
}

Status NcclCommunicator::doAllGatherV(const void *send, std::int64_t sendCount,
                                      void *recv,
                                      Span<const std::int64_t> recvCounts,
                                      DataType type) {
  size_t e = elem(type), total = 0;
  std::vector<size_t> displ;
  for (std::int64_t c : recvCounts) {
    displ.push_back(total);
    total += size_t(c);
  }
  bool even = std::all_of(recvCounts.begin(), recvCounts.end(),
                          [&](std::int64_t c) { return c == sendCount; });
  if (even)
    return run("allGatherV",
               {{send, nullptr, size_t(sendCount) * e, false},
                {recv, nullptr, total * e, true}},
               timeout(), [&](const std::vector<void *> &d) {
                 return ncclAllGather(d[0], d[1], size_t(sendCount) * e,
                                      ncclUint8, comm_, stream_);
               });
  // Uneven: one broadcast per member, grouped (NCCL has no gather-v).
  return run("allGatherV",
             {{send, nullptr, size_t(sendCount) * e, false},
              {recv, nullptr, total * e, true}},
             timeout(), [&](const std::vector<void *> &d) {
               auto *out = static_cast<char *>(d[1]);
               for (int q = 0; q < size(); ++q) {
                 const void *src = q == rank() ? d[0] : out + displ[q] * e;
                 ncclResult_t r = ncclBroadcast(src, out + displ[q] * e,
                                                size_t(recvCounts[q]) * e,
                                                ncclUint8, q, comm_, stream_);
                 if (r != ncclSuccess && r != ncclInProgress)
                   return r;
               }
               return ncclSuccess;
             });
}

Status NcclCommunicator::doReduceScatterV(const void *send, void *recv,
                                          Span<const std::int64_t> recvCounts,
                                          DataType type, ReduceOp op) {
  size_t e = elem(type), total = 0;
  std::vector<size_t> displ;
  for (std::int64_t c : recvCounts) {
    displ.push_back(total);
    total += size_t(c);
  }
  // One reduce per member onto that member, grouped.
  return run("reduceScatterV",
             {{send, nullptr, total * e, false},
              {recv, nullptr, size_t(recvCounts[rank()]) * e, true}},
             timeout(), [&](const std::vector<void *> &d) {
               auto *in = static_cast<const char *>(d[0]);
               for (int q = 0; q < size(); ++q) {
                 ncclResult_t r =
                     ncclReduce(in + displ[q] * e, d[1], size_t(recvCounts[q]),
                                ncclType(type), ncclOp(op), q, comm_, stream_);
                 if (r != ncclSuccess && r != ncclInProgress)
                   return r;
               }
               return ncclSuccess;
             });
}

Status NcclCommunicator::doAllToAllV(const void *send,
                                     Span<const std::int64_t> sendCounts,
                                     Span<const std::int64_t> sendDispls,
                                     void *recv,
                                     Span<const std::int64_t> recvCounts,
                                     Span<const std::int64_t> recvDispls,
                                     DataType type) {
  size_t e = elem(type), sendEnd = 0, recvEnd = 0;
  // A slot of count 0 may have any displacement (checkDispls leaves it
  // out), so only the others bound the bytes staged.
  for (int q = 0; q < size(); ++q) {
    if (sendCounts[q] > 0)
      sendEnd = std::max(sendEnd, size_t(sendDispls[q] + sendCounts[q]));
    if (recvCounts[q] > 0)
      recvEnd = std::max(recvEnd, size_t(recvDispls[q] + recvCounts[q]));
  }
  return run(
      "allToAllV",
      {{send, nullptr, sendEnd * e, false}, {recv, nullptr, recvEnd * e, true}},
      timeout(), [&](const std::vector<void *> &d) {
        auto *in = static_cast<const char *>(d[0]);
        auto *out = static_cast<char *>(d[1]);
        for (int q = 0; q < size(); ++q) {
          ncclResult_t r =
              ncclSend(sendCounts[q] ? in + size_t(sendDispls[q]) * e : in,
                       size_t(sendCounts[q]) * e, ncclUint8, q, comm_, stream_);
          if (r == ncclSuccess || r == ncclInProgress)
            r = ncclRecv(recvCounts[q] ? out + size_t(recvDispls[q]) * e : out,
                         size_t(recvCounts[q]) * e, ncclUint8, q, comm_,
                         stream_);
          if (r != ncclSuccess && r != ncclInProgress)
            return r;
        }
        return ncclSuccess;
      });
}

Status NcclCommunicator::doBroadcast(void *buffer, std::int64_t count,
                                     DataType type, int root) {
  size_t bytes = size_t(count) * elem(type);
  return run("broadcast", {{buffer, nullptr, bytes, true}}, timeout(),
             [&](const std::vector<void *> &d) {
               return ncclBroadcast(d[0], d[0], bytes, ncclUint8, root, comm_,
                                    stream_);
             });
}

Status NcclCommunicator::doBarrier() {
  if (!usable_.ok())
    return usable_;
  SHARDRT_NCCL_CUDA(cudaSetDevice(device_), "barrier");
  // The value is never read: any device word will do.
  SHARDRT_RETURN_IF_ERROR(reserveScratch(sizeof(int32_t), "barrier"));
  return run("barrier", {{scratch_, nullptr, sizeof(int32_t), false}},
             timeout(), [&](const std::vector<void *> &d) {
               return ncclAllReduce(d[0], d[0], 1, ncclInt32, ncclSum, comm_,
                                    stream_);
             });
}

StatusOr<cudaStream_t> streamFor(const NcclOptions &options, bool &own) {
  SHARDRT_NCCL_CUDA(cudaSetDevice(options.device), "cudaSetDevice");
  own = options.stream == nullptr;
  cudaStream_t stream = static_cast<cudaStream_t>(options.stream);
  if (own)
    SHARDRT_NCCL_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
                      "cudaStreamCreateWithFlags");
  return stream;
}

} // namespace

StatusOr<NcclId> createNcclId() {
  ncclUniqueId id;
  if (ncclResult_t r = ncclGetUniqueId(&id); r != ncclSuccess)
    return Status::unavailable(std::string("ncclGetUniqueId: ") +
                               ncclGetErrorString(r));
  NcclId out{};
  static_assert(sizeof(id) == sizeof(out), "ncclUniqueId is 128 bytes");
  std::memcpy(out.data(), &id, sizeof(id));
  return out;
}

StatusOr<std::unique_ptr<Communicator>>
createNcclCommunicator(const NcclId &id, int rank, int size,
                       const NcclOptions &options) {
  if (size < 1 || rank < 0 || rank >= size)
    return Status::invalidArgument("nccl: rank " + std::to_string(rank) +
                                   " of " + std::to_string(size));
  if (options.comm.timeout.count() <= 0)
    return Status::invalidArgument("nccl: the timeout must be positive");
  bool own = false;
  StatusOr<cudaStream_t> stream = streamFor(options, own);
  if (!stream.ok())
    return stream.status();
  ncclUniqueId uid;
  std::memcpy(&uid, id.data(), sizeof(uid));
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0; // joining must not hang on a missing peer
  ncclComm_t comm = nullptr;
  ncclResult_t r = ncclCommInitRankConfig(&comm, size, uid, rank, &config);
  Status s = comm
                 ? settle(comm, r, "ncclCommInitRankConfig",
                          Clock::now() + options.comm.timeout)
                 : Status::unavailable(std::string("ncclCommInitRankConfig: ") +
                                       ncclGetErrorString(r));
  if (!s.ok()) {
    if (comm)
      ncclCommAbort(comm);
    if (own)
      cudaStreamDestroy(*stream);
    return s;
  }
  return std::unique_ptr<Communicator>(
      new NcclCommunicator(comm, true, rank, size, options, *stream, own));
}

StatusOr<std::unique_ptr<Communicator>>
wrapNcclCommunicator(void *ncclComm, const NcclOptions &options) {
  if (!ncclComm)
    return Status::invalidArgument("nccl: no communicator given");
  auto comm = static_cast<ncclComm_t>(ncclComm);
  int rank = 0, size = 0;
  if (ncclCommUserRank(comm, &rank) != ncclSuccess ||
      ncclCommCount(comm, &size) != ncclSuccess)
    return Status::invalidArgument("nccl: the communicator is not usable");
  // The communicator's device, not options.device's default of 0: NCCL
  // launches on it, so the stream and staging must live there too.
  NcclOptions onDevice = options;
  if (ncclCommCuDevice(comm, &onDevice.device) != ncclSuccess)
    return Status::invalidArgument("nccl: the communicator is not usable");
  bool own = false;
  StatusOr<cudaStream_t> stream = streamFor(onDevice, own);
  if (!stream.ok())
    return stream.status();
  return std::unique_ptr<Communicator>(
      new NcclCommunicator(comm, false, rank, size, onDevice, *stream, own));
}

} // namespace shardrt::comm
