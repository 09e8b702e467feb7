//===- CudaBackendTest.cpp - The CUDA backend against the CPU backend -----===//
//
// Label `gpu`. Without a usable device every test but the first skips with
// the reason; the first checks that asking for the CUDA backend there is a
// status, not a crash. With a device, each model runs on both backends and
// the outputs must agree to f32 rounding (the CUDA backend uses no TF32 by
// default).
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"
#include "shardrt/artifact/Artifact.h"

#include "shardrt/Engine.h"
#include "shardrt/comm/Local.h"
#include "shardrt/cpu/Kernels.h"
#ifdef SHARDRT_TEST_NCCL
#include "shardrt/comm/Nccl.h"
#endif

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <utility>

namespace shardrt {
namespace {

using namespace enginetest;

Floats randomFloats(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  return enginetest::randomFloats(size_t(n), rng);
}

/// One session; before each run new inputs are copied in, and after it
/// every output is copied out: a replay that reused the first run's
/// results would not match.
StatusOr<std::vector<std::vector<Floats>>>
runEach(std::shared_ptr<const Engine> engine,
        const std::vector<std::vector<Floats>> &inputsPerRun,
        const SessionOptions &options) {
  StatusOr<std::unique_ptr<Session>> s = Session::create(engine, options);
  if (!s.ok())
    return s.status();
  Session &session = **s;
  std::vector<std::vector<Floats>> results;
  for (const std::vector<Floats> &inputs : inputsPerRun) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      DType t = engine->input(i).dtype;
      SHARDRT_RETURN_IF_ERROR(session.copyInput(i, encode(inputs[i], t).data(),
                                                t, session.inputShape(i)));
    }
    SHARDRT_RETURN_IF_ERROR(session.run());
    if (options.cudaStream)
      cudaStreamSynchronize(static_cast<cudaStream_t>(options.cudaStream));
    std::vector<Floats> outs;
    for (size_t o = 0; o < engine->numOutputs(); ++o) {
      DType t = engine->output(o).dtype;
      int64_t n = count(session.outputShape(o));
      Bytes raw(size_t(n) * dtypeSize(t));
      SHARDRT_RETURN_IF_ERROR(
          session.copyOutput(o, raw.data(), t, session.outputShape(o)));
      outs.push_back(decode(raw.data(), n, t));
    }
    results.push_back(std::move(outs));
  }
  return results;
}

/// Runs `runs` times on `inputs`; every output of the last run.
StatusOr<std::vector<Floats>> run(std::shared_ptr<const Engine> engine,
                                  const std::vector<Floats> &inputs,
                                  const SessionOptions &options, int runs = 1) {
  StatusOr<std::vector<std::vector<Floats>>> all = runEach(
      std::move(engine),
      std::vector<std::vector<Floats>>(size_t(std::max(runs, 1)), inputs),
      options);
  if (!all.ok())
    return all.status();
  return std::move(all->back());
}

SessionOptions cudaOptions() {
  SessionOptions o;
  o.backend = BackendKind::Cuda;
  return o;
}

/// Every output of `got` within `tolerance` (relative) of `want`.
void expectOutputsClose(const std::vector<Floats> &got,
                        const std::vector<Floats> &want, float tolerance) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    ASSERT_EQ(got[o].size(), want[o].size());
    for (size_t i = 0; i < want[o].size(); ++i) {
      // NaN where the CPU gives NaN (attention rows with nothing visible).
      ASSERT_EQ(std::isnan(got[o][i]), std::isnan(want[o][i]))
          << "output " << o << " element " << i;
      if (!std::isnan(want[o][i])) {
        ASSERT_NEAR(got[o][i], want[o][i],
                    tolerance * (1.0f + std::fabs(want[o][i])))
            << "output " << o << " element " << i;
      }
    }
  }
}

/// Runs `m` on both backends and compares every output.
void expectBackendsAgree(const Model &m, const std::vector<Floats> &inputs,
                         SessionOptions cuda = cudaOptions(), int runs = 1,
                         float tolerance = 1e-4f) {
  std::shared_ptr<const Engine> engine = load(m.bytes());
  ASSERT_TRUE(engine);
  StatusOr<std::vector<Floats>> want = run(engine, inputs, SessionOptions());
  ASSERT_TRUE(want.ok()) << want.status().toString();
  // The model is valid (the CPU ran it); the rest needs a device.
  if (Status s = backendAvailable(BackendKind::Cuda); !s.ok())
    GTEST_SKIP() << "no GPU here: " << s.toString();
  StatusOr<std::vector<Floats>> got = run(engine, inputs, cuda, runs);
  ASSERT_TRUE(got.ok()) << got.status().toString();
  expectOutputsClose(*got, *want, tolerance);
}

/// Runs `m` in a CUDA graph session (which refuses any step that needs the
/// host, so every step must be native): plainly on `inputs`, captured on
/// other inputs, replayed on `inputs` again. Every run must agree with the
/// CPU (within `tolerance`, relative; 0: equal), so a capture or replay
/// that launched nothing shows.
void expectNativeAndAgree(const Model &m, const std::vector<Floats> &inputs,
                          float tolerance = 1e-4f) {
  std::shared_ptr<const Engine> engine = load(m.bytes());
  ASSERT_TRUE(engine);
  // New values for the second run (bool inputs flipped), the first ones
  // again for the third: a plain run, the capture, a replay.
  std::vector<std::vector<Floats>> runs = {inputs, inputs, inputs};
  for (size_t i = 0; i < runs[1].size(); ++i)
    for (float &v : runs[1][i])
      v = engine->input(i).dtype == DType::Bool ? float(v == 0.0f)
                                                : 0.25f - 0.5f * v;
  StatusOr<std::vector<std::vector<Floats>>> want =
      runEach(engine, runs, SessionOptions());
  ASSERT_TRUE(want.ok()) << want.status().toString();
  if (Status s = backendAvailable(BackendKind::Cuda); !s.ok())
    GTEST_SKIP() << "no GPU here: " << s.toString();
  SessionOptions graph = cudaOptions();
  graph.cudaGraph = true;
  StatusOr<std::vector<std::vector<Floats>>> got = runEach(engine, runs, graph);
  ASSERT_TRUE(got.ok()) << got.status().toString();
  for (size_t r = 0; r < runs.size(); ++r) {
    SCOPED_TRACE("run " + std::to_string(r));
    expectOutputsClose((*got)[r], (*want)[r], tolerance);
  }
}

/// Convolutions run natively only with cuDNN (the real one, or the host
/// build's stand-in); a build without it stages them through the CPU,
/// which a graph refuses.
void expectConvsAgree(const Model &m, const std::vector<Floats> &inputs) {
#ifdef SHARDRT_HAVE_CUDNN
  expectNativeAndAgree(m, inputs);
#else
  expectBackendsAgree(m, inputs);
#endif
}

#define SKIP_WITHOUT_GPU()                                                     \
  do {                                                                         \
    if (Status s = backendAvailable(BackendKind::Cuda); !s.ok())               \
      GTEST_SKIP() << "no GPU here: " << s.toString();                         \
  } while (0)

TEST(CudaBackend, WithoutADeviceSessionsFailWithAStatus) {
  Model m;
  uint32_t x = m.input("in0", {4});
  uint32_t y = m.output("out0", {4});
  m.op(Opcode::Unary, {x}, {y}, {}, {}, "relu");
  StatusOr<std::unique_ptr<Session>> s =
      Session::create(load(m.bytes()), cudaOptions());
  Status available = backendAvailable(BackendKind::Cuda);
  if (available.ok()) {
    EXPECT_TRUE(s.ok()) << s.status().toString();
    return;
  }
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), available.code()) << s.status().toString();
  EXPECT_EQ(backendAvailable(BackendKind::Cuda, 4096).code(), available.code());
}

TEST(CudaBackend, GeneratedKernelWithBodyRunsOnBothBackends) {
  // The CPU backend evaluates the body; the CUDA backend launches the
  // kernel from the fatbin. The CPU half runs everywhere.
  std::ifstream file(SHARDRT_TEST_FATBIN, std::ios::binary);
  ASSERT_TRUE(file) << "cannot read " << SHARDRT_TEST_FATBIN;
  Bytes fatbin((std::istreambuf_iterator<char>(file)),
               std::istreambuf_iterator<char>());
  Model m;
  uint32_t x = m.input("in0", {10, 100});
  uint32_t y = m.output("out0", {10, 100});
  m.kernelSymbols = {"test_fused0"};
  m.kernels = {{"sm_80,sm_90",
                fb::KernelFormat::Fatbin,
                {0},
                BlobBytes(std::move(fatbin))}};
  InstructionSpec &fused =
      m.op(Opcode::ElementwiseFused, {x}, {y}, {0, 1, 0, 2}, {}, "relu mul");
  fused.kernel = 0;
  Floats in = randomFloats(1000, 1);
  StatusOr<std::vector<Floats>> cpu =
      run(load(m.bytes()), {in}, SessionOptions());
  ASSERT_TRUE(cpu.ok()) << cpu.status().toString();
  for (size_t i = 0; i < in.size(); ++i)
    ASSERT_EQ((*cpu)[0][i], std::max(in[i], 0.0f) * in[i]);
  expectBackendsAgree(m, {in}, cudaOptions(), 1, 0.0f);
}

