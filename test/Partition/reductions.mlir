// Reductions: reducing a split dim leaves a partial value (sum, max or min;
// a mean is a local sum scaled by 1 / the global count) that one AllReduce
// over the partial mesh axes resolves where it is returned; reducing only
// unsplit dims keeps the split and moves nothing. Pins classes, shapes,
// collective counts and kinds, and the mean scale, for even, uneven, 2-D
// mesh (all axes and one axis), one-element and world-size-1 splits, and
// amax/amin where some ranks' shards are empty: those ranks fill the
// identity (-inf/+inf) the all-reduce ignores, as the runtime's Reduce has no
// value for a max over nothing.
// All-reduce traffic is not counted in the plan's bytes today, so those are
// left unpinned on lines with collectives.
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc %t/even.mlir --emit=plan | FileCheck %s --check-prefix=EVEN
// RUN: shardc %t/even.mlir --emit=kernels | FileCheck %s --check-prefix=KEVEN
// Its propagated IR, partial shardings on op results included, compiles
// again to the same program (such a sharding is no user pin).
// RUN: shardc %t/even.mlir --emit=sharded | shardc - --emit=kernels | FileCheck %s --check-prefix=KEVEN
// RUN: shardc %t/uneven.mlir --emit=plan | FileCheck %s --check-prefix=UNEVEN
// RUN: shardc %t/uneven.mlir --emit=kernels | FileCheck %s --check-prefix=KUNEVEN
// RUN: shardc %t/mesh2d.mlir --emit=plan | FileCheck %s --check-prefix=MESH2D
// RUN: shardc %t/mesh2d.mlir --emit=kernels | FileCheck %s --check-prefix=KMESH2D
// RUN: shardc %t/one.mlir --emit=plan | FileCheck %s --check-prefix=ONE
// RUN: shardc %t/one.mlir --emit=kernels | FileCheck %s --check-prefix=KONE
// RUN: sed 's/"x"=4/"x"=1/' %t/one.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=W1
// RUN: shardc %t/empty-shards.mlir --emit=kernels | FileCheck %s --check-prefix=KEMPTY
// RUN: shardc %t/empty-shards.mlir -o %t/empty-shards.shardbin
// RUN: shard-run %t/empty-shards.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN
// RUN: shardc -O2 %t/empty-shards.mlir -o %t/empty-shards-o2.shardbin
// RUN: shard-run %t/empty-shards-o2.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN

//--- even.mlir
// dim 1 (8) over 4: 2 rows each. sum over all dims and amax over (0, 1)
// are partial over "x" (2 all-reduces); mean over dim 2 keeps the split.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<2x8x3xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>}) -> (tensor<f32>, tensor<2x8xf32>, tensor<3xf32>) {
  %s = sc.sum %x : (tensor<2x8x3xf32>) -> tensor<f32>
  %m = sc.mean %x {dims = array<i64: 2>} : (tensor<2x8x3xf32>) -> tensor<2x8xf32>
  %a = sc.amax %x {dims = array<i64: 0, 1>} : (tensor<2x8x3xf32>) -> tensor<3xf32>
  return %s, %m, %a : tensor<f32>, tensor<2x8xf32>, tensor<3xf32>
}
// EVEN: rank class 'class0': ranks [0..3]
// EVEN-NEXT: inputs: (2,2,3)
// EVEN-NEXT: outputs: () (2,2) (3)
// EVEN-NEXT: halo exchanges: 0, collectives: 2,
// EVEN-NOT: rank class
// KEVEN: Reduce "sum" (%0) -> %[[S:[0-9]+]] ints [0, 1, 2]
// KEVEN: Reduce "mean" (%0) -> %{{[0-9]+}} ints [2]
// KEVEN: Reduce "amax" (%0) -> %[[A:[0-9]+]] ints [0, 1]
// KEVEN: AllReduce (%[[S]]) -> %{{[0-9]+}} group [0] reduce Sum
// KEVEN: AllReduce (%[[A]]) -> %{{[0-9]+}} group [0] reduce Max
// KEVEN-NOT: AllReduce

