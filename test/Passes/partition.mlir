// The pipeline's passes up to sc-partition (sc-plan-memory, its last pass,
// has its own test: plan-memory.mlir).
// RUN: shardc-opt %s -split-input-file -sc-propagate-sharding -sc-insert-reshards -sc-partition | FileCheck %s
// The partitioned module is valid scl and prints back identically.
// RUN: shardc-opt %s -split-input-file -sc-propagate-sharding -sc-insert-reshards -sc-partition | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -sc-propagate-sharding -sc-insert-reshards -sc-partition=unroll-rings=1 | FileCheck %s --check-prefix=UNROLL
// The whole pipeline adds memory plans, and nothing else.
// RUN: shardc-opt %s -split-input-file -sc-partition-pipeline | sed -E -e 's/ ?\{scl\.offset = [0-9]+ : i64\}//' -e 's/scl\.arena_bytes = [0-9]+ : i64, scl\.input_offsets = array<i64(: [0-9, ]+)?>, //' | FileCheck %s

// sc-partition: the entry becomes a declaration with the final layouts and
// its rank classes; each class is an scl function on local buffers with
// every exchange and collective explicit.

// Uneven 1-D pooling: [5, 3] over two ranks. Rank 0 pads its right halo
// and receives one column from rank 1 (peer +1), and sends it one back.
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<1x1x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3]]>}) -> tensor<1x1x8xf32> {
  %y = sc.max_pool %x {kernel_size = array<i64: 3>, stride = array<i64: 1>, padding = array<i64: 1>} : (tensor<1x1x8xf32>) -> tensor<1x1x8xf32>
  return %y : tensor<1x1x8xf32>
}
// CHECK-LABEL: func.func private @main
// CHECK-SAME: (tensor<1x1x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3]]>})
// CHECK-SAME: -> (tensor<1x1x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3]]>})
// CHECK-SAME: attributes {scl.rank_classes = [@main_class0, @main_class1]}
// CHECK:      func.func @main_class0(%[[X:.*]]: memref<1x1x5xf32>) -> memref<1x1x5xf32>
// CHECK-SAME:   attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>}
// CHECK-NEXT:   %[[H:.*]] = memref.alloc() : memref<1x1x6xf32>
// CHECK-NEXT:   scl.kernel "Pad" mode "constant" ins(%[[X]] : memref<1x1x5xf32>) outs(%[[H]] : memref<1x1x6xf32>) {floats = array<f64: 0.000000e+00>, ints = array<i64: 0, 0, 0, 0, 0, 1>}
// CHECK-NEXT:   scl.halo_exchange ins(%[[X]] : memref<1x1x5xf32>) outs(%[[H]] : memref<1x1x6xf32>) [#scl.transfer<recv 0 peer [1] box [0:1, 0:1, 5:6] tag 0>, #scl.transfer<send 0 peer [1] box [0:1, 0:1, 4:5] tag 0>]
// CHECK-NEXT:   %[[Y:.*]] = memref.alloc() : memref<1x1x5xf32>
// CHECK-NEXT:   scl.kernel "Pool" mode "max" ins(%[[H]] : memref<1x1x6xf32>) outs(%[[Y]] : memref<1x1x5xf32>)
// CHECK-NEXT:   return %[[Y]] : memref<1x1x5xf32>
// CHECK:      func.func @main_class1(%{{.*}}: memref<1x1x3xf32>) -> memref<1x1x3xf32>
// CHECK-SAME:   scl.ranks = array<i32: 1>
// CHECK:        scl.halo_exchange {{.*}} [#scl.transfer<send 0 peer [-1] box [0:1, 0:1, 0:1] tag 0>, #scl.transfer<recv 0 peer [-1] box [0:1, 0:1, 0:1] tag 0>]

// -----

// An even 1-D split gives three classes: first, interior, last. The
// weight becomes one scl.global every rank reads in place.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x1x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>}) -> tensor<1x1x16xf32> {
  %w = sc.constant dense<[[[1.0, 2.0, 1.0]]]> : tensor<1x1x3xf32>
  %y = sc.conv %x, %w {padding = array<i64: 1>} : (tensor<1x1x16xf32>, tensor<1x1x3xf32>) -> tensor<1x1x16xf32>
  return %y : tensor<1x1x16xf32>
}
// CHECK: scl.global @partition0 [#scl.shard<[0, 1, 2, 3], dense<{{\[\[\[}}1.000000e+00, 2.000000e+00, 1.000000e+00]]]> : tensor<1x1x3xf32>>]
// CHECK: scl.rank_classes = [@main_class0, @main_class1, @main_class2]
// CHECK: func.func @main_class0({{.*}}scl.ranks = array<i32: 0>}
// CHECK:   scl.constant @partition0 : memref<1x1x3xf32>
// CHECK:   scl.kernel "Conv" ins({{.*}} : memref<1x1x5xf32>, memref<1x1x3xf32>) outs({{.*}} : memref<1x1x4xf32>)
// CHECK: func.func @main_class1({{.*}}scl.ranks = array<i32: 1, 2>}
// CHECK:   scl.halo_exchange {{.*}}outs({{.*}} : memref<1x1x6xf32>) [#scl.transfer<send 0 peer [-1] box [0:1, 0:1, 0:1] tag 0>, #scl.transfer<recv 0 peer [-1] box [0:1, 0:1, 0:1] tag 0>, #scl.transfer<recv 0 peer [1] box [0:1, 0:1, 5:6] tag 0>, #scl.transfer<send 0 peer [1] box [0:1, 0:1, 3:4] tag 0>]
// CHECK: func.func @main_class2({{.*}}scl.ranks = array<i32: 3>}

