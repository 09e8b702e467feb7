//===- ElementwiseTest.cpp - Elementwise kernels against naive loops ------===//
//
// The references index every element from scratch (unravel, then ravel into
// each operand with broadcasting) and compute in double, so they share
// nothing with the kernels' collapsed plans and runs.
//
//===----------------------------------------------------------------------===//

#include "shardrt/cpu/Kernels.h"

#include "../lib/VectorExp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace shardrt::cpu;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

int64_t product(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// Index into an operand of shape `op` (dims 1 broadcast) of the output
/// element `linear` of shape `out`.
int64_t sourceIndex(const Shape &op, const Shape &out, int64_t linear) {
  int64_t index = 0, stride = 1;
  for (size_t d = out.size(); d-- > 0;) {
    int64_t i = linear % out[d];
    linear /= out[d];
    if (op[d] != 1)
      index += i * stride;
    stride *= op[d];
  }
  return index;
}

int64_t randInt(std::mt19937 &g, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(g);
}

std::vector<float> randFloats(std::mt19937 &g, int64_t n, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(g);
  return v;
}

std::vector<uint8_t> randBytes(std::mt19937 &g, int64_t n) {
  std::vector<uint8_t> v(n);
  for (uint8_t &b : v)
    b = static_cast<uint8_t>(g());
  return v;
}

/// An output shape of rank 0..5 (zero-size dims now and then) and operand
/// shapes that each keep or broadcast every dim.
struct BroadcastCase {
  Shape out;
  std::vector<Shape> ops;
};

BroadcastCase randomCase(std::mt19937 &g, int numOps) {
  BroadcastCase c;
  int rank = static_cast<int>(randInt(g, 0, 5));
  for (int d = 0; d < rank; ++d)
    c.out.push_back(randInt(g, 0, 9) == 0 ? 0 : randInt(g, 1, 4));
  for (int k = 0; k < numOps; ++k) {
    Shape s;
    for (int64_t d : c.out)
      s.push_back(randInt(g, 0, 1) ? d : 1);
    c.ops.push_back(s);
  }
  return c;
}

/// Fixed shapes that reach the parallel paths and the run patterns: same
/// shape, scalar operands, rows, columns, and a middle broadcast dim.
std::vector<BroadcastCase> largeCases() {
  return {{{300, 200}, {{300, 200}, {300, 200}}},
          {{300, 200}, {{1, 1}, {300, 200}}},
          {{300, 200}, {{300, 200}, {1, 1}}},
          {{300, 200}, {{300, 1}, {1, 200}}},
          {{300, 200}, {{1, 200}, {300, 1}}},
          {{40, 30, 50}, {{40, 1, 50}, {40, 30, 50}}},
          {{40, 30, 50}, {{1, 30, 1}, {40, 1, 50}}}};
}

double refBinary(BinaryKind kind, double a, double b) {
  switch (kind) {
  case BinaryKind::Add:
    return a + b;
  case BinaryKind::Sub:
    return a - b;
  case BinaryKind::Mul:
    return a * b;
  case BinaryKind::Div:
    return a / b;
  case BinaryKind::Maximum:
    return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
  case BinaryKind::Minimum:
    return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
  case BinaryKind::Pow:
    return std::pow(a, b);
  case BinaryKind::Atan2:
    return double(std::atan2((long double)a, (long double)b));
  case BinaryKind::Fmod:
    return double(std::fmod((long double)a, (long double)b));
  case BinaryKind::Hypot:
    return double(std::sqrt((long double)a * a + (long double)b * b));
  case BinaryKind::Copysign:
    return std::signbit(b) ? -std::fabs(a) : std::fabs(a);
  case BinaryKind::Remainder: {
    // Python's float %, from the floored quotient (not from fmod).
    long double q = std::floor((long double)a / (long double)b);
    return double((long double)a - q * (long double)b);
  }
  }
  return 0;
}

void expectClose(float got, double want, const std::string &what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what;
    return;
  }
  if (std::isinf(want)) {
    EXPECT_EQ(got, want) << what;
    return;
  }
  EXPECT_NEAR(got, want, 1e-5 * (1.0 + std::fabs(want))) << what;
}

