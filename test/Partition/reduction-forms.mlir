// torch.logsumexp, torch.linalg.vector_norm, F.normalize, F.glu, F.rms_norm and
// F.adaptive_avg_pool2d / adaptive_max_pool2d through sc-decompose-forms
// (reductions, elementwise ops, pools, slices), on dims split unevenly over
// 3 ranks with an empty shard: logsumexp of a plain row, an all -inf row
// (-inf), a row with +inf (+inf) and one with NaN; the 2, inf, 0, 3 and -1
// norms; normalize in the 2- and 1-norm with a large eps; glu over dim 1;
// rms_norm over the split dim with the default eps and a weight, and over
// two dims without one; adaptive pools whose output size divides the input (one pool), does not
// (windows of 2 and 3), keeps it (identity) and is 1 (global). Outputs are
// compared with pure-Python definitions, unfused, at -O0 and -O3 and as
// host-built CUDA kernels, and the sharded runs with the unpartitioned model.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/reductions.py special %t/s.npy
// RUN: %python %t/reductions.py input %t/x.npy 2,6,9 0.37
// RUN: %python %t/reductions.py input %t/img.npy 1,3,10,7 0.23
// RUN: %python %t/reductions.py input %t/w.npy 9 0.61
// RUN: shardc %t/model.mlir -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --input arg0=%t/s.npy --input arg1=%t/x.npy --input arg2=%t/img.npy --input arg3=%t/w.npy --check --output result0=%t/r0.npy --output result1=%t/r1.npy --output result2=%t/r2.npy --output result3=%t/r3.npy --output result4=%t/r4.npy --output result5=%t/r5.npy --output result6=%t/r6.npy --output result7=%t/r7.npy --output result8=%t/r8.npy --output result9=%t/r9.npy --output result10=%t/r10.npy --output result11=%t/r11.npy --output result12=%t/r12.npy --output result13=%t/r13.npy --output result14=%t/r14.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/reductions.py check %t %t/s.npy %t/x.npy %t/img.npy %t/w.npy | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O0 -o %t/o0.shardbin
// RUN: mkdir -p %t/o0 && shard-run %t/o0.shardbin --input arg0=%t/s.npy --input arg1=%t/x.npy --input arg2=%t/img.npy --input arg3=%t/w.npy --output result0=%t/o0/r0.npy --output result1=%t/o0/r1.npy --output result2=%t/o0/r2.npy --output result3=%t/o0/r3.npy --output result4=%t/o0/r4.npy --output result5=%t/o0/r5.npy --output result6=%t/o0/r6.npy --output result7=%t/o0/r7.npy --output result8=%t/o0/r8.npy --output result9=%t/o0/r9.npy --output result10=%t/o0/r10.npy --output result11=%t/o0/r11.npy --output result12=%t/o0/r12.npy --output result13=%t/o0/r13.npy --output result14=%t/o0/r14.npy
// RUN: %python %t/reductions.py check %t/o0 %t/s.npy %t/x.npy %t/img.npy %t/w.npy | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O3 -o %t/o3.shardbin
// RUN: mkdir -p %t/o3 && shard-run %t/o3.shardbin --input arg0=%t/s.npy --input arg1=%t/x.npy --input arg2=%t/img.npy --input arg3=%t/w.npy --check --output result0=%t/o3/r0.npy --output result1=%t/o3/r1.npy --output result2=%t/o3/r2.npy --output result3=%t/o3/r3.npy --output result4=%t/o3/r4.npy --output result5=%t/o3/r5.npy --output result6=%t/o3/r6.npy --output result7=%t/o3/r7.npy --output result8=%t/o3/r8.npy --output result9=%t/o3/r9.npy --output result10=%t/o3/r10.npy --output result11=%t/o3/r11.npy --output result12=%t/o3/r12.npy --output result13=%t/o3/r13.npy --output result14=%t/o3/r14.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/reductions.py check %t/o3 %t/s.npy %t/x.npy %t/img.npy %t/w.npy | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: mkdir -p %t/cuda && env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --backend cuda --input arg0=%t/s.npy --input arg1=%t/x.npy --input arg2=%t/img.npy --input arg3=%t/w.npy --output result0=%t/cuda/r0.npy --output result1=%t/cuda/r1.npy --output result2=%t/cuda/r2.npy --output result3=%t/cuda/r3.npy --output result4=%t/cuda/r4.npy --output result5=%t/cuda/r5.npy --output result6=%t/cuda/r6.npy --output result7=%t/cuda/r7.npy --output result8=%t/cuda/r8.npy --output result9=%t/cuda/r9.npy --output result10=%t/cuda/r10.npy --output result11=%t/cuda/r11.npy --output result12=%t/cuda/r12.npy --output result13=%t/cuda/r13.npy --output result14=%t/cuda/r14.npy
// RUN: %python %t/reductions.py check %t/cuda %t/s.npy %t/x.npy %t/img.npy %t/w.npy | FileCheck %s --check-prefix=VALUES
// The comparison can fail: the input scaled by 1%.
// RUN: not %python %t/reductions.py check %t %t/s.npy %t/x.npy %t/img.npy %t/w.npy wrong 2>&1 | FileCheck %s --check-prefix=WRONG

