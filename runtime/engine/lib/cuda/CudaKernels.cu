//===- CudaKernels.cu - The CUDA backend's own small kernels --------------===//
//
// Generated kernels (fused regions) come from the artifact; these are the
// fixed ones the backend needs around library calls, for data movement,
// and for the ops whose math lives in a host-tested plan header.
//
//===----------------------------------------------------------------------===//

#include "CudaSupport.h"
#include "InterpolatePlan.h"
#include "NeighborhoodPlan.h"

#include <algorithm>

namespace shardrt::exec::cuda {
namespace {

constexpr int kThreads = 256;

/// Grid-stride loops: a bounded grid covers any n.
unsigned gridFor(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  return unsigned(std::min<int64_t>(std::max<int64_t>(blocks, 1), 65535));
}

__global__ void fillKernel(float *data, long long n, float value) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    data[i] = value;
}

__global__ void addBiasKernel(float *y, const float *__restrict__ bias,
                              long long rows, long long cols) {
  long long n = rows * cols;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    y[i] += bias[i % cols];
}

/// The destination side of `p` set to `value`.
__global__ void fillBoxKernel(float *__restrict__ dst, BoxCopyPlan p,
                              float value) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < p.count; i += (long long)gridDim.x * blockDim.x) {
    long long s, d;
    boxCopyOffsets(p, i, s, d);
    dst[d] = value;
  }
}

template <typename T>
__global__ void copyBoxKernel(T *__restrict__ dst, const T *__restrict__ src,
                              BoxCopyPlan p) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < p.count; i += (long long)gridDim.x * blockDim.x) {
    long long s, d;
    boxCopyOffsets(p, i, s, d);
    dst[d] = src[s];
  }
}

__global__ void interpolateKernel(float *__restrict__ y,
                                  const float *__restrict__ x,
                                  InterpolateView v) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < v.count; i += (long long)gridDim.x * blockDim.x)
    y[i] = interpolateAt(v, x, i);
}

/// One thread per (query, head) row.
__global__ void neighborhoodKernel(float *__restrict__ y,
                                   const float *__restrict__ q,
                                   const float *__restrict__ k,
                                   const float *__restrict__ v,
                                   NeighborhoodView view) {
  for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       r < view.rows; r += (long long)gridDim.x * blockDim.x)
    attendRow(view, q, k, v, y, r);
}

/// The copy of elements of T's size (the bytes are only moved).
template <typename T>
void launchCopyBoxOf(void *dst, const void *src, const BoxCopyPlan &p,
                     cudaStream_t stream) {
  copyBoxKernel<<<gridFor(p.count), kThreads, 0, stream>>>(
      static_cast<T *>(dst), static_cast<const T *>(src), p);
}

} // namespace

cudaError_t launchCopyBox(void *dst, const void *src, const BoxCopyPlan &p,
                          size_t elemBytes, cudaStream_t stream) {
  if (p.count == 0)
    return cudaSuccess;
  switch (elemBytes) {
  case 1:
    launchCopyBoxOf<uint8_t>(dst, src, p, stream);
    break;
  case 2:
    launchCopyBoxOf<uint16_t>(dst, src, p, stream);
    break;
  case 4:
    launchCopyBoxOf<uint32_t>(dst, src, p, stream);
    break;
  case 8:
    launchCopyBoxOf<uint64_t>(dst, src, p, stream);
    break;
  default:
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launchFill(float *data, int64_t n, float value,
                       cudaStream_t stream) {
  if (n <= 0)
    return cudaSuccess;
  fillKernel<<<gridFor(n), kThreads, 0, stream>>>(data, n, value);
  return cudaGetLastError();
}

cudaError_t launchFillBox(float *data, const BoxCopyPlan &p, float value,
                          cudaStream_t stream) {
  if (p.count <= 0)
    return cudaSuccess;
  fillBoxKernel<<<gridFor(p.count), kThreads, 0, stream>>>(data, p, value);
  return cudaGetLastError();
}

cudaError_t launchInterpolate(float *y, const float *x,
                              const InterpolateView &view,
                              cudaStream_t stream) {
  if (view.count <= 0)
    return cudaSuccess;
  interpolateKernel<<<gridFor(view.count), kThreads, 0, stream>>>(y, x, view);
  return cudaGetLastError();
}

cudaError_t launchNeighborhoodAttention(float *y, const float *q,
                                        const float *k, const float *v,
                                        const NeighborhoodView &view,
                                        cudaStream_t stream) {
  if (view.rows <= 0)
    return cudaSuccess;
  neighborhoodKernel<<<gridFor(view.rows), kThreads, 0, stream>>>(y, q, k, v,
                                                                  view);
  return cudaGetLastError();
}

cudaError_t launchAddBias(float *y, const float *bias, int64_t rows,
                          int64_t cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0)
    return cudaSuccess;
  addBiasKernel<<<gridFor(rows * cols), kThreads, 0, stream>>>(y, bias, rows,
                                                               cols);
  return cudaGetLastError();
}

} // namespace shardrt::exec::cuda
