//===- RingScheduleTest.cpp - The balanced causal ring --------------------===//
//
// The balanced schedule of a causal ring whose queries are split as its
// keys (RingStep::helps, helpedBy, foldsAtHand): simulated for rings of 1
// to 12 members, every block a query needs is folded exactly once, no
// member folds two blocks in one step, and the steps with any fold are
// 1 + (P - 1 - near). Then whole rings of 3 to 6 in-process ranks, with
// uneven blocks and an empty one, against cpu::sdpa, recording the
// messages to see that the queries and partial states travel.
//
//===----------------------------------------------------------------------===//

#include "../lib/RingStep.h"
#include "TestModel.h"
#include "shardrt/Engine.h"
#include "shardrt/artifact/Artifact.h"
#include "shardrt/artifact/ArtifactWriter.h"
#include "shardrt/comm/Local.h"
#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>

using namespace shardrt;
using namespace shardrt::artifact;

namespace {

using enginetest::piece;
using enginetest::rowsOf;
using enginetest::splitTensor;

/// Member `self` of a causal ring whose queries are split as the keys.
exec::RingStep member(const std::vector<int64_t> &starts, int64_t self) {
  exec::RingStep r;
  for (size_t i = 0; i + 1 < starts.size(); ++i)
    r.group.ranks.push_back(int(i));
  r.group.index = size_t(self);
  r.starts = starts;
  r.causal = true;
  r.near = exec::balancedNear(r.members());
  r.queryLo = starts[size_t(self)];
  r.l = r.rows(self);
  return r;
}

/// Per (query member, key member) how often a block is folded, and per
/// step how many blocks its busiest member folds; checks along the way
/// that helpers and helped agree.
struct Simulation {
  std::map<std::pair<int64_t, int64_t>, int> folds;
  std::vector<int> busiest;
};

Simulation simulate(const std::vector<int64_t> &starts) {
  int64_t P = int64_t(starts.size()) - 1;
  Simulation sim;
  sim.busiest.assign(size_t(P), 0);
  for (int64_t self = 0; self < P; ++self) {
    exec::RingStep r = member(starts, self);
    for (int64_t t = 0; t < P; ++t) {
      int blocks = 0;
      int64_t block = r.wrap(self - t);
      if (r.foldsAtHand(t)) {
        ++sim.folds[{self, block}];
        ++blocks;
      }
      if (int64_t helped = r.helps(t); helped >= 0) {
        ++sim.folds[{helped, self}];
        ++blocks;
        EXPECT_EQ(member(starts, helped).helpedBy(t), self)
            << "step " << t << ": " << self << " helps " << helped;
        // The block at hand is one the member would not fold anyway.
        EXPECT_TRUE(r.hidden(block)) << "member " << self << " step " << t;
      }
      if (int64_t helper = r.helpedBy(t); helper >= 0) {
        EXPECT_EQ(member(starts, helper).helps(t), self);
      }
      sim.busiest[size_t(t)] = std::max(sim.busiest[size_t(t)], blocks);
    }
  }
  return sim;
}

TEST(RingSchedule, FoldsEveryVisibleBlockOnceInFewerSteps) {
  for (int64_t P = 1; P <= 12; ++P) {
    SCOPED_TRACE("members " + std::to_string(P));
    std::vector<int64_t> starts = {0};
    for (int64_t i = 0; i < P; ++i)
      starts.push_back(starts.back() + 2 + i % 3);
    Simulation sim = simulate(starts);
    for (int64_t s = 0; s < P; ++s)
      for (int64_t j = 0; j < P; ++j)
        EXPECT_EQ((sim.folds[{s, j}]), j <= s ? 1 : 0)
            << "queries of " << s << ", keys of " << j;
    int64_t near = exec::balancedNear(P), busySteps = 0;
    for (int blocks : sim.busiest) {
      EXPECT_LE(blocks, 1);
      busySteps += blocks;
    }
    EXPECT_EQ(busySteps, 1 + (P - 1 - near));
    // From 3 members on, fewer steps than the plain ring's P.
    if (P >= 3) {
      EXPECT_LT(busySteps, P);
    }
  }
  EXPECT_EQ(exec::balancedNear(8), 3); // 5 steps with a fold instead of 8
}

TEST(RingSchedule, EmptyBlocksAreNeitherHelpedNorHelping) {
  // Member 1 holds no keys and no queries.
  std::vector<int64_t> starts = {0, 3, 3, 5, 9, 10};
  Simulation sim = simulate(starts);
  for (int64_t s = 0; s < 5; ++s)
    for (int64_t j = 0; j < 5; ++j)
      EXPECT_EQ((sim.folds[{s, j}]), j <= s && s != 1 && j != 1 ? 1 : 0)
          << "queries of " << s << ", keys of " << j;
  for (int64_t t = 0; t < 5; ++t) {
    EXPECT_EQ(member(starts, 1).helps(t), -1);
    EXPECT_EQ(member(starts, 1).helpedBy(t), -1);
  }
}

//===----------------------------------------------------------------------===//
// Whole rings
//===----------------------------------------------------------------------===//

constexpr int64_t kHeads = 2, kE = 3, kEv = 2;

enum class Values { Passed, Whole, AreKeys };

/// Per rank: q (kHeads, its rows, kE), k (1, its rows, kE) broadcast over
/// the heads, v (1, its rows or all, ev); a causal ring with queries and
/// keys split alike by `starts`; output (kHeads, its rows, ev); with
/// `mask`, an additive mask (its rows, every key).
StatusOr<std::vector<uint8_t>> causalRing(const std::vector<int64_t> &starts,
                                          Values values, bool mask) {
  int world = int(starts.size()) - 1;
  int64_t seq = starts.back(), ev = values == Values::AreKeys ? kE : kEv;
  ArtifactWriter w({"x"}, {world});
  for (int r = 0; r < world; ++r) {
    int64_t rows = piece(starts, r);
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    rc.buffers = {enginetest::f32Slot(0, {kHeads, rows, kE}),
                  enginetest::f32Slot(1024, {1, rows, kE}),
                  enginetest::f32Slot(
                      2048, {1, values == Values::Whole ? seq : rows, ev}),
                  enginetest::f32Slot(3072, {kHeads, rows, ev}),
                  enginetest::f32Slot(4096, {rows, seq})};
    rc.arenaBytes = 5120;
    InstructionSpec ring;
    ring.opcode = fb::Opcode::RingAttention;
    ring.inputs = {0, 1, values == Values::AreKeys ? 1u : 2u};
    if (mask)
      ring.inputs.push_back(4);
    ring.outputs = {3};
    ring.meshAxes = {0};
    ring.ints = ringAttentionInts(
        {true, mask, values == Values::Whole, values == Values::AreKeys}, {0},
        starts, starts);
    ring.floats = {0.6};
    rc.program = {ring};
    rc.inputSlots = {0, 1};
    if (values != Values::AreKeys)
      rc.inputSlots.push_back(2);
    if (mask)
      rc.inputSlots.push_back(4);
    rc.outputSlots = {3};
    w.addRankClass(std::move(rc));
  }
  w.addInput(splitTensor("q", {kHeads, seq, kE}, 1, starts));
  w.addInput(splitTensor("k", {1, seq, kE}, 1, starts));
  if (values != Values::AreKeys)
    w.addInput(
        splitTensor("v", {1, seq, ev}, 1,
                    values == Values::Whole ? std::vector<int64_t>{} : starts));
  if (mask)
    w.addInput(splitTensor("mask", {seq, seq}, 0, starts));
  w.addOutput(splitTensor("y", {kHeads, seq, ev}, 1, starts));
  return w.serialize();
}

/// A communicator that records every message it sends (peer, bytes) and
/// passes every call on to `inner`.
class RecordingComm final : public comm::Communicator {
public:
  explicit RecordingComm(comm::Communicator &inner)
      : Communicator(inner.rank(), inner.size(), options(inner)),
        inner_(inner) {}
  const char *backendName() const override { return inner_.backendName(); }
  std::vector<std::pair<int, size_t>> sent;

protected:
  /// The inner communicator's request, in one of this communicator's.
  struct Wrapped final : comm::RequestState {
    Wrapped(const Communicator *owner, comm::Request inner)
        : RequestState(owner), inner(std::move(inner)) {}
    comm::Request inner;
  };
  StatusOr<comm::Request> wrap(StatusOr<comm::Request> inner) {
    if (!inner.ok())
      return inner.status();
    return comm::Request(std::make_unique<Wrapped>(this, std::move(*inner)));
  }
  StatusOr<comm::Request> doIsend(const void *buffer, std::size_t bytes,
                                  int peer, int tag) override {
    sent.emplace_back(peer, bytes);
    return wrap(inner_.isend(buffer, bytes, peer, tag));
  }
  StatusOr<comm::Request> doIrecv(void *buffer, std::size_t bytes, int peer,
                                  int tag) override {
    return wrap(inner_.irecv(buffer, bytes, peer, tag));
  }
  Status doWaitAll(comm::Span<comm::Request> requests,
                   std::chrono::milliseconds timeout) override {
    std::vector<comm::Request> inner(requests.size());
    for (size_t i = 0; i < requests.size(); ++i)
      if (auto *w = static_cast<Wrapped *>(requests.data()[i].state()))
        inner[i] = std::move(w->inner);
    Status s = inner_.waitAll(inner, timeout);
    for (size_t i = 0; i < requests.size(); ++i) {
      if (inner[i].pending())
        static_cast<Wrapped *>(requests.data()[i].state())->inner =
            std::move(inner[i]);
      else
        requests.data()[i].reset();
    }
    return s;
  }
  Status doAllReduce(const void *send, void *recv, std::int64_t count,
                     comm::DataType type, comm::ReduceOp op) override {
    return inner_.allReduce(send, recv, count, type, op);
  }
  Status doAllGatherV(const void *send, std::int64_t sendCount, void *recv,
                      comm::Span<const std::int64_t> recvCounts,
                      comm::DataType type) override {
    return inner_.allGatherV(send, sendCount, recv, recvCounts, type);
  }
  Status doReduceScatterV(const void *send, void *recv,
                          comm::Span<const std::int64_t> recvCounts,
                          comm::DataType type, comm::ReduceOp op) override {
    return inner_.reduceScatterV(send, recv, recvCounts, type, op);
  }
  Status doAllToAllV(const void *send,
                     comm::Span<const std::int64_t> sendCounts,
                     comm::Span<const std::int64_t> sendDispls, void *recv,
                     comm::Span<const std::int64_t> recvCounts,
                     comm::Span<const std::int64_t> recvDispls,
                     comm::DataType type) override {
    return inner_.allToAllV(send, sendCounts, sendDispls, recv, recvCounts,
                            recvDispls, type);
  }
  Status doBroadcast(void *buffer, std::int64_t count, comm::DataType type,
                     int root) override {
    return inner_.broadcast(buffer, count, type, root);
  }
  Status doBarrier() override { return inner_.barrier(); }

private:
  static comm::CommOptions options(const comm::Communicator &inner) {
    comm::CommOptions o;
    o.timeout = inner.timeout();
    return o;
  }
  comm::Communicator &inner_;
};

std::vector<float> smooth(size_t n, float salt) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = std::sin(0.41f * float(i) + salt) + 0.1f * float(i % 5);
  return v;
}

