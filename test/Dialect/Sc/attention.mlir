// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// sc.scaled_dot_product_attention (with/without additive mask, is_causal,
// scale, batch broadcasting, Ev != E) and sc.neighborhood_attention (1/2/3-D,
// heads-last layout, dilation, scale).

// sdpa: plain (L != S, Ev != E), scale, is_causal, is_causal + scale,
// is_causal = false explicit (may be elided when printed).
// CHECK-LABEL: func.func @sdpa
// CHECK: sc.scaled_dot_product_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x8x128x64xf32>, tensor<2x8x256x64xf32>, tensor<2x8x256x32xf32>) -> tensor<2x8x128x32xf32>
// CHECK: sc.scaled_dot_product_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {scale = 1.250000e-01 : f64} : (tensor<2x8x128x64xf32>, tensor<2x8x256x64xf32>, tensor<2x8x256x32xf32>) -> tensor<2x8x128x32xf32>
// CHECK: sc.scaled_dot_product_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {is_causal = true} : (tensor<2x8x128x64xf32>, tensor<2x8x256x64xf32>, tensor<2x8x256x32xf32>) -> tensor<2x8x128x32xf32>
// CHECK: sc.scaled_dot_product_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {is_causal = true, scale = 5.000000e-01 : f64} : (tensor<2x8x128x64xf32>, tensor<2x8x128x64xf32>, tensor<2x8x128x64xf32>) -> tensor<2x8x128x64xf32>
// CHECK: sc.scaled_dot_product_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}}{{( \{is_causal = false\})?}} : (tensor<2x8x128x64xf32>, tensor<2x8x256x64xf32>, tensor<2x8x256x32xf32>) -> tensor<2x8x128x32xf32>
func.func @sdpa(%q: tensor<2x8x128x64xf32>, %k: tensor<2x8x256x64xf32>, %v: tensor<2x8x256x32xf32>, %q2: tensor<2x8x128x64xf32>) {
  %0 = sc.scaled_dot_product_attention %q, %k, %v : (tensor<2x8x128x64xf32>, tensor<2x8x256x64xf32>, tensor<2x8x256x32xf32>) -> tensor<2x8x128x32xf32>
  %1 = sc.scaled_dot_product_attention %q, %k, %v {scale = 0.125} : (tensor<2x8x128x64xf32>, tensor<2x8x256x64xf32>, tensor<2x8x256x32xf32>) -> tensor<2x8x128x32xf32>
  %2 = sc.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<2x8x128x64xf32>, tensor<2x8x256x64xf32>, tensor<2x8x256x32xf32>) -> tensor<2x8x128x32xf32>
  %3 = sc.scaled_dot_product_attention %q2, %q2, %q2 {is_causal = true, scale = 0.5} : (tensor<2x8x128x64xf32>, tensor<2x8x128x64xf32>, tensor<2x8x128x64xf32>) -> tensor<2x8x128x64xf32>
  %4 = sc.scaled_dot_product_attention %q, %k, %v {is_causal = false} : (tensor<2x8x128x64xf32>, tensor<2x8x256x64xf32>, tensor<2x8x256x32xf32>) -> tensor<2x8x128x32xf32>
  return
}

// -----

