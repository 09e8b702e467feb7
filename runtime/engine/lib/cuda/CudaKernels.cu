//===- CudaKernels.cu - The CUDA backend's own small kernels --------------===//
//
// Generated kernels (fused regions) come from the artifact; these are the
// fixed ones the backend needs around library calls, for data movement,
// and for the ops whose math lives in a host-tested plan header.
//
//===----------------------------------------------------------------------===//

#include "AttentionPlan.h"
#include "CudaLaunch.h"
#include "GatherPlan.h"
#include "InterpolatePlan.h"
#include "NeighborhoodPlan.h"
#include "PoolPlan.h"
#include "RingPlan.h"

#include "shardrt/cpu/HalfFloats.h"
#include "shardrt/cpu/Int64Casts.h"

#include <algorithm>

// The device build launches with <<<>>>; the host build of the tests
// (hostcuda/include/cuda_runtime.h) runs the blocks' threads as fibers.
#ifdef SHARDRT_HOSTCUDA
#define SHARDRT_LAUNCH(kernel, grid, threads, stream)                          \
  SHARDRT_HOSTCUDA_LAUNCH(kernel, grid, threads, stream)
#else
#define SHARDRT_LAUNCH(kernel, grid, threads, stream)                          \
  kernel<<<grid, threads, 0, stream>>>
#endif

namespace shardrt::exec::cuda {
#ifdef SHARDRT_HOSTCUDA
inline namespace host {
#endif
namespace {

constexpr int kThreads = 256;

/// cudaGetLastError, which each launcher returns, also reports an earlier
/// non-sticky error left on this thread (cuBLAS and cuDNN may leave one from
/// internal probes): cleared before launching, it reports this launch only.
void clearStaleError() { (void)cudaGetLastError(); }

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

__global__ void poolKernel(float *__restrict__ y, const float *__restrict__ x,
                           PoolView v) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < v.count; i += (long long)gridDim.x * blockDim.x)
    y[i] = pooledValue(v, x, i);
}

/// acc (op) x exactly as the CPU backend's group reductions combine them
/// (std::max / std::min pick the first operand on ties and NaNs), so that
/// both backends give bitwise the same result.
__device__ float combine(comm::ReduceOp op, float acc, float x) {
  switch (op) {
  case comm::ReduceOp::Sum:
    return acc + x;
  case comm::ReduceOp::Prod:
    return acc * x;
  // A NaN wins wherever it sits, as on the CPU.
  case comm::ReduceOp::Max:
    return acc < x || x != x ? x : acc;
  case comm::ReduceOp::Min:
    return x < acc || x != x ? x : acc;
  }
  return acc;
}

/// y[i] = block_0[i] (op) block_1[i] (op) ... in member order; member q's
/// block is `own` for q == self and `others + q * stride` otherwise. y may
/// be `own` (each element is read before it is written, by one thread).
__global__ void reduceInOrderKernel(float *y, const float *own,
                                    const float *__restrict__ others,
                                    long long stride, int members, int self,
                                    long long n, comm::ReduceOp op) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    float acc = self == 0 ? own[i] : others[i];
    for (int q = 1; q < members; ++q)
      acc = combine(op, acc, q == self ? own[i] : others[q * stride + i]);
    y[i] = acc;
  }
}

template <typename T>
__global__ void gatherKernel(T *__restrict__ y, const T *__restrict__ x,
                             GatherView v) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < v.count; i += (long long)gridDim.x * blockDim.x)
    y[i] = x[gatherSource(v, i)];
}

__global__ void compareKernel(uint8_t *__restrict__ y,
                              const float *__restrict__ a,
                              const float *__restrict__ b, GatherView va,
                              GatherView vb, cpu::CompareKind kind) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < va.count; i += (long long)gridDim.x * blockDim.x)
    y[i] = compareValues(kind, a[gatherSource(va, i)], b[gatherSource(vb, i)]);
}

