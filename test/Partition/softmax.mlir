// softmax / log_softmax over a split dim: every rank takes its local max
// and sum of exponentials, one all-gather over the group of the split's
// mesh axes brings every member's (max, sum) pair, and each rank merges
// them as an online softmax does. Other dims may be split over other axes
// (the group is then one row of the mesh); an empty shard sends (lowest,
// 0), which the merge ignores.
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc %t/uneven.mlir --emit=plan | FileCheck %s --check-prefix=UNEVEN
// RUN: shardc %t/uneven.mlir --emit=kernels | FileCheck %s --check-prefix=UNEVEN-K
// RUN: shardc %t/uneven.mlir -o %t/uneven.shardbin
// RUN: shard-run %t/uneven.shardbin --ranks 3 --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/mesh2d.mlir --emit=kernels | FileCheck %s --check-prefix=MESH2D
// RUN: shardc %t/mesh2d.mlir -o %t/mesh2d.shardbin
// RUN: shard-run %t/mesh2d.shardbin --ranks 4 --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/large.mlir -o %t/large.shardbin
// RUN: shard-run %t/large.shardbin --ranks 2 --random-inputs --random-bound arg0=100 --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/neg-inf.mlir -o %t/neg-inf.shardbin
// RUN: shard-run %t/neg-inf.shardbin --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: sed 's/sc.softmax/sc.log_softmax/' %t/neg-inf.mlir | shardc - -o %t/neg-inf-log.shardbin
// RUN: shard-run %t/neg-inf-log.shardbin --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/one.mlir --emit=plan | FileCheck %s --check-prefix=ONE
// RUN: shardc %t/rank9.mlir --emit=plan | FileCheck %s --check-prefix=RANK9
// RUN: shardc %t/rank9.mlir --emit=kernels | FileCheck %s --check-prefix=RANK9-K
// RUN: shardc %t/rank9.mlir -o %t/rank9.shardbin
// RUN: shard-run %t/rank9.shardbin --ranks 4 --random-inputs --check | FileCheck %s --check-prefix=OK

// OK: check result0: {{.*}}: ok

//--- uneven.mlir
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<2x7xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[4, 0, 3]]>}) -> tensor<2x7xf32> {
  %y = sc.softmax %x {dim = 1} : (tensor<2x7xf32>) -> tensor<2x7xf32>
  return %y : tensor<2x7xf32>
}
// Each rank gathers 3 pairs of 2 rows: it sends its 16 bytes to 2 peers.
// UNEVEN: rank class 'class0': ranks [0]
// UNEVEN-NEXT: inputs: (2,4)
// UNEVEN-NEXT: outputs: (2,4)
// UNEVEN-NEXT: halo exchanges: 0, collectives: 1, bytes sent: 32, received: 32
// UNEVEN: rank class 'class1': ranks [1]
// UNEVEN-NEXT: inputs: (2,0)
// UNEVEN: rank class 'class2': ranks [2]
// UNEVEN-NEXT: inputs: (2,3)
// UNEVEN-NOT: rank class

// UNEVEN-K: rank class 'class0'
// UNEVEN-K: Reduce "amax" (%0) -> %[[R:[0-9]+]] ints [1]
// UNEVEN-K-NEXT: Binary "maximum" (%[[R]], %{{[0-9]+}}) -> %[[M:[0-9]+]]
// UNEVEN-K: Concat (%[[M]], %{{[0-9]+}}) -> %[[S:[0-9]+]] ints [1]
// UNEVEN-K-NEXT: AllGather (%[[S]]) -> %[[A:[0-9]+]] ints [1, 2, 2, 2] group [0]
// UNEVEN-K-NEXT: Slice (%[[A]]) -> %{{[0-9]+}} ints [0, 0, 1, 2]
// UNEVEN-K-NEXT: Slice (%[[A]]) -> %{{[0-9]+}} ints [0, 1, 1, 2]
// The empty shard contributes the lowest float as its max and 0 as its sum.
// UNEVEN-K: rank class 'class1'
// UNEVEN-K-NEXT: Fill () -> %{{[0-9]+}} floats [-3.402823e+38]
// UNEVEN-K-NEXT: Fill () -> %{{[0-9]+}} floats [0.000000e+00]

//--- mesh2d.mlir
sc.mesh @m ["x"=2, "y"=2]
func.func @main(%x: tensor<5x9x3xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {"y"}[2, 7], {}]>}) -> tensor<5x9x3xf32> {
  %y = sc.log_softmax %x {dim = 1} : (tensor<5x9x3xf32>) -> tensor<5x9x3xf32>
  return %y : tensor<5x9x3xf32>
}
// The statistics are gathered over "y" only: the ranks sharing an x row.
// MESH2D: rank class 'class0' (ranks [0])
// MESH2D: AllGather (%{{[0-9]+}}) -> %{{[0-9]+}} ints [1, 2, 2] group [1]
// MESH2D: Unary "log"
// MESH2D: rank class 'class3' (ranks [3])
// MESH2D: AllGather (%{{[0-9]+}}) -> %{{[0-9]+}} ints [1, 2, 2] group [1]

//--- large.mlir
// Inputs up to 100 in magnitude: exp overflows f32 past 88 without the max shift.
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<3x64xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}]>}) -> tensor<3x64xf32> {
  %y = sc.softmax %x {dim = 1} : (tensor<3x64xf32>) -> tensor<3x64xf32>
  return %y : tensor<3x64xf32>
}

//--- neg-inf.mlir
// Rank 0's shard of row 0 is all -inf, and row 1 is -inf but for one value
// of the lowest float: the shard's max must not stay -inf (its sum would be
// exp(-inf - -inf) = NaN and spoil the whole row), nor may the lowest float
// lose its weight. Row 1 is then one-hot, as unpartitioned; fails (16
// elements) when a shard's max stays -inf.
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<2x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>}) -> tensor<2x8xf32> {
  %c = sc.constant dense<[[0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0.0, 0.0, 0.0, 0.0], [0xFF7FFFFF, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000]]> : tensor<2x8xf32>
  %a = sc.add %x, %c : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = sc.softmax %a {dim = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

//--- one.mlir
// World size 1 compiles the unpartitioned program.
sc.mesh @m ["x"=1]
func.func @main(%x: tensor<2x7xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}]>}) -> tensor<2x7xf32> {
  %y = sc.softmax %x {dim = -1} : (tensor<2x7xf32>) -> tensor<2x7xf32>
  return %y : tensor<2x7xf32>
}
// ONE: rank class 'all': ranks [0]
// ONE-NEXT: inputs: (2,7)
// ONE-NEXT: outputs: (2,7)
// ONE-NEXT: halo exchanges: 0, collectives: 0

//--- rank9.mlir
// A 9-D input: the merge's slices carry 18 ints, made on each rank apart.
// Rank classes name lists that long by number, and equal lists must get one
// number wherever they are stored: an even split is still one class.
sc.mesh @m ["x"=4]
func.func @main(%x: tensor<1x2x1x1x8x1x1x1x3xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {}, {}, {"x"}, {}, {}, {}, {}]>}) -> tensor<1x2x1x1x8x1x1x1x3xf32> {
  %y = sc.softmax %x {dim = 4} : (tensor<1x2x1x1x8x1x1x1x3xf32>) -> tensor<1x2x1x1x8x1x1x1x3xf32>
  return %y : tensor<1x2x1x1x8x1x1x1x3xf32>
}
// RANK9: rank class 'class0': ranks [0..3]
// RANK9-NOT: rank class
// RANK9-K: Slice {{.*}} ints [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 1, 1, 1, 1]
