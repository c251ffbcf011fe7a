// SPDX-License-Identifier: Apache-2.0
// Arena allocation and memory-type choice.
#include "vulkan/memory.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>

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

std::optional<std::uint32_t> chooseMemoryType(const VkPhysicalDeviceMemoryProperties& memory, std::uint32_t typeBits,
                                              MemoryUse use, VkDeviceSize bytes) {
  constexpr VkMemoryPropertyFlags kLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  constexpr VkMemoryPropertyFlags kMapped = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  constexpr VkMemoryPropertyFlags kCached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  // The first allowed type with `required` whose flags score best (ties: first in the table,
  // which Vulkan orders by the driver's preference).
  auto best = [&](VkMemoryPropertyFlags required, auto score) -> std::optional<std::uint32_t> {
    std::optional<std::uint32_t> chosen;
    int chosenScore = 0;
    for (std::uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
      VkMemoryPropertyFlags flags = memory.memoryTypes[i].propertyFlags;
      if (!(typeBits & (1u << i)) || (flags & required) != required) continue;
      int value = score(flags, memory.memoryHeaps[memory.memoryTypes[i].heapIndex].size);
      if (value < 0) continue;
      if (!chosen || value > chosenScore) {
        chosen = i;
        chosenScore = value;
      }
    }
    return chosen;
  };
  switch (use) {
    case MemoryUse::DeviceLocal:
      return findMemoryType(memory, typeBits, kLocal, 0);
    case MemoryUse::Unified:
      return findMemoryType(memory, typeBits, kLocal | kMapped, kCached);
    case MemoryUse::Upload:
      // Resizable BAR: the host writes straight into device memory and the device reads it at
      // full speed. Only when the heap is large, so the allocation cannot crowd out others.
      if (auto bar = best(kLocal | kMapped, [&](VkMemoryPropertyFlags, VkDeviceSize heap) {
            return heap >= kLargeBarHeapBytes && bytes <= heap / 4 ? 0 : -1;
          })) {
        return bar;
      }
      [[fallthrough]];
    case MemoryUse::UploadHost:
      // Host memory; write-combined (uncached) streams the host's writes, and the BAR window
      // is left to those who asked for it.
      return best(kMapped, [](VkMemoryPropertyFlags flags, VkDeviceSize) {
        return ((flags & kLocal) ? 0 : 2) + ((flags & kCached) ? 0 : 1);
      });
    case MemoryUse::Readback:
      // Host reads of uncached or BAR memory crawl: cached host memory first.
      return best(kMapped, [](VkMemoryPropertyFlags flags, VkDeviceSize) {
        return ((flags & kCached) ? 2 : 0) + ((flags & kLocal) ? 0 : 1);
      });
  }
  return std::nullopt;
}

std::string memoryFlagsName(VkMemoryPropertyFlags flags) {
  std::string out;
  auto add = [&](VkMemoryPropertyFlags bit, const char* name) {
    if (flags & bit) out += fmt::format("{}{}", out.empty() ? "" : "|", name);
  };
  add(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "device-local");
  add(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "host-visible");
  add(VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "host-coherent");
  add(VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "host-cached");
  return out.empty() ? "none" : out;
}

namespace {

// Buffers used by both queues are shared CONCURRENT, so no ownership transfers are needed.
void setSharing(const Device& device, VkBufferCreateInfo& info) {
  std::span<const std::uint32_t> families = device.queueFamilies();
  info.sharingMode = families.size() > 1 ? VK_SHARING_MODE_CONCURRENT : VK_SHARING_MODE_EXCLUSIVE;
  info.queueFamilyIndexCount = families.size() > 1 ? static_cast<std::uint32_t>(families.size()) : 0;
  info.pQueueFamilyIndices = families.size() > 1 ? families.data() : nullptr;
}

}  // namespace

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
  setSharing(device, info);
  OPENVGF_VK_TRY(vkCreateBuffer(arena.device_, &info, nullptr, &arena.buffer_));
  VkMemoryRequirements requirements{};
  vkGetBufferMemoryRequirements(arena.device_, arena.buffer_, &requirements);

  std::optional<std::uint32_t> type =
      chooseMemoryType(device.memoryProperties(), requirements.memoryTypeBits, use, requirements.size);
  if (!type) {
    return environmentError("{} memory: {} has no memory type that is {}", what, s.name,
                            use == MemoryUse::DeviceLocal ? "device-local"
                            : use == MemoryUse::Unified   ? "device-local, host-visible and host-coherent"
                                                          : "host-visible and host-coherent");
  }
  arena.flags_ = device.memoryProperties().memoryTypes[*type].propertyFlags;
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

