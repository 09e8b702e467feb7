//===- EngineRunTest.cpp - Elementwise, layout, reduction and matmul ops --===//
//
// Small world-size-1 artifacts built with ArtifactWriter, run through a
// Session and compared with plain loops written here: unary, binary,
// compare, select, cast and broadcast ops; reductions; copies, fills,
// permutes, slices, concats and pads; softmax and the norms; matmul and
// linear; constants read from the artifact; zero-sized tensors.
//
//===----------------------------------------------------------------------===//

#include "EngineTestSupport.h"

#include "shardrt/Engine.h"
#include "shardrt/artifact/ArtifactWriter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace shardrt {
namespace {

using namespace enginetest;

/// Row-major strides.
Shape strides(const Shape &shape) {
  Shape s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    s[d - 1] = s[d] * shape[d];
  return s;
}

/// numpy broadcast read of x (shape xs, right-aligned) at output index idx.
float bcast(const Floats &x, const Shape &xs, const Shape &idx) {
  Shape j(xs.size());
  size_t off = idx.size() - xs.size();
  for (size_t d = 0; d < xs.size(); ++d)
    j[d] = xs[d] == 1 ? 0 : idx[d + off];
  return x[size_t(ravel(j, xs))];
}

//===----------------------------------------------------------------------===//
// Reference implementations (plain loops)
//===----------------------------------------------------------------------===//

/// softmax (or log_softmax) of x along dim.
Floats softmaxRef(const Floats &x, const Shape &shape, int64_t dim, bool log) {
  Floats y(x.size());
  int64_t n = shape[dim], inner = strides(shape)[dim],
          outer = count(shape) / std::max<int64_t>(n * inner, 1);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return size_t((o * n + k) * inner + i); };
      double mx = -INFINITY, sum = 0;
      for (int64_t k = 0; k < n; ++k)
        mx = std::max(mx, double(x[at(k)]));
      for (int64_t k = 0; k < n; ++k)
        sum += std::exp(x[at(k)] - mx);
      for (int64_t k = 0; k < n; ++k)
        y[at(k)] = log ? float(x[at(k)] - mx - std::log(sum))
                       : float(std::exp(x[at(k)] - mx) / sum);
    }
  return y;
}

/// Normalizes each of `rows` consecutive blocks of `block` elements; the
/// affine parameter of element j of a block is param(j).
template <typename ParamIndex>
Floats normalizeBlocks(const Floats &x, int64_t rows, int64_t block,
                       const Floats *w, const Floats *b, double eps,
                       ParamIndex param) {
  Floats y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x.data() + r * block;
    double mean = 0, var = 0;
    for (int64_t j = 0; j < block; ++j)
      mean += xr[j];
    mean /= double(block);
    for (int64_t j = 0; j < block; ++j)
      var += (xr[j] - mean) * (xr[j] - mean);
    var /= double(block);
    for (int64_t j = 0; j < block; ++j) {
      int64_t p = param(r, j);
      double v = (xr[j] - mean) / std::sqrt(var + eps);
      y[size_t(r * block + j)] =
          float(v * (w ? (*w)[p] : 1.0) + (b ? (*b)[p] : 0.0));
    }
  }
  return y;
}

/// Source index of output index o of a padded dim of size n, or -1 for a
/// constant-filled position.
int64_t padSource(int64_t o, int64_t lo, int64_t n, const std::string &mode) {
  int64_t s = o - lo;
  if (s >= 0 && s < n)
    return s;
  if (mode == "constant")
    return -1;
  if (mode == "replicate")
    return std::clamp<int64_t>(s, 0, n - 1);
  if (mode == "circular")
    return ((s % n) + n) % n;
  return s < 0 ? -s : 2 * (n - 1) - s; // reflect
}

//===----------------------------------------------------------------------===//
// Numerics through a session
//===----------------------------------------------------------------------===//

