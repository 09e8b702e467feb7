//===- WindowMathTest.cpp - Exhaustive tests for WindowMath ---------------===//
//
// Part of the shardc project.
//
//===----------------------------------------------------------------------===//
//
// Every result of WindowMath is compared against a brute-force oracle that is
// written independently here: taps are enumerated per output index straight
// from the PyTorch / NATTEN definitions, each virtual coordinate is mapped by
// its own boundary function, and the resulting index sets are compared. The
// oracle deliberately uses different formulations (e.g. NATTEN's original
// get_window_start, scatter matching for transposed convs, iterated mirroring
// for reflect) so that a shared misunderstanding is less likely.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Sc/WindowMath.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

using namespace shardc::sc;

namespace {

//===----------------------------------------------------------------------===//
// Oracle
//===----------------------------------------------------------------------===//

/// Boundary map of one virtual coordinate, by repeated mirroring / shifting
/// rather than the library's closed forms.
std::optional<int64_t> mapVirtual(int64_t v, int64_t n, BoundaryMode mode) {
  if (v >= 0 && v < n)
    return v;
  switch (mode) {
  case BoundaryMode::Zeros:
    return std::nullopt;
  case BoundaryMode::Replicate:
    return v < 0 ? 0 : n - 1;
  case BoundaryMode::Reflect:
    if (n == 1)
      return 0;
    while (v < 0 || v >= n)
      v = v < 0 ? -v : 2 * (n - 1) - v;
    return v;
  case BoundaryMode::Circular:
    while (v < 0)
      v += n;
    while (v >= n)
      v -= n;
    return v;
  }
  return std::nullopt;
}

bool hasPadding(const WindowSpec &spec) {
  return spec.kind == WindowKind::Strided || spec.kind == WindowKind::Pad;
}

std::optional<int64_t> toReal(const WindowSpec &spec, int64_t v) {
  return mapVirtual(v, spec.inputSize,
                    hasPadding(spec) ? spec.boundary : BoundaryMode::Zeros);
}

// Literal ports of aten/src/ATen/native/UpSample.h (float opmath).
float computeScalesValue(double scale, int64_t in, int64_t out) {
  return scale > 0. ? static_cast<float>(1.0 / scale)
                    : static_cast<float>(in) / out;
}

float areaPixelComputeScale(int64_t in, int64_t out, bool alignCorners,
                            double scale) {
  if (alignCorners)
    return out > 1 ? static_cast<float>(in - 1) / (out - 1) : 0.0f;
  return computeScalesValue(scale, in, out);
}

int64_t nearestIdx(int64_t o, int64_t in, int64_t out, double scale) {
  if (out == in)
    return o;
  if (out == 2 * in)
    return o >> 1;
  float s = computeScalesValue(scale, in, out);
  return std::min(static_cast<int64_t>(floorf(o * s)), in - 1);
}

int64_t nearestExactIdx(int64_t o, int64_t in, int64_t out, double scale) {
  float s = computeScalesValue(scale, in, out);
  return std::min(static_cast<int64_t>(floorf((o + 0.5f) * s)), in - 1);
}

std::vector<int64_t> resizeTaps(const WindowSpec &spec, int64_t o,
                                int64_t out) {
  int64_t in = spec.inputSize;
  if (spec.resizeMode == ResizeMode::Nearest)
    return {nearestIdx(o, in, out, spec.scaleFactor)};
  if (spec.resizeMode == ResizeMode::NearestExact)
    return {nearestExactIdx(o, in, out, spec.scaleFactor)};
  float scale =
      areaPixelComputeScale(in, out, spec.alignCorners, spec.scaleFactor);
  float src;
  if (spec.alignCorners) {
    src = scale * o;
  } else {
    src = scale * (o + 0.5f) - 0.5f;
    src = src < 0.0f ? 0.0f : src;
  }
  int64_t i0 = std::min(static_cast<int64_t>(floorf(src)), in - 1);
  int64_t offset = i0 < in - 1 ? 1 : 0;
  return {i0, i0 + offset};
}

/// NATTEN's original get_window_start (natten/csrc), a formulation that is
/// independent of the "split into residue classes" one the library uses.
int64_t nattenWindowStart(int64_t index, int64_t length, int64_t kernel,
                          int64_t dilation) {
  int64_t nb = kernel / 2;
  if (dilation <= 1)
    return std::max<int64_t>(index - nb, 0) +
           (index + nb >= length) * (length - index - nb - 1);
  int64_t ni = index - nb * dilation;
  if (ni < 0)
    return index % dilation;
  if (index + nb * dilation >= length) {
    int64_t imodd = index % dilation;
    int64_t a = (length / dilation) * dilation;
    int64_t b = length - a;
    if (imodd < b)
      return length - b + imodd - 2 * nb * dilation;
    return a + imodd - kernel * dilation;
  }
  return ni;
}

/// Virtual coordinates read by output `o`, straight from each definition.
std::vector<int64_t> oracleTaps(const WindowSpec &spec, int64_t o,
                                int64_t out) {
  int64_t n = spec.inputSize, k = spec.kernel, s = spec.stride;
  int64_t d = spec.dilation;
  std::vector<int64_t> taps;
  switch (spec.kind) {
  case WindowKind::Strided:
    for (int64_t j = 0; j < k; ++j)
      taps.push_back(o * s - spec.padLow + j * d);
    break;
  case WindowKind::Pad:
    taps.push_back(o - spec.padLow);
    break;
  case WindowKind::Transposed:
    // Scatter view: input i writes i*s + j*d before cropping padLow.
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < k; ++j)
        if (o + spec.padLow == i * s + j * d)
          taps.push_back(i);
    break;
  case WindowKind::Resize:
    taps = resizeTaps(spec, o, out);
    break;
  case WindowKind::Neighborhood: {
    int64_t start = nattenWindowStart(o, n, k, d);
    for (int64_t j = 0; j < k; ++j)
      taps.push_back(start + j * d);
    break;
  }
  }
  return taps;
}

