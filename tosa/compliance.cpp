// SPDX-License-Identifier: Apache-2.0
// TOSA 1.0 compliance rules (see compliance.h; facts from specs/tosa.md §3.3 and §3.4).
#include "tosa/compliance.h"

#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "tosa/float_types.h"

namespace openvgf::tosa::compliance {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void noteFailure(Verdict& v, std::int64_t index, std::string message) {
  ++v.failures;
  if (v.firstFailIndex < 0) {
    v.firstFailIndex = index;
    v.message = std::move(message);
  }
  v.pass = false;
}

void trackError(Verdict& v, double test, double ref, DType type) {
  if (!std::isfinite(test) || !std::isfinite(ref)) return;
  const double err = std::fabs(test - ref);
  v.maxAbsError = std::max(v.maxAbsError, err);
  const double u = ulpOf(ref, type);
  if (u > 0.0) v.maxUlpError = std::max(v.maxUlpError, err / u);
}

// check_fp_bnd of §3.3.
bool checkFpBound(double test, double ref, double bnd, DType type) {
  if (std::isnan(ref)) return std::isnan(test);
  if (!std::isfinite(bnd)) return true;
  if (std::signbit(ref)) {  // mirror so that ref >= 0
    ref = -ref;
    test = -test;
  }
  const double nmax = normalMax(type);
  double refMax = ref + bnd;
  double refMin = ref - bnd;
  if (refMax > nmax) refMax = kInf;
  if (refMin > nmax) refMin = kInf;
  if (refMin < -nmax) refMin = -kInf;
  if (type == DType::Fp32 || type == DType::Fp16 || type == DType::Bf16) {
    if (test == 0.0) return refMin < normalMin(type);
  }
  if (type == DType::Fp8E4M3 && std::isnan(test)) return refMax == kInf;
  if (std::isnan(test)) return false;
  return refMin <= test && test <= refMax;
}

}  // namespace

std::string_view toString(CheckMode mode) {
  switch (mode) {
    case CheckMode::Exact: return "EXACT";
    case CheckMode::Ulp: return "ULP";
    case CheckMode::CastFp: return "CAST_FP";
    case CheckMode::AbsError: return "ABS_ERROR";
    case CheckMode::DotProduct: return "DOT_PRODUCT";
    case CheckMode::IntRange: return "INEXACT_ROUND";
  }
  return "UNKNOWN";
}

double ulpOf(double ref, DType type) {
  const double a = std::fabs(ref);
  if (!std::isfinite(a) || a == 0.0) return 0.0;
  const double nmin = normalMin(type);
  const double magnitude = std::max(std::exp2(std::floor(std::log2(a))), nmin);
  return magnitude * std::exp2(-normalFrac(type));
}

double calcAbsErrorBound(double magnitude, double boundsValue, double lowerBound, double normalDivisor, DType type) {
  if (std::isfinite(boundsValue) || std::fabs(magnitude) != 0.0) {
    double v = std::max(std::fabs(magnitude), normalMin(type));
    if (lowerBound > 0.0) v = std::max(lowerBound / boundsValue, v);
    return std::exp2(-normalFrac(type) / normalDivisor) * v * boundsValue;
  }
  return 0.0;
}

double reduceProductBound(double ref, std::int64_t n, DType type) {
  const double base = 1.0 + std::exp2(-normalFrac(type) - 1);
  return std::max(std::fabs(ref), normalMin(type)) * (std::pow(base, static_cast<double>(n)) - 1.0);
}

