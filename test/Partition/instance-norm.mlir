// F.instance_norm (InstanceNorm2d/3d without running statistics) through
// sc-decompose-forms (a group norm with a group per channel): split
// unevenly over H on 3 ranks with an affine weight and bias, split over
// channels on 4 ranks (no communication), and 3-D on a 2x2 mesh over D and
// W. Outputs are compared with F.instance_norm's definition computed here
// in double, and the sharded runs with the unpartitioned model, unfused and
// fused (-O3).
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/inorm.py input %t/x.npy 2,4,9,5
// RUN: %python %t/inorm.py input %t/w.npy 4
// RUN: %python %t/inorm.py input %t/b.npy 4
// RUN: %python %t/inorm.py input %t/v.npy 1,3,4,3,6
// RUN: mkdir -p %t/o2 %t/o3 && cp %t/*.npy %t/o2 && cp %t/*.npy %t/o3
// RUN: shardc %t/model.mlir -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/b.npy --check --output result0=%t/o2/space.npy | FileCheck %s --check-prefix=RAN
// RUN: shardc %t/channels.mlir -o %t/channels.shardbin
// RUN: shard-run %t/channels.shardbin --input arg0=%t/x.npy --check --output result0=%t/o2/channels.npy | FileCheck %s --check-prefix=RAN
// RUN: shardc %t/volume.mlir -o %t/volume.shardbin
// RUN: shard-run %t/volume.shardbin --input arg0=%t/v.npy --check --output result0=%t/o2/volume.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/inorm.py check %t/o2 | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O3 -o %t/model3.shardbin
// RUN: shard-run %t/model3.shardbin --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/b.npy --check --output result0=%t/o3/space.npy | FileCheck %s --check-prefix=RAN
// RUN: shardc %t/channels.mlir -O3 -o %t/channels3.shardbin
// RUN: shard-run %t/channels3.shardbin --input arg0=%t/x.npy --check --output result0=%t/o3/channels.npy | FileCheck %s --check-prefix=RAN
// RUN: shardc %t/volume.mlir -O3 -o %t/volume3.shardbin
// RUN: shard-run %t/volume3.shardbin --input arg0=%t/v.npy --check --output result0=%t/o3/volume.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/inorm.py check %t/o3 | FileCheck %s --check-prefix=VALUES
// Split over channels, each rank's channels are whole: no collective.
// RUN: shardc %t/channels.mlir --emit=plan | FileCheck %s --check-prefix=LOCAL
// The comparison can fail: the bias left out.
// RUN: not %python %t/inorm.py check %t/o2 nobias 2>&1 | FileCheck %s --check-prefix=WRONG

// RAN: check result0: {{.*}}: ok
// VALUES: instance_norm: 360 (affine), 360, 216 values as F.instance_norm
// LOCAL-COUNT-3: collectives: 0, bytes sent: 0, received: 0
// WRONG: affine at 0

//--- model.mlir
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<2x4x9x5xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[5, 0, 4], {}]>}, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4x9x5xf32> {
  %s = sc.instance_norm %x, %w, %b : (tensor<2x4x9x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x9x5xf32>
  return %s : tensor<2x4x9x5xf32>
}

//--- channels.mlir
sc.mesh @c ["x"=4]
func.func @main(%x: tensor<2x4x9x5xf32> {sc.sharding = #sc.sharding<@c, [{}, {"x"}[2, 1, 0, 1], {}, {}]>}) -> tensor<2x4x9x5xf32> {
  %c = sc.instance_norm %x {eps = 1.0e-3} : (tensor<2x4x9x5xf32>) -> tensor<2x4x9x5xf32>
  return %c : tensor<2x4x9x5xf32>
}

//--- volume.mlir
sc.mesh @v ["x"=2, "y"=2]
func.func @main(%v: tensor<1x3x4x3x6xf32> {sc.sharding = #sc.sharding<@v, [{}, {}, {"x"}, {}, {"y"}[4, 2]]>}) -> tensor<1x3x4x3x6xf32> {
  %n = sc.instance_norm %v : (tensor<1x3x4x3x6xf32>) -> tensor<1x3x4x3x6xf32>
  return %n : tensor<1x3x4x3x6xf32>
}

//--- inorm.py
# `input F SHAPE`: float32 values, different per file name. `check DIR [nobias]`: DIR's outputs
# against F.instance_norm's definition in double: per sample and channel,
# (x - mean) / sqrt(var + eps) over the spatial dims, biased variance, then
# weight and bias per channel.
import math, sys
import npy

if sys.argv[1] == "input":
    shape = [int(v) for v in sys.argv[3].split(",")]
    n = npy.count(shape)
    seed = sum(map(ord, sys.argv[2].split("/")[-1]))  # w and b differ
    npy.write(sys.argv[2], shape,
              [math.sin(0.37 * i + seed) * (2 + i % 3) + 0.5 for i in range(n)])
    sys.exit(0)
d = sys.argv[2]
nobias = len(sys.argv) > 3


def instance_norm(shape, x, eps, w=None, b=None):
    n, c = shape[0], shape[1]
    inner = npy.count(shape[2:])
    out = []
    for s in range(n):
        for ch in range(c):
            xs = x[(s * c + ch) * inner:(s * c + ch + 1) * inner]
            mean = sum(xs) / inner
            var = sum((v - mean) ** 2 for v in xs) / inner
            scale = (w[ch] if w else 1.0) / math.sqrt(var + eps)
            shift = b[ch] if b and not nobias else 0.0
            out += [(v - mean) * scale + shift for v in xs]
    return out


def compare(label, want, path):
    _, got = npy.read(path)
    for i, (w, g) in enumerate(zip(want, got)):
        if not abs(g - w) <= 1e-4 + 1e-4 * abs(w):
            sys.exit("%s at %d: got %r, expected %r" % (label, i, g, w))
    return len(want)


shape, x = npy.read(d + "/x.npy")
_, w = npy.read(d + "/w.npy")
_, b = npy.read(d + "/b.npy")
vshape, v = npy.read(d + "/v.npy")
counts = (
    compare("affine", instance_norm(shape, x, 1e-5, w, b), d + "/space.npy"),
    compare("channels", instance_norm(shape, x, 1e-3), d + "/channels.npy"),
    compare("volume", instance_norm(vshape, v, 1e-5), d + "/volume.npy"),
)
print("instance_norm: %d (affine), %d, %d values as F.instance_norm" % counts)