TEST(CudaBackend, LibraryStepsMatchTheCpu) {
  // conv (bias) -> max pool 2x2 -> linear (bias), and a batched matmul.
  Model m;
  uint32_t x = m.input("in0", {2, 3, 16, 16});
  uint32_t w = m.constant("c0", {8, 3, 3, 3}, randomFloats(8 * 27, 2));
  uint32_t b = m.constant("c1", {8}, randomFloats(8, 3));
  uint32_t c = m.slot({2, 8, 16, 16});
  m.op(Opcode::Conv, {x, w, b}, {c}, {2, 1, 1, 1, 1, 1, 1, 1});
  uint32_t p = m.slot({2, 8, 8, 8});
  m.op(Opcode::Pool, {c}, {p}, {2, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0, 0}, {},
       "max");
  uint32_t lw = m.constant("c2", {5, 8}, randomFloats(40, 4));
  uint32_t lb = m.constant("c3", {5}, randomFloats(5, 5));
  uint32_t pt = m.slot({2, 8, 8, 8});
  m.op(Opcode::Copy, {p}, {pt});
  uint32_t perm = m.slot({2, 8, 8, 8});
  m.op(Opcode::Permute, {pt}, {perm}, {0, 2, 3, 1}); // a box copy
  uint32_t l = m.output("out0", {2, 8, 8, 5});
  m.op(Opcode::Linear, {perm, lw, lb}, {l});
  uint32_t a = m.input("in1", {4, 7, 9});
  uint32_t bm = m.input("in2", {4, 9, 6});
  uint32_t mm = m.output("out1", {4, 7, 6});
  m.op(Opcode::Matmul, {a, bm}, {mm});
  uint32_t f = m.output("out2", {33});
  m.op(Opcode::Fill, {}, {f}, {}, {2.5});
  expectBackendsAgree(m, {randomFloats(2 * 3 * 256, 6), randomFloats(4 * 63, 7),
                          randomFloats(4 * 54, 8)});
}

TEST(CudaBackend, ConvRegionsMatchTheCpu) {
  // The interior/boundary split of a halo consumer: rows [1, 15) first,
  // then the edge rows, each a Conv over an output region (cuDNN views).
  // Then the split an edge rank makes, whose parts pad one side only (a
  // cropped symmetric conv), a strided conv with more padding after than
  // before, and a 1-d one. Every step is native: the session captures a
  // CUDA graph, which a host-staged step would refuse.
  Model m;
  uint32_t x = m.input("in0", {1, 4, 16, 12});
  uint32_t w = m.constant("c0", {6, 4, 3, 3}, randomFloats(6 * 36, 9));
  uint32_t b = m.constant("c1", {6}, randomFloats(6, 10));
  uint32_t y = m.output("out0", {1, 6, 16, 12});
  for (auto [lo, hi] : {std::pair<int64_t, int64_t>{1, 15}, {0, 1}, {15, 16}})
    m.op(Opcode::Conv, {x, w, b}, {y}, {2, 1, 1, 1, 1, 1, 1, 1, lo, 0, hi, 12});
  uint32_t z = m.output("out1", {1, 6, 16, 12});
  m.op(Opcode::Conv, {x, w}, {z}, {2, 1, 1, 1, 1, 1, 1, 1, 0, 0, 15, 12});
  m.op(Opcode::Conv, {x, w, b}, {z}, {2, 1, 1, 1, 1, 1, 1, 1, 15, 0, 16, 12});
  // Stride 2, padding 0 before and 1 after (output 8x6 of 16x12).
  uint32_t s = m.output("out2", {1, 6, 8, 6});
  m.op(Opcode::Conv, {x, w, b}, {s}, {2, 2, 2, 0, 0, 1, 1, 1});
  uint32_t x1 = m.input("in1", {2, 3, 20});
  uint32_t w1 = m.constant("c2", {5, 3, 4}, randomFloats(60, 12));
  uint32_t y1 = m.output("out3", {2, 5, 19});
  m.op(Opcode::Conv, {x1, w1}, {y1}, {1, 1, 1, 1, 1, 0, 7});
  m.op(Opcode::Conv, {x1, w1}, {y1}, {1, 1, 1, 1, 1, 7, 19});
  expectConvsAgree(m, {randomFloats(4 * 16 * 12, 11), randomFloats(120, 13)});
}

TEST(CudaBackend, OneMemberRingsRunInAGraph) {
  // Rings of one member never communicate: native, so a CUDA graph
  // captures them (a staged step would refuse the graph). Keys broadcast
  // over the heads; one ring adds a mask, the other is causal over whole
  // queries. Runs: plain, the capture, a replay.
  Model m;
  uint32_t q = m.input("q", {2, 5, 4}), k = m.input("k", {1, 6, 4}),
           v = m.input("v", {2, 6, 3}), mask = m.input("mask", {5, 6});
  uint32_t y = m.output("y", {2, 5, 3}), c = m.output("causal", {2, 5, 3});
  m.op(Opcode::RingAttention, {q, k, v, mask}, {y},
       artifact::ringAttentionInts({false, true, false, false}, {}, {}, {0, 6}),
       {0.5});
  m.op(Opcode::RingAttention, {q, k, v}, {c},
       artifact::ringAttentionInts({true, false, false, false}, {}, {0, 5},
                                   {0, 6}),
       {0.5});
  expectNativeAndAgree(m, {randomFloats(40, 1), randomFloats(24, 2),
                           randomFloats(36, 3), randomFloats(30, 4)});
}

TEST(CudaBackend, LongAttentionRunsInBlocksOnTheDevice) {
  // 4100 queries and keys: more scores than the 2^24-float workspace, so
  // the plan splits each batch entry's rows in two blocks, the first of
  // which (causal) computes only the keys its rows see.
  Model m;
  uint32_t q = m.input("q", {2, 4100, 4}), k = m.input("k", {2, 4100, 4}),
           v = m.input("v", {2, 4100, 3});
  uint32_t y = m.output("y", {2, 4100, 3}),
           c = m.output("causal", {2, 4100, 3});
  m.op(Opcode::Attention, {q, k, v}, {y}, {0, 0}, {0.5});
  m.op(Opcode::Attention, {q, k, v}, {c}, {1, 0}, {0.5});
  expectNativeAndAgree(m, {randomFloats(32800, 91), randomFloats(32800, 92),
                           randomFloats(24600, 93)});
}

TEST(CudaBackend, TransposedConvsRunOnTheDevice) {
  // cuDNN backward-data convs (ConvRegionPlan.h's planConvTransposeDim):
  // r11's k3 s2 padding 1 output_padding 1 whole (in place) and as its last
  // shard gets it (padding 2 before and one row more than a symmetric pad
  // gives: cropped from a temporary),
  // a grouped dilated 1-d one and a 3-d one without bias. Captured in a
  // CUDA graph, so every one is native.
  Model m;
  uint32_t x = m.input("x", {1, 4, 9, 6});
  uint32_t w = m.constant("w", {4, 3, 3, 3}, randomFloats(108, 61));
  uint32_t b = m.constant("b", {3}, randomFloats(3, 62));
  uint32_t y = m.output("whole", {1, 3, 18, 12});
  m.op(Opcode::ConvTranspose, {x, w, b}, {y}, {2, 2, 2, 1, 1, 1, 1, 1});
  uint32_t shard = m.output("shard", {1, 3, 17, 12});
  m.op(Opcode::ConvTranspose, {x, w, b}, {shard}, {2, 2, 2, 2, 1, 1, 1, 1});
  uint32_t x1 = m.input("x1", {2, 4, 7});
  uint32_t w1 = m.constant("w1", {4, 3, 3}, randomFloats(36, 63));
  uint32_t b1 = m.constant("b1", {6}, randomFloats(6, 64));
  uint32_t y1 = m.output("grouped", {2, 6, 17});
  m.op(Opcode::ConvTranspose, {x1, w1, b1}, {y1}, {1, 2, 1, 2, 2});
  uint32_t x2 = m.input("x2", {1, 2, 3, 4, 2});
  uint32_t w2 = m.constant("w2", {2, 2, 2, 2, 2}, randomFloats(32, 65));
  uint32_t y2 = m.output("volume", {1, 2, 6, 8, 4});
  m.op(Opcode::ConvTranspose, {x2, w2}, {y2},
       {3, 2, 2, 2, 0, 0, 0, 1, 1, 1, 1});
  expectConvsAgree(
      m, {randomFloats(216, 66), randomFloats(56, 67), randomFloats(48, 68)});
}

TEST(CudaBackend, PadsOfEveryModeAndBroadcastsGatherOnTheDevice) {
  // Reflect, replicate and circular pads (one with a crop) and broadcasts
  // of f32 and bool through GatherPlan's index tables. Captured in a CUDA
  // graph, so every one is native.
  Model m;
  uint32_t x = m.input("x", {2, 5, 4});
  uint32_t r = m.output("reflect", {2, 8, 6});
  m.op(Opcode::Pad, {x}, {r}, {0, 2, 1, 0, 1, 1}, {0.0}, "reflect");
  uint32_t e = m.output("replicate", {2, 9, 4});
  m.op(Opcode::Pad, {x}, {e}, {0, 3, 0, 0, 1, 0}, {0.0}, "replicate");
  uint32_t c = m.output("circular", {2, 6, 3});
  m.op(Opcode::Pad, {x}, {c}, {0, 2, -1, 0, -1, 0}, {0.0}, "circular");
  uint32_t b = m.output("broadcast", {3, 2, 5, 4});
  m.op(Opcode::BroadcastTo, {x}, {b});
  uint32_t keep = m.input("keep", {1, 5, 1}, I1);
  uint32_t kb = m.output("keepBroadcast", {2, 5, 3}, I1);
  m.op(Opcode::BroadcastTo, {keep}, {kb});
  expectNativeAndAgree(m, {randomFloats(40, 71), {1, 0, 0, 1, 1}});
}

