//===- Reduce.cpp - Reductions and softmax --------------------------------===//
//
// A reduction first collapses x's dims: size-1 dims never matter, and
// neighbouring dims that are both reduced or both kept merge (x is
// contiguous). What is left alternates between kept and reduced groups, and
// the innermost group decides the loop order:
//  - reduced innermost: every output reduces contiguous runs, so outputs are
//    independent and each run is a streaming reduction;
//  - kept innermost: a block of neighbouring outputs is accumulated row by
//    row, so the loads stay contiguous instead of striding through x once
//    per output. When that leaves too few blocks for the threads (a plain
//    column reduction), the threads split the rows instead.
// Sums accumulate in double; max/min stay in float, where they are exact.
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/Kernels.h"

#include "KernelSupport.h"
#include "VectorExp.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace shardrt::cpu {

namespace {

using detail::expShifted;
using detail::expShiftedEach;
using detail::forChunks;
using detail::kParallelMin;
using detail::laneSum;
using detail::normalisedExp;

// Outputs accumulated together when the innermost dim is kept (and softmax
// columns when its dim is not innermost); their state lives on the stack and
// should stay in L1 next to the rows streaming through.
constexpr int64_t kColumnBlock = 1024;
// Rows folded into the accumulators per pass, which divides the
// accumulators' load/store traffic by as much.
constexpr int kRowsPerPass = 4;
// Column counts up to which a (rows, columns) reduction over rows may give
// every thread its own accumulators for all columns.
constexpr int64_t kSplitRowsMaxColumns = 4096;
// Independent partial results per streaming reduction, so that the compiler
// can vectorise without reassociating a single accumulator.
constexpr int kLanes = 8;

// The sums' loops, compiled for each vector width (KernelSupport.h): the
// float-to-double conversions and adds are 2 lanes wide in the baseline
// build. Each lane and element adds in source order, so every clone gives
// the same bits.
SHARDRT_CPU_VECTOR_CLONES double laneSumCloned(const float *x, int64_t n) {
  return laneSum(x, n);
}

SHARDRT_CPU_VECTOR_CLONES void addRowCloned(double *acc, const float *x,
                                            int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    acc[i] += x[i];
}

SHARDRT_CPU_VECTOR_CLONES void addRowsCloned(double *acc, const float *const *r,
                                             int64_t n) {
  static_assert(kRowsPerPass == 4);
  for (int64_t i = 0; i < n; ++i)
    acc[i] += (double(r[0][i]) + r[1][i]) + (double(r[2][i]) + r[3][i]);
}

struct SumOp {
  using Acc = double;
  static Acc init() { return 0.0; }
  static Acc run(Acc acc, const float *x, int64_t n) {
    return acc + laneSumCloned(x, n);
  }
  static void addRow(Acc *acc, const float *x, int64_t n) {
    addRowCloned(acc, x, n);
  }
  static void addRows(Acc *acc, const float *const *r, int64_t n) {
    addRowsCloned(acc, r, n);
  }
  static Acc combine(Acc a, Acc b) { return a + b; }
  static float finish(Acc a, double divisor) {
    return static_cast<float>(a / divisor);
  }
};

/// Max (IsMax) or min. NaN never wins a comparison, so the lanes skip it and
/// a separate flag makes the result NaN, as in PyTorch.
template <bool IsMax> struct ExtremeOp {
  using Acc = float;
  static Acc init() {
    return IsMax ? -std::numeric_limits<float>::infinity()
                 : std::numeric_limits<float>::infinity();
  }
  static bool better(float v, float m) { return IsMax ? v > m : v < m; }
  static Acc run(Acc acc, const float *x, int64_t n) {
    float m[kLanes];
    std::fill_n(m, kLanes, init());
    int nan = 0;
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
      for (int j = 0; j < kLanes; ++j) {
        float v = x[i + j];
        m[j] = better(v, m[j]) ? v : m[j];
        nan |= v != v;
      }
    for (; i < n; ++i) {
      m[0] = better(x[i], m[0]) ? x[i] : m[0];
      nan |= x[i] != x[i];
    }
    if (nan)
      return std::numeric_limits<float>::quiet_NaN();
    for (int j = 0; j < kLanes; ++j)
      acc = combine(acc, m[j]);
    return acc;
  }
  static void addRow(Acc *acc, const float *x, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      acc[i] = combine(acc[i], x[i]);
  }
  static void addRows(Acc *acc, const float *const *r, int64_t n) {
    static_assert(kRowsPerPass == 4);
    for (int64_t i = 0; i < n; ++i)
      acc[i] =
          combine(combine(combine(combine(acc[i], r[0][i]), r[1][i]), r[2][i]),
                  r[3][i]);
  }
  /// Keeps a NaN `a` (nothing beats it) and takes a NaN `b`.
  static Acc combine(Acc a, Acc b) { return better(b, a) || b != b ? b : a; }
  static float finish(Acc a, double) { return a; }
};

struct Dim {
  int64_t size;
  int64_t stride; // in elements of x
};

/// Offset of the linear index `i` over `dims` (row-major).
int64_t offsetOf(const std::vector<Dim> &dims, int64_t i) {
  int64_t off = 0;
  for (size_t d = dims.size(); d-- > 0;) {
    off += (i % dims[d].size) * dims[d].stride;
    i /= dims[d].size;
  }
  return off;
}

/// Calls f(offset) for every index over `dims`, in row-major order.
template <typename F> void forEachOffset(const std::vector<Dim> &dims, F &&f) {
  std::vector<int64_t> idx(dims.size(), 0);
  int64_t off = 0;
  while (true) {
    f(off);
    size_t d = dims.size();
    for (; d-- > 0;) {
      off += dims[d].stride;
      if (++idx[d] < dims[d].size)
        break;
      off -= dims[d].size * dims[d].stride;
      idx[d] = 0;
    }
    if (d == static_cast<size_t>(-1))
      return;
  }
}

/// x's dims after collapsing, split into kept and reduced ones (innermost
/// group excluded), plus the innermost group.
struct ReducePlan {
  std::vector<Dim> kept, reduced;
  Dim inner{1, 1};
  bool innerReduced = false;
};

ReducePlan makePlan(const Shape &xShape, const std::vector<bool> &reduceDim) {
  std::vector<int64_t> sizes;
  std::vector<bool> flags;
  for (size_t d = 0; d < xShape.size(); ++d) {
    if (xShape[d] == 1)
      continue;
    if (!sizes.empty() && flags.back() == reduceDim[d])
      sizes.back() *= xShape[d];
    else {
      sizes.push_back(xShape[d]);
      flags.push_back(reduceDim[d]);
    }
  }
  ReducePlan p;
  if (sizes.empty())
    return p;
  int64_t stride = 1;
  std::vector<Dim> dims(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    dims[d] = {sizes[d], stride};
    stride *= sizes[d];
  }
  p.inner = dims.back();
  p.innerReduced = flags.back();
  for (size_t d = 0; d + 1 < dims.size(); ++d)
    (flags[d] ? p.reduced : p.kept).push_back(dims[d]);
  return p;
}

/// The whole of x reduces to one value: threads take slices and their
/// partial results combine in thread order, which keeps sums reproducible.
template <typename Op> typename Op::Acc reduceAll(const float *x, int64_t n) {
  if (n < kParallelMin)
    return Op::run(Op::init(), x, n);
  std::vector<typename Op::Acc> part(omp_get_max_threads(), Op::init());
  int used = 1;
#pragma omp parallel
  {
    int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    int64_t begin = n * t / nt, end = n * (t + 1) / nt;
    part[t] = Op::run(Op::init(), x + begin, end - begin);
    if (t == 0)
      used = static_cast<int>(nt);
  }
  typename Op::Acc acc = Op::init();
  for (int t = 0; t < used; ++t)
    acc = Op::combine(acc, part[t]);
  return acc;
}

template <typename Op>
void reduceInnerReduced(const ReducePlan &p, const float *x, float *y,
                        int64_t outputs, int64_t total, double divisor) {
  if (outputs == 1 && p.reduced.empty()) {
    y[0] = Op::finish(reduceAll<Op>(x, p.inner.size), divisor);
    return;
  }
  forChunks(outputs, total, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      const float *base = x + offsetOf(p.kept, o);
      typename Op::Acc acc = Op::init();
      forEachOffset(p.reduced, [&](int64_t off) {
        acc = Op::run(acc, base + off, p.inner.size);
      });
      y[o] = Op::finish(acc, divisor);
    }
  });
}

