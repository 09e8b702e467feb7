//===- ArtifactSemanticTest.cpp - Inconsistent artifacts are rejected -----===//
//
// Each test breaks one detail of a valid artifact (through the writer's specs,
// or in place in the FlatBuffer for what the writer cannot get wrong) and
// expects a precise error from the reader. The writer's checked serialize()
// must report the same error, so the compiler sees it at build time.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include "shardrt/artifact/Artifact.h"
#include "shardrt/artifact/Format.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace shardrt;
using namespace shardrt::artifact;
using namespace shardrt::artifact::test;
using namespace shardrt::artifact::test::rich;

namespace {

void expectRejected(const ArtifactWriter &w, StatusCode code,
                    const std::string &part) {
  std::vector<uint8_t> bytes = w.serializeUnchecked();
  StatusOr<Artifact> a = Artifact::loadFromMemory(bytes);
  ASSERT_FALSE(a.ok()) << "expected: " << part;
  EXPECT_EQ(a.status().code(), code) << a.status().toString();
  EXPECT_NE(a.status().message().find(part), std::string::npos)
      << "message: " << a.status().message() << "\nexpected: " << part;
  StatusOr<std::vector<uint8_t>> checked = w.serialize();
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.status(), a.status());
}

void expectInvalid(const ArtifactWriter &w, const std::string &part) {
  expectRejected(w, StatusCode::InvalidArgument, part);
}

TEST(ArtifactSemanticTest, ValidArtifactsPass) {
  EXPECT_TRUE(richWriter().serialize().ok());
  EXPECT_TRUE(smallWriter().serialize().ok());
}

//===-- Ranks and mesh ----------------------------------------------------===//

TEST(ArtifactSemanticTest, RankListMissingARank) {
  ArtifactWriter w = richWriter();
  w.rankClass(kBottomClass).ranks = {2};
  expectInvalid(w, "rank 3 is in no rank class");
}

TEST(ArtifactSemanticTest, RankInTwoClasses) {
  ArtifactWriter w = richWriter();
  w.rankClass(kBottomClass).ranks = {1, 2, 3};
  expectInvalid(w, "rank 1 appears in rank class 0 and in rank class 1 "
                   "('bottom')");
}

TEST(ArtifactSemanticTest, RankOutsideTheWorld) {
  ArtifactWriter w = richWriter();
  w.rankClass(kBottomClass).ranks = {2, 3, 4};
  expectInvalid(w, "lists rank 4, outside the world of 4 ranks");
}

TEST(ArtifactSemanticTest, EmptyRankClass) {
  ArtifactWriter w = richWriter();
  w.rankClass(kBottomClass).ranks = {};
  expectInvalid(w, "rank class 1 ('bottom') has no ranks");
}

TEST(ArtifactSemanticTest, WorldSizeDiffersFromMesh) {
  ArtifactWriter w = richWriter();
  w.setWorldSize(5);
  expectInvalid(w, "world size 5 differs from the mesh's device count 4");
}

TEST(ArtifactSemanticTest, DuplicateMeshAxisName) {
  ArtifactWriter w({"x", "x"}, {2, 2});
  expectInvalid(w, "mesh axis name 'x' is used twice");
}

TEST(ArtifactSemanticTest, MeshWithTooManyAxes) {
  std::vector<std::string> names;
  for (int a = 0; a < 33; ++a)
    names.push_back("a" + std::to_string(a));
  ArtifactWriter w(names, std::vector<int32_t>(33, 1));
  expectInvalid(w, "the mesh has 33 axes; at most 32 are supported");
}

//===-- Memory plan and program -------------------------------------------===//

TEST(ArtifactSemanticTest, BadSlotIndexInInstruction) {
  ArtifactWriter w = richWriter();
  w.rankClass(kTopClass).program[kConvInst].inputs[1] = 99;
  expectInvalid(w, "rank class 0 ('top') instruction 3 (Conv) input 1 refers "
                   "to buffer slot 99; the class has 9 slots");
}

TEST(ArtifactSemanticTest, SlotOutsideArena) {
  ArtifactWriter w = richWriter();
  w.rankClass(kTopClass).buffers[kScratchSlot].offset = 1000;
  expectInvalid(w, "buffer slot 8 [1000, +64) lies outside the arena of 1024 "
                   "bytes");
}

