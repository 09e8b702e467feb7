// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// torch.fft's refusals, one per case, at the op's location.

// case: a complex operand without the trailing (real, imaginary) pair
func.func @not_complex(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{'sc.fft' op needs a complex tensor as torch.view_as_real writes it: at least 2 dims, the last of size 2 (got 4x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.fft %x : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

// case: a lone (real, imaginary) pair has no dim to transform
func.func @scalar_complex(%x: tensor<2xf32>) {
  // expected-error @+2 {{'sc.ifft' op needs a complex tensor as torch.view_as_real writes it: at least 2 dims, the last of size 2 (got 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.ifft %x : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// case: rfft of a rank-0 tensor
func.func @rfft_scalar(%x: tensor<f32>) {
  // expected-error @+2 {{'sc.rfft' op needs a tensor of at least 1 dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.rfft %x : (tensor<f32>) -> tensor<1x2xf32>
  return
}

// -----

// case: dims index the complex tensor, which has one dim fewer
func.func @dim_is_the_pair(%x: tensor<4x6x2xf32>) {
  // expected-error @+2 {{'sc.fft' op dim 2 is out of range for the complex tensor's rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.fft %x {dims = array<i64: 2>} : (tensor<4x6x2xf32>) -> tensor<4x6x2xf32>
  return
}

// -----

// case: a dim listed twice (-1 is 1)
func.func @repeated(%x: tensor<4x6xf32>) {
  // expected-error @+2 {{'sc.rfft' op dim 1 is listed twice}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.rfft %x {dims = array<i64: 1, -1>} : (tensor<4x6xf32>) -> tensor<4x4x2xf32>
  return
}

// -----

// case: no dims
func.func @no_dims(%x: tensor<4x6xf32>) {
  // expected-error @+2 {{'sc.rfft' op needs at least one dim to transform}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.rfft %x {dims = array<i64>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

// case: sizes and dims of different counts
func.func @sizes_count(%x: tensor<4x6x2xf32>) {
  // expected-error @+2 {{'sc.fft' op sizes has 2 values but there are 1 dims to transform; give one per dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.fft %x {sizes = array<i64: 4, 6>} : (tensor<4x6x2xf32>) -> tensor<4x6x2xf32>
  return
}

// -----

// case: a zero length (torch: Invalid number of data points (0) specified)
func.func @zero_points(%x: tensor<4x6x2xf32>) {
  // expected-error @+2 {{'sc.fft' op dim 1 would transform 0 points; each length must be 1 to 2^30}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.fft %x {sizes = array<i64: 0>} : (tensor<4x6x2xf32>) -> tensor<4x0x2xf32>
  return
}

// -----

// case: irfft of one frequency without sizes has 2 * (1 - 1) = 0 points
func.func @irfft_one_bin(%x: tensor<4x1x2xf32>) {
  // expected-error @+2 {{'sc.irfft' op dim 1 would transform 0 points; each length must be 1 to 2^30 (give sizes)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.irfft %x : (tensor<4x1x2xf32>) -> tensor<4x0xf32>
  return
}

// -----

// case: an empty transformed dim without sizes
func.func @empty_dim(%x: tensor<0x6xf32>) {
  // expected-error @+2 {{'sc.rfft' op dim 0 would transform 0 points; each length must be 1 to 2^30 (give sizes)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.rfft %x {dims = array<i64: 0>} : (tensor<0x6xf32>) -> tensor<1x6x2xf32>
  return
}

// -----

// case: a norm torch.fft does not have
func.func @norm(%x: tensor<4x6x2xf32>) {
  // expected-error @+1 {{'sc.fft' op attribute 'norm' failed to satisfy constraint}}
  %0 = sc.fft %x {norm = "none"} : (tensor<4x6x2xf32>) -> tensor<4x6x2xf32>
  return
}

// -----

// case: the declared result disagrees with the halved last dim
func.func @rfft_result(%x: tensor<4x6xf32>) {
  // expected-error @+2 {{'sc.rfft' op inferred type(s) 'tensor<4x4x2xf32>' are incompatible with return type(s) of operation 'tensor<4x6x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.rfft %x : (tensor<4x6xf32>) -> tensor<4x6x2xf32>
  return
}
