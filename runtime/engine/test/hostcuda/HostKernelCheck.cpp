//===- HostKernelCheck.cpp - Generated CUDA kernels run on the host -------===//
//
// shardrt-host-kernel-check ARTIFACT KERNELS.so
//
// Runs every generated kernel of an artifact built with --target=cuda on the
// CPU and compares it with the CPU backend's evaluation of the same
// instruction's body. KERNELS.so is the artifact's `--emit=kernels` source
// built by the host C++ compiler against include/cuda_runtime.h, which turns
// each kernel into a function that runs one CUDA thread; each kernel is
// launched through its host launcher `<name>__host` with the parameters
// CudaBackend would give cuLaunchKernel. The CPU backend
// interprets the body it reads from the artifact, while the kernel is the
// compiler's own C++ with every offset folded to constants: two independent
// implementations, so a wrong index, broadcast, scalar formula or reduction
// protocol in the generator shows here without a GPU.
//
// Each kernel runs under three launches: the CUDA backend's own (the
// FusedLaunch it plans for a 132-SM device), and two that its contract
// ("any grid, any chunks") must give the same result under: a grid far
// smaller than the work, and a reduction split into more chunks than it has
// blocks. A block's 256 threads are fibers switched at each __syncthreads
// (HostCuda.cpp); a barrier that not every thread reaches fails the launch,
// reported, not hung on.
//
// Inputs are uniform in [-3, 3] from a fixed seed (NaN where a formula's
// domain ends appears in both results alike), then again with a NaN, a +inf
// and a -inf in each input; outputs start as other random values, so an
// element a kernel skips shows as a mismatch.
//
// Exit: 0 when every kernel agrees, 1 on a mismatch, 2 on bad usage or an
// artifact or library that does not load.
//
//===----------------------------------------------------------------------===//

#include "../../lib/FusedLaunch.h"
#include "../../lib/Prepare.h"
#include "include/cuda.h"
#include "shardrt/artifact/Artifact.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace shardrt;
using namespace shardrt::exec;

