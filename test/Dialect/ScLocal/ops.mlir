// RUN: shardc-opt %s -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s

// A two-rank halo exchange: the own shard is padded into the halo buffer,
// then one exchange fills the border from the neighbour.

sc.mesh @mesh ["x"=2]
// CHECK-LABEL: func.func @halo
// CHECK-SAME: scl.mesh = @mesh, scl.ranks = array<i32: 0>
func.func @halo(%x: memref<1x1x4xf32>) -> memref<1x1x5xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %h = memref.alloc() : memref<1x1x5xf32>
  // CHECK: scl.kernel "Pad" mode "constant" ins(%{{.*}} : memref<1x1x4xf32>) outs(%{{.*}} : memref<1x1x5xf32>) {floats = array<f64: 0.000000e+00>, ints = array<i64: 0, 0, 0, 0, 0, 1>}
  scl.kernel "Pad" mode "constant" ins(%x : memref<1x1x4xf32>)
      outs(%h : memref<1x1x5xf32>)
      {ints = array<i64: 0, 0, 0, 0, 0, 1>, floats = array<f64: 0.0>}
  // CHECK: scl.halo_exchange ins(%{{.*}} : memref<1x1x4xf32>) outs(%{{.*}} : memref<1x1x5xf32>) [#scl.transfer<send 0 peer [1] box [0:1, 0:1, 3:4] tag 0>, #scl.transfer<recv 0 peer [1] box [0:1, 0:1, 4:5] tag 1>]
  scl.halo_exchange ins(%x : memref<1x1x4xf32>) outs(%h : memref<1x1x5xf32>)
      [#scl.transfer<send 0 peer [1] box [0:1, 0:1, 3:4] tag 0>,
       #scl.transfer<recv 0 peer [1] box [0:1, 0:1, 4:5] tag 1>]
  return %h : memref<1x1x5xf32>
}

// -----

// The same exchange started, with compute between it and its wait.
sc.mesh @mesh ["x"=2]
// CHECK-LABEL: func.func @started
func.func @started(%x: memref<1x1x4xf32>, %w: memref<1x1x1xf32>) -> memref<1x1x5xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %h = memref.alloc() : memref<1x1x5xf32>
  %y = memref.alloc() : memref<1x1x5xf32>
  // CHECK: %[[P:.*]] = scl.halo_exchange ins(%{{.*}} : memref<1x1x4xf32>) outs(%[[H:.*]] : memref<1x1x5xf32>) [{{.*}}] -> !scl.pending
  %p = scl.halo_exchange ins(%x : memref<1x1x4xf32>) outs(%h : memref<1x1x5xf32>)
      [#scl.transfer<send 0 peer [1] box [0:1, 0:1, 3:4] tag 0>,
       #scl.transfer<recv 0 peer [1] box [0:1, 0:1, 4:5] tag 1>] -> !scl.pending
  // CHECK-NEXT: scl.kernel "Conv"
  scl.kernel "Conv" ins(%h, %w : memref<1x1x5xf32>, memref<1x1x1xf32>) outs(%y : memref<1x1x5xf32>)
      {ints = array<i64: 1, 1, 0, 1, 1, 0, 4>}
  // CHECK-NEXT: scl.wait %[[P]] outs(%[[H]] : memref<1x1x5xf32>)
  scl.wait %p outs(%h : memref<1x1x5xf32>)
  return %h : memref<1x1x5xf32>
}

// -----

