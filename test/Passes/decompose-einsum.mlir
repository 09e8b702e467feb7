// RUN: shardc-opt %s -split-input-file -sc-decompose-forms -mlir-print-debuginfo | FileCheck %s

// sc-decompose-forms makes sc.einsum core ops: per pair of operands (from
// the left) one batched sc.matmul with the shared kept labels as batch dims,
// or a broadcasting sc.mul when nothing is summed; labels only one operand
// has that nothing later needs are summed first. The ops keep the einsum's
// location, the last one its pin.

// FNO's channel mixing: (x, y) batch, b rows, i summed, o columns.
// CHECK-LABEL: func.func @mixing
// CHECK:      %[[A:.*]] = sc.permute %arg0 {dims = array<i64: 2, 3, 0, 1>} : (tensor<2x4x6x5xf32>) -> tensor<6x5x2x4xf32> loc(#[[LOC:.*]])
// CHECK-NEXT: %[[B:.*]] = sc.permute %arg1 {dims = array<i64: 2, 3, 0, 1>} : (tensor<4x3x6x5xf32>) -> tensor<6x5x4x3xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[P:.*]] = sc.matmul %[[A]], %[[B]] : (tensor<6x5x2x4xf32>, tensor<6x5x4x3xf32>) -> tensor<6x5x2x3xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[Y:.*]] = sc.permute %[[P]] {dims = array<i64: 2, 3, 0, 1>, sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}, {}]>} : (tensor<6x5x2x3xf32>) -> tensor<2x3x6x5xf32> loc(#[[LOC]])
// CHECK-NEXT: return %[[Y]]
// CHECK:      #[[LOC]] = loc("fno.py":12:9)
sc.mesh @m ["x"=2]
func.func @mixing(%x: tensor<2x4x6x5xf32>, %w: tensor<4x3x6x5xf32>) -> tensor<2x3x6x5xf32> {
  %y = sc.einsum %x, %w {equation = "bixy,ioxy->boxy", sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}, {}]>} : (tensor<2x4x6x5xf32>, tensor<4x3x6x5xf32>) -> tensor<2x3x6x5xf32> loc("fno.py":12:9)
  return %y : tensor<2x3x6x5xf32>
}

// -----

// A dot product: one row times one column, viewed as a scalar.
// CHECK-LABEL: func.func @dot
// CHECK:      %[[C:.*]] = sc.reshape %arg1 : (tensor<6xf32>) -> tensor<6x1xf32>
// CHECK-NEXT: %[[R:.*]] = sc.reshape %arg0 : (tensor<6xf32>) -> tensor<1x6xf32>
// CHECK-NEXT: %[[P:.*]] = sc.matmul %[[R]], %[[C]] : (tensor<1x6xf32>, tensor<6x1xf32>) -> tensor<1x1xf32>
// CHECK-NEXT: %[[Y:.*]] = sc.reshape %[[P]] : (tensor<1x1xf32>) -> tensor<f32>
// CHECK-NEXT: return %[[Y]]
func.func @dot(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<f32> {
  %y = sc.einsum %a, %b {equation = "i,i->"} : (tensor<6xf32>, tensor<6xf32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// An equation that moves nothing leaves its pin as a constraint; a
// transpose is a permute.
// CHECK-LABEL: func.func @identity
// CHECK:      %[[S:.*]] = sc.sharding_constraint %arg0 : tensor<3x4xf32> to #sc.sharding<@m, [{"x"}, {}]>
// CHECK-NEXT: %[[T:.*]] = sc.permute %arg0 {dims = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: return %[[S]], %[[T]]
sc.mesh @m ["x"=2]
func.func @identity(%a: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<4x3xf32>) {
  %y = sc.einsum %a {equation = "ij", sc.sharding = #sc.sharding<@m, [{"x"}, {}]>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %z = sc.einsum %a {equation = "ij->ji"} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  return %y, %z : tensor<3x4xf32>, tensor<4x3xf32>
}

// -----

// A summed label of size 1 on one side broadcasts: a[i, 0] * sum_k t[k, j],
// a view and a sum, then an outer product.
// CHECK-LABEL: func.func @broadcast_sum
// CHECK:      %[[A:.*]] = sc.reshape %arg0 : (tensor<3x1xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[S:.*]] = sc.sum %arg1 {dims = array<i64: 0>} : (tensor<4x5xf32>) -> tensor<5xf32>
// CHECK-NEXT: %[[C:.*]] = sc.reshape %[[S]] : (tensor<5xf32>) -> tensor<1x5xf32>
// CHECK-NEXT: %[[R:.*]] = sc.reshape %[[A]] : (tensor<3xf32>) -> tensor<3x1xf32>
// CHECK-NEXT: %[[Y:.*]] = sc.mul %[[R]], %[[C]] : (tensor<3x1xf32>, tensor<1x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: return %[[Y]]
func.func @broadcast_sum(%s: tensor<3x1xf32>, %t: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %y = sc.einsum %s, %t {equation = "ik,kj->ij"} : (tensor<3x1xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// -----

// Three operands from the left: i and k, which only one operand has, are
// summed first; j is still needed by the third operand, so the first pair
// multiplies elementwise over it; the second pair sums it in a matmul.
// CHECK-LABEL: func.func @three
// CHECK:      %[[A:.*]] = sc.sum %arg0 {dims = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[B:.*]] = sc.sum %arg1 {dims = array<i64: 1>} : (tensor<4x5xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[T:.*]] = sc.permute %[[A]] {dims = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: %[[V:.*]] = sc.reshape %[[B]] : (tensor<4xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[M:.*]] = sc.mul %[[T]], %[[V]] : (tensor<4x2xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: %[[U:.*]] = sc.permute %[[M]] {dims = array<i64: 1, 0>} : (tensor<4x2xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[Y:.*]] = sc.matmul %[[U]], %arg2 : (tensor<2x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT: return %[[Y]]
func.func @three(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %y = sc.einsum %a, %b, %c {equation = "bij,jk,jl->bl"} : (tensor<2x3x4xf32>, tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// A batch label of size 1 broadcasts to 0 (numpy's rule): the product is
// empty.
// CHECK-LABEL: func.func @broadcast_to_empty
// CHECK:      %[[P:.*]] = sc.mul %arg0, %arg1 : (tensor<1xf32>, tensor<0xf32>) -> tensor<0xf32>
// CHECK-NEXT: return %[[P]]
func.func @broadcast_to_empty(%a: tensor<1xf32>, %b: tensor<0xf32>) -> tensor<0xf32> {
  %y = sc.einsum %a, %b {equation = "i,i->i"} : (tensor<1xf32>, tensor<0xf32>) -> tensor<0xf32>
  return %y : tensor<0xf32>
}
