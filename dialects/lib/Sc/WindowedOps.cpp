//===- WindowedOps.cpp - conv, pooling, interpolate, pad, neighbourhood ---===//
//
// Each windowed op describes its spatial dims as WindowSpecs once; shape
// inference derives the output size from them and the window interface hands
// the same specs to the partitioner, so the two can never disagree.
//
//===----------------------------------------------------------------------===//

#include "OpUtils.h"

#include <cmath>

using namespace mlir;
using namespace shardc::sc;
using namespace shardc::sc::detail;

static BoundaryMode boundaryFromString(StringRef mode) {
  return llvm::StringSwitch<BoundaryMode>(mode)
      .Case("reflect", BoundaryMode::Reflect)
      .Case("replicate", BoundaryMode::Replicate)
      .Case("circular", BoundaryMode::Circular)
      .Default(BoundaryMode::Zeros);
}

/// Validates every spec and fills the spatial part of the output shape.
static LogicalResult checkSpecs(OptLoc loc, StringRef name,
                                ArrayRef<WindowSpec> specs, int64_t firstDim,
                                SmallVectorImpl<int64_t> &shape) {
  for (auto [i, spec] : llvm::enumerate(specs)) {
    std::string reason = validateWindowSpec(spec);
    if (!reason.empty())
      return fail(loc, name, "spatial dim ", i, " (dim ", firstDim + i,
                  "): ", reason);
    shape[firstDim + i] = windowOutputSize(spec);
  }
  return success();
}