TEST(CudaBackend, ComparesSelectsAndCastsRunOnTheDevice) {
  // A causal ring's straddling block: query positions (4, 1) against key
  // positions (1, 6), kept where q >= k, the rest set to a floor (Select
  // of f32 with a broadcast scalar); a Select of bools; Casts both ways;
  // a mask splat filled into one byte (true) and a whole mask (false),
  // selecting between them. Captured in a CUDA graph, so every one is
  // native.
  Model m;
  uint32_t qpos = m.input("qpos", {4, 1}), kpos = m.input("kpos", {1, 6});
  uint32_t scores = m.input("scores", {2, 4, 6}), floor = m.input("floor", {});
  uint32_t seen = m.output("seen", {4, 6}, I1);
  m.op(Opcode::Compare, {qpos, kpos}, {seen}, {}, {}, "ge");
  uint32_t kept = m.output("kept", {2, 4, 6});
  m.op(Opcode::Select, {seen, scores, floor}, {kept});
  uint32_t other = m.input("other", {6}, I1);
  uint32_t either = m.output("either", {4, 6}, I1);
  m.op(Opcode::Select, {seen, seen, other}, {either});
  uint32_t asBool = m.output("asBool", {2, 4, 6}, I1);
  m.op(Opcode::Cast, {scores}, {asBool});
  uint32_t asFloat = m.output("asFloat", {4, 6});
  m.op(Opcode::Cast, {either}, {asFloat});
  uint32_t yes = m.slot({1, 1}, I1), no = m.output("no", {4, 6}, I1);
  m.op(Opcode::Fill, {}, {yes}, {}, {1.0});
  m.op(Opcode::Fill, {}, {no}, {}, {0.0});
  uint32_t picked = m.output("picked", {4, 6}, I1);
  m.op(Opcode::Select, {seen, yes, no}, {picked});
  Floats s = randomFloats(48, 81);
  s[3] = 0.0f;
  s[7] = std::nanf("");
  expectNativeAndAgree(
      m, {{0, 2, 3, 5}, {0, 1, 2, 3, 4, 5}, s, {-1e30f}, {1, 0, 1, 0, 0, 1}});
}

TEST(CudaBackend, PoolsCuDnnRefusesRunOnOurKernel) {
  // r13's padded max pool (k3 s2 p1 on 127 rows), a shard's asymmetric
  // padding, a dilated 3-d ceil-mode max pool, and an average with a
  // divisor override: none is cuDNN's, all must be native (graph capture).
  Model m;
  uint32_t x = m.input("in0", {2, 3, 127, 20});
  uint32_t a = m.output("out0", {2, 3, 64, 10});
  m.op(Opcode::Pool, {x}, {a}, {2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0}, {},
       "max");
  uint32_t b = m.output("out1", {2, 3, 64, 10});
  m.op(Opcode::Pool, {x}, {b}, {2, 3, 3, 2, 2, 1, 0, 1, 1, 1, 1, 0, 0}, {},
       "avg");
  uint32_t v = m.input("in1", {1, 2, 7, 9, 8});
  uint32_t c = m.output("out2", {1, 2, 3, 5, 4});
  m.op(Opcode::Pool, {v}, {c},
       {3, 2, 3, 2, 2, 2, 2, 0, 1, 0, 0, 0, 0, 2, 1, 2, 1, 0}, {}, "max");
  uint32_t d = m.output("out3", {2, 3, 43, 7});
  m.op(Opcode::Pool, {x}, {d}, {2, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 5}, {},
       "avg");
  // Our kernel follows the CPU's rules and order: the same values.
  expectNativeAndAgree(
      m, {randomFloats(2 * 3 * 127 * 20, 61), randomFloats(2 * 7 * 9 * 8, 62)},
      0.0f);
}

TEST(CudaBackend, PadSliceConcatMoveBoxesOnTheDevice) {
  // A pad that crops one side and pads the other of each dim, a pad that
  // crops past the input, a unit-step slice and a concat along a middle
  // dim: box fills and box copies (DataMovementPlan). Every step is
  // native: the session captures a CUDA graph, which a host-staged step
  // would refuse.
  Model m;
  uint32_t x = m.input("in0", {2, 5, 4});
  uint32_t p = m.output("out0", {2, 7, 3});
  m.op(Opcode::Pad, {x}, {p}, {0, -1, 2, 0, 3, -3}, {1.5}, "constant");
  uint32_t q = m.output("out1", {2, 1, 4});
  m.op(Opcode::Pad, {x}, {q}, {0, -6, 0, 0, 2, 0}, {-2.0}, "constant");
  uint32_t s = m.output("out2", {1, 3, 2});
  m.op(Opcode::Slice, {x}, {s}, {1, 2, 1, 1, 1, 1});
  uint32_t y = m.input("in1", {2, 3, 4});
  uint32_t c = m.output("out3", {2, 8, 4});
  m.op(Opcode::Concat, {x, y}, {c}, {1});
  expectNativeAndAgree(m, {randomFloats(40, 31), randomFloats(24, 32)});
}

TEST(CudaBackend, PermutesStridedSlicesAndInterpolationsRunOnTheDevice) {
  // A permute, a strided slice (strided box copies), and interpolations
  // from the CPU kernel's tables (InterpolatePlan): nearest x2 of a map,
  // bilinear with align_corners, and a shard of a trilinear resize (output
  // rows from 3 of a global 10, input rows from 1 of a global 5). Captured
  // in a CUDA graph, so every step is native.
  Model m;
  uint32_t x = m.input("in0", {2, 3, 4, 5});
  uint32_t t = m.output("out0", {5, 2, 4, 3});
  m.op(Opcode::Permute, {x}, {t}, {3, 0, 2, 1});
  uint32_t s = m.output("out1", {1, 2, 2, 2});
  m.op(Opcode::Slice, {x}, {s}, {1, 0, 1, 0, 1, 2, 2, 3});
  uint32_t n = m.output("out2", {2, 3, 8, 10});
  m.op(Opcode::Interpolate, {x}, {n}, {2, 0, 0, 0, 0, 0, 4, 5}, {0.5, 0.5},
       "nearest");
  uint32_t b = m.output("out3", {2, 3, 7, 3});
  m.op(Opcode::Interpolate, {x}, {b}, {2, 1, 0, 0, 0, 0, 4, 5},
       {3.0 / 6.0, 4.0 / 2.0}, "linear");
  uint32_t v = m.input("in1", {1, 2, 4, 3, 2});
  uint32_t r = m.output("out4", {1, 2, 5, 6, 4});
  m.op(Opcode::Interpolate, {v}, {r}, {3, 0, 3, 0, 0, 1, 0, 0, 5, 3, 2},
       {0.5, 0.5, 0.5}, "linear");
  expectNativeAndAgree(m, {randomFloats(120, 33), randomFloats(48, 34)});
}

TEST(CudaBackend, ScansRunOnTheDevice) {
  // A sum along the middle dim of a few long lines (chunked, its carries in
  // the session's scratch), its shards' packed totals, a logsumexp that
  // starts after 2 of 3 shards' totals, a max along rows, and a short
  // product a thread per line. Captured in a CUDA graph, so every one is
  // native.
  Model m;
  uint32_t a = m.input("a", {2, 3000, 3}), t = m.input("t", {2, 3, 3, 4});
  uint32_t b = m.input("b", {4, 5000}), c = m.input("c", {3, 7});
  uint32_t sum = m.output("sum", {2, 3000, 3});
  m.op(Opcode::Scan, {a}, {sum}, {1}, {}, "sum");
  uint32_t totals = m.output("totals", {2, 1, 3, 4});
  m.op(Opcode::ScanTotals, {a}, {totals}, {1}, {}, "sum");
  uint32_t lse = m.output("lse", {2, 3000, 3});
  m.op(Opcode::Scan, {a, t}, {lse}, {1, 2}, {}, "logsumexp");
  uint32_t max = m.output("max", {4, 5000});
  m.op(Opcode::Scan, {b}, {max}, {1}, {}, "max");
  uint32_t prod = m.output("prod", {3, 7});
  m.op(Opcode::Scan, {c}, {prod}, {0}, {}, "prod");
  expectNativeAndAgree(m, {randomFloats(18000, 51), randomFloats(72, 52),
                           randomFloats(20000, 53), randomFloats(21, 54)});
}

TEST(CudaBackend, NeighborhoodAttentionRunsOnTheDevice) {
  // Windows from the CPU kernel's rule (NeighborhoodPlan): a 2-D 3x5
  // window over a 6x7 map (shifted at every border), and a shard of a
  // dilated 1-D window (queries 3-6 of 12, all keys). Captured in a CUDA
  // graph, so both are native.
  Model m;
  uint32_t q = m.input("q", {1, 6, 7, 2, 5}), k = m.input("k", {1, 6, 7, 2, 5}),
           v = m.input("v", {1, 6, 7, 2, 5});
  uint32_t y = m.output("y", {1, 6, 7, 2, 5});
  m.op(Opcode::NeighborhoodAttention, {q, k, v}, {y},
       {2, 3, 5, 1, 1, 0, 0, 0, 0, 6, 7}, {0.4});
  uint32_t q1 = m.input("q1", {2, 4, 1, 3}), k1 = m.input("k1", {2, 12, 1, 3}),
           v1 = m.input("v1", {2, 12, 1, 3});
  uint32_t y1 = m.output("y1", {2, 4, 1, 3});
  m.op(Opcode::NeighborhoodAttention, {q1, k1, v1}, {y1}, {1, 3, 2, 3, 0, 12},
       {0.5});
  expectNativeAndAgree(m, {randomFloats(420, 41), randomFloats(420, 42),
                           randomFloats(420, 43), randomFloats(24, 44),
                           randomFloats(72, 45), randomFloats(72, 46)});
}