void checkBinary(BinaryKind kind, const BroadcastCase &c, std::mt19937 &g) {
  const Shape &as = c.ops[0], &bs = c.ops[1];
  bool pow = kind == BinaryKind::Pow;
  std::vector<float> a = randFloats(g, product(as), pow ? 0.1f : -3, 3);
  std::vector<float> b = randFloats(g, product(bs), pow ? -2 : -3, pow ? 2 : 3);
  if (kind == BinaryKind::Div || kind == BinaryKind::Fmod ||
      kind == BinaryKind::Remainder)
    for (float &v : b)
      v = v < 0 ? v - 0.5f : v + 0.5f;
  const int64_t n = product(c.out);
  std::vector<float> y(n, -7.0f);
  binary(kind, a.data(), as, b.data(), bs, y.data(), c.out);
  for (int64_t i = 0; i < n; ++i)
    expectClose(y[i],
                refBinary(kind, a[sourceIndex(as, c.out, i)],
                          b[sourceIndex(bs, c.out, i)]),
                "kind " + std::to_string(int(kind)) + " element " +
                    std::to_string(i));
}

double refUnary(UnaryKind kind, double x) {
  const double sigmoid = 1.0 / (1.0 + std::exp(-x));
  switch (kind) {
  case UnaryKind::Neg:
    return -x;
  case UnaryKind::Abs:
    return std::fabs(x);
  case UnaryKind::Exp:
    return std::exp(x);
  case UnaryKind::Log:
    return std::log(x);
  case UnaryKind::Sqrt:
    return std::sqrt(x);
  case UnaryKind::Rsqrt:
    return 1.0 / std::sqrt(x);
  case UnaryKind::Tanh:
    return std::tanh(x);
  case UnaryKind::Sigmoid:
    return sigmoid;
  case UnaryKind::Relu:
    return std::isnan(x) ? x : x > 0 ? x : 0.0;
  case UnaryKind::Silu:
    return x * sigmoid;
  case UnaryKind::Gelu:
    return x * 0.5 * (1.0 + std::erf(x / std::sqrt(2.0)));
  case UnaryKind::GeluTanh: {
    const double k = std::sqrt(2.0 / M_PI);
    return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
  }
  case UnaryKind::Sin:
    return std::sin(x);
  case UnaryKind::Cos:
    return std::cos(x);
  case UnaryKind::Erf:
    return std::erf(x);
  // From the definitions in long double, not from the library's log1p and
  // expm1 that the kernel calls: near 0 by their series (four terms leave
  // an error under x^5), elsewhere 1 + x keeps enough of x's bits.
  case UnaryKind::Log1p: {
    long double v = x;
    if (std::fabs(x) < 1e-4)
      return double(v - v * v / 2 + v * v * v / 3 - v * v * v * v / 4);
    return double(std::log(1.0L + v));
  }
  case UnaryKind::Expm1: {
    long double v = x;
    if (std::fabs(x) < 1e-4)
      return double(v + v * v / 2 + v * v * v / 6 + v * v * v * v / 24);
    return double(std::exp(v) - 1.0L);
  }
  default:
    break;
  }
  // The rest from the long double functions.
  long double v = x;
  switch (kind) {
  case UnaryKind::Tan:
    return double(std::tan(v));
  case UnaryKind::Asin:
    return double(std::asin(v));
  case UnaryKind::Acos:
    return double(std::acos(v));
  case UnaryKind::Atan:
    return double(std::atan(v));
  case UnaryKind::Sinh:
    return double(std::sinh(v));
  case UnaryKind::Cosh:
    return double(std::cosh(v));
  case UnaryKind::Asinh:
    return double(std::asinh(v));
  case UnaryKind::Acosh:
    return double(std::acosh(v));
  case UnaryKind::Atanh:
    return double(std::atanh(v));
  case UnaryKind::Log2:
    return double(std::log2(v));
  case UnaryKind::Log10:
    return double(std::log10(v));
  case UnaryKind::Exp2:
    return double(std::exp2(v));
  case UnaryKind::Erfc:
    return double(std::erfc(v));
  case UnaryKind::Floor:
    return double(std::floor(v));
  case UnaryKind::Ceil:
    return double(std::ceil(v));
  case UnaryKind::Trunc:
    return double(std::trunc(v));
  case UnaryKind::Round: {
    // Half to even, from the definition.
    long double f = std::floor(v), d = v - f;
    if (d != 0.5L)
      return double(d < 0.5L ? f : f + 1);
    return double(std::fmod(f, 2.0L) == 0 ? f : f + 1);
  }
  case UnaryKind::Reciprocal:
    return double(1.0L / v);
  default:
    break;
  }
  return 0;
}

