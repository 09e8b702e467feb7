// torch.cumsum, cumprod, cummax / cummin (values), logcumsumexp on a dim
// split unevenly over 4 ranks with an empty shard (each rank scans its shard
// from the carry of the shards before it, after one all-gather of their
// packed totals), over a dim that is not split, over NaN, both infinities,
// cancellation across a shard boundary and a product past float's range
// (split with an empty first shard), and on a scalar; then over a dim split
// across both axes of a 2x2 mesh in the order y, x (the carry follows shard
// order, not rank order), and over one axis while rows split over the other
// (groups smaller than the world). Outputs are compared with pure-Python
// definitions (each element from its whole prefix), unfused, at -O0 and -O3
// and on the CUDA backend built for the host, and the sharded runs with the
// unpartitioned model. torch.prod, which sc-decompose-forms makes a cumprod
// per reduced dim, runs over the same splits (multiplied in double).
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/scans.py input %t/x.npy 2,11,5 0.37
// RUN: %python %t/scans.py special %t/s.npy
// RUN: %python %t/scans.py input %t/y.npy 3,10 0.29
// RUN: %python %t/scans.py input %t/z.npy 4,9 0.43
// RUN: shardc %t/model.mlir -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --input arg0=%t/x.npy --input arg1=%t/s.npy --check --output result0=%t/r0.npy --output result1=%t/r1.npy --output result2=%t/r2.npy --output result3=%t/r3.npy --output result4=%t/r4.npy --output result5=%t/r5.npy --output result6=%t/r6.npy --output result7=%t/r7.npy --output result8=%t/r8.npy --output result9=%t/r9.npy --output result10=%t/r10.npy --output result11=%t/r11.npy --output result12=%t/r12.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/scans.py check %t %t/x.npy %t/s.npy | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O0 -o %t/o0.shardbin
// RUN: mkdir -p %t/o0 && shard-run %t/o0.shardbin --input arg0=%t/x.npy --input arg1=%t/s.npy --output result0=%t/o0/r0.npy --output result1=%t/o0/r1.npy --output result2=%t/o0/r2.npy --output result3=%t/o0/r3.npy --output result4=%t/o0/r4.npy --output result5=%t/o0/r5.npy --output result6=%t/o0/r6.npy --output result7=%t/o0/r7.npy --output result8=%t/o0/r8.npy --output result9=%t/o0/r9.npy --output result10=%t/o0/r10.npy --output result11=%t/o0/r11.npy --output result12=%t/o0/r12.npy
// RUN: %python %t/scans.py check %t/o0 %t/x.npy %t/s.npy | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O3 -o %t/o3.shardbin
// RUN: mkdir -p %t/o3 && shard-run %t/o3.shardbin --input arg0=%t/x.npy --input arg1=%t/s.npy --check --output result0=%t/o3/r0.npy --output result1=%t/o3/r1.npy --output result2=%t/o3/r2.npy --output result3=%t/o3/r3.npy --output result4=%t/o3/r4.npy --output result5=%t/o3/r5.npy --output result6=%t/o3/r6.npy --output result7=%t/o3/r7.npy --output result8=%t/o3/r8.npy --output result9=%t/o3/r9.npy --output result10=%t/o3/r10.npy --output result11=%t/o3/r11.npy --output result12=%t/o3/r12.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/scans.py check %t/o3 %t/x.npy %t/s.npy | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: mkdir -p %t/cuda && env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --backend cuda --input arg0=%t/x.npy --input arg1=%t/s.npy --output result0=%t/cuda/r0.npy --output result1=%t/cuda/r1.npy --output result2=%t/cuda/r2.npy --output result3=%t/cuda/r3.npy --output result4=%t/cuda/r4.npy --output result5=%t/cuda/r5.npy --output result6=%t/cuda/r6.npy --output result7=%t/cuda/r7.npy --output result8=%t/cuda/r8.npy --output result9=%t/cuda/r9.npy --output result10=%t/cuda/r10.npy --output result11=%t/cuda/r11.npy --output result12=%t/cuda/r12.npy
// RUN: %python %t/scans.py check %t/cuda %t/x.npy %t/s.npy | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/mesh2d.mlir -o %t/mesh2d.shardbin
// RUN: mkdir -p %t/m2 && shard-run %t/mesh2d.shardbin --input arg0=%t/y.npy --input arg1=%t/z.npy --check --output result0=%t/m2/r0.npy --output result1=%t/m2/r1.npy --output result2=%t/m2/r2.npy | FileCheck %s --check-prefix=RAN2
// RUN: %python %t/scans.py check2d %t/m2 %t/y.npy %t/z.npy | FileCheck %s --check-prefix=VALUES2
// RUN: shardc %t/mesh2d.mlir --emit=plan | FileCheck %s --check-prefix=PLAN
// An even split: every member runs the same program (one rank class).
// RUN: shardc %t/even.mlir --emit=plan | FileCheck %s --check-prefix=EVEN
// RUN: shardc %t/even.mlir --emit=partitioned | FileCheck %s --check-prefix=EVENIR
// RUN: shardc %t/even.mlir -o %t/even.shardbin
// RUN: %python %t/scans.py input %t/e.npy 4,8 0.31
// RUN: shard-run %t/even.shardbin --input arg0=%t/e.npy --check | FileCheck %s --check-prefix=RANEVEN
// The comparison can fail: the input scaled by 1%.
// RUN: not %python %t/scans.py check %t %t/x.npy %t/s.npy wrong 2>&1 | FileCheck %s --check-prefix=WRONG

