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

namespace {

/// One of the two Golomb-Rice symbol streams of a slice (weights or zero runs). Quotients are
/// parsed one chunk ahead of their remainders, so each lane keeps the quotients of the chunk
/// whose remainders are read next.
struct GrcLane {
  std::size_t parsed = 0;     // symbols whose quotient is known
  std::size_t completed = 0;  // symbols whose remainder has been read
  std::uint64_t carry = 0;    // quotient continuing into the next unary word
  std::vector<std::uint64_t> quotients, pending;
  bool pendingEnabled = false;
};

constexpr std::uint64_t kMaxQuotient = std::uint64_t{1} << 20;

}  // namespace

Result<std::vector<std::int16_t>> decodeWeightStream(std::span<const std::uint8_t> bytes, std::size_t maxValues) {
  BitReader reader(bytes);
  std::vector<std::int16_t> values;
  std::vector<std::uint32_t> palette;
  std::uint32_t dirOfs = 0;
  unsigned valueBits = 0;
  bool havePalette = false;
  bool previousZeroRuns = false;
  for (int slice = 0;; ++slice) {
    auto truncated = [&](const char* what) -> Unexpected {
      return invalidInput("weight stream: slice {}: expected {}, got end of data at bit {}", slice, what, reader.position());
    };
    std::uint32_t zdiv = 0, sliceLen = 0, wdiv = 0, wtrunc = 0, newPal = 0;
    if (!reader.read(3, zdiv)) return truncated("a slice header");
    if (zdiv == 7) break;  // end of stream
    if (zdiv > 3 && zdiv != 6) return invalidInput("weight stream: slice {}: ZDIV: expected 0..3, 6 or 7, got {}", slice, zdiv);
    if (!reader.read(15, sliceLen) || !reader.read(3, wdiv) || !reader.read(1, wtrunc) || !reader.read(1, newPal)) {
      return truncated("a complete slice header");
    }
    const bool zeroRuns = zdiv != 6;
    if (!newPal && !havePalette) return invalidInput("weight stream: slice {}: expected NEWPAL = 1 in the first slice, got 0", slice);
    if (!newPal && zeroRuns != previousZeroRuns) {
      return invalidInput("weight stream: slice {}: switching zero runs on or off needs a new palette (NEWPAL = 1)", slice);
    }
    previousZeroRuns = zeroRuns;
    if (newPal) {
      std::uint32_t palSizeField = 0, palBits = 0;
      if (!reader.read(5, dirOfs) || !reader.read(5, palSizeField) || !reader.read(3, palBits)) return truncated("a palette header");
      valueBits = palBits + 2;
      palette.assign(palSizeField == 0 ? 0 : palSizeField + 1, 0);
      for (std::uint32_t& entry : palette) {
        if (!reader.read(valueBits, entry)) return truncated("palette entries");
      }
      havePalette = true;
    }
    const bool uncompressed = wdiv == 7;
    if (!uncompressed && wdiv > 5) return invalidInput("weight stream: slice {}: WDIV: expected 0..5 or 7, got {}", slice, wdiv);
    // Uncompressed indices have no unary part: the divisor is the index width.
    unsigned wDiv = wdiv;
    if (uncompressed) {
      wDiv = 0;
      if (palette.empty()) {
        wDiv = valueBits;
      } else {
        while ((std::size_t{1} << wDiv) < palette.size()) ++wDiv;
      }
    }
    const std::size_t n = std::size_t{sliceLen} + 1;
    const std::size_t zn = zeroRuns ? n + (newPal ? 1 : 0) : 0;
    std::vector<std::uint64_t> w(n, 0), z(zn, 0);
    GrcLane wl, zl;
    const unsigned zUnaryBits = zdiv < 3 ? 12 : 8;
    const unsigned wSlots = (uncompressed && wDiv > 5) ? 8 : 12;
    do {
      // Weights may run at most 8 symbols ahead of zero runs, and zero runs never ahead.
      const long balance = zeroRuns ? static_cast<long>(wl.parsed) - static_cast<long>(zl.parsed) : 0;
      const bool wEnabled = (balance < 8 || !zeroRuns) && wl.parsed < n;
      const bool zEnabled = zeroRuns && balance >= 0 && zl.parsed < zn;
      std::uint32_t wUnary0 = 0;
      if (wEnabled && !uncompressed && !reader.read(12, wUnary0)) return truncated("a weight unary word");
      zl.quotients.clear();
      if (zEnabled) {
        std::uint32_t unary = 0;
        if (!reader.read(zUnaryBits, unary)) return truncated("a zero-run unary word");
        for (unsigned i = 0; i < zUnaryBits; ++i) {
          if (unary & (1u << i)) {
            ++zl.carry;
          } else {
            zl.quotients.push_back(zl.carry);
            zl.carry = 0;
          }
        }
        zl.parsed += zl.quotients.size();
      }
      wl.quotients.clear();
      if (wEnabled) {
        unsigned ones = 0;
        for (unsigned i = 0; i < wSlots; ++i) ones += (wUnary0 >> i) & 1u;
        std::uint32_t unary1 = 0;
        if (!reader.read(ones, unary1)) return truncated("a second weight unary word");
        for (unsigned i = 0; i < wSlots; ++i) {
          unsigned code = 0;
          if (wUnary0 & (1u << i)) {
            code = 1 + (unary1 & 1u);
            unary1 >>= 1;
          }
          wl.carry += code;
          // A quotient ends with a code below 2; in truncated mode every slot is one quotient.
          if (code < 2 || wtrunc) {
            wl.quotients.push_back(wl.carry);
            wl.carry = 0;
          }
        }
        wl.parsed += wl.quotients.size();
      }
      if (wl.carry > kMaxQuotient || zl.carry > kMaxQuotient) {
        return invalidInput("weight stream: slice {}: a Golomb-Rice quotient exceeds {}", slice, kMaxQuotient);
      }
      if (wl.pendingEnabled) {
        for (std::size_t i = 0; i < wl.pending.size() && wl.completed < n; ++i) {
          std::uint32_t rem = 0;
          if (!reader.read(wDiv, rem)) return truncated("weight remainders");
          w[wl.completed++] = (wl.pending[i] << wDiv) + rem;
        }
      }
      if (zl.pendingEnabled) {
        for (std::size_t i = 0; i < zl.pending.size() && zl.completed < zn; ++i) {
          std::uint32_t rem = 0;
          if (!reader.read(zdiv, rem)) return truncated("zero-run remainders");
          z[zl.completed++] = (zl.pending[i] << zdiv) + rem;
        }
      }
      wl.pendingEnabled = wEnabled;
      wl.pending = wl.quotients;
      zl.pendingEnabled = zEnabled;
      zl.pending = zl.quotients;
    } while (wl.pendingEnabled || zl.pendingEnabled);
    if (wl.completed < n || zl.completed < zn) {
      return invalidInput("weight stream: slice {}: expected {} weights and {} zero runs, the chunks ended after {} and {}",
                          slice, n, zn, wl.completed, zl.completed);
    }
    auto emitZeros = [&](std::uint64_t count) -> Status {
      if (count > maxValues - values.size()) {
        return invalidInput("weight stream: slice {}: more than {} decoded values", slice, maxValues);
      }
      values.insert(values.end(), static_cast<std::size_t>(count), 0);
      return {};
    };
    if (newPal && zeroRuns) OPENVGF_TRY(emitZeros(z[0]));
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t index = w[i];
      const std::uint64_t value = index < palette.size() ? palette[static_cast<std::size_t>(index)]
                                                         : index - palette.size() + dirOfs;
      // Values are sign-magnitude 9-bit numbers: bit 0 is the sign.
      const std::uint64_t magnitude = value >> 1;
      if (index >= 512 || magnitude > 255) {
        return invalidInput("weight stream: slice {}: weight {}: expected a 9-bit value, got index {} -> {}", slice, i, index, value);
      }
      if (values.size() >= maxValues) {
        return invalidInput("weight stream: slice {}: more than {} decoded values", slice, maxValues);
      }
      values.push_back(static_cast<std::int16_t>((value & 1) ? -static_cast<int>(magnitude) : static_cast<int>(magnitude)));
      if (zeroRuns) OPENVGF_TRY(emitZeros(z[i + (newPal ? 1 : 0)]));
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
