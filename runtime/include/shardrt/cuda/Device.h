//===- Device.h - CUDA device queries ---------------------------*- C++ -*-===//
//
// Declared without CUDA headers so that host-only code can call into the CUDA
// backend without the toolkit on its include path.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_CUDA_DEVICE_H
#define SHARDRT_CUDA_DEVICE_H

#include "shardrt/Status.h"

#include <cstddef>
#include <string>

namespace shardrt::cuda {

/// Number of CUDA devices visible to this process. When CUDA cannot be used
/// (no driver, no device) *count is set to 0 and an Unavailable status
/// carries CUDA's own message; a missing GPU is a condition to report, not a
/// crash.
Status deviceCount(int *count);

/// The Status of a failed CUDA runtime call (`error` is its cudaError_t):
/// "call: cudaErrorName: description". Unavailable when the machine cannot
/// run it (no device, old driver, out of memory), Internal otherwise. Clears
/// CUDA's last error so that a later, unrelated call does not report it.
Status cudaCallStatus(int error, const std::string &call);

/// Copies `bytes` bytes between host or device buffers of this process
/// (cudaMemcpyAsync with cudaMemcpyDefault on the thread's stream, then
/// synchronised); returns when the copy is done. The
/// `local` communicator of CUDA ranks on one GPU moves messages with it
/// (comm::CommOptions::copyBytes).
Status copyAnyMemory(void *dst, const void *src, std::size_t bytes);

} // namespace shardrt::cuda

#endif // SHARDRT_CUDA_DEVICE_H
