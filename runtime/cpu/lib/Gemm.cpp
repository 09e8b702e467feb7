//===- Gemm.cpp - Batched GEMM and linear over OpenBLAS -------------------===//
//
// Threading policy. Every rank of a local run is its own std::thread with its
// own OpenMP team (the executor calls omp_set_num_threads per rank). The
// pthread build of OpenBLAS (Debian's default) has one global pool sized to
// the machine, and its threaded calls from several application threads are
// serialised; letting it thread would oversubscribe the cores (ranks x
// OpenBLAS threads) and queue the ranks' GEMMs behind each other. OpenBLAS's
// own advice for threaded applications is to pin it to one thread, which we
// do once; we then parallelise ourselves with the caller's team: over the
// batch when it divides well, else by splitting one product into row or
// column blocks, one sgemm per thread. Single-threaded calls from many
// threads at once are safe (OpenBLAS locks its buffer pool; the pool holds
// 2 x its build-time NUM_THREADS buffers, which bounds concurrent callers).
// An OpenMP build of OpenBLAS ignores the pin but runs serially inside our
// parallel regions and with the rank's own thread count outside them.
//
//===----------------------------------------------------------------------===//

#include "Blas.h"
#include "shardrt/cpu/Kernels.h"

#include <algorithm>
#include <cblas.h>
#include <mutex>
#include <omp.h>
#include <vector>

// Weak so that any CBLAS (reference, BLIS, MKL) still links; only OpenBLAS
// has a pool to switch off.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace shardrt::cpu::detail {

// Below this many flops a product runs on one thread: waking an OpenMP team
// costs a few microseconds, about what 1 Mflop takes on one core.
static constexpr double kMinFlopsPerThread = 1 << 20;

static void pinBlasToCallingThread() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (openblas_set_num_threads)
      openblas_set_num_threads(1);
  });
}

int threadsFor(double work) {
  if (omp_in_parallel())
    return 1;
  int threads = omp_get_max_threads();
  double useful = work / kMinFlopsPerThread;
  return useful < threads ? std::max(1, static_cast<int>(useful)) : threads;
}

float *threadScratch(int slot, size_t count) {
  static thread_local std::vector<float> buffers[4];
  std::vector<float> &buffer = buffers[slot];
  if (buffer.size() < count)
    buffer.resize(count);
  return buffer.data();
}

void gemmSerial(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
                float alpha, const float *a, int64_t lda, const float *b,
                int64_t ldb, float beta, float *c, int64_t ldc) {
  if (m <= 0 || n <= 0)
    return;
  if (k <= 0) {
    // BLAS would accept k == 0, but the leading dimensions of an empty
    // operand are easy to get "wrong" (< 1) and sgemm then aborts.
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        c[i * ldc + j] = beta == 0.0f ? 0.0f : beta * c[i * ldc + j];
    return;
  }
  pinBlasToCallingThread();
  cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
              transB ? CblasTrans : CblasNoTrans, static_cast<int>(m),
              static_cast<int>(n), static_cast<int>(k), alpha, a,
              static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
              static_cast<int>(ldc));
}

void gemmParallel(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
                  float alpha, const float *a, int64_t lda, const float *b,
                  int64_t ldb, float beta, float *c, int64_t ldc) {
  int threads = threadsFor(2.0 * m * n * std::max<int64_t>(k, 1));
  if (threads <= 1) {
    gemmSerial(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  // Split the longer side of C so each block keeps a GEMM-friendly shape;
  // multiples of 16 keep the blocks aligned with OpenBLAS's register tiles.
  bool splitRows = m >= n;
  int64_t extent = splitRows ? m : n;
  int64_t chunk = (extent + threads - 1) / threads;
  chunk = (chunk + 15) / 16 * 16;
#pragma omp parallel num_threads(threads)
  {
    int64_t lo = omp_get_thread_num() * chunk;
    int64_t hi = std::min(extent, lo + chunk);
    if (lo < hi) {
      if (splitRows)
        gemmSerial(transA, transB, hi - lo, n, k, alpha,
                   transA ? a + lo : a + lo * lda, lda, b, ldb, beta,
                   c + lo * ldc, ldc);
      else
        gemmSerial(transA, transB, m, hi - lo, k, alpha, a, lda,
                   transB ? b + lo * ldb : b + lo, ldb, beta, c + lo, ldc);
    }
  }
}

} // namespace shardrt::cpu::detail

namespace shardrt::cpu {

using namespace detail;

void batchedGemm(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a,
                 int64_t aBatchStride, const float *b, int64_t bBatchStride,
                 float *y) {
  if (batch <= 0 || m <= 0 || n <= 0)
    return;
  int threads = threadsFor(2.0 * batch * m * n * std::max<int64_t>(k, 1));
  if (threads > 1 && batch >= threads &&
      (batch % threads == 0 || batch >= 4 * threads)) {
    // Whole products per thread avoid re-packing shared operands, as long as
    // the batch divides evenly enough to keep the team balanced.
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < batch; ++i)
      gemmSerial(false, false, m, n, k, 1.0f, a + i * aBatchStride, k,
                 b + i * bBatchStride, n, 0.0f, y + i * m * n, n);
    return;
  }
  for (int64_t i = 0; i < batch; ++i)
    gemmParallel(false, false, m, n, k, 1.0f, a + i * aBatchStride, k,
                 b + i * bBatchStride, n, 0.0f, y + i * m * n, n);
}

void linear(const float *x, int64_t rows, int64_t in, const float *w,
            const float *bias, int64_t out, float *y) {
  if (rows <= 0 || out <= 0)
    return;
  // Seeding y with the bias lets sgemm add it for free (beta = 1).
  if (bias) {
    for (int64_t r = 0; r < rows; ++r)
      std::copy(bias, bias + out, y + r * out);
  }
  gemmParallel(false, true, rows, out, in, 1.0f, x, in, w, in,
               bias ? 1.0f : 0.0f, y, out);
}

} // namespace shardrt::cpu
