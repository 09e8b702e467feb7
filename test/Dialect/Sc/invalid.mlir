// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// Verifier and parser errors, one per case. Each `// case:` comment states the
// intent; the expected-error text is a short substring of the verifier's
// message. Everything in a case other than the one error is valid (shapes,
// shardings). Ops that infer their result type also get InferTypeOpInterface's
// follow-up "failed to infer returned types" error, hence the @+2 / @+1 pairs.

//===----------------------------------------------------------------------===//
// Meshes
//===----------------------------------------------------------------------===//

// case: mesh with a duplicate axis name
// expected-error @+1 {{duplicate}}
sc.mesh @mesh ["x"=2, "x"=4]

// -----

// case: mesh axis of size zero (sizes must be >= 1)
// expected-error @+1 {{size}}
sc.mesh @mesh ["x"=0]

// -----

// case: mesh axis of negative size
// expected-error @+1 {{size}}
sc.mesh @mesh ["x"=-2]

//===----------------------------------------------------------------------===//
// Shardings
//===----------------------------------------------------------------------===//

// -----

// case: explicit extents do not sum to the dim size (1+1+1+1 = 4, dim is 8)
sc.mesh @mesh ["x"=4]
func.func @extents_sum(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{sum}}
  %0 = sc.sharding_constraint %arg0 : tensor<4x8xf32> to #sc.sharding<@mesh, [{}, {"x"}[1, 1, 1, 1]]>
  return %0 : tensor<4x8xf32>
}

// -----

// case: explicit extents do not sum to the dim size, on a function argument
// (reported on the function)
sc.mesh @mesh ["x"=4]
// expected-error @+1 {{sum}}
func.func @extents_sum_arg(%arg0: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[1, 1, 1, 2], {}]>}) -> tensor<4x8xf32> {
  return %arg0 : tensor<4x8xf32>
}

// -----

// case: wrong number of extents (axis x has 4 devices, 2 extents given)
sc.mesh @mesh ["x"=4]
func.func @extents_count(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{extents}}
  %0 = sc.sharding_constraint %arg0 : tensor<4x8xf32> to #sc.sharding<@mesh, [{}, {"x"}[4, 4]]>
  return %0 : tensor<4x8xf32>
}

// -----

// case: wrong number of extents for a dim split over two axes (2*4 = 8 needed)
sc.mesh @mesh2d ["data"=2, "domain"=4]
func.func @extents_count_2d(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{extents}}
  %0 = sc.sharding_constraint %arg0 : tensor<4x8xf32> to #sc.sharding<@mesh2d, [{}, {"data", "domain"}[2, 2, 2, 2]]>
  return %0 : tensor<4x8xf32>
}

// -----

// case: negative extent (the sum is still 8)
sc.mesh @mesh ["x"=4]
func.func @extents_negative(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{negative}}
  %0 = sc.sharding_constraint %arg0 : tensor<4x8xf32> to #sc.sharding<@mesh, [{}, {"x"}[-1, 5, 2, 2]]>
  return %0 : tensor<4x8xf32>
}

// -----

// case: one mesh axis used on two dims
sc.mesh @mesh ["x"=4]
func.func @axis_twice(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{more than once}}
  %0 = sc.sharding_constraint %arg0 : tensor<4x8xf32> to #sc.sharding<@mesh, [{"x"}, {"x"}]>
  return %0 : tensor<4x8xf32>
}

// -----

// case: one mesh axis listed twice within one dim
sc.mesh @mesh2d ["data"=2, "domain"=4]
func.func @axis_twice_same_dim(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{more than once}}
  %0 = sc.sharding_constraint %arg0 : tensor<4x8xf32> to #sc.sharding<@mesh2d, [{}, {"data", "data"}]>
  return %0 : tensor<4x8xf32>
}

// -----

// case: an axis used both to split a dim and as a partial axis
sc.mesh @mesh ["x"=4]
func.func @axis_dim_and_partial(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{more than once}}
  %0 = sc.sharding_constraint %arg0 : tensor<4x8xf32> to #sc.sharding<@mesh, [{"x"}, {}], partial sum {"x"}>
  return %0 : tensor<4x8xf32>
}

// -----

// case: unknown axis name in a dim
sc.mesh @mesh ["x"=4]
func.func @unknown_axis(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{has no axis "y"}}
  %0 = sc.sharding_constraint %arg0 : tensor<4x8xf32> to #sc.sharding<@mesh, [{}, {"y"}]>
  return %0 : tensor<4x8xf32>
}

// -----

// case: unknown axis name in the partial set
sc.mesh @mesh ["x"=4]
func.func @unknown_partial_axis(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{has no axis "z"}}
  %0 = sc.sharding_constraint %arg0 : tensor<4x8xf32> to #sc.sharding<@mesh, [{}, {"x"}], partial sum {"z"}>
  return %0 : tensor<4x8xf32>
}

// -----

// case: unknown partial kind (sum | max | min | mean)
sc.mesh @mesh ["x"=4]
func.func @bad_partial_kind(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{unknown partial reduction kind 'avg'}}
  %0 = sc.sharding_constraint %arg0 : tensor<4x8xf32> to #sc.sharding<@mesh, [{}, {}], partial avg {"x"}>
  return %0 : tensor<4x8xf32>
}

