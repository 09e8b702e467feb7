// A bf16 conv block (conv with bias over an uneven 3-rank split of H, a
// group norm whose statistics span the ranks, SiLU, a residual add, a sum
// over the split dims) and an f16 tail, stored in 16 bits and computed in
// f32 by sc-compute-in-f32, against Python emulating PyTorch's eager bf16
// and f16: each op computed exactly (in double here) and rounded once to
// nearest even. Inputs are written as f32 and rounded by shard-run.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/ref.py input %t
// RUN: shardc %t/model.mlir -o %t/model.shardbin
// RUN: shardc %t/model.mlir --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: shardc %t/model.mlir --emit=partitioned | FileCheck %s --check-prefix=HALO
// RUN: shardc %t/model.mlir --target=cuda --emit=partitioned | FileCheck %s --check-prefix=CUDAHALO
// RUN: shardc %t/pointwise.mlir --emit=partitioned | FileCheck %s --check-prefix=POINTWISE
// RUN: shardc %t/pointwise.mlir -o %t/pointwise.shardbin
// RUN: shard-run %t/pointwise.shardbin --random-inputs --check --atol 0 --rtol 0 | FileCheck %s --check-prefix=RAN1
// RUN: shard-run %t/model.shardbin --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/b.npy --input arg3=%t/g.npy --input arg4=%t/be.npy --check --output result0=%t/r0.npy --output result1=%t/r1.npy --output result2=%t/r2.npy --output result3=%t/r3.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/ref.py check %t %t | FileCheck %s --check-prefix=VALUES
// RUN: shard-run %t/model.shardbin --random-inputs --check | FileCheck %s --check-prefix=RAN
// RUN: shardc %t/model.mlir -O3 -o %t/fused.shardbin
// RUN: mkdir -p %t/o3 && shard-run %t/fused.shardbin --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/b.npy --input arg3=%t/g.npy --input arg4=%t/be.npy --output result0=%t/o3/r0.npy --output result1=%t/o3/r1.npy --output result2=%t/o3/r2.npy --output result3=%t/o3/r3.npy
// RUN: %python %t/ref.py check %t %t/o3 | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: mkdir -p %t/cuda && env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --backend cuda --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/b.npy --input arg3=%t/g.npy --input arg4=%t/be.npy --output result0=%t/cuda/r0.npy --output result1=%t/cuda/r1.npy --output result2=%t/cuda/r2.npy --output result3=%t/cuda/r3.npy
// RUN: %python %t/ref.py check %t %t/cuda | FileCheck %s --check-prefix=VALUES
// The comparison can fail: without the rounding after each op (one rounding
// at the end, as a fused f32 computation would give) values differ.
// RUN: not %python %t/ref.py check %t %t round-once 2>&1 | FileCheck %s --check-prefix=WRONG

