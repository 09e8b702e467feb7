//===- Device.cu ----------------------------------------------------------===//

#include "shardrt/cuda/Device.h"

#include <cuda_runtime.h>

#include <string>

namespace shardrt::cuda {

Status deviceCount(int *count) {
  if (!count)
    return Status::invalidArgument("deviceCount: count is null");
  *count = 0;
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess)
    return Status::unavailable(
        cudaCallStatus(err, "cudaGetDeviceCount").message());
  *count = n;
  return Status();
}

Status cudaCallStatus(int error, const std::string &call) {
  auto err = static_cast<cudaError_t>(error);
  (void)cudaGetLastError();
  bool unavailable = err == cudaErrorMemoryAllocation ||
                     err == cudaErrorNoDevice ||
                     err == cudaErrorInsufficientDriver;
  std::string message =
      call + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err);
  return unavailable ? Status::unavailable(message) : Status::internal(message);
}

Status copyAnyMemory(void *dst, const void *src, std::size_t bytes) {
  // Unified addressing tells host from device pointers. A plain cudaMemcpy
  // may return before a device-to-device or pageable host-to-device copy
  // lands, and runs on the legacy stream (which the sessions' non-blocking
  // streams do not wait for, and which would break a graph capture); the
  // thread's own stream, synchronised, puts the message in place (and out
  // of the sender's buffer) before the call returns, as the local
  // backend's isend promises.
  cudaError_t err =
      cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, cudaStreamPerThread);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(cudaStreamPerThread);
  return err == cudaSuccess
             ? Status()
             : cudaCallStatus(err, "cudaMemcpyAsync(" + std::to_string(bytes) +
                                       " bytes, cudaMemcpyDefault)");
}

} // namespace shardrt::cuda
