//===- FusePass.cpp - sc-fuse ---------------------------------------------===//
//
// Producer-consumer fusion of elementwise kernels in rank-class functions.
// Groups grow in program order: a fusable kernel adopts the groups of the
// kernels that wrote its inputs when it is the only reader of those buffers.
// A Reduce that is the only reader of a group's output takes the group in:
// one fused reduction, whose input is never written to memory. A Copy that
// only reshapes joins too: the kernel then runs over a common refinement of
// the group's shapes, reading and writing views of its buffers. With
// lone-kernels, groups of one and Reduces that took no group become fused
// kernels too (the CUDA backend runs only fused kernels natively).
//
// Compares, Selects and casts between f32 and i1 join as functions on bools
// held as 1.0 and 0.0. Fused kernels also read i1 buffers (a mask input
// reads as 1.0 or 0.0), so a masked sum is one fused reduction, and a fused
// elementwise kernel writes them (value != 0), so a mask only leaves the
// body when something else reads it.
//
//===----------------------------------------------------------------------===//

#include "FusedBuffers.h"
#include "shardrt/artifact/FusedLimits.h"

#include "shardc/Compiler/Passes.h"
#include "shardc/Compiler/ShapeRefinement.h"
#include "shardc/Dialect/ScLocal/ScLocal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace shardc {
#define GEN_PASS_DEF_SCFUSE
#include "shardc/Compiler/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace shardc {
namespace {

/// The scl.scalar function of a kernel a group may hold ("" passes the
/// value through: a copy or a reshape); none for any other kernel.
std::optional<std::string> scalarFunction(scl::KernelOp k) {
  if (isReshape(k))
    return std::string();
  return scl::fusableFunction(k);
}

struct Group {
  SmallVector<scl::KernelOp> members; ///< in program order
  /// The buffers the members read that no member but the last writes (the
  /// fused kernel's inputs, as boundaryOf counts them with the output not
  /// internal), kept as the group grows in program order so that checking
  /// the input limit costs the two groups' inputs, not their members.
  llvm::SetVector<Value> reads;
  bool absorbed = false;
};

/// Whether two buffers have one shape and layout (whatever their elements:
/// a Compare's bool output and its f32 reader's output).
bool sameShape(Value a, Value b) {
  auto ta = cast<MemRefType>(a.getType()), tb = cast<MemRefType>(b.getType());
  return ta.getShape() == tb.getShape() && ta.getLayout() == tb.getLayout();
}

/// The distinct shapes a group's members write.
std::vector<Extents> shapesOf(ArrayRef<scl::KernelOp> members) {
  std::vector<Extents> shapes;
  for (scl::KernelOp k : members) {
    Extents s = shapeOf(k.getOuts()[0]);
    if (!llvm::is_contained(shapes, s))
      shapes.push_back(std::move(s));
  }
  return shapes;
}

/// `v` is an alloc that only `producer` writes and only `consumer` reads.
bool privateBetween(Value v, Operation *producer, Operation *consumer) {
  if (!v.getDefiningOp<memref::AllocOp>())
    return false;
  return llvm::all_of(v.getUsers(), [&](Operation *user) {
    return user == producer || user == consumer;
  });
}

/// Whether a member computes (rather than only copying).
bool computes(const Group &g) {
  return llvm::any_of(
      g.members, [](scl::KernelOp k) { return !scalarFunction(k)->empty(); });
}

/// Whether a Reduce of `g`'s output gains by taking `g` in: it computes, or
/// it casts a mask to f32 (`mask.float().sum()`), whose copy would take four
/// times the mask's bytes where the fused reduction reads the mask itself.
bool worthReducing(const Group &g) {
  return computes(g) || llvm::any_of(g.members, [](scl::KernelOp k) {
           return k.getOpcode() == "Cast" &&
                  !isF32(k.getIns()[0]); // an i1 -> f32 cast
         });
}

/// The inputs a group reads from outside it, in first-use order, the input
/// each member operand reads, and the buffers only its members pass between
/// them.
struct GroupBoundary {
  SmallVector<Value> ins;
  llvm::DenseMap<OpOperand *, unsigned> inputOf;
  llvm::DenseSet<Value> internal;
};

GroupBoundary boundaryOf(ArrayRef<scl::KernelOp> members, bool outputInternal) {
  GroupBoundary b;
  scl::KernelOp last = members.back();
  for (scl::KernelOp k : members)
    if (k != last || outputInternal)
      b.internal.insert(k.getOuts()[0]);
  for (scl::KernelOp k : members)
    for (OpOperand &use : k.getInsMutable()) {
      if (b.internal.contains(use.get()))
        continue;
      auto *it = llvm::find(b.ins, use.get());
      b.inputOf[&use] = unsigned(it - b.ins.begin());
      if (it == b.ins.end())
        b.ins.push_back(use.get());
    }
  return b;
}

/// Fills `region` with the group's body (one scl.scalar per computing
/// kernel) and erases the kernels and their private buffers.
void moveIntoBody(Group &g, const GroupBoundary &boundary, Region &region) {
  scl::KernelOp last = g.members.back();
  OpBuilder b(last);
  Block *body = b.createBlock(&region);
  for (Value v : boundary.ins)
    body->addArgument(b.getF32Type(), v.getLoc());
  llvm::DenseMap<Value, Value> scalarOf; // of internal buffers
  for (scl::KernelOp k : g.members) {
    SmallVector<Value> operands;
    for (OpOperand &use : k.getInsMutable()) {
      auto it = boundary.inputOf.find(&use);
      operands.push_back(it != boundary.inputOf.end()
                             ? body->getArgument(it->second)
                             : scalarOf.lookup(use.get()));
    }
    std::string fn = *scalarFunction(k);
    scalarOf[k.getOuts()[0]] =
        fn.empty() ? operands.front()
                   : scl::ScalarOp::create(b, k.getLoc(), b.getF32Type(), fn,
                                           operands);
  }
  scl::YieldOp::create(b, last.getLoc(), scalarOf.lookup(last.getOuts()[0]));
  for (scl::KernelOp k : llvm::reverse(g.members))
    k.erase();
  for (Value v : boundary.internal)
    if (v.use_empty())
      v.getDefiningOp()->erase();
}

/// The shape on `domain` of every outside input use of `members`: the
/// input broadcast to what its reader writes. None when one does not
/// broadcast.
std::optional<llvm::DenseMap<OpOperand *, Extents>>
shapesOnDomain(ArrayRef<scl::KernelOp> members, const GroupBoundary &boundary,
               const Extents &domain) {
  llvm::DenseMap<OpOperand *, Extents> shapes;
  for (scl::KernelOp k : members)
    for (OpOperand &use : k.getInsMutable()) {
      if (!boundary.inputOf.contains(&use))
        continue;
      std::optional<Extents> shape = broadcastOnRefinement(
          shapeOf(use.get()), shapeOf(k.getOuts()[0]), domain);
      if (!shape)
        return std::nullopt;
      shapes[&use] = std::move(*shape);
    }
  return shapes;
}

/// Re-expresses a reshaping group's outside inputs on their `shapes` on
/// the domain: each (input, shape) becomes one input, a view or a copy.
void readOnDomain(const Group &g,
                  const llvm::DenseMap<OpOperand *, Extents> &shapes,
                  GroupBoundary &boundary) {
  SmallVector<std::pair<Value, Extents>> reads;
  llvm::DenseMap<OpOperand *, unsigned> inputOf;
  for (scl::KernelOp k : g.members)
    for (OpOperand &use : k.getInsMutable()) {
      auto shape = shapes.find(&use);
      if (shape == shapes.end())
        continue;
      std::pair<Value, Extents> read{use.get(), shape->second};
      auto *it = llvm::find(reads, read);
      inputOf[&use] = unsigned(it - reads.begin());
      if (it == reads.end())
        reads.push_back(std::move(read));
    }
  OpBuilder b(g.members.back());
  boundary.ins.clear();
  for (auto &[v, shape] : reads)
    boundary.ins.push_back(readAs(v, shape, b));
  boundary.inputOf = std::move(inputOf);
}

/// Every input of `boundary` broadcasts (numpy rules) to `domain`.
bool inputsBroadcastTo(const GroupBoundary &boundary,
                       ArrayRef<int64_t> domain) {
  return llvm::all_of(boundary.ins, [&](Value v) {
    return scl::broadcastsTo(cast<MemRefType>(v.getType()).getShape(), domain);
  });
}

/// Whether `reduce` of `g`'s output can read `g`'s inputs instead: they
/// broadcast to what it reduces, and none is the reduction's output (which
/// scl.fused_reduction may not write in place).
bool reducesChain(const Group &g, scl::KernelOp reduce) {
  GroupBoundary boundary = boundaryOf(g.members, /*outputInternal=*/true);
  Value out = reduce.getOuts()[0];
  return inputsBroadcastTo(
             boundary,
             cast<MemRefType>(reduce.getIns()[0].getType()).getShape()) &&
         !scl::writesAnInput(boundary.ins, out);
}

/// Whether `g` taking in `producer` (a group whose output only g's newest
/// member reads) would read at most as many outside buffers as a fused
/// kernel may take: the two groups' reads, less the producer's output.
bool withinInputLimit(const Group &g, const Group &producer) {
  scl::KernelOp last = producer.members.back();
  Value out = last.getOuts()[0];
  size_t reads = g.reads.size() - size_t(g.reads.contains(out));
  for (Value v : producer.reads)
    reads += !g.reads.contains(v);
  return reads <= shardrt::artifact::kMaxFusedInputs;
}

/// `g` takes in `producer` (checked by withinInputLimit).
void absorb(Group &g, Group &producer) {
  auto before = [](scl::KernelOp a, scl::KernelOp b) {
    return a->isBeforeInBlock(b);
  };
  // Both lists are in program order and the newest member (last) follows
  // every producer's: merged, not sorted, so that a chain moves its list
  // along instead of sorting it at every kernel.
  Value out = producer.members.back().getOuts()[0];
  g.reads.remove(out);
  g.reads.insert(producer.reads.begin(), producer.reads.end());
  scl::KernelOp newest = g.members.pop_back_val();
  if (g.members.empty()) {
    g.members = std::move(producer.members);
  } else {
    size_t mid = g.members.size();
    g.members.append(producer.members);
    std::inplace_merge(g.members.begin(), g.members.begin() + mid,
                       g.members.end(), before);
  }
  g.members.push_back(newest);
  producer.members.clear();
  producer.reads.clear();
  producer.absorbed = true;
}

/// False when the group stays unfused.
bool fuseGroup(Group &g) {
  GroupBoundary boundary = boundaryOf(g.members, /*outputInternal=*/false);
  scl::KernelOp last = g.members.back();
  Value out = last.getOuts()[0];
  OpBuilder b(last);
  std::vector<Extents> shapes = shapesOf(g.members);
  // A kernel whose inputs do not broadcast to its output stays for the
  // runtime to report.
  if (shapes.size() == 1 && !inputsBroadcastTo(boundary, shapes.front()))
    return false;
  if (shapes.size() > 1) {
    // runsOnDomain held when the groups merged: the domain exists, every
    // input broadcasts onto it, and the output is a temporary, written
    // through a view. A group that no longer satisfies it stays unfused.
    std::optional<Extents> domain = commonRefinement(shapes);
    std::optional<llvm::DenseMap<OpOperand *, Extents>> inputShapes =
        domain ? shapesOnDomain(g.members, boundary, *domain) : std::nullopt;
    if (!inputShapes || !scl::isTemporary(out))
      return false;
    readOnDomain(g, *inputShapes, boundary);
    out = readAs(out, *domain, b);
  }
  auto fused =
      scl::FusedElementwiseOp::create(b, last.getLoc(), boundary.ins, out);
  moveIntoBody(g, boundary, fused.getBody());
  return true;
}

/// An scl.fused_reduction in place of `reduce` (over its input's shape),
/// reading `ins`, with an empty body; `reduce` is erased.
scl::FusedReductionOp replaceReduce(scl::KernelOp reduce, ValueRange ins) {
  SmallVector<int64_t> dims(reduce.getInts());
  llvm::sort(dims);
  OpBuilder b(reduce);
  auto fused = scl::FusedReductionOp::create(
      b, reduce.getLoc(), *reduce.getMode(), dims,
      cast<MemRefType>(reduce.getIns()[0].getType()).getShape(), ins,
      reduce.getOuts()[0]);
  reduce.erase();
  return fused;
}

/// The group and the Reduce reading its output become one
/// scl.fused_reduction: the group's output is never written.
void fuseReduction(Group &g, scl::KernelOp reduce) {
  GroupBoundary boundary = boundaryOf(g.members, /*outputInternal=*/true);
  auto fused = replaceReduce(reduce, boundary.ins);
  moveIntoBody(g, boundary, fused.getBody());
}

/// A Reduce that took no group in becomes a fused reduction with an
/// identity body (lone-kernels).
void fuseLoneReduction(scl::KernelOp reduce) {
  Value in = reduce.getIns()[0];
  Location loc = reduce.getLoc();
  auto fused = replaceReduce(reduce, in);
  OpBuilder b(fused);
  Block *body = b.createBlock(&fused.getBody());
  body->addArgument(b.getF32Type(), in.getLoc());
  scl::YieldOp::create(b, loc, body->getArgument(0));
}

/// Whether `members` (in program order) can run as one kernel over the
/// common refinement of their shapes: its output is a temporary (written
/// through a view; a returned buffer may be bound elsewhere), and every
/// outside input broadcasts to what its reader writes and either is a
/// temporary (viewed) or is smaller than the domain (copied: an input or
/// a constant may live outside the arena; a full-size copy would cost what
/// fusing saves).
bool runsOnDomain(ArrayRef<scl::KernelOp> members) {
  std::optional<Extents> domain = commonRefinement(shapesOf(members));
  scl::KernelOp last = members.back();
  Value out = last.getOuts()[0];
  if (!domain || !scl::isTemporary(out))
    return false;
  int64_t count = cast<MemRefType>(out.getType()).getNumElements();
  GroupBoundary boundary = boundaryOf(members, /*outputInternal=*/false);
  std::optional<llvm::DenseMap<OpOperand *, Extents>> shapes =
      shapesOnDomain(members, boundary, *domain);
  if (!shapes)
    return false;
  // Each distinct (buffer, shape) read becomes one input.
  SmallVector<std::pair<Value, Extents>> reads;
  for (auto &[use, shape] : *shapes) {
    if (!readsWithoutFullCopy(use->get(), shape, count))
      return false;
    std::pair<Value, Extents> read{use->get(), shape};
    if (!llvm::is_contained(reads, read))
      reads.push_back(std::move(read));
  }
  if (reads.size() > shardrt::artifact::kMaxFusedInputs)
    return false;
  // The kernel reads each outside input where the last member was: nothing
  // after the member that read it may write it.
  llvm::SmallPtrSet<Operation *, 16> isMember;
  for (scl::KernelOp k : members)
    isMember.insert(k);
  for (auto &[use, shape] : *shapes)
    if (scl::mayWriteBetween(
            use->getOwner(), last, scl::aliasesOf(scl::storageOf(use->get())),
            [&](Operation *op) { return isMember.contains(op); }))
      return false;
  return true;
}

/// Merges each group that only a reshaping Copy reads with the copy and
/// the group of the copy's one reader, where they can run as one kernel
/// (runsOnDomain). In program order, so a chain of reshapes merges whole.
void mergeAcrossReshapes(std::vector<std::unique_ptr<Group>> &groups,
                         ArrayRef<std::pair<Group *, scl::KernelOp>> reshapes) {
  llvm::DenseMap<Operation *, Group *> groupOf;
  for (auto &g : groups)
    if (!g->absorbed)
      for (scl::KernelOp k : g->members)
        groupOf[k] = g.get();
  for (auto [producer, copy] : reshapes) {
    Value reshaped = copy.getOuts()[0];
    Operation *reader = nullptr;
    for (Operation *user : reshaped.getUsers())
      if (user != copy)
        reader = user;
    Group *consumer = reader ? groupOf.lookup(reader) : nullptr;
    if (producer->absorbed || !consumer || consumer == producer ||
        !privateBetween(reshaped, copy, reader))
      continue;
    SmallVector<scl::KernelOp> members(producer->members);
    members.push_back(copy);
    llvm::append_range(members, consumer->members);
    llvm::sort(members, [](scl::KernelOp a, scl::KernelOp b) {
      return a->isBeforeInBlock(b);
    });
    if (!runsOnDomain(members))
      continue;
    for (scl::KernelOp k : producer->members)
      groupOf[k] = consumer;
    producer->absorbed = true;
    consumer->members = std::move(members);
  }
}

struct ScFusePass : impl::ScFuseBase<ScFusePass> {
  using ScFuseBase::ScFuseBase;

