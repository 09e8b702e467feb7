//===- Runner.cpp - Scatter, run, gather ----------------------------------===//

#include "Runner.h"

#include "shardrt/artifact/Artifact.h"
#include "shardrt/artifact/Format.h"
#include "shardrt/comm/Communicator.h"
#include "shardrt/comm/Local.h"
#include "shardrt/cpu/Kernels.h"

#ifdef SHARDRUN_HAVE_NCCL
#include "shardrt/comm/Nccl.h"
#include "shardrt/cuda/Device.h"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <thread>

namespace shardrt {
namespace {

struct RankIo {
  std::vector<std::vector<uint8_t>> inputs; // this rank's local boxes
};

/// Whether rank `rank` holds a partial input's value or the reduction's
/// identity: copies of the value reduce to it under max, min and mean; a sum
/// takes it from the ranks at coordinate 0 of the partial axes and zeros from
/// the rest.
StatusOr<bool> holdsPartialValue(const Engine &engine, const TensorInfo &t,
                                 int rank) {
  if (t.partial == "max" || t.partial == "min" || t.partial == "mean")
    return true;
  if (t.partial != "sum")
    return Status::unimplemented("input '" + t.name + "' is a partial " +
                                 t.partial +
                                 "; shard-run splits only sum, "
                                 "max, min and mean");
  std::vector<int64_t> coords = engine.artifact().meshCoordinates(rank);
  for (uint32_t a : t.partialAxes)
    if (a < coords.size() && coords[a] != 0)
      return false;
  return true;
}

Status prepareRank(const Engine &engine, Session &session, int rank,
                   const std::vector<GlobalTensor> &inputs, RankIo &io,
                   const RunOptions &options) {
  io.inputs.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    SHARDRT_ASSIGN_OR_RETURN(LocalBox box, engine.localInput(i, rank));
    io.inputs[i].resize(size_t(cpu::numElements(box.shape)) *
                        dtypeSize(inputs[i].dtype));
    extractBox(inputs[i], box, io.inputs[i].data());
    if (!engine.input(i).partial.empty()) {
      SHARDRT_ASSIGN_OR_RETURN(
          bool holds, holdsPartialValue(engine, engine.input(i), rank));
      if (!holds)
        std::fill(io.inputs[i].begin(), io.inputs[i].end(), uint8_t(0));
    }
    // Host memory binds without a copy only where kernels run on the host.
    bool host = options.backend == BackendKind::Cpu;
    if (Status s = host ? session.bindInput(i, io.inputs[i].data(),
                                            inputs[i].dtype, box.shape)
                        : session.copyInput(i, io.inputs[i].data(),
                                            inputs[i].dtype, box.shape);
        !s.ok())
      return Status(s.code(),
                    "input '" + engine.input(i).name + "': " + s.message());
  }
  return Status();
}

Status checkInputs(const Engine &engine,
                   const std::vector<GlobalTensor> &inputs) {
  if (inputs.size() != engine.numInputs())
    return Status::invalidArgument(
        "the model has " + std::to_string(engine.numInputs()) +
        " inputs; got " + std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorInfo &t = engine.input(i);
    if (inputs[i].dtype != t.dtype || inputs[i].shape != t.shape)
      return Status::invalidArgument(
          "input '" + t.name + "' must be " + dtypeName(t.dtype) + " " +
          shapeStr(t.shape) + "; got " + dtypeName(inputs[i].dtype) + " " +
          shapeStr(inputs[i].shape));
  }
  for (size_t i = 0; i < engine.numOutputs(); ++i)
    if (!engine.output(i).partial.empty())
      return Status::unimplemented("output '" + engine.output(i).name +
                                   "' is a partial value; shard-run gathers "
                                   "only complete outputs");
  return Status();
}

void allocateOutputs(const Engine &engine, std::vector<GlobalTensor> &outputs) {
  outputs.resize(engine.numOutputs());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const TensorInfo &t = engine.output(i);
    outputs[i].dtype = t.dtype;
    outputs[i].shape = t.shape;
    outputs[i].data.assign(
        size_t(cpu::numElements(t.shape)) * dtypeSize(t.dtype), 0);
  }
}

SessionOptions sessionOptions(const RunOptions &options) {
  SessionOptions so;
  so.backend = options.backend;
  so.threads = options.threadsPerRank;
  so.device = options.device;
  so.cudaGraph = options.cudaGraph;
  so.profile = options.profile;
  so.balanceCausalRings = options.balanceCausalRings;
  return so;
}

