// Compiling for a big mesh takes memory linear in its ranks. Every member
// of a collective carries an extent per member (an all-to-all's split and
// concat lists, the statistics gathers of softmax and norms), and one rank
// program per rank exists before ranks are grouped into classes: were the
// lists copied per rank, memory would grow with ranks^2 (about 70 GB for
// the 65536-rank all-to-all, 9 to 10 GB for each 32768-rank gather). The
// members share one list instead, so each compile here fits in 4 GB of
// address space, and the even splits leave one rank class. A split over
// axes listed out of mesh order gathers over a group listing them in the
// split's order: one collective too, not one transfer per peer. A causal
// ring over 65536 ranks is one RingAttention instruction per rank, all in
// one class: each finds where its queries start from the query split that
// every rank carries alike (unrolled it would be 65536 steps on every
// rank; 16384 already ran out of memory).
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: sh -c 'ulimit -v 4000000 && exec shardc %t/alltoall.mlir --emit=plan' | FileCheck %s --check-prefix=A2A
// RUN: sh -c 'ulimit -v 4000000 && exec shardc %t/softmax.mlir --emit=plan' | FileCheck %s --check-prefix=SOFTMAX
// RUN: sh -c 'ulimit -v 4000000 && exec shardc %t/groupnorm.mlir --emit=plan' | FileCheck %s --check-prefix=GNORM
// RUN: sh -c 'ulimit -v 4000000 && exec shardc %t/gather-yx.mlir --emit=kernels' | FileCheck %s --check-prefix=GYX
// RUN: sh -c 'ulimit -v 4000000 && exec shardc %t/ring.mlir --emit=plan' | FileCheck %s --check-prefix=RING

//--- alltoall.mlir
// dim 0 over {"x","y"} -> dim 1 over {"x","y"}: one row in, one column
// out; each rank sends 65535 floats and receives as many.
sc.mesh @mesh ["x"=256, "y"=256]
func.func @main(%x: tensor<65536x65536xf32> {sc.sharding = #sc.sharding<@mesh, [{"x", "y"}, {}]>}) -> (tensor<65536x65536xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x", "y"}]>}) {
  %y = sc.reshard %x : tensor<65536x65536xf32> to #sc.sharding<@mesh, [{}, {"x", "y"}]>
  return %y : tensor<65536x65536xf32>
}
// A2A: rank class 'class0': ranks [0..65535]
// A2A-NEXT: inputs: (1,65536)
// A2A-NEXT: outputs: (65536,1)
// A2A-NEXT: instructions: 1, halo exchanges: 0, collectives: 1, bytes sent: 262140, received: 262140
// A2A-NOT: rank class

//--- softmax.mlir
// Each rank's (max, sum) of 2 rows, 16 B, to the 32767 others.
sc.mesh @mesh ["x"=32768]
func.func @main(%x: tensor<2x32768xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}]>}) -> tensor<2x32768xf32> {
  %y = sc.softmax %x {dim = 1} : (tensor<2x32768xf32>) -> tensor<2x32768xf32>
  return %y : tensor<2x32768xf32>
}
// SOFTMAX: rank class 'class0': ranks [0..32767]
// SOFTMAX-NEXT: inputs: (2,1)
// SOFTMAX-NEXT: outputs: (2,1)
// SOFTMAX-NEXT: instructions: {{[0-9]+}}, halo exchanges: 0, collectives: 1, bytes sent: 524272, received: 524272
// SOFTMAX: F32(2,65536)
// SOFTMAX-NOT: rank class

//--- groupnorm.mlir
// Each rank's (mean, M2) of 2 groups, 16 B, to the 32767 others.
sc.mesh @mesh ["x"=32768]
func.func @main(%x: tensor<1x4x32768xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>},
                %g: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<1x4x32768xf32> {
  %y = sc.group_norm %x, %g, %b {num_groups = 2} : (tensor<1x4x32768xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x32768xf32>
  return %y : tensor<1x4x32768xf32>
}
// GNORM: rank class 'class0': ranks [0..32767]
// GNORM-NEXT: inputs: (1,4,1) (4) (4)
// GNORM-NEXT: outputs: (1,4,1)
// GNORM-NEXT: instructions: {{[0-9]+}}, halo exchanges: 0, collectives: 1, bytes sent: 524272, received: 524272
// GNORM: F32(32768,2,2)
// GNORM-NOT: rank class

//--- gather-yx.mlir
// Dim 0 over ("y", "x"), y major, gathered: the group is [1, 0].
sc.mesh @mesh ["x"=256, "y"=256]
func.func @main(%x: tensor<65536x2xf32> {sc.sharding = #sc.sharding<@mesh, [{"y", "x"}, {}]>}) -> (tensor<65536x2xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}]>}) {
  %y = sc.reshard %x : tensor<65536x2xf32> to #sc.sharding<@mesh, [{}, {}]>
  return %y : tensor<65536x2xf32>
}
// GYX: rank class 'class0' (ranks [0..65535]):
// GYX-NEXT: 0: AllGather (%0) -> %1 ints [0, 1, 1, {{.*}}] group [1, 0]
// GYX-NOT: rank class

//--- ring.mlir
// Causal attention over 65536 keys split over ("y", "x"): one class.
sc.mesh @mesh ["x"=256, "y"=256]
func.func @main(%q: tensor<1x65536x2xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"y", "x"}, {}]>},
                %k: tensor<1x65536x2xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"y", "x"}, {}]>},
                %v: tensor<1x65536x2xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"y", "x"}, {}]>}) -> tensor<1x65536x2xf32> {
  %y = sc.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<1x65536x2xf32>, tensor<1x65536x2xf32>, tensor<1x65536x2xf32>) -> tensor<1x65536x2xf32>
  return %y : tensor<1x65536x2xf32>
}
// RING: rank class 'class0': ranks [0..65535]
// RING-NEXT: inputs: (1,1,2) (1,1,2) (1,1,2)
// RING-NEXT: outputs: (1,1,2)
// RING-NEXT: instructions: 1, halo exchanges: 0, collectives: 1
// RING-NOT: rank class
