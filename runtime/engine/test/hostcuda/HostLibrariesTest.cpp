//===- HostLibrariesTest.cpp - The stand-in cuDNN and cuBLAS's own rules --===//
//
// The CUDA backend's tests lean on the host libraries to refuse what the
// real ones would refuse or fault on; these tests keep those rules from
// quietly going away. Their arithmetic is checked where the backend's
// results meet the CPU backend's (CudaBackendTest, acceptance.hostcuda).
//
//===----------------------------------------------------------------------===//

#include "include/cublas_v2.h"
#include "include/cudnn.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

namespace {

/// Device buffers freed at the end of a test.
struct DeviceFloats {
  float *p = nullptr;
  explicit DeviceFloats(size_t n) {
    EXPECT_EQ(cudaMalloc(&p, n * sizeof(float)), cudaSuccess);
  }
  ~DeviceFloats() { cudaFree(p); }
};

/// A 1x1x4x4 -> 1x1x2x2 valid 3x3 conv: descriptors, handle, algorithm.
struct SmallConv {
  cudnnHandle_t h = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  SmallConv() {
    EXPECT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
    int xd[] = {1, 1, 4, 4}, xs[] = {16, 16, 4, 1};
    int yd[] = {1, 1, 2, 2}, ys[] = {4, 4, 2, 1};
    int wd[] = {1, 1, 3, 3}, pad[] = {0, 0}, one[] = {1, 1};
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateFilterDescriptor(&w);
    cudnnCreateConvolutionDescriptor(&conv);
    EXPECT_EQ(cudnnSetTensorNdDescriptor(x, CUDNN_DATA_FLOAT, 4, xd, xs),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetTensorNdDescriptor(y, CUDNN_DATA_FLOAT, 4, yd, ys),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetFilterNdDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                         4, wd),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetConvolutionNdDescriptor(conv, 2, pad, one, one,
                                              CUDNN_CROSS_CORRELATION,
                                              CUDNN_DATA_FLOAT),
              CUDNN_STATUS_SUCCESS);
  }
  ~SmallConv() {
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(conv);
    cudnnDestroy(h);
  }
  cudnnStatus_t run(const float *xp, const float *wp, float *yp, void *ws,
                    size_t wsBytes,
                    cudnnConvolutionFwdAlgo_t algo =
                        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM) {
    const float one = 1.0f, zero = 0.0f;
    return cudnnConvolutionForward(h, &one, x, xp, w, wp, conv, algo, ws,
                                   wsBytes, &zero, y, yp);
  }
};

TEST(HostCudnn, OutputExtentsFollowTheConvolutionFormula) {
  SmallConv c;
  int out[4] = {};
  ASSERT_EQ(cudnnGetConvolutionNdForwardOutputDim(c.conv, c.x, c.w, 4, out),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(std::vector<int>(out, out + 4), (std::vector<int>{1, 1, 2, 2}));
  // An output descriptor of other extents is refused.
  int bad[] = {1, 1, 3, 2}, strides[] = {6, 6, 2, 1};
  ASSERT_EQ(cudnnSetTensorNdDescriptor(c.y, CUDNN_DATA_FLOAT, 4, bad, strides),
            CUDNN_STATUS_SUCCESS);
  cudnnConvolutionFwdAlgoPerf_t perf[8];
  int returned = 0;
  EXPECT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(c.h, c.x, c.w, c.conv, c.y,
                                                   8, &returned, perf),
            CUDNN_STATUS_BAD_PARAM);
}

TEST(HostCudnn, PaddingStrideAndDilationEnterTheExtents) {
  // 9 + 2 * 2 - ((3 - 1) * 2 + 1) = 8 past the first position: 1 + 8 / 2.
  cudnnTensorDescriptor_t x = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnCreateTensorDescriptor(&x);
  cudnnCreateFilterDescriptor(&w);
  cudnnCreateConvolutionDescriptor(&conv);
  int xd[] = {2, 6, 9, 10}, xs[] = {540, 90, 10, 1}, wd[] = {4, 3, 3, 3};
  int pad[] = {2, 1}, stride[] = {2, 3}, dilation[] = {2, 1};
  ASSERT_EQ(cudnnSetTensorNdDescriptor(x, CUDNN_DATA_FLOAT, 4, xd, xs),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(
      cudnnSetFilterNdDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, wd),
      CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetConvolutionNdDescriptor(conv, 2, pad, stride, dilation,
                                            CUDNN_CROSS_CORRELATION,
                                            CUDNN_DATA_FLOAT),
            CUDNN_STATUS_SUCCESS);
  int out[4] = {};
  // Two groups of 3 input channels: 6 in x.
  ASSERT_EQ(cudnnSetConvolutionGroupCount(conv, 2), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetConvolutionNdForwardOutputDim(conv, x, w, 4, out),
            CUDNN_STATUS_SUCCESS);
  // W: 10 + 2 - 3 = 9 past the first position, stride 3: 1 + 3.
  EXPECT_EQ(std::vector<int>(out, out + 4), (std::vector<int>{2, 4, 5, 4}));
  // One group would need 3 input channels.
  ASSERT_EQ(cudnnSetConvolutionGroupCount(conv, 1), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetConvolutionNdForwardOutputDim(conv, x, w, 4, out),
            CUDNN_STATUS_BAD_PARAM);
  // Convolution mode (a flipped kernel) is not emulated.
  EXPECT_EQ(cudnnSetConvolutionNdDescriptor(conv, 2, pad, stride, dilation,
                                            CUDNN_CONVOLUTION,
                                            CUDNN_DATA_FLOAT),
            CUDNN_STATUS_NOT_SUPPORTED);
  cudnnDestroyTensorDescriptor(x);
  cudnnDestroyFilterDescriptor(w);
  cudnnDestroyConvolutionDescriptor(conv);
}

