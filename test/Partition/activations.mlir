// F.leaky_relu, F.elu, F.softplus, torch.clamp, F.hardtanh (as F.relu6),
// F.hardsigmoid, F.hardswish, F.mish, F.selu, F.celu, F.logsigmoid,
// F.softsign and F.prelu (a slope per channel, split with them) through
// sc-decompose-forms (compare/select, maximum/minimum and arithmetic on
// rank-0 constants): split unevenly over 3 ranks (one empty), unfused,
// fused on the CPU (-O3) and as generated CUDA kernels built for the host.
// The inputs hold NaN and both infinities; the outputs are compared with
// Python's math on PyTorch's definitions (expm1, log1p), and the sharded
// runs with the unpartitioned model.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/act.py input %t/x.npy %t/w.npy
// RUN: shardc %t/model.mlir -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --input arg0=%t/x.npy --input arg1=%t/w.npy --check --output result0=%t/leaky.npy --output result1=%t/elu.npy --output result2=%t/softplus.npy --output result3=%t/clamp.npy --output result4=%t/floor.npy --output result5=%t/relu6.npy --output result6=%t/hardsigmoid.npy --output result7=%t/hardswish.npy --output result8=%t/mish.npy --output result9=%t/selu.npy --output result10=%t/celu.npy --output result11=%t/logsigmoid.npy --output result12=%t/softsign.npy --output result13=%t/prelu.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/act.py check %t/x.npy %t | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O3 --emit=kernels | FileCheck %s --check-prefix=FUSED
// RUN: shardc %t/model.mlir -O3 -o %t/fused.shardbin
// RUN: mkdir -p %t/o3 && shard-run %t/fused.shardbin --input arg0=%t/x.npy --input arg1=%t/w.npy --check --output result0=%t/o3/leaky.npy --output result1=%t/o3/elu.npy --output result2=%t/o3/softplus.npy --output result3=%t/o3/clamp.npy --output result4=%t/o3/floor.npy --output result5=%t/o3/relu6.npy --output result6=%t/o3/hardsigmoid.npy --output result7=%t/o3/hardswish.npy --output result8=%t/o3/mish.npy --output result9=%t/o3/selu.npy --output result10=%t/o3/celu.npy --output result11=%t/o3/logsigmoid.npy --output result12=%t/o3/softsign.npy --output result13=%t/o3/prelu.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/act.py check %t/x.npy %t/o3 | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: mkdir -p %t/cuda && env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --backend cuda --input arg0=%t/x.npy --input arg1=%t/w.npy --output result0=%t/cuda/leaky.npy --output result1=%t/cuda/elu.npy --output result2=%t/cuda/softplus.npy --output result3=%t/cuda/clamp.npy --output result4=%t/cuda/floor.npy --output result5=%t/cuda/relu6.npy --output result6=%t/cuda/hardsigmoid.npy --output result7=%t/cuda/hardswish.npy --output result8=%t/cuda/mish.npy --output result9=%t/cuda/selu.npy --output result10=%t/cuda/celu.npy --output result11=%t/cuda/logsigmoid.npy --output result12=%t/cuda/softsign.npy --output result13=%t/cuda/prelu.npy
// RUN: %python %t/act.py check %t/x.npy %t/cuda | FileCheck %s --check-prefix=VALUES
// The comparison can fail: a leaky slope of 0.1 instead of 0.2.
// RUN: not %python %t/act.py check %t/x.npy %t slope=0.1 2>&1 | FileCheck %s --check-prefix=WRONG

// RAN-COUNT-14: check result{{[0-9]+}}: {{.*}}: ok
// VALUES: leaky_relu, elu, softplus, clamp, clamp(min), relu6, hardsigmoid, hardswish, mish, selu, celu, logsigmoid, softsign, prelu: 14 x 30 values as PyTorch
// FUSED-COUNT-14: ElementwiseFused
// WRONG: leaky_relu at 0