TEST(ArtifactSemanticTest, SlotTooSmallForItsTensor) {
  ArtifactWriter w = richWriter();
  w.rankClass(kTopClass).buffers[kFieldSlot].bytes = 8;
  expectInvalid(w, "buffer slot 0 of 8 bytes cannot hold its tensor of shape "
                   "[2, 4, 3]");
}

TEST(ArtifactSemanticTest, UnknownOpcodeFromANewerCompiler) {
  ArtifactWriter w = richWriter();
  w.rankClass(kBottomClass).program[1].opcode = static_cast<fb::Opcode>(999);
  expectRejected(w, StatusCode::Unimplemented,
                 "rank class 1 ('bottom') instruction 1 uses opcode 999, "
                 "unknown to this runtime");
}

TEST(ArtifactSemanticTest, UnknownDType) {
  ArtifactWriter w = richWriter();
  w.rankClass(kTopClass).buffers[kScratchSlot].dtype =
      static_cast<fb::DType>(77);
  expectRejected(w, StatusCode::Unimplemented, "uses dtype 77");
}

TEST(ArtifactSemanticTest, KernelSymbolOutOfRange) {
  ArtifactWriter w = richWriter();
  w.rankClass(kTopClass).program[kFusedInst].kernel = 5;
  expectInvalid(w, "refers to kernel symbol 5; the artifact has 2");
}

TEST(ArtifactSemanticTest, KernelDefinedByNoBinary) {
  ArtifactWriter w = richWriter();
  w.kernelBinary(0).symbols = {0};
  w.kernelBinary(1).symbols = {0};
  expectInvalid(w, "calls kernel 'reduce_sum', which no kernel binary "
                   "defines");
}

TEST(ArtifactSemanticTest, FusedRegionWithoutKernel) {
  ArtifactWriter w = richWriter();
  w.rankClass(kTopClass).program[kFusedInst].kernel = -1;
  expectInvalid(w, "instruction 4 (ElementwiseFused) names no kernel and "
                   "carries no body");
}

TEST(ArtifactSemanticTest, CollectiveOverUnknownMeshAxis) {
  ArtifactWriter w = richWriter();
  w.rankClass(kTopClass).program[kAllReduceInst].meshAxes = {2};
  expectInvalid(w, "(AllReduce) names mesh axis 2; the mesh has 2 axes");
}

TEST(ArtifactSemanticTest, WaitForALaterInstruction) {
  ArtifactWriter w = richWriter();
  w.rankClass(kTopClass).program[kWaitInst].ints = {5};
  expectInvalid(w, "(Wait) must name an earlier instruction");
}

TEST(ArtifactSemanticTest, HaloPeerOffTheMesh) {
  ArtifactWriter w = richWriter();
  // The top row has no neighbour above it, and x is not periodic.
  w.rankClass(kTopClass).program[kHaloInst].transfers[0].peer = {-1, 0};
  expectInvalid(w, "transfer 0: rank 0 at [0, 0] has no peer at that offset "
                   "on a non-periodic mesh");
}

TEST(ArtifactSemanticTest, HaloBoxOutsideItsSlot) {
  ArtifactWriter w = richWriter();
  w.rankClass(kBottomClass).program[kHaloInst].transfers[1].hi = {2, 9, 3};
  expectInvalid(w, "transfer 1: the box lies outside buffer slot 1 of shape "
                   "[2, 5, 3] in dimension 1");
}

//===-- Shardings ---------------------------------------------------------===//

TEST(ArtifactSemanticTest, ExtentsDoNotSumToTheGlobalSize) {
  ArtifactWriter w = richWriter();
  w.input(0).dims[1].extents = {4, 2};
  expectInvalid(w, "input 0 ('field') dimension 1: extents sum to 6, "
                   "dimension size is 7");
}

TEST(ArtifactSemanticTest, ExtentCountDoesNotMatchTheMesh) {
  ArtifactWriter w = richWriter();
  w.output(0).dims[2].extents = {6};
  expectInvalid(w, "output 0 ('out') dimension 2: expected 2 extents, got 1");
}