// RAN-COUNT-13: check result{{[0-9]+}}: {{.*}}: ok
// VALUES: cumsum dim 1 (2, 11, 5): as PyTorch defines it
// VALUES-NEXT: cumprod dim 1 (2, 11, 5): as PyTorch defines it
// VALUES-NEXT: cummax dim 1 (2, 11, 5): as PyTorch defines it
// VALUES-NEXT: cummin dim -2 (2, 11, 5): as PyTorch defines it
// VALUES-NEXT: logcumsumexp dim 1 (2, 11, 5): as PyTorch defines it
// VALUES-NEXT: cumsum dim 2 (2, 11, 5): as PyTorch defines it
// VALUES-NEXT: specials: cumsum, cumprod, cummax, cummin, logcumsumexp (35, 6): as PyTorch defines it
// VALUES-NEXT: cumsum of a scalar (): as PyTorch defines it
// VALUES-NEXT: sqrt(cumsum(x * x)) dim 1 (2, 11, 5): as PyTorch defines it
// VALUES-NEXT: prod dim 1 (2, 5): in double
// VALUES-NEXT: prod dims 0,-1 keepdim (1, 11, 1): in double
// VALUES-NEXT: prod of the specials' rows (7,): in double
// VALUES-NEXT: prod over both dims of 1e20, 1e-30; 1e20, 1e-10 (): in double
// RAN2-COUNT-3: check result{{[0-9]+}}: {{.*}}: ok
// VALUES2: cumsum over y, x (3, 10): as PyTorch defines it
// VALUES2-NEXT: logcumsumexp over y, x (3, 10): as PyTorch defines it
// VALUES2-NEXT: cumprod over y, rows over x (4, 9): as PyTorch defines it
// A total is a double packed into 16 bytes. Over y, x each rank sends its 3
// lines' totals to the 3 other members, once per op (288 bytes); over y
// alone, its rows' (1 row where x = 0, 3 where x = 1) to its one peer.
// Nothing else moves.
// PLAN-COUNT-2: halo exchanges: 0, collectives: 3, bytes sent: 304, received: 304
// PLAN-COUNT-2: halo exchanges: 0, collectives: 3, bytes sent: 336, received: 336
// WRONG: cumsum dim 1 at
// EVEN: rank class 'class0': ranks [0..3]
// EVEN-NOT: rank class 'class1'
// EVENIR: scl.kernel "ScanTotals" mode "prod" over [0]
// EVENIR: scl.kernel "Scan" mode "prod" over [0] ins({{.*}}, {{.*}} : memref<4x2xf32>, memref<4x4x4xf32>)
// RANEVEN: check result0: {{.*}}: ok