TEST(CudaBackend, AttentionRunsOnTheDevice) {
  // Scaled dot-product attention as GEMMs around the masked softmax kernel
  // (AttentionPlan): no mask; an f32 mask broadcast over the batch's first
  // dim and the query rows, with is_causal; a bool mask per batch entry
  // that hides every key of some rows (NaN rows, as on the CPU). Captured
  // in a CUDA graph, so every one is native.
  Model m;
  Shape qs = {2, 3, 5, 4}, ks = {2, 3, 7, 4}, vs = {2, 3, 7, 6},
        ys = {2, 3, 5, 6};
  uint32_t q = m.input("q", qs), k = m.input("k", ks), v = m.input("v", vs);
  uint32_t fmask = m.input("fmask", {3, 1, 7});
  uint32_t bmask = m.input("bmask", {2, 3, 5, 7}, I1);
  uint32_t y0 = m.output("plain", ys), y1 = m.output("causal", ys),
           y2 = m.output("masked", ys);
  m.op(Opcode::Attention, {q, k, v}, {y0}, {0, 0}, {0.5});
  m.op(Opcode::Attention, {q, k, v, fmask}, {y1}, {1, 1}, {0.4});
  m.op(Opcode::Attention, {q, k, v, bmask}, {y2}, {0, 1}, {0.3});
  Floats keep(2 * 3 * 5 * 7);
  for (size_t i = 0; i < keep.size(); ++i)
    keep[i] = i / 7 % 4 == 1 ? 0.0f : float(i * 5 % 3 != 0);
  expectNativeAndAgree(m, {randomFloats(120, 51), randomFloats(168, 52),
                           randomFloats(252, 53), randomFloats(21, 54), keep});
}

/// Two ranks hold rows [0, 5) and [5, 12) of a (2, 12, 3) tensor; each pads
/// its rows by one on both sides and fills the pads from its ring
/// neighbours: boxes that are not contiguous in the slot (one row of each
/// of 2 batches). Output: the padded piece. With `started`, the exchange
/// only starts, the whole piece is filled with 5, and a Wait completes the
/// exchange: the peers get the rows as they were when it started, and the
/// received rows land after the fill.
std::vector<uint8_t> ringExchangeArtifact(bool started) {
  const std::vector<int64_t> rows = {5, 7};
  ArtifactWriter w({"x"}, {2});
  for (int r = 0; r < 2; ++r) {
    int64_t n = rows[size_t(r)];
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    auto slot = [](uint64_t offset, Shape shape) {
      BufferSlotSpec b;
      b.offset = offset;
      b.bytes = artifact::tensorBytes(fb::DType::F32, shape);
      b.shape = std::move(shape);
      return b;
    };
    rc.buffers = {slot(0, {2, n, 3}), slot(256, {2, n + 2, 3})};
    rc.arenaBytes = 256 + 4 * 2 * uint64_t(n + 2) * 3;
    InstructionSpec pad;
    pad.opcode = Opcode::Pad;
    pad.inputs = {0};
    pad.outputs = {1};
    pad.str = "constant";
    pad.ints = {0, 1, 0, 0, 1, 0};
    pad.floats = {-100.0};
    auto transfer = [](fb::TransferKind kind, int peer, int64_t lo,
                       uint32_t tag) {
      artifact::TransferSpec t;
      t.kind = kind;
      t.peer = {peer};
      t.periodic = true;
      t.slot = 1;
      t.lo = {0, lo, 0};
      t.hi = {2, lo + 1, 3};
      t.tag = tag;
      return t;
    };
    InstructionSpec halo;
    halo.opcode = Opcode::HaloExchange;
    halo.inputs = {1};
    halo.outputs = {1};
    halo.transfers = {transfer(fb::TransferKind::Send, -1, 1, 1),
                      transfer(fb::TransferKind::Send, +1, n, 2),
                      transfer(fb::TransferKind::Recv, +1, n + 1, 1),
                      transfer(fb::TransferKind::Recv, -1, 0, 2)};
    rc.program = {pad, halo};
    if (started) {
      rc.program[1].ints = {1};
      InstructionSpec fill; // native on the GPU: no synchronisation
      fill.opcode = Opcode::Fill;
      fill.outputs = {1};
      fill.floats = {5.0};
      InstructionSpec wait;
      wait.opcode = Opcode::Wait;
      wait.inputs = {1};
      wait.outputs = {1};
      wait.ints = {1};
      rc.program.push_back(fill);
      rc.program.push_back(wait);
    }
    rc.inputSlots = {0};
    rc.outputSlots = {1};
    w.addRankClass(std::move(rc));
  }
  TensorDescSpec x, y;
  x.name = "x";
  x.shape = {2, 12, 3};
  x.dims = {{{}, {2}}, {{0}, rows}, {{}, {3}}};
  y.name = "y";
  y.shape = {2, 16, 3};
  y.dims = {{{}, {2}}, {{0}, {7, 9}}, {{}, {3}}};
  w.addInput(x);
  w.addOutput(y);
  StatusOr<Bytes> bytes = w.serialize();
  EXPECT_TRUE(bytes.ok()) << bytes.status().toString();
  return bytes.ok() ? *bytes : Bytes{};
}

/// Element i of rank r's input 0 in run `run`.
using InputValueFn = std::function<float(int run, int rank, int64_t i)>;

/// Runs `artifact` `runs` times per rank of a local world that copies
/// messages with `copy`, rank r's input 0 holding `value(run, r, i)` at
/// element i in run `run` (by default 100000 * run + r * 1000 + i); every
/// rank's outputs of the last run (and, if asked, its steps that need the
/// host).
StatusOr<std::vector<std::vector<Floats>>>
runLocalWorld(const std::vector<uint8_t> &artifact, int world,
              const SessionOptions &options, comm::CopyBytesFn copy,
              std::vector<std::vector<HostStep>> *hostSteps = nullptr,
              int runs = 1, InputValueFn value = nullptr) {
  if (!value)
    value = [](int run, int rank, int64_t i) {
      return float(100000 * run + rank * 1000 + i);
    };
  std::shared_ptr<const Engine> engine = load(artifact);
  if (!engine)
    return Status::internal("the artifact does not load");
  std::vector<std::vector<Floats>> outputs(static_cast<size_t>(world));
  comm::CommOptions commOptions;
  commOptions.copyBytes = copy;
  Status s = comm::LocalWorld::run(
      world,
      [&](comm::Communicator &c) -> Status {
        // Which path the steps take: device to device, or the host.
        EXPECT_EQ(c.takesDeviceBuffers(), copy != nullptr);
        StatusOr<std::unique_ptr<Session>> session =
            Session::create(engine, &c, options);
        if (!session.ok())
          return session.status();
        Shape in = (*session)->inputShape(0);
        Floats x(size_t(count(in)));
        for (int run = 0; run < runs; ++run) {
          for (size_t i = 0; i < x.size(); ++i)
            x[i] = value(run, c.rank(), int64_t(i));
          SHARDRT_RETURN_IF_ERROR(
              (*session)->copyInput(0, x.data(), DType::F32, in));
          SHARDRT_RETURN_IF_ERROR((*session)->run());
        }
        if (hostSteps)
          hostSteps->at(size_t(c.rank())) = (*session)->hostSteps();
        for (size_t o = 0; o < engine->numOutputs(); ++o) {
          Shape out = (*session)->outputShape(o);
          Floats y(size_t(count(out)));
          SHARDRT_RETURN_IF_ERROR(
              (*session)->copyOutput(o, y.data(), DType::F32, out));
          outputs[size_t(c.rank())].push_back(std::move(y));
        }
        return Status();
      },
      commOptions);
  if (!s.ok())
    return s;
  return outputs;
}

/// Every rank's padded piece of the ring artifact (and, if asked, its steps
/// that need the host).
StatusOr<std::vector<Floats>>
runRing(const SessionOptions &options, comm::CopyBytesFn copy, bool started,
        std::vector<std::vector<HostStep>> *hostSteps = nullptr) {
  StatusOr<std::vector<std::vector<Floats>>> outputs =
      runLocalWorld(ringExchangeArtifact(started), 2, options, copy, hostSteps);
  if (!outputs.ok())
    return outputs.status();
  std::vector<Floats> pieces;
  for (std::vector<Floats> &rank : *outputs)
    pieces.push_back(std::move(rank.at(0)));
  return pieces;
}

TEST(CudaBackend, HaloExchangesMoveBoxesOnTheDevice) {
  // The native exchange packs and unpacks on the device and moves the
  // boxes device to device (a local world with the device-aware copy) or
  // through pinned host copies (plain memcpy), blocking or started with
  // work between its start and its Wait; all must match the CPU.
  for (bool started : {false, true}) {
    SCOPED_TRACE(started ? "started, then waited for" : "blocking");
    StatusOr<std::vector<Floats>> want =
        runRing(SessionOptions(), nullptr, started);
    ASSERT_TRUE(want.ok()) << want.status().toString();
    // Rank 0's last padded row (batch 1) holds rank 1's first row, as it
    // was before any fill; its own rows are filled when started.
    EXPECT_EQ((*want)[0][size_t((1 * 7 + 6) * 3)], 1000.0f + 7 * 3);
    EXPECT_EQ((*want)[0][size_t(1 * 3 + 1)], started ? 5.0f : 1.0f);
    if (backendAvailable(BackendKind::Cuda).ok())
      for (comm::CopyBytesFn copy :
           {localMessageCopy(BackendKind::Cuda), comm::CopyBytesFn()}) {
        SCOPED_TRACE(copy ? "device to device" : "through the host");
        std::vector<std::vector<HostStep>> hostSteps(2);
        StatusOr<std::vector<Floats>> got =
            runRing(cudaOptions(), copy, started, &hostSteps);
        ASSERT_TRUE(got.ok()) << got.status().toString();
        EXPECT_EQ(*got, *want);
        // Native either way: only the step that waits for the messages
        // (the blocking exchange, or the Wait) waits on the host.
        for (const std::vector<HostStep> &steps : hostSteps) {
          ASSERT_EQ(steps.size(), 1u);
          EXPECT_EQ(steps[0].instruction, started ? 3u : 1u);
          EXPECT_EQ(steps[0].opcode, started ? "Wait" : "HaloExchange");
          EXPECT_FALSE(steps[0].staged);
        }
      }
  }
  SKIP_WITHOUT_GPU();
}

