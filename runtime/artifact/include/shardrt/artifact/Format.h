//===- Format.h - The byte layout of a .shardbin file -----------*- C++ -*-===//
//
// A .shardbin file is
//
//   offset 0   magic "SHRDBIN\0"                      8 bytes
//          8   format version, u32 little endian
//         12   header size, u32 (32 in version 1)
//         16   payload size, u64 (file size - header size)
//         24   checksum, u64: xxh64(payload, seed 0)
//         32   payload:
//                u32 FlatBuffer size n, then the FlatBuffer (shardbin.fbs)
//                zero padding up to the next multiple of kBlobAlignment
//                blob region (Artifact.blob_bytes bytes)
//
// The header is fixed-size and outside the FlatBuffer so that a reader can
// reject a foreign, truncated or corrupted file, or one of another format
// version, before handing a single byte to the FlatBuffers verifier. The blob
// region starts on a 64-byte boundary of the file so that weights can be used
// in place from an mmap (page-aligned base) with any alignment up to 64.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ARTIFACT_FORMAT_H
#define SHARDRT_ARTIFACT_FORMAT_H

#include "shardrt/Status.h"

#include <cstddef>
#include <cstdint>

namespace shardrt::artifact {

inline constexpr char kMagic[8] = {'S', 'H', 'R', 'D', 'B', 'I', 'N', '\0'};
/// The only format version this runtime reads and writes. Additive schema
/// changes (new opcodes, new fields) keep it; see shardbin.fbs.
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr uint32_t kHeaderSize = 32;
inline constexpr uint64_t kBlobAlignment = 64;

struct Header {
  uint32_t formatVersion = kFormatVersion;
  uint32_t headerSize = kHeaderSize;
  uint64_t payloadSize = 0;
  uint64_t checksum = 0;
};

/// XXH64 (the xxHash 64-bit algorithm, bit-exact with the reference), written
/// here to keep the runtime free of further dependencies. Incremental, so that
/// the writer can checksum weights it streams to disk without gathering them
/// into one buffer first.
class Xxh64 {
public:
  explicit Xxh64(uint64_t seed = 0);
  void update(const void *data, size_t size);
  uint64_t digest() const;

private:
  uint64_t seed_;
  uint64_t acc_[4];
  uint64_t total_ = 0;
  uint8_t pending_[32];
  size_t pendingSize_ = 0;
};

/// One-shot XXH64.
uint64_t xxh64(const void *data, size_t size, uint64_t seed = 0);

/// Writes `header` (with the magic) into out[0, kHeaderSize), little endian.
void encodeHeader(const Header &header, uint8_t *out);

/// Parses and checks the header of a whole file of `size` bytes: magic,
/// version, header size and that the payload size matches the file size.
/// Does not look at the checksum (see verifyChecksum).
StatusOr<Header> decodeHeader(const uint8_t *file, size_t size);

/// DataLoss unless the payload after the header hashes to header.checksum.
Status verifyChecksum(const Header &header, const uint8_t *file, size_t size);

/// Recomputes and stores the checksum of a complete file in place. For the
/// writer, and for tests that corrupt the payload on purpose yet want it to
/// reach the FlatBuffers verifier and the semantic checks.
void resealChecksum(uint8_t *file, size_t size);

/// File offset of the blob region for a FlatBuffer of `flatBufferSize` bytes
/// (without its size prefix).
inline uint64_t blobRegionOffset(uint64_t flatBufferSize) {
  uint64_t end = kHeaderSize + 4 + flatBufferSize;
  return (end + kBlobAlignment - 1) / kBlobAlignment * kBlobAlignment;
}

} // namespace shardrt::artifact

#endif // SHARDRT_ARTIFACT_FORMAT_H
