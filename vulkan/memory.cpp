// SPDX-License-Identifier: Apache-2.0
// Arena allocation and memory-type choice.
#include "vulkan/memory.h"

#include <utility>

#include "vulkan/check.h"

namespace openvgf::vulkan {

std::optional<std::uint32_t> findMemoryType(const VkPhysicalDeviceMemoryProperties& memory, std::uint32_t typeBits,
                                            VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) {
  std::optional<std::uint32_t> fallback;
  for (std::uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    if (!(typeBits & (1u << i))) continue;
    VkMemoryPropertyFlags flags = memory.memoryTypes[i].propertyFlags;
    if ((flags & required) != required) continue;
    if ((flags & preferred) == preferred) return i;
    if (!fallback) fallback = i;
  }
  return fallback;
}

bool hasUnifiedMemory(const Device& device) {
  DeviceType type = device.snapshot().type;
  if (type != DeviceType::IntegratedGpu && type != DeviceType::Cpu) return false;
  constexpr VkMemoryPropertyFlags kFlags = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                           VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  return findMemoryType(device.memoryProperties(), ~0u, kFlags, 0).has_value();
}

Result<Arena> Arena::create(const Device& device, VkDeviceSize size, MemoryUse use, const char* what) {
  const DeviceSnapshot& s = device.snapshot();
  if (s.limits.maxBufferSize != 0 && size > s.limits.maxBufferSize) {
    return unsupported("{} memory: expected at most maxBufferSize = {} bytes on {}, got {} bytes", what,
                       s.limits.maxBufferSize, s.name, size);
  }
  if (s.limits.maxMemoryAllocationSize != 0 && size > s.limits.maxMemoryAllocationSize) {
    return unsupported("{} memory: expected at most maxMemoryAllocationSize = {} bytes on {}, got {} bytes", what,
                       s.limits.maxMemoryAllocationSize, s.name, size);
  }
  Arena arena;
  arena.device_ = device.handle();
  arena.size_ = size;
  VkBufferCreateInfo info = vkStruct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  info.size = size;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  OPENVGF_VK_TRY(vkCreateBuffer(arena.device_, &info, nullptr, &arena.buffer_));
  VkMemoryRequirements requirements{};
  vkGetBufferMemoryRequirements(arena.device_, arena.buffer_, &requirements);

  VkMemoryPropertyFlags required = 0, preferred = 0;
  switch (use) {
    case MemoryUse::DeviceLocal:
      required = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
      break;
    case MemoryUse::HostStaging:
      required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
      preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
      break;
    case MemoryUse::Unified:
      required = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                 VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
      preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
      break;
  }
  std::optional<std::uint32_t> type =
      findMemoryType(device.memoryProperties(), requirements.memoryTypeBits, required, preferred);
  if (!type) {
    return environmentError("{} memory: {} has no memory type with the flags {:#x}", what, s.name, required);
  }
  VkMemoryAllocateInfo allocate = vkStruct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = *type;
  VkResult result = vkAllocateMemory(arena.device_, &allocate, nullptr, &arena.memory_);
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) {
    return runtimeError("{} memory: cannot allocate {} bytes on {}: {}", what, requirements.size, s.name,
                        resultName(result));
  }
  OPENVGF_VK_TRY(result);
  OPENVGF_VK_TRY(vkBindBufferMemory(arena.device_, arena.buffer_, arena.memory_, 0));
  if (use != MemoryUse::DeviceLocal) {
    void* pointer = nullptr;
    OPENVGF_VK_TRY(vkMapMemory(arena.device_, arena.memory_, 0, VK_WHOLE_SIZE, 0, &pointer));
    arena.mapped_ = static_cast<std::uint8_t*>(pointer);
  }
  return arena;
}

Arena::Arena(Arena&& other) noexcept
    : device_(other.device_),
      memory_(std::exchange(other.memory_, VK_NULL_HANDLE)),
      buffer_(std::exchange(other.buffer_, VK_NULL_HANDLE)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, nullptr)) {}

Arena& Arena::operator=(Arena&& other) noexcept {
  if (this != &other) {
    destroy();
    device_ = other.device_;
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, nullptr);
  }
  return *this;
}

Arena::~Arena() { destroy(); }

void Arena::destroy() {
  // Reverse creation order: the buffer goes before the memory it is bound to.
  if (buffer_ != VK_NULL_HANDLE) vkDestroyBuffer(device_, buffer_, nullptr);
  if (memory_ != VK_NULL_HANDLE) vkFreeMemory(device_, memory_, nullptr);  // unmaps implicitly
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
}

}  // namespace openvgf::vulkan
