//===- CudaSupport.h - State and helpers of the CUDA backend ----*- C++ -*-===//
//
// Shared by CudaBackend.cpp (memory, streams, graphs, generated kernels,
// host-staged steps) and CudaLibrarySteps.cpp (cuBLAS, cuDNN). Error codes
// of every CUDA library become a Status naming the call; nothing aborts.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_CUDA_CUDASUPPORT_H
#define SHARDRT_ENGINE_CUDA_CUDASUPPORT_H

#include "../Prepare.h"
#include "BoxCopyPlan.h"
#include "CudaLaunch.h"
#include "shardrt/Status.h"
#include "shardrt/comm/Communicator.h"
#include "shardrt/cuda/Device.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#ifdef SHARDRT_HAVE_CUDNN
#include <cudnn.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace shardrt::exec::cuda {

Status cublasStatus(cublasStatus_t err, const char *call);
#ifdef SHARDRT_HAVE_CUDNN
Status cudnnStatus(cudnnStatus_t err, const char *call);
#endif

#define SHARDRT_CUDA_TRY(call)                                                 \
  do {                                                                         \
    cudaError_t shardrt_err_ = (call);                                         \
    if (shardrt_err_ != cudaSuccess)                                           \
      return ::shardrt::cuda::cudaCallStatus(shardrt_err_, #call);             \
  } while (0)
#define SHARDRT_CUBLAS_TRY(call)                                               \
  do {                                                                         \
    cublasStatus_t shardrt_err_ = (call);                                      \
    if (shardrt_err_ != CUBLAS_STATUS_SUCCESS)                                 \
      return ::shardrt::exec::cuda::cublasStatus(shardrt_err_, #call);         \
  } while (0)
#define SHARDRT_CUDNN_TRY(call)                                                \
  do {                                                                         \
    cudnnStatus_t shardrt_err_ = (call);                                       \
    if (shardrt_err_ != CUDNN_STATUS_SUCCESS)                                  \
      return ::shardrt::exec::cuda::cudnnStatus(shardrt_err_, #call);          \
  } while (0)

/// What the library steps need of their session's backend. Owned by the
/// backend, which outlives every step it prepared.
struct LibraryContext {
  cudaStream_t stream = nullptr;
  bool allowTf32 = false;
  /// Created on first use (creating a cuDNN handle costs ~100 ms).
  StatusOr<cublasHandle_t> cublas();
#ifdef SHARDRT_HAVE_CUDNN
  StatusOr<cudnnHandle_t> cudnn();
#endif
  /// Scratch shared by all steps of a run (they are stream-ordered).
  /// Steps record what they need while being prepared; the backend
  /// allocates the largest before the first run.
  void needWorkspace(size_t bytes) {
    workspaceBytes = std::max(workspaceBytes, bytes);
  }
  void *workspace = nullptr;
  size_t workspaceBytes = 0;

  /// Device buffers the RingAttention steps share, sized like the
  /// workspace: the two buffers each that passed key and value blocks land
  /// in, the running state, and in the balanced causal schedule the two
  /// buffers queries land in and the partial state made and received.
  /// Sharing is safe: a ring drains the stream before it receives into
  /// them, and its kernels are stream-ordered.
  struct RingArea {
    size_t keyBytes = 0, valueBytes = 0, stateBytes = 0;
    size_t queryBytes = 0, partialBytes = 0;
    float *keys[2] = {nullptr, nullptr}, *values[2] = {nullptr, nullptr};
    float *state = nullptr;
    float *queries[2] = {nullptr, nullptr}, *partial[2] = {nullptr, nullptr};
    size_t bytes() const {
      return 2 * keyBytes + 2 * valueBytes + stateBytes + 2 * queryBytes +
             2 * partialBytes;
    }
  } ring;
  void needRingArea(size_t keyBytes, size_t valueBytes, size_t stateBytes,
                    size_t queryBytes = 0, size_t partialBytes = 0) {
    // Each buffer starts 256-byte aligned, as cudaMalloc's do.
    auto aligned = [](size_t bytes) { return (bytes + 255) / 256 * 256; };
    ring.keyBytes = std::max(ring.keyBytes, aligned(keyBytes));
    ring.valueBytes = std::max(ring.valueBytes, aligned(valueBytes));
    ring.stateBytes = std::max(ring.stateBytes, aligned(stateBytes));
    ring.queryBytes = std::max(ring.queryBytes, aligned(queryBytes));
    ring.partialBytes = std::max(ring.partialBytes, aligned(partialBytes));
  }
  /// Points the ring area's buffers into `base` (ring.bytes() bytes).
  void placeRingArea(void *base) {
    char *at = static_cast<char *>(base);
    // Two buffers of `bytes` each, null where none is needed.
    auto placePair = [&](float *(&pair)[2], size_t bytes) {
      for (float *&buffer : pair) {
        buffer = bytes ? reinterpret_cast<float *>(at) : nullptr;
        at += bytes;
      }
    };
    for (float *&buffer : ring.keys) {
      buffer = reinterpret_cast<float *>(at);
      at += ring.keyBytes;
    }
    placePair(ring.values, ring.valueBytes);
    ring.state = reinterpret_cast<float *>(at);
    at += ring.stateBytes;
    placePair(ring.queries, ring.queryBytes);
    placePair(ring.partial, ring.partialBytes);
  }
  void *ringBase = nullptr;

  /// Destroys the handles (before the stream they were bound to goes).
  void destroyHandles();
  ~LibraryContext() { destroyHandles(); }

private:
  Status setUpCublas(cublasHandle_t h);
  cublasHandle_t cublas_ = nullptr;
  void *cublasWorkspace_ = nullptr;
#ifdef SHARDRT_HAVE_CUDNN
  cudnnHandle_t cudnn_ = nullptr;
#endif
};

/// A native step for `inst`, or a null RunFn when this family has none for
/// its shapes (the caller then stages it through the host). `inst` has
/// passed the CPU backend's checks.
StatusOr<RunFn> prepareBlasStep(const fb::Instruction &inst,
                                const PrepareContext &ctx, LibraryContext &lib);
StatusOr<RunFn> prepareDnnStep(const fb::Instruction &inst,
                               const PrepareContext &ctx, LibraryContext &lib);
/// A decoded Pool through cuDNN where cuDNN shares PyTorch's rules for it,
/// else a null RunFn; an error where a cuDNN call fails setting it up
/// (CudaLibrarySteps.cpp).
StatusOr<RunFn> prepareDnnPool(const PoolStep &step, const Shape &x,
                               const Shape &y, LibraryContext &lib);
/// CudaPool.cpp: a Pool through cuDNN where it applies, else our kernel.
StatusOr<RunFn> preparePoolStep(const fb::Instruction &inst,
                                const PrepareContext &ctx, LibraryContext &lib);

/// Copies `bytes` of host data to device memory that lives as long as the
/// session (the backend's placeConstant).
using UploadFn = std::function<StatusOr<void *>(const void *, size_t)>;
/// CudaDataMovement.cpp: a Pad (constant f32, or reflect, replicate,
/// circular), a Slice, a Permute, a Concat, a BroadcastTo.
StatusOr<RunFn> prepareMoveStep(const fb::Instruction &inst,
                                const PrepareContext &ctx, cudaStream_t stream,
                                const UploadFn &upload);
/// CudaPredicates.cpp: a Compare, a Select or a Cast (f32, bool, bf16, f16,
/// int64).
StatusOr<RunFn> preparePredicateStep(const fb::Instruction &inst,
                                     const PrepareContext &ctx,
                                     cudaStream_t stream);
/// CudaInterpolate.cpp: an Interpolate (every mode) with its tables on the
/// device.
StatusOr<RunFn> prepareInterpolateStep(const fb::Instruction &inst,
                                       const PrepareContext &ctx,
                                       cudaStream_t stream,
                                       const UploadFn &upload);

/// Device scratch of `bytes` bytes that lives as long as the session.
using ScratchFn = std::function<StatusOr<void *>(size_t)>;
/// CudaScan.cpp: a Scan (every kind, from earlier shards' totals or not)
/// or a ScanTotals; carries and chunk totals live in `scratch`.
StatusOr<RunFn> prepareScanStep(const fb::Instruction &inst,
                                const PrepareContext &ctx, cudaStream_t stream,
                                const ScratchFn &scratch);
/// CudaNeighborhood.cpp: a NeighborhoodAttention with its window tables
/// on the device.
StatusOr<RunFn> prepareNeighborhoodStep(const fb::Instruction &inst,
                                        const PrepareContext &ctx,
                                        cudaStream_t stream,
                                        const UploadFn &upload);
/// CudaAttention.cpp: an Attention (scaled dot-product attention) as
/// cuBLAS GEMMs around a masked softmax kernel, its mask offsets on the
/// device and its scores in the shared workspace.
StatusOr<RunFn> prepareAttentionStep(const fb::Instruction &inst,
                                     const PrepareContext &ctx,
                                     LibraryContext &lib,
                                     const UploadFn &upload);
/// CudaRing.cpp: a RingAttention on the device (cuBLAS GEMMs around the
/// ring row kernel, blocks passed between the shared ring area's buffers),
/// when it has one member or the session's communicator takes device
/// buffers (a null RunFn otherwise, or where a block's sizes pass cuBLAS's
/// int: the step is staged). `communicates` says whether it posts
/// transfers (then it waits for them on the host).
StatusOr<RunFn> prepareRingStep(const fb::Instruction &inst,
                                const PrepareContext &ctx, LibraryContext &lib,
                                const UploadFn &upload, bool &communicates);
/// CudaCollectives.cpp: an AllGather, AllReduce, ReduceScatter, AllToAll
/// or Broadcast on device memory, when the session's communicator takes
/// device buffers (a null RunFn otherwise: the step is staged).
StatusOr<RunFn> prepareCollectiveStep(const fb::Instruction &inst,
                                      const PrepareContext &ctx,
                                      cudaStream_t stream,
                                      const ScratchFn &scratch);

} // namespace shardrt::exec::cuda

#endif // SHARDRT_ENGINE_CUDA_CUDASUPPORT_H
