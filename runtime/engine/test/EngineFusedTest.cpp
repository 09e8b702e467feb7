//===- EngineFusedTest.cpp - ElementwiseFused and ReductionFused bodies ---===//
//
// Fused instructions the CPU backend runs from the body they carry: the
// checks on elementwise bodies and on reduction headers, and fused
// reductions (long ranges split into chunks, empty ranges, bodiless ones)
// compared with plain loops.
//
//===----------------------------------------------------------------------===//

#include "EngineTestSupport.h"

#include "shardrt/Engine.h"
#include "shardrt/artifact/ArtifactWriter.h"
#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace shardrt {
namespace {

using namespace enginetest;

TEST(EnginePrepare, FusedBodiesAreChecked) {
  // ElementwiseFused without a kernel carries its body; a malformed one is
  // rejected at prepare, naming what is wrong.
  auto fused = [](std::string fns, std::vector<int64_t> ints,
                  Shape in = {2, 3}) {
    Model m;
    uint32_t x = m.input("x", in);
    uint32_t y = m.output("y", {2, 3});
    InstructionSpec &inst = m.op(Opcode::ElementwiseFused, {x}, {y});
    inst.str = std::move(fns);
    inst.ints = std::move(ints);
    return prepare(m.bytes());
  };
  EXPECT_TRUE(fused("relu neg", {0, 1, 2}).ok());
  EXPECT_TRUE(fused("mul", {0, 0, 1}, {3}).ok()); // broadcast input
  EXPECT_TRUE(rejected(fused("relu coth", {0, 1, 2}), kInvalid,
                       {"(ElementwiseFused)", "unknown function 'coth'"}));
  EXPECT_TRUE(rejected(fused("relu neg", {0, 2, 2}), kInvalid,
                       {"step 1 reads register 2 of 2 defined"}));
  EXPECT_TRUE(
      rejected(fused("relu neg", {0, 1, 1}), kInvalid, {"yields register 1"}));
  EXPECT_TRUE(rejected(fused("add", {0}), kInvalid, {"integer"}));
  // Bools are registers holding 1 and 0: select takes three of them.
  EXPECT_TRUE(fused("gt bool select", {0, 0, 1, 2, 1, 0, 3}).ok());
  EXPECT_TRUE(
      rejected(fused("gt select", {0, 0, 1, 0}), kInvalid, {"integer"}));
  EXPECT_TRUE(rejected(fused("select", {0, 0, 1, 1}), kInvalid,
                       {"step 0 reads register 1 of 1 defined"}));
  EXPECT_TRUE(rejected(fused("relu", {0, 1}, {2, 2}), kInvalid,
                       {"does not broadcast"}));
  // A fused reduction reads bools but writes f32 only.
  Model reduction;
  uint32_t b = reduction.input("b", {2, 3}, fb::DType::I1);
  uint32_t sums = reduction.output("s", {2}, fb::DType::I1);
  InstructionSpec &reduce = reduction.op(Opcode::ReductionFused, {b}, {sums});
  reduce.str = "sum";
  reduce.ints = {2, 2, 3, 1, 1, 0};
  EXPECT_TRUE(rejected(prepare(reduction.bytes()), StatusCode::Unimplemented,
                       {"the output is I1"}));
}

/// Element `linear` of an output of shape `out` read from an input of shape
/// `in` (left-padded with 1s; dims of 1 broadcast), by unravel and ravel.
int64_t broadcastIndex(const Shape &in, const Shape &out, int64_t linear) {
  int64_t index = 0, stride = 1;
  size_t pad = out.size() - in.size();
  for (size_t d = out.size(); d-- > 0;) {
    int64_t i = linear % out[d];
    linear /= out[d];
    int64_t extent = d < pad ? 1 : in[d - pad];
    if (extent != 1)
      index += i * stride;
    stride *= extent;
  }
  return index;
}

TEST(EngineRun, FusedElementwiseBodiesMatchDirectLoops) {
  // Random outputs over several tiles, inputs broadcast along random dims
  // (some constant over whole tiles, which the evaluator reads as one value;
  // some with all inputs so, where a step yields one value for the tile),
  // random bodies of add/sub/mul/maximum/neg/relu, comparisons, bool and
  // select (on any register: bools are 1 and 0, and select picks by != 0)
  // with NaNs in the inputs. Each element is recomputed here in float, so
  // results must be equal.
  RandomInts pick(23);
  const char *binaries[] = {"add", "sub", "mul", "maximum",
                            "gt",  "le",  "ne",  "eq"};
  const char *unaries[] = {"neg", "relu", "silu", "exp", "bool"};
  for (int iter = 0; iter < 40; ++iter) {
    SCOPED_TRACE("case " + std::to_string(iter));
    Shape out(size_t(pick(1, 4)));
    for (int64_t &d : out)
      d = pick(1, 5) == 1 ? 1 : pick(2, 40);
    if (iter % 4 == 0)
      out = {1, pick(2, 4), 64, pick(40, 80)}; // per-channel runs > a tile
    int64_t inputs = pick(1, 3);
    Model m;
    std::vector<Shape> shapes;
    std::vector<uint32_t> slots;
    std::vector<Floats> values;
    std::mt19937 rng{unsigned(iter)};
    for (int64_t i = 0; i < inputs; ++i) {
      Shape s(out.begin() + pick(0, int64_t(out.size()) - 1), out.end());
      for (int64_t &d : s)
        if (pick(0, 1) || (iter % 8 == 4 && i > 0))
          d = 1;
      if (iter % 8 == 0 && i == 0)
        s = {out[1], 1, 1}; // per channel
      shapes.push_back(s);
      slots.push_back(m.input("in" + std::to_string(i), s));
      values.push_back(randomFloats(size_t(count(s)), rng, -2, 2));
      if (values.back().size() > 3)
        values.back()[2] = std::nanf("");
    }
    // Steps read any earlier register; the last yields the output.
    std::string fns;
    std::vector<int64_t> ints;
    struct RefStep {
      std::string fn;
      int64_t a, b, c;
    };
    std::vector<RefStep> ref;
    int64_t steps = pick(1, 5);
    for (int64_t k = 0; k < steps; ++k) {
      int64_t defined = inputs + k;
      RefStep st{"", pick(0, defined - 1), pick(0, defined - 1),
                 pick(0, defined - 1)};
      int64_t arity = pick(0, 5) == 0 ? 3 : pick(0, 2) > 0 ? 2 : 1;
      st.fn = arity == 3   ? "select"
              : arity == 2 ? binaries[pick(0, 7)]
                           : unaries[pick(0, 4)];
      fns += (fns.empty() ? "" : " ") + st.fn;
      for (int64_t r : {st.a, st.b, st.c})
        if (arity-- > 0)
          ints.push_back(r);
      ref.push_back(st);
    }
    ints.push_back(inputs + steps - 1);
    uint32_t y = m.output("y", out);
    InstructionSpec &inst = m.op(Opcode::ElementwiseFused, slots, {y});
    inst.str = fns;
    inst.ints = ints;
    StatusOr<std::vector<Floats>> got = runModel(m, values);
    ASSERT_TRUE(got.ok()) << got.status().toString();
    for (int64_t e = 0; e < count(out); ++e) {
      std::vector<float> reg;
      for (int64_t i = 0; i < inputs; ++i)
        reg.push_back(values[size_t(i)][size_t(
            broadcastIndex(shapes[size_t(i)], out, e))]);
      for (const RefStep &st : ref) {
        float u = reg[size_t(st.a)], v = reg[size_t(st.b)],
              w = reg[size_t(st.c)];
        float r = st.fn == "add"       ? u + v
                  : st.fn == "sub"     ? u - v
                  : st.fn == "mul"     ? u * v
                  : st.fn == "maximum" ? (u > v || u != u ? u : v)
                  : st.fn == "neg"     ? -u
                  : st.fn == "relu"    ? (u > 0.0f || u != u ? u : 0.0f)
                  : st.fn == "gt"      ? float(u > v)
                  : st.fn == "le"      ? float(u <= v)
                  : st.fn == "ne"      ? float(u != v)
                  : st.fn == "eq"      ? float(u == v)
                  : st.fn == "bool"    ? float(u != 0.0f)
                  : st.fn == "select"  ? (u != 0.0f ? v : w)
                                       : 0.0f;
        // SiLU and exp: the CPU kernel on this one element (the kernels'
        // values are ElementwiseTest's business; here the evaluator's tiles,
        // single values and gathers are).
        if (st.fn == "silu" || st.fn == "exp")
          cpu::unarySerial(st.fn == "silu" ? cpu::UnaryKind::Silu
                                           : cpu::UnaryKind::Exp,
                           &u, &r, 1);
        reg.push_back(r);
      }
      float want = reg.back(), have = (*got)[0][size_t(e)];
      ASSERT_TRUE(std::isnan(want) ? std::isnan(have) : have == want)
          << fns << ": element " << e << " is " << have << ", not " << want;
    }
  }
}

TEST(EngineRun, FusedElementwiseReadsAndWritesBools) {
  // An i1 input reads as 1.0 or 0.0 (whole, and one bool per row, which
  // runs across tiles); an i1 output stores whether the value is not 0,
  // NaN included. Rows of 2500 put tile boundaries inside rows.
  const Shape shape = {3, 2500}, perRow = {3, 1};
  std::mt19937 rng{7};
  Floats x = randomFloats(size_t(count(shape)), rng, -2, 2), m(x.size());
  Floats r = {1.0f, 0.0f, 1.0f};
  for (size_t i = 0; i < x.size(); ++i) {
    m[i] = float(rng() & 1);
    if (i % 97 == 0)
      x[i] = std::nanf("");
    if (i % 89 == 0)
      x[i] = 0.0f;
  }
  Model model;
  uint32_t mi = model.input("m", shape, fb::DType::I1);
  uint32_t ri = model.input("r", perRow, fb::DType::I1);
  uint32_t xi = model.input("x", shape);
  uint32_t y = model.output("y", shape);
  uint32_t z = model.output("z", shape, fb::DType::I1);
  // y = (m ? x : r) * r; z = (m ? x : m) != 0.
  InstructionSpec &first =
      model.op(Opcode::ElementwiseFused, {mi, ri, xi}, {y});
  first.str = "select mul";
  first.ints = {0, 2, 1, 3, 1, 4};
  InstructionSpec &second = model.op(Opcode::ElementwiseFused, {xi, mi}, {z});
  second.str = "select";
  second.ints = {1, 0, 1, 2};
  StatusOr<std::vector<Floats>> got = runModel(model, {m, r, x});
  ASSERT_TRUE(got.ok()) << got.status().toString();
  for (size_t i = 0; i < x.size(); ++i) {
    float row = r[i / 2500];
    float want = (m[i] != 0.0f ? x[i] : row) * row;
    float have = (*got)[0][i];
    ASSERT_TRUE(std::isnan(want) ? std::isnan(have) : have == want)
        << "y element " << i << " is " << have << ", not " << want;
    float picked = m[i] != 0.0f ? x[i] : 0.0f;
    ASSERT_EQ((*got)[1][i], picked != 0.0f ? 1.0f : 0.0f) << "z element " << i;
  }
}

TEST(EngineRun, FusedElementwiseInPlace) {
  // The output may be the very bytes of an input of the same shape (the
  // memory plan reuses them); a per-channel input is read as single values.
  const Shape shape = {1, 3, 40, 64}; // 2560 per channel: tiles of one value
  Floats x(size_t(count(shape))), c = {0.5f, -2.0f, 3.0f};
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(int(i * 7 % 19) - 9) / 8.0f;
  Model m;
  uint32_t in = m.input("x", shape), scale = m.input("c", {3, 1, 1});
  uint32_t t = m.slot(shape);
  m.op(Opcode::Copy, {in}, {t});
  InstructionSpec &inst = m.op(Opcode::ElementwiseFused, {t, scale}, {t});
  inst.str = "mul silu";
  inst.ints = {0, 1, 2, 3};
  m.markOutput("y", t);
  StatusOr<std::vector<Floats>> out = runModel(m, {x, c});
  ASSERT_TRUE(out.ok()) << out.status().toString();
  for (size_t i = 0; i < x.size(); ++i) {
    float v = x[i] * c[i / (40 * 64)], want;
    cpu::unarySerial(cpu::UnaryKind::Silu, &v, &want, 1);
    ASSERT_EQ((*out)[0][i], want) << "element " << i;
  }
}

TEST(EngineRun, FusedReductionsMatchDirectLoops) {
  // ReductionFused over [3, 4, 5] reducing dims 0 and 2 of x * w (w
  // broadcast per dim-1 index): sum, mean, amax (one NaN propagates into
  // its output only), amin; expected values from plain loops.
  const Shape space = {3, 4, 5};
  Floats x(60), w = {0.5f, -1.0f, 2.0f, 0.25f};
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(int(i * 37 % 23) - 11) / 4.0f;
  x[1 * 20 + 2 * 5 + 3] = std::nanf(""); // (1, 2, 3): output 2 of amax
  Model m;
  uint32_t xs = m.input("x", space), wSlot = m.input("w", {4, 1});
  std::vector<uint32_t> outs;
  for (const char *kind : {"sum", "mean", "amax", "amin"}) {
    outs.push_back(m.output(kind, {4}));
    InstructionSpec &inst =
        m.op(Opcode::ReductionFused, {xs, wSlot}, {outs.back()});
    inst.str = std::string(kind) + " mul";
    inst.ints = {3, 3, 4, 5, 2, 0, 2, 0, 1, 2};
  }
  StatusOr<std::vector<Floats>> out = runModel(m, {x, w});
  ASSERT_TRUE(out.ok()) << out.status().toString();
  for (int64_t j = 0; j < 4; ++j) {
    double sum = 0, hi = -INFINITY, lo = INFINITY;
    bool nan = false;
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t k = 0; k < 5; ++k) {
        float v = x[size_t(i * 20 + j * 5 + k)] * w[size_t(j)];
        nan = nan || std::isnan(v);
        sum += v;
        hi = std::max<double>(hi, v);
        lo = std::min<double>(lo, v);
      }
    SCOPED_TRACE("output " + std::to_string(j));
    EXPECT_EQ(std::isnan((*out)[0][size_t(j)]), nan);
    if (nan) {
      EXPECT_TRUE(std::isnan((*out)[2][size_t(j)]));
      continue;
    }
    EXPECT_FLOAT_EQ((*out)[0][size_t(j)], float(sum));
    EXPECT_FLOAT_EQ((*out)[1][size_t(j)], float(sum / 15));
    EXPECT_EQ((*out)[2][size_t(j)], float(hi));
    EXPECT_EQ((*out)[3][size_t(j)], float(lo));
  }
}