//--- model.mlir
sc.mesh @m ["x"=4]
func.func @main(%x: tensor<2x11x5xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[3, 0, 4, 4], {}]>},
                %s: tensor<7x6xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[0, 2, 1, 3]]>})
    -> (tensor<2x11x5xf32>, tensor<2x11x5xf32>, tensor<2x11x5xf32>, tensor<2x11x5xf32>, tensor<2x11x5xf32>,
        tensor<2x11x5xf32>, tensor<35x6xf32>, tensor<f32>, tensor<2x11x5xf32>,
        tensor<2x5xf32>, tensor<1x11x1xf32>, tensor<7xf32>, tensor<f32>) {
  %r0 = sc.cumsum %x {dim = 1 : i64} : (tensor<2x11x5xf32>) -> tensor<2x11x5xf32>
  %r1 = sc.cumprod %x {dim = 1 : i64} : (tensor<2x11x5xf32>) -> tensor<2x11x5xf32>
  %r2 = sc.cummax %x {dim = 1 : i64} : (tensor<2x11x5xf32>) -> tensor<2x11x5xf32>
  %r3 = sc.cummin %x {dim = -2 : i64} : (tensor<2x11x5xf32>) -> tensor<2x11x5xf32>
  %r4 = sc.logcumsumexp %x {dim = 1 : i64} : (tensor<2x11x5xf32>) -> tensor<2x11x5xf32>
  %r5 = sc.cumsum %x {dim = -1 : i64} : (tensor<2x11x5xf32>) -> tensor<2x11x5xf32>
  %s0 = sc.cumsum %s {dim = 1 : i64} : (tensor<7x6xf32>) -> tensor<7x6xf32>
  %s1 = sc.cumprod %s {dim = 1 : i64} : (tensor<7x6xf32>) -> tensor<7x6xf32>
  %s2 = sc.cummax %s {dim = 1 : i64} : (tensor<7x6xf32>) -> tensor<7x6xf32>
  %s3 = sc.cummin %s {dim = 1 : i64} : (tensor<7x6xf32>) -> tensor<7x6xf32>
  %s4 = sc.logcumsumexp %s {dim = 1 : i64} : (tensor<7x6xf32>) -> tensor<7x6xf32>
  %r6 = sc.concat %s0, %s1, %s2, %s3, %s4 {dim = 0 : i64} : (tensor<7x6xf32>, tensor<7x6xf32>, tensor<7x6xf32>, tensor<7x6xf32>, tensor<7x6xf32>) -> tensor<35x6xf32>
  %m = sc.amax %x : (tensor<2x11x5xf32>) -> tensor<f32>
  %r7 = sc.cumsum %m {dim = -1 : i64} : (tensor<f32>) -> tensor<f32>
  %sq = sc.mul %x, %x : (tensor<2x11x5xf32>, tensor<2x11x5xf32>) -> tensor<2x11x5xf32>
  %cs = sc.cumsum %sq {dim = 1 : i64} : (tensor<2x11x5xf32>) -> tensor<2x11x5xf32>
  %r8 = sc.sqrt %cs : tensor<2x11x5xf32>
  %r9 = sc.prod %x {dims = array<i64: 1>} : (tensor<2x11x5xf32>) -> tensor<2x5xf32>
  %r10 = sc.prod %x {dims = array<i64: 0, -1>, keepdim = true} : (tensor<2x11x5xf32>) -> tensor<1x11x1xf32>
  %r11 = sc.prod %s {dims = array<i64: 1>} : (tensor<7x6xf32>) -> tensor<7xf32>
  %ov = sc.slice %s {start = array<i64: 5, 0>, end = array<i64: 6, 4>} : (tensor<7x6xf32>) -> tensor<1x4xf32>
  %sq2 = sc.reshape %ov : (tensor<1x4xf32>) -> tensor<2x2xf32>
  %tr = sc.transpose %sq2 {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %r12 = sc.prod %tr : (tensor<2x2xf32>) -> tensor<f32>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12 : tensor<2x11x5xf32>, tensor<2x11x5xf32>, tensor<2x11x5xf32>,
      tensor<2x11x5xf32>, tensor<2x11x5xf32>, tensor<2x11x5xf32>, tensor<35x6xf32>, tensor<f32>, tensor<2x11x5xf32>,
      tensor<2x5xf32>, tensor<1x11x1xf32>, tensor<7xf32>, tensor<f32>
}

//--- mesh2d.mlir
sc.mesh @m ["x"=2, "y"=2]
func.func @main(%y: tensor<3x10xf32> {sc.sharding = #sc.sharding<@m, [{}, {"y", "x"}[3, 2, 4, 1]]>},
                %z: tensor<4x9xf32> {sc.sharding = #sc.sharding<@m, [{"x"}[1, 3], {"y"}[0, 9]]>})
    -> (tensor<3x10xf32> {sc.sharding = #sc.sharding<@m, [{}, {"y", "x"}[3, 2, 4, 1]]>},
        tensor<3x10xf32> {sc.sharding = #sc.sharding<@m, [{}, {"y", "x"}[3, 2, 4, 1]]>},
        tensor<4x9xf32> {sc.sharding = #sc.sharding<@m, [{"x"}[1, 3], {"y"}[0, 9]]>}) {
  %a = sc.cumsum %y {dim = 1 : i64} : (tensor<3x10xf32>) -> tensor<3x10xf32>
  %b = sc.logcumsumexp %y {dim = -1 : i64} : (tensor<3x10xf32>) -> tensor<3x10xf32>
  %c = sc.cumprod %z {dim = 1 : i64} : (tensor<4x9xf32>) -> tensor<4x9xf32>
  return %a, %b, %c : tensor<3x10xf32>, tensor<3x10xf32>, tensor<4x9xf32>
}

//--- even.mlir
sc.mesh @m ["x"=4]
func.func @main(%e: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}]>})
    -> (tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}]>}) {
  %c = sc.cumprod %e {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

//--- scans.py
# Pure-Python definitions of torch's cumulative ops: element i along the dim
# is computed from the whole prefix up to i (never from element i - 1's
# result), in double.
# `input F SHAPE STEP`: float32 (i * STEP mod 2) - 1. `special F`: a (7, 6)
# input with NaN, both infinities, zeros, cancellation, float overflow and
# a shard total that needs every bit of a double.
# `check DIR X S [wrong]`: DIR/r0.npy .. r12.npy against model.mlir.
# `check2d DIR Y Z`: DIR/r0.npy .. r2.npy against mesh2d.mlir.
import itertools, math, struct, sys
import npy

INF = float("inf")
NAN = float("nan")


class T:
    def __init__(self, shape, data):
        self.shape, self.data = list(shape), list(data)

    def index(self, idx):
        i = 0
        for d, n in zip(idx, self.shape):
            i = i * n + d
        return i


def fold(kind, v):
    if kind == "sum":
        s = 0.0
        for a in v:
            s += a
        return s
    if kind == "prod":
        p = 1.0
        for a in v:
            p *= a
        return p
    if any(math.isnan(a) for a in v):
        return NAN
    if kind == "max":
        return max(v)
    if kind == "min":
        return min(v)
    hi = max(v)  # logsumexp
    if math.isinf(hi):
        return hi
    return hi + math.log(math.fsum(math.exp(a - hi) for a in v))


def cumulative(t, dim, kind):
    dim %= len(t.shape)
    out = [0.0] * len(t.data)
    for idx in itertools.product(*[range(n) for n in t.shape]):
        prefix = [t.data[t.index(idx[:dim] + (j,) + idx[dim + 1:])]
                  for j in range(idx[dim] + 1)]
        out[t.index(idx)] = fold(kind, prefix)
    return T(t.shape, out)


def to_f32(w):
    """w as the float32 an output stores: past float's range, an infinity
    (as PyTorch's double running value becomes when stored)."""
    if math.isnan(w) or math.isinf(w):
        return w
    try:
        return struct.unpack("f", struct.pack("f", w))[0]
    except OverflowError:
        return math.copysign(INF, w)


def same(g, w):
    w = to_f32(w)
    if math.isnan(w):
        return math.isnan(g)
    if math.isinf(w):
        return g == w
    return abs(g - w) <= 1e-5 + 1e-5 * abs(w)


def compare(name, path, want, how="as PyTorch defines it"):
    shape, got = npy.read(path)
    if shape != want.shape:
        sys.exit("%s: shape %s, expected %s" % (name, shape, want.shape))
    for i, (g, w) in enumerate(zip(got, want.data)):
        if not same(g, w):
            sys.exit("%s at %d: got %r, expected %r" % (name, i, g, w))
    print("%s %s: %s" % (name, tuple(shape), how))


mode = sys.argv[1]
if mode == "input":
    shape = [int(d) for d in sys.argv[3].split(",")]
    step = float(sys.argv[4])
    npy.write(sys.argv[2], shape, [math.fmod(i * step, 2.0) - 1.0
                                   for i in range(npy.count(shape))])
    sys.exit(0)
if mode == "special":
    rows = [[0.5, -INF, 2.0, INF, 1.0, -3.0],
            [-INF, -INF, -INF, 1.0, -INF, 2.0],
            [1.0, NAN, 2.0, -1.0, 0.5, 4.0],
            [INF, 0.0, -INF, 2.0, 0.0, 1.0],
            # Cancellation across a shard boundary (1e8 + 1 - 1e8), and a
            # product that leaves float's range and comes back.
            [1e8, 1.0, -1e8, 2.0, 0.5, -1.0],
            [1e20, 1e20, 1e-30, 1e-10, 2.0, 1.0],
            # A shard total that needs all 53 bits of a double (2^52 + 7).
            [2.0 ** 52, 7.0, 1.0, -2.0 ** 52, 0.5, 0.0]]
    npy.write(sys.argv[2], [7, 6], [v for r in rows for v in r])
    sys.exit(0)
out = sys.argv[2]
if mode == "check2d":
    y = T(*npy.read(sys.argv[3]))
    compare("cumsum over y, x", out + "/r0.npy", cumulative(y, 1, "sum"))
    compare("logcumsumexp over y, x", out + "/r1.npy",
            cumulative(y, 1, "logsumexp"))
    z = T(*npy.read(sys.argv[4]))
    compare("cumprod over y, rows over x", out + "/r2.npy",
            cumulative(z, 1, "prod"))
    sys.exit(0)
x, s = [T(*npy.read(p)) for p in sys.argv[3:5]]
if sys.argv[-1] == "wrong":
    x.data = [v * 1.01 for v in x.data]
compare("cumsum dim 1", out + "/r0.npy", cumulative(x, 1, "sum"))
compare("cumprod dim 1", out + "/r1.npy", cumulative(x, 1, "prod"))
compare("cummax dim 1", out + "/r2.npy", cumulative(x, 1, "max"))
compare("cummin dim -2", out + "/r3.npy", cumulative(x, -2, "min"))
compare("logcumsumexp dim 1", out + "/r4.npy", cumulative(x, 1, "logsumexp"))
compare("cumsum dim 2", out + "/r5.npy", cumulative(x, 2, "sum"))
kinds = ["sum", "prod", "max", "min", "logsumexp"]
compare("specials: cumsum, cumprod, cummax, cummin, logcumsumexp",
        out + "/r6.npy",
        T([35, 6], [v for k in kinds for v in cumulative(s, 1, k).data]))
compare("cumsum of a scalar", out + "/r7.npy", T([], [max(x.data)]))
compare("sqrt(cumsum(x * x)) dim 1", out + "/r8.npy",
        T(x.shape, [math.sqrt(v) for v in
                    cumulative(T(x.shape, [a * a for a in x.data]), 1,
                               "sum").data]))


def product(t, dims, keep):
    """torch.prod over dims, multiplied in double (torch multiplies floats:
    it would give inf for the specials' overflow row, 2.0 here)."""
    out = {}
    for idx in itertools.product(*[range(n) for n in t.shape]):
        key = tuple(0 if d in dims else i for d, i in enumerate(idx))
        out[key] = out.get(key, 1.0) * t.data[t.index(idx)]
    shape = [1 if d in dims else n for d, n in enumerate(t.shape)]
    data = [out[k] for k in sorted(out)]
    if not keep:
        shape = [n for d, n in enumerate(shape) if d not in dims]
    return T(shape, data)


compare("prod dim 1", out + "/r9.npy", product(x, [1], False), "in double")
compare("prod dims 0,-1 keepdim", out + "/r10.npy", product(x, [0, 2], True),
        "in double")
compare("prod of the specials' rows", out + "/r11.npy", product(s, [1], False),
        "in double")
# Over both dims at once: a dim at a time would overflow float after the
# first (1e20 * 1e20).
a, b, c, d = s.data[30:34]
compare("prod over both dims of 1e20, 1e-30; 1e20, 1e-10", out + "/r12.npy",
        product(T([2, 2], [a, c, b, d]), [0, 1], False), "in double")
