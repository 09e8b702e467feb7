// torch.roll through sc-decompose-forms (a circular pad, then a crop) on
// split dims: shifts past the shard sizes on 4 uneven ranks (one dim listed
// twice, a negative shift the shorter way round), a flattened roll of a
// tensor split on its leading dim, and the periodic case on a 2x2 mesh,
// where each rank receives only its neighbours' wrapped rows and columns.
// Outputs are compared element for element with a pure-Python torch.roll,
// and the sharded runs with the unpartitioned model; unfused, at -O0, fused
// (-O3) and as generated CUDA kernels built for the host.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/roll.py input %t/x.npy 2,12,10
// RUN: %python %t/roll.py input %t/p.npy 1,2,8,8
// RUN: shardc %t/model.mlir -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --input arg0=%t/x.npy --check --output result0=%t/dims.npy --output result1=%t/flat.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/roll.py check %t/x.npy %t | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O0 -o %t/o0.shardbin
// RUN: mkdir -p %t/o0 && shard-run %t/o0.shardbin --input arg0=%t/x.npy --output result0=%t/o0/dims.npy --output result1=%t/o0/flat.npy
// RUN: %python %t/roll.py check %t/x.npy %t/o0 | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O3 -o %t/o3.shardbin
// RUN: mkdir -p %t/o3 && shard-run %t/o3.shardbin --input arg0=%t/x.npy --check --output result0=%t/o3/dims.npy --output result1=%t/o3/flat.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/roll.py check %t/x.npy %t/o3 | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: mkdir -p %t/cuda && env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --backend cuda --input arg0=%t/x.npy --output result0=%t/cuda/dims.npy --output result1=%t/cuda/flat.npy
// RUN: %python %t/roll.py check %t/x.npy %t/cuda | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/periodic.mlir --emit=plan | FileCheck %s --check-prefix=PERIODIC
// RUN: shardc %t/periodic.mlir -o %t/periodic.shardbin
// RUN: shard-run %t/periodic.shardbin --input arg0=%t/p.npy --check --output result0=%t/periodic.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/roll.py periodic %t/p.npy %t/periodic.npy | FileCheck %s --check-prefix=PVALUES
// The comparison can fail: a shift of 4 instead of 5 along dim 1.
// RUN: not %python %t/roll.py check %t/x.npy %t shift=4 2>&1 | FileCheck %s --check-prefix=WRONG

// RAN: check result0: {{.*}}: ok
// VALUES: roll (3, -2, 14) over (1, 2, 1): 240 values as torch.roll
// VALUES: roll -7 flattened: 240 values as torch.roll
// 2 channels of one wrapped row or column (4 elements) from each of two
// neighbours and a corner at most: 56 to 72 bytes, no collective.
// PERIODIC-COUNT-4: collectives: 0, bytes sent: {{[0-9]+}}, received: {{56|64|72}}{{$}}
// PVALUES: roll (1, -1) over (2, 3): 128 values as torch.roll
// WRONG: roll (3, -2, 14) over (1, 2, 1) at

//--- model.mlir
sc.mesh @m ["x"=4]
func.func @main(%x: tensor<2x12x10xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[4, 3, 3, 2], {}]>}) -> (tensor<2x12x10xf32>, tensor<2x12x10xf32>) {
  %r = sc.roll %x {shifts = array<i64: 3, -2, 14>, dims = array<i64: 1, 2, 1>} : tensor<2x12x10xf32>
  %y = sc.sharding_constraint %r : tensor<2x12x10xf32> to #sc.sharding<@m, [{}, {"x"}[4, 3, 3, 2], {}]>
  %f = sc.roll %x {shifts = array<i64: -7>} : tensor<2x12x10xf32>
  %g = sc.sharding_constraint %f : tensor<2x12x10xf32> to #sc.sharding<@m, [{"x"}[1, 0, 1, 0], {}, {}]>
  return %y, %g : tensor<2x12x10xf32>, tensor<2x12x10xf32>
}

//--- periodic.mlir
sc.mesh @m ["x"=2, "y"=2]
func.func @main(%x: tensor<1x2x8x8xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}, {"y"}]>}) -> tensor<1x2x8x8xf32> {
  %r = sc.roll %x {shifts = array<i64: 1, -1>, dims = array<i64: 2, 3>} : tensor<1x2x8x8xf32>
  %y = sc.sharding_constraint %r : tensor<1x2x8x8xf32> to #sc.sharding<@m, [{}, {}, {"x"}, {"y"}]>
  return %y : tensor<1x2x8x8xf32>
}

//--- roll.py
# `input F SHAPE`: distinct float32 values. `check X DIR [shift=S]`:
# DIR/dims.npy and DIR/flat.npy against torch.roll computed here (S replaces
# the first shift). `periodic X Y`: the 2x2 mesh's roll.
import sys
import npy


def roll(shape, values, shifts, dims):
    """torch.roll: element i along dims[k] moves to (i + shifts[k]) mod n."""
    out = list(values)
    for shift, dim in zip(shifts, dims):
        src, out = out, [None] * len(out)
        stride = npy.strides(shape)[dim]
        n = shape[dim]
        for flat in range(len(src)):
            i = flat // stride % n
            out[flat + ((i + shift) % n - i) * stride] = src[flat]
    return out


def compare(label, want, path):
    _, got = npy.read(path)
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            sys.exit("%s at %d: got %r, expected %r" % (label, i, g, w))
    print("%s: %d values as torch.roll" % (label, len(want)))


if sys.argv[1] == "input":
    shape = [int(v) for v in sys.argv[3].split(",")]
    npy.write(sys.argv[2], shape, [0.5 * i - 7 for i in range(npy.count(shape))])
    sys.exit(0)
shape, x = npy.read(sys.argv[2])
if sys.argv[1] == "periodic":
    compare("roll (1, -1) over (2, 3)", roll(shape, x, [1, -1], [2, 3]),
            sys.argv[3])
    sys.exit(0)
out = sys.argv[3]
first = int(sys.argv[4].split("=")[1]) if len(sys.argv) > 4 else 3
compare("roll (3, -2, 14) over (1, 2, 1)",
        roll(shape, x, [first, -2, 14], [1, 2, 1]), out + "/dims.npy")
compare("roll -7 flattened", roll([len(x)], x, [-7], [0]), out + "/flat.npy")
