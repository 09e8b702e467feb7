//===- Format.cpp - Header and checksum of .shardbin files ----------------===//

#include "shardrt/artifact/Format.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace shardrt::artifact {

namespace {

constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ULL;
constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ULL;

uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Explicit little-endian loads: the checksum must not depend on the host.
uint64_t load64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}
uint32_t load32(const uint8_t *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}
void store64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = uint8_t(v >> (8 * i));
}
void store32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = uint8_t(v >> (8 * i));
}

uint64_t round(uint64_t acc, uint64_t input) {
  acc += input * kPrime2;
  acc = rotl(acc, 31);
  return acc * kPrime1;
}
uint64_t mergeRound(uint64_t acc, uint64_t value) {
  acc ^= round(0, value);
  return acc * kPrime1 + kPrime4;
}

std::string hex(uint64_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string s = "0x";
  for (int i = 15; i >= 0; --i)
    s += digits[(v >> (4 * i)) & 0xF];
  return s;
}

} // namespace

Xxh64::Xxh64(uint64_t seed)
    : seed_(seed), acc_{seed + kPrime1 + kPrime2, seed + kPrime2, seed,
                        seed - kPrime1} {}

void Xxh64::update(const void *data, size_t size) {
  if (size == 0)
    return;
  const uint8_t *p = static_cast<const uint8_t *>(data);
  total_ += size;
  // Complete a stripe left over from the previous call first.
  if (pendingSize_ > 0) {
    size_t take = std::min(size, sizeof(pending_) - pendingSize_);
    std::memcpy(pending_ + pendingSize_, p, take);
    pendingSize_ += take;
    p += take;
    size -= take;
    if (pendingSize_ < sizeof(pending_))
      return;
    for (int lane = 0; lane < 4; ++lane)
      acc_[lane] = round(acc_[lane], load64(pending_ + 8 * lane));
    pendingSize_ = 0;
  }
  for (; size >= 32; p += 32, size -= 32)
    for (int lane = 0; lane < 4; ++lane)
      acc_[lane] = round(acc_[lane], load64(p + 8 * lane));
  if (size > 0) {
    std::memcpy(pending_, p, size);
    pendingSize_ = size;
  }
}

uint64_t Xxh64::digest() const {
  uint64_t h;
  if (total_ >= 32) {
    h = rotl(acc_[0], 1) + rotl(acc_[1], 7) + rotl(acc_[2], 12) +
        rotl(acc_[3], 18);
    for (uint64_t v : acc_)
      h = mergeRound(h, v);
  } else {
    h = seed_ + kPrime5;
  }
  h += total_;
  const uint8_t *p = pending_;
  const uint8_t *end = pending_ + pendingSize_;
  for (; end - p >= 8; p += 8)
    h = rotl(h ^ round(0, load64(p)), 27) * kPrime1 + kPrime4;
  if (end - p >= 4) {
    h = rotl(h ^ (uint64_t(load32(p)) * kPrime1), 23) * kPrime2 + kPrime3;
    p += 4;
  }
  for (; p < end; ++p)
    h = rotl(h ^ (uint64_t(*p) * kPrime5), 11) * kPrime1;
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  h ^= h >> 32;
  return h;
}

uint64_t xxh64(const void *data, size_t size, uint64_t seed) {
  Xxh64 state(seed);
  state.update(data, size);
  return state.digest();
}

void encodeHeader(const Header &header, uint8_t *out) {
  std::memcpy(out, kMagic, sizeof(kMagic));
  store32(out + 8, header.formatVersion);
  store32(out + 12, header.headerSize);
  store64(out + 16, header.payloadSize);
  store64(out + 24, header.checksum);
}

StatusOr<Header> decodeHeader(const uint8_t *file, size_t size) {
  // Checked before anything else so that "not a shardbin" wins over
  // "truncated" for foreign files, while a cut-off shardbin still reads as
  // truncated.
  size_t magicBytes = std::min(size, sizeof(kMagic));
  if (magicBytes > 0 && std::memcmp(file, kMagic, magicBytes) != 0)
    return Status::invalidArgument(
        "not a shardbin artifact: the file does not start with the magic "
        "\"SHRDBIN\\0\"");
  if (size < kHeaderSize)
    return Status::dataLoss("truncated shardbin artifact: " +
                            std::to_string(size) + " bytes, shorter than the " +
                            std::to_string(kHeaderSize) + "-byte header");
  Header header;
  header.formatVersion = load32(file + 8);
  header.headerSize = load32(file + 12);
  header.payloadSize = load64(file + 16);
  header.checksum = load64(file + 24);
  if (header.formatVersion != kFormatVersion)
    return Status::failedPrecondition(
        "shardbin format version " + std::to_string(header.formatVersion) +
        ", this runtime reads " + std::to_string(kFormatVersion) +
        " (recompile the model with a matching shardc, or use a matching "
        "runtime)");
  if (header.headerSize != kHeaderSize)
    return Status::dataLoss("corrupted shardbin header: header size " +
                            std::to_string(header.headerSize) +
                            ", format version 1 has " +
                            std::to_string(kHeaderSize));
  uint64_t actual = size - kHeaderSize;
  if (header.payloadSize > actual)
    return Status::dataLoss(
        "truncated shardbin artifact: the header announces " +
        std::to_string(header.payloadSize) + " payload bytes, the file has " +
        std::to_string(actual));
  if (header.payloadSize < actual)
    return Status::dataLoss(
        "corrupted shardbin artifact: " +
        std::to_string(actual - header.payloadSize) +
        " bytes beyond the payload size the header announces (" +
        std::to_string(header.payloadSize) + ")");
  return header;
}

Status verifyChecksum(const Header &header, const uint8_t *file, size_t size) {
  uint64_t computed = xxh64(file + kHeaderSize, size - kHeaderSize);
  if (computed != header.checksum)
    return Status::dataLoss("corrupted shardbin artifact: checksum mismatch "
                            "(header " +
                            hex(header.checksum) + ", contents " +
                            hex(computed) + ")");
  return Status();
}

void resealChecksum(uint8_t *file, size_t size) {
  if (size < kHeaderSize)
    return;
  store64(file + 24, xxh64(file + kHeaderSize, size - kHeaderSize));
}

} // namespace shardrt::artifact
