//===- Lowering.h - Rank-program builder shared by the lowering -*- C++ -*-===//

#ifndef SHARDC_COMPILER_LIB_LOWERING_H
#define SHARDC_COMPILER_LIB_LOWERING_H

#include "shardc/Dialect/Sc/WindowMath.h"
#include "shardrt/artifact/ArtifactWriter.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shardc {

namespace sc {
class ConstantOp;
} // namespace sc

namespace fb = shardrt::fb;

/// One tensor of the rank program: an SSA value or a compiler temporary.
struct Buffer {
  fb::DType dtype = fb::DType::F32;
  std::vector<int64_t> shape;
  int64_t first = 0, last = 0; ///< live interval in instruction indices
  bool pinned = false;         ///< live for the whole program (I/O)
  int64_t constant = -1;       ///< index of the artifact constant, if any
  int64_t viewOf = -1; ///< the buffer whose bytes it reads (scl.view), if any
};

/// The bytes of a buffer's slot.
uint64_t bufferBytes(const Buffer &b);

/// How a windowed dim is computed on one rank of a partitioned program: the
/// padding the local op applies (edges only) and where the local output and
/// input start in global coordinates (interpolate, neighbourhood attention).
struct LocalWindow {
  int64_t padLo = 0, padHi = 0;
  int64_t outOffset = 0, inOffset = 0;
};

/// Builds one rank program. Buffers become slots one to one.
class ProgramBuilder {
public:
  /// The shape `value` has in this program: its local shape when
  /// partitioned, else its type's.
  std::vector<int64_t> shapeOf(mlir::Value value) const;
  /// A scratch buffer of an explicit shape.
  uint32_t temporary(fb::DType dtype, std::vector<int64_t> shape);

  /// A buffer for `value` (its type must be a static tensor of a dtype the
  /// CPU target computes in); fails with a diagnostic at `op`.
  llvm::FailureOr<uint32_t> define(mlir::Operation *op, mlir::Value value);
  llvm::FailureOr<uint32_t> temporary(mlir::Operation *op, mlir::Type type);
  /// The buffer holding `value` (defined earlier).
  uint32_t lookup(mlir::Value value) const { return buffers_.lookup(value); }
  void bind(mlir::Value value, uint32_t buffer) { buffers_[value] = buffer; }
  /// The buffer operand `index` of `op` reads: the fetched one while a
  /// partitioned op is lowered, else its value's. By position, because one
  /// value read at two positions may be fetched in two boxes (the queries
  /// and the keys of a self-attention).
  uint32_t operandBuffer(mlir::Operation *op, unsigned index) const;
  /// That buffer's shape (a copy: emitting may move the buffers).
  std::vector<int64_t> operandShape(mlir::Operation *op, unsigned index) const {
    return buffers[operandBuffer(op, index)].shape;
  }

  /// Appends an instruction; marks its inputs used and outputs defined.
  shardrt::artifact::InstructionSpec &emit(fb::Opcode opcode,
                                           std::vector<uint32_t> inputs,
                                           std::vector<uint32_t> outputs);

  std::vector<Buffer> buffers;
  std::vector<shardrt::artifact::InstructionSpec> program;
  std::vector<std::string> sourceOps; ///< per instruction: the sc op name
  std::vector<mlir::LocationAttr> sourceLocs; ///< per instruction
  std::string currentOp;
  mlir::LocationAttr currentLoc;
  /// Partitioned lowering: local shapes of values, and the local windows of
  /// the op being lowered, by input dim (absent: the global window).
  llvm::DenseMap<mlir::Value, std::vector<int64_t>> localShapes;
  std::map<int64_t, LocalWindow> windows;
  /// Partitioned lowering: the buffer fetched for each operand position of
  /// the op being lowered.
  std::vector<uint32_t> fetchedOperands;
  /// Partitioned lowering of a causal attention whose queries do not start
  /// at position 0 on every rank: a bool mask (query x key, true where the
  /// query's global position is at least the key's) that stands for
  /// is_causal, which the runtime counts from local position 0.
  std::optional<uint32_t> causalMask;

private:
  llvm::DenseMap<mlir::Value, uint32_t> buffers_;
};

/// Emits the instructions of one sc op (everything but func.return).
llvm::LogicalResult lowerOp(mlir::Operation *op, ProgramBuilder &builder);

/// The value of every element of `v` when a splat `sc.constant` defines it,
/// directly or through reshards and sharding constraints.
std::optional<double> splatValue(mlir::Value v);

/// The result of `splat` (a splat constant) as a Fill of its own buffer: the
/// artifact stores one value instead of every element, and the buffer lives
/// in the arena only while it is live; in the shape the builder gives it.
llvm::FailureOr<uint32_t> fillSplat(ProgramBuilder &builder,
                                    sc::ConstantOp splat);

/// The dims a reduction with attribute `dims` reduces (all when absent or
/// empty), non-negative and sorted.
std::vector<int64_t> reducedDims(int64_t rank,
                                 std::optional<llvm::ArrayRef<int64_t>> dims);

/// The factor attention scores are scaled by: `scale` when given, else
/// PyTorch's 1 / sqrt(E) of the query's last dim. Without query features
/// every score is an empty sum, 0 whatever the factor, and the factor is 1
/// rather than the infinity the runtime refuses.
double attentionScale(std::optional<llvm::APFloat> scale, mlir::Value query);

/// PyTorch's source-coordinate scale of a resize window (global sizes).
double coordinateScale(const sc::WindowSpec &spec);

/// The artifact dtype of an element type, or failure with a diagnostic.
llvm::FailureOr<fb::DType> artifactDType(mlir::Operation *op, mlir::Type type);
/// The artifact dtype of an element type the targets hold (i1, bf16, f16;
/// anything else is f32, which the verifiers have made it).
fb::DType storedDType(mlir::Type element);

} // namespace shardc

#endif // SHARDC_COMPILER_LIB_LOWERING_H