static LogicalResult checkSpatialRank(OptLoc loc, StringRef name,
                                      RankedTensorType x) {
  if (!x || x.getRank() < 3 || x.getRank() > 5)
    return fail(loc, name,
                "input must be (N, C, L), (N, C, H, W) or "
                "(N, C, D, H, W); got ",
                x ? shapeStr(x.getShape()) : std::string("a non-tensor"));
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// Specs for conv (transposed or not) from the op or its adaptor.
template <typename OpOrAdaptor>
static LogicalResult convSpecs(OptLoc loc, StringRef name, OpOrAdaptor op,
                               bool transposed,
                               SmallVectorImpl<WindowSpec> &specs) {
  RankedTensorType x = tensorTypeOf(op.getInput());
  RankedTensorType w = tensorTypeOf(op.getWeight());
  if (failed(checkSpatialRank(loc, name, x)))
    return failure();
  int64_t s = x.getRank() - 2;
  if (!w || w.getRank() != x.getRank())
    return fail(loc, name, "weight must have rank ", x.getRank(), " for a ", s,
                "-D input, got ",
                w ? shapeStr(w.getShape()) : std::string("a non-tensor"));
  SmallVector<int64_t> stride, dilation, lo, hi, outPad(s, 0);
  if (failed(
          spatialValues(loc, name, "stride", op.getStride(), s, 1, stride)) ||
      failed(spatialValues(loc, name, "dilation", op.getDilation(), s, 1,
                           dilation)) ||
      failed(paddingPairs(loc, name, op.getPadding(), s, lo, hi)))
    return failure();
  if constexpr (std::is_same_v<OpOrAdaptor, ConvTransposeOp> ||
                std::is_same_v<OpOrAdaptor, ConvTransposeOp::Adaptor>) {
    if (failed(spatialValues(loc, name, "output_padding", op.getOutputPadding(),
                             s, 0, outPad)))
      return failure();
  }
  BoundaryMode boundary = BoundaryMode::Zeros;
  if constexpr (std::is_same_v<OpOrAdaptor, ConvOp> ||
                std::is_same_v<OpOrAdaptor, ConvOp::Adaptor>)
    boundary = boundaryFromString(op.getPaddingMode());
  for (int64_t i = 0; i < s; ++i) {
    if (stride[i] < 1 || dilation[i] < 1)
      return fail(loc, name, "stride and dilation must be >= 1 (spatial dim ",
                  i, " has stride ", stride[i], ", dilation ", dilation[i],
                  ")");
    WindowSpec spec;
    spec.kind = transposed ? WindowKind::Transposed : WindowKind::Strided;
    spec.inputSize = x.getDimSize(2 + i);
    spec.kernel = w.getDimSize(2 + i);
    spec.stride = stride[i];
    spec.dilation = dilation[i];
    spec.padLow = lo[i];
    spec.padHigh = hi[i];
    spec.outputPadding = outPad[i];
    spec.boundary = boundary;
    specs.push_back(spec);
  }
  return success();
}

/// Channel checks shared by conv and conv_transpose; returns Cout.
static FailureOr<int64_t> convChannels(OptLoc loc, StringRef name,
                                       RankedTensorType x, RankedTensorType w,
                                       Value bias, int64_t groups,
                                       bool transposed) {
  int64_t cin = x.getDimSize(1);
  if (groups < 1)
    return fail(loc, name, "groups must be >= 1, got ", groups);
  if (cin % groups != 0)
    return fail(loc, name, "input channels ", cin,
                " are not divisible by groups ", groups);
  int64_t cout;
  if (transposed) {
    if (w.getDimSize(0) != cin)
      return fail(loc, name, "weight ", shapeStr(w.getShape()), " expects ",
                  w.getDimSize(0), " input channels, input has ", cin);
    cout = w.getDimSize(1) * groups;
  } else {
    cout = w.getDimSize(0);
    if (cout % groups != 0)
      return fail(loc, name, "output channels ", cout,
                  " are not divisible by groups ", groups);
    if (w.getDimSize(1) != cin / groups)
      return fail(loc, name, "weight ", shapeStr(w.getShape()), " expects ",
                  w.getDimSize(1) * groups, " input channels (",
                  w.getDimSize(1), " per group x ", groups,
                  " groups), input has ", cin);
  }
  if (w.getElementType() != x.getElementType())
    return fail(loc, name, "input and weight element types differ");
  if (bias) {
    RankedTensorType b = tensorTypeOf(bias);
    if (!b || b.getShape() != ArrayRef<int64_t>{cout} ||
        b.getElementType() != x.getElementType())
      return fail(loc, name, "bias must have shape (", cout,
                  ") and element type ", x.getElementType());
  }
  return cout;
}

template <typename Adaptor>
static LogicalResult inferConv(OptLoc loc, StringRef name, Adaptor adaptor,
                               bool transposed, SmallVectorImpl<Type> &types) {
  SmallVector<WindowSpec> specs;
  if (failed(convSpecs(loc, name, adaptor, transposed, specs)))
    return failure();
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  RankedTensorType w = tensorTypeOf(adaptor.getWeight());
  FailureOr<int64_t> cout = convChannels(loc, name, x, w, adaptor.getBias(),
                                         adaptor.getGroups(), transposed);
  if (failed(cout))
    return failure();
  SmallVector<int64_t> shape(x.getShape());
  shape[1] = *cout;
  if (failed(checkSpecs(loc, name, specs, 2, shape)))
    return failure();
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  return inferConv(loc, getOperationName(), adaptor, false, types);
}

LogicalResult ConvTransposeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  return inferConv(loc, getOperationName(), adaptor, true, types);
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

template <typename OpOrAdaptor>
static LogicalResult poolSpecs(OptLoc loc, StringRef name, OpOrAdaptor op,
                               std::optional<ArrayRef<int64_t>> dilationAttr,
                               SmallVectorImpl<WindowSpec> &specs) {
  RankedTensorType x = tensorTypeOf(op.getInput());
  if (failed(checkSpatialRank(loc, name, x)))
    return failure();
  int64_t s = x.getRank() - 2;
  SmallVector<int64_t> kernel, stride, dilation, lo, hi;
  if (failed(spatialValues(loc, name, "kernel_size", op.getKernelSize(), s, 1,
                           kernel)) ||
      failed(
          spatialValues(loc, name, "stride", op.getStride(), s, 0, stride)) ||
      failed(
          spatialValues(loc, name, "dilation", dilationAttr, s, 1, dilation)) ||
      failed(paddingPairs(loc, name, op.getPadding(), s, lo, hi)))
    return failure();
  for (int64_t i = 0; i < s; ++i) {
    // As in PyTorch, an absent stride means stride = kernel_size.
    int64_t st = op.getStride() ? stride[i] : kernel[i];
    if (kernel[i] < 1 || st < 1 || dilation[i] < 1)
      return fail(loc, name,
                  "kernel_size, stride and dilation must be >= 1 "
                  "(spatial dim ",
                  i, ")");
    // PyTorch: "pad should be at most half of kernel size"; with dilation
    // this also keeps every window touching real input.
    if (std::max(lo[i], hi[i]) > kernel[i] / 2)
      return fail(loc, name, "padding ", std::max(lo[i], hi[i]),
                  " on spatial dim ", i, " exceeds half the kernel size ",
                  kernel[i]);
    WindowSpec spec;
    spec.kind = WindowKind::Strided;
    spec.inputSize = x.getDimSize(2 + i);
    spec.kernel = kernel[i];
    spec.stride = st;
    spec.dilation = dilation[i];
    spec.padLow = lo[i];
    spec.padHigh = hi[i];
    spec.ceilMode = op.getCeilMode();
    specs.push_back(spec);
  }
  return success();
}

template <typename OpOrAdaptor>
static LogicalResult inferPool(OptLoc loc, StringRef name, OpOrAdaptor adaptor,
                               std::optional<ArrayRef<int64_t>> dilation,
                               SmallVectorImpl<Type> &types) {
  SmallVector<WindowSpec> specs;
  if (failed(poolSpecs(loc, name, adaptor, dilation, specs)))
    return failure();
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  SmallVector<int64_t> shape(x.getShape());
  if (failed(checkSpecs(loc, name, specs, 2, shape)))
    return failure();
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferPool(loc, getOperationName(), adaptor, adaptor.getDilation(),
                   types);
}

LogicalResult AvgPoolOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  // The getter is unsigned; read the attribute to see negative values.
  if (auto divisor = adaptor.getDivisorOverrideAttr();
      divisor &&
      (divisor.getInt() < 1 || divisor.getInt() > kMaxWindowParameter))
    return fail(loc, getOperationName(),
                "divisor_override must be in [1, 2^30] (got ", divisor.getInt(),
                ")");
  return inferPool(loc, getOperationName(), adaptor, std::nullopt, types);
}

