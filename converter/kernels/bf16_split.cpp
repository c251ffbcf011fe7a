// SPDX-License-Identifier: Apache-2.0
#include "converter/kernels/bf16_split.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace openvgf::converter {

namespace {

constexpr std::uint32_t kInf = 0x7F800000u;
constexpr std::uint32_t kQuietNan = 0x7FC00000u;
constexpr std::uint32_t kQuietBit = 0x00400000u;
constexpr std::uint32_t kHigh = 0xFFFF0000u;

std::uint16_t top(std::uint32_t bits) { return static_cast<std::uint16_t>(bits >> 16); }

}  // namespace

// The same steps, in the same order, as cm_split4 for bf16 in include/gemm_coopmat.glsl.
Bf16Parts splitToBf16(float x) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude != 0 && magnitude < kBf16SplitMinBits) return Bf16Parts{top(kQuietNan), 0, 0};
  if (magnitude > kInf) return Bf16Parts{top(bits | kQuietBit), 0, 0};  // NaN
  if (magnitude == kInf) return Bf16Parts{top(bits), 0, 0};
  const float hi = std::bit_cast<float>(bits & kHigh);
  const float rest = x - hi;
  const float mid = std::bit_cast<float>(std::bit_cast<std::uint32_t>(rest) & kHigh);
  const float last = rest - mid;
  return Bf16Parts{top(bits), top(std::bit_cast<std::uint32_t>(mid)), top(std::bit_cast<std::uint32_t>(last))};
}

float bf16ToFloat(std::uint16_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }

std::int64_t bf16SplitMinDepth(double dropped) {
  return static_cast<std::int64_t>(std::ceil(std::max(dropped, dropped * dropped / 0.8)));
}

int bf16SplitProducts(std::int64_t ks) {
  if (ks >= bf16SplitMinDepth(kBf16Split3DroppedUnits)) return 3;
  if (ks >= bf16SplitMinDepth(kBf16Split6DroppedUnits)) return 6;
  return 0;
}

}  // namespace openvgf::converter
