//===- DecomposeSpectral.cpp - DFTs as GEMMs for sc-decompose-forms -------===//
//
// sc.fft, sc.ifft, sc.rfft and sc.irfft become, dim by dim, a GEMM against a
// constant DFT matrix. Over a split dim that is a contraction over a split
// dim: every rank transforms its own part and the partial spectra are summed
// by the reduction the partitioner already places, with no transposition.
// What makes it pay is that spectral models keep few modes: slices of the
// result select the matrix's columns and zero pads (or zero blocks of a
// concat) of the input drop its rows, so a truncated transform costs
// O(points x modes) and sums only the kept modes across ranks.
//
//===----------------------------------------------------------------------===//

#include "DecomposeForms.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace shardc::sc;
using shardc::detail::replaceKeepingPin;

namespace {

using Kind = SpectralTransform::Kind;

/// The points start + step * i, i < count, along one dim.
struct IndexRange {
  int64_t start = 0, count = 0, step = 1;
  int64_t at(int64_t i) const { return start + step * i; }
};

/// One dim's transform: which kind of DFT, its length and scale.
struct Stage {
  int64_t dim;    // complex dim
  int64_t length; // n
  bool complexIn, complexOut, inverse;
  double scale;
};

/// A contribution to a transform's input: `value` holds, along each
/// transformed complex dim, the points offset[d], offset[d] + 1, ...; every
/// point not held by some piece is zero.
struct Piece {
  Value value;
  SmallVector<int64_t> offset; // per complex dim
};

/// Matrices past this many elements are refused: a transform that large
/// wants an FFT, which shardc does not have.
constexpr int64_t kMaxMatrixElements = int64_t(1) << 28;

int64_t complexRankOf(Value v, bool complex) {
  return cast<RankedTensorType>(v.getType()).getRank() - (complex ? 1 : 0);
}

/// The real matrix of one stage: rows are the input points `rows` (real and
/// imaginary parts interleaved for complex input), columns the output points
/// `cols` (likewise). Entries follow torch.fft's definitions; inputs beyond
/// the transform length are trimmed (zero rows), as is the part of a
/// half-spectrum an irfft does not read.
DenseElementsAttr stageMatrix(const Stage &stage, ArrayRef<int64_t> rows,
                              const IndexRange &cols, Type element) {
  int64_t inWidth = stage.complexIn ? 2 : 1,
          outWidth = stage.complexOut ? 2 : 1;
  int64_t numCols = cols.count * outWidth;
  std::vector<double> m(rows.size() * inWidth * numCols, 0.0);
  int64_t n = stage.length;
  double sign = stage.inverse ? 1.0 : -1.0;
  for (auto [r, j] : llvm::enumerate(rows)) {
    bool halfSpectrum = stage.complexIn && !stage.complexOut;
    if (j >= (halfSpectrum ? n / 2 + 1 : n))
      continue;
    for (int64_t c = 0; c < cols.count; ++c) {
      int64_t k = cols.at(c);
      // Reduced mod n first, so the angle stays exact for long transforms;
      // quarter turns are exact (cos(pi / 2) is not 0 in double).
      int64_t turn = (j * k) % n;
      double cosine, sine;
      if ((4 * turn) % n == 0) {
        static constexpr double kCos[] = {1, 0, -1, 0}, kSin[] = {0, 1, 0, -1};
        cosine = kCos[4 * turn / n];
        sine = kSin[4 * turn / n];
      } else {
        double theta =
            2.0 * M_PI * static_cast<double>(turn) / static_cast<double>(n);
        cosine = std::cos(theta);
        sine = std::sin(theta);
      }
      double re = cosine * stage.scale, im = sign * sine * stage.scale;
      double *row = &m[r * inWidth * numCols];
      if (halfSpectrum) {
        // x[k] = sum over the Hermitian spectrum: bins other than 0 and
        // n / 2 stand for their conjugate too; their imaginary parts cancel.
        double weight = (j == 0 || 2 * j == n) ? 1.0 : 2.0;
        row[c] = weight * re;
        row[numCols + c] = -weight * im;
      } else if (!stage.complexIn) {
        row[2 * c] = re;
        row[2 * c + 1] = im;
      } else {
        // (a + ib)(re + i im) = (a re - b im) + i (a im + b re).
        row[2 * c] = re;
        row[2 * c + 1] = im;
        row[numCols + 2 * c] = -im;
        row[numCols + 2 * c + 1] = re;
      }
    }
  }
  auto type = RankedTensorType::get(
      {static_cast<int64_t>(rows.size()) * inWidth, numCols}, element);
  if (element.isF64())
    return DenseElementsAttr::get(type, ArrayRef<double>(m));
  if (element.isF32()) {
    std::vector<float> f(m.begin(), m.end());
    return DenseElementsAttr::get(type, ArrayRef<float>(f));
  }
  SmallVector<APFloat> values;
  values.reserve(m.size());
  const llvm::fltSemantics &semantics =
      cast<FloatType>(element).getFloatSemantics();
  for (double v : m) {
    APFloat value(v);
    bool lost;
    value.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
    values.push_back(value);
  }
  return DenseElementsAttr::get(type, values);
}

/// A value whose complex dims are permuted: the transform's dim `order[p]`
/// is at position p. Stages leave the dim they transform last, so a chain of
/// stages permutes once per stage, and back once at the end.
struct Laid {
  Value value;
  SmallVector<int64_t> order;

