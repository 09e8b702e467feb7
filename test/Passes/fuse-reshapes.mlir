// sc-fuse across reshapes: a group whose output only a reshaping Copy
// reads merges with the group that reads the copy, and the kernel runs
// over the common refinement of their shapes, reading views of its
// temporaries (copies of small inputs) and writing its output through a
// view. Refused when the output or an input the kernel would view is
// returned, when a full-size input is not a temporary, or when the shapes'
// dim boundaries do not nest; those groups
// fuse apart, as before. Numerically, a group norm whose normalised rows,
// affine epilogue, SiLU and residual add are one kernel on 3 uneven ranks
// matches the unfused single-rank reference.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc-opt -sc-fuse %t/merge.mlir | FileCheck %s --check-prefix=MERGE
// RUN: shardc-opt -sc-fuse %t/merge.mlir | shardc-opt | FileCheck %s --check-prefix=MERGE
// RUN: shardc-opt -sc-fuse %t/apart.mlir | FileCheck %s --check-prefix=APART --implicit-check-not=scl.view
// RUN: shardc %t/model.mlir -O3 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: shardc %t/model.mlir -O3 -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --random-inputs --seed 7 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/returned.mlir -O3 --emit=kernels | FileCheck %s --check-prefix=RETURNED
// RUN: shardc %t/returned.mlir -O3 -o %t/returned.shardbin
// RUN: shard-run %t/returned.shardbin --random-inputs --seed 8 --check | FileCheck %s --check-prefix=RETNUM

//--- merge.mlir
sc.mesh @mesh ["x"=2]
// (x - m) * r on (groups, elements), reshaped to (N, C, W), times a
// per-channel gamma plus a full-size %e, then relu. The temporaries %x and
// %e are viewed on (4, 2, 3); the small inputs %m, %r and %g are copied.
func.func @class0(%m: memref<4x1xf32>, %r: memref<4x1xf32>, %g: memref<8x1xf32>) -> memref<3x8xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %x = memref.alloc() : memref<4x6xf32>
  scl.kernel "Fill" outs(%x : memref<4x6xf32>) {floats = array<f64: 3.0>}
  %e = memref.alloc() : memref<1x8x3xf32>
  scl.kernel "Fill" outs(%e : memref<1x8x3xf32>) {floats = array<f64: 2.0>}
  %d = memref.alloc() : memref<4x6xf32>
  scl.kernel "Binary" mode "sub" ins(%x, %m : memref<4x6xf32>, memref<4x1xf32>) outs(%d : memref<4x6xf32>)
  %n = memref.alloc() : memref<4x6xf32>
  scl.kernel "Binary" mode "mul" ins(%d, %r : memref<4x6xf32>, memref<4x1xf32>) outs(%n : memref<4x6xf32>)
  %v = memref.alloc() : memref<1x8x3xf32>
  scl.kernel "Copy" ins(%n : memref<4x6xf32>) outs(%v : memref<1x8x3xf32>)
  %s = memref.alloc() : memref<1x8x3xf32>
  scl.kernel "Binary" mode "mul" ins(%v, %g : memref<1x8x3xf32>, memref<8x1xf32>) outs(%s : memref<1x8x3xf32>)
  %a = memref.alloc() : memref<1x8x3xf32>
  scl.kernel "Binary" mode "add" ins(%s, %e : memref<1x8x3xf32>, memref<1x8x3xf32>) outs(%a : memref<1x8x3xf32>)
  %y = memref.alloc() : memref<1x8x3xf32>
  scl.kernel "Unary" mode "relu" ins(%a : memref<1x8x3xf32>) outs(%y : memref<1x8x3xf32>)
  %t = memref.alloc() : memref<3x8xf32>
  scl.kernel "Permute" ins(%y : memref<1x8x3xf32>) outs(%t : memref<3x8xf32>) {ints = array<i64: 0, 2, 1>}
  return %t : memref<3x8xf32>
}
// MERGE-LABEL: func.func @class0
// MERGE: scl.kernel "Fill" outs(%[[XB:[a-z0-9_]+]] : memref<4x6xf32>)
// MERGE: scl.kernel "Fill" outs(%[[EB:[a-z0-9_]+]] : memref<1x8x3xf32>)
// MERGE-NEXT: %[[Y:.*]] = memref.alloc() : memref<1x8x3xf32>
// MERGE-NEXT: %[[X:.*]] = scl.view %[[XB]] : memref<4x6xf32> to memref<4x2x3xf32>
// MERGE-NEXT: %[[M:.*]] = memref.alloc() : memref<4x1x1xf32>
// MERGE-NEXT: scl.kernel "Copy" ins(%arg0 : memref<4x1xf32>) outs(%[[M]] : memref<4x1x1xf32>)
// MERGE-NEXT: %[[R:.*]] = memref.alloc() : memref<4x1x1xf32>
// MERGE-NEXT: scl.kernel "Copy" ins(%arg1 : memref<4x1xf32>) outs(%[[R]] : memref<4x1x1xf32>)
// MERGE-NEXT: %[[G:.*]] = memref.alloc() : memref<4x2x1xf32>
// MERGE-NEXT: scl.kernel "Copy" ins(%arg2 : memref<8x1xf32>) outs(%[[G]] : memref<4x2x1xf32>)
// MERGE-NEXT: %[[E:.*]] = scl.view %[[EB]] : memref<1x8x3xf32> to memref<4x2x3xf32>
// MERGE-NEXT: %[[OUT:.*]] = scl.view %[[Y]] : memref<1x8x3xf32> to memref<4x2x3xf32>
// MERGE-NEXT: scl.fused_elementwise ins(%[[X]], %[[M]], %[[R]], %[[G]], %[[E]] : {{.*}}) outs(%[[OUT]] : memref<4x2x3xf32>) {
// MERGE: scl.scalar "sub"
// MERGE-NEXT: scl.scalar "mul"
// MERGE-NEXT: scl.scalar "mul"
// MERGE-NEXT: scl.scalar "add"
// MERGE-NEXT: scl.scalar "relu"
// MERGE-NOT: scl.kernel "Copy"
// MERGE: scl.kernel "Permute" ins(%[[Y]] :

