// SPDX-License-Identifier: Apache-2.0
// Narrow floating-point encode/decode (see float_types.h). The encoder scales the magnitude
// so that one unit in the last place of the target becomes 1.0, rounds that to an integer
// with ties to even (exact in double: the formats have at most 10 fraction bits) and packs
// the result, so subnormals, carries into the next binade and overflow fall out naturally.
#include "tosa/float_types.h"

#include <cmath>
#include <limits>

namespace openvgf::tosa {

namespace {

// Round-half-to-even of a non-negative double to an integer-valued double.
double roundHalfEven(double q) {
  double f = std::floor(q);
  double diff = q - f;
  if (diff > 0.5) return f + 1.0;
  if (diff < 0.5) return f;
  return std::fmod(f, 2.0) == 0.0 ? f : f + 1.0;
}

std::uint32_t nanBits(const FloatFormat& format, std::uint32_t sign) {
  std::uint32_t expMask = (1u << format.exponentBits) - 1u;
  std::uint32_t mant = format.hasInfinity ? (1u << (format.mantissaBits - 1))  // quiet NaN
                                          : (1u << format.mantissaBits) - 1u;  // E4M3: S.1111.111
  return sign | (expMask << format.mantissaBits) | mant;
}

}  // namespace

const FloatFormat* floatFormatOf(DType type) {
  switch (type) {
    case DType::Fp16: return &kFp16Format;
    case DType::Bf16: return &kBf16Format;
    case DType::Fp8E4M3: return &kFp8E4M3Format;
    case DType::Fp8E5M2: return &kFp8E5M2Format;
    default: return nullptr;
  }
}

std::uint32_t encodeFloat(double value, const FloatFormat& format) {
  const int totalBits = 1 + format.exponentBits + format.mantissaBits;
  const std::uint32_t sign = std::signbit(value) ? (1u << (totalBits - 1)) : 0u;
  const std::uint32_t expMask = (1u << format.exponentBits) - 1u;
  if (std::isnan(value)) return nanBits(format, sign);
  double a = std::fabs(value);
  auto overflow = [&]() {
    return format.hasInfinity ? (sign | (expMask << format.mantissaBits)) : nanBits(format, sign);
  };
  if (std::isinf(a)) return overflow();
  if (a == 0.0) return sign;
  const int minNormalExp = 1 - format.bias;
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int unbiased = e - 1;
  int quantumExp = (unbiased < minNormalExp ? minNormalExp : unbiased) - format.mantissaBits;
  double q = roundHalfEven(std::ldexp(a, -quantumExp));
  double rounded = std::ldexp(q, quantumExp);
  if (rounded > format.maxFinite) return overflow();
  if (rounded == 0.0) return sign;
  std::frexp(rounded, &e);
  unbiased = e - 1;
  if (unbiased < minNormalExp) {
    auto mant = static_cast<std::uint32_t>(std::ldexp(rounded, format.mantissaBits - minNormalExp));
    return sign | mant;
  }
  auto biased = static_cast<std::uint32_t>(unbiased + format.bias);
  auto mant = static_cast<std::uint32_t>(std::ldexp(rounded, format.mantissaBits - unbiased) -
                                         std::ldexp(1.0, format.mantissaBits));
  return sign | (biased << format.mantissaBits) | mant;
}

double decodeFloat(std::uint32_t bits, const FloatFormat& format) {
  const int totalBits = 1 + format.exponentBits + format.mantissaBits;
  const std::uint32_t expMask = (1u << format.exponentBits) - 1u;
  const std::uint32_t mantMask = (1u << format.mantissaBits) - 1u;
  const bool negative = ((bits >> (totalBits - 1)) & 1u) != 0;
  const std::uint32_t exp = (bits >> format.mantissaBits) & expMask;
  const std::uint32_t mant = bits & mantMask;
  double magnitude = 0.0;
  if (exp == expMask && format.hasInfinity) {
    magnitude = mant == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (exp == expMask && mant == mantMask) {
    magnitude = std::numeric_limits<double>::quiet_NaN();  // E4M3 NaN
  } else if (exp == 0) {
    magnitude = std::ldexp(static_cast<double>(mant), 1 - format.bias - format.mantissaBits);
  } else {
    magnitude = std::ldexp(static_cast<double>(mant | (1u << format.mantissaBits)),
                           static_cast<int>(exp) - format.bias - format.mantissaBits);
  }
  return negative ? -magnitude : magnitude;
}

double roundToFloatType(double value, DType type) {
  if (type == DType::Fp32) return static_cast<double>(static_cast<float>(value));
  const FloatFormat* format = floatFormatOf(type);
  return format != nullptr ? decodeFloat(encodeFloat(value, *format), *format) : value;
}

double normalMin(DType type) {
  switch (type) {
    case DType::Fp32:
    case DType::Bf16: return std::ldexp(1.0, -126);
    case DType::Fp16: return std::ldexp(1.0, -14);
    case DType::Fp8E4M3: return std::ldexp(1.0, -6);
    case DType::Fp8E5M2: return std::ldexp(1.0, -14);
    default: return 0.0;
  }
}

double normalMax(DType type) {
  switch (type) {
    case DType::Fp32: return std::ldexp(1.0, 128) - std::ldexp(1.0, 104);
    case DType::Bf16: return std::ldexp(1.0, 128) - std::ldexp(1.0, 120);
    case DType::Fp16: return std::ldexp(1.0, 16) - std::ldexp(1.0, 5);
    case DType::Fp8E4M3: return 448.0;
    case DType::Fp8E5M2: return std::ldexp(1.0, 16) - std::ldexp(1.0, 13);
    default: return 0.0;
  }
}

int normalFrac(DType type) {
  switch (type) {
    case DType::Fp32: return 23;
    case DType::Bf16: return 7;
    case DType::Fp16: return 10;
    case DType::Fp8E4M3: return 3;
    case DType::Fp8E5M2: return 2;
    default: return 0;
  }
}

}  // namespace openvgf::tosa
