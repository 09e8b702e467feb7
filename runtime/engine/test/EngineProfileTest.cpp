//===- EngineProfileTest.cpp - SessionOptions::profile --------------------===//
//
// What a profiled session reports per step: its opcode and kernel, the bytes
// of its operand slots (worked out here from the shapes), how many runs it
// saw, and times that fit inside the runs' wall-clock time.
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"

#include <chrono>

namespace shardrt {
namespace {

using namespace enginetest;

/// x (8, 16) @ w (16, 4) -> relu -> a fused neg * 2 with a (fatbin) kernel
/// of its own, which the CPU backend runs from the body it keeps.
Model profiledModel() {
  Model m;
  uint32_t x = m.input("x", {8, 16});
  std::vector<float> wv(16 * 4);
  for (size_t i = 0; i < wv.size(); ++i)
    wv[i] = float(i % 7) - 3;
  uint32_t w = m.constant("w", {16, 4}, wv);
  uint32_t mm = m.slot({8, 4});
  uint32_t r = m.slot({8, 4});
  uint32_t y = m.output("y", {8, 4});
  m.op(Opcode::Matmul, {x, w}, {mm});
  m.op(Opcode::Unary, {mm}, {r}, {}, {}, "relu");
  m.kernelSymbols = {"fused_neg_double"};
  m.kernels = {{"sm_80", fb::KernelFormat::Fatbin, {0}, Bytes(16, 1)}};
  InstructionSpec &fused = m.op(Opcode::ElementwiseFused, {r}, {y});
  fused.str = "neg add";
  fused.ints = {0, 1, 1, 2}; // r1 = -r0; r2 = r1 + r1; yields r2
  fused.kernel = 0;
  return m;
}

TEST(EngineProfile, OffByDefault) {
  std::shared_ptr<const Engine> e = load(profiledModel().bytes());
  ASSERT_TRUE(e);
  StatusOr<std::unique_ptr<Session>> s = Session::create(e);
  ASSERT_TRUE(s.ok()) << s.status().toString();
  Floats x(8 * 16, 1.0f);
  ASSERT_TRUE((*s)->bindInput(0, x.data(), DType::F32, {8, 16}).ok());
  ASSERT_TRUE((*s)->run().ok());
  EXPECT_TRUE((*s)->profile().empty());
}

TEST(EngineProfile, StepsBytesRunsAndTimes) {
  std::shared_ptr<const Engine> e = load(profiledModel().bytes());
  ASSERT_TRUE(e);
  SessionOptions options;
  options.profile = true;
  StatusOr<std::unique_ptr<Session>> s = Session::create(e, options);
  ASSERT_TRUE(s.ok()) << s.status().toString();
  Session &session = **s;

  // Before any run: one row per instruction, nothing timed.
  const std::vector<StepProfile> &p = session.profile();
  ASSERT_EQ(p.size(), 3u);
  const char *opcodes[] = {"Matmul", "Unary", "ElementwiseFused"};
  const uint64_t f = sizeof(float);
  const uint64_t read[] = {(8 * 16 + 16 * 4) * f, 8 * 4 * f, 8 * 4 * f};
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(p[i].instruction, i);
    EXPECT_EQ(p[i].opcode, opcodes[i]);
    EXPECT_EQ(p[i].bytesRead, read[i]) << i;
    EXPECT_EQ(p[i].bytesWritten, 8 * 4 * f) << i;
    EXPECT_EQ(p[i].runs, 0u);
    EXPECT_EQ(p[i].totalMs, 0.0);
  }
  EXPECT_EQ(p[0].kernel, "");
  EXPECT_EQ(p[2].kernel, "fused_neg_double");

  Floats x(8 * 16);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(i % 5) - 2;
  ASSERT_TRUE(session.bindInput(0, x.data(), DType::F32, {8, 16}).ok());
  auto start = std::chrono::steady_clock::now();
  for (int run = 0; run < 3; ++run)
    ASSERT_TRUE(session.run().ok());
  double wallMs = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  double sum = 0;
  for (const StepProfile &step : p) {
    EXPECT_EQ(step.runs, 3u) << step.opcode;
    EXPECT_LE(step.minMs * 3, step.totalMs * (1 + 1e-9)) << step.opcode;
    sum += step.totalMs;
  }
  // The steps run inside the runs, one after another.
  EXPECT_LE(sum, wallMs);

  // Profiling leaves the results alone: (-relu(x @ w)) * 2.
  Floats y = decode(session.outputData(0), 8 * 4, DType::F32);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) {
      float acc = 0;
      for (int k = 0; k < 16; ++k)
        acc += x[size_t(i * 16 + k)] * (float((k * 4 + j) % 7) - 3);
      EXPECT_EQ(y[size_t(i * 4 + j)], -2 * std::max(acc, 0.0f));
    }

  session.resetProfile();
  for (const StepProfile &step : p) {
    EXPECT_EQ(step.runs, 0u);
    EXPECT_EQ(step.totalMs, 0.0);
    EXPECT_EQ(step.bytesWritten, 8 * 4 * f); // what the steps are stays
  }
  ASSERT_TRUE(session.run().ok());
  for (const StepProfile &step : p) {
    EXPECT_EQ(step.runs, 1u);
    EXPECT_EQ(step.minMs, step.totalMs);
  }

  // A run that fails (an unbound input is refused before any step) adds
  // nothing.
  StatusOr<std::unique_ptr<Session>> fresh = Session::create(e, options);
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE((*fresh)->run().ok());
  EXPECT_EQ((*fresh)->profile()[0].runs, 0u);
}

TEST(EngineProfile, RefusedWithACudaGraph) {
  std::shared_ptr<const Engine> e = load(profiledModel().bytes());
  ASSERT_TRUE(e);
  SessionOptions options;
  options.profile = true;
  options.cudaGraph = true;
  StatusOr<std::unique_ptr<Session>> s = Session::create(e, options);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.status().message().find("CUDA graph"), std::string::npos)
      << s.status().message();
}

} // namespace
} // namespace shardrt