const UnaryKind kUnaryKinds[] = {
    UnaryKind::Neg,   UnaryKind::Abs,       UnaryKind::Exp,
    UnaryKind::Log,   UnaryKind::Sqrt,      UnaryKind::Rsqrt,
    UnaryKind::Tanh,  UnaryKind::Sigmoid,   UnaryKind::Relu,
    UnaryKind::Silu,  UnaryKind::Gelu,      UnaryKind::GeluTanh,
    UnaryKind::Sin,   UnaryKind::Cos,       UnaryKind::Erf,
    UnaryKind::Log1p, UnaryKind::Expm1,     UnaryKind::Tan,
    UnaryKind::Asin,  UnaryKind::Acos,      UnaryKind::Atan,
    UnaryKind::Sinh,  UnaryKind::Cosh,      UnaryKind::Asinh,
    UnaryKind::Acosh, UnaryKind::Atanh,     UnaryKind::Log2,
    UnaryKind::Log10, UnaryKind::Exp2,      UnaryKind::Erfc,
    UnaryKind::Floor, UnaryKind::Ceil,      UnaryKind::Trunc,
    UnaryKind::Round, UnaryKind::Reciprocal};

/// Where each function is defined (and well conditioned enough for the
/// tolerance): [lo, hi).
std::pair<float, float> unaryDomain(UnaryKind kind) {
  switch (kind) {
  case UnaryKind::Log:
  case UnaryKind::Sqrt:
  case UnaryKind::Rsqrt:
  case UnaryKind::Log1p:
  case UnaryKind::Log2:
  case UnaryKind::Log10:
    return {0.01f, 6};
  case UnaryKind::Asin:
  case UnaryKind::Acos:
  case UnaryKind::Atanh:
    return {-0.99f, 0.99f};
  case UnaryKind::Acosh:
    return {1, 6};
  default:
    return {-6, 6};
  }
}

const BinaryKind kBinaryKinds[] = {
    BinaryKind::Add,       BinaryKind::Sub,     BinaryKind::Mul,
    BinaryKind::Div,       BinaryKind::Maximum, BinaryKind::Minimum,
    BinaryKind::Pow,       BinaryKind::Atan2,   BinaryKind::Fmod,
    BinaryKind::Remainder, BinaryKind::Hypot,   BinaryKind::Copysign};

} // namespace

TEST(ElementwiseTest, NumElements) {
  EXPECT_EQ(numElements({}), 1);
  EXPECT_EQ(numElements({0}), 0);
  EXPECT_EQ(numElements({3, 0, 2}), 0);
  EXPECT_EQ(numElements({2, 3, 4}), 24);
}

TEST(ElementwiseUnaryTest, EveryKindMatchesReference) {
  std::mt19937 g(11);
  for (UnaryKind kind : kUnaryKinds) {
    auto [lo, hi] = unaryDomain(kind);
    for (int64_t n : {0, 1, 13, 1000, 40000}) {
      std::vector<float> x = randFloats(g, n, lo, hi);
      std::vector<float> y(n);
      unary(kind, x.data(), y.data(), n);
      for (int64_t i = 0; i < n; ++i)
        expectClose(y[i], refUnary(kind, x[i]),
                    "kind " + std::to_string(int(kind)) + " x " +
                        std::to_string(x[i]));
    }
  }
}

TEST(ElementwiseUnaryTest, SpecialValues) {
  std::vector<float> x = {kNaN, -0.0f, 0.0f, -100.0f, 100.0f};
  std::vector<float> y(x.size());
  unary(UnaryKind::Relu, x.data(), y.data(), x.size());
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_EQ(y[4], 100.0f);
  for (UnaryKind kind : {UnaryKind::Sigmoid, UnaryKind::Silu, UnaryKind::Gelu,
                         UnaryKind::GeluTanh}) {
    unary(kind, x.data(), y.data(), x.size());
    EXPECT_TRUE(std::isnan(y[0]));
    EXPECT_NEAR(y[3], 0.0f, 1e-6);
    EXPECT_NEAR(y[4], kind == UnaryKind::Sigmoid ? 1.0f : 100.0f, 1e-4);
  }
}

