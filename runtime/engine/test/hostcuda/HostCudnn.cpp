//===- HostCudnn.cpp - cuDNN's convolutions and pooling on the host -------===//
//
// include/cudnn.h's calls, with the library's own rules where a caller
// could get them wrong: descriptors are checked as cuDNN checks them (4- or
// 5-d tensors, positive extents and strides, group counts that divide the
// channels, an output whose extents are exactly the convolution's), every
// tensor a call reads or writes must lie in device memory, inputs may not
// overlap the output, and the workspace must be as large as the algorithm
// asked for. The algorithm ranking puts, as on Ampere and later, a TF32
// tensor-core algorithm first, one whose workspace no one would grant and
// one that is not supported before the FP32 ones; a convolution run under a
// math type that permits TF32 rounds its operands to TF32, so a caller that
// forgets to forbid it loses digits. The algorithm's workspace is
// overwritten with NaN bytes before and after it computes: an output or
// input placed in it shows.
//
// The arithmetic is HostCudnnLoops.cpp's plain loops, independent of the
// CPU backend's kernels that the tests compare against. Only
// cross-correlation is emulated: convolution mode (a flipped kernel) is
// refused as not supported, since shardrt never asks for it.
//
//===----------------------------------------------------------------------===//

#include "HostCudnnLoops.h"
#include "include/cudnn.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <vector>

using namespace hostcudnn;

struct cudnnContext {
  cudaStream_t stream = nullptr;
};
struct cudnnTensorStruct {
  int nb = 0; // 0 until set
  int dims[CUDNN_DIM_MAX], strides[CUDNN_DIM_MAX];
};
struct cudnnFilterStruct {
  int nb = 0;
  int dims[CUDNN_DIM_MAX];
};
struct cudnnConvolutionStruct {
  int spatial = 0; // 0 until set
  int pad[CUDNN_DIM_MAX], stride[CUDNN_DIM_MAX], dilation[CUDNN_DIM_MAX];
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  int groups = 1;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};
struct cudnnPoolingStruct {
  int spatial = 0;
  cudnnPoolingMode_t mode = CUDNN_POOLING_MAX;
  cudnnNanPropagation_t nan = CUDNN_NOT_PROPAGATE_NAN;
  int window[CUDNN_DIM_MAX], pad[CUDNN_DIM_MAX], stride[CUDNN_DIM_MAX];
};

