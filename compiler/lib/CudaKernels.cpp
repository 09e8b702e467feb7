//===- CudaKernels.cpp - CUDA C++ for fused regions -----------------------===//
//
// Each scl.fused_elementwise becomes one grid-stride CUDA kernel over the
// output's elements; each scl.fused_reduction one kernel over (output or
// tile of 32 outputs, chunk) units whose partials the last block of an
// output combines (ReductionTiling.h says which unit). Shapes are
// static, so every offset is a fixed sum of constant div/mod terms (FlatIndex:
// contiguous dims share one, the outermost needs no modulus). The scalar
// functions follow the runtime's CPU kernels (PyTorch semantics: relu, maximum
// and minimum propagate NaN). CUDA C++ rather than PTX through MLIR's NVVM
// path: the source is readable in
// `--emit=kernels`, nvcc compiles it on its own, and the same text serves
// sm_80 and sm_90.
//
//===----------------------------------------------------------------------===//

#include "FusedBuffers.h"

#include "shardc/Compiler/Compiler.h"
#include "shardc/Compiler/FlatIndex.h"
#include "shardc/Dialect/ScLocal/ScLocal.h"
#include "shardrt/artifact/ReductionTiling.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace shardc {
namespace {

/// "bf16" or "f16" for a buffer of that type.
std::optional<StringRef> halfFloatName(Value buffer) {
  Type element = cast<MemRefType>(buffer.getType()).getElementType();
  if (element.isBF16())
    return StringRef("bf16");
  if (element.isF16())
    return StringRef("f16");
  return std::nullopt;
}

/// The CUDA expression of `fn` on its operands' names (bools are 1.0f and
/// 0.0f, as scl.scalar holds them).
std::string scalarExpr(StringRef fn, ArrayRef<std::string> operands) {
  const std::string &a = operands[0];
  const std::string &b = operands.size() > 1 ? operands[1] : a;
  // Functions that are one CUDA math-library call.
  static constexpr std::pair<const char *, const char *> kCalls[] = {
#define SHARDRT_UNARY_FUNCTION(name, kind, call) {#name, call},
#define SHARDRT_BINARY_FUNCTION(name, kind, call) {#name, call},
#include "shardrt/artifact/ElementwiseFunctions.def"
  };
  for (auto [op, call] : kCalls)
    if (call && fn == op)
      return std::string(call) + "(" + a +
             (operands.size() > 1 ? ", " + b : std::string()) + ")";
  if (fn == "neg")
    return "-" + a;
  if (fn == "sigmoid")
    return "1.0f / (1.0f + expf(-" + a + "))";
  if (fn == "relu")
    return "(" + a + " > 0.0f || " + a + " != " + a + ") ? " + a + " : 0.0f";
  if (fn == "silu")
    return a + " / (1.0f + expf(-" + a + "))";
  if (fn == "gelu")
    return "0.5f * " + a + " * (1.0f + erff(" + a + " * 0.70710678118654752f))";
  if (fn == "gelu_tanh")
    return "0.5f * " + a + " * (1.0f + tanhf(0.7978845608028654f * (" + a +
           " + 0.044715f * " + a + " * " + a + " * " + a + ")))";
  if (fn == "add")
    return a + " + " + b;
  if (fn == "sub")
    return a + " - " + b;
  if (fn == "mul")
    return a + " * " + b;
  if (fn == "div")
    return a + " / " + b;
  // The CPU kernel's select: NaN from either side, and of two equal values
  // (+0 and -0) the second; fmaxf/fminf leave that zero's sign open.
  if (fn == "maximum" || fn == "minimum")
    return "(" + a + (fn == "maximum" ? " > " : " < ") + b + " || " + a +
           " != " + a + ") ? " + a + " : " + b;
  if (fn == "reciprocal")
    return "1.0f / " + a;
  if (fn == "remainder") // ATen's: fmod moved into the divisor's sign
    return "shardc_remainder(" + a + ", " + b + ")";
  // Comparisons are false on NaN, except ne (C's rules are IEEE's).
  std::string predicate = llvm::StringSwitch<std::string>(fn)
                              .Case("eq", "==")
                              .Case("ne", "!=")
                              .Case("lt", "<")
                              .Case("le", "<=")
                              .Case("gt", ">")
                              .Case("ge", ">=")
                              .Default("");
  if (!predicate.empty())
    return "(" + a + " " + predicate + " " + b + ") ? 1.0f : 0.0f";
  if (fn == "bool")
    return "(" + a + " != 0.0f) ? 1.0f : 0.0f";
  if (fn == "bf16" || fn == "f16") // rounds to the 16-bit type's values
    return "shardc_" + fn.str() + "_to_float(shardc_float_to_" + fn.str() +
           "(" + a + "))";
  if (fn == "select")
    return "(" + a + " != 0.0f) ? " + b + " : " + operands[2];
  return "";
}

/// Declares a0.. (each input read at flat index `i` of `domain`) and one
/// v<k> per scl.scalar of `body`; returns the yielded value's name.
std::string emitBody(Block &body, ValueRange ins, ArrayRef<int64_t> domain,
                     bool readOnly, StringRef indent, llvm::raw_ostream &os) {
  llvm::DenseMap<Value, std::string> names;
  std::vector<int64_t> onto = domain.vec();
  for (auto [k, in] : llvm::enumerate(ins)) {
    std::string v = "a" + std::to_string(k);
    names[body.getArgument(k)] = v;
    std::string at =
        "in" + std::to_string(k) + " + " +
        print(broadcastIndex(cast<MemRefType>(in.getType()).getShape().vec(),
                             onto),
              "i");
    std::string load = readOnly ? "__ldg(" + at + ")" : "*(" + at + ")";
    // A bool reads as 1.0f or 0.0f, as scl.scalar holds it; a 16-bit float
    // as its value.
    if (std::optional<StringRef> half = halfFloatName(in))
      load = "shardc_" + half->str() + "_to_float(" + load + ")";
    else if (!isF32(in))
      load = "(" + load + " != 0) ? 1.0f : 0.0f";
    os << indent << "const float " << v << " = " << load << ";\n";
  }
  int64_t next = 0;
  for (Operation &o : body.without_terminator()) {
    auto scalar = cast<scl::ScalarOp>(o);
    std::string v = "v" + std::to_string(next++);
    SmallVector<std::string, 3> operands;
    for (Value operand : scalar.getOperands())
      operands.push_back(names.lookup(operand));
    os << indent << "const float " << v << " = "
       << scalarExpr(scalar.getFn(), operands) << ";\n";
    names[scalar.getResult()] = v;
  }
  return names.lookup(cast<scl::YieldOp>(body.back()).getValue());
}

/// The C type of a buffer's elements: bools are bytes holding 0 or 1,
/// bf16 and f16 their bits.
StringRef elementType(Value buffer) {
  if (isF32(buffer))
    return "float";
  return halfFloatName(buffer) ? "unsigned short" : "unsigned char";
}

/// `extra` follows the output parameter (a reduction's scratch). The
/// inputs and the output are `__restrict__` unless `aliased`.
void emitSignature(Operation *op, ValueRange ins, Value out, bool aliased,
                   const std::string &name, llvm::raw_ostream &os,
                   StringRef extra = "") {
  StringRef restrict = aliased ? "" : "__restrict__ ";
  os << "// " << op->getLoc() << "\n";
  if (aliased)
    os << "// writes a buffer it reads: no __restrict__, no __ldg\n";
  os << "extern \"C\" __global__ void __launch_bounds__(256)\n" << name << "(";
  for (auto [k, in] : llvm::enumerate(ins))
    os << "const " << elementType(in) << " *" << restrict << "in" << k << ", ";
  os << elementType(out) << " *" << restrict << "out" << extra << ") {\n";
}

void emitKernel(scl::FusedElementwiseOp fused, const std::string &name,
                llvm::raw_ostream &os) {
  ArrayRef<int64_t> outShape = fused.getOutput().getType().getShape();
  int64_t n = fused.getOutput().getType().getNumElements();
  bool aliased = scl::writesAnInput(fused.getIns(), fused.getOutput());
  emitSignature(fused, fused.getIns(), fused.getOutput(), aliased, name, os);
  os << "  const long long n = " << n << "LL;\n";
  os << "  for (long long i = blockIdx.x * (long long)blockDim.x + "
        "threadIdx.x; i < n;\n"
     << "       i += (long long)gridDim.x * blockDim.x) {\n";
  std::string result = emitBody(fused.getBody().front(), fused.getIns(),
                                outShape, !aliased, "    ", os);
  if (isF32(fused.getOutput()))
    os << "    out[i] = " << result << ";\n";
  else if (std::optional<StringRef> half = halfFloatName(fused.getOutput()))
    os << "    out[i] = shardc_float_to_" << *half << "(" << result << ");\n";
  else // a bool stores whether the value is not 0 (NaN included)
    os << "    out[i] = " << result << " != 0.0f;\n";
  os << "  }\n}\n\n";
}

/// What a reduction kernel combines with: its kind's operation on doubles
/// `x` and `y`, its identity, and the suffix that finishes a result.
struct ReductionOps {
  std::string combine, identity, finish;
};

ReductionOps reductionOps(StringRef kind, int64_t count) {
  bool sum = kind == "sum" || kind == "mean";
  ReductionOps ops;
  ops.combine = sum ? "x + y"
                    : std::string("(x != x || y != y) ? x + y : ") +
                          (kind == "amax" ? "fmax(x, y)" : "fmin(x, y)");
  ops.identity = sum ? "0.0" : kind == "amax" ? "-INFINITY" : "INFINITY";
  // The mean of nothing is NaN (0/0), as torch.mean's; written so, nvcc
  // does not warn of a division by the constant zero.
  ops.finish = kind != "mean" ? ""
               : count == 0   ? " * (double)NAN"
                              : " / (double)count";
  return ops;
}

/// The loop body that folds reduced element `r` of the output at `base`
/// into `acc`.
void emitAccumulate(scl::FusedReductionOp fused, const ReductionOps &ops,
                    StringRef indent, llvm::raw_ostream &os) {
  ArrayRef<int64_t> domain = fused.getDomain();
  // (void)i: a body reading only fixed elements leaves i unused.
  os << indent << "const long long i = base + "
     << print(subspaceIndex(domain.vec(), fused.getDims().vec()), "r") << ";\n";
  os << indent << "(void)i;\n";
  std::string result = emitBody(fused.getBody().front(), fused.getIns(), domain,
                                /*readOnly=*/true, indent, os);
  os << indent << "const double x = acc, y = (double)" << result << ";\n";
  os << indent << "acc = " << ops.combine << ";\n";
}

/// Writes output `o`'s result `x` (its chunk `c`'s partial): with one chunk
/// at once; with more, the partial is published and the last of the
/// output's chunks to arrive combines them all in chunk order (bitwise the
/// same result whatever the schedule) and resets the output's counter for
/// the next launch.
void emitPublish(const ReductionOps &ops, StringRef indent,
                 llvm::raw_ostream &os) {
  os << indent << "bool last = chunks == 1;\n";
  os << indent << "if (chunks > 1) {\n";
  os << indent << "  partials[o * chunks + c] = x;\n";
  os << indent << "  __threadfence();\n";
  os << indent
     << "  last = atomicAdd(arrivals + o, 1u) == (unsigned)(chunks - 1);\n";
  os << indent << "}\n";
  os << indent << "if (last && chunks > 1) {\n";
  os << indent << "  __threadfence();\n";
  os << indent << "  x = __ldcg(partials + o * chunks);\n";
  os << indent << "  for (long long k = 1; k < chunks; ++k) {\n";
  os << indent << "    const double y = __ldcg(partials + o * chunks + k);\n";
  os << indent << "    x = " << ops.combine << ";\n";
  os << indent << "  }\n";
  os << indent << "  arrivals[o] = 0u;\n";
  os << indent << "}\n";
  os << indent << "if (last)\n";
  os << indent << "  out[o] = (float)(x" << ops.finish << ");\n";
}

/// RowPerBlock (ReductionTiling.h): block u reduces chunk c = u % chunks of
/// output o = u / chunks, its threads striding over the chunk's elements
/// and combining their partials in shared memory.
void emitRowReduction(scl::FusedReductionOp fused, const ReductionOps &ops,
                      ArrayRef<int64_t> kept, llvm::raw_ostream &os) {
  os << "  __shared__ double partial[256];\n";
  os << "  for (long long u = blockIdx.x; u < outputs * chunks; u += "
        "gridDim.x) {\n";
  os << "    const long long o = u / chunks, c = u % chunks;\n";
  os << "    const long long base = "
     << print(subspaceIndex(fused.getDomain().vec(), kept.vec()), "o") << ";\n";
  os << "    const long long end = c * chunk + chunk < count ? c * chunk + "
        "chunk : count;\n";
  os << "    double acc = " << ops.identity << ";\n";
  os << "    for (long long r = c * chunk + threadIdx.x; r < end; r += "
        "blockDim.x) {\n";
  emitAccumulate(fused, ops, "      ", os);
  os << "    }\n";
  os << "    partial[threadIdx.x] = acc;\n";
  os << "    __syncthreads();\n";
  os << "    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {\n";
  os << "      if (threadIdx.x < s) {\n";
  os << "        const double x = partial[threadIdx.x], y = "
        "partial[threadIdx.x + s];\n";
  os << "        partial[threadIdx.x] = " << ops.combine << ";\n";
  os << "      }\n";
  os << "      __syncthreads();\n";
  os << "    }\n";
  os << "    if (threadIdx.x == 0) {\n";
  os << "      double x = partial[0];\n";
  emitPublish(ops, "      ", os);
  os << "    }\n";
  os << "    __syncthreads();\n";
  os << "  }\n";
}

/// OutputTiles (ReductionTiling.h): block u takes chunk c = u % chunks of
/// the 32 outputs from (u / chunks) * 32, one a lane of each warp (so a warp
/// reads 32 neighbouring elements at once); its 8 warps split the chunk's
/// elements, each folding every 8th in order, and lane k of warp 0 combines
/// the 8 partials of its output in warp order.
void emitTiledReduction(scl::FusedReductionOp fused, const ReductionOps &ops,
                        ArrayRef<int64_t> kept, llvm::raw_ostream &os) {
  using namespace shardrt::artifact;
  os << "  const long long tiles = (outputs + " << kOutputTile - 1 << ") / "
     << kOutputTile << ";\n";
  os << "  const unsigned lane = threadIdx.x % " << kOutputTile
     << "u, row = threadIdx.x / " << kOutputTile << "u;\n";
  os << "  __shared__ double partial[" << kReductionLanes << "][" << kOutputTile
     << "];\n";
  os << "  for (long long u = blockIdx.x; u < tiles * chunks; u += "
        "gridDim.x) {\n";
  os << "    const long long o = u / chunks * " << kOutputTile
     << " + lane, c = u % chunks;\n";
  os << "    const long long end = c * chunk + chunk < count ? c * chunk + "
        "chunk : count;\n";
  os << "    double acc = " << ops.identity << ";\n";
  os << "    if (o < outputs) {\n";
  os << "      const long long base = "
     << print(subspaceIndex(fused.getDomain().vec(), kept.vec()), "o") << ";\n";
  os << "      for (long long r = c * chunk + row; r < end; r += "
     << kReductionLanes << ") {\n";
  emitAccumulate(fused, ops, "        ", os);
  os << "      }\n";
  os << "    }\n";
  os << "    partial[row][lane] = acc;\n";
  os << "    __syncthreads();\n";
  os << "    if (row == 0 && o < outputs) {\n";
  os << "      double x = partial[0][lane];\n";
  os << "      for (int k = 1; k < " << kReductionLanes << "; ++k) {\n";
  os << "        const double y = partial[k][lane];\n";
  os << "        x = " << ops.combine << ";\n";
  os << "      }\n";
  emitPublish(ops, "      ", os);
  os << "    }\n";
  os << "    __syncthreads();\n";
  os << "  }\n";
}

/// A reduction kernel takes, after its output, `partials` (outputs x chunks
/// doubles), `arrivals` (one zeroed counter per output) and `chunks`, and
/// maps its threads as ReductionTiling.h says. Sums accumulate in double,
/// like the CPU kernels; amax/amin propagate NaN.
void emitReductionKernel(scl::FusedReductionOp fused, const std::string &name,
                         llvm::raw_ostream &os) {
  ArrayRef<int64_t> domain = fused.getDomain(), dims = fused.getDims();
  std::vector<int64_t> kept;
  std::vector<bool> reduced(domain.size(), false);
  int64_t outputs = 1, count = 1;
  for (int64_t d = 0; d < int64_t(domain.size()); ++d) {
    reduced[d] = llvm::is_contained(dims, d);
    if (!reduced[d])
      kept.push_back(d);
    (reduced[d] ? count : outputs) *= domain[d];
  }
  ReductionOps ops = reductionOps(fused.getKind(), count);
  // The verifier keeps a fused reduction from writing an input it reads.
  emitSignature(fused, fused.getIns(), fused.getOutput(), /*aliased=*/false,
                name, os,
                ", double *__restrict__ partials,\n"
                "    unsigned int *__restrict__ arrivals, long long chunks");
  os << "  const long long outputs = " << outputs << "LL, count = " << count
     << "LL;\n";
  os << "  const long long chunk = (count + chunks - 1) / chunks;\n";
  if (shardrt::artifact::reductionTiling(domain.vec(), reduced) ==
      shardrt::artifact::ReductionTiling::OutputTiles)
    emitTiledReduction(fused, ops, kept, os);
  else
    emitRowReduction(fused, ops, kept, os);
  os << "}\n\n";
}

} // namespace

