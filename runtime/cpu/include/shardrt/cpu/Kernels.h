//===- Kernels.h - CPU kernels of the shardc runtime ------------*- C++ -*-===//
//
// Plain functions over dense, contiguous, row-major buffers. The executor
// (runtime/engine) decodes instructions into these parameter structs once, when
// a session is prepared, and checks every shape there; the kernels trust
// their arguments (they never allocate per call beyond small scratch and never
// fail). Semantics are PyTorch's, op by op; each kernel's comment says where
// the runtime's contract narrows or extends them.
//
// Threading: kernels parallelise with OpenMP over their outermost independent
// loops; the caller sets the thread count (omp_set_num_threads) per rank
// thread.
//
// Element types: float unless stated; booleans are one byte (0 or 1).
// Data-movement kernels are type-agnostic and take the element size.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_CPU_KERNELS_H
#define SHARDRT_CPU_KERNELS_H

#include "shardrt/cpu/ScanStep.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardrt::cpu {

using Shape = std::vector<int64_t>;

/// Number of elements of a shape (1 for rank 0).
int64_t numElements(const Shape &shape);

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

enum class UnaryKind {
  Neg,
  Abs,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Tanh,
  Sigmoid,
  Relu,
  Silu,
  Gelu,     // exact: x * 0.5 * (1 + erf(x / sqrt(2)))
  GeluTanh, // approximate="tanh"
  Sin,
  Cos,
  Erf,
  Log1p,
  Expm1,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Asinh,
  Acosh,
  Atanh,
  Log2,
  Log10,
  Exp2,
  Erfc,
  Floor,
  Ceil,
  Trunc,
  Round,
  Reciprocal,
};
/// Exp, Sigmoid and Silu use an exp that vectorises, within 1 ulp of the
/// correctly rounded exp (lib/VectorExp.h).
void unary(UnaryKind kind, const float *x, float *y, int64_t n);
/// The same values on the calling thread alone (no OpenMP): for callers
/// that split the work themselves, such as the fused evaluator's tiles.
void unarySerial(UnaryKind kind, const float *x, float *y, int64_t n);

enum class BinaryKind {
  Add,
  Sub,
  Mul,
  Div,
  Maximum,
  Minimum,
  Pow,
  Atan2,
  Fmod,
  Remainder, // torch.remainder: the sign of the divisor (Python's %)
  Hypot,
  Copysign,
};
enum class CompareKind { Eq, Ne, Lt, Le, Gt, Ge };

/// Broadcasting (numpy rules). aShape and bShape have the same rank as
/// outShape (the executor left-pads them with 1s) and each dim is either
/// equal to outShape's or 1. maximum/minimum propagate NaN like PyTorch.
void binary(BinaryKind kind, const float *a, const Shape &aShape,
            const float *b, const Shape &bShape, float *y,
            const Shape &outShape);
/// y[i] = a[i * aStride] op b[i * bStride] for i < n, each stride 1 or 0
/// (one value for every i), on the calling thread alone.
void binarySerial(BinaryKind kind, const float *a, int64_t aStride,
                  const float *b, int64_t bStride, float *y, int64_t n);
/// Same broadcasting; y is bool (uint8_t 0/1).
void compare(CompareKind kind, const float *a, const Shape &aShape,
             const float *b, const Shape &bShape, uint8_t *y,
             const Shape &outShape);
/// y[i] = 1.0f where a[i * aStride] op b[i * bStride] holds, else 0.0f
/// (bools as the fused evaluator holds them), on the calling thread alone.
void compareSerial(CompareKind kind, const float *a, int64_t aStride,
                   const float *b, int64_t bStride, float *y, int64_t n);
/// y[i] = c[i * cStride] != 0 ? t[i * tStride] : f[i * fStride], each
/// stride 1 or 0, on the calling thread alone.
void selectSerial(const float *c, int64_t cStride, const float *t,
                  int64_t tStride, const float *f, int64_t fStride, float *y,
                  int64_t n);
