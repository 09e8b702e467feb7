//===- shard-run.cpp - Run a .shardbin on a world of ranks ----------------===//
//
// shard-run model.shardbin [--ranks N | under mpirun]
//           [--input NAME=FILE.npy ...] [--random-inputs --seed S]
//           [--output NAME=FILE.npy ...] [--check [--atol A --rtol R]]
//           [--bench K] [--threads T] [--timeout-ms MS]
//           [--backend cpu|cuda [--device D] [--cuda-graph]]
//           [--profile [--profile-top N]]
//
// Global inputs are scattered per the artifact's shardings and outputs
// gathered. --check also runs the embedded unpartitioned model on one rank
// (always on the CPU backend) and compares. With --backend cuda and no
// --ranks under mpirun, every rank is a thread of this process on one GPU.
// --profile times every step of the timed runs and prints where the time
// goes (Profile.h).
// Under an MPI launcher of more than one process each process is one rank;
// otherwise ranks are threads of this process.
// Exit status: 0 ok, 1 error, 2 --check mismatch, 3 the backend is not
// available here (no GPU, or a build without CUDA; 1 instead when
// SHARDRT_REQUIRE_GPU is set).
//
//===----------------------------------------------------------------------===//

#include "Profile.h"
#include "Runner.h"
#include <cmath>

#include "shardrt/Engine.h"
#include "shardrt/Npy.h"
#include "shardrt/artifact/Artifact.h"
#include "shardrt/cpu/HalfFloats.h"

#ifdef SHARDRUN_HAVE_MPI
#include "shardrt/comm/Mpi.h"
#endif
#ifdef SHARDRUN_HAVE_NCCL_MPI
#include "shardrt/comm/NcclMpi.h"
#endif

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <unistd.h>

using namespace shardrt;

namespace {

struct Args {
  std::string model;
  int ranks = 0; // 0: the artifact's world size
  std::map<std::string, std::string> inputs, outputs;
  bool randomInputs = false;
  uint64_t seed = 0;
  std::map<std::string, double> randomBounds; // default 1