/// Folds every row at `offsets` (relative to base) into n accumulators.
template <typename Op>
void accumulateRows(typename Op::Acc *acc, const float *base,
                    const std::vector<Dim> &offsets, int64_t n) {
  const float *rows[kRowsPerPass];
  int pending = 0;
  forEachOffset(offsets, [&](int64_t off) {
    rows[pending++] = base + off;
    if (pending == kRowsPerPass) {
      Op::addRows(acc, rows, n);
      pending = 0;
    }
  });
  for (int k = 0; k < pending; ++k)
    Op::addRow(acc, rows[k], n);
}

/// An (r, m) reduction over r with too few column blocks to keep the threads
/// busy: each thread folds a slice of the rows into its own accumulators,
/// which then combine in thread order.
template <typename Op>
void reduceSplitRows(const float *x, int64_t rows, int64_t m, float *y,
                     double divisor) {
  using Acc = typename Op::Acc;
  std::vector<Acc> part(static_cast<size_t>(omp_get_max_threads()) * m,
                        Op::init());
  int used = 1;
#pragma omp parallel
  {
    int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    int64_t r0 = rows * t / nt, r1 = rows * (t + 1) / nt;
    std::vector<Dim> slice = {{r1 - r0, m}};
    if (r0 < r1)
      accumulateRows<Op>(&part[t * m], x + r0 * m, slice, m);
    if (t == 0)
      used = static_cast<int>(nt);
  }
  for (int64_t c = 0; c < m; ++c) {
    Acc acc = part[c];
    for (int t = 1; t < used; ++t)
      acc = Op::combine(acc, part[t * m + c]);
    y[c] = Op::finish(acc, divisor);
  }
}

