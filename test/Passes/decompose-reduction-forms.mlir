// RUN: shardc-opt %s -split-input-file -sc-decompose-forms -mlir-print-debuginfo | FileCheck %s

// sc-decompose-forms rewrites sc.logsumexp, sc.vector_norm, sc.normalize,
// sc.glu, sc.prod and the adaptive pools into core ops; each new op keeps the
// replaced op's location, the last one its pin.

// glu over the default last dim: two halves, a sigmoid and a product.
// CHECK-LABEL: func.func @glu
// CHECK:      %[[A:.*]] = sc.slice %arg0 {end = array<i64: 2, 3>, start = array<i64: 0, 0>} : (tensor<2x6xf32>) -> tensor<2x3xf32> loc(#[[LOC:.*]])
// CHECK-NEXT: %[[B:.*]] = sc.slice %arg0 {end = array<i64: 2, 6>, start = array<i64: 0, 3>} : (tensor<2x6xf32>) -> tensor<2x3xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[S:.*]] = sc.sigmoid %[[B]] : tensor<2x3xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[Y:.*]] = sc.mul %[[A]], %[[S]] {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc(#[[LOC]])
// CHECK-NEXT: return %[[Y]]
// CHECK:      #[[LOC]] = loc("m.py":3:4)
sc.mesh @m ["x"=2]
func.func @glu(%x: tensor<2x6xf32>) -> tensor<2x3xf32> {
  %y = sc.glu %x {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>} : (tensor<2x6xf32>) -> tensor<2x3xf32> loc("m.py":3:4)
  return %y : tensor<2x3xf32>
}

// -----

// 8 -> 4 is a pool of 2; 7 -> 3 windows [0, 3), [2, 5), [4, 7), each a
// mean; an output the size of the input is the input (its pin a
// constraint).
// CHECK-LABEL: func.func @pools
// CHECK:      %[[P:.*]] = sc.avg_pool %arg0 {kernel_size = array<i64: 2, 1>, stride = array<i64: 2, 1>} : (tensor<1x2x8x7xf32>) -> tensor<1x2x4x7xf32>
// CHECK-NEXT: %[[W0:.*]] = sc.slice %[[P]] {end = array<i64: 1, 2, 4, 3>, start = array<i64: 0, 0, 0, 0>}
// CHECK-NEXT: %[[M0:.*]] = sc.mean %[[W0]] {dims = array<i64: 3>, keepdim = true}
// CHECK-NEXT: %[[W1:.*]] = sc.slice %[[P]] {end = array<i64: 1, 2, 4, 5>, start = array<i64: 0, 0, 0, 2>}
// CHECK-NEXT: %[[M1:.*]] = sc.mean %[[W1]] {dims = array<i64: 3>, keepdim = true}
// CHECK-NEXT: %[[W2:.*]] = sc.slice %[[P]] {end = array<i64: 1, 2, 4, 7>, start = array<i64: 0, 0, 0, 4>}
// CHECK-NEXT: %[[M2:.*]] = sc.mean %[[W2]] {dims = array<i64: 3>, keepdim = true}
// CHECK-NEXT: %[[Y:.*]] = sc.concat %[[M0]], %[[M1]], %[[M2]] {dim = 3 : i64} : (tensor<1x2x4x1xf32>, tensor<1x2x4x1xf32>, tensor<1x2x4x1xf32>) -> tensor<1x2x4x3xf32>
// CHECK-NEXT: %[[Z:.*]] = sc.sharding_constraint %arg0 : tensor<1x2x8x7xf32> to #sc.sharding<@m, [{}, {}, {"x"}, {}]>
// CHECK-NEXT: return %[[Y]], %[[Z]]
sc.mesh @m ["x"=2]
func.func @pools(%x: tensor<1x2x8x7xf32>) -> (tensor<1x2x4x3xf32>, tensor<1x2x8x7xf32>) {
  %y = sc.adaptive_avg_pool %x {output_size = array<i64: 4, 3>} : (tensor<1x2x8x7xf32>) -> tensor<1x2x4x3xf32>
  %z = sc.adaptive_max_pool %x {output_size = array<i64: 8, 7>, sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}, {}]>} : (tensor<1x2x8x7xf32>) -> tensor<1x2x8x7xf32>
  return %y, %z : tensor<1x2x4x3xf32>, tensor<1x2x8x7xf32>
}

// -----

