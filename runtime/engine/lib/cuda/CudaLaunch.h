//===- CudaLaunch.h - The CUDA backend's own kernels' launchers -*- C++ -*-===//
//
// CudaKernels.cu's launchers: each runs its kernel over a grid-stride range
// on `stream` and returns this launch's error. Free of cuBLAS, cuDNN and the
// runtime's state, so that the tests can also build CudaKernels.cu for the
// host (runtime/engine/test/hostcuda): there SHARDRT_HOSTCUDA is defined,
// `cuda_runtime.h` is the host stand-in, and the launchers live in the
// inline namespace `host`, beside the device build's in the same program.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_CUDA_CUDALAUNCH_H
#define SHARDRT_ENGINE_CUDA_CUDALAUNCH_H

#include "BoxCopyPlan.h"
#include "shardrt/comm/Communicator.h"
#include "shardrt/cpu/Kernels.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace shardrt::exec::cuda {

struct AttentionBlock;   // AttentionPlan.h
struct AttentionView;    // AttentionPlan.h
struct GatherView;       // GatherPlan.h
struct InterpolateView;  // InterpolatePlan.h
struct NeighborhoodView; // NeighborhoodPlan.h
struct PoolView;         // PoolPlan.h
struct RingRows;         // RingPlan.h
struct RingView;         // RingPlan.h

