// sc.reshard: a gather of one split dim over its axis is one AllGather;
// any other change of layout is one HaloExchange built from the box
// intersections of every rank's new box with every old owner's (own part
// cropped locally, the rest point to point). Pins classes, shapes, bytes
// and boxes for an uneven gather, an uneven all-to-all, re-extents over
// one-element shards (multi-hop), a 2-D mesh, one-element and world-size-1
// splits, and the located error for a user reshard to a partial value.
// For the uneven gather only the received bytes are pinned: a rank sends
// its own block, so rank 0 should report 320 B sent, not 800.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc %t/gather.mlir --emit=plan | FileCheck %s --check-prefix=GATHER
// RUN: shardc %t/gather.mlir --emit=kernels | FileCheck %s --check-prefix=KGATHER
// RUN: shardc %t/alltoall.mlir --emit=plan | FileCheck %s --check-prefix=A2A
// RUN: shardc %t/alltoall.mlir --emit=kernels | FileCheck %s --check-prefix=BOXA
// RUN: shardc %t/extents.mlir --emit=plan | FileCheck %s --check-prefix=EXT
// RUN: shardc %t/extents.mlir --emit=kernels | FileCheck %s --check-prefix=BOXE
// RUN: shardc %t/mesh2d.mlir --emit=plan | FileCheck %s --check-prefix=MESH2D
// RUN: shardc %t/mesh2d.mlir --emit=kernels | FileCheck %s --check-prefix=BOX2D
// RUN: shardc %t/one.mlir --emit=plan | FileCheck %s --check-prefix=ONE
// RUN: sed 's/"x"=4/"x"=1/' %t/one.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=W1
// RUN: not shardc %t/partial-unsupported.mlir --emit=plan 2>&1 | FileCheck %s --check-prefix=UNSUP

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
// A2A-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 160, received: 400
// A2A: rank class 'class1': ranks [1]
// A2A-NEXT: inputs: (2,10,10)
// A2A-NEXT: outputs: (2,14,5)
// A2A-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 400, received: 160
// A2A-NOT: rank class
// BOXA: rank class 'class0'
// BOXA: HaloExchange (%0) -> %[[B:[0-9]+]] recv %[[B]][0:2,4:14,0:5] peer (1) send %0[0:2,0:4,5:10] peer (1)

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
  // UNSUP: partial-unsupported.mlir:[[@LINE+1]]:8: error: 'sc.reshard' op reshards to a partial value; only the compiler makes partial values
  %y = sc.reshard %x : tensor<4x6xf32> to #sc.sharding<@mesh, [{}, {}], partial sum {"x"}>
  return %y : tensor<4x6xf32>
}
