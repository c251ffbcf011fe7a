// SPDX-License-Identifier: Apache-2.0
// .npy parsing and writing. The header is a Python dict literal; we accept exactly the
// subset NumPy writes (string keys, a descr string, a bool, a tuple of non-negative ints)
// and bounds-check every byte before use.
#include "tosa/npy.h"
#include "common/bytes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <cctype>
#include <cstring>
#include <limits>
#include <optional>

#include "common/file_io.h"
#include "tosa/packing.h"

namespace openvgf::tosa::npy {

namespace {

constexpr std::array<std::uint8_t, 6> kMagic = {0x93, 'N', 'U', 'M', 'P', 'Y'};

struct TypeInfo {
  DataType type;
  char kind;  // NumPy kind letter: b i u f V
  std::size_t bytes;
  std::string_view descr;
  std::string_view name;
};

constexpr std::array<TypeInfo, 14> kTypes = {{
    {DataType::Bool, 'b', 1, "|b1", "bool"},
    {DataType::Int8, 'i', 1, "|i1", "int8"},
    {DataType::Int16, 'i', 2, "<i2", "int16"},
    {DataType::Int32, 'i', 4, "<i4", "int32"},
    {DataType::Int64, 'i', 8, "<i8", "int64"},
    {DataType::Uint8, 'u', 1, "|u1", "uint8"},
    {DataType::Uint16, 'u', 2, "<u2", "uint16"},
    {DataType::Uint32, 'u', 4, "<u4", "uint32"},
    {DataType::Uint64, 'u', 8, "<u8", "uint64"},
    {DataType::Float16, 'f', 2, "<f2", "float16"},
    {DataType::Float32, 'f', 4, "<f4", "float32"},
    {DataType::Float64, 'f', 8, "<f8", "float64"},
    {DataType::Void1, 'V', 1, "|V1", "V1"},
    {DataType::Void2, 'V', 2, "<V2", "V2"},
}};

const TypeInfo& info(DataType type) {
  for (const TypeInfo& t : kTypes) {
    if (t.type == type) return t;
  }
  return kTypes[0];
}

/// A cursor over the header text of one file.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool consume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool peek(char c) {
    skipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  Result<std::string> string() {
    skipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) return fail("a quoted string");
    char quote = text_[pos_++];
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') return fail("a string without escapes");
      out.push_back(text_[pos_++]);
    }
    if (pos_ >= text_.size()) return fail("a closing quote");
    ++pos_;
    return out;
  }
  Result<bool> boolean() {
    skipSpace();
    if (text_.substr(pos_).starts_with("True")) {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_).starts_with("False")) {
      pos_ += 5;
      return false;
    }
    return fail("True or False");
  }
  Result<Shape> tuple() {
    if (!consume('(')) return fail("a shape tuple");
    Shape shape;
    while (!consume(')')) {
      skipSpace();
      std::int64_t value = 0;
      std::size_t digits = 0;
      const std::size_t start = pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        int d = text_[pos_++] - '0';
        if (value > (std::numeric_limits<std::int64_t>::max() - d) / 10)
          return fail("a dimension below 2^63");
        value = value * 10 + d;
        ++digits;
      }
      if (digits == 0) return fail("a non-negative integer dimension");
      // The header is a Python literal, where 04 is a syntax error (numpy refuses the file).
      if (digits > 1 && text_[start] == '0') {
        pos_ = start;
        return fail("a dimension without leading zeros");
      }
      // Python 2 era writers append 'L' to longs.
      if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;
      shape.push_back(value);
      if (!consume(',') && !peek(')')) return fail("',' or ')' in the shape tuple");
    }
    return shape;
  }
  bool atEnd() {
    skipSpace();
    return pos_ >= text_.size();
  }
  Unexpected fail(std::string_view expected) const {
    std::string_view rest = text_.substr(pos_, 20);
    return invalidInput("{}: npy header: expected {} at offset {}, got '{}'", source_, expected, pos_, rest);
  }

 private:
  std::string_view text_;
  std::string_view source_;
  std::size_t pos_ = 0;
};