//--- model.mlir
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<2x15xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[6, 0, 9]]>}, %w: tensor<15xf32>) -> (tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>) {
  %l = sc.leaky_relu %x {negative_slope = 0.2} : tensor<2x15xf32>
  %e = sc.elu %x {alpha = 1.3} : tensor<2x15xf32>
  %s = sc.softplus %x {beta = 2.0, threshold = 3.0} : tensor<2x15xf32>
  %c = sc.clamp %x {min = -0.5, max = 0.75} : tensor<2x15xf32>
  %f = sc.clamp %x {min = 0.25} : tensor<2x15xf32>
  %r = sc.hardtanh %x {min_val = 0.0, max_val = 6.0} : tensor<2x15xf32>
  %hs = sc.hardsigmoid %x : tensor<2x15xf32>
  %hw = sc.hardswish %x : tensor<2x15xf32>
  %m = sc.mish %x : tensor<2x15xf32>
  %se = sc.selu %x : tensor<2x15xf32>
  %ce = sc.celu %x {alpha = 0.7} : tensor<2x15xf32>
  %ls = sc.logsigmoid %x : tensor<2x15xf32>
  %ss = sc.softsign %x : tensor<2x15xf32>
  %pr = sc.prelu %x, %w : (tensor<2x15xf32>, tensor<15xf32>) -> tensor<2x15xf32>
  return %l, %e, %s, %c, %f, %r, %hs, %hw, %m, %se, %ce, %ls, %ss, %pr : tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>, tensor<2x15xf32>
}

//--- act.py
# `input F`: 30 float32 values from -3 to 3 with NaN and both infinities.
# `check X DIR [slope=S]`: DIR/{leaky,elu,softplus,clamp,floor,relu6,
# hardsigmoid,hardswish,mish,selu,celu,logsigmoid,softsign,prelu}.npy against
# PyTorch's definitions computed here in double.
import math, struct, sys
import npy

if sys.argv[1] == "input":
    values = [-3.0 + 0.21 * i for i in range(27)] + [math.nan, math.inf, -math.inf]
    npy.write(sys.argv[2], [2, 15], values)
    npy.write(sys.argv[3], [15], [0.05 * i - 0.3 for i in range(15)])
    sys.exit(0)
_, x = npy.read(sys.argv[2])
_, w = npy.read(sys.argv[2].replace("x.npy", "w.npy"))
out = sys.argv[3]
slope = float(sys.argv[4].split("=")[1]) if len(sys.argv) > 4 else 0.2
f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]

def softplus(v, beta=2.0, threshold=3.0):
    if v * beta > threshold:
        return v
    return math.log1p(math.exp(v * beta)) / beta

def mish(v):
    # PyTorch's formula as written: NaN at -inf (-inf * tanh(0)), inf at inf.
    return v * math.tanh(math.log1p(math.exp(v)))


refs = [
    ("leaky", "leaky_relu", lambda v: v if v > 0 else v * f32(slope)),
    ("elu", "elu", lambda v: v if v > 0 else f32(1.3) * math.expm1(v)),
    ("softplus", "softplus", softplus),
    ("clamp", "clamp", lambda v: v if v != v else min(max(v, -0.5), 0.75)),
    ("floor", "clamp(min)", lambda v: v if v != v else max(v, 0.25)),
    ("relu6", "relu6", lambda v: v if v != v else min(max(v, 0.0), 6.0)),
    ("hardsigmoid", "hardsigmoid",
     lambda v: v if v != v else min(max(v + 3, 0.0), 6.0) / 6),
    ("hardswish", "hardswish",
     lambda v: v if v != v else v * min(max(v + 3, 0.0), 6.0) / 6),
    ("mish", "mish", mish),
    ("selu", "selu", lambda v: f32(1.0507009873554805) * (
        v if v > 0 else f32(1.6732632423543772) * math.expm1(v))),
    ("celu", "celu", lambda v: v if v > 0 else f32(0.7) * math.expm1(v / f32(0.7))),
    ("logsigmoid", "logsigmoid",
     lambda v: v if v != v else min(v, 0.0) - math.log1p(math.exp(-abs(v)))),
    ("softsign", "softsign", lambda v: v / (1 + abs(v))),
]
# prelu's slope is per channel: dim 1 of the (2, 15) input.
refs.append(("prelu", "prelu", None))
for name, label, f in refs:
    _, y = npy.read("%s/%s.npy" % (out, name))
    for i, (v, got) in enumerate(zip(x, y)):
        want = f(v) if f else (v if v > 0 else w[i % 15] * v)
        same = (want != want and got != got) or want == got or (
            math.isfinite(want) and abs(got - want) <= 1e-6 + 1e-6 * abs(want))
        if not same:
            sys.exit("%s at %d (x = %r): got %r, expected %r" % (label, i, v, got, want))
print("%s: %d x %d values as PyTorch" % (", ".join(r[1] for r in refs),
                                         len(refs), len(x)))
