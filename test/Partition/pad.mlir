// F.pad (pairs from the last dim): output o reads o - pL (constant: only
// inside the input; reflect / replicate / circular: the mapped index) and
// belongs to the shard owning clamp(o - pL). Constant, reflect and
// replicate borders are then local to the edge ranks; circular wraps data
// from the last rank to the first and back. Pins classes, shapes and bytes
// for even, uneven, circular with one-element shards, cropping, 2-D mesh,
// one-element and world-size-1 splits. Shards smaller than a reflected or
// replicated border (which mirrors rows past the edge rank's own outputs:
// its buffer holds them, and a crop follows the border) run against the
// unpartitioned model: pads, and reflect convs with stride 1 and 2 on a 2-D
// mesh. An empty shard along the split
// dim, with reflect, replicate and circular padding of the other dims and a
// reflect conv, runs against the unpartitioned model (the empty rank's
// reflect Pad was once refused at run time).
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc %t/even.mlir --emit=plan | FileCheck %s --check-prefix=EVEN
// RUN: shardc %t/uneven.mlir --emit=plan | FileCheck %s --check-prefix=UNEVEN
// RUN: shardc %t/circular.mlir --emit=plan | FileCheck %s --check-prefix=CIRC
// RUN: shardc %t/circular.mlir --emit=kernels | FileCheck %s --check-prefix=BOXC
// RUN: shardc %t/crop.mlir --emit=plan | FileCheck %s --check-prefix=CROP
// RUN: shardc %t/mesh2d.mlir --emit=plan | FileCheck %s --check-prefix=MESH2D
// RUN: shardc %t/one.mlir --emit=plan | FileCheck %s --check-prefix=ONE
// RUN: sed 's/"x"=4/"x"=1/' %t/one.mlir | shardc - --emit=plan | FileCheck %s --check-prefix=W1
// RUN: shardc %t/small-shards.mlir --emit=kernels | FileCheck %s --check-prefix=KSMALL
// RUN: shardc %t/small-shards.mlir -o %t/small.shardbin
// RUN: shard-run %t/small.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN
// RUN: shardc %t/small-edges.mlir -o %t/edges.shardbin
// RUN: shard-run %t/edges.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN
// RUN: shardc %t/small-conv.mlir -o %t/small-conv.shardbin
// RUN: shard-run %t/small-conv.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN
// RUN: shardc %t/small-conv.mlir -O2 -o %t/small-conv2.shardbin
// RUN: shard-run %t/small-conv2.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN
// RUN: shardc %t/empty-shard.mlir --emit=kernels | FileCheck %s --check-prefix=KEMPTY
// RUN: shardc %t/empty-shard.mlir -o %t/reflect.shardbin
// RUN: shard-run %t/reflect.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN
// RUN: sed 's/"reflect"/"replicate"/' %t/empty-shard.mlir | shardc - -o %t/replicate.shardbin
// RUN: shard-run %t/replicate.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN
// RUN: sed 's/"reflect"/"circular"/' %t/empty-shard.mlir | shardc - -o %t/circular.shardbin
// RUN: shard-run %t/circular.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN

//--- even.mlir
// constant [3, 4] on 16 over 4: outputs [7, 4, 4, 8]; nothing moves and
// the two interior ranks run the same program.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x2x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>}) -> tensor<1x2x23xf32> {
  %y = sc.pad %x {pad = array<i64: 3, 4>, value = 1.5} : (tensor<1x2x16xf32>) -> tensor<1x2x23xf32>
  return %y : tensor<1x2x23xf32>
}
// EVEN: rank class 'class0': ranks [0]
// EVEN-NEXT: inputs: (1,2,4)
// EVEN-NEXT: outputs: (1,2,7)
// EVEN-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// EVEN: rank class 'class1': ranks [1, 2]
// EVEN-NEXT: inputs: (1,2,4)
// EVEN-NEXT: outputs: (1,2,4)
// EVEN: rank class 'class2': ranks [3]
// EVEN-NEXT: inputs: (1,2,4)
// EVEN-NEXT: outputs: (1,2,8)
// EVEN-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// EVEN-NOT: rank class

//--- uneven.mlir
// reflect [3, 2] on 16 over [7, 5, 4]: outputs [10, 5, 6]; the front
// border reads 3, 2, 1 and the back 14, 13, all on the edge ranks.
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<1x2x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[7, 5, 4]]>}) -> tensor<1x2x21xf32> {
  %y = sc.pad %x {pad = array<i64: 3, 2>, mode = "reflect"} : (tensor<1x2x16xf32>) -> tensor<1x2x21xf32>
  return %y : tensor<1x2x21xf32>
}
// UNEVEN: rank class 'class0': ranks [0]
// UNEVEN-NEXT: inputs: (1,2,7)
// UNEVEN-NEXT: outputs: (1,2,10)
// UNEVEN-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// UNEVEN: rank class 'class1': ranks [1]
// UNEVEN-NEXT: inputs: (1,2,5)
// UNEVEN-NEXT: outputs: (1,2,5)
// UNEVEN: rank class 'class2': ranks [2]
// UNEVEN-NEXT: inputs: (1,2,4)
// UNEVEN-NEXT: outputs: (1,2,6)
// UNEVEN-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// UNEVEN-NOT: rank class

