// SPDX-License-Identifier: Apache-2.0
// Weight bitstream decoders and encoders (standard syntax and U85 fast-decoder syntax).
#include "ethosu/weight_codec.h"

#include <algorithm>
#include <array>
#include <cstdlib>

namespace openvgf::ethosu {
namespace {

/// LSB-first bit reader that never reads past the end.
class BitReader {
 public:
  explicit BitReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  bool read(unsigned bits, std::uint32_t& value) {
    value = 0;
    if (bits > remaining()) return false;
    for (unsigned i = 0; i < bits; ++i) {
      const std::size_t p = pos_ + i;
      value |= static_cast<std::uint32_t>((bytes_[p / 8] >> (p % 8)) & 1u) << i;
    }
    pos_ += bits;
    return true;
  }
  std::size_t remaining() const { return bytes_.size() * 8 - std::min(pos_, bytes_.size() * 8); }
  void alignToByte() { pos_ = (pos_ + 7) / 8 * 8; }
  void seek(std::size_t bit) { pos_ = bit; }
  std::size_t position() const { return pos_; }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

/// LSB-first bit writer.
class BitWriter {
 public:
  void put(std::uint32_t value, unsigned n) {
    for (unsigned i = 0; i < n; ++i, ++bit_) {
      if (bit_ % 8 == 0) bytes_.push_back(0);
      bytes_.back() |= static_cast<std::uint8_t>(((value >> i) & 1u) << (bit_ % 8));
    }
  }
  std::size_t bits() const { return bit_; }
  std::vector<std::uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<std::uint8_t> bytes_;
  std::size_t bit_ = 0;
};

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
constexpr unsigned kUnaryBits = 12;  // slots per weight unary word

/// Palette state carried from slice to slice.
struct Palette {
  std::vector<std::uint32_t> entries;
  std::uint32_t directOffset = 0;
  unsigned valueBits = 0;
  bool defined = false;
};

/// Reads one slice (its header already started with `zdiv`) and appends its values.
Status decodeSlice(BitReader& reader, unsigned zdiv, int slice, Palette& palette, bool& previousZeroRuns,
                   std::vector<std::int16_t>& values, std::size_t maxValues) {
  auto truncated = [&](const char* what) -> Unexpected {
    return invalidInput("weight stream: slice {}: expected {}, got end of data at bit {}", slice, what, reader.position());
  };
  if (zdiv > 3 && zdiv != 6) return invalidInput("weight stream: slice {}: ZDIV: expected 0..3, 6 or 7, got {}", slice, zdiv);
  std::uint32_t sliceLen = 0, wdiv = 0, wtrunc = 0, newPal = 0;
  if (!reader.read(15, sliceLen) || !reader.read(3, wdiv) || !reader.read(1, wtrunc) || !reader.read(1, newPal)) {
    return truncated("a complete slice header");
  }
  const bool zeroRuns = zdiv != 6;
  if (!newPal && !palette.defined) {
    return invalidInput("weight stream: slice {}: expected NEWPAL = 1 in the first slice, got 0", slice);
  }
  if (!newPal && zeroRuns != previousZeroRuns) {
    return invalidInput("weight stream: slice {}: switching zero runs on or off needs a new palette (NEWPAL = 1)", slice);
  }
  previousZeroRuns = zeroRuns;
  if (newPal) {
    std::uint32_t palSizeField = 0, palBits = 0;
    if (!reader.read(5, palette.directOffset) || !reader.read(5, palSizeField) || !reader.read(3, palBits)) {
      return truncated("a palette header");
    }
    palette.valueBits = palBits + 2;
    palette.entries.assign(palSizeField == 0 ? 0 : palSizeField + 1, 0);
    for (std::uint32_t& entry : palette.entries) {
      if (!reader.read(palette.valueBits, entry)) return truncated("palette entries");
    }
    palette.defined = true;
  }
  const bool uncompressed = wdiv == 7;
  if (!uncompressed && wdiv > 5) return invalidInput("weight stream: slice {}: WDIV: expected 0..5 or 7, got {}", slice, wdiv);
  // Uncompressed indices have no unary part: the divisor is the index width.
  unsigned wDiv = wdiv;
  if (uncompressed) {
    wDiv = 0;
    if (palette.entries.empty()) {
      wDiv = palette.valueBits;
    } else {
      while ((std::size_t{1} << wDiv) < palette.entries.size()) ++wDiv;
    }
  }
  const std::size_t n = std::size_t{sliceLen} + 1;
  const std::size_t zn = zeroRuns ? n + (newPal ? 1 : 0) : 0;
  std::vector<std::uint64_t> w(n, 0), z(zn, 0);
  GrcLane wl, zl;
  const unsigned zUnaryBits = zdiv < 3 ? 12 : 8;
  const unsigned wSlots = (uncompressed && wDiv > 5) ? 8 : kUnaryBits;
  do {
    // Weights may run at most 8 symbols ahead of zero runs, and zero runs never ahead.
    const long balance = zeroRuns ? static_cast<long>(wl.parsed) - static_cast<long>(zl.parsed) : 0;
    const bool wEnabled = (balance < 8 || !zeroRuns) && wl.parsed < n;
    const bool zEnabled = zeroRuns && balance >= 0 && zl.parsed < zn;
    std::uint32_t wUnary0 = 0;
    if (wEnabled && !uncompressed && !reader.read(kUnaryBits, wUnary0)) return truncated("a weight unary word");
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
      for (unsigned i = 0; i < wSlots && wl.quotients.size() < n - wl.parsed; ++i) {
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
  const std::size_t paletteSize = palette.entries.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t index = w[i];
    const std::uint64_t value = index < paletteSize ? palette.entries[static_cast<std::size_t>(index)]
                                                    : index - paletteSize + palette.directOffset;
    // Values are sign-magnitude 9-bit numbers: bit 0 is the sign.
    const std::uint64_t magnitude = value >> 1;
    if (index >= 512 || magnitude > 255) {
      return invalidInput("weight stream: slice {}: weight {}: expected a 9-bit value, got index {} -> {}", slice, i, index,
                          value);
    }
    if (values.size() >= maxValues) return invalidInput("weight stream: slice {}: more than {} decoded values", slice, maxValues);
    values.push_back(static_cast<std::int16_t>((value & 1) ? -static_cast<int>(magnitude) : static_cast<int>(magnitude)));
    if (zeroRuns) OPENVGF_TRY(emitZeros(z[i + (newPal ? 1 : 0)]));
  }
  return {};
}

/// Bits a Golomb-Rice coded slice (no palette, no zero runs) takes with divisor `div`.
std::size_t grcCost(std::span<const std::uint32_t> v, unsigned div) {
  std::size_t slots = 0, unary1 = 0;
  for (std::uint32_t x : v) {
    const std::uint32_t q = x >> div;
    slots += q / 2 + 1;
    unary1 += q / 2 + (q & 1);
  }
  const std::size_t chunks = (slots + kUnaryBits - 1) / kUnaryBits;
  return chunks * kUnaryBits + unary1 + v.size() * div;
}

/// Writes the chunks of a Golomb-Rice slice: per chunk a 12-slot unary word, the second
/// unary bits of its slots, then the remainders of the symbols that ended in the previous chunk.
void writeGrcSlice(BitWriter& out, std::span<const std::uint32_t> v, unsigned div) {
  // Each quotient q is floor(q/2) codes of 2 followed by one code of q % 2.
  std::vector<std::uint8_t> codes;
  std::vector<std::size_t> endSlot;  // slot index that terminates symbol i
  for (std::uint32_t x : v) {
    const std::uint32_t q = x >> div;
    codes.insert(codes.end(), q / 2, 2);
    codes.push_back(static_cast<std::uint8_t>(q & 1));
    endSlot.push_back(codes.size() - 1);
  }
  const std::size_t chunks = (codes.size() + kUnaryBits - 1) / kUnaryBits;
  codes.resize(chunks * kUnaryBits, 0);  // padding slots decode as ignored extra symbols
  std::size_t nextRemainder = 0;
  for (std::size_t c = 0; c <= chunks; ++c) {
    if (c < chunks) {
      std::uint32_t unary0 = 0, unary1 = 0;
      unsigned ones = 0;
      for (unsigned i = 0; i < kUnaryBits; ++i) {
        const std::uint8_t code = codes[c * kUnaryBits + i];
        if (code >= 1) {
          unary0 |= 1u << i;
          unary1 |= (code == 2 ? 1u : 0u) << ones++;
        }
      }
      out.put(unary0, kUnaryBits);
      out.put(unary1, ones);
    }
    if (c == 0) continue;
    // Remainders of the symbols that ended in chunk c - 1.
    const std::size_t chunkEnd = c * kUnaryBits;
    while (nextRemainder < v.size() && endSlot[nextRemainder] < chunkEnd) {
      out.put(v[nextRemainder] & ((1u << div) - 1), div);
      ++nextRemainder;
    }
  }
}

/// Sign in the least significant bit, as the fast decoder's palette stores values.
std::uint32_t fold(int v) { return static_cast<std::uint32_t>((std::abs(v) << 1) | (v < 0 ? 1 : 0)); }
int unfold(std::uint32_t x) { return (x & 1) ? -static_cast<int>(x >> 1) : static_cast<int>(x >> 1); }

constexpr std::size_t kFastHeaderBits = 256;

}  // namespace

Result<std::vector<std::int16_t>> decodeWeightStream(std::span<const std::uint8_t> bytes, std::size_t maxValues,
                                                     StreamEnd end) {
  BitReader reader(bytes);
  std::vector<std::int16_t> values;
  Palette palette;
  bool previousZeroRuns = false;
  for (int slice = 0;; ++slice) {
    if (end == StreamEnd::AllBytes && reader.remaining() < 3) break;  // the final marker may be cut off
    std::uint32_t zdiv = 0;
    if (!reader.read(3, zdiv)) {
      return invalidInput("weight stream: slice {}: expected a slice header, got end of data at bit {}", slice,
                          reader.position());
    }
    if (zdiv == 7) {
      if (end == StreamEnd::First) break;
      reader.alignToByte();
      if (reader.remaining() == 0) break;
      --slice;  // padding and the next section's first slice do not count as slices
      continue;
    }
    OPENVGF_TRY(decodeSlice(reader, zdiv, slice, palette, previousZeroRuns, values, maxValues));
  }
  return values;
}

std::vector<std::uint8_t> encodeWeightStream(std::span<const std::int16_t> values) {
  BitWriter out;
  constexpr std::size_t kSliceMax = 32768;
  for (std::size_t start = 0; start < values.size(); start += kSliceMax) {
    const std::size_t n = std::min(kSliceMax, values.size() - start);
    // Direct mode without a palette: each weight is its sign-magnitude index (|w| << 1 | sign).
    std::vector<std::uint32_t> index(n);
    for (std::size_t i = 0; i < n; ++i) index[i] = fold(values[start + i]);
    unsigned bestDiv = 7;  // 7 = uncompressed 9-bit values
    std::size_t bestCost = n * 9;
    for (unsigned div = 0; div <= 5; ++div) {
      const std::size_t cost = grcCost(index, div);
      if (cost < bestCost) {
        bestCost = cost;
        bestDiv = div;
      }
    }
    out.put(6, 3);                                   // ZDIV: zero runs disabled
    out.put(static_cast<std::uint32_t>(n - 1), 15);  // SLICELEN
    out.put(bestDiv, 3);                             // WDIV
    out.put(0, 1);                                   // WTRUNC
    out.put(start == 0 ? 1 : 0, 1);                  // NEWPAL only in the first slice
    if (start == 0) {
      out.put(0, 5);  // DIROFS
      out.put(0, 5);  // PALSIZE: no palette
      out.put(7, 3);  // PALBITS: 9-bit values
    }
    if (bestDiv == 7) {
      for (std::uint32_t x : index) out.put(x, 9);
    } else {
      writeGrcSlice(out, index, bestDiv);
    }
  }
  out.put(7, 3);  // end of stream
  while (out.bits() % 8 != 0) out.put(1, 1);
  std::vector<std::uint8_t> bytes = out.take();
  bytes.resize((bytes.size() + 15) / 16 * 16, 0xFF);
  return bytes;
}

Result<std::vector<std::int16_t>> decodeFastWeightStream(std::span<const std::uint8_t> bytes, std::size_t count) {
  BitReader reader(bytes);
  std::uint32_t raw = 0, smallLut = 0, zeroAdjust = 0;
  std::array<int, 16> lut{};
  if (!reader.read(1, raw) || !reader.read(1, smallLut)) {
    return invalidInput("fast weight stream: expected a 256-bit header, got {} bytes", bytes.size());
  }
  reader.seek(104);
  if (!reader.read(8, zeroAdjust)) return invalidInput("fast weight stream: expected a 256-bit header, got {} bytes", bytes.size());
  for (int& entry : lut) {
    std::uint32_t folded = 0;
    if (!reader.read(9, folded)) return invalidInput("fast weight stream: expected a 256-bit header, got {} bytes", bytes.size());
    entry = unfold(folded);
  }
  if (raw && smallLut) return invalidInput("fast weight stream: header: expected raw mode or a palette, got both flags");
  const unsigned codeBits = raw ? 8 : smallLut ? 2 : 4;
  if (count > (bytes.size() * 8 - kFastHeaderBits) / codeBits) {
    return invalidInput("fast weight stream: expected {} {}-bit codes after the header, got {} bytes", count, codeBits,
                        bytes.size());
  }
  std::vector<std::int16_t> values(count);
  reader.seek(kFastHeaderBits);
  for (std::int16_t& v : values) {
    std::uint32_t code = 0;
    reader.read(codeBits, code);
    v = static_cast<std::int16_t>(raw ? static_cast<std::int8_t>(code) - static_cast<std::int8_t>(zeroAdjust) : lut[code]);
  }
  return values;
}

std::vector<std::uint8_t> encodeFastWeightStream(std::span<const std::int16_t> values) {
  std::vector<int> palette;
  int lo = 0, hi = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const int v = values[i];
    lo = i == 0 ? v : std::min(lo, v);
    hi = i == 0 ? v : std::max(hi, v);
    if (palette.size() <= 16 && std::find(palette.begin(), palette.end(), v) == palette.end()) palette.push_back(v);
  }
  const bool raw = palette.size() > 16;
  const bool small = palette.size() <= 4;
  int zeroAdjust = 0;
  if (raw) {
    if (hi - lo >= 256 || lo < -256 || hi > 255) return {};
    if (lo < -128) zeroAdjust = -128 - lo;
    if (hi > 127) zeroAdjust = 127 - hi;
  }
  BitWriter out;
  out.put(raw ? 1 : 0, 1);
  out.put(small && !raw ? 1 : 0, 1);
  for (int i = 0; i < 102; ++i) out.put(0, 1);
  out.put(static_cast<std::uint32_t>(zeroAdjust) & 0xFF, 8);
  for (std::size_t i = 0; i < 16; ++i) out.put(!raw && i < palette.size() ? fold(palette[i]) : 0, 9);
  for (std::int16_t v : values) {
    if (raw) {
      out.put(static_cast<std::uint32_t>(v + zeroAdjust) & 0xFF, 8);
    } else {
      const auto code = static_cast<std::uint32_t>(std::find(palette.begin(), palette.end(), v) - palette.begin());
      out.put(code, small ? 2 : 4);
    }
  }
  std::vector<std::uint8_t> bytes = out.take();
  bytes.resize((bytes.size() + 31) / 32 * 32, 0);
  return bytes;
}

}  // namespace openvgf::ethosu
