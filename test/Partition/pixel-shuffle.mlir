// F.pixel_shuffle and F.pixel_unshuffle through sc-decompose-forms
// (reshape, permute, reshape) on images split unevenly over H: the
// reshapes keep the split on whole rows, so neither moves data (plans
// pinned). Outputs are compared element for element with pure-Python
// definitions, and the sharded runs with the unpartitioned model, at -O2
// and fused (-O3).
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/shuffle.py input %t/x.npy 1,8,6,5
// RUN: %python %t/shuffle.py input %t/z.npy 2,1,2,12,10
// RUN: shardc %t/shuffle.mlir --emit=plan | FileCheck %s --check-prefix=LOCAL
// RUN: shardc %t/unshuffle.mlir --emit=plan | FileCheck %s --check-prefix=LOCAL
// RUN: shardc %t/shuffle.mlir -o %t/shuffle.shardbin
// RUN: shard-run %t/shuffle.shardbin --input arg0=%t/x.npy --check --output result0=%t/y.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/shuffle.py check %t/x.npy %t/y.npy shuffle | FileCheck %s --check-prefix=SHUFFLE
// RUN: shardc %t/unshuffle.mlir -O3 -o %t/unshuffle.shardbin
// RUN: shard-run %t/unshuffle.shardbin --input arg0=%t/z.npy --check --output result0=%t/u.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/shuffle.py check %t/z.npy %t/u.npy unshuffle | FileCheck %s --check-prefix=UNSHUFFLE
// The comparison can fail: a shuffle is not an unshuffle.
// RUN: not %python %t/shuffle.py check %t/x.npy %t/y.npy unshuffle 2>&1 | FileCheck %s --check-prefix=WRONG

// LOCAL: halo exchanges: 0, collectives: 0, bytes sent: 0
// LOCAL-NOT: halo exchanges: {{[1-9]}}
// LOCAL-NOT: collectives: {{[1-9]}}
// RAN: check result0: {{.*}}: ok
// SHUFFLE: pixel_shuffle(2): 240 values as PyTorch
// UNSHUFFLE: pixel_unshuffle(2): 480 values as PyTorch
// WRONG: pixel_unshuffle(2) at

//--- shuffle.mlir
// (1, 8, 6, 5) -> (1, 2, 12, 10); H split [3, 1, 2], the result [6, 2, 4].
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<1x8x6x5xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[3, 1, 2], {}]>}) -> tensor<1x2x12x10xf32> {
  %y = sc.pixel_shuffle %x {factor = 2} : (tensor<1x8x6x5xf32>) -> tensor<1x2x12x10xf32>
  %c = sc.sharding_constraint %y : tensor<1x2x12x10xf32> to #sc.sharding<@m, [{}, {}, {"x"}[6, 2, 4], {}]>
  return %c : tensor<1x2x12x10xf32>
}

//--- unshuffle.mlir
// (2, 1, 2, 12, 10) -> (2, 1, 8, 6, 5), two batch dims; H split [6, 0, 6]
// on whole pairs of rows, the result [3, 0, 3].
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<2x1x2x12x10xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {}, {"x"}[6, 0, 6], {}]>}) -> tensor<2x1x8x6x5xf32> {
  %y = sc.pixel_unshuffle %x {factor = 2} : (tensor<2x1x2x12x10xf32>) -> tensor<2x1x8x6x5xf32>
  %c = sc.sharding_constraint %y : tensor<2x1x8x6x5xf32> to #sc.sharding<@m, [{}, {}, {}, {"x"}[3, 0, 3], {}]>
  return %c : tensor<2x1x8x6x5xf32>
}

//--- shuffle.py
# `input F SHAPE`: distinct float32 values. `check X Y shuffle|unshuffle`:
# Y is F.pixel_shuffle(X, 2) or F.pixel_unshuffle(X, 2), by PyTorch's
# index formulas computed here, over any leading batch dims.
import sys
import npy

if sys.argv[1] == "input":
    shape = [int(v) for v in sys.argv[3].split(",")]
    npy.write(sys.argv[2], shape, [0.5 * i - 60 for i in range(npy.count(shape))])
    sys.exit(0)
shape, x = npy.read(sys.argv[2])
_, y = npy.read(sys.argv[3])
mode, r = sys.argv[4], 2
c, h, w = shape[-3:]
batch = npy.count(shape[:-3])
label = "pixel_%s(%d)" % (mode, r)
if mode == "shuffle":
    oc, oh, ow = c // (r * r), h * r, w * r
else:
    oc, oh, ow = c * r * r, h // r, w // r
if len(y) != batch * oc * oh * ow:
    sys.exit("%s at 0: %d values, expected %d" % (label, len(y), batch * oc * oh * ow))
for b in range(batch):
    for k in range(oc):
        for i in range(oh):
            for j in range(ow):
                if mode == "shuffle":
                    src = ((k * r * r + (i % r) * r + j % r) * h + i // r) * w + j // r
                else:
                    ck, di, dj = k // (r * r), k % (r * r) // r, k % r
                    src = (ck * h + i * r + di) * w + j * r + dj
                got = y[((b * oc + k) * oh + i) * ow + j]
                want = x[b * c * h * w + src]
                if got != want:
                    sys.exit("%s at (%d, %d, %d, %d): got %r, expected %r"
                             % (label, b, k, i, j, got, want))
print("%s: %d values as PyTorch" % (label, len(y)))