  bool check = false;
  double atol = 1e-5, rtol = 1e-5;
  int bench = 0;
  int threads = 0;
  int timeoutMs = 60000;
  BackendKind backend = BackendKind::Cpu;
  /// Unset when not given: an option that does nothing without another is
  /// refused rather than ignored.
  std::optional<int> device;
  bool cudaGraph = false;
  bool plainRings = false;
  bool nccl = false; ///< --comm nccl
  bool profile = false;
  std::optional<int> profileTop;
  /// The value options given, to refuse those that would do nothing.
  std::set<std::string> given;
};

const char *kUsage =
    "usage: shard-run model.shardbin [--ranks N] [--input NAME=FILE.npy]...\n"
    "         [--random-inputs [--seed S] [--random-bound NAME=B]...]\n"
    "         [--output NAME=FILE.npy]...\n"
    "         [--check [--atol A] [--rtol R]] [--bench K] [--threads T]\n"
    "         [--timeout-ms MS] [--backend cpu|cuda [--device D] "
    "[--cuda-graph] [--comm local|nccl]]\n"
    "         [--profile [--profile-top N]] [--plain-rings]\n"
    "Under mpirun/srun with more than one process each runs one rank over\n"
    "MPI or, with --comm nccl, over NCCL (on its node-local rank's device;\n"
    "--device D puts every process of a node on D, for one per node);\n"
    "otherwise the ranks are threads of this process, talking\n"
    "over the local backend or, with --comm nccl, over NCCL (rank r on\n"
    "device (D + r) modulo the devices). --plain-rings runs causal rings\n"
    "on the plain schedule instead of the balanced one (to compare them).\n";

bool parseNumber(const std::string &s, double &out) {
  char *end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return !s.empty() && end && *end == '\0';
}

bool parseInt(const std::string &s, long long lo, long long hi,
              long long &out) {
  char *end = nullptr;
  errno = 0;
  out = std::strtoll(s.c_str(), &end, 10);
  // strtoll clamps what overflows (ERANGE) to LLONG_MIN/MAX.
  return !s.empty() && end && *end == '\0' && errno != ERANGE && out >= lo &&
         out <= hi;
}

/// Sets map[key] = value unless `flag` already named `key`.
template <typename T>
Status setOnce(std::map<std::string, T> &map, const std::string &flag,
               const std::string &key, const T &value) {
  if (!map.emplace(key, value).second)
    return Status::invalidArgument(flag + " names '" + key + "' twice");
  return Status();
}

/// Parses an option's value into `args`.
using OptionParser = std::function<Status(
    const std::string &flag, const std::string &value, Args &args)>;

/// `expected` says what the option takes.
Status badValue(const std::string &flag, const std::string &value,
                const std::string &expected) {
  return Status::invalidArgument("bad value for " + flag + ": '" + value +
                                 "' (expected " + expected + ")");
}

/// An integer option stored in `field`, in [lo, hi].
template <typename T>
OptionParser integer(T Args::*field, long long lo, long long hi) {
  return [=](const std::string &flag, const std::string &v, Args &args) {
    long long n;
    if (!parseInt(v, lo, hi, n))
      return badValue(flag, v,
                      "an integer from " + std::to_string(lo) + " to " +
                          std::to_string(hi));
    args.*field = T(n);
    return Status();
  };
}

/// A non-negative number option stored in `field`.
OptionParser tolerance(double Args::*field) {
  return [=](const std::string &flag, const std::string &v, Args &args) {
    double d;
    if (!parseNumber(v, d) || !(d >= 0))
      return badValue(flag, v, "a number >= 0");
    args.*field = d;
    return Status();
  };
}

/// NAME=FILE.npy into `field`, each name once.
OptionParser namedFile(std::map<std::string, std::string> Args::*field) {
  return [=](const std::string &flag, const std::string &v, Args &args) {
    size_t eq = v.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
      return Status::invalidArgument(flag + " expects NAME=FILE.npy; got '" +
                                     v + "'");
    return setOnce(args.*field, flag, v.substr(0, eq), v.substr(eq + 1));
  };
}

Status randomBound(const std::string &flag, const std::string &v, Args &args) {
  size_t eq = v.find('=');
  double d;
  if (eq == std::string::npos || eq == 0 || !parseNumber(v.substr(eq + 1), d) ||
      !(float(d) > 0) || !std::isfinite(float(d)))
    // Inputs are f32: a bound past its range draws NaNs (a check of NaN
    // against NaN passes), one below it draws zeros.
    return Status::invalidArgument(
        "--random-bound expects NAME=B with B a positive finite f32; got '" +
        v + "'");
  return setOnce(args.randomBounds, flag, v.substr(0, eq), d);
}

Status commName(const std::string &flag, const std::string &v, Args &args) {
  if (v != "local" && v != "nccl")
    return badValue(flag, v, "local or nccl");
  args.nccl = v == "nccl";
  return Status();
}

Status backendName(const std::string &flag, const std::string &v, Args &args) {
  if (v != "cpu" && v != "cuda")
    return badValue(flag, v, "cpu or cuda");
  args.backend = v == "cpu" ? BackendKind::Cpu : BackendKind::Cuda;
  return Status();
}

/// The options that take a value (`--name V` or `--name=V`).
const std::map<std::string, OptionParser> &valueOptions() {
  static const std::map<std::string, OptionParser> kOptions = {
      {"--ranks", integer(&Args::ranks, 1, 1 << 20)},
      {"--seed", integer(&Args::seed, 0, INT64_MAX)},
      {"--bench", integer(&Args::bench, 1, 1 << 20)},
      {"--threads",
       integer(&Args::threads, 1, shardrt::SessionOptions::kMaxThreads)},
      {"--timeout-ms", integer(&Args::timeoutMs, 1, INT_MAX)},
      {"--profile-top", integer(&Args::profileTop, 0, 1 << 20)},
      {"--device", integer(&Args::device, 0, 1023)},
      {"--backend", backendName},
      {"--comm", commName},
      {"--atol", tolerance(&Args::atol)},
      {"--rtol", tolerance(&Args::rtol)},
      {"--random-bound", randomBound},
      {"--input", namedFile(&Args::inputs)},
      {"--output", namedFile(&Args::outputs)}};
  return kOptions;
}

/// The options that take none.
const std::map<std::string, bool Args::*> &flagOptions() {
  static const std::map<std::string, bool Args::*> kFlags = {
      {"--random-inputs", &Args::randomInputs},
      {"--check", &Args::check},
      {"--cuda-graph", &Args::cudaGraph},
      {"--plain-rings", &Args::plainRings},
      {"--profile", &Args::profile}};
  return kFlags;
}

Status parseArgs(int argc, char **argv, Args &args) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      std::exit(0);
    }
    // Every option is long: `-x` is a typo, not a model named "-x".
    if (a.size() > 1 && a[0] == '-' && a.rfind("--", 0) != 0)
      return Status::invalidArgument("unknown option: " + a + " (see --help)");
    if (a.rfind("--", 0) != 0) {
      if (!args.model.empty())
        return Status::invalidArgument("two models given: '" + args.model +
                                       "' and '" + a + "'");
      args.model = a;
      continue;
    }
    if (auto flag = flagOptions().find(a); flag != flagOptions().end()) {
      args.*flag->second = true;
      continue;
    }
    // `--name=V` or `--name V`.
    size_t eq = a.find('=');
    std::string name = a.substr(0, eq), v;
    auto option = valueOptions().find(name);
    if (option == valueOptions().end())
      return Status::invalidArgument("unknown option: " + a + " (see --help)");
    if (eq != std::string::npos)
      v = a.substr(eq + 1);
    else if (i + 1 < argc)
      v = argv[++i];
    else
      return Status::invalidArgument(name + " needs a value");
    SHARDRT_RETURN_IF_ERROR(option->second(name, v, args));
    args.given.insert(name);
  }
  if (args.model.empty())
    return Status::invalidArgument("no model given");
  for (auto [given, cudaOnly] : {std::pair{args.device.has_value(), "--device"},
                                 std::pair{args.cudaGraph, "--cuda-graph"},
                                 std::pair{args.nccl, "--comm nccl"}})
    if (given && args.backend != BackendKind::Cuda)
      return Status::invalidArgument(std::string(cudaOnly) +
                                     " needs --backend cuda");
  if (args.profileTop && !args.profile)
    return Status::invalidArgument("--profile-top needs --profile");
  for (const char *tolerance : {"--atol", "--rtol"})
    if (args.given.count(tolerance) && !args.check)
      return Status::invalidArgument(std::string(tolerance) + " needs --check");
  for (const char *drawing : {"--seed", "--random-bound"})
    if (args.given.count(drawing) && !args.randomInputs)
      return Status::invalidArgument(std::string(drawing) +
                                     " needs --random-inputs");
  for (const auto &[name, bound] : args.randomBounds)
    if (args.inputs.count(name))
      return Status::invalidArgument("--random-bound names '" + name +
                                     "', which --input reads from a file");
  // Two outputs in one file: the second would silently replace the first.
  std::map<std::string, std::string> written;
  for (const auto &[name, file] : args.outputs) {
    std::error_code ec;
    std::filesystem::path canonical =
        std::filesystem::weakly_canonical(file, ec);
    std::string key = ec ? file : canonical.string();
    if (auto [it, fresh] = written.emplace(key, name); !fresh)
      return Status::invalidArgument("--output writes '" + it->second +
                                     "' and '" + name + "' to one file, '" +
                                     file + "'");
  }
  return Status();
}