Result<DataType> parseDescr(const std::string& d, std::string_view source) {
  if (d.size() < 2)
    return invalidInput("{}: npy header: expected a dtype such as '<f4', got '{}'", source, d);
  char order = d[0];
  std::string_view body = std::string_view(d).substr(1);
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    order = '=';
    body = d;
  }
  char kind = body[0];
  std::string_view sizeText = body.substr(1);
  std::size_t bytes = 0;
  for (char c : sizeText) {
    if (!std::isdigit(static_cast<unsigned char>(c)) || bytes > 1000) {
      return unsupported("{}: npy header: dtype '{}' is not supported (expected a scalar type such as '<f4')",
                         source, d);
    }
    bytes = bytes * 10 + static_cast<std::size_t>(c - '0');
  }
  if (kind == 'O')
    return unsupported("{}: npy header: object arrays (dtype '{}') are not supported", source, d);
  if (order == '>' && bytes > 1) {
    return unsupported(
        "{}: npy header: big-endian dtype '{}' is not supported; save with "
        "array.astype(array.dtype.newbyteorder('<'))",
        source, d);
  }
  for (const TypeInfo& t : kTypes) {
    if (t.kind == kind && t.bytes == bytes) return t.type;
  }
  return unsupported(
      "{}: npy header: dtype '{}' is not supported (expected bool, int8/16/32/64, "
      "uint8/16/32/64, float16/32/64, V1 or V2)",
      source, d);
}

bool isSignedInt(DataType t) {
  return t == DataType::Int8 || t == DataType::Int16 || t == DataType::Int32 || t == DataType::Int64;
}
bool isUnsignedInt(DataType t) {
  return t == DataType::Uint8 || t == DataType::Uint16 || t == DataType::Uint32 || t == DataType::Uint64;
}

/// Reads element i of an integer/bool array as a 128-bit-safe pair: value as int64 plus an
/// "above int64" flag for uint64 values >= 2^63.
std::int64_t loadInt(const Array& a, std::size_t i, bool& tooLarge) {
  const std::uint8_t* p = a.data.data() + i * elementBytes(a.dtype);
  tooLarge = false;
  switch (a.dtype) {
    case DataType::Bool:
    case DataType::Uint8: return p[0];
    case DataType::Int8: return static_cast<std::int8_t>(p[0]);
    case DataType::Int16: {
      std::int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case DataType::Uint16: {
      std::uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case DataType::Int32: {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DataType::Uint32: {
      std::uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DataType::Int64: {
      std::int64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
    case DataType::Uint64: {
      std::uint64_t v;
      std::memcpy(&v, p, 8);
      if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) tooLarge = true;
      return static_cast<std::int64_t>(v);
    }
    default: return 0;
  }
}

std::string indexString(const Shape& shape, std::int64_t flat) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] == 0 ? 0 : flat % shape[d];
    flat = shape[d] == 0 ? 0 : flat / shape[d];
  }
  return fmt::format("[{}]", fmt::join(idx, ","));
}

}  // namespace

std::size_t elementBytes(DataType type) {
  return info(type).bytes;
}
std::string_view descr(DataType type) {
  return info(type).descr;
}
std::string_view toString(DataType type) {
  return info(type).name;
}

std::optional<DataType> typeNamed(std::string_view name) {
  for (const TypeInfo& t : kTypes) {
    if (t.name == name) return t.type;
  }
  return std::nullopt;
}

std::string typeNames() {
  std::string names;
  for (const TypeInfo& t : kTypes) names += (names.empty() ? "" : ", ") + std::string(t.name);
  return names;
}

