//===- Blas.h - sgemm wrappers shared by the CPU kernels --------*- C++ -*-===//
//
// Private to shardrt_cpu. All BLAS calls of the CPU backend go through here so
// that one policy decides who owns the threads: OpenBLAS always runs on the
// calling thread and we parallelise with OpenMP (see Gemm.cpp for why).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_CPU_LIB_BLAS_H
#define SHARDRT_CPU_LIB_BLAS_H

#include <cstddef>
#include <cstdint>

namespace shardrt::cpu::detail {

/// Row-major C (m x n) = alpha * op(A) * op(B) + beta * C on the calling
/// thread only, where op(A) is m x k and op(B) is k x n. A is stored m x k
/// (k x m when transA) with row stride lda; likewise B. k == 0 is allowed.
void gemmSerial(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
                float alpha, const float *a, int64_t lda, const float *b,
                int64_t ldb, float beta, float *c, int64_t ldc);

/// Same contract; splits C into blocks over the OpenMP team when called
/// outside a parallel region and the product is large enough to pay for it.
void gemmParallel(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
                  float alpha, const float *a, int64_t lda, const float *b,
                  int64_t ldb, float beta, float *c, int64_t ldc);

/// Threads a parallel loop over `work` flops should use: 1 inside a parallel
/// region or for work too small to amortise waking the team.
int threadsFor(double work);

/// A buffer of at least `count` floats owned by the calling thread and reused
/// across calls (kernels run on long-lived OpenMP workers, so this avoids an
/// mmap/munmap pair per call). `slot` < 4 tells simultaneous buffers apart.
/// Contents are unspecified.
float *threadScratch(int slot, size_t count);

} // namespace shardrt::cpu::detail

#endif // SHARDRT_CPU_LIB_BLAS_H
