//===- Scan.cpp - Cumulative sums, products, extrema, logsumexp -----------===//
//
// Each line along the scanned dim is a chain of dependent folds, so the
// parallelism is across lines (a split dim's shards, and the CUDA kernels'
// chunks, fold totals into carries instead: scanTotals, scanCarries). Lines
// `inner` elements apart are scanned a block of neighbouring columns at a time:
// every step along the dim then reads and writes one contiguous run instead of
// striding through x once per line.
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/Kernels.h"

#include <algorithm>

namespace shardrt::cpu {
namespace {

constexpr int64_t kScanColumns = 64;

/// One line of `len` contiguous elements (a scan along the last dim):
/// no column block to walk.
template <ScanKind K, bool WriteY>
double scanRow(const float *x, int64_t len, double acc, float *y) {
  for (int64_t l = 0; l < len; ++l) {
    acc = scanFold(K, acc, double(x[l]));
    if constexpr (WriteY)
      y[l] = float(acc);
  }
  return acc;
}

/// Writes y (WriteY) or else each line's packed total.
template <ScanKind K, bool WriteY>
void scanLines(const float *x, int64_t outer, int64_t len, int64_t inner,
               const double *init, float *y, float *totals) {
  if (inner == 1) {
#pragma omp parallel for schedule(static)
    for (int64_t o = 0; o < outer; ++o) {
      double acc =
          scanRow<K, WriteY>(x + o * len, len, init ? init[o] : scanIdentity(K),
                             y + (WriteY ? o * len : 0));
      if (!WriteY)
        packScanValue(acc, totals + o * kPackedScanFloats);
    }
    return;
  }
  const int64_t blocks = (inner + kScanColumns - 1) / kScanColumns;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t c0 = b * kScanColumns;
      const int64_t n = std::min(kScanColumns, inner - c0);
      double acc[kScanColumns];
      for (int64_t c = 0; c < n; ++c)
        acc[c] = init ? init[o * inner + c0 + c] : scanIdentity(K);
      for (int64_t l = 0; l < len; ++l) {
        const int64_t at = (o * len + l) * inner + c0;
        for (int64_t c = 0; c < n; ++c) {
          acc[c] = scanFold(K, acc[c], double(x[at + c]));
          if constexpr (WriteY)
            y[at + c] = float(acc[c]);
        }
      }
      if constexpr (!WriteY)
        for (int64_t c = 0; c < n; ++c)
          packScanValue(acc[c],
                        totals + (o * inner + c0 + c) * kPackedScanFloats);
    }
}

template <ScanKind K>
void scanLines(const float *x, int64_t outer, int64_t len, int64_t inner,
               const double *init, float *y, float *totals) {
  if (totals)
    scanLines<K, false>(x, outer, len, inner, init, nullptr, totals);
  else
    scanLines<K, true>(x, outer, len, inner, init, y, nullptr);
}

/// x viewed (outer, len, inner) around `dim`, scanned by scanLines.
void scanView(ScanKind kind, const float *x, const Shape &shape, int64_t dim,
              const double *init, float *y, float *totals) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  for (size_t d = size_t(dim) + 1; d < shape.size(); ++d)
    inner *= shape[d];
  const int64_t len = shape[dim];
  if (outer * inner == 0)
    return;
  switch (kind) {
  case ScanKind::Sum:
    return scanLines<ScanKind::Sum>(x, outer, len, inner, init, y, totals);
  case ScanKind::Prod:
    return scanLines<ScanKind::Prod>(x, outer, len, inner, init, y, totals);
  case ScanKind::Max:
    return scanLines<ScanKind::Max>(x, outer, len, inner, init, y, totals);
  case ScanKind::Min:
    return scanLines<ScanKind::Min>(x, outer, len, inner, init, y, totals);
  case ScanKind::LogSumExp:
    return scanLines<ScanKind::LogSumExp>(x, outer, len, inner, init, y,
                                          totals);
  }
}

} // namespace

void scan(ScanKind kind, const float *x, const Shape &shape, int64_t dim,
          const double *init, float *y) {
  scanView(kind, x, shape, dim, init, y, nullptr);
}

void scanTotals(ScanKind kind, const float *x, const Shape &shape, int64_t dim,
                float *totals) {
  scanView(kind, x, shape, dim, nullptr, nullptr, totals);
}

void scanCarries(ScanKind kind, const float *totals, int64_t outer,
                 int64_t members, int64_t inner, int64_t before, double *init) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < inner; ++c) {
      double acc = scanIdentity(kind);
      for (int64_t m = 0; m < before; ++m)
        acc =
            scanFold(kind, acc,
                     unpackScanValue(totals + ((o * members + m) * inner + c) *
                                                  kPackedScanFloats));
      init[o * inner + c] = acc;
    }
}

} // namespace shardrt::cpu