/// y = cond ? t : f with the same broadcasting for all three operands;
/// t, f and y have elements of elemBytes bytes.
void select(const uint8_t *cond, const Shape &condShape, const void *t,
            const Shape &tShape, const void *f, const Shape &fShape, void *y,
            const Shape &outShape, size_t elemBytes);
/// y[i] = x[i] broadcast from xShape (same rank as outShape, dims 1 or equal).
void broadcastTo(const void *x, const Shape &xShape, void *y,
                 const Shape &outShape, size_t elemBytes);

enum class ElemType { F32, Bool, BF16, F16, I64 };
/// Bytes of one element of `type`.
size_t elementBytes(ElemType type);
/// Element-type conversion with PyTorch's rules (float -> bool: x != 0;
/// bool -> float: 0/1; to bf16 or f16: rounded to nearest even, see
/// HalfFloats.h; int64 -> any: through f32, as c10's conversions go; float
/// -> int64: floatToInt64 in Int64Casts.h). Same type: a copy.
void cast(ElemType from, const void *x, ElemType to, void *y, int64_t n);

//===----------------------------------------------------------------------===//
// Reductions and statistics
//===----------------------------------------------------------------------===//

enum class ReduceKind { Sum, Mean, Max, Min };
/// Reduces the dims d with reduceDim[d] set; y has xShape with those dims
/// removed (keepdim does not change the data layout). Sums accumulate in
/// double. Max/Min propagate NaN. A reduction over zero elements gives 0 for
/// Sum, NaN for Mean (PyTorch); the executor rejects Max/Min over nothing.
void reduce(ReduceKind kind, const float *x, const Shape &xShape,
            const std::vector<bool> &reduceDim, float *y);

/// Sum of x[0..n) in double over 16 independent lanes, on the calling
/// thread alone (for callers that split the work themselves, such as the
/// fused evaluator). Vectorised for the widest unit the CPU has, with the
/// same bits on every CPU: the lanes are never reassociated.
double sumSerial(const float *x, int64_t n);
/// acc[i] += x[i] in double for i < n, on the calling thread alone.
void accumulateSerial(double *acc, const float *x, int64_t n);

/// torch.cumsum, cumprod, logcumsumexp, and cummax / cummin's values along
/// `dim` of x (ScanStep.h's fold, in double). `init`, when not null, holds
/// each line's running value to start from (x's shape with `dim` of size
/// 1) instead of the identity: the carry of a split dim's earlier shards.
void scan(ScanKind kind, const float *x, const Shape &shape, int64_t dim,
          const double *init, float *y);
/// Each line's fold of x along `dim` from the identity, packed
/// (packScanValue) into `totals`: x's shape with `dim` of size 1, then 4.
void scanTotals(ScanKind kind, const float *x, const Shape &shape, int64_t dim,
                float *totals);
/// The running value each line starts from after the first `before` of
/// `members` shards whose packed totals are `totals` ((outer, members,
/// inner, 4) viewed): their fold, in order, into init (outer, inner).
void scanCarries(ScanKind kind, const float *totals, int64_t outer,
                 int64_t members, int64_t inner, int64_t before, double *init);

/// softmax / log_softmax along dim (max-subtracted, like PyTorch).
void softmax(const float *x, const Shape &shape, int64_t dim, bool log,
             float *y);

/// layer_norm over the trailing `inner` elements of each of `outer` rows;
/// weight/bias have `inner` elements or are null. Biased variance.
void layerNorm(const float *x, int64_t outer, int64_t inner,
               const float *weight, const float *bias, double eps, float *y);
/// group_norm: x is (N, C, spatial...) flattened to (n, c, spatial);
/// weight/bias have c elements or are null.
void groupNorm(const float *x, int64_t n, int64_t c, int64_t spatial,
               int64_t groups, const float *weight, const float *bias,
               double eps, float *y);
/// batch_norm in inference mode with running statistics (n, c, spatial).
void batchNormInference(const float *x, int64_t n, int64_t c, int64_t spatial,
                        const float *mean, const float *var,
                        const float *weight, const float *bias, double eps,
                        float *y);

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

