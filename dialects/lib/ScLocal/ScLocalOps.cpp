//===- ScLocalOps.cpp - scl op verifiers ----------------------------------===//
//
// A rank program is checked against its class: every rank that runs it must
// find its peers on the mesh and hold the block its group expects.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/ScLocal/ScLocal.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include "shardrt/artifact/Artifact.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace shardc;
using namespace shardc::scl;

#define GET_OP_CLASSES
#include "shardc/Dialect/ScLocal/ScLocalOps.cpp.inc"

namespace {

/// The largest tag an exchange may use: the runtime reserves the MPI tag
/// upper bound (32767) for collectives over part of the mesh.
constexpr int64_t kMaxExchangeTag = 32766;

} // namespace

//===----------------------------------------------------------------------===//
// scl.kernel
//===----------------------------------------------------------------------===//

std::optional<shardrt::fb::Opcode> scl::computeOpcode(StringRef name) {
  for (shardrt::fb::Opcode op : shardrt::fb::EnumValuesOpcode())
    if (name == shardrt::fb::EnumNameOpcode(op) &&
        op != shardrt::fb::Opcode::Invalid &&
        !shardrt::artifact::communicates(op))
      return op;
  return std::nullopt;
}

static LogicalResult verifyGroup(Operation *op, const RankContext &context,
                                 ArrayRef<int64_t> axes);

/// The instructions that only move, fill or convert elements, which the
/// runtime runs on bf16 and f16 buffers as well.
static bool movesElements(StringRef opcode) {
  return llvm::is_contained({"Copy", "Fill", "Pad", "Permute", "Slice",
                             "Concat", "BroadcastTo", "Cast"},
                            opcode);
}

bool scl::isHalfFloatElement(Type element) {
  return element.isBF16() || element.isF16();
}

bool scl::isBufferElement(Type element) {
  return isComputeElement(element) || element.isInteger(64);
}

bool scl::isComputeElement(Type element) {
  return element.isF32() || element.isInteger(1) || isHalfFloatElement(element);
}

/// A bf16 or f16 buffer: fused kernels widen it as they read it.
static bool isHalfFloatBuffer(Value v) {
  return isHalfFloatElement(cast<MemRefType>(v.getType()).getElementType());
}

/// An int64 buffer (argmax/argmin indices): only cast and moved.
static bool isInt64Buffer(Value v) {
  return cast<MemRefType>(v.getType()).getElementType().isInteger(64);
}