namespace {

// What an import can check of a caller's pointer before the driver takes it: a size above 0,
// a range that does not wrap around the address space, and pages mapped in this process
// (mincore fails with ENOMEM on a hole). Whether the memory stays allocated, and is writable,
// while the import lives is the caller's promise (openvgf.h, docs/limits.md).
Status checkHostRange(std::span<std::uint8_t> bytes, const char* what) {
  const auto address = reinterpret_cast<std::uintptr_t>(bytes.data());
  if (bytes.data() == nullptr) return invalidInput("{}: importing host memory: expected an address, got NULL", what);
  if (bytes.empty()) return invalidInput("{}: importing host memory: expected a size above 0 bytes, got 0", what);
  if (bytes.size() > std::numeric_limits<std::uintptr_t>::max() - address) {
    return invalidInput("{}: importing host memory: {} bytes at {:#x} run past the end of the address space", what,
                        bytes.size(), address);
  }
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t first = address / page * page;
  const std::uintptr_t end = address + bytes.size();
  std::vector<unsigned char> resident((end - first + page - 1) / page);
  if (mincore(reinterpret_cast<void*>(first), end - first, resident.data()) != 0) {
    return invalidInput("{}: importing host memory: expected memory mapped in this process, got {} bytes at {:#x} "
                        "that are not all mapped",
                        what, bytes.size(), address);
  }
  return {};
}

}  // namespace

Result<Arena> Arena::importHost(const Device& device, std::span<std::uint8_t> bytes, const char* what) {
  const DeviceSnapshot& s = device.snapshot();
  OPENVGF_TRY(checkHostRange(bytes, what));
  if (!device.canImportHostMemory()) {
    return unsupported("{}: importing host memory: {} does not offer VK_EXT_external_memory_host", what, s.name);
  }
  const std::uint64_t alignment = std::max<std::uint64_t>(s.minImportedHostPointerAlignment, 1);
  const auto address = reinterpret_cast<std::uintptr_t>(bytes.data());
  if (bytes.empty() || address % alignment != 0 || bytes.size() % alignment != 0) {
    return unsupported("{}: importing host memory: expected start and size multiples of "
                       "minImportedHostPointerAlignment = {} on {}, got address {:#x} and {} bytes",
                       what, alignment, s.name, address, bytes.size());
  }
  std::uint32_t typeBits = device.hostPointerMemoryTypes(bytes.data());
  if (typeBits == 0) return unsupported("{}: importing host memory: {} accepts no memory type for it", what, s.name);
  Arena arena;
  arena.device_ = device.handle();
  arena.size_ = bytes.size();
  VkExternalMemoryBufferCreateInfo external =
      vkStruct<VkExternalMemoryBufferCreateInfo>(VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO);
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  VkBufferCreateInfo info = vkStruct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  info.pNext = &external;
  info.size = bytes.size();
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  setSharing(device, info);
  OPENVGF_VK_TRY(vkCreateBuffer(arena.device_, &info, nullptr, &arena.buffer_));
  VkMemoryRequirements requirements{};
  vkGetBufferMemoryRequirements(arena.device_, arena.buffer_, &requirements);
  std::optional<std::uint32_t> type = chooseMemoryType(device.memoryProperties(), typeBits & requirements.memoryTypeBits,
                                                       MemoryUse::Readback, bytes.size());
  if (!type) type = findMemoryType(device.memoryProperties(), typeBits & requirements.memoryTypeBits, 0, 0);
  if (!type || requirements.size > bytes.size()) {
    return unsupported("{}: importing host memory: {} cannot bind a buffer of {} bytes to it", what, s.name,
                       bytes.size());
  }
  arena.flags_ = device.memoryProperties().memoryTypes[*type].propertyFlags;
  VkImportMemoryHostPointerInfoEXT import =
      vkStruct<VkImportMemoryHostPointerInfoEXT>(VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT);
  import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  import.pHostPointer = bytes.data();
  VkMemoryAllocateInfo allocate = vkStruct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  allocate.pNext = &import;
  allocate.allocationSize = bytes.size();
  allocate.memoryTypeIndex = *type;
  VkResult result = vkAllocateMemory(arena.device_, &allocate, nullptr, &arena.memory_);
  if (result != VK_SUCCESS) {
    return unsupported("{}: importing {} bytes of host memory on {}: {}", what, bytes.size(), s.name,
                       resultName(result));
  }
  OPENVGF_VK_TRY(vkBindBufferMemory(arena.device_, arena.buffer_, arena.memory_, 0));
  arena.mapped_ = bytes.data();
  return arena;
}

Arena::Arena(Arena&& other) noexcept
    : device_(other.device_),
      memory_(std::exchange(other.memory_, VK_NULL_HANDLE)),
      buffer_(std::exchange(other.buffer_, VK_NULL_HANDLE)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, nullptr)),
      flags_(other.flags_) {}

Arena& Arena::operator=(Arena&& other) noexcept {
  if (this != &other) {
    destroy();
    device_ = other.device_;
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, nullptr);
    flags_ = other.flags_;
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
