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
// The last member's totals are never read, so it sends zeros. An empty
// shard's totals are the fold's identity.
//
// Each member's Scan names how many totals it folds, so members of one
// group never share a rank class (a group_norm split one group per rank
// costs the same): P ranks, P small programs.
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
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    Emit e{p.ranks[r]};
    int64_t g = split.shardOf(p.mesh, p.mesh.coords(r));
    Shape shape = e.shape(in[r]), totals = shape;
    totals[dim] = 1;
    totals.push_back(shardrt::cpu::kPackedScanFloats);
    uint32_t mine;
    if (g == members - 1) {
      mine = e.fill(totals, 0.0);
    } else {
      mine = e.tmp(totals);
      art::InstructionSpec &fold =
          e.b.emit(fb::Opcode::ScanTotals, {in[r]}, {mine});
      fold.str = kind.str();
      fold.ints = {dim};
    }
    Shape gathered = totals;
    gathered[dim] = members;
    uint32_t all = e.tmp(gathered);
    art::InstructionSpec &gather =
        p.ranks[r].emit(fb::Opcode::AllGather, {mine}, {all});
    gather.ints = gatherInts;
    gather.meshAxes.assign(split.axes.begin(), split.axes.end());
    uint32_t y = e.tmp(shape);
    std::vector<uint32_t> ins = {in[r]};
    std::vector<int64_t> ints = {dim};
    if (g > 0) {
      ins.push_back(all);
      ints.push_back(g);
    }
    art::InstructionSpec &scan = e.b.emit(fb::Opcode::Scan, ins, {y});
    scan.str = kind.str();
    scan.ints = ints;
    p.ranks[r].bind(op->getResult(0), y);
  }
  return success();
}

} // namespace shardc