template <typename Op>
void reduceInnerKept(const ReducePlan &p, const float *x, float *y,
                     int64_t outputs, int64_t total, double divisor) {
  const int64_t m = p.inner.size;
  const int64_t blocks = (m + kColumnBlock - 1) / kColumnBlock;
  if (p.kept.empty() && p.reduced.size() == 1 && total >= kParallelMin &&
      m <= kSplitRowsMaxColumns && blocks < omp_get_max_threads())
    return reduceSplitRows<Op>(x, p.reduced[0].size, m, y, divisor);
  forChunks(outputs / m * blocks, total, [&](int64_t begin, int64_t end) {
    typename Op::Acc acc[kColumnBlock];
    for (int64_t task = begin; task < end; ++task) {
      int64_t o = task / blocks, c0 = task % blocks * kColumnBlock;
      int64_t n = std::min(kColumnBlock, m - c0);
      std::fill_n(acc, n, Op::init());
      accumulateRows<Op>(acc, x + offsetOf(p.kept, o) + c0, p.reduced, n);
      float *out = y + o * m + c0;
      for (int64_t i = 0; i < n; ++i)
        out[i] = Op::finish(acc[i], divisor);
    }
  });
}

template <typename Op>
void reduceWith(const float *x, const Shape &xShape,
                const std::vector<bool> &reduceDim, float *y, bool mean) {
  int64_t count = 1, outputs = 1;
  for (size_t d = 0; d < xShape.size(); ++d)
    (reduceDim[d] ? count : outputs) *= xShape[d];
  const int64_t total = count * outputs;
  if (outputs == 0)
    return;
  const double divisor = mean ? static_cast<double>(count) : 1.0;
  if (count == 0) {
    // Sum over nothing is 0; mean is 0 / 0.
    std::fill_n(y, outputs, Op::finish(Op::init(), divisor));
    return;
  }
  ReducePlan p = makePlan(xShape, reduceDim);
  if (p.innerReduced)
    reduceInnerReduced<Op>(p, x, y, outputs, total, divisor);
  else
    reduceInnerKept<Op>(p, x, y, outputs, total, divisor);
}

/// Softmax along contiguous rows of length n. log_softmax subtracts the max
/// and then log(sum) separately, in PyTorch's order. The exps vectorise
/// (lib/VectorExp.h): softmax writes them into y; log_softmax, whose y keeps
/// none, into scratch a block at a time. Sums are in double.
void softmaxRow(const float *x, float *y, int64_t n, bool log) {
  float mx = ExtremeOp<true>::run(ExtremeOp<true>::init(), x, n);
  double sum = 0.0;
  if (!log) {
    normalisedExp(x, mx, y, n);
    return;
  }
  float e[kColumnBlock];
  for (int64_t i = 0; i < n; i += kColumnBlock) {
    int64_t m = std::min(kColumnBlock, n - i);
    expShifted(x + i, mx, e, m);
    sum += laneSum(e, m);
  }
  float lse = static_cast<float>(std::log(sum));
  for (int64_t i = 0; i < n; ++i)
    y[i] = x[i] - mx - lse;
}

