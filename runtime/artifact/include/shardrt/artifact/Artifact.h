//===- Artifact.h - A loaded and verified .shardbin -------------*- C++ -*-===//
//
// Loading checks, in order, and stops at the first failure:
//   1. the header (Format.h): magic, format version, sizes;
//   2. the checksum over everything after the header;
//   3. the FlatBuffers verifier (every offset and vector in bounds);
//   4. semantic checks (Validate.cpp): every index the executor will follow
//      (ranks, buffer slots, constants, kernels, blob ranges, mesh axes) is in
//      range and every sharding is consistent with the mesh.
// After a successful load the executor may follow any reference in root()
// without further checks; that is the contract the checks exist for.
//
// Errors: DataLoss for a truncated or corrupted file, InvalidArgument for a
// foreign file or an artifact whose contents are inconsistent,
// FailedPrecondition for another format version, Unimplemented for enum values
// (opcodes, dtypes, ...) newer than this runtime.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ARTIFACT_ARTIFACT_H
#define SHARDRT_ARTIFACT_ARTIFACT_H

#include "shardrt/Status.h"
#include "shardrt/artifact/shardbin_generated.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace shardrt::artifact {

/// A view of bytes owned by an Artifact.
struct ByteSpan {
  const uint8_t *data = nullptr;
  size_t size = 0;
};

/// Bytes per element; 0 for values this runtime does not know.
size_t dtypeSize(fb::DType dtype);

/// Whether instructions of `op` exchange data with other ranks: they run
/// even when they write nothing, since their peers take part.
inline bool communicates(fb::Opcode op) {
  return (op >= fb::Opcode::HaloExchange && op <= fb::Opcode::Wait) ||
         op == fb::Opcode::RingAttention;
}

/// What a RingAttention computes beyond its operands.
struct RingFlags {
  bool causal = false, mask = false, valuesWhole = false, valuesAreKeys = false;
};

/// The ints of a RingAttention: the four flags, the count of the query
/// split's mesh axes, those axes and the query starts (causal rings only:
/// they place each rank's queries in the sequence), then the key starts
/// (one per member of the ring's group, then the end). Every rank of a
/// ring carries the same list. The key starts come last, so the last int
/// is the number of keys. (RingIntsTest pins the layout.)
std::vector<int64_t> ringAttentionInts(const RingFlags &flags,
                                       const std::vector<int64_t> &queryAxes,
                                       const std::vector<int64_t> &queryStarts,
                                       const std::vector<int64_t> &keyStarts);

/// Where the lists of a RingAttention's ints lie: each as [at, at + size).
struct RingIntsLayout {
  RingFlags flags;
  size_t queryAxesAt = 5, queryAxes = 0;
  size_t queryStartsAt = 5, queryStarts = 0; ///< none unless causal
  size_t keyStartsAt = 5, keyStarts = 0;
};

/// Reads int i of a list.
using IntAt = std::function<int64_t(size_t)>;

/// The layout of a RingAttention's `size` ints (read through `at`) for a
/// ring of `members` on a mesh of shape `mesh`: checks the count, the flags
/// and that the query axes are distinct axes of the mesh, not the starts.
/// The error says what is wrong, for the caller to place.
StatusOr<RingIntsLayout> ringIntsLayout(const IntAt &at, size_t size,
                                        uint64_t members,
                                        const std::vector<int64_t> &mesh);

/// The place of the rank at `coords` in the group over the `count` mesh
/// axes read through `axisAt` (listed order, the first major): the member
/// whose starts it holds, without listing the group.
uint64_t placeInGroup(const std::vector<int64_t> &mesh,
                      const std::vector<int64_t> &coords, const IntAt &axisAt,
                      size_t count);

/// Why ints [lo, hi) (read through `at`) are not the `what` starts of a
/// split: they must begin at 0, never decrease and stay within 2^52 (so
/// that position arithmetic in doubles stays exact); "" when they are.
std::string ringStartsProblem(const IntAt &at, size_t lo, size_t hi,
                              const char *what);

/// The box of a tensor that one rank owns: offset and extent per dimension.
struct LocalShard {
  std::vector<int64_t> offset;
  std::vector<int64_t> shape;
};

class Artifact {
public:
  /// Maps the file read-only. The file must not be truncated while the
  /// Artifact lives (a shrinking mapped file faults on access).
  static StatusOr<Artifact> load(const std::string &path);
  /// Copies the bytes (into 64-byte aligned storage, which the FlatBuffer
  /// and the blob region need), so `data` may be freed afterwards.
  static StatusOr<Artifact> loadFromMemory(const void *data, size_t size);
  static StatusOr<Artifact> loadFromMemory(const std::vector<uint8_t> &bytes) {
    return loadFromMemory(bytes.data(), bytes.size());
  }

  Artifact(Artifact &&) noexcept;
  Artifact &operator=(Artifact &&) noexcept;
  ~Artifact();

  const fb::Artifact &root() const { return *root_; }
  uint32_t formatVersion() const { return root_->format_version(); }
  std::string_view producer() const;
  int32_t worldSize() const { return root_->world_size(); }
  uint32_t numRankClasses() const;

  /// The rank class that runs `rank`, or -1 when rank is outside the world.
  int32_t rankClassOf(int32_t rank) const;
  const fb::RankClass &rankClass(uint32_t index) const;

  /// Row-major coordinates of `rank` in the mesh (empty for a 0-d mesh).
  std::vector<int64_t> meshCoordinates(int32_t rank) const;
  /// The box of `tensor` (an input or output of this artifact) owned by
  /// `rank`, from its explicit per-shard extents.
  LocalShard localShard(const fb::TensorDesc &tensor, int32_t rank) const;

  // Indices below (rank class, constant, kernel) must be in range of the
  // artifact's vectors; the checks at load guarantee that every index the
  // artifact itself holds is.

  /// The bytes of the shard of constant `constant` that `rank` uses; an empty
  /// span (null data) when the constant has no shard for that rank.
  ByteSpan constantShard(uint32_t constant, int32_t rank) const;
  ByteSpan kernelBinary(uint32_t kernel) const;
  ByteSpan blobRegion() const { return blob_; }
  /// The whole file, header included.
  ByteSpan fileBytes() const;

private:
  struct Storage;
  Artifact(std::unique_ptr<Storage> storage, const fb::Artifact *root,
           ByteSpan blob, std::vector<int32_t> rankToClass);
  static StatusOr<Artifact> fromStorage(std::unique_ptr<Storage> storage);

  std::unique_ptr<Storage> storage_;
  const fb::Artifact *root_ = nullptr;
  ByteSpan blob_;
  std::vector<int32_t> rankToClass_;
};

} // namespace shardrt::artifact

#endif // SHARDRT_ARTIFACT_ARTIFACT_H
