// SPDX-License-Identifier: Apache-2.0
// Scale record encoding and decoding for the three record layouts.
#include "ethosu/scale_stream.h"

namespace openvgf::ethosu {
namespace {

struct Layout {
  unsigned biasBytes;
  unsigned scaleBits;
};

Layout layoutOf(ScaleFormat format) {
  switch (format) {
    case ScaleFormat::U55: return {5, 32};
    case ScaleFormat::U85Acc32: return {4, 31};
    case ScaleFormat::U85Acc48: return {6, 15};
  }
  return {5, 32};
}

}  // namespace

Result<std::vector<ScaleRecord>> decodeScaleStream(std::span<const std::uint8_t> bytes, std::size_t count, ScaleFormat format) {
  if (count > bytes.size() / 10) {
    return invalidInput("scale stream: expected {} records of 10 bytes, got {} bytes", count, bytes.size());
  }
  const Layout l = layoutOf(format);
  std::vector<ScaleRecord> records(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t* b = bytes.data() + i * 10;
    std::uint64_t bias = 0;
    for (unsigned k = 0; k < l.biasBytes; ++k) bias |= std::uint64_t{b[k]} << (8 * k);
    const unsigned biasBits = 8 * l.biasBytes;
    if (bias & (std::uint64_t{1} << (biasBits - 1))) bias |= ~((std::uint64_t{1} << biasBits) - 1);
    records[i].bias = static_cast<std::int64_t>(bias);
    std::uint64_t scale = 0;
    const unsigned scaleBytes = (l.scaleBits + 7) / 8;
    for (unsigned k = 0; k < scaleBytes; ++k) scale |= std::uint64_t{b[l.biasBytes + k]} << (8 * k);
    if (scale >> l.scaleBits) {
      return invalidInput("scale stream: record {}: scale: expected {} bits, got 0x{:x}", i, l.scaleBits, scale);
    }
    records[i].scale = static_cast<std::uint32_t>(scale);
    const std::uint8_t shift = b[l.biasBytes + scaleBytes];
    if (shift & 0xC0) return invalidInput("scale stream: record {}: shift: expected bits 7:6 = 0, got 0x{:02x}", i, shift);
    records[i].shift = shift;
    if (format != ScaleFormat::U55 && b[9] != 0) {
      return invalidInput("scale stream: record {}: byte 9: expected 0, got 0x{:02x}", i, b[9]);
    }
  }
  return records;
}

Result<std::vector<std::uint8_t>> encodeScaleStream(std::span<const ScaleRecord> records, ScaleFormat format) {
  const Layout l = layoutOf(format);
  std::vector<std::uint8_t> out;
  const unsigned biasBits = 8 * l.biasBytes;
  for (std::size_t c = 0; c < records.size(); ++c) {
    const ScaleRecord& r = records[c];
    if (r.bias < -(std::int64_t{1} << (biasBits - 1)) || r.bias >= (std::int64_t{1} << (biasBits - 1))) {
      return invalidInput("scale stream: channel {}: bias {} does not fit {} bits", c, r.bias, biasBits);
    }
    if (l.scaleBits < 32 && (r.scale >> l.scaleBits) != 0) {
      return invalidInput("scale stream: channel {}: scale {} does not fit {} bits", c, r.scale, l.scaleBits);
    }
    if (r.shift > 63) return invalidInput("scale stream: channel {}: shift {} is outside 0..63", c, r.shift);
    const auto bias = static_cast<std::uint64_t>(r.bias);
    for (unsigned i = 0; i < l.biasBytes; ++i) out.push_back(static_cast<std::uint8_t>(bias >> (8 * i)));
    for (unsigned i = 0; i < (l.scaleBits + 7) / 8; ++i) out.push_back(static_cast<std::uint8_t>(r.scale >> (8 * i)));
    out.push_back(r.shift);
    while (out.size() % 10 != 0) out.push_back(0);
  }
  out.resize((out.size() + 15) / 16 * 16, 0);
  return out;
}

}  // namespace openvgf::ethosu
