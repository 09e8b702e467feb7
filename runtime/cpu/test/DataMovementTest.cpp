//===- DataMovementTest.cpp - pad, permute, slice, concat, copyBox --------===//
//
// Tensors here are raw bytes with an element size, so every kernel is also
// checked for odd element sizes (3, 12 bytes). The references compute each
// output element's source from its multi-index; pad's reference works the
// way torch.nn.functional.pad is defined: per dim, first narrow by the
// negative amounts, then pad the rest.
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/Kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

using namespace shardrt::cpu;

namespace {

int64_t product(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

int64_t randInt(std::mt19937 &g, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(g);
}

std::vector<uint8_t> randBytes(std::mt19937 &g, int64_t n) {
  std::vector<uint8_t> v(n);
  for (uint8_t &b : v)
    b = static_cast<uint8_t>(g());
  return v;
}

size_t randElemBytes(std::mt19937 &g) {
  const size_t sizes[] = {1, 2, 3, 4, 8, 12};
  return sizes[randInt(g, 0, 5)];
}

/// Multi-index of linear index i over s, into idx (reused, the references
/// run per element).
void unravel(int64_t i, const Shape &s, std::vector<int64_t> &idx) {
  idx.resize(s.size());
  for (size_t d = s.size(); d-- > 0;) {
    idx[d] = i % s[d];
    i /= s[d];
  }
}

int64_t ravel(const std::vector<int64_t> &idx, const Shape &s) {
  int64_t i = 0;
  for (size_t d = 0; d < s.size(); ++d)
    i = i * s[d] + idx[d];
  return i;
}

/// A dense tensor of opaque elements.
struct Tensor {
  Shape shape;
  size_t eb;
  std::vector<uint8_t> bytes;
  const uint8_t *at(const std::vector<int64_t> &idx) const {
    return &bytes[ravel(idx, shape) * eb];
  }
};

/// F.pad along one dim: narrow by the negative amounts, then pad.
Tensor padAlong(const Tensor &x, size_t dim, int64_t lo, int64_t hi,
                PadMode mode, const std::vector<uint8_t> &fill) {
  const int64_t cropLo = lo < 0 ? -lo : 0, cropHi = hi < 0 ? -hi : 0;
  const int64_t before = lo > 0 ? lo : 0;
  const int64_t len = x.shape[dim] - cropLo - cropHi;
  Tensor y{x.shape, x.eb, {}};
  y.shape[dim] = len + before + (hi > 0 ? hi : 0);
  y.bytes.resize(product(y.shape) * x.eb);
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < product(y.shape); ++i) {
    unravel(i, y.shape, idx);
    int64_t o = idx[dim], src;
    if (o >= before && o < before + len)
      src = o - before;
    else if (mode == PadMode::Constant) {
      std::memcpy(&y.bytes[i * x.eb], fill.data(), x.eb);
      continue;
    } else if (mode == PadMode::Reflect)
      src = o < before ? before - o : 2 * (len - 1) - (o - before);
    else if (mode == PadMode::Replicate)
      src = o < before ? 0 : len - 1;
    else
      src = o < before ? len - before + o : o - before - len;
    idx[dim] = cropLo + src;
    std::memcpy(&y.bytes[i * x.eb], x.at(idx), x.eb);
  }
  return y;
}

void checkPad(const Tensor &x, const std::vector<int64_t> &lo,
              const std::vector<int64_t> &hi, PadMode mode, double value,
              bool isFloat) {
  std::vector<uint8_t> fill(x.eb, 0);
  if (isFloat && x.eb == sizeof(float)) {
    float f = static_cast<float>(value);
    std::memcpy(fill.data(), &f, sizeof(f));
  } else if (!isFloat) {
    fill[0] = value != 0.0;
  }
  Tensor want = x;
  for (size_t d = 0; d < x.shape.size(); ++d)
    want = padAlong(want, d, lo[d], hi[d], mode, fill);
  std::vector<uint8_t> y(want.bytes.size(), 0xAB);
  pad(x.bytes.data(), x.shape, lo, hi, mode, value, y.data(), x.eb, isFloat);
  ASSERT_EQ(y, want.bytes) << "mode " << int(mode) << " rank " << x.shape.size()
                           << " elemBytes " << x.eb;
}

/// Random amounts for one dim of size `in` that the mode allows: crops
/// leave at least one element (none needed for constant), and positive
/// amounts stay below the cropped size for reflect and at most it for
/// circular, PyTorch's limits.
std::pair<int64_t, int64_t> randPad(std::mt19937 &g, int64_t in, PadMode mode) {
  int64_t cropLo = 0, cropHi = 0;
  const int64_t keep = mode == PadMode::Constant ? 0 : 1;
  if (in > keep && randInt(g, 0, 2) == 0)
    cropLo = randInt(g, 1, in - keep);
  if (in - cropLo > keep && randInt(g, 0, 2) == 0)
    cropHi = randInt(g, 1, in - cropLo - keep);
  const int64_t len = in - cropLo - cropHi;
  const int64_t most = mode == PadMode::Reflect    ? len - 1
                       : mode == PadMode::Circular ? len
                                                   : 3;
  auto amount = [&](int64_t crop) {
    return crop ? -crop : randInt(g, 0, most);
  };
  int64_t lo = amount(cropLo);
  return {lo, amount(cropHi)};
}

Tensor randTensor(std::mt19937 &g, const Shape &shape, size_t eb) {
  return {shape, eb, randBytes(g, product(shape) * eb)};
}

const PadMode kPadModes[] = {PadMode::Constant, PadMode::Reflect,
                             PadMode::Replicate, PadMode::Circular};

} // namespace

