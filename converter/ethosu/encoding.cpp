// SPDX-License-Identifier: Apache-2.0
// Weight ordering, bitstream, scale-record and container encoders.
#include "converter/ethosu/encoding.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace openvgf::converter::ethosu {
namespace {

int roundUp(int v, int m) { return (v + m - 1) / m * m; }

void putU32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

}  // namespace

std::vector<std::int16_t> orderWeights(const WeightVolume& v, const AcceleratorConfig& config) {
  // Loop nest of specs/ethosu.md §3.3, outermost first. Positions outside the volume are zero.
  const int oub = config.ofmUblock.d;
  const int iub = config.ifmUblock.d;
  const bool dw = v.traversal == Traversal::Depthwise;
  const bool pkf = v.traversal == Traversal::PartKernelFirst;
  const bool df = v.traversal == Traversal::DepthFirst;
  const int ifmBlock = pkf ? 16 : 32;  // 8-bit IFM only
  const int subKH = 8 / v.dilationY, subKW = 8 / v.dilationX;
  const int I = dw ? 1 : v.ifmDepth;
  const int obd = std::min(v.ofmBlockDepth, v.ofmDepth);
  auto at = [&](int o, int ky, int kx, int i) {
    return v.values[static_cast<std::size_t>(((o * v.kernelHeight + ky) * v.kernelWidth + kx) * I + i)];
  };
  std::vector<std::int16_t> out;
  for (int ob = 0; ob < v.ofmDepth; ob += obd) {
    const int obEnd = std::min(ob + obd, v.ofmDepth);
    const int ibCount = dw ? 1 : (I + ifmBlock - 1) / ifmBlock;
    for (int ibi = 0; ibi < ibCount; ++ibi) {
      const int ib = ibi * ifmBlock;
      const int ibd = dw ? iub : (pkf ? std::min(ifmBlock, I - ib) : ifmBlock);
      for (int sy = 0; sy < v.kernelHeight; sy += subKH) {
        for (int sx = 0; sx < v.kernelWidth; sx += subKW) {
          const int h = std::min(subKH, v.kernelHeight - sy);
          const int w = std::min(subKW, v.kernelWidth - sx);
          const int elems = (dw || pkf) ? roundUp(w * h, 4) : w * h;
          const int outerCount = pkf ? (ibd + iub - 1) / iub : 1;
          for (int outer = 0; outer < outerCount; ++outer) {
            for (int ou = 0; ou < obEnd - ob; ou += oub) {
              for (int e = 0; e < elems; ++e) {
                const int ky = e / w, kx = e % w;
                const int innerCount = df ? ibd / iub : 1;
                for (int inner = 0; inner < innerCount; ++inner) {
                  const int iu = pkf ? outer * iub : inner * iub;
                  for (int oz = 0; oz < oub; ++oz) {
                    const int o = ob + ou + oz;
                    for (int iz = 0; iz < (dw ? 1 : iub); ++iz) {
                      const int i = dw ? 0 : ib + iu + iz;
                      out.push_back(o < obEnd && i < I && ky < h ? at(o, sy + ky, sx + kx, i) : std::int16_t{0});
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
  return out;
}

namespace {

/// LSB-first bit writer of the weight bitstream.
class BitWriter {
 public:
  void put(std::uint32_t value, unsigned n) {
    for (unsigned i = 0; i < n; ++i, ++bit_) {
      if (bit_ % 8 == 0) bytes_.push_back(0);
      bytes_.back() |= static_cast<std::uint8_t>(((value >> i) & 1u) << (bit_ % 8));
    }
  }
  std::vector<std::uint8_t> finish() {
    while (bit_ % 8 != 0) put(1, 1);
    while (bytes_.size() % 16 != 0) bytes_.push_back(0xFF);
    return std::move(bytes_);
  }

 private:
  std::vector<std::uint8_t> bytes_;
  std::size_t bit_ = 0;
};

constexpr unsigned kUnaryBits = 12;  // slots per weight unary word

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

}  // namespace

std::vector<std::uint8_t> encodeWeightStream(std::span<const std::int16_t> values) {
  BitWriter out;
  constexpr std::size_t kSliceMax = 32768;
  for (std::size_t start = 0; start < values.size(); start += kSliceMax) {
    const std::size_t n = std::min(kSliceMax, values.size() - start);
    // Direct mode without a palette: each weight is its sign-magnitude index (|w| << 1 | sign).
    std::vector<std::uint32_t> index(n);
    for (std::size_t i = 0; i < n; ++i) {
      const int w = values[start + i];
      index[i] = static_cast<std::uint32_t>((std::abs(w) << 1) | (w < 0 ? 1 : 0));
    }
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
  return out.finish();
}

std::vector<std::uint8_t> encodeScaleStream(std::span<const std::int64_t> bias, std::span<const std::uint32_t> scale,
                                            std::span<const std::uint8_t> shift) {
  std::vector<std::uint8_t> out;
  for (std::size_t c = 0; c < bias.size(); ++c) {
    const auto b = static_cast<std::uint64_t>(bias[c]);
    for (int i = 0; i < 5; ++i) out.push_back(static_cast<std::uint8_t>(b >> (8 * i)));
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(scale[c] >> (8 * i)));
    out.push_back(static_cast<std::uint8_t>(shift[c] & 0x3F));
  }
  out.resize((out.size() + 15) / 16 * 16, 0);
  return out;
}

std::vector<std::uint8_t> encodeCop1(std::span<const std::uint32_t> words, const AcceleratorConfig& config) {
  std::vector<std::uint8_t> out;
  putU32(out, 0x31504F43);             // "COP1"
  putU32(out, 0x01 | (0x0010u << 16));  // OPTIMIZER_CONFIG, release 0 patch 1
  // CONFIG describes the whole NPU: MACs and SHRAM of all cores (Vela driver_actions.py).
  const int totalMacs = config.macs * config.cores;
  unsigned log2Macs = 0;
  while ((2 << log2Macs) <= totalMacs) ++log2Macs;
  putU32(out, log2Macs | (static_cast<std::uint32_t>(config.shramBanks * config.cores) << 8) | (config.product << 28));
  putU32(out, 0x10060000);  // ID: architecture 1.0.6
  while ((out.size() + 4) % 16 != 0) putU32(out, 0x05);  // NOPs: the stream starts 16-byte aligned
  const auto n = static_cast<std::uint32_t>(words.size());
  putU32(out, 0x02 | ((n >> 16) << 8) | ((n & 0xFFFF) << 16));
  for (std::uint32_t w : words) putU32(out, w);
  return out;
}

std::vector<std::uint8_t> encodeVelaBinStream(std::span<const std::uint8_t> cmdData, std::span<const std::uint8_t> weightData,
                                              std::uint32_t scratchSize, std::span<const IoPlacement> inputs,
                                              std::span<const IoPlacement> outputs) {
  std::vector<std::uint8_t> out;
  auto block = [&](std::string_view name, std::span<const std::uint8_t> data) {
    std::uint8_t header[32] = {};
    std::memcpy(header, name.data(), name.size());
    const auto size = static_cast<std::uint32_t>(data.size());
    for (int i = 0; i < 4; ++i) header[16 + i] = static_cast<std::uint8_t>(size >> (8 * i));
    out.insert(out.end(), header, header + 32);
    out.insert(out.end(), data.begin(), data.end());
    out.resize((out.size() + 15) / 16 * 16, 0);
  };
  auto ioList = [](std::span<const IoPlacement> list) {
    std::vector<std::uint8_t> bytes;
    putU32(bytes, static_cast<std::uint32_t>(list.size()));
    for (const IoPlacement& io : list) {
      for (std::int32_t d : io.shape) putU32(bytes, static_cast<std::uint32_t>(d));
      putU32(bytes, static_cast<std::uint32_t>(io.elemSize));
      putU32(bytes, static_cast<std::uint32_t>(io.offset));
      putU32(bytes, static_cast<std::uint32_t>(io.region));
    }
    return bytes;
  };
  std::vector<std::uint8_t> scratch;
  putU32(scratch, scratchSize);
  block("vela_bin_stream", {});
  block("cmd_data", cmdData);
  block("weight_data", weightData);
  block("scratch_size", scratch);
  block("inputs", ioList(inputs));
  block("outputs", ioList(outputs));
  block("vela_end_stream", {});
  return out;
}

}  // namespace openvgf::converter::ethosu
