// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// sc.conv (1/2/3-D, stride, symmetric and asymmetric padding, dilation, groups,
// every padding_mode, with and without bias) and sc.conv_transpose (1/2/3-D,
// output_padding, groups, dilation).
// conv:           out = floor((n + pad_lo + pad_hi - d*(k-1) - 1) / s) + 1
// conv_transpose: out = (n-1)*s - pad_lo - pad_hi + d*(k-1) + output_padding + 1

// conv 1-D: no attributes; bias + stride + padding: (32+2-2-1)/2+1 = 16.
// CHECK-LABEL: func.func @conv1d
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x4x32xf32>, tensor<8x4x3xf32>) -> tensor<2x8x30xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<2x4x32xf32>, tensor<8x4x3xf32>, tensor<8xf32>) -> tensor<2x8x16xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {dilation = array<i64: 3>, padding = array<i64: 6>} : (tensor<2x4x32xf32>, tensor<6x4x5xf32>) -> tensor<2x6x32xf32>
func.func @conv1d(%x: tensor<2x4x32xf32>, %w: tensor<8x4x3xf32>, %b: tensor<8xf32>, %w5: tensor<6x4x5xf32>) {
  %0 = sc.conv %x, %w : (tensor<2x4x32xf32>, tensor<8x4x3xf32>) -> tensor<2x8x30xf32>
  %1 = sc.conv %x, %w, %b {padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<2x4x32xf32>, tensor<8x4x3xf32>, tensor<8xf32>) -> tensor<2x8x16xf32>
  %2 = sc.conv %x, %w5 {dilation = array<i64: 3>, padding = array<i64: 6>} : (tensor<2x4x32xf32>, tensor<6x4x5xf32>) -> tensor<2x6x32xf32>
  return
}

// -----

