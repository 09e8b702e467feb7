// concat, slice, reshape, transpose: along dims that are not split they run
// locally with no traffic (a transpose carries the split to its new dim);
// a concat or slice along the split dim, and a reshape of a split dim,
// gather their operand first (one AllGather each) and produce a replicated
// result. Pins classes, shapes and counts for uneven, 2-D mesh, one-element
// and world-size-1 splits. For the uneven gathers only the received bytes
// are pinned: a rank sends its own block, the plan reports sent = received.
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc %t/concat-local.mlir --emit=plan | FileCheck %s --check-prefix=CAT
// RUN: shardc %t/concat-split.mlir --emit=plan | FileCheck %s --check-prefix=CATSPLIT
// RUN: shardc %t/concat-split.mlir --emit=kernels | FileCheck %s --check-prefix=KCATSPLIT
// RUN: shardc %t/concat-mesh2d.mlir --emit=plan | FileCheck %s --check-prefix=MESH2D
// RUN: shardc %t/slice-split.mlir --emit=plan | FileCheck %s --check-prefix=SLICE
// RUN: shardc %t/slice-one.mlir --emit=plan | FileCheck %s --check-prefix=ONE
// RUN: sed 's/"x"=4/"x"=1/' %t/slice-one.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=W1
// RUN: shardc %t/slice-huge-step.mlir --emit=kernels | FileCheck %s --check-prefix=STEP
// RUN: shardc %t/slice-huge-step.mlir -o %t/step.shardbin
// RUN: shard-run %t/step.shardbin --random-inputs --check | FileCheck %s --check-prefix=STEPOK
// RUN: shardc %t/reshape.mlir --emit=plan | FileCheck %s --check-prefix=RESHAPE
// RUN: shardc %t/slice-rank9.mlir --emit=plan | FileCheck %s --check-prefix=RANK9
// RUN: shardc %t/slice-rank9.mlir -o %t/rank9.shardbin
// RUN: shard-run %t/rank9.shardbin --random-inputs --check | FileCheck %s --check-prefix=STEPOK
// RUN: shardc %t/transpose.mlir --emit=plan | FileCheck %s --check-prefix=TRANSPOSE

//--- concat-local.mlir
// concat along dim 1 of operands split alike on dim 2 ([6, 4]).
sc.mesh @mesh ["x"=2]
func.func @main(%a: tensor<1x3x10xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[6, 4]]>},
                %b: tensor<1x5x10xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[6, 4]]>}) -> tensor<1x8x10xf32> {
  %y = sc.concat %a, %b {dim = 1} : (tensor<1x3x10xf32>, tensor<1x5x10xf32>) -> tensor<1x8x10xf32>
  return %y : tensor<1x8x10xf32>
}
// CAT: rank class 'class0': ranks [0]
// CAT-NEXT: inputs: (1,3,6) (1,5,6)
// CAT-NEXT: outputs: (1,8,6)
// CAT-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// CAT: rank class 'class1': ranks [1]
// CAT-NEXT: inputs: (1,3,4) (1,5,4)
// CAT-NEXT: outputs: (1,8,4)
// CAT-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// CAT-NOT: rank class

