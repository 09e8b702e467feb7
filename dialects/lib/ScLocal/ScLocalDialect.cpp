//===- ScLocalDialect.cpp - scl registration, attributes, contexts --------===//

#include "shardc/Dialect/ScLocal/ScLocal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::scl;

#include "shardc/Dialect/ScLocal/ScLocalDialect.cpp.inc"
#include "shardc/Dialect/ScLocal/ScLocalEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "shardc/Dialect/ScLocal/ScLocalAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "shardc/Dialect/ScLocal/ScLocalTypes.cpp.inc"

void SclDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "shardc/Dialect/ScLocal/ScLocalTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "shardc/Dialect/ScLocal/ScLocalAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "shardc/Dialect/ScLocal/ScLocalOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// #scl.transfer
//===----------------------------------------------------------------------===//

bool TransferAttr::isSelf() const {
  return llvm::all_of(getPeer(), [](int64_t p) { return p == 0; });
}

// send 0 peer [1, 0] box [0:2, 0:16] tag 3 periodic
Attribute TransferAttr::parse(AsmParser &parser, Type) {
  StringRef kindName;
  int64_t operand = 0, tag = 0;
  SmallVector<int64_t> peer, lo, hi;
  auto parseInt = [&](SmallVectorImpl<int64_t> &into) {
    return parser.parseCommaSeparatedList(
        AsmParser::Delimiter::Square, [&]() -> ParseResult {
          return parser.parseInteger(into.emplace_back());
        });
  };
  if (parser.parseLess() || parser.parseKeyword(&kindName))
    return {};
  std::optional<TransferKind> kind = symbolizeTransferKind(kindName);
  if (!kind) {
    parser.emitError(parser.getNameLoc(), "expected 'send' or 'recv'");
    return {};
  }
  if (parser.parseInteger(operand) || parser.parseKeyword("peer") ||
      parseInt(peer) || parser.parseKeyword("box") ||
      parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square,
          [&]() -> ParseResult {
            return failure(parser.parseInteger(lo.emplace_back()) ||
                           parser.parseColon() ||
                           parser.parseInteger(hi.emplace_back()));
          }) ||
      parser.parseKeyword("tag") || parser.parseInteger(tag))
    return {};
  bool periodic = succeeded(parser.parseOptionalKeyword("periodic"));
  if (parser.parseGreater())
    return {};
  return TransferAttr::get(parser.getContext(), *kind, operand, peer, lo, hi,
                           tag, periodic);
}

void TransferAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyTransferKind(getKind()) << " " << getOperand()
          << " peer [";
  llvm::interleaveComma(getPeer(), printer);
  printer << "] box [";
  for (size_t d = 0; d < getLo().size(); ++d)
    printer << (d ? ", " : "") << getLo()[d] << ":" << getHi()[d];
  printer << "] tag " << getTag() << (getPeriodic() ? " periodic" : "") << ">";
}

//===----------------------------------------------------------------------===//
// Rank contexts
//===----------------------------------------------------------------------===//

SmallVector<int64_t> RankContext::coords(int64_t rank) const {
  ArrayRef<int64_t> shape = meshShape;
  SmallVector<int64_t> c(shape.size());
  for (size_t a = shape.size(); a-- > 0;) {
    c[a] = rank % shape[a];
    rank /= shape[a];
  }
  return c;
}

int64_t RankContext::groupSize(ArrayRef<int64_t> axes) const {
  int64_t n = 1;
  for (int64_t a : axes)
    n *= meshShape[a];
  return n;
}

int64_t RankContext::groupPosition(ArrayRef<int64_t> axes, int64_t rank) const {
  // Members are ordered by their coordinates on `axes` as listed, the last
  // listed fastest (world rank order when `axes` ascend).
  SmallVector<int64_t> c = coords(rank);
  int64_t position = 0;
  for (int64_t a : axes)
    position = position * meshShape[a] + c[a];
  return position;
}

/// `scl.mesh` of a function: the sc.mesh it names, or a diagnostic.
static FailureOr<sc::MeshOp> meshOfFunction(Operation *func,
                                            Operation *diagnosed) {
  auto ref = func->getAttrOfType<FlatSymbolRefAttr>(SclDialect::kMeshAttrName);
  if (!ref)
    return sc::MeshOp();
  auto mesh = SymbolTable::lookupNearestSymbolFrom<sc::MeshOp>(func, ref);
  if (!mesh)
    return diagnosed->emitOpError("runs on mesh ")
           << ref << ", which is not an sc.mesh in scope";
  return mesh;
}