namespace {

/// Elements from a tensor's start to one past its last.
int64_t extentOf(const cudnnTensorStruct &t) {
  int64_t last = 0;
  for (int d = 0; d < t.nb; ++d)
    last += int64_t(t.dims[d] - 1) * t.strides[d];
  return last + 1;
}

bool set(const cudnnTensorStruct *t) { return t && t->nb != 0; }

/// Whether `p` holds `elements` floats of device memory; says which did not.
bool onDevice(const char *call, const char *what, const void *p,
              int64_t elements) {
  if (p && shardrt_hostcuda::deviceRange(p, size_t(elements) * sizeof(float)))
    return true;
  std::fprintf(stderr,
               "hostcudnn: %s: %s (%p, %lld floats) does not lie in one "
               "device allocation\n",
               call, what, p, static_cast<long long>(elements));
  return false;
}

bool overlap(const void *a, int64_t aElements, const void *b,
             int64_t bElements) {
  auto ua = reinterpret_cast<uintptr_t>(a), ub = reinterpret_cast<uintptr_t>(b);
  return ua < ub + size_t(bElements) * sizeof(float) &&
         ub < ua + size_t(aElements) * sizeof(float);
}

bool permitsTf32(cudnnMathType_t math) { return math != CUDNN_FMA_MATH; }

//===----------------------------------------------------------------------===//
// Convolution problems
//===----------------------------------------------------------------------===//

/// Checks `in`, `w` and `conv` against each other and, when `out` is given,
/// against its extents, as cudnnGetConvolutionNdForwardOutputDim and the
/// calls that run a convolution do.
cudnnStatus_t makeProblem(const cudnnTensorStruct *in,
                          const cudnnFilterStruct *w,
                          const cudnnConvolutionStruct *conv,
                          const cudnnTensorStruct *out, ConvProblem &p) {
  if (!set(in) || !w || !w->nb || !conv || !conv->spatial || (out && !set(out)))
    return CUDNN_STATUS_BAD_PARAM;
  int nb = in->nb;
  if (nb < 4 || nb > 5)
    return CUDNN_STATUS_NOT_SUPPORTED;
  if (w->nb != nb || conv->spatial != nb - 2 || (out && out->nb != nb) ||
      in->dims[1] != w->dims[1] * conv->groups || w->dims[0] % conv->groups)
    return CUDNN_STATUS_BAD_PARAM;
  p.in = geometryOf(in->dims, in->strides, nb);
  p.groups = conv->groups;
  int lead = kSpatial - (nb - 2);
  int outDims[CUDNN_DIM_MAX] = {in->dims[0], w->dims[0]};
  for (int d = 0; d < nb - 2; ++d) {
    p.kernel[lead + d] = w->dims[d + 2];
    p.pad[lead + d] = conv->pad[d];
    p.stride[lead + d] = conv->stride[d];
    p.dilation[lead + d] = conv->dilation[d];
    int64_t e = convOutExtent(in->dims[d + 2], w->dims[d + 2], conv->pad[d],
                              conv->stride[d], conv->dilation[d]);
    if (e < 1)
      return CUDNN_STATUS_BAD_PARAM;
    outDims[d + 2] = int(e);
  }
  if (out) {
    if (!std::equal(outDims, outDims + nb, out->dims))
      return CUDNN_STATUS_BAD_PARAM;
    p.out = geometryOf(out->dims, out->strides, nb);
  } else {
    std::vector<int> dense(size_t(nb), 1);
    p.out = geometryOf(outDims, dense.data(), nb);
  }
  return CUDNN_STATUS_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Algorithms and workspaces
//===----------------------------------------------------------------------===//

constexpr size_t kUngrantable = size_t(3) << 30;

/// The workspace an algorithm asks for; false where it is not supported.
bool fwdWorkspace(const ConvProblem &p, cudnnConvolutionFwdAlgo_t algo,
                  size_t &bytes) {
  switch (algo) {
  case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
    bytes = 0;
    return true;
  case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
    bytes = size_t(p.in.c / p.groups * p.kernelVolume()) * 64 + 1024;
    return true;
  case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
    bytes = kUngrantable;
    return true;
  case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
    bytes = 4096;
    return true;
  default:
    return false;
  }
}
bool bwdWorkspace(const ConvProblem &p, cudnnConvolutionBwdDataAlgo_t algo,
                  size_t &bytes) {
  switch (algo) {
  case CUDNN_CONVOLUTION_BWD_DATA_ALGO_0:
    bytes = 0;
    return true;
  case CUDNN_CONVOLUTION_BWD_DATA_ALGO_1:
    bytes = size_t(p.out.c / p.groups * p.kernelVolume()) * 64 + 1024;
    return true;
  case CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT:
    bytes = kUngrantable;
    return true;
  case CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED:
    bytes = 4096;
    return true;
  default:
    return false;
  }
}

/// Whether `algo` computes through a Winograd transform, which the stand-in
/// emulates by rounding the operands as TF32 does: a caller that keeps f32
/// exact must not pick it (the real transform loses about 1e-6 to 1e-5).
bool isTransform(cudnnConvolutionFwdAlgo_t algo) {
  return algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}
bool isTransform(cudnnConvolutionBwdDataAlgo_t algo) {
  return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
}

/// Fills a ranking as Ampere's cuDNN would order it for float data: TF32
/// first, then an algorithm whose workspace is too large to grant, one
/// that is not supported, a fast Winograd transform, then the exact FP32
/// ones (the last one not deterministic).
template <typename Perf, typename Algo>
void rank(Perf *perf, int requested, int *returned, Algo best, Algo huge,
          Algo unsupported, Algo transform, Algo plain, size_t bestBytes) {
  Perf all[6] = {};
  all[0] = {best,      CUDNN_STATUS_SUCCESS, 0.1f,
            bestBytes, CUDNN_DETERMINISTIC,  CUDNN_TENSOR_OP_MATH,
            {}};
  all[1] = {huge,
            CUDNN_STATUS_SUCCESS,
            0.2f,
            kUngrantable,
            CUDNN_DETERMINISTIC,
            CUDNN_DEFAULT_MATH,
            {}};
  all[2] = {unsupported,         CUDNN_STATUS_NOT_SUPPORTED, -1.0f, 0,
            CUDNN_DETERMINISTIC, CUDNN_DEFAULT_MATH,         {}};
  all[3] = {transform,           CUDNN_STATUS_SUCCESS, 0.25f, 4096,
            CUDNN_DETERMINISTIC, CUDNN_DEFAULT_MATH,   {}};
  all[4] = {best,      CUDNN_STATUS_SUCCESS, 0.3f,
            bestBytes, CUDNN_DETERMINISTIC,  CUDNN_DEFAULT_MATH,
            {}};
  all[5] = {plain, CUDNN_STATUS_SUCCESS,    0.4f,
            0,     CUDNN_NON_DETERMINISTIC, CUDNN_DEFAULT_MATH,
            {}};
  *returned = std::max(0, std::min(requested, 6));
  std::copy(all, all + *returned, perf);
}

/// NaN bytes over the algorithm's scratch.
void scribble(void *workspace, size_t bytes) {
  if (bytes)
    std::memset(workspace, 0xFF, bytes);
}

/// What a running call checks of its operands: device memory, and no
/// input or workspace under the output.
struct Operand {
  const char *what;
  const void *p;
  int64_t elements;
};
cudnnStatus_t checkOperands(const char *call, const Operand &out,
                            std::initializer_list<Operand> inputs) {
  if (!onDevice(call, out.what, out.p, out.elements))
    return CUDNN_STATUS_EXECUTION_FAILED;
  for (const Operand &in : inputs) {
    if (!onDevice(call, in.what, in.p, in.elements))
      return CUDNN_STATUS_EXECUTION_FAILED;
    if (overlap(in.p, in.elements, out.p, out.elements)) {
      std::fprintf(stderr, "hostcudnn: %s: %s overlaps %s\n", call, in.what,
                   out.what);
      return CUDNN_STATUS_BAD_PARAM;
    }
  }
  return CUDNN_STATUS_SUCCESS;
}

int64_t filterElements(const cudnnFilterStruct *w) {
  int64_t n = 1;
  for (int d = 0; d < w->nb; ++d)
    n *= w->dims[d];
  return n;
}

/// Runs `compute(alpha, beta)` on the handle's stream between NaN
/// scribbles over the `need` bytes of workspace it asked for, once the
/// operands pass checkOperands and the workspace is large enough and apart
/// from the output and the data input.
template <typename Compute>
cudnnStatus_t launchConvolution(const char *call, cudnnHandle_t handle,
                                const Operand &out, const Operand &in,
                                const Operand &weights, void *workspace,
                                size_t granted, size_t need, const void *alpha,
                                const void *beta, Compute compute) {
  if (granted < need || (need && !workspace))
    return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t s = checkOperands(call, out, {in, weights}))
    return s;
  int64_t scratch = int64_t((need + sizeof(float) - 1) / sizeof(float));
  if (need)
    if (cudnnStatus_t s = checkOperands(call, {"workspace", workspace, scratch},
                                        {out, in, weights}))
      return s;
  float al = *static_cast<const float *>(alpha),
        be = *static_cast<const float *>(beta);
  shardrt_hostcuda::enqueue(handle->stream, [=] {
    scribble(workspace, need);
    compute(al, be);
    scribble(workspace, need);
  });
  return CUDNN_STATUS_SUCCESS;
}

} // namespace

