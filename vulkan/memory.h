// SPDX-License-Identifier: Apache-2.0
// Memory: a few large allocations, each one VkBuffer over one VkDeviceMemory, sub-allocated
// by offset (an Arena). Tensors are bound as (arena buffer, offset, range) descriptors, so a
// model needs a handful of allocations however many tensors it has.
#pragma once

#include <cstdint>
#include <span>
#include <string>

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
  Upload,       ///< host writes, device reads once: device-local host-visible (resizable BAR) when that
                ///< heap is large, else host memory, uncached (write-combined) preferred; mapped
  UploadHost,   ///< as Upload, never the BAR heap (host memory the copy engines read)
  Readback,     ///< device writes, host reads: host-visible, coherent, cached preferred; mapped
  Unified,      ///< device-local and host-visible (integrated GPUs, CPUs): bound directly, mapped
};

/// Index of a memory type allowed by `typeBits` with all `required` flags, preferring one that
/// also has `preferred`; nullopt if none.
std::optional<std::uint32_t> findMemoryType(const VkPhysicalDeviceMemoryProperties& memory, std::uint32_t typeBits,
                                            VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred);

/// A device-local host-visible heap at least this large is a resizable BAR (the legacy BAR
/// window is 256 MiB), worth writing uploads into directly.
inline constexpr VkDeviceSize kLargeBarHeapBytes = VkDeviceSize{1} << 30;

/// The memory type for an allocation of `bytes` used as `use` (pure: decided from the memory
/// properties alone, so tests drive it with the tables of real devices). nullopt if none fits.
std::optional<std::uint32_t> chooseMemoryType(const VkPhysicalDeviceMemoryProperties& memory, std::uint32_t typeBits,
                                              MemoryUse use, VkDeviceSize bytes);

/// True when device-local memory is also host-visible and coherent and the device shares the
/// host's memory (integrated GPU or CPU): then inputs and outputs need no copies.
bool hasUnifiedMemory(const Device& device);

class Arena {
 public:
  /// One buffer of `size` bytes (> 0) with STORAGE_BUFFER and TRANSFER usages. `what` names the
  /// arena in error messages.
  static Result<Arena> create(const Device& device, VkDeviceSize size, MemoryUse use, const char* what);
  /// Wraps caller memory (VK_EXT_external_memory_host) in a buffer the device copies from and
  /// to by DMA; the caller keeps it allocated until the Arena is gone. Unsupported when the
  /// extension is absent or `bytes` is not aligned to minImportedHostPointerAlignment (start
  /// and size).
  static Result<Arena> importHost(const Device& device, std::span<std::uint8_t> bytes, const char* what);

  Arena(Arena&& other) noexcept;
  Arena& operator=(Arena&& other) noexcept;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena();

  VkBuffer buffer() const { return buffer_; }
  VkDeviceSize size() const { return size_; }
  /// Host pointer to byte 0 (nullptr for DeviceLocal arenas).
  std::uint8_t* mapped() const { return mapped_; }
  /// Property flags of the memory type chosen.
  VkMemoryPropertyFlags memoryFlags() const { return flags_; }

 private:
  Arena() = default;
  void destroy();

  VkDevice device_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  std::uint8_t* mapped_ = nullptr;
  VkMemoryPropertyFlags flags_ = 0;
};

/// "device-local|host-visible|host-coherent" (for logs and reports).
std::string memoryFlagsName(VkMemoryPropertyFlags flags);

}  // namespace openvgf::vulkan
