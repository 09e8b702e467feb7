// Elementwise ops: operands that arrive split alike run with no traffic at
// all; an operand split differently is resharded to the result's split
// (ties go to operand 0) and only the boxes that differ travel. Pins the
// rank classes, local shapes and bytes for even, uneven, 2-D mesh, one-element,
// empty-shard and world-size-1 splits. Every number is derived in the comments.
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc %t/even.mlir --emit=plan | FileCheck %s --check-prefix=EVEN
// RUN: shardc %t/even.mlir --emit=kernels | FileCheck %s --check-prefix=KEVEN
// RUN: shardc %t/uneven.mlir --emit=plan | FileCheck %s --check-prefix=UNEVEN
// RUN: shardc %t/uneven.mlir --emit=kernels | FileCheck %s --check-prefix=BOXU
// RUN: shardc %t/mesh2d.mlir --emit=plan | FileCheck %s --check-prefix=MESH2D
// RUN: shardc %t/mesh2d.mlir --emit=kernels | FileCheck %s --check-prefix=BOX2D
// RUN: shardc %t/tiny.mlir --emit=plan | FileCheck %s --check-prefix=ONE
// RUN: sed 's/3x4xf32/4x3xf32/g' %t/tiny.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=EMPTY
// RUN: sed 's/"x"=4/"x"=1/' %t/tiny.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=W1
// A cast to f32 of an f32 value (`x.float()`) folds away at -O1 and above
// (canonicalisation), so no rank copies its shard; at -O0 it stays a Cast.
// RUN: shardc %t/casts.mlir --emit=kernels | FileCheck %s --check-prefix=CAST --implicit-check-not=Cast
// RUN: shardc %t/casts.mlir -O0 --emit=kernels | FileCheck %s --check-prefix=CAST0
// RUN: shardc %t/casts.mlir -o %t/casts.shardbin
// RUN: shard-run %t/casts.shardbin --random-inputs --check | FileCheck %s --check-prefix=CASTOK

//--- even.mlir
// 64 over 4: 16 each; nothing moves, so every rank runs the same program.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<2x3x64xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>},
                %y: tensor<2x3x64xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>}) -> tensor<2x3x64xf32> {
  %a = sc.add %x, %y : (tensor<2x3x64xf32>, tensor<2x3x64xf32>) -> tensor<2x3x64xf32>
  %r = sc.relu %a : tensor<2x3x64xf32>
  return %r : tensor<2x3x64xf32>
}
// EVEN: rank class 'class0': ranks [0..3]
// EVEN-NEXT: inputs: (2,3,16) (2,3,16)
// EVEN-NEXT: outputs: (2,3,16)
// EVEN-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// EVEN-NOT: rank class
// KEVEN-NOT: HaloExchange
// KEVEN: Binary "add"
// KEVEN-NEXT: Unary "relu"

//--- uneven.mlir
// Equal bytes, so operand 0's [10, 6] wins over %y's canonical [8, 8]:
// rank 0 needs %y[8:10] from rank 1 (2 cols x 2x3 x 4 B = 48 B), rank 1
// crops its [8:16) to [10:16). The bias, pinned replicated, is only cropped.
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<2x3x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[10, 6]]>},
                %y: tensor<2x3x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>},
                %b: tensor<16xf32> {sc.sharding = #sc.sharding<@mesh, [{}]>}) -> tensor<2x3x16xf32> {
  %a = sc.mul %x, %y : (tensor<2x3x16xf32>, tensor<2x3x16xf32>) -> tensor<2x3x16xf32>
  %c = sc.add %a, %b : (tensor<2x3x16xf32>, tensor<16xf32>) -> tensor<2x3x16xf32>
  return %c : tensor<2x3x16xf32>
}
// UNEVEN: rank class 'class0': ranks [0]
// UNEVEN-NEXT: inputs: (2,3,10) (2,3,8) (16)
// UNEVEN-NEXT: outputs: (2,3,10)
// UNEVEN-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 0, received: 48
// UNEVEN: rank class 'class1': ranks [1]
// UNEVEN-NEXT: inputs: (2,3,6) (2,3,8) (16)
// UNEVEN-NEXT: outputs: (2,3,6)
// UNEVEN-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 48, received: 0
// UNEVEN-NOT: rank class
// BOXU: rank class 'class0'
// BOXU: HaloExchange (%1) -> %[[B:[0-9]+]] recv %[[B]][0:2,0:3,8:10] peer (1)  // sc.reshard
// BOXU: rank class 'class1'
// BOXU: HaloExchange (%1) -> %{{[0-9]+}} send %1[0:2,0:3,0:2] peer (-1)  // sc.reshard