LogicalResult KernelOp::verify() {
  if (!computeOpcode(getOpcode())) {
    if (getOpcode() == "Invalid")
      return emitOpError("'Invalid' is no instruction");
    for (shardrt::fb::Opcode op : shardrt::fb::EnumValuesOpcode())
      if (getOpcode() == shardrt::fb::EnumNameOpcode(op))
        return emitOpError("'")
               << getOpcode()
               << "' is not a compute instruction (communication has its "
                  "own scl ops)";
    return emitOpError("unknown runtime instruction '") << getOpcode() << "'";
  }
  if (getOuts().empty())
    return emitOpError("writes no buffer");
  if (!movesElements(getOpcode()))
    for (Value buffer : getOperands()) {
      if (isInt64Buffer(buffer))
        return emitOpError("'")
               << getOpcode() << "' reads or writes " << buffer.getType()
               << "; int64 buffers (argmax/argmin indices) are only moved "
                  "and cast";
      // A Conv widens a 16-bit input as it packs it (the cpu target's halo
      // boxes stay 16-bit); a nearest Interpolate only gathers.
      if (getOpcode() == "Conv" && !getIns().empty() && buffer == getIns()[0])
        continue;
      if (getOpcode() == "Interpolate" && getMode() &&
          getMode()->starts_with("nearest") && getIns().size() == 1 &&
          getOuts().size() == 1 &&
          cast<MemRefType>(getIns()[0].getType()).getElementType() ==
              cast<MemRefType>(getOuts()[0].getType()).getElementType())
        continue;
      if (isHalfFloatBuffer(buffer))
        return emitOpError("'")
               << getOpcode() << "' computes in f32 but reads or writes "
               << buffer.getType()
               << "; bf16 and f16 buffers are only moved and cast (and "
                  "read as a Conv's input or resampled by nearest): "
                  "sc-compute-in-f32 casts around computing ops";
    }
  // A 16-bit or int64 Pad or Fill writes +0.0 (0) only, whose pattern is
  // zero bytes in each type (the runtime refuses other values; other values
  // are computed in f32).
  if ((getOpcode() == "Pad" || getOpcode() == "Fill") && !getOuts().empty() &&
      (isHalfFloatBuffer(getOuts()[0]) || isInt64Buffer(getOuts()[0])) &&
      llvm::any_of(getFloats(),
                   [](double v) { return v != 0.0 || std::signbit(v); }))
    return emitOpError("'")
           << getOpcode() << "' fills " << getOuts()[0].getType()
           << " with a value other than +0.0; a 16-bit or int64 buffer is "
              "padded or filled with zeros only (other values are padded in "
              "f32)";
  std::optional<ArrayRef<int64_t>> axes = getMeshAxes();
  int64_t members = 1; // no group: the rank alone
  if (axes) {
    if (getOpcode() != "Scan" && getOpcode() != "ScanTotals")
      return emitOpError("'")
             << getOpcode() << "' reads no group: only Scan and ScanTotals "
             << "take mesh_axes";
    FailureOr<RankContext> context = rankContextOf(*this);
    if (failed(context) || failed(verifyGroup(*this, *context, *axes)))
      return failure();
    members = context->groupSize(*axes);
  }
  // A Scan from totals folds as many as it names, or as come before its
  // rank in its group: then the totals must be the group's.
  if (getOpcode() == "Scan" && getIns().size() == 2) {
    if (axes && getInts().size() == 2)
      return emitOpError("names both how many totals it folds and a group");
    auto totals = cast<MemRefType>(getIns()[1].getType());
    int64_t dim = getInts().empty() ? -1 : getInts()[0];
    if (getInts().size() == 1 && dim >= 0 && dim < totals.getRank() &&
        totals.getDimSize(dim) != members)
      return emitOpError("has the totals of ")
             << totals.getDimSize(dim) << " shards for a group of " << members;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// scl.fused_elementwise
//===----------------------------------------------------------------------===//

/// The Compare predicates, which are also scl.scalar functions on bools.
static constexpr StringLiteral kComparePredicates[] = {"eq", "ne", "lt",
                                                       "le", "gt", "ge"};

int scl::scalarArity(StringRef fn) {
  if (llvm::is_contained(kComparePredicates, fn))
    return 2;
  return llvm::StringSwitch<int>(fn)
#define SHARDRT_UNARY_FUNCTION(name, kind, call) .Case(#name, 1)
#define SHARDRT_BINARY_FUNCTION(name, kind, call) .Case(#name, 2)
#include "shardrt/artifact/ElementwiseFunctions.def"
      .Case("select", 3)
      .Case("bool", 1)
      .Case("bf16", 1)
      .Case("f16", 1)
      .Default(0);
}

static bool isBoolBuffer(Value v) {
  return cast<MemRefType>(v.getType()).getElementType().isInteger(1);
}

static bool isF32Buffer(Value v) {
  return cast<MemRefType>(v.getType()).getElementType().isF32();
}

std::optional<std::string> scl::elementwiseFunction(KernelOp k) {
  if (k.getOuts().size() != 1 || !isF32Buffer(k.getOuts()[0]) ||
      !llvm::all_of(k.getIns(), isF32Buffer))
    return std::nullopt;
  StringRef opcode = k.getOpcode();
  if (opcode == "Copy" && k.getIns().size() == 1 && k.getInts().empty() &&
      k.getIns()[0].getType() == k.getOuts()[0].getType())
    return std::string();
  if ((opcode == "Unary" || opcode == "Binary") && k.getMode()) {
    int arity = scalarArity(*k.getMode());
    if (arity == int(k.getIns().size()) && (arity == 1) == (opcode == "Unary"))
      return k.getMode()->str();
  }
  return std::nullopt;
}

std::optional<std::string> scl::fusableFunction(KernelOp k) {
  if (std::optional<std::string> fn = elementwiseFunction(k))
    return fn;
  if (k.getOuts().size() != 1 || !k.getInts().empty())
    return std::nullopt;
  StringRef opcode = k.getOpcode();
  Value out = k.getOuts()[0];
  OperandRange ins = k.getIns();
  if (opcode == "Compare" && ins.size() == 2 && isBoolBuffer(out) &&
      llvm::all_of(ins, isF32Buffer) && k.getMode() &&
      llvm::is_contained(kComparePredicates, *k.getMode()))
    return k.getMode()->str();
  if (opcode == "Select" && ins.size() == 3 && isBoolBuffer(ins[0]) &&
      isF32Buffer(ins[1]) && isF32Buffer(ins[2]) && isF32Buffer(out))
    return std::string("select");
  if (opcode == "Cast" && ins.size() == 1 && isF32Buffer(ins[0]) &&
      isBoolBuffer(out))
    return std::string("bool");
  if (opcode == "Cast" && ins.size() == 1 && isBoolBuffer(ins[0]) &&
      isF32Buffer(out))
    return std::string();
  // A bf16/f16 input is widened where it is read; a cast down rounds to the
  // 16-bit grid in registers (and a 16-bit output stores that exactly).
  if (opcode == "Cast" && ins.size() == 1 && isHalfFloatBuffer(ins[0]) &&
      isF32Buffer(out))
    return std::string();
  if (opcode == "Cast" && ins.size() == 1 && isF32Buffer(ins[0]) &&
      isHalfFloatBuffer(out))
    return std::string(cast<MemRefType>(out.getType()).getElementType().isBF16()
                           ? "bf16"
                           : "f16");
  return std::nullopt;
}

bool scl::broadcastsTo(ArrayRef<int64_t> shape, ArrayRef<int64_t> target) {
  if (shape.size() > target.size())
    return false;
  ArrayRef<int64_t> aligned = target.take_back(shape.size());
  for (auto [size, to] : llvm::zip_equal(shape, aligned))
    if (size != to && size != 1)
      return false;
  return true;
}

LogicalResult ScalarOp::verify() {
  int arity = scalarArity(getFn());
  if (!arity)
    return emitOpError("unknown elementwise function '") << getFn() << "'";
  if (int(getOperands().size()) != arity)
    return emitOpError("'") << getFn() << "' takes " << arity
                            << " operand(s), got " << getOperands().size();
  return success();
}

/// The checks every fused op's inputs and body share: f32, i1, bf16 or f16
/// inputs that broadcast (numpy rules) to `domain`, one f32 body argument
/// per input (a bool reads as 1.0 or 0.0, a 16-bit float as its value), a
/// body of scl.scalar ending in scl.yield, using only its own values (the
/// kernels see nothing else).
static LogicalResult verifyFusedBody(Operation *op, ValueRange ins,
                                     ArrayRef<int64_t> domain, Region &region,
                                     const std::string &domainText) {
  for (auto [i, value] : llvm::enumerate(ins)) {
    auto in = cast<MemRefType>(value.getType());
    if (!isComputeElement(in.getElementType()))
      return op->emitOpError("input ")
             << i << " " << in << " holds " << in.getElementType()
             << "; fused kernels read f32, i1, bf16 or f16";
    if (!broadcastsTo(in.getShape(), domain))
      return op->emitOpError("input ")
             << i << " " << in << " does not broadcast to " << domainText
             << " (numpy rules)";
  }
  Block &body = region.front();
  if (body.getNumArguments() != ins.size())
    return op->emitOpError("body takes ")
           << body.getNumArguments() << " arguments for " << ins.size()
           << " inputs";
  for (BlockArgument arg : body.getArguments())
    if (!arg.getType().isF32())
      return op->emitOpError("body argument ")
             << arg.getArgNumber() << " is " << arg.getType() << ", not f32";
  if (body.empty() || !isa<YieldOp>(body.back()))
    return op->emitOpError("body must end in scl.yield");
  auto fromBody = [&](Value v) { return v.getParentBlock() == &body; };
  for (Operation &inner : body.without_terminator()) {
    if (!isa<ScalarOp>(inner))
      return inner.emitOpError("cannot be in a fused body (only scl.scalar "
                               "and scl.yield)");
    for (Value v : inner.getOperands())
      if (!fromBody(v))
        return inner.emitOpError("uses a value defined outside the fused body");
  }
  if (!fromBody(cast<YieldOp>(body.back()).getValue()))
    return body.back().emitOpError(
        "yields a value defined outside the fused body");
  return success();
}

Value ViewOp::getViewSource() { return getSource(); }

Value scl::storageOf(Value v) {
  while (auto view = v.getDefiningOp<ViewOp>())
    v = view.getSource();
  return v;
}

bool scl::isReturned(Value v) {
  return llvm::any_of(v.getUsers(), [](Operation *user) {
    return user->hasTrait<OpTrait::ReturnLike>();
  });
}

llvm::SmallPtrSet<Value, 4> scl::aliasesOf(Value root) {
  llvm::SmallPtrSet<Value, 4> aliases;
  SmallVector<Value> work = {root};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!aliases.insert(v).second)
      continue;
    for (Operation *user : v.getUsers())
      if (auto view = dyn_cast<ViewOp>(user))
        work.push_back(view.getResult());
  }
  return aliases;
}

