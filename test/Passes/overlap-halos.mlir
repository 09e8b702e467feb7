// sc-overlap-halos: the conv that reads a halo exchange's buffer runs its
// interior (the output box reading only the rank's own rows) between the
// exchange's start and its scl.wait, and its boundary slabs after. Any
// other exchange with compute before its outputs' first reader (a ring
// attention's next block) starts in place and completes before that reader
// (deferred.mlir; the rings of test/Partition/attention.mlir check it
// numerically). Checked
// on the IR (1-D uneven with stride 2, 2-D split with corners, the cost
// model's refusal, a pooling consumer left alone) and numerically against
// the unpartitioned run (which is never split).
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-overlap-halos %t/rows.mlir | FileCheck %s --check-prefix=ROWS
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-overlap-halos %t/rows.mlir | shardc-opt | FileCheck %s --check-prefix=ROWS
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-overlap-halos %t/strided.mlir | FileCheck %s --check-prefix=STRIDED
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-overlap-halos %t/mesh2d.mlir | FileCheck %s --check-prefix=MESH2D
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-overlap-halos %t/small.mlir | FileCheck %s --check-prefix=SMALL
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-overlap-halos %t/pool.mlir | FileCheck %s --check-prefix=POOL
// RUN: shardc-opt -sc-propagate-sharding -sc-insert-reshards -sc-partition -sc-overlap-halos -sc-plan-memory %t/rows.mlir | FileCheck %s --check-prefix=PLANNED
// RUN: shardc-opt -sc-overlap-halos %t/between.mlir | FileCheck %s --check-prefix=BETWEEN
// RUN: shardc-opt -sc-overlap-halos %t/deferred.mlir | FileCheck %s --check-prefix=DEFER
// RUN: shardc-opt -sc-overlap-halos -sc-plan-memory %t/deferred.mlir | FileCheck %s --check-prefix=DEFER-PLAN
// RUN: shardc %t/rows.mlir --emit=kernels | FileCheck %s --check-prefix=PROGRAM
// RUN: shardc %t/rows.mlir --overlap-halos=false --emit=kernels | FileCheck %s --check-prefix=OFF
// RUN: shardc %t/rows.mlir -o %t/rows.shardbin
// RUN: shard-run %t/rows.shardbin --random-inputs --seed 4 --check --bench 2 | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/strided.mlir -o %t/strided.shardbin
// RUN: shard-run %t/strided.shardbin --random-inputs --seed 5 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/mesh2d.mlir -o %t/mesh2d.shardbin
// RUN: shard-run %t/mesh2d.shardbin --random-inputs --seed 6 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/chain.mlir -O3 -o %t/chain.shardbin
// RUN: shard-run %t/chain.shardbin --random-inputs --seed 7 --check | FileCheck %s --check-prefix=NUM