TEST(ArtifactSemanticTest, LocalShapeDiffersFromItsSlot) {
  ArtifactWriter w = richWriter();
  w.input(0).dims[1].extents = {3, 4};
  expectInvalid(w, "rank class 0 ('top') input 'field': rank 0 owns a shard "
                   "of shape [2, 3, 3] but buffer slot 0 has shape [2, 4, 3]");
}

TEST(ArtifactSemanticTest, MeshAxisUsedTwiceInOneTensor) {
  ArtifactWriter w = richWriter();
  w.output(1).partialAxes = {0};
  w.output(1).dims[0] = {{0}, {1, 1}};
  expectInvalid(w, "output 1 ('sum') partial axes uses mesh axis 0 twice");
}

TEST(ArtifactSemanticTest, PartialWithoutAxes) {
  ArtifactWriter w = richWriter();
  w.output(1).partialAxes = {};
  expectInvalid(w, "output 1 ('sum') is partial over no mesh axes");
}

TEST(ArtifactSemanticTest, DuplicateOutputName) {
  ArtifactWriter w = richWriter();
  w.output(1).name = "out";
  expectInvalid(w, "output name 'out' is used twice");
}

//===-- Constants ---------------------------------------------------------===//

TEST(ArtifactSemanticTest, BoundConstantWithoutAShardForARank) {
  ArtifactWriter w = richWriter();
  w.constant(kPos).shards[1].ranks = {2};
  expectInvalid(w, "rank class 1 ('bottom') binds constant 2 ('pos'), which "
                   "has no shard for rank 3");
}

TEST(ArtifactSemanticTest, ConstantShardDoesNotFitItsSlot) {
  ArtifactWriter w = richWriter();
  w.constant(kPos).shards[0] = {{0, 1}, {3}, pattern(12, 3)};
  expectInvalid(w, "the shard of rank 0 does not match buffer slot 4's dtype "
                   "and shape");
}

TEST(ArtifactSemanticTest, ConstantBytesDifferFromItsShape) {
  ArtifactWriter w = richWriter();
  w.constant(kPos).shards[0].data = pattern(15, 3);
  expectInvalid(w, "constant 2 ('pos') shard 0 has 15 bytes, not those of a "
                   "tensor of shape [4]");
}

TEST(ArtifactSemanticTest, RankInTwoShardsOfAConstant) {
  ArtifactWriter w = richWriter();
  w.constant(kPos).shards[1].ranks = {1, 2, 3};
  expectInvalid(w, "rank 1 appears in shard 0 and in constant 2 ('pos') "
                   "shard 1");
}

TEST(ArtifactSemanticTest, ConstantAlignmentBeyondTheBlobRegion) {
  ArtifactWriter w = richWriter();
  w.constant(kWeight).alignment = 128;
  expectInvalid(w, "constant 0 ('conv.w') has alignment 128");
}

//===-- Fields the writer always gets right, broken in place --------------===//

/// Serializes the small artifact, lets `edit` change its FlatBuffer in place
/// and reseals the checksum.
template <typename Edit> std::vector<uint8_t> editedSmall(Edit edit) {
  std::vector<uint8_t> bytes = smallWriter().serializeUnchecked();
  edit(*fb::GetMutableSizePrefixedArtifact(bytes.data() + kHeaderSize));
  resealChecksum(bytes.data(), bytes.size());
  return bytes;
}

TEST(ArtifactSemanticTest, BlobReferenceOutsideTheRegion) {
  std::vector<uint8_t> bytes = editedSmall([](fb::Artifact &a) {
    a.mutable_constants()
        ->GetMutableObject(0)
        ->mutable_shards()
        ->GetMutableObject(1)
        ->mutable_data()
        ->mutate_offset(4096);
  });
  StatusOr<Artifact> a = Artifact::loadFromMemory(bytes);
  EXPECT_EQ(a.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(a.status().message().find("constant 0 ('k') shard 1 lies outside "
                                      "the blob region"),
            std::string::npos)
      << a.status().toString();
}

TEST(ArtifactSemanticTest, InnerFormatVersionDiffersFromHeader) {
  std::vector<uint8_t> bytes =
      editedSmall([](fb::Artifact &a) { a.mutate_format_version(2); });
  StatusOr<Artifact> a = Artifact::loadFromMemory(bytes);
  EXPECT_EQ(a.status().code(), StatusCode::DataLoss);
  EXPECT_NE(a.status().message().find("the header says format version 1, "
                                      "the contents 2"),
            std::string::npos)
      << a.status().toString();
}

TEST(ArtifactSemanticTest, BlobSizeDiffersFromTheFile) {
  std::vector<uint8_t> bytes = editedSmall(
      [](fb::Artifact &a) { a.mutate_blob_bytes(a.blob_bytes() + 64); });
  StatusOr<Artifact> a = Artifact::loadFromMemory(bytes);
  EXPECT_EQ(a.status().code(), StatusCode::DataLoss);
  EXPECT_NE(a.status().message().find("the blob region should hold"),
            std::string::npos)
      << a.status().toString();
}

} // namespace

