// Attention. SDPA over a split key sequence is a ring: in P-1 steps every
// rank passes the K and V blocks it holds to the next rank (periodic peer)
// and receives the previous rank's, so with blocks b_q rank r sends blocks
// r, r-1, ..., r-P+2 and receives r-1, ..., r-P+1 (mod P). Neighbourhood
// attention is windowed: query o reads keys [clamp(o - k/2, 0, n-k), +k),
// K and V are fetched like a halo, Q stays local. Pins classes, shapes,
// exchange counts, bytes and boxes for an uneven and an even ring, a ring
// over one axis of a 2-D mesh, one-query shards, world size 1, a multi-hop
// neighbourhood (both checked numerically), and causal and masked rings:
// causally a block wholly after a rank's queries is skipped (still passed
// on), one that straddles them is masked by comparing positions; a user
// mask (additive, key dim whole) is sliced per block, -inf entries
// included. Each is checked against the unpartitioned run.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// The checks of classes, counts and boxes below are of the unrolled ring
// (--unroll-rings); by default each rank runs one RingAttention
// instruction (INSTR), and both are checked numerically.
// RUN: shardc %t/ring-uneven.mlir --unroll-rings --emit=plan | FileCheck %s --check-prefix=RING
// RUN: shardc %t/ring-uneven.mlir --unroll-rings --emit=kernels | FileCheck %s --check-prefix=BOXR
// RUN: shardc %t/ring-uneven.mlir -o %t/ring-uneven.shardbin
// RUN: shard-run %t/ring-uneven.shardbin --ranks 3 --random-inputs --seed 1 --check --atol 1e-4 --rtol 1e-4 | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/ring-even.mlir --unroll-rings --emit=plan | FileCheck %s --check-prefix=EVEN
// RUN: sed -e 's/"x"=3/"x"=4/' -e 's/1x2x12x4/1x2x4x4/g' %t/ring-even.mlir | shardc - --unroll-rings --emit=plan | FileCheck %s --check-prefix=ONE
// RUN: sed 's/"x"=3/"x"=1/' %t/ring-even.mlir | shardc - --unroll-rings --emit=plan | FileCheck %s --check-prefix=W1
// RUN: shardc %t/ring-mesh2d.mlir --unroll-rings --emit=plan | FileCheck %s --check-prefix=MESH2D
// RUN: shardc %t/ring-mesh2d.mlir --unroll-rings --emit=kernels | FileCheck %s --check-prefix=BOX2D
// RUN: shardc %t/natten.mlir --unroll-rings --emit=plan | FileCheck %s --check-prefix=NA
// RUN: shardc %t/natten.mlir --unroll-rings --emit=kernels | FileCheck %s --check-prefix=BOXNA
// RUN: shardc %t/natten.mlir -o %t/natten.shardbin
// RUN: shard-run %t/natten.shardbin --ranks 4 --random-inputs --seed 2 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/causal.mlir --unroll-rings --emit=plan | FileCheck %s --check-prefix=CAUSAL
// RUN: shardc %t/causal.mlir -o %t/causal.shardbin
// RUN: shard-run %t/causal.shardbin --ranks 3 --random-inputs --seed 3 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/causal.mlir --emit=kernels | FileCheck %s --check-prefix=INSTR
// RUN: shardc %t/ring-one.mlir -o %t/ring-one.shardbin
// RUN: shard-run %t/ring-one.shardbin --random-inputs --seed 8 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/causal.mlir --unroll-rings -o %t/causal-unrolled.shardbin
// RUN: shard-run %t/causal-unrolled.shardbin --random-inputs --seed 3 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/ring-uneven.mlir --unroll-rings -o %t/ring-uneven-unrolled.shardbin
// RUN: shard-run %t/ring-uneven-unrolled.shardbin --random-inputs --seed 1 --check --atol 1e-4 --rtol 1e-4 | FileCheck %s --check-prefix=NUM
// RUN: sed 's/\[5, 3, 2\]/[0, 4, 6]/g' %t/causal.mlir | shardc - -o %t/causal-empty.shardbin
// RUN: shard-run %t/causal-empty.shardbin --random-inputs --seed 4 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/causal-unlike.mlir -o %t/causal-unlike.shardbin
// RUN: shard-run %t/causal-unlike.shardbin --random-inputs --seed 5 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/mask-inf.mlir -o %t/mask-inf.shardbin
// RUN: shard-run %t/mask-inf.shardbin --random-inputs --seed 6 --check | FileCheck %s --check-prefix=NUM
// RUN: sed 's/\[5, 3, 2\]//g; s/"x"=3/"x"=2/' %t/causal.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=CEVEN
// RUN: sed 's/\[5, 3, 2\]//g; s/"x"=3/"x"=2/' %t/causal.mlir | shardc - -o %t/causal-even.shardbin
// RUN: shard-run %t/causal-even.shardbin --random-inputs --seed 4 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/causal-axes.mlir --emit=kernels | FileCheck %s --check-prefix=CAXES
// RUN: shardc %t/causal-axes.mlir -o %t/causal-axes.shardbin
// RUN: shard-run %t/causal-axes.shardbin --random-inputs --seed 5 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/causal-axes.mlir --unroll-rings -o %t/causal-axes-unrolled.shardbin
// RUN: shard-run %t/causal-axes-unrolled.shardbin --random-inputs --seed 5 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/causal-whole-queries.mlir --emit=kernels | FileCheck %s --check-prefix=CWHOLE
// RUN: shardc %t/causal-whole-queries.mlir -o %t/causal-whole-queries.shardbin
// RUN: shard-run %t/causal-whole-queries.shardbin --random-inputs --seed 6 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/causal-queries-yx.mlir --emit=kernels | FileCheck %s --check-prefix=CYX
// RUN: shardc %t/causal-queries-yx.mlir -o %t/causal-queries-yx.shardbin
// RUN: shard-run %t/causal-queries-yx.shardbin --random-inputs --seed 7 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/causal-queries-yx.mlir --unroll-rings -o %t/causal-queries-yx-unrolled.shardbin
// RUN: shard-run %t/causal-queries-yx-unrolled.shardbin --random-inputs --seed 7 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/causal.mlir --target=cuda --emit=plan | FileCheck %s --check-prefix=CUDAINSTR
// RUN: shardc %t/causal.mlir --target=cuda --unroll-rings --emit=plan | FileCheck %s --check-prefix=CUDAUNROLLED
// RUN: shardc %t/mask-dead.mlir -o %t/mask-dead.shardbin
// RUN: shard-run %t/mask-dead.shardbin --random-inputs --seed 9 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/mask-dead.mlir --unroll-rings -o %t/mask-dead-unrolled.shardbin
// RUN: shard-run %t/mask-dead-unrolled.shardbin --random-inputs --seed 9 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/mask-mesh2d.mlir -o %t/mask-mesh2d.shardbin
// RUN: shard-run %t/mask-mesh2d.shardbin --random-inputs --seed 7 --check | FileCheck %s --check-prefix=NUM
// NUM: check result0: {{.*}}: ok

