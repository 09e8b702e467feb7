//===- Profile.h - shard-run --profile's tables -----------------*- C++ -*-===//
//
// Where a run's time goes: per opcode, the mean time per run on every
// profiled rank; then the slowest steps of the first profiled rank. Compute
// steps also show their bandwidth (operand bytes over time), which says how
// close a memory-bound kernel (a fused elementwise or reduction kernel) comes
// to the device's copy bandwidth; convolutions, GEMMs and attention also
// show their arithmetic rate (GFLOP/s), to hold against the device's peak.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRUN_PROFILE_H
#define SHARDRUN_PROFILE_H

#include "Runner.h"

#include <string>
#include <vector>

namespace shardrt {

/// Prints both tables to stdout; nothing when no rank was profiled.
void printProfile(const std::vector<RankStats> &stats, int top);

} // namespace shardrt

#endif // SHARDRUN_PROFILE_H
