// torch.log1p and torch.expm1, and the activations PyTorch computes with
// them (F.elu, F.selu, F.celu with expm1; F.softplus, F.mish and
// F.logsigmoid with log1p), on arguments where log(1 + x) and exp(x) - 1
// round away what x adds: 1 + 3e-8 is 1 in float, so logsigmoid(20) would
// be 0 instead of -2.06e-9 and elu(-1e-5) off by 1e-4 of its value. Split
// over 2 ranks, unfused, fused on the CPU (-O3) and as generated CUDA
// kernels built for the host; compared with Python's math.log1p and
// math.expm1 on PyTorch's definitions, to 1e-6 of each value.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/tiny.py input %t/x.npy
// RUN: shardc %t/model.mlir -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --input arg0=%t/x.npy --check --output result0=%t/log1p.npy --output result1=%t/expm1.npy --output result2=%t/elu.npy --output result3=%t/selu.npy --output result4=%t/celu.npy --output result5=%t/softplus.npy --output result6=%t/mish.npy --output result7=%t/logsigmoid.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/tiny.py check %t/x.npy %t | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O3 --emit=partitioned | FileCheck %s --check-prefix=FUSED
// RUN: shardc %t/model.mlir -O3 -o %t/fused.shardbin
// RUN: mkdir -p %t/o3 && shard-run %t/fused.shardbin --input arg0=%t/x.npy --output result0=%t/o3/log1p.npy --output result1=%t/o3/expm1.npy --output result2=%t/o3/elu.npy --output result3=%t/o3/selu.npy --output result4=%t/o3/celu.npy --output result5=%t/o3/softplus.npy --output result6=%t/o3/mish.npy --output result7=%t/o3/logsigmoid.npy
// RUN: %python %t/tiny.py check %t/x.npy %t/o3 | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: FileCheck %s --check-prefix=KERNELS < %t/cuda.cu
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: mkdir -p %t/cuda && env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --backend cuda --input arg0=%t/x.npy --output result0=%t/cuda/log1p.npy --output result1=%t/cuda/expm1.npy --output result2=%t/cuda/elu.npy --output result3=%t/cuda/selu.npy --output result4=%t/cuda/celu.npy --output result5=%t/cuda/softplus.npy --output result6=%t/cuda/mish.npy --output result7=%t/cuda/logsigmoid.npy
// RUN: %python %t/tiny.py check %t/x.npy %t/cuda | FileCheck %s --check-prefix=VALUES
// The comparison can fail: log(1 + x) and exp(x) - 1 in float.
// RUN: %python %t/tiny.py naive %t/x.npy %t/naive
// RUN: not %python %t/tiny.py check %t/x.npy %t/naive 2>&1 | FileCheck %s --check-prefix=WRONG

// RAN-COUNT-8: check result{{[0-9]+}}: {{.*}}: ok
// VALUES: log1p, expm1, elu, selu, celu, softplus, mish, logsigmoid: 8 x 12 values to 1e-6 of each
// FUSED: scl.scalar "log1p"
// FUSED: scl.scalar "expm1"
// KERNELS: log1pf(
// KERNELS: expm1f(
// WRONG: log1p at 0

//--- model.mlir
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<12xf32> {sc.sharding = #sc.sharding<@m, [{"x"}[5, 7]]>})
    -> (tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>,
        tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>) {
  %l = sc.log1p %x : tensor<12xf32>
  %e = sc.expm1 %x : tensor<12xf32>
  %elu = sc.elu %x {alpha = 1.3} : tensor<12xf32>
  %selu = sc.selu %x : tensor<12xf32>
  %celu = sc.celu %x {alpha = 0.7} : tensor<12xf32>
  %sp = sc.softplus %x {beta = 1.0, threshold = 50.0} : tensor<12xf32>
  %mish = sc.mish %x : tensor<12xf32>
  %ls = sc.logsigmoid %x : tensor<12xf32>
  return %l, %e, %elu, %selu, %celu, %sp, %mish, %ls : tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>,
      tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>
}

//--- tiny.py
# `input F`: tiny arguments of both signs, and large ones whose exp(-|x|)
# vanishes beside 1. `check X DIR`: DIR/<name>.npy against PyTorch's
# definitions in double. `naive X DIR`: writes what log(1 + x) and
# exp(x) - 1 in float give, which `check` must refuse.
import math, os, struct, sys
import npy

f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]

if sys.argv[1] == "input":
    values = [3e-8, -3e-8, 1e-5, -1e-5, 2e-3, -0.25, 0.5, 17.0, 20.0, -20.0,
              -35.0, 1e-30]
    npy.write(sys.argv[2], [12], values)
    sys.exit(0)


def elu(v, alpha, scale=1.0, inner=1.0):
    return scale * (v if v > 0 else alpha * math.expm1(v / inner))


def log1p(v):
    return math.nan if v < -1 else -math.inf if v == -1 else math.log1p(v)


def softplus(v):
    return v if v > 50.0 else math.log1p(math.exp(v))


refs = [
    ("log1p", log1p),
    ("expm1", math.expm1),
    ("elu", lambda v: elu(v, f32(1.3))),
    ("selu", lambda v: elu(v, f32(1.6732632423543772), f32(1.0507009873554805))),
    ("celu", lambda v: elu(v, f32(0.7), inner=f32(0.7))),
    ("softplus", softplus),
    ("mish", lambda v: v * math.tanh(math.log1p(math.exp(v)))),
    ("logsigmoid", lambda v: min(v, 0.0) - math.log1p(math.exp(-abs(v)))),
]
_, x = npy.read(sys.argv[2])
out = sys.argv[3]
if sys.argv[1] == "naive":
    os.makedirs(out, exist_ok=True)
    for name, _ in refs:
        f = {"log1p": lambda v: math.log(f32(1 + v)) if v > -1 else log1p(v),
             "expm1": lambda v: f32(math.exp(v)) - 1}.get(name, lambda v: 0.0)
        npy.write("%s/%s.npy" % (out, name), [12], [f32(f(v)) for v in x])
    sys.exit(0)
for name, f in refs:
    _, y = npy.read("%s/%s.npy" % (out, name))
    for i, (v, got) in enumerate(zip(x, y)):
        want = f(v)
        same = (want != want and got != got) or want == got or (
            abs(got - want) <= 1e-6 * abs(want) + 1e-37)
        if not same:
            sys.exit("%s at %d (x = %r): got %r, expected %r" % (name, i, v, got, want))
print("%s: %d x %d values to 1e-6 of each" % (", ".join(r[0] for r in refs),
                                            len(refs), len(x)))