//--- uneven.mlir
// mean over the split dim 1 (8 over [5, 2, 1]): every rank sums its rows
// and scales by 1/8 (the global count, not its own 5, 2 or 1), then one
// all-reduce sums the three partial means.
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<2x8x3xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[5, 2, 1], {}]>}) -> tensor<2x3xf32> {
  %m = sc.mean %x {dims = array<i64: 1>} : (tensor<2x8x3xf32>) -> tensor<2x3xf32>
  return %m : tensor<2x3xf32>
}
// UNEVEN: rank class 'class0': ranks [0]
// UNEVEN-NEXT: inputs: (2,5,3)
// UNEVEN-NEXT: outputs: (2,3)
// UNEVEN-NEXT: halo exchanges: 0, collectives: 1,
// UNEVEN: rank class 'class1': ranks [1]
// UNEVEN-NEXT: inputs: (2,2,3)
// UNEVEN-NEXT: outputs: (2,3)
// UNEVEN-NEXT: halo exchanges: 0, collectives: 1,
// UNEVEN: rank class 'class2': ranks [2]
// UNEVEN-NEXT: inputs: (2,1,3)
// UNEVEN-NEXT: outputs: (2,3)
// UNEVEN-NEXT: halo exchanges: 0, collectives: 1,
// UNEVEN-NOT: rank class
// KUNEVEN: rank class 'class2'
// KUNEVEN: Reduce "sum" (%0) -> %{{[0-9]+}} ints [1]
// KUNEVEN: Fill () -> %{{[0-9]+}} floats [1.250000e-01]
// KUNEVEN: AllReduce
// KUNEVEN-SAME: group [0] reduce Sum

//--- mesh2d.mlir
// dim 1 (6) over x, dim 2 (5) over y ([3, 2]). sum over (1, 2) is partial
// over both axes: one all-reduce over group [0, 1]. sum over dim 2 only is
// partial over "y" and stays split over "x": an all-reduce over group [1]
// (within each mesh row), result (4, 3) per rank.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%x: tensor<4x6x5xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {"y"}]>}) -> (tensor<4xf32>, tensor<4x6xf32>) {
  %s = sc.sum %x {dims = array<i64: 1, 2>} : (tensor<4x6x5xf32>) -> tensor<4xf32>
  %t = sc.sum %x {dims = array<i64: 2>} : (tensor<4x6x5xf32>) -> tensor<4x6xf32>
  return %s, %t : tensor<4xf32>, tensor<4x6xf32>
}
// MESH2D: rank class 'class0': ranks [0, 2]
// MESH2D-NEXT: inputs: (4,3,3)
// MESH2D-NEXT: outputs: (4) (4,3)
// MESH2D-NEXT: halo exchanges: 0, collectives: 2,
// MESH2D: rank class 'class1': ranks [1, 3]
// MESH2D-NEXT: inputs: (4,3,2)
// MESH2D-NEXT: outputs: (4) (4,3)
// MESH2D-NEXT: halo exchanges: 0, collectives: 2,
// MESH2D-NOT: rank class
// KMESH2D: AllReduce
// KMESH2D-SAME: group [0, 1] reduce Sum
// KMESH2D: AllReduce
// KMESH2D-SAME: group [1] reduce Sum

//--- one.mlir
// amin over the split dim, one element per rank: the local amin is the
// element itself, then an all-reduce Min. With "x"=1 no collective.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<3x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>}) -> tensor<3x1xf32> {
  %s = sc.amin %x {dims = array<i64: 1>, keepdim = true} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  return %s : tensor<3x1xf32>
}
// ONE: rank class 'class0': ranks [0..3]
// ONE-NEXT: inputs: (3,1)
// ONE-NEXT: outputs: (3,1)
// ONE-NEXT: halo exchanges: 0, collectives: 1,
// ONE-NOT: rank class
// KONE: AllReduce
// KONE-SAME: group [0] reduce Min
// W1: rank class 'all': ranks [0]
// W1-NEXT: inputs: (3,4)
// W1-NEXT: outputs: (3,1)
// W1-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// W1-NOT: rank class

//--- empty-shards.mlir
// Dim 0 holds 3 rows over "x"=2 as [3, 0]; dim 1 holds 4 over "y"=2 as
// [1, 3]; dim 2 is whole. Ranks 2 and 3 (x = 1) hold no rows.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%x: tensor<3x4x5xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[3, 0], {"y"}[1, 3], {}]>})
    -> (tensor<5xf32>, tensor<1x1x5xf32>) {
  %e = sc.exp %x : tensor<3x4x5xf32>
  %a = sc.amax %e {dims = array<i64: 0, 1>} : (tensor<3x4x5xf32>) -> tensor<5xf32>
  %n = sc.neg %e : tensor<3x4x5xf32>
  %b = sc.amin %n {dims = array<i64: 0, 1>, keepdim = true} : (tensor<3x4x5xf32>) -> tensor<1x1x5xf32>
  return %a, %b : tensor<5xf32>, tensor<1x1x5xf32>
}
// KEMPTY: rank class 'class0' (ranks [0]):
// KEMPTY: Reduce "amax"
// KEMPTY: Reduce "amin"
// KEMPTY: rank class 'class2' (ranks [2]):
// KEMPTY: Fill () -> %{{[0-9]+}} floats [-INF]  // sc.amax
// KEMPTY: Fill () -> %{{[0-9]+}} floats [INF]  // sc.amin
// KEMPTY: AllReduce
// KEMPTY-SAME: reduce Max
// KEMPTY: AllReduce
// KEMPTY-SAME: reduce Min
// RAN: check result0: {{.*}}: ok
// RAN: check result1: {{.*}}: ok
