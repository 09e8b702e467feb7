//===- Mpi.h - One process per rank over MPI --------------------*- C++ -*-===//
//
// The `mpi` backend, for CPU runs over several processes or nodes started by
// mpirun or srun. Built only when CMake finds MPI (SHARDRT_ENABLE_MPI).
//
// Waits poll MPI_Test against a deadline instead of blocking in MPI_Wait, and
// collectives use the non-blocking MPI-3 forms (MPI_Iallreduce, ...) for the
// same reason: a dead peer must become DeadlineExceeded, not a hang. The
// communicator gets MPI_ERRORS_RETURN, so MPI errors become Status values.
// A rank that gives up (Communicator::abort, after a failed run) sends its
// reason over a second duplicate that carries only such notices; the peers'
// polls see it and stop with Unavailable instead of waiting out the timeout
// (after MPI confirms their pending receives withdrawn), and they start no
// collective afterwards. The failed rank's own waits stop the same way.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_COMM_MPI_H
#define SHARDRT_COMM_MPI_H

#include "shardrt/Status.h"
#include "shardrt/comm/Communicator.h"

#include <mpi.h>

#include <chrono>
#include <memory>

namespace shardrt::comm {

/// Initializes MPI (MPI_THREAD_SERIALIZED) unless it already is: an
/// embedding application may own MPI, and then it also finalizes it. When
/// this call initializes MPI, MPI_Finalize runs at exit unless the
/// application finalized first. FailedPrecondition after MPI_Finalize.
Status initializeMpi();

/// For a process about to exit after a failed run: waits up to `timeout`
/// for every process of MPI_COMM_WORLD to call this too (a barrier of its
/// own, apart from any communicator given up on). True when all did. When
/// one did not (it hangs, or is stopped), MPI_Finalize at exit, which would
/// wait for it forever, is skipped: the process exits, and the launcher
/// ends the job. An application that initialized MPI itself decides for
/// itself how to finalize.
bool leaveMpiAfterFailure(std::chrono::milliseconds timeout);

/// A communicator over two duplicates of `base` (MPI_COMM_WORLD by default),
/// one for the runtime's traffic and one for abort notices, so that neither
/// ever matches the application's own messages.
/// Initializes MPI if needed. Collective over `base`.
StatusOr<std::unique_ptr<Communicator>>
createMpiCommunicator(const CommOptions &options = {});
StatusOr<std::unique_ptr<Communicator>>
createMpiCommunicator(MPI_Comm base, const CommOptions &options = {});

/// This process's rank among the ranks of `comm` on its node (those with
/// the same MPI processor name), e.g. to pick one GPU per process.
/// Collective over `comm` (an all-gather of the names, under its timeout).
StatusOr<int> nodeLocalRank(Communicator &comm);

} // namespace shardrt::comm

#endif // SHARDRT_COMM_MPI_H
