//===- ArtifactRoundTripTest.cpp - Writer -> bytes/file -> reader ---------===//

#include "TestArtifacts.h"

#include "shardrt/artifact/Artifact.h"
#include "shardrt/artifact/ArtifactWriter.h"
#include "shardrt/artifact/Format.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

using namespace shardrt;
using namespace shardrt::artifact;
using namespace shardrt::artifact::test;

namespace {

std::vector<int64_t> vec(const flatbuffers::Vector<int64_t> *v) {
  return v ? std::vector<int64_t>(v->begin(), v->end())
           : std::vector<int64_t>();
}
template <typename T> std::vector<T> vecOf(const flatbuffers::Vector<T> *v) {
  return v ? std::vector<T>(v->begin(), v->end()) : std::vector<T>();
}

bool sameBytes(ByteSpan span, const std::vector<uint8_t> &bytes) {
  return span.data && span.size == bytes.size() &&
         std::memcmp(span.data, bytes.data(), bytes.size()) == 0;
}

Artifact loadRich() {
  StatusOr<std::vector<uint8_t>> bytes = richWriter().serialize();
  EXPECT_TRUE(bytes.ok()) << bytes.status().toString();
  StatusOr<Artifact> a = Artifact::loadFromMemory(*bytes);
  EXPECT_TRUE(a.ok()) << a.status().toString();
  return std::move(a).value();
}

TEST(ArtifactRoundTripTest, HeaderMeshAndRanks) {
  Artifact a = loadRich();
  EXPECT_EQ(a.formatVersion(), kFormatVersion);
  EXPECT_EQ(a.producer(), "shardrt artifact tests");
  EXPECT_EQ(a.worldSize(), 4);
  const fb::Mesh &mesh = *a.root().mesh();
  ASSERT_EQ(mesh.axis_names()->size(), 2u);
  EXPECT_EQ(mesh.axis_names()->Get(0)->str(), "x");
  EXPECT_EQ(mesh.axis_names()->Get(1)->str(), "y");
  EXPECT_EQ(vecOf(mesh.shape()), (std::vector<int32_t>{2, 2}));
  ASSERT_EQ(a.numRankClasses(), 2u);
  EXPECT_EQ(a.rankClass(0).name()->str(), "top");
  EXPECT_EQ(a.rankClass(1).name()->str(), "bottom");
  EXPECT_EQ(a.rankClassOf(0), 0);
  EXPECT_EQ(a.rankClassOf(1), 0);
  EXPECT_EQ(a.rankClassOf(2), 1);
  EXPECT_EQ(a.rankClassOf(3), 1);
  EXPECT_EQ(a.rankClassOf(4), -1);
  EXPECT_EQ(a.rankClassOf(-1), -1);
  EXPECT_EQ(a.meshCoordinates(2), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(a.meshCoordinates(3), (std::vector<int64_t>{1, 1}));
}

TEST(ArtifactRoundTripTest, UnevenShardsOfInputsAndOutputs) {
  Artifact a = loadRich();
  ASSERT_EQ(a.root().inputs()->size(), 1u);
  const fb::TensorDesc &field = *a.root().inputs()->Get(0);
  EXPECT_EQ(field.name()->str(), "field");
  EXPECT_EQ(field.dtype(), fb::DType::F32);
  EXPECT_EQ(vec(field.shape()), (std::vector<int64_t>{2, 7, 6}));
  EXPECT_EQ(vec(field.dims()->Get(1)->extents()), (std::vector<int64_t>{4, 3}));
  // Rank 3 = (x 1, y 1): rows 4..6, columns 3..5.
  LocalShard s3 = a.localShard(field, 3);
  EXPECT_EQ(s3.offset, (std::vector<int64_t>{0, 4, 3}));
  EXPECT_EQ(s3.shape, (std::vector<int64_t>{2, 3, 3}));
  LocalShard s1 = a.localShard(field, 1);
  EXPECT_EQ(s1.offset, (std::vector<int64_t>{0, 0, 3}));
  EXPECT_EQ(s1.shape, (std::vector<int64_t>{2, 4, 3}));
  ASSERT_EQ(a.root().outputs()->size(), 2u);
  const fb::TensorDesc &sum = *a.root().outputs()->Get(1);
  EXPECT_EQ(sum.partial(), fb::ReduceKind::Sum);
  EXPECT_EQ(vecOf(sum.partial_axes()), (std::vector<uint32_t>{1}));
  EXPECT_EQ(a.localShard(sum, 2).shape, (std::vector<int64_t>{2}));
}

TEST(ArtifactRoundTripTest, ProgramAndMemoryPlan) {
  Artifact a = loadRich();
  for (uint32_t c = 0; c < 2; ++c) {
    bool top = c == rich::kTopClass;
    RankClassSpec spec = richClass(top);
    const fb::RankClass &rc = a.rankClass(c);
    EXPECT_EQ(rc.arena_bytes(), spec.arenaBytes);
    ASSERT_EQ(rc.buffers()->size(), spec.buffers.size());
    for (uint32_t i = 0; i < spec.buffers.size(); ++i) {
      const fb::BufferSlot &slot = *rc.buffers()->Get(i);
      EXPECT_EQ(slot.offset(), spec.buffers[i].offset);
      EXPECT_EQ(slot.bytes(), spec.buffers[i].bytes);
      EXPECT_EQ(slot.has_shape(), spec.buffers[i].shape.has_value());
      if (spec.buffers[i].shape) {
        EXPECT_EQ(vec(slot.shape()), *spec.buffers[i].shape);
      }
    }
    ASSERT_EQ(rc.program()->size(), spec.program.size());
    for (uint32_t i = 0; i < spec.program.size(); ++i) {
      const fb::Instruction &inst = *rc.program()->Get(i);
      const InstructionSpec &want = spec.program[i];
      EXPECT_EQ(inst.opcode(), want.opcode);
      EXPECT_EQ(vecOf(inst.inputs()), want.inputs);
      EXPECT_EQ(vecOf(inst.outputs()), want.outputs);
      EXPECT_EQ(inst.kernel(), want.kernel);
      EXPECT_EQ(vec(inst.ints()), want.ints);
      EXPECT_EQ(vecOf(inst.floats()), want.floats);
      EXPECT_EQ(inst.str() ? inst.str()->str() : "", want.str);
      EXPECT_EQ(vecOf(inst.mesh_axes()), want.meshAxes);
      EXPECT_EQ(inst.reduce(), want.reduce);
    }
    const fb::Instruction &halo = *rc.program()->Get(0);
    ASSERT_EQ(halo.transfers()->size(), 4u);
    const fb::Transfer &recv = *halo.transfers()->Get(1);
    EXPECT_EQ(recv.kind(), fb::TransferKind::Recv);
    EXPECT_EQ(vecOf(recv.peer()), (std::vector<int32_t>{top ? 1 : -1, 0}));
    EXPECT_FALSE(recv.periodic());
    EXPECT_EQ(recv.slot(), rich::kHaloSlot);
    EXPECT_EQ(vec(recv.lo()), (std::vector<int64_t>{0, top ? 5 : 0, 0}));
    EXPECT_TRUE(halo.transfers()->Get(2)->periodic());
    EXPECT_EQ(halo.transfers()->Get(3)->tag(), 2u);
    EXPECT_EQ(vecOf(rc.output_slots()),
              (std::vector<uint32_t>{rich::kOutSlot, rich::kSumSlot}));
  }
}

TEST(ArtifactRoundTripTest, ConstantsStoredOncePerDistinctShard) {
  Artifact a = loadRich();
  for (int32_t r = 0; r < 4; ++r) {
    EXPECT_TRUE(sameBytes(a.constantShard(rich::kWeight, r), pattern(144, 1)));
    EXPECT_TRUE(sameBytes(a.constantShard(rich::kBias, r), pattern(8, 2)));
    EXPECT_TRUE(sameBytes(a.constantShard(rich::kPos, r),
                          r < 2 ? pattern(16, 3) : pattern(12, 4)));
    // Aligned in memory, not only within the file.
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a.constantShard(0, r).data) % 64, 0u);
  }
  EXPECT_EQ(a.constantShard(rich::kWeight, 7).data, nullptr);
  EXPECT_EQ(a.constantShard(rich::kWeightCopy, 0).data,
            a.constantShard(rich::kWeight, 0).data);
  // Placed 64-byte aligned in order, the copy of conv.w sharing its bytes:
  // conv.w 144 @0, conv.b 8 @192, pos 16 @256, pos 12 @320, sm_90 200 @384,
  // x86_64 300 @640.
  EXPECT_EQ(a.blobRegion().size, 940u);
  EXPECT_TRUE(sameBytes(a.kernelBinary(0), pattern(200, 5)));
  EXPECT_TRUE(sameBytes(a.kernelBinary(1), pattern(300, 6)));
  EXPECT_EQ(a.root().kernels()->Get(1)->target()->str(), "x86_64");
  EXPECT_EQ(a.root().kernel_symbols()->Get(1)->str(), "reduce_sum");
}

