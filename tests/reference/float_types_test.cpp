// SPDX-License-Identifier: Apache-2.0
// FP16 / BF16 / FP8 conversions: round to nearest even, subnormals, overflow rules.
#include "tosa/float_types.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace openvgf::tosa {
namespace {

TEST(FloatTypes, Fp16RoundsToNearestEven) {
  EXPECT_EQ(doubleToFp16(1.0), 0x3C00);
  EXPECT_EQ(doubleToFp16(-2.0), 0xC000);
  EXPECT_EQ(doubleToFp16(65504.0), 0x7BFF);
  EXPECT_EQ(doubleToFp16(65519.0), 0x7BFF);          // below the halfway point to 65536
  EXPECT_EQ(doubleToFp16(65520.0), 0x7C00);          // tie rounds to even = overflow = inf
  EXPECT_EQ(doubleToFp16(1.0 + std::ldexp(1, -11)), 0x3C00);      // tie -> even mantissa
  EXPECT_EQ(doubleToFp16(1.0 + 3 * std::ldexp(1, -11)), 0x3C02);  // tie -> even (up)
  EXPECT_EQ(doubleToFp16(std::ldexp(1, -24)), 0x0001);            // smallest subnormal
  EXPECT_EQ(doubleToFp16(std::ldexp(1, -25)), 0x0000);            // tie -> 0 (even)
  EXPECT_EQ(doubleToFp16(3 * std::ldexp(1, -25)), 0x0002);        // 1.5 -> 2
  EXPECT_EQ(doubleToFp16(-0.0), 0x8000);
  EXPECT_EQ(doubleToFp16(std::numeric_limits<double>::infinity()), 0x7C00);
  EXPECT_EQ(doubleToFp16(std::nan("")) & 0x7C00, 0x7C00);
  EXPECT_NE(doubleToFp16(std::nan("")) & 0x03FF, 0);
  EXPECT_EQ(fp16ToDouble(0x3555), 0.333251953125);
  EXPECT_EQ(fp16ToDouble(0x0001), std::ldexp(1, -24));
  EXPECT_TRUE(std::isinf(fp16ToDouble(0xFC00)));
}

TEST(FloatTypes, Bf16) {
  EXPECT_EQ(doubleToBf16(1.0), 0x3F80);
  EXPECT_EQ(doubleToBf16(1.0 + std::ldexp(1, -8)), 0x3F80);      // tie -> even
  EXPECT_EQ(doubleToBf16(1.0 + 3 * std::ldexp(1, -8)), 0x3F82);  // tie -> even (up)
  EXPECT_EQ(bf16ToDouble(0x4049), 3.140625);
  EXPECT_EQ(doubleToBf16(3.5e38), 0x7F80);  // overflow -> inf
}

TEST(FloatTypes, Fp8E4M3HasNoInfinity) {
  EXPECT_EQ(doubleToFp8E4M3(448.0), 0x7E);
  EXPECT_EQ(doubleToFp8E4M3(464.0), 0x7E);  // tie between 448 and 480 -> even (448)
  EXPECT_EQ(doubleToFp8E4M3(480.0), 0x7F);  // beyond the largest finite value -> NaN
  EXPECT_EQ(doubleToFp8E4M3(-std::numeric_limits<double>::infinity()), 0xFF);
  EXPECT_EQ(doubleToFp8E4M3(std::ldexp(1, -9)), 0x01);  // smallest subnormal
  EXPECT_EQ(doubleToFp8E4M3(1.0), 0x38);
  EXPECT_TRUE(std::isnan(fp8E4M3ToDouble(0x7F)));
  EXPECT_EQ(fp8E4M3ToDouble(0x7E), 448.0);
  EXPECT_EQ(fp8E4M3ToDouble(0xB8), -1.0);
}

TEST(FloatTypes, Fp8E5M2) {
  EXPECT_EQ(doubleToFp8E5M2(57344.0), 0x7B);
  EXPECT_EQ(doubleToFp8E5M2(61440.0), 0x7C);  // tie -> even = overflow -> inf
  EXPECT_EQ(doubleToFp8E5M2(1.0), 0x3C);
  EXPECT_EQ(doubleToFp8E5M2(std::ldexp(1, -16)), 0x01);
  EXPECT_TRUE(std::isinf(fp8E5M2ToDouble(0x7C)));
  EXPECT_TRUE(std::isnan(fp8E5M2ToDouble(0x7E)));
}

TEST(FloatTypes, RoundToFloatType) {
  EXPECT_EQ(roundToFloatType(0.1, DType::Fp32), static_cast<double>(0.1f));
  EXPECT_EQ(roundToFloatType(1.0 / 3.0, DType::Fp16), 0.333251953125);
  EXPECT_EQ(roundToFloatType(1.7, DType::Int32), 1.7);
  EXPECT_EQ(normalMax(DType::Fp8E4M3), 448.0);
  EXPECT_EQ(normalFrac(DType::Bf16), 7);
}

}  // namespace
}  // namespace openvgf::tosa
