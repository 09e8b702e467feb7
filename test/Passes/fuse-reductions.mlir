// sc-fuse with reductions: a Reduce whose input only an elementwise chain
// writes takes the chain in (scl.fused_reduction), so that input is never
// written. Checked on the IR (a norm's centred squares with a broadcast
// mean; what stays apart), and numerically against the unfused single-rank
// reference for sum / amax / amin / mean over middle, split, batch and last
// dims, with broadcast inputs, and a group norm; and a reduction that
// writes a buffer its chain reads.
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc-opt -sc-fuse %t/centred.mlir | FileCheck %s --check-prefix=IR
// RUN: shardc-opt -sc-fuse %t/centred.mlir | shardc-opt | FileCheck %s --check-prefix=IR
// RUN: shardc-opt -sc-fuse=lone-kernels=true %t/inplace.mlir | FileCheck %s --check-prefix=INPLACE
// RUN: shardc %t/model.mlir -O3 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: shardc %t/model.mlir -O3 -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --random-inputs --seed 5 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/model.mlir -O2 --emit=kernels | FileCheck %s --check-prefix=UNFUSED

//--- centred.mlir
sc.mesh @mesh ["x"=2]
// sum((x - mean)^2) over dim 1 becomes one kernel; the amax reads a buffer
// that is also returned, and the mean reads a plain input: both stay.
func.func @class0(%x: memref<8x64xf32>, %mean: memref<8x1xf32>) -> (memref<8x1xf32>, memref<8xf32>, memref<8x64xf32>, memref<8xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %d = memref.alloc() : memref<8x64xf32>
  scl.kernel "Binary" mode "sub" ins(%x, %mean : memref<8x64xf32>, memref<8x1xf32>) outs(%d : memref<8x64xf32>)
  %q = memref.alloc() : memref<8x64xf32>
  scl.kernel "Binary" mode "mul" ins(%d, %d : memref<8x64xf32>, memref<8x64xf32>) outs(%q : memref<8x64xf32>)
  %v = memref.alloc() : memref<8x1xf32>
  scl.kernel "Reduce" mode "sum" ins(%q : memref<8x64xf32>) outs(%v : memref<8x1xf32>) {ints = array<i64: 1>}
  %e = memref.alloc() : memref<8x64xf32>
  scl.kernel "Unary" mode "exp" ins(%x : memref<8x64xf32>) outs(%e : memref<8x64xf32>)
  %m = memref.alloc() : memref<8xf32>
  scl.kernel "Reduce" mode "amax" ins(%e : memref<8x64xf32>) outs(%m : memref<8xf32>) {ints = array<i64: 1>}
  %a = memref.alloc() : memref<8xf32>
  scl.kernel "Reduce" mode "mean" ins(%x : memref<8x64xf32>) outs(%a : memref<8xf32>) {ints = array<i64: 1>}
  return %v, %m, %e, %a : memref<8x1xf32>, memref<8xf32>, memref<8x64xf32>, memref<8xf32>
}
// IR-LABEL: func.func @class0
// IR-NOT: memref.alloc() : memref<8x64xf32>
// IR: %[[V:.*]] = memref.alloc() : memref<8x1xf32>
// IR-NEXT: scl.fused_reduction "sum" dims [1] over [8, 64] ins(%arg0, %arg1 : memref<8x64xf32>, memref<8x1xf32>) outs(%[[V]] : memref<8x1xf32>) {
// IR-NEXT: ^bb0(%[[A:.*]]: f32, %[[M:.*]]: f32):
// IR-NEXT: %[[D:.*]] = scl.scalar "sub"(%[[A]], %[[M]]) : f32
// IR-NEXT: %[[Q:.*]] = scl.scalar "mul"(%[[D]], %[[D]]) : f32
// IR-NEXT: scl.yield %[[Q]] : f32
// IR: scl.kernel "Unary" mode "exp"
// IR: scl.kernel "Reduce" mode "amax"
// IR: scl.kernel "Reduce" mode "mean"
// IR-NOT: fused_reduction

