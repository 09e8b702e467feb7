// Row 2 of the acceptance table: stride 2 over an uneven 90/90/70 split.
// The first rank's windows stay inside its shard (it only sends), the
// others receive exactly the one column their first window reads.
// RUN: shardc %s --emit=plan | FileCheck %s
// RUN: shardc %s --emit=kernels | FileCheck %s --check-prefix=BOX

sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<2x16x250xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[90, 90, 70]]>},
                %w: tensor<8x16x3xf32>, %b: tensor<8xf32>) -> tensor<2x8x125xf32> {
  %y = sc.conv %x, %w, %b {padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<2x16x250xf32>, tensor<8x16x3xf32>, tensor<8xf32>) -> tensor<2x8x125xf32>
  return %y : tensor<2x8x125xf32>
}

// CHECK: rank class 'class0': ranks [0]
// CHECK-NEXT: inputs: (2,16,90) (8,16,3) (8)
// CHECK-NEXT: outputs: (2,8,45)
// CHECK-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 128, received: 0
// CHECK: rank class 'class1': ranks [1]
// CHECK: halo exchanges: 1, collectives: 0, bytes sent: 128, received: 128
// CHECK: rank class 'class2': ranks [2]
// CHECK-NEXT: inputs: (2,16,70)
// CHECK-NEXT: outputs: (2,8,35)
// CHECK-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 0, received: 128

// BOX: rank class 'class0'
// BOX: HaloExchange (%0) -> () send %0[0:2,0:16,89:90] peer (1)
// BOX: rank class 'class2'
// BOX: Pad
// BOX-SAME: ints [0, 0, 1, 0, 0, 0]
// BOX: HaloExchange
// BOX-SAME: recv %{{[0-9]+}}[0:2,0:16,0:1] peer (-1)
