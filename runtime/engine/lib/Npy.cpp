//===- Npy.cpp - NumPy .npy I/O
//--------------------------------------------===//

#include "shardrt/Npy.h"

#include "shardrt/cpu/Kernels.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>

#include <sys/stat.h>

namespace shardrt {
namespace {

Status bad(const std::string &message) {
  return Status::invalidArgument("malformed .npy: " + message);
}

struct DTypeCode {
  const char *code;
  DType dtype;
};
constexpr DTypeCode kCodes[] = {
    {"<f4", DType::F32}, {"<f8", DType::F64}, {"<f2", DType::F16},
    {"<i4", DType::I32}, {"<i8", DType::I64}, {"|b1", DType::Bool},
};

/// `text` cut to 40 characters, for a message.
std::string shortened(const std::string &text) {
  return text.size() <= 40 ? text : text.substr(0, 37) + "...";
}

/// Whether a dict value's text is one Python literal of the kinds numpy
/// writes: a quoted string, a tuple or list, or a bare word (False, 3).
/// Two values without a comma between ("False 'shape': (2,)") are not.
bool oneLiteral(const std::string &v) {
  if (v.empty())
    return false;
  char first = v.front(), last = v.back();
  if (first == '\'' || first == '"')
    return v.size() >= 2 && last == first && v.find(first, 1) == v.size() - 1;
  if (first == '(' || first == '[')
    return last == (first == '(' ? ')' : ']');
  for (char c : v)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' &&
        c != '+' && c != '-')
      return false;
  return true;
}

/// The header's dict literal, key -> value text. numpy reads it with
/// ast.literal_eval, so a key given twice keeps its last value here too.
/// Values are kept as text (a quoted string, False/True, a tuple); keys
/// must be quoted strings.
StatusOr<std::map<std::string, std::string>>
headerDict(const std::string &header) {
  std::map<std::string, std::string> dict;
  size_t i = 0, n = header.size();
  auto skipSpaces = [&] {
    while (i < n && std::isspace(static_cast<unsigned char>(header[i])))
      ++i;
  };
  auto notADict = [&](const std::string &why) {
    return bad("the header is not a Python dict literal (" + why + ")");
  };
  skipSpaces();
  if (i == n || header[i] != '{')
    return notADict("no '{'");
  ++i;
  for (;;) {
    skipSpaces();
    if (i < n && header[i] == '}')
      break;
    if (i == n || (header[i] != '\'' && header[i] != '"'))
      return notADict("a key that is not a quoted string");
    size_t close = header.find(header[i], i + 1);
    if (close == std::string::npos)
      return notADict("an unterminated key");
    std::string key = header.substr(i + 1, close - i - 1);
    i = close + 1;
    skipSpaces();
    if (i == n || header[i] != ':')
      return notADict("no ':' after '" + shortened(key) + "'");
    ++i;
    skipSpaces();
    size_t start = i, depth = 0;
    char quote = 0;
    for (; i < n; ++i) {
      char c = header[i];
      if (quote) {
        quote = c == quote ? 0 : quote;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '(' || c == '[') {
        ++depth;
      } else if ((c == ')' || c == ']') && depth > 0) {
        --depth;
      } else if ((c == ',' || c == '}') && depth == 0) {
        break;
      }
    }
    if (i == n)
      return notADict("no '}'");
    size_t stop = i;
    while (stop > start &&
           std::isspace(static_cast<unsigned char>(header[stop - 1])))
      --stop;
    std::string value = header.substr(start, stop - start);
    if (!oneLiteral(value))
      return notADict("the value of '" + shortened(key) +
                      "' is not one literal");
    dict[key] = value;
    if (header[i] == '}')
      break;
    ++i; // the comma
  }
  ++i; // the brace
  skipSpaces();
  if (i != n)
    return notADict("text after the '}'");
  return dict;
}

/// A Python tuple of non-negative ints, as numpy's header writes it:
/// "()", "(3,)", "(3, 2)", "(3, 2,)". Entries need commas between them and
/// a one-entry tuple needs its trailing comma ("(3)" is an int in Python).
StatusOr<std::vector<int64_t>> parseShape(const std::string &text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return bad("shape '" + text + "' is not a tuple");
  std::vector<int64_t> shape;
  std::string inner = text.substr(1, text.size() - 2);
  size_t i = 0;
  auto skipSpaces = [&] {
    while (i < inner.size() &&
           std::isspace(static_cast<unsigned char>(inner[i])))
      ++i;
  };
  bool trailingComma = false;
  skipSpaces();
  while (i < inner.size()) {
    if (inner[i] == '-')
      return bad("shape '" + text + "' has a negative entry");
    if (inner[i] < '0' || inner[i] > '9')
      return bad("shape '" + text + "' has a non-integer entry");
    int64_t v = 0;
    for (; i < inner.size() && inner[i] >= '0' && inner[i] <= '9'; ++i) {
      if (v > (int64_t(1) << 50))
        return bad("shape entry too large");
      v = v * 10 + (inner[i] - '0');
    }
    if (i < inner.size() &&
        !std::isspace(static_cast<unsigned char>(inner[i])) && inner[i] != ',')
      return bad("shape '" + text + "' has a non-integer entry");
    shape.push_back(v);
    if (shape.size() > 32)
      return bad("more than 32 dimensions");
    skipSpaces();
    trailingComma = i < inner.size() && inner[i] == ',';
    if (i < inner.size() && !trailingComma)
      return bad("shape '" + text + "' has entries without a comma between");
    if (trailingComma)
      ++i;
    skipSpaces();
  }
  if (shape.size() == 1 && !trailingComma)
    return bad("shape '" + text + "' is an int, not a tuple (write '(" +
               std::to_string(shape[0]) + ",)')");
  return shape;
}

} // namespace

