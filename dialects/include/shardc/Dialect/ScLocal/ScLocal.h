//===- ScLocal.h - The scl dialect: per-rank-class local programs -*- C++
//-*-===//
//
// Ops, attributes and the helpers that read a rank-class function's context
// (its mesh and ranks). See ScLocalBase.td for what the dialect is for.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECT_SCLOCAL_SCLOCAL_H
#define SHARDC_DIALECT_SCLOCAL_SCLOCAL_H

#include "shardc/Dialect/Sc/ScOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <optional>

#include "shardc/Dialect/ScLocal/ScLocalDialect.h.inc"
#include "shardc/Dialect/ScLocal/ScLocalEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "shardc/Dialect/ScLocal/ScLocalAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "shardc/Dialect/ScLocal/ScLocalTypes.h.inc"

#define GET_OP_CLASSES
namespace shardc::scl {
/// What communication writes besides its buffers: the messages between
/// ranks. A send-only exchange writes no buffer of its own rank, so without
/// this it would look dead to canonicalize and CSE (which run at -O1 on scl
/// given to shardc) and be erased, leaving its peer's receive unmatched.
struct CommResource : public mlir::SideEffects::Resource::Base<CommResource> {
  llvm::StringRef getName() final { return "scl.comm"; }
};
} // namespace shardc::scl

#include "shardc/Dialect/ScLocal/ScLocalOps.h.inc"

namespace shardrt::fb {
enum class Opcode : uint16_t; // shardbin_generated.h
} // namespace shardrt::fb

namespace shardc::scl {

/// The operand count of an elementwise function of scl.scalar (the runtime's
/// Unary and Binary modes, the Compare predicates, select and bool); 0 if
/// `fn` is none.
int scalarArity(llvm::StringRef fn);

/// The scl.scalar function of a kernel that works element by element on f32
/// buffers: its Unary or Binary mode, or "" for a same-type Copy (the value
/// passes through); none for any other kernel.
std::optional<std::string> elementwiseFunction(KernelOp k);

/// What elementwiseFunction gives, and also the scl.scalar function of a
/// kernel on bools that a fused body can hold as 1.0 and 0.0: a Compare of
/// f32 buffers (its predicate), a Select of f32 buffers on a bool condition
/// ("select"), a Cast from f32 to i1 ("bool") or back (""). Its bool
/// operands and results may only pass between kernels of one body.
std::optional<std::string> fusableFunction(KernelOp k);

/// The element types a rank program's buffers hold (Scl_Buffer's): f32,
/// bf16, f16, i1 and i64. bf16 and f16 compute in f32 (sc-compute-in-f32).
bool isBufferElement(mlir::Type element);
/// What kernels other than casts and moves (and fused kernels) read and
/// write: f32, i1, bf16 or f16; isBufferElement adds i64 (argmax/argmin
/// indices).
bool isComputeElement(mlir::Type element);
/// A bf16 or f16 element type: moved, cast, and widened where read.
bool isHalfFloatElement(mlir::Type element);

/// The buffer whose bytes `v` holds: `v` itself unless an scl.view made it.
mlir::Value storageOf(mlir::Value v);

/// Whether a terminator hands `v` to the caller (an output of the program).
bool isReturned(mlir::Value v);

/// `root` and every scl.view of it, transitively.
llvm::SmallPtrSet<mlir::Value, 4> aliasesOf(mlir::Value root);

/// Whether `op` exchanges data with other ranks (it writes CommResource).
bool communicates(mlir::Operation *op);

/// Whether `op` may write one of `buffers`. An op that does not declare its
/// memory effects writes every buffer it takes.
bool mayWrite(mlir::Operation *op,
              const llvm::SmallPtrSetImpl<mlir::Value> &buffers);

/// Whether an op after `from` and before `until` (null: the block's end),
/// other than those `skip` names, may write one of `buffers`.
bool mayWriteBetween(mlir::Operation *from, mlir::Operation *until,
                     const llvm::SmallPtrSetImpl<mlir::Value> &buffers,
                     llvm::function_ref<bool(mlir::Operation *)> skip = {});

/// Whether `kind` is a reduction of the runtime's Reduce (and of
/// scl.fused_reduction): sum, mean, amax, amin.
bool isReductionKind(llvm::StringRef kind);

/// Why a reduction of `kind` over `domain`, reducing `dims` (ascending,
/// distinct, in range), cannot write `outputCount` elements; "" if it can.
/// What scl.fused_reduction verifies of its shape, and what sc-fuse checks
/// before it turns a Reduce into one.
std::string reductionShapeError(llvm::StringRef kind,
                                llvm::ArrayRef<int64_t> domain,
                                llvm::ArrayRef<int64_t> dims,
                                int64_t outputCount);

/// Whether `a` and `b` hold the same bytes (views of one buffer).
bool sharesStorage(mlir::Value a, mlir::Value b);

/// Whether a kernel writing `out` writes bytes it may also read through one
/// of `ins` (an in-place kernel, or views of one buffer on both sides): it
/// then may promise neither `__restrict__` nor reads through the read-only
/// cache (`__ldg`), and a reduction would race with its own reads.
bool writesAnInput(mlir::ValueRange ins, mlir::Value out);

/// Whether `v` is a temporary of the program: its bytes are an alloc's that
/// no alias hands to the caller (who may bind inputs and outputs to memory
/// of its own), so a view may read or write them.
bool isTemporary(mlir::Value v);

/// Whether `shape` broadcasts to `target` (numpy rules: trailing dims align;
/// each is equal or 1).
bool broadcastsTo(llvm::ArrayRef<int64_t> shape,
                  llvm::ArrayRef<int64_t> target);

/// Where an op of a rank program runs: the mesh its peers and groups refer
/// to (null in a world of one) and the ranks of its class.
struct RankContext {
  sc::MeshOp mesh;
  llvm::SmallVector<int64_t> meshShape; ///< empty without a mesh
  llvm::SmallVector<int32_t> ranks;
  /// The number of ranks in a group over mesh axes `axes`.
  int64_t groupSize(llvm::ArrayRef<int64_t> axes) const;
  /// `rank`'s index in its group over `axes`: members are the ranks sharing
  /// its other coordinates, ordered by their coordinates on `axes` as
  /// listed (the first major).
  int64_t groupPosition(llvm::ArrayRef<int64_t> axes, int64_t rank) const;
  /// Mesh coordinates of world rank `rank` (row-major, last axis fastest).
  llvm::SmallVector<int64_t> coords(int64_t rank) const;
};

/// The context of `op` from its enclosing function's `scl.ranks` and
/// `scl.mesh`; fails with a diagnostic on `op` when there is none.
mlir::FailureOr<RankContext> rankContextOf(mlir::Operation *op);

/// The runtime compute instruction named `name` (an scl.kernel opcode): a
/// schema name that is neither Invalid nor communication.
std::optional<shardrt::fb::Opcode> computeOpcode(llvm::StringRef name);

} // namespace shardc::scl

#endif // SHARDC_DIALECT_SCLOCAL_SCLOCAL_H