  int64_t sizeOf(int64_t dim) const {
    auto at = llvm::find(order, dim) - order.begin();
    return cast<RankedTensorType>(value.getType()).getDimSize(at);
  }
};

/// `value` with its complex dims permuted by `perm` (result dim p is input
/// dim perm[p]), the trailing 2 (if `complex`) staying last.
Value permuteComplex(OpBuilder &b, Location loc, Value value,
                     ArrayRef<int64_t> perm, bool complex) {
  SmallVector<int64_t> full(perm);
  if (complex)
    full.push_back(perm.size());
  return PermuteOp::create(b, loc, value, b.getDenseI64ArrayAttr(full));
}

/// Applies one stage to `x` along the transform's dim `stage.dim`, whose
/// entries are the input points `rows`; the result holds the output points
/// `cols` there, as its last complex dim. The dim is moved last (before the
/// trailing 2) and flattened with its real/imaginary pair for the GEMM.
/// Returns a null value after an error.
Laid applyStage(OpBuilder &b, Location loc, const Laid &x, const Stage &stage,
                ArrayRef<int64_t> rows, const IndexRange &cols) {
  auto type = cast<RankedTensorType>(x.value.getType());
  int64_t rank = x.order.size();
  int64_t at = llvm::find(x.order, stage.dim) - x.order.begin();
  int64_t numRows = rows.size();
  int64_t elements = numRows * (stage.complexIn ? 2 : 1) * cols.count *
                     (stage.complexOut ? 2 : 1);
  if (elements > kMaxMatrixElements) {
    emitError(loc) << "the DFT along dim " << stage.dim << " would take a "
                   << elements
                   << "-element matrix; shardc computes DFTs as GEMMs and "
                      "takes at most "
                   << kMaxMatrixElements
                   << " (slice the result to the modes you keep)";
    return {};
  }
  Laid y{x.value, {}};
  SmallVector<int64_t> toLast, batch;
  for (int64_t p = 0; p < rank; ++p)
    if (p != at) {
      toLast.push_back(p);
      y.order.push_back(x.order[p]);
      batch.push_back(type.getDimSize(p));
    }
  toLast.push_back(at);
  y.order.push_back(stage.dim);
  if (at != rank - 1)
    y.value = permuteComplex(b, loc, y.value, toLast, stage.complexIn);
  auto shaped = [&](ArrayRef<int64_t> tail) {
    SmallVector<int64_t> s(batch);
    s.append(tail.begin(), tail.end());
    return RankedTensorType::get(s, type.getElementType());
  };
  if (stage.complexIn)
    y.value = ReshapeOp::create(b, loc, shaped({2 * numRows}), y.value);
  Value matrix = ConstantOp::create(
      b, loc, stageMatrix(stage, rows, cols, type.getElementType()));
  y.value = MatmulOp::create(b, loc, y.value, matrix);
  if (stage.complexOut)
    y.value = ReshapeOp::create(b, loc, shaped({cols.count, 2}), y.value);
  return y;
}

/// `x` with its complex dims back in the transform's order.
Value restoreOrder(OpBuilder &b, Location loc, const Laid &x, bool complex) {
  SmallVector<int64_t> perm(x.order.size());
  for (auto [p, dim] : llvm::enumerate(x.order))
    perm[dim] = p;
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return x.value;
  return permuteComplex(b, loc, x.value, perm, complex);
}

/// The stages of `t` in the order they run: an rfft's halving dim first, an
/// irfft's last; the others from the last listed.
SmallVector<Stage> stagesOf(const SpectralTransform &t) {
  SmallVector<Stage> stages;
  size_t count = t.dims.size();
  auto scaleOf = [&](int64_t n) {
    if (t.norm == "ortho")
      return 1.0 / std::sqrt(static_cast<double>(n));
    bool divides = t.inverse() == (t.norm == "backward");
    return divides ? 1.0 / static_cast<double>(n) : 1.0;
  };
  auto add = [&](size_t i, bool complexIn, bool complexOut) {
    stages.push_back({t.dims[i], t.lengths[i], complexIn, complexOut,
                      t.inverse(), scaleOf(t.lengths[i])});
  };
  if (t.kind == Kind::RealForward)
    add(count - 1, false, true);
  size_t plain =
      t.kind == Kind::Forward || t.kind == Kind::Inverse ? count : count - 1;
  for (size_t i = plain; i-- > 0;)
    add(i, true, true);
  if (t.kind == Kind::RealInverse)
    add(count - 1, true, false);
  return stages;
}

/// True for an `sc.constant` whose elements are all zero.
bool isZeroConstant(Value v) {
  DenseElementsAttr value;
  if (!matchPattern(v, m_Constant(&value)) || !value.isSplat())
    return false;
  return value.getSplatValue<APFloat>().isZero();
}

/// The input as pieces: zero pads on transformed dims are stripped (their
/// low amounts become offsets), and a concat along the first stage's dim is
/// split into its inputs, dropping the all-zero ones.
SmallVector<Piece> inputPieces(Value input, const SpectralTransform &t,
                               int64_t firstDim) {
  bool complex = t.complexInput();
  int64_t rank = complexRankOf(input, complex);
  int64_t fullRank = rank + (complex ? 1 : 0);
  Piece whole{input, SmallVector<int64_t>(rank, 0)};
  // A pinned producer stays: its pin must hold.
  auto pinned = [](Operation *op) {
    return op->hasAttr(ScDialect::kShardingAttrName);
  };
  while (auto pad = whole.value.getDefiningOp<PadOp>()) {
    if (pad.getMode() != "constant" ||
        pad.getValue().convertToDouble() != 0.0 || pinned(pad))
      break;
    ArrayRef<int64_t> amounts = pad.getPad();
    bool strippable = true;
    for (int64_t d = 0; d < fullRank && strippable; ++d) {
      // F.pad lists amounts from the last dim backwards.
      size_t at = 2 * (fullRank - 1 - d);
      int64_t lo = at < amounts.size() ? amounts[at] : 0;
      int64_t hi = at + 1 < amounts.size() ? amounts[at + 1] : 0;
      bool transformed = d < rank && llvm::is_contained(t.dims, d);
      strippable = lo >= 0 && hi >= 0 && (transformed || (lo == 0 && hi == 0));
    }
    if (!strippable)
      break;
    for (int64_t d = 0; d < rank; ++d) {
      size_t at = 2 * (fullRank - 1 - d);
      if (at < amounts.size())
        whole.offset[d] += amounts[at];
    }
    whole.value = pad.getInput();
  }
  SmallVector<Piece> pieces;
  auto concat = whole.value.getDefiningOp<ConcatOp>();
  // I64Attr reads back unsigned; concat takes negative dims.
  int64_t concatDim =
      concat ? *normalizeDim(static_cast<int64_t>(concat.getDim()), fullRank)
             : 0;
  if (!concat || concatDim != firstDim || pinned(concat)) {
    // An input empty along a transformed dim contributes nothing.
    auto type = cast<RankedTensorType>(whole.value.getType());
    if (llvm::all_of(t.dims, [&](int64_t d) { return type.getDimSize(d); }))
      pieces.push_back(whole);
    return pieces;
  }
  int64_t at = whole.offset[firstDim];
  for (Value part : concat.getInputs()) {
    int64_t size = cast<RankedTensorType>(part.getType()).getDimSize(firstDim);
    bool zero = isZeroConstant(part) && !pinned(part.getDefiningOp());
    if (size > 0 && !zero) {
      Piece piece = whole;
      piece.value = part;
      piece.offset[firstDim] = at;
      pieces.push_back(piece);
    }
    at += size;
  }
  return pieces;
}

/// The points offset, offset + 1, ..., offset + size - 1.
SmallVector<int64_t> pointsFrom(int64_t offset, int64_t size) {
  SmallVector<int64_t> points(size);
  for (int64_t i = 0; i < size; ++i)
    points[i] = offset + i;
  return points;
}

class SpectralDecomposition {
public:
  SpectralDecomposition(Operation *op, const SpectralTransform &t)
      : op(op), t(t), stages(stagesOf(t)),
        pieces(inputPieces(op->getOperand(0), t, stages.front().dim)) {}

