// SPDX-License-Identifier: Apache-2.0
// RESCALE (TOSA 1.0 §2.3): zero-point adjustment, apply_scale_32/apply_scale_16 with
// SINGLE_ROUND or DOUBLE_ROUND, output zero point and saturation, with the unsigned
// input/output reinterpretations. INEXACT_ROUND is computed with single rounding (one of
// the results the spec allows); rescaleInexactRange gives the allowed interval.
#include <cmath>

#include "tosa/reference/rules.h"
#include "tosa/reference/scale.h"
#include "tosa/reference/value.h"

namespace openvgf::tosa::reference {

namespace {

std::int64_t zeroExtend(std::int64_t v, DType type) {
  const int bits = valueBits(type);
  if (bits >= 64) return v;
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(v) & ((std::uint64_t{1} << bits) - 1));
}

struct RescaleSetup {
  const RescaleAttrs* attrs = nullptr;
  DType inType = DType::Unknown;
  DType outType = DType::Unknown;
  std::int64_t inZp = 0;
  std::int64_t outZp = 0;
  std::int64_t channels = 1;
  std::int64_t lo = 0;  // output range (unsigned-aware)
  std::int64_t hi = 0;
};

Result<RescaleSetup> setup(Context& ctx, Inputs in) {
  RescaleSetup s;
  s.attrs = attrsAs<RescaleAttrs>(ctx.op());
  if (s.attrs == nullptr) return ctx.error("attribute: expected a RescaleAttribute");
  const RescaleAttrs& a = *s.attrs;
  const Value& x = *in[0];
  s.inType = x.dtype;
  s.outType = ctx.outType();
  const bool inOk = s.inType == DType::Int8 || s.inType == DType::Int16 || s.inType == DType::Int32 || s.inType == DType::Int48;
  const bool outOk = s.outType == DType::Int8 || s.outType == DType::Int16 || s.outType == DType::Int32;
  if (!inOk || !outOk) {
    return ctx.error("input/output: expected INT8/16/32(/48) to INT8/16/32, got {} to {}", toString(s.inType),
                     toString(s.outType));
  }
  if (a.scale32 && s.inType == DType::Int48) return ctx.error("scale32: expected false for INT48 input");
  if (!a.scale32 && a.roundingMode == RoundingMode::DoubleRound) {
    return ctx.error("rounding_mode: expected DOUBLE_ROUND only with scale32");
  }
  if (a.inputUnsigned && a.outputUnsigned) return ctx.error("input_unsigned/output_unsigned: expected at most one set");
  if (a.inputUnsigned && (s.inType == DType::Int32 || s.inType == DType::Int48)) {
    return ctx.error("input_unsigned: expected false for {} input", toString(s.inType));
  }
  if (a.outputUnsigned && s.outType == DType::Int32) return ctx.error("output_unsigned: expected false for INT32 output");
  if (a.perChannel && x.shape.empty()) return ctx.error("per_channel: expected an input of rank >= 1");
  s.channels = a.perChannel ? x.shape.back() : 1;
  const Value& mult = *in[1];
  const Value& shift = *in[2];
  if (mult.size() != s.channels || shift.size() != s.channels) {
    return ctx.error("multiplier/shift: expected {} values, got {}/{}", s.channels, mult.size(), shift.size());
  }
  const DType multType = a.scale32 ? DType::Int32 : DType::Int16;
  if (mult.dtype != multType) {
    return ctx.error("multiplier: expected {} for scale32={}, got {}", toString(multType), a.scale32, toString(mult.dtype));
  }
  s.inZp = a.inputUnsigned ? zeroExtend(scalarInt(*in[3]), s.inType) : scalarInt(*in[3]);
  s.outZp = a.outputUnsigned ? zeroExtend(scalarInt(*in[4]), s.outType) : scalarInt(*in[4]);
  auto zpAllowed = [](std::int64_t zp, DType t, bool isUnsigned) {
    if (zp == 0 || t == DType::Int8) return true;
    return t == DType::Int16 && isUnsigned && zp == 32768;
  };
  if (!zpAllowed(s.inZp, s.inType, a.inputUnsigned)) {
    return ctx.error("input_zp: expected 0 for {} (or 32768 with input_unsigned), got {}", toString(s.inType), s.inZp);
  }
  if (!zpAllowed(s.outZp, s.outType, a.outputUnsigned)) {
    return ctx.error("output_zp: expected 0 for {} (or 32768 with output_unsigned), got {}", toString(s.outType), s.outZp);
  }
  if (a.outputUnsigned) {
    s.lo = 0;
    s.hi = (std::int64_t{1} << valueBits(s.outType)) - 1;
  } else {
    s.lo = minOf(s.outType);
    s.hi = maxOf(s.outType);
  }
  return s;
}

}  // namespace