Result<std::vector<double>> toDoubles(const HostTensor& tensor) {
  const auto n = static_cast<std::size_t>(tensor.size());
  const std::size_t eb = hostElementBytes(tensor.dtype);
  if (eb == 0 || tensor.bytes.size() < n * eb) {
    return invalidInput("tensor: expected {} bytes of {}, got {}", n * eb, tosa::toString(tensor.dtype), tensor.bytes.size());
  }
  std::vector<double> out(n);
  const std::uint8_t* p = tensor.bytes.data();
  for (std::size_t i = 0; i < n; ++i) {
    switch (tensor.dtype) {
      case DType::Bool: out[i] = p[i] != 0 ? 1.0 : 0.0; break;
      case DType::Int4:
      case DType::Int8: out[i] = static_cast<std::int8_t>(p[i]); break;
      case DType::Int16: {
        std::int16_t v;
        std::memcpy(&v, p + 2 * i, 2);
        out[i] = v;
        break;
      }
      case DType::Int32: {
        std::int32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        out[i] = v;
        break;
      }
      case DType::Int48:
      case DType::Shape: {
        std::int64_t v;
        std::memcpy(&v, p + 8 * i, 8);
        out[i] = static_cast<double>(v);
        break;
      }
      case DType::Fp32: {
        float v;
        std::memcpy(&v, p + 4 * i, 4);
        out[i] = v;
        break;
      }
      case DType::Fp16:
      case DType::Bf16: {
        std::uint16_t v;
        std::memcpy(&v, p + 2 * i, 2);
        out[i] = tensor.dtype == DType::Fp16 ? fp16ToDouble(v) : bf16ToDouble(v);
        break;
      }
      case DType::Fp8E4M3: out[i] = fp8E4M3ToDouble(p[i]); break;
      case DType::Fp8E5M2: out[i] = fp8E5M2ToDouble(p[i]); break;
      case DType::Unknown: break;
    }
  }
  return out;
}

Verdict checkExact(const HostTensor& actual, const HostTensor& expected) {
  Verdict v;
  v.mode = CheckMode::Exact;
  auto a = toDoubles(actual);
  auto e = toDoubles(expected);
  if (!a || !e || a->size() != e->size()) {
    v.pass = false;
    v.message = "tensors of different sizes";
    return v;
  }
  v.elements = static_cast<std::int64_t>(a->size());
  const bool fp = isFloat(expected.dtype);
  for (std::size_t i = 0; i < a->size(); ++i) {
    const double t = (*a)[i];
    const double r = (*e)[i];
    trackError(v, t, r, expected.dtype);
    bool ok = false;
    if (fp) {
      // NaN matches any NaN; zero signs are free; a subnormal may be flushed to zero.
      ok = (std::isnan(t) && std::isnan(r)) || t == r ||
           (t == 0.0 && std::fabs(r) < normalMin(expected.dtype) && std::signbit(t) == std::signbit(r));
    } else {
      ok = t == r;
    }
    if (!ok) noteFailure(v, static_cast<std::int64_t>(i), fmt::format("element {}: expected {}, got {}", i, r, t));
  }
  return v;
}

Verdict checkUlp(std::span<const double> test, std::span<const double> ref, double ulps, DType type) {
  Verdict v;
  v.mode = CheckMode::Ulp;
  v.elements = static_cast<std::int64_t>(test.size());
  for (std::size_t i = 0; i < test.size() && i < ref.size(); ++i) {
    trackError(v, test[i], ref[i], type);
    if (!checkFpBound(test[i], ref[i], ulpOf(ref[i], type) * ulps, type)) {
      noteFailure(v, static_cast<std::int64_t>(i),
                  fmt::format("element {}: expected {} within {} ulp, got {}", i, ref[i], ulps, test[i]));
    }
  }
  return v;
}

Verdict checkCastFp(std::span<const double> test, std::span<const double> ref, DType type, double factor) {
  Verdict v;
  v.mode = CheckMode::CastFp;
  v.elements = static_cast<std::int64_t>(test.size());
  for (std::size_t i = 0; i < test.size() && i < ref.size(); ++i) {
    const double t = test[i];
    const double r = ref[i];
    trackError(v, t, r, type);
    bool ok = false;
    if (std::isnan(r)) {
      ok = std::isnan(t);
    } else if (std::isinf(r) || std::fabs(r) > normalMax(type)) {
      // Out of range: +-inf, or NaN for FP8E4M3 (no infinity); rounding may also land on max.
      ok = (type == DType::Fp8E4M3 ? std::isnan(t) : (std::isinf(t) && std::signbit(t) == std::signbit(r))) ||
           (std::isfinite(t) && std::fabs(t) == normalMax(type) && std::signbit(t) == std::signbit(r));
    } else {
      const double u = std::max(ulpOf(r, type), std::exp2(std::log2(normalMin(type)) - normalFrac(type)));
      const double a = std::fabs(r);
      const double ta = std::fabs(t);
      const bool signOk = t == 0.0 || std::signbit(t) == std::signbit(r);
      ok = signOk && ta >= a - u * factor && ta <= a + 0.5 * u * factor;
      if (!ok && t == 0.0 && a < normalMin(type)) ok = true;  // flush of a subnormal result
    }
    if (!ok) {
      noteFailure(v, static_cast<std::int64_t>(i),
                  fmt::format("element {}: expected {} (-1/+0.5 ulp), got {}", i, r, t));
    }
  }
  return v;
}

