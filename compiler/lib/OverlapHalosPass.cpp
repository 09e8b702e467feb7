//===- OverlapHalosPass.cpp - sc-overlap-halos ----------------------------===//
//
// Splits the convolution that consumes a halo exchange into the output box
// that reads only the rank's own data (the interior) and the slabs around it
// that read the halo (the boundary), so that the interior is computed while
// the halo is in flight: the exchange only starts, the interior runs, an
// scl.wait completes the exchange, and the boundary runs. Any other
// exchange with work before its outputs' first reader (a ring attention's
// pass of the next block) starts where it was and completes just before
// that reader.
//
//===----------------------------------------------------------------------===//

#include "ConvGeometry.h"
#include "FusedBuffers.h"
#include "shardc/Compiler/Passes.h"
#include "shardc/Dialect/ScLocal/ScLocal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

namespace shardc {
#define GEN_PASS_DEF_SCOVERLAPHALOS
#include "shardc/Compiler/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace shardc {
namespace {

/// A box per dim: [lo, hi).
struct Box {
  SmallVector<int64_t> lo, hi;
  int64_t volume() const {
    int64_t v = 1;
    for (size_t d = 0; d < lo.size(); ++d)
      v *= std::max<int64_t>(hi[d] - lo[d], 0);
    return v;
  }
};

/// The part of the exchange's output that its receives leave alone: each
/// receive box is cut off along the spatial dim (>= 2) where it is a thin
/// slab at an edge. Fails when a receive is not such a slab.
FailureOr<Box> ownedBox(scl::HaloExchangeOp x, ArrayRef<int64_t> shape) {
  Box own{SmallVector<int64_t>(shape.size(), 0),
          SmallVector<int64_t>(shape.begin(), shape.end())};
  for (auto t : x.getTransfers().getAsRange<scl::TransferAttr>()) {
    if (t.isSend())
      continue;
    int64_t best = -1, bestExtent = 0;
    for (size_t d = 2; d < shape.size(); ++d) {
      int64_t lo = t.getLo()[d], hi = t.getHi()[d], n = shape[d];
      bool atEdge = (lo == 0) != (hi == n);
      if (atEdge && hi > lo && (best < 0 || hi - lo < bestExtent)) {
        best = int64_t(d);
        bestExtent = hi - lo;
      }
    }
    if (best < 0)
      return failure();
    if (t.getLo()[best] == 0)
      own.lo[best] = std::max(own.lo[best], t.getHi()[best]);
    else
      own.hi[best] = std::min(own.hi[best], t.getLo()[best]);
  }
  return own;
}

/// The output box (spatial dims) whose windows read only `own` of the
/// input, or of the virtual zero padding outside the input.
Box interiorOutputs(const ConvGeometry &g, const Box &own,
                    ArrayRef<int64_t> input, ArrayRef<int64_t> output) {
  Box box;
  for (int64_t d = 0; d < g.r; ++d) {
    int64_t n = input[d + 2], out = output[d + 2];
    int64_t span = g.dilation[d] * (g.kernel[d] - 1);
    int64_t lo = 0, hi = out;
    if (own.lo[d + 2] > 0)
      lo = llvm::divideCeilSigned(own.lo[d + 2] + g.padLo[d], g.stride[d]);
    if (own.hi[d + 2] < n)
      hi = llvm::divideFloorSigned(own.hi[d + 2] - 1 + g.padLo[d] - span,
                                   g.stride[d]) +
           1;
    lo = std::clamp<int64_t>(lo, 0, out);
    box.lo.push_back(lo);
    box.hi.push_back(std::clamp<int64_t>(hi, lo, out));
  }
  return box;
}

/// The output minus `interior`, as at most two slabs per dim: below and
/// above the interior along d, within the interior on the dims before d.
SmallVector<Box> boundaryOutputs(const Box &interior,
                                 ArrayRef<int64_t> output) {
  SmallVector<Box> slabs;
  size_t r = interior.lo.size();
  for (size_t d = 0; d < r; ++d)
    for (bool below : {true, false}) {
      Box slab;
      for (size_t e = 0; e < r; ++e) {
        int64_t out = output[e + 2];
        if (e < d) {
          slab.lo.push_back(interior.lo[e]);
          slab.hi.push_back(interior.hi[e]);
        } else if (e > d) {
          slab.lo.push_back(0);
          slab.hi.push_back(out);
        } else {
          slab.lo.push_back(below ? 0 : interior.hi[e]);
          slab.hi.push_back(below ? interior.lo[e] : out);
        }
      }
      if (slab.volume() > 0)
        slabs.push_back(std::move(slab));
    }
  return slabs;
}

/// The first op after `x` in its block that uses `v`.
Operation *firstUseAfter(Operation *x, Value v) {
  for (Operation *op = x->getNextNode(); op; op = op->getNextNode())
    if (llvm::is_contained(op->getOperands(), v))
      return op;
  return nullptr;
}

/// Whether communication lies strictly between `first` and `last`. It would
/// then run while the exchange is in flight: a communicator that posts
/// point-to-point transfers only when waited on (NCCL groups them) would
/// leave a peer that kept its blocking exchange waiting for this one.
bool communicatesBetween(Operation *first, Operation *last) {
  for (Operation *op = first->getNextNode(); op && op != last;
       op = op->getNextNode())
    if (scl::communicates(op))
      return true;
  return false;
}

struct OverlapHalos : impl::ScOverlapHalosBase<OverlapHalos> {
  using ScOverlapHalosBase::ScOverlapHalosBase;

