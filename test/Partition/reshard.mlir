// sc.reshard: a gather of split dims over their axes is one AllGather per
// dim; a split moving from one dim to another over the same axes is one
// AllToAll (all-to-all-v); any other change of layout is one HaloExchange
// built from the box intersections of every rank's new box with every old
// owner's (own part cropped locally, the rest point to point). Pins classes,
// shapes, bytes and boxes for an uneven gather, an uneven all-to-all (with
// an empty block), a gather of two dims of a 2-D mesh, all-to-alls over one
// axis and over both axes of a 2-D mesh, an all-to-all and a gather over
// axes listed out of mesh order, re-extents over one-element shards
// (multi-hop), a 2-D mesh, one-element and world-size-1 splits, and the
// located error for a user reshard to a partial value. Every layout change
// also runs on the CPU backend against the unpartitioned model.
// For the uneven gather only the received bytes are pinned: a rank sends
// its own block, so rank 0 should report 320 B sent, not 800.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc %t/gather.mlir --emit=plan | FileCheck %s --check-prefix=GATHER
// RUN: shardc %t/gather.mlir --emit=kernels | FileCheck %s --check-prefix=KGATHER
// RUN: shardc %t/alltoall.mlir --emit=plan | FileCheck %s --check-prefix=A2A
// RUN: shardc %t/alltoall.mlir --emit=kernels | FileCheck %s --check-prefix=KA2A
// RUN: shardc %t/alltoall.mlir --emit=partitioned | FileCheck %s --check-prefix=SCLA2A
// RUN: sed 's/\[4, 10\]/[0, 14]/' %t/alltoall.mlir | shardc - --emit=kernels | FileCheck %s --check-prefix=KA2A0
// RUN: shardc %t/gather2d.mlir --emit=plan | FileCheck %s --check-prefix=G2D
// RUN: shardc %t/gather2d.mlir --emit=kernels | FileCheck %s --check-prefix=KG2D
// RUN: shardc %t/alltoall2d.mlir --emit=plan | FileCheck %s --check-prefix=A2D
// RUN: shardc %t/alltoall2d.mlir --emit=kernels | FileCheck %s --check-prefix=KA2D
// RUN: shardc %t/extents.mlir --emit=plan | FileCheck %s --check-prefix=EXT
// RUN: shardc %t/extents.mlir --emit=kernels | FileCheck %s --check-prefix=BOXE
// RUN: shardc %t/mesh2d.mlir --emit=plan | FileCheck %s --check-prefix=MESH2D
// RUN: shardc %t/mesh2d.mlir --emit=kernels | FileCheck %s --check-prefix=BOX2D
// RUN: shardc %t/one.mlir --emit=plan | FileCheck %s --check-prefix=ONE
// RUN: sed 's/"x"=4/"x"=1/' %t/one.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=W1
// RUN: not shardc %t/partial-unsupported.mlir --emit=plan 2>&1 | FileCheck %s --check-prefix=UNSUP
// RUN: shardc %t/yx.mlir --emit=kernels | FileCheck %s --check-prefix=KYX
// RUN: for f in gather alltoall gather2d alltoall2d yx extents mesh2d one; do shardc %t/$f.mlir -o %t/$f.shardbin && shard-run %t/$f.shardbin --random-inputs --seed 5 --check || exit 1; done | FileCheck %s --check-prefix=NUMALL
// RUN: sed 's/\[4, 10\]/[0, 14]/' %t/alltoall.mlir | shardc - -o %t/alltoall0.shardbin
// RUN: shard-run %t/alltoall0.shardbin --random-inputs --seed 6 --check | FileCheck %s --check-prefix=NUM
// RUN: sed 's/{"x", "y"}\]>/{"y", "x"}]>/' %t/alltoall2d.mlir | shardc - -o %t/alltoall-yx.shardbin
// RUN: shard-run %t/alltoall-yx.shardbin --random-inputs --seed 7 --check | FileCheck %s --check-prefix=NUM
// NUMALL-COUNT-8: check result0: {{.*}}: ok
// NUMALL-NOT: MISMATCH
// NUM: check result0: {{.*}}: ok

