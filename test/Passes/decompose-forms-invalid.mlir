// RUN: shardc-opt %s -split-input-file -sc-propagate-sharding -verify-diagnostics
// RUN: not shardc-opt %s -split-input-file -sc-partition="unpartitioned=true" 2>&1 | FileCheck %s --check-prefix=PARTITION
// RUN: shardc-opt %s -split-input-file -sc-decompose-forms -sc-propagate-sharding | FileCheck %s --check-prefix=DECOMPOSED
// RUN: shardc-opt %s -split-input-file -sc-model-summary -o /dev/null | FileCheck %s --check-prefix=SUMMARY
// SUMMARY: halo pad at {{.*}}decompose-forms-invalid.mlir{{.*}}: after sc-decompose-forms (circular crops)

// Sharding propagation and the partitioner take core forms only, and say
// which pass makes them; after sc-decompose-forms both run.
// PARTITION: decompose-forms-invalid.mlir:[[# @LINE + 14]]:8: error: 'sc.linear' op with a 1-D weight or a broadcast bias is not taken by the partitioner; run -sc-decompose-forms first
// PARTITION: decompose-forms-invalid.mlir:[[# @LINE + 22]]:8: error: 'sc.pad' op in circular mode with crops is not taken by the partitioner
// PARTITION: decompose-forms-invalid.mlir:[[# @LINE + 30]]:8: error: 'sc.leaky_relu' op is not taken by the partitioner
// PARTITION: decompose-forms-invalid.mlir:[[# @LINE + 38]]:8: error: 'sc.roll' op is not taken by the partitioner
// DECOMPOSED-LABEL: func.func @linear_vector
// DECOMPOSED: sc.add
// DECOMPOSED-LABEL: func.func @pad_circular_crop
// DECOMPOSED: mode = "circular"
// DECOMPOSED-LABEL: func.func @roll
// DECOMPOSED: sc.pad %{{.*}} {mode = "circular", pad = array<i64: 1, 0>, sc.sharding = #sc.sharding<@m, [{"x"}]>}

sc.mesh @m ["x"=2]
func.func @linear_vector(%x: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %v: tensor<8xf32>, %s: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'sc.linear' op with a 1-D weight or a broadcast bias is not taken by sharding propagation; run -sc-decompose-forms first (shardc runs it)}}
  %y = sc.linear %x, %v, %s : (tensor<4x8xf32>, tensor<8xf32>, tensor<f32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

sc.mesh @m ["x"=2]
func.func @pad_circular_crop(%x: tensor<1x4x6xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}]>}) -> tensor<1x4x7xf32> {
  // expected-error @+1 {{'sc.pad' op in circular mode with crops is not taken by sharding propagation; run -sc-decompose-forms first (shardc runs it)}}
  %y = sc.pad %x {mode = "circular", pad = array<i64: -1, 2>} : (tensor<1x4x6xf32>) -> tensor<1x4x7xf32>
  return %y : tensor<1x4x7xf32>
}

// -----

sc.mesh @m ["x"=2]
func.func @leaky(%x: tensor<4xf32> {sc.sharding = #sc.sharding<@m, [{"x"}]>}) -> tensor<4xf32> {
  // expected-error @+1 {{'sc.leaky_relu' op is not taken by sharding propagation; run -sc-decompose-forms first (shardc runs it)}}
  %y = sc.leaky_relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

sc.mesh @m ["x"=2]
func.func @roll(%x: tensor<4xf32> {sc.sharding = #sc.sharding<@m, [{"x"}]>}) -> tensor<4xf32> {
  // expected-error @+1 {{'sc.roll' op is not taken by sharding propagation; run -sc-decompose-forms first (shardc runs it)}}
  %y = sc.roll %x {shifts = array<i64: 1>} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

sc.mesh @m ["x"=2]
func.func @rfft(%x: tensor<2x8xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}]>}) -> tensor<2x5x2xf32> {
  // expected-error @+1 {{'sc.rfft' op is not taken by sharding propagation; run -sc-decompose-forms first (shardc runs it)}}
  %y = sc.rfft %x : (tensor<2x8xf32>) -> tensor<2x5x2xf32>
  return %y : tensor<2x5x2xf32>
}

// -----

sc.mesh @m ["x"=2]
func.func @einsum(%x: tensor<2x8xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}]>}, %y: tensor<8x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'sc.einsum' op is not taken by sharding propagation; run -sc-decompose-forms first (shardc runs it)}}
  %z = sc.einsum %x, %y {equation = "ij,jk->ik"} : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}

// -----

sc.mesh @m ["x"=2]
func.func @softmax_scalar(%v: tensor<4xf32> {sc.sharding = #sc.sharding<@m, [{"x"}]>}) -> tensor<f32> {
  %x = sc.amax %v : (tensor<4xf32>) -> tensor<f32>
  // expected-error @+1 {{'sc.softmax' op of a rank-0 tensor is not taken by sharding propagation; run -sc-decompose-forms first (shardc runs it)}}
  %y = sc.softmax %x {dim = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}