  void runOnOperation() override {
    for (func::FuncOp f : rankClassFunctions(getOperation()))
      fuseFunction(f);
  }

  void fuseFunction(func::FuncOp f) {
    std::vector<std::unique_ptr<Group>> groups;
    llvm::DenseMap<Value, Group *> groupWriting; // a group's current output
    SmallVector<std::pair<Group *, scl::KernelOp>> reductions;
    SmallVector<std::pair<Group *, scl::KernelOp>> reshapes;
    SmallVector<scl::KernelOp> loneReductions;
    for (Operation &op : f.getBody().front()) {
      auto k = dyn_cast<scl::KernelOp>(op);
      if (k && isFusableReduce(k)) {
        // A Reduce of a chain's output takes the chain into its kernel.
        Value in = k.getIns()[0];
        auto it = groupWriting.find(in);
        if (it != groupWriting.end() && !it->second->absorbed &&
            worthReducing(*it->second) &&
            privateBetween(in, it->second->members.back(), k) &&
            reducesChain(*it->second, k)) {
          it->second->absorbed = true;
          reductions.emplace_back(it->second, k);
          groupWriting.erase(it);
        } else {
          loneReductions.push_back(k);
        }
        continue;
      }
      if (k && isReshape(k)) {
        // Merged with the groups on both sides once those are known.
        auto it = groupWriting.find(k.getIns()[0]);
        if (it != groupWriting.end() && !it->second->absorbed &&
            privateBetween(k.getIns()[0], it->second->members.back(), k))
          reshapes.emplace_back(it->second, k);
        continue;
      }
      if (!k || !scl::fusableFunction(k))
        continue;
      Value out = k.getOuts()[0];
      auto g = std::make_unique<Group>();
      g->members.push_back(k);
      g->reads.insert(k.getIns().begin(), k.getIns().end());
      for (Value in : k.getIns()) {
        auto it = groupWriting.find(in);
        if (it == groupWriting.end() || it->second->absorbed ||
            !sameShape(in, out) ||
            !privateBetween(in, it->second->members.back(), k))
          continue;
        // A producer that would take the kernel past the input limit stays
        // a kernel of its own, whose output this group reads.
        if (!withinInputLimit(*g, *it->second))
          continue;
        absorb(*g, *it->second);
        groupWriting.erase(it);
      }
      groupWriting[out] = g.get();
      groups.push_back(std::move(g));
    }
    mergeAcrossReshapes(groups, reshapes);
    bool changed = !reductions.empty();
    size_t fewest = loneKernels ? 1 : 2;
    for (auto &g : groups)
      if (!g->absorbed && g->members.size() >= fewest && computes(*g))
        changed |= fuseGroup(*g);
    for (auto &[g, reduce] : reductions)
      fuseReduction(*g, reduce);
    if (loneKernels) {
      changed |= !loneReductions.empty();
      for (scl::KernelOp reduce : loneReductions)
        fuseLoneReduction(reduce);
    }
    if (changed)
      dropMemoryPlan(f);
  }
};

} // namespace
} // namespace shardc
