// SPDX-License-Identifier: Apache-2.0
#include "api/devices.h"

#include <algorithm>
#include <cstdlib>

#include "vulkan/api.h"
#include "vulkan/instance.h"

namespace openvgf::api {
namespace {

std::uint64_t hostVisibleDeviceLocalHeap(VkPhysicalDevice device) {
  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(device, &memory);
  std::uint64_t largest = 0;
  for (std::uint32_t t = 0; t < memory.memoryTypeCount; ++t) {
    const VkMemoryType& type = memory.memoryTypes[t];
    const VkMemoryPropertyFlags both = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    if ((type.propertyFlags & both) == both) largest = std::max(largest, memory.memoryHeaps[type.heapIndex].size);
  }
  return largest;
}

}  // namespace

Result<DeviceList> listDevices(bool validate) {
  OPENVGF_ASSIGN_OR_RETURN(vulkan::Instance instance, vulkan::Instance::create({.validate = validate}));
  DeviceList list;
  list.devices = instance.devices();
  for (std::size_t i = 0; i < list.devices.size(); ++i) {
    list.hostVisibleDeviceLocalBytes.push_back(hostVisibleDeviceLocalHeap(instance.physicalDevice(i)));
  }
  Result<std::size_t> chosen = vulkan::chooseDevice(list.devices, "");
  if (chosen) {
    list.defaultIndex = *chosen;
  } else {
    list.noDefaultReason = chosen.error().message();
  }
  return list;
}

Result<DeviceCaps> nativeDeviceCaps(std::span<const vulkan::DeviceSnapshot> devices, std::string_view selector) {
  Result<std::size_t> chosen = vulkan::chooseDevice(devices, selector);
  if (!chosen) return Unexpected(std::move(chosen).error().addContext("--target native"));
  return vulkan::deviceCaps(devices[*chosen]);
}

Result<DeviceCaps> nativeDeviceCaps(std::string_view selector) {
  static const Result<std::vector<vulkan::DeviceSnapshot>> snapshots = []() -> Result<std::vector<vulkan::DeviceSnapshot>> {
    OPENVGF_ASSIGN_OR_RETURN(vulkan::Instance instance, vulkan::Instance::create({}));
    return instance.devices();
  }();
  if (!snapshots) {
    Error error = snapshots.error();
    return Unexpected(std::move(error).addContext("--target native"));
  }
  return nativeDeviceCaps(*snapshots, selector);
}

std::string tuningFromEnvironment() {
  const char* spec = std::getenv("OPENVGF_TUNING");
  return spec == nullptr ? std::string() : std::string(spec);
}

}  // namespace openvgf::api