StatusOr<NpyArray> parseNpy(const uint8_t *bytes, size_t size) {
  if (size < 10 || std::memcmp(bytes, "\x93NUMPY", 6) != 0)
    return bad("no \\x93NUMPY magic");
  uint8_t major = bytes[6];
  size_t headerLen, pos;
  if (major == 1) {
    headerLen = bytes[8] | size_t(bytes[9]) << 8;
    pos = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12)
      return bad("truncated header");
    headerLen = bytes[8] | size_t(bytes[9]) << 8 | size_t(bytes[10]) << 16 |
                size_t(bytes[11]) << 24;
    pos = 12;
  } else {
    return bad("unsupported format version " + std::to_string(major));
  }
  if (headerLen > size - pos)
    return bad("the header runs past the end of the file");
  std::string header(reinterpret_cast<const char *>(bytes + pos), headerLen);
  pos += headerLen;
  SHARDRT_ASSIGN_OR_RETURN(auto dict, headerDict(header));
  std::string descr = dict["descr"], order = dict["fortran_order"],
              shapeText = dict["shape"];
  if (descr.size() < 2 || order.empty() || shapeText.empty())
    return bad("the header lacks descr, fortran_order or shape");
  if (order != "False")
    return Status::unimplemented(".npy in Fortran order; save with "
                                 "numpy.ascontiguousarray first");
  descr = descr.substr(1, descr.size() - 2);
  NpyArray a;
  bool known = false;
  for (const DTypeCode &c : kCodes)
    if (descr == c.code)
      a.dtype = c.dtype, known = true;
  if (!known)
    return Status::unimplemented(".npy dtype '" + descr + "' is not supported");
  SHARDRT_ASSIGN_OR_RETURN(a.shape, parseShape(shapeText));
  uint64_t count = 1;
  for (int64_t d : a.shape) {
    if (d != 0 && count > (uint64_t(1) << 50) / uint64_t(d))
      return bad("the shape has too many elements");
    count *= uint64_t(d);
  }
  uint64_t want = count * dtypeSize(a.dtype);
  if (size - pos != want)
    return bad("the data has " + std::to_string(size - pos) +
               " bytes; shape and dtype say " + std::to_string(want));
  a.data.assign(bytes + pos, bytes + size);
  // numpy stores a bool as one byte, 0 or 1; the kernels read any other
  // byte as a third value.
  if (a.dtype == DType::Bool)
    for (size_t k = 0; k < a.data.size(); ++k)
      if (a.data[k] > 1)
        return bad("bool element " + std::to_string(k) + " is byte " +
                   std::to_string(a.data[k]) + ", not 0 or 1");
  return a;
}

