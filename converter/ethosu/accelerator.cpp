// SPDX-License-Identifier: Apache-2.0
// The configuration table.
#include "converter/ethosu/accelerator.h"

#include <array>

namespace openvgf::converter::ethosu {
namespace {

// clang-format off
constexpr std::array kConfigs = {
    AcceleratorConfig{"ethos-u55-32", 0, 32, 1, {1, 1, 4}, {1, 1, 8}, 16, 2, 2, 2, 2, 4, 4, 4, 4},
    AcceleratorConfig{"ethos-u55-64", 0, 64, 1, {1, 1, 8}, {1, 1, 8}, 16, 2, 2, 2, 2, 4, 4, 4, 8},
    AcceleratorConfig{"ethos-u55-128", 0, 128, 1, {2, 1, 8}, {2, 1, 8}, 24, 4, 4, 4, 4, 8, 4, 8, 12},
    AcceleratorConfig{"ethos-u55-256", 0, 256, 1, {2, 2, 8}, {2, 2, 8}, 48, 8, 8, 8, 8, 16, 8, 16, 20},
    AcceleratorConfig{"ethos-u65-256", 1, 256, 1, {2, 2, 8}, {2, 2, 8}, 48, 8, 8, 8, 8, 16, 8, 16, 20},
    AcceleratorConfig{"ethos-u65-512", 1, 256, 2, {2, 2, 8}, {2, 2, 8}, 48, 8, 8, 8, 8, 16, 8, 16, 20},
};
// clang-format on

}  // namespace

std::span<const AcceleratorConfig> acceleratorConfigs() { return kConfigs; }

std::optional<AcceleratorConfig> findAccelerator(std::string_view name) {
  for (const AcceleratorConfig& c : kConfigs) {
    if (c.name == name) return c;
  }
  return std::nullopt;
}

}  // namespace openvgf::converter::ethosu
