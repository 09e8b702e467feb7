// torch.flip through sc-decompose-forms (one reflect pad that mirrors n - 1
// in front and crops as many behind): the split dim flipped on 3 uneven
// ranks (one empty), with the last dim too; and both split dims of a 2x2
// mesh, where the mirror image moves by halo exchanges, not collectives. Outputs are compared element for element with
// a pure-Python torch.flip, and the sharded runs with the unpartitioned
// model; unfused, at -O0, fused (-O3) and as generated CUDA kernels built
// for the host.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/flip.py input %t/x.npy 2,10,7
// RUN: %python %t/flip.py input %t/y.npy 1,2,6,5
// RUN: shardc %t/uneven.mlir -o %t/uneven.shardbin
// RUN: shard-run %t/uneven.shardbin --input arg0=%t/x.npy --check --output result0=%t/uneven.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/flip.py check %t/x.npy %t/uneven.npy 1,2 | FileCheck %s --check-prefix=UNEVEN
// RUN: shardc %t/uneven.mlir -O0 -o %t/uneven0.shardbin
// RUN: shard-run %t/uneven0.shardbin --input arg0=%t/x.npy --output result0=%t/uneven0.npy
// RUN: %python %t/flip.py check %t/x.npy %t/uneven0.npy 1,2 | FileCheck %s --check-prefix=UNEVEN
// RUN: shardc %t/mesh.mlir -O3 -o %t/mesh.shardbin
// RUN: shard-run %t/mesh.shardbin --input arg0=%t/y.npy --check --output result0=%t/mesh.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/flip.py check %t/y.npy %t/mesh.npy 2,3 | FileCheck %s --check-prefix=MESH
// RUN: shardc %t/mesh.mlir --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: shardc %t/mesh.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shardc %t/mesh.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --backend cuda --input arg0=%t/y.npy --output result0=%t/cuda.npy
// RUN: %python %t/flip.py check %t/y.npy %t/cuda.npy 2,3 | FileCheck %s --check-prefix=MESH
// The comparison can fail: flipping dim 2 only.
// RUN: not %python %t/flip.py check %t/y.npy %t/mesh.npy 2 2>&1 | FileCheck %s --check-prefix=WRONG

// RAN: check result0: {{.*}}: ok
// UNEVEN: flip over (1, 2): 140 values as torch.flip
// MESH: flip over (2, 3): 60 values as torch.flip
// Halos along H, then W (whose split 3/2 is uneven, so a rank's columns
// come from both of its row's ranks).
// PLAN-COUNT-4: halo exchanges: 2, collectives: 0,
// WRONG: flip over (2): at

//--- uneven.mlir
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<2x10x7xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[6, 0, 4], {}]>}) -> tensor<2x10x7xf32> {
  %f = sc.flip %x {dims = array<i64: 1, -1>} : tensor<2x10x7xf32>
  %y = sc.sharding_constraint %f : tensor<2x10x7xf32> to #sc.sharding<@m, [{}, {"x"}[6, 0, 4], {}]>
  return %y : tensor<2x10x7xf32>
}

//--- mesh.mlir
sc.mesh @m ["x"=2, "y"=2]
func.func @main(%x: tensor<1x2x6x5xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}, {"y"}]>}) -> tensor<1x2x6x5xf32> {
  %f = sc.flip %x {dims = array<i64: 2, 3>} : tensor<1x2x6x5xf32>
  %y = sc.sharding_constraint %f : tensor<1x2x6x5xf32> to #sc.sharding<@m, [{}, {}, {"x"}, {"y"}]>
  return %y : tensor<1x2x6x5xf32>
}

//--- flip.py
# `input F SHAPE`: distinct float32 values. `check X Y DIMS`: Y is torch.flip
# of X over DIMS (comma-separated), computed here.
import sys
import npy

if sys.argv[1] == "input":
    shape = [int(v) for v in sys.argv[3].split(",")]
    npy.write(sys.argv[2], shape, [0.25 * i - 3 for i in range(npy.count(shape))])
    sys.exit(0)
shape, x = npy.read(sys.argv[2])
_, y = npy.read(sys.argv[3])
dims = [int(v) for v in sys.argv[4].split(",")]
label = "flip over (%s)" % ", ".join(map(str, dims))
strides = npy.strides(shape)
for flat, got in enumerate(y):
    src = flat
    for d in dims:
        i = flat // strides[d] % shape[d]
        src += (shape[d] - 1 - 2 * i) * strides[d]
    if got != x[src]:
        sys.exit("%s: at %d: got %r, expected %r" % (label, flat, got, x[src]))
print("%s: %d values as torch.flip" % (label, len(y)))
