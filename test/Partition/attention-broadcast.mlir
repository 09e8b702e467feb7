// Ring attention (keys split along their sequence) whose q, k and v differ
// in rank or broadcast batch dims, as PyTorch's SDPA allows: each is read by
// its own rank, the score and output matmuls broadcast the batch dims, and
// the ring passes k and v blocks in their own shapes. With no keys at all
// every output row is an empty sum, 0, as the unpartitioned op gives. A
// mask of rank 0 or 1 broadcasts to (L, S) as in PyTorch. All
// checked numerically against the unpartitioned run.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc %t/lower-q.mlir --unroll-rings --emit=plan | FileCheck %s --check-prefix=LOWQ
// RUN: shardc %t/three-ranks.mlir --unroll-rings --emit=plan | FileCheck %s --check-prefix=THREE
// RUN: shardc %t/three-ranks.mlir --unroll-rings --emit=kernels | FileCheck %s --check-prefix=KTHREE
// RUN: shardc %t/heads.mlir --unroll-rings --emit=plan | FileCheck %s --check-prefix=HEADS
// RUN: shardc %t/no-keys.mlir --unroll-rings --emit=kernels | FileCheck %s --check-prefix=KNOKEYS
// RUN: shardc %t/mask-v-batch.mlir --unroll-rings --emit=kernels | FileCheck %s --check-prefix=KMASKV
// RUN: shardc %t/keys-lose-axis.mlir --unroll-rings --emit=kernels | FileCheck %s --check-prefix=KLOSE
// RUN: shardc %t/keys-own-split.mlir --unroll-rings --emit=plan | FileCheck %s --check-prefix=OWN
// RUN: for m in lower-q three-ranks heads no-keys no-keys-causal mask-v-batch keys-lose-axis no-keys-batched keys-own-split mask-keys-only mask-scalar; do \
// RUN:   shardc %t/$m.mlir -o %t/$m.shardbin && \
// RUN:   shard-run %t/$m.shardbin --random-inputs --seed 3 --check --atol 1e-4 --rtol 1e-4 || exit 1; \
// RUN: done | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/three-ranks.mlir -O3 -o %t/three-ranks3.shardbin
// RUN: shard-run %t/three-ranks3.shardbin --random-inputs --seed 4 --check --atol 1e-4 --rtol 1e-4 | FileCheck %s --check-prefix=NUM3
// RUN: for m in mask-keys-only mask-scalar; do \
// RUN:   shardc %t/$m.mlir --unroll-rings -o %t/$m-unrolled.shardbin && \
// RUN:   shard-run %t/$m-unrolled.shardbin --random-inputs --seed 5 --check --atol 1e-4 --rtol 1e-4 || exit 1; \
// RUN: done | FileCheck %s --check-prefix=UNROLLED
// NUM-COUNT-11: check result0: {{.*}}: ok
// NUM-NOT: check result0
// NUM3: check result0: {{.*}}: ok
// UNROLLED-COUNT-2: check result0: {{.*}}: ok

//--- lower-q.mlir
// 2-D queries against (1, 2, S, E) keys: the scores are (1, 2, 4, block).
// A block is K + V = 2 x 3 x (8 + 5) x 4 B = 312 B.
sc.mesh @mesh ["x"=2]
func.func @main(%q: tensor<4x8xf32>, %k: tensor<1x2x6x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>}, %v: tensor<1x2x6x5xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>}) -> tensor<1x2x4x5xf32> {
  %o = sc.scaled_dot_product_attention %q, %k, %v : (tensor<4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x5xf32>) -> tensor<1x2x4x5xf32>
  return %o : tensor<1x2x4x5xf32>
}
// LOWQ: rank class 'class0': ranks [0, 1]
// LOWQ-NEXT: inputs: (4,8) (1,2,3,8) (1,2,3,5)
// LOWQ-NEXT: outputs: (1,2,4,5)
// LOWQ-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 312, received: 312
// LOWQ: F32(1,2,8,3)
// LOWQ-NEXT: F32(1,2,4,3)
// LOWQ-NOT: rank class