// RAN-COUNT-15: check result{{[0-9]+}}: {{.*}}: ok
// VALUES: logsumexp specials {{[(]}}4,{{[)]}}: as PyTorch defines it
// VALUES-NEXT: logsumexp dims 0,-1 keepdim {{[(]}}1, 6, 1{{[)]}}: as PyTorch defines it
// VALUES-NEXT: vector_norm 2 {{[(]}}2, 6{{[)]}}: as PyTorch defines it
// VALUES-NEXT: vector_norm inf {{[(]}}2,{{[)]}}: as PyTorch defines it
// VALUES-NEXT: vector_norm 0 {{[(]}}{{[)]}}: as PyTorch defines it
// VALUES-NEXT: vector_norm 3 keepdim {{[(]}}2, 6, 1{{[)]}}: as PyTorch defines it
// VALUES-NEXT: vector_norm -1 {{[(]}}2, 9{{[)]}}: as PyTorch defines it
// VALUES-NEXT: normalize {{[(]}}2, 6, 9{{[)]}}: as PyTorch defines it
// VALUES-NEXT: normalize p=1 eps=2.5 {{[(]}}2, 6, 9{{[)]}}: as PyTorch defines it
// VALUES-NEXT: glu {{[(]}}2, 3, 9{{[)]}}: as PyTorch defines it
// VALUES-NEXT: adaptive_avg_pool {{[(]}}5, 3{{[)]}} {{[(]}}1, 3, 5, 3{{[)]}}: as PyTorch defines it
// VALUES-NEXT: adaptive_max_pool {{[(]}}4, 7{{[)]}} {{[(]}}1, 3, 4, 7{{[)]}}: as PyTorch defines it
// VALUES-NEXT: adaptive_avg_pool {{[(]}}1, 1{{[)]}} {{[(]}}1, 3, 1, 1{{[)]}}: as PyTorch defines it
// VALUES-NEXT: rms_norm weight {{[(]}}2, 6, 9{{[)]}}: as PyTorch defines it
// VALUES-NEXT: rms_norm (6, 9) eps=0.5 {{[(]}}2, 6, 9{{[)]}}: as PyTorch defines it
// WRONG: logsumexp dims 0,-1 keepdim at