//--- mesh2d.mlir
// Rank (i, j) = 2i + j. H 6 -> [3, 3], W 5 -> [3, 2]. %x is split (H over
// x, W over y), %y the other way round, so rank (i, j) needs the %y block
// held by rank (j, i): ranks 0 and 3 already hold it, ranks 1 and 2 swap.
// Rank 1 receives H 3 x W 2 (x 2 channels x 4 B = 48 B) and sends its
// %y block H 3 x W 3 (72 B); rank 2 the converse.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%x: tensor<1x2x6x5xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {"y"}]>},
                %y: tensor<1x2x6x5xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"y"}, {"x"}]>}) -> tensor<1x2x6x5xf32> {
  %a = sc.maximum %x, %y : (tensor<1x2x6x5xf32>, tensor<1x2x6x5xf32>) -> tensor<1x2x6x5xf32>
  return %a : tensor<1x2x6x5xf32>
}
// MESH2D: rank class 'class0': ranks [0]
// MESH2D-NEXT: inputs: (1,2,3,3) (1,2,3,3)
// MESH2D-NEXT: outputs: (1,2,3,3)
// MESH2D-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// MESH2D: rank class 'class1': ranks [1]
// MESH2D-NEXT: inputs: (1,2,3,2) (1,2,3,3)
// MESH2D-NEXT: outputs: (1,2,3,2)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 72, received: 48
// MESH2D: rank class 'class2': ranks [2]
// MESH2D-NEXT: inputs: (1,2,3,3) (1,2,3,2)
// MESH2D-NEXT: outputs: (1,2,3,3)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 48, received: 72
// MESH2D: rank class 'class3': ranks [3]
// MESH2D-NEXT: inputs: (1,2,3,2) (1,2,3,2)
// MESH2D-NEXT: outputs: (1,2,3,2)
// MESH2D-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// MESH2D-NOT: rank class
// BOX2D: rank class 'class1'
// BOX2D: HaloExchange
// BOX2D-SAME: recv %{{[0-9]+}}[0:1,0:2,0:3,0:2] peer (1,-1)
// BOX2D-SAME: send %1[0:1,0:2,0:3,0:3] peer (1,-1)
// BOX2D: rank class 'class2'
// BOX2D: HaloExchange
// BOX2D-SAME: send %1[0:1,0:2,0:3,0:2] peer (-1,1)
// BOX2D-SAME: recv %{{[0-9]+}}[0:1,0:2,0:3,0:3] peer (-1,1)

//--- tiny.mlir
// 4 over 4: one element per rank. As 4x3 (sed above) the split dim is 3
// over 4, which numpy.array_split makes [1, 1, 1, 0]: the last rank holds
// an empty shard. With "x"=1 the whole tensor stays on one rank.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<3x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>}) -> tensor<3x4xf32> {
  %a = sc.tanh %x : tensor<3x4xf32>
  return %a : tensor<3x4xf32>
}
// ONE: rank class 'class0': ranks [0..3]
// ONE-NEXT: inputs: (3,1)
// ONE-NEXT: outputs: (3,1)
// ONE-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// ONE-NOT: rank class
// EMPTY: rank class 'class0': ranks [0..2]
// EMPTY-NEXT: inputs: (4,1)
// EMPTY: rank class 'class1': ranks [3]
// EMPTY-NEXT: inputs: (4,0)
// EMPTY-NEXT: outputs: (4,0)
// EMPTY-NOT: rank class
// W1: rank class 'all': ranks [0]
// W1-NEXT: inputs: (3,4)
// W1-NEXT: outputs: (3,4)
// W1-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// W1-NOT: rank class

//--- casts.mlir
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<7x5xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}) -> tensor<7x5xf32> {
  %f = sc.cast %x : tensor<7x5xf32> to tensor<7x5xf32>
  %r = sc.relu %f : tensor<7x5xf32>
  return %r : tensor<7x5xf32>
}
// CAST: rank class 'class0'
// CAST: Unary "relu" (%0) -> %1
// CAST0: rank class 'class0'
// CAST0: Cast (%0) -> %1
// CASTOK: check result0: {{.*}}: ok
