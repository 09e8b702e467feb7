// RUN: shardc-opt %s -split-input-file -sc-propagate-sharding -sc-insert-reshards -sc-partition=unroll-rings=1 -verify-diagnostics -o /dev/null
// RUN: shardc-opt %s -split-input-file -sc-propagate-sharding -sc-insert-reshards -sc-partition -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=INSTR
// RUN: sed -n '/^sc.mesh @mesh \["x"=160\]/,/^}/p' %s | shardc - --unroll-rings --emit=plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHARDC

// Unrolled, a ring costs ranks x members steps to compile (1024 ranks:
// about 40 s and 8 GB): past 2^14 steps shardc says so before the long
// compile. The RingAttention instruction (the default) says nothing.
// INSTR-NOT: warning: --unroll-rings
// SHARDC: warning: --unroll-rings spells this ring out as 160 ranks x 160 member steps

// case: a ring of 160 members, 25600 steps
sc.mesh @mesh ["x"=160]
func.func @main(%q: tensor<1x1x160x2xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
                %k: tensor<1x1x160x2xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
                %v: tensor<1x1x160x2xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>}) -> tensor<1x1x160x2xf32> {
  // expected-warning @+1 {{--unroll-rings spells this ring out as 160 ranks x 160 member steps, which can take minutes and gigabytes to compile}}
  %y = sc.scaled_dot_product_attention %q, %k, %v : (tensor<1x1x160x2xf32>, tensor<1x1x160x2xf32>, tensor<1x1x160x2xf32>) -> tensor<1x1x160x2xf32>
  return %y : tensor<1x1x160x2xf32>
}

// -----

// case: a ring of 64 members, 4096 steps: no warning
sc.mesh @mesh ["x"=64]
func.func @main(%q: tensor<1x1x64x2xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
                %k: tensor<1x1x64x2xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
                %v: tensor<1x1x64x2xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>}) -> tensor<1x1x64x2xf32> {
  %y = sc.scaled_dot_product_attention %q, %k, %v : (tensor<1x1x64x2xf32>, tensor<1x1x64x2xf32>, tensor<1x1x64x2xf32>) -> tensor<1x1x64x2xf32>
  return %y : tensor<1x1x64x2xf32>
}
