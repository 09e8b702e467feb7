//===- Nccl.h - One GPU per rank over NCCL ----------------------*- C++ -*-===//
//
// The `nccl` backend, for CUDA sessions on several GPUs. Built when the CUDA
// toolkit with NCCL is found (library shardrt_comm_nccl).
//
// Buffers may be device memory (the fast path: NCCL reads and writes them on
// the communicator's stream) or host memory, which is staged through device
// scratch, so every step of the runtime that talks to a communicator works
// unchanged. Point-to-point operations are deferred: isend/irecv record
// them, and waitAll issues all pending ones as one ncclGroupStart/End group,
// which is how a halo exchange becomes a single grouped send/recv. NCCL has
// no tags: messages between two ranks match in the order they were posted.
//
// Nothing hangs: the communicator is created non-blocking, and every wait
// polls the stream and ncclCommGetAsyncError against a deadline. A timeout
// or an asynchronous NCCL error aborts the communicator (ncclCommAbort) and
// becomes a Status; later calls on it fail with FailedPrecondition.
//
// Where NCCL cannot keep Communicator.h's promises:
//  - A receive is not matched to its send by size (NCCL has none to
//    compare): a receive longer than the message waits out the deadline
//    (DeadlineExceeded, communicator aborted) instead of completing with
//    InvalidArgument. The compiler's exchanges always match.
//  - A waitAll that reaches its deadline aborts the communicator, so its
//    requests cannot be waited on again (they are reset).
//  - Since NCCL 2.16, ranks on one node reclaim an aborted communicator
//    together: a rank that aborts while its peers on the node neither abort
//    nor call NCCL again may wait in ncclCommAbort until they do.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_COMM_NCCL_H
#define SHARDRT_COMM_NCCL_H

#include "shardrt/Status.h"
#include "shardrt/comm/Communicator.h"

#include <array>
#include <memory>

namespace shardrt::comm {

/// NCCL's unique id (ncclUniqueId), as bytes an application can send to
/// the other ranks however it likes.
using NcclId = std::array<char, 128>;

/// A new unique id (call on one rank, then share it).
StatusOr<NcclId> createNcclId();

struct NcclOptions {
  CommOptions comm;
  /// The rank's device; it becomes current on the calling thread.
  int device = 0;
  /// A cudaStream_t of the caller's, or null for the communicator's own.
  void *stream = nullptr;
};

/// Joins the communicator of `size` ranks named by `id` as `rank`.
/// Collective: every rank must call it; DeadlineExceeded when they do not
/// all arrive within options.comm.timeout.
StatusOr<std::unique_ptr<Communicator>>
createNcclCommunicator(const NcclId &id, int rank, int size,
                       const NcclOptions &options = {});

/// Uses the application's ncclComm_t (not owned: never destroyed or
/// aborted by the wrapper, which then stops at the first error). The
/// device is the communicator's (ncclCommCuDevice; options.device is
/// ignored) and options.stream, if given, must be on it. Only a
/// non-blocking communicator (ncclConfig_t::blocking = 0) keeps the
/// no-hang promise: with a blocking one, NCCL calls may block the host.
StatusOr<std::unique_ptr<Communicator>>
wrapNcclCommunicator(void *ncclComm, const NcclOptions &options = {});

} // namespace shardrt::comm

#endif // SHARDRT_COMM_NCCL_H
