// sc-expand-norms: Norm (layer, group, batch) and Softmax kernels become
// reductions and elementwise kernels, each value two consumers read
// computed once per consumer, so sc-fuse makes a layer norm two fused
// reductions and two fused kernels. Malformed kernels stay for the runtime
// to report. shardc --target=cuda expands them (its backend has no native
// norm or softmax); the CPU target keeps them. Numerically, expanded
// (fused and not) layer, group and batch norms, softmax and log-softmax on
// 3 uneven ranks match the unpartitioned reference.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc-opt -sc-expand-norms %t/kernels.mlir | FileCheck %s --check-prefix=EXPAND
// RUN: shardc-opt -sc-expand-norms %t/kernels.mlir | shardc-opt | FileCheck %s --check-prefix=EXPAND
// RUN: shardc-opt -sc-expand-norms -sc-fuse=lone-kernels=true %t/kernels.mlir | FileCheck %s --check-prefix=FUSED
// RUN: shardc %t/model.mlir --target=cuda --emit=partitioned | FileCheck %s --check-prefix=CUDA --implicit-check-not='scl.kernel "Norm"' --implicit-check-not='scl.kernel "Softmax"' 
// RUN: shardc %t/model.mlir -O3 --emit=partitioned | FileCheck %s --check-prefix=CPU
// RUN: shardc-opt -sc-partition-pipeline -sc-expand-norms %t/model.mlir | shardc - --reference %t/model.mlir -o %t/plain.shardbin
// RUN: shard-run %t/plain.shardbin --random-inputs --seed 8 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc-opt -sc-partition-pipeline -sc-expand-norms -sc-fuse=lone-kernels=true -sc-reshape-views %t/model.mlir | shardc - --reference %t/model.mlir -o %t/fused.shardbin
// RUN: shard-run %t/fused.shardbin --random-inputs --seed 9 --check | FileCheck %s --check-prefix=NUM

//--- kernels.mlir
sc.mesh @mesh ["x"=2]
func.func @layer(%x: memref<4x8xf32>, %w: memref<8xf32>, %b: memref<8xf32>) -> memref<4x8xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %y = memref.alloc() : memref<4x8xf32>
  scl.kernel "Norm" mode "layer" ins(%x, %w, %b : memref<4x8xf32>, memref<8xf32>, memref<8xf32>) outs(%y : memref<4x8xf32>) {floats = array<f64: 1.0e-05>, ints = array<i64: 1, 1, 1>}
  return %y : memref<4x8xf32>
}
// EXPAND-LABEL: func.func @layer
// EXPAND: %[[M:.*]] = memref.alloc() : memref<4x1xf32>
// EXPAND-NEXT: scl.kernel "Reduce" mode "mean" ins(%arg0 : memref<4x8xf32>) outs(%[[M]] : memref<4x1xf32>) {ints = array<i64: 1>}
// EXPAND: scl.kernel "Binary" mode "sub" ins(%arg0, %[[M]] : memref<4x8xf32>, memref<4x1xf32>) outs(%[[C:.*]] : memref<4x8xf32>)
// EXPAND: scl.kernel "Binary" mode "mul" ins(%[[C]], %[[C]] : memref<4x8xf32>, memref<4x8xf32>) outs(%[[S:.*]] : memref<4x8xf32>)
// EXPAND: scl.kernel "Reduce" mode "mean" ins(%[[S]] : memref<4x8xf32>) outs(%[[V:.*]] : memref<4x1xf32>) {ints = array<i64: 1>}
// EXPAND: %[[E:.*]] = memref.alloc() : memref<f32>
// EXPAND-NEXT: scl.kernel "Fill" outs(%[[E]] : memref<f32>) {floats = array<f64: 1.000000e-05>}
// EXPAND: scl.kernel "Binary" mode "add" ins(%[[V]], %[[E]] : memref<4x1xf32>, memref<f32>) outs(%[[VE:.*]] : memref<4x1xf32>)
// EXPAND: scl.kernel "Unary" mode "rsqrt" ins(%[[VE]] : memref<4x1xf32>) outs(%[[R:.*]] : memref<4x1xf32>)
// A second x - mean for the epilogue.
// EXPAND: scl.kernel "Binary" mode "sub" ins(%arg0, %[[M]] : memref<4x8xf32>, memref<4x1xf32>) outs(%[[C2:.*]] : memref<4x8xf32>)
// EXPAND: scl.kernel "Binary" mode "mul" ins(%[[C2]], %[[R]] : memref<4x8xf32>, memref<4x1xf32>) outs(%[[N:.*]] : memref<4x8xf32>)
// EXPAND: scl.kernel "Binary" mode "mul" ins(%[[N]], %arg1 : memref<4x8xf32>, memref<8xf32>) outs(%[[NW:.*]] : memref<4x8xf32>)
// EXPAND: scl.kernel "Binary" mode "add" ins(%[[NW]], %arg2 : memref<4x8xf32>, memref<8xf32>) outs(%[[Y:.*]] : memref<4x8xf32>)
// EXPAND-NOT: scl.kernel
// EXPAND: return %[[Y]]

