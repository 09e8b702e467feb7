//===- EngineTestSupport.h - Helpers of the engine tests --------*- C++ -*-===//
//
// Running world-size-1 models through a Session and checking statuses and
// results, shared by the Engine*Test.cpp files: OpCase (one instruction
// as a model), index helpers, pooling attributes, and the models several
// files load. Builds on TestModel.h, which the CUDA backend tests share.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_TEST_ENGINETESTSUPPORT_H
#define SHARDRT_ENGINE_TEST_ENGINETESTSUPPORT_H

#include "TestModel.h"

#include "shardrt/Engine.h"
#include "shardrt/artifact/ArtifactWriter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace shardrt::enginetest {

/// Every element within an absolute plus relative tolerance.
inline ::testing::AssertionResult
close(const Floats &actual, const Floats &expected, float tol = 1e-4f) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure()
           << actual.size() << " elements; expected " << expected.size();
  for (size_t i = 0; i < actual.size(); ++i) {
    float a = actual[i], e = expected[i];
    bool ok = (std::isnan(a) && std::isnan(e)) ||
              std::fabs(a - e) <= tol * (1.0f + std::fabs(e));
    if (!ok)
      return ::testing::AssertionFailure()
             << "element " << i << " is " << a << "; expected " << e;
  }
  return ::testing::AssertionSuccess();
}

inline bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// Expects `status` to be `code` with every fragment in its message.
inline ::testing::AssertionResult rejected(const Status &status,
                                           StatusCode code,
                                           std::vector<std::string> fragments) {
  if (status.code() != code)
    return ::testing::AssertionFailure()
           << "got " << status.toString() << "; expected "
           << statusCodeName(code);
  for (const std::string &f : fragments)
    if (!contains(status.message(), f))
      return ::testing::AssertionFailure()
             << "'" << status.message() << "' lacks '" << f << "'";
  return ::testing::AssertionSuccess();
}

inline constexpr StatusCode kInvalid = StatusCode::InvalidArgument;

/// Copies `inputs` in, runs once and returns every output.
inline StatusOr<std::vector<Floats>>
runEngine(std::shared_ptr<const Engine> engine,
          const std::vector<Floats> &inputs) {
  if (!engine)
    return Status::internal("no engine");
  StatusOr<std::unique_ptr<Session>> s = Session::create(engine);
  if (!s.ok())
    return s.status();
  Session &session = **s;
  for (size_t i = 0; i < inputs.size(); ++i) {
    DType t = engine->input(i).dtype;
    Bytes b = encode(inputs[i], t);
    if (Status st = session.copyInput(i, b.data(), t, session.inputShape(i));
        !st.ok())
      return st;
  }
  if (Status st = session.run(); !st.ok())
    return st;
  std::vector<Floats> outs;
  for (size_t i = 0; i < engine->numOutputs(); ++i)
    outs.push_back(decode(session.outputData(i), count(session.outputShape(i)),
                          engine->output(i).dtype));
  return outs;
}

inline StatusOr<std::vector<Floats>>
runModel(const Model &m, const std::vector<Floats> &inputs) {
  return runEngine(load(m.bytes()), inputs);
}

/// Session::create's status for (possibly malformed) artifact bytes.
inline Status prepare(const Bytes &bytes) {
  StatusOr<std::shared_ptr<const Engine>> e =
      Engine::loadFromMemory(bytes.data(), bytes.size());
  if (!e.ok())
    return Status::internal("the artifact does not load: " +
                            e.status().toString());
  StatusOr<std::unique_ptr<Session>> s = Session::create(*e);
  return s.ok() ? Status() : s.status();
}

struct Operand {
  Shape shape;
  fb::DType dtype = F32;
};

/// One instruction whose inputs are the model's inputs and whose output is
/// the model's output.
struct OpCase {
  // A constructor rather than an aggregate: GCC 12 reports a bogus
  // -Wmaybe-uninitialized for aggregates of vectors built in place.
  OpCase(Opcode opcode, std::vector<Operand> ins, Operand out,
         std::vector<int64_t> ints = {}, std::vector<double> floats = {},
         std::string str = "")
      : opcode(opcode), ins(std::move(ins)), out(std::move(out)),
        ints(std::move(ints)), floats(std::move(floats)), str(std::move(str)) {}

  Opcode opcode;
  std::vector<Operand> ins;
  Operand out;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::string str;