TEST(EngineRun, ConstantsAreReadFromTheArtifact) {
  // Two constants of different sizes and a third identical to the first
  // (shared blob) feed a chain; every value must come through exactly.
  Floats a = {1.5f, -2.0f, 3.25f, 4.0f, 0.125f, -7.0f};
  Floats b = {10.0f, 20.0f, 30.0f};
  Model m;
  uint32_t x = m.input("x", {2, 3});
  uint32_t ca = m.constant("a", {2, 3}, a);
  uint32_t cb = m.constant("b", {3}, b);
  uint32_t cc = m.constant("a.again", {2, 3}, a);
  uint32_t t0 = m.slot({2, 3}), t1 = m.slot({2, 3});
  uint32_t y = m.output("y", {2, 3});
  uint32_t raw = m.output("raw", {3});
  m.op(Opcode::Binary, {x, ca}, {t0}, {}, {}, "mul");
  m.op(Opcode::Binary, {t0, cb}, {t1}, {}, {}, "add");
  m.op(Opcode::Binary, {t1, cc}, {y}, {}, {}, "sub");
  m.op(Opcode::Copy, {cb}, {raw});
  Floats x0 = {1, 2, 3, 4, 5, 6};
  StatusOr<std::vector<Floats>> out = runModel(m, {x0});
  ASSERT_TRUE(out.ok()) << out.status().toString();
  Floats expected(6);
  for (size_t i = 0; i < 6; ++i)
    expected[i] = x0[i] * a[i] + b[i % 3] - a[i];
  EXPECT_EQ((*out)[0], expected);
  EXPECT_EQ((*out)[1], b);
}

TEST(EngineRun, UnaryKinds) {
  std::mt19937 rng(3);
  Floats x = randomFloats(24, rng, 0.1f, 3.0f);
  for (size_t i = 0; i < x.size(); i += 2)
    x[i] = -x[i];
  struct Kind {
    const char *name;
    double (*f)(double);
    bool positive;
  };
  const Kind kinds[] = {
      {"neg", [](double v) { return -v; }, false},
      {"abs", [](double v) { return std::fabs(v); }, false},
      {"exp", [](double v) { return std::exp(v); }, false},
      {"log", [](double v) { return std::log(v); }, true},
      {"sqrt", [](double v) { return std::sqrt(v); }, true},
      {"rsqrt", [](double v) { return 1 / std::sqrt(v); }, true},
      {"tanh", [](double v) { return std::tanh(v); }, false},
      {"sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }, false},
      {"relu", [](double v) { return std::max(v, 0.0); }, false},
      {"silu", [](double v) { return v / (1 + std::exp(-v)); }, false},
      {"gelu",
       [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); },
       false},
      {"gelu_tanh",
       [](double v) {
         return 0.5 * v *
                (1 + std::tanh(std::sqrt(2 / 3.14159265358979323846) *
                               (v + 0.044715 * v * v * v)));
       },
       false},
      {"sin", [](double v) { return std::sin(v); }, false},
      {"cos", [](double v) { return std::cos(v); }, false},
      {"erf", [](double v) { return std::erf(v); }, false},
      {"log1p",
       [](double v) { return double(std::log(1.0L + (long double)v)); }, true},
      {"expm1",
       [](double v) { return double(std::exp((long double)v) - 1.0L); }, false},
      {"atan", [](double v) { return std::atan(v); }, false},
      {"sinh", [](double v) { return std::sinh(v); }, false},
      {"log2", [](double v) { return std::log2(v); }, true},
      {"erfc", [](double v) { return std::erfc(v); }, false},
      {"floor", [](double v) { return std::floor(v); }, false},
      {"round", [](double v) { return std::nearbyint(v); }, false},
      {"reciprocal", [](double v) { return 1 / v; }, false},
  };
  for (const Kind &k : kinds) {
    Floats in = x;
    if (k.positive)
      for (float &v : in)
        v = std::fabs(v);
    Floats expected(in.size());
    for (size_t i = 0; i < in.size(); ++i)
      expected[i] = float(k.f(in[i]));
    OpCase op{Opcode::Unary, {{{4, 6}}}, {{4, 6}}, {}, {}, k.name};
    EXPECT_TRUE(close(op.run({in}), expected, 1e-5f)) << k.name;
  }
}

