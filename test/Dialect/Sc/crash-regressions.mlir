// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// Adversarial inputs that must be rejected with a located diagnostic and
// never crash the verifier or shape inference: rank-0 and zero-size tensors,
// out-of-range negative dims, mixed element types, NaN/zero parameters,
// generic-form ops that lack required attributes or have the wrong operand
// counts, and malformed shardings/meshes. Complements invalid.mlir (which
// covers the ordinary mistakes). Ops that infer their result type also emit
// InferTypeOpInterface's follow-up "failed to infer returned types".

//===----------------------------------------------------------------------===//
// Contractions and attention
//===----------------------------------------------------------------------===//

// case: matmul with a rank-0 operand (torch.matmul needs rank >= 1)
func.func @matmul_rank0(%a: tensor<f32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{operands must have rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.matmul %a, %b : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// case: matmul of two 1-D vectors of different lengths
func.func @matmul_vec_vec_mismatch(%a: tensor<4xf32>, %b: tensor<5xf32>) -> tensor<f32> {
  // expected-error @+2 {{contracting dims differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.matmul %a, %b : (tensor<4xf32>, tensor<5xf32>) -> tensor<f32>
  return %c : tensor<f32>
}

// -----

// case: matmul mixing f16 and f32
func.func @matmul_mixed_types(%a: tensor<3x4xf16>, %b: tensor<4x5xf32>) -> tensor<3x5xf16> {
  // expected-error @+2 {{operand element types differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.matmul %a, %b : (tensor<3x4xf16>, tensor<4x5xf32>) -> tensor<3x5xf16>
  return %c : tensor<3x5xf16>
}

// -----

// case: matmul 1-D x 1-D declared with a non-scalar result
func.func @matmul_vec_vec_result(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<1xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<f32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.matmul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<1xf32>
  return %c : tensor<1xf32>
}

// -----

// case: linear on a rank-0 input
func.func @linear_rank0(%a: tensor<f32>, %w: tensor<6x4xf32>) -> tensor<6xf32> {
  // expected-error @+2 {{input must have rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.linear %a, %w : (tensor<f32>, tensor<6x4xf32>) -> tensor<6xf32>
  return %c : tensor<6xf32>
}

// -----

// case: linear with a 3-D weight
func.func @linear_weight_3d(%a: tensor<4xf32>, %w: tensor<2x3x4xf32>) -> tensor<f32> {
  // expected-error @+2 {{weight must be (out_features, in_features) or (in_features), got 2x3x4}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.linear %a, %w : (tensor<4xf32>, tensor<2x3x4xf32>) -> tensor<f32>
  return %c : tensor<f32>
}

// -----

// case: linear with a rank-0 weight
func.func @linear_weight_0d(%a: tensor<4xf32>, %w: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{weight must be (out_features, in_features) or (in_features), got scalar}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.linear %a, %w : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %c : tensor<f32>
}

// -----

// case: sdpa with a 1-D query
func.func @sdpa_rank1(%q: tensor<8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x5xf32>) -> tensor<5xf32> {
  // expected-error @+2 {{query, key and value need rank >= 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.scaled_dot_product_attention %q, %k, %v : (tensor<8xf32>, tensor<6x8xf32>, tensor<6x5xf32>) -> tensor<5xf32>
  return %c : tensor<5xf32>
}

// -----

// case: sdpa mask of higher rank than the attention scores
func.func @sdpa_mask_rank(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x5xf32>, %m: tensor<2x4x6xf32>) -> tensor<4x5xf32> {
  // expected-error @+2 {{broadcast to 4x6}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.scaled_dot_product_attention %q, %k, %v, %m : (tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x5xf32>, tensor<2x4x6xf32>) -> tensor<4x5xf32>
  return %c : tensor<4x5xf32>
}

// -----

// case: sdpa rank-1 mask of the wrong length (L instead of S)
func.func @sdpa_mask_rank1(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x5xf32>, %m: tensor<4xf32>) -> tensor<4x5xf32> {
  // expected-error @+2 {{broadcast to 4x6}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.scaled_dot_product_attention %q, %k, %v, %m : (tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x5xf32>, tensor<4xf32>) -> tensor<4x5xf32>
  return %c : tensor<4x5xf32>
}

// -----

// case: sdpa scale = NaN (zero and negative scales are PyTorch's, and valid)
func.func @sdpa_scale_nan(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+2 {{scale must be finite}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.scaled_dot_product_attention %q, %k, %v {scale = 0x7FF8000000000000 : f64} : (tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>
  return %c : tensor<4x5xf32>
}

// -----

// case: sdpa batch dims that do not broadcast (2 vs 3)
func.func @sdpa_batch(%q: tensor<2x4x8xf32>, %k: tensor<3x6x8xf32>, %v: tensor<3x6x5xf32>) -> tensor<2x4x5xf32> {
  // expected-error @+2 {{batch dims of query, key and value do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.scaled_dot_product_attention %q, %k, %v : (tensor<2x4x8xf32>, tensor<3x6x8xf32>, tensor<3x6x5xf32>) -> tensor<2x4x5xf32>
  return %c : tensor<2x4x5xf32>
}

// -----

// case: sdpa with five operands in generic form (only one optional mask)
func.func @sdpa_two_masks(%q: tensor<4x8xf32>, %m: tensor<4x4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{operand group starting at #3 requires 0 or 1 element, but found 2}}
  %c = "sc.scaled_dot_product_attention"(%q, %q, %q, %m, %m) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// case: neighborhood_attention on a rank-3 query (no spatial dim)
func.func @na_rank3(%q: tensor<1x8x4xf32>) -> tensor<1x8x4xf32> {
  // expected-error @+2 {{query must be (B, spatial..., heads, D)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.neighborhood_attention %q, %q, %q {kernel_size = array<i64>} : (tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32>) -> tensor<1x8x4xf32>
  return %y : tensor<1x8x4xf32>
}

// -----

// case: neighborhood_attention negative kernel size
func.func @na_negative_kernel(%q: tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32> {
  // expected-error @+2 {{kernel size, stride and dilation must be >= 1 (got -1, 1, 1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.neighborhood_attention %q, %q, %q {kernel_size = array<i64: -1>} : (tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32>
  return %y : tensor<1x8x2x4xf32>
}

// -----

// case: neighborhood_attention dilation 0
func.func @na_zero_dilation(%q: tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32> {
  // expected-error @+2 {{kernel size, stride and dilation must be >= 1 (got 3, 1, 0)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.neighborhood_attention %q, %q, %q {kernel_size = array<i64: 3>, dilation = array<i64: 0>} : (tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32>
  return %y : tensor<1x8x2x4xf32>
}

// -----

// case: neighborhood_attention infinite scale
func.func @na_infinite_scale(%q: tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32> {
  // expected-error @+2 {{scale must be finite}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.neighborhood_attention %q, %q, %q {kernel_size = array<i64: 3>, scale = 0x7FF0000000000000 : f64} : (tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32>
  return %y : tensor<1x8x2x4xf32>
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// -----

// case: a zero-size dim does not broadcast against 2
func.func @broadcast_zero_vs_two(%a: tensor<0xf32>, %b: tensor<2xf32>) -> tensor<0xf32> {
  // expected-error @+2 {{operand shapes 0 and 2 do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.add %a, %b : (tensor<0xf32>, tensor<2xf32>) -> tensor<0xf32>
  return %c : tensor<0xf32>
}

// -----

// case: f16 + f32 needs an explicit cast
func.func @add_mixed_types(%a: tensor<4xf16>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{operand element types differ ('f16' vs 'f32')}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.add %a, %b : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// case: integer operands to a float op
func.func @add_integers(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<2xi32>'}}
  %c = sc.add %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %c : tensor<2xi32>
}

// -----

// case: unary op on integers
func.func @relu_integers(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<2xi32>'}}
  %c = sc.relu %a : tensor<2xi32>
  return %c : tensor<2xi32>
}

// -----

// case: select between f32 and f16
func.func @select_mixed_types(%c0: tensor<2xi1>, %a: tensor<2xf32>, %b: tensor<2xf16>) -> tensor<2xf32> {
  // expected-error @+2 {{true and false values have different element types}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.select %c0, %a, %b : (tensor<2xi1>, tensor<2xf32>, tensor<2xf16>) -> tensor<2xf32>
  return %c : tensor<2xf32>
}

// -----

// case: compare predicate that is not a string
func.func @compare_int_predicate(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xi1> {
  // expected-error @+1 {{attribute 'predicate' failed to satisfy constraint}}
  %c = sc.compare %a, %b {predicate = 3 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %c : tensor<2xi1>
}

// -----

// case: constant of vector type
func.func @constant_vector() -> vector<2xf32> {
  // expected-error @+1 {{tensor of any type values, but got 'vector<2xf32>'}}
  %c = sc.constant dense<1.0> : vector<2xf32>
  return %c : vector<2xf32>
}

// -----

// case: constant whose value is not an elements attribute (generic form)
func.func @constant_scalar_value() -> tensor<3xf32> {
  // expected-error @+1 {{attribute 'value' failed to satisfy constraint: constant vector/tensor attribute}}
  %c = "sc.constant"() {value = 1.0 : f32} : () -> tensor<3xf32>
  return %c : tensor<3xf32>
}

// -----

// case: constant whose value type differs from the result type (generic form)
func.func @constant_type_mismatch() -> tensor<3xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<2xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = "sc.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return %c : tensor<3xf32>
}

//===----------------------------------------------------------------------===//
// Reductions and norms
//===----------------------------------------------------------------------===//

// -----

// case: layer_norm with an empty normalized_shape
func.func @layer_norm_empty_shape(%a: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+2 {{normalized_shape scalar does not match the trailing dims of 2x3x4}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.layer_norm %a {normalized_shape = array<i64>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %c : tensor<2x3x4xf32>
}

// -----

// case: layer_norm normalized_shape longer than the input rank
func.func @layer_norm_shape_too_long(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{normalized_shape 1x4 does not match the trailing dims of 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.layer_norm %a {normalized_shape = array<i64: 1, 4>} : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// case: layer_norm with three affine operands
func.func @layer_norm_three_affine(%a: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{takes at most two affine operands (weight, bias), got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.layer_norm %a, %w, %w, %w {normalized_shape = array<i64: 4>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// case: layer_norm weight of another element type
func.func @layer_norm_weight_type(%a: tensor<4xf32>, %w: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+2 {{weight must have shape 4 and element type 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.layer_norm %a, %w {normalized_shape = array<i64: 4>} : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// case: layer_norm eps = NaN
func.func @layer_norm_nan_eps(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{eps must be finite and not negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.layer_norm %a {normalized_shape = array<i64: 4>, eps = 0x7FF8000000000000 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// case: layer_norm eps typed f32 instead of f64 (generic form)
func.func @layer_norm_f32_eps(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{attribute 'eps' failed to satisfy constraint: 64-bit float attribute}}
  %c = "sc.layer_norm"(%a) {normalized_shape = array<i64: 3>, eps = 1.0e-5 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

// -----

// case: group_norm num_groups = 0 (no division by zero)
func.func @group_norm_zero_groups(%a: tensor<2x4x5xf32>) -> tensor<2x4x5xf32> {
  // expected-error @+2 {{num_groups must be >= 1 (got 0)}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.group_norm %a {num_groups = 0} : (tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  return %c : tensor<2x4x5xf32>
}

// -----

// case: group_norm num_groups negative
func.func @group_norm_negative_groups(%a: tensor<2x4x5xf32>) -> tensor<2x4x5xf32> {
  // expected-error @+2 {{num_groups must be >= 1 (got -2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.group_norm %a {num_groups = -2} : (tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  return %c : tensor<2x4x5xf32>
}

// -----

// case: group_norm on a rank-1 input
func.func @group_norm_rank1(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{input must be (N, C, ...)}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.group_norm %a {num_groups = 2} : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// case: batch_norm on a rank-1 input
func.func @batch_norm_rank1(%a: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{input must be (N, C, ...)}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.batch_norm %a, %m, %v : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// case: batch_norm with only two operands (generic form)
func.func @batch_norm_two_operands(%x: tensor<1x4x4xf32>, %m: tensor<4xf32>) -> tensor<1x4x4xf32> {
  // expected-error @+1 {{expected 3 or more operands, but found 2}}
  %c = "sc.batch_norm"(%x, %m) : (tensor<1x4x4xf32>, tensor<4xf32>) -> tensor<1x4x4xf32>
  return %c : tensor<1x4x4xf32>
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// -----

// case: unsqueeze -4 on rank 2 (valid dims are -3..2)
func.func @unsqueeze_neg_out_of_range(%a: tensor<2x3xf32>) -> tensor<1x2x3xf32> {
  // expected-error @+2 {{dim -4 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.unsqueeze %a {dim = -4} : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
  return %c : tensor<1x2x3xf32>
}

// -----

// case: unsqueeze of a scalar at dim 2 (valid dims are -1..0)
func.func @unsqueeze_scalar_out_of_range(%a: tensor<f32>) -> tensor<1xf32> {
  // expected-error @+2 {{dim 2 is out of range for rank 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.unsqueeze %a {dim = 2} : (tensor<f32>) -> tensor<1xf32>
  return %c : tensor<1xf32>
}

// -----

// case: squeeze -3 on rank 2
func.func @squeeze_neg_out_of_range(%a: tensor<2x1xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{dim -3 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.squeeze %a {dims = array<i64: -3>} : (tensor<2x1xf32>) -> tensor<2xf32>
  return %c : tensor<2xf32>
}

// -----

// case: permute with a negative dim that repeats a positive one (-1 == 2)
func.func @permute_neg_duplicate(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  // expected-error @+2 {{is not a permutation of the 3 dims}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.permute %a {dims = array<i64: -1, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %c : tensor<4x2x3xf32>
}

// -----

// case: permute with a dim below -rank
func.func @permute_neg_out_of_range(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{is not a permutation of the 2 dims}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.permute %a {dims = array<i64: -3, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %c : tensor<3x2xf32>
}

// -----

// case: transpose with a negative dim out of range
func.func @transpose_neg_out_of_range(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{dims 0 and -3 must be in range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.transpose %a {dim0 = 0, dim1 = -3} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %c : tensor<3x2xf32>
}

// -----

// case: concat with no inputs (generic form)
func.func @concat_empty() -> tensor<2x3xf32> {
  // expected-error @+2 {{needs at least one input}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = "sc.concat"() {dim = 0 : i64} : () -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

// -----

// case: concat of rank-0 tensors (torch.cat rejects zero-dim tensors)
func.func @concat_scalars(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{dim 0 is out of range for rank 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.concat %a, %a {dim = 0} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %c : tensor<f32>
}

// -----

// case: concat of f32 and f16
func.func @concat_mixed_types(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) -> tensor<2x6xf32> {
  // expected-error @+2 {{input #1 must have rank 2 and element type 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.concat %a, %b {dim = 1} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x6xf32>
  return %c : tensor<2x6xf32>
}

// -----

// case: concat dim out of range for the inputs
func.func @concat_dim_out_of_range(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{dim -3 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.concat %a, %a {dim = -3} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %c : tensor<2x6xf32>
}

// -----

// case: slice step with the wrong number of values
func.func @slice_step_count(%a: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+2 {{'step' needs 2 values}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.slice %a {start = array<i64: 0, 0>, end = array<i64: 4, 6>, step = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %c : tensor<4x6xf32>
}

// -----

// case: slice with a negative step
func.func @slice_negative_step(%a: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+2 {{step -1 on dim 0 must be >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.slice %a {start = array<i64: 0, 0>, end = array<i64: 4, 6>, step = array<i64: -1, 1>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %c : tensor<4x6xf32>
}

// -----

// case: slice of a zero-size dim past its end
func.func @slice_zero_size_dim(%a: tensor<0x6xf32>) -> tensor<1x6xf32> {
  // expected-error @+2 {{slice [0, 1) of dim 0 is out of range: needs 0 <= start <= end <= 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = sc.slice %a {start = array<i64: 0, 0>, end = array<i64: 1, 6>} : (tensor<0x6xf32>) -> tensor<1x6xf32>
  return %c : tensor<1x6xf32>
}

// -----

// case: reshape of zero elements to a scalar (one element)
func.func @reshape_empty_to_scalar(%a: tensor<0xf32>) -> tensor<f32> {
  // expected-error @+1 {{cannot reshape 0 (0 elements) to scalar (1 elements)}}
  %c = sc.reshape %a : (tensor<0xf32>) -> tensor<f32>
  return %c : tensor<f32>
}

// -----

// case: reshape that changes the element type
func.func @reshape_element_type(%a: tensor<2x3xf32>) -> tensor<6xf16> {
  // expected-error @+1 {{must keep the element type}}
  %c = sc.reshape %a : (tensor<2x3xf32>) -> tensor<6xf16>
  return %c : tensor<6xf16>
}

// -----

// case: broadcast_to a zero-size dim cannot grow to 1
func.func @broadcast_to_from_zero(%a: tensor<0xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{cannot broadcast 0 to 1}}
  %c = sc.broadcast_to %a : (tensor<0xf32>) -> tensor<1xf32>
  return %c : tensor<1xf32>
}

// -----

// case: broadcast_to a lower rank
func.func @broadcast_to_lower_rank(%a: tensor<3x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot broadcast 3x4 to 4}}
  %c = sc.broadcast_to %a : (tensor<3x4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// case: broadcast_to that changes the element type
func.func @broadcast_to_element_type(%a: tensor<1xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{must keep the element type}}
  %c = sc.broadcast_to %a : (tensor<1xf32>) -> tensor<4xf16>
  return %c : tensor<4xf16>
}

//===----------------------------------------------------------------------===//
// Windowed ops
//===----------------------------------------------------------------------===//

// -----

// case: conv with a zero-size kernel
func.func @conv_zero_kernel(%x: tensor<1x1x4xf32>, %w: tensor<1x1x0xf32>) -> tensor<1x1x5xf32> {
  // expected-error @+2 {{kernel size, stride and dilation must be >= 1 (got 0, 1, 1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.conv %x, %w : (tensor<1x1x4xf32>, tensor<1x1x0xf32>) -> tensor<1x1x5xf32>
  return %y : tensor<1x1x5xf32>
}

// -----

// case: conv with a zero-size spatial dim
func.func @conv_zero_spatial(%x: tensor<1x1x0xf32>, %w: tensor<1x1x1xf32>) -> tensor<1x1x0xf32> {
  // expected-error @+2 {{input size must be >= 1 (got 0)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.conv %x, %w : (tensor<1x1x0xf32>, tensor<1x1x1xf32>) -> tensor<1x1x0xf32>
  return %y : tensor<1x1x0xf32>
}

// -----

// case: conv on a rank-6 input (4 spatial dims)
func.func @conv_rank6(%x: tensor<1x1x2x2x2x2xf32>, %w: tensor<1x1x1x1x1x1xf32>) -> tensor<1x1x2x2x2x2xf32> {
  // expected-error @+2 {{input must be (N, C, L), (N, C, H, W) or (N, C, D, H, W); got 1x1x2x2x2x2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.conv %x, %w : (tensor<1x1x2x2x2x2xf32>, tensor<1x1x1x1x1x1xf32>) -> tensor<1x1x2x2x2x2xf32>
  return %y : tensor<1x1x2x2x2x2xf32>
}

// -----

// case: conv with negative groups (no modulo by a negative number)
func.func @conv_negative_groups(%x: tensor<1x4x8xf32>, %w: tensor<4x4x3xf32>) -> tensor<1x4x6xf32> {
  // expected-error @+2 {{groups must be >= 1, got -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.conv %x, %w {groups = -1} : (tensor<1x4x8xf32>, tensor<4x4x3xf32>) -> tensor<1x4x6xf32>
  return %y : tensor<1x4x6xf32>
}

// -----

// case: conv with only one operand (generic form)
func.func @conv_one_operand(%x: tensor<1x1x4xf32>) -> tensor<1x1x4xf32> {
  // expected-error @+1 {{expected 2 or more operands, but found 1}}
  %c = "sc.conv"(%x) : (tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
  return %c : tensor<1x1x4xf32>
}

// -----

// case: conv with two bias operands (generic form)
func.func @conv_two_biases(%x: tensor<1x1x4xf32>, %w: tensor<1x1x1xf32>, %b: tensor<1xf32>) -> tensor<1x1x4xf32> {
  // expected-error @+1 {{operand group starting at #2 requires 0 or 1 element, but found 2}}
  %c = "sc.conv"(%x, %w, %b, %b) : (tensor<1x1x4xf32>, tensor<1x1x1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x4xf32>
  return %c : tensor<1x1x4xf32>
}

// -----

// case: conv_transpose with a zero-size spatial dim
func.func @conv_transpose_zero_spatial(%x: tensor<1x1x0xf32>, %w: tensor<1x1x3xf32>) -> tensor<1x1x2xf32> {
  // expected-error @+2 {{input size must be >= 1 (got 0)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.conv_transpose %x, %w : (tensor<1x1x0xf32>, tensor<1x1x3xf32>) -> tensor<1x1x2xf32>
  return %y : tensor<1x1x2xf32>
}

// -----

// case: conv_transpose negative output_padding
func.func @conv_transpose_negative_output_padding(%x: tensor<1x1x2xf32>, %w: tensor<1x1x3xf32>) -> tensor<1x1x3xf32> {
  // expected-error @+2 {{output padding (-1) must be non-negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.conv_transpose %x, %w {output_padding = array<i64: -1>, stride = array<i64: 2>} : (tensor<1x1x2xf32>, tensor<1x1x3xf32>) -> tensor<1x1x3xf32>
  return %y : tensor<1x1x3xf32>
}

// -----

// case: max_pool with a zero-size spatial dim
func.func @max_pool_zero_spatial(%x: tensor<1x1x0xf32>) -> tensor<1x1x0xf32> {
  // expected-error @+2 {{input size must be >= 1 (got 0)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.max_pool %x {kernel_size = array<i64: 1>} : (tensor<1x1x0xf32>) -> tensor<1x1x0xf32>
  return %y : tensor<1x1x0xf32>
}

// -----

// case: max_pool kernel larger than the input
func.func @max_pool_kernel_too_big(%x: tensor<1x1x2xf32>) -> tensor<1x1x1xf32> {
  // expected-error @+2 {{computed output size (0) is less than 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.max_pool %x {kernel_size = array<i64: 3>} : (tensor<1x1x2xf32>) -> tensor<1x1x1xf32>
  return %y : tensor<1x1x1xf32>
}

// -----

// case: max_pool kernel_size 0 (no division by a zero default stride)
func.func @max_pool_zero_kernel(%x: tensor<1x1x4xf32>) -> tensor<1x1x3xf32> {
  // expected-error @+2 {{kernel_size, stride and dilation must be >= 1 (spatial dim 0)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.max_pool %x {kernel_size = array<i64: 0>} : (tensor<1x1x4xf32>) -> tensor<1x1x3xf32>
  return %y : tensor<1x1x3xf32>
}

// -----

// case: max_pool on a rank-2 input
func.func @max_pool_rank2(%x: tensor<1x4xf32>) -> tensor<1x2xf32> {
  // expected-error @+2 {{input must be (N, C, L)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.max_pool %x {kernel_size = array<i64: 2>} : (tensor<1x4xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// case: interpolate scale factor 0
func.func @interpolate_zero_scale(%x: tensor<1x1x4xf32>) -> tensor<1x1x8xf32> {
  // expected-error @+1 {{must be positive}}
  %y = sc.interpolate %x {scale_factors = array<f64: 0.0>} : (tensor<1x1x4xf32>) -> tensor<1x1x8xf32>
  return %y : tensor<1x1x8xf32>
}

// -----

// case: interpolate scale factor NaN
func.func @interpolate_nan_scale(%x: tensor<1x1x4xf32>) -> tensor<1x1x8xf32> {
  // expected-error @+1 {{scale factor nan must be positive}}
  %y = sc.interpolate %x {scale_factors = array<f64: 0x7FF8000000000000>} : (tensor<1x1x4xf32>) -> tensor<1x1x8xf32>
  return %y : tensor<1x1x8xf32>
}

// -----

// case: interpolate scale factor infinite (it was reported as mapping the
// size to 0)
func.func @interpolate_infinite_scale(%x: tensor<1x1x4xf32>) -> tensor<1x1x8xf32> {
  // expected-error @+1 {{scale factor INF must be positive and finite}}
  %y = sc.interpolate %x {scale_factors = array<f64: 0x7FF0000000000000>} : (tensor<1x1x4xf32>) -> tensor<1x1x8xf32>
  return %y : tensor<1x1x8xf32>
}

// -----

// case: interpolate negative scale factor
func.func @interpolate_negative_scale(%x: tensor<1x1x4xf32>) -> tensor<1x1x8xf32> {
  // expected-error @+1 {{must be positive}}
  %y = sc.interpolate %x {scale_factors = array<f64: -2.0>} : (tensor<1x1x4xf32>) -> tensor<1x1x8xf32>
  return %y : tensor<1x1x8xf32>
}

// -----

// case: interpolate scale factor that shrinks the dim to 0
func.func @interpolate_scale_to_zero(%x: tensor<1x1x4xf32>) -> tensor<1x1x0xf32> {
  // expected-error @+1 {{computed output size (0) is less than 1}}
  %y = sc.interpolate %x {scale_factors = array<f64: 0.1>} : (tensor<1x1x4xf32>) -> tensor<1x1x0xf32>
  return %y : tensor<1x1x0xf32>
}

// -----

// case: interpolate to a zero-size result without scale factors
func.func @interpolate_zero_output(%x: tensor<1x1x4xf32>) -> tensor<1x1x0xf32> {
  // expected-error @+1 {{resize needs a scale factor or an output size >= 1}}
  %y = sc.interpolate %x : (tensor<1x1x4xf32>) -> tensor<1x1x0xf32>
  return %y : tensor<1x1x0xf32>
}

// -----

// case: interpolate from a zero-size input
func.func @interpolate_zero_input(%x: tensor<1x1x0xf32>) -> tensor<1x1x4xf32> {
  // expected-error @+1 {{input size must be >= 1 (got 0)}}
  %y = sc.interpolate %x : (tensor<1x1x0xf32>) -> tensor<1x1x4xf32>
  return %y : tensor<1x1x4xf32>
}

// -----

// case: interpolate on a rank-2 input
func.func @interpolate_rank2(%x: tensor<1x4xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{input must be (N, C, L)}}
  %y = sc.interpolate %x : (tensor<1x4xf32>) -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// case: interpolate that changes the element type
func.func @interpolate_element_type(%x: tensor<1x1x4xf32>) -> tensor<1x1x8xf16> {
  // expected-error @+1 {{must keep the input's rank, batch, channels and element type}}
  %y = sc.interpolate %x : (tensor<1x1x4xf32>) -> tensor<1x1x8xf16>
  return %y : tensor<1x1x8xf16>
}

// -----

// case: interpolate scale_factors of the wrong attribute type (generic form)
func.func @interpolate_int_scales(%x: tensor<1x1x4xf32>) -> tensor<1x1x8xf32> {
  // expected-error @+1 {{attribute 'scale_factors' failed to satisfy constraint: f64 dense array attribute}}
  %c = "sc.interpolate"(%x) {scale_factors = array<i64: 2>} : (tensor<1x1x4xf32>) -> tensor<1x1x8xf32>
  return %c : tensor<1x1x8xf32>
}

// -----

// case: a circular pad that wraps the cropped tensor more than once (F.pad
// checks the amount against the input's size only, then reads unset memory)
func.func @pad_circular_wraps_twice(%x: tensor<3x4xf32>) -> tensor<3x3xf32> {
  // expected-error @+2 {{dim 1: circular padding (2) must not exceed the size left after cropping (1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.pad %x {pad = array<i64: -3, 2>, mode = "circular"} : (tensor<3x4xf32>) -> tensor<3x3xf32>
  return %y : tensor<3x3xf32>
}

// -----

// case: a circular pad whose crops leave nothing to wrap
func.func @pad_circular_crops_all(%x: tensor<3x3xf32>) -> tensor<3x1xf32> {
  // expected-error @+2 {{dim 1: padding (-3, 1) leaves nothing of the input size 3 to wrap}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.pad %x {pad = array<i64: -3, 1>, mode = "circular"} : (tensor<3x3xf32>) -> tensor<3x1xf32>
  return %y : tensor<3x1xf32>
}

// -----

// case: circular crops larger than the dim
func.func @pad_circular_crops_past(%x: tensor<3x4xf32>) -> tensor<3x1xf32> {
  // expected-error @+2 {{dim 1: cropping (-3, -2) exceeds the input size 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.pad %x {pad = array<i64: -3, -2>, mode = "circular"} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  return %y : tensor<3x1xf32>
}

// -----

// case: a circular crop of a dim past the window parameters' range (the
// constant crop it becomes must verify too)
func.func @pad_circular_crop_huge(%x: tensor<1x1073741825xf32>) -> tensor<1x1073741825xf32> {
  // expected-error @+2 {{dim 1: }}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.pad %x {pad = array<i64: -1, 1>, mode = "circular"} : (tensor<1x1073741825xf32>) -> tensor<1x1073741825xf32>
  return %y : tensor<1x1073741825xf32>
}

// -----

// case: a reflect pad that crops everything away
func.func @pad_reflect_crops_all(%x: tensor<3x4xf32>) -> tensor<3x0xf32> {
  // expected-error @+2 {{dim 1: padding (-3, -1) leaves no element of the input size 4; only constant mode may}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.pad %x {pad = array<i64: -3, -1>, mode = "reflect"} : (tensor<3x4xf32>) -> tensor<3x0xf32>
  return %y : tensor<3x0xf32>
}

// -----

// case: replicate pad of a scalar (no dims to pad)
func.func @pad_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{'pad' needs an even number of values, at most 0 for rank 0; got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = sc.pad %x {pad = array<i64: 1, 1>, mode = "replicate"} : (tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Generic form without required attributes (inference must not read them)
//===----------------------------------------------------------------------===//

// -----

// case: permute without dims
func.func @permute_no_dims(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{requires attribute 'dims'}}
  %c = "sc.permute"(%a) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %c : tensor<3x2xf32>
}

// -----

// case: permute dims of the wrong attribute kind
func.func @permute_int_dims(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{attribute 'dims' failed to satisfy constraint: i64 dense array attribute}}
  %c = "sc.permute"(%a) {dims = 3 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %c : tensor<3x2xf32>
}

// -----

// case: transpose without dim1
func.func @transpose_no_dim1(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{requires attribute 'dim1'}}
  %c = "sc.transpose"(%a) {dim0 = 0 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %c : tensor<3x2xf32>
}

// -----

// case: softmax without dim
func.func @softmax_no_dim(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{requires attribute 'dim'}}
  %c = "sc.softmax"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

// -----

// case: slice without start
func.func @slice_no_start(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{requires attribute 'start'}}
  %c = "sc.slice"(%a) {end = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

// -----

// case: layer_norm without normalized_shape
func.func @layer_norm_no_shape(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{requires attribute 'normalized_shape'}}
  %c = "sc.layer_norm"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

// -----

// case: max_pool without kernel_size
func.func @max_pool_no_kernel(%a: tensor<1x1x4xf32>) -> tensor<1x1x4xf32> {
  // expected-error @+1 {{requires attribute 'kernel_size'}}
  %c = "sc.max_pool"(%a) : (tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
  return %c : tensor<1x1x4xf32>
}

// -----

// case: pad without pad
func.func @pad_no_pad(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires attribute 'pad'}}
  %c = "sc.pad"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// case: neighborhood_attention without kernel_size
func.func @na_no_kernel(%q: tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32> {
  // expected-error @+1 {{requires attribute 'kernel_size'}}
  %y = "sc.neighborhood_attention"(%q, %q, %q) : (tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32>
  return %y : tensor<1x8x2x4xf32>
}

// -----

// case: constant without value
func.func @constant_no_value() -> tensor<2xf32> {
  // expected-error @+1 {{requires attribute 'value'}}
  %c = "sc.constant"() : () -> tensor<2xf32>
  return %c : tensor<2xf32>
}

// -----

// case: sharding_constraint without sharding
func.func @constraint_no_sharding(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{requires attribute 'sharding'}}
  %c = "sc.sharding_constraint"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %c : tensor<2xf32>
}

// -----

// case: matmul with a single operand
func.func @matmul_one_operand(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{expected 2 operands, but found 1}}
  %c = "sc.matmul"(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}

// -----

// case: matmul with a non-tensor operand
func.func @matmul_scalar_operand(%x: tensor<4x4xf32>, %y: f32) -> tensor<4x4xf32> {
  // expected-error @+1 {{operand #1 must be}}
  %c = "sc.matmul"(%x, %y) : (tensor<4x4xf32>, f32) -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}

// -----

// case: unary op with two results
func.func @relu_two_results(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires one result}}
  %c:2 = "sc.relu"(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %c#0 : tensor<4xf32>
}

// -----

// case: binary op with no result
func.func @add_no_result(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires one result}}
  "sc.add"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> ()
  return %x : tensor<4xf32>
}

// -----

// case: reshape of an unranked tensor
func.func @reshape_unranked(%x: tensor<*xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{tensor of any type values, but got 'tensor<*xf32>'}}
  %c = "sc.reshape"(%x) : (tensor<*xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// case: interpolate with a non-tensor result
func.func @interpolate_scalar_result(%x: tensor<1x1x4xf32>) -> f32 {
  // expected-error @+1 {{result #0 must be}}
  %c = "sc.interpolate"(%x) : (tensor<1x1x4xf32>) -> f32
  return %c : f32
}

//===----------------------------------------------------------------------===//
// Meshes and shardings
//===----------------------------------------------------------------------===//

// -----

// case: mesh with no axes
// expected-error @+1 {{needs at least one axis}}
sc.mesh @mesh []

// -----

// case: mesh axis with an empty name
// expected-error @+1 {{has an axis with an empty name}}
sc.mesh @mesh [""=2]

// -----

// case: generic mesh with more axis names than sizes
// expected-error @+1 {{has 2 axis names but 1 axis sizes}}
"sc.mesh"() {sym_name = "mesh", axis_names = ["x", "y"], shape = array<i64: 2>} : () -> ()

// -----

// case: generic mesh without its shape
// expected-error @+1 {{requires attribute 'shape'}}
"sc.mesh"() {sym_name = "mesh", axis_names = ["x"]} : () -> ()

// -----

// case: a single sharding on an op with no results (the mesh itself)
// expected-error @+1 {{'sc.sharding' on an op with 0 values needs an array of shardings}}
sc.mesh @mesh ["x"=2] {sc.sharding = #sc.sharding<@mesh, [{"x"}]>}

// -----

// case: a single sharding on a function op (no results)
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{'sc.sharding' on an op with 0 values needs an array of shardings}}
func.func @sharding_on_func(%a: tensor<4xf32>) -> tensor<4xf32> attributes {sc.sharding = #sc.sharding<@mesh, [{"x"}]>} {
  return %a : tensor<4xf32>
}

// -----

// case: an array of two shardings for one result
sc.mesh @mesh ["x"=2]
func.func @sharding_array_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'sc.sharding' has 2 shardings for 1 values}}
  %b = sc.relu %a {sc.sharding = [#sc.sharding<@mesh, [{"x"}]>, #sc.sharding<@mesh, [{"x"}]>]} : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// case: sc.sharding holding an integer
sc.mesh @mesh ["x"=2]
func.func @sharding_integer(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{must be a #sc.sharding or an array of them}}
  %b = sc.relu %a {sc.sharding = 3 : i64} : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// case: sc.sharding array holding an integer
sc.mesh @mesh ["x"=2]
func.func @sharding_array_integer(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{array holds a non-sharding attribute}}
  %b = sc.relu %a {sc.sharding = [3 : i64]} : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// case: an unknown sc.* discardable attribute
func.func @unknown_sc_attr(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown sc attribute}}
  %b = sc.relu %a {sc.foo = 3 : i64} : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// case: the mesh symbol names a function, not a mesh
func.func private @mesh()
// expected-error @+1 {{sharding refers to unknown mesh @mesh}}
func.func @mesh_is_func(%a: tensor<4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}]>}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// case: a sharding on a non-tensor function argument
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{a sharding annotates a ranked tensor, not 'f32'}}
func.func @sharding_scalar_arg(%a: f32 {sc.sharding = #sc.sharding<@mesh, []>}) -> f32 {
  return %a : f32
}

// -----

// case: a nested symbol reference as the mesh
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{invalid kind of attribute specified}}
func.func @nested_mesh_ref(%a: tensor<4xf32> {sc.sharding = #sc.sharding<@mesh::@x, [{"x"}]>}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// case: a string instead of a mesh symbol
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{invalid kind of attribute specified}}
func.func @string_mesh_ref(%a: tensor<4xf32> {sc.sharding = #sc.sharding<"mesh", [{"x"}]>}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// case: a partial sharding with no axes
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{a partial sharding names at least one axis}}
func.func @partial_no_axes(%a: tensor<4xf32> {sc.sharding = #sc.sharding<@mesh, [{}], partial sum {}>}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// case: extents on a dim that is not split
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{dim 0 gives extents but is not split over any axis}}
func.func @extents_unsplit(%a: tensor<4xf32> {sc.sharding = #sc.sharding<@mesh, [{}[4]]>}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// case: a zero-size dim split with a non-zero extent
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{extents of dim 0 sum to 1 but the dim has size 0}}
func.func @extents_zero_dim(%a: tensor<0xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[1, 0]]>}) -> tensor<0xf32> {
  return %a : tensor<0xf32>
}

// -----

// case: reshard of a scalar with a one-dim sharding
sc.mesh @mesh ["x"=2]
func.func @reshard_scalar(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{sharding has 1 dims but the tensor 'tensor<f32>' has rank 0}}
  %b = sc.reshard %a : tensor<f32> to #sc.sharding<@mesh, [{"x"}]>
  return %b : tensor<f32>
}

// -----

// Dynamic dims are rejected: sc programs are statically shaped.
func.func @dynamic_matmul(%a: tensor<?x4xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{statically shaped tensor}}
  %0 = sc.matmul %a, %b : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  return
}

// -----

sc.mesh @mesh ["x"=2]
// expected-error @+1 {{a sharding annotates a statically shaped tensor}}
func.func @dynamic_sharded(%a: tensor<?x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}) {
  return
}

// -----

func.func @negative_divisor(%x: tensor<1x1x8xf32>) {
  // expected-error @+2 {{divisor_override must be in [1, 2^30] (got -3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.avg_pool %x {kernel_size = array<i64: 2>, divisor_override = -3} : (tensor<1x1x8xf32>) -> tensor<1x1x4xf32>
  return
}

// -----

// The runtime bounds it like every window parameter; shardc used to accept
// 2^31 and shard-run refused the program.
func.func @huge_divisor(%x: tensor<1x1x8xf32>) {
  // expected-error @+2 {{divisor_override must be in [1, 2^30] (got 2147483648)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.avg_pool %x {kernel_size = array<i64: 2>, divisor_override = 2147483648} : (tensor<1x1x8xf32>) -> tensor<1x1x4xf32>
  return
}

// -----

// PyTorch checks padding <= kernel/2 even when dilation widens the window;
// otherwise a window can read only padding (-inf).
func.func @dilated_pool_overpadded(%x: tensor<1x1x1xf32>) {
  // expected-error @+2 {{padding 2 on spatial dim 0 exceeds half the kernel size 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.max_pool %x {kernel_size = array<i64: 2>, stride = array<i64: 1>, dilation = array<i64: 3>, padding = array<i64: 2>} : (tensor<1x1x1xf32>) -> tensor<1x1x2xf32>
  return
}

// -----

func.func @huge_dilation(%x: tensor<1x1x8xf32>, %w: tensor<1x1x3xf32>) {
  // expected-error @+2 {{window parameter 9223372036854775807 is out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w {dilation = array<i64: 9223372036854775807>} : (tensor<1x1x8xf32>, tensor<1x1x3xf32>) -> tensor<1x1x4xf32>
  return
}

// -----

func.func @huge_pad(%x: tensor<4xf32>) {
  // expected-error @+2 {{out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.pad %x {pad = array<i64: 9223372036854775807, -9223372036854775807>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @infinite_scale(%x: tensor<1x1x4xf32>) {
  // expected-error @+1 {{scale factor}}
  %0 = sc.interpolate %x {scale_factors = array<f64: 0x7FF0000000000000>} : (tensor<1x1x4xf32>) -> tensor<1x1x8xf32>
  return
}

// -----

func.func @over_crop(%x: tensor<4xf32>) {
  // expected-error @+2 {{cropping (-10, 10) exceeds the input size 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.pad %x {pad = array<i64: -10, 10>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// The BytesFitInt64 trait runs before the op's own verifier (whose element
// count would overflow too).
func.func @reshape_count_overflow(%x: tensor<4294967296x4294967296xf32>) {
  // expected-error @+1 {{operand #0 'tensor<4294967296x4294967296xf32>' holds more bytes than an int64 counts}}
  %0 = sc.reshape %x : (tensor<4294967296x4294967296xf32>) -> tensor<0x5xf32>
  return
}

// -----

// An empty tensor whose other extents multiply past int64: strides and
// counts along the way would overflow, so it is refused too, saying why.
func.func @empty_but_wide(%x: tensor<4294967296x4294967296x0xf32>) -> tensor<0x5xf32> {
  // expected-error @+1 {{operand #0 'tensor<4294967296x4294967296x0xf32>' has extents whose product overflows int64}}
  %0 = sc.reshape %x : (tensor<4294967296x4294967296x0xf32>) -> tensor<0x5xf32>
  return %0 : tensor<0x5xf32>
}

// -----

sc.mesh @mesh ["x"=3]
// expected-error @+1 {{extents of dim 0 overflow}}
func.func @extent_overflow(%a: tensor<4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[9223372036854775807, 9223372036854775807, 6]]>}) {
  return
}

// -----

// expected-error @+1 {{has too many devices}}
sc.mesh @mesh ["x"=7, "y"=7905747460161236407]

// -----

// A mesh this large made shardc build per-device extent tables until it ran
// out of memory (one axis of 2^63 - 1 threw std::length_error).
// expected-error @+1 {{has 9223372036854775807 devices; shardc supports at most 65536}}
sc.mesh @mesh ["x"=9223372036854775807]

// -----

// expected-error @+1 {{has 65537 devices; shardc supports at most 65536}}
sc.mesh @mesh ["x"=1, "y"=65537]

// -----

// The largest mesh verifies.
sc.mesh @mesh ["x"=256, "y"=256]

// -----

func.func @bias_dtype(%x: tensor<1x2x8xf32>, %w: tensor<4x2x3xf32>, %b: tensor<4xf16>) {
  // expected-error @+2 {{bias must have shape (4) and element type 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w, %b : (tensor<1x2x8xf32>, tensor<4x2x3xf32>, tensor<4xf16>) -> tensor<1x4x6xf32>
  return
}

// -----

func.func @cast_to_index(%x: tensor<4xf32>) {
  // expected-error @+1 {{statically shaped tensor of}}
  %0 = sc.cast %x : tensor<4xf32> to tensor<4xindex>
  return
}
