// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// Reductions sc.sum / sc.mean / sc.amax / sc.amin (dims absent = all dims,
// keepdim, negative dims) and sc.softmax / sc.log_softmax.

// sc.sum: all dims (rank-0 result), all dims with keepdim, one dim, one negative
// dim with keepdim, several dims mixing signs.
// CHECK-LABEL: func.func @sum_dims
// CHECK: sc.sum %{{[^ ]*}} : (tensor<2x3x4xf32>) -> tensor<f32>
// CHECK: sc.sum %{{[^ ]*}} {keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
// CHECK: sc.sum %{{[^ ]*}} {dims = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK: sc.sum %{{[^ ]*}} {dims = array<i64: -1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// CHECK: sc.sum %{{[^ ]*}} {dims = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
// CHECK: sc.sum %{{[^ ]*}} {dims = array<i64: 0, 2>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
func.func @sum_dims(%x: tensor<2x3x4xf32>) {
  %0 = sc.sum %x : (tensor<2x3x4xf32>) -> tensor<f32>
  %1 = sc.sum %x {keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %2 = sc.sum %x {dims = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %3 = sc.sum %x {dims = array<i64: -1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %4 = sc.sum %x {dims = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %5 = sc.sum %x {dims = array<i64: 0, 2>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  return
}

// -----

// sc.mean: all dims (rank-0 result), all dims with keepdim, one dim, one negative
// dim with keepdim, several dims mixing signs.
// CHECK-LABEL: func.func @mean_dims
// CHECK: sc.mean %{{[^ ]*}} : (tensor<2x3x4xf32>) -> tensor<f32>
// CHECK: sc.mean %{{[^ ]*}} {keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
// CHECK: sc.mean %{{[^ ]*}} {dims = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK: sc.mean %{{[^ ]*}} {dims = array<i64: -1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// CHECK: sc.mean %{{[^ ]*}} {dims = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
// CHECK: sc.mean %{{[^ ]*}} {dims = array<i64: 0, 2>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
func.func @mean_dims(%x: tensor<2x3x4xf32>) {
  %0 = sc.mean %x : (tensor<2x3x4xf32>) -> tensor<f32>
  %1 = sc.mean %x {keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %2 = sc.mean %x {dims = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %3 = sc.mean %x {dims = array<i64: -1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %4 = sc.mean %x {dims = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %5 = sc.mean %x {dims = array<i64: 0, 2>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  return
}

// -----

// sc.amax: all dims (rank-0 result), all dims with keepdim, one dim, one negative
// dim with keepdim, several dims mixing signs.
// CHECK-LABEL: func.func @amax_dims
// CHECK: sc.amax %{{[^ ]*}} : (tensor<2x3x4xf32>) -> tensor<f32>
// CHECK: sc.amax %{{[^ ]*}} {keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
// CHECK: sc.amax %{{[^ ]*}} {dims = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK: sc.amax %{{[^ ]*}} {dims = array<i64: -1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// CHECK: sc.amax %{{[^ ]*}} {dims = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
// CHECK: sc.amax %{{[^ ]*}} {dims = array<i64: 0, 2>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
func.func @amax_dims(%x: tensor<2x3x4xf32>) {
  %0 = sc.amax %x : (tensor<2x3x4xf32>) -> tensor<f32>
  %1 = sc.amax %x {keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %2 = sc.amax %x {dims = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %3 = sc.amax %x {dims = array<i64: -1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %4 = sc.amax %x {dims = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %5 = sc.amax %x {dims = array<i64: 0, 2>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  return
}

// -----

// sc.amin: all dims (rank-0 result), all dims with keepdim, one dim, one negative
// dim with keepdim, several dims mixing signs.
// CHECK-LABEL: func.func @amin_dims
// CHECK: sc.amin %{{[^ ]*}} : (tensor<2x3x4xf32>) -> tensor<f32>
// CHECK: sc.amin %{{[^ ]*}} {keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
// CHECK: sc.amin %{{[^ ]*}} {dims = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK: sc.amin %{{[^ ]*}} {dims = array<i64: -1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// CHECK: sc.amin %{{[^ ]*}} {dims = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
// CHECK: sc.amin %{{[^ ]*}} {dims = array<i64: 0, 2>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
func.func @amin_dims(%x: tensor<2x3x4xf32>) {
  %0 = sc.amin %x : (tensor<2x3x4xf32>) -> tensor<f32>
  %1 = sc.amin %x {keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %2 = sc.amin %x {dims = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %3 = sc.amin %x {dims = array<i64: -1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %4 = sc.amin %x {dims = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %5 = sc.amin %x {dims = array<i64: 0, 2>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  return
}

// -----

// More reductions: 4-D spatial mean (global average pool), keepdim = false
// explicit (may be elided when printed), rank-1 input, half types.
// CHECK-LABEL: func.func @reduce_more
// CHECK: sc.mean %{{[^ ]*}} {dims = array<i64: -2, -1>, keepdim = true} : (tensor<2x8x16x16xf32>) -> tensor<2x8x1x1xf32>
// CHECK: sc.sum %{{[^ ]*}} {{[{]}}dims = array<i64: 1>{{(, keepdim = false)?}}} : (tensor<2x8x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK: sc.amax %{{[^ ]*}} {dims = array<i64: 0>} : (tensor<7xf32>) -> tensor<f32>
// CHECK: sc.amin %{{[^ ]*}} {dims = array<i64: -1>, keepdim = true} : (tensor<7xf32>) -> tensor<1xf32>
// CHECK: sc.sum %{{[^ ]*}} {dims = array<i64: 1>} : (tensor<4x8xf16>) -> tensor<4xf16>
// CHECK: sc.mean %{{[^ ]*}} : (tensor<4x8xbf16>) -> tensor<bf16>
func.func @reduce_more(%x: tensor<2x8x16x16xf32>, %v: tensor<7xf32>, %h: tensor<4x8xf16>, %g: tensor<4x8xbf16>) {
  %0 = sc.mean %x {dims = array<i64: -2, -1>, keepdim = true} : (tensor<2x8x16x16xf32>) -> tensor<2x8x1x1xf32>
  %1 = sc.sum %x {dims = array<i64: 1>, keepdim = false} : (tensor<2x8x16x16xf32>) -> tensor<2x16x16xf32>
  %2 = sc.amax %v {dims = array<i64: 0>} : (tensor<7xf32>) -> tensor<f32>
  %3 = sc.amin %v {dims = array<i64: -1>, keepdim = true} : (tensor<7xf32>) -> tensor<1xf32>
  %4 = sc.sum %h {dims = array<i64: 1>} : (tensor<4x8xf16>) -> tensor<4xf16>
  %5 = sc.mean %g : (tensor<4x8xbf16>) -> tensor<bf16>
  return
}

// -----

// softmax over the last dim (negative and positive index) and over dim 1.
// CHECK-LABEL: func.func @softmax
// CHECK: sc.softmax %{{[^ ]*}} {dim = -1 : i64} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
// CHECK: sc.softmax %{{[^ ]*}} {dim = 2 : i64} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
// CHECK: sc.softmax %{{[^ ]*}} {dim = 1 : i64} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
// CHECK: sc.softmax %{{[^ ]*}} {dim = -1 : i64} : (tensor<2x4x128x128xbf16>) -> tensor<2x4x128x128xbf16>
func.func @softmax(%x: tensor<2x8x16xf32>, %y: tensor<2x4x128x128xbf16>) {
  %0 = sc.softmax %x {dim = -1} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %1 = sc.softmax %x {dim = 2} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %2 = sc.softmax %x {dim = 1} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %3 = sc.softmax %y {dim = -1} : (tensor<2x4x128x128xbf16>) -> tensor<2x4x128x128xbf16>
  return
}

// -----

// log_softmax.
// CHECK-LABEL: func.func @log_softmax
// CHECK: sc.log_softmax %{{[^ ]*}} {dim = -1 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: sc.log_softmax %{{[^ ]*}} {dim = 0 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: sc.log_softmax %{{[^ ]*}} {dim = 0 : i64} : (tensor<16xf16>) -> tensor<16xf16>
func.func @log_softmax(%x: tensor<4x10xf32>, %y: tensor<16xf16>) {
  %0 = sc.log_softmax %x {dim = -1} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %1 = sc.log_softmax %x {dim = 0} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %2 = sc.log_softmax %y {dim = 0} : (tensor<16xf16>) -> tensor<16xf16>
  return
}

// -----

// torch.var / torch.std: all dims, one dim with keepdim, negative dims,
// correction 0 (population) and above the count.
// CHECK-LABEL: func.func @variance
// CHECK: sc.var %{{[^ ]*}} : (tensor<2x3x4xf32>) -> tensor<f32>
// CHECK: sc.var %{{[^ ]*}} {dims = array<i64: 1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK: sc.std %{{[^ ]*}} {correction = 0.000000e+00 : f64, dims = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
// CHECK: sc.std %{{[^ ]*}} {correction = 5.000000e+00 : f64, dims = array<i64: -2>} : (tensor<2x3x4xbf16>) -> tensor<2x4xbf16>
func.func @variance(%x: tensor<2x3x4xf32>, %h: tensor<2x3x4xbf16>) {
  %0 = sc.var %x : (tensor<2x3x4xf32>) -> tensor<f32>
  %1 = sc.var %x {dims = array<i64: 1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %2 = sc.std %x {dims = array<i64: 0, -1>, correction = 0.0} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %3 = sc.std %h {dims = array<i64: -2>, correction = 5.0} : (tensor<2x3x4xbf16>) -> tensor<2x4xbf16>
  return
}

// -----

// A scalar reduces over dim 0 or -1 (its one element), keepdim or not, to a
// scalar, as torch.sum(torch.tensor(2.), dim=0, keepdim=True).
// CHECK-LABEL: func.func @scalar_dims
// CHECK: sc.sum %{{[^ ]*}} {dims = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
// CHECK: sc.amax %{{[^ ]*}} {dims = array<i64: -1>, keepdim = true} : (tensor<f32>) -> tensor<f32>
// CHECK: sc.var %{{[^ ]*}} {dims = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
func.func @scalar_dims(%x: tensor<f32>) {
  %0 = sc.sum %x {dims = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  %1 = sc.amax %x {dims = array<i64: -1>, keepdim = true} : (tensor<f32>) -> tensor<f32>
  %2 = sc.var %x {dims = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return
}