TEST(ElementwiseUnaryTest, Log1pAndExpm1KeepWhatTinyArgumentsAdd) {
  // log(1 + x) and exp(x) - 1 give 0 for these: 1 + x rounds to 1 in float.
  std::vector<float> x = {1e-10f, -3e-8f, 1e-30f, 2e-4f, -0.5f, 5e-39f};
  std::vector<float> y(x.size());
  for (UnaryKind kind : {UnaryKind::Log1p, UnaryKind::Expm1}) {
    unary(kind, x.data(), y.data(), int64_t(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      double want = refUnary(kind, x[i]);
      EXPECT_NEAR(y[i], want, 2e-7 * std::fabs(want))
          << "kind " << int(kind) << " x " << x[i];
    }
  }
  std::vector<float> edges = {-1.0f, -2.0f, -kInf, kInf, 100.0f, kNaN};
  y.resize(edges.size());
  unary(UnaryKind::Log1p, edges.data(), y.data(), int64_t(edges.size()));
  EXPECT_EQ(y[0], -kInf);
  EXPECT_TRUE(std::isnan(y[1]) && std::isnan(y[2]) && std::isnan(y[5]));
  EXPECT_EQ(y[3], kInf);
  unary(UnaryKind::Expm1, edges.data(), y.data(), int64_t(edges.size()));
  EXPECT_EQ(y[2], -1.0f);
  EXPECT_EQ(y[3], kInf);
  EXPECT_EQ(y[4], kInf);
  EXPECT_TRUE(std::isnan(y[5]));
}

TEST(ElementwiseUnaryTest, RoundingFunctionsAtTheirEdges) {
  // torch.round rounds halves to even; floor, ceil and trunc keep -0.
  std::vector<float> x = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, -0.0f, 2.4999998f};
  std::vector<float> y(x.size());
  unary(UnaryKind::Round, x.data(), y.data(), int64_t(x.size()));
  EXPECT_EQ(y, (std::vector<float>{0, 2, 2, -0.0f, -2, -0.0f, 2}));
  EXPECT_TRUE(std::signbit(y[3]) && std::signbit(y[5]));
  for (UnaryKind kind : {UnaryKind::Floor, UnaryKind::Ceil, UnaryKind::Trunc}) {
    unary(kind, x.data(), y.data(), int64_t(x.size()));
    EXPECT_TRUE(std::signbit(y[5])) << int(kind);
  }
}

TEST(ElementwiseBinaryTest, RemainderTakesTheDivisorsSign) {
  // torch.remainder as Python's %; torch.fmod keeps the dividend's sign.
  std::vector<float> a = {5.5f, -5.5f, 5.5f, -5.5f, 6.0f, 1.0f};
  std::vector<float> b = {2.0f, 2.0f, -2.0f, -2.0f, 3.0f, kInf};
  std::vector<float> y(a.size());
  Shape s = {int64_t(a.size())};
  binary(BinaryKind::Remainder, a.data(), s, b.data(), s, y.data(), s);
  EXPECT_EQ(y, (std::vector<float>{1.5f, 0.5f, -0.5f, -1.5f, 0.0f, 1.0f}));
  binary(BinaryKind::Fmod, a.data(), s, b.data(), s, y.data(), s);
  EXPECT_EQ(y, (std::vector<float>{1.5f, -1.5f, 1.5f, -1.5f, 0.0f, 1.0f}));
}

/// Distance in units in the last place between two floats of the same sign
/// (or zero); an infinity is only 0 away from itself.
int64_t ulpDistance(float a, float b) {
  if (std::isinf(a) || std::isinf(b))
    return a == b ? 0 : std::numeric_limits<int64_t>::max();
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  return std::abs(int64_t(ia) - int64_t(ib));
}

using detail::floatFromBits;

