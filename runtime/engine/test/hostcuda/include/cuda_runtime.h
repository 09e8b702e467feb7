//===- cuda_runtime.h - CUDA kernels compiled for the host ------*- C++ -*-===//
//
// Stands in for CUDA's header when the host C++ compiler builds CUDA code:
// shardc's generated kernels (`--emit=kernels`, into a library that
// shardrt-host-kernel-check or shard-run-hostcuda loads) and the CUDA
// backend itself (CudaKernels.cu and the backend's host code, for the unit
// tests and shard-run-hostcuda). Each kernel becomes a
// plain function that runs one CUDA thread; HostCuda.cpp runs a block's
// threads as fibers of one host thread and the blocks one after another, so
// `__shared__` storage is a static thread_local (ranks on other host threads
// launch the same kernels at once) and `__syncthreads` switches to the next
// fiber until all have reached it. The device builtins the kernels use
// get their host meaning; the variables and functions declared here are
// defined by HostCuda.cpp (kernels) and HostCudaRuntime.cpp (the runtime
// API) in the program that runs them.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDRT_HOSTCUDA_CUDA_RUNTIME_H
#define SHARDRT_HOSTCUDA_CUDA_RUNTIME_H

// What includes this builds for the host (CudaLaunch.h, shardc's kernels).
#ifndef SHARDRT_HOSTCUDA
#define SHARDRT_HOSTCUDA 1
#endif

#include <math.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__ static thread_local

struct uint3 {
  unsigned x, y, z;
};
typedef uint3 dim3;

extern "C" {
// Per host thread: ranks on threads of one process launch at once.
extern thread_local uint3 threadIdx, blockIdx;
extern thread_local dim3 blockDim, gridDim;
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

// The runtime API as far as shardrt uses it (HostCudaRuntime.cpp): one
// device whose memory is host memory; work on a stream runs when it is
// issued (a valid order of what was issued), unless the issuing thread is
// capturing a graph, which records it to run at each graph launch.
#include <stddef.h>

#ifdef __cplusplus
#include <functional>
#endif

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorLaunchFailure = 719,
  cudaErrorStreamCaptureUnsupported = 900,
};
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaStreamNonBlocking 0x01
#define cudaEventDisableTiming 0x02
#define cudaEnableDefault 0

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};
enum cudaMemoryType {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3,
};
struct cudaPointerAttributes {
  enum cudaMemoryType type;
  int device;
  void *devicePointer;
  void *hostPointer;
};
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16 };
enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};
enum cudaDriverEntryPointQueryResult {
  cudaDriverEntryPointSuccess = 0,
  cudaDriverEntryPointSymbolNotFound = 1,
};

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);
const char *cudaGetErrorName(cudaError_t error);
const char *cudaGetErrorString(cudaError_t error);
cudaError_t cudaMalloc(void **p, size_t bytes);
cudaError_t cudaFree(void *p);
cudaError_t cudaMallocHost(void **p, size_t bytes);
// cuda_runtime.h's typed overloads.
template <typename T> cudaError_t cudaMalloc(T **p, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void **>(p), bytes);
}
template <typename T> cudaError_t cudaMallocHost(T **p, size_t bytes) {
  return cudaMallocHost(reinterpret_cast<void **>(p), bytes);
}
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attr,
                                     const void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes,
                       cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes,
                            cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes,
                            cudaStream_t stream = 0);
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                unsigned flags = 0);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaStreamBeginCapture(cudaStream_t stream,
                                   cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
                                 unsigned long long flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
/// The driver entry points of cuda.h's stand-in (HostCudaDriver).
cudaError_t
cudaGetDriverEntryPointByVersion(const char *symbol, void **fn,
                                 unsigned version, unsigned long long flags,
                                 cudaDriverEntryPointQueryResult *status);

namespace shardrt_hostcuda {
/// Runs `body(context)` as every thread of `grid` blocks of `threads`;
/// null, or why the launch failed (a barrier not every thread reaches),
/// which every later runtime call reports.
const char *runBlocks(unsigned grid, unsigned threads, void (*body)(void *),
                      void *context);
/// The last launch's error on this thread, then cudaSuccess; once a launch
/// has failed, cudaErrorLaunchFailure for good (a fault is sticky).
cudaError_t takeLastError();
/// cudaErrorLaunchFailure once a launch has failed, else cudaSuccess.
cudaError_t stickyError();
/// Clears a failed launch's sticky error, as cudaDeviceReset would.
void resetDevice();
/// Queues `work` on `stream`, or records it when this thread is capturing a
/// graph on it.
void enqueue(cudaStream_t stream, std::function<void()> work);
/// The same for a step that may have to wait for other threads: it is
/// called until it returns true, and the stream's later work waits for it.
void enqueueStep(cudaStream_t stream, std::function<bool()> step);
/// Whether this thread is capturing a graph that records `stream`'s work.
bool isCapturing(cudaStream_t stream);
/// Whether [p, p + bytes) lies inside one live device allocation: what a
/// library call may touch without faulting on a device.
bool deviceRange(const void *p, size_t bytes);

template <typename Kernel> struct Launcher {
  unsigned grid, threads;
  cudaStream_t stream;
  Kernel kernel;
  /// The arguments are copied, as a launch copies them.
  template <typename... Args> void operator()(Args... args) {
    unsigned g = grid, t = threads;
    Kernel k = kernel;
    enqueue(stream, [=] {
      auto call = [&] { k(args...); };
      runBlocks(
          g, t, [](void *c) { (*static_cast<decltype(call) *>(c))(); }, &call);
    });
  }
};
template <typename Kernel>
Launcher<Kernel> launcher(unsigned grid, unsigned threads, cudaStream_t stream,
                          Kernel kernel) {
  return {grid, threads, stream, kernel};
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
