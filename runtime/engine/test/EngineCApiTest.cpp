//===- EngineCApiTest.cpp - The engine C API ------------------------------===//
//
// The C API over Engine and Session: loading, describing and running a
// model, error codes and their last-error messages, caller arenas, worlds
// of two, and NULL arguments.
//
//===----------------------------------------------------------------------===//

#include "EngineTestSupport.h"

#include "shardrt/Engine.h"
#include "shardrt/shardrt.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace shardrt {
namespace {

using namespace enginetest;

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

/// The affine model loaded and a plain session on it, both released when
/// the test ends (also after a failed ASSERT).
struct AffineHandles {
  Bytes bytes = affineModel().bytes();
  shardrt_engine *engine = nullptr;
  shardrt_session *session = nullptr;
  ~AffineHandles() {
    shardrt_session_release(session);
    shardrt_engine_release(engine);
  }
  ::testing::AssertionResult open() {
    if (shardrt_engine_load_from_memory(bytes.data(), bytes.size(), &engine) !=
            SHARDRT_OK ||
        shardrt_session_create(engine, nullptr, nullptr, 0, 0, &session) !=
            SHARDRT_OK)
      return ::testing::AssertionFailure() << shardrt_last_error();
    return ::testing::AssertionSuccess();
  }
};

TEST(EngineCApi, LoadDescribeRun) {
  Bytes bytes = affineModel().bytes();
  shardrt_engine *engine = nullptr;
  ASSERT_EQ(
      shardrt_engine_load_from_memory(bytes.data(), bytes.size(), &engine),
      SHARDRT_OK)
      << shardrt_last_error();
  EXPECT_STREQ(shardrt_last_error(), "");
  int world = 0;
  EXPECT_EQ(shardrt_engine_world_size(engine, &world), SHARDRT_OK);
  EXPECT_EQ(world, 1);
  size_t n = 0;
  EXPECT_EQ(shardrt_engine_num_inputs(engine, &n), SHARDRT_OK);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(shardrt_engine_num_outputs(engine, &n), SHARDRT_OK);
  EXPECT_EQ(n, 1u);
  const char *name = nullptr;
  shardrt_dtype dtype = SHARDRT_BOOL;
  size_t rank = 0;
  EXPECT_EQ(shardrt_engine_input_info(engine, 0, &name, &dtype, &rank),
            SHARDRT_OK);
  EXPECT_STREQ(name, "x");
  EXPECT_EQ(dtype, SHARDRT_F32);
  EXPECT_EQ(rank, 2u);
  EXPECT_EQ(shardrt_engine_output_info(engine, 0, &name, nullptr, nullptr),
            SHARDRT_OK);
  EXPECT_STREQ(name, "y");
  int64_t global[2], offset[2], local[2];
  EXPECT_EQ(shardrt_engine_input_shape(engine, 0, 0, global, offset, local, 2),
            SHARDRT_OK);
  EXPECT_EQ(global[0], 2);
  EXPECT_EQ(global[1], 3);
  EXPECT_EQ(offset[0], 0);
  EXPECT_EQ(local[1], 3);
  EXPECT_EQ(
      shardrt_engine_output_shape(engine, 0, 0, nullptr, nullptr, local, 2),
      SHARDRT_OK);
  uint64_t arena = 0;
  EXPECT_EQ(shardrt_engine_arena_bytes(engine, 0, &arena), SHARDRT_OK);
  EXPECT_GT(arena, 0u);

  shardrt_session *session = nullptr;
  ASSERT_EQ(shardrt_session_create(engine, nullptr, nullptr, 0, 1, &session),
            SHARDRT_OK)
      << shardrt_last_error();
  Floats x = {1, 2, 3, 4, 5, 6};
  int64_t shape[2] = {2, 3};
  EXPECT_EQ(
      shardrt_session_bind_input(session, 0, x.data(), SHARDRT_F32, shape, 2),
      SHARDRT_OK);
  EXPECT_EQ(shardrt_session_run(session), SHARDRT_OK) << shardrt_last_error();
  uint64_t workspace = 1;
  EXPECT_EQ(shardrt_session_workspace_bytes(session, &workspace), SHARDRT_OK);
  EXPECT_EQ(workspace, 0u); // nothing to stage without a communicator
  const void *out = nullptr;
  EXPECT_EQ(shardrt_session_output_data(session, 0, &out), SHARDRT_OK);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(decode(out, 6, DType::F32), affine(x));

  Floats c = {0, 0, 0, 1, 1, 1}, y(6);
  EXPECT_EQ(
      shardrt_session_copy_input(session, 0, c.data(), SHARDRT_F32, shape, 2),
      SHARDRT_OK);
  EXPECT_EQ(
      shardrt_session_bind_output(session, 0, y.data(), SHARDRT_F32, shape, 2),
      SHARDRT_OK);
  EXPECT_EQ(shardrt_session_run(session), SHARDRT_OK);
  EXPECT_EQ(y, affine(c));
  EXPECT_EQ(shardrt_session_output_data(session, 0, &out), SHARDRT_OK);
  EXPECT_EQ(out, y.data());

  shardrt_session_release(session);
  shardrt_engine_release(engine);
}

TEST(EngineCApi, ErrorsAreCodesAndMessages) {
  AffineHandles h;
  ASSERT_TRUE(h.open());
  shardrt_engine *engine = h.engine;
  shardrt_session *session = h.session;

  EXPECT_EQ(shardrt_session_run(session), SHARDRT_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(shardrt_last_error(), "neither bound nor copied"))
      << shardrt_last_error();
  Floats x(6);
  int64_t shape[2] = {2, 3}, wrong[2] = {3, 2};
  EXPECT_EQ(
      shardrt_session_bind_input(session, 0, x.data(), SHARDRT_I64, shape, 2),
      SHARDRT_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(shardrt_last_error(), "i64")) << shardrt_last_error();
  EXPECT_EQ(
      shardrt_session_copy_input(session, 0, x.data(), SHARDRT_F32, wrong, 2),
      SHARDRT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(shardrt_last_error()), "");
  EXPECT_EQ(
      shardrt_session_bind_input(session, 0, x.data(), SHARDRT_F32, nullptr, 2),
      SHARDRT_INVALID_ARGUMENT);
  EXPECT_EQ(
      shardrt_session_bind_input(session, 3, x.data(), SHARDRT_F32, shape, 2),
      SHARDRT_OUT_OF_RANGE);
  const void *out = nullptr;
  EXPECT_EQ(shardrt_session_output_data(session, 1, &out),
            SHARDRT_OUT_OF_RANGE);
  EXPECT_EQ(shardrt_engine_input_info(engine, 1, nullptr, nullptr, nullptr),
            SHARDRT_OUT_OF_RANGE);
  int64_t one[1];
  EXPECT_EQ(shardrt_engine_input_shape(engine, 0, 0, one, nullptr, nullptr, 1),
            SHARDRT_INVALID_ARGUMENT);
  EXPECT_EQ(
      shardrt_engine_input_shape(engine, 0, 5, nullptr, nullptr, nullptr, 2),
      SHARDRT_OUT_OF_RANGE);
  uint64_t arena;
  EXPECT_EQ(shardrt_engine_arena_bytes(engine, 1, &arena),
            SHARDRT_OUT_OF_RANGE);
  // Success clears the message.
  EXPECT_EQ(
      shardrt_session_copy_input(session, 0, x.data(), SHARDRT_F32, shape, 2),
      SHARDRT_OK);
  EXPECT_STREQ(shardrt_last_error(), "");

  // A caller arena that is too small or misaligned.
  alignas(64) static uint8_t buffer[4096];
  shardrt_session *other = nullptr;
  EXPECT_EQ(shardrt_session_create(engine, nullptr, buffer, 16, 0, &other),
            SHARDRT_INVALID_ARGUMENT);
  EXPECT_EQ(shardrt_session_create(engine, nullptr, buffer + 4,
                                   sizeof(buffer) - 4, 0, &other),
            SHARDRT_INVALID_ARGUMENT);
  EXPECT_EQ(other, nullptr);
  ASSERT_EQ(shardrt_session_create(engine, nullptr, buffer, sizeof(buffer), 0,
                                   &other),
            SHARDRT_OK);
  shardrt_session_release(other);

  // Loading garbage, a missing file, a world of two without a communicator.
  Bytes garbage(100, 0x5a);
  shardrt_engine *bad = nullptr;
  EXPECT_NE(
      shardrt_engine_load_from_memory(garbage.data(), garbage.size(), &bad),
      SHARDRT_OK);
  EXPECT_NE(std::string(shardrt_last_error()), "");
  EXPECT_EQ(bad, nullptr);
  EXPECT_NE(shardrt_engine_load("/nonexistent/model.shardbin", &bad),
            SHARDRT_OK);
  EXPECT_EQ(bad, nullptr);
  Bytes two = twoRankArtifact();
  shardrt_engine *twoEngine = nullptr;
  ASSERT_EQ(shardrt_engine_load_from_memory(two.data(), two.size(), &twoEngine),
            SHARDRT_OK);
  EXPECT_EQ(shardrt_session_create(twoEngine, nullptr, nullptr, 0, 0, &other),
            SHARDRT_FAILED_PRECONDITION);
  shardrt_comm *comms[3] = {nullptr, nullptr, nullptr};
  ASSERT_EQ(shardrt_local_world_create(3, 1000, comms), SHARDRT_OK);
  EXPECT_EQ(shardrt_session_create(twoEngine, comms[0], nullptr, 0, 0, &other),
            SHARDRT_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(shardrt_last_error(), "3")) << shardrt_last_error();
  for (shardrt_comm *c : comms)
    shardrt_comm_release(c);
  ASSERT_EQ(shardrt_local_world_create(2, 0, comms), SHARDRT_OK);
  ASSERT_EQ(shardrt_session_create(twoEngine, comms[1], nullptr, 0, 0, &other),
            SHARDRT_OK)
      << shardrt_last_error();
  EXPECT_EQ(shardrt_session_run(other), SHARDRT_OK);
  EXPECT_EQ(shardrt_session_output_data(other, 0, &out), SHARDRT_OK);
  EXPECT_EQ(decode(out, 2, DType::F32), Floats(2, 2.0f));
  shardrt_session_release(other);
  shardrt_comm_release(comms[0]);
  shardrt_comm_release(comms[1]);
  EXPECT_EQ(shardrt_local_world_create(0, 0, comms), SHARDRT_INVALID_ARGUMENT);

  shardrt_engine_release(twoEngine);
}

/// Two sessions of twoRankArtifact(summed) on a new local world, released (with
/// the engine) when the test ends.
struct SumWorld {
  Bytes bytes = twoRankArtifact(/*summed=*/true);
  shardrt_engine *engine = nullptr;
  shardrt_comm *comms[2] = {nullptr, nullptr};
  shardrt_session *sessions[2] = {nullptr, nullptr};
  ~SumWorld() {
    for (shardrt_session *s : sessions)
      shardrt_session_release(s);
    for (shardrt_comm *c : comms)
      shardrt_comm_release(c);
    shardrt_engine_release(engine);
  }
  ::testing::AssertionResult open(int timeoutMs) {
    if (shardrt_engine_load_from_memory(bytes.data(), bytes.size(), &engine) !=
            SHARDRT_OK ||
        shardrt_local_world_create(2, timeoutMs, comms) != SHARDRT_OK)
      return ::testing::AssertionFailure() << shardrt_last_error();
    for (int r = 0; r < 2; ++r)
      if (shardrt_session_create(engine, comms[r], nullptr, 0, 1,
                                 &sessions[r]) != SHARDRT_OK)
        return ::testing::AssertionFailure() << shardrt_last_error();
    return ::testing::AssertionSuccess();
  }
};

// A comm handle released before its session runs: the session keeps the
// communicator (it read freed memory and crashed).
TEST(EngineCApi, SessionKeepsItsCommunicator) {
  SumWorld world;
  ASSERT_TRUE(world.open(10000));
  for (shardrt_comm *&c : world.comms) {
    shardrt_comm_release(c);
    c = nullptr;
  }
  int codes[2] = {-1, -1};
  std::thread other([&] { codes[1] = shardrt_session_run(world.sessions[1]); });
  codes[0] = shardrt_session_run(world.sessions[0]);
  other.join();
  EXPECT_EQ(codes[0], SHARDRT_OK);
  EXPECT_EQ(codes[1], SHARDRT_OK);
  for (shardrt_session *s : world.sessions) {
    const void *out = nullptr;
    ASSERT_EQ(shardrt_session_output_data(s, 0, &out), SHARDRT_OK);
    EXPECT_EQ(decode(out, 2, DType::F32), Floats(2, 3.0f));
  }
}

// Once rank 0 gave up on the world (it ran alone and timed out), rank 1's
// run fails at once, as the header says, although rank 0's part of the
// all-reduce had arrived (it returned OK on a world its peer had left).
TEST(EngineCApi, GivenUpWorldFailsTheOtherRanksRuns) {
  SumWorld world;
  ASSERT_TRUE(world.open(200));
  EXPECT_EQ(shardrt_session_run(world.sessions[0]), SHARDRT_DEADLINE_EXCEEDED);
  EXPECT_EQ(shardrt_session_run(world.sessions[1]), SHARDRT_UNAVAILABLE);
  EXPECT_TRUE(contains(shardrt_last_error(), "rank 0 failed"))
      << shardrt_last_error();
}

TEST(EngineCApi, ImpossibleSizesAreInvalidArguments) {
  AffineHandles h;
  ASSERT_TRUE(h.open());
  shardrt_engine *e = nullptr;
  // size + 63 wrapped, and the copy ran past a tiny allocation.
  EXPECT_EQ(shardrt_engine_load_from_memory(h.bytes.data(), SIZE_MAX, &e),
            SHARDRT_INVALID_ARGUMENT);
  EXPECT_EQ(e, nullptr);
  Floats x(6, 1.0f);
  int64_t shape[2] = {2, 3};
  EXPECT_EQ(shardrt_session_bind_input(h.session, 0, x.data(), SHARDRT_F32,
                                       shape, SIZE_MAX),
            SHARDRT_INVALID_ARGUMENT);
  shardrt_session *s = nullptr;
  EXPECT_EQ(shardrt_session_create(h.engine, nullptr, nullptr, 0, -1, &s),
            SHARDRT_INVALID_ARGUMENT);
  EXPECT_EQ(shardrt_session_create(h.engine, nullptr, nullptr, 0, 100000, &s),
            SHARDRT_INVALID_ARGUMENT);
  EXPECT_EQ(s, nullptr);
  shardrt_comm *comms[2] = {nullptr, nullptr};
  EXPECT_EQ(shardrt_local_world_create(2, -5, comms), SHARDRT_INVALID_ARGUMENT);
  EXPECT_EQ(comms[0], nullptr);
}

TEST(EngineCApi, NullArgumentsAreInvalidArguments) {
  AffineHandles h;
  ASSERT_TRUE(h.open());
  const Bytes &bytes = h.bytes;
  shardrt_engine *engine = h.engine;
  shardrt_session *session = h.session;
  int i = 0;
  size_t n = 0;
  uint64_t u = 0;
  const void *p = nullptr;
  Floats x(6);
  int64_t shape[2] = {2, 3};
  const int kInvalidArg = SHARDRT_INVALID_ARGUMENT;
  shardrt_engine *e2 = nullptr;
  shardrt_session *s2 = nullptr;
  EXPECT_EQ(shardrt_engine_load(nullptr, &e2), kInvalidArg);
  EXPECT_EQ(shardrt_engine_load("x.shardbin", nullptr), kInvalidArg);
  EXPECT_EQ(shardrt_engine_load_from_memory(nullptr, 10, &e2), kInvalidArg);
  EXPECT_EQ(
      shardrt_engine_load_from_memory(bytes.data(), bytes.size(), nullptr),
      kInvalidArg);
  EXPECT_TRUE(contains(shardrt_last_error(), "NULL")) << shardrt_last_error();
  EXPECT_EQ(shardrt_engine_world_size(nullptr, &i), kInvalidArg);
  EXPECT_EQ(shardrt_engine_world_size(engine, nullptr), kInvalidArg);
  EXPECT_EQ(shardrt_engine_num_inputs(nullptr, &n), kInvalidArg);
  EXPECT_EQ(shardrt_engine_num_inputs(engine, nullptr), kInvalidArg);
  EXPECT_EQ(shardrt_engine_num_outputs(nullptr, &n), kInvalidArg);
  EXPECT_EQ(shardrt_engine_num_outputs(engine, nullptr), kInvalidArg);
  EXPECT_EQ(shardrt_engine_input_info(nullptr, 0, nullptr, nullptr, nullptr),
            kInvalidArg);
  EXPECT_EQ(shardrt_engine_output_info(nullptr, 0, nullptr, nullptr, nullptr),
            kInvalidArg);
  // Every out-pointer of the info and shape queries is optional.
  EXPECT_EQ(shardrt_engine_input_info(engine, 0, nullptr, nullptr, nullptr),
            SHARDRT_OK);
  EXPECT_EQ(
      shardrt_engine_input_shape(engine, 0, 0, nullptr, nullptr, nullptr, 2),
      SHARDRT_OK);
  EXPECT_EQ(
      shardrt_engine_input_shape(nullptr, 0, 0, nullptr, nullptr, nullptr, 2),
      kInvalidArg);
  EXPECT_EQ(
      shardrt_engine_output_shape(nullptr, 0, 0, nullptr, nullptr, nullptr, 2),
      kInvalidArg);
  EXPECT_EQ(shardrt_engine_arena_bytes(nullptr, 0, &u), kInvalidArg);
  EXPECT_EQ(shardrt_engine_arena_bytes(engine, 0, nullptr), kInvalidArg);
  EXPECT_EQ(shardrt_session_workspace_bytes(nullptr, &u), kInvalidArg);
  EXPECT_EQ(shardrt_session_workspace_bytes(session, nullptr), kInvalidArg);
  EXPECT_EQ(shardrt_local_world_create(2, 0, nullptr), kInvalidArg);
  EXPECT_EQ(shardrt_session_create(nullptr, nullptr, nullptr, 0, 0, &s2),
            kInvalidArg);
  EXPECT_EQ(shardrt_session_create(engine, nullptr, nullptr, 0, 0, nullptr),
            kInvalidArg);
  EXPECT_EQ(
      shardrt_session_bind_input(nullptr, 0, x.data(), SHARDRT_F32, shape, 2),
      kInvalidArg);
  EXPECT_EQ(
      shardrt_session_bind_input(session, 0, nullptr, SHARDRT_F32, shape, 2),
      kInvalidArg);
  EXPECT_EQ(
      shardrt_session_copy_input(nullptr, 0, x.data(), SHARDRT_F32, shape, 2),
      kInvalidArg);
  EXPECT_EQ(
      shardrt_session_copy_input(session, 0, nullptr, SHARDRT_F32, shape, 2),
      kInvalidArg);
  EXPECT_EQ(
      shardrt_session_bind_output(nullptr, 0, x.data(), SHARDRT_F32, shape, 2),
      kInvalidArg);
  EXPECT_EQ(
      shardrt_session_bind_output(session, 0, nullptr, SHARDRT_F32, shape, 2),
      kInvalidArg);
  EXPECT_EQ(shardrt_session_run(nullptr), kInvalidArg);
  EXPECT_EQ(shardrt_session_output_data(nullptr, 0, &p), kInvalidArg);
  EXPECT_EQ(shardrt_session_output_data(session, 0, nullptr), kInvalidArg);
  EXPECT_EQ(e2, nullptr);
  EXPECT_EQ(s2, nullptr);
  shardrt_engine_release(nullptr);
  shardrt_session_release(nullptr);
  shardrt_comm_release(nullptr);
}

} // namespace
} // namespace shardrt
