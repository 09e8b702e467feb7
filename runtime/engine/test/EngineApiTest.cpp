//===- EngineApiTest.cpp - The Engine and Session C++ API -----------------===//
//
// What an Engine tells of its artifact; binding and copying inputs and
// outputs, caller arenas and the errors of each; independent sessions;
// outputs that are inputs or constants, inputs and outputs sharing one
// FlatBuffers vector; overlapping buffers; a session's world size must match
// the artifact's.
//
//===----------------------------------------------------------------------===//

#include "EngineTestSupport.h"

#include "shardrt/Engine.h"
#include "shardrt/artifact/ArtifactWriter.h"
#include "shardrt/artifact/Format.h"
#include "shardrt/comm/Local.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace shardrt {
namespace {

using namespace enginetest;

//===----------------------------------------------------------------------===//
// Engine and Session API
//===----------------------------------------------------------------------===//

TEST(EngineApi, Describes) {
  std::shared_ptr<const Engine> e = load(affineModel().bytes());
  ASSERT_TRUE(e);
  EXPECT_EQ(e->worldSize(), 1);
  EXPECT_TRUE(e->meshAxisNames().empty());
  EXPECT_TRUE(e->meshShape().empty());
  EXPECT_EQ(e->producer(), "engine tests");
  ASSERT_EQ(e->numInputs(), 1u);
  ASSERT_EQ(e->numOutputs(), 1u);
  EXPECT_EQ(e->input(0).name, "x");
  EXPECT_EQ(e->input(0).dtype, DType::F32);
  EXPECT_EQ(e->input(0).shape, (Shape{2, 3}));
  ASSERT_EQ(e->input(0).dims.size(), 2u);
  EXPECT_TRUE(e->input(0).dims[1].meshAxes.empty());
  EXPECT_EQ(e->input(0).dims[1].extents, (Shape{3}));
  EXPECT_EQ(e->input(0).partial, "");
  EXPECT_EQ(e->findInput("x"), 0);
  EXPECT_EQ(e->findInput("y"), -1);
  EXPECT_EQ(e->findOutput("y"), 0);
  StatusOr<LocalBox> box = e->localInput(0, 0);
  ASSERT_TRUE(box.ok());
  EXPECT_EQ(box->offset, (Shape{0, 0}));
  EXPECT_EQ(box->shape, (Shape{2, 3}));
  EXPECT_EQ(e->localInput(1, 0).status().code(), StatusCode::OutOfRange);
  EXPECT_EQ(e->localInput(0, 1).status().code(), StatusCode::OutOfRange);
  EXPECT_EQ(e->localOutput(0, -1).status().code(), StatusCode::OutOfRange);
  ASSERT_TRUE(e->arenaBytes(0).ok());
  EXPECT_GE(*e->arenaBytes(0), 3 * 64u);
  EXPECT_EQ(e->arenaBytes(1).status().code(), StatusCode::OutOfRange);
  EXPECT_EQ(e->reference(), nullptr);
  EXPECT_STREQ(dtypeName(DType::Bool), "bool");
  EXPECT_EQ(dtypeSize(DType::F64), 8u);
}

TEST(EngineApi, BindIsZeroCopyCopyIsNot) {
  std::shared_ptr<const Engine> e = load(affineModel().bytes());
  ASSERT_TRUE(e);
  StatusOr<std::unique_ptr<Session>> s = Session::create(e);
  ASSERT_TRUE(s.ok()) << s.status().toString();
  Session &session = **s;
  EXPECT_EQ(session.rank(), 0);
  EXPECT_EQ(&session.engine(), e.get());
  EXPECT_EQ(session.inputShape(0), (Shape{2, 3}));
  EXPECT_EQ(session.outputShape(0), (Shape{2, 3}));
  EXPECT_EQ(session.arenaBytes(), *e->arenaBytes(0));

  Floats x = {1, 2, 3, 4, 5, 6};
  ASSERT_TRUE(session.bindInput(0, x.data(), DType::F32, {2, 3}).ok());
  ASSERT_TRUE(session.run().ok());
  EXPECT_EQ(decode(session.outputData(0), 6, DType::F32), affine(x));
  // Bound: the next run sees the caller's new values.
  x[0] = 100;
  ASSERT_TRUE(session.run().ok());
  EXPECT_EQ(decode(session.outputData(0), 6, DType::F32), affine(x));

  // Copied: later changes to the source are not seen.
  Floats c = {-1, -2, -3, -4, -5, -6}, snapshot = c;
  ASSERT_TRUE(session.copyInput(0, c.data(), DType::F32, {2, 3}).ok());
  std::fill(c.begin(), c.end(), 42.0f);
  ASSERT_TRUE(session.run().ok());
  EXPECT_EQ(decode(session.outputData(0), 6, DType::F32), affine(snapshot));

  // Outputs land in the caller's buffer once bound.
  const void *arenaOut = session.outputData(0);
  Floats y(6, -99.0f);
  ASSERT_TRUE(session.bindOutput(0, y.data(), DType::F32, {2, 3}).ok());
  EXPECT_EQ(session.outputData(0), y.data());
  ASSERT_TRUE(session.run().ok());
  EXPECT_EQ(y, affine(snapshot));
  EXPECT_NE(arenaOut, static_cast<const void *>(y.data()));
  EXPECT_EQ(session.outputData(1), nullptr);
}

TEST(EngineApi, CallerArena) {
  std::shared_ptr<const Engine> e = load(affineModel().bytes());
  ASSERT_TRUE(e);
  uint64_t need = *e->arenaBytes(0);
  size_t bytes = size_t(need + 128);
  std::unique_ptr<uint8_t, decltype(&std::free)> arena(
      static_cast<uint8_t *>(std::aligned_alloc(64, bytes)), &std::free);
  ASSERT_TRUE(arena);

  SessionOptions options;
  options.arena = arena.get();
  options.arenaBytes = size_t(need);
  options.threads = 1;
  StatusOr<std::unique_ptr<Session>> s = Session::create(e, options);
  ASSERT_TRUE(s.ok()) << s.status().toString();
  Floats x = {0, 1, 2, 3, 4, 5};
  ASSERT_TRUE((*s)->copyInput(0, x.data(), DType::F32, {2, 3}).ok());
  ASSERT_TRUE((*s)->run().ok());
  const uint8_t *out = static_cast<const uint8_t *>((*s)->outputData(0));
  EXPECT_GE(out, arena.get());
  EXPECT_LT(out, arena.get() + need);
  EXPECT_EQ(decode(out, 6, DType::F32), affine(x));

  options.arenaBytes = size_t(need - 1);
  StatusOr<std::unique_ptr<Session>> small = Session::create(e, options);
  EXPECT_EQ(small.status().code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(contains(small.status().message(), "arena"))
      << small.status().message();

  options.arena = arena.get() + 8;
  options.arenaBytes = size_t(need + 64);
  StatusOr<std::unique_ptr<Session>> misaligned = Session::create(e, options);
  EXPECT_EQ(misaligned.status().code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(contains(misaligned.status().message(), "aligned"))
      << misaligned.status().message();

  EXPECT_EQ(Session::create(nullptr).status().code(),
            StatusCode::InvalidArgument);
}

TEST(EngineApi, ThreadCountsOutsideTheRangeAreRefused) {
  std::shared_ptr<const Engine> e = load(affineModel().bytes());
  ASSERT_TRUE(e);
  SessionOptions options;
  for (int threads : {-1, SessionOptions::kMaxThreads + 1}) {
    options.threads = threads;
    StatusOr<std::unique_ptr<Session>> s = Session::create(e, options);
    EXPECT_EQ(s.status().code(), StatusCode::InvalidArgument);
    EXPECT_TRUE(contains(s.status().message(), "expected 0 for the default"))
        << s.status().message();
  }
  options.threads = SessionOptions::kMaxThreads;
  EXPECT_TRUE(Session::create(e, options).ok());
}

TEST(EngineApi, ASharedCommunicatorRunsOneProgramAtATime) {
  std::shared_ptr<const Engine> e = load(twoRankArtifact(/*summed=*/true));
  ASSERT_TRUE(e);
  comm::CommOptions options;
  options.timeout = std::chrono::milliseconds(3000);
  auto world = comm::LocalWorld::create(2, options);
  ASSERT_TRUE(world.ok());
  comm::Communicator &rank0 = *(*world)[0];
  auto first = Session::create(e, &rank0);
  auto second = Session::create(e, &rank0);
  ASSERT_TRUE(first.ok() && second.ok());
  // The first run waits in its all-reduce for rank 1, which never runs.
  Status firstRun;
  std::thread t([&] { firstRun = (*first)->run(); });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!rank0.inRun() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  Status secondRun = (*second)->run();
  t.join();
  EXPECT_EQ(secondRun.code(), StatusCode::FailedPrecondition);
  EXPECT_TRUE(contains(secondRun.message(), "run one at a time"))
      << secondRun.message();
  EXPECT_EQ(firstRun.code(), StatusCode::DeadlineExceeded)
      << firstRun.toString();
  EXPECT_FALSE(rank0.inRun()); // released by the failed run too
}

TEST(EngineApi, BindingErrors) {
  std::shared_ptr<const Engine> e = load(affineModel().bytes());
  ASSERT_TRUE(e);
  StatusOr<std::unique_ptr<Session>> s = Session::create(e);
  ASSERT_TRUE(s.ok());
  Session &session = **s;
  Status notBound = session.run();
  EXPECT_EQ(notBound.code(), StatusCode::FailedPrecondition);
  EXPECT_TRUE(contains(notBound.message(), "'x'")) << notBound.message();

  Floats x(6, 1.0f);
  Status dtype = session.bindInput(0, x.data(), DType::I32, {2, 3});
  EXPECT_EQ(dtype.code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(contains(dtype.message(), "f32") &&
              contains(dtype.message(), "i32"))
      << dtype.message();
  Status shape = session.copyInput(0, x.data(), DType::F32, {3, 2});
  EXPECT_EQ(shape.code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(contains(shape.message(), "(2, 3)") &&
              contains(shape.message(), "(3, 2)"))
      << shape.message();
  EXPECT_EQ(session.bindInput(0, x.data(), DType::F32, {2, 3, 1}).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(session.bindOutput(0, x.data(), DType::Bool, {2, 3}).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(session.bindOutput(0, x.data(), DType::F32, {6}).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(session.bindInput(0, nullptr, DType::F32, {2, 3}).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(session.copyInput(0, nullptr, DType::F32, {2, 3}).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(session.bindOutput(0, nullptr, DType::F32, {2, 3}).code(),
            StatusCode::InvalidArgument);

  // None of the failed binds counts as bound.
  EXPECT_EQ(session.run().code(), StatusCode::FailedPrecondition);
  // Zero-copy buffers must be aligned to their elements; copies need not be.
  Bytes raw(6 * sizeof(float) + 1);
  EXPECT_TRUE(rejected(session.bindInput(0, raw.data() + 1, DType::F32, {2, 3}),
                       kInvalid, {"aligned"}));
  EXPECT_EQ(session.bindOutput(0, raw.data() + 1, DType::F32, {2, 3}).code(),
            StatusCode::InvalidArgument);
  EXPECT_TRUE(session.copyInput(0, raw.data() + 1, DType::F32, {2, 3}).ok());

  Status range = session.bindInput(1, x.data(), DType::F32, {2, 3});
  EXPECT_EQ(range.code(), StatusCode::OutOfRange);
  EXPECT_TRUE(contains(range.message(), "input 1")) << range.message();
  EXPECT_EQ(session.copyInput(7, x.data(), DType::F32, {2, 3}).code(),
            StatusCode::OutOfRange);
  EXPECT_EQ(session.bindOutput(1, x.data(), DType::F32, {2, 3}).code(),
            StatusCode::OutOfRange);
  ASSERT_TRUE(session.bindInput(0, x.data(), DType::F32, {2, 3}).ok());
  EXPECT_TRUE(session.run().ok());
}

TEST(EngineApi, SessionsAreIndependent) {
  std::shared_ptr<const Engine> e = load(affineModel().bytes());
  ASSERT_TRUE(e);
  StatusOr<std::unique_ptr<Session>> a = Session::create(e),
                                     b = Session::create(e);
  ASSERT_TRUE(a.ok() && b.ok());
  Floats xa(6, 1.0f), xb(6, 5.0f);
  ASSERT_TRUE((*a)->copyInput(0, xa.data(), DType::F32, {2, 3}).ok());
  ASSERT_TRUE((*b)->copyInput(0, xb.data(), DType::F32, {2, 3}).ok());
  ASSERT_TRUE((*a)->run().ok());
  ASSERT_TRUE((*b)->run().ok());
  EXPECT_EQ(decode((*a)->outputData(0), 6, DType::F32), affine(xa));
  EXPECT_EQ(decode((*b)->outputData(0), 6, DType::F32), affine(xb));
}

TEST(EngineApi, OutputsThatAreInputsOrConstants) {
  // A model may return an input or a constant unchanged; the program only
  // reads those slots, so a bound output buffer receives a copy.
  Model m;
  uint32_t x = m.input("x", {3});
  uint32_t c = m.constant("c", {3}, {7, 8, 9});
  uint32_t y = m.output("sum", {3});
  m.op(Opcode::Binary, {x, c}, {y}, {}, {}, "add");
  m.markOutput("x.again", x);
  m.markOutput("c", c);
  std::shared_ptr<const Engine> e = load(m.bytes());
  ASSERT_TRUE(e);
  for (bool bindOut : {false, true}) {
    StatusOr<std::unique_ptr<Session>> s = Session::create(e);
    ASSERT_TRUE(s.ok());
    Floats in = {1, 2, 3};
    ASSERT_TRUE((*s)->bindInput(0, in.data(), DType::F32, {3}).ok());
    std::vector<Floats> outs(3, Floats(3, -1.0f));
    for (size_t i = 0; bindOut && i < 3; ++i) {
      ASSERT_TRUE((*s)->bindOutput(i, outs[i].data(), DType::F32, {3}).ok());
    }
    ASSERT_TRUE((*s)->run().ok());
    EXPECT_EQ(decode((*s)->outputData(0), 3, DType::F32), (Floats{8, 10, 12}))
        << bindOut;
    EXPECT_EQ(decode((*s)->outputData(1), 3, DType::F32), in) << bindOut;
    EXPECT_EQ(decode((*s)->outputData(2), 3, DType::F32), (Floats{7, 8, 9}))
        << bindOut;
    if (bindOut) {
      EXPECT_EQ(outs[1], in);
    }
  }
  // The returned input bound to its own input's buffer: nothing is written,
  // so it is no overlap. Shifted by one element it is (the copy after the
  // run would read what it wrote).
  StatusOr<std::unique_ptr<Session>> s = Session::create(e);
  ASSERT_TRUE(s.ok());
  Floats in = {1, 2, 3, 4};
  ASSERT_TRUE((*s)->bindInput(0, in.data(), DType::F32, {3}).ok());
  ASSERT_TRUE((*s)->bindOutput(1, in.data(), DType::F32, {3}).ok());
  Status own = (*s)->run();
  ASSERT_TRUE(own.ok()) << own.message();
  EXPECT_EQ(in, (Floats{1, 2, 3, 4}));
  EXPECT_EQ(decode((*s)->outputData(0), 3, DType::F32), (Floats{8, 10, 12}));
  ASSERT_TRUE((*s)->bindOutput(1, in.data() + 1, DType::F32, {3}).ok());
  Status shifted = (*s)->run();
  EXPECT_TRUE(rejected(shifted, StatusCode::InvalidArgument,
                       {"input 0 ('x') and output 1 ('x.again') overlap"}))
      << shifted.message();
  EXPECT_EQ(in, (Floats{1, 2, 3, 4}));
}

TEST(EngineApi, OverlappingBuffersAreRefused) {
  // A run writes outputs while it still reads inputs; overlapping memory
  // would make it read values it already overwrote.
  Model m;
  uint32_t a = m.input("a", {4}), b = m.input("b", {4});
  uint32_t sum = m.output("sum", {4}), diff = m.output("diff", {4});
  m.op(Opcode::Binary, {a, b}, {sum}, {}, {}, "add");
  m.op(Opcode::Binary, {a, b}, {diff}, {}, {}, "sub");
  std::shared_ptr<const Engine> e = load(m.bytes());
  ASSERT_TRUE(e);
  StatusOr<std::unique_ptr<Session>> s = Session::create(e);
  ASSERT_TRUE(s.ok());
  Session &session = **s;

  // Inputs may share memory: the run only reads them.
  Floats x = {1, 2, 3, 4};
  ASSERT_TRUE(session.bindInput(0, x.data(), DType::F32, {4}).ok());
  ASSERT_TRUE(session.bindInput(1, x.data(), DType::F32, {4}).ok());
  ASSERT_TRUE(session.run().ok());
  EXPECT_EQ(decode(session.outputData(0), 4, DType::F32), (Floats{2, 4, 6, 8}));

  // An input in the session's own arena (last run's output) may be
  // overwritten by the run that reads it.
  ASSERT_TRUE(
      session.bindInput(1, session.outputData(1), DType::F32, {4}).ok());
  Status arena = session.run();
  EXPECT_TRUE(rejected(arena, StatusCode::InvalidArgument,
                       {"the session's arena and input 1 ('b') overlap"}))
      << arena.message();

  // An output on an input, fully or in part.
  Floats y = {-1, -1, -1, -1}, z(8, -1.0f);
  ASSERT_TRUE(session.bindInput(1, y.data(), DType::F32, {4}).ok());
  ASSERT_TRUE(session.bindOutput(0, x.data(), DType::F32, {4}).ok());
  Status same = session.run();
  EXPECT_TRUE(rejected(same, StatusCode::InvalidArgument,
                       {"input 0 ('a') and output 0 ('sum') overlap"}))
      << same.message();
  EXPECT_EQ(x, (Floats{1, 2, 3, 4})); // nothing written
  ASSERT_TRUE(session.bindOutput(0, z.data(), DType::F32, {4}).ok());
  ASSERT_TRUE(session.bindInput(0, z.data() + 3, DType::F32, {4}).ok());
  Status part = session.run();
  EXPECT_TRUE(rejected(part, StatusCode::InvalidArgument,
                       {"output 0 ('sum') and input 0 ('a') overlap"}))
      << part.message();

  // Two outputs overlapping by one element; then just touching, which is
  // fine.
  ASSERT_TRUE(session.bindInput(0, x.data(), DType::F32, {4}).ok());
  ASSERT_TRUE(session.bindOutput(1, z.data() + 3, DType::F32, {4}).ok());
  Status outs = session.run();
  EXPECT_TRUE(rejected(outs, StatusCode::InvalidArgument,
                       {"output 0 ('sum') and output 1 ('diff') overlap"}))
      << outs.message();
  EXPECT_EQ(z, Floats(8, -1.0f));
  ASSERT_TRUE(session.bindOutput(1, z.data() + 4, DType::F32, {4}).ok());
  ASSERT_TRUE(session.run().ok());
  EXPECT_EQ(z, (Floats{0, 1, 2, 3, 2, 3, 4, 5}));
}

/// Wraps a finished (size-prefixed) FlatBuffer in a file with no blobs.
Bytes wrapFlatBuffer(const flatbuffers::FlatBufferBuilder &b) {
  uint64_t blob = artifact::blobRegionOffset(b.GetSize() - 4);
  Bytes file(size_t(blob), 0);
  std::memcpy(file.data() + artifact::kHeaderSize, b.GetBufferPointer(),
              b.GetSize());
  artifact::Header header;
  header.payloadSize = blob - artifact::kHeaderSize;
  artifact::encodeHeader(header, file.data());
  artifact::resealChecksum(file.data(), file.size());
  return file;
}

TEST(EngineApi, InputsAndOutputsMayShareOneVector) {
  // FlatBuffers lets two fields point at one vector; the engine once took
  // every tensor of such an artifact for an input.
  flatbuffers::FlatBufferBuilder b;
  Shape shape = {2, 3};
  std::vector<flatbuffers::Offset<fb::DimSharding>> dims;
  for (int64_t n : shape) {
    std::vector<int64_t> extent = {n};
    dims.push_back(fb::CreateDimShardingDirect(b, nullptr, &extent));
  }
  auto tensors =
      b.CreateVector(std::vector<flatbuffers::Offset<fb::TensorDesc>>{
          fb::CreateTensorDescDirect(b, "t", F32, &shape, &dims)});
  std::vector<flatbuffers::Offset<fb::BufferSlot>> slots = {
      fb::CreateBufferSlotDirect(b, 0, 24, F32, &shape, true)};
  std::vector<int32_t> ranks = {0};
  std::vector<uint32_t> io = {0};
  std::vector<flatbuffers::Offset<fb::RankClass>> classes = {
      fb::CreateRankClassDirect(b, "all", &ranks, 64, &slots, nullptr, &io,
                                &io)};
  auto classVector = b.CreateVector(classes);
  auto mesh = fb::CreateMeshDirect(b);
  auto producer = b.CreateString("hand made");
  fb::ArtifactBuilder ab(b);
  ab.add_format_version(artifact::kFormatVersion);
  ab.add_producer(producer);
  ab.add_mesh(mesh);
  ab.add_world_size(1);
  ab.add_rank_classes(classVector);
  ab.add_inputs(tensors);
  ab.add_outputs(tensors);
  b.FinishSizePrefixed(ab.Finish(), fb::ArtifactIdentifier());
  Bytes bytes = wrapFlatBuffer(b);

  std::shared_ptr<const Engine> e = load(bytes);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->numInputs(), 1u);
  EXPECT_EQ(e->numOutputs(), 1u);
  Floats v = {1, 2, 3, 4, 5, 6};
  StatusOr<std::vector<Floats>> out = runEngine(e, {v});
  ASSERT_TRUE(out.ok()) << out.status().toString();
  EXPECT_EQ((*out)[0], v);
}

TEST(EngineApi, WorldSizeMustMatch) {
  std::shared_ptr<const Engine> e = load(twoRankArtifact());
  ASSERT_TRUE(e);
  EXPECT_EQ(e->worldSize(), 2);
  EXPECT_EQ(e->meshAxisNames(), std::vector<std::string>{"x"});
  EXPECT_EQ(e->meshShape(), Shape{2});
  StatusOr<LocalBox> box = e->localOutput(0, 1);
  ASSERT_TRUE(box.ok());
  EXPECT_EQ(box->offset, Shape{2});
  EXPECT_EQ(box->shape, Shape{2});

  StatusOr<std::unique_ptr<Session>> alone = Session::create(e);
  EXPECT_EQ(alone.status().code(), StatusCode::FailedPrecondition);
  EXPECT_TRUE(contains(alone.status().message(), "2 ranks"))
      << alone.status().message();

  auto three = comm::LocalWorld::create(3);
  ASSERT_TRUE(three.ok()) << three.status().toString();
  StatusOr<std::unique_ptr<Session>> wrong =
      Session::create(e, (*three)[0].get());
  EXPECT_EQ(wrong.status().code(), StatusCode::FailedPrecondition);
  EXPECT_TRUE(contains(wrong.status().message(), "3"))
      << wrong.status().message();

  // The right size selects each rank's program.
  auto two = comm::LocalWorld::create(2);
  ASSERT_TRUE(two.ok());
  for (int r = 0; r < 2; ++r) {
    StatusOr<std::unique_ptr<Session>> s =
        Session::create(e, (*two)[size_t(r)].get());
    ASSERT_TRUE(s.ok()) << s.status().toString();
    EXPECT_EQ((*s)->rank(), r);
    EXPECT_EQ((*s)->outputShape(0), Shape{2});
    ASSERT_TRUE((*s)->run().ok());
    EXPECT_EQ(decode((*s)->outputData(0), 2, DType::F32),
              Floats(2, float(r + 1)));
  }
}

} // namespace
} // namespace shardrt
