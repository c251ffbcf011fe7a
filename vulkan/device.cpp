// SPDX-License-Identifier: Apache-2.0
// Logical device creation with exactly the requested optional features.
#include "vulkan/device.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "vulkan/check.h"
#include "vulkan/coopmat_ext.h"

namespace openvgf::vulkan {

namespace {

struct QueueFamilyChoice {
  std::optional<std::uint32_t> compute;   // none: the device cannot run compute work
  std::optional<std::uint32_t> transfer;  // a transfer-only family, if there is one
};

// Prefers a compute-only family with timestamps (async compute on discrete GPUs), else any
// with compute; a transfer-only family drives the copy engines, so uploads run beside compute.
QueueFamilyChoice chooseQueueFamilies(const std::vector<VkQueueFamilyProperties>& families) {
  QueueFamilyChoice choice;
  for (std::uint32_t i = 0; i < families.size(); ++i) {
    if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    const bool computeOnly = !(families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT);
    if (!choice.compute || (computeOnly && families[i].timestampValidBits > 0 &&
                            (families[*choice.compute].queueFlags & VK_QUEUE_GRAPHICS_BIT))) {
      choice.compute = i;
    }
  }
  for (std::uint32_t i = 0; i < families.size() && !choice.transfer; ++i) {
    const VkQueueFlags flags = families[i].queueFlags;
    if ((flags & VK_QUEUE_TRANSFER_BIT) && !(flags & (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT))) {
      choice.transfer = i;
    }
  }
  return choice;
}

}  // namespace

Result<Device> Device::create(const Instance& instance, std::size_t index, const DeviceOptions& options) {
  if (index >= instance.devices().size()) {
    return internalError("device index {} out of range ({} devices)", index, instance.devices().size());
  }
  const DeviceSnapshot& snapshot = instance.devices()[index];
  FeatureSet missing = options.features.minus(snapshot.features);
  if (!missing.empty()) {
    std::string names;
    for (Feature f : features(missing)) names += fmt::format("{}{}", names.empty() ? "" : ", ", featureName(f));
    return unsupported("device {} ({}): expected support for {}, which the driver does not report", index,
                       snapshot.name, names);
  }
  if (options.pipelineStatistics && !snapshot.pipelineExecutableInfo) {
    return unsupported("device {} ({}): pipeline statistics need {}, which the driver does not offer", index,
                       snapshot.name, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  }

  Device device;
  device.physical_ = instance.physicalDevice(index);
  device.snapshot_ = snapshot;
  device.enabled_ = options.features;
  vkGetPhysicalDeviceMemoryProperties(device.physical_, &device.memory_);

  std::uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device.physical_, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(device.physical_, &familyCount, families.data());
  const QueueFamilyChoice queues = chooseQueueFamilies(families);
  if (!queues.compute) {
    return environmentError("device {} ({}): expected a queue family with compute", index, snapshot.name);
  }
  device.queueFamily_ = *queues.compute;
  const std::optional<std::uint32_t> transfer = queues.transfer;
  device.transferFamily_ = transfer.value_or(device.queueFamily_);
  device.families_ = {device.queueFamily_, device.transferFamily_};

  FeatureSet f = options.features;
  VkPhysicalDeviceVulkan13Features f13 = vkStruct<VkPhysicalDeviceVulkan13Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
  VkPhysicalDeviceVulkan12Features f12 = vkStruct<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  VkPhysicalDeviceVulkan11Features f11 = vkStruct<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  VkPhysicalDeviceFeatures2 f2 = vkStruct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  f2.pNext = &f11;
  f11.pNext = &f12;
  f12.pNext = &f13;
  // On a CPU implementation (lavapipe) a shader's access past the end of a storage buffer
  // reaches the process's own heap: a module whose index arithmetic a bad file changed could
  // then corrupt the runner. Robust buffer access (required of every Vulkan device) bounds
  // such accesses. GPUs keep it off: their faults stay in device memory, and the checks cost
  // speed there.
  device.robustBufferAccess_ = snapshot.type == DeviceType::Cpu;
  f2.features.robustBufferAccess = device.robustBufferAccess_ ? VK_TRUE : VK_FALSE;
  f2.features.shaderInt16 = f.has(Feature::ShaderInt16);
  f2.features.shaderInt64 = f.has(Feature::ShaderInt64);
  f2.features.shaderFloat64 = f.has(Feature::ShaderFloat64);
  f11.storageBuffer16BitAccess = f.has(Feature::StorageBuffer16BitAccess);
  f11.uniformAndStorageBuffer16BitAccess = f.has(Feature::UniformAndStorageBuffer16BitAccess);
  f12.storageBuffer8BitAccess = f.has(Feature::StorageBuffer8BitAccess);
  f12.uniformAndStorageBuffer8BitAccess = f.has(Feature::UniformAndStorageBuffer8BitAccess);
  f12.shaderInt8 = f.has(Feature::ShaderInt8);
  f12.shaderFloat16 = f.has(Feature::ShaderFloat16);
  f12.timelineSemaphore = f.has(Feature::TimelineSemaphore);
  f12.vulkanMemoryModel = f.has(Feature::VulkanMemoryModel);
  f12.shaderBufferInt64Atomics = f.has(Feature::ShaderBufferInt64Atomics);
  f13.subgroupSizeControl = f.has(Feature::SubgroupSizeControl);
  f13.synchronization2 = f.has(Feature::Synchronization2);
  f13.shaderIntegerDotProduct = f.has(Feature::ShaderIntegerDotProduct);
  f13.maintenance4 = f.has(Feature::Maintenance4);
  // Extension features: the extension is enabled and its feature struct chained only when a
  // module needs it, so portable models run on drivers without the extension.
  std::vector<const char*> extensions;
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coopMat =
      vkStruct<VkPhysicalDeviceCooperativeMatrixFeaturesNV>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV);
  if (f.has(Feature::CooperativeMatrixNv)) {
    coopMat.cooperativeMatrix = VK_TRUE;
    coopMat.pNext = f13.pNext;
    f13.pNext = &coopMat;
    extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  }
  CooperativeMatrixFeaturesKhr coopMatKhr{kStructCooperativeMatrixFeaturesKhr, nullptr, VK_FALSE, VK_FALSE};
  // Workgroup-scope matrices are KHR matrices too.
  if (f.has(Feature::CooperativeMatrixKhr) || f.has(Feature::CooperativeMatrixWorkgroupScope)) {
    coopMatKhr.cooperativeMatrix = VK_TRUE;
    coopMatKhr.pNext = f13.pNext;
    f13.pNext = &coopMatKhr;
    extensions.push_back(kKhrCooperativeMatrixExtension);
  }
  CooperativeMatrix2FeaturesNv coopMat2{};
  coopMat2.sType = kStructCooperativeMatrix2FeaturesNv;
  if (f.has(Feature::CooperativeMatrixWorkgroupScope)) {
    coopMat2.cooperativeMatrixWorkgroupScope = VK_TRUE;
    coopMat2.cooperativeMatrixFlexibleDimensions = VK_TRUE;
    coopMat2.pNext = f13.pNext;
    f13.pNext = &coopMat2;
    extensions.push_back(kNvCooperativeMatrix2Extension);
  }
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable =
      vkStruct<VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR>(
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR);
  if (options.pipelineStatistics) {
    executable.pipelineExecutableInfo = VK_TRUE;
    executable.pNext = f13.pNext;
    f13.pNext = &executable;
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  }
  ShaderBfloat16FeaturesKhr bf16{kStructShaderBfloat16FeaturesKhr, nullptr, VK_FALSE, VK_FALSE, VK_FALSE};
  if (f.has(Feature::CooperativeMatrixBfloat16)) {
    bf16.shaderBFloat16Type = VK_TRUE;
    bf16.shaderBFloat16CooperativeMatrix = VK_TRUE;
    bf16.pNext = f13.pNext;
    f13.pNext = &bf16;
    extensions.push_back(kKhrShaderBfloat16Extension);
  }
  // Enabling it changes nothing for sessions that never import, so it is on whenever offered.
  if (snapshot.externalMemoryHost) extensions.push_back(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);

  float priority = 1.0f;
  std::array<VkDeviceQueueCreateInfo, 2> queueInfos{};
  for (std::size_t q = 0; q < 2; ++q) {
    queueInfos[q] = vkStruct<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
    queueInfos[q].queueFamilyIndex = device.families_[q];
    queueInfos[q].queueCount = 1;
    queueInfos[q].pQueuePriorities = &priority;
  }
  VkDeviceCreateInfo info = vkStruct<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  info.pNext = &f2;
  info.queueCreateInfoCount = transfer ? 2 : 1;
  info.pQueueCreateInfos = queueInfos.data();
  info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  OPENVGF_VK_TRY(vkCreateDevice(device.physical_, &info, nullptr, &device.device_));
  vkGetDeviceQueue(device.device_, device.queueFamily_, 0, &device.queue_);
  device.transferQueue_ = device.queue_;
  if (transfer) vkGetDeviceQueue(device.device_, device.transferFamily_, 0, &device.transferQueue_);
  if (snapshot.externalMemoryHost) {
    device.getHostPointerProperties_ = reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
        vkGetDeviceProcAddr(device.device_, "vkGetMemoryHostPointerPropertiesEXT"));
  }
  if (options.pipelineStatistics) {
    device.getExecutableProperties_ = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
        vkGetDeviceProcAddr(device.device_, "vkGetPipelineExecutablePropertiesKHR"));
    device.getExecutableStatistics_ = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
        vkGetDeviceProcAddr(device.device_, "vkGetPipelineExecutableStatisticsKHR"));
    if (device.getExecutableProperties_ == nullptr || device.getExecutableStatistics_ == nullptr) {
      device.getExecutableStatistics_ = nullptr;
      return environmentError("device {} ({}): the driver offers {} but not its functions", index, snapshot.name,
                              VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    }
  }
  return device;
}