// -----

// case: the sharding names a mesh symbol that does not exist
sc.mesh @mesh ["x"=4]
func.func @unknown_mesh(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{nomesh}}
  %0 = sc.sharding_constraint %arg0 : tensor<4x8xf32> to #sc.sharding<@nomesh, [{}, {"x"}]>
  return %0 : tensor<4x8xf32>
}

// -----

// case: the sharding has 3 dims, the tensor has rank 2
sc.mesh @mesh ["x"=4]
func.func @sharding_rank(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{rank}}
  %0 = sc.sharding_constraint %arg0 : tensor<4x8xf32> to #sc.sharding<@mesh, [{}, {"x"}, {}]>
  return %0 : tensor<4x8xf32>
}

// -----

// case: sharding dim count differs from the rank, on a function result
// (reported on the function)
sc.mesh @mesh ["x"=4]
// expected-error @+1 {{rank}}
func.func @sharding_rank_result(%arg0: tensor<4x8xf32>) -> (tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}]>}) {
  return %arg0 : tensor<4x8xf32>
}

// -----

// case: sharding dim count differs from the rank, as an op-result attribute
sc.mesh @mesh ["x"=4]
func.func @sharding_rank_op_result(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{rank}}
  %0 = sc.relu %arg0 {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}, {}]>} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// case: reshard target with extents that do not sum to the dim size
sc.mesh @mesh ["x"=4]
func.func @reshard_bad_target(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{sum}}
  %0 = sc.reshard %arg0 : tensor<4x8xf32> to #sc.sharding<@mesh, [{"x"}[1, 1, 1, 2], {}]>
  return %0 : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// -----

// case: a result whose bytes overflow int64 (2^32 * 2^32 * 4), though the op
// is otherwise valid
func.func @huge_result(%x: tensor<1xf32>) -> tensor<4294967296x4294967296xf32> {
  // expected-error @+1 {{result #0 'tensor<4294967296x4294967296xf32>' holds more bytes than an int64 counts}}
  %0 = sc.broadcast_to %x : (tensor<1xf32>) -> tensor<4294967296x4294967296xf32>
  return %0 : tensor<4294967296x4294967296xf32>
}

// -----

// case: an operand whose bytes overflow int64 (2^31 * 2^31 * 2 bytes of f16)
// though its result fits after the slice
func.func @huge_operand(%x: tensor<2147483648x2147483648xf16>) -> tensor<1x1xf16> {
  // expected-error @+1 {{operand #0 'tensor<2147483648x2147483648xf16>' holds more bytes than an int64 counts}}
  %0 = sc.slice %x {start = array<i64: 0, 0>, end = array<i64: 1, 1>} : (tensor<2147483648x2147483648xf16>) -> tensor<1x1xf16>
  return %0 : tensor<1x1xf16>
}

// -----

