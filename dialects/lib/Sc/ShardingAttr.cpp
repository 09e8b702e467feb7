//===- ShardingAttr.cpp - #sc.sharding syntax and verification ------------===//

#include "shardc/Dialect/Sc/ScOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace shardc::sc;

bool shardc::sc::isStringOneOf(Attribute attr, StringRef choices) {
  auto str = dyn_cast_or_null<StringAttr>(attr);
  if (!str)
    return false;
  SmallVector<StringRef> options;
  choices.split(options, ',');
  return llvm::is_contained(options, str.getValue());
}

std::vector<int64_t> shardc::sc::canonicalExtents(int64_t n, int64_t k) {
  std::vector<int64_t> extents(k, n / k);
  for (int64_t i = 0; i < n % k; ++i)
    ++extents[i];
  return extents;
}

//===----------------------------------------------------------------------===//
// Syntax: #sc.sharding<@mesh, [{}, {"x"}[3, 2]], partial sum {"y"}>
//===----------------------------------------------------------------------===//

static ParseResult parseAxisList(AsmParser &parser,
                                 SmallVectorImpl<StringAttr> &axes) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Braces, [&]() -> ParseResult {
        std::string name;
        if (parser.parseString(&name))
          return failure();
        axes.push_back(StringAttr::get(parser.getContext(), name));
        return success();
      });
}

static void printAxisList(AsmPrinter &printer, ArrayRef<StringAttr> axes) {
  printer << "{";
  llvm::interleaveComma(axes, printer.getStream(), [&](StringAttr axis) {
    printer.printString(axis.getValue());
  });
  printer << "}";
}

static ParseResult parseDimSharding(AsmParser &parser,
                                    SmallVectorImpl<DimShardingAttr> &dims) {
  SmallVector<StringAttr> axes;
  SmallVector<int64_t> extents;
  if (parseAxisList(parser, axes))
    return failure();
  if (succeeded(parser.parseOptionalLSquare())) {
    if (parser.parseCommaSeparatedList([&]() -> ParseResult {
          int64_t extent;
          if (parser.parseInteger(extent))
            return failure();
          extents.push_back(extent);
          return success();
        }) ||
        parser.parseRSquare())
      return failure();
  }
  dims.push_back(DimShardingAttr::get(parser.getContext(), axes, extents));
  return success();
}

static void printDimSharding(AsmPrinter &printer, DimShardingAttr dim) {
  printAxisList(printer, dim.getAxes());
  if (!dim.getExtents().empty()) {
    printer << "[";
    llvm::interleaveComma(dim.getExtents(), printer.getStream());
    printer << "]";
  }
}

Attribute DimShardingAttr::parse(AsmParser &parser, Type) {
  SmallVector<DimShardingAttr> dims;
  if (parser.parseLess() || parseDimSharding(parser, dims) ||
      parser.parseGreater())
    return {};
  return dims.front();
}

void DimShardingAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printDimSharding(printer, *this);
  printer << ">";
}

Attribute ShardingAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  FlatSymbolRefAttr mesh;
  SmallVector<DimShardingAttr> dims;
  SmallVector<StringAttr> partialAxes;
  ReductionKind kind = ReductionKind::Sum;
  if (parser.parseLess() ||
      parser.parseCustomAttributeWithFallback(mesh, Type()) ||
      parser.parseComma() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
        return parseDimSharding(parser, dims);
      }))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    std::string kindName;
    SMLoc kindLoc = parser.getCurrentLocation();
    if (parser.parseKeyword("partial") ||
        parser.parseKeywordOrString(&kindName))
      return {};
    std::optional<ReductionKind> parsed = symbolizeReductionKind(kindName);
    if (!parsed) {
      parser.emitError(kindLoc)
          << "unknown partial reduction kind '" << kindName
          << "' (expected sum, max, min or mean)";
      return {};
    }
    kind = *parsed;
    if (parseAxisList(parser, partialAxes))
      return {};
    if (partialAxes.empty()) {
      parser.emitError(kindLoc) << "a partial sharding names at least one axis";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return ShardingAttr::get(ctx, mesh, dims, partialAxes, kind);
}

void ShardingAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printAttributeWithoutType(getMesh());
  printer << ", [";
  llvm::interleaveComma(
      getDims(), printer.getStream(),
      [&](DimShardingAttr dim) { printDimSharding(printer, dim); });
  printer << "]";
  if (!getPartialAxes().empty()) {
    printer << ", partial " << stringifyReductionKind(getPartialKind()) << " ";
    printAxisList(printer, getPartialAxes());
  }
  printer << ">";
}

//===----------------------------------------------------------------------===//
// Semantics
//===----------------------------------------------------------------------===//

bool ShardingAttr::isReplicated() const {
  return getPartialAxes().empty() &&
         llvm::all_of(getDims(),
                      [](DimShardingAttr d) { return d.getAxes().empty(); });
}

LogicalResult
ShardingAttr::verifyFor(Operation *anchor, Type type,
                        function_ref<InFlightDiagnostic()> emitError) const {
  auto mesh = SymbolTable::lookupNearestSymbolFrom<MeshOp>(anchor, getMesh());
  if (!mesh)
    return emitError() << "sharding refers to unknown mesh " << getMesh();
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return emitError() << "a sharding annotates a ranked tensor, not " << type;
  if (!tensor.hasStaticShape())
    return emitError()
           << "a sharding annotates a statically shaped tensor, not " << tensor;
  if (static_cast<int64_t>(getDims().size()) != tensor.getRank())
    return emitError() << "sharding has " << getDims().size()
                       << " dims but the tensor " << tensor << " has rank "
                       << tensor.getRank();

  llvm::SmallSet<StringRef, 4> used;
  auto useAxis = [&](StringAttr axis, StringRef where) -> LogicalResult {
    if (mesh.getAxisIndex(axis.getValue()) < 0)
      return emitError() << "mesh @" << mesh.getSymName() << " has no axis \""
                         << axis.getValue() << "\" (used " << where << ")";
    if (!used.insert(axis.getValue()).second)
      return emitError() << "mesh axis \"" << axis.getValue()
                         << "\" is used more than once (again " << where << ")";
    return success();
  };

  ArrayRef<int64_t> meshShape = mesh.getShape();
  for (auto [dim, dimSharding] : llvm::enumerate(getDims())) {
    std::string where = "on dim " + std::to_string(dim);
    int64_t shards = 1;
    for (StringAttr axis : dimSharding.getAxes()) {
      if (failed(useAxis(axis, where)))
        return failure();
      if (llvm::MulOverflow(
              shards, meshShape[mesh.getAxisIndex(axis.getValue())], shards))
        return emitError() << "dim " << dim << " is split into too many shards";
    }
    ArrayRef<int64_t> extents = dimSharding.getExtents();
    if (extents.empty())
      continue;
    if (dimSharding.getAxes().empty())
      return emitError() << "dim " << dim
                         << " gives extents but is not split over any axis";
    if (static_cast<int64_t>(extents.size()) != shards)
      return emitError() << "dim " << dim << " is split into " << shards
                         << " shards but " << extents.size()
                         << " extents are given";
    int64_t sum = 0;
    for (int64_t extent : extents) {
      if (extent < 0)
        return emitError() << "dim " << dim << " has a negative extent "
                           << extent;
      if (llvm::AddOverflow(sum, extent, sum))
        return emitError() << "extents of dim " << dim << " overflow";
    }
    if (sum != tensor.getDimSize(dim))
      return emitError() << "extents of dim " << dim << " sum to " << sum
                         << " but the dim has size " << tensor.getDimSize(dim);
  }
  for (StringAttr axis : getPartialAxes())
    if (failed(useAxis(axis, "as a partial axis")))
      return failure();
  return success();
}
