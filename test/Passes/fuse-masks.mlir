// sc-fuse with bools: Compare, Select and casts between f32 and i1 join a
// fused body as functions on bools held as 1.0 and 0.0 ("gt", "select",
// "bool", and the cast back passing the value through), so a mask that
// only the body reads is never a buffer. A fused elementwise kernel reads
// mask inputs and writes a mask that something else reads (returned, read
// twice); a fused reduction reads mask inputs too. Numerically,
// torch.where(x > 0, x, 0.2 * x), a clamp by mask (also returned), a select
// by a mask input, (x > t).float().mean(dim), and a masked sum and count
// over a mask input on 3 uneven ranks match the unfused single-rank
// reference at -O3, on the CUDA target, and through the generated kernels
// on the host CUDA backend.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc-opt -sc-fuse %t/where.mlir | FileCheck %s --check-prefix=WHERE
// RUN: shardc-opt -sc-fuse %t/where.mlir | shardc-opt | FileCheck %s --check-prefix=WHERE
// RUN: shardc-opt -sc-fuse %t/count.mlir | FileCheck %s --check-prefix=COUNT
// RUN: shardc-opt -sc-fuse %t/mask-buffers.mlir | FileCheck %s --check-prefix=BUFFERS
// RUN: shardc-opt -sc-fuse %t/mask-buffers.mlir | shardc-opt | FileCheck %s --check-prefix=BUFFERS
// RUN: shardc %t/model.mlir -O3 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: shardc %t/model.mlir -O3 --fuse=false --emit=kernels | FileCheck %s --check-prefix=UNFUSED
// RUN: shardc %t/model.mlir -O3 -o %t/o3.shardbin
// RUN: shard-run %t/o3.shardbin --random-inputs --seed 11 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: FileCheck %s --check-prefix=CUDA < %t/cuda.cu
// RUN: shardc %t/model.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shard-run %t/cuda.shardbin --random-inputs --seed 12 --check | FileCheck %s --check-prefix=NUM
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: shardrt-host-kernel-check %t/cuda.shardbin %t/cuda.so | FileCheck %s --check-prefix=HOSTCHECK
// RUN: env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --random-inputs --seed 13 --check --backend cuda | FileCheck %s --check-prefix=NUM
// A group merged across a reshape reads a mask on the refined space: a
// view of a temporary mask, a copy of a mask input, both i1 (sc-fuse once
// made the view f32, which the verifier refused: an internal error at -O3
// and on --target=cuda).
// RUN: shardc %t/reshape.mlir -O3 --emit=kernels | FileCheck %s --check-prefix=RESHAPE
// RUN: shardc %t/reshape.mlir -O3 -o %t/reshape.shardbin
// RUN: shard-run %t/reshape.shardbin --random-inputs --seed 14 --check | FileCheck %s --check-prefix=RESHAPENUM
// RUN: shardc %t/reshape.mlir --target=cuda -o %t/reshape-cuda.shardbin
// RUN: shard-run %t/reshape-cuda.shardbin --random-inputs --seed 15 --check | FileCheck %s --check-prefix=RESHAPENUM
// REQUIRES: nvcc