//--- ring-uneven.mlir
// S = 10 over [5, 3, 2]; a block of b keys is K + V = 2 x (2 heads x b x
// 4) floats = 64 b bytes. Rank 0 sends blocks 0, 2 (448 B) and receives
// 2, 1 (320 B); rank 1 sends 1, 0 (512) and receives 0, 2 (448); rank 2
// sends 2, 1 (320) and receives 1, 0 (512). Two steps, two exchanges.
sc.mesh @mesh ["x"=3]
func.func @main(%q: tensor<1x2x10x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>},
                %k: tensor<1x2x10x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>},
                %v: tensor<1x2x10x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>}) -> tensor<1x2x10x4xf32> {
  %y = sc.scaled_dot_product_attention %q, %k, %v : (tensor<1x2x10x4xf32>, tensor<1x2x10x4xf32>, tensor<1x2x10x4xf32>) -> tensor<1x2x10x4xf32>
  return %y : tensor<1x2x10x4xf32>
}
// RING: rank class 'class0': ranks [0]
// RING-NEXT: inputs: (1,2,5,4) (1,2,5,4) (1,2,5,4)
// RING-NEXT: outputs: (1,2,5,4)
// RING-NEXT: halo exchanges: 2, collectives: 0, bytes sent: 448, received: 320
// RING: rank class 'class1': ranks [1]
// RING-NEXT: inputs: (1,2,3,4) (1,2,3,4) (1,2,3,4)
// RING-NEXT: outputs: (1,2,3,4)
// RING-NEXT: halo exchanges: 2, collectives: 0, bytes sent: 512, received: 448
// RING: rank class 'class2': ranks [2]
// RING-NEXT: inputs: (1,2,2,4) (1,2,2,4) (1,2,2,4)
// RING-NEXT: outputs: (1,2,2,4)
// RING-NEXT: halo exchanges: 2, collectives: 0, bytes sent: 320, received: 512
// RING-NOT: rank class
// Rank 0's second step forwards the 2-key block it got from rank 2 and
// receives rank 1's 3-key block.
// BOXR: rank class 'class0'
// BOXR: HaloExchange
// BOXR-SAME: send %1[0:1,0:2,0:5,0:4] peer (1) periodic send %2[0:1,0:2,0:5,0:4] peer (1) periodic recv %[[K1:[0-9]+]][0:1,0:2,0:2,0:4] peer (-1) periodic
// BOXR: HaloExchange (%[[K1]], %{{[0-9]+}})
// BOXR-SAME: send %[[K1]][0:1,0:2,0:2,0:4] peer (1) periodic
// BOXR-SAME: recv %{{[0-9]+}}[0:1,0:2,0:3,0:4] peer (-1) periodic

