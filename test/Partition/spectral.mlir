// torch.fft's transforms (sc.rfft, sc.irfft, sc.fft, sc.ifft on view_as_real
// tensors) through sc-decompose-forms, which makes them GEMMs against DFT
// matrices: rfft2 of a tensor split 4/0/6 over 3 ranks and its irfft2 back
// to the same split; fft and ifft of a complex tensor split over its
// transformed dim with every norm, trimmed (n = 9 of 12) and zero-padded
// (s = (4, 16)); irfft with the default and an odd length (the imaginary
// parts of the DC and Nyquist bins are ignored, as in PyTorch); rfft along
// a middle dim. Every output is compared with a pure-Python DFT from its
// definition (rfftn as the truncated complex fftn, irfftn through the whole
// Hermitian spectrum), unfused, at -O0 and -O3 and as host-built CUDA
// kernels, and the sharded runs with the unpartitioned model.
// Then an FNO spectral convolution (rfft2, two corners of modes mixed by
// complex weights, zero blocks, irfft2) over H split 5/0/7: the corner
// slices and the zero blocks fold into the matrices, so the only
// communication is the all-reduce of the two corners' partial spectra
// (576 bytes per rank), no gather of the field.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: %python %t/spectral.py input %t/x.npy 2,3,10,8 0.41
// RUN: %python %t/spectral.py input %t/z.npy 3,12,2 0.29
// RUN: shardc %t/model.mlir -o %t/model.shardbin
// RUN: shard-run %t/model.shardbin --input arg0=%t/x.npy --input arg1=%t/z.npy --check --output result0=%t/r0.npy --output result1=%t/r1.npy --output result2=%t/r2.npy --output result3=%t/r3.npy --output result4=%t/r4.npy --output result5=%t/r5.npy --output result6=%t/r6.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/spectral.py check %t/x.npy %t/z.npy %t | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O0 -o %t/o0.shardbin
// RUN: mkdir -p %t/o0 && shard-run %t/o0.shardbin --input arg0=%t/x.npy --input arg1=%t/z.npy --output result0=%t/o0/r0.npy --output result1=%t/o0/r1.npy --output result2=%t/o0/r2.npy --output result3=%t/o0/r3.npy --output result4=%t/o0/r4.npy --output result5=%t/o0/r5.npy --output result6=%t/o0/r6.npy
// RUN: %python %t/spectral.py check %t/x.npy %t/z.npy %t/o0 | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir -O3 -o %t/o3.shardbin
// RUN: mkdir -p %t/o3 && shard-run %t/o3.shardbin --input arg0=%t/x.npy --input arg1=%t/z.npy --check --output result0=%t/o3/r0.npy --output result1=%t/o3/r1.npy --output result2=%t/o3/r2.npy --output result3=%t/o3/r3.npy --output result4=%t/o3/r4.npy --output result5=%t/o3/r5.npy --output result6=%t/o3/r6.npy | FileCheck %s --check-prefix=RAN
// RUN: %python %t/spectral.py check %t/x.npy %t/z.npy %t/o3 | FileCheck %s --check-prefix=VALUES
// RUN: shardc %t/model.mlir --target=cuda -o %t/cuda.shardbin
// RUN: shardc %t/model.mlir --target=cuda --emit=kernels -o %t/cuda.cu
// RUN: %host_cxx -shared -fPIC -O1 -x c++ -I %hostcuda_include %t/cuda.cu -o %t/cuda.so
// RUN: mkdir -p %t/cuda && env SHARDRT_HOSTCUDA_KERNELS=%t/cuda.so shard-run-hostcuda %t/cuda.shardbin --backend cuda --input arg0=%t/x.npy --input arg1=%t/z.npy --output result0=%t/cuda/r0.npy --output result1=%t/cuda/r1.npy --output result2=%t/cuda/r2.npy --output result3=%t/cuda/r3.npy --output result4=%t/cuda/r4.npy --output result5=%t/cuda/r5.npy --output result6=%t/cuda/r6.npy
// RUN: %python %t/spectral.py check %t/x.npy %t/z.npy %t/cuda | FileCheck %s --check-prefix=VALUES
// The comparison can fail: the transforms' sign flipped.
// RUN: not %python %t/spectral.py check %t/x.npy %t/z.npy %t conj 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: %python %t/spectral.py input %t/f.npy 1,2,12,10 0.37
// RUN: %python %t/spectral.py input %t/w1.npy 2,2,3,3 0.31
// RUN: %python %t/spectral.py input %t/w2.npy 2,2,3,3 0.41
// RUN: %python %t/spectral.py input %t/w3.npy 2,2,3,3 0.51
// RUN: %python %t/spectral.py input %t/w4.npy 2,2,3,3 0.61
// RUN: shardc %t/fno.mlir --emit=plan | FileCheck %s --check-prefix=FNOPLAN
// RUN: shardc %t/fno.mlir -o %t/fno.shardbin
// RUN: shard-run %t/fno.shardbin --input arg0=%t/f.npy --input arg1=%t/w1.npy --input arg2=%t/w2.npy --input arg3=%t/w3.npy --input arg4=%t/w4.npy --check --output result0=%t/fno.npy | FileCheck %s --check-prefix=FNORAN
// RUN: %python %t/spectral.py fno %t/f.npy %t/w1.npy %t/w2.npy %t/w3.npy %t/w4.npy %t/fno.npy | FileCheck %s --check-prefix=FNO
// RUN: not %python %t/spectral.py fno %t/f.npy %t/w1.npy %t/w2.npy %t/w3.npy %t/w4.npy %t/fno.npy conj 2>&1 | FileCheck %s --check-prefix=FNOWRONG

