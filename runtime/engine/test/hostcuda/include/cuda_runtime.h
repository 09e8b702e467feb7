//===- cuda_runtime.h - Generated kernels compiled for the host -*- C++ -*-===//
//
// Stands in for CUDA's header when the C++ compiler builds shardc's
// generated kernels (`--emit=kernels`) into a host shared library, so that
// shardrt-host-kernel-check can run them on the CPU against the CPU
// backend's evaluation of the same fused bodies. Each kernel becomes a plain
// function that runs one CUDA thread: the checker runs a block's 256 threads
// as fibers of one host thread and the blocks one after another, so
// `__shared__` storage is a static local and `__syncthreads` switches to the
// next fiber until all have reached it. The device builtins the generator
// uses get their host meaning.
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

// The checker runs each CUDA thread as a fiber of one host thread and sets
// its place before switching to it.
static uint3 threadIdx, blockIdx;
static dim3 blockDim, gridDim;
static void (*shardcHostBarrier)(void);

extern "C" void shardcHostEnter(unsigned thread, unsigned block,
                                unsigned threads, unsigned blocks) {
  threadIdx = {thread, 0, 0};
  blockIdx = {block, 0, 0};
  blockDim = {threads, 1, 1};
  gridDim = {blocks, 1, 1};
}

/// `barrier` switches back to the checker until every fiber of the block
/// has reached it.
extern "C" void shardcHostSetBarrier(void (*barrier)(void)) {
  shardcHostBarrier = barrier;
}

static inline void __syncthreads() { shardcHostBarrier(); }
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
template <typename T> static inline T __ldg(const T *p) { return *p; }
template <typename T> static inline T __ldcg(const T *p) { return *p; }
static inline unsigned atomicAdd(unsigned *p, unsigned v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }

#endif // SHARDRT_HOSTCUDA_CUDA_RUNTIME_H
