// SPDX-License-Identifier: Apache-2.0
// Helpers for Ethos-U tests: a small command-list builder and straightforward encoders for the
// scale records and the uncompressed weight bitstream, written from the fact sheet so that the
// simulator is tested against an encoding made independently of the converter.
#pragma once

#include <cstdint>
#include <vector>

#include "ethosu/command_stream.h"
#include "ethosu/weight_order.h"

namespace openvgf::runner::ethosu::testing {

using namespace ::openvgf::ethosu;

class Stream {
 public:
  Stream& set0(std::uint16_t code, std::uint16_t param) {
    commands_.push_back(Command{static_cast<std::uint32_t>(commands_.size()), 0, code, false, param, 0});
    return *this;
  }
  Stream& set1(std::uint16_t code, std::uint32_t data, std::uint16_t param = 0) {
    commands_.push_back(Command{static_cast<std::uint32_t>(commands_.size()), 0, code, true, param, data});
    return *this;
  }
  std::vector<Command>& commands() { return commands_; }
  std::vector<std::uint8_t> bytes() const {
    std::vector<std::uint8_t> out;
    for (std::uint32_t w : encodeCommands(commands_)) {
      for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(w >> (8 * i)));
    }
    return out;
  }

 private:
  std::vector<Command> commands_;
};

/// LSB-first bit writer.
class Bits {
 public:
  void put(std::uint32_t value, unsigned bits) {
    for (unsigned i = 0; i < bits; ++i) {
      if (pos_ % 8 == 0) bytes_.push_back(0);
      bytes_.back() |= static_cast<std::uint8_t>(((value >> i) & 1u) << (pos_ % 8));
      ++pos_;
    }
  }
  std::vector<std::uint8_t> finish() {
    while (pos_ % 8 != 0) put(1, 1);
    while (bytes_.size() % 16 != 0) bytes_.push_back(0xFF);
    return bytes_;
  }

 private:
  std::vector<std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

/// Uncompressed weight stream (ZDIV 6, WDIV 7, 9-bit sign-magnitude values).
inline std::vector<std::uint8_t> encodeUncompressed(const std::vector<std::int16_t>& values, std::size_t sliceMax = 32768) {
  Bits bits;
  std::size_t at = 0;
  bool first = true;
  while (at < values.size()) {
    const std::size_t n = std::min(sliceMax, values.size() - at);
    bits.put(6, 3);
    bits.put(static_cast<std::uint32_t>(n - 1), 15);
    bits.put(7, 3);
    bits.put(0, 1);
    bits.put(first ? 1 : 0, 1);
    if (first) {
      bits.put(0, 5);
      bits.put(0, 5);
      bits.put(7, 3);
    }
    first = false;
    for (std::size_t i = 0; i < n; ++i) {
      const int w = values[at + i];
      bits.put(static_cast<std::uint32_t>((std::abs(w) << 1) | (w < 0 ? 1 : 0)), 9);
    }
    at += n;
  }
  bits.put(7, 3);
  return bits.finish();
}

/// Weights (OHWI) in hardware order, then encoded.
inline std::vector<std::uint8_t> encodeWeights(const std::vector<std::int16_t>& ohwi, const WeightLayout& layout) {
  std::vector<std::int16_t> ordered;
  for (std::int64_t idx : weightStreamOrder(layout)) ordered.push_back(idx < 0 ? 0 : ohwi[static_cast<std::size_t>(idx)]);
  return encodeUncompressed(ordered);
}

inline void appendScaleRecord(std::vector<std::uint8_t>& out, std::int64_t bias, std::uint32_t scale, unsigned shift) {
  for (int i = 0; i < 5; ++i) out.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(bias) >> (8 * i)));
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(scale >> (8 * i)));
  out.push_back(static_cast<std::uint8_t>(shift));
}

}  // namespace openvgf::runner::ethosu::testing