std::uint32_t Device::hostPointerMemoryTypes(const void* pointer) const {
  if (getHostPointerProperties_ == nullptr) return 0;
  VkMemoryHostPointerPropertiesEXT properties =
      vkStruct<VkMemoryHostPointerPropertiesEXT>(VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT);
  VkResult result = getHostPointerProperties_(device_, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, pointer,
                                              &properties);
  return result == VK_SUCCESS ? properties.memoryTypeBits : 0;
}

namespace {

// Vulkan's two-call enumeration of the function `name`: `call(&count, nullptr)`, then
// `call(&count, items)` into structs of sType `type`.
template <typename T, typename Call>
Result<std::vector<T>> enumerate(const char* name, VkStructureType type, Call call) {
  std::uint32_t count = 0;
  VkResult result = call(&count, nullptr);
  std::vector<T> items;
  if (result == VK_SUCCESS) {
    items.assign(count, vkStruct<T>(type));
    result = call(&count, items.data());
  }
  if (result != VK_SUCCESS) return Unexpected(vkError(result, name));
  items.resize(count);
  return items;
}

}  // namespace

Result<std::vector<PipelineStatistic>> Device::pipelineStatistics(VkPipeline pipeline) const {
  if (getExecutableStatistics_ == nullptr) {
    return internalError("pipeline statistics: the device was created without DeviceOptions::pipelineStatistics");
  }
  VkPipelineInfoKHR info = vkStruct<VkPipelineInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR);
  info.pipeline = pipeline;
  OPENVGF_ASSIGN_OR_RETURN(std::vector<VkPipelineExecutablePropertiesKHR> executables,
                           (enumerate<VkPipelineExecutablePropertiesKHR>(
                               "vkGetPipelineExecutablePropertiesKHR",
                               VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR,
                               [&](std::uint32_t* count, VkPipelineExecutablePropertiesKHR* items) {
                                 return getExecutableProperties_(device_, &info, count, items);
                               })));
  std::vector<PipelineStatistic> out;
  for (std::uint32_t e = 0; e < executables.size(); ++e) {
    VkPipelineExecutableInfoKHR which =
        vkStruct<VkPipelineExecutableInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR);
    which.pipeline = pipeline;
    which.executableIndex = e;
    OPENVGF_ASSIGN_OR_RETURN(std::vector<VkPipelineExecutableStatisticKHR> stats,
                             (enumerate<VkPipelineExecutableStatisticKHR>(
                                 "vkGetPipelineExecutableStatisticsKHR",
                                 VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR,
                                 [&](std::uint32_t* count, VkPipelineExecutableStatisticKHR* items) {
                                   return getExecutableStatistics_(device_, &which, count, items);
                                 })));
    for (const VkPipelineExecutableStatisticKHR& s : stats) {
      std::string value;
      switch (s.format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: value = s.value.b32 ? "true" : "false"; break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: value = fmt::format("{}", s.value.i64); break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: value = fmt::format("{}", s.value.u64); break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: value = fmt::format("{}", s.value.f64); break;
        default: value = "?"; break;
      }
      out.push_back({executables[e].name, s.name, s.description, std::move(value)});
    }
  }
  return out;
}