/// Output i of this rank, in host memory.
StatusOr<std::vector<uint8_t>> hostOutput(const Session &session, size_t i) {
  const TensorInfo &t = session.engine().output(i);
  const std::vector<int64_t> &shape = session.outputShape(i);
  std::vector<uint8_t> data(size_t(cpu::numElements(shape)) *
                            dtypeSize(t.dtype));
  SHARDRT_RETURN_IF_ERROR(session.copyOutput(i, data.data(), t.dtype, shape));
  return data;
}

/// Runs one rank's session `warmup + iterations` times.
Status runRank(Session &session, int rank, RankStats &stats,
               const RunOptions &options) {
  stats.arenaBytes = session.arenaBytes();
  for (const HostStep &step : session.hostSteps()) {
    ++(step.staged ? stats.stagedSteps : stats.hostWaitSteps);
    if (step.staged)
      ++stats.stagedOpcodes[step.opcode];
  }
  int total = options.warmup + options.iterations;
  for (int it = 0; it < total; ++it) {
    auto start = std::chrono::steady_clock::now();
    SHARDRT_RETURN_IF_ERROR(session.run());
    double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (it >= options.warmup)
      stats.runSeconds.push_back(secs);
    if (it + 1 == options.warmup)
      session.resetProfile();
    if (rank == 0 && options.progress)
      options.progress(it + 1, total);
  }
  stats.steps = session.profile();
  stats.workspaceBytes = session.workspaceBytes();
  return Status();
}

} // namespace

void extractBox(const GlobalTensor &global, const LocalBox &box, uint8_t *dst) {
  cpu::copyBox(global.data.data(), global.shape, box.offset, dst, box.shape,
               std::vector<int64_t>(box.shape.size(), 0), box.shape,
               dtypeSize(global.dtype));
}

void insertBox(GlobalTensor &global, const LocalBox &box, const uint8_t *src) {
  cpu::copyBox(src, box.shape, std::vector<int64_t>(box.shape.size(), 0),
               global.data.data(), global.shape, box.offset, box.shape,
               dtypeSize(global.dtype));
}

std::string shapeStr(const std::vector<int64_t> &shape) {
  std::string s;
  for (int64_t d : shape)
    s += (s.empty() ? "" : "x") + std::to_string(d);
  return s.empty() ? "scalar" : s;
}

using RankBody = std::function<Status(comm::Communicator *, int device)>;

/// The ranks as threads that join one NCCL communicator, rank r on device
/// (device + r) % devices; the failure that came first, named by its rank
/// (a rank that fails aborts its communicator, and its peers then time
/// out: their failures come later and are not the cause).
Status runOverNccl(int world, const RankBody &body,
                   const comm::CommOptions &commOptions, int device) {
#ifdef SHARDRUN_HAVE_NCCL
  int devices = 0;
  SHARDRT_RETURN_IF_ERROR(cuda::deviceCount(&devices));
  SHARDRT_ASSIGN_OR_RETURN(comm::NcclId id, comm::createNcclId());
  std::vector<Status> results(static_cast<size_t>(world));
  std::mutex firstMutex;
  int first = -1;
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r)
    threads.emplace_back([&, r] {
      comm::NcclOptions options;
      options.comm = commOptions;
      options.device = (device + r) % std::max(devices, 1);
      StatusOr<std::unique_ptr<comm::Communicator>> c =
          comm::createNcclCommunicator(id, r, world, options);
      Status s = c.ok() ? body(c->get(), options.device) : c.status();
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(firstMutex);
        if (first < 0)
          first = r;
      }
      if (!s.ok() && c.ok())
        (*c)->abort(s);
      results[size_t(r)] = s;
    });
  for (std::thread &t : threads)
    t.join();
  if (first < 0)
    return Status();
  const Status &s = results[size_t(first)];
  return Status(s.code(), "rank " + std::to_string(first) + ": " + s.message());
#else
  (void)world;
  (void)body;
  (void)commOptions;
  (void)device;
  return Status::unimplemented("this shard-run was built without NCCL");
#endif
}