// RAN-COUNT-7: check result{{[0-6]}}: {{.*}}: ok
// VALUES: rfft2 (2, 3, 10, 5, 2): as the DFT's definition
// VALUES-NEXT: irfft2 (2, 3, 10, 8): as the DFT's definition
// VALUES-NEXT: fft ortho n=9 (3, 9, 2): as the DFT's definition
// VALUES-NEXT: ifft2 forward s=(4,16) (4, 16, 2): as the DFT's definition
// VALUES-NEXT: irfft (3, 22): as the DFT's definition
// VALUES-NEXT: irfft ortho n=7 (3, 7): as the DFT's definition
// VALUES-NEXT: rfft forward n=5 dim 1 (2, 3, 10, 8, 2): as the DFT's definition
// WRONG: rfft2 at
// FNOPLAN-COUNT-3: halo exchanges: 0, collectives: 2, bytes sent: 576, received: 576
// FNORAN: check result0: {{.*}}: ok
// FNO: spectral convolution (1, 2, 12, 10): as the DFT's definition
// FNOWRONG: spectral convolution at

//--- model.mlir
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<2x3x10x8xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[4, 0, 6], {}]>},
                %z: tensor<3x12x2xf32> {sc.sharding = #sc.sharding<@m, [{}, {"x"}[5, 7, 0], {}]>})
    -> (tensor<2x3x10x5x2xf32>, tensor<2x3x10x8xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[4, 0, 6], {}]>},
        tensor<3x9x2xf32>, tensor<4x16x2xf32>, tensor<3x22xf32>, tensor<3x7xf32>, tensor<2x3x10x8x2xf32>) {
  %r0 = sc.rfft %x {dims = array<i64: 2, 3>} : (tensor<2x3x10x8xf32>) -> tensor<2x3x10x5x2xf32>
  %r1 = sc.irfft %r0 {dims = array<i64: -2, -1>, sizes = array<i64: 10, 8>} : (tensor<2x3x10x5x2xf32>) -> tensor<2x3x10x8xf32>
  %r2 = sc.fft %z {sizes = array<i64: 9>, norm = "ortho"} : (tensor<3x12x2xf32>) -> tensor<3x9x2xf32>
  %r3 = sc.ifft %z {dims = array<i64: 0, 1>, sizes = array<i64: 4, 16>, norm = "forward"} : (tensor<3x12x2xf32>) -> tensor<4x16x2xf32>
  %r4 = sc.irfft %z : (tensor<3x12x2xf32>) -> tensor<3x22xf32>
  %r5 = sc.irfft %z {dims = array<i64: 1>, sizes = array<i64: 7>, norm = "ortho"} : (tensor<3x12x2xf32>) -> tensor<3x7xf32>
  %r6 = sc.rfft %x {dims = array<i64: 1>, sizes = array<i64: 5>, norm = "forward"} : (tensor<2x3x10x8xf32>) -> tensor<2x3x10x8x2xf32>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6 : tensor<2x3x10x5x2xf32>, tensor<2x3x10x8xf32>, tensor<3x9x2xf32>, tensor<4x16x2xf32>, tensor<3x22xf32>, tensor<3x7xf32>, tensor<2x3x10x8x2xf32>
}

