// SPDX-License-Identifier: Apache-2.0
// compareTensors / compareNpy (openvgf/openvgf.hpp): element-by-element error figures of two
// arrays in TOSA's terms (absolute error, ulps of the float type as tosa/compliance.h counts
// them), for `openvgf compare a.npy b.npy`.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstring>
#include <optional>

#include "api/public_state.h"
#include "tosa/compliance.h"
#include "tosa/npy.h"

namespace openvgf {
namespace {

// An array's values as doubles, and the TOSA float type they are in (none: integers, bool, FP64).
struct Values {
  std::vector<double> values;
  std::optional<tosa::DType> floatType;
  bool isFp64 = false;
};

bool isFloat(DataType t) {
  return t == DataType::Float16 || t == DataType::BFloat16 || t == DataType::Float32 ||
         t == DataType::Float8E4M3 || t == DataType::Float8E5M2;
}

Values valuesOf(const Tensor& t) {
  Values v;
  v.values = toDoubles(t);
  if (isFloat(t.dtype())) v.floatType = toDType(t.dtype());
  v.isFp64 = t.dtype() == DataType::Float64;
  return v;
}

template <typename T>
void decode(const tosa::npy::Array& array, std::vector<double>& out) {
  out.resize(static_cast<std::size_t>(array.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    T value;
    std::memcpy(&value, array.data.data() + i * sizeof(T), sizeof(T));
    out[i] = static_cast<double>(value);
  }
}

Values valuesOf(const tosa::npy::Array& array, const std::string& path) {
  using tosa::npy::DataType;
  Values v;
  switch (array.dtype) {
    case DataType::Bool:
    case DataType::Uint8: decode<std::uint8_t>(array, v.values); break;
    case DataType::Int8: decode<std::int8_t>(array, v.values); break;
    case DataType::Int16: decode<std::int16_t>(array, v.values); break;
    case DataType::Uint16: decode<std::uint16_t>(array, v.values); break;
    case DataType::Int32: decode<std::int32_t>(array, v.values); break;
    case DataType::Uint32: decode<std::uint32_t>(array, v.values); break;
    case DataType::Int64: decode<std::int64_t>(array, v.values); break;
    case DataType::Uint64: decode<std::uint64_t>(array, v.values); break;
    case DataType::Float32:
      decode<float>(array, v.values);
      v.floatType = tosa::DType::Fp32;
      break;
    case DataType::Float64:
      decode<double>(array, v.values);
      v.isFp64 = true;
      break;
    case DataType::Float16: {
      tosa::HostTensor host = unwrap(tosa::npy::toHostTensor(array, tosa::DType::Fp16, path));
      v.values = unwrap(tosa::compliance::toDoubles(host));
      v.floatType = tosa::DType::Fp16;
      break;
    }
    case DataType::Void1:
    case DataType::Void2:
      raiseInvalid(
          fmt::format("{}: dtype: expected a numeric array, got raw bytes ({}); compare BF16 / FP8 payloads "
                      "through compareTensors with their TOSA type",
                      path, tosa::npy::toString(array.dtype)));
  }
  return v;
}

// Fewer fraction bits first: the ulp of the coarser of two float types.
int fractionBits(tosa::DType t) {
  switch (t) {
    case tosa::DType::Fp32: return 23;
    case tosa::DType::Fp16: return 10;
    case tosa::DType::Bf16: return 7;
    case tosa::DType::Fp8E4M3: return 3;
    case tosa::DType::Fp8E5M2: return 2;
    default: return 64;
  }
}

std::string indexText(std::int64_t flat, const Shape& shape) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] > 0) {
      index[d] = flat % shape[d];
      flat /= shape[d];
    }
  }
  return fmt::format("[{}]", fmt::join(index, ","));
}