Device::Device(Device&& other) noexcept
    : device_(std::exchange(other.device_, VK_NULL_HANDLE)),
      physical_(other.physical_),
      queue_(other.queue_),
      transferQueue_(other.transferQueue_),
      queueFamily_(other.queueFamily_),
      transferFamily_(other.transferFamily_),
      families_(other.families_),
      robustBufferAccess_(other.robustBufferAccess_),
      getHostPointerProperties_(other.getHostPointerProperties_),
      getExecutableProperties_(other.getExecutableProperties_),
      getExecutableStatistics_(other.getExecutableStatistics_),
      snapshot_(std::move(other.snapshot_)),
      enabled_(other.enabled_),
      memory_(other.memory_),
      queueMutex_(std::exchange(other.queueMutex_, std::make_unique<std::mutex>())),
      transferMutex_(std::exchange(other.transferMutex_, std::make_unique<std::mutex>())) {}

Device& Device::operator=(Device&& other) noexcept {
  if (this != &other) {
    destroy();
    device_ = std::exchange(other.device_, VK_NULL_HANDLE);
    physical_ = other.physical_;
    queue_ = other.queue_;
    transferQueue_ = other.transferQueue_;
    queueFamily_ = other.queueFamily_;
    transferFamily_ = other.transferFamily_;
    families_ = other.families_;
    robustBufferAccess_ = other.robustBufferAccess_;
    getHostPointerProperties_ = other.getHostPointerProperties_;
    getExecutableProperties_ = other.getExecutableProperties_;
    getExecutableStatistics_ = other.getExecutableStatistics_;
    snapshot_ = std::move(other.snapshot_);
    enabled_ = other.enabled_;
    memory_ = other.memory_;
    queueMutex_ = std::exchange(other.queueMutex_, std::make_unique<std::mutex>());
    transferMutex_ = std::exchange(other.transferMutex_, std::make_unique<std::mutex>());
  }
  return *this;
}

