//===- CudaKernels.cpp - CUDA C++ for fused elementwise regions -----------===//
//
// Each scl.fused_elementwise becomes one grid-stride CUDA kernel over the
// output's elements. Shapes are static, so every broadcast input's offset
// is a fixed sum of (index / inner) % size * stride terms and nvcc folds the
// constants. The scalar functions follow the runtime's CPU kernels
// (PyTorch semantics: relu, maximum and minimum propagate NaN). CUDA C++
// rather than PTX through MLIR's NVVM path: the source is readable in
// `--emit=kernels`, nvcc compiles it on its own, and the same text serves
// sm_80 and sm_90.
//
//===----------------------------------------------------------------------===//

#include "shardc/Compiler/Compiler.h"
#include "shardc/Dialect/ScLocal/ScLocal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace shardc {
namespace {

/// The CUDA expression of `fn` on operands `a` (and `b`).
std::string scalarExpr(StringRef fn, const std::string &a,
                       const std::string &b) {
  auto call = [&](const char *f) { return std::string(f) + "(" + a + ")"; };
  if (fn == "neg")
    return "-" + a;
  if (fn == "abs")
    return call("fabsf");
  if (fn == "exp")
    return call("expf");
  if (fn == "log")
    return call("logf");
  if (fn == "sqrt")
    return call("sqrtf");
  if (fn == "rsqrt")
    return call("rsqrtf");
  if (fn == "tanh")
    return call("tanhf");
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
  if (fn == "maximum" || fn == "minimum")
    return "(" + a + " != " + a + " || " + b + " != " + b + ") ? " + a + " + " +
           b + " : " + (fn == "maximum" ? "fmaxf(" : "fminf(") + a + ", " + b +
           ")";
  if (fn == "pow")
    return "powf(" + a + ", " + b + ")";
  return "";
}

/// The element offset of an input of shape `in` read at output flat index
/// `i` of shape `out` (numpy broadcasting).
std::string inputOffset(ArrayRef<int64_t> in, ArrayRef<int64_t> out) {
  SmallVector<int64_t> padded(out.size() - in.size(), 1);
  padded.append(in.begin(), in.end());
  if (ArrayRef<int64_t>(padded) == out)
    return "i";
  std::string expr;
  int64_t inner = 1, stride = 1;
  for (size_t d = out.size(); d-- > 0;) {
    if (padded[d] != 1) {
      std::string term = "(i / " + std::to_string(inner) + "LL % " +
                         std::to_string(out[d]) + "LL)";
      if (stride != 1)
        term += " * " + std::to_string(stride) + "LL";
      expr = expr.empty() ? term : term + " + " + expr;
    }
    inner *= out[d];
    stride *= padded[d];
  }
  return expr.empty() ? "0" : expr;
}

void emitKernel(scl::FusedElementwiseOp fused, const std::string &name,
                llvm::raw_ostream &os) {
  ArrayRef<int64_t> outShape = fused.getOutput().getType().getShape();
  int64_t n = fused.getOutput().getType().getNumElements();
  os << "// " << fused->getLoc() << "\n";
  os << "extern \"C\" __global__ void __launch_bounds__(256)\n" << name << "(";
  for (size_t k = 0; k < fused.getIns().size(); ++k)
    os << "const float *__restrict__ in" << k << ", ";
  os << "float *__restrict__ out) {\n";
  os << "  const long long n = " << n << "LL;\n";
  os << "  for (long long i = blockIdx.x * (long long)blockDim.x + "
        "threadIdx.x; i < n;\n"
     << "       i += (long long)gridDim.x * blockDim.x) {\n";
  Block &body = fused.getBody().front();
  llvm::DenseMap<Value, std::string> names;
  for (auto [k, in] : llvm::enumerate(fused.getIns())) {
    std::string v = "a" + std::to_string(k);
    names[body.getArgument(k)] = v;
    os << "    const float " << v << " = __ldg(in" << k << " + "
       << inputOffset(cast<MemRefType>(in.getType()).getShape(), outShape)
       << ");\n";
  }
  int64_t next = 0;
  for (Operation &o : body.without_terminator()) {
    auto scalar = cast<scl::ScalarOp>(o);
    std::string v = "v" + std::to_string(next++);
    std::string a = names.lookup(scalar.getOperands()[0]);
    std::string b = scalar.getOperands().size() > 1
                        ? names.lookup(scalar.getOperands()[1])
                        : std::string();
    os << "    const float " << v << " = " << scalarExpr(scalar.getFn(), a, b)
       << ";\n";
    names[scalar.getResult()] = v;
  }
  os << "    out[i] = "
     << names.lookup(cast<scl::YieldOp>(body.back()).getValue()) << ";\n";
  os << "  }\n}\n\n";
}

} // namespace

std::string fusedKernelName(StringRef function, int64_t k) {
  return function.str() + "_fused" + std::to_string(k);
}

std::string cudaKernelSource(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// Generated by shardc: one kernel per fused elementwise region.\n"
     << "// Launch with any grid (grid-stride loops), 256 threads a block.\n"
     << "#include <cuda_runtime.h>\n#include <math.h>\n\n";
  for (auto f : module.getOps<func::FuncOp>()) {
    if (!f->hasAttr(scl::SclDialect::kRanksAttrName))
      continue;
    int64_t k = 0;
    f.walk([&](scl::FusedElementwiseOp fused) {
      emitKernel(fused, fusedKernelName(f.getName(), k++), os);
    });
  }
  return text;
}

} // namespace shardc