/// Output size counted by brute force, not by the closed-form formulas.
int64_t oracleOutputSize(const WindowSpec &spec) {
  int64_t n = spec.inputSize, s = spec.stride;
  int64_t reach = spec.dilation * (spec.kernel - 1); // last tap offset
  int64_t count = 0;
  switch (spec.kind) {
  case WindowKind::Strided: {
    int64_t lastPadded = n + spec.padHigh - 1;
    auto keep = [&](int64_t o) {
      int64_t start = o * s - spec.padLow;
      if (!spec.ceilMode)
        return start + reach <= lastPadded; // the whole window fits
      // Ceil mode: emit windows while the previous one has not covered the
      // padded input's last element, but never one starting in right pad.
      int64_t prevLast = (o - 1) * s - spec.padLow + reach;
      return prevLast < lastPadded && start < n;
    };
    while (keep(count) && count < 1000)
      ++count;
    return count;
  }
  case WindowKind::Transposed: {
    int64_t maxPos = -1;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < spec.kernel; ++j)
        maxPos = std::max(maxPos, i * s + j * spec.dilation);
    return maxPos + 1 - spec.padLow - spec.padHigh + spec.outputPadding;
  }
  case WindowKind::Pad:
    for (int64_t v = -spec.padLow; v < n + spec.padHigh; ++v)
      ++count;
    return count;
  case WindowKind::Resize:
    if (spec.scaleFactor <= 0.0)
      return spec.outputSize;
    while (static_cast<double>(count + 1) <= n * spec.scaleFactor)
      ++count;
    return count;
  case WindowKind::Neighborhood:
    return n;
  }
  return 0;
}

/// Validity from the PyTorch / NATTEN rules, restricted to the parameter
/// combinations the sweeps generate.
bool oracleValid(const WindowSpec &spec) {
  int64_t n = spec.inputSize;
  int64_t maxPad = std::max(spec.padLow, spec.padHigh);
  int64_t minPad = std::min(spec.padLow, spec.padHigh);
  if (hasPadding(spec)) {
    // ceil_mode means pooling: zeros only, and the pad is at most half the
    // effective (dilated) kernel size.
    int64_t effective = spec.dilation * (spec.kernel - 1) + 1;
    if (spec.ceilMode &&
        (spec.boundary != BoundaryMode::Zeros || 2 * maxPad > effective))
      return false;
    // F.pad crops one side and reflects or replicates the other about the
    // input's edge; circular mode would wrap the cropped tensor instead.
    if (minPad < 0 && (spec.kind != WindowKind::Pad ||
                       spec.boundary == BoundaryMode::Circular))
      return false;
    // torch.narrow: one side cannot crop more than the input holds.
    if (spec.kind == WindowKind::Pad && n + minPad < 0)
      return false;
    if (spec.boundary == BoundaryMode::Reflect && maxPad >= n)
      return false;
    if (spec.boundary == BoundaryMode::Circular && maxPad > n)
      return false;
  }
  if (spec.kind == WindowKind::Transposed &&
      spec.outputPadding >= std::max(spec.stride, spec.dilation))
    return false;
  if (spec.kind == WindowKind::Neighborhood &&
      (spec.kernel % 2 == 0 || n < spec.kernel * spec.dilation))
    return false;
  return oracleOutputSize(spec) >= 1;
}

