//===- ArtifactCorruptionTest.cpp - The reader rejects damaged files ------===//
//
// Truncation at every length, every single flipped byte, foreign magic, other
// format versions, and a random-mutation fuzz loop. Mutations are tried both
// as they are (the checksum must catch them) and with the checksum resealed,
// so that they reach the FlatBuffers verifier and the semantic checks, which
// must then reject them or accept them without any out-of-bounds access
// (the test walks every accessor of each artifact that still loads; run it
// under -fsanitize=address,undefined to make that check strict).
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include "shardrt/artifact/Artifact.h"
#include "shardrt/artifact/Format.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

using namespace shardrt;
using namespace shardrt::artifact;
using namespace shardrt::artifact::test;

namespace {

std::vector<uint8_t> bytesOf(const ArtifactWriter &w) {
  StatusOr<std::vector<uint8_t>> bytes = w.serialize();
  EXPECT_TRUE(bytes.ok()) << bytes.status().toString();
  return bytes.ok() ? *bytes : std::vector<uint8_t>();
}

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

/// Touches everything a loaded artifact lets the executor reach, so that
/// sanitizers see any access the checks failed to guard.
size_t walk(const Artifact &a) {
  size_t sum = 0;
  for (int32_t r = 0; r < a.worldSize(); ++r) {
    int32_t c = a.rankClassOf(r);
    const fb::RankClass &rc = a.rankClass(uint32_t(c));
    sum += rc.arena_bytes() + a.meshCoordinates(r).size();
    for (const auto *tensors : {a.root().inputs(), a.root().outputs()})
      for (uint32_t i = 0; tensors && i < tensors->size(); ++i)
        for (int64_t e : a.localShard(*tensors->Get(i), r).shape)
          sum += uint64_t(e);
    for (uint32_t k = 0;
         a.root().constants() && k < a.root().constants()->size(); ++k) {
      ByteSpan s = a.constantShard(k, r);
      for (size_t i = 0; i < s.size; ++i)
        sum += s.data[i];
    }
  }
  for (uint32_t k = 0; a.root().kernels() && k < a.root().kernels()->size();
       ++k) {
    ByteSpan s = a.kernelBinary(k);
    for (size_t i = 0; i < s.size; ++i)
      sum += s.data[i];
  }
  return sum;
}

/// Loads `bytes`, expecting never to crash; walks the artifact if it loads.
Status loadAndWalk(const std::vector<uint8_t> &bytes) {
  StatusOr<Artifact> a = Artifact::loadFromMemory(bytes);
  if (a.ok())
    walk(*a);
  return a.status();
}

TEST(ArtifactCorruptionTest, TruncatedAtEveryLength) {
  std::vector<uint8_t> bytes = bytesOf(smallWriter());
  ASSERT_TRUE(Artifact::loadFromMemory(bytes).ok());
  RecordProperty("bytes", int(bytes.size()));
  for (size_t n = 0; n < bytes.size(); ++n) {
    StatusOr<Artifact> a = Artifact::loadFromMemory(bytes.data(), n);
    ASSERT_FALSE(a.ok()) << "loaded a file truncated to " << n << " bytes";
    EXPECT_EQ(a.status().code(), StatusCode::DataLoss) << n;
    EXPECT_TRUE(contains(a.status().message(), "truncated"))
        << n << ": " << a.status().toString();
    if (n < kHeaderSize)
      continue;
    // The same cut with a header that agrees with it: what remains must
    // still be rejected, by the FlatBuffer or the blob-region checks.
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
    Header h;
    h.payloadSize = n - kHeaderSize;
    encodeHeader(h, cut.data());
    resealChecksum(cut.data(), cut.size());
    EXPECT_FALSE(loadAndWalk(cut).ok()) << "resealed cut at " << n;
  }
}

TEST(ArtifactCorruptionTest, EveryFlippedByteIsRejected) {
  for (const ArtifactWriter &w : {smallWriter(), richWriter()}) {
    std::vector<uint8_t> bytes = bytesOf(w);
    for (size_t i = 0; i < bytes.size(); ++i)
      for (uint8_t mask : {0x01, 0x80, 0xFF}) {
        std::vector<uint8_t> bad = bytes;
        bad[i] ^= mask;
        StatusOr<Artifact> a = Artifact::loadFromMemory(bad);
        ASSERT_FALSE(a.ok()) << "byte " << i << " ^ " << int(mask);
        // Bytes 0-7 are the magic (InvalidArgument), 8-11 the version
        // (FailedPrecondition); sizes, checksum and payload are DataLoss.
        if (i >= 12) {
          EXPECT_EQ(a.status().code(), StatusCode::DataLoss) << i;
        }
      }
  }
}

TEST(ArtifactCorruptionTest, FlippedBytesBehindTheChecksum) {
  std::vector<uint8_t> bytes = bytesOf(smallWriter());
  size_t rejected = 0, tried = 0;
  for (size_t i = kHeaderSize; i < bytes.size(); ++i)
    for (uint8_t mask : {0x01, 0x80, 0xFF}) {
      std::vector<uint8_t> bad = bytes;
      bad[i] ^= mask;
      resealChecksum(bad.data(), bad.size());
      ++tried;
      rejected += !loadAndWalk(bad).ok();
    }
  RecordProperty("tried", int(tried));
  RecordProperty("rejected", int(rejected));
  // Most bytes are offsets, sizes and indices; some (float attributes,
  // alignment padding inside the FlatBuffer, weights) may change freely.
  EXPECT_GT(rejected, tried / 2);
}

TEST(ArtifactCorruptionTest, WrongMagic) {
  std::vector<uint8_t> bytes = bytesOf(smallWriter());
  bytes[0] = 'X';
  StatusOr<Artifact> a = Artifact::loadFromMemory(bytes);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(contains(a.status().message(), "not a shardbin artifact"));
  std::string text = "hello, world";
  EXPECT_EQ(Artifact::loadFromMemory(text.data(), text.size()).status().code(),
            StatusCode::InvalidArgument);
}

TEST(ArtifactCorruptionTest, WrongFormatVersion) {
  std::vector<uint8_t> bytes = bytesOf(smallWriter());
  for (uint32_t version : {0u, 2u, 3u, 0xFFFFFFFFu}) {
    std::vector<uint8_t> other = bytes;
    Header h;
    h.formatVersion = version;
    h.payloadSize = other.size() - kHeaderSize;
    encodeHeader(h, other.data());
    resealChecksum(other.data(), other.size());
    StatusOr<Artifact> a = Artifact::loadFromMemory(other);
    ASSERT_FALSE(a.ok());
    EXPECT_EQ(a.status().code(), StatusCode::FailedPrecondition);
    EXPECT_TRUE(contains(a.status().message(), "format version " +
                                                   std::to_string(version) +
                                                   ", this runtime reads 1"))
        << a.status().toString();
  }
}

TEST(ArtifactCorruptionTest, HeaderSizesAndTrailingBytes) {
  std::vector<uint8_t> bytes = bytesOf(smallWriter());
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  StatusOr<Artifact> a = Artifact::loadFromMemory(longer);
  EXPECT_EQ(a.status().code(), StatusCode::DataLoss);
  EXPECT_TRUE(contains(a.status().message(), "beyond the payload size"));
  std::vector<uint8_t> badHeader = bytes;
  badHeader[12] = 40;
  a = Artifact::loadFromMemory(badHeader);
  EXPECT_EQ(a.status().code(), StatusCode::DataLoss);
  EXPECT_TRUE(contains(a.status().message(), "header size 40"));
  a = Artifact::loadFromMemory(nullptr, 0);
  EXPECT_EQ(a.status().code(), StatusCode::DataLoss);
}

TEST(ArtifactCorruptionTest, ChecksumMismatchMessage) {
  std::vector<uint8_t> bytes = bytesOf(smallWriter());
  bytes.back() ^= 1;
  StatusOr<Artifact> a = Artifact::loadFromMemory(bytes);
  EXPECT_EQ(a.status().code(), StatusCode::DataLoss);
  EXPECT_TRUE(contains(a.status().message(), "checksum mismatch"))
      << a.status().toString();
}

TEST(ArtifactCorruptionTest, UnreadablePaths) {
  StatusOr<Artifact> a = Artifact::load("/nonexistent/model.shardbin");
  EXPECT_EQ(a.status().code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(contains(a.status().message(), "cannot open"));
  a = Artifact::load(::testing::TempDir());
  EXPECT_EQ(a.status().code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(contains(a.status().message(), "not a regular file"));
}

/// One random mutation: flips, overwrites with interesting values, inserts,
/// erases, or truncates.
void mutate(std::vector<uint8_t> &b, std::mt19937_64 &rng) {
  auto pick = [&](size_t n) { return size_t(rng() % (n ? n : 1)); };
  switch (rng() % 6) {
  case 0:
    b[pick(b.size())] ^= uint8_t(1u << (rng() % 8));
    break;
  case 1:
    b[pick(b.size())] = uint8_t(rng());
    break;
  case 2: { // A little-endian 32-bit value that often lands on boundaries.
    static const uint32_t values[] = {0,          1,  0x7FFFFFFF, 0x80000000,
                                      0xFFFFFFFF, 64, 4096};
    size_t at = pick(b.size() > 4 ? b.size() - 4 : 1);
    uint32_t v = values[rng() % 7];
    for (int i = 0; i < 4 && at + i < b.size(); ++i)
      b[at + i] = uint8_t(v >> (8 * i));
    break;
  }
  case 3:
    b.insert(b.begin() + pick(b.size() + 1), uint8_t(rng()));
    break;
  case 4:
    if (!b.empty())
      b.erase(b.begin() + pick(b.size()));
    break;
  default:
    b.resize(pick(b.size()));
    break;
  }
}

TEST(ArtifactCorruptionTest, FuzzLoopNeverCrashes) {
  std::vector<uint8_t> seeds[] = {bytesOf(smallWriter()),
                                  bytesOf(richWriter())};
  std::mt19937_64 rng(20261121);
  size_t loaded = 0;
  const int kIterations = 10000;
  for (int i = 0; i < kIterations; ++i) {
    std::vector<uint8_t> b = seeds[i % 2];
    int mutations = 1 + int(rng() % 4);
    for (int m = 0; m < mutations; ++m)
      mutate(b, rng);
    // Half of the cases get past the checksum to exercise what lies behind.
    if (i % 4 < 2)
      resealChecksum(b.data(), b.size());
    Status s = loadAndWalk(b);
    loaded += s.ok();
    if (!s.ok()) {
      EXPECT_FALSE(s.message().empty());
    }
  }
  RecordProperty("loaded", int(loaded));
  // Not every mutation matters (padding, floats), but most must be caught.
  EXPECT_LT(loaded, size_t(kIterations / 4));
}

} // namespace
