//===- DeepenHalosPass.cpp - sc-deepen-halos ------------------------------===//
//
// Folds the halo exchange in front of a second stencil op into the exchange
// in front of the convolution before it: the first exchange brings a deeper
// halo, the convolution and the elementwise chain after it compute the
// neighbours' rows the second op reads (recomputing them), and the second
// pad and exchange go away.
//
// Every transfer has two ends in two rank classes, so a pair of exchanges is
// analysed in every class of the entry and rewritten in all or none.
//
//===----------------------------------------------------------------------===//

#include "ConvGeometry.h"
#include "shardc/Compiler/Passes.h"
#include "shardc/Dialect/ScLocal/ScLocal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace shardc {
#define GEN_PASS_DEF_SCDEEPENHALOS
#include "shardc/Compiler/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace shardc {
namespace {

enum Side { Lo = 0, Hi = 1 };

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<MemRefType>(v.getType()).getShape();
}

int64_t bytesPerElement(Value v) {
  auto t = cast<MemRefType>(v.getType());
  return std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
}

/// `v` with `grow` more elements along `dim`.
MemRefType grown(Value v, int64_t dim, int64_t grow) {
  auto t = cast<MemRefType>(v.getType());
  SmallVector<int64_t> shape(t.getShape());
  shape[dim] += grow;
  return MemRefType::get(shape, t.getElementType(), t.getLayout(),
                         t.getMemorySpace());
}

/// An exchange of edge slabs along one spatial dim with the nearest
/// neighbour on each side: per side at most one receive (a slab at that
/// edge of the output) and one send (a slab at that edge of the input).
struct SlabExchange {
  int64_t dim = -1;
  std::optional<scl::TransferAttr> recv[2], send[2];

  int64_t recvDepth(int s) const {
    return recv[s] ? recv[s]->getHi()[dim] - recv[s]->getLo()[dim] : 0;
  }
  int64_t sendDepth(int s) const {
    return send[s] ? send[s]->getHi()[dim] - send[s]->getLo()[dim] : 0;
  }
  int64_t recvBytes(Value out) const {
    int64_t n = 0;
    for (int s : {Lo, Hi})
      if (recv[s]) {
        int64_t v = 1;
        for (size_t d = 0; d < recv[s]->getLo().size(); ++d)
          v *= recv[s]->getHi()[d] - recv[s]->getLo()[d];
        n += v;
      }
    return n * bytesPerElement(out);
  }
};

FailureOr<SlabExchange> slabExchange(scl::HaloExchangeOp x) {
  if (x.getPending() || x.getIns().size() != 1 || x.getOuts().size() != 1)
    return failure();
  ArrayRef<int64_t> in = shapeOf(x.getIns()[0]), out = shapeOf(x.getOuts()[0]);
  if (in.size() != out.size())
    return failure();
  SlabExchange slabs;
  for (auto t : x.getTransfers().getAsRange<scl::TransferAttr>()) {
    ArrayRef<int64_t> extent = t.isSend() ? in : out;
    if (t.getPeriodic() || t.isSelf() || t.getOperand() != 0 ||
        llvm::count_if(t.getPeer(), [](int64_t p) { return p != 0; }) != 1 ||
        llvm::any_of(t.getPeer(), [](int64_t p) { return std::abs(p) > 1; }))
      return failure();
    // The one dim where the box is not the whole extent.
    int64_t dim = -1;
    for (size_t d = 0; d < extent.size(); ++d)
      if (t.getLo()[d] != 0 || t.getHi()[d] != extent[d]) {
        if (dim >= 0)
          return failure();
        dim = int64_t(d);
      }
    if (dim < 2 || (slabs.dim >= 0 && dim != slabs.dim))
      return failure();
    slabs.dim = dim;
    bool atLo = t.getLo()[dim] == 0, atHi = t.getHi()[dim] == extent[dim];
    if (atLo == atHi || t.getLo()[dim] >= t.getHi()[dim])
      return failure();
    auto &slot = (t.isSend() ? slabs.send : slabs.recv)[atLo ? Lo : Hi];
    if (slot)
      return failure();
    slot = t;
  }
  if (slabs.dim < 0)
    return failure();
  for (size_t d = 0; d < in.size(); ++d)
    if (int64_t(d) != slabs.dim && in[d] != out[d])
      return failure();
  for (int s : {Lo, Hi})
    if (slabs.recv[s] && slabs.send[s] &&
        slabs.recv[s]->getPeer() != slabs.send[s]->getPeer())
      return failure();
  return slabs;
}