//===----------------------------------------------------------------------===//
// Exhaustive driver
//===----------------------------------------------------------------------===//

std::string describe(const WindowSpec &spec) {
  static const char *kinds[] = {"Strided", "Transposed", "Resize", "Pad",
                                "Neighborhood"};
  static const char *bounds[] = {"Zeros", "Reflect", "Replicate", "Circular"};
  static const char *modes[] = {"Nearest", "NearestExact", "Linear"};
  std::ostringstream os;
  os << kinds[static_cast<int>(spec.kind)] << " n=" << spec.inputSize
     << " k=" << spec.kernel << " s=" << spec.stride << " d=" << spec.dilation
     << " pad=[" << spec.padLow << "," << spec.padHigh
     << "] op=" << spec.outputPadding << " ceil=" << spec.ceilMode
     << " boundary=" << bounds[static_cast<int>(spec.boundary)]
     << " resize=" << modes[static_cast<int>(spec.resizeMode)]
     << " align=" << spec.alignCorners << " sf=" << spec.scaleFactor
     << " out=" << spec.outputSize;
  return os.str();
}

using Mask = uint64_t;

/// Counts cases and reports only the first few failures, so a systematic bug
/// does not bury the log under thousands of identical messages.
struct Checker {
  int64_t specs = 0, cases = 0, failures = 0;

  void fail(const WindowSpec &spec, const std::string &what) {
    if (++failures <= 20)
      ADD_FAILURE() << describe(spec) << ": " << what;
  }
  ~Checker() {
    EXPECT_EQ(failures, 0);
    EXPECT_GT(cases, 0);
    std::printf("[ stats    ] %lld specs, %lld range cases\n",
                static_cast<long long>(specs), static_cast<long long>(cases));
  }
};

/// Converts the library's intervals to a mask, checking the shape contract:
/// non-empty, inside [0, n), sorted, disjoint and non-adjacent.
std::optional<Mask> intervalsToMask(const std::vector<Interval> &ivs,
                                    int64_t n) {
  Mask mask = 0;
  int64_t prevHi = -1;
  for (const Interval &iv : ivs) {
    if (iv.empty() || iv.lo < 0 || iv.hi > n || iv.lo <= prevHi)
      return std::nullopt;
    for (int64_t i = iv.lo; i < iv.hi; ++i)
      mask |= Mask(1) << i;
    prevHi = iv.hi;
  }
  return mask;
}

std::string str(Interval iv) {
  return "[" + std::to_string(iv.lo) + "," + std::to_string(iv.hi) + ")";
}

/// Checks virtualInputRange / inputIntervals for one range [a, b) given the
/// brute-force hull and the mask of every real index its taps touch.
void checkRange(Checker &c, const WindowSpec &spec, Interval range,
                Interval hull, Mask tapMask) {
  ++c.cases;
  std::string where = " for outputs " + str(range);
  Interval got = virtualInputRange(spec, range);
  if (!(got == hull))
    c.fail(spec, "virtualInputRange " + str(got) + " != " + str(hull) + where);
  Mask want = 0;
  for (int64_t v = hull.lo; v < hull.hi; ++v)
    if (std::optional<int64_t> r = toReal(spec, v))
      want |= Mask(1) << *r;
  std::optional<Mask> gotMask =
      intervalsToMask(inputIntervals(spec, range), spec.inputSize);
  if (!gotMask)
    c.fail(spec, "inputIntervals not sorted/disjoint/merged/in range" + where);
  else if (*gotMask != want)
    c.fail(spec, "inputIntervals mismatch" + where);
  else if ((tapMask & ~*gotMask) != 0)
    c.fail(spec, "a tap lies outside inputIntervals" + where);
}