//===-- Ranks against each other ------------------------------------------===//
// Each program may be fine on its own while the ranks disagree about what
// they exchange; run, such an artifact leaves ranks waiting out the
// communicator's timeout, so the loader refuses it.

TEST(ArtifactSemanticTest, AMessageNobodyReceives) {
  ArtifactWriter w = smallWriter();
  w.rankClass(1).program[0].transfers.pop_back();
  expectInvalid(w, "rank 0 and rank 1 disagree on their messages with tag 0: "
                   "rank 0 sends 1: 4 B (instruction 0); rank 1 receives "
                   "none");
}

TEST(ArtifactSemanticTest, AMessageReceivedWithAnotherSize) {
  ArtifactWriter w = smallWriter();
  w.rankClass(0).program[0].transfers[1].lo = {1};
  expectInvalid(w, "rank 1 and rank 0 disagree on their messages with tag 0: "
                   "rank 1 sends 1: 4 B (instruction 0); rank 0 receives 1: "
                   "8 B (instruction 0)");
}

TEST(ArtifactSemanticTest, AMessageReceivedWithAnotherTag) {
  ArtifactWriter w = richWriter();
  w.rankClass(kBottomClass).program[kHaloInst].transfers[1].tag = 5;
  expectInvalid(w, "disagree on their messages with tag");
}

TEST(ArtifactSemanticTest, ACollectiveWithAnotherReduction) {
  ArtifactWriter w = smallWriter();
  w.rankClass(1).program[2].reduce = fb::ReduceKind::Sum;
  expectInvalid(w, "rank 1 and rank 0, which differ in mesh axes [0], "
                   "disagree on collective 0 of those over (at least) these "
                   "axes: rank 1 runs instruction 2 (AllReduce over mesh axes "
                   "[0], Sum, ints [], F32 [2]), rank 0 runs instruction 2 "
                   "(AllReduce over mesh axes [0], Max, ints [], F32 [2])");
}

TEST(ArtifactSemanticTest, ACollectiveOnAnotherShape) {
  ArtifactWriter w = smallWriter();
  w.rankClass(0).program[2].inputs = {0};
  w.rankClass(0).program[2].outputs = {0};
  expectInvalid(w, "rank 1 runs instruction 2 (AllReduce over mesh axes [0], "
                   "Max, ints [], F32 [2]), rank 0 runs instruction 2 "
                   "(AllReduce over mesh axes [0], Max, ints [], F32 [3])");
}

TEST(ArtifactSemanticTest, ACollectiveWithOtherExtents) {
  // The corruption the fuzzer found: one member's copy of a gather's
  // extents changed, the checksum resealed.
  ArtifactWriter w = smallWriter();
  for (uint32_t r = 0; r < 2; ++r) {
    InstructionSpec gather;
    gather.opcode = fb::Opcode::AllGather;
    gather.inputs = {0};
    gather.outputs = {3};
    gather.meshAxes = {0};
    gather.ints = {0, 3, 2};
    w.rankClass(r).buffers.push_back(tensorSlot(104, fb::DType::F32, {5}));
    w.rankClass(r).program.push_back(gather);
  }
  ASSERT_TRUE(w.serialize().ok()) << w.serialize().status().toString();
  w.rankClass(0).program[3].ints = {0, 3, 3};
  expectInvalid(w, "disagree on collective 1 of those over (at least) these "
                   "axes: rank 1 runs instruction 3 (AllGather over mesh axes "
                   "[0], ints [0, 3, 2], F32 [5]), rank 0 runs instruction 3 "
                   "(AllGather over mesh axes [0], ints [0, 3, 3], F32 [5])");
}