/// Uniform in [-bound, bound) (bools: 0/1) from the seed and the input's
/// index, so every process and every world size sees the same global inputs.
/// (Weights drawn like PyTorch's default init, bound 1/sqrt(fan_in), keep
/// activations O(1), where f32 tolerances mean what they say.)
GlobalTensor randomTensor(const TensorInfo &t, uint64_t seed, size_t index,
                          double bound) {
  GlobalTensor g;
  g.dtype = t.dtype;
  g.shape = t.shape;
  int64_t n = 1;
  for (int64_t d : t.shape)
    n *= d;
  g.data.resize(size_t(n) * dtypeSize(t.dtype));
  std::mt19937_64 rng(seed * 1000003u + index);
  std::uniform_real_distribution<float> dist(-float(bound), float(bound));
  for (int64_t i = 0; i < n; ++i) {
    if (t.dtype == DType::F32) {
      float f = dist(rng);
      std::memcpy(g.data.data() + 4 * i, &f, 4);
    } else if (t.dtype == DType::BF16 || t.dtype == DType::F16) {
      float f = dist(rng);
      uint16_t h =
          t.dtype == DType::BF16 ? cpu::floatToBf16(f) : cpu::floatToF16(f);
      std::memcpy(g.data.data() + 2 * i, &h, 2);
    } else if (t.dtype == DType::Bool) {
      g.data[size_t(i)] = rng() & 1;
    }
  }
  return g;
}

