//===- EngineRunSpatialTest.cpp - Conv, pooling, interpolation, attention -===//
//
// Convolutions (strided, dilated, grouped, transposed), pooling,
// interpolation, scaled dot-product and neighborhood attention in small
// world-size-1 artifacts run through a Session, compared with plain
// reference loops written here.
//
//===----------------------------------------------------------------------===//

#include "EngineTestSupport.h"

#include "shardrt/Engine.h"
#include "shardrt/artifact/ArtifactWriter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace shardrt {
namespace {

using namespace enginetest;

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

} // namespace
} // namespace shardrt
