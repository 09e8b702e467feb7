//===- RingAttentionTest.cpp - The RingAttention instruction --------------===//
//
// Hand-built artifacts whose ranks each run one RingAttention over three
// in-process ranks with uneven key blocks (one of them empty) and queries
// split another way, checked against cpu::sdpa over the whole sequence:
// values passed along, values whole on every rank, values that are the
// keys, causal with an additive mask, broadcast batch dims. The loader
// refuses malformed rings and blocks unlike their starts with messages.
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"
#include "shardrt/Engine.h"
#include "shardrt/artifact/Artifact.h"
#include "shardrt/artifact/ArtifactWriter.h"
#include "shardrt/comm/Local.h"
#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <mutex>

using namespace shardrt;
using namespace shardrt::artifact;

namespace {

using enginetest::piece;
using enginetest::rowsOf;
using enginetest::splitTensor;

constexpr int64_t kHeads = 2, kE = 3, kEv = 2;
const std::vector<int64_t> kKeyStarts = {0, 2, 2, 5};   // blocks 2, 0, 3
const std::vector<int64_t> kQueryStarts = {0, 2, 3, 5}; // queries 2, 1, 2
constexpr int64_t kSeq = 5;

enum class Values { Passed, Whole, AreKeys };

struct RingCase {
  Values values = Values::Passed;
  bool causal = false, mask = false;
};

BufferSlotSpec slot(uint64_t offset, std::vector<int64_t> shape) {
  return enginetest::f32Slot(offset, std::move(shape));
}

/// Per rank: q (kHeads, its queries, kE), k (1, its keys, kE) broadcast
/// over the heads, v (1, its keys or all, kEv), [mask (its queries, all
/// keys)], output (kHeads, its queries, kEv).
/// The ints carry `starts` as the key starts (`lastRankStarts` on rank 2
/// when given) and, when causal, `queryStarts` over "x".
StatusOr<std::vector<uint8_t>>
ringArtifact(const RingCase &c, std::vector<int64_t> starts = kKeyStarts,
             std::vector<int64_t> lastRankStarts = {},
             std::vector<int64_t> queryStarts = kQueryStarts) {
  ArtifactWriter w({"x"}, {3});
  int64_t ev = c.values == Values::AreKeys ? kE : kEv;
  for (int r = 0; r < 3; ++r) {
    int64_t lq = piece(kQueryStarts, r), lk = piece(kKeyStarts, r);
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    rc.buffers = {slot(0, {kHeads, lq, kE}), slot(256, {1, lk, kE}),
                  slot(512, {1, c.values == Values::Whole ? kSeq : lk, ev}),
                  slot(768, {kHeads, lq, ev}), slot(1024, {lq, kSeq})};
    rc.arenaBytes = 1280;
    InstructionSpec ring;
    ring.opcode = fb::Opcode::RingAttention;
    ring.inputs = {0, 1, c.values == Values::AreKeys ? 1u : 2u};
    if (c.mask)
      ring.inputs.push_back(4);
    ring.outputs = {3};
    ring.meshAxes = {0};
    const std::vector<int64_t> &own =
        r == 2 && !lastRankStarts.empty() ? lastRankStarts : starts;
    ring.ints = ringAttentionInts({c.causal, c.mask, c.values == Values::Whole,
                                   c.values == Values::AreKeys},
                                  {0}, queryStarts, own);
    ring.floats = {0.7};
    rc.program = {ring};
    rc.inputSlots = {0, 1};
    if (c.values != Values::AreKeys)
      rc.inputSlots.push_back(2);
    if (c.mask)
      rc.inputSlots.push_back(4);
    rc.outputSlots = {3};
    w.addRankClass(std::move(rc));
  }
  w.addInput(splitTensor("q", {kHeads, kSeq, kE}, 1, kQueryStarts));
  w.addInput(splitTensor("k", {1, kSeq, kE}, 1, kKeyStarts));
  if (c.values != Values::AreKeys)
    w.addInput(splitTensor("v", {1, kSeq, ev}, 1,
                           c.values == Values::Whole ? std::vector<int64_t>{}
                                                     : kKeyStarts));
  if (c.mask)
    w.addInput(splitTensor("mask", {kSeq, kSeq}, 0, kQueryStarts));
  w.addOutput(splitTensor("y", {kHeads, kSeq, ev}, 1, kQueryStarts));
  return w.serialize();
}

/// n smooth values, different for each salt.
std::vector<float> values(size_t n, float salt) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = std::sin(0.37f * float(i) + salt);
  return v;
}

