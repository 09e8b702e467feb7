// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// Meshes and #sc.sharding in every form: replicated, canonical split, explicit
// (uneven, zero-size) extents, multi-axis dims, partial sum/max/mean; attached
// to function arguments, function results and op results; sc.sharding_constraint
// and sc.reshard.

// 1-D mesh, replicated sharding on an argument and a result.
module {
  sc.mesh @mesh ["x"=4]
  func.func @replicated(%arg0: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}]>}) -> (tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}]>}) {
    return %arg0 : tensor<4x8xf32>
  }
}
// CHECK: sc.mesh @mesh ["x"=4]
// CHECK-LABEL: func.func @replicated
// CHECK-SAME: (%{{[^ ]*}}: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}]>})
// CHECK-SAME: -> (tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}]>})
// CHECK: return %{{.*}} : tensor<4x8xf32>

// -----

// Canonical (numpy.array_split) split of dim 2 over axis x; a mesh axis of size 1.
module {
  sc.mesh @mesh ["x"=4]
  sc.mesh @single ["s"=1]
  func.func @canonical(%arg0: tensor<2x16x128x128xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
                       %arg1: tensor<8xf32> {sc.sharding = #sc.sharding<@single, [{"s"}]>})
      -> (tensor<2x16x128x128xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>}) {
    return %arg0 : tensor<2x16x128x128xf32>
  }
}
// CHECK: sc.mesh @mesh ["x"=4]
// CHECK: sc.mesh @single ["s"=1]
// CHECK-LABEL: func.func @canonical
// CHECK-SAME: (%{{[^ ]*}}: tensor<2x16x128x128xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
// CHECK-SAME: %{{[^ ]*}}: tensor<8xf32> {sc.sharding = #sc.sharding<@single, [{"s"}]>})
// CHECK-SAME: -> (tensor<2x16x128x128xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>})

// -----

// Canonical split of a dim smaller than the axis: array_split gives [1, 1, 1, 0].
module {
  sc.mesh @mesh ["x"=4]
  func.func @canonical_small_dim(%arg0: tensor<3x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}) -> tensor<3x8xf32> {
    return %arg0 : tensor<3x8xf32>
  }
}
// CHECK-LABEL: func.func @canonical_small_dim
// CHECK-SAME: (%{{[^ ]*}}: tensor<3x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}) -> tensor<3x8xf32>

// -----

// 2-D mesh: one axis per dim, both orders of a two-axis dim.
module {
  sc.mesh @mesh2d ["data"=2, "domain"=4]
  func.func @mesh_2d(%arg0: tensor<2x16x128x64xf32> {sc.sharding = #sc.sharding<@mesh2d, [{"data"}, {}, {"domain"}, {}]>},
                    %arg1: tensor<2x16x128x64xf32> {sc.sharding = #sc.sharding<@mesh2d, [{}, {}, {"data", "domain"}, {}]>},
                    %arg2: tensor<2x16x128x64xf32> {sc.sharding = #sc.sharding<@mesh2d, [{}, {}, {}, {"domain", "data"}]>})
      -> tensor<2x16x128x64xf32> {
    return %arg0 : tensor<2x16x128x64xf32>
  }
}
// CHECK: sc.mesh @mesh2d ["data"=2, "domain"=4]
// CHECK-LABEL: func.func @mesh_2d
// CHECK-SAME: (%{{[^ ]*}}: tensor<2x16x128x64xf32> {sc.sharding = #sc.sharding<@mesh2d, [{"data"}, {}, {"domain"}, {}]>},
// CHECK-SAME: %{{[^ ]*}}: tensor<2x16x128x64xf32> {sc.sharding = #sc.sharding<@mesh2d, [{}, {}, {"data", "domain"}, {}]>},
// CHECK-SAME: %{{[^ ]*}}: tensor<2x16x128x64xf32> {sc.sharding = #sc.sharding<@mesh2d, [{}, {}, {}, {"domain", "data"}]>})
// CHECK-SAME: -> tensor<2x16x128x64xf32>

// -----

// Explicit uneven extents (300 + 300 + 212 + 212 = 1024).
module {
  sc.mesh @mesh ["x"=4]
  func.func @uneven(%arg0: tensor<2x16x1024x64xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[300, 300, 212, 212], {}]>})
      -> (tensor<2x16x1024x64xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[300, 300, 212, 212], {}]>}) {
    return %arg0 : tensor<2x16x1024x64xf32>
  }
}
// CHECK-LABEL: func.func @uneven
// CHECK-SAME: (%{{[^ ]*}}: tensor<2x16x1024x64xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[300, 300, 212, 212], {}]>})
// CHECK-SAME: -> (tensor<2x16x1024x64xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[300, 300, 212, 212], {}]>})

// -----

