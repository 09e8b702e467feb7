// RUN: shardc-opt %s -split-input-file -sc-propagate-sharding -verify-diagnostics

sc.mesh @a ["x"=2]
sc.mesh @b ["y"=2]
// expected-note @below {{@a used here}}
func.func @two_meshes(%x: tensor<4xf32> {sc.sharding = #sc.sharding<@a, [{"x"}]>},
                      // expected-error @below {{this sharding uses mesh @b but @a is used too; a model runs on one mesh}}
                      %y: tensor<4xf32> {sc.sharding = #sc.sharding<@b, [{"y"}]>}) -> tensor<4xf32> {
  %z = sc.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

// A pin may give a layout, not a pending reduction.
sc.mesh @mesh ["x"=2]
func.func @partial_pin(%x: tensor<4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}]>}) -> tensor<4xf32> {
  // expected-error @below {{pins a partial sharding on its result; shardc decides where values are partial}}
  %e = sc.exp %x {sc.sharding = #sc.sharding<@mesh, [{}], partial sum {"x"}>} : tensor<4xf32>
  return %e : tensor<4xf32>
}
