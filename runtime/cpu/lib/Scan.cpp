//===- Scan.cpp - Cumulative sums, products, extrema, logsumexp -----------===//
//
// Each line along the scanned dim is a chain of dependent folds, so the
// parallelism is across lines. Lines `inner` elements apart are scanned a
// block of neighbouring columns at a time: every step along the dim then
// reads and writes one contiguous run instead of striding through x once
// per line.
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/Kernels.h"

#include <algorithm>

namespace shardrt::cpu {
namespace {

constexpr int64_t kScanColumns = 64;

template <ScanKind K>
void scanLines(const float *x, int64_t outer, int64_t len, int64_t inner,
               const float *init, float *y) {
  const int64_t blocks = (inner + kScanColumns - 1) / kScanColumns;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t c0 = b * kScanColumns;
      const int64_t n = std::min(kScanColumns, inner - c0);
      double acc[kScanColumns];
      for (int64_t c = 0; c < n; ++c)
        acc[c] = init ? double(init[o * inner + c0 + c]) : scanIdentity(K);
      for (int64_t l = 0; l < len; ++l) {
        const int64_t at = (o * len + l) * inner + c0;
        for (int64_t c = 0; c < n; ++c) {
          acc[c] = scanFold(K, acc[c], double(x[at + c]));
          y[at + c] = float(acc[c]);
        }
      }
    }
}

} // namespace

void scan(ScanKind kind, const float *x, const Shape &shape, int64_t dim,
          const float *init, float *y) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  for (size_t d = size_t(dim) + 1; d < shape.size(); ++d)
    inner *= shape[d];
  const int64_t len = shape[dim];
  if (outer * len * inner == 0)
    return;
  switch (kind) {
  case ScanKind::Sum:
    return scanLines<ScanKind::Sum>(x, outer, len, inner, init, y);
  case ScanKind::Prod:
    return scanLines<ScanKind::Prod>(x, outer, len, inner, init, y);
  case ScanKind::Max:
    return scanLines<ScanKind::Max>(x, outer, len, inner, init, y);
  case ScanKind::Min:
    return scanLines<ScanKind::Min>(x, outer, len, inner, init, y);
  case ScanKind::LogSumExp:
    return scanLines<ScanKind::LogSumExp>(x, outer, len, inner, init, y);
  }
}

} // namespace shardrt::cpu
