// RUN: shardc-opt %s -split-input-file -sc-compute-in-f32 -mlir-print-debuginfo | FileCheck %s

// sc-compute-in-f32: bf16 and f16 ops compute in f32 with each result
// rounded back (PyTorch's eager rounding); ops that only move elements keep
// 16 bits.

// A conv and its activation: the 16-bit operands are cast up (each value
// once, just before its first computing reader, so that a weight's f32
// copy is not live from the start), each result cast back with the op's
// location and pin.
// CHECK-LABEL: func.func @conv_silu
// CHECK-NEXT: %[[X:.*]] = sc.cast %arg0 : tensor<1x4x8x8xbf16> to tensor<1x4x8x8xf32>
// CHECK-NEXT: %[[W:.*]] = sc.cast %arg1 : tensor<4x4x3x3xbf16> to tensor<4x4x3x3xf32>
// CHECK-NEXT: %[[C:.*]] = sc.conv %[[X]], %[[W]] {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}, {}]>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> loc(#[[CONV:.*]])
// CHECK-NEXT: %[[Y:.*]] = sc.cast %[[C]] {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}, {}]>} : tensor<1x4x6x6xf32> to tensor<1x4x6x6xbf16> loc(#[[CONV]])
// CHECK-NEXT: %[[YW:.*]] = sc.cast %[[Y]] : tensor<1x4x6x6xbf16> to tensor<1x4x6x6xf32>
// CHECK-NEXT: %[[S:.*]] = sc.silu %[[YW]] : tensor<1x4x6x6xf32>
// CHECK-NEXT: %[[SN:.*]] = sc.cast %[[S]] : tensor<1x4x6x6xf32> to tensor<1x4x6x6xbf16>
// The second reader of %y reuses its f32 value.
// CHECK-NEXT: %[[SW:.*]] = sc.cast %[[SN]] : tensor<1x4x6x6xbf16> to tensor<1x4x6x6xf32>
// CHECK-NEXT: %[[A:.*]] = sc.add %[[SW]], %[[YW]] : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT: %[[Z:.*]] = sc.cast %[[A]] : tensor<1x4x6x6xf32> to tensor<1x4x6x6xbf16>
// CHECK-NEXT: return %[[Z]] : tensor<1x4x6x6xbf16>
// CHECK: #[[CONV]] = loc("model.py":3:5)
sc.mesh @m ["x"=2]
func.func @conv_silu(%x: tensor<1x4x8x8xbf16>, %w: tensor<4x4x3x3xbf16>) -> tensor<1x4x6x6xbf16> {
  %y = sc.conv %x, %w {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}, {}]>} : (tensor<1x4x8x8xbf16>, tensor<4x4x3x3xbf16>) -> tensor<1x4x6x6xbf16> loc("model.py":3:5)
  %s = sc.silu %y : tensor<1x4x6x6xbf16>
  %z = sc.add %s, %y : (tensor<1x4x6x6xbf16>, tensor<1x4x6x6xbf16>) -> tensor<1x4x6x6xbf16>
  return %z : tensor<1x4x6x6xbf16>
}

// -----

