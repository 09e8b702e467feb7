// RUN: shardc-opt %s -split-input-file -sc-decompose-forms -mlir-print-debuginfo | FileCheck %s

// sc-decompose-forms rewrites sc.argmax / sc.argmin into the extreme, a
// compare against it and a NaN test, and candidates: i for a NaN, n + i
// for the extreme, 2n elsewhere (so NaN wins even where the extreme's
// reduction lost it); the least candidate c gives c < n ? c : c - n, cast
// to i64. Every new op keeps the replaced op's location, the cast its pin.

// CHECK-LABEL: func.func @argmax_dim
// CHECK:      %[[M:.*]] = sc.amax %arg0 {dims = array<i64: 1>, keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32> loc(#[[LOC:.*]])
// CHECK-NEXT: %[[I:.*]] = sc.constant dense<{{\[\[}}0.000000e+00, 1.000000e+00, 2.000000e+00]]> : tensor<1x3xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[N:.*]] = sc.constant dense<3.000000e+00> : tensor<f32> loc(#[[LOC]])
// CHECK-NEXT: %[[NAN:.*]] = sc.compare %arg0, %arg0 {predicate = "ne"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1> loc(#[[LOC]])
// CHECK-NEXT: %[[HIT:.*]] = sc.compare %arg0, %[[M]] {predicate = "eq"} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xi1> loc(#[[LOC]])
// CHECK-NEXT: %[[S:.*]] = sc.add %[[I]], %[[N]] : (tensor<1x3xf32>, tensor<f32>) -> tensor<1x3xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[TWO_N:.*]] = sc.constant dense<6.000000e+00> : tensor<f32> loc(#[[LOC]])
// CHECK-NEXT: %[[C:.*]] = sc.select %[[HIT]], %[[S]], %[[TWO_N]] : (tensor<2x3xi1>, tensor<1x3xf32>, tensor<f32>) -> tensor<2x3xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[D:.*]] = sc.select %[[NAN]], %[[I]], %[[C]] : (tensor<2x3xi1>, tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[L:.*]] = sc.amin %[[D]] {dims = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[LT:.*]] = sc.compare %[[L]], %[[N]] {predicate = "lt"} : (tensor<2xf32>, tensor<f32>) -> tensor<2xi1> loc(#[[LOC]])
// CHECK-NEXT: %[[U:.*]] = sc.sub %[[L]], %[[N]] : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[F:.*]] = sc.select %[[LT]], %[[L]], %[[U]] : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[R:.*]] = sc.cast %[[F]] {sc.sharding = #sc.sharding<@m, [{"x"}]>} : tensor<2xf32> to tensor<2xi64> loc(#[[LOC]])
// CHECK-NEXT: return %[[R]]
// CHECK:      #[[LOC]] = loc("m.py":7:8)
sc.mesh @m ["x"=2]
func.func @argmax_dim(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  %i = sc.argmax %x {dim = 1 : i64, sc.sharding = #sc.sharding<@m, [{"x"}]>} : (tensor<2x3xf32>) -> tensor<2xi64> loc("m.py":7:8)
  return %i : tensor<2xi64>
}

// -----

// argmin along a negative dim, kept: the least element and a kept amin.
// CHECK-LABEL: func.func @argmin_keepdim
// CHECK:      %[[M:.*]] = sc.amin %arg0 {dims = array<i64: 0>, keepdim = true} : (tensor<2x3xf32>) -> tensor<1x3xf32>
// CHECK:      sc.constant dense<{{\[\[}}0.000000e+00], [1.000000e+00]]> : tensor<2x1xf32>
// CHECK:      sc.amin %{{.*}} {dims = array<i64: 0>, keepdim = true} : (tensor<2x3xf32>) -> tensor<1x3xf32>
// CHECK:      %[[F:.*]] = sc.select
// CHECK-NEXT: sc.cast %[[F]] : tensor<1x3xf32> to tensor<1x3xi64>
func.func @argmin_keepdim(%x: tensor<2x3xf32>) -> tensor<1x3xi64> {
  %i = sc.argmin %x {dim = -2 : i64, keepdim = true} : (tensor<2x3xf32>) -> tensor<1x3xi64>
  return %i : tensor<1x3xi64>
}

// -----

// Without a dim: every dim reduced, the flattened index a sum of per-dim
// constants (i * stride; a size-1 dim adds nothing), so that no split dim
// is gathered; keepdim keeps every dim as 1. A bf16 input is widened first
// (exactly), so that indices past 256 stay exact.
// CHECK-LABEL: func.func @flattened_bf16
// CHECK:      %[[W:.*]] = sc.cast %arg0 : tensor<2x1x300xbf16> to tensor<2x1x300xf32>
// CHECK-NEXT: sc.amax %[[W]] {dims = array<i64: 0, 1, 2>, keepdim = true} : (tensor<2x1x300xf32>) -> tensor<1x1x1xf32>
// CHECK-NEXT: %[[I2:.*]] = sc.constant dense<{{.*}}> : tensor<1x1x300xf32>
// CHECK-NEXT: %[[I0:.*]] = sc.constant dense<{{\[\[\[}}0.000000e+00]], {{\[\[}}3.000000e+02]]]> : tensor<2x1x1xf32>
// CHECK-NEXT: %[[I:.*]] = sc.add %[[I0]], %[[I2]] : (tensor<2x1x1xf32>, tensor<1x1x300xf32>) -> tensor<2x1x300xf32>
// CHECK-NEXT: sc.constant dense<6.000000e+02> : tensor<f32>
// CHECK:      sc.amin %{{.*}} {dims = array<i64: 0, 1, 2>, keepdim = true} : (tensor<2x1x300xf32>) -> tensor<1x1x1xf32>
// CHECK:      %[[F:.*]] = sc.select
// CHECK-NEXT: sc.cast %[[F]] : tensor<1x1x1xf32> to tensor<1x1x1xi64>
func.func @flattened_bf16(%x: tensor<2x1x300xbf16>) -> tensor<1x1x1xi64> {
  %i = sc.argmax %x {keepdim = true} : (tensor<2x1x300xbf16>) -> tensor<1x1x1xi64>
  return %i : tensor<1x1x1xi64>
}

// -----

// A scalar's index is 0: its one element, compared with itself.
// CHECK-LABEL: func.func @scalar
// CHECK:      sc.amin %arg0 {dims = array<i64>, keepdim = true} : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT: sc.constant dense<0.000000e+00> : tensor<f32>
// CHECK:      sc.amin %{{.*}} {dims = array<i64>} : (tensor<f32>) -> tensor<f32>
// CHECK:      %[[F:.*]] = sc.select
// CHECK-NEXT: sc.cast %[[F]] : tensor<f32> to tensor<i64>
func.func @scalar(%x: tensor<f32>) -> tensor<i64> {
  %i = sc.argmin %x {dim = -1 : i64} : (tensor<f32>) -> tensor<i64>
  return %i : tensor<i64>
}

// -----

// A dim past 2^16 counts its indices with a cumsum of a ones splat (minus
// one, times the stride when flattened) instead of holding a constant of
// them: each rank of a split dim computes its own shard's.
// CHECK-LABEL: func.func @long
// CHECK:      %[[ONES:.*]] = sc.constant dense<1.000000e+00> : tensor<1x70000xf32>
// CHECK-NEXT: %[[COUNT:.*]] = sc.cumsum %[[ONES]] {dim = 1 : i64} : (tensor<1x70000xf32>) -> tensor<1x70000xf32>
// CHECK-NEXT: %[[ONE:.*]] = sc.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[I1:.*]] = sc.sub %[[COUNT]], %[[ONE]] : (tensor<1x70000xf32>, tensor<f32>) -> tensor<1x70000xf32>
// CHECK-NEXT: %[[I0:.*]] = sc.constant dense<{{\[\[}}0.000000e+00], [7.000000e+04]]> : tensor<2x1xf32>
// CHECK-NEXT: sc.add %[[I0]], %[[I1]] : (tensor<2x1xf32>, tensor<1x70000xf32>) -> tensor<2x70000xf32>
func.func @long(%x: tensor<2x70000xf32>) -> tensor<i64> {
  %i = sc.argmax %x : (tensor<2x70000xf32>) -> tensor<i64>
  return %i : tensor<i64>
}

// -----

// sc.max along a dim: the kept amax for the values and the argmax's
// decomposition for the indices (whose own amax CSE merges with the
// values'); each result's pin goes to its op.
// CHECK-LABEL: func.func @max_dim
// CHECK:      %[[V:.*]] = sc.amax %arg0 {dims = array<i64: 0>, sc.sharding = #sc.sharding<@m, [{"x"}]>} : (tensor<4x3xf32>) -> tensor<3xf32>
// CHECK:      %[[E:.*]] = sc.amax %arg0 {dims = array<i64: 0>, keepdim = true} : (tensor<4x3xf32>) -> tensor<1x3xf32>
// CHECK:      %[[I:.*]] = sc.cast %{{.*}} {sc.sharding = #sc.sharding<@m, [{}]>} : tensor<3xf32> to tensor<3xi64>
// CHECK:      return %[[V]], %[[I]]
sc.mesh @m ["x"=3]
func.func @max_dim(%x: tensor<4x3xf32>) -> (tensor<3xf32>, tensor<3xi64>) {
  %v, %i = sc.max %x {dim = 0 : i64, sc.sharding = [#sc.sharding<@m, [{"x"}]>, #sc.sharding<@m, [{}]>]} : (tensor<4x3xf32>) -> (tensor<3xf32>, tensor<3xi64>)
  return %v, %i : tensor<3xf32>, tensor<3xi64>
}