//===----------------------------------------------------------------------===//
// Interpolate (result shape is given; verified against the specs)
//===----------------------------------------------------------------------===//

static LogicalResult interpolateSpecs(OptLoc loc, InterpolateOp op,
                                      SmallVectorImpl<WindowSpec> &specs) {
  StringRef name = op.getOperationName();
  RankedTensorType x = op.getInput().getType();
  RankedTensorType y = op.getResult().getType();
  if (failed(checkSpatialRank(loc, name, x)))
    return failure();
  int64_t s = x.getRank() - 2;
  if (y.getRank() != x.getRank() || y.getDimSize(0) != x.getDimSize(0) ||
      y.getDimSize(1) != x.getDimSize(1) ||
      y.getElementType() != x.getElementType())
    return fail(
        loc, name, "result ", y,
        " must keep the input's rank, batch, channels and element type");
  std::optional<ArrayRef<double>> scales = op.getScaleFactors();
  if (scales && static_cast<int64_t>(scales->size()) != s)
    return fail(loc, name, "'scale_factors' needs ", s, " values, got ",
                scales->size());
  bool linear = op.getMode() == "linear";
  if (op.getAlignCorners() && !linear)
    return fail(loc, name, "align_corners only applies to mode \"linear\"");
  for (int64_t i = 0; i < s; ++i) {
    WindowSpec spec;
    spec.kind = WindowKind::Resize;
    spec.inputSize = x.getDimSize(2 + i);
    spec.outputSize = y.getDimSize(2 + i);
    spec.resizeMode = linear ? ResizeMode::Linear
                      : op.getMode() == "nearest-exact"
                          ? ResizeMode::NearestExact
                          : ResizeMode::Nearest;
    spec.alignCorners = op.getAlignCorners();
    if (scales) {
      if (!((*scales)[i] > 0) || std::isinf((*scales)[i]))
        return fail(loc, name, "scale factor ", (*scales)[i],
                    " must be positive and finite");
      spec.scaleFactor = (*scales)[i];
      int64_t expected = windowOutputSize(spec);
      if (expected != spec.outputSize)
        return fail(loc, name, "scale factor ", (*scales)[i], " maps size ",
                    spec.inputSize, " to ", expected, " but the result has ",
                    spec.outputSize, " on dim ", 2 + i);
    }
    std::string reason = validateWindowSpec(spec);
    if (!reason.empty())
      return fail(loc, name, "spatial dim ", i, ": ", reason);
    specs.push_back(spec);
  }
  return success();
}

LogicalResult InterpolateOp::verify() {
  SmallVector<WindowSpec> specs;
  return interpolateSpecs(getLoc(), *this, specs);
}

//===----------------------------------------------------------------------===//
// Pad (F.pad order: pairs from the last dim backwards)
//===----------------------------------------------------------------------===//

