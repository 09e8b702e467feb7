//===- CommInstructionTest.cpp - Exchanges and collectives in programs ----===//
//
// Hand-built 3-rank artifacts (a ring) run on the local backend: a periodic
// halo exchange, an all-reduce and an all-gather-v, checked against values
// computed here; collectives over one axis of a 2x2 mesh and
// reduce-scatter-v; all-gathers into an output that holds their input;
// all-to-all-v over the world and over one axis; a group whose axes are
// listed out of mesh order; a started exchange whose
// staging must outlive a second exchange; and a missing peer that must turn
// into an error, not a hang.
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"
#include "shardrt/Engine.h"
#include "shardrt/artifact/ArtifactWriter.h"
#include "shardrt/comm/Local.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

using namespace shardrt;
using namespace shardrt::artifact;

namespace {

BufferSlotSpec slot(uint64_t offset, std::vector<int64_t> shape) {
  return enginetest::f32Slot(offset, std::move(shape));
}

TensorDescSpec split(std::string name, std::vector<int64_t> extents) {
  TensorDescSpec t;
  t.name = std::move(name);
  int64_t n = 0;
  for (int64_t e : extents)
    n += e;
  t.shape = {n};
  t.dims = {{{0}, std::move(extents)}};
  return t;
}

TransferSpec transfer(fb::TransferKind kind, int peer, int64_t lo, int64_t hi,
                      uint32_t tag) {
  TransferSpec t;
  t.kind = kind;
  t.peer = {peer};
  t.periodic = true;
  t.slot = 1;
  t.lo = {lo};
  t.hi = {hi};
  t.tag = tag;
  return t;
}

/// Ranks hold uneven pieces (extents) of a vector; each pads its piece by
/// one on both sides, fills the pads from its ring neighbours, all-reduces
/// the padded piece (with equal extents; otherwise copies it) and
/// all-gathers the input.
/// How the ring program runs its exchange.
enum class ExchangeShape {
  Blocking,   // pad, exchange, reduce, gather
  Overlapped, // pad, start, gather (while the halo is in flight), Wait, reduce
  NoWait,     // the exchange is started and never waited for
  WaitTwice,  // two Waits name the same exchange
  WaitMissesSlot, // the Wait does not list the slot the receives write
};

std::vector<uint8_t>
ringArtifact(const std::vector<int64_t> &extents, bool withReduce,
             ExchangeShape shape = ExchangeShape::Blocking) {
  int world = int(extents.size());
  ArtifactWriter w({"x"}, {world});
  int64_t total = 0;
  for (int64_t e : extents)
    total += e;
  for (int r = 0; r < world; ++r) {
    int64_t n = extents[size_t(r)];
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    rc.buffers = {slot(0, {n}), slot(256, {n + 2}), slot(512, {n + 2}),
                  slot(768, {total})};
    rc.arenaBytes = 768 + 4 * uint64_t(total);
    InstructionSpec pad;
    pad.opcode = fb::Opcode::Pad;
    pad.inputs = {0};
    pad.outputs = {1};
    pad.str = "constant";
    pad.ints = {1, 1};
    pad.floats = {-100.0};
    InstructionSpec halo;
    halo.opcode = fb::Opcode::HaloExchange;
    halo.transfers = {transfer(fb::TransferKind::Send, -1, 1, 2, 1),
                      transfer(fb::TransferKind::Send, +1, n, n + 1, 2),
                      transfer(fb::TransferKind::Recv, +1, n + 1, n + 2, 1),
                      transfer(fb::TransferKind::Recv, -1, 0, 1, 2)};
    InstructionSpec reduce;
    reduce.opcode = fb::Opcode::AllReduce;
    reduce.inputs = {1};
    reduce.outputs = {2};
    reduce.meshAxes = {0};
    reduce.reduce = fb::ReduceKind::Sum;
    InstructionSpec gather;
    gather.opcode = fb::Opcode::AllGather;
    gather.inputs = {0};
    gather.outputs = {3};
    gather.meshAxes = {0};
    gather.ints = {0};
    gather.ints.insert(gather.ints.end(), extents.begin(), extents.end());
    if (!withReduce) { // equal-sized pieces only; keep the slot filled
      reduce = InstructionSpec();
      reduce.opcode = fb::Opcode::Copy;
      reduce.inputs = {1};
      reduce.outputs = {2};
    }
    rc.program = {pad, halo, reduce, gather};
    if (shape != ExchangeShape::Blocking) {
      halo.ints = {1};
      InstructionSpec wait;
      wait.opcode = fb::Opcode::Wait;
      wait.inputs = wait.outputs = {1};
      if (shape == ExchangeShape::WaitMissesSlot)
        wait.inputs = wait.outputs = {2};
      wait.ints = {1};
      rc.program = {pad, halo, gather, wait, reduce};
      if (shape == ExchangeShape::NoWait)
        rc.program = {pad, halo, gather, reduce};
      if (shape == ExchangeShape::WaitTwice)
        rc.program = {pad, halo, gather, wait, wait, reduce};
    }
    rc.inputSlots = {0};
    rc.outputSlots = {1, 2, 3};
    w.addRankClass(std::move(rc));
  }
  std::vector<int64_t> padded;
  for (int64_t e : extents)
    padded.push_back(e + 2);
  w.addInput(split("x", extents));
  w.addOutput(split("halo", padded));
  w.addOutput(split("sum", padded));
  TensorDescSpec all;
  all.name = "all";
  all.shape = {total};
  all.dims = {{{}, {total}}};
  w.addOutput(all);
  StatusOr<std::vector<uint8_t>> bytes = w.serialize();
  EXPECT_TRUE(bytes.ok()) << bytes.status().toString();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

struct RankResult {
  std::vector<float> halo, sum, all;
};

std::vector<RankResult> runRing(const std::vector<int64_t> &extents,
                                bool withReduce,
                                ExchangeShape shape = ExchangeShape::Blocking) {
  std::vector<uint8_t> bytes = ringArtifact(extents, withReduce, shape);
  auto engine = Engine::loadFromMemory(bytes.data(), bytes.size());
  EXPECT_TRUE(engine.ok()) << engine.status().toString();
  int world = int(extents.size());
  std::vector<RankResult> results(static_cast<size_t>(world));
  Status s = comm::LocalWorld::run(world, [&](comm::Communicator &c) -> Status {
    auto session = Session::create(*engine, &c);
    if (!session.ok())
      return session.status();
    int r = c.rank();
    int64_t start = 0;
    for (int q = 0; q < r; ++q)
      start += extents[size_t(q)];
    std::vector<float> x;
    for (int64_t i = 0; i < extents[size_t(r)]; ++i)
      x.push_back(float(start + i));
    SHARDRT_RETURN_IF_ERROR(
        (*session)->bindInput(0, x.data(), DType::F32, {extents[size_t(r)]}));
    SHARDRT_RETURN_IF_ERROR((*session)->run());
    RankResult &out = results[size_t(r)];
    for (size_t o = 0; o < 3; ++o) {
      const float *p = static_cast<const float *>((*session)->outputData(o));
      int64_t n = (*session)->outputShape(o)[0];
      (o == 0 ? out.halo : o == 1 ? out.sum : out.all).assign(p, p + n);
    }
    return Status();
  });
  EXPECT_TRUE(s.ok()) << s.toString();
  return results;
}

class RingExchange : public ::testing::TestWithParam<ExchangeShape> {};

INSTANTIATE_TEST_SUITE_P(BlockingAndOverlapped, RingExchange,
                         ::testing::Values(ExchangeShape::Blocking,
                                           ExchangeShape::Overlapped));

TEST_P(RingExchange, PeriodicHaloAllReduceAllGather) {
  std::vector<int64_t> extents = {4, 4, 4};
  std::vector<RankResult> res = runRing(extents, true, GetParam());
  ASSERT_EQ(res.size(), 3u);
  for (int r = 0; r < 3; ++r) {
    // Left pad = last element of the left neighbour (wrapping), right pad =
    // first element of the right neighbour.
    std::vector<float> want = {
        float((4 * r + 11) % 12), float(4 * r),     float(4 * r + 1),
        float(4 * r + 2),         float(4 * r + 3), float((4 * r + 4) % 12)};
    EXPECT_EQ(res[size_t(r)].halo, want) << "rank " << r;
    std::vector<float> all(12);
    for (int i = 0; i < 12; ++i)
      all[size_t(i)] = float(i);
    EXPECT_EQ(res[size_t(r)].all, all);
  }
  for (int i = 0; i < 6; ++i) {
    float sum = res[0].halo[size_t(i)] + res[1].halo[size_t(i)] +
                res[2].halo[size_t(i)];
    for (int r = 0; r < 3; ++r)
      EXPECT_EQ(res[size_t(r)].sum[size_t(i)], sum);
  }
}

TEST_P(RingExchange, UnevenExchangeAndGather) {
  std::vector<int64_t> extents = {5, 1, 3};
  std::vector<RankResult> res = runRing(extents, false, GetParam());
  ASSERT_EQ(res.size(), 3u);
  EXPECT_EQ(res[1].halo, (std::vector<float>{4, 5, 6}));
  EXPECT_EQ(res[0].halo, (std::vector<float>{8, 0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(res[2].halo, (std::vector<float>{5, 6, 7, 8, 0}));
  for (const RankResult &r : res)
    EXPECT_EQ(r.all, (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
}

/// Creates every rank's session of a ring artifact; the first error.
Status createRingSessions(ExchangeShape shape) {
  std::vector<uint8_t> bytes = ringArtifact({4, 4, 4}, true, shape);
  auto engine = Engine::loadFromMemory(bytes.data(), bytes.size());
  if (!engine.ok())
    return engine.status();
  return comm::LocalWorld::run(3, [&](comm::Communicator &c) -> Status {
    auto session = Session::create(*engine, &c);
    return session.ok() ? Status() : session.status();
  });
}

TEST(CommInstructions, StartedExchangeNeedsExactlyOneWaitForItsSlots) {
  Status noWait = createRingSessions(ExchangeShape::NoWait);
  EXPECT_EQ(noWait.code(), StatusCode::InvalidArgument) << noWait.toString();
  EXPECT_NE(noWait.message().find("started by instruction 1 has no Wait"),
            std::string::npos)
      << noWait.message();
  Status twice = createRingSessions(ExchangeShape::WaitTwice);
  EXPECT_NE(twice.message().find("instruction 4 (Wait): instruction 1 is "
                                 "waited for twice"),
            std::string::npos)
      << twice.message();
  Status misses = createRingSessions(ExchangeShape::WaitMissesSlot);
  EXPECT_NE(misses.message().find("do not list slot 1"), std::string::npos)
      << misses.message();
}

/// Two ranks, each copying its 4-element input to its output and then
/// running its point-to-point steps (`steps[r]`, transfers of slot 1).
ArtifactWriter
twoRankWriter(const std::vector<std::vector<TransferSpec>> &steps) {
  ArtifactWriter w({"x"}, {2});
  for (int r = 0; r < 2; ++r) {
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    rc.buffers = {slot(0, {4}), slot(64, {4})};
    rc.arenaBytes = 128;
    InstructionSpec copy;
    copy.opcode = fb::Opcode::Copy;
    copy.inputs = {0};
    copy.outputs = {1};
    rc.program = {copy};
    for (const TransferSpec &t : steps[size_t(r)]) {
      InstructionSpec step;
      step.opcode = fb::Opcode::SendRecv;
      step.transfers = {t};
      rc.program.push_back(step);
    }
    rc.inputSlots = {0};
    rc.outputSlots = {1};
    w.addRankClass(std::move(rc));
  }
  w.addInput(split("x", {4, 4}));
  w.addOutput(split("y", {4, 4}));
  return w;
}

std::shared_ptr<const Engine>
twoRankTransfers(const std::vector<std::vector<TransferSpec>> &steps) {
  auto bytes = twoRankWriter(steps).serialize();
  EXPECT_TRUE(bytes.ok()) << bytes.status().toString();
  if (!bytes.ok())
    return nullptr;
  auto engine = Engine::loadFromMemory(bytes->data(), bytes->size());
  EXPECT_TRUE(engine.ok()) << engine.status().toString();
  return engine.ok() ? *engine : nullptr;
}

/// One session per communicator, rank r's from engines[r], each on a thread
/// of its own (as an application drives a world from
/// shardrt_local_world_create), binding ones as the input and running once;
/// every rank's result.
std::vector<Status>
runOnOwnThreads(const std::vector<std::shared_ptr<const Engine>> &engines,
                const std::vector<std::unique_ptr<comm::Communicator>> &comms) {
  std::vector<Status> results(comms.size());
  std::vector<std::thread> threads;
  for (size_t r = 0; r < comms.size(); ++r)
    threads.emplace_back([&, r] {
      auto session = Session::create(engines[r], comms[r].get());
      if (!session.ok()) {
        results[r] = session.status();
        return;
      }
      std::vector<float> x(4, 1.0f);
      results[r] = (*session)->bindInput(0, x.data(), DType::F32, {4});
      if (results[r].ok())
        results[r] = (*session)->run();
    });
  for (std::thread &t : threads)
    t.join();
  return results;
}

// The loader refuses an artifact whose ranks' messages do not pair up, so a
// world whose ranks wait for what their peers never send is made here the
// way it happens in practice: its processes load different artifacts, each
// consistent in itself.

TEST(CommInstructions, AnArtifactWhoseRanksDoNotPairIsRefused) {
  std::vector<uint8_t> bytes =
      twoRankWriter({{transfer(fb::TransferKind::Recv, 1, 0, 4, 7)}, {}})
          .serializeUnchecked();
  auto engine = Engine::loadFromMemory(bytes.data(), bytes.size());
  ASSERT_FALSE(engine.ok());
  EXPECT_NE(engine.status().message().find(
                "rank 1 and rank 0 disagree on their messages with tag 7: "
                "rank 1 sends none; rank 0 receives 1: 16 B (instruction 1)"),
            std::string::npos)
      << engine.status().message();
}

TEST(CommInstructions, MissingPeerTimesOutInsteadOfHanging) {
  // Rank 0 waits for a message with tag 7 from rank 1, which sends one with
  // tag 9.
  std::shared_ptr<const Engine> waits =
      twoRankTransfers({{transfer(fb::TransferKind::Recv, 1, 0, 4, 7)},
                        {transfer(fb::TransferKind::Send, 1, 0, 4, 7)}});
  std::shared_ptr<const Engine> sendsOther =
      twoRankTransfers({{transfer(fb::TransferKind::Recv, 1, 0, 4, 9)},
                        {transfer(fb::TransferKind::Send, 1, 0, 4, 9)}});
  ASSERT_TRUE(waits && sendsOther);
  comm::CommOptions options;
  options.timeout = std::chrono::milliseconds(200);
  auto comms = comm::LocalWorld::create(2, options);
  ASSERT_TRUE(comms.ok());
  auto start = std::chrono::steady_clock::now();
  std::vector<Status> results = runOnOwnThreads({waits, sendsOther}, *comms);
  EXPECT_TRUE(results[1].ok()) << results[1].toString();
  EXPECT_EQ(results[0].code(), StatusCode::DeadlineExceeded)
      << results[0].toString();
  EXPECT_NE(results[0].message().find("instruction 1 (SendRecv)"),
            std::string::npos)
      << results[0].message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(CommInstructions, AFailedRunStopsThePeersWaitingForIt) {
  // Sessions on the test's own threads over a world from LocalWorld::create
  // (as through shardrt_local_world_create). Rank 1 waits for a message
  // rank 0 never sends, under a short timeout of its own; its failed run
  // gives up on the world, so rank 0, waiting (one minute) for what rank 1
  // would have sent next, stops at once. (Rank 0 runs an artifact in which
  // rank 1 only sends; rank 1 one in which rank 0 sends first.)
  std::shared_ptr<const Engine> forRank0 =
      twoRankTransfers({{transfer(fb::TransferKind::Recv, 1, 0, 4, 7)},
                        {transfer(fb::TransferKind::Send, 1, 0, 4, 7)}});
  std::shared_ptr<const Engine> forRank1 =
      twoRankTransfers({{transfer(fb::TransferKind::Send, 1, 0, 4, 8),
                         transfer(fb::TransferKind::Recv, 1, 0, 4, 7)},
                        {transfer(fb::TransferKind::Recv, 1, 0, 4, 8),
                         transfer(fb::TransferKind::Send, 1, 0, 4, 7)}});
  ASSERT_TRUE(forRank0 && forRank1);
  comm::CommOptions options;
  options.timeout = std::chrono::milliseconds(60000);
  auto comms = comm::LocalWorld::create(2, options);
  ASSERT_TRUE(comms.ok());
  ASSERT_TRUE((*comms)[1]->setTimeout(std::chrono::milliseconds(100)).ok());
  auto start = std::chrono::steady_clock::now();
  std::vector<Status> results = runOnOwnThreads({forRank0, forRank1}, *comms);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(results[1].code(), StatusCode::DeadlineExceeded)
      << results[1].toString();
  EXPECT_EQ(results[0].code(), StatusCode::Unavailable)
      << results[0].toString();
  EXPECT_NE(results[0].message().find("rank 1 failed"), std::string::npos)
      << results[0].message();
}

/// A 2x2 mesh ("x" major): rank r = 2 * cx + cy holds x = (10r, 10r + 1,
/// 10r + 2, 10r + 3) and runs collectives over one axis or both.
struct GroupOutputs {
  std::vector<float> rowSum, rowMax, colGather, rowScatter, worldScatter;
  uint64_t workspaceBytes = 0;
};

ArtifactWriter groupCollectivesWriter() {
  using enginetest::meshStep;
  ArtifactWriter w({"x", "y"}, {2, 2});
  for (int r = 0; r < 4; ++r) {
    int64_t cy = r % 2;
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    rc.buffers = {slot(0, {4}),   slot(64, {4}),           slot(128, {4}),
                  slot(192, {8}), slot(256, {cy ? 3 : 1}), slot(320, {1})};
    rc.arenaBytes = 384;
    rc.program = {
        meshStep(fb::Opcode::AllReduce, 0, 1, {1}, {}, fb::ReduceKind::Sum),
        meshStep(fb::Opcode::AllReduce, 0, 2, {1}, {}, fb::ReduceKind::Max),
        meshStep(fb::Opcode::AllGather, 0, 3, {0}, {0, 4, 4}),
        meshStep(fb::Opcode::ReduceScatter, 0, 4, {1}, {0, 1, 3},
                 fb::ReduceKind::Sum),
        meshStep(fb::Opcode::ReduceScatter, 0, 5, {0, 1}, {0, 1, 1, 1, 1},
                 fb::ReduceKind::Sum)};
    rc.inputSlots = {0};
    rc.outputSlots = {1, 2, 3, 4, 5};
    w.addRankClass(std::move(rc));
  }
  auto perRank = [](std::string name, std::vector<int64_t> extents) {
    TensorDescSpec t = split(std::move(name), std::move(extents));
    t.dims[0].meshAxes = {0, 1};
    return t;
  };
  w.addInput(perRank("x", {4, 4, 4, 4}));
  w.addOutput(perRank("row_sum", {4, 4, 4, 4}));
  w.addOutput(perRank("row_max", {4, 4, 4, 4}));
  w.addOutput(perRank("col_gather", {8, 8, 8, 8}));
  w.addOutput(perRank("row_scatter", {1, 3, 1, 3}));
  w.addOutput(perRank("world_scatter", {1, 1, 1, 1}));
  return w;
}

std::vector<GroupOutputs> runGroupCollectives() {
  auto bytes = groupCollectivesWriter().serialize();
  EXPECT_TRUE(bytes.ok()) << bytes.status().toString();
  std::vector<GroupOutputs> results(4);
  if (!bytes.ok())
    return results;
  auto engine = Engine::loadFromMemory(bytes->data(), bytes->size());
  EXPECT_TRUE(engine.ok()) << engine.status().toString();
  if (!engine.ok())
    return results;
  Status s = comm::LocalWorld::run(4, [&](comm::Communicator &c) -> Status {
    auto session = Session::create(*engine, &c);
    if (!session.ok())
      return session.status();
    int r = c.rank();
    std::vector<float> x = {float(10 * r), float(10 * r + 1), float(10 * r + 2),
                            float(10 * r + 3)};
    SHARDRT_RETURN_IF_ERROR(
        (*session)->bindInput(0, x.data(), DType::F32, {4}));
    SHARDRT_RETURN_IF_ERROR((*session)->run());
    GroupOutputs &out = results[size_t(r)];
    std::vector<float> *dst[] = {&out.rowSum, &out.rowMax, &out.colGather,
                                 &out.rowScatter, &out.worldScatter};
    for (size_t o = 0; o < 5; ++o) {
      const float *p = static_cast<const float *>((*session)->outputData(o));
      dst[o]->assign(p, p + (*session)->outputShape(o)[0]);
    }
    out.workspaceBytes = (*session)->workspaceBytes();
    return Status();
  });
  EXPECT_TRUE(s.ok()) << s.toString();
  return results;
}

TEST(CommInstructions, CollectivesOfOverlappingGroupsRunInOneOrder) {
  // Rank 3 runs the gather over "x" last, after the reduce-scatter over
  // both axes. Each axis set's own list of collectives still matches, but
  // ranks 1 and 3 meet in both (they differ in "x" only), over one
  // channel, in opposite orders.
  ArtifactWriter w = groupCollectivesWriter();
  std::vector<InstructionSpec> &program = w.rankClass(3).program;
  std::rotate(program.begin() + 2, program.begin() + 3, program.end());
  auto bytes = w.serializeUnchecked();
  auto engine = Engine::loadFromMemory(bytes.data(), bytes.size());
  ASSERT_FALSE(engine.ok());
  EXPECT_NE(engine.status().message().find(
                "rank 3 and rank 1, which differ in mesh axes [0], disagree "
                "on collective 0 of those over (at least) these axes: rank 3 "
                "runs instruction 3 (ReduceScatter over mesh axes [0, 1], "
                "Sum, ints [0, 1, 1, 1, 1], F32 [4]), rank 1 runs instruction "
                "2 (AllGather over mesh axes [0], ints [0, 4, 4], F32 [8])"),
            std::string::npos)
      << engine.status().message();
}

TEST(CommInstructions, CollectivesOverOneAxisOfA2x2Mesh) {
  std::vector<GroupOutputs> res = runGroupCollectives();
  auto x = [](int r, int i) { return float(10 * r + i); };
  for (int r = 0; r < 4; ++r) {
    int cx = r / 2, cy = r % 2;
    int row0 = 2 * cx, row1 = 2 * cx + 1; // the ranks sharing cx
    int col0 = cy, col1 = 2 + cy;         // the ranks sharing cy
    const GroupOutputs &o = res[size_t(r)];
    std::vector<float> sum, max, gather;
    for (int i = 0; i < 4; ++i) {
      sum.push_back(x(row0, i) + x(row1, i));
      max.push_back(std::max(x(row0, i), x(row1, i)));
    }
    for (int q : {col0, col1})
      for (int i = 0; i < 4; ++i)
        gather.push_back(x(q, i));
    EXPECT_EQ(o.rowSum, sum) << "rank " << r;
    EXPECT_EQ(o.rowMax, max) << "rank " << r;
    EXPECT_EQ(o.colGather, gather) << "rank " << r;
    // Reduce-scatter over y with blocks [0,1) and [1,4).
    std::vector<float> scatter(sum.begin() + (cy ? 1 : 0),
                               sum.begin() + (cy ? 4 : 1));
    EXPECT_EQ(o.rowScatter, scatter) << "rank " << r;
    // Over the whole mesh, element r of the sum of all four inputs.
    float all = 0;
    for (int q = 0; q < 4; ++q)
      all += x(q, r);
    EXPECT_EQ(o.worldScatter, std::vector<float>{all}) << "rank " << r;
    // The largest staging is the all-reduces' over y: one place per member
    // for its 4 floats, 32 bytes in one 64-byte aligned reservation. This
    // member's own place is the running sum, not a reservation of its own
    // (which made it 128).
    EXPECT_EQ(o.workspaceBytes, 64u) << "rank " << r;
  }
}

/// A ring of 3 ranks pads its 4 values twice and fills both pads from its
/// neighbours: the first exchange is started, a second runs blocking before
/// the first one's Wait. The session's workspace must keep the first one's
/// boxes apart from the second's until the Wait, and may reuse them after.
std::vector<uint8_t> twoExchangesArtifact(bool overlapped) {
  ArtifactWriter w({"x"}, {3});
  for (int r = 0; r < 3; ++r) {
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    rc.buffers = {slot(0, {4}), slot(64, {6}), slot(128, {6})};
    rc.arenaBytes = 192;
    std::vector<InstructionSpec> program;
    for (uint32_t padded : {1u, 2u}) {
      InstructionSpec pad;
      pad.opcode = fb::Opcode::Pad;
      pad.inputs = {0};
      pad.outputs = {padded};
      pad.str = "constant";
      pad.ints = {1, 1};
      pad.floats = {-100.0};
      program.push_back(pad);
    }
    auto halo = [](uint32_t slotIndex, uint32_t tag) {
      InstructionSpec h;
      h.opcode = fb::Opcode::HaloExchange;
      h.transfers = {transfer(fb::TransferKind::Send, -1, 1, 2, tag),
                     transfer(fb::TransferKind::Send, +1, 4, 5, tag + 1),
                     transfer(fb::TransferKind::Recv, +1, 5, 6, tag),
                     transfer(fb::TransferKind::Recv, -1, 0, 1, tag + 1)};
      for (TransferSpec &t : h.transfers)
        t.slot = slotIndex;
      return h;
    };
    InstructionSpec first = halo(1, 1), second = halo(2, 3);
    if (overlapped) {
      first.ints = {2};
      InstructionSpec wait;
      wait.opcode = fb::Opcode::Wait;
      wait.inputs = wait.outputs = {1};
      wait.ints = {2};
      program.insert(program.end(), {first, second, wait});
    } else {
      program.insert(program.end(), {first, second});
    }
    rc.program = program;
    rc.inputSlots = {0};
    rc.outputSlots = {1, 2};
    w.addRankClass(std::move(rc));
  }
  w.addInput(split("x", {4, 4, 4}));
  w.addOutput(split("first", {6, 6, 6}));
  w.addOutput(split("second", {6, 6, 6}));
  StatusOr<std::vector<uint8_t>> bytes = w.serialize();
  EXPECT_TRUE(bytes.ok()) << bytes.status().toString();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

TEST(CommInstructions, AStartedExchangeKeepsItsWorkspaceUntilItsWait) {
  for (bool overlapped : {false, true}) {
    SCOPED_TRACE(overlapped ? "overlapped" : "blocking");
    std::vector<uint8_t> bytes = twoExchangesArtifact(overlapped);
    auto engine = Engine::loadFromMemory(bytes.data(), bytes.size());
    ASSERT_TRUE(engine.ok()) << engine.status().toString();
    std::mutex m;
    Status s = comm::LocalWorld::run(3, [&](comm::Communicator &c) -> Status {
      SHARDRT_ASSIGN_OR_RETURN(auto session, Session::create(*engine, &c));
      int r = c.rank();
      std::vector<float> x = {float(4 * r), float(4 * r + 1), float(4 * r + 2),
                              float(4 * r + 3)};
      SHARDRT_RETURN_IF_ERROR(session->bindInput(0, x.data(), DType::F32, {4}));
      uint64_t before = session->workspaceBytes();
      for (int run = 0; run < 2; ++run)
        SHARDRT_RETURN_IF_ERROR(session->run());
      std::vector<float> want = {
          float((4 * r + 11) % 12), x[0], x[1], x[2], x[3],
          float((4 * r + 4) % 12)};
      std::lock_guard<std::mutex> lock(m);
      // Allocated when the session was made; the runs add nothing.
      EXPECT_EQ(before, session->workspaceBytes()) << "rank " << r;
      // Four boxes of one float, 64-byte aligned, per exchange; the two
      // exchanges share them unless one is in flight during the other.
      EXPECT_EQ(session->workspaceBytes(), overlapped ? 512u : 256u)
          << "rank " << r;
      for (size_t o = 0; o < 2; ++o) {
        const float *p = static_cast<const float *>(session->outputData(o));
        EXPECT_EQ(std::vector<float>(p, p + 6), want)
            << "rank " << r << " output " << o;
      }
      return Status();
    });
    EXPECT_TRUE(s.ok()) << s.toString();
  }
}

/// A 2x2 mesh ("x" major): rank r = 2 * cx + cy copies its x (4 values) to
/// a slot inside the output of an all-gather of it, which then lands in
/// that very output (nothing precedes the gathered dim):
///  - over the world, the copy at its own block (exactly in place);
///  - over y, the copy two values into the output (across both blocks);
///  - over x, the copy at its own block (member cx's);
///  - over the world, the copy two values into the output.
/// Run twice with other inputs, so that a stale copy would show.
TEST(CommInstructions, AllGathersIntoTheOutputThatHoldsTheirInput) {
  ArtifactWriter w({"x", "y"}, {2, 2});
  using enginetest::meshStep;
  for (int r = 0; r < 4; ++r) {
    uint64_t cx = uint64_t(r / 2);
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    rc.buffers = {slot(0, {4}),    slot(256 + 16 * uint64_t(r), {4}),
                  slot(256, {16}), slot(512 + 8, {4}),
                  slot(512, {8}),  slot(768 + 16 * cx, {4}),
                  slot(768, {8}),  slot(1024 + 8, {4}),
                  slot(1024, {16})};
    rc.arenaBytes = 1024 + 64;
    const fb::Opcode copy = fb::Opcode::Copy, gather = fb::Opcode::AllGather;
    rc.program = {meshStep(copy, 0, 1, {}, {}),
                  meshStep(gather, 1, 2, {0, 1}, {0, 4, 4, 4, 4}),
                  meshStep(copy, 0, 3, {}, {}),
                  meshStep(gather, 3, 4, {1}, {0, 4, 4}),
                  meshStep(copy, 0, 5, {}, {}),
                  meshStep(gather, 5, 6, {0}, {0, 4, 4}),
                  meshStep(copy, 0, 7, {}, {}),
                  meshStep(gather, 7, 8, {0, 1}, {0, 4, 4, 4, 4})};
    rc.inputSlots = {0};
    rc.outputSlots = {2, 4, 6, 8};
    w.addRankClass(std::move(rc));
  }
  auto perRank = [](std::string name, int64_t n) {
    TensorDescSpec t = split(std::move(name), {n, n, n, n});
    t.dims[0].meshAxes = {0, 1};
    return t;
  };
  w.addInput(perRank("x", 4));
  w.addOutput(perRank("world_in_place", 16));
  w.addOutput(perRank("y_shifted", 8));
  w.addOutput(perRank("x_in_place", 8));
  w.addOutput(perRank("world_shifted", 16));
  auto bytes = w.serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status().toString();
  auto engine = Engine::loadFromMemory(bytes->data(), bytes->size());
  ASSERT_TRUE(engine.ok()) << engine.status().toString();
  auto x = [](int run, int q) {
    std::vector<float> v;
    for (int i = 0; i < 4; ++i)
      v.push_back(float(1000 * run + 10 * q + i));
    return v;
  };
  auto joined = [&](int run, std::vector<int> ranks) {
    std::vector<float> v;
    for (int q : ranks)
      for (float f : x(run, q))
        v.push_back(f);
    return v;
  };
  std::mutex mu;
  Status s = comm::LocalWorld::run(4, [&](comm::Communicator &c) -> Status {
    auto session = Session::create(*engine, &c);
    if (!session.ok())
      return session.status();
    int r = c.rank(), cx = r / 2, cy = r % 2;
    for (int run = 1; run <= 2; ++run) {
      std::vector<float> in = x(run, r);
      SHARDRT_RETURN_IF_ERROR(
          (*session)->bindInput(0, in.data(), DType::F32, {4}));
      SHARDRT_RETURN_IF_ERROR((*session)->run());
      std::vector<std::vector<float>> want = {
          joined(run, {0, 1, 2, 3}), joined(run, {2 * cx, 2 * cx + 1}),
          joined(run, {cy, 2 + cy}), joined(run, {0, 1, 2, 3})};
      std::lock_guard<std::mutex> lock(mu);
      for (size_t o = 0; o < want.size(); ++o) {
        const auto *p = static_cast<const float *>((*session)->outputData(o));
        EXPECT_EQ(std::vector<float>(p, p + want[o].size()), want[o])
            << "rank " << r << " run " << run << " output " << o;
      }
    }
    return Status();
  });
  EXPECT_TRUE(s.ok()) << s.toString();
}

/// All-to-all-v of a (K, R, C) tensor x[k][i][j] = 100k + 10i + j: its
/// rows (dim 1), split over mesh axis `axis` as `rows`, become its columns
/// (dim 2) split as `cols`. On a 2-D mesh dim 0 is split one per coordinate
/// of the other axis, so the groups hold different data.
void checkAllToAll(std::vector<int32_t> meshShape, uint32_t axis,
                   std::vector<int64_t> rows, std::vector<int64_t> cols) {
  std::vector<std::string> names = {"x", "y"};
  names.resize(meshShape.size());
  ArtifactWriter w(names, meshShape);
  int world = 1;
  for (int64_t n : meshShape)
    world *= int(n);
  bool twoD = meshShape.size() == 2;
  uint32_t other = 1 - axis;
  int64_t groups = twoD ? meshShape[other] : 1, numRows = 0, numCols = 0;
  for (int64_t e : rows)
    numRows += e;
  for (int64_t e : cols)
    numCols += e;
  auto coords = [&](int r) {
    return twoD ? std::vector<int64_t>{r / meshShape[1], r % meshShape[1]}
                : std::vector<int64_t>{r};
  };
  for (int r = 0; r < world; ++r) {
    int64_t p = coords(r)[axis];
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    rc.buffers = {slot(0, {1, rows[size_t(p)], numCols}),
                  slot(4096, {1, numRows, cols[size_t(p)]})};
    rc.arenaBytes = 8192;
    InstructionSpec a2a;
    a2a.opcode = fb::Opcode::AllToAll;
    a2a.inputs = {0};
    a2a.outputs = {1};
    a2a.meshAxes = {axis};
    a2a.ints = {2};
    a2a.ints.insert(a2a.ints.end(), cols.begin(), cols.end());
    a2a.ints.push_back(1);
    a2a.ints.insert(a2a.ints.end(), rows.begin(), rows.end());
    rc.program = {a2a};
    rc.inputSlots = {0};
    rc.outputSlots = {1};
    w.addRankClass(std::move(rc));
  }
  DimShardingSpec outer =
      twoD ? DimShardingSpec{{other}, std::vector<int64_t>(size_t(groups), 1)}
           : DimShardingSpec{{}, {1}};
  TensorDescSpec x, y;
  x.name = "x";
  y.name = "y";
  x.shape = y.shape = {groups, numRows, numCols};
  x.dims = {outer, {{axis}, rows}, {{}, {numCols}}};
  y.dims = {outer, {{}, {numRows}}, {{axis}, cols}};
  w.addInput(x);
  w.addOutput(y);
  auto bytes = w.serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status().toString();
  auto engine = Engine::loadFromMemory(bytes->data(), bytes->size());
  ASSERT_TRUE(engine.ok()) << engine.status().toString();
  auto value = [](int64_t k, int64_t i, int64_t j) {
    return float(100 * k + 10 * i + j);
  };
  std::mutex mu;
  Status s = comm::LocalWorld::run(world, [&](comm::Communicator &c) -> Status {
    auto session = Session::create(*engine, &c);
    if (!session.ok())
      return session.status();
    std::vector<int64_t> at = coords(c.rank());
    int64_t p = at[axis], k = twoD ? at[other] : 0, row0 = 0, col0 = 0;
    for (int64_t q = 0; q < p; ++q) {
      row0 += rows[size_t(q)];
      col0 += cols[size_t(q)];
    }
    std::vector<float> in;
    for (int64_t i = 0; i < rows[size_t(p)]; ++i)
      for (int64_t j = 0; j < numCols; ++j)
        in.push_back(value(k, row0 + i, j));
    SHARDRT_RETURN_IF_ERROR((*session)->bindInput(
        0, in.data(), DType::F32, {1, rows[size_t(p)], numCols}));
    SHARDRT_RETURN_IF_ERROR((*session)->run());
    std::vector<float> expected;
    for (int64_t i = 0; i < numRows; ++i)
      for (int64_t j = 0; j < cols[size_t(p)]; ++j)
        expected.push_back(value(k, i, col0 + j));
    const float *got = static_cast<const float *>((*session)->outputData(0));
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(std::vector<float>(got, got + expected.size()), expected)
        << "rank " << c.rank();
    return Status();
  });
  EXPECT_TRUE(s.ok()) << s.toString();
}

TEST(CommInstructions, AllToAllVOverTheWholeWorld) {
  checkAllToAll({3}, 0, {1, 2, 3}, {2, 1, 1});
}

TEST(CommInstructions, AllToAllVOverOneAxisOfA2x2Mesh) {
  checkAllToAll({2, 2}, 1, {1, 3}, {3, 2});
  checkAllToAll({2, 2}, 0, {2, 2}, {4, 1});
}

/// A group lists its mesh axes in any order, the first major: over (y, x)
/// of a 2x2 mesh the members run (0,0), (0,1)... in (y, x), i.e. world ranks
/// 0, 2, 1, 3. A group that spans the world in another order than the
/// world's own must not use the world's collectives (which run in world
/// rank order).
TEST(CommInstructions, GroupsRunInTheOrderTheirAxesAreListed) {
  const std::vector<int64_t> extents = {1, 2, 3, 1}; // in member order
  const std::vector<int> memberOf = {0, 2, 1, 3};    // by world rank
  ArtifactWriter w({"x", "y"}, {2, 2});
  for (int r = 0; r < 4; ++r) {
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    rc.buffers = {slot(0, {extents[size_t(memberOf[size_t(r)])]}),
                  slot(64, {7})};
    rc.arenaBytes = 128;
    InstructionSpec gather;
    gather.opcode = fb::Opcode::AllGather;
    gather.inputs = {0};
    gather.outputs = {1};
    gather.meshAxes = {1, 0};
    gather.ints = {0};
    gather.ints.insert(gather.ints.end(), extents.begin(), extents.end());
    rc.program = {gather};
    rc.inputSlots = {0};
    rc.outputSlots = {1};
    w.addRankClass(std::move(rc));
  }
  TensorDescSpec x = split("x", extents), y;
  x.dims[0].meshAxes = {1, 0};
  y.name = "y";
  y.shape = {7};
  y.dims = {{{}, {7}}};
  w.addInput(x);
  w.addOutput(y);
  StatusOr<std::vector<uint8_t>> bytes = w.serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status().toString();
  auto engine = Engine::loadFromMemory(bytes->data(), bytes->size());
  ASSERT_TRUE(engine.ok()) << engine.status().toString();
  // Member m holds the values 10 m, 10 m + 1, ...
  std::vector<float> expected;
  for (size_t m = 0; m < 4; ++m)
    for (int64_t i = 0; i < extents[m]; ++i)
      expected.push_back(float(10 * m + i));
  std::mutex mu;
  Status s = comm::LocalWorld::run(4, [&](comm::Communicator &c) -> Status {
    auto session = Session::create(*engine, &c);
    if (!session.ok())
      return session.status();
    int m = memberOf[size_t(c.rank())];
    std::vector<float> in;
    for (int64_t i = 0; i < extents[size_t(m)]; ++i)
      in.push_back(float(10 * m + i));
    SHARDRT_RETURN_IF_ERROR(
        (*session)->bindInput(0, in.data(), DType::F32, {int64_t(in.size())}));
    SHARDRT_RETURN_IF_ERROR((*session)->run());
    const float *got = static_cast<const float *>((*session)->outputData(0));
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(std::vector<float>(got, got + 7), expected)
        << "rank " << c.rank();
    return Status();
  });
  EXPECT_TRUE(s.ok()) << s.toString();
}

TEST(CommInstructions, PeerOutsideTheMeshIsRejectedAtLoad) {
  ArtifactWriter w({"x"}, {2});
  for (int r = 0; r < 2; ++r) {
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    rc.buffers = {slot(0, {4}), slot(64, {4})};
    rc.arenaBytes = 128;
    InstructionSpec send;
    send.opcode = fb::Opcode::SendRecv;
    TransferSpec t = transfer(fb::TransferKind::Send, 1, 0, 4, 0);
    t.periodic = false;
    send.transfers = {t};
    rc.program = {send};
    rc.inputSlots = {0};
    rc.outputSlots = {1};
    w.addRankClass(std::move(rc));
  }
  w.addInput(split("x", {4, 4}));
  w.addOutput(split("y", {4, 4}));
  std::vector<uint8_t> bytes = w.serializeUnchecked();
  // The loader's semantic checks catch it (the executor's own peer check is
  // a second line for artifacts built in memory around the loader).
  auto engine = Engine::loadFromMemory(bytes.data(), bytes.size());
  ASSERT_FALSE(engine.ok());
  EXPECT_NE(engine.status().message().find("has no peer at that offset"),
            std::string::npos)
      << engine.status().message();
}

} // namespace
