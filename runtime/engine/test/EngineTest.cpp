//===- EngineTest.cpp - Engine, Session and the engine C API --------------===//
//
// Small world-size-1 artifacts built with ArtifactWriter, run through a
// Session and compared with plain loops written here; the checks a session
// makes when it is prepared; the embedded reference model; byte- and
// spec-level fuzzing of artifacts (nothing a corrupted artifact holds may
// crash the runtime); the C API.
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"

#include "shardrt/Engine.h"
#include "shardrt/artifact/ArtifactWriter.h"
#include "shardrt/artifact/Format.h"
#include "shardrt/comm/Local.h"
#include "shardrt/shardrt.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
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

/// Every element within an absolute plus relative tolerance.
::testing::AssertionResult close(const Floats &actual, const Floats &expected,
                                 float tol = 1e-4f) {
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

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// Expects `status` to be `code` with every fragment in its message.
::testing::AssertionResult rejected(const Status &status, StatusCode code,
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

constexpr StatusCode kInvalid = StatusCode::InvalidArgument;

/// Input values as the bytes of `dtype` (f32, or bool from v != 0).
Bytes encode(const Floats &values, DType dtype) {
  if (dtype != DType::Bool)
    return bytesOf(values);
  Bytes b(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    b[i] = values[i] != 0.0f;
  return b;
}

Floats decode(const void *data, int64_t n, DType dtype) {
  Floats v(size_t(std::max<int64_t>(n, 0)));
  if (dtype == DType::Bool)
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<const uint8_t *>(data)[i];
  else if (!v.empty())
    std::memcpy(v.data(), data, v.size() * sizeof(float));
  return v;
}

/// Copies `inputs` in, runs once and returns every output.
StatusOr<std::vector<Floats>> runEngine(std::shared_ptr<const Engine> engine,
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

StatusOr<std::vector<Floats>> runModel(const Model &m,
                                       const std::vector<Floats> &inputs) {
  return runEngine(load(m.bytes()), inputs);
}

/// Session::create's status for (possibly malformed) artifact bytes.
Status prepare(const Bytes &bytes) {
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

/// Row-major strides.
Shape strides(const Shape &shape) {
  Shape s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    s[d - 1] = s[d] * shape[d];
  return s;
}

/// Multi-index of flat index i.
Shape unravel(int64_t i, const Shape &shape) {
  Shape idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? i % shape[d] : 0;
    i = shape[d] ? i / shape[d] : 0;
  }
  return idx;
}

int64_t ravel(const Shape &idx, const Shape &shape) {
  int64_t i = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    i = i * shape[d] + idx[d];
  return i;
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

struct Conv2d {
  int64_t stride[2] = {1, 1}, pad[2] = {0, 0}, dilation[2] = {1, 1};
  int64_t groups = 1;
};

Floats convRef(const Floats &x, const Shape &xs, const Floats &w,
               const Shape &ws, const Floats *bias, const Conv2d &c,
               const Shape &ys) {
  Floats y(size_t(count(ys)));
  int64_t cinG = ws[1], coutG = ys[1] / c.groups;
  for (int64_t n = 0; n < ys[0]; ++n)
    for (int64_t co = 0; co < ys[1]; ++co)
      for (int64_t oh = 0; oh < ys[2]; ++oh)
        for (int64_t ow = 0; ow < ys[3]; ++ow) {
          double acc = bias ? (*bias)[co] : 0.0;
          int64_t g = co / coutG;
          for (int64_t ci = 0; ci < cinG; ++ci)
            for (int64_t kh = 0; kh < ws[2]; ++kh)
              for (int64_t kw = 0; kw < ws[3]; ++kw) {
                int64_t ih = oh * c.stride[0] - c.pad[0] + kh * c.dilation[0];
                int64_t iw = ow * c.stride[1] - c.pad[1] + kw * c.dilation[1];
                if (ih < 0 || ih >= xs[2] || iw < 0 || iw >= xs[3])
                  continue;
                acc += x[ravel({n, g * cinG + ci, ih, iw}, xs)] *
                       w[ravel({co, ci, kh, kw}, ws)];
              }
          y[ravel({n, co, oh, ow}, ys)] = float(acc);
        }
  return y;
}

Floats convTransposeRef(const Floats &x, const Shape &xs, const Floats &w,
                        const Shape &ws, const Floats *bias, const Conv2d &c,
                        const Shape &ys) {
  std::vector<double> y(size_t(count(ys)), 0.0);
  int64_t cinG = xs[1] / c.groups, coutG = ws[1];
  for (int64_t n = 0; n < xs[0]; ++n)
    for (int64_t ci = 0; ci < xs[1]; ++ci)
      for (int64_t ih = 0; ih < xs[2]; ++ih)
        for (int64_t iw = 0; iw < xs[3]; ++iw) {
          int64_t g = ci / cinG;
          for (int64_t cg = 0; cg < coutG; ++cg)
            for (int64_t kh = 0; kh < ws[2]; ++kh)
              for (int64_t kw = 0; kw < ws[3]; ++kw) {
                int64_t oh = ih * c.stride[0] - c.pad[0] + kh * c.dilation[0];
                int64_t ow = iw * c.stride[1] - c.pad[1] + kw * c.dilation[1];
                if (oh < 0 || oh >= ys[2] || ow < 0 || ow >= ys[3])
                  continue;
                y[ravel({n, g * coutG + cg, oh, ow}, ys)] +=
                    double(x[ravel({n, ci, ih, iw}, xs)]) *
                    w[ravel({ci, cg, kh, kw}, ws)];
              }
        }
  Floats out(y.size());
  for (size_t i = 0; i < y.size(); ++i)
    out[i] = float(y[i] + (bias ? (*bias)[unravel(int64_t(i), ys)[1]] : 0.0));
  return out;
}

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

/// PyTorch max_pool2d / avg_pool2d on (N, C, H, W).
Floats poolRef(const Floats &x, const Shape &xs, const Pool2d &p,
               const Shape &ys) {
  Floats y(size_t(count(ys)));
  for (int64_t nc = 0; nc < xs[0] * xs[1]; ++nc)
    for (int64_t oh = 0; oh < ys[2]; ++oh)
      for (int64_t ow = 0; ow < ys[3]; ++ow) {
        const float *xc = x.data() + nc * xs[2] * xs[3];
        float &out = y[size_t((nc * ys[2] + oh) * ys[3] + ow)];
        if (p.isMax) {
          float best = -std::numeric_limits<float>::infinity();
          for (int64_t kh = 0; kh < p.kernel[0]; ++kh)
            for (int64_t kw = 0; kw < p.kernel[1]; ++kw) {
              int64_t ih = oh * p.stride[0] - p.padLo[0] + kh * p.dilation[0];
              int64_t iw = ow * p.stride[1] - p.padLo[1] + kw * p.dilation[1];
              if (ih >= 0 && ih < xs[2] && iw >= 0 && iw < xs[3])
                best = std::max(best, xc[ih * xs[3] + iw]);
            }
          out = best;
          continue;
        }
        int64_t hs = oh * p.stride[0] - p.padLo[0],
                ws = ow * p.stride[1] - p.padLo[1];
        int64_t he = std::min(hs + p.kernel[0], xs[2] + p.padHi[0]),
                we = std::min(ws + p.kernel[1], xs[3] + p.padHi[1]);
        int64_t padded = (he - hs) * (we - ws);
        hs = std::max<int64_t>(hs, 0);
        ws = std::max<int64_t>(ws, 0);
        he = std::min(he, xs[2]);
        we = std::min(we, xs[3]);
        double sum = 0;
        for (int64_t ih = hs; ih < he; ++ih)
          for (int64_t iw = ws; iw < we; ++iw)
            sum += xc[ih * xs[3] + iw];
        int64_t divisor = p.divisorOverride   ? p.divisorOverride
                          : p.countIncludePad ? padded
                                              : (he - hs) * (we - ws);
        out = float(sum / double(divisor));
      }
  return y;
}

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

/// q (B, L, E), k (B, S, E), v (B, S, Ev); mask (B, L, S) as bool (keep
/// where != 0) or additive float; null for none.
Floats attentionRef(const Floats &q, const Floats &k, const Floats &v,
                    int64_t batch, int64_t l, int64_t s, int64_t e, int64_t ev,
                    const Floats *mask, bool maskBool, bool causal,
                    double scale) {
  Floats y(size_t(batch * l * ev));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < l; ++i) {
      std::vector<double> score(static_cast<size_t>(s), 0.0);
      double mx = -INFINITY;
      for (int64_t j = 0; j < s; ++j) {
        double dot = 0;
        for (int64_t t = 0; t < e; ++t)
          dot += double(q[size_t((b * l + i) * e + t)]) *
                 k[size_t((b * s + j) * e + t)];
        dot *= scale;
        if (mask) {
          float m = (*mask)[size_t((b * l + i) * s + j)];
          if (maskBool && m == 0.0f)
            dot = -INFINITY;
          else if (!maskBool)
            dot += m;
        }
        if (causal && j > i)
          dot = -INFINITY;
        score[size_t(j)] = dot;
        mx = std::max(mx, dot);
      }
      double sum = 0;
      for (double &sc : score)
        sum += sc = std::exp(sc - mx);
      for (int64_t t = 0; t < ev; ++t) {
        double acc = 0;
        for (int64_t j = 0; j < s; ++j)
          acc += score[size_t(j)] / sum * v[size_t((b * s + j) * ev + t)];
        y[size_t((b * l + i) * ev + t)] = float(acc);
      }
    }
  return y;
}

/// First key of query i's NATTEN window (see Kernels.h).
int64_t nattenStart(int64_t i, int64_t length, int64_t kernel,
                    int64_t dilation) {
  int64_t g = i % dilation;
  int64_t lg = (length - g + dilation - 1) / dilation;
  int64_t start =
      std::clamp(i / dilation - kernel / 2, int64_t(0), lg - kernel);
  return start * dilation + g;
}

/// Unpartitioned neighborhood attention, (B, spatial..., H, D).
Floats neighborhoodRef(const Floats &q, const Floats &k, const Floats &v,
                       const Shape &shape, const Shape &kernel,
                       const Shape &dilation, double scale) {
  size_t r = kernel.size();
  Shape spatial(shape.begin() + 1, shape.end() - 2);
  int64_t heads = shape[r + 1], dim = shape[r + 2];
  Floats y(q.size());
  int64_t windowSize = count(kernel);
  for (int64_t b = 0; b < shape[0]; ++b)
    for (int64_t p = 0; p < count(spatial); ++p)
      for (int64_t h = 0; h < heads; ++h) {
        Shape qi = unravel(p, spatial);
        auto index = [&](const Shape &pos, int64_t t) {
          Shape full = {b};
          full.insert(full.end(), pos.begin(), pos.end());
          full.push_back(h);
          full.push_back(t);
          return size_t(ravel(full, shape));
        };
        std::vector<Shape> keys;
        std::vector<double> score;
        double mx = -INFINITY;
        for (int64_t w = 0; w < windowSize; ++w) {
          Shape off = unravel(w, kernel), key(r);
          for (size_t d = 0; d < r; ++d)
            key[d] = nattenStart(qi[d], spatial[d], kernel[d], dilation[d]) +
                     off[d] * dilation[d];
          double dot = 0;
          for (int64_t t = 0; t < dim; ++t)
            dot += double(q[index(qi, t)]) * k[index(key, t)];
          keys.push_back(key);
          score.push_back(dot * scale);
          mx = std::max(mx, dot * scale);
        }
        double sum = 0;
        for (double &sc : score)
          sum += sc = std::exp(sc - mx);
        for (int64_t t = 0; t < dim; ++t) {
          double acc = 0;
          for (size_t w = 0; w < keys.size(); ++w)
            acc += score[w] / sum * v[index(keys[w], t)];
          y[index(qi, t)] = float(acc);
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

TEST(EngineRun, ConvReluBiasSumChain) {
  std::mt19937 rng(1);
  Shape xs = {2, 2, 6, 5}, ws = {3, 2, 3, 3}, ys = {2, 3, 6, 5},
        shiftShape = {3, 1, 1};
  Floats w = randomFloats(size_t(count(ws)), rng), bias = randomFloats(3, rng),
         x = randomFloats(size_t(count(xs)), rng), shift = randomFloats(3, rng);
  Model m;
  uint32_t xSlot = m.input("x", xs);
  uint32_t shiftSlot = m.input("shift", shiftShape);
  uint32_t wSlot = m.constant("conv.w", ws, w);
  uint32_t bSlot = m.constant("conv.b", {3}, bias);
  uint32_t conv = m.slot(ys), relu = m.slot(ys);
  uint32_t added = m.output("added", ys);
  uint32_t sum = m.output("sum", {2, 3});
  m.op(Opcode::Conv, {xSlot, wSlot, bSlot}, {conv}, {2, 1, 1, 1, 1, 1, 1, 1});
  m.op(Opcode::Unary, {conv}, {relu}, {}, {}, "relu");
  m.op(Opcode::Binary, {relu, shiftSlot}, {added}, {}, {}, "add");
  m.op(Opcode::Reduce, {added}, {sum}, {2, 3}, {}, "sum");
  StatusOr<std::vector<Floats>> out = runModel(m, {x, shift});
  ASSERT_TRUE(out.ok()) << out.status().toString();

  Conv2d c;
  c.pad[0] = c.pad[1] = 1;
  Floats expected = convRef(x, xs, w, ws, &bias, c, ys);
  Floats sums(6, 0.0f);
  for (int64_t i = 0; i < count(ys); ++i) {
    Shape idx = unravel(i, ys);
    float &v = expected[size_t(i)];
    v = std::max(v, 0.0f) + shift[size_t(idx[1])];
    sums[size_t(idx[0] * 3 + idx[1])] += v;
  }
  EXPECT_TRUE(close((*out)[0], expected));
  EXPECT_TRUE(close((*out)[1], sums));
}

TEST(EngineRun, ConvStridedDilatedGroupedAndTransposed) {
  std::mt19937 rng(2);
  {
    Shape xs = {1, 4, 7, 8}, ws = {6, 2, 3, 2}, ys = {1, 6, 3, 4};
    Floats x = randomFloats(size_t(count(xs)), rng),
           w = randomFloats(size_t(count(ws)), rng);
    // stride (2, 2), pad (1, 0), dilation (2, 1), groups 2, no bias.
    OpCase op{Opcode::Conv, {{xs}, {ws}}, {ys}, {2, 2, 2, 1, 0, 2, 1, 2}};
    Conv2d c;
    c.stride[0] = c.stride[1] = 2;
    c.pad[0] = 1;
    c.dilation[0] = 2;
    c.groups = 2;
    EXPECT_TRUE(close(op.run({x, w}), convRef(x, xs, w, ws, nullptr, c, ys)));
  }
  {
    // 1-D conv with bias: (N, C, L).
    Shape xs = {2, 3, 9}, ws = {2, 3, 3}, ys = {2, 2, 4};
    Floats x = randomFloats(size_t(count(xs)), rng),
           w = randomFloats(size_t(count(ws)), rng), b = randomFloats(2, rng);
    OpCase op{Opcode::Conv, {{xs}, {ws}, {{2}}}, {ys}, {1, 2, 0, 1, 1}};
    Conv2d c;
    c.stride[1] = 2;
    Shape xs4 = {2, 3, 1, 9}, ws4 = {2, 3, 1, 3}, ys4 = {2, 2, 1, 4};
    EXPECT_TRUE(close(op.run({x, w, b}), convRef(x, xs4, w, ws4, &b, c, ys4)));
  }
  {
    // conv_transpose2d: stride 2, padding 1, output_padding 1, groups 2.
    Shape xs = {1, 4, 3, 3}, ws = {4, 1, 3, 3}, ys = {1, 2, 6, 6};
    Floats x = randomFloats(size_t(count(xs)), rng),
           w = randomFloats(size_t(count(ws)), rng), b = randomFloats(2, rng);
    OpCase op{Opcode::ConvTranspose,
              {{xs}, {ws}, {{2}}},
              {ys},
              {2, 2, 2, 1, 1, 1, 1, 2}};
    Conv2d c;
    c.stride[0] = c.stride[1] = 2;
    c.pad[0] = c.pad[1] = 1;
    c.groups = 2;
    EXPECT_TRUE(
        close(op.run({x, w, b}), convTransposeRef(x, xs, w, ws, &b, c, ys)));
  }
}

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

TEST(EngineRun, Pooling) {
  std::mt19937 rng(10);
  Shape xs = {2, 3, 7, 6};
  Floats x = randomFloats(size_t(count(xs)), rng);
  {
    // max_pool2d(kernel 3, stride 2, padding 1, dilation (1, 2)).
    Pool2d p;
    p.kernel[0] = p.kernel[1] = 3;
    p.stride[0] = p.stride[1] = 2;
    p.padLo[0] = p.padLo[1] = p.padHi[0] = p.padHi[1] = 1;
    p.dilation[1] = 2;
    Shape ys = {2, 3, 4, 2};
    OpCase op{Opcode::Pool, {{xs}}, {ys}, p.ints(), {}, "max"};
    EXPECT_EQ(op.run({x}), poolRef(x, xs, p, ys));
  }
  for (bool include : {true, false}) {
    // avg_pool2d(kernel (3, 2), stride (2, 2), padding (1, 1)).
    Pool2d p;
    p.isMax = false;
    p.kernel[0] = 3;
    p.kernel[1] = 2;
    p.stride[0] = p.stride[1] = 2;
    p.padLo[0] = p.padLo[1] = p.padHi[0] = p.padHi[1] = 1;
    p.countIncludePad = include;
    Shape ys = {2, 3, 4, 4};
    OpCase op{Opcode::Pool, {{xs}}, {ys}, p.ints(), {}, "avg"};
    EXPECT_TRUE(close(op.run({x}), poolRef(x, xs, p, ys)))
        << "count_include_pad " << include;
  }
  {
    Pool2d p;
    p.isMax = false;
    p.kernel[0] = p.kernel[1] = 2;
    p.stride[0] = p.stride[1] = 2;
    p.divisorOverride = 3;
    Shape ys = {2, 3, 3, 3};
    OpCase op{Opcode::Pool, {{xs}}, {ys}, p.ints(), {}, "avg"};
    EXPECT_TRUE(close(op.run({x}), poolRef(x, xs, p, ys)));
  }
}

TEST(EngineRun, Interpolate) {
  std::mt19937 rng(11);
  Shape xs = {1, 2, 3, 4};
  Floats x = randomFloats(24, rng);
  auto nearest = [&](const Shape &ys, double sh, double sw, bool exact) {
    Floats y(size_t(count(ys)));
    for (int64_t i = 0; i < count(ys); ++i) {
      Shape o = unravel(i, ys);
      auto src = [&](int64_t v, double s, int64_t n) {
        // In float, as PyTorch (and the kernel) compute it.
        float sf = float(s);
        double f = exact ? std::floor(float((double(v) + 0.5) * sf))
                         : std::floor(float(v) * sf);
        return std::min<int64_t>(int64_t(f), n - 1);
      };
      y[size_t(i)] = x[size_t(
          ravel({o[0], o[1], src(o[2], sh, xs[2]), src(o[3], sw, xs[3])}, xs))];
    }
    return y;
  };
  {
    Shape ys = {1, 2, 6, 8};
    OpCase op{Opcode::Interpolate,      {{xs}},     {ys},
              {2, 0, 0, 0, 0, 0, 3, 4}, {0.5, 0.5}, "nearest"};
    EXPECT_EQ(op.run({x}), nearest(ys, 0.5, 0.5, false));
    // Downsampling with a non-integer scale, nearest-exact.
    Shape ds = {1, 2, 2, 3};
    OpCase down{Opcode::Interpolate,      {{xs}},           {ds},
                {2, 0, 0, 0, 0, 0, 3, 4}, {1.5, 4.0 / 3.0}, "nearest-exact"};
    EXPECT_EQ(down.run({x}), nearest(ds, 1.5, 4.0 / 3.0, true));
  }
  for (bool align : {false, true}) {
    // Bilinear to (5, 7).
    Shape ys = {1, 2, 5, 7};
    double sh = align ? 2.0 / 4.0 : 3.0 / 5.0,
           sw = align ? 3.0 / 6.0 : 4.0 / 7.0;
    Floats expected(size_t(count(ys)));
    for (int64_t i = 0; i < count(ys); ++i) {
      Shape o = unravel(i, ys);
      auto taps = [&](int64_t v, double s, int64_t n, int64_t &i0, int64_t &i1,
                      double &l) {
        double real = align ? v * s : std::max(0.0, (v + 0.5) * s - 0.5);
        i0 = std::min<int64_t>(int64_t(std::floor(real)), n - 1);
        i1 = std::min<int64_t>(i0 + 1, n - 1);
        l = real - double(i0);
      };
      int64_t h0, h1, w0, w1;
      double lh, lw;
      taps(o[2], sh, 3, h0, h1, lh);
      taps(o[3], sw, 4, w0, w1, lw);
      auto at = [&](int64_t h, int64_t w) {
        return double(x[size_t(ravel({0, o[1], h, w}, xs))]);
      };
      expected[size_t(i)] =
          float((1 - lh) * ((1 - lw) * at(h0, w0) + lw * at(h0, w1)) +
                lh * ((1 - lw) * at(h1, w0) + lw * at(h1, w1)));
    }
    OpCase op{Opcode::Interpolate,          {{xs}},   {ys},
              {2, align, 0, 0, 0, 0, 3, 4}, {sh, sw}, "linear"};
    EXPECT_TRUE(close(op.run({x}), expected, 1e-5f)) << "align " << align;
  }
}

TEST(EngineRun, Attention) {
  std::mt19937 rng(12);
  // q (2, 3, 4, 5), k (2, 3, 6, 5), v (2, 3, 6, 3).
  int64_t nb = 6, l = 4, s = 6, e = 5, ev = 3;
  Floats q = randomFloats(size_t(nb * l * e), rng),
         k = randomFloats(size_t(nb * s * e), rng),
         v = randomFloats(size_t(nb * s * ev), rng);
  Shape qs = {2, 3, l, e}, ks = {2, 3, s, e}, vs = {2, 3, s, ev},
        ys = {2, 3, l, ev};
  double scale = 0.37;
  {
    OpCase op{Opcode::Attention, {{qs}, {ks}, {vs}}, {ys}, {0, 0}, {scale}};
    EXPECT_TRUE(
        close(op.run({q, k, v}), attentionRef(q, k, v, nb, l, s, e, ev, nullptr,
                                              false, false, scale)));
    OpCase causal{Opcode::Attention, {{qs}, {ks}, {vs}}, {ys}, {1, 0}, {scale}};
    EXPECT_TRUE(close(
        causal.run({q, k, v}),
        attentionRef(q, k, v, nb, l, s, e, ev, nullptr, false, true, scale)));
  }
  {
    // Bool mask (2, 1, l, s): materialised to every head.
    Shape ms = {2, 1, l, s};
    Floats mask(size_t(count(ms)));
    std::bernoulli_distribution keep(0.6);
    for (int64_t i = 0; i < count(ms); ++i)
      mask[size_t(i)] = unravel(i, ms)[3] == 0 || keep(rng);
    Floats full(size_t(nb * l * s));
    for (int64_t i = 0; i < int64_t(full.size()); ++i) {
      Shape idx = unravel(i, {2, 3, l, s});
      full[size_t(i)] = mask[size_t(ravel({idx[0], 0, idx[2], idx[3]}, ms))];
    }
    OpCase op{
        Opcode::Attention, {{qs}, {ks}, {vs}, {ms, I1}}, {ys}, {0, 1}, {scale}};
    EXPECT_TRUE(close(
        op.run({q, k, v, mask}),
        attentionRef(q, k, v, nb, l, s, e, ev, &full, true, false, scale)));
  }
  {
    // Float mask (l, s) shared by every batch entry, with is_causal.
    Floats mask = randomFloats(size_t(l * s), rng, -2.0f, 2.0f);
    Floats full;
    for (int64_t b = 0; b < nb; ++b)
      full.insert(full.end(), mask.begin(), mask.end());
    OpCase op{
        Opcode::Attention, {{qs}, {ks}, {vs}, {{l, s}}}, {ys}, {1, 1}, {scale}};
    EXPECT_TRUE(close(
        op.run({q, k, v, mask}),
        attentionRef(q, k, v, nb, l, s, e, ev, &full, false, true, scale)));
  }
}

TEST(EngineRun, NeighborhoodAttention) {
  std::mt19937 rng(13);
  {
    // 1-D: (B 2, L 9, H 2, D 3), kernel 3, dilation 2.
    Shape shape = {2, 9, 2, 3};
    Floats q = randomFloats(size_t(count(shape)), rng),
           k = randomFloats(size_t(count(shape)), rng),
           v = randomFloats(size_t(count(shape)), rng);
    OpCase op{Opcode::NeighborhoodAttention,
              {{shape}, {shape}, {shape}},
              {shape},
              {1, 3, 2, 0, 0, 9},
              {0.5}};
    EXPECT_TRUE(close(op.run({q, k, v}),
                      neighborhoodRef(q, k, v, shape, {3}, {2}, 0.5)));
  }
  {
    // 2-D: (1, 5, 6, 1, 4), kernel (3, 5), dilation (1, 1).
    Shape shape = {1, 5, 6, 1, 4};
    Floats q = randomFloats(size_t(count(shape)), rng),
           k = randomFloats(size_t(count(shape)), rng),
           v = randomFloats(size_t(count(shape)), rng);
    OpCase op{Opcode::NeighborhoodAttention,
              {{shape}, {shape}, {shape}},
              {shape},
              {2, 3, 5, 1, 1, 0, 0, 0, 0, 5, 6},
              {0.25}};
    EXPECT_TRUE(close(op.run({q, k, v}),
                      neighborhoodRef(q, k, v, shape, {3, 5}, {1, 1}, 0.25)));
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

//===----------------------------------------------------------------------===//
// Engine and Session API
//===----------------------------------------------------------------------===//

/// y = 2 * x + 1 on (2, 3) with a (2, 3) intermediate.
Model affineModel() {
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

Floats affine(const Floats &x) {
  Floats y(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    y[i] = 2 * x[i] + 1;
  return y;
}

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

/// Mesh {"x": 2}; each rank fills its half of a (4,) output.
Bytes twoRankArtifact() {
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
    rc.arenaBytes = 64;
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
    w.addRankClass(rc);
  }
  StatusOr<Bytes> b = w.serialize();
  EXPECT_TRUE(b.ok()) << b.status().toString();
  return b.ok() ? *b : Bytes();
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

//===----------------------------------------------------------------------===//
// Malformed programs are rejected when a session is prepared
//===----------------------------------------------------------------------===//

TEST(EnginePrepare, WrongNumberOfInts) {
  Shape s = {2, 3};
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Softmax, {{s}}, {s}, {1}}.prepareStatus()),
               kInvalid, {"instruction 0 (Softmax)", "integer attributes"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Softmax, {{s}}, {s}, {1, 0, 0}}.prepareStatus()),
               kInvalid, {"has 3 integer attributes"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Permute, {{s}}, {{3, 2}}, {1}}.prepareStatus()),
               kInvalid, {"(Permute)", "integer attributes"}));
  EXPECT_TRUE(rejected((OpCase{Opcode::Conv,
                               {{{1, 1, 4, 4}}, {{1, 1, 3, 3}}},
                               {{1, 1, 2, 2}},
                               {2, 1, 1, 0, 0, 1, 1}}
                            .prepareStatus()),
                       kInvalid, {"(Conv)", "integer attributes"}));
  EXPECT_TRUE(rejected((OpCase{Opcode::Attention,
                               {{{2, 3}}, {{2, 3}}, {{2, 3}}},
                               {{2, 3}},
                               {0},
                               {1.0}}
                            .prepareStatus()),
                       kInvalid, {"(Attention)", "integer attributes"}));
}

TEST(EnginePrepare, WrongOutputShapes) {
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Unary, {{{2, 3}}}, {{2, 4}}, {}, {}, "relu"}
                    .prepareStatus()),
               kInvalid, {"instruction 0 (Unary)", "(2, 4)", "(2, 3)"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Matmul, {{{2, 3}}, {{3, 4}}}, {{2, 5}}}.prepareStatus()),
      kInvalid, {"(Matmul)", "shape"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Matmul, {{{2, 3}}, {{4, 4}}}, {{2, 4}}}.prepareStatus()),
      kInvalid, {"(Matmul)", "contracts"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Binary, {{{2, 3}}, {{4}}}, {{2, 3}}, {}, {}, "add"}
           .prepareStatus()),
      kInvalid, {"(Binary)", "broadcast"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Copy, {{{2, 3}}}, {{7}}}.prepareStatus()),
               kInvalid, {"(Copy)", "element counts"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Reduce, {{{2, 3}}}, {{3}}, {1}, {}, "sum"}
                    .prepareStatus()),
               kInvalid, {"(Reduce)", "elements"}));
  EXPECT_TRUE(rejected((OpCase{Opcode::Pool,
                               {{{1, 2, 4, 4}}},
                               {{1, 3, 2, 2}},
                               Pool2d().ints(),
                               {},
                               "max"}
                            .prepareStatus()),
                       kInvalid, {"(Pool)", "channels"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Concat, {{{2, 3}}, {{2, 2}}}, {{2, 6}}, {1}}
                    .prepareStatus()),
               kInvalid, {"(Concat)", "sum to 5"}));
  EXPECT_TRUE(rejected(
      (OpCase{
          Opcode::Pad, {{{2, 3}}}, {{3, 3}}, {0, 0, 0, 0}, {0.0}, "constant"}
           .prepareStatus()),
      kInvalid, {"(Pad)", "shape"}));
  // The error names the failing instruction, not the first.
  Model m;
  uint32_t x = m.input("x", {4});
  uint32_t t = m.slot({4});
  uint32_t y = m.output("y", {5});
  m.op(Opcode::Unary, {x}, {t}, {}, {}, "neg");
  m.op(Opcode::Unary, {t}, {y}, {}, {}, "neg");
  EXPECT_TRUE(rejected(prepare(m.unchecked()), kInvalid,
                       {"rank class 'all' instruction 1 (Unary)"}));
}

