//===- Elementwise.cpp - Elementwise and broadcasting kernels -------------===//
//
// Every broadcasting kernel goes through one plan: the output's dims are
// collapsed (size-1 dims dropped, neighbours merged wherever every operand is
// contiguous across them), so a same-shape or scalar operand ends up as a
// single flat dim and the innermost dim yields runs in which each operand's
// stride is 0 (broadcast) or 1. The run loops fix that stride pattern at
// compile time so that the compiler vectorises them; the outer dims are
// walked with an odometer instead of divisions per element.
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/Kernels.h"

#include "shardrt/cpu/HalfFloats.h"
#include "shardrt/cpu/Int64Casts.h"

#include "KernelSupport.h"
#include "VectorExp.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <type_traits>

namespace shardrt::cpu {

int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

namespace {

using detail::kParallelMin;

// Thread boundaries are rounded to this many elements so that threads do not
// write the same cache line.
constexpr int64_t kChunkAlign = 64;

/// Elementwise work: split when n is large, at kChunkAlign boundaries.
template <typename F> void forChunks(int64_t n, F &&f) {
  detail::forChunks(n, n, std::forward<F>(f), kChunkAlign);
}

constexpr int kMaxOps = 3;
constexpr float kSqrtHalf = 0.70710678118654752440f;
// sqrt(2 / pi), GELU's tanh approximation.
constexpr float kGeluBeta = 0.79788456080286535588f;

/// The collapsed output dims and each operand's element stride along them
/// (0 where the operand broadcasts).
struct BroadcastPlan {
  int numOps = 0;
  std::vector<int64_t> size;
  std::vector<int64_t> stride[kMaxOps];
  int64_t total = 0;

  int64_t innerStride(int op) const { return stride[op].back(); }
};

BroadcastPlan makePlan(const Shape &out,
                       std::initializer_list<const Shape *> ops) {
  BroadcastPlan p;
  p.numOps = static_cast<int>(ops.size());
  p.total = numElements(out);
  size_t rank = out.size();
  std::vector<int64_t> full[kMaxOps];
  int k = 0;
  for (const Shape *s : ops) {
    full[k].assign(rank, 0);
    int64_t st = 1;
    for (size_t d = rank; d-- > 0;) {
      full[k][d] = (*s)[d] == 1 ? 0 : st;
      st *= (*s)[d];
    }
    ++k;
  }
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1)
      continue;
    bool merge = !p.size.empty();
    for (k = 0; k < p.numOps && merge; ++k)
      merge = p.stride[k].back() == full[k][d] * out[d];
    if (merge) {
      p.size.back() *= out[d];
      for (k = 0; k < p.numOps; ++k)
        p.stride[k].back() = full[k][d];
      continue;
    }
    p.size.push_back(out[d]);
    for (k = 0; k < p.numOps; ++k)
      p.stride[k].push_back(full[k][d]);
  }
  if (p.size.empty()) {
    p.size.push_back(1);
    for (k = 0; k < p.numOps; ++k)
      p.stride[k].push_back(0);
  }
  return p;
}

/// Calls run(outOffset, operandOffsets, length) for every innermost run of
/// the output, in parallel for large outputs.
template <typename RunFn> void forEachRun(const BroadcastPlan &p, RunFn &&run) {
  const int rank = static_cast<int>(p.size.size());
  const int64_t inner = p.size.back();
  forChunks(p.total, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> idx(rank);
    int64_t off[kMaxOps] = {};
    int64_t rem = begin;
    for (int d = rank - 1; d >= 0; --d) {
      idx[d] = rem % p.size[d];
      rem /= p.size[d];
      for (int k = 0; k < p.numOps; ++k)
        off[k] += idx[d] * p.stride[k][d];
    }
    for (int64_t pos = begin; pos < end;) {
      int64_t len = std::min(inner - idx[rank - 1], end - pos);
      run(pos, static_cast<const int64_t *>(off), len);
      pos += len;
      idx[rank - 1] += len;
      for (int k = 0; k < p.numOps; ++k)
        off[k] += len * p.stride[k][rank - 1];
      for (int d = rank - 1; d > 0 && idx[d] == p.size[d]; --d) {
        idx[d] = 0;
        ++idx[d - 1];
        for (int k = 0; k < p.numOps; ++k)
          off[k] += p.stride[k][d - 1] - p.size[d] * p.stride[k][d];
      }
    }
  });
}

