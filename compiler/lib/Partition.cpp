//===- Partition.cpp - Per-rank programs: driver, fetch, windows ----------===//

#include "Partition.h"

#include "shardc/Dialect/Sc/ScOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>

using namespace mlir;
using namespace shardc::sc;
namespace art = shardrt::artifact;

namespace shardc {

Partitioner::Partitioner(func::FuncOp f, MeshOp meshOp)
    : mesh(meshShape(meshOp)), func(f), meshOp(meshOp) {
  ranks.resize(mesh.numRanks());
  inputs.resize(mesh.numRanks());
  outputs.resize(mesh.numRanks());
}

const ValueSharding &Partitioner::shardingOf(Value v) const {
  return shardings_.find(v)->second;
}

namespace {

std::vector<int32_t> relativePeer(const plan::Mesh &mesh, int64_t from,
                                  int64_t to) {
  std::vector<int64_t> a = mesh.coords(from), b = mesh.coords(to);
  std::vector<int32_t> peer;
  for (size_t i = 0; i < a.size(); ++i)
    peer.push_back(int32_t(b[i] - a[i]));
  return peer;
}

art::TransferSpec transfer(fb::TransferKind kind, std::vector<int32_t> peer,
                           uint32_t slot, const plan::Box &box, int tag) {
  art::TransferSpec t;
  t.kind = kind;
  t.peer = std::move(peer);
  t.slot = slot;
  for (const Interval &i : box) {
    t.lo.push_back(i.lo);
    t.hi.push_back(i.hi);
  }
  t.tag = uint32_t(tag);
  return t;
}

} // namespace

/// An f32 cast of a bf16 or f16 value laid out as the cast.
static Value narrowSource(Value v, const ValueSharding &s,
                          const Partitioner &p) {
  auto widen = v.getDefiningOp<sc::CastOp>();
  if (!widen || !getElementTypeOrSelf(v.getType()).isF32())
    return {};
  Value narrow = widen.getInput();
  Type element = getElementTypeOrSelf(narrow.getType());
  if (!(element.isBF16() || element.isF16()) || p.shardingOf(narrow) != s)
    return {};
  return narrow;
}

FailureOr<bool> Partitioner::fetchNarrow(Operation *op, Value v,
                                         const std::vector<plan::Need> &needs,
                                         const std::vector<plan::Need> &moving,
                                         std::vector<uint32_t> &result) {
  // Casting commutes with moving elements: the boxes of a 16-bit value's f32
  // cast are assembled in 16 bits and cast after. Halos then move half the
  // bytes, and the f32 copy of the whole shard, made only to be padded, has
  // no reader left (RankClasses drops it).
  Value narrow = narrowSource(v, shardingOf(v), *this);
  if (!narrow)
    return false;
  FailureOr<std::vector<uint32_t>> boxes = fetch(op, narrow, needs);
  if (failed(boxes))
    return failure();
  for (int64_t r = 0; r < numRanks(); ++r) {
    if (moving[r].dims.empty())
      continue;
    result[r] = ranks[r].temporary(fb::DType::F32, moving[r].shape());
    ranks[r].emit(fb::Opcode::Cast, {(*boxes)[r]}, {result[r]});
  }
  return true;
}

FailureOr<std::vector<uint32_t>>
Partitioner::fetch(Operation *op, Value v,
                   const std::vector<plan::Need> &needs) {
  const ValueSharding &s = shardingOf(v);
  if (s.isPartial())
    return op->emitOpError("internal error: reads a partial value that was "
                           "not resolved");
  // The CPU conv widens its input as it packs it: it reads the 16-bit
  // boxes, halo or not, and no f32 copy of its input is made.
  if (convReadsHalfFloats && isa<sc::ConvOp>(op) && op->getOperand(0) == v)
    if (Value narrow = narrowSource(v, s, *this))
      return fetch(op, narrow, needs);
  std::vector<uint32_t> result(numRanks());
  std::vector<plan::Need> moving(numRanks());
  bool anyMoves = false;
  for (int64_t r = 0; r < numRanks(); ++r) {
    result[r] = ranks[r].lookup(v);
    if (!needs[r].isBox(s.layout.owned(mesh, r)))
      moving[r] = needs[r], anyMoves = true;
  }
  if (!anyMoves)
    return result;
  FailureOr<bool> narrowed = fetchNarrow(op, v, needs, moving, result);
  if (failed(narrowed))
    return failure();
  if (*narrowed)
    return result;
  // Destination buffers.
  for (int64_t r = 0; r < numRanks(); ++r)
    if (!moving[r].dims.empty())
      result[r] = ranks[r].temporary(ranks[r].buffers[result[r]].dtype,
                                     moving[r].shape());
  // Every element a rank assembles is a real element of `v` (pieces wrap,
  // they never pad), so a splat's halo is the splat: filled, not moved.
  if (std::optional<double> value = splatValue(v)) {
    for (int64_t r = 0; r < numRanks(); ++r)
      if (!moving[r].dims.empty())
        ranks[r].emit(fb::Opcode::Fill, {}, {result[r]}).floats = {*value};
    return result;
  }
  std::vector<plan::Move> moves = planMoves(mesh, s.layout, moving);
  std::vector<std::vector<art::TransferSpec>> transfers(numRanks());
  std::vector<std::vector<const plan::Move *>> selfMoves(numRanks());
  for (const plan::Move &m : moves) {
    if (m.from == m.to) {
      selfMoves[m.to].push_back(&m);
      continue;
    }
    uint32_t src = ranks[m.from].lookup(v);
    transfers[m.from].push_back(transfer(fb::TransferKind::Send,
                                         relativePeer(mesh, m.from, m.to), src,
                                         m.src, m.tag));
    transfers[m.to].push_back(transfer(fb::TransferKind::Recv,
                                       relativePeer(mesh, m.to, m.from),
                                       result[m.to], m.dst, m.tag));
  }
  for (int64_t r = 0; r < numRanks(); ++r) {
    ProgramBuilder &b = ranks[r];
    uint32_t own = b.lookup(v);
    // The rank's own part goes in with one pad (crop and extend), which
    // also zeroes what the exchange then overwrites. A part that wraps onto
    // the rank itself goes through the exchange like any other.
    if (selfMoves[r].size() == 1 && moving[r].dims.size()) {
      const plan::Move &m = *selfMoves[r][0];
      std::vector<int64_t> ownShape = b.buffers[own].shape;
      std::vector<int64_t> bufShape = b.buffers[result[r]].shape;
      std::vector<int64_t> lo, hi;
      bool translation = true;
      for (size_t d = 0; d < m.src.size(); ++d) {
        lo.push_back(m.dst[d].lo - m.src[d].lo);
        hi.push_back((bufShape[d] - m.dst[d].hi) - (ownShape[d] - m.src[d].hi));
        // Pad places own element i at i + lo; every element it places
        // outside the move lands where a receive overwrites it, unless the
        // crop leaves the box (then the layout wraps onto itself).
        translation =
            translation && lo.back() + ownShape[d] + hi.back() == bufShape[d];
      }
      if (translation) {
        std::vector<int64_t> ints = lo;
        ints.insert(ints.end(), hi.begin(), hi.end());
        art::InstructionSpec &pad = b.emit(fb::Opcode::Pad, {own}, {result[r]});
        pad.str = "constant";
        pad.ints = ints;
        pad.floats = {0.0};
        selfMoves[r].clear();
      }
    }
    for (const plan::Move *m : selfMoves[r]) {
      std::vector<int32_t> zero(mesh.shape.size(), 0);
      transfers[r].push_back(
          transfer(fb::TransferKind::Send, zero, own, m->src, m->tag));
      transfers[r].push_back(
          transfer(fb::TransferKind::Recv, zero, result[r], m->dst, m->tag));
    }
    if (transfers[r].empty())
      continue;
    std::vector<uint32_t> outs;
    if (!moving[r].dims.empty())
      outs.push_back(result[r]);
    art::InstructionSpec &x = b.emit(fb::Opcode::HaloExchange, {own}, outs);
    x.transfers = std::move(transfers[r]);
  }
  return result;
}

namespace {

/// The collective's reduction; a partial mean sums, and meanOfSums scales.
fb::ReduceKind reduceKindOf(const ValueSharding &s) {
  return s.partialKind == ReductionKind::Mean
             ? fb::ReduceKind::Sum
             : artifactReduceKind(s.partialKind);
}

/// `axes` ascending, for an all-reduce's group: its members only sum, and
/// every all-reduce over a set of axes then names them alike (the pairing
/// check compares the order; over every axis it is the world's own).
std::vector<uint32_t> sortedAxes(std::vector<int> axes) {
  llvm::sort(axes);
  return std::vector<uint32_t>(axes.begin(), axes.end());
}

} // namespace

fb::ReduceKind artifactReduceKind(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::Sum:
    return fb::ReduceKind::Sum;
  case ReductionKind::Max:
    return fb::ReduceKind::Max;
  case ReductionKind::Min:
    return fb::ReduceKind::Min;
  case ReductionKind::Mean:
    return fb::ReduceKind::Mean;
  }
  llvm_unreachable("every ReductionKind is named");
}

