// SPDX-License-Identifier: Apache-2.0
// Readers for the per-op data an Ethos-U55/U65 convolution consumes: the 10-byte scale/bias
// records (specs/ethosu.md §3.1), the weight bitstream (§3.4; uncompressed slices) and the
// hardware weight order (§3.3), which maps the decoded value sequence back to OHWI weights.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/error.h"

namespace openvgf::runner::ethosu {

struct ScaleRecord {
  std::int64_t bias = 0;     ///< signed 40-bit
  std::uint32_t scale = 0;   ///< unsigned 32-bit multiplier
  std::uint8_t shift = 0;    ///< 0..63
  bool operator==(const ScaleRecord&) const = default;
};

/// Reads `count` records; `bytes` must hold at least 10 * count bytes. Shift bits 7:6 must be 0.
Result<std::vector<ScaleRecord>> decodeScaleStream(std::span<const std::uint8_t> bytes, std::size_t count);

/// Decodes a weight bitstream (U55/U65 syntax: palettes, direct offsets, Golomb-Rice coded
/// weights and zero runs, truncated mode, uncompressed slices) to signed 9-bit values until
/// the end-of-stream marker. Every read is bounds-checked; malformed slices are InvalidInput.
/// More than `maxValues` decoded values is an error (zero runs can expand a few bytes into
/// millions of values; callers pass the count they expect).
Result<std::vector<std::int16_t>> decodeWeightStream(std::span<const std::uint8_t> bytes,
                                                     std::size_t maxValues = std::size_t{1} << 24);

enum class WeightTraversal : std::uint8_t { DepthFirst, PartKernelFirst, Depthwise };

/// Everything that decides the order of weights in a stream.
struct WeightLayout {
  int ofmDepth = 0;       ///< O
  int kernelHeight = 0;   ///< undilated kernel rows
  int kernelWidth = 0;
  int ifmDepth = 0;       ///< I (1 for depthwise)
  int ofmBlockDepth = 0;  ///< OFM_BLK_DEPTH used by the op (clipped to O here)
  int ofmUblockDepth = 8;
  int ifmUblockDepth = 8;
  int dilationY = 1;
  int dilationX = 1;
  bool ifm16Bit = false;
  WeightTraversal traversal = WeightTraversal::DepthFirst;
};

/// For every position of the decoded stream, the OHWI flat index of the weight it carries
/// (O·H·W·I layout; -1 for a padding position that must hold zero). Used by the simulator to
/// undo the ordering and by encoders to produce it.
std::vector<std::int64_t> weightStreamOrder(const WeightLayout& layout);

}  // namespace openvgf::runner::ethosu