Verdict checkAbsError(std::span<const double> test, std::span<const double> ref, std::span<const double> bound,
                      DType type) {
  Verdict v;
  v.mode = CheckMode::AbsError;
  v.elements = static_cast<std::int64_t>(test.size());
  for (std::size_t i = 0; i < test.size() && i < ref.size(); ++i) {
    trackError(v, test[i], ref[i], type);
    const double b = bound.empty() ? 0.0 : (bound.size() == 1 ? bound[0] : bound[std::min(i, bound.size() - 1)]);
    v.maxTolerance = std::max(v.maxTolerance, std::isnan(b) ? kInf : b);
    if (std::isfinite(ref[i])) v.maxMagnitude = std::max(v.maxMagnitude, std::fabs(ref[i]));
    if (!checkFpBound(test[i], ref[i], b, type)) {
      noteFailure(v, static_cast<std::int64_t>(i),
                  fmt::format("element {}: expected {} +- {}, got {}", i, ref[i], b, test[i]));
    }
  }
  return v;
}

bool vacuousTolerance(std::span<const double> bound, std::span<const double> ref) {
  if (bound.empty()) return false;
  bool positive = false;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double b = bound[std::min(i, bound.size() - 1)];
    positive = positive || !(b <= 0.0);  // NaN: no bound
    if (std::isfinite(ref[i]) && b < std::fabs(ref[i])) return false;
  }
  return positive;
}

Verdict checkDotProduct(std::span<const double> test, std::span<const double> ref, std::span<const double> bounds,
                        std::int64_t kernelSize, DType accType, DType outType, bool biasNonZero, double factor) {
  Verdict v;
  v.mode = CheckMode::DotProduct;
  v.elements = static_cast<std::int64_t>(test.size());
  const int frac = normalFrac(outType);
  const int accFrac = normalFrac(accType == DType::Unknown ? outType : accType);
  const double ksb = std::ceil(static_cast<double>(kernelSize) / std::exp2((accFrac - frac) / 2.0)) +
                     (biasNonZero ? 1.0 : 0.0);
  const double absBound = 2.0 * ksb * factor;
  const double varianceBound = 4.0 * 0.4 * ksb * factor;
  v.absBoundLimit = absBound;
  const double scale = std::exp2(-1 - frac);
  const double nmin = normalMin(outType);
  for (std::size_t i = 0; i < test.size() && i < ref.size(); ++i) {
    const double t = test[i];
    const double r = ref[i];
    const double b = i < bounds.size() ? bounds[i] : std::fabs(r);
    trackError(v, t, r, outType);
    double err = 0.0;
    if (std::isnan(r)) {
      if (!std::isnan(t)) noteFailure(v, static_cast<std::int64_t>(i), fmt::format("element {}: expected NaN, got {}", i, t));
      continue;
    }
    if (std::isnan(b)) continue;
    if (!std::isfinite(roundToFloatType(b * (1.0 + absBound * scale), outType))) continue;  // bound overflows out_t
    if (b == 0.0) {
      if (r != 0.0 || t != 0.0) {
        noteFailure(v, static_cast<std::int64_t>(i), fmt::format("element {}: expected 0 (zero bound), got {}", i, t));
      }
      continue;
    }
    err = (t - r) / std::max(b * scale, nmin);
    if (!std::isfinite(err) || std::fabs(err) > absBound) {
      noteFailure(v, static_cast<std::int64_t>(i),
                  fmt::format("element {}: error {} exceeds {} (ref {}, got {})", i, err, absBound, r, t));
      continue;
    }
    v.maxDotError = std::max(v.maxDotError, std::fabs(err));
    v.sumSquaredError += err * err;
    v.sumError += err;
  }
  const double elements = static_cast<double>(test.size());
  v.varianceLimit = varianceBound * elements;
  if (v.pass && v.sumSquaredError > v.varianceLimit) {
    v.pass = false;
    v.message = fmt::format("sum of squared errors {} exceeds {}", v.sumSquaredError, v.varianceLimit);
  }
  return v;
}