std::string fusedKernelName(StringRef function, int64_t k) {
  // MLIR symbols may be any string (@"my-net.v2", @"9lives"); C
  // identifiers may not. Other bytes become _XX (hex), and a name that would
  // start with a digit or an underscore (reserved at file scope) gains a
  // leading 'k'. The rank classes of one module share their entry's name
  // and differ in their _class<k> suffixes, which stay as they are, so their
  // kernels' names stay distinct.
  std::string name;
  for (char c : function) {
    if (llvm::isAlnum(c) || c == '_') {
      name += c;
      continue;
    }
    name += '_';
    name += llvm::hexdigit(uint8_t(c) >> 4, /*LowerCase=*/true);
    name += llvm::hexdigit(uint8_t(c) & 15, /*LowerCase=*/true);
  }
  if (name.empty() || llvm::isDigit(name[0]) || name[0] == '_')
    name.insert(name.begin(), 'k');
  return name + "_fused" + std::to_string(k);
}

bool writesNoElement(Operation *fused) {
  Value out = isa<scl::FusedElementwiseOp>(fused)
                  ? cast<scl::FusedElementwiseOp>(fused).getOutput()
                  : cast<scl::FusedReductionOp>(fused).getOutput();
  return cast<MemRefType>(out.getType()).getNumElements() == 0;
}

