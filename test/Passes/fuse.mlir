// sc-fuse: chains of Unary/Binary/Copy kernels whose intermediate buffers
// nothing else touches become one scl.fused_elementwise; broadcast inputs
// (a norm's per-channel statistics) stay inputs. Buffers read twice,
// returned, or of another shape end a group. Numerically, a fused group
// norm + silu + residual + tanh on 3 uneven ranks matches the unfused
// single-rank reference.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc-opt -sc-fuse %t/epilogue.mlir | FileCheck %s --check-prefix=EPI
// RUN: shardc-opt -sc-fuse %t/epilogue.mlir | shardc-opt | FileCheck %s --check-prefix=EPI
// RUN: shardc-opt -sc-fuse %t/boundaries.mlir | FileCheck %s --check-prefix=BOUND
// RUN: shardc %t/model.mlir --fuse --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: shardc %t/model.mlir --fuse -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --random-inputs --seed 3 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/model.mlir -O3 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// --fuse=false turns fusion off at -O3 (the CPU target); --target=cuda,
// which runs these ops only as fused kernels, refuses it.
// RUN: shardc %t/model.mlir -O3 --fuse=false --emit=kernels | FileCheck %s --check-prefix=UNFUSED
// RUN: not shardc %t/model.mlir --target=cuda --fuse=false -o %t/x.shardbin 2>&1 | FileCheck %s --check-prefix=NOCUDA

//--- epilogue.mlir
sc.mesh @mesh ["x"=2]
func.func @class0(%x: memref<1x8x4xf32>, %mean: memref<1x8x1xf32>, %rstd: memref<1x8x1xf32>) -> memref<1x8x4xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %0 = memref.alloc() : memref<1x8x4xf32>
  scl.kernel "Binary" mode "sub" ins(%x, %mean : memref<1x8x4xf32>, memref<1x8x1xf32>) outs(%0 : memref<1x8x4xf32>)
  %1 = memref.alloc() : memref<1x8x4xf32>
  scl.kernel "Binary" mode "mul" ins(%0, %rstd : memref<1x8x4xf32>, memref<1x8x1xf32>) outs(%1 : memref<1x8x4xf32>)
  %c = memref.alloc() : memref<1x8x4xf32>
  scl.kernel "Copy" ins(%1 : memref<1x8x4xf32>) outs(%c : memref<1x8x4xf32>)
  %2 = memref.alloc() : memref<1x8x4xf32>
  scl.kernel "Unary" mode "silu" ins(%c : memref<1x8x4xf32>) outs(%2 : memref<1x8x4xf32>)
  %3 = memref.alloc() : memref<1x8x4xf32>
  scl.kernel "Binary" mode "add" ins(%2, %x : memref<1x8x4xf32>, memref<1x8x4xf32>) outs(%3 : memref<1x8x4xf32>)
  return %3 : memref<1x8x4xf32>
}
// EPI-LABEL: func.func @class0
// EPI-NEXT: %[[OUT:.*]] = memref.alloc() : memref<1x8x4xf32>
// EPI-NEXT: scl.fused_elementwise ins(%arg0, %arg1, %arg2 : memref<1x8x4xf32>, memref<1x8x1xf32>, memref<1x8x1xf32>) outs(%[[OUT]] : memref<1x8x4xf32>) {
// EPI-NEXT: ^bb0(%[[X:.*]]: f32, %[[M:.*]]: f32, %[[R:.*]]: f32):
// EPI-NEXT: %[[D:.*]] = scl.scalar "sub"(%[[X]], %[[M]]) : f32
// EPI-NEXT: %[[N:.*]] = scl.scalar "mul"(%[[D]], %[[R]]) : f32
// EPI-NEXT: %[[S:.*]] = scl.scalar "silu"(%[[N]]) : f32
// EPI-NEXT: %[[A:.*]] = scl.scalar "add"(%[[S]], %[[X]]) : f32
// EPI-NEXT: scl.yield %[[A]] : f32
// EPI-NEXT: }
// EPI-NEXT: return %[[OUT]]