template <typename T>
__global__ void selectKernel(T *__restrict__ y, const uint8_t *__restrict__ c,
                             const T *__restrict__ t, const T *__restrict__ f,
                             GatherView vc, GatherView vt, GatherView vf) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < vc.count; i += (long long)gridDim.x * blockDim.x)
    y[i] = c[gatherSource(vc, i)] ? t[gatherSource(vt, i)]
                                  : f[gatherSource(vf, i)];
}

/// Element i of a buffer of type `t` as f32 (exact but for int64, which
/// rounds to nearest as the CPU cast does).
__device__ float castLoad(const void *x, long long i, cpu::ElemType t) {
  switch (t) {
  case cpu::ElemType::F32:
    return static_cast<const float *>(x)[i];
  case cpu::ElemType::Bool:
    return static_cast<const uint8_t *>(x)[i] ? 1.0f : 0.0f;
  case cpu::ElemType::BF16:
    return cpu::bf16ToFloat(static_cast<const uint16_t *>(x)[i]);
  case cpu::ElemType::F16:
    return cpu::f16ToFloat(static_cast<const uint16_t *>(x)[i]);
  case cpu::ElemType::I64: // rounds, as the CPU cast does
    return float(static_cast<const long long *>(x)[i]);
  }
  return 0.0f;
}

/// Casts through f32 with the CPU kernel's rules: to bool x != 0 (NaN is
/// true), to bf16 and f16 rounded to nearest even (cpu/HalfFloats.h), to
/// int64 truncated (cpu/Int64Casts.h).
__global__ void castKernel(void *__restrict__ y, const void *__restrict__ x,
                           long long n, cpu::ElemType from, cpu::ElemType to) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    float v = castLoad(x, i, from);
    switch (to) {
    case cpu::ElemType::F32:
      static_cast<float *>(y)[i] = v;
      break;
    case cpu::ElemType::Bool:
      static_cast<uint8_t *>(y)[i] = v != 0.0f;
      break;
    case cpu::ElemType::BF16:
      static_cast<uint16_t *>(y)[i] = cpu::floatToBf16(v);
      break;
    case cpu::ElemType::F16:
      static_cast<uint16_t *>(y)[i] = cpu::floatToF16(v);
      break;
    case cpu::ElemType::I64:
      static_cast<int64_t *>(y)[i] = cpu::floatToInt64(v);
      break;
    }
  }
}

/// Where chunk `k` of the line at column `c` of outer index `o` starts in
/// an (outer, len, inner) buffer, for the thread numbered
/// (o * chunks + k) * inner + c: neighbouring threads take neighbouring
/// columns, so each step's loads coalesce when inner > 1.
struct ScanChunk {
  long long at, begin, end;
};
__device__ ScanChunk scanChunkOf(long long i, long long len, long long inner,
                                 long long chunk, long long chunks) {
  long long c = i % inner, k = (i / inner) % chunks, o = i / (inner * chunks);
  long long begin = k * chunk, end = begin + chunk < len ? begin + chunk : len;
  return {(o * len + begin) * inner + c, begin, end};
}

/// Each line's chunk totals become, in place, the running value before
/// each chunk (an exclusive scan from init's value or the identity); the
/// line's whole fold goes to `packed` when given (ScanTotals).
__global__ void scanChunkCarriesKernel(double *__restrict__ totals,
                                       const double *__restrict__ init,
                                       float *__restrict__ packed,
                                       long long inner, long long chunks,
                                       long long lines, cpu::ScanKind kind) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < lines; i += (long long)gridDim.x * blockDim.x) {
    long long c = i % inner, o = i / inner;
    double acc = init ? init[i] : cpu::scanIdentity(kind);
    for (long long k = 0; k < chunks; ++k) {
      double *t = totals + (o * chunks + k) * inner + c;
      double total = *t;
      *t = acc;
      acc = cpu::scanFold(kind, acc, total);
    }
    if (packed)
      cpu::packScanValue(acc, packed + i * cpu::kPackedScanFloats);
  }
}

