// SPDX-License-Identifier: Apache-2.0
// The integer scaling helpers of TOSA 1.0 (apply_scale_32, apply_scale_16,
// reciprocal_scale), for every kernel that scales integers. Products are formed in 128 bits so
// that arguments violating a REQUIRE still have defined behaviour; the violation is reported
// through the context and the result wraps to 32 bits.
#pragma once

#include <bit>
#include <cstdint>

#include "tosa/reference/value.h"

namespace openvgf::tosa::reference {

__extension__ using ScaleInt128 = __int128;

inline std::int64_t applyScale32(Context& ctx, std::int64_t value, std::int64_t multiplier, std::int64_t shift,
                                 bool doubleRound) {
  ctx.require(multiplier >= 0, "apply_scale_32: multiplier {} < 0 (REQUIRE)", multiplier);
  if (shift < 2 || shift > 62) {
    ctx.require(false, "apply_scale_32: shift {} outside [2, 62] (REQUIRE)", shift);
    shift = std::clamp<std::int64_t>(shift, 2, 62);
  }
  const std::int64_t limit = std::int64_t{1} << (shift - 1);
  ctx.require(value >= -limit && value < limit, "apply_scale_32: value {} outside the range of shift {} (REQUIRE)",
              value, shift);
  ScaleInt128 round = static_cast<ScaleInt128>(1) << (shift - 1);
  if (doubleRound && shift > 31) round += value >= 0 ? (ScaleInt128{1} << 30) : -(ScaleInt128{1} << 30);
  const ScaleInt128 r = (static_cast<ScaleInt128>(value) * multiplier + round) >> shift;
  if (r < minOf(DType::Int32) || r > maxOf(DType::Int32)) {
    ctx.require(false, "apply_scale_32: result does not fit INT32 (REQUIRE)");
    return wrapTo(static_cast<std::int64_t>(r), DType::Int32);
  }
  return static_cast<std::int64_t>(r);
}

inline std::int64_t applyScale16(Context& ctx, std::int64_t value, std::int64_t multiplier, std::int64_t shift) {
  ctx.require(multiplier >= 0, "apply_scale_16: multiplier {} < 0 (REQUIRE)", multiplier);
  if (shift < 2 || shift > 62) {
    ctx.require(false, "apply_scale_16: shift {} outside [2, 62] (REQUIRE)", shift);
    shift = std::clamp<std::int64_t>(shift, 2, 62);
  }
  const ScaleInt128 r =
      (static_cast<ScaleInt128>(value) * multiplier + (static_cast<ScaleInt128>(1) << (shift - 1))) >> shift;
  if (r < minOf(DType::Int32) || r > maxOf(DType::Int32)) {
    ctx.require(false, "apply_scale_16: result does not fit INT32 (REQUIRE)");
    return wrapTo(static_cast<std::int64_t>(r), DType::Int32);
  }
  return static_cast<std::int64_t>(r);
}

struct ScalePair {
  std::int64_t multiplier;
  std::int64_t shift;
};

/// reciprocal_scale(v) for v >= 1: multiplier * 2^-shift ~= 1 / v.
inline ScalePair reciprocalScale(std::uint32_t v) {
  const int k = 32 - std::countl_zero(v - 1u);
  const std::int64_t multiplier = ((std::int64_t{1} << 30) + 1) * (std::int64_t{1} << k) / static_cast<std::int64_t>(v);
  return {multiplier, 30 + k};
}

}  // namespace openvgf::tosa::reference