template <int SA, int SB, typename R, typename F>
inline void binaryLoop(const float *a, const float *b, R *y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = f(a[i * SA], b[i * SB]);
}

template <int SA, int SB, typename R, typename F>
SHARDRT_CPU_VECTOR_CLONES void binaryLoopCloned(const float *a, const float *b,
                                                R *y, int64_t n, F f) {
  binaryLoop<SA, SB>(a, b, y, n, f);
}

/// A cloned loop is an indirect call (never inlined): only runs this long
/// take it; short runs (a broadcast of a narrow inner dim) stay inline.
constexpr int64_t kClonedRunMin = 64;

/// y[i] = c[i] != 0 ? t[i * ST] : f[i * SF], loading both (in bounds) so
/// that it is a blend, not a branch.
template <int ST, int SF>
inline void selectLoop(const float *c, const float *t, const float *f, float *y,
                       int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float a = t[i * ST], b = f[i * SF];
    y[i] = c[i] != 0.0f ? a : b;
  }
}

template <int ST, int SF>
SHARDRT_CPU_VECTOR_CLONES void selectLoopCloned(const float *c, const float *t,
                                                const float *f, float *y,
                                                int64_t n) {
  selectLoop<ST, SF>(c, t, f, y, n);
}

/// Calls loop(sA, sB) with each stride (1 or 0) as a compile-time
/// std::integral_constant, so each of the four loops vectorises.
template <typename Loop>
inline void withUnitStrides(bool sa, bool sb, Loop &&loop) {
  using One = std::integral_constant<int, 1>;
  using Zero = std::integral_constant<int, 0>;
  if (sa && sb)
    loop(One(), One());
  else if (sa)
    loop(One(), Zero());
  else if (sb)
    loop(Zero(), One());
  else
    loop(Zero(), Zero());
}

/// y[i] = f(a[i * sa], b[i * sb]) for i < n, strides 0 or 1.
template <typename R, typename F>
inline void binaryRun(const float *a, bool sa, const float *b, bool sb, R *y,
                      int64_t n, F f) {
  withUnitStrides(sa, sb, [&](auto sA, auto sB) {
    constexpr int SA = decltype(sA)::value, SB = decltype(sB)::value;
    if (n >= kClonedRunMin)
      binaryLoopCloned<SA, SB>(a, b, y, n, f);
    else
      binaryLoop<SA, SB>(a, b, y, n, f);
  });
}

template <typename R, typename F>
void broadcastApply(const float *a, const Shape &aShape, const float *b,
                    const Shape &bShape, R *y, const Shape &outShape, F f) {
  if (numElements(outShape) == 0)
    return;
  BroadcastPlan p = makePlan(outShape, {&aShape, &bShape});
  const bool sa = p.innerStride(0) != 0, sb = p.innerStride(1) != 0;
  forEachRun(p, [&](int64_t pos, const int64_t *off, int64_t n) {
    binaryRun(a + off[0], sa, b + off[1], sb, y + pos, n, f);
  });
}

template <typename F>
SHARDRT_CPU_VECTOR_CLONES void unaryRun(const float *x, float *y, int64_t n,
                                        F f) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = f(x[i]);
}

/// exp(x - shift) of the softmaxes, through binaryRun's loops (a lambda, not
/// a function pointer, so that the cloned loops inline and vectorise it).
constexpr auto expShiftedBy = [](float x, float shift) {
  return detail::vectorExp(x - shift);
};