TEST(ArtifactRoundTripTest, FileRoundTripMatchesMemory) {
  ArtifactWriter w = richWriter();
  std::string path = ::testing::TempDir() + "shardrt_roundtrip_" +
                     std::to_string(::getpid()) + ".shardbin";
  ASSERT_TRUE(w.writeFile(path).ok());
  StatusOr<Artifact> fromFile = Artifact::load(path);
  std::remove(path.c_str());
  ASSERT_TRUE(fromFile.ok()) << fromFile.status().toString();
  StatusOr<std::vector<uint8_t>> bytes = w.serialize();
  ASSERT_TRUE(bytes.ok());
  ByteSpan file = fromFile->fileBytes();
  ASSERT_EQ(file.size, bytes->size());
  EXPECT_EQ(std::memcmp(file.data, bytes->data(), file.size), 0);
  // Serialization is deterministic: the compiler's output is reproducible.
  EXPECT_EQ(*w.serialize(), *bytes);
}

TEST(ArtifactRoundTripTest, LoadFromUnalignedMemory) {
  StatusOr<std::vector<uint8_t>> bytes = smallWriter().serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status().toString();
  std::vector<uint8_t> shifted(bytes->size() + 1);
  std::memcpy(shifted.data() + 1, bytes->data(), bytes->size());
  StatusOr<Artifact> a =
      Artifact::loadFromMemory(shifted.data() + 1, bytes->size());
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_TRUE(sameBytes(a->constantShard(0, 1), pattern(8, 8)));
  // Moving keeps every view valid (the bytes do not move).
  Artifact moved = std::move(a).value();
  EXPECT_EQ(moved.rankClassOf(1), 1);
  EXPECT_TRUE(sameBytes(moved.kernelBinary(0), pattern(40, 9)));
}

} // namespace