TEST(PadTest, RandomShapesEveryModeAndCrop) {
  std::mt19937 g(31);
  for (int iter = 0; iter < 400; ++iter) {
    PadMode mode = kPadModes[iter % 4];
    Shape shape;
    std::vector<int64_t> lo, hi;
    for (int d = 0, rank = int(randInt(g, 0, 5)); d < rank; ++d) {
      int64_t in = mode == PadMode::Constant && randInt(g, 0, 9) == 0
                       ? 0
                       : randInt(g, 1, 5);
      shape.push_back(in);
      auto [l, h] = randPad(g, in, mode);
      // Leave some dims (often the trailing ones) unpadded.
      bool untouched = randInt(g, 0, 3) == 0;
      lo.push_back(untouched ? 0 : l);
      hi.push_back(untouched ? 0 : h);
    }
    bool isFloat = mode != PadMode::Constant || randInt(g, 0, 1);
    size_t eb =
        mode == PadMode::Constant ? (isFloat ? 4 : 1) : randElemBytes(g);
    double value = isFloat ? std::uniform_real_distribution<double>(-5, 5)(g)
                           : double(randInt(g, 0, 1));
    checkPad(randTensor(g, shape, eb), lo, hi, mode, value, isFloat);
  }
}

TEST(PadTest, LargeShapesAndEmptyInput) {
  std::mt19937 g(32);
  for (PadMode mode : kPadModes) {
    checkPad(randTensor(g, {16, 3, 40, 40}, 4), {0, 0, 2, 3}, {0, 0, 3, -2},
             mode, 1.5, true);
    checkPad(randTensor(g, {8, 6, 1000}, 4), {0, 2, 0}, {0, -1, 0}, mode, 0.0,
             true);
    checkPad(randTensor(g, {3, 40000}, 1), {1, 0}, {1, 0}, mode, 1.0, false);
  }
  // Padding an empty tensor gives nothing but the fill value.
  checkPad(randTensor(g, {0, 3}, 4), {1, 1}, {2, 0}, PadMode::Constant, -2.0,
           true);
}

TEST(PadTest, ReflectAcrossACropReadsTheOriginalInput) {
  // PyTorch's reflection kernel indexes the uncropped input: with
  // padding (-2, 2) on [a, b, c] it gives [c, b, a].
  std::vector<float> x = {1.0f, 2.0f, 3.0f}, y(3);
  pad(x.data(), {3}, {-2}, {2}, PadMode::Reflect, 0.0, y.data(), 4, true);
  EXPECT_EQ(y, (std::vector<float>{3.0f, 2.0f, 1.0f}));
}

TEST(PermuteTest, RandomPermsEveryElementSize) {
  std::mt19937 g(33);
  std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {
      {{300, 500}, {1, 0}},
      {{8, 64, 96}, {0, 2, 1}},
      {{4, 50, 60, 3}, {0, 3, 1, 2}},
      {{4, 3, 50, 60}, {0, 2, 3, 1}}};
  for (int iter = 0; iter < 400; ++iter) {
    Shape shape;
    for (int d = 0, rank = int(randInt(g, 0, 5)); d < rank; ++d)
      shape.push_back(randInt(g, 0, 12) == 0 ? 0 : randInt(g, 1, 5));
    std::vector<int64_t> perm(shape.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), g);
    cases.push_back({shape, perm});
  }
  for (size_t c = 0; c < cases.size(); ++c) {
    const auto &[shape, perm] = cases[c];
    size_t eb = c < 4 ? 4 : randElemBytes(g);
    Tensor x = randTensor(g, shape, eb);
    Shape yShape;
    for (int64_t p : perm)
      yShape.push_back(shape[p]);
    std::vector<uint8_t> y(x.bytes.size(), 0xAB);
    permute(x.bytes.data(), shape, perm, y.data(), eb);
    std::vector<int64_t> out, in(shape.size());
    for (int64_t i = 0; i < product(yShape); ++i) {
      unravel(i, yShape, out);
      for (size_t k = 0; k < perm.size(); ++k)
        in[perm[k]] = out[k];
      ASSERT_EQ(std::memcmp(&y[i * eb], x.at(in), eb), 0)
          << "case " << c << " element " << i;
    }
  }
}

