//===- DecomposeForms.h - sc-decompose-forms internals ----------*- C++ -*-===//
//
// Private to passes/lib: the rewrites of sc-decompose-forms that live in
// files of their own.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_LIB_DECOMPOSEFORMS_H
#define SHARDC_PASSES_LIB_DECOMPOSEFORMS_H

#include "shardc/Dialect/Sc/ScOps.h"

#include "mlir/IR/Builders.h"

namespace shardc::detail {
/// Moves `from`'s sharding pin (if any) to `to`, which takes its place.
void replaceKeepingPin(mlir::Operation *from, mlir::Operation *to);

/// A rank-0 constant `value` of `like`'s element type, which the elementwise
/// ops broadcast.
mlir::Value scalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value like,
                   double value);

/// Rewrites sc.logsumexp, sc.vector_norm, sc.normalize, sc.glu, sc.rms_norm,
/// sc.prod and the adaptive pools into reductions, cumulative and
/// elementwise ops, pools and slices.
void decomposeReductionForm(mlir::Operation *op);

/// Rewrites an sc.argmax / sc.argmin into sc.amax / sc.amin, compares,
/// selects of candidate indices, sc.amin and a cast to i64, and an sc.max /
/// sc.min into its sc.amax / sc.amin and argmax / argmin; fails (with an
/// error at the op) where an index would not be exact in f32.
mlir::LogicalResult decomposeArgExtreme(mlir::Operation *op);

/// Rewrites an sc.fft / sc.ifft / sc.rfft / sc.irfft into GEMMs against
/// constant DFT matrices; fails (with an error at the op) where a matrix
/// would be too large.
mlir::LogicalResult decomposeSpectral(mlir::Operation *op);

/// Rewrites an sc.einsum into sc.sum, sc.permute, sc.reshape and
/// sc.matmul, contracting two operands at a time from the left.
void decomposeEinsum(sc::EinsumOp op);
} // namespace shardc::detail

#endif // SHARDC_PASSES_LIB_DECOMPOSEFORMS_H
