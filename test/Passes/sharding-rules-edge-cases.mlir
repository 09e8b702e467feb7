// RUN: shardc-opt %s -split-input-file -sc-print-sharding-rules -o /dev/null 2>&1 | FileCheck %s

// Sharding rules and windows of valid edge-case ops: 1-D matmul promotion,
// batch broadcasting, masks of lower rank, rank-0 and zero-size tensors,
// negative dims, unit dims, windows larger than the input or reaching no
// input. Each rule must index only dims that exist (the pass would crash
// otherwise) and map broadcast size-1 dims to no factor ("-").

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

// Vector . vector: a rank-0 result, the only factor is the contraction.
// CHECK: remark: rule (i), (i) -> () {i=4 reduction}
func.func @matmul_vec_vec(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %c = sc.matmul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %c : tensor<f32>
}

// -----

// Vector @ batched matrix: the promoted row dim is dropped, rhs batch passes.
// CHECK: remark: rule (j), (i, j, k) -> (i, k) {i=2 pass_through, j=4 reduction, k=5 pass_through}
func.func @matmul_vec_batched(%a: tensor<4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x5xf32> {
  %c = sc.matmul %a, %b : (tensor<4xf32>, tensor<2x4x5xf32>) -> tensor<2x5xf32>
  return %c : tensor<2x5xf32>
}

// -----

// Batched matrix @ vector: the promoted column dim is dropped.
// CHECK: remark: rule (i, k, j), (j) -> (i, k) {i=2 pass_through, j=4 reduction, k=3 pass_through}
func.func @matmul_batched_vec(%a: tensor<2x3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  %c = sc.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

// -----

// Batch dims of different rank broadcast; lhs's size-1 batch dim maps to none.
// CHECK: remark: rule (i, -, l, k), (j, k, m) -> (i, j, l, m) {i=2 pass_through, j=5 pass_through, k=4 reduction, l=3 pass_through, m=6 pass_through}
func.func @matmul_batch_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32> {
  %c = sc.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  return %c : tensor<2x5x3x6xf32>
}

// -----

// A zero-size contraction.
// CHECK: remark: rule (j, i), (i, k) -> (j, k) {i=0 reduction, j=3 pass_through, k=5 pass_through}
func.func @matmul_empty_k(%a: tensor<3x0xf32>, %b: tensor<0x5xf32>) -> tensor<3x5xf32> {
  %c = sc.matmul %a, %b : (tensor<3x0xf32>, tensor<0x5xf32>) -> tensor<3x5xf32>
  return %c : tensor<3x5xf32>
}

// -----

// Linear on a 1-D input with a bias.
// CHECK: remark: rule (i), (j, i), (j) -> (j) {i=4 reduction, j=6 pass_through}
func.func @linear_vec(%a: tensor<4xf32>, %w: tensor<6x4xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  %c = sc.linear %a, %w, %b : (tensor<4xf32>, tensor<6x4xf32>, tensor<6xf32>) -> tensor<6xf32>
  return %c : tensor<6xf32>
}

//===----------------------------------------------------------------------===//
// Attention (the head-dim factor's kind is left open on purpose)
//===----------------------------------------------------------------------===//

// -----

// A rank-1 mask broadcasts over batch and query rows and indexes only S,
// which it keeps whole (no factor): the ring slices from it the columns of
// the keys each step holds.
// CHECK: remark: rule (i, j, l), (i, k, l), (i, k, m), (-) -> (i, j, m) {i=2 pass_through, j=4 pass_through, k=6 statistic, l=8 {{[a-z_]+}}, m=5 pass_through}
func.func @sdpa_mask_rank1(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x5xf32>, %m: tensor<6xf32>) -> tensor<2x4x5xf32> {
  %c = sc.scaled_dot_product_attention %q, %k, %v, %m : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32>, tensor<6xf32>) -> tensor<2x4x5xf32>
  return %c : tensor<2x4x5xf32>
}

// -----

// A rank-0 mask indexes nothing.
// CHECK: remark: rule (i, j, l), (i, k, l), (i, k, m), () -> (i, j, m) {i=2 pass_through, j=4 pass_through, k=6 statistic, l=8 {{[a-z_]+}}, m=5 pass_through}
func.func @sdpa_mask_rank0(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x5xf32>, %m: tensor<f32>) -> tensor<2x4x5xf32> {
  %c = sc.scaled_dot_product_attention %q, %k, %v, %m : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32>, tensor<f32>) -> tensor<2x4x5xf32>
  return %c : tensor<2x4x5xf32>
}