TEST(EnginePrepare, OutOfRangeDims) {
  Shape s = {2, 3};
  for (OpCase op : {
           OpCase{Opcode::Softmax, {{s}}, {s}, {2, 0}},
           OpCase{Opcode::Softmax, {{s}}, {s}, {-1, 0}},
           OpCase{Opcode::Reduce, {{s}}, {{2}}, {2}, {}, "sum"},
           OpCase{Opcode::Reduce, {{s}}, {{2}}, {1, 1}, {}, "sum"},
           OpCase{Opcode::Permute, {{s}}, {{3, 2}}, {1, 1}},
           OpCase{Opcode::Permute, {{s}}, {{3, 2}}, {1, 2}},
           OpCase{Opcode::Concat, {{s}}, {s}, {2}},
           OpCase{Opcode::Slice, {{s}}, {{1, 2}}, {2, 0, 1, 1}},
           OpCase{Opcode::Slice, {{s}}, {{2, 2}}, {0, 0, 1, 0}},
           OpCase{Opcode::Slice, {{s}}, {{1, 3}}, {0, 1, 1, 1}},
           OpCase{Opcode::Norm, {{s}}, {s}, {0, 0, 3}, {1e-5}, "layer"},
           OpCase{Opcode::Norm,
                  {{{2, 4, 3}}},
                  {{2, 4, 3}},
                  {0, 0, 3},
                  {1e-5},
                  "group"},
           OpCase{Opcode::Pad, {{s}}, {{2, 9}}, {0, 3, 0, 3}, {0.0}, "reflect"},
           OpCase{
               Opcode::Pad, {{s}}, {{0, 3}}, {-2, 0, -1, 0}, {0.0}, "constant"},
           OpCase{Opcode::Conv,
                  {{{1, 1, 4, 4}}, {{1, 1, 3, 3}}},
                  {{1, 1, 2, 2}},
                  {2, 0, 1, 0, 0, 1, 1, 1}},
           OpCase{Opcode::Conv,
                  {{{1, 1, 4, 4}}, {{1, 1, 3, 3}}},
                  {{1, 1, 2, 2}},
                  {4, 1, 1, 0, 0, 1, 1, 1}},
           OpCase{Opcode::Pool,
                  {{{1, 1, 4, 4}}},
                  {{1, 1, 2, 2}},
                  {2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 1, 0, 0},
                  {},
                  "max"},
           OpCase{Opcode::Interpolate,
                  {{{1, 1, 2, 2}}},
                  {{1, 1, 4, 4}},
                  {2, 0, 0, 0, -1, 0, 2, 2},
                  {0.5, 0.5},
                  "nearest"},
           OpCase{Opcode::Interpolate,
                  {{{1, 1, 2, 2}}},
                  {{1, 1, 4, 4}},
                  {2, 0, 0, 0, 0, 0, 2, 2},
                  {0.5, NAN},
                  "nearest"},
       })
    EXPECT_EQ(op.prepareStatus().code(), kInvalid)
        << fb::EnumNameOpcode(op.opcode) << ": "
        << op.prepareStatus().toString();
}