TEST(EngineRun, BinaryCompareSelectCastBroadcast) {
  std::mt19937 rng(4);
  Shape as = {2, 1, 4}, bs = {3, 1}, ys = {2, 3, 4};
  Floats a = randomFloats(8, rng, 0.5f, 2.0f),
         b = randomFloats(3, rng, 0.5f, 2.0f);
  a[1] = b[0]; // an equal pair for the comparisons
  struct Kind {
    const char *name;
    double (*f)(double, double);
  };
  const Kind binaries[] = {
      {"add", [](double x, double y) { return x + y; }},
      {"sub", [](double x, double y) { return x - y; }},
      {"mul", [](double x, double y) { return x * y; }},
      {"div", [](double x, double y) { return x / y; }},
      {"maximum", [](double x, double y) { return std::max(x, y); }},
      {"minimum", [](double x, double y) { return std::min(x, y); }},
      {"pow", [](double x, double y) { return std::pow(x, y); }},
      {"eq", [](double x, double y) { return double(x == y); }},
      {"ne", [](double x, double y) { return double(x != y); }},
      {"lt", [](double x, double y) { return double(x < y); }},
      {"le", [](double x, double y) { return double(x <= y); }},
      {"gt", [](double x, double y) { return double(x > y); }},
      {"ge", [](double x, double y) { return double(x >= y); }},
  };
  for (const Kind &k : binaries) {
    bool isCompare = std::string(k.name).size() == 2;
    Floats expected(size_t(count(ys)));
    for (int64_t i = 0; i < count(ys); ++i) {
      Shape idx = unravel(i, ys);
      expected[size_t(i)] =
          float(k.f(double(bcast(a, as, idx)), double(bcast(b, bs, idx))));
    }
    OpCase op{isCompare ? Opcode::Compare : Opcode::Binary,
              {{as}, {bs}},
              {ys, isCompare ? I1 : F32},
              {},
              {},
              k.name};
    EXPECT_TRUE(close(op.run({a, b}), expected, 1e-5f)) << k.name;
  }

  // select(cond (2, 1, 4) bool, t (3, 4), f scalar-like (1,)).
  Floats cond = {1, 0, 0, 1, 1, 1, 0, 0}, t = randomFloats(12, rng),
         f = {-5.0f};
  OpCase select{Opcode::Select, {{as, I1}, {{3, 4}}, {{1}}}, {ys}};
  Floats expected(size_t(count(ys)));
  for (int64_t i = 0; i < count(ys); ++i) {
    Shape idx = unravel(i, ys);
    expected[size_t(i)] =
        bcast(cond, as, idx) != 0.0f ? bcast(t, {3, 4}, idx) : f[0];
  }
  EXPECT_EQ(select.run({cond, t, f}), expected);

  // f32 -> bool -> f32.
  Floats values = {0.0f, -0.0f, 2.5f, -1.0f, 0.0f, 1e-30f};
  Model m;
  uint32_t x = m.input("x", {6});
  uint32_t asBool = m.output("bool", {6}, I1);
  uint32_t back = m.output("back", {6});
  m.op(Opcode::Cast, {x}, {asBool});
  m.op(Opcode::Cast, {asBool}, {back});
  StatusOr<std::vector<Floats>> out = runModel(m, {values});
  ASSERT_TRUE(out.ok()) << out.status().toString();
  Floats truth = {0, 0, 1, 1, 0, 1};
  EXPECT_EQ((*out)[0], truth);
  EXPECT_EQ((*out)[1], truth);

  // broadcast_to (3, 1) -> (2, 3, 4).
  Floats small = {1, 2, 3};
  OpCase bto{Opcode::BroadcastTo, {{{3, 1}}}, {ys}};
  Floats bexp(size_t(count(ys)));
  for (int64_t i = 0; i < count(ys); ++i)
    bexp[size_t(i)] = small[size_t(unravel(i, ys)[1])];
  EXPECT_EQ(bto.run({small}), bexp);
}

