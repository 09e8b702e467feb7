//===- Attention.cpp - SDPA and neighborhood attention --------------------===//
//
// sdpa runs two sgemms per block of query rows (scores, then probabilities
// times values) so the score matrix never exceeds a fixed scratch budget.
// Neighborhood attention touches only kernel-volume keys per query, too few
// and too scattered for a GEMM, so it is direct loops vectorised over the
// head dim.
//
//===----------------------------------------------------------------------===//

#include "Blas.h"
#include "KernelSupport.h"
#include "VectorExp.h"
#include "shardrt/cpu/Kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace shardrt::cpu {

using namespace detail;

namespace {

constexpr int64_t kScoreFloats = 1 << 18;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

/// In-place softmax of n scores. Returns false when every score is -inf
/// (nothing attended), leaving the row unspecified.
bool softmaxRow(float *row, int64_t n) {
  float best = kNegInf;
  for (int64_t j = 0; j < n; ++j)
    best = std::max(best, row[j]);
  if (best == kNegInf)
    return false;
  normalisedExp(row, best, row, n);
  return true;
}

/// Applies the causal limit and the mask to rows [q0, q0 + rows) of one
/// problem's scores (cols columns computed; the mask's rows have s).
void maskScores(float *scores, int64_t rows, int64_t cols, int64_t q0,
                int64_t s, const void *mask, bool maskIsBool, bool causal) {
  for (int64_t i = 0; i < rows; ++i) {
    float *row = scores + i * cols;
    if (mask && maskIsBool) {
      const uint8_t *m = static_cast<const uint8_t *>(mask) + (q0 + i) * s;
      for (int64_t j = 0; j < cols; ++j)
        if (!m[j])
          row[j] = kNegInf;
    } else if (mask) {
      const float *m = static_cast<const float *>(mask) + (q0 + i) * s;
      for (int64_t j = 0; j < cols; ++j)
        row[j] += m[j];
    }
    if (causal)
      std::fill(row + std::min(cols, q0 + i + 1), row + cols, kNegInf);
  }
}

struct SdpaProblem {
  int64_t l, s, e, ev;
  const float *q, *k, *v; // this batch entry's
  const void *mask;       // this batch entry's, or null
  bool maskIsBool, causal;
  float scale;
};

/// Query rows [q0, q0 + rows) of one problem into y (already offset).
void attendBlock(const SdpaProblem &p, int64_t q0, int64_t rows, float *y) {
  // Keys past the block's last row are causally masked for every row in it:
  // skipping them halves the work of causal attention.
  int64_t cols = p.causal ? std::min(p.s, q0 + rows) : p.s;
  float *scores = threadScratch(0, rows * std::max<int64_t>(cols, 1));
  gemmSerial(false, true, rows, cols, p.e, p.scale, p.q + q0 * p.e, p.e, p.k,
             p.e, 0.0f, scores, cols);
  maskScores(scores, rows, cols, q0, p.s, p.mask, p.maskIsBool, p.causal);
  std::vector<int64_t> dead;
  for (int64_t i = 0; i < rows; ++i)
    if (!softmaxRow(scores + i * cols, cols) && p.s > 0)
      dead.push_back(i);
  gemmSerial(false, false, rows, p.ev, cols, 1.0f, scores, cols, p.v, p.ev,
             0.0f, y, p.ev);
  // The runtime's contract: no attended key gives NaN (PyTorch < 2.5).
  for (int64_t i : dead)
    std::fill(y + i * p.ev, y + (i + 1) * p.ev,
              std::numeric_limits<float>::quiet_NaN());
}

} // namespace