//--- where.mlir
sc.mesh @mesh ["x"=2]
// where(x > zero, x, x * slope), then where(that.bool(), x, zero).
func.func @class0(%x: memref<2x8xf32>, %zero: memref<1x1xf32>, %slope: memref<1x1xf32>) -> memref<2x8xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %p = memref.alloc() : memref<2x8xi1>
  scl.kernel "Compare" mode "gt" ins(%x, %zero : memref<2x8xf32>, memref<1x1xf32>) outs(%p : memref<2x8xi1>)
  %s = memref.alloc() : memref<2x8xf32>
  scl.kernel "Binary" mode "mul" ins(%x, %slope : memref<2x8xf32>, memref<1x1xf32>) outs(%s : memref<2x8xf32>)
  %y = memref.alloc() : memref<2x8xf32>
  scl.kernel "Select" ins(%p, %x, %s : memref<2x8xi1>, memref<2x8xf32>, memref<2x8xf32>) outs(%y : memref<2x8xf32>)
  %b = memref.alloc() : memref<2x8xi1>
  scl.kernel "Cast" ins(%y : memref<2x8xf32>) outs(%b : memref<2x8xi1>)
  %z = memref.alloc() : memref<2x8xf32>
  scl.kernel "Select" ins(%b, %x, %zero : memref<2x8xi1>, memref<2x8xf32>, memref<1x1xf32>) outs(%z : memref<2x8xf32>)
  return %z : memref<2x8xf32>
}
// WHERE-LABEL: func.func @class0
// WHERE-NOT: xi1>
// WHERE: %[[OUT:.*]] = memref.alloc() : memref<2x8xf32>
// WHERE-NEXT: scl.fused_elementwise ins(%arg0, %arg1, %arg2 : memref<2x8xf32>, memref<1x1xf32>, memref<1x1xf32>) outs(%[[OUT]] : memref<2x8xf32>) {
// WHERE-NEXT: ^bb0(%[[X:.*]]: f32, %[[Z:.*]]: f32, %[[K:.*]]: f32):
// WHERE-NEXT: %[[P:.*]] = scl.scalar "gt"(%[[X]], %[[Z]]) : f32
// WHERE-NEXT: %[[S:.*]] = scl.scalar "mul"(%[[X]], %[[K]]) : f32
// WHERE-NEXT: %[[Y:.*]] = scl.scalar "select"(%[[P]], %[[X]], %[[S]]) : f32
// WHERE-NEXT: %[[B:.*]] = scl.scalar "bool"(%[[Y]]) : f32
// WHERE-NEXT: %[[R:.*]] = scl.scalar "select"(%[[B]], %[[X]], %[[Z]]) : f32
// WHERE-NEXT: scl.yield %[[R]] : f32
// WHERE-NEXT: }
// WHERE-NOT: scl.kernel
// WHERE: return %[[OUT]]

//--- count.mlir
sc.mesh @mesh ["x"=2]
// (x > t).float().mean(dim=1): the mask and its f32 copy stay in the body.
func.func @class0(%x: memref<2x8xf32>, %t: memref<2x1xf32>) -> memref<2xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %p = memref.alloc() : memref<2x8xi1>
  scl.kernel "Compare" mode "gt" ins(%x, %t : memref<2x8xf32>, memref<2x1xf32>) outs(%p : memref<2x8xi1>)
  %f = memref.alloc() : memref<2x8xf32>
  scl.kernel "Cast" ins(%p : memref<2x8xi1>) outs(%f : memref<2x8xf32>)
  %m = memref.alloc() : memref<2xf32>
  scl.kernel "Reduce" mode "mean" ins(%f : memref<2x8xf32>) outs(%m : memref<2xf32>) {ints = array<i64: 1>}
  return %m : memref<2xf32>
}
// COUNT-LABEL: func.func @class0
// COUNT-NOT: memref.alloc() : memref<2x8x
// COUNT: scl.fused_reduction "mean" dims [1] over [2, 8] ins(%arg0, %arg1 : memref<2x8xf32>, memref<2x1xf32>)
// COUNT-NEXT: ^bb0(%[[X:.*]]: f32, %[[T:.*]]: f32):
// COUNT-NEXT: %[[P:.*]] = scl.scalar "gt"(%[[X]], %[[T]]) : f32
// COUNT-NEXT: scl.yield %[[P]] : f32
// COUNT-NOT: scl.kernel