//--- circular.mlir
// circular [3, 2] on 16 over [6, 1, 1, 8]: outputs [9, 1, 1, 10]. Rank 0's
// outputs 0-2 read 13-15 (3 columns x 8 B = 24 B from rank 3, three
// ranks away); rank 3's outputs 19-20 read 0-1 (16 B from rank 0). The
// one-element ranks move nothing.
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x2x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[6, 1, 1, 8]]>}) -> tensor<1x2x21xf32> {
  %y = sc.pad %x {pad = array<i64: 3, 2>, mode = "circular"} : (tensor<1x2x16xf32>) -> tensor<1x2x21xf32>
  return %y : tensor<1x2x21xf32>
}
// CIRC: rank class 'class0': ranks [0]
// CIRC-NEXT: inputs: (1,2,6)
// CIRC-NEXT: outputs: (1,2,9)
// CIRC-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 16, received: 24
// CIRC: rank class 'class1': ranks [1, 2]
// CIRC-NEXT: inputs: (1,2,1)
// CIRC-NEXT: outputs: (1,2,1)
// CIRC-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// CIRC: rank class 'class2': ranks [3]
// CIRC-NEXT: inputs: (1,2,8)
// CIRC-NEXT: outputs: (1,2,10)
// CIRC-NEXT: halo exchanges: 1, collectives: 0, bytes sent: 24, received: 16
// CIRC-NOT: rank class
// BOXC: rank class 'class0'
// BOXC: HaloExchange
// BOXC-SAME: recv %{{[0-9]+}}[0:1,0:2,0:3] peer (3) send %0[0:1,0:2,0:2] peer (3)
// BOXC: rank class 'class2'
// BOXC: HaloExchange
// BOXC-SAME: send %0[0:1,0:2,5:8] peer (-3) recv %{{[0-9]+}}[0:1,0:2,8:10] peer (-3)

//--- crop.mlir
// constant [-2, -3] crops 16 to 11 over [7, 5, 4]: anchors clamp(o + 2)
// give outputs [5, 5, 1] (the last rank keeps only input 12).
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<1x2x16xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[7, 5, 4]]>}) -> tensor<1x2x11xf32> {
  %y = sc.pad %x {pad = array<i64: -2, -3>} : (tensor<1x2x16xf32>) -> tensor<1x2x11xf32>
  return %y : tensor<1x2x11xf32>
}
// CROP: rank class 'class0': ranks [0]
// CROP-NEXT: inputs: (1,2,7)
// CROP-NEXT: outputs: (1,2,5)
// CROP-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// CROP: rank class 'class1': ranks [1]
// CROP-NEXT: inputs: (1,2,5)
// CROP-NEXT: outputs: (1,2,5)
// CROP: rank class 'class2': ranks [2]
// CROP-NEXT: inputs: (1,2,4)
// CROP-NEXT: outputs: (1,2,1)
// CROP-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// CROP-NOT: rank class

//--- mesh2d.mlir
// replicate, W (1, 2) and H (3, 0): H 4 over [2, 2] -> outputs [5, 2],
// W 6 over [3, 3] -> outputs [4, 5]; every border reads the edge rank's own
// first or last element.
sc.mesh @mesh ["x"=2, "y"=2]
func.func @main(%x: tensor<1x1x4x6xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {"y"}]>}) -> tensor<1x1x7x9xf32> {
  %y = sc.pad %x {pad = array<i64: 1, 2, 3, 0>, mode = "replicate"} : (tensor<1x1x4x6xf32>) -> tensor<1x1x7x9xf32>
  return %y : tensor<1x1x7x9xf32>
}
// MESH2D: rank class 'class0': ranks [0]
// MESH2D-NEXT: inputs: (1,1,2,3)
// MESH2D-NEXT: outputs: (1,1,5,4)
// MESH2D-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// MESH2D: rank class 'class1': ranks [1]
// MESH2D-NEXT: inputs: (1,1,2,3)
// MESH2D-NEXT: outputs: (1,1,5,5)
// MESH2D: rank class 'class2': ranks [2]
// MESH2D-NEXT: inputs: (1,1,2,3)
// MESH2D-NEXT: outputs: (1,1,2,4)
// MESH2D: rank class 'class3': ranks [3]
// MESH2D-NEXT: inputs: (1,1,2,3)
// MESH2D-NEXT: outputs: (1,1,2,5)
// MESH2D-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// MESH2D-NOT: rank class