/// Folds every chunk from its running value (carries[i], or the identity
/// when there are none), writing the scan into y and/or the chunk's total
/// into totals[i] (double), whichever is given.
__global__ void scanChunksKernel(float *__restrict__ y,
                                 double *__restrict__ totals,
                                 const float *__restrict__ x,
                                 const double *__restrict__ carries,
                                 long long len, long long inner,
                                 long long chunk, long long chunks, long long n,
                                 cpu::ScanKind kind) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    ScanChunk s = scanChunkOf(i, len, inner, chunk, chunks);
    double acc = carries ? carries[i] : cpu::scanIdentity(kind);
    for (long long l = s.begin; l < s.end; ++l, s.at += inner) {
      acc = cpu::scanFold(kind, acc, double(x[s.at]));
      if (y)
        y[s.at] = float(acc);
    }
    if (totals)
      totals[i] = acc;
  }
}

/// Each line's running value after the first `before` of `members`
/// shards' packed totals (cpu::scanCarries).
__global__ void scanCarriesKernel(double *__restrict__ init,
                                  const float *__restrict__ totals,
                                  long long members, long long inner,
                                  long long before, long long lines,
                                  cpu::ScanKind kind) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < lines; i += (long long)gridDim.x * blockDim.x) {
    long long c = i % inner, o = i / inner;
    double acc = cpu::scanIdentity(kind);
    for (long long m = 0; m < before; ++m)
      acc = cpu::scanFold(
          kind, acc,
          cpu::unpackScanValue(totals + ((o * members + m) * inner + c) *
                                            cpu::kPackedScanFloats));
    init[i] = acc;
  }
}

__global__ void interpolateKernel(float *__restrict__ y,
                                  const float *__restrict__ x,
                                  InterpolateView v) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < v.count; i += (long long)gridDim.x * blockDim.x)
    y[i] = interpolateAt(v, x, i);
}

/// A nearest resampling of 16-bit elements: a gather.
__global__ void gatherNearestKernel(uint16_t *__restrict__ y,
                                    const uint16_t *__restrict__ x,
                                    InterpolateView v) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < v.count; i += (long long)gridDim.x * blockDim.x)
    y[i] = x[nearestSourceOf(v, i)];
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

constexpr int kSoftmaxThreads = 256;

struct MaxOf {
  // Partials start at -inf and skip NaN scores, so neither side is NaN.
  __device__ float operator()(float a, float b) const { return a < b ? b : a; }
};
struct SumOf {
  __device__ float operator()(float a, float b) const { return a + b; }
};

/// `x` combined over the block (kSoftmaxThreads threads); every thread
/// gets the same value, the warps' partials combined in one order.
template <typename Combine>
__device__ float blockReduce(float x, float *partial, Combine combine) {
  for (int offset = 16; offset > 0; offset /= 2)
    x = combine(x, __shfl_xor_sync(0xffffffffu, x, offset));
  __syncthreads(); // the previous reduction's readers are done
  if (threadIdx.x % 32 == 0)
    partial[threadIdx.x / 32] = x;
  __syncthreads();
  x = partial[0];
  for (int w = 1; w < kSoftmaxThreads / 32; ++w)
    x = combine(x, partial[w]);
  return x;
}

/// One block per score row: mask, max, exponentials and their sum, scale.
__global__ void __launch_bounds__(kSoftmaxThreads)
    maskedSoftmaxKernel(float *scores, const void *mask, AttentionView v,
                        AttentionBlock blk) {
  __shared__ float partial[kSoftmaxThreads / 32];
  long long rows = blk.batches * blk.rows;
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    long long b = blk.b0 + r / blk.rows, i = blk.q0 + r % blk.rows;
    float *row = scores + r * blk.cols;
    float best = -HUGE_VALF;
    for (long long j = threadIdx.x; j < blk.cols; j += kSoftmaxThreads) {
      float s = maskedScore(v, mask, b, i, j, row[j]);
      row[j] = s;
      best = best < s ? s : best; // a NaN score is not the max
    }
    best = blockReduce(best, partial, MaxOf());
    float sum = 0.0f;
    for (long long j = threadIdx.x; j < blk.cols; j += kSoftmaxThreads) {
      float w = expf(row[j] - best);
      row[j] = w;
      sum += w;
    }
    sum = blockReduce(sum, partial, SumOf());
    // No visible key: NaN weights, so the row's output is NaN.
    float inv = best == -HUGE_VALF ? nanf("") : 1.0f / sum;
    for (long long j = threadIdx.x; j < blk.cols; j += kSoftmaxThreads)
      row[j] *= inv;
  }
}

