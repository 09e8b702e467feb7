// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// Shape ops: sc.concat, sc.slice (with steps), sc.reshape, sc.permute,
// sc.transpose, sc.broadcast_to, sc.unsqueeze, sc.squeeze.

// concat: dim 0, dim 1 of three operands, negative dim, 4-D channel concat.
// CHECK-LABEL: func.func @concat
// CHECK: sc.concat %{{[^ ]*}}, %{{[^ ]*}} {dim = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
// CHECK: sc.concat %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {dim = 1 : i64} : (tensor<2x5xf32>, tensor<2x1xf32>, tensor<2x5xf32>) -> tensor<2x11xf32>
// CHECK: sc.concat %{{[^ ]*}}, %{{[^ ]*}} {dim = -1 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x7xf32>
// CHECK: sc.concat %{{[^ ]*}}, %{{[^ ]*}} {dim = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x24x8x8xf32>
// CHECK: sc.concat %{{[^ ]*}}, %{{[^ ]*}} {dim = -2 : i64} : (tensor<1x16x8x8xbf16>, tensor<1x16x8x8xbf16>) -> tensor<1x16x16x8xbf16>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %c: tensor<2x5xf32>, %d: tensor<2x1xf32>, %e: tensor<2x4xf32>, %x: tensor<1x16x8x8xf32>, %y: tensor<1x8x8x8xf32>, %h: tensor<1x16x8x8xbf16>) {
  %0 = sc.concat %a, %b {dim = 0} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  %1 = sc.concat %c, %d, %c {dim = 1} : (tensor<2x5xf32>, tensor<2x1xf32>, tensor<2x5xf32>) -> tensor<2x11xf32>
  %2 = sc.concat %a, %e {dim = -1} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x7xf32>
  %3 = sc.concat %x, %y {dim = 1} : (tensor<1x16x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x24x8x8xf32>
  %4 = sc.concat %h, %h {dim = -2} : (tensor<1x16x8x8xbf16>, tensor<1x16x8x8xbf16>) -> tensor<1x16x16x8xbf16>
  return
}

// -----

// concat of a single operand.
// CHECK-LABEL: func.func @concat_single
// CHECK: sc.concat %{{[^ ]*}} {dim = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @concat_single(%a: tensor<2x3xf32>) {
  %0 = sc.concat %a {dim = 0} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// slice: default step, steps (ceil((end-start)/step)), full range, empty result.
// CHECK-LABEL: func.func @slice
// CHECK: sc.slice %{{[^ ]*}} {end = array<i64: 3, 8>, start = array<i64: 1, 0>} : (tensor<10x8xf32>) -> tensor<2x8xf32>
// CHECK: sc.slice %{{[^ ]*}} {end = array<i64: 10, 8>, start = array<i64: 0, 2>, step = array<i64: 2, 3>} : (tensor<10x8xf32>) -> tensor<5x2xf32>
// CHECK: sc.slice %{{[^ ]*}} {end = array<i64: 9, 7>, start = array<i64: 1, 1>, step = array<i64: 3, 4>} : (tensor<10x8xf32>) -> tensor<3x2xf32>
// CHECK: sc.slice %{{[^ ]*}} {end = array<i64: 10, 8>, start = array<i64: 0, 0>} : (tensor<10x8xf32>) -> tensor<10x8xf32>
// CHECK: sc.slice %{{[^ ]*}} {end = array<i64: 2, 8>, start = array<i64: 2, 0>} : (tensor<10x8xf32>) -> tensor<0x8xf32>
// CHECK: sc.slice %{{[^ ]*}} {end = array<i64: 1, 8, 32, 17>, start = array<i64: 0, 0, 0, 15>, step = array<i64: 1, 1, 1, 1>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x32x2xf32>
// CHECK: sc.slice %{{[^ ]*}} {end = array<i64: 1, 8, 32, 32>, start = array<i64: 0, 1, 0, 0>, step = array<i64: 1, 2, 1, 1>} : (tensor<1x8x32x32xf32>) -> tensor<1x4x32x32xf32>
func.func @slice(%x: tensor<10x8xf32>, %y: tensor<1x8x32x32xf32>) {
  %0 = sc.slice %x {end = array<i64: 3, 8>, start = array<i64: 1, 0>} : (tensor<10x8xf32>) -> tensor<2x8xf32>
  %1 = sc.slice %x {end = array<i64: 10, 8>, start = array<i64: 0, 2>, step = array<i64: 2, 3>} : (tensor<10x8xf32>) -> tensor<5x2xf32>
  %2 = sc.slice %x {end = array<i64: 9, 7>, start = array<i64: 1, 1>, step = array<i64: 3, 4>} : (tensor<10x8xf32>) -> tensor<3x2xf32>
  %3 = sc.slice %x {end = array<i64: 10, 8>, start = array<i64: 0, 0>} : (tensor<10x8xf32>) -> tensor<10x8xf32>
  %4 = sc.slice %x {end = array<i64: 2, 8>, start = array<i64: 2, 0>} : (tensor<10x8xf32>) -> tensor<0x8xf32>
  %5 = sc.slice %y {end = array<i64: 1, 8, 32, 17>, start = array<i64: 0, 0, 0, 15>, step = array<i64: 1, 1, 1, 1>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x32x2xf32>
  %6 = sc.slice %y {end = array<i64: 1, 8, 32, 32>, start = array<i64: 0, 1, 0, 0>, step = array<i64: 1, 2, 1, 1>} : (tensor<1x8x32x32xf32>) -> tensor<1x4x32x32xf32>
  return
}

// -----

// reshape: merge, flatten, split, to and from rank 0.
// CHECK-LABEL: func.func @reshape
// CHECK: sc.reshape %{{[^ ]*}} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK: sc.reshape %{{[^ ]*}} : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK: sc.reshape %{{[^ ]*}} : (tensor<2x3x4xf32>) -> tensor<4x1x6xf32>
// CHECK: sc.reshape %{{[^ ]*}} : (tensor<f32>) -> tensor<1x1xf32>
// CHECK: sc.reshape %{{[^ ]*}} : (tensor<1xf32>) -> tensor<f32>
// CHECK: sc.reshape %{{[^ ]*}} : (tensor<2x8x16x16xf16>) -> tensor<2x8x256xf16>
func.func @reshape(%x: tensor<2x3x4xf32>, %s: tensor<f32>, %o: tensor<1xf32>, %y: tensor<2x8x16x16xf16>) {
  %0 = sc.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = sc.reshape %x : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %2 = sc.reshape %x : (tensor<2x3x4xf32>) -> tensor<4x1x6xf32>
  %3 = sc.reshape %s : (tensor<f32>) -> tensor<1x1xf32>
  %4 = sc.reshape %o : (tensor<1xf32>) -> tensor<f32>
  %5 = sc.reshape %y : (tensor<2x8x16x16xf16>) -> tensor<2x8x256xf16>
  return
}

// -----

// permute: 3-D rotation, NCHW -> NHWC, identity, negative dims.
// CHECK-LABEL: func.func @permute
// CHECK: sc.permute %{{[^ ]*}} {dims = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK: sc.permute %{{[^ ]*}} {dims = array<i64: 0, 2, 3, 1>} : (tensor<2x16x8x4xf32>) -> tensor<2x8x4x16xf32>
// CHECK: sc.permute %{{[^ ]*}} {dims = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK: sc.permute %{{[^ ]*}} {dims = array<i64: -1, 0, -2>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
func.func @permute(%x: tensor<2x3x4xf32>, %y: tensor<2x16x8x4xf32>) {
  %0 = sc.permute %x {dims = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = sc.permute %y {dims = array<i64: 0, 2, 3, 1>} : (tensor<2x16x8x4xf32>) -> tensor<2x8x4x16xf32>
  %2 = sc.permute %x {dims = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %3 = sc.permute %x {dims = array<i64: -1, 0, -2>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return
}

// -----

// transpose: positive dims, negative dims, same dim twice (identity).
// CHECK-LABEL: func.func @transpose
// CHECK: sc.transpose %{{[^ ]*}} {dim0 = 0 : i64, dim1 = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK: sc.transpose %{{[^ ]*}} {dim0 = -1 : i64, dim1 = -2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
// CHECK: sc.transpose %{{[^ ]*}} {dim0 = 1 : i64, dim1 = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK: sc.transpose %{{[^ ]*}} {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<2x8x128x64xbf16>) -> tensor<2x128x8x64xbf16>
func.func @transpose(%x: tensor<2x3x4xf32>, %y: tensor<2x8x128x64xbf16>) {
  %0 = sc.transpose %x {dim0 = 0, dim1 = 2} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %1 = sc.transpose %x {dim0 = -1, dim1 = -2} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %2 = sc.transpose %x {dim0 = 1, dim1 = 1} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %3 = sc.transpose %y {dim0 = 1, dim1 = 2} : (tensor<2x8x128x64xbf16>) -> tensor<2x128x8x64xbf16>
  return
}

// -----

// broadcast_to: size-1 dims, new leading dims, from rank 0, identity.
// CHECK-LABEL: func.func @broadcast_to
// CHECK: sc.broadcast_to %{{[^ ]*}} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
// CHECK: sc.broadcast_to %{{[^ ]*}} : (tensor<f32>) -> tensor<4x4xf32>
// CHECK: sc.broadcast_to %{{[^ ]*}} : (tensor<1xf32>) -> tensor<5xf32>
// CHECK: sc.broadcast_to %{{[^ ]*}} : (tensor<8x1x1xf32>) -> tensor<2x8x16x16xf32>
// CHECK: sc.broadcast_to %{{[^ ]*}} : (tensor<3x1xf32>) -> tensor<3x1xf32>
func.func @broadcast_to(%x: tensor<3x1xf32>, %s: tensor<f32>, %o: tensor<1xf32>, %y: tensor<8x1x1xf32>) {
  %0 = sc.broadcast_to %x : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %1 = sc.broadcast_to %s : (tensor<f32>) -> tensor<4x4xf32>
  %2 = sc.broadcast_to %o : (tensor<1xf32>) -> tensor<5xf32>
  %3 = sc.broadcast_to %y : (tensor<8x1x1xf32>) -> tensor<2x8x16x16xf32>
  %4 = sc.broadcast_to %x : (tensor<3x1xf32>) -> tensor<3x1xf32>
  return
}

// -----

// unsqueeze: front, middle, end (dim = rank), negative dim (-1 = new last dim).
// CHECK-LABEL: func.func @unsqueeze
// CHECK: sc.unsqueeze %{{[^ ]*}} {dim = 0 : i64} : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
// CHECK: sc.unsqueeze %{{[^ ]*}} {dim = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x1x4xf32>
// CHECK: sc.unsqueeze %{{[^ ]*}} {dim = 2 : i64} : (tensor<3x4xf32>) -> tensor<3x4x1xf32>
// CHECK: sc.unsqueeze %{{[^ ]*}} {dim = -1 : i64} : (tensor<3x4xf32>) -> tensor<3x4x1xf32>
// CHECK: sc.unsqueeze %{{[^ ]*}} {dim = -3 : i64} : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
// CHECK: sc.unsqueeze %{{[^ ]*}} {dim = 0 : i64} : (tensor<f32>) -> tensor<1xf32>
func.func @unsqueeze(%x: tensor<3x4xf32>, %s: tensor<f32>) {
  %0 = sc.unsqueeze %x {dim = 0} : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
  %1 = sc.unsqueeze %x {dim = 1} : (tensor<3x4xf32>) -> tensor<3x1x4xf32>
  %2 = sc.unsqueeze %x {dim = 2} : (tensor<3x4xf32>) -> tensor<3x4x1xf32>
  %3 = sc.unsqueeze %x {dim = -1} : (tensor<3x4xf32>) -> tensor<3x4x1xf32>
  %4 = sc.unsqueeze %x {dim = -3} : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
  %5 = sc.unsqueeze %s {dim = 0} : (tensor<f32>) -> tensor<1xf32>
  return
}

// -----

// squeeze: all size-1 dims, one dim, a listed dim that is not size 1 is kept
// (like torch), several dims, negative dim, to rank 0.
// CHECK-LABEL: func.func @squeeze
// CHECK: sc.squeeze %{{[^ ]*}} : (tensor<1x3x1x4xf32>) -> tensor<3x4xf32>
// CHECK: sc.squeeze %{{[^ ]*}} {dims = array<i64: 0>} : (tensor<1x3x1x4xf32>) -> tensor<3x1x4xf32>
// CHECK: sc.squeeze %{{[^ ]*}} {dims = array<i64: 1>} : (tensor<1x3x1x4xf32>) -> tensor<1x3x1x4xf32>
// CHECK: sc.squeeze %{{[^ ]*}} {dims = array<i64: 0, 2>} : (tensor<1x3x1x4xf32>) -> tensor<3x4xf32>
// CHECK: sc.squeeze %{{[^ ]*}} {dims = array<i64: -2>} : (tensor<1x3x1x4xf32>) -> tensor<1x3x4xf32>
// CHECK: sc.squeeze %{{[^ ]*}} {dims = array<i64: 1, 2>} : (tensor<1x3x1x4xf32>) -> tensor<1x3x4xf32>
// CHECK: sc.squeeze %{{[^ ]*}} : (tensor<1x1xf32>) -> tensor<f32>
func.func @squeeze(%x: tensor<1x3x1x4xf32>, %o: tensor<1x1xf32>) {
  %0 = sc.squeeze %x : (tensor<1x3x1x4xf32>) -> tensor<3x4xf32>
  %1 = sc.squeeze %x {dims = array<i64: 0>} : (tensor<1x3x1x4xf32>) -> tensor<3x1x4xf32>
  %2 = sc.squeeze %x {dims = array<i64: 1>} : (tensor<1x3x1x4xf32>) -> tensor<1x3x1x4xf32>
  %3 = sc.squeeze %x {dims = array<i64: 0, 2>} : (tensor<1x3x1x4xf32>) -> tensor<3x4xf32>
  %4 = sc.squeeze %x {dims = array<i64: -2>} : (tensor<1x3x1x4xf32>) -> tensor<1x3x4xf32>
  %5 = sc.squeeze %x {dims = array<i64: 1, 2>} : (tensor<1x3x1x4xf32>) -> tensor<1x3x4xf32>
  %6 = sc.squeeze %o : (tensor<1x1xf32>) -> tensor<f32>
  return
}

// -----

// roll: one dim, several dims (one listed twice, negative), flattened, a
// rank-0 tensor with dim 0 as PyTorch wraps scalars.
// CHECK-LABEL: func.func @roll
// CHECK: sc.roll %{{[^ ]*}} {dims = array<i64: 2>, shifts = array<i64: 1>} : tensor<1x3x8x8xf32>
// CHECK: sc.roll %{{[^ ]*}} {dims = array<i64: -1, 2, -1>, shifts = array<i64: 5, -2, 20>} : tensor<1x3x8x8xf32>
// CHECK: sc.roll %{{[^ ]*}} {shifts = array<i64: -7>} : tensor<1x3x8x8xf32>
// CHECK: sc.roll %{{[^ ]*}} {dims = array<i64: 0>, shifts = array<i64: 3>} : tensor<f16>
func.func @roll(%x: tensor<1x3x8x8xf32>, %s: tensor<f16>) {
  %0 = sc.roll %x {shifts = array<i64: 1>, dims = array<i64: 2>} : tensor<1x3x8x8xf32>
  %1 = sc.roll %x {shifts = array<i64: 5, -2, 20>, dims = array<i64: -1, 2, -1>} : tensor<1x3x8x8xf32>
  %2 = sc.roll %x {shifts = array<i64: -7>} : tensor<1x3x8x8xf32>
  %3 = sc.roll %s {shifts = array<i64: 3>, dims = array<i64: 0>} : tensor<f16>
  return
}

// -----

// flip: one dim, several (negative), none.
// CHECK-LABEL: func.func @flip
// CHECK: sc.flip %{{[^ ]*}} {dims = array<i64: 2>} : tensor<1x3x8x8xf32>
// CHECK: sc.flip %{{[^ ]*}} {dims = array<i64: -1, 0>} : tensor<1x3x8x8xf32>
// CHECK: sc.flip %{{[^ ]*}} {dims = array<i64>} : tensor<1x3x8x8xf32>
func.func @flip(%x: tensor<1x3x8x8xf32>) {
  %0 = sc.flip %x {dims = array<i64: 2>} : tensor<1x3x8x8xf32>
  %1 = sc.flip %x {dims = array<i64: -1, 0>} : tensor<1x3x8x8xf32>
  %2 = sc.flip %x {dims = array<i64>} : tensor<1x3x8x8xf32>
  return
}

// -----

// pixel_shuffle / pixel_unshuffle with batch dims of any count.
// CHECK-LABEL: func.func @pixel_shuffle
// CHECK: sc.pixel_shuffle %{{[^ ]*}} {factor = 2 : i64} : (tensor<1x8x6x5xf32>) -> tensor<1x2x12x10xf32>
// CHECK: sc.pixel_unshuffle %{{[^ ]*}} {factor = 3 : i64} : (tensor<2x3x1x6x9xf32>) -> tensor<2x3x9x2x3xf32>
// CHECK: sc.pixel_shuffle %{{[^ ]*}} {factor = 1 : i64} : (tensor<4x6x5xf32>) -> tensor<4x6x5xf32>
func.func @pixel_shuffle(%x: tensor<1x8x6x5xf32>, %y: tensor<2x3x1x6x9xf32>, %z: tensor<4x6x5xf32>) {
  %0 = sc.pixel_shuffle %x {factor = 2} : (tensor<1x8x6x5xf32>) -> tensor<1x2x12x10xf32>
  %1 = sc.pixel_unshuffle %y {factor = 3} : (tensor<2x3x1x6x9xf32>) -> tensor<2x3x9x2x3xf32>
  %2 = sc.pixel_shuffle %z {factor = 1} : (tensor<4x6x5xf32>) -> tensor<4x6x5xf32>
  return
}