// FUSED-LABEL: func.func @layer
// FUSED: scl.fused_reduction "mean" dims [1] over [4, 8] ins(%arg0 : memref<4x8xf32>)
// FUSED: scl.fused_reduction "mean" dims [1] over [4, 8] ins(%arg0, %{{.*}} : memref<4x8xf32>, memref<4x1xf32>)
// FUSED: scl.scalar "sub"
// FUSED-NEXT: scl.scalar "mul"
// FUSED: scl.kernel "Fill"
// FUSED: scl.fused_elementwise
// FUSED: scl.scalar "rsqrt"
// FUSED: scl.fused_elementwise ins(%arg0, %{{.*}}, %{{.*}}, %arg1, %arg2 : memref<4x8xf32>, memref<4x1xf32>, memref<4x1xf32>, memref<8xf32>, memref<8xf32>)
// FUSED-NOT: scl.kernel
// FUSED: return

func.func @group(%x: memref<2x4x3xf32>) -> memref<2x4x3xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %y = memref.alloc() : memref<2x4x3xf32>
  scl.kernel "Norm" mode "group" ins(%x : memref<2x4x3xf32>) outs(%y : memref<2x4x3xf32>) {floats = array<f64: 1.0e-05>, ints = array<i64: 0, 0, 2>}
  return %y : memref<2x4x3xf32>
}
// Statistics per (n, group) of 2 channels x 3: rows of 6.
// EXPAND-LABEL: func.func @group
// EXPAND: scl.kernel "Copy" ins(%arg0 : memref<2x4x3xf32>) outs(%[[G:.*]] : memref<2x2x6xf32>)
// EXPAND: scl.kernel "Reduce" mode "mean" ins(%[[G]] : memref<2x2x6xf32>) outs({{.*}} : memref<2x2x1xf32>) {ints = array<i64: 2>}
// EXPAND: scl.kernel "Copy" ins({{.*}} : memref<2x2x6xf32>) outs(%[[B:.*]] : memref<2x4x3xf32>)
// EXPAND: scl.kernel "Copy" ins(%[[B]] : memref<2x4x3xf32>) outs(%[[Y:.*]] : memref<2x4x3xf32>)
// EXPAND: return %[[Y]]