/// Softmax along a dim of length len whose elements are `inner` apart, for
/// the n <= kColumnBlock neighbouring columns starting at x / y.
void softmaxColumns(const float *x, float *y, int64_t len, int64_t inner,
                    int64_t n, bool log) {
  float mx[kColumnBlock], e[kColumnBlock];
  double sum[kColumnBlock];
  std::fill_n(mx, n, -std::numeric_limits<float>::infinity());
  std::fill_n(sum, n, 0.0);
  for (int64_t l = 0; l < len; ++l)
    ExtremeOp<true>::addRow(mx, x + l * inner, n);
  for (int64_t l = 0; l < len; ++l) {
    float *row = log ? e : y + l * inner;
    expShiftedEach(x + l * inner, mx, row, n);
    for (int64_t c = 0; c < n; ++c)
      sum[c] += row[c];
  }
  // Either log(sum) or 1 / sum, per column.
  float scale[kColumnBlock];
  for (int64_t c = 0; c < n; ++c)
    scale[c] = static_cast<float>(log ? std::log(sum[c]) : 1.0 / sum[c]);
  for (int64_t l = 0; l < len; ++l)
    for (int64_t c = 0; c < n; ++c) {
      int64_t i = l * inner + c;
      y[i] = log ? x[i] - mx[c] - scale[c] : y[i] * scale[c];
    }
}

} // namespace

SHARDRT_CPU_VECTOR_CLONES double sumSerial(const float *x, int64_t n) {
  // 16 lanes: the adds' latency is hidden even where a caller's data is in
  // L1 (the fused evaluator's tiles).
  constexpr int kSumLanes = 16;
  double lane[kSumLanes] = {};
  int64_t i = 0;
  for (; i + kSumLanes <= n; i += kSumLanes)
    for (int q = 0; q < kSumLanes; ++q)
      lane[q] += double(x[i + q]);
  for (; i < n; ++i)
    lane[0] += double(x[i]);
  double sum = 0;
  for (int q = 0; q < kSumLanes; ++q)
    sum += lane[q];
  return sum;
}

void accumulateSerial(double *acc, const float *x, int64_t n) {
  addRowCloned(acc, x, n);
}

void reduce(ReduceKind kind, const float *x, const Shape &xShape,
            const std::vector<bool> &reduceDim, float *y) {
  switch (kind) {
  case ReduceKind::Sum:
    return reduceWith<SumOp>(x, xShape, reduceDim, y, false);
  case ReduceKind::Mean:
    return reduceWith<SumOp>(x, xShape, reduceDim, y, true);
  case ReduceKind::Max:
    return reduceWith<ExtremeOp<true>>(x, xShape, reduceDim, y, false);
  case ReduceKind::Min:
    return reduceWith<ExtremeOp<false>>(x, xShape, reduceDim, y, false);
  }
}

void softmax(const float *x, const Shape &shape, int64_t dim, bool log,
             float *y) {
  const int64_t total = numElements(shape);
  if (total == 0)
    return;
  if (dim < 0)
    dim += static_cast<int64_t>(shape.size());
  // A rank-0 tensor is one row of length 1.
  int64_t outer = 1, len = 1, inner = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    (d < dim ? outer : d == dim ? len : inner) *= shape[d];
  if (inner == 1) {
    forChunks(outer, total, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o)
        softmaxRow(x + o * len, y + o * len, len, log);
    });
    return;
  }
  const int64_t blocks = (inner + kColumnBlock - 1) / kColumnBlock;
  forChunks(outer * blocks, total, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      int64_t o = task / blocks, c0 = task % blocks * kColumnBlock;
      int64_t off = o * len * inner + c0;
      softmaxColumns(x + off, y + off, len, inner,
                     std::min(kColumnBlock, inner - c0), log);
    }
  });
}

} // namespace shardrt::cpu