// -----

// q, k, v of different batch ranks broadcast; every size-1 dim maps to none.
// CHECK: remark: rule (i, -, k, m), (j, l, m), (-, l, n), (-, k, -) -> (i, j, k, n) {i=2 pass_through, j=3 pass_through, k=4 pass_through, l=6 statistic, m=8 {{[a-z_]+}}, n=5 pass_through}
func.func @sdpa_batch_broadcast(%q: tensor<2x1x4x8xf32>, %k: tensor<3x6x8xf32>, %v: tensor<1x6x5xf32>, %m: tensor<1x4x1xf32>) -> tensor<2x3x4x5xf32> {
  %c = sc.scaled_dot_product_attention %q, %k, %v, %m : (tensor<2x1x4x8xf32>, tensor<3x6x8xf32>, tensor<1x6x5xf32>, tensor<1x4x1xf32>) -> tensor<2x3x4x5xf32>
  return %c : tensor<2x3x4x5xf32>
}

// -----

// No batch dims at all, causal, L != S.
// CHECK: remark: rule (i, k), (j, k), (j, l) -> (i, l) {i=4 pass_through, j=6 statistic, k=8 {{[a-z_]+}}, l=5 pass_through}
func.func @sdpa_unbatched_causal(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x5xf32>) -> tensor<4x5xf32> {
  %c = sc.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>
  return %c : tensor<4x5xf32>
}

// -----

// An empty key/value sequence.
// CHECK: remark: rule (i, k), (j, k), (j, l) -> (i, l) {i=4 pass_through, j=0 statistic, k=8 {{[a-z_]+}}, l=5 pass_through}
func.func @sdpa_empty_sequence(%q: tensor<4x8xf32>, %k: tensor<0x8xf32>, %v: tensor<0x5xf32>) -> tensor<4x5xf32> {
  %c = sc.scaled_dot_product_attention %q, %k, %v : (tensor<4x8xf32>, tensor<0x8xf32>, tensor<0x5xf32>) -> tensor<4x5xf32>
  return %c : tensor<4x5xf32>
}

// -----

// 2-D neighbourhood attention with an empty batch: both spatial dims are
// windows, read through keys and values only.
// CHECK: remark: rule (i, j, k, l, m), (i, j, k, l, m), (i, j, k, l, n) -> (i, j, k, l, n) {i=0 pass_through, j=5 window, k=5 window, l=2 pass_through, m=4 {{[a-z_]+}}, n=4 pass_through}
// CHECK: remark: window dim 1 <- operand 1 dim 1: neighborhood n=5 out=5 k=3 s=1 d=1 pad=0/0 zeros; out [0,1) reads [0,3), out [4,5) reads [2,5)
// CHECK: remark: window dim 2 <- operand 1 dim 2: neighborhood n=5 out=5 k=5 s=1 d=1 pad=0/0 zeros; out [0,1) reads [0,5), out [4,5) reads [0,5)
// CHECK: remark: window dim 1 <- operand 2 dim 1: neighborhood n=5 out=5 k=3 s=1 d=1 pad=0/0 zeros; out [0,1) reads [0,3), out [4,5) reads [2,5)
// CHECK: remark: window dim 2 <- operand 2 dim 2: neighborhood n=5 out=5 k=5 s=1 d=1 pad=0/0 zeros; out [0,1) reads [0,5), out [4,5) reads [0,5)
func.func @na_2d_empty_batch(%q: tensor<0x5x5x2x4xf32>) -> tensor<0x5x5x2x4xf32> {
  %y = sc.neighborhood_attention %q, %q, %q {kernel_size = array<i64: 3, 5>} : (tensor<0x5x5x2x4xf32>, tensor<0x5x5x2x4xf32>, tensor<0x5x5x2x4xf32>) -> tensor<0x5x5x2x4xf32>
  return %y : tensor<0x5x5x2x4xf32>
}

// -----

