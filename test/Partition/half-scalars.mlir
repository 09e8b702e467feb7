// A Python scalar in a bf16 or f16 model (`x * 0.1`): as in PyTorch, the
// scalar is an f32 rank-0 operand beside the 16-bit tensor and the result
// takes the tensor's type. As ATen's CPU kernels read it, mul and div use
// a right-hand scalar unrounded in f32 (original_scalar_value<opmath_t>);
// add and sub, and a left-hand scalar of any, round it to the tensor's type
// first (the common dtype); each result is rounded once. Against Python's emulation, over an uneven split,
// unfused, -O3 and host CUDA. The negative runs swap the two readings.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/ref.py input %t
// RUN: shardc-opt %t/model.mlir -sc-compute-in-f32 | FileCheck %s --check-prefix=WIDEN
// RUN: shardc %t/model.mlir -O0 -o %t/o0.shardbin
// RUN: mkdir -p %t/o0 && shard-run %t/o0.shardbin --input arg0=%t/x.npy --input arg1=%t/y.npy --input arg2=%t/h.npy --output result0=%t/o0/r0.npy --output result1=%t/o0/r1.npy --output result2=%t/o0/r2.npy --output result3=%t/o0/r3.npy --output result4=%t/o0/r4.npy --output result5=%t/o0/r5.npy --output result6=%t/o0/r6.npy --output result7=%t/o0/r7.npy
// RUN: %python %t/ref.py check %t/o0 | FileCheck %s
// RUN: shardc %t/model.mlir -O3 -o %t/o3.shardbin
// RUN: mkdir -p %t/o3 && shard-run %t/o3.shardbin --input arg0=%t/x.npy --input arg1=%t/y.npy --input arg2=%t/h.npy --output result0=%t/o3/r0.npy --output result1=%t/o3/r1.npy --output result2=%t/o3/r2.npy --output result3=%t/o3/r3.npy --output result4=%t/o3/r4.npy --output result5=%t/o3/r5.npy --output result6=%t/o3/r6.npy --output result7=%t/o3/r7.npy
// RUN: %python %t/ref.py check %t/o3 | FileCheck %s
// RUN: shardc %t/model.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: mkdir -p %t/cuda && env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --backend cuda --input arg0=%t/x.npy --input arg1=%t/y.npy --input arg2=%t/h.npy --output result0=%t/cuda/r0.npy --output result1=%t/cuda/r1.npy --output result2=%t/cuda/r2.npy --output result3=%t/cuda/r3.npy --output result4=%t/cuda/r4.npy --output result5=%t/cuda/r5.npy --output result6=%t/cuda/r6.npy --output result7=%t/cuda/r7.npy
// RUN: %python %t/ref.py check %t/cuda | FileCheck %s
// RUN: not %python %t/ref.py check %t/o0 mul 2>&1 | FileCheck %s --check-prefix=WRONGMUL
// RUN: not %python %t/ref.py check %t/o0 add 2>&1 | FileCheck %s --check-prefix=WRONGADD
// RUN: not %python %t/ref.py check %t/o0 div 2>&1 | FileCheck %s --check-prefix=WRONGDIV
// RUN: not %python %t/ref.py check %t/o0 sub 2>&1 | FileCheck %s --check-prefix=WRONGSUB
// RUN: not %python %t/ref.py check %t/o0 left 2>&1 | FileCheck %s --check-prefix=WRONGLEFT
// CHECK: 8 results as PyTorch's eager bf16/f16
// WRONGMUL: result 0 at
// WRONGADD: result 2 at
// WRONGDIV: result 3 at
// WRONGSUB: result 6 at
// WRONGLEFT: result 7 at


// Only the 16-bit operand is widened; the f32 scalar is used as it is.
// WIDEN: %[[TENTH:.*]] = sc.constant dense<1.000000e-01> : tensor<f32>
// WIDEN: %[[X:.*]] = sc.cast %arg0 : tensor<13xbf16> to tensor<13xf32>
// WIDEN-NEXT: %[[P:.*]] = sc.mul %[[X]], %[[TENTH]] : (tensor<13xf32>, tensor<f32>) -> tensor<13xf32>
// WIDEN-NEXT: sc.cast %[[P]] : tensor<13xf32> to tensor<13xbf16>
// add's scalar is rounded to bf16 by a cast of its own, then widened.
// WIDEN: %[[HALF:.*]] = sc.cast %[[C3:.*]] : tensor<f32> to tensor<bf16>
// WIDEN-NEXT: %[[BACK:.*]] = sc.cast %[[HALF]] : tensor<bf16> to tensor<f32>
// WIDEN-NEXT: sc.add %[[BACK]], %[[X]] : (tensor<f32>, tensor<13xf32>) -> tensor<13xf32>