TEST(EngineRun, FusedReductionsSplitLongRanges) {
  // Few outputs over long reduced ranges are split into chunks whose
  // partials are combined: chunk starts fall inside the outer reduced dim
  // (space 2x3x20000), on a strided inner dim (3x30000x2) and in a full
  // reduction; a NaN in a late chunk must still reach amax. Expected values
  // from plain loops over the space.
  struct Case {
    Shape space;
    std::vector<int64_t> dims;
  };
  for (const Case &c : {Case{{2, 3, 20000}, {1, 2}}, Case{{3, 30000, 2}, {1}},
                        Case{{50000}, {0}}}) {
    SCOPED_TRACE("space of " + std::to_string(c.space.size()) + " dims, " +
                 std::to_string(c.space.back()) + " innermost");
    int64_t n = 1;
    for (int64_t d : c.space)
      n *= d;
    Floats x(static_cast<size_t>(n));
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = float(int(i * 7919 % 1013) - 500) / 64.0f;
    x[x.size() - 3] = std::nanf(""); // in the last chunk of the last output
    Shape outShape;
    std::vector<int64_t> ints = {int64_t(c.space.size())};
    ints.insert(ints.end(), c.space.begin(), c.space.end());
    ints.push_back(int64_t(c.dims.size()));
    ints.insert(ints.end(), c.dims.begin(), c.dims.end());
    ints.insert(ints.end(), {0, 1}); // neg: register 0 -> register 1
    for (size_t d = 0; d < c.space.size(); ++d)
      if (std::find(c.dims.begin(), c.dims.end(), int64_t(d)) == c.dims.end())
        outShape.push_back(c.space[d]);
    Model m;
    uint32_t xs = m.input("x", c.space);
    for (const char *kind : {"sum", "amax", "amin"}) {
      InstructionSpec &inst =
          m.op(Opcode::ReductionFused, {xs}, {m.output(kind, outShape)});
      inst.str = std::string(kind) + " neg";
      inst.ints = ints;
    }
    StatusOr<std::vector<Floats>> out = runModel(m, {x});
    ASSERT_TRUE(out.ok()) << out.status().toString();
    size_t outputs = (*out)[0].size();
    std::vector<double> sum(outputs, 0), hi(outputs, -INFINITY),
        lo(outputs, INFINITY);
    std::vector<bool> nan(outputs, false);
    for (int64_t flat = 0; flat < n; ++flat) {
      int64_t rest = flat, o = 0, scale = 1;
      for (size_t d = c.space.size(); d-- > 0;) {
        int64_t idx = rest % c.space[d];
        rest /= c.space[d];
        if (std::find(c.dims.begin(), c.dims.end(), int64_t(d)) != c.dims.end())
          continue;
        o += idx * scale;
        scale *= c.space[d];
      }
      float v = -x[size_t(flat)];
      nan[size_t(o)] = nan[size_t(o)] || std::isnan(v);
      sum[size_t(o)] += v;
      hi[size_t(o)] = std::max<double>(hi[size_t(o)], v);
      lo[size_t(o)] = std::min<double>(lo[size_t(o)], v);
    }
    for (size_t o = 0; o < outputs; ++o) {
      SCOPED_TRACE("output " + std::to_string(o));
      if (nan[o]) {
        for (int k = 0; k < 3; ++k)
          EXPECT_TRUE(std::isnan((*out)[size_t(k)][o]));
        continue;
      }
      EXPECT_FLOAT_EQ((*out)[0][o], float(sum[o]));
      EXPECT_EQ((*out)[1][o], float(hi[o]));
      EXPECT_EQ((*out)[2][o], float(lo[o]));
    }
  }
}

