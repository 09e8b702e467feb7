// F.linear's other forms through sc-decompose-forms: a 1-D weight (the
// last dim contracts away) and a bias that broadcasts. The contracted dim is
// split, unevenly, so the linear's sums are partial over ranks and the bias
// must be added once, after they are summed. Inputs are multiples of 1/8 of
// small integers, so every sum is exact in float32 in any order, and the
// outputs are compared exactly with a pure-Python F.linear, and the sharded
// runs with the unpartitioned model.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/flinear.py input %t/x.npy 5,9 1
// RUN: %python %t/flinear.py input %t/v.npy 9 2
// RUN: %python %t/flinear.py input %t/s.npy "" 3
// RUN: %python %t/flinear.py input %t/d.npy 10 4
// RUN: %python %t/flinear.py input %t/e.npy 10 5
// RUN: %python %t/flinear.py input %t/a.npy 2,3,8 6
// RUN: %python %t/flinear.py input %t/w.npy 6,8 7
// RUN: %python %t/flinear.py input %t/r.npy 3,1 8
//
// RUN: shardc %t/vector.mlir -o %t/vector.shardbin
// RUN: shard-run %t/vector.shardbin --input arg0=%t/x.npy --input arg1=%t/v.npy --input arg2=%t/s.npy --check --output result0=%t/vector.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/flinear.py check %t/vector.npy %t/x.npy %t/v.npy %t/s.npy | FileCheck %s --check-prefix=VECTOR
// RUN: shardc %t/vector.mlir -O0 -o %t/vector0.shardbin
// RUN: shard-run %t/vector0.shardbin --input arg0=%t/x.npy --input arg1=%t/v.npy --input arg2=%t/s.npy --output result0=%t/vector0.npy
// RUN: %python %t/flinear.py check %t/vector0.npy %t/x.npy %t/v.npy %t/s.npy | FileCheck %s --check-prefix=VECTOR
// RUN: shardc %t/vector.mlir --emit=partitioned | FileCheck %s --check-prefix=REDUCED
// shardc-opt's pipelines and shardc's --reference decompose too.
// RUN: shardc-opt %t/vector.mlir -sc-partition-pipeline | shardc - --reference %t/vector.mlir -o %t/piped.shardbin
// RUN: shard-run %t/piped.shardbin --input arg0=%t/x.npy --input arg1=%t/v.npy --input arg2=%t/s.npy --check --output result0=%t/piped.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/flinear.py check %t/piped.npy %t/x.npy %t/v.npy %t/s.npy | FileCheck %s --check-prefix=VECTOR
// RUN: shardc-opt %t/vector.mlir -sc-to-cpu | FileCheck %s --check-prefix=REDUCED
//
// RUN: shardc %t/dot.mlir -O3 -o %t/dot.shardbin
// RUN: shard-run %t/dot.shardbin --input arg0=%t/d.npy --input arg1=%t/e.npy --input arg2=%t/s.npy --check --output result0=%t/dot.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/flinear.py check %t/dot.npy %t/d.npy %t/e.npy %t/s.npy | FileCheck %s --check-prefix=DOT
//
// RUN: shardc %t/broadcast.mlir -o %t/broadcast.shardbin
// RUN: shard-run %t/broadcast.shardbin --input arg0=%t/a.npy --input arg1=%t/w.npy --input arg2=%t/r.npy --check --output result0=%t/broadcast.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/flinear.py check %t/broadcast.npy %t/a.npy %t/w.npy %t/r.npy | FileCheck %s --check-prefix=BROADCAST
//
// The reference's own error (so the comparison can fail): the bias twice.
// RUN: not %python %t/flinear.py check %t/vector.npy %t/x.npy %t/v.npy %t/s.npy twice 2>&1 | FileCheck %s --check-prefix=WRONG

// RAN: check result0: {{.*}}: ok
// VECTOR: (5,): all 5 values as F.linear
// DOT: (): all 1 values as F.linear
// BROADCAST: (2, 3, 6): all 36 values as F.linear
// WRONG: at (0,): got
// REDUCED: all_reduce