//===----------------------------------------------------------------------===//
// Handles and descriptors
//===----------------------------------------------------------------------===//

const char *cudnnGetErrorString(cudnnStatus_t status) {
  switch (status) {
  case CUDNN_STATUS_SUCCESS:
    return "CUDNN_STATUS_SUCCESS";
  case CUDNN_STATUS_NOT_INITIALIZED:
    return "CUDNN_STATUS_NOT_INITIALIZED";
  case CUDNN_STATUS_BAD_PARAM:
    return "CUDNN_STATUS_BAD_PARAM";
  case CUDNN_STATUS_BAD_PARAM_NULL_POINTER:
    return "CUDNN_STATUS_BAD_PARAM_NULL_POINTER";
  case CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH:
    return "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH";
  case CUDNN_STATUS_NOT_SUPPORTED:
    return "CUDNN_STATUS_NOT_SUPPORTED";
  case CUDNN_STATUS_EXECUTION_FAILED:
    return "CUDNN_STATUS_EXECUTION_FAILED";
  }
  return "CUDNN_STATUS_UNKNOWN";
}

cudnnStatus_t cudnnCreate(cudnnHandle_t *handle) {
  if (!handle)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  *handle = new cudnnContext;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  delete handle;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t stream) {
  if (!handle)
    return CUDNN_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return CUDNN_STATUS_SUCCESS;
}