//--- model.mlir
sc.mesh @m ["x"=3]
func.func @main(%s: tensor<4x5xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[2, 0, 3]]>},
                %x: tensor<2x6x9xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[4, 0, 5]]>},
                %img: tensor<1x3x10x7xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[4, 0, 6], {}]>},
                %w: tensor<9xf32>)
    -> (tensor<4xf32>, tensor<1x6x1xf32>, tensor<2x6xf32>, tensor<2xf32>, tensor<f32>, tensor<2x6x1xf32>, tensor<2x9xf32>,
        tensor<2x6x9xf32>, tensor<2x6x9xf32>, tensor<2x3x9xf32>, tensor<1x3x5x3xf32>, tensor<1x3x4x7xf32>, tensor<1x3x1x1xf32>,
        tensor<2x6x9xf32>, tensor<2x6x9xf32>) {
  %0 = sc.logsumexp %s {dims = array<i64: 1>} : (tensor<4x5xf32>) -> tensor<4xf32>
  %1 = sc.logsumexp %x {dims = array<i64: 0, -1>, keepdim = true} : (tensor<2x6x9xf32>) -> tensor<1x6x1xf32>
  %2 = sc.vector_norm %x {dims = array<i64: 2>} : (tensor<2x6x9xf32>) -> tensor<2x6xf32>
  %3 = sc.vector_norm %x {ord = 0x7FF0000000000000 : f64, dims = array<i64: 1, 2>} : (tensor<2x6x9xf32>) -> tensor<2xf32>
  %4 = sc.vector_norm %x {ord = 0.0} : (tensor<2x6x9xf32>) -> tensor<f32>
  %5 = sc.vector_norm %x {ord = 3.0, dims = array<i64: 2>, keepdim = true} : (tensor<2x6x9xf32>) -> tensor<2x6x1xf32>
  %6 = sc.vector_norm %x {ord = -1.0, dims = array<i64: 1>} : (tensor<2x6x9xf32>) -> tensor<2x9xf32>
  %7 = sc.normalize %x {dim = -1} : tensor<2x6x9xf32>
  %8 = sc.normalize %x {p = 1.0, eps = 2.5} : tensor<2x6x9xf32>
  %9 = sc.glu %x {dim = 1} : (tensor<2x6x9xf32>) -> tensor<2x3x9xf32>
  %10 = sc.adaptive_avg_pool %img {output_size = array<i64: 5, 3>} : (tensor<1x3x10x7xf32>) -> tensor<1x3x5x3xf32>
  %11 = sc.adaptive_max_pool %img {output_size = array<i64: 4, 7>} : (tensor<1x3x10x7xf32>) -> tensor<1x3x4x7xf32>
  %12 = sc.adaptive_avg_pool %img {output_size = array<i64: 1, 1>} : (tensor<1x3x10x7xf32>) -> tensor<1x3x1x1xf32>
  %13 = sc.rms_norm %x, %w {normalized_shape = array<i64: 9>} : (tensor<2x6x9xf32>, tensor<9xf32>) -> tensor<2x6x9xf32>
  %14 = sc.rms_norm %x {normalized_shape = array<i64: 6, 9>, eps = 0.5} : (tensor<2x6x9xf32>) -> tensor<2x6x9xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14 : tensor<4xf32>, tensor<1x6x1xf32>, tensor<2x6xf32>, tensor<2xf32>, tensor<f32>, tensor<2x6x1xf32>, tensor<2x9xf32>, tensor<2x6x9xf32>, tensor<2x6x9xf32>, tensor<2x3x9xf32>, tensor<1x3x5x3xf32>, tensor<1x3x4x7xf32>, tensor<1x3x1x1xf32>, tensor<2x6x9xf32>, tensor<2x6x9xf32>
}

//--- reductions.py
# Pure-Python references, from PyTorch's definitions, for torch.logsumexp,
# torch.linalg.vector_norm, F.normalize, F.glu and F.adaptive_avg/max_pool.
# `input F SHAPE STEP`: float32 (i * STEP mod 2) - 1. `special F`: a (4, 5)
# logsumexp input: a plain row, all -inf, one +inf, one NaN.
# `check DIR S X IMG W [wrong]`: DIR/r0.npy .. r14.npy against model.mlir.
import itertools, math, sys
import npy

INF = float("inf")


class T:
    def __init__(self, shape, data):
        self.shape, self.data = list(shape), list(data)

    def at(self, idx):
        i = 0
        for d, n in zip(idx, self.shape):
            i = i * n + d
        return self.data[i]


def reduce(t, dims, keepdim, fn):
    """fn(list of the reduced elements) for every kept index."""
    out_shape = [1 if d in dims else n for d, n in enumerate(t.shape)]
    out = []
    for idx in itertools.product(*[range(n) for n in out_shape]):
        ranges = [range(n) if d in dims else [idx[d]]
                  for d, n in enumerate(t.shape)]
        out.append(fn([t.at(j) for j in itertools.product(*ranges)]))
    if not keepdim:
        out_shape = [n for d, n in enumerate(t.shape) if d not in dims]
    return T(out_shape, out)


def logsumexp(v):
    if any(math.isnan(a) for a in v):
        return math.nan
    if INF in v:
        return INF
    finite = [a for a in v if a != -INF]
    return math.log(math.fsum(math.exp(a) for a in finite)) if finite else -INF


def norm(ord):
    def fn(v):
        if ord == INF:
            return max(abs(a) for a in v)
        if ord == -INF:
            return min(abs(a) for a in v)
        if ord == 0:
            return float(sum(1 for a in v if a != 0))
        total = math.fsum(abs(a) ** ord if a != 0 or ord > 0 else INF
                          for a in v)
        return total ** (1.0 / ord) if total != INF else (
            0.0 if ord < 0 else INF)
    return fn


def normalize(t, p, dim, eps):
    n = reduce(t, [dim], True, norm(p))
    out = []
    for idx in itertools.product(*[range(s) for s in t.shape]):
        j = list(idx)
        j[dim] = 0
        out.append(t.at(idx) / max(n.at(j), eps))
    return T(t.shape, out)


