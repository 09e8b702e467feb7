//===- NcclMpi.h - NCCL communicators bootstrapped over MPI -----*- C++ -*-===//
//
// Under mpirun or srun: rank 0 of MPI_COMM_WORLD creates the NCCL unique id
// and broadcasts it; every process then joins with its world rank. The
// bootstrap runs over an `mpi` communicator (its own duplicate of the
// world, errors returned, every wait under options.comm.timeout), and the
// ranks agree on each step's outcome, so a failure on one rank is a status
// on all of them, never a hang. Library shardrt_comm_nccl_mpi (built when
// both NCCL and MPI are found).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_COMM_NCCLMPI_H
#define SHARDRT_COMM_NCCLMPI_H

#include "shardrt/comm/Nccl.h"

namespace shardrt::comm {

/// Collective over MPI_COMM_WORLD (initialising MPI if needed). With
/// `deviceByLocalRank`, options.device is replaced by this process's rank
/// among the processes of its node, modulo the node's device count. The
/// device the communicator is on goes to `*chosenDevice` where given.
/// Every rank returns the same outcome: a communicator, or a status.
StatusOr<std::unique_ptr<Communicator>>
createNcclCommunicatorOverMpi(NcclOptions options = {},
                              bool deviceByLocalRank = true,
                              int *chosenDevice = nullptr);

} // namespace shardrt::comm

#endif // SHARDRT_COMM_NCCLMPI_H