/// `pad` is a zero Pad of `from` into `to` that adds `lo` and `hi` elements
/// along `dim` and nothing elsewhere.
bool padsHalo(scl::KernelOp pad, Value from, Value to, int64_t dim, int64_t lo,
              int64_t hi) {
  if (pad.getOpcode() != "Pad" || pad.getMode() != "constant" ||
      pad.getIns().size() != 1 || pad.getIns()[0] != from ||
      pad.getOuts().size() != 1 || pad.getOuts()[0] != to ||
      llvm::any_of(pad.getFloats(), [](double f) { return f != 0.0; }))
    return false;
  ArrayRef<int64_t> ints = pad.getInts();
  size_t rank = shapeOf(from).size();
  if (ints.size() != 2 * rank)
    return false;
  for (size_t d = 0; d < rank; ++d) {
    bool split = int64_t(d) == dim;
    if (ints[d] != (split ? lo : 0) || ints[rank + d] != (split ? hi : 0))
      return false;
  }
  return true;
}

/// The Pad kernel among `buffer`'s users that writes it from `from`.
scl::KernelOp padWriting(Value buffer, Value from) {
  for (Operation *user : buffer.getUsers())
    if (auto k = dyn_cast<scl::KernelOp>(user))
      if (k.getOpcode() == "Pad" && llvm::is_contained(k.getOuts(), buffer) &&
          llvm::is_contained(k.getIns(), from))
        return k;
  return {};
}

/// `a` comes before `b` in one block (users may sit in nested regions).
bool before(Operation *a, Operation *b) {
  return a->getBlock() == b->getBlock() && a->isBeforeInBlock(b);
}

/// An elementwise kernel the grown rows can run through unchanged (what
/// sc-fuse fuses, or what it fused).
bool isElementwise(Operation *op) {
  if (isa<scl::FusedElementwiseOp>(op))
    return true;
  auto k = dyn_cast<scl::KernelOp>(op);
  return k && scl::elementwiseFunction(k).has_value();
}

SmallVector<Value> insOf(Operation *op) {
  if (auto f = dyn_cast<scl::FusedElementwiseOp>(op))
    return SmallVector<Value>(f.getIns());
  return SmallVector<Value>(cast<scl::KernelOp>(op).getIns());
}

Value outOf(Operation *op) {
  if (auto f = dyn_cast<scl::FusedElementwiseOp>(op))
    return f.getOutput();
  return cast<scl::KernelOp>(op).getOuts()[0];
}

/// `in` broadcasts (numpy rules) to `out` without reading along `dim`.
bool broadcastsAlong(Value in, Value out, int64_t dim) {
  ArrayRef<int64_t> a = shapeOf(in), b = shapeOf(out);
  if (a.size() > b.size())
    return false;
  int64_t aligned = dim - int64_t(b.size() - a.size());
  return aligned < 0 || a[aligned] == 1;
}

/// One pair of exchanges in one rank class, and how to deepen it.
struct Pair {
  scl::HaloExchangeOp first, second;
  SlabExchange firstSlabs, secondSlabs;
  scl::KernelOp firstPad, conv, secondPad;
  /// The conv's output and the chain's outputs: they grow along the dim.
  SmallVector<Value> grownValues;
  int64_t dim = -1;
  /// Rows added before / after the rank's own rows (the second exchange's
  /// receive depths), and to the sends towards each side.
  int64_t recvGrow[2] = {0, 0}, sendGrow[2] = {0, 0};
  double savedUs = 0, extraUs = 0;
};

