//===- FlatIndex.cpp - Flat indices as sums of div/mod terms --------------===//

#include "shardc/Compiler/FlatIndex.h"

namespace shardc {

namespace {

/// Builds a flat index from the dims a space keeps, innermost first: a dim
/// that continues the last term both in the index (its divisor) and in the
/// target (its stride) widens that term instead of adding one.
class TermBuilder {
public:
  /// A kept dim of `extent` (not 1) at `stride` in the target; `inner` is
  /// the size of the index's dims inside it.
  void keep(int64_t inner, int64_t extent, int64_t stride) {
    if (!terms_.empty()) {
      IndexTerm &last = terms_.back();
      if (last.divisor * *last.modulus == inner &&
          last.stride * *last.modulus == stride) {
        *last.modulus *= extent;
        return;
      }
    }
    terms_.push_back(IndexTerm{inner, extent, stride});
  }

  /// `below` bounds the index: a term whose divisor times modulus reaches
  /// it needs no modulus.
  FlatIndex finish(int64_t below) {
    if (below == 0)
      return {}; // no index to compute (and no division by an empty dim)
    for (IndexTerm &t : terms_)
      if (t.divisor * *t.modulus >= below)
        t.modulus.reset();
    return std::move(terms_);
  }

private:
  FlatIndex terms_;
};

} // namespace

FlatIndex subspaceIndex(const std::vector<int64_t> &domain,
                        const std::vector<int64_t> &dims) {
  std::vector<int64_t> strides(domain.size(), 1);
  for (size_t d = domain.size(); d-- > 1;)
    strides[d - 1] = strides[d] * domain[d];
  TermBuilder b;
  int64_t inner = 1;
  for (size_t j = dims.size(); j-- > 0;) {
    int64_t d = dims[j];
    if (domain[d] == 1)
      continue;
    b.keep(inner, domain[d], strides[d]);
    inner *= domain[d];
  }
  return b.finish(inner);
}

FlatIndex broadcastIndex(const std::vector<int64_t> &input,
                         const std::vector<int64_t> &output) {
  size_t lead = output.size() - input.size();
  TermBuilder b;
  int64_t inner = 1, stride = 1;
  for (size_t d = output.size(); d-- > 0;) {
    int64_t in = d < lead ? 1 : input[d - lead];
    if (output[d] == 1)
      continue;
    if (in != 1)
      b.keep(inner, output[d], stride);
    inner *= output[d];
    stride *= in;
  }
  return b.finish(inner);
}

int64_t evaluate(const FlatIndex &index, int64_t at) {
  int64_t flat = 0;
  for (const IndexTerm &t : index) {
    int64_t v = at / t.divisor;
    if (t.modulus)
      v %= *t.modulus;
    flat += v * t.stride;
  }
  return flat;
}

std::string print(const FlatIndex &index, const std::string &var) {
  std::string expr;
  for (const IndexTerm &t : index) {
    std::string term = var;
    bool ops = t.divisor != 1 || t.modulus;
    if (t.divisor != 1)
      term += " / " + std::to_string(t.divisor) + "LL";
    if (t.modulus)
      term += " % " + std::to_string(*t.modulus) + "LL";
    if (ops)
      term = "(" + term + ")";
    if (t.stride != 1)
      term += " * " + std::to_string(t.stride) + "LL";
    expr = expr.empty() ? term : term + " + " + expr;
  }
  return expr.empty() ? "0LL" : expr;
}

} // namespace shardc
