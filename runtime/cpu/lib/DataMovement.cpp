//===- DataMovement.cpp - Pad, permute, slice, concat, copyBox ------------===//
//
// permute, slice, concat and copyBox are all one operation: copy a box
// between two strided layouts. A CopyPlan describes it, and collapsing the
// plan (size-1 dims dropped, neighbours merged where both sides are
// contiguous across them) turns most real cases into long memcpy runs.
//
// The kernels are type-agnostic: elements move in the widest unit (8, 4, 2
// or 1 bytes) that divides the element size, and an element of several
// units becomes one more innermost dim, which the collapse usually merges
// away again.
//
// pad maps every output index, per dim, to a source index or to the fill
// value; the trailing dims that are not padded at all are moved as whole
// blocks.
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/Kernels.h"

#include "KernelSupport.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace shardrt::cpu {

namespace {

using detail::forChunks;
using detail::kParallelMin;

// Side of the square tiles in which a transposing copy moves data, so that
// the cache lines of the strided side are reused before they are evicted.
// Small: with power-of-two strides all lines of a tile's strided side share
// one cache set, and larger tiles measured slower (2-3x at 32 or 64).
constexpr int64_t kTile = 8;

std::vector<int64_t> rowMajorStrides(const Shape &shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = s;
    s *= shape[d];
  }
  return strides;
}

/// A strided copy of a box; strides and offsets count elements until
/// finish() converts them to units.
struct CopyPlan {
  std::vector<int64_t> size, src, dst;
  int64_t srcOff = 0, dstOff = 0;

  void add(int64_t n, int64_t srcStride, int64_t dstStride) {
    size.push_back(n);
    src.push_back(srcStride);
    dst.push_back(dstStride);
  }
  bool empty() const {
    return std::find(size.begin(), size.end(), 0) != size.end();
  }
  void finish(int64_t units);
  int64_t total() const {
    int64_t n = 1;
    for (int64_t s : size)
      n *= s;
    return n;
  }
};

void CopyPlan::finish(int64_t units) {
  for (size_t d = 0; d < size.size(); ++d) {
    src[d] *= units;
    dst[d] *= units;
  }
  add(units, 1, 1);
  CopyPlan c;
  for (size_t d = 0; d < size.size(); ++d) {
    const int64_t s = src[d], t = dst[d];
    if (size[d] == 1)
      continue;
    if (!c.size.empty() && c.src.back() == s * size[d] &&
        c.dst.back() == t * size[d]) {
      c.size.back() *= size[d];
      c.src.back() = s;
      c.dst.back() = t;
    } else {
      c.add(size[d], s, t);
    }
  }
  c.srcOff = srcOff * units;
  c.dstOff = dstOff * units;
  *this = std::move(c);
}

/// Row-major walk over the first `n` dims of a plan, tracking both offsets.
struct Walker {
  const CopyPlan &p;
  size_t n;
  std::vector<int64_t> idx;
  int64_t src = 0, dst = 0;

  Walker(const CopyPlan &plan, size_t dims, int64_t start)
      : p(plan), n(dims), idx(dims) {
    for (size_t d = n; d-- > 0;) {
      idx[d] = start % p.size[d];
      start /= p.size[d];
      src += idx[d] * p.src[d];
      dst += idx[d] * p.dst[d];
    }
  }
  void next() {
    for (size_t d = n; d-- > 0;) {
      src += p.src[d];
      dst += p.dst[d];
      if (++idx[d] < p.size[d])
        return;
      src -= p.size[d] * p.src[d];
      dst -= p.size[d] * p.dst[d];
      idx[d] = 0;
    }
  }
};

