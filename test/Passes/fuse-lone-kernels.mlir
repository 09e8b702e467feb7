// sc-fuse lone-kernels (the CUDA target's default): a computing kernel that
// joins no group and a Reduce that takes none in become fused kernels of
// their own, so the CUDA backend runs them on the device instead of staging
// them through the host. A reduction's body then yields its input as it is.
// Plain copies stay copies; without the option nothing lone changes.
// Numerically, the lone kernels of a model sharded unevenly over 3 ranks
// match the unpartitioned reference on the CPU backend.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc-opt -sc-fuse=lone-kernels=true %t/lone.mlir | FileCheck %s --check-prefix=LONE
// RUN: shardc-opt -sc-fuse=lone-kernels=true %t/lone.mlir | shardc-opt | FileCheck %s --check-prefix=LONE
// RUN: shardc-opt -sc-fuse %t/lone.mlir | FileCheck %s --check-prefix=PLAIN
// RUN: shardc %t/model.mlir --target=cuda --emit=partitioned | FileCheck %s --check-prefix=CUDA --implicit-check-not='scl.kernel "Unary"' --implicit-check-not='scl.kernel "Binary"' --implicit-check-not='scl.kernel "Reduce"' 
// RUN: shardc %t/model.mlir -O3 --emit=partitioned | FileCheck %s --check-prefix=CPU
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: shardc-opt -sc-partition-pipeline -sc-fuse=lone-kernels=true %t/model.mlir | shardc - --reference %t/model.mlir -o %t/lone.shardbin
// RUN: shard-run %t/lone.shardbin --random-inputs --seed 7 --check | FileCheck %s --check-prefix=NUM

//--- lone.mlir
sc.mesh @mesh ["x"=2]
// exp and a broadcast add that each write a returned buffer, an amax of an
// input, and a plain copy.
func.func @class0(%x: memref<4x8xf32>, %b: memref<8xf32>) -> (memref<4x8xf32>, memref<4x8xf32>, memref<4x1xf32>, memref<4x8xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %e = memref.alloc() : memref<4x8xf32>
  scl.kernel "Unary" mode "exp" ins(%x : memref<4x8xf32>) outs(%e : memref<4x8xf32>)
  %s = memref.alloc() : memref<4x8xf32>
  scl.kernel "Binary" mode "add" ins(%e, %b : memref<4x8xf32>, memref<8xf32>) outs(%s : memref<4x8xf32>)
  %m = memref.alloc() : memref<4x1xf32>
  scl.kernel "Reduce" mode "amax" ins(%x : memref<4x8xf32>) outs(%m : memref<4x1xf32>) {ints = array<i64: 1>}
  %c = memref.alloc() : memref<4x8xf32>
  scl.kernel "Copy" ins(%x : memref<4x8xf32>) outs(%c : memref<4x8xf32>)
  return %e, %s, %m, %c : memref<4x8xf32>, memref<4x8xf32>, memref<4x1xf32>, memref<4x8xf32>
}
func.func @invalid(%x: memref<4x8xf32>, %z: memref<4x0xf32>, %b: memref<3xf32>) -> (memref<4x1xf32>, memref<4x1xf32>, memref<4x8xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %r = memref.alloc() : memref<4x1xf32>
  scl.kernel "Reduce" mode "sum" ins(%x : memref<4x8xf32>) outs(%r : memref<4x1xf32>) {ints = array<i64: 1, 1>}
  %m = memref.alloc() : memref<4x1xf32>
  scl.kernel "Reduce" mode "amax" ins(%z : memref<4x0xf32>) outs(%m : memref<4x1xf32>) {ints = array<i64: 1>}
  %s = memref.alloc() : memref<4x8xf32>
  scl.kernel "Binary" mode "add" ins(%x, %b : memref<4x8xf32>, memref<3xf32>) outs(%s : memref<4x8xf32>)
  return %r, %m, %s : memref<4x1xf32>, memref<4x1xf32>, memref<4x8xf32>
}
// LONE-LABEL: func.func @class0
// LONE: %[[E:.*]] = memref.alloc() : memref<4x8xf32>
// LONE-NEXT: scl.fused_elementwise ins(%arg0 : memref<4x8xf32>) outs(%[[E]] : memref<4x8xf32>) {
// LONE-NEXT: ^bb0(%[[A:.*]]: f32):
// LONE-NEXT: %[[V:.*]] = scl.scalar "exp"(%[[A]]) : f32
// LONE-NEXT: scl.yield %[[V]] : f32
// LONE: %[[S:.*]] = memref.alloc() : memref<4x8xf32>
// LONE-NEXT: scl.fused_elementwise ins(%[[E]], %arg1 : memref<4x8xf32>, memref<8xf32>) outs(%[[S]] : memref<4x8xf32>) {
// LONE: scl.scalar "add"
// LONE: %[[M:.*]] = memref.alloc() : memref<4x1xf32>
// LONE-NEXT: scl.fused_reduction "amax" dims [1] over [4, 8] ins(%arg0 : memref<4x8xf32>) outs(%[[M]] : memref<4x1xf32>) {
// LONE-NEXT: ^bb0(%[[R:.*]]: f32):
// LONE-NEXT: scl.yield %[[R]] : f32
// LONE: scl.kernel "Copy" ins(%arg0 : memref<4x8xf32>)
// LONE-NOT: scl.kernel
// LONE: return

