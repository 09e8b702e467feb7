//===- SinkBiasPass.cpp - sc-sink-bias ------------------------------------===//
//
// A library op's bias becomes an add in the fused kernels that read its
// output. The readers are found through views and reshaping copies (which
// keep the element order), checked all at once, and only then rewritten:
// the bias moves for every reader or for none.
//
//===----------------------------------------------------------------------===//

#include "FusedBuffers.h"
#include "shardrt/artifact/FusedLimits.h"

#include "shardc/Compiler/Passes.h"
#include "shardc/Dialect/ScLocal/ScLocal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

#include <map>

namespace shardc {
#define GEN_PASS_DEF_SCSINKBIAS
#include "shardc/Compiler/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace shardc {
namespace {

/// The output of `k` as (outer, channels, inner) when `k` is a library op
/// whose third input is a bias along those channels.
std::optional<Extents> channelShape(scl::KernelOp k) {
  if (k.getIns().size() != 3 || k.getOuts().size() != 1)
    return std::nullopt;
  Extents out = shapeOf(k.getOuts()[0]);
  Extents bias = shapeOf(k.getIns()[2]);
  if (bias.size() != 1 || !isF32(k.getIns()[2]))
    return std::nullopt;
  StringRef opcode = k.getOpcode();
  if ((opcode == "Conv" || opcode == "ConvTranspose") && out.size() >= 2 &&
      out[1] == bias[0])
    return Extents{out[0], out[1],
                   elementCount(Extents(out.begin() + 2, out.end()))};
  if (opcode == "Linear" && !out.empty() && out.back() == bias[0])
    return Extents{elementCount(out) / std::max<int64_t>(bias[0], 1), bias[0],
                   1};
  return std::nullopt;
}

/// A reader of the biased output in fused form: what it iterates over, what
/// it reads there, and (for a reduction) which dims it reduces.
struct Reader {
  Operation *op;
  SmallVector<Value> ins;
  llvm::SmallDenseSet<unsigned, 2> biased; ///< ins holding the output
  Value out;
  Extents domain;
  std::optional<std::string> kind; ///< the reduction, if one
  SmallVector<int64_t> dims;       ///< reduced, ascending
  /// Over the refinement: each input's shape, and the bias's.
  Extents refinement;
  std::vector<Extents> inShapes;
  Extents biasShape;
};

/// `op` in fused form, or none for an op that cannot take an add in a body.
std::optional<Reader> readerOf(Operation *op) {
  Reader r{op};
  if (auto f = dyn_cast<scl::FusedElementwiseOp>(op)) {
    r.ins.assign(f.getIns().begin(), f.getIns().end());
    r.out = f.getOutput();
    r.domain = shapeOf(r.out);
  } else if (auto f = dyn_cast<scl::FusedReductionOp>(op)) {
    r.ins.assign(f.getIns().begin(), f.getIns().end());
    r.out = f.getOutput();
    r.domain.assign(f.getDomain().begin(), f.getDomain().end());
    r.kind = f.getKind().str();
    r.dims.assign(f.getDims().begin(), f.getDims().end());
  } else if (auto k = dyn_cast<scl::KernelOp>(op)) {
    bool reduce = isFusableReduce(k);
    if (!reduce && !scl::elementwiseFunction(k))
      return std::nullopt;
    r.ins.assign(k.getIns().begin(), k.getIns().end());
    r.out = k.getOuts()[0];
    if (reduce) {
      r.domain = shapeOf(r.ins[0]);
      r.kind = k.getMode()->str();
      r.dims.assign(k.getInts().begin(), k.getInts().end());
      llvm::sort(r.dims);
    } else {
      r.domain = shapeOf(r.out);
    }
  } else {
    return std::nullopt;
  }
  return r;
}

/// Everything that reads the library op's output, through views and
/// reshaping copies of temporaries that only those copies write.
struct Readers {
  llvm::MapVector<Operation *, Reader> byOp;
  SmallVector<scl::ViewOp> views; ///< outer first
  bool ok = true;

  void collect(Value buffer, Operation *writer) {
    for (OpOperand &use : buffer.getUses()) {
      Operation *user = use.getOwner();
      if (user == writer)
        continue;
      if (auto view = dyn_cast<scl::ViewOp>(user)) {
        views.push_back(view);
        collect(view.getResult(), view);
        continue;
      }
      auto k = dyn_cast<scl::KernelOp>(user);
      if (k && isReshape(k) && use.getOperandNumber() == 0) {
        Value copy = k.getOuts()[0];
        if (!copy.getDefiningOp<memref::AllocOp>() || !scl::isTemporary(copy))
          ok = false;
        else
          collect(copy, k);
        continue;
      }
      add(use);
    }
  }

