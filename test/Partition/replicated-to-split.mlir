// Results wanted split whose producer cuts, joins or reshapes the split dim
// (a needs-replication factor) from a replicated operand: backward
// propagation leaves the op computing the whole dim on every rank and a
// reshard after it keeps each rank's block. The op must not compute "its
// block" from local offset 0 (every rank returned the first block). Also a
// keepdim mean over a split dim, which kept its reduced dim only unsplit,
// and pinned op results (sc.sharding on the op), one the op cannot produce.
// Each case runs partitioned against the unpartitioned model.
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc %t/slice.mlir --emit=sharded | FileCheck %s --check-prefix=SLICE
// RUN: shardc %t/slice.mlir -o %t/slice.shardbin
// RUN: shard-run %t/slice.shardbin --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/reshape.mlir -o %t/reshape.shardbin
// RUN: shard-run %t/reshape.shardbin --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/concat.mlir -o %t/concat.shardbin
// RUN: shard-run %t/concat.shardbin --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/constraint.mlir -o %t/constraint.shardbin
// RUN: shard-run %t/constraint.shardbin --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/mean.mlir -o %t/mean.shardbin
// RUN: shard-run %t/mean.shardbin --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/mean-returned.mlir -o %t/mean-returned.shardbin
// RUN: shard-run %t/mean-returned.shardbin --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/pinned.mlir --emit=sharded | FileCheck %s --check-prefix=PINNED
// RUN: shardc %t/pinned.mlir -o %t/pinned.shardbin
// RUN: shard-run %t/pinned.shardbin --random-inputs --check | FileCheck %s --check-prefix=OK

// SLICE: sc.slice %arg0 {{.*}}sc.sharding = #sc.sharding<@m, [{}]>
// SLICE-NEXT: sc.reshard {{.*}} to #sc.sharding<@m, [{"x"}]>
// PINNED: sc.reshard %arg0 {{.*}} to #sc.sharding<@m, [{}, {}]>
// PINNED-NEXT: sc.exp {{.*}}sc.sharding = #sc.sharding<@m, [{}, {}]>
// PINNED-NEXT: sc.slice {{.*}}sc.sharding = #sc.sharding<@m, [{}, {}]>
// PINNED-NEXT: sc.reshard {{.*}} to #sc.sharding<@m, [{"x"}[1, 2], {}]>
// OK: check result0: {{.*}}: ok

//--- slice.mlir
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<12xf32>) -> (tensor<5xf32> {sc.sharding = #sc.sharding<@m, [{"x"}]>}) {
  %y = sc.slice %x {start = array<i64: 1>, end = array<i64: 11>, step = array<i64: 2>} : (tensor<12xf32>) -> tensor<5xf32>
  return %y : tensor<5xf32>
}

//--- reshape.mlir
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<4x3xf32>) -> (tensor<2x6xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}) {
  %y = sc.reshape %x : (tensor<4x3xf32>) -> tensor<2x6xf32>
  return %y : tensor<2x6xf32>
}

//--- concat.mlir
sc.mesh @m ["x"=3]
func.func @main(%a: tensor<3x2xf32>, %b: tensor<2x2xf32>) -> (tensor<5x2xf32> {sc.sharding = #sc.sharding<@m, [{"x"}[2, 1, 2], {}]>}) {
  %y = sc.concat %a, %b {dim = 0 : i64} : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<5x2xf32>
  return %y : tensor<5x2xf32>
}

//--- constraint.mlir
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %y = sc.slice %x {start = array<i64: 2, 0>, end = array<i64: 6, 4>} : (tensor<8x4xf32>) -> tensor<4x4xf32>
  %c = sc.sharding_constraint %y : tensor<4x4xf32> to #sc.sharding<@m, [{"x"}, {}]>
  %z = sc.exp %c : tensor<4x4xf32>
  return %z : tensor<4x4xf32>
}

//--- mean.mlir
sc.mesh @m ["x"=4]
func.func @main(%x: tensor<2x8xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[3, 1, 0, 4]]>}) -> tensor<2x8xf32> {
  %y = sc.mean %x {dims = array<i64: 1>, keepdim = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %z = sc.sub %x, %y : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  return %z : tensor<2x8xf32>
}

//--- mean-returned.mlir
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<3x4x2xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}, {}]>}) -> tensor<3x1x2xf32> {
  %y = sc.mean %x {dims = array<i64: 1>, keepdim = true} : (tensor<3x4x2xf32>) -> tensor<3x1x2xf32>
  return %y : tensor<3x1x2xf32>
}

//--- pinned.mlir
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<8x4xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}) -> tensor<3x4xf32> {
  %e = sc.exp %x {sc.sharding = #sc.sharding<@m, [{}, {}]>} : tensor<8x4xf32>
  %s = sc.slice %e {start = array<i64: 1, 0>, end = array<i64: 7, 4>, step = array<i64: 2, 1>, sc.sharding = #sc.sharding<@m, [{"x"}[1, 2], {}]>} : (tensor<8x4xf32>) -> tensor<3x4xf32>
  %n = sc.neg %s : tensor<3x4xf32>
  return %n : tensor<3x4xf32>
}
