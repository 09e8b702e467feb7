//===- EngineArtifactTest.cpp - Embedded references and fuzzed artifacts --===//
//
// The reference model an artifact may embed, and the references that fail
// the load; byte- and spec-level fuzzing of artifacts (nothing a corrupted
// artifact holds may crash the runtime).
//
//===----------------------------------------------------------------------===//

#include "EngineTestSupport.h"

#include "shardrt/Engine.h"
#include "shardrt/artifact/ArtifactWriter.h"
#include "shardrt/artifact/Format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace shardrt {
namespace {

using namespace enginetest;

//===----------------------------------------------------------------------===//
// The embedded reference model
//===----------------------------------------------------------------------===//

TEST(EngineReference, EmbeddedModelLoadsAndRuns) {
  Bytes inner = affineModel().bytes();
  Model outer;
  uint32_t x = outer.input("x", {2, 3});
  uint32_t y = outer.output("y", {2, 3});
  outer.op(Opcode::Unary, {x}, {y}, {}, {}, "neg");
  outer.reference = inner;
  std::shared_ptr<const Engine> e = load(outer.bytes());
  ASSERT_TRUE(e);
  std::shared_ptr<const Engine> ref = e->reference();
  ASSERT_TRUE(ref);
  EXPECT_EQ(ref->reference(), nullptr);
  EXPECT_EQ(ref->worldSize(), 1);
  EXPECT_EQ(ref->input(0).name, "x");
  Floats v = {1, 2, 3, 4, 5, 6};
  StatusOr<std::vector<Floats>> r = runEngine(ref, {v});
  ASSERT_TRUE(r.ok()) << r.status().toString();
  EXPECT_EQ((*r)[0], affine(v));
  StatusOr<std::vector<Floats>> o = runEngine(e, {v});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ((*o)[0], (Floats{-1, -2, -3, -4, -5, -6}));

  // No reference: null.
  EXPECT_EQ(load(inner)->reference(), nullptr);
}

TEST(EngineReference, BadReferencesFailTheLoad) {
  Bytes inner = affineModel().bytes();
  auto outerWith = [](Bytes reference) {
    Model outer;
    uint32_t y = outer.output("y", {1});
    outer.op(Opcode::Fill, {}, {y}, {}, {0.0});
    outer.reference = std::move(reference);
    return outer.bytes();
  };
  {
    Bytes corrupt = inner;
    corrupt[corrupt.size() / 2] ^= 0x40; // checksum mismatch
    Bytes bytes = outerWith(corrupt);
    StatusOr<std::shared_ptr<const Engine>> e =
        Engine::loadFromMemory(bytes.data(), bytes.size());
    EXPECT_FALSE(e.ok());
    EXPECT_TRUE(contains(e.status().message(), "reference"))
        << e.status().toString();
  }
  {
    Bytes truncated(inner.begin(), inner.begin() + inner.size() / 2);
    Bytes bytes = outerWith(truncated);
    EXPECT_FALSE(Engine::loadFromMemory(bytes.data(), bytes.size()).ok());
  }
  {
    // A reference must be a world of one without a reference of its own.
    Bytes two = twoRankArtifact();
    Bytes bytes = outerWith(two);
    StatusOr<std::shared_ptr<const Engine>> e =
        Engine::loadFromMemory(bytes.data(), bytes.size());
    EXPECT_EQ(e.status().code(), kInvalid) << e.status().toString();
    Bytes nested = outerWith(outerWith(inner));
    EXPECT_EQ(
        Engine::loadFromMemory(nested.data(), nested.size()).status().code(),
        kInvalid);
  }
}

//===----------------------------------------------------------------------===//
// Fuzzing: no artifact crashes the runtime
//===----------------------------------------------------------------------===//

/// A model using most opcodes, for the fuzzers to break.
Model zooModel() {
  std::mt19937 rng(99);
  Model m;
  Shape xs = {1, 2, 5, 4};
  uint32_t x = m.input("x", xs);
  uint32_t q = m.input("q", {3, 2, 4});
  uint32_t mask = m.input("mask", {2, 4}, I1);
  uint32_t w = m.constant("w", {3, 2, 3, 3}, randomFloats(54, rng));
  uint32_t b = m.constant("b", {3}, randomFloats(3, rng));
  uint32_t thr = m.constant("thr", {4}, randomFloats(4, rng));
  uint32_t conv = m.slot({1, 3, 5, 4});
  m.op(Opcode::Conv, {x, w, b}, {conv}, {2, 1, 1, 1, 1, 1, 1, 1});
  uint32_t act = m.slot({1, 3, 5, 4});
  m.op(Opcode::Unary, {conv}, {act}, {}, {}, "gelu");
  uint32_t norm = m.slot({1, 3, 5, 4});
  m.op(Opcode::Norm, {act, b, b}, {norm}, {1, 1, 3}, {1e-5}, "group");
  uint32_t pool = m.slot({1, 3, 3, 2});
  m.op(Opcode::Pool, {norm}, {pool}, {2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0},
       {}, "avg");
  uint32_t up = m.slot({1, 3, 6, 4});
  m.op(Opcode::Interpolate, {pool}, {up}, {2, 0, 0, 0, 0, 0, 3, 2}, {0.5, 0.5},
       "linear");
  uint32_t padded = m.slot({1, 3, 8, 6});
  m.op(Opcode::Pad, {up}, {padded}, {0, 0, 1, 1, 0, 0, 1, 1}, {0.0}, "reflect");
  uint32_t perm = m.slot({1, 8, 6, 3});
  m.op(Opcode::Permute, {padded}, {perm}, {0, 2, 3, 1});
  uint32_t sliced = m.slot({1, 4, 3, 3});
  m.op(Opcode::Slice, {perm}, {sliced}, {0, 0, 0, 0, 1, 2, 2, 1});
  uint32_t flat = m.slot({3, 4, 3});
  m.op(Opcode::Copy, {sliced}, {flat});
  uint32_t lin = m.slot({3, 4, 4});
  uint32_t lw = m.constant("lw", {4, 3}, randomFloats(12, rng));
  m.op(Opcode::Linear, {flat, lw}, {lin});
  uint32_t att = m.slot({3, 2, 4});
  m.op(Opcode::Attention, {q, lin, lin, mask}, {att}, {0, 1}, {0.5});
  uint32_t mm = m.slot({3, 2, 4});
  m.op(Opcode::Matmul, {att, lin}, {mm}, {});
  uint32_t sm = m.slot({3, 2, 4});
  m.op(Opcode::Softmax, {mm}, {sm}, {2, 1});
  uint32_t cat = m.slot({6, 2, 4});
  m.op(Opcode::Concat, {sm, sm}, {cat}, {0});
  uint32_t cmp = m.slot({6, 2, 4}, I1);
  m.op(Opcode::Compare, {cat, thr}, {cmp}, {}, {}, "gt");
  uint32_t sel = m.slot({6, 2, 4});
  m.op(Opcode::Select, {cmp, cat, thr}, {sel});
  uint32_t na = m.slot({2, 3, 4, 1, 2});
  m.op(Opcode::Copy, {sel}, {na});
  uint32_t nao = m.slot({2, 3, 4, 1, 2});
  m.op(Opcode::NeighborhoodAttention, {na, na, na}, {nao},
       {2, 3, 3, 1, 1, 0, 0, 0, 0, 3, 4}, {0.7});
  uint32_t out = m.output("out", {2});
  m.op(Opcode::Reduce, {nao}, {out}, {1, 2, 3, 4}, {}, "mean");
  uint32_t filled = m.output("filled", {3});
  m.op(Opcode::Fill, {}, {filled}, {}, {2.0});
  uint32_t bt = m.slot({2, 3});
  m.op(Opcode::BroadcastTo, {filled}, {bt});
  uint32_t cast = m.output("cast", {2, 3}, I1);
  m.op(Opcode::Cast, {bt}, {cast});
  return m;
}

/// Loads, prepares and runs whatever `bytes` hold; only a crash (or a
/// sanitizer report) fails. Returns how far it got: 0 load failed, 1 session
/// failed, 2 ran.
int exercise(const uint8_t *data, size_t size) {
  StatusOr<std::shared_ptr<const Engine>> e =
      Engine::loadFromMemory(data, size);
  if (!e.ok()) {
    EXPECT_FALSE(e.status().message().empty());
    return 0;
  }
  const Engine &engine = **e;
  for (size_t i = 0; i < engine.numInputs(); ++i)
    (void)engine.localInput(i, 0);
  for (size_t i = 0; i < engine.numOutputs(); ++i)
    (void)engine.localOutput(i, 0);
  int reached = 1;
  for (std::shared_ptr<const Engine> target : {*e, engine.reference()}) {
    if (!target)
      continue;
    // An artifact may ask for any arena; a huge one is not a crash to hunt.
    StatusOr<uint64_t> arena = target->arenaBytes(0);
    if (!arena.ok() || *arena > (uint64_t(1) << 20))
      continue;
    StatusOr<std::unique_ptr<Session>> s = Session::create(target);
    if (!s.ok()) {
      EXPECT_FALSE(s.status().message().empty());
      continue;
    }
    Session &session = **s;
    for (size_t i = 0; i < target->numInputs(); ++i) {
      DType t = target->input(i).dtype;
      Bytes buf(size_t(count(session.inputShape(i))) * dtypeSize(t), 0x3f);
      if (t == DType::Bool)
        std::fill(buf.begin(), buf.end(), uint8_t(1));
      Status st = session.copyInput(i, buf.data(), t, session.inputShape(i));
      EXPECT_TRUE(st.ok()) << st.toString();
    }
    (void)session.run();
    reached = 2;
  }
  return reached;
}

/// Fuzz iterations and seed; SHARDRT_FUZZ_ITERATIONS / SHARDRT_FUZZ_SEED
/// override them for longer local runs.
int fuzzIterations(int standard) {
  const char *v = std::getenv("SHARDRT_FUZZ_ITERATIONS");
  return v ? std::max(1, std::atoi(v)) : standard;
}
unsigned fuzzSeed(unsigned standard) {
  const char *v = std::getenv("SHARDRT_FUZZ_SEED");
  return v ? unsigned(std::strtoul(v, nullptr, 10)) : standard;
}

TEST(EngineFuzz, ByteFlipsNeverCrash) {
  Model zoo = zooModel();
  // The valid model runs.
  Bytes base = zoo.bytes();
  ASSERT_TRUE(prepare(base).ok()) << prepare(base).toString();
  ASSERT_EQ(exercise(base.data(), base.size()), 2);
  // Embed a reference so that mutations reach its checks too.
  Model withRef = affineModel();
  withRef.reference = base;
  Bytes outer = withRef.bytes();
  ASSERT_EQ(exercise(outer.data(), outer.size()), 2);

  std::mt19937 rng(fuzzSeed(2024));
  int counts[3] = {0, 0, 0};
  for (int iter = 0, n = fuzzIterations(3000); iter < n; ++iter) {
    Bytes bytes = iter % 4 == 3 ? outer : base;
    // Mostly the FlatBuffer (offsets, shapes, attributes), sometimes blobs.
    uint32_t fbSize;
    std::memcpy(&fbSize, bytes.data() + artifact::kHeaderSize, 4);
    size_t lo = artifact::kHeaderSize + 4,
           hi = std::min(bytes.size(), lo + size_t(fbSize));
    if (rng() % 8 == 0)
      hi = bytes.size();
    int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      size_t at = lo + rng() % (hi - lo);
      switch (rng() % 3) {
      case 0:
        bytes[at] ^= uint8_t(1u << (rng() % 8));
        break;
      case 1:
        bytes[at] = uint8_t(rng());
        break;
      default:
        bytes[at] = rng() % 2 ? 0xff : 0x00;
      }
    }
    artifact::resealChecksum(bytes.data(), bytes.size());
    ++counts[exercise(bytes.data(), bytes.size())];
  }
  // Both the checks and the executor were reached.
  std::printf("byte flips: %d rejected at load, %d at prepare, %d ran\n",
              counts[0], counts[1], counts[2]);
  EXPECT_GT(counts[0], 0);
  EXPECT_GT(counts[1], 0);
  EXPECT_GT(counts[2], 0);