int64_t groupSize(const plan::Mesh &mesh, const std::vector<int> &axes) {
  int64_t n = 1;
  for (int a : axes)
    n *= mesh.shape[a];
  return n;
}

std::vector<uint32_t>
Partitioner::meanOfSums(const ValueSharding &s,
                        const std::vector<uint32_t> &sums) {
  if (s.partialKind != ReductionKind::Mean)
    return sums;
  double scale = 1.0 / double(groupSize(mesh, s.partialAxes));
  std::vector<uint32_t> out(numRanks());
  for (int64_t r = 0; r < numRanks(); ++r)
    out[r] = scaled(r, sums[r], scale);
  return out;
}

std::vector<uint32_t> Partitioner::castAll(const std::vector<uint32_t> &ids,
                                           fb::DType to) {
  std::vector<uint32_t> out(ids.size());
  for (int64_t r = 0; r < numRanks(); ++r) {
    ProgramBuilder &b = ranks[r];
    if (b.buffers[ids[r]].dtype == to) {
      out[r] = ids[r];
      continue;
    }
    out[r] = b.temporary(to, b.buffers[ids[r]].shape);
    b.emit(fb::Opcode::Cast, {ids[r]}, {out[r]});
  }
  return out;
}

std::vector<uint32_t> Partitioner::reduceInF32(
    const ValueSharding &s, const std::vector<uint32_t> &parts,
    llvm::function_ref<std::vector<uint32_t>(const std::vector<uint32_t> &)>
        collective) {
  fb::DType dtype = ranks[0].buffers[parts[0]].dtype;
  std::vector<uint32_t> sums = collective(castAll(parts, fb::DType::F32));
  return castAll(meanOfSums(s, sums), dtype);
}

