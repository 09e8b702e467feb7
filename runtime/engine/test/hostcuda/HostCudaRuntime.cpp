//===- HostCudaRuntime.cpp - The CUDA runtime, driver and cuBLAS on the host =//
//
// The calls the CUDA backend makes, for its host build (include/): one
// device of host memory, poisoned with NaN bytes when allocated. Work
// issued on a stream (copies, sets, kernels, GEMMs) is queued on it and runs
// only when the host waits for it (see Queue), so a missing synchronise or
// event wait shows as a wrong or missing result. A thread capturing a graph
// records the work it issues on the capturing stream and on the streams joined
// to it by event waits; allocations and synchronisations fail then, as on a
// device. A graph launch runs the records in order. After a failed launch
// (HostCuda.cpp) nothing more runs and every call reports the fault.
// Kernels of the driver API are found by their host launchers
// (`<name>__host`) among the program's symbols and those of the library
// SHARDRT_HOSTCUDA_KERNELS names: the `--emit=kernels` source built by the
// host compiler, loaded on the first module load.
//
//===----------------------------------------------------------------------===//

#include "include/cublas_v2.h"
#include "include/cuda.h"
#include "include/cuda_runtime.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

/// A piece of stream work: true once it is done. Most work is done when it
/// has run once; a step that waits for other threads (an event on another
/// stream, a peer's part of a NCCL operation) says false until it can go on.
using Work = std::function<bool()>;

/// Work issued on a stream and not run yet. It runs, in issue order, when
/// the host waits for it: a synchronise of the stream, of an event recorded
/// on it, or of a stream that waits for such an event. So work that a
/// program forgets to order runs in the wrong order here, or not at all
/// before the host reads its result.
struct Queue {
  std::deque<Work> pending;
  uint64_t issued = 0, done = 0;
  /// A step of it is running: a wait that comes back to the queue (a cycle
  /// of event waits) finds it not ready rather than running out of order.
  bool running = false;
};
struct CUstream_st {
  unsigned flags = 0;
  /// Shared with the events recorded on it and the waits for them, which
  /// may outlive the stream.
  std::shared_ptr<Queue> queue = std::make_shared<Queue>();
  std::thread::id creator = std::this_thread::get_id();
};
struct CUevent_st {
  std::chrono::steady_clock::time_point at;
  /// Where it was last recorded: its queue's issue count then.
  std::shared_ptr<Queue> queue;
  uint64_t mark = 0;
};
struct CUgraph_st {
  std::vector<Work> work;
};
struct CUgraphExec_st {
  std::vector<Work> work;
};
struct CUmod_st {};
struct cublasContext {
  cudaStream_t stream = nullptr;
};