namespace {

/// Query rows [i0, i0 + rows) of attendOnline, with `scores` for them.
void attendOnlineRows(const OnlineBlock &b, bool first, int64_t i0,
                      int64_t rows, float *m, float *lsum, float *o,
                      float *scores) {
  const float lowest = std::numeric_limits<float>::lowest();
  gemmSerial(false, true, rows, b.s, b.e, float(b.scale), b.q + i0 * b.e, b.e,
             b.k, b.e, 0.0f, scores, b.s);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t i = i0 + r;
    float *row = scores + r * b.s;
    if (b.mask) {
      const float *mrow = b.mask + i * b.maskRowStride;
      for (int64_t j = 0; j < b.s; ++j)
        row[j] += mrow[j * b.maskColStride];
    }
    if (b.causal)
      for (int64_t j = std::max<int64_t>(0, b.queryLo + i - b.keyLo + 1);
           j < b.s; ++j)
        row[j] = kNegInf;
    float blockMax = kNegInf;
    for (int64_t j = 0; j < b.s; ++j)
      blockMax = std::max(blockMax, row[j]);
    float *orow = o + i * b.ev;
    float newMax = first ? blockMax : std::max(m[i], blockMax);
    // While no key of the row is visible the max is -inf: shifting by the
    // lowest float instead makes every weight exp(-inf) = 0 and leaves the
    // (zero) sum and output as they are, where -inf - -inf would be NaN.
    float shift = std::max(newMax, lowest);
    if (first) {
      lsum[i] = 0.0f;
      std::fill(orow, orow + b.ev, 0.0f);
    } else {
      float alpha = std::exp(m[i] - shift);
      lsum[i] *= alpha;
      for (int64_t c = 0; c < b.ev; ++c)
        orow[c] *= alpha;
    }
    m[i] = newMax;
    expShifted(row, shift, row, b.s);
    double sum = 0.0;
    for (int64_t j = 0; j < b.s; ++j)
      sum += row[j];
    lsum[i] += float(sum);
  }
  gemmSerial(false, false, rows, b.ev, b.s, 1.0f, scores, b.s, b.v, b.ev, 1.0f,
             o + i0 * b.ev, b.ev);
}

} // namespace

void attendOnline(const OnlineBlock &b, bool first, float *m, float *lsum,
                  float *o) {
  if (b.l <= 0)
    return;
  // Rows are independent: tiles of them run on the team, each with scores
  // of its own bounded like sdpa's.
  int threads = threadsFor(2.0 * b.l * b.s * (b.e + b.ev));
  int64_t tile = std::max<int64_t>(1, kScoreFloats / std::max<int64_t>(b.s, 1));
  if (threads > 1)
    tile = std::min(tile, std::max<int64_t>(16, (b.l + threads - 1) / threads));
  tile = std::min(tile, b.l);
  int64_t tiles = (b.l + tile - 1) / tile;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t t = 0; t < tiles; ++t) {
    int64_t i0 = t * tile, rows = std::min(tile, b.l - i0);
    float *scores = threadScratch(0, size_t(rows * std::max<int64_t>(b.s, 1)));
    attendOnlineRows(b, first, i0, rows, m, lsum, o, scores);
  }
}

void sdpa(int64_t batch, int64_t l, int64_t s, int64_t e, int64_t ev,
          const float *q, const float *k, const float *v, const void *mask,
          bool maskIsBool, int64_t maskBatch, bool causal, double scale,
          float *y) {
  if (batch <= 0 || l <= 0 || ev <= 0)
    return;
  int threads = threadsFor(2.0 * batch * l * s * (e + ev));
  int64_t block = std::max<int64_t>(1, kScoreFloats / std::max<int64_t>(s, 1));
  int64_t wantBlocks = (2 * threads + batch - 1) / batch;
  if (wantBlocks > 1)
    block = std::min(block,
                     std::max<int64_t>(16, (l + wantBlocks - 1) / wantBlocks));
  block = std::min(block, l);
  int64_t blocks = (l + block - 1) / block;
  size_t maskBytes = (maskIsBool ? 1 : sizeof(float)) * l * s;
  // Dynamic: causal blocks further down the sequence have more keys.
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (int64_t item = 0; item < batch * blocks; ++item) {
    int64_t b = item / blocks, q0 = item % blocks * block;
    SdpaProblem prob;
    prob.l = l;
    prob.s = s;
    prob.e = e;
    prob.ev = ev;
    prob.q = q + b * l * e;
    prob.k = k + b * s * e;
    prob.v = v + b * s * ev;
    prob.mask = nullptr;
    prob.maskIsBool = maskIsBool;
    prob.causal = causal;
    prob.scale = static_cast<float>(scale);
    if (mask)
      prob.mask = static_cast<const char *>(mask) +
                  (maskBatch == 1 ? 0 : b) * maskBytes;
    attendBlock(prob, q0, std::min(block, l - q0), y + (b * l + q0) * ev);
  }
}

namespace {

/// Per query index along one (right-aligned) dim: the local index of its
/// first key and the step between keys.
struct NeighborhoodAxis {
  std::vector<int64_t> first;
  int64_t step = 1, kernel = 1;
};

} // namespace

int64_t neighborhoodWindowStart(int64_t i, int64_t global, int64_t kernel,
                                int64_t dilation) {
  int64_t g = i % dilation;
  int64_t groupLen = (global - g + dilation - 1) / dilation;
  int64_t start = std::max<int64_t>(
      0, std::min(i / dilation - kernel / 2, groupLen - kernel));
  return start * dilation + g;
}

