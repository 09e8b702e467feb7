//===- RunnerTest.cpp - shard-run's comparison and box moves --------------===//
//
// compare() decides --check's verdict, so it must read every dtype whole:
// it once read the first byte of each element of anything but f32/f64, so
// int64 outputs 256 and 512 compared equal. Reference bit patterns are
// IEEE 754 binary16 and bfloat16 constants, not computed here.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace shardrt;

namespace {

template <typename T>
GlobalTensor tensor(DType dtype, std::vector<int64_t> shape,
                    const std::vector<T> &values) {
  GlobalTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data.resize(values.size() * sizeof(T));
  std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

TEST(Runner, ElementValueDecodesHalfPrecision) {
  GlobalTensor h = tensor<uint16_t>(
      DType::F16, {7},
      {0x3C00, 0xC100, 0x7BFF, 0x0001, 0x7C00, 0xFC00, 0x7E00});
  EXPECT_EQ(elementValue(h, 0), 1.0);
  EXPECT_EQ(elementValue(h, 1), -2.5);
  EXPECT_EQ(elementValue(h, 2), 65504.0);               // largest normal
  EXPECT_EQ(elementValue(h, 3), 5.9604644775390625e-8); // 2^-24, subnormal
  EXPECT_EQ(elementValue(h, 4), std::numeric_limits<double>::infinity());
  EXPECT_EQ(elementValue(h, 5), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(elementValue(h, 6)));
  GlobalTensor b = tensor<uint16_t>(DType::BF16, {3}, {0x3F80, 0xC040, 0x4049});
  EXPECT_EQ(elementValue(b, 0), 1.0);
  EXPECT_EQ(elementValue(b, 1), -3.0);
  EXPECT_EQ(elementValue(b, 2), 3.140625);
}

TEST(Runner, ElementValueReadsWholeIntegers) {
  GlobalTensor i = tensor<int32_t>(DType::I32, {2}, {-70000, 1 << 30});
  EXPECT_EQ(elementValue(i, 0), -70000.0);
  EXPECT_EQ(elementValue(i, 1), double(1 << 30));
  GlobalTensor l = tensor<int64_t>(DType::I64, {2}, {int64_t(1) << 40, -3});
  EXPECT_EQ(elementValue(l, 0), std::ldexp(1.0, 40));
  EXPECT_EQ(elementValue(l, 1), -3.0);
  GlobalTensor b = tensor<uint8_t>(DType::Bool, {2}, {0, 1});
  EXPECT_EQ(elementValue(b, 0), 0.0);
  EXPECT_EQ(elementValue(b, 1), 1.0);
}

TEST(Runner, CompareSeesEveryByteOfAnElement) {
  // Equal low bytes, different values.
  GlobalTensor a = tensor<int64_t>(DType::I64, {2}, {256, 7});
  GlobalTensor b = tensor<int64_t>(DType::I64, {2}, {512, 7});
  Comparison c = compare(a, b, 0, 0);
  EXPECT_FALSE(c.allClose);
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_EQ(c.maxAbs, 256.0);
  GlobalTensor h1 = tensor<uint16_t>(DType::F16, {1}, {0x3C00}); // 1.0
  GlobalTensor h2 = tensor<uint16_t>(DType::F16, {1}, {0x4000}); // 2.0
  EXPECT_FALSE(compare(h1, h2, 0.5, 0).allClose);
  EXPECT_TRUE(compare(h1, h2, 1.0, 0).allClose);
}

TEST(Runner, CompareTakesIntegersExactly) {
  // An index off by one is wrong whatever the tolerance would allow
  // (1 <= 1e-5 + 1e-5 * 1e6), and int64 values past 2^53 are told apart.
  GlobalTensor want =
      tensor<int64_t>(DType::I64, {3}, {1000000, (int64_t(1) << 60) + 1, 4});
  GlobalTensor got =
      tensor<int64_t>(DType::I64, {3}, {1000001, int64_t(1) << 60, 4});
  Comparison c = compare(got, want, 1e-5, 1e-5);
  EXPECT_FALSE(c.allClose);
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.firstMismatch, 0);
  EXPECT_TRUE(compare(want, want, 0, 0).allClose);
  GlobalTensor mask = tensor<uint8_t>(DType::Bool, {2}, {1, 0});
  GlobalTensor flipped = tensor<uint8_t>(DType::Bool, {2}, {1, 1});
  EXPECT_FALSE(compare(flipped, mask, 1, 1).allClose);
}

TEST(Runner, CompareFollowsNumpyAllclose) {
  float inf = std::numeric_limits<float>::infinity();
  float nan = std::numeric_limits<float>::quiet_NaN();
  GlobalTensor want = tensor<float>(DType::F32, {4}, {100, inf, nan, 0});
  GlobalTensor got = tensor<float>(DType::F32, {4}, {100.5f, inf, nan, 0});
  Comparison c = compare(got, want, 0, 0.01); // |0.5| <= 0.01 * 100
  EXPECT_TRUE(c.allClose);
  EXPECT_DOUBLE_EQ(c.maxAbs, 0.5);
  EXPECT_DOUBLE_EQ(c.maxRel, 0.005);
  GlobalTensor wrong = tensor<float>(DType::F32, {4}, {100, -inf, 0, nan});
  Comparison w = compare(wrong, want, 1, 1);
  EXPECT_FALSE(w.allClose);
  EXPECT_EQ(w.mismatches, 3); // -inf vs inf, NaN vs 0 both ways
  GlobalTensor other = tensor<float>(DType::F32, {2, 2}, {100, inf, nan, 0});
  EXPECT_FALSE(compare(other, want, 1, 1).allClose); // shapes differ
}

TEST(Runner, BoxesMoveBetweenGlobalAndLocal) {
  // A 3x4 global; the box rows 1..2, columns 1..3.
  std::vector<float> values(12);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = float(i);
  GlobalTensor g = tensor<float>(DType::F32, {3, 4}, values);
  LocalBox box;
  box.offset = {1, 1};
  box.shape = {2, 3};
  std::vector<float> local(6);
  extractBox(g, box, reinterpret_cast<uint8_t *>(local.data()));
  EXPECT_EQ(local, (std::vector<float>{5, 6, 7, 9, 10, 11}));
  for (float &v : local)
    v = -v;
  insertBox(g, box, reinterpret_cast<const uint8_t *>(local.data()));
  std::vector<float> back(12);
  std::memcpy(back.data(), g.data.data(), g.data.size());
  EXPECT_EQ(back,
            (std::vector<float>{0, 1, 2, 3, 4, -5, -6, -7, 8, -9, -10, -11}));
  EXPECT_EQ(shapeStr({3, 4}), "3x4");
  EXPECT_EQ(shapeStr({}), "scalar");
}

} // namespace