/// One block per query row of `run`: the ring's scores against one block
/// of keys (scaled, in `scores`) through ringScore, the row max, the merge
/// into the state (m, lsum, o rescaled), and the weights (ringWeight) in
/// place of the scores for the GEMM that adds them times the values.
__global__ void __launch_bounds__(kSoftmaxThreads)
    ringRowsKernel(float *scores, const float *mask, RingView v, RingRows run,
                   float *m, float *lsum, float *o) {
  __shared__ float partial[kSoftmaxThreads / 32];
  for (long long r = blockIdx.x; r < run.rows; r += gridDim.x) {
    long long i = run.q0 + r, at = run.b * v.l + i;
    float *row = scores + r * run.cols;
    float best = -HUGE_VALF;
    for (long long j = threadIdx.x; j < run.cols; j += kSoftmaxThreads) {
      float s = ringScore(v, mask, run.b, i, run.keyLo, j, row[j]);
      row[j] = s;
      best = best < s ? s : best;
    }
    best = blockReduce(best, partial, MaxOf());
    // Every thread reads the old max before thread 0 writes the new one:
    // the sum's reduction below synchronises the block in between.
    RingMerge g = ringMerge(run.first, run.first ? -HUGE_VALF : m[at], best);
    float sum = 0.0f;
    for (long long j = threadIdx.x; j < run.cols; j += kSoftmaxThreads) {
      float w = ringWeight(row[j], g);
      row[j] = w;
      sum += w;
    }
    sum = blockReduce(sum, partial, SumOf());
    // The GEMM after this kernel adds the weights times the values to o.
    float *orow = o + at * v.ev;
    for (long long c = threadIdx.x; c < v.ev; c += kSoftmaxThreads)
      orow[c] = ringRescaled(run.first, run.first ? 0.0f : orow[c], g, 0.0f);
    if (threadIdx.x == 0) {
      lsum[at] = ringRescaled(run.first, run.first ? 0.0f : lsum[at], g, sum);
      m[at] = g.max;
    }
  }
}

/// The balanced ring's merge of a partial state (pm, plsum, po) into the
/// state (m, lsum, o) over `rows` rows of `ev` features (ringCombine): one
/// thread per output element, and the row's first also updates m and lsum
/// after every thread of the row has read m.
__global__ void ringMergeKernel(float *m, float *lsum, float *o,
                                const float *pm, const float *plsum,
                                const float *po, long long rows, long long ev) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    RingCombine c = ringCombine(m[row], pm[row]);
    for (long long j = threadIdx.x; j < ev; j += blockDim.x)
      o[row * ev + j] = o[row * ev + j] * c.kept + po[row * ev + j] * c.added;
    __syncthreads();
    if (threadIdx.x == 0) {
      lsum[row] = lsum[row] * c.kept + plsum[row] * c.added;
      m[row] = c.max;
    }
  }
}

__global__ void ringFinishKernel(float *y, const float *m, const float *lsum,
                                 const float *o, long long n, long long ev) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    y[i] = ringOutput(m[i / ev], o[i], lsum[i / ev]);
}

/// Calls run(T()) with the unsigned type of `bytes` (1, 2, 4 or 8): the
/// data-movement kernels only move bytes. False for another size.
template <typename Run> bool withElementType(size_t bytes, Run &&run) {
  switch (bytes) {
  case 1:
    run(uint8_t());
    return true;
  case 2:
    run(uint16_t());
    return true;
  case 4:
    run(uint32_t());
    return true;
  case 8:
    run(uint64_t());
    return true;
  default:
    return false;
  }
}