//--- ring-even.mlir
// S = 12 over 3: blocks of 4 keys (2 x 2 x 4 x 4 x 4 B = 256 B a step),
// two steps: 512 B each way on every rank, one program for all.
// ONE (4 keys over 4 ranks): 64 B a step, three steps, 192 B.
sc.mesh @mesh ["x"=3]
func.func @main(%q: tensor<1x2x12x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
                %k: tensor<1x2x12x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
                %v: tensor<1x2x12x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>}) -> tensor<1x2x12x4xf32> {
  %y = sc.scaled_dot_product_attention %q, %k, %v : (tensor<1x2x12x4xf32>, tensor<1x2x12x4xf32>, tensor<1x2x12x4xf32>) -> tensor<1x2x12x4xf32>
  return %y : tensor<1x2x12x4xf32>
}
// EVEN: rank class 'class0': ranks [0..2]
// EVEN-NEXT: inputs: (1,2,4,4) (1,2,4,4) (1,2,4,4)
// EVEN-NEXT: outputs: (1,2,4,4)
// EVEN-NEXT: halo exchanges: 2, collectives: 0, bytes sent: 512, received: 512
// EVEN-NOT: rank class
// ONE: rank class 'class0': ranks [0..3]
// ONE-NEXT: inputs: (1,2,1,4) (1,2,1,4) (1,2,1,4)
// ONE-NEXT: outputs: (1,2,1,4)
// ONE-NEXT: halo exchanges: 3, collectives: 0, bytes sent: 192, received: 192
// ONE-NOT: rank class
// W1: rank class 'all': ranks [0]
// W1-NEXT: inputs: (1,2,12,4) (1,2,12,4) (1,2,12,4)
// W1-NEXT: outputs: (1,2,12,4)
// W1-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// W1-NOT: rank class

//--- ring-mesh2d.mlir
// Batch over x, sequence 6 over y: a ring of 2 within each mesh row, one
// step of K + V = 2 x (2 x 3 x 4) floats = 192 B.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%q: tensor<2x2x6x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}, {"y"}, {}]>},
                %k: tensor<2x2x6x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}, {"y"}, {}]>},
                %v: tensor<2x2x6x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}, {"y"}, {}]>}) -> tensor<2x2x6x4xf32> {
  %y = sc.scaled_dot_product_attention %q, %k, %v : (tensor<2x2x6x4xf32>, tensor<2x2x6x4xf32>, tensor<2x2x6x4xf32>) -> tensor<2x2x6x4xf32>
  return %y : tensor<2x2x6x4xf32>
}
// MESH2D: rank class 'class0': ranks [0..3]
// MESH2D-NEXT: inputs: (1,2,3,4) (1,2,3,4) (1,2,3,4)
// MESH2D-NEXT: outputs: (1,2,3,4)
// MESH2D-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 192, received: 192
// MESH2D-NOT: rank class
// BOX2D: HaloExchange
// BOX2D-SAME: send %1[0:1,0:2,0:3,0:4] peer (0,1) periodic
// BOX2D-SAME: recv %{{[0-9]+}}[0:1,0:2,0:3,0:4] peer (0,-1) periodic