namespace {
template <typename T> cudnnStatus_t create(T **desc) {
  if (!desc)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  *desc = new T;
  return CUDNN_STATUS_SUCCESS;
}
} // namespace
cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *desc) {
  return create(desc);
}
cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t desc) {
  delete desc;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *desc) {
  return create(desc);
}
cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t desc) {
  delete desc;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t
cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *desc) {
  return create(desc);
}
cudnnStatus_t
cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t desc) {
  delete desc;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t *desc) {
  return create(desc);
}
cudnnStatus_t cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t desc) {
  delete desc;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t desc,
                                         cudnnDataType_t dataType, int nbDims,
                                         const int dimA[],
                                         const int strideA[]) {
  if (!desc || !dimA || !strideA)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (dataType != CUDNN_DATA_FLOAT || nbDims < 3 || nbDims > CUDNN_DIM_MAX)
    return CUDNN_STATUS_NOT_SUPPORTED;
  int64_t elements = 1;
  for (int d = 0; d < nbDims; ++d) {
    if (dimA[d] < 1 || strideA[d] < 1)
      return CUDNN_STATUS_BAD_PARAM;
    elements *= dimA[d];
  }
  // The strided span, not only the elements, must fit an int.
  int64_t span = 1;
  for (int d = 0; d < nbDims; ++d)
    span += int64_t(dimA[d] - 1) * strideA[d];
  if (elements > std::numeric_limits<int32_t>::max() ||
      span > std::numeric_limits<int32_t>::max())
    return CUDNN_STATUS_NOT_SUPPORTED;
  desc->nb = nbDims;
  std::copy(dimA, dimA + nbDims, desc->dims);
  std::copy(strideA, strideA + nbDims, desc->strides);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t desc,
                                         cudnnDataType_t dataType,
                                         cudnnTensorFormat_t format, int nbDims,
                                         const int filterDimA[]) {
  if (!desc || !filterDimA)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (dataType != CUDNN_DATA_FLOAT || format != CUDNN_TENSOR_NCHW ||
      nbDims < 3 || nbDims > CUDNN_DIM_MAX)
    return CUDNN_STATUS_NOT_SUPPORTED;
  for (int d = 0; d < nbDims; ++d)
    if (filterDimA[d] < 1)
      return CUDNN_STATUS_BAD_PARAM;
  desc->nb = nbDims;
  std::copy(filterDimA, filterDimA + nbDims, desc->dims);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t desc,
                                              int arrayLength, const int padA[],
                                              const int filterStrideA[],
                                              const int dilationA[],
                                              cudnnConvolutionMode_t mode,
                                              cudnnDataType_t computeType) {
  if (!desc || !padA || !filterStrideA || !dilationA)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (arrayLength < 1 || arrayLength > CUDNN_DIM_MAX - 2 ||
      (mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION))
    return CUDNN_STATUS_BAD_PARAM;
  if (computeType != CUDNN_DATA_FLOAT || mode != CUDNN_CROSS_CORRELATION)
    return CUDNN_STATUS_NOT_SUPPORTED;
  for (int d = 0; d < arrayLength; ++d)
    if (padA[d] < 0 || filterStrideA[d] < 1 || dilationA[d] < 1)
      return CUDNN_STATUS_BAD_PARAM;
  desc->spatial = arrayLength;
  std::copy(padA, padA + arrayLength, desc->pad);
  std::copy(filterStrideA, filterStrideA + arrayLength, desc->stride);
  std::copy(dilationA, dilationA + arrayLength, desc->dilation);
  desc->mode = mode;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t desc,
                                            int groupCount) {
  if (!desc || groupCount < 1)
    return CUDNN_STATUS_BAD_PARAM;
  desc->groups = groupCount;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t desc,
                                          cudnnMathType_t mathType) {
  if (!desc || mathType < CUDNN_DEFAULT_MATH || mathType > CUDNN_FMA_MATH)
    return CUDNN_STATUS_BAD_PARAM;
  desc->math = mathType;
  return CUDNN_STATUS_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

cudnnStatus_t cudnnGetConvolutionNdForwardOutputDim(
    const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t inputTensorDesc,
    const cudnnFilterDescriptor_t filterDesc, int nbDims,
    int tensorOuputDimA[]) {
  ConvProblem p;
  if (cudnnStatus_t s =
          makeProblem(inputTensorDesc, filterDesc, convDesc, nullptr, p))
    return s;
  if (nbDims != inputTensorDesc->nb || !tensorOuputDimA)
    return CUDNN_STATUS_BAD_PARAM;
  tensorOuputDimA[0] = int(p.out.n);
  tensorOuputDimA[1] = int(p.out.c);
  for (int d = 2; d < nbDims; ++d)
    tensorOuputDimA[d] = int(p.out.sp[kSpatial - nbDims + d]);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc,
    const cudnnFilterDescriptor_t filterDesc,
    const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t destDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults) {
  ConvProblem p;
  if (!handle || !returnedAlgoCount || !perfResults)
    return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t s = makeProblem(srcDesc, filterDesc, convDesc, destDesc, p))
    return s;
  size_t bytes = 0;
  fwdWorkspace(p, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, bytes);
  rank(perfResults, requestedAlgoCount, returnedAlgoCount,
       CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
       CUDNN_CONVOLUTION_FWD_ALGO_GEMM, CUDNN_CONVOLUTION_FWD_ALGO_FFT,
       CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED,
       CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, bytes);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
    const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t yDesc, cudnnConvolutionFwdAlgo_t algo,
    size_t *sizeInBytes) {
  ConvProblem p;
  if (!handle || !sizeInBytes)
    return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t s = makeProblem(xDesc, wDesc, convDesc, yDesc, p))
    return s;
  return fwdWorkspace(p, algo, *sizeInBytes) ? CUDNN_STATUS_SUCCESS
                                             : CUDNN_STATUS_NOT_SUPPORTED;
}

