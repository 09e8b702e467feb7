// F.layer_norm and F.group_norm with eps = 0, which PyTorch takes: a row
// or group whose elements are all equal has variance 0, so it normalises
// to NaN (0 * inf), and every other row as 1 / its standard deviation.
// The statistics dim is split unevenly over 3 ranks with an empty shard,
// so the constant rows also check that the merged variance is exactly 0.
// Compared with pure-Python definitions, unfused, at -O3 and on the CUDA
// backend built for the host, and the sharded runs with the unpartitioned
// model.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/norms.py input %t/x.npy
// RUN: shardc %t/model.mlir -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --input arg0=%t/x.npy --check --output result0=%t/r0.npy --output result1=%t/r1.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/norms.py check %t %t/x.npy | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O3 -o %t/o3.shardbin
// RUN: mkdir -p %t/o3 && shard-run %t/o3.shardbin --input arg0=%t/x.npy --check --output result0=%t/o3/r0.npy --output result1=%t/o3/r1.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/norms.py check %t/o3 %t/x.npy | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: mkdir -p %t/cuda && env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --backend cuda --input arg0=%t/x.npy --output result0=%t/cuda/r0.npy --output result1=%t/cuda/r1.npy
// RUN: %python %t/norms.py check %t/cuda %t/x.npy | FileCheck %s --check-prefix=VALUES

// RAN-COUNT-2: check result{{[0-9]+}}: {{.*}}: ok
// VALUES: layer_norm eps=0 (2, 4, 6): as PyTorch defines it, 3 NaN rows
// VALUES-NEXT: group_norm eps=0 (2, 4, 6): as PyTorch defines it, 1 NaN group

//--- model.mlir
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<2x4x6xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[2, 0, 4]]>})
    -> (tensor<2x4x6xf32>, tensor<2x4x6xf32>) {
  %l = sc.layer_norm %x {normalized_shape = array<i64: 6>, eps = 0.0 : f64} : (tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %g = sc.group_norm %x {num_groups = 2, eps = 0.0 : f64} : (tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  return %l, %g : tensor<2x4x6xf32>, tensor<2x4x6xf32>
}

//--- norms.py
# Pure-Python F.layer_norm and F.group_norm (biased variance, no affine)
# with eps = 0. `input F`: a (2, 4, 6) float32 input whose row (0, 1) is
# constant, and whose channels 2 and 3 of batch 1 (group 1) are the same
# constant. `check DIR X`: DIR/r0.npy and r1.npy against model.mlir.
import math, sys
import npy

INF = float("inf")


def normalise(values):
    mean = math.fsum(values) / len(values)
    var = math.fsum((v - mean) ** 2 for v in values) / len(values)
    rstd = INF if var == 0 else 1.0 / math.sqrt(var)
    return [(v - mean) * rstd for v in values]  # 0 * inf is NaN


def same(g, w):
    if math.isnan(w):
        return math.isnan(g)
    return abs(g - w) <= 1e-4 + 1e-4 * abs(w)


def compare(name, path, want, unit):
    shape, got = npy.read(path)
    if shape != [2, 4, 6]:
        sys.exit("%s: shape %s" % (name, shape))
    for i, (g, w) in enumerate(zip(got, want)):
        if not same(g, w):
            sys.exit("%s at %d: got %r, expected %r" % (name, i, g, w))
    nans = sum(1 for w in want if math.isnan(w)) // unit
    print("%s (2, 4, 6): as PyTorch defines it, %d NaN %s" %
          (name, nans, "rows" if unit == 6 and nans != 1 else
           "row" if unit == 6 else "group" if nans == 1 else "groups"))


if sys.argv[1] == "input":
    x = [math.fmod(i * 0.37, 2.0) - 1.0 for i in range(48)]
    x[6:12] = [0.5] * 6
    x[24 + 12:48] = [-0.25] * 12
    npy.write(sys.argv[2], [2, 4, 6], x)
    sys.exit(0)
_, x = npy.read(sys.argv[3])
layer = []
for r in range(8):
    layer += normalise(x[r * 6:(r + 1) * 6])
group = []
for g in range(4):
    group += normalise(x[g * 12:(g + 1) * 12])
compare("layer_norm eps=0", sys.argv[2] + "/r0.npy", layer, 6)
compare("group_norm eps=0", sys.argv[2] + "/r1.npy", group, 12)
