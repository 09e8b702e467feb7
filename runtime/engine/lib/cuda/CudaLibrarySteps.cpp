//===- CudaLibrarySteps.cpp - cuBLAS GEMMs, cuDNN convolution and pooling -===//
//
// Each prepare function returns a native step when the library computes
// exactly what the CPU kernel does for these shapes and attributes, and a
// null RunFn otherwise (broadcast patterns a batch stride cannot express,
// dilated or padded max pooling...): the backend then runs a kernel of its
// own (pooling) or stages the instruction through the host, so coverage
// never changes results.
//
// Row-major GEMMs go through column-major cuBLAS as C^T = B^T A^T, which
// needs no transposes. f32 stays f32 (no TF32) unless the session allows it,
// so the GPU agrees with the CPU to f32 rounding.
//
// cuDNN's legacy convolution API is deprecated in cuDNN 9 but is still the
// shortest path to a plain NCHW forward convolution. A bias given here is
// added in a pass of its own (cudnnAddTensor, launchAddBias); sc-sink-bias
// leaves it out wherever the kernels reading the output can add it. The
// graph API's fused epilogues (activation) are not requested yet.
//
//===----------------------------------------------------------------------===//

#include "ConvRegionPlan.h"
#include "CudaSupport.h"

#include <array>
#include <memory>
#include <optional>
#include <vector>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace shardrt::exec::cuda {

void LibraryContext::destroyHandles() {
  if (cublas_)
    cublasDestroy(cublas_);
  cublas_ = nullptr;
  if (cublasWorkspace_)
    cudaFree(cublasWorkspace_);
  cublasWorkspace_ = nullptr;
#ifdef SHARDRT_HAVE_CUDNN
  if (cudnn_)
    cudnnDestroy(cudnn_);
  cudnn_ = nullptr;
#endif
}

Status LibraryContext::setUpCublas(cublasHandle_t h) {
  SHARDRT_CUBLAS_TRY(cublasSetStream(h, stream));
  // cuBLAS's own workspace pool may allocate inside a graph capture; a
  // workspace of ours (32 MiB, NVIDIA's size for Hopper) never does. Set
  // after the stream, which resets it.
  constexpr size_t kCublasWorkspace = size_t(32) << 20;
  SHARDRT_CUDA_TRY(cudaMalloc(&cublasWorkspace_, kCublasWorkspace));
  SHARDRT_CUBLAS_TRY(cublasSetWorkspace(h, cublasWorkspace_, kCublasWorkspace));
  SHARDRT_CUBLAS_TRY(cublasSetMathMode(h, allowTf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                                    : CUBLAS_DEFAULT_MATH));
  return Status();
}

StatusOr<cublasHandle_t> LibraryContext::cublas() {
  if (!cublas_) {
    cublasHandle_t h = nullptr;
    SHARDRT_CUBLAS_TRY(cublasCreate(&h));
    // Kept only once fully set up: a handle without our workspace could
    // allocate inside a capture.
    if (Status s = setUpCublas(h); !s.ok()) {
      cublasDestroy(h);
      if (cublasWorkspace_)
        cudaFree(cublasWorkspace_);
      cublasWorkspace_ = nullptr;
      return s;
    }
    cublas_ = h;
  }
  return cublas_;
}

#ifdef SHARDRT_HAVE_CUDNN
StatusOr<cudnnHandle_t> LibraryContext::cudnn() {
  if (!cudnn_) {
    cudnnHandle_t h = nullptr;
    SHARDRT_CUDNN_TRY(cudnnCreate(&h));
    cudnn_ = h;
    SHARDRT_CUDNN_TRY(cudnnSetStream(h, stream));
  }
  return cudnn_;
}
#endif

