// sc-to-cpu and sc-to-cuda: shardc-opt runs what `shardc --target=T -O<n>`
// runs, up to the artifact writer, then plans memory. The two cannot drift
// apart: the partitioned program they print, written by `shardc -`, plans
// and lowers exactly as shardc's own compile of the source does, on this
// model and on the examples, for both targets at several levels.
// RUN: rm -rf %t && mkdir -p %t
// RUN: shardc-opt -sc-to-cpu=opt-level=0 %s | FileCheck %s --check-prefix=CPU0 --implicit-check-not=scl.pending --implicit-check-not=scl.fused
// RUN: shardc-opt -sc-to-cpu %s | FileCheck %s --check-prefix=CPU2 --implicit-check-not=scl.fused
// RUN: shardc-opt -sc-to-cpu=opt-level=3 %s | FileCheck %s --check-prefix=CPU3 --implicit-check-not='scl.kernel "Unary"' --implicit-check-not='scl.kernel "Binary"'
// RUN: shardc-opt -sc-to-cuda=opt-level=0 %s | FileCheck %s --check-prefix=CUDA0 --implicit-check-not=scl.pending --implicit-check-not='scl.kernel "Unary"' --implicit-check-not='scl.kernel "Binary"' --implicit-check-not='scl.kernel "Reduce"'
// RUN: shardc-opt -sc-to-cuda=opt-level=2 %s | FileCheck %s --check-prefix=CUDA2 --implicit-check-not='scl.kernel "Unary"' --implicit-check-not='scl.kernel "Binary"' --implicit-check-not='scl.kernel "Reduce"'
//
// The same plan as shardc's own compile (`shardc -` at -O0 lowers the
// given program as it is).
// RUN: shardc-opt -sc-to-cpu=opt-level=0 %s | shardc - -O0 --emit=plan > %t/cpu0.pipe
// RUN: shardc %s -O0 --emit=plan > %t/cpu0.shardc
// RUN: diff %t/cpu0.pipe %t/cpu0.shardc
// RUN: shardc-opt -sc-to-cpu=opt-level=3 %s | shardc - -O0 --emit=plan > %t/cpu3.pipe
// RUN: shardc %s -O3 --emit=plan > %t/cpu3.shardc
// RUN: diff %t/cpu3.pipe %t/cpu3.shardc
// RUN: shardc-opt -sc-to-cuda=opt-level=2 %s | shardc - -O0 --target=cuda --emit=plan > %t/cuda2.pipe
// RUN: shardc %s -O2 --target=cuda --emit=plan > %t/cuda2.shardc
// RUN: diff %t/cuda2.pipe %t/cuda2.shardc
// RUN: shardc-opt -sc-to-cpu %S/../../examples/unet2d.mlir | shardc - -O0 --emit=plan > %t/unet-cpu.pipe
// RUN: shardc %S/../../examples/unet2d.mlir --emit=plan > %t/unet-cpu.shardc
// RUN: diff %t/unet-cpu.pipe %t/unet-cpu.shardc
// RUN: shardc-opt -sc-to-cuda=opt-level=1 %S/../../examples/unet2d.mlir | shardc - -O0 --target=cuda --emit=plan > %t/unet-cuda.pipe
// RUN: shardc %S/../../examples/unet2d.mlir -O1 --target=cuda --emit=plan > %t/unet-cuda.shardc
// RUN: diff %t/unet-cuda.pipe %t/unet-cuda.shardc
// RUN: shardc-opt -sc-to-cuda %S/../../examples/attention.mlir | shardc - -O0 --target=cuda --emit=plan > %t/attn-cuda.pipe
// RUN: shardc %S/../../examples/attention.mlir --target=cuda --emit=plan > %t/attn-cuda.shardc
// RUN: diff %t/attn-cuda.pipe %t/attn-cuda.shardc
//
// What the CUDA pipeline prints runs, on the CPU backend, to the model's
// unpartitioned result.
// RUN: shardc-opt -sc-to-cuda %s | shardc - -O0 --reference %s -o %t/cuda.shardbin
// RUN: shard-run %t/cuda.shardbin --random-inputs --seed 3 --check | FileCheck %s --check-prefix=NUM

// conv -> group_norm -> SiLU -> conv, rows split 8/7/5 over 3 ranks: halo
// exchanges, the norm's global statistics, elementwise work to fuse.
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<1x4x20x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[8, 7, 5], {}]>},
                %w1: tensor<8x4x3x3xf32>, %b1: tensor<8xf32>, %g: tensor<8xf32>,
                %w2: tensor<4x8x3x3xf32>, %b2: tensor<4xf32>) -> tensor<1x4x20x8xf32> {
  %a = sc.conv %x, %w1, %b1 {padding = array<i64: 1, 1>} : (tensor<1x4x20x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x20x8xf32>
  %n = sc.group_norm %a, %g, %g {num_groups = 2} : (tensor<1x8x20x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x20x8xf32>
  %s = sc.silu %n : tensor<1x8x20x8xf32>
  %y = sc.conv %s, %w2, %b2 {padding = array<i64: 1, 1>} : (tensor<1x8x20x8xf32>, tensor<4x8x3x3xf32>, tensor<4xf32>) -> tensor<1x4x20x8xf32>
  return %y : tensor<1x4x20x8xf32>
}

// -O0 on the CPU: plain kernels, blocking exchanges, an arena planned.
// CPU0-LABEL: func.func @main_class0
// CPU0-SAME: scl.arena_bytes =
// CPU0: scl.halo_exchange
// CPU0: scl.kernel "Conv"
// CPU0: scl.all_gather
// CPU0: scl.kernel "Unary" mode "silu"
// CPU0: scl.kernel "Conv"
// CPU0: return

// -O2: each convolution computes its interior while its halo is in flight.
// CPU2-LABEL: func.func @main_class0
// CPU2: scl.halo_exchange
// CPU2: scl.kernel "Conv"
// CPU2: scl.wait
// CPU2: scl.kernel "Conv"
// CPU2: scl.kernel "Unary" mode "silu"
// CPU2: return

// -O3 fuses the elementwise work on the CPU too.
// CPU3-LABEL: func.func @main_class0
// CPU3: scl.fused_reduction "sum"
// CPU3: scl.fused_elementwise
// CPU3: scl.wait
// CPU3: return

// The CUDA target expands the norm and fuses every computing kernel, even
// at -O0, where exchanges still block.
// CUDA0-LABEL: func.func @main_class0
// CUDA0: scl.fused_reduction "mean"
// CUDA0: scl.fused_elementwise
// CUDA0: scl.scalar "silu"
// CUDA0: return

// CUDA2-LABEL: func.func @main_class0
// CUDA2: scl.halo_exchange
// CUDA2: scl.wait
// CUDA2: scl.fused_reduction "mean"
// CUDA2: scl.scalar "silu"
// CUDA2: return

// NUM: 3 rank(s)
// NUM: check result0: max abs error {{.*}}: ok
