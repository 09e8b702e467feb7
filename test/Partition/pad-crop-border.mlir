// F.pad in reflect and replicate mode with negative amounts: one side is
// cropped while the other mirrors (or repeats) the input's edge, and a
// reflection may reach into the cropped part, as PyTorch's kernels index
// the input. The padded dims are split (unevenly, over one and two axes),
// so ranks exchange halos of the mirrored rows. The outputs are compared
// element for element with a pure-Python F.pad over the same inputs, and
// the sharded runs with the unpartitioned model.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/fpad.py input %t/x.npy 2,3,9
// RUN: %python %t/fpad.py input %t/y.npy 1,7,6
// RUN: shardc %t/reflect.mlir -o %t/reflect.shardbin
// RUN: shard-run %t/reflect.shardbin --input arg0=%t/x.npy --check --output result0=%t/reflect.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/fpad.py check %t/x.npy %t/reflect.npy reflect -2,3,1,-1 | FileCheck %s --check-prefix=REFLECT
// RUN: shardc %t/reflect.mlir -O0 -o %t/reflect0.shardbin
// RUN: shard-run %t/reflect0.shardbin --input arg0=%t/x.npy --output result0=%t/reflect0.npy
// RUN: %python %t/fpad.py check %t/x.npy %t/reflect0.npy reflect -2,3,1,-1 | FileCheck %s --check-prefix=REFLECT
// RUN: shardc %t/replicate.mlir -O3 -o %t/replicate.shardbin
// RUN: shard-run %t/replicate.shardbin --input arg0=%t/y.npy --check --output result0=%t/replicate.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/fpad.py check %t/y.npy %t/replicate.npy replicate 4,-3,-2,3 | FileCheck %s --check-prefix=REPLICATE
// RUN: shardc %t/reflect-far.mlir -o %t/reflect-far.shardbin
// RUN: shard-run %t/reflect-far.shardbin --input arg0=%t/y.npy --check --output result0=%t/reflect-far.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/fpad.py check %t/y.npy %t/reflect-far.npy reflect -4,5 | FileCheck %s --check-prefix=FAR
// RUN: shardc %t/reflect.mlir --emit=plan | FileCheck %s --check-prefix=HALOS
// RUN: shardc %t/reflect-far.mlir --emit=plan | FileCheck %s --check-prefix=HALOS
// HALOS: rank class
// HALOS: halo exchanges: {{[1-9]}}

// RAN: check result0: {{.*}}: ok
// REFLECT: (2, 3, 10): all 60 values as F.pad
// REPLICATE: (1, 8, 7): all 56 values as F.pad
// FAR: (1, 7, 7): all 49 values as F.pad

//--- reflect.mlir
// W 9 -> 10: crop 2 on the left, mirror 3 on the right (about W's last
// element); H stays 3: mirror 1 on top, crop 1 at the bottom. W is split
// [4, 1, 4], the result evenly: rank 0's columns come from all three.
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<2x3x9xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[4, 1, 4]]>}) -> tensor<2x3x10xf32> {
  %p = sc.pad %x {pad = array<i64: -2, 3, 1, -1>, mode = "reflect"} : (tensor<2x3x9xf32>) -> tensor<2x3x10xf32>
  %y = sc.sharding_constraint %p : tensor<2x3x10xf32> to #sc.sharding<@m, [{}, {}, {"x"}]>
  return %y : tensor<2x3x10xf32>
}

//--- replicate.mlir
// W 6 -> 7: repeat the first column 4 times, crop 3 on the right; H 7 -> 8:
// crop 2 on top, repeat the last row 3 times. H and W are both split.
sc.mesh @m ["x"=2, "y"=2]
func.func @main(%x: tensor<1x7x6xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[5, 2], {"y"}]>}) -> tensor<1x8x7xf32> {
  %p = sc.pad %x {pad = array<i64: 4, -3, -2, 3>, mode = "replicate"} : (tensor<1x7x6xf32>) -> tensor<1x8x7xf32>
  %y = sc.sharding_constraint %p : tensor<1x8x7xf32> to #sc.sharding<@m, [{}, {"x"}, {"y"}]>
  return %y : tensor<1x8x7xf32>
}

//--- reflect-far.mlir
// W 6 -> 7: crop 4, then mirror 5 about the input's last column: the
// reflection reads columns 4, 3, 2, 1, 0, all but one of them cropped, and
// rank 1's last three from rank 0.
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<1x7x6xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[2, 4]]>}) -> tensor<1x7x7xf32> {
  %p = sc.pad %x {pad = array<i64: -4, 5>, mode = "reflect"} : (tensor<1x7x6xf32>) -> tensor<1x7x7xf32>
  %y = sc.sharding_constraint %p : tensor<1x7x7xf32> to #sc.sharding<@m, [{}, {}, {"x"}]>
  return %y : tensor<1x7x7xf32>
}

//--- fpad.py
# `input F SHAPE`: writes a float32 .npy of distinct values. `check X Y MODE
# PADS`: F.pad(X, PADS, MODE) computed here, index by index as PyTorch's
# reflect/replicate kernels do (each output index minus the low amount, then
# mirrored or clamped at the input's edges), compared with Y exactly.
import itertools, sys
import npy

def source(o, n, lo, mode):
    v = o - lo
    if mode == "replicate":
        return min(max(v, 0), n - 1)
    if v < 0:
        v = -v
    if v >= n:
        v = 2 * (n - 1) - v
    return v

if sys.argv[1] == "input":
    shape = [int(d) for d in sys.argv[3].split(",")]
    npy.write(sys.argv[2], shape,
              [0.25 * i - 7.0 for i in range(npy.count(shape))])
    sys.exit(0)
xshape, x = npy.read(sys.argv[2])
yshape, y = npy.read(sys.argv[3])
mode = sys.argv[4]
pads = [int(p) for p in sys.argv[5].split(",")]
lo, hi = [0] * len(xshape), [0] * len(xshape)
for i in range(0, len(pads), 2):
    d = len(xshape) - 1 - i // 2
    lo[d], hi[d] = pads[i], pads[i + 1]
expected_shape = [n + l + h for n, l, h in zip(xshape, lo, hi)]
if yshape != expected_shape:
    sys.exit("shape %s, expected %s" % (yshape, expected_shape))
strides = npy.strides(xshape)
for flat, index in enumerate(itertools.product(*[range(n) for n in yshape])):
    src = sum(source(o, n, l, mode) * s
              for o, n, l, s in zip(index, xshape, lo, strides))
    if y[flat] != x[src]:
        sys.exit("at %s: got %r, expected %r" % (index, y[flat], x[src]))
print("%s: all %d values as F.pad" % (tuple(yshape), len(y)))