#ifdef SHARDRT_HOSTCUDA
inline namespace host {
#endif

/// Copies the box that `plan` (planBoxCopy, made once at prepare time)
/// describes from `src` to `dst`, elements of `elemBytes` (1, 2, 4 or 8)
/// bytes: halo packing and unpacking, crops of conv outputs.
cudaError_t launchCopyBox(void *dst, const void *src, const BoxCopyPlan &plan,
                          size_t elemBytes, cudaStream_t stream);
cudaError_t launchFill(float *data, int64_t n, float value,
                       cudaStream_t stream);
/// Sets the destination side of `plan` to `value` (a pad's borders).
cudaError_t launchFillBox(float *data, const BoxCopyPlan &plan, float value,
                          cudaStream_t stream);
/// y[i] = x[gatherSource(view, i)], elements of `elemBytes` (1, 2, 4 or
/// 8) bytes: non-constant pads, broadcasts.
cudaError_t launchGather(void *y, const void *x, const GatherView &view,
                         size_t elemBytes, cudaStream_t stream);
/// y = (a op b) through each operand's broadcast view (GatherPlan.h).
cudaError_t launchCompare(uint8_t *y, const float *a, const float *b,
                          const GatherView &va, const GatherView &vb,
                          cpu::CompareKind kind, cudaStream_t stream);
/// y = c ? t : f through each operand's broadcast view; elements of 1 or 4
/// bytes.
cudaError_t launchSelect(void *y, const uint8_t *c, const void *t,
                         const void *f, const GatherView &vc,
                         const GatherView &vt, const GatherView &vf,
                         size_t elemBytes, cudaStream_t stream);
/// n elements from one of f32, bool, bf16, f16 and int64 to another (through
/// f32, as cpu::cast).
cudaError_t launchCast(void *y, const void *x, int64_t n, cpu::ElemType from,
                       cpu::ElemType to, cudaStream_t stream);
/// How a Scan splits its lines into chunks: whole lines (chunks 1, chunk
/// the line's length), or `chunks` chunks of `chunk` elements (the last may
/// be shorter), whose
/// totals and carries take chunks x lines doubles of device scratch.
struct ScanChunking {
  int64_t chunk = 0, chunks = 1;
};
/// The chunking for an (outer, len, inner) scan: lines in parallel, and
/// chunks of long lines too when the lines alone would leave the device
/// mostly idle (a cumsum along a long sequence of a few channels).
ScanChunking planScanChunks(int64_t outer, int64_t len, int64_t inner);
/// y = x scanned along the middle dim of its (outer, len, inner) view
/// (cpu::scan's fold), each line starting from init's value (outer x inner
/// doubles) or, when init is null, the fold's identity. With several
/// chunks per line, their totals are folded, scanned into carries
/// (`carries`: chunks x lines doubles of scratch), and each chunk scanned
/// from its carry: three launches.
cudaError_t launchScan(float *y, const float *x, const double *init,
                       double *carries, int64_t outer, int64_t len,
                       int64_t inner, const ScanChunking &chunking,
                       cpu::ScanKind kind, cudaStream_t stream);
/// cpu::scanTotals: each line's fold, packed into `packed` (outer x inner
/// x 4 floats), through `totals` (chunks x lines doubles of scratch).
cudaError_t launchScanTotals(float *packed, const float *x, double *totals,
                             int64_t outer, int64_t len, int64_t inner,
                             const ScanChunking &chunking, cpu::ScanKind kind,
                             cudaStream_t stream);
/// cpu::scanCarries: init (outer x inner doubles) from the first `before`
/// of `members` shards' packed totals.
cudaError_t launchScanCarries(double *init, const float *totals, int64_t outer,
                              int64_t members, int64_t inner, int64_t before,
                              cpu::ScanKind kind, cudaStream_t stream);
/// y = x resampled as `view` (planInterpolate's tables, on the device) says.
cudaError_t launchInterpolate(float *y, const float *x,
                              const InterpolateView &view, cudaStream_t stream);
/// A nearest-mode `view` over bf16 or f16 elements: y[i] = x[source of i].
cudaError_t launchGatherNearest(uint16_t *y, const uint16_t *x,
                                const InterpolateView &view,
                                cudaStream_t stream);
/// Neighbourhood attention as `view` (planNeighborhood's tables, on the
/// device) says; q, k, v and y heads-last.
cudaError_t launchNeighborhoodAttention(float *y, const float *q,
                                        const float *k, const float *v,
                                        const NeighborhoodView &view,
                                        cudaStream_t stream);
/// Softmax in place of each row of `blk`'s scores (batches * rows rows of
/// cols) after `maskedScore`; a row with no visible key becomes NaN.
cudaError_t launchMaskedSoftmax(float *scores, const void *mask,
                                const AttentionView &view,
                                const AttentionBlock &blk, cudaStream_t stream);
/// Folds one run of a ring's block into its state (RingPlan.h): the row
/// kernel over `run.rows` rows of scaled scores, leaving the weights in
/// `scores` for the GEMM that adds them times the values to `o`.
cudaError_t launchRingRows(float *scores, const float *mask,
                           const RingView &view, const RingRows &run, float *m,
                           float *lsum, float *o, cudaStream_t stream);
/// Merges a partial state into a ring's state (ringCombine), both laid
/// out as m (rows), lsum (rows), o (rows x ev).
cudaError_t launchRingMerge(float *state, const float *partial, int64_t rows,
                            int64_t ev, cudaStream_t stream);
/// y = ringOutput(m, o, lsum) over `rows` rows of `ev` features.
cudaError_t launchRingFinish(float *y, const float *m, const float *lsum,
                             const float *o, int64_t rows, int64_t ev,
                             cudaStream_t stream);
/// y[i] = pooledValue(view, x, i) for every output.
cudaError_t launchPool(float *y, const float *x, const PoolView &view,
                       cudaStream_t stream);
/// y[i] = the members' blocks reduced in member order by `op`: member q's
/// block at `own` for q == self, else at `others + q * stride` (a group
/// collective's received blocks). y may be `own`.
cudaError_t launchReduceInOrder(float *y, const float *own, const float *others,
                                int64_t stride, int members, int self,
                                int64_t n, comm::ReduceOp op,
                                cudaStream_t stream);
/// y[r, c] += bias[c] for a (rows, cols) row-major y.
cudaError_t launchAddBias(float *y, const float *bias, int64_t rows,
                          int64_t cols, cudaStream_t stream);

#ifdef SHARDRT_HOSTCUDA
} // namespace host
#endif
} // namespace shardrt::exec::cuda

#endif // SHARDRT_ENGINE_CUDA_CUDALAUNCH_H
