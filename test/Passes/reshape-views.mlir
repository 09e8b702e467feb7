// sc-reshape-views: a Copy that only reshapes a temporary becomes an
// scl.view when nothing writes either side from the copy on. Inputs,
// returned buffers, buffers written again and copies with a second writer
// keep their copy. Numerically, a group norm (which views its input as
// (groups, elements) and its result back) on 3 uneven ranks matches the
// single-rank reference, with the views' sources kept live by the memory
// plan until their last reader.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc-opt -sc-reshape-views %t/norm.mlir | FileCheck %s --check-prefix=NORM
// RUN: shardc-opt -sc-reshape-views %t/norm.mlir | shardc-opt | FileCheck %s --check-prefix=NORM
// RUN: shardc-opt -sc-reshape-views %t/refusals.mlir | FileCheck %s --check-prefix=KEEP
// RUN: shardc %t/model.mlir -O1 --emit=partitioned | FileCheck %s --check-prefix=MODEL
// RUN: shardc %t/model.mlir -O1 --reshape-views=false --emit=partitioned | FileCheck %s --check-prefix=OFF
// RUN: shardc %t/model.mlir -O0 --emit=partitioned | FileCheck %s --check-prefix=OFF
// RUN: shardc %t/model.mlir -O1 --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: shardc %t/model.mlir -O1 --emit=kernels | FileCheck %s --check-prefix=PLAN-KERNELS
// An earlier sc-plan-memory plan does not hold once views keep their
// sources live longer: the pass drops it and shardc plans again.
// RUN: shardc-opt -sc-partition-pipeline -sc-reshape-views %t/model.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=REPLAN
// RUN: shardc %t/model.mlir -O1 -o %t/o1.shardbin
// RUN: shard-run %t/o1.shardbin --random-inputs --seed 5 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %t/model.mlir -O3 -o %t/o3.shardbin
// RUN: shard-run %t/o3.shardbin --random-inputs --seed 6 --check | FileCheck %s --check-prefix=NUM

//--- norm.mlir
sc.mesh @mesh ["x"=2]
// The statistics read %y through a view; the normalised rows go back to
// the activation's shape through a second view (of a view's reader's
// output), and only the copy into the returned buffer stays.
func.func @class0(%x: memref<1x4x2x3xf32>, %m: memref<2x1xf32>) -> (memref<1x4x2x3xf32>, memref<2x1xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %y = memref.alloc() : memref<1x4x2x3xf32>
  scl.kernel "Unary" mode "relu" ins(%x : memref<1x4x2x3xf32>) outs(%y : memref<1x4x2x3xf32>)
  %g = memref.alloc() : memref<2x12xf32>
  scl.kernel "Copy" ins(%y : memref<1x4x2x3xf32>) outs(%g : memref<2x12xf32>)
  %s = memref.alloc() : memref<2x1xf32>
  scl.kernel "Reduce" mode "mean" ins(%g : memref<2x12xf32>) outs(%s : memref<2x1xf32>) {ints = array<i64: 1>}
  %d = memref.alloc() : memref<2x12xf32>
  scl.kernel "Binary" mode "sub" ins(%g, %m : memref<2x12xf32>, memref<2x1xf32>) outs(%d : memref<2x12xf32>)
  %z = memref.alloc() : memref<1x4x2x3xf32>
  scl.kernel "Copy" ins(%d : memref<2x12xf32>) outs(%z : memref<1x4x2x3xf32>)
  %w = memref.alloc() : memref<24xf32>
  scl.kernel "Copy" ins(%z : memref<1x4x2x3xf32>) outs(%w : memref<24xf32>)
  %out = memref.alloc() : memref<1x4x2x3xf32>
  scl.kernel "Copy" ins(%w : memref<24xf32>) outs(%out : memref<1x4x2x3xf32>)
  return %out, %s : memref<1x4x2x3xf32>, memref<2x1xf32>
}
// NORM-LABEL: func.func @class0
// NORM: scl.kernel "Unary" mode "relu" {{.*}} outs(%[[Y:[a-z0-9_]+]] :
// NORM-NEXT: %[[G:.*]] = scl.view %[[Y]] : memref<1x4x2x3xf32> to memref<2x12xf32>
// NORM: scl.kernel "Reduce" mode "mean" ins(%[[G]] :
// NORM: scl.kernel "Binary" mode "sub" ins(%[[G]], %arg1 {{.*}}) outs(%[[D:[a-z0-9_]+]] :
// NORM-NEXT: %[[Z:.*]] = scl.view %[[D]] : memref<2x12xf32> to memref<1x4x2x3xf32>
// NORM-NEXT: %[[W:.*]] = scl.view %[[Z]] : memref<1x4x2x3xf32> to memref<24xf32>
// NORM-NEXT: %[[OUT:.*]] = memref.alloc() : memref<1x4x2x3xf32>
// NORM-NEXT: scl.kernel "Copy" ins(%[[W]] : memref<24xf32>) outs(%[[OUT]] :
// NORM-NEXT: return %[[OUT]]