cudnnStatus_t
cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha,
                        const cudnnTensorDescriptor_t xDesc, const void *x,
                        const cudnnFilterDescriptor_t wDesc, const void *w,
                        const cudnnConvolutionDescriptor_t convDesc,
                        cudnnConvolutionFwdAlgo_t algo, void *workSpace,
                        size_t workSpaceSizeInBytes, const void *beta,
                        const cudnnTensorDescriptor_t yDesc, void *y) {
  ConvProblem p;
  if (!handle || !alpha || !beta)
    return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t s = makeProblem(xDesc, wDesc, convDesc, yDesc, p))
    return s;
  size_t need = 0;
  if (!fwdWorkspace(p, algo, need))
    return CUDNN_STATUS_NOT_SUPPORTED;
  return launchConvolution(
      "cudnnConvolutionForward", handle, {"y", y, extentOf(*yDesc)},
      {"x", x, extentOf(*xDesc)}, {"w", w, filterElements(wDesc)}, workSpace,
      workSpaceSizeInBytes, need, alpha, beta,
      [=, tf32 = permitsTf32(convDesc->math) || isTransform(algo)](float al,
                                                                   float be) {
        convForward(p, static_cast<const float *>(x),
                    static_cast<const float *>(w), static_cast<float *>(y), al,
                    be, tf32);
      });
}

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc,
    const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t gradDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults) {
  ConvProblem p;
  if (!handle || !returnedAlgoCount || !perfResults)
    return CUDNN_STATUS_BAD_PARAM;
  // The forward convolution runs from dx (grad) to dy (diff).
  if (cudnnStatus_t s =
          makeProblem(gradDesc, filterDesc, convDesc, diffDesc, p))
    return s;
  size_t bytes = 0;
  bwdWorkspace(p, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, bytes);
  rank(perfResults, requestedAlgoCount, returnedAlgoCount,
       CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT,
       CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD,
       CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED,
       CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, bytes);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
    const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t dxDesc, cudnnConvolutionBwdDataAlgo_t algo,
    size_t *sizeInBytes) {
  ConvProblem p;
  if (!handle || !sizeInBytes)
    return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t s = makeProblem(dxDesc, wDesc, convDesc, dyDesc, p))
    return s;
  return bwdWorkspace(p, algo, *sizeInBytes) ? CUDNN_STATUS_SUCCESS
                                             : CUDNN_STATUS_NOT_SUPPORTED;
}

