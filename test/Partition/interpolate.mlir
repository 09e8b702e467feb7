// Interpolate (PyTorch float32 index math): output o reads source i0 (and
// i0+1 for linear) and belongs to the shard owning i0. Every rank gets its
// global output offset, so even splits still give one class per rank.
// Pins classes, shapes, bytes and boxes for even, uneven (both align_corners
// modes), a downsample that leaves a rank without outputs, a 2-D mesh,
// one-element and world-size-1 splits. Linear reads at most two adjacent
// inputs, so no interpolate halo can span more than one neighbour.
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc %t/even.mlir --emit=plan | FileCheck %s --check-prefix=EVEN
// RUN: shardc %t/uneven.mlir --emit=plan | FileCheck %s --check-prefix=UNEVEN
// RUN: shardc %t/uneven.mlir --emit=kernels | FileCheck %s --check-prefix=BOXU
// RUN: sed -e 's/scale_factors = array<f64: 2.0>, align_corners = false/align_corners = true/' -e 's/1x2x32/1x2x24/g' %t/uneven.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=ALIGN
// RUN: shardc %t/down.mlir --emit=plan | FileCheck %s --check-prefix=DOWN
// RUN: shardc %t/mesh2d.mlir --emit=plan | FileCheck %s --check-prefix=MESH2D
// RUN: shardc %t/mesh2d.mlir --emit=kernels | FileCheck %s --check-prefix=BOX2D
// RUN: shardc %t/one.mlir --emit=plan | FileCheck %s --check-prefix=ONE
// RUN: sed 's/"x"=4/"x"=1/' %t/one.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=W1

//--- even.mlir
// nearest x2: output o reads o/2, so 4 inputs -> 8 outputs per rank, no halo.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x2x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>}) -> tensor<1x2x32xf32> {
  %y = sc.interpolate %x {mode = "nearest", scale_factors = array<f64: 2.0>} : (tensor<1x2x16xf32>) -> tensor<1x2x32xf32>
  return %y : tensor<1x2x32xf32>
}
// EVEN: rank class 'class0': ranks [0]
// EVEN-NEXT: inputs: (1,2,4)
// EVEN-NEXT: outputs: (1,2,8)
// EVEN-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// EVEN: rank class 'class1': ranks [1]
// EVEN: rank class 'class2': ranks [2]
// EVEN: rank class 'class3': ranks [3]
// EVEN-NEXT: inputs: (1,2,4)
// EVEN-NEXT: outputs: (1,2,8)
// EVEN-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// EVEN-NOT: rank class

//--- uneven.mlir
// linear x2, align_corners false, 16 -> 32 over [7, 5, 4]: source
// max(o/2 - 0.25, 0), so i0 < 7 for o <= 14 and < 12 for o <= 24: outputs
// [15, 10, 7]. Output 14 reads 6, 7 and output 24 reads 11, 12: each of
// the first two ranks needs one column (8 B) from its right neighbour.
// ALIGN (align_corners true, 16 -> 24): source o * 15/23, outputs
// [11, 8, 5], outputs 10 and 18 read inputs 7 and 12: the same halos.
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<1x2x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[7, 5, 4]]>}) -> tensor<1x2x32xf32> {
  %y = sc.interpolate %x {mode = "linear", scale_factors = array<f64: 2.0>, align_corners = false} : (tensor<1x2x16xf32>) -> tensor<1x2x32xf32>
  return %y : tensor<1x2x32xf32>
}
// UNEVEN: rank class 'class0': ranks [0]
// UNEVEN-NEXT: inputs: (1,2,7)
// UNEVEN-NEXT: outputs: (1,2,15)
// UNEVEN-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 0, received: 8
// UNEVEN: rank class 'class1': ranks [1]
// UNEVEN-NEXT: inputs: (1,2,5)
// UNEVEN-NEXT: outputs: (1,2,10)
// UNEVEN-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 8, received: 8
// UNEVEN: rank class 'class2': ranks [2]
// UNEVEN-NEXT: inputs: (1,2,4)
// UNEVEN-NEXT: outputs: (1,2,7)
// UNEVEN-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 8, received: 0
// UNEVEN-NOT: rank class
// BOXU: rank class 'class0'
// BOXU: HaloExchange
// BOXU-SAME: recv %{{[0-9]+}}[0:1,0:2,7:8] peer (1)
// BOXU: rank class 'class1'
// BOXU: HaloExchange
// BOXU-SAME: send %0[0:1,0:2,0:1] peer (-1) recv %{{[0-9]+}}[0:1,0:2,5:6] peer (1)
// ALIGN: rank class 'class0': ranks [0]
// ALIGN-NEXT: inputs: (1,2,7)
// ALIGN-NEXT: outputs: (1,2,11)
// ALIGN-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 0, received: 8
// ALIGN: rank class 'class1': ranks [1]
// ALIGN-NEXT: inputs: (1,2,5)
// ALIGN-NEXT: outputs: (1,2,8)
// ALIGN-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 8, received: 8
// ALIGN: rank class 'class2': ranks [2]
// ALIGN-NEXT: inputs: (1,2,4)
// ALIGN-NEXT: outputs: (1,2,5)
// ALIGN-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 8, received: 0

