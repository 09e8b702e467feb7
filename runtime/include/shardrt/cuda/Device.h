//===- Device.h - CUDA device queries ---------------------------*- C++ -*-===//
//
// Declared without CUDA headers so that host-only code can call into the CUDA
// backend without the toolkit on its include path.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_CUDA_DEVICE_H
#define SHARDRT_CUDA_DEVICE_H

#include "shardrt/Status.h"

namespace shardrt::cuda {

/// Number of CUDA devices visible to this process. When CUDA cannot be used
/// (no driver, no device) *count is set to 0 and an Unavailable status
/// carries CUDA's own message; a missing GPU is a condition to report, not a
/// crash.
Status deviceCount(int *count);

} // namespace shardrt::cuda

#endif // SHARDRT_CUDA_DEVICE_H