/// A causal self-attention ring over `starts.size() - 1` ranks, each
/// holding rows [starts[r], starts[r + 1]) of x (batch, n, 4), which is the
/// queries, the keys and the values at once: queries split as the keys, so
/// the ring runs its balanced schedule (RingStep.h) from 3 members on.
std::vector<uint8_t> causalRingArtifact(const std::vector<int64_t> &starts,
                                        int64_t batch = 2) {
  int world = int(starts.size()) - 1;
  ArtifactWriter w({"x"}, {world});
  std::vector<int64_t> rows;
  for (int r = 0; r < world; ++r) {
    int64_t n = starts[size_t(r) + 1] - starts[size_t(r)];
    rows.push_back(n);
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    rc.buffers = {enginetest::f32Slot(0, {batch, n, 4}),
                  enginetest::f32Slot(1024, {batch, n, 4})};
    rc.arenaBytes = 2048;
    InstructionSpec ring;
    ring.opcode = Opcode::RingAttention;
    ring.inputs = {0, 0, 0};
    ring.outputs = {1};
    ring.meshAxes = {0};
    ring.ints = artifact::ringAttentionInts({true, false, false, true}, {0},
                                            starts, starts);
    ring.floats = {0.5};
    rc.program = {ring};
    rc.inputSlots = {0};
    rc.outputSlots = {1};
    w.addRankClass(std::move(rc));
  }
  TensorDescSpec x, y;
  x.name = "x";
  x.shape = {batch, starts.back(), 4};
  x.dims = {{{}, {batch}}, {{0}, rows}, {{}, {4}}};
  y = x;
  y.name = "y";
  w.addInput(x);
  w.addOutput(y);
  StatusOr<Bytes> bytes = w.serialize();
  EXPECT_TRUE(bytes.ok()) << bytes.status().toString();
  return bytes.ok() ? *bytes : Bytes{};
}

TEST(CudaBackend, BalancedCausalRingsFoldOnTheDevice) {
  // Four and five members (one empty): each member folds its own keys into
  // the queries of the member after it, sending the partial state back,
  // and merges what its helper sent (launchRingMerge); device to device,
  // the ring is native. Against the CPU backend's ring.
  InputValueFn value = [](int, int rank, int64_t i) {
    return std::sin(0.3f * float(i) + 1.1f * float(rank));
  };
  for (const std::vector<int64_t> &starts : std::vector<std::vector<int64_t>>{
           {0, 3, 5, 8, 12}, {0, 2, 2, 5, 6, 9}}) {
    int world = int(starts.size()) - 1;
    SCOPED_TRACE(std::to_string(world) + " members");
    StatusOr<std::vector<std::vector<Floats>>> want =
        runLocalWorld(causalRingArtifact(starts), world, SessionOptions(),
                      nullptr, nullptr, 1, value);
    ASSERT_TRUE(want.ok()) << want.status().toString();
    // The CPU ring runs the same schedule: it is checked against cpu::sdpa
    // over the whole sequence first.
    int64_t n = starts.back();
    Floats x(size_t(2 * n * 4)), whole(x.size());
    for (int r = 0; r < world; ++r) {
      int64_t lo = starts[size_t(r)], rows = starts[size_t(r) + 1] - lo;
      for (int64_t i = 0; i < 2 * rows * 4; ++i)
        x[size_t((i / (rows * 4) * n + lo + i / 4 % rows) * 4 + i % 4)] =
            value(0, r, i);
    }
    cpu::sdpa(2, n, n, 4, 4, x.data(), x.data(), x.data(), nullptr, false, 1,
              true, 0.5, whole.data());
    for (int r = 0; r < world; ++r) {
      int64_t lo = starts[size_t(r)], rows = starts[size_t(r) + 1] - lo;
      Floats rankRows;
      for (int64_t b = 0; b < 2; ++b)
        rankRows.insert(rankRows.end(), whole.begin() + (b * n + lo) * 4,
                        whole.begin() + (b * n + lo + rows) * 4);
      SCOPED_TRACE("the CPU's rank " + std::to_string(r));
      expectOutputsClose((*want)[size_t(r)], {rankRows}, 1e-5f);
    }
    if (!backendAvailable(BackendKind::Cuda).ok())
      continue;
    std::vector<std::vector<HostStep>> hostSteps{size_t(world)};
    StatusOr<std::vector<std::vector<Floats>>> got = runLocalWorld(
        causalRingArtifact(starts), world, cudaOptions(),
        localMessageCopy(BackendKind::Cuda), &hostSteps, 1, value);
    ASSERT_TRUE(got.ok()) << got.status().toString();
    for (int r = 0; r < world; ++r) {
      SCOPED_TRACE("rank " + std::to_string(r));
      expectOutputsClose((*got)[size_t(r)], (*want)[size_t(r)], 1e-5f);
      for (const HostStep &step : hostSteps[size_t(r)])
        EXPECT_FALSE(step.staged) << step.opcode;
    }
  }
  SKIP_WITHOUT_GPU();
}

/// Three ranks hold (2, n_r, 3) blocks, n = {2, 3, 1}; each copies its block
/// (a native step the gathers must wait for), gathers it along dim 1 (the
/// blocks interleave: staged on the device, then unpacked) and, permuted
/// to (n_r, 2, 3), along dim 0 (gathered straight into the output).
std::vector<uint8_t> allGatherArtifact() {
  const std::vector<int64_t> rows = {2, 3, 1};
  ArtifactWriter w({"x"}, {3});
  for (int r = 0; r < 3; ++r) {
    int64_t n = rows[size_t(r)];
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    uint64_t at = 0;
    for (Shape shape : {Shape{2, n, 3}, Shape{2, n, 3}, Shape{n, 2, 3},
                        Shape{2, 6, 3}, Shape{6, 2, 3}}) {
      BufferSlotSpec b;
      b.offset = at;
      b.bytes = artifact::tensorBytes(fb::DType::F32, shape);
      b.shape = shape;
      rc.buffers.push_back(b);
      at += (b.bytes + 255) / 256 * 256;
    }
    rc.arenaBytes = at;
    InstructionSpec copy, permute, rowsGather, batchGather;
    copy.opcode = Opcode::Copy;
    copy.inputs = {0};
    copy.outputs = {1};
    permute.opcode = Opcode::Permute;
    permute.inputs = {1};
    permute.outputs = {2};
    permute.ints = {1, 0, 2};
    rowsGather.opcode = batchGather.opcode = Opcode::AllGather;
    rowsGather.meshAxes = batchGather.meshAxes = {0};
    rowsGather.inputs = {1};
    rowsGather.outputs = {3};
    rowsGather.ints = {1, 2, 3, 1};
    batchGather.inputs = {2};
    batchGather.outputs = {4};
    batchGather.ints = {0, 2, 3, 1};
    rc.program = {copy, permute, rowsGather, batchGather};
    rc.inputSlots = {0};
    rc.outputSlots = {3, 4};
    w.addRankClass(std::move(rc));
  }
  TensorDescSpec x, byRows, byBatch;
  x.name = "x";
  x.shape = {2, 6, 3};
  x.dims = {{{}, {2}}, {{0}, rows}, {{}, {3}}};
  byRows.name = "by_rows";
  byRows.shape = {2, 6, 3};
  byRows.dims = {{{}, {2}}, {{}, {6}}, {{}, {3}}};
  byBatch.name = "by_batch";
  byBatch.shape = {6, 2, 3};
  byBatch.dims = {{{}, {6}}, {{}, {2}}, {{}, {3}}};
  w.addInput(x);
  w.addOutput(byRows);
  w.addOutput(byBatch);
  StatusOr<Bytes> bytes = w.serialize();
  EXPECT_TRUE(bytes.ok()) << bytes.status().toString();
  return bytes.ok() ? *bytes : Bytes{};
}

