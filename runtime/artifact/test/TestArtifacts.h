//===- TestArtifacts.h - Artifacts shared by the artifact tests -*- C++ -*-===//

#ifndef SHARDRT_ARTIFACT_TEST_TESTARTIFACTS_H
#define SHARDRT_ARTIFACT_TEST_TESTARTIFACTS_H

#include "shardrt/artifact/ArtifactWriter.h"

#include <cstdint>
#include <vector>

namespace shardrt::artifact::test {

/// A slot holding a dense tensor, `bytes` exactly its size.
BufferSlotSpec tensorSlot(uint64_t offset, fb::DType dtype,
                          std::vector<int64_t> shape);

/// Deterministic, distinguishable bytes.
std::vector<uint8_t> pattern(size_t size, uint8_t seed);

/// A 2x2 mesh ("x", "y"), two rank classes (x = 0 and x = 1, whose local
/// shapes differ: the input's dimension 1 of 7 is split 4 + 3 over x), a halo
/// exchange with a non-periodic and a periodic neighbour, a conv, fused
/// kernels, an all-reduce, replicated / sharded / duplicate constants and
/// kernel binaries for two targets.
ArtifactWriter richWriter();

/// Two ranks, two classes, one input, one constant, three instructions: small
/// enough to truncate at and flip every byte.
ArtifactWriter smallWriter();

/// The indices richWriter() gives its parts, for tests that alter them.
namespace rich {
inline constexpr uint32_t kTopClass = 0, kBottomClass = 1;
inline constexpr uint32_t kFieldSlot = 0, kHaloSlot = 1, kWeightSlot = 2,
                          kBiasSlot = 3, kPosSlot = 4, kTmpSlot = 5,
                          kOutSlot = 6, kSumSlot = 7, kScratchSlot = 8;
inline constexpr uint32_t kWeight = 0, kBias = 1, kPos = 2, kWeightCopy = 3;
inline constexpr uint32_t kHaloInst = 0, kWaitInst = 2, kConvInst = 3,
                          kFusedInst = 4, kAllReduceInst = 6;
} // namespace rich

/// The rank class specs richWriter() adds, to compare against.
RankClassSpec richClass(bool top);

} // namespace shardrt::artifact::test

#endif // SHARDRT_ARTIFACT_TEST_TESTARTIFACTS_H