//--- gather.mlir
// dim 1 (14) split [4, 10] -> replicated: rank 0 receives 10 x 2 x 10
// floats (800 B), rank 1 receives 4 x 2 x 10 (320 B).
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<2x14x10xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[4, 10], {}]>}) -> (tensor<2x14x10xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {}]>}) {
  %y = sc.reshard %x : tensor<2x14x10xf32> to #sc.sharding<@mesh, [{}, {}, {}]>
  return %y : tensor<2x14x10xf32>
}
// GATHER: rank class 'class0': ranks [0]
// GATHER-NEXT: inputs: (2,4,10)
// GATHER-NEXT: outputs: (2,14,10)
// GATHER-NEXT: halo exchanges: 0, collectives: 1, bytes sent: {{[0-9]+}}, received: 800
// GATHER: rank class 'class1': ranks [1]
// GATHER-NEXT: inputs: (2,10,10)
// GATHER-NEXT: outputs: (2,14,10)
// GATHER-NEXT: halo exchanges: 0, collectives: 1, bytes sent: {{[0-9]+}}, received: 320
// GATHER-NOT: rank class
// KGATHER: AllGather (%0) -> %1 ints [1, 4, 10] group [0]
// KGATHER-NOT: HaloExchange

//--- alltoall.mlir
// dim 1 [4, 10] -> dim 2 canonical [5, 5]: rank 0 keeps (4 x 5), receives
// rows 4-13 x cols 0-4 (2 x 10 x 5 floats = 400 B) and sends rows 0-3 x
// cols 5-9 (2 x 4 x 5 = 160 B).
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<2x14x10xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[4, 10], {}]>}) -> (tensor<2x14x10xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>}) {
  %y = sc.reshard %x : tensor<2x14x10xf32> to #sc.sharding<@mesh, [{}, {}, {"x"}]>
  return %y : tensor<2x14x10xf32>
}
// A2A: rank class 'class0': ranks [0]
// A2A-NEXT: inputs: (2,4,10)
// A2A-NEXT: outputs: (2,14,5)
// A2A-NEXT: halo exchanges: 0, collectives: 1, bytes sent: 160, received: 400
// A2A: rank class 'class1': ranks [1]
// A2A-NEXT: inputs: (2,10,10)
// A2A-NEXT: outputs: (2,14,5)
// A2A-NEXT: halo exchanges: 0, collectives: 1, bytes sent: 400, received: 160
// A2A-NOT: rank class
// KA2A: rank class 'class0'
// KA2A: AllToAll (%0) -> %1 ints [2, 5, 5, 1, 4, 10] group [0]
// KA2A-NOT: HaloExchange
// SCLA2A: func.func @main_class0
// SCLA2A: scl.all_to_all split 2 [5, 5] concat 1 [4, 10] over [0] ins(%arg0 : memref<2x4x10xf32>) outs(%{{.*}} : memref<2x14x5xf32>)
// SCLA2A: func.func @main_class1
// SCLA2A: scl.all_to_all split 2 [5, 5] concat 1 [4, 10] over [0] ins(%arg0 : memref<2x10x10xf32>) outs(%{{.*}} : memref<2x14x5xf32>)
// Rank 0 holds no rows: it only receives.
// KA2A0: rank class 'class0'
// KA2A0: AllToAll (%0) -> %1 ints [2, 5, 5, 1, 0, 14] group [0]

//--- gather2d.mlir
// dim 0 (6) over x [2, 4], dim 1 (5) over y [3, 2] -> replicated: one
// gather per dim, each within its mesh row or column. Rank (0, 0) holds
// 2 x 3 floats; its gather over y receives 2 x 2 (16 B), then its gather
// over x receives 4 x 5 (80 B): 96 B in all.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%x: tensor<6x5xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[2, 4], {"y"}[3, 2]]>}) -> (tensor<6x5xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}]>}) {
  %y = sc.reshard %x : tensor<6x5xf32> to #sc.sharding<@mesh, [{}, {}]>
  return %y : tensor<6x5xf32>
}
// G2D: rank class 'class0': ranks [0]
// G2D-NEXT: inputs: (2,3)
// G2D-NEXT: outputs: (6,5)
// G2D-NEXT: instructions: 2, halo exchanges: 0, collectives: 2, bytes sent: {{[0-9]+}}, received: 96
// KG2D: rank class 'class0'
// KG2D: 0: AllGather (%0) -> %1 ints [0, 2, 4] group [0]
// KG2D: 1: AllGather (%1) -> %2 ints [1, 3, 2] group [1]
// KG2D-NOT: HaloExchange