// Dilated 1-D neighbourhood attention with a different value head dim.
// CHECK: remark: rule (i, j, k, l), (i, j, k, l), (i, j, k, m) -> (i, j, k, m) {i=1 pass_through, j=8 window, k=2 pass_through, l=4 {{[a-z_]+}}, m=6 pass_through}
// CHECK: remark: window dim 1 <- operand 1 dim 1: neighborhood n=8 out=8 k=3 s=1 d=2 pad=0/0 zeros; out [0,1) reads [0,5), out [7,8) reads [3,8)
// CHECK: remark: window dim 1 <- operand 2 dim 1: neighborhood n=8 out=8 k=3 s=1 d=2 pad=0/0 zeros; out [0,1) reads [0,5), out [7,8) reads [3,8)
func.func @na_dilated(%q: tensor<1x8x2x4xf32>, %v: tensor<1x8x2x6xf32>) -> tensor<1x8x2x6xf32> {
  %y = sc.neighborhood_attention %q, %q, %v {kernel_size = array<i64: 3>, dilation = array<i64: 2>} : (tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x6xf32>) -> tensor<1x8x2x6xf32>
  return %y : tensor<1x8x2x6xf32>
}

//===----------------------------------------------------------------------===//
// Elementwise, reductions, norms
//===----------------------------------------------------------------------===//

// -----