StatusOr<NpyArray> readNpy(const std::string &path) {
  // Only a regular file has a size to read up to: a directory would make
  // the stream throw, and /dev/zero or a FIFO would never end.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return Status::invalidArgument("cannot open '" + path +
                                   "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return Status::invalidArgument("'" + path + "' is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::invalidArgument("cannot open '" + path + "'");
  std::vector<uint8_t> bytes(size_t(st.st_size));
  in.read(reinterpret_cast<char *>(bytes.data()),
          std::streamsize(bytes.size()));
  if (size_t(in.gcount()) != bytes.size())
    return Status::invalidArgument("cannot read '" + path + "' whole");
  StatusOr<NpyArray> a = parseNpy(bytes.data(), bytes.size());
  if (!a.ok())
    return Status(a.status().code(), path + ": " + a.status().message());
  return a;
}

std::vector<uint8_t> encodeNpy(const NpyArray &array) {
  if (array.dtype == DType::BF16) {
    // NumPy has no bfloat16: widen (exactly) to f32 rather than label two-
    // byte elements '<f4', which no reader could load.
    NpyArray wide;
    wide.dtype = DType::F32;
    wide.shape = array.shape;
    wide.data.assign(array.data.size() / 2 * 4, 0);
    for (size_t i = 0; i < array.data.size() / 2; ++i) {
      wide.data[4 * i + 2] = array.data[2 * i];
      wide.data[4 * i + 3] = array.data[2 * i + 1];
    }
    return encodeNpy(wide);
  }
  std::string descr = "<f4";
  for (const DTypeCode &c : kCodes)
    if (c.dtype == array.dtype)
      descr = c.code;
  std::string shape = "(";
  for (size_t i = 0; i < array.shape.size(); ++i)
    shape +=
        std::to_string(array.shape[i]) + (array.shape.size() == 1      ? ","
                                          : i + 1 < array.shape.size() ? ", "
                                                                       : "");
  shape += ")";
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so that the data starts 64-byte aligned (format 1.0).
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> out = {0x93,
                              'N',
                              'U',
                              'M',
                              'P',
                              'Y',
                              1,
                              0,
                              uint8_t(header.size() & 0xff),
                              uint8_t(header.size() >> 8)};
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), array.data.begin(), array.data.end());
  return out;
}

Status writeNpy(const std::string &path, const NpyArray &array) {
  std::vector<uint8_t> bytes = encodeNpy(array);
  auto failure = [&](int error) {
    return Status::unavailable("cannot write '" + path +
                               "': " + std::strerror(error));
  };
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return failure(errno);
  // A full disk may show only when the buffered tail is flushed at close,
  // which an ofstream's destructor would have ignored.
  bool wrote = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  int error = wrote ? 0 : errno;
  if (std::fclose(f) != 0 && wrote)
    wrote = false, error = errno;
  return wrote ? Status() : failure(error);
}

NpyArray toHalfFloat(NpyArray array, DType target) {
  bool half = target == DType::BF16 || target == DType::F16;
  if (!half || array.dtype == target)
    return array;
  std::optional<cpu::ElemType> from;
  if (array.dtype == DType::F64 || array.dtype == DType::F32)
    array = toF32(std::move(array)), from = cpu::ElemType::F32;
  else if (array.dtype == DType::BF16)
    from = cpu::ElemType::BF16;
  else if (array.dtype == DType::F16)
    from = cpu::ElemType::F16;
  if (!from)
    return array;
  int64_t n = int64_t(array.data.size() / dtypeSize(array.dtype));
  std::vector<uint8_t> out(size_t(n) * 2);
  cpu::cast(*from, array.data.data(),
            target == DType::BF16 ? cpu::ElemType::BF16 : cpu::ElemType::F16,
            out.data(), n);
  array.data = std::move(out);
  array.dtype = target;
  return array;
}

NpyArray toF32(NpyArray array) {
  if (array.dtype != DType::F64)
    return array;
  size_t n = array.data.size() / 8;
  std::vector<uint8_t> out(n * 4);
  for (size_t i = 0; i < n; ++i) {
    double d;
    std::memcpy(&d, array.data.data() + 8 * i, 8);
    float f = float(d);
    std::memcpy(out.data() + 4 * i, &f, 4);
  }
  array.data = std::move(out);
  array.dtype = DType::F32;
  return array;
}

} // namespace shardrt
