//===- FusedBuffers.h - Buffers of fused kernels ----------------*- C++ -*-===//
//
// What the passes over rank-class functions (sc-expand-norms, sc-fuse,
// sc-sink-bias, sc-overlap-halos, sc-reshape-views) share: which functions
// they rewrite, views of temporaries and small copies of inputs when a fused
// kernel reads a buffer in another shape, and dropping a memory plan that no
// longer holds.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_COMPILER_LIB_FUSEDBUFFERS_H
#define SHARDC_COMPILER_LIB_FUSEDBUFFERS_H

#include "shardc/Compiler/ShapeRefinement.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"

#include <optional>

#include "llvm/ADT/SmallVector.h"

namespace mlir {
class ModuleOp;
class OpBuilder;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace shardc {
namespace scl {
class KernelOp;
} // namespace scl

Extents shapeOf(mlir::Value buffer);

/// Whether a buffer holds f32 elements.
bool isF32(mlir::Value buffer);

/// A Copy between f32 buffers of one element count and different shapes.
bool isReshape(scl::KernelOp k);

/// A Reduce kernel that an scl.fused_reduction can replace: f32, one of
/// its modes, dims in range and distinct, no amax/amin over nothing, an
/// output apart from its input.
bool isFusableReduce(scl::KernelOp k);

/// Whether readAs(v, shape) on a kernel over `domainCount` elements reads
/// `v` in place or copies less than the domain: a full-size copy of an
/// input or a constant would cost what fusing saves.
bool readsWithoutFullCopy(mlir::Value v, const Extents &shape,
                          int64_t domainCount);

/// `v` in shape `shape` (same element count), made at `b`: `v` itself when
/// the shapes agree, else a view of a temporary, or a copy of an input or a
/// constant (their bytes may live outside the arena). The new op is located
/// at `loc`, or at `v` without one.
mlir::Value readAs(mlir::Value v, const Extents &shape, mlir::OpBuilder &b,
                   std::optional<mlir::Location> loc = std::nullopt);

/// The rank-class functions (`scl.ranks`) of `module` that have a body.
llvm::SmallVector<mlir::func::FuncOp, 4>
rankClassFunctions(mlir::ModuleOp module);

/// A pass that makes kernels read buffers later, or adds buffers (copies on
/// a fused kernel's shape), invalidates an earlier sc-plan-memory plan: this
/// drops it, so the artifact writer plans again.
void dropMemoryPlan(mlir::func::FuncOp f);

} // namespace shardc

#endif // SHARDC_COMPILER_LIB_FUSEDBUFFERS_H