//--- mask-buffers.mlir
sc.mesh @mesh ["x"=2]
// %p (of exp(x) + x) is returned: one kernel writes it. %q, read by two
// Selects, is written by its Compare alone, and each Select reads it (one
// kernel each only under lone-kernels). %c is an input: its Select joins
// the chain writing its other operand. The sum of a select by %c stays a
// Select and a Reduce: one fused reduction, reading the mask input.
func.func @class0(%x: memref<2x8xf32>, %c: memref<2x8xi1>) -> (memref<2x8xi1>, memref<2x8xf32>, memref<2x8xf32>, memref<2x8xf32>, memref<2xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %e = memref.alloc() : memref<2x8xf32>
  scl.kernel "Unary" mode "exp" ins(%x : memref<2x8xf32>) outs(%e : memref<2x8xf32>)
  %a = memref.alloc() : memref<2x8xf32>
  scl.kernel "Binary" mode "add" ins(%e, %x : memref<2x8xf32>, memref<2x8xf32>) outs(%a : memref<2x8xf32>)
  %p = memref.alloc() : memref<2x8xi1>
  scl.kernel "Compare" mode "lt" ins(%a, %x : memref<2x8xf32>, memref<2x8xf32>) outs(%p : memref<2x8xi1>)
  %q = memref.alloc() : memref<2x8xi1>
  scl.kernel "Compare" mode "ge" ins(%x, %x : memref<2x8xf32>, memref<2x8xf32>) outs(%q : memref<2x8xi1>)
  %s1 = memref.alloc() : memref<2x8xf32>
  scl.kernel "Select" ins(%q, %x, %x : memref<2x8xi1>, memref<2x8xf32>, memref<2x8xf32>) outs(%s1 : memref<2x8xf32>)
  %s2 = memref.alloc() : memref<2x8xf32>
  scl.kernel "Select" ins(%q, %x, %x : memref<2x8xi1>, memref<2x8xf32>, memref<2x8xf32>) outs(%s2 : memref<2x8xf32>)
  %n = memref.alloc() : memref<2x8xf32>
  scl.kernel "Unary" mode "neg" ins(%x : memref<2x8xf32>) outs(%n : memref<2x8xf32>)
  %t = memref.alloc() : memref<2x8xf32>
  scl.kernel "Unary" mode "tanh" ins(%n : memref<2x8xf32>) outs(%t : memref<2x8xf32>)
  %w = memref.alloc() : memref<2x8xf32>
  scl.kernel "Select" ins(%c, %t, %x : memref<2x8xi1>, memref<2x8xf32>, memref<2x8xf32>) outs(%w : memref<2x8xf32>)
  %k = memref.alloc() : memref<2x8xf32>
  scl.kernel "Select" ins(%c, %x, %w : memref<2x8xi1>, memref<2x8xf32>, memref<2x8xf32>) outs(%k : memref<2x8xf32>)
  %r = memref.alloc() : memref<2xf32>
  scl.kernel "Reduce" mode "sum" ins(%k : memref<2x8xf32>) outs(%r : memref<2xf32>) {ints = array<i64: 1>}
  return %p, %s1, %s2, %w, %r : memref<2x8xi1>, memref<2x8xf32>, memref<2x8xf32>, memref<2x8xf32>, memref<2xf32>
}
// BUFFERS-LABEL: func.func @class0
// BUFFERS: %[[P:.*]] = memref.alloc() : memref<2x8xi1>
// BUFFERS-NEXT: scl.fused_elementwise ins(%arg0 : memref<2x8xf32>) outs(%[[P]] : memref<2x8xi1>)
// BUFFERS: scl.scalar "exp"
// BUFFERS-NEXT: scl.scalar "add"
// BUFFERS-NEXT: scl.scalar "lt"
// BUFFERS: %[[Q:.*]] = memref.alloc() : memref<2x8xi1>
// BUFFERS-NEXT: scl.kernel "Compare" mode "ge" ins(%arg0, %arg0 : memref<2x8xf32>, memref<2x8xf32>) outs(%[[Q]]
// BUFFERS: scl.kernel "Select" ins(%[[Q]],
// BUFFERS: scl.kernel "Select" ins(%[[Q]],
// BUFFERS: %[[W:.*]] = memref.alloc() : memref<2x8xf32>
// BUFFERS-NEXT: scl.fused_elementwise ins(%arg0, %arg1 : memref<2x8xf32>, memref<2x8xi1>) outs(%[[W]] : memref<2x8xf32>)
// BUFFERS-NEXT: ^bb0(%[[X:.*]]: f32, %[[C:.*]]: f32):
// BUFFERS-NEXT: %[[N:.*]] = scl.scalar "neg"(%[[X]])
// BUFFERS-NEXT: %[[T:.*]] = scl.scalar "tanh"(%[[N]])
// BUFFERS-NEXT: scl.scalar "select"(%[[C]], %[[T]], %[[X]])
// BUFFERS-NEXT: scl.yield
// BUFFERS-NEXT: }
// BUFFERS-NEXT: %[[R:.*]] = memref.alloc() : memref<2xf32>
// BUFFERS-NEXT: scl.fused_reduction "sum" dims [1] over [2, 8] ins(%arg1, %arg0, %[[W]] : memref<2x8xi1>, memref<2x8xf32>, memref<2x8xf32>) outs(%[[R]] : memref<2xf32>)
// BUFFERS-NEXT: ^bb0(%[[C2:.*]]: f32, %[[X2:.*]]: f32, %[[W2:.*]]: f32):
// BUFFERS-NEXT: scl.scalar "select"(%[[C2]], %[[X2]], %[[W2]])
// BUFFERS-NOT: scl.kernel

