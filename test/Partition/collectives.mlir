// Reshards and partial values that are one collective: an all-reduce over
// the partial axes only (a row of a 2-D mesh), a reduce-scatter-v where the
// consumer wants the partial sum split (also over the partial axes listed
// out of mesh order), an all-gather-v over one mesh axis;
// and a bias on a split contraction, added by the ranks at coordinate 0 of
// the partial axes only. Each also runs against the unpartitioned program.
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc %t/row-sum.mlir --emit=kernels | FileCheck %s --check-prefix=ROW
// RUN: shardc %t/row-sum.mlir --emit=plan | FileCheck %s --check-prefix=ROW-PLAN
// RUN: shardc %t/row-sum.mlir -o %t/row-sum.shardbin
// RUN: shard-run %t/row-sum.shardbin --ranks 4 --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/scatter.mlir --emit=kernels | FileCheck %s --check-prefix=RS
// RUN: shardc %t/scatter.mlir --emit=plan | FileCheck %s --check-prefix=RS-PLAN
// RUN: shardc %t/scatter.mlir -o %t/scatter.shardbin
// RUN: shard-run %t/scatter.shardbin --ranks 2 --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/scatter-yx.mlir --emit=kernels | FileCheck %s --check-prefix=RSYX
// RUN: shardc %t/scatter-yx.mlir -o %t/scatter-yx.shardbin
// RUN: shard-run %t/scatter-yx.shardbin --ranks 4 --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/gather.mlir --emit=kernels | FileCheck %s --check-prefix=AG
// RUN: shardc %t/gather.mlir --emit=plan | FileCheck %s --check-prefix=AG-PLAN
// RUN: shardc %t/gather.mlir -o %t/gather.shardbin
// RUN: shard-run %t/gather.shardbin --ranks 4 --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/bias.mlir --emit=kernels | FileCheck %s --check-prefix=BIAS
// RUN: shardc %t/bias.mlir -o %t/bias.shardbin
// RUN: shard-run %t/bias.shardbin --ranks 4 --random-inputs --check | FileCheck %s --check-prefix=OK

// OK: check result0: {{.*}}: ok

//--- row-sum.mlir
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%a: tensor<6x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {"y"}[3, 5]]>})
    -> (tensor<6xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}]>}) {
  %s = sc.sum %a {dims = array<i64: 1>} : (tensor<6x8xf32>) -> tensor<6xf32>
  return %s : tensor<6xf32>
}
// The sum is partial over "y" only: the all-reduce runs within each x row,
// and ranks that differ only in x share a program.
// ROW: rank class 'class0' (ranks [0, 2]):
// ROW-NEXT: Reduce "sum" (%0) -> %1 ints [1]
// ROW-NEXT: AllReduce (%1) -> %2 group [1] reduce Sum
// ROW: rank class 'class1' (ranks [1, 3]):
// ROW-NOT: rank class
// Three rows of partial sums go to and come from the other rank of the row.
// ROW-PLAN: rank class 'class0': ranks [0, 2]
// ROW-PLAN: collectives: 1, bytes sent: 12, received: 12

//--- scatter.mlir
sc.mesh @mesh ["x"=2]
func.func @main(%a: tensor<8x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>})
    -> (tensor<8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[3, 5]]>}) {
  %s = sc.sum %a {dims = array<i64: 1>} : (tensor<8x6xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}
// RS: rank class 'class0' (ranks [0]):
// RS: ReduceScatter (%1) -> %2 ints [0, 3, 5] group [0] reduce Sum
// Each rank sends the blocks it does not keep (5 and 3 floats) and
// receives its own block from the other rank.
// RS-PLAN: rank class 'class0': ranks [0]
// RS-PLAN-NEXT: inputs: (8,3)
// RS-PLAN-NEXT: outputs: (3)
// RS-PLAN-NEXT: collectives: 1, bytes sent: 20, received: 12
// RS-PLAN: rank class 'class1': ranks [1]
// RS-PLAN-NEXT: inputs: (8,3)
// RS-PLAN-NEXT: outputs: (5)
// RS-PLAN-NEXT: collectives: 1, bytes sent: 12, received: 20

//--- scatter-yx.mlir
// The sum is partial over {x, y}; the result is split over ("y", "x"), y
// major: one reduce-scatter whose group lists the axes in the split's
// order, so that member order is shard order (world ranks 0, 2, 1, 3).
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%a: tensor<8x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x", "y"}[1, 2, 1, 2]]>})
    -> (tensor<8xf32> {sc.sharding = #sc.sharding<@mesh, [{"y", "x"}[3, 1, 0, 4]]>}) {
  %s = sc.sum %a {dims = array<i64: 1>} : (tensor<8x6xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}
// RSYX: rank class 'class0' (ranks [0]):
// RSYX: ReduceScatter (%1) -> %2 ints [0, 3, 1, 0, 4] group [1, 0] reduce Sum
// RSYX-NOT: AllReduce

//--- gather.mlir
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%a: tensor<6x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {"y"}[3, 5]]>})
    -> (tensor<6x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}) {
  %r = sc.reshard %a : tensor<6x8xf32> to #sc.sharding<@mesh, [{"x"}, {}]>
  return %r : tensor<6x8xf32>
}
// AG: rank class 'class0' (ranks [0, 2]):
// AG-NEXT: AllGather (%0) -> %1 ints [1, 3, 5] group [1]
// AG: rank class 'class1' (ranks [1, 3]):
// AG-NEXT: AllGather (%0) -> %1 ints [1, 3, 5] group [1]
// AG-NOT: HaloExchange
// AG-PLAN: rank class 'class0': ranks [0, 2]
// AG-PLAN-NEXT: inputs: (3,3)
// AG-PLAN-NEXT: outputs: (3,8)
// It sends its 3 columns of 3 rows and receives the other 5.
// AG-PLAN-NEXT: halo exchanges: 0, collectives: 1, bytes sent: 36, received: 60

//--- bias.mlir
sc.mesh @m ["x"=2, "y"=2]
func.func @main(%x: tensor<6x10xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {"y"}[3, 7]]>},
                %w: tensor<4x10xf32>, %b: tensor<4xf32>) -> tensor<6x4xf32> {
  %y = sc.linear %x, %w, %b : (tensor<6x10xf32>, tensor<4x10xf32>, tensor<4xf32>) -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}
// Ranks at y = 0 add the bias; ranks at y = 1 add zeros.
// The weight is cropped to the rank's part of the contraction.
// BIAS: rank class 'class0' (ranks [0, 2]):
// BIAS-NEXT: Pad "constant" (%1) -> %[[W0:[0-9]+]] ints [0, 0, 0, -7]
// BIAS-NEXT: Linear (%0, %[[W0]], %2) -> %[[P0:[0-9]+]]
// BIAS-NEXT: AllReduce (%[[P0]]) -> %{{[0-9]+}} group [1] reduce Sum
// BIAS: rank class 'class1' (ranks [1, 3]):
// BIAS-NEXT: Pad "constant" (%1) -> %[[W1:[0-9]+]] ints [0, -3, 0, 0]
// BIAS-NEXT: Fill () -> %[[Z:[0-9]+]] floats [0.000000e+00]
// BIAS-NEXT: Linear (%0, %[[W1]], %[[Z]]) -> %[[P1:[0-9]+]]
// BIAS-NEXT: AllReduce (%[[P1]]) -> %{{[0-9]+}} group [1] reduce Sum