/// A generated kernel's name and parameters, for its host launcher.
struct KernelSignature {
  std::string name;
  SmallVector<StringRef> inputTypes; ///< elementType of each input
  StringRef outputType;
  bool reduction;
};

KernelSignature signatureOf(std::string name, ValueRange ins, Value out,
                            bool reduction) {
  KernelSignature k{std::move(name), {}, elementType(out), reduction};
  for (Value in : ins)
    k.inputTypes.push_back(elementType(in));
  return k;
}

/// Under SHARDRT_HOSTCUDA (the host build of runtime/engine/test/hostcuda),
/// each kernel's launcher `<name>__host` takes the parameters as
/// cuLaunchKernel passes them, so the CUDA backend runs on the host through
/// the driver API's stand-in; nvcc never sees it.
void emitHostLaunchers(ArrayRef<KernelSignature> kernels,
                       llvm::raw_ostream &os) {
  os << "#ifdef SHARDRT_HOSTCUDA\n";
  for (const KernelSignature &k : kernels) {
    os << "extern \"C\" void " << k.name
       << "__host(void **p, unsigned grid, unsigned threads,\n"
       << "    cudaStream_t stream) {\n"
       << "  SHARDRT_HOSTCUDA_LAUNCH(" << k.name << ", grid, threads, stream)(";
    size_t at = 0;
    // Each parameter read through a pointer to its type.
    auto param = [&](StringRef pointerToType) {
      os << (at ? ", " : "") << "*(" << pointerToType << ")p[" << at << "]";
      ++at;
    };
    for (StringRef type : k.inputTypes)
      param(("const " + type + " **").str());
    param((k.outputType + " **").str());
    if (k.reduction) {
      param("double **");
      param("unsigned int **");
      param("long long *");
    }
    os << ");\n}\n";
  }
  os << "#endif\n";
}