// -----

// A sum over a dim split over "y" is partial over "y" only: one all-reduce
// within each row of the 2x2 mesh; ranks differing only in x share a class.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%a: tensor<6x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {"y"}[3, 5]]>})
    -> (tensor<6xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}]>}) {
  %s = sc.sum %a {dims = array<i64: 1>} : (tensor<6x8xf32>) -> tensor<6xf32>
  return %s : tensor<6xf32>
}
// CHECK: func.func @main_class0(%{{.*}}: memref<3x3xf32>) -> memref<3xf32> attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 2>}
// CHECK:   scl.kernel "Reduce" mode "sum"
// CHECK:   scl.all_reduce {{ *}}sum over [1] ins(%{{.*}} : memref<3xf32>) outs(%{{.*}} : memref<3xf32>)
// CHECK: func.func @main_class1(%{{.*}}: memref<3x5xf32>) -> memref<3xf32> attributes {scl.mesh = @mesh, scl.ranks = array<i32: 1, 3>}

// -----

// A partial sum wanted split [3, 5] is one reduce-scatter-v.
sc.mesh @mesh ["x"=2]
func.func @main(%a: tensor<8x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>})
    -> (tensor<8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[3, 5]]>}) {
  %s = sc.sum %a {dims = array<i64: 1>} : (tensor<8x6xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}
// CHECK: func.func @main_class0(
// CHECK:   scl.reduce_scatter {{ *}}sum dim 0 extents [3, 5] over [0] ins(%{{.*}} : memref<8xf32>) outs(%{{.*}} : memref<3xf32>)
// CHECK: func.func @main_class1(
// CHECK:   scl.reduce_scatter {{ *}}sum dim 0 extents [3, 5] over [0] ins(%{{.*}} : memref<8xf32>) outs(%{{.*}} : memref<5xf32>)

// -----

// Split -> whole along one dim over one axis is one all-gather-v.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%a: tensor<6x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {"y"}[3, 5]]>})
    -> (tensor<6x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}) {
  %r = sc.reshard %a : tensor<6x8xf32> to #sc.sharding<@mesh, [{"x"}, {}]>
  return %r : tensor<6x8xf32>
}
// CHECK: func.func @main_class0(%[[A:.*]]: memref<3x3xf32>) -> memref<3x8xf32>
// CHECK:   scl.all_gather dim 1 extents [3, 5] over [1] ins(%[[A]] : memref<3x3xf32>) outs(%{{.*}} : memref<3x8xf32>)
// CHECK: func.func @main_class1(%[[B:.*]]: memref<3x5xf32>) -> memref<3x8xf32>
// CHECK:   scl.all_gather dim 1 extents [3, 5] over [1] ins(%[[B]] : memref<3x5xf32>)

// -----

// Attention over a sequence split [5, 3, 2]: one ring per rank, which runs
// two periodic steps passing K and V one rank on (with unroll-rings, each
// step is an exchange and a block of its own).
sc.mesh @mesh ["x"=3]
func.func @main(%q: tensor<1x2x10x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>},
                %k: tensor<1x2x10x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>},
                %v: tensor<1x2x10x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>}) -> tensor<1x2x10x4xf32> {
  %y = sc.scaled_dot_product_attention %q, %k, %v : (tensor<1x2x10x4xf32>, tensor<1x2x10x4xf32>, tensor<1x2x10x4xf32>) -> tensor<1x2x10x4xf32>
  return %y : tensor<1x2x10x4xf32>
}
// CHECK: func.func @main_class0(
// CHECK-SAME: scl.ranks = array<i32: 0>
// CHECK: scl.ring_attention over [0] starts [0, 5, 8, 10] scale 5.000000e-01 ins(%arg0, %arg1, %arg2 : memref<1x2x5x4xf32>, memref<1x2x5x4xf32>, memref<1x2x5x4xf32>) outs(%{{.*}} : memref<1x2x5x4xf32>)
// CHECK-NOT: scl.halo_exchange
// CHECK: return
// UNROLL-LABEL: func.func @main_class0(
// UNROLL: scl.halo_exchange ins(%{{.*}}, %{{.*}} : memref<1x2x5x4xf32>, memref<1x2x5x4xf32>) outs(%{{.*}}, %{{.*}} : memref<1x2x2x4xf32>, memref<1x2x2x4xf32>) [#scl.transfer<send 0 peer [1] box [0:1, 0:2, 0:5, 0:4] tag 0 periodic>, #scl.transfer<send 1 peer [1] box [0:1, 0:2, 0:5, 0:4] tag 1 periodic>, #scl.transfer<recv 0 peer [-1] box [0:1, 0:2, 0:2, 0:4] tag 0 periodic>, #scl.transfer<recv 1 peer [-1] box [0:1, 0:2, 0:2, 0:4] tag 1 periodic>]
// UNROLL: scl.halo_exchange {{.*}}periodic>]
// UNROLL-NOT: scl.halo_exchange
// UNROLL: return

// -----

// Without a split over several ranks: one class for rank 0, no mesh.
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = sc.relu %a : tensor<4xf32>
  return %r : tensor<4xf32>
}
// CHECK: func.func private @main(tensor<4xf32>) -> tensor<4xf32> attributes {scl.rank_classes = [@main_all]}
// CHECK: func.func @main_all(%[[A:.*]]: memref<4xf32>) -> memref<4xf32> attributes {scl.ranks = array<i32: 0>}
// CHECK:   scl.kernel "Unary" mode "relu" ins(%[[A]] : memref<4xf32>)
