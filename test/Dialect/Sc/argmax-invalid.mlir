// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// PyTorch's refusals for sc.argmax and sc.argmin, one per case, at the op.

// case: dim out of range
func.func @dim_range(%x: tensor<2x4xf32>) {
  // expected-error @+2 {{'sc.argmax' op dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.argmax %x {dim = 2 : i64} : (tensor<2x4xf32>) -> tensor<2xi64>
  return
}

// -----

// case: an index over no elements has no value
func.func @empty_dim(%x: tensor<2x0xf32>) {
  // expected-error @+2 {{'sc.argmin' op reduces dim 1 of size 0; a max or min over no elements has no value}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.argmin %x {dim = 1 : i64} : (tensor<2x0xf32>) -> tensor<2xi64>
  return
}

// -----

// case: the result is int64, not the input's type
func.func @float_result(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'sc.argmax' op result #0 must be statically shaped tensor of 64-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = sc.argmax %x {dim = 1 : i64} : (tensor<2x4xf32>) -> tensor<2xf32>
  return
}

// -----

// case: an integer input
func.func @int_input(%x: tensor<2x4xi64>) {
  // expected-error @+1 {{'sc.argmax' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<2x4xi64>'}}
  %0 = sc.argmax %x {dim = 1 : i64} : (tensor<2x4xi64>) -> tensor<2xi64>
  return
}

// -----

// case: torch.max(x, dim) needs a dim (torch.max(x) is sc.amax)
func.func @max_without_dim(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'sc.max' op requires attribute 'dim'}}
  %v, %i = sc.max %x : (tensor<2x4xf32>) -> (tensor<f32>, tensor<i64>)
  return
}

// -----

// case: max over an empty dim
func.func @max_empty(%x: tensor<2x0xf32>) {
  // expected-error @+2 {{'sc.max' op reduces dim 1 of size 0; a max or min over no elements has no value}}
  // expected-error @+1 {{failed to infer returned types}}
  %v, %i = sc.max %x {dim = 1 : i64} : (tensor<2x0xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  return
}