/// The bf16 and f16 conversions the fused kernels use (the runtime's
/// cpu/HalfFloats.h algorithms: widening exact, narrowing to nearest even,
/// NaN kept quiet), each only where used: nvcc warns of unused ones.
void emitHalfFloatHelpers(ModuleOp module, llvm::raw_ostream &os) {
  llvm::StringSet<> widen, narrow; // "bf16" / "f16"
  auto note = [&](Value buffer, llvm::StringSet<> &set) {
    if (std::optional<StringRef> half = halfFloatName(buffer))
      set.insert(*half);
  };
  module.walk([&](Operation *op) {
    if (auto fused = dyn_cast<scl::FusedElementwiseOp>(op)) {
      for (Value in : fused.getIns())
        note(in, widen);
      note(fused.getOutput(), narrow);
    } else if (auto fused = dyn_cast<scl::FusedReductionOp>(op)) {
      for (Value in : fused.getIns())
        note(in, widen);
    } else if (auto s = dyn_cast<scl::ScalarOp>(op)) {
      if (s.getFn() == "bf16" || s.getFn() == "f16")
        widen.insert(s.getFn()), narrow.insert(s.getFn());
    }
  });
  if (widen.empty() && narrow.empty())
    return;
  os << "#include <string.h>\n\n";
  if (!narrow.empty())
    os << "static __device__ __forceinline__ unsigned int shardc_bits(float "
          "f) {\n"
       << "  unsigned int b;\n  memcpy(&b, &f, 4);\n  return b;\n}\n";
  if (!widen.empty())
    os << "static __device__ __forceinline__ float shardc_float(unsigned int "
          "b) {\n"
       << "  float f;\n  memcpy(&f, &b, 4);\n  return f;\n}\n";
  if (widen.contains("bf16"))
    os << "static __device__ __forceinline__ float "
          "shardc_bf16_to_float(unsigned short h) {\n"
       << "  return shardc_float((unsigned int)h << 16);\n}\n";
  if (narrow.contains("bf16"))
    os << "// Nearest even: add 0x7fff plus the kept part's lowest bit.\n"
       << "static __device__ __forceinline__ unsigned short "
          "shardc_float_to_bf16(float f) {\n"
       << "  unsigned int b = shardc_bits(f);\n"
       << "  if ((b & 0x7fffffffu) > 0x7f800000u)\n"
       << "    return (unsigned short)((b >> 16) | 0x0040u);\n"
       << "  b += 0x7fffu + ((b >> 16) & 1u);\n"
       << "  return (unsigned short)(b >> 16);\n}\n";
  if (widen.contains("f16"))
    os << "static __device__ __forceinline__ float "
          "shardc_f16_to_float(unsigned short h) {\n"
       << "  unsigned int sign = (unsigned int)(h & 0x8000u) << 16;\n"
       << "  unsigned int e = (h >> 10) & 0x1fu, m = h & 0x3ffu;\n"
       << "  if (e == 0x1fu)\n"
       << "    return shardc_float(sign | 0x7f800000u | (m << 13));\n"
       << "  if (e == 0u) {\n"
       << "    float v = (float)m * (1.0f / 16777216.0f);\n"
       << "    return sign ? -v : v;\n  }\n"
       << "  return shardc_float(sign | ((e + 112u) << 23) | (m << 13));\n}\n";
  if (narrow.contains("f16"))
    os << "static __device__ __forceinline__ unsigned short "
          "shardc_float_to_f16(float f) {\n"
       << "  unsigned int b = shardc_bits(f);\n"
       << "  unsigned short sign = (unsigned short)((b >> 16) & 0x8000u);\n"
       << "  unsigned int x = b & 0x7fffffffu;\n"
       << "  if (x > 0x7f800000u)\n"
       << "    return (unsigned short)(sign | 0x7e00u | ((x >> 13) & "
          "0x3ffu));\n"
       << "  if (x >= 0x477ff000u)\n"
       << "    return (unsigned short)(sign | 0x7c00u);\n"
       << "  if (x >= 0x38800000u) {\n"
       << "    x -= 112u << 23;\n"
       << "    x += 0x0fffu + ((x >> 13) & 1u);\n"
       << "    return (unsigned short)(sign | (x >> 13));\n  }\n"
       << "  if (x < 0x33000000u)\n    return sign;\n"
       << "  unsigned int shift = 126u - (x >> 23);\n"
       << "  unsigned int s = (x & 0x7fffffu) | 0x800000u;\n"
       << "  unsigned int q = s >> shift, rest = s & ((1u << shift) - 1u);\n"
       << "  unsigned int halfway = 1u << (shift - 1u);\n"
       << "  if (rest > halfway || (rest == halfway && (q & 1u)))\n"
       << "    ++q;\n"
       << "  return (unsigned short)(sign | q);\n}\n";
  os << "\n";
}

