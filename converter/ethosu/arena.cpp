// SPDX-License-Identifier: Apache-2.0
// Scratch-arena placement: largest buffers first, each at the lowest address that does not
// overlap a placed buffer alive at the same time.
#include <algorithm>

#include "converter/ethosu/stages.h"

namespace openvgf::converter::ethosu {

std::uint32_t planArena(std::vector<Buffer>& buffers, const std::vector<int>& pinned) {
  std::vector<std::size_t> order(buffers.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return buffers[a].size > buffers[b].size; });
  auto isPinned = [&](std::size_t i) { return std::find(pinned.begin(), pinned.end(), static_cast<int>(i)) != pinned.end(); };
  std::vector<std::size_t> placed;
  std::uint32_t total = 0;
  for (std::size_t i : order) {
    Buffer& b = buffers[i];
    if (b.last < 0) continue;  // never used
    std::uint32_t address = 0;
    bool moved = true;
    while (moved) {
      moved = false;
      for (std::size_t j : placed) {
        const Buffer& o = buffers[j];
        const bool timeOverlap = isPinned(i) || isPinned(j) || !(o.last < b.first || b.last < o.first);
        const bool spaceOverlap = address < o.address + o.size && o.address < address + b.size;
        if (timeOverlap && spaceOverlap) {
          address = o.address + o.size;
          moved = true;
        }
      }
    }
    b.address = address;
    placed.push_back(i);
    total = std::max(total, address + b.size);
  }
  return total;
}

}  // namespace openvgf::converter::ethosu