  /// The transform restricted to the output points `wanted` (one range per
  /// complex dim of the result; only transformed dims are restricted), or
  /// null after an error. Stage results are shared between calls whose
  /// ranges agree so far.
  Value build(OpBuilder &b, ArrayRef<IndexRange> wanted) {
    Location loc = op->getLoc();
    std::vector<int64_t> key;
    Laid current;
    for (auto [i, stage] : llvm::enumerate(stages)) {
      const IndexRange &cols = wanted[stage.dim];
      key.insert(key.end(), {cols.start, cols.count, cols.step});
      auto [it, fresh] = memo.try_emplace(key, Laid());
      if (!fresh) {
        current = it->second;
        continue;
      }
      if (i == 0) {
        for (const Piece &piece : pieces) {
          Laid input{piece.value, llvm::to_vector(llvm::seq<int64_t>(
                                      0, piece.offset.size()))};
          Laid part = applyStage(
              b, loc, input, stage,
              pointsFrom(piece.offset[stage.dim], input.sizeOf(stage.dim)),
              cols);
          if (!part.value)
            return Value();
          if (current.value)
            current.value = AddOp::create(b, loc, current.value, part.value);
          else
            current = part;
        }
      } else {
        current = applyStage(b, loc, current, stage,
                             pointsFrom(pieces.front().offset[stage.dim],
                                        current.sizeOf(stage.dim)),
                             cols);
        if (!current.value)
          return Value();
      }
      it->second = current;
    }
    return restoreOrder(b, loc, current, t.complexResult());
  }

