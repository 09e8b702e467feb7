//===- HostNcclProcesses.h - Host NCCL cliques of processes -----*- C++ -*-===//
//
// The host NCCL's cliques whose ranks are the processes of one MPI job (one
// rank per process), as `mpirun shard-run --comm nccl` and
// createNcclCommunicatorOverMpi make them. Data moves over MPI, which the
// real NCCL does not use: MPI here stands in for NCCL's own bootstrap and
// network. Built when MPI is (HostNcclProcesses.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDRT_HOSTCUDA_HOSTNCCLPROCESSES_H
#define SHARDRT_HOSTCUDA_HOSTNCCLPROCESSES_H

#include "HostNcclOps.h"

#include <memory>
#include <string>

namespace hostnccl {

/// One posted operation of a member of a clique of processes.
struct Transfer {
  virtual ~Transfer() = default;
};

/// A member's end of a clique of processes. Every call may come from any
/// thread; these calls into MPI are serialized among themselves only. MPI
/// runs SERIALIZED, so a program that also calls MPI itself (shardrt's
/// `mpi` communicator) must not do so while another thread polls these
/// streams; shard-run meets over MPI only before and after a run.
class ProcessLink {
public:
  virtual ~ProcessLink() = default;
  /// ncclSuccess once every rank has joined, ncclInProgress until then,
  /// else why joining failed (lastError says more).
  virtual ncclResult_t joined() = 0;
  /// The first error found while running (ncclRemoteError when a peer
  /// aborted, ncclInvalidUsage for mismatched operations), else ncclSuccess.
  virtual ncclResult_t asyncError() = 0;
  virtual std::string lastError() = 0;
  /// Starts `op` (its seq numbers the collective, or the message between
  /// the pair, as in a clique of threads).
  virtual std::shared_ptr<Transfer> post(const Op &op) = 0;
  /// Whether `t` is done, its results written; false while it waits, and
  /// after an error (asyncError then says which).
  virtual bool done(Transfer &t) = 0;
  /// Leaves the clique; with `abort`, its peers learn of it (their
  /// asyncError becomes ncclRemoteError) instead of waiting for its parts.
  virtual void leave(bool abort) = 0;
};

/// Whether MPI runs with more than one process, so that a unique id made
/// now names a clique of processes.
bool processesRunning();

/// Starts joining clique `key` as `rank` of `nranks`. Collective over
/// MPI_COMM_WORLD: every process of the job joins, one rank each, and
/// `nranks` must be the job's size.
std::shared_ptr<ProcessLink> joinProcesses(uint64_t key, int nranks, int rank);

} // namespace hostnccl

#endif // SHARDRT_HOSTCUDA_HOSTNCCLPROCESSES_H