/// Anchor must be a real index, monotone, and sit inside the clamped hull of
/// its own output. For transposed windows the stride-cell anchor is only an
/// actual tap when dilation divides stride; otherwise it is merely at or after
/// every tap (see the header), which is what is checked then.
void checkAnchor(Checker &c, const WindowSpec &spec, int64_t o, Interval hull,
                 int64_t &prevAnchor) {
  int64_t n = spec.inputSize, anchor = anchorInputIndex(spec, o);
  std::string where = " anchor(" + std::to_string(o) +
                      ")=" + std::to_string(anchor) + " hull " + str(hull);
  if (anchor < 0 || anchor >= n)
    c.fail(spec, "anchor outside input" + where);
  if (anchor < prevAnchor)
    c.fail(spec, "anchor decreases" + where);
  prevAnchor = anchor;
  if (hull.empty())
    return;
  int64_t lo = std::clamp<int64_t>(hull.lo, 0, n - 1);
  int64_t hi = std::clamp<int64_t>(hull.hi - 1, 0, n - 1);
  bool inside = lo <= anchor && anchor <= hi;
  if (spec.kind == WindowKind::Transposed && spec.stride % spec.dilation != 0)
    inside = anchor >= hi;
  if (!inside)
    c.fail(spec, "anchor not in its window" + where);
}

/// Runs every check on one spec: validation, output size, and all ranges.
void checkSpec(Checker &c, const WindowSpec &spec) {
  bool valid = validateWindowSpec(spec).empty();
  if (valid != oracleValid(spec)) {
    c.fail(spec, "validateWindowSpec says '" + validateWindowSpec(spec) +
                     "', oracle valid=" + std::to_string(oracleValid(spec)));
    return;
  }
  if (!valid)
    return;
  ++c.specs;
  int64_t out = windowOutputSize(spec);
  if (out != oracleOutputSize(spec))
    return c.fail(spec, "windowOutputSize " + std::to_string(out) +
                            " != " + std::to_string(oracleOutputSize(spec)));
  std::vector<std::vector<int64_t>> taps(out);
  std::vector<Mask> tapMasks(out, 0);
  int64_t prevAnchor = 0;
  for (int64_t o = 0; o < out; ++o) {
    taps[o] = oracleTaps(spec, o, out);
    Interval own{};
    if (!taps[o].empty())
      own = {*std::min_element(taps[o].begin(), taps[o].end()),
             *std::max_element(taps[o].begin(), taps[o].end()) + 1};
    for (int64_t v : taps[o])
      if (std::optional<int64_t> r = toReal(spec, v))
        tapMasks[o] |= Mask(1) << *r;
    checkAnchor(c, spec, o, own, prevAnchor);
  }
  for (int64_t a = 0; a <= out; ++a) {
    if (!virtualInputRange(spec, {a, a}).empty() ||
        !inputIntervals(spec, {a, a}).empty())
      c.fail(spec, "empty output range must read nothing");
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    Mask tapMask = 0;
    for (int64_t b = a + 1; b <= out; ++b) {
      for (int64_t v : taps[b - 1]) {
        lo = std::min(lo, v);
        hi = std::max(hi, v + 1);
      }
      tapMask |= tapMasks[b - 1];
      checkRange(c, spec, {a, b}, lo < hi ? Interval{lo, hi} : Interval{},
                 tapMask);
    }
  }
}

constexpr BoundaryMode kBoundaries[] = {
    BoundaryMode::Zeros, BoundaryMode::Reflect, BoundaryMode::Replicate,
    BoundaryMode::Circular};

//===----------------------------------------------------------------------===//
// Exhaustive sweeps
//===----------------------------------------------------------------------===//

TEST(WindowMathExhaustive, Strided) {
  Checker c;
  WindowSpec spec;
  spec.kind = WindowKind::Strided;
  for (int64_t n = 1; n <= 12; ++n)
    for (int64_t k = 1; k <= 5; ++k)
      for (int64_t s = 1; s <= 3; ++s)
        for (int64_t d = 1; d <= 3; ++d)
          for (int64_t pl = 0; pl <= 3; ++pl)
            for (int64_t ph = 0; ph <= 3; ++ph)
              for (BoundaryMode bm : kBoundaries)
                for (bool ceil : {false, true}) {
                  spec.inputSize = n;
                  spec.kernel = k;
                  spec.stride = s;
                  spec.dilation = d;
                  spec.padLow = pl;
                  spec.padHigh = ph;
                  spec.boundary = bm;
                  spec.ceilMode = ceil;
                  checkSpec(c, spec);
                }
}