/// Every launcher's frame: nothing to do for n <= 0; else launch(grid for
/// n), which may refuse with an error, and this launch's error.
template <typename Launch> cudaError_t launchOver(int64_t n, Launch &&launch) {
  clearStaleError();
  if (n <= 0)
    return cudaSuccess;
  if (cudaError_t refused = launch(gridFor(n)); refused != cudaSuccess)
    return refused;
  return cudaGetLastError();
}

} // namespace

cudaError_t launchCopyBox(void *dst, const void *src, const BoxCopyPlan &p,
                          size_t elemBytes, cudaStream_t stream) {
  return launchOver(p.count, [&](unsigned grid) {
    bool known = withElementType(elemBytes, [&](auto t) {
      using T = decltype(t);
      SHARDRT_LAUNCH(copyBoxKernel, grid, kThreads, stream)
      (static_cast<T *>(dst), static_cast<const T *>(src), p);
    });
    return known ? cudaSuccess : cudaErrorInvalidValue;
  });
}

cudaError_t launchGather(void *y, const void *x, const GatherView &v,
                         size_t elemBytes, cudaStream_t stream) {
  return launchOver(v.count, [&](unsigned grid) {
    bool known = withElementType(elemBytes, [&](auto t) {
      using T = decltype(t);
      SHARDRT_LAUNCH(gatherKernel, grid, kThreads, stream)
      (static_cast<T *>(y), static_cast<const T *>(x), v);
    });
    return known ? cudaSuccess : cudaErrorInvalidValue;
  });
}

cudaError_t launchCompare(uint8_t *y, const float *a, const float *b,
                          const GatherView &va, const GatherView &vb,
                          cpu::CompareKind kind, cudaStream_t stream) {
  return launchOver(va.count, [&](unsigned grid) {
    SHARDRT_LAUNCH(compareKernel, grid, kThreads, stream)
    (y, a, b, va, vb, kind);
    return cudaSuccess;
  });
}

cudaError_t launchSelect(void *y, const uint8_t *c, const void *t,
                         const void *f, const GatherView &vc,
                         const GatherView &vt, const GatherView &vf,
                         size_t elemBytes, cudaStream_t stream) {
  return launchOver(vc.count, [&](unsigned grid) {
    if (elemBytes != 1 && elemBytes != 4)
      return cudaErrorInvalidValue;
    withElementType(elemBytes, [&](auto e) {
      using T = decltype(e);
      SHARDRT_LAUNCH(selectKernel, grid, kThreads, stream)
      (static_cast<T *>(y), c, static_cast<const T *>(t),
       static_cast<const T *>(f), vc, vt, vf);
    });
    return cudaSuccess;
  });
}

cudaError_t launchCast(void *y, const void *x, int64_t n, cpu::ElemType from,
                       cpu::ElemType to, cudaStream_t stream) {
  return launchOver(n, [&](unsigned grid) {
    SHARDRT_LAUNCH(castKernel, grid, kThreads, stream)(y, x, n, from, to);
    return cudaSuccess;
  });
}

ScanChunking planScanChunks(int64_t outer, int64_t len, int64_t inner) {
  // Enough threads to fill a device (about 2^16), chunks of at least 64
  // elements so that the carries' extra pass stays small.
  constexpr int64_t kThreadsWanted = int64_t(1) << 16, kMinChunk = 64;
  ScanChunking c{len, 1};
  int64_t lines = outer * inner;
  if (lines == 0 || len <= kMinChunk || lines >= kThreadsWanted)
    return c;
  int64_t byThreads = (kThreadsWanted + lines - 1) / lines;
  int64_t byLength = (len + kMinChunk - 1) / kMinChunk;
  int64_t chunks = std::min(byThreads, byLength);
  c.chunk = (len + chunks - 1) / chunks;
  c.chunks = (len + c.chunk - 1) / c.chunk;
  return c;
}

