//===- PartitionScan.cpp - Cumulative ops over a split dim ----------------===//
//
// A cumulative op (sc.cumsum, ...) whose scanned dim is split: element i of
// shard g folds the elements of shards 0..g-1 before its own prefix. Each
// rank folds its shard into one total per line (ScanTotals), one
// all-gather over the dim's group (members in shard order) gives every
// rank all of them, and the rank scans its shard starting from the fold of
// the first g totals (a Scan reading the gathered totals). The totals
// travel as packed doubles (four floats each: shardrt/cpu/ScanStep.h), so
// the carry enters the running value as the double a single device's scan
// would hold there: a cumsum's cancellation across a shard boundary
// (1e8 + 1 - 1e8) and a cumprod past float's range (1e20 * 1e20 * 1e-30)
// come out as on one device.
//
// The instructions name the group (the split's mesh axes, in its order),
// and the runtime finds how many totals a rank folds from its place in the
// group, so members of one group run the same program: an even split over
// P ranks stays one rank class. The last member's totals are never read:
// its ScanTotals writes zeros without reading the shard. An empty shard's
// totals are the fold's identity.
//
//===----------------------------------------------------------------------===//

#include "PartitionLocal.h"

#include "shardc/Dialect/Sc/ScOps.h"

#include "shardrt/cpu/ScanStep.h"

using namespace mlir;
using namespace shardc::sc;

namespace shardc {
using namespace partition;

LogicalResult partition::lowerSplitScan(Partitioner &p, Operation *op,
                                        StringRef kind, int64_t dim,
                                        const std::vector<uint32_t> &in) {
  // The result's split: `in` holds each rank's box of it (insert-reshards
  // gives the operand the same).
  const plan::DimSplit &split = p.shardingOf(op->getResult(0)).layout.dims[dim];
  int64_t members = split.numShards();
  art::IntList gatherInts =
      collectiveInts(dim, std::vector<int64_t>(members, 1));
  std::vector<uint32_t> axes(split.axes.begin(), split.axes.end());
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    Emit e{p.ranks[r]};
    Shape shape = e.shape(in[r]), totals = shape;
    totals[dim] = 1;
    totals.push_back(shardrt::cpu::kPackedScanFloats);
    uint32_t mine = e.tmp(totals);
    art::InstructionSpec &fold =
        e.b.emit(fb::Opcode::ScanTotals, {in[r]}, {mine});
    fold.str = kind.str();
    fold.ints = {dim};
    fold.meshAxes = axes;
    Shape gathered = totals;
    gathered[dim] = members;
    uint32_t all = e.tmp(gathered);
    art::InstructionSpec &gather =
        p.ranks[r].emit(fb::Opcode::AllGather, {mine}, {all});
    gather.ints = gatherInts;
    gather.meshAxes = axes;
    uint32_t y = e.tmp(shape);
    art::InstructionSpec &scan = e.b.emit(fb::Opcode::Scan, {in[r], all}, {y});
    scan.str = kind.str();
    scan.ints = {dim};
    scan.meshAxes = axes;
    p.ranks[r].bind(op->getResult(0), y);
  }
  return success();
}

} // namespace shardc
