// sc-shrink-splats: a splat constant's Fill writes one element of the same
// rank where every reader broadcasts it (fused kernels; Binary, Compare and
// Select whose output stays the broadcast of their operands). A splat that
// is returned, viewed, written again, read by another kernel, or that alone
// gives a Binary its output's extent keeps its shape. Numerically, a model
// of full-size splats (an offset, a scale, a mask and a threshold) on 3
// uneven ranks matches the single-rank reference at every level and on the
// CUDA target, and its arena shrinks by the splats' bytes.
// REQUIRES: nvcc
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc-opt -sc-shrink-splats %t/readers.mlir | FileCheck %s --check-prefix=READERS
// RUN: shardc-opt -sc-shrink-splats %t/readers.mlir | shardc-opt | FileCheck %s --check-prefix=READERS
// RUN: shardc-opt -sc-shrink-splats %t/refusals.mlir | FileCheck %s --check-prefix=KEEP
// RUN: shardc %t/model.mlir -O1 --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: shardc %t/model.mlir -O1 --shrink-splats=false --emit=plan | FileCheck %s --check-prefix=FULL
// RUN: shardc %t/model.mlir -O0 --emit=plan | FileCheck %s --check-prefix=FULL
// An earlier sc-plan-memory plan does not hold once buffers shrink: the
// pass drops it and shardc plans again.
// RUN: shardc-opt -sc-partition-pipeline -sc-shrink-splats %t/model.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: shardc %t/model.mlir -O1 -o %t/o1.shardbin
// RUN: shard-run %t/o1.shardbin --random-inputs --seed 5 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/model.mlir -O3 -o %t/o3.shardbin
// RUN: shard-run %t/o3.shardbin --random-inputs --seed 6 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels | FileCheck %s --check-prefix=CUDA
// RUN: shardc %t/model.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shard-run %t/cuda.shardbin --random-inputs --seed 7 --check | FileCheck %s --check-prefix=NUM
// The CUDA backend (built for the host) reads the one-element mask and
// threshold through its Select and Compare kernels' broadcast views, and
// fills the mask on the device (nothing staged through the host).
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --random-inputs --seed 8 --check --backend cuda | FileCheck %s --check-prefixes=NUM,NATIVE

//--- readers.mlir
sc.mesh @mesh ["x"=2]
// %c feeds a fused kernel and a Binary's second operand; %m a Select's
// condition; %t a Compare next to an operand of the output's shape.
func.func @class0(%x: memref<2x8xf32>) -> (memref<2x8xf32>, memref<2x8xf32>, memref<2x8xi1>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %c = memref.alloc() : memref<2x8xf32>
  scl.kernel "Fill" outs(%c : memref<2x8xf32>) {floats = array<f64: 1.5>}
  %m = memref.alloc() : memref<2x8xi1>
  scl.kernel "Fill" outs(%m : memref<2x8xi1>) {floats = array<f64: 1.0>}
  %t = memref.alloc() : memref<2x8xf32>
  scl.kernel "Fill" outs(%t : memref<2x8xf32>) {floats = array<f64: 0.25>}
  %f = memref.alloc() : memref<2x8xf32>
  scl.fused_elementwise ins(%x, %c : memref<2x8xf32>, memref<2x8xf32>) outs(%f : memref<2x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = scl.scalar "mul"(%a, %b) : f32
    scl.yield %s : f32
  }
  %g = memref.alloc() : memref<2x8xf32>
  scl.kernel "Binary" mode "sub" ins(%f, %c : memref<2x8xf32>, memref<2x8xf32>) outs(%g : memref<2x8xf32>)
  %y = memref.alloc() : memref<2x8xf32>
  scl.kernel "Select" ins(%m, %g, %x : memref<2x8xi1>, memref<2x8xf32>, memref<2x8xf32>) outs(%y : memref<2x8xf32>)
  %p = memref.alloc() : memref<2x8xi1>
  scl.kernel "Compare" mode "gt" ins(%t, %x : memref<2x8xf32>, memref<2x8xf32>) outs(%p : memref<2x8xi1>)
  return %g, %y, %p : memref<2x8xf32>, memref<2x8xf32>, memref<2x8xi1>
}
// READERS-LABEL: func.func @class0
// READERS: %[[C:.*]] = memref.alloc() : memref<1x1xf32>
// READERS-NEXT: scl.kernel "Fill" outs(%[[C]] : memref<1x1xf32>) {floats = array<f64: 1.500000e+00>}
// READERS-NEXT: %[[M:.*]] = memref.alloc() : memref<1x1xi1>
// READERS-NEXT: scl.kernel "Fill" outs(%[[M]] : memref<1x1xi1>)
// READERS-NEXT: %[[T:.*]] = memref.alloc() : memref<1x1xf32>
// READERS-NEXT: scl.kernel "Fill" outs(%[[T]] : memref<1x1xf32>) {floats = array<f64: 2.500000e-01>}
// READERS: scl.fused_elementwise ins(%arg0, %[[C]] : memref<2x8xf32>, memref<1x1xf32>)
// READERS: scl.kernel "Binary" mode "sub" ins(%{{.*}}, %[[C]] : memref<2x8xf32>, memref<1x1xf32>)
// READERS: scl.kernel "Select" ins(%[[M]], %{{.*}}, %arg0 : memref<1x1xi1>, memref<2x8xf32>, memref<2x8xf32>)
// READERS: scl.kernel "Compare" mode "gt" ins(%[[T]], %arg0 : memref<1x1xf32>, memref<2x8xf32>)