TEST(WindowMathExhaustive, Pad) {
  Checker c;
  WindowSpec spec;
  spec.kind = WindowKind::Pad;
  for (int64_t n = 1; n <= 12; ++n)
    for (int64_t pl = -3; pl <= 12; ++pl)
      for (int64_t ph = -3; ph <= 12; ++ph)
        for (BoundaryMode bm : kBoundaries) {
          spec.inputSize = n;
          spec.padLow = pl;
          spec.padHigh = ph;
          spec.boundary = bm;
          checkSpec(c, spec);
        }
}

TEST(WindowMathExhaustive, Transposed) {
  Checker c;
  WindowSpec spec;
  spec.kind = WindowKind::Transposed;
  for (int64_t n = 1; n <= 12; ++n)
    for (int64_t k = 1; k <= 5; ++k)
      for (int64_t s = 1; s <= 3; ++s)
        for (int64_t d = 1; d <= 3; ++d)
          for (int64_t pl = 0; pl <= 3; ++pl)
            for (int64_t ph = 0; ph <= 3; ++ph)
              for (int64_t op = 0; op <= 2; ++op) {
                spec.inputSize = n;
                spec.kernel = k;
                spec.stride = s;
                spec.dilation = d;
                spec.padLow = pl;
                spec.padHigh = ph;
                spec.outputPadding = op;
                checkSpec(c, spec);
              }
}

TEST(WindowMathExhaustive, Resize) {
  Checker c;
  WindowSpec spec;
  spec.kind = WindowKind::Resize;
  const ResizeMode modes[] = {ResizeMode::Nearest, ResizeMode::NearestExact,
                              ResizeMode::Linear};
  const double factors[] = {0.5, 1.0, 1.5, 2.0, 3.0, 0.3, 2.5, 1.25};
  for (int64_t n = 1; n <= 12; ++n)
    for (ResizeMode mode : modes)
      for (bool align : {false, true}) {
        spec.inputSize = n;
        spec.resizeMode = mode;
        spec.alignCorners = align;
        if (align && mode != ResizeMode::Linear)
          continue;
        // With the user's factor, and with only the resulting size (scale
        // derived from the sizes): the two differ in float rounding.
        for (double f : factors) {
          spec.scaleFactor = f;
          spec.outputSize = 0;
          checkSpec(c, spec);
          spec.outputSize = static_cast<int64_t>(std::floor(n * f));
          checkSpec(c, spec);
          spec.scaleFactor = 0.0;
          checkSpec(c, spec);
        }
        // Arbitrary result sizes, as from a result type.
        for (int64_t out = 1; out <= 30; ++out) {
          spec.scaleFactor = 0.0;
          spec.outputSize = out;
          checkSpec(c, spec);
        }
      }
}

TEST(WindowMathExhaustive, Neighborhood) {
  Checker c;
  WindowSpec spec;
  spec.kind = WindowKind::Neighborhood;
  for (int64_t n = 1; n <= 12; ++n)
    for (int64_t k = 1; k <= 5; ++k) // even kernels must be rejected
      for (int64_t d = 1; d <= 3; ++d) {
        spec.inputSize = n;
        spec.kernel = k;
        spec.dilation = d;
        checkSpec(c, spec);
      }
}

//===----------------------------------------------------------------------===//
// Hand-picked cases with values worked out from the PyTorch definitions
//===----------------------------------------------------------------------===//

WindowSpec strided(int64_t n, int64_t k, int64_t s, int64_t pl, int64_t ph,
                   BoundaryMode bm = BoundaryMode::Zeros) {
  WindowSpec spec;
  spec.inputSize = n;
  spec.kernel = k;
  spec.stride = s;
  spec.padLow = pl;
  spec.padHigh = ph;
  spec.boundary = bm;
  return spec;
}

WindowSpec pad(int64_t n, int64_t pl, int64_t ph, BoundaryMode bm) {
  WindowSpec spec;
  spec.kind = WindowKind::Pad;
  spec.inputSize = n;
  spec.padLow = pl;
  spec.padHigh = ph;
  spec.boundary = bm;
  return spec;
}

WindowSpec resize(int64_t n, int64_t out, ResizeMode mode, bool align = false,
                  double factor = 0.0) {
  WindowSpec spec;
  spec.kind = WindowKind::Resize;
  spec.inputSize = n;
  spec.outputSize = out;
  spec.resizeMode = mode;
  spec.alignCorners = align;
  spec.scaleFactor = factor;
  return spec;
}

using IVs = std::vector<Interval>;