cudnnStatus_t cudnnConvolutionBackwardData(
    cudnnHandle_t handle, const void *alpha,
    const cudnnFilterDescriptor_t wDesc, const void *w,
    const cudnnTensorDescriptor_t dyDesc, const void *dy,
    const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionBwdDataAlgo_t algo, void *workSpace,
    size_t workSpaceSizeInBytes, const void *beta,
    const cudnnTensorDescriptor_t dxDesc, void *dx) {
  ConvProblem p;
  if (!handle || !alpha || !beta)
    return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t s = makeProblem(dxDesc, wDesc, convDesc, dyDesc, p))
    return s;
  size_t need = 0;
  if (!bwdWorkspace(p, algo, need))
    return CUDNN_STATUS_NOT_SUPPORTED;
  return launchConvolution(
      "cudnnConvolutionBackwardData", handle, {"dx", dx, extentOf(*dxDesc)},
      {"dy", dy, extentOf(*dyDesc)}, {"w", w, filterElements(wDesc)}, workSpace,
      workSpaceSizeInBytes, need, alpha, beta,
      [=, tf32 = permitsTf32(convDesc->math) || isTransform(algo)](float al,
                                                                   float be) {
        convBackwardData(p, static_cast<const float *>(w),
                         static_cast<const float *>(dy),
                         static_cast<float *>(dx), al, be, tf32);
      });
}

//===----------------------------------------------------------------------===//
// Tensor addition
//===----------------------------------------------------------------------===//