/// The copy when the destination's innermost dim is contiguous but the
/// source's contiguous dim is another one (dim b): square tiles of (b, inner)
/// keep both sides in cache.
template <typename T>
void transposeCopy(const CopyPlan &p, size_t b, const T *x, T *y) {
  const size_t a = p.size.size() - 1;
  CopyPlan others;
  for (size_t d = 0; d < a; ++d)
    if (d != b)
      others.add(p.size[d], p.src[d], p.dst[d]);
  const int64_t na = p.size[a], nb = p.size[b], sa = p.src[a], db = p.dst[b];
  const int64_t tilesB = (nb + kTile - 1) / kTile;
  const int64_t tasks = others.total() * tilesB;
  forChunks(tasks, p.total(), [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      Walker w(others, others.size.size(), task / tilesB);
      const int64_t b0 = task % tilesB * kTile, b1 = std::min(nb, b0 + kTile);
      const T *xs = x + p.srcOff + w.src;
      T *yd = y + p.dstOff + w.dst;
      for (int64_t a0 = 0; a0 < na; a0 += kTile) {
        const int64_t len = std::min(kTile, na - a0);
        for (int64_t ib = b0; ib < b1; ++ib) {
          const T *s = xs + ib + a0 * sa;
          T *t = yd + ib * db + a0;
          for (int64_t ia = 0; ia < len; ++ia)
            t[ia] = s[ia * sa];
        }
      }
    }
  });
}

template <typename T> void runCopy(const CopyPlan &p, const T *x, T *y) {
  if (p.size.empty()) {
    y[p.dstOff] = x[p.srcOff];
    return;
  }
  const size_t rank = p.size.size();
  const int64_t inner = p.size.back(), si = p.src.back(), di = p.dst.back();
  if (di == 1 && si != 1)
    for (size_t b = 0; b + 1 < rank; ++b)
      if (p.src[b] == 1 && p.size[b] >= kTile)
        return transposeCopy(p, b, x, y);
  const int64_t total = p.total();
  forChunks(total / inner, total, [&](int64_t begin, int64_t end) {
    Walker w(p, rank - 1, begin);
    for (int64_t r = begin; r < end; ++r, w.next()) {
      const T *s = x + p.srcOff + w.src;
      T *t = y + p.dstOff + w.dst;
      if (si == 1 && di == 1)
        std::memcpy(t, s, inner * sizeof(T));
      else
        for (int64_t i = 0; i < inner; ++i)
          t[i * di] = s[i * si];
    }
  });
}

/// Finishes the plan (element size elemBytes) and runs it.
void copy(CopyPlan &p, const void *x, void *y, size_t elemBytes) {
  if (p.empty() || elemBytes == 0)
    return;
  size_t unit = detail::byteUnit(elemBytes);
  p.finish(static_cast<int64_t>(elemBytes / unit));
  detail::withByteUnit(unit, [&](auto tag) {
    using T = decltype(tag);
    runCopy(p, static_cast<const T *>(x), static_cast<T *>(y));
  });
}

//===-- pad ---------------------------------------------------------------===//

/// The bytes of one fill element. Floats of 4 or 8 bytes take `value`;
/// one-byte non-float elements are booleans (value != 0); wider non-float
/// elements are taken as signed integers. Anything else fills with zeros.
std::vector<unsigned char> fillPattern(double value, size_t elemBytes,
                                       bool isFloat) {
  std::vector<unsigned char> bytes(elemBytes, 0);
  auto put = [&](auto v) {
    if (sizeof(v) == elemBytes)
      std::memcpy(bytes.data(), &v, sizeof(v));
  };
  if (isFloat) {
    put(static_cast<float>(value));
    put(value);
  } else if (elemBytes == 1) {
    bytes[0] = value != 0.0;
  } else {
    int64_t i = std::llround(value);
    put(static_cast<int16_t>(i));
    put(static_cast<int32_t>(i));
    put(i);
  }
  return bytes;
}

template <typename T> void fillTyped(void *dst, int64_t count, const void *v) {
  T value;
  std::memcpy(&value, v, sizeof(T));
  std::fill_n(static_cast<T *>(dst), count, value);
}

void fillElements(unsigned char *dst, int64_t count,
                  const std::vector<unsigned char> &pattern) {
  switch (pattern.size()) {
  case 1:
    return (void)std::memset(dst, pattern[0], count);
  case 2:
    return fillTyped<uint16_t>(dst, count, pattern.data());
  case 4:
    return fillTyped<uint32_t>(dst, count, pattern.data());
  case 8:
    return fillTyped<uint64_t>(dst, count, pattern.data());
  default:
    for (int64_t i = 0; i < count; ++i)
      std::memcpy(dst + i * pattern.size(), pattern.data(), pattern.size());
  }
}