// Moving elements is exact: reshape, permute, slice, concat, a zero pad
// and a reflect pad stay f16. A pad with another fill value is widened (the
// fill is rounded with the result), and so is -0.0's.
// CHECK-LABEL: func.func @moves
// CHECK-NEXT: %[[R:.*]] = sc.reshape %arg0 : (tensor<2x6xf16>) -> tensor<3x4xf16>
// CHECK-NEXT: %[[P:.*]] = sc.permute %[[R]] {{.*}} : (tensor<3x4xf16>) -> tensor<4x3xf16>
// CHECK-NEXT: %[[S:.*]] = sc.slice %[[P]] {{.*}} : (tensor<4x3xf16>) -> tensor<2x3xf16>
// CHECK-NEXT: %[[C:.*]] = sc.concat %[[S]], %[[S]] {{.*}} : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<4x3xf16>
// CHECK-NEXT: %[[Z:.*]] = sc.pad %[[C]] {pad = array<i64: 1, 1>} : (tensor<4x3xf16>) -> tensor<4x5xf16>
// CHECK-NEXT: %[[F:.*]] = sc.pad %[[Z]] {mode = "reflect", pad = array<i64: 1, 1>} : (tensor<4x5xf16>) -> tensor<4x7xf16>
// CHECK-NEXT: %[[W:.*]] = sc.cast %[[F]] : tensor<4x7xf16> to tensor<4x7xf32>
// CHECK-NEXT: %[[O:.*]] = sc.pad %[[W]] {pad = array<i64: 1, 1>, value = 1.000000e-01 : f64} : (tensor<4x7xf32>) -> tensor<4x9xf32>
// CHECK-NEXT: %[[ON:.*]] = sc.cast %[[O]] : tensor<4x9xf32> to tensor<4x9xf16>
// CHECK-NEXT: %[[OW:.*]] = sc.cast %[[ON]] : tensor<4x9xf16> to tensor<4x9xf32>
// CHECK-NEXT: %[[M:.*]] = sc.pad %[[OW]] {pad = array<i64: 0, 1>, value = -0.000000e+00 : f64} : (tensor<4x9xf32>) -> tensor<4x10xf32>
// CHECK-NEXT: %[[MN:.*]] = sc.cast %[[M]] : tensor<4x10xf32> to tensor<4x10xf16>
// CHECK-NEXT: return %[[MN]]
func.func @moves(%x: tensor<2x6xf16>) -> tensor<4x10xf16> {
  %r = sc.reshape %x : (tensor<2x6xf16>) -> tensor<3x4xf16>
  %p = sc.permute %r {dims = array<i64: 1, 0>} : (tensor<3x4xf16>) -> tensor<4x3xf16>
  %s = sc.slice %p {start = array<i64: 0, 0>, end = array<i64: 2, 3>} : (tensor<4x3xf16>) -> tensor<2x3xf16>
  %c = sc.concat %s, %s {dim = 0} : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<4x3xf16>
  %z = sc.pad %c {pad = array<i64: 1, 1>} : (tensor<4x3xf16>) -> tensor<4x5xf16>
  %f = sc.pad %z {pad = array<i64: 1, 1>, mode = "reflect"} : (tensor<4x5xf16>) -> tensor<4x7xf16>
  %o = sc.pad %f {pad = array<i64: 1, 1>, value = 0.1} : (tensor<4x7xf16>) -> tensor<4x9xf16>
  %m = sc.pad %o {pad = array<i64: 0, 1>, value = -0.0} : (tensor<4x9xf16>) -> tensor<4x10xf16>
  return %m : tensor<4x10xf16>
}

// -----

// A 16-bit constant: computing ops read an exact f32 copy; a move reads it
// cast down (exact too).
// CHECK-LABEL: func.func @constants
// CHECK-NEXT: %[[C:.*]] = sc.constant dense<[1.000000e+00, 3.140625, -2.500000e-01]> : tensor<3xf32>
// CHECK-NEXT: %[[CN:.*]] = sc.cast %[[C]] : tensor<3xf32> to tensor<3xbf16>
// CHECK-NEXT: %[[X:.*]] = sc.cast %arg0 : tensor<3xbf16> to tensor<3xf32>
// CHECK-NEXT: %[[M:.*]] = sc.mul %[[X]], %[[C]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[MN:.*]] = sc.cast %[[M]] : tensor<3xf32> to tensor<3xbf16>
// CHECK-NEXT: %[[R:.*]] = sc.concat %[[MN]], %[[CN]]
// CHECK-NEXT: return %[[R]]
func.func @constants(%x: tensor<3xbf16>) -> tensor<6xbf16> {
  %c = sc.constant dense<[1.0, 3.140625, -0.25]> : tensor<3xbf16>
  %m = sc.mul %x, %c : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<3xbf16>
  %r = sc.concat %m, %c {dim = 0} : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<6xbf16>
  return %r : tensor<6xbf16>
}

// -----

// nan_to_num's default bounds are the 16-bit type's largest finite values
// (f32's would round to infinity in bf16); given bounds stay.
// CHECK-LABEL: func.func @nan_to_num
// CHECK: sc.nan_to_num %{{.*}} {neginf = -3.3895313892515355E+38 : f64, posinf = 3.3895313892515355E+38 : f64} : tensor<4xf32>
// CHECK: sc.nan_to_num %{{.*}} {neginf = -6.550400e+04 : f64, posinf = 1.000000e+01 : f64} : tensor<4xf32>
func.func @nan_to_num(%x: tensor<4xbf16>, %h: tensor<4xf16>) -> (tensor<4xbf16>, tensor<4xf16>) {
  %a = sc.nan_to_num %x : tensor<4xbf16>
  %b = sc.nan_to_num %h {posinf = 10.0} : tensor<4xf16>
  return %a, %b : tensor<4xbf16>, tensor<4xf16>
}

