// RUN: shardc-opt %s -split-input-file -sc-print-sharding-rules -verify-diagnostics -o /dev/null

// Conv: batch and Cout pass through, Cin is contracted, spatial dims windowed.
func.func @conv(%x: tensor<1x2x8xf32>, %w: tensor<4x2x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x8xf32> {
  // expected-remark @+2 {{rule (i, l, k), (j, l, -), (j) -> (i, j, k) {i=1 pass_through, j=4 pass_through, k=8 window, l=2 reduction}}}
  // expected-remark @+1 {{window dim 2 <- operand 0 dim 2: strided n=8 out=8 k=3 s=1 d=1 pad=1/1 zeros; out [0,1) reads [-1,2), out [7,8) reads [6,9)}}
  %y = sc.conv %x, %w, %b {padding = array<i64: 1>} : (tensor<1x2x8xf32>, tensor<4x2x3xf32>, tensor<4xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// Stride-2 conv with asymmetric padding and reflect mode.
func.func @conv_strided(%x: tensor<1x1x7x5xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x4x3xf32> {
  // expected-remark @+3 {{rule}}
  // expected-remark @+2 {{window dim 2 <- operand 0 dim 2: strided n=7 out=4 k=3 s=2 d=1 pad=1/1 reflect; out [0,1) reads [-1,2), out [3,4) reads [5,8)}}
  // expected-remark @+1 {{window dim 3 <- operand 0 dim 3: strided n=5 out=3 k=3 s=2 d=1 pad=1/1 reflect; out [0,1) reads [-1,2), out [2,3) reads [3,6)}}
  %y = sc.conv %x, %w {padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, padding_mode = "reflect"} : (tensor<1x1x7x5xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x4x3xf32>
  return %y : tensor<1x1x4x3xf32>
}

// -----

// Elementwise with broadcasting: the broadcast size-1 dim maps to no factor.
func.func @add(%a: tensor<4x1xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  // expected-remark @+1 {{rule (i, -), (j) -> (i, j) {i=4 pass_through, j=3 pass_through}}}
  %c = sc.add %a, %b : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %c : tensor<4x3xf32>
}

// -----

// Matmul contracts k; linear contracts in_features.
func.func @contractions(%a: tensor<5x2x3xf32>, %b: tensor<3x4xf32>, %w: tensor<6x4xf32>) -> tensor<5x2x6xf32> {
  // expected-remark @+1 {{rule (i, k, j), (j, l) -> (i, k, l) {i=5 pass_through, j=3 reduction, k=2 pass_through, l=4 pass_through}}}
  %c = sc.matmul %a, %b : (tensor<5x2x3xf32>, tensor<3x4xf32>) -> tensor<5x2x4xf32>
  // expected-remark @+1 {{rule (i, j, k), (l, k) -> (i, j, l) {i=5 pass_through, j=2 pass_through, k=4 reduction, l=6 pass_through}}}
  %d = sc.linear %c, %w : (tensor<5x2x4xf32>, tensor<6x4xf32>) -> tensor<5x2x6xf32>
  return %d : tensor<5x2x6xf32>
}

// -----

// Norms and softmax need global statistics over the normalised dims.
func.func @stats(%x: tensor<2x8x6xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8x6xf32> {
  // expected-remark @+1 {{rule (i, j, k), (j), (j) -> (i, j, k) {i=2 pass_through, j=8 statistic, k=6 statistic}}}
  %y = sc.group_norm %x, %g, %b {num_groups = 4} : (tensor<2x8x6xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x6xf32>
  // expected-remark @+1 {{rule (i, j, k) -> (i, j, k) {i=2 pass_through, j=8 pass_through, k=6 statistic}}}
  %z = sc.softmax %y {dim = -1} : (tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  // expected-remark @+1 {{rule (i, j, k) -> (i) {i=2 pass_through, j=8 reduction, k=6 reduction}}}
  %s = sc.sum %z {dims = array<i64: 1, 2>} : (tensor<2x8x6xf32>) -> tensor<2xf32>
  return %z : tensor<2x8x6xf32>
}

// -----

// Transposed conv, nearest upsampling, F.pad, neighbourhood attention.
func.func @windows(%x: tensor<1x2x4xf32>, %w: tensor<2x3x3xf32>, %q: tensor<1x16x2x8xf32>) -> tensor<1x16x2x8xf32> {
  // expected-remark @+2 {{rule}}
  // expected-remark @+1 {{window dim 2 <- operand 0 dim 2: transposed n=4 out=8 k=3 s=2 d=1 pad=1/1 zeros; out [0,1) reads [0,1), out [7,8) reads [3,4)}}
  %t = sc.conv_transpose %x, %w {stride = array<i64: 2>, padding = array<i64: 1>, output_padding = array<i64: 1>} : (tensor<1x2x4xf32>, tensor<2x3x3xf32>) -> tensor<1x3x8xf32>
  // expected-remark @+2 {{rule}}
  // expected-remark @+1 {{window dim 2 <- operand 0 dim 2: resize n=8 out=16 k=1 s=1 d=1 pad=0/0 zeros; out [0,1) reads [0,1), out [15,16) reads [7,8)}}
  %u = sc.interpolate %t {scale_factors = array<f64: 2.0>} : (tensor<1x3x8xf32>) -> tensor<1x3x16xf32>
  // expected-remark @+2 {{rule}}
  // expected-remark @+1 {{window dim 2 <- operand 0 dim 2: pad n=16 out=19 k=1 s=1 d=1 pad=1/2 circular; out [0,1) reads [-1,0), out [18,19) reads [17,18)}}
  %p = sc.pad %u {pad = array<i64: 1, 2>, mode = "circular"} : (tensor<1x3x16xf32>) -> tensor<1x3x19xf32>
  // expected-remark @+3 {{rule (i, j, k, l), (i, j, k, l), (i, j, k, m) -> (i, j, k, m) {i=1 pass_through, j=16 window, k=2 pass_through, l=8 needs_replication, m=8 pass_through}}}
  // expected-remark @+2 {{window dim 1 <- operand 1 dim 1: neighborhood n=16 out=16 k=5 s=1 d=1 pad=0/0 zeros; out [0,1) reads [0,5), out [15,16) reads [11,16)}}
  // expected-remark @+1 {{window dim 1 <- operand 2 dim 1}}
  %a = sc.neighborhood_attention %q, %q, %q {kernel_size = array<i64: 5>} : (tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>) -> tensor<1x16x2x8xf32>
  return %a : tensor<1x16x2x8xf32>
}

// -----

// Reshape: 1-to-1 dims pass through; a dim split in two keeps its split on
// the major part (64 = 8 x 8: the 8 rows of 8), the minor part is whole.
func.func @reshape(%x: tensor<2x512x64xf32>) -> tensor<2x512x8x8xf32> {
  // expected-remark @+1 {{rule (i, j, k*8) -> (i, j, k, l) {i=2 pass_through, j=512 pass_through, k=8 pass_through, l=8 needs_replication}}}
  %y = sc.reshape %x : (tensor<2x512x64xf32>) -> tensor<2x512x8x8xf32>
  return %y : tensor<2x512x8x8xf32>
}

// -----

// Cumulative ops: the scanned dim needs the carry of the shards before it
// (a statistic: one all-gather of totals); a scalar has no factor.
func.func @cumulative(%x: tensor<2x8x6xf32>, %s: tensor<f32>) -> tensor<2x8x6xf32> {
  // expected-remark @+1 {{rule (i, j, k) -> (i, j, k) {i=2 pass_through, j=8 statistic, k=6 pass_through}}}
  %a = sc.cumsum %x {dim = 1 : i64} : (tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  // expected-remark @+1 {{rule (i, j, k) -> (i, j, k) {i=2 pass_through, j=8 pass_through, k=6 statistic}}}
  %b = sc.logcumsumexp %a {dim = -1 : i64} : (tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  // expected-remark @+1 {{rule () -> () {}}}
  %c = sc.cummax %s {dim = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %b : tensor<2x8x6xf32>
}
