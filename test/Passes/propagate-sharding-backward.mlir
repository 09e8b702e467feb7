// RUN: shardc-opt %s -split-input-file -sc-propagate-sharding | FileCheck %s
// RUN: shardc-opt %s -split-input-file -sc-propagate-sharding=strategy=forward | FileCheck %s --check-prefix=FWD
// RUN: not shardc-opt %s -split-input-file -sc-propagate-sharding=strategy=sideways 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: sc-propagate-sharding: unknown strategy 'sideways' (expected 'bidirectional' or 'forward')

// Backward propagation: values still replicated after the forward walk take
// the split their consumers, constraints or declared results need. Through
// a stride-2 conv the input split is the one whose windows' anchors give
// the result's extents (45/45/35 <- 90/90/70), so the forward derivation of
// the next round reproduces it.
sc.mesh @mesh ["x"=3]
// CHECK-LABEL: func.func @from_result
// CHECK-SAME: %arg0: tensor<1x2x250xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[90, 90, 70]]>}
// CHECK-SAME: %arg1: tensor<4x2x3xf32>)
// FWD-LABEL: func.func @from_result
// FWD-SAME: %arg0: tensor<1x2x250xf32>,
// FWD: sc.relu %arg0 {sc.sharding = #sc.sharding<@mesh, [{}, {}, {}]>}
func.func @from_result(%x: tensor<1x2x250xf32>, %w: tensor<4x2x3xf32>)
    -> (tensor<1x4x125xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[45, 45, 35]]>}) {
  // CHECK: sc.relu %arg0 {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[90, 90, 70]]>}
  %r = sc.relu %x : tensor<1x2x250xf32>
  // CHECK: sc.conv {{.*}}sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[45, 45, 35]]>
  %y = sc.conv %r, %w {padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<1x2x250xf32>, tensor<4x2x3xf32>) -> tensor<1x4x125xf32>
  // CHECK: sc.relu {{.*}}sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[45, 45, 35]]>
  %z = sc.relu %y : tensor<1x4x125xf32>
  return %z : tensor<1x4x125xf32>
}

// -----

// A constraint in the middle shards what comes before it too; a contracted
// dim (the matmul's k) stays whole, the operand's row dim takes the split.
sc.mesh @mesh ["x"=2]
// CHECK-LABEL: func.func @from_constraint
// CHECK-SAME: %arg0: tensor<6x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}
// CHECK-SAME: %arg1: tensor<4x5xf32>)
func.func @from_constraint(%a: tensor<6x4xf32>, %b: tensor<4x5xf32>) -> tensor<6x5xf32> {
  // CHECK: sc.matmul {{.*}}sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>
  %m = sc.matmul %a, %b : (tensor<6x4xf32>, tensor<4x5xf32>) -> tensor<6x5xf32>
  %c = sc.sharding_constraint %m : tensor<6x5xf32> to #sc.sharding<@mesh, [{"x"}, {}]>
  return %c : tensor<6x5xf32>
}

// -----

// Forward wins: a value split by the forward walk keeps its split whatever
// its consumers would like (the returned value is resharded later), and an
// argument the user annotated, even as replicated, is never changed.
sc.mesh @mesh ["x"=2]
// CHECK-LABEL: func.func @forward_wins
// CHECK-SAME: %arg1: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}]>}
func.func @forward_wins(%a: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>},
                        %b: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}]>})
    -> (tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>}) {
  // CHECK: sc.add %arg0, %arg1 {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}
  %y = sc.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Nearest x2 upsampling to extents 3/5: output 3 reads input 1, as output 2
// does, so no input split yields that output split; the returned value
// takes the declared split and its input stays replicated rather than
// misaligned (each rank computes its outputs from the whole input).
sc.mesh @mesh ["x"=2]
// CHECK-LABEL: func.func @no_inverse
// CHECK-SAME: %arg0: tensor<1x1x4xf32>)
func.func @no_inverse(%x: tensor<1x1x4xf32>)
    -> (tensor<1x1x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[3, 5]]>}) {
  // CHECK: sc.interpolate {{.*}}sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[3, 5]]>
  %y = sc.interpolate %x {mode = "nearest", scale_factors = array<f64: 2.0>} : (tensor<1x1x4xf32>) -> tensor<1x1x8xf32>
  return %y : tensor<1x1x8xf32>
}

// -----

// The same upsampling to extents 4/4 inverts to 2/2.
sc.mesh @mesh ["x"=2]
// CHECK-LABEL: func.func @inverse
// CHECK-SAME: %arg0: tensor<1x1x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>}
func.func @inverse(%x: tensor<1x1x4xf32>)
    -> (tensor<1x1x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>}) {
  %y = sc.interpolate %x {mode = "nearest", scale_factors = array<f64: 2.0>} : (tensor<1x1x4xf32>) -> tensor<1x1x8xf32>
  return %y : tensor<1x1x8xf32>
}