  void add(OpOperand &use) {
    Operation *op = use.getOwner();
    auto it = byOp.find(op);
    if (it == byOp.end()) {
      std::optional<Reader> r = readerOf(op);
      if (!r) {
        ok = false;
        return;
      }
      it = byOp.insert({op, std::move(*r)}).first;
    }
    // Operand numbers count ins first in every reader form.
    unsigned index = use.getOperandNumber();
    if (index >= it->second.ins.size()) {
      ok = false; // written, not read
      return;
    }
    it->second.biased.insert(index);
  }
};

/// Fills `r`'s shapes over the refinement of its space and `channels`.
/// False when the bias cannot be added there: a reader that broadcasts the
/// output, or would need a full-size copy or a view of a returned buffer.
/// (Readers that write the output or a copy of it were refused when they
/// were collected.)
bool planReader(Reader &r, const Extents &channels) {
  // The bias is one more input of the reader's fused kernel.
  if (r.ins.size() >= shardrt::artifact::kMaxFusedInputs)
    return false;
  for (unsigned i : r.biased)
    if (elementCount(shapeOf(r.ins[i])) != elementCount(r.domain))
      return false;
  // None as well when the space and the output differ in size.
  std::optional<Extents> refinement = commonRefinement({r.domain, channels});
  std::optional<Extents> bias =
      refinement
          ? broadcastOnRefinement({channels[1], 1}, channels, *refinement)
          : std::nullopt;
  if (!bias)
    return false;
  Extents squeezed;
  llvm::copy_if(r.domain, std::back_inserter(squeezed),
                [](int64_t n) { return n != 1; });
  if (squeezed == *refinement) {
    // The space already separates channels: it stays, size-1 dims and all.
    r.refinement = r.domain;
    size_t next = 0;
    for (int64_t n : r.domain)
      r.biasShape.push_back(n == 1 ? 1 : (*bias)[next++]);
    for (Value in : r.ins)
      r.inShapes.push_back(shapeOf(in));
    return true;
  }
  r.refinement = std::move(*refinement);
  r.biasShape = std::move(*bias);
  for (Value in : r.ins) {
    std::optional<Extents> shape =
        broadcastOnRefinement(shapeOf(in), r.domain, r.refinement);
    if (!shape || !readsWithoutFullCopy(in, *shape, elementCount(r.domain)))
      return false;
    r.inShapes.push_back(std::move(*shape));
  }
  // An elementwise reader writes its output over the refinement too.
  return r.kind || scl::isTemporary(r.out);
}

/// The refinement dims that the dims `dims` of `shape` span.
SmallVector<int64_t> refinedDims(const Extents &shape,
                                 const Extents &refinement,
                                 ArrayRef<int64_t> dims) {
  // planReader made `refinement` from `shape`: the spans exist.
  std::vector<std::pair<size_t, size_t>> spans =
      *refinementSpans(shape, refinement);
  SmallVector<int64_t> out;
  for (int64_t d : dims)
    for (size_t r = spans[size_t(d)].first; r < spans[size_t(d)].second; ++r)
      out.push_back(int64_t(r));
  return out;
}

/// The reader's body with `bias` added to each biased input, in `region`.
void buildBody(const Reader &r, Region &region, OpBuilder &b) {
  Block *body = b.createBlock(&region);
  for (Value in : r.ins)
    body->addArgument(b.getF32Type(), in.getLoc());
  BlockArgument bias = body->addArgument(b.getF32Type(), r.op->getLoc());
  IRMapping map;
  SmallVector<Value> values;
  for (auto [i, arg] : llvm::enumerate(body->getArguments().drop_back()))
    values.push_back(r.biased.contains(unsigned(i))
                         ? scl::ScalarOp::create(b, r.op->getLoc(),
                                                 b.getF32Type(), "add",
                                                 ValueRange{arg, bias})
                               .getResult()
                         : Value(arg));
  // A fused reader's body, or none for a plain kernel.
  if (r.op->getNumRegions()) {
    Region *old = &r.op->getRegion(0);
    for (auto [arg, value] : llvm::zip(old->front().getArguments(), values))
      map.map(arg, value);
    for (Operation &op : old->front())
      b.clone(op, map);
    return;
  }
  auto k = cast<scl::KernelOp>(r.op);
  std::optional<std::string> fn = scl::elementwiseFunction(k);
  Value result = values.front();
  if (fn && !fn->empty())
    result = scl::ScalarOp::create(b, k.getLoc(), b.getF32Type(), *fn, values);
  scl::YieldOp::create(b, k.getLoc(), result);
}

void rewriteReader(const Reader &r, Value bias) {
  OpBuilder b(r.op);
  SmallVector<Value> ins;
  for (auto [in, shape] : llvm::zip(r.ins, r.inShapes))
    ins.push_back(readAs(in, shape, b));
  ins.push_back(bias);
  Operation *fused;
  if (r.kind) {
    SmallVector<int64_t> dims =
        r.refinement == r.domain ? r.dims
                                 : refinedDims(r.domain, r.refinement, r.dims);
    auto f = scl::FusedReductionOp::create(b, r.op->getLoc(), *r.kind, dims,
                                           r.refinement, ins, r.out);
    fused = f;
  } else {
    auto f = scl::FusedElementwiseOp::create(b, r.op->getLoc(), ins,
                                             readAs(r.out, r.refinement, b));
    fused = f;
  }
  OpBuilder bodyBuilder(fused->getContext());
  buildBody(r, fused->getRegion(0), bodyBuilder);
  r.op->erase();
}

/// Whether every reader is in `k`'s block and nothing from `k` to the last
/// of them writes the bias (the readers may read it, or a view of it,
/// where `k` did).
bool biasKeptUntilReaders(scl::KernelOp k, const Readers &readers) {
  Operation *last = k;
  for (auto &[op, r] : readers.byOp) {
    if (op->getBlock() != k->getBlock())
      return false;
    if (last->isBeforeInBlock(op))
      last = op;
  }
  return !scl::mayWriteBetween(k, last->getNextNode(),
                               scl::aliasesOf(scl::storageOf(k.getIns()[2])));
}

/// Moves the bias of `k` into its readers when all of them can take it.
bool sinkBias(scl::KernelOp k, const Extents &channels) {
  Value out = k.getOuts()[0];
  if (!out.getDefiningOp<memref::AllocOp>() || !scl::isTemporary(out))
    return false;
  Readers readers;
  readers.collect(out, k);
  if (!readers.ok || readers.byOp.empty() || !biasKeptUntilReaders(k, readers))
    return false;
  for (auto &[op, r] : readers.byOp)
    if (!planReader(r, channels))
      return false;
  // The bias in each reader's shape, made where the library op read it:
  // one copy at most (the caller's bias may live outside the arena), and
  // views of it.
  OpBuilder b(k);
  Value bias = k.getIns()[2];
  std::map<Extents, Value> biasIn;
  Value copied;
  for (auto &[op, r] : readers.byOp) {
    // Numpy broadcasting adds the leading 1s.
    Extents shape(llvm::find_if(r.biasShape, [](int64_t n) { return n != 1; }),
                  r.biasShape.end());
    if (shape != shapeOf(bias))
      shape = r.biasShape;
    Value &read = biasIn[shape];
    if (!read) {
      read = readAs(copied ? copied : bias, shape, b, k.getLoc());
      if (read != bias && !copied)
        copied = read;
    }
    rewriteReader(r, read);
  }
  k.getInsMutable().erase(2);
  // The readers now read new views (or copies) of the chain's buffers.
  for (scl::ViewOp view : llvm::reverse(readers.views))
    if (view.getResult().use_empty())
      view.erase();
  return true;
}

struct ScSinkBiasPass : impl::ScSinkBiasBase<ScSinkBiasPass> {
  void runOnOperation() override {
    for (func::FuncOp f : rankClassFunctions(getOperation())) {
      SmallVector<std::pair<scl::KernelOp, Extents>> candidates;
      f.walk([&](scl::KernelOp k) {
        if (std::optional<Extents> channels = channelShape(k))
          candidates.emplace_back(k, std::move(*channels));
      });
      bool changed = false;
      for (auto &[k, channels] : candidates)
        changed |= sinkBias(k, channels);
      if (changed)
        dropMemoryPlan(f);
    }
  }
};

} // namespace
} // namespace shardc
