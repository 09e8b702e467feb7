// torch.square, sign, logaddexp, nan_to_num, isnan, isinf and isfinite
// (decomposed by sc-decompose-forms) on NaN, both infinities, both zeros, a
// denormal and a square past float's range, split unevenly over 3 ranks
// (one empty): unfused, fused on the CPU (-O3) and as generated CUDA
// kernels built for the host, against Python on ATen's definitions (sign
// of NaN is 0). The predicates come out as 1.0 / 0.0 through sc.select.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/ref.py input %t/x.npy %t/y.npy
// RUN: shardc %t/model.mlir -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --input arg0=%t/x.npy --input arg1=%t/y.npy --check --output result0=%t/r0.npy --output result1=%t/r1.npy --output result2=%t/r2.npy --output result3=%t/r3.npy --output result4=%t/r4.npy --output result5=%t/r5.npy --output result6=%t/r6.npy --output result7=%t/r7.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/ref.py check %t/x.npy %t/y.npy %t | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O3 -o %t/fused.shardbin
// RUN: mkdir -p %t/o3 && shard-run %t/fused.shardbin --input arg0=%t/x.npy --input arg1=%t/y.npy --output result0=%t/o3/r0.npy --output result1=%t/o3/r1.npy --output result2=%t/o3/r2.npy --output result3=%t/o3/r3.npy --output result4=%t/o3/r4.npy --output result5=%t/o3/r5.npy --output result6=%t/o3/r6.npy --output result7=%t/o3/r7.npy
// RUN: %python %t/ref.py check %t/x.npy %t/y.npy %t/o3 | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: mkdir -p %t/cuda && env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --backend cuda --input arg0=%t/x.npy --input arg1=%t/y.npy --output result0=%t/cuda/r0.npy --output result1=%t/cuda/r1.npy --output result2=%t/cuda/r2.npy --output result3=%t/cuda/r3.npy --output result4=%t/cuda/r4.npy --output result5=%t/cuda/r5.npy --output result6=%t/cuda/r6.npy --output result7=%t/cuda/r7.npy
// RUN: %python %t/ref.py check %t/x.npy %t/y.npy %t/cuda | FileCheck %s --check-prefix=VALUES
// The comparison can fail: sign(NaN) as NaN (numpy's), logaddexp without
// the infinity case.
// RUN: not %python %t/ref.py check %t/x.npy %t/y.npy %t numpy-sign 2>&1 | FileCheck %s --check-prefix=WRONG-SIGN
// RUN: not %python %t/ref.py check %t/x.npy %t/y.npy %t naive-logaddexp 2>&1 | FileCheck %s --check-prefix=WRONG-LAE

// RAN-COUNT-8: check result{{[0-9]+}}: {{.*}}: ok
// VALUES: square, sign, logaddexp, nan_to_num, nan_to_num(-1, 5, -5), isnan, isinf, isfinite: 8 x 12 values as PyTorch
// WRONG-SIGN: sign at 4
// WRONG-LAE: logaddexp at 5

//--- model.mlir
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<12xf32> {sc.sharding = #sc.sharding<@m, [{"x"}[5, 0, 7]]>}, %y: tensor<12xf32>)
    -> (tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>) {
  %one = sc.constant dense<1.0> : tensor<f32>
  %zero = sc.constant dense<0.0> : tensor<f32>
  %0 = sc.square %x : tensor<12xf32>
  %1 = sc.sign %x : tensor<12xf32>
  %2 = sc.logaddexp %x, %y : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xf32>
  %3 = sc.nan_to_num %x : tensor<12xf32>
  %4 = sc.nan_to_num %x {nan = -1.0, posinf = 5.0, neginf = -5.0} : tensor<12xf32>
  %p = sc.isnan %x : (tensor<12xf32>) -> tensor<12xi1>
  %5 = sc.select %p, %one, %zero : (tensor<12xi1>, tensor<f32>, tensor<f32>) -> tensor<12xf32>
  %q = sc.isinf %x : (tensor<12xf32>) -> tensor<12xi1>
  %6 = sc.select %q, %one, %zero : (tensor<12xi1>, tensor<f32>, tensor<f32>) -> tensor<12xf32>
  %r = sc.isfinite %x : (tensor<12xf32>) -> tensor<12xi1>
  %7 = sc.select %r, %one, %zero : (tensor<12xi1>, tensor<f32>, tensor<f32>) -> tensor<12xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>
}

//--- ref.py
# `input X Y`: twelve arguments with NaN, both infinities, both zeros, a
# denormal and 3e38 (its square overflows), and the second operands of
# logaddexp. `check X Y DIR [numpy-sign|naive-logaddexp]`: DIR/r<i>.npy.
import math, struct, sys
import npy

INF, NAN = math.inf, math.nan
if sys.argv[1] == "input":
    npy.write(sys.argv[2], [12], [-2.5, -0.0, 0.0, 1.5, NAN, INF, -INF, 3e38,
                                  -1e-40, 7.0, -7.0, 0.25])
    npy.write(sys.argv[3], [12], [1.0, -0.0, 100.0, 1.5, 2.0, INF, -INF, -INF,
                                  30.0, -100.0, NAN, -INF])
    sys.exit(0)
_, xs = npy.read(sys.argv[2])
_, ys = npy.read(sys.argv[3])
out = sys.argv[4]
wrong = sys.argv[5] if len(sys.argv) > 5 else ""
LARGEST = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]


def f32(v):
    try:
        return struct.unpack("<f", struct.pack("<f", v))[0]
    except OverflowError:
        return math.copysign(INF, v)


def sign(v):
    if v != v:
        return NAN if wrong == "numpy-sign" else 0.0
    return float((0 < v) - (v < 0))


def logaddexp(a, b):
    if a != a or b != b:
        return NAN
    if math.isinf(a) and a == b and wrong != "naive-logaddexp":
        return a
    m = max(a, b)
    try:
        return m + math.log1p(math.exp(-abs(a - b)))
    except ValueError:
        return NAN


def nan_to_num(v, nan=0.0, posinf=LARGEST, neginf=-LARGEST):
    return nan if v != v else posinf if v == INF else neginf if v == -INF else v


refs = [
    ("square", lambda a, b: f32(a * a)),
    ("sign", lambda a, b: sign(a)),
    ("logaddexp", logaddexp),
    ("nan_to_num", lambda a, b: nan_to_num(a)),
    ("nan_to_num(-1, 5, -5)", lambda a, b: nan_to_num(a, -1.0, 5.0, -5.0)),
    ("isnan", lambda a, b: float(a != a)),
    ("isinf", lambda a, b: float(math.isinf(a))),
    ("isfinite", lambda a, b: float(math.isfinite(a))),
]
for k, (name, f) in enumerate(refs):
    _, got = npy.read("%s/r%d.npy" % (out, k))
    for i, (a, b, g) in enumerate(zip(xs, ys, got)):
        want = f(a, b)
        same = (want != want and g != g) or want == g or (
            math.isfinite(want) and abs(g - want) <= 1e-6 * abs(want) + 1e-45)
        if not same:
            sys.exit("%s at %d (%r, %r): got %r, expected %r" % (name, i, a, b, g, want))
print("%s: %d x %d values as PyTorch" % (", ".join(r[0] for r in refs), len(refs), len(xs)))