//--- one.mlir
// constant [2, 1] on 4 over 4: outputs [3, 1, 1, 2].
sc.mesh @mesh ["x"=4]
func.func @main(%x: tensor<1x2x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>}) -> tensor<1x2x7xf32> {
  %y = sc.pad %x {pad = array<i64: 2, 1>} : (tensor<1x2x4xf32>) -> tensor<1x2x7xf32>
  return %y : tensor<1x2x7xf32>
}
// ONE: rank class 'class0': ranks [0]
// ONE-NEXT: inputs: (1,2,1)
// ONE-NEXT: outputs: (1,2,3)
// ONE-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0, received: 0
// ONE: rank class 'class1': ranks [1, 2]
// ONE-NEXT: inputs: (1,2,1)
// ONE-NEXT: outputs: (1,2,1)
// ONE: rank class 'class2': ranks [3]
// ONE-NEXT: inputs: (1,2,1)
// ONE-NEXT: outputs: (1,2,2)
// ONE-NOT: rank class
// W1: rank class 'all': ranks [0]
// W1-NEXT: inputs: (1,2,4)
// W1-NEXT: outputs: (1,2,7)
// W1-NOT: rank class

//--- small-shards.mlir
// reflect [2, 2] on 8 over [1, 3, 4]: rank 0's outputs 0-2 read 2, 1, 0,
// rows 1 and 2 from rank 1; it reflects its 3 rows by 2, then crops the 2
// past its outputs. Replicate on the same split.
sc.mesh @mesh ["x"=3]
func.func @main(%x: tensor<1x2x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[1, 3, 4]]>})
    -> (tensor<1x2x12xf32>, tensor<1x2x12xf32>) {
  %y = sc.pad %x {pad = array<i64: 2, 2>, mode = "reflect"} : (tensor<1x2x8xf32>) -> tensor<1x2x12xf32>
  %p = sc.pad %x {pad = array<i64: 2, 2>, mode = "replicate"} : (tensor<1x2x8xf32>) -> tensor<1x2x12xf32>
  return %y, %p : tensor<1x2x12xf32>, tensor<1x2x12xf32>
}
// KSMALL: rank class 'class0' (ranks [0]):
// KSMALL: HaloExchange (%0) -> %[[BUF:[0-9]+]] recv %[[BUF]][0:1,0:2,1:3] peer (1)
// KSMALL-NEXT: Pad "reflect" (%[[BUF]]) -> %[[GROWN:[0-9]+]] ints [0, 0, 2, 0, 0, 0]
// KSMALL-NEXT: Pad "constant" (%[[GROWN]]) -> %{{[0-9]+}} ints [0, 0, 0, 0, 0, -2]

//--- small-edges.mlir
// Reflect and replicate [3, 3] on 8 over 4: each edge shard (2 rows) is
// smaller than its border, which mirrors rows from the next rank.
sc.mesh @mesh ["x"=4]
func.func @main(%u: tensor<1x2x8xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}]>})
    -> (tensor<1x2x14xf32>, tensor<1x2x14xf32>) {
  %r = sc.pad %u {pad = array<i64: 3, 3>, mode = "reflect"} : (tensor<1x2x8xf32>) -> tensor<1x2x14xf32>
  %p = sc.pad %u {pad = array<i64: 3, 3>, mode = "replicate"} : (tensor<1x2x8xf32>) -> tensor<1x2x14xf32>
  return %r, %p : tensor<1x2x14xf32>, tensor<1x2x14xf32>
}

//--- small-conv.mlir
// Reflect convs (kernel 3, padding 2) over uneven splits of both spatial
// dims, one shard a single column: the edge ranks' borders mirror rows
// their outputs do not cover; stride 2 as well.
sc.mesh @m ["x"=2, "y"=3]
func.func @main(%x: tensor<1x2x7x9xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[2, 5], {"y"}[1, 6, 2]]>},
                %w: tensor<3x2x3x3xf32>) -> (tensor<1x3x9x11xf32>, tensor<1x3x5x6xf32>) {
  %c = sc.conv %x, %w {padding = array<i64: 2, 2>, padding_mode = "reflect"} : (tensor<1x2x7x9xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x9x11xf32>
  %d = sc.conv %x, %w {padding = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding_mode = "reflect"} : (tensor<1x2x7x9xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x5x6xf32>
  return %c, %d : tensor<1x3x9x11xf32>, tensor<1x3x5x6xf32>
}

//--- empty-shard.mlir
// Rows [3, 0, 3] over "x"=3: rank 1 holds no rows but still pads the last
// dim (and its conv pads both), a Pad with nothing to reflect. (Every run
// here checks two outputs: the RAN lines below serve them all.)
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<1x2x6x5xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[3, 0, 3], {}]>},
                %w: tensor<3x2x3x3xf32>) -> (tensor<1x2x9x7xf32>, tensor<1x3x6x5xf32>) {
  %y = sc.pad %x {pad = array<i64: 1, 1, 2, 1>, mode = "reflect"} : (tensor<1x2x6x5xf32>) -> tensor<1x2x9x7xf32>
  %c = sc.conv %x, %w {padding = array<i64: 1, 1>, padding_mode = "reflect"} : (tensor<1x2x6x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x5xf32>
  return %y, %c : tensor<1x2x9x7xf32>, tensor<1x3x6x5xf32>
}
// KEMPTY: rank class 'class1' (ranks [1]):
// KEMPTY: Pad "reflect" (%{{[0-9]+}}) -> %{{[0-9]+}} ints [0, 0, 0, 1, 0, 0, 0, 1]
// RAN: check result0: {{.*}}: ok
// RAN: check result1: {{.*}}: ok