//--- concat-split.mlir
// concat along the split dim 2: %a ([6, 4]) and %b ([3, 3]) are gathered.
// Rank 0 receives 4 + 3 columns of 3 floats (84 B), rank 1 6 + 3 (108 B).
sc.mesh @mesh ["x"=2]
func.func @main(%a: tensor<1x3x10xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[6, 4]]>},
                %b: tensor<1x3x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>}) -> tensor<1x3x16xf32> {
  %y = sc.concat %a, %b {dim = 2} : (tensor<1x3x10xf32>, tensor<1x3x6xf32>) -> tensor<1x3x16xf32>
  return %y : tensor<1x3x16xf32>
}
// CATSPLIT: rank class 'class0': ranks [0]
// CATSPLIT-NEXT: inputs: (1,3,6) (1,3,3)
// CATSPLIT-NEXT: outputs: (1,3,16)
// CATSPLIT-NEXT: halo exchanges: 0, collectives: 2, bytes sent: {{[0-9]+}}, received: 84
// CATSPLIT: rank class 'class1': ranks [1]
// CATSPLIT-NEXT: inputs: (1,3,4) (1,3,3)
// CATSPLIT-NEXT: outputs: (1,3,16)
// CATSPLIT-NEXT: halo exchanges: 0, collectives: 2, bytes sent: {{[0-9]+}}, received: 108
// CATSPLIT-NOT: rank class
// KCATSPLIT: AllGather (%0) -> %[[A:[0-9]+]] ints [2, 6, 4] group [0]
// KCATSPLIT-NEXT: AllGather (%1) -> %[[B:[0-9]+]] ints [2, 3, 3] group [0]
// KCATSPLIT-NEXT: Concat (%[[A]], %[[B]]) -> %{{[0-9]+}} ints [2]

//--- concat-mesh2d.mlir
// concat along dim 0 with dims 1 and 2 split over x and y: one program.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%a: tensor<2x4x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {"y"}]>},
                %b: tensor<3x4x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {"y"}]>}) -> tensor<5x4x6xf32> {
  %y = sc.concat %a, %b {dim = 0} : (tensor<2x4x6xf32>, tensor<3x4x6xf32>) -> tensor<5x4x6xf32>
  return %y : tensor<5x4x6xf32>
}
// MESH2D: rank class 'class0': ranks [0..3]
// MESH2D-NEXT: inputs: (2,2,3) (3,2,3)
// MESH2D-NEXT: outputs: (5,2,3)
// MESH2D-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// MESH2D-NOT: rank class

//--- slice-split.mlir
// x[:, 3:13:2] with dim 1 split [7, 5, 4]: gathered first; every rank
// receives the 16 - own columns of 2 floats: 72, 88, 96 B.
sc.mesh @mesh ["x"=3]
func.func @main(%a: tensor<2x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[7, 5, 4]]>}) -> tensor<2x5xf32> {
  %y = sc.slice %a {start = array<i64: 0, 3>, end = array<i64: 2, 13>, step = array<i64: 1, 2>} : (tensor<2x16xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}
// SLICE: rank class 'class0': ranks [0]
// SLICE-NEXT: inputs: (2,7)
// SLICE-NEXT: outputs: (2,5)
// SLICE-NEXT: halo exchanges: 0, collectives: 1, bytes sent: {{[0-9]+}}, received: 72
// SLICE: rank class 'class1': ranks [1]
// SLICE-NEXT: inputs: (2,5)
// SLICE-NEXT: outputs: (2,5)
// SLICE-NEXT: halo exchanges: 0, collectives: 1, bytes sent: {{[0-9]+}}, received: 88
// SLICE: rank class 'class2': ranks [2]
// SLICE-NEXT: inputs: (2,4)
// SLICE-NEXT: outputs: (2,5)
// SLICE-NEXT: halo exchanges: 0, collectives: 1, bytes sent: {{[0-9]+}}, received: 96
// SLICE-NOT: rank class

//--- slice-one.mlir
// x[0:4:3, :] on an unsplit dim, one column per rank: rows 0 and 3 locally.
sc.mesh @mesh ["x"=4]
func.func @main(%a: tensor<5x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>}) -> tensor<2x4xf32> {
  %y = sc.slice %a {start = array<i64: 0, 0>, end = array<i64: 4, 4>, step = array<i64: 3, 1>} : (tensor<5x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
// ONE: rank class 'class0': ranks [0..3]
// ONE-NEXT: inputs: (5,1)
// ONE-NEXT: outputs: (2,1)
// ONE-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// ONE-NOT: rank class
// W1: rank class 'all': ranks [0]
// W1-NEXT: inputs: (5,4)
// W1-NEXT: outputs: (2,4)
// W1-NOT: rank class

//--- reshape.mlir
// Reshapes touching the split dim 1 (8 over 2): merging it as the major
// dim of (8, 3) -> 24 keeps the split (12 each, no communication); as the
// minor dim of (2, 8) -> 16 it must be gathered first: 2 x 4 rows x 3
// floats = 96 B each way.
sc.mesh @mesh ["x"=2]
func.func @main(%a: tensor<2x8x3xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>}) -> (tensor<2x24xf32>, tensor<16x3xf32>) {
  %y = sc.reshape %a : (tensor<2x8x3xf32>) -> tensor<2x24xf32>
  %z = sc.reshape %a : (tensor<2x8x3xf32>) -> tensor<16x3xf32>
  return %y, %z : tensor<2x24xf32>, tensor<16x3xf32>
}
// RESHAPE: rank class 'class0': ranks [0, 1]
// RESHAPE-NEXT: inputs: (2,4,3)
// RESHAPE-NEXT: outputs: (2,12) (16,3)
// RESHAPE-NEXT: halo exchanges: 0, collectives: 1, bytes sent: 96, received: 96
// RESHAPE-NOT: rank class

//--- transpose.mlir
// transpose(1, 2) moves the [5, 3] split from dim 1 to dim 2.
sc.mesh @mesh ["x"=2]
func.func @main(%a: tensor<2x8x3xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[5, 3], {}]>}) -> tensor<2x3x8xf32> {
  %y = sc.transpose %a {dim0 = 1, dim1 = 2} : (tensor<2x8x3xf32>) -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}