FailureOr<std::vector<uint32_t>> Partitioner::resolvePartial(Operation *op,
                                                             Value v) {
  const ValueSharding &s = shardingOf(v);
  std::vector<uint32_t> parts(numRanks());
  for (int64_t r = 0; r < numRanks(); ++r)
    parts[r] = ranks[r].lookup(v);
  return reduceInF32(s, parts, [&](const std::vector<uint32_t> &in) {
    std::vector<uint32_t> out(numRanks());
    for (int64_t r = 0; r < numRanks(); ++r) {
      ProgramBuilder &b = ranks[r];
      out[r] = b.temporary(b.buffers[in[r]].dtype, b.buffers[in[r]].shape);
      art::InstructionSpec &inst =
          b.emit(fb::Opcode::AllReduce, {in[r]}, {out[r]});
      inst.reduce = reduceKindOf(s);
      inst.meshAxes = sortedAxes(s.partialAxes);
    }
    return out;
  });
}

namespace {

/// The one dim along which `to` is split over exactly the partial axes
/// `partialAxes` (in any order) while `from` leaves it whole, every other
/// dim alike; -1 if none. That reshard is one reduce-scatter over the split's
/// axes in its order, so that group order is shard order.
int64_t reduceScatterDim(const plan::Layout &from, const plan::Layout &to,
                         std::vector<int> partialAxes) {
  if (partialAxes.empty())
    return -1;
  llvm::sort(partialAxes);
  int64_t found = -1;
  for (size_t d = 0; d < to.dims.size(); ++d) {
    const plan::DimSplit &f = from.dims[d], &t = to.dims[d];
    if (f == t)
      continue;
    std::vector<int> splitAxes = t.axes;
    llvm::sort(splitAxes);
    if (found >= 0 || !f.axes.empty() || splitAxes != partialAxes)
      return -1;
    found = int64_t(d);
  }
  return found;
}

/// The dims `to` keeps whole that `from` splits, when those are all the
/// differences: the reshard is one all-gather per dim (over its split's
/// axes in their order).
std::vector<int64_t> gatherDims(const plan::Layout &from,
                                const plan::Layout &to) {
  std::vector<int64_t> dims;
  for (size_t d = 0; d < to.dims.size(); ++d) {
    const plan::DimSplit &f = from.dims[d], &t = to.dims[d];
    if (f == t)
      continue;
    if (!t.axes.empty())
      return {};
    dims.push_back(int64_t(d));
  }
  return dims;
}

/// (split dim, concat dim) when the reshard moves a split over some axes from
/// the concat dim to the split dim and changes nothing else: one all-to-all.
std::optional<std::pair<int64_t, int64_t>>
allToAllDims(const plan::Layout &from, const plan::Layout &to) {
  std::vector<int64_t> changed;
  for (size_t d = 0; d < to.dims.size(); ++d)
    if (from.dims[d] != to.dims[d])
      changed.push_back(int64_t(d));
  if (changed.size() != 2)
    return std::nullopt;
  for (int k = 0; k < 2; ++k) {
    int64_t split = changed[k], concat = changed[1 - k];
    const std::vector<int> &axes = from.dims[concat].axes;
    if (!axes.empty() && to.dims[concat].axes.empty() &&
        from.dims[split].axes.empty() && to.dims[split].axes == axes)
      return std::make_pair(split, concat);
  }
  return std::nullopt;
}

} // namespace