FailureOr<RankContext> scl::rankContextOf(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  auto ranks =
      func ? func->getAttrOfType<DenseI32ArrayAttr>(SclDialect::kRanksAttrName)
           : DenseI32ArrayAttr();
  if (!ranks)
    return op->emitOpError("must be in a rank-class function (a func.func "
                           "with '")
           << SclDialect::kRanksAttrName << "')";
  FailureOr<sc::MeshOp> mesh = meshOfFunction(func, op);
  if (failed(mesh))
    return failure();
  RankContext context;
  context.mesh = *mesh;
  if (*mesh)
    context.meshShape.assign((*mesh).getShape().begin(),
                             (*mesh).getShape().end());
  context.ranks.assign(ranks.asArrayRef().begin(), ranks.asArrayRef().end());
  return context;
}

//===----------------------------------------------------------------------===//
// Function attributes
//===----------------------------------------------------------------------===//

static LogicalResult verifyRanks(Operation *op, Attribute attr) {
  auto ranks = dyn_cast<DenseI32ArrayAttr>(attr);
  if (!ranks || ranks.empty())
    return op->emitError("'")
           << SclDialect::kRanksAttrName << "' must be a non-empty array<i32>";
  FailureOr<sc::MeshOp> mesh = meshOfFunction(op, op);
  if (failed(mesh))
    return failure();
  int64_t world = *mesh ? (*mesh).getNumDevices() : 1;
  int64_t previous = -1;
  for (int32_t r : ranks.asArrayRef()) {
    if (r < 0 || r >= world)
      return op->emitError("'") << SclDialect::kRanksAttrName << "' holds rank "
                                << r << ", outside the world of " << world;
    if (r <= previous)
      return op->emitError("'")
             << SclDialect::kRanksAttrName
             << "' must list distinct ranks in ascending order; got " << r
             << " after " << previous;
    previous = r;
  }
  return success();
}

