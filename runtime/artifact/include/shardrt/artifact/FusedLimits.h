//===- FusedLimits.h - What a fused instruction may take --------*- C++ -*-===//
//
// The runtime refuses an ElementwiseFused or ReductionFused with more
// inputs than this (each is a pointer parameter of its generated kernel);
// shardc's passes that build or widen fused kernels (sc-fuse, sc-sink-bias)
// keep within it.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ARTIFACT_FUSEDLIMITS_H
#define SHARDRT_ARTIFACT_FUSEDLIMITS_H

#include <cstddef>

namespace shardrt::artifact {

constexpr size_t kMaxFusedInputs = 64;

} // namespace shardrt::artifact

#endif // SHARDRT_ARTIFACT_FUSEDLIMITS_H
