// A reshape that merges dims keeps the split of the major one, and one
// that splits a dim keeps its split on the major part, where the shards
// fall on whole rows: flattening (N, C, H, W) split over H into tokens
// (N, C, H*W) moves nothing, nor does F.pixel_shuffle written as reshape,
// permute, reshape. A split on a minor dim, or off whole rows, is gathered
// or resharded first. Plans are pinned; every model runs against the
// unpartitioned one, and the pixel shuffle against a pure-Python one.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: shardc %t/flatten.mlir --emit=plan | FileCheck %s --check-prefix=FLATTEN
// RUN: shardc %t/flatten.mlir -o %t/flatten.shardbin
// RUN: shard-run %t/flatten.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN
// RUN: shardc %t/unflatten.mlir --emit=plan | FileCheck %s --check-prefix=UNFLATTEN
// RUN: shardc %t/unflatten.mlir -O3 -o %t/unflatten.shardbin
// RUN: shard-run %t/unflatten.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN
// RUN: shardc %t/pinned.mlir --emit=plan | FileCheck %s --check-prefix=PINNED
// RUN: shardc %t/pinned.mlir -O3 -o %t/pinned.shardbin
// RUN: shard-run %t/pinned.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN
// RUN: shardc %t/mesh.mlir --emit=plan | FileCheck %s --check-prefix=MESH
// RUN: shardc %t/mesh.mlir -o %t/mesh.shardbin
// RUN: shard-run %t/mesh.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN
// RUN: %python %t/shuffle.py input %t/x.npy
// RUN: shardc %t/shuffle.mlir --emit=plan | FileCheck %s --check-prefix=SHUFFLE
// RUN: shardc %t/shuffle.mlir -o %t/shuffle.shardbin
// RUN: shard-run %t/shuffle.shardbin --input arg0=%t/x.npy --check --output result0=%t/y.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/shuffle.py check %t/x.npy %t/y.npy | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/shuffle.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shard-run-hostcuda %t/cuda.shardbin --backend cuda --input arg0=%t/x.npy --output result0=%t/cuda.npy
// RUN: %python %t/shuffle.py check %t/x.npy %t/cuda.npy | FileCheck %s --check-prefix=VALUES
// The comparison can fail: the two sub-pixel offsets swapped.
// RUN: not %python %t/shuffle.py check %t/x.npy %t/y.npy swap 2>&1 | FileCheck %s --check-prefix=WRONG

// RAN-COUNT-1: check result0: {{.*}}: ok
// H split [4, 0, 3] over 3 ranks: tokens split [4*5, 0, 3*5], no data moves.
// FLATTEN: rank class 'class0': ranks [0]
// FLATTEN: outputs: (2,3,20)
// FLATTEN-NEXT: halo exchanges: 0, collectives: 0, bytes sent: 0
// FLATTEN: outputs: (2,3,0)
// FLATTEN: outputs: (2,3,15)
// Tokens split [10, 5, 20] on whole rows of 5 unflatten to H split
// [2, 1, 4]; the second reshape's [12, 8, 15] is off whole rows of 5: it
// is resharded once, before the reshape, to the constraint's rows [3, 2, 2]
// (tokens [15, 10, 10]), point to point.
// UNFLATTEN: rank class 'class0': ranks [0]
// UNFLATTEN: outputs: (2,2,5) (2,3,5)
// UNFLATTEN-NEXT: halo exchanges: 1, collectives: 0,
// UNFLATTEN: outputs: (2,1,5) (2,2,5)
// UNFLATTEN: outputs: (2,4,5) (2,2,5)
// A pin off whole rows (tokens [12, 8, 15]) on the reshape itself: it is
// computed on the whole rows below each boundary ([10, 10, 15]) and the
// reshard after it moves the partial rows, point to point; no gather.
// PINNED-NOT: collectives: {{[1-9]}}
// PINNED: outputs: (2,12)
// PINNED-NOT: collectives: {{[1-9]}}
// H over "x", W over "y": flattening keeps H's split and gathers W (a minor
// dim) over "y" only.
// MESH-NOT: outputs: (1,2,24)
// MESH: outputs: (1,2,12)
// MESH-NEXT: halo exchanges: 0, collectives: 1, bytes sent: 48,
// MESH-NOT: outputs: (1,2,24)
// 8 = 2 x 2 x 2 channels, H split [3, 1, 2]: the shuffled (2, 12, 10) is
// split [6, 2, 4] over H * 2, no data moves.
// SHUFFLE: outputs: (1,2,6,10)
// SHUFFLE-NEXT: halo exchanges: 0, collectives: 0
// SHUFFLE: outputs: (1,2,2,10)
// SHUFFLE-NEXT: halo exchanges: 0, collectives: 0
// SHUFFLE: outputs: (1,2,4,10)
// SHUFFLE-NEXT: halo exchanges: 0, collectives: 0
// VALUES: pixel_shuffle(2): 240 values as F.pixel_shuffle
// WRONG: pixel_shuffle(2) at

