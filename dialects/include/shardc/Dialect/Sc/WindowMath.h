//===- WindowMath.h - 1-D window / interval arithmetic ----------*- C++ -*-===//
//
// Part of the shardc project.
//
//===----------------------------------------------------------------------===//
//
// Pure integer arithmetic describing which input indices a windowed op reads
// along ONE dimension. The halo planner and the sharding propagation both
// need this, and keeping it free of MLIR/LLVM lets it be tested exhaustively
// against brute force without building the dialect.
//
// Every formula follows PyTorch exactly (conv/pool, conv_transpose, F.pad,
// F.interpolate) or NATTEN (neighborhood attention), because the compiled
// program must reproduce eager PyTorch bit for bit, halo included.
//
// Terminology:
//   * virtual coordinate: an index into the conceptually padded input; it may
//     lie outside [0, inputSize) and is mapped to a real index (or to nothing)
//     by the boundary mode.
//   * real index: an index in [0, inputSize).
//
// All functions except validateWindowSpec() assume a spec that
// validateWindowSpec() accepts and an output range inside
// [0, windowOutputSize(spec)).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_SC_WINDOWMATH_H
#define SHARDC_DIALECT_SC_WINDOWMATH_H

#include <cstdint>
#include <string>
#include <vector>

namespace shardc {
namespace sc {

/// Half-open integer interval [lo, hi). Functions in this file return the
/// canonical empty interval {0, 0} whenever the result is empty, so plain
/// field-wise equality is meaningful for results.
struct Interval {
  int64_t lo = 0, hi = 0;

  bool empty() const;
  /// Number of elements; 0 for an empty interval (never negative).
  int64_t size() const;
  /// Field-wise equality.
  bool operator==(const Interval &other) const;
};

enum class WindowKind { Strided, Transposed, Resize, Pad, Neighborhood };

/// How a virtual coordinate outside [0, n) is mapped onto the input.
enum class BoundaryMode {
  Zeros,     ///< Constant padding: no real input is read.
  Reflect,   ///< PyTorch 'reflect': mirror without repeating the edge.
  Replicate, ///< Clamp to the nearest edge.
  Circular   ///< Wrap around (v mod n).
};

enum class ResizeMode { Nearest, NearestExact, Linear };

struct WindowSpec {
  WindowKind kind = WindowKind::Strided;
  int64_t inputSize = 0, outputSize = 0;
  int64_t kernel = 1, stride = 1, dilation = 1;
  /// Strided/Pad: virtual padding. Transposed: PyTorch 'padding' cropping.
  int64_t padLow = 0, padHigh = 0;
  /// Transposed only.
  int64_t outputPadding = 0;
  /// Strided (pooling) only.
  bool ceilMode = false;
  /// Strided and Pad only.
  BoundaryMode boundary = BoundaryMode::Zeros;
  ResizeMode resizeMode = ResizeMode::Nearest;
  bool alignCorners = false;
  /// Resize: user scale factor (0 = none given; derive from sizes).
  double scaleFactor = 0.0;
};

/// Output size the op produces from inputSize and the parameters. Only
/// meaningful for a valid spec (an invalid one may yield a value < 1).
int64_t windowOutputSize(const WindowSpec &spec);

/// Hull [min tap, max tap + 1) of the virtual input coordinates read by the
/// outputs in `out`. For Transposed/Resize/Neighborhood the taps are real
/// indices. Returns {0, 0} if `out` is empty or nothing is read (possible for
/// Transposed outputs that no input reaches).
Interval virtualInputRange(const WindowSpec &spec, Interval out);

/// Real input indices a halo planner has to fetch for `out`: the image under
/// the boundary map of every virtual coordinate in virtualInputRange(), as
/// sorted, disjoint, non-adjacent intervals inside [0, inputSize).
std::vector<Interval> inputIntervals(const WindowSpec &spec, Interval out);

/// The input index that "owns" output `out` for sharding propagation. Always
/// in [0, inputSize) and non-decreasing in `out`.
int64_t anchorInputIndex(const WindowSpec &spec, int64_t out);

/// The largest magnitude of a window parameter (and of avg_pool's divisor):
/// it keeps all products and sums of the window arithmetic, here and in the
/// runtime, far from int64 overflow.
constexpr int64_t kMaxWindowParameter = int64_t(1) << 30;

/// Returns "" if the spec is valid, otherwise a user-facing reason.
std::string validateWindowSpec(const WindowSpec &spec);

} // namespace sc
} // namespace shardc

#endif // SHARDC_DIALECT_SC_WINDOWMATH_H