//--- apart.mlir
sc.mesh @mesh ["x"=2]
// @returned: the merged kernel would write the returned buffer through a
// view. @input: the full-size %x would have to be copied into the merged
// shape. @nest: 2x3 and 3x2 cut 6 elements at 3 and at 2. Each fuses the
// two groups apart and keeps the reshaping copy.
func.func @returned(%x: memref<4x6xf32>, %m: memref<4x1xf32>) -> memref<1x8x3xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %e = memref.alloc() : memref<4x6xf32>
  scl.kernel "Unary" mode "exp" ins(%x : memref<4x6xf32>) outs(%e : memref<4x6xf32>)
  %d = memref.alloc() : memref<4x6xf32>
  scl.kernel "Binary" mode "sub" ins(%e, %m : memref<4x6xf32>, memref<4x1xf32>) outs(%d : memref<4x6xf32>)
  %v = memref.alloc() : memref<1x8x3xf32>
  scl.kernel "Copy" ins(%d : memref<4x6xf32>) outs(%v : memref<1x8x3xf32>)
  %y = memref.alloc() : memref<1x8x3xf32>
  scl.kernel "Unary" mode "relu" ins(%v : memref<1x8x3xf32>) outs(%y : memref<1x8x3xf32>)
  %z = memref.alloc() : memref<1x8x3xf32>
  scl.kernel "Unary" mode "neg" ins(%y : memref<1x8x3xf32>) outs(%z : memref<1x8x3xf32>)
  return %z : memref<1x8x3xf32>
}
// APART-LABEL: func.func @returned
// APART: scl.fused_elementwise ins(%arg0, %arg1 : {{.*}}) outs(%[[D:.*]] : memref<4x6xf32>)
// APART: scl.kernel "Copy" ins(%[[D]] : memref<4x6xf32>) outs(%[[V:.*]] : memref<1x8x3xf32>)
// APART: scl.fused_elementwise ins(%[[V]] : memref<1x8x3xf32>) outs(%{{.*}} : memref<1x8x3xf32>)
func.func @input(%x: memref<1x8x3xf32>, %m: memref<4x1xf32>) -> memref<3x8xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %e = memref.alloc() : memref<4x6xf32>
  scl.kernel "Fill" outs(%e : memref<4x6xf32>) {floats = array<f64: 1.0>}
  %d = memref.alloc() : memref<4x6xf32>
  scl.kernel "Binary" mode "sub" ins(%e, %m : memref<4x6xf32>, memref<4x1xf32>) outs(%d : memref<4x6xf32>)
  %n = memref.alloc() : memref<4x6xf32>
  scl.kernel "Unary" mode "exp" ins(%d : memref<4x6xf32>) outs(%n : memref<4x6xf32>)
  %v = memref.alloc() : memref<1x8x3xf32>
  scl.kernel "Copy" ins(%n : memref<4x6xf32>) outs(%v : memref<1x8x3xf32>)
  %a = memref.alloc() : memref<1x8x3xf32>
  scl.kernel "Binary" mode "add" ins(%v, %x : memref<1x8x3xf32>, memref<1x8x3xf32>) outs(%a : memref<1x8x3xf32>)
  %y = memref.alloc() : memref<1x8x3xf32>
  scl.kernel "Unary" mode "relu" ins(%a : memref<1x8x3xf32>) outs(%y : memref<1x8x3xf32>)
  %t = memref.alloc() : memref<3x8xf32>
  scl.kernel "Permute" ins(%y : memref<1x8x3xf32>) outs(%t : memref<3x8xf32>) {ints = array<i64: 0, 2, 1>}
  return %t : memref<3x8xf32>
}
// APART-LABEL: func.func @input
// APART: scl.fused_elementwise ins(%{{.*}}, %arg1 : {{.*}}) outs(%[[N:.*]] : memref<4x6xf32>)
// APART: scl.kernel "Copy" ins(%[[N]] : memref<4x6xf32>) outs(%[[V:.*]] : memref<1x8x3xf32>)
// APART: scl.fused_elementwise ins(%[[V]], %arg0 : {{.*}}) outs(%{{.*}} : memref<1x8x3xf32>)
func.func @nest(%x: memref<2x3xf32>) -> memref<2x3xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %e = memref.alloc() : memref<2x3xf32>
  scl.kernel "Unary" mode "exp" ins(%x : memref<2x3xf32>) outs(%e : memref<2x3xf32>)
  %n = memref.alloc() : memref<2x3xf32>
  scl.kernel "Unary" mode "neg" ins(%e : memref<2x3xf32>) outs(%n : memref<2x3xf32>)
  %v = memref.alloc() : memref<3x2xf32>
  scl.kernel "Copy" ins(%n : memref<2x3xf32>) outs(%v : memref<3x2xf32>)
  %a = memref.alloc() : memref<3x2xf32>
  scl.kernel "Unary" mode "abs" ins(%v : memref<3x2xf32>) outs(%a : memref<3x2xf32>)
  %y = memref.alloc() : memref<3x2xf32>
  scl.kernel "Unary" mode "relu" ins(%a : memref<3x2xf32>) outs(%y : memref<3x2xf32>)
  %t = memref.alloc() : memref<2x3xf32>
  scl.kernel "Permute" ins(%y : memref<3x2xf32>) outs(%t : memref<2x3xf32>) {ints = array<i64: 1, 0>}
  return %t : memref<2x3xf32>
}
// APART-LABEL: func.func @nest
// APART: scl.fused_elementwise ins(%arg0 : memref<2x3xf32>) outs(%[[N:.*]] : memref<2x3xf32>)
// APART: scl.kernel "Copy" ins(%[[N]] : memref<2x3xf32>) outs(%[[V:.*]] : memref<3x2xf32>)
// APART: scl.fused_elementwise ins(%[[V]] : memref<3x2xf32>) outs(%{{.*}} : memref<3x2xf32>)

