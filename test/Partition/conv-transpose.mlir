// Transposed convolution: output o = i*s - pL + j*d (tap j), so output o
// reads inputs i = (o + pL - j*d) / s where that divides. The result split
// is derived from the anchor floor((o + pL) / s) (the input whose stride
// cell holds o + pL, clamped); each rank then fetches the inputs its
// outputs read. Pins classes, shapes, bytes and boxes for even, uneven,
// multi-hop, 2-D mesh, one-element and world-size-1 splits.
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc %t/even.mlir --emit=plan | FileCheck %s --check-prefix=EVEN
// RUN: shardc %t/uneven.mlir --emit=plan | FileCheck %s --check-prefix=UNEVEN
// RUN: shardc %t/uneven.mlir --emit=kernels | FileCheck %s --check-prefix=BOXU
// RUN: shardc %t/multihop.mlir --emit=plan | FileCheck %s --check-prefix=MULTI
// RUN: shardc %t/multihop.mlir --emit=kernels | FileCheck %s --check-prefix=BOXM
// RUN: shardc %t/mesh2d.mlir --emit=plan | FileCheck %s --check-prefix=MESH2D
// RUN: shardc %t/mesh2d.mlir --emit=kernels | FileCheck %s --check-prefix=BOX2D
// RUN: shardc %t/one.mlir --emit=plan | FileCheck %s --check-prefix=ONE
// RUN: sed 's/"x"=4/"x"=1/' %t/one.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=W1

//--- even.mlir
// k2 s2 p0: output o reads only input o/2, so 32 -> 64 over 4 ranks is
// 8 -> 16 per rank with no halo, and all ranks share one program.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x4x32xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>},
                %w: tensor<4x2x2xf32>) -> tensor<1x2x64xf32> {
  %y = sc.conv_transpose %x, %w {stride = array<i64: 2>} : (tensor<1x4x32xf32>, tensor<4x2x2xf32>) -> tensor<1x2x64xf32>
  return %y : tensor<1x2x64xf32>
}
// EVEN: rank class 'class0': ranks [0..3]
// EVEN-NEXT: inputs: (1,4,8) (4,2,2)
// EVEN-NEXT: outputs: (1,2,16)
// EVEN-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// EVEN-NOT: rank class

//--- uneven.mlir
// k3 s2 p1 op1, 16 -> 32 over [7, 5, 4]. Anchor floor((o+1)/2) gives
// outputs [13, 10, 9]. Output 13 reads i = 7 and 6 (14 = 2i + j), so rank 1
// needs input 6 from rank 0; output 23 reads 12 and 11, so rank 2 needs
// input 11 from rank 1. One column = 4 channels x 4 B = 16 B.
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<1x4x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[7, 5, 4]]>},
                %w: tensor<4x2x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x32xf32> {
  %y = sc.conv_transpose %x, %w, %b {stride = array<i64: 2>, padding = array<i64: 1>, output_padding = array<i64: 1>} : (tensor<1x4x16xf32>, tensor<4x2x3xf32>, tensor<2xf32>) -> tensor<1x2x32xf32>
  return %y : tensor<1x2x32xf32>
}
// UNEVEN: rank class 'class0': ranks [0]
// UNEVEN-NEXT: inputs: (1,4,7) (4,2,3) (2)
// UNEVEN-NEXT: outputs: (1,2,13)
// UNEVEN-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 16, received: 0
// UNEVEN: rank class 'class1': ranks [1]
// UNEVEN-NEXT: inputs: (1,4,5) (4,2,3) (2)
// UNEVEN-NEXT: outputs: (1,2,10)
// UNEVEN-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 16, received: 16
// UNEVEN: rank class 'class2': ranks [2]
// UNEVEN-NEXT: inputs: (1,4,4) (4,2,3) (2)
// UNEVEN-NEXT: outputs: (1,2,9)
// UNEVEN-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 0, received: 16
// UNEVEN-NOT: rank class
// BOXU: rank class 'class0'
// BOXU: HaloExchange (%0) -> () send %0[0:1,0:4,6:7] peer (1)
// BOXU: rank class 'class1'
// BOXU: HaloExchange
// BOXU-SAME: recv %{{[0-9]+}}[0:1,0:4,0:1] peer (-1) send %0[0:1,0:4,4:5] peer (1)
// BOXU: rank class 'class2'
// BOXU: HaloExchange
// BOXU-SAME: recv %{{[0-9]+}}[0:1,0:4,0:1] peer (-1)