bool scl::mayWrite(Operation *op, const llvm::SmallPtrSetImpl<Value> &buffers) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return llvm::any_of(op->getOperands(),
                        [&](Value v) { return buffers.contains(v); });
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  return llvm::any_of(list, [&](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Write>(e.getEffect()) &&
           e.getResource() != CommResource::get() &&
           (!e.getValue() || buffers.contains(e.getValue()));
  });
}

bool scl::communicates(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  return llvm::any_of(list, [](const MemoryEffects::EffectInstance &e) {
    return e.getResource() == CommResource::get();
  });
}

bool scl::mayWriteBetween(Operation *from, Operation *until,
                          const llvm::SmallPtrSetImpl<Value> &buffers,
                          llvm::function_ref<bool(Operation *)> skip) {
  for (Operation *op = from->getNextNode(); op && op != until;
       op = op->getNextNode())
    if (!(skip && skip(op)) && mayWrite(op, buffers))
      return true;
  return false;
}

bool scl::isReductionKind(StringRef kind) {
  return llvm::is_contained({"sum", "mean", "amax", "amin"}, kind);
}

bool scl::isTemporary(Value v) {
  Value storage = storageOf(v);
  return storage.getDefiningOp<memref::AllocOp>() &&
         !llvm::any_of(aliasesOf(storage), isReturned);
}