/// A ReductionFused over `space` reducing `dims` of a body over x (the
/// space's shape) and w (`wShape`, broadcast), with `body` one of "mul"
/// (x * w), "neg" (-x) or "" (the one input read, no step). With wBools, w
/// is an i1 input (a mask), read as 1.0 or 0.0.
struct ReductionCase {
  Shape space;
  std::vector<int64_t> dims;
  std::string body;
  bool readsX, readsW;
  Shape wShape;
  bool wBools = false;
};

/// Runs `c` for sum, mean, amax and amin and compares each output with
/// plain loops over the space; x holds one NaN, which must reach its output
/// only.
void expectReductionMatchesLoops(const ReductionCase &c) {
  SCOPED_TRACE(std::to_string(c.space.size()) + " dims, body '" + c.body + "'" +
               (c.readsX ? " reading x" : "") + (c.readsW ? " reading w" : "") +
               (c.wBools ? " (bools)" : ""));
  int64_t n = 1, wCount = 1;
  for (int64_t d : c.space)
    n *= d;
  for (int64_t d : c.wShape)
    wCount *= d;
  Floats x(static_cast<size_t>(n)), w(static_cast<size_t>(wCount));
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(int(i * 7919 % 1013) - 500) / 64.0f;
  x[size_t(n / 2 + 1)] = std::nanf("");
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = c.wBools ? float(i * 40503 % 7 < 4)
                    : (i % 2 ? -0.5f : 0.75f) * float(i % 5 + 1);
  Shape outShape;
  for (size_t d = 0; d < c.space.size(); ++d)
    if (std::find(c.dims.begin(), c.dims.end(), int64_t(d)) == c.dims.end())
      outShape.push_back(c.space[d]);
  std::vector<int64_t> ints = {int64_t(c.space.size())};
  ints.insert(ints.end(), c.space.begin(), c.space.end());
  ints.push_back(int64_t(c.dims.size()));
  ints.insert(ints.end(), c.dims.begin(), c.dims.end());
  if (c.body == "mul")
    ints.insert(ints.end(), {0, 1, 2}); // x * w -> register 2
  else if (c.body == "neg")
    ints.insert(ints.end(), {0, 1}); // -x -> register 1
  else
    ints.push_back(0); // the input itself
  Model m;
  std::vector<uint32_t> ins;
  std::vector<Floats> values;
  if (c.readsX) {
    ins.push_back(m.input("x", c.space));
    values.push_back(x);
  }
  if (c.readsW) {
    ins.push_back(
        m.input("w", c.wShape, c.wBools ? fb::DType::I1 : fb::DType::F32));
    values.push_back(w);
  }
  for (const char *kind : {"sum", "mean", "amax", "amin"}) {
    InstructionSpec &inst =
        m.op(Opcode::ReductionFused, ins, {m.output(kind, outShape)});
    inst.str = std::string(kind) + (c.body.empty() ? "" : " " + c.body);
    inst.ints = ints;
  }
  StatusOr<std::vector<Floats>> out = runModel(m, values);
  ASSERT_TRUE(out.ok()) << out.status().toString();
  size_t outputs = (*out)[0].size();
  std::vector<double> sum(outputs, 0), hi(outputs, -INFINITY),
      lo(outputs, INFINITY);
  std::vector<bool> nan(outputs, false);
  double count = double(n) / double(outputs);
  Shape wPadded(c.space.size() - c.wShape.size(), 1);
  wPadded.insert(wPadded.end(), c.wShape.begin(), c.wShape.end());
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat, o = 0, scale = 1, wAt = 0, wScale = 1;
    for (size_t d = c.space.size(); d-- > 0;) {
      int64_t idx = rest % c.space[d];
      rest /= c.space[d];
      if (wPadded[d] != 1)
        wAt += idx * wScale;
      wScale *= wPadded[d];
      if (std::find(c.dims.begin(), c.dims.end(), int64_t(d)) != c.dims.end())
        continue;
      o += idx * scale;
      scale *= c.space[d];
    }
    // w's shape need not fit the space where the case does not read it.
    float xv = x[size_t(flat)], wv = c.readsW ? w[size_t(wAt)] : 0.0f;
    float v = c.body == "mul"   ? xv * wv
              : c.body == "neg" ? -xv
              : c.readsX        ? xv
                                : wv;
    nan[size_t(o)] = nan[size_t(o)] || std::isnan(v);
    sum[size_t(o)] += v;
    hi[size_t(o)] = std::max<double>(hi[size_t(o)], v);
    lo[size_t(o)] = std::min<double>(lo[size_t(o)], v);
  }
  EXPECT_EQ(std::count(nan.begin(), nan.end(), true), c.readsX ? 1 : 0);
  for (size_t o = 0; o < outputs; ++o) {
    SCOPED_TRACE("output " + std::to_string(o));
    if (nan[o]) {
      for (int k = 0; k < 4; ++k)
        EXPECT_TRUE(std::isnan((*out)[size_t(k)][o]));
      continue;
    }
    EXPECT_FLOAT_EQ((*out)[0][o], float(sum[o]));
    EXPECT_FLOAT_EQ((*out)[1][o], float(sum[o] / count));
    EXPECT_EQ((*out)[2][o], float(hi[o]));
    EXPECT_EQ((*out)[3][o], float(lo[o]));
  }
}

