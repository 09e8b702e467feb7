// An even 1-D split gives at most 3 rank classes whatever the world size
// (first, interior, last), and each class exchanges exactly its halo.
// RUN: shardc %s --emit=plan | FileCheck %s --check-prefix=P4
// RUN: sed 's/"x"=4/"x"=64/' %s | shardc - --emit=plan | FileCheck %s --check-prefix=P64
// RUN: sed 's/"x"=4/"x"=1024/' %s | shardc - --emit=plan | FileCheck %s --check-prefix=P1024
// RUN: shardc %s --emit=kernels | FileCheck %s --check-prefix=BOX

sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x2x4096xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>},
                %w: tensor<3x2x3xf32>) -> tensor<1x3x4096xf32> {
  %y = sc.conv %x, %w {padding = array<i64: 1>} : (tensor<1x2x4096xf32>, tensor<3x2x3xf32>) -> tensor<1x3x4096xf32>
  return %y : tensor<1x3x4096xf32>
}

// P4: rank class 'class0': ranks [0]
// P4-NEXT: inputs: (1,2,1024) (3,2,3)
// P4-NEXT: outputs: (1,3,1024)
// P4-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 8, received: 8
// P4: rank class 'class1': ranks [1, 2]
// P4: halo exchanges: 1, collectives: 0, bytes sent: 16, received: 16
// P4: rank class 'class2': ranks [3]
// P4-NOT: rank class

// P64: rank class 'class0': ranks [0]
// P64: rank class 'class1': ranks [1..62]
// P64: rank class 'class2': ranks [63]
// P64-NOT: rank class

// P1024: rank class 'class0': ranks [0]
// P1024-NEXT: inputs: (1,2,4) (3,2,3)
// P1024: rank class 'class1': ranks [1..1022]
// P1024: rank class 'class2': ranks [1023]
// P1024-NOT: rank class

// The interior class receives one column from each side into a 1026-wide
// buffer and sends its own edge columns.
// BOX: rank class 'class1'
// BOX: HaloExchange
// BOX-SAME: recv %[[B:[0-9]+]][0:1,0:2,0:1] peer (-1)
// BOX-SAME: recv %[[B]][0:1,0:2,1025:1026] peer (1)