TEST(ArtifactSemanticTest, ACollectiveOnlyOneMemberRuns) {
  ArtifactWriter w = smallWriter();
  w.rankClass(1).program.pop_back();
  expectInvalid(w, "rank 1 runs none (it has 0), rank 0 runs instruction 2 "
                   "(AllReduce over mesh axes [0], Max, ints [], F32 [2])");
}

TEST(ArtifactSemanticTest, ACollectiveMismatchShowsItsFirstInts) {
  // A long attribute list (a large group's extents) is cut in the message.
  ArtifactWriter w = smallWriter();
  std::vector<int64_t> ints(20, 1);
  w.rankClass(0).program[2].ints = ints;
  ints[19] = 2;
  w.rankClass(1).program[2].ints = ints;
  expectInvalid(w, "ints [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
                   "... (20 in all)]");
}

namespace {

using AxisSets = std::vector<std::vector<uint32_t>>;

/// A writer for a mesh of `axes` axes of extent 2.
ArtifactWriter binaryMeshWriter(int axes) {
  std::vector<std::string> names;
  for (int a = 0; a < axes; ++a)
    names.push_back("a" + std::to_string(a));
  return ArtifactWriter(names, std::vector<int32_t>(size_t(axes), 2));
}

/// A class of `ranks` running sum all-reduces of one 2-float buffer over
/// `sets`, in order.
RankClassSpec allReduceClass(std::vector<int32_t> ranks, const AxisSets &sets) {
  RankClassSpec rc;
  rc.ranks = std::move(ranks);
  rc.arenaBytes = 64;
  rc.buffers = {tensorSlot(0, fb::DType::F32, {2})};
  for (const std::vector<uint32_t> &axes : sets) {
    InstructionSpec allReduce;
    allReduce.opcode = fb::Opcode::AllReduce;
    allReduce.inputs = allReduce.outputs = {0};
    allReduce.meshAxes = axes;
    allReduce.reduce = fb::ReduceKind::Sum;
    rc.program.push_back(allReduce);
  }
  return rc;
}

/// A mesh of 13 axes of extent 2 (more than the check enumerates subsets
/// of), rank 0 in one class running sum all-reduces over `first`'s axis
/// sets in order, and every other rank in a second running `rest`'s.
ArtifactWriter manyAxesWriter(const AxisSets &first, const AxisSets &rest) {
  constexpr int kAxes = 13;
  ArtifactWriter w = binaryMeshWriter(kAxes);
  std::vector<int32_t> others;
  for (int32_t r = 1; r < (int32_t(1) << kAxes); ++r)
    others.push_back(r);
  w.addRankClass(allReduceClass({0}, first));
  w.addRankClass(allReduceClass(std::move(others), rest));
  return w;
}

const std::vector<uint32_t> kAllAxes = {0, 1, 2, 3,  4,  5, 6,
                                        7, 8, 9, 10, 11, 12};

} // namespace

TEST(ArtifactSemanticTest, CollectivesOverMoreAxesThanSubsetsAreChecked) {
  // Past 12 axes the check compares the collectives' own axis sets and
  // each axis alone: it accepts ranks that agree, and names a pair that
  // does not.
  AxisSets sets = {kAllAxes, {4, 9}};
  EXPECT_TRUE(manyAxesWriter(sets, sets).serialize().ok());
  // The second class's all-reduce `i` takes the max instead.
  auto maxAt = [&](size_t i) {
    ArtifactWriter w = manyAxesWriter(sets, sets);
    w.rankClass(1).program[i].reduce = fb::ReduceKind::Max;
    return w;
  };
  expectInvalid(maxAt(0), "rank 1 and rank 0, which differ in mesh axes [12], "
                          "disagree on collective 0 of those over (at least) "
                          "these axes: rank 1 runs instruction 0 (AllReduce "
                          "over mesh axes [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, "
                          "11, 12], Max");
  // Rank 8 is the first to differ from rank 0 in axis 9, and meets it in
  // both all-reduces.
  expectInvalid(maxAt(1), "rank 8 and rank 0, which differ in mesh axes [9], "
                          "disagree on collective 1 of those over (at least) "
                          "these axes: rank 8 runs instruction 1 (AllReduce "
                          "over mesh axes [4, 9], Max");
  // Rank 2048 differs from rank 0 in axis 1 alone and meets it in both
  // all-reduces over axis 1, run in the other order: no collective's own
  // axis set shows it, axis 1 alone does.
  AxisSets order = {kAllAxes, {0, 1}, {1, 2}},
           swapped = {kAllAxes, {1, 2}, {0, 1}};
  expectInvalid(manyAxesWriter(order, swapped),
                "rank 2048 and rank 0, which differ in mesh axes [1], "
                "disagree on collective 1 of those over (at least) these "
                "axes: rank 2048 runs instruction 1 (AllReduce over mesh "
                "axes [1, 2], Sum");
}