TEST(EngineRun, FusedReductionsOverRowsOfOutputs) {
  // Outputs contiguous along the innermost dim (a channel-wise reduction of
  // NCHW) are reduced a row at a time: x * w over (6, 3, 50) reducing dims 0
  // and 1, w broadcast along the row (one value per row); the same space
  // with only w read (every row one value) and with no step; and
  // (2, 7, 2100, 1) reducing dims 1 and 3, whose rows span two tiles of
  // 2048.
  const Shape w = {1, 3, 1};
  for (const ReductionCase &c :
       {ReductionCase{{6, 3, 50}, {0, 1}, "mul", true, true, w},
        ReductionCase{{6, 3, 50}, {0, 1}, "", false, true, w},
        ReductionCase{{6, 3, 50}, {0, 1}, "", true, false, w},
        ReductionCase{{2, 7, 2100, 1}, {1, 3}, "neg", true, false, w}})
    expectReductionMatchesLoops(c);
}

TEST(EngineRun, FusedReductionsOfFewElementsRunWholeOutputsATile) {
  // Outputs of a few consecutive elements (the 3 components of a vector
  // field) run the body on a tile of whole outputs: per-component weights
  // (1, 3); a per-output value (4000, 1) repeated within the tile; one
  // value for everything (1, 1); a kept dim of extent 1 between reduced
  // ones (7, 5, 1, 6); and a full reduction into one output.
  for (const ReductionCase &c :
       {ReductionCase{{4000, 3}, {1}, "mul", true, true, {1, 3}},
        ReductionCase{{4000, 3}, {1}, "", false, true, {4000, 1}},
        ReductionCase{{4000, 3}, {1}, "", false, true, {1, 1}},
        ReductionCase{{7, 5, 1, 6}, {1, 3}, "neg", true, false, {1}},
        ReductionCase{{2, 3, 4}, {0, 1, 2}, "", true, false, {1}}})
    expectReductionMatchesLoops(c);
}

