//===- PartitionScan.cpp - Cumulative ops over a split dim ----------------===//
//
// A cumulative op (sc.cumsum, ...) whose scanned dim is split: element i of
// shard g folds the elements of shards 0..g-1 before its own prefix. Each
// rank takes its shard's total (a reduction, or the last element of its
// local scan), one all-gather of those totals over the dim's group (members
// in shard order) gives every rank all of them, a scan of the gathered
// totals along the group gives each member the fold of the members before
// it, and the rank scans its shard again starting from that carry. The
// carry enters the running value (in double) before the first element, as
// a single device's scan would hold it, rather than being added to the
// rounded local results afterwards.
//
// The last member's total is never read, so it sends the fold's identity.
// An empty shard's total is the identity as well.
//
//===----------------------------------------------------------------------===//

#include "PartitionLocal.h"

#include "shardc/Dialect/Sc/ScOps.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace shardc::sc;

namespace shardc {
using namespace partition;
namespace {

double identityOf(StringRef kind) {
  double inf = std::numeric_limits<double>::infinity();
  if (kind == "sum")
    return 0.0;
  if (kind == "prod")
    return 1.0;
  return kind == "min" ? inf : -inf;
}

/// The runtime Reduce that gives a shard's total directly, or null when
/// only the scan's last element does (prod and logsumexp have no Reduce).
const char *totalReduction(StringRef kind) {
  if (kind == "sum")
    return "sum";
  if (kind == "max")
    return "amax";
  if (kind == "min")
    return "amin";
  return nullptr;
}

/// A Scan of x along dim, starting from `init` (x's shape with dim of size
/// 1) when given.
uint32_t scan(Emit &e, StringRef kind, uint32_t x, int64_t dim,
              std::optional<uint32_t> init) {
  uint32_t y = e.tmp(e.shape(x));
  std::vector<uint32_t> ins = {x};
  if (init)
    ins.push_back(*init);
  art::InstructionSpec &inst = e.b.emit(fb::Opcode::Scan, ins, {y});
  inst.str = kind.str();
  inst.ints = {dim};
  return y;
}

} // namespace

LogicalResult partition::lowerSplitScan(Partitioner &p, Operation *op,
                                        StringRef kind, int64_t dim,
                                        const std::vector<uint32_t> &in) {
  const plan::DimSplit &split =
      p.shardingOf(op->getOperand(0)).layout.dims[dim];
  int64_t members = split.numShards();
  art::IntList gatherInts = collectiveInts(0, std::vector<int64_t>(members, 1));
  for (int64_t r = 0; r < p.numRanks(); ++r) {
    Emit e{p.ranks[r]};
    int64_t g = split.shardOf(p.mesh, p.mesh.coords(r));
    Shape shape = e.shape(in[r]), line = shape;
    line[dim] = 1;
    std::optional<uint32_t> local;
    uint32_t total;
    if (g == members - 1 || shape[dim] == 0) {
      total = e.fill(line, identityOf(kind));
    } else if (const char *reduction = totalReduction(kind)) {
      total = e.reduce(reduction, in[r], {dim}, true);
    } else {
      local = scan(e, kind, in[r], dim, std::nullopt);
      Shape last(shape.size(), 0);
      last[dim] = shape[dim] - 1;
      total = e.slice(*local, last, line);
    }
    Shape gathered = line;
    gathered.insert(gathered.begin(), members);
    Shape one = line;
    one.insert(one.begin(), 1);
    uint32_t mine = e.reshape(total, one);
    uint32_t all = e.tmp(gathered);
    art::InstructionSpec &gather =
        p.ranks[r].emit(fb::Opcode::AllGather, {mine}, {all});
    gather.ints = gatherInts;
    gather.meshAxes.assign(split.axes.begin(), split.axes.end());
    uint32_t result;
    if (g == 0) {
      result = local ? *local : scan(e, kind, in[r], dim, std::nullopt);
    } else {
      // The fold of members 0..g-1's totals: a scan along the group.
      Shape at(gathered.size(), 0);
      at[0] = g - 1;
      uint32_t carry = e.reshape(
          e.slice(scan(e, kind, all, 0, std::nullopt), at, one), line);
      result = scan(e, kind, in[r], dim, carry);
    }
    p.ranks[r].bind(op->getResult(0), result);
  }
  return success();
}

} // namespace shardc
