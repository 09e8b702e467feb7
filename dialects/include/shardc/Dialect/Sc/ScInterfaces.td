//===- ScInterfaces.td - sharding-rule and window interfaces -*- tablegen -*-===//
#ifndef SHARDC_DIALECT_SC_INTERFACES_TD
#define SHARDC_DIALECT_SC_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Sc_ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::shardc::sc";
  let description = [{
    Describes how an op's dimensions relate, as *factors* shared between
    operand and result dimensions (in the spirit of Shardy's OpShardingRule).
    Each factor has a kind that tells the partitioner what sharding that factor
    costs: pass-through (local), reduction/contraction (partial result),
    window (halo exchange), statistic (global moments through one fused
    all-reduce) or needs-replication (must be gathered first).
  }];
  let methods = [
    InterfaceMethod<"Returns the op's sharding rule.",
      "::shardc::sc::ShardingRule", "getShardingRule">
  ];
}

def Sc_WindowOpInterface : OpInterface<"WindowOpInterface"> {
  let cppNamespace = "::shardc::sc";
  let description = [{
    For ops whose output index along a dimension reads a window of input
    indices (convolution, transposed convolution, pooling, interpolation,
    padding, neighbourhood attention): one WindowSpec per such dimension.
    `shardc::sc::virtualInputRange` / `inputIntervals` map an output index
    range to the input range it needs; the halo planner is built on them.
  }];
  let methods = [
    InterfaceMethod<"Returns one entry per windowed (operand, dim) pair.",
      "std::vector<::shardc::sc::WindowedDim>", "getWindowedDims">
  ];
}

#endif // SHARDC_DIALECT_SC_INTERFACES_TD
