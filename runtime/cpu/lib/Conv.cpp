//===- Conv.cpp - Convolution and transposed convolution ------------------===//
//
// Both directions are lowered to sgemm over tiles of the flattened spatial
// positions, so scratch memory stays bounded however large the image is:
//  - conv: pack a tile of im2col columns (cin/groups * kernel rows by tile
//    columns) and multiply the group's weights into the matching columns of y.
//  - convTranspose: multiply the transposed weights by a tile of x to get
//    per-tap contributions, then scatter-add them into y (col2im).
// Every spatial rank is handled as 3-D with leading unit dims.
//
//===----------------------------------------------------------------------===//

#include "Blas.h"
#include "shardrt/cpu/HalfFloats.h"
#include "shardrt/cpu/Kernels.h"

#include "KernelSupport.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

namespace shardrt::cpu {

using namespace detail;

namespace {

// Scratch columns per thread: 1 MiB of floats stays in L2 on most parts while
// leaving sgemm tiles wide enough to run near peak.
constexpr int64_t kScratchFloats = 1 << 18;
constexpr int64_t kMinTile = 64;

/// ConvParams with the spatial dims right-aligned into three.
struct Geometry {
  int64_t in[3], out[3], kernel[3], stride[3], pad[3], dilation[3];
  int64_t inVol, outVol, kernelVol;

  explicit Geometry(const ConvParams &p) {
    detail::rightAlign3(p.in, p.rank, 1, in);
    detail::rightAlign3(p.out, p.rank, 1, out);
    detail::rightAlign3(p.kernel, p.rank, 1, kernel);
    detail::rightAlign3(p.stride, p.rank, 1, stride);
    detail::rightAlign3(p.padLo, p.rank, 0, pad);
    detail::rightAlign3(p.dilation, p.rank, 1, dilation);
    inVol = in[0] * in[1] * in[2];
    outVol = out[0] * out[1] * out[2];
    kernelVol = kernel[0] * kernel[1] * kernel[2];
  }

