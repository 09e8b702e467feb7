// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// The DFT ops on view_as_real tensors: sc.fft, sc.ifft, sc.rfft, sc.irfft,
// with torch.fft's shapes: dims default to the last, sizes trim or pad,
// rfft halves the last listed dim and irfft restores 2 * (m - 1) or its size.

// CHECK-LABEL: func.func @complex
// CHECK: sc.fft %{{.*}} : (tensor<4x6x2xf32>) -> tensor<4x6x2xf32>
// CHECK: sc.fft %{{.*}} {dims = array<i64: 0, -1>, norm = "ortho"} : (tensor<4x6x2xf32>) -> tensor<4x6x2xf32>
// CHECK: sc.ifft %{{.*}} {dims = array<i64: 0>, norm = "forward", sizes = array<i64: 9>} : (tensor<4x6x2xf32>) -> tensor<9x6x2xf32>
// CHECK: sc.ifft %{{.*}} {sizes = array<i64: 1>} : (tensor<4x6x2xf32>) -> tensor<4x1x2xf32>
func.func @complex(%z: tensor<4x6x2xf32>) {
  %0 = sc.fft %z : (tensor<4x6x2xf32>) -> tensor<4x6x2xf32>
  %1 = sc.fft %z {dims = array<i64: 0, -1>, norm = "ortho"} : (tensor<4x6x2xf32>) -> tensor<4x6x2xf32>
  %2 = sc.ifft %z {dims = array<i64: 0>, sizes = array<i64: 9>, norm = "forward"} : (tensor<4x6x2xf32>) -> tensor<9x6x2xf32>
  %3 = sc.ifft %z {sizes = array<i64: 1>, norm = "backward"} : (tensor<4x6x2xf32>) -> tensor<4x1x2xf32>
  return
}

// -----

// CHECK-LABEL: func.func @real
// CHECK: sc.rfft %{{.*}} : (tensor<2x3x8x7xf32>) -> tensor<2x3x8x4x2xf32>
// CHECK: sc.rfft %{{.*}} {dims = array<i64: 3, 2>} : (tensor<2x3x8x7xf32>) -> tensor<2x3x5x7x2xf32>
// CHECK: sc.rfft %{{.*}} {dims = array<i64: 1>, sizes = array<i64: 10>} : (tensor<2x3x8x7xf32>) -> tensor<2x6x8x7x2xf32>
// CHECK: sc.irfft %{{.*}} : (tensor<2x3x8x4x2xf32>) -> tensor<2x3x8x6xf32>
// CHECK: sc.irfft %{{.*}} {dims = array<i64: 2, 3>, sizes = array<i64: 8, 7>} : (tensor<2x3x8x4x2xf32>) -> tensor<2x3x8x7xf32>
// CHECK: sc.irfft %{{.*}} {dims = array<i64: 0>} : (tensor<5x2xf64>) -> tensor<8xf64>
func.func @real(%x: tensor<2x3x8x7xf32>, %s: tensor<2x3x8x4x2xf32>, %v: tensor<5x2xf64>) {
  %0 = sc.rfft %x : (tensor<2x3x8x7xf32>) -> tensor<2x3x8x4x2xf32>
  %1 = sc.rfft %x {dims = array<i64: 3, 2>} : (tensor<2x3x8x7xf32>) -> tensor<2x3x5x7x2xf32>
  %2 = sc.rfft %x {dims = array<i64: 1>, sizes = array<i64: 10>} : (tensor<2x3x8x7xf32>) -> tensor<2x6x8x7x2xf32>
  %3 = sc.irfft %s : (tensor<2x3x8x4x2xf32>) -> tensor<2x3x8x6xf32>
  %4 = sc.irfft %s {dims = array<i64: 2, 3>, sizes = array<i64: 8, 7>} : (tensor<2x3x8x4x2xf32>) -> tensor<2x3x8x7xf32>
  %5 = sc.irfft %v {dims = array<i64: 0>} : (tensor<5x2xf64>) -> tensor<8xf64>
  return
}