//--- natten.mlir
// 1-D neighbourhood, k = 5, L = 16 over [6, 1, 1, 8]; a key row is
// 2 heads x 4 floats = 32 B, for K and V each (two exchanges). Keys read:
// rank 0 [0,8), rank 1 (query 6) [4,9), rank 2 (query 7) [5,10),
// rank 3 [6,16). Rank 2 receives row 5 from two ranks back, 6, and 8-9:
// 4 rows x 64 B = 256 B; rank 0 sends rows 4-5 and 5 (192 B).
sc.mesh @mesh ["x"=4]
func.func @main(%q: tensor<1x16x2x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[6, 1, 1, 8], {}, {}]>},
                %k: tensor<1x16x2x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[6, 1, 1, 8], {}, {}]>},
                %v: tensor<1x16x2x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[6, 1, 1, 8], {}, {}]>}) -> tensor<1x16x2x4xf32> {
  %y = sc.neighborhood_attention %q, %k, %v {kernel_size = array<i64: 5>} : (tensor<1x16x2x4xf32>, tensor<1x16x2x4xf32>, tensor<1x16x2x4xf32>) -> tensor<1x16x2x4xf32>
  return %y : tensor<1x16x2x4xf32>
}
// NA: rank class 'class0': ranks [0]
// NA-NEXT: inputs: (1,6,2,4) (1,6,2,4) (1,6,2,4)
// NA-NEXT: outputs: (1,6,2,4)
// NA-NEXT: halo exchanges: 2, collectives: 0, bytes sent: 192, received: 128
// NA: rank class 'class1': ranks [1]
// NA-NEXT: inputs: (1,1,2,4) (1,1,2,4) (1,1,2,4)
// NA-NEXT: outputs: (1,1,2,4)
// NA-NEXT: halo exchanges: 2, collectives: 0, bytes sent: 192, received: 256
// NA: rank class 'class2': ranks [2]
// NA-NEXT: inputs: (1,1,2,4) (1,1,2,4) (1,1,2,4)
// NA-NEXT: outputs: (1,1,2,4)
// NA-NEXT: halo exchanges: 2, collectives: 0, bytes sent: 192, received: 256
// NA: rank class 'class3': ranks [3]
// NA-NEXT: inputs: (1,8,2,4) (1,8,2,4) (1,8,2,4)
// NA-NEXT: outputs: (1,8,2,4)
// NA-NEXT: halo exchanges: 2, collectives: 0, bytes sent: 192, received: 128
// NA-NOT: rank class
// BOXNA: rank class 'class2'
// BOXNA: HaloExchange (%1)
// BOXNA-SAME: recv %[[B:[0-9]+]][0:1,0:1,0:2,0:4] peer (-2) recv %[[B]][0:1,1:2,0:2,0:4] peer (-1) recv %[[B]][0:1,3:5,0:2,0:4] peer (1)
// BOXNA: HaloExchange (%2)

//--- causal.mlir
// Causal over [5, 3, 2]: rank 0 computes its own block only, rank 1 blocks
// 1 and 0, rank 2 all three; every rank still passes two blocks on. Rank
// 0's positions start at 0 and need no offset added.
sc.mesh @mesh ["x"=3]
func.func @main(%q: tensor<1x2x10x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>},
                %k: tensor<1x2x10x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>},
                %v: tensor<1x2x10x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>}) -> tensor<1x2x10x4xf32> {
  %y = sc.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<1x2x10x4xf32>, tensor<1x2x10x4xf32>, tensor<1x2x10x4xf32>) -> tensor<1x2x10x4xf32>
  return %y : tensor<1x2x10x4xf32>
}
// CAUSAL: rank class 'class0': ranks [0]
// CAUSAL-NEXT: inputs: (1,2,5,4) (1,2,5,4) (1,2,5,4)
// CAUSAL-NEXT: outputs: (1,2,5,4)
// CAUSAL-NEXT: instructions: 20, halo exchanges: 2, collectives: 0, bytes sent: 448, received: 320
// CAUSAL: rank class 'class1': ranks [1]
// CAUSAL-NEXT: inputs: (1,2,3,4)
// CAUSAL-NEXT: outputs: (1,2,3,4)
// CAUSAL-NEXT: instructions: 39, halo exchanges: 2
// CAUSAL: rank class 'class2': ranks [2]
// CAUSAL-NEXT: inputs: (1,2,2,4)
// CAUSAL-NEXT: outputs: (1,2,2,4)
// CAUSAL-NEXT: instructions: 55, halo exchanges: 2