Status runLocal(const std::shared_ptr<const Engine> &engine,
                const std::vector<GlobalTensor> &inputs,
                std::vector<GlobalTensor> &outputs,
                std::vector<RankStats> &stats, const RunOptions &options) {
  SHARDRT_RETURN_IF_ERROR(checkInputs(*engine, inputs));
  allocateOutputs(*engine, outputs);
  int world = engine->worldSize();
  stats.assign(size_t(world), {});
  std::mutex outputMutex;
  comm::CommOptions commOptions;
  commOptions.timeout = std::chrono::milliseconds(options.timeoutMs);
  // CUDA ranks on one GPU exchange halos device to device.
  commOptions.copyBytes = localMessageCopy(options.backend);
  RankBody body = [&](comm::Communicator *c, int device) -> Status {
    int rank = c ? c->rank() : 0;
    SessionOptions so = sessionOptions(options);
    so.device = device;
    SHARDRT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                             Session::create(engine, c, so));
    RankIo io;
    SHARDRT_RETURN_IF_ERROR(
        prepareRank(*engine, *session, rank, inputs, io, options));
    SHARDRT_RETURN_IF_ERROR(
        runRank(*session, rank, stats[size_t(rank)], options));
    for (size_t i = 0; i < outputs.size(); ++i) {
      StatusOr<std::vector<uint8_t>> local = hostOutput(*session, i);
      StatusOr<LocalBox> box = engine->localOutput(i, rank);
      if (!local.ok() || !box.ok())
        return local.ok() ? box.status() : local.status();
      std::lock_guard<std::mutex> lock(outputMutex);
      insertBox(outputs[i], *box, local->data());
    }
    return Status();
  };
  if (options.nccl)
    return runOverNccl(world, body, commOptions, options.device);
  if (world == 1)
    return body(nullptr, options.device);
  return comm::LocalWorld::run(
      world, [&](comm::Communicator &c) { return body(&c, options.device); },
      commOptions);
}

namespace {

/// What one process says at a meeting point: whether it got there (with the
/// start of its error if not) and a fingerprint of what it is about to do.
struct ProcessWord {
  uint64_t fingerprint = 0;
  uint32_t failed = 0;
  char message[244] = {};
};
static_assert(sizeof(ProcessWord) == 256, "a fixed-size all-gather record");

/// A hash of the artifact, the inputs, and the run options that shape the
/// communication: processes that differ in any would exchange mismatched
/// messages.
StatusOr<uint64_t> runFingerprint(const Engine &engine,
                                  const std::vector<GlobalTensor> &inputs,
                                  const RunOptions &options) {
  artifact::ByteSpan file = engine.artifact().fileBytes();
  SHARDRT_ASSIGN_OR_RETURN(artifact::Header header,
                           artifact::decodeHeader(file.data, file.size));
  artifact::Xxh64 h;
  auto add = [&](int64_t v) { h.update(&v, sizeof v); };
  add(int64_t(header.checksum));
  add(int64_t(file.size));
  for (int64_t v : {int64_t(options.iterations), int64_t(options.warmup),
                    int64_t(options.backend), int64_t(options.cudaGraph),
                    int64_t(options.nccl), int64_t(options.profile),
                    int64_t(options.balanceCausalRings)})
    add(v);
  add(int64_t(options.resultsUse.size()));
  h.update(options.resultsUse.data(), options.resultsUse.size());
  for (const GlobalTensor &t : inputs) {
    add(int64_t(t.dtype));
    for (int64_t n : t.shape)
      add(n);
    h.update(t.data.data(), t.data.size());
  }
  return h.digest();
}

/// Every process's word on `mine` and `fingerprint`, one all-gather. A
/// process that failed still takes part, so that its peers hear of it at
/// once instead of waiting in their first exchange until the timeout. Its
/// own error is returned to it; the others name it, and `where` it failed.
Status meet(comm::Communicator &comm, const Status &mine, uint64_t fingerprint,
            const std::string &where) {
  ProcessWord word;
  word.fingerprint = fingerprint;
  if (!mine.ok()) {
    word.failed = 1;
    std::string text = mine.toString();
    if (text.size() >= sizeof word.message)
      text = text.substr(0, sizeof word.message - 4) + "...";
    std::memcpy(word.message, text.data(), text.size());
  }
  std::vector<ProcessWord> all(size_t(comm.size()));
  std::vector<int64_t> counts(all.size(), int64_t(sizeof word));
  Status gathered = comm.allGatherV(&word, int64_t(sizeof word), all.data(),
                                    counts, comm::DataType::Byte);
  // A process that failed says why, whether or not its peers answered.
  if (!mine.ok())
    return mine;
  SHARDRT_RETURN_IF_ERROR(gathered);
  std::string failures;
  for (size_t r = 0; r < all.size(); ++r)
    if (all[r].failed) {
      std::string text(all[r].message,
                       strnlen(all[r].message, sizeof all[r].message));
      failures +=
          (failures.empty() ? "" : "; ") +
          ("process " + std::to_string(r) + " failed " + where + ": " + text);
    }
  if (!failures.empty())
    return Status::unavailable(failures);
  // Processes grouped by fingerprint, in order of their first member: the
  // odd one out may be process 0.
  std::vector<std::pair<uint64_t, std::string>> groups;
  for (size_t r = 0; r < all.size(); ++r) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto &x) {
      return x.first == all[r].fingerprint;
    });
    if (g == groups.end())
      groups.push_back({all[r].fingerprint, std::to_string(r)});
    else
      g->second += ", " + std::to_string(r);
  }
  if (groups.size() == 1)
    return Status();
  std::string list;
  for (size_t g = 0; g < groups.size(); ++g)
    list += (g ? " | " : "") + groups[g].second;
  return Status::failedPrecondition(
      "MPI processes run different artifacts, inputs or run options "
      "(--bench, --backend, --cuda-graph, --comm, --profile, --plain-rings, "
      "--check, --atol, --rtol, --output); "
      "processes that "
      "agree: " +
      list + "; start every process alike");
}

