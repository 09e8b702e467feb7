//===- ModelSummary.cpp - sc-model-summary
//---------------------------------===//
//
// A read-only report for the quick start: what the model holds and the halo
// traffic partitioning will add. Halo widths assume that every windowed op's
// dims are split over as many shards as the matching dim of the function's
// sharded input, canonically; sharding propagation derives the real extents.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Sc/ScOps.h"
#include "shardc/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/raw_ostream.h"

namespace shardc {
#define GEN_PASS_DEF_SCMODELSUMMARY
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc::sc;

namespace {

int64_t numElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? tensor.getNumElements() : 0;
}

/// Per-shard extents of `dim` under `sharding` (explicit or canonical).
std::vector<int64_t> dimExtents(ShardingAttr sharding, MeshOp mesh,
                                RankedTensorType type, int64_t dim) {
  DimShardingAttr d = sharding.getDims()[dim];
  if (!d.getExtents().empty())
    return std::vector<int64_t>(d.getExtents().begin(), d.getExtents().end());
  int64_t shards = 1;
  for (StringAttr axis : d.getAxes())
    shards *= mesh.getShape()[mesh.getAxisIndex(axis.getValue())];
  return canonicalExtents(type.getDimSize(dim), shards);
}

/// Halo widths (low, high) each shard needs for a windowed dim split into
/// `shards` canonical output blocks.
std::vector<std::pair<int64_t, int64_t>> haloWidths(const WindowSpec &spec,
                                                    int64_t shards) {
  std::vector<int64_t> out = canonicalExtents(spec.outputSize, shards);
  std::vector<int64_t> in = canonicalExtents(spec.inputSize, shards);
  std::vector<std::pair<int64_t, int64_t>> halos;
  int64_t outLo = 0, inLo = 0;
  for (int64_t s = 0; s < shards; ++s) {
    Interval need = virtualInputRange(spec, {outLo, outLo + out[s]});
    int64_t lo =
        out[s] ? std::max<int64_t>(0, inLo - std::max<int64_t>(need.lo, 0)) : 0;
    int64_t hi = out[s]
                     ? std::max<int64_t>(0, std::min(need.hi, spec.inputSize) -
                                                (inLo + in[s]))
                     : 0;
    halos.push_back({lo, hi});
    outLo += out[s];
    inLo += in[s];
  }
  return halos;
}

void summarize(func::FuncOp func, llvm::raw_ostream &os) {
  llvm::MapVector<StringRef, int64_t> opCounts;
  int64_t numOps = 0;
  func.walk([&](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "sc") {
      ++opCounts[op->getName().stripDialect()];
      ++numOps;
    }
  });
  int64_t params = 0;
  // Shards per dim index of the sharded inputs, to preview halos with.
  llvm::DenseMap<int64_t, int64_t> shardsPerDim;
  std::string sharded;
  llvm::raw_string_ostream shardedOs(sharded);
  for (BlockArgument arg : func.getArguments()) {
    auto sharding = func.getArgAttrOfType<ShardingAttr>(
        arg.getArgNumber(), ScDialect::kShardingAttrName);
    if (!sharding || sharding.isReplicated()) {
      params += numElements(arg.getType());
      continue;
    }
    auto mesh =
        SymbolTable::lookupNearestSymbolFrom<MeshOp>(func, sharding.getMesh());
    auto type = cast<RankedTensorType>(arg.getType());
    for (auto [dim, d] : llvm::enumerate(sharding.getDims())) {
      if (d.getAxes().empty())
        continue;
      std::vector<int64_t> extents = dimExtents(sharding, mesh, type, dim);
      shardsPerDim[dim] = extents.size();
      shardedOs << "  arg #" << arg.getArgNumber() << " " << type << " dim "
                << dim << " over " << extents.size() << " shards: extents [";
      llvm::interleaveComma(extents, shardedOs);
      shardedOs << "]\n";
    }
  }
  os << "func @" << func.getSymName() << ": " << numOps << " sc ops, " << params
     << " parameters (unsharded arguments)\n  ops:";
  for (auto [name, count] : opCounts)
    os << " " << name << " x" << count;
  os << "\n" << sharded;

  int64_t exchanges = 0;
  func.walk([&](WindowOpInterface op) {
    // A circular pad with crops has no window of its input; the two pads
    // sc-decompose-forms makes of it have, with halos of their own.
    if (!isCoreForm(op)) {
      os << "  halo " << op->getName().stripDialect() << " at " << op->getLoc()
         << ": after sc-decompose-forms (circular crops)\n";
      return;
    }
    for (const WindowedDim &w : op.getWindowedDims()) {
      auto it = shardsPerDim.find(w.resultDim);
      if (it == shardsPerDim.end() || it->second < 2)
        continue;
      auto halos = haloWidths(w.spec, it->second);
      if (llvm::all_of(halos,
                       [](auto h) { return h.first == 0 && h.second == 0; }))
        continue; // pointwise along this dim (1x1 conv, 2x upsampling)
      ++exchanges;
      os << "  halo " << op->getName().stripDialect() << " at " << op->getLoc()
         << " dim " << w.resultDim << " (lo/hi per shard):";
      for (auto [lo, hi] : halos)
        os << " " << lo << "/" << hi;
      os << "\n";
    }
  });
  os << "  " << exchanges
     << " halo exchanges to insert (assuming canonical splits per op)\n";
}

struct ModelSummaryPass : shardc::impl::ScModelSummaryBase<ModelSummaryPass> {
  void runOnOperation() override {
    getOperation().walk(
        [](func::FuncOp func) { summarize(func, llvm::outs()); });
  }
};

} // namespace
