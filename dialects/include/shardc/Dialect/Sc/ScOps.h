//===- ScOps.h - sc operations --------------------------------------*- C++
//-*-===//
#ifndef SHARDC_DIALECT_SC_SCOPS_H
#define SHARDC_DIALECT_SC_SCOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "shardc/Dialect/Sc/ScAttrs.h"
#include "shardc/Dialect/Sc/ScDialect.h"
#include "shardc/Dialect/Sc/ShardingRule.h"

#include "shardc/Dialect/Sc/ScInterfaces.h.inc"

namespace shardc::sc {
/// Fails, with `emit() << type << " holds more bytes than an int64 ..."`,
/// for a static tensor `type` whose byte size an int64 does not hold.
mlir::LogicalResult
checkBytesFitInt64(mlir::Type type,
                   llvm::function_ref<mlir::InFlightDiagnostic()> emit);
/// Fails (at `op`) for a tensor operand or result whose bytes overflow int64.
mlir::LogicalResult verifyBytesFitInt64(mlir::Operation *op);

namespace OpTrait {
template <typename ConcreteType>
class BytesFitInt64
    : public mlir::OpTrait::TraitBase<ConcreteType, BytesFitInt64> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyBytesFitInt64(op);
  }
};
} // namespace OpTrait
} // namespace shardc::sc

#define GET_OP_CLASSES
#include "shardc/Dialect/Sc/ScOps.h.inc"

namespace shardc::sc {
/// PyTorch-style dim: [-rank, rank) maps to [0, rank); otherwise nullopt.
/// (A dim an op verified is in range: dereference it.)
std::optional<int64_t> normalizeDim(int64_t dim, int64_t rank);

/// False for an op in a form that sharding propagation and the partitioner
/// do not take (an sc.linear with a 1-D weight or a broadcast bias, a
/// circular sc.pad with crops, the parameterised activations such as
/// sc.leaky_relu); `sc-decompose-forms` rewrites those.
bool isCoreForm(mlir::Operation *op);
/// Fails, with an error at `op` that names the pass to run first, where
/// `isCoreForm(op)` is false; `consumer` names who refuses it.
mlir::LogicalResult requireCoreForm(mlir::Operation *op,
                                    llvm::StringRef consumer);

/// What an sc.fft / sc.ifft / sc.rfft / sc.irfft computes, resolved from its
/// attributes. Dims index the complex tensor (without the view_as_real
/// trailing 2); `lengths[i]` is the number of points transformed along
/// `dims[i]` (torch's n / s). For rfft and irfft the last dim is the halved
/// one.
struct SpectralTransform {
  enum class Kind { Forward, Inverse, RealForward, RealInverse };
  Kind kind;
  llvm::SmallVector<int64_t> dims;
  llvm::SmallVector<int64_t> lengths;
  /// "backward", "ortho" or "forward", as torch.fft's norm.
  llvm::StringRef norm;

  bool complexInput() const { return kind != Kind::RealForward; }
  bool complexResult() const { return kind != Kind::RealInverse; }
  bool inverse() const {
    return kind == Kind::Inverse || kind == Kind::RealInverse;
  }
};
/// The transform of a verified spectral op; nullopt for any other op.
std::optional<SpectralTransform> getSpectralTransform(mlir::Operation *op);

/// What a cumulative op (sc.cumsum, cumprod, cummax, cummin, logcumsumexp)
/// folds, by the runtime Scan's names (sum, prod, max, min, logsumexp), and
/// the dim it scans, normalized: none for a scalar, whose result is its
/// input.
struct CumulativeScan {
  llvm::StringRef kind;
  std::optional<int64_t> dim;
};
/// The scan of a verified cumulative op; nullopt for any other op.
std::optional<CumulativeScan> getCumulativeScan(mlir::Operation *op);

/// An sc.einsum equation resolved against its operands' shapes. Labels are
/// numbered: letters by their character, the dims `...` covers as
/// kFirstEllipsisLabel + k, k counted from the innermost.
struct EinsumEquation {
  static constexpr int64_t kFirstEllipsisLabel = 128;
  /// The label of each dim of each operand.
  llvm::SmallVector<llvm::SmallVector<int64_t>> operandLabels;
  /// The label of each dim of the result.
  llvm::SmallVector<int64_t> resultLabels;
  /// Each label's size after broadcasting.
  llvm::DenseMap<int64_t, int64_t> sizes;
};
/// Parses `equation` against `operandTypes` (ranked tensors), failing with a
/// diagnostic at `loc` when there is one.
mlir::FailureOr<EinsumEquation>
parseEinsumEquation(std::optional<mlir::Location> loc, llvm::StringRef opName,
                    llvm::StringRef equation, mlir::TypeRange operandTypes);
} // namespace shardc::sc

#endif // SHARDC_DIALECT_SC_SCOPS_H
