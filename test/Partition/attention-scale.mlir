// Attention scales as PyTorch takes them: any finite value. A zero scale
// weighs every key alike, so the output is the mean of the values; a
// negative one is the positive scale applied to -q. Each sharded model
// (rings over 3 uneven ranks, plain, balanced causal and unrolled, and a
// neighbourhood over 4) is checked against that other formulation, compiled
// as its --reference.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc %t/zero.mlir --reference %t/zero-ref.mlir -o %t/zero.shardbin
// RUN: shard-run %t/zero.shardbin --random-inputs --seed 1 --check --atol 1e-5 --rtol 1e-4 | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/zero.mlir --reference %t/zero-ref.mlir --unroll-rings -o %t/zero-unrolled.shardbin
// RUN: shard-run %t/zero-unrolled.shardbin --random-inputs --seed 2 --check --atol 1e-5 --rtol 1e-4 | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/negative.mlir --reference %t/negative-ref.mlir -o %t/negative.shardbin
// RUN: shard-run %t/negative.shardbin --random-inputs --seed 3 --check --atol 1e-5 --rtol 1e-4 | FileCheck %s --check-prefix=NUM
// RUN: shard-run %t/negative.shardbin --random-inputs --seed 3 --check --atol 1e-5 --rtol 1e-4 --plain-rings | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/negative.mlir --reference %t/negative-ref.mlir --unroll-rings -o %t/negative-unrolled.shardbin
// RUN: shard-run %t/negative-unrolled.shardbin --random-inputs --seed 4 --check --atol 1e-5 --rtol 1e-4 | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/natten.mlir --reference %t/natten-ref.mlir -o %t/natten.shardbin
// RUN: shard-run %t/natten.shardbin --random-inputs --seed 5 --check --atol 1e-5 --rtol 1e-4 | FileCheck %s --check-prefix=NUM
// The CUDA target takes them too.
// RUN: shardc %t/negative.mlir --target=cuda --emit=kernels > /dev/null

// NUM: check result0: max abs error {{.*}}: ok

//--- zero.mlir
sc.mesh @mesh ["x"=3]
func.func @main(%q: tensor<1x2x12x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 4, 3], {}]>},
                %k: tensor<1x2x12x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 4, 3], {}]>},
                %v: tensor<1x2x12x3xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 4, 3], {}]>}) -> tensor<1x2x12x3xf32> {
  %o = sc.scaled_dot_product_attention %q, %k, %v {scale = 0.0} : (tensor<1x2x12x4xf32>, tensor<1x2x12x4xf32>, tensor<1x2x12x3xf32>) -> tensor<1x2x12x3xf32>
  return %o : tensor<1x2x12x3xf32>
}

//--- zero-ref.mlir
func.func @main(%q: tensor<1x2x12x4xf32>, %k: tensor<1x2x12x4xf32>, %v: tensor<1x2x12x3xf32>) -> tensor<1x2x12x3xf32> {
  %m = sc.mean %v {dims = array<i64: 2>, keepdim = true} : (tensor<1x2x12x3xf32>) -> tensor<1x2x1x3xf32>
  %o = sc.broadcast_to %m : (tensor<1x2x1x3xf32>) -> tensor<1x2x12x3xf32>
  return %o : tensor<1x2x12x3xf32>
}

//--- negative.mlir
sc.mesh @mesh ["x"=3]
func.func @main(%q: tensor<1x2x12x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 4, 3], {}]>},
                %k: tensor<1x2x12x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 4, 3], {}]>},
                %v: tensor<1x2x12x3xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 4, 3], {}]>}) -> tensor<1x2x12x3xf32> {
  %o = sc.scaled_dot_product_attention %q, %k, %v {scale = -0.75, is_causal = true} : (tensor<1x2x12x4xf32>, tensor<1x2x12x4xf32>, tensor<1x2x12x3xf32>) -> tensor<1x2x12x3xf32>
  return %o : tensor<1x2x12x3xf32>
}

//--- negative-ref.mlir
func.func @main(%q: tensor<1x2x12x4xf32>, %k: tensor<1x2x12x4xf32>, %v: tensor<1x2x12x3xf32>) -> tensor<1x2x12x3xf32> {
  %n = sc.neg %q : tensor<1x2x12x4xf32>
  %o = sc.scaled_dot_product_attention %n, %k, %v {scale = 0.75, is_causal = true} : (tensor<1x2x12x4xf32>, tensor<1x2x12x4xf32>, tensor<1x2x12x3xf32>) -> tensor<1x2x12x3xf32>
  return %o : tensor<1x2x12x3xf32>
}

//--- natten.mlir
sc.mesh @mesh ["x"=4]
func.func @main(%q: tensor<1x16x2x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[6, 2, 5, 3], {}, {}]>},
                %k: tensor<1x16x2x4xf32>, %v: tensor<1x16x2x4xf32>) -> tensor<1x16x2x4xf32> {
  %y = sc.neighborhood_attention %q, %k, %v {kernel_size = array<i64: 5>, scale = -0.5} : (tensor<1x16x2x4xf32>, tensor<1x16x2x4xf32>, tensor<1x16x2x4xf32>) -> tensor<1x16x2x4xf32>
  return %y : tensor<1x16x2x4xf32>
}

//--- natten-ref.mlir
func.func @main(%q: tensor<1x16x2x4xf32>, %k: tensor<1x16x2x4xf32>, %v: tensor<1x16x2x4xf32>) -> tensor<1x16x2x4xf32> {
  %n = sc.neg %q : tensor<1x16x2x4xf32>
  %y = sc.neighborhood_attention %n, %k, %v {kernel_size = array<i64: 5>, scale = 0.5} : (tensor<1x16x2x4xf32>, tensor<1x16x2x4xf32>, tensor<1x16x2x4xf32>) -> tensor<1x16x2x4xf32>
  return %y : tensor<1x16x2x4xf32>
}