// What scl.fused_* would reject stays for the runtime to report: a Reduce
// naming a dim twice, an amax over nothing, a Binary whose operands do not
// broadcast to its output.
// LONE-LABEL: func.func @invalid
// LONE-NEXT: memref.alloc
// LONE-NEXT: scl.kernel "Reduce" mode "sum"
// LONE-NEXT: memref.alloc
// LONE-NEXT: scl.kernel "Reduce" mode "amax"
// LONE-NEXT: memref.alloc
// LONE-NEXT: scl.kernel "Binary" mode "add"
// LONE-NEXT: return

// PLAIN-LABEL: func.func @class0
// PLAIN: scl.kernel "Unary" mode "exp"
// PLAIN: scl.kernel "Binary" mode "add"
// PLAIN: scl.kernel "Reduce" mode "amax"
// PLAIN: scl.kernel "Copy"
// PLAIN-NOT: scl.fused

//--- model.mlir
// A softmax's pieces kept apart by returning them, over a split last dim
// (uneven 3 ranks): the max is a partial amax and an all-reduce, the shift
// and exp are returned (each lone), the sum a lone partial Reduce.
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<4x12xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}[5, 4, 3]]>})
    -> (tensor<4x1xf32>, tensor<4x12xf32>, tensor<4x12xf32>, tensor<4x1xf32>) {
  %m = sc.amax %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x12xf32>) -> tensor<4x1xf32>
  %d = sc.sub %x, %m : (tensor<4x12xf32>, tensor<4x1xf32>) -> tensor<4x12xf32>
  %e = sc.exp %d : tensor<4x12xf32>
  %s = sc.sum %e {dims = array<i64: 1>, keepdim = true} : (tensor<4x12xf32>) -> tensor<4x1xf32>
  return %m, %d, %e, %s : tensor<4x1xf32>, tensor<4x12xf32>, tensor<4x12xf32>, tensor<4x1xf32>
}
// CUDA-LABEL: func.func @main_class0
// CUDA: scl.fused_reduction "amax"
// CUDA: scl.fused_elementwise
// CUDA: scl.scalar "sub"
// CUDA: scl.fused_elementwise
// CUDA: scl.scalar "exp"
// CUDA: scl.fused_reduction "sum"
// CUDA: return

// CPU-LABEL: func.func @main_class0
// CPU: scl.kernel "Reduce" mode "amax"
// CPU: scl.kernel "Binary" mode "sub"
// CPU: scl.kernel "Unary" mode "exp"
// CPU: scl.kernel "Reduce" mode "sum"

// KERNELS: main_class0_fused0(const float *__restrict__ in0, float *__restrict__ out, double *__restrict__ partials,
// KERNELS: const float a0 = __ldg(in0 + i);
// KERNELS-NEXT: const double x = acc, y = (double)a0;
// KERNELS-NEXT: acc = (x != x || y != y) ? x + y : fmax(x, y);

// NUM: 3 rank(s)
// NUM: check result0: max abs error {{.*}}: ok
// NUM: check result1: max abs error {{.*}}: ok
// NUM: check result2: max abs error {{.*}}: ok
// NUM: check result3: max abs error {{.*}}: ok
