// F.pad in circular mode with negative amounts crops first and wraps the
// cropped tensor. sc-decompose-forms makes that a constant-mode crop and a
// circular pad, so the padded dims stay split (unevenly, over one and two
// axes) and the wrap-around moves as halos. The outputs are compared element
// for element with a pure-Python F.pad that follows PyTorch's own algorithm
// (place the cropped input, then copy slabs dim by dim), and the sharded runs
// with the unpartitioned model.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/fpad.py input %t/x.npy 2,3,9
// RUN: %python %t/fpad.py input %t/y.npy 1,7,6
// RUN: shardc %t/wrap.mlir -o %t/wrap.shardbin
// RUN: shard-run %t/wrap.shardbin --input arg0=%t/x.npy --check --output result0=%t/wrap.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/fpad.py check %t/x.npy %t/wrap.npy -2,3 | FileCheck %s --check-prefix=WRAP
// RUN: shardc %t/wrap.mlir -O0 -o %t/wrap0.shardbin
// RUN: shard-run %t/wrap0.shardbin --input arg0=%t/x.npy --output result0=%t/wrap0.npy
// RUN: %python %t/fpad.py check %t/x.npy %t/wrap0.npy -2,3 | FileCheck %s --check-prefix=WRAP
// RUN: shardc %t/grid.mlir -O3 -o %t/grid.shardbin
// RUN: shard-run %t/grid.shardbin --input arg0=%t/y.npy --check --output result0=%t/grid.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/fpad.py check %t/y.npy %t/grid.npy 2,-3,-1,2 | FileCheck %s --check-prefix=GRID
// RUN: shardc %t/crop.mlir -o %t/crop.shardbin
// RUN: shard-run %t/crop.shardbin --input arg0=%t/x.npy --check --output result0=%t/crop.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/fpad.py check %t/x.npy %t/crop.npy -1,-2 | FileCheck %s --check-prefix=CROP
// RUN: shardc %t/wrap.mlir --emit=plan | FileCheck %s --check-prefix=HALOS
// RUN: shardc %t/grid.mlir --emit=plan | FileCheck %s --check-prefix=HALOS
// The reference wraps the cropped tensor, not the input: checked against
// the wrap of the input (what a pad indexing the input would give), it fails.
// RUN: not %python %t/fpad.py check %t/x.npy %t/wrap.npy -2,3 input 2>&1 | FileCheck %s --check-prefix=WRONG
// HALOS: rank class
// HALOS: halo exchanges: {{[1-9]}}

// RAN: check result0: {{.*}}: ok
// WRAP: (2, 3, 10): all 60 values as F.pad
// GRID: (1, 8, 5): all 40 values as F.pad
// CROP: (2, 3, 6): all 36 values as F.pad
// WRONG: at (0, 0, 7): got

//--- wrap.mlir
// W 9 -> 10: crop 2 on the left, then wrap the 7 left by 3 on the right
// (the cropped tensor's first 3, input columns 2, 3, 4). W is split
// [4, 1, 4], the result evenly: rank 2 wraps from rank 0.
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<2x3x9xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[4, 1, 4]]>}) -> tensor<2x3x10xf32> {
  %p = sc.pad %x {pad = array<i64: -2, 3>, mode = "circular"} : (tensor<2x3x9xf32>) -> tensor<2x3x10xf32>
  %y = sc.sharding_constraint %p : tensor<2x3x10xf32> to #sc.sharding<@m, [{}, {}, {"x"}]>
  return %y : tensor<2x3x10xf32>
}

//--- grid.mlir
// W 6 -> 5: crop 3 on the right, wrap 2 on the left; H 7 -> 8: crop 1 on
// top, wrap 2 at the bottom. H and W are both split.
sc.mesh @m ["x"=2, "y"=2]
func.func @main(%x: tensor<1x7x6xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[5, 2], {"y"}]>}) -> tensor<1x8x5xf32> {
  %p = sc.pad %x {pad = array<i64: 2, -3, -1, 2>, mode = "circular"} : (tensor<1x7x6xf32>) -> tensor<1x8x5xf32>
  %y = sc.sharding_constraint %p : tensor<1x8x5xf32> to #sc.sharding<@m, [{}, {"x"}, {"y"}]>
  return %y : tensor<1x8x5xf32>
}

