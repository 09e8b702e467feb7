//===- WorkspacePlanTest.cpp - The session workspace's placement ----------===//
//
// Reservations held during overlapping instructions must get disjoint bytes;
// the others may share. Checked over random reservations against the
// definition (every pair, every instruction), and the sharing on small
// cases whose best placement is known.
//
//===----------------------------------------------------------------------===//

#include "../lib/Workspace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using shardrt::Status;
using shardrt::exec::WorkspacePlan;

namespace {

struct Want {
  uint64_t bytes;
  uint32_t first, last;
};

uint64_t alignUp(uint64_t n) { return (n + 63) / 64 * 64; }

TEST(WorkspacePlan, ReservationsApartInTimeShareBytes) {
  WorkspacePlan plan;
  WorkspacePlan::Ref a = plan.reserve(100, 0, 0);
  WorkspacePlan::Ref b = plan.reserve(1000, 2, 2);
  WorkspacePlan::Ref c = plan.reserve(10, 4, 4);
  ASSERT_TRUE(plan.finish().ok());
  EXPECT_EQ(plan.bytes(), 1024u); // the largest, aligned
  EXPECT_EQ(a.data(), b.data());
  EXPECT_EQ(b.data(), c.data());
  ASSERT_NE(a.data(), nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 64, 0u);
  // The block is allocated: every byte may be written.
  std::fill(b.data(), b.data() + 1000, uint8_t(7));
}

TEST(WorkspacePlan, AnExtendedReservationKeepsItsBytesUntilItsLastUse) {
  // A started exchange (instruction 1, waited for at 3) and a blocking one
  // at 2 in between: they must not share.
  WorkspacePlan plan;
  WorkspacePlan::Ref started = plan.reserve(256, 1, 1);
  WorkspacePlan::Ref between = plan.reserve(256, 2, 2);
  plan.extendTo(started, 3);
  WorkspacePlan::Ref after = plan.reserve(512, 4, 4);
  ASSERT_TRUE(plan.finish().ok());
  EXPECT_EQ(plan.bytes(), 512u);
  uint8_t *s = started.data(), *b = between.data();
  EXPECT_GE(std::max(s, b) - std::min(s, b), 256);
  EXPECT_NE(after.data(), nullptr);
}

TEST(WorkspacePlan, ForgottenReservationsHoldNothing) {
  // A backend that runs instruction 1 natively gives back what its host
  // step reserved; a later Wait may still extend it, for nothing.
  WorkspacePlan plan;
  plan.reserve(128, 0, 0);
  size_t mark = plan.reservations();
  WorkspacePlan::Ref native = plan.reserve(4096, 1, 1);
  plan.forgetSince(mark);
  plan.extendTo(native, 2);
  ASSERT_TRUE(plan.finish().ok());
  EXPECT_EQ(plan.bytes(), 128u);
}

TEST(WorkspacePlan, NoReservationsHoldNothing) {
  WorkspacePlan plan;
  WorkspacePlan::Ref empty = plan.reserve(0, 0, 0);
  ASSERT_TRUE(plan.finish().ok());
  EXPECT_EQ(plan.bytes(), 0u);
  EXPECT_EQ(empty.data(), nullptr);
}

TEST(WorkspacePlan, ABlockTooLargeToAllocateIsUnavailable) {
  WorkspacePlan plan;
  plan.reserve(uint64_t(1) << 62, 0, 0);
  Status s = plan.finish();
  EXPECT_EQ(s.code(), shardrt::StatusCode::Unavailable) << s.toString();
  EXPECT_NE(s.message().find("bytes of workspace"), std::string::npos)
      << s.message();
}

TEST(WorkspacePlan, RandomReservationsLiveAtOnceNeverOverlap) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    WorkspacePlan plan;
    std::vector<Want> wants;
    std::vector<WorkspacePlan::Ref> refs;
    int n = 1 + int(rng() % 20);
    for (int i = 0; i < n; ++i) {
      uint32_t first = rng() % 30, len = rng() % 5;
      Want w{rng() % 3000, first, first + len};
      refs.push_back(plan.reserve(w.bytes, w.first, w.first));
      if (len)
        plan.extendTo(refs.back(), w.last);
      wants.push_back(w);
    }
    ASSERT_TRUE(plan.finish().ok());
    std::vector<uint8_t *> at;
    for (WorkspacePlan::Ref r : refs)
      at.push_back(r.data());
    uint8_t *base = *std::min_element(at.begin(), at.end());
    uint64_t peakLive = 0, largest = 0;
    for (uint32_t t = 0; t < 40; ++t) {
      uint64_t live = 0;
      for (const Want &w : wants)
        if (w.first <= t && t <= w.last)
          live += alignUp(w.bytes);
      peakLive = std::max(peakLive, live);
    }
    for (size_t i = 0; i < wants.size(); ++i) {
      largest = std::max(largest, alignUp(wants[i].bytes));
      EXPECT_EQ(reinterpret_cast<uintptr_t>(at[i]) % 64, 0u);
      EXPECT_LE(uint64_t(at[i] - base) + wants[i].bytes, plan.bytes());
      for (size_t j = i + 1; j < wants.size(); ++j) {
        const Want &a = wants[i], &b = wants[j];
        bool together = a.first <= b.last && b.first <= a.last;
        bool apart = at[i] + a.bytes <= at[j] || at[j] + b.bytes <= at[i];
        EXPECT_TRUE(!together || apart || !a.bytes || !b.bytes)
            << "trial " << trial << ": reservations " << i << " and " << j;
      }
    }
    // Never less than what is live at once, never more than keeping every
    // reservation apart.
    uint64_t sum = 0;
    for (const Want &w : wants)
      sum += alignUp(w.bytes);
    EXPECT_GE(plan.bytes(), std::max(peakLive, largest));
    EXPECT_LE(plan.bytes(), sum);
  }
}

} // namespace