//--- fno.mlir
sc.mesh @m ["x"=3]
func.func @main(%x: tensor<1x2x12x10xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[5, 0, 7], {}]>}, %wr1: tensor<2x2x3x3xf32>, %wi1: tensor<2x2x3x3xf32>, %wr2: tensor<2x2x3x3xf32>, %wi2: tensor<2x2x3x3xf32>) -> (tensor<1x2x12x10xf32> {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}[5, 0, 7], {}]>}) {
  %f = sc.rfft %x {dims = array<i64: 2, 3>} : (tensor<1x2x12x10xf32>) -> tensor<1x2x12x6x2xf32>
  %t = sc.slice %f {start = array<i64: 0, 0, 0, 0, 0>, end = array<i64: 1, 2, 3, 3, 2>} : (tensor<1x2x12x6x2xf32>) -> tensor<1x2x3x3x2xf32>
  %tr0 = sc.slice %t {start = array<i64: 0, 0, 0, 0, 0>, end = array<i64: 1, 2, 3, 3, 1>} : (tensor<1x2x3x3x2xf32>) -> tensor<1x2x3x3x1xf32>
  %tr = sc.reshape %tr0 : (tensor<1x2x3x3x1xf32>) -> tensor<1x2x1x3x3xf32>
  %ti0 = sc.slice %t {start = array<i64: 0, 0, 0, 0, 1>, end = array<i64: 1, 2, 3, 3, 2>} : (tensor<1x2x3x3x2xf32>) -> tensor<1x2x3x3x1xf32>
  %ti = sc.reshape %ti0 : (tensor<1x2x3x3x1xf32>) -> tensor<1x2x1x3x3xf32>
  %trr = sc.mul %tr, %wr1 : (tensor<1x2x1x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x3x3xf32>
  %tii = sc.mul %ti, %wi1 : (tensor<1x2x1x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x3x3xf32>
  %tri = sc.mul %tr, %wi1 : (tensor<1x2x1x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x3x3xf32>
  %tir = sc.mul %ti, %wr1 : (tensor<1x2x1x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x3x3xf32>
  %tre = sc.sub %trr, %tii : (tensor<1x2x2x3x3xf32>, tensor<1x2x2x3x3xf32>) -> tensor<1x2x2x3x3xf32>
  %tim = sc.add %tri, %tir : (tensor<1x2x2x3x3xf32>, tensor<1x2x2x3x3xf32>) -> tensor<1x2x2x3x3xf32>
  %tsre = sc.sum %tre {dims = array<i64: 1>} : (tensor<1x2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %ture = sc.unsqueeze %tsre {dim = -1} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x1xf32>
  %tsim = sc.sum %tim {dims = array<i64: 1>} : (tensor<1x2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %tuim = sc.unsqueeze %tsim {dim = -1} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x1xf32>
  %to = sc.concat %ture, %tuim {dim = 4} : (tensor<1x2x3x3x1xf32>, tensor<1x2x3x3x1xf32>) -> tensor<1x2x3x3x2xf32>
  %b = sc.slice %f {start = array<i64: 0, 0, 9, 0, 0>, end = array<i64: 1, 2, 12, 3, 2>} : (tensor<1x2x12x6x2xf32>) -> tensor<1x2x3x3x2xf32>
  %br0 = sc.slice %b {start = array<i64: 0, 0, 0, 0, 0>, end = array<i64: 1, 2, 3, 3, 1>} : (tensor<1x2x3x3x2xf32>) -> tensor<1x2x3x3x1xf32>
  %br = sc.reshape %br0 : (tensor<1x2x3x3x1xf32>) -> tensor<1x2x1x3x3xf32>
  %bi0 = sc.slice %b {start = array<i64: 0, 0, 0, 0, 1>, end = array<i64: 1, 2, 3, 3, 2>} : (tensor<1x2x3x3x2xf32>) -> tensor<1x2x3x3x1xf32>
  %bi = sc.reshape %bi0 : (tensor<1x2x3x3x1xf32>) -> tensor<1x2x1x3x3xf32>
  %brr = sc.mul %br, %wr2 : (tensor<1x2x1x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x3x3xf32>
  %bii = sc.mul %bi, %wi2 : (tensor<1x2x1x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x3x3xf32>
  %bri = sc.mul %br, %wi2 : (tensor<1x2x1x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x3x3xf32>
  %bir = sc.mul %bi, %wr2 : (tensor<1x2x1x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x3x3xf32>
  %bre = sc.sub %brr, %bii : (tensor<1x2x2x3x3xf32>, tensor<1x2x2x3x3xf32>) -> tensor<1x2x2x3x3xf32>
  %bim = sc.add %bri, %bir : (tensor<1x2x2x3x3xf32>, tensor<1x2x2x3x3xf32>) -> tensor<1x2x2x3x3xf32>
  %bsre = sc.sum %bre {dims = array<i64: 1>} : (tensor<1x2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %bure = sc.unsqueeze %bsre {dim = -1} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x1xf32>
  %bsim = sc.sum %bim {dims = array<i64: 1>} : (tensor<1x2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %buim = sc.unsqueeze %bsim {dim = -1} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x1xf32>
  %bo = sc.concat %bure, %buim {dim = 4} : (tensor<1x2x3x3x1xf32>, tensor<1x2x3x3x1xf32>) -> tensor<1x2x3x3x2xf32>
  %z = sc.constant dense<0.0> : tensor<1x2x6x3x2xf32>
  %cat = sc.concat %to, %z, %bo {dim = 2} : (tensor<1x2x3x3x2xf32>, tensor<1x2x6x3x2xf32>, tensor<1x2x3x3x2xf32>) -> tensor<1x2x12x3x2xf32>
  %spec = sc.pad %cat {pad = array<i64: 0, 0, 0, 3>} : (tensor<1x2x12x3x2xf32>) -> tensor<1x2x12x6x2xf32>
  %y = sc.irfft %spec {dims = array<i64: 2, 3>, sizes = array<i64: 12, 10>} : (tensor<1x2x12x6x2xf32>) -> tensor<1x2x12x10xf32>
  return %y : tensor<1x2x12x10xf32>
}

//--- spectral.py
# Pure-Python torch.fft on view_as_real tensors, straight from the DFT's
# definition (cmath, double precision), independent of shardc's matrices:
# rfftn is the full complex fftn truncated, and irfftn builds the whole
# Hermitian spectrum and takes the real part of its inverse.
# `input F SHAPE STEP`: writes float32 values (i * STEP mod 2) - 1.
# `check X Z DIR [conj]`: DIR/r0.npy .. r6.npy against model.mlir's outputs.
# `fno X WR1 WI1 WR2 WI2 Y [conj]`: Y against the spectral convolution.
# `conj` flips the transforms' sign, to show the comparison can fail.
import cmath, itertools, math, sys
import npy

SIGN = [1.0]


class T:
    def __init__(self, shape, data):
        self.shape, self.data = list(shape), list(data)

    def index(self, idx):
        i = 0
        for d, n in zip(idx, self.shape):
            i = i * n + d
        return i

    def __getitem__(self, idx):
        return self.data[self.index(idx)]


def complex_of(shape, values):
    """view_as_complex of a (..., 2) float tensor."""
    return T(shape[:-1], [complex(values[2 * i], values[2 * i + 1])
                          for i in range(len(values) // 2)])


def dft(t, dim, n, inverse, norm):
    """torch.fft.fft / ifft along dim: trim or zero-pad to n, then sum."""
    shape = list(t.shape)
    shape[dim] = n
    sign = (1.0 if inverse else -1.0) * SIGN[0]
    if norm == "ortho":
        scale = 1.0 / math.sqrt(n)
    elif (norm == "backward") == inverse:
        scale = 1.0 / n
    else:
        scale = 1.0
    out = [0j] * npy.count(shape)
    result = T(shape, out)
    m = t.shape[dim]
    for idx in itertools.product(*[range(s) for s in shape]):
        k = idx[dim]
        total = 0j
        for j in range(min(m, n)):
            src = list(idx)
            src[dim] = j
            total += t[src] * cmath.exp(sign * 2j * math.pi * j * k / n)
        result.data[result.index(idx)] = total * scale
    return result


def fftn(t, dims, sizes, inverse, norm):
    for i, d in enumerate(dims):
        t = dft(t, d, sizes[i] if sizes else t.shape[d], inverse, norm)
    return t


def rfftn(x, dims, sizes, norm):
    full = fftn(T(x.shape, [complex(v) for v in x.data]), dims, sizes, False,
                norm)
    last = dims[-1]
    shape = list(full.shape)
    shape[last] = shape[last] // 2 + 1
    return T(shape, [full[idx] for idx in
                     itertools.product(*[range(s) for s in shape])])


def irfftn(t, dims, sizes, norm):
    t = fftn(t, dims[:-1], sizes[:-1] if sizes else None, True, norm)
    last = dims[-1]
    n = sizes[-1] if sizes else 2 * (t.shape[last] - 1)
    shape = list(t.shape)
    shape[last] = n
    spectrum = []
    for idx in itertools.product(*[range(s) for s in shape]):
        k = idx[last]
        mirrored = k > n // 2
        src = list(idx)
        src[last] = n - k if mirrored else k
        v = t[src] if src[last] < t.shape[last] else 0j
        if src[last] == 0 or 2 * src[last] == n:
            v = complex(v.real, 0.0)
        spectrum.append(v.conjugate() if mirrored else v)
    full = dft(T(shape, spectrum), last, n, True, norm)
    return T(shape, [v.real for v in full.data])


def as_real(t):
    """view_as_real: (..., 2) float values."""
    return [p for v in t.data for p in (v.real, v.imag)]


def compare(name, path, want_shape, want):
    shape, got = npy.read(path)
    if shape != want_shape:
        sys.exit("%s: shape %s, expected %s" % (name, shape, want_shape))
    for i, (g, w) in enumerate(zip(got, want)):
        if abs(g - w) > 2e-4 + 2e-4 * abs(w):
            sys.exit("%s at %d: got %r, expected %r" % (name, i, g, w))
    print("%s %s: as the DFT's definition" % (name, tuple(shape)))


def read_real(path):
    shape, values = npy.read(path)
    return T(shape, values)


mode = sys.argv[1]
if mode == "input":
    shape = [int(d) for d in sys.argv[3].split(",")]
    step = float(sys.argv[4])
    npy.write(sys.argv[2], shape, [math.fmod(i * step, 2.0) - 1.0
                                   for i in range(npy.count(shape))])
    sys.exit(0)
if sys.argv[-1] == "conj":
    SIGN[0] = -1.0
if mode == "check":
    x = read_real(sys.argv[2])
    zs, zv = npy.read(sys.argv[3])
    z = complex_of(zs, zv)
    out = sys.argv[4]
    spectrum = rfftn(x, [2, 3], None, "backward")
    compare("rfft2", out + "/r0.npy", spectrum.shape + [2], as_real(spectrum))
    back = irfftn(spectrum, [2, 3], [10, 8], "backward")
    compare("irfft2", out + "/r1.npy", back.shape, back.data)
    f = fftn(z, [1], [9], False, "ortho")
    compare("fft ortho n=9", out + "/r2.npy", f.shape + [2], as_real(f))
    g = fftn(z, [0, 1], [4, 16], True, "forward")
    compare("ifft2 forward s=(4,16)", out + "/r3.npy", g.shape + [2],
            as_real(g))
    h = irfftn(z, [1], None, "backward")
    compare("irfft", out + "/r4.npy", h.shape, h.data)
    h = irfftn(z, [1], [7], "ortho")
    compare("irfft ortho n=7", out + "/r5.npy", h.shape, h.data)
    r = rfftn(x, [1], [5], "forward")
    compare("rfft forward n=5 dim 1", out + "/r6.npy", r.shape + [2],
            as_real(r))
elif mode == "fno":
    x = read_real(sys.argv[2])
    w = [read_real(p) for p in sys.argv[3:7]]
    spectrum = rfftn(x, [2, 3], None, "backward")
    b, ci, h, wf = spectrum.shape
    co, m1, m2 = w[0].shape[1], w[0].shape[2], w[0].shape[3]
    mixed = [0j] * (b * co * h * wf)
    out_ft = T([b, co, h, wf], mixed)
    for (rows, wr, wi) in ((range(0, m1), w[0], w[1]),
                           (range(h - m1, h), w[2], w[3])):
        for n, o, r, c in itertools.product(range(b), range(co),
                                            range(m1), range(m2)):
            total = 0j
            for i in range(ci):
                weight = complex(wr[i, o, r, c], wi[i, o, r, c])
                total += spectrum[n, i, rows[r], c] * weight
            out_ft.data[out_ft.index((n, o, rows[r], c))] = total
    y = irfftn(out_ft, [2, 3], [h, x.shape[3]], "backward")
    compare("spectral convolution", sys.argv[7], y.shape, y.data)