TEST(CudaBackend, AllGathersLandInDeviceMemory) {
  // Two runs, so that staging reused with stale blocks shows. Global row g
  // of rank q's block (local row j): element (b, g, c) is 100000 + q * 1000
  // + (b * n_q + j) * 3 + c of rank q's input in the second run.
  const std::vector<int64_t> rows = {2, 3, 1};
  Floats byRows(2 * 6 * 3), byBatch(6 * 2 * 3);
  for (int64_t q = 0, g = 0; q < 3; ++q)
    for (int64_t j = 0; j < rows[size_t(q)]; ++j, ++g)
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t c = 0; c < 3; ++c) {
          float v =
              float(100000 + q * 1000 + (b * rows[size_t(q)] + j) * 3 + c);
          byRows[size_t((b * 6 + g) * 3 + c)] = v;
          byBatch[size_t((g * 2 + b) * 3 + c)] = v;
        }
  std::vector<uint8_t> artifact = allGatherArtifact();
  StatusOr<std::vector<std::vector<Floats>>> cpu =
      runLocalWorld(artifact, 3, SessionOptions(), nullptr, nullptr, 2);
  ASSERT_TRUE(cpu.ok()) << cpu.status().toString();
  for (const std::vector<Floats> &rank : *cpu)
    EXPECT_EQ(rank, (std::vector<Floats>{byRows, byBatch}));
  SKIP_WITHOUT_GPU();
  // Device to device (native), and through the host (staged).
  for (comm::CopyBytesFn copy :
       {localMessageCopy(BackendKind::Cuda), comm::CopyBytesFn()}) {
    SCOPED_TRACE(copy ? "device to device" : "through the host");
    std::vector<std::vector<HostStep>> hostSteps(3);
    StatusOr<std::vector<std::vector<Floats>>> got =
        runLocalWorld(artifact, 3, cudaOptions(), copy, &hostSteps, 2);
    ASSERT_TRUE(got.ok()) << got.status().toString();
    for (const std::vector<Floats> &rank : *got)
      EXPECT_EQ(rank, (std::vector<Floats>{byRows, byBatch}));
    // Copy and Permute are native; the gathers wait for the communicator
    // (device to device) or are staged (host-only messages).
    for (const std::vector<HostStep> &steps : hostSteps) {
      ASSERT_EQ(steps.size(), 2u);
      for (size_t k = 0; k < 2; ++k) {
        EXPECT_EQ(steps[k].instruction, 2 + k);
        EXPECT_EQ(steps[k].opcode, "AllGather");
        EXPECT_EQ(steps[k].staged, copy == nullptr);
      }
    }
  }
}

/// A 2x2 mesh; rank r = 2a + b holds a (4, 6) block of x. It copies the
/// block to t (a native step the collectives must wait for), then:
///  1. all-reduces t (sum) over axis 1, the ranks of its row;
///  2. all-reduces t (sum) over the whole mesh: four members, so the order
///     of the sum shows in the rounding;
///  3. all-reduces t (max) over the whole mesh;
///  4. reduce-scatters t (sum) over axis 0 along dim 1, uneven {2, 4} (the
///     blocks interleave: packed on the device, then sent);
///  5. all-to-alls t over the whole mesh, splitting dim 0 {2, 1, 0, 1}
///     (sent straight from the slot) and concatenating dim 1;
///  6. all-to-alls t over axis 1, splitting dim 1 {2, 4} and concatenating
///     dim 0 (received straight into the output);
///  7. broadcasts rank 2's t;
///  8. copies t and all-reduces the copy (sum) over axis 0 in place;
///  9. reduce-scatters t (sum) over axis 1 along dim 0, {1, 3} (sent
///     straight from the slot);
/// 10. all-to-alls t as in 5 into a slot at t's own offset (what is sent
///     overlaps what is received).
std::vector<uint8_t> collectivesArtifact() {
  const std::vector<int64_t> rsCols = {2, 4}, a2aRows = {2, 1, 0, 1},
                             rowCols = {2, 4}, rsRows = {1, 3};
  ArtifactWriter w({"a", "b"}, {2, 2});
  for (int r = 0; r < 4; ++r) {
    int a = r / 2, b = r % 2;
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    uint64_t at = 0;
    for (Shape shape :
         {Shape{4, 6}, Shape{4, 6}, Shape{4, 6}, Shape{4, 6}, Shape{4, 6},
          Shape{4, rsCols[size_t(a)]}, Shape{a2aRows[size_t(r)], 24},
          Shape{8, rowCols[size_t(b)]}, Shape{4, 6}, Shape{4, 6},
          Shape{rsRows[size_t(b)], 6}, Shape{a2aRows[size_t(r)], 24}}) {
      BufferSlotSpec slot;
      slot.offset = at;
      slot.bytes = artifact::tensorBytes(fb::DType::F32, shape);
      slot.shape = shape;
      rc.buffers.push_back(slot);
      at += (slot.bytes + 255) / 256 * 256;
    }
    rc.buffers[11].offset = rc.buffers[1].offset; // at most 192 of 256 bytes
    rc.arenaBytes = at;
    const fb::ReduceKind sum = fb::ReduceKind::Sum;
    const std::vector<int64_t> byRows = {0, 2, 1, 0, 1, 1, 6, 6, 6, 6};
    rc.program = {
        meshStep(Opcode::Copy, 0, 1, {}, {}),
        meshStep(Opcode::AllReduce, 1, 2, {1}, {}, sum),
        meshStep(Opcode::AllReduce, 1, 3, {0, 1}, {}, sum),
        meshStep(Opcode::AllReduce, 1, 4, {0, 1}, {}, fb::ReduceKind::Max),
        meshStep(Opcode::ReduceScatter, 1, 5, {0}, {1, 2, 4}, sum),
        meshStep(Opcode::AllToAll, 1, 6, {0, 1}, byRows),
        meshStep(Opcode::AllToAll, 1, 7, {1}, {1, 2, 4, 0, 4, 4}),
        meshStep(Opcode::Broadcast, 1, 8, {0, 1}, {2}),
        meshStep(Opcode::Copy, 1, 9, {}, {}),
        meshStep(Opcode::AllReduce, 9, 9, {0}, {}, sum),
        meshStep(Opcode::ReduceScatter, 1, 10, {1}, {0, 1, 3}, sum),
        meshStep(Opcode::AllToAll, 1, 11, {0, 1}, byRows)};
    rc.inputSlots = {0};
    rc.outputSlots = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    w.addRankClass(std::move(rc));
  }
  auto desc = [](const char *name, Shape shape,
                 std::vector<artifact::DimShardingSpec> dims) {
    TensorDescSpec t;
    t.name = name;
    t.shape = std::move(shape);
    t.dims = std::move(dims);
    return t;
  };
  const artifact::DimShardingSpec four = {{}, {4}}, six = {{}, {6}};
  w.addInput(desc("x", {8, 12}, {{{0}, {4, 4}}, {{1}, {6, 6}}}));
  w.addOutput(desc("row_sum", {8, 6}, {{{0}, {4, 4}}, six}));
  w.addOutput(desc("total", {4, 6}, {four, six}));
  w.addOutput(desc("max", {4, 6}, {four, six}));
  w.addOutput(desc("scattered", {4, 6}, {four, {{0}, rsCols}}));
  w.addOutput(desc("by_rows", {4, 24}, {{{0, 1}, a2aRows}, {{}, {24}}}));
  w.addOutput(desc("by_cols", {8, 6}, {{{}, {8}}, {{1}, rowCols}}));
  w.addOutput(desc("broadcast", {4, 6}, {four, six}));
  w.addOutput(desc("col_sum", {4, 12}, {four, {{1}, {6, 6}}}));
  w.addOutput(desc("rows_scattered", {4, 6}, {{{1}, rsRows}, six}));
  w.addOutput(desc("by_rows_again", {4, 24}, {{{0, 1}, a2aRows}, {{}, {24}}}));
  StatusOr<Bytes> bytes = w.serialize();
  EXPECT_TRUE(bytes.ok()) << bytes.status().toString();
  return bytes.ok() ? *bytes : Bytes{};
}

/// Rank q's input in run `run`: fractions whose sums round, and a NaN at
/// element 5 of rank 0 (member 0 of every group it is in).
float collectiveInput(int run, int q, int64_t i) {
  if (q == 0 && i == 5)
    return NAN;
  return float(100000 * run + 1000 * q + i) / 7.0f;
}

/// The members' values combined in member order: sums left to right, max
/// taking the next value when it is larger or NaN (a NaN wins wherever it
/// sits), as the CPU backend's group reductions and the local communicator
/// do.
float inOrder(const std::vector<float> &values, bool max) {
  float acc = values[0];
  for (size_t q = 1; q < values.size(); ++q) {
    float v = values[q];
    acc = max ? (acc < v || v != v ? v : acc) : acc + v;
  }
  return acc;
}

/// What collectivesArtifact's ranks get in run `run`, element by element.
std::vector<std::vector<Floats>> expectedCollectives(int run) {
  auto x = [&](int q, int64_t i, int64_t j) {
    return collectiveInput(run, q, 6 * i + j);
  };
  const std::vector<int64_t> rsCols = {2, 4}, rsAt = {0, 2},
                             a2aRows = {2, 1, 0, 1}, a2aAt = {0, 2, 3, 3},
                             rowCols = {2, 4}, rowAt = {0, 2}, rsRows = {1, 3},
                             rsRowAt = {0, 1};
  std::vector<std::vector<Floats>> want(4);
  for (int r = 0; r < 4; ++r) {
    int a = r / 2, b = r % 2;
    Floats rowSum, total, max, scattered, byRows, byCols, broadcast, colSum,
        rowsScattered;
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 6; ++j) {
        std::vector<float> all = {x(0, i, j), x(1, i, j), x(2, i, j),
                                  x(3, i, j)};
        rowSum.push_back(inOrder({x(2 * a, i, j), x(2 * a + 1, i, j)}, false));
        total.push_back(inOrder(all, false));
        max.push_back(inOrder(all, true));
        broadcast.push_back(x(2, i, j));
        colSum.push_back(inOrder({x(b, i, j), x(2 + b, i, j)}, false));
      }
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = rsAt[size_t(a)]; j < rsAt[size_t(a)] + rsCols[size_t(a)];
           ++j)
        scattered.push_back(inOrder({x(b, i, j), x(2 + b, i, j)}, false));
    for (int64_t i = 0; i < a2aRows[size_t(r)]; ++i)
      for (int q = 0; q < 4; ++q)
        for (int64_t j = 0; j < 6; ++j)
          byRows.push_back(x(q, a2aAt[size_t(r)] + i, j));
    for (int q = 0; q < 2; ++q)
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < rowCols[size_t(b)]; ++j)
          byCols.push_back(x(2 * a + q, i, rowAt[size_t(b)] + j));
    for (int64_t i = rsRowAt[size_t(b)];
         i < rsRowAt[size_t(b)] + rsRows[size_t(b)]; ++i)
      for (int64_t j = 0; j < 6; ++j)
        rowsScattered.push_back(
            inOrder({x(2 * a, i, j), x(2 * a + 1, i, j)}, false));
    want[size_t(r)] = {rowSum, total,     max,    scattered,     byRows,
                       byCols, broadcast, colSum, rowsScattered, byRows};
  }
  return want;
}