LogicalResult ViewOp::verify() {
  MemRefType from = getSource().getType(), to = getResult().getType();
  if (from.getElementType() != to.getElementType() ||
      from.getNumElements() != to.getNumElements())
    return emitOpError("views ")
           << from << " as " << to
           << "; a view keeps the element type and the element count";
  if (!from.getLayout().isIdentity() || !to.getLayout().isIdentity())
    return emitOpError("views a strided buffer; rank programs hold "
                       "row-major buffers");
  return success();
}

LogicalResult FusedElementwiseOp::verify() {
  // The output is f32, i1 (storing value != 0), bf16 or f16 (the value
  // rounded to nearest even); not int64.
  MemRefType out = getOutput().getType();
  if (!isComputeElement(out.getElementType()))
    return emitOpError("writes ")
           << out << "; a fused kernel writes f32, i1, bf16 or f16";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "'" << out << "'";
  return verifyFusedBody(*this, getIns(), out.getShape(), getBody(), text);
}

std::string scl::reductionShapeError(StringRef kind, ArrayRef<int64_t> domain,
                                     ArrayRef<int64_t> dims,
                                     int64_t outputCount) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (!isReductionKind(kind)) {
    os << "unknown reduction '" << kind << "' (sum, mean, amax, amin)";
    return text;
  }
  if (llvm::any_of(domain, [](int64_t n) { return n < 0; }))
    return "iterates over a negative extent";
  for (auto [i, d] : llvm::enumerate(dims))
    if (d < 0 || d >= int64_t(domain.size()) || (i > 0 && d <= dims[i - 1])) {
      os << "reduces dim " << d << " of a rank-" << domain.size()
         << " space (dims must be ascending and in range)";
      return text;
    }
  int64_t kept = 1, reduced = 1;
  for (auto [d, n] : llvm::enumerate(domain))
    (llvm::is_contained(dims, int64_t(d)) ? reduced : kept) *= n;
  if (outputCount != kept)
    os << "writes " << outputCount << " elements; the kept dims hold " << kept;
  else if (reduced == 0 && (kind == "amax" || kind == "amin"))
    os << kind << " over zero elements";
  return text;
}

bool scl::sharesStorage(Value a, Value b) {
  return storageOf(a) == storageOf(b);
}

bool scl::writesAnInput(ValueRange ins, Value out) {
  return llvm::any_of(ins, [&](Value in) { return sharesStorage(in, out); });
}

LogicalResult FusedReductionOp::verify() {
  MemRefType out = getOutput().getType();
  if (!out.getElementType().isF32())
    return emitOpError("writes ") << out << "; fused kernels compute in f32";
  ArrayRef<int64_t> domain = getDomain();
  std::string error =
      reductionShapeError(getKind(), domain, getDims(), out.getNumElements());
  if (!error.empty())
    return emitOpError(error);
  // The work of one output reads inputs at the others' positions too (an
  // input may vary along reduced dims), so an output written in place would
  // race with those reads: the kernels promise no order between outputs.
  for (auto [i, in] : llvm::enumerate(getIns()))
    if (sharesStorage(in, getOutput()))
      return emitOpError("input ")
             << i
             << " shares its buffer with the output; a reduction "
                "cannot write in place";
  std::string text = "the iteration space [";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(domain, os);
  os << "]";
  return verifyFusedBody(*this, getIns(), domain, getBody(), text);
}

//===----------------------------------------------------------------------===//
// scl.halo_exchange
//===----------------------------------------------------------------------===//

static bool boxesOverlap(TransferAttr a, TransferAttr b) {
  for (size_t d = 0; d < a.getLo().size(); ++d)
    if (a.getHi()[d] <= b.getLo()[d] || b.getHi()[d] <= a.getLo()[d] ||
        a.getLo()[d] == a.getHi()[d] || b.getLo()[d] == b.getHi()[d])
      return false;
  return true;
}

/// Keeps in `found` the smallest (i, j) pair seen, i < j: the first
/// transfer with a fault and its first partner in it, as a pairwise scan
/// would name them.
static void noteFirst(std::optional<std::pair<size_t, size_t>> &found, size_t i,
                      size_t j) {
  std::pair<size_t, size_t> p = std::minmax(i, j);
  if (!found || p < *found)
    found = p;
}