namespace {

/// The graph this thread is capturing into, and the streams it captures:
/// the one it began on (first), then those that waited for an event
/// recorded on a captured stream. Work on other streams runs as usual.
thread_local std::unique_ptr<CUgraph_st> capturing;
thread_local std::vector<cudaStream_t> capturedStreams;
thread_local std::vector<cudaEvent_t> capturedEvents;

bool captures(cudaStream_t stream) {
  return capturing && std::find(capturedStreams.begin(), capturedStreams.end(),
                                stream) != capturedStreams.end();
}

/// The null, legacy and per-thread streams: one queue per host thread.
thread_local std::shared_ptr<Queue> threadQueue = std::make_shared<Queue>();
/// Every live stream. cudaFree waits for those this thread created (on a
/// device it waits for all work; ranks on other threads never share these
/// buffers, and draining their streams here would race with them).
std::mutex streamsMutex;
std::vector<cudaStream_t> liveStreams;

const std::shared_ptr<Queue> &queueOf(cudaStream_t stream) {
  return reinterpret_cast<uintptr_t>(stream) <= 2 ? threadQueue : stream->queue;
}

/// Runs q's work up to `mark`; false if a step could not go on yet.
bool tryDrainTo(Queue &q, uint64_t mark) {
  if (q.running)
    return q.done >= mark;
  q.running = true;
  bool reached = true;
  while (q.done < mark && !q.pending.empty()) {
    if (shardrt_hostcuda::stickyError() == cudaSuccess &&
        !q.pending.front()()) {
      reached = false;
      break;
    }
    q.pending.pop_front();
    ++q.done;
  }
  q.running = false;
  return reached;
}
/// Waits as the host would: until q's steps up to `mark` are done.
void drainTo(Queue &q, uint64_t mark) {
  while (!tryDrainTo(q, mark))
    std::this_thread::sleep_for(std::chrono::microseconds(20));
}
void drain(Queue &q) { drainTo(q, q.issued); }
void drainThread() {
  drain(*threadQueue);
  std::vector<cudaStream_t> own;
  {
    std::lock_guard<std::mutex> lock(streamsMutex);
    for (cudaStream_t s : liveStreams)
      if (s->creator == std::this_thread::get_id())
        own.push_back(s);
  }
  for (cudaStream_t s : own)
    drain(*s->queue);
}

/// Device allocations, so that cudaPointerGetAttributes tells them apart.
std::mutex allocationsMutex;
std::map<uintptr_t, size_t> allocations;

/// Whether [p, p + bytes) lies in one allocation (p itself for 0 bytes).
bool inOneAllocation(const void *p, size_t bytes) {
  std::lock_guard<std::mutex> lock(allocationsMutex);
  auto u = reinterpret_cast<uintptr_t>(p);
  auto it = allocations.upper_bound(u);
  if (it == allocations.begin())
    return false;
  --it;
  size_t size = std::max<size_t>(it->second, 1);
  return u - it->first < size &&
         std::max<size_t>(bytes, 1) <= size - (u - it->first);
}
bool isDevicePointer(const void *p) { return inOneAllocation(p, 1); }

void *allocate(size_t bytes) {
  return std::aligned_alloc(256,
                            (std::max<size_t>(bytes, 1) + 255) / 256 * 256);
}

} // namespace

namespace shardrt_hostcuda {
void enqueueStep(cudaStream_t stream, std::function<bool()> step) {
  if (captures(stream)) {
    capturing->work.push_back(std::move(step));
    return;
  }
  Queue &q = *queueOf(stream);
  q.pending.push_back(std::move(step));
  ++q.issued;
}
void enqueue(cudaStream_t stream, std::function<void()> work) {
  enqueueStep(stream, [work = std::move(work)] {
    work();
    return true;
  });
}
bool isCapturing(cudaStream_t stream) { return captures(stream); }
bool deviceRange(const void *p, size_t bytes) {
  return inOneAllocation(p, bytes);
}
} // namespace shardrt_hostcuda

using shardrt_hostcuda::enqueue;
using shardrt_hostcuda::enqueueStep;
using shardrt_hostcuda::stickyError;

//===----------------------------------------------------------------------===//
// Runtime API
//===----------------------------------------------------------------------===//

cudaError_t cudaGetDeviceCount(int *count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int) {
  if (attr != cudaDevAttrMultiProcessorCount)
    return cudaErrorInvalidValue;
  // Few, so that the backend splits reductions of few outputs into chunks.
  *value = 4;
  return cudaSuccess;
}
const char *cudaGetErrorName(cudaError_t error) {
  switch (error) {
  case cudaSuccess:
    return "cudaSuccess";
  case cudaErrorInvalidValue:
    return "cudaErrorInvalidValue";
  case cudaErrorMemoryAllocation:
    return "cudaErrorMemoryAllocation";
  case cudaErrorLaunchFailure:
    return "cudaErrorLaunchFailure";
  case cudaErrorStreamCaptureUnsupported:
    return "cudaErrorStreamCaptureUnsupported";
  default:
    return "cudaError";
  }
}
const char *cudaGetErrorString(cudaError_t error) {
  return error == cudaSuccess ? "no error" : "an error of the host device";
}

