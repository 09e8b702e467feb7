// F.hardshrink, F.softshrink, F.tanhshrink, F.threshold and F.softmin
// (decomposed by sc-decompose-forms) on values at and around the bounds,
// both zeros, NaN and both infinities, split unevenly over 3 ranks along
// the softmin's dim (one shard empty): unfused, fused on the CPU (-O3) and
// as generated CUDA kernels built for the host, against Python on ATen's
// definitions (softshrink of a small negative value is -0).
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/ref.py input %t/x.npy
// RUN: shardc %t/model.mlir -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --input arg0=%t/x.npy --check --output result0=%t/r0.npy --output result1=%t/r1.npy --output result2=%t/r2.npy --output result3=%t/r3.npy --output result4=%t/r4.npy --output result5=%t/r5.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/ref.py check %t/x.npy %t | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O3 -o %t/fused.shardbin
// RUN: mkdir -p %t/o3 && shard-run %t/fused.shardbin --input arg0=%t/x.npy --output result0=%t/o3/r0.npy --output result1=%t/o3/r1.npy --output result2=%t/o3/r2.npy --output result3=%t/o3/r3.npy --output result4=%t/o3/r4.npy --output result5=%t/o3/r5.npy
// RUN: %python %t/ref.py check %t/x.npy %t/o3 | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: mkdir -p %t/cuda && env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --backend cuda --input arg0=%t/x.npy --output result0=%t/cuda/r0.npy --output result1=%t/cuda/r1.npy --output result2=%t/cuda/r2.npy --output result3=%t/cuda/r3.npy --output result4=%t/cuda/r4.npy --output result5=%t/cuda/r5.npy
// RUN: %python %t/ref.py check %t/x.npy %t/cuda | FileCheck %s --check-prefix=VALUES
// The comparison can fail: a threshold that keeps x == threshold.
// RUN: not %python %t/ref.py check %t/x.npy %t strict-threshold 2>&1 | FileCheck %s --check-prefix=WRONG

// RAN-COUNT-6: check result{{[0-9]+}}: {{.*}}: ok
// VALUES: hardshrink, softshrink, tanhshrink, threshold, softmin, softmin(scalar): as PyTorch
// WRONG: threshold at 2

//--- model.mlir
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<3x8xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[3, 0, 5]]>})
    -> (tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<f32>) {
  %0 = sc.hardshrink %x {lambd = 0.75} : tensor<3x8xf32>
  %1 = sc.softshrink %x : tensor<3x8xf32>
  %2 = sc.tanhshrink %x : tensor<3x8xf32>
  %3 = sc.threshold %x {threshold = 0.25, value = -9.0} : tensor<3x8xf32>
  %4 = sc.softmin %x {dim = 1 : i64} : (tensor<3x8xf32>) -> tensor<3x8xf32>
  %row = sc.slice %x {start = array<i64: 2, 0>, end = array<i64: 3, 8>} : (tensor<3x8xf32>) -> tensor<1x8xf32>
  %s = sc.amax %row : (tensor<1x8xf32>) -> tensor<f32>
  %5 = sc.softmin %s {dim = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %0, %1, %2, %3, %4, %5 : tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<f32>
}

//--- ref.py
# `input X`: rows with the bounds (0.5, 0.75, 0.25 and their negatives),
# both zeros, small values, NaN and both infinities (the last row is finite,
# for softmin). `check X DIR [strict-threshold]`: DIR/r<i>.npy.
import math, struct, sys
import npy

INF, NAN = math.inf, math.nan
f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]
if sys.argv[1] == "input":
    npy.write(sys.argv[2], [3, 8], [
        -0.75, 0.75, 0.25, -0.25, 0.5, -0.5, -0.0, 0.0,
        0.1, -0.1, 0.7500001, -0.76, NAN, INF, -INF, 3.0,
        -2.0, 1.0, 0.3, -0.6, 2.5, 0.0, -1.25, 0.9])
    sys.exit(0)
_, x = npy.read(sys.argv[2])
out = sys.argv[3]
strict = len(sys.argv) > 4


def softshrink(v, l=0.5):
    return v - l if v > l else v + l if v < -l else v * 0.0


def threshold(v):
    return -9.0 if (v < 0.25 if strict else v <= f32(0.25)) else v


def softmin_rows():
    rows = []
    for r in range(3):
        row = x[8 * r:8 * r + 8]
        if any(v != v for v in row):
            rows += [NAN] * 8
            continue
        m = max(-v for v in row)
        e = [math.exp(-v - m) if not (math.isinf(v) and math.isinf(m)) else NAN
             for v in row]
        s = sum(e)
        rows += [v / s for v in e]
    return rows


refs = [
    ("hardshrink", [0.0 if -f32(0.75) <= v <= f32(0.75) else v for v in x]),
    ("softshrink", [softshrink(v) for v in x]),
    ("tanhshrink", [v - math.tanh(v) for v in x]),
    ("threshold", [threshold(v) for v in x]),
    ("softmin", softmin_rows()),
]
for k, (name, want) in enumerate(refs):
    _, got = npy.read("%s/r%d.npy" % (out, k))
    for i, (w, g) in enumerate(zip(want, got)):
        same = (w != w and g != g) or (w == g and math.copysign(1, w) == math.copysign(1, g)) or (
            math.isfinite(w) and w != 0 and abs(g - w) <= 2e-6 * abs(w) + 1e-7)
        if not same:
            sys.exit("%s at %d (x = %r): got %r, expected %r" % (name, i, x[i], g, w))
_, got = npy.read("%s/r5.npy" % out)
if list(got) != [1.0]:
    sys.exit("softmin(scalar): got %r, expected [1.0]" % (got,))
print("%s: as PyTorch" % ", ".join(r[0] for r in refs + [("softmin(scalar)", None)]))
