// Max and average pooling (PyTorch semantics): output o reads the virtual
// window [o*s - pL, o*s - pL + k) and belongs to the shard owning its
// centre o*s - pL + (k-1)/2 (clamped). Pins classes, shapes, bytes and boxes
// for even, uneven, ceil-mode, multi-hop (checked numerically against the
// unpartitioned run), 2-D mesh, one-element and world-size-1 splits.
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc %t/even.mlir --emit=plan | FileCheck %s --check-prefix=EVEN
// RUN: shardc %t/uneven.mlir --emit=plan | FileCheck %s --check-prefix=UNEVEN
// RUN: shardc %t/uneven.mlir --emit=kernels | FileCheck %s --check-prefix=BOXU
// RUN: shardc %t/ceil.mlir --emit=plan | FileCheck %s --check-prefix=CEIL
// RUN: shardc %t/avg-ceil.mlir -o %t/avg-ceil.shardbin
// RUN: shard-run %t/avg-ceil.shardbin --ranks 2 --random-inputs --check | FileCheck %s --check-prefix=NUM
// RUN: sed 's/\[5, 5\]/[9, 1]/' %t/avg-ceil.mlir | shardc - -o %t/avg-ceil-91.shardbin
// RUN: shard-run %t/avg-ceil-91.shardbin --ranks 2 --random-inputs --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/multihop.mlir --emit=plan | FileCheck %s --check-prefix=MULTI
// RUN: shardc %t/multihop.mlir --emit=kernels | FileCheck %s --check-prefix=BOXM
// RUN: shardc %t/multihop.mlir -o %t/multihop.shardbin
// RUN: shard-run %t/multihop.shardbin --ranks 4 --random-inputs --seed 1 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/mesh2d.mlir --emit=plan | FileCheck %s --check-prefix=MESH2D
// RUN: shardc %t/mesh2d.mlir --emit=kernels | FileCheck %s --check-prefix=BOX2D
// RUN: shardc %t/one.mlir --emit=plan | FileCheck %s --check-prefix=ONE
// RUN: sed 's/"x"=4/"x"=1/' %t/one.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=W1

//--- even.mlir
// k2 s2: windows never straddle an even 8-wide shard; one program.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x2x32xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>}) -> tensor<1x2x16xf32> {
  %y = sc.max_pool %x {kernel_size = array<i64: 2>, stride = array<i64: 2>} : (tensor<1x2x32xf32>) -> tensor<1x2x16xf32>
  return %y : tensor<1x2x16xf32>
}
// EVEN: rank class 'class0': ranks [0..3]
// EVEN-NEXT: inputs: (1,2,8)
// EVEN-NEXT: outputs: (1,2,4)
// EVEN-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// EVEN-NOT: rank class

//--- uneven.mlir
// k3 s2 p1, 127 -> 64 over [50, 40, 37]; centre 2o gives outputs
// [25, 20, 19]. Output 25 reads [49, 51] (needs 49), output 45 reads
// [89, 91] (needs 89); the last window reads 127 = padding. 8 B a column.
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<1x2x127xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[50, 40, 37]]>}) -> tensor<1x2x64xf32> {
  %y = sc.avg_pool %x {kernel_size = array<i64: 3>, stride = array<i64: 2>, padding = array<i64: 1>} : (tensor<1x2x127xf32>) -> tensor<1x2x64xf32>
  return %y : tensor<1x2x64xf32>
}
// UNEVEN: rank class 'class0': ranks [0]
// UNEVEN-NEXT: inputs: (1,2,50)
// UNEVEN-NEXT: outputs: (1,2,25)
// UNEVEN-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 8, received: 0
// UNEVEN: rank class 'class1': ranks [1]
// UNEVEN-NEXT: inputs: (1,2,40)
// UNEVEN-NEXT: outputs: (1,2,20)
// UNEVEN-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 8, received: 8
// UNEVEN: rank class 'class2': ranks [2]
// UNEVEN-NEXT: inputs: (1,2,37)
// UNEVEN-NEXT: outputs: (1,2,19)
// UNEVEN-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 0, received: 8
// UNEVEN-NOT: rank class
// BOXU: rank class 'class0'
// BOXU: HaloExchange (%0) -> () send %0[0:1,0:2,49:50] peer (1)
// BOXU: rank class 'class1'
// BOXU: HaloExchange
// BOXU-SAME: recv %{{[0-9]+}}[0:1,0:2,0:1] peer (-1) send %0[0:1,0:2,39:40] peer (1)

//--- ceil.mlir
// max_pool k3 s2 ceil_mode, 10 -> 5 (the last window [8, 11) hangs past
// the input). Centres 2o+1 over [5, 5]: outputs [2, 3]; output 2 reads
// [4, 6], so rank 1 needs input 4 (8 B).
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<1x2x10xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>}) -> tensor<1x2x5xf32> {
  %y = sc.max_pool %x {kernel_size = array<i64: 3>, stride = array<i64: 2>, ceil_mode = true} : (tensor<1x2x10xf32>) -> tensor<1x2x5xf32>
  return %y : tensor<1x2x5xf32>
}
// CEIL: rank class 'class0': ranks [0]
// CEIL-NEXT: inputs: (1,2,5)
// CEIL-NEXT: outputs: (1,2,2)
// CEIL-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 8, received: 0
// CEIL: rank class 'class1': ranks [1]
// CEIL-NEXT: inputs: (1,2,5)
// CEIL-NEXT: outputs: (1,2,3)
// CEIL-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 0, received: 8
// CEIL-NOT: rank class