TEST(WindowMathLiteral, Interval) {
  EXPECT_TRUE((Interval{3, 3}).empty());
  EXPECT_TRUE((Interval{4, 2}).empty());
  EXPECT_EQ((Interval{4, 2}).size(), 0);
  EXPECT_EQ((Interval{-2, 5}).size(), 7);
  EXPECT_EQ((Interval{1, 2}), (Interval{1, 2}));
}

TEST(WindowMathLiteral, Conv) {
  // Conv1d(k=3, s=2, p=1) on length 7 -> 4 outputs.
  WindowSpec conv = strided(7, 3, 2, 1, 1);
  EXPECT_EQ(windowOutputSize(conv), 4);
  EXPECT_EQ(virtualInputRange(conv, {0, 1}), (Interval{-1, 2}));
  EXPECT_EQ(inputIntervals(conv, {0, 1}), (IVs{{0, 2}}));
  EXPECT_EQ(virtualInputRange(conv, {2, 4}), (Interval{3, 8}));
  EXPECT_EQ(inputIntervals(conv, {2, 4}), (IVs{{3, 7}}));
  EXPECT_EQ(anchorInputIndex(conv, 3), 6);
  // Dilated: k=3 d=2 spans 5 -> length 10 gives 6 outputs.
  WindowSpec dilated = strided(10, 3, 1, 0, 0);
  dilated.dilation = 2;
  EXPECT_EQ(windowOutputSize(dilated), 6);
  EXPECT_EQ(virtualInputRange(dilated, {5, 6}), (Interval{5, 10}));
  // A window entirely inside zero padding reads nothing.
  WindowSpec wide = strided(3, 1, 1, 2, 0);
  EXPECT_EQ(inputIntervals(wide, {0, 2}), IVs{});
  // Replicate clamps: taps -1, 0, 1 read {0, 1}.
  EXPECT_EQ(
      inputIntervals(strided(4, 3, 1, 1, 1, BoundaryMode::Replicate), {0, 1}),
      (IVs{{0, 2}}));
}

TEST(WindowMathLiteral, PoolCeilMode) {
  WindowSpec pool = strided(5, 2, 2, 0, 0);
  EXPECT_EQ(windowOutputSize(pool), 2);
  pool.ceilMode = true;
  EXPECT_EQ(windowOutputSize(pool), 3);
  // The last ceil window only reads the last element (the rest is padding).
  EXPECT_EQ(inputIntervals(pool, {2, 3}), (IVs{{4, 5}}));
  // max_pool1d(k=3, s=3, p=1, ceil) on 5: ceil gives 3, but window 2 would
  // start at 5 == n, entirely in right padding, so PyTorch drops it.
  WindowSpec drop = strided(5, 3, 3, 1, 1);
  drop.ceilMode = true;
  EXPECT_EQ(windowOutputSize(drop), 2);
  EXPECT_EQ(validateWindowSpec(drop), "");
  // Pooling rejects padding above half the effective kernel size (3 here),
  // but dilation widens it (k=3, d=2 spans 5, so pad 2 is fine).
  WindowSpec overPadded = strided(5, 3, 3, 2, 0);
  overPadded.ceilMode = true;
  EXPECT_NE(validateWindowSpec(overPadded), "");
  overPadded.dilation = 2;
  EXPECT_EQ(validateWindowSpec(overPadded), "");
}

TEST(WindowMathLiteral, PadModes) {
  // F.pad(reflect) with pad 2 on length 5: virtual -2 reads index 2.
  WindowSpec reflect = pad(5, 2, 2, BoundaryMode::Reflect);
  EXPECT_EQ(windowOutputSize(reflect), 9);
  EXPECT_EQ(inputIntervals(reflect, {0, 1}), (IVs{{2, 3}}));
  EXPECT_EQ(inputIntervals(reflect, {8, 9}), (IVs{{2, 3}})); // 6 -> 2
  EXPECT_EQ(inputIntervals(reflect, {0, 2}), (IVs{{1, 3}}));
  EXPECT_EQ(anchorInputIndex(reflect, 0), 0);
  // Circular: -2, -1 wrap to 3, 4; a window over the seam splits in two.
  WindowSpec circ = pad(6, 2, 2, BoundaryMode::Circular);
  EXPECT_EQ(inputIntervals(circ, {0, 2}), (IVs{{4, 6}}));
  EXPECT_EQ(inputIntervals(circ, {0, 3}), (IVs{{0, 1}, {4, 6}}));
  EXPECT_EQ(inputIntervals(circ, {0, 10}), (IVs{{0, 6}}));
  // Negative constant padding crops: out o reads o + 2.
  WindowSpec crop = pad(6, -2, -1, BoundaryMode::Zeros);
  EXPECT_EQ(windowOutputSize(crop), 3);
  EXPECT_EQ(inputIntervals(crop, {0, 3}), (IVs{{2, 5}}));
  // F.pad(reflect) cropping 4 of 6 and mirroring 5 about the input's last
  // element: out 0..6 read 4, 5, 4, 3, 2, 1, 0, most of them cropped.
  WindowSpec far = pad(6, -4, 5, BoundaryMode::Reflect);
  EXPECT_EQ(windowOutputSize(far), 7);
  EXPECT_EQ(inputIntervals(far, {2, 3}), (IVs{{4, 5}}));
  EXPECT_EQ(inputIntervals(far, {6, 7}), (IVs{{0, 1}}));
  EXPECT_EQ(inputIntervals(far, {0, 7}), (IVs{{0, 6}}));
  // Replicate 2 in front and crop 3 behind: every output reads input 0.
  WindowSpec front = pad(4, 2, -3, BoundaryMode::Replicate);
  EXPECT_EQ(windowOutputSize(front), 3);
  EXPECT_EQ(inputIntervals(front, {0, 3}), (IVs{{0, 1}}));
}

