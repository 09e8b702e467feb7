//===- FormatTest.cpp - Header and checksum -------------------------------===//

#include "shardrt/artifact/Format.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

using namespace shardrt;
using namespace shardrt::artifact;

namespace {

std::string repeat(const std::string &s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += s;
  return out;
}

// Reference values of the xxHash 64-bit algorithm (seed 0), as published
// with xxHash and its ports; they cover the short (< 32 bytes), 4-byte tail
// and 32-byte stripe paths.
TEST(Xxh64Test, MatchesReferenceVectors) {
  struct {
    std::string input;
    uint64_t hash;
  } cases[] = {
      {"", 0xEF46DB3751D8E999ULL},
      {"a", 0xD24EC4F1A98C6E5BULL},
      {"abc", 0x44BC2CF5AD770999ULL},
      {"abcd", 0xDE0327B0D25D92CCULL},
      {repeat("abc", 999), 0x933EB85613976467ULL},
      {repeat("abcd", 1000), 0x205219D38E8898BCULL},
  };
  for (const auto &c : cases)
    EXPECT_EQ(xxh64(c.input.data(), c.input.size()), c.hash)
        << "input of " << c.input.size() << " bytes";
}

TEST(Xxh64Test, IncrementalEqualsOneShotForAnySplit) {
  std::string data = repeat("shardbin-0123456789", 20);
  uint64_t whole = xxh64(data.data(), data.size());
  for (size_t step : {1, 3, 7, 8, 31, 32, 33, 100})
    for (size_t first : {0, 1, 5, 31, 32, 40}) {
      Xxh64 h;
      h.update(data.data(), first);
      for (size_t at = first; at < data.size(); at += step)
        h.update(data.data() + at, std::min(step, data.size() - at));
      EXPECT_EQ(h.digest(), whole) << "step " << step << " first " << first;
    }
}

TEST(HeaderTest, EncodeDecodeRoundTrip) {
  std::vector<uint8_t> file(kHeaderSize + 100, 0);
  Header h;
  h.payloadSize = 100;
  h.checksum = 0x0123456789ABCDEFULL;
  encodeHeader(h, file.data());
  EXPECT_EQ(std::memcmp(file.data(), "SHRDBIN\0", 8), 0);
  // Little endian on disk, whatever the host.
  EXPECT_EQ(file[8], 1);
  EXPECT_EQ(file[12], 32);
  EXPECT_EQ(file[16], 100);
  EXPECT_EQ(file[24], 0xEF);
  StatusOr<Header> d = decodeHeader(file.data(), file.size());
  ASSERT_TRUE(d.ok()) << d.status().toString();
  EXPECT_EQ(d->formatVersion, kFormatVersion);
  EXPECT_EQ(d->headerSize, kHeaderSize);
  EXPECT_EQ(d->payloadSize, 100u);
  EXPECT_EQ(d->checksum, h.checksum);
  // The checksum is over the payload only.
  EXPECT_EQ(verifyChecksum(*d, file.data(), file.size()).code(),
            StatusCode::DataLoss);
  resealChecksum(file.data(), file.size());
  d = decodeHeader(file.data(), file.size());
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(verifyChecksum(*d, file.data(), file.size()).ok());
}

TEST(HeaderTest, BlobRegionIs64ByteAligned) {
  EXPECT_EQ(blobRegionOffset(0), 64u);
  EXPECT_EQ(blobRegionOffset(28), 64u);
  EXPECT_EQ(blobRegionOffset(29), 128u);
  for (uint64_t n = 0; n < 300; ++n) {
    EXPECT_EQ(blobRegionOffset(n) % kBlobAlignment, 0u);
    EXPECT_GE(blobRegionOffset(n), kHeaderSize + 4 + n);
    EXPECT_LT(blobRegionOffset(n), kHeaderSize + 4 + n + kBlobAlignment);
  }
}

} // namespace