art::IntList collectiveInts(int64_t dim, const std::vector<int64_t> &extents) {
  art::IntList ints{dim};
  ints.insert(ints.end(), extents.begin(), extents.end());
  return ints;
}

std::vector<uint32_t>
Partitioner::blockCollective(const std::vector<uint32_t> &in, fb::Opcode opcode,
                             int64_t dim, const plan::DimSplit &split,
                             fb::ReduceKind reduce) {
  bool gather = opcode == fb::Opcode::AllGather;
  std::vector<uint32_t> out(ranks.size());
  art::IntList ints = collectiveInts(dim, split.extents());
  for (int64_t r = 0; r < numRanks(); ++r) {
    ProgramBuilder &b = ranks[r];
    std::vector<int64_t> shape = b.buffers[in[r]].shape;
    shape[dim] = gather
                     ? split.starts.back()
                     : split.shard(split.shardOf(mesh, mesh.coords(r))).size();
    out[r] = b.temporary(b.buffers[in[r]].dtype, shape);
    art::InstructionSpec &inst = b.emit(opcode, {in[r]}, {out[r]});
    inst.meshAxes.assign(split.axes.begin(), split.axes.end());
    inst.ints = ints;
    inst.reduce = reduce;
  }
  return out;
}

std::vector<uint32_t> Partitioner::allToAll(const std::vector<uint32_t> &in,
                                            int64_t splitDim,
                                            const plan::DimSplit &split,
                                            int64_t concatDim,
                                            const plan::DimSplit &concat) {
  std::vector<uint32_t> out(ranks.size());
  // The split's extents, then the concat's (one list for every member).
  art::IntList ints = collectiveInts(splitDim, split.extents());
  art::IntList concatInts = collectiveInts(concatDim, concat.extents());
  ints.insert(ints.end(), concatInts.begin(), concatInts.end());
  for (int64_t r = 0; r < numRanks(); ++r) {
    ProgramBuilder &b = ranks[r];
    std::vector<int64_t> shape = b.buffers[in[r]].shape;
    shape[concatDim] = concat.starts.back();
    shape[splitDim] = split.shard(split.shardOf(mesh, mesh.coords(r))).size();
    out[r] = b.temporary(b.buffers[in[r]].dtype, shape);
    art::InstructionSpec &inst =
        b.emit(fb::Opcode::AllToAll, {in[r]}, {out[r]});
    inst.meshAxes.assign(split.axes.begin(), split.axes.end());
    inst.ints = ints;
  }
  return out;
}

std::vector<uint32_t>
Partitioner::constantTensor(std::vector<int64_t> shape,
                            const std::vector<float> &values) {
  art::ConstantSpec spec;
  spec.name = "partition" + std::to_string(constants.size());
  spec.dtype = fb::DType::F32;
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  std::vector<int32_t> all;
  for (int64_t r = 0; r < numRanks(); ++r)
    all.push_back(int32_t(r));
  spec.shards.push_back({all, shape, art::BlobBytes(std::move(bytes))});
  std::vector<uint32_t> ids;
  for (ProgramBuilder &b : ranks) {
    uint32_t id = b.temporary(fb::DType::F32, shape);
    b.buffers[id].constant = int64_t(constants.size());
    ids.push_back(id);
  }
  constants.push_back(std::move(spec));
  return ids;
}