Result<Array> parse(std::span<const std::uint8_t> bytes, std::string_view sourceName) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0) {
    return invalidInput("{}: expected a NumPy .npy file starting with \\x93NUMPY, got {} bytes without it",
                        sourceName, bytes.size());
  }
  std::uint8_t major = bytes[6];
  std::uint8_t minor = bytes[7];
  if (major < 1 || major > 3 || minor != 0) {
    return unsupported("{}: npy format version {}.{} is not supported (expected 1.0, 2.0 or 3.0)", sourceName,
                       major, minor);
  }
  std::size_t lenBytes = major == 1 ? 2 : 4;
  std::size_t headerStart = 8 + lenBytes;
  if (bytes.size() < headerStart) {
    return invalidInput("{}: npy file truncated in the header length field ({} bytes)", sourceName,
                        bytes.size());
  }
  std::size_t headerLen = lenBytes == 2 ? loadLe<std::uint16_t>(bytes, 8) : loadLe<std::uint32_t>(bytes, 8);
  if (headerLen > bytes.size() - headerStart) {
    return invalidInput("{}: npy header: expected {} header bytes, got {} (file truncated)", sourceName,
                        headerLen, bytes.size() - headerStart);
  }
  std::string_view text(reinterpret_cast<const char*>(bytes.data() + headerStart), headerLen);
  // The format ends the header with a newline; numpy refuses any other last byte.
  if (text.empty() || text.back() != '\n') {
    return invalidInput("{}: npy header: expected a header that ends with a newline, got {}", sourceName,
                        text.empty() ? std::string("an empty header") : fmt::format("byte 0x{:02x}", text.back()));
  }
  HeaderParser p(text, sourceName);
  if (!p.consume('{')) return p.fail("'{'");
  std::optional<std::string> descrText;
  std::optional<bool> fortran;
  std::optional<Shape> shape;
  while (!p.consume('}')) {
    OPENVGF_ASSIGN_OR_RETURN(std::string key, p.string());
    if (!p.consume(':')) return p.fail("':'");
    if (key == "descr") {
      if (p.peek('[')) {
        return unsupported("{}: npy header: structured dtypes are not supported (expected a scalar dtype)",
                           sourceName);
      }
      OPENVGF_ASSIGN_OR_RETURN(descrText, p.string());
    } else if (key == "fortran_order") {
      OPENVGF_ASSIGN_OR_RETURN(fortran, p.boolean());
    } else if (key == "shape") {
      OPENVGF_ASSIGN_OR_RETURN(shape, p.tuple());
    } else {
      return invalidInput("{}: npy header: expected keys descr, fortran_order and shape, got '{}'",
                          sourceName, key);
    }
    if (!p.consume(',') && !p.peek('}')) return p.fail("',' or '}'");
  }
  if (!p.atEnd()) return p.fail("the end of the header after '}'");
  if (!descrText || !fortran || !shape) {
    return invalidInput("{}: npy header: expected keys descr, fortran_order and shape, some are missing",
                        sourceName);
  }
  if (*fortran && shape->size() > 1) {
    return unsupported(
        "{}: npy header: Fortran-order arrays are not supported; save with "
        "numpy.ascontiguousarray(array)",
        sourceName);
  }
  Array array;
  OPENVGF_ASSIGN_OR_RETURN(array.dtype, parseDescr(*descrText, sourceName));
  array.shape = *shape;
  std::optional<std::int64_t> count = checkedElementCount(array.shape);
  std::size_t esize = elementBytes(array.dtype);
  std::size_t dataStart = headerStart + headerLen;
  std::size_t available = bytes.size() - dataStart;
  if (!count || static_cast<std::uint64_t>(*count) > available / esize) {
    return invalidInput(
        "{}: npy data: expected {} elements of {} ({} bytes) for shape {}, got {} bytes "
        "(file truncated)",
        sourceName, count ? fmt::to_string(*count) : std::string("too many"), toString(array.dtype),
        count ? fmt::to_string(static_cast<std::uint64_t>(*count) * esize) : std::string("> 2^63"),
        shapeToString(array.shape), available);
  }
  std::size_t need = static_cast<std::size_t>(*count) * esize;
  if (available != need) {
    return invalidInput("{}: npy data: expected {} bytes for shape {} of {}, got {} (trailing bytes)",
                        sourceName, need, shapeToString(array.shape), toString(array.dtype), available);
  }
  array.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(dataStart), bytes.end());
  return array;
}

Result<Array> readFile(const std::filesystem::path& path) {
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::uint8_t> bytes, ::openvgf::readFile(path));
  return parse(bytes, path.string());
}

