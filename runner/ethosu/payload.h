// SPDX-License-Identifier: Apache-2.0
// Containers around an Ethos-U command stream: the core driver's COP1 custom-operator payload
// (specs/ethosu.md §5.1) and ExecuTorch's vela_bin_stream block chain (specs/pte.md §3.2-3.3),
// which carries the payload together with the weight data, scratch size and I/O placement.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "runner/ethosu/command_stream.h"

namespace openvgf::runner::ethosu {

inline constexpr std::uint32_t kCop1Magic = 0x31504F43;  // "COP1" as bytes

/// The hardware identity a COP1 payload was compiled for, as register images.
struct Cop1Payload {
  std::uint32_t optimizerParam = 0x0010;  ///< OPTIMIZER_CONFIG param: release [3:0], patch [7:4]
  std::uint32_t config = 0;               ///< CONFIG register image (§5.1 word 2)
  std::uint32_t id = 0x10060000;          ///< ID register image (arch 1.0.6)
  std::vector<std::uint8_t> commandStream;

  Product product() const { return ((config >> 28) & 0xF) == 1 ? Product::U65 : Product::U55; }
  unsigned macsPerCycle() const { return 1u << (config & 0xF); }
  unsigned shramKb() const { return (config >> 8) & 0xFF; }
};

/// CONFIG register image for a product, MACs per cycle (power of two) and SHRAM size in KB.
std::uint32_t makeConfigWord(Product product, unsigned macsPerCycle, unsigned shramKb);

/// Reads a COP1 payload: magic, driver actions (OPTIMIZER_CONFIG, NOP, COMMAND_STREAM) and the
/// command stream. Rejects COP2, unknown actions, a missing OPTIMIZER_CONFIG or COMMAND_STREAM,
/// more than one COMMAND_STREAM and lengths beyond the payload.
Result<Cop1Payload> readCop1(std::span<const std::uint8_t> bytes, std::string_view name = "COP1 payload");

/// Writes header words, NOPs to align the stream to 16 bytes, COMMAND_STREAM and the stream.
/// The stream must be a multiple of 4 bytes and shorter than 2^24 words.
Result<std::vector<std::uint8_t>> writeCop1(const Cop1Payload& payload);

/// One input or output of a vela_bin_stream: where the tensor lives in the scratch arena.
struct VelaIo {
  std::array<std::int32_t, 6> shape{1, 1, 1, 1, 1, 1};
  std::int32_t elemSize = 1;
  std::int32_t offset = 0;
  std::int32_t region = 1;
  bool operator==(const VelaIo&) const = default;
};

/// The blocks ExecuTorch's Ethos-U backend reads.
struct VelaBinStream {
  std::vector<std::uint8_t> cmdData;     ///< COP1 payload
  std::vector<std::uint8_t> weightData;  ///< region 0
  std::uint32_t scratchSize = 0;         ///< region 1 size
  std::vector<VelaIo> inputs;
  std::vector<VelaIo> outputs;
  bool operator==(const VelaBinStream&) const = default;
};

/// Parses the block chain. Accepts 6-D (v1.0+) and 4-D (<= v0.7) I/O records, the older
/// zero-filled `scratch_data` block, and skips unknown blocks; refuses external (named-data)
/// blocks, a missing first/last marker and any block extending past the end.
Result<VelaBinStream> readVelaBinStream(std::span<const std::uint8_t> bytes, std::string_view name = "vela_bin_stream");

/// Writes the v1.0+ form: vela_bin_stream, cmd_data, weight_data, scratch_size, inputs, outputs,
/// vela_end_stream, each 32-byte header + data padded to 16 bytes.
std::vector<std::uint8_t> writeVelaBinStream(const VelaBinStream& stream);

}  // namespace openvgf::runner::ethosu