Comparison compareValues(const Values& actual, const Values& expected, const Shape& shape,
                         const CompareOptions& options, const std::string& what) {
  if (options.ulp < 0 || options.absTolerance < 0 || !std::isfinite(options.ulp) ||
      !std::isfinite(options.absTolerance)) {
    raiseInvalid(fmt::format("{}: tolerance: expected finite values >= 0, got ulp {} and absolute {}", what,
                             options.ulp, options.absTolerance));
  }
  std::optional<tosa::DType> ulpType = actual.floatType;
  if (expected.floatType && (!ulpType || fractionBits(*expected.floatType) < fractionBits(*ulpType))) {
    ulpType = expected.floatType;
  }
  if (options.ulp > 0 && !ulpType) {
    raiseInvalid(
        fmt::format("{}: ulp tolerance: expected a TOSA float type (FP32, FP16, BF16, FP8) in one of the "
                    "arrays, got {}; use an absolute tolerance",
                    what, actual.isFp64 || expected.isFp64 ? "FP64 and integers only" : "integers only"));
  }
  Comparison c;
  c.elements = static_cast<std::int64_t>(actual.values.size());
  if (ulpType) c.ulpType = std::string(tosa::toString(*ulpType));
  for (std::size_t i = 0; i < actual.values.size(); ++i) {
    const double a = actual.values[i];
    const double e = expected.values[i];
    bool ok = a == e || (std::isnan(a) && std::isnan(e));
    if (!ok && std::isfinite(a) && std::isfinite(e)) {
      const double err = std::fabs(a - e);
      c.maxAbsError = std::max(c.maxAbsError, err);
      if (e != 0) c.maxRelativeError = std::max(c.maxRelativeError, err / std::fabs(e));
      double ulps = 0;
      if (ulpType) {
        const double unit = tosa::compliance::ulpOf(e == 0 ? a : e, *ulpType);
        ulps = unit > 0 ? err / unit : 0;
        c.maxUlpError = std::max(c.maxUlpError, ulps);
      }
      ok = err <= options.absTolerance || (ulpType && ulps <= options.ulp);
    }
    if (!ok) {
      if (c.failures++ == 0) c.firstFailure = static_cast<std::int64_t>(i);
    }
  }
  c.pass = c.failures == 0;
  std::string figures = fmt::format("max abs error {:.6g}", c.maxAbsError);
  if (ulpType) figures += fmt::format(", max {} ulp error {:.3g}", c.ulpType, c.maxUlpError);
  figures += fmt::format(", max relative error {:.3g}", c.maxRelativeError);
  std::string tolerance = "exact";
  if (options.ulp > 0 || options.absTolerance > 0) {
    tolerance = fmt::format("{} ulp or {} absolute", options.ulp, options.absTolerance);
  }
  if (c.pass) {
    c.line = fmt::format("PASS ({} elements within {}; {})", c.elements, tolerance, figures);
  } else {
    const auto k = static_cast<std::size_t>(c.firstFailure);
    c.line = fmt::format("FAIL ({} of {} elements beyond {}; {}; first at {}: {:.9g} expected {:.9g})",
                         c.failures, c.elements, tolerance, figures, indexText(c.firstFailure, shape),
                         actual.values[k], expected.values[k]);
  }
  return c;
}

}  // namespace

Comparison compareTensors(const Tensor& actual, const Tensor& expected, const CompareOptions& options) {
  if (actual.shape() != expected.shape()) {
    raiseInvalid(fmt::format("compare: expected arrays of one shape, got [{}] and [{}]",
                             fmt::join(actual.shape(), ","), fmt::join(expected.shape(), ",")));
  }
  return compareValues(valuesOf(actual), valuesOf(expected), actual.shape(), options, "compare");
}

Comparison compareNpy(const std::string& actualPath, const std::string& expectedPath,
                      const CompareOptions& options) {
  const tosa::npy::Array actual = unwrap(tosa::npy::readFile(actualPath));
  const tosa::npy::Array expected = unwrap(tosa::npy::readFile(expectedPath));
  if (actual.shape != expected.shape) {
    raiseInvalid(fmt::format("{} and {}: shape: expected arrays of one shape, got ({}) and ({})", actualPath,
                             expectedPath, fmt::join(actual.shape, ", "), fmt::join(expected.shape, ", ")));
  }
  return compareValues(valuesOf(actual, actualPath), valuesOf(expected, expectedPath), actual.shape, options,
                       actualPath + " and " + expectedPath);
}

}  // namespace openvgf