cudaError_t cudaMalloc(void **p, size_t bytes) {
  if (capturing)
    return cudaErrorStreamCaptureUnsupported;
  *p = allocate(bytes);
  if (!*p)
    return cudaErrorMemoryAllocation;
  // Not zeros: f32 NaNs, so a read of memory nothing wrote shows.
  std::memset(*p, 0xFF, bytes);
  std::lock_guard<std::mutex> lock(allocationsMutex);
  allocations[reinterpret_cast<uintptr_t>(*p)] = bytes;
  return cudaSuccess;
}
cudaError_t cudaFree(void *p) {
  if (capturing)
    return cudaErrorStreamCaptureUnsupported;
  if (!p)
    return cudaSuccess;
  {
    std::lock_guard<std::mutex> lock(allocationsMutex);
    if (!allocations.erase(reinterpret_cast<uintptr_t>(p)))
      return cudaErrorInvalidValue;
  }
  drainThread(); // work still queued may use it
  std::free(p);
  return cudaSuccess;
}
cudaError_t cudaMallocHost(void **p, size_t bytes) {
  if (capturing)
    return cudaErrorStreamCaptureUnsupported;
  *p = allocate(bytes);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFreeHost(void *p) {
  if (capturing)
    return cudaErrorStreamCaptureUnsupported;
  if (isDevicePointer(p))
    return cudaErrorInvalidValue;
  drainThread();
  std::free(p);
  return cudaSuccess;
}
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attr,
                                     const void *p) {
  bool device = isDevicePointer(p);
  attr->type = device ? cudaMemoryTypeDevice : cudaMemoryTypeUnregistered;
  attr->device = 0;
  attr->devicePointer = device ? const_cast<void *>(p) : nullptr;
  attr->hostPointer = device ? nullptr : const_cast<void *>(p);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes,
                       cudaMemcpyKind) {
  if (capturing)
    return cudaErrorStreamCaptureUnsupported; // the legacy stream
  drain(*threadQueue);
  if (bytes && stickyError() == cudaSuccess)
    std::memmove(dst, src, bytes);
  return stickyError();
}
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes,
                            cudaMemcpyKind, cudaStream_t stream) {
  enqueue(stream, [=] {
    if (bytes)
      std::memmove(dst, src, bytes);
  });
  return stickyError();
}
cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes,
                            cudaStream_t stream) {
  enqueue(stream, [=] { std::memset(p, value, bytes); });
  return stickyError();
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned flags) {
  *stream = new CUstream_st;
  (*stream)->flags = flags;
  std::lock_guard<std::mutex> lock(streamsMutex);
  liveStreams.push_back(*stream);
  return cudaSuccess;
}
cudaError_t cudaStreamCreate(cudaStream_t *stream) {
  return cudaStreamCreateWithFlags(stream, 0);
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  // Work already issued still runs, as on a device, without the host
  // waiting for it: what cannot go on yet (a NCCL part whose peers never
  // come) is dropped, where a device would finish it later.
  // Waits for its events see it finished.
  Queue &q = *stream->queue;
  if (!tryDrainTo(q, q.issued)) {
    q.pending.clear();
    q.done = q.issued;
  }
  {
    std::lock_guard<std::mutex> lock(streamsMutex);
    liveStreams.erase(
        std::remove(liveStreams.begin(), liveStreams.end(), stream),
        liveStreams.end());
  }
  delete stream;
  return cudaSuccess;
}
/// As cudaFree waits: for this thread's streams (ranks on other threads
/// never share a caller's buffers).
cudaError_t cudaDeviceSynchronize() {
  if (capturing)
    return cudaErrorStreamCaptureUnsupported;
  drainThread();
  return stickyError();
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (captures(stream))
    return cudaErrorStreamCaptureUnsupported;
  drain(*queueOf(stream));
  return stickyError();
}
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                unsigned) {
  // A stream that waits for captured work joins the capture.
  bool captured = std::find(capturedEvents.begin(), capturedEvents.end(),
                            event) != capturedEvents.end();
  if (capturing && captured && !captures(stream))
    capturedStreams.push_back(stream);
  else if (!captured && event->queue && !captures(stream))
    enqueueStep(stream, [queue = event->queue, mark = event->mark] {
      return tryDrainTo(*queue, mark);
    });
  return stickyError();
}