  // Truncations and garbage.
  for (size_t n = 0; n < base.size(); n += 1 + n / 4)
    EXPECT_FALSE(Engine::loadFromMemory(base.data(), n).ok());
  Bytes garbage(512);
  for (uint8_t &v : garbage)
    v = uint8_t(rng());
  EXPECT_FALSE(Engine::loadFromMemory(garbage.data(), garbage.size()).ok());
  EXPECT_FALSE(Engine::loadFromMemory(nullptr, 0).ok());
}

/// Attribute values a careless or malicious producer might write.
int64_t nastyInt(std::mt19937 &rng, int64_t old) {
  static const int64_t values[] = {0,
                                   1,
                                   -1,
                                   2,
                                   3,
                                   4,
                                   7,
                                   -2,
                                   int64_t(1) << 30,
                                   (int64_t(1) << 30) + 1,
                                   int64_t(1) << 31,
                                   int64_t(1) << 40,
                                   int64_t(1) << 62,
                                   std::numeric_limits<int64_t>::max(),
                                   std::numeric_limits<int64_t>::min()};
  switch (rng() % 3) {
  case 0:
    return int64_t(uint64_t(old) + rng() % 5 - 2); // wraps, no UB
  default:
    return values[rng() % (sizeof(values) / sizeof(values[0]))];
  }
}