namespace {
/// Each chunk's total of x into `totals`, then, in place, the running value
/// before each chunk from init's (or the identity); each line's whole fold
/// into `packed` when given.
cudaError_t foldScanChunks(double *totals, const float *x, const double *init,
                           float *packed, int64_t lines, int64_t len,
                           int64_t inner, const ScanChunking &c,
                           cpu::ScanKind kind, cudaStream_t stream) {
  int64_t n = lines * c.chunks;
  if (cudaError_t e = launchOver(n,
                                 [&](unsigned grid) {
                                   SHARDRT_LAUNCH(scanChunksKernel, grid,
                                                  kThreads, stream)
                                   (nullptr, totals, x, nullptr, len, inner,
                                    c.chunk, c.chunks, n, kind);
                                   return cudaSuccess;
                                 });
      e != cudaSuccess)
    return e;
  return launchOver(lines, [&](unsigned grid) {
    SHARDRT_LAUNCH(scanChunkCarriesKernel, grid, kThreads, stream)
    (totals, init, packed, inner, c.chunks, lines, kind);
    return cudaSuccess;
  });
}
} // namespace

cudaError_t launchScan(float *y, const float *x, const double *init,
                       double *carries, int64_t outer, int64_t len,
                       int64_t inner, const ScanChunking &c, cpu::ScanKind kind,
                       cudaStream_t stream) {
  int64_t lines = len == 0 ? 0 : outer * inner, n = lines * c.chunks;
  if (c.chunks > 1)
    if (cudaError_t e = foldScanChunks(carries, x, init, nullptr, lines, len,
                                       inner, c, kind, stream);
        e != cudaSuccess)
      return e;
  // One chunk per line: its carry is the line's initial value.
  const double *from = c.chunks > 1 ? carries : init;
  return launchOver(n, [&](unsigned grid) {
    SHARDRT_LAUNCH(scanChunksKernel, grid, kThreads, stream)
    (y, nullptr, x, from, len, inner, c.chunk, c.chunks, n, kind);
    return cudaSuccess;
  });
}

cudaError_t launchScanTotals(float *packed, const float *x, double *totals,
                             int64_t outer, int64_t len, int64_t inner,
                             const ScanChunking &c, cpu::ScanKind kind,
                             cudaStream_t stream) {
  // Every line gets a total, the identity's for an empty one.
  return foldScanChunks(totals, x, nullptr, packed, outer * inner, len, inner,
                        c, kind, stream);
}

cudaError_t launchScanCarries(double *init, const float *totals, int64_t outer,
                              int64_t members, int64_t inner, int64_t before,
                              cpu::ScanKind kind, cudaStream_t stream) {
  int64_t lines = outer * inner;
  return launchOver(lines, [&](unsigned grid) {
    SHARDRT_LAUNCH(scanCarriesKernel, grid, kThreads, stream)
    (init, totals, members, inner, before, lines, kind);
    return cudaSuccess;
  });
}

cudaError_t launchFill(float *data, int64_t n, float value,
                       cudaStream_t stream) {
  return launchOver(n, [&](unsigned grid) {
    SHARDRT_LAUNCH(fillKernel, grid, kThreads, stream)(data, n, value);
    return cudaSuccess;
  });
}

cudaError_t launchFillBox(float *data, const BoxCopyPlan &p, float value,
                          cudaStream_t stream) {
  return launchOver(p.count, [&](unsigned grid) {
    SHARDRT_LAUNCH(fillBoxKernel, grid, kThreads, stream)(data, p, value);
    return cudaSuccess;
  });
}

cudaError_t launchInterpolate(float *y, const float *x,
                              const InterpolateView &view,
                              cudaStream_t stream) {
  return launchOver(view.count, [&](unsigned grid) {
    SHARDRT_LAUNCH(interpolateKernel, grid, kThreads, stream)(y, x, view);
    return cudaSuccess;
  });
}

cudaError_t launchGatherNearest(uint16_t *y, const uint16_t *x,
                                const InterpolateView &view,
                                cudaStream_t stream) {
  return launchOver(view.count, [&](unsigned grid) {
    SHARDRT_LAUNCH(gatherNearestKernel, grid, kThreads, stream)(y, x, view);
    return cudaSuccess;
  });
}