cudaError_t cudaEventCreate(cudaEvent_t *event) {
  *event = new CUevent_st{std::chrono::steady_clock::now(), nullptr, 0};
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned) {
  return cudaEventCreate(event);
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  enqueue(stream, [=] { event->at = std::chrono::steady_clock::now(); });
  if (captures(stream)) {
    capturedEvents.push_back(event);
  } else {
    event->queue = queueOf(stream);
    event->mark = event->queue->issued;
  }
  return stickyError();
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (std::find(capturedEvents.begin(), capturedEvents.end(), event) !=
      capturedEvents.end())
    return cudaErrorStreamCaptureUnsupported;
  if (event->queue)
    drainTo(*event->queue, event->mark);
  return stickyError();
}
/// Ready once its work ran: here, once it is made to run and has finished
/// (a step waiting for another thread leaves it not ready).
cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (std::find(capturedEvents.begin(), capturedEvents.end(), event) !=
      capturedEvents.end())
    return cudaErrorStreamCaptureUnsupported;
  if (event->queue && !tryDrainTo(*event->queue, event->mark) &&
      stickyError() == cudaSuccess)
    return cudaErrorNotReady;
  return stickyError();
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start,
                                 cudaEvent_t end) {
  *ms = std::chrono::duration<float, std::milli>(end->at - start->at).count();
  return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode) {
  if (capturing)
    return cudaErrorStreamCaptureUnsupported;
  capturing = std::make_unique<CUgraph_st>();
  capturedStreams = {stream};
  capturedEvents.clear();
  return cudaSuccess;
}
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph) {
  if (!capturing || stream != capturedStreams.front())
    return cudaErrorInvalidValue;
  *graph = capturing.release();
  capturedStreams.clear();
  capturedEvents.clear();
  return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
                                 unsigned long long) {
  *exec = new CUgraphExec_st{graph->work};
  return cudaSuccess;
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  for (const Work &w : exec->work)
    enqueueStep(stream, w);
  return stickyError();
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  delete exec;
  return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  delete graph;
  return cudaSuccess;
}

//===----------------------------------------------------------------------===//
// Driver API
//===----------------------------------------------------------------------===//

namespace {

/// The library of generated kernels SHARDRT_HOSTCUDA_KERNELS names, loaded
/// once with RTLD_GLOBAL so that their launchers are found by name; false
/// (and why, on stderr) when it does not load.
bool loadKernelLibrary() {
  static const bool loaded = [] {
    const char *path = std::getenv("SHARDRT_HOSTCUDA_KERNELS");
    if (!path || !*path)
      return true; // the program's own kernels only
    if (dlopen(path, RTLD_NOW | RTLD_GLOBAL))
      return true;
    std::fprintf(stderr, "SHARDRT_HOSTCUDA_KERNELS: %s\n", dlerror());
    return false;
  }();
  return loaded;
}

CUresult moduleLoadData(CUmodule *module, const void *) {
  static CUmod_st program;
  if (!loadKernelLibrary())
    return CUDA_ERROR_INVALID_VALUE;
  *module = &program;
  return CUDA_SUCCESS;
}
CUresult moduleUnload(CUmodule) { return CUDA_SUCCESS; }
CUresult moduleGetFunction(CUfunction *fn, CUmodule, const char *name) {
  void *launcher = dlsym(RTLD_DEFAULT, (std::string(name) + "__host").c_str());
  if (!launcher)
    return CUDA_ERROR_NOT_FOUND;
  *fn = static_cast<CUfunction>(launcher);
  return CUDA_SUCCESS;
}
CUresult launchKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz,
                      unsigned bx, unsigned by, unsigned bz, unsigned,
                      CUstream stream, void **params, void **) {
  if (gy != 1 || gz != 1 || by != 1 || bz != 1)
    return CUDA_ERROR_INVALID_VALUE; // shardc's kernels are 1-D
  reinterpret_cast<ShardrtHostKernelFn>(fn)(params, gx, bx, stream);
  return stickyError() == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_LAUNCH_FAILED;
}
CUresult getErrorName(CUresult r, const char **name) {
  *name = r == CUDA_SUCCESS               ? "CUDA_SUCCESS"
          : r == CUDA_ERROR_NOT_FOUND     ? "CUDA_ERROR_NOT_FOUND"
          : r == CUDA_ERROR_LAUNCH_FAILED ? "CUDA_ERROR_LAUNCH_FAILED"
                                          : "CUDA_ERROR_INVALID_VALUE";
  return CUDA_SUCCESS;
}

} // namespace