//--- inplace.mlir
sc.mesh @mesh ["x"=2]
// The chain reads %w, whose bytes the sum writes through a view: the sum
// may not take the chain in (its kernel would read %w at other rows'
// positions while writing it), so it reduces the chain's output alone. A
// Reduce writing its own input's bytes stays for the runtime.
func.func @class0(%x: memref<2x2xf32>, %w: memref<1x2xf32>, %z: memref<2x1xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %p = memref.alloc() : memref<2x2xf32>
  scl.kernel "Binary" mode "mul" ins(%x, %w : memref<2x2xf32>, memref<1x2xf32>) outs(%p : memref<2x2xf32>)
  %wv = scl.view %w : memref<1x2xf32> to memref<2xf32>
  scl.kernel "Reduce" mode "sum" ins(%p : memref<2x2xf32>) outs(%wv : memref<2xf32>) {ints = array<i64: 1>}
  %zv = scl.view %z : memref<2x1xf32> to memref<2xf32>
  scl.kernel "Reduce" mode "amax" ins(%z : memref<2x1xf32>) outs(%zv : memref<2xf32>) {ints = array<i64: 1>}
  return
}
// INPLACE-LABEL: func.func @class0
// INPLACE: %[[P:.*]] = memref.alloc() : memref<2x2xf32>
// INPLACE-NEXT: scl.fused_elementwise ins(%arg0, %arg1 : memref<2x2xf32>, memref<1x2xf32>) outs(%[[P]] : memref<2x2xf32>)
// INPLACE: %[[WV:.*]] = scl.view %arg1
// INPLACE-NEXT: scl.fused_reduction "sum" dims [1] over [2, 2] ins(%[[P]] : memref<2x2xf32>) outs(%[[WV]] : memref<2xf32>)
// INPLACE: scl.kernel "Reduce" mode "amax"

//--- model.mlir
// Reductions of elementwise chains over a split H (uneven 3 ranks): sums over
// a middle and the last dim, amax over the split dim (partial, then an
// all-reduce), amin over the batch with a broadcast per-channel weight, a
// mean keeping dims, and a group norm (centred squares) at the end.
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<2x4x12x5xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 4, 3], {}]>},
                %w: tensor<4x1x1xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>)
    -> (tensor<2x12xf32>, tensor<2x4x5xf32>, tensor<4x12x5xf32>, tensor<2x4x12x1xf32>, tensor<2x4x12x5xf32>) {
  %sq = sc.mul %x, %x : (tensor<2x4x12x5xf32>, tensor<2x4x12x5xf32>) -> tensor<2x4x12x5xf32>
  %s = sc.sum %sq {dims = array<i64: 1, 3>} : (tensor<2x4x12x5xf32>) -> tensor<2x12xf32>
  %t = sc.silu %x : tensor<2x4x12x5xf32>
  %m = sc.amax %t {dims = array<i64: 2>} : (tensor<2x4x12x5xf32>) -> tensor<2x4x5xf32>
  %xw = sc.mul %x, %w : (tensor<2x4x12x5xf32>, tensor<4x1x1xf32>) -> tensor<2x4x12x5xf32>
  %e = sc.exp %xw : tensor<2x4x12x5xf32>
  %n = sc.amin %e {dims = array<i64: 0>} : (tensor<2x4x12x5xf32>) -> tensor<4x12x5xf32>
  %a = sc.abs %x : tensor<2x4x12x5xf32>
  %mean = sc.mean %a {dims = array<i64: 3>, keepdim = true} : (tensor<2x4x12x5xf32>) -> tensor<2x4x12x1xf32>
  %gn = sc.group_norm %x, %g, %b {num_groups = 2} : (tensor<2x4x12x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x12x5xf32>
  return %s, %m, %n, %mean, %gn : tensor<2x12xf32>, tensor<2x4x5xf32>, tensor<4x12x5xf32>, tensor<2x4x12x1xf32>, tensor<2x4x12x5xf32>
}

// KERNELS-LABEL: rank class 'class1'
// KERNELS: ReductionFused "sum mul" (%0) -> {{.*}} ints [4, 2, 4, 4, 5, 2, 1, 3, 0, 0, 1]
// KERNELS: ReductionFused "amax silu" (%0)
// KERNELS: ReductionFused "amin mul exp" (%0, %1)
// KERNELS: ReductionFused "mean abs" (%0)
// KERNELS: ReductionFused "sum sub mul"
// KERNELS-NOT: Reduce "sum"
// KERNELS: rank class 'class2'
// UNFUSED-NOT: ReductionFused
// UNFUSED: Reduce "sum"
// UNFUSED-NOT: ReductionFused
// NUM-COUNT-5: check result{{[0-4]}}: {{.*}} ok