TEST(EnginePrepare, UnknownStrKinds) {
  Shape s = {1, 2, 4, 4};
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Unary, {{s}}, {s}, {}, {}, "frobnicate"}.prepareStatus()),
      kInvalid, {"(Unary)", "unknown unary op 'frobnicate'"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Binary, {{s}, {s}}, {s}, {}, {}, "xor"}.prepareStatus()),
      kInvalid, {"(Binary)", "'xor'"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Compare, {{s}, {s}}, {s, I1}, {}, {}, "add"}
                    .prepareStatus()),
               kInvalid, {"(Compare)", "'add'"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Reduce, {{s}}, {{1}}, {0, 1, 2, 3}, {}, "prod"}
                    .prepareStatus()),
               kInvalid, {"(Reduce)", "'prod'"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Pool, {{s}}, {s}, Pool2d().ints(), {}, "median"}
                    .prepareStatus()),
               kInvalid, {"(Pool)", "'median'"}));
  EXPECT_TRUE(rejected((OpCase{Opcode::Interpolate,
                               {{s}},
                               {s},
                               {2, 0, 0, 0, 0, 0, 4, 4},
                               {1.0, 1.0},
                               "cubic"}
                            .prepareStatus()),
                       kInvalid, {"(Interpolate)", "'cubic'"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Pad, {{s}}, {s}, Shape(8, 0), {0.0}, "mirror"}
                    .prepareStatus()),
               kInvalid, {"(Pad)", "'mirror'"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Norm, {{s}}, {s}, {0, 0, 1}, {1e-5}, "instance"}
                    .prepareStatus()),
               kInvalid, {"(Norm)", "'instance'"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Unary, {{s}}, {s}, {}, {}, ""}.prepareStatus()),
               kInvalid, {"(Unary)", "unknown"}));
}

