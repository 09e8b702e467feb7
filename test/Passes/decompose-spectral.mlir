// RUN: shardc-opt %s -split-input-file -sc-decompose-forms -mlir-print-debuginfo | FileCheck %s

// sc-decompose-forms makes the DFT ops GEMMs against constant matrices, one
// per transformed dim: the dim is moved last (before the view_as_real pair),
// flattened with the pair and multiplied. The ops keep the replaced op's
// location, the last one its pin.

// rfft of 4 points: columns are (bin, real/imaginary) of the non-negative
// bins, rows the points; quarter turns are exact.
// CHECK-LABEL: func.func @rfft_exact
// CHECK:      %[[M:.*]] = sc.constant dense<{{\[}}[1.000000e+00, -0.000000e+00, 1.000000e+00, -0.000000e+00, 1.000000e+00, -0.000000e+00], [1.000000e+00, -0.000000e+00, 0.000000e+00, -1.000000e+00, -1.000000e+00, -0.000000e+00], [1.000000e+00, -0.000000e+00, -1.000000e+00, -0.000000e+00, 1.000000e+00, -0.000000e+00], [1.000000e+00, -0.000000e+00, 0.000000e+00, 1.000000e+00, -1.000000e+00, -0.000000e+00]]> : tensor<4x6xf32> loc(#[[LOC:.*]])
// CHECK-NEXT: %[[P:.*]] = sc.matmul %arg0, %[[M]] : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[R:.*]] = sc.reshape %[[P]] {sc.sharding = #sc.sharding<@m, [{"x"}, {}, {}]>} : (tensor<3x6xf32>) -> tensor<3x3x2xf32> loc(#[[LOC]])
// CHECK-NEXT: return %[[R]]
// CHECK:      #[[LOC]] = loc("model.py":2:1)
sc.mesh @m ["x"=2]
func.func @rfft_exact(%x: tensor<3x4xf32>) -> tensor<3x3x2xf32> {
  %y = sc.rfft %x {sc.sharding = #sc.sharding<@m, [{"x"}, {}, {}]>} : (tensor<3x4xf32>) -> tensor<3x3x2xf32> loc("model.py":2:1)
  return %y : tensor<3x3x2xf32>
}

// -----

// ifft along dim 0: the dim moves last and back; (a + ib) rows, 1/n scale.
// CHECK-LABEL: func.func @ifft_dim0
// CHECK:      %[[T:.*]] = sc.permute %arg0 {dims = array<i64: 1, 0, 2>} : (tensor<4x3x2xf32>) -> tensor<3x4x2xf32>
// CHECK-NEXT: %[[F:.*]] = sc.reshape %[[T]] : (tensor<3x4x2xf32>) -> tensor<3x8xf32>
// CHECK-NEXT: %[[M:.*]] = sc.constant dense<{{\[}}[2.500000e-01, 0.000000e+00, 2.500000e-01, 0.000000e+00, 2.500000e-01, 0.000000e+00, 2.500000e-01, 0.000000e+00], [-0.000000e+00, 2.500000e-01, -0.000000e+00, 2.500000e-01, -0.000000e+00, 2.500000e-01, -0.000000e+00, 2.500000e-01], [2.500000e-01, 0.000000e+00, 0.000000e+00, 2.500000e-01, -2.500000e-01, 0.000000e+00, 0.000000e+00, -2.500000e-01]
// CHECK-NEXT: %[[P:.*]] = sc.matmul %[[F]], %[[M]] : (tensor<3x8xf32>, tensor<8x8xf32>) -> tensor<3x8xf32>
// CHECK-NEXT: %[[U:.*]] = sc.reshape %[[P]] : (tensor<3x8xf32>) -> tensor<3x4x2xf32>
// CHECK-NEXT: %[[B:.*]] = sc.permute %[[U]] {dims = array<i64: 1, 0, 2>} : (tensor<3x4x2xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT: return %[[B]]
func.func @ifft_dim0(%z: tensor<4x3x2xf32>) -> tensor<4x3x2xf32> {
  %y = sc.ifft %z {dims = array<i64: 0>} : (tensor<4x3x2xf32>) -> tensor<4x3x2xf32>
  return %y : tensor<4x3x2xf32>
}

// -----

// Slices of an rfft2 select the matrices' columns: both keep bins 0..1 of
// the halved dim (one shared first GEMM, 6 x 4), then bins 0..1 and 6..7 of
// the other (16 x 4 each, not 16 x 16). What a slice selects off the
// transformed dims (the imaginary part) is sliced after.
// CHECK-LABEL: func.func @slices
// CHECK:      sc.matmul %arg0, %{{.*}} : (tensor<2x8x6xf32>, tensor<6x4xf32>) -> tensor<2x8x4xf32>
// CHECK-NOT:  sc.matmul %arg0
// CHECK:      sc.matmul %{{.*}}, %{{.*}} : (tensor<2x2x16xf32>, tensor<16x4xf32>) -> tensor<2x2x4xf32>
// CHECK:      %[[BOT:.*]] = sc.permute %{{.*}} : (tensor<2x2x2x2xf32>) -> tensor<2x2x2x2xf32>
// CHECK:      sc.matmul %{{.*}}, %{{.*}} : (tensor<2x2x16xf32>, tensor<16x4xf32>) -> tensor<2x2x4xf32>
// CHECK:      %[[TOP:.*]] = sc.permute %{{.*}} : (tensor<2x2x2x2xf32>) -> tensor<2x2x2x2xf32>
// CHECK:      %[[IM:.*]] = sc.slice %[[BOT]] {end = array<i64: 2, 2, 2, 2>, start = array<i64: 0, 0, 0, 1>, step = array<i64: 1, 1, 1, 1>} : (tensor<2x2x2x2xf32>) -> tensor<2x2x2x1xf32>
// CHECK-NEXT: %[[C:.*]] = sc.sharding_constraint %[[IM]] : tensor<2x2x2x1xf32> to #sc.sharding<@m, [{"x"}, {}, {}, {}]>
// CHECK-NEXT: return %[[TOP]], %[[C]]
sc.mesh @m ["x"=2]
func.func @slices(%x: tensor<2x8x6xf32>) -> (tensor<2x2x2x2xf32>, tensor<2x2x2x1xf32>) {
  %f = sc.rfft %x {dims = array<i64: 1, 2>} : (tensor<2x8x6xf32>) -> tensor<2x8x4x2xf32>
  %a = sc.slice %f {start = array<i64: 0, 0, 0, 0>, end = array<i64: 2, 2, 2, 2>} : (tensor<2x8x4x2xf32>) -> tensor<2x2x2x2xf32>
  %b = sc.slice %f {start = array<i64: 0, 6, 0, 1>, end = array<i64: 2, 8, 2, 2>, sc.sharding = #sc.sharding<@m, [{"x"}, {}, {}, {}]>} : (tensor<2x8x4x2xf32>) -> tensor<2x2x2x1xf32>
  return %a, %b : tensor<2x2x2x2xf32>, tensor<2x2x2x1xf32>
}

// -----

// A pinned transform is computed whole (its pin must hold), slices or not.
// CHECK-LABEL: func.func @pinned_with_slice
// CHECK:      sc.matmul %arg0, %{{.*}} : (tensor<2x8xf32>, tensor<8x10xf32>) -> tensor<2x10xf32>
// CHECK-NEXT: %[[R:.*]] = sc.reshape %{{.*}} {sc.sharding = #sc.sharding<@m, [{"x"}, {}, {}]>} : (tensor<2x10xf32>) -> tensor<2x5x2xf32>
// CHECK-NEXT: sc.slice %[[R]]
sc.mesh @m ["x"=2]
func.func @pinned_with_slice(%x: tensor<2x8xf32>) -> tensor<2x2x2xf32> {
  %f = sc.rfft %x {sc.sharding = #sc.sharding<@m, [{"x"}, {}, {}]>} : (tensor<2x8xf32>) -> tensor<2x5x2xf32>
  %a = sc.slice %f {start = array<i64: 0, 0, 0>, end = array<i64: 2, 2, 2>} : (tensor<2x5x2xf32>) -> tensor<2x2x2xf32>
  return %a : tensor<2x2x2xf32>
}

// -----

// The zero block of a concat and a zero pad drop the matrices' rows: each
// corner of modes is its own GEMM (4 rows: 2 bins x real/imaginary), the
// sum feeds the irfft's GEMM of the 2 padded-to-4 bins (4 rows, not 8).
// The concat, zeros and pad are gone.
// CHECK-LABEL: func.func @zero_blocks
// CHECK-NOT:  sc.concat
// CHECK-NOT:  sc.pad
// CHECK:      sc.matmul %{{.*}}, %{{.*}} : (tensor<1x2x4xf32>, tensor<4x16xf32>) -> tensor<1x2x16xf32>
// CHECK:      sc.matmul %{{.*}}, %{{.*}} : (tensor<1x2x4xf32>, tensor<4x16xf32>) -> tensor<1x2x16xf32>
// CHECK:      sc.add
// CHECK:      sc.matmul %{{.*}}, %{{.*}} : (tensor<1x8x4xf32>, tensor<4x6xf32>) -> tensor<1x8x6xf32>
// CHECK-NEXT: return
func.func @zero_blocks(%a: tensor<1x2x2x2xf32>, %b: tensor<1x2x2x2xf32>) -> tensor<1x8x6xf32> {
  %z = sc.constant dense<0.0> : tensor<1x4x2x2xf32>
  %c = sc.concat %a, %z, %b {dim = 1} : (tensor<1x2x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x8x2x2xf32>
  %p = sc.pad %c {pad = array<i64: 0, 0, 0, 2>} : (tensor<1x8x2x2xf32>) -> tensor<1x8x4x2xf32>
  %y = sc.irfft %p {dims = array<i64: 1, 2>, sizes = array<i64: 8, 6>} : (tensor<1x8x4x2xf32>) -> tensor<1x8x6xf32>
  return %y : tensor<1x8x6xf32>
}

// -----

// A pad that is not zero, or pads a dim not transformed, stays input.
// CHECK-LABEL: func.func @pads_kept
// CHECK:      %[[P:.*]] = sc.pad %arg0 {pad = array<i64: 0, 0, 0, 2>, value = 1.000000e+00 : f64}
// CHECK:      sc.permute %[[P]]
// CHECK:      %[[Q:.*]] = sc.pad %arg0 {pad = array<i64: 0, 0, 1, 0, 0, 0>}
// CHECK:      sc.permute %[[Q]]
func.func @pads_kept(%a: tensor<2x3x2xf32>) -> (tensor<5x3x2xf32>, tensor<2x4x2xf32>) {
  %p = sc.pad %a {pad = array<i64: 0, 0, 0, 2>, value = 1.0} : (tensor<2x3x2xf32>) -> tensor<2x5x2xf32>
  %y = sc.fft %p {dims = array<i64: 0>, sizes = array<i64: 5>} : (tensor<2x5x2xf32>) -> tensor<5x5x2xf32>
  %s = sc.slice %y {start = array<i64: 0, 0, 0>, end = array<i64: 5, 3, 2>} : (tensor<5x5x2xf32>) -> tensor<5x3x2xf32>
  %q = sc.pad %a {pad = array<i64: 0, 0, 1, 0, 0, 0>} : (tensor<2x3x2xf32>) -> tensor<2x4x2xf32>
  %w = sc.fft %q {dims = array<i64: 0>} : (tensor<2x4x2xf32>) -> tensor<2x4x2xf32>
  return %s, %w : tensor<5x3x2xf32>, tensor<2x4x2xf32>
}

// -----

// Nothing to read (an empty transformed dim, zero-padded): zeros.
// CHECK-LABEL: func.func @empty
// CHECK-NEXT: %[[A:.*]] = sc.constant dense<0.000000e+00> : tensor<4x3x2xf32>
// CHECK-NEXT: %[[B:.*]] = sc.constant dense<0.000000e+00> : tensor<2x3x2xf32>
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @empty(%x: tensor<0x3x2xf32>, %e: tensor<2x0xf32>) -> (tensor<4x3x2xf32>, tensor<2x3x2xf32>) {
  %y = sc.fft %x {dims = array<i64: 0>, sizes = array<i64: 4>} : (tensor<0x3x2xf32>) -> tensor<4x3x2xf32>
  %w = sc.rfft %e {sizes = array<i64: 4>} : (tensor<2x0xf32>) -> tensor<2x3x2xf32>
  return %y, %w : tensor<4x3x2xf32>, tensor<2x3x2xf32>
}

// -----

// The same blocks concatenated along dim -3 (negative, as torch.cat takes).
// CHECK-LABEL: func.func @zero_blocks_negative_dim
// CHECK-NOT:  sc.concat
// CHECK:      sc.matmul %{{.*}}, %{{.*}} : (tensor<1x2x4xf32>, tensor<4x16xf32>) -> tensor<1x2x16xf32>
func.func @zero_blocks_negative_dim(%a: tensor<1x2x2x2xf32>, %b: tensor<1x2x2x2xf32>) -> tensor<1x8x6xf32> {
  %z = sc.constant dense<0.0> : tensor<1x4x2x2xf32>
  %c = sc.concat %a, %z, %b {dim = -3} : (tensor<1x2x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x8x2x2xf32>
  %p = sc.pad %c {pad = array<i64: 0, 0, 0, 2>} : (tensor<1x8x2x2xf32>) -> tensor<1x8x4x2xf32>
  %y = sc.irfft %p {dims = array<i64: 1, 2>, sizes = array<i64: 8, 6>} : (tensor<1x8x4x2xf32>) -> tensor<1x8x6xf32>
  return %y : tensor<1x8x6xf32>
}

// -----

// A pinned zero pad is not folded away: its pin must hold, so the GEMM
// reads the padded tensor (8 points, 16 rows).
// CHECK-LABEL: func.func @pinned_pad_kept
// CHECK:      %[[P:.*]] = sc.pad %arg0 {pad = array<i64: 0, 0, 2, 2>, sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}
// CHECK:      sc.reshape %[[P]] : (tensor<8x2xf32>) -> tensor<16xf32>
// CHECK:      sc.matmul %{{.*}}, %{{.*}} : (tensor<16xf32>, tensor<16x16xf32>) -> tensor<16xf32>
sc.mesh @m ["x"=2]
func.func @pinned_pad_kept(%x: tensor<4x2xf32>) -> tensor<8x2xf32> {
  %p = sc.pad %x {pad = array<i64: 0, 0, 2, 2>, sc.sharding = #sc.sharding<@m, [{"x"}, {}]>} : (tensor<4x2xf32>) -> tensor<8x2xf32>
  %f = sc.fft %p {dims = array<i64: 0>} : (tensor<8x2xf32>) -> tensor<8x2xf32>
  return %f : tensor<8x2xf32>
}