// A rank-0 operand broadcast against a matrix maps no dim.
// CHECK: remark: rule (), (i, j) -> (i, j) {i=2 pass_through, j=3 pass_through}
func.func @add_scalar(%a: tensor<f32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = sc.add %a, %b : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

// -----

// A size-1 dim broadcast to a zero-size dim: 0x1 + 5 -> 0x5.
// CHECK: remark: rule (i, -), (j) -> (i, j) {i=0 pass_through, j=5 pass_through}
func.func @add_zero_size(%a: tensor<0x1xf32>, %b: tensor<5xf32>) -> tensor<0x5xf32> {
  %c = sc.add %a, %b : (tensor<0x1xf32>, tensor<5xf32>) -> tensor<0x5xf32>
  return %c : tensor<0x5xf32>
}

// -----

// Three-way broadcasting in select.
// CHECK: remark: rule (i, -, -), (j, -), (k) -> (i, j, k) {i=2 pass_through, j=3 pass_through, k=4 pass_through}
func.func @select_three_way(%c0: tensor<2x1x1xi1>, %a: tensor<3x1xf32>, %b: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %c = sc.select %c0, %a, %b : (tensor<2x1x1xi1>, tensor<3x1xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return %c : tensor<2x3x4xf32>
}

// -----

// Select with a rank-0 condition on integer values.
// CHECK: remark: rule (), (i), (i) -> (i) {i=2 pass_through}
func.func @select_scalar_condition(%c0: tensor<i1>, %a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %c = sc.select %c0, %a, %b : (tensor<i1>, tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %c : tensor<2xi32>
}

// -----

// Unary op on a rank-0 bf16 tensor: no factors.
// CHECK: remark: rule () -> () {}
func.func @relu_scalar(%a: tensor<bf16>) -> tensor<bf16> {
  %c = sc.relu %a : tensor<bf16>
  return %c : tensor<bf16>
}

// -----

// Full reduction of a scalar.
// CHECK: remark: rule () -> () {}
func.func @sum_scalar(%a: tensor<f32>) -> tensor<f32> {
  %c = sc.sum %a : (tensor<f32>) -> tensor<f32>
  return %c : tensor<f32>
}

// -----

// keepdim with a negative dim: the kept size-1 dim maps to no factor.
// CHECK: remark: rule (i, j) -> (i, -) {i=2 pass_through, j=3 reduction}
func.func @mean_keepdim_negative(%a: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %c = sc.mean %a {dims = array<i64: -1>, keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %c : tensor<2x1xf32>
}

// -----

// sum over a zero-size dim (amax/amin there are refused by the verifier).
// CHECK: remark: rule (i, j) -> (i) {i=2 pass_through, j=0 reduction}
func.func @sum_empty_dim(%a: tensor<2x0xf32>) -> tensor<2xf32> {
  %c = sc.sum %a {dims = array<i64: 1>} : (tensor<2x0xf32>) -> tensor<2xf32>
  return %c : tensor<2xf32>
}

// -----

// Softmax over a negative dim.
// CHECK: remark: rule (i, j, k) -> (i, j, k) {i=2 pass_through, j=3 statistic, k=4 pass_through}
func.func @softmax_negative_dim(%a: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %c = sc.softmax %a {dim = -2} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %c : tensor<2x3x4xf32>
}

// -----

// layer_norm over two trailing dims: the affine operands index both.
// CHECK: remark: rule (i, j, k), (j, k), (j, k) -> (i, j, k) {i=2 pass_through, j=3 statistic, k=4 statistic}
func.func @layer_norm_2d(%a: tensor<2x3x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3x4xf32>) -> tensor<2x3x4xf32> {
  %c = sc.layer_norm %a, %w, %b {normalized_shape = array<i64: 3, 4>} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  return %c : tensor<2x3x4xf32>
}

// -----

// group_norm without spatial dims, with affine parameters.
// CHECK: remark: rule (i, j), (j), (j) -> (i, j) {i=2 pass_through, j=4 statistic}
func.func @group_norm_no_spatial(%a: tensor<2x4xf32>, %w: tensor<4xf32>) -> tensor<2x4xf32> {
  %c = sc.group_norm %a, %w, %w {num_groups = 2} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}

// -----

// group_norm with zero channels (0 % 2 == 0).
// CHECK: remark: rule (i, j, k) -> (i, j, k) {i=2 pass_through, j=0 statistic, k=5 statistic}
func.func @group_norm_no_channels(%a: tensor<2x0x5xf32>) -> tensor<2x0x5xf32> {
  %c = sc.group_norm %a {num_groups = 2} : (tensor<2x0x5xf32>) -> tensor<2x0x5xf32>
  return %c : tensor<2x0x5xf32>
}

// -----

// batch_norm: statistics and affine parameters all index the channel factor.
// CHECK: remark: rule (i, j, k), (j), (j), (j), (j) -> (i, j, k) {i=2 pass_through, j=4 pass_through, k=5 pass_through}
func.func @batch_norm_affine(%a: tensor<2x4x5xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<2x4x5xf32> {
  %c = sc.batch_norm %a, %m, %v, %w, %w : (tensor<2x4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x5xf32>
  return %c : tensor<2x4x5xf32>
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// -----

// unsqueeze at -1 and at -rank-1.
// CHECK: remark: rule (i, j) -> (i, j, -) {i=2 pass_through, j=3 pass_through}
// CHECK: remark: rule (i, j, k) -> (-, i, j, k) {i=2 pass_through, j=3 pass_through, k=1 pass_through}
func.func @unsqueeze_negative(%a: tensor<2x3xf32>) -> tensor<1x2x3x1xf32> {
  %b = sc.unsqueeze %a {dim = -1} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  %c = sc.unsqueeze %b {dim = -4} : (tensor<2x3x1xf32>) -> tensor<1x2x3x1xf32>
  return %c : tensor<1x2x3x1xf32>
}

// -----

// unsqueeze of a scalar, and of a tensor with a zero-size dim.
// CHECK: remark: rule () -> (-) {}
// CHECK: remark: rule (i, j) -> (i, -, j) {i=0 pass_through, j=3 pass_through}
func.func @unsqueeze_edge(%a: tensor<f32>, %b: tensor<0x3xf32>) -> tensor<0x1x3xf32> {
  %c = sc.unsqueeze %a {dim = -1} : (tensor<f32>) -> tensor<1xf32>
  %d = sc.unsqueeze %b {dim = 1} : (tensor<0x3xf32>) -> tensor<0x1x3xf32>
  return %d : tensor<0x1x3xf32>
}

// -----

// squeeze of a negative dim; a listed dim that is not size 1 is kept.
// CHECK: remark: rule (i, -) -> (i) {i=2 pass_through}
// CHECK: remark: rule (i, j) -> (i, j) {i=2 pass_through, j=1 pass_through}
func.func @squeeze_listed(%a: tensor<2x1xf32>) -> tensor<2xf32> {
  %b = sc.squeeze %a {dims = array<i64: -1>} : (tensor<2x1xf32>) -> tensor<2xf32>
  %c = sc.squeeze %a {dims = array<i64: 0>} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  return %b : tensor<2xf32>
}

// -----

// squeeze of every unit dim, and of the second of two leading unit dims.
// CHECK: remark: rule (-, i, -, j, -) -> (i, j) {i=2 pass_through, j=3 pass_through}
// CHECK: remark: rule (i, -, j) -> (i, j) {i=1 pass_through, j=3 pass_through}
func.func @squeeze_units(%a: tensor<1x2x1x3x1xf32>, %b: tensor<1x1x3xf32>) -> tensor<2x3xf32> {
  %c = sc.squeeze %a : (tensor<1x2x1x3x1xf32>) -> tensor<2x3xf32>
  %d = sc.squeeze %b {dims = array<i64: 1>} : (tensor<1x1x3xf32>) -> tensor<1x3xf32>
  return %c : tensor<2x3xf32>
}

// -----

// squeeze of a scalar without dims.
// CHECK: remark: rule () -> () {}
func.func @squeeze_scalar(%a: tensor<f32>) -> tensor<f32> {
  %c = sc.squeeze %a : (tensor<f32>) -> tensor<f32>
  return %c : tensor<f32>
}

// -----

// permute with a negative dim; permute of a scalar; transpose of a dim with
// itself (-1 == 1).
// CHECK: remark: rule (i, j, k) -> (k, i, j) {i=2 pass_through, j=3 pass_through, k=4 pass_through}
// CHECK: remark: rule () -> () {}
// CHECK: remark: rule (i, j) -> (i, j) {i=2 pass_through, j=3 pass_through}
func.func @permutations(%a: tensor<2x3x4xf32>, %s: tensor<f32>, %m: tensor<2x3xf32>) -> tensor<4x2x3xf32> {
  %b = sc.permute %a {dims = array<i64: -1, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %c = sc.permute %s {dims = array<i64>} : (tensor<f32>) -> tensor<f32>
  %d = sc.transpose %m {dim0 = 1, dim1 = -1} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %b : tensor<4x2x3xf32>
}

// -----

// concat of a single input, and concat with a zero-size input.
// CHECK: remark: rule (i, -) -> (i, j) {i=2 pass_through, j=3 needs_replication}
// CHECK: remark: rule (i, -), (i, -) -> (i, j) {i=2 pass_through, j=3 needs_replication}
func.func @concat_edge(%a: tensor<2x3xf32>, %e: tensor<2x0xf32>) -> tensor<2x3xf32> {
  %b = sc.concat %a {dim = -1} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = sc.concat %e, %a {dim = 1} : (tensor<2x0xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

// -----

// Strided slice of one dim; an empty slice; a slice of a scalar.
// CHECK: remark: rule (i, -) -> (i, j) {i=4 pass_through, j=3 needs_replication}
// CHECK: remark: rule (-, j) -> (i, j) {i=0 needs_replication, j=6 pass_through}
// CHECK: remark: rule () -> () {}
func.func @slices(%a: tensor<4x6xf32>, %s: tensor<f32>) -> tensor<4x3xf32> {
  %b = sc.slice %a {start = array<i64: 0, 1>, end = array<i64: 4, 6>, step = array<i64: 1, 2>} : (tensor<4x6xf32>) -> tensor<4x3xf32>
  %c = sc.slice %a {start = array<i64: 2, 0>, end = array<i64: 2, 6>} : (tensor<4x6xf32>) -> tensor<0x6xf32>
  %d = sc.slice %s {start = array<i64>, end = array<i64>} : (tensor<f32>) -> tensor<f32>
  return %b : tensor<4x3xf32>
}

// -----

// broadcast_to a higher rank, and a size-1 dim to a zero-size dim.
// CHECK: remark: rule (j, -) -> (i, j, k) {i=2 pass_through, j=3 pass_through, k=4 pass_through}
// CHECK: remark: rule (-) -> (i) {i=0 pass_through}
func.func @broadcasts(%a: tensor<3x1xf32>, %b: tensor<1xf32>) -> tensor<2x3x4xf32> {
  %c = sc.broadcast_to %a : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %d = sc.broadcast_to %b : (tensor<1xf32>) -> tensor<0xf32>
  return %c : tensor<2x3x4xf32>
}

// -----

// Reshapes without unit or zero-size dims: a swap of factors (2x3 -> 3x2)
// is one group that neither merges nor splits, all replicated; a merge
// keeps the untouched dim pass-through and its major dim's split, 3 times
// finer in the merged dim.
// CHECK: remark: rule (i, j) -> (k, l) {i=2 needs_replication, j=3 needs_replication, k=3 needs_replication, l=2 needs_replication}
// CHECK: remark: rule (i, j, k) -> (i*3, k) {i=2 pass_through, j=3 needs_replication, k=4 pass_through}
func.func @reshapes(%a: tensor<2x3xf32>, %b: tensor<2x3x4xf32>) -> tensor<3x2xf32> {
  %c = sc.reshape %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %d = sc.reshape %b : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %c : tensor<3x2xf32>
}

//===----------------------------------------------------------------------===//
// Windowed ops
//===----------------------------------------------------------------------===//

// -----

// A kernel larger than the input, made valid by padding.
// CHECK: remark: rule (i, l, k), (j, l, -) -> (i, j, k) {i=1 pass_through, j=1 pass_through, k=2 window, l=1 reduction}
// CHECK: remark: window dim 2 <- operand 0 dim 2: strided n=2 out=2 k=5 s=1 d=1 pad=2/2 zeros; out [0,1) reads [-2,3), out [1,2) reads [-1,4)
func.func @conv_kernel_over_input(%x: tensor<1x1x2xf32>, %w: tensor<1x1x5xf32>) -> tensor<1x1x2xf32> {
  %y = sc.conv %x, %w {padding = array<i64: 2>} : (tensor<1x1x2xf32>, tensor<1x1x5xf32>) -> tensor<1x1x2xf32>
  return %y : tensor<1x1x2xf32>
}

// -----

// Circular padding equal to the input size (the largest PyTorch allows).
// CHECK: remark: rule (i, l, k), (j, l, -) -> (i, j, k) {i=1 pass_through, j=1 pass_through, k=3 window, l=1 reduction}
// CHECK: remark: window dim 2 <- operand 0 dim 2: strided n=3 out=3 k=7 s=1 d=1 pad=3/3 circular; out [0,1) reads [-3,4), out [2,3) reads [-1,6)
func.func @conv_circular_full(%x: tensor<1x1x3xf32>, %w: tensor<1x1x7xf32>) -> tensor<1x1x3xf32> {
  %y = sc.conv %x, %w {padding = array<i64: 3>, padding_mode = "circular"} : (tensor<1x1x3xf32>, tensor<1x1x7xf32>) -> tensor<1x1x3xf32>
  return %y : tensor<1x1x3xf32>
}

// -----

// Replicate padding much larger than a size-1 input.
// CHECK: remark: rule (i, l, k), (j, l, -) -> (i, j, k) {i=1 pass_through, j=1 pass_through, k=9 window, l=1 reduction}
// CHECK: remark: window dim 2 <- operand 0 dim 2: strided n=1 out=9 k=3 s=1 d=1 pad=5/5 replicate; out [0,1) reads [-5,-2), out [8,9) reads [3,6)
func.func @conv_replicate_wide(%x: tensor<1x1x1xf32>, %w: tensor<1x1x3xf32>) -> tensor<1x1x9xf32> {
  %y = sc.conv %x, %w {padding = array<i64: 5>, padding_mode = "replicate"} : (tensor<1x1x1xf32>, tensor<1x1x3xf32>) -> tensor<1x1x9xf32>
  return %y : tensor<1x1x9xf32>
}

// -----

// Grouped conv with an empty batch: channels need replication, the weight
// maps no factor.
// CHECK: remark: rule (i, l, k), (-, -, -), (j) -> (i, j, k) {i=0 pass_through, j=6 needs_replication, k=6 window, l=4 needs_replication}
// CHECK: remark: window dim 2 <- operand 0 dim 2: strided n=8 out=6 k=3 s=1 d=1 pad=0/0 zeros; out [0,1) reads [0,3), out [5,6) reads [5,8)
func.func @conv_grouped_empty_batch(%x: tensor<0x4x8xf32>, %w: tensor<6x2x3xf32>, %b: tensor<6xf32>) -> tensor<0x6x6xf32> {
  %y = sc.conv %x, %w, %b {groups = 2} : (tensor<0x4x8xf32>, tensor<6x2x3xf32>, tensor<6xf32>) -> tensor<0x6x6xf32>
  return %y : tensor<0x6x6xf32>
}

// -----

// Transposed conv whose only output is reached by no input (stride 4,
// padding 1/3 crops both taps away): the read range is empty.
// CHECK: remark: rule (i, l, k), (l, j, -) -> (i, j, k) {i=1 pass_through, j=1 pass_through, k=1 window, l=1 reduction}
// CHECK: remark: window dim 2 <- operand 0 dim 2: transposed n=2 out=1 k=1 s=4 d=1 pad=1/3 zeros; out [0,1) reads [0,0), out [0,1) reads [0,0)
func.func @conv_transpose_unreached(%x: tensor<1x1x2xf32>, %w: tensor<1x1x1xf32>) -> tensor<1x1x1xf32> {
  %y = sc.conv_transpose %x, %w {stride = array<i64: 4>, padding = array<i64: 1, 3>} : (tensor<1x1x2xf32>, tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  return %y : tensor<1x1x1xf32>
}

// -----

// Transposed conv with output_padding allowed by dilation (not stride); the
// last output is reached by no input.
// CHECK: remark: rule (i, l, k), (l, j, -) -> (i, j, k) {i=1 pass_through, j=1 pass_through, k=7 window, l=1 reduction}
// CHECK: remark: window dim 2 <- operand 0 dim 2: transposed n=2 out=7 k=3 s=1 d=2 pad=0/0 zeros; out [0,1) reads [0,1), out [6,7) reads [0,0)
func.func @conv_transpose_dilated_output_padding(%x: tensor<1x1x2xf32>, %w: tensor<1x1x3xf32>) -> tensor<1x1x7xf32> {
  %y = sc.conv_transpose %x, %w {output_padding = array<i64: 1>, dilation = array<i64: 2>} : (tensor<1x1x2xf32>, tensor<1x1x3xf32>) -> tensor<1x1x7xf32>
  return %y : tensor<1x1x7xf32>
}

// -----

// ceil_mode pooling: the last window is partial (5 = 2 + 2 + 1).
// CHECK: remark: rule (i, j, k) -> (i, j, k) {i=1 pass_through, j=1 pass_through, k=3 window}
// CHECK: remark: window dim 2 <- operand 0 dim 2: strided n=5 out=3 k=2 s=2 d=1 pad=0/0 zeros; out [0,1) reads [0,2), out [2,3) reads [4,6)
func.func @max_pool_ceil(%x: tensor<1x1x5xf32>) -> tensor<1x1x3xf32> {
  %y = sc.max_pool %x {kernel_size = array<i64: 2>, ceil_mode = true} : (tensor<1x1x5xf32>) -> tensor<1x1x3xf32>
  return %y : tensor<1x1x3xf32>
}

// -----

// ceil_mode with padding: the last window starts inside the input.
// CHECK: remark: rule (i, j, k) -> (i, j, k) {i=1 pass_through, j=1 pass_through, k=3 window}
// CHECK: remark: window dim 2 <- operand 0 dim 2: strided n=4 out=3 k=2 s=2 d=1 pad=1/1 zeros; out [0,1) reads [-1,1), out [2,3) reads [3,5)
func.func @max_pool_ceil_padded(%x: tensor<1x1x4xf32>) -> tensor<1x1x3xf32> {
  %y = sc.max_pool %x {kernel_size = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 1>, ceil_mode = true} : (tensor<1x1x4xf32>) -> tensor<1x1x3xf32>
  return %y : tensor<1x1x3xf32>
}

// -----

// Linear interpolation of a single element with align_corners.
// CHECK: remark: rule (i, j, k) -> (i, j, k) {i=1 pass_through, j=1 pass_through, k=1 window}
// CHECK: remark: window dim 2 <- operand 0 dim 2: resize n=1 out=1 k=1 s=1 d=1 pad=0/0 zeros; out [0,1) reads [0,1), out [0,1) reads [0,1)
func.func @interpolate_single(%x: tensor<1x1x1xf32>) -> tensor<1x1x1xf32> {
  %y = sc.interpolate %x {mode = "linear", align_corners = true} : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  return %y : tensor<1x1x1xf32>
}

// -----

// nearest-exact downsampling 7 -> 3.
// CHECK: remark: rule (i, j, k) -> (i, j, k) {i=1 pass_through, j=1 pass_through, k=3 window}
// CHECK: remark: window dim 2 <- operand 0 dim 2: resize n=7 out=3 k=1 s=1 d=1 pad=0/0 zeros; out [0,1) reads [1,2), out [2,3) reads [5,6)
func.func @interpolate_nearest_exact_down(%x: tensor<1x1x7xf32>) -> tensor<1x1x3xf32> {
  %y = sc.interpolate %x {mode = "nearest-exact"} : (tensor<1x1x7xf32>) -> tensor<1x1x3xf32>
  return %y : tensor<1x1x3xf32>
}

// -----

// F.pad of a scalar with no pairs: no factors, no windows.
// CHECK: remark: rule () -> () {}
func.func @pad_scalar(%x: tensor<f32>) -> tensor<f32> {
  %y = sc.pad %x {pad = array<i64>} : (tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// Padding the last dim of a tensor whose first dim is empty: a constant pad
// of no element is a fill, with no window; the padded dim is the result's
// own, and the dim left alone splits as the input's.
// CHECK: remark: rule (i, -) -> (i, j) {i=0 pass_through, j=6 pass_through}
// CHECK-NOT: window dim
func.func @pad_empty_batch(%x: tensor<0x4xf32>) -> tensor<0x6xf32> {
  %y = sc.pad %x {pad = array<i64: 1, 1>} : (tensor<0x4xf32>) -> tensor<0x6xf32>
  return %y : tensor<0x6xf32>
}

// -----

// Cropping pad (negative low, positive high) within the input.
// CHECK: remark: rule (i) -> (i) {i=4 window}
// CHECK: remark: window dim 0 <- operand 0 dim 0: pad n=4 out=4 k=1 s=1 d=1 pad=-2/2 zeros; out [0,1) reads [2,3), out [3,4) reads [5,6)
func.func @pad_shift(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = sc.pad %x {pad = array<i64: -2, 2>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Reshapes with zero-size dims have no grouping: everything replicates (this
// used to read past the end of the shape).
// CHECK-LABEL: remark: rule (i, j) -> (k, l) {i=0 needs_replication, j=4 needs_replication, k=0 needs_replication, l=5 needs_replication}
func.func @reshape_zero(%a: tensor<0x4xf32>) -> tensor<0x5xf32> {
  %c = sc.reshape %a : (tensor<0x4xf32>) -> tensor<0x5xf32>
  return %c : tensor<0x5xf32>
}

// -----

// Unit dims map to no factor, so they do not force replication.
// CHECK-LABEL: remark: rule (i, j, k) -> (i, j, -, k) {i=2 pass_through, j=3 pass_through, k=4 pass_through}
func.func @reshape_unit(%a: tensor<2x3x4xf32>) -> tensor<2x3x1x4xf32> {
  %c = sc.reshape %a : (tensor<2x3x4xf32>) -> tensor<2x3x1x4xf32>
  return %c : tensor<2x3x1x4xf32>
}

// -----

// An empty dims list reduces over every dim, as in ATen.
// CHECK-LABEL: remark: rule (i, j) -> () {i=2 reduction, j=3 reduction}
func.func @sum_empty_dims(%a: tensor<2x3xf32>) -> tensor<f32> {
  %c = sc.sum %a {dims = array<i64>} : (tensor<2x3xf32>) -> tensor<f32>
  return %c : tensor<f32>
}

// -----

// More than 18 factors are named f18, f19, ...
// CHECK-LABEL: remark: rule (i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, f18, f19) -> (i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, f18, f19)
func.func @many_dims(%a: tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x2xf32>) -> tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x2xf32> {
  %c = sc.relu %a : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x2xf32>
  return %c : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x2xf32>
}

// -----

// A step larger than the dim takes one element (no overflow in the size).
// CHECK-LABEL: remark: rule (-) -> (i) {i=1 needs_replication}
func.func @slice_huge_step(%a: tensor<4xf32>) -> tensor<1xf32> {
  %c = sc.slice %a {start = array<i64: 0>, end = array<i64: 4>, step = array<i64: 9223372036854775807>} : (tensor<4xf32>) -> tensor<1xf32>
  return %c : tensor<1xf32>
}