// --target=cuda keeps the ring one instruction, as the CPU target does
// (its backend runs it natively: CudaRing.cpp), unless told to unroll it.
// CUDAUNROLLED: rank class 'class0': ranks [0]
// CUDAUNROLLED-NEXT: inputs:
// CUDAUNROLLED-NEXT: outputs:
// CUDAUNROLLED-NEXT: instructions: 19, halo exchanges: 2, collectives: 0
// CUDAINSTR: rank class 'class0': ranks [0]
// CUDAINSTR-NEXT: inputs:
// CUDAINSTR-NEXT: outputs:
// CUDAINSTR-NEXT: instructions: 1, halo exchanges: 0, collectives: 1

// An even causal split is one class: every rank carries the same ring.
// CEVEN: rank class 'class0': ranks [0, 1]
// CEVEN-NOT: rank class

// By default each rank runs the ring as one instruction: flags (causal, no
// mask, values passed), one query axis, the query starts, the key starts;
// every rank carries the same list (the classes differ in their shapes).
// INSTR: rank class 'class0' (ranks [0]):
// INSTR-NEXT: 0: RingAttention (%0, %1, %2) -> %3 ints [1, 0, 0, 0, 1, 0, 0, 5, 8, 10, 0, 5, 8, 10] floats [5.000000e-01] group [0]
// INSTR-NEXT: rank class 'class1' (ranks [1]):
// INSTR-NEXT: 0: RingAttention (%0, %1, %2) -> %3 ints [1, 0, 0, 0, 1, 0, 0, 5, 8, 10, 0, 5, 8, 10] floats [5.000000e-01] group [0]
// INSTR-NEXT: rank class 'class2' (ranks [2]):
// INSTR-NEXT: 0: RingAttention (%0, %1, %2) -> %3 ints [1, 0, 0, 0, 1, 0, 0, 5, 8, 10, 0, 5, 8, 10] floats [5.000000e-01] group [0]

//--- causal-unlike.mlir
// Causal with queries [4, 4] and keys [6, 2]: rank 0's queries 0-3 see
// part of key block 0 and none of block 1; rank 1's queries 4-7 see block
// 0 partly (keys 4, 5 only for some) and block 1 partly.
sc.mesh @mesh ["x"=2]
func.func @main(%q: tensor<1x2x8x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
                %k: tensor<1x2x8x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[6, 2], {}]>},
                %v: tensor<1x2x8x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[6, 2], {}]>}) -> tensor<1x2x8x4xf32> {
  %y = sc.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %y : tensor<1x2x8x4xf32>
}

//--- mask-inf.mlir
// An additive mask with -inf: query 2 sees no key of block 0 (keys 0-4),
// query 0 only the last key, the rest causally.
sc.mesh @mesh ["x"=3]
func.func @main(%q: tensor<1x2x10x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>},
                %k: tensor<1x2x10x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>},
                %v: tensor<1x2x10x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>}) -> tensor<1x2x10x4xf32> {
  %m = sc.constant dense<[[0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0.5], [0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<10x10xf32>
  %y = sc.scaled_dot_product_attention %q, %k, %v, %m : (tensor<1x2x10x4xf32>, tensor<1x2x10x4xf32>, tensor<1x2x10x4xf32>, tensor<10x10xf32>) -> tensor<1x2x10x4xf32>
  return %y : tensor<1x2x10x4xf32>
}

//--- causal-axes.mlir
// Causal with the queries split over "y" only ([5, 7]) and the keys over
// ("x", "y") ([2, 4, 1, 5]): each rank finds its first query's position
// from the query split, not from its place in the ring.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%q: tensor<1x2x12x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"y"}[5, 7], {}]>},
                %k: tensor<1x2x12x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x", "y"}[2, 4, 1, 5], {}]>},
                %v: tensor<1x2x12x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x", "y"}[2, 4, 1, 5], {}]>}) -> tensor<1x2x12x4xf32> {
  %y = sc.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<1x2x12x4xf32>, tensor<1x2x12x4xf32>, tensor<1x2x12x4xf32>) -> tensor<1x2x12x4xf32>
  return %y : tensor<1x2x12x4xf32>
}
// CAXES: rank class 'class0' (ranks [0]):
// CAXES-NEXT: 0: RingAttention (%0, %1, %2) -> %3 ints [1, 0, 0, 0, 1, 1, 0, 5, 12, 0, 2, 6, 7, 12] floats [5.000000e-01] group [0, 1]