TEST(EngineRun, FusedReductionsReadBoolInputs) {
  // A mask input reads as 1.0 or 0.0 on every path of the evaluator, where
  // an f32 input would be read in place: x * mask gathered along reduced
  // dims it broadcasts over (one value per output), along a contiguous
  // range split into chunks (2 outputs of 40000), as rows of outputs (a
  // mask per row, and a full one), and as tiles of whole outputs (per
  // component, per output); and the mask itself reduced (no step).
  for (const ReductionCase &c :
       {ReductionCase{{3, 4, 5}, {0, 2}, "mul", true, true, {4, 1}, true},
        ReductionCase{{2, 40000}, {1}, "mul", true, true, {2, 40000}, true},
        ReductionCase{{6, 3, 50}, {0, 1}, "mul", true, true, {1, 3, 1}, true},
        ReductionCase{{6, 3, 50}, {0, 1}, "mul", true, true, {6, 3, 50}, true},
        ReductionCase{{4000, 3}, {1}, "mul", true, true, {1, 3}, true},
        ReductionCase{{4000, 3}, {1}, "mul", true, true, {4000, 1}, true},
        ReductionCase{{3, 4, 5}, {0, 2}, "", false, true, {3, 4, 5}, true},
        ReductionCase{{6, 3, 50}, {0, 1}, "", false, true, {6, 3, 50}, true}})
    expectReductionMatchesLoops(c);
}

