// F.pad in constant mode on empty tensors: an empty dim padded to a
// non-empty one gives a tensor of nothing but the value, and negative pads
// may crop a dim down to nothing. Such a pad reads no element: each rank
// fills its part of the result (split however propagation chose), and the
// empty input stays whole, moving no bytes. The values are checked against
// F.pad's definition (every element is the value), and the sharded runs
// against the unpartitioned model.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc %t/fill.mlir --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: shardc %t/fill.mlir --emit=kernels | FileCheck %s --check-prefix=KFILL
// RUN: shardc %t/fill.mlir -o %t/fill.shardbin
// RUN: shard-run %t/fill.shardbin --random-inputs --check --output result0=%t/fill.npy | FileCheck %s --check-prefix=RAN
// RUN: %npy values %t/fill.npy | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/fill.mlir -O0 -o %t/fill0.shardbin
// RUN: shard-run %t/fill0.shardbin --random-inputs --output result0=%t/fill0.npy
// RUN: %npy values %t/fill0.npy | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/mixed.mlir -O3 -o %t/mixed.shardbin
// RUN: shard-run %t/mixed.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN
// RUN: shardc %t/mixed.mlir -O1 -o %t/mixed1.shardbin
// RUN: shard-run %t/mixed1.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN
// RUN: shardc %t/crop.mlir --emit=plan | FileCheck %s --check-prefix=CROP
// RUN: shardc %t/crop.mlir -o %t/crop.shardbin
// RUN: shard-run %t/crop.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN

// RAN: check result0: {{.*}}: ok

//--- fill.mlir
// (2, 0, 6) padded to (2, 3, 6) with 1.5, its result split 2/1 over "x"
// along the padded dim.
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<2x0x6xf32>) -> tensor<2x3x6xf32> {
  %p = sc.pad %x {pad = array<i64: 0, 0, 1, 2>, value = 1.5} : (tensor<2x0x6xf32>) -> tensor<2x3x6xf32>
  %y = sc.sharding_constraint %p : tensor<2x3x6xf32> to #sc.sharding<@m, [{}, {"x"}, {}]>
  return %y : tensor<2x3x6xf32>
}
// PLAN: rank class 'class0': ranks [0]
// PLAN-NEXT: inputs: (2,0,6)
// PLAN-NEXT: outputs: (2,2,6)
// PLAN-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// PLAN: rank class 'class1': ranks [1]
// PLAN-NEXT: inputs: (2,0,6)
// PLAN-NEXT: outputs: (2,1,6)
// PLAN-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// KFILL-NOT: Pad
// KFILL: Fill
// KFILL-SAME: 1.5
// KFILL-NOT: Pad
// VALUES: shape (2, 3, 6): 36 values, all 1.5

//--- mixed.mlir
// The fill in the middle of a model: added to an input split unevenly
// [4, 1] along the padded dim, then a conv that needs halos of the sum.
sc.mesh @m ["x"=2]
func.func @main(%e: tensor<1x2x0x7xf32>,
                %x: tensor<1x2x5x7xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[4, 1], {}]>},
                %w: tensor<3x2x3x3xf32>) -> tensor<1x3x5x7xf32> {
  %p = sc.pad %e {pad = array<i64: 0, 0, 2, 3>, value = -0.25} : (tensor<1x2x0x7xf32>) -> tensor<1x2x5x7xf32>
  %s = sc.add %x, %p : (tensor<1x2x5x7xf32>, tensor<1x2x5x7xf32>) -> tensor<1x2x5x7xf32>
  %y = sc.conv %s, %w {padding = array<i64: 1, 1>} : (tensor<1x2x5x7xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x5x7xf32>
  return %y : tensor<1x3x5x7xf32>
}

//--- crop.mlir
// Cropping (-2, -2) leaves nothing of a dim of 4; the split dim stays
// split, and nothing moves.
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<2x5x4xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}, {}]>}) -> tensor<2x5x0xf32> {
  %y = sc.pad %x {pad = array<i64: -2, -2>, value = 3.0} : (tensor<2x5x4xf32>) -> tensor<2x5x0xf32>
  return %y : tensor<2x5x0xf32>
}
// CROP: rank class 'class0': ranks [0]
// CROP-NEXT: inputs: (2,3,4)
// CROP-NEXT: outputs: (2,3,0)
// CROP-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// CROP: rank class 'class1': ranks [1]
// CROP-NEXT: inputs: (2,2,4)
// CROP-NEXT: outputs: (2,2,0)
// CROP-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