TEST(WindowMathLiteral, ConvTranspose) {
  // ConvTranspose1d(k=3, s=2, p=1, output_padding=1) on 4 -> 8.
  WindowSpec t;
  t.kind = WindowKind::Transposed;
  t.inputSize = 4;
  t.kernel = 3;
  t.stride = 2;
  t.padLow = t.padHigh = 1;
  t.outputPadding = 1;
  EXPECT_EQ(windowOutputSize(t), 8);
  // Output 0 is uncropped position 1 = 0*2 + 1: only input 0.
  EXPECT_EQ(virtualInputRange(t, {0, 1}), (Interval{0, 1}));
  // Output 1 is position 2 = 1*2 + 0 = 0*2 + 2: inputs 0 and 1.
  EXPECT_EQ(virtualInputRange(t, {1, 2}), (Interval{0, 2}));
  // Output 7 (from output_padding) is position 8: input 4 does not exist,
  // and 3*2+2 = 8 reaches it from input 3.
  EXPECT_EQ(virtualInputRange(t, {7, 8}), (Interval{3, 4}));
  EXPECT_EQ(anchorInputIndex(t, 7), 3);
  // Stride 3, kernel 1: positions 1 and 2 of each cell receive nothing.
  WindowSpec gap = t;
  gap.kernel = 1;
  gap.stride = 3;
  gap.padLow = gap.padHigh = 0;
  gap.outputPadding = 0;
  EXPECT_EQ(windowOutputSize(gap), 10);
  EXPECT_EQ(virtualInputRange(gap, {1, 3}), Interval{});
  EXPECT_EQ(inputIntervals(gap, {1, 3}), IVs{});
}

TEST(WindowMathLiteral, Resize) {
  // Nearest x2 (4 -> 8): output 5 reads 5 >> 1 = 2.
  WindowSpec up = resize(4, 8, ResizeMode::Nearest);
  EXPECT_EQ(anchorInputIndex(up, 5), 2);
  EXPECT_EQ(inputIntervals(up, {5, 6}), (IVs{{2, 3}}));
  // Nearest 10 -> 3: floor(2 * 3.333) = 6.
  EXPECT_EQ(anchorInputIndex(resize(10, 3, ResizeMode::Nearest), 2), 6);
  // Nearest-exact 4 -> 6: floor(5.5 * 0.6667) = 3.
  EXPECT_EQ(anchorInputIndex(resize(4, 6, ResizeMode::NearestExact), 5), 3);
  // Linear, align_corners=False, 4 -> 8: output 0 reads {0, 1}; output 7 has
  // src 3.25 and clamps i1 to 3.
  WindowSpec lin = resize(4, 8, ResizeMode::Linear);
  EXPECT_EQ(virtualInputRange(lin, {0, 1}), (Interval{0, 2}));
  EXPECT_EQ(virtualInputRange(lin, {7, 8}), (Interval{3, 4}));
  // Linear, align_corners=True, 3 -> 5: scale 0.5, output 3 -> src 1.5.
  WindowSpec ac = resize(3, 5, ResizeMode::Linear, /*align=*/true);
  EXPECT_EQ(virtualInputRange(ac, {3, 4}), (Interval{1, 3}));
  // Scale factor given: size is floor(n * factor).
  EXPECT_EQ(windowOutputSize(resize(5, 0, ResizeMode::Nearest, false, 1.5)), 7);
  // Downsampling skips inputs, but the halo is the hull.
  EXPECT_EQ(inputIntervals(resize(9, 3, ResizeMode::Nearest), {0, 3}),
            (IVs{{0, 7}}));
}