TEST(EngineRun, FusedReductionsOverEmptyRanges) {
  // A reduced dim of extent 0: sums are 0 and means NaN (torch.sum and
  // torch.mean of an empty range); and a space with no outputs at all.
  Model m;
  uint32_t x = m.input("x", {2, 0});
  uint32_t none = m.input("none", {0, 5});
  std::vector<std::pair<std::string, uint32_t>> cases = {
      {"sum", x}, {"mean", x}, {"sum", none}};
  for (auto &[kind, in] : cases) {
    bool empty = in == none;
    InstructionSpec &inst = m.op(Opcode::ReductionFused, {in},
                                 {m.output(kind + (empty ? "0" : ""),
                                           {empty ? int64_t(0) : int64_t(2)})});
    inst.str = kind + " abs";
    inst.ints = {2, empty ? 0 : 2, empty ? 5 : 0, 1, 1, 0, 1};
  }
  StatusOr<std::vector<Floats>> out = runModel(m, {{}, {}});
  ASSERT_TRUE(out.ok()) << out.status().toString();
  EXPECT_EQ((*out)[0], (Floats{0.0f, 0.0f}));
  ASSERT_EQ((*out)[1].size(), 2u);
  EXPECT_TRUE(std::isnan((*out)[1][0]) && std::isnan((*out)[1][1]));
  EXPECT_TRUE((*out)[2].empty());
}

