// torch.argmax / torch.argmin on sharded inputs, against Python: along a
// dim that is not split (each rank its own rows), along a split dim with
// an empty shard (the extreme and the least index each all-reduced), and
// flattened; ties give the first index and NaN counts as the extreme, as
// in PyTorch. Unfused, -O3, host CUDA, and in bf16 (the values are bf16's).
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/ref.py input %t
// RUN: shardc %t/model.mlir -O0 -o %t/o0.shardbin
// RUN: mkdir -p %t/o0 && shard-run %t/o0.shardbin --input arg0=%t/x.npy --input arg1=%t/y.npy --output result0=%t/o0/r0.npy --output result1=%t/o0/r1.npy --output result2=%t/o0/r2.npy --output result3=%t/o0/r3.npy --output result4=%t/o0/r4.npy --output result5=%t/o0/r5.npy --output result6=%t/o0/r6.npy --output result7=%t/o0/r7.npy
// RUN: %python %t/ref.py check %t/o0 | FileCheck %s
// Nothing is gathered: the flattened index is a sum of per-dim constants,
// not a reshape to 1-D (which would gather the split H).
// RUN: shardc %t/model.mlir -O0 --emit=kernels | FileCheck %s --check-prefix=COMM
// COMM-NOT: AllGather
// COMM: AllReduce
// COMM-NOT: AllGather
// RUN: shardc %t/model.mlir -O3 -o %t/o3.shardbin
// RUN: mkdir -p %t/o3 && shard-run %t/o3.shardbin --input arg0=%t/x.npy --input arg1=%t/y.npy --output result0=%t/o3/r0.npy --output result1=%t/o3/r1.npy --output result2=%t/o3/r2.npy --output result3=%t/o3/r3.npy --output result4=%t/o3/r4.npy --output result5=%t/o3/r5.npy --output result6=%t/o3/r6.npy --output result7=%t/o3/r7.npy
// RUN: %python %t/ref.py check %t/o3 | FileCheck %s
// RUN: shardc %t/model.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: mkdir -p %t/cuda && env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --backend cuda --input arg0=%t/x.npy --input arg1=%t/y.npy --output result0=%t/cuda/r0.npy --output result1=%t/cuda/r1.npy --output result2=%t/cuda/r2.npy --output result3=%t/cuda/r3.npy --output result4=%t/cuda/r4.npy --output result5=%t/cuda/r5.npy --output result6=%t/cuda/r6.npy --output result7=%t/cuda/r7.npy
// RUN: %python %t/ref.py check %t/cuda | FileCheck %s
// RUN: sed 's/xf32>/xbf16>/g' %t/model.mlir > %t/bf16.mlir
// RUN: shardc %t/bf16.mlir -O3 -o %t/bf16.shardbin
// RUN: mkdir -p %t/bf16 && shard-run %t/bf16.shardbin --input arg0=%t/x.npy --input arg1=%t/y.npy --output result0=%t/bf16/r0.npy --output result1=%t/bf16/r1.npy --output result2=%t/bf16/r2.npy --output result3=%t/bf16/r3.npy --output result4=%t/bf16/r4.npy --output result5=%t/bf16/r5.npy --output result6=%t/bf16/r6.npy --output result7=%t/bf16/r7.npy
// RUN: %python %t/ref.py check %t/bf16 | FileCheck %s
// A dim past 2^16 counts its indices with a cumsum of ones (each rank its
// own shard, from the shards' totals) instead of a constant every rank
// would hold whole.
// RUN: shardc %t/long.mlir -O0 --emit=kernels | FileCheck %s --check-prefix=LONG
// RUN: shardc %t/long.mlir -O3 -o %t/long.shardbin
// RUN: shard-run %t/long.shardbin --input arg0=%t/long.npy --output result0=%t/o3/l0.npy --output result1=%t/o3/l1.npy --output result2=%t/o3/l2.npy
// RUN: %python %t/ref.py long %t/o3 | FileCheck %s --check-prefix=LONGOK
// LONG-NOT: dense
// LONG: Scan "sum"
// LONGOK: long rows: as PyTorch's
// The check can fail: the last index of a tie.
// RUN: not %python %t/ref.py check %t/o0 last 2>&1 | FileCheck %s --check-prefix=WRONG
// CHECK: argmax, argmin: 8 results as PyTorch's
// WRONG: result 0 at