//--- refusals.mlir
sc.mesh @mesh ["x"=2]
// %alone is the only operand with 4 rows; %ret is returned; %viewed is
// viewed; %twice is written by a fused kernel too; %conv is read by a
// Conv.
func.func @class0(%x: memref<1x8xf32>, %w: memref<2x2x1x1xf32>) -> (memref<4x8xf32>, memref<4x8xf32>, memref<32xf32>, memref<4x8xf32>, memref<1x2x3x3xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %alone = memref.alloc() : memref<4x8xf32>
  scl.kernel "Fill" outs(%alone : memref<4x8xf32>) {floats = array<f64: 1.0>}
  %a = memref.alloc() : memref<4x8xf32>
  scl.kernel "Binary" mode "add" ins(%x, %alone : memref<1x8xf32>, memref<4x8xf32>) outs(%a : memref<4x8xf32>)
  %ret = memref.alloc() : memref<4x8xf32>
  scl.kernel "Fill" outs(%ret : memref<4x8xf32>) {floats = array<f64: 2.0>}
  %viewed = memref.alloc() : memref<4x8xf32>
  scl.kernel "Fill" outs(%viewed : memref<4x8xf32>) {floats = array<f64: 3.0>}
  %v = scl.view %viewed : memref<4x8xf32> to memref<32xf32>
  %twice = memref.alloc() : memref<4x8xf32>
  scl.kernel "Fill" outs(%twice : memref<4x8xf32>) {floats = array<f64: 4.0>}
  scl.fused_elementwise ins(%twice : memref<4x8xf32>) outs(%twice : memref<4x8xf32>) {
  ^bb0(%b: f32):
    %s = scl.scalar "exp"(%b) : f32
    scl.yield %s : f32
  }
  %conv = memref.alloc() : memref<1x2x3x3xf32>
  scl.kernel "Fill" outs(%conv : memref<1x2x3x3xf32>) {floats = array<f64: 5.0>}
  %o = memref.alloc() : memref<1x2x3x3xf32>
  scl.kernel "Conv" ins(%conv, %w : memref<1x2x3x3xf32>, memref<2x2x1x1xf32>) outs(%o : memref<1x2x3x3xf32>) {ints = array<i64: 2, 1, 1, 0, 0, 0, 0, 1, 1, 1>}
  return %a, %ret, %v, %twice, %o : memref<4x8xf32>, memref<4x8xf32>, memref<32xf32>, memref<4x8xf32>, memref<1x2x3x3xf32>
}
// KEEP-LABEL: func.func @class0
// KEEP: scl.kernel "Fill" outs(%{{.*}} : memref<4x8xf32>) {floats = array<f64: 1.000000e+00>}
// KEEP: scl.kernel "Fill" outs(%{{.*}} : memref<4x8xf32>) {floats = array<f64: 2.000000e+00>}
// KEEP: scl.kernel "Fill" outs(%{{.*}} : memref<4x8xf32>) {floats = array<f64: 3.000000e+00>}
// KEEP: scl.kernel "Fill" outs(%{{.*}} : memref<4x8xf32>) {floats = array<f64: 4.000000e+00>}
// KEEP: scl.kernel "Fill" outs(%{{.*}} : memref<1x2x3x3xf32>) {floats = array<f64: 5.000000e+00>}
// KEEP-NOT: memref<1x1xf32>

//--- model.mlir
sc.mesh @m ["x"=3]
// 10 rows over 3 ranks: 4/3/3. Each splat is 4 x 64 elements on the
// first rank, and one element once shrunk: its arena goes from 5376 bytes
// to 4353 (the shrunk splats take their own 4 or 1 bytes each).
func.func @main(%x: tensor<10x64xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}) -> tensor<10x64xf32> {
  %off = sc.constant dense<0.5> : tensor<10x64xf32>
  %scale = sc.constant dense<-2.0> : tensor<10x64xf32>
  %thr = sc.constant dense<0.25> : tensor<10x64xf32>
  %mask = sc.constant dense<true> : tensor<10x64xi1>
  %a = sc.add %x, %off : (tensor<10x64xf32>, tensor<10x64xf32>) -> tensor<10x64xf32>
  %b = sc.mul %a, %scale : (tensor<10x64xf32>, tensor<10x64xf32>) -> tensor<10x64xf32>
  %p = sc.compare %x, %thr {predicate = "gt"} : (tensor<10x64xf32>, tensor<10x64xf32>) -> tensor<10x64xi1>
  %q = sc.select %p, %b, %x : (tensor<10x64xi1>, tensor<10x64xf32>, tensor<10x64xf32>) -> tensor<10x64xf32>
  %y = sc.select %mask, %q, %a : (tensor<10x64xi1>, tensor<10x64xf32>, tensor<10x64xf32>) -> tensor<10x64xf32>
  return %y : tensor<10x64xf32>
}
// PLAN: rank class 'class0': ranks [0]
// PLAN: arena: 4353 bytes
// PLAN-NOT: rank class
// PLAN: F32(1,1) 4 B
// PLAN-NOT: rank class
// PLAN: I1(1,1) 1 B
// FULL: rank class 'class0': ranks [0]
// FULL: arena: 5376 bytes
// FULL-NOT: rank class
// FULL: I1(4,64) 256 B
// FULL-NOT: (1,1)
// CUDA: main_class0_fused0(const float *__restrict__ in0, const float *__restrict__ in1,
// CUDA: const float a1 = __ldg(in1 + 0LL);
// NATIVE: staged  host waits
// NATIVE-NEXT: {{^0 .* KiB +0 +0$}}
// NATIVE-NEXT: {{^1 .* KiB +0 +0$}}
// NATIVE-NEXT: {{^2 .* KiB +0 +0$}}
// NUM-NOT: MISMATCH
// NUM: check result0: {{.*}}: ok
