// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// sc.interpolate: nearest / nearest-exact / linear (bi-/tri-linear by rank),
// 1/2/3-D, output size from the result type, optional scale_factors (result must
// be floor(in * sf)), align_corners (linear only).

// nearest: 1-D, 2-D with scale_factors, 3-D downsampling, size-only.
// CHECK-LABEL: func.func @interp_nearest
// CHECK: sc.interpolate %{{[^ ]*}}{{( \{mode = "nearest"\})?}} : (tensor<1x2x8xf32>) -> tensor<1x2x16xf32>
// CHECK: sc.interpolate %{{[^ ]*}} {{[{]}}{{(mode = "nearest", )?}}scale_factors = array<f64: 2.000000e+00, 2.000000e+00>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
// CHECK: sc.interpolate %{{[^ ]*}} {{[{]}}{{(mode = "nearest", )?}}scale_factors = array<f64: 5.000000e-01, 5.000000e-01, 5.000000e-01>} : (tensor<1x1x8x8x8xf32>) -> tensor<1x1x4x4x4xf32>
// CHECK: sc.interpolate %{{[^ ]*}}{{( \{mode = "nearest"\})?}} : (tensor<1x3x8x8xf32>) -> tensor<1x3x5x13xf32>
func.func @interp_nearest(%x: tensor<1x2x8xf32>, %y: tensor<1x3x8x8xf32>, %z: tensor<1x1x8x8x8xf32>) {
  %0 = sc.interpolate %x {mode = "nearest"} : (tensor<1x2x8xf32>) -> tensor<1x2x16xf32>
  %1 = sc.interpolate %y {mode = "nearest", scale_factors = array<f64: 2.0, 2.0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  %2 = sc.interpolate %z {mode = "nearest", scale_factors = array<f64: 0.5, 0.5, 0.5>} : (tensor<1x1x8x8x8xf32>) -> tensor<1x1x4x4x4xf32>
  %3 = sc.interpolate %y {mode = "nearest"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x5x13xf32>
  return
}

// -----

// nearest-exact: 2-D with non-integer scales (10*1.5 = 15, 8*0.5 = 4), 1-D, 3-D.
// CHECK-LABEL: func.func @interp_nearest_exact
// CHECK: sc.interpolate %{{[^ ]*}} {mode = "nearest-exact", scale_factors = array<f64: 1.500000e+00, 5.000000e-01>} : (tensor<1x3x10x8xf32>) -> tensor<1x3x15x4xf32>
// CHECK: sc.interpolate %{{[^ ]*}} {mode = "nearest-exact"} : (tensor<2x4x7xf32>) -> tensor<2x4x21xf32>
// CHECK: sc.interpolate %{{[^ ]*}} {mode = "nearest-exact", scale_factors = array<f64: 2.000000e+00, 1.000000e+00, 2.500000e-01>} : (tensor<1x2x4x6x8xf32>) -> tensor<1x2x8x6x2xf32>
func.func @interp_nearest_exact(%x: tensor<1x3x10x8xf32>, %y: tensor<2x4x7xf32>, %z: tensor<1x2x4x6x8xf32>) {
  %0 = sc.interpolate %x {mode = "nearest-exact", scale_factors = array<f64: 1.5, 0.5>} : (tensor<1x3x10x8xf32>) -> tensor<1x3x15x4xf32>
  %1 = sc.interpolate %y {mode = "nearest-exact"} : (tensor<2x4x7xf32>) -> tensor<2x4x21xf32>
  %2 = sc.interpolate %z {mode = "nearest-exact", scale_factors = array<f64: 2.0, 1.0, 0.25>} : (tensor<1x2x4x6x8xf32>) -> tensor<1x2x8x6x2xf32>
  return
}

// -----

// The result is floor(in * sf): 5 * 1.5 = 7.5 -> 7, 7 * 0.5 = 3.5 -> 3.
// CHECK-LABEL: func.func @interp_scale_floor
// CHECK: sc.interpolate %{{[^ ]*}} {{[{]}}{{(mode = "nearest", )?}}scale_factors = array<f64: 1.500000e+00, 5.000000e-01>} : (tensor<1x1x5x7xf32>) -> tensor<1x1x7x3xf32>
// CHECK: sc.interpolate %{{[^ ]*}} {mode = "linear", scale_factors = array<f64: 1.500000e+00, 5.000000e-01>} : (tensor<1x1x5x7xf32>) -> tensor<1x1x7x3xf32>
func.func @interp_scale_floor(%x: tensor<1x1x5x7xf32>) {
  %0 = sc.interpolate %x {mode = "nearest", scale_factors = array<f64: 1.5, 0.5>} : (tensor<1x1x5x7xf32>) -> tensor<1x1x7x3xf32>
  %1 = sc.interpolate %x {mode = "linear", scale_factors = array<f64: 1.5, 0.5>} : (tensor<1x1x5x7xf32>) -> tensor<1x1x7x3xf32>
  return
}

// -----

// linear 1-D (align_corners), bilinear 2-D (align_corners false explicit, may be
// elided when printed), trilinear 3-D with scale_factors.
// CHECK-LABEL: func.func @interp_linear
// CHECK: sc.interpolate %{{[^ ]*}} {align_corners = true, mode = "linear"} : (tensor<1x2x8xf32>) -> tensor<1x2x15xf32>
// CHECK: sc.interpolate %{{[^ ]*}} {{[{]}}{{(align_corners = false, )?}}mode = "linear"} : (tensor<2x3x16x16xf32>) -> tensor<2x3x32x24xf32>
// CHECK: sc.interpolate %{{[^ ]*}} {mode = "linear"} : (tensor<2x3x16x16xf32>) -> tensor<2x3x8x8xf32>
// CHECK: sc.interpolate %{{[^ ]*}} {mode = "linear", scale_factors = array<f64: 2.000000e+00, 2.000000e+00, 2.000000e+00>} : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x8x8x8xf32>
func.func @interp_linear(%x: tensor<1x2x8xf32>, %y: tensor<2x3x16x16xf32>, %z: tensor<1x1x4x4x4xf32>) {
  %0 = sc.interpolate %x {align_corners = true, mode = "linear"} : (tensor<1x2x8xf32>) -> tensor<1x2x15xf32>
  %1 = sc.interpolate %y {align_corners = false, mode = "linear"} : (tensor<2x3x16x16xf32>) -> tensor<2x3x32x24xf32>
  %2 = sc.interpolate %y {mode = "linear"} : (tensor<2x3x16x16xf32>) -> tensor<2x3x8x8xf32>
  %3 = sc.interpolate %z {mode = "linear", scale_factors = array<f64: 2.0, 2.0, 2.0>} : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x8x8x8xf32>
  return
}

// -----

// align_corners = true together with scale_factors, 2-D and 3-D.
// CHECK-LABEL: func.func @interp_linear_align_corners
// CHECK: sc.interpolate %{{[^ ]*}} {align_corners = true, mode = "linear", scale_factors = array<f64: 2.000000e+00, 3.000000e+00>} : (tensor<1x4x6x6xf32>) -> tensor<1x4x12x18xf32>
// CHECK: sc.interpolate %{{[^ ]*}} {align_corners = true, mode = "linear", scale_factors = array<f64: 2.000000e+00, 2.000000e+00, 2.000000e+00>} : (tensor<1x4x3x5x5xf32>) -> tensor<1x4x6x10x10xf32>
func.func @interp_linear_align_corners(%x: tensor<1x4x6x6xf32>, %y: tensor<1x4x3x5x5xf32>) {
  %0 = sc.interpolate %x {align_corners = true, mode = "linear", scale_factors = array<f64: 2.0, 3.0>} : (tensor<1x4x6x6xf32>) -> tensor<1x4x12x18xf32>
  %1 = sc.interpolate %y {align_corners = true, mode = "linear", scale_factors = array<f64: 2.0, 2.0, 2.0>} : (tensor<1x4x3x5x5xf32>) -> tensor<1x4x6x10x10xf32>
  return
}

// -----

// interpolate in f16 and bf16.
// CHECK-LABEL: func.func @interp_half
// CHECK: sc.interpolate %{{[^ ]*}} {{[{]}}{{(mode = "nearest", )?}}scale_factors = array<f64: 2.000000e+00, 2.000000e+00>} : (tensor<1x8x16x16xf16>) -> tensor<1x8x32x32xf16>
// CHECK: sc.interpolate %{{[^ ]*}} {mode = "linear"} : (tensor<1x8x16x16xbf16>) -> tensor<1x8x20x20xbf16>
func.func @interp_half(%x: tensor<1x8x16x16xf16>, %y: tensor<1x8x16x16xbf16>) {
  %0 = sc.interpolate %x {mode = "nearest", scale_factors = array<f64: 2.0, 2.0>} : (tensor<1x8x16x16xf16>) -> tensor<1x8x32x32xf16>
  %1 = sc.interpolate %y {mode = "linear"} : (tensor<1x8x16x16xbf16>) -> tensor<1x8x20x20xbf16>
  return
}
