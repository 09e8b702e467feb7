// sc-sink-bias: a Conv's or Linear's bias moves into the kernels that read
// its output (through reshaping copies and views), each re-expressed over
// a space that separates channels where it does not already, so the
// library op never makes a pass of its own to add it. Refused when the
// output is returned or read by anything but a fused, Reduce or
// elementwise kernel, when a second op writes it, when a reader would
// have to write a returned buffer through a view, or when the bias is
// overwritten before a reader adds it. Numerically, the moved
// bias matches the unpartitioned reference, fused (-O3) and not (-O1),
// and shardc leaves the bias alone on the CPU target unless asked.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc-opt -sc-fuse -sc-sink-bias %t/sink.mlir | FileCheck %s --check-prefix=SINK
// RUN: shardc-opt -sc-fuse -sc-sink-bias %t/sink.mlir | shardc-opt | FileCheck %s --check-prefix=SINK
// RUN: shardc-opt -sc-sink-bias %t/keep.mlir | FileCheck %s --check-prefix=KEEP
// RUN: shardc %t/model.mlir -O3 --sink-bias --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: shardc %t/model.mlir -O3 --emit=kernels | FileCheck %s --check-prefix=DEFAULT
// RUN: shardc %t/model.mlir -O3 --sink-bias -o %t/o3.shardbin
// RUN: shard-run %t/o3.shardbin --random-inputs --seed 3 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/model.mlir -O1 --sink-bias -o %t/o1.shardbin
// RUN: shard-run %t/o1.shardbin --random-inputs --seed 4 --check | FileCheck %s --check-prefix=NUM

//--- sink.mlir
sc.mesh @mesh ["x"=2]
// A group norm's statistics of a conv's output on (groups, elements): the
// mean (a plain Reduce) and the centred squares (fused by sc-fuse) both
// run over (2, 4, 16) and add the bias, copied once as (2, 4, 1).
func.func @stats(%x: memref<1x4x4x4xf32>, %w: memref<8x4x3x3xf32>, %b: memref<8xf32>) -> memref<2x1xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %y = memref.alloc() : memref<1x8x4x4xf32>
  scl.kernel "Conv" ins(%x, %w, %b : memref<1x4x4x4xf32>, memref<8x4x3x3xf32>, memref<8xf32>) outs(%y : memref<1x8x4x4xf32>) {ints = array<i64: 2, 1, 1, 1, 1, 1, 1, 1>}
  %g = memref.alloc() : memref<2x64xf32>
  scl.kernel "Copy" ins(%y : memref<1x8x4x4xf32>) outs(%g : memref<2x64xf32>)
  %m = memref.alloc() : memref<2x1xf32>
  scl.kernel "Reduce" mode "mean" ins(%g : memref<2x64xf32>) outs(%m : memref<2x1xf32>) {ints = array<i64: 1>}
  %d = memref.alloc() : memref<2x64xf32>
  scl.kernel "Binary" mode "sub" ins(%g, %m : memref<2x64xf32>, memref<2x1xf32>) outs(%d : memref<2x64xf32>)
  %q = memref.alloc() : memref<2x64xf32>
  scl.kernel "Binary" mode "mul" ins(%d, %d : memref<2x64xf32>, memref<2x64xf32>) outs(%q : memref<2x64xf32>)
  %v = memref.alloc() : memref<2x1xf32>
  scl.kernel "Reduce" mode "sum" ins(%q : memref<2x64xf32>) outs(%v : memref<2x1xf32>) {ints = array<i64: 1>}
  return %v : memref<2x1xf32>
}
// SINK-LABEL: func.func @stats
// SINK: %[[B:.*]] = memref.alloc() : memref<2x4x1xf32>
// SINK-NEXT: scl.kernel "Copy" ins(%arg2 : memref<8xf32>) outs(%[[B]] : memref<2x4x1xf32>)
// SINK-NEXT: scl.kernel "Conv" ins(%arg0, %arg1 : memref<1x4x4x4xf32>, memref<8x4x3x3xf32>) outs(%[[Y:.*]] : memref<1x8x4x4xf32>)
// SINK: scl.kernel "Copy" ins(%[[Y]] : memref<1x8x4x4xf32>) outs(%[[G:.*]] : memref<2x64xf32>)
// SINK-NOT: scl.kernel "Reduce"
// SINK: %[[GV:.*]] = scl.view %[[G]] : memref<2x64xf32> to memref<2x4x16xf32>
// SINK-NEXT: scl.fused_reduction "mean" dims [1, 2] over [2, 4, 16] ins(%[[GV]], %[[B]] : memref<2x4x16xf32>, memref<2x4x1xf32>) outs(%[[M:.*]] : memref<2x1xf32>) {
// SINK-NEXT: ^bb0(%[[A:.*]]: f32, %[[C:.*]]: f32):
// SINK-NEXT: %[[S:.*]] = scl.scalar "add"(%[[A]], %[[C]]) : f32
// SINK-NEXT: scl.yield %[[S]] : f32
// SINK-NOT: scl.kernel "Reduce"
// SINK: %[[MV:.*]] = scl.view %[[M]] : memref<2x1xf32> to memref<2x1x1xf32>
// SINK-NEXT: scl.fused_reduction "sum" dims [1, 2] over [2, 4, 16] ins(%{{.*}}, %[[MV]], %[[B]] : memref<2x4x16xf32>, memref<2x1x1xf32>, memref<2x4x1xf32>)
// SINK-NEXT: ^bb0(%[[X0:.*]]: f32, %[[X1:.*]]: f32, %[[X2:.*]]: f32):
// SINK-NEXT: %[[T:.*]] = scl.scalar "add"(%[[X0]], %[[X2]]) : f32
// SINK-NEXT: %[[D:.*]] = scl.scalar "sub"(%[[T]], %[[X1]]) : f32
// SINK-NEXT: scl.scalar "mul"(%[[D]], %[[D]]) : f32
// SINK-NOT: scl.kernel "Reduce"
// SINK-LABEL: func.func @linear