namespace {

constexpr unsigned kThreads = 256;

//===----------------------------------------------------------------------===//
// One instruction
//===----------------------------------------------------------------------===//

/// Every slot the instruction names, as host floats.
using SlotData = std::map<uint32_t, std::vector<float>>;

struct Mismatch {
  size_t element = 0;
  float kernel = 0, cpu = 0;
};

/// The first element where `kernel` and `cpu` differ beyond float rounding
/// (NaN must meet NaN, an infinity the same infinity), and the largest
/// difference seen.
bool compare(const std::vector<float> &kernel, const std::vector<float> &cpu,
             double &maxError, Mismatch &first) {
  for (size_t i = 0; i < cpu.size(); ++i) {
    float k = kernel[i], c = cpu[i];
    bool same;
    if (std::isnan(c) || std::isnan(k) || std::isinf(c) || std::isinf(k))
      same = (std::isnan(c) && std::isnan(k)) || k == c;
    else {
      double scale = std::max(1.0, std::fabs(double(c)));
      double error = std::fabs(double(k) - double(c)) / scale;
      maxError = std::max(maxError, error);
      same = error <= 1e-5;
    }
    if (!same) {
      first = {i, k, c};
      return false;
    }
  }
  return true;
}

struct Counts {
  int elementwise = 0, reductions = 0, launches = 0, failures = 0;
  int ownChunked = 0; // reductions the backend itself splits into chunks
  int tiled = 0;      // reductions over tiles of outputs
  double maxError = 0;
};

struct Launch {
  const char *what;
  long long chunks;
  unsigned blocks;
};

std::string describe(const Launch &l) {
  return std::string(l.what) + " (" + std::to_string(l.blocks) + " blocks, " +
         std::to_string(l.chunks) + " chunks)";
}

/// Inputs uniform in [-3, 3], and the output other such values (an element
/// a kernel skips then differs). With `specials`, each slot also holds a
/// NaN, a +inf and a -inf, for the NaN and infinity rules.
SlotData randomSlots(const FusedLaunch &launch, const PrepareContext &ctx,
                     unsigned seed, bool specials) {
  SlotData data;
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  for (uint32_t slot : launch.operands) {
    std::vector<float> &v = data[slot];
    if (!v.empty())
      continue; // an in-place kernel names its output among its inputs
    // Whole floats, rounded up: a bool slot of 1 to 3 bytes gets one.
    size_t bytes = size_t(ctx.slots[slot].tensorBytes());
    v.resize((bytes + sizeof(float) - 1) / sizeof(float));
    for (float &x : v)
      x = dist(gen);
    if (ctx.slots[slot].dtype == fb::DType::I1) {
      auto *b = reinterpret_cast<uint8_t *>(v.data());
      for (size_t k = 0; k < bytes; ++k)
        b[k] = uint8_t(gen() & 1);
      continue;
    }
    if (specials && !v.empty()) {
      std::uniform_int_distribution<size_t> at(0, v.size() - 1);
      v[at(gen)] = std::nanf("");
      v[at(gen)] = INFINITY;
      v[at(gen)] = -INFINITY;
    }
  }
  return data;
}

/// Points a context's slots at `data`.
std::vector<void *> slotPointers(SlotData &data, size_t numSlots) {
  std::vector<void *> slots(numSlots, nullptr);
  for (auto &[slot, v] : data)
    slots[slot] = v.data();
  return slots;
}

/// Runs the kernel under `l` on a copy of `start` and compares its output
/// with `cpu`'s; empty when they agree, else what differs.
std::string checkLaunch(ShardrtHostKernelFn launcher, FusedLaunch launch,
                        const Launch &l, const SlotData &start,
                        const SlotData &cpu, const SlotInfo &output,
                        Counts &counts) {
  launch.chunks = l.chunks;
  launch.blocks = l.blocks;
  SlotData data = start;
  std::vector<void *> slots = slotPointers(data, data.rbegin()->first + 1);
  std::vector<double> partials(launch.partialBytes() / sizeof(double),
                               std::nan(""));
  std::vector<unsigned> arrivals(size_t(launch.outputs), 0u);
  // The parameters as cuLaunchKernel takes them, as CudaBackend passes
  // them, to the kernel's host launcher (which shardc emits).
  std::array<void *, FusedLaunch::kMaxPointers + 1> pointers{}, params{};
  size_t count = launch.pointerArguments(slots, partials.data(),
                                         arrivals.data(), pointers.data());
  for (size_t i = 0; i < count; ++i)
    params[i] = &pointers[i];
  long long chunks = launch.chunks;
  if (launch.reduction)
    params[count++] = &chunks;
  ++counts.launches;
  if (launch.outputs > 0) {
    launcher(params.data(), launch.blocks, kThreads, nullptr);
    if (cudaStreamSynchronize(nullptr) != cudaSuccess) {
      shardrt_hostcuda::resetDevice();
      return "the launch failed (above)";
    }
  }
  uint32_t out = launch.operands.back();
  if (output.dtype == fb::DType::I1) {
    // Bools byte by byte (as floats, a 1 and a 0 byte would be two close
    // denormals); bool outputs are elementwise, with no arrival counters.
    const auto *k = reinterpret_cast<const uint8_t *>(data.at(out).data());
    const auto *c = reinterpret_cast<const uint8_t *>(cpu.at(out).data());
    for (size_t e = 0; e < size_t(output.tensorBytes()); ++e)
      if (k[e] != c[e])
        return "output element " + std::to_string(e) + " is " +
               std::to_string(k[e]) + ", the CPU backend gives " +
               std::to_string(c[e]);
    return "";
  }
  Mismatch first;
  if (!compare(data.at(out), cpu.at(out), counts.maxError, first))
    return "output element " + std::to_string(first.element) + " is " +
           std::to_string(first.kernel) + ", the CPU backend gives " +
           std::to_string(first.cpu);
  if (launch.chunks > 1 && std::any_of(arrivals.begin(), arrivals.end(),
                                       [](unsigned a) { return a != 0; }))
    return "an arrival counter is not reset for the next launch";
  return "";
}

/// Checks instruction `index` of `rc` against the CPU backend.
void checkInstruction(void *library, const artifact::Artifact &art,
                      const fb::RankClass &rc, uint32_t index,
                      const PrepareContext &ctxIn, Counts &counts) {
  const fb::Instruction &inst = *rc.program()->Get(index);
  std::string symbol =
      art.root().kernel_symbols()->Get(uint32_t(inst.kernel()))->str();
  auto fail = [&](const std::string &message) {
    std::fprintf(stderr, "%s: %s\n", symbol.c_str(), message.c_str());
    ++counts.failures;
  };
  PrepareContext ctx = ctxIn;
  ctx.instruction = index;
  StatusOr<RunFn> cpuStep = prepareInstruction(inst, ctx);
  if (!cpuStep.ok())
    return fail("the CPU backend refuses it: " + cpuStep.status().message());
  auto launcher = reinterpret_cast<ShardrtHostKernelFn>(
      dlsym(library, (symbol + "__host").c_str()));
  if (!launcher)
    return fail("its host launcher is not in the kernel library");
  FusedLaunch own = planFusedLaunch(inst, ctx, /*smCount=*/132);
  (own.reduction ? counts.reductions : counts.elementwise)++;
  counts.ownChunked += own.chunks > 1;
  counts.tiled += own.tiled;

  std::vector<Launch> launches = {
      {"the CUDA backend's launch", own.chunks, own.blocks},
      {"a small grid", 1, 3}};
  if (own.reduction)
    launches.push_back({"more chunks than blocks", 5, 2});
  for (bool specials : {false, true}) {
    SlotData start = randomSlots(own, ctx, index * 7919u + specials, specials);
    SlotData cpu = start;
    RunContext runCtx;
    runCtx.slots = slotPointers(cpu, ctx.slots.size());
    if (Status s = (*cpuStep)(runCtx); !s.ok())
      return fail("the CPU backend fails it: " + s.message());
    for (const Launch &l : launches) {
      std::string error = checkLaunch(launcher, own, l, start, cpu,
                                      ctx.slots[own.operands.back()], counts);
      if (!error.empty())
        return fail(describe(l) +
                    (specials ? ", inputs with NaN and inf" : "") + ": " +
                    error);
    }
  }
}

std::vector<SlotInfo> slotInfos(const fb::RankClass &rc) {
  std::vector<SlotInfo> slots;
  for (uint32_t i = 0; rc.buffers() && i < rc.buffers()->size(); ++i) {
    slots.push_back(slotInfo(*rc.buffers()->Get(i)));
  }
  return slots;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s ARTIFACT KERNELS.so\n", argv[0]);
    return 2;
  }
  StatusOr<artifact::Artifact> art = artifact::Artifact::load(argv[1]);
  if (!art.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[1], art.status().message().c_str());
    return 2;
  }
  // A name without a slash would be searched for on the library path.
  std::string path = argv[2];
  if (path.find('/') == std::string::npos)
    path = "./" + path;
  // The kernels' threadIdx and __syncthreads resolve to this program's
  // (HostCuda.cpp and HostCudaRuntime.cpp, exported).
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    std::fprintf(stderr, "%s\n", dlerror());
    return 2;
  }

  const fb::Mesh *mesh = art->root().mesh();
  std::vector<int64_t> meshShape;
  if (mesh && mesh->shape())
    meshShape.assign(mesh->shape()->begin(), mesh->shape()->end());
  Counts counts;
  for (uint32_t c = 0; c < art->numRankClasses(); ++c) {
    const fb::RankClass &rc = art->rankClass(c);
    if (!rc.ranks() || rc.ranks()->size() == 0 || !rc.program())
      continue;
    int rank = rc.ranks()->Get(0);
    std::vector<SlotInfo> slots = slotInfos(rc);
    PrepareContext ctx{slots, rank, meshShape, art->meshCoordinates(rank)};
    for (uint32_t i = 0; i < rc.program()->size(); ++i) {
      const fb::Instruction &inst = *rc.program()->Get(i);
      bool fused = inst.opcode() == fb::Opcode::ElementwiseFused ||
                   inst.opcode() == fb::Opcode::ReductionFused;
      if (fused && inst.kernel() >= 0)
        checkInstruction(library, *art, rc, i, ctx, counts);
    }
  }
  std::printf("%d generated kernels (%d elementwise, %d reductions, %d over "
              "output tiles, %d split into chunks by the CUDA backend) in %u "
              "rank classes, %d launches: %s, largest difference %.3g\n",
              counts.elementwise + counts.reductions, counts.elementwise,
              counts.reductions, counts.tiled, counts.ownChunked,
              art->numRankClasses(), counts.launches,
              counts.failures ? "MISMATCH" : "all match the CPU backend",
              counts.maxError);
  return counts.failures ? 1 : 0;
}
