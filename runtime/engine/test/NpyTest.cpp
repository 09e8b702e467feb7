//===- NpyTest.cpp - Reading and writing .npy files -----------------------===//

#include "shardrt/Npy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace shardrt {
namespace {

using Shape = std::vector<int64_t>;
using Bytes = std::vector<uint8_t>;

int64_t count(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// An array of `shape` with random contents (0/1 for bool).
NpyArray randomArray(DType dtype, const Shape &shape, std::mt19937 &rng) {
  NpyArray a;
  a.dtype = dtype;
  a.shape = shape;
  a.data.resize(size_t(count(shape)) * dtypeSize(dtype));
  for (uint8_t &b : a.data)
    b = dtype == DType::Bool ? uint8_t(rng() % 2) : uint8_t(rng());
  return a;
}

/// A version 1.0 file with `header` (padded here) followed by `data`.
Bytes fileV1(std::string header, const Bytes &data = {}) {
  header += '\n';
  Bytes f = {0x93,
             'N',
             'U',
             'M',
             'P',
             'Y',
             1,
             0,
             uint8_t(header.size() & 0xff),
             uint8_t(header.size() >> 8)};
  // Room first: GCC 12 otherwise warns (-Warray-bounds) about the inlined
  // reallocation of the 10-byte vector, a false positive.
  f.reserve(f.size() + header.size() + data.size());
  f.insert(f.end(), header.begin(), header.end());
  f.insert(f.end(), data.begin(), data.end());
  return f;
}

/// A version 2.0 or 3.0 file (4-byte header length).
Bytes fileV2(uint8_t major, const std::string &header, const Bytes &data) {
  Bytes f = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  uint32_t n = uint32_t(header.size());
  for (int i = 0; i < 4; ++i)
    f.push_back(uint8_t(n >> (8 * i)));
  f.insert(f.end(), header.begin(), header.end());
  f.insert(f.end(), data.begin(), data.end());
  return f;
}

StatusOr<NpyArray> parse(const Bytes &bytes) {
  return parseNpy(bytes.data(), bytes.size());
}

/// Expects a failure with `code` whose message contains `fragment`.
::testing::AssertionResult fails(const Bytes &bytes, StatusCode code,
                                 const std::string &fragment) {
  StatusOr<NpyArray> a = parse(bytes);
  if (a.ok())
    return ::testing::AssertionFailure() << "parsed";
  if (a.status().code() != code ||
      a.status().message().find(fragment) == std::string::npos)
    return ::testing::AssertionFailure()
           << a.status().toString() << "; expected " << statusCodeName(code)
           << " with '" << fragment << "'";
  return ::testing::AssertionSuccess();
}

TEST(Npy, RoundTripsEveryDtypeAndShape) {
  std::mt19937 rng(1);
  const DType dtypes[] = {DType::F32, DType::F64, DType::F16,
                          DType::I32, DType::I64, DType::Bool};
  const Shape shapes[] = {{},        {0},          {1},       {7},    {2, 3},
                          {2, 0, 3}, {1, 1, 1, 1}, {3, 4, 5}, {0, 0}, {130}};
  for (DType dtype : dtypes)
    for (const Shape &shape : shapes) {
      NpyArray a = randomArray(dtype, shape, rng);
      Bytes bytes = encodeNpy(a);
      // Version 1.0, data 64-byte aligned, header ended by a newline.
      ASSERT_GE(bytes.size(), 10u);
      EXPECT_EQ(std::memcmp(bytes.data(), "\x93NUMPY\x01\x00", 8), 0);
      size_t headerLen = bytes[8] | size_t(bytes[9]) << 8;
      EXPECT_EQ((10 + headerLen) % 64, 0u);
      EXPECT_EQ(bytes[9 + headerLen], '\n');
      StatusOr<NpyArray> b = parse(bytes);
      ASSERT_TRUE(b.ok()) << dtypeName(dtype) << " " << shape.size() << ": "
                          << b.status().toString();
      EXPECT_EQ(b->dtype, dtype);
      EXPECT_EQ(b->shape, shape);
      EXPECT_EQ(b->data, a.data);
    }
}

TEST(Npy, WritesNumpysHeader) {
  auto header = [](const NpyArray &a) {
    Bytes bytes = encodeNpy(a);
    size_t len = bytes[8] | size_t(bytes[9]) << 8;
    std::string h(bytes.begin() + 10, bytes.begin() + 10 + long(len));
    return h.substr(0, h.find_last_not_of(" \n") + 1);
  };
  NpyArray a;
  a.dtype = DType::F32;
  a.shape = {2, 3};
  a.data.resize(24);
  EXPECT_EQ(header(a),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  a.dtype = DType::I64;
  a.shape = {3};
  EXPECT_EQ(header(a),
            "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }");
  a.dtype = DType::Bool;
  a.shape = {};
  a.data.resize(1);
  EXPECT_EQ(header(a),
            "{'descr': '|b1', 'fortran_order': False, 'shape': (), }");
}

TEST(Npy, Bf16IsWrittenAsExactF32) {
  // NumPy has no bfloat16; the values widen exactly to f32.
  NpyArray a;
  a.dtype = DType::BF16;
  a.shape = {3};
  a.data = {0x80, 0x3f, 0x00, 0xc0, 0x49, 0x40}; // 1.0, -2.0, 3.140625
  StatusOr<NpyArray> b = parse(encodeNpy(a));
  ASSERT_TRUE(b.ok()) << b.status().toString();
  EXPECT_EQ(b->dtype, DType::F32);
  EXPECT_EQ(b->shape, Shape{3});
  float v[3];
  ASSERT_EQ(b->data.size(), sizeof(v));
  std::memcpy(v, b->data.data(), sizeof(v));
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[1], -2.0f);
  EXPECT_EQ(v[2], 3.140625f);
}

TEST(Npy, ParsesHandWrittenHeaders) {
  {
    // What numpy 1.x writes for np.arange(3, dtype=np.int64).
    Bytes data(24, 0);
    for (int i = 0; i < 3; ++i)
      data[size_t(8 * i)] = uint8_t(i + 10);
    std::string h = "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }";
    h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
    StatusOr<NpyArray> a = parse(fileV1(h, data));
    ASSERT_TRUE(a.ok()) << a.status().toString();
    EXPECT_EQ(a->dtype, DType::I64);
    EXPECT_EQ(a->shape, Shape{3});
    EXPECT_EQ(a->data, data);
  }
  {
    // Any key order, no spaces, no trailing comma, a trailing comma in the
    // shape tuple.
    Bytes data(2 * 2 * 8, 7);
    StatusOr<NpyArray> a = parse(
        fileV1("{'shape':(2,2,),'fortran_order':False,'descr':'<f8'}", data));
    ASSERT_TRUE(a.ok()) << a.status().toString();
    EXPECT_EQ(a->dtype, DType::F64);
    EXPECT_EQ(a->shape, (Shape{2, 2}));
  }
  {
    // 0-d and zero-size.
    StatusOr<NpyArray> a = parse(fileV1(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", Bytes(4)));
    ASSERT_TRUE(a.ok()) << a.status().toString();
    EXPECT_TRUE(a->shape.empty());
    StatusOr<NpyArray> z = parse(
        fileV1("{'descr': '<f2', 'fortran_order': False, 'shape': (4, 0), }"));
    ASSERT_TRUE(z.ok()) << z.status().toString();
    EXPECT_EQ(z->dtype, DType::F16);
    EXPECT_EQ(z->shape, (Shape{4, 0}));
    EXPECT_TRUE(z->data.empty());
  }
  {
    // A key given twice keeps its last value, as numpy's ast.literal_eval
    // does; a key's name inside another value is not that key; double
    // quotes and a newline before the brace.
    StatusOr<NpyArray> a = parse(
        fileV1("{'shape': (9,), \"descr\": '<f4', 'fortran_order': False, "
               "'note': 'shape', 'shape': (2,)\n}",
               Bytes(8)));
    ASSERT_TRUE(a.ok()) << a.status().toString();
    EXPECT_EQ(a->shape, Shape{2});
  }
  for (uint8_t major : {2, 3}) {
    // Versions 2.0 and 3.0 have a 4-byte header length.
    std::string h = "{'descr': '|b1', 'fortran_order': False, 'shape': (5,), }";
    Bytes data = {1, 0, 1, 1, 0};
    StatusOr<NpyArray> a = parse(fileV2(major, h + "\n", data));
    ASSERT_TRUE(a.ok()) << a.status().toString();
    EXPECT_EQ(a->dtype, DType::Bool);
    EXPECT_EQ(a->data, data);
  }
}

TEST(Npy, RejectsMalformedFiles) {
  const StatusCode kInvalid = StatusCode::InvalidArgument;
  const std::string good =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  ASSERT_TRUE(parse(fileV1(good, Bytes(8))).ok());

  Bytes badMagic = fileV1(good, Bytes(8));
  badMagic[5] = 'X';
  EXPECT_TRUE(fails(badMagic, kInvalid, "magic"));
  EXPECT_TRUE(fails({}, kInvalid, "magic"));
  EXPECT_TRUE(fails({0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0}, kInvalid,
                    "magic")); // shorter than the fixed preamble
  Bytes version = fileV1(good, Bytes(8));
  version[6] = 4;
  EXPECT_TRUE(fails(version, kInvalid, "format version 4"));
  EXPECT_TRUE(fails({0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 10, 0, 0}, kInvalid,
                    "truncated header"));

  // Truncated inside the header, and a length past the end.
  Bytes full = fileV1(good, Bytes(8));
  EXPECT_TRUE(
      fails(Bytes(full.begin(), full.begin() + 30), kInvalid, "past the end"));
  Bytes longHeader = full;
  longHeader[8] = 0xff;
  longHeader[9] = 0x7f;
  EXPECT_TRUE(fails(longHeader, kInvalid, "past the end"));
  EXPECT_TRUE(fails(fileV2(2, good, {}), kInvalid, "bytes"));
  Bytes v2 = fileV2(2, good, Bytes(8));
  v2[11] = 0x80; // 2 GiB header
  EXPECT_TRUE(fails(v2, kInvalid, "past the end"));

  // Missing keys.
  EXPECT_TRUE(
      fails(fileV1("{'fortran_order': False, 'shape': (2,), }", Bytes(8)),
            kInvalid, "lacks"));
  EXPECT_TRUE(fails(fileV1("{'descr': '<f4', 'shape': (2,), }", Bytes(8)),
                    kInvalid, "lacks"));
  EXPECT_TRUE(
      fails(fileV1("{'descr': '<f4', 'fortran_order': False}", Bytes(8)),
            kInvalid, "lacks"));
  EXPECT_TRUE(fails(fileV1("{}", {}), kInvalid, "lacks"));

  // Not a dict literal.
  for (auto [header, why] : std::vector<std::pair<std::string, std::string>>{
           {"", "no '{'"},
           {"'descr': '<f4'", "no '{'"},
           {"{descr: '<f4'}", "not a quoted string"},
           {"{'descr: '<f4'}", "no ':' after"},
           {"{'descr' '<f4'}", "no ':' after 'descr'"},
           {"{'descr': '<f4', 'shape': (2,)", "no '}'"},
           {"{'descr': '<f4}", "no '}'"},
           {"{'descr': '<f4'} x", "text after the '}'"},
           {"{'descr", "unterminated key"},
           {"{'fortran_order': False 'shape': (2,), 'descr': '<f4'}",
            "the value of 'fortran_order' is not one literal"},
           {"{'descr': '<f4' '<f8', 'fortran_order': False, 'shape': (2,)}",
            "the value of 'descr' is not one literal"},
           {"{'" + std::string(100, 'k') + "' 1}",
            "no ':' after '" + std::string(37, 'k') + "...'"}})
    EXPECT_TRUE(fails(fileV1(header, Bytes(8)), kInvalid, why)) << header;
  EXPECT_TRUE(fails(fileV1("{'descr': '', 'fortran_order': False, 'shape': "
                           "(2,), }",
                           Bytes(8)),
                    StatusCode::Unimplemented, "dtype"));

  // Fortran order and dtypes this reader does not take.
  EXPECT_TRUE(fails(fileV1("{'descr': '<f4', 'fortran_order': True, 'shape': "
                           "(2,), }",
                           Bytes(8)),
                    StatusCode::Unimplemented, "Fortran"));
  for (const char *descr : {"<c8", ">f4", "<u2", "|O", "<U3", "<f16"})
    EXPECT_TRUE(fails(fileV1(std::string("{'descr': '") + descr +
                                 "', 'fortran_order': False, 'shape': (2,), }",
                             Bytes(8)),
                      StatusCode::Unimplemented, descr))
        << descr;

  // The data must be exactly what shape and dtype say.
  EXPECT_TRUE(fails(fileV1(good, Bytes(7)), kInvalid, "7 bytes"));
  EXPECT_TRUE(fails(fileV1(good, Bytes(9)), kInvalid, "9 bytes"));
  EXPECT_TRUE(fails(fileV1(good, {}), kInvalid, "0 bytes"));

  // Absurd or malformed shapes.
  auto withShape = [](const std::string &shape) {
    return fileV1("{'descr': '<f4', 'fortran_order': False, 'shape': " + shape +
                      ", }",
                  Bytes(8));
  };
  EXPECT_TRUE(fails(withShape("(1099511627776, 1099511627776)"), kInvalid,
                    "too many elements"));
  EXPECT_TRUE(fails(withShape("(1125899906842624, 1125899906842624, 0)"),
                    kInvalid, "too many elements"));
  EXPECT_TRUE(
      fails(withShape("(99999999999999999999999,)"), kInvalid, "too large"));
  EXPECT_TRUE(fails(withShape("(-2,)"), kInvalid, "negative entry"));
  EXPECT_TRUE(fails(withShape("(1.5,)"), kInvalid, "non-integer"));
  EXPECT_TRUE(fails(withShape("(two,)"), kInvalid, "non-integer"));
  EXPECT_TRUE(fails(withShape("[2]"), kInvalid, "not a tuple"));
  // An unclosed tuple runs past the dict's end.
  EXPECT_TRUE(fails(withShape("(2"), kInvalid, "no '}'"));
  std::string many = "(";
  for (int i = 0; i < 33; ++i)
    many += "1, ";
  EXPECT_TRUE(fails(withShape(many + ")"), kInvalid, "32 dimensions"));
  // Not Python tuples: entries without commas, a lone int, stray commas.
  EXPECT_TRUE(fails(withShape("(1 2)"), kInvalid, "without a comma"));
  EXPECT_TRUE(fails(withShape("(2)"), kInvalid, "is an int, not a tuple"));
  EXPECT_TRUE(fails(withShape("(,2)"), kInvalid, "non-integer"));
  EXPECT_TRUE(fails(withShape("(2,,)"), kInvalid, "non-integer"));
  EXPECT_TRUE(fails(withShape("(1, 2, , )"), kInvalid, "non-integer"));
  EXPECT_TRUE(parse(withShape("( 1 , 2 )")).ok());
  EXPECT_TRUE(parse(withShape("(1,\n 2)")).ok()); // any whitespace, as Python
  EXPECT_TRUE(parse(withShape("(2, )")).ok());

  // A bool is one byte, 0 or 1.
  std::string b1 = "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }";
  EXPECT_TRUE(parse(fileV1(b1, {0, 1, 1})).ok());
  EXPECT_TRUE(fails(fileV1(b1, {0, 2, 1}), kInvalid,
                    "bool element 1 is byte 2, not 0 or 1"));
}

TEST(Npy, CorruptedFilesNeverCrash) {
  std::mt19937 rng(7);
  std::vector<Bytes> seeds;
  for (DType dtype : {DType::F32, DType::Bool, DType::I64})
    seeds.push_back(encodeNpy(randomArray(dtype, {3, 2}, rng)));
  seeds.push_back(
      fileV2(3, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }\n",
             Bytes(16)));
  for (const Bytes &seed : seeds) {
    // Every truncation.
    for (size_t n = 0; n < seed.size(); ++n)
      EXPECT_FALSE(parseNpy(seed.data(), n).ok()) << n;
    // Random flips, with and without truncation.
    for (int iter = 0; iter < 1500; ++iter) {
      Bytes b = seed;
      int flips = 1 + int(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        size_t at = rng() % b.size();
        // Favour the preamble and the header dictionary.
        if (rng() % 2)
          at = rng() % std::min<size_t>(b.size(), 80);
        b[at] =
            rng() % 3 ? uint8_t(rng()) : uint8_t(b[at] ^ (1u << (rng() % 8)));
      }
      if (rng() % 4 == 0)
        b.resize(rng() % (b.size() + 1));
      StatusOr<NpyArray> a = parseNpy(b.data(), b.size());
      if (a.ok()) {
        EXPECT_EQ(a->data.size(),
                  size_t(count(a->shape)) * dtypeSize(a->dtype));
      } else {
        EXPECT_FALSE(a.status().message().empty());
      }
    }
  }
}

TEST(Npy, ToF32) {
  NpyArray d;
  d.dtype = DType::F64;
  d.shape = {2, 2};
  const double values[] = {1.5, -0.25, 1e300, 3.141592653589793};
  d.data.resize(sizeof(values));
  std::memcpy(d.data.data(), values, sizeof(values));
  NpyArray f = toF32(d);
  EXPECT_EQ(f.dtype, DType::F32);
  EXPECT_EQ(f.shape, (Shape{2, 2}));
  ASSERT_EQ(f.data.size(), 16u);
  float out[4];
  std::memcpy(out, f.data.data(), sizeof(out));
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(out[i], float(values[i])) << i;

  // Zero-size f64 and non-f64 arrays pass (the latter unchanged).
  NpyArray empty;
  empty.dtype = DType::F64;
  empty.shape = {0, 3};
  NpyArray e = toF32(empty);
  EXPECT_EQ(e.dtype, DType::F32);
  EXPECT_TRUE(e.data.empty());
  std::mt19937 rng(3);
  for (DType dtype :
       {DType::F32, DType::I32, DType::I64, DType::Bool, DType::F16}) {
    NpyArray a = randomArray(dtype, {5}, rng);
    NpyArray b = toF32(a);
    EXPECT_EQ(b.dtype, dtype);
    EXPECT_EQ(b.data, a.data);
  }
}

TEST(Npy, ToHalfFloat) {
  // f64 data rounds through f32 to bf16 and f16 (IEEE / bfloat16 patterns).
  NpyArray d;
  d.dtype = DType::F64;
  d.shape = {4};
  const double values[] = {1.00390625, -3.0, 65520.0, 0.1};
  d.data.resize(sizeof(values));
  std::memcpy(d.data.data(), values, sizeof(values));
  auto patterns = [](const NpyArray &a) {
    std::vector<uint16_t> p(a.data.size() / 2);
    std::memcpy(p.data(), a.data.data(), a.data.size());
    return p;
  };
  NpyArray b = toHalfFloat(d, DType::BF16);
  EXPECT_EQ(b.dtype, DType::BF16);
  EXPECT_EQ(b.shape, (Shape{4}));
  EXPECT_EQ(patterns(b),
            (std::vector<uint16_t>{0x3f80, 0xc040, 0x4780, 0x3dcd}));
  NpyArray h = toHalfFloat(d, DType::F16);
  EXPECT_EQ(h.dtype, DType::F16);
  EXPECT_EQ(patterns(h),
            (std::vector<uint16_t>{0x3c04, 0xc200, 0x7c00, 0x2e66}));
  // f16 data to bf16 rounds once; the same type, non-float data and other
  // targets pass unchanged.
  EXPECT_EQ(patterns(toHalfFloat(h, DType::BF16)),
            (std::vector<uint16_t>{0x3f80, 0xc040, 0x7f80, 0x3dcd}));
  EXPECT_EQ(toHalfFloat(h, DType::F16).data, h.data);
  std::mt19937 rng(4);
  NpyArray i = randomArray(DType::I32, {3}, rng);
  EXPECT_EQ(toHalfFloat(i, DType::BF16).data, i.data);
  EXPECT_EQ(toHalfFloat(d, DType::F32).dtype, DType::F64);
}

TEST(Npy, Files) {
  std::mt19937 rng(5);
  NpyArray a = randomArray(DType::I32, {4, 3}, rng);
  std::string path = ::testing::TempDir() + "shardrt_npy_test.npy";
  ASSERT_TRUE(writeNpy(path, a).ok());
  StatusOr<NpyArray> b = readNpy(path);
  ASSERT_TRUE(b.ok()) << b.status().toString();
  EXPECT_EQ(b->dtype, DType::I32);
  EXPECT_EQ(b->shape, a.shape);
  EXPECT_EQ(b->data, a.data);

  // A malformed file names itself in the error.
  FILE *f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("not an npy file", f);
  std::fclose(f);
  StatusOr<NpyArray> bad = readNpy(path);
  EXPECT_EQ(bad.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(bad.status().message().find(path), std::string::npos)
      << bad.status().message();
  std::remove(path.c_str());

  StatusOr<NpyArray> missing = readNpy("/nonexistent/dir/x.npy");
  EXPECT_EQ(missing.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(missing.status().message().find("/nonexistent/dir/x.npy"),
            std::string::npos);
  Status noDir = writeNpy("/nonexistent/dir/x.npy", a);
  EXPECT_EQ(noDir.code(), StatusCode::Unavailable);
  EXPECT_NE(noDir.message().find("No such file or directory"),
            std::string::npos)
      << noDir.message();
  // A full disk (small files fail only when flushed at close).
  if (FILE *full = std::fopen("/dev/full", "wb")) {
    std::fclose(full);
    Status s = writeNpy("/dev/full", a);
    EXPECT_EQ(s.code(), StatusCode::Unavailable);
    EXPECT_NE(s.message().find("No space left on device"), std::string::npos)
        << s.message();
  }

  // Not regular files: a directory (reading it used to throw out of the
  // library) and a device that never ends.
  for (const std::string &odd :
       {::testing::TempDir(), std::string("/dev/zero")}) {
    StatusOr<NpyArray> r = readNpy(odd);
    EXPECT_EQ(r.status().code(), StatusCode::InvalidArgument) << odd;
    EXPECT_NE(r.status().message().find("not a regular file"),
              std::string::npos)
        << r.status().message();
  }
}

} // namespace
} // namespace shardrt