/// Runs the ring on in-process ranks and compares every rank's rows with
/// cpu::sdpa over the whole sequence; returns each rank's messages.
std::vector<std::vector<std::pair<int, size_t>>>
runCausalRing(const std::vector<int64_t> &starts, Values values,
              bool mask = false, bool balance = true) {
  int world = int(starts.size()) - 1;
  int64_t seq = starts.back(), ev = values == Values::AreKeys ? kE : kEv;
  std::vector<float> q = smooth(size_t(kHeads * seq * kE), 0.3f),
                     k = smooth(size_t(seq * kE), 1.7f),
                     v = smooth(size_t(seq * ev), 2.2f);
  if (values == Values::AreKeys)
    v = k;
  std::vector<float> m(size_t(seq * seq));
  for (size_t i = 0; i < m.size(); ++i)
    m[i] = i % 3 == 1 ? -1.5f : 0.2f * float(i % 4);
  std::vector<float> kk, vv, expected(size_t(kHeads * seq * ev));
  for (int64_t h = 0; h < kHeads; ++h) {
    kk.insert(kk.end(), k.begin(), k.end());
    vv.insert(vv.end(), v.begin(), v.end());
  }
  cpu::sdpa(kHeads, seq, seq, kE, ev, q.data(), kk.data(), vv.data(),
            mask ? m.data() : nullptr, false, 1, true, 0.6, expected.data());

  std::vector<std::vector<std::pair<int, size_t>>> sent{size_t(world)};
  StatusOr<std::vector<uint8_t>> bytes = causalRing(starts, values, mask);
  EXPECT_TRUE(bytes.ok()) << bytes.status().toString();
  if (!bytes.ok())
    return sent;
  auto engine = Engine::loadFromMemory(bytes->data(), bytes->size());
  EXPECT_TRUE(engine.ok()) << engine.status().toString();
  if (!engine.ok())
    return sent;
  std::mutex mu;
  SessionOptions options;
  options.balanceCausalRings = balance;
  Status s =
      comm::LocalWorld::run(world, [&](comm::Communicator &inner) -> Status {
        RecordingComm comm(inner);
        int r = comm.rank();
        SHARDRT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                                 Session::create(*engine, &comm, options));
        int64_t lo = starts[size_t(r)], hi = starts[size_t(r) + 1];
        std::vector<float> myQ = rowsOf(q, kHeads, seq, kE, lo, hi),
                           myK = rowsOf(k, 1, seq, kE, lo, hi),
                           myV = values == Values::Whole
                                     ? v
                                     : rowsOf(v, 1, seq, ev, lo, hi);
        uint32_t input = 0;
        SHARDRT_RETURN_IF_ERROR(session->bindInput(
            input++, myQ.data(), DType::F32, {kHeads, hi - lo, kE}));
        SHARDRT_RETURN_IF_ERROR(session->bindInput(
            input++, myK.data(), DType::F32, {1, hi - lo, kE}));
        if (values != Values::AreKeys)
          SHARDRT_RETURN_IF_ERROR(
              session->bindInput(input++, myV.data(), DType::F32,
                                 {1, int64_t(myV.size()) / ev, ev}));
        std::vector<float> myMask = rowsOf(m, 1, seq, seq, lo, hi);
        if (mask)
          SHARDRT_RETURN_IF_ERROR(session->bindInput(
              input++, myMask.data(), DType::F32, {hi - lo, seq}));
        SHARDRT_RETURN_IF_ERROR(session->run());
        const float *got = static_cast<const float *>(session->outputData(0));
        std::vector<float> want = rowsOf(expected, kHeads, seq, ev, lo, hi);
        std::lock_guard<std::mutex> lock(mu);
        for (size_t i = 0; i < want.size(); ++i)
          EXPECT_NEAR(got[i], want[i], 1e-5)
              << "rank " << r << " element " << i;
        sent[size_t(r)] = comm.sent;
        return Status();
      });
  EXPECT_TRUE(s.ok()) << s.toString();
  return sent;
}