/// `t` repeated `times` times (keys broadcast over the heads).
std::vector<float> repeated(const std::vector<float> &t, int64_t times) {
  std::vector<float> out;
  for (int64_t i = 0; i < times; ++i)
    out.insert(out.end(), t.begin(), t.end());
  return out;
}

void runRing(const RingCase &c) {
  int64_t ev = c.values == Values::AreKeys ? kE : kEv;
  std::vector<float> q = values(kHeads * kSeq * kE, 0.1f),
                     k = values(kSeq * kE, 1.3f), v = values(kSeq * ev, 2.9f),
                     mask(kSeq * kSeq);
  if (c.values == Values::AreKeys)
    v = k;
  for (size_t i = 0; i < mask.size(); ++i)
    mask[i] = i % 3 == 1 ? -2.5f : 0.25f * float(i % 4);

  // The reference: every head against the whole (broadcast) keys.
  std::vector<float> kk = repeated(k, kHeads), vv = repeated(v, kHeads),
                     expected(kHeads * kSeq * ev);
  cpu::sdpa(kHeads, kSeq, kSeq, kE, ev, q.data(), kk.data(), vv.data(),
            c.mask ? mask.data() : nullptr, false, 1, c.causal, 0.7,
            expected.data());

  StatusOr<std::vector<uint8_t>> bytes = ringArtifact(c);
  ASSERT_TRUE(bytes.ok()) << bytes.status().toString();
  auto engine = Engine::loadFromMemory(bytes->data(), bytes->size());
  ASSERT_TRUE(engine.ok()) << engine.status().toString();
  std::mutex mu;
  Status s = comm::LocalWorld::run(3, [&](comm::Communicator &comm) -> Status {
    int r = comm.rank();
    auto session = Session::create(*engine, &comm);
    if (!session.ok())
      return session.status();
    int64_t qlo = kQueryStarts[size_t(r)], qhi = kQueryStarts[size_t(r) + 1],
            klo = kKeyStarts[size_t(r)], khi = kKeyStarts[size_t(r) + 1];
    std::vector<float> myQ = rowsOf(q, kHeads, kSeq, kE, qlo, qhi),
                       myK = rowsOf(k, 1, kSeq, kE, klo, khi),
                       myV = c.values == Values::Whole
                                 ? v
                                 : rowsOf(v, 1, kSeq, ev, klo, khi),
                       myMask = rowsOf(mask, 1, kSeq, kSeq, qlo, qhi);
    uint32_t input = 0;
    SHARDRT_RETURN_IF_ERROR((*session)->bindInput(
        input++, myQ.data(), DType::F32, {kHeads, qhi - qlo, kE}));
    SHARDRT_RETURN_IF_ERROR((*session)->bindInput(
        input++, myK.data(), DType::F32, {1, khi - klo, kE}));
    if (c.values != Values::AreKeys)
      SHARDRT_RETURN_IF_ERROR((*session)->bindInput(
          input++, myV.data(), DType::F32, {1, int64_t(myV.size()) / ev, ev}));
    if (c.mask)
      SHARDRT_RETURN_IF_ERROR((*session)->bindInput(
          input++, myMask.data(), DType::F32, {qhi - qlo, kSeq}));
    SHARDRT_RETURN_IF_ERROR((*session)->run());
    const float *got = static_cast<const float *>((*session)->outputData(0));
    std::vector<float> want = rowsOf(expected, kHeads, kSeq, ev, qlo, qhi);
    std::lock_guard<std::mutex> lock(mu);
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-5) << "rank " << r << " element " << i;
    return Status();
  });
  EXPECT_TRUE(s.ok()) << s.toString();
}

