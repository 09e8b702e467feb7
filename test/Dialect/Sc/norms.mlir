// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// sc.layer_norm / sc.group_norm / sc.batch_norm, with and without the affine
// weight and bias, default and explicit eps.

// layer_norm: weight + bias, weight only, no affine, two normalized dims,
// explicit eps, eps = 1.0e-05 explicit (may be elided when printed).
// CHECK-LABEL: func.func @layer_norm
// CHECK: sc.layer_norm %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {normalized_shape = array<i64: 16>} : (tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
// CHECK: sc.layer_norm %{{[^ ]*}}, %{{[^ ]*}} {normalized_shape = array<i64: 16>} : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
// CHECK: sc.layer_norm %{{[^ ]*}} {normalized_shape = array<i64: 16>} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
// CHECK: sc.layer_norm %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {normalized_shape = array<i64: 8, 16>} : (tensor<2x8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<2x8x16xf32>
// CHECK: sc.layer_norm %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {eps = 1.000000e-03 : f64, normalized_shape = array<i64: 16>} : (tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
// CHECK: sc.layer_norm %{{[^ ]*}} {{[{]}}{{(eps = 1\.000000e\-05 : f64, )?}}normalized_shape = array<i64: 16>} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
// CHECK: sc.layer_norm %{{[^ ]*}} {normalized_shape = array<i64: 2, 8, 16>} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
func.func @layer_norm(%x: tensor<2x8x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>, %w2: tensor<8x16xf32>, %b2: tensor<8x16xf32>) {
  %0 = sc.layer_norm %x, %w, %b {normalized_shape = array<i64: 16>} : (tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
  %1 = sc.layer_norm %x, %w {normalized_shape = array<i64: 16>} : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
  %2 = sc.layer_norm %x {normalized_shape = array<i64: 16>} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %3 = sc.layer_norm %x, %w2, %b2 {normalized_shape = array<i64: 8, 16>} : (tensor<2x8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<2x8x16xf32>
  %4 = sc.layer_norm %x, %w, %b {eps = 1.0e-03, normalized_shape = array<i64: 16>} : (tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
  %5 = sc.layer_norm %x {eps = 1.0e-05, normalized_shape = array<i64: 16>} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %6 = sc.layer_norm %x {normalized_shape = array<i64: 2, 8, 16>} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return
}

// -----

// layer_norm in bf16 on a 4-D channels-last activation.
// CHECK-LABEL: func.func @layer_norm_half
// CHECK: sc.layer_norm %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {eps = 1.000000e-04 : f64, normalized_shape = array<i64: 64>} : (tensor<2x32x32x64xbf16>, tensor<64xbf16>, tensor<64xbf16>) -> tensor<2x32x32x64xbf16>
func.func @layer_norm_half(%x: tensor<2x32x32x64xbf16>, %w: tensor<64xbf16>, %b: tensor<64xbf16>) {
  %0 = sc.layer_norm %x, %w, %b {eps = 1.0e-04, normalized_shape = array<i64: 64>} : (tensor<2x32x32x64xbf16>, tensor<64xbf16>, tensor<64xbf16>) -> tensor<2x32x32x64xbf16>
  return
}

// -----

// group_norm on NCHW / NCL / NCDHW, with and without affine, explicit eps.
// CHECK-LABEL: func.func @group_norm
// CHECK: sc.group_norm %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {num_groups = 4 : i64} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
// CHECK: sc.group_norm %{{[^ ]*}} {num_groups = 2 : i64} : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
// CHECK: sc.group_norm %{{[^ ]*}}, %{{[^ ]*}} {eps = 1.000000e-03 : f64, num_groups = 8 : i64} : (tensor<2x8x4x4xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
// CHECK: sc.group_norm %{{[^ ]*}} {num_groups = 3 : i64} : (tensor<2x6x10xf32>) -> tensor<2x6x10xf32>
// CHECK: sc.group_norm %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {num_groups = 32 : i64} : (tensor<1x32x4x8x8xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x32x4x8x8xf32>
// CHECK: sc.group_norm %{{[^ ]*}} {num_groups = 1 : i64} : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
func.func @group_norm(%x: tensor<2x8x4x4xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>, %y: tensor<2x6x10xf32>, %z: tensor<1x32x4x8x8xf32>, %w3: tensor<32xf32>, %b3: tensor<32xf32>) {
  %0 = sc.group_norm %x, %w, %b {num_groups = 4} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  %1 = sc.group_norm %x {num_groups = 2} : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %2 = sc.group_norm %x, %w {eps = 1.0e-03, num_groups = 8} : (tensor<2x8x4x4xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  %3 = sc.group_norm %y {num_groups = 3} : (tensor<2x6x10xf32>) -> tensor<2x6x10xf32>
  %4 = sc.group_norm %z, %w3, %b3 {num_groups = 32} : (tensor<1x32x4x8x8xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x32x4x8x8xf32>
  %5 = sc.group_norm %x {num_groups = 1} : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  return
}

// -----

// batch_norm (inference): with and without affine, (N, C), NCHW and NCDHW
// inputs, explicit eps.
// CHECK-LABEL: func.func @batch_norm
// CHECK: sc.batch_norm %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
// CHECK: sc.batch_norm %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
// CHECK: sc.batch_norm %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {eps = 1.000000e-03 : f64} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
// CHECK: sc.batch_norm %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK: sc.batch_norm %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {eps = 1.000000e-04 : f64} : (tensor<1x8x2x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x2x4x4xf32>
func.func @batch_norm(%x: tensor<2x8x4x4xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>, %y: tensor<4x8xf32>, %z: tensor<1x8x2x4x4xf32>) {
  %0 = sc.batch_norm %x, %m, %v, %w, %b : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  %1 = sc.batch_norm %x, %m, %v : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  %2 = sc.batch_norm %x, %m, %v, %w {eps = 1.0e-03} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  %3 = sc.batch_norm %y, %m, %v, %w, %b : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %4 = sc.batch_norm %z, %m, %v {eps = 1.0e-04} : (tensor<1x8x2x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x2x4x4xf32>
  return
}

// -----

// group_norm and batch_norm in f16.
// CHECK-LABEL: func.func @norm_half
// CHECK: sc.group_norm %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {num_groups = 4 : i64} : (tensor<1x16x8x8xf16>, tensor<16xf16>, tensor<16xf16>) -> tensor<1x16x8x8xf16>
// CHECK: sc.batch_norm %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<1x16x8x8xf16>, tensor<16xf16>, tensor<16xf16>) -> tensor<1x16x8x8xf16>
func.func @norm_half(%x: tensor<1x16x8x8xf16>, %w: tensor<16xf16>, %b: tensor<16xf16>, %m: tensor<16xf16>, %v: tensor<16xf16>) {
  %0 = sc.group_norm %x, %w, %b {num_groups = 4} : (tensor<1x16x8x8xf16>, tensor<16xf16>, tensor<16xf16>) -> tensor<1x16x8x8xf16>
  %1 = sc.batch_norm %x, %m, %v : (tensor<1x16x8x8xf16>, tensor<16xf16>, tensor<16xf16>) -> tensor<1x16x8x8xf16>
  return
}

// -----

// instance_norm: 1-D, 2-D and 3-D spatial, with and without affine, eps.
// CHECK-LABEL: func.func @instance_norm
// CHECK: sc.instance_norm %{{[^ ]*}} : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
// CHECK: sc.instance_norm %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {eps = 1.000000e-03 : f64} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// CHECK: sc.instance_norm %{{[^ ]*}}, %{{[^ ]*}} : (tensor<1x4x2x3x5xf32>, tensor<4xf32>) -> tensor<1x4x2x3x5xf32>
func.func @instance_norm(%x: tensor<2x4x16xf32>, %y: tensor<1x4x8x8xf32>, %z: tensor<1x4x2x3x5xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) {
  %0 = sc.instance_norm %x : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %1 = sc.instance_norm %y, %w, %b {eps = 1.0e-03} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %2 = sc.instance_norm %z, %w : (tensor<1x4x2x3x5xf32>, tensor<4xf32>) -> tensor<1x4x2x3x5xf32>
  return
}