namespace {

constexpr int64_t kIntMax = 0x7fffffff;

bool fitsInt(std::initializer_list<int64_t> values) {
  for (int64_t v : values)
    if (v < 0 || v > kIntMax)
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// cuBLAS
//===----------------------------------------------------------------------===//

/// torch.matmul where every operand's batch is either the output's or a
/// single matrix (batch stride 0); other broadcasts and 1-d operands are
/// staged.
StatusOr<RunFn> prepareMatmul(const fb::Instruction &inst,
                              const PrepareContext &ctx, LibraryContext &lib) {
  Shape a = inSlot(inst, ctx, 0).shape, b = inSlot(inst, ctx, 1).shape;
  const Shape &y = outSlot(inst, ctx, 0).shape;
  if (a.size() < 2 || b.size() < 2 || y.size() < 2)
    return RunFn();
  int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
  Shape outBatch(y.begin(), y.end() - 2);
  Shape aBatch = padShape(Shape(a.begin(), a.end() - 2), outBatch.size());
  Shape bBatch = padShape(Shape(b.begin(), b.end() - 2), outBatch.size());
  int64_t count = numElements(outBatch);
  auto strideOf = [&](const Shape &batch, int64_t matrix, int64_t &stride) {
    if (numElements(batch) == 1)
      stride = 0;
    else if (batch == outBatch)
      stride = matrix;
    else
      return false;
    return true;
  };
  int64_t strideA = 0, strideB = 0;
  if (!strideOf(aBatch, m * k, strideA) || !strideOf(bBatch, k * n, strideB) ||
      !fitsInt({m, n, k, count}))
    return RunFn();
  uint32_t ai = inIdx(inst, 0), bi = inIdx(inst, 1), yi = outIdx(inst, 0);
  // The handle is made now, not in the first run, which may be a CUDA
  // graph capture.
  SHARDRT_ASSIGN_OR_RETURN(cublasHandle_t handle, lib.cublas());
  return RunFn([=](RunContext &rc) -> Status {
    if (count == 0 || m == 0 || n == 0)
      return Status();
    const float one = 1.0f, zero = 0.0f;
    // k == 0 leaves beta * C: zeros, as torch.matmul gives.
    SHARDRT_CUBLAS_TRY(cublasSgemmStridedBatched(
        handle, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &one,
        slotPtr<float>(rc, bi), int(std::max<int64_t>(n, 1)), strideB,
        slotPtr<float>(rc, ai), int(std::max<int64_t>(k, 1)), strideA, &zero,
        slotPtr<float>(rc, yi), int(n), m * n, int(count)));
    return Status();
  });
}

/// y = x w^T (+ bias): one GEMM over all rows of x.
StatusOr<RunFn> prepareLinear(const fb::Instruction &inst,
                              const PrepareContext &ctx, LibraryContext &lib) {
  const Shape &x = inSlot(inst, ctx, 0).shape, &w = inSlot(inst, ctx, 1).shape;
  int64_t in = w[1], out = w[0];
  int64_t rows = numElements(Shape(x.begin(), x.end() - 1));
  if (!fitsInt({in, out, rows}))
    return RunFn();
  uint32_t xi = inIdx(inst, 0), wi = inIdx(inst, 1), yi = outIdx(inst, 0);
  uint32_t bi = numInputs(inst) == 3 ? inIdx(inst, 2) : kNoSlot;
  // The handle is made now, not in the first run, which may be a CUDA
  // graph capture.
  SHARDRT_ASSIGN_OR_RETURN(cublasHandle_t handle, lib.cublas());
  cudaStream_t stream = lib.stream;
  return RunFn([=](RunContext &rc) -> Status {
    if (rows == 0 || out == 0)
      return Status();
    const float one = 1.0f, zero = 0.0f;
    float *y = slotPtr<float>(rc, yi);
    SHARDRT_CUBLAS_TRY(
        cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(out), int(rows),
                    int(in), &one, slotPtr<float>(rc, wi),
                    int(std::max<int64_t>(in, 1)), slotPtr<float>(rc, xi),
                    int(std::max<int64_t>(in, 1)), &zero, y, int(out)));
    if (bi != kNoSlot)
      SHARDRT_CUDA_TRY(
          launchAddBias(y, slotPtr<float>(rc, bi), rows, out, stream));
    return Status();
  });
}

} // namespace

StatusOr<RunFn> prepareBlasStep(const fb::Instruction &inst,
                                const PrepareContext &ctx,
                                LibraryContext &lib) {
  switch (inst.opcode()) {
  case fb::Opcode::Matmul:
    return prepareMatmul(inst, ctx, lib);
  case fb::Opcode::Linear:
    return prepareLinear(inst, ctx, lib);
  default:
    return RunFn();
  }
}

//===----------------------------------------------------------------------===//
// cuDNN
//===----------------------------------------------------------------------===//

