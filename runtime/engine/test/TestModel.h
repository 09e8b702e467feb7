//===- TestModel.h - World-size-1 artifacts for the engine tests -*- C++
//-*-===//
//
// A small builder of one-rank-class artifacts (slots laid out one after
// another, inputs and outputs replicated) shared by the engine tests and the
// CUDA backend tests.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_TEST_TESTMODEL_H
#define SHARDRT_ENGINE_TEST_TESTMODEL_H

#include "shardrt/Engine.h"
#include "shardrt/artifact/ArtifactWriter.h"
#include "shardrt/cpu/HalfFloats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace shardrt::enginetest {

using artifact::ArtifactWriter;
using artifact::BlobBytes;
using artifact::BufferSlotSpec;
using artifact::ConstantSpec;
using artifact::InstructionSpec;
using artifact::RankClassSpec;
using artifact::TensorDescSpec;
using fb::Opcode;
using Shape = std::vector<int64_t>;
using Floats = std::vector<float>;
using Bytes = std::vector<uint8_t>;

/// An f32 slot of `shape` at arena `offset`, for artifacts built by hand.
inline BufferSlotSpec f32Slot(uint64_t offset, Shape shape) {
  BufferSlotSpec s;
  s.offset = offset;
  s.bytes = artifact::tensorBytes(fb::DType::F32, shape);
  s.shape = std::move(shape);
  return s;
}

/// Member r's extent of a split given by its starts (r's block is
/// [starts[r], starts[r + 1])).
inline int64_t piece(const std::vector<int64_t> &starts, int r) {
  return starts[size_t(r) + 1] - starts[size_t(r)];
}

/// A global tensor whose dim `dim` is split over mesh axis 0 as `starts`
/// says (whole when `starts` is empty).
inline TensorDescSpec splitTensor(std::string name, std::vector<int64_t> shape,
                                  size_t dim,
                                  const std::vector<int64_t> &starts) {
  TensorDescSpec t;
  t.name = std::move(name);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d == dim && !starts.empty()) {
      std::vector<int64_t> extents;
      for (size_t i = 0; i + 1 < starts.size(); ++i)
        extents.push_back(starts[i + 1] - starts[i]);
      t.dims.push_back({{0}, extents});
    } else {
      t.dims.push_back({{}, {shape[d]}});
    }
  }
  t.shape = std::move(shape);
  return t;
}

/// Rows [lo, hi) of dim 1 of a (batch, rows, cols) tensor: a rank's block
/// of a sequence split along dim 1.
inline std::vector<float> rowsOf(const std::vector<float> &t, int64_t batch,
                                 int64_t total, int64_t cols, int64_t lo,
                                 int64_t hi) {
  std::vector<float> out;
  for (int64_t b = 0; b < batch; ++b)
    out.insert(out.end(), t.begin() + (b * total + lo) * cols,
               t.begin() + (b * total + hi) * cols);
  return out;
}

constexpr fb::DType F32 = fb::DType::F32;
constexpr fb::DType I1 = fb::DType::I1;