// case: broadcast mismatch (3 vs 4)
func.func @broadcast_mismatch(%a: tensor<3xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.add %a, %b : (tensor<3xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// case: binary result type is not the broadcast shape (4x3 expected)
func.func @binary_result(%a: tensor<4x1xf32>, %b: tensor<3xf32>) -> tensor<4x1xf32> {
  // expected-error @+2 {{tensor<4x3xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.mul %a, %b : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// case: operand element types differ
func.func @element_type_mismatch(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+2 {{element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.sub %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// case: unknown compare predicate
func.func @bad_predicate(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{predicate}}
  %0 = sc.compare %a, %b {predicate = "lte"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// case: select condition is not i1
func.func @select_cond(%c: tensor<4xf32>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{1-bit signless integer}}
  %0 = sc.select %c, %a, %b : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// case: cast changes the shape
func.func @cast_shape(%a: tensor<4x8xf32>) -> tensor<8x4xf16> {
  // expected-error @+1 {{shape}}
  %0 = sc.cast %a : tensor<4x8xf32> to tensor<8x4xf16>
  return %0 : tensor<8x4xf16>
}

// -----

// case: unknown gelu approximation
func.func @bad_gelu(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{approximate}}
  %0 = sc.gelu %a {approximate = "erf"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// matmul / linear
//===----------------------------------------------------------------------===//

// -----

// case: matmul of mismatched inner dims (8 vs 7)
func.func @matmul_inner(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+2 {{contracting dims differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.matmul %a, %b : (tensor<4x8xf32>, tensor<7x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// case: matmul batch dims do not broadcast (2 vs 3)
func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<3x4x5xf32> {
  // expected-error @+2 {{broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x5xf32>) -> tensor<3x4x5xf32>
  return %0 : tensor<3x4x5xf32>
}

// -----

// case: matmul wrong result type for 1-D promotion (vector-matrix gives 5)
func.func @matmul_1d_result(%a: tensor<8xf32>, %b: tensor<8x5xf32>) -> tensor<1x5xf32> {
  // expected-error @+2 {{tensor<5xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.matmul %a, %b : (tensor<8xf32>, tensor<8x5xf32>) -> tensor<1x5xf32>
  return %0 : tensor<1x5xf32>
}

// -----

// case: clamp without a bound (torch.clamp needs one)
func.func @clamp_unbounded(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'sc.clamp' op needs 'min', 'max' or both (as torch.clamp)}}
  %0 = sc.clamp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// case: linear weight in-features differ from the input's last dim
func.func @linear_in(%x: tensor<4x8xf32>, %w: tensor<16x9xf32>) -> tensor<4x16xf32> {
  // expected-error @+2 {{features}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.linear %x, %w : (tensor<4x8xf32>, tensor<16x9xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// case: linear bias size differs from out-features
func.func @linear_bias(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x16xf32> {
  // expected-error @+2 {{'sc.linear' op bias of shape (8) does not broadcast to the result's shape (4x16)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.linear %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// case: a linear bias that would grow the result (F.linear adds it in place)
func.func @linear_bias_grows(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<2x1x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+2 {{bias of shape (2x1x16) does not broadcast to the result's shape (4x16)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.linear %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<2x1x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// case: a 1-D linear weight whose features differ from the input's
func.func @linear_vector_in(%x: tensor<4x8xf32>, %w: tensor<9xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{input has 8 features but weight expects 9}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.linear %x, %w : (tensor<4x8xf32>, tensor<9xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// case: a linear bias of another element type
func.func @linear_bias_dtype(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<f16>) -> tensor<4x16xf32> {
  // expected-error @+2 {{bias must have element type 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.linear %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<f16>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

//===----------------------------------------------------------------------===//
// conv / conv_transpose
//===----------------------------------------------------------------------===//

// -----

// case: conv input channels (6) not divisible by groups (4)
func.func @conv_cin_groups(%x: tensor<1x6x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{divisible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w {groups = 4} : (tensor<1x6x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// case: conv weight in-channels (3) != Cin / groups (8 / 2 = 4)
func.func @conv_weight_cin(%x: tensor<1x8x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{channels}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w {groups = 2} : (tensor<1x8x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// case: conv weight in-channels != Cin without groups
func.func @conv_weight_cin_nogroups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{channels}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// case: conv output channels (6) not divisible by groups (4)
func.func @conv_cout_groups(%x: tensor<1x8x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+2 {{divisible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w {groups = 4} : (tensor<1x8x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

// case: conv groups = 0
func.func @conv_groups_zero(%x: tensor<1x8x8x8xf32>, %w: tensor<4x8x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{groups}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w {groups = 0} : (tensor<1x8x8x8xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// case: conv negative padding
func.func @conv_negative_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x8xf32> {
  // expected-error @+2 {{padding}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w {padding = array<i64: -1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x8xf32>
  return %0 : tensor<1x4x6x8xf32>
}

// -----

// case: conv padding with neither S nor 2S values (3 values for 2-D)
func.func @conv_padding_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+2 {{padding}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w {padding = array<i64: 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// case: conv zero stride
func.func @conv_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{stride}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w {stride = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// case: conv wrong number of stride values (3 for 2-D)
func.func @conv_stride_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{stride}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w {stride = array<i64: 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// case: conv zero dilation
func.func @conv_zero_dilation(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{dilation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w {dilation = array<i64: 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// case: conv rank mismatch: rank-3 weight for a 2-D (rank-4) input
func.func @conv_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{rank}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// case: conv on a rank-2 input (no spatial dims)
func.func @conv_input_rank(%x: tensor<1x3xf32>, %w: tensor<4x3xf32>) -> tensor<1x4xf32> {
  // expected-error @+2 {{input must be}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w : (tensor<1x3xf32>, tensor<4x3xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// case: conv declared result shape off by one (8 - 3 + 1 = 6, declared 7)
func.func @conv_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x7x6xf32> {
  // expected-error @+2 {{tensor<1x4x6x6xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x7x6xf32>
  return %0 : tensor<1x4x7x6xf32>
}

// -----

// case: conv declared result shape wrong with stride and padding ((32+2-3)/2+1 = 16)
func.func @conv_result_stride(%x: tensor<2x4x32xf32>, %w: tensor<8x4x3xf32>) -> tensor<2x8x15xf32> {
  // expected-error @+2 {{tensor<2x8x16xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w {padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<2x4x32xf32>, tensor<8x4x3xf32>) -> tensor<2x8x15xf32>
  return %0 : tensor<2x8x15xf32>
}

// -----

// case: conv bias size differs from Cout
func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{bias}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// case: kernel (with padding) larger than the input: 2 + 0 - 3 < 0
func.func @conv_kernel_too_big(%x: tensor<1x3x2x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x1x6xf32> {
  // expected-error @+2 {{less than 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w : (tensor<1x3x2x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x6xf32>
  return %0 : tensor<1x4x1x6xf32>
}

// -----

// case: bad padding_mode string
func.func @conv_bad_padding_mode(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{padding_mode}}
  %0 = sc.conv %x, %w {padding = array<i64: 1, 1>, padding_mode = "mirror"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// case: conv reflect padding >= dim size (padding 8 on an 8-wide dim)
func.func @conv_reflect_too_big(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x22x22xf32> {
  // expected-error @+2 {{reflect}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv %x, %w {padding = array<i64: 8, 8>, padding_mode = "reflect"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x22x22xf32>
  return %0 : tensor<1x4x22x22xf32>
}

// -----

// case: conv_transpose weight dim 0 (4) != Cin (8)
func.func @conv_transpose_weight(%x: tensor<1x8x5x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x7x7xf32> {
  // expected-error @+2 {{channels}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv_transpose %x, %w : (tensor<1x8x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  return %0 : tensor<1x3x7x7xf32>
}

// -----

// case: conv_transpose Cin (6) not divisible by groups (4)
func.func @conv_transpose_groups(%x: tensor<1x6x5x5xf32>, %w: tensor<6x1x3x3xf32>) -> tensor<1x4x7x7xf32> {
  // expected-error @+2 {{divisible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv_transpose %x, %w {groups = 4} : (tensor<1x6x5x5xf32>, tensor<6x1x3x3xf32>) -> tensor<1x4x7x7xf32>
  return %0 : tensor<1x4x7x7xf32>
}

// -----

// case: conv_transpose output_padding must be smaller than stride or dilation
func.func @conv_transpose_output_padding(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x19x19xf32> {
  // expected-error @+2 {{output padding}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv_transpose %x, %w {output_padding = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x19x19xf32>
  return %0 : tensor<1x2x19x19xf32>
}

// -----

// case: conv_transpose declared result shape wrong (7*2 - 2 + 2 + 1 + 1 = 16)
func.func @conv_transpose_result(%x: tensor<1x16x8x8xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x8x15x16xf32> {
  // expected-error @+2 {{tensor<1x8x16x16xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.conv_transpose %x, %w {output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>, tensor<16x8x3x3xf32>) -> tensor<1x8x15x16xf32>
  return %0 : tensor<1x8x15x16xf32>
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// -----

// case: pooling padding larger than half the kernel (kernel 2, padding 2)
func.func @pool_padding(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x6x6xf32> {
  // expected-error @+2 {{half}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.max_pool %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 2, 2>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x6x6xf32>
  return %0 : tensor<1x1x6x6xf32>
}

// -----

// case: avg_pool padding larger than half the kernel (kernel 3, padding 2)
func.func @avg_pool_padding(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x10x10xf32> {
  // expected-error @+2 {{half}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.avg_pool %x {kernel_size = array<i64: 3, 3>, padding = array<i64: 2, 2>, stride = array<i64: 1, 1>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x10x10xf32>
  return %0 : tensor<1x1x10x10xf32>
}

// -----

// case: pooling kernel_size with the wrong number of values (3 for 2-D)
func.func @pool_kernel_count(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+2 {{kernel_size}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.max_pool %x {kernel_size = array<i64: 2, 2, 2>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// case: pooling declared result ignores ceil_mode (ceil gives 3, declared 2)
func.func @pool_ceil_result(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+2 {{tensor<1x1x3x3xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.max_pool %x {ceil_mode = true, kernel_size = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// case: avg_pool divisor_override = 0
func.func @avg_pool_divisor(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+2 {{divisor_override}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.avg_pool %x {divisor_override = 0, kernel_size = array<i64: 2, 2>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

//===----------------------------------------------------------------------===//
// interpolate / pad
//===----------------------------------------------------------------------===//

// -----

// case: interpolate scale factor inconsistent with the result type (8 * 2.0 = 16, declared 15)
func.func @interp_scale(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x16x15xf32> {
  // expected-error @+1 {{scale}}
  %0 = sc.interpolate %x {mode = "nearest", scale_factors = array<f64: 2.0, 2.0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x15xf32>
  return %0 : tensor<1x3x16x15xf32>
}

// -----

// case: interpolate changes N or C
func.func @interp_channels(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x16x16xf32> {
  // expected-error @+1 {{channel}}
  %0 = sc.interpolate %x {mode = "nearest"} : (tensor<1x3x8x8xf32>) -> tensor<1x4x16x16xf32>
  return %0 : tensor<1x4x16x16xf32>
}

// -----

// case: interpolate unknown mode
func.func @interp_mode(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32> {
  // expected-error @+1 {{mode}}
  %0 = sc.interpolate %x {mode = "bicubic"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  return %0 : tensor<1x3x16x16xf32>
}

// -----

// case: align_corners with a nearest mode
func.func @interp_align_corners(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32> {
  // expected-error @+1 {{align_corners}}
  %0 = sc.interpolate %x {align_corners = true, mode = "nearest"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  return %0 : tensor<1x3x16x16xf32>
}

// -----

// case: reflect padding >= dim size (pad 4 on a dim of 4)
func.func @pad_reflect_too_big(%x: tensor<1x2x4xf32>) -> tensor<1x2x8xf32> {
  // expected-error @+2 {{reflect}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.pad %x {mode = "reflect", pad = array<i64: 4, 0>} : (tensor<1x2x4xf32>) -> tensor<1x2x8xf32>
  return %0 : tensor<1x2x8xf32>
}

// -----

// case: circular padding larger than the dim size
func.func @pad_circular_too_big(%x: tensor<1x2x4xf32>) -> tensor<1x2x9xf32> {
  // expected-error @+2 {{circular}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.pad %x {mode = "circular", pad = array<i64: 5, 0>} : (tensor<1x2x4xf32>) -> tensor<1x2x9xf32>
  return %0 : tensor<1x2x9xf32>
}

// -----

// case: pad with an odd number of values
func.func @pad_odd(%x: tensor<1x2x4xf32>) -> tensor<1x2x5xf32> {
  // expected-error @+2 {{even}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.pad %x {pad = array<i64: 1, 0, 1>} : (tensor<1x2x4xf32>) -> tensor<1x2x5xf32>
  return %0 : tensor<1x2x5xf32>
}

// -----

// case: pad with more pairs than the tensor has dims
func.func @pad_too_many(%x: tensor<4xf32>) -> tensor<6xf32> {
  // expected-error @+2 {{rank}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.pad %x {pad = array<i64: 1, 1, 1, 1>} : (tensor<4xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// case: pad unknown mode
func.func @pad_mode(%x: tensor<1x2x4xf32>) -> tensor<1x2x6xf32> {
  // expected-error @+1 {{mode}}
  %0 = sc.pad %x {mode = "symmetric", pad = array<i64: 1, 1>} : (tensor<1x2x4xf32>) -> tensor<1x2x6xf32>
  return %0 : tensor<1x2x6xf32>
}

// -----

// case: constant pad cropping an empty dim (torch's narrow refuses it)
func.func @pad_crop_empty(%x: tensor<2x0xf32>) -> tensor<2x1xf32> {
  // expected-error @+2 {{dim 1: cropping (-1, 2) exceeds the input size 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.pad %x {pad = array<i64: -1, 2>} : (tensor<2x0xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// case: constant pad whose crops together leave a negative size
func.func @pad_crop_negative(%x: tensor<2x4xf32>) -> tensor<2x0xf32> {
  // expected-error @+2 {{dim 1: cropping (-2, -3) exceeds the input size 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.pad %x {pad = array<i64: -2, -3>} : (tensor<2x4xf32>) -> tensor<2x0xf32>
  return %0 : tensor<2x0xf32>
}

// -----

// case: replicate padding of an empty dim (only constant mode fills one)
func.func @pad_replicate_empty(%x: tensor<2x0xf32>) -> tensor<2x2xf32> {
  // expected-error @+2 {{dim 1: input size must be >= 1 (got 0)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.pad %x {pad = array<i64: 1, 1>, mode = "replicate"} : (tensor<2x0xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// case: pad declared result wrong (F.pad order: the first pair pads the LAST dim)
func.func @pad_order(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x11x8xf32> {
  // expected-error @+2 {{tensor<1x3x8x11xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.pad %x {pad = array<i64: 1, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x11x8xf32>
  return %0 : tensor<1x3x11x8xf32>
}

//===----------------------------------------------------------------------===//
// Reductions / softmax
//===----------------------------------------------------------------------===//

// -----

// case: softmax dim out of range (rank 2, dim 2)
func.func @softmax_dim(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.softmax %x {dim = 2} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// case: log_softmax negative dim out of range (rank 2, dim -3)
func.func @log_softmax_dim(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{dim -3 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.log_softmax %x {dim = -3} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// case: reduction dim out of range
func.func @sum_dim(%x: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.sum %x {dims = array<i64: 3>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// case: reduction lists the same dim twice (1 and -2 on rank 3)
func.func @mean_dup(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{listed twice}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.mean %x {dims = array<i64: 1, -2>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// case: var dim out of range (the reductions' inference)
func.func @var_dim(%x: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{'sc.var' op dim -4 is out of range for rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.var %x {dims = array<i64: -4>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// case: a scalar's dims are 0 and -1 only (PyTorch wraps them as for rank 1)
func.func @sum_scalar_dim(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{'sc.sum' op dim 1 is out of range for rank 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.sum %x {dims = array<i64: 1>} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// case: a scalar's dim 0 listed twice (as 0 and -1), as torch.sum refuses
func.func @amax_scalar_dup(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{dim -1 is listed twice}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.amax %x {dims = array<i64: 0, -1>} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// case: std correction not finite
func.func @std_correction(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'sc.std' op correction must be finite}}
  %0 = sc.std %x {correction = 0x7FF0000000000000 : f64} : (tensor<2x3x4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// case: reduction result ignores keepdim (expected 2x1x4)
func.func @amax_keepdim(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{tensor<2x1x4xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.amax %x {dims = array<i64: 1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// case: amax/amin over an empty dim has no value (PyTorch refuses it too)
func.func @amin_empty(%x: tensor<2x0x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{reduces dim 1 of size 0; a max or min over no elements has no value}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.amin %x {dims = array<i64: 1>} : (tensor<2x0x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

//===----------------------------------------------------------------------===//
// Norms
//===----------------------------------------------------------------------===//

// -----

// case: layer_norm normalized_shape does not match the trailing dims (16)
func.func @layer_norm_shape(%x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+2 {{normalized_shape}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.layer_norm %x {normalized_shape = array<i64: 8>} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}

// -----

// case: layer_norm weight shape differs from normalized_shape
func.func @layer_norm_weight(%x: tensor<2x8x16xf32>, %w: tensor<8xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+2 {{weight}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.layer_norm %x, %w {normalized_shape = array<i64: 16>} : (tensor<2x8x16xf32>, tensor<8xf32>) -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}

// -----

// case: group_norm channels (6) not divisible by num_groups (4)
func.func @group_norm_groups(%x: tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32> {
  // expected-error @+2 {{must divide}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.group_norm %x {num_groups = 4} : (tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
  return %0 : tensor<2x6x4x4xf32>
}

// -----

// case: instance_norm without spatial dims (F.instance_norm needs them)
func.func @instance_norm_rank(%x: tensor<2x6xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{'sc.instance_norm' op input must be (N, C, L, ...), with spatial dims}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.instance_norm %x : (tensor<2x6xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// case: instance_norm over one spatial element (no spread; PyTorch refuses)
func.func @instance_norm_one_element(%x: tensor<2x6x1x1xf32>) -> tensor<2x6x1x1xf32> {
  // expected-error @+2 {{'sc.instance_norm' op needs more than one spatial element, got input 2x6x1x1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.instance_norm %x : (tensor<2x6x1x1xf32>) -> tensor<2x6x1x1xf32>
  return %0 : tensor<2x6x1x1xf32>
}

// -----

// case: instance_norm weight not of shape (C)
func.func @instance_norm_weight(%x: tensor<2x6x4xf32>, %w: tensor<4xf32>) -> tensor<2x6x4xf32> {
  // expected-error @+2 {{'sc.instance_norm' op weight must have shape 6 and element type 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.instance_norm %x, %w : (tensor<2x6x4xf32>, tensor<4xf32>) -> tensor<2x6x4xf32>
  return %0 : tensor<2x6x4xf32>
}

// -----

// case: batch_norm running_mean size differs from C
func.func @batch_norm_stats(%x: tensor<2x8x4x4xf32>, %m: tensor<4xf32>, %v: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
  // expected-error @+2 {{running_mean}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.batch_norm %x, %m, %v : (tensor<2x8x4x4xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  return %0 : tensor<2x8x4x4xf32>
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// -----

// case: reshape element count mismatch (6 vs 7)
func.func @reshape_count(%x: tensor<2x3xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{element}}
  %0 = sc.reshape %x : (tensor<2x3xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

// case: permute dims are not a permutation (0 twice)
func.func @permute_dup(%x: tensor<2x3x4xf32>) -> tensor<2x2x3xf32> {
  // expected-error @+2 {{permutation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.permute %x {dims = array<i64: 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}

// -----

// case: permute with the wrong number of dims
func.func @permute_count(%x: tensor<2x3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{permutation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.permute %x {dims = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// case: transpose dim out of range
func.func @transpose_dim(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{must be in range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.transpose %x {dim0 = 0, dim1 = 2} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// case: slice end beyond the dim size (end 11 on a dim of 10)
func.func @slice_range(%x: tensor<10xf32>) -> tensor<11xf32> {
  // expected-error @+2 {{out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.slice %x {end = array<i64: 11>, start = array<i64: 0>} : (tensor<10xf32>) -> tensor<11xf32>
  return %0 : tensor<11xf32>
}

// -----

// case: slice start after end
func.func @slice_start_end(%x: tensor<10xf32>) -> tensor<0xf32> {
  // expected-error @+2 {{out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.slice %x {end = array<i64: 3>, start = array<i64: 5>} : (tensor<10xf32>) -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// case: slice step 0
func.func @slice_step(%x: tensor<10xf32>) -> tensor<10xf32> {
  // expected-error @+2 {{step}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.slice %x {end = array<i64: 10>, start = array<i64: 0>, step = array<i64: 0>} : (tensor<10xf32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

// case: slice declared result ignores the step (ceil(10/3) = 4)
func.func @slice_result(%x: tensor<10xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{tensor<4xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.slice %x {end = array<i64: 10>, start = array<i64: 0>, step = array<i64: 3>} : (tensor<10xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// case: concat operands differ in a non-concat dim (2 vs 3 in dim 0)
func.func @concat_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{only dim 1 may differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.concat %a, %b {dim = 1} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// case: concat operands of different rank
func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{rank}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.concat %a, %b {dim = 0} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// case: broadcast_to a shape the input does not broadcast to (3 -> 4)
func.func @broadcast_to_bad(%x: tensor<3x1xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{cannot broadcast}}
  %0 = sc.broadcast_to %x : (tensor<3x1xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// case: unsqueeze dim out of range (rank 2: valid dims are -3..2)
func.func @unsqueeze_dim(%x: tensor<3x4xf32>) -> tensor<3x4x1xf32> {
  // expected-error @+2 {{out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.unsqueeze %x {dim = 3} : (tensor<3x4xf32>) -> tensor<3x4x1xf32>
  return %0 : tensor<3x4x1xf32>
}

// -----

// case: squeeze dim out of range
func.func @squeeze_dim(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  // expected-error @+2 {{out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.squeeze %x {dims = array<i64: 2>} : (tensor<1x3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

// case: squeeze with a dim listed twice (-3 is dim 0), as torch.squeeze
// refuses
func.func @squeeze_dim_twice(%x: tensor<1x8x3xf32>) -> tensor<8x3xf32> {
  // expected-error @+2 {{dim -3 is listed twice}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.squeeze %x {dims = array<i64: 0, -3>} : (tensor<1x8x3xf32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

// -----

// case: sdpa q/k head dim mismatch (64 vs 32)
func.func @sdpa_head_dim(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x16x32xf32>, %v: tensor<2x4x16x64xf32>) -> tensor<2x4x16x64xf32> {
  // expected-error @+2 {{head dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.scaled_dot_product_attention %q, %k, %v : (tensor<2x4x16x64xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x64xf32>) -> tensor<2x4x16x64xf32>
  return %0 : tensor<2x4x16x64xf32>
}

// -----

// case: sdpa k/v sequence length mismatch (16 vs 24)
func.func @sdpa_seq(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x16x64xf32>, %v: tensor<2x4x24x64xf32>) -> tensor<2x4x16x64xf32> {
  // expected-error @+2 {{sequence}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.scaled_dot_product_attention %q, %k, %v : (tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x24x64xf32>) -> tensor<2x4x16x64xf32>
  return %0 : tensor<2x4x16x64xf32>
}

// -----

// case: sdpa mask and is_causal are exclusive
func.func @sdpa_mask_causal(%q: tensor<2x4x16x64xf32>, %m: tensor<16x16xf32>) -> tensor<2x4x16x64xf32> {
  // expected-error @+2 {{is_causal}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.scaled_dot_product_attention %q, %q, %q, %m {is_causal = true} : (tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<16x16xf32>) -> tensor<2x4x16x64xf32>
  return %0 : tensor<2x4x16x64xf32>
}

// -----

// case: sdpa mask not broadcastable to (..., L, S) (S is 24, mask has 16)
func.func @sdpa_mask_shape(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x24x64xf32>, %m: tensor<16x16xf32>) -> tensor<2x4x16x64xf32> {
  // expected-error @+2 {{mask}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.scaled_dot_product_attention %q, %k, %k, %m : (tensor<2x4x16x64xf32>, tensor<2x4x24x64xf32>, tensor<2x4x24x64xf32>, tensor<16x16xf32>) -> tensor<2x4x16x64xf32>
  return %0 : tensor<2x4x16x64xf32>
}

// -----

// case: neighborhood_attention even kernel size
func.func @na_even_kernel(%q: tensor<2x64x4x32xf32>) -> tensor<2x64x4x32xf32> {
  // expected-error @+2 {{odd}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.neighborhood_attention %q, %q, %q {kernel_size = array<i64: 4>} : (tensor<2x64x4x32xf32>, tensor<2x64x4x32xf32>, tensor<2x64x4x32xf32>) -> tensor<2x64x4x32xf32>
  return %0 : tensor<2x64x4x32xf32>
}

// -----

// case: neighborhood_attention kernel * dilation > spatial size (7 * 3 = 21 > 16)
func.func @na_kernel_dilation(%q: tensor<2x16x4x32xf32>) -> tensor<2x16x4x32xf32> {
  // expected-error @+2 {{dilation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.neighborhood_attention %q, %q, %q {dilation = array<i64: 3>, kernel_size = array<i64: 7>} : (tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>) -> tensor<2x16x4x32xf32>
  return %0 : tensor<2x16x4x32xf32>
}

// -----

// case: neighborhood_attention kernel larger than the spatial size (2-D, W = 4 < 5)
func.func @na_kernel_too_big(%q: tensor<1x8x4x2x16xf32>) -> tensor<1x8x4x2x16xf32> {
  // expected-error @+2 {{kernel}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.neighborhood_attention %q, %q, %q {kernel_size = array<i64: 5, 5>} : (tensor<1x8x4x2x16xf32>, tensor<1x8x4x2x16xf32>, tensor<1x8x4x2x16xf32>) -> tensor<1x8x4x2x16xf32>
  return %0 : tensor<1x8x4x2x16xf32>
}

// -----

// case: neighborhood_attention kernel_size with the wrong number of values (1 for 2-D)
func.func @na_kernel_count(%q: tensor<1x8x8x2x16xf32>) -> tensor<1x8x8x2x16xf32> {
  // expected-error @+2 {{kernel_size}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.neighborhood_attention %q, %q, %q {kernel_size = array<i64: 3>} : (tensor<1x8x8x2x16xf32>, tensor<1x8x8x2x16xf32>, tensor<1x8x8x2x16xf32>) -> tensor<1x8x8x2x16xf32>
  return %0 : tensor<1x8x8x2x16xf32>
}

// -----

// case: neighborhood_attention q and k shapes differ
func.func @na_qk_shape(%q: tensor<1x16x2x16xf32>, %k: tensor<1x15x2x16xf32>) -> tensor<1x16x2x16xf32> {
  // expected-error @+2 {{shape}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.neighborhood_attention %q, %k, %k {kernel_size = array<i64: 3>} : (tensor<1x16x2x16xf32>, tensor<1x15x2x16xf32>, tensor<1x15x2x16xf32>) -> tensor<1x16x2x16xf32>
  return %0 : tensor<1x16x2x16xf32>
}

// -----

// case: roll with several shifts but no dims (torch.roll flattens for one)
func.func @roll_shifts_no_dims(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'sc.roll' op without dims rolls the flattened tensor by one shift; got 2 shifts (as torch.roll)}}
  %0 = sc.roll %x {shifts = array<i64: 1, 2>} : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// case: roll shifts and dims of different lengths
func.func @roll_unpaired(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'sc.roll' op has 1 shifts but 2 dims; they must pair up}}
  %0 = sc.roll %x {shifts = array<i64: 1>, dims = array<i64: 0, 1>} : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// case: roll dim out of range
func.func @roll_dim(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'sc.roll' op dim 2 is out of range for rank 2}}
  %0 = sc.roll %x {shifts = array<i64: 1>, dims = array<i64: 2>} : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// case: roll without a shift
func.func @roll_empty(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'sc.roll' op needs at least one shift}}
  %0 = sc.roll %x {shifts = array<i64>} : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// case: flip lists a dim twice (1 and -2 on rank 3), as torch.flip refuses
func.func @flip_twice(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{'sc.flip' op dim -2 is listed twice}}
  %0 = sc.flip %x {dims = array<i64: 1, -2>} : tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// case: flip dim out of range
func.func @flip_dim(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{'sc.flip' op dim 3 is out of range for rank 3}}
  %0 = sc.flip %x {dims = array<i64: 3>} : tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// case: hardtanh with min_val above max_val
func.func @hardtanh_range(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'sc.hardtanh' op min_val (2.000000e+00) must not exceed max_val (1.000000e+00)}}
  %0 = sc.hardtanh %x {min_val = 2.0, max_val = 1.0} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// case: pixel_shuffle on a 2-D tensor (needs (*, C, H, W))
func.func @pixel_shuffle_rank(%x: tensor<4x4xf32>) -> tensor<8x8xf32> {
  // expected-error @+2 {{'sc.pixel_shuffle' op needs an input of at least 3 dims (*, C, H, W)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.pixel_shuffle %x {factor = 2} : (tensor<4x4xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// case: pixel_shuffle channels not divisible by the factor's square
func.func @pixel_shuffle_channels(%x: tensor<1x6x4x4xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+2 {{'sc.pixel_shuffle' op channels (6) must be divisible by the factor's square (4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.pixel_shuffle %x {factor = 2} : (tensor<1x6x4x4xf32>) -> tensor<1x1x8x8xf32>
  return %0 : tensor<1x1x8x8xf32>
}

// -----

// case: pixel_unshuffle of a height the factor does not divide
func.func @pixel_unshuffle_height(%x: tensor<1x1x5x4xf32>) -> tensor<1x4x2x2xf32> {
  // expected-error @+2 {{'sc.pixel_unshuffle' op height (5) and width (4) must be divisible by the factor (2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.pixel_unshuffle %x {factor = 2} : (tensor<1x1x5x4xf32>) -> tensor<1x4x2x2xf32>
  return %0 : tensor<1x4x2x2xf32>
}

// -----

// case: pixel_shuffle with factor 0
func.func @pixel_shuffle_factor(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+2 {{'sc.pixel_shuffle' op factor must be positive and its square fit int64 (got 0)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.pixel_shuffle %x {factor = 0} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// case: layer_norm with a negative eps (the root of a negative variance)
func.func @layer_norm_negative_eps(%x: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  // expected-error @+2 {{'sc.layer_norm' op eps must be finite and not negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.layer_norm %x {normalized_shape = array<i64: 5>, eps = -1.0e-05 : f64} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// case: instance_norm with an infinite eps (the runtime takes finite ones)
func.func @instance_norm_eps_inf(%x: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  // expected-error @+2 {{'sc.instance_norm' op eps must be finite and not negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.instance_norm %x {eps = 0x7FF0000000000000 : f64} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// case: celu divides by alpha
func.func @celu_alpha(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'sc.celu' op alpha must not be 0 (F.celu divides by it)}}
  %0 = sc.celu %x {alpha = 0.0} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// case: prelu with a slope count that is neither 1 nor the channels
func.func @prelu_slopes(%x: tensor<1x3x4xf32>, %w: tensor<4xf32>) -> tensor<1x3x4xf32> {
  // expected-error @+2 {{'sc.prelu' op weight 4 must hold one slope or one per channel (3), as a 1-D tensor}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.prelu %x, %w : (tensor<1x3x4xf32>, tensor<4xf32>) -> tensor<1x3x4xf32>
  return %0 : tensor<1x3x4xf32>
}

// -----

// case: a Python scalar's type rule is for add/sub/mul/div only
func.func @scalar_maximum(%a: tensor<4xbf16>, %s: tensor<f32>) -> tensor<4xbf16> {
  // expected-error @+2 {{operand element types differ ('bf16' vs 'f32'); insert an sc.cast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.maximum %a, %s : (tensor<4xbf16>, tensor<f32>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// case: two rank-0 operands of different types (PyTorch would promote)
func.func @two_scalars(%a: tensor<bf16>, %s: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{operand element types differ ('bf16' vs 'f32'); insert an sc.cast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.mul %a, %s : (tensor<bf16>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// case: the result takes the ranked operand's type, not the scalar's
func.func @scalar_result_type(%a: tensor<4xbf16>, %s: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+2 {{'sc.mul' op inferred type(s) 'tensor<4xbf16>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'sc.mul' op failed to infer returned types}}
  %0 = sc.mul %a, %s : (tensor<4xbf16>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