TEST(RingAttention, PassesValuesAlongTheRing) { runRing({}); }

TEST(RingAttention, SlicesValuesThatArriveWhole) {
  runRing({Values::Whole, false, false});
}

TEST(RingAttention, PassesKeysThatAreTheValuesOnce) {
  runRing({Values::AreKeys, false, false});
}

TEST(RingAttention, CausalWithAMaskSkipsHiddenBlocks) {
  runRing({Values::Passed, true, true});
  runRing({Values::Whole, true, false});
}

/// A ring of one member (a world of one rank, no communicator) with a mask
/// of (1, keys), broadcast over the queries and the heads, that hides key 2
/// from every query; with `allMasked` it hides every key, so every row is
/// NaN, as cpu::sdpa gives.
void runOneMember(bool allMasked) {
  ArtifactWriter w({"x"}, {1});
  RankClassSpec rc;
  rc.name = "all";
  rc.ranks = {0};
  rc.buffers = {slot(0, {kHeads, kSeq, kE}), slot(256, {kSeq, kE}),
                slot(512, {kSeq, kEv}), slot(768, {1, kSeq}),
                slot(1024, {kHeads, kSeq, kEv})};
  rc.arenaBytes = 1280;
  InstructionSpec ring;
  ring.opcode = fb::Opcode::RingAttention;
  ring.inputs = {0, 1, 2, 3};
  ring.outputs = {4};
  ring.meshAxes = {0};
  ring.ints = ringAttentionInts({false, true, false, false}, {}, {}, {0, kSeq});
  ring.floats = {0.7};
  rc.program = {ring};
  rc.inputSlots = {0, 1, 2, 3};
  rc.outputSlots = {4};
  w.addRankClass(std::move(rc));
  w.addInput(splitTensor("q", {kHeads, kSeq, kE}, 0, {}));
  w.addInput(splitTensor("k", {kSeq, kE}, 0, {}));
  w.addInput(splitTensor("v", {kSeq, kEv}, 0, {}));
  w.addInput(splitTensor("mask", {1, kSeq}, 0, {}));
  w.addOutput(splitTensor("y", {kHeads, kSeq, kEv}, 0, {}));
  StatusOr<std::vector<uint8_t>> bytes = w.serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status().toString();
  auto engine = Engine::loadFromMemory(bytes->data(), bytes->size());
  ASSERT_TRUE(engine.ok()) << engine.status().toString();
  auto session = Session::create(*engine, nullptr);
  ASSERT_TRUE(session.ok()) << session.status().toString();

  std::vector<float> q = values(kHeads * kSeq * kE, 0.2f),
                     k = values(kSeq * kE, 1.1f), v = values(kSeq * kEv, 2.3f),
                     mask(kSeq, 0.5f);
  mask[2] = -std::numeric_limits<float>::infinity();
  if (allMasked)
    std::fill(mask.begin(), mask.end(), mask[2]);
  // The reference gets the mask materialised per query row.
  std::vector<float> fullMask = repeated(mask, kSeq), kk = repeated(k, kHeads),
                     vv = repeated(v, kHeads), expected(kHeads * kSeq * kEv);
  cpu::sdpa(kHeads, kSeq, kSeq, kE, kEv, q.data(), kk.data(), vv.data(),
            fullMask.data(), false, 1, false, 0.7, expected.data());
  ASSERT_TRUE(
      (*session)->bindInput(0, q.data(), DType::F32, {kHeads, kSeq, kE}).ok());
  ASSERT_TRUE((*session)->bindInput(1, k.data(), DType::F32, {kSeq, kE}).ok());
  ASSERT_TRUE((*session)->bindInput(2, v.data(), DType::F32, {kSeq, kEv}).ok());
  ASSERT_TRUE(
      (*session)->bindInput(3, mask.data(), DType::F32, {1, kSeq}).ok());
  Status run = (*session)->run();
  ASSERT_TRUE(run.ok()) << run.toString();
  const float *got = static_cast<const float *>((*session)->outputData(0));
  for (size_t i = 0; i < expected.size(); ++i) {
    if (std::isnan(expected[i]))
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    else
      EXPECT_NEAR(got[i], expected[i], 1e-5) << "element " << i;
  }
}

