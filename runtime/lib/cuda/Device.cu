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
  if (err != cudaSuccess) {
    // Clear the error so that it does not surface from an unrelated later
    // call through cudaGetLastError.
    (void)cudaGetLastError();
    return Status::unavailable(std::string("cudaGetDeviceCount failed: ") +
                               cudaGetErrorName(err) + ": " +
                               cudaGetErrorString(err));
  }
  *count = n;
  return Status();
}

} // namespace shardrt::cuda
