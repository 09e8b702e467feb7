// RUN: shardc-opt %s -split-input-file -canonicalize | FileCheck %s

// Identical constants fold into one (sc.constant is ConstantLike and the
// dialect materializes folded constants as sc.constant).
// CHECK-LABEL: func.func @dedupe_constants
// CHECK-COUNT-1: sc.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NOT: sc.constant
// CHECK: sc.add
func.func @dedupe_constants(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = sc.constant dense<1.0> : tensor<4xf32>
  %b = sc.constant dense<1.0> : tensor<4xf32>
  %s = sc.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = sc.add %x, %s : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

// Ops without uses are pure and disappear; annotated results stay if used.
// CHECK-LABEL: func.func @dead_ops
// CHECK-NOT: sc.exp
// CHECK: return %arg0
func.func @dead_ops(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = sc.exp %x : tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

// A cast to the type it already has (a model's `x.float()` on f32) folds to
// its input, so it is no copy kernel; a cast that changes the type, and an
// identity cast whose result pins a sharding, stay.
// CHECK-LABEL: func.func @identity_casts
// CHECK-NEXT: %[[H:.*]] = sc.cast %arg0 : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: %[[P:.*]] = sc.cast %arg0 {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>} : tensor<4x8xf32> to tensor<4x8xf32>
// CHECK-NEXT: return %arg0, %[[H]], %[[P]]
sc.mesh @mesh ["x"=2]
func.func @identity_casts(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xf32>) {
  %a = sc.cast %x : tensor<4x8xf32> to tensor<4x8xf32>
  %b = sc.cast %a : tensor<4x8xf32> to tensor<4x8xf32>
  %h = sc.cast %b : tensor<4x8xf32> to tensor<4x8xf16>
  %p = sc.cast %x {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>} : tensor<4x8xf32> to tensor<4x8xf32>
  return %b, %h, %p : tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xf32>
}