TEST(EnginePrepare, OperandsAndAttributes) {
  Shape s = {2, 3};
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Binary, {{s}}, {s}, {}, {}, "add"}.prepareStatus()),
      kInvalid, {"(Binary)", "has 1 inputs; expected 2"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Fill, {{s}}, {s}, {}, {1.0}}.prepareStatus()),
               kInvalid, {"(Fill)", "inputs"}));
  EXPECT_TRUE(rejected((OpCase{Opcode::Fill, {}, {s}}.prepareStatus()),
                       kInvalid, {"(Fill)", "fill value"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Norm, {{s}}, {s}, {0, 0, 1}, {NAN}, "layer"}
                    .prepareStatus()),
               kInvalid, {"(Norm)", "eps"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Norm, {{s}}, {s}, {1, 0, 1}, {1e-5}, "layer"}
                    .prepareStatus()),
               kInvalid, {"(Norm)", "has_weight"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Attention, {{s}, {s}, {s}}, {s}, {0, 1}, {1.0}}
                    .prepareStatus()),
               kInvalid, {"(Attention)", "has_mask"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Attention, {{s}, {s}, {s}}, {s}, {0, 0}, {INFINITY}}
           .prepareStatus()),
      kInvalid, {"(Attention)", "scale"}));
  // The CPU backend computes in f32: other dtypes are Unimplemented.
  EXPECT_TRUE(rejected((OpCase{Opcode::Unary,
                               {{s, fb::DType::F64}},
                               {s, fb::DType::F64},
                               {},
                               {},
                               "neg"}
                            .prepareStatus()),
                       StatusCode::Unimplemented, {"(Unary)", "F64"}));
  // Operands must be tensors, not scratch space.
  Model m;
  uint32_t x = m.input("x", {4});
  uint32_t scratch = m.scratch(64);
  m.output("y", {4});
  m.op(Opcode::Unary, {x}, {scratch}, {}, {}, "neg");
  EXPECT_TRUE(
      rejected(prepare(m.unchecked()), kInvalid, {"(Unary)", "scratch space"}));
}