// Ring step: periodic sends of two buffers, receives into two others.
sc.mesh @ringmesh ["x"=3]
// CHECK-LABEL: func.func @ring
func.func @ring(%k: memref<2x4xf32>, %v: memref<2x4xf32>)
    attributes {scl.mesh = @ringmesh, scl.ranks = array<i32: 0, 1, 2>} {
  %k1 = memref.alloc() : memref<2x4xf32>
  %v1 = memref.alloc() : memref<2x4xf32>
  // CHECK: #scl.transfer<send 1 peer [1] box [0:2, 0:4] tag 1 periodic>
  // CHECK-SAME: #scl.transfer<recv 1 peer [-1] box [0:2, 0:4] tag 1 periodic>
  scl.halo_exchange ins(%k, %v : memref<2x4xf32>, memref<2x4xf32>)
      outs(%k1, %v1 : memref<2x4xf32>, memref<2x4xf32>)
      [#scl.transfer<send 0 peer [1] box [0:2, 0:4] tag 0 periodic>,
       #scl.transfer<send 1 peer [1] box [0:2, 0:4] tag 1 periodic>,
       #scl.transfer<recv 0 peer [-1] box [0:2, 0:4] tag 0 periodic>,
       #scl.transfer<recv 1 peer [-1] box [0:2, 0:4] tag 1 periodic>]
  return
}

// -----

// Collectives over one axis of a 2x2 mesh, with uneven blocks.
sc.mesh @grid ["x"=2, "y"=2]
// CHECK-LABEL: func.func @collectives
func.func @collectives(%p: memref<4x8xf32>, %b: memref<3x8xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  %r = memref.alloc() : memref<4x8xf32>
  // CHECK: scl.all_reduce {{ *}}max over [1] ins(%{{.*}} : memref<4x8xf32>) outs(%{{.*}} : memref<4x8xf32>)
  scl.all_reduce max over [1] ins(%p : memref<4x8xf32>) outs(%r : memref<4x8xf32>)
  %g = memref.alloc() : memref<4x8xf32>
  // CHECK: scl.all_gather dim 0 extents [3, 1] over [1]
  scl.all_gather dim 0 extents [3, 1] over [1]
      ins(%b : memref<3x8xf32>) outs(%g : memref<4x8xf32>)
  %s = memref.alloc() : memref<3x8xf32>
  // CHECK: scl.reduce_scatter {{ *}}sum dim 0 extents [3, 1] over [1]
  scl.reduce_scatter sum dim 0 extents [3, 1] over [1]
      ins(%p : memref<4x8xf32>) outs(%s : memref<3x8xf32>)
  %t = memref.alloc() : memref<4x5xf32>
  // CHECK: scl.all_to_all split 1 [5, 3] concat 0 [3, 1] over [1] ins(%{{.*}} : memref<3x8xf32>) outs(%{{.*}} : memref<4x5xf32>)
  scl.all_to_all split 1 [5, 3] concat 0 [3, 1] over [1]
      ins(%b : memref<3x8xf32>) outs(%t : memref<4x5xf32>)
  return
}

// -----

// A group over both axes listed y major: its members are world ranks 0, 2,
// 1, 3, so rank 2 brings the second block (1 row), rank 1 the third.
sc.mesh @grid ["x"=2, "y"=2]
// CHECK-LABEL: func.func @axes_in_split_order
func.func @axes_in_split_order(%b: memref<1x8xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 2>} {
  %g = memref.alloc() : memref<10x8xf32>
  // CHECK: scl.all_gather dim 0 extents [3, 1, 2, 4] over [1, 0]
  scl.all_gather dim 0 extents [3, 1, 2, 4] over [1, 0]
      ins(%b : memref<1x8xf32>) outs(%g : memref<10x8xf32>)
  return
}

// -----

// Constants: one value per shard, read in place.
// CHECK: scl.global @c [#scl.shard<[0], dense<1.000000e+00> : tensor<2xf32>>, #scl.shard<[1], dense<2.000000e+00> : tensor<2xf32>>]
scl.global @c [#scl.shard<[0], dense<1.0> : tensor<2xf32>>,
               #scl.shard<[1], dense<2.0> : tensor<2xf32>>]
sc.mesh @pair ["x"=2]
func.func @constant() -> memref<2xf32>
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>} {
  // CHECK: scl.constant @c : memref<2xf32>
  %c = scl.constant @c : memref<2xf32>
  return %c : memref<2xf32>
}

// -----

// A partitioned entry: the declaration keeps the global signature and
// names its rank classes, which cover the world once.
sc.mesh @m ["x"=2]
// CHECK: scl.rank_classes = [@f_class0, @f_class1]
func.func private @f(tensor<4xf32>) -> tensor<4xf32>
    attributes {scl.rank_classes = [@f_class0, @f_class1]}
func.func @f_class0(%x: memref<3xf32>) -> memref<3xf32>
    attributes {scl.mesh = @m, scl.ranks = array<i32: 0>} {
  %y = memref.alloc() : memref<3xf32>
  scl.kernel "Unary" mode "relu" ins(%x : memref<3xf32>) outs(%y : memref<3xf32>)
  return %y : memref<3xf32>
}
func.func @f_class1(%x: memref<1xf32>) -> memref<1xf32>
    attributes {scl.mesh = @m, scl.ranks = array<i32: 1>} {
  %y = memref.alloc() : memref<1xf32>
  scl.kernel "Unary" mode "relu" ins(%x : memref<1xf32>) outs(%y : memref<1xf32>)
  return %y : memref<1xf32>
}

// -----

// A view reads the same bytes in another shape of the same element count.
sc.mesh @m ["x"=1]
// CHECK-LABEL: func.func @view
// CHECK: scl.view %{{.*}} : memref<1x8x2x3xf32> to memref<4x12xf32>
func.func @view(%x: memref<1x8x2x3xf32>) -> memref<4x1xf32>
    attributes {scl.mesh = @m, scl.ranks = array<i32: 0>} {
  %y = memref.alloc() : memref<1x8x2x3xf32>
  scl.kernel "Unary" mode "relu" ins(%x : memref<1x8x2x3xf32>) outs(%y : memref<1x8x2x3xf32>)
  %g = scl.view %y : memref<1x8x2x3xf32> to memref<4x12xf32>
  %s = memref.alloc() : memref<4x1xf32>
  scl.kernel "Reduce" mode "sum" ins(%g : memref<4x12xf32>) outs(%s : memref<4x1xf32>) {ints = array<i64: 1>}
  return %s : memref<4x1xf32>
}

// -----

// A ring over axis "y" of a 2x2 mesh: ranks 0 and 2 are its first members
// (keys [0, 3)), and of the causal query split; the values arrive whole
// along the keys, the mask is added.
sc.mesh @grid ["x"=2, "y"=2]
// CHECK-LABEL: func.func @ring
func.func @ring(%q: memref<2x3x4xf32>, %k: memref<1x3x4xf32>, %v: memref<1x5x2xf32>, %m: memref<3x5xf32>) -> memref<2x3x2xf32>
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  %y = memref.alloc() : memref<2x3x2xf32>
  // CHECK: scl.ring_attention over [1] starts [0, 3, 5] scale 5.000000e-01 causal queries over [1] starts [0, 3, 5] ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<2x3x4xf32>, memref<1x3x4xf32>, memref<1x5x2xf32>, memref<3x5xf32>) outs(%{{.*}} : memref<2x3x2xf32>) {values_whole}
  scl.ring_attention over [1] starts [0, 3, 5] scale 0.5
      causal queries over [1] starts [0, 3, 5]
      ins(%q, %k, %v, %m : memref<2x3x4xf32>, memref<1x3x4xf32>, memref<1x5x2xf32>, memref<3x5xf32>)
      outs(%y : memref<2x3x2xf32>) {values_whole}
  // Whole queries are a split over no axes.
  // CHECK: scl.ring_attention over [1] starts [0, 3, 5] scale 5.000000e-01 causal queries over [] starts [0, 3] ins(
  scl.ring_attention over [1] starts [0, 3, 5] scale 0.5
      causal queries over [] starts [0, 3]
      ins(%q, %k, %v, %m : memref<2x3x4xf32>, memref<1x3x4xf32>, memref<1x5x2xf32>, memref<3x5xf32>)
      outs(%y : memref<2x3x2xf32>) {values_whole}
  return %y : memref<2x3x2xf32>
}

