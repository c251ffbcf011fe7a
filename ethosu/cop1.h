// SPDX-License-Identifier: Apache-2.0
// The core driver's COP1 custom-operator payload (specs/ethosu.md §5.1): magic, driver
// actions (OPTIMIZER_CONFIG with the CONFIG and ID register images the stream was compiled
// for, NOP padding, COMMAND_STREAM) and the register command stream itself.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "ethosu/accelerator.h"

namespace openvgf::ethosu {

inline constexpr std::uint32_t kCop1Magic = 0x31504F43;  // "COP1" as bytes

struct Cop1Payload {
  std::uint32_t optimizerParam = 0x0010;  ///< OPTIMIZER_CONFIG param: release [3:0], patch [7:4]
  std::uint32_t config = 0;               ///< CONFIG register image (§5.1 word 2)
  std::uint32_t id = 0x10060000;          ///< ID register image
  std::vector<std::uint8_t> commandStream;

  /// U55/U65: SHRAM size in KB from the CONFIG image.
  unsigned shramKb() const { return (config >> 8) & 0xFF; }
};

/// Reads a COP1 payload. Rejects COP2, unknown actions, a missing OPTIMIZER_CONFIG or
/// COMMAND_STREAM, more than one COMMAND_STREAM and lengths beyond the payload. The CONFIG
/// image is checked separately (acceleratorFromConfigWord).
Result<Cop1Payload> readCop1(std::span<const std::uint8_t> bytes, std::string_view name = "COP1 payload");

/// Writes header words, NOPs to align the stream to 16 bytes, COMMAND_STREAM and the stream.
/// The stream must be a multiple of 4 bytes and shorter than 2^24 words.
Result<std::vector<std::uint8_t>> writeCop1(const Cop1Payload& payload);

/// The payload a compiler writes for `config`: its CONFIG and ID images around `words`.
Result<std::vector<std::uint8_t>> writeCop1(std::span<const std::uint32_t> words, const AcceleratorConfig& config);

}  // namespace openvgf::ethosu