// sdpa with an additive float mask: full shape, broadcast (1, 1, L, S), 2-D (L, S),
// mask + scale.
// CHECK-LABEL: func.func @sdpa_mask
// CHECK: sc.scaled_dot_product_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x4x16x32xf32>, tensor<2x4x24x32xf32>, tensor<2x4x24x32xf32>, tensor<2x4x16x24xf32>) -> tensor<2x4x16x32xf32>
// CHECK: sc.scaled_dot_product_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x4x16x32xf32>, tensor<2x4x24x32xf32>, tensor<2x4x24x32xf32>, tensor<1x1x16x24xf32>) -> tensor<2x4x16x32xf32>
// CHECK: sc.scaled_dot_product_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {scale = 2.500000e-01 : f64} : (tensor<2x4x16x32xf32>, tensor<2x4x24x32xf32>, tensor<2x4x24x32xf32>, tensor<16x24xf32>) -> tensor<2x4x16x32xf32>
// CHECK: sc.scaled_dot_product_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x4x16x32xf32>, tensor<2x4x24x32xf32>, tensor<2x4x24x32xf32>, tensor<2x1x1x24xf32>) -> tensor<2x4x16x32xf32>
func.func @sdpa_mask(%q: tensor<2x4x16x32xf32>, %k: tensor<2x4x24x32xf32>, %v: tensor<2x4x24x32xf32>, %m0: tensor<2x4x16x24xf32>, %m1: tensor<1x1x16x24xf32>, %m2: tensor<16x24xf32>, %m3: tensor<2x1x1x24xf32>) {
  %0 = sc.scaled_dot_product_attention %q, %k, %v, %m0 : (tensor<2x4x16x32xf32>, tensor<2x4x24x32xf32>, tensor<2x4x24x32xf32>, tensor<2x4x16x24xf32>) -> tensor<2x4x16x32xf32>
  %1 = sc.scaled_dot_product_attention %q, %k, %v, %m1 : (tensor<2x4x16x32xf32>, tensor<2x4x24x32xf32>, tensor<2x4x24x32xf32>, tensor<1x1x16x24xf32>) -> tensor<2x4x16x32xf32>
  %2 = sc.scaled_dot_product_attention %q, %k, %v, %m2 {scale = 0.25} : (tensor<2x4x16x32xf32>, tensor<2x4x24x32xf32>, tensor<2x4x24x32xf32>, tensor<16x24xf32>) -> tensor<2x4x16x32xf32>
  %3 = sc.scaled_dot_product_attention %q, %k, %v, %m3 : (tensor<2x4x16x32xf32>, tensor<2x4x24x32xf32>, tensor<2x4x24x32xf32>, tensor<2x1x1x24xf32>) -> tensor<2x4x16x32xf32>
  return
}

// -----

