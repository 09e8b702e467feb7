// sc-fuse with bf16 and f16 buffers: a cast up joins a fused body passing
// the value through (the kernel widens the 16-bit input as it reads it), a
// cast down joins as "bf16" / "f16", which rounds the register to that
// type's values, and a 16-bit output stores the rounded value. So a chain
// that sc-compute-in-f32 wrote as cast, op, cast, cast, op, cast is one
// kernel that still rounds after every op, as PyTorch's eager kernels do.
// (A cast whose f32 value two kernels read stays a kernel of its own, as
// any buffer with two readers does.) A fused reduction reads a 16-bit
// input too. Numerically,
// test/Partition/half-precision.mlir checks -O3 and the CUDA target bit for
// bit against Python.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc-opt -sc-fuse %t/chain.mlir | FileCheck %s --check-prefix=CHAIN
// RUN: shardc-opt -sc-fuse %t/chain.mlir | shardc-opt | FileCheck %s --check-prefix=CHAIN
// RUN: shardc-opt -sc-fuse %t/sum.mlir | FileCheck %s --check-prefix=SUM
// RUN: shardc %t/model.mlir -O3 -o %t/o3.shardbin
// RUN: shard-run %t/o3.shardbin --random-inputs --seed 3 --check --atol 0 --rtol 0 | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/model.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --random-inputs --seed 4 --check --atol 0 --rtol 0 --backend cuda | FileCheck %s --check-prefix=NUM

//--- chain.mlir
sc.mesh @mesh ["x"=2]
// tanh(silu(x)) in bf16, as sc-compute-in-f32 writes it.
func.func @class0(%x: memref<2x8xbf16>) -> memref<2x8xbf16>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %w = memref.alloc() : memref<2x8xf32>
  scl.kernel "Cast" ins(%x : memref<2x8xbf16>) outs(%w : memref<2x8xf32>)
  %s = memref.alloc() : memref<2x8xf32>
  scl.kernel "Unary" mode "silu" ins(%w : memref<2x8xf32>) outs(%s : memref<2x8xf32>)
  %sn = memref.alloc() : memref<2x8xbf16>
  scl.kernel "Cast" ins(%s : memref<2x8xf32>) outs(%sn : memref<2x8xbf16>)
  %sw = memref.alloc() : memref<2x8xf32>
  scl.kernel "Cast" ins(%sn : memref<2x8xbf16>) outs(%sw : memref<2x8xf32>)
  %t = memref.alloc() : memref<2x8xf32>
  scl.kernel "Unary" mode "tanh" ins(%sw : memref<2x8xf32>) outs(%t : memref<2x8xf32>)
  %y = memref.alloc() : memref<2x8xbf16>
  scl.kernel "Cast" ins(%t : memref<2x8xf32>) outs(%y : memref<2x8xbf16>)
  return %y : memref<2x8xbf16>
}
// CHAIN-LABEL: func.func @class0
// CHAIN-NOT: xf32>
// CHAIN: %[[OUT:.*]] = memref.alloc() : memref<2x8xbf16>
// CHAIN-NEXT: scl.fused_elementwise ins(%arg0 : memref<2x8xbf16>) outs(%[[OUT]] : memref<2x8xbf16>) {
// CHAIN-NEXT: ^bb0(%[[X:.*]]: f32):
// CHAIN-NEXT: %[[S:.*]] = scl.scalar "silu"(%[[X]]) : f32
// CHAIN-NEXT: %[[SN:.*]] = scl.scalar "bf16"(%[[S]]) : f32
// CHAIN-NEXT: %[[T:.*]] = scl.scalar "tanh"(%[[SN]]) : f32
// CHAIN-NEXT: %[[Y:.*]] = scl.scalar "bf16"(%[[T]]) : f32
// CHAIN-NEXT: scl.yield %[[Y]] : f32
// CHAIN-NEXT: }
// CHAIN-NOT: scl.kernel

//--- sum.mlir
sc.mesh @mesh ["x"=2]
// An f16 input widened and summed: one fused reduction reading the f16.
func.func @class0(%x: memref<4x8xf16>) -> memref<4xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %w = memref.alloc() : memref<4x8xf32>
  scl.kernel "Cast" ins(%x : memref<4x8xf16>) outs(%w : memref<4x8xf32>)
  %s = memref.alloc() : memref<4xf32>
  scl.kernel "Reduce" mode "sum" ins(%w : memref<4x8xf32>) outs(%s : memref<4xf32>) {ints = array<i64: 1>}
  return %s : memref<4xf32>
}
// SUM-LABEL: func.func @class0
// SUM-NOT: memref<4x8xf32>
// SUM: scl.fused_reduction "sum" dims [1] over [4, 8] ins(%arg0 : memref<4x8xf16>)
// SUM-NOT: scl.kernel

//--- model.mlir
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<5x16xbf16> {sc.sharding = #sc.sharding<@m, [{"x"}[2, 0, 3], {}]>}, %h: tensor<5x16xf16>)
    -> (tensor<5x16xbf16>, tensor<5xbf16>, tensor<5x16xf16>) {
  %s = sc.silu %x : tensor<5x16xbf16>
  %a = sc.add %s, %x : (tensor<5x16xbf16>, tensor<5x16xbf16>) -> tensor<5x16xbf16>
  %m = sc.mean %a {dims = array<i64: 1>} : (tensor<5x16xbf16>) -> tensor<5xbf16>
  %e = sc.exp %h : tensor<5x16xf16>
  %t = sc.tanh %e : tensor<5x16xf16>
  return %a, %m, %t : tensor<5x16xbf16>, tensor<5xbf16>, tensor<5x16xf16>
}
// NUM-COUNT-3: check result{{[0-9]}}: max abs error 0, {{.*}}: ok
