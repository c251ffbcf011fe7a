// SPDX-License-Identifier: Apache-2.0
// Byte-level encoders of the Ethos-U backend: the weight stream (hardware weight order for a
// block configuration + the weight bitstream encoding, specs/ethosu.md §3.3-3.4), the
// 10-byte scale/bias records (§3.1), and the packaging into a COP1 driver payload (§5.1) and
// ExecuTorch's vela_bin_stream block chain (specs/pte.md §3.2-3.3).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "converter/ethosu/accelerator.h"

namespace openvgf::converter::ethosu {

enum class Traversal : std::uint8_t { DepthFirst, PartKernelFirst, Depthwise };

/// Weights in OHWI order (depthwise: O = channels, I = 1), already zero-point corrected to the
/// signed 9-bit range, plus what decides their order in the stream.
struct WeightVolume {
  int ofmDepth = 0, kernelHeight = 0, kernelWidth = 0, ifmDepth = 0;
  std::vector<std::int16_t> values;
  Traversal traversal = Traversal::DepthFirst;
  int ofmBlockDepth = 16;
  int dilationY = 1, dilationX = 1;
};

/// The weight values in the order the hardware consumes them (zeros where the order pads).
std::vector<std::int16_t> orderWeights(const WeightVolume& volume, const AcceleratorConfig& config);

/// Weight bitstream of `values`: per slice of up to 32768 weights, direct (palette-free)
/// sign-magnitude indices, Golomb-Rice coded with the divisor 0..5 that needs the fewest bits,
/// or uncompressed 9-bit values when that is smaller; zero runs off; end marker, padded to 16.
std::vector<std::uint8_t> encodeWeightStream(std::span<const std::int16_t> values);

/// One 10-byte record per channel: 40-bit bias, 32-bit scale, 6-bit shift; padded to 16 bytes.
std::vector<std::uint8_t> encodeScaleStream(std::span<const std::int64_t> bias, std::span<const std::uint32_t> scale,
                                            std::span<const std::uint8_t> shift);

/// COP1 payload around a command stream (little-endian words) for a configuration.
std::vector<std::uint8_t> encodeCop1(std::span<const std::uint32_t> commandWords, const AcceleratorConfig& config);

struct IoPlacement {
  std::array<std::int32_t, 6> shape{1, 1, 1, 1, 1, 1};
  std::int32_t elemSize = 1;
  std::int32_t offset = 0;
  std::int32_t region = 1;
};

/// vela_bin_stream with the v1.0+ block set (6-D I/O records).
std::vector<std::uint8_t> encodeVelaBinStream(std::span<const std::uint8_t> cmdData, std::span<const std::uint8_t> weightData,
                                              std::uint32_t scratchSize, std::span<const IoPlacement> inputs,
                                              std::span<const IoPlacement> outputs);

}  // namespace openvgf::converter::ethosu
