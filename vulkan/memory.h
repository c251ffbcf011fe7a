// SPDX-License-Identifier: Apache-2.0
// Memory: a few large allocations, each one VkBuffer over one VkDeviceMemory, sub-allocated
// by offset (an Arena). Tensors are bound as (arena buffer, offset, range) descriptors, so a
// model needs a handful of allocations however many tensors it has.
#pragma once

#include <cstdint>
#include <span>

#include "vulkan/api.h"

#include "common/error.h"
#include "vulkan/device.h"

namespace openvgf::vulkan {

/// Offsets for sub-allocations inside one arena (pure bookkeeping, no Vulkan calls).
struct ArenaLayout {
  VkDeviceSize size = 0;  // bytes used so far
  /// Reserves `bytes` at an offset aligned to `alignment` (a power of two) and returns it.
  VkDeviceSize place(VkDeviceSize bytes, VkDeviceSize alignment) {
    VkDeviceSize offset = (size + alignment - 1) & ~(alignment - 1);
    size = offset + bytes;
    return offset;
  }
};

enum class MemoryUse {
  DeviceLocal,  ///< constants and intermediates: fastest for the device
  HostStaging,  ///< inputs/outputs: host-visible, coherent, cached if available, persistently mapped
  Unified,      ///< device-local and host-visible (integrated GPUs, CPUs): bound directly, mapped
};

/// Index of a memory type allowed by `typeBits` with all `required` flags, preferring one that
/// also has `preferred`; nullopt if none.
std::optional<std::uint32_t> findMemoryType(const VkPhysicalDeviceMemoryProperties& memory, std::uint32_t typeBits,
                                            VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred);

/// True when device-local memory is also host-visible and coherent and the device shares the
/// host's memory (integrated GPU or CPU): then inputs and outputs need no copies.
bool hasUnifiedMemory(const Device& device);

class Arena {
 public:
  /// One buffer of `size` bytes (> 0) with STORAGE_BUFFER and TRANSFER usages. `what` names the
  /// arena in error messages.
  static Result<Arena> create(const Device& device, VkDeviceSize size, MemoryUse use, const char* what);

  Arena(Arena&& other) noexcept;
  Arena& operator=(Arena&& other) noexcept;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena();

  VkBuffer buffer() const { return buffer_; }
  VkDeviceSize size() const { return size_; }
  /// Host pointer to byte 0 (nullptr for DeviceLocal arenas).
  std::uint8_t* mapped() const { return mapped_; }

 private:
  Arena() = default;
  void destroy();

  VkDevice device_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  std::uint8_t* mapped_ = nullptr;
};

}  // namespace openvgf::vulkan