//--- model.mlir
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<13xbf16> {sc.sharding = #sc.sharding<@m, [{"x"}[8, 5]]>},
                %y: tensor<13xf32> {sc.sharding = #sc.sharding<@m, [{"x"}[8, 5]]>},
                %h: tensor<13xf16> {sc.sharding = #sc.sharding<@m, [{"x"}[8, 5]]>})
    -> (tensor<13xbf16>, tensor<13xbf16>, tensor<13xbf16>, tensor<13xbf16>, tensor<13xf32>, tensor<13xf16>, tensor<13xbf16>, tensor<13xbf16>) {
  %cst = sc.constant dense<0.1> : tensor<f32>
  %tenth = sc.constant dense<0.1> : tensor<bf16>
  %c3 = sc.constant dense<0.3> : tensor<f32>
  %three = sc.constant dense<0.3> : tensor<f32>
  %r0 = sc.mul %x, %cst : (tensor<13xbf16>, tensor<f32>) -> tensor<13xbf16>
  %r1 = sc.mul %x, %tenth : (tensor<13xbf16>, tensor<bf16>) -> tensor<13xbf16>
  %r2 = sc.add %c3, %x : (tensor<f32>, tensor<13xbf16>) -> tensor<13xbf16>
  %r3 = sc.div %x, %three : (tensor<13xbf16>, tensor<f32>) -> tensor<13xbf16>
  %r4 = sc.sub %y, %tenth : (tensor<13xf32>, tensor<bf16>) -> tensor<13xf32>
  %r5 = sc.mul %h, %cst : (tensor<13xf16>, tensor<f32>) -> tensor<13xf16>
  %r6 = sc.sub %x, %c3 : (tensor<13xbf16>, tensor<f32>) -> tensor<13xbf16>
  %r7 = sc.mul %cst, %x : (tensor<f32>, tensor<13xbf16>) -> tensor<13xbf16>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7 : tensor<13xbf16>, tensor<13xbf16>, tensor<13xbf16>, tensor<13xbf16>, tensor<13xf32>, tensor<13xf16>, tensor<13xbf16>, tensor<13xbf16>
}

//--- ref.py
# `input DIR` writes f32 inputs (shard-run rounds x to bf16 and h to f16);
# `check OUT [SWAP]` compares OUT/r<i>.npy with PyTorch's eager arithmetic:
# the 16-bit operand widened, mul's and div's scalar in f32, add's and
# sub's rounded to the tensor's type, the op computed in f32 (exactly in
# double, then rounded: exact for one +, -, * or / of floats), the result
# rounded once. SWAP (mul, add, div, sub or left) reads that one scalar
# the other way, so that each reading is shown to matter.
import math, struct, sys
import npy

def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]

def f16(v):
    return struct.unpack("<e", struct.pack("<e", v))[0]

def bf16(v):
    """Nearest bf16 of an f32 value, ties to even, on the bit pattern."""
    bits = struct.unpack("<I", struct.pack("<f", v))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]

X = [f32(1.7 * math.sin(0.9 * i + 0.3) + 0.01 * i) for i in range(13)]
Y = [f32(2.3 * math.cos(0.7 * i)) for i in range(13)]
if sys.argv[1] == "input":
    npy.write(sys.argv[2] + "/x.npy", [13], X)
    npy.write(sys.argv[2] + "/y.npy", [13], Y)
    npy.write(sys.argv[2] + "/h.npy", [13], X)
    sys.exit(0)
x = [bf16(v) for v in X]
h = [f16(v) for v in X]
tenth = f32(0.1)
swap = sys.argv[3] if len(sys.argv) > 3 else ""
mul_scalar = bf16(tenth) if swap == "mul" else tenth
div_scalar = bf16(f32(0.3)) if swap == "div" else f32(0.3)
add_scalar = f32(0.3) if swap == "add" else bf16(f32(0.3))
sub_scalar = f32(0.3) if swap == "sub" else bf16(f32(0.3))
left_scalar = tenth if swap == "left" else bf16(tenth)
want = [
    [bf16(f32(v * mul_scalar)) for v in x],
    [bf16(f32(v * bf16(tenth))) for v in x],
    [bf16(f32(add_scalar + v)) for v in x],
    [bf16(f32(v / div_scalar)) for v in x],
    [f32(v - bf16(tenth)) for v in Y],
    [f16(f32(v * tenth)) for v in h],
    [bf16(f32(v - sub_scalar)) for v in x],
    [bf16(f32(left_scalar * v)) for v in x],
]
for k, w in enumerate(want):
    got = npy.read("%s/r%d.npy" % (sys.argv[2], k))[1]
    for i, (a, b) in enumerate(zip(w, got)):
        if a != b:
            sys.exit("result %d at %d: got %r, expected %r" % (k, i, b, a))
print("%d results as PyTorch's eager bf16/f16" % len(want))