//--- returned.mlir
sc.mesh @mesh ["x"=3]
// The residual %c is also returned: a merged kernel would read it through
// a view on the refinement, and a returned buffer may be bound to the
// caller's memory, so the groups stay apart and the program compiles.
func.func @main(%x: tensor<2x4x10x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>}, %w: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<2x4x6x10xf32>, tensor<2x4x10x6xf32>) {
  %c = sc.exp %x : tensor<2x4x10x6xf32>
  %n = sc.group_norm %c, %w, %b {num_groups = 2} : (tensor<2x4x10x6xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x10x6xf32>
  %s = sc.silu %n : tensor<2x4x10x6xf32>
  %r = sc.add %s, %c : (tensor<2x4x10x6xf32>, tensor<2x4x10x6xf32>) -> tensor<2x4x10x6xf32>
  %t = sc.transpose %r {dim0 = 2 : i64, dim1 = 3 : i64} : (tensor<2x4x10x6xf32>) -> tensor<2x4x6x10xf32>
  return %t, %c : tensor<2x4x6x10xf32>, tensor<2x4x10x6xf32>
}
// RETURNED: rank class 'class0'
// RETURNED: ElementwiseFused "sub mul" (
// RETURNED: ElementwiseFused "mul add silu add" ({{.*}}) -> {{.*}} // sc.add
// RETNUM: check result0: {{.*}}: ok
// RETNUM: check result1: {{.*}}: ok

//--- model.mlir
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<2x4x10x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>}, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4x6x10xf32> {
  %c = sc.exp %x : tensor<2x4x10x6xf32>
  %n = sc.group_norm %c, %w, %b {num_groups = 2} : (tensor<2x4x10x6xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x10x6xf32>
  %s = sc.silu %n : tensor<2x4x10x6xf32>
  %r = sc.add %s, %c : (tensor<2x4x10x6xf32>, tensor<2x4x10x6xf32>) -> tensor<2x4x10x6xf32>
  %t = sc.transpose %r {dim0 = 2 : i64, dim1 = 3 : i64} : (tensor<2x4x10x6xf32>) -> tensor<2x4x6x10xf32>
  return %t : tensor<2x4x6x10xf32>
}
// The normalised rows, the affine epilogue, silu and the residual add: one
// kernel on every rank class.
// KERNELS: rank class 'class0'
// KERNELS-NOT: ElementwiseFused "sub mul" (
// KERNELS: ElementwiseFused "sub mul mul add silu add" ({{.*}}) -> {{.*}} // sc.add
// KERNELS: rank class 'class1'
// KERNELS: ElementwiseFused "sub mul mul add silu add" ({{.*}}) -> {{.*}} // sc.add
// KERNELS: rank class 'class2'
// KERNELS: ElementwiseFused "sub mul mul add silu add" ({{.*}}) -> {{.*}} // sc.add
// NUM: check result0: {{.*}}: ok