/// Writes output rows along the innermost padded dim, whose elements are
/// blocks of the unpadded trailing dims.
struct RowPadder {
  const std::vector<int64_t> &map;
  int64_t block;
  size_t blockBytes;
  std::vector<unsigned char> pattern;
  // The interior [o0, o1) maps to one contiguous run of the source row.
  int64_t o0, o1;

  RowPadder(const std::vector<int64_t> &m, int64_t lo, int64_t blockElems,
            std::vector<unsigned char> fill)
      : map(m), block(blockElems), blockBytes(blockElems * fill.size()),
        pattern(std::move(fill)) {
    const int64_t len = static_cast<int64_t>(map.size());
    o0 = std::min(std::max<int64_t>(lo, 0), len);
    o1 = o0;
    while (o1 < len && map[o1] >= 0 && map[o1] == map[o0] + (o1 - o0))
      ++o1;
  }
  void fill(unsigned char *row, int64_t from, int64_t to) const {
    fillElements(row + from * blockBytes, (to - from) * block, pattern);
  }
  void copy(unsigned char *row, const unsigned char *src) const {
    const int64_t len = static_cast<int64_t>(map.size());
    for (int64_t o = 0; o < len; ++o) {
      if (o == o0 && o1 > o0) {
        std::memcpy(row + o * blockBytes, src + map[o] * blockBytes,
                    (o1 - o0) * blockBytes);
        o = o1 - 1;
      } else if (map[o] < 0) {
        fill(row, o, o + 1);
      } else {
        std::memcpy(row + o * blockBytes, src + map[o] * blockBytes,
                    blockBytes);
      }
    }
  }
};

} // namespace

std::vector<int64_t> padIndexMap(int64_t in, int64_t lo, int64_t hi,
                                 PadMode mode) {
  const int64_t cropLo = std::max<int64_t>(-lo, 0);
  const int64_t padLo = std::max<int64_t>(lo, 0);
  const int64_t len =
      std::max<int64_t>(in - cropLo - std::max<int64_t>(-hi, 0), 0);
  std::vector<int64_t> map(std::max<int64_t>(in + lo + hi, 0));
  for (int64_t o = 0; o < static_cast<int64_t>(map.size()); ++o) {
    int64_t j = o - padLo;
    if (j < 0 || j >= len) {
      if (mode == PadMode::Constant || len == 0) {
        map[o] = -1;
        continue;
      }
      if (mode == PadMode::Reflect)
        j = j < 0 ? -j : 2 * (len - 1) - j;
      else if (mode == PadMode::Replicate)
        j = std::clamp<int64_t>(j, 0, len - 1);
      else
        j = (j % len + len) % len;
    }
    // Reflecting past a crop reads cropped elements, as PyTorch's kernel
    // does; the clamp only guards against arguments the executor rejects.
    map[o] = std::clamp<int64_t>(cropLo + j, 0, in - 1);
  }
  return map;
}

void pad(const void *x, const Shape &xShape, const std::vector<int64_t> &lo,
         const std::vector<int64_t> &hi, PadMode mode, double value, void *y,
         size_t elemBytes, bool isFloat) {
  const int rank = static_cast<int>(xShape.size());
  Shape out(rank);
  for (int d = 0; d < rank; ++d) {
    out[d] = xShape[d] + lo[d] + hi[d];
    if (out[d] <= 0)
      return;
  }
  const int64_t total = numElements(out);
  if (elemBytes == 0)
    return;
  // Trailing dims without padding move as blocks of `block` elements.
  int p = rank - 1;
  while (p >= 0 && lo[p] == 0 && hi[p] == 0)
    --p;
  if (p < 0) {
    std::memcpy(y, x, total * elemBytes);
    return;
  }
  int64_t block = 1;
  for (int d = p + 1; d < rank; ++d)
    block *= xShape[d];
  std::vector<std::vector<int64_t>> maps(p + 1);
  for (int d = 0; d <= p; ++d)
    maps[d] = padIndexMap(xShape[d], lo[d], hi[d], mode);
  // Strides of x over dims 0..p, in blocks.
  std::vector<int64_t> xStride(p + 1, 1);
  for (int d = p; d-- > 0;)
    xStride[d] = xStride[d + 1] * xShape[d + 1];
  const RowPadder row(maps[p], lo[p], block,
                      fillPattern(value, elemBytes, isFloat));
  const int64_t rowBytes = out[p] * row.blockBytes;

  const auto *src = static_cast<const unsigned char *>(x);
  auto *dst = static_cast<unsigned char *>(y);
  forChunks(total / (out[p] * block), total, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> idx(p);
    int64_t rem = begin;
    for (int d = p; d-- > 0;) {
      idx[d] = rem % out[d];
      rem /= out[d];
    }
    for (int64_t r = begin; r < end; ++r) {
      int64_t srcRow = 0;
      bool filled = false;
      for (int d = 0; d < p && !filled; ++d) {
        int64_t m = maps[d][idx[d]];
        filled = m < 0;
        srcRow += m * xStride[d];
      }
      if (filled)
        row.fill(dst + r * rowBytes, 0, out[p]);
      else
        row.copy(dst + r * rowBytes, src + srcRow * row.blockBytes);
      for (int d = p; d-- > 0;) {
        if (++idx[d] < out[d])
          break;
        idx[d] = 0;
      }
    }
  });
}