/// `s` with "rank N: " in front, for errors of one MPI process.
Status onRank(const comm::Communicator &comm, const Status &s) {
  if (s.ok())
    return s;
  return Status(s.code(),
                "rank " + std::to_string(comm.rank()) + ": " + s.message());
}

} // namespace

Status startTogether(comm::Communicator &comm, const Status &setup,
                     const Engine *engine,
                     const std::vector<GlobalTensor> &inputs,
                     const RunOptions &options) {
  Status mine = setup;
  uint64_t fingerprint = 0;
  if (mine.ok() && !engine)
    mine = Status::invalidArgument("startTogether: no engine");
  if (mine.ok())
    mine = checkInputs(*engine, inputs);
  if (mine.ok()) {
    StatusOr<uint64_t> f = runFingerprint(*engine, inputs, options);
    if (f.ok())
      fingerprint = *f;
    else
      mine = f.status();
  }
  return onRank(comm, meet(comm, mine, fingerprint, "before the run"));
}

/// runDistributed without the rank prefix on its errors.
static Status runThisRank(const std::shared_ptr<const Engine> &engine,
                          comm::Communicator &comm,
                          comm::Communicator &sessionComm,
                          const std::vector<GlobalTensor> &inputs,
                          std::vector<GlobalTensor> &outputs,
                          std::vector<RankStats> &stats,
                          const RunOptions &options) {
  allocateOutputs(*engine, outputs);
  int rank = comm.rank(), world = comm.size();
  // A session that cannot be made here (out of device memory, say) is
  // reported to every process before the first step waits on this one.
  StatusOr<std::unique_ptr<Session>> session = Session::create(
      engine, world == 1 && engine->worldSize() == 1 ? nullptr : &sessionComm,
      sessionOptions(options));
  RankIo io;
  Status prepared = session.status();
  if (prepared.ok())
    prepared = prepareRank(*engine, **session, rank, inputs, io, options);
  SHARDRT_RETURN_IF_ERROR(meet(comm, prepared, 0, "to set up its session"));
  RankStats mine;
  SHARDRT_RETURN_IF_ERROR(runRank(**session, rank, mine, options));
  // Gather every output box to every rank (bytes, rank order).
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::vector<int64_t> counts;
    std::vector<LocalBox> boxes;
    for (int r = 0; r < world; ++r) {
      SHARDRT_ASSIGN_OR_RETURN(LocalBox box, engine->localOutput(i, r));
      counts.push_back(cpu::numElements(box.shape) *
                       int64_t(dtypeSize(outputs[i].dtype)));
      boxes.push_back(box);
    }
    std::vector<uint8_t> all;
    int64_t total = 0;
    for (int64_t c : counts)
      total += c;
    all.resize(size_t(total));
    SHARDRT_ASSIGN_OR_RETURN(std::vector<uint8_t> local,
                             hostOutput(**session, i));
    SHARDRT_RETURN_IF_ERROR(comm.allGatherV(local.data(), counts[size_t(rank)],
                                            all.data(), counts,
                                            comm::DataType::Byte));
    int64_t at = 0;
    for (int r = 0; r < world; ++r) {
      insertBox(outputs[i], boxes[size_t(r)], all.data() + at);
      at += counts[size_t(r)];
    }
  }
  // Gather the timings: [arena, workspace, staged, waits, seconds...] as
  // doubles per rank.
  std::vector<double> mineFlat = {
      double(mine.arenaBytes), double(mine.workspaceBytes),
      double(mine.stagedSteps), double(mine.hostWaitSteps)};
  mineFlat.insert(mineFlat.end(), mine.runSeconds.begin(),
                  mine.runSeconds.end());
  std::vector<int64_t> counts(size_t(world), int64_t(mineFlat.size()));
  std::vector<double> all(mineFlat.size() * size_t(world));
  SHARDRT_RETURN_IF_ERROR(comm.allGatherV(mineFlat.data(),
                                          int64_t(mineFlat.size()), all.data(),
                                          counts, comm::DataType::F64));
  stats.assign(size_t(world), {});
  for (int r = 0; r < world; ++r) {
    const double *p = all.data() + size_t(r) * mineFlat.size();
    stats[size_t(r)].arenaBytes = uint64_t(p[0]);
    stats[size_t(r)].workspaceBytes = uint64_t(p[1]);
    stats[size_t(r)].stagedSteps = int64_t(p[2]);
    stats[size_t(r)].hostWaitSteps = int64_t(p[3]);
    stats[size_t(r)].runSeconds.assign(p + 4, p + mineFlat.size());
  }
  stats[size_t(rank)].stagedOpcodes = mine.stagedOpcodes;
  stats[size_t(rank)].steps = mine.steps;
  return Status();
}

