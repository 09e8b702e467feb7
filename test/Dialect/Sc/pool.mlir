// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// sc.max_pool / sc.avg_pool: 1/2/3-D, stride (default = kernel_size), symmetric
// and 2S padding, ceil_mode, count_include_pad, divisor_override, dilation (max).
// out = floor_or_ceil((n + pad_lo + pad_hi - d*(k-1) - 1) / s) + 1, and with
// ceil_mode the last window must start inside the input or the left padding.

// max_pool 1-D: default stride = kernel; stride 1 with padding.
// CHECK-LABEL: func.func @max_pool1d
// CHECK: sc.max_pool %{{[^ ]*}} {kernel_size = array<i64: 2>} : (tensor<2x4x16xf32>) -> tensor<2x4x8xf32>
// CHECK: sc.max_pool %{{[^ ]*}} {kernel_size = array<i64: 3>, padding = array<i64: 1>, stride = array<i64: 1>} : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
// CHECK: sc.max_pool %{{[^ ]*}} {kernel_size = array<i64: 3>, stride = array<i64: 2>} : (tensor<2x4x16xf32>) -> tensor<2x4x7xf32>
func.func @max_pool1d(%x: tensor<2x4x16xf32>) {
  %0 = sc.max_pool %x {kernel_size = array<i64: 2>} : (tensor<2x4x16xf32>) -> tensor<2x4x8xf32>
  %1 = sc.max_pool %x {kernel_size = array<i64: 3>, padding = array<i64: 1>, stride = array<i64: 1>} : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %2 = sc.max_pool %x {kernel_size = array<i64: 3>, stride = array<i64: 2>} : (tensor<2x4x16xf32>) -> tensor<2x4x7xf32>
  return
}

// -----

