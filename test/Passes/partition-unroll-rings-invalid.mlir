// RUN: shardc-opt %s -split-input-file -sc-propagate-sharding -sc-insert-reshards -sc-partition=unroll-rings=1 -verify-diagnostics
// RUN: shardc-opt %s -split-input-file -sc-propagate-sharding -sc-insert-reshards -sc-partition | FileCheck %s

// An unrolled causal ring compares positions in f32, exact up to 2^24; the
// RingAttention instruction compares them as integers and has no limit.
// CHECK-LABEL: func.func @main_class0
// CHECK-SAME: scl.ranks = array<i32: 0, 1>
// CHECK: scl.ring_attention over [0] starts [0, 8388609, 16777218] scale 1.000000e+00 causal queries over [0] starts [0, 8388609, 16777218] ins({{.*}}) outs({{.*}})
// CHECK-NOT: func.func @main_class1

// case: a causal ring over more positions than f32 counts exactly
sc.mesh @mesh ["x"=2]
func.func @main(%q: tensor<1x1x16777218x1xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
                %k: tensor<1x1x16777218x1xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
                %v: tensor<1x1x16777218x1xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>}) -> tensor<1x1x16777218x1xf32> {
  // expected-error @+1 {{attends causally over more than 2^24 positions; the causal ring compares positions in f32}}
  %y = sc.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<1x1x16777218x1xf32>, tensor<1x1x16777218x1xf32>, tensor<1x1x16777218x1xf32>) -> tensor<1x1x16777218x1xf32>
  return %y : tensor<1x1x16777218x1xf32>
}