cudaError_t launchNeighborhoodAttention(float *y, const float *q,
                                        const float *k, const float *v,
                                        const NeighborhoodView &view,
                                        cudaStream_t stream) {
  return launchOver(view.rows, [&](unsigned grid) {
    SHARDRT_LAUNCH(neighborhoodKernel, grid, kThreads, stream)
    (y, q, k, v, view);
    return cudaSuccess;
  });
}

cudaError_t launchMaskedSoftmax(float *scores, const void *mask,
                                const AttentionView &view,
                                const AttentionBlock &blk,
                                cudaStream_t stream) {
  long long rows = blk.cols > 0 ? blk.batches * blk.rows : 0;
  return launchOver(rows, [&](unsigned) {
    // One block per row (grid-strided past 2^16 rows).
    unsigned grid = unsigned(std::min<long long>(rows, 1 << 16));
    SHARDRT_LAUNCH(maskedSoftmaxKernel, grid, kSoftmaxThreads, stream)
    (scores, mask, view, blk);
    return cudaSuccess;
  });
}

cudaError_t launchRingRows(float *scores, const float *mask,
                           const RingView &view, const RingRows &run, float *m,
                           float *lsum, float *o, cudaStream_t stream) {
  long long rows = run.cols > 0 ? run.rows : 0;
  return launchOver(rows, [&](unsigned) {
    // One block per row (grid-strided past 2^16 rows).
    unsigned grid = unsigned(std::min<long long>(rows, 1 << 16));
    SHARDRT_LAUNCH(ringRowsKernel, grid, kSoftmaxThreads, stream)
    (scores, mask, view, run, m, lsum, o);
    return cudaSuccess;
  });
}

cudaError_t launchRingMerge(float *state, const float *partial, int64_t rows,
                            int64_t ev, cudaStream_t stream) {
  return launchOver(rows, [&](unsigned) {
    unsigned grid = unsigned(std::min<long long>(rows, 1 << 16));
    SHARDRT_LAUNCH(ringMergeKernel, grid, kSoftmaxThreads, stream)
    (state, state + rows, state + 2 * rows, partial, partial + rows,
     partial + 2 * rows, rows, ev);
    return cudaSuccess;
  });
}

cudaError_t launchRingFinish(float *y, const float *m, const float *lsum,
                             const float *o, int64_t rows, int64_t ev,
                             cudaStream_t stream) {
  return launchOver(rows * ev, [&](unsigned grid) {
    SHARDRT_LAUNCH(ringFinishKernel, grid, kThreads, stream)
    (y, m, lsum, o, rows * ev, ev);
    return cudaSuccess;
  });
}

cudaError_t launchPool(float *y, const float *x, const PoolView &view,
                       cudaStream_t stream) {
  return launchOver(view.count, [&](unsigned grid) {
    SHARDRT_LAUNCH(poolKernel, grid, kThreads, stream)(y, x, view);
    return cudaSuccess;
  });
}

cudaError_t launchReduceInOrder(float *y, const float *own, const float *others,
                                int64_t stride, int members, int self,
                                int64_t n, comm::ReduceOp op,
                                cudaStream_t stream) {
  return launchOver(n, [&](unsigned grid) {
    SHARDRT_LAUNCH(reduceInOrderKernel, grid, kThreads, stream)
    (y, own, others, stride, members, self, n, op);
    return cudaSuccess;
  });
}

cudaError_t launchAddBias(float *y, const float *bias, int64_t rows,
                          int64_t cols, cudaStream_t stream) {
  return launchOver(cols > 0 ? rows * cols : 0, [&](unsigned grid) {
    SHARDRT_LAUNCH(addBiasKernel, grid, kThreads, stream)(y, bias, rows, cols);
    return cudaSuccess;
  });
}

#ifdef SHARDRT_HOSTCUDA
} // namespace host
#endif
} // namespace shardrt::exec::cuda
