// SPDX-License-Identifier: Apache-2.0
// Ethos-U55/U65 accelerator configurations as data (specs/ethosu.md §3.3 table and §2.3):
// MACs per cycle, cores, micro-block shapes, SHRAM banks and the SHRAM allocation granules
// that block-configuration legality depends on.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace openvgf::converter::ethosu {

struct Shape3 {
  int w = 1, h = 1, d = 1;
};

struct AcceleratorConfig {
  std::string_view name;
  unsigned product = 0;  ///< 0 = Ethos-U55, 1 = Ethos-U65 (CONFIG register product field)
  int macs = 128;        ///< MACs per cycle per core
  int cores = 1;
  Shape3 ofmUblock;
  Shape3 ifmUblock;
  int shramBanks = 24;   ///< 1 KB banks per core
  // SHRAM granules (banks): IFM 8-bit, IFM 16-bit, IFM 8-bit elementwise, IFM 16-bit elementwise,
  // IFM 32-bit, accumulators 16/32/40-bit.
  int granuleIfm8 = 4, granuleIfm16 = 4, granuleIfm8Ew = 4, granuleIfm16Ew = 4, granuleIfm32 = 8;
  int granuleAcc16 = 4, granuleAcc32 = 8, granuleAcc40 = 12;
};

/// All supported configurations, in the order shown to users.
std::span<const AcceleratorConfig> acceleratorConfigs();

/// Looks up "ethos-u55-128" etc.
std::optional<AcceleratorConfig> findAccelerator(std::string_view name);

inline constexpr std::string_view kDefaultAccelerator = "ethos-u55-128";

}  // namespace openvgf::converter::ethosu
