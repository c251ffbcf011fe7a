// SPDX-License-Identifier: Apache-2.0
// Conversions between HostTensor and the interpreter's Value, integer range helpers and the
// operator context (see value.h).
#include "tosa/reference/value.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace openvgf::tosa::reference {

namespace {

template <typename T>
T loadAt(const std::vector<std::uint8_t>& bytes, std::size_t i) {
  T v{};
  std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
void storeAt(std::vector<std::uint8_t>& bytes, std::size_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}

}  // namespace

Value::Value(DType type, Shape dims) : dtype(type), shape(std::move(dims)) {
  auto n = static_cast<std::size_t>(elementCount(shape));
  if (tosa::isFloat(dtype)) {
    floats.assign(n, 0.0);
  } else {
    ints.assign(n, 0);
  }
}

Value fromHost(const HostTensor& tensor) {
  Value v(tensor.dtype, tensor.shape);
  auto n = static_cast<std::size_t>(tensor.size());
  if (tensor.bytes.size() < n * hostElementBytes(tensor.dtype)) return v;  // callers validate sizes
  for (std::size_t i = 0; i < n; ++i) {
    switch (tensor.dtype) {
      case DType::Bool: v.ints[i] = loadAt<std::uint8_t>(tensor.bytes, i) != 0 ? 1 : 0; break;
      case DType::Int4:
      case DType::Int8: v.ints[i] = loadAt<std::int8_t>(tensor.bytes, i); break;
      case DType::Int16: v.ints[i] = loadAt<std::int16_t>(tensor.bytes, i); break;
      case DType::Int32: v.ints[i] = loadAt<std::int32_t>(tensor.bytes, i); break;
      case DType::Int48: v.ints[i] = wrapTo(loadAt<std::int64_t>(tensor.bytes, i), DType::Int48); break;
      case DType::Shape: v.ints[i] = loadAt<std::int64_t>(tensor.bytes, i); break;
      case DType::Fp32: v.floats[i] = loadAt<float>(tensor.bytes, i); break;
      case DType::Fp16: v.floats[i] = fp16ToDouble(loadAt<std::uint16_t>(tensor.bytes, i)); break;
      case DType::Bf16: v.floats[i] = bf16ToDouble(loadAt<std::uint16_t>(tensor.bytes, i)); break;
      case DType::Fp8E4M3: v.floats[i] = fp8E4M3ToDouble(loadAt<std::uint8_t>(tensor.bytes, i)); break;
      case DType::Fp8E5M2: v.floats[i] = fp8E5M2ToDouble(loadAt<std::uint8_t>(tensor.bytes, i)); break;
      case DType::Unknown: break;
    }
  }
  return v;
}

HostTensor toHost(const Value& value) {
  HostTensor t(value.dtype, value.shape);
  auto n = static_cast<std::size_t>(t.size());
  for (std::size_t i = 0; i < n; ++i) {
    switch (value.dtype) {
      case DType::Bool: storeAt<std::uint8_t>(t.bytes, i, value.ints[i] != 0 ? 1 : 0); break;
      case DType::Int4:
      case DType::Int8: storeAt<std::int8_t>(t.bytes, i, static_cast<std::int8_t>(wrapTo(value.ints[i], value.dtype))); break;
      case DType::Int16: storeAt<std::int16_t>(t.bytes, i, static_cast<std::int16_t>(wrapTo(value.ints[i], DType::Int16))); break;
      case DType::Int32: storeAt<std::int32_t>(t.bytes, i, static_cast<std::int32_t>(wrapTo(value.ints[i], DType::Int32))); break;
      case DType::Int48: storeAt<std::int64_t>(t.bytes, i, wrapTo(value.ints[i], DType::Int48)); break;
      case DType::Shape: storeAt<std::int64_t>(t.bytes, i, value.ints[i]); break;
      case DType::Fp32: storeAt<float>(t.bytes, i, static_cast<float>(value.floats[i])); break;
      case DType::Fp16: storeAt<std::uint16_t>(t.bytes, i, doubleToFp16(value.floats[i])); break;
      case DType::Bf16: storeAt<std::uint16_t>(t.bytes, i, doubleToBf16(value.floats[i])); break;
      case DType::Fp8E4M3: storeAt<std::uint8_t>(t.bytes, i, doubleToFp8E4M3(value.floats[i])); break;
      case DType::Fp8E5M2: storeAt<std::uint8_t>(t.bytes, i, doubleToFp8E5M2(value.floats[i])); break;
      case DType::Unknown: break;
    }
  }
  return t;
}

std::int64_t minOf(DType type) {
  switch (type) {
    case DType::Bool: return 0;
    case DType::Int4: return -8;
    case DType::Int8: return -128;
    case DType::Int16: return -32768;
    case DType::Int32: return std::numeric_limits<std::int32_t>::min();
    case DType::Int48: return -(std::int64_t{1} << 47);
    default: return std::numeric_limits<std::int64_t>::min();
  }
}

std::int64_t maxOf(DType type) {
  switch (type) {
    case DType::Bool: return 1;
    case DType::Int4: return 7;
    case DType::Int8: return 127;
    case DType::Int16: return 32767;
    case DType::Int32: return std::numeric_limits<std::int32_t>::max();
    case DType::Int48: return (std::int64_t{1} << 47) - 1;
    default: return std::numeric_limits<std::int64_t>::max();
  }
}

std::int64_t wrapTo(std::int64_t v, DType type) {
  int bits = 64;
  switch (type) {
    case DType::Bool: return v != 0 ? 1 : 0;
    case DType::Int4: bits = 4; break;
    case DType::Int8: bits = 8; break;
    case DType::Int16: bits = 16; break;
    case DType::Int32: bits = 32; break;
    case DType::Int48: bits = 48; break;
    default: return v;
  }
  // Shift through unsigned arithmetic: no signed overflow, then sign-extend.
  auto u = static_cast<std::uint64_t>(v) << (64 - bits);
  return static_cast<std::int64_t>(u) >> (64 - bits);
}

std::int64_t clipTo(std::int64_t v, DType type) {
  return std::min(std::max(v, minOf(type)), maxOf(type));
}

std::vector<std::int64_t> stridesOf(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

Result<void> Context::checkOutputShape(std::size_t k, const Shape& shape) const {
  std::int64_t count = 1;
  for (std::int64_t d : shape) {
    if (d < 1) return error("output {}: expected dimensions >= 1, got {}", k, shapeToString(shape));
    if (count > kMaxElements / d) {
      return notSupported("output {}: shape {} has more than {} elements", k, shapeToString(shape), kMaxElements);
    }
    count *= d;
  }
  if (k < outShapes.size() && k < outShapeKnown.size() && outShapeKnown[k] && outShapes[k] != shape) {
    return error("output {}: expected shape {} from the inputs and attributes, got declared {}", k, shapeToString(shape),
                 shapeToString(outShapes[k]));
  }
  return {};
}

std::string Context::where() const {
  return fmt::format("block {}: operator {} ({})", block_, index_, toString(op_.op));
}

void Context::addDiagnostic(std::string message) {
  if (strict_) strictFailure_ = true;
  constexpr int kMaxPerOperator = 4;  // the first few name the problem; the rest add noise
  if (reported_++ >= kMaxPerOperator) return;
  diagnostics_.push_back(Diagnostic{block_, index_, op_.op, std::move(message)});
}

std::int64_t scalarInt(const Value& v) {
  if (!v.ints.empty()) return v.ints[0];
  if (!v.floats.empty() && std::isfinite(v.floats[0])) {
    constexpr double kLimit = 9.0e18;  // inside int64: the conversion below is defined
    return static_cast<std::int64_t>(std::clamp(v.floats[0], -kLimit, kLimit));
  }
  return 0;
}

double scalarFloat(const Value& v) {
  if (!v.floats.empty()) return v.floats[0];
  if (!v.ints.empty()) return static_cast<double>(v.ints[0]);
  return 0.0;
}

bool isZeroScalar(const Value& v) {
  if (!v.ints.empty()) return v.ints[0] == 0;
  if (!v.floats.empty()) return v.floats[0] == 0.0;
  return true;
}

std::vector<std::int64_t> shapeValues(const Value& v) {
  if (!v.ints.empty()) return v.ints;
  std::vector<std::int64_t> out;
  for (double f : v.floats) out.push_back(std::isfinite(f) ? static_cast<std::int64_t>(std::clamp(f, -9.0e18, 9.0e18)) : 0);
  return out;
}

double applyMax(double a, double b, NanMode mode) {
  bool an = std::isnan(a);
  bool bn = std::isnan(b);
  if (an || bn) {
    if (mode == NanMode::Ignore) return an ? b : a;
    return std::numeric_limits<double>::quiet_NaN();
  }
  return a >= b ? a : b;
}

double applyMin(double a, double b, NanMode mode) {
  bool an = std::isnan(a);
  bool bn = std::isnan(b);
  if (an || bn) {
    if (mode == NanMode::Ignore) return an ? b : a;
    return std::numeric_limits<double>::quiet_NaN();
  }
  return a <= b ? a : b;
}

}  // namespace openvgf::tosa::reference