// A Linear whose output one GELU reads: the space (6, 8) already separates
// the 8 channels, so the kernel keeps it and reads the bias as it is, and
// writes the returned buffer in place.
func.func @linear(%x: memref<6x5xf32>, %w: memref<8x5xf32>, %b: memref<8xf32>) -> memref<6x8xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %y = memref.alloc() : memref<6x8xf32>
  scl.kernel "Linear" ins(%x, %w, %b : memref<6x5xf32>, memref<8x5xf32>, memref<8xf32>) outs(%y : memref<6x8xf32>)
  %z = memref.alloc() : memref<6x8xf32>
  scl.kernel "Unary" mode "gelu" ins(%y : memref<6x8xf32>) outs(%z : memref<6x8xf32>)
  return %z : memref<6x8xf32>
}
// SINK: scl.kernel "Linear" ins(%arg0, %arg1 : memref<6x5xf32>, memref<8x5xf32>) outs(%[[Y:.*]] : memref<6x8xf32>)
// SINK-NEXT: %[[Z:.*]] = memref.alloc() : memref<6x8xf32>
// SINK-NEXT: scl.fused_elementwise ins(%[[Y]], %arg2 : memref<6x8xf32>, memref<8xf32>) outs(%[[Z]] : memref<6x8xf32>) {
// SINK-NEXT: ^bb0(%[[A:.*]]: f32, %[[C:.*]]: f32):
// SINK-NEXT: %[[S:.*]] = scl.scalar "add"(%[[A]], %[[C]]) : f32
// SINK-NEXT: %[[G:.*]] = scl.scalar "gelu"(%[[S]]) : f32
// SINK-NEXT: scl.yield %[[G]] : f32
// SINK: return %[[Z]]

