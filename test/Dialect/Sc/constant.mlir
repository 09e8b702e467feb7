// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// sc.constant: splat and dense ElementsAttr, every float element type, rank 0.

// CHECK-LABEL: func.func @splat_f32
// CHECK: sc.constant dense<1.000000e+00> : tensor<2x3xf32>
func.func @splat_f32() -> tensor<2x3xf32> {
  %0 = sc.constant dense<1.0> : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @dense_2d
// CHECK: sc.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
func.func @dense_2d() -> tensor<2x3xf32> {
  %0 = sc.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @dense_1d
// CHECK: sc.constant dense<[-1.500000e+00, 0.000000e+00, 2.500000e-01, 4.000000e+00]> : tensor<4xf32>
func.func @dense_1d() -> tensor<4xf32> {
  %0 = sc.constant dense<[-1.5, 0.0, 0.25, 4.0]> : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @rank0
// CHECK: sc.constant dense<2.500000e+00> : tensor<f32>
func.func @rank0() -> tensor<f32> {
  %0 = sc.constant dense<2.5> : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @half_types
// CHECK: sc.constant dense<1.500000e+00> : tensor<4xf16>
// CHECK: sc.constant dense<[1.000000e+00, 2.500000e-01]> : tensor<2xbf16>
// CHECK: sc.constant dense<-2.000000e+00> : tensor<2x2xf64>
func.func @half_types() -> (tensor<4xf16>, tensor<2xbf16>, tensor<2x2xf64>) {
  %0 = sc.constant dense<1.5> : tensor<4xf16>
  %1 = sc.constant dense<[1.0, 0.25]> : tensor<2xbf16>
  %2 = sc.constant dense<-2.0> : tensor<2x2xf64>
  return %0, %1, %2 : tensor<4xf16>, tensor<2xbf16>, tensor<2x2xf64>
}

// -----

// A constant used as an operand.
// CHECK-LABEL: func.func @used
// CHECK: %[[C:[^ ]+]] = sc.constant dense<5.000000e-01> : tensor<8xf32>
// CHECK: sc.mul %{{.*}}, %[[C]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
func.func @used(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = sc.constant dense<0.5> : tensor<8xf32>
  %1 = sc.mul %arg0, %0 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
