//===- Partition.h - Per-rank programs from a sharded sc function -*- C++
//-*-===//
//
// The partitioned lowering: every op of the global program becomes, on every
// rank, the local op on its shard plus the data movement its operands need,
// planned from index intervals (BoxPlan.h). All ranks are lowered side by
// side, op by op, because one rank's sends are another's receives; ranks
// whose programs come out identical (peers are relative mesh offsets) then
// share a rank class.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_LIB_PARTITION_H
#define SHARDC_COMPILER_LIB_PARTITION_H

#include "Lowering.h"

#include "shardc/Passes/Sharding.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace shardc {

class Partitioner {
public:
  Partitioner(mlir::func::FuncOp f, sc::MeshOp mesh);

  /// Lowers the function; fails with a located diagnostic on what it cannot
  /// partition.
  mlir::LogicalResult run();

  plan::Mesh mesh;
  /// Attention rings become one exchange and one block per member on every
  /// rank instead of one RingAttention instruction.
  bool unrollRings = false;
  /// A conv reads a 16-bit halo box itself (see fetchNarrow).
  bool convReadsHalfFloats = false;
  std::vector<ProgramBuilder> ranks;
  std::vector<std::vector<uint32_t>> inputs, outputs; ///< per rank
  std::vector<ValueSharding> inputShardings, outputShardings;
  std::vector<shardrt::artifact::ConstantSpec> constants;

  // Used by the op-family lowerings (PartitionStats.cpp,
  // PartitionAttention.cpp).
  int64_t numRanks() const { return int64_t(ranks.size()); }
  const ValueSharding &shardingOf(mlir::Value v) const;
  /// Assembles `needs[r]` of `v` on every rank r (a reused shard when the
  /// need is exactly the owned box); returns each rank's buffer.
  mlir::FailureOr<std::vector<uint32_t>>
  fetch(mlir::Operation *op, mlir::Value v,
        const std::vector<plan::Need> &needs);
  /// fetch's boxes of an f32 cast of a bf16/f16 value: moved in 16 bits and
  /// cast on arrival into `result` (the ranks with `moving` boxes). False
  /// when `v` is no such cast.
  mlir::FailureOr<bool> fetchNarrow(mlir::Operation *op, mlir::Value v,
                                    const std::vector<plan::Need> &needs,
                                    const std::vector<plan::Need> &moving,
                                    std::vector<uint32_t> &result);
  /// Resolves a partial value with one all-reduce over its partial axes.
  mlir::FailureOr<std::vector<uint32_t>> resolvePartial(mlir::Operation *op,
                                                        mlir::Value v);
  /// A replicated f32 constant of `shape` bound on every rank.
  std::vector<uint32_t> constantTensor(std::vector<int64_t> shape,
                                       const std::vector<float> &values);
  /// A scalar filled with `value` on rank r.
  uint32_t scalar(int64_t r, double value);
  /// `x * factor` on rank r, into a fresh buffer (a mean from a sum).
  uint32_t scaled(int64_t r, uint32_t x, double factor);
  /// `sums`, per rank, scaled by 1 / the group size where `s` is a partial
  /// mean (its collective summed); otherwise `sums` itself.
  std::vector<uint32_t> meanOfSums(const ValueSharding &s,
                                   const std::vector<uint32_t> &sums);
  /// Each rank's buffer in `ids` cast to `to` (a buffer already of that
  /// type is its own cast): collectives reduce in f32, so a 16-bit partial
  /// value (a model input declared partial) is widened for the reduction
  /// and rounded back after it.
  std::vector<uint32_t> castAll(const std::vector<uint32_t> &ids,
                                shardrt::fb::DType to);
  /// `collective` (a reduction of the per-rank `parts` of partial value
  /// `s`) run in f32, a mean scaled, the result in the parts' type.
  std::vector<uint32_t> reduceInF32(
      const ValueSharding &s, const std::vector<uint32_t> &parts,
      llvm::function_ref<std::vector<uint32_t>(const std::vector<uint32_t> &)>
          collective);

  mlir::func::FuncOp func;
  sc::MeshOp meshOp;

private:
  mlir::LogicalResult partitionOp(mlir::Operation *op);
  mlir::LogicalResult checkContractedSplits(mlir::Operation *op,
                                            const sc::ShardingRule &rule);
  mlir::LogicalResult reshard(mlir::Operation *op);
  /// One all-gather (`in` split along `dim` as `split`, the result whole
  /// there) or reduce-scatter (`in` partial, the result split as `split`)
  /// on every rank; returns the results. The group lists split.axes in the
  /// split's order, so its members come in shard order.
  std::vector<uint32_t> blockCollective(const std::vector<uint32_t> &in,
                                        fb::Opcode opcode, int64_t dim,
                                        const plan::DimSplit &split,
                                        fb::ReduceKind reduce);
  /// One all-to-all on every rank: `in`, split along `concatDim` as
  /// `concat`, becomes split along `splitDim` as `split` (same axes).
  std::vector<uint32_t> allToAll(const std::vector<uint32_t> &in,
                                 int64_t splitDim, const plan::DimSplit &split,
                                 int64_t concatDim,
                                 const plan::DimSplit &concat);
  mlir::LogicalResult finishReturn(mlir::Operation *op);
  llvm::DenseMap<mlir::Value, ValueSharding> shardings_;
};

/// The number of ranks in a collective group over mesh axes `axes`.
int64_t groupSize(const plan::Mesh &mesh, const std::vector<int> &axes);

/// The artifact's name for a partial value's reduction kind.
fb::ReduceKind artifactReduceKind(sc::ReductionKind kind);

/// Each rank's mask standing for is_causal when `op` is a causal attention
/// whose queries are split over whole keys (ProgramBuilder::causalMask),
/// else none; failure() with a diagnostic.
llvm::FailureOr<std::vector<std::optional<uint32_t>>>
causalQueryMasks(Partitioner &p, mlir::Operation *op);

/// A collective's ints: `dim`, then one extent per member of its group.
/// Every member's instruction takes this one list (copies share it, see
/// art::IntList), so a group of P costs O(P) once, not on every member.
shardrt::artifact::IntList collectiveInts(int64_t dim,
                                          const std::vector<int64_t> &extents);

/// The op families whose local computation differs from the global op's
/// (statistics over split dims, attention rings, partial means, biases of
/// split contractions). Each returns failure() with a diagnostic, or
/// success() when it handled `op`, or std::nullopt when the generic lowering
/// applies (to `operandBuffers`, which it may have rewritten).
std::optional<mlir::LogicalResult>
lowerStatisticOp(Partitioner &p, mlir::Operation *op,
                 std::vector<std::vector<uint32_t>> &operandBuffers);

} // namespace shardc

#endif // SHARDC_COMPILER_LIB_PARTITION_H