// Explicit extents with zero-size shards.
module {
  sc.mesh @mesh ["x"=4]
  func.func @zero_size_shards(%arg0: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[0, 5, 0, 3]]>},
                              %arg1: tensor<8x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[8, 0, 0, 0], {}]>})
      -> tensor<4x8xf32> {
    return %arg0 : tensor<4x8xf32>
  }
}
// CHECK-LABEL: func.func @zero_size_shards
// CHECK-SAME: (%{{[^ ]*}}: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[0, 5, 0, 3]]>},
// CHECK-SAME: %{{[^ ]*}}: tensor<8x4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[8, 0, 0, 0], {}]>})

// -----

// A dim split over two axes with explicit extents: 2 * 4 = 8 extents, 7 * 16 + 32 = 144.
module {
  sc.mesh @mesh2d ["data"=2, "domain"=4]
  func.func @multi_axis_extents(%arg0: tensor<1x144xf32> {sc.sharding = #sc.sharding<@mesh2d, [{}, {"data", "domain"}[16, 16, 16, 16, 16, 16, 16, 32]]>}) -> tensor<1x144xf32> {
    return %arg0 : tensor<1x144xf32>
  }
}
// CHECK-LABEL: func.func @multi_axis_extents
// CHECK-SAME: (%{{[^ ]*}}: tensor<1x144xf32> {sc.sharding = #sc.sharding<@mesh2d, [{}, {"data", "domain"}[16, 16, 16, 16, 16, 16, 16, 32]]>})

// -----

// Partial sum / max / mean.
module {
  sc.mesh @mesh ["x"=4]
  sc.mesh @mesh2d ["data"=2, "domain"=4]
  func.func @partial(%arg0: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh2d, [{}, {"domain"}], partial sum {"data"}>},
                     %arg1: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}], partial max {"x"}>},
                     %arg2: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh2d, [{"data"}, {}], partial mean {"domain"}>},
                     %arg3: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh2d, [{}, {}], partial sum {"data", "domain"}>})
      -> (tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh2d, [{}, {"domain"}], partial sum {"data"}>}) {
    return %arg0 : tensor<4x8xf32>
  }
}
// CHECK-LABEL: func.func @partial
// CHECK-SAME: (%{{[^ ]*}}: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh2d, [{}, {"domain"}], partial sum {"data"}>},
// CHECK-SAME: %{{[^ ]*}}: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}], partial max {"x"}>},
// CHECK-SAME: %{{[^ ]*}}: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh2d, [{"data"}, {}], partial mean {"domain"}>},
// CHECK-SAME: %{{[^ ]*}}: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh2d, [{}, {}], partial sum {"data", "domain"}>})
// CHECK-SAME: -> (tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh2d, [{}, {"domain"}], partial sum {"data"}>})

// -----

// Sharding on op results (discardable attribute in the op's attr-dict), both
// for ops without attributes and next to an op's own attributes.
module {
  sc.mesh @mesh ["x"=4]
  func.func @op_results(%arg0: tensor<2x16x128x128xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
                        %arg1: tensor<8x16x3x3xf32>) -> tensor<2x8x128x128xf32> {
    %0 = sc.relu %arg0 {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>} : tensor<2x16x128x128xf32>
    %1 = sc.add %0, %arg0 {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[32, 32, 32, 32], {}]>} : (tensor<2x16x128x128xf32>, tensor<2x16x128x128xf32>) -> tensor<2x16x128x128xf32>
    %2 = sc.conv %1, %arg1 {padding = array<i64: 1, 1>, sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>} : (tensor<2x16x128x128xf32>, tensor<8x16x3x3xf32>) -> tensor<2x8x128x128xf32>
    return %2 : tensor<2x8x128x128xf32>
  }
}
// CHECK-LABEL: func.func @op_results
// CHECK: sc.relu %{{.*}} {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>} : tensor<2x16x128x128xf32>
// CHECK: sc.add %{{.*}}, %{{.*}} {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[32, 32, 32, 32], {}]>} : (tensor<2x16x128x128xf32>, tensor<2x16x128x128xf32>) -> tensor<2x16x128x128xf32>
// CHECK: sc.conv %{{.*}}, %{{.*}} {padding = array<i64: 1, 1>, sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>} : (tensor<2x16x128x128xf32>, tensor<8x16x3x3xf32>) -> tensor<2x8x128x128xf32>

// -----

// Contraction over a sharded dim gives a partial-sum result; reshard turns it
// into a replicated value.
module {
  sc.mesh @mesh ["x"=4]
  func.func @partial_result(%arg0: tensor<4x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>},
                            %arg1: tensor<8x16xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>})
      -> (tensor<4x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}]>}) {
    %0 = sc.matmul %arg0, %arg1 {sc.sharding = #sc.sharding<@mesh, [{}, {}], partial sum {"x"}>} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %1 = sc.reshard %0 : tensor<4x16xf32> to #sc.sharding<@mesh, [{}, {}]>
    return %1 : tensor<4x16xf32>
  }
}
// CHECK-LABEL: func.func @partial_result
// CHECK: sc.matmul %{{.*}}, %{{.*}} {sc.sharding = #sc.sharding<@mesh, [{}, {}], partial sum {"x"}>} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK: sc.reshard %{{.*}} : tensor<4x16xf32> to #sc.sharding<@mesh, [{}, {}]>