TEST(EngineRun, HalfFloatBuffersAreCastMovedAndZeroFilled) {
  // f32 -> bf16 (rounded) -> zero-padded bf16 -> f32, and -> f16; a bf16
  // zero fill. Expected patterns are IEEE/bfloat16 constants.
  Floats values = {1.00390625f, 1.01171875f, -3.0f, 65520.0f, 1e-8f};
  Model m;
  uint32_t x = m.input("x", {5});
  uint32_t narrow = m.slot({5}, fb::DType::BF16);
  uint32_t padded = m.slot({8}, fb::DType::BF16);
  uint32_t wide = m.output("wide", {8});
  uint32_t half = m.output("half", {5}, fb::DType::F16);
  uint32_t zeros = m.output("zeros", {3}, fb::DType::BF16);
  m.op(Opcode::Cast, {x}, {narrow});
  m.op(Opcode::Pad, {narrow}, {padded}, {1, 2}, {0.0}, "constant");
  m.op(Opcode::Cast, {padded}, {wide});
  m.op(Opcode::Cast, {x}, {half});
  m.op(Opcode::Fill, {}, {zeros}, {}, {0.0});
  StatusOr<std::vector<Floats>> out = runModel(m, {values});
  ASSERT_TRUE(out.ok()) << out.status().toString();
  // 1 + 2^-8 and 1 + 3 * 2^-8 are ties: to the even neighbours 1 and
  // 1 + 2^-6; 65520 rounds up to 65536; 1e-8 (f32 0x322bcc77) rounds up
  // to bf16 0x322c.
  EXPECT_EQ((*out)[0], (Floats{0.0f, 1.0f, 1.015625f, -3.0f, 65536.0f,
                               cpu::bf16ToFloat(0x322c), 0.0f, 0.0f}));
  // f16 keeps 11 significant bits; 65520 rounds to infinity, 1e-8 (below
  // half the smallest subnormal) to zero.
  EXPECT_EQ((*out)[1],
            (Floats{1.00390625f, 1.01171875f, -3.0f, INFINITY, 0.0f}));
  EXPECT_EQ((*out)[2], (Floats{0.0f, 0.0f, 0.0f}));
}

TEST(EngineRun, Int64BuffersAreCastMovedAndZeroFilled) {
  // argmax indices: f32 -> int64 (truncated), zero-padded as a reshard's
  // shift writes it, sliced; an int64 zero fill. Other fills and computing
  // kernels are refused.
  Model m;
  uint32_t x = m.input("x", {4});
  uint32_t index = m.slot({4}, fb::DType::I64);
  uint32_t padded = m.slot({7}, fb::DType::I64);
  uint32_t moved = m.output("moved", {5}, fb::DType::I64);
  uint32_t zeros = m.output("zeros", {3}, fb::DType::I64);
  m.op(Opcode::Cast, {x}, {index});
  m.op(Opcode::Pad, {index}, {padded}, {2, 1}, {0.0}, "constant");
  m.op(Opcode::Slice, {padded}, {moved}, {1, 1}); // start 1, step 1
  m.op(Opcode::Fill, {}, {zeros}, {}, {0.0});
  StatusOr<std::vector<Floats>> out = runModel(m, {{3.0f, 0.0f, 7.9f, -2.5f}});
  ASSERT_TRUE(out.ok()) << out.status().toString();
  EXPECT_EQ((*out)[0], (Floats{0, 3, 0, 7, -2}));
  EXPECT_EQ((*out)[1], (Floats{0, 0, 0}));

  OpCase nonzero{Opcode::Pad,
                 {{{4}, fb::DType::I64}},
                 {{5}, fb::DType::I64},
                 {0, 1},
                 {1.0},
                 "constant"};
  Status padded1 = prepare(nonzero.model().bytes());
  EXPECT_EQ(padded1.code(), StatusCode::Unimplemented) << padded1.toString();
  OpCase fill{Opcode::Fill, {}, {{3}, fb::DType::I64}, {}, {2.0}};
  EXPECT_FALSE(prepare(fill.model().bytes()).ok());
  OpCase neg{
      Opcode::Unary, {{{4}, fb::DType::I64}}, {{4}, fb::DType::I64}, {}, {},
      "neg"};
  EXPECT_FALSE(prepare(neg.model().bytes()).ok());
}

