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