/// Analyses the exchange pair; failure when the rewrite does not apply.
FailureOr<Pair> analyse(scl::HaloExchangeOp first, scl::HaloExchangeOp second) {
  Pair p;
  p.first = first;
  p.second = second;
  FailureOr<SlabExchange> a = slabExchange(first), b = slabExchange(second);
  if (failed(a) || failed(b) || a->dim != b->dim ||
      first->getBlock() != second->getBlock())
    return failure();
  p.firstSlabs = *a;
  p.secondSlabs = *b;
  int64_t dim = p.dim = a->dim;

  // The first exchange: Pad(x -> halo), exchange, Conv(halo).
  Value x = first.getIns()[0], halo = first.getOuts()[0];
  if (!halo.getDefiningOp<memref::AllocOp>())
    return failure();
  p.firstPad = padWriting(halo, x);
  if (!p.firstPad || !before(p.firstPad, first) ||
      !padsHalo(p.firstPad, x, halo, dim, a->recvDepth(Lo), a->recvDepth(Hi)))
    return failure();
  for (Operation *user : halo.getUsers()) {
    if (user == p.firstPad || user == first)
      continue;
    auto k = dyn_cast<scl::KernelOp>(user);
    if (p.conv || !k || k.getOpcode() != "Conv" || k.getIns()[0] != halo ||
        llvm::count(k->getOperands(), halo) != 1 || !before(first, k))
      return failure();
    p.conv = k;
  }
  std::optional<ConvGeometry> g =
      p.conv ? convGeometry(p.conv) : std::optional<ConvGeometry>();
  if (!g || g->stride[dim - 2] != 1 || !before(p.conv, second))
    return failure();
  Value convOut = p.conv.getOuts()[0];
  int64_t ownRows = shapeOf(x)[dim];
  // `same` padding: the conv's output rows are its input's own rows.
  if (!convOut.getDefiningOp<memref::AllocOp>() ||
      shapeOf(convOut)[dim] != ownRows)
    return failure();

  // The elementwise chain from the conv's output to the second exchange.
  llvm::SmallPtrSet<Operation *, 8> chain;
  llvm::DenseSet<Value> grows{convOut};
  p.grownValues.push_back(convOut);
  for (Operation *op = p.conv->getNextNode(); op != second;
       op = op->getNextNode()) {
    SmallVector<Value> ins =
        isElementwise(op) ? insOf(op) : SmallVector<Value>();
    if (llvm::none_of(op->getOperands(),
                      [&](Value v) { return grows.contains(v); }))
      continue;
    if (!isElementwise(op)) {
      if (op == padWriting(second.getOuts()[0], second.getIns()[0]))
        continue; // the second pad, checked below
      return failure();
    }
    Value out = outOf(op);
    if (grows.contains(out) || !out.getDefiningOp<memref::AllocOp>() ||
        shapeOf(out).size() != shapeOf(convOut).size() ||
        shapeOf(out)[dim] != ownRows)
      return failure();
    for (Value in : ins)
      if (!grows.contains(in) && !broadcastsAlong(in, out, dim))
        return failure();
    chain.insert(op);
    grows.insert(out);
    p.grownValues.push_back(out);
  }

  // The second exchange: Pad(s -> halo2), exchange, then only readers.
  Value s = second.getIns()[0], halo2 = second.getOuts()[0];
  if (!grows.contains(s) || !halo2.getDefiningOp<memref::AllocOp>())
    return failure();
  p.secondPad = padWriting(halo2, s);
  if (!p.secondPad || !before(p.conv, p.secondPad) ||
      !before(p.secondPad, second) ||
      !padsHalo(p.secondPad, s, halo2, dim, b->recvDepth(Lo), b->recvDepth(Hi)))
    return failure();
  for (Operation *user : halo2.getUsers()) {
    if (user == p.secondPad || user == second)
      continue;
    bool reads = false;
    if (auto k = dyn_cast<scl::KernelOp>(user))
      reads = !llvm::is_contained(k.getOuts(), halo2);
    else if (auto f = dyn_cast<scl::FusedElementwiseOp>(user))
      reads = f.getOutput() != halo2;
    if (!reads || !before(second, user))
      return failure();
  }
  // Nothing else may see a grown buffer.
  for (Value v : grows)
    for (Operation *user : v.getUsers())
      if (user != p.conv && user != p.secondPad && user != second &&
          !chain.contains(user))
        return failure();

  // The first exchange must reach every side the second does, and a
  // neighbour must own the deeper rows it is asked for.
  for (int side : {Lo, Hi}) {
    p.recvGrow[side] = b->recvDepth(side);
    p.sendGrow[side] = b->sendDepth(side);
    if (p.recvGrow[side] && (!a->recv[side] || a->recv[side]->getPeer() !=
                                                   b->recv[side]->getPeer()))
      return failure();
    if (p.sendGrow[side] &&
        (!a->send[side] ||
         a->send[side]->getPeer() != b->send[side]->getPeer() ||
         a->sendDepth(side) + p.sendGrow[side] > ownRows))
      return failure();
  }
  return p;
}