//--- avg-ceil.mlir
// avg_pool k3 s2 with ceil_mode over 10: the last window [8, 11) overhangs
// the input by one, which count_include_pad does not count (PyTorch divides
// it by 2). The last rank must not treat the overhang as padding.
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<1x2x10xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 5]]>}) -> tensor<1x2x5xf32> {
  %y = sc.avg_pool %x {kernel_size = array<i64: 3>, stride = array<i64: 2>, ceil_mode = true} : (tensor<1x2x10xf32>) -> tensor<1x2x5xf32>
  return %y : tensor<1x2x5xf32>
}

//--- multihop.mlir
// k7 s1 p3 over [6, 1, 1, 8]: output o reads [o-3, o+3], outputs stay
// [6, 1, 1, 8]. Needs: rank 0 [0,9), rank 1 [3,10), rank 2 [4,11),
// rank 3 [5,16). Rank 2 receives [4,6) from two ranks back, [6,7) and
// [8,11): 6 columns x 8 B = 48 B; rank 0 sends [3,6), [4,6), [5,6) = 48 B.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x2x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[6, 1, 1, 8]]>}) -> tensor<1x2x16xf32> {
  %y = sc.avg_pool %x {kernel_size = array<i64: 7>, stride = array<i64: 1>, padding = array<i64: 3>} : (tensor<1x2x16xf32>) -> tensor<1x2x16xf32>
  return %y : tensor<1x2x16xf32>
}
// MULTI: rank class 'class0': ranks [0]
// MULTI-NEXT: inputs: (1,2,6)
// MULTI-NEXT: outputs: (1,2,6)
// MULTI-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 48, received: 24
// MULTI: rank class 'class1': ranks [1]
// MULTI-NEXT: inputs: (1,2,1)
// MULTI-NEXT: outputs: (1,2,1)
// MULTI-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 24, received: 48
// MULTI: rank class 'class2': ranks [2]
// MULTI-NEXT: inputs: (1,2,1)
// MULTI-NEXT: outputs: (1,2,1)
// MULTI-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 24, received: 48
// MULTI: rank class 'class3': ranks [3]
// MULTI-NEXT: inputs: (1,2,8)
// MULTI-NEXT: outputs: (1,2,8)
// MULTI-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 48, received: 24
// MULTI-NOT: rank class
// BOXM: rank class 'class2'
// BOXM: HaloExchange
// BOXM-SAME: recv %[[B:[0-9]+]][0:1,0:2,0:2] peer (-2) recv %[[B]][0:1,0:2,2:3] peer (-1) recv %[[B]][0:1,0:2,4:7] peer (1)
// NUM: check result0: {{.*}}: ok

//--- mesh2d.mlir
// k3 s2 p1 in H (9 -> 5, [5, 4] -> outputs [3, 2]) and W (7 -> 4,
// [4, 3] -> outputs [2, 2]). Row 5 and col 3 cross: rank 0 needs row 5
// (4 cols) from rank 2 = 16 B; rank 1 needs rows 0-5 x col 3 (5 from
// rank 0, 1 from rank 2) and row 5 x cols 4-6 from rank 3 = 9 x 4 B.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%x: tensor<1x1x9x7xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {"y"}]>}) -> tensor<1x1x5x4xf32> {
  %y = sc.max_pool %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<1x1x9x7xf32>) -> tensor<1x1x5x4xf32>
  return %y : tensor<1x1x5x4xf32>
}
// MESH2D: rank class 'class0': ranks [0]
// MESH2D-NEXT: inputs: (1,1,5,4)
// MESH2D-NEXT: outputs: (1,1,3,2)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 20, received: 16
// MESH2D: rank class 'class1': ranks [1]
// MESH2D-NEXT: inputs: (1,1,5,3)
// MESH2D-NEXT: outputs: (1,1,3,2)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 0, received: 36
// MESH2D: rank class 'class2': ranks [2]
// MESH2D-NEXT: inputs: (1,1,4,4)
// MESH2D-NEXT: outputs: (1,1,2,2)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 36, received: 0
// MESH2D: rank class 'class3': ranks [3]
// MESH2D-NEXT: inputs: (1,1,4,3)
// MESH2D-NEXT: outputs: (1,1,2,2)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 12, received: 16
// MESH2D-NOT: rank class
// BOX2D: rank class 'class1'
// BOX2D: HaloExchange
// BOX2D-SAME: recv %[[B:[0-9]+]][0:1,0:1,0:5,0:1] peer (0,-1) recv %[[B]][0:1,0:1,5:6,0:1] peer (1,-1) recv %[[B]][0:1,0:1,5:6,1:4] peer (1,0)

//--- one.mlir
// k3 s1 p1, one element per rank: each rank reads its neighbours' one
// element (8 B each); the interior ranks share a class.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x2x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>}) -> tensor<1x2x4xf32> {
  %y = sc.max_pool %x {kernel_size = array<i64: 3>, stride = array<i64: 1>, padding = array<i64: 1>} : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  return %y : tensor<1x2x4xf32>
}
// ONE: rank class 'class0': ranks [0]
// ONE-NEXT: inputs: (1,2,1)
// ONE-NEXT: outputs: (1,2,1)
// ONE-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 8, received: 8
// ONE: rank class 'class1': ranks [1, 2]
// ONE: halo exchanges: 1, collectives: 0, bytes sent: 16, received: 16
// ONE: rank class 'class2': ranks [3]
// ONE: halo exchanges: 1, collectives: 0, bytes sent: 8, received: 8
// ONE-NOT: rank class
// W1: rank class 'all': ranks [0]
// W1-NEXT: inputs: (1,2,4)
// W1-NEXT: outputs: (1,2,4)
// W1-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// W1-NOT: rank class