/// Two receives into one buffer whose boxes overlap (indices ascending),
/// if any. Each buffer's boxes are swept along the dim where their starts
/// differ most, so that the disjoint slabs of a gather from many peers cost
/// a sort, not a comparison of every pair.
static std::optional<std::pair<size_t, size_t>>
overlappingReceives(ArrayRef<TransferAttr> list) {
  llvm::MapVector<int64_t, SmallVector<size_t>> byBuffer; // by operand index
  for (auto [i, t] : llvm::enumerate(list))
    if (!t.isSend())
      byBuffer[t.getOperand()].push_back(i);
  std::optional<std::pair<size_t, size_t>> found;
  for (auto &[buffer, ids] : byBuffer) {
    size_t rank = list[ids.front()].getLo().size(), sweep = 0;
    if (rank == 0) { // every box is the buffer's one element
      if (ids.size() > 1)
        noteFirst(found, ids[0], ids[1]);
      continue;
    }
    size_t mostStarts = 0;
    for (size_t d = 0; d < rank; ++d) {
      llvm::SmallDenseSet<int64_t> starts;
      for (size_t i : ids)
        starts.insert(list[i].getLo()[d]);
      if (starts.size() > mostStarts)
        mostStarts = starts.size(), sweep = d;
    }
    llvm::stable_sort(ids, [&](size_t i, size_t j) {
      return list[i].getLo()[sweep] < list[j].getLo()[sweep];
    });
    SmallVector<size_t> open; // boxes that may reach the next start
    for (size_t i : ids) {
      int64_t lo = list[i].getLo()[sweep];
      llvm::erase_if(open,
                     [&](size_t j) { return list[j].getHi()[sweep] <= lo; });
      for (size_t j : open)
        if (boxesOverlap(list[i], list[j]))
          noteFirst(found, i, j);
      open.push_back(i);
    }
  }
  return found;
}

/// Two transfers in one direction with one peer and tag (indices
/// ascending), if any.
static std::optional<std::pair<size_t, size_t>>
repeatedPeerTags(ArrayRef<TransferAttr> list) {
  using Key = std::tuple<bool, int64_t, ArrayRef<int64_t>>;
  SmallVector<size_t> ids(list.size());
  std::iota(ids.begin(), ids.end(), size_t(0));
  auto key = [&](size_t i) {
    return Key(list[i].isSend(), list[i].getTag(), list[i].getPeer());
  };
  llvm::stable_sort(ids, [&](size_t i, size_t j) { return key(i) < key(j); });
  std::optional<std::pair<size_t, size_t>> found;
  for (size_t k = 1; k < ids.size(); ++k)
    if (key(ids[k - 1]) == key(ids[k]))
      noteFirst(found, ids[k - 1], ids[k]);
  return found;
}

LogicalResult HaloExchangeOp::verify() {
  FailureOr<RankContext> context = rankContextOf(*this);
  if (failed(context))
    return failure();
  ArrayRef<int64_t> meshShape = context->meshShape;
  auto transfers = getTransfers().getAsRange<TransferAttr>();
  for (auto [index, t] : llvm::enumerate(transfers)) {
    auto fail = [&, index = index]() {
      return emitOpError("transfer ") << index << " ";
    };
    ValueRange buffers = t.isSend() ? getIns() : getOuts();
    if (t.getOperand() < 0 || t.getOperand() >= int64_t(buffers.size()))
      return fail() << (t.isSend() ? "sends from input "
                                   : "receives into "
                                     "output ")
                    << t.getOperand() << " of " << buffers.size();
    auto type = cast<MemRefType>(buffers[t.getOperand()].getType());
    if (t.getLo().size() != size_t(type.getRank()) ||
        t.getHi().size() != t.getLo().size())
      return fail() << "has a box of rank " << t.getLo().size() << " on a "
                    << type;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (t.getLo()[d] < 0 || t.getLo()[d] > t.getHi()[d] ||
          t.getHi()[d] > type.getDimSize(d))
        return fail() << "box [" << t.getLo()[d] << ":" << t.getHi()[d]
                      << "] on dim " << d << " is outside " << type;
    if (t.getTag() < 0 || t.getTag() > kMaxExchangeTag)
      return fail() << "has tag " << t.getTag() << "; exchanges use 0.."
                    << kMaxExchangeTag;
    if (t.getPeer().size() != meshShape.size())
      return fail() << "names a peer of " << t.getPeer().size()
                    << " coordinates on a mesh of " << meshShape.size()
                    << " axes";
    if (t.getPeriodic())
      continue;
    for (int32_t rank : context->ranks) {
      SmallVector<int64_t> c = context->coords(rank);
      for (size_t a = 0; a < c.size(); ++a)
        if (c[a] + t.getPeer()[a] < 0 || c[a] + t.getPeer()[a] >= meshShape[a])
          return fail() << "has no peer on rank " << rank << ": offset "
                        << t.getPeer()[a] << " leaves mesh axis " << a
                        << " (not periodic)";
    }
  }
  // A rank's receives must not write one element twice, and its sends to
  // itself must each meet a receive.
  SmallVector<TransferAttr> list(transfers.begin(), transfers.end());
  // Transfers between one pair of ranks pair up by tag: one send and one
  // receive per tag and direction, of equal box sizes when local. The
  // first transfer with a fault is named, overlaps before tags.
  std::optional<std::pair<size_t, size_t>> overlap = overlappingReceives(list),
                                           repeated = repeatedPeerTags(list);
  for (size_t i = 0; i < list.size(); ++i) {
    TransferAttr a = list[i];
    if (overlap && overlap->first == i)
      return emitOpError("receives ")
             << i << " and " << overlap->second << " write overlapping boxes";
    if (repeated && repeated->first == i)
      return emitOpError("transfers ")
             << i << " and " << repeated->second << " both "
             << (a.isSend() ? "send to" : "receive from")
             << " one peer with tag " << a.getTag();
    if (!a.isSelf())
      continue;
    auto partner = llvm::find_if(list, [&](TransferAttr b) {
      return b.isSend() != a.isSend() && b.isSelf() && b.getTag() == a.getTag();
    });
    if (partner == list.end())
      return emitOpError("transfer ")
             << i << (a.isSend() ? " sends to" : " receives from")
             << " the rank itself with tag " << a.getTag()
             << " and nothing on the other side";
    for (size_t d = 0; d < a.getLo().size(); ++d)
      if (a.getHi()[d] - a.getLo()[d] !=
          (*partner).getHi()[d] - (*partner).getLo()[d])
        return emitOpError("transfer ")
               << i << " copies a box whose dim " << d
               << " differs in size from its partner's";
  }
  if (Value pending = getPending()) {
    if (!pending.hasOneUse() || !isa<WaitOp>(*pending.getUsers().begin()))
      return emitOpError("starts transfers that exactly one scl.wait must "
                         "complete; its result has ")
             << llvm::range_size(pending.getUses()) << " uses";
  }
  return success();
}