#ifdef SHARDRT_HAVE_CUDNN
namespace {

/// Owns the descriptors of one step.
struct DnnDescriptors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnPoolingDescriptor_t pool = nullptr;
  ~DnnDescriptors() {
    for (cudnnTensorDescriptor_t t : {x, y, bias})
      if (t)
        cudnnDestroyTensorDescriptor(t);
    if (w)
      cudnnDestroyFilterDescriptor(w);
    if (conv)
      cudnnDestroyConvolutionDescriptor(conv);
    if (pool)
      cudnnDestroyPoolingDescriptor(pool);
  }
};

/// cuDNN wants at least 4-d tensors: a 1-d window op becomes 2-d with a
/// leading spatial extent of 1.
std::vector<int> dnnDims(const Shape &shape) {
  std::vector<int> dims(shape.begin(), shape.end());
  if (dims.size() == 3)
    dims.insert(dims.begin() + 2, 1);
  return dims;
}

std::vector<int> spatial(const std::vector<int64_t> &v, int r) {
  std::vector<int> out(v.begin(), v.begin() + r);
  if (r == 1)
    out.insert(out.begin(), 0);
  return out;
}

/// Row-major strides of dims.
std::vector<int> denseStrides(const std::vector<int> &dims) {
  std::vector<int> strides(dims.size());
  int64_t s = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    strides[d] = int(s);
    s *= dims[d];
  }
  return strides;
}

/// A tensor of `dims`; with `whole`, a view of that size into a dense
/// buffer of `whole` dims.
Status setTensor(cudnnTensorDescriptor_t &desc, const std::vector<int> &dims,
                 const std::vector<int> *whole = nullptr) {
  SHARDRT_CUDNN_TRY(cudnnCreateTensorDescriptor(&desc));
  std::vector<int> strides = denseStrides(whole ? *whole : dims);
  SHARDRT_CUDNN_TRY(cudnnSetTensorNdDescriptor(
      desc, CUDNN_DATA_FLOAT, int(dims.size()), dims.data(), strides.data()));
  return Status();
}

bool allFitInt(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    n *= std::max<int64_t>(d, 1);
    if (d < 1 || n > kIntMax)
      return false;
  }
  return true;
}

/// A decoded conv's attributes as vectors over its spatial dims.
struct ConvAttrs {
  int r = 0;
  std::vector<int64_t> stride, padLo, dilation;
  int64_t groups = 1;
  std::vector<int64_t> regionLo, regionHi; // empty: the whole output
};
ConvAttrs convAttrs(const ConvStep &step) {
  const cpu::ConvParams &p = step.params;
  ConvAttrs a;
  a.r = p.rank;
  a.stride.assign(p.stride, p.stride + p.rank);
  a.padLo.assign(p.padLo, p.padLo + p.rank);
  a.dilation.assign(p.dilation, p.dilation + p.rank);
  a.groups = p.groups;
  if (step.hasRegion) {
    a.regionLo.assign(p.regionLo, p.regionLo + p.rank);
    a.regionHi.assign(p.regionHi, p.regionHi + p.rank);
  }
  return a;
}

/// A cuDNN query that refuses the shapes (not supported, bad parameters)
/// leaves the step to the host instead of failing the session.
#define SHARDRT_CUDNN_OR_STAGE(call)                                           \
  do {                                                                         \
    if ((call) != CUDNN_STATUS_SUCCESS)                                        \
      return RunFn();                                                          \
  } while (0)

/// FFT and Winograd compute through a transform whose rounding (1e-6 to
/// 1e-5 relative, more for FFT) is past f32 tolerances of 1e-5.
bool isTransform(cudnnConvolutionFwdAlgo_t algo) {
  return algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT ||
         algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
         algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD ||
         algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}
bool isTransform(cudnnConvolutionBwdDataAlgo_t algo) {
  return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT ||
         algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING ||
         algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD ||
         algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
}

