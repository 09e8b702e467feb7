// Reductions of a rank-0 tensor over dim 0 or -1, which PyTorch takes (it
// wraps a 0-d tensor's dims as if it had one): torch.sum(s, dim=0) is s,
// var with correction 1 is NaN (no degree of freedom), std with
// correction 0 is 0, keepdim keeps rank 0; softmax is 1 and log_softmax 0
// (NaN for NaN); F.normalize divides by max(|x|, eps). The scalar is a max over an
// uneven split on 2 ranks, so it is combined across ranks first; the
// values are compared with Python's definitions, the sharded run with the
// unpartitioned model.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/ref.py input %t/y.npy
// RUN: shardc %t/model.mlir -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --input arg0=%t/y.npy --check --output result0=%t/r0.npy --output result1=%t/r1.npy --output result2=%t/r2.npy --output result3=%t/r3.npy --output result4=%t/r4.npy --output result5=%t/r5.npy --output result6=%t/r6.npy --output result7=%t/r7.npy --output result8=%t/r8.npy --output result9=%t/r9.npy --output result10=%t/r10.npy --output result11=%t/r11.npy --output result12=%t/r12.npy --output result13=%t/r13.npy --output result14=%t/r14.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/ref.py check %t/y.npy %t | FileCheck %s --check-prefix=VALUES
// RUN: not %python %t/ref.py check %t/y.npy %t wrong 2>&1 | FileCheck %s --check-prefix=WRONG

// RAN-COUNT-15: check result{{[0-9]+}}: {{.*}}: ok
// VALUES: sum, amax, mean, amin, var, std, logsumexp, prod, vector_norm(3), vector_norm(inf), softmax, log_softmax, softmax(NaN), log_softmax(NaN), normalize over dim 0 of a scalar: as PyTorch
// WRONG: sum: got

//--- model.mlir
sc.mesh @m ["x"=2]
func.func @main(%y: tensor<5xf32> {sc.sharding = #sc.sharding<@m, [{"x"}[2, 3]]>})
    -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>,
        tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>,
        tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %x = sc.amin %y : (tensor<5xf32>) -> tensor<f32>
  %0 = sc.sum %x {dims = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  %1 = sc.amax %x {dims = array<i64: -1>, keepdim = true} : (tensor<f32>) -> tensor<f32>
  %2 = sc.mean %x {dims = array<i64: 0>, keepdim = true} : (tensor<f32>) -> tensor<f32>
  %3 = sc.amin %x {dims = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  %4 = sc.var %x {dims = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  %5 = sc.std %x {dims = array<i64: -1>, correction = 0.0} : (tensor<f32>) -> tensor<f32>
  %6 = sc.logsumexp %x {dims = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  %7 = sc.prod %x {dims = array<i64: 0>, keepdim = true} : (tensor<f32>) -> tensor<f32>
  %8 = sc.vector_norm %x {dims = array<i64: 0>, ord = 3.0} : (tensor<f32>) -> tensor<f32>
  %9 = sc.vector_norm %x {dims = array<i64: -1>, ord = 0x7FF0000000000000 : f64} : (tensor<f32>) -> tensor<f32>
  %10 = sc.softmax %x {dim = 0 : i64} : (tensor<f32>) -> tensor<f32>
  %11 = sc.log_softmax %x {dim = -1 : i64} : (tensor<f32>) -> tensor<f32>
  %n = sc.log %x : tensor<f32>
  %12 = sc.softmax %n {dim = 0 : i64} : (tensor<f32>) -> tensor<f32>
  %13 = sc.log_softmax %n {dim = 0 : i64} : (tensor<f32>) -> tensor<f32>
  %14 = sc.normalize %x {dim = 0 : i64} : tensor<f32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>,
      tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}

//--- ref.py
# `input F`: five values whose min, -2.5, lies on the second rank.
# `check Y DIR [wrong]`: DIR/r0.npy .. r14.npy against the reductions and
# softmaxes of min(Y) over its one element ("wrong": of the max instead),
# then the softmaxes of log(min(Y)), which is NaN.
import math, sys
import npy

if sys.argv[1] == "input":
    npy.write(sys.argv[2], [5], [1.5, 0.25, 3.0, -2.5, 0.75])
    sys.exit(0)
_, y = npy.read(sys.argv[2])
s = max(y) if len(sys.argv) > 4 else min(y)
refs = [("sum", s), ("amax", s), ("mean", s), ("amin", s),
        ("var", math.nan), ("std", 0.0), ("logsumexp", s), ("prod", s),
        ("vector_norm(3)", abs(s)), ("vector_norm(inf)", abs(s)),
        ("softmax", 1.0), ("log_softmax", 0.0),
        ("softmax(NaN)", math.nan), ("log_softmax(NaN)", math.nan),
        ("normalize", s / max(abs(s), 1e-12))]
for i, (name, want) in enumerate(refs):
    shape, got = npy.read("%s/r%d.npy" % (sys.argv[3], i))
    if shape != [] or len(got) != 1:
        sys.exit("%s: shape %s, expected a scalar" % (name, shape))
    got = got[0]
    if not ((want != want and got != got) or abs(got - want) <= 1e-6 * abs(want)):
        sys.exit("%s: got %r, expected %r" % (name, got, want))
print("%s over dim 0 of a scalar: as PyTorch" % ", ".join(r[0] for r in refs))
