// SPDX-License-Identifier: Apache-2.0
// Scratch-arena placement: largest buffers first, each at the lowest address that does not
// overlap a placed buffer alive at the same time.
#include <algorithm>

#include "converter/ethosu/stages.h"

namespace openvgf::converter::ethosu {

std::uint64_t planArena(std::vector<Buffer>& buffers, const std::vector<int>& pinned) {
  std::vector<std::size_t> order(buffers.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return buffers[a].size > buffers[b].size; });
  auto isPinned = [&](std::size_t i) { return std::find(pinned.begin(), pinned.end(), static_cast<int>(i)) != pinned.end(); };
  std::vector<std::size_t> placed;
  std::uint64_t total = 0;
  for (std::size_t i : order) {
    Buffer& b = buffers[i];
    if (b.last < 0) continue;  // never used
    std::uint64_t address = 0;
    bool moved = true;
    while (moved) {
      moved = false;
      for (std::size_t j : placed) {
        const Buffer& o = buffers[j];
        const bool timeOverlap = isPinned(i) || isPinned(j) || !(o.last < b.first || b.last < o.first);
        const bool spaceOverlap = address < std::uint64_t{o.address} + o.size && o.address < address + b.size;
        if (timeOverlap && spaceOverlap) {
          address = o.address + o.size;
          moved = true;
        }
      }
    }
    b.address = static_cast<std::uint32_t>(address);  // exact whenever the arena is within its limit
    placed.push_back(i);
    total = std::max(total, address + b.size);
  }
  return total;
}

}  // namespace openvgf::converter::ethosu