/// Calls apply(f) with the elementwise function of `kind`.
template <typename Apply> void withUnaryFn(UnaryKind kind, Apply &&apply) {
  using detail::vectorExp;
  switch (kind) {
  case UnaryKind::Neg:
    return apply([](float v) { return -v; });
  case UnaryKind::Abs:
    return apply([](float v) { return std::fabs(v); });
  case UnaryKind::Exp:
    return apply([](float v) { return vectorExp(v); });
  case UnaryKind::Log:
    return apply([](float v) { return std::log(v); });
  case UnaryKind::Sqrt:
    return apply([](float v) { return std::sqrt(v); });
  case UnaryKind::Rsqrt:
    return apply([](float v) { return 1.0f / std::sqrt(v); });
  case UnaryKind::Tanh:
    return apply([](float v) { return std::tanh(v); });
  case UnaryKind::Sigmoid:
    return apply([](float v) { return 1.0f / (1.0f + vectorExp(-v)); });
  case UnaryKind::Relu:
    // PyTorch's relu keeps NaN; a plain max(v, 0) would turn it into 0.
    return apply([](float v) { return v > 0.0f || v != v ? v : 0.0f; });
  case UnaryKind::Silu:
    return apply([](float v) { return v * (1.0f / (1.0f + vectorExp(-v))); });
  case UnaryKind::Gelu:
    return apply(
        [](float v) { return 0.5f * v * (1.0f + std::erf(v * kSqrtHalf)); });
  case UnaryKind::GeluTanh:
    return apply([](float v) {
      float inner = kGeluBeta * (v + 0.044715f * v * v * v);
      return 0.5f * v * (1.0f + std::tanh(inner));
    });
  case UnaryKind::Sin:
    return apply([](float v) { return std::sin(v); });
  case UnaryKind::Cos:
    return apply([](float v) { return std::cos(v); });
  case UnaryKind::Erf:
    return apply([](float v) { return std::erf(v); });
  case UnaryKind::Log1p:
    return apply([](float v) { return std::log1p(v); });
  case UnaryKind::Expm1:
    return apply([](float v) { return std::expm1(v); });
  case UnaryKind::Tan:
    return apply([](float v) { return std::tan(v); });
  case UnaryKind::Asin:
    return apply([](float v) { return std::asin(v); });
  case UnaryKind::Acos:
    return apply([](float v) { return std::acos(v); });
  case UnaryKind::Atan:
    return apply([](float v) { return std::atan(v); });
  case UnaryKind::Sinh:
    return apply([](float v) { return std::sinh(v); });
  case UnaryKind::Cosh:
    return apply([](float v) { return std::cosh(v); });
  case UnaryKind::Asinh:
    return apply([](float v) { return std::asinh(v); });
  case UnaryKind::Acosh:
    return apply([](float v) { return std::acosh(v); });
  case UnaryKind::Atanh:
    return apply([](float v) { return std::atanh(v); });
  case UnaryKind::Log2:
    return apply([](float v) { return std::log2(v); });
  case UnaryKind::Log10:
    return apply([](float v) { return std::log10(v); });
  case UnaryKind::Exp2:
    return apply([](float v) { return std::exp2(v); });
  case UnaryKind::Erfc:
    return apply([](float v) { return std::erfc(v); });
  case UnaryKind::Floor:
    return apply([](float v) { return std::floor(v); });
  case UnaryKind::Ceil:
    return apply([](float v) { return std::ceil(v); });
  case UnaryKind::Trunc:
    return apply([](float v) { return std::trunc(v); });
  case UnaryKind::Round:
    return apply([](float v) { return std::nearbyint(v); });
  case UnaryKind::Reciprocal:
    return apply([](float v) { return 1.0f / v; });
  }
}