/// Weighs the pair in `p` with the pass's rates (see the pass description).
void estimate(Pair &p, double latencyUs, double bytesPerUs, double flopsPerUs) {
  Value halo = p.first.getOuts()[0], convOut = p.conv.getOuts()[0];
  int64_t grow = p.recvGrow[Lo] + p.recvGrow[Hi];
  int64_t secondBytes = p.secondSlabs.recvBytes(p.second.getOuts()[0]);
  p.savedUs = (secondBytes ? latencyUs : 0.0) + secondBytes / bytesPerUs;
  ArrayRef<int64_t> in = shapeOf(halo), out = shapeOf(convOut);
  int64_t rowElems = 1;
  for (size_t d = 0; d < in.size(); ++d)
    if (int64_t(d) != p.dim)
      rowElems *= in[d];
  double extraBytes = double(grow * rowElems * bytesPerElement(halo));
  ConvGeometry g = *convGeometry(p.conv);
  double macsPerOutput = double(in[1] / g.groups);
  for (int64_t k : g.kernel)
    macsPerOutput *= double(k);
  double outputs = double(out[0] * out[1] * grow);
  for (size_t d = 2; d < out.size(); ++d)
    if (int64_t(d) != p.dim)
      outputs *= double(out[d]);
  p.extraUs =
      extraBytes / bytesPerUs + 2.0 * macsPerOutput * outputs / flopsPerUs;
}

/// Whether both ends of every transfer of the pairs agree across classes.
/// The pass matches the k-th exchanges of the classes by position, and a
/// deepened send must meet a receive deepened by as much: for every rank of
/// every class, its neighbour on each side (in its own class's pair) must
/// receive on the facing side, from the opposite peer and with the same
/// tag, as many rows as this rank sends there, in the first exchange and in
/// the second; and a rank may receive only from a neighbour that sends.
bool endsAgree(ArrayRef<Pair> pairs) {
  SmallVector<scl::RankContext> contexts;
  llvm::DenseMap<int64_t, size_t> classOfRank;
  for (const Pair &p : pairs) {
    FailureOr<scl::RankContext> c = scl::rankContextOf(p.first);
    if (failed(c) || c->meshShape.empty())
      return false;
    for (int32_t r : c->ranks)
      classOfRank[r] = contexts.size();
    contexts.push_back(std::move(*c));
  }
  // The class pair and rank `offset` away from `rank` on the mesh (none
  // past the mesh's edge).
  auto neighbour = [&](int64_t rank, ArrayRef<int64_t> offset,
                       const scl::RankContext &c) -> std::optional<size_t> {
    SmallVector<int64_t> at = c.coords(rank);
    int64_t flat = 0;
    for (size_t a = 0; a < at.size(); ++a) {
      at[a] += offset[a];
      if (at[a] < 0 || at[a] >= c.meshShape[a])
        return std::nullopt;
      flat = flat * c.meshShape[a] + at[a];
    }
    auto it = classOfRank.find(flat);
    return it == classOfRank.end() ? std::nullopt
                                   : std::optional<size_t>(it->second);
  };
  auto negated = [](ArrayRef<int64_t> v) {
    return llvm::to_vector(llvm::map_range(v, [](int64_t x) { return -x; }));
  };
  for (size_t i = 0; i < pairs.size(); ++i)
    for (int32_t rank : contexts[i].ranks)
      for (bool second : {false, true}) {
        const SlabExchange &mine =
            second ? pairs[i].secondSlabs : pairs[i].firstSlabs;
        for (int s : {Lo, Hi})
          for (bool send : {true, false}) {
            const std::optional<scl::TransferAttr> &t =
                (send ? mine.send : mine.recv)[s];
            if (!t)
              continue;
            std::optional<size_t> j =
                neighbour(rank, t->getPeer(), contexts[i]);
            if (!j)
              return false;
            const SlabExchange &theirs =
                second ? pairs[*j].secondSlabs : pairs[*j].firstSlabs;
            const std::optional<scl::TransferAttr> &u =
                (send ? theirs.recv : theirs.send)[1 - s];
            int64_t depth = send ? mine.sendDepth(s) : mine.recvDepth(s);
            int64_t facing =
                send ? theirs.recvDepth(1 - s) : theirs.sendDepth(1 - s);
            if (!u || u->getTag() != t->getTag() ||
                u->getPeer() != ArrayRef<int64_t>(negated(t->getPeer())) ||
                theirs.dim != mine.dim || facing != depth)
              return false;
          }
      }
  return true;
}