// TRANSPOSE: rank class 'class0': ranks [0]
// TRANSPOSE-NEXT: inputs: (2,5,3)
// TRANSPOSE-NEXT: outputs: (2,3,5)
// TRANSPOSE-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// TRANSPOSE: rank class 'class1': ranks [1]
// TRANSPOSE-NEXT: inputs: (2,3,3)
// TRANSPOSE-NEXT: outputs: (2,3,3)
// TRANSPOSE-NOT: rank class

//--- slice-huge-step.mlir
// A dim sliced to one element reads its start alone: its step (past the
// runtime's 2^40 bound here) is lowered as 1. Before, shard-run refused it.
sc.mesh @mesh ["x"=2]
func.func @main(%a: tensor<4x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>}) -> tensor<1x6xf32> {
  %c = sc.slice %a {start = array<i64: 1, 0>, end = array<i64: 4, 6>, step = array<i64: 1099511627777, 1>} : (tensor<4x6xf32>) -> tensor<1x6xf32>
  return %c : tensor<1x6xf32>
}
// STEP: rank class 'class0' (ranks [0, 1]):
// STEP-NEXT: Slice (%0) -> %1 ints [1, 0, 1, 1]
// STEPOK: check result0: max abs error 0, {{.*}}: ok

//--- slice-rank9.mlir
// 9-D: each rank cuts its rows from the replicated input with a Pad of 18
// ints, more than a rank-class key writes inline (it names them by number).
// The lists differ per rank, so the ranks, alike in every shape, are still
// four classes.
sc.mesh @m ["x"=4]
func.func @main(%x: tensor<1x1x1x1x8x1x1x1x2xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {}, {}, {}, {}, {}, {}, {}]>}) -> (tensor<1x1x1x1x8x1x1x1x2xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {}, {}, {"x"}, {}, {}, {}, {}]>}) {
  %y = sc.slice %x {start = array<i64: 0,0,0,0,0,0,0,0,0>, end = array<i64: 1,1,1,1,8,1,1,1,2>, step = array<i64: 1,1,1,1,1,1,1,1,1>} : (tensor<1x1x1x1x8x1x1x1x2xf32>) -> tensor<1x1x1x1x8x1x1x1x2xf32>
  return %y : tensor<1x1x1x1x8x1x1x1x2xf32>
}
// RANK9: rank class 'class0': ranks [0]
// RANK9: rank class 'class1': ranks [1]
// RANK9: rank class 'class2': ranks [2]
// RANK9: rank class 'class3': ranks [3]
// RANK9-NOT: rank class