template <typename OpOrAdaptor>
static LogicalResult
padSpecs(OptLoc loc, StringRef name, OpOrAdaptor op,
         SmallVectorImpl<std::pair<int64_t, WindowSpec>> &specs) {
  RankedTensorType x = tensorTypeOf(op.getInput());
  if (!x)
    return fail(loc, name, "needs a ranked tensor");
  ArrayRef<int64_t> pad = op.getPad();
  int64_t rank = x.getRank();
  if (pad.size() % 2 != 0 || static_cast<int64_t>(pad.size()) > 2 * rank)
    return fail(loc, name, "'pad' needs an even number of values, at most ",
                2 * rank, " for rank ", rank, "; got ", pad.size());
  BoundaryMode boundary = boundaryFromString(op.getMode());
  for (size_t pair = 0; pair < pad.size() / 2; ++pair) {
    int64_t dim = rank - 1 - pair;
    WindowSpec spec;
    spec.kind = WindowKind::Pad;
    spec.inputSize = x.getDimSize(dim);
    spec.padLow = pad[2 * pair];
    spec.padHigh = pad[2 * pair + 1];
    spec.boundary = boundary;
    specs.push_back({dim, spec});
  }
  return success();
}

/// F.pad's circular mode with crops: it wraps the tensor left after
/// cropping, not the input, which the window algebra (indices of the input)
/// cannot say; sc-decompose-forms splits such a pad in two.
static bool wrapsCroppedInput(const WindowSpec &spec) {
  return spec.boundary == BoundaryMode::Circular &&
         (spec.padLow < 0 || spec.padHigh < 0);
}

