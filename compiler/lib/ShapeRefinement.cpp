//===- ShapeRefinement.cpp - One index space for reshaped buffers ---------===//

#include "shardc/Compiler/ShapeRefinement.h"

#include <algorithm>
#include <functional>
#include <set>

namespace shardc {

int64_t elementCount(const Extents &shape) {
  int64_t n = 1;
  for (int64_t e : shape)
    n *= e;
  return n;
}

namespace {

/// The suffix products of `shape`, from the element count down to 1.
std::vector<int64_t> boundaries(const Extents &shape) {
  std::vector<int64_t> b(shape.size() + 1, 1);
  for (size_t d = shape.size(); d-- > 0;)
    b[d] = b[d + 1] * shape[d];
  return b;
}

} // namespace

std::optional<Extents> commonRefinement(const std::vector<Extents> &shapes) {
  if (shapes.empty())
    return std::nullopt;
  int64_t n = elementCount(shapes.front());
  if (n <= 0)
    return std::nullopt;
  std::set<int64_t, std::greater<int64_t>> cuts;
  for (const Extents &s : shapes) {
    if (elementCount(s) != n)
      return std::nullopt;
    for (int64_t b : boundaries(s))
      cuts.insert(b);
  }
  Extents refinement;
  int64_t above = n;
  for (int64_t b : cuts) {
    if (b == n)
      continue;
    if (above % b != 0)
      return std::nullopt;
    refinement.push_back(above / b);
    above = b;
  }
  return refinement;
}

std::optional<std::vector<std::pair<size_t, size_t>>>
refinementSpans(const Extents &shape, const Extents &refinement) {
  std::vector<std::pair<size_t, size_t>> spans;
  size_t r = 0;
  for (int64_t extent : shape) {
    size_t first = r;
    int64_t covered = 1;
    while (covered < extent && r < refinement.size())
      covered *= refinement[r++];
    if (covered != extent)
      return std::nullopt;
    spans.emplace_back(first, r);
  }
  if (r != refinement.size())
    return std::nullopt;
  return spans;
}

std::optional<Extents> broadcastOnRefinement(const Extents &input,
                                             const Extents &shape,
                                             const Extents &refinement) {
  if (input.size() > shape.size())
    return std::nullopt;
  std::optional<std::vector<std::pair<size_t, size_t>>> spans =
      refinementSpans(shape, refinement);
  if (!spans)
    return std::nullopt;
  size_t lead = shape.size() - input.size();
  Extents out;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t in = d < lead ? 1 : input[d - lead];
    if (in != shape[d] && in != 1)
      return std::nullopt;
    for (size_t r = (*spans)[d].first; r < (*spans)[d].second; ++r)
      out.push_back(in == 1 ? 1 : refinement[r]);
  }
  return out;
}

} // namespace shardc