def glu(t, dim):
    half = t.shape[dim] // 2
    shape = list(t.shape)
    shape[dim] = half
    out = []
    for idx in itertools.product(*[range(s) for s in shape]):
        j = list(idx)
        j[dim] += half
        out.append(t.at(idx) / (1.0 + math.exp(-t.at(j))))
    return T(shape, out)


def adaptive(t, size, fn):
    shape = t.shape[:2] + list(size)
    out = []
    for idx in itertools.product(*[range(s) for s in shape]):
        ranges = [[idx[0]], [idx[1]]]
        for i, o in enumerate(size):
            n = t.shape[2 + i]
            k = idx[2 + i]
            ranges.append(range(k * n // o, -(-(k + 1) * n // o)))
        out.append(fn([t.at(j) for j in itertools.product(*ranges)]))
    return T(shape, out)


def same(g, w):
    if math.isnan(w):
        return math.isnan(g)
    if math.isinf(w):
        return g == w
    return abs(g - w) <= 1e-5 + 1e-5 * abs(w)


def compare(name, path, want):
    shape, got = npy.read(path)
    if shape != want.shape:
        sys.exit("%s: shape %s, expected %s" % (name, shape, want.shape))
    for i, (g, w) in enumerate(zip(got, want.data)):
        if not same(g, w):
            sys.exit("%s at %d: got %r, expected %r" % (name, i, g, w))
    print("%s %s: as PyTorch defines it" % (name, tuple(shape)))


mode = sys.argv[1]
if mode == "input":
    shape = [int(d) for d in sys.argv[3].split(",")]
    step = float(sys.argv[4])
    npy.write(sys.argv[2], shape, [math.fmod(i * step, 2.0) - 1.0
                                   for i in range(npy.count(shape))])
    sys.exit(0)
if mode == "special":
    rows = [[0.5, -0.25, 1.0, 0.75, -1.0], [-INF] * 5,
            [0.5, INF, -INF, 1.0, 2.0], [0.5, 1.0, math.nan, -INF, 3.0]]
    npy.write(sys.argv[2], [4, 5], [v for r in rows for v in r])
    sys.exit(0)
out = sys.argv[2]
s, x, img, w = [T(*npy.read(p)) for p in sys.argv[3:7]]
if sys.argv[-1] == "wrong":
    x.data = [v * 1.01 for v in x.data]
compare("logsumexp specials", out + "/r0.npy", reduce(s, [1], False, logsumexp))
compare("logsumexp dims 0,-1 keepdim", out + "/r1.npy",
        reduce(x, [0, 2], True, logsumexp))
compare("vector_norm 2", out + "/r2.npy", reduce(x, [2], False, norm(2)))
compare("vector_norm inf", out + "/r3.npy", reduce(x, [1, 2], False, norm(INF)))
compare("vector_norm 0", out + "/r4.npy", reduce(x, [0, 1, 2], False, norm(0)))
compare("vector_norm 3 keepdim", out + "/r5.npy", reduce(x, [2], True, norm(3)))
compare("vector_norm -1", out + "/r6.npy", reduce(x, [1], False, norm(-1)))
compare("normalize", out + "/r7.npy", normalize(x, 2, 2, 1e-12))
compare("normalize p=1 eps=2.5", out + "/r8.npy", normalize(x, 1, 1, 2.5))
compare("glu", out + "/r9.npy", glu(x, 1))
mean = lambda v: math.fsum(v) / len(v)
compare("adaptive_avg_pool (5, 3)", out + "/r10.npy", adaptive(img, [5, 3], mean))
compare("adaptive_max_pool (4, 7)", out + "/r11.npy", adaptive(img, [4, 7], max))
compare("adaptive_avg_pool (1, 1)", out + "/r12.npy", adaptive(img, [1, 1], mean))


def rms_norm(t, dims, weight, eps):
    ms = reduce(t, dims, True, lambda v: math.fsum(a * a for a in v) / len(v))
    out = []
    for idx in itertools.product(*[range(n) for n in t.shape]):
        j = [0 if d in dims else i for d, i in enumerate(idx)]
        y = t.at(idx) / math.sqrt(ms.at(j) + eps)
        if weight:
            y *= weight.at(idx[-len(weight.shape):])
        out.append(y)
    return T(t.shape, out)


# torch.finfo(torch.float32).eps
compare("rms_norm weight", out + "/r13.npy", rms_norm(x, [2], w, 2.0 ** -23))
compare("rms_norm (6, 9) eps=0.5", out + "/r14.npy", rms_norm(x, [1, 2], None, 0.5))