//--- three-ranks.mlir
// q of rank 4, k of rank 3, v of rank 2, causal, uneven: rank 1 has no
// queries and sees only block 0 (zero rows); k blocks travel as
// (3, b, 8) and v blocks as (b, 5).
sc.mesh @mesh ["x"=3]
func.func @main(%q: tensor<2x3x7x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[3, 0, 4], {}]>}, %k: tensor<3x9x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[4, 3, 2], {}]>}, %v: tensor<9x5xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[4, 3, 2], {}]>}) -> tensor<2x3x7x5xf32> {
  %o = sc.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<2x3x7x8xf32>, tensor<3x9x8xf32>, tensor<9x5xf32>) -> tensor<2x3x7x5xf32>
  return %o : tensor<2x3x7x5xf32>
}
// THREE: rank class 'class0': ranks [0]
// THREE-NEXT: inputs: (2,3,3,8) (3,4,8) (4,5)
// THREE-NEXT: outputs: (2,3,3,5)
// THREE: rank class 'class1': ranks [1]
// THREE-NEXT: inputs: (2,3,0,8) (3,3,8) (3,5)
// THREE-NEXT: outputs: (2,3,0,5)
// THREE: rank class 'class2': ranks [2]
// THREE-NEXT: inputs: (2,3,4,8) (3,2,8) (2,5)
// THREE-NEXT: outputs: (2,3,4,5)
// THREE-NOT: rank class
// KTHREE: rank class 'class1'
// KTHREE: HaloExchange (%1, %2) -> %{{[0-9]+}} send %1[0:3,0:3,0:8] peer (1) periodic send %2[0:3,0:5] peer (1) periodic recv %{{[0-9]+}}[0:3,0:4,0:8] peer (-1) periodic recv %{{[0-9]+}}[0:4,0:5] peer (-1) periodic
// KTHREE: Permute {{.*}} ints [0, 2, 1]
// KTHREE: Reduce "amax" {{.*}} ints [3]

//--- heads.mlir
// One k/v head for four query heads, batch over y, the sequence over x, an
// additive (S, S) mask: the scores are (1, 4, 6, 3) per block.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%q: tensor<2x4x6x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"y"}, {}, {}, {}]>}, %k: tensor<2x1x6x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"y"}, {}, {"x"}, {}]>}, %v: tensor<2x1x6x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"y"}, {}, {"x"}, {}]>}, %m: tensor<6x6xf32>) -> tensor<2x4x6x8xf32> {
  %o = sc.scaled_dot_product_attention %q, %k, %v, %m : (tensor<2x4x6x8xf32>, tensor<2x1x6x8xf32>, tensor<2x1x6x8xf32>, tensor<6x6xf32>) -> tensor<2x4x6x8xf32>
  return %o : tensor<2x4x6x8xf32>
}
// HEADS: rank class 'class0': ranks [0, 1]
// HEADS-NEXT: inputs: (1,4,6,8) (1,1,3,8) (1,1,3,8) (6,6)
// HEADS-NEXT: outputs: (1,4,6,8)
// HEADS: F32(1,4,6,3)

//--- no-keys.mlir
sc.mesh @mesh ["x"=2]
func.func @main(%q: tensor<4x8xf32>, %k: tensor<0x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}, %v: tensor<0x5xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}) -> tensor<4x5xf32> {
  %o = sc.scaled_dot_product_attention %q, %k, %v : (tensor<4x8xf32>, tensor<0x8xf32>, tensor<0x5xf32>) -> tensor<4x5xf32>
  return %o : tensor<4x5xf32>
}
// KNOKEYS: rank class 'class0'
// KNOKEYS-NOT: Matmul
// KNOKEYS: Fill () -> %{{[0-9]+}} floats [0.000000e+00]
// KNOKEYS-NOT: Matmul

//--- no-keys-causal.mlir
sc.mesh @mesh ["x"=2]
func.func @main(%q: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[1, 3], {}]>}, %k: tensor<0x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}, %v: tensor<0x5xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}) -> tensor<4x5xf32> {
  %o = sc.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<4x8xf32>, tensor<0x8xf32>, tensor<0x5xf32>) -> tensor<4x5xf32>
  return %o : tensor<4x5xf32>
}