TEST(EnginePrepare, FusedReductionHeadersAreChecked) {
  // The iteration space and the reduced dims come before the body; a
  // malformed header or a space the inputs do not fit is rejected.
  auto fused = [](std::string str, std::vector<int64_t> ints, Shape out = {2},
                  Shape in = {2, 3}) {
    Model m;
    uint32_t x = m.input("x", in);
    uint32_t y = m.output("y", out);
    InstructionSpec &inst = m.op(Opcode::ReductionFused, {x}, {y});
    inst.str = std::move(str);
    inst.ints = std::move(ints);
    return prepare(m.bytes());
  };
  EXPECT_TRUE(fused("sum abs", {2, 2, 3, 1, 1, 0, 1}).ok());
  EXPECT_TRUE(rejected(fused("prod abs", {2, 2, 3, 1, 1, 0, 1}), kInvalid,
                       {"(ReductionFused)", "unknown reduction 'prod'"}));
  EXPECT_TRUE(rejected(fused("sum abs", {2, 2, 3, 2, 1, 0, 0, 1}), kInvalid,
                       {"dims must ascend"}));
  EXPECT_TRUE(rejected(fused("sum abs", {2, 2, 3, 1, 2, 0, 1}), kInvalid,
                       {"reduces dim 2 of (2, 3)"}));
  EXPECT_TRUE(rejected(fused("sum abs", {2, 2, 4, 1, 1, 0, 1}), kInvalid,
                       {"does not broadcast to the iteration space"}));
  EXPECT_TRUE(rejected(fused("sum abs", {2, 2, 3, 1, 1, 0, 1}, {3}), kInvalid,
                       {"reducing (2, 3) leaves 2"}));
  EXPECT_TRUE(rejected(fused("sum abs", {-1}), kInvalid, {"rank--1"}));
  EXPECT_TRUE(rejected(fused("amax abs", {2, 2, 0, 1, 1, 0, 1}, {2}, {2, 0}),
                       kInvalid, {"amax/amin over zero elements"}));
  EXPECT_TRUE(fused("sum abs", {2, 2, 0, 1, 1, 0, 1}, {2}, {2, 0}).ok());
  // A body with no step yields an input; its register must be one.
  EXPECT_TRUE(fused("sum", {2, 2, 3, 1, 1, 0}).ok());
  EXPECT_TRUE(rejected(fused("sum", {2, 2, 3, 1, 1, 1}), kInvalid,
                       {"yields register 1 of 1 inputs and no step"}));
  EXPECT_TRUE(rejected(fused("sum", {2, 2, 3, 1, 1}), kInvalid,
                       {"its encoding needs more"}));
}