uint32_t Partitioner::scalar(int64_t r, double value) {
  ProgramBuilder &b = ranks[r];
  uint32_t id = b.temporary(fb::DType::F32, {});
  b.emit(fb::Opcode::Fill, {}, {id}).floats = {value};
  return id;
}

uint32_t Partitioner::scaled(int64_t r, uint32_t x, double factor) {
  uint32_t by = scalar(r, factor);
  ProgramBuilder &b = ranks[r];
  uint32_t y = b.temporary(b.buffers[x].dtype, b.buffers[x].shape);
  b.emit(fb::Opcode::Binary, {x, by}, {y}).str = "mul";
  return y;
}

//===----------------------------------------------------------------------===//
// Needs of windowed dims
//===----------------------------------------------------------------------===//

namespace {

/// The input a rank reads along one windowed dim for outputs `out`, and how
/// its local op must window it.
struct WindowNeed {
  std::vector<plan::Piece> pieces;
  LocalWindow local;
};

FailureOr<WindowNeed> windowNeed(Operation *op, const WindowSpec &spec,
                                 Interval out) {
  WindowNeed w;
  w.local.outOffset = out.lo;
  if (out.empty()) {
    w.pieces.push_back({{0, 0}, 0});
    return w;
  }
  int64_t n = spec.inputSize;
  Interval virt = virtualInputRange(spec, out);
  bool padded =
      spec.kind == WindowKind::Strided || spec.kind == WindowKind::Pad;
  Interval real;
  if (padded && spec.boundary == BoundaryMode::Circular) {
    // The buffer holds the whole virtual range, wrapped pieces included.
    for (int64_t k = llvm::divideFloorSigned(virt.lo, n); k * n < virt.hi;
         ++k) {
      int64_t lo = std::max(virt.lo, k * n),
              hi = std::min(virt.hi, (k + 1) * n);
      if (lo < hi)
        w.pieces.push_back({{lo, hi}, -k * n});
    }
    w.local.inOffset = virt.lo;
    return w;
  }
  if (padded) {
    real = {std::max<int64_t>(virt.lo, 0), std::min(virt.hi, n)};
    if (spec.boundary != BoundaryMode::Zeros)
      for (const Interval &i : inputIntervals(spec, out))
        real = {std::min(real.lo, i.lo), std::max(real.hi, i.hi)};
    if (real.lo >= real.hi) {
      if (spec.boundary != BoundaryMode::Zeros)
        return op->emitOpError("reads only padding on one rank; partitioning "
                               "such a split is not implemented");
      // Every window of this rank lies in the zero padding: the local op
      // pads an empty input out to the windows' span, all on the high side
      // (the runtime's convolutions take no high padding and need the low
      // side non-negative).
      w.pieces.push_back({{0, 0}, 0});
      w.local.padHi = std::min(virt.hi, n + spec.padHigh) - virt.lo;
      return w;
    }
    w.local.padLo = real.lo - virt.lo;
    // A ceil-mode window may overhang the padded input; that overhang is not
    // padding (avg_pool's count_include_pad does not count it), so the local
    // op gets only the padding that exists globally and clips the rest, as
    // the global op does.
    w.local.padHi = std::min(virt.hi, n + spec.padHigh) - real.hi;
    // A reflected or replicated border may mirror rows past the rank's own
    // range (a shard smaller than the pad): the buffer holds them, and the
    // side they lie on gets a negative amount, a crop (LowerOps' emitPad).
  } else {
    std::vector<Interval> taps = inputIntervals(spec, out);
    if (spec.kind == WindowKind::Transposed) {
      // The local op places input i at i * stride - padLo, so padLo >= 0
      // needs the local input to start at or before the last input placed
      // at or before out.lo. Where the first tap lies past it (a stride
      // wider than the kernel leaves outputs no input reaches), the inputs
      // in between are read too; their products all land outside this
      // rank's outputs and are dropped. A shard no input reaches reads no input
      // at all.
      int64_t first = std::min((out.lo + spec.padLow) / spec.stride,
                               taps.empty() ? spec.inputSize : taps.front().lo);
      real = {first, taps.empty() ? first : taps.back().hi};
      w.local.padLo = out.lo + spec.padLow - real.lo * spec.stride;
    } else {
      if (taps.empty())
        return op->emitOpError(
            "has outputs on one rank that no input reaches; partitioning "
            "such a split is not implemented");
      real = {taps.front().lo, taps.back().hi};
    }
  }
  w.pieces.push_back({real, 0});
  w.local.inOffset = real.lo;
  return w;
}

} // namespace

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

