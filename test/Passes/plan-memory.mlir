// sc-plan-memory: arena offsets on every rank-class function, reused once a
// buffer is dead, used as written by the artifact writer (which checks them
// against liveness), and within 1.1x of the lower bound on the examples.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc-opt -sc-plan-memory %t/chain.mlir | FileCheck %s --check-prefix=CHAIN
// RUN: shardc-opt -sc-plan-memory %t/chain.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: shardc-opt -sc-plan-memory %t/chain.mlir | shardc-opt -sc-plan-memory | FileCheck %s --check-prefix=CHAIN
// RUN: not shardc %t/clash.mlir --emit=plan 2>&1 | FileCheck %s --check-prefix=CLASH
// RUN: not shardc %t/missing.mlir --emit=plan 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: for m in unet2d convnet3d attention; do shardc %S/../../examples/$m.mlir --emit=plan; done > %t.plans
// The UNet in bf16 alternates 2- and 4-byte buffers (activations and their
// f32 casts), which the orders by size leave full of holes.
// RUN: sed 's/xf32>/xbf16>/g' %S/../../examples/unet2d.mlir | shardc - --emit=plan >> %t.plans
// RUN: FileCheck %s --check-prefix=RATIO --input-file %t.plans
// RUN: grep 'arena:' %t.plans | not grep -vE ', 1\.0[0-9]+x\)$'
// RUN: shardc-opt -sc-partition-pipeline %S/../../examples/unet2d.mlir | FileCheck %s --check-prefix=PIPE

//--- chain.mlir
// relu -> neg -> relu: %0 is dead once %1 is written, so %2 takes its bytes.
sc.mesh @mesh ["x"=2]
func.func private @main(tensor<512xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}]>}) -> (tensor<512xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}]>})
    attributes {scl.rank_classes = [@main_class0]}
func.func @main_class0(%x: memref<256xf32>) -> memref<256xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %0 = memref.alloc() : memref<256xf32>
  scl.kernel "Unary" mode "relu" ins(%x : memref<256xf32>) outs(%0 : memref<256xf32>)
  %1 = memref.alloc() : memref<256xf32>
  scl.kernel "Unary" mode "neg" ins(%0 : memref<256xf32>) outs(%1 : memref<256xf32>)
  %2 = memref.alloc() : memref<256xf32>
  scl.kernel "Unary" mode "relu" ins(%1 : memref<256xf32>) outs(%2 : memref<256xf32>)
  return %2 : memref<256xf32>
}
// CHAIN: func.func @main_class0({{.*}}) -> memref<256xf32> attributes {scl.arena_bytes = 3072 : i64, scl.input_offsets = array<i64: 0>
// CHAIN-NEXT: memref.alloc() {scl.offset = 1024 : i64}
// CHAIN: memref.alloc() {scl.offset = 2048 : i64}
// CHAIN: memref.alloc() {scl.offset = 1024 : i64}
// PLAN: arena: 3072 bytes (peak live 3072 bytes, 1.000x)
// PLAN-NEXT: %0 F32(256) 1024 B @0 live [0, 3]
// PLAN-NEXT: %1 F32(256) 1024 B @1024 live [0, 1]
// PLAN-NEXT: %2 F32(256) 1024 B @2048 live [1, 2]
// PLAN-NEXT: %3 F32(256) 1024 B @1024 live [2, 3]

//--- clash.mlir
// A hand-written plan that puts %1 on the bytes of %0 while %0 is read.
sc.mesh @mesh ["x"=2]
func.func private @main(tensor<512xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}]>}) -> (tensor<512xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}]>})
    attributes {scl.rank_classes = [@main_class0]}
// CLASH: clash.mlir:[[@LINE+1]]:1: error: 'func.func' op has a memory plan that does not hold: buffers 1 and 2 live together and share bytes
func.func @main_class0(%x: memref<256xf32>) -> memref<256xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>,
                scl.arena_bytes = 3072, scl.input_offsets = array<i64: 0>} {
  %0 = memref.alloc() {scl.offset = 1024} : memref<256xf32>
  scl.kernel "Unary" mode "relu" ins(%x : memref<256xf32>) outs(%0 : memref<256xf32>)
  %1 = memref.alloc() {scl.offset = 1024} : memref<256xf32>
  scl.kernel "Unary" mode "neg" ins(%0 : memref<256xf32>) outs(%1 : memref<256xf32>)
  return %1 : memref<256xf32>
}

//--- missing.mlir
sc.mesh @mesh ["x"=2]
func.func private @main(tensor<512xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}]>}) -> (tensor<512xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}]>})
    attributes {scl.rank_classes = [@main_class0]}
func.func @main_class0(%x: memref<256xf32>) -> memref<256xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>,
                scl.arena_bytes = 3072, scl.input_offsets = array<i64: 0>} {
  // MISSING: missing.mlir:[[@LINE+1]]:8: error: 'memref.alloc' op has no 'scl.offset' in a function with a memory plan
  %0 = memref.alloc() : memref<256xf32>
  scl.kernel "Unary" mode "relu" ins(%x : memref<256xf32>) outs(%0 : memref<256xf32>)
  return %0 : memref<256xf32>
}

// Every rank class of the examples within 1.1x of its lower bound: the
// grep above fails on any arena line whose ratio is not 1.0xx; this checks
// that plans were printed at all (at least three arena lines).
// RATIO-COUNT-3: arena: {{[0-9]+}} bytes (peak live {{[0-9]+}} bytes, 1.0{{[0-9]+}}x)
// PIPE-COUNT-4: attributes {scl.arena_bytes =
