// RUN: shardc-opt %s -split-input-file -sc-propagate-sharding | FileCheck %s

// Elementwise ops keep explicit extents unchanged.
sc.mesh @mesh ["x"=3]
// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<2x10xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[6, 1, 3]]>},
                       %b: tensor<10xf32>) -> tensor<2x10xf32> {
  // CHECK: sc.relu {{.*}}sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[6, 1, 3]]>
  %0 = sc.relu %x : tensor<2x10xf32>
  // CHECK: sc.add {{.*}}sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[6, 1, 3]]>
  %1 = sc.add %0, %b : (tensor<2x10xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  return %1 : tensor<2x10xf32>
}

// -----

// A stride-2 conv derives its extents from each output's window centre, so
// an uneven split stays aligned (90/90/70 -> 45/45/35).
sc.mesh @mesh ["x"=3]
// CHECK-LABEL: func.func @strided
func.func @strided(%x: tensor<1x1x250xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[90, 90, 70]]>},
                   %w: tensor<1x1x3xf32>) -> tensor<1x1x125xf32> {
  // CHECK: sc.conv {{.*}}sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[45, 45, 35]]>
  %y = sc.conv %x, %w {padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<1x1x250xf32>, tensor<1x1x3xf32>) -> tensor<1x1x125xf32>
  return %y : tensor<1x1x125xf32>
}

// -----

// Down by a k2s2 pool, up by nearest x2 and a k2s2 transposed conv: the
// extents double back, so a skip connection lines up without moving data.
sc.mesh @mesh ["x"=2]
// CHECK-LABEL: func.func @down_up
func.func @down_up(%x: tensor<1x1x12xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[8, 4]]>},
                   %w: tensor<1x1x2xf32>) -> tensor<1x2x12xf32> {
  // CHECK: sc.max_pool {{.*}}sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[4, 2]]>
  %d = sc.max_pool %x {kernel_size = array<i64: 2>} : (tensor<1x1x12xf32>) -> tensor<1x1x6xf32>
  // CHECK: sc.interpolate {{.*}}sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[8, 4]]>
  %u = sc.interpolate %d {scale_factors = array<f64: 2.0>} : (tensor<1x1x6xf32>) -> tensor<1x1x12xf32>
  // CHECK: sc.conv_transpose {{.*}}sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[8, 4]]>
  %t = sc.conv_transpose %d, %w {stride = array<i64: 2>} : (tensor<1x1x6xf32>, tensor<1x1x2xf32>) -> tensor<1x1x12xf32>
  // CHECK: sc.concat {{.*}}sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[8, 4]]>
  %c = sc.concat %u, %t {dim = 1} : (tensor<1x1x12xf32>, tensor<1x1x12xf32>) -> tensor<1x2x12xf32>
  return %c : tensor<1x2x12xf32>
}

// -----

// Reductions and contractions over a split dim leave partial values.
sc.mesh @mesh ["x"=4]
// CHECK-LABEL: func.func @partial
func.func @partial(%x: tensor<2x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>},
                   %w: tensor<8x3xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2x3xf32>) {
  // CHECK: sc.sum {{.*}}sc.sharding = #sc.sharding<@mesh, [{}], partial sum {"x"}>
  %s = sc.sum %x {dims = array<i64: 1>} : (tensor<2x8xf32>) -> tensor<2xf32>
  // CHECK: sc.amax {{.*}}sc.sharding = #sc.sharding<@mesh, [{}], partial max {"x"}>
  %m = sc.amax %x {dims = array<i64: 1>} : (tensor<2x8xf32>) -> tensor<2xf32>
  // CHECK: sc.matmul {{.*}}sc.sharding = #sc.sharding<@mesh, [{}, {}], partial sum {"x"}>
  %p = sc.matmul %x, %w : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
  return %s, %m, %p : tensor<2xf32>, tensor<2xf32>, tensor<2x3xf32>
}

// -----

// Operands disagree: the split of the operand with more bytes wins.
sc.mesh @mesh ["x"=2]
// CHECK-LABEL: func.func @conflict
func.func @conflict(%small: tensor<1x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[6, 2]]>},
                    %big: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>}) -> tensor<4x8xf32> {
  // CHECK: sc.add {{.*}}sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>
  %y = sc.add %small, %big : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A 2-D mesh splits two dims; statistics keep both splits; a user constraint
// wins over the inferred sharding.
sc.mesh @grid ["a"=2, "b"=2]
// CHECK-LABEL: func.func @two_d
func.func @two_d(%x: tensor<1x4x6x6xf32> {sc.sharding = #sc.sharding<@grid, [{}, {}, {"a"}, {"b"}]>}) -> tensor<1x4x6x6xf32> {
  // CHECK: sc.group_norm {{.*}}sc.sharding = #sc.sharding<@grid, [{}, {}, {"a"}, {"b"}]>
  %n = sc.group_norm %x {num_groups = 2} : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  // CHECK: sc.sharding_constraint {{.*}} to #sc.sharding<@grid, [{}, {"a"}, {}, {}]>
  %c = sc.sharding_constraint %n : tensor<1x4x6x6xf32> to #sc.sharding<@grid, [{}, {"a"}, {}, {}]>
  // CHECK: sc.silu {{.*}}sc.sharding = #sc.sharding<@grid, [{}, {"a"}, {}, {}]>
  %s = sc.silu %c : tensor<1x4x6x6xf32>
  return %s : tensor<1x4x6x6xf32>
}

// -----

// One-element shards and a world of one.
sc.mesh @one ["x"=1]
// CHECK-LABEL: func.func @world_of_one
func.func @world_of_one(%x: tensor<3xf32> {sc.sharding = #sc.sharding<@one, [{"x"}]>}) -> tensor<3xf32> {
  // CHECK: sc.exp {{.*}}sc.sharding = #sc.sharding<@one, [{"x"}]>
  %y = sc.exp %x : tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

sc.mesh @mesh ["x"=3]
// CHECK-LABEL: func.func @tiny
func.func @tiny(%x: tensor<3xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[1, 1, 1]]>}) -> tensor<3xf32> {
  // CHECK: sc.neg {{.*}}sc.sharding = #sc.sharding<@mesh, [{"x"}]>
  %y = sc.neg %x : tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// Two factors want one axis: the rows of %a (192 bytes) and the contraction
// of %b (120 bytes). The bigger operand's factor claims it, so the result
// is split by rows (and %b is gathered), not a partial sum.
sc.mesh @mesh ["x"=2]
// CHECK-LABEL: func.func @factor_conflict
func.func @factor_conflict(%a: tensor<8x6xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>},
                           %b: tensor<6x5xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x5xf32> {
  // CHECK: sc.matmul %arg0, %arg1 {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}
  %y = sc.matmul %a, %b : (tensor<8x6xf32>, tensor<6x5xf32>) -> tensor<8x5xf32>
  return %y : tensor<8x5xf32>
}

// -----

// An op result's sc.sharding pins it: propagation does not change it and
// works around it. Here the input split on dim 0 would make exp split there
// too; the pin splits exp on dim 1 instead, and its consumer follows the pin.
sc.mesh @mesh ["x"=2]
// CHECK-LABEL: func.func @pinned_result
func.func @pinned_result(%x: tensor<8x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x4xf32> {
  // CHECK: sc.exp {{.*}}sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>
  %e = sc.exp %x {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>} : tensor<8x4xf32>
  // CHECK: sc.neg {{.*}}sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>
  %n = sc.neg %e : tensor<8x4xf32>
  return %n : tensor<8x4xf32>
}
