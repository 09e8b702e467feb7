//===- shardc.cpp - The shardc compiler driver ----------------------------===//
//
// shardc model.mlir -o model.shardbin [--target=cpu|cuda]
//        [--emit=sharded|partitioned|plan|kernels] [-O0..-O3] [--timing]
//        [--unpartitioned] [--cuda-arch=sm_80,sm_90] [--nvcc=<path>]
//
//===----------------------------------------------------------------------===//

#include "Nvcc.h"

#include "shardc/Compiler/Compiler.h"
#include "shardc/Dialect/Sc/ScDialect.h"
#include "shardc/Dialect/ScLocal/ScLocal.h"
#include "shardrt/Engine.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

using namespace mlir;
namespace cl = llvm::cl;

namespace {

/// Drops InferTypeOpInterface's "failed to infer returned types" where the
/// op's own inference has just reported why at the same location: the
/// follow-up names nothing new, and a user should see one error per fault.
/// Registered after a SourceMgrDiagnosticHandler, it sees each diagnostic
/// first and passes on the rest.
class DropInferenceFollowUps : public ScopedDiagnosticHandler {
public:
  explicit DropInferenceFollowUps(MLIRContext *context)
      : ScopedDiagnosticHandler(context) {
    setHandler([this](Diagnostic &diag) -> LogicalResult {
      if (diag.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      bool followUp =
          lastError && *lastError == diag.getLocation() &&
          StringRef(diag.str()).ends_with("failed to infer returned types");
      lastError = diag.getLocation();
      return success(followUp);
    });
  }

private:
  std::optional<Location> lastError;
};

// --help lists these alone: libMLIR.so registers hundreds of LLVM backend
// options that say nothing about compiling a model.
cl::OptionCategory shardcCategory("shardc options");

cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<model.mlir>"),
                                   cl::init("-"), cl::cat(shardcCategory));
cl::opt<std::string> outputFilename("o", cl::desc("Output .shardbin"),
                                    cl::value_desc("file"), cl::init(""),
                                    cl::cat(shardcCategory));
cl::opt<std::string> target("target", cl::desc("Backend the artifact runs on"),
                            cl::value_desc("cpu|cuda"), cl::init("cpu"),
                            cl::cat(shardcCategory));
enum class Emit { Artifact, Sharded, Partitioned, Plan, Kernels };
cl::opt<Emit> emit(
    "emit", cl::desc("Print a stage instead of writing the artifact"),
    cl::init(Emit::Artifact),
    cl::values(clEnumValN(Emit::Sharded, "sharded",
                          "the module after sharding propagation and "
                          "reshard insertion"),
               clEnumValN(Emit::Partitioned, "partitioned",
                          "the per-rank-class local programs"),
               clEnumValN(Emit::Plan, "plan",
                          "per rank class: ranks, shapes, exchanges, memory"),
               clEnumValN(Emit::Kernels, "kernels",
                          "the instruction stream / generated kernels")),
    cl::cat(shardcCategory));
cl::opt<unsigned>
    optLevel(cl::Prefix, "O",
             cl::desc("Optimisation level 0-3: -O1 adds canonicalize, "
                      "CSE, halo overlap, reshape views (and bias sinking "
                      "for --target=cuda), -O2 deeper halos, -O3 fusion "
                      "(--target=cuda always fuses); default 2"),
             cl::init(2), cl::cat(shardcCategory));
cl::opt<bool> timing("timing", cl::desc("Print per-stage times"),
                     cl::init(false), cl::cat(shardcCategory));
cl::opt<std::string> referenceFilename(
    "reference",
    cl::desc("Embed this model, compiled for one rank, as the reference that "
             "shard-run --check compares with (same inputs and outputs)"),
    cl::value_desc("model.mlir"), cl::init(""), cl::cat(shardcCategory));
cl::opt<cl::boolOrDefault>
    fuse("fuse",
         cl::desc("Fuse elementwise chains into kernels, and into the "
                  "reductions that read them (sc-fuse); default: on at -O3, "
                  "always on for --target=cuda"),
         cl::cat(shardcCategory));
cl::opt<cl::boolOrDefault> sinkBias(
    "sink-bias",
    cl::desc("Add a convolution's or linear layer's bias in the fused "
             "kernels that read its output (sc-sink-bias); default: on for "
             "--target=cuda at -O1 and above"),
    cl::cat(shardcCategory));
cl::opt<cl::boolOrDefault> overlapHalos(
    "overlap-halos",
    cl::desc("Compute each convolution's interior while its halo exchange is "
             "in flight (sc-overlap-halos); default: on at -O1 and above"),
    cl::cat(shardcCategory));
cl::opt<cl::boolOrDefault> reshapeViews(
    "reshape-views",
    cl::desc("Read reshaped temporaries in place instead of copying them "
             "(sc-reshape-views); default: on at -O1 and above"),
    cl::cat(shardcCategory));
cl::opt<cl::boolOrDefault> shrinkSplats(
    "shrink-splats",
    cl::desc("Fill a splat constant into one element where every kernel "
             "that reads it broadcasts it (sc-shrink-splats); default: on at "
             "-O1 and above"),
    cl::cat(shardcCategory));
cl::opt<cl::boolOrDefault> deepenHalos(
    "deepen-halos",
    cl::desc("Exchange one deeper halo before a conv -> elementwise -> conv "
             "chain where the cost model says it pays (sc-deepen-halos); "
             "default: on at -O2 and above"),
    cl::cat(shardcCategory));
cl::opt<cl::boolOrDefault> unrollRings(
    "unroll-rings",
    cl::desc("Lower attention rings to one exchange and one attention block "
             "per member on every rank instead of one RingAttention "
             "instruction per rank (default: off on every target; the "
             "unrolled form costs ranks x members to compile)"),
    cl::cat(shardcCategory));
cl::opt<std::string> cudaArch(
    "cuda-arch",
    cl::desc("SM targets of --target=cuda's compiled kernels (the fatbin "
             "also carries PTX of the newest)"),
    cl::value_desc("sm_80,sm_90"), cl::init("sm_80,sm_90"),
    cl::cat(shardcCategory));
cl::opt<std::string>
    nvccPath("nvcc",
             cl::desc("nvcc for --target=cuda (default: $CUDACXX, nvcc on "
                      "PATH, /usr/local/cuda/bin/nvcc)"),
             cl::value_desc("path"), cl::init(""), cl::cat(shardcCategory));
cl::opt<bool> unpartitioned(
    "unpartitioned",
    cl::desc("Compile for one rank, ignoring sharding annotations"),
    cl::init(false), cl::cat(shardcCategory));

/// Optimisation, then (unless --unpartitioned) sharding propagation and
/// reshard insertion; sc-partition runs while lowering (so that the
/// world-of-one reference can be taken from the same sharded module).
LogicalResult runStages(ModuleOp module, TimingScope &root) {
  PassManager pm(module.getContext());
  TimingScope passes = root.nest("Passes");
  pm.enableTiming(passes);
  shardc::addGlobalPasses(pm, optLevel, unpartitioned);
  return pm.run(module);
}

/// The --reference model's artifact, or failure (diagnosed).
FailureOr<std::vector<uint8_t>> compileReference(MLIRContext &context,
                                                 TimingScope &root) {
  std::string error;
  auto file = openInputFile(referenceFilename, &error);
  if (!file) {
    llvm::errs() << "shardc: " << error << "\n";
    return failure();
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  DropInferenceFollowUps oneErrorPerFault(&context);
  TimingScope t = root.nest("Reference model");
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return failure();
  // Only what a world of one needs: the partitioner takes core forms.
  PassManager pm(&context);
  shardc::addGlobalPasses(pm, /*optLevel=*/0, /*unpartitioned=*/true);
  if (failed(pm.run(*module)))
    return failure();
  shardc::LowerOptions options;
  options.unpartitioned = true;
  FailureOr<shardc::LoweredArtifact> lowered =
      shardc::lowerToArtifact(*module, options);
  if (failed(lowered))
    return failure();
  return std::move(lowered->bytes);
}

/// What the runtime would refuse in an artifact's rank programs when a
/// session is made (Session::checkPrograms).
std::vector<shardc::RankProgramDefect>
runtimeDefects(const std::vector<uint8_t> &bytes) {
  shardrt::StatusOr<std::shared_ptr<const shardrt::Engine>> engine =
      shardrt::Engine::loadFromMemory(bytes.data(), bytes.size());
  if (!engine.ok())
    return {
        {0, -1, "the artifact does not load: " + engine.status().message()}};
  std::vector<shardc::RankProgramDefect> defects;
  for (shardrt::ProgramDefect &d : shardrt::Session::checkPrograms(**engine))
    defects.push_back({d.rankClass, d.instruction, d.status.message()});
  return defects;
}

int compile(MLIRContext &context, llvm::SourceMgr &sourceMgr) {
  DefaultTimingManager tm;
  tm.setEnabled(timing);
  TimingScope root = tm.getRootScope();
  OwningOpRef<ModuleOp> module;
  {
    TimingScope t = root.nest("Parse and verify");
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  }
  if (!module)
    return 1;
  if (target != "cpu" && target != "cuda") {
    llvm::errs() << "shardc: unknown target '" << target
                 << "' (expected cpu or cuda)\n";
    return 1;
  }
  if (optLevel > 3) {
    llvm::errs() << "shardc: -O" << optLevel << " (expected -O0 to -O3)\n";
    return 1;
  }
  // The CUDA backend runs elementwise ops, reductions and expanded norms
  // only as fused kernels: unfused, each would be staged through the host.
  if (target == "cuda" && fuse == cl::BOU_FALSE) {
    llvm::errs() << "shardc: --fuse=false: --target=cuda runs elementwise "
                    "ops and reductions only as fused kernels\n";
    return 1;
  }
  // --cuda-arch is checked on every target: a typo should not pass
  // unnoticed until the day the model is compiled for CUDA.
  llvm::Expected<std::vector<int>> sms = shardc::parseSmTargets(cudaArch);
  if (!sms) {
    llvm::errs() << "shardc: --cuda-arch: " << llvm::toString(sms.takeError())
                 << "\n";
    return 1;
  }
  if (target != "cuda" &&
      (cudaArch.getNumOccurrences() || nvccPath.getNumOccurrences()))
    llvm::errs() << "shardc: warning: --cuda-arch and --nvcc apply to "
                    "--target=cuda only; ignored\n";
  // The cuda target's artifact embeds kernels compiled now; find the
  // compiler before the (longer) passes run.
  std::string nvcc;
  if (target == "cuda" && emit == Emit::Artifact) {
    llvm::Expected<std::string> found = shardc::findNvcc(nvccPath);
    if (!found) {
      llvm::errs() << "shardc: " << llvm::toString(found.takeError()) << "\n";
      return 1;
    }
    nvcc = *found;
  }
  if (failed(shardc::checkElementTypes(*module)) ||
      failed(runStages(*module, root)))
    return 1;
  FailureOr<std::vector<uint8_t>> reference = std::vector<uint8_t>();
  if (!referenceFilename.empty())
    reference = compileReference(context, root);
  if (failed(reference))
    return 1;
  // Lowering partitions the module in place.
  std::string sharded;
  if (emit == Emit::Sharded) {
    llvm::raw_string_ostream os(sharded);
    module->print(os);
  }
  shardc::LowerOptions options = shardc::targetDefaults(
      target == "cuda" ? shardc::Target::Cuda : shardc::Target::Cpu, optLevel);
  options.unpartitioned = unpartitioned;
  options.describe = emit == Emit::Plan || emit == Emit::Kernels;
  // A pass flag given on the command line wins over the level's default
  // (--fuse=false with --target=cuda was refused above).
  auto override = [](const cl::opt<cl::boolOrDefault> &flag, bool &on) {
    if (flag != cl::BOU_UNSET)
      on = flag == cl::BOU_TRUE;
  };
  override(fuse, options.fuse);
  override(overlapHalos, options.overlapHalos);
  override(sinkBias, options.sinkBias);
  override(reshapeViews, options.reshapeViews);
  override(shrinkSplats, options.shrinkSplats);
  override(unrollRings, options.unrollRings);
  override(deepenHalos, options.deepenHalos);
  options.checkPrograms = runtimeDefects;
  if (!nvcc.empty()) {
    options.cudaTargets = cudaArch;
    options.compileCuda = [&](const std::string &source) {
      return shardc::compileFatbin(nvcc, source, *sms);
    };
  }
  FailureOr<shardc::LoweredArtifact> lowered;
  {
    TimingScope t = root.nest("Lower, plan memory, serialise");
    options.timing = &t;
    lowered = shardc::lowerToArtifact(
        *module, options, reference->empty() ? nullptr : &*reference);
    options.timing = nullptr; // `t` ends here
  }
  if (failed(lowered))
    return 1;
  std::string error;
  std::string outName = outputFilename;
  if (outName.empty())
    outName = emit == Emit::Artifact ? "a.shardbin" : "-";
  auto output = openOutputFile(outName, &error);
  if (!output) {
    llvm::errs() << "shardc: " << error << "\n";
    return 1;
  }
  switch (emit) {
  case Emit::Sharded:
    output->os() << sharded << "\n";
    break;
  case Emit::Partitioned:
    module->print(output->os());
    output->os() << "\n";
    break;
  case Emit::Plan:
    output->os() << lowered->planText;
    break;
  case Emit::Kernels:
    if (target == "cuda")
      output->os() << shardc::cudaKernelSource(*module);
    else
      output->os() << lowered->programText;
    break;
  case Emit::Artifact:
    output->os().write(reinterpret_cast<const char *>(lowered->bytes.data()),
                       lowered->bytes.size());
    break;
  }
  output->os().flush();
  if (output->os().has_error()) {
    llvm::errs() << "shardc: cannot write '" << outName
                 << "': " << output->os().error().message() << "\n";
    output->os().clear_error();
    return 1;
  }
  output->keep();
  return 0;
}

/// A model that needs more memory than the machine (or its limit) gives is
/// the user's to know about, not a crash to report: say so and exit 1
/// instead of LLVM's stack dump and bug-report plea. Allocates nothing, as
/// the heap is spent; an output file already opened is removed, as on a
/// signal.
[[noreturn]] void outOfMemory(void *, const char *, bool) {
  static const char message[] =
      "shardc: out of memory: compiling this model needs more memory than "
      "this process may use (a smaller mesh, or a model whose ranks share "
      "rank classes, needs less)\n";
  (void)!::write(STDERR_FILENO, message, sizeof(message) - 1);
  llvm::sys::RunInterruptHandlers();
  ::_exit(1);
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::install_bad_alloc_error_handler(outOfMemory);
  cl::HideUnrelatedOptions(shardcCategory);
  cl::ParseCommandLineOptions(argc, argv, "shardc: sc model compiler\n");
  DialectRegistry registry;
  registry.insert<shardc::sc::ScDialect, shardc::scl::SclDialect,
                  func::FuncDialect, memref::MemRefDialect>();
  MLIRContext context(registry);
  // Diagnostics point at the source line; dumping the whole op (a model's
  // entry function) after each one would bury them.
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  std::string error;
  auto file = openInputFile(inputFilename, &error);
  if (!file) {
    llvm::errs() << "shardc: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  DropInferenceFollowUps oneErrorPerFault(&context);
  return compile(context, sourceMgr);
}
