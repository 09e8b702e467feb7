//===- IndexOracle.h - Brute-force row-major index arithmetic ---*- C++ -*-===//
//
// The reference the index-algebra tests compare with: multi-index
// arithmetic element by element, written independently of the code under
// test (ShapeRefinement, FlatIndex).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_TEST_UNIT_INDEXORACLE_H
#define SHARDC_TEST_UNIT_INDEXORACLE_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardc::oracle {

using Shape = std::vector<int64_t>;

inline int64_t count(const Shape &s) {
  int64_t n = 1;
  for (int64_t e : s)
    n *= e;
  return n;
}

/// The multi-index of flat element `i` of `shape` (row-major).
inline Shape unflatten(int64_t i, const Shape &shape) {
  Shape idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  return idx;
}

/// The flat element of `shape` at multi-index `idx` (row-major).
inline int64_t flatten(const Shape &idx, const Shape &shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * shape[d] + idx[d];
  return flat;
}

/// The flat element of `input` that numpy broadcasting reads at multi-index
/// `idx` of `shape`.
inline int64_t broadcastRead(const Shape &input, const Shape &shape,
                             const Shape &idx) {
  size_t lead = shape.size() - input.size();
  int64_t flat = 0;
  for (size_t d = 0; d < input.size(); ++d)
    flat = flat * input[d] + (input[d] == 1 ? 0 : idx[d + lead]);
  return flat;
}

} // namespace shardc::oracle

#endif // SHARDC_TEST_UNIT_INDEXORACLE_H