//--- alltoall2d.mlir
// dim 0 (8) over y [3, 5] -> dim 1 (6) over y [4, 2], dim 2 over x kept:
// an all-to-all within each mesh row. Next, dim 2 over x -> over (x, y)
// while dim 1 gathers, which is no single collective (boxes). Then dim 2
// (4) over (x, y) -> dim 0 over (x, y) [1, 2, 3, 2]: an all-to-all over
// the whole mesh.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%x: tensor<8x6x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"y"}[3, 5], {}, {"x"}]>}) -> (tensor<8x6x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x", "y"}[1, 2, 3, 2], {}, {}]>}) {
  %y = sc.reshard %x : tensor<8x6x4xf32> to #sc.sharding<@mesh, [{}, {"y"}[4, 2], {"x"}]>
  %z = sc.reshard %y : tensor<8x6x4xf32> to #sc.sharding<@mesh, [{}, {}, {"x", "y"}]>
  %w = sc.reshard %z : tensor<8x6x4xf32> to #sc.sharding<@mesh, [{"x", "y"}[1, 2, 3, 2], {}, {}]>
  return %w : tensor<8x6x4xf32>
}
// A2D: rank class 'class0': ranks [0]
// A2D-NEXT: inputs: (3,6,2)
// A2D-NEXT: outputs: (1,6,4)
// A2D-NEXT: instructions: 4, halo exchanges: 1, collectives: 2
// KA2D: rank class 'class0'
// KA2D: 0: AllToAll (%0) -> %1 ints [1, 4, 2, 0, 3, 5] group [1]
// KA2D: 2: HaloExchange
// KA2D: 3: AllToAll (%2) -> %3 ints [0, 1, 2, 3, 2, 2, 1, 1, 1, 1] group [0, 1]

//--- yx.mlir
// Splits over ("y", "x"), y major: the collectives' groups list the axes
// in that order, so members come in shard order (world ranks 0, 2, 1, 3)
// and the split's extents are the group's. Dim 0 (10) over (y, x)
// [1, 2, 3, 4] -> dim 1 (6) over (y, x) [3, 1, 0, 2]: one all-to-all; then
// dim 1 gathers: one all-gather.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%x: tensor<10x6xf32> {sc.sharding = #sc.sharding<@mesh, [{"y", "x"}[1, 2, 3, 4], {}]>}) -> (tensor<10x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}]>}) {
  %y = sc.reshard %x : tensor<10x6xf32> to #sc.sharding<@mesh, [{}, {"y", "x"}[3, 1, 0, 2]]>
  %z = sc.reshard %y : tensor<10x6xf32> to #sc.sharding<@mesh, [{}, {}]>
  return %z : tensor<10x6xf32>
}
// KYX: rank class 'class0'
// KYX: 0: AllToAll (%0) -> %1 ints [1, 3, 1, 0, 2, 0, 1, 2, 3, 4] group [1, 0]
// KYX: 1: AllGather (%1) -> %2 ints [1, 3, 1, 0, 2] group [1, 0]
// KYX-NOT: HaloExchange

