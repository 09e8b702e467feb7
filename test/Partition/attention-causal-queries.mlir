// Causal attention with the queries split and the keys whole: every rank's
// queries start at their global position, so the causal rule reaches the
// runtime as a bool mask (query position >= key position) instead of
// is_causal, which counts from local position 0 (every rank used to mask as
// if it held the first queries). Uneven with an empty shard, batch and head
// dims, more keys than queries, and a split asked for by the result only;
// each runs partitioned against the unpartitioned model.
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc %t/heads.mlir --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: shardc %t/heads.mlir -o %t/heads.shardbin
// RUN: shard-run %t/heads.shardbin --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/longer-keys.mlir -o %t/longer-keys.shardbin
// RUN: shard-run %t/longer-keys.shardbin --random-inputs --check | FileCheck %s --check-prefix=OK
// RUN: shardc %t/result-only.mlir -o %t/result-only.shardbin
// RUN: shard-run %t/result-only.shardbin --random-inputs --check | FileCheck %s --check-prefix=OK

// KERNELS: rank class
// KERNELS: Compare "ge"
// KERNELS: Attention ({{.*}}) -> {{.*}} ints [0, 1]
// OK: check result0: {{.*}}: ok

//--- heads.mlir
sc.mesh @m ["x"=3]
func.func @main(%q: tensor<2x3x8x4xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[3, 0, 5], {}]>},
                %k: tensor<2x3x8x4xf32>, %v: tensor<2x3x8x5xf32>) -> tensor<2x3x8x5xf32> {
  %y = sc.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x5xf32>) -> tensor<2x3x8x5xf32>
  return %y : tensor<2x3x8x5xf32>
}

//--- longer-keys.mlir
sc.mesh @m ["x"=2]
func.func @main(%q: tensor<1x6x4xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}, {}]>},
                %k: tensor<1x9x4xf32>, %v: tensor<1x9x4xf32>) -> tensor<1x6x4xf32> {
  %y = sc.scaled_dot_product_attention %q, %k, %v {is_causal = true, scale = 0.3 : f64} : (tensor<1x6x4xf32>, tensor<1x9x4xf32>, tensor<1x9x4xf32>) -> tensor<1x6x4xf32>
  return %y : tensor<1x6x4xf32>
}

//--- result-only.mlir
sc.mesh @m ["x"=2]
func.func @main(%q: tensor<1x4x2xf32>, %k: tensor<1x4x2xf32>, %v: tensor<1x4x2xf32>)
    -> (tensor<1x4x2xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}, {}]>}) {
  %y = sc.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  return %y : tensor<1x4x2xf32>
}
