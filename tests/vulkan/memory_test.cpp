// SPDX-License-Identifier: Apache-2.0
// Memory-type choice per use, on the memory tables of real devices written out by hand (the
// choice is a pure function of the table, so no device is needed): an NVIDIA discrete GPU
// without and with resizable BAR, an AMD-style table without host-cached memory, and
// lavapipe's single unified type.
#include <gtest/gtest.h>

#include "vulkan/memory.h"

namespace openvgf::vulkan {
namespace {

constexpr VkMemoryPropertyFlags kDl = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
constexpr VkMemoryPropertyFlags kHv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
constexpr VkMemoryPropertyFlags kHc = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr VkMemoryPropertyFlags kCached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
constexpr VkDeviceSize kMiB = VkDeviceSize{1} << 20;
constexpr VkDeviceSize kGiB = VkDeviceSize{1} << 30;

struct Table {
  std::vector<VkDeviceSize> heaps;
  std::vector<std::pair<VkMemoryPropertyFlags, std::uint32_t>> types;  // flags, heap
  VkPhysicalDeviceMemoryProperties properties() const {
    VkPhysicalDeviceMemoryProperties p{};
    p.memoryHeapCount = static_cast<std::uint32_t>(heaps.size());
    for (std::size_t i = 0; i < heaps.size(); ++i) p.memoryHeaps[i].size = heaps[i];
    p.memoryTypeCount = static_cast<std::uint32_t>(types.size());
    for (std::size_t i = 0; i < types.size(); ++i) p.memoryTypes[i] = {types[i].first, types[i].second};
    return p;
  }
};

// heap 0: VRAM, heap 1: system memory, heap 2: the BAR window (256 MiB, or all of VRAM).
Table nvidia(VkDeviceSize barHeap) {
  return {{80 * kGiB, 64 * kGiB, barHeap},
          {{kDl, 0}, {kHv | kHc, 1}, {kHv | kHc | kCached, 1}, {kDl | kHv | kHc, 2}}};
}

TEST(MemoryType, DiscreteGpuWithoutResizableBar) {
  VkPhysicalDeviceMemoryProperties p = nvidia(256 * kMiB).properties();
  EXPECT_EQ(chooseMemoryType(p, ~0u, MemoryUse::DeviceLocal, kMiB), 0u);
  // The 256 MiB window is too small to hold uploads: write-combined host memory.
  EXPECT_EQ(chooseMemoryType(p, ~0u, MemoryUse::Upload, 20 * kMiB), 1u);
  EXPECT_EQ(chooseMemoryType(p, ~0u, MemoryUse::UploadHost, 20 * kMiB), 1u);
  EXPECT_EQ(chooseMemoryType(p, ~0u, MemoryUse::Readback, 20 * kMiB), 2u);
  // The buffer's allowed types narrow the choice.
  EXPECT_EQ(chooseMemoryType(p, 0b0100, MemoryUse::Upload, kMiB), 2u);
  EXPECT_EQ(chooseMemoryType(p, 0b0001, MemoryUse::Readback, kMiB), std::nullopt);
}

TEST(MemoryType, DiscreteGpuWithResizableBar) {
  VkPhysicalDeviceMemoryProperties p = nvidia(80 * kGiB).properties();
  EXPECT_EQ(chooseMemoryType(p, ~0u, MemoryUse::Upload, 20 * kMiB), 3u);
  // Asked for host memory, or an allocation too large for a quarter of the heap: host memory.
  EXPECT_EQ(chooseMemoryType(p, ~0u, MemoryUse::UploadHost, 20 * kMiB), 1u);
  EXPECT_EQ(chooseMemoryType(p, ~0u, MemoryUse::Upload, 30 * kGiB), 1u);
  // Reads from the BAR crawl: readback stays in cached host memory.
  EXPECT_EQ(chooseMemoryType(p, ~0u, MemoryUse::Readback, 20 * kMiB), 2u);
  EXPECT_EQ(chooseMemoryType(p, ~0u, MemoryUse::DeviceLocal, kMiB), 0u);
}

TEST(MemoryType, NoHostCachedType) {
  Table amd{{16 * kGiB, 32 * kGiB}, {{kDl, 0}, {kHv | kHc, 1}, {kDl | kHv | kHc, 0}}};
  VkPhysicalDeviceMemoryProperties p = amd.properties();
  EXPECT_EQ(chooseMemoryType(p, ~0u, MemoryUse::Readback, kMiB), 1u);
  EXPECT_EQ(chooseMemoryType(p, ~0u, MemoryUse::Upload, kMiB), 2u);  // 16 GiB heap: a resizable BAR
  EXPECT_EQ(chooseMemoryType(p, ~0u, MemoryUse::UploadHost, kMiB), 1u);
  EXPECT_EQ(chooseMemoryType(p, ~0u, MemoryUse::Unified, kMiB), 2u);
}

TEST(MemoryType, LavapipeHasOneUnifiedType) {
  Table lavapipe{{2 * kGiB}, {{kDl | kHv | kHc | kCached, 0}}};
  VkPhysicalDeviceMemoryProperties p = lavapipe.properties();
  for (MemoryUse use : {MemoryUse::DeviceLocal, MemoryUse::Upload, MemoryUse::UploadHost, MemoryUse::Readback,
                        MemoryUse::Unified}) {
    EXPECT_EQ(chooseMemoryType(p, ~0u, use, kMiB), 0u) << static_cast<int>(use);
  }
  EXPECT_EQ(memoryFlagsName(kDl | kHv | kHc | kCached), "device-local|host-visible|host-coherent|host-cached");
}

}  // namespace
}  // namespace openvgf::vulkan
