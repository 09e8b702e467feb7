// sc-deepen-halos: conv -> elementwise chain -> conv exchanges one deeper
// halo before the first conv, which computes the neighbours' rows the second
// conv reads; the second pad and exchange go. Checked on the IR (uneven 1-D
// split, a 5x5 before a 3x3, exchanges paired along a chain of four convs),
// where it must not apply (the cost model, a neighbour too thin, a norm, a
// residual, a stride, a 2-D split, ends of a transfer that disagree), and
// numerically against the unpartitioned run (which is never deepened).
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-deepen-halos %t/rows.mlir | FileCheck %s --check-prefix=ROWS
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-deepen-halos %t/rows.mlir | shardc-opt | FileCheck %s --check-prefix=ROWS
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition "-sc-deepen-halos=latency-us=0 gflops=1" %t/rows.mlir | FileCheck %s --check-prefix=COST
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-deepen-halos %t/wide.mlir | FileCheck %s --check-prefix=WIDE
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-deepen-halos %t/four.mlir | FileCheck %s --check-prefix=FOUR
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-deepen-halos %t/thin.mlir | FileCheck %s --check-prefix=KEEP
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-deepen-halos %t/short.mlir | FileCheck %s --check-prefix=KEEP
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-deepen-halos %t/norm.mlir | FileCheck %s --check-prefix=KEEP
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-deepen-halos %t/residual.mlir | FileCheck %s --check-prefix=KEEP
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-deepen-halos %t/strided.mlir | FileCheck %s --check-prefix=KEEP
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-deepen-halos %t/mesh2d.mlir | FileCheck %s --check-prefix=KEEP
// Both ends of every transfer must agree across classes: with rank 0's send
// of the second exchange taken out, rank 1's receive has no sender, and
// deepening would leave it waiting for rows rank 0 never sends.
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition %t/rows.mlir | sed 's/, #scl.transfer<send 0 peer \[1\] box \[0:1, 0:8, 15:16, 0:20\] tag 0>//' | shardc-opt -sc-deepen-halos | FileCheck %s --check-prefix=KEEP
// The same when the send is there but under another tag than the receive.
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition %t/rows.mlir | sed 's/#scl.transfer<send 0 peer \[1\] box \[0:1, 0:8, 15:16, 0:20\] tag 0>/#scl.transfer<send 0 peer [1] box [0:1, 0:8, 15:16, 0:20] tag 1>/' | shardc-opt -sc-deepen-halos | FileCheck %s --check-prefix=KEEP
// RUN: shardc %t/rows.mlir --emit=kernels | FileCheck %s --check-prefix=PROGRAM
// RUN: shardc %t/rows.mlir --deepen-halos=false --emit=kernels | FileCheck %s --check-prefix=OFF
// RUN: shardc %t/rows.mlir -o %t/rows.shardbin
// RUN: shard-run %t/rows.shardbin --random-inputs --seed 11 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/rows.mlir -O3 -o %t/rows3.shardbin
// RUN: shard-run %t/rows3.shardbin --random-inputs --seed 12 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/wide.mlir -o %t/wide.shardbin
// RUN: shard-run %t/wide.shardbin --random-inputs --seed 13 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/four.mlir -O3 -o %t/four.shardbin
// RUN: shard-run %t/four.shardbin --random-inputs --seed 14 --check | FileCheck %s --check-prefix=NUM

