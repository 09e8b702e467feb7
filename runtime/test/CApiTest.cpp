//===- CApiTest.cpp -------------------------------------------------------===//

#include "shardrt/shardrt.h"

#include "shardrt/Split.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace {

TEST(CApiTest, Version) {
  std::string expected = std::to_string(SHARDRT_VERSION_MAJOR) + "." +
                         std::to_string(SHARDRT_VERSION_MINOR) + "." +
                         std::to_string(SHARDRT_VERSION_PATCH);
  ASSERT_NE(shardrt_version(), nullptr);
  EXPECT_EQ(std::string(shardrt_version()), expected);
}

TEST(CApiTest, CanonicalExtentsMatchesCxx) {
  for (int64_t n = 0; n <= 40; ++n) {
    for (int64_t k = 1; k <= 9; ++k) {
      // One slot past k, to see that only k are written.
      std::vector<int64_t> out(k + 1, -7);
      ASSERT_EQ(shardrt_canonical_extents(n, k, out.data(), k + 1), SHARDRT_OK);
      EXPECT_STREQ(shardrt_last_error(), "");
      EXPECT_EQ(out.back(), -7);
      out.pop_back();
      EXPECT_EQ(out, shardrt::canonicalExtents(n, k));
    }
  }
}

TEST(CApiTest, ErrorPaths) {
  struct Case {
    int64_t n, k;
    bool nullOut;
    int64_t outLen;
    const char *mentions;
  } cases[] = {
      {5, 0, false, 4, "k must be >= 1"},
      {5, -3, false, 4, "k must be >= 1"},
      {-1, 2, false, 4, "n must be >= 0"},
      {5, 5, false, 4, "out_len 4"},
      {5, 2, true, 4, "NULL"},
      {5, 2, false, -1, "out_len -1"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.mentions);
    int64_t buf[4] = {-7, -7, -7, -7};
    int rc = shardrt_canonical_extents(c.n, c.k, c.nullOut ? nullptr : buf,
                                       c.outLen);
    EXPECT_EQ(rc, SHARDRT_INVALID_ARGUMENT);
    ASSERT_NE(shardrt_last_error(), nullptr);
    EXPECT_NE(std::string(shardrt_last_error()).find(c.mentions),
              std::string::npos)
        << shardrt_last_error();
    for (int64_t v : buf)
      EXPECT_EQ(v, -7) << "output written on failure";
  }
}

TEST(CApiTest, HugeShardCountFailsCleanly) {
  int64_t buf[1];
  EXPECT_EQ(shardrt_canonical_extents(10, INT64_MAX, buf, 1),
            SHARDRT_INVALID_ARGUMENT);
}

TEST(CApiTest, SuccessClearsLastError) {
  int64_t buf[2];
  ASSERT_NE(shardrt_canonical_extents(1, 0, buf, 2), SHARDRT_OK);
  EXPECT_STRNE(shardrt_last_error(), "");
  ASSERT_EQ(shardrt_canonical_extents(1, 2, buf, 2), SHARDRT_OK);
  EXPECT_STREQ(shardrt_last_error(), "");
}

TEST(CApiTest, LastErrorIsPerThread) {
  int64_t buf[2];
  ASSERT_NE(shardrt_canonical_extents(-5, 2, buf, 2), SHARDRT_OK);
  std::string mine = shardrt_last_error();
  std::string theirs = "unset";
  std::thread other([&] {
    theirs = shardrt_last_error();
    int64_t b[1];
    (void)shardrt_canonical_extents(1, 0, b, 1);
  });
  other.join();
  EXPECT_EQ(theirs, "");
  EXPECT_EQ(std::string(shardrt_last_error()), mine);
}

} // namespace
