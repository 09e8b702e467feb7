// Only the model's result is annotated: backward propagation splits the
// input 90/90/70 so that the stride-2 conv's outputs land 45/45/35 without
// moving the result, and the partitioned program matches the unpartitioned
// one.
// RUN: shardc %s --emit=plan | FileCheck %s
// RUN: shardc %s -o %t.shardbin
// RUN: shard-run %t.shardbin --ranks 3 --random-inputs --check | FileCheck %s --check-prefix=OK

sc.mesh @m ["x"=3]
func.func @main(%x: tensor<1x2x250xf32>, %w: tensor<4x2x3xf32>)
    -> (tensor<1x4x125xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[45, 45, 35]]>}) {
  %r = sc.relu %x : tensor<1x2x250xf32>
  %y = sc.conv %r, %w {padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<1x2x250xf32>, tensor<4x2x3xf32>) -> tensor<1x4x125xf32>
  %z = sc.relu %y : tensor<1x4x125xf32>
  return %z : tensor<1x4x125xf32>
}

// CHECK: rank class 'class0': ranks [0]
// CHECK-NEXT: inputs: (1,2,90) (4,2,3)
// CHECK-NEXT: outputs: (1,4,45)
// CHECK-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 8, received: 0
// CHECK: rank class 'class2': ranks [2]
// CHECK-NEXT: inputs: (1,2,70) (4,2,3)
// CHECK-NEXT: outputs: (1,4,35)
// OK: check result0: {{.*}}: ok