// The activations a rank holds between ops are bf16: 2 bytes an element
// (the input's shard, the conv's rounded result).
// PLAN: rank class 'class0': ranks [0]
// PLAN: %0 BF16(1,2,5,6) 120 B
// PLAN: BF16(1,3,5,6) 180 B
// The conv's halo moves in bf16, and the CPU conv reads the bf16 box
// itself (widening it as im2col packs it): no f32 copy of the input at all.
// HALO-LABEL: func.func @main_class0
// HALO-NOT: memref<1x2x5x6xf32>
// HALO: scl.kernel "Pad" mode "constant" ins(%arg0 : memref<1x2x5x6xbf16>) outs(%[[P:.*]] : memref<1x2x6x6xbf16>)
// HALO-NEXT: scl.halo_exchange ins(%arg0 : memref<1x2x5x6xbf16>) outs(%[[P]] : memref<1x2x6x6xbf16>)
// HALO-NOT: memref<1x2x6x6xf32>
// HALO: scl.kernel "Conv" ins(%[[P]], %{{.*}}, %{{.*}} : memref<1x2x6x6xbf16>, memref<3x2x3x3xf32>, memref<3xf32>)
// A conv that needs no halo reads its bf16 shard in place, not a cast of it.
// POINTWISE-LABEL: func.func @main_class0
// POINTWISE-NOT: scl.kernel "Cast" ins(%arg0
// POINTWISE: scl.kernel "Conv" ins(%arg0, %{{.*}} : memref<1x4x3x5xbf16>, memref<2x4x1x1xf32>)
// A nearest upsample only gathers: bf16 in and out.
// HALO: scl.kernel "Interpolate" mode "nearest" ins(%{{.*}} : memref<1x3x{{[0-9]+}}x6xbf16>) outs(%{{.*}} : memref<1x3x{{[0-9]+}}x12xbf16>)
// cuDNN takes x in the conv's type: on the cuda target the box is cast on
// arrival.
// CUDAHALO-LABEL: func.func @main_class0
// CUDAHALO-NOT: memref<1x2x5x6xf32>
// CUDAHALO: scl.halo_exchange ins(%arg0 : memref<1x2x5x6xbf16>) outs(%[[P:.*]] : memref<1x2x6x6xbf16>)
// CUDAHALO: %[[F:.*]] = memref.alloc() : memref<1x2x6x6xf32>
// CUDAHALO-NEXT: scl.kernel "Cast" ins(%[[P]] : memref<1x2x6x6xbf16>) outs(%[[F]] : memref<1x2x6x6xf32>)
// CUDAHALO: scl.kernel "Conv" ins(%[[F]],
// RAN1: check result0: max abs error 0, {{.*}}: ok
// RAN-COUNT-4: check result{{[0-9]+}}: {{.*}}: ok
// VALUES: conv, group_norm, silu, add, sum, f16 scale, nearest upsample: as PyTorch's eager bf16/f16
// WRONG: differ from PyTorch's eager rounding

//--- model.mlir
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<1x2x13x6xbf16> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[5, 4, 4], {}]>},
                %w: tensor<3x2x3x3xbf16>, %b: tensor<3xbf16>, %g: tensor<3xbf16>, %be: tensor<3xbf16>)
    -> (tensor<1x3x13x6xbf16>, tensor<1x3xbf16>, tensor<1x3x13x6xf16>, tensor<1x3x26x12xbf16>) {
  %y = sc.conv %x, %w, %b {padding = array<i64: 1, 1>} : (tensor<1x2x13x6xbf16>, tensor<3x2x3x3xbf16>, tensor<3xbf16>) -> tensor<1x3x13x6xbf16>
  %n = sc.group_norm %y, %g, %be {num_groups = 1} : (tensor<1x3x13x6xbf16>, tensor<3xbf16>, tensor<3xbf16>) -> tensor<1x3x13x6xbf16>
  %s = sc.silu %n : tensor<1x3x13x6xbf16>
  %z = sc.add %s, %y : (tensor<1x3x13x6xbf16>, tensor<1x3x13x6xbf16>) -> tensor<1x3x13x6xbf16>
  %m = sc.sum %z {dims = array<i64: 2, 3>} : (tensor<1x3x13x6xbf16>) -> tensor<1x3xbf16>
  %h = sc.cast %z : tensor<1x3x13x6xbf16> to tensor<1x3x13x6xf16>
  %tenth = sc.constant dense<0.1> : tensor<f16>
  %t = sc.mul %h, %tenth : (tensor<1x3x13x6xf16>, tensor<f16>) -> tensor<1x3x13x6xf16>
  %u = sc.interpolate %z {mode = "nearest", scale_factors = array<f64: 2.0, 2.0>} : (tensor<1x3x13x6xbf16>) -> tensor<1x3x26x12xbf16>
  return %z, %m, %t, %u : tensor<1x3x13x6xbf16>, tensor<1x3xbf16>, tensor<1x3x13x6xf16>, tensor<1x3x26x12xbf16>
}

//--- pointwise.mlir
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<1x4x6x5xbf16> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}, {}]>},
                %w: tensor<2x4x1x1xbf16>) -> tensor<1x2x6x5xbf16> {
  %y = sc.conv %x, %w : (tensor<1x4x6x5xbf16>, tensor<2x4x1x1xbf16>) -> tensor<1x2x6x5xbf16>
  return %y : tensor<1x2x6x5xbf16>
}

