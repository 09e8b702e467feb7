// torch.var and torch.std through sc-decompose-forms (a mean, the squared
// deviations' sum, a division) over dims split unevenly over 3 ranks (one
// empty): Bessel's correction over one split dim with keepdim, the
// population std over a split and a whole dim, the var of everything, and
// the edge cases PyTorch defines: a correction past the count (inf) and
// deviations all 0 with no degrees of freedom left (NaN), also for equal
// values split across ranks (whose merged mean may be an ulp off them). Outputs are
// compared with a two-pass variance in double computed here, and the
// sharded runs with the unpartitioned model, unfused and fused (-O3).
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/var.py input %t/x.npy
// RUN: %python %t/var.py rows %t/k.npy
// RUN: shardc %t/model.mlir -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --input arg0=%t/x.npy --input arg1=%t/k.npy --check --output result0=%t/var1.npy --output result1=%t/std12.npy --output result2=%t/varall.npy --output result3=%t/inf.npy --output result4=%t/nan.npy --output result5=%t/rows.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/var.py check %t/x.npy %t | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O3 -o %t/o3.shardbin
// RUN: mkdir -p %t/o3 && shard-run %t/o3.shardbin --input arg0=%t/x.npy --input arg1=%t/k.npy --check --output result0=%t/o3/var1.npy --output result1=%t/o3/std12.npy --output result2=%t/o3/varall.npy --output result3=%t/o3/inf.npy --output result4=%t/o3/nan.npy --output result5=%t/o3/rows.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/var.py check %t/x.npy %t/o3 | FileCheck %s --check-prefix=VALUES
// Over a split dim both passes reduce across ranks.
// RUN: shardc %t/model.mlir --emit=plan | FileCheck %s --check-prefix=PLAN
// The comparison can fail: the population variance where Bessel's is due.
// RUN: not %python %t/var.py check %t/x.npy %t correction=0 2>&1 | FileCheck %s --check-prefix=WRONG

// RAN-COUNT-6: check result{{[0-5]}}: {{.*}}: ok
// VALUES: var(dim 1, keepdim): 12 values; std(dims 1, 2, correction 0): 3 values; var(all): 1 value; inf, nan: as PyTorch
// PLAN: collectives: {{[2-9]|[1-9][0-9]}},
// WRONG: var(dim 1, keepdim) at 0

//--- model.mlir
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<3x7x4xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[4, 0, 3], {}]>}, %k: tensor<4x3xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[2, 0, 1]]>}) -> (tensor<3x1x4xf32>, tensor<3xf32>, tensor<f32>, tensor<3x4xf32>, tensor<3x7xf32>, tensor<4xf32>) {
  %v = sc.var %x {dims = array<i64: 1>, keepdim = true} : (tensor<3x7x4xf32>) -> tensor<3x1x4xf32>
  %s = sc.std %x {dims = array<i64: -2, 2>, correction = 0.0} : (tensor<3x7x4xf32>) -> tensor<3xf32>
  %a = sc.var %x : (tensor<3x7x4xf32>) -> tensor<f32>
  %i = sc.var %x {dims = array<i64: 1>, correction = 9.0} : (tensor<3x7x4xf32>) -> tensor<3x4xf32>
  %c = sc.slice %x {start = array<i64: 0, 0, 1>, end = array<i64: 3, 7, 2>} : (tensor<3x7x4xf32>) -> tensor<3x7x1xf32>
  %n = sc.var %c {dims = array<i64: 2>} : (tensor<3x7x1xf32>) -> tensor<3x7xf32>
  %r = sc.var %k {dims = array<i64: 1>, correction = 3.0} : (tensor<4x3xf32>) -> tensor<4xf32>
  return %v, %s, %a, %i, %n, %r : tensor<3x1x4xf32>, tensor<3xf32>, tensor<f32>, tensor<3x4xf32>, tensor<3x7xf32>, tensor<4xf32>
}

//--- var.py
# `input F`: (3, 7, 4) float32 values with an offset of 1000 (a one-pass
# E[x^2] - E[x]^2 would lose digits to it). `check X DIR [correction=C]`:
# DIR's outputs against a two-pass variance in double (C replaces the first
# output's correction).
import math, sys
import npy

if sys.argv[1] == "rows":
    # Rows of one value each (0.1, 0.3, 0.7 are not exact in binary), and
    # one that differs.
    vals = [0.1] * 3 + [0.3] * 3 + [0.7] * 3 + [1.1, 1.1, 1.2]
    npy.write(sys.argv[2], [4, 3], vals)
    sys.exit(0)
if sys.argv[1] == "input":
    vals = [1000 + math.sin(1.7 * i) * (1 + i % 5) for i in range(84)]
    npy.write(sys.argv[2], [3, 7, 4], vals)
    sys.exit(0)
shape, x = npy.read(sys.argv[2])
out = sys.argv[3]
first = float(sys.argv[4].split("=")[1]) if len(sys.argv) > 4 else 1.0
at = lambda n, h, w: x[(n * 7 + h) * 4 + w]


def var(xs, correction):
    mean = sum(xs) / len(xs)
    return sum((v - mean) ** 2 for v in xs) / max(0, len(xs) - correction)


def compare(label, want, path):
    _, got = npy.read(path)
    for i, (w, g) in enumerate(zip(want, got)):
        if not abs(g - w) <= 1e-5 + 1e-4 * abs(w):
            sys.exit("%s at %d: got %r, expected %r" % (label, i, g, w))
    return "%s: %d value%s" % (label, len(want), "s" if len(want) > 1 else "")


lines = [
    compare("var(dim 1, keepdim)",
            [var([at(n, h, w) for h in range(7)], first)
             for n in range(3) for w in range(4)], out + "/var1.npy"),
    compare("std(dims 1, 2, correction 0)",
            [math.sqrt(var([at(n, h, w) for h in range(7) for w in range(4)], 0))
             for n in range(3)], out + "/std12.npy"),
    compare("var(all)", [var(list(x), 1)], out + "/varall.npy"),
]
_, inf = npy.read(out + "/inf.npy")
_, nan = npy.read(out + "/nan.npy")
if not all(v == math.inf for v in inf):
    sys.exit("var with correction 9 over 7: expected inf, got %r" % (inf,))
if not all(v != v for v in nan):
    sys.exit("var of one element: expected NaN, got %r" % (nan,))
_, rows = npy.read(out + "/rows.npy")
if not (all(v != v for v in rows[:3]) and rows[3] == math.inf):
    sys.exit("var of equal rows, correction 3 over 3: expected "
             "(nan, nan, nan, inf), got %r" % (rows,))
print("; ".join(lines) + "; inf, nan: as PyTorch")