/// Batched GEMM: for each b < batch, y[b] (m x n) = a[b] (m x k) * b[b]
/// (k x n). aBatchStride / bBatchStride may be 0 (broadcast operand).
/// Uses BLAS (sgemm) where it pays.
void batchedGemm(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a,
                 int64_t aBatchStride, const float *b, int64_t bBatchStride,
                 float *y);
/// torch.nn.functional.linear: x (rows, in), w (out, in), bias (out) or null;
/// y (rows, out).
void linear(const float *x, int64_t rows, int64_t in, const float *w,
            const float *bias, int64_t out, float *y);

//===----------------------------------------------------------------------===//
// Windowed ops. Spatial rank 1..3; arrays are indexed by spatial dim.
//===----------------------------------------------------------------------===//

struct ConvParams {
  int rank = 0; // spatial dims, 1..3
  int64_t n = 0, cin = 0, cout = 0, groups = 1;
  int64_t in[3] = {1, 1, 1};  // input spatial extents
  int64_t out[3] = {1, 1, 1}; // output spatial extents
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t padLo[3] = {0, 0, 0}; // zero padding before; the high side
                                // follows from out (never read past in)
  int64_t dilation[3] = {1, 1, 1};
  /// conv only: the output box [regionLo, regionHi) per spatial dim that the
  /// call computes; the rest of y is left as it is. regionHi < 0 means the
  /// whole extent (out). Lets a rank compute its interior while a halo is in
  /// flight and the boundary after it arrives.
  int64_t regionLo[3] = {0, 0, 0};
  int64_t regionHi[3] = {-1, -1, -1};
};
/// conv{1,2,3}d with zero padding: x (n, cin, in...), w (cout, cin/groups,
/// kernel...), bias (cout) or null, y (n, cout, out...); only the output
/// positions inside p's region are written.
void conv(const ConvParams &p, const float *x, const float *w,
          const float *bias, float *y);
/// The same with x of element type `xType` (f32, bf16 or f16), widened to
/// f32 as im2col packs it: the same sums as conv on x's f32 cast, without
/// the cast's f32 copy of x.
void conv(const ConvParams &p, const void *x, ElemType xType, const float *w,
          const float *bias, float *y);
/// conv_transpose{1,2,3}d: x (n, cin, in...), w (cin, cout/groups,
/// kernel...), bias (cout) or null, y (n, cout, out...). padLo is PyTorch's
/// `padding`; out (which includes output_padding) fixes the high side.
/// y[o] gets x[i] * w[k] where o = i * stride - padLo + k * dilation.
void convTranspose(const ConvParams &p, const float *x, const float *w,
                   const float *bias, float *y);

struct PoolParams {
  int rank = 0;
  int64_t channels = 0; // n * c, pooled independently
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t padLo[3] = {0, 0, 0};
  int64_t dilation[3] = {1, 1, 1}; // max pool only
  bool countIncludePad = true;     // avg pool only
  int64_t divisorOverride = 0;     // avg pool only; 0 = none
  /// Avg pool's padded extent ends at in + padHi, PyTorch's
  /// `min(start + kernel, in + pad)`; for ceil_mode windows may go past it.
  int64_t padHi[3] = {0, 0, 0};
};
/// Windows are clipped to the real input for max; padding never wins.
void maxPool(const PoolParams &p, const float *x, float *y);
/// PyTorch avg_pool semantics, including count_include_pad with the window
/// clipped to [-padLo, in + padHi) and divisor_override.
void avgPool(const PoolParams &p, const float *x, float *y);

enum class InterpMode { Nearest, NearestExact, Linear };
struct InterpParams {
  int rank = 0;
  int64_t channels = 0; // n * c
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  /// Source coordinate of output index o (global, see offsets) is, per dim:
  ///  nearest:        floor(o * scale)                (clamped to inSize-1)
  ///  nearest-exact:  floor((o + 0.5) * scale)        (clamped)
  ///  linear, align_corners=false: max(0, (o + 0.5) * scale - 0.5)
  ///  linear, align_corners=true:  o * scale
  /// The compiler computes scale as PyTorch does (1/scale_factor when given,
  /// else in/out; (in-1)/(out-1) with align_corners, 0 when out == 1).
  double scale[3] = {1, 1, 1};
  bool alignCorners = false;
  /// Global index of the first local output / input element and the global
  /// input size, so a shard (with its halo) computes exactly the global
  /// result. Unpartitioned: 0, 0, in.
  int64_t outOffset[3] = {0, 0, 0};
  int64_t inOffset[3] = {0, 0, 0};
  int64_t inGlobal[3] = {1, 1, 1};
};
/// linear = linear/bilinear/trilinear by rank.
void interpolate(InterpMode mode, const InterpParams &p, const float *x,
                 float *y);