//--- model.mlir
sc.mesh @m ["x"=3]
// 10 rows over 3 ranks: 4/3/3.
func.func @main(%x: tensor<10x64xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>},
                %t: tensor<10x1xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>},
                %keep: tensor<10x64xi1> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}) -> (tensor<10x64xf32>, tensor<10xf32>, tensor<10x64xi1>, tensor<10x1xi1>, tensor<10xf32>, tensor<10xf32>) {
  %zero = sc.constant dense<0.0> : tensor<1x1xf32>
  %slope = sc.constant dense<0.2> : tensor<1x1xf32>
  %p = sc.compare %x, %zero {predicate = "gt"} : (tensor<10x64xf32>, tensor<1x1xf32>) -> tensor<10x64xi1>
  %s = sc.mul %x, %slope : (tensor<10x64xf32>, tensor<1x1xf32>) -> tensor<10x64xf32>
  %leaky = sc.select %p, %x, %s : (tensor<10x64xi1>, tensor<10x64xf32>, tensor<10x64xf32>) -> tensor<10x64xf32>
  %over = sc.compare %leaky, %t {predicate = "ge"} : (tensor<10x64xf32>, tensor<10x1xf32>) -> tensor<10x64xi1>
  %clamped = sc.select %over, %t, %leaky : (tensor<10x64xi1>, tensor<10x1xf32>, tensor<10x64xf32>) -> tensor<10x64xf32>
  %e = sc.exp %clamped : tensor<10x64xf32>
  %kept = sc.select %keep, %e, %x : (tensor<10x64xi1>, tensor<10x64xf32>, tensor<10x64xf32>) -> tensor<10x64xf32>
  %q = sc.compare %x, %t {predicate = "lt"} : (tensor<10x64xf32>, tensor<10x1xf32>) -> tensor<10x64xi1>
  %qf = sc.cast %q : tensor<10x64xi1> to tensor<10x64xf32>
  %frac = sc.mean %qf {dims = array<i64: 1>} : (tensor<10x64xf32>) -> tensor<10xf32>
  // 4 or 3 bytes a rank: the host kernel check once sized such slots in
  // whole floats rounded down, and crashed on them.
  %tpos = sc.compare %t, %zero {predicate = "gt"} : (tensor<10x1xf32>, tensor<1x1xf32>) -> tensor<10x1xi1>
  // A masked sum and the mask's count: each one fused reduction reading the
  // mask input's bytes.
  %masked = sc.select %keep, %x, %zero : (tensor<10x64xi1>, tensor<10x64xf32>, tensor<1x1xf32>) -> tensor<10x64xf32>
  %msum = sc.sum %masked {dims = array<i64: 1>} : (tensor<10x64xf32>) -> tensor<10xf32>
  %keepf = sc.cast %keep : tensor<10x64xi1> to tensor<10x64xf32>
  %kcount = sc.sum %keepf {dims = array<i64: 1>} : (tensor<10x64xf32>) -> tensor<10xf32>
  return %kept, %frac, %over, %tpos, %msum, %kcount : tensor<10x64xf32>, tensor<10xf32>, tensor<10x64xi1>, tensor<10x1xi1>, tensor<10xf32>, tensor<10xf32>
}
// KERNELS-LABEL: rank class 'class0'
// KERNELS: ElementwiseFused "gt mul select"
// KERNELS-NEXT: Compare "ge"
// KERNELS-NEXT: ElementwiseFused "select exp select"
// KERNELS-NEXT: ReductionFused "mean lt"
// KERNELS-NEXT: Compare "gt"
// KERNELS-NEXT: ReductionFused "sum select" (%2, %0, %3)
// KERNELS-NEXT: ReductionFused "sum" (%2)
// KERNELS-NEXT: rank class 'class1'
// KERNELS: ElementwiseFused "gt mul select"
// KERNELS-NEXT: Compare "ge"
// KERNELS-NEXT: ElementwiseFused "select exp select"
// KERNELS-NEXT: ReductionFused "mean lt"
// KERNELS-NEXT: Compare "gt"
// KERNELS-NEXT: ReductionFused "sum select" (%2, %0, %3)
// KERNELS-NEXT: ReductionFused "sum" (%2)
// KERNELS-NOT: {{Select|Cast}}
// UNFUSED: Compare "gt"
// UNFUSED: Select
// CUDA: (a0 > a1) ? 1.0f : 0.0f;
// CUDA: != 0.0f) ? a0 : v1;
// CUDA: unsigned char *__restrict__ out) {
// CUDA: out[i] = v0 != 0.0f;
// CUDA: (const unsigned char *__restrict__ in0,
// CUDA: const float a0 = (__ldg(in0 + {{.*}}) != 0) ? 1.0f : 0.0f;
// CUDA: (a0 < a1) ? 1.0f : 0.0f;
// The masked sum: a reduction kernel loading the mask's bytes.
// CUDA: (const unsigned char *__restrict__ in0, const float *__restrict__ in1, const float *__restrict__ in2, float *__restrict__ out, double *__restrict__ partials,
// CUDA: const float a0 = (__ldg(in0 + {{.*}}) != 0) ? 1.0f : 0.0f;
// CUDA: const float v0 = (a0 != 0.0f) ? a1 : a2;
// HOSTCHECK: generated kernels ({{[1-9][0-9]*}} elementwise, {{[1-9][0-9]*}} reductions, {{.*}}: all match the CPU backend
// NUM-NOT: MISMATCH
// NUM: check result0: {{.*}}: ok
// NUM: check result1: {{.*}}: ok
// NUM: check result2: {{.*}}: ok
// NUM: check result3: {{.*}}: ok
// NUM: check result4: {{.*}}: ok
// NUM: check result5: {{.*}}: ok