inline int64_t count(const Shape &shape) {
  // Zero first: a zero-sized shape may have huge other dims.
  if (std::find(shape.begin(), shape.end(), 0) != shape.end())
    return 0;
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// One step from slot `in` to slot `out` over the mesh axes `axes` (a
/// collective's group; none for a local step).
inline InstructionSpec meshStep(Opcode opcode, uint32_t in, uint32_t out,
                                std::vector<uint32_t> axes,
                                std::vector<int64_t> ints,
                                fb::ReduceKind reduce = fb::ReduceKind::None) {
  InstructionSpec step;
  step.opcode = opcode;
  step.inputs = {in};
  step.outputs = {out};
  step.meshAxes = std::move(axes);
  step.ints = std::move(ints);
  step.reduce = reduce;
  return step;
}

inline Floats randomFloats(size_t n, std::mt19937 &rng, float lo = -1.0f,
                           float hi = 1.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  Floats v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// Uniform integers in [lo, hi] from a seeded generator: the random cases
/// of the plan tests.
class RandomInts {
public:
  explicit RandomInts(unsigned seed) : rng_(seed) {}
  int64_t operator()(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }

private:
  std::mt19937 rng_;
};

inline Bytes bytesOf(const Floats &values) {
  Bytes b(values.size() * sizeof(float));
  if (!b.empty())
    std::memcpy(b.data(), values.data(), b.size());
  return b;
}

/// Input values as the bytes of `dtype`: f32, bool from v != 0, or bf16 /
/// f16 rounded to nearest even (the only dtypes these tests bind; any other
/// fails the test).
inline Bytes encode(const Floats &values, DType dtype) {
  if (dtype == DType::F32)
    return bytesOf(values);
  Bytes b(values.size() * dtypeSize(dtype));
  if (dtype == DType::BF16 || dtype == DType::F16) {
    for (size_t i = 0; i < values.size(); ++i) {
      uint16_t h = dtype == DType::BF16 ? cpu::floatToBf16(values[i])
                                        : cpu::floatToF16(values[i]);
      std::memcpy(b.data() + 2 * i, &h, 2);
    }
    return b;
  }
  if (dtype != DType::Bool) {
    ADD_FAILURE() << "encode: only f32, bf16, f16 and bool inputs";
    return b;
  }
  for (size_t i = 0; i < values.size(); ++i)
    b[i] = values[i] != 0.0f;
  return b;
}

/// `n` elements of `dtype` (f32, bf16, f16, bool or int64, whose test
/// values are small) at `data` as floats.
inline Floats decode(const void *data, int64_t n, DType dtype) {
  Floats v(size_t(std::max<int64_t>(n, 0)));
  if (dtype == DType::I64)
    for (size_t i = 0; i < v.size(); ++i) {
      int64_t k;
      std::memcpy(&k, static_cast<const uint8_t *>(data) + 8 * i, 8);
      v[i] = float(k);
    }
  else if (dtype == DType::Bool)
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<const uint8_t *>(data)[i];
  else if (dtype == DType::BF16 || dtype == DType::F16)
    for (size_t i = 0; i < v.size(); ++i) {
      uint16_t h;
      std::memcpy(&h, static_cast<const uint8_t *>(data) + 2 * i, 2);
      v[i] = dtype == DType::BF16 ? cpu::bf16ToFloat(h) : cpu::f16ToFloat(h);
    }
  else if (dtype != DType::F32)
    ADD_FAILURE() << "decode: only f32, bf16, f16, bool and int64 outputs";
  else if (!v.empty())
    std::memcpy(v.data(), data, v.size() * sizeof(float));
  return v;
}

//===----------------------------------------------------------------------===//
// Building world-size-1 models
//===----------------------------------------------------------------------===//

/// A world-size-1 model under construction: one rank class (rank 0), slots
/// laid out one after another 64-byte aligned, inputs and outputs replicated.
class Model {
public:
  Model() {
    rc.name = "all";
    rc.ranks = {0};
  }

  uint32_t slot(const Shape &shape, fb::DType dtype = F32) {
    BufferSlotSpec s;
    s.offset = arena;
    s.bytes = artifact::tensorBytes(dtype, shape);
    s.dtype = dtype;
    s.shape = shape;
    arena += std::max<uint64_t>((s.bytes + 63) / 64 * 64, 64);
    rc.buffers.push_back(s);
    return uint32_t(rc.buffers.size() - 1);
  }
  /// Untyped scratch space.
  uint32_t scratch(uint64_t bytes) {
    BufferSlotSpec s;
    s.offset = arena;
    s.bytes = bytes;
    arena += std::max<uint64_t>((bytes + 63) / 64 * 64, 64);
    rc.buffers.push_back(s);
    return uint32_t(rc.buffers.size() - 1);
  }

  uint32_t input(const std::string &name, const Shape &shape,
                 fb::DType dtype = F32) {
    uint32_t s = slot(shape, dtype);
    inputs.push_back(desc(name, shape, dtype));
    rc.inputSlots.push_back(s);
    return s;
  }
  uint32_t output(const std::string &name, const Shape &shape,
                  fb::DType dtype = F32) {
    uint32_t s = slot(shape, dtype);
    markOutput(name, s);
    return s;
  }
  /// Makes an existing slot an output of the model.
  void markOutput(const std::string &name, uint32_t s) {
    const BufferSlotSpec &b = rc.buffers.at(s);
    outputs.push_back(desc(name, *b.shape, b.dtype));
    rc.outputSlots.push_back(s);
  }
  uint32_t constant(const std::string &name, const Shape &shape,
                    const Floats &values) {
    uint32_t s = slot(shape, F32);
    ConstantSpec c;
    c.name = name;
    c.dtype = F32;
    c.alignment = 64;
    c.shards = {{{0}, shape, BlobBytes(bytesOf(values))}};
    constants.push_back(c);
    rc.constants.push_back({uint32_t(constants.size() - 1), s});
    return s;
  }

  InstructionSpec &op(Opcode opcode, std::vector<uint32_t> ins,
                      std::vector<uint32_t> outs,
                      std::vector<int64_t> ints = {},
                      std::vector<double> floats = {}, std::string str = "") {
    InstructionSpec inst;
    inst.opcode = opcode;
    inst.inputs = std::move(ins);
    inst.outputs = std::move(outs);
    inst.ints = std::move(ints);
    inst.floats = std::move(floats);
    inst.str = std::move(str);
    rc.program.push_back(std::move(inst));
    return rc.program.back();
  }

  ArtifactWriter writer() const {
    ArtifactWriter w({}, {});
    w.setProducer("engine tests");
    RankClassSpec c = rc;
    c.arenaBytes = arena;
    w.addRankClass(c);
    for (const TensorDescSpec &t : inputs)
      w.addInput(t);
    for (const TensorDescSpec &t : outputs)
      w.addOutput(t);
    for (const ConstantSpec &c : constants)
      w.addConstant(c);
    for (const std::string &s : kernelSymbols)
      w.addKernelSymbol(s);
    for (const artifact::KernelBinarySpec &k : kernels)
      w.addKernelBinary(k);
    if (!reference.empty())
      w.setReference(BlobBytes(reference));
    return w;
  }
  Bytes bytes() const {
    StatusOr<Bytes> b = writer().serialize();
    EXPECT_TRUE(b.ok()) << b.status().toString();
    return b.ok() ? *b : Bytes();
  }
  Bytes unchecked() const { return writer().serializeUnchecked(); }

  static TensorDescSpec desc(const std::string &name, const Shape &shape,
                             fb::DType dtype) {
    TensorDescSpec t;
    t.name = name;
    t.dtype = dtype;
    t.shape = shape;
    for (int64_t n : shape)
      t.dims.push_back({{}, {n}});
    return t;
  }

  RankClassSpec rc;
  uint64_t arena = 0;
  std::vector<TensorDescSpec> inputs, outputs;
  std::vector<ConstantSpec> constants;
  std::vector<std::string> kernelSymbols;
  std::vector<artifact::KernelBinarySpec> kernels;
  Bytes reference;
};

inline std::shared_ptr<const Engine> load(const Bytes &bytes) {
  StatusOr<std::shared_ptr<const Engine>> e =
      Engine::loadFromMemory(bytes.data(), bytes.size());
  EXPECT_TRUE(e.ok()) << e.status().toString();
  return e.ok() ? *e : nullptr;
}

} // namespace shardrt::enginetest

#endif // SHARDRT_ENGINE_TEST_TESTMODEL_H