TEST(EngineFuzz, SpecMutationsNeverCrash) {
  // Structured mutations reach the per-opcode checks far more often than
  // byte flips: attributes, shapes, operand lists, strings and floats.
  const Model zoo = zooModel();
  static const char *const strs[] = {
      "",          "relu",     "add",     "gt",     "sum",     "amax",
      "max",       "avg",      "nearest", "linear", "reflect", "circular",
      "replicate", "constant", "group",   "layer",  "batch",   "nearest-exact"};
  static const double floats[] = {0.0,  -1.0, 1e-5,     0.5,       2.0,
                                  1e30, NAN,  INFINITY, -INFINITY, 1e-300};
  std::mt19937 rng(fuzzSeed(77));
  int counts[3] = {0, 0, 0};
  for (int iter = 0, n = fuzzIterations(3000); iter < n; ++iter) {
    Model m = zoo;
    int mutations = 1 + int(rng() % 3);
    for (int k = 0; k < mutations; ++k) {
      InstructionSpec &inst = m.rc.program[rng() % m.rc.program.size()];
      switch (rng() % 10) {
      case 0:
      case 1:
      case 2:
        if (!inst.ints.empty()) {
          size_t i = rng() % inst.ints.size();
          inst.ints.set(i, nastyInt(rng, inst.ints[i]));
        }
        break;
      case 3:
        if (rng() % 2 && !inst.ints.empty())
          inst.ints.pop_back();
        else
          inst.ints.push_back(nastyInt(rng, 1));
        break;
      case 4: {
        // Reshape a slot (its bytes grow to fit when the arena allows).
        BufferSlotSpec &s = m.rc.buffers[rng() % m.rc.buffers.size()];
        if (!s.shape || s.shape->empty())
          break;
        int64_t &d = (*s.shape)[rng() % s.shape->size()];
        static const int64_t dims[] = {0,
                                       1,
                                       2,
                                       3,
                                       5,
                                       8,
                                       int64_t(1) << 20,
                                       int64_t(1) << 40,
                                       int64_t(1) << 62};
        d = rng() % 2 ? d + int64_t(rng() % 3) - 1
                      : dims[rng() % (sizeof(dims) / sizeof(dims[0]))];
        break;
      }
      case 5:
        inst.str = strs[rng() % (sizeof(strs) / sizeof(strs[0]))];
        break;
      case 6:
        if (inst.floats.empty() || rng() % 3 == 0)
          inst.floats.push_back(floats[rng() % 10]);
        else
          inst.floats[rng() % inst.floats.size()] = floats[rng() % 10];
        break;
      case 7: {
        // Rewire an operand to another slot.
        std::vector<uint32_t> &ops = rng() % 2 ? inst.inputs : inst.outputs;
        uint32_t s = uint32_t(rng() % m.rc.buffers.size());
        if (ops.empty() || rng() % 4 == 0)
          ops.push_back(s);
        else
          ops[rng() % ops.size()] = s;
        break;
      }
      case 8: {
        // Another element type for a slot.
        static const fb::DType dtypes[] = {F32, I1, fb::DType::F64,
                                           fb::DType::I32, fb::DType::F16};
        m.rc.buffers[rng() % m.rc.buffers.size()].dtype = dtypes[rng() % 5];
        break;
      }
      default: {
        // Another opcode on the same operands.
        // (Communication ops prepare for a world of one but fail to run
        // without a communicator.)
        static const Opcode opcodes[] = {Opcode::HaloExchange,
                                         Opcode::SendRecv,
                                         Opcode::AllReduce,
                                         Opcode::AllGather,
                                         Opcode::Broadcast,
                                         Opcode::Barrier,
                                         Opcode::Wait,
                                         Opcode::Copy,
                                         Opcode::Fill,
                                         Opcode::Conv,
                                         Opcode::ConvTranspose,
                                         Opcode::Matmul,
                                         Opcode::Pool,
                                         Opcode::Interpolate,
                                         Opcode::Norm,
                                         Opcode::Softmax,
                                         Opcode::Attention,
                                         Opcode::Unary,
                                         Opcode::Binary,
                                         Opcode::Compare,
                                         Opcode::Select,
                                         Opcode::Cast,
                                         Opcode::Reduce,
                                         Opcode::Pad,
                                         Opcode::Permute,
                                         Opcode::Slice,
                                         Opcode::Concat,
                                         Opcode::BroadcastTo,
                                         Opcode::NeighborhoodAttention,
                                         Opcode::Linear,
                                         Opcode::Scan,
                                         Opcode::ScanTotals};
        inst.opcode = opcodes[rng() % (sizeof(opcodes) / sizeof(opcodes[0]))];
      }
      }
    }
    // Keep the slots' bytes consistent with their shapes where that is
    // cheap, so that mutations get past the loader to the prepare step.
    for (BufferSlotSpec &s : m.rc.buffers) {
      if (!s.shape)
        continue;
      uint64_t bytes = 0;
      bool overflow = false;
      uint64_t acc = dtypeSize(static_cast<DType>(s.dtype));
      for (int64_t d : *s.shape)
        overflow |= d < 0 || __builtin_mul_overflow(acc, uint64_t(d), &acc);
      bytes = acc;
      if (!overflow && bytes <= (1u << 16) && bytes > s.bytes) {
        s.offset = m.arena;
        s.bytes = bytes;
        m.arena += (bytes + 63) / 64 * 64;
      }
    }
    // Inputs and outputs follow their slots' shapes.
    for (size_t i = 0; i < m.inputs.size(); ++i) {
      const BufferSlotSpec &slot = m.rc.buffers[m.rc.inputSlots[i]];
      m.inputs[i] = Model::desc(m.inputs[i].name, *slot.shape, slot.dtype);
    }
    for (size_t i = 0; i < m.outputs.size(); ++i) {
      const BufferSlotSpec &slot = m.rc.buffers[m.rc.outputSlots[i]];
      m.outputs[i] = Model::desc(m.outputs[i].name, *slot.shape, slot.dtype);
    }
    Bytes bytes = m.unchecked();
    ++counts[exercise(bytes.data(), bytes.size())];
  }
  std::printf("spec mutations: %d rejected at load, %d at prepare, %d ran\n",
              counts[0], counts[1], counts[2]);
  EXPECT_GT(counts[1], 0);
  EXPECT_GT(counts[2], 0);
}

} // namespace
} // namespace shardrt
