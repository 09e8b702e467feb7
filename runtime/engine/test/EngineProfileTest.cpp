//===- EngineProfileTest.cpp - SessionOptions::profile --------------------===//
//
// What a profiled session reports per step: its opcode and kernel, the bytes
// of its operand slots and the flops of contractions (worked out here from
// the shapes), how many runs it saw, and times that fit inside the runs'
// wall-clock time.
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"
#include "shardrt/artifact/Artifact.h"

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

/// A profiled session of `m`; null (after a test failure) if none is made.
std::unique_ptr<Session> profiledSession(const Model &m) {
  std::shared_ptr<const Engine> e = load(m.bytes());
  EXPECT_TRUE(e);
  if (!e)
    return nullptr;
  SessionOptions options;
  options.profile = true;
  StatusOr<std::unique_ptr<Session>> s = Session::create(e, options);
  EXPECT_TRUE(s.ok()) << s.status().toString();
  return s.ok() ? std::move(*s) : nullptr;
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
  std::unique_ptr<Session> s = profiledSession(profiledModel());
  ASSERT_TRUE(s);
  Session &session = *s;

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
  std::unique_ptr<Session> fresh = profiledSession(profiledModel());
  ASSERT_TRUE(fresh);
  EXPECT_FALSE(fresh->run().ok());
  EXPECT_EQ(fresh->profile()[0].runs, 0u);
}

TEST(EngineProfile, AStepFailingMidRunAddsNothing) {
  // relu runs, then the all-reduce fails (no communicator): the steps
  // before the failure were timed, but a failed run is not a run.
  Model m;
  uint32_t x = m.input("x", {4});
  uint32_t t = m.slot({4});
  uint32_t y = m.output("y", {4});
  m.op(Opcode::Unary, {x}, {t}, {}, {}, "relu");
  InstructionSpec &reduce = m.op(Opcode::AllReduce, {t}, {y});
  reduce.reduce = fb::ReduceKind::Sum;
  std::unique_ptr<Session> s = profiledSession(m);
  ASSERT_TRUE(s);
  Floats in = {1, -2, 3, -4};
  ASSERT_TRUE(s->bindInput(0, in.data(), DType::F32, {4}).ok());
  for (int attempt = 0; attempt < 2; ++attempt) {
    Status r = s->run();
    ASSERT_EQ(r.code(), StatusCode::FailedPrecondition) << r.toString();
    EXPECT_NE(r.message().find("needs a communicator"), std::string::npos)
        << r.message();
    const std::vector<StepProfile> &p = s->profile();
    ASSERT_EQ(p.size(), 2u);
    for (const StepProfile &step : p) {
      EXPECT_EQ(step.runs, 0u) << step.opcode;
      EXPECT_EQ(step.totalMs, 0.0) << step.opcode;
      EXPECT_EQ(step.minMs, 0.0) << step.opcode;
    }
  }
}

TEST(EngineProfile, FlopsOfContractionsAndAttention) {
  // Two flops per multiply-add, counted from each op's definition.
  Model m;
  uint32_t x = m.input("x", {2, 3, 16, 16});
  uint32_t w = m.constant("w", {8, 3, 3, 3}, Floats(8 * 27, 0.5f));
  uint32_t c = m.output("conv", {2, 8, 16, 16});
  m.op(Opcode::Conv, {x, w}, {c}, {2, 1, 1, 1, 1, 1, 1, 1});
  // Rows [1, 15) of a 16 x 12 output only (an interior region).
  uint32_t rx = m.input("rx", {1, 4, 16, 12});
  uint32_t rw = m.constant("rw", {6, 4, 3, 3}, Floats(6 * 36, 0.5f));
  uint32_t ry = m.output("region", {1, 6, 16, 12});
  m.op(Opcode::Conv, {rx, rw}, {ry}, {2, 1, 1, 1, 1, 1, 1, 1, 1, 0, 15, 12});
  uint32_t tx = m.input("tx", {1, 4, 9, 6});
  uint32_t tw = m.constant("tw", {4, 3, 3, 3}, Floats(108, 0.5f));
  uint32_t ty = m.output("transposed", {1, 3, 18, 12});
  m.op(Opcode::ConvTranspose, {tx, tw}, {ty}, {2, 2, 2, 1, 1, 1, 1, 1});
  uint32_t a = m.input("a", {4, 7, 9}), b = m.input("b", {4, 9, 6});
  uint32_t mm = m.output("matmul", {4, 7, 6});
  m.op(Opcode::Matmul, {a, b}, {mm});
  uint32_t lx = m.input("lx", {10, 8});
  uint32_t lw = m.constant("lw", {5, 8}, Floats(40, 0.5f));
  uint32_t ly = m.output("linear", {10, 5});
  m.op(Opcode::Linear, {lx, lw}, {ly});
  uint32_t q = m.input("q", {2, 5, 4}), k = m.input("k", {2, 6, 4}),
           v = m.input("v", {2, 6, 3});
  uint32_t sdpa = m.output("sdpa", {2, 5, 3});
  m.op(Opcode::Attention, {q, k, v}, {sdpa}, {0, 0}, {0.5});
  uint32_t nq = m.input("nq", {1, 6, 7, 2, 5}),
           nk = m.input("nk", {1, 6, 7, 2, 5}),
           nv = m.input("nv", {1, 6, 7, 2, 5});
  uint32_t na = m.output("natten", {1, 6, 7, 2, 5});
  m.op(Opcode::NeighborhoodAttention, {nq, nk, nv}, {na},
       {2, 3, 5, 1, 1, 0, 0, 0, 0, 6, 7}, {0.4});
  uint32_t u = m.output("relu", {2, 8, 16, 16});
  m.op(Opcode::Unary, {c}, {u}, {}, {}, "relu");
  // A ring of one member (a world of one): Attention's count over its keys.
  uint32_t ring = m.output("ring", {2, 5, 3});
  m.op(Opcode::RingAttention, {q, k, v}, {ring},
       shardrt::artifact::ringAttentionInts({}, {}, {}, {0, 6}), {0.5});

  std::unique_ptr<Session> s = profiledSession(m);
  ASSERT_TRUE(s);
  const std::vector<StepProfile> &p = s->profile();
  ASSERT_EQ(p.size(), 9u);
  // Output positions x (Cin / groups x kernel) products.
  EXPECT_EQ(p[0].flops, 2u * (2 * 8 * 16 * 16) * (3 * 3 * 3));
  EXPECT_EQ(p[1].flops, 2u * (1 * 6 * 14 * 12) * (4 * 3 * 3));
  // Input positions x (Cout / groups x kernel) products.
  EXPECT_EQ(p[2].flops, 2u * (1 * 4 * 9 * 6) * (3 * 3 * 3));
  EXPECT_EQ(p[3].flops, 2u * (4 * 7 * 6) * 9);
  EXPECT_EQ(p[4].flops, 2u * (10 * 5) * 8);
  // q k^T (2 x 5 x 6 dots of 4) and probabilities times v (of 3).
  EXPECT_EQ(p[5].flops, 2u * (2 * 5 * 6) * (4 + 3));
  // Every query and head meets its 3 x 5 window's keys and values (dim 5).
  EXPECT_EQ(p[6].flops, 2u * (6 * 7 * 2) * (3 * 5) * (5 + 5));
  EXPECT_EQ(p[7].flops, 0u);
  EXPECT_EQ(p[8].flops, p[5].flops);
  EXPECT_EQ(p[8].bytesRead, p[5].bytesRead);
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