TEST(EnginePrepare, InstructionsMayNotWriteInputsOrConstants) {
  {
    Model m;
    uint32_t x = m.input("x", {4});
    uint32_t y = m.output("y", {4});
    m.op(Opcode::Fill, {}, {x}, {}, {1.0});
    m.op(Opcode::Copy, {x}, {y});
    EXPECT_TRUE(rejected(prepare(m.unchecked()), kInvalid,
                         {"instruction 0 (Fill)", "writes slot 0",
                          "constant or a model input"}));
  }
  {
    Model m;
    uint32_t x = m.input("x", {4});
    uint32_t c = m.constant("c", {4}, {1, 2, 3, 4});
    uint32_t y = m.output("y", {4});
    m.op(Opcode::Binary, {x, c}, {y}, {}, {}, "add");
    m.op(Opcode::Unary, {y}, {c}, {}, {}, "neg");
    EXPECT_TRUE(rejected(prepare(m.unchecked()), kInvalid,
                         {"instruction 1 (Unary)", "writes slot 1"}));
  }
}

TEST(EnginePrepare, NeighborhoodWindowsMustBeLocal) {
  // The local tensors hold keys [0, 4) of a global length of 8: query 3's
  // window [2, 4] needs key 4.
  Shape q = {1, 4, 1, 2};
  OpCase op{Opcode::NeighborhoodAttention,
            {{q}, {q}, {q}},
            {q},
            {1, 3, 1, 0, 0, 8},
            {1.0}};
  EXPECT_TRUE(rejected(
      op.prepareStatus(), kInvalid,
      {"(NeighborhoodAttention)", "query 3", "outside the local keys"}));
  // Queries [4, 8) with keys [3, 7): query 6's window [5, 7] needs key 7.
  op.ints = {1, 3, 1, 4, 3, 8};
  EXPECT_TRUE(rejected(op.prepareStatus(), kInvalid, {"query 6"}));
  // Queries [4, 8) with keys [3, 8) is enough.
  Shape k = {1, 5, 1, 2};
  OpCase ok{Opcode::NeighborhoodAttention,
            {{q}, {k}, {k}},
            {q},
            {1, 3, 1, 4, 3, 8},
            {1.0}};
  EXPECT_TRUE(ok.prepareStatus().ok()) << ok.prepareStatus().toString();
  // Even kernels and kernels larger than the tensor.
  op.ints = {1, 2, 1, 0, 0, 4};
  EXPECT_TRUE(rejected(op.prepareStatus(), kInvalid, {"out of range"}));
  op.ints = {1, 5, 1, 0, 0, 4};
  EXPECT_TRUE(rejected(op.prepareStatus(), kInvalid, {"smaller than kernel"}));
}