Verdict checkIntRange(std::span<const double> test, std::span<const std::int64_t> minInt,
                      std::span<const std::int64_t> maxInt, int unsignedBits) {
  Verdict v;
  v.mode = CheckMode::IntRange;
  v.elements = static_cast<std::int64_t>(test.size());
  for (std::size_t i = 0; i < test.size() && i < minInt.size() && i < maxInt.size(); ++i) {
    auto t = static_cast<std::int64_t>(test[i]);
    if (unsignedBits > 0 && t < 0) t += std::int64_t{1} << unsignedBits;
    if (t < minInt[i] || t > maxInt[i]) {
      noteFailure(v, static_cast<std::int64_t>(i),
                  fmt::format("element {}: expected a value in [{}, {}], got {}", i, minInt[i], maxInt[i], t));
    }
  }
  return v;
}

Result<Verdict> check(const Rule& rule, const HostTensor& actual, const HostTensor& expected,
                      std::span<const double> precise, std::span<const double> bounds) {
  if (actual.dtype != expected.dtype) {
    return invalidInput("result: expected type {}, got {}", tosa::toString(expected.dtype), tosa::toString(actual.dtype));
  }
  if (actual.shape != expected.shape) {
    return invalidInput("result: expected shape {}, got {}", shapeToString(expected.shape), shapeToString(actual.shape));
  }
  OPENVGF_ASSIGN_OR_RETURN(std::vector<double> test, toDoubles(actual));
  std::vector<double> fallback;
  if (precise.empty()) {
    OPENVGF_ASSIGN_OR_RETURN(fallback, toDoubles(expected));
    precise = fallback;
  }
  if (precise.size() != test.size()) {
    return invalidInput("reference: expected {} precise values, got {}", test.size(), precise.size());
  }
  const DType t = expected.dtype;
  Verdict v;
  switch (rule.mode) {
    case CheckMode::Exact: v = checkExact(actual, expected); break;
    case CheckMode::Ulp: v = checkUlp(test, precise, rule.ulp * rule.chainFactor, t); break;
    case CheckMode::CastFp: v = checkCastFp(test, precise, t, rule.chainFactor); break;
    case CheckMode::AbsError: {
      std::vector<double> scaled(rule.absBound);
      for (double& b : scaled) b *= rule.chainFactor;
      v = checkAbsError(test, precise, scaled, t);
      if (rule.chained && v.pass && vacuousTolerance(scaled, precise)) {
        v.pass = false;
        v.inconclusive = true;
        v.message = fmt::format(
            "the tolerance propagated through the graph, up to {:.3g}, is at least |reference| at every element "
            "(the largest {:.3g}): an all-zero answer would pass, so it cannot tell a right answer from a wrong one",
            v.maxTolerance, v.maxMagnitude);
      }
      break;
    }
    case CheckMode::DotProduct:
      v = checkDotProduct(test, precise, bounds, rule.kernelSize, rule.accType, t, rule.biasNonZero, rule.chainFactor);
      break;
    case CheckMode::IntRange: v = checkIntRange(test, rule.minInt, rule.maxInt, rule.unsignedBits); break;
  }
  return v;
}

std::string summary(const Verdict& v) {
  std::string head = fmt::format("{} ({}", v.pass ? "pass" : (v.inconclusive ? "INCONCLUSIVE" : "FAIL"), toString(v.mode));
  switch (v.mode) {
    case CheckMode::DotProduct:
      head += fmt::format(", max |err| {:.3g} of {:.3g}, sum err^2 {:.3g} of {:.3g}", v.maxDotError, v.absBoundLimit,
                          v.sumSquaredError, v.varianceLimit);
      break;
    case CheckMode::Exact:
    case CheckMode::IntRange: head += fmt::format(", max abs error {:.3g}", v.maxAbsError); break;
    default: head += fmt::format(", max abs error {:.3g}, max {:.3g} ulp", v.maxAbsError, v.maxUlpError); break;
  }
  head += ")";
  if (v.inconclusive) {
    head += ": " + v.message;
  } else if (!v.pass) {
    head += fmt::format(": {} element(s) failed; first: {}", v.failures, v.message);
  }
  return head;
}

}  // namespace openvgf::tosa::compliance