//--- rows.mlir
// H split 24/24/16 over 3 ranks, 3x3 conv with padding 1.
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<1x4x64x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[24, 24, 16], {}]>},
                %w: tensor<6x4x3x3xf32>, %b: tensor<6xf32>)
    -> (tensor<1x6x64x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[24, 24, 16], {}]>}) {
  %y = sc.conv %x, %w, %b {padding = array<i64: 1, 1>} : (tensor<1x4x64x16xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<1x6x64x16xf32>
  return %y : tensor<1x6x64x16xf32>
}

// The first rank has a halo below only: its interior is rows [0, 23) (the
// top edge reads padding, not a halo), its boundary the last row.
// ROWS-LABEL: func.func @main_class0
// ROWS: %[[P:.*]] = scl.halo_exchange {{.*}} outs(%[[H:.*]] : memref<1x4x25x16xf32>) {{.*}} -> !scl.pending
// ROWS-NEXT: memref.alloc
// ROWS-NEXT: scl.kernel "Conv" ins(%[[H]], {{.*}} {ints = array<i64: 2, 1, 1, 1, 1, 1, 1, 1, 0, 0, 23, 16>}
// ROWS-NEXT: scl.wait %[[P]] outs(%[[H]] : memref<1x4x25x16xf32>)
// ROWS-NEXT: scl.kernel "Conv" ins(%[[H]], {{.*}} {ints = array<i64: 2, 1, 1, 1, 1, 1, 1, 1, 23, 0, 24, 16>}
// ROWS-NEXT: return
// The middle rank: halos on both sides, interior rows [1, 23).
// ROWS-LABEL: func.func @main_class1
// ROWS: -> !scl.pending
// ROWS: scl.kernel "Conv" {{.*}} {ints = array<i64: 2, 1, 1, 0, 1, 1, 1, 1, 1, 0, 23, 16>}
// ROWS-NEXT: scl.wait
// ROWS-NEXT: scl.kernel "Conv" {{.*}} {ints = array<i64: 2, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 16>}
// ROWS-NEXT: scl.kernel "Conv" {{.*}} {ints = array<i64: 2, 1, 1, 0, 1, 1, 1, 1, 23, 0, 24, 16>}
// ROWS-NEXT: return
// ROWS-LABEL: func.func @main_class2
// ROWS: scl.kernel "Conv" {{.*}} {ints = array<i64: 2, 1, 1, 0, 1, 1, 1, 1, 1, 0, 16, 16>}
// ROWS-NEXT: scl.wait
// ROWS-NEXT: scl.kernel "Conv" {{.*}} {ints = array<i64: 2, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 16>}
// ROWS-NEXT: return

// In the artifact: the exchange only starts (ints [1]) and the Wait names it.
// PROGRAM: rank class 'class1'
// PROGRAM: [[X:[0-9]+]]: HaloExchange
// PROGRAM-SAME: ints [1]
// PROGRAM: Conv
// PROGRAM-NEXT: Wait
// PROGRAM-SAME: ints [[[X]]]
// PROGRAM-NEXT: Conv
// PROGRAM-NEXT: Conv
// OFF-NOT: Wait

// sc-plan-memory after the split: the halo buffer stays live until the
// boundary reads it.
// PLANNED-LABEL: func.func @main_class1
// PLANNED-SAME: scl.arena_bytes
// PLANNED: scl.wait

//--- strided.mlir
// Stride 2 over 90/90/70 (row 2 of the acceptance table): a rank's first
// window may start in its halo.
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<2x16x250xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[90, 90, 70]]>},
                %w: tensor<8x16x3xf32>, %b: tensor<8xf32>)
    -> (tensor<2x8x125xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[45, 45, 35]]>}) {
  %y = sc.conv %x, %w, %b {padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<2x16x250xf32>, tensor<8x16x3xf32>, tensor<8xf32>) -> tensor<2x8x125xf32>
  return %y : tensor<2x8x125xf32>
}
// STRIDED-LABEL: func.func @main_class1
// STRIDED: -> !scl.pending
// STRIDED: scl.kernel "Conv" {{.*}}outs(%{{.*}} : memref<2x8x45xf32>) {ints = array<i64: 1, 2, 0, 1, 1, 1, 45>}
// STRIDED-NEXT: scl.wait
// STRIDED-NEXT: scl.kernel "Conv" {{.*}} {ints = array<i64: 1, 2, 0, 1, 1, 0, 1>}
// STRIDED-NEXT: return

//--- mesh2d.mlir
// A 2x2 mesh splitting H and W: the middle of the block is the interior;
// the boundary is the slab of rows and the slab of columns next to the
// halo (corners included).
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%x: tensor<1x3x40x40xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {"y"}]>},
                %w: tensor<5x3x3x3xf32>)
    -> (tensor<1x5x40x40xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {"y"}]>}) {
  %y = sc.conv %x, %w {padding = array<i64: 1, 1>} : (tensor<1x3x40x40xf32>, tensor<5x3x3x3xf32>) -> tensor<1x5x40x40xf32>
  return %y : tensor<1x5x40x40xf32>
}
// MESH2D-LABEL: func.func @main_class0
// MESH2D: scl.kernel "Conv" {{.*}} {ints = array<i64: 2, 1, 1, 1, 1, 1, 1, 1, 0, 0, 19, 19>}
// MESH2D-NEXT: scl.wait
// MESH2D-NEXT: scl.kernel "Conv" {{.*}} {ints = array<i64: 2, 1, 1, 1, 1, 1, 1, 1, 19, 0, 20, 20>}
// MESH2D-NEXT: scl.kernel "Conv" {{.*}} {ints = array<i64: 2, 1, 1, 1, 1, 1, 1, 1, 0, 19, 19, 20>}
// MESH2D-NEXT: return

