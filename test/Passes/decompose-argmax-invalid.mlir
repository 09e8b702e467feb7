// RUN: shardc-opt %s -split-input-file -sc-decompose-forms -verify-diagnostics

// argmax/argmin rank candidates up to twice the extent in f32, exact up to
// 2^24: a reduced extent past 2^23 is refused at the op.
func.func @too_long(%x: tensor<8388609xf32>) -> tensor<i64> {
  // expected-error @+1 {{'sc.argmax' op reduces 8388609 elements; more than 2^23 (8388608) are not supported}}
  %i = sc.argmax %x {dim = 0 : i64} : (tensor<8388609xf32>) -> tensor<i64>
  return %i : tensor<i64>
}

// -----

// Flattened, the extent is every element's.
func.func @too_many(%x: tensor<2048x4097xf32>) -> tensor<i64> {
  // expected-error @+1 {{'sc.argmin' op reduces 8390656 elements; more than 2^23 (8388608) are not supported}}
  %i = sc.argmin %x : (tensor<2048x4097xf32>) -> tensor<i64>
  return %i : tensor<i64>
}

// -----

// 2^23 elements are accepted (candidates up to 2^24, exact in f32).
func.func @longest(%x: tensor<8388608xf32>) -> tensor<i64> {
  %i = sc.argmax %x {dim = 0 : i64} : (tensor<8388608xf32>) -> tensor<i64>
  return %i : tensor<i64>
}
