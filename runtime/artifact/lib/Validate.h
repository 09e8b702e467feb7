//===- Validate.h - Checks shared by the reader and the writer --*- C++ -*-===//
//
// Private to shardrt_artifact. The writer runs the same checks as the reader
// before it writes a byte, so that the compiler learns about an inconsistent
// artifact when it produces it, not when a cluster job loads it.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ARTIFACT_LIB_VALIDATE_H
#define SHARDRT_ARTIFACT_LIB_VALIDATE_H

#include "shardrt/Status.h"
#include "shardrt/artifact/Artifact.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardrt::artifact::detail {

/// Elements of an optional vector (0 when absent).
template <typename T> uint32_t sizeOf(const flatbuffers::Vector<T> *v) {
  return v ? v->size() : 0;
}

/// InvalidArgument("invalid shardbin artifact: " + message).
Status invalid(const std::string &message);

/// "[2, 3]"; "[]" for an absent vector. Past `shown` values the rest is
/// counted: "[1, 2, ... (40 in all)]".
std::string shapeString(const flatbuffers::Vector<int64_t> *shape,
                        uint32_t shown = UINT32_MAX);

/// Whether `op` is a collective over the mesh axes it names.
bool isCollective(fb::Opcode op);

/// Runs the FlatBuffers verifier on a size-prefixed buffer of exactly `size`
/// bytes (prefix included). DataLoss when it fails.
Status verifyFlatBuffer(const uint8_t *buffer, size_t size);

/// Semantic checks of a verified root (see Artifact.h). On success
/// rankToClass[r] is the class of rank r for every rank of the world.
Status validateArtifact(const fb::Artifact &root,
                        std::vector<int32_t> &rankToClass);

/// Cross-rank checks of a validated artifact (ValidatePairing.cpp): every
/// stream of point-to-point messages between two ranks with one tag is sent
/// and received alike, and the members of every collective group run the
/// same collectives in the same order.
Status checkPairing(const fb::Artifact &root,
                    const std::vector<int32_t> &rankToClass);

/// The ring list last found well formed, and for how many members.
struct CheckedRing {
  const flatbuffers::Vector<int64_t> *ints = nullptr;
  uint64_t members = 0;
};

/// A RingAttention `inst` of class `rc` whose operands and mesh axes are
/// checked (ValidateRing.cpp): its ints (ringAttentionInts) and float, and
/// each rank's blocks against the starts. `checked` spares reading the
/// starts again when the next ring shares the list.
Status checkRingAttention(const fb::RankClass &rc, const fb::Instruction &inst,
                          const std::vector<int64_t> &mesh,
                          const std::string &where, CheckedRing &checked);

/// Mesh shape of a validated artifact (empty for a 0-d mesh).
std::vector<int64_t> meshShape(const fb::Artifact &root);

/// Row-major coordinates of `rank` in a mesh of shape `mesh`.
std::vector<int64_t> meshCoordinates(const std::vector<int64_t> &mesh,
                                     int64_t rank);
/// The rank at `coords` (the inverse of meshCoordinates).
int64_t meshRank(const std::vector<int64_t> &mesh,
                 const std::vector<int64_t> &coords);

/// The box a rank at `coords` owns of `tensor`, whose sharding has been
/// checked against `mesh`. Offsets cost O(shards) per dimension, so the
/// checks, which need only the shape, leave them zero.
LocalShard localShardAt(const fb::TensorDesc &tensor,
                        const std::vector<int64_t> &mesh,
                        const std::vector<int64_t> &coords,
                        bool withOffsets = true);

} // namespace shardrt::artifact::detail

#endif // SHARDRT_ARTIFACT_LIB_VALIDATE_H