LogicalResult WaitOp::verify() {
  auto started = getPending().getDefiningOp<HaloExchangeOp>();
  if (!started)
    return emitOpError("waits for a value that no scl.halo_exchange started");
  if (started->getBlock() != (*this)->getBlock() ||
      !started->isBeforeInBlock(*this))
    return emitOpError("must follow the scl.halo_exchange it completes in "
                       "the same block");
  if (getOuts() != started.getOuts())
    return emitOpError("must list the outputs of the exchange it completes (")
           << started.getOuts().size() << " buffers), which its receives "
           << "write";
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// Checks `axes` (the attribute `name`) are distinct axes of the context's
/// mesh.
static LogicalResult verifyAxes(Operation *op, const RankContext &context,
                                ArrayRef<int64_t> axes, StringRef name) {
  if (!context.mesh)
    return op->emitOpError("needs a mesh: its function has no '")
           << SclDialect::kMeshAttrName << "'";
  int64_t meshRank = int64_t(context.meshShape.size());
  SmallVector<bool> seen(meshRank);
  for (int64_t a : axes) {
    if (a < 0 || a >= meshRank)
      return op->emitOpError() << name << " must be axes of the mesh (0.."
                               << meshRank - 1 << "); got " << a;
    if (seen[a])
      return op->emitOpError() << name << " lists axis " << a << " twice";
    seen[a] = true;
  }
  return success();
}

/// Checks `axes` names a group on the context's mesh.
static LogicalResult verifyGroup(Operation *op, const RankContext &context,
                                 ArrayRef<int64_t> axes) {
  if (failed(verifyAxes(op, context, axes, "mesh_axes")))
    return failure();
  if (axes.empty())
    return op->emitOpError("has an empty group (no mesh_axes)");
  return success();
}

/// The extents of a split along `dim` (named `kind` in messages, e.g.
/// "split "): one per group member, summing to `whole`'s dim, and each class
/// rank's own extent equal to `block`'s dim.
static LogicalResult verifyExtents(Operation *op, const RankContext &context,
                                   ArrayRef<int64_t> axes, StringRef kind,
                                   int64_t dim, ArrayRef<int64_t> extents,
                                   MemRefType block, MemRefType whole) {
  int64_t members = context.groupSize(axes);
  if (int64_t(extents.size()) != members)
    return op->emitOpError("lists ") << extents.size() << " " << kind
                                     << "extents for a group of " << members;
  int64_t total = 0;
  for (int64_t e : extents) {
    if (e < 0)
      return op->emitOpError("has a negative ") << kind << "extent " << e;
    total += e;
  }
  if (total != whole.getDimSize(dim))
    return op->emitOpError()
           << kind << "extents sum to " << total << " but dim " << dim << " of "
           << whole << " is " << whole.getDimSize(dim);
  for (int32_t rank : context.ranks) {
    int64_t position = context.groupPosition(axes, rank);
    if (extents[position] != block.getDimSize(dim))
      return op->emitOpError("block of rank ")
             << rank << " (member " << position << ") has " << kind << "extent "
             << extents[position] << " but its buffer " << block << " has "
             << block.getDimSize(dim);
  }
  return success();
}

/// `a` and `b` have one element type and agree on every dim but `skip`.
static LogicalResult verifyAlike(Operation *op, MemRefType a, MemRefType b,
                                 ArrayRef<int64_t> skip) {
  if (a.getElementType() != b.getElementType())
    return op->emitOpError("mixes element types ")
           << a.getElementType() << " and " << b.getElementType();
  for (int64_t d = 0; d < b.getRank(); ++d)
    if (!llvm::is_contained(skip, d) && a.getDimSize(d) != b.getDimSize(d))
      return op->emitOpError("dim ")
             << d << " differs between " << a << " and " << b;
  return success();
}

/// Gather and scatter: the whole side along `dim` is the extents' sum, the
/// block side holds every class rank's own extent; other dims agree.
static LogicalResult verifyBlocks(Operation *op, const RankContext &context,
                                  ArrayRef<int64_t> axes, int64_t dim,
                                  ArrayRef<int64_t> extents, MemRefType block,
                                  MemRefType whole) {
  if (block.getRank() != whole.getRank() || dim < 0 || dim >= whole.getRank())
    return op->emitOpError("dim ")
           << dim << " must be a dim of both " << block << " and " << whole;
  if (failed(verifyAlike(op, block, whole, {dim})))
    return failure();
  return verifyExtents(op, context, axes, "", dim, extents, block, whole);
}

LogicalResult AllReduceOp::verify() {
  FailureOr<RankContext> context = rankContextOf(*this);
  if (failed(context) || failed(verifyGroup(*this, *context, getMeshAxes())))
    return failure();
  if (getInput().getType() != getOutput().getType())
    return emitOpError("reduces ")
           << getInput().getType() << " into " << getOutput().getType();
  return success();
}

LogicalResult AllGatherOp::verify() {
  FailureOr<RankContext> context = rankContextOf(*this);
  if (failed(context) || failed(verifyGroup(*this, *context, getMeshAxes())))
    return failure();
  return verifyBlocks(*this, *context, getMeshAxes(), getDim(), getExtents(),
                      getInput().getType(), getOutput().getType());
}

LogicalResult ReduceScatterOp::verify() {
  FailureOr<RankContext> context = rankContextOf(*this);
  if (failed(context) || failed(verifyGroup(*this, *context, getMeshAxes())))
    return failure();
  return verifyBlocks(*this, *context, getMeshAxes(), getDim(), getExtents(),
                      getOutput().getType(), getInput().getType());
}

/// Checks the `what` starts of a ring's split over the group on `axes`:
/// one per member, then the end; from 0, not decreasing; and each class
/// rank's block `rows` long (`block` names the buffer and `plural` its
/// rows in messages).
static LogicalResult verifyRingStarts(Operation *op, const RankContext &context,
                                      ArrayRef<int64_t> axes,
                                      ArrayRef<int64_t> starts, StringRef what,
                                      StringRef plural, MemRefType block,
                                      int64_t rows) {
  int64_t members = context.groupSize(axes);
  if (int64_t(starts.size()) != members + 1)
    return op->emitOpError("lists ")
           << starts.size() << " " << what << " starts for a group of "
           << members << " (one per member, then the end)";
  if (starts.front() != 0)
    return op->emitOpError() << what << " starts must begin at 0";
  for (size_t i = 1; i < starts.size(); ++i)
    if (starts[i] < starts[i - 1])
      return op->emitOpError()
             << what << " starts decrease at member " << i - 1;
  for (int32_t rank : context.ranks) {
    int64_t at = context.groupPosition(axes, rank);
    if (rows != starts[at + 1] - starts[at])
      return op->emitOpError("rank ")
             << rank << " holds " << plural << " [" << starts[at] << ", "
             << starts[at + 1] << ") but its " << what << " block " << block
             << " has " << rows << " rows";
  }
  return success();
}

LogicalResult RingAttentionOp::verify() {
  FailureOr<RankContext> context = rankContextOf(*this);
  if (failed(context) || failed(verifyGroup(*this, *context, getMeshAxes())))
    return failure();
  MemRefType q = getQuery().getType(), k = getKey().getType(),
             v = getValue().getType(), out = getOutput().getType();
  for (MemRefType t : {q, k, v, out})
    if (t.getRank() < 2 || !t.getElementType().isF32())
      return emitOpError("needs f32 buffers with a sequence and a feature "
                         "dim; got ")
             << t;
  auto rows = [](MemRefType t) { return t.getDimSize(t.getRank() - 2); };
  auto features = [](MemRefType t) { return t.getDimSize(t.getRank() - 1); };
  ArrayRef<int64_t> starts = getKeyStarts();
  if (failed(verifyRingStarts(*this, *context, getMeshAxes(), starts, "key",
                              "keys", k, rows(k))))
    return failure();
  if (bool(getQueryAxes()) != bool(getQueryStarts()) ||
      getIsCausal() != bool(getQueryAxes()))
    return emitOpError("takes query_axes and query_starts when causal, and "
                       "only then");
  if (getIsCausal() &&
      (failed(verifyAxes(*this, *context, *getQueryAxes(), "query_axes")) ||
       failed(verifyRingStarts(*this, *context, *getQueryAxes(),
                               *getQueryStarts(), "query", "queries", q,
                               rows(q)))))
    return failure();
  if (features(k) != features(q))
    return emitOpError("contracts ") << q << " with keys " << k;
  if (getValuesAreKeys() && (getValuesWhole() || getKey() != getValue()))
    return emitOpError("values_are_keys needs the keys as the values");
  if (rows(out) != rows(q) || features(out) != features(v))
    return emitOpError("writes ")
           << out << " for queries " << q << " and values " << v;
  if (int64_t values = getValuesWhole() ? starts.back() : rows(k);
      rows(v) != values)
    return emitOpError("values ") << v << " need " << values << " rows";
  if (Value mask = getMask()) {
    auto m = cast<MemRefType>(mask.getType());
    if (m.getRank() < 2 || !m.getElementType().isF32() ||
        (rows(m) != 1 && rows(m) != rows(q)) ||
        (features(m) != 1 && features(m) != starts.back()))
      return emitOpError("adds a mask ")
             << m << "; it must be f32, its last dims 1 or the queries, and "
             << "1 or every key (" << starts.back() << ")";
  }
  return success();
}

LogicalResult AllToAllOp::verify() {
  FailureOr<RankContext> context = rankContextOf(*this);
  if (failed(context) || failed(verifyGroup(*this, *context, getMeshAxes())))
    return failure();
  MemRefType in = getInput().getType(), out = getOutput().getType();
  int64_t split = getSplitDim(), concat = getConcatDim();
  if (in.getRank() != out.getRank())
    return emitOpError("maps rank-") << in.getRank() << " " << in << " to rank-"
                                     << out.getRank() << " " << out;
  for (int64_t d : {split, concat})
    if (d < 0 || d >= in.getRank())
      return emitOpError("dim ") << d << " is not a dim of " << in;
  if (split == concat)
    return emitOpError("splits and concatenates the same dim ") << split;
  if (failed(verifyAlike(*this, in, out, {split, concat})) ||
      failed(verifyExtents(*this, *context, getMeshAxes(), "split ", split,
                           getSplitExtents(), out, in)))
    return failure();
  return verifyExtents(*this, *context, getMeshAxes(), "concat ", concat,
                       getConcatExtents(), in, out);
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

LogicalResult GlobalOp::verify() {
  if (getShards().empty())
    return emitOpError("has no shards");
  llvm::SmallDenseSet<int32_t> seen;
  for (ShardAttr s : getShards().getAsRange<ShardAttr>()) {
    Type elem = s.getValue().getElementType();
    if (!elem.isF32() && !elem.isInteger(1))
      return emitOpError("holds ")
             << elem
             << "; constants are f32 or i1 (sc-compute-in-f32 makes a 16-bit "
                "constant an f32 one)";
    if (s.getRanks().empty())
      return emitOpError("has a shard held by no rank");
    for (int32_t r : s.getRanks()) {
      if (r < 0)
        return emitOpError("gives a shard to rank ") << r;
      if (!seen.insert(r).second)
        return emitOpError("gives rank ") << r << " two shards";
    }
  }
  return success();
}

LogicalResult ConstantOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto global =
      symbolTable.lookupNearestSymbolFrom<GlobalOp>(*this, getNameAttr());
  if (!global)
    return emitOpError("reads ") << getNameAttr() << ", which is no scl.global";
  FailureOr<RankContext> context = rankContextOf(*this);
  if (failed(context))
    return failure();
  MemRefType type = getResult().getType();
  // A replicated constant's one shard lists every rank. A class of many
  // ranks indexes the shards once (a search per rank would cost ranks^2 on
  // a big mesh); a class of a few searches them instead, which allocates
  // nothing (thousands of one-rank classes still scan about ranks^2 / 2
  // entries in all, but an index each cost several times that).
  constexpr size_t kSearchedRanks = 8;
  auto shards = global.getShards().getAsRange<ShardAttr>();
  llvm::DenseMap<int32_t, ShardAttr> shardOfRank;
  if (context->ranks.size() > kSearchedRanks)
    for (ShardAttr s : shards)
      for (int32_t rank : s.getRanks())
        shardOfRank.try_emplace(rank, s);
  auto shardOf = [&](int32_t rank) {
    if (context->ranks.size() > kSearchedRanks)
      return shardOfRank.lookup(rank);
    for (ShardAttr s : shards)
      if (llvm::is_contained(s.getRanks(), rank))
        return s;
    return ShardAttr();
  };
  for (int32_t rank : context->ranks) {
    ShardAttr shard = shardOf(rank);
    if (!shard)
      return emitOpError("runs on rank ")
             << rank << ", which holds no shard of " << getNameAttr();
    ShapedType value = shard.getValue().getType();
    if (value.getShape() != type.getShape() ||
        value.getElementType() != type.getElementType())
      return emitOpError("reads ")
             << value << " on rank " << rank << " as " << type;
  }
  return success();
}
