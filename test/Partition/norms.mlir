// Group and layer norm over split statistic dims: each rank computes its
// local mean and M2, one AllGather shares them, and every rank merges them
// (Chan) weighted by the static shard sizes, then scales M2 by 1 / the
// global count. A split batch dim needs no communication. Pins classes,
// shapes, counts, the global-count scale and the affine crops for uneven
// (checked numerically), even, 2-D mesh (checked numerically), batch,
// one-element and world-size-1 splits, statistics split over one mesh axis
// of two (checked numerically), and empty shards (checked numerically): a
// rank with no elements of a row sends zeros, which weigh 0 in the merge.
// The gather's bytes: every rank sends its (rows, 2) statistics to the
// P-1 others of its group and receives theirs: rows x 8 B x (P-1) each way.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc %t/uneven.mlir --emit=plan | FileCheck %s --check-prefix=UNEVEN
// RUN: shardc %t/uneven.mlir --emit=kernels | FileCheck %s --check-prefix=KUNEVEN
// RUN: shardc %t/uneven.mlir -o %t/uneven.shardbin
// RUN: shard-run %t/uneven.shardbin --ranks 2 --random-inputs --seed 1 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/even.mlir --emit=plan | FileCheck %s --check-prefix=EVEN
// RUN: shardc %t/even.mlir --emit=kernels | FileCheck %s --check-prefix=KEVEN
// RUN: shardc %t/mesh2d.mlir --emit=plan | FileCheck %s --check-prefix=MESH2D
// RUN: shardc %t/mesh2d.mlir --emit=kernels | FileCheck %s --check-prefix=KMESH2D
// RUN: shardc %t/mesh2d.mlir -o %t/mesh2d.shardbin
// RUN: shard-run %t/mesh2d.shardbin --ranks 4 --random-inputs --seed 2 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/batch.mlir --emit=plan | FileCheck %s --check-prefix=BATCH
// RUN: shardc %t/one.mlir --emit=plan | FileCheck %s --check-prefix=ONE
// RUN: shardc %t/one.mlir --emit=kernels | FileCheck %s --check-prefix=KONE
// RUN: sed 's/"x"=4/"x"=1/' %t/one.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=W1
// RUN: shardc %t/rows.mlir --emit=plan | FileCheck %s --check-prefix=ROWS
// RUN: shardc %t/rows.mlir --emit=kernels | FileCheck %s --check-prefix=KROWS
// RUN: shardc %t/rows.mlir -o %t/rows.shardbin
// RUN: shard-run %t/rows.shardbin --ranks 4 --random-inputs --seed 3 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/empty-shard.mlir --emit=kernels | FileCheck %s --check-prefix=KEMPTY
// RUN: shardc %t/empty-shard.mlir -o %t/empty-shard.shardbin
// RUN: shard-run %t/empty-shard.shardbin --ranks 3 --random-inputs --seed 4 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/empty-shard.mlir -O3 -o %t/empty-shard3.shardbin
// RUN: shard-run %t/empty-shard3.shardbin --ranks 3 --random-inputs --seed 4 --check | FileCheck %s --check-prefix=NUM
// NUM: check result0: {{.*}}: ok

