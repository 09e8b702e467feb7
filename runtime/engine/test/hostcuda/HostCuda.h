//===- HostCuda.h - Blocks of CUDA threads as host fibers -------*- C++ -*-===//
//
// The host side of include/cuda_runtime.h: runs kernels built against it.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDRT_HOSTCUDA_HOSTCUDA_H
#define SHARDRT_HOSTCUDA_HOSTCUDA_H

namespace shardrt_hostcuda {
/// Runs `body(context)` as every thread of `grid` blocks of `threads` (at
/// most 1024); null on success, else why the launch failed (the message
/// lives until the next launch).
const char *runBlocks(unsigned grid, unsigned threads, void (*body)(void *),
                      void *context);
/// Clears a failed launch's sticky error, as cudaDeviceReset would.
void resetDevice();
} // namespace shardrt_hostcuda

#endif // SHARDRT_HOSTCUDA_HOSTCUDA_H
