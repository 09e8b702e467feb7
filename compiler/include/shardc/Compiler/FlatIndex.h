//===- FlatIndex.h - Flat indices as sums of div/mod terms ------*- C++ -*-===//
//
// Plain C++ (no MLIR). Generated kernels walk a flat index and read each
// buffer at a flat index of its own: a sum of terms (index / divisor %
// modulus) * stride with constants folded in. Dims that are contiguous in
// both spaces share one term, and the outermost term needs no modulus
// (the index is below the space's size), so a per-channel read of an
// (N=1, C, H, W) space is `i / (H*W)`.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_COMPILER_FLATINDEX_H
#define SHARDC_COMPILER_FLATINDEX_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardc {

struct IndexTerm {
  int64_t divisor = 1;
  std::optional<int64_t> modulus; ///< none: the index is already below it
  int64_t stride = 1;
};

/// A flat index: the sum of its terms (0 without any).
using FlatIndex = std::vector<IndexTerm>;

/// The flat index into `domain` (row-major) of the `k`-th element, in
/// row-major order, of the sub-space spanned by `dims` (ascending).
FlatIndex subspaceIndex(const std::vector<int64_t> &domain,
                        const std::vector<int64_t> &dims);

/// The flat index into a buffer of shape `input` that numpy broadcasting
/// reads at flat index `i` of `output` (`input` broadcasts to it).
FlatIndex broadcastIndex(const std::vector<int64_t> &input,
                         const std::vector<int64_t> &output);

int64_t evaluate(const FlatIndex &index, int64_t at);

/// C++ for `index` at the variable `var`, e.g. `(i / 1024LL % 8LL) * 3LL`.
std::string print(const FlatIndex &index, const std::string &var);

} // namespace shardc

#endif // SHARDC_COMPILER_FLATINDEX_H
