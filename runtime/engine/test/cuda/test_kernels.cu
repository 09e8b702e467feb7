// A kernel in the shape shardc generates for a fused region (grid-stride,
// inputs then output), compiled to a fatbin at build time for
// CudaBackendTest: relu(x) * x over 1000 elements (body "relu mul").
#include <cuda_runtime.h>

extern "C" __global__ void __launch_bounds__(256)
    test_fused0(const float *__restrict__ in0, float *__restrict__ out) {
  const long long n = 1000LL;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const float a0 = __ldg(in0 + i);
    out[i] = fmaxf(a0, 0.0f) * a0;
  }
}

#ifdef SHARDRT_HOSTCUDA
// Its host launcher, as shardc emits one for each kernel.
extern "C" void test_fused0__host(void **p, unsigned grid, unsigned threads,
                                  cudaStream_t stream) {
  SHARDRT_HOSTCUDA_LAUNCH(test_fused0, grid, threads, stream)
  (*(const float **)p[0], *(float **)p[1]);
}
#endif
