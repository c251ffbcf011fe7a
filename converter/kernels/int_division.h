// SPDX-License-Identifier: Apache-2.0
// Division by a run-time divisor as a multiply-high and a shift ("magic numbers",
// Granlund & Montgomery 1994, theorem 4.2), for kernels whose shapes reach them at run time
// through the parameter buffer (bindParams): llvmpipe runs 8 invocations in one vector and
// turns a vector integer division into 8 scalar ones, while the multiply-high stays one
// vector instruction. The converter computes the pair once per divisor; shaders divide with
// ovgf_udiv (shaders/include/intmath.glsl), which magicDivide below mirrors bit for bit.
#pragma once

#include <cstdint>

namespace openvgf::converter {

/// n / d == ((2n * multiplier) >> 32) >> shift for every n < kMagicDivideLimit.
struct DivMagic {
  std::uint32_t multiplier = 0;
  std::uint32_t shift = 0;
};

/// Dividends must be below 2^31 (the shaders' element indices and coordinates are).
inline constexpr std::uint32_t kMagicDivideLimit = 0x80000000u;

/// The pair for 1 <= d <= 2^31 - 1; d = 0 (a zero-sized dimension, whose kernel has no work)
/// gives quotients 0; d >= 2^31 is a converter bug (std::abort: no tensor dimension is that large).
DivMagic divMagic(std::uint32_t d);

/// What ovgf_udiv computes: n / d for n < kMagicDivideLimit.
std::uint32_t magicDivide(std::uint32_t n, DivMagic magic);

}  // namespace openvgf::converter