/// What the two pads sc-decompose-forms makes of a circular pad with crops
/// need: something left to wrap, wrapped at most once, and window
/// parameters in range. As F.pad, crops may leave an empty dim that nothing
/// wraps (the result is then empty).
static LogicalResult checkCircularCrop(OptLoc loc, StringRef name, int64_t dim,
                                       const WindowSpec &spec) {
  int64_t n = spec.inputSize;
  WindowSpec crop = spec, wrap = spec;
  crop.boundary = BoundaryMode::Zeros;
  crop.padLow = std::min<int64_t>(spec.padLow, 0);
  crop.padHigh = std::min<int64_t>(spec.padHigh, 0);
  wrap.padLow = std::max<int64_t>(spec.padLow, 0);
  wrap.padHigh = std::max<int64_t>(spec.padHigh, 0);
  wrap.inputSize = n + crop.padLow + crop.padHigh;
  if (wrap.inputSize < 0)
    return fail(loc, name, "dim ", dim, ": cropping (", spec.padLow, ", ",
                spec.padHigh, ") exceeds the input size ", n);
  int64_t wraps = std::max(wrap.padLow, wrap.padHigh);
  if (wrap.inputSize == 0 && wraps == 0)
    return success();
  if (wrap.inputSize == 0)
    return fail(loc, name, "dim ", dim, ": padding (", spec.padLow, ", ",
                spec.padHigh, ") leaves nothing of the input size ", n,
                " to wrap");
  // F.pad checks the amounts against the input size only, and past the
  // cropped size copies from output it has not written yet.
  if (wraps > wrap.inputSize)
    return fail(loc, name, "dim ", dim, ": circular padding (", wraps,
                ") must not exceed the size left after cropping (",
                wrap.inputSize, ")");
  for (const WindowSpec &part : {crop, wrap})
    if (std::string reason = validateWindowSpec(part); !reason.empty())
      return fail(loc, name, "dim ", dim, ": ", reason);
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  SmallVector<std::pair<int64_t, WindowSpec>> specs;
  if (failed(padSpecs(loc, name, adaptor, specs)))
    return failure();
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  SmallVector<int64_t> shape(x.getShape());
  for (auto &[dim, spec] : specs) {
    // F.pad in constant mode pads an empty dim, and crops down to nothing:
    // the window algebra, which maps output to input indices, has neither.
    // (Amounts in range first: the size is their sum.)
    bool inRange = llvm::all_of(
        std::initializer_list<int64_t>{spec.padLow, spec.padHigh},
        [](int64_t v) {
          return v <= kMaxWindowParameter && v >= -kMaxWindowParameter;
        });
    int64_t size = inRange ? windowOutputSize(spec) : 0;
    if (inRange && wrapsCroppedInput(spec)) {
      if (failed(checkCircularCrop(loc, name, dim, spec)))
        return failure();
      shape[dim] = size;
      continue;
    }
    bool empty = spec.inputSize == 0 || size <= 0;
    if (inRange && spec.boundary == BoundaryMode::Zeros && empty) {
      // As the window algebra's crops (and torch's narrow): each amount and
      // both together.
      if (size < 0 || spec.inputSize + std::min<int64_t>(spec.padLow, 0) < 0 ||
          spec.inputSize + std::min<int64_t>(spec.padHigh, 0) < 0)
        return fail(loc, name, "dim ", dim, ": cropping (", spec.padLow, ", ",
                    spec.padHigh, ") exceeds the input size ", spec.inputSize);
      shape[dim] = size;
      continue;
    }
    std::string reason = validateWindowSpec(spec);
    if (!reason.empty())
      return fail(loc, name, "dim ", dim, ": ", reason);
    shape[dim] = windowOutputSize(spec);
  }
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Neighborhood attention: q, k, v (B, spatial..., heads, D)
//===----------------------------------------------------------------------===//

template <typename OpOrAdaptor>
static LogicalResult naSpecs(OptLoc loc, StringRef name, OpOrAdaptor op,
                             SmallVectorImpl<WindowSpec> &specs) {
  RankedTensorType q = tensorTypeOf(op.getQuery());
  RankedTensorType k = tensorTypeOf(op.getKey());
  RankedTensorType v = tensorTypeOf(op.getValue());
  if (!q || q.getRank() < 4 || q.getRank() > 6)
    return fail(loc, name,
                "query must be (B, spatial..., heads, D) with 1 to 3 "
                "spatial dims");
  if (!k || !v || k != q ||
      v.getShape().drop_back() != q.getShape().drop_back() ||
      v.getElementType() != q.getElementType())
    return fail(loc, name,
                "key must match the query's type and value its "
                "shape up to the last dim");
  int64_t s = q.getRank() - 3;
  SmallVector<int64_t> kernel, dilation;
  if (failed(spatialValues(loc, name, "kernel_size", op.getKernelSize(), s, 1,
                           kernel)) ||
      failed(spatialValues(loc, name, "dilation", op.getDilation(), s, 1,
                           dilation)))
    return failure();
  if (failed(checkAttentionScale(loc, name, op.getScale())))
    return failure();
  for (int64_t i = 0; i < s; ++i) {
    WindowSpec spec;
    spec.kind = WindowKind::Neighborhood;
    spec.inputSize = q.getDimSize(1 + i);
    spec.kernel = kernel[i];
    spec.dilation = dilation[i];
    std::string reason = validateWindowSpec(spec);
    if (!reason.empty())
      return fail(loc, name, "spatial dim ", i, " (dim ", 1 + i, "): ", reason);
    specs.push_back(spec);
  }
  return success();
}

LogicalResult NeighborhoodAttentionOp::inferReturnTypes(
    MLIRContext *, OptLoc loc, Adaptor adaptor, SmallVectorImpl<Type> &types) {
  SmallVector<WindowSpec> specs;
  if (failed(naSpecs(loc, getOperationName(), adaptor, specs)))
    return failure();
  SmallVector<int64_t> shape(tensorTypeOf(adaptor.getQuery()).getShape());
  shape.back() = tensorTypeOf(adaptor.getValue()).getShape().back();
  types.push_back(RankedTensorType::get(
      shape, tensorTypeOf(adaptor.getQuery()).getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// WindowOpInterface (ops are verified here, so no diagnostics are needed)
//===----------------------------------------------------------------------===//

static std::vector<WindowedDim>
spatialWindows(ArrayRef<WindowSpec> specs, int64_t firstDim,
               ArrayRef<unsigned> operands = {0}) {
  std::vector<WindowedDim> dims;
  for (unsigned operand : operands)
    for (auto [i, spec] : llvm::enumerate(specs))
      dims.push_back({operand, firstDim + static_cast<int64_t>(i),
                      firstDim + static_cast<int64_t>(i), spec});
  return dims;
}

/// Fills in output sizes (the specs are built from the input side).
static void setOutputSizes(MutableArrayRef<WindowSpec> specs) {
  for (WindowSpec &spec : specs)
    if (spec.kind != WindowKind::Resize)
      spec.outputSize = windowOutputSize(spec);
}

std::vector<WindowedDim> ConvOp::getWindowedDims() {
  SmallVector<WindowSpec> specs;
  (void)convSpecs(std::nullopt, getOperationName(), *this, false, specs);
  setOutputSizes(specs);
  return spatialWindows(specs, 2);
}

std::vector<WindowedDim> ConvTransposeOp::getWindowedDims() {
  SmallVector<WindowSpec> specs;
  (void)convSpecs(std::nullopt, getOperationName(), *this, true, specs);
  setOutputSizes(specs);
  return spatialWindows(specs, 2);
}

std::vector<WindowedDim> MaxPoolOp::getWindowedDims() {
  SmallVector<WindowSpec> specs;
  (void)poolSpecs(std::nullopt, getOperationName(), *this, getDilation(),
                  specs);
  setOutputSizes(specs);
  return spatialWindows(specs, 2);
}

std::vector<WindowedDim> AvgPoolOp::getWindowedDims() {
  SmallVector<WindowSpec> specs;
  (void)poolSpecs(std::nullopt, getOperationName(), *this, std::nullopt, specs);
  setOutputSizes(specs);
  return spatialWindows(specs, 2);
}

std::vector<WindowedDim> InterpolateOp::getWindowedDims() {
  SmallVector<WindowSpec> specs;
  (void)interpolateSpecs(std::nullopt, *this, specs);
  return spatialWindows(specs, 2);
}

bool PadOp::readsNothing() {
  return getMode() == "constant" &&
         (getInput().getType().getNumElements() == 0 ||
          getType().getNumElements() == 0);
}

bool PadOp::isCoreForm() {
  if (getMode() != "circular")
    return true;
  return llvm::all_of(getPad(), [](int64_t v) { return v >= 0; });
}

std::vector<WindowedDim> PadOp::getWindowedDims() {
  if (readsNothing())
    return {}; // a fill: no output index reads the input
  // Callers refuse a pad not in core form (requireCoreForm) before they
  // ask; no window of the input describes it.
  if (!isCoreForm())
    return {};
  SmallVector<std::pair<int64_t, WindowSpec>> specs;
  (void)padSpecs(std::nullopt, getOperationName(), *this, specs);
  std::vector<WindowedDim> dims;
  for (auto &[dim, spec] : specs) {
    spec.outputSize = windowOutputSize(spec);
    dims.push_back({0, dim, dim, spec});
  }
  return dims;
}

std::vector<WindowedDim> NeighborhoodAttentionOp::getWindowedDims() {
  SmallVector<WindowSpec> specs;
  (void)naSpecs(std::nullopt, getOperationName(), *this, specs);
  setOutputSizes(specs);
  // Queries are read pointwise; keys and values through the window.
  return spatialWindows(specs, 1, {1, 2});
}

/// F.adaptive_{avg,max}_pool's shapes: (N, C, spatial...) with non-empty
/// non-batch dims, one output size per spatial dim.
template <typename Adaptor>
static LogicalResult inferAdaptivePool(OptLoc loc, StringRef name,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  RankedTensorType x = tensorTypeOf(adaptor.getInput());
  ArrayRef<int64_t> out = adaptor.getOutputSize();
  int64_t spatial = out.size();
  if (!x || spatial < 1 || spatial > 3 || x.getRank() != spatial + 2)
    return fail(loc, name,
                "needs (N, C, spatial...) with 1 to 3 spatial dims and one "
                "output_size per spatial dim (got ",
                spatial, " output sizes for ",
                x ? shapeStr(x.getShape()) : std::string("?"), ")");
  SmallVector<int64_t> shape(x.getShape());
  for (int64_t d = 1; d < x.getRank(); ++d)
    if (shape[d] == 0)
      return fail(loc, name, "dim ", d,
                  " is empty; the non-batch dims must not be (as PyTorch)");
  for (auto [i, size] : llvm::enumerate(out)) {
    if (size < 0 || size > (int64_t(1) << 30))
      return fail(loc, name, "output_size ", size, " must be 0 to 2^30");
    shape[2 + i] = size;
  }
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult
AdaptiveAvgPoolOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                    SmallVectorImpl<Type> &types) {
  return inferAdaptivePool(loc, getOperationName(), adaptor, types);
}

LogicalResult
AdaptiveMaxPoolOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                    SmallVectorImpl<Type> &types) {
  return inferAdaptivePool(loc, getOperationName(), adaptor, types);
}