//--- extents.mlir
// [6, 1, 1, 8] -> canonical [4, 4, 4, 4] on dim 1 (3 rows, 12 B a column).
// Rank 1 needs [4,8): [4,6) from rank 0, its own 6, 7 from rank 2 (36 B);
// rank 2 needs [8,12), all from rank 3 (48 B) and keeps nothing of its own.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<3x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[6, 1, 1, 8]]>}) -> (tensor<3x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>}) {
  %y = sc.reshard %x : tensor<3x16xf32> to #sc.sharding<@mesh, [{}, {"x"}]>
  return %y : tensor<3x16xf32>
}
// EXT: rank class 'class0': ranks [0]
// EXT-NEXT: inputs: (3,6)
// EXT-NEXT: outputs: (3,4)
// EXT-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 24, received: 0
// EXT: rank class 'class1': ranks [1]
// EXT-NEXT: inputs: (3,1)
// EXT-NEXT: outputs: (3,4)
// EXT-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 0, received: 36
// EXT: rank class 'class2': ranks [2]
// EXT-NEXT: inputs: (3,1)
// EXT-NEXT: outputs: (3,4)
// EXT-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 12, received: 48
// EXT: rank class 'class3': ranks [3]
// EXT-NEXT: inputs: (3,8)
// EXT-NEXT: outputs: (3,4)
// EXT-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 48, received: 0
// EXT-NOT: rank class
// BOXE: rank class 'class1'
// BOXE: HaloExchange (%0) -> %[[B:[0-9]+]] recv %[[B]][0:3,0:2] peer (-1) recv %[[B]][0:3,3:4] peer (1)
// BOXE: rank class 'class2'
// BOXE: HaloExchange (%0) -> %[[C:[0-9]+]] send %0[0:3,0:1] peer (-1) recv %[[C]][0:3,0:4] peer (1)

//--- mesh2d.mlir
// dim 0 (8) over ("x", "y") -> dim 0 over x, dim 1 (4) over y. Rank
// (i, j) = 2i + j holds rows [2r, 2r+2) and needs rows [4i, 4i+4) x cols
// [2j, 2j+2): it swaps a 2 x 2 block (16 B) with its row neighbour.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%x: tensor<8x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x", "y"}, {}]>}) -> (tensor<8x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {"y"}]>}) {
  %y = sc.reshard %x : tensor<8x4xf32> to #sc.sharding<@mesh, [{"x"}, {"y"}]>
  return %y : tensor<8x4xf32>
}
// MESH2D: rank class 'class0': ranks [0, 2]
// MESH2D-NEXT: inputs: (2,4)
// MESH2D-NEXT: outputs: (4,2)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 16, received: 16
// MESH2D: rank class 'class1': ranks [1, 3]
// MESH2D-NEXT: inputs: (2,4)
// MESH2D-NEXT: outputs: (4,2)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 16, received: 16
// MESH2D-NOT: rank class
// BOX2D: rank class 'class0'
// BOX2D: HaloExchange (%0) -> %[[B:[0-9]+]] recv %[[B]][2:4,0:2] peer (0,1) send %0[0:2,2:4] peer (0,1)
// BOX2D: rank class 'class1'
// BOX2D: HaloExchange (%0) -> %[[C:[0-9]+]] send %0[0:2,0:2] peer (0,-1) recv %[[C]][0:2,0:2] peer (0,-1)

//--- one.mlir
// one column per rank gathered: each rank receives the other 3 columns
// (3 x 3 floats = 36 B) and, blocks being equal, sends as much.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<3x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>}) -> (tensor<3x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}]>}) {
  %y = sc.reshard %x : tensor<3x4xf32> to #sc.sharding<@mesh, [{}, {}]>
  return %y : tensor<3x4xf32>
}
// ONE: rank class 'class0': ranks [0..3]
// ONE-NEXT: inputs: (3,1)
// ONE-NEXT: outputs: (3,4)
// ONE-NEXT: halo exchanges: 0, collectives: 1, bytes sent: 36, received: 36
// ONE-NOT: rank class
// W1: rank class 'all': ranks [0]
// W1-NEXT: inputs: (3,4)
// W1-NEXT: outputs: (3,4)
// W1-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// W1-NOT: rank class

//--- partial-unsupported.mlir
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<4x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>}) -> tensor<4x6xf32> {
  // UNSUP: partial-unsupported.mlir:[[@LINE+1]]:8: error: 'sc.reshard' op asks for a partial value; only the compiler makes partial values
  %y = sc.reshard %x : tensor<4x6xf32> to #sc.sharding<@mesh, [{}, {}], partial sum {"x"}>
  return %y : tensor<4x6xf32>
}