TEST(EnginePrepare, ConvGroupsMustDivideChannels) {
  EXPECT_TRUE(rejected((OpCase{Opcode::Conv,
                               {{{1, 3, 4, 4}}, {{2, 1, 3, 3}}},
                               {{1, 2, 2, 2}},
                               {2, 1, 1, 0, 0, 1, 1, 2}}
                            .prepareStatus()),
                       kInvalid, {"(Conv)", "2 groups do not divide 3"}));
  EXPECT_TRUE(rejected((OpCase{Opcode::Conv,
                               {{{1, 4, 4, 4}}, {{3, 2, 3, 3}}},
                               {{1, 3, 2, 2}},
                               {2, 1, 1, 0, 0, 1, 1, 2}}
                            .prepareStatus()),
                       kInvalid, {"(Conv)", "groups do not divide"}));
  EXPECT_TRUE(rejected((OpCase{Opcode::Conv,
                               {{{1, 4, 4, 4}}, {{2, 4, 3, 3}}},
                               {{1, 2, 2, 2}},
                               {2, 1, 1, 0, 0, 1, 1, 2}}
                            .prepareStatus()),
                       kInvalid, {"(Conv)", "weight"}));
}

TEST(EnginePrepare, UnimplementedOpcodes) {
  // Generated kernels are not run by the CPU backend.
  Model m;
  uint32_t x = m.input("x", {4});
  uint32_t y = m.output("y", {4});
  m.kernelSymbols = {"fused_neg"};
  m.kernels = {{"x86_64", fb::KernelFormat::SharedObject, {0}, Bytes(16, 1)}};
  m.op(Opcode::ElementwiseFused, {x}, {y}).kernel = 0;
  EXPECT_TRUE(
      rejected(prepare(m.bytes()), StatusCode::Unimplemented,
               {"instruction 0 (ElementwiseFused)", "ElementwiseFused"}));
  // Kernel-only fused instructions are still checked first: a backend that
  // runs the kernel trusts their operands and header.
  for (Opcode opcode : {Opcode::ElementwiseFused, Opcode::ReductionFused}) {
    Model bad;
    uint32_t bx = bad.input("x", {4});
    uint32_t by = bad.output("y", {3});
    bad.kernelSymbols = {"fused"};
    bad.kernels = {
        {"x86_64", fb::KernelFormat::SharedObject, {0}, Bytes(16, 1)}};
    InstructionSpec &inst = bad.op(opcode, {bx}, {by});
    inst.kernel = 0;
    if (opcode == Opcode::ReductionFused)
      inst.ints = {1, 4, 1, 0}; // (4) reduced to one output, not 3
    EXPECT_TRUE(rejected(prepare(bad.bytes()), kInvalid,
                         {opcode == Opcode::ElementwiseFused
                              ? "does not broadcast"
                              : "reducing (4,) leaves 1"}));
  }
  // An all-to-all must say how it splits and concatenates, on two dims.
  Model c;
  uint32_t cx = c.input("x", {4, 2});
  uint32_t cy = c.output("y", {4, 2});
  c.op(Opcode::AllToAll, {cx}, {cy}).ints = {0, 4};
  EXPECT_TRUE(rejected(prepare(c.bytes()), kInvalid,
                       {"instruction 0 (AllToAll)", "integer"}));
  Model same;
  uint32_t sx = same.input("x", {4, 2});
  uint32_t sy = same.output("y", {4, 2});
  same.op(Opcode::AllToAll, {sx}, {sy}).ints = {1, 2, 1, 2};
  EXPECT_TRUE(rejected(prepare(same.bytes()), kInvalid,
                       {"instruction 0 (AllToAll)", "same dim 1"}));
  // A reduce-scatter must say how it splits.
  Model rs;
  uint32_t rx = rs.input("x", {4});
  uint32_t ry = rs.output("y", {4});
  rs.op(Opcode::ReduceScatter, {rx}, {ry}).reduce = fb::ReduceKind::Sum;
  EXPECT_TRUE(rejected(prepare(rs.bytes()), kInvalid,
                       {"instruction 0 (ReduceScatter)", "integer"}));
}

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
  EXPECT_TRUE(rejected(fused("relu cosh", {0, 1, 2}), kInvalid,
                       {"(ElementwiseFused)", "unknown function 'cosh'"}));
  EXPECT_TRUE(rejected(fused("relu neg", {0, 2, 2}), kInvalid,
                       {"step 1 reads register 2 of 2 defined"}));
  EXPECT_TRUE(
      rejected(fused("relu neg", {0, 1, 1}), kInvalid, {"yields register 1"}));
  EXPECT_TRUE(rejected(fused("add", {0}), kInvalid, {"integer"}));
  EXPECT_TRUE(rejected(fused("relu", {0, 1}, {2, 2}), kInvalid,
                       {"does not broadcast"}));
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