std::string cudaKernelSource(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// Generated by shardc: one kernel per fused region.\n"
     << "// Launch with any grid (grid-stride loops), 256 threads a block;\n"
     << "// a reduction kernel also takes per-output partials and zeroed\n"
     << "// arrival counters, and how many chunks split each output.\n"
     << "#include <cuda_runtime.h>\n#include <math.h>\n\n";
  // A helper only where a body uses it (nvcc warns of unused ones).
  bool remainder = false;
  module.walk([&](scl::ScalarOp s) { remainder |= s.getFn() == "remainder"; });
  if (remainder)
    os << "// torch.remainder: fmod moved into the divisor's sign (ATen's).\n"
       << "static __device__ __forceinline__ float shardc_remainder(float a, "
          "float b) {\n"
       << "  float r = fmodf(a, b);\n"
       << "  return r != 0.0f && (b < 0.0f) != (r < 0.0f) ? r + b : r;\n"
       << "}\n\n";
  emitHalfFloatHelpers(module, os);
  std::vector<KernelSignature> kernels;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (!f->hasAttr(scl::SclDialect::kRanksAttrName))
      continue;
    // One counter for both kinds, in program order: the artifact writer
    // names the k-th fused instruction of a class the same way.
    int64_t k = 0;
    f.walk([&](Operation *op) {
      if (!isa<scl::FusedElementwiseOp, scl::FusedReductionOp>(op))
        return;
      // An empty shard's region runs nothing; its number stays taken.
      if (writesNoElement(op)) {
        ++k;
        return;
      }
      if (auto fused = dyn_cast<scl::FusedElementwiseOp>(op)) {
        std::string name = fusedKernelName(f.getName(), k++);
        emitKernel(fused, name, os);
        kernels.push_back(
            signatureOf(name, fused.getIns(), fused.getOutput(), false));
      } else if (auto fused = dyn_cast<scl::FusedReductionOp>(op)) {
        std::string name = fusedKernelName(f.getName(), k++);
        emitReductionKernel(fused, name, os);
        kernels.push_back(
            signatureOf(name, fused.getIns(), fused.getOutput(), true));
      }
    });
  }
  emitHostLaunchers(kernels, os);
  return text;
}

} // namespace shardc