std::vector<std::uint8_t> serialize(const Array& array) {
  std::string shapeText = "(";
  for (std::size_t i = 0; i < array.shape.size(); ++i) {
    shapeText += fmt::format("{}", array.shape[i]);
    if (i + 1 < array.shape.size() || array.shape.size() == 1) shapeText += ",";
    if (i + 1 < array.shape.size()) shapeText += " ";
  }
  shapeText += ")";
  std::string header =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr(array.dtype), shapeText);
  // Pad with spaces and a final newline so data starts at a multiple of 64 bytes.
  std::size_t prefix = header.size() + 1 + 10 > 65535 ? 12 : 10;
  std::size_t total = prefix + header.size() + 1;
  std::size_t padded = (total + 63) / 64 * 64;
  header.append(padded - total, ' ');
  header.push_back('\n');
  std::vector<std::uint8_t> out(kMagic.begin(), kMagic.end());
  out.push_back(prefix == 10 ? 1 : 2);
  out.push_back(0);
  std::size_t len = header.size();
  for (std::size_t i = 0; i < prefix - 8; ++i) out.push_back(static_cast<std::uint8_t>(len >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), array.data.begin(), array.data.end());
  return out;
}

Status writeFile(const std::filesystem::path& path, const Array& array) {
  std::vector<std::uint8_t> bytes = serialize(array);
  return writeFileAtomic(path, std::span<const std::uint8_t>(bytes));
}

Result<HostTensor> toHostTensor(const Array& array, DType dtype, std::string_view what) {
  std::optional<std::int64_t> count = checkedElementCount(array.shape);
  if (!count || array.data.size() != static_cast<std::size_t>(*count) * elementBytes(array.dtype)) {
    return invalidInput("{}: npy array: data size {} does not match shape {} of {}", what, array.data.size(),
                        shapeToString(array.shape), toString(array.dtype));
  }
  for (std::size_t d = 0; d < array.shape.size(); ++d) {
    if (array.shape[d] == 0) {
      return invalidInput("{}: expected every dimension >= 1 (TOSA tensors are never empty), got shape {}",
                          what, shapeToString(array.shape));
    }
  }
  HostTensor out(dtype, array.shape);
  auto mismatch = [&](std::string_view accepted) {
    return invalidInput("{}: expected a NumPy array of {} for TOSA type {}, got {}", what, accepted,
                        toString(dtype), toString(array.dtype));
  };
  std::size_t n = static_cast<std::size_t>(*count);
  switch (dtype) {
    case DType::Bool:
    case DType::Int4:
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int48:
    case DType::Shape: {
      bool integral = array.dtype == DataType::Bool || isSignedInt(array.dtype) || isUnsignedInt(array.dtype);
      if (!integral) {
        return mismatch(dtype == DType::Bool ? "bool (|b1) or 0/1 integers" : "integers");
      }
      std::size_t hostBytes = hostElementBytes(dtype);
      // Same width, any signedness: take the signless bit pattern as TOSA does.
      bool bitCopy = dtype != DType::Bool && dtype != DType::Int4 && dtype != DType::Int48 &&
                     array.dtype != DataType::Bool && elementBytes(array.dtype) == hostBytes;
      if (bitCopy) {
        out.bytes = array.data;
        return out;
      }
      std::int64_t lo = 0;
      std::int64_t hi = 1;
      if (dtype != DType::Bool) {
        int bits = valueBits(dtype);
        lo = bits >= 64 ? std::numeric_limits<std::int64_t>::min() : -(std::int64_t{1} << (bits - 1));
        hi = bits >= 64 ? std::numeric_limits<std::int64_t>::max() : (std::int64_t{1} << (bits - 1)) - 1;
      }
      for (std::size_t i = 0; i < n; ++i) {
        bool tooLarge = false;
        std::int64_t v = loadInt(array, i, tooLarge);
        if (tooLarge || v < lo || v > hi) {
          return invalidInput("{}: element {} = {} is outside the range [{}, {}] of {}", what,
                              indexString(array.shape, static_cast<std::int64_t>(i)),
                              tooLarge ? std::string("> 2^63") : fmt::to_string(v), lo, hi, toString(dtype));
        }
        std::uint8_t* dst = out.bytes.data() + i * hostBytes;
        switch (hostBytes) {
          case 1: {
            auto s = static_cast<std::int8_t>(v);
            std::memcpy(dst, &s, 1);
            break;
          }
          case 2: {
            auto s = static_cast<std::int16_t>(v);
            std::memcpy(dst, &s, 2);
            break;
          }
          case 4: {
            auto s = static_cast<std::int32_t>(v);
            std::memcpy(dst, &s, 4);
            break;
          }
          default: std::memcpy(dst, &v, 8); break;
        }
      }
      return out;
    }
    case DType::Fp32:
      if (array.dtype != DataType::Float32) return mismatch("float32 (<f4)");
      break;
    case DType::Fp16:
      if (array.dtype != DataType::Float16) return mismatch("float16 (<f2)");
      break;
    case DType::Bf16:
      if (array.dtype != DataType::Void2 && array.dtype != DataType::Uint16) {
        return mismatch("bfloat16 bit patterns (<V2 or <u2)");
      }
      break;
    case DType::Fp8E4M3:
    case DType::Fp8E5M2:
      if (array.dtype != DataType::Uint8 && array.dtype != DataType::Void1 && array.dtype != DataType::Int8) {
        return mismatch("fp8 bit patterns (|u1 or |V1)");
      }
      break;
    case DType::Unknown: return invalidInput("{}: cannot convert a NumPy array to TOSA type UNKNOWN", what);
  }
  out.bytes = array.data;
  return out;
}

