//===- Runner.h - Running an artifact on a world of ranks -------*- C++ -*-===//
//
// Global tensors in, global tensors out: scatters each input to the ranks
// per the artifact's shardings, runs every rank (as threads with the local
// backend, or this process's rank under MPI), and gathers the outputs.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRUN_RUNNER_H
#define SHARDRUN_RUNNER_H

#include "shardrt/Engine.h"
#include "shardrt/Status.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace shardrt {
namespace comm {
class Communicator;
}

struct GlobalTensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

/// Copies `box` of `global` into a dense buffer (`dst`), or the reverse.
void extractBox(const GlobalTensor &global, const LocalBox &box, uint8_t *dst);
void insertBox(GlobalTensor &global, const LocalBox &box, const uint8_t *src);

/// "2x3", or "scalar" for rank 0.
std::string shapeStr(const std::vector<int64_t> &shape);

struct RankStats {
  std::vector<double> runSeconds; ///< one per timed run
  uint64_t arenaBytes = 0;
  /// Session::workspaceBytes after the runs.
  uint64_t workspaceBytes = 0;
  /// Steps staged through the host, and native steps the host waits for
  /// (Session::hostSteps); the staged opcodes are known for the ranks this
  /// process ran.
  int64_t stagedSteps = 0, hostWaitSteps = 0;
  std::map<std::string, int> stagedOpcodes;
  /// RunOptions::profile: per instruction, over the timed runs; known for
  /// the ranks this process ran.
  std::vector<StepProfile> steps;
};

struct RunOptions {
  int iterations = 1; ///< timed runs (the outputs are from the last)
  int warmup = 0;     ///< untimed runs first
  int threadsPerRank = 0;
  /// Every rank's backend; CUDA ranks of a local world share `device`.
  BackendKind backend = BackendKind::Cpu;
  int device = 0;
  /// In-process CUDA ranks talk over NCCL (rank r on device
  /// (device + r) % devices) instead of the local backend; needs a build
  /// with NCCL (SHARDRUN_HAVE_NCCL).
  bool nccl = false;
  bool cudaGraph = false;
  bool profile = false; ///< time every step (SessionOptions::profile)
  /// SessionOptions::balanceCausalRings (--plain-rings clears it).
  bool balanceCausalRings = true;
  int timeoutMs = 60000;
  /// What the first process does with the results (shard-run's --check,
  /// tolerances and --output files): part of startTogether's fingerprint,
  /// so that one given to another process only is refused, not ignored.
  std::string resultsUse;
  /// Called on rank 0 after each run with (done, total).
  std::function<void(int, int)> progress;
};

/// All ranks as threads of this process (the local comm backend, or NCCL
/// with `options.nccl`).
Status runLocal(const std::shared_ptr<const Engine> &engine,
                const std::vector<GlobalTensor> &inputs,
                std::vector<GlobalTensor> &outputs,
                std::vector<RankStats> &stats, const RunOptions &options);

/// Under MPI, every process calls this once its own set-up (loading the
/// artifact and the inputs) is done, whether that succeeded (`setup`) or
/// not (`engine` may then be null). Returns OK on every process only if
/// every process set up, and all run the same artifact, inputs and run
/// options; otherwise every process gets an error at once ("rank N: ..."),
/// naming the processes that failed (and why) or grouping the processes
/// that agree.
/// Processes that disagree would exchange mismatched messages, which MPI
/// answers with a crash rather than an error; one that just exited would
/// leave the others waiting until the comm timeout.
Status startTogether(comm::Communicator &comm, const Status &setup,
                     const Engine *engine,
                     const std::vector<GlobalTensor> &inputs,
                     const RunOptions &options);

/// This process is one rank of `comm` (e.g. under mpirun), after
/// startTogether said OK. Every process passes the same global inputs;
/// outputs are gathered on every rank; stats are gathered (rank order) as
/// well. The session's steps talk over `sessionComm` where given (NCCL
/// bootstrapped over `comm`, of the same ranks), else over `comm`.
Status runDistributed(const std::shared_ptr<const Engine> &engine,
                      comm::Communicator &comm,
                      const std::vector<GlobalTensor> &inputs,
                      std::vector<GlobalTensor> &outputs,
                      std::vector<RankStats> &stats, const RunOptions &options,
                      comm::Communicator *sessionComm = nullptr);

/// Element `i` of `t` (row-major) as a double, whatever its dtype (f16 and
/// bf16 decoded exactly; i64 past 2^53 rounded).
double elementValue(const GlobalTensor &t, size_t i);

/// max |a - b|, max |a - b| / |b| over |b| > 0 (finite pairs), and whether
/// every element satisfies |a - b| <= atol + rtol * |b| (NaN only matches
/// NaN, an infinity only the same infinity).
struct Comparison {
  double maxAbs = 0, maxRel = 0;
  bool allClose = true;
  int64_t mismatches = 0;
  /// Expected NaNs and infinities that the result matched: the errors above
  /// do not count them.
  int64_t matchedNonFinite = 0;
  /// The first mismatching element (-1: none) and its two values.
  int64_t firstMismatch = -1;
  double firstGot = 0, firstWant = 0;
};
Comparison compare(const GlobalTensor &got, const GlobalTensor &want,
                   double atol, double rtol);

} // namespace shardrt

#endif // SHARDRUN_RUNNER_H
