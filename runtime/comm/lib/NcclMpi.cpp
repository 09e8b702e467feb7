//===- NcclMpi.cpp - NCCL communicators bootstrapped over MPI -------------===//
//
// The bootstrap talks over an `mpi` communicator of its own (a duplicate of
// MPI_COMM_WORLD whose errors return and whose every wait has the
// options' deadline), never over MPI_COMM_WORLD directly: a rank that fails
// or never arrives turns into a status on the others, not a hang. Every
// rank runs the same collectives whatever fails locally, and all of them
// agree on the outcome before any joins NCCL.
//
//===----------------------------------------------------------------------===//

#include "shardrt/comm/NcclMpi.h"
#include "shardrt/comm/Mpi.h"

#include <cuda_runtime.h>
#include <mpi.h>

#include <array>
#include <cstring>
#include <string>

namespace shardrt::comm {

namespace {

/// `s` where it failed, else whether any other rank failed: every rank
/// leaves together (a failing rank keeps its own message; the others learn
/// only that one failed).
Status agree(Communicator &boot, const Status &s, const char *what) {
  std::int32_t failed = s.ok() ? 0 : 1, any = 0;
  SHARDRT_RETURN_IF_ERROR(
      boot.allReduce(&failed, &any, 1, DataType::I32, ReduceOp::Max));
  if (!s.ok())
    return s;
  if (any)
    return Status::unavailable(std::string("nccl over mpi: another rank ") +
                               what);
  return Status();
}

} // namespace

StatusOr<std::unique_ptr<Communicator>>
createNcclCommunicatorOverMpi(NcclOptions options, bool deviceByLocalRank,
                              int *chosenDevice) {
  StatusOr<std::unique_ptr<Communicator>> boot =
      createMpiCommunicator(options.comm);
  if (!boot.ok())
    return Status(boot.status().code(),
                  "nccl over mpi: " + boot.status().message());
  Communicator &c = **boot;
  Status device;
  if (deviceByLocalRank) {
    StatusOr<int> local = nodeLocalRank(c);
    int devices = 0;
    if (!local.ok()) {
      device = local.status(); // every rank took part in the gather
    } else if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      (void)cudaGetLastError();
      device = Status::unavailable("nccl over mpi: no CUDA device on this "
                                   "node");
    } else {
      options.device = *local % devices;
    }
  }
  if (device.ok())
    if (cudaError_t e = cudaSetDevice(options.device); e != cudaSuccess) {
      (void)cudaGetLastError();
      device = Status::unavailable("nccl over mpi: cannot use CUDA device " +
                                   std::to_string(options.device) + ": " +
                                   cudaGetErrorString(e));
    }
  SHARDRT_RETURN_IF_ERROR(agree(c, device, "cannot use a CUDA device"));
  // Rank 0's id, with whether it has one, reaches every rank.
  std::array<std::uint8_t, 1 + sizeof(NcclId)> message{};
  Status created;
  if (c.rank() == 0) {
    StatusOr<NcclId> id = createNcclId();
    created = id.status();
    message[0] = id.ok();
    if (id.ok())
      std::memcpy(message.data() + 1, id->data(), id->size());
  }
  SHARDRT_RETURN_IF_ERROR(
      c.broadcast(message.data(), int64_t(message.size()), DataType::Byte, 0));
  if (!message[0])
    return created.ok() ? Status::unavailable("nccl over mpi: rank 0 could "
                                              "not create the NCCL unique id")
                        : created;
  NcclId id{};
  std::memcpy(id.data(), message.data() + 1, id.size());
  // Joining may fail (or time out) on some ranks only: all learn of it.
  StatusOr<std::unique_ptr<Communicator>> joined =
      createNcclCommunicator(id, c.rank(), c.size(), options);
  Status outcome = agree(c, joined.status(), "could not join NCCL");
  if (!outcome.ok()) {
    if (joined.ok())
      (*joined)->abort(outcome);
    return outcome;
  }
  if (chosenDevice)
    *chosenDevice = options.device;
  return joined;
}

} // namespace shardrt::comm
