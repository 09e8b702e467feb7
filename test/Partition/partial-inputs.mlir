// Arguments declared partial: each rank passes a contribution and the value
// is their sum, max, min or mean over the partial axes. One all-reduce
// resolves it where it is read whole; a reduce-scatter where it is returned
// split over the partial axes. A mean sums and then scales by 1 / the ranks
// along the axes (it once only summed: N times too large). shard-run hands
// a sum's value to the ranks at coordinate 0 of the partial axes and zeros
// to the rest, and every rank the value for max, min and mean; the results
// then match the unpartitioned model.
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc %t/whole.mlir --emit=kernels | FileCheck %s --check-prefix=WHOLE
// RUN: shardc %t/split.mlir --emit=kernels | FileCheck %s --check-prefix=SPLIT
// RUN: for k in sum max min mean; do sed "s/partial mean/partial $k/" %t/whole.mlir | shardc - -o %t/whole-$k.shardbin && shard-run %t/whole-$k.shardbin --random-inputs --check || exit 1; done | FileCheck %s --check-prefix=RAN
// RUN: for k in sum max min mean; do sed "s/partial mean/partial $k/" %t/split.mlir | shardc - -o %t/split-$k.shardbin && shard-run %t/split-$k.shardbin --random-inputs --check || exit 1; done | FileCheck %s --check-prefix=RAN1
// bf16 and f16 partial inputs are reduced in f32 (collectives reduce f32)
// and rounded back once: widened, all-reduced or reduce-scattered, scaled
// for a mean, narrowed. They match the unpartitioned model exactly.
// RUN: for t in bf16 f16; do for k in sum max min mean; do sed "s/partial mean/partial $k/; s/xf32>/x$t>/g" %t/whole.mlir | shardc - -o %t/whole-$t-$k.shardbin && shard-run %t/whole-$t-$k.shardbin --random-inputs --check --atol 0 --rtol 0 || exit 1; done; done | FileCheck %s --check-prefix=RAN16
// RUN: for t in bf16 f16; do for k in sum max min mean; do sed "s/partial mean/partial $k/; s/xf32>/x$t>/g" %t/split.mlir | shardc - -o %t/split-$t-$k.shardbin && shard-run %t/split-$t-$k.shardbin --random-inputs --check --atol 0 --rtol 0 || exit 1; done; done | FileCheck %s --check-prefix=RAN116
// RUN: sed "s/xf32>/xbf16>/g" %t/whole.mlir | shardc - --emit=kernels | FileCheck %s --check-prefix=WHOLE16

// RAN-COUNT-8: check result{{[01]}}: {{.*}}: ok
// RAN1-COUNT-4: check result0: {{.*}}: ok
// RAN16-COUNT-16: check result{{[01]}}: {{.*}}: ok
// RAN116-COUNT-8: check result0: {{.*}}: ok
// WHOLE16: rank class 'class0' (ranks [0..2]):
// WHOLE16-NEXT: Cast (%0) -> %[[WIDE:[0-9]+]]
// WHOLE16-NEXT: AllReduce (%[[WIDE]]) -> %[[SUM:[0-9]+]] group [1] reduce Sum
// WHOLE16-NEXT: Fill () -> %[[THIRD:[0-9]+]] floats [3.333333e-01]
// WHOLE16-NEXT: Binary "mul" (%[[SUM]], %[[THIRD]]) -> %[[MEAN:[0-9]+]]
// WHOLE16-NEXT: Cast (%[[MEAN]])

//--- whole.mlir
// Partial over "y" (3 ranks), read whole by exp and by a split result.
sc.mesh @m ["x"=2, "y"=3]
func.func @main(%x: tensor<6x4xf32> {sc.sharding = #sc.sharding<@m, [{}, {}], partial mean {"y"}>})
    -> (tensor<6x4xf32>, tensor<6x4xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}) {
  %e = sc.exp %x : tensor<6x4xf32>
  %f = sc.neg %x : tensor<6x4xf32>
  return %e, %f : tensor<6x4xf32>, tensor<6x4xf32>
}
// WHOLE: rank class 'class0' (ranks [0..2]):
// WHOLE-NEXT: AllReduce (%0) -> %[[SUM:[0-9]+]] group [1] reduce Sum
// WHOLE-NEXT: Fill () -> %[[THIRD:[0-9]+]] floats [3.333333e-01]
// WHOLE-NEXT: Binary "mul" (%[[SUM]], %[[THIRD]])

//--- split.mlir
// Returned split over the partial axis, unevenly with an empty shard.
sc.mesh @m ["x"=2, "y"=3]
func.func @main(%x: tensor<7x4xf32> {sc.sharding = #sc.sharding<@m, [{}, {}], partial mean {"y"}>})
    -> (tensor<7x4xf32> {sc.sharding = #sc.sharding<@m, [{"y"}[3, 0, 4], {}]>}) {
  return %x : tensor<7x4xf32>
}
// SPLIT: rank class 'class0' (ranks [0, 3]):
// SPLIT-NEXT: ReduceScatter (%0) -> %[[SUM:[0-9]+]] ints [0, 3, 0, 4] group [1] reduce Sum
// SPLIT-NEXT: Fill () -> %[[THIRD:[0-9]+]] floats [3.333333e-01]
// SPLIT-NEXT: Binary "mul" (%[[SUM]], %[[THIRD]])