//--- boundaries.mlir
sc.mesh @mesh ["x"=2]
// %0 is read by two kernels and %1 is returned, so both stay buffers (and
// inputs of the neg * relu group); %3 is returned too, so the add after it
// stays apart; the broadcast %b (4x1) cannot be an intermediate of a 4x4
// chain, so abs stays a kernel.
func.func @class0(%x: memref<4x4xf32>, %v: memref<4x1xf32>) -> (memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %0 = memref.alloc() : memref<4x4xf32>
  scl.kernel "Unary" mode "exp" ins(%x : memref<4x4xf32>) outs(%0 : memref<4x4xf32>)
  %1 = memref.alloc() : memref<4x4xf32>
  scl.kernel "Unary" mode "relu" ins(%0 : memref<4x4xf32>) outs(%1 : memref<4x4xf32>)
  %2 = memref.alloc() : memref<4x4xf32>
  scl.kernel "Unary" mode "neg" ins(%0 : memref<4x4xf32>) outs(%2 : memref<4x4xf32>)
  %3 = memref.alloc() : memref<4x4xf32>
  scl.kernel "Binary" mode "mul" ins(%1, %2 : memref<4x4xf32>, memref<4x4xf32>) outs(%3 : memref<4x4xf32>)
  %b = memref.alloc() : memref<4x1xf32>
  scl.kernel "Unary" mode "abs" ins(%v : memref<4x1xf32>) outs(%b : memref<4x1xf32>)
  %4 = memref.alloc() : memref<4x4xf32>
  scl.kernel "Binary" mode "add" ins(%3, %b : memref<4x4xf32>, memref<4x1xf32>) outs(%4 : memref<4x4xf32>)
  return %1, %3, %4 : memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>
}
// BOUND-LABEL: func.func @class0
// BOUND: scl.kernel "Unary" mode "exp" ins(%arg0 {{.*}}) outs(%[[E:[a-z0-9_]+]] :
// BOUND: scl.kernel "Unary" mode "relu" ins(%[[E]] {{.*}}) outs(%[[R:[a-z0-9_]+]] :
// BOUND: scl.fused_elementwise ins(%[[E]], %[[R]] : {{.*}}) outs(%[[M:[a-z0-9_]+]] :
// BOUND: scl.scalar "neg"
// BOUND: scl.scalar "mul"
// BOUND: scl.kernel "Unary" mode "abs"
// BOUND: scl.kernel "Binary" mode "add" ins(%[[M]], {{.*}})
// BOUND-NOT: fused_elementwise

// Two chains joined by an add that reads the later chain first: the body
// keeps program order (neg, abs, exp, tanh, add), not the order the add
// takes its producers in.
// BOUND-LABEL: func.func @join
// BOUND: scl.fused_elementwise ins(%arg1, %arg0 :
// BOUND-NEXT: ^bb0
// BOUND-NEXT: scl.scalar "neg"
// BOUND-NEXT: scl.scalar "abs"
// BOUND-NEXT: scl.scalar "exp"
// BOUND-NEXT: scl.scalar "tanh"
// BOUND-NEXT: scl.scalar "add"
func.func @join(%x: memref<4x4xf32>, %y: memref<4x4xf32>) -> memref<4x4xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %0 = memref.alloc() : memref<4x4xf32>
  scl.kernel "Unary" mode "neg" ins(%y : memref<4x4xf32>) outs(%0 : memref<4x4xf32>)
  %1 = memref.alloc() : memref<4x4xf32>
  scl.kernel "Unary" mode "abs" ins(%0 : memref<4x4xf32>) outs(%1 : memref<4x4xf32>)
  %2 = memref.alloc() : memref<4x4xf32>
  scl.kernel "Unary" mode "exp" ins(%x : memref<4x4xf32>) outs(%2 : memref<4x4xf32>)
  %3 = memref.alloc() : memref<4x4xf32>
  scl.kernel "Unary" mode "tanh" ins(%2 : memref<4x4xf32>) outs(%3 : memref<4x4xf32>)
  %4 = memref.alloc() : memref<4x4xf32>
  scl.kernel "Binary" mode "add" ins(%3, %1 : memref<4x4xf32>, memref<4x4xf32>) outs(%4 : memref<4x4xf32>)
  return %4 : memref<4x4xf32>
}

//--- model.mlir
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<2x4x10x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>}, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4x10x6xf32> {
  %n = sc.group_norm %x, %w, %b {num_groups = 2} : (tensor<2x4x10x6xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x10x6xf32>
  %s = sc.silu %n : tensor<2x4x10x6xf32>
  %r = sc.add %s, %x : (tensor<2x4x10x6xf32>, tensor<2x4x10x6xf32>) -> tensor<2x4x10x6xf32>
  %t = sc.tanh %r : tensor<2x4x10x6xf32>
  return %t : tensor<2x4x10x6xf32>
}
// The norm's affine epilogue, silu, the residual add and tanh: one kernel.
// KERNELS: rank class 'class0'
// KERNELS: ElementwiseFused "mul add silu add tanh" ({{.*}}) -> {{.*}} // sc.tanh
// KERNELS-NOT: Unary "silu"

// UNFUSED: rank class 'class0'
// UNFUSED-NOT: ElementwiseFused
// UNFUSED: Unary "silu"
// UNFUSED-NOT: ElementwiseFused

// NOCUDA: shardc: --fuse=false: --target=cuda runs elementwise ops and reductions only as fused kernels
// NUM: check result0: {{.*}}: ok
