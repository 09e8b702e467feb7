// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// sc.logsumexp, sc.vector_norm, sc.normalize, sc.glu, sc.rms_norm, sc.prod
// and the adaptive pools:
// shapes and defaults as PyTorch's. An infinite ord is written as its f64
// bit pattern.

// CHECK-LABEL: func.func @forms
// CHECK: sc.logsumexp %{{.*}} {dims = array<i64: -1>} : (tensor<2x8x16xf32>) -> tensor<2x8xf32>
// CHECK: sc.logsumexp %{{.*}} : (tensor<2x8x16xf32>) -> tensor<f32>
// CHECK: sc.vector_norm %{{.*}} {dims = array<i64: 1>, keepdim = true} : (tensor<2x8x16xf32>) -> tensor<2x1x16xf32>
// CHECK: sc.vector_norm %{{.*}} {ord = 0x7FF0000000000000 : f64} : (tensor<2x8x16xf32>) -> tensor<f32>
// CHECK: sc.normalize %{{.*}} : tensor<2x8x16xf32>
// CHECK: sc.normalize %{{.*}} {dim = -1 : i64, eps = 9.9999999999999995E-7 : f64, p = 1.000000e+00 : f64} : tensor<2x8x16xf32>
// CHECK: sc.glu %{{.*}} : (tensor<2x8x16xf32>) -> tensor<2x8x8xf32>
// CHECK: sc.glu %{{.*}} {dim = 1 : i64} : (tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
// CHECK: sc.adaptive_avg_pool %{{.*}} {output_size = array<i64: 1, 1>} : (tensor<2x8x7x9xf32>) -> tensor<2x8x1x1xf32>
// CHECK: sc.adaptive_max_pool %{{.*}} {output_size = array<i64: 3, 4>} : (tensor<2x8x7x9xf32>) -> tensor<2x8x3x4xf32>
// CHECK: sc.adaptive_avg_pool %{{.*}} {output_size = array<i64: 10>} : (tensor<2x8x7xf32>) -> tensor<2x8x10xf32>
// CHECK: sc.rms_norm %{{.*}}, %{{.*}} {normalized_shape = array<i64: 16>} : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
// CHECK: sc.rms_norm %{{.*}} {eps = 0.000000e+00 : f64, normalized_shape = array<i64: 8, 16>} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
// CHECK: sc.prod %{{.*}} {dims = array<i64: -1>} : (tensor<2x8x16xf32>) -> tensor<2x8xf32>
// CHECK: sc.prod %{{.*}} : (tensor<2x8x16xf32>) -> tensor<f32>
func.func @forms(%x: tensor<2x8x16xf32>, %i: tensor<2x8x7x9xf32>, %l: tensor<2x8x7xf32>, %w: tensor<16xf32>) {
  %0 = sc.logsumexp %x {dims = array<i64: -1>} : (tensor<2x8x16xf32>) -> tensor<2x8xf32>
  %1 = sc.logsumexp %x : (tensor<2x8x16xf32>) -> tensor<f32>
  %2 = sc.vector_norm %x {dims = array<i64: 1>, keepdim = true} : (tensor<2x8x16xf32>) -> tensor<2x1x16xf32>
  %3 = sc.vector_norm %x {ord = 0x7FF0000000000000 : f64} : (tensor<2x8x16xf32>) -> tensor<f32>
  %4 = sc.normalize %x : tensor<2x8x16xf32>
  %5 = sc.normalize %x {p = 1.0, dim = -1, eps = 1.0e-6} : tensor<2x8x16xf32>
  %6 = sc.glu %x : (tensor<2x8x16xf32>) -> tensor<2x8x8xf32>
  %7 = sc.glu %x {dim = 1} : (tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  %8 = sc.adaptive_avg_pool %i {output_size = array<i64: 1, 1>} : (tensor<2x8x7x9xf32>) -> tensor<2x8x1x1xf32>
  %9 = sc.adaptive_max_pool %i {output_size = array<i64: 3, 4>} : (tensor<2x8x7x9xf32>) -> tensor<2x8x3x4xf32>
  %10 = sc.adaptive_avg_pool %l {output_size = array<i64: 10>} : (tensor<2x8x7xf32>) -> tensor<2x8x10xf32>
  %11 = sc.rms_norm %x, %w {normalized_shape = array<i64: 16>} : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
  %12 = sc.rms_norm %x {normalized_shape = array<i64: 8, 16>, eps = 0.0} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %13 = sc.prod %x {dims = array<i64: -1>} : (tensor<2x8x16xf32>) -> tensor<2x8xf32>
  %14 = sc.prod %x : (tensor<2x8x16xf32>) -> tensor<f32>
  return
}
