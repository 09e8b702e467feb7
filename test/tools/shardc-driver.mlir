// The shardc driver: --emit stages, --timing, options and located errors.

// RUN: shardc %s --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: shardc %s --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: shardc %s --emit=sharded | FileCheck %s --check-prefix=SHARDED
// RUN: shardc %s -O0 --emit=kernels | FileCheck %s --check-prefix=O0
// RUN: shardc %s -o %t.shardbin --timing 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: shard-run %t.shardbin --random-inputs | FileCheck %s --check-prefix=EXEC
// RUN: not shard-run %t.shardbin --random-inputs --check 2>&1 | FileCheck %s --check-prefix=NOREF
// RUN: not shardc %s --target=cuda --cuda-arch=sm_90,sm_x -o /dev/null 2>&1 | FileCheck %s --check-prefix=CUDA
// RUN: not shardc %s --cuda-arch=bogus -o /dev/null 2>&1 | FileCheck %s --check-prefix=CUDACPU
// RUN: shardc %s --cuda-arch=sm_80 -o /dev/null 2>&1 | FileCheck %s --check-prefix=CUDAWARN
// RUN: not shardc %s --target=tpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not shardc %s -O7 -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPT

// PLAN: rank class 'all': ranks [0]
// PLAN-NEXT: inputs: (2,4,16,16) (8,4,3,3) (8)
// PLAN-NEXT: outputs: (2,8) (2,8,16,16)
// PLAN-NEXT: instructions: 4, halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// PLAN-NEXT: arena: {{[0-9]+}} bytes (peak live {{[0-9]+}} bytes, {{[0-9.]+}}x)
// PLAN: F32(2,8,16,16)

// KERNELS: 0: Pad "reflect" (%0) -> %{{[0-9]+}} ints [0, 0, 1, 1, 0, 0, 1, 1] floats [0.000000e+00]  // sc.conv
// KERNELS-NEXT: 1: Conv (%{{[0-9]+}}, %1, %2) -> %{{[0-9]+}} ints [2, 1, 1, 0, 0, 1, 1, 1]  // sc.conv
// KERNELS-NEXT: 2: Unary "silu"
// KERNELS-NEXT: 3: Reduce "sum" {{.*}} ints [2, 3]

// SHARDED: sc.conv
// SHARDED: sc.silu

// The unused reshape goes away only when optimising.
// O0: Copy

// TIMING: Parse and verify
// TIMING: Canonicalizer
// TIMING: Lower, plan memory, serialise
// TIMING-NEXT: Partition and local passes
// TIMING-NEXT: ScPartition
// TIMING: Read rank classes
// TIMING-NEXT: Plan memory
// TIMING-NEXT: Write and check the artifact
// TIMING-NEXT: Check rank programs as the runtime

// EXEC: 1 rank(s) on cpu, 3 input(s), 2 output(s)
// NOREF: carries no reference model to check against

// CUDA: shardc: --cuda-arch: 'sm_x' is not an SM target (expected e.g. sm_80,sm_90)
// A bad --cuda-arch is an error on the CPU target too; a good one is ignored
// there, with a warning.
// CUDACPU: shardc: --cuda-arch: 'bogus' is not an SM target
// CUDAWARN: shardc: warning: --cuda-arch and --nvcc apply to --target=cuda only; ignored
// TARGET: shardc: unknown target 'tpu'
// OPT: shardc: -O7 (expected -O0 to -O3)

func.func @main(%x: tensor<2x4x16x16xf32>, %w: tensor<8x4x3x3xf32>,
                %b: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x8x16x16xf32>) {
  %c = sc.reshape %x : (tensor<2x4x16x16xf32>) -> tensor<2x4x256xf32>
  %y = sc.conv %x, %w, %b {padding = array<i64: 1, 1>, padding_mode = "reflect"}
      : (tensor<2x4x16x16xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<2x8x16x16xf32>
  %z = sc.silu %y : tensor<2x8x16x16xf32>
  %s = sc.sum %z {dims = array<i64: 2, 3>} : (tensor<2x8x16x16xf32>) -> tensor<2x8xf32>
  return %s, %z : tensor<2x8xf32>, tensor<2x8x16x16xf32>
}