LogicalResult Partitioner::reshard(Operation *op) {
  Value in = op->getOperand(0), out = op->getResult(0);
  const ValueSharding &to = shardingOf(out);
  if (to.isPartial())
    return op->emitOpError("asks for a partial value; only the compiler "
                           "makes partial values");
  ValueSharding from = shardingOf(in);
  // A splat (never partial) skips the collectives: fetch fills each rank's
  // new part, and nothing moves.
  bool splat = splatValue(in).has_value();
  // Nor does a tensor without elements: each rank's new part is empty.
  bool empty = cast<ShapedType>(in.getType()).getNumElements() == 0;
  auto buffersOf = [&](Value v) {
    std::vector<uint32_t> ids;
    for (ProgramBuilder &b : ranks)
      ids.push_back(b.lookup(v));
    return ids;
  };
  auto bindAll = [&](Value v, const std::vector<uint32_t> &ids) {
    for (int64_t r = 0; r < numRanks(); ++r)
      ranks[r].bind(v, ids[r]);
    return success();
  };
  if (from.isPartial()) {
    int64_t dim = reduceScatterDim(from.layout, to.layout, from.partialAxes);
    if (dim >= 0)
      return bindAll(out, reduceInF32(from, buffersOf(in),
                                      [&](const std::vector<uint32_t> &parts) {
                                        return blockCollective(
                                            parts, fb::Opcode::ReduceScatter,
                                            dim, to.layout.dims[dim],
                                            reduceKindOf(from));
                                      }));
    FailureOr<std::vector<uint32_t>> reduced = resolvePartial(op, in);
    if (failed(reduced))
      return failure();
    // After the all-reduce the value is whole along the partial axes.
    from.partialAxes.clear();
    shardings_[in] = from;
    (void)bindAll(in, *reduced);
  }
  if (!splat && !empty && from.layout.dims.size() == to.layout.dims.size()) {
    if (auto dims = allToAllDims(from.layout, to.layout))
      return bindAll(out, allToAll(buffersOf(in), dims->first,
                                   to.layout.dims[dims->first], dims->second,
                                   from.layout.dims[dims->second]));
    std::vector<int64_t> gathers = gatherDims(from.layout, to.layout);
    if (!gathers.empty()) {
      // One gather per dim, each over that dim's axes; the groups of later
      // gathers see the earlier dims whole, so the order does not matter.
      std::vector<uint32_t> ids = buffersOf(in);
      for (int64_t dim : gathers)
        ids = blockCollective(ids, fb::Opcode::AllGather, dim,
                              from.layout.dims[dim], fb::ReduceKind::None);
      return bindAll(out, ids);
    }
  }
  std::vector<plan::Need> needs;
  for (int64_t r = 0; r < numRanks(); ++r)
    needs.push_back(plan::Need::box(to.layout.owned(mesh, r)));
  FailureOr<std::vector<uint32_t>> got = fetch(op, in, needs);
  if (failed(got))
    return failure();
  return bindAll(out, *got);
}

/// Every rank multiplies its own parts of a contracted dim and the result's
/// partial axes sum them, so the operands that share a contracted factor
/// must split it alike (sc-insert-reshards makes them).
LogicalResult Partitioner::checkContractedSplits(Operation *op,
                                                 const ShardingRule &rule) {
  for (size_t f = 0; f < rule.factors.size(); ++f) {
    if (rule.factors[f].kind != FactorKind::Reduction ||
        llvm::is_contained(rule.resultDims[0], int64_t(f)))
      continue;
    const plan::DimSplit *first = nullptr;
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      for (size_t d = 0; d < rule.operandDims[i].size(); ++d) {
        if (rule.operandDims[i][d] != int64_t(f))
          continue;
        const plan::DimSplit &split =
            shardingOf(op->getOperand(i)).layout.dims[d];
        if (!first)
          first = &split;
        else if (split != *first)
          return op->emitOpError("splits a contracted dim differently on its "
                                 "operands (internal error: "
                                 "sc-insert-reshards aligns them)");
      }
  }
  return success();
}