//--- multihop.mlir
// k9 s1 p4 (16 -> 16): output o reads inputs [o-4, o+4]. Anchor o+4
// (clamped to 15) over [6, 1, 1, 8] gives outputs [2, 1, 1, 12]. Needs:
// rank 1 (o=2) [0,7), rank 2 (o=3) [0,8), rank 3 (o=4..15) [0,16): the
// halo spans up to three ranks. A column is 2 channels x 4 B = 8 B:
// rank 0 sends [0,6) to ranks 1, 2, 3 (144 B); rank 1 sends its column to
// ranks 2, 3 (16 B); rank 2 to rank 3 (8 B). Received: 48, 56, 64.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x2x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[6, 1, 1, 8]]>},
                %w: tensor<2x1x9xf32>) -> tensor<1x1x16xf32> {
  %y = sc.conv_transpose %x, %w {padding = array<i64: 4>} : (tensor<1x2x16xf32>, tensor<2x1x9xf32>) -> tensor<1x1x16xf32>
  return %y : tensor<1x1x16xf32>
}
// MULTI: rank class 'class0': ranks [0]
// MULTI-NEXT: inputs: (1,2,6) (2,1,9)
// MULTI-NEXT: outputs: (1,1,2)
// MULTI-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 144, received: 0
// MULTI: rank class 'class1': ranks [1]
// MULTI-NEXT: inputs: (1,2,1) (2,1,9)
// MULTI-NEXT: outputs: (1,1,1)
// MULTI-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 16, received: 48
// MULTI: rank class 'class2': ranks [2]
// MULTI-NEXT: inputs: (1,2,1) (2,1,9)
// MULTI-NEXT: outputs: (1,1,1)
// MULTI-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 8, received: 56
// MULTI: rank class 'class3': ranks [3]
// MULTI-NEXT: inputs: (1,2,8) (2,1,9)
// MULTI-NEXT: outputs: (1,1,12)
// MULTI-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 0, received: 64
// MULTI-NOT: rank class
// BOXM: rank class 'class2'
// BOXM: HaloExchange
// BOXM-SAME: recv %[[B:[0-9]+]][0:1,0:2,0:6] peer (-2) recv %[[B]][0:1,0:2,6:7] peer (-1)
// BOXM: rank class 'class3'
// BOXM: HaloExchange
// BOXM-SAME: recv %[[C:[0-9]+]][0:1,0:2,0:6] peer (-3) recv %[[C]][0:1,0:2,6:7] peer (-2) recv %[[C]][0:1,0:2,7:8] peer (-1)

//--- mesh2d.mlir
// k3 s2 p1 op1 in H (6 -> 12, split [3, 3] -> outputs [5, 7]) and W
// (5 -> 10, split [3, 2] -> outputs [5, 5]). Row/col 3 of the second shard
// reads input 2 of the first, so rank (1, 1) needs row 2 and col 2:
// 1 element from rank 0, 2 from rank 1, 3 from rank 2 (x 2 ch x 4 B = 48 B).
// Rank 0 sends col 2 (3 rows) to rank 1, row 2 (3 cols) to rank 2 and the
// corner to rank 3: 7 elements = 56 B.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%x: tensor<1x2x6x5xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {"y"}]>},
                %w: tensor<2x3x3x3xf32>) -> tensor<1x3x12x10xf32> {
  %y = sc.conv_transpose %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x2x6x5xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x12x10xf32>
  return %y : tensor<1x3x12x10xf32>
}
// MESH2D: rank class 'class0': ranks [0]
// MESH2D-NEXT: inputs: (1,2,3,3) (2,3,3,3)
// MESH2D-NEXT: outputs: (1,3,5,5)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 56, received: 0
// MESH2D: rank class 'class1': ranks [1]
// MESH2D-NEXT: inputs: (1,2,3,2) (2,3,3,3)
// MESH2D-NEXT: outputs: (1,3,5,5)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 16, received: 24
// MESH2D: rank class 'class2': ranks [2]
// MESH2D-NEXT: inputs: (1,2,3,3) (2,3,3,3)
// MESH2D-NEXT: outputs: (1,3,7,5)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 24, received: 24
// MESH2D: rank class 'class3': ranks [3]
// MESH2D-NEXT: inputs: (1,2,3,2) (2,3,3,3)
// MESH2D-NEXT: outputs: (1,3,7,5)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 0, received: 48
// MESH2D-NOT: rank class
// BOX2D: rank class 'class3'
// BOX2D: HaloExchange
// BOX2D-SAME: recv %[[B:[0-9]+]][0:1,0:2,0:1,0:1] peer (-1,-1) recv %[[B]][0:1,0:2,0:1,1:3] peer (-1,0) recv %[[B]][0:1,0:2,1:4,0:1] peer (0,-1)

//--- one.mlir
// k3 s2 p1 op1, 4 -> 8 over one input per rank: anchors give outputs
// [1, 2, 2, 3] (output 7 clamps to input 3). The first output 2r-1 of
// rank r >= 1 reads input r-1, so every rank but the last sends its one
// column (2 ch x 4 B = 8 B) right; the interior ranks share a class.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x2x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>},
                %w: tensor<2x1x3xf32>) -> tensor<1x1x8xf32> {
  %y = sc.conv_transpose %x, %w {stride = array<i64: 2>, padding = array<i64: 1>, output_padding = array<i64: 1>} : (tensor<1x2x4xf32>, tensor<2x1x3xf32>) -> tensor<1x1x8xf32>
  return %y : tensor<1x1x8xf32>
}
// ONE: rank class 'class0': ranks [0]
// ONE-NEXT: inputs: (1,2,1) (2,1,3)
// ONE-NEXT: outputs: (1,1,1)
// ONE-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 8, received: 0
// ONE: rank class 'class1': ranks [1, 2]
// ONE-NEXT: inputs: (1,2,1) (2,1,3)
// ONE-NEXT: outputs: (1,1,2)
// ONE-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 8, received: 8
// ONE: rank class 'class2': ranks [3]
// ONE-NEXT: inputs: (1,2,1) (2,1,3)
// ONE-NEXT: outputs: (1,1,3)
// ONE-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 0, received: 8
// ONE-NOT: rank class
// W1: rank class 'all': ranks [0]
// W1-NEXT: inputs: (1,2,4) (2,1,3)
// W1-NEXT: outputs: (1,1,8)
// W1-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// W1-NOT: rank class