cudnnStatus_t cudnnAddTensor(cudnnHandle_t handle, const void *alpha,
                             const cudnnTensorDescriptor_t aDesc, const void *A,
                             const void *beta,
                             const cudnnTensorDescriptor_t cDesc, void *C) {
  if (!handle || !alpha || !beta || !set(aDesc) || !set(cDesc))
    return CUDNN_STATUS_BAD_PARAM;
  // Up to 5 dims; each of A's is C's or 1.
  int nb = cDesc->nb;
  if (aDesc->nb != nb || nb > 5)
    return CUDNN_STATUS_NOT_SUPPORTED;
  for (int d = 0; d < nb; ++d)
    if (aDesc->dims[d] != cDesc->dims[d] && aDesc->dims[d] != 1)
      return CUDNN_STATUS_NOT_SUPPORTED;
  if (cudnnStatus_t s =
          checkOperands("cudnnAddTensor", {"C", C, extentOf(*cDesc)},
                        {{"A", A, extentOf(*aDesc)}}))
    return s;
  float al = *static_cast<const float *>(alpha),
        be = *static_cast<const float *>(beta);
  cudnnTensorStruct a = *aDesc, c = *cDesc;
  const auto *af = static_cast<const float *>(A);
  auto *cf = static_cast<float *>(C);
  shardrt_hostcuda::enqueue(handle->stream, [=] {
    int64_t count = 1;
    for (int d = 0; d < nb; ++d)
      count *= c.dims[d];
    for (int64_t i = 0; i < count; ++i) {
      int64_t rest = i, ai = 0, ci = 0;
      for (int d = nb - 1; d >= 0; --d) {
        int64_t idx = rest % c.dims[d];
        rest /= c.dims[d];
        ci += idx * c.strides[d];
        ai += (a.dims[d] == 1 ? 0 : idx) * a.strides[d];
      }
      float v = al * af[ai];
      cf[ci] = be == 0.0f ? v : v + be * cf[ci];
    }
  });
  return CUDNN_STATUS_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

cudnnStatus_t cudnnSetPoolingNdDescriptor(
    cudnnPoolingDescriptor_t desc, const cudnnPoolingMode_t mode,
    const cudnnNanPropagation_t maxpoolingNanOpt, int nbDims,
    const int windowDimA[], const int paddingA[], const int strideA[]) {
  if (!desc || !windowDimA || !paddingA || !strideA)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (nbDims < 1 || nbDims > kSpatial || mode < CUDNN_POOLING_MAX ||
      mode > CUDNN_POOLING_MAX_DETERMINISTIC)
    return CUDNN_STATUS_BAD_PARAM;
  for (int d = 0; d < nbDims; ++d)
    if (windowDimA[d] < 1 || paddingA[d] < 0 || strideA[d] < 1)
      return CUDNN_STATUS_BAD_PARAM;
  desc->spatial = nbDims;
  desc->mode = mode;
  desc->nan = maxpoolingNanOpt;
  std::copy(windowDimA, windowDimA + nbDims, desc->window);
  std::copy(paddingA, paddingA + nbDims, desc->pad);
  std::copy(strideA, strideA + nbDims, desc->stride);
  return CUDNN_STATUS_SUCCESS;
}

namespace {
/// The pooled extents of x, or false where the descriptors disagree.
bool poolOutDims(const cudnnPoolingStruct *pool, const cudnnTensorStruct *x,
                 int *out) {
  if (!pool || !pool->spatial || !set(x) || x->nb != pool->spatial + 2 ||
      x->nb < 4)
    return false;
  out[0] = x->dims[0];
  out[1] = x->dims[1];
  for (int d = 0; d < pool->spatial; ++d) {
    int64_t e = convOutExtent(x->dims[d + 2], pool->window[d], pool->pad[d],
                              pool->stride[d], 1);
    if (e < 1)
      return false;
    out[d + 2] = int(e);
  }
  return true;
}
} // namespace

cudnnStatus_t
cudnnGetPoolingNdForwardOutputDim(const cudnnPoolingDescriptor_t poolingDesc,
                                  const cudnnTensorDescriptor_t inputTensorDesc,
                                  int nbDims, int outputTensorDimA[]) {
  int out[CUDNN_DIM_MAX];
  if (!outputTensorDimA || !poolOutDims(poolingDesc, inputTensorDesc, out) ||
      nbDims != inputTensorDesc->nb)
    return CUDNN_STATUS_BAD_PARAM;
  std::copy(out, out + nbDims, outputTensorDimA);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnPoolingForward(
    cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc,
    const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
    const void *beta, const cudnnTensorDescriptor_t yDesc, void *y) {
  int out[CUDNN_DIM_MAX];
  if (!handle || !alpha || !beta || !set(yDesc) ||
      !poolOutDims(poolingDesc, xDesc, out) || yDesc->nb != xDesc->nb ||
      !std::equal(out, out + xDesc->nb, yDesc->dims))
    return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t s =
          checkOperands("cudnnPoolingForward", {"y", y, extentOf(*yDesc)},
                        {{"x", x, extentOf(*xDesc)}}))
    return s;
  int nb = xDesc->nb, lead = kSpatial - (nb - 2);
  Geometry gx = geometryOf(xDesc->dims, xDesc->strides, nb),
           gy = geometryOf(yDesc->dims, yDesc->strides, nb);
  int64_t window[kSpatial] = {1, 1, 1}, pad[kSpatial] = {0, 0, 0},
          stride[kSpatial] = {1, 1, 1};
  for (int d = 0; d < nb - 2; ++d) {
    window[lead + d] = poolingDesc->window[d];
    pad[lead + d] = poolingDesc->pad[d];
    stride[lead + d] = poolingDesc->stride[d];
  }
  cudnnPoolingMode_t mode = poolingDesc->mode;
  PoolKind kind =
      mode == CUDNN_POOLING_MAX || mode == CUDNN_POOLING_MAX_DETERMINISTIC
          ? PoolKind::Max
      : mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
          ? PoolKind::AverageOverWindow
          : PoolKind::AverageOverInside;
  bool propagate = poolingDesc->nan == CUDNN_PROPAGATE_NAN;
  float al = *static_cast<const float *>(alpha),
        be = *static_cast<const float *>(beta);
  const auto *xf = static_cast<const float *>(x);
  auto *yf = static_cast<float *>(y);
  PoolProblem pool{gx, gy, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, kind, propagate};
  std::copy(window, window + kSpatial, pool.window);
  std::copy(pad, pad + kSpatial, pool.pad);
  std::copy(stride, stride + kSpatial, pool.stride);
  shardrt_hostcuda::enqueue(handle->stream,
                            [=] { poolForward(pool, xf, yf, al, be); });
  return CUDNN_STATUS_SUCCESS;
}
