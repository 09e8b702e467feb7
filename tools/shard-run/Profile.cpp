//===- Profile.cpp - shard-run --profile's tables -------------------------===//

#include "Profile.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace shardrt {
namespace {

/// One opcode's steps on one rank, summed over the steps and averaged over
/// the runs.
struct OpcodeTime {
  int steps = 0;
  double msPerRun = 0;
  uint64_t bytes = 0; ///< operand bytes per run (0 for communication)
  uint64_t flops = 0; ///< per run (0 but for contractions and attention)
};

double msPerRun(const StepProfile &p) {
  return p.runs ? p.totalMs / double(p.runs) : 0.0;
}

std::map<std::string, OpcodeTime>
timeByOpcode(const std::vector<StepProfile> &steps) {
  std::map<std::string, OpcodeTime> byOpcode;
  for (const StepProfile &p : steps) {
    OpcodeTime &t = byOpcode[p.opcode];
    ++t.steps;
    t.msPerRun += msPerRun(p);
    t.bytes += p.bytesRead + p.bytesWritten;
    t.flops += p.flops;
  }
  return byOpcode;
}

/// "812.3": bytes or flops per second, in billions (GB/s, GFLOP/s), or "-"
/// where the count says nothing (communication's bytes, the flops of a step
/// that is not a contraction) or the time is too short to measure.
std::string perSecond(uint64_t count, double ms) {
  if (count == 0 || ms <= 0)
    return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", double(count) / (ms * 1e-3) / 1e9);
  return buf;
}

} // namespace

void printProfile(const std::vector<RankStats> &stats, int top) {
  std::vector<size_t> ranks;
  for (size_t r = 0; r < stats.size(); ++r)
    if (!stats[r].steps.empty())
      ranks.push_back(r);
  if (ranks.empty())
    return;
  const std::vector<StepProfile> &first = stats[ranks[0]].steps;
  std::vector<std::map<std::string, OpcodeTime>> byRank;
  for (size_t r : ranks)
    byRank.push_back(timeByOpcode(stats[r].steps));
  double total = 0;
  for (const auto &[opcode, t] : byRank[0])
    total += t.msPerRun;

  std::printf("\nprofile: ms per run, mean over %llu run(s), as each rank's "
              "stream sees it; GB/s: operand bytes / time, GFLOP/s: "
              "flops of contractions and attention / time (rank %zu)\n",
              (unsigned long long)first[0].runs, ranks[0]);
  std::printf("%-18s %6s", "opcode", "steps");
  for (size_t r : ranks)
    std::printf(" %9s%-3zu", "rank ", r);
  std::printf(" %7s %9s %9s\n", "%", "GB/s", "GFLOP/s");
  // Every opcode any listed rank runs gets a row (a rank of another class
  // may run opcodes rank 0 does not); the counts and rates are rank 0's.
  std::map<std::string, OpcodeTime> opcodes = byRank[0];
  for (const auto &rank : byRank)
    for (const auto &entry : rank)
      opcodes.try_emplace(entry.first);
  std::vector<std::pair<std::string, OpcodeTime>> rows(opcodes.begin(),
                                                       opcodes.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
    return a.second.msPerRun > b.second.msPerRun;
  });
  for (const auto &[opcode, t] : rows) {
    std::printf("%-18s %6d", opcode.c_str(), t.steps);
    for (const auto &rank : byRank) {
      auto it = rank.find(opcode);
      std::printf(" %12.3f", it == rank.end() ? 0.0 : it->second.msPerRun);
    }
    std::printf(" %7.1f %9s %9s\n", total > 0 ? 100 * t.msPerRun / total : 0.0,
                perSecond(t.bytes, t.msPerRun).c_str(),
                perSecond(t.flops, t.msPerRun).c_str());
  }
  std::printf("%-18s %6zu", "total", first.size());
  for (const auto &rank : byRank) {
    double sum = 0;
    for (const auto &[opcode, t] : rank)
      sum += t.msPerRun;
    std::printf(" %12.3f", sum);
  }
  std::printf("\n");

  std::vector<const StepProfile *> slowest;
  for (const StepProfile &p : first)
    slowest.push_back(&p);
  std::stable_sort(slowest.begin(), slowest.end(),
                   [](const StepProfile *a, const StepProfile *b) {
                     return msPerRun(*a) > msPerRun(*b);
                   });
  slowest.resize(std::min(slowest.size(), size_t(std::max(top, 0))));
  if (slowest.empty())
    return;
  std::printf("\nslowest steps of rank %zu:\n%6s %-18s %-22s %10s %10s %12s "
              "%9s %9s\n",
              ranks[0], "instr", "opcode", "kernel", "ms/run", "min ms",
              "operand MiB", "GB/s", "GFLOP/s");
  for (const StepProfile *p : slowest) {
    uint64_t bytes = p->bytesRead + p->bytesWritten;
    std::printf("%6u %-18s %-22s %10.3f %10.3f %12.2f %9s %9s\n",
                p->instruction, p->opcode.c_str(),
                p->kernel.empty() ? "-" : p->kernel.c_str(), msPerRun(*p),
                p->minMs, double(bytes) / (1 << 20),
                perSecond(bytes, msPerRun(*p)).c_str(),
                perSecond(p->flops, msPerRun(*p)).c_str());
  }
}

} // namespace shardrt