void permute(const void *x, const Shape &xShape,
             const std::vector<int64_t> &perm, void *y, size_t elemBytes) {
  const std::vector<int64_t> xStride = rowMajorStrides(xShape);
  Shape yShape(perm.size());
  for (size_t d = 0; d < perm.size(); ++d)
    yShape[d] = xShape[perm[d]];
  const std::vector<int64_t> yStride = rowMajorStrides(yShape);
  CopyPlan p;
  for (size_t d = 0; d < perm.size(); ++d)
    p.add(yShape[d], xStride[perm[d]], yStride[d]);
  copy(p, x, y, elemBytes);
}

void slice(const void *x, const Shape &xShape,
           const std::vector<int64_t> &start, const std::vector<int64_t> &step,
           void *y, const Shape &outShape, size_t elemBytes) {
  const std::vector<int64_t> xStride = rowMajorStrides(xShape);
  const std::vector<int64_t> yStride = rowMajorStrides(outShape);
  CopyPlan p;
  for (size_t d = 0; d < xShape.size(); ++d) {
    p.add(outShape[d], xStride[d] * step[d], yStride[d]);
    p.srcOff += start[d] * xStride[d];
  }
  copy(p, x, y, elemBytes);
}

void concat(const std::vector<const void *> &xs,
            const std::vector<Shape> &shapes, int64_t dim, void *y,
            size_t elemBytes) {
  // Empty inputs contribute nothing; skipping them also tolerates PyTorch's
  // legacy 1-d empty tensors of another rank.
  const Shape *ref = nullptr;
  int64_t along = 0;
  for (const Shape &s : shapes)
    if (numElements(s) > 0) {
      ref = ref ? ref : &s;
      along += s[dim];
    }
  if (!ref)
    return;
  Shape yShape = *ref;
  yShape[dim] = along;
  const std::vector<int64_t> yStride = rowMajorStrides(yShape);
  int64_t at = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (numElements(shapes[i]) == 0)
      continue;
    const std::vector<int64_t> xStride = rowMajorStrides(shapes[i]);
    CopyPlan p;
    for (size_t d = 0; d < yShape.size(); ++d)
      p.add(shapes[i][d], xStride[d], yStride[d]);
    p.dstOff = at * yStride[dim];
    at += shapes[i][dim];
    copy(p, xs[i], y, elemBytes);
  }
}

void copyBox(const void *x, const Shape &xShape,
             const std::vector<int64_t> &xLo, void *y, const Shape &yShape,
             const std::vector<int64_t> &yLo, const Shape &boxShape,
             size_t elemBytes) {
  const std::vector<int64_t> xStride = rowMajorStrides(xShape);
  const std::vector<int64_t> yStride = rowMajorStrides(yShape);
  CopyPlan p;
  for (size_t d = 0; d < boxShape.size(); ++d) {
    p.add(boxShape[d], xStride[d], yStride[d]);
    p.srcOff += xLo[d] * xStride[d];
    p.dstOff += yLo[d] * yStride[d];
  }
  copy(p, x, y, elemBytes);
}

} // namespace shardrt::cpu