// max_pool 2-D: (32+2-2-1)/2+1 = 16; non-square kernel and stride.
// CHECK-LABEL: func.func @max_pool2d
// CHECK: sc.max_pool %{{[^ ]*}} {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x16x16xf32>
// CHECK: sc.max_pool %{{[^ ]*}} {kernel_size = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x16x16xf32>
// CHECK: sc.max_pool %{{[^ ]*}} {kernel_size = array<i64: 3, 2>, padding = array<i64: 1, 0>, stride = array<i64: 3, 1>} : (tensor<2x8x12x10xf32>) -> tensor<2x8x4x9xf32>
func.func @max_pool2d(%x: tensor<1x3x32x32xf32>, %y: tensor<2x8x12x10xf32>) {
  %0 = sc.max_pool %x {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x16x16xf32>
  %1 = sc.max_pool %x {kernel_size = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x16x16xf32>
  %2 = sc.max_pool %y {kernel_size = array<i64: 3, 2>, padding = array<i64: 1, 0>, stride = array<i64: 3, 1>} : (tensor<2x8x12x10xf32>) -> tensor<2x8x4x9xf32>
  return
}

// -----

// max_pool 3-D.
// CHECK-LABEL: func.func @max_pool3d
// CHECK: sc.max_pool %{{[^ ]*}} {kernel_size = array<i64: 2, 2, 2>} : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x4x4x4xf32>
// CHECK: sc.max_pool %{{[^ ]*}} {kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>, stride = array<i64: 2, 2, 2>} : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x4x4x4xf32>
// CHECK: sc.max_pool %{{[^ ]*}} {kernel_size = array<i64: 1, 2, 2>} : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x8x4x4xf32>
func.func @max_pool3d(%x: tensor<1x2x8x8x8xf32>) {
  %0 = sc.max_pool %x {kernel_size = array<i64: 2, 2, 2>} : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x4x4x4xf32>
  %1 = sc.max_pool %x {kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>, stride = array<i64: 2, 2, 2>} : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x4x4x4xf32>
  %2 = sc.max_pool %x {kernel_size = array<i64: 1, 2, 2>} : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x8x4x4xf32>
  return
}

// -----

// max_pool with dilation: 16 - 2*2 - 1 + 1 = 12; padding at most half the
// kernel size (PyTorch checks kernel/2, not the dilated extent): 16 + 2 - 4 = 14.
// CHECK-LABEL: func.func @max_pool_dilation
// CHECK: sc.max_pool %{{[^ ]*}} {dilation = array<i64: 2, 2>, kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>} : (tensor<1x1x16x16xf32>) -> tensor<1x1x12x12xf32>
// CHECK: sc.max_pool %{{[^ ]*}} {dilation = array<i64: 2, 2>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x1x16x16xf32>) -> tensor<1x1x14x14xf32>
// CHECK: sc.max_pool %{{[^ ]*}} {dilation = array<i64: 3>, kernel_size = array<i64: 2>, stride = array<i64: 2>} : (tensor<1x2x20xf32>) -> tensor<1x2x9xf32>
// CHECK: sc.max_pool %{{[^ ]*}} {dilation = array<i64: 1, 2, 3>, kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 1, 1, 1>} : (tensor<1x1x9x9x9xf32>) -> tensor<1x1x8x7x6xf32>
func.func @max_pool_dilation(%x: tensor<1x1x16x16xf32>, %y: tensor<1x2x20xf32>, %z: tensor<1x1x9x9x9xf32>) {
  %0 = sc.max_pool %x {dilation = array<i64: 2, 2>, kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>} : (tensor<1x1x16x16xf32>) -> tensor<1x1x12x12xf32>
  %1 = sc.max_pool %x {dilation = array<i64: 2, 2>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x1x16x16xf32>) -> tensor<1x1x14x14xf32>
  %2 = sc.max_pool %y {dilation = array<i64: 3>, kernel_size = array<i64: 2>, stride = array<i64: 2>} : (tensor<1x2x20xf32>) -> tensor<1x2x9xf32>
  %3 = sc.max_pool %z {dilation = array<i64: 1, 2, 3>, kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 1, 1, 1>} : (tensor<1x1x9x9x9xf32>) -> tensor<1x1x8x7x6xf32>
  return
}

// -----

// ceil_mode: 5x5, k2 s2 gives 3 (floor would give 2); ceil_mode = false
// explicit (may be elided when printed); 1-D n5 k2 s3 p1: ceil gives 3 but the
// last window would start in the right padding ((3-1)*3 >= 5+1), so 2.
// CHECK-LABEL: func.func @max_pool_ceil_mode
// CHECK: sc.max_pool %{{[^ ]*}} {ceil_mode = true, kernel_size = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
// CHECK: sc.max_pool %{{[^ ]*}} {{[{]}}{{(ceil_mode = false, )?}}kernel_size = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x2x2xf32>
// CHECK: sc.max_pool %{{[^ ]*}} {ceil_mode = true, kernel_size = array<i64: 2>, padding = array<i64: 1>, stride = array<i64: 3>} : (tensor<1x1x5xf32>) -> tensor<1x1x2xf32>
// CHECK: sc.max_pool %{{[^ ]*}} {ceil_mode = true, kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 2, 2>} : (tensor<1x2x10x10x10xf32>) -> tensor<1x2x5x5x5xf32>
func.func @max_pool_ceil_mode(%x: tensor<1x1x5x5xf32>, %y: tensor<1x1x5xf32>, %z: tensor<1x2x10x10x10xf32>) {
  %0 = sc.max_pool %x {ceil_mode = true, kernel_size = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  %1 = sc.max_pool %x {ceil_mode = false, kernel_size = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x2x2xf32>
  %2 = sc.max_pool %y {ceil_mode = true, kernel_size = array<i64: 2>, padding = array<i64: 1>, stride = array<i64: 3>} : (tensor<1x1x5xf32>) -> tensor<1x1x2xf32>
  %3 = sc.max_pool %z {ceil_mode = true, kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 2, 2>} : (tensor<1x2x10x10x10xf32>) -> tensor<1x2x5x5x5xf32>
  return
}

// -----

// max_pool with 2S padding values [lo0, hi0, lo1, hi1].
// CHECK-LABEL: func.func @max_pool_asymmetric_padding
// CHECK: sc.max_pool %{{[^ ]*}} {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>} : (tensor<1x1x7x7xf32>) -> tensor<1x1x4x4xf32>
// CHECK: sc.max_pool %{{[^ ]*}} {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 0, 0, 1>, stride = array<i64: 1, 1>} : (tensor<1x1x7x7xf32>) -> tensor<1x1x6x6xf32>
func.func @max_pool_asymmetric_padding(%x: tensor<1x1x7x7xf32>) {
  %0 = sc.max_pool %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>} : (tensor<1x1x7x7xf32>) -> tensor<1x1x4x4xf32>
  %1 = sc.max_pool %x {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 0, 0, 1>, stride = array<i64: 1, 1>} : (tensor<1x1x7x7xf32>) -> tensor<1x1x6x6xf32>
  return
}

// -----

// avg_pool 1-D: (16+4-3-1)/2+1 = 9.
// CHECK-LABEL: func.func @avg_pool1d
// CHECK: sc.avg_pool %{{[^ ]*}} {kernel_size = array<i64: 4>, padding = array<i64: 2>, stride = array<i64: 2>} : (tensor<2x4x16xf32>) -> tensor<2x4x9xf32>
// CHECK: sc.avg_pool %{{[^ ]*}} {kernel_size = array<i64: 4>} : (tensor<2x4x16xf32>) -> tensor<2x4x4xf32>
func.func @avg_pool1d(%x: tensor<2x4x16xf32>) {
  %0 = sc.avg_pool %x {kernel_size = array<i64: 4>, padding = array<i64: 2>, stride = array<i64: 2>} : (tensor<2x4x16xf32>) -> tensor<2x4x9xf32>
  %1 = sc.avg_pool %x {kernel_size = array<i64: 4>} : (tensor<2x4x16xf32>) -> tensor<2x4x4xf32>
  return
}

// -----

// avg_pool 2-D: default stride, count_include_pad = false, divisor_override,
// ceil_mode, count_include_pad = true explicit (may be elided when printed).
// CHECK-LABEL: func.func @avg_pool2d
// CHECK: sc.avg_pool %{{[^ ]*}} {kernel_size = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
// CHECK: sc.avg_pool %{{[^ ]*}} {count_include_pad = false, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
// CHECK: sc.avg_pool %{{[^ ]*}} {divisor_override = 4 : i64, kernel_size = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
// CHECK: sc.avg_pool %{{[^ ]*}} {ceil_mode = true, kernel_size = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
// CHECK: sc.avg_pool %{{[^ ]*}} {{[{]}}{{(count_include_pad = true, )?}}kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
func.func @avg_pool2d(%x: tensor<1x3x8x8xf32>, %y: tensor<1x3x7x7xf32>) {
  %0 = sc.avg_pool %x {kernel_size = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  %1 = sc.avg_pool %x {count_include_pad = false, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %2 = sc.avg_pool %x {divisor_override = 4, kernel_size = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  %3 = sc.avg_pool %y {ceil_mode = true, kernel_size = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  %4 = sc.avg_pool %x {count_include_pad = true, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

// avg_pool 3-D, including every attribute at once.
// CHECK-LABEL: func.func @avg_pool3d
// CHECK: sc.avg_pool %{{[^ ]*}} {kernel_size = array<i64: 2, 2, 2>} : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x4x4x4xf32>
// CHECK: sc.avg_pool %{{[^ ]*}} {ceil_mode = true, count_include_pad = false, divisor_override = 27 : i64, kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>, stride = array<i64: 2, 2, 2>} : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x5x5x5xf32>
func.func @avg_pool3d(%x: tensor<1x2x8x8x8xf32>) {
  %0 = sc.avg_pool %x {kernel_size = array<i64: 2, 2, 2>} : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x4x4x4xf32>
  %1 = sc.avg_pool %x {ceil_mode = true, count_include_pad = false, divisor_override = 27, kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>, stride = array<i64: 2, 2, 2>} : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x5x5x5xf32>
  return
}

// -----

// avg_pool with 2S padding values.
// CHECK-LABEL: func.func @avg_pool_asymmetric_padding
// CHECK: sc.avg_pool %{{[^ ]*}} {kernel_size = array<i64: 2, 2>, padding = array<i64: 1, 0, 0, 1>, stride = array<i64: 2, 2>} : (tensor<1x1x6x6xf32>) -> tensor<1x1x3x3xf32>
func.func @avg_pool_asymmetric_padding(%x: tensor<1x1x6x6xf32>) {
  %0 = sc.avg_pool %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 1, 0, 0, 1>, stride = array<i64: 2, 2>} : (tensor<1x1x6x6xf32>) -> tensor<1x1x3x3xf32>
  return
}

// -----

// Pooling in f16 and bf16.
// CHECK-LABEL: func.func @pool_half
// CHECK: sc.max_pool %{{[^ ]*}} {kernel_size = array<i64: 2, 2>} : (tensor<2x16x32x32xf16>) -> tensor<2x16x16x16xf16>
// CHECK: sc.avg_pool %{{[^ ]*}} {kernel_size = array<i64: 4, 4>} : (tensor<2x16x32x32xbf16>) -> tensor<2x16x8x8xbf16>
func.func @pool_half(%x: tensor<2x16x32x32xf16>, %y: tensor<2x16x32x32xbf16>) {
  %0 = sc.max_pool %x {kernel_size = array<i64: 2, 2>} : (tensor<2x16x32x32xf16>) -> tensor<2x16x16x16xf16>
  %1 = sc.avg_pool %y {kernel_size = array<i64: 4, 4>} : (tensor<2x16x32x32xbf16>) -> tensor<2x16x8x8xbf16>
  return
}
