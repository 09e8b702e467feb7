//===- cuda_runtime.h - CUDA kernels compiled for the host ------*- C++ -*-===//
//
// Stands in for CUDA's header when the host C++ compiler builds kernels:
// shardc's generated ones (`--emit=kernels`, into a library that
// shardrt-host-kernel-check loads) and the CUDA backend's own
// (CudaKernels.cu, into the engine's unit tests). Each kernel becomes a
// plain function that runs one CUDA thread; HostCuda.cpp runs a block's
// threads as fibers of one host thread and the blocks one after another, so
// `__shared__` storage is a static local and `__syncthreads` switches to the
// next fiber until all have reached it. The device builtins the kernels use
// get their host meaning; the variables and functions declared here are
// defined by HostCuda.cpp in the program that runs them.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDRT_HOSTCUDA_CUDA_RUNTIME_H
#define SHARDRT_HOSTCUDA_CUDA_RUNTIME_H

#include <math.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__ static

struct uint3 {
  unsigned x, y, z;
};
typedef uint3 dim3;

extern "C" {
extern uint3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;
void shardcHostSyncThreads(void);
float shardcHostShuffleXor(float x, int laneMask);
}

static inline void __syncthreads() { shardcHostSyncThreads(); }
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
template <typename T> static inline T __ldg(const T *p) { return *p; }
template <typename T> static inline T __ldcg(const T *p) { return *p; }
static inline unsigned atomicAdd(unsigned *p, unsigned v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
/// Every thread of the block must call it together (a block-wide barrier
/// stands in for the warp's).
static inline float __shfl_xor_sync(unsigned, float x, int laneMask) {
  return shardcHostShuffleXor(x, laneMask);
}

// The runtime API as far as launchers use it.
enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorLaunchFailure = 719
};
typedef struct CUstream_st *cudaStream_t;

namespace shardrt_hostcuda {
/// Runs `body(context)` as every thread of `grid` blocks of `threads`;
/// empty, or why the launch failed (a barrier not every thread reaches).
const char *runBlocks(unsigned grid, unsigned threads, void (*body)(void *),
                      void *context);
/// The last launch's error on this thread, then cudaSuccess.
cudaError_t takeLastError();

template <typename Kernel> struct Launcher {
  unsigned grid, threads;
  Kernel kernel;
  template <typename... Args> void operator()(Args... args) {
    auto call = [&] { kernel(args...); };
    runBlocks(
        grid, threads, [](void *c) { (*static_cast<decltype(call) *>(c))(); },
        &call);
  }
};
/// The stream is ignored: a launch runs before it returns.
template <typename Kernel>
Launcher<Kernel> launcher(unsigned grid, unsigned threads, cudaStream_t,
                          Kernel kernel) {
  return {grid, threads, kernel};
}
} // namespace shardrt_hostcuda

static inline cudaError_t cudaGetLastError() {
  return shardrt_hostcuda::takeLastError();
}

/// kernel<<<grid, threads, 0, stream>>>(args...) on the host.
#define SHARDRT_HOSTCUDA_LAUNCH(kernel, grid, threads, stream)                 \
  ::shardrt_hostcuda::launcher(grid, threads, stream,                          \
                               [](auto... a) { kernel(a...); })

#endif // SHARDRT_HOSTCUDA_CUDA_RUNTIME_H