LogicalResult Partitioner::partitionOp(Operation *op) {
  if (isa<ReshardOp, ShardingConstraintOp>(op))
    return reshard(op);
  Value result = op->getResult(0);
  const ValueSharding &rs = shardingOf(result);
  auto ruleOp = dyn_cast<ShardingRuleOpInterface>(op);
  if (!ruleOp)
    return op->emitOpError("has no sharding rule; cannot partition it");
  ShardingRule rule = ruleOp.getShardingRule();
  std::vector<WindowedDim> windows;
  if (auto w = dyn_cast<WindowOpInterface>(op))
    windows = w.getWindowedDims();
  if (failed(checkContractedSplits(op, rule)))
    return failure();

  // Each operand's need on each rank, and each rank's local windows.
  std::vector<std::vector<plan::Need>> needs(op->getNumOperands());
  std::vector<std::map<int64_t, LocalWindow>> localWindows(numRanks());
  for (int64_t r = 0; r < numRanks(); ++r) {
    plan::Box outBox = rs.layout.owned(mesh, r);
    for (unsigned i = 0; i < op->getNumOperands(); ++i) {
      Value v = op->getOperand(i);
      const ValueSharding &s = shardingOf(v);
      plan::Box own = s.layout.owned(mesh, r);
      plan::Need need;
      for (size_t d = 0; d < rule.operandDims[i].size(); ++d) {
        int64_t f = rule.operandDims[i][d];
        const WindowedDim *win = nullptr;
        for (const WindowedDim &w : windows)
          if (w.operand == i && w.inputDim == int64_t(d))
            win = &w;
        int64_t rd = -1;
        for (size_t k = 0;
             f != ShardingRule::kNoFactor && k < rule.resultDims[0].size(); ++k)
          if (rule.resultDims[0][k] == f)
            rd = int64_t(k);
        if (win) {
          // Windowed dims without a split compute the global window.
          if (rs.layout.dims[rd].axes.empty() &&
              s.layout.dims[d].axes.empty()) {
            need.dims.push_back({{{0, s.layout.shape[d]}, 0}});
            continue;
          }
          FailureOr<WindowNeed> wn = windowNeed(op, win->spec, outBox[rd]);
          if (failed(wn))
            return failure();
          need.dims.push_back(wn->pieces);
          localWindows[r][d] = wn->local;
          continue;
        }
        Interval want{0, s.layout.shape[d]};
        if (rd >= 0) {
          // Through a scaled dim (a reshape's merge or split) the same
          // factor indices, in this dim's units.
          int64_t from = rule.resultScale(rd), to = rule.operandScale(i, d);
          want = outBox[rd];
          if (want.lo % from != 0 || want.hi % from != 0)
            return op->emitOpError("has a result split off its factor's "
                                   "indices (internal error: "
                                   "sc-insert-reshards aligns it)");
          want = {want.lo / from * to, want.hi / from * to};
        } else if (f != ShardingRule::kNoFactor &&
                   !s.layout.dims[d].axes.empty())
          want = own[d]; // contracted or statistic dim: the local part
        need.dims.push_back({{want, 0}});
      }
      needs[i].push_back(std::move(need));
    }
  }
  std::vector<std::vector<uint32_t>> operandBuffers;
  for (unsigned i = 0; i < op->getNumOperands(); ++i) {
    // A value read at two positions in the same boxes (the keys and the
    // values of a self-attention) is fetched once.
    auto fetchedAlready = [&](unsigned j) {
      return op->getOperand(j) == op->getOperand(i) && needs[j] == needs[i];
    };
    auto same = llvm::find_if(llvm::seq(0u, i), fetchedAlready);
    if (same != llvm::seq(0u, i).end()) {
      operandBuffers.push_back(operandBuffers[*same]);
      continue;
    }
    FailureOr<std::vector<uint32_t>> got =
        fetch(op, op->getOperand(i), needs[i]);
    if (failed(got))
      return failure();
    operandBuffers.push_back(std::move(*got));
  }
  std::vector<std::vector<int64_t>> resultShapes;
  for (int64_t r = 0; r < numRanks(); ++r)
    resultShapes.push_back(rs.layout.ownedShape(mesh, r));

  if (std::optional<LogicalResult> handled =
          lowerStatisticOp(*this, op, operandBuffers))
    return *handled;

  FailureOr<std::vector<std::optional<uint32_t>>> causalMasks =
      causalQueryMasks(*this, op);
  if (failed(causalMasks))
    return failure();

  // The global op's own lowering on local buffers and shapes.
  for (int64_t r = 0; r < numRanks(); ++r) {
    ProgramBuilder &b = ranks[r];
    for (const std::vector<uint32_t> &perRank : operandBuffers)
      b.fetchedOperands.push_back(perRank[r]);
    b.localShapes[result] = resultShapes[r];
    b.windows = localWindows[r];
    b.causalMask = (*causalMasks)[r];
    LogicalResult lowered = lowerOp(op, b);
    b.fetchedOperands.clear();
    b.windows.clear();
    b.causalMask.reset();
    if (failed(lowered))
      return failure();
  }
  return success();
}