/// Calls apply(f) with the elementwise function of `kind`.
template <typename Apply> void withBinaryFn(BinaryKind kind, Apply &&apply) {
  switch (kind) {
  case BinaryKind::Add:
    return apply([](float u, float v) { return u + v; });
  case BinaryKind::Sub:
    return apply([](float u, float v) { return u - v; });
  case BinaryKind::Mul:
    return apply([](float u, float v) { return u * v; });
  case BinaryKind::Div:
    return apply([](float u, float v) { return u / v; });
  case BinaryKind::Maximum:
    // The comparison picks u when it is NaN, and v when v is (u > NaN is
    // false), so NaN wins from either side.
    return apply([](float u, float v) { return u > v || u != u ? u : v; });
  case BinaryKind::Minimum:
    return apply([](float u, float v) { return u < v || u != u ? u : v; });
  case BinaryKind::Pow:
    return apply([](float u, float v) { return std::pow(u, v); });
  case BinaryKind::Atan2:
    return apply([](float u, float v) { return std::atan2(u, v); });
  case BinaryKind::Fmod:
    return apply([](float u, float v) { return std::fmod(u, v); });
  case BinaryKind::Remainder:
    // ATen's: fmod, moved into the divisor's sign when they differ.
    return apply([](float u, float v) {
      float r = std::fmod(u, v);
      return r != 0 && (v < 0) != (r < 0) ? r + v : r;
    });
  case BinaryKind::Hypot:
    return apply([](float u, float v) { return std::hypot(u, v); });
  case BinaryKind::Copysign:
    return apply([](float u, float v) { return std::copysign(u, v); });
  }
}

/// Type-agnostic kernels move elements in the widest unit dividing
/// elemBytes (detail::byteUnit); an element of several units becomes one
/// more (trailing, never broadcast) dim, so odd sizes such as 12 bytes take
/// the same typed paths.
Shape withUnits(Shape s, size_t units) {
  s.push_back(static_cast<int64_t>(units));
  return s;
}

template <typename T>
void selectTyped(const uint8_t *cond, const Shape &cShape, const T *t,
                 const Shape &tShape, const T *f, const Shape &fShape, T *y,
                 const Shape &outShape) {
  BroadcastPlan p = makePlan(outShape, {&cShape, &tShape, &fShape});
  const int64_t sc = p.innerStride(0), st = p.innerStride(1),
                sf = p.innerStride(2);
  forEachRun(p, [&](int64_t pos, const int64_t *off, int64_t n) {
    const uint8_t *pc = cond + off[0];
    const T *pt = t + off[1], *pf = f + off[2];
    T *py = y + pos;
    if (sc == 0) {
      // A broadcast condition picks one operand for the whole run.
      const T *src = pc[0] ? pt : pf;
      int64_t s = pc[0] ? st : sf;
      for (int64_t i = 0; i < n; ++i)
        py[i] = src[i * s];
      return;
    }
    // Both loads are in bounds: made unconditional, the pick is a blend
    // rather than a branch that random masks mispredict half the time
    // (7.5 ns an element before on the 2-vCPU build machine).
    for (int64_t i = 0; i < n; ++i) {
      T a = pt[i * st], b = pf[i * sf];
      py[i] = pc[i] ? a : b;
    }
  });
}

template <typename T>
void broadcastTyped(const T *x, const Shape &xShape, T *y,
                    const Shape &outShape) {
  BroadcastPlan p = makePlan(outShape, {&xShape});
  const bool contiguous = p.innerStride(0) != 0;
  forEachRun(p, [&](int64_t pos, const int64_t *off, int64_t n) {
    if (contiguous)
      std::memcpy(y + pos, x + off[0], n * sizeof(T));
    else
      std::fill_n(y + pos, n, x[off[0]]);
  });
}

} // namespace

void detail::expShifted(const float *x, float shift, float *y, int64_t n) {
  binaryRun(x, true, &shift, false, y, n, expShiftedBy);
}

void detail::normalisedExp(const float *x, float shift, float *y, int64_t n) {
  expShifted(x, shift, y, n);
  float r = static_cast<float>(1.0 / laneSum(y, n));
  for (int64_t i = 0; i < n; ++i)
    y[i] *= r;
}