Status loadInputs(const Engine &engine, const Args &args,
                  std::vector<GlobalTensor> &inputs) {
  for (const auto &[name, bound] : args.randomBounds)
    if (engine.findInput(name) < 0)
      return Status::invalidArgument("--random-bound names no input: '" + name +
                                     "'");
  for (const auto &[name, file] : args.inputs)
    if (engine.findInput(name) < 0)
      return Status::invalidArgument("the model has no input named '" + name +
                                     "'");
  std::string missing;
  for (size_t i = 0; i < engine.numInputs(); ++i) {
    const TensorInfo &t = engine.input(i);
    auto it = args.inputs.find(t.name);
    if (it == args.inputs.end()) {
      if (args.randomInputs) {
        auto b = args.randomBounds.find(t.name);
        inputs.push_back(randomTensor(
            t, args.seed, i, b == args.randomBounds.end() ? 1.0 : b->second));
      } else
        missing += "\n  " + t.name + ": " + dtypeName(t.dtype) + " " +
                   shapeStr(t.shape);
      continue;
    }
    SHARDRT_ASSIGN_OR_RETURN(NpyArray a, readNpy(it->second));
    // NumPy's default float is f64 and it has no bfloat16: float data is
    // rounded to a float input's type.
    NpyArray arr = t.dtype == DType::F32 ? toF32(std::move(a))
                                         : toHalfFloat(std::move(a), t.dtype);
    if (arr.dtype != t.dtype || arr.shape != t.shape)
      return Status::invalidArgument(
          it->second + " holds " + dtypeName(arr.dtype) + " " +
          shapeStr(arr.shape) + "; input '" + t.name + "' is " +
          dtypeName(t.dtype) + " " + shapeStr(t.shape));
    inputs.push_back({arr.dtype, arr.shape, std::move(arr.data)});
  }
  if (!missing.empty())
    return Status::invalidArgument(
        "no data for these inputs (give --input NAME=FILE.npy or "
        "--random-inputs):" +
        missing);
  return Status();
}

/// Unknown --output names are reported before any (long) run.
Status checkOutputNames(const Engine &engine, const Args &args) {
  for (const auto &[name, file] : args.outputs)
    if (engine.findOutput(name) < 0)
      return Status::invalidArgument("the model has no output named '" + name +
                                     "'");
  return Status();
}

/// Where an output is written before it takes its name: beside it, so that
/// the rename cannot cross file systems.
std::string stagingPath(const std::string &file) {
  return file + ".shard-run-" + std::to_string(::getpid()) + ".tmp";
}

/// Each --output's file can be written: found before a (long) run rather
/// than after it.
Status checkOutputsWritable(const Args &args) {
  for (const auto &[name, file] : args.outputs) {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec))
      return Status::invalidArgument("--output " + name + "=" + file +
                                     ": a directory");
    std::string probe = stagingPath(file);
    std::FILE *f = std::fopen(probe.c_str(), "wbx");
    if (!f)
      return Status::invalidArgument("--output " + name + "=" + file +
                                     ": cannot write there (" +
                                     std::strerror(errno) + ")");
    std::fclose(f);
    std::remove(probe.c_str());
  }
  return Status();
}

/// Writes every output or none: each goes to a staging file first, and the
/// files take their names only once all are written, so that a failure
/// (a full disk) leaves every earlier file as it was.
Status writeOutputs(const Engine &engine, const Args &args,
                    const std::vector<GlobalTensor> &outputs) {
  std::vector<std::pair<std::string, std::string>> staged;
  auto discard = [&] {
    for (const auto &[from, to] : staged)
      std::remove(from.c_str());
  };
  for (const auto &[name, file] : args.outputs) {
    int i = engine.findOutput(name);
    NpyArray a{outputs[size_t(i)].dtype, outputs[size_t(i)].shape,
               outputs[size_t(i)].data};
    staged.push_back({stagingPath(file), file});
    if (Status s = writeNpy(staged.back().first, a); !s.ok()) {
      discard(); // the message names the staging file beside `file`
      return Status(s.code(), "--output " + name + ": " + s.message());
    }
  }
  for (const auto &[from, to] : staged)
    if (std::rename(from.c_str(), to.c_str()) != 0) {
      Status s = Status::unavailable("cannot write '" + to +
                                     "': " + std::strerror(errno));
      discard();
      return s;
    }
  return Status();
}