TEST(EngineRun, ConvReadsAHalfFloatInput) {
  // y = conv1d(x, [1, 2, -1], padding 1) on bf16 x: the taps of the
  // bf16-rounded values (1.00390625 rounds to 1, 3.01171875 to 3.015625).
  Model m;
  uint32_t x = m.input("x", {1, 1, 4}, fb::DType::BF16);
  uint32_t w = m.input("w", {1, 1, 3});
  uint32_t y = m.output("y", {1, 1, 4});
  m.op(Opcode::Conv, {x, w}, {y}, {1, 1, 1, 1, 1});
  StatusOr<std::vector<Floats>> out =
      runModel(m, {{1.00390625f, 3.01171875f, -2.0f, 0.5f}, {1, 2, -1}});
  ASSERT_TRUE(out.ok()) << out.status().toString();
  float a = 1.0f, b = 3.015625f, c = -2.0f, d = 0.5f;
  EXPECT_EQ((*out)[0],
            (Floats{2 * a - b, a + 2 * b - c, b + 2 * c - d, c + 2 * d}));
  // Only a Conv's input: a transposed conv's or a weight's is refused.
  OpCase transposed{Opcode::ConvTranspose,
                    {{{1, 1, 4}, fb::DType::BF16}, {{1, 1, 3}}},
                    {{1, 1, 6}},
                    {1, 1, 0, 1, 1}};
  EXPECT_FALSE(prepare(transposed.model().bytes()).ok());
  OpCase weight{Opcode::Conv,
                {{{1, 1, 4}}, {{1, 1, 3}, fb::DType::BF16}},
                {{1, 1, 4}},
                {1, 1, 1, 1, 1}};
  EXPECT_FALSE(prepare(weight.model().bytes()).ok());
}

TEST(EngineRun, HalfFloatBuffersRefuseComputeAndOtherFills) {
  // Kernels compute in f32; a 16-bit pad or fill writes +0.0 only.
  OpCase relu{
      Opcode::Unary, {{{4}, fb::DType::BF16}}, {{4}, fb::DType::BF16}, {}, {},
      "relu"};
  EXPECT_FALSE(prepare(relu.model().bytes()).ok());
  OpCase pad{Opcode::Pad,
             {{{4}, fb::DType::F16}},
             {{5}, fb::DType::F16},
             {0, 1},
             {1.0},
             "constant"};
  Status padded = prepare(pad.model().bytes());
  EXPECT_EQ(padded.code(), StatusCode::Unimplemented) << padded.toString();
  EXPECT_NE(padded.message().find("a fill other than +0.0"), std::string::npos);
  OpCase negativeZero{Opcode::Pad,
                      {{{4}, fb::DType::BF16}},
                      {{5}, fb::DType::BF16},
                      {0, 1},
                      {-0.0},
                      "constant"};
  EXPECT_FALSE(prepare(negativeZero.model().bytes()).ok());
  OpCase fill{Opcode::Fill, {}, {{3}, fb::DType::BF16}, {}, {0.5}};
  Status filled = prepare(fill.model().bytes());
  EXPECT_EQ(filled.code(), StatusCode::Unimplemented) << filled.toString();
  OpCase reflect{Opcode::Pad,
                 {{{4}, fb::DType::BF16}},
                 {{6}, fb::DType::BF16},
                 {1, 1},
                 {0.0},
                 "reflect"};
  EXPECT_TRUE(prepare(reflect.model().bytes()).ok());
}

TEST(EngineRun, Reductions) {
  std::mt19937 rng(5);
  Shape xs = {2, 3, 4};
  Floats x = randomFloats(24, rng);
  for (const char *kind : {"sum", "mean", "amax", "amin"}) {
    // Reduce dims 0 and 2 -> (3,).
    Floats expected(3);
    for (int64_t c = 0; c < 3; ++c) {
      double acc = std::string(kind) == "amax"   ? -INFINITY
                   : std::string(kind) == "amin" ? INFINITY
                                                 : 0.0;
      for (int64_t a = 0; a < 2; ++a)
        for (int64_t b = 0; b < 4; ++b) {
          double v = x[size_t(ravel({a, c, b}, xs))];
          if (std::string(kind) == "amax")
            acc = std::max(acc, v);
          else if (std::string(kind) == "amin")
            acc = std::min(acc, v);
          else
            acc += v;
        }
      expected[size_t(c)] = float(std::string(kind) == "mean" ? acc / 8 : acc);
    }
    OpCase op{Opcode::Reduce, {{xs}}, {{3}}, {2, 0}, {}, kind};
    EXPECT_TRUE(close(op.run({x}), expected)) << kind;
  }
  // No dims: a copy.
  OpCase none{Opcode::Reduce, {{xs}}, {xs}, {}, {}, "sum"};
  EXPECT_EQ(none.run({x}), x);
}