/// Every output of every rank equal to `want`'s (NaN where it has NaN).
void expectSameOutputs(const std::vector<std::vector<Floats>> &got,
                       const std::vector<std::vector<Floats>> &want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t r = 0; r < want.size(); ++r) {
    ASSERT_EQ(got[r].size(), want[r].size()) << "rank " << r;
    for (size_t o = 0; o < want[r].size(); ++o) {
      ASSERT_EQ(got[r][o].size(), want[r][o].size())
          << "rank " << r << " output " << o;
      for (size_t i = 0; i < want[r][o].size(); ++i) {
        float g = got[r][o][i], e = want[r][o][i];
        EXPECT_TRUE(std::isnan(e) ? std::isnan(g) : g == e)
            << "rank " << r << " output " << o << " element " << i << ": " << g
            << " != " << e;
      }
    }
  }
}

TEST(CudaBackend, CollectivesMoveDeviceBlocks) {
  // Two runs, so that staging reused with stale blocks shows.
  std::vector<uint8_t> artifact = collectivesArtifact();
  std::vector<std::vector<Floats>> want = expectedCollectives(1);
  // Summed in another order, some totals round differently (so the checks
  // below would tell), and the NaN reaches the outputs.
  int reordered = 0;
  for (int64_t i = 0; i < 24; ++i)
    reordered += want[0][1][size_t(i)] !=
                 inOrder({collectiveInput(1, 3, i), collectiveInput(1, 2, i),
                          collectiveInput(1, 1, i), collectiveInput(1, 0, i)},
                         false);
  EXPECT_GT(reordered, 1); // the NaN, and at least one rounding
  EXPECT_TRUE(std::isnan(want[3][2][5]));
  StatusOr<std::vector<std::vector<Floats>>> cpu = runLocalWorld(
      artifact, 4, SessionOptions(), nullptr, nullptr, 2, collectiveInput);
  ASSERT_TRUE(cpu.ok()) << cpu.status().toString();
  expectSameOutputs(*cpu, want);
  SKIP_WITHOUT_GPU();
  // Device to device (native: the reductions combine in member order as the
  // CPU does, so the same values), and through the host (staged).
  for (comm::CopyBytesFn copy :
       {localMessageCopy(BackendKind::Cuda), comm::CopyBytesFn()}) {
    SCOPED_TRACE(copy ? "device to device" : "through the host");
    std::vector<std::vector<HostStep>> hostSteps(4);
    StatusOr<std::vector<std::vector<Floats>>> got = runLocalWorld(
        artifact, 4, cudaOptions(), copy, &hostSteps, 2, collectiveInput);
    ASSERT_TRUE(got.ok()) << got.status().toString();
    expectSameOutputs(*got, want);
    // Every step but the two copies waits on the host (native) or is
    // staged.
    for (const std::vector<HostStep> &steps : hostSteps) {
      ASSERT_EQ(steps.size(), 10u);
      for (const HostStep &step : steps) {
        EXPECT_NE(step.opcode, "Copy");
        EXPECT_EQ(step.staged, copy == nullptr) << step.opcode;
      }
    }
  }
}

