//===- StepFlops.h - Arithmetic of a step, for the profile ------*- C++ -*-===//
//
// The profile reports operand bytes for every compute step; for the steps
// whose cost is arithmetic rather than memory traffic it also reports their
// floating-point operations, so that shard-run --profile can print GFLOP/s
// for convolutions and GEMMs next to GB/s for the rest.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_STEPFLOPS_H
#define SHARDRT_ENGINE_STEPFLOPS_H

#include "Prepare.h"

namespace shardrt::exec {

/// Floating-point operations of one run of a prepared step (2 per
/// multiply-add): the multiply-adds of convolutions (only the output region
/// a region conv writes), transposed convolutions, matmul, linear, attention
/// (q k^T and the probabilities times v, every score computed, masked or
/// not) and neighbourhood attention (its window's keys). 0 for every other
/// step, whose cost is its bytes. Biases, softmax and scaling are left out.
uint64_t stepFlops(const fb::Instruction &inst,
                   const std::vector<SlotInfo> &slots);

} // namespace shardrt::exec

#endif // SHARDRT_ENGINE_STEPFLOPS_H