LogicalResult Partitioner::finishReturn(Operation *op) {
  for (Value v : op->getOperands()) {
    if (shardingOf(v).isPartial())
      return op->emitOpError("returns a partial value (internal error: "
                             "sc-insert-reshards resolves them)");
    outputShardings.push_back(shardingOf(v));
    for (int64_t r = 0; r < numRanks(); ++r) {
      ProgramBuilder &b = ranks[r];
      b.currentOp = "func.return";
      b.currentLoc = op->getLoc();
      uint32_t id = b.lookup(v);
      if (b.buffers[id].pinned || b.buffers[id].constant >= 0) {
        uint32_t copy = b.temporary(b.buffers[id].dtype, b.buffers[id].shape);
        b.emit(fb::Opcode::Copy, {id}, {copy});
        id = copy;
      }
      b.buffers[id].pinned = true;
      outputs[r].push_back(id);
    }
  }
  return success();
}

LogicalResult Partitioner::run() {
  auto record = [&](Value v) {
    shardings_[v] = materialize(recordedSharding(v), v.getType(), meshOp);
  };
  for (BlockArgument arg : func.getArguments()) {
    record(arg);
    inputShardings.push_back(shardingOf(arg));
    for (int64_t r = 0; r < numRanks(); ++r) {
      ProgramBuilder &b = ranks[r];
      b.localShapes[arg] = shardingOf(arg).layout.ownedShape(mesh, r);
      FailureOr<uint32_t> id = b.define(func, arg);
      if (failed(id))
        return failure();
      b.buffers[*id].pinned = true;
      inputs[r].push_back(*id);
    }
  }
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      return finishReturn(&op);
    if (op.getNumResults() != 1)
      return op.emitOpError("has ")
             << op.getNumResults() << " results; the lowering expects one";
    record(op.getResult(0));
    for (ProgramBuilder &b : ranks) {
      b.currentOp = op.getName().getStringRef().str();
      b.currentLoc = op.getLoc();
    }
    if (auto c = dyn_cast<ConstantOp>(op)) {
      // A splat is filled in the layout propagation chose for it.
      if (isa<SplatElementsAttr>(c.getValue()) &&
          !shardingOf(c.getResult()).isPartial()) {
        const plan::Layout &layout = shardingOf(c.getResult()).layout;
        for (int64_t r = 0; r < numRanks(); ++r) {
          ranks[r].localShapes[c.getResult()] = layout.ownedShape(mesh, r);
          if (failed(fillSplat(ranks[r], c)))
            return failure();
        }
        continue;
      }
      // Every rank holds the whole constant; consumers slice it locally.
      shardings_[c.getResult()] = replicatedSharding(c.getType());
      auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
      if (!dense || !dense.getElementType().isF32())
        return c.emitOpError("partitioned programs take f32 dense constants "
                             "only so far");
      std::vector<float> values(dense.getValues<float>().begin(),
                                dense.getValues<float>().end());
      auto shape = cast<RankedTensorType>(c.getType()).getShape();
      std::vector<uint32_t> ids =
          constantTensor({shape.begin(), shape.end()}, values);
      for (int64_t r = 0; r < numRanks(); ++r)
        ranks[r].bind(c.getResult(), ids[r]);
      continue;
    }
    if (failed(partitionOp(&op)))
      return failure();
  }
  return func.emitError("the entry function has no return");
}

} // namespace shardc