//--- rows.mlir
// H split 16/8/12/12; conv (4 -> 8 channels) + per-channel shift + SiLU,
// then conv back to 4 channels. Both convs 3x3 with padding 1.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x4x48x20xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[16, 8, 12, 12], {}]>},
                %w1: tensor<8x4x3x3xf32>, %b1: tensor<8xf32>, %shift: tensor<1x8x1x1xf32>,
                %w2: tensor<4x8x3x3xf32>)
    -> (tensor<1x4x48x20xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[16, 8, 12, 12], {}]>}) {
  %a = sc.conv %x, %w1, %b1 {padding = array<i64: 1, 1>} : (tensor<1x4x48x20xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x48x20xf32>
  %t = sc.add %a, %shift : (tensor<1x8x48x20xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x48x20xf32>
  %s = sc.silu %t : tensor<1x8x48x20xf32>
  %y = sc.conv %s, %w2 {padding = array<i64: 1, 1>} : (tensor<1x8x48x20xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x48x20xf32>
  return %y : tensor<1x4x48x20xf32>
}

// The first rank has a neighbour below only: it receives two rows, sends
// its last two, and computes one row past its own for the second conv.
// ROWS-LABEL: func.func @main_class0
// ROWS: %[[H:.*]] = memref.alloc() : memref<1x4x18x20xf32>
// ROWS-NEXT: scl.kernel "Pad" {{.*}} outs(%[[H]] : memref<1x4x18x20xf32>) {{.*}}ints = array<i64: 0, 0, 0, 0, 0, 0, 2, 0>}
// ROWS-NEXT: scl.halo_exchange {{.*}}outs(%[[H]] : memref<1x4x18x20xf32>) [#scl.transfer<recv 0 peer [1] box [0:1, 0:4, 16:18, 0:20] tag 0>, #scl.transfer<send 0 peer [1] box [0:1, 0:4, 14:16, 0:20] tag 0>]
// ROWS-NEXT: %[[C:.*]] = memref.alloc() : memref<1x8x17x20xf32>
// ROWS-NEXT: scl.kernel "Conv" ins(%[[H]], {{.*}}) outs(%[[C]] : memref<1x8x17x20xf32>) {ints = array<i64: 2, 1, 1, 1, 1, 1, 1, 1>}
// ROWS: scl.kernel "Binary" mode "add" ins(%[[C]], {{.*}} : memref<1x8x17x20xf32>, memref<1x8x1x1xf32>) outs({{.*}} : memref<1x8x17x20xf32>)
// ROWS: scl.kernel "Unary" mode "silu" {{.*}} outs(%[[S:.*]] : memref<1x8x17x20xf32>)
// ROWS-NOT: scl.halo_exchange
// ROWS: scl.kernel "Conv" ins(%[[S]], {{.*}} : memref<1x8x17x20xf32>, memref<4x8x3x3xf32>) outs({{.*}} : memref<1x4x16x20xf32>)
// ROWS-NEXT: return
// A middle rank: two rows each way, its conv computes 8 + 2 rows.
// ROWS-LABEL: func.func @main_class1
// ROWS: scl.halo_exchange {{.*}}outs({{.*}} : memref<1x4x12x20xf32>) [#scl.transfer<send 0 peer [-1] box [0:1, 0:4, 0:2, 0:20] tag 0>, #scl.transfer<recv 0 peer [-1] box [0:1, 0:4, 0:2, 0:20] tag 0>, #scl.transfer<recv 0 peer [1] box [0:1, 0:4, 10:12, 0:20] tag 0>, #scl.transfer<send 0 peer [1] box [0:1, 0:4, 6:8, 0:20] tag 0>]
// ROWS: scl.kernel "Conv" {{.*}} outs({{.*}} : memref<1x8x10x20xf32>) {ints = array<i64: 2, 1, 1, 0, 1, 1, 1, 1>}
// ROWS-NOT: scl.halo_exchange
// ROWS: scl.kernel "Conv" {{.*}} : memref<1x8x10x20xf32>, memref<4x8x3x3xf32>) outs({{.*}} : memref<1x4x8x20xf32>)
// ROWS-LABEL: func.func @main_class3
// ROWS: scl.halo_exchange {{.*}}outs({{.*}} : memref<1x4x14x20xf32>) [#scl.transfer<send 0 peer [-1] box [0:1, 0:4, 0:2, 0:20] tag 0>, #scl.transfer<recv 0 peer [-1] box [0:1, 0:4, 0:2, 0:20] tag 0>]
// ROWS-NOT: scl.halo_exchange
// ROWS: return

// With exchanges free of latency and a slow compute rate, the recomputed
// rows cost more than the second exchange saves: every class keeps both.
// COST-LABEL: func.func @main_class1
// COST-COUNT-2: scl.halo_exchange
// COST-LABEL: func.func @main_class2

// In the artifact: one exchange per class where there were two.
// PROGRAM: rank class 'class1'
// PROGRAM: HaloExchange
// PROGRAM-NOT: HaloExchange
// PROGRAM: rank class 'class2'
// OFF: rank class 'class1'
// OFF-COUNT-2: HaloExchange
// OFF: rank class 'class2'

// NUM: check result0: {{.*}} ok

//--- wide.mlir
// A 5x5 conv (halo 2) before a 3x3 (halo 1): the first exchange goes 3 deep.
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<1x2x30x12xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[10, 12, 8], {}]>},
                %w1: tensor<6x2x5x5xf32>, %w2: tensor<2x6x3x3xf32>)
    -> (tensor<1x2x30x12xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[10, 12, 8], {}]>}) {
  %a = sc.conv %x, %w1 {padding = array<i64: 2, 2>} : (tensor<1x2x30x12xf32>, tensor<6x2x5x5xf32>) -> tensor<1x6x30x12xf32>
  %s = sc.relu %a : tensor<1x6x30x12xf32>
  %y = sc.conv %s, %w2 {padding = array<i64: 1, 1>} : (tensor<1x6x30x12xf32>, tensor<2x6x3x3xf32>) -> tensor<1x2x30x12xf32>
  return %y : tensor<1x2x30x12xf32>
}