// sdpa batch layouts: 3-D (B, L, E), broadcast of k/v over heads, no batch dims.
// CHECK-LABEL: func.func @sdpa_shapes
// CHECK: sc.scaled_dot_product_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x16x64xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>) -> tensor<4x16x64xf32>
// CHECK: sc.scaled_dot_product_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x8x16x64xf32>, tensor<2x1x32x64xf32>, tensor<2x1x32x64xf32>) -> tensor<2x8x16x64xf32>
// CHECK: sc.scaled_dot_product_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<16x64xf32>, tensor<32x64xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
func.func @sdpa_shapes(%q: tensor<4x16x64xf32>, %k: tensor<4x32x64xf32>, %v: tensor<4x32x64xf32>, %q2: tensor<2x8x16x64xf32>, %k2: tensor<2x1x32x64xf32>, %v2: tensor<2x1x32x64xf32>, %q3: tensor<16x64xf32>, %k3: tensor<32x64xf32>, %v3: tensor<32x16xf32>) {
  %0 = sc.scaled_dot_product_attention %q, %k, %v : (tensor<4x16x64xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>) -> tensor<4x16x64xf32>
  %1 = sc.scaled_dot_product_attention %q2, %k2, %v2 : (tensor<2x8x16x64xf32>, tensor<2x1x32x64xf32>, tensor<2x1x32x64xf32>) -> tensor<2x8x16x64xf32>
  %2 = sc.scaled_dot_product_attention %q3, %k3, %v3 : (tensor<16x64xf32>, tensor<32x64xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
  return
}

// -----

// sdpa in bf16 and f16, with a mask of the same element type.
// CHECK-LABEL: func.func @sdpa_half
// CHECK: sc.scaled_dot_product_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {is_causal = true} : (tensor<1x8x64x64xbf16>, tensor<1x8x64x64xbf16>, tensor<1x8x64x64xbf16>) -> tensor<1x8x64x64xbf16>
// CHECK: sc.scaled_dot_product_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<1x8x64x64xf16>, tensor<1x8x64x64xf16>, tensor<1x8x64x64xf16>, tensor<64x64xf16>) -> tensor<1x8x64x64xf16>
func.func @sdpa_half(%q: tensor<1x8x64x64xbf16>, %h: tensor<1x8x64x64xf16>, %m: tensor<64x64xf16>) {
  %0 = sc.scaled_dot_product_attention %q, %q, %q {is_causal = true} : (tensor<1x8x64x64xbf16>, tensor<1x8x64x64xbf16>, tensor<1x8x64x64xbf16>) -> tensor<1x8x64x64xbf16>
  %1 = sc.scaled_dot_product_attention %h, %h, %h, %m : (tensor<1x8x64x64xf16>, tensor<1x8x64x64xf16>, tensor<1x8x64x64xf16>, tensor<64x64xf16>) -> tensor<1x8x64x64xf16>
  return
}

// -----

// neighborhood_attention 1-D: (B, L, heads, D); kernel only, dilation, scale.
// CHECK-LABEL: func.func @na1d
// CHECK: sc.neighborhood_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {kernel_size = array<i64: 7>} : (tensor<2x64x4x32xf32>, tensor<2x64x4x32xf32>, tensor<2x64x4x32xf32>) -> tensor<2x64x4x32xf32>
// CHECK: sc.neighborhood_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {dilation = array<i64: 4>, kernel_size = array<i64: 7>} : (tensor<2x64x4x32xf32>, tensor<2x64x4x32xf32>, tensor<2x64x4x32xf32>) -> tensor<2x64x4x32xf32>
// CHECK: sc.neighborhood_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {kernel_size = array<i64: 3>, scale = 1.250000e-01 : f64} : (tensor<2x64x4x32xf32>, tensor<2x64x4x32xf32>, tensor<2x64x4x32xf32>) -> tensor<2x64x4x32xf32>
// CHECK: sc.neighborhood_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {dilation = array<i64: 3>, kernel_size = array<i64: 3>} : (tensor<1x9x2x8xf32>, tensor<1x9x2x8xf32>, tensor<1x9x2x8xf32>) -> tensor<1x9x2x8xf32>
func.func @na1d(%q: tensor<2x64x4x32xf32>, %k: tensor<2x64x4x32xf32>, %v: tensor<2x64x4x32xf32>, %q2: tensor<1x9x2x8xf32>) {
  %0 = sc.neighborhood_attention %q, %k, %v {kernel_size = array<i64: 7>} : (tensor<2x64x4x32xf32>, tensor<2x64x4x32xf32>, tensor<2x64x4x32xf32>) -> tensor<2x64x4x32xf32>
  %1 = sc.neighborhood_attention %q, %k, %v {dilation = array<i64: 4>, kernel_size = array<i64: 7>} : (tensor<2x64x4x32xf32>, tensor<2x64x4x32xf32>, tensor<2x64x4x32xf32>) -> tensor<2x64x4x32xf32>
  %2 = sc.neighborhood_attention %q, %k, %v {kernel_size = array<i64: 3>, scale = 0.125} : (tensor<2x64x4x32xf32>, tensor<2x64x4x32xf32>, tensor<2x64x4x32xf32>) -> tensor<2x64x4x32xf32>
  %3 = sc.neighborhood_attention %q2, %q2, %q2 {dilation = array<i64: 3>, kernel_size = array<i64: 3>} : (tensor<1x9x2x8xf32>, tensor<1x9x2x8xf32>, tensor<1x9x2x8xf32>) -> tensor<1x9x2x8xf32>
  return
}

// -----

// neighborhood_attention 2-D: (B, H, W, heads, D); per-dim kernel and dilation.
// CHECK-LABEL: func.func @na2d
// CHECK: sc.neighborhood_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {kernel_size = array<i64: 7, 7>} : (tensor<1x32x32x4x16xf32>, tensor<1x32x32x4x16xf32>, tensor<1x32x32x4x16xf32>) -> tensor<1x32x32x4x16xf32>
// CHECK: sc.neighborhood_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {dilation = array<i64: 2, 2>, kernel_size = array<i64: 7, 7>} : (tensor<1x32x32x4x16xf32>, tensor<1x32x32x4x16xf32>, tensor<1x32x32x4x16xf32>) -> tensor<1x32x32x4x16xf32>
// CHECK: sc.neighborhood_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {dilation = array<i64: 1, 3>, kernel_size = array<i64: 5, 7>, scale = 2.500000e-01 : f64} : (tensor<2x16x24x2x32xf32>, tensor<2x16x24x2x32xf32>, tensor<2x16x24x2x32xf32>) -> tensor<2x16x24x2x32xf32>
func.func @na2d(%q: tensor<1x32x32x4x16xf32>, %k: tensor<1x32x32x4x16xf32>, %v: tensor<1x32x32x4x16xf32>, %q2: tensor<2x16x24x2x32xf32>) {
  %0 = sc.neighborhood_attention %q, %k, %v {kernel_size = array<i64: 7, 7>} : (tensor<1x32x32x4x16xf32>, tensor<1x32x32x4x16xf32>, tensor<1x32x32x4x16xf32>) -> tensor<1x32x32x4x16xf32>
  %1 = sc.neighborhood_attention %q, %k, %v {dilation = array<i64: 2, 2>, kernel_size = array<i64: 7, 7>} : (tensor<1x32x32x4x16xf32>, tensor<1x32x32x4x16xf32>, tensor<1x32x32x4x16xf32>) -> tensor<1x32x32x4x16xf32>
  %2 = sc.neighborhood_attention %q2, %q2, %q2 {dilation = array<i64: 1, 3>, kernel_size = array<i64: 5, 7>, scale = 0.25} : (tensor<2x16x24x2x32xf32>, tensor<2x16x24x2x32xf32>, tensor<2x16x24x2x32xf32>) -> tensor<2x16x24x2x32xf32>
  return
}

// -----

// neighborhood_attention 3-D: (B, D, H, W, heads, Dh); 3*1 <= 8, 5*2 <= 16, 5*3 <= 16.
// CHECK-LABEL: func.func @na3d
// CHECK: sc.neighborhood_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {kernel_size = array<i64: 3, 3, 3>} : (tensor<1x8x16x16x2x8xf32>, tensor<1x8x16x16x2x8xf32>, tensor<1x8x16x16x2x8xf32>) -> tensor<1x8x16x16x2x8xf32>
// CHECK: sc.neighborhood_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {dilation = array<i64: 1, 2, 3>, kernel_size = array<i64: 3, 5, 5>, scale = 2.500000e-01 : f64} : (tensor<1x8x16x16x2x8xf32>, tensor<1x8x16x16x2x8xf32>, tensor<1x8x16x16x2x8xf32>) -> tensor<1x8x16x16x2x8xf32>
func.func @na3d(%q: tensor<1x8x16x16x2x8xf32>, %k: tensor<1x8x16x16x2x8xf32>, %v: tensor<1x8x16x16x2x8xf32>) {
  %0 = sc.neighborhood_attention %q, %k, %v {kernel_size = array<i64: 3, 3, 3>} : (tensor<1x8x16x16x2x8xf32>, tensor<1x8x16x16x2x8xf32>, tensor<1x8x16x16x2x8xf32>) -> tensor<1x8x16x16x2x8xf32>
  %1 = sc.neighborhood_attention %q, %k, %v {dilation = array<i64: 1, 2, 3>, kernel_size = array<i64: 3, 5, 5>, scale = 0.25} : (tensor<1x8x16x16x2x8xf32>, tensor<1x8x16x16x2x8xf32>, tensor<1x8x16x16x2x8xf32>) -> tensor<1x8x16x16x2x8xf32>
  return
}

// -----

// neighborhood_attention in bf16.
// CHECK-LABEL: func.func @na_half
// CHECK: sc.neighborhood_attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {kernel_size = array<i64: 5, 5>} : (tensor<1x16x16x4x32xbf16>, tensor<1x16x16x4x32xbf16>, tensor<1x16x16x4x32xbf16>) -> tensor<1x16x16x4x32xbf16>
func.func @na_half(%q: tensor<1x16x16x4x32xbf16>) {
  %0 = sc.neighborhood_attention %q, %q, %q {kernel_size = array<i64: 5, 5>} : (tensor<1x16x16x4x32xbf16>, tensor<1x16x16x4x32xbf16>, tensor<1x16x16x4x32xbf16>) -> tensor<1x16x16x4x32xbf16>
  return
}