//--- vector.mlir
// x (5, 9) @ v (9) + s: the 9 features split [4, 2, 3], so each rank holds
// a partial dot product per row.
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<5x9xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[4, 2, 3]]>}, %v: tensor<9xf32> {sc.sharding = #sc.sharding<@m, [{"x"}[4, 2, 3]]>}, %s: tensor<f32>) -> tensor<5xf32> {
  %y = sc.linear %x, %v, %s : (tensor<5x9xf32>, tensor<9xf32>, tensor<f32>) -> tensor<5xf32>
  return %y : tensor<5xf32>
}

//--- dot.mlir
// A dot product of two vectors split [3, 3, 4], plus a scalar bias.
sc.mesh @m ["x"=3]
func.func @main(%d: tensor<10xf32> {sc.sharding = #sc.sharding<@m, [{"x"}[3, 3, 4]]>}, %e: tensor<10xf32> {sc.sharding = #sc.sharding<@m, [{"x"}[3, 3, 4]]>}, %s: tensor<f32>) -> tensor<f32> {
  %y = sc.linear %d, %e, %s : (tensor<10xf32>, tensor<10xf32>, tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}

//--- broadcast.mlir
// (2, 3, 8) @ (6, 8)^T + r (3, 1): rows split over "x" [2, 1], features
// over "y" [5, 3]; the bias broadcasts over the batch and the outputs.
sc.mesh @m ["x"=2, "y"=2]
func.func @main(%a: tensor<2x3x8xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[2, 1], {"y"}[5, 3]]>}, %w: tensor<6x8xf32> {sc.sharding = #sc.sharding<@m, [{}, {"y"}[5, 3]]>}, %r: tensor<3x1xf32>) -> tensor<2x3x6xf32> {
  %y = sc.linear %a, %w, %r : (tensor<2x3x8xf32>, tensor<6x8xf32>, tensor<3x1xf32>) -> tensor<2x3x6xf32>
  %z = sc.sharding_constraint %y : tensor<2x3x6xf32> to #sc.sharding<@m, [{}, {"x"}[2, 1], {}]>
  return %z : tensor<2x3x6xf32>
}

//--- flinear.py
# `input F SHAPE SEED`: writes float32 multiples of 1/8 in [-11/8, 11/8].
# `check Y X W [B] [twice]`: F.linear(X, W, B) computed here from its
# definition (X's last dim contracted with W's, a 1-D W dropping the output
# dim, B broadcast from the right) and compared with Y exactly.
import itertools, sys
import npy

if sys.argv[1] == "input":
    shape = [int(d) for d in sys.argv[3].split(",") if d]
    seed = int(sys.argv[4])
    npy.write(sys.argv[2], shape,
              [((i * 37 + seed * 11) % 23 - 11) / 8.0
               for i in range(npy.count(shape))])
    sys.exit(0)
yshape, y = npy.read(sys.argv[2])
xshape, x = npy.read(sys.argv[3])
wshape, w = npy.read(sys.argv[4])
bias = npy.read(sys.argv[5]) if len(sys.argv) > 5 else None
twice = sys.argv[6:] == ["twice"]
inner = xshape[-1]
outs = wshape[0] if len(wshape) == 2 else None
expected = xshape[:-1] + ([outs] if outs is not None else [])
if yshape != expected:
    sys.exit("shape %s, expected %s" % (yshape, expected))
ystrides = npy.strides(yshape)
for flat, index in enumerate(itertools.product(*[range(n) for n in yshape])):
    rows = index[:len(xshape) - 1]
    o = index[-1] if outs is not None else 0
    xbase = sum(i * s for i, s in zip(rows, npy.strides(xshape)))
    value = sum(x[xbase + k] * w[o * inner + k] for k in range(inner))
    if bias is not None:
        bshape, b = bias
        lead = len(yshape) - len(bshape)
        bindex = [0 if n == 1 else i for i, n in zip(index[lead:], bshape)]
        bvalue = b[sum(i * s for i, s in zip(bindex, npy.strides(bshape)))]
        value += bvalue * (2 if twice else 1)
    if y[flat] != value:
        sys.exit("at %s: got %r, expected %r" % (index, y[flat], value))
print("%s: all %d values as F.linear" % (tuple(yshape), len(y)))
