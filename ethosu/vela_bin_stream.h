// SPDX-License-Identifier: Apache-2.0
// The ExecuTorch Ethos-U delegate payload, a "vela_bin_stream" block chain (facts:
// specs/pte.md §3): 32-byte block headers (16-byte NUL-padded name, u32 size, external
// flag, reserved) followed by data padded to 16 bytes, from a "vela_bin_stream" block to a
// "vela_end_stream" block that ends exactly at the payload end.
//
// Reads all three historical layouts (v0.2-v0.6: scratch_data block and 4-D IO records;
// v0.7: scratch_size and 4-D IO records; v1.0+: scratch_size and 6-D IO records) plus the
// 2026-08 external flag and the persistent_size / persistent_init blocks (region 5), and
// writes current-layout streams. Unknown block names are listed, not rejected. Parsed
// streams are views into the payload bytes. This is the one reader: the .pte reader, the
// simulator's loader and the compiler all use it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"

namespace openvgf::ethosu {

inline constexpr std::size_t kVelaBlockHeaderBytes = 32;
inline constexpr std::size_t kVelaBlockAlignment = 16;

enum class VelaLayout {
  ScratchData4D,  ///< ExecuTorch <= v0.6: scratch arena stored as a zero-filled scratch_data block
  ScratchSize4D,  ///< v0.7: scratch_size block, IO records of 4-D shapes (28 bytes)
  ScratchSize6D,  ///< v1.0 and later: scratch_size block, IO records of 6-D shapes (36 bytes)
};
std::string_view toString(VelaLayout layout);

struct VelaBlock {
  std::string name;
  std::uint64_t headerOffset = 0;  // offset of the block header in the stream
  std::uint32_t size = 0;          // unpadded data bytes
  bool external = false;           // data is a 64-character named-data key (.ptd)
  std::span<const std::uint8_t> data;
};

struct VelaIo {
  std::array<std::int32_t, 6> shape{};  // 4-D layouts fill the first four
  std::int32_t elementSize = 0;
  std::int32_t offset = 0;  // byte offset in the scratch arena
  std::int32_t region = 0;  // base-address index
  bool operator==(const VelaIo&) const = default;
};

/// Elements of an IO record whose shape has `rank` (4 or 6) dimensions; nullopt when a
/// dimension is negative or the product overflows 2^62.
std::optional<std::uint64_t> velaIoElements(const VelaIo& io, int rank);

/// A block whose data lives outside the .pte, in named data (usually a .ptd file).
struct VelaExternalRef {
  std::string block;  // "cmd_data" or "weight_data"
  std::string key;    // 64-character hex key
};

struct VelaStream {
  std::vector<VelaBlock> blocks;  // all blocks in order, first and last included
  VelaLayout layout = VelaLayout::ScratchSize6D;
  int ioRank = 6;                               // 4 or 6 (IO record shape rank)
  std::span<const std::uint8_t> commandStream;  // cmd_data (empty when external)
  std::string commandStreamMagic;               // "COP1" / "COP2" (empty when external)
  std::span<const std::uint8_t> weights;        // weight_data (empty when external)
  std::optional<std::uint32_t> scratchSize;     // scratch_size, or the scratch_data block size
  std::optional<std::uint32_t> persistentSize;  // persistent_size (region 5)
  std::span<const std::uint8_t> persistentInit; // persistent_init
  std::vector<VelaIo> inputs;
  std::vector<VelaIo> outputs;
  std::vector<VelaExternalRef> externalBlocks;
  std::vector<std::string> unknownBlocks;  // names outside the known set, in order
};

/// Parses and checks a block chain. Errors read "vela_bin_stream: block N 'name': ...".
Result<VelaStream> parseVelaBinStream(std::span<const std::uint8_t> bytes);

/// One block to write; the writer adds the vela_bin_stream / vela_end_stream blocks.
struct VelaBlockData {
  std::string name;  // at most 15 characters
  std::vector<std::uint8_t> data;
  bool external = false;
};

/// Frames `blocks` (between the start and end blocks) in the current layout.
Result<std::vector<std::uint8_t>> writeVelaBinStream(const std::vector<VelaBlockData>& blocks);

/// The data of an IO-list block (count + 6-D records, the v1.0+ layout).
std::vector<std::uint8_t> encodeVelaIoList(const std::vector<VelaIo>& ios);

/// A complete v1.0+ stream: cmd_data, weight_data, scratch_size, inputs, outputs.
Result<std::vector<std::uint8_t>> makeVelaBinStream(std::span<const std::uint8_t> commandStream,
                                                    std::span<const std::uint8_t> weights,
                                                    std::uint32_t scratchSize,
                                                    const std::vector<VelaIo>& inputs,
                                                    const std::vector<VelaIo>& outputs);

}  // namespace openvgf::ethosu