//--- model.mlir
// x: segmentation logits (N, C, H, W) split over H 3/0/2; y: rows split
// 4/0/3. The last result moves y's row indices to another uneven split
// (int64 shards shifted between ranks); torch.max(y, 0) gives the values
// (NaN propagating) and indices of the columns over the split rows.
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<1x4x5x6xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[3, 0, 2], {}]>},
                %y: tensor<7x5xf32> {sc.sharding = #sc.sharding<@m, [{"x"}[4, 0, 3], {}]>})
    -> (tensor<1x5x6xi64>, tensor<1x4x1x6xi64>, tensor<i64>, tensor<5xi64>, tensor<7xi64>, tensor<7xi64>, tensor<5xf32>, tensor<5xi64>) {
  %classes = sc.argmax %x {dim = 1 : i64} : (tensor<1x4x5x6xf32>) -> tensor<1x5x6xi64>
  %rows = sc.argmin %x {dim = 2 : i64, keepdim = true} : (tensor<1x4x5x6xf32>) -> tensor<1x4x1x6xi64>
  %flat = sc.argmax %x : (tensor<1x4x5x6xf32>) -> tensor<i64>
  %cols = sc.argmax %y {dim = -2 : i64} : (tensor<7x5xf32>) -> tensor<5xi64>
  %min = sc.argmin %y {dim = 1 : i64} : (tensor<7x5xf32>) -> tensor<7xi64>
  %moved = sc.sharding_constraint %min : tensor<7xi64> to #sc.sharding<@m, [{"x"}[3, 2, 2]]>
  %values, %indices = sc.max %y {dim = 0 : i64} : (tensor<7x5xf32>) -> (tensor<5xf32>, tensor<5xi64>)
  return %classes, %rows, %flat, %cols, %min, %moved, %values, %indices : tensor<1x5x6xi64>, tensor<1x4x1x6xi64>, tensor<i64>, tensor<5xi64>, tensor<7xi64>, tensor<7xi64>, tensor<5xf32>, tensor<5xi64>
}

//--- long.mlir
// Rows of 70001 split 40000/0/30001: argmax along them, argmin of all, and
// argmax of all of the transpose (the long dim's indices times a stride).
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<2x70001xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[40000, 0, 30001]]>})
    -> (tensor<2xi64>, tensor<i64>, tensor<i64>) {
  %i = sc.argmax %x {dim = 1 : i64} : (tensor<2x70001xf32>) -> tensor<2xi64>
  %j = sc.argmin %x : (tensor<2x70001xf32>) -> tensor<i64>
  %t = sc.transpose %x {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<2x70001xf32>) -> tensor<70001x2xf32>
  %k = sc.argmax %t : (tensor<70001x2xf32>) -> tensor<i64>
  return %i, %j, %k : tensor<2xi64>, tensor<i64>, tensor<i64>
}

//--- ref.py
# PyTorch's argmax/argmin written out: the first index whose value is the
# extreme, where NaN is more extreme than anything (the first NaN wins).
import math, random, sys
import npy
NAN, INF = math.nan, math.inf
random.seed(5)
# Small integers (exact in bf16) make ties common; then NaN, infinities and
# zeros of both signs.
X = [float(random.randint(-3, 3)) for _ in range(120)]
for i, v in [(7, NAN), (31, NAN), (50, INF), (51, -INF), (64, -0.0), (65, 0.0), (90, NAN)]:
    X[i] = v
Y = [float(random.randint(-2, 2)) for _ in range(35)]
for i, v in [(6, NAN), (12, -INF), (13, INF), (27, NAN)]:
    Y[i] = v
# Long rows: distinct maxima and minima late in a shard, a NaN in row 1.
N = 70001
L = [float((i * 7919) % 2003 - 1000) for i in range(2 * N)]
L[50007] = 2000.0
L[N + 65000] = NAN
L[N + 69999] = -5000.0
if sys.argv[1] == "input":
    npy.write(sys.argv[2] + "/x.npy", [1, 4, 5, 6], X)
    npy.write(sys.argv[2] + "/y.npy", [7, 5], Y)
    npy.write(sys.argv[2] + "/long.npy", [2, N], L)
    sys.exit(0)
last = len(sys.argv) > 3

def pick(values, largest):
    best = None
    for i, v in enumerate(values):
        if best is None:
            best = i
            continue
        b = values[best]
        if b != b:
            continue  # a NaN stays
        better = v != v or (v > b if largest else v < b)
        if better or (last and v == b):
            best = i
    return best

if sys.argv[1] == "long":
    transposed = [L[c * N + r] for r in range(N) for c in range(2)]
    want = [[pick(L[:N], True), pick(L[N:], True)], [pick(L, False)],
            [pick(transposed, True)]]
    for k, w in enumerate(want):
        got = list(npy.read("%s/l%d.npy" % (sys.argv[2], k))[1])
        if got != w:
            sys.exit("long result %d: got %r, expected %r" % (k, got, w))
    print("long rows: as PyTorch's")
    sys.exit(0)

def x(c, h, w):
    return X[(c * 5 + h) * 6 + w]

want = [
    [pick([x(c, h, w) for c in range(4)], True) for h in range(5) for w in range(6)],
    [pick([x(c, h, w) for h in range(5)], False) for c in range(4) for w in range(6)],
    [pick(X, True)],
    [pick([Y[r * 5 + c] for r in range(7)], True) for c in range(5)],
    [pick(Y[r * 5:r * 5 + 5], False) for r in range(7)],
    [pick(Y[r * 5:r * 5 + 5], False) for r in range(7)],
    [Y[pick([Y[r * 5 + c] for r in range(7)], True) * 5 + c] for c in range(5)],
    [pick([Y[r * 5 + c] for r in range(7)], True) for c in range(5)],
]
for k, w in enumerate(want):
    got = list(npy.read("%s/r%d.npy" % (sys.argv[2], k))[1])
    for i, (a, b) in enumerate(zip(w, got)):
        if a != b and not (a != a and b != b):  # NaN values match NaN
            sys.exit("result %d at %d: got %r, expected %r" % (k, i, b, a))
    if len(got) != len(w):
        sys.exit("result %d: %d values, expected %d" % (k, len(got), len(w)))
print("argmax, argmin: %d results as PyTorch's" % len(want))