TEST(RingAttention, OneMemberRunsWithoutACommunicator) { runOneMember(false); }

TEST(RingAttention, RowsWithEveryKeyMaskedAreNaN) { runOneMember(true); }

TEST(RingAttention, TheLoaderRefusesMalformedKeyStarts) {
  // The writer runs the loader's checks on what it serialises.
  StatusOr<std::vector<uint8_t>> bytes = ringArtifact({}, {0, 2, 5});
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find(
                "a ring of 3 members takes 5, 0 query axes, 0 query starts "
                "and 4 key starts"),
            std::string::npos)
      << bytes.status().toString();
  bytes = ringArtifact({}, {0, 3, 2, 5});
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("key starts decrease"),
            std::string::npos)
      << bytes.status().toString();
  bytes = ringArtifact({}, {1, 2, 2, 5});
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("key starts must begin at 0"),
            std::string::npos)
      << bytes.status().toString();
}

TEST(RingAttention, TheLoaderRefusesMalformedQuerySplits) {
  RingCase causal{Values::Passed, true, false};
  StatusOr<std::vector<uint8_t>> bytes =
      ringArtifact(causal, kKeyStarts, {}, {0, 2, 5});
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("1 query axes, 4 query starts"),
            std::string::npos)
      << bytes.status().toString();
  bytes = ringArtifact(causal, kKeyStarts, {}, {0, 3, 2, 5});
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("query starts decrease at member 1"),
            std::string::npos)
      << bytes.status().toString();
  // A ring that is not causal names no query split.
  InstructionSpec ring;
  ring.ints = ringAttentionInts({}, {0}, {}, kKeyStarts);
  EXPECT_EQ(ring.ints[4], 0);
  EXPECT_EQ(ring.ints.size(), 5u + kKeyStarts.size());
}

TEST(RingAttention, TheLoaderRefusesMembersThatDisagreeOnTheStarts) {
  // Rank 2's own block is right, but it thinks the others hold 1 and 1
  // keys: it would send and receive blocks of other sizes.
  StatusOr<std::vector<uint8_t>> bytes =
      ringArtifact({}, kKeyStarts, {0, 1, 2, 5});
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("disagree on collective 0"),
            std::string::npos)
      << bytes.status().toString();
}

TEST(RingAttention, TheLoaderRefusesKeysUnlikeTheirBlock) {
  // Members agree on the starts, but these give rank 0 three keys where its
  // slot holds two (and rank 2 two where it holds three). Found at load, a
  // wrong block fails every rank alike: no rank waits for blocks a peer
  // never sends.
  StatusOr<std::vector<uint8_t>> bytes = ringArtifact({}, {0, 3, 3, 5});
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find(
                "rank 0's keys have 2 rows; its place in the ring gives 3"),
            std::string::npos)
      << bytes.status().toString();
  // Values passed along have the keys' rows; whole ones, every key.
  bytes = ringArtifact({Values::Whole, false, false}, {0, 2, 2, 6});
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find(
                "rank 0's values have 5 rows; its place in the ring gives 6"),
            std::string::npos)
      << bytes.status().toString();
}

TEST(RingAttention, TheLoaderRefusesQueriesUnlikeTheirBlock) {
  // The query starts give rank 0 one query where its slot holds two.
  StatusOr<std::vector<uint8_t>> bytes =
      ringArtifact({Values::Passed, true, false}, kKeyStarts, {}, {0, 1, 3, 5});
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("rank 0's queries have 2 rows; its "
                                          "place in the query split gives 1"),
            std::string::npos)
      << bytes.status().toString();
}

} // namespace
