// SPDX-License-Identifier: Apache-2.0
// Scale record and weight bitstream decoding, and the weight order loop nest.
#include "runner/ethosu/weights.h"

#include <algorithm>

namespace openvgf::runner::ethosu {
namespace {

/// LSB-first bit reader that never reads past the end.
class BitReader {
 public:
  explicit BitReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  bool read(unsigned bits, std::uint32_t& value) {
    value = 0;
    if (bits > bytes_.size() * 8 - std::min(pos_, bytes_.size() * 8)) return false;
    for (unsigned i = 0; i < bits; ++i) {
      const std::size_t p = pos_ + i;
      value |= static_cast<std::uint32_t>((bytes_[p / 8] >> (p % 8)) & 1u) << i;
    }
    pos_ += bits;
    return true;
  }
  std::size_t position() const { return pos_; }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

int roundUp(int v, int m) { return (v + m - 1) / m * m; }

}  // namespace

Result<std::vector<ScaleRecord>> decodeScaleStream(std::span<const std::uint8_t> bytes, std::size_t count) {
  if (count > bytes.size() / 10) {
    return invalidInput("scale stream: expected {} records of 10 bytes, got {} bytes", count, bytes.size());
  }
  std::vector<ScaleRecord> records(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t* b = bytes.data() + i * 10;
    std::uint64_t bias = 0;
    for (int k = 0; k < 5; ++k) bias |= std::uint64_t{b[k]} << (8 * k);
    // Sign-extend the 40-bit field.
    if (bias & (std::uint64_t{1} << 39)) bias |= ~((std::uint64_t{1} << 40) - 1);
    records[i].bias = static_cast<std::int64_t>(bias);
    records[i].scale = std::uint32_t{b[5]} | (std::uint32_t{b[6]} << 8) | (std::uint32_t{b[7]} << 16) |
                       (std::uint32_t{b[8]} << 24);
    if (b[9] & 0xC0) return invalidInput("scale stream: record {}: shift: expected bits 7:6 = 0, got 0x{:02x}", i, b[9]);
    records[i].shift = b[9];
  }
  return records;
}

Result<std::vector<std::int16_t>> decodeWeightStream(std::span<const std::uint8_t> bytes) {
  BitReader reader(bytes);
  std::vector<std::int16_t> values;
  bool havePalette = false;
  unsigned valueBits = 0;
  for (int slice = 0;; ++slice) {
    std::uint32_t zdiv = 0, sliceLen = 0, wdiv = 0, wtrunc = 0, newPal = 0;
    const std::size_t at = reader.position();
    if (!reader.read(3, zdiv)) return invalidInput("weight stream: slice {} at bit {}: expected a header, got end of data", slice, at);
    if (zdiv == 7) break;
    if (!reader.read(15, sliceLen) || !reader.read(3, wdiv) || !reader.read(1, wtrunc) || !reader.read(1, newPal)) {
      return invalidInput("weight stream: slice {} at bit {}: truncated slice header", slice, at);
    }
    std::uint32_t dirOfs = 0, palSize = 0, palBits = 0;
    if (newPal && (!reader.read(5, dirOfs) || !reader.read(5, palSize) || !reader.read(3, palBits))) {
      return invalidInput("weight stream: slice {}: truncated palette header", slice);
    }
    if (zdiv != 6 || wdiv != 7 || wtrunc != 0) {
      return unsupported("weight stream: slice {}: compressed slices (ZDIV {}, WDIV {}, WTRUNC {}) are not supported; "
                         "only the uncompressed encoding (ZDIV 6, WDIV 7) is", slice, zdiv, wdiv, wtrunc);
    }
    if (newPal) {
      if (palSize != 0 || dirOfs != 0) {
        return unsupported("weight stream: slice {}: palette-coded weights (PALSIZE {}, DIROFS {}) are not supported; "
                           "only the uncompressed encoding is", slice, palSize, dirOfs);
      }
      valueBits = palBits + 2;
      havePalette = true;
    }
    if (!havePalette) return invalidInput("weight stream: slice {}: expected NEWPAL = 1 in the first slice, got 0", slice);
    const std::size_t n = std::size_t{sliceLen} + 1;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t v = 0;
      if (!reader.read(valueBits, v)) {
        return invalidInput("weight stream: slice {}: expected {} values of {} bits, got end of data after {}", slice, n,
                            valueBits, i);
      }
      const std::int32_t magnitude = static_cast<std::int32_t>(v >> 1);
      if (magnitude > 255) return invalidInput("weight stream: slice {}: value {}: expected |w| <= 255, got {}", slice, i, magnitude);
      values.push_back(static_cast<std::int16_t>((v & 1) ? -magnitude : magnitude));
    }
  }
  return values;
}

std::vector<std::int64_t> weightStreamOrder(const WeightLayout& l) {
  std::vector<std::int64_t> order;
  const bool depthwise = l.traversal == WeightTraversal::Depthwise;
  const bool partKernel = l.traversal == WeightTraversal::PartKernelFirst;
  const int ifmBlockDepth = (partKernel || l.ifm16Bit) ? 16 : 32;
  const int decompH = std::max(1, 8 / l.dilationY);
  const int decompW = std::max(1, 8 / l.dilationX);
  const int ofmBlock = std::max(1, std::min(l.ofmBlockDepth, l.ofmDepth));
  const int ifmDepth = depthwise ? 1 : l.ifmDepth;
  for (int ob = 0; ob < l.ofmDepth; ob += ofmBlock) {
    const int obEnd = std::min(ob + ofmBlock, l.ofmDepth);
    const int obDepth = obEnd - ob;
    for (int ib = 0; ib < (depthwise ? 1 : ifmDepth); ib += ifmBlockDepth) {
      int ibDepth = depthwise ? l.ifmUblockDepth : (partKernel ? std::min(ifmBlockDepth, ifmDepth - ib) : ifmBlockDepth);
      for (int sy = 0; sy < l.kernelHeight; sy += decompH) {
        for (int sx = 0; sx < l.kernelWidth; sx += decompW) {
          const int subH = std::min(decompH, l.kernelHeight - sy);
          const int subW = std::min(decompW, l.kernelWidth - sx);
          int elements = subW * subH;
          if (depthwise || (partKernel && !l.ifm16Bit)) elements = roundUp(elements, 4);
          if (partKernel && l.ifm16Bit) elements = roundUp(elements, 2);
          const int outerStep = partKernel ? l.ifmUblockDepth : ibDepth;
          for (int iuOuter = 0; iuOuter < (partKernel ? ibDepth : 1); iuOuter += (partKernel ? outerStep : 1)) {
            for (int ou = 0; ou < obDepth; ou += l.ofmUblockDepth) {
              for (int e = 0; e < elements; ++e) {
                const int kx = e % subW;
                const int ky = e / subW;
                const bool depthFirst = l.traversal == WeightTraversal::DepthFirst;
                for (int iuInner = 0; iuInner < (depthFirst ? ibDepth : 1); iuInner += (depthFirst ? l.ifmUblockDepth : 1)) {
                  const int iu = partKernel ? iuOuter : iuInner;
                  for (int oz = 0; oz < l.ofmUblockDepth; ++oz) {
                    for (int iz = 0; iz < (depthwise ? 1 : l.ifmUblockDepth); ++iz) {
                      const int o = ob + ou + oz;
                      const int i = depthwise ? 0 : ib + iu + iz;
                      const bool valid = o < obEnd && i < ifmDepth && ky < subH;
                      if (!valid) {
                        order.push_back(-1);
                      } else {
                        const std::int64_t idx =
                            ((static_cast<std::int64_t>(o) * l.kernelHeight + (sy + ky)) * l.kernelWidth + (sx + kx)) * ifmDepth + i;
                        order.push_back(idx);
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return order;
}

}  // namespace openvgf::runner::ethosu