TEST(EngineRun, CopyFillPermuteSliceConcat) {
  std::mt19937 rng(6);
  // Copy is a reshape: (2, 3) -> (3, 2) keeps the bytes.
  Floats x = randomFloats(6, rng);
  EXPECT_EQ((OpCase{Opcode::Copy, {{{2, 3}}}, {{3, 2}}}.run({x})), x);

  // Fill, f32 and bool; no inputs.
  {
    Model m;
    uint32_t f = m.output("f", {2, 5});
    uint32_t b = m.output("b", {7}, I1);
    m.op(Opcode::Fill, {}, {f}, {}, {-2.5});
    m.op(Opcode::Fill, {}, {b}, {}, {1.0});
    StatusOr<std::vector<Floats>> out = runModel(m, {});
    ASSERT_TRUE(out.ok()) << out.status().toString();
    EXPECT_EQ((*out)[0], Floats(10, -2.5f));
    EXPECT_EQ((*out)[1], Floats(7, 1.0f));
  }

  // Permute (2, 3, 4) by (2, 0, 1) -> (4, 2, 3).
  {
    Shape xs = {2, 3, 4}, ys = {4, 2, 3};
    Floats v = randomFloats(24, rng);
    Floats expected(24);
    for (int64_t i = 0; i < 24; ++i) {
      Shape o = unravel(i, ys); // o = (c, a, b)
      expected[size_t(i)] = v[size_t(ravel({o[1], o[2], o[0]}, xs))];
    }
    EXPECT_EQ((OpCase{Opcode::Permute, {{xs}}, {ys}, {2, 0, 1}}.run({v})),
              expected);
  }

  // Slice (5, 7)[1::2, 0::3] -> (2, 3).
  {
    Shape xs = {5, 7}, ys = {2, 3};
    Floats v = randomFloats(35, rng);
    Floats expected;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j)
        expected.push_back(v[size_t(ravel({1 + 2 * i, 3 * j}, xs))]);
    EXPECT_EQ((OpCase{Opcode::Slice, {{xs}}, {ys}, {1, 0, 2, 3}}.run({v})),
              expected);
  }

  // Concat along dim 1 of (2, 1, 3), (2, 2, 3), (2, 0, 3) -> (2, 3, 3).
  {
    Floats a = randomFloats(6, rng), b = randomFloats(12, rng);
    Floats expected;
    for (int64_t n = 0; n < 2; ++n) {
      expected.insert(expected.end(), a.begin() + n * 3, a.begin() + n * 3 + 3);
      expected.insert(expected.end(), b.begin() + n * 6, b.begin() + n * 6 + 6);
    }
    OpCase op{Opcode::Concat,
              {{{2, 1, 3}}, {{2, 2, 3}}, {{2, 0, 3}}},
              {{2, 3, 3}},
              {1}};
    EXPECT_EQ(op.run({a, b, {}}), expected);
  }
}