Result<Outputs> evalRescale(Context& ctx, Inputs in) {
  OPENVGF_ASSIGN_OR_RETURN(RescaleSetup s, setup(ctx, in));
  const Value& x = *in[0];
  const Value& mult = *in[1];
  const Value& shift = *in[2];
  const RescaleAttrs& a = *s.attrs;
  Value out(s.outType, x.shape);
  const bool doubleRound = a.roundingMode == RoundingMode::DoubleRound;
  for (std::size_t i = 0; i < out.ints.size(); ++i) {
    const std::int64_t raw = a.inputUnsigned ? zeroExtend(x.ints[i], s.inType) : x.ints[i];
    const std::int64_t v = raw - s.inZp;
    const auto ch = static_cast<std::size_t>(a.perChannel ? static_cast<std::int64_t>(i) % s.channels : 0);
    std::int64_t r = a.scale32 ? applyScale32(ctx, v, mult.ints[ch], shift.ints[ch], doubleRound)
                               : applyScale16(ctx, v, mult.ints[ch], shift.ints[ch]);
    r += s.outZp;
    if (r < minOf(DType::Int32) || r > maxOf(DType::Int32)) {
      ctx.require(false, "RESCALE: output zero point addition overflows INT32 (REQUIRE)");
      r = wrapTo(r, DType::Int32);
    }
    out.ints[i] = wrapTo(std::clamp(r, s.lo, s.hi), s.outType);
  }
  return Outputs{std::move(out)};
}

Result<void> rescaleInexactRange(Context& ctx, Inputs in, std::vector<std::int64_t>& minInt,
                                 std::vector<std::int64_t>& maxInt) {
  OPENVGF_ASSIGN_OR_RETURN(RescaleSetup s, setup(ctx, in));
  const Value& x = *in[0];
  const Value& mult = *in[1];
  const Value& shift = *in[2];
  const RescaleAttrs& a = *s.attrs;
  const auto n = static_cast<std::size_t>(x.size());
  minInt.resize(n);
  maxInt.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t raw = a.inputUnsigned ? zeroExtend(x.ints[i], s.inType) : x.ints[i];
    const auto ch = static_cast<std::size_t>(a.perChannel ? static_cast<std::int64_t>(i) % s.channels : 0);
    const double ref = static_cast<double>(raw - s.inZp) * static_cast<double>(mult.ints[ch]) *
                       std::exp2(-static_cast<double>(shift.ints[ch]));
    const double zp = static_cast<double>(s.outZp);
    const double err = 0.5 + (3.0 * std::fabs(ref) + std::fabs(ref + zp)) * std::exp2(-24);
    const double lo = std::ceil(ref - err + zp);
    const double hi = std::floor(ref + err + zp);
    auto clip = [&](double v) {
      return static_cast<std::int64_t>(std::clamp(v, static_cast<double>(s.lo), static_cast<double>(s.hi)));
    };
    minInt[i] = clip(lo);
    maxInt[i] = clip(hi);
  }
  return {};
}

}  // namespace openvgf::tosa::reference