TEST(SliceTest, RandomStartsAndSteps) {
  std::mt19937 g(34);
  for (int iter = 0; iter < 400; ++iter) {
    Shape shape, out;
    std::vector<int64_t> start, step;
    int rank = int(randInt(g, 0, 5));
    if (iter == 0)
      rank = 2; // a large case below
    for (int d = 0; d < rank; ++d) {
      int64_t in = iter == 0 ? 400 : randInt(g, 0, 7);
      int64_t st = randInt(g, 1, 3), s = randInt(g, 0, in);
      int64_t most = (in - s + st - 1) / st;
      shape.push_back(in);
      start.push_back(s);
      step.push_back(st);
      out.push_back(iter == 0 ? most : randInt(g, 0, most));
    }
    size_t eb = randElemBytes(g);
    Tensor x = randTensor(g, shape, eb);
    std::vector<uint8_t> y(product(out) * eb, 0xAB);
    slice(x.bytes.data(), shape, start, step, y.data(), out, eb);
    std::vector<int64_t> idx;
    for (int64_t i = 0; i < product(out); ++i) {
      unravel(i, out, idx);
      for (int d = 0; d < rank; ++d)
        idx[d] = start[d] + idx[d] * step[d];
      ASSERT_EQ(std::memcmp(&y[i * eb], x.at(idx), eb), 0)
          << "iteration " << iter << " element " << i;
    }
  }
}

TEST(ConcatTest, EveryDimEveryElementSize) {
  std::mt19937 g(35);
  for (int iter = 0; iter < 300; ++iter) {
    const bool large = iter < 2;
    Shape base;
    for (int d = 0, rank = large ? 3 : int(randInt(g, 1, 5)); d < rank; ++d)
      base.push_back(large ? 40 : randInt(g, 0, 8) == 0 ? 0 : randInt(g, 1, 4));
    const int64_t dim = large ? iter : randInt(g, 0, base.size() - 1);
    const size_t eb = large ? 4 : randElemBytes(g);
    std::vector<Tensor> xs;
    std::vector<Shape> shapes;
    std::vector<const void *> ptrs;
    Shape yShape = base;
    yShape[dim] = 0;
    for (int i = 0, n = int(randInt(g, 1, 4)); i < n; ++i) {
      Shape s = base;
      s[dim] = large ? 30 : randInt(g, 0, 3);
      yShape[dim] += s[dim];
      xs.push_back(randTensor(g, s, eb));
      shapes.push_back(s);
    }
    for (const Tensor &t : xs)
      ptrs.push_back(t.bytes.data());
    std::vector<uint8_t> y(product(yShape) * eb, 0xAB);
    concat(ptrs, shapes, dim, y.data(), eb);
    std::vector<int64_t> idx;
    for (int64_t i = 0; i < product(yShape); ++i) {
      unravel(i, yShape, idx);
      size_t k = 0;
      while (idx[dim] >= shapes[k][dim])
        idx[dim] -= shapes[k++][dim];
      ASSERT_EQ(std::memcmp(&y[i * eb], xs[k].at(idx), eb), 0)
          << "iteration " << iter << " element " << i;
    }
  }
}

TEST(CopyBoxTest, RandomBoxesLeaveTheRestAlone) {
  std::mt19937 g(36);
  for (int iter = 0; iter < 400; ++iter) {
    Shape xShape, yShape, box;
    std::vector<int64_t> xLo, yLo;
    const int64_t scale = iter == 0 ? 60 : 1; // one large box
    for (int d = 0, rank = iter == 0 ? 2 : int(randInt(g, 0, 5)); d < rank;
         ++d) {
      xShape.push_back(randInt(g, 1, 6) * scale);
      yShape.push_back(randInt(g, 1, 6) * scale);
      box.push_back(randInt(g, 0, std::min(xShape[d], yShape[d])));
      xLo.push_back(randInt(g, 0, xShape[d] - box[d]));
      yLo.push_back(randInt(g, 0, yShape[d] - box[d]));
    }
    const size_t eb = randElemBytes(g);
    Tensor x = randTensor(g, xShape, eb);
    Tensor y = randTensor(g, yShape, eb);
    std::vector<uint8_t> before = y.bytes;
    copyBox(x.bytes.data(), xShape, xLo, y.bytes.data(), yShape, yLo, box, eb);
    std::vector<int64_t> idx;
    for (int64_t i = 0; i < product(yShape); ++i) {
      unravel(i, yShape, idx);
      bool inside = true;
      for (size_t d = 0; d < idx.size(); ++d) {
        inside = inside && idx[d] >= yLo[d] && idx[d] < yLo[d] + box[d];
        idx[d] += xLo[d] - yLo[d];
      }
      const uint8_t *want = inside ? x.at(idx) : &before[i * eb];
      ASSERT_EQ(std::memcmp(&y.bytes[i * eb], want, eb), 0)
          << "iteration " << iter << " element " << i;
    }
  }
}