  /// 1x1(x1) kernels with unit stride and no padding map positions one to
  /// one, so x itself is the im2col matrix.
  bool pointwise() const {
    for (int d = 0; d < 3; ++d)
      if (kernel[d] != 1 || stride[d] != 1 || pad[d] != 0 || in[d] != out[d])
        return false;
    return true;
  }
};

int64_t floorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/// Narrows [lo, hi) to the indices o with 0 <= o * stride + offset < limit;
/// an empty result is [lo, lo) of the original lo.
void clipRange(int64_t stride, int64_t offset, int64_t limit, int64_t &lo,
               int64_t &hi) {
  int64_t first = std::max(lo, -floorDiv(offset, stride));
  int64_t last = std::min(hi, floorDiv(limit - 1 - offset, stride) + 1);
  if (first < last) {
    lo = first;
    hi = last;
  } else {
    hi = lo;
  }
}

/// Calls fn(i0, i1, i2, len, pos) for each maximal run of flattened positions
/// [begin, end) of an extent[3] box that lies along the innermost dim.
template <typename Fn>
void forEachRun(const int64_t extent[3], int64_t begin, int64_t end, Fn fn) {
  for (int64_t pos = begin; pos < end;) {
    int64_t i2 = pos % extent[2], rest = pos / extent[2];
    int64_t len = std::min(extent[2] - i2, end - pos);
    fn(rest / extent[1], rest % extent[1], i2, len, pos);
    pos += len;
  }
}

/// For im2col row `row` = (channel, k0, k1, k2): off[d] = k[d] * dilation[d]
/// - pad[d], so that output o reads input o * stride + off. Returns the
/// channel.
int64_t tapOffsets(const Geometry &g, int64_t row, int64_t off[3]) {
  int64_t rest = row;
  for (int d = 2; d >= 0; --d) {
    off[d] = rest % g.kernel[d] * g.dilation[d] - g.pad[d];
    rest /= g.kernel[d];
  }
  return rest;
}

/// Writes the im2col rows of one group's channels (x points at its first
/// channel) for output positions [begin, end) into col (row stride ldc),
/// widening each element to f32 with `widen`.
template <typename T, typename Widen>
void im2col(const Geometry &g, int64_t channels, const T *x, int64_t begin,
            int64_t end, float *col, int64_t ldc, Widen widen) {
  for (int64_t row = 0; row < channels * g.kernelVol; ++row) {
    int64_t off[3];
    int64_t c = tapOffsets(g, row, off);
    const T *xc = x + c * g.inVol;
    float *dst = col + row * ldc;
    forEachRun(
        g.out, begin, end,
        [&](int64_t o0, int64_t o1, int64_t o2, int64_t len, int64_t pos) {
          float *seg = dst + (pos - begin);
          int64_t t0 = o0 * g.stride[0] + off[0];
          int64_t t1 = o1 * g.stride[1] + off[1];
          int64_t lo = o2, hi = o2 + len;
          if (t0 < 0 || t0 >= g.in[0] || t1 < 0 || t1 >= g.in[1]) {
            std::fill(seg, seg + len, 0.0f);
            return;
          }
          clipRange(g.stride[2], off[2], g.in[2], lo, hi);
          std::fill(seg, seg + (lo - o2), 0.0f);
          const T *xrow = xc + (t0 * g.in[1] + t1) * g.in[2];
          if constexpr (std::is_same_v<T, float>) {
            if (g.stride[2] == 1 && hi > lo) {
              std::memcpy(seg + (lo - o2), xrow + lo + off[2],
                          (hi - lo) * sizeof(float));
              lo = hi;
            }
          }
          for (int64_t o = lo; o < hi; ++o)
            seg[o - o2] = widen(xrow[o * g.stride[2] + off[2]]);
          std::fill(seg + (hi - o2), seg + len, 0.0f);
        });
  }
}

/// Adds tap rows of col (channels * kernelVol rows, row stride ldc, for input
/// positions [begin, end)) into y, which points at the first of `channels`
/// output channels. The inverse mapping of im2col.
void col2im(const Geometry &g, int64_t channels, const float *col, int64_t ldc,
            int64_t begin, int64_t end, float *y) {
  for (int64_t row = 0; row < channels * g.kernelVol; ++row) {
    int64_t off[3];
    int64_t c = tapOffsets(g, row, off);
    float *yc = y + c * g.outVol;
    const float *src = col + row * ldc;
    forEachRun(
        g.in, begin, end,
        [&](int64_t i0, int64_t i1, int64_t i2, int64_t len, int64_t pos) {
          int64_t t0 = i0 * g.stride[0] + off[0];
          int64_t t1 = i1 * g.stride[1] + off[1];
          if (t0 < 0 || t0 >= g.out[0] || t1 < 0 || t1 >= g.out[1])
            return;
          int64_t lo = i2, hi = i2 + len;
          clipRange(g.stride[2], off[2], g.out[2], lo, hi);
          const float *seg = src + (pos - begin);
          float *yrow = yc + (t0 * g.out[1] + t1) * g.out[2];
          for (int64_t i = lo; i < hi; ++i)
            yrow[i * g.stride[2] + off[2]] += seg[i - i2];
        });
  }
}

void fillBias(const float *bias, int64_t channels, int64_t count, int64_t ld,
              float *y) {
  for (int64_t c = 0; c < channels; ++c)
    std::fill(y + c * ld, y + c * ld + count, bias ? bias[c] : 0.0f);
}

/// Tile width over `positions` so that rows x tile fits the scratch budget
/// and `units` independent units split into tiles keep `threads` busy.
int64_t chooseTile(int64_t rows, int64_t positions, int64_t units,
                   int threads) {
  int64_t tile =
      std::max(kMinTile, kScratchFloats / std::max<int64_t>(rows, 1));
  int64_t wantTiles = (2 * threads + units - 1) / units;
  if (wantTiles > 1)
    tile = std::min(
        tile, std::max(kMinTile, (positions + wantTiles - 1) / wantTiles));
  return std::max<int64_t>(1, std::min(tile, positions));
}

/// The flattened output positions of p's region as maximal contiguous runs
/// [begin, end), in order. The whole output is one run.
std::vector<std::pair<int64_t, int64_t>> regionRuns(const ConvParams &p,
                                                    const Geometry &g) {
  int64_t lo[3], hi[3];
  detail::rightAlign3(p.regionLo, p.rank, 0, lo);
  detail::rightAlign3(p.regionHi, p.rank, -1, hi);
  for (int d = 0; d < 3; ++d) {
    if (hi[d] < 0)
      hi[d] = g.out[d];
    lo[d] = std::clamp<int64_t>(lo[d], 0, g.out[d]);
    hi[d] = std::clamp<int64_t>(hi[d], lo[d], g.out[d]);
  }
  std::vector<std::pair<int64_t, int64_t>> runs;
  if (lo[2] == hi[2])
    return runs;
  for (int64_t o0 = lo[0]; o0 < hi[0]; ++o0)
    for (int64_t o1 = lo[1]; o1 < hi[1]; ++o1) {
      int64_t begin = (o0 * g.out[1] + o1) * g.out[2] + lo[2];
      int64_t end = begin + hi[2] - lo[2];
      if (!runs.empty() && runs.back().second == begin)
        runs.back().second = end;
      else
        runs.push_back({begin, end});
    }
  return runs;
}

} // namespace

namespace {

template <typename T, typename Widen>
void convOf(const ConvParams &p, const T *x, Widen widen, const float *w,
            const float *bias, float *y) {
  Geometry g(p);
  int64_t cinG = p.cin / p.groups, coutG = p.cout / p.groups;
  int64_t rows = cinG * g.kernelVol;
  std::vector<std::pair<int64_t, int64_t>> runs = regionRuns(p, g);
  int64_t positions = 0;
  for (auto [begin, end] : runs)
    positions += end - begin;
  if (p.n <= 0 || p.cout <= 0 || positions <= 0)
    return;
  int threads = threadsFor(2.0 * p.n * p.cout * positions * rows);
  int64_t units = p.n * p.groups;
  int64_t tile = chooseTile(rows, positions, units, threads);
  // Tiles never straddle two runs: a GEMM writes contiguous columns of y.
  std::vector<std::pair<int64_t, int64_t>> tiles; // begin, width
  for (auto [begin, end] : runs)
    for (int64_t at = begin; at < end; at += tile)
      tiles.push_back({at, std::min(tile, end - at)});
  int64_t numTiles = int64_t(tiles.size());
  // A pointwise conv reads f32 x in place as its im2col matrix; 16-bit x is
  // widened tile by tile like any other.
  bool direct = g.pointwise() && std::is_same_v<T, float>;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t item = 0; item < units * numTiles; ++item) {
    int64_t unit = item / numTiles, grp = unit % p.groups;
    auto [begin, width] = tiles[size_t(item % numTiles)];
    const T *xg = x + unit * cinG * g.inVol;
    float *yg = y + unit * coutG * g.outVol + begin;
    fillBias(bias ? bias + grp * coutG : nullptr, coutG, width, g.outVol, yg);
    const float *cols = nullptr;
    int64_t ldCols = width;
    if constexpr (std::is_same_v<T, float>) {
      cols = xg + begin;
      ldCols = g.inVol;
    }
    if (!direct) {
      float *scratch = threadScratch(0, rows * width);
      im2col(g, cinG, xg, begin, begin + width, scratch, width, widen);
      cols = scratch;
      ldCols = width;
    }
    gemmSerial(false, false, coutG, width, rows, 1.0f, w + grp * coutG * rows,
               rows, cols, ldCols, 1.0f, yg, g.outVol);
  }
}

} // namespace

