// RUN: shardc-opt %s -split-input-file -sc-partition -verify-diagnostics

// sc-partition trusts sc-insert-reshards to have aligned the operands; where
// IR reaches it unaligned (written by hand, or a bug upstream), it says so
// at the op instead of emitting local steps the runtime would refuse.

// case: the input keeps its spatial split over "x" while the weight splits
// the contracted input channels over "x" (the result sums over "x")
sc.mesh @mesh ["x"=3]
func.func @main(%a: tensor<1x2x1xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>},
                %w: tensor<3x2x1xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>}) -> tensor<1x3x3xf32> {
  // expected-error @+1 {{splits a contracted dim differently on its operands (internal error: sc-insert-reshards aligns them)}}
  %y = sc.conv %a, %w {padding = array<i64: 1>, sc.sharding = #sc.sharding<@mesh, [{}, {}, {}], partial sum {"x"}>} : (tensor<1x2x1xf32>, tensor<3x2x1xf32>) -> tensor<1x3x3xf32>
  %r = sc.reshard %y : tensor<1x3x3xf32> to #sc.sharding<@mesh, [{}, {}, {}]>
  return %r : tensor<1x3x3xf32>
}

// -----

// case: a matmul whose operands split the contracted dim unevenly in two
// different ways
sc.mesh @mesh ["x"=2]
func.func @main(%a: tensor<4x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[2, 4]]>},
                %b: tensor<6x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[3, 3], {}]>}) -> tensor<4x4xf32> {
  // expected-error @+1 {{splits a contracted dim differently on its operands}}
  %y = sc.matmul %a, %b {sc.sharding = #sc.sharding<@mesh, [{}, {}], partial sum {"x"}>} : (tensor<4x6xf32>, tensor<6x4xf32>) -> tensor<4x4xf32>
  %r = sc.reshard %y : tensor<4x4xf32> to #sc.sharding<@mesh, [{}, {}]>
  return %r : tensor<4x4xf32>
}