func.func @batch(%x: memref<2x3x4xf32>, %m: memref<3xf32>, %v: memref<3xf32>, %w: memref<3xf32>) -> memref<2x3x4xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %y = memref.alloc() : memref<2x3x4xf32>
  scl.kernel "Norm" mode "batch" ins(%x, %m, %v, %w : memref<2x3x4xf32>, memref<3xf32>, memref<3xf32>, memref<3xf32>) outs(%y : memref<2x3x4xf32>) {floats = array<f64: 1.0e-03>, ints = array<i64: 1, 0, 0>}
  return %y : memref<2x3x4xf32>
}
// Running statistics and the weight read per channel, as (3, 1).
// EXPAND-LABEL: func.func @batch
// EXPAND: scl.kernel "Copy" ins(%arg1 : memref<3xf32>) outs(%[[M:.*]] : memref<3x1xf32>)
// EXPAND: scl.kernel "Copy" ins(%arg2 : memref<3xf32>) outs(%[[V:.*]] : memref<3x1xf32>)
// EXPAND: scl.kernel "Fill" outs(%{{.*}} : memref<f32>) {floats = array<f64: 1.000000e-03>}
// EXPAND: scl.kernel "Unary" mode "rsqrt"
// EXPAND: scl.kernel "Binary" mode "sub" ins(%arg0, %[[M]] : memref<2x3x4xf32>, memref<3x1xf32>)
// EXPAND: scl.kernel "Copy" ins(%arg3 : memref<3xf32>) outs(%[[W:.*]] : memref<3x1xf32>)
// EXPAND: scl.kernel "Binary" mode "mul" ins(%{{.*}}, %[[W]] : memref<2x3x4xf32>, memref<3x1xf32>)
// EXPAND: return

func.func @softmax(%x: memref<4x8xf32>) -> (memref<4x8xf32>, memref<4x8xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %y = memref.alloc() : memref<4x8xf32>
  scl.kernel "Softmax" ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {ints = array<i64: 1, 0>}
  %z = memref.alloc() : memref<4x8xf32>
  scl.kernel "Softmax" ins(%x : memref<4x8xf32>) outs(%z : memref<4x8xf32>) {ints = array<i64: 0, 1>}
  return %y, %z : memref<4x8xf32>, memref<4x8xf32>
}
// EXPAND-LABEL: func.func @softmax
// EXPAND: scl.kernel "Reduce" mode "amax" ins(%arg0 : memref<4x8xf32>) outs(%[[M:.*]] : memref<4x1xf32>) {ints = array<i64: 1>}
// EXPAND: scl.kernel "Unary" mode "exp"
// EXPAND: scl.kernel "Reduce" mode "sum" ins(%{{.*}} : memref<4x8xf32>) outs(%[[S:.*]] : memref<4x1xf32>) {ints = array<i64: 1>}
// EXPAND: scl.kernel "Binary" mode "sub" ins(%arg0, %[[M]]
// EXPAND: scl.kernel "Unary" mode "exp"
// EXPAND: scl.kernel "Binary" mode "div" ins(%{{.*}}, %[[S]] : memref<4x8xf32>, memref<4x1xf32>)
// Log-softmax over dim 0.
// EXPAND: scl.kernel "Reduce" mode "amax" ins(%arg0 : memref<4x8xf32>) outs(%[[M0:.*]] : memref<1x8xf32>) {ints = array<i64: 0>}
// EXPAND: scl.kernel "Unary" mode "log"
// EXPAND: scl.kernel "Binary" mode "sub" ins(%{{.*}}, %{{.*}} : memref<4x8xf32>, memref<1x8xf32>)
// EXPAND: return

