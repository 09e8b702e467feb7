//===- NcclMpi.cpp - NCCL communicators bootstrapped over MPI -------------===//

#include "shardrt/comm/NcclMpi.h"
#include "shardrt/comm/Mpi.h"

#include <cuda_runtime.h>
#include <mpi.h>

namespace shardrt::comm {

StatusOr<std::unique_ptr<Communicator>>
createNcclCommunicatorOverMpi(NcclOptions options, bool deviceByLocalRank) {
  SHARDRT_RETURN_IF_ERROR(initializeMpi());
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (deviceByLocalRank) {
    MPI_Comm node = MPI_COMM_NULL;
    int local = 0, devices = 0;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                            MPI_INFO_NULL, &node) != MPI_SUCCESS)
      return Status::unavailable("nccl over mpi: cannot find this node's "
                                 "processes (MPI_Comm_split_type)");
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      (void)cudaGetLastError();
      return Status::unavailable("nccl over mpi: no CUDA device on this node");
    }
    options.device = local % devices;
  }
  // Rank 0's id, or its failure, reaches every rank: nobody waits alone.
  NcclId id{};
  int ok = 1;
  if (rank == 0) {
    StatusOr<NcclId> created = createNcclId();
    ok = created.ok();
    if (ok)
      id = *created;
  }
  if (MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS ||
      MPI_Bcast(id.data(), int(id.size()), MPI_BYTE, 0, MPI_COMM_WORLD) !=
          MPI_SUCCESS)
    return Status::unavailable("nccl over mpi: broadcasting the unique id "
                               "failed");
  if (!ok)
    return Status::unavailable("nccl over mpi: rank 0 could not create the "
                               "NCCL unique id");
  return createNcclCommunicator(id, rank, size, options);
}

} // namespace shardrt::comm