Status runDistributed(const std::shared_ptr<const Engine> &engine,
                      comm::Communicator &comm,
                      const std::vector<GlobalTensor> &inputs,
                      std::vector<GlobalTensor> &outputs,
                      std::vector<RankStats> &stats, const RunOptions &options,
                      comm::Communicator *sessionComm) {
  return onRank(comm,
                runThisRank(engine, comm, sessionComm ? *sessionComm : comm,
                            inputs, outputs, stats, options));
}

double elementValue(const GlobalTensor &t, size_t i) {
  const uint8_t *p = t.data.data() + i * dtypeSize(t.dtype);
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (t.dtype) {
  case DType::F32:
    return load(float());
  case DType::F64:
    return load(double());
  case DType::F16: {
    uint16_t h = load(uint16_t());
    int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    double v = exponent == 0 ? std::ldexp(mantissa, -24)
               : exponent == 31
                   ? (mantissa ? std::numeric_limits<double>::quiet_NaN()
                               : std::numeric_limits<double>::infinity())
                   : std::ldexp(mantissa + 1024, exponent - 25);
    return (h & 0x8000) ? -v : v;
  }
  case DType::BF16: {
    uint32_t bits = uint32_t(load(uint16_t())) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  case DType::I32:
    return load(int32_t());
  case DType::I64:
    return double(load(int64_t()));
  case DType::Bool:
    return *p != 0;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

Comparison compare(const GlobalTensor &got, const GlobalTensor &want,
                   double atol, double rtol) {
  Comparison c;
  size_t n = size_t(cpu::numElements(want.shape));
  if (got.shape != want.shape || got.dtype != want.dtype ||
      dtypeSize(want.dtype) == 0) {
    c.allClose = false;
    c.mismatches = int64_t(n);
    return c;
  }
  auto mismatch = [&](size_t i, double a, double b) {
    c.allClose = false;
    if (c.mismatches++ == 0) {
      c.firstMismatch = int64_t(i);
      c.firstGot = a;
      c.firstWant = b;
    }
  };
  // Integers and booleans (indices, masks) match exactly: a tolerance
  // would pass an index off by one once it is past atol / rtol.
  bool exact = want.dtype == DType::I32 || want.dtype == DType::I64 ||
               want.dtype == DType::Bool;
  size_t bytes = dtypeSize(want.dtype);
  for (size_t i = 0; i < n; ++i) {
    double a = elementValue(got, i), b = elementValue(want, i);
    if (exact) {
      double err = std::abs(a - b);
      c.maxAbs = std::max(c.maxAbs, err);
      if (b != 0)
        c.maxRel = std::max(c.maxRel, err / std::abs(b));
      // Compared as bytes: int64 values past 2^53 are not doubles.
      if (std::memcmp(got.data.data() + i * bytes, want.data.data() + i * bytes,
                      bytes) != 0)
        mismatch(i, a, b);
      continue;
    }
    if (!std::isfinite(a) || !std::isfinite(b)) {
      // NaN matches NaN and an infinity the same one (numpy's allclose with
      // equal_nan); inf - inf would be NaN.
      bool same = std::isnan(a) ? std::isnan(b) : a == b;
      if (same)
        ++c.matchedNonFinite;
      else
        mismatch(i, a, b);
      continue;
    }
    double err = std::abs(a - b);
    c.maxAbs = std::max(c.maxAbs, err);
    if (b != 0)
      c.maxRel = std::max(c.maxRel, err / std::abs(b));
    if (!(err <= atol + rtol * std::abs(b)))
      mismatch(i, a, b);
  }
  return c;
}

} // namespace shardrt