  /// Splits the conv consuming `x`'s output; false when it does not apply
  /// or would not pay.
  bool overlap(scl::HaloExchangeOp x) {
    if (x.getPending() || x.getOuts().size() != 1)
      return false;
    Value halo = x.getOuts()[0];
    auto conv = dyn_cast_or_null<scl::KernelOp>(firstUseAfter(x, halo));
    if (!conv || conv.getOpcode() != "Conv" || conv.getIns().empty() ||
        conv.getIns()[0] != halo || communicatesBetween(x, conv) ||
        llvm::is_contained(conv.getOuts(), halo) ||
        llvm::count(conv.getIns(), halo) != 1)
      return false;
    std::optional<ConvGeometry> g = convGeometry(conv);
    if (!g)
      return false;
    ArrayRef<int64_t> input = cast<MemRefType>(halo.getType()).getShape();
    ArrayRef<int64_t> output =
        cast<MemRefType>(conv.getOuts()[0].getType()).getShape();
    FailureOr<Box> own = ownedBox(x, input);
    if (failed(own))
      return false;
    Box interior = interiorOutputs(*g, *own, input, output);
    int64_t whole = 1;
    for (int64_t d = 0; d < g->r; ++d)
      whole *= output[d + 2];
    // Cost model: the interior must be most of the work, so that it can hide
    // the transfer and the boundary pieces stay few and cheap.
    if (interior.volume() * 2 < whole || interior.volume() == whole)
      return false;

    OpBuilder b(x);
    auto started = scl::HaloExchangeOp::create(
        b, x.getLoc(), scl::PendingType::get(x.getContext()), x.getIns(),
        x.getOuts(), x.getTransfers());
    x.erase();
    b.setInsertionPoint(conv);
    auto part = [&](const Box &box) {
      SmallVector<int64_t> ints(conv.getInts());
      ints.append(box.lo.begin(), box.lo.end());
      ints.append(box.hi.begin(), box.hi.end());
      scl::KernelOp::create(b, conv.getLoc(), conv.getOpcodeAttr(),
                            conv.getIns(), conv.getOuts(),
                            b.getDenseI64ArrayAttr(ints), conv.getFloatsAttr(),
                            conv.getModeAttr(), conv.getMeshAxesAttr());
    };
    part(interior);
    scl::WaitOp::create(b, conv.getLoc(), started.getPending(),
                        started.getOuts());
    for (const Box &slab : boundaryOutputs(interior, output))
      part(slab);
    conv.erase();
    return true;
  }

  /// Starts `x` and moves its completion down to the first op that uses one
  /// of its outputs, so that the work in between hides the transfer (a
  /// ring's pass of the next block behind the current block's attention);
  /// false when no compute lies between. The sends are packed at the
  /// start, so the ops in between may even overwrite the inputs.
  bool defer(scl::HaloExchangeOp x) {
    if (x.getPending() || x.getOuts().empty())
      return false;
    ValueRange outs = x.getOuts();
    // A view aliases its source: an op reading a view of an output would
    // not show up as one of its users.
    auto viewed = [](Value v) {
      return v.getDefiningOp<scl::ViewOp>() ||
             llvm::any_of(v.getUsers(),
                          [](Operation *u) { return isa<scl::ViewOp>(u); });
    };
    if (llvm::any_of(outs, viewed))
      return false;
    Operation *reader = x->getNextNode();
    bool computes = false;
    for (; reader; reader = reader->getNextNode()) {
      if (llvm::any_of(reader->getOperands(),
                       [&](Value v) { return llvm::is_contained(outs, v); }))
        break;
      computes =
          computes ||
          isa<scl::KernelOp, scl::FusedElementwiseOp, scl::FusedReductionOp>(
              reader);
    }
    if (!reader || !computes || communicatesBetween(x, reader))
      return false;
    OpBuilder b(x);
    auto started = scl::HaloExchangeOp::create(
        b, x.getLoc(), scl::PendingType::get(x.getContext()), x.getIns(), outs,
        x.getTransfers());
    x.erase();
    b.setInsertionPoint(reader);
    scl::WaitOp::create(b, started.getLoc(), started.getPending(),
                        started.getOuts());
    return true;
  }

  void runOnOperation() override {
    for (func::FuncOp f : rankClassFunctions(getOperation())) {
      SmallVector<scl::HaloExchangeOp> exchanges;
      f.walk([&](scl::HaloExchangeOp x) { exchanges.push_back(x); });
      for (scl::HaloExchangeOp x : exchanges)
        if (!overlap(x))
          defer(x);
    }
  }
};

} // namespace
} // namespace shardc