Device::~Device() { destroy(); }

void Device::destroy() {
  if (device_ != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device_);
    vkDestroyDevice(device_, nullptr);
    device_ = VK_NULL_HANDLE;
  }
}

Status Device::submit(const VkSubmitInfo2& info, VkFence fence, Queue queue) const {
  return submit(std::span<const VkSubmitInfo2>(&info, 1), fence, queue);
}

Status Device::submit(std::span<const VkSubmitInfo2> infos, VkFence fence, Queue queue) const {
  bool transfer = queue == Queue::Transfer && hasTransferQueue();
  std::lock_guard<std::mutex> lock(transfer ? *transferMutex_ : *queueMutex_);
  OPENVGF_VK_TRY(vkQueueSubmit2(transfer ? transferQueue_ : queue_, static_cast<std::uint32_t>(infos.size()),
                                infos.data(), fence));
  return {};
}

Status Device::wait(VkFence fence, std::chrono::nanoseconds spin) const {
  if (spin.count() > 0) {
    const auto until = std::chrono::steady_clock::now() + spin;
    do {
      VkResult status = vkGetFenceStatus(device_, fence);
      if (status == VK_SUCCESS) return {};
      if (status != VK_NOT_READY) OPENVGF_VK_TRY(status);
    } while (std::chrono::steady_clock::now() < until);
  }
  // A generous bound: a hung dispatch becomes an error instead of a frozen process.
  constexpr std::uint64_t kTimeoutNs = 600ull * 1000 * 1000 * 1000;
  VkResult result = vkWaitForFences(device_, 1, &fence, VK_TRUE, kTimeoutNs);
  if (result == VK_TIMEOUT) return runtimeError("vkWaitForFences: the device did not finish within 600 s");
  OPENVGF_VK_TRY(result);
  return {};
}

Status Device::wait(VkSemaphore timeline, std::uint64_t value) const {
  constexpr std::uint64_t kTimeoutNs = 600ull * 1000 * 1000 * 1000;
  VkSemaphoreWaitInfo info = vkStruct<VkSemaphoreWaitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO);
  info.semaphoreCount = 1;
  info.pSemaphores = &timeline;
  info.pValues = &value;
  VkResult result = vkWaitSemaphores(device_, &info, kTimeoutNs);
  if (result == VK_TIMEOUT) return runtimeError("vkWaitSemaphores: the device did not finish within 600 s");
  OPENVGF_VK_TRY(result);
  return {};
}

}  // namespace openvgf::vulkan
