// SPDX-License-Identifier: Apache-2.0
// Magic-number division (converter/kernels/int_division.h), without a GPU: magicDivide, the
// bit-for-bit mirror of the shaders' ovgf_udiv, against plain division for divisors 1, powers
// of two and their neighbours, 2^31 - 1 and random ones, with dividends at the edges (0,
// multiples of d and their neighbours, 2^31 - 1, the documented limit minus one) and at random.
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "converter/kernels/int_division.h"

namespace openvgf::testing {
namespace {

using converter::divMagic;
using converter::kMagicDivideLimit;
using converter::magicDivide;

std::vector<std::uint32_t> edgeDividends(std::uint32_t d) {
  std::vector<std::uint32_t> n = {0, 1, 2, 3, kMagicDivideLimit - 1, kMagicDivideLimit - 2};
  for (std::uint64_t q : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{1000}, std::uint64_t{(kMagicDivideLimit - 1) / d}}) {
    for (std::int64_t delta : {-1, 0, 1}) {
      const std::int64_t v = static_cast<std::int64_t>(q * d) + delta;
      if (v >= 0 && v < kMagicDivideLimit) n.push_back(static_cast<std::uint32_t>(v));
    }
  }
  return n;
}

std::vector<std::uint32_t> edgeDivisors() {
  std::vector<std::uint32_t> d = {1, 2, 3, 5, 6, 7, 9, 10, 25, 49, 112, 1000, 0x7FFFFFFFu, 0x7FFFFFFEu, 0x55555555u};
  for (int b = 1; b <= 30; ++b) {
    d.push_back((1u << b) - 1);
    d.push_back(1u << b);
    d.push_back((1u << b) + 1);
  }
  return d;
}

TEST(IntDivision, EdgeDivisorsAndDividends) {
  for (std::uint32_t d : edgeDivisors()) {
    const converter::DivMagic magic = divMagic(d);
    for (std::uint32_t n : edgeDividends(d)) ASSERT_EQ(magicDivide(n, magic), n / d) << n << " / " << d;
  }
}

TEST(IntDivision, RandomDivisorsAndDividends) {
  std::mt19937 rng(36);
  std::uniform_int_distribution<std::uint32_t> wide(1, kMagicDivideLimit - 1);
  std::uniform_int_distribution<std::uint32_t> small(1, 4096);
  for (int i = 0; i < 2000; ++i) {
    const std::uint32_t d = i % 2 == 0 ? wide(rng) : small(rng);
    const converter::DivMagic magic = divMagic(d);
    for (std::uint32_t n : edgeDividends(d)) ASSERT_EQ(magicDivide(n, magic), n / d) << n << " / " << d;
    for (int j = 0; j < 500; ++j) {
      const std::uint32_t n = wide(rng) - 1;
      ASSERT_EQ(magicDivide(n, magic), n / d) << n << " / " << d;
    }
  }
}

TEST(IntDivision, EveryDividendForSmallDivisors) {
  // Every n below 2^20, then every n in the top 2^20 below the limit, for the divisors of
  // convolution shapes (channels, widths, kernel sizes).
  for (std::uint32_t d : {1u, 3u, 7u, 14u, 24u, 96u, 112u, 960u}) {
    const converter::DivMagic magic = divMagic(d);
    for (std::uint32_t n = 0; n < (1u << 20); ++n) ASSERT_EQ(magicDivide(n, magic), n / d) << n << " / " << d;
    for (std::uint32_t n = kMagicDivideLimit - (1u << 20); n < kMagicDivideLimit; ++n) {
      ASSERT_EQ(magicDivide(n, magic), n / d) << n << " / " << d;
    }
  }
}

TEST(IntDivision, ZeroDivisorGivesZero) {
  // A zero-sized dimension: its kernel has no work, the pair must still be computable.
  EXPECT_EQ(magicDivide(12345, divMagic(0)), 0u);
}

}  // namespace
}  // namespace openvgf::testing