/// The best-ranked algorithm that succeeded, stays off TF32 tensor cores
/// unless they are allowed, and whose workspace, asked for under the math
/// type it will run with, is known and at most 1 GiB; null if none is.
/// Unless TF32 (the session's "fast, less exact" choice) is allowed, it is
/// also exact and repeatable: a GEMM-family algorithm (no FFT or Winograd
/// transform) that cuDNN reports deterministic (no atomics).
/// Without TF32 every algorithm runs with CUDNN_FMA_MATH (set on `conv`
/// before the ranking too, setConv): a result reported under
/// CUDNN_DEFAULT_MATH would otherwise let Ampere and later use TF32.
/// workspaceOf(algo, &bytes) asks cuDNN for an algorithm's workspace.
template <typename Perf, typename WorkspaceOf>
const Perf *chooseAlgorithm(const Perf *perf, int returned, bool allowTf32,
                            cudnnConvolutionDescriptor_t conv,
                            WorkspaceOf workspaceOf, size_t &workspace) {
  constexpr size_t kMaxWorkspace = size_t(1) << 30;
  for (int i = 0; i < returned; ++i) {
    // ALLOW_CONVERSION may compute in FP16: more than TF32 permits.
    if (perf[i].status != CUDNN_STATUS_SUCCESS ||
        perf[i].memory > kMaxWorkspace ||
        perf[i].mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION ||
        (!allowTf32 && (perf[i].mathType == CUDNN_TENSOR_OP_MATH ||
                        isTransform(perf[i].algo) ||
                        perf[i].determinism == CUDNN_NON_DETERMINISTIC)))
      continue;
    cudnnMathType_t math = allowTf32 ? perf[i].mathType : CUDNN_FMA_MATH;
    if (cudnnSetConvolutionMathType(conv, math) != CUDNN_STATUS_SUCCESS ||
        workspaceOf(perf[i].algo, &workspace) != CUDNN_STATUS_SUCCESS ||
        workspace > kMaxWorkspace)
      continue;
    return &perf[i];
  }
  return nullptr;
}

