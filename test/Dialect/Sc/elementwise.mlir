// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// Elementwise ops: every unary op (gelu none/tanh), every binary op with
// numpy broadcasting, compare with every predicate, select (3-way broadcast),
// cast between float types; f32, f16 and bf16 element types.

// CHECK-LABEL: func.func @unary_f32
// CHECK: sc.neg %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.abs %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.exp %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.log %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.sqrt %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.rsqrt %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.tanh %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.sigmoid %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.relu %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.silu %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.gelu %{{[^ ]*}} : tensor<2x3xf32>
func.func @unary_f32(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = sc.neg %arg0 : tensor<2x3xf32>
  %1 = sc.abs %0 : tensor<2x3xf32>
  %2 = sc.exp %1 : tensor<2x3xf32>
  %3 = sc.log %2 : tensor<2x3xf32>
  %4 = sc.sqrt %3 : tensor<2x3xf32>
  %5 = sc.rsqrt %4 : tensor<2x3xf32>
  %6 = sc.tanh %5 : tensor<2x3xf32>
  %7 = sc.sigmoid %6 : tensor<2x3xf32>
  %8 = sc.relu %7 : tensor<2x3xf32>
  %9 = sc.silu %8 : tensor<2x3xf32>
  %10 = sc.gelu %9 : tensor<2x3xf32>
  return %10 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @unary_f16
// CHECK: sc.neg %{{[^ ]*}} : tensor<4xf16>
// CHECK: sc.abs %{{[^ ]*}} : tensor<4xf16>
// CHECK: sc.exp %{{[^ ]*}} : tensor<4xf16>
// CHECK: sc.log %{{[^ ]*}} : tensor<4xf16>
// CHECK: sc.sqrt %{{[^ ]*}} : tensor<4xf16>
// CHECK: sc.rsqrt %{{[^ ]*}} : tensor<4xf16>
// CHECK: sc.tanh %{{[^ ]*}} : tensor<4xf16>
// CHECK: sc.sigmoid %{{[^ ]*}} : tensor<4xf16>
// CHECK: sc.relu %{{[^ ]*}} : tensor<4xf16>
// CHECK: sc.silu %{{[^ ]*}} : tensor<4xf16>
// CHECK: sc.gelu %{{[^ ]*}} : tensor<4xf16>
func.func @unary_f16(%arg0: tensor<4xf16>) -> tensor<4xf16> {
  %0 = sc.neg %arg0 : tensor<4xf16>
  %1 = sc.abs %0 : tensor<4xf16>
  %2 = sc.exp %1 : tensor<4xf16>
  %3 = sc.log %2 : tensor<4xf16>
  %4 = sc.sqrt %3 : tensor<4xf16>
  %5 = sc.rsqrt %4 : tensor<4xf16>
  %6 = sc.tanh %5 : tensor<4xf16>
  %7 = sc.sigmoid %6 : tensor<4xf16>
  %8 = sc.relu %7 : tensor<4xf16>
  %9 = sc.silu %8 : tensor<4xf16>
  %10 = sc.gelu %9 : tensor<4xf16>
  return %10 : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @unary_bf16
// CHECK: sc.neg %{{[^ ]*}} : tensor<4xbf16>
// CHECK: sc.abs %{{[^ ]*}} : tensor<4xbf16>
// CHECK: sc.exp %{{[^ ]*}} : tensor<4xbf16>
// CHECK: sc.log %{{[^ ]*}} : tensor<4xbf16>
// CHECK: sc.sqrt %{{[^ ]*}} : tensor<4xbf16>
// CHECK: sc.rsqrt %{{[^ ]*}} : tensor<4xbf16>
// CHECK: sc.tanh %{{[^ ]*}} : tensor<4xbf16>
// CHECK: sc.sigmoid %{{[^ ]*}} : tensor<4xbf16>
// CHECK: sc.relu %{{[^ ]*}} : tensor<4xbf16>
// CHECK: sc.silu %{{[^ ]*}} : tensor<4xbf16>
// CHECK: sc.gelu %{{[^ ]*}} : tensor<4xbf16>
func.func @unary_bf16(%arg0: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = sc.neg %arg0 : tensor<4xbf16>
  %1 = sc.abs %0 : tensor<4xbf16>
  %2 = sc.exp %1 : tensor<4xbf16>
  %3 = sc.log %2 : tensor<4xbf16>
  %4 = sc.sqrt %3 : tensor<4xbf16>
  %5 = sc.rsqrt %4 : tensor<4xbf16>
  %6 = sc.tanh %5 : tensor<4xbf16>
  %7 = sc.sigmoid %6 : tensor<4xbf16>
  %8 = sc.relu %7 : tensor<4xbf16>
  %9 = sc.silu %8 : tensor<4xbf16>
  %10 = sc.gelu %9 : tensor<4xbf16>
  return %10 : tensor<4xbf16>
}

// -----

// Rank-0 and higher-rank unary.
// CHECK-LABEL: func.func @unary_shapes
// CHECK: sc.exp %{{[^ ]*}} : tensor<f32>
// CHECK: sc.relu %{{[^ ]*}} : tensor<2x3x4x5x6xf32>
func.func @unary_shapes(%arg0: tensor<f32>, %arg1: tensor<2x3x4x5x6xf32>) -> (tensor<f32>, tensor<2x3x4x5x6xf32>) {
  %0 = sc.exp %arg0 : tensor<f32>
  %1 = sc.relu %arg1 : tensor<2x3x4x5x6xf32>
  return %0, %1 : tensor<f32>, tensor<2x3x4x5x6xf32>
}

// -----

// The trigonometric functions and erf (Fourier features, SIREN activations).
// CHECK-LABEL: func.func @trig
// CHECK: sc.sin %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.cos %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.erf %{{[^ ]*}} : tensor<4xbf16>
func.func @trig(%arg0: tensor<2x3xf32>, %arg1: tensor<4xbf16>) -> (tensor<2x3xf32>, tensor<4xbf16>) {
  %0 = sc.sin %arg0 : tensor<2x3xf32>
  %1 = sc.cos %0 : tensor<2x3xf32>
  %2 = sc.erf %arg1 : tensor<4xbf16>
  return %1, %2 : tensor<2x3xf32>, tensor<4xbf16>
}

// -----

// log1p and expm1 (what the activations built on exp and log need near 0).
// CHECK-LABEL: func.func @log1p_expm1
// CHECK: sc.log1p %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.expm1 %{{[^ ]*}} : tensor<4xbf16>
func.func @log1p_expm1(%arg0: tensor<2x3xf32>, %arg1: tensor<4xbf16>) -> (tensor<2x3xf32>, tensor<4xbf16>) {
  %0 = sc.log1p %arg0 : tensor<2x3xf32>
  %1 = sc.expm1 %arg1 : tensor<4xbf16>
  return %0, %1 : tensor<2x3xf32>, tensor<4xbf16>
}

// -----

// Activations with parameters, defaults elided when printed.
// CHECK-LABEL: func.func @activations
// CHECK: sc.leaky_relu %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.leaky_relu %{{[^ ]*}} {negative_slope = 2.000000e-01 : f64} : tensor<2x3xf32>
// CHECK: sc.elu %{{[^ ]*}} {alpha = 1.500000e+00 : f64} : tensor<2x3xf32>
// CHECK: sc.softplus %{{[^ ]*}} {beta = 2.000000e+00 : f64, threshold = 1.000000e+01 : f64} : tensor<2x3xf32>
// CHECK: sc.clamp %{{[^ ]*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x3xf32>
// CHECK: sc.clamp %{{[^ ]*}} {max = 1.000000e+00 : f64} : tensor<4xbf16>
func.func @activations(%arg0: tensor<2x3xf32>, %arg1: tensor<4xbf16>) -> (tensor<2x3xf32>, tensor<4xbf16>) {
  %0 = sc.leaky_relu %arg0 : tensor<2x3xf32>
  %1 = sc.leaky_relu %0 {negative_slope = 0.2} : tensor<2x3xf32>
  %2 = sc.elu %1 {alpha = 1.5} : tensor<2x3xf32>
  %3 = sc.softplus %2 {beta = 2.0, threshold = 10.0} : tensor<2x3xf32>
  %4 = sc.clamp %3 {min = 0.0, max = 6.0} : tensor<2x3xf32>
  %5 = sc.clamp %arg1 {max = 1.0} : tensor<4xbf16>
  return %4, %5 : tensor<2x3xf32>, tensor<4xbf16>
}

// -----

// F.hardtanh (F.relu6 as its 0..6 form), hardsigmoid, hardswish, mish.
// CHECK-LABEL: func.func @hard_activations
// CHECK: sc.hardtanh %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.hardtanh %{{[^ ]*}} {max_val = 6.000000e+00 : f64, min_val = 0.000000e+00 : f64} : tensor<2x3xf32>
// CHECK: sc.hardsigmoid %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.hardswish %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.mish %{{[^ ]*}} : tensor<4xbf16>
func.func @hard_activations(%arg0: tensor<2x3xf32>, %arg1: tensor<4xbf16>) -> (tensor<2x3xf32>, tensor<4xbf16>) {
  %0 = sc.hardtanh %arg0 : tensor<2x3xf32>
  %1 = sc.hardtanh %0 {min_val = 0.0, max_val = 6.0} : tensor<2x3xf32>
  %2 = sc.hardsigmoid %1 : tensor<2x3xf32>
  %3 = sc.hardswish %2 : tensor<2x3xf32>
  %4 = sc.mish %arg1 : tensor<4xbf16>
  return %3, %4 : tensor<2x3xf32>, tensor<4xbf16>
}

// -----

// selu, celu (alpha), logsigmoid, softsign, and prelu with one slope per
// channel (dim 1), one for all, and on a 1-D tensor (one channel).
// CHECK-LABEL: func.func @more_activations
// CHECK: sc.selu %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.celu %{{[^ ]*}} {alpha = 5.000000e-01 : f64} : tensor<2x3xf32>
// CHECK: sc.logsigmoid %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.softsign %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.prelu %{{[^ ]*}}, %{{[^ ]*}} : (tensor<1x3x4x4xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
// CHECK: sc.prelu %{{[^ ]*}}, %{{[^ ]*}} : (tensor<1x3x4x4xf32>, tensor<1xf32>) -> tensor<1x3x4x4xf32>
// CHECK: sc.prelu %{{[^ ]*}}, %{{[^ ]*}} : (tensor<5xf32>, tensor<1xf32>) -> tensor<5xf32>
func.func @more_activations(%x: tensor<2x3xf32>, %i: tensor<1x3x4x4xf32>, %c: tensor<3xf32>, %o: tensor<1xf32>, %v: tensor<5xf32>) {
  %0 = sc.selu %x : tensor<2x3xf32>
  %1 = sc.celu %x {alpha = 0.5} : tensor<2x3xf32>
  %2 = sc.logsigmoid %x : tensor<2x3xf32>
  %3 = sc.softsign %x : tensor<2x3xf32>
  %4 = sc.prelu %i, %c : (tensor<1x3x4x4xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %5 = sc.prelu %i, %o : (tensor<1x3x4x4xf32>, tensor<1xf32>) -> tensor<1x3x4x4xf32>
  %6 = sc.prelu %v, %o : (tensor<5xf32>, tensor<1xf32>) -> tensor<5xf32>
  return
}

// -----

// gelu: default (no attribute), explicit "none" (may be elided when printed), "tanh".
// CHECK-LABEL: func.func @gelu
// CHECK: sc.gelu %{{[^ ]*}} : tensor<2x8xf32>
// CHECK: sc.gelu %{{[^ ]*}}{{( \{approximate = "none"\})?}} : tensor<2x8xf32>
// CHECK: sc.gelu %{{[^ ]*}} {approximate = "tanh"} : tensor<2x8xf32>
// CHECK: sc.gelu %{{[^ ]*}} {approximate = "tanh"} : tensor<2x8xbf16>
func.func @gelu(%arg0: tensor<2x8xf32>, %arg1: tensor<2x8xbf16>) -> (tensor<2x8xf32>, tensor<2x8xbf16>) {
  %0 = sc.gelu %arg0 : tensor<2x8xf32>
  %1 = sc.gelu %0 {approximate = "none"} : tensor<2x8xf32>
  %2 = sc.gelu %1 {approximate = "tanh"} : tensor<2x8xf32>
  %3 = sc.gelu %arg1 {approximate = "tanh"} : tensor<2x8xbf16>
  return %2, %3 : tensor<2x8xf32>, tensor<2x8xbf16>
}

// -----

// CHECK-LABEL: func.func @binary_same_f32
// CHECK: sc.add %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: sc.sub %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: sc.mul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: sc.div %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: sc.maximum %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: sc.minimum %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: sc.pow %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
func.func @binary_same_f32(%arg0: tensor<4x3xf32>, %arg1: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = sc.add %arg0, %arg1 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %1 = sc.sub %0, %arg1 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %2 = sc.mul %1, %arg1 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %3 = sc.div %2, %arg1 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %4 = sc.maximum %3, %arg1 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %5 = sc.minimum %4, %arg1 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %6 = sc.pow %5, %arg1 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %6 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @binary_same_f16
// CHECK: sc.add %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<4x3xf16>
// CHECK: sc.sub %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<4x3xf16>
// CHECK: sc.mul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<4x3xf16>
// CHECK: sc.div %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<4x3xf16>
// CHECK: sc.maximum %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<4x3xf16>
// CHECK: sc.minimum %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<4x3xf16>
// CHECK: sc.pow %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<4x3xf16>
func.func @binary_same_f16(%arg0: tensor<4x3xf16>, %arg1: tensor<4x3xf16>) -> tensor<4x3xf16> {
  %0 = sc.add %arg0, %arg1 : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<4x3xf16>
  %1 = sc.sub %0, %arg1 : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<4x3xf16>
  %2 = sc.mul %1, %arg1 : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<4x3xf16>
  %3 = sc.div %2, %arg1 : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<4x3xf16>
  %4 = sc.maximum %3, %arg1 : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<4x3xf16>
  %5 = sc.minimum %4, %arg1 : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<4x3xf16>
  %6 = sc.pow %5, %arg1 : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<4x3xf16>
  return %6 : tensor<4x3xf16>
}

// -----

// CHECK-LABEL: func.func @binary_same_bf16
// CHECK: sc.add %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xbf16>, tensor<4x3xbf16>) -> tensor<4x3xbf16>
// CHECK: sc.sub %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xbf16>, tensor<4x3xbf16>) -> tensor<4x3xbf16>
// CHECK: sc.mul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xbf16>, tensor<4x3xbf16>) -> tensor<4x3xbf16>
// CHECK: sc.div %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xbf16>, tensor<4x3xbf16>) -> tensor<4x3xbf16>
// CHECK: sc.maximum %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xbf16>, tensor<4x3xbf16>) -> tensor<4x3xbf16>
// CHECK: sc.minimum %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xbf16>, tensor<4x3xbf16>) -> tensor<4x3xbf16>
// CHECK: sc.pow %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xbf16>, tensor<4x3xbf16>) -> tensor<4x3xbf16>
func.func @binary_same_bf16(%arg0: tensor<4x3xbf16>, %arg1: tensor<4x3xbf16>) -> tensor<4x3xbf16> {
  %0 = sc.add %arg0, %arg1 : (tensor<4x3xbf16>, tensor<4x3xbf16>) -> tensor<4x3xbf16>
  %1 = sc.sub %0, %arg1 : (tensor<4x3xbf16>, tensor<4x3xbf16>) -> tensor<4x3xbf16>
  %2 = sc.mul %1, %arg1 : (tensor<4x3xbf16>, tensor<4x3xbf16>) -> tensor<4x3xbf16>
  %3 = sc.div %2, %arg1 : (tensor<4x3xbf16>, tensor<4x3xbf16>) -> tensor<4x3xbf16>
  %4 = sc.maximum %3, %arg1 : (tensor<4x3xbf16>, tensor<4x3xbf16>) -> tensor<4x3xbf16>
  %5 = sc.minimum %4, %arg1 : (tensor<4x3xbf16>, tensor<4x3xbf16>) -> tensor<4x3xbf16>
  %6 = sc.pow %5, %arg1 : (tensor<4x3xbf16>, tensor<4x3xbf16>) -> tensor<4x3xbf16>
  return %6 : tensor<4x3xbf16>
}

// -----

// Broadcasting, every binary op.
// CHECK-LABEL: func.func @binary_broadcast_all_ops
// CHECK: sc.add %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK: sc.sub %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK: sc.mul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK: sc.div %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK: sc.maximum %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK: sc.minimum %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK: sc.pow %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
func.func @binary_broadcast_all_ops(%arg0: tensor<4x1xf32>, %arg1: tensor<3xf32>) -> tensor<4x3xf32> {
  %0 = sc.add %arg0, %arg1 : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %1 = sc.sub %arg0, %arg1 : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %2 = sc.mul %arg0, %arg1 : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %3 = sc.div %arg0, %arg1 : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %4 = sc.maximum %arg0, %arg1 : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %5 = sc.minimum %arg0, %arg1 : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %6 = sc.pow %arg0, %arg1 : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %7 = sc.add %0, %1 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %7 : tensor<4x3xf32>
}

// -----

// Broadcasting shapes: size-1 dims, rank extension, rank 0 on either side.
// CHECK-LABEL: func.func @binary_broadcast_shapes
// CHECK: sc.add %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK: sc.add %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x1x5xf32>, tensor<3x1xf32>) -> tensor<2x3x5xf32>
// CHECK: sc.add %{{[^ ]*}}, %{{[^ ]*}} : (tensor<f32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: sc.add %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
// CHECK: sc.add %{{[^ ]*}}, %{{[^ ]*}} : (tensor<1xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: sc.add %{{[^ ]*}}, %{{[^ ]*}} : (tensor<8x1x6x1xf32>, tensor<7x1x5xf32>) -> tensor<8x7x6x5xf32>
// CHECK: sc.add %{{[^ ]*}}, %{{[^ ]*}} : (tensor<1x3x1xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
func.func @binary_broadcast_shapes(%a0: tensor<4x1xf32>, %b0: tensor<3xf32>, %a1: tensor<2x1x5xf32>, %b1: tensor<3x1xf32>, %a2: tensor<f32>, %b2: tensor<4x3xf32>, %a3: tensor<4x3xf32>, %b3: tensor<f32>, %a4: tensor<1xf32>, %b4: tensor<4xf32>, %a5: tensor<8x1x6x1xf32>, %b5: tensor<7x1x5xf32>, %a6: tensor<1x3x1xf32>, %b6: tensor<2x1x4xf32>) {
  %0 = sc.add %a0, %b0 : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %1 = sc.add %a1, %b1 : (tensor<2x1x5xf32>, tensor<3x1xf32>) -> tensor<2x3x5xf32>
  %2 = sc.add %a2, %b2 : (tensor<f32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %3 = sc.add %a3, %b3 : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  %4 = sc.add %a4, %b4 : (tensor<1xf32>, tensor<4xf32>) -> tensor<4xf32>
  %5 = sc.add %a5, %b5 : (tensor<8x1x6x1xf32>, tensor<7x1x5xf32>) -> tensor<8x7x6x5xf32>
  %6 = sc.add %a6, %b6 : (tensor<1x3x1xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

// Broadcasting with half types.
// CHECK-LABEL: func.func @binary_broadcast_half
// CHECK: sc.mul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x1x8xf16>, tensor<5x1xf16>) -> tensor<2x5x8xf16>
// CHECK: sc.sub %{{[^ ]*}}, %{{[^ ]*}} : (tensor<bf16>, tensor<3x2xbf16>) -> tensor<3x2xbf16>
func.func @binary_broadcast_half(%arg0: tensor<2x1x8xf16>, %arg1: tensor<5x1xf16>, %arg2: tensor<bf16>, %arg3: tensor<3x2xbf16>) -> (tensor<2x5x8xf16>, tensor<3x2xbf16>) {
  %0 = sc.mul %arg0, %arg1 : (tensor<2x1x8xf16>, tensor<5x1xf16>) -> tensor<2x5x8xf16>
  %1 = sc.sub %arg2, %arg3 : (tensor<bf16>, tensor<3x2xbf16>) -> tensor<3x2xbf16>
  return %0, %1 : tensor<2x5x8xf16>, tensor<3x2xbf16>
}

// -----

// compare with every predicate.
// CHECK-LABEL: func.func @compare_predicates
// CHECK: sc.compare %{{[^ ]*}}, %{{[^ ]*}} {predicate = "eq"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK: sc.compare %{{[^ ]*}}, %{{[^ ]*}} {predicate = "ne"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK: sc.compare %{{[^ ]*}}, %{{[^ ]*}} {predicate = "lt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK: sc.compare %{{[^ ]*}}, %{{[^ ]*}} {predicate = "le"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK: sc.compare %{{[^ ]*}}, %{{[^ ]*}} {predicate = "gt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK: sc.compare %{{[^ ]*}}, %{{[^ ]*}} {predicate = "ge"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
func.func @compare_predicates(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) {
  %0 = sc.compare %arg0, %arg1 {predicate = "eq"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = sc.compare %arg0, %arg1 {predicate = "ne"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = sc.compare %arg0, %arg1 {predicate = "lt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %3 = sc.compare %arg0, %arg1 {predicate = "le"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %4 = sc.compare %arg0, %arg1 {predicate = "gt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %5 = sc.compare %arg0, %arg1 {predicate = "ge"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

// compare with broadcasting and half types.
// CHECK-LABEL: func.func @compare_broadcast
// CHECK: sc.compare %{{[^ ]*}}, %{{[^ ]*}} {predicate = "gt"} : (tensor<4x1xf32>, tensor<1x3xf32>) -> tensor<4x3xi1>
// CHECK: sc.compare %{{[^ ]*}}, %{{[^ ]*}} {predicate = "le"} : (tensor<2x5xf16>, tensor<f16>) -> tensor<2x5xi1>
// CHECK: sc.compare %{{[^ ]*}}, %{{[^ ]*}} {predicate = "ne"} : (tensor<3xbf16>, tensor<2x3xbf16>) -> tensor<2x3xi1>
func.func @compare_broadcast(%arg0: tensor<4x1xf32>, %arg1: tensor<1x3xf32>, %arg2: tensor<2x5xf16>, %arg3: tensor<f16>, %arg4: tensor<3xbf16>, %arg5: tensor<2x3xbf16>) {
  %0 = sc.compare %arg0, %arg1 {predicate = "gt"} : (tensor<4x1xf32>, tensor<1x3xf32>) -> tensor<4x3xi1>
  %1 = sc.compare %arg2, %arg3 {predicate = "le"} : (tensor<2x5xf16>, tensor<f16>) -> tensor<2x5xi1>
  %2 = sc.compare %arg4, %arg5 {predicate = "ne"} : (tensor<3xbf16>, tensor<2x3xbf16>) -> tensor<2x3xi1>
  return
}

// -----

// select, same shapes and 3-way broadcast.
// CHECK-LABEL: func.func @select
// CHECK: sc.select %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: sc.select %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x1xi1>, tensor<1x3xf32>, tensor<f32>) -> tensor<4x3xf32>
// CHECK: sc.select %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<i1>, tensor<2x1x3xbf16>, tensor<5x1xbf16>) -> tensor<2x5x3xbf16>
func.func @select(%c0: tensor<4xi1>, %a0: tensor<4xf32>, %b0: tensor<4xf32>,
                  %c1: tensor<4x1xi1>, %a1: tensor<1x3xf32>, %b1: tensor<f32>,
                  %c2: tensor<i1>, %a2: tensor<2x1x3xbf16>, %b2: tensor<5x1xbf16>) {
  %0 = sc.select %c0, %a0, %b0 : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = sc.select %c1, %a1, %b1 : (tensor<4x1xi1>, tensor<1x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  %2 = sc.select %c2, %a2, %b2 : (tensor<i1>, tensor<2x1x3xbf16>, tensor<5x1xbf16>) -> tensor<2x5x3xbf16>
  return
}

// -----

// compare feeding select.
// CHECK-LABEL: func.func @compare_select
// CHECK: %[[M:[^ ]+]] = sc.compare %{{[^ ]*}}, %{{[^ ]*}} {predicate = "ge"} : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xi1>
// CHECK: sc.select %[[M]], %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x8xi1>, tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
func.func @compare_select(%arg0: tensor<2x8xf32>, %arg1: tensor<f32>) -> tensor<2x8xf32> {
  %0 = sc.compare %arg0, %arg1 {predicate = "ge"} : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xi1>
  %1 = sc.select %0, %arg0, %arg1 : (tensor<2x8xi1>, tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}

// -----

// cast between float types.
// CHECK-LABEL: func.func @cast
// CHECK: sc.cast %{{[^ ]*}} : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: sc.cast %{{[^ ]*}} : tensor<4x8xf32> to tensor<4x8xbf16>
// CHECK: sc.cast %{{[^ ]*}} : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK: sc.cast %{{[^ ]*}} : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK: sc.cast %{{[^ ]*}} : tensor<f32> to tensor<f16>
func.func @cast(%arg0: tensor<4x8xf32>, %arg1: tensor<f32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<f16>) {
  %0 = sc.cast %arg0 : tensor<4x8xf32> to tensor<4x8xf16>
  %1 = sc.cast %arg0 : tensor<4x8xf32> to tensor<4x8xbf16>
  %2 = sc.cast %0 : tensor<4x8xf16> to tensor<4x8xf32>
  %3 = sc.cast %1 : tensor<4x8xbf16> to tensor<4x8xf32>
  %4 = sc.cast %arg1 : tensor<f32> to tensor<f16>
  return %2, %3, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<f16>
}

// -----

// A mixed-precision chain: cast to bf16, compute, cast back.
// CHECK-LABEL: func.func @mixed_precision
// CHECK: sc.cast %{{[^ ]*}} : tensor<2x16xf32> to tensor<2x16xbf16>
// CHECK: sc.silu %{{[^ ]*}} : tensor<2x16xbf16>
// CHECK: sc.mul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x16xbf16>, tensor<16xbf16>) -> tensor<2x16xbf16>
// CHECK: sc.cast %{{[^ ]*}} : tensor<2x16xbf16> to tensor<2x16xf32>
func.func @mixed_precision(%arg0: tensor<2x16xf32>, %arg1: tensor<16xbf16>) -> tensor<2x16xf32> {
  %0 = sc.cast %arg0 : tensor<2x16xf32> to tensor<2x16xbf16>
  %1 = sc.silu %0 : tensor<2x16xbf16>
  %2 = sc.mul %1, %arg1 : (tensor<2x16xbf16>, tensor<16xbf16>) -> tensor<2x16xbf16>
  %3 = sc.cast %2 : tensor<2x16xbf16> to tensor<2x16xf32>
  return %3 : tensor<2x16xf32>
}

// -----

// The rest of torch's float math: unary functions keep the type, binary
// ones broadcast.
// CHECK-LABEL: func.func @math_functions
// CHECK: sc.atanh %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.round %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.reciprocal %{{[^ ]*}} : tensor<4xbf16>
// CHECK: sc.remainder %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: sc.atan2 %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
func.func @math_functions(%x: tensor<2x3xf32>, %h: tensor<4xbf16>, %r: tensor<3xf32>, %s: tensor<f32>) {
  %0 = sc.atanh %x : tensor<2x3xf32>
  %1 = sc.round %0 : tensor<2x3xf32>
  %2 = sc.reciprocal %h : tensor<4xbf16>
  %3 = sc.remainder %1, %r : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = sc.atan2 %3, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return
}

// -----

// Forms sc-decompose-forms rewrites: square, sign, logaddexp, nan_to_num and
// the float class predicates (i1 results).
// CHECK-LABEL: func.func @float_forms
// CHECK: sc.square %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.logaddexp %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: sc.nan_to_num %{{[^ ]*}} {posinf = 1.000000e+04 : f64} : tensor<2x3xf32>
// CHECK: sc.isfinite %{{[^ ]*}} : (tensor<2x3xf32>) -> tensor<2x3xi1>
func.func @float_forms(%x: tensor<2x3xf32>, %r: tensor<3xf32>) {
  %0 = sc.square %x : tensor<2x3xf32>
  %1 = sc.logaddexp %0, %r : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = sc.nan_to_num %1 {posinf = 1.0e4} : tensor<2x3xf32>
  %3 = sc.isfinite %2 : (tensor<2x3xf32>) -> tensor<2x3xi1>
  return
}

// -----

// F.hardshrink, softshrink, tanhshrink, threshold (attributes) and softmin.
// CHECK-LABEL: func.func @shrink_forms
// CHECK: sc.hardshrink %{{[^ ]*}} : tensor<2x3xf32>
// CHECK: sc.softshrink %{{[^ ]*}} {lambd = 2.500000e-01 : f64} : tensor<2x3xf32>
// CHECK: sc.threshold %{{[^ ]*}} {threshold = 1.000000e-01 : f64, value = 2.000000e+01 : f64} : tensor<2x3xf32>
// CHECK: sc.softmin %{{[^ ]*}} {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @shrink_forms(%x: tensor<2x3xf32>) {
  %0 = sc.hardshrink %x : tensor<2x3xf32>
  %1 = sc.softshrink %0 {lambd = 0.25} : tensor<2x3xf32>
  %2 = sc.threshold %1 {threshold = 0.1, value = 20.0} : tensor<2x3xf32>
  %3 = sc.softmin %2 {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// A Python scalar: add/sub/mul/div take a rank-0 operand of another float
// type beside a ranked one, on either side; the result takes the ranked
// operand's type (PyTorch's promotion: zero-dim tensors do not promote).
// CHECK-LABEL: func.func @python_scalars
// CHECK: sc.mul %{{.*}}, %{{.*}} : (tensor<4xbf16>, tensor<f32>) -> tensor<4xbf16>
// CHECK: sc.add %{{.*}}, %{{.*}} : (tensor<f32>, tensor<4xf16>) -> tensor<4xf16>
// CHECK: sc.sub %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<bf16>) -> tensor<2x4xf32>
// CHECK: sc.div %{{.*}}, %{{.*}} : (tensor<4xbf16>, tensor<f16>) -> tensor<4xbf16>
func.func @python_scalars(%x: tensor<4xbf16>, %h: tensor<4xf16>, %y: tensor<2x4xf32>, %s: tensor<f32>, %b: tensor<bf16>, %e: tensor<f16>) {
  %0 = sc.mul %x, %s : (tensor<4xbf16>, tensor<f32>) -> tensor<4xbf16>
  %1 = sc.add %s, %h : (tensor<f32>, tensor<4xf16>) -> tensor<4xf16>
  %2 = sc.sub %y, %b : (tensor<2x4xf32>, tensor<bf16>) -> tensor<2x4xf32>
  %3 = sc.div %x, %e : (tensor<4xbf16>, tensor<f16>) -> tensor<4xbf16>
  return
}