TEST(ArtifactSemanticTest, AGroupsMembersListItsAxesInOneOrder) {
  // The listed order orders the members (the first axis major), so members
  // that list the same axes in another order disagree on who is who.
  EXPECT_TRUE(manyAxesWriter({{9, 4}}, {{9, 4}}).serialize().ok());
  expectInvalid(manyAxesWriter({{4, 9}}, {{9, 4}}),
                "rank 8 and rank 0, which differ in mesh axes [9], disagree "
                "on collective 0 of those over (at least) these axes: rank 8 "
                "runs instruction 0 (AllReduce over mesh axes [9, 4], Sum");
}

TEST(ArtifactSemanticTest, ABarrierRunsOverTheWorldInMeshOrder) {
  // The runtime broadcasts and synchronises the whole world in world rank
  // order only: a barrier over its axes in another order, or over some of
  // them, is refused at load rather than when a session prepares it.
  auto barrierOver = [](std::vector<uint32_t> axes) {
    ArtifactWriter w = manyAxesWriter({kAllAxes}, {kAllAxes});
    for (uint32_t c = 0; c < 2; ++c) {
      InstructionSpec &inst = w.rankClass(c).program[0];
      inst.opcode = fb::Opcode::Barrier;
      inst.inputs.clear();
      inst.outputs.clear();
      inst.reduce = fb::ReduceKind::None;
      inst.meshAxes = axes;
    }
    return w;
  };
  EXPECT_TRUE(barrierOver(kAllAxes).serialize().ok())
      << barrierOver(kAllAxes).serialize().status().toString();
  std::vector<uint32_t> reversed(kAllAxes.rbegin(), kAllAxes.rend());
  expectInvalid(barrierOver(reversed),
                "must run over every mesh axis, in mesh order");
  expectInvalid(barrierOver({0, 1}),
                "must run over every mesh axis, in mesh order");
}

TEST(ArtifactSemanticTest, ManyClassesOverFewAxesArePairedWithinTheBound) {
  // 12 axes of extent 2 and every rank a class of its own: comparing every
  // subset of the axes would keep 4096 x 4095 signatures, past the 64 MiB
  // bound, so the check compares the collectives' own axis sets and the
  // single axes instead, and still names the pair that differs.
  constexpr int kAxes = 12;
  std::vector<uint32_t> all;
  for (uint32_t a = 0; a < kAxes; ++a)
    all.push_back(a);
  auto writer = [&](int32_t deviant) {
    ArtifactWriter w = binaryMeshWriter(kAxes);
    for (int32_t r = 0; r < (int32_t(1) << kAxes); ++r) {
      RankClassSpec rc = allReduceClass({r}, {all, {3, 7}});
      if (r == deviant)
        rc.program[1].reduce = fb::ReduceKind::Max;
      w.addRankClass(std::move(rc));
    }
    return w;
  };
  EXPECT_TRUE(writer(-1).serialize().ok())
      << writer(-1).serialize().status().toString();
  // Rank 16 is the first to differ from rank 0 in axis 7 (row-major: axis
  // a moves 2^(11 - a) ranks) and meets it in both all-reduces.
  expectInvalid(writer(16), "rank 16 and rank 0, which differ in mesh axes "
                            "[7], disagree on collective 1 of those over (at "
                            "least) these axes: rank 16 runs instruction 1 "
                            "(AllReduce over mesh axes [3, 7], Max");
}