  bool empty() const { return pieces.empty(); }

private:
  Operation *op;
  const SpectralTransform &t;
  SmallVector<Stage> stages;
  SmallVector<Piece> pieces;
  std::map<std::vector<int64_t>, Laid> memo;
};

/// Ranges covering all of `shape`'s complex dims.
SmallVector<IndexRange> wholeRanges(ArrayRef<int64_t> shape) {
  SmallVector<IndexRange> ranges;
  for (int64_t size : shape)
    ranges.push_back({0, size, 1});
  return ranges;
}

/// Erases `v`'s producer and, in turn, theirs while nothing else reads them:
/// the zero pads, concats and constants whose parts the matrices read
/// directly. Other ops stay (sc-decompose-forms may not have visited them).
void eraseDeadProducers(Value v) {
  Operation *producer = v.getDefiningOp();
  if (!producer || !isa<PadOp, ConcatOp, ConstantOp>(producer) ||
      !isCoreForm(producer) || !isOpTriviallyDead(producer))
    return;
  SmallVector<Value> operands(producer->getOperands());
  producer->erase();
  for (Value operand : operands)
    eraseDeadProducers(operand);
}

} // namespace

LogicalResult shardc::detail::decomposeSpectral(Operation *op) {
  SpectralTransform t = *getSpectralTransform(op);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  OpBuilder b(op);
  Location loc = op->getLoc();
  SpectralDecomposition decomposition(op, t);
  // Nothing to transform, or nothing to read: the result is zeros.
  if (resultType.getNumElements() == 0 || decomposition.empty()) {
    Operation *zeros = ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(
            resultType, b.getFloatAttr(resultType.getElementType(), 0.0)));
    Value input = op->getOperand(0);
    replaceKeepingPin(op, zeros);
    eraseDeadProducers(input);
    return success();
  }
  ArrayRef<int64_t> shape = resultType.getShape();
  int64_t rank = t.complexResult() ? shape.size() - 1 : shape.size();
  auto sliceUsers = [&] {
    SmallVector<SliceOp> slices;
    for (Operation *user : op->getResult(0).getUsers())
      if (auto slice = dyn_cast<SliceOp>(user))
        slices.push_back(slice);
      else
        return SmallVector<SliceOp>();
    return slices;
  }();
  bool pinned = op->hasAttr(ScDialect::kShardingAttrName);
  if (pinned || sliceUsers.empty()) {
    Value result = decomposition.build(b, wholeRanges(shape.take_front(rank)));
    if (!result)
      return failure();
    Value input = op->getOperand(0);
    replaceKeepingPin(op, result.getDefiningOp());
    eraseDeadProducers(input);
    return success();
  }
  // Each slice computes only the points it keeps along transformed dims;
  // what it selects along the others is sliced after.
  for (SliceOp slice : sliceUsers) {
    OpBuilder sb(slice);
    ArrayRef<int64_t> start = slice.getStart(), end = slice.getEnd();
    SmallVector<int64_t> step(shape.size(), 1);
    if (auto s = slice.getStep())
      step.assign(s->begin(), s->end());
    SmallVector<IndexRange> wanted = wholeRanges(shape.take_front(rank));
    SmallVector<int64_t> restStart(start), restEnd(end), restStep(step);
    bool rest = false;
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
      int64_t count = slice.getType().getDimSize(d);
      if (d < rank && llvm::is_contained(t.dims, d)) {
        wanted[d] = {start[d], count, step[d]};
        restStart[d] = 0;
        restEnd[d] = count;
        restStep[d] = 1;
      } else if (count != shape[d]) {
        rest = true;
      }
    }
    // Built before the op, so stages shared between slices dominate all.
    Value result = decomposition.build(b, wanted);
    if (!result)
      return failure();
    if (rest)
      result = SliceOp::create(
          sb, slice.getLoc(), result, sb.getDenseI64ArrayAttr(restStart),
          sb.getDenseI64ArrayAttr(restEnd), sb.getDenseI64ArrayAttr(restStep));
    // Slices selecting the same points share their ops, so a slice's pin
    // becomes a constraint of its own.
    if (auto pin =
            slice->getAttrOfType<ShardingAttr>(ScDialect::kShardingAttrName))
      result = ShardingConstraintOp::create(sb, slice.getLoc(),
                                            result.getType(), result, pin);
    slice.getResult().replaceAllUsesWith(result);
    slice.erase();
  }
  Value input = op->getOperand(0);
  op->erase();
  eraseDeadProducers(input);
  return success();
}