//--- refusals.mlir
sc.mesh @mesh ["x"=2]
// Each copy keeps its kernel:
//  %a: its source is an input (the caller may bind it elsewhere);
//  %b: its source is written again after the copy;
//  %c: its destination is written again after the copy;
//  %d: its source is returned;
//  %v, %e: a halo exchange writes %v afterwards, the destination of one
//          and the source of the other.
func.func @class0(%x: memref<2x6xf32>) -> (memref<2x6xf32>, memref<6x2xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %a = memref.alloc() : memref<12xf32>
  scl.kernel "Copy" ins(%x : memref<2x6xf32>) outs(%a : memref<12xf32>)
  %t = memref.alloc() : memref<2x6xf32>
  scl.kernel "Unary" mode "exp" ins(%x : memref<2x6xf32>) outs(%t : memref<2x6xf32>)
  %b = memref.alloc() : memref<12xf32>
  scl.kernel "Copy" ins(%t : memref<2x6xf32>) outs(%b : memref<12xf32>)
  scl.kernel "Unary" mode "neg" ins(%a : memref<12xf32>) outs(%t : memref<2x6xf32>)
  %u = memref.alloc() : memref<2x6xf32>
  scl.kernel "Unary" mode "abs" ins(%t : memref<2x6xf32>) outs(%u : memref<2x6xf32>)
  %c = memref.alloc() : memref<12xf32>
  scl.kernel "Copy" ins(%u : memref<2x6xf32>) outs(%c : memref<12xf32>)
  scl.kernel "Binary" mode "add" ins(%b, %c : memref<12xf32>, memref<12xf32>) outs(%c : memref<12xf32>)
  %r = memref.alloc() : memref<2x6xf32>
  scl.kernel "Unary" mode "relu" ins(%x : memref<2x6xf32>) outs(%r : memref<2x6xf32>)
  %d = memref.alloc() : memref<12xf32>
  scl.kernel "Copy" ins(%r : memref<2x6xf32>) outs(%d : memref<12xf32>)
  %h = memref.alloc() : memref<2x6xf32>
  scl.kernel "Unary" mode "tanh" ins(%d : memref<12xf32>) outs(%h : memref<2x6xf32>)
  %v = memref.alloc() : memref<12xf32>
  scl.kernel "Copy" ins(%h : memref<2x6xf32>) outs(%v : memref<12xf32>)
  %e = memref.alloc() : memref<6x2xf32>
  scl.kernel "Copy" ins(%v : memref<12xf32>) outs(%e : memref<6x2xf32>)
  scl.halo_exchange ins(%c : memref<12xf32>) outs(%v : memref<12xf32>)
      [#scl.transfer<send 0 peer [1] box [0:1] tag 0>,
       #scl.transfer<recv 0 peer [1] box [11:12] tag 0>]
  %o = memref.alloc() : memref<6x2xf32>
  scl.kernel "Unary" mode "relu" ins(%e : memref<6x2xf32>) outs(%o : memref<6x2xf32>)
  return %r, %o : memref<2x6xf32>, memref<6x2xf32>
}
// KEEP-LABEL: func.func @class0
// KEEP-NOT: scl.view
// KEEP-COUNT-6: scl.kernel "Copy"
// KEEP-NOT: scl.view
// KEEP: return

//--- model.mlir
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<2x4x10x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[5, 3, 2], {}]>}, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4x10x6xf32> {
  %c = sc.exp %x : tensor<2x4x10x6xf32>
  %n = sc.group_norm %c, %w, %b {num_groups = 2} : (tensor<2x4x10x6xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x10x6xf32>
  %s = sc.silu %n : tensor<2x4x10x6xf32>
  %r = sc.add %s, %c : (tensor<2x4x10x6xf32>, tensor<2x4x10x6xf32>) -> tensor<2x4x10x6xf32>
  return %r : tensor<2x4x10x6xf32>
}
// MODEL-LABEL: func.func @main_class0
// MODEL: scl.kernel "Unary" mode "exp" {{.*}} outs(%[[C:[a-z0-9_]+]] : memref<2x4x5x6xf32>)
// MODEL: scl.view %[[C]] : memref<2x4x5x6xf32> to memref<4x60xf32>
// MODEL: scl.view %{{.*}} : memref<4x60xf32> to memref<2x4x5x6xf32>
// OFF-NOT: scl.view
// The statistics (4, 2) are gathered through a (1, 4, 2) view: the view
// sits on its source's bytes, and the source stays live until the gather
// (instruction 6) that reads only the view.
// PLAN: rank class 'class0'
// PLAN: %[[S:[0-9]+]] F32(4,2) 32 B @[[AT:[0-9]+]] live [5, 6]
// PLAN: %[[V:[0-9]+]] F32(1,4,2) 32 B view of %[[S]] @[[AT]]
// PLAN-KERNELS: rank class 'class0'
// PLAN-KERNELS: 5: Concat ({{.*}}) -> %[[S:[0-9]+]] ints [1]
// PLAN-KERNELS-NEXT: 6: AllGather (%[[V:[0-9]+]]) -> 
// NUM: check result0: {{.*}}: ok
// REPLAN: rank class 'class0'
// REPLAN: view of %
// REPLAN: arena:
