// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// sc.pad: modes constant (default) / reflect / replicate / circular; pad in
// torch.nn.functional.pad order (last dim first: [lo_last, hi_last, lo_prev,
// hi_prev, ...]), including fewer pairs than dims; value for constant mode.

// constant mode: one pair pads only the last dim; two pairs pad W then H;
// all four dims; rank 1 and 2; explicit value.
// CHECK-LABEL: func.func @pad_constant
// CHECK: sc.pad %{{[^ ]*}} {pad = array<i64: 1, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x11xf32>
// CHECK: sc.pad %{{[^ ]*}} {pad = array<i64: 1, 1, 2, 0>, value = 1.500000e+00 : f64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
// CHECK: sc.pad %{{[^ ]*}} {pad = array<i64: 0, 1, 1, 0, 2, 2, 1, 1>} : (tensor<2x3x4x5xf32>) -> tensor<4x7x5x6xf32>
// CHECK: sc.pad %{{[^ ]*}} {pad = array<i64: 2, 3>, value = -1.000000e+00 : f64} : (tensor<5xf32>) -> tensor<10xf32>
// CHECK: sc.pad %{{[^ ]*}} {pad = array<i64: 1, 1, 1, 1>} : (tensor<3x4xf32>) -> tensor<5x6xf32>
// CHECK: sc.pad %{{[^ ]*}} {pad = array<i64: 0, 0, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x8xf32>
func.func @pad_constant(%x: tensor<1x3x8x8xf32>, %y: tensor<2x3x4x5xf32>, %z: tensor<5xf32>, %u: tensor<3x4xf32>) {
  %0 = sc.pad %x {pad = array<i64: 1, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x11xf32>
  %1 = sc.pad %x {pad = array<i64: 1, 1, 2, 0>, value = 1.5} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
  %2 = sc.pad %y {pad = array<i64: 0, 1, 1, 0, 2, 2, 1, 1>} : (tensor<2x3x4x5xf32>) -> tensor<4x7x5x6xf32>
  %3 = sc.pad %z {pad = array<i64: 2, 3>, value = -1.0} : (tensor<5xf32>) -> tensor<10xf32>
  %4 = sc.pad %u {pad = array<i64: 1, 1, 1, 1>} : (tensor<3x4xf32>) -> tensor<5x6xf32>
  %5 = sc.pad %x {pad = array<i64: 0, 0, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x8xf32>
  return
}

// -----

// mode = "constant" and value = 0.0 written explicitly (may be elided when printed).
// CHECK-LABEL: func.func @pad_constant_defaults
// CHECK: sc.pad %{{[^ ]*}} {{[{]}}{{(mode = "constant", )?}}pad = array<i64: 1, 1, 1, 1>{{(, value = 0\.000000e\+00 : f64)?}}} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
// CHECK: sc.pad %{{[^ ]*}} {{[{]}}{{(mode = "constant", )?}}pad = array<i64: 2, 0>, value = 2.500000e+00 : f64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x10xf32>
func.func @pad_constant_defaults(%x: tensor<1x3x8x8xf32>) {
  %0 = sc.pad %x {mode = "constant", pad = array<i64: 1, 1, 1, 1>, value = 0.0} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
  %1 = sc.pad %x {mode = "constant", pad = array<i64: 2, 0>, value = 2.5} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x10xf32>
  return
}

// -----

// reflect: 1-D, 2-D (W then H), 3-D, and the largest allowed pad (dim - 1).
// CHECK-LABEL: func.func @pad_reflect
// CHECK: sc.pad %{{[^ ]*}} {mode = "reflect", pad = array<i64: 2, 3>} : (tensor<1x2x8xf32>) -> tensor<1x2x13xf32>
// CHECK: sc.pad %{{[^ ]*}} {mode = "reflect", pad = array<i64: 1, 1, 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x12x10xf32>
// CHECK: sc.pad %{{[^ ]*}} {mode = "reflect", pad = array<i64: 1, 1, 1, 1, 1, 1>} : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x6x6x6xf32>
// CHECK: sc.pad %{{[^ ]*}} {mode = "reflect", pad = array<i64: 3, 3>} : (tensor<1x1x4xf32>) -> tensor<1x1x10xf32>
// CHECK: sc.pad %{{[^ ]*}} {mode = "reflect", pad = array<i64: 0, 0, 3, 1>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x12x8xf32>
func.func @pad_reflect(%x: tensor<1x2x8xf32>, %y: tensor<1x2x8x8xf32>, %z: tensor<1x1x4x4x4xf32>, %u: tensor<1x1x4xf32>) {
  %0 = sc.pad %x {mode = "reflect", pad = array<i64: 2, 3>} : (tensor<1x2x8xf32>) -> tensor<1x2x13xf32>
  %1 = sc.pad %y {mode = "reflect", pad = array<i64: 1, 1, 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x12x10xf32>
  %2 = sc.pad %z {mode = "reflect", pad = array<i64: 1, 1, 1, 1, 1, 1>} : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x6x6x6xf32>
  %3 = sc.pad %u {mode = "reflect", pad = array<i64: 3, 3>} : (tensor<1x1x4xf32>) -> tensor<1x1x10xf32>
  %4 = sc.pad %y {mode = "reflect", pad = array<i64: 0, 0, 3, 1>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x12x8xf32>
  return
}

// -----

// replicate: 3-D, pads larger than the dim, asymmetric 2-D.
// CHECK-LABEL: func.func @pad_replicate
// CHECK: sc.pad %{{[^ ]*}} {mode = "replicate", pad = array<i64: 1, 1, 1, 1, 1, 1>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x6x6x6xf32>
// CHECK: sc.pad %{{[^ ]*}} {mode = "replicate", pad = array<i64: 5, 6>} : (tensor<1x1x4xf32>) -> tensor<1x1x15xf32>
// CHECK: sc.pad %{{[^ ]*}} {mode = "replicate", pad = array<i64: 0, 2, 1, 0>} : (tensor<1x3x5x5xf32>) -> tensor<1x3x6x7xf32>
func.func @pad_replicate(%z: tensor<1x2x4x4x4xf32>, %u: tensor<1x1x4xf32>, %y: tensor<1x3x5x5xf32>) {
  %0 = sc.pad %z {mode = "replicate", pad = array<i64: 1, 1, 1, 1, 1, 1>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x6x6x6xf32>
  %1 = sc.pad %u {mode = "replicate", pad = array<i64: 5, 6>} : (tensor<1x1x4xf32>) -> tensor<1x1x15xf32>
  %2 = sc.pad %y {mode = "replicate", pad = array<i64: 0, 2, 1, 0>} : (tensor<1x3x5x5xf32>) -> tensor<1x3x6x7xf32>
  return
}

// -----

// circular: 1-D, pad equal to the dim, asymmetric 2-D, 3-D.
// CHECK-LABEL: func.func @pad_circular
// CHECK: sc.pad %{{[^ ]*}} {mode = "circular", pad = array<i64: 2, 2>} : (tensor<1x2x8xf32>) -> tensor<1x2x12xf32>
// CHECK: sc.pad %{{[^ ]*}} {mode = "circular", pad = array<i64: 4, 4>} : (tensor<1x1x4xf32>) -> tensor<1x1x12xf32>
// CHECK: sc.pad %{{[^ ]*}} {mode = "circular", pad = array<i64: 1, 2, 3, 0>} : (tensor<1x2x4x6xf32>) -> tensor<1x2x7x9xf32>
// CHECK: sc.pad %{{[^ ]*}} {mode = "circular", pad = array<i64: 1, 0, 0, 1, 2, 2>} : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x8x5x5xf32>
func.func @pad_circular(%x: tensor<1x2x8xf32>, %u: tensor<1x1x4xf32>, %y: tensor<1x2x4x6xf32>, %z: tensor<1x1x4x4x4xf32>) {
  %0 = sc.pad %x {mode = "circular", pad = array<i64: 2, 2>} : (tensor<1x2x8xf32>) -> tensor<1x2x12xf32>
  %1 = sc.pad %u {mode = "circular", pad = array<i64: 4, 4>} : (tensor<1x1x4xf32>) -> tensor<1x1x12xf32>
  %2 = sc.pad %y {mode = "circular", pad = array<i64: 1, 2, 3, 0>} : (tensor<1x2x4x6xf32>) -> tensor<1x2x7x9xf32>
  %3 = sc.pad %z {mode = "circular", pad = array<i64: 1, 0, 0, 1, 2, 2>} : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x8x5x5xf32>
  return
}

// -----

// circular with crops, as F.pad: crop, then wrap what is left (each amount
// at most the size left: 6 - 3 = 3 here, and 4 - 1 = 3 wrapping 3).
// CHECK-LABEL: func.func @pad_circular_crops
// CHECK: sc.pad %{{[^ ]*}} {mode = "circular", pad = array<i64: -3, 3>} : (tensor<1x6xf32>) -> tensor<1x6xf32>
// CHECK: sc.pad %{{[^ ]*}} {mode = "circular", pad = array<i64: 2, -1, -1, 3>} : (tensor<1x4x6xf32>) -> tensor<1x6x7xf32>
// CHECK: sc.pad %{{[^ ]*}} {mode = "circular", pad = array<i64: -1, -1>} : (tensor<1x6xf32>) -> tensor<1x4xf32>
// CHECK: sc.pad %{{[^ ]*}} {mode = "circular", pad = array<i64: 1, 1, -4, 0>} : (tensor<1x4x6xf32>) -> tensor<1x0x8xf32>
func.func @pad_circular_crops(%x: tensor<1x6xf32>, %y: tensor<1x4x6xf32>) {
  %0 = sc.pad %x {mode = "circular", pad = array<i64: -3, 3>} : (tensor<1x6xf32>) -> tensor<1x6xf32>
  %1 = sc.pad %y {mode = "circular", pad = array<i64: 2, -1, -1, 3>} : (tensor<1x4x6xf32>) -> tensor<1x6x7xf32>
  %2 = sc.pad %x {mode = "circular", pad = array<i64: -1, -1>} : (tensor<1x6xf32>) -> tensor<1x4xf32>
  // As F.pad: crops may empty a dim that nothing wraps.
  %3 = sc.pad %y {mode = "circular", pad = array<i64: 1, 1, -4, 0>} : (tensor<1x4x6xf32>) -> tensor<1x0x8xf32>
  return
}

// -----

// pad in f16 and bf16.
// CHECK-LABEL: func.func @pad_half
// CHECK: sc.pad %{{[^ ]*}} {mode = "reflect", pad = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf16>) -> tensor<1x4x10x10xf16>
// CHECK: sc.pad %{{[^ ]*}} {pad = array<i64: 0, 8>, value = 1.000000e+00 : f64} : (tensor<2x8xbf16>) -> tensor<2x16xbf16>
func.func @pad_half(%x: tensor<1x4x8x8xf16>, %y: tensor<2x8xbf16>) {
  %0 = sc.pad %x {mode = "reflect", pad = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf16>) -> tensor<1x4x10x10xf16>
  %1 = sc.pad %y {pad = array<i64: 0, 8>, value = 1.0} : (tensor<2x8xbf16>) -> tensor<2x16xbf16>
  return
}

// -----

// constant mode on empty tensors (as F.pad): an empty dim padded to a filled
// one, a crop down to nothing, and an empty dim left alone.
// CHECK-LABEL: func.func @pad_empty
// CHECK: sc.pad %{{[^ ]*}} {pad = array<i64: 0, 0, 1, 2>, value = 1.500000e+00 : f64} : (tensor<2x0x6xf32>) -> tensor<2x3x6xf32>
// CHECK: sc.pad %{{[^ ]*}} {pad = array<i64: -2, -2>} : (tensor<2x4xf32>) -> tensor<2x0xf32>
// CHECK: sc.pad %{{[^ ]*}} {pad = array<i64: 1, 1>} : (tensor<2x0x6xf32>) -> tensor<2x0x8xf32>
func.func @pad_empty(%x: tensor<2x0x6xf32>, %y: tensor<2x4xf32>) {
  %0 = sc.pad %x {pad = array<i64: 0, 0, 1, 2>, value = 1.5} : (tensor<2x0x6xf32>) -> tensor<2x3x6xf32>
  %1 = sc.pad %y {pad = array<i64: -2, -2>} : (tensor<2x4xf32>) -> tensor<2x0xf32>
  %2 = sc.pad %x {pad = array<i64: 1, 1>} : (tensor<2x0x6xf32>) -> tensor<2x0x8xf32>
  return
}