//--- down.mlir
// linear 16 -> 3 over [6, 1, 1, 8]: sources (o + 0.5) * 16/3 - 0.5 =
// 2.17, 7.5, 12.83 read {2,3}, {7,8}, {12,13}: outputs [1, 0, 1, 1].
// Rank 1 has no output at all; rank 2 needs input 8 from rank 3 (8 B).
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x2x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[6, 1, 1, 8]]>}) -> tensor<1x2x3xf32> {
  %y = sc.interpolate %x {mode = "linear"} : (tensor<1x2x16xf32>) -> tensor<1x2x3xf32>
  return %y : tensor<1x2x3xf32>
}
// DOWN: rank class 'class0': ranks [0]
// DOWN-NEXT: inputs: (1,2,6)
// DOWN-NEXT: outputs: (1,2,1)
// DOWN-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// DOWN: rank class 'class1': ranks [1]
// DOWN-NEXT: inputs: (1,2,1)
// DOWN-NEXT: outputs: (1,2,0)
// DOWN-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// DOWN: rank class 'class2': ranks [2]
// DOWN-NEXT: inputs: (1,2,1)
// DOWN-NEXT: outputs: (1,2,1)
// DOWN-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 0, received: 8
// DOWN: rank class 'class3': ranks [3]
// DOWN-NEXT: inputs: (1,2,8)
// DOWN-NEXT: outputs: (1,2,1)
// DOWN-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 8, received: 0
// DOWN-NOT: rank class

//--- mesh2d.mlir
// bilinear x2: H 5 -> 10 over [3, 2] gives outputs [7, 3] (output 6 reads
// rows 2, 3); W 3 -> 6 over [2, 1] gives [5, 1] (output 4 reads cols 1, 2).
// Rank 0 needs rows [0,4) x cols [0,3): 3 + 2 + 1 elements from ranks
// 1, 2, 3 (24 B). Rank 3 sends (3,2) to ranks 0 and 1, rows 3-4 x col 2
// to rank 2: 16 B.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%x: tensor<1x1x5x3xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {"y"}]>}) -> tensor<1x1x10x6xf32> {
  %y = sc.interpolate %x {mode = "linear", scale_factors = array<f64: 2.0, 2.0>} : (tensor<1x1x5x3xf32>) -> tensor<1x1x10x6xf32>
  return %y : tensor<1x1x10x6xf32>
}
// MESH2D: rank class 'class0': ranks [0]
// MESH2D-NEXT: inputs: (1,1,3,2)
// MESH2D-NEXT: outputs: (1,1,7,5)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 0, received: 24
// MESH2D: rank class 'class1': ranks [1]
// MESH2D-NEXT: inputs: (1,1,3,1)
// MESH2D-NEXT: outputs: (1,1,7,1)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 12, received: 4
// MESH2D: rank class 'class2': ranks [2]
// MESH2D-NEXT: inputs: (1,1,2,2)
// MESH2D-NEXT: outputs: (1,1,3,5)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 8, received: 8
// MESH2D: rank class 'class3': ranks [3]
// MESH2D-NEXT: inputs: (1,1,2,1)
// MESH2D-NEXT: outputs: (1,1,3,1)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 16, received: 0
// MESH2D-NOT: rank class
// BOX2D: rank class 'class0'
// BOX2D: HaloExchange
// BOX2D-SAME: recv %[[B:[0-9]+]][0:1,0:1,0:3,2:3] peer (0,1) recv %[[B]][0:1,0:1,3:4,0:2] peer (1,0) recv %[[B]][0:1,0:1,3:4,2:3] peer (1,1)

//--- one.mlir
// nearest-exact 4 -> 6, one input per rank: sources floor((o + 0.5) * 2/3)
// = 0, 1, 1, 2, 3, 3, so outputs [1, 2, 1, 2] and nothing moves.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x2x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>}) -> tensor<1x2x6xf32> {
  %y = sc.interpolate %x {mode = "nearest-exact"} : (tensor<1x2x4xf32>) -> tensor<1x2x6xf32>
  return %y : tensor<1x2x6xf32>
}
// ONE: rank class 'class0': ranks [0]
// ONE-NEXT: inputs: (1,2,1)
// ONE-NEXT: outputs: (1,2,1)
// ONE-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// ONE: rank class 'class1': ranks [1]
// ONE-NEXT: inputs: (1,2,1)
// ONE-NEXT: outputs: (1,2,2)
// ONE: rank class 'class2': ranks [2]
// ONE-NEXT: inputs: (1,2,1)
// ONE-NEXT: outputs: (1,2,1)
// ONE: rank class 'class3': ranks [3]
// ONE-NEXT: inputs: (1,2,1)
// ONE-NEXT: outputs: (1,2,2)
// ONE-NOT: rank class
// W1: rank class 'all': ranks [0]
// W1-NEXT: inputs: (1,2,4)
// W1-NEXT: outputs: (1,2,6)
// W1-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// W1-NOT: rank class