TEST(ElementwiseUnaryTest, ExpIsWithinOneUlpEverywhere) {
  // Exp (and so sigmoid and SiLU) uses a vectorisable exp of its own. Every
  // 61st float from -104 to 89 (about 37 million, subnormal results and the
  // overflow edge included), in chunks, against exp computed in double and
  // rounded once.
  const uint32_t last = 0x42D00000; // 104.0f; 89.0f is 0x42B20000
  int64_t worst = 0, checked = 0;
  float worstAt = 0;
  std::vector<float> x, y;
  for (float sign : {-1.0f, 1.0f})
    for (uint32_t m = 0; m <= last; m += 61 * 65536) {
      x.clear();
      for (uint32_t b = m; b < m + 61 * 65536 && b <= last; b += 61)
        if (sign < 0 || floatFromBits(b) <= 89.0f)
          x.push_back(sign * floatFromBits(b));
      y.resize(x.size());
      unary(UnaryKind::Exp, x.data(), y.data(), int64_t(x.size()));
      for (size_t i = 0; i < x.size(); ++i) {
        int64_t d = ulpDistance(y[i], float(std::exp(double(x[i]))));
        if (d > worst)
          worst = d, worstAt = x[i];
      }
      checked += int64_t(x.size());
    }
  EXPECT_GT(checked, 35000000);
  EXPECT_LE(worst, 1) << "at x = " << worstAt;

  const float inf = std::numeric_limits<float>::infinity();
  const float maxFinite = floatFromBits(0x42B17217); // 88.7228317...
  std::vector<float> edge = {kNaN,
                             -inf,
                             inf,
                             -0.0f,
                             0.0f,
                             maxFinite,
                             floatFromBits(0x42B17218),
                             -103.97208f,
                             -104.0f,
                             1.0f};
  std::vector<float> out(edge.size());
  unary(UnaryKind::Exp, edge.data(), out.data(), int64_t(edge.size()));
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_EQ(out[1], 0.0f);
  EXPECT_EQ(out[2], inf);
  EXPECT_EQ(out[3], 1.0f);
  EXPECT_EQ(out[4], 1.0f);
  // The largest input whose exp is finite, and the next float, whose exp
  // rounds past FLT_MAX.
  EXPECT_LT(out[5], inf);
  EXPECT_LE(ulpDistance(out[5], float(std::exp(double(maxFinite)))), 1);
  EXPECT_EQ(out[6], inf);
  EXPECT_EQ(out[7], std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(out[8], 0.0f);
  EXPECT_LE(ulpDistance(out[9], float(std::exp(1.0))), 1);
}

TEST(ElementwiseUnaryTest, DispatchedCloneGivesTheBaselineBits) {
  // The kernels run the clone of the widest x86 level this CPU has (only
  // that one is checked on a given machine); here
  // the same formulas run as plain scalar code of this file (baseline x86,
  // no FMA contraction): the bits must be equal, edges included. A NaN
  // must stay NaN; its sign is not specified (IEEE 754 leaves it to the
  // operation: built -O1 for ASan, the formulas here give -nan where the
  // kernels give nan).
  std::mt19937 g(19);
  std::vector<float> x = randFloats(g, 5000, -120, 120);
  x[7] = kNaN;
  x[8] = std::numeric_limits<float>::infinity();
  x[9] = -x[8];
  std::vector<float> y(x.size());
  using detail::vectorExp;
  for (UnaryKind kind : {UnaryKind::Exp, UnaryKind::Sigmoid, UnaryKind::Silu}) {
    unary(kind, x.data(), y.data(), int64_t(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      float v = x[i];
      float want = kind == UnaryKind::Exp ? vectorExp(v)
                   : kind == UnaryKind::Sigmoid
                       ? 1.0f / (1.0f + vectorExp(-v))
                       : v * (1.0f / (1.0f + vectorExp(-v)));
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(y[i])) << "kind " << int(kind) << ": " << y[i];
      else
        EXPECT_EQ(std::memcmp(&y[i], &want, 4), 0)
            << "kind " << int(kind) << " x " << v << ": " << y[i] << " vs "
            << want;
    }
  }
}

TEST(ElementwiseUnaryTest, SerialKernelsGiveTheSameBits) {
  // unarySerial/binarySerial (the fused evaluator's tiles) against the
  // whole-tensor kernels, which split work across threads and, for binary,
  // go through the broadcast plan.
  std::mt19937 g(17);
  const int64_t n = 70000; // above the parallel threshold
  std::vector<float> a = randFloats(g, n, -8, 8), b = randFloats(g, n, -8, 8);
  a[5] = kNaN;
  b[9] = kNaN;
  for (UnaryKind kind : kUnaryKinds) {
    std::vector<float> whole(n), serial(n);
    unary(kind, a.data(), whole.data(), n);
    unarySerial(kind, a.data(), serial.data(), n);
    EXPECT_EQ(std::memcmp(whole.data(), serial.data(), n * sizeof(float)), 0)
        << "unary kind " << int(kind);
  }
  for (BinaryKind kind : kBinaryKinds) {
    std::vector<float> whole(n), serial(n);
    binary(kind, a.data(), {n}, b.data(), {n}, whole.data(), {n});
    binarySerial(kind, a.data(), 1, b.data(), 1, serial.data(), n);
    EXPECT_EQ(std::memcmp(whole.data(), serial.data(), n * sizeof(float)), 0)
        << "binary kind " << int(kind);
    // One value on either side (stride 0) is a broadcast of shape (1).
    for (int side = 0; side < 2; ++side) {
      const float *one = b.data() + 9 - side; // NaN, then a number
      if (side == 0) {
        binary(kind, one, {1}, a.data(), {n}, whole.data(), {n});
        binarySerial(kind, one, 0, a.data(), 1, serial.data(), n);
      } else {
        binary(kind, a.data(), {n}, one, {1}, whole.data(), {n});
        binarySerial(kind, a.data(), 1, one, 0, serial.data(), n);
      }
      EXPECT_EQ(std::memcmp(whole.data(), serial.data(), n * sizeof(float)), 0)
          << "binary kind " << int(kind) << " one value on side " << side;
    }
  }
}

TEST(ElementwiseBinaryTest, RandomBroadcastsEveryKind) {
  std::mt19937 g(12);
  for (int iter = 0; iter < 300; ++iter)
    for (BinaryKind kind : kBinaryKinds)
      checkBinary(kind, randomCase(g, 2), g);
}

TEST(ElementwiseBinaryTest, LargeShapesAndFastPaths) {
  std::mt19937 g(13);
  for (const BroadcastCase &c : largeCases())
    for (BinaryKind kind : {BinaryKind::Add, BinaryKind::Maximum})
      checkBinary(kind, c, g);
}

TEST(ElementwiseBinaryTest, MaximumMinimumPropagateNaN) {
  Shape s = {4};
  std::vector<float> a = {kNaN, 1.0f, kNaN, 2.0f};
  std::vector<float> b = {1.0f, kNaN, kNaN, 3.0f};
  std::vector<float> y(4);
  for (BinaryKind kind : {BinaryKind::Maximum, BinaryKind::Minimum}) {
    binary(kind, a.data(), s, b.data(), s, y.data(), s);
    EXPECT_TRUE(std::isnan(y[0]) && std::isnan(y[1]) && std::isnan(y[2]));
    EXPECT_EQ(y[3], kind == BinaryKind::Maximum ? 3.0f : 2.0f);
  }
}

TEST(ElementwiseCompareTest, RandomBroadcastsEveryKind) {
  std::mt19937 g(14);
  // Few distinct values so that equality actually occurs; NaN included.
  const float values[] = {-1.0f, 0.0f, 1.0f, 2.0f, kNaN};
  auto pick = [&](int64_t n) {
    std::vector<float> v(n);
    for (float &x : v)
      x = values[randInt(g, 0, 4)];
    return v;
  };
  const CompareKind kinds[] = {CompareKind::Eq, CompareKind::Ne,
                               CompareKind::Lt, CompareKind::Le,
                               CompareKind::Gt, CompareKind::Ge};
  std::vector<BroadcastCase> cases;
  for (int iter = 0; iter < 300; ++iter)
    cases.push_back(randomCase(g, 2));
  for (const BroadcastCase &c : largeCases())
    cases.push_back(c);
  for (size_t i = 0; i < cases.size(); ++i)
    for (CompareKind kind : kinds) {
      // One kind is enough for the large shapes' run patterns.
      if (i >= 300 && kind != CompareKind::Lt)
        continue;
      const BroadcastCase &c = cases[i];
      std::vector<float> a = pick(product(c.ops[0])),
                         b = pick(product(c.ops[1]));
      const int64_t n = product(c.out);
      std::vector<uint8_t> y(n, 7);
      compare(kind, a.data(), c.ops[0], b.data(), c.ops[1], y.data(), c.out);
      for (int64_t i = 0; i < n; ++i) {
        float u = a[sourceIndex(c.ops[0], c.out, i)];
        float v = b[sourceIndex(c.ops[1], c.out, i)];
        bool want = kind == CompareKind::Eq   ? u == v
                    : kind == CompareKind::Ne ? u != v
                    : kind == CompareKind::Lt ? u < v
                    : kind == CompareKind::Le ? u <= v
                    : kind == CompareKind::Gt ? u > v
                                              : u >= v;
        ASSERT_EQ(y[i], want ? 1 : 0)
            << "kind " << int(kind) << " " << u << " vs " << v;
      }
    }
}

TEST(ElementwiseSelectTest, RandomBroadcastsEveryElementSize) {
  std::mt19937 g(15);
  std::vector<BroadcastCase> cases;
  for (int iter = 0; iter < 300; ++iter)
    cases.push_back(randomCase(g, 3));
  cases.push_back({{200, 300}, {{200, 1}, {200, 300}, {1, 300}}});
  cases.push_back({{200, 300}, {{200, 300}, {1, 1}, {200, 300}}});
  for (const BroadcastCase &c : cases) {
    const size_t eb = std::vector<size_t>{1, 2, 3, 4, 8, 12}[randInt(g, 0, 5)];
    std::vector<uint8_t> cond(product(c.ops[0]));
    for (uint8_t &v : cond)
      v = static_cast<uint8_t>(randInt(g, 0, 1));
    std::vector<uint8_t> t = randBytes(g, product(c.ops[1]) * eb);
    std::vector<uint8_t> f = randBytes(g, product(c.ops[2]) * eb);
    const int64_t n = product(c.out);
    std::vector<uint8_t> y(n * eb, 0);
    select(cond.data(), c.ops[0], t.data(), c.ops[1], f.data(), c.ops[2],
           y.data(), c.out, eb);
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t *want = cond[sourceIndex(c.ops[0], c.out, i)]
                                ? &t[sourceIndex(c.ops[1], c.out, i) * eb]
                                : &f[sourceIndex(c.ops[2], c.out, i) * eb];
      ASSERT_EQ(std::memcmp(&y[i * eb], want, eb), 0)
          << "element " << i << " of " << eb << " bytes";
    }
  }
}

