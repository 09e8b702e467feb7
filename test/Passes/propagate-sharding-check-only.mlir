// RUN: shardc-opt %s -sc-propagate-sharding=check-only -verify-diagnostics | FileCheck %s

// check-only reports what it would infer and leaves the IR alone.
sc.mesh @mesh ["x"=2]
// CHECK-NOT: sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[2, 3]]>
func.func @f(%x: tensor<1x1x10xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[4, 6]]>}) -> tensor<1x1x5xf32> {
  // expected-remark @below {{sharding #sc.sharding<@mesh, [{}, {}, {"x"}[2, 3]]>}}
  %y = sc.avg_pool %x {kernel_size = array<i64: 2>} : (tensor<1x1x10xf32>) -> tensor<1x1x5xf32>
  return %y : tensor<1x1x5xf32>
}