std::string bytesStr(uint64_t b) {
  char buf[64];
  if (b >= (1ull << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / (1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%.1f KiB", double(b) / 1024);
  return buf;
}

/// "AllGather 14, Unary 2": what a rank stages through the host.
std::string opcodeCounts(const std::map<std::string, int> &counts) {
  std::string s;
  for (const auto &[opcode, n] : counts)
    s += (s.empty() ? "" : ", ") + opcode + " " + std::to_string(n);
  return s;
}

/// Per rank: time, arena, workspace and (CUDA) the steps that need the
/// host; then
/// which opcodes each rank stages, ranks with the same list on one line.
void printStats(const std::vector<RankStats> &stats, int iterations,
                bool cuda) {
  std::printf("%-6s %12s %12s %14s %14s", "rank", "mean ms", "min ms", "arena",
              "workspace");
  if (cuda)
    std::printf(" %8s %11s", "staged", "host waits");
  std::printf("\n");
  for (size_t r = 0; r < stats.size(); ++r) {
    const auto &s = stats[r].runSeconds;
    double sum = 0, mn = s.empty() ? 0 : s[0];
    for (double x : s)
      sum += x, mn = std::min(mn, x);
    std::printf("%-6zu %12.3f %12.3f %14s %14s", r,
                s.empty() ? 0.0 : 1e3 * sum / double(s.size()), 1e3 * mn,
                bytesStr(stats[r].arenaBytes).c_str(),
                bytesStr(stats[r].workspaceBytes).c_str());
    if (cuda)
      std::printf(" %8lld %11lld", (long long)stats[r].stagedSteps,
                  (long long)stats[r].hostWaitSteps);
    std::printf("\n");
  }
  std::printf("(%d timed run%s per rank)\n", iterations,
              iterations == 1 ? "" : "s");
  std::map<std::string, std::string> ranksByList;
  for (size_t r = 0; r < stats.size(); ++r)
    if (!stats[r].stagedOpcodes.empty()) {
      std::string &ranks = ranksByList[opcodeCounts(stats[r].stagedOpcodes)];
      ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
    }
  for (const auto &[list, ranks] : ranksByList)
    std::printf("staged through the host on rank%s %s: %s\n",
                ranks.find(',') == std::string::npos ? "" : "s", ranks.c_str(),
                list.c_str());
}

/// The artifact's generated kernel binaries, e.g. "kernels: 1 binary:
/// fatbin for sm_80,sm_90 with 280 kernels".
void printKernels(const Engine &engine) {
  const fb::Artifact &root = engine.artifact().root();
  if (!root.kernels() || root.kernels()->size() == 0)
    return;
  std::printf("kernels: %u binar%s:", root.kernels()->size(),
              root.kernels()->size() == 1 ? "y" : "ies");
  for (uint32_t k = 0; k < root.kernels()->size(); ++k) {
    const fb::KernelBinary &kb = *root.kernels()->Get(k);
    std::string format = fb::EnumNameKernelFormat(kb.format());
    for (char &c : format)
      c = char(std::tolower(static_cast<unsigned char>(c)));
    uint32_t n = kb.symbols() ? kb.symbols()->size() : 0;
    std::printf("%s %s for %s with %u kernel%s", k ? ";" : "", format.c_str(),
                kb.target() ? kb.target()->c_str() : "?", n, n == 1 ? "" : "s");
  }
  std::printf("\n");
}

/// Under MPI with --comm nccl: the processes join one NCCL communicator,
/// bootstrapped over MPI, each on its node-local rank's device unless
/// --device named one (`deviceGiven`); the session's steps talk over it,
/// while MPI still carries the meetings and gathers the outputs.
Status runOverNcclAndMpi(const std::shared_ptr<const Engine> &engine,
                         comm::Communicator &mpi,
                         const std::vector<GlobalTensor> &inputs,
                         std::vector<GlobalTensor> &outputs,
                         std::vector<RankStats> &stats, RunOptions options,
                         bool deviceGiven) {
#ifdef SHARDRUN_HAVE_NCCL_MPI
  comm::NcclOptions ncclOptions;
  ncclOptions.comm.timeout = std::chrono::milliseconds(options.timeoutMs);
  ncclOptions.device = options.device;
  // Every process comes back with the same outcome (NcclMpi.h), and the
  // device the bootstrap chose is the session's too.
  StatusOr<std::unique_ptr<comm::Communicator>> nccl =
      comm::createNcclCommunicatorOverMpi(ncclOptions, !deviceGiven,
                                          &options.device);
  if (!nccl.ok())
    return Status(nccl.status().code(), "rank " + std::to_string(mpi.rank()) +
                                            ": " + nccl.status().message());
  Status s =
      runDistributed(engine, mpi, inputs, outputs, stats, options, nccl->get());
  if (!s.ok())
    (*nccl)->abort(s);
  return s;
#else
  (void)engine, (void)mpi, (void)inputs, (void)outputs, (void)stats;
  (void)options, (void)deviceGiven;
  return Status::unimplemented("this shard-run was built without NCCL over "
                               "MPI");
#endif
}

/// The run itself, on all ranks (local threads) or this MPI rank.
Status execute(const std::shared_ptr<const Engine> &engine,
               comm::Communicator *mpi, const std::vector<GlobalTensor> &inputs,
               std::vector<GlobalTensor> &outputs,
               std::vector<RankStats> &stats, const RunOptions &options,
               bool deviceGiven) {
  if (mpi && options.nccl)
    return runOverNcclAndMpi(engine, *mpi, inputs, outputs, stats, options,
                             deviceGiven);
  if (mpi)
    return runDistributed(engine, *mpi, inputs, outputs, stats, options);
  return runLocal(engine, inputs, outputs, stats, options);
}

/// Exit status when the asked-for backend cannot run here (ctest's
/// SKIP_RETURN_CODE for the GPU tests).
constexpr int kExitUnavailable = 3;

/// SHARDRT_REQUIRE_GPU (set, not "0"): an unavailable backend is an error
/// (exit 1), so that on a GPU machine whose driver CUDA cannot use the GPU
/// tests fail instead of skipping.
bool unavailableIsAnError() {
  const char *v = std::getenv("SHARDRT_REQUIRE_GPU");
  return v && *v && std::string(v) != "0";
}

unsigned hardwareThreads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

/// What run() needs once set up: the artifact, the global inputs, and how
/// to run them.
struct Prepared {
  std::shared_ptr<const Engine> engine;
  std::vector<GlobalTensor> inputs;
  RunOptions options;
};

/// Everything before the run that can fail on bad input once the backend is
/// known to be there: the artifact, its world size, the output names, the
/// inputs.
Status prepare(const Args &args, comm::Communicator *mpi, Prepared &p) {
  SHARDRT_ASSIGN_OR_RETURN(p.engine, Engine::load(args.model));
  int world = p.engine->worldSize();
  if (mpi && args.ranks && args.ranks != mpi->size())
    return Status::invalidArgument(
        "--ranks " + std::to_string(args.ranks) + " disagrees with the " +
        std::to_string(mpi->size()) + " MPI processes");
  int ranks = mpi ? mpi->size() : (args.ranks ? args.ranks : world);
  if (ranks != world)
    return Status::failedPrecondition(
        args.model + " is compiled for " + std::to_string(world) +
        " rank(s); asked to run on " + std::to_string(ranks));
  SHARDRT_RETURN_IF_ERROR(checkOutputNames(*p.engine, args));
  // Only the first process writes the outputs.
  if (!mpi || mpi->rank() == 0)
    SHARDRT_RETURN_IF_ERROR(checkOutputsWritable(args));
  if (args.check && !p.engine->reference())
    return Status::failedPrecondition(
        args.model + " carries no reference model to check against: a "
                     "one-rank artifact is the unpartitioned model itself; "
                     "give shardc --reference=OTHER.mlir to embed an "
                     "independent one");
  SHARDRT_RETURN_IF_ERROR(loadInputs(*p.engine, args, p.inputs));
  RunOptions &options = p.options;
  options.iterations = args.bench > 0 ? args.bench : 1;
  // A graph session runs plainly, then captures, then replays (Engine.h):
  // two warm-ups, so that the timed and the checked runs are replays.
  options.warmup = args.cudaGraph ? 2 : args.bench > 0 ? 1 : 0;
  unsigned hw = hardwareThreads();
  options.threadsPerRank =
      args.threads ? args.threads
                   : int(std::max(1u, hw / unsigned(mpi ? 1 : ranks)));
  options.timeoutMs = args.timeoutMs;
  options.backend = args.backend;
  options.device = args.device.value_or(0);
  options.cudaGraph = args.cudaGraph;
  options.balanceCausalRings = !args.plainRings;
  options.nccl = args.nccl;
  options.profile = args.profile;
  // Only the first process checks and writes, but every one is started
  // alike: a --check or --output given to another would be ignored.
  options.resultsUse = args.check ? "check " + std::to_string(args.atol) + " " +
                                        std::to_string(args.rtol)
                                  : "";
  for (const auto &[name, file] : args.outputs)
    options.resultsUse += "\n" + name + "=" + file;
  return Status();
}

/// prepare(), with the tool's own host allocations (the global inputs,
/// .npy files) that do not fit refused as a status, which under MPI reaches
/// the other processes at the start-up meeting.
Status prepareOrReportMemory(const Args &args, comm::Communicator *mpi,
                             Prepared &prepared) {
  try {
    return prepare(args, mpi, prepared);
  } catch (const std::bad_alloc &) {
    return Status::unavailable(
        "out of host memory for the model's inputs (the global tensors "
        "the ranks are cut from, or the .npy files read)");
  }
}

int run(const Args &args, comm::Communicator *mpi) {
  bool root = !mpi || mpi->rank() == 0;
  auto fail = [&](const Status &s) {
    std::fprintf(stderr, "shard-run: %s\n", s.toString().c_str());
    return 1;
  };
  Prepared prepared;
  Status available = backendAvailable(args.backend, args.device.value_or(0));
  Status setup =
      available.ok() ? prepareOrReportMemory(args, mpi, prepared) : available;
  // Under MPI every process reports its set-up, failed or not: a process
  // that just exited would leave the others waiting in their first exchange.
  if (mpi)
    setup = startTogether(*mpi, setup, prepared.engine.get(), prepared.inputs,
                          prepared.options);
  if (!setup.ok()) {
    fail(setup);
    // Every process heard the same news; each says it before any exits, as
    // a launcher stops the rest when one exits with an error.
    if (mpi)
      (void)mpi->barrier();
    return available.ok() || unavailableIsAnError() ? 1 : kExitUnavailable;
  }
  const std::shared_ptr<const Engine> &engine = prepared.engine;
  const std::vector<GlobalTensor> &inputs = prepared.inputs;
  RunOptions &options = prepared.options;
  int world = engine->worldSize();
  std::vector<GlobalTensor> outputs;
  auto started = std::chrono::steady_clock::now();
  auto lastReport = started;
  options.progress = [&](int done, int total) {
    auto now = std::chrono::steady_clock::now();
    if (total > 1 && root &&
        (now - lastReport > std::chrono::seconds(2) || done == total)) {
      std::fprintf(stderr, "shard-run: run %d/%d (%.1f s)\n", done, total,
                   std::chrono::duration<double>(now - started).count());
      lastReport = now;
    }
  };
  std::vector<RankStats> stats;
  if (Status s = execute(engine, mpi, inputs, outputs, stats, options,
                         args.device.has_value());
      !s.ok()) {
    fail(s);
    // A failed session meeting reaches every process: each says it before
    // any exits. After a failed run the communicator was given up on, and
    // the barrier returns at once; a barrier of MPI's own then tells whether
    // every peer still answers, as MPI_Finalize at exit would wait for one
    // that does not (stopped, or hung) forever.
    if (mpi) {
      (void)mpi->barrier();
#ifdef SHARDRUN_HAVE_MPI
      if (!comm::leaveMpiAfterFailure(
              std::chrono::milliseconds(options.timeoutMs)))
        std::fprintf(stderr,
                     "shard-run: rank %d: a peer does not answer; leaving "
                     "without MPI_Finalize\n",
                     mpi->rank());
#endif
    }
    return 1;
  }
  if (root) {
    std::printf("%s: %d rank(s) on %s%s, %zu input(s), %zu output(s)\n",
                args.model.c_str(), world,
                args.backend == BackendKind::Cpu ? "cpu" : "cuda",
                args.nccl ? " over nccl" : "", inputs.size(), outputs.size());
    printKernels(*engine);
    printStats(stats, options.iterations, args.backend == BackendKind::Cuda);
    printProfile(stats, args.profileTop.value_or(15));
    if (Status s = writeOutputs(*engine, args, outputs); !s.ok())
      return fail(s);
  }
  // Only rank 0 prints; the others are done.
  if (!args.check || !root)
    return 0;
  std::shared_ptr<const Engine> reference = engine->reference();
  std::vector<GlobalTensor> expected;
  std::vector<RankStats> refStats;
  RunOptions refOptions;
  refOptions.threadsPerRank = int(hardwareThreads());
  if (Status s = runLocal(reference, inputs, expected, refStats, refOptions);
      !s.ok())
    return fail(Status(s.code(), "reference model: " + s.message()));
  bool ok = expected.size() == outputs.size();
  for (size_t i = 0; i < expected.size() && i < outputs.size(); ++i) {
    Comparison c = compare(outputs[i], expected[i], args.atol, args.rtol);
    std::printf("check %s: max abs error %.3g, max rel error %.3g, "
                "allclose(atol=%g, rtol=%g): %s",
                engine->output(i).name.c_str(), c.maxAbs, c.maxRel, args.atol,
                args.rtol, c.allClose ? "ok" : "MISMATCH");
    if (!c.allClose)
      std::printf(" (%lld elements; the first, flat index %lld: got %g, "
                  "expected %g)",
                  (long long)c.mismatches, (long long)c.firstMismatch,
                  c.firstGot, c.firstWant);
    // The errors are over finite pairs: say how many NaNs and infinities
    // matched, so that an all-NaN output does not read as "error 0".
    if (c.matchedNonFinite)
      std::printf(" [%lld NaN or infinite elements, matched]",
                  (long long)c.matchedNonFinite);
    std::printf("\n");
    ok &= c.allClose;
  }
  std::printf("reference (1 rank): %.3f ms\n",
              refStats.empty() || refStats[0].runSeconds.empty()
                  ? 0.0
                  : 1e3 * refStats[0].runSeconds[0]);
  return ok ? 0 : 2;
}

/// Started by an MPI launcher with more than one process. A launcher of one
/// process (a Slurm step or a PMI environment around a plain command, as
/// on a batch machine) runs in-process ranks, as without a launcher: its
/// one MPI process could not hold the artifact's ranks anyway.
bool underMpiLauncher() {
  // The largest size any launcher variable gives: an outer one-task Slurm
  // step may leave its variable behind under an inner launcher.
  int size = 0;
  for (const char *v :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"})
    if (const char *s = std::getenv(v))
      size = std::max(size, std::atoi(s));
  // PMIx names no size of its own (Open MPI's launcher also sets the
  // first variable above): alone, it means a launcher of unknown size.
  return size > 1 || (size == 0 && std::getenv("PMIX_RANK") != nullptr);
}

/// run(), with a host allocation of the tool's own that does not fit after
/// set-up (the gathered outputs, the check's reference run) refused with a
/// message instead of an abort. The runtime reports its own allocations as
/// a status, and set-up's reach the other processes (above).
int runOrReportMemory(const Args &args, comm::Communicator *world) {
  try {
    return run(args, world);
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "shard-run: out of host memory\n");
    return 1;
  }
}

} // namespace

int main(int argc, char **argv) {
  // Ranks run as threads, each with its own OpenMP team; spinning idle
  // workers would steal the cores the other ranks compute on. Must be set
  // before the OpenMP runtime starts; a user's setting wins.
  setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
  Args args;
  if (Status s = parseArgs(argc, argv, args); !s.ok()) {
    std::fprintf(stderr, "shard-run: %s\n%s", s.message().c_str(), kUsage);
    return 1;
  }
  if (!underMpiLauncher())
    return runOrReportMemory(args, nullptr);
#ifdef SHARDRUN_HAVE_MPI
  if (Status s = comm::initializeMpi(); !s.ok()) {
    std::fprintf(stderr, "shard-run: %s\n", s.toString().c_str());
    return 1;
  }
  comm::CommOptions options;
  options.timeout = std::chrono::milliseconds(args.timeoutMs);
  auto mpi = comm::createMpiCommunicator(options);
  if (!mpi.ok()) {
    std::fprintf(stderr, "shard-run: %s\n", mpi.status().toString().c_str());
    return 1;
  }
  return runOrReportMemory(args, mpi->get());
#else
  std::fprintf(stderr, "shard-run: started by an MPI launcher, but this build "
                       "has no MPI backend\n");
  return 1;
#endif
}