//--- mask-v-batch.mlir
// The values and the mask bring a batch dim q and k lack: the scores gain
// it when the mask is added, and the softmax statistics reduce the scores'
// last dim (the keys), not the last of q and k's rank.
sc.mesh @mesh ["x"=2]
func.func @main(%q: tensor<4x8xf32>, %k: tensor<6x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}, %v: tensor<2x6x5xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>}, %m: tensor<2x4x6xf32>) -> tensor<2x4x5xf32> {
  %o = sc.scaled_dot_product_attention %q, %k, %v, %m : (tensor<4x8xf32>, tensor<6x8xf32>, tensor<2x6x5xf32>, tensor<2x4x6xf32>) -> tensor<2x4x5xf32>
  return %o : tensor<2x4x5xf32>
}
// KMASKV: rank class 'class0'
// KMASKV: Reduce "amax" {{.*}} ints [2]
// KMASKV-NOT: Reduce "amax" {{.*}} ints [1]

//--- keys-lose-axis.mlir
// The batch dim q and k share takes x (the result is split there); the
// values broadcast it, so they cannot lead the key sequence's split: keys
// and values both arrive whole along it and no ring runs.
sc.mesh @mesh ["x"=2]
func.func @main(%q: tensor<2x4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}, {}]>}, %k: tensor<2x6x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>}, %v: tensor<6x5xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}) -> tensor<2x4x5xf32> {
  %o = sc.scaled_dot_product_attention %q, %k, %v : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<6x5xf32>) -> tensor<2x4x5xf32>
  return %o : tensor<2x4x5xf32>
}
// KLOSE: rank class 'class0'
// KLOSE-NOT: HaloExchange
// KLOSE: Attention

//--- no-keys-batched.mlir
// No keys, and the zeros take the batch dims all three bring.
sc.mesh @mesh ["x"=2]
func.func @main(%q: tensor<3x1x4x8xf32>, %k: tensor<2x0x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>}, %v: tensor<0x5xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}) -> tensor<3x2x4x5xf32> {
  %o = sc.scaled_dot_product_attention %q, %k, %v : (tensor<3x1x4x8xf32>, tensor<2x0x8xf32>, tensor<0x5xf32>) -> tensor<3x2x4x5xf32>
  return %o : tensor<3x2x4x5xf32>
}

//--- keys-own-split.mlir
// The larger values split the key sequence over x, which the result's
// batch split takes from the keys; the keys keep their own split over y,
// and the values follow it: two exchanges per rank (the values' move from
// x to y, then the ring's one step over y), no gather.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%q: tensor<2x4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}, {}]>}, %k: tensor<2x6x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {"y"}, {}]>}, %v: tensor<2x6x64xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>}) -> (tensor<2x4x64xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}, {}]>}) {
  %o = sc.scaled_dot_product_attention %q, %k, %v : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x64xf32>) -> tensor<2x4x64xf32>
  return %o : tensor<2x4x64xf32>
}
// OWN: rank class 'class0': ranks [0]
// OWN-NEXT: inputs: (1,4,8) (1,3,8) (2,3,64)
// OWN-NEXT: outputs: (1,4,64)
// OWN-NEXT: instructions: {{[0-9]+}}, halo exchanges: 2, collectives: 0

//--- mask-keys-only.mlir
// A mask of the keys alone, (S,), as PyTorch broadcasts it to (L, S), with
// the keys split unevenly [2, 3, 1] along their sequence: the ring views it
// as (1, S) and adds each block's columns.
sc.mesh @mesh ["x"=3]
func.func @main(%q: tensor<4x5xf32>, %k: tensor<6x5xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[2, 3, 1], {}]>}, %v: tensor<6x3xf32>, %m: tensor<6xf32>) -> tensor<4x3xf32> {
  %o = sc.scaled_dot_product_attention %q, %k, %v, %m : (tensor<4x5xf32>, tensor<6x5xf32>, tensor<6x3xf32>, tensor<6xf32>) -> tensor<4x3xf32>
  return %o : tensor<4x3xf32>
}

//--- mask-scalar.mlir
// A rank-0 mask adds one value to every score (viewed as (1, 1)).
sc.mesh @mesh ["x"=2]
func.func @main(%q: tensor<2x4x5xf32>, %k: tensor<2x6x5xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>}, %v: tensor<2x6x3xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>}, %m: tensor<f32>) -> tensor<2x4x3xf32> {
  %o = sc.scaled_dot_product_attention %q, %k, %v, %m : (tensor<2x4x5xf32>, tensor<2x6x5xf32>, tensor<2x6x3xf32>, tensor<f32>) -> tensor<2x4x3xf32>
  return %o : tensor<2x4x3xf32>
}