// -----

// A comparison's i1 result keeps its type; reductions and norms compute in
// f32 and round once; an explicit cast to f32 is the user's own and stays.
// CHECK-LABEL: func.func @mixed
// CHECK:      %[[X:.*]] = sc.cast %arg0 : tensor<2x8xf16> to tensor<2x8xf32>
// CHECK-NEXT: %[[CMP:.*]] = sc.compare %[[X]], %[[X]] {predicate = "lt"} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xi1>
// CHECK-NEXT: %[[SUM:.*]] = sc.sum %[[X]] {{.*}} -> tensor<2xf32>
// CHECK-NEXT: sc.cast %[[SUM]] : tensor<2xf32> to tensor<2xf16>
// CHECK:      sc.layer_norm %[[X]]{{.*}} -> tensor<2x8xf32>
// CHECK:      %[[U:.*]] = sc.cast %arg0 : tensor<2x8xf16> to tensor<2x8xf32>
// CHECK-NOT:  sc.cast
// CHECK:      return
func.func @mixed(%x: tensor<2x8xf16>) -> (tensor<2x8xi1>, tensor<2xf16>, tensor<2x8xf16>, tensor<2x8xf32>) {
  %c = sc.compare %x, %x {predicate = "lt"} : (tensor<2x8xf16>, tensor<2x8xf16>) -> tensor<2x8xi1>
  %s = sc.sum %x {dims = array<i64: 1>} : (tensor<2x8xf16>) -> tensor<2xf16>
  %n = sc.layer_norm %x {normalized_shape = array<i64: 8>} : (tensor<2x8xf16>) -> tensor<2x8xf16>
  %u = sc.cast %x : tensor<2x8xf16> to tensor<2x8xf32>
  return %c, %s, %n, %u : tensor<2x8xi1>, tensor<2xf16>, tensor<2x8xf16>, tensor<2x8xf32>
}

// -----

// A 16-bit einsum of three operands contracts pairwise, each product
// rounded as torch.einsum's bmm calls are: two matmuls, the first one's
// result cast to bf16 and back before the second.
// CHECK-LABEL: func.func @einsum3
// CHECK-NOT: sc.einsum
// CHECK: %[[M1:.*]] = sc.matmul {{.*}} -> tensor<{{.*}}xf32>
// CHECK-NEXT: %[[R1:.*]] = sc.cast %[[M1]] : tensor<{{.*}}xf32> to tensor<{{.*}}xbf16>
// CHECK: sc.cast %[[R1]]
// CHECK: sc.matmul {{.*}} -> tensor<{{.*}}xf32>
// CHECK-NOT: sc.einsum
// CHECK: return
func.func @einsum3(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>, %c: tensor<4x5xbf16>) -> tensor<2x5xbf16> {
  %y = sc.einsum %a, %b, %c {equation = "ij,jk,kl->il"} : (tensor<2x3xbf16>, tensor<3x4xbf16>, tensor<4x5xbf16>) -> tensor<2x5xbf16>
  return %y : tensor<2x5xbf16>
}

// -----

// An f32 model is left as it is.
// CHECK-LABEL: func.func @f32
// CHECK-NEXT: sc.exp %arg0 : tensor<4xf32>
// CHECK-NEXT: return
func.func @f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = sc.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// An op with several results pins an array: the cast back of each 16-bit
// result takes that result's pin (sc.max's values; its indices stay i64).
// CHECK-LABEL: func.func @max_pins
// CHECK:      %[[V:.*]], %{{.*}} = sc.max %{{.*}} {dim = 0 : i64, sc.sharding = [#sc.sharding<@m, [{"x"}]>, #sc.sharding<@m, [{}]>]} : (tensor<4x6xf32>) -> (tensor<6xf32>, tensor<6xi64>)
// CHECK-NEXT: sc.cast %[[V]] {sc.sharding = #sc.sharding<@m, [{"x"}]>} : tensor<6xf32> to tensor<6xbf16>
sc.mesh @m ["x"=2]
func.func @max_pins(%x: tensor<4x6xbf16>) -> (tensor<6xbf16>, tensor<6xi64>) {
  %v, %i = sc.max %x {dim = 0 : i64, sc.sharding = [#sc.sharding<@m, [{"x"}]>, #sc.sharding<@m, [{}]>]} : (tensor<4x6xbf16>) -> (tensor<6xbf16>, tensor<6xi64>)
  return %v, %i : tensor<6xbf16>, tensor<6xi64>
}