TEST(RingSchedule, BalancedRingsMatchTheWholeSequence) {
  for (Values values : {Values::Passed, Values::Whole, Values::AreKeys})
    for (const std::vector<int64_t> &starts :
         std::vector<std::vector<int64_t>>{{0, 3, 5, 9},
                                           {0, 2, 2, 6, 7},
                                           {0, 4, 5, 5, 8, 12},
                                           {0, 1, 4, 6, 9, 10, 14}}) {
      SCOPED_TRACE("values " + std::to_string(int(values)) + ", " +
                   std::to_string(starts.size() - 1) + " members");
      runCausalRing(starts, values);
    }
}

TEST(RingSchedule, QueriesAndPartialStatesTravelToTheHelpers) {
  // Four members of 3 rows: near = 1, so at step 3 member j folds its keys
  // into member j + 1's queries: member j + 1 sends it its queries (at step
  // 2: kHeads x 3 x kE floats) and member j sends back the partial state
  // (kHeads x 3 rows of m, sum and kEv outputs).
  std::vector<std::vector<std::pair<int, size_t>>> sent =
      runCausalRing({0, 3, 6, 9, 12}, Values::Passed);
  size_t queries = kHeads * 3 * kE * 4, partial = kHeads * 3 * (2 + kEv) * 4;
  for (int r = 0; r < 4; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    std::multiset<std::pair<int, size_t>> got(sent[size_t(r)].begin(),
                                              sent[size_t(r)].end());
    // The keys and values travel on to the next member at steps 0 to 2.
    EXPECT_EQ(got.count({(r + 1) % 4, size_t(3 * kE * 4)}), 3u);
    EXPECT_EQ(got.count({(r + 1) % 4, size_t(3 * kEv * 4)}), 3u);
    EXPECT_EQ(got.count({r - 1, queries}), r >= 1 ? 1u : 0u);
    EXPECT_EQ(got.count({r + 1, partial}), r <= 2 ? 1u : 0u);
    EXPECT_EQ(got.size(), 6u + (r >= 1) + (r <= 2));
  }
}