void detail::expShiftedEach(const float *x, const float *shift, float *y,
                            int64_t n) {
  binaryRun(x, true, shift, true, y, n, expShiftedBy);
}

void unary(UnaryKind kind, const float *x, float *y, int64_t n) {
  withUnaryFn(kind, [&](auto f) {
    forChunks(n, [&](int64_t begin, int64_t end) {
      unaryRun(x + begin, y + begin, end - begin, f);
    });
  });
}

void unarySerial(UnaryKind kind, const float *x, float *y, int64_t n) {
  withUnaryFn(kind, [&](auto f) { unaryRun(x, y, n, f); });
}

void binary(BinaryKind kind, const float *a, const Shape &aShape,
            const float *b, const Shape &bShape, float *y,
            const Shape &outShape) {
  withBinaryFn(kind, [&](auto f) {
    broadcastApply(a, aShape, b, bShape, y, outShape, f);
  });
}

void binarySerial(BinaryKind kind, const float *a, int64_t aStride,
                  const float *b, int64_t bStride, float *y, int64_t n) {
  withBinaryFn(kind, [&](auto f) {
    binaryRun(a, aStride != 0, b, bStride != 0, y, n, f);
  });
}

void compare(CompareKind kind, const float *a, const Shape &aShape,
             const float *b, const Shape &bShape, uint8_t *y,
             const Shape &outShape) {
  auto apply = [&](auto f) {
    broadcastApply(a, aShape, b, bShape, y, outShape, f);
  };
  switch (kind) {
  case CompareKind::Eq:
    return apply([](float u, float v) -> uint8_t { return u == v; });
  case CompareKind::Ne:
    return apply([](float u, float v) -> uint8_t { return u != v; });
  case CompareKind::Lt:
    return apply([](float u, float v) -> uint8_t { return u < v; });
  case CompareKind::Le:
    return apply([](float u, float v) -> uint8_t { return u <= v; });
  case CompareKind::Gt:
    return apply([](float u, float v) -> uint8_t { return u > v; });
  case CompareKind::Ge:
    return apply([](float u, float v) -> uint8_t { return u >= v; });
  }
}

void compareSerial(CompareKind kind, const float *a, int64_t aStride,
                   const float *b, int64_t bStride, float *y, int64_t n) {
  auto apply = [&](auto holds) {
    binaryRun(a, aStride != 0, b, bStride != 0, y, n,
              [holds](float u, float v) { return holds(u, v) ? 1.0f : 0.0f; });
  };
  switch (kind) {
  case CompareKind::Eq:
    return apply([](float u, float v) { return u == v; });
  case CompareKind::Ne:
    return apply([](float u, float v) { return u != v; });
  case CompareKind::Lt:
    return apply([](float u, float v) { return u < v; });
  case CompareKind::Le:
    return apply([](float u, float v) { return u <= v; });
  case CompareKind::Gt:
    return apply([](float u, float v) { return u > v; });
  case CompareKind::Ge:
    return apply([](float u, float v) { return u >= v; });
  }
}

void selectSerial(const float *c, int64_t cStride, const float *t,
                  int64_t tStride, const float *f, int64_t fStride, float *y,
                  int64_t n) {
  if (cStride == 0) { // one condition for the whole run: a copy or a fill
    const float *from = c[0] != 0.0f ? t : f;
    int64_t stride = c[0] != 0.0f ? tStride : fStride;
    if (stride == 0)
      std::fill(y, y + n, from[0]);
    else
      std::copy(from, from + n, y);
    return;
  }
  withUnitStrides(tStride != 0, fStride != 0, [&](auto sT, auto sF) {
    constexpr int ST = decltype(sT)::value, SF = decltype(sF)::value;
    if (n >= kClonedRunMin)
      selectLoopCloned<ST, SF>(c, t, f, y, n);
    else
      selectLoop<ST, SF>(c, t, f, y, n);
  });
}

