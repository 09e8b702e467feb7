// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// sc.cumsum, sc.cumprod, sc.cummax, sc.cummin and sc.logcumsumexp keep their
// input's type; dims count from the end when negative, and a scalar takes 0
// or -1, as torch wraps a 0-d tensor's dims.

// CHECK-LABEL: func.func @scans
// CHECK: sc.cumsum %{{.*}} {dim = 1 : i64} : (tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
// CHECK: sc.cumprod %{{.*}} {dim = -1 : i64} : (tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
// CHECK: sc.cummax %{{.*}} {dim = 0 : i64} : (tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
// CHECK: sc.cummin %{{.*}} {dim = -3 : i64} : (tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
// CHECK: sc.logcumsumexp %{{.*}} {dim = 2 : i64} : (tensor<2x8x6xf16>) -> tensor<2x8x6xf16>
// CHECK: sc.cumsum %{{.*}} {dim = 0 : i64} : (tensor<f32>) -> tensor<f32>
// CHECK: sc.cumsum %{{.*}} {dim = -1 : i64} : (tensor<f32>) -> tensor<f32>
// CHECK: sc.cumsum %{{.*}} {dim = 0 : i64} : (tensor<0xf32>) -> tensor<0xf32>
func.func @scans(%x: tensor<2x8x6xf32>, %h: tensor<2x8x6xf16>, %s: tensor<f32>, %e: tensor<0xf32>) {
  %0 = sc.cumsum %x {dim = 1 : i64} : (tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  %1 = sc.cumprod %x {dim = -1 : i64} : (tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  %2 = sc.cummax %x {dim = 0 : i64} : (tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  %3 = sc.cummin %x {dim = -3 : i64} : (tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  %4 = sc.logcumsumexp %h {dim = 2 : i64} : (tensor<2x8x6xf16>) -> tensor<2x8x6xf16>
  %5 = sc.cumsum %s {dim = 0 : i64} : (tensor<f32>) -> tensor<f32>
  %6 = sc.cumsum %s {dim = -1 : i64} : (tensor<f32>) -> tensor<f32>
  %7 = sc.cumsum %e {dim = 0 : i64} : (tensor<0xf32>) -> tensor<0xf32>
  return
}
