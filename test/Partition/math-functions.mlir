// torch's other math functions on floats: tan, asin, acos, atan, sinh,
// cosh, asinh, acosh, atanh, log2, log10, exp2, erfc, floor, ceil, trunc,
// round (half to even), reciprocal, and atan2, fmod (the dividend's sign),
// remainder (the divisor's sign, Python's %), hypot and copysign (-0's sign
// included), on values that include
// halves, -0, NaN, both infinities and arguments outside a domain, split
// unevenly over 3 ranks (one empty): unfused, fused on the CPU (-O3) and as
// generated CUDA kernels built for the host, against Python's math.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/ref.py input %t/w.npy %t/d.npy
// RUN: shardc %t/model.mlir -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --input arg0=%t/w.npy --input arg1=%t/d.npy --check --output result0=%t/r0.npy --output result1=%t/r1.npy --output result2=%t/r2.npy --output result3=%t/r3.npy --output result4=%t/r4.npy --output result5=%t/r5.npy --output result6=%t/r6.npy --output result7=%t/r7.npy --output result8=%t/r8.npy --output result9=%t/r9.npy --output result10=%t/r10.npy --output result11=%t/r11.npy --output result12=%t/r12.npy --output result13=%t/r13.npy --output result14=%t/r14.npy --output result15=%t/r15.npy --output result16=%t/r16.npy --output result17=%t/r17.npy --output result18=%t/r18.npy --output result19=%t/r19.npy --output result20=%t/r20.npy --output result21=%t/r21.npy --output result22=%t/r22.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/ref.py check %t/w.npy %t/d.npy %t | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O3 -o %t/fused.shardbin
// RUN: mkdir -p %t/o3 && shard-run %t/fused.shardbin --input arg0=%t/w.npy --input arg1=%t/d.npy --output result0=%t/o3/r0.npy --output result1=%t/o3/r1.npy --output result2=%t/o3/r2.npy --output result3=%t/o3/r3.npy --output result4=%t/o3/r4.npy --output result5=%t/o3/r5.npy --output result6=%t/o3/r6.npy --output result7=%t/o3/r7.npy --output result8=%t/o3/r8.npy --output result9=%t/o3/r9.npy --output result10=%t/o3/r10.npy --output result11=%t/o3/r11.npy --output result12=%t/o3/r12.npy --output result13=%t/o3/r13.npy --output result14=%t/o3/r14.npy --output result15=%t/o3/r15.npy --output result16=%t/o3/r16.npy --output result17=%t/o3/r17.npy --output result18=%t/o3/r18.npy --output result19=%t/o3/r19.npy --output result20=%t/o3/r20.npy --output result21=%t/o3/r21.npy --output result22=%t/o3/r22.npy
// RUN: %python %t/ref.py check %t/w.npy %t/d.npy %t/o3 | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: mkdir -p %t/cuda && env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --backend cuda --input arg0=%t/w.npy --input arg1=%t/d.npy --output result0=%t/cuda/r0.npy --output result1=%t/cuda/r1.npy --output result2=%t/cuda/r2.npy --output result3=%t/cuda/r3.npy --output result4=%t/cuda/r4.npy --output result5=%t/cuda/r5.npy --output result6=%t/cuda/r6.npy --output result7=%t/cuda/r7.npy --output result8=%t/cuda/r8.npy --output result9=%t/cuda/r9.npy --output result10=%t/cuda/r10.npy --output result11=%t/cuda/r11.npy --output result12=%t/cuda/r12.npy --output result13=%t/cuda/r13.npy --output result14=%t/cuda/r14.npy --output result15=%t/cuda/r15.npy --output result16=%t/cuda/r16.npy --output result17=%t/cuda/r17.npy --output result18=%t/cuda/r18.npy --output result19=%t/cuda/r19.npy --output result20=%t/cuda/r20.npy --output result21=%t/cuda/r21.npy --output result22=%t/cuda/r22.npy
// RUN: %python %t/ref.py check %t/w.npy %t/d.npy %t/cuda | FileCheck %s --check-prefix=VALUES
// The comparison can fail: round half away from zero, fmod for remainder.
// RUN: not %python %t/ref.py check %t/w.npy %t/d.npy %t wrong-round 2>&1 | FileCheck %s --check-prefix=WRONG-ROUND
// RUN: not %python %t/ref.py check %t/w.npy %t/d.npy %t wrong-remainder 2>&1 | FileCheck %s --check-prefix=WRONG-REM

// RAN-COUNT-23: check result{{[0-9]+}}: {{.*}}: ok
// VALUES: tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh, log2, log10, exp2, erfc, floor, ceil, trunc, round, reciprocal, atan2, fmod, remainder, hypot, copysign: 23 x 14 values as PyTorch
// WRONG-ROUND: round at 1
// WRONG-REM: remainder at 0

