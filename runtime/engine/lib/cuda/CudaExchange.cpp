//===- CudaExchange.cpp - Halo exchanges on the device --------------------===//

#include "CudaExchange.h"

#include "shardrt/comm/Communicator.h"

namespace shardrt::exec::cuda {

bool DeviceExchange::plan(std::vector<BoxTransfer> all) {
  static const int64_t zeros[kMaxBoxRank] = {};
  transfers = std::move(all);
  for (const BoxTransfer &t : transfers) {
    bool size = t.elemBytes == 1 || t.elemBytes == 2 || t.elemBytes == 4 ||
                t.elemBytes == 8;
    BoxView slot{t.slotShape.data(), t.lo.data()}, packed{t.box.data(), zeros};
    BoxCopyPlan p;
    if (!size || t.slotShape.size() != t.box.size() ||
        !(t.send
              ? planBoxCopy(packed, slot, t.box.data(), int(t.box.size()), p)
              : planBoxCopy(slot, packed, t.box.data(), int(t.box.size()), p)))
      return false;
    plans.push_back(p);
    offsets.push_back(bytes);
    bytes += (t.bytes + 255) / 256 * 256;
  }
  return true;
}

Status DeviceExchange::move(RunContext &rc, size_t i) {
  const BoxTransfer &t = transfers[i];
  void *staged = device + offsets[i];
  SHARDRT_CUDA_TRY(t.send ? launchCopyBox(staged, rc.slots[t.slot], plans[i],
                                          t.elemBytes, stream)
                          : launchCopyBox(rc.slots[t.slot], staged, plans[i],
                                          t.elemBytes, stream));
  return Status();
}

Status DeviceExchange::start(RunContext &rc) {
  SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "an exchange"));
  for (size_t i = 0; i < transfers.size(); ++i)
    if (transfers[i].send && transfers[i].bytes)
      SHARDRT_RETURN_IF_ERROR(move(rc, i));
  SHARDRT_CUDA_TRY(cudaEventRecord(packed, stream));
  return Status();
}

Status DeviceExchange::finish(RunContext &rc) {
  SHARDRT_RETURN_IF_ERROR(needsCommunicator(rc, "an exchange"));
  // An exchange of empty boxes has no staging on either side.
  char *buffers = onDevice || !host ? device : static_cast<char *>(host->data);
  SHARDRT_CUDA_TRY(cudaStreamWaitEvent(ownStream, packed, 0));
  for (size_t i = 0; !onDevice && i < transfers.size(); ++i)
    if (transfers[i].send && transfers[i].bytes)
      SHARDRT_CUDA_TRY(cudaMemcpyAsync(buffers + offsets[i],
                                       device + offsets[i], transfers[i].bytes,
                                       cudaMemcpyDeviceToHost, ownStream));
  // The communicator reads the sends from the host's side of the streams.
  SHARDRT_CUDA_TRY(cudaStreamSynchronize(ownStream));
  // Receives first, so that a local peer's send lands in place.
  std::vector<comm::Request> requests;
  for (bool send : {false, true})
    for (size_t i = 0; i < transfers.size(); ++i) {
      const BoxTransfer &t = transfers[i];
      if (t.send != send)
        continue;
      char *at = buffers + offsets[i];
      StatusOr<comm::Request> r =
          send ? rc.comm->isend(at, t.bytes, t.peer, t.tag)
               : rc.comm->irecv(at, t.bytes, t.peer, t.tag);
      if (!r.ok())
        return r.status(); // requests withdraw as they go out of scope
      requests.push_back(std::move(*r));
    }
  SHARDRT_RETURN_IF_ERROR(rc.comm->waitAll(
      comm::Span<comm::Request>(requests.data(), requests.size())));
  // Received boxes are on the device (the communicator's wait covers its
  // own streams), or reach it on the exchange's stream.
  if (!onDevice) {
    for (size_t i = 0; i < transfers.size(); ++i)
      if (!transfers[i].send && transfers[i].bytes)
        SHARDRT_CUDA_TRY(cudaMemcpyAsync(
            device + offsets[i], buffers + offsets[i], transfers[i].bytes,
            cudaMemcpyHostToDevice, ownStream));
    SHARDRT_CUDA_TRY(cudaEventRecord(received, ownStream));
    SHARDRT_CUDA_TRY(cudaStreamWaitEvent(stream, received, 0));
  }
  for (size_t i = 0; i < transfers.size(); ++i)
    if (!transfers[i].send && transfers[i].bytes)
      SHARDRT_RETURN_IF_ERROR(move(rc, i));
  return Status();
}

} // namespace shardrt::exec::cuda