Result<HostTensor> toHostTensor(const Array& array, DType dtype, const Shape& expectedShape,
                                std::string_view what) {
  if (array.shape != expectedShape) {
    return invalidInput("{}: expected shape {}, got {}", what, shapeToString(expectedShape),
                        shapeToString(array.shape));
  }
  return toHostTensor(array, dtype, what);
}

Result<Array> fromHostTensor(const HostTensor& tensor, bool asUnsigned) {
  Array out;
  out.shape = tensor.shape;
  switch (tensor.dtype) {
    case DType::Bool: out.dtype = DataType::Bool; break;
    case DType::Int4:
    case DType::Int8: out.dtype = asUnsigned ? DataType::Uint8 : DataType::Int8; break;
    case DType::Int16: out.dtype = asUnsigned ? DataType::Uint16 : DataType::Int16; break;
    case DType::Int32: out.dtype = asUnsigned ? DataType::Uint32 : DataType::Int32; break;
    case DType::Int48:
    case DType::Shape: out.dtype = DataType::Int64; break;
    case DType::Fp32: out.dtype = DataType::Float32; break;
    case DType::Fp16: out.dtype = DataType::Float16; break;
    case DType::Bf16: out.dtype = DataType::Void2; break;
    case DType::Fp8E4M3:
    case DType::Fp8E5M2: out.dtype = DataType::Uint8; break;
    case DType::Unknown: return invalidInput("cannot write a tensor of TOSA type UNKNOWN as .npy");
  }
  std::optional<std::int64_t> count = checkedElementCount(tensor.shape);
  if (!count || tensor.bytes.size() != static_cast<std::size_t>(*count) * elementBytes(out.dtype)) {
    return invalidInput(
        "host tensor {} {}: expected {} bytes, got {}", toString(tensor.dtype), shapeToString(tensor.shape),
        count ? static_cast<std::size_t>(*count) * elementBytes(out.dtype) : 0, tensor.bytes.size());
  }
  out.data = tensor.bytes;
  return out;
}

Result<HostTensor> readTensor(const std::filesystem::path& path, DType dtype) {
  OPENVGF_ASSIGN_OR_RETURN(Array array, readFile(path));
  return toHostTensor(array, dtype, path.string());
}

Result<HostTensor> readTensor(const std::filesystem::path& path, DType dtype, const Shape& expectedShape) {
  OPENVGF_ASSIGN_OR_RETURN(Array array, readFile(path));
  return toHostTensor(array, dtype, expectedShape, path.string());
}

Status writeTensor(const std::filesystem::path& path, const HostTensor& tensor, bool asUnsigned) {
  auto array = fromHostTensor(tensor, asUnsigned);
  if (!array) return Unexpected(std::move(array).error().addContext(path.string()));
  return writeFile(path, *array);
}

}  // namespace openvgf::tosa::npy
