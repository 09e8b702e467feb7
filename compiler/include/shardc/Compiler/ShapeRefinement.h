//===- ShapeRefinement.h - One index space for reshaped buffers -*- C++ -*-===//
//
// Plain C++ (no MLIR). A chain of elementwise kernels that reshapes on the
// way (a group norm computes on (groups, elements) and its affine epilogue
// on (N, C, H, W)) can run as one kernel over a *common refinement* of the
// shapes: the row-major shape whose dim boundaries are those of every
// shape. Each shape's dims are products of consecutive refinement dims, so
// a buffer that broadcasts to one of the shapes has a same-size shape that
// broadcasts to the refinement (numpy rules) and reads the same elements.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_COMPILER_SHAPEREFINEMENT_H
#define SHARDC_COMPILER_SHAPEREFINEMENT_H

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace shardc {

using Extents = std::vector<int64_t>;

/// The number of elements of `shape`.
int64_t elementCount(const Extents &shape);

/// The coarsest shape that refines every shape of `shapes` (all of one
/// positive element count): its suffix products are the union of theirs.
/// None when the shapes cut the elements at boundaries that do not nest
/// (2x3 and 3x2), or when they hold different counts or no element.
std::optional<Extents> commonRefinement(const std::vector<Extents> &shapes);

/// For each dim of `shape`, the refinement dims [first, second) whose
/// product it is (`refinement` refines `shape` and has no size-1 dims, as
/// commonRefinement makes them; a size-1 dim spans none). None when
/// `refinement` does not refine `shape`.
std::optional<std::vector<std::pair<size_t, size_t>>>
refinementSpans(const Extents &shape, const Extents &refinement);

/// The shape on `refinement` (a refinement of `shape` without dims of size
/// 1, as commonRefinement makes them) of a buffer of shape
/// `input` that broadcasts to `shape` (numpy rules): each dim of `shape`
/// becomes its refinement dims, kept where `input` has the dim and 1 where
/// it broadcasts. It has `input`'s element count. None when `input` does
/// not broadcast to `shape` or `refinement` does not refine it.
std::optional<Extents> broadcastOnRefinement(const Extents &input,
                                             const Extents &shape,
                                             const Extents &refinement);

} // namespace shardc

#endif // SHARDC_COMPILER_SHAPEREFINEMENT_H
