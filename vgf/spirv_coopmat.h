// SPDX-License-Identifier: Apache-2.0
// The cooperative-matrix part of SPIR-V in both encodings (SPIR-V registry:
// SPV_NV_cooperative_matrix and SPV_KHR_cooperative_matrix; the KHR values are newer than
// Debian's SPIRV-Headers). The converter re-encodes NV modules as KHR (converter/coopmat_khr.h),
// the runner re-encodes KHR modules as NV to validate them (runner/coopmat_view.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace openvgf::vgf::coopmat {

inline constexpr std::uint32_t kOpTypeNV = 5358, kOpLoadNV = 5359, kOpStoreNV = 5360, kOpMulAddNV = 5361,
                               kOpLengthNV = 5362;
inline constexpr std::uint32_t kOpTypeKHR = 4456, kOpLoadKHR = 4457, kOpStoreKHR = 4458, kOpMulAddKHR = 4459,
                               kOpLengthKHR = 4460;
inline constexpr std::uint32_t kCapabilityNV = 5357, kCapabilityKHR = 6022;
inline constexpr std::string_view kExtensionNV = "SPV_NV_cooperative_matrix";
inline constexpr std::string_view kExtensionKHR = "SPV_KHR_cooperative_matrix";
// CooperativeMatrixUse, CooperativeMatrixLayout, CooperativeMatrixOperands.
inline constexpr std::uint32_t kUseA = 0, kUseB = 1, kUseAccumulator = 2;
inline constexpr std::uint32_t kRowMajor = 0, kColumnMajor = 1;
inline constexpr std::uint32_t kSignedA = 0x1, kSignedB = 0x2, kSignedC = 0x4, kSignedResult = 0x8,
                               kSaturatingAccumulation = 0x10;

// SPV_KHR_bfloat16: OpTypeFloat 16 with this FP encoding operand, its two capabilities.
inline constexpr std::uint32_t kEncodingBfloat16 = 0;
inline constexpr std::uint32_t kCapabilityBfloat16Type = 5116, kCapabilityBfloat16Matrix = 5118;
inline constexpr std::string_view kExtensionBfloat16 = "SPV_KHR_bfloat16";

/// A literal string as SPIR-V words: NUL-terminated, zero-padded to a whole word.
inline std::vector<std::uint32_t> stringWords(std::string_view text) {
  std::vector<std::uint32_t> out((text.size() + 4) / 4, 0u);
  std::memcpy(out.data(), text.data(), text.size());
  return out;
}

/// Whether `words` (an instruction's literal-string operand) are exactly `text`.
inline bool isString(std::span<const std::uint32_t> words, std::string_view text) {
  const auto expected = stringWords(text);
  return std::ranges::equal(words, expected);
}

}  // namespace openvgf::vgf::coopmat