//--- crop.mlir
// Crops only: 9 -> 6.
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<2x3x9xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[4, 1, 4]]>}) -> tensor<2x3x6xf32> {
  %p = sc.pad %x {pad = array<i64: -1, -2>, mode = "circular"} : (tensor<2x3x9xf32>) -> tensor<2x3x6xf32>
  %y = sc.sharding_constraint %p : tensor<2x3x6xf32> to #sc.sharding<@m, [{}, {}, {"x"}]>
  return %y : tensor<2x3x6xf32>
}

//--- fpad.py
# `input F SHAPE`: writes a float32 .npy of distinct values. `check X Y PADS
# [input]`: F.pad(X, PADS, "circular") computed as PyTorch's
# _pad_circular does it (the cropped input placed in the output, then, dim
# by dim, each padded side copied from the output's own opposite end, whole
# slabs at a time; PyTorch goes from the last dim, this from the first,
# which gives the same result since the wrap is separable) and compared
# with Y exactly. With `input`, the
# sides wrap the uncropped input instead (a wrong reference, to show the
# comparison can fail).
import itertools, sys
import npy

if sys.argv[1] == "input":
    shape = [int(d) for d in sys.argv[3].split(",")]
    npy.write(sys.argv[2], shape,
              [0.25 * i - 7.0 for i in range(npy.count(shape))])
    sys.exit(0)
xshape, x = npy.read(sys.argv[2])
yshape, y = npy.read(sys.argv[3])
pads = [int(p) for p in sys.argv[4].split(",")]
wrap_input = sys.argv[5:] == ["input"]
rank = len(xshape)
lo, hi = [0] * rank, [0] * rank
for i in range(0, len(pads), 2):
    d = rank - 1 - i // 2
    lo[d], hi[d] = pads[i], pads[i + 1]
oshape = [n + l + h for n, l, h in zip(xshape, lo, hi)]
if yshape != oshape:
    sys.exit("shape %s, expected %s" % (yshape, oshape))
out = {}
if wrap_input:
    for index in itertools.product(*[range(n) for n in oshape]):
        src = [(o - l) % n for o, l, n in zip(index, lo, xshape)]
        out[index] = x[sum(i * s for i, s in zip(src, npy.strides(xshape)))]
else:
    # The cropped input goes to [max(lo, 0), size - max(hi, 0)).
    ranges = [range(max(-l, 0), n - max(-h, 0)) for n, l, h in zip(xshape, lo, hi)]
    for src in itertools.product(*ranges):
        dst = tuple(i - max(-l, 0) + max(l, 0) for i, l in zip(src, lo))
        out[dst] = x[sum(i * s for i, s in zip(src, npy.strides(xshape)))]
    for d in range(rank):
        size, l, h = oshape[d], max(lo[d], 0), max(hi[d], 0)
        # Low side: out[0:l] = out[size - l - h : size - h]; high side:
        # out[size - h : size] = out[l : l + h], whole slabs of the others.
        for o0, i0, n in ((0, size - l - h, l), (size - h, l, h)):
            for index in itertools.product(*[range(m) for m in oshape]):
                if o0 <= index[d] < o0 + n:
                    src = list(index)
                    src[d] = i0 + index[d] - o0
                    if tuple(src) in out:
                        out[index] = out[tuple(src)]
for flat, index in enumerate(itertools.product(*[range(n) for n in oshape])):
    if index not in out:
        sys.exit("at %s: F.pad leaves it unset" % (index,))
    if y[flat] != out[index]:
        sys.exit("at %s: got %r, expected %r" % (index, y[flat], out[index]))
print("%s: all %d values as F.pad" % (tuple(yshape), len(y)))