// WIDE-LABEL: func.func @main_class1
// WIDE: scl.halo_exchange ins({{.*}} : memref<1x2x12x12xf32>) outs({{.*}} : memref<1x2x18x12xf32>) [#scl.transfer<send 0 peer [-1] box [0:1, 0:2, 0:3, 0:12] tag 0>, #scl.transfer<recv 0 peer [-1] box [0:1, 0:2, 0:3, 0:12] tag 0>, #scl.transfer<recv 0 peer [1] box [0:1, 0:2, 15:18, 0:12] tag 0>, #scl.transfer<send 0 peer [1] box [0:1, 0:2, 9:12, 0:12] tag 0>]
// WIDE: scl.kernel "Conv" {{.*}} outs({{.*}} : memref<1x6x14x12xf32>)
// WIDE-NOT: scl.halo_exchange
// WIDE: return

//--- four.mlir
// Four 3x3 convs: exchanges 1+2 and 3+4 pair up (pairs do not chain).
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<1x3x32x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[16, 16], {}]>},
                %w1: tensor<3x3x3x3xf32>, %w2: tensor<3x3x3x3xf32>,
                %w3: tensor<3x3x3x3xf32>, %w4: tensor<3x3x3x3xf32>)
    -> (tensor<1x3x32x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[16, 16], {}]>}) {
  %a = sc.conv %x, %w1 {padding = array<i64: 1, 1>} : (tensor<1x3x32x16xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x32x16xf32>
  %b = sc.tanh %a : tensor<1x3x32x16xf32>
  %c = sc.conv %b, %w2 {padding = array<i64: 1, 1>} : (tensor<1x3x32x16xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x32x16xf32>
  %d = sc.conv %c, %w3 {padding = array<i64: 1, 1>} : (tensor<1x3x32x16xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x32x16xf32>
  %e = sc.gelu %d : tensor<1x3x32x16xf32>
  %y = sc.conv %e, %w4 {padding = array<i64: 1, 1>} : (tensor<1x3x32x16xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x32x16xf32>
  return %y : tensor<1x3x32x16xf32>
}

// FOUR-LABEL: func.func @main_class0
// FOUR-COUNT-2: scl.halo_exchange {{.*}}outs({{.*}} : memref<1x3x18x16xf32>)
// FOUR-NOT: scl.halo_exchange
// FOUR-LABEL: func.func @main_class1
// FOUR-COUNT-2: scl.halo_exchange {{.*}}outs({{.*}} : memref<1x3x18x16xf32>)
// FOUR-NOT: scl.halo_exchange

//--- thin.mlir
// The second rank owns one row: it cannot send the two rows the deeper halo
// needs, so no class deepens (both ends of a transfer must agree).
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<1x4x21x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[10, 1, 10], {}]>},
                %w1: tensor<4x4x3x3xf32>, %w2: tensor<4x4x3x3xf32>)
    -> (tensor<1x4x21x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[10, 1, 10], {}]>}) {
  %a = sc.conv %x, %w1 {padding = array<i64: 1, 1>} : (tensor<1x4x21x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x21x8xf32>
  %s = sc.silu %a : tensor<1x4x21x8xf32>
  %y = sc.conv %s, %w2 {padding = array<i64: 1, 1>} : (tensor<1x4x21x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x21x8xf32>
  return %y : tensor<1x4x21x8xf32>
}

// KEEP-LABEL: func.func @main_class0
// KEEP-COUNT-2: scl.halo_exchange
// KEEP-LABEL: func.func @main_class1
// KEEP: scl.halo_exchange
// KEEP-NOT: return
// KEEP: scl.halo_exchange

//--- short.mlir
// Two 5x5 convs: the deeper halo would be 4 rows, and the middle rank owns
// 3 (enough for each 2-row halo alone): no class deepens.
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<1x2x15x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[6, 3, 6], {}]>},
                %w1: tensor<2x2x5x5xf32>, %w2: tensor<2x2x5x5xf32>)
    -> (tensor<1x2x15x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[6, 3, 6], {}]>}) {
  %a = sc.conv %x, %w1 {padding = array<i64: 2, 2>} : (tensor<1x2x15x8xf32>, tensor<2x2x5x5xf32>) -> tensor<1x2x15x8xf32>
  %y = sc.conv %a, %w2 {padding = array<i64: 2, 2>} : (tensor<1x2x15x8xf32>, tensor<2x2x5x5xf32>) -> tensor<1x2x15x8xf32>
  return %y : tensor<1x2x15x8xf32>
}