TEST(EnginePrepare, OverflowingAttributes) {
  // Values whose negation or sum overflows int64 are rejected, not computed.
  const int64_t kMin = std::numeric_limits<int64_t>::min(),
                kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(
      (OpCase{
          Opcode::Pad, {{{2, 3}}}, {{2, 3}}, {kMin, 0, 0, 0}, {0.0}, "constant"}
           .prepareStatus()
           .code()),
      kInvalid);
  Shape q = {1, 4, 1, 2};
  EXPECT_EQ((OpCase{Opcode::NeighborhoodAttention,
                    {{q}, {q}, {q}},
                    {q},
                    {1, 3, 1, kMax, 0, 8},
                    {1.0}}
                 .prepareStatus()
                 .code()),
            kInvalid);
  EXPECT_EQ(
      (OpCase{Opcode::Slice, {{{4}}}, {{1}}, {kMax, 1}}.prepareStatus().code()),
      kInvalid);
  // A pooling window far wider than the padded input (the max-pool kernel
  // would visit every tap of it).
  Pool2d p;
  p.kernel[0] = int64_t(1) << 30;
  EXPECT_TRUE(rejected(
      (OpCase{
          Opcode::Pool, {{{1, 1, 4, 4}}}, {{1, 1, 1, 4}}, p.ints(), {}, "max"}
           .prepareStatus()),
      kInvalid, {"(Pool)", "wider than the padded input"}));
  // ... but a ceil-mode window may overhang the padding by less than a
  // stride: kernel 3, stride 2 over 4 elements gives 2 windows.
  Pool2d ceil;
  ceil.kernel[1] = 3;
  ceil.stride[1] = 2;
  OpCase ceilOp{Opcode::Pool, {{{1, 1, 1, 4}}}, {{1, 1, 1, 2}}, ceil.ints(), {},
                "max"};
  EXPECT_EQ(ceilOp.run({{1, 5, 2, 7}}), (Floats{5, 7}));
}

