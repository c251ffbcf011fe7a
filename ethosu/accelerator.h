// SPDX-License-Identifier: Apache-2.0
// Ethos-U55/U65/U85 accelerator configurations as data (specs/ethosu.md §3.3 table, §2.3 and
// §5.1; the U85 rows from Vela's Regor U85 architecture table): MACs, cores, micro-blocks,
// SHRAM and the granules block-configuration legality depends on, and the CONFIG / ID
// register images a COP1 payload carries. The compiler and the simulator both read this one
// table, because the weight order depends on the micro-block shapes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "common/error.h"

namespace openvgf::ethosu {

/// The CONFIG register's product field. The register maps differ (specs §1.2-1.5), so every
/// decoder and encoder takes one.
enum class Product : std::uint8_t { U55 = 0, U65 = 1, U85 = 2 };
std::string_view productName(Product product);  // "Ethos-U55" ...

/// A micro-block or block shape, height x width x depth.
struct Block3 {
  int h = 1, w = 1, d = 1;
  bool operator==(const Block3&) const = default;
};

struct AcceleratorConfig {
  std::string_view name;      ///< "ethos-u55-128"
  Product product = Product::U55;
  int macs = 128;             ///< MACs per cycle of the whole NPU (CONFIG.macs_per_cc = log2)
  int cores = 1;              ///< U65-512: 2; U85-512: 2; U85-1024/2048: 4
  Block3 ofmUblock;           ///< U55/U65: the OFM micro-block; U85: the default one
  Block3 ifmUblock;
  /// U85: the OFM micro-blocks the NPU offers (ACC_FORMAT.microblock selects one by H x W).
  std::array<Block3, 3> ofmUblocks{};
  int ofmUblockCount = 0;
  int shramBanks = 0;         ///< U55/U65: 1 KB SHRAM banks per core
  // U55/U65 SHRAM granules (banks): IFM 8-bit, IFM 16-bit, IFM 8-bit elementwise,
  // IFM 16-bit elementwise, IFM 32-bit, accumulators 16/32/40-bit.
  int granuleIfm8 = 0, granuleIfm16 = 0, granuleIfm8Ew = 0, granuleIfm16Ew = 0, granuleIfm32 = 0;
  int granuleAcc16 = 0, granuleAcc32 = 0, granuleAcc40 = 0;
  // U85 memory system (CONFIG image) and the buffers an OFM block and its IFM block must fit
  // (Regor's configuration table): IFM buffer, accumulators, output buffer.
  int numAxiSramLog2 = 0, numAxiExtLog2 = 0;
  int ifmRamBytes = 0, accRamBytes = 0, obRamBytes = 0;

  int macsPerCore() const { return macs / cores; }
  std::span<const Block3> u85Ublocks() const { return {ofmUblocks.data(), static_cast<std::size_t>(ofmUblockCount)}; }
};

/// All supported configurations, in the order shown to users.
std::span<const AcceleratorConfig> acceleratorConfigs();

/// Looks up "ethos-u55-128" etc.
std::optional<AcceleratorConfig> findAccelerator(std::string_view name);

/// The names, comma separated, for messages.
std::string acceleratorNames();

inline constexpr std::string_view kDefaultAccelerator = "ethos-u55-128";

/// The configuration a COP1 CONFIG register image describes (product, MACs per cycle,
/// U85 weight-decoder count). InvalidInput / Unsupported naming the field otherwise.
Result<AcceleratorConfig> acceleratorFromConfigWord(std::uint32_t config);

/// CONFIG register image of a configuration (specs §5.1 word 2).
std::uint32_t configWord(const AcceleratorConfig& config);
/// ID register image the payload claims: architecture 1.0.6 (U55/U65) or 2.0.0 (U85).
std::uint32_t idWord(Product product);

/// U85: the OFM micro-block whose H x W an ACC_FORMAT.microblock code names, on `config`.
std::optional<Block3> u85Microblock(const AcceleratorConfig& config, unsigned microblockCode);
/// U85: the ACC_FORMAT.microblock code of an H x W micro-block (0 U1X1 ... 5 U4X4).
std::optional<unsigned> u85MicroblockCode(const Block3& ublock);

/// U85 operation families as the micro-block table distinguishes them.
enum class U85OpFamily : std::uint8_t { Convolution, Depthwise, Pooling, ReduceSum, Elementwise };

/// Whether an operation of `family` reading `ifmBits`-bit IFM data may run with micro-block
/// `ublock` on `config` (Regor's micro-block to operation table; on U85-128/256 the 16-deep
/// micro-block serves convolutions only for 16-bit IFMs with a 1x1 depth-first kernel).
bool u85MicroblockSupports(const AcceleratorConfig& config, const Block3& ublock, U85OpFamily family, int ifmBits,
                           bool depthFirst1x1);

/// Bytes of the U85 LUT RAM (8 slots of 256 bytes).
inline constexpr std::size_t kU85LutBytes = 2048;

}  // namespace openvgf::ethosu