//--- norm.mlir
// A group norm between the convs reduces over the split dim: no deepening.
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<1x4x16x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
                %w1: tensor<4x4x3x3xf32>, %w2: tensor<4x4x3x3xf32>)
    -> (tensor<1x4x16x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>}) {
  %a = sc.conv %x, %w1 {padding = array<i64: 1, 1>} : (tensor<1x4x16x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x16x8xf32>
  %n = sc.group_norm %a {num_groups = 2} : (tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  %y = sc.conv %n, %w2 {padding = array<i64: 1, 1>} : (tensor<1x4x16x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x16x8xf32>
  return %y : tensor<1x4x16x8xf32>
}

//--- residual.mlir
// conv(x) + x reads x's own rows only: the grown rows have no x to add.
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<1x4x16x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
                %w1: tensor<4x4x3x3xf32>, %w2: tensor<4x4x3x3xf32>)
    -> (tensor<1x4x16x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>}) {
  %a = sc.conv %x, %w1 {padding = array<i64: 1, 1>} : (tensor<1x4x16x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x16x8xf32>
  %r = sc.add %a, %x : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  %y = sc.conv %r, %w2 {padding = array<i64: 1, 1>} : (tensor<1x4x16x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x16x8xf32>
  return %y : tensor<1x4x16x8xf32>
}

//--- strided.mlir
// A stride-2 first conv: its output rows are not its input's rows.
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<1x4x32x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
                %w1: tensor<4x4x3x3xf32>, %w2: tensor<4x4x3x3xf32>)
    -> (tensor<1x4x16x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>}) {
  %a = sc.conv %x, %w1 {padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x4x32x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x16x4xf32>
  %y = sc.conv %a, %w2 {padding = array<i64: 1, 1>} : (tensor<1x4x16x4xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x16x4xf32>
  return %y : tensor<1x4x16x4xf32>
}

//--- mesh2d.mlir
// H and W split over a 2x2 mesh: exchanges with corners stay as they are.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%x: tensor<1x2x16x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {"y"}]>},
                %w1: tensor<2x2x3x3xf32>, %w2: tensor<2x2x3x3xf32>)
    -> (tensor<1x2x16x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {"y"}]>}) {
  %a = sc.conv %x, %w1 {padding = array<i64: 1, 1>} : (tensor<1x2x16x16xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x16x16xf32>
  %y = sc.conv %a, %w2 {padding = array<i64: 1, 1>} : (tensor<1x2x16x16xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x16x16xf32>
  return %y : tensor<1x2x16x16xf32>
}