//--- uneven.mlir
// group_norm, 4 groups of 2 channels, H 9 over [5, 4]: a group's global
// count is 2 x 9 x 4 = 72, so M2 is scaled by 1/72. Statistics rows
// N x G = 8, P = 2: 8 x 8 B = 64 B each way.
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<2x8x9x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 4], {}]>},
                %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8x9x4xf32> {
  %y = sc.group_norm %x, %g, %b {num_groups = 4} : (tensor<2x8x9x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x9x4xf32>
  return %y : tensor<2x8x9x4xf32>
}
// UNEVEN: rank class 'class0': ranks [0]
// UNEVEN-NEXT: inputs: (2,8,5,4) (8) (8)
// UNEVEN-NEXT: outputs: (2,8,5,4)
// UNEVEN-NEXT: halo exchanges: 0, collectives: 1, bytes sent: 64, received: 64
// UNEVEN: rank class 'class1': ranks [1]
// UNEVEN-NEXT: inputs: (2,8,4,4) (8) (8)
// UNEVEN-NEXT: outputs: (2,8,4,4)
// UNEVEN-NEXT: halo exchanges: 0, collectives: 1, bytes sent: 64, received: 64
// UNEVEN-NOT: rank class
// KUNEVEN: rank class 'class1'
// KUNEVEN-NOT: HaloExchange
// KUNEVEN: AllGather
// KUNEVEN-SAME: group [0]
// KUNEVEN: Fill () -> %{{[0-9]+}} floats [1.388889e-02]

//--- even.mlir
// layer_norm over the split last dim (16 over 4): 1/16; each rank crops
// gamma and beta (pinned replicated) to its own [4r, 4r+4), so the
// ranks differ only there.
// Rows 2 x 3 = 6, P = 4: 6 x 8 B x 3 = 144 B each way.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<2x3x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>},
                %g: tensor<16xf32> {sc.sharding = #sc.sharding<@mesh, [{}]>},
                %b: tensor<16xf32> {sc.sharding = #sc.sharding<@mesh, [{}]>}) -> tensor<2x3x16xf32> {
  %y = sc.layer_norm %x, %g, %b {normalized_shape = array<i64: 16>} : (tensor<2x3x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x3x16xf32>
  return %y : tensor<2x3x16xf32>
}
// EVEN: rank class 'class0': ranks [0]
// EVEN-NEXT: inputs: (2,3,4) (16) (16)
// EVEN-NEXT: outputs: (2,3,4)
// EVEN-NEXT: halo exchanges: 0, collectives: 1, bytes sent: 144, received: 144
// EVEN: rank class 'class1': ranks [1]
// EVEN: rank class 'class2': ranks [2]
// EVEN: rank class 'class3': ranks [3]
// EVEN-NOT: rank class
// KEVEN: rank class 'class1'
// KEVEN: Pad "constant" (%1) -> %{{[0-9]+}} ints [-4, -8]
// KEVEN: AllGather
// KEVEN: Fill () -> %{{[0-9]+}} floats [6.250000e-02]

//--- mesh2d.mlir
// group_norm, 2 groups of 2 channels, H 6 over x, W 5 over y ([3, 2]):
// the statistics are gathered over both axes; count 2 x 6 x 5 = 60.
// Rows N x G = 2, P = 4: 2 x 8 B x 3 = 48 B each way.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%x: tensor<1x4x6x5xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {"y"}]>}) -> tensor<1x4x6x5xf32> {
  %y = sc.group_norm %x {num_groups = 2} : (tensor<1x4x6x5xf32>) -> tensor<1x4x6x5xf32>
  return %y : tensor<1x4x6x5xf32>
}
// MESH2D: rank class 'class0': ranks [0, 2]
// MESH2D-NEXT: inputs: (1,4,3,3)
// MESH2D-NEXT: outputs: (1,4,3,3)
// MESH2D-NEXT: halo exchanges: 0, collectives: 1, bytes sent: 48, received: 48
// MESH2D: rank class 'class1': ranks [1, 3]
// MESH2D-NEXT: inputs: (1,4,3,2)
// MESH2D-NEXT: outputs: (1,4,3,2)
// MESH2D-NEXT: halo exchanges: 0, collectives: 1, bytes sent: 48, received: 48
// MESH2D-NOT: rank class
// KMESH2D: AllGather
// KMESH2D-SAME: group [0, 1]
// KMESH2D: Fill () -> %{{[0-9]+}} floats [1.666667e-02]

//--- batch.mlir
// group_norm with the batch split [3, 1]: statistics are per sample, so
// each rank normalises on its own.
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<4x8x6xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[3, 1], {}, {}]>}) -> tensor<4x8x6xf32> {
  %y = sc.group_norm %x {num_groups = 2} : (tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  return %y : tensor<4x8x6xf32>
}
// BATCH: rank class 'class0': ranks [0]
// BATCH-NEXT: inputs: (3,8,6)
// BATCH-NEXT: outputs: (3,8,6)
// BATCH-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// BATCH: rank class 'class1': ranks [1]
// BATCH-NEXT: inputs: (1,8,6)
// BATCH-NEXT: outputs: (1,8,6)
// BATCH-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// BATCH-NOT: rank class

//--- one.mlir
// layer_norm over 4 with one element per rank: scale 1/4; with "x"=1 it
// is a plain local norm. Rows 3, P = 4: 3 x 8 B x 3 = 72 B each way.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<3x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>}) -> tensor<3x4xf32> {
  %y = sc.layer_norm %x {normalized_shape = array<i64: 4>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}
// ONE: rank class 'class0': ranks [0..3]
// ONE-NEXT: inputs: (3,1)
// ONE-NEXT: outputs: (3,1)
// ONE-NEXT: halo exchanges: 0, collectives: 1, bytes sent: 72, received: 72
// ONE-NOT: rank class
// KONE: AllGather
// KONE: Fill () -> %{{[0-9]+}} floats [2.500000e-01]
// W1: rank class 'all': ranks [0]
// W1-NEXT: inputs: (3,4)
// W1-NEXT: outputs: (3,4)
// W1-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// W1-NOT: rank class

//--- rows.mlir
// layer_norm over dim 1 (split over "y") with dim 0 split over "x": the
// statistics are gathered within each mesh row only (group [1]), P = 2;
// rows 2: 2 x 8 B = 16 B each way.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%x: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<4x8xf32> {
  %y = sc.layer_norm %x {normalized_shape = array<i64: 8>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
// ROWS: rank class 'class0': ranks [0..3]
// ROWS-NEXT: inputs: (2,4)
// ROWS-NEXT: outputs: (2,4)
// ROWS-NEXT: halo exchanges: 0, collectives: 1, bytes sent: 16, received: 16
// ROWS-NOT: rank class
// KROWS: AllGather
// KROWS-SAME: group [1]
// KROWS: Fill () -> %{{[0-9]+}} floats [1.250000e-01]

//--- empty-shard.mlir
// layer_norm over the last dim split [0, 8, 0]: ranks 0 and 2 hold none of
// each row, send zero statistics with weight 0 and count 0, and compute no
// mean of nothing. group_norm over H split [3, 0, 2] as well.
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[0, 8, 0]]>},
                %w: tensor<8xf32>, %z: tensor<2x4x5xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[3, 0, 2]]>})
    -> (tensor<4x8xf32>, tensor<2x4x5xf32>) {
  %y = sc.layer_norm %x, %w {normalized_shape = array<i64: 8>} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %g = sc.group_norm %z {num_groups = 2} : (tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  return %y, %g : tensor<4x8xf32>, tensor<2x4x5xf32>
}
// KEMPTY: rank class 'class0' (ranks [0]):
// KEMPTY-NOT: Reduce "mean"
// KEMPTY: Fill () -> %{{[0-9]+}} floats [0.000000e+00]  // sc.layer_norm
// KEMPTY: AllGather (%{{[0-9]+}}) -> %{{[0-9]+}} ints [0, 1, 1, 1] group [0]  // sc.layer_norm
// KEMPTY: Reduce "mean" {{.*}} // sc.group_norm
// KEMPTY: rank class 'class1' (ranks [1]):
// KEMPTY: Reduce "mean" {{.*}} // sc.layer_norm
// KEMPTY-NOT: Reduce "mean"
// KEMPTY: Fill () -> %{{[0-9]+}} floats [0.000000e+00]  // sc.group_norm
// KEMPTY: AllGather (%{{[0-9]+}}) -> %{{[0-9]+}} ints [0, 1, 1, 1] group [0]  // sc.group_norm