//--- keep.mlir
sc.mesh @mesh ["x"=2]
// @returned: the conv's output is the program's. @padded: a Pad reads it.
// @twice: two convs write it (an interior and a boundary part).
// @through_view: a reader would write the returned buffer through a view
// on (2, 4, 16). @bias_written: the first reader overwrites the bias the
// later readers would add. Each keeps its bias in the library op.
func.func @returned(%x: memref<1x4x4x4xf32>, %w: memref<8x4x3x3xf32>, %b: memref<8xf32>) -> memref<1x8x4x4xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %y = memref.alloc() : memref<1x8x4x4xf32>
  scl.kernel "Conv" ins(%x, %w, %b : memref<1x4x4x4xf32>, memref<8x4x3x3xf32>, memref<8xf32>) outs(%y : memref<1x8x4x4xf32>) {ints = array<i64: 2, 1, 1, 1, 1, 1, 1, 1>}
  %z = memref.alloc() : memref<1x8x4x4xf32>
  scl.kernel "Unary" mode "relu" ins(%y : memref<1x8x4x4xf32>) outs(%z : memref<1x8x4x4xf32>)
  return %y : memref<1x8x4x4xf32>
}
// KEEP-LABEL: func.func @returned
// KEEP: scl.kernel "Conv" ins(%arg0, %arg1, %arg2 :
// KEEP-NOT: scl.fused_elementwise
func.func @padded(%x: memref<1x4x4x4xf32>, %w: memref<8x4x3x3xf32>, %b: memref<8xf32>) -> memref<1x8x5x4xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %y = memref.alloc() : memref<1x8x4x4xf32>
  scl.kernel "Conv" ins(%x, %w, %b : memref<1x4x4x4xf32>, memref<8x4x3x3xf32>, memref<8xf32>) outs(%y : memref<1x8x4x4xf32>) {ints = array<i64: 2, 1, 1, 1, 1, 1, 1, 1>}
  %z = memref.alloc() : memref<1x8x4x4xf32>
  scl.kernel "Unary" mode "relu" ins(%y : memref<1x8x4x4xf32>) outs(%z : memref<1x8x4x4xf32>)
  %p = memref.alloc() : memref<1x8x5x4xf32>
  scl.kernel "Pad" mode "constant" ins(%y : memref<1x8x4x4xf32>) outs(%p : memref<1x8x5x4xf32>) {floats = array<f64: 0.0>, ints = array<i64: 0, 0, 0, 0, 0, 0, 1, 0>}
  return %p : memref<1x8x5x4xf32>
}
// KEEP-LABEL: func.func @padded
// KEEP: scl.kernel "Conv" ins(%arg0, %arg1, %arg2 :
// KEEP-NOT: scl.fused_elementwise
func.func @twice(%x: memref<1x4x4x4xf32>, %w: memref<8x4x3x3xf32>, %b: memref<8xf32>) -> memref<1x8x4x4xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %y = memref.alloc() : memref<1x8x4x4xf32>
  scl.kernel "Conv" ins(%x, %w, %b : memref<1x4x4x4xf32>, memref<8x4x3x3xf32>, memref<8xf32>) outs(%y : memref<1x8x4x4xf32>) {ints = array<i64: 2, 1, 1, 1, 1, 1, 1, 1, 0, 0, 2, 4>}
  scl.kernel "Conv" ins(%x, %w, %b : memref<1x4x4x4xf32>, memref<8x4x3x3xf32>, memref<8xf32>) outs(%y : memref<1x8x4x4xf32>) {ints = array<i64: 2, 1, 1, 1, 1, 1, 1, 1, 2, 0, 4, 4>}
  %z = memref.alloc() : memref<1x8x4x4xf32>
  scl.kernel "Unary" mode "relu" ins(%y : memref<1x8x4x4xf32>) outs(%z : memref<1x8x4x4xf32>)
  return %z : memref<1x8x4x4xf32>
}
// KEEP-LABEL: func.func @twice
// KEEP: scl.kernel "Conv" ins(%arg0, %arg1, %arg2 :
// KEEP-NEXT: scl.kernel "Conv" ins(%arg0, %arg1, %arg2 :
// KEEP-NOT: scl.fused_elementwise
func.func @through_view(%x: memref<1x4x4x4xf32>, %w: memref<8x4x3x3xf32>, %b: memref<8xf32>) -> memref<2x64xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %y = memref.alloc() : memref<1x8x4x4xf32>
  scl.kernel "Conv" ins(%x, %w, %b : memref<1x4x4x4xf32>, memref<8x4x3x3xf32>, memref<8xf32>) outs(%y : memref<1x8x4x4xf32>) {ints = array<i64: 2, 1, 1, 1, 1, 1, 1, 1>}
  %g = memref.alloc() : memref<2x64xf32>
  scl.kernel "Copy" ins(%y : memref<1x8x4x4xf32>) outs(%g : memref<2x64xf32>)
  %z = memref.alloc() : memref<2x64xf32>
  scl.kernel "Unary" mode "relu" ins(%g : memref<2x64xf32>) outs(%z : memref<2x64xf32>)
  return %z : memref<2x64xf32>
}
// KEEP-LABEL: func.func @through_view
// KEEP: scl.kernel "Conv" ins(%arg0, %arg1, %arg2 :
// KEEP-NOT: scl.fused_elementwise
// KEEP-NOT: scl.view

