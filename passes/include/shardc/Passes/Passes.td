//===- Passes.td - shardc passes ---------------------------*- tablegen -*-===//
#ifndef SHARDC_PASSES_TD
#define SHARDC_PASSES_TD

include "mlir/Pass/PassBase.td"

def ScPrintShardingRules : Pass<"sc-print-sharding-rules", "mlir::ModuleOp"> {
  let summary = "Reports every op's sharding rule and windows as remarks";
  let description = [{
    Emits one remark per sc op with the factors of its sharding rule (see
    ShardingRuleOpInterface) and, for windowed ops, the window of every
    windowed dim together with the input range read by the first and by the
    last output index. The partitioner is built on exactly these facts, so lit
    tests pin them through this pass. The IR is left unchanged.

    Input:
    ```mlir
    %y = sc.conv %x, %w {padding = array<i64: 1>}
        : (tensor<1x2x8xf32>, tensor<4x2x3xf32>) -> tensor<1x4x8xf32>
    ```
    Remarks:
    ```
    remark: rule (i, l, k), (j, l, -) -> (i, j, k) {i=1 pass_through, j=4 pass_through, k=8 window, l=2 reduction}
    remark: window dim 2 <- operand 0 dim 2: strided k=3 s=1 d=1 pad=1/1 zeros; out [0,1) reads [-1,2), out [7,8) reads [6,9)
    ```
  }];
}

def ScModelSummary : Pass<"sc-model-summary", "mlir::ModuleOp"> {
  let summary = "Prints what a model holds and what partitioning will add";
  let description = [{
    For every function: the number of ops of each kind, the parameters
    (function arguments without a sharding, counted in elements), the sharded
    values with their per-shard extents on every mesh axis, and for each
    windowed op along each sharded dim the halo widths (low/high) every shard
    will need from its neighbours, computed with the window arithmetic. The
    IR is left unchanged; the report goes to stdout.

    ```
    func @unet: 151 ops, 2337604 parameters
      conv (47), group_norm (36), silu (36), ...
      %x: tensor<1x4x1024x1024xf32> dim 2 over "x": extents [300, 300, 212, 212]
    ```
  }];
}

#endif // SHARDC_PASSES_TD
