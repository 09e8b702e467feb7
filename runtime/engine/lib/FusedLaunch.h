//===- FusedLaunch.h - How a generated fused kernel is launched -*- C++ -*-===//
//
// The launch of a generated ElementwiseFused or ReductionFused kernel (see
// shardc's cudaKernelSource): its parameters, its grid and, for a reduction,
// how many chunks split each output. The CUDA backend launches from it, and
// the host check of the generated kernels (test/hostcuda) launches the same
// parameters in the same order, so the two cannot drift apart.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDRT_ENGINE_FUSEDLAUNCH_H
#define SHARDRT_ENGINE_FUSEDLAUNCH_H

#include "Prepare.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardrt::exec {

/// Kernels take (in0, ..., out); a reduction's also take (partials,
/// arrivals, chunks): block u reduces chunk u % chunks of output u / chunks
/// (or, `tiled`, of the 32 outputs of tile u / chunks; ReductionTiling.h)
/// and the last block of an output to arrive combines the partials. Any
/// grid and any chunks >= 1 give the same result; 256 threads a block.
struct FusedLaunch {
  std::vector<uint32_t> operands; // the input slots, then the output's
  bool reduction = false;
  int64_t outputs = 0; // elements of the output
  bool tiled = false;  // a reduction over tiles of outputs
  long long chunks = 1;
  unsigned blocks = 1;

  /// At most 64 inputs, the output, and a reduction's partials and
  /// arrivals.
  static constexpr size_t kMaxPointers = 67;

  /// Writes the kernel's pointer parameters in order into `pointers` (at
  /// least kMaxPointers): the operands' slots, then a reduction's `partials`
  /// and `arrivals`; returns how many. A reduction's `chunks` follows them.
  size_t pointerArguments(const std::vector<void *> &slots, void *partials,
                          void *arrivals, void **pointers) const {
    size_t count = 0;
    for (uint32_t slot : operands)
      pointers[count++] = slots[slot];
    if (reduction) {
      pointers[count++] = partials;
      pointers[count++] = arrivals;
    }
    return count;
  }

  /// `outputs * chunks` double partials, then `outputs` uint32 arrival
  /// counters, zeroed before the first launch; none with one chunk.
  size_t partialBytes() const {
    return chunks > 1 ? size_t(outputs * chunks) * sizeof(double) : 0;
  }
  size_t scratchBytes() const {
    return chunks > 1 ? partialBytes() + size_t(outputs) * 4 : 0;
  }
};

/// The launch of `inst` (a fused instruction the CPU decoder accepted) on a
/// device with `smCount` multiprocessors: enough blocks to fill it twice,
/// and a reduction with few outputs (or tiles of outputs) split into chunks
/// of at least 8192 elements.
FusedLaunch planFusedLaunch(const fb::Instruction &inst,
                            const PrepareContext &ctx, int smCount);

} // namespace shardrt::exec

#endif // SHARDRT_ENGINE_FUSEDLAUNCH_H