func.func @malformed(%x: memref<4x8xf32>, %w: memref<3xf32>, %e: memref<4x0xf32>) -> memref<4x8xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %y = memref.alloc() : memref<4x8xf32>
  scl.kernel "Norm" mode "layer" ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {floats = array<f64: 1.0e-05>, ints = array<i64: 0, 0, 3>}
  %n = memref.alloc() : memref<4x8xf32>
  scl.kernel "Norm" mode "layer" ins(%x : memref<4x8xf32>) outs(%n : memref<4x8xf32>) {floats = array<f64: -1.0>, ints = array<i64: 0, 0, 1>}
  %g = memref.alloc() : memref<4x8xf32>
  scl.kernel "Norm" mode "group" ins(%x, %w : memref<4x8xf32>, memref<3xf32>) outs(%g : memref<4x8xf32>) {floats = array<f64: 1.0e-05>, ints = array<i64: 1, 0, 2>}
  %s = memref.alloc() : memref<4x0xf32>
  scl.kernel "Softmax" ins(%e : memref<4x0xf32>) outs(%s : memref<4x0xf32>) {ints = array<i64: 1, 0>}
  return %y : memref<4x8xf32>
}
// Normalising 3 dims of a rank-2 input, a negative eps, a weight of the
// wrong size: left for the runtime to reject; a softmax over an empty dim
// computes nothing and stays.
// EXPAND-LABEL: func.func @malformed
// EXPAND-NEXT: memref.alloc
// EXPAND-NEXT: scl.kernel "Norm" mode "layer"
// EXPAND-NEXT: memref.alloc
// EXPAND-NEXT: scl.kernel "Norm" mode "layer"
// EXPAND-NEXT: memref.alloc
// EXPAND-NEXT: scl.kernel "Norm" mode "group"
// EXPAND-NEXT: memref.alloc
// EXPAND-NEXT: scl.kernel "Softmax"
// EXPAND-NEXT: return

//--- model.mlir
// Rows split unevenly over 3 ranks; every statistic runs along dims each
// rank holds whole, so each stays a Norm or Softmax kernel when not
// expanded.
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<12x4x6xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}[5, 4, 3], {}, {}]>},
                %w: tensor<6xf32>, %b: tensor<6xf32>, %g: tensor<4xf32>,
                %m: tensor<4xf32>, %v: tensor<4xf32>)
    -> (tensor<12x4x6xf32>, tensor<12x4x6xf32>, tensor<12x4x6xf32>, tensor<12x4x6xf32>, tensor<12x4x6xf32>) {
  %ln = sc.layer_norm %x, %w, %b {normalized_shape = array<i64: 6>} : (tensor<12x4x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<12x4x6xf32>
  %t = sc.tanh %x : tensor<12x4x6xf32>
  %gn = sc.group_norm %t, %g, %g {num_groups = 2} : (tensor<12x4x6xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<12x4x6xf32>
  %v2 = sc.abs %v : tensor<4xf32>
  %bn = sc.batch_norm %x, %m, %v2, %g, %g {eps = 1.0e-03} : (tensor<12x4x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<12x4x6xf32>
  %sm = sc.softmax %x {dim = 2 : i64} : (tensor<12x4x6xf32>) -> tensor<12x4x6xf32>
  %lsm = sc.log_softmax %x {dim = 1 : i64} : (tensor<12x4x6xf32>) -> tensor<12x4x6xf32>
  return %ln, %gn, %bn, %sm, %lsm : tensor<12x4x6xf32>, tensor<12x4x6xf32>, tensor<12x4x6xf32>, tensor<12x4x6xf32>, tensor<12x4x6xf32>
}
// CUDA-LABEL: func.func @main_class0
// CUDA: scl.fused_reduction "mean"
// CUDA: scl.fused_reduction "amax"
// CUDA: scl.fused_reduction "sum"
// CUDA: return

// CPU-LABEL: func.func @main_class0
// CPU: scl.kernel "Norm" mode "layer"
// CPU: scl.kernel "Norm" mode "group"
// CPU: scl.kernel "Norm" mode "batch"
// CPU: scl.kernel "Softmax"
// CPU: scl.kernel "Softmax"

// NUM: 3 rank(s)
// NUM: check result0: max abs error {{.*}}: ok
// NUM: check result1: max abs error {{.*}}: ok
// NUM: check result2: max abs error {{.*}}: ok
// NUM: check result3: max abs error {{.*}}: ok
// NUM: check result4: max abs error {{.*}}: ok