// The 1-norm sums magnitudes; normalize divides by max(2-norm, eps), the
// norm kept for broadcasting.
// CHECK-LABEL: func.func @norms
// CHECK:      %[[A:.*]] = sc.abs %arg0
// CHECK-NEXT: %[[N:.*]] = sc.sum %[[A]] {dims = array<i64: 1>} : (tensor<3x4xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[SQ:.*]] = sc.mul %arg0, %arg0
// CHECK-NEXT: %[[S:.*]] = sc.sum %[[SQ]] {dims = array<i64: 1>, keepdim = true} : (tensor<3x4xf32>) -> tensor<3x1xf32>
// CHECK-NEXT: %[[R:.*]] = sc.sqrt %[[S]]
// CHECK-NEXT: %[[E:.*]] = sc.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[D:.*]] = sc.maximum %[[R]], %[[E]]
// CHECK-NEXT: %[[U:.*]] = sc.div %arg0, %[[D]] : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: return %[[N]], %[[U]]
func.func @norms(%x: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<3x4xf32>) {
  %n = sc.vector_norm %x {ord = 1.0, dims = array<i64: 1>} : (tensor<3x4xf32>) -> tensor<3xf32>
  %u = sc.normalize %x {eps = 0.5} : tensor<3x4xf32>
  return %n, %u : tensor<3xf32>, tensor<3x4xf32>
}

// -----

// logsumexp shifts by the maximum, taken as 0 where it is infinite; the
// shift is viewed without the reduced dim to be added back.
// CHECK-LABEL: func.func @logsumexp
// CHECK:      %[[M:.*]] = sc.amax %arg0 {dims = array<i64: 1>, keepdim = true} : (tensor<4x5xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[INF:.*]] = sc.constant dense<0x7F800000> : tensor<f32>
// CHECK-NEXT: %[[ABS:.*]] = sc.abs %[[M]]
// CHECK-NEXT: %[[IS:.*]] = sc.compare %[[ABS]], %[[INF]] {predicate = "eq"}
// CHECK-NEXT: %[[Z:.*]] = sc.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SH:.*]] = sc.select %[[IS]], %[[Z]], %[[M]]
// CHECK-NEXT: %[[D:.*]] = sc.sub %arg0, %[[SH]]
// CHECK-NEXT: %[[E:.*]] = sc.exp %[[D]]
// CHECK-NEXT: %[[S:.*]] = sc.sum %[[E]] {dims = array<i64: 1>} : (tensor<4x5xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[B:.*]] = sc.reshape %[[SH]] : (tensor<4x1xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[L:.*]] = sc.log %[[S]]
// CHECK-NEXT: %[[Y:.*]] = sc.add %[[L]], %[[B]]
// CHECK-NEXT: %[[NONE:.*]] = sc.constant dense<0xFF800000> : tensor<2xf32>
// CHECK-NEXT: return %[[Y]], %[[NONE]]
func.func @logsumexp(%x: tensor<4x5xf32>, %e: tensor<2x0xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %y = sc.logsumexp %x {dims = array<i64: 1>} : (tensor<4x5xf32>) -> tensor<4xf32>
  %z = sc.logsumexp %e {dims = array<i64: 1>} : (tensor<2x0xf32>) -> tensor<2xf32>
  return %y, %z : tensor<4xf32>, tensor<2xf32>
}

// -----

// rms_norm: the mean of squares kept for broadcasting, float32's machine
// epsilon (2^-23) when none is given, then the weight.
// CHECK-LABEL: func.func @rms_norm
// CHECK:      %[[SQ:.*]] = sc.mul %arg0, %arg0
// CHECK-NEXT: %[[M:.*]] = sc.mean %[[SQ]] {dims = array<i64: 2>, keepdim = true} : (tensor<2x6x9xf32>) -> tensor<2x6x1xf32>
// CHECK-NEXT: %[[E:.*]] = sc.constant dense<1.1920929E-7> : tensor<f32>
// CHECK-NEXT: %[[S:.*]] = sc.add %[[M]], %[[E]]
// CHECK-NEXT: %[[R:.*]] = sc.rsqrt %[[S]]
// CHECK-NEXT: %[[N:.*]] = sc.mul %arg0, %[[R]]
// CHECK-NEXT: %[[Y:.*]] = sc.mul %[[N]], %arg1 : (tensor<2x6x9xf32>, tensor<9xf32>) -> tensor<2x6x9xf32>
// CHECK-NEXT: return %[[Y]]
func.func @rms_norm(%x: tensor<2x6x9xf32>, %w: tensor<9xf32>) -> tensor<2x6x9xf32> {
  %y = sc.rms_norm %x, %w {normalized_shape = array<i64: 9>} : (tensor<2x6x9xf32>, tensor<9xf32>) -> tensor<2x6x9xf32>
  return %y : tensor<2x6x9xf32>
}

