// linear and matmul: split batch / row / column dims pass through with no
// traffic; a split contraction leaves a partial sum that one AllReduce
// resolves where it is returned, after each rank crops the replicated
// weight to its part of the contraction. Pins classes, shapes and counts
// for uneven rows, an uneven split contraction, a split contraction on
// both operands, a 2-D mesh, one-element and world-size-1 splits.
// All-reduce traffic is not counted in the plan's bytes today, so those
// are left unpinned on lines with collectives.
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc %t/rows.mlir --emit=plan | FileCheck %s --check-prefix=ROWS
// RUN: shardc %t/contract.mlir --emit=plan | FileCheck %s --check-prefix=CONTRACT
// RUN: shardc %t/contract.mlir --emit=kernels | FileCheck %s --check-prefix=KCONTRACT
// RUN: shardc %t/both-k.mlir --emit=plan | FileCheck %s --check-prefix=BOTHK
// RUN: shardc %t/both-k.mlir --emit=kernels | FileCheck %s --check-prefix=KBOTHK
// RUN: shardc %t/mesh2d.mlir --emit=plan | FileCheck %s --check-prefix=MESH2D
// RUN: shardc %t/one.mlir --emit=plan | FileCheck %s --check-prefix=ONE
// RUN: sed 's/"x"=4/"x"=1/' %t/one.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=W1

//--- rows.mlir
// linear with bias, sequence 7 over 2 (canonical [4, 3]): rows pass through.
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<1x7x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>},
                %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<1x7x16xf32> {
  %y = sc.linear %x, %w, %b : (tensor<1x7x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<1x7x16xf32>
  return %y : tensor<1x7x16xf32>
}
// ROWS: rank class 'class0': ranks [0]
// ROWS-NEXT: inputs: (1,4,8) (16,8) (16)
// ROWS-NEXT: outputs: (1,4,16)
// ROWS-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// ROWS: rank class 'class1': ranks [1]
// ROWS-NEXT: inputs: (1,3,8) (16,8) (16)
// ROWS-NEXT: outputs: (1,3,16)
// ROWS-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// ROWS-NOT: rank class

//--- contract.mlir
// linear without bias, in-features 9 over [5, 3, 1]: rank r crops the
// weight (6, 9), pinned replicated, to columns [0,5), [5,8), [8,9) (Pad
// ints: lows, then highs), computes a (4, 6) partial and the three
// partials are all-reduced.
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<4x9xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[5, 3, 1]]>},
                %w: tensor<6x9xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}]>}) -> tensor<4x6xf32> {
  %y = sc.linear %x, %w : (tensor<4x9xf32>, tensor<6x9xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}
// CONTRACT: rank class 'class0': ranks [0]
// CONTRACT-NEXT: inputs: (4,5) (6,9)
// CONTRACT-NEXT: outputs: (4,6)
// CONTRACT-NEXT: halo exchanges: 0, collectives: 1,
// CONTRACT: rank class 'class1': ranks [1]
// CONTRACT-NEXT: inputs: (4,3) (6,9)
// CONTRACT-NEXT: outputs: (4,6)
// CONTRACT-NEXT: halo exchanges: 0, collectives: 1,
// CONTRACT: rank class 'class2': ranks [2]
// CONTRACT-NEXT: inputs: (4,1) (6,9)
// CONTRACT-NEXT: outputs: (4,6)
// CONTRACT-NEXT: halo exchanges: 0, collectives: 1,
// CONTRACT-NOT: rank class
// KCONTRACT: rank class 'class0'
// KCONTRACT-NEXT: Pad "constant" (%1) -> %[[W0:[0-9]+]] ints [0, 0, 0, -4]
// KCONTRACT-NEXT: Linear (%0, %[[W0]]) -> %[[P0:[0-9]+]]
// KCONTRACT-NEXT: AllReduce (%[[P0]]) -> %{{[0-9]+}} group [0] reduce Sum
// KCONTRACT: rank class 'class1'
// KCONTRACT-NEXT: Pad "constant" (%1) -> %{{[0-9]+}} ints [0, -5, 0, -1]
// KCONTRACT: rank class 'class2'
// KCONTRACT-NEXT: Pad "constant" (%1) -> %{{[0-9]+}} ints [0, -8, 0, 0]
// KCONTRACT-NOT: HaloExchange

//--- both-k.mlir
// matmul with K = 6 split [4, 2] on both operands alike: local (8,4)@(4,5)
// and (8,2)@(2,5), then one all-reduce; nothing else moves.
sc.mesh @mesh ["x"=2]
func.func @main(%a: tensor<8x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[4, 2]]>},
                %b: tensor<6x5xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[4, 2], {}]>}) -> tensor<8x5xf32> {
  %y = sc.matmul %a, %b : (tensor<8x6xf32>, tensor<6x5xf32>) -> tensor<8x5xf32>
  return %y : tensor<8x5xf32>
}
// BOTHK: rank class 'class0': ranks [0]
// BOTHK-NEXT: inputs: (8,4) (4,5)
// BOTHK-NEXT: outputs: (8,5)
// BOTHK-NEXT: halo exchanges: 0, collectives: 1,
// BOTHK: rank class 'class1': ranks [1]
// BOTHK-NEXT: inputs: (8,2) (2,5)
// BOTHK-NEXT: outputs: (8,5)
// BOTHK-NEXT: halo exchanges: 0, collectives: 1,
// BOTHK-NOT: rank class
// KBOTHK: Matmul (%0, %1) -> %[[P:[0-9]+]]
// KBOTHK-NEXT: AllReduce (%[[P]]) -> %{{[0-9]+}} group [0] reduce Sum

//--- mesh2d.mlir
// batched matmul, rows of %a (8) over x, columns of %b (5, [3, 2]) over y:
// the result is split both ways and nothing moves; ranks with the same y
// coordinate share a program.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%a: tensor<2x8x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>},
                %b: tensor<6x5xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"y"}]>}) -> tensor<2x8x5xf32> {
  %y = sc.matmul %a, %b : (tensor<2x8x6xf32>, tensor<6x5xf32>) -> tensor<2x8x5xf32>
  return %y : tensor<2x8x5xf32>
}
// MESH2D: rank class 'class0': ranks [0, 2]
// MESH2D-NEXT: inputs: (2,4,6) (6,3)
// MESH2D-NEXT: outputs: (2,4,3)
// MESH2D-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// MESH2D: rank class 'class1': ranks [1, 3]
// MESH2D-NEXT: inputs: (2,4,6) (6,2)
// MESH2D-NEXT: outputs: (2,4,2)
// MESH2D-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// MESH2D-NOT: rank class

//--- one.mlir
// one row per rank against a replicated (3, 2) matrix.
sc.mesh @mesh ["x"=4]
func.func @main(%a: tensor<4x3xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>},
                %b: tensor<3x2xf32>) -> tensor<4x2xf32> {
  %y = sc.matmul %a, %b : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
// ONE: rank class 'class0': ranks [0..3]
// ONE-NEXT: inputs: (1,3) (3,2)
// ONE-NEXT: outputs: (1,2)
// ONE-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// ONE-NOT: rank class
// W1: rank class 'all': ranks [0]
// W1-NEXT: inputs: (4,3) (3,2)
// W1-NEXT: outputs: (4,2)
// W1-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// W1-NOT: rank class
