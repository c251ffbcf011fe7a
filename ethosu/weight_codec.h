// SPDX-License-Identifier: Apache-2.0
// The compressed weight bitstreams. The standard syntax (specs/ethosu.md §3.4: slices of
// palettes, direct offsets, Golomb-Rice coded weights and zero runs, truncated and
// uncompressed modes) is what U55/U65 decode and what the U85's standard weight decoder
// (WEIGHT_FORMAT SWD) decodes; the U85 keeps decoding after an end-of-stream marker when
// bytes remain, which is how Regor concatenates sections. The U85 fast decoder (FWD) reads
// a 256-bit header (raw or palette mode, zero adjust, 16 folded palette entries) and 2-, 4-
// or 8-bit codes per weight.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/error.h"

namespace openvgf::ethosu {

/// What the decoder does at an end-of-stream marker.
enum class StreamEnd : std::uint8_t {
  First,     ///< U55/U65: the first marker ends the stream
  AllBytes,  ///< U85: byte-align and continue while bytes remain
};

/// Decodes a standard-syntax stream to signed 9-bit values. Every read is bounds-checked;
/// malformed slices are InvalidInput naming the slice. More than `maxValues` decoded values
/// is an error (zero runs can expand a few bytes into millions of values; callers pass the
/// count they expect).
Result<std::vector<std::int16_t>> decodeWeightStream(std::span<const std::uint8_t> bytes, std::size_t maxValues,
                                                     StreamEnd end = StreamEnd::First);

/// Standard-syntax stream of `values` (each within -255..255: the syntax codes sign and
/// magnitude in 9 bits): per slice of up to 32768 weights, direct
/// (palette-free) sign-magnitude indices, Golomb-Rice coded with the divisor 0..5 that needs
/// the fewest bits, or uncompressed 9-bit values when that is smaller; zero runs off; end
/// marker, padded with 0xFF to 16 bytes.
std::vector<std::uint8_t> encodeWeightStream(std::span<const std::int16_t> values);

/// Decodes exactly `count` weights of a U85 fast-decoder stream.
Result<std::vector<std::int16_t>> decodeFastWeightStream(std::span<const std::uint8_t> bytes, std::size_t count);

/// The U85 fast-decoder form of `values` (each within -256..255 and spanning less than 256):
/// palette of up to 4 (2-bit codes) or 16 entries (4-bit codes), else raw bytes with a zero
/// adjust; padded to 32 bytes. Empty when the values cannot be coded.
std::vector<std::uint8_t> encodeFastWeightStream(std::span<const std::int16_t> values);

}  // namespace openvgf::ethosu
