// Layer and group norm of rows whose values are all equal, normalised over
// split dims: PyTorch (and the unpartitioned program) centre such a row to
// exactly 0, so the result is the bias whatever eps is. The sharded merge
// of the shards' moments must give the same: equal shard means merge to
// that mean exactly, not to a residue of rounded weights that a tiny eps
// (BERT's 1e-12) turns into -0.23. The outputs are read back and checked
// against that definition; the affine case, whose weight magnifies any
// residue, is also checked against the unpartitioned run.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %npy fill %t/row.npy 1,5 2.50209641456604
// RUN: %npy fill %t/channels.npy 1,4,6 -3.1415927
// RUN: %npy fill %t/w5.npy 5 700.25
// RUN: %npy fill %t/b5.npy 5 0.5
// RUN: shardc %t/layer.mlir -o %t/layer.shardbin
// RUN: shard-run %t/layer.shardbin --input arg0=%t/row.npy --output result0=%t/layer.npy
// RUN: %npy values %t/layer.npy | FileCheck %s --check-prefix=ZEROS5
// RUN: shardc %t/layer.mlir -O3 -o %t/layer3.shardbin
// RUN: shard-run %t/layer3.shardbin --input arg0=%t/row.npy --output result0=%t/layer3.npy
// RUN: %npy values %t/layer3.npy | FileCheck %s --check-prefix=ZEROS5
// RUN: shardc %t/affine.mlir -o %t/affine.shardbin
// RUN: shard-run %t/affine.shardbin --input arg0=%t/row.npy --input arg1=%t/w5.npy --input arg2=%t/b5.npy --check --output result0=%t/affine.npy | FileCheck %s --check-prefix=RAN
// RUN: %npy values %t/affine.npy | FileCheck %s --check-prefix=BIAS
// RUN: shardc %t/group.mlir -o %t/group.shardbin
// RUN: shard-run %t/group.shardbin --input arg0=%t/channels.npy --output result0=%t/group.npy
// RUN: %npy values %t/group.npy | FileCheck %s --check-prefix=ZEROS24

// RAN: check result0: {{.*}}: ok
// ZEROS5: shape (1, 5): 5 values, all 0.0
// ZEROS24: shape (1, 4, 6): 24 values, all 0.0
// BIAS: shape (1, 5): 5 values, all 0.5

//--- layer.mlir
// Five columns over four ranks: shards of 2, 1, 1 and 1.
sc.mesh @m ["x"=4]
func.func @main(%x: tensor<1x5xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}]>}) -> tensor<1x5xf32> {
  %y = sc.layer_norm %x {normalized_shape = array<i64: 5>, eps = 1.0e-12} : (tensor<1x5xf32>) -> tensor<1x5xf32>
  return %y : tensor<1x5xf32>
}

//--- affine.mlir
// Uneven shards [3, 2]; a weight of 700 magnifies what the centring leaves.
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<1x5xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[3, 2]]>},
                %w: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<1x5xf32> {
  %y = sc.layer_norm %x, %w, %b {normalized_shape = array<i64: 5>} : (tensor<1x5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<1x5xf32>
  return %y : tensor<1x5xf32>
}

//--- group.mlir
// One group of four channels split over "c" (merged channel by channel)
// and six positions split unevenly over "s" (merged by shard size).
sc.mesh @m ["c"=2, "s"=2]
func.func @main(%x: tensor<1x4x6xf32> {sc.sharding = #sc.sharding<@m, [{}, {"c"}, {"s"}[5, 1]]>}) -> tensor<1x4x6xf32> {
  %y = sc.group_norm %x {num_groups = 1, eps = 1.0e-12} : (tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  return %y : tensor<1x4x6xf32>
}