/// Sets the conv descriptor shared by forward and transposed convs.
Status setConv(DnnDescriptors &d, const std::vector<int> &pad,
               const ConvAttrs &a, bool allowTf32) {
  std::vector<int> stride = spatial(a.stride, a.r),
                   dil = spatial(a.dilation, a.r);
  if (a.r == 1)
    stride[0] = dil[0] = 1;
  SHARDRT_CUDNN_TRY(cudnnCreateConvolutionDescriptor(&d.conv));
  SHARDRT_CUDNN_TRY(cudnnSetConvolutionNdDescriptor(
      d.conv, int(pad.size()), pad.data(), stride.data(), dil.data(),
      CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  SHARDRT_CUDNN_TRY(cudnnSetConvolutionGroupCount(d.conv, int(a.groups)));
  SHARDRT_CUDNN_TRY(cudnnSetConvolutionMathType(
      d.conv, allowTf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH));
  return Status();
}

Status setFilter(DnnDescriptors &d, const Shape &w) {
  std::vector<int> dims = dnnDims(w);
  SHARDRT_CUDNN_TRY(cudnnCreateFilterDescriptor(&d.w));
  SHARDRT_CUDNN_TRY(cudnnSetFilterNdDescriptor(
      d.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, int(dims.size()), dims.data()));
  return Status();
}

/// The (1, cout, 1...) bias of an output of `outDims`.
Status setBias(DnnDescriptors &d, const std::vector<int> &outDims) {
  std::vector<int> dims(outDims.size(), 1);
  dims[1] = outDims[1];
  return setTensor(d.bias, dims);
}

/// The rest of a conv-like step once its library call is chosen: the
/// temporary output (`tempElements`, 0 when the library writes y's region
/// at `yOffset` in place) leads the shared workspace and the algorithm's
/// `workspace` bytes follow it; each run computes into the output
/// (`compute(rc, out, algorithm scratch)`), adds the bias there, and crops
/// a temporary into y.
template <typename Compute>
StatusOr<RunFn>
finishConvStep(const fb::Instruction &inst, LibraryContext &lib,
               std::shared_ptr<DnnDescriptors> d, cudnnHandle_t handle,
               const std::vector<int> &outDims, int64_t tempElements,
               int64_t yOffset, const BoxCopyPlan &crop, size_t workspace,
               Compute compute) {
  bool inPlace = tempElements == 0;
  size_t tempBytes = (size_t(tempElements) * sizeof(float) + 255) / 256 * 256;
  lib.needWorkspace(tempBytes + workspace);
  uint32_t bi = numInputs(inst) == 3 ? inIdx(inst, 2) : kNoSlot;
  if (bi != kNoSlot)
    SHARDRT_RETURN_IF_ERROR(setBias(*d, outDims));
  uint32_t yi = outIdx(inst, 0);
  LibraryContext *libp = &lib;
  return RunFn([=](RunContext &rc) -> Status {
    char *scratch = static_cast<char *>(libp->workspace);
    float *out = inPlace ? slotPtr<float>(rc, yi) + yOffset
                         : reinterpret_cast<float *>(scratch);
    SHARDRT_RETURN_IF_ERROR(compute(rc, out, scratch + tempBytes));
    const float one = 1.0f;
    if (bi != kNoSlot)
      SHARDRT_CUDNN_TRY(cudnnAddTensor(
          handle, &one, d->bias, slotPtr<float>(rc, bi), &one, d->y, out));
    if (!inPlace)
      SHARDRT_CUDA_TRY(
          launchCopyBox(rc.slots[yi], out, crop, sizeof(float), libp->stream));
    return Status();
  });
}

/// A conv (over its whole output or a region of it) as a cuDNN conv with
/// symmetric padding over a view of x (ConvRegionPlan.h): the view's dims
/// and offset, the library output's dims, and where the region lies in it
/// and in y. cuDNN ranks (a 1-d conv gains a leading unit spatial dim).
struct ConvView {
  std::vector<int> xDims, outDims;  // library input view and output
  std::vector<int> pad;             // per spatial dim
  int64_t xOffset = 0, yOffset = 0; // elements from x's and y's starts
  bool inPlace = true;              // the library output is y's region
  // Artifact ranks: the region's extents, where it starts in y and in the
  // library output (a temporary unless inPlace).
  Shape box, yStart, outShape, outStart;
};
std::optional<ConvView> convView(const ConvAttrs &a, const Shape &x,
                                 const Shape &w, const Shape &y) {
  std::vector<ConvDimAttrs> dims;
  for (int d = 0; d < a.r; ++d) {
    size_t s = size_t(d) + 2;
    ConvDimAttrs c;
    c.in = x[s];
    c.kernel = w[s];
    c.stride = a.stride[size_t(d)];
    c.padLo = a.padLo[size_t(d)];
    c.dilation = a.dilation[size_t(d)];
    c.lo = a.regionLo.empty() ? 0 : a.regionLo[size_t(d)];
    c.hi = a.regionLo.empty() ? y[s] : a.regionHi[size_t(d)];
    dims.push_back(c);
  }
  ConvRegionPlan plan;
  if (!planConvRegion(dims, plan))
    return std::nullopt;
  ConvView v;
  v.inPlace = plan.inPlace;
  v.xDims = {int(x[0]), int(x[1])};
  v.outDims = {int(y[0]), int(y[1])};
  v.box = {y[0], y[1]};
  v.yStart = v.outStart = {0, 0};
  v.outShape = {y[0], y[1]};
  Shape xStart(x.size(), 0);
  for (int d = 0; d < a.r; ++d) {
    const ConvRegionDim &p = plan.dims[size_t(d)];
    xStart[size_t(d) + 2] = p.inBegin;
    v.xDims.push_back(int(p.inExtent));
    v.outDims.push_back(int(p.outExtent));
    v.pad.push_back(int(p.pad));
    v.box.push_back(dims[size_t(d)].hi - dims[size_t(d)].lo);
    v.yStart.push_back(dims[size_t(d)].lo);
    v.outShape.push_back(p.outExtent);
    v.outStart.push_back(p.skip);
  }
  if (a.r == 1) {
    v.xDims.insert(v.xDims.begin() + 2, 1);
    v.outDims.insert(v.outDims.begin() + 2, 1);
    v.pad.insert(v.pad.begin(), 0);
  }
  for (size_t d = 0; d < x.size(); ++d)
    v.xOffset = v.xOffset * x[d] + xStart[d];
  for (size_t d = 0; d < y.size(); ++d)
    v.yOffset = v.yOffset * y[d] + v.yStart[d];
  return v;
}

StatusOr<RunFn> prepareConv(const fb::Instruction &inst,
                            const PrepareContext &ctx, const ConvAttrs &a,
                            LibraryContext &lib) {
  const Shape &x = inSlot(inst, ctx, 0).shape, &w = inSlot(inst, ctx, 1).shape,
              &y = outSlot(inst, ctx, 0).shape;
  // The whole output or an interior or boundary part: a view into x
  // (strided descriptor) padded symmetrically, written into y's region in
  // place (strided descriptor) or into a temporary that is cropped.
  std::optional<ConvView> v = convView(a, x, w, y);
  if (!v)
    return RunFn();
  // The crop of the temporary into y's region, planned before anything
  // (the shared workspace) is reserved for a conv that may stay staged.
  BoxCopyPlan crop;
  if (!v->inPlace &&
      !planBoxCopy(BoxView{y.data(), v->yStart.data()},
                   BoxView{v->outShape.data(), v->outStart.data()},
                   v->box.data(), int(v->box.size()), crop))
    return RunFn();
  auto d = std::make_shared<DnnDescriptors>();
  std::vector<int> xWhole = dnnDims(x), yWhole = dnnDims(y);
  SHARDRT_RETURN_IF_ERROR(setTensor(d->x, v->xDims, &xWhole));
  SHARDRT_RETURN_IF_ERROR(
      setTensor(d->y, v->outDims, v->inPlace ? &yWhole : nullptr));
  SHARDRT_RETURN_IF_ERROR(setFilter(*d, w));
  SHARDRT_RETURN_IF_ERROR(setConv(*d, v->pad, a, lib.allowTf32));
  // The plan's output extents are cuDNN's formula; a disagreement would
  // write the wrong positions, so such a conv stays on the host.
  std::vector<int> expected(v->outDims.size());
  SHARDRT_CUDNN_OR_STAGE(cudnnGetConvolutionNdForwardOutputDim(
      d->conv, d->x, d->w, int(expected.size()), expected.data()));
  if (expected != v->outDims)
    return RunFn();
  SHARDRT_ASSIGN_OR_RETURN(cudnnHandle_t h, lib.cudnn());
  std::array<cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_COUNT>
      perf{};
  int returned = 0;
  SHARDRT_CUDNN_OR_STAGE(cudnnGetConvolutionForwardAlgorithm_v7(
      h, d->x, d->w, d->conv, d->y, int(perf.size()), &returned, perf.data()));
  size_t workspace = 0;
  const cudnnConvolutionFwdAlgoPerf_t *chosen = chooseAlgorithm(
      perf.data(), returned, lib.allowTf32, d->conv,
      [&](cudnnConvolutionFwdAlgo_t algo, size_t *bytes) {
        return cudnnGetConvolutionForwardWorkspaceSize(h, d->x, d->w, d->conv,
                                                       d->y, algo, bytes);
      },
      workspace);
  if (!chosen)
    return RunFn();
  cudnnConvolutionFwdAlgo_t algo = chosen->algo;
  uint32_t xi = inIdx(inst, 0), wi = inIdx(inst, 1);
  int64_t xOffset = v->xOffset;
  cudnnHandle_t handle = h;
  return finishConvStep(
      inst, lib, d, handle, v->outDims,
      v->inPlace ? 0 : numElements(v->outShape), v->yOffset, crop, workspace,
      [=](RunContext &rc, float *out, void *scratch) -> Status {
        const float one = 1.0f, zero = 0.0f;
        SHARDRT_CUDNN_TRY(cudnnConvolutionForward(
            handle, &one, d->x, slotPtr<float>(rc, xi) + xOffset, d->w,
            slotPtr<float>(rc, wi), d->conv, algo, scratch, workspace, &zero,
            d->y, out));
        return Status();
      });
}

/// A transposed conv as cuDNN's backward-data conv (the gradient of the
/// conv from y's shape to x's): with symmetric padding, straight into y
/// when its extents are the library's, else into a temporary that the
/// box-copy kernel crops (planConvTransposeDim).
StatusOr<RunFn> prepareConvTranspose(const fb::Instruction &inst,
                                     const PrepareContext &ctx,
                                     const ConvAttrs &a, LibraryContext &lib) {
  const Shape &x = inSlot(inst, ctx, 0).shape, &w = inSlot(inst, ctx, 1).shape,
              &y = outSlot(inst, ctx, 0).shape;
  Shape temp = {y[0], y[1]}, tempStart = {0, 0};
  std::vector<int> pad;
  bool inPlace = true;
  for (int d = 0; d < a.r; ++d) {
    size_t s = size_t(d) + 2;
    ConvTransposeDim dim;
    if (!planConvTransposeDim(x[s], w[s], a.stride[size_t(d)],
                              a.padLo[size_t(d)], a.dilation[size_t(d)], y[s],
                              dim) ||
        !fitsInt({dim.extent, dim.pad}))
      return RunFn();
    temp.push_back(dim.extent);
    tempStart.push_back(dim.skip);
    pad.push_back(int(dim.pad));
    inPlace = inPlace && dim.skip == 0 && dim.extent == y[s];
  }
  if (a.r == 1)
    pad.insert(pad.begin(), 0);
  BoxCopyPlan crop;
  Shape yStart(y.size(), 0);
  if (!inPlace &&
      (!allFitInt(temp) || !planBoxCopy(BoxView{y.data(), yStart.data()},
                                        BoxView{temp.data(), tempStart.data()},
                                        y.data(), int(y.size()), crop)))
    return RunFn();
  auto d = std::make_shared<DnnDescriptors>();
  // cuDNN's names: dy is x, dx is the (temporary) output.
  std::vector<int> outDims = dnnDims(inPlace ? y : temp);
  SHARDRT_RETURN_IF_ERROR(setTensor(d->x, dnnDims(x)));
  SHARDRT_RETURN_IF_ERROR(setTensor(d->y, outDims));
  SHARDRT_RETURN_IF_ERROR(setFilter(*d, w));
  SHARDRT_RETURN_IF_ERROR(setConv(*d, pad, a, lib.allowTf32));
  // The forward conv of the output must give back x's extents, or cuDNN
  // would read the positions differently; such a case stays on the host.
  std::vector<int> forward(outDims.size());
  SHARDRT_CUDNN_OR_STAGE(cudnnGetConvolutionNdForwardOutputDim(
      d->conv, d->y, d->w, int(forward.size()), forward.data()));
  if (forward != dnnDims(x))
    return RunFn();
  SHARDRT_ASSIGN_OR_RETURN(cudnnHandle_t h, lib.cudnn());
  std::array<cudnnConvolutionBwdDataAlgoPerf_t,
             CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT>
      perf{};
  int returned = 0;
  SHARDRT_CUDNN_OR_STAGE(cudnnGetConvolutionBackwardDataAlgorithm_v7(
      h, d->w, d->x, d->conv, d->y, int(perf.size()), &returned, perf.data()));
  size_t workspace = 0;
  const cudnnConvolutionBwdDataAlgoPerf_t *chosen = chooseAlgorithm(
      perf.data(), returned, lib.allowTf32, d->conv,
      [&](cudnnConvolutionBwdDataAlgo_t algo, size_t *bytes) {
        return cudnnGetConvolutionBackwardDataWorkspaceSize(
            h, d->w, d->x, d->conv, d->y, algo, bytes);
      },
      workspace);
  if (!chosen)
    return RunFn();
  cudnnConvolutionBwdDataAlgo_t algo = chosen->algo;
  uint32_t xi = inIdx(inst, 0), wi = inIdx(inst, 1);
  cudnnHandle_t handle = h;
  return finishConvStep(
      inst, lib, d, handle, outDims, inPlace ? 0 : numElements(temp), 0, crop,
      workspace, [=](RunContext &rc, float *out, void *scratch) -> Status {
        const float one = 1.0f, zero = 0.0f;
        SHARDRT_CUDNN_TRY(cudnnConvolutionBackwardData(
            handle, &one, d->w, slotPtr<float>(rc, wi), d->x,
            slotPtr<float>(rc, xi), d->conv, algo, scratch, workspace, &zero,
            d->y, out));
        return Status();
      });
}

} // namespace
#endif // SHARDRT_HAVE_CUDNN

StatusOr<RunFn> prepareDnnStep(const fb::Instruction &inst,
                               const PrepareContext &ctx, LibraryContext &lib) {
#ifdef SHARDRT_HAVE_CUDNN
  bool transposed = inst.opcode() == fb::Opcode::ConvTranspose;
  if (!transposed && inst.opcode() != fb::Opcode::Conv)
    return RunFn();
  if (!allFitInt(inSlot(inst, ctx, 0).shape) ||
      !allFitInt(inSlot(inst, ctx, 1).shape) ||
      !allFitInt(outSlot(inst, ctx, 0).shape))
    return RunFn(); // empty or huge tensors: the host handles them
  SHARDRT_ASSIGN_OR_RETURN(ConvStep step, decodeConv(inst, ctx));
  // cuDNN takes x in the conv's own type: a 16-bit x (which shardc emits
  // for the cpu target only) runs on the host.
  if (step.xType != cpu::ElemType::F32)
    return RunFn();
  ConvAttrs a = convAttrs(step);
  return transposed ? prepareConvTranspose(inst, ctx, a, lib)
                    : prepareConv(inst, ctx, a, lib);
#else
  (void)inst;
  (void)ctx;
  (void)lib;
#endif
  return RunFn();
}

#ifdef SHARDRT_HAVE_CUDNN
/// Max pooling without padding or dilation, and average pooling without
/// dilation or divisor override, with symmetric padding, whose windows all
/// fit the padded input (cuDNN divides by the whole window; PyTorch clips
/// a ceil-mode window to the padded extent).
StatusOr<RunFn> prepareDnnPool(const PoolStep &step, const Shape &x,
                               const Shape &y, LibraryContext &lib) {
  if (!allFitInt(x) || !allFitInt(y))
    return RunFn();
  const cpu::PoolParams &p = step.params;
  bool isMax = step.isMax;
  int r = p.rank;
  // The params keep only the dims pooled (rank of them, first).
  std::vector<int64_t> kernel(p.kernel, p.kernel + r),
      stride(p.stride, p.stride + r), padLo(p.padLo, p.padLo + r);
  for (int i = 0; i < r; ++i)
    if (p.dilation[i] != 1 || p.padLo[i] != p.padHi[i] ||
        (isMax && p.padLo[i] != 0) ||
        !fitsInt({kernel[i], stride[i], padLo[i]}) ||
        (y[size_t(i) + 2] - 1) * stride[i] + kernel[i] >
            x[size_t(i) + 2] + p.padLo[i] + p.padHi[i])
      return RunFn();
  if (p.divisorOverride != 0)
    return RunFn();
  auto d = std::make_shared<DnnDescriptors>();
  std::vector<int> xDims = dnnDims(x), yDims = dnnDims(y);
  SHARDRT_RETURN_IF_ERROR(setTensor(d->x, xDims));
  SHARDRT_RETURN_IF_ERROR(setTensor(d->y, yDims));
  std::vector<int> window = spatial(kernel, r), pad = spatial(padLo, r),
                   steps = spatial(stride, r);
  if (r == 1)
    window[0] = steps[0] = 1;
  cudnnPoolingMode_t mode =
      isMax ? CUDNN_POOLING_MAX
            : (p.countIncludePad ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                 : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING);
  SHARDRT_CUDNN_TRY(cudnnCreatePoolingDescriptor(&d->pool));
  SHARDRT_CUDNN_TRY(cudnnSetPoolingNdDescriptor(
      d->pool, mode, CUDNN_PROPAGATE_NAN, int(window.size()), window.data(),
      pad.data(), steps.data()));
  std::vector<int> expected(yDims.size());
  SHARDRT_CUDNN_TRY(cudnnGetPoolingNdForwardOutputDim(
      d->pool, d->x, int(expected.size()), expected.data()));
  if (expected != yDims)
    return RunFn(); // ceil mode: our kernel handles the extra window
  SHARDRT_ASSIGN_OR_RETURN(cudnnHandle_t handle, lib.cudnn());
  uint32_t xi = step.x, yi = step.y;
  return RunFn([=](RunContext &rc) -> Status {
    const float one = 1.0f, zero = 0.0f;
    SHARDRT_CUDNN_TRY(cudnnPoolingForward(handle, d->pool, &one, d->x,
                                          slotPtr<float>(rc, xi), &zero, d->y,
                                          slotPtr<float>(rc, yi)));
    return Status();
  });
}

#else
StatusOr<RunFn> prepareDnnPool(const PoolStep &, const Shape &, const Shape &,
                               LibraryContext &) {
  return RunFn();
}
#endif // SHARDRT_HAVE_CUDNN

} // namespace shardrt::exec::cuda