TEST(CudaBackend, RingAttentionRunsOnTheDevice) {
  // Three ranks whose queries, keys and values are each rank's input block
  // (1, rows, 4), the blocks [2, 0, 3] (one empty): every ring step's path,
  // the empty block's skipped send, and a rank that attends to nothing.
  std::vector<uint8_t> artifact = causalRingArtifact({0, 2, 2, 5}, 1);
  InputValueFn value = [](int run, int rank, int64_t i) {
    return std::sin(0.7f * float(i) + float(rank) + 0.3f * float(run));
  };
  StatusOr<std::vector<std::vector<Floats>>> cpu =
      runLocalWorld(artifact, 3, SessionOptions(), nullptr, nullptr, 2, value);
  ASSERT_TRUE(cpu.ok()) << cpu.status().toString();
  SKIP_WITHOUT_GPU();
  // Device to device (native: cuBLAS and the ring row kernel, blocks
  // between device buffers), and through the host (staged). Two runs, so
  // that state left from the first would show.
  for (comm::CopyBytesFn copy :
       {localMessageCopy(BackendKind::Cuda), comm::CopyBytesFn()}) {
    SCOPED_TRACE(copy ? "device to device" : "through the host");
    std::vector<std::vector<HostStep>> hostSteps(3);
    StatusOr<std::vector<std::vector<Floats>>> got =
        runLocalWorld(artifact, 3, cudaOptions(), copy, &hostSteps, 2, value);
    ASSERT_TRUE(got.ok()) << got.status().toString();
    for (size_t r = 0; r < 3; ++r) {
      const Floats &want = (*cpu)[r].at(0), &have = (*got)[r].at(0);
      ASSERT_EQ(have.size(), want.size()) << "rank " << r;
      for (size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(have[i], want[i], 1e-5) << "rank " << r << " " << i;
      ASSERT_EQ(hostSteps[r].size(), 1u);
      EXPECT_EQ(hostSteps[r][0].staged, copy == nullptr);
    }
  }
}

TEST(CudaBackend, ReadOnlyOutputIntoTheCallersBuffer) {
  // An output that is the model's input is copied into the caller's output
  // buffer after the run; a buffer overlapping the input is refused before
  // the run (Session::run), so the device copy never overlaps.
  Model m;
  uint32_t x = m.input("x", {4});
  m.markOutput("x.again", x);
  std::shared_ptr<const Engine> e = load(m.bytes());
  ASSERT_TRUE(e);
  SKIP_WITHOUT_GPU();
  StatusOr<std::unique_ptr<Session>> s = Session::create(e, cudaOptions());
  ASSERT_TRUE(s.ok()) << s.status().toString();
  const Floats host = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  float *buf = nullptr;
  ASSERT_EQ(cudaMalloc(&buf, host.size() * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(buf, host.data(), host.size() * sizeof(float),
                       cudaMemcpyHostToDevice),
            cudaSuccess);
  // From pageable memory cudaMemcpy may return before the DMA lands, and
  // the session's non-blocking stream does not wait for the legacy stream.
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_TRUE((*s)->bindInput(0, buf, DType::F32, {4}).ok());
  ASSERT_TRUE((*s)->bindOutput(0, buf + 1, DType::F32, {4}).ok());
  EXPECT_EQ((*s)->run().code(), StatusCode::InvalidArgument);
  ASSERT_TRUE((*s)->bindOutput(0, buf + 4, DType::F32, {4}).ok());
  Status r = (*s)->run();
  ASSERT_TRUE(r.ok()) << r.toString();
  Floats got(4);
  ASSERT_EQ(cudaMemcpy(got.data(), buf + 4, 4 * sizeof(float),
                       cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(got, Floats(host.begin(), host.begin() + 4));
  cudaFree(buf);
}

TEST(CudaBackend, GraphReplayAndCallerStream) {
  Model m;
  uint32_t x = m.input("in0", {3, 32, 32});
  uint32_t y = m.input("in1", {3, 32, 20});
  uint32_t z = m.output("out0", {3, 32, 20});
  m.op(Opcode::Matmul, {x, y}, {z});
  std::vector<std::vector<Floats>> inputs;
  for (unsigned seed : {9u, 11u, 13u})
    inputs.push_back(
        {randomFloats(3 * 1024, seed), randomFloats(3 * 640, seed + 1)});
  std::shared_ptr<const Engine> engine = load(m.bytes());
  ASSERT_TRUE(engine);
  StatusOr<std::vector<std::vector<Floats>>> want =
      runEach(engine, inputs, SessionOptions());
  ASSERT_TRUE(want.ok()) << want.status().toString();
  SKIP_WITHOUT_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  SessionOptions graph = cudaOptions(), caller = cudaOptions(),
                 both = cudaOptions();
  graph.cudaGraph = both.cudaGraph = true;
  caller.cudaStream = both.cudaStream = stream;
  for (const SessionOptions &options : {graph, caller, both}) {
    SCOPED_TRACE(std::string(options.cudaGraph ? "graph " : "") +
                 (options.cudaStream ? "caller's stream" : ""));
    StatusOr<std::vector<std::vector<Floats>>> got =
        runEach(engine, inputs, options);
    ASSERT_TRUE(got.ok()) << got.status().toString();
    for (size_t r = 0; r < inputs.size(); ++r)
      for (size_t i = 0; i < (*want)[r][0].size(); ++i)
        ASSERT_NEAR((*got)[r][0][i], (*want)[r][0][i],
                    1e-4f * (1.0f + std::fabs((*want)[r][0][i])))
            << "run " << r << " element " << i;
  }
  cudaStreamDestroy(stream);
}

TEST(CudaBackend, GraphRecapturesForNewBindings) {
  // The first run is plain, the second captures, the third replays; each
  // new output binding (B, then A again) captures again. Every run gets new
  // inputs, so a run that replayed a stale graph or wrote the other buffer
  // shows.
  Model m;
  uint32_t x = m.input("in0", {2, 16, 8});
  uint32_t y = m.input("in1", {2, 8, 12});
  uint32_t z = m.output("out0", {2, 16, 12});
  m.op(Opcode::Matmul, {x, y}, {z});
  std::shared_ptr<const Engine> engine = load(m.bytes());
  ASSERT_TRUE(engine);
  SKIP_WITHOUT_GPU();
  SessionOptions graph = cudaOptions();
  graph.cudaGraph = true;
  StatusOr<std::unique_ptr<Session>> s = Session::create(engine, graph);
  ASSERT_TRUE(s.ok()) << s.status().toString();
  StatusOr<std::unique_ptr<Session>> cpu = Session::create(engine);
  ASSERT_TRUE(cpu.ok()) << cpu.status().toString();
  const size_t n = 2 * 16 * 12;
  float *buffers[2] = {nullptr, nullptr};
  for (float *&b : buffers)
    ASSERT_EQ(cudaMalloc(&b, n * sizeof(float)), cudaSuccess);
  unsigned seed = 70;
  for (int out : {0, 1, 0}) {
    ASSERT_TRUE(
        (*s)->bindOutput(0, buffers[out], DType::F32, {2, 16, 12}).ok());
    for (int r = 0; r < 3; ++r, seed += 2) {
      SCOPED_TRACE("buffer " + std::to_string(out) + " run " +
                   std::to_string(r));
      Floats a = randomFloats(2 * 16 * 8, seed),
             b = randomFloats(2 * 8 * 12, seed + 1);
      for (Session *session : {s->get(), cpu->get()}) {
        ASSERT_TRUE(
            session->copyInput(0, a.data(), DType::F32, {2, 16, 8}).ok());
        ASSERT_TRUE(
            session->copyInput(1, b.data(), DType::F32, {2, 8, 12}).ok());
        Status run = session->run();
        ASSERT_TRUE(run.ok()) << run.toString();
      }
      Floats got(n);
      ASSERT_EQ(cudaMemcpy(got.data(), buffers[out], n * sizeof(float),
                           cudaMemcpyDeviceToHost),
                cudaSuccess);
      Floats want = decode((*cpu)->outputData(0), int64_t(n), DType::F32);
      expectOutputsClose({got}, {want}, 1e-4f);
    }
  }
  for (float *b : buffers)
    cudaFree(b);
}

TEST(CudaBackend, ProfileTimesStepsOnTheStream) {
  // Each step is bracketed by events on the session's stream (its own or
  // the caller's): a profiled run gives the CPU's results, counts its runs,
  // and its step times fit inside the wall-clock time of the runs.
  Model m;
  uint32_t x = m.input("in0", {2, 8, 64, 64});
  uint32_t w = m.constant("c0", {16, 8, 3, 3}, randomFloats(16 * 72, 31));
  uint32_t c = m.slot({2, 16, 64, 64});
  m.op(Opcode::Conv, {x, w}, {c}, {2, 1, 1, 1, 1, 1, 1, 1});
  uint32_t y = m.output("out0", {2, 16, 64, 64});
  m.op(Opcode::Unary, {c}, {y}, {}, {}, "relu");
  uint32_t f = m.output("out1", {33});
  m.op(Opcode::Fill, {}, {f}, {}, {2.5});
  std::shared_ptr<const Engine> engine = load(m.bytes());
  ASSERT_TRUE(engine);
  std::vector<Floats> inputs = {randomFloats(2 * 8 * 64 * 64, 32)};
  StatusOr<std::vector<Floats>> want = run(engine, inputs, SessionOptions());
  ASSERT_TRUE(want.ok()) << want.status().toString();
  SKIP_WITHOUT_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  for (void *callerStream :
       {static_cast<void *>(nullptr), static_cast<void *>(stream)}) {
    SCOPED_TRACE(callerStream ? "caller's stream" : "own stream");
    SessionOptions options = cudaOptions();
    options.profile = true;
    options.cudaStream = callerStream;
    StatusOr<std::unique_ptr<Session>> s = Session::create(engine, options);
    ASSERT_TRUE(s.ok()) << s.status().toString();
    Session &session = **s;
    ASSERT_TRUE(
        session.copyInput(0, inputs[0].data(), DType::F32, {2, 8, 64, 64})
            .ok());
    auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < 2; ++r)
      ASSERT_TRUE(session.run().ok());
    cudaStreamSynchronize(stream);
    double wallMs = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    ASSERT_EQ(session.profile().size(), 3u);
    double sum = 0;
    for (const StepProfile &p : session.profile()) {
      EXPECT_EQ(p.runs, 2u) << p.opcode;
      EXPECT_LE(p.minMs * 2, p.totalMs * (1 + 1e-9)) << p.opcode;
      sum += p.totalMs;
    }
    EXPECT_GT(session.profile()[0].totalMs, 0.0); // the conv
    EXPECT_LE(sum, wallMs);
    Floats got(size_t(2 * 16 * 64 * 64));
    ASSERT_TRUE(
        session.copyOutput(0, got.data(), DType::F32, {2, 16, 64, 64}).ok());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], (*want)[0][i], 1e-4f * (1 + std::fabs((*want)[0][i])))
          << i;
  }
  cudaStreamDestroy(stream);
}

#ifdef SHARDRT_TEST_NCCL
TEST(CudaBackend, AllReduceOverNcclTakesTheDeviceSlots) {
  // A whole-world all-reduce over nccl is handed the device slots (no host
  // staging). A kernel writes its input just before it on the session's
  // stream, so a missing synchronisation would reduce stale data; new
  // inputs before the second run catch a step that reuses the first.
  Model m;
  uint32_t x = m.input("in0", {4099});
  uint32_t t = m.slot({4099});
  m.op(Opcode::Unary, {x}, {t}, {}, {}, "neg");
  uint32_t y = m.output("out0", {4099});
  m.op(Opcode::AllReduce, {t}, {y}).reduce = fb::ReduceKind::Sum;
  std::shared_ptr<const Engine> engine = load(m.bytes());
  ASSERT_TRUE(engine);
  // The program is valid: the CPU runs it in a world of one.
  Status cpu = comm::LocalWorld::run(1, [&](comm::Communicator &c) -> Status {
    StatusOr<std::unique_ptr<Session>> s =
        Session::create(engine, &c, SessionOptions());
    if (!s.ok())
      return s.status();
    Floats in = randomFloats(4099, 20), out(in.size());
    SHARDRT_RETURN_IF_ERROR((*s)->copyInput(0, in.data(), DType::F32, {4099}));
    SHARDRT_RETURN_IF_ERROR((*s)->run());
    SHARDRT_RETURN_IF_ERROR(
        (*s)->copyOutput(0, out.data(), DType::F32, {4099}));
    EXPECT_EQ(out[7], -in[7]);
    return Status();
  });
  ASSERT_TRUE(cpu.ok()) << cpu.toString();
  SKIP_WITHOUT_GPU();
  StatusOr<comm::NcclId> id = comm::createNcclId();
  ASSERT_TRUE(id.ok()) << id.status().toString();
  StatusOr<std::unique_ptr<comm::Communicator>> nccl =
      comm::createNcclCommunicator(*id, 0, 1);
  ASSERT_TRUE(nccl.ok()) << nccl.status().toString();
  ASSERT_TRUE((*nccl)->collectivesTakeDeviceBuffers());
  StatusOr<std::unique_ptr<Session>> session =
      Session::create(engine, nccl->get(), cudaOptions());
  ASSERT_TRUE(session.ok()) << session.status().toString();
  // The Unary is staged; the all-reduce runs on the device slots.
  const std::vector<HostStep> &steps = (*session)->hostSteps();
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_TRUE(steps[0].staged);
  EXPECT_EQ(steps[1].instruction, 1u);
  EXPECT_EQ(steps[1].opcode, "AllReduce");
  EXPECT_FALSE(steps[1].staged);
  for (unsigned seed : {21u, 22u}) {
    Floats in = randomFloats(4099, seed), out(in.size());
    ASSERT_TRUE((*session)->copyInput(0, in.data(), DType::F32, {4099}).ok());
    Status s = (*session)->run();
    ASSERT_TRUE(s.ok()) << s.toString();
    ASSERT_TRUE((*session)->copyOutput(0, out.data(), DType::F32, {4099}).ok());
    for (size_t i = 0; i < in.size(); ++i)
      ASSERT_EQ(out[i], -in[i]) << "seed " << seed << " element " << i;
  }
}
#endif

TEST(CudaBackend, GraphsRefuseHostStagedSteps) {
  Model m;
  uint32_t x = m.input("in0", {4, 4});
  uint32_t t = m.slot({4, 4});
  uint32_t y = m.output("out0", {4, 4});
  m.op(Opcode::Permute, {x}, {t}, {1, 0});      // native
  m.op(Opcode::Unary, {t}, {y}, {}, {}, "neg"); // a plain Unary is staged
  // The staged step computes what the CPU does.
  expectBackendsAgree(m, {randomFloats(16, 51)});
  SKIP_WITHOUT_GPU();
  StatusOr<std::unique_ptr<Session>> plain =
      Session::create(load(m.bytes()), cudaOptions());
  ASSERT_TRUE(plain.ok()) << plain.status().toString();
  ASSERT_EQ((*plain)->hostSteps().size(), 1u);
  EXPECT_EQ((*plain)->hostSteps()[0].instruction, 1u);
  EXPECT_EQ((*plain)->hostSteps()[0].opcode, "Unary");
  EXPECT_TRUE((*plain)->hostSteps()[0].staged);
  SessionOptions graph = cudaOptions();
  graph.cudaGraph = true;
  StatusOr<std::unique_ptr<Session>> s =
      Session::create(load(m.bytes()), graph);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::FailedPrecondition);
  EXPECT_NE(s.status().message().find("instruction 1 (Unary) runs staged"),
            std::string::npos)
      << s.status().message();
}

} // namespace
} // namespace shardrt