TEST(ArtifactRoundTripTest, LongIntListsAreStoredOnce) {
  // A gather over 20 ranks, each rank in a class of its own: the 21-int
  // list (dim, then an extent per member) is one vector every class's
  // instruction points to; the 2-int Slice lists stay each their own.
  constexpr int kRanks = 20;
  ArtifactWriter w({"x"}, {kRanks});
  std::vector<int64_t> extents;
  for (int r = 0; r < kRanks; ++r)
    extents.push_back(r % 3);
  int64_t total = 0;
  for (int64_t e : extents)
    total += e;
  IntList gatherInts{0};
  gatherInts.insert(gatherInts.end(), extents.begin(), extents.end());
  for (int r = 0; r < kRanks; ++r) {
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    rc.buffers = {tensorSlot(0, fb::DType::F32, {extents[size_t(r)]}),
                  tensorSlot(64, fb::DType::F32, {total}),
                  tensorSlot(192, fb::DType::F32, {total})};
    rc.arenaBytes = 320;
    InstructionSpec gather;
    gather.opcode = fb::Opcode::AllGather;
    gather.inputs = {0};
    gather.outputs = {1};
    gather.meshAxes = {0};
    // Each class its own copy of the list, as classes read back from IR.
    gather.ints = IntList(gatherInts.vector());
    InstructionSpec view;
    view.opcode = fb::Opcode::Slice;
    view.inputs = {1};
    view.outputs = {2};
    view.ints = {0, 1};
    rc.program = {gather, view};
    rc.inputSlots = {0};
    rc.outputSlots = {2};
    w.addRankClass(std::move(rc));
  }
  TensorDescSpec x, y;
  x.name = "x";
  x.shape = {total};
  x.dims = {{{0}, extents}};
  y.name = "y";
  y.shape = {total};
  y.dims = {{{}, {total}}};
  w.addInput(x);
  w.addOutput(y);
  StatusOr<std::vector<uint8_t>> bytes = w.serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status().toString();
  StatusOr<Artifact> a = Artifact::loadFromMemory(*bytes);
  ASSERT_TRUE(a.ok()) << a.status().toString();
  const flatbuffers::Vector<int64_t> *first =
      a->rankClass(0).program()->Get(0)->ints();
  for (uint32_t c = 0; c < kRanks; ++c) {
    const fb::Instruction &gather = *a->rankClass(c).program()->Get(0);
    EXPECT_EQ(vec(gather.ints()), gatherInts.vector()) << "class " << c;
    EXPECT_EQ(gather.ints(), first) << "class " << c;
    const fb::Instruction &view = *a->rankClass(c).program()->Get(1);
    EXPECT_EQ(vec(view.ints()), (std::vector<int64_t>{0, 1}));
    if (c > 0) {
      EXPECT_NE(view.ints(), a->rankClass(0).program()->Get(1)->ints());
    }
  }
}