/// The rank classes of a partitioned entry cover the world exactly once and
/// each takes the entry's inputs and returns its outputs.
static LogicalResult verifyRankClasses(Operation *op, Attribute attr) {
  auto entry = dyn_cast<func::FuncOp>(op);
  auto classes = dyn_cast<ArrayAttr>(attr);
  if (!entry || !classes || classes.empty())
    return op->emitError("'") << SclDialect::kRankClassesAttrName
                              << "' must be a non-empty array of function "
                                 "symbols on a func.func";
  std::vector<int> seen;
  int64_t world = 0;
  Attribute firstMesh;
  // The scope's symbols, indexed once: a lookup each walks the module, and
  // a big mesh has thousands of classes. Not a SymbolTable: this runs
  // before the module's own check that names are unique (which the
  // SymbolTable constructor asserts); the first definition wins, as a
  // lookup's walk would find it.
  llvm::DenseMap<StringAttr, Operation *> symbols;
  Operation *scope = SymbolTable::getNearestSymbolTable(op);
  if (scope && !scope->getRegion(0).empty())
    for (Operation &o : scope->getRegion(0).front())
      if (auto name =
              o.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
        symbols.try_emplace(name, &o);
  for (Attribute a : classes) {
    auto ref = dyn_cast<FlatSymbolRefAttr>(a);
    auto cls =
        ref ? dyn_cast_or_null<func::FuncOp>(symbols.lookup(ref.getAttr()))
            : func::FuncOp();
    auto ranks =
        cls ? cls->getAttrOfType<DenseI32ArrayAttr>(SclDialect::kRanksAttrName)
            : DenseI32ArrayAttr();
    if (!ranks)
      return op->emitError("rank class ") << a << " is not a function with '"
                                          << SclDialect::kRanksAttrName << "'";
    if (cls.getNumArguments() != entry.getNumArguments() ||
        cls.getNumResults() != entry.getNumResults())
      return op->emitError("rank class ")
             << a << " takes " << cls.getNumArguments() << " and returns "
             << cls.getNumResults() << " buffers; the entry takes "
             << entry.getNumArguments() << " and returns "
             << entry.getNumResults();
    // The entry declares global tensors, each class its local buffers of
    // them: same element type and rank, static shapes.
    SmallVector<std::pair<Type, Type>> declared;
    for (auto [g, l] :
         llvm::zip_equal(entry.getArgumentTypes(), cls.getArgumentTypes()))
      declared.push_back({g, l});
    for (auto [g, l] :
         llvm::zip_equal(entry.getResultTypes(), cls.getResultTypes()))
      declared.push_back({g, l});
    for (auto [global, local] : declared) {
      auto tensor = dyn_cast<RankedTensorType>(global);
      auto buffer = dyn_cast<MemRefType>(local);
      Type element = tensor ? tensor.getElementType() : Type();
      if (!tensor || !tensor.hasStaticShape() || !isBufferElement(element))
        return op->emitError("the entry's inputs and outputs must be "
                             "statically shaped f32, bf16, f16, i1 or i64 "
                             "tensors; got ")
               << global;
      if (!buffer || !buffer.hasStaticShape() ||
          buffer.getElementType() != element ||
          buffer.getRank() != tensor.getRank())
        return op->emitError("rank class ")
               << a << " holds " << local << " for the entry's " << global
               << " (a static memref of its element type and rank)";
    }
    // Every class runs on the first class's mesh (its own verifier checks
    // that the mesh exists).
    Attribute meshRef = cls->getAttr(SclDialect::kMeshAttrName);
    if (a == classes[0]) {
      firstMesh = meshRef;
      auto mesh = meshRef ? SymbolTable::lookupNearestSymbolFrom<sc::MeshOp>(
                                cls, cast<FlatSymbolRefAttr>(meshRef))
                          : sc::MeshOp();
      world = mesh ? mesh.getNumDevices() : 1;
      seen.assign(world, 0);
    } else if (meshRef != firstMesh) {
      return op->emitError("rank class ")
             << a << " runs on another mesh than " << classes[0];
    }
    for (int32_t r : ranks.asArrayRef())
      if (r >= 0 && r < world && seen[r]++)
        return op->emitError("rank ") << r << " is in two rank classes";
  }
  for (int64_t r = 0; r < world; ++r)
    if (!seen[r])
      return op->emitError("rank ") << r << " is in no rank class";
  return success();
}

/// sc-plan-memory's attributes: where they may appear and that every
/// offset is non-negative and inside its function's arena. (Which buffers
/// may share bytes is checked where the plan is used: the artifact writer
/// recomputes liveness.)
static LogicalResult verifyMemoryPlanAttr(Operation *op, StringRef name,
                                          Attribute value) {
  auto fn = dyn_cast<func::FuncOp>(
      name == SclDialect::kOffsetAttrName ? op->getParentOp() : op);
  if (!fn || !fn->hasAttr(SclDialect::kRanksAttrName) ||
      (name == SclDialect::kOffsetAttrName && !isa<memref::AllocOp>(op)))
    return op->emitError("'")
           << name << "' belongs "
           << (name == SclDialect::kOffsetAttrName
                   ? "on a memref.alloc in a rank-class function"
                   : "on a rank-class function");
  auto arena = fn->getAttrOfType<IntegerAttr>(SclDialect::kArenaBytesAttrName);
  if (!arena || arena.getInt() < 0)
    return op->emitError("'") << SclDialect::kArenaBytesAttrName
                              << "' must be a non-negative integer";
  SmallVector<std::pair<int64_t, Type>> placed;
  if (name == SclDialect::kOffsetAttrName) {
    auto offset = dyn_cast<IntegerAttr>(value);
    if (!offset)
      return op->emitError("'") << name << "' must be an integer";
    placed.push_back({offset.getInt(), op->getResult(0).getType()});
  } else if (name == SclDialect::kInputOffsetsAttrName) {
    auto offsets = dyn_cast<DenseI64ArrayAttr>(value);
    if (!offsets || offsets.size() != int64_t(fn.getNumArguments()))
      return op->emitError("'")
             << name << "' must list one offset per argument ("
             << fn.getNumArguments() << ")";
    for (auto [offset, type] :
         llvm::zip(offsets.asArrayRef(), fn.getArgumentTypes()))
      placed.push_back({offset, type});
  }
  for (auto [offset, type] : placed) {
    auto memref = dyn_cast<MemRefType>(type);
    int64_t bytes =
        memref && memref.hasStaticShape()
            ? memref.getNumElements() *
                  std::max<int64_t>(1, memref.getElementTypeBitWidth() / 8)
            : 0;
    if (offset < 0 || offset + bytes > arena.getInt())
      return op->emitError("'")
             << name << "' places " << type << " at " << offset
             << ", outside the arena of " << arena.getInt() << " bytes";
  }
  return success();
}

LogicalResult SclDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kRanksAttrName)
    return verifyRanks(op, attr.getValue());
  if (name == kMeshAttrName) {
    if (!isa<FlatSymbolRefAttr>(attr.getValue()))
      return op->emitError("'") << kMeshAttrName << "' must name an sc.mesh";
    if (!op->hasAttr(kRanksAttrName))
      return op->emitError("'")
             << kMeshAttrName << "' needs '" << kRanksAttrName << "' beside it";
    return meshOfFunction(op, op);
  }
  if (name == kRankClassesAttrName)
    return verifyRankClasses(op, attr.getValue());
  if (name == kArenaBytesAttrName || name == kInputOffsetsAttrName ||
      name == kOffsetAttrName)
    return verifyMemoryPlanAttr(op, name, attr.getValue());
  return op->emitError("unknown scl attribute '") << name << "'";
}
