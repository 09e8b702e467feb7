// RUN: shardc-opt %s -split-input-file -sc-decompose-forms -verify-diagnostics

// argmax/argmin compute indices in f32, exact up to 2^24: a longer reduced
// extent is refused at the op.
func.func @too_long(%x: tensor<16777217xf32>) -> tensor<i64> {
  // expected-error @+1 {{'sc.argmax' op reduces 16777217 elements; indices past 2^24 (16777216) are not supported}}
  %i = sc.argmax %x {dim = 0 : i64} : (tensor<16777217xf32>) -> tensor<i64>
  return %i : tensor<i64>
}

// -----

// Flattened, the extent is every element's.
func.func @too_many(%x: tensor<4096x4097xf32>) -> tensor<i64> {
  // expected-error @+1 {{'sc.argmin' op reduces 16781312 elements; indices past 2^24 (16777216) are not supported}}
  %i = sc.argmin %x : (tensor<4096x4097xf32>) -> tensor<i64>
  return %i : tensor<i64>
}
