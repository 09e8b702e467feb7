//===- GroupScanTest.cpp - A split scan that finds its place in the group -===//
//
// The compiler emits one ScanTotals, AllGather, Scan sequence for every
// member of a split scan's group, naming the group by its mesh axes; each
// rank's Scan folds the totals of the members before it, and the group's
// last member writes zeros for totals nobody reads. These tests build that
// sequence by hand (no compiler) over a 2x2 mesh whose group lists y before
// x, so that a rank's place in the group differs from its world rank.
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"
#include "shardrt/Engine.h"
#include "shardrt/artifact/ArtifactWriter.h"
#include "shardrt/comm/Local.h"
#include "shardrt/cpu/ScanStep.h"

#include <gtest/gtest.h>

#include <mutex>

using namespace shardrt;
using namespace shardrt::artifact;

namespace {

constexpr int64_t kLines = 2;
constexpr int kWorld = 4;
// Over [1, 0] of a 2x2 mesh, world rank r = 2 x + y is member 2 y + x.
const std::vector<int> kMemberOf = {0, 2, 1, 3};
// Shard lengths in member order; member 2 (world rank 1) holds nothing.
const std::vector<int64_t> kExtents = {2, 3, 0, 1};

int64_t startOf(int member) {
  int64_t s = 0;
  for (int m = 0; m < member; ++m)
    s += kExtents[size_t(m)];
  return s;
}

/// x[line][i] of the global (kLines, 6) input: distinct small integers, so
/// every prefix sum is exact and a wrong carry shows.
float globalX(int64_t line, int64_t i) { return float(1 + i + 10 * line); }

DimShardingSpec whole(int64_t n) { return {{}, {n}}; }
DimShardingSpec overYX(std::vector<int64_t> extents) {
  return {{1, 0}, std::move(extents)};
}

InstructionSpec instruction(fb::Opcode opcode, std::vector<uint32_t> ins,
                            uint32_t out, std::vector<int64_t> ints,
                            std::vector<uint32_t> axes) {
  InstructionSpec i;
  i.opcode = opcode;
  i.inputs = std::move(ins);
  i.outputs = {out};
  i.ints = std::move(ints);
  i.meshAxes = std::move(axes);
  i.str = "sum";
  return i;
}

/// x (slot 0) -> ScanTotals over `totalsAxes` (slot 1) -> AllGather (slot 2)
/// -> Scan over `scanAxes` from the gathered totals (slot 3). Outputs: the
/// scan and each member's totals.
std::vector<uint8_t> groupScan(std::vector<uint32_t> totalsAxes,
                               std::vector<uint32_t> scanAxes,
                               std::vector<int64_t> scanInts = {1}) {
  const int64_t p = cpu::kPackedScanFloats;
  ArtifactWriter w({"x", "y"}, {2, 2});
  for (int r = 0; r < kWorld; ++r) {
    int64_t len = kExtents[size_t(kMemberOf[size_t(r)])];
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    rc.buffers = {enginetest::f32Slot(0, {kLines, len}),
                  enginetest::f32Slot(64, {kLines, 1, p}),
                  enginetest::f32Slot(128, {kLines, kWorld, p}),
                  enginetest::f32Slot(256, {kLines, len})};
    rc.arenaBytes = 320;
    InstructionSpec gather =
        instruction(fb::Opcode::AllGather, {1}, 2, {1, 1, 1, 1, 1}, {1, 0});
    gather.str.clear();
    rc.program = {instruction(fb::Opcode::ScanTotals, {0}, 1, {1}, totalsAxes),
                  gather,
                  instruction(fb::Opcode::Scan, {0, 2}, 3, scanInts, scanAxes)};
    rc.inputSlots = {0};
    rc.outputSlots = {3, 1};
    w.addRankClass(std::move(rc));
  }
  TensorDescSpec x;
  x.name = "x";
  x.shape = {kLines, 6};
  x.dims = {whole(kLines), overYX(kExtents)};
  TensorDescSpec y = x, totals = x;
  y.name = "y";
  totals.name = "totals";
  totals.shape = {kLines, kWorld, p};
  totals.dims = {whole(kLines), overYX({1, 1, 1, 1}), whole(p)};
  w.addInput(x);
  w.addOutput(y);
  w.addOutput(totals);
  StatusOr<std::vector<uint8_t>> bytes = w.serialize();
  EXPECT_TRUE(bytes.ok()) << bytes.status().toString();
  return bytes.ok() ? *bytes : std::vector<uint8_t>();
}

/// Runs `artifact` on 4 in-process ranks, calling `check(member, scan,
/// totals)` with each rank's outputs; returns the first failing status.
template <typename Check>
Status runGroup(const std::vector<uint8_t> &artifact, Check check) {
  auto engine = Engine::loadFromMemory(artifact.data(), artifact.size());
  if (!engine.ok())
    return engine.status();
  std::mutex mu;
  return comm::LocalWorld::run(kWorld, [&](comm::Communicator &c) -> Status {
    SHARDRT_ASSIGN_OR_RETURN(auto session, Session::create(*engine, &c));
    int m = kMemberOf[size_t(c.rank())];
    int64_t len = kExtents[size_t(m)];
    std::vector<float> in;
    for (int64_t l = 0; l < kLines; ++l)
      for (int64_t i = 0; i < len; ++i)
        in.push_back(globalX(l, startOf(m) + i));
    SHARDRT_RETURN_IF_ERROR(
        session->bindInput(0, in.data(), DType::F32, {kLines, len}));
    SHARDRT_RETURN_IF_ERROR(session->run());
    const auto *scan = static_cast<const float *>(session->outputData(0));
    const auto *totals = static_cast<const float *>(session->outputData(1));
    std::lock_guard<std::mutex> lock(mu);
    check(m, std::vector<float>(scan, scan + kLines * len),
          std::vector<float>(totals, totals + kLines * cpu::kPackedScanFloats));
    return Status();
  });
}

TEST(GroupScan, EachMemberFoldsTheTotalsBeforeItsPlaceInTheGroup) {
  Status s = runGroup(
      groupScan({1, 0}, {1, 0}), [](int m, const std::vector<float> &scan,
                                    const std::vector<float> &totals) {
        int64_t len = kExtents[size_t(m)];
        for (int64_t l = 0; l < kLines; ++l) {
          double prefix = 0;
          for (int64_t i = 0; i < startOf(m); ++i)
            prefix += globalX(l, i);
          for (int64_t i = 0; i < len; ++i) {
            prefix += globalX(l, startOf(m) + i);
            EXPECT_EQ(scan[size_t(l * len + i)], float(prefix))
                << "member " << m << " line " << l << " element " << i;
          }
          // Its own shard's total, or zeros on the last member.
          double own = 0;
          for (int64_t i = 0; i < len; ++i)
            own += globalX(l, startOf(m) + i);
          const float *packed = totals.data() + l * cpu::kPackedScanFloats;
          if (m == kWorld - 1) {
            for (int64_t k = 0; k < cpu::kPackedScanFloats; ++k)
              EXPECT_EQ(packed[k], 0.f) << "the last member's totals";
          } else {
            EXPECT_EQ(cpu::unpackScanValue(packed), own) << "member " << m;
          }
        }
      });
  EXPECT_TRUE(s.ok()) << s.toString();
}

TEST(GroupScan, WithoutAGroupEveryMemberWritesItsTotals) {
  // ScanTotals without mesh axes has no last member to spare; the Scan still
  // finds its place from its own axes.
  Status s =
      runGroup(groupScan({}, {1, 0}), [](int m, const std::vector<float> &,
                                         const std::vector<float> &totals) {
        for (int64_t l = 0; l < kLines; ++l) {
          double own = 0;
          for (int64_t i = 0; i < kExtents[size_t(m)]; ++i)
            own += globalX(l, startOf(m) + i);
          EXPECT_EQ(
              cpu::unpackScanValue(totals.data() + l * cpu::kPackedScanFloats),
              own)
              << "member " << m;
        }
      });
  EXPECT_TRUE(s.ok()) << s.toString();
}

TEST(GroupScan, TotalsOfAnotherGroupAreRefused) {
  // Over x alone the group has 2 members, but 4 totals were gathered.
  Status s =
      runGroup(groupScan({1, 0}, {0}), [](int, const std::vector<float> &,
                                          const std::vector<float> &) {});
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << s.toString();
  EXPECT_NE(s.message().find("has the totals of 4 shards for a group of 2"),
            std::string::npos)
      << s.toString();
}

TEST(GroupScan, ACountAndAGroupAreRefused) {
  Status s = runGroup(
      groupScan({1, 0}, {1, 0}, {1, 2}),
      [](int, const std::vector<float> &, const std::vector<float> &) {});
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << s.toString();
  EXPECT_NE(s.message().find("(Scan): names both how many totals it folds "
                             "and a group"),
            std::string::npos)
      << s.toString();
}

} // namespace
