// Normalisation statistics are gathered only over the mesh axes that split
// the normalised dims: with the batch split over "x" and a spatial dim over
// "y", the all-gather runs within each x row. group_norm with the channels
// split at group boundaries needs no collective at all. A split inside a
// group gathers per-channel (mean, M2) over the channel axes first, merges
// each group's channels (equal counts), then merges over the spatial axes
// as usual, and spreads each group's statistics back to the rank's own
// channels; an empty shard of either dim takes part with zeros.
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc %t/mesh2d.mlir --emit=kernels | FileCheck %s --check-prefix=MESH2D
// RUN: shardc %t/mesh2d.mlir -o %t/mesh2d.shardbin
// RUN: shard-run %t/mesh2d.shardbin --ranks 4 --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/channels.mlir --emit=plan | FileCheck %s --check-prefix=CHANNELS
// RUN: shardc %t/channels.mlir -o %t/channels.shardbin
// RUN: shard-run %t/channels.shardbin --ranks 2 --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/layer2d.mlir -o %t/layer2d.shardbin
// RUN: shard-run %t/layer2d.shardbin --ranks 4 --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/inside.mlir --emit=kernels | FileCheck %s --check-prefix=INSIDE
// RUN: shardc %t/inside.mlir -o %t/inside.shardbin
// RUN: shard-run %t/inside.shardbin --ranks 4 --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/inside.mlir -O3 -o %t/inside3.shardbin
// RUN: shard-run %t/inside3.shardbin --ranks 4 --random-inputs --seed 5 --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/inside-yx.mlir --emit=kernels | FileCheck %s --check-prefix=YX
// RUN: shardc %t/inside-yx.mlir -o %t/inside-yx.shardbin
// RUN: shard-run %t/inside-yx.shardbin --ranks 8 --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/inside1d.mlir --emit=kernels | FileCheck %s --check-prefix=INSIDE1D
// RUN: shardc %t/inside1d.mlir -o %t/inside1d.shardbin
// RUN: shard-run %t/inside1d.shardbin --ranks 3 --random-inputs --check | FileCheck %s --check-prefix=OK
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
// 2 groups of 2 channels split [1, 3] over "x" (inside group 0); H split
// [4, 2] over "y". Each rank gathers the 4 channels' (mean, M2) over "x"
// (a channel's count is its 12 or 6 local elements), merges each group's
// two, and gathers the groups' pairs over "y": 2 x 18 = 36 elements a
// group, 1/36 the scale.
sc.mesh @m ["x"=2, "y"=2]
func.func @main(%x: tensor<2x4x6x3xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[1, 3], {"y"}[4, 2], {}]>},
                %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4x6x3xf32> {
  %y = sc.group_norm %x, %w, %b {num_groups = 2} : (tensor<2x4x6x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x6x3xf32>
  return %y : tensor<2x4x6x3xf32>
}
// INSIDE: rank class 'class0' (ranks [0]):
// INSIDE: Reduce "mean"
// INSIDE: AllGather (%{{[0-9]+}}) -> %{{[0-9]+}} ints [1, 1, 3] group [0]
// INSIDE: Fill () -> %{{[0-9]+}} floats [1.200000e+01]
// INSIDE: AllGather (%{{[0-9]+}}) -> %{{[0-9]+}} ints [0, 1, 1] group [1]
// INSIDE: Fill () -> %{{[0-9]+}} floats [2.777778e-02]
// INSIDE: Slice (%{{[0-9]+}}) -> %{{[0-9]+}} ints [0, 0, 1, 1]
// INSIDE: Slice (%{{[0-9]+}}) -> %{{[0-9]+}} ints [0, 0, 1, 1]
// INSIDE: rank class 'class1' (ranks [1]):
// INSIDE: AllGather (%{{[0-9]+}}) -> %{{[0-9]+}} ints [1, 1, 3] group [0]
// INSIDE: Fill () -> %{{[0-9]+}} floats [6.000000e+00]
// INSIDE: rank class 'class2' (ranks [2]):
// INSIDE: Slice (%{{[0-9]+}}) -> %{{[0-9]+}} ints [0, 1, 1, 1]
// INSIDE: Slice (%{{[0-9]+}}) -> %{{[0-9]+}} ints [0, 1, 1, 1]

//--- inside-yx.mlir
// Channels split over ("y", "x"), y major: shard y * 2 + x. The gather's
// group lists the axes y major too, so members bring the shards in order
// (extents 1, 3, 2, 2) and nothing is reordered after it.
// H split [5, 0] over "z": half the ranks have no spatial elements and
// send zeros.
sc.mesh @m ["x"=2, "y"=2, "z"=2]
func.func @main(%x: tensor<2x8x5x3xf32> {sc.sharding = #sc.sharding<@m, [{}, {"y", "x"}[1, 3, 2, 2], {"z"}[5, 0], {}]>},
                %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8x5x3xf32> {
  %y = sc.group_norm %x, %w, %b {num_groups = 2} : (tensor<2x8x5x3xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x5x3xf32>
  return %y : tensor<2x8x5x3xf32>
}
// YX: rank class 'class0' (ranks [0]):
// YX: AllGather (%{{[0-9]+}}) -> %{{[0-9]+}} ints [1, 1, 3, 2, 2] group [1, 0]
// YX-NOT: Concat {{.*}} ints [1]{{ }}
// YX: AllGather (%{{[0-9]+}}) -> %{{[0-9]+}} ints [0, 1, 1] group [2]

//--- inside1d.mlir
// 2 groups of 3 channels split [1, 0, 5] (an empty shard) and nothing
// else split: one gather over "x", no spatial merge.
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<2x6x7xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[1, 0, 5], {}]>}) -> tensor<2x6x7xf32> {
  %y = sc.group_norm %x {num_groups = 2} : (tensor<2x6x7xf32>) -> tensor<2x6x7xf32>
  return %y : tensor<2x6x7xf32>
}
// INSIDE1D: rank class 'class0' (ranks [0]):
// INSIDE1D: AllGather (%{{[0-9]+}}) -> %{{[0-9]+}} ints [1, 1, 0, 5] group [0]
// INSIDE1D-NOT: AllGather
// INSIDE1D: rank class 'class1' (ranks [1]):
// INSIDE1D: AllGather (%{{[0-9]+}}) -> %{{[0-9]+}} ints [1, 1, 0, 5] group [0]
// INSIDE1D: Slice (%{{[0-9]+}}) -> %{{[0-9]+}} ints [0, 1, 1, 1]
// INSIDE1D: rank class 'class2' (ranks [2]):
// INSIDE1D: Slice (%{{[0-9]+}}) -> %{{[0-9]+}} ints [0, 1, 1, 1]

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
