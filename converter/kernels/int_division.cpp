// SPDX-License-Identifier: Apache-2.0
// Magic numbers for division by run-time divisors (int_division.h).
#include "converter/kernels/int_division.h"

#include <bit>
#include <cstdlib>

namespace openvgf::converter {

// With N = 31 dividend bits, l = ceil(log2 d) and m = ceil(2^(N+l) / d):
// 2^(N+l) <= m*d < 2^(N+l) + d <= 2^(N+l) + 2^l, so floor(n/d) = floor(m*n / 2^(N+l)) for
// n < 2^N (theorem 4.2). m < 2^32 because d > 2^(l-1). The shader forms m*n / 2^(31+l) as
// mulhi(2n, m) >> l, so that d = 1 (l = 0) needs no special case.
DivMagic divMagic(std::uint32_t d) {
  if (d == 0) return {};
  if (d >= kMagicDivideLimit) std::abort();
  const std::uint32_t l = static_cast<std::uint32_t>(std::bit_width(d - 1));  // ceil(log2 d)
  const std::uint64_t numerator = std::uint64_t{1} << (31 + l);
  const std::uint64_t m = (numerator + d - 1) / d;
  return DivMagic{static_cast<std::uint32_t>(m), l};
}

std::uint32_t magicDivide(std::uint32_t n, DivMagic magic) {
  const std::uint64_t product = std::uint64_t{n << 1} * magic.multiplier;
  return static_cast<std::uint32_t>(product >> 32) >> magic.shift;
}

}  // namespace openvgf::converter