//--- causal-whole-queries.mlir
// Causal with every query on every rank and the keys split [4, 0, 5]: the
// query split is over no axes, starts [0, 9].
sc.mesh @mesh ["x"=3]
func.func @main(%q: tensor<1x2x9x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {}, {}]>},
                %k: tensor<1x2x9x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[4, 0, 5], {}]>},
                %v: tensor<1x2x9x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[4, 0, 5], {}]>}) -> tensor<1x2x9x4xf32> {
  %y = sc.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<1x2x9x4xf32>, tensor<1x2x9x4xf32>, tensor<1x2x9x4xf32>) -> tensor<1x2x9x4xf32>
  return %y : tensor<1x2x9x4xf32>
}
// CWHOLE: 0: RingAttention (%0, %1, %2) -> %3 ints [1, 0, 0, 0, 0, 0, 9, 0, 4, 4, 9] floats [5.000000e-01] group [0]

//--- causal-queries-yx.mlir
// Causal with the queries split over ("y", "x"), y major, [3, 0, 5, 4], and
// the keys over "x": rank 1 (y = 1, x = 0) is the query split's member 2,
// holding queries [3, 8); rank 2 (y = 0, x = 1) is member 1, holding none.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%q: tensor<1x2x12x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"y", "x"}[3, 0, 5, 4], {}]>},
                %k: tensor<1x2x12x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[7, 5], {}]>},
                %v: tensor<1x2x12x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[7, 5], {}]>}) -> tensor<1x2x12x4xf32> {
  %y = sc.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<1x2x12x4xf32>, tensor<1x2x12x4xf32>, tensor<1x2x12x4xf32>) -> tensor<1x2x12x4xf32>
  return %y : tensor<1x2x12x4xf32>
}
// CYX: 0: RingAttention (%0, %1, %2) -> %3 ints [1, 0, 0, 0, 2, 1, 0, 0, 3, 3, 8, 12, 0, 7, 12] floats [5.000000e-01] group [0]

//--- mask-dead.mlir
// Queries 0 and 3 see no key at all: NaN, as the unpartitioned op gives, in
// both ring forms. Query 4 sees keys 0 and 2 only, at the lowest float: a
// real score, whose weights must not be taken for masked ones.
sc.mesh @mesh ["x"=3]
func.func @main(%q: tensor<1x2x6x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[3, 2, 1], {}]>},
                %k: tensor<1x2x6x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[3, 2, 1], {}]>},
                %v: tensor<1x2x6x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[3, 2, 1], {}]>}) -> tensor<1x2x6x4xf32> {
  %m = sc.constant dense<[[0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0xFF800000, 0.0, 0.0, 0.0, 0.0], [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0xFF7FFFFF, 0xFF800000, 0xFF7FFFFF, 0xFF800000, 0xFF800000, 0xFF800000], [0.5, 0.0, 0.0, 0.0, 0.0, -1.0]]> : tensor<6x6xf32>
  %y = sc.scaled_dot_product_attention %q, %k, %v, %m : (tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<6x6xf32>) -> tensor<1x2x6x4xf32>
  return %y : tensor<1x2x6x4xf32>
}

//--- mask-mesh2d.mlir
// Batch over "b", sequence [4, 3] over "x"; a (2, 1, 7, 7) mask arrives
// split like the queries and whole along the keys.
sc.mesh @mesh ["b"=2, "x"=2]
func.func @main(%q: tensor<2x2x7x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"b"}, {}, {"x"}[4, 3], {}]>},
                %k: tensor<2x2x7x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"b"}, {}, {"x"}[4, 3], {}]>},
                %v: tensor<2x2x7x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"b"}, {}, {"x"}[4, 3], {}]>}, %m: tensor<2x1x7x7xf32>) -> tensor<2x2x7x4xf32> {
  %y = sc.scaled_dot_product_attention %q, %k, %v, %m : (tensor<2x2x7x4xf32>, tensor<2x2x7x4xf32>, tensor<2x2x7x4xf32>, tensor<2x1x7x7xf32>) -> tensor<2x2x7x4xf32>
  return %y : tensor<2x2x7x4xf32>
}

//--- ring-one.mlir
// Keys split over an axis of size 1: a ring of one member on every rank,
// which attends its own block and passes nothing (it once read workspace
// buffers that only rings of several members reserve, and crashed).
sc.mesh @mesh ["x"=2, "y"=1]
func.func @main(%q: tensor<2x6x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {"y"}, {}]>},
                %k: tensor<2x6x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {"y"}, {}]>},
                %v: tensor<2x6x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {"y"}, {}]>}) -> tensor<2x6x4xf32> {
  %y = sc.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<2x6x4xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  return %y : tensor<2x6x4xf32>
}