  Model model() const {
    Model m;
    std::vector<uint32_t> slots;
    for (size_t i = 0; i < ins.size(); ++i)
      slots.push_back(
          m.input("in" + std::to_string(i), ins[i].shape, ins[i].dtype));
    uint32_t y = m.output("out", out.shape, out.dtype);
    m.op(opcode, slots, {y}, ints, floats, str);
    return m;
  }
  Floats run(const std::vector<Floats> &inputs) const {
    StatusOr<std::vector<Floats>> r = runModel(model(), inputs);
    EXPECT_TRUE(r.ok()) << r.status().toString();
    return r.ok() ? (*r)[0] : Floats();
  }
  Status prepareStatus() const { return prepare(model().unchecked()); }
};

//===----------------------------------------------------------------------===//
// Indexing and attributes
//===----------------------------------------------------------------------===//

/// Multi-index of flat index i.
inline Shape unravel(int64_t i, const Shape &shape) {
  Shape idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? i % shape[d] : 0;
    i = shape[d] ? i / shape[d] : 0;
  }
  return idx;
}

inline int64_t ravel(const Shape &idx, const Shape &shape) {
  int64_t i = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    i = i * shape[d] + idx[d];
  return i;
}

/// Pool attributes, in the order of a Pool instruction's ints.
struct Pool2d {
  bool isMax = true;
  int64_t kernel[2] = {1, 1}, stride[2] = {1, 1}, padLo[2] = {0, 0},
          padHi[2] = {0, 0}, dilation[2] = {1, 1};
  bool countIncludePad = true;
  int64_t divisorOverride = 0;

  std::vector<int64_t> ints() const {
    return {
        2,           kernel[0],       kernel[1],      stride[0], stride[1],
        padLo[0],    padLo[1],        padHi[0],       padHi[1],  dilation[0],
        dilation[1], countIncludePad, divisorOverride};
  }
};

//===----------------------------------------------------------------------===//
// Models that several test files load
//===----------------------------------------------------------------------===//

/// y = 2 * x + 1 on (2, 3) with a (2, 3) intermediate.
inline Model affineModel() {
  Model m;
  uint32_t x = m.input("x", {2, 3});
  uint32_t two = m.constant("two", {1}, {2.0f});
  uint32_t one = m.constant("one", {1}, {1.0f});
  uint32_t t = m.slot({2, 3});
  uint32_t y = m.output("y", {2, 3});
  m.op(Opcode::Binary, {x, two}, {t}, {}, {}, "mul");
  m.op(Opcode::Binary, {t, one}, {y}, {}, {}, "add");
  return m;
}

inline Floats affine(const Floats &x) {
  Floats y(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    y[i] = 2 * x[i] + 1;
  return y;
}

/// Mesh {"x": 2}; each rank fills its half of a (4,) output with r + 1 or,
/// `summed`, all-reduces that fill (sum) into its half first: 3s
/// everywhere, through the communicator.
inline Bytes twoRankArtifact(bool summed = false) {
  ArtifactWriter w({"x"}, {2});
  TensorDescSpec out;
  out.name = "y";
  out.shape = {4};
  out.dims = {{{0}, {2, 2}}};
  w.addOutput(out);
  for (int32_t r = 0; r < 2; ++r) {
    RankClassSpec rc;
    rc.name = "r" + std::to_string(r);
    rc.ranks = {r};
    rc.arenaBytes = summed ? 128 : 64;
    BufferSlotSpec s;
    s.bytes = 8;
    s.shape = Shape{2};
    rc.buffers = {s};
    InstructionSpec fill;
    fill.opcode = Opcode::Fill;
    fill.outputs = {0};
    fill.floats = {double(r + 1)};
    rc.program = {fill};
    rc.outputSlots = {0};
    if (summed) {
      s.offset = 64;
      rc.buffers.push_back(s);
      rc.program.push_back(
          meshStep(Opcode::AllReduce, 0, 1, {0}, {}, fb::ReduceKind::Sum));
      rc.outputSlots = {1};
    }
    w.addRankClass(rc);
  }
  StatusOr<Bytes> b = w.serialize();
  EXPECT_TRUE(b.ok()) << b.status().toString();
  return b.ok() ? *b : Bytes();
}

} // namespace shardrt::enginetest

#endif // SHARDRT_ENGINE_TEST_ENGINETESTSUPPORT_H