TEST(ElementwiseBroadcastToTest, RandomShapesEveryElementSize) {
  std::mt19937 g(16);
  std::vector<BroadcastCase> cases;
  for (int iter = 0; iter < 300; ++iter)
    cases.push_back(randomCase(g, 1));
  cases.push_back({{300, 200}, {{300, 1}}});
  cases.push_back({{300, 200}, {{1, 200}}});
  cases.push_back({{300, 200}, {{1, 1}}});
  for (const BroadcastCase &c : cases) {
    const size_t eb = std::vector<size_t>{1, 2, 3, 4, 8, 12}[randInt(g, 0, 5)];
    std::vector<uint8_t> x = randBytes(g, product(c.ops[0]) * eb);
    const int64_t n = product(c.out);
    std::vector<uint8_t> y(n * eb, 0);
    broadcastTo(x.data(), c.ops[0], y.data(), c.out, eb);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(
          std::memcmp(&y[i * eb], &x[sourceIndex(c.ops[0], c.out, i) * eb], eb),
          0)
          << "element " << i << " of " << eb << " bytes";
  }
}

TEST(ElementwiseCastTest, FloatBoolAndCopies) {
  std::vector<float> f = {0.0f, -0.0f, 1.5f, -2.0f, kNaN, INFINITY, 1e-40f};
  std::vector<uint8_t> b(f.size(), 9);
  cast(ElemType::F32, f.data(), ElemType::Bool, b.data(), f.size());
  EXPECT_EQ(b, (std::vector<uint8_t>{0, 0, 1, 1, 1, 1, 1}));

  std::vector<float> back(b.size(), -1.0f);
  std::vector<uint8_t> bools = {0, 1, 1, 0, 1, 0, 0};
  cast(ElemType::Bool, bools.data(), ElemType::F32, back.data(), bools.size());
  for (size_t i = 0; i < bools.size(); ++i)
    EXPECT_EQ(back[i], bools[i] ? 1.0f : 0.0f);

  std::vector<float> copy(f.size());
  cast(ElemType::F32, f.data(), ElemType::F32, copy.data(), f.size());
  EXPECT_EQ(std::memcmp(copy.data(), f.data(), f.size() * sizeof(float)), 0);
  std::vector<uint8_t> bcopy(bools.size());
  cast(ElemType::Bool, bools.data(), ElemType::Bool, bcopy.data(),
       bools.size());
  EXPECT_EQ(bcopy, bools);

  // Large enough for the parallel loops.
  std::mt19937 g(17);
  std::vector<float> big = randFloats(g, 100000, -1, 1);
  big[5] = 0.0f;
  std::vector<uint8_t> bigBool(big.size());
  cast(ElemType::F32, big.data(), ElemType::Bool, bigBool.data(), big.size());
  std::vector<float> round(big.size());
  cast(ElemType::Bool, bigBool.data(), ElemType::F32, round.data(), big.size());
  for (size_t i = 0; i < big.size(); ++i)
    ASSERT_EQ(round[i], big[i] != 0.0f ? 1.0f : 0.0f);
}

