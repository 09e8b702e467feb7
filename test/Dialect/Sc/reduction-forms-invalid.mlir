// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// PyTorch's refusals for sc.logsumexp, sc.vector_norm, sc.normalize, sc.glu
// and the adaptive pools, one per case, at the op's location.

// case: glu halves an odd dim
func.func @glu_odd(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{'sc.glu' op halves dim 1, which must be even (size 5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.glu %x : (tensor<2x5xf32>) -> tensor<2x2xf32>
  return
}

// -----

// case: glu dim out of range
func.func @glu_dim(%x: tensor<2x4xf32>) {
  // expected-error @+2 {{'sc.glu' op dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.glu %x {dim = 2} : (tensor<2x4xf32>) -> tensor<2x2xf32>
  return
}

// -----

// case: the inf norm of no elements has no value
func.func @inf_norm_empty(%x: tensor<2x0xf32>) {
  // expected-error @+2 {{'sc.vector_norm' op reduces dim 1 of size 0; a max or min over no elements has no value}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.vector_norm %x {ord = 0xFFF0000000000000 : f64, dims = array<i64: 1>} : (tensor<2x0xf32>) -> tensor<2xf32>
  return
}

// -----

// case: a NaN ord
func.func @nan_ord(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'sc.vector_norm' op ord must not be NaN}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.vector_norm %x {ord = 0x7FF8000000000000 : f64} : (tensor<2x3xf32>) -> tensor<f32>
  return
}

// -----

// case: logsumexp over a dim listed twice
func.func @lse_twice(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'sc.logsumexp' op dim -1 is listed twice}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.logsumexp %x {dims = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// case: normalize of a rank-1 tensor over the default dim 1
func.func @normalize_dim(%x: tensor<3xf32>) {
  // expected-error @+1 {{'sc.normalize' op dim 1 is out of range for rank 1}}
  %0 = sc.normalize %x : tensor<3xf32>
  return
}

// -----

// case: an adaptive pool needs (N, C, spatial...) matching its output sizes
func.func @pool_rank(%x: tensor<8x7x9xf32>) {
  // expected-error @+2 {{'sc.adaptive_avg_pool' op needs (N, C, spatial...) with 1 to 3 spatial dims and one output_size per spatial dim (got 2 output sizes for 8x7x9)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.adaptive_avg_pool %x {output_size = array<i64: 2, 2>} : (tensor<8x7x9xf32>) -> tensor<8x2x2xf32>
  return
}

// -----

// case: an empty non-batch dim
func.func @pool_empty(%x: tensor<2x8x0x9xf32>) {
  // expected-error @+2 {{'sc.adaptive_max_pool' op dim 2 is empty; the non-batch dims must not be (as PyTorch)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.adaptive_max_pool %x {output_size = array<i64: 2, 2>} : (tensor<2x8x0x9xf32>) -> tensor<2x8x2x2xf32>
  return
}

// -----

// case: a negative output size
func.func @pool_negative(%x: tensor<2x8x7xf32>) {
  // expected-error @+2 {{'sc.adaptive_avg_pool' op output_size -1 must be 0 to 2^30}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.adaptive_avg_pool %x {output_size = array<i64: -1>} : (tensor<2x8x7xf32>) -> tensor<2x8x7xf32>
  return
}

// -----

// case: rms_norm's normalized_shape is not the input's trailing dims
func.func @rms_shape(%x: tensor<2x8x16xf32>) {
  // expected-error @+2 {{'sc.rms_norm' op normalized_shape 8 does not match the trailing dims of 2x8x16}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.rms_norm %x {normalized_shape = array<i64: 8>} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return
}

// -----

// case: rms_norm's weight of another shape
func.func @rms_weight(%x: tensor<2x8x16xf32>, %w: tensor<8xf32>) {
  // expected-error @+2 {{'sc.rms_norm' op weight must have shape 16 and element type 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.rms_norm %x, %w {normalized_shape = array<i64: 16>} : (tensor<2x8x16xf32>, tensor<8xf32>) -> tensor<2x8x16xf32>
  return
}

// -----

// case: a negative eps
func.func @rms_eps(%x: tensor<2x8x16xf32>) {
  // expected-error @+2 {{'sc.rms_norm' op eps must be finite and not negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.rms_norm %x {normalized_shape = array<i64: 16>, eps = -1.0} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return
}

// -----

// case: a scalar's dims are 0 and -1 only
func.func @normalize_scalar_dim(%x: tensor<f32>) {
  // expected-error @+1 {{'sc.normalize' op dim 1 is out of range for rank 0}}
  %0 = sc.normalize %x : tensor<f32>
  return
}