TEST(EnginePrepare, SlotsMustBeAlignedAndBounded) {
  {
    // An f32 slot at an odd arena offset.
    Model m;
    uint32_t x = m.input("x", {4});
    uint32_t y = m.output("y", {4});
    m.op(Opcode::Unary, {x}, {y}, {}, {}, "neg");
    m.rc.buffers[y].offset += 2;
    EXPECT_TRUE(rejected(prepare(m.bytes()), kInvalid,
                         {"buffer slot 1", "not aligned"}));
  }
  {
    // A zero-sized slot holds no bytes whatever its other dims; dims
    // multiplying past 2^40 are refused.
    Model m;
    uint32_t x = m.input("x", {0, int64_t(1) << 62});
    uint32_t y = m.output("y", {0, int64_t(1) << 62});
    m.op(Opcode::Unary, {x}, {y}, {}, {}, "neg");
    EXPECT_TRUE(rejected(prepare(m.bytes()), kInvalid, {"2^40"}));
  }
  {
    // Below the bound a zero-sized output is a no-op: the interpolation
    // kernel is never asked to build tables for 2^30 output columns.
    Model m;
    uint32_t x = m.input("x", {1, 0, 2, 4});
    uint32_t y = m.output("y", {1, 0, 3, int64_t(1) << 30});
    m.op(Opcode::Interpolate, {x}, {y}, {2, 0, 0, 0, 0, 0, 2, 4}, {0.5, 0.5},
         "nearest");
    uint32_t z = m.output("z", {0, int64_t(1) << 30});
    m.op(Opcode::Fill, {}, {z}, {}, {1.0});
    StatusOr<std::vector<Floats>> out = runModel(m, {{}});
    ASSERT_TRUE(out.ok()) << out.status().toString();
    EXPECT_TRUE((*out)[0].empty());
  }
}

TEST(EnginePrepare, OutputsMayNotOverlapInputs) {
  Model m;
  uint32_t x = m.input("x", {8});
  uint32_t t = m.slot({8});
  uint32_t u = m.slot({10});
  uint32_t y = m.output("y", {10});
  m.op(Opcode::Copy, {x}, {t});
  m.op(Opcode::Pad, {t}, {u}, {1, 1}, {0.0}, "constant");
  m.op(Opcode::Copy, {u}, {y});
  m.rc.buffers[u].offset = m.rc.buffers[t].offset; // u overlaps t
  EXPECT_TRUE(rejected(prepare(m.bytes()), kInvalid,
                       {"instruction 1 (Pad)", "overlaps", "input slot 1"}));

  // Elementwise ops may write exactly over an input.
  Model e;
  uint32_t ex = e.input("x", {2, 3});
  uint32_t et = e.slot({2, 3});
  uint32_t eu = e.slot({2, 3});
  uint32_t ey = e.output("y", {2, 3});
  e.op(Opcode::Copy, {ex}, {et});
  e.op(Opcode::Unary, {et}, {eu}, {}, {}, "neg");
  e.op(Opcode::Binary, {eu, eu}, {ey}, {}, {}, "mul");
  e.rc.buffers[eu].offset = e.rc.buffers[et].offset;
  StatusOr<std::vector<Floats>> out = runModel(e, {{1, -2, 3, 4, 5, 6}});
  ASSERT_TRUE(out.ok()) << out.status().toString();
  EXPECT_EQ((*out)[0], (Floats{1, 4, 9, 16, 25, 36}));

  // So may a fused elementwise kernel: u = (t - w) * t over three tiles,
  // u written over t, w broadcast.
  Model f;
  const Shape shape = {3, 2000};
  uint32_t fx = f.input("x", shape), fw = f.input("w", {2000});
  uint32_t ft = f.slot(shape), fu = f.slot(shape);
  uint32_t fy = f.output("y", shape);
  f.op(Opcode::Copy, {fx}, {ft});
  InstructionSpec &body = f.op(Opcode::ElementwiseFused, {ft, fw}, {fu});
  body.str = "sub mul";
  body.ints = {0, 1, 2, 0, 3};
  f.op(Opcode::Copy, {fu}, {fy});
  f.rc.buffers[fu].offset = f.rc.buffers[ft].offset;
  Floats xs(6000), ws(2000);
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = float(int(i % 97) - 48) / 8.0f;
  for (size_t i = 0; i < ws.size(); ++i)
    ws[i] = float(int(i % 13) - 6) / 4.0f;
  out = runModel(f, {xs, ws});
  ASSERT_TRUE(out.ok()) << out.status().toString();
  for (size_t i = 0; i < xs.size(); ++i)
    ASSERT_EQ((*out)[0][i], (xs[i] - ws[i % 2000]) * xs[i]) << i;

  // A reduction reads other places than it writes: never in place, even
  // over exactly the input's bytes.
  Model r;
  uint32_t rx = r.input("x", {4, 1});
  uint32_t rt = r.slot({4, 1}), ru = r.slot({4});
  uint32_t ry = r.output("y", {4});
  r.op(Opcode::Copy, {rx}, {rt});
  InstructionSpec &sum = r.op(Opcode::ReductionFused, {rt}, {ru});
  sum.str = "sum";
  sum.ints = {2, 4, 1, 1, 1, 0};
  r.op(Opcode::Copy, {ru}, {ry});
  r.rc.buffers[ru].offset = r.rc.buffers[rt].offset;
  EXPECT_TRUE(rejected(prepare(r.bytes()), kInvalid,
                       {"instruction 1 (ReductionFused)", "overlaps"}));
}

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
          int64_t &v = inst.ints[rng() % inst.ints.size()];
          v = nastyInt(rng, v);
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
                                         Opcode::Linear};
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

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

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
  Bytes bytes = affineModel().bytes();
  shardrt_engine *engine = nullptr;
  ASSERT_EQ(
      shardrt_engine_load_from_memory(bytes.data(), bytes.size(), &engine),
      SHARDRT_OK);
  shardrt_session *session = nullptr;
  ASSERT_EQ(shardrt_session_create(engine, nullptr, nullptr, 0, 0, &session),
            SHARDRT_OK);

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
  shardrt_session_release(session);
  shardrt_engine_release(engine);
}

TEST(EngineCApi, NullArgumentsAreInvalidArguments) {
  Bytes bytes = affineModel().bytes();
  shardrt_engine *engine = nullptr;
  ASSERT_EQ(
      shardrt_engine_load_from_memory(bytes.data(), bytes.size(), &engine),
      SHARDRT_OK);
  shardrt_session *session = nullptr;
  ASSERT_EQ(shardrt_session_create(engine, nullptr, nullptr, 0, 0, &session),
            SHARDRT_OK);
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
  shardrt_session_release(session);
  shardrt_engine_release(engine);
}

} // namespace
} // namespace shardrt