TEST(HostCudnn, RefusesBadDescriptors) {
  cudnnTensorDescriptor_t t = nullptr;
  cudnnCreateTensorDescriptor(&t);
  int dims[] = {1, 0, 4, 4}, strides[] = {16, 16, 4, 1};
  EXPECT_EQ(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 4, dims, strides),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_HALF, 4, dims, strides),
            CUDNN_STATUS_NOT_SUPPORTED);
  cudnnDestroyTensorDescriptor(t);
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnCreateConvolutionDescriptor(&conv);
  EXPECT_EQ(cudnnSetConvolutionGroupCount(conv, 0), CUDNN_STATUS_BAD_PARAM);
  cudnnDestroyConvolutionDescriptor(conv);
}

TEST(HostCudnn, RanksTf32FirstAndAnUngrantableWorkspaceBeforeFp32) {
  SmallConv c;
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  ASSERT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(
                c.h, c.x, c.w, c.conv, c.y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                &returned, perf),
            CUDNN_STATUS_SUCCESS);
  ASSERT_GE(returned, 4);
  EXPECT_EQ(perf[0].mathType, CUDNN_TENSOR_OP_MATH);
  EXPECT_GT(perf[1].memory, size_t(1) << 30);
  EXPECT_NE(perf[2].status, CUDNN_STATUS_SUCCESS);
  // A Winograd transform ranks before the exact FP32 algorithm; run, it
  // loses digits (its operands rounded as TF32 would be), so a caller that
  // keeps f32 exact must pass it over.
  ASSERT_GE(returned, 5);
  EXPECT_EQ(perf[3].algo, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED);
  EXPECT_EQ(perf[3].status, CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(perf[4].algo, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
  EXPECT_EQ(perf[4].mathType, CUDNN_DEFAULT_MATH);
}

TEST(HostCudnn, RunsOnlyOnDeviceMemoryWithTheWorkspaceAskedFor) {
  SmallConv c;
  DeviceFloats x(16), w(9), y(4), ws(4096);
  size_t need = 0;
  ASSERT_EQ(cudnnGetConvolutionForwardWorkspaceSize(
                c.h, c.x, c.w, c.conv, c.y,
                CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, &need),
            CUDNN_STATUS_SUCCESS);
  ASSERT_GT(need, 0u);
  ASSERT_LE(need, 4096 * sizeof(float));
  EXPECT_EQ(c.run(x.p, w.p, y.p, ws.p, need - 1), CUDNN_STATUS_BAD_PARAM);
  std::vector<float> host(16);
  EXPECT_EQ(c.run(host.data(), w.p, y.p, ws.p, need),
            CUDNN_STATUS_EXECUTION_FAILED);
  // The output may not lie under an input or the workspace.
  EXPECT_EQ(c.run(x.p, w.p, x.p + 8, ws.p, need), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(c.run(x.p, w.p, ws.p + 8, ws.p, need), CUDNN_STATUS_BAD_PARAM);
  // Past the end of its allocation.
  EXPECT_EQ(c.run(x.p + 1, w.p, y.p, ws.p, need),
            CUDNN_STATUS_EXECUTION_FAILED);
  EXPECT_EQ(c.run(x.p, w.p, y.p, ws.p, need), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(c.run(x.p, w.p, y.p, ws.p, need, CUDNN_CONVOLUTION_FWD_ALGO_FFT),
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
}

TEST(HostCudnn, DefaultMathRoundsToTf32AndFmaDoesNot) {
  SmallConv c;
  DeviceFloats x(16), w(9), y(4);
  // x = 1 + 2^-20 everywhere, w = 1 at the centre tap: y = x, or 1 in TF32.
  std::vector<float> hx(16, 1.0f + std::ldexp(1.0f, -20)), hw(9, 0.0f);
  hw[4] = 1.0f;
  cudaMemcpy(x.p, hx.data(), 64, cudaMemcpyHostToDevice);
  cudaMemcpy(w.p, hw.data(), 36, cudaMemcpyHostToDevice);
  float out[4];
  for (cudnnMathType_t math : {CUDNN_DEFAULT_MATH, CUDNN_FMA_MATH}) {
    SCOPED_TRACE(int(math));
    ASSERT_EQ(cudnnSetConvolutionMathType(c.conv, math), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(c.run(x.p, w.p, y.p, nullptr, 0,
                    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM),
              CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(cudaMemcpy(out, y.p, 16, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(out[0], math == CUDNN_FMA_MATH ? hx[0] : 1.0f);
  }
}

TEST(HostCudnn, WorkIsQueuedOnTheHandlesStream) {
  SmallConv c;
  DeviceFloats x(16), w(9), y(4);
  std::vector<float> ones(16, 1.0f);
  cudaMemcpy(x.p, ones.data(), 64, cudaMemcpyHostToDevice);
  cudaMemcpy(w.p, ones.data(), 36, cudaMemcpyHostToDevice);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudnnSetStream(c.h, s), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(c.run(x.p, w.p, y.p, nullptr, 0,
                  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM),
            CUDNN_STATUS_SUCCESS);
  float out[4];
  // Not run until the stream is waited for: y still holds NaN bytes.
  std::memcpy(out, y.p, 16);
  EXPECT_TRUE(std::isnan(out[0]));
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  std::memcpy(out, y.p, 16);
  EXPECT_EQ(out[0], 9.0f);
  cudaStreamDestroy(s);
}

TEST(HostCudaRuntime, AStepWaitingForAnotherThreadIsNotReady) {
  cudaStream_t s = nullptr, other = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&other), cudaSuccess);
  std::atomic<bool> go{false};
  int after = 0;
  shardrt_hostcuda::enqueueStep(s, [&] { return go.load(); });
  shardrt_hostcuda::enqueue(s, [&] { after = 1; });
  cudaEvent_t e = nullptr, joined = nullptr;
  ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&joined), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e, s), cudaSuccess);
  // A stream waiting for it is not ready either.
  ASSERT_EQ(cudaStreamWaitEvent(other, e, 0), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(joined, other), cudaSuccess);
  EXPECT_EQ(cudaEventQuery(e), cudaErrorNotReady);
  EXPECT_EQ(cudaEventQuery(joined), cudaErrorNotReady);
  EXPECT_EQ(after, 0);
  std::thread([&] { go = true; }).join();
  EXPECT_EQ(cudaEventQuery(joined), cudaSuccess);
  EXPECT_EQ(after, 1);
  cudaEventDestroy(e);
  cudaEventDestroy(joined);
  cudaStreamDestroy(s);
  cudaStreamDestroy(other);
}

TEST(HostCudaRuntime, EventsOutliveTheirStream) {
  // An event recorded on a stream destroyed since (its work done) still
  // orders the streams that wait for it, and the wait does not read freed
  // memory.
  cudaStream_t s = nullptr, other = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&other), cudaSuccess);
  int ran = 0;
  shardrt_hostcuda::enqueue(s, [&] { ran = 1; });
  cudaEvent_t e = nullptr;
  ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e, s), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(other, e, 0), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(ran, 1); // issued work still runs
  EXPECT_EQ(cudaEventQuery(e), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(other), cudaSuccess);
  cudaEventDestroy(e);
  cudaStreamDestroy(other);
}

TEST(HostCublas, OperandsOutsideDeviceMemoryFail) {
  cublasHandle_t h = nullptr;
  ASSERT_EQ(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  DeviceFloats a(6), b(6), c(4);
  std::vector<float> host(6);
  const float one = 1.0f, zero = 0.0f;
  // C (2x2) = A (2x3) B (3x2), column-major.
  EXPECT_EQ(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, a.p, 2, b.p,
                        3, &zero, c.p, 2),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, host.data(),
                        2, b.p, 3, &zero, c.p, 2),
            CUBLAS_STATUS_EXECUTION_FAILED);
  // A leading dimension that runs past the allocation.
  EXPECT_EQ(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, a.p, 3, b.p,
                        3, &zero, c.p, 2),
            CUBLAS_STATUS_EXECUTION_FAILED);
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  cublasDestroy(h);
}

} // namespace