/// The nearest modes (one tap of weight 1 per axis) as the gather they are,
/// exact for elements of any type: elemBytes 2 (bf16, f16) or 4.
void interpolateNearest(InterpMode mode, const InterpParams &p, const void *x,
                        void *y, size_t elemBytes);

/// What `interpolate` reads for one output index along one dim: up to two
/// local source indices and their weights (taps == 1: only index0, weight 1).
struct InterpAxis {
  std::vector<int64_t> index0, index1;
  std::vector<float> weight0, weight1;
  int taps = 1;
};
/// The three spatial dims `interpolate` walks (ranks below 3 get unit dims
/// in front), with their local input and output extents. Output element
/// (c, o0, o1, o2) blends the innermost dim first, then each outer one:
/// v(i0, i1) = x[c][i0][i1][index0[o2]] * weight0[o2] (+ index1, weight1),
/// then over axis 1, then axis 0. Other backends build the same tables.
struct InterpAxes {
  InterpAxis axis[3];
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
};
InterpAxes interpolationAxes(InterpMode mode, const InterpParams &p);

enum class PadMode { Constant, Reflect, Replicate, Circular };
/// Pads (or crops, with negative amounts) every dim d by lo[d] / hi[d]
/// (already in dim order, not F.pad's reversed order). Reflect needs
/// lo, hi < shape[d]; circular needs lo, hi <= shape[d] (executor checks).
/// value is used for Constant mode and must be representable in the type.
void pad(const void *x, const Shape &xShape, const std::vector<int64_t> &lo,
         const std::vector<int64_t> &hi, PadMode mode, double value, void *y,
         size_t elemBytes, bool isFloat);
/// Per output index along one dim of `pad`: the source index, or -1 for
/// the fill value. Negative amounts crop first and the rest pads the
/// cropped extent, which matches PyTorch for every mode.
std::vector<int64_t> padIndexMap(int64_t in, int64_t lo, int64_t hi,
                                 PadMode mode);

//===----------------------------------------------------------------------===//
// Data movement (type-agnostic)
//===----------------------------------------------------------------------===//

/// y = x.permute(perm); y's shape is xShape permuted.
void permute(const void *x, const Shape &xShape,
             const std::vector<int64_t> &perm, void *y, size_t elemBytes);
/// y = x[start[d] : : step[d]] per dim with outShape elements (step >= 1).
void slice(const void *x, const Shape &xShape,
           const std::vector<int64_t> &start, const std::vector<int64_t> &step,
           void *y, const Shape &outShape, size_t elemBytes);
/// torch.cat(xs, dim).
void concat(const std::vector<const void *> &xs,
            const std::vector<Shape> &shapes, int64_t dim, void *y,
            size_t elemBytes);
/// Copies a box [lo, lo + boxShape) of x into y at yLo; both row-major.
/// Used by halo exchanges and reshards for packing and unpacking.
void copyBox(const void *x, const Shape &xShape,
             const std::vector<int64_t> &xLo, void *y, const Shape &yShape,
             const std::vector<int64_t> &yLo, const Shape &boxShape,
             size_t elemBytes);

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// scaled_dot_product_attention for `batch` independent problems:
/// q (batch, l, e), k (batch, s, e), v (batch, s, ev) -> y (batch, l, ev).
/// mask, if given, is (maskBatch, l, s) with maskBatch 1 or batch (the
/// executor materialises other broadcasts): bool masks keep positions where
/// true, float masks are added to the scores. causal keeps j <= i (top-left
/// aligned, PyTorch's is_causal). A row with every score masked gives NaN, as
/// in PyTorch.
void sdpa(int64_t batch, int64_t l, int64_t s, int64_t e, int64_t ev,
          const float *q, const float *k, const float *v, const void *mask,
          bool maskIsBool, int64_t maskBatch, bool causal, double scale,
          float *y);

