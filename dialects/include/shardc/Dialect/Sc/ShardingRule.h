//===- ShardingRule.h - factor-based sharding rules ---------------*- C++
//-*-===//
//
// Plain C++ (no MLIR) so the partitioner's planning code and its unit tests can
// use it without the dialect.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECT_SC_SHARDINGRULE_H
#define SHARDC_DIALECT_SC_SHARDINGRULE_H

#include "shardc/Dialect/Sc/WindowMath.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardc::sc {

/// What sharding a factor costs the op.
enum class FactorKind {
  /// Each shard computes its part locally (batch, channels, elementwise dims).
  PassThrough,
  /// Appears in operands only (a contracted or reduced dim): sharding it leaves
  /// a partial result.
  Reduction,
  /// The result index reads a window of the operand dim: needs halos.
  Window,
  /// The op needs global statistics over this dim (softmax, norms): local
  /// partial moments plus one all-reduce.
  Statistic,
  /// Cannot be split without gathering first (e.g. a reshape's minor dims).
  NeedsReplication,
};

const char *stringifyFactorKind(FactorKind kind);

struct ShardingFactor {
  FactorKind kind;
  int64_t size;
};

/// A factor is a logical loop of the op; every operand and result dim maps to
/// at most one factor. Dims that map to none (broadcast size-1 dims) stay
/// replicated.
struct ShardingRule {
  static constexpr int64_t kNoFactor = -1;

  std::vector<ShardingFactor> factors;
  std::vector<std::vector<int64_t>> operandDims;
  std::vector<std::vector<int64_t>> resultDims;

  ShardingRule(size_t numOperands, size_t numResults)
      : operandDims(numOperands), resultDims(numResults) {}

  int64_t addFactor(FactorKind kind, int64_t size) {
    factors.push_back({kind, size});
    return static_cast<int64_t>(factors.size()) - 1;
  }

  /// Dims that run over their factor `scale` times finer: a reshape's merged
  /// dim (a, b) -> (a * b) holds its major factor a, each index of it b
  /// elements, so the dim's shard extents are the factor's times b. Empty
  /// lists (the default) mean a scale of 1 everywhere.
  std::vector<std::vector<int64_t>> operandScales;
  std::vector<int64_t> resultScales;

  int64_t operandScale(unsigned i, size_t d) const {
    return i < operandScales.size() && d < operandScales[i].size()
               ? operandScales[i][d]
               : 1;
  }
  int64_t resultScale(size_t d) const {
    return d < resultScales.size() ? resultScales[d] : 1;
  }

  /// Human-readable form, e.g. "(i, j), (j, k) -> (i, k) {j: reduction}";
  /// a scaled dim prints as "i*4".
  std::string toString() const;
};

/// One windowed dimension: result dim `resultDim` reads a window of dim
/// `inputDim` of operand `operand`.
struct WindowedDim {
  unsigned operand;
  int64_t inputDim;
  int64_t resultDim;
  WindowSpec spec;
};

} // namespace shardc::sc

#endif // SHARDC_DIALECT_SC_SHARDINGRULE_H