TEST(EngineRun, PadModes) {
  std::mt19937 rng(7);
  Shape xs = {3, 4};
  Floats x = randomFloats(12, rng);
  struct Case {
    const char *mode;
    int64_t lo[2], hi[2];
  };
  const Case cases[] = {{"constant", {1, 2}, {0, 1}},
                        {"constant", {-1, 1}, {1, -2}}, // crops
                        {"reflect", {2, 3}, {1, 2}},
                        {"replicate", {3, 1}, {2, 4}},
                        {"circular", {3, 4}, {1, 2}}};
  for (const Case &c : cases) {
    Shape ys = {xs[0] + c.lo[0] + c.hi[0], xs[1] + c.lo[1] + c.hi[1]};
    Floats expected(size_t(count(ys)));
    for (int64_t i = 0; i < ys[0]; ++i)
      for (int64_t j = 0; j < ys[1]; ++j) {
        int64_t si = padSource(i, c.lo[0], xs[0], c.mode),
                sj = padSource(j, c.lo[1], xs[1], c.mode);
        expected[size_t(i * ys[1] + j)] =
            si < 0 || sj < 0 ? 0.75f : x[size_t(si * xs[1] + sj)];
      }
    OpCase op{Opcode::Pad, {{xs}}, {ys}, {c.lo[0], c.lo[1], c.hi[0], c.hi[1]},
              {0.75},      c.mode};
    EXPECT_EQ(op.run({x}), expected) << c.mode;
  }
}

TEST(EngineRun, SoftmaxAndNorms) {
  std::mt19937 rng(8);
  Shape xs = {2, 3, 4};
  Floats x = randomFloats(24, rng, -3.0f, 3.0f);
  for (int64_t dim : {0, 1, 2})
    for (int64_t log : {0, 1}) {
      OpCase op{Opcode::Softmax, {{xs}}, {xs}, {dim, log}};
      EXPECT_TRUE(close(op.run({x}), softmaxRef(x, xs, dim, log != 0)))
          << "dim " << dim << " log " << log;
    }

  // group_norm: (2, 4, 3) in 2 groups, with weight and bias.
  Floats w = randomFloats(4, rng), b = randomFloats(4, rng);
  {
    Shape gs = {2, 4, 3};
    OpCase op{Opcode::Norm, {{gs}, {{4}}, {{4}}}, {gs}, {1, 1, 2}, {1e-5},
              "group"};
    Floats expected =
        normalizeBlocks(x, 4, 6, &w, &b, 1e-5, [](int64_t r, int64_t j) {
          return (r % 2) * 2 + j / 3;
        });
    EXPECT_TRUE(close(op.run({x, w, b}), expected));
  }
  // layer_norm over the last dim (weight only) and the last two (neither).
  {
    OpCase op{Opcode::Norm, {{xs}, {{4}}}, {xs}, {1, 0, 1}, {1e-3}, "layer"};
    Floats expected = normalizeBlocks(x, 6, 4, &w, nullptr, 1e-3,
                                      [](int64_t, int64_t j) { return j; });
    EXPECT_TRUE(close(op.run({x, w}), expected));
    OpCase two{Opcode::Norm, {{xs}}, {xs}, {0, 0, 2}, {1e-5}, "layer"};
    EXPECT_TRUE(close(two.run({x}),
                      normalizeBlocks(x, 2, 12, nullptr, nullptr, 1e-5,
                                      [](int64_t, int64_t) { return 0; })));
  }
  // batch_norm (inference) on (2, 3, 4) with running statistics.
  {
    Floats mean = randomFloats(3, rng), var = randomFloats(3, rng, 0.5f, 2.0f),
           bw = randomFloats(3, rng), bb = randomFloats(3, rng);
    OpCase op{Opcode::Norm, {{xs}, {{3}}, {{3}}, {{3}}, {{3}}},
              {xs},         {1, 1, 0},
              {1e-5},       "batch"};
    Floats expected(24);
    for (int64_t i = 0; i < 24; ++i) {
      size_t c = size_t(unravel(i, xs)[1]);
      expected[size_t(i)] = float((x[size_t(i)] - mean[c]) /
                                      std::sqrt(double(var[c]) + 1e-5) * bw[c] +
                                  bb[c]);
    }
    EXPECT_TRUE(close(op.run({x, mean, var, bw, bb}), expected));
  }
}