// -----

// A split cumsum's instructions over y then x of a 2x2 mesh: every member
// runs them alike; the runtime finds how many gathered totals a rank folds
// from its place in the group.
sc.mesh @grid ["x"=2, "y"=2]
// CHECK-LABEL: func.func @scan_over_group
func.func @scan_over_group(%x: memref<2x3xf32>, %all: memref<2x4x4xf32>) -> memref<2x3xf32>
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 1, 2, 3>} {
  %t = memref.alloc() : memref<2x1x4xf32>
  // CHECK: scl.kernel "ScanTotals" mode "sum" over [1, 0] ins(%{{.*}} : memref<2x3xf32>) outs(%{{.*}} : memref<2x1x4xf32>) {ints = array<i64: 1>}
  scl.kernel "ScanTotals" mode "sum" over [1, 0] ins(%x : memref<2x3xf32>)
      outs(%t : memref<2x1x4xf32>) {ints = array<i64: 1>}
  %y = memref.alloc() : memref<2x3xf32>
  // CHECK: scl.kernel "Scan" mode "sum" over [1, 0] ins(%{{.*}}, %{{.*}} : memref<2x3xf32>, memref<2x4x4xf32>) outs(%{{.*}} : memref<2x3xf32>) {ints = array<i64: 1>}
  scl.kernel "Scan" mode "sum" over [1, 0] ins(%x, %all : memref<2x3xf32>, memref<2x4x4xf32>)
      outs(%y : memref<2x3xf32>) {ints = array<i64: 1>}
  return %y : memref<2x3xf32>
}

