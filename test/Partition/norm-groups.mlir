// Normalisation statistics are gathered only over the mesh axes that split
// the normalised dims: with the batch split over "x" and a spatial dim over
// "y", the all-gather runs within each x row. group_norm with the channels
// split at group boundaries needs no collective at all; a split inside a
// group is reported, not miscomputed.
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc %t/mesh2d.mlir --emit=kernels | FileCheck %s --check-prefix=MESH2D
// RUN: shardc %t/mesh2d.mlir -o %t/mesh2d.shardbin
// RUN: shard-run %t/mesh2d.shardbin --ranks 4 --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/channels.mlir --emit=plan | FileCheck %s --check-prefix=CHANNELS
// RUN: shardc %t/channels.mlir -o %t/channels.shardbin
// RUN: shard-run %t/channels.shardbin --ranks 2 --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/layer2d.mlir -o %t/layer2d.shardbin
// RUN: shard-run %t/layer2d.shardbin --ranks 4 --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: not shardc %t/inside.mlir -o %t/inside.shardbin 2>&1 | FileCheck %s --check-prefix=INSIDE
// RUN: shardc %t/empty.mlir --emit=kernels | FileCheck %s --check-prefix=EMPTY
// RUN: shardc %t/empty.mlir -o %t/empty.shardbin
// RUN: shard-run %t/empty.shardbin --random-inputs --check | FileCheck %s --check-prefix=OK

// OK: check result0: {{.*}}: ok

//--- mesh2d.mlir
sc.mesh @m ["x"=2, "y"=2]
func.func @main(%x: tensor<3x4x6x10xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}, {}, {"y"}[3, 7]]>},
                %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<3x4x6x10xf32> {
  %y = sc.group_norm %x, %w, %b {num_groups = 2} : (tensor<3x4x6x10xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<3x4x6x10xf32>
  return %y : tensor<3x4x6x10xf32>
}
// Rank 0 holds 2 samples x 2 groups = 4 rows of (mean, M2).
// MESH2D: rank class 'class0' (ranks [0])
// MESH2D: AllGather (%{{[0-9]+}}) -> %{{[0-9]+}} ints [0, 1, 1] group [1]
// MESH2D: rank class 'class3' (ranks [3])
// MESH2D: AllGather (%{{[0-9]+}}) -> %{{[0-9]+}} ints [0, 1, 1] group [1]

//--- channels.mlir
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<1x6x5xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[2, 4], {}]>}) -> tensor<1x6x5xf32> {
  %y = sc.group_norm %x {num_groups = 3} : (tensor<1x6x5xf32>) -> tensor<1x6x5xf32>
  return %y : tensor<1x6x5xf32>
}
// CHANNELS: rank class 'class0': ranks [0]
// CHANNELS-NEXT: inputs: (1,2,5)
// CHANNELS-NEXT: outputs: (1,2,5)
// CHANNELS-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// CHANNELS: rank class 'class1': ranks [1]
// CHANNELS-NEXT: inputs: (1,4,5)
// CHANNELS-NEXT: outputs: (1,4,5)
// CHANNELS-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0

//--- layer2d.mlir
sc.mesh @m ["x"=2, "y"=2]
func.func @main(%x: tensor<5x3x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}, {"y"}[5, 3]]>},
                %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<5x3x8xf32> {
  %y = sc.layer_norm %x, %w, %b {normalized_shape = array<i64: 8>} : (tensor<5x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<5x3x8xf32>
  return %y : tensor<5x3x8xf32>
}

//--- inside.mlir
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<1x4x6xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[1, 3], {}]>}) -> tensor<1x4x6xf32> {
  %y = sc.group_norm %x {num_groups = 2} : (tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  return %y : tensor<1x4x6xf32>
}
// INSIDE: inside.mlir:3:8: error: 'sc.group_norm' op splits the channels inside a group (2 groups of 2 channels, a shard starts at channel 1)

//--- empty.mlir
// Tensors of no elements normalise to themselves: each rank's result is an
// empty fill, no statistics, no collective. shardc used to divide by the
// zero channels per group and die of SIGFPE.
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<1x0x6x5xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}, {}]>},
                %z: tensor<0x4x6x5xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}, {}]>})
    -> (tensor<1x0x6x5xf32>, tensor<0x4x6x5xf32>) {
  %y = sc.group_norm %x {num_groups = 2} : (tensor<1x0x6x5xf32>) -> tensor<1x0x6x5xf32>
  %l = sc.layer_norm %z {normalized_shape = array<i64: 6, 5>} : (tensor<0x4x6x5xf32>) -> tensor<0x4x6x5xf32>
  return %y, %l : tensor<1x0x6x5xf32>, tensor<0x4x6x5xf32>
}
// EMPTY: rank class 'class0' (ranks [0, 1]):
// EMPTY-NEXT: Fill () -> %{{[0-9]+}} floats [0.000000e+00]  // sc.group_norm
// EMPTY-NEXT: Fill () -> %{{[0-9]+}} floats [0.000000e+00]  // sc.layer_norm
// EMPTY-NOT: AllGather
