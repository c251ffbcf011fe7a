// SPDX-License-Identifier: Apache-2.0
// Conversions between double and the narrow floating-point formats of TOSA 1.0: FP16 (IEEE
// binary16), BF16 (top half of binary32), FP8E4M3 and FP8E5M2 (OCP OFP8). Every conversion
// from a wider value rounds to nearest, ties to even, in one step (no double rounding through
// float). Overflow gives +-inf, except FP8E4M3, which has no infinity: OCP's non-saturating
// conversion gives NaN there. Shared by the reference interpreter, the converter (constant
// folding) and the runner (npy I/O).
#pragma once

#include <cstdint>

#include "tosa/types.h"

namespace openvgf::tosa {

/// Shape of a narrow binary floating-point format.
struct FloatFormat {
  int exponentBits = 0;
  int mantissaBits = 0;  // fraction bits, without the implicit leading one
  int bias = 0;
  bool hasInfinity = true;    // false for FP8E4M3 (its top exponent holds normal numbers)
  double maxFinite = 0.0;     // largest finite magnitude
};

inline constexpr FloatFormat kFp16Format{5, 10, 15, true, 65504.0};
inline constexpr FloatFormat kBf16Format{8, 7, 127, true, 3.3895313892515355e38};
inline constexpr FloatFormat kFp8E4M3Format{4, 3, 7, false, 448.0};
inline constexpr FloatFormat kFp8E5M2Format{5, 2, 15, true, 57344.0};

/// The format of a narrow floating-point type (FP16, BF16, FP8E4M3, FP8E5M2); nullptr for
/// every other type (FP32 included).
const FloatFormat* floatFormatOf(DType type);

/// Encodes `value` in `format` (round to nearest even). Returns the bit pattern in the low
/// 1 + exponentBits + mantissaBits bits. NaN maps to the format's quiet NaN with the sign kept.
std::uint32_t encodeFloat(double value, const FloatFormat& format);
/// Decodes a bit pattern of `format` exactly (every narrow value is representable in double).
double decodeFloat(std::uint32_t bits, const FloatFormat& format);

inline std::uint16_t doubleToFp16(double v) { return static_cast<std::uint16_t>(encodeFloat(v, kFp16Format)); }
inline double fp16ToDouble(std::uint16_t bits) { return decodeFloat(bits, kFp16Format); }
inline std::uint16_t doubleToBf16(double v) { return static_cast<std::uint16_t>(encodeFloat(v, kBf16Format)); }
inline double bf16ToDouble(std::uint16_t bits) { return decodeFloat(bits, kBf16Format); }
inline std::uint8_t doubleToFp8E4M3(double v) { return static_cast<std::uint8_t>(encodeFloat(v, kFp8E4M3Format)); }
inline double fp8E4M3ToDouble(std::uint8_t bits) { return decodeFloat(bits, kFp8E4M3Format); }
inline std::uint8_t doubleToFp8E5M2(double v) { return static_cast<std::uint8_t>(encodeFloat(v, kFp8E5M2Format)); }
inline double fp8E5M2ToDouble(std::uint8_t bits) { return decodeFloat(bits, kFp8E5M2Format); }

inline std::uint16_t floatToFp16(float v) { return doubleToFp16(v); }
inline float fp16ToFloat(std::uint16_t bits) { return static_cast<float>(fp16ToDouble(bits)); }
inline std::uint16_t floatToBf16(float v) { return doubleToBf16(v); }
inline float bf16ToFloat(std::uint16_t bits) { return static_cast<float>(bf16ToDouble(bits)); }

/// Rounds `value` to the nearest value representable in the floating-point type `type`
/// (FP32, FP16, BF16, FP8E4M3, FP8E5M2; returned unchanged for any other type).
double roundToFloatType(double value, DType type);

/// Facts of §3.3 used by the compliance rules, for FP32/FP16/BF16/FP8 (0 for other types).
double normalMin(DType type);
double normalMax(DType type);
int normalFrac(DType type);

}  // namespace openvgf::tosa