TEST(RingSchedule, HelpersTwoMembersAwayGetUnevenQueries) {
  // Five members, near = 2: at step 3 member j folds its keys into member
  // j + 2's queries, at step 4 into member j + 1's; the queries (and the
  // partial states) are the helped member's rows.
  const std::vector<int64_t> starts = {0, 2, 5, 6, 10, 13};
  std::vector<std::vector<std::pair<int, size_t>>> sent =
      runCausalRing(starts, Values::AreKeys);
  auto queries = [&](int r) {
    return size_t(kHeads * piece(starts, r) * kE * 4);
  };
  auto partial = [&](int r) {
    return size_t(kHeads * piece(starts, r) * (2 + kE) * 4);
  };
  for (int r = 0; r < 5; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    std::multiset<std::pair<int, size_t>> got(sent[size_t(r)].begin(),
                                              sent[size_t(r)].end());
    size_t expected = 4; // its keys (the values) and the three it passes on
    for (int d : {1, 2}) {
      EXPECT_EQ(got.count({r - d, queries(r)}), r >= d ? 1u : 0u) << d;
      if (r + d < 5) // member r + d's rows exist
        EXPECT_EQ(got.count({r + d, partial(r + d)}), 1u) << d;
      expected += (r >= d) + (r + d < 5);
    }
    EXPECT_EQ(got.size(), expected);
  }
}