void conv(const ConvParams &p, const float *x, const float *w,
          const float *bias, float *y) {
  convOf(
      p, x, [](float v) { return v; }, w, bias, y);
}

void conv(const ConvParams &p, const void *x, ElemType xType, const float *w,
          const float *bias, float *y) {
  switch (xType) {
  // Lambdas, not the functions themselves: a function pointer could be an
  // indirect call per packed element.
  case ElemType::BF16:
    return convOf(
        p, static_cast<const uint16_t *>(x),
        [](uint16_t h) { return bf16ToFloat(h); }, w, bias, y);
  case ElemType::F16:
    return convOf(
        p, static_cast<const uint16_t *>(x),
        [](uint16_t h) { return f16ToFloat(h); }, w, bias, y);
  case ElemType::F32:
  case ElemType::Bool: // not conv inputs: the decoder refuses them
  case ElemType::I64:
    return conv(p, static_cast<const float *>(x), w, bias, y);
  }
}

void convTranspose(const ConvParams &p, const float *x, const float *w,
                   const float *bias, float *y) {
  Geometry g(p);
  int64_t cinG = p.cin / p.groups, coutG = p.cout / p.groups;
  if (p.n <= 0 || p.cout <= 0 || g.outVol <= 0)
    return;
  int threads = threadsFor(2.0 * p.n * p.cin * coutG * g.kernelVol * g.inVol);
  // Scatters from different input tiles overlap in y, so threads own
  // disjoint blocks of output channels and walk the input tiles in order.
  int64_t units = p.n * p.groups;
  int64_t blocks = std::min(coutG, (2 * threads + units - 1) / units);
  int64_t block = (coutG + blocks - 1) / blocks;
  blocks = (coutG + block - 1) / block;
  bool direct = g.pointwise();
  int64_t ldW = coutG * g.kernelVol;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t item = 0; item < units * blocks; ++item) {
    int64_t unit = item / blocks, grp = unit % p.groups;
    int64_t c0 = item % blocks * block, nc = std::min(block, coutG - c0);
    int64_t rows = nc * g.kernelVol;
    const float *xg = x + unit * cinG * g.inVol;
    const float *wg = w + grp * cinG * ldW + c0 * g.kernelVol;
    float *yc = y + (unit * coutG + c0) * g.outVol;
    fillBias(bias ? bias + grp * coutG + c0 : nullptr, nc, g.outVol, g.outVol,
             yc);
    if (direct) {
      gemmSerial(true, false, nc, g.inVol, cinG, 1.0f, wg, ldW, xg, g.inVol,
                 1.0f, yc, g.outVol);
      continue;
    }
    int64_t tile = std::max<int64_t>(
        1, std::min(g.inVol, std::max(kMinTile, kScratchFloats / rows)));
    float *scratch = threadScratch(0, rows * tile);
    for (int64_t begin = 0; begin < g.inVol; begin += tile) {
      int64_t width = std::min(tile, g.inVol - begin);
      gemmSerial(true, false, rows, width, cinG, 1.0f, wg, ldW, xg + begin,
                 g.inVol, 0.0f, scratch, width);
      col2im(g, nc, scratch, width, begin, begin + width, yc);
    }
  }
}

} // namespace shardrt::cpu