/// One key block of attention folded into an online softmax (a ring's
/// step), for one problem: q (l, e) against the block's keys k (s, e) and
/// values v (s, ev), scores scaled by `scale`.
struct OnlineBlock {
  int64_t l = 0, s = 0, e = 0, ev = 0;
  const float *q = nullptr, *k = nullptr, *v = nullptr;
  double scale = 1.0;
  /// The block's additive mask, or null: entry (i, j) at
  /// mask[i * maskRowStride + j * maskColStride] (a stride of 0
  /// broadcasts). A masked (-inf) key gets no weight; a row that no block
  /// showed a key keeps the max -inf, and its output is NaN.
  const float *mask = nullptr;
  int64_t maskRowStride = 0, maskColStride = 0;
  /// Causal: the global positions of query row 0 and key row 0; key j's
  /// score for query i becomes -inf when keyLo + j > queryLo + i.
  bool causal = false;
  int64_t queryLo = 0, keyLo = 0;
};

/// Folds `b` into the running row max m (l), sum of exp(score - m) lsum (l)
/// and unnormalised output o (l, ev), which `first` starts instead. The
/// result is o / lsum once every block is in. Tiles of query rows run on
/// the OpenMP team, each with bounded scores of its own.
void attendOnline(const OnlineBlock &b, bool first, float *m, float *lsum,
                  float *o);

struct NeighborhoodParams {
  int rank = 0; // spatial dims 1..3
  int64_t batch = 0, heads = 0;
  int64_t dim = 0;                 // head dim of q and k (contracted)
  int64_t valueDim = 0;            // head dim of v and y
  int64_t qExtent[3] = {1, 1, 1};  // local query extents
  int64_t kvExtent[3] = {1, 1, 1}; // local key/value extents (with halo)
  int64_t kernel[3] = {1, 1, 1};   // odd
  int64_t dilation[3] = {1, 1, 1};
  /// Global position of the first local query / key element and the global
  /// spatial size: the window of a query depends on its global position.
  /// Unpartitioned: 0, 0, extent.
  int64_t qOffset[3] = {0, 0, 0};
  int64_t kvOffset[3] = {0, 0, 0};
  int64_t global[3] = {1, 1, 1};
  double scale = 1.0;
};
/// NATTEN neighborhood attention, heads-last layout:
/// q (batch, qExtent..., heads, dim), k (batch, kvExtent..., heads, dim),
/// v (batch, kvExtent..., heads, valueDim), y (batch, qExtent..., heads,
/// valueDim); scale multiplies q.k. Along a dim of global size L with kernel
/// K and dilation D, query i (global) attends to the K keys
/// (start + t) * D + g, t < K, where g = i mod D, Lg = ceil((L - g) / D) and
/// start = clamp(i / D - K / 2, 0, Lg - K): the window is centred and shifted
/// inward at the borders (NATTEN), never padded. Local key index = global -
/// kvOffset (the executor guarantees every needed key is local). Softmax is
/// over the product of the per-dim windows.
/// First global key of query i's window along one dim (the start rule
/// above); needs global >= kernel * dilation. The executor checks locality
/// with the same function the kernel uses.
int64_t neighborhoodWindowStart(int64_t i, int64_t global, int64_t kernel,
                                int64_t dilation);

void neighborhoodAttention(const NeighborhoodParams &p, const float *q,
                           const float *k, const float *v, float *y);

/// No query row to compute (an empty q's other extents may be huge, so
/// no per-query table should be built for it).
inline bool neighborhoodIsEmpty(const NeighborhoodParams &p) {
  // The output's extents; a zero q/k head dim still averages the values.
  bool empty = p.batch <= 0 || p.heads <= 0 || p.valueDim <= 0;
  for (int d = 0; d < p.rank; ++d)
    empty = empty || p.qExtent[d] <= 0;
  return empty;
}

} // namespace shardrt::cpu

#endif // SHARDRT_CPU_KERNELS_H