// -----

// ATen's default eps: float's machine epsilon for bf16 (computed in float),
// double's for f64.
// CHECK-LABEL: func.func @rms_norm_default_eps
// CHECK:      sc.constant dense<1.192090e-07> : tensor<bf16>
// CHECK:      sc.constant dense<2.2204460492503131E-16> : tensor<f64>
func.func @rms_norm_default_eps(%x: tensor<2x4xbf16>, %y: tensor<2x4xf64>) -> (tensor<2x4xbf16>, tensor<2x4xf64>) {
  %a = sc.rms_norm %x {normalized_shape = array<i64: 4>} : (tensor<2x4xbf16>) -> tensor<2x4xbf16>
  %b = sc.rms_norm %y {normalized_shape = array<i64: 4>} : (tensor<2x4xf64>) -> tensor<2x4xf64>
  return %a, %b : tensor<2x4xbf16>, tensor<2x4xf64>
}

// -----

// prod: the reduced dims moved last and merged (so the product stays in
// double), one cumprod and a slice of its last element, then a reshape to
// the result; over no elements a constant 1; a scalar's is a cumprod of it
// (the identity), which keeps the pin.
sc.mesh @m ["x"=2]
// CHECK-LABEL: func.func @prod
// CHECK:      %[[T:.*]] = sc.permute %arg0 {dims = array<i64: 1, 0, 2>} : (tensor<4x5x3xf32>) -> tensor<5x4x3xf32> loc(#[[LOC:.*]])
// CHECK-NEXT: %[[M:.*]] = sc.reshape %[[T]] : (tensor<5x4x3xf32>) -> tensor<5x12xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[C:.*]] = sc.cumprod %[[M]] {dim = 1 : i64} : (tensor<5x12xf32>) -> tensor<5x12xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[S:.*]] = sc.slice %[[C]] {end = array<i64: 5, 12>, start = array<i64: 0, 11>} : (tensor<5x12xf32>) -> tensor<5x1xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[P:.*]] = sc.reshape %[[S]] {sc.sharding = #sc.sharding<@m, [{"x"}]>} : (tensor<5x1xf32>) -> tensor<5xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[K:.*]] = sc.cumprod %arg0 {dim = 1 : i64} : (tensor<4x5x3xf32>) -> tensor<4x5x3xf32>
// CHECK-NEXT: %[[KS:.*]] = sc.slice %[[K]] {end = array<i64: 4, 5, 3>, start = array<i64: 0, 4, 0>} : (tensor<4x5x3xf32>) -> tensor<4x1x3xf32>
// CHECK-NOT:  sc.reshape
// CHECK:      %[[E:.*]] = sc.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK:      %[[Q:.*]] = sc.cumprod %arg2 {dim = 0 : i64, sc.sharding = #sc.sharding<@m, []>} : (tensor<f32>) -> tensor<f32>
// CHECK:      return %[[P]], %[[KS]], %[[E]], %[[Q]]
// CHECK:      #[[LOC]] = loc("prod.mlir":1:1)
func.func @prod(%x: tensor<4x5x3xf32>, %e: tensor<2x0xf32>, %s: tensor<f32>) -> (tensor<5xf32>, tensor<4x1x3xf32>, tensor<2xf32>, tensor<f32>) {
  %p = sc.prod %x {dims = array<i64: 0, -1>, sc.sharding = #sc.sharding<@m, [{"x"}]>} : (tensor<4x5x3xf32>) -> tensor<5xf32> loc("prod.mlir":1:1)
  %k = sc.prod %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x5x3xf32>) -> tensor<4x1x3xf32>
  %z = sc.prod %e {dims = array<i64: 1>} : (tensor<2x0xf32>) -> tensor<2xf32>
  %q = sc.prod %s {sc.sharding = #sc.sharding<@m, []>} : (tensor<f32>) -> tensor<f32>
  return %p, %k, %z, %q : tensor<5xf32>, tensor<4x1x3xf32>, tensor<2xf32>, tensor<f32>
}
