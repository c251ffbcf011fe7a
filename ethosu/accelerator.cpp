// SPDX-License-Identifier: Apache-2.0
// The configuration table and the CONFIG/ID register images.
#include "ethosu/accelerator.h"

#include <string>

namespace openvgf::ethosu {
namespace {

AcceleratorConfig u55(std::string_view name, Product product, int macs, int cores, Block3 ofm, Block3 ifm, int banks,
                      std::array<int, 8> granules) {
  AcceleratorConfig c;
  c.name = name;
  c.product = product;
  c.macs = macs;
  c.cores = cores;
  c.ofmUblock = ofm;
  c.ifmUblock = ifm;
  c.shramBanks = banks;
  c.granuleIfm8 = granules[0];
  c.granuleIfm16 = granules[1];
  c.granuleIfm8Ew = granules[2];
  c.granuleIfm16Ew = granules[3];
  c.granuleIfm32 = granules[4];
  c.granuleAcc16 = granules[5];
  c.granuleAcc32 = granules[6];
  c.granuleAcc40 = granules[7];
  return c;
}

AcceleratorConfig u85(std::string_view name, int macs, int cores, std::array<Block3, 3> ublocks, int count, Block3 def,
                      int axiSramLog2, int axiExtLog2, int ifmRam, int accRam, int obRam) {
  AcceleratorConfig c;
  c.name = name;
  c.product = Product::U85;
  c.macs = macs;
  c.cores = cores;
  c.ofmUblocks = ublocks;
  c.ofmUblockCount = count;
  c.ofmUblock = def;
  c.ifmUblock = def;
  c.numAxiSramLog2 = axiSramLog2;
  c.numAxiExtLog2 = axiExtLog2;
  c.ifmRamBytes = ifmRam;
  c.accRamBytes = accRam;
  c.obRamBytes = obRam;
  return c;
}

// clang-format off
const std::array kConfigs = {
    u55("ethos-u55-32", Product::U55, 32, 1, {1, 1, 4}, {1, 1, 8}, 16, {2, 2, 2, 2, 4, 4, 4, 4}),
    u55("ethos-u55-64", Product::U55, 64, 1, {1, 1, 8}, {1, 1, 8}, 16, {2, 2, 2, 2, 4, 4, 4, 8}),
    u55("ethos-u55-128", Product::U55, 128, 1, {1, 2, 8}, {1, 2, 8}, 24, {4, 4, 4, 4, 8, 4, 8, 12}),
    u55("ethos-u55-256", Product::U55, 256, 1, {2, 2, 8}, {2, 2, 8}, 48, {8, 8, 8, 8, 16, 8, 16, 20}),
    u55("ethos-u65-256", Product::U65, 256, 1, {2, 2, 8}, {2, 2, 8}, 48, {8, 8, 8, 8, 16, 8, 16, 20}),
    u55("ethos-u65-512", Product::U65, 512, 2, {2, 2, 8}, {2, 2, 8}, 48, {8, 8, 8, 8, 16, 8, 16, 20}),
    // Micro-blocks are H x W x D, then the default one, AXI ports, and IFM / accumulator /
    // output buffer bytes.
    u85("ethos-u85-128", 128, 1, {Block3{1, 2, 8}, Block3{1, 1, 16}, Block3{}}, 2, {1, 2, 8}, 1, 0, 8192, 8192, 2048),
    u85("ethos-u85-256", 256, 1, {Block3{1, 2, 16}, Block3{1, 4, 8}, Block3{2, 2, 8}}, 3, {2, 2, 8}, 1, 0, 16384, 16384, 2048),
    u85("ethos-u85-512", 512, 2, {Block3{2, 2, 16}, Block3{1, 4, 16}, Block3{}}, 2, {2, 2, 16}, 1, 0, 16384, 32768, 4096),
    u85("ethos-u85-1024", 1024, 4, {Block3{2, 2, 32}, Block3{1, 4, 32}, Block3{2, 4, 16}}, 3, {2, 2, 32}, 1, 1, 16384, 65536, 4096),
    u85("ethos-u85-2048", 2048, 4, {Block3{2, 2, 64}, Block3{1, 4, 64}, Block3{4, 4, 16}}, 3, {2, 2, 64}, 2, 1, 32768, 131072, 8192),
};
// clang-format on

unsigned log2Floor(unsigned v) {
  unsigned r = 0;
  while ((2u << r) <= v) ++r;
  return r;
}

}  // namespace

std::string_view productName(Product product) {
  switch (product) {
    case Product::U55: return "Ethos-U55";
    case Product::U65: return "Ethos-U65";
    case Product::U85: return "Ethos-U85";
  }
  return "Ethos-U";
}

std::span<const AcceleratorConfig> acceleratorConfigs() { return kConfigs; }

std::optional<AcceleratorConfig> findAccelerator(std::string_view name) {
  for (const AcceleratorConfig& c : kConfigs) {
    if (c.name == name) return c;
  }
  return std::nullopt;
}

std::string acceleratorNames() {
  std::string names;
  for (const AcceleratorConfig& c : kConfigs) names += (names.empty() ? "" : ", ") + std::string(c.name);
  return names;
}

std::uint32_t configWord(const AcceleratorConfig& c) {
  const std::uint32_t macs = log2Floor(static_cast<unsigned>(c.macs));
  if (c.product == Product::U85) {
    return macs | (1u << 4) | (static_cast<std::uint32_t>(c.numAxiSramLog2) << 8) |
           (static_cast<std::uint32_t>(c.numAxiExtLog2) << 10) | (log2Floor(static_cast<unsigned>(c.cores)) << 12) |
           (2u << 28);
  }
  // CONFIG describes the whole NPU: MACs and SHRAM of all cores (Vela driver_actions.py).
  return macs | (static_cast<std::uint32_t>(c.shramBanks * c.cores) << 8) |
         (static_cast<std::uint32_t>(c.product) << 28);
}

std::uint32_t idWord(Product product) { return product == Product::U85 ? 0x20000000u : 0x10060000u; }

Result<AcceleratorConfig> acceleratorFromConfigWord(std::uint32_t word) {
  const unsigned product = (word >> 28) & 0xF;
  const unsigned version = (word >> 4) & 0xF;
  const unsigned macs = 1u << (word & 0xF);
  if (product > 2) {
    return unsupported("CONFIG 0x{:08x}: product {} is not Ethos-U55 (0), Ethos-U65 (1) or Ethos-U85 (2)", word, product);
  }
  const unsigned wantVersion = product == 2 ? 1 : 0;
  if (version != wantVersion) {
    return unsupported("CONFIG 0x{:08x}: cmd_stream_version {} is not the {} version {}", word, version,
                       productName(static_cast<Product>(product)), wantVersion);
  }
  for (const AcceleratorConfig& c : kConfigs) {
    if (static_cast<unsigned>(c.product) != product || static_cast<unsigned>(c.macs) != macs) continue;
    if (c.product == Product::U85 && (1u << ((word >> 12) & 3)) != static_cast<unsigned>(c.cores)) {
      return unsupported("CONFIG 0x{:08x}: {} weight decoders on an Ethos-U85 with {} MACs/cycle (expected {})", word,
                         1u << ((word >> 12) & 3), macs, c.cores);
    }
    return c;
  }
  return unsupported("CONFIG 0x{:08x}: {} MACs per cycle is not an {} configuration", word, macs,
                     productName(static_cast<Product>(product)));
}

std::optional<Block3> u85Microblock(const AcceleratorConfig& config, unsigned code) {
  static constexpr std::array<Block3, 6> kShapes = {Block3{1, 1, 0}, Block3{1, 2, 0}, Block3{1, 4, 0},
                                                    Block3{2, 2, 0}, Block3{2, 4, 0}, Block3{4, 4, 0}};
  if (code >= kShapes.size()) return std::nullopt;
  for (const Block3& b : config.u85Ublocks()) {
    if (b.h == kShapes[code].h && b.w == kShapes[code].w) return b;
  }
  return std::nullopt;
}

bool u85MicroblockSupports(const AcceleratorConfig& config, const Block3& ublock, U85OpFamily family, int ifmBits,
                           bool depthFirst1x1) {
  using F = U85OpFamily;
  auto mask = [](std::initializer_list<F> families) {
    unsigned m = 0;
    for (F f : families) m |= 1u << static_cast<unsigned>(f);
    return m;
  };
  const unsigned all = mask({F::Convolution, F::Depthwise, F::Pooling, F::ReduceSum, F::Elementwise});
  const unsigned wide32 = mask({F::ReduceSum, F::Elementwise});
  // Per micro-block: the families allowed with 8-, 16- and 32-bit IFMs.
  std::array<unsigned, 3> allowed{};
  const bool deep = ublock.d >= 16 && ublock.h * ublock.w <= 2;  // U85-128 1x1x16, U85-256 1x2x16
  if (config.macs <= 256) {
    allowed = deep ? std::array{mask({F::Depthwise, F::Pooling, F::Elementwise}), mask({F::Convolution, F::Elementwise}),
                                mask({F::Elementwise})}
                   : std::array{mask({F::Convolution, F::ReduceSum, F::Elementwise}), all, wide32};
    if (deep && family == F::Convolution && !depthFirst1x1) return false;
  } else if (config.macs == 512) {
    allowed = {all, all, wide32};
  } else {
    // 1024 / 2048: the 16-deep micro-block serves every family, the deeper ones only
    // convolutions and elementwise operations.
    allowed = ublock.d == 16 ? std::array{all, all, wide32}
                             : std::array{mask({F::Convolution, F::Elementwise}), mask({F::Convolution, F::Elementwise}),
                                          mask({F::Elementwise})};
  }
  bool offered = false;
  for (const Block3& b : config.u85Ublocks()) offered = offered || b == ublock;
  const int bits = ifmBits <= 8 ? 0 : ifmBits <= 16 ? 1 : 2;
  return offered && ((allowed[static_cast<std::size_t>(bits)] >> static_cast<unsigned>(family)) & 1) != 0;
}

std::optional<unsigned> u85MicroblockCode(const Block3& b) {
  switch ((b.h << 4) | b.w) {
    case 0x11: return 0u;
    case 0x12: return 1u;
    case 0x14: return 2u;
    case 0x22: return 3u;
    case 0x24: return 4u;
    case 0x44: return 5u;
    default: return std::nullopt;
  }
}

}  // namespace openvgf::ethosu