TEST(WindowMathLiteral, Neighborhood) {
  WindowSpec na;
  na.kind = WindowKind::Neighborhood;
  na.inputSize = 10;
  na.kernel = 3;
  na.dilation = 2;
  EXPECT_EQ(windowOutputSize(na), 10);
  // Query 9 (odd group 1,3,5,7,9) is shifted left: reads 5, 7, 9.
  EXPECT_EQ(virtualInputRange(na, {9, 10}), (Interval{5, 10}));
  // Query 0 is shifted right: reads 0, 2, 4.
  EXPECT_EQ(virtualInputRange(na, {0, 1}), (Interval{0, 5}));
  // Query 4 is centered: reads 2, 4, 6.
  EXPECT_EQ(inputIntervals(na, {4, 5}), (IVs{{2, 7}}));
  EXPECT_EQ(anchorInputIndex(na, 4), 4);
}

TEST(WindowMathLiteral, Validation) {
  EXPECT_EQ(validateWindowSpec(strided(7, 3, 2, 1, 1)), "");
  WindowSpec bad = strided(0, 3, 1, 0, 0);
  EXPECT_NE(validateWindowSpec(bad), "");
  EXPECT_NE(validateWindowSpec(strided(5, 0, 1, 0, 0)), "");
  EXPECT_NE(validateWindowSpec(strided(5, 3, 1, -1, 0)), "");
  EXPECT_NE(validateWindowSpec(strided(2, 5, 1, 0, 0)), ""); // output 0
  EXPECT_NE(validateWindowSpec(pad(3, 3, 0, BoundaryMode::Reflect)), "");
  EXPECT_EQ(validateWindowSpec(pad(3, 3, 0, BoundaryMode::Circular)), "");
  EXPECT_NE(validateWindowSpec(pad(3, 4, 0, BoundaryMode::Circular)), "");
  EXPECT_EQ(validateWindowSpec(pad(3, -1, 0, BoundaryMode::Replicate)), "");
  EXPECT_EQ(validateWindowSpec(pad(3, -2, 2, BoundaryMode::Reflect)), "");
  EXPECT_NE(validateWindowSpec(pad(3, -2, 3, BoundaryMode::Reflect)), "");
  EXPECT_NE(validateWindowSpec(pad(3, -2, -1, BoundaryMode::Replicate)), "");
  EXPECT_NE(validateWindowSpec(pad(3, -1, 1, BoundaryMode::Circular)), "");
  EXPECT_NE(validateWindowSpec(pad(3, -2, -1, BoundaryMode::Zeros)), "");
  // Attributes of other kinds are rejected rather than silently ignored.
  WindowSpec stray = pad(3, 1, 1, BoundaryMode::Zeros);
  stray.outputPadding = 1;
  EXPECT_NE(validateWindowSpec(stray), "");
  // output_padding must be smaller than stride or dilation.
  WindowSpec t;
  t.kind = WindowKind::Transposed;
  t.inputSize = 4;
  t.kernel = 3;
  t.stride = 2;
  t.outputPadding = 2;
  EXPECT_NE(validateWindowSpec(t), "");
  t.dilation = 3;
  EXPECT_EQ(validateWindowSpec(t), "");
  // Resize needs a size or a factor; a given size must match the factor.
  EXPECT_NE(validateWindowSpec(resize(4, 0, ResizeMode::Nearest)), "");
  EXPECT_NE(validateWindowSpec(resize(4, 5, ResizeMode::Nearest, false, 2.0)),
            "");
  EXPECT_EQ(validateWindowSpec(resize(4, 8, ResizeMode::Nearest, false, 2.0)),
            "");
  EXPECT_NE(validateWindowSpec(resize(4, 8, ResizeMode::Nearest, true)), "");
  // A non-Resize spec may state its result size, which must then agree.
  WindowSpec sized = strided(7, 3, 2, 1, 1);
  sized.outputSize = 4;
  EXPECT_EQ(validateWindowSpec(sized), "");
  sized.outputSize = 5;
  EXPECT_NE(validateWindowSpec(sized), "");
}

} // namespace