namespace {

NeighborhoodAxis makeAxis(const NeighborhoodParams &p, int d) {
  NeighborhoodAxis a;
  int64_t kernel = p.kernel[d], dil = p.dilation[d], len = p.global[d];
  a.step = dil;
  a.kernel = kernel;
  a.first.resize(p.qExtent[d]);
  for (int64_t qi = 0; qi < p.qExtent[d]; ++qi)
    a.first[qi] = neighborhoodWindowStart(qi + p.qOffset[d], len, kernel, dil) -
                  p.kvOffset[d];
  return a;
}

/// One query (all of its dim values for one head) against its window:
/// softmax(scale * q.k) . v into out.
void attendOne(const NeighborhoodParams &p, const NeighborhoodAxis ax[3],
               const int64_t kvExt[3], const int64_t qPos[3], const float *qv,
               const float *kb, const float *vb, float *scores, float *out) {
  int64_t dim = p.dim, rowStride = p.heads * dim, valueDim = p.valueDim,
          valueStride = p.heads * valueDim;
  int64_t n = 0;
  float best = kNegInf;
  auto forEachKey = [&](auto fn) {
    for (int64_t t0 = 0; t0 < ax[0].kernel; ++t0) {
      int64_t k0 = ax[0].first[qPos[0]] + t0 * ax[0].step;
      for (int64_t t1 = 0; t1 < ax[1].kernel; ++t1) {
        int64_t k1 = ax[1].first[qPos[1]] + t1 * ax[1].step;
        int64_t base = (k0 * kvExt[1] + k1) * kvExt[2];
        for (int64_t t2 = 0; t2 < ax[2].kernel; ++t2)
          fn(base + ax[2].first[qPos[2]] + t2 * ax[2].step);
      }
    }
  };
  float scale = static_cast<float>(p.scale);
  forEachKey([&](int64_t key) {
    const float *kv = kb + key * rowStride;
    float dot = 0.0f;
    // The simd reduction lets the compiler reorder the sum into vector lanes
    // (strict IEEE order would keep this loop scalar).
#pragma omp simd reduction(+ : dot)
    for (int64_t c = 0; c < dim; ++c)
      dot += qv[c] * kv[c];
    scores[n] = dot * scale;
    best = std::max(best, scores[n++]);
  });
  expShifted(scores, best, scores, n);
  double sum = laneSum(scores, n);
  std::fill(out, out + valueDim, 0.0f);
  n = 0;
  forEachKey([&](int64_t key) {
    const float *vv = vb + key * valueStride;
    float w = scores[n++];
    for (int64_t c = 0; c < valueDim; ++c)
      out[c] += w * vv[c];
  });
  float inv = static_cast<float>(1.0 / sum);
  for (int64_t c = 0; c < valueDim; ++c)
    out[c] *= inv;
}

} // namespace

void neighborhoodAttention(const NeighborhoodParams &p, const float *q,
                           const float *k, const float *v, float *y) {
  if (neighborhoodIsEmpty(p))
    return;
  NeighborhoodAxis axes[3];
  int64_t qExt[3] = {1, 1, 1}, kvExt[3] = {1, 1, 1};
  for (int d = 0; d < 3; ++d) {
    int src = d - (3 - p.rank);
    if (src < 0) {
      axes[d].first = {0};
      continue;
    }
    axes[d] = makeAxis(p, src);
    qExt[d] = p.qExtent[src];
    kvExt[d] = p.kvExtent[src];
  }
  int64_t qVol = qExt[0] * qExt[1] * qExt[2];
  int64_t kvVol = kvExt[0] * kvExt[1] * kvExt[2];
  int64_t window = axes[0].kernel * axes[1].kernel * axes[2].kernel;
  int64_t rowStride = p.heads * p.dim, valueStride = p.heads * p.valueDim;
  int64_t items = p.batch * qVol;
  if (items <= 0 || valueStride <= 0)
    return;
  int threads =
      threadsFor(2.0 * items * p.heads * window * (p.dim + p.valueDim));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t item = 0; item < items; ++item) {
    int64_t b = item / qVol, pos = item % qVol;
    int64_t qPos[3] = {pos / (qExt[1] * qExt[2]), pos / qExt[2] % qExt[1],
                       pos % qExt[2]};
    float *scores = threadScratch(0, window);
    const float *kb = k + b * kvVol * rowStride;
    const float *vb = v + b * kvVol * valueStride;
    for (int64_t h = 0; h < p.heads; ++h)
      attendOne(p, axes, kvExt, qPos, q + item * rowStride + h * p.dim,
                kb + h * p.dim, vb + h * p.valueDim, scores,
                y + item * valueStride + h * p.valueDim);
  }
}

} // namespace shardrt::cpu