TEST(RingSchedule, TwoMembersAMaskOrTheOptionKeepThePlainRing) {
  // Two members: nothing would move. A mask: a helper would not hold the
  // helped member's mask rows. SessionOptions::balanceCausalRings false:
  // asked to. Each member sends only keys and values, to the next member.
  // (Queries split otherwise: RingAttentionTest.)
  for (int c = 0; c < 3; ++c) {
    bool mask = c == 1, balance = c != 2;
    std::vector<int64_t> starts = c > 0 ? std::vector<int64_t>{0, 3, 5, 9, 12}
                                        : std::vector<int64_t>{0, 3, 5};
    int world = int(starts.size()) - 1;
    SCOPED_TRACE(c == 0 ? "two members" : c == 1 ? "a mask" : "asked to");
    std::vector<std::vector<std::pair<int, size_t>>> sent =
        runCausalRing(starts, Values::Passed, mask, balance);
    for (int r = 0; r < world; ++r) {
      EXPECT_EQ(sent[size_t(r)].size(), size_t(2 * (world - 1)))
          << "rank " << r;
      for (const auto &[peer, bytes] : sent[size_t(r)])
        EXPECT_EQ(peer, (r + 1) % world) << "rank " << r << ", " << bytes;
    }
  }
}

} // namespace
