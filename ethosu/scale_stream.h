// SPDX-License-Identifier: Apache-2.0
// Scale/bias streams: one 10-byte little-endian record per OFM channel (specs/ethosu.md
// §3.1). U55/U65: 40-bit bias, 32-bit scale, 6-bit shift. U85 with 32-bit accumulators:
// 32-bit bias, 31-bit scale; with 48-bit accumulators: 48-bit bias, 15-bit scale; shift in
// byte 8, byte 9 zero. Streams are zero-padded to 16 bytes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/error.h"

namespace openvgf::ethosu {

struct ScaleRecord {
  std::int64_t bias = 0;
  std::uint32_t scale = 0;
  std::uint8_t shift = 0;  ///< 0..63
  bool operator==(const ScaleRecord&) const = default;
};

enum class ScaleFormat : std::uint8_t {
  U55,       ///< 40-bit bias, 32-bit scale
  U85Acc32,  ///< 32-bit bias, 31-bit scale
  U85Acc48,  ///< 48-bit bias, 15-bit scale
};

/// Reads `count` records; `bytes` must hold at least 10 * count bytes; reserved bits (shift
/// bits 7:6, the U85 scale's top bit and byte 9) must be zero.
Result<std::vector<ScaleRecord>> decodeScaleStream(std::span<const std::uint8_t> bytes, std::size_t count,
                                                   ScaleFormat format = ScaleFormat::U55);

/// Writes the records, padded with zeros to a multiple of 16 bytes. Values outside the
/// format's ranges are an InvalidInput error naming the channel.
Result<std::vector<std::uint8_t>> encodeScaleStream(std::span<const ScaleRecord> records,
                                                    ScaleFormat format = ScaleFormat::U55);

}  // namespace openvgf::ethosu
