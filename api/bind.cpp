// SPDX-License-Identifier: Apache-2.0
#include "api/bind.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace openvgf::api {

Result<std::vector<std::size_t>> bindNames(std::span<const std::string> expected, std::span<const std::string> given,
                                           const std::string& source) {
  auto names = [&] {
    std::vector<std::string> quoted;
    for (const std::string& name : expected) quoted.push_back(fmt::format("'{}'", name));
    return fmt::format("{}", fmt::join(quoted, ", "));
  };
  constexpr std::size_t kFree = static_cast<std::size_t>(-1);
  std::vector<std::size_t> order(expected.size(), kFree);
  for (std::size_t k = 0; k < given.size(); ++k) {
    if (given[k].empty()) continue;
    auto it = std::find(expected.begin(), expected.end(), given[k]);
    if (it == expected.end()) {
      return invalidInput("{}: input '{}': expected one of the model's inputs ({}), got an unknown name", source,
                          given[k], names());
    }
    std::size_t& slot = order[static_cast<std::size_t>(it - expected.begin())];
    if (slot != kFree) return invalidInput("{}: input '{}': expected one value, got it twice", source, given[k]);
    slot = k;
  }
  std::size_t next = 0;
  for (std::size_t k = 0; k < given.size(); ++k) {
    if (!given[k].empty()) continue;
    while (next < order.size() && order[next] != kFree) ++next;
    if (next == order.size()) break;
    order[next] = k;
  }
  if (given.size() != expected.size() || std::count(order.begin(), order.end(), kFree) != 0) {
    return invalidInput("{}: expected {} inputs ({}), got {}", source, expected.size(), names(), given.size());
  }
  return order;
}

}  // namespace openvgf::api
