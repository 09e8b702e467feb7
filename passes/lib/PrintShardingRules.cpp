//===- PrintShardingRules.cpp - sc-print-sharding-rules -------------------===//

#include "shardc/Dialect/Sc/ScOps.h"
#include "shardc/Passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"

#include <sstream>

namespace shardc {
#define GEN_PASS_DEF_SCPRINTSHARDINGRULES
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc::sc;

namespace {

const char *kindName(const WindowSpec &spec) {
  switch (spec.kind) {
  case WindowKind::Strided:
    return "strided";
  case WindowKind::Transposed:
    return "transposed";
  case WindowKind::Resize:
    return "resize";
  case WindowKind::Pad:
    return "pad";
  case WindowKind::Neighborhood:
    return "neighborhood";
  }
  return "?";
}

const char *boundaryName(BoundaryMode mode) {
  switch (mode) {
  case BoundaryMode::Zeros:
    return "zeros";
  case BoundaryMode::Reflect:
    return "reflect";
  case BoundaryMode::Replicate:
    return "replicate";
  case BoundaryMode::Circular:
    return "circular";
  }
  return "?";
}

std::string describeWindow(const WindowedDim &w) {
  const WindowSpec &s = w.spec;
  std::ostringstream os;
  os << "window dim " << w.resultDim << " <- operand " << w.operand << " dim "
     << w.inputDim << ": " << kindName(s) << " n=" << s.inputSize
     << " out=" << s.outputSize << " k=" << s.kernel << " s=" << s.stride
     << " d=" << s.dilation << " pad=" << s.padLow << "/" << s.padHigh << " "
     << boundaryName(s.boundary);
  auto reads = [&](int64_t o) {
    Interval r = virtualInputRange(s, {o, o + 1});
    os << "out [" << o << "," << o + 1 << ") reads [" << r.lo << "," << r.hi
       << ")";
  };
  os << "; ";
  reads(0);
  os << ", ";
  reads(s.outputSize - 1);
  return os.str();
}

struct PrintShardingRulesPass
    : shardc::impl::ScPrintShardingRulesBase<PrintShardingRulesPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (!isCoreForm(op)) {
        op->emitRemark() << "no rule: sc-decompose-forms rewrites this form";
        return;
      }
      if (auto rule = dyn_cast<ShardingRuleOpInterface>(op))
        op->emitRemark() << "rule " << rule.getShardingRule().toString();
      if (auto windows = dyn_cast<WindowOpInterface>(op))
        for (const WindowedDim &w : windows.getWindowedDims())
          op->emitRemark() << describeWindow(w);
    });
  }
};

} // namespace