TEST(ElementwiseCastTest, Int64IndicesBothWays) {
  // Float to int64 truncates toward zero; NaN and anything outside int64's
  // range store INT64_MIN (x86's cvttss2si, which ATen's CPU cast uses).
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  std::vector<float> f = {0.0f,     -0.0f,     2.9f,    -2.9f,    16777216.0f,
                          9.2e18f,  -9.2e18f,  0x1p63f, -0x1p63f, kNaN,
                          INFINITY, -INFINITY, 1e-40f};
  std::vector<int64_t> want = {0,
                               0,
                               2,
                               -2,
                               16777216,
                               int64_t(9.2e18f),
                               int64_t(-9.2e18f),
                               kMin,
                               kMin,
                               kMin,
                               kMin,
                               kMin,
                               0};
  std::vector<int64_t> got(f.size(), 7);
  cast(ElemType::F32, f.data(), ElemType::I64, got.data(), int64_t(f.size()));
  EXPECT_EQ(got, want);
  EXPECT_EQ(elementBytes(ElemType::I64), 8u);

  // Int64 to float rounds to nearest (2^24 + 1 is not a float); to bool is
  // value != 0; to bf16 goes through f32 as c10's conversion does.
  std::vector<int64_t> ints = {0, -3, (int64_t(1) << 24) + 1, kMin, 257};
  std::vector<float> back(ints.size());
  cast(ElemType::I64, ints.data(), ElemType::F32, back.data(),
       int64_t(ints.size()));
  EXPECT_EQ(back,
            (std::vector<float>{0.0f, -3.0f, 16777216.0f, -0x1p63f, 257.0f}));
  std::vector<uint8_t> bools(ints.size(), 9);
  cast(ElemType::I64, ints.data(), ElemType::Bool, bools.data(),
       int64_t(ints.size()));
  EXPECT_EQ(bools, (std::vector<uint8_t>{0, 1, 1, 1, 1}));
  std::vector<int64_t> copy(ints.size());
  cast(ElemType::I64, ints.data(), ElemType::I64, copy.data(),
       int64_t(ints.size()));
  EXPECT_EQ(copy, ints);

  // Every index a decomposed argmax produces (exact f32 integers up to
  // 2^24) survives, across the parallel loop's chunks.
  std::vector<float> indices(1 << 17);
  for (size_t i = 0; i < indices.size(); ++i)
    indices[i] = float(i * 127 % (size_t(1) << 24));
  std::vector<int64_t> stored(indices.size());
  cast(ElemType::F32, indices.data(), ElemType::I64, stored.data(),
       int64_t(indices.size()));
  for (size_t i = 0; i < indices.size(); ++i)
    ASSERT_EQ(stored[i], int64_t(i * 127 % (size_t(1) << 24)));
}
