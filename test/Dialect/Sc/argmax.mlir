// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// sc.argmax and sc.argmin: torch.argmax/argmin's shapes (the dim dropped or
// kept as 1; without a dim, an index into the flattened input: a scalar, or
// all ones with keepdim), int64 results.

// CHECK-LABEL: func.func @shapes
// CHECK: sc.argmax %{{.*}} {dim = 1 : i64} : (tensor<2x5x3xf32>) -> tensor<2x3xi64>
// CHECK: sc.argmin %{{.*}} {dim = -1 : i64, keepdim = true} : (tensor<2x5x3xf32>) -> tensor<2x5x1xi64>
// CHECK: sc.argmax %{{.*}} : (tensor<2x5x3xf32>) -> tensor<i64>
// CHECK: sc.argmin %{{.*}} {keepdim = true} : (tensor<2x5x3xf32>) -> tensor<1x1x1xi64>
// CHECK: sc.argmax %{{.*}} {dim = 0 : i64} : (tensor<bf16>) -> tensor<i64>
func.func @shapes(%x: tensor<2x5x3xf32>, %s: tensor<bf16>) {
  %0 = sc.argmax %x {dim = 1 : i64} : (tensor<2x5x3xf32>) -> tensor<2x3xi64>
  %1 = sc.argmin %x {dim = -1 : i64, keepdim = true} : (tensor<2x5x3xf32>) -> tensor<2x5x1xi64>
  %2 = sc.argmax %x : (tensor<2x5x3xf32>) -> tensor<i64>
  %3 = sc.argmin %x {keepdim = true} : (tensor<2x5x3xf32>) -> tensor<1x1x1xi64>
  %4 = sc.argmax %s {dim = 0 : i64} : (tensor<bf16>) -> tensor<i64>
  return
}

// -----

// sc.max / sc.min along a dim: torch.max(x, dim)'s (values, indices), the
// values in x's type and the indices int64.
// CHECK-LABEL: func.func @max_min
// CHECK: sc.max %{{.*}} {dim = 1 : i64} : (tensor<2x5x3xbf16>) -> (tensor<2x3xbf16>, tensor<2x3xi64>)
// CHECK: sc.min %{{.*}} {dim = -1 : i64, keepdim = true} : (tensor<2x5x3xbf16>) -> (tensor<2x5x1xbf16>, tensor<2x5x1xi64>)
func.func @max_min(%x: tensor<2x5x3xbf16>) {
  %v, %i = sc.max %x {dim = 1 : i64} : (tensor<2x5x3xbf16>) -> (tensor<2x3xbf16>, tensor<2x3xi64>)
  %w, %j = sc.min %x {dim = -1 : i64, keepdim = true} : (tensor<2x5x3xbf16>) -> (tensor<2x5x1xbf16>, tensor<2x5x1xi64>)
  return
}