// -----

// A rank-0 value: empty dim list, with and without partial.
module {
  sc.mesh @mesh ["x"=4]
  func.func @rank0(%arg0: tensor<16x8xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<f32> {sc.sharding = #sc.sharding<@mesh, []>}) {
    %0 = sc.sum %arg0 {sc.sharding = #sc.sharding<@mesh, [], partial sum {"x"}>} : (tensor<16x8xf32>) -> tensor<f32>
    %1 = sc.reshard %0 : tensor<f32> to #sc.sharding<@mesh, []>
    return %1 : tensor<f32>
  }
}
// CHECK-LABEL: func.func @rank0
// CHECK-SAME: -> (tensor<f32> {sc.sharding = #sc.sharding<@mesh, []>})
// CHECK: sc.sum %{{.*}} {sc.sharding = #sc.sharding<@mesh, [], partial sum {"x"}>} : (tensor<16x8xf32>) -> tensor<f32>
// CHECK: sc.reshard %{{.*}} : tensor<f32> to #sc.sharding<@mesh, []>

// -----

// sharding_constraint and reshard, canonical and explicit targets.
module {
  sc.mesh @mesh ["x"=4]
  func.func @constraint_reshard(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = sc.sharding_constraint %arg0 : tensor<4x8xf32> to #sc.sharding<@mesh, [{}, {"x"}]>
    %1 = sc.reshard %0 : tensor<4x8xf32> to #sc.sharding<@mesh, [{"x"}, {}]>
    %2 = sc.reshard %1 : tensor<4x8xf32> to #sc.sharding<@mesh, [{"x"}[2, 2, 0, 0], {}]>
    %3 = sc.reshard %2 : tensor<4x8xf32> to #sc.sharding<@mesh, [{}, {"x"}[1, 3, 3, 1]]>
    %4 = sc.sharding_constraint %3 : tensor<4x8xf32> to #sc.sharding<@mesh, [{}, {}]>
    return %4 : tensor<4x8xf32>
  }
}
// CHECK-LABEL: func.func @constraint_reshard
// CHECK: sc.sharding_constraint %{{.*}} : tensor<4x8xf32> to #sc.sharding<@mesh, [{}, {"x"}]>
// CHECK: sc.reshard %{{.*}} : tensor<4x8xf32> to #sc.sharding<@mesh, [{"x"}, {}]>
// CHECK: sc.reshard %{{.*}} : tensor<4x8xf32> to #sc.sharding<@mesh, [{"x"}[2, 2, 0, 0], {}]>
// CHECK: sc.reshard %{{.*}} : tensor<4x8xf32> to #sc.sharding<@mesh, [{}, {"x"}[1, 3, 3, 1]]>
// CHECK: sc.sharding_constraint %{{.*}} : tensor<4x8xf32> to #sc.sharding<@mesh, [{}, {}]>

// -----

// reshard on a 2-D mesh: from a two-axis dim to one axis per dim, to explicit extents, to replicated.
module {
  sc.mesh @mesh2d ["data"=2, "domain"=4]
  func.func @reshard_2d(%arg0: tensor<8x16xf32> {sc.sharding = #sc.sharding<@mesh2d, [{"data", "domain"}, {}]>}) -> tensor<8x16xf32> {
    %0 = sc.reshard %arg0 : tensor<8x16xf32> to #sc.sharding<@mesh2d, [{"data"}, {"domain"}]>
    %1 = sc.reshard %0 : tensor<8x16xf32> to #sc.sharding<@mesh2d, [{}, {"data"}[4, 12]]>
    %2 = sc.reshard %1 : tensor<8x16xf32> to #sc.sharding<@mesh2d, [{}, {}]>
    return %2 : tensor<8x16xf32>
  }
}
// CHECK-LABEL: func.func @reshard_2d
// CHECK-SAME: (%{{[^ ]*}}: tensor<8x16xf32> {sc.sharding = #sc.sharding<@mesh2d, [{"data", "domain"}, {}]>})
// CHECK: sc.reshard %{{.*}} : tensor<8x16xf32> to #sc.sharding<@mesh2d, [{"data"}, {"domain"}]>
// CHECK: sc.reshard %{{.*}} : tensor<8x16xf32> to #sc.sharding<@mesh2d, [{}, {"data"}[4, 12]]>
// CHECK: sc.reshard %{{.*}} : tensor<8x16xf32> to #sc.sharding<@mesh2d, [{}, {}]>