/// Rewrites one class's pair (see the pass description).
void deepen(Pair &p) {
  MLIRContext *ctx = p.first.getContext();
  int64_t dim = p.dim, grow = p.recvGrow[Lo] + p.recvGrow[Hi];
  Value halo = p.first.getOuts()[0];
  halo.setType(grown(halo, dim, grow));
  int64_t haloRows = shapeOf(halo)[dim];

  SmallVector<int64_t> padInts(p.firstPad.getInts());
  size_t rank = shapeOf(halo).size();
  padInts[dim] += p.recvGrow[Lo];
  padInts[rank + dim] += p.recvGrow[Hi];
  p.firstPad.setIntsAttr(DenseI64ArrayAttr::get(ctx, padInts));

  int64_t ownRows = shapeOf(p.first.getIns()[0])[dim];
  SmallVector<Attribute> transfers;
  for (auto t : p.first.getTransfers().getAsRange<scl::TransferAttr>()) {
    SmallVector<int64_t> lo(t.getLo()), hi(t.getHi());
    int64_t depth = hi[dim] - lo[dim];
    bool atLo = lo[dim] == 0;
    int side = atLo ? Lo : Hi;
    int64_t rows = t.isSend() ? ownRows : haloRows;
    depth += t.isSend() ? p.sendGrow[side] : p.recvGrow[side];
    lo[dim] = atLo ? 0 : rows - depth;
    hi[dim] = atLo ? depth : rows;
    transfers.push_back(scl::TransferAttr::get(ctx, t.getKind(), t.getOperand(),
                                               t.getPeer(), lo, hi, t.getTag(),
                                               t.getPeriodic()));
  }
  p.first.setTransfersAttr(ArrayAttr::get(ctx, transfers));

  for (Value v : p.grownValues)
    v.setType(grown(v, dim, grow));
  Value halo2 = p.second.getOuts()[0], s = p.second.getIns()[0];
  p.second.erase();
  p.secondPad.erase();
  halo2.replaceAllUsesWith(s);
  halo2.getDefiningOp()->erase();
}

struct DeepenHalos : impl::ScDeepenHalosBase<DeepenHalos> {
  using ScDeepenHalosBase::ScDeepenHalosBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto entry : module.getOps<func::FuncOp>()) {
      auto classes = entry->getAttrOfType<ArrayAttr>(
          scl::SclDialect::kRankClassesAttrName);
      if (!classes)
        continue;
      SmallVector<SmallVector<scl::HaloExchangeOp>> exchanges;
      if (failed(exchangesOfClasses(module, classes, exchanges)))
        continue; // classes that differ in shape: nothing to pair up
      size_t count = exchanges.empty() ? 0 : exchanges.front().size();
      for (size_t k = 0; k + 1 < count;)
        k += deepenPair(exchanges, k) ? 2 : 1;
    }
  }

  /// Each class's halo exchanges in program order; fails unless every
  /// class has as many (the k-th are then one logical exchange).
  static LogicalResult
  exchangesOfClasses(ModuleOp module, ArrayAttr classes,
                     SmallVector<SmallVector<scl::HaloExchangeOp>> &exchanges) {
    SymbolTable symbols(module);
    for (auto name : classes.getAsRange<FlatSymbolRefAttr>()) {
      auto f = symbols.lookup<func::FuncOp>(name.getAttr());
      if (!f || f.isExternal())
        return failure();
      exchanges.emplace_back();
      f.walk([&](scl::HaloExchangeOp x) { exchanges.back().push_back(x); });
      if (exchanges.back().size() != exchanges.front().size())
        return failure();
    }
    return success();
  }

  /// Deepens exchange `k` by `k + 1` in every class, or in none.
  bool deepenPair(ArrayRef<SmallVector<scl::HaloExchangeOp>> exchanges,
                  size_t k) {
    std::vector<Pair> pairs;
    bool grows = false;
    for (const SmallVector<scl::HaloExchangeOp> &list : exchanges) {
      FailureOr<Pair> p = analyse(list[k], list[k + 1]);
      if (failed(p))
        return false;
      estimate(*p, latencyUs, gbytesPerS * 1e3, gflops * 1e3);
      if (p->savedUs <= p->extraUs && p->savedUs > 0)
        return false;
      grows = grows || p->recvGrow[Lo] || p->recvGrow[Hi];
      pairs.push_back(std::move(*p));
    }
    if (!grows || !endsAgree(pairs))
      return false;
    for (Pair &p : pairs)
      deepen(p);
    return true;
  }
};

} // namespace
} // namespace shardc
