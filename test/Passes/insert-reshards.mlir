// RUN: shardc-opt %s -split-input-file -sc-propagate-sharding -sc-insert-reshards | FileCheck %s

// Misaligned operands of an elementwise op: the smaller one is resharded,
// never paired silently.
sc.mesh @mesh ["x"=2]
// CHECK-LABEL: func.func @misaligned
func.func @misaligned(%a: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[6, 2]]>},
                      %b: tensor<8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}]>}) -> tensor<4x8xf32> {
  // CHECK: %[[R:.*]] = sc.reshard %arg1 : tensor<8xf32> to #sc.sharding<@mesh, [{"x"}[6, 2]]>
  // CHECK: sc.add %arg0, %[[R]]
  %y = sc.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A partial result is resolved where it is returned, to the declared
// sharding.
sc.mesh @mesh ["x"=4]
// CHECK-LABEL: func.func @resolve
func.func @resolve(%x: tensor<2x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>})
    -> (tensor<2xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}]>}) {
  // CHECK: %[[S:.*]] = sc.sum
  // CHECK: %[[R:.*]] = sc.reshard %[[S]] : tensor<2xf32> to #sc.sharding<@mesh, [{"x"}]>
  // CHECK: return %[[R]]
  %s = sc.sum %x {dims = array<i64: 1>} : (tensor<2x8xf32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

// Affine parameters of a layer norm over a split dim are split like it
// (here the user pinned the parameter replicated, so it is resharded;
// unannotated, backward propagation splits the argument instead);
// concat gathers its concatenated dim.
sc.mesh @mesh ["x"=2]
// CHECK-LABEL: func.func @params
func.func @params(%x: tensor<2x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>},
                  %g: tensor<8xf32> {sc.sharding = #sc.sharding<@mesh, [{}]>}) -> tensor<2x16xf32> {
  // CHECK: %[[G:.*]] = sc.reshard %arg1 : tensor<8xf32> to #sc.sharding<@mesh, [{"x"}]>
  // CHECK: sc.layer_norm %arg0, %[[G]]
  %n = sc.layer_norm %x, %g {normalized_shape = array<i64: 8>} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  // CHECK: %[[N:.*]] = sc.reshard %{{.*}} : tensor<2x8xf32> to #sc.sharding<@mesh, [{}, {}]>
  // CHECK: sc.concat %[[N]], %[[N]]
  %c = sc.concat %n, %n {dim = 1} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x16xf32>
  return %c : tensor<2x16xf32>
}

// -----

// Attention over a split key sequence keeps keys and values split (a ring).
sc.mesh @mesh ["x"=2]
// CHECK-LABEL: func.func @ring
func.func @ring(%q: tensor<1x4x2xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>},
                %k: tensor<1x4x2xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>},
                %v: tensor<1x4x2xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>}) -> tensor<1x4x2xf32> {
  // CHECK-NOT: sc.reshard
  // CHECK: sc.scaled_dot_product_attention %arg0, %arg1, %arg2 {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>}
  %y = sc.scaled_dot_product_attention %q, %k, %v : (tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  return %y : tensor<1x4x2xf32>
}

// -----

// The keys lead the key sequence's split: when their batch dim takes its
// axis (the result is split there) and the values broadcast that dim, the
// values must not keep the sequence split either: both arrive whole along
// it (no ring), never split on the values alone.
sc.mesh @mesh ["x"=2]
// CHECK-LABEL: func.func @keys_lose_sequence_axis
func.func @keys_lose_sequence_axis(%q: tensor<2x4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}, {}]>},
                                   %k: tensor<2x6x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>},
                                   %v: tensor<6x5xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}) -> tensor<2x4x5xf32> {
  // CHECK-DAG: %[[K:.*]] = sc.reshard %arg1 : tensor<2x6x8xf32> to #sc.sharding<@mesh, [{"x"}, {}, {}]>
  // CHECK-DAG: %[[V:.*]] = sc.reshard %arg2 : tensor<6x5xf32> to #sc.sharding<@mesh, [{}, {}]>
  // CHECK: sc.scaled_dot_product_attention %arg0, %[[K]], %[[V]] {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}, {}]>}
  %y = sc.scaled_dot_product_attention %q, %k, %v : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<6x5xf32>) -> tensor<2x4x5xf32>
  return %y : tensor<2x4x5xf32>
}

// -----

// The larger values' split of the key sequence (over x) is chosen first,
// but the keys lose x to the result's batch split; they keep their own
// split over y instead, and the values follow it: only the values move.
sc.mesh @mesh ["x"=2, "y"=2]
// CHECK-LABEL: func.func @keys_keep_own_sequence_split
func.func @keys_keep_own_sequence_split(%q: tensor<2x4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}, {}]>},
                                        %k: tensor<2x6x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {"y"}, {}]>},
                                        %v: tensor<2x6x64xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>}) -> (tensor<2x4x64xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}, {}]>}) {
  // CHECK: %[[V:.*]] = sc.reshard %arg2 : tensor<2x6x64xf32> to #sc.sharding<@mesh, [{"x"}, {"y"}, {}]>
  // CHECK-NEXT: sc.scaled_dot_product_attention %arg0, %arg1, %[[V]]
  %y = sc.scaled_dot_product_attention %q, %k, %v : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x64xf32>) -> tensor<2x4x64xf32>
  return %y : tensor<2x4x64xf32>
}

// -----

// A pinned result its op cannot produce (a strided slice split along the
// dim it cuts): the slice computes whole, and one reshard after it makes
// the pinned layout for every use.
sc.mesh @m ["x"=2]
// CHECK-LABEL: func.func @unproducible_pin
func.func @unproducible_pin(%x: tensor<8x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  // CHECK: %[[S:.*]] = sc.slice %arg0 {{.*}}sc.sharding = #sc.sharding<@m, [{}, {}]>
  // CHECK-NEXT: %[[R:.*]] = sc.reshard %[[S]] : tensor<3x4xf32> to #sc.sharding<@m, [{"x"}[1, 2], {}]>
  // CHECK-NEXT: sc.neg %[[R]]
  // CHECK-NEXT: sc.exp %[[R]]
  %s = sc.slice %x {start = array<i64: 1, 0>, end = array<i64: 7, 4>, step = array<i64: 2, 1>, sc.sharding = #sc.sharding<@m, [{"x"}[1, 2], {}]>} : (tensor<8x4xf32>) -> tensor<3x4xf32>
  %n = sc.neg %s : tensor<3x4xf32>
  %e = sc.exp %s : tensor<3x4xf32>
  return %n, %e : tensor<3x4xf32>, tensor<3x4xf32>
}