//--- model.mlir
sc.mesh @m ["x"=3]
func.func @main(%w: tensor<14xf32> {sc.sharding = #sc.sharding<@m, [{"x"}[5, 0, 9]]>}, %d: tensor<14xf32>)
    -> (tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>) {
  %r0 = sc.tan %w : tensor<14xf32>
  %r1 = sc.asin %w : tensor<14xf32>
  %r2 = sc.acos %w : tensor<14xf32>
  %r3 = sc.atan %w : tensor<14xf32>
  %r4 = sc.sinh %w : tensor<14xf32>
  %r5 = sc.cosh %w : tensor<14xf32>
  %r6 = sc.asinh %w : tensor<14xf32>
  %r7 = sc.acosh %w : tensor<14xf32>
  %r8 = sc.atanh %w : tensor<14xf32>
  %r9 = sc.log2 %w : tensor<14xf32>
  %r10 = sc.log10 %w : tensor<14xf32>
  %r11 = sc.exp2 %w : tensor<14xf32>
  %r12 = sc.erfc %w : tensor<14xf32>
  %r13 = sc.floor %w : tensor<14xf32>
  %r14 = sc.ceil %w : tensor<14xf32>
  %r15 = sc.trunc %w : tensor<14xf32>
  %r16 = sc.round %w : tensor<14xf32>
  %r17 = sc.reciprocal %w : tensor<14xf32>
  %r18 = sc.atan2 %w, %d : (tensor<14xf32>, tensor<14xf32>) -> tensor<14xf32>
  %r19 = sc.fmod %w, %d : (tensor<14xf32>, tensor<14xf32>) -> tensor<14xf32>
  %r20 = sc.remainder %w, %d : (tensor<14xf32>, tensor<14xf32>) -> tensor<14xf32>
  %r21 = sc.hypot %w, %d : (tensor<14xf32>, tensor<14xf32>) -> tensor<14xf32>
  %r22 = sc.copysign %w, %d : (tensor<14xf32>, tensor<14xf32>) -> tensor<14xf32>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20, %r21, %r22 : tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>
}

//--- ref.py
# `input W D`: the arguments (halves, -0, NaN, infinities, values outside
# asin's, acosh's and log's domains) and the divisors (both signs, 0, inf).
# `check W D DIR [wrong-round|wrong-remainder]`: DIR/r<i>.npy against the
# functions in model.mlir's order, from Python's math in double.
import math, struct, sys
import npy

INF, NAN = math.inf, math.nan
if sys.argv[1] == "input":
    npy.write(sys.argv[2], [14], [-7.5, -2.5, -1.5, -0.5, -0.0, 0.3, 0.5, 1.5,
                                  2.5, 3.7, 12.0, NAN, INF, -INF])
    npy.write(sys.argv[3], [14], [2.0, 2.0, -2.0, 3.0, 2.0, 0.7, -0.7, 1.5,
                                  -3.0, 0.0, INF, 2.0, 2.0, -INF])
    sys.exit(0)
_, w = npy.read(sys.argv[2])
_, d = npy.read(sys.argv[3])
out = sys.argv[4]
wrong = sys.argv[5] if len(sys.argv) > 5 else ""


def safe(f, v, overflow=INF):
    try:
        return f(v)
    except OverflowError:
        return overflow
    except (ValueError, ZeroDivisionError):
        return NAN


def finite_only(f):
    return lambda v: float(f(v)) if math.isfinite(v) else v


def log_base(f):
    return lambda v: -INF if v == 0 else safe(f, v)


def atanh(v):
    return math.copysign(INF, v) if abs(v) == 1 else safe(math.atanh, v)


def round_half_even(v):
    if wrong == "wrong-round":  # half away from zero
        return math.copysign(math.floor(abs(v) + 0.5), v)
    return float(round(v))


def remainder(a, b):
    if b == 0 or math.isinf(a) or a != a or b != b:
        return NAN
    if wrong == "wrong-remainder":
        return math.fmod(a, b)
    return a % b


unary = [
    ("tan", lambda v: safe(math.tan, v)),
    ("asin", lambda v: safe(math.asin, v)),
    ("acos", lambda v: safe(math.acos, v)),
    ("atan", math.atan),
    ("sinh", lambda v: safe(math.sinh, v, math.copysign(INF, v))),
    ("cosh", lambda v: safe(math.cosh, v)),
    ("asinh", math.asinh),
    ("acosh", lambda v: safe(math.acosh, v)),
    ("atanh", atanh),
    ("log2", log_base(math.log2)),
    ("log10", log_base(math.log10)),
    ("exp2", lambda v: safe(lambda x: 2.0 ** x, v)),
    ("erfc", math.erfc),
    ("floor", finite_only(math.floor)),
    ("ceil", finite_only(math.ceil)),
    ("trunc", finite_only(math.trunc)),
    ("round", finite_only(round_half_even)),
    ("reciprocal", lambda v: math.copysign(INF, v) if v == 0 else 1 / v),
]
binary = [("atan2", math.atan2), ("fmod", lambda a, b: safe(lambda x: math.fmod(x, b), a)),
          ("remainder", remainder), ("hypot", math.hypot),
          ("copysign", math.copysign)]
refs = [(n, f, False) for n, f in unary] + [(n, f, True) for n, f in binary]
for k, (name, f, two) in enumerate(refs):
    _, y = npy.read("%s/r%d.npy" % (out, k))
    for i, got in enumerate(y):
        want = f(w[i], d[i]) if two else f(w[i])
        same = (want != want and got != got) or want == got or (
            math.isfinite(want) and abs(got - want) <= 2e-6 * abs(want) + 1e-30)
        if not same:
            sys.exit("%s at %d (%r, %r): got %r, expected %r" % (name, i, w[i], d[i], got, want))
print("%s: %d x %d values as PyTorch" % (", ".join(r[0] for r in refs), len(refs), len(w)))