func.func @bias_written(%x: memref<5xf32>, %w: memref<8x5xf32>, %b: memref<8xf32>) -> memref<8xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %bt = memref.alloc() : memref<8xf32>
  scl.kernel "Unary" mode "neg" ins(%b : memref<8xf32>) outs(%bt : memref<8xf32>)
  %y = memref.alloc() : memref<8xf32>
  scl.kernel "Linear" ins(%x, %w, %bt : memref<5xf32>, memref<8x5xf32>, memref<8xf32>) outs(%y : memref<8xf32>)
  scl.kernel "Unary" mode "relu" ins(%y : memref<8xf32>) outs(%bt : memref<8xf32>)
  %z = memref.alloc() : memref<8xf32>
  scl.kernel "Binary" mode "add" ins(%y, %bt : memref<8xf32>, memref<8xf32>) outs(%z : memref<8xf32>)
  return %z : memref<8xf32>
}
// KEEP-LABEL: func.func @bias_written
// KEEP: scl.kernel "Linear" ins(%arg0, %arg1, %[[BT:.*]] :
// KEEP-NOT: scl.fused_elementwise

//--- model.mlir
sc.mesh @mesh ["x"=3]
// conv -> group norm -> silu -> conv (its output returned through a relu),
// a Linear over the last dim into a GELU, and a stride-2 transposed conv
// squared (both operands of the mul get the bias), on 3 uneven ranks.
func.func @main(%x: tensor<1x4x10x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>}, %w1: tensor<8x4x3x3xf32>, %b1: tensor<8xf32>, %g: tensor<8xf32>, %be: tensor<8xf32>, %w2: tensor<4x8x3x3xf32>, %b2: tensor<4xf32>, %lw: tensor<5x6xf32>, %lb: tensor<5xf32>, %tw: tensor<4x3x2x2xf32>, %tb: tensor<3xf32>) -> (tensor<1x4x10x6xf32>, tensor<1x4x10x5xf32>, tensor<1x3x20x12xf32>) {
  %a = sc.conv %x, %w1, %b1 {padding = array<i64: 1, 1>} : (tensor<1x4x10x6xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x10x6xf32>
  %n = sc.group_norm %a, %g, %be {num_groups = 2} : (tensor<1x8x10x6xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x10x6xf32>
  %s = sc.silu %n : tensor<1x8x10x6xf32>
  %c = sc.conv %s, %w2, %b2 {padding = array<i64: 1, 1>} : (tensor<1x8x10x6xf32>, tensor<4x8x3x3xf32>, tensor<4xf32>) -> tensor<1x4x10x6xf32>
  %r = sc.relu %c : tensor<1x4x10x6xf32>
  %l = sc.linear %x, %lw, %lb : (tensor<1x4x10x6xf32>, tensor<5x6xf32>, tensor<5xf32>) -> tensor<1x4x10x5xf32>
  %e = sc.gelu %l : tensor<1x4x10x5xf32>
  %u = sc.conv_transpose %x, %tw, %tb {stride = array<i64: 2, 2>} : (tensor<1x4x10x6xf32>, tensor<4x3x2x2xf32>, tensor<3xf32>) -> tensor<1x3x20x12xf32>
  %q = sc.mul %u, %u : (tensor<1x3x20x12xf32>, tensor<1x3x20x12xf32>) -> tensor<1x3x20x12xf32>
  return %r, %e, %q : tensor<1x4x10x6xf32>, tensor<1x4x10x5xf32>, tensor<1x3x20x12xf32>
}
// Every library op drops its bias; the readers add it.
// KERNELS: rank class 'class0'
// KERNELS-NOT: Conv (%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}})
// KERNELS: ReductionFused "mean add"
// KERNELS: ReductionFused "sum add sub mul"
// KERNELS: ElementwiseFused "add sub mul mul add silu"
// KERNELS: Conv (%{{[0-9]+}}, %{{[0-9]+}}) ->
// KERNELS: ElementwiseFused "add relu"
// KERNELS: Linear (%{{[0-9]+}}, %{{[0-9]+}}) ->
// KERNELS-NEXT: ElementwiseFused "add gelu"
// KERNELS: ConvTranspose (%{{[0-9]+}}, %{{[0-9]+}}) ->
// KERNELS-NEXT: ElementwiseFused "add add mul"
// KERNELS: rank class 'class1'
// DEFAULT: rank class 'class0'
// DEFAULT: Conv (%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}})
// DEFAULT: Linear (%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}})
// NUM: check result0: {{.*}}: ok
// NUM: check result1: {{.*}}: ok
// NUM: check result2: {{.*}}: ok
