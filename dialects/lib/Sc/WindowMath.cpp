//===- WindowMath.cpp - 1-D window / interval arithmetic ------------------===//
//
// Part of the shardc project.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Sc/WindowMath.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

using namespace shardc::sc;

//===----------------------------------------------------------------------===//
// Interval
//===----------------------------------------------------------------------===//

bool Interval::empty() const { return lo >= hi; }

int64_t Interval::size() const { return empty() ? 0 : hi - lo; }

bool Interval::operator==(const Interval &other) const {
  return lo == other.lo && hi == other.hi;
}

//===----------------------------------------------------------------------===//
// Integer helpers
//===----------------------------------------------------------------------===//

namespace {

// C++ division truncates towards zero; window math needs floor semantics
// because virtual coordinates and cropped transposed outputs go negative.
int64_t floorDiv(int64_t a, int64_t b) { return llvm::divideFloorSigned(a, b); }
int64_t ceilDiv(int64_t a, int64_t b) { return llvm::divideCeilSigned(a, b); }
int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

int64_t clampIndex(int64_t v, int64_t n) {
  return std::min(std::max(v, int64_t(0)), n - 1);
}

/// Builds [lo, hi) but canonicalizes every empty result to {0, 0} so callers
/// can compare results field-wise.
Interval makeInterval(int64_t lo, int64_t hi) {
  if (lo >= hi)
    return Interval{};
  return Interval{lo, hi};
}

//===----------------------------------------------------------------------===//
// Boundary images
//===----------------------------------------------------------------------===//

/// Image of the virtual interval `hull` under PyTorch 'reflect' padding. The
/// reflect map is a triangle wave of period 2(n-1) whose consecutive values
/// differ by exactly one, so the image of a contiguous range is contiguous and
/// it suffices to find its extremes.
Interval reflectImage(Interval hull, int64_t n) {
  if (n == 1)
    return Interval{0, 1};
  int64_t period = 2 * (n - 1);
  if (hull.size() >= period)
    return Interval{0, n};
  auto fold = [&](int64_t x) { return x < n ? x : period - x; };
  // Shift into [0, period); the range then ends before 2 * period.
  int64_t first = floorMod(hull.lo, period);
  int64_t last = first + hull.size() - 1;
  int64_t lo = std::min(fold(first), fold(floorMod(last, period)));
  int64_t hi = std::max(fold(first), fold(floorMod(last, period)));
  // A valley (value 0) sits at x = period; peaks (value n-1) at n-1 and
  // n-1+period. Endpoints already cover x = 0.
  if (first <= period && period <= last)
    lo = 0;
  if ((first <= n - 1 && n - 1 <= last) ||
      (first <= n - 1 + period && n - 1 + period <= last))
    hi = n - 1;
  return Interval{lo, hi + 1};
}

/// Real indices read when every virtual coordinate of `hull` is mapped by
/// `mode`; sorted, disjoint and non-adjacent.
std::vector<Interval> boundaryImage(Interval hull, int64_t n,
                                    BoundaryMode mode) {
  if (hull.empty())
    return {};
  switch (mode) {
  case BoundaryMode::Zeros: {
    Interval real =
        makeInterval(std::max(hull.lo, int64_t(0)), std::min(hull.hi, n));
    if (real.empty())
      return {};
    return {real};
  }
  case BoundaryMode::Replicate:
    return {Interval{clampIndex(hull.lo, n), clampIndex(hull.hi - 1, n) + 1}};
  case BoundaryMode::Reflect:
    return {reflectImage(hull, n)};
  case BoundaryMode::Circular: {
    if (hull.size() >= n)
      return {Interval{0, n}};
    int64_t start = floorMod(hull.lo, n);
    int64_t end = start + hull.size();
    if (end <= n)
      return {Interval{start, end}};
    // Wraps once; as size < n the two pieces can neither touch nor overlap.
    return {Interval{0, end - n}, Interval{start, n}};
  }
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Per-kind source computations
//===----------------------------------------------------------------------===//

/// PyTorch `compute_scales_value<float>`: the user's factor wins when given,
/// which is why float results can differ from the size ratio.
float resizeScale(const WindowSpec &spec, int64_t out) {
  if (spec.scaleFactor > 0.0)
    return static_cast<float>(1.0 / spec.scaleFactor);
  return static_cast<float>(spec.inputSize) / static_cast<float>(out);
}

/// Source indices {i0, i1} read by resize output `o` (i0 == i1 for the
/// nearest modes). Mirrors aten/src/ATen/native/UpSample.h in float, since
/// matching eager PyTorch needs its rounding, not better rounding. Each
/// float operation is its own statement to keep them separately rounded.
std::pair<int64_t, int64_t> resizeSource(const WindowSpec &spec, int64_t o) {
  int64_t in = spec.inputSize;
  int64_t out = windowOutputSize(spec);
  switch (spec.resizeMode) {
  case ResizeMode::Nearest: {
    // nearest_idx special-cases these two ratios to dodge float error.
    if (out == in)
      return {o, o};
    if (out == 2 * in)
      return {o >> 1, o >> 1};
    float pos = static_cast<float>(o) * resizeScale(spec, out);
    int64_t src = std::min(static_cast<int64_t>(std::floor(pos)), in - 1);
    return {src, src};
  }
  case ResizeMode::NearestExact: {
    float center = static_cast<float>(o) + 0.5f;
    float pos = center * resizeScale(spec, out);
    int64_t src = std::min(static_cast<int64_t>(std::floor(pos)), in - 1);
    return {src, src};
  }
  case ResizeMode::Linear: {
    float pos;
    if (spec.alignCorners) {
      float scale =
          out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                  : 0.0f;
      pos = scale * static_cast<float>(o);
    } else {
      float center = static_cast<float>(o) + 0.5f;
      float scaled = resizeScale(spec, out) * center;
      pos = std::max(scaled - 0.5f, 0.0f);
    }
    // guard_index_and_lambda clamps against float overshoot.
    int64_t i0 = std::min(static_cast<int64_t>(std::floor(pos)), in - 1);
    int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
    return {i0, i1};
  }
  }
  return {0, 0};
}

/// NATTEN: a dilated neighborhood is a plain neighborhood inside the
/// sub-sequence of indices congruent to o mod d. Returns the first and last
/// real index read by query `o`.
std::pair<int64_t, int64_t> neighborhoodTaps(const WindowSpec &spec,
                                             int64_t o) {
  int64_t n = spec.inputSize, k = spec.kernel, d = spec.dilation;
  int64_t group = o % d;
  int64_t groupSize = (n - group + d - 1) / d;
  int64_t start = std::min(std::max(o / d - k / 2, int64_t(0)), groupSize - k);
  return {start * d + group, (start + k - 1) * d + group};
}

/// Exact hull of the inputs scattered into [out.lo, out.hi) by a transposed
/// conv. Output o = i*s + j*d - padLow, so for each tap j the contributing
/// inputs form one contiguous range; this is O(kernel) rather than O(|out|).
Interval transposedRange(const WindowSpec &spec, Interval out) {
  int64_t s = spec.stride, lo = INT64_MAX, hi = INT64_MIN;
  for (int64_t j = 0; j < spec.kernel; ++j) {
    int64_t shift = spec.padLow - j * spec.dilation;
    int64_t first = std::max(ceilDiv(out.lo + shift, s), int64_t(0));
    int64_t end = std::min(ceilDiv(out.hi + shift, s), spec.inputSize);
    if (first >= end)
      continue;
    lo = std::min(lo, first);
    hi = std::max(hi, end);
  }
  return lo < hi ? Interval{lo, hi} : Interval{};
}

/// Queries of different residues mod d have unrelated windows, but within a
/// residue the window only moves right; so the extremes come from the first
/// and last d queries of the range.
Interval neighborhoodRange(const WindowSpec &spec, Interval out) {
  int64_t d = spec.dilation, lo = INT64_MAX, hi = INT64_MIN;
  for (int64_t o = out.lo; o < std::min(out.hi, out.lo + d); ++o)
    lo = std::min(lo, neighborhoodTaps(spec, o).first);
  for (int64_t o = std::max(out.lo, out.hi - d); o < out.hi; ++o)
    hi = std::max(hi, neighborhoodTaps(spec, o).second + 1);
  return Interval{lo, hi};
}

} // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

int64_t shardc::sc::windowOutputSize(const WindowSpec &spec) {
  int64_t n = spec.inputSize, s = spec.stride;
  int64_t span = spec.dilation * (spec.kernel - 1) + 1;
  switch (spec.kind) {
  case WindowKind::Strided: {
    int64_t room = n + spec.padLow + spec.padHigh - span;
    if (!spec.ceilMode)
      return floorDiv(room, s) + 1;
    // PyTorch pooling_output_shape: a ceil-mode window must start inside the
    // input or the left padding, never entirely in the right padding.
    int64_t out = ceilDiv(room, s) + 1;
    if ((out - 1) * s >= n + spec.padLow)
      --out;
    return out;
  }
  case WindowKind::Transposed:
    return (n - 1) * s - spec.padLow - spec.padHigh + span + spec.outputPadding;
  case WindowKind::Pad:
    return n + spec.padLow + spec.padHigh;
  case WindowKind::Resize:
    // F.interpolate computes the size in float64 from the user's factor.
    if (spec.scaleFactor > 0.0) {
      double size = std::floor(static_cast<double>(n) * spec.scaleFactor);
      // Out-of-range sizes are reported as 0 (invalid) rather than cast UB.
      return size < double(int64_t(1) << 62) ? static_cast<int64_t>(size) : 0;
    }
    return spec.outputSize;
  case WindowKind::Neighborhood:
    return n;
  }
  return 0;
}

Interval shardc::sc::virtualInputRange(const WindowSpec &spec, Interval out) {
  if (out.empty())
    return Interval{};
  assert(out.lo >= 0 && out.hi <= windowOutputSize(spec) &&
         "output range outside the op's output");
  switch (spec.kind) {
  case WindowKind::Strided: {
    // Taps grow with both o and j, so the extremes are the first tap of the
    // first output and the last tap of the last output.
    int64_t span = spec.dilation * (spec.kernel - 1) + 1;
    return Interval{out.lo * spec.stride - spec.padLow,
                    (out.hi - 1) * spec.stride - spec.padLow + span};
  }
  case WindowKind::Pad:
    return Interval{out.lo - spec.padLow, out.hi - spec.padLow};
  case WindowKind::Transposed:
    return transposedRange(spec, out);
  case WindowKind::Resize:
    // Float rounding is monotone, so the source indices are non-decreasing
    // in o and the endpoints bound the whole range.
    return Interval{resizeSource(spec, out.lo).first,
                    resizeSource(spec, out.hi - 1).second + 1};
  case WindowKind::Neighborhood:
    return neighborhoodRange(spec, out);
  }
  return Interval{};
}

std::vector<Interval> shardc::sc::inputIntervals(const WindowSpec &spec,
                                                 Interval out) {
  Interval hull = virtualInputRange(spec, out);
  // Only Strided and Pad have virtual padding; the other kinds already
  // produce real indices, for which Zeros is the identity on [0, n).
  bool hasBoundary =
      spec.kind == WindowKind::Strided || spec.kind == WindowKind::Pad;
  return boundaryImage(hull, spec.inputSize,
                       hasBoundary ? spec.boundary : BoundaryMode::Zeros);
}

int64_t shardc::sc::anchorInputIndex(const WindowSpec &spec, int64_t out) {
  int64_t n = spec.inputSize;
  switch (spec.kind) {
  case WindowKind::Strided:
    // The window center; monotone in o, unlike "first real tap".
    return clampIndex(out * spec.stride - spec.padLow +
                          spec.dilation * (spec.kernel - 1) / 2,
                      n);
  case WindowKind::Pad:
    return clampIndex(out - spec.padLow, n);
  case WindowKind::Transposed:
    // The input whose stride cell [i*s, (i+1)*s) holds o + padLow. This is
    // not always an actual tap of o (when dilation does not divide stride),
    // but it is monotone, which propagation needs more.
    return clampIndex(floorDiv(out + spec.padLow, spec.stride), n);
  case WindowKind::Resize:
    return resizeSource(spec, out).first;
  case WindowKind::Neighborhood:
    return out;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

namespace {

std::string str(int64_t v) { return std::to_string(v); }

const char *kindName(WindowKind kind) {
  switch (kind) {
  case WindowKind::Strided:
    return "strided window";
  case WindowKind::Transposed:
    return "transposed window";
  case WindowKind::Resize:
    return "resize";
  case WindowKind::Pad:
    return "pad";
  case WindowKind::Neighborhood:
    return "neighborhood window";
  }
  return "window";
}

/// Rejects parameters the kind ignores: a non-default value there means the
/// caller mapped the op's attributes wrongly, and silently ignoring it would
/// plan a wrong halo.
std::string checkUnusedFields(const WindowSpec &spec) {
  std::string kind = kindName(spec.kind);
  bool isStrided = spec.kind == WindowKind::Strided;
  bool isResize = spec.kind == WindowKind::Resize;
  if (spec.kind != WindowKind::Transposed && spec.outputPadding != 0)
    return "output padding is not meaningful for a " + kind;
  if (!isStrided && spec.ceilMode)
    return "ceil mode is only meaningful for a strided window, not a " + kind;
  if (!isStrided && spec.kind != WindowKind::Pad &&
      spec.boundary != BoundaryMode::Zeros)
    return "a padding mode other than zeros is not meaningful for a " + kind;
  if (!isResize && (spec.alignCorners || spec.scaleFactor != 0.0))
    return "align corners / scale factor are only meaningful for a resize";
  bool noKernel = isResize || spec.kind == WindowKind::Pad;
  if (noKernel && (spec.kernel != 1 || spec.stride != 1 || spec.dilation != 1))
    return "kernel, stride and dilation must be 1 for a " + kind;
  if ((isResize || spec.kind == WindowKind::Neighborhood) &&
      (spec.padLow != 0 || spec.padHigh != 0))
    return "padding is not meaningful for a " + kind;
  if (spec.kind == WindowKind::Neighborhood && spec.stride != 1)
    return "neighborhood attention has no stride (got " + str(spec.stride) +
           ")";
  return "";
}

/// PyTorch's limits for non-constant padding (F.pad and conv padding_mode).
std::string checkBoundaryPads(const WindowSpec &spec) {
  int64_t n = spec.inputSize;
  int64_t maxPad = std::max(spec.padLow, spec.padHigh);
  if (spec.boundary == BoundaryMode::Zeros)
    return "";
  // F.pad may crop one side and reflect or replicate the other; the
  // border mirrors the input's edge, as PyTorch's kernels index the input.
  bool crops = spec.padLow < 0 || spec.padHigh < 0;
  if (crops &&
      (spec.kind != WindowKind::Pad || spec.boundary == BoundaryMode::Circular))
    return "negative (cropping) padding is only supported with zeros padding";
  if (crops && n + spec.padLow + spec.padHigh < 1)
    return "padding (" + str(spec.padLow) + ", " + str(spec.padHigh) +
           ") leaves no element of the input size " + str(n) +
           "; only constant mode may";
  if (spec.boundary == BoundaryMode::Reflect && maxPad >= n)
    return "reflect padding (" + str(maxPad) +
           ") must be smaller than the input size (" + str(n) + ")";
  if (spec.boundary == BoundaryMode::Circular && maxPad > n)
    return "circular padding (" + str(maxPad) +
           ") must not exceed the input size (" + str(n) + ")";
  return "";
}

std::string checkKindSpecific(const WindowSpec &spec) {
  int64_t n = spec.inputSize;
  bool negativePad = spec.padLow < 0 || spec.padHigh < 0;
  switch (spec.kind) {
  case WindowKind::Strided:
    if (negativePad)
      return "padding must be non-negative";
    // ceil_mode only exists on pooling, and pooling has no padding_mode; a
    // ceil-mode window may also reach past the padded input.
    if (spec.ceilMode && spec.boundary != BoundaryMode::Zeros)
      return "ceil mode is only supported with zeros padding";
    // PyTorch pooling_output_shape's limit (dilation-aware). It is also what
    // guarantees that the single ceil-mode correction in windowOutputSize
    // keeps every window starting before the right padding.
    if (spec.ceilMode && 2 * std::max(spec.padLow, spec.padHigh) >
                             spec.dilation * (spec.kernel - 1) + 1)
      return "pooling padding (" + str(std::max(spec.padLow, spec.padHigh)) +
             ") must be at most half the effective kernel size (" +
             str(spec.dilation * (spec.kernel - 1) + 1) + ")";
    return checkBoundaryPads(spec);
  case WindowKind::Pad:
    // Negative amounts crop; they cannot remove more than the input holds.
    if (spec.inputSize + std::min<int64_t>(spec.padLow, 0) < 0 ||
        spec.inputSize + std::min<int64_t>(spec.padHigh, 0) < 0)
      return "cropping (" + str(spec.padLow) + ", " + str(spec.padHigh) +
             ") exceeds the input size " + str(spec.inputSize);
    return checkBoundaryPads(spec);
  case WindowKind::Transposed:
    if (negativePad)
      return "padding must be non-negative";
    if (spec.outputPadding < 0 ||
        spec.outputPadding >= std::max(spec.stride, spec.dilation))
      return "output padding (" + str(spec.outputPadding) +
             ") must be non-negative and smaller than either stride or "
             "dilation";
    return "";
  case WindowKind::Neighborhood:
    if (spec.kernel % 2 == 0)
      return "neighborhood kernel size (" + str(spec.kernel) + ") must be odd";
    if (n < spec.kernel * spec.dilation)
      return "input size (" + str(n) +
             ") must be at least kernel * dilation (" +
             str(spec.kernel * spec.dilation) + ")";
    return "";
  case WindowKind::Resize:
    if (std::isnan(spec.scaleFactor) || spec.scaleFactor < 0.0)
      return "scale factor must be positive";
    if (spec.alignCorners && spec.resizeMode != ResizeMode::Linear)
      return "align corners is only supported with linear interpolation";
    if (spec.scaleFactor == 0.0 && spec.outputSize < 1)
      return "resize needs a scale factor or an output size >= 1";
    return "";
  }
  return "";
}

} // namespace

std::string shardc::sc::validateWindowSpec(const WindowSpec &spec) {
  if (spec.inputSize < 1)
    return "input size must be >= 1 (got " + str(spec.inputSize) + ")";
  for (int64_t v :
       {spec.inputSize, spec.outputSize, spec.kernel, spec.stride,
        spec.dilation, spec.padLow, spec.padHigh, spec.outputPadding})
    if (v > kMaxWindowParameter || v < -kMaxWindowParameter)
      return "window parameter " + str(v) + " is out of range (|v| <= 2^30)";
  if (spec.kind == WindowKind::Resize &&
      !(spec.scaleFactor >= 0.0 &&
        spec.scaleFactor < double(kMaxWindowParameter)))
    return "scale factor is out of range";
  if (spec.kernel < 1 || spec.stride < 1 || spec.dilation < 1)
    return "kernel size, stride and dilation must be >= 1 (got " +
           str(spec.kernel) + ", " + str(spec.stride) + ", " +
           str(spec.dilation) + ")";
  std::string reason = checkUnusedFields(spec);
  if (reason.empty())
    reason = checkKindSpecific(spec);
  if (!reason.empty())
    return reason;
  int64_t computed = windowOutputSize(spec);
  if (computed < 1)
    return "computed output size (" + str(computed) + ") is less than 1";
  // outputSize is optional for every kind but a Resize without a factor;
  // when given (e.g. from the result type) it has to agree with PyTorch.
  if (spec.outputSize != 0 && spec.outputSize != computed)
    return "output size (" + str(spec.outputSize) +
           ") does not match the computed output size (" + str(computed) + ")";
  return "";
}