//--- ref.py
# `input DIR`: f32 inputs (not bf16 values: shard-run rounds them).
# `check DIR OUT [round-once]`: OUT/r<i>.npy against the emulation.
import math, struct, sys
import npy

def bf16(v):
    """Nearest bf16 (8 significant bits), ties to even (Python's round)."""
    if v == 0 or not math.isfinite(v):
        return v
    m, e = math.frexp(v)
    return math.ldexp(round(m * 256), e - 8)

def f16(v):
    """Nearest f16; struct's 'e' rounds to nearest even."""
    return struct.unpack("<e", struct.pack("<e", v))[0]

def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]

C, O, H, W = 2, 3, 13, 6
if sys.argv[1] == "input":
    d = sys.argv[2]
    vals = lambda n, a, b: [math.sin(a * i + b) * (1 + 0.37 * math.cos(1.3 * i)) for i in range(n)]
    npy.write(d + "/x.npy", [1, C, H, W], vals(C * H * W, 0.71, 0.2))
    npy.write(d + "/w.npy", [O, C, 3, 3], [0.3 * v for v in vals(O * C * 9, 1.37, 0.5)])
    npy.write(d + "/b.npy", [O], [0.05, -0.1, 0.2])
    npy.write(d + "/g.npy", [O], [1.1, 0.9, 1.3])
    npy.write(d + "/be.npy", [O], [0.1, -0.2, 0.05])
    sys.exit(0)

d, out = sys.argv[2], sys.argv[3]
once = len(sys.argv) > 4
rnd = (lambda v: v) if once else bf16
load = lambda name: [bf16(f32(v)) for v in npy.read("%s/%s.npy" % (d, name))[1]]
x, w, b, g, be = (load(n) for n in ("x", "w", "b", "g", "be"))

y = []
for o in range(O):
    for i in range(H):
        for j in range(W):
            acc = b[o]
            for c in range(C):
                for ki in range(3):
                    for kj in range(3):
                        ii, jj = i + ki - 1, j + kj - 1
                        if 0 <= ii < H and 0 <= jj < W:
                            acc += w[((o * C + c) * 3 + ki) * 3 + kj] * x[(c * H + ii) * W + jj]
            y.append(rnd(acc))
mean = sum(y) / len(y)
var = sum((v - mean) ** 2 for v in y) / len(y)
inv = 1 / math.sqrt(var + 1e-5)
n = [rnd((v - mean) * inv * g[k // (H * W)] + be[k // (H * W)]) for k, v in enumerate(y)]
s = [rnd(v / (1 + math.exp(-v))) for v in n]
z = [bf16(a + v) for a, v in zip(s, y)]
m = [bf16(sum(z[o * H * W:(o + 1) * H * W])) for o in range(O)]
t = [f16(f16(v) * f16(0.1)) for v in z]
u = [z[(o * H + i // 2) * W + j // 2] for o in range(O) for i in range(2 * H) for j in range(2 * W)]

exact = total = 0
for k, (name, want) in enumerate([("z", z), ("sum", m), ("f16 scale", t), ("nearest upsample", u)]):
    got = npy.read("%s/r%d.npy" % (out, k))[1]
    for i, (wv, gv) in enumerate(zip(want, got)):
        total += 1
        if wv == gv:
            exact += 1
        # An f32 sum's order can move a value across a rounding boundary:
        # at most one 16-bit step.
        elif abs(gv - wv) > 2 ** -7 * abs(wv) + 1e-6:
            sys.exit("%s at %d: got %r, expected %r" % (name, i, gv, wv))
if exact < 0.97 * total:
    sys.exit("%d of %d values differ from PyTorch's eager rounding" % (total - exact, total))
print("conv, group_norm, silu, add, sum, f16 scale, nearest upsample: as PyTorch's eager bf16/f16")