cudaError_t
cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned,
                                 unsigned long long,
                                 cudaDriverEntryPointQueryResult *status) {
  static const std::map<std::string, void *> entries = {
      {"cuModuleLoadData", reinterpret_cast<void *>(&moduleLoadData)},
      {"cuModuleUnload", reinterpret_cast<void *>(&moduleUnload)},
      {"cuModuleGetFunction", reinterpret_cast<void *>(&moduleGetFunction)},
      {"cuLaunchKernel", reinterpret_cast<void *>(&launchKernel)},
      {"cuGetErrorName", reinterpret_cast<void *>(&getErrorName)},
  };
  auto it = entries.find(symbol);
  *fn = it == entries.end() ? nullptr : it->second;
  *status = it == entries.end() ? cudaDriverEntryPointSymbolNotFound
                                : cudaDriverEntryPointSuccess;
  return cudaSuccess;
}

//===----------------------------------------------------------------------===//
// cuBLAS
//===----------------------------------------------------------------------===//

cublasStatus_t cublasCreate(cublasHandle_t *handle) {
  *handle = new cublasContext;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetMathMode(cublasHandle_t, cublasMath_t) {
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetWorkspace(cublasHandle_t, void *, size_t) {
  return CUBLAS_STATUS_SUCCESS;
}
const char *cublasGetStatusName(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}
const char *cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "success";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "the library was not initialized";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "an unsupported value or parameter was passed to the function";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "the GPU program failed to execute";
  }
  return "unknown status";
}

cublasStatus_t cublasSgemmStridedBatched(
    cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb, int m,
    int n, int k, const float *alpha, const float *a, int lda, long long sa,
    const float *b, int ldb, long long sb, const float *beta, float *c, int ldc,
    long long sc, int batches) {
  // cuBLAS's own checks: the leading dimensions cover the stored rows.
  if (m < 0 || n < 0 || k < 0 || batches < 0 || ldc < std::max(1, m) ||
      lda < std::max(1, ta == CUBLAS_OP_N ? m : k) ||
      ldb < std::max(1, tb == CUBLAS_OP_N ? k : n))
    return CUBLAS_STATUS_INVALID_VALUE;
  // What a device would fault on: a matrix outside device memory.
  auto stored = [](int rows, int cols, int ld, long long stride, int count) {
    if (rows == 0 || cols == 0 || count == 0)
      return size_t(0);
    return (size_t(ld) * size_t(cols - 1) + size_t(rows) +
            size_t(stride) * size_t(count - 1)) *
           sizeof(float);
  };
  bool na = ta == CUBLAS_OP_N, nb = tb == CUBLAS_OP_N;
  size_t aBytes = stored(na ? m : k, na ? k : m, lda, sa, batches),
         bBytes = stored(nb ? k : n, nb ? n : k, ldb, sb, batches),
         cBytes = stored(m, n, ldc, sc, batches);
  if ((aBytes && !shardrt_hostcuda::deviceRange(a, aBytes)) ||
      (bBytes && !shardrt_hostcuda::deviceRange(b, bBytes)) ||
      (cBytes && !shardrt_hostcuda::deviceRange(c, cBytes))) {
    std::fprintf(stderr, "hostcublas: an operand is not device memory\n");
    return CUBLAS_STATUS_EXECUTION_FAILED;
  }
  float al = *alpha, be = *beta; // host pointer mode: read at the call
  enqueue(handle->stream, [=] {
    for (int bi = 0; bi < batches; ++bi) {
      const float *A = a + bi * sa, *B = b + bi * sb;
      float *C = c + bi * sc;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
          double acc = 0;
          for (int p = 0; p < k; ++p) {
            float x = ta == CUBLAS_OP_N ? A[i + size_t(p) * lda]
                                        : A[p + size_t(i) * lda];
            float y = tb == CUBLAS_OP_N ? B[p + size_t(j) * ldb]
                                        : B[j + size_t(p) * ldb];
            acc += double(x) * double(y);
          }
          float &out = C[i + size_t(j) * ldc];
          // beta 0: C is not read (it may hold NaN), as in cuBLAS.
          out = be == 0.0f ? float(al * acc) : float(al * acc) + be * out;
        }
    }
  });
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t ta,
                           cublasOperation_t tb, int m, int n, int k,
                           const float *alpha, const float *a, int lda,
                           const float *b, int ldb, const float *beta, float *c,
                           int ldc) {
  return cublasSgemmStridedBatched(handle, ta, tb, m, n, k, alpha, a, lda, 0, b,
                                   ldb, 0, beta, c, ldc, 0, 1);
}
