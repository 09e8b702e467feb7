//===- CudaExchange.h - Halo exchanges on the device ------------*- C++ -*-===//
//
// A halo exchange in two halves, so that the interior of the op it feeds
// runs on the session's stream while the halo moves:
//  - start: the box-copy kernel packs every send into device staging on the
//    session's stream, and an event marks the end of the packing;
//  - finish: the exchange's own stream waits for that event (and copies
//    the packed boxes to pinned host staging when the communicator takes
//    host buffers only), the host waits for that stream and hands the boxes
//    to the communicator (device to device for nccl and device-aware local
//    worlds), the receives come back (through the exchange's stream from
//    the host), and the session's stream waits for them before the kernel
//    unpacks them.
// A blocking exchange runs both halves in one step; a started one runs
// start at its HaloExchange and finish at its Wait, with the consumer's
// interior enqueued between them. Nothing is in flight between the halves,
// so a run that fails there leaves nothing to drain.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_CUDA_CUDAEXCHANGE_H
#define SHARDRT_ENGINE_CUDA_CUDAEXCHANGE_H

#include "CudaSupport.h"

#include <vector>

namespace shardrt::exec::cuda {

/// Page-locked host memory, so that staging copies run at full speed.
struct PinnedBuffer {
  void *data = nullptr;
  size_t bytes = 0;
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer &) = delete;
  PinnedBuffer &operator=(const PinnedBuffer &) = delete;
  ~PinnedBuffer() {
    if (data)
      cudaFreeHost(data);
  }
};

/// One exchange's boxes and staging. The backend owns the device staging,
/// the pinned buffer, the events and the streams; they outlive the steps.
struct DeviceExchange {
  std::vector<BoxTransfer> transfers;
  std::vector<size_t> offsets; ///< of each transfer in the staging
  /// Per transfer: its box between its slot and the device staging.
  std::vector<BoxCopyPlan> plans;
  size_t bytes = 0;
  char *device = nullptr;
  /// The boxes go to the communicator from `device` (it takes device
  /// buffers), else from the pinned `host`.
  bool onDevice = false;
  PinnedBuffer *host = nullptr;
  cudaStream_t stream = nullptr;    ///< the session's
  cudaStream_t ownStream = nullptr; ///< the exchange's copies
  cudaEvent_t packed = nullptr, received = nullptr;

  /// Lays out the staging of `transfers` and plans their box copies; false
  /// when the box-copy kernel cannot move one of them (element sizes or
  /// ranks it does not copy).
  bool plan(std::vector<BoxTransfer> transfers);
  Status start(RunContext &rc);
  Status finish(RunContext &rc);

private:
  /// Packs (send) or unpacks (receive) transfer i between its slot and the
  /// device staging, on the session's stream.
  Status move(RunContext &rc, size_t i);
};

} // namespace shardrt::exec::cuda

#endif // SHARDRT_ENGINE_CUDA_CUDAEXCHANGE_H
