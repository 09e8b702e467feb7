// sc.sin, sc.cos and sc.erf as torch.sin, cos and erf, in random Fourier
// features: [sin(2 pi x @ B), cos(2 pi x @ B)] over a point cloud split
// unevenly over 3 ranks, and erf of a scaled input. The outputs are
// compared with Python's math.sin/cos/erf on the same inputs (in double, so
// within float32 rounding), unfused and fused (-O3: one generated kernel
// evaluates the functions), and the sharded runs with the unpartitioned
// model.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/fourier.py input %t/x.npy 7,3 0.37
// RUN: %python %t/fourier.py input %t/b.npy 3,4 1.13
// RUN: shardc %t/model.mlir -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --input arg0=%t/x.npy --input arg1=%t/b.npy --check --output result0=%t/f.npy --output result1=%t/e.npy --output result2=%t/g.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/fourier.py check %t/x.npy %t/b.npy %t/f.npy %t/e.npy %t/g.npy | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O3 -o %t/fused.shardbin
// RUN: shardc %t/model.mlir -O3 --emit=kernels | FileCheck %s --check-prefix=FUSED
// RUN: shard-run %t/fused.shardbin --input arg0=%t/x.npy --input arg1=%t/b.npy --check --output result0=%t/f3.npy --output result1=%t/e3.npy --output result2=%t/g3.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/fourier.py check %t/x.npy %t/b.npy %t/f3.npy %t/e3.npy %t/g3.npy | FileCheck %s --check-prefix=VALUES
// The comparison can fail: cos and sin swapped.
// RUN: not %python %t/fourier.py check %t/x.npy %t/b.npy %t/f.npy %t/e.npy %t/g.npy swap 2>&1 | FileCheck %s --check-prefix=WRONG

// RAN: check result0: {{.*}}: ok
// RAN: check result1: {{.*}}: ok
// RAN: check result2: {{.*}}: ok
// VALUES: features (7, 8), erf (7, 3), sin cos (7, 3): all as Python's math within 1e-05
// FUSED-DAG: ElementwiseFused "mul erf"
// FUSED-DAG: ElementwiseFused "sin cos mul"
// WRONG: features at (0, 0)

//--- model.mlir
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<7x3xf32> {sc.sharding = #sc.sharding<@m, [{"x"}[3, 0, 4], {}]>}, %b: tensor<3x4xf32>) -> (tensor<7x8xf32>, tensor<7x3xf32>, tensor<7x3xf32>) {
  %p = sc.matmul %x, %b : (tensor<7x3xf32>, tensor<3x4xf32>) -> tensor<7x4xf32>
  %pi2 = sc.constant dense<6.28318548> : tensor<f32>
  %q = sc.mul %p, %pi2 : (tensor<7x4xf32>, tensor<f32>) -> tensor<7x4xf32>
  %s = sc.sin %q : tensor<7x4xf32>
  %c = sc.cos %q : tensor<7x4xf32>
  %f = sc.concat %s, %c {dim = 1} : (tensor<7x4xf32>, tensor<7x4xf32>) -> tensor<7x8xf32>
  %h = sc.constant dense<1.5> : tensor<f32>
  %xs = sc.mul %x, %h : (tensor<7x3xf32>, tensor<f32>) -> tensor<7x3xf32>
  %e = sc.erf %xs : tensor<7x3xf32>
  %sx = sc.sin %x : tensor<7x3xf32>
  %cx = sc.cos %x : tensor<7x3xf32>
  %g = sc.mul %sx, %cx : (tensor<7x3xf32>, tensor<7x3xf32>) -> tensor<7x3xf32>
  return %f, %e, %g : tensor<7x8xf32>, tensor<7x3xf32>, tensor<7x3xf32>
}

//--- fourier.py
# `input F SHAPE STEP`: writes float32 values i * STEP - 1 (wrapping into
# [-1, 1)). `check X B F E G [swap]`: F must be [sin(2 pi X @ B),
# cos(2 pi X @ B)], E erf(1.5 X) and G sin(X) cos(X), computed here in double from the
# float32 inputs (2 pi rounded to float32, as the model holds it).
import itertools, math, sys
import npy

if sys.argv[1] == "input":
    shape = [int(d) for d in sys.argv[3].split(",")]
    step = float(sys.argv[4])
    npy.write(sys.argv[2], shape,
              [math.fmod(i * step, 2.0) - 1.0 for i in range(npy.count(shape))])
    sys.exit(0)
(n, k), x = npy.read(sys.argv[2])
(_, m), b = npy.read(sys.argv[3])
fshape, f = npy.read(sys.argv[4])
eshape, e = npy.read(sys.argv[5])
gshape, g = npy.read(sys.argv[6])
swap = sys.argv[7:] == ["swap"]
if fshape != [n, 2 * m] or eshape != [n, k] or gshape != [n, k]:
    sys.exit("shapes %s, %s" % (fshape, eshape))
tol = 1e-5
for i, j in itertools.product(range(n), range(2 * m)):
    p = 6.2831854820251465 * sum(x[i * k + t] * b[t * m + j % m] for t in range(k))
    first = math.cos if swap else math.sin
    want = first(p) if j < m else (math.sin if swap else math.cos)(p)
    if abs(f[i * 2 * m + j] - want) > tol:
        sys.exit("features at %s: got %r, expected %r" % ((i, j), f[i * 2 * m + j], want))
for i in range(n * k):
    want = math.erf(1.5 * x[i])
    if abs(e[i] - want) > tol:
        sys.exit("erf at %d: got %r, expected %r" % (i, e[i], want))
    want = math.sin(x[i]) * math.cos(x[i])
    if abs(g[i] - want) > tol:
        sys.exit("sin cos at %d: got %r, expected %r" % (i, g[i], want))
print("features %s, erf %s, sin cos %s: all as Python's math within %g"
      % (tuple(fshape), tuple(eshape), tuple(gshape), tol))