// conv 2-D "same" padding with bias, non-square input with per-dim stride/padding,
// 1x1 kernel.
// CHECK-LABEL: func.func @conv2d
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 1, 1>} : (tensor<2x16x128x128xf32>, tensor<8x16x3x3xf32>, tensor<8xf32>) -> tensor<2x8x128x128xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 1, 0>, stride = array<i64: 2, 1>} : (tensor<1x3x64x48xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x32x46xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x64x7x7xf32>, tensor<32x64x1x1xf32>) -> tensor<2x32x7x7xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 3, 3>, stride = array<i64: 2, 2>} : (tensor<1x3x64x48xf32>, tensor<8x3x7x7xf32>) -> tensor<1x8x32x24xf32>
func.func @conv2d(%x: tensor<2x16x128x128xf32>, %w: tensor<8x16x3x3xf32>, %b: tensor<8xf32>, %y: tensor<1x3x64x48xf32>, %w2: tensor<16x3x3x3xf32>, %z: tensor<2x64x7x7xf32>, %w3: tensor<32x64x1x1xf32>, %w4: tensor<8x3x7x7xf32>) {
  %0 = sc.conv %x, %w, %b {padding = array<i64: 1, 1>} : (tensor<2x16x128x128xf32>, tensor<8x16x3x3xf32>, tensor<8xf32>) -> tensor<2x8x128x128xf32>
  %1 = sc.conv %y, %w2 {padding = array<i64: 1, 0>, stride = array<i64: 2, 1>} : (tensor<1x3x64x48xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x32x46xf32>
  %2 = sc.conv %z, %w3 : (tensor<2x64x7x7xf32>, tensor<32x64x1x1xf32>) -> tensor<2x32x7x7xf32>
  %3 = sc.conv %y, %w4 {padding = array<i64: 3, 3>, stride = array<i64: 2, 2>} : (tensor<1x3x64x48xf32>, tensor<8x3x7x7xf32>) -> tensor<1x8x32x24xf32>
  return
}

// -----

// conv 2-D with 2S padding values [lo0, hi0, lo1, hi1].
// CHECK-LABEL: func.func @conv2d_asymmetric_padding
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 0, 1, 2, 0>} : (tensor<1x3x10x12xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x9x12xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>} : (tensor<1x1x7x7xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 1, 2, 2, 1>} : (tensor<1x1x7x7xf32>, tensor<2x1x4x4xf32>) -> tensor<1x2x7x7xf32>
func.func @conv2d_asymmetric_padding(%x: tensor<1x3x10x12xf32>, %w: tensor<4x3x3x3xf32>, %y: tensor<1x1x7x7xf32>, %w2: tensor<1x1x2x2xf32>, %w3: tensor<2x1x4x4xf32>) {
  %0 = sc.conv %x, %w {padding = array<i64: 0, 1, 2, 0>} : (tensor<1x3x10x12xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x9x12xf32>
  %1 = sc.conv %y, %w2 {padding = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>} : (tensor<1x1x7x7xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  %2 = sc.conv %y, %w3 {padding = array<i64: 1, 2, 2, 1>} : (tensor<1x1x7x7xf32>, tensor<2x1x4x4xf32>) -> tensor<1x2x7x7xf32>
  return
}

// -----

// conv 2-D with dilation, with and without padding.
// CHECK-LABEL: func.func @conv2d_dilation
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {dilation = array<i64: 2, 3>} : (tensor<1x2x32x32xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x28x26xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {dilation = array<i64: 2, 3>, padding = array<i64: 2, 3>} : (tensor<1x2x32x32xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x32x32xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {dilation = array<i64: 2, 2>, padding = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<1x2x32x32xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x16x16xf32>
func.func @conv2d_dilation(%x: tensor<1x2x32x32xf32>, %w: tensor<4x2x3x3xf32>) {
  %0 = sc.conv %x, %w {dilation = array<i64: 2, 3>} : (tensor<1x2x32x32xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x28x26xf32>
  %1 = sc.conv %x, %w {dilation = array<i64: 2, 3>, padding = array<i64: 2, 3>} : (tensor<1x2x32x32xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x32x32xf32>
  %2 = sc.conv %x, %w {dilation = array<i64: 2, 2>, padding = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<1x2x32x32xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x16x16xf32>
  return
}

// -----

// conv 2-D grouped, depthwise, depthwise with channel multiplier.
// CHECK-LABEL: func.func @conv2d_groups
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {groups = 2 : i64, padding = array<i64: 1, 1>} : (tensor<2x8x16x16xf32>, tensor<12x4x3x3xf32>) -> tensor<2x12x16x16xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {groups = 8 : i64, padding = array<i64: 1, 1>} : (tensor<2x8x16x16xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<2x8x16x16xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {groups = 8 : i64, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x8x16x16xf32>, tensor<16x1x3x3xf32>) -> tensor<2x16x8x8xf32>
func.func @conv2d_groups(%x: tensor<2x8x16x16xf32>, %w: tensor<12x4x3x3xf32>, %w2: tensor<8x1x3x3xf32>, %b2: tensor<8xf32>, %w3: tensor<16x1x3x3xf32>) {
  %0 = sc.conv %x, %w {groups = 2, padding = array<i64: 1, 1>} : (tensor<2x8x16x16xf32>, tensor<12x4x3x3xf32>) -> tensor<2x12x16x16xf32>
  %1 = sc.conv %x, %w2, %b2 {groups = 8, padding = array<i64: 1, 1>} : (tensor<2x8x16x16xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<2x8x16x16xf32>
  %2 = sc.conv %x, %w3 {groups = 8, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x8x16x16xf32>, tensor<16x1x3x3xf32>) -> tensor<2x16x8x8xf32>
  return
}

// -----

// groups = 1 written explicitly (may be elided when printed).
// CHECK-LABEL: func.func @conv2d_groups_default
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {{[{]}}{{(groups = 1 : i64, )?}}padding = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
func.func @conv2d_groups_default(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %0 = sc.conv %x, %w {groups = 1, padding = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

// Every padding_mode ("zeros" is the default and may be elided when printed).
// CHECK-LABEL: func.func @conv2d_padding_modes
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {{[{]}}padding = array<i64: 1, 1>{{(, padding_mode = "zeros")?}}} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 1, 1>, padding_mode = "reflect"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 1, 1>, padding_mode = "replicate"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 1, 1>, padding_mode = "circular"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 1, 0, 0, 1>, padding_mode = "reflect"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x7x7xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 2, 2>, padding_mode = "circular", stride = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32>
func.func @conv2d_padding_modes(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %0 = sc.conv %x, %w {padding = array<i64: 1, 1>, padding_mode = "zeros"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = sc.conv %x, %w {padding = array<i64: 1, 1>, padding_mode = "reflect"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %2 = sc.conv %x, %w {padding = array<i64: 1, 1>, padding_mode = "replicate"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %3 = sc.conv %x, %w {padding = array<i64: 1, 1>, padding_mode = "circular"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %4 = sc.conv %x, %w {padding = array<i64: 1, 0, 0, 1>, padding_mode = "reflect"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x7x7xf32>
  %5 = sc.conv %x, %w {padding = array<i64: 2, 2>, padding_mode = "circular", stride = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32>
  return
}

// -----

// padding_mode on 1-D convs.
// CHECK-LABEL: func.func @conv1d_padding_modes
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 2>, padding_mode = "circular"} : (tensor<1x2x16xf32>, tensor<2x2x5xf32>) -> tensor<1x2x16xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 2>, padding_mode = "reflect"} : (tensor<1x2x16xf32>, tensor<2x2x5xf32>) -> tensor<1x2x16xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 4>, padding_mode = "replicate"} : (tensor<1x2x16xf32>, tensor<2x2x5xf32>) -> tensor<1x2x20xf32>
func.func @conv1d_padding_modes(%x: tensor<1x2x16xf32>, %w: tensor<2x2x5xf32>) {
  %0 = sc.conv %x, %w {padding = array<i64: 2>, padding_mode = "circular"} : (tensor<1x2x16xf32>, tensor<2x2x5xf32>) -> tensor<1x2x16xf32>
  %1 = sc.conv %x, %w {padding = array<i64: 2>, padding_mode = "reflect"} : (tensor<1x2x16xf32>, tensor<2x2x5xf32>) -> tensor<1x2x16xf32>
  %2 = sc.conv %x, %w {padding = array<i64: 4>, padding_mode = "replicate"} : (tensor<1x2x16xf32>, tensor<2x2x5xf32>) -> tensor<1x2x20xf32>
  return
}

// -----

// Every conv attribute at once: (20+4-4-1)/2+1 = 10, (20+2-2-1)/3+1 = 7.
// CHECK-LABEL: func.func @conv2d_all_attrs
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {dilation = array<i64: 2, 1>, groups = 2 : i64, padding = array<i64: 2, 1>, padding_mode = "circular", stride = array<i64: 2, 3>} : (tensor<2x8x20x20xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<2x6x10x7xf32>
func.func @conv2d_all_attrs(%x: tensor<2x8x20x20xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<6xf32>) {
  %0 = sc.conv %x, %w, %b {dilation = array<i64: 2, 1>, groups = 2, padding = array<i64: 2, 1>, padding_mode = "circular", stride = array<i64: 2, 3>} : (tensor<2x8x20x20xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<2x6x10x7xf32>
  return
}

// -----

// conv 3-D: bias + stride + padding, dilation, groups, asymmetric padding, replicate.
// CHECK-LABEL: func.func @conv3d
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 1, 1, 1>, stride = array<i64: 1, 2, 2>} : (tensor<1x2x8x16x16xf32>, tensor<4x2x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8x8xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {dilation = array<i64: 2, 2, 2>} : (tensor<1x1x9x9x9xf32>, tensor<1x1x3x3x3xf32>) -> tensor<1x1x5x5x5xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {groups = 2 : i64} : (tensor<1x4x6x6x6xf32>, tensor<8x2x3x3x3xf32>) -> tensor<1x8x4x4x4xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 1, 0, 0, 1, 1, 1>} : (tensor<1x1x4x4x4xf32>, tensor<1x1x2x2x2xf32>) -> tensor<1x1x4x4x5xf32>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 1, 1, 1>, padding_mode = "replicate"} : (tensor<1x2x8x16x16xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x4x8x16x16xf32>
func.func @conv3d(%x: tensor<1x2x8x16x16xf32>, %w: tensor<4x2x3x3x3xf32>, %b: tensor<4xf32>, %y: tensor<1x1x9x9x9xf32>, %w2: tensor<1x1x3x3x3xf32>, %z: tensor<1x4x6x6x6xf32>, %w3: tensor<8x2x3x3x3xf32>, %u: tensor<1x1x4x4x4xf32>, %w4: tensor<1x1x2x2x2xf32>) {
  %0 = sc.conv %x, %w, %b {padding = array<i64: 1, 1, 1>, stride = array<i64: 1, 2, 2>} : (tensor<1x2x8x16x16xf32>, tensor<4x2x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8x8xf32>
  %1 = sc.conv %y, %w2 {dilation = array<i64: 2, 2, 2>} : (tensor<1x1x9x9x9xf32>, tensor<1x1x3x3x3xf32>) -> tensor<1x1x5x5x5xf32>
  %2 = sc.conv %z, %w3 {groups = 2} : (tensor<1x4x6x6x6xf32>, tensor<8x2x3x3x3xf32>) -> tensor<1x8x4x4x4xf32>
  %3 = sc.conv %u, %w4 {padding = array<i64: 1, 0, 0, 1, 1, 1>} : (tensor<1x1x4x4x4xf32>, tensor<1x1x2x2x2xf32>) -> tensor<1x1x4x4x5xf32>
  %4 = sc.conv %x, %w {padding = array<i64: 1, 1, 1>, padding_mode = "replicate"} : (tensor<1x2x8x16x16xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x4x8x16x16xf32>
  return
}

// -----

// f16 and bf16 convs.
// CHECK-LABEL: func.func @conv_half
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 1, 1>} : (tensor<1x3x32x32xf16>, tensor<8x3x3x3xf16>, tensor<8xf16>) -> tensor<1x8x32x32xf16>
// CHECK: sc.conv %{{[^ ]*}}, %{{[^ ]*}} {stride = array<i64: 2, 2>} : (tensor<1x3x32x32xbf16>, tensor<8x3x3x3xbf16>) -> tensor<1x8x15x15xbf16>
func.func @conv_half(%x: tensor<1x3x32x32xf16>, %w: tensor<8x3x3x3xf16>, %b: tensor<8xf16>, %y: tensor<1x3x32x32xbf16>, %w2: tensor<8x3x3x3xbf16>) {
  %0 = sc.conv %x, %w, %b {padding = array<i64: 1, 1>} : (tensor<1x3x32x32xf16>, tensor<8x3x3x3xf16>, tensor<8xf16>) -> tensor<1x8x32x32xf16>
  %1 = sc.conv %y, %w2 {stride = array<i64: 2, 2>} : (tensor<1x3x32x32xbf16>, tensor<8x3x3x3xbf16>) -> tensor<1x8x15x15xbf16>
  return
}

// -----

// conv_transpose 1-D: no attributes; bias + stride + padding: 15*2-2+3+1 = 32;
// 2S (asymmetric) padding with output_padding: 9*2-1-0+2+1+1 = 21.
// CHECK-LABEL: func.func @conv_transpose1d
// CHECK: sc.conv_transpose %{{[^ ]*}}, %{{[^ ]*}} : (tensor<1x2x10xf32>, tensor<2x3x3xf32>) -> tensor<1x3x12xf32>
// CHECK: sc.conv_transpose %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<2x8x16xf32>, tensor<8x4x4xf32>, tensor<4xf32>) -> tensor<2x4x32xf32>
// CHECK: sc.conv_transpose %{{[^ ]*}}, %{{[^ ]*}} {output_padding = array<i64: 1>, padding = array<i64: 1, 0>, stride = array<i64: 2>} : (tensor<1x2x10xf32>, tensor<2x3x3xf32>) -> tensor<1x3x21xf32>
func.func @conv_transpose1d(%x: tensor<1x2x10xf32>, %w: tensor<2x3x3xf32>, %y: tensor<2x8x16xf32>, %w2: tensor<8x4x4xf32>, %b2: tensor<4xf32>) {
  %0 = sc.conv_transpose %x, %w : (tensor<1x2x10xf32>, tensor<2x3x3xf32>) -> tensor<1x3x12xf32>
  %1 = sc.conv_transpose %y, %w2, %b2 {padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<2x8x16xf32>, tensor<8x4x4xf32>, tensor<4xf32>) -> tensor<2x4x32xf32>
  %2 = sc.conv_transpose %x, %w {output_padding = array<i64: 1>, padding = array<i64: 1, 0>, stride = array<i64: 2>} : (tensor<1x2x10xf32>, tensor<2x3x3xf32>) -> tensor<1x3x21xf32>
  return
}

// -----

// conv_transpose 2-D: output_padding (7*2-2+2+1+1 = 16), groups, groups +
// output_padding + bias, dilation.
// CHECK-LABEL: func.func @conv_transpose2d
// CHECK: sc.conv_transpose %{{[^ ]*}}, %{{[^ ]*}} {output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>, tensor<16x8x3x3xf32>) -> tensor<1x8x16x16xf32>
// CHECK: sc.conv_transpose %{{[^ ]*}}, %{{[^ ]*}} {groups = 2 : i64} : (tensor<1x8x5x5xf32>, tensor<8x3x3x3xf32>) -> tensor<1x6x7x7xf32>
// CHECK: sc.conv_transpose %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {groups = 2 : i64, output_padding = array<i64: 1, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x4x6x6xf32>, tensor<4x2x4x4xf32>, tensor<4xf32>) -> tensor<2x4x13x12xf32>
// CHECK: sc.conv_transpose %{{[^ ]*}}, %{{[^ ]*}} {dilation = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x9x9xf32>
func.func @conv_transpose2d(%x: tensor<1x16x8x8xf32>, %w: tensor<16x8x3x3xf32>, %y: tensor<1x8x5x5xf32>, %w2: tensor<8x3x3x3xf32>, %z: tensor<2x4x6x6xf32>, %w3: tensor<4x2x4x4xf32>, %b3: tensor<4xf32>, %u: tensor<1x2x5x5xf32>, %w4: tensor<2x2x3x3xf32>) {
  %0 = sc.conv_transpose %x, %w {output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>, tensor<16x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %1 = sc.conv_transpose %y, %w2 {groups = 2} : (tensor<1x8x5x5xf32>, tensor<8x3x3x3xf32>) -> tensor<1x6x7x7xf32>
  %2 = sc.conv_transpose %z, %w3, %b3 {groups = 2, output_padding = array<i64: 1, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x4x6x6xf32>, tensor<4x2x4x4xf32>, tensor<4xf32>) -> tensor<2x4x13x12xf32>
  %3 = sc.conv_transpose %u, %w4 {dilation = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x9x9xf32>
  return
}

// -----

// conv_transpose 3-D: per-dim output_padding, groups + output_padding.
// CHECK-LABEL: func.func @conv_transpose3d
// CHECK: sc.conv_transpose %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {output_padding = array<i64: 1, 0, 1>, padding = array<i64: 1, 1, 1>, stride = array<i64: 2, 2, 2>} : (tensor<1x4x3x4x5xf32>, tensor<4x2x3x3x3xf32>, tensor<2xf32>) -> tensor<1x2x6x7x10xf32>
// CHECK: sc.conv_transpose %{{[^ ]*}}, %{{[^ ]*}} {groups = 3 : i64, output_padding = array<i64: 1, 1, 1>, stride = array<i64: 3, 3, 3>} : (tensor<1x6x4x4x4xf32>, tensor<6x1x2x2x2xf32>) -> tensor<1x3x12x12x12xf32>
func.func @conv_transpose3d(%x: tensor<1x4x3x4x5xf32>, %w: tensor<4x2x3x3x3xf32>, %b: tensor<2xf32>, %y: tensor<1x6x4x4x4xf32>, %w2: tensor<6x1x2x2x2xf32>) {
  %0 = sc.conv_transpose %x, %w, %b {output_padding = array<i64: 1, 0, 1>, padding = array<i64: 1, 1, 1>, stride = array<i64: 2, 2, 2>} : (tensor<1x4x3x4x5xf32>, tensor<4x2x3x3x3xf32>, tensor<2xf32>) -> tensor<1x2x6x7x10xf32>
  %1 = sc.conv_transpose %y, %w2 {groups = 3, output_padding = array<i64: 1, 1, 1>, stride = array<i64: 3, 3, 3>} : (tensor<1x6x4x4x4xf32>, tensor<6x1x2x2x2xf32>) -> tensor<1x3x12x12x12xf32>
  return
}

// -----

// conv_transpose in bf16.
// CHECK-LABEL: func.func @conv_transpose_half
// CHECK: sc.conv_transpose %{{[^ ]*}}, %{{[^ ]*}} {stride = array<i64: 2, 2>} : (tensor<1x8x16x16xbf16>, tensor<8x4x2x2xbf16>) -> tensor<1x4x32x32xbf16>
func.func @conv_transpose_half(%x: tensor<1x8x16x16xbf16>, %w: tensor<8x4x2x2xbf16>) {
  %0 = sc.conv_transpose %x, %w {stride = array<i64: 2, 2>} : (tensor<1x8x16x16xbf16>, tensor<8x4x2x2xbf16>) -> tensor<1x4x32x32xbf16>
  return
}