TEST(EngineRun, MatmulAndLinear) {
  std::mt19937 rng(9);
  auto matmul = [](const Floats &a, const Floats &b, int64_t batch, int64_t m,
                   int64_t k, int64_t n, bool aBatched, bool bBatched) {
    Floats y(size_t(batch * m * n));
    for (int64_t t = 0; t < batch; ++t)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double acc = 0;
          for (int64_t p = 0; p < k; ++p)
            acc += double(a[size_t((aBatched ? t * m * k : 0) + i * k + p)]) *
                   b[size_t((bBatched ? t * k * n : 0) + p * n + j)];
          y[size_t((t * m + i) * n + j)] = float(acc);
        }
    return y;
  };
  {
    // (2, 3, 4) @ (4, 5).
    Floats a = randomFloats(24, rng), b = randomFloats(20, rng);
    OpCase op{Opcode::Matmul, {{{2, 3, 4}}, {{4, 5}}}, {{2, 3, 5}}};
    EXPECT_TRUE(close(op.run({a, b}), matmul(a, b, 2, 3, 4, 5, true, false)));
  }
  {
    // Batch broadcasting that needs materialising: (2, 1, 3, 4) @ (3, 4, 2)
    // -> (2, 3, 3, 2).
    Floats a = randomFloats(24, rng), b = randomFloats(24, rng);
    OpCase op{Opcode::Matmul, {{{2, 1, 3, 4}}, {{3, 4, 2}}}, {{2, 3, 3, 2}}};
    Floats expected(36);
    for (int64_t p = 0; p < 2; ++p)
      for (int64_t q = 0; q < 3; ++q)
        for (int64_t i = 0; i < 3; ++i)
          for (int64_t j = 0; j < 2; ++j) {
            double acc = 0;
            for (int64_t t = 0; t < 4; ++t)
              acc += double(a[size_t(ravel({p, 0, i, t}, {2, 1, 3, 4}))]) *
                     b[size_t(ravel({q, t, j}, {3, 4, 2}))];
            expected[size_t(ravel({p, q, i, j}, {2, 3, 3, 2}))] = float(acc);
          }
    EXPECT_TRUE(close(op.run({a, b}), expected));
  }
  {
    // Vector @ batched matrix: (4,) @ (2, 4, 3) -> (2, 3).
    Floats a = randomFloats(4, rng), b = randomFloats(24, rng);
    OpCase op{Opcode::Matmul, {{{4}}, {{2, 4, 3}}}, {{2, 3}}};
    EXPECT_TRUE(close(op.run({a, b}), matmul(a, b, 2, 1, 4, 3, false, true)));
  }
  {
    // linear: x (2, 3, 4), w (5, 4), bias (5) -> (2, 3, 5).
    Floats x = randomFloats(24, rng), w = randomFloats(20, rng),
           b = randomFloats(5, rng);
    Floats expected(30);
    for (int64_t r = 0; r < 6; ++r)
      for (int64_t o = 0; o < 5; ++o) {
        double acc = b[size_t(o)];
        for (int64_t i = 0; i < 4; ++i)
          acc += double(x[size_t(r * 4 + i)]) * w[size_t(o * 4 + i)];
        expected[size_t(r * 5 + o)] = float(acc);
      }
    OpCase op{Opcode::Linear, {{{2, 3, 4}}, {{5, 4}}, {{5}}}, {{2, 3, 5}}};
    EXPECT_TRUE(close(op.run({x, w, b}), expected));
    for (int64_t r = 0; r < 6; ++r)
      for (int64_t o = 0; o < 5; ++o)
        expected[size_t(r * 5 + o)] -= b[size_t(o)];
    OpCase noBias{Opcode::Linear, {{{2, 3, 4}}, {{5, 4}}}, {{2, 3, 5}}};
    EXPECT_TRUE(close(noBias.run({x, w}), expected));
  }
}

TEST(EngineRun, ZeroSizedTensors) {
  // Zero-element outputs and inputs are legal and run as no-ops.
  Model m;
  uint32_t x = m.input("x", {0, 3});
  uint32_t y = m.output("y", {0, 3});
  uint32_t z = m.output("z", {3});
  m.op(Opcode::Unary, {x}, {y}, {}, {}, "exp");
  m.op(Opcode::Reduce, {x}, {z}, {0}, {}, "sum");
  StatusOr<std::vector<Floats>> out = runModel(m, {{}});
  ASSERT_TRUE(out.ok()) << out.status().toString();
  EXPECT_TRUE((*out)[0].empty());
  EXPECT_EQ((*out)[1], Floats(3, 0.0f));
}

} // namespace
} // namespace shardrt
