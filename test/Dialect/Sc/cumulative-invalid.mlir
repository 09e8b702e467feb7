// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// PyTorch's refusals for the cumulative ops, one per case, at the op's
// location.

// case: dim past the rank
func.func @dim_high(%x: tensor<2x4xf32>) {
  // expected-error @+2 {{'sc.cumsum' op dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.cumsum %x {dim = 2 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// case: negative dim past the rank
func.func @dim_low(%x: tensor<2x4xf32>) {
  // expected-error @+2 {{'sc.logcumsumexp' op dim -3 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.logcumsumexp %x {dim = -3 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// case: a scalar takes only 0 and -1
func.func @scalar_dim(%x: tensor<f32>) {
  // expected-error @+2 {{'sc.cummax' op dim 1 is out of range for rank 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.cummax %x {dim = 1 : i64} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

// case: the result keeps the input's type
func.func @result_type(%x: tensor<2x4xf32>) {
  // expected-error @+2 {{'sc.cumprod' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.cumprod %x {dim = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

// case: the dim is required
func.func @no_dim(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'sc.cummin' op requires attribute 'dim'}}
  %0 = sc.cummin %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// case: integer tensors are not in the dialect
func.func @integer(%x: tensor<2x4xi32>) {
  // expected-error @+1 {{'sc.cumsum' op operand #0 must be}}
  %0 = sc.cumsum %x {dim = 1 : i64} : (tensor<2x4xi32>) -> tensor<2x4xi32>
  return
}