void select(const uint8_t *cond, const Shape &condShape, const void *t,
            const Shape &tShape, const void *f, const Shape &fShape, void *y,
            const Shape &outShape, size_t elemBytes) {
  if (numElements(outShape) == 0 || elemBytes == 0)
    return;
  size_t unit = detail::byteUnit(elemBytes), units = elemBytes / unit;
  Shape c = withUnits(condShape, 1), ts = withUnits(tShape, units),
        fs = withUnits(fShape, units), out = withUnits(outShape, units);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    selectTyped(cond, c, static_cast<const T *>(t), ts,
                static_cast<const T *>(f), fs, static_cast<T *>(y), out);
  };
  detail::withByteUnit(unit, run);
}

void broadcastTo(const void *x, const Shape &xShape, void *y,
                 const Shape &outShape, size_t elemBytes) {
  if (numElements(outShape) == 0 || elemBytes == 0)
    return;
  size_t unit = detail::byteUnit(elemBytes), units = elemBytes / unit;
  Shape xs = withUnits(xShape, units), out = withUnits(outShape, units);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    broadcastTyped(static_cast<const T *>(x), xs, static_cast<T *>(y), out);
  };
  detail::withByteUnit(unit, run);
}

size_t elementBytes(ElemType t) {
  switch (t) {
  case ElemType::F32:
    return sizeof(float);
  case ElemType::Bool:
    return 1;
  case ElemType::BF16:
  case ElemType::F16:
    return 2;
  case ElemType::I64:
    return sizeof(int64_t);
  }
  return 0;
}

void cast(ElemType from, const void *x, ElemType to, void *y, int64_t n) {
  if (from == to) {
    std::memcpy(y, x, static_cast<size_t>(n) * elementBytes(from));
    return;
  }
  // Every float type here widens to f32 exactly, so one pass through f32 is
  // each pair's direct conversion (bool -> bf16 gives 1.0, f16 -> bf16
  // rounds once); int64 goes through f32 as c10's conversions do (an int64
  // -> bf16 rounds twice there too).
  // The switches stay outside the loop so that each pair's loop vectorises.
  auto run = [&](auto load, auto store) {
#pragma omp parallel for if (n >= kParallelMin) schedule(static)
    for (int64_t i = 0; i < n; ++i)
      store(i, load(i));
  };
  auto withStore = [&](auto load) {
    switch (to) {
    case ElemType::F32:
      return run(load,
                 [y](int64_t i, float v) { static_cast<float *>(y)[i] = v; });
    case ElemType::Bool:
      // NaN != 0 holds, so NaN casts to true as in PyTorch.
      return run(load, [y](int64_t i, float v) {
        static_cast<uint8_t *>(y)[i] = v != 0.0f;
      });
    case ElemType::BF16:
      return run(load, [y](int64_t i, float v) {
        static_cast<uint16_t *>(y)[i] = floatToBf16(v);
      });
    case ElemType::F16:
      return run(load, [y](int64_t i, float v) {
        static_cast<uint16_t *>(y)[i] = floatToF16(v);
      });
    case ElemType::I64:
      return run(load, [y](int64_t i, float v) {
        static_cast<int64_t *>(y)[i] = floatToInt64(v);
      });
    }
  };
  switch (from) {
  case ElemType::F32:
    return withStore(
        [x](int64_t i) { return static_cast<const float *>(x)[i]; });
  case ElemType::Bool:
    return withStore([x](int64_t i) {
      return static_cast<const uint8_t *>(x)[i] ? 1.0f : 0.0f;
    });
  case ElemType::BF16:
    return withStore([x](int64_t i) {
      return bf16ToFloat(static_cast<const uint16_t *>(x)[i]);
    });
  case ElemType::F16:
    return withStore([x](int64_t i) {
      return f16ToFloat(static_cast<const uint16_t *>(x)[i]);
    });
  case ElemType::I64:
    return withStore(
        [x](int64_t i) { return float(static_cast<const int64_t *>(x)[i]); });
  }
}

} // namespace shardrt::cpu