TEST(EngineRun, BodilessFusedReductionsReduceAnInput) {
  // A plain Reduce made a fused kernel (the CUDA target's lone kernels):
  // no step, the body yields input 0 (x over [3, 4, 5]) or input 1 (w,
  // broadcast per dim-1 index); dims 0 and 2 are reduced.
  const Shape space = {3, 4, 5};
  Floats x(60), w = {0.5f, -1.0f, 2.0f, 0.25f};
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(int(i * 41 % 29) - 14) / 8.0f;
  Model m;
  uint32_t xs = m.input("x", space), wSlot = m.input("w", {4, 1});
  for (int64_t reg : {0, 1})
    for (const char *kind : {"sum", "mean", "amax", "amin"}) {
      InstructionSpec &inst = m.op(Opcode::ReductionFused, {xs, wSlot},
                                   {m.output(kind + std::to_string(reg), {4})});
      inst.str = kind;
      inst.ints = {3, 3, 4, 5, 2, 0, 2, reg};
    }
  StatusOr<std::vector<Floats>> out = runModel(m, {x, w});
  ASSERT_TRUE(out.ok()) << out.status().toString();
  for (int64_t j = 0; j < 4; ++j) {
    double sum = 0, hi = -INFINITY, lo = INFINITY;
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t k = 0; k < 5; ++k) {
        float v = x[size_t(i * 20 + j * 5 + k)];
        sum += v;
        hi = std::max<double>(hi, v);
        lo = std::min<double>(lo, v);
      }
    SCOPED_TRACE("output " + std::to_string(j));
    size_t o = size_t(j);
    EXPECT_FLOAT_EQ((*out)[0][o], float(sum));
    EXPECT_FLOAT_EQ((*out)[1][o], float(sum / 15));
    EXPECT_EQ((*out)[2][o], float(hi));
    EXPECT_EQ((*out)[3][o], float(lo));
    EXPECT_FLOAT_EQ((*out)[4][o], 15 * w[o]);
    EXPECT_FLOAT_EQ((*out)[5][o], w[o]);
    EXPECT_EQ((*out)[6][o], w[o]);
    EXPECT_EQ((*out)[7][o], w[o]);
  }
}

} // namespace
} // namespace shardrt