// -----

// bf16 and f16 buffers are held, exchanged, moved and cast; kernels that
// compute read their f32 casts.
sc.mesh @mesh ["x"=2]
// CHECK-LABEL: func.func @half_floats
func.func @half_floats(%x: memref<1x1x4xbf16>) -> memref<1x1x5xf16>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %h = memref.alloc() : memref<1x1x5xbf16>
  // CHECK: scl.kernel "Pad" mode "constant" ins(%{{.*}} : memref<1x1x4xbf16>) outs(%{{.*}} : memref<1x1x5xbf16>)
  scl.kernel "Pad" mode "constant" ins(%x : memref<1x1x4xbf16>)
      outs(%h : memref<1x1x5xbf16>)
      {ints = array<i64: 0, 0, 0, 0, 0, 1>, floats = array<f64: 0.0>}
  // CHECK: scl.halo_exchange ins(%{{.*}} : memref<1x1x4xbf16>) outs(%{{.*}} : memref<1x1x5xbf16>)
  scl.halo_exchange ins(%x : memref<1x1x4xbf16>) outs(%h : memref<1x1x5xbf16>)
      [#scl.transfer<send 0 peer [1] box [0:1, 0:1, 3:4] tag 0>,
       #scl.transfer<recv 0 peer [1] box [0:1, 0:1, 4:5] tag 1>]
  %f = memref.alloc() : memref<1x1x5xf32>
  // CHECK: scl.kernel "Cast" ins(%{{.*}} : memref<1x1x5xbf16>) outs(%{{.*}} : memref<1x1x5xf32>)
  scl.kernel "Cast" ins(%h : memref<1x1x5xbf16>) outs(%f : memref<1x1x5xf32>)
  %e = memref.alloc() : memref<1x1x5xf32>
  scl.kernel "Unary" mode "exp" ins(%f : memref<1x1x5xf32>) outs(%e : memref<1x1x5xf32>)
  // A Conv reads a 16-bit input itself (its weights and output are f32).
  %w = memref.alloc() : memref<1x1x1xf32>
  %c = memref.alloc() : memref<1x1x5xf32>
  // CHECK: scl.kernel "Conv" ins(%{{.*}}, %{{.*}} : memref<1x1x5xbf16>, memref<1x1x1xf32>) outs(%{{.*}} : memref<1x1x5xf32>)
  scl.kernel "Conv" ins(%h, %w : memref<1x1x5xbf16>, memref<1x1x1xf32>) outs(%c : memref<1x1x5xf32>) {ints = array<i64: 1, 1, 0, 1, 1>}
  %y = memref.alloc() : memref<1x1x5xf16>
  // CHECK: scl.kernel "Cast" ins(%{{.*}} : memref<1x1x5xf32>) outs(%{{.*}} : memref<1x1x5xf16>)
  scl.kernel "Cast" ins(%e : memref<1x1x5xf32>) outs(%y : memref<1x1x5xf16>)
  return %y : memref<1x1x5xf16>
}