//--- flatten.mlir
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<2x3x7x5xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[4, 0, 3], {}]>}) -> tensor<2x3x35xf32> {
  %t = sc.reshape %x : (tensor<2x3x7x5xf32>) -> tensor<2x3x35xf32>
  %y = sc.softmax %t {dim = 1} : (tensor<2x3x35xf32>) -> tensor<2x3x35xf32>
  return %y : tensor<2x3x35xf32>
}

//--- unflatten.mlir
sc.mesh @m ["x"=3]
func.func @main(%t: tensor<2x35xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[10, 5, 20]]>}, %u: tensor<2x35xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[12, 8, 15]]>}) -> (tensor<2x7x5xf32>, tensor<2x7x5xf32>) {
  %a = sc.reshape %t : (tensor<2x35xf32>) -> tensor<2x7x5xf32>
  %b = sc.reshape %u : (tensor<2x35xf32>) -> tensor<2x7x5xf32>
  %c = sc.sharding_constraint %b : tensor<2x7x5xf32> to #sc.sharding<@m, [{}, {"x"}[3, 2, 2], {}]>
  %d = sc.exp %a : tensor<2x7x5xf32>
  return %d, %c : tensor<2x7x5xf32>, tensor<2x7x5xf32>
}

//--- pinned.mlir
sc.mesh @m ["x"=3]
func.func @main(%u: tensor<2x7x5xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[3, 2, 2], {}]>}) -> tensor<2x35xf32> {
  %b = sc.reshape %u {sc.sharding = #sc.sharding<@m, [{}, {"x"}[12, 8, 15]]>} : (tensor<2x7x5xf32>) -> tensor<2x35xf32>
  return %b : tensor<2x35xf32>
}

//--- mesh.mlir
sc.mesh @m ["x"=2, "y"=2]
func.func @main(%x: tensor<1x2x6x4xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}, {"y"}]>}) -> tensor<1x2x24xf32> {
  %t = sc.reshape %x : (tensor<1x2x6x4xf32>) -> tensor<1x2x24xf32>
  return %t : tensor<1x2x24xf32>
}

//--- shuffle.mlir
// F.pixel_shuffle(x, 2): (1, 8, 6, 5) -> (1, 2, 12, 10).
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<1x8x6x5xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[3, 1, 2], {}]>}) -> tensor<1x2x12x10xf32> {
  %a = sc.reshape %x : (tensor<1x8x6x5xf32>) -> tensor<1x2x2x2x6x5xf32>
  %b = sc.permute %a {dims = array<i64: 0, 1, 4, 2, 5, 3>} : (tensor<1x2x2x2x6x5xf32>) -> tensor<1x2x6x2x5x2xf32>
  %c = sc.reshape %b : (tensor<1x2x6x2x5x2xf32>) -> tensor<1x2x12x10xf32>
  %y = sc.sharding_constraint %c : tensor<1x2x12x10xf32> to #sc.sharding<@m, [{}, {}, {"x"}[6, 2, 4], {}]>
  return %y : tensor<1x2x12x10xf32>
}

//--- shuffle.py
# `input F`: (1, 8, 6, 5) distinct float32 values. `check X Y [swap]`: Y is
# F.pixel_shuffle(X, 2), out[0][c][h*2+i][w*2+j] = in[0][c*4+i*2+j][h][w],
# computed here ("swap" exchanges i and j, to show the check can fail).
import sys
import npy

if sys.argv[1] == "input":
    npy.write(sys.argv[2], [1, 8, 6, 5], [0.5 * i - 60 for i in range(240)])
    sys.exit(0)
_, x = npy.read(sys.argv[2])
shape, y = npy.read(sys.argv[3])
swap = len(sys.argv) > 4
for c in range(2):
    for h in range(12):
        for w in range(10):
            i, j = h % 2, w % 2
            if swap:
                i, j = j, i
            want = x[((c * 4 + i * 2 + j) * 6 + h // 2) * 5 + w // 2]
            got = y[(c * 12 + h) * 10 + w]
            if got != want:
                sys.exit("pixel_shuffle(2) at (%d, %d, %d): got %r, expected %r"
                         % (c, h, w, got, want))
print("pixel_shuffle(2): %d values as F.pixel_shuffle" % len(y))