//--- small.mlir
// Three rows per rank and a 5-row kernel: the interior would be under half
// of the output, so the exchange stays blocking.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x2x12x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
                %w: tensor<2x2x5x5xf32>) -> tensor<1x2x12x8xf32> {
  %y = sc.conv %x, %w {padding = array<i64: 2, 2>} : (tensor<1x2x12x8xf32>, tensor<2x2x5x5xf32>) -> tensor<1x2x12x8xf32>
  return %y : tensor<1x2x12x8xf32>
}
// SMALL-NOT: scl.wait
// SMALL-NOT: !scl.pending

//--- pool.mlir
// Pooling consumers keep the blocking exchange.
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<1x2x64xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>}) -> tensor<1x2x64xf32> {
  %y = sc.max_pool %x {kernel_size = array<i64: 3>, stride = array<i64: 1>, padding = array<i64: 1>} : (tensor<1x2x64xf32>) -> tensor<1x2x64xf32>
  return %y : tensor<1x2x64xf32>
}
// POOL: scl.halo_exchange
// POOL-NOT: !scl.pending

//--- between.mlir
// Hand-written scl: communication between the exchange and its conv would
// run while the halo is in flight (with NCCL, whose transfers start only
// when waited on, a peer could wait on it forever), so that exchange stays
// blocking; so does one whose buffer is next written, not read.
sc.mesh @mesh ["x"=2]
func.func @collective_between(%x: memref<1x1x16xf32>, %w: memref<1x1x3xf32>, %s: memref<4xf32>) -> (memref<1x1x16xf32>, memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %h = memref.alloc() : memref<1x1x17xf32>
  scl.kernel "Pad" mode "constant" ins(%x : memref<1x1x16xf32>) outs(%h : memref<1x1x17xf32>) {floats = array<f64: 0.0>, ints = array<i64: 0, 0, 0, 0, 0, 1>}
  scl.halo_exchange ins(%x : memref<1x1x16xf32>) outs(%h : memref<1x1x17xf32>) [#scl.transfer<recv 0 peer [1] box [0:1, 0:1, 16:17] tag 0>, #scl.transfer<send 0 peer [1] box [0:1, 0:1, 15:16] tag 0>]
  %r = memref.alloc() : memref<4xf32>
  scl.all_reduce sum over [0] ins(%s : memref<4xf32>) outs(%r : memref<4xf32>)
  %y = memref.alloc() : memref<1x1x16xf32>
  scl.kernel "Conv" ins(%h, %w : memref<1x1x17xf32>, memref<1x1x3xf32>) outs(%y : memref<1x1x16xf32>) {ints = array<i64: 1, 1, 1, 1, 1>}
  return %y, %r : memref<1x1x16xf32>, memref<4xf32>
}
func.func @written_next(%x: memref<1x1x16xf32>) -> memref<1x1x17xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 1>} {
  %h = memref.alloc() : memref<1x1x17xf32>
  scl.halo_exchange ins(%x : memref<1x1x16xf32>) outs(%h : memref<1x1x17xf32>) [#scl.transfer<recv 0 peer [-1] box [0:1, 0:1, 0:1] tag 0>, #scl.transfer<send 0 peer [-1] box [0:1, 0:1, 0:1] tag 0>]
  scl.kernel "Fill" outs(%h : memref<1x1x17xf32>) {floats = array<f64: 1.0>}
  return %h : memref<1x1x17xf32>
}
// BETWEEN-LABEL: func.func @collective_between
// BETWEEN-NOT: scl.wait
// BETWEEN: scl.kernel "Conv" {{.*}} {ints = array<i64: 1, 1, 1, 1, 1>}
// BETWEEN-LABEL: func.func @written_next
// BETWEEN-NOT: scl.wait
// BETWEEN: scl.kernel "Fill"

//--- deferred.mlir
// Hand-written scl: a ring step passes %k on while the block at hand is
// attended; the wait lands before the first op that touches a received
// buffer, even though the ops in between overwrite the sent one (its boxes
// were packed at the start). Communication in between, an output read
// through a view, or nothing to compute keeps the exchange blocking.
sc.mesh @mesh ["x"=2]
func.func @ring_step(%q: memref<4x8xf32>, %k: memref<8x4xf32>, %v: memref<4x8xf32>) -> memref<4x8xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %nk = memref.alloc() : memref<8x4xf32>
  %nv = memref.alloc() : memref<4x8xf32>
  scl.halo_exchange ins(%k, %v : memref<8x4xf32>, memref<4x8xf32>) outs(%nk, %nv : memref<8x4xf32>, memref<4x8xf32>) [#scl.transfer<send 0 peer [1] box [0:8, 0:4] tag 0 periodic>, #scl.transfer<send 1 peer [1] box [0:4, 0:8] tag 1 periodic>, #scl.transfer<recv 0 peer [-1] box [0:8, 0:4] tag 0 periodic>, #scl.transfer<recv 1 peer [-1] box [0:4, 0:8] tag 1 periodic>]
  %s = memref.alloc() : memref<4x4xf32>
  scl.kernel "Matmul" ins(%q, %k : memref<4x8xf32>, memref<8x4xf32>) outs(%s : memref<4x4xf32>)
  scl.kernel "Fill" outs(%k : memref<8x4xf32>) {floats = array<f64: 0.0>}
  %o = memref.alloc() : memref<4x8xf32>
  scl.kernel "Matmul" ins(%s, %v : memref<4x4xf32>, memref<4x8xf32>) outs(%o : memref<4x8xf32>)
  %t = memref.alloc() : memref<4x4xf32>
  scl.kernel "Matmul" ins(%q, %nk : memref<4x8xf32>, memref<8x4xf32>) outs(%t : memref<4x4xf32>)
  %o2 = memref.alloc() : memref<4x8xf32>
  scl.kernel "Matmul" ins(%t, %nv : memref<4x4xf32>, memref<4x8xf32>) outs(%o2 : memref<4x8xf32>)
  scl.kernel "Binary" mode "add" ins(%o, %o2 : memref<4x8xf32>, memref<4x8xf32>) outs(%o : memref<4x8xf32>)
  return %o : memref<4x8xf32>
}
func.func @collective_between(%x: memref<8xf32>, %s: memref<4xf32>) -> (memref<8xf32>, memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 1>} {
  %n = memref.alloc() : memref<8xf32>
  scl.halo_exchange ins(%x : memref<8xf32>) outs(%n : memref<8xf32>) [#scl.transfer<send 0 peer [-1] box [0:8] tag 0 periodic>, #scl.transfer<recv 0 peer [1] box [0:8] tag 0 periodic>]
  %a = memref.alloc() : memref<4xf32>
  scl.kernel "Unary" mode "exp" ins(%s : memref<4xf32>) outs(%a : memref<4xf32>)
  %r = memref.alloc() : memref<4xf32>
  scl.all_reduce sum over [0] ins(%a : memref<4xf32>) outs(%r : memref<4xf32>)
  %y = memref.alloc() : memref<8xf32>
  scl.kernel "Unary" mode "exp" ins(%n : memref<8xf32>) outs(%y : memref<8xf32>)
  return %y, %r : memref<8xf32>, memref<4xf32>
}
func.func @read_through_view(%x: memref<8xf32>, %s: memref<4xf32>) -> (memref<8xf32>, memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 1>} {
  %n = memref.alloc() : memref<8xf32>
  %w = scl.view %n : memref<8xf32> to memref<2x4xf32>
  scl.halo_exchange ins(%x : memref<8xf32>) outs(%n : memref<8xf32>) [#scl.transfer<send 0 peer [-1] box [0:8] tag 0 periodic>, #scl.transfer<recv 0 peer [1] box [0:8] tag 0 periodic>]
  %a = memref.alloc() : memref<4xf32>
  scl.kernel "Reduce" mode "sum" ins(%w : memref<2x4xf32>) outs(%a : memref<4xf32>) {ints = array<i64: 0>}
  %y = memref.alloc() : memref<8xf32>
  scl.kernel "Unary" mode "exp" ins(%n : memref<8xf32>) outs(%y : memref<8xf32>)
  return %y, %a : memref<8xf32>, memref<4xf32>
}
func.func @nothing_to_hide(%x: memref<8xf32>) -> memref<8xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 1>} {
  %n = memref.alloc() : memref<8xf32>
  scl.halo_exchange ins(%x : memref<8xf32>) outs(%n : memref<8xf32>) [#scl.transfer<send 0 peer [-1] box [0:8] tag 0 periodic>, #scl.transfer<recv 0 peer [1] box [0:8] tag 0 periodic>]
  %y = memref.alloc() : memref<8xf32>
  scl.kernel "Unary" mode "exp" ins(%n : memref<8xf32>) outs(%y : memref<8xf32>)
  return %y : memref<8xf32>
}
// DEFER-LABEL: func.func @ring_step
// DEFER: %[[P:.*]] = scl.halo_exchange ins(%{{.*}}) outs(%[[NK:.*]], %[[NV:.*]] : memref<8x4xf32>, memref<4x8xf32>) {{.*}} -> !scl.pending
// DEFER-NEXT: memref.alloc
// DEFER-NEXT: scl.kernel "Matmul"
// DEFER-NEXT: scl.kernel "Fill"
// DEFER-NEXT: memref.alloc
// DEFER-NEXT: scl.kernel "Matmul"
// DEFER-NEXT: memref.alloc
// DEFER-NEXT: scl.wait %[[P]] outs(%[[NK]], %[[NV]] : memref<8x4xf32>, memref<4x8xf32>)
// DEFER-NEXT: scl.kernel "Matmul" ins(%{{.*}}, %[[NK]] :
// DEFER-LABEL: func.func @collective_between
// DEFER-NOT: scl.wait
// DEFER-LABEL: func.func @read_through_view
// DEFER-NOT: scl.wait
// DEFER-LABEL: func.func @nothing_to_hide
// DEFER-NOT: scl.wait
// DEFER: return
// The received buffers are live from the start, so the block's scores and
// output, computed while they are in flight, are placed elsewhere.
// DEFER-PLAN-LABEL: func.func @ring_step
// DEFER-PLAN: memref.alloc() {scl.offset = [[NK:[0-9]+]] : i64} : memref<8x4xf32>
// DEFER-PLAN-NEXT: memref.alloc() {scl.offset = [[NV:[0-9]+]] : i64} : memref<4x8xf32>
// DEFER-PLAN-NEXT: -> !scl.pending
// DEFER-PLAN-NOT: scl.offset = [[NK]] :
// DEFER-PLAN-NOT: scl.offset = [[NV]] :
// DEFER-PLAN: scl.wait

//--- chain.mlir
// conv -> silu -> conv at -O3 (fused epilogue between two split convs).
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x4x48x20xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[16, 8, 12, 12], {}]>},
                %w1: tensor<8x4x3x3xf32>, %w2: tensor<4x8x3x3xf32>)
    -> (tensor<1x4x48x20xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[16, 8, 12, 12], {}]>}) {
  %a = sc.conv %x, %w1 {padding = array<i64: 1, 1>} : (tensor<1x4x48x20xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x48x20xf32>
  %s = sc.silu %a : tensor<1x8x48x20xf32>
  %y = sc.conv %s, %w2 {padding = array<i64: 1, 1>} : (tensor<1x8x48x20xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x48x20xf32>
  return %y : tensor<1x4x48x20xf32>
}

// NUM: check result0: {{.*}} ok