//--- reshape.mlir
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %y: tensor<4x2x4xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}, {}]>}, %row: tensor<4x1xi1> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}) -> (tensor<4x8xf32>, tensor<4x2x4xf32>, tensor<4x2x4xf32>) {
  %a = sc.exp %x : tensor<4x8xf32>
  %m = sc.compare %a, %x {predicate = "gt"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %s = sc.select %m, %a, %a : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s1 = sc.select %row, %s, %a : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s2 = sc.select %m, %a, %x : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = sc.reshape %s1 : (tensor<4x8xf32>) -> tensor<4x2x4xf32>
  %z = sc.mul %r, %y : (tensor<4x2x4xf32>, tensor<4x2x4xf32>) -> tensor<4x2x4xf32>
  %t = sc.tanh %z : tensor<4x2x4xf32>
  %e = sc.exp %z : tensor<4x2x4xf32>
  return %s2, %t, %e : tensor<4x8xf32>, tensor<4x2x4xf32>, tensor<4x2x4xf32>
}
// RESHAPE: Copy (%2) -> %[[ROW:[0-9]+]]
// RESHAPE-NEXT: ElementwiseFused "select select mul" (%{{[0-9]+}}, %{{[0-9]+}}, %[[ROW]], %1)
// RESHAPENUM: check result0: {{.*}}: ok
// RESHAPENUM: check result1: {{.*}}: ok
// RESHAPENUM: check result2: {{.*}}: ok
