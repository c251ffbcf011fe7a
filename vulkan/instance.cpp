// SPDX-License-Identifier: Apache-2.0
// Instance creation, validation-layer plumbing and physical-device snapshots.
#include "vulkan/instance.h"

#include <cstdlib>
#include <cstring>
#include <string_view>

#include <spdlog/spdlog.h>

#include "vulkan/check.h"
#include "vulkan/coopmat_ext.h"

namespace openvgf::vulkan {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";
constexpr const char* kNoDriverHelp =
    "install a Vulkan driver: mesa-vulkan-drivers (lavapipe runs on the CPU) or your GPU vendor's driver, "
    "and the loader libvulkan1; `vulkaninfo --summary` (vulkan-tools) shows what the loader finds";

VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                         VkDebugUtilsMessageTypeFlagsEXT /*types*/,
                                         const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* counters = static_cast<ValidationCounters*>(user);
  const char* text = data != nullptr && data->pMessage != nullptr ? data->pMessage : "";
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
    counters->errors.fetch_add(1);
    spdlog::error("vulkan validation: {}", text);
  } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    counters->warnings.fetch_add(1);
    spdlog::warn("vulkan validation: {}", text);
  } else {
    spdlog::debug("vulkan: {}", text);
  }
  return VK_FALSE;  // never abort the call; the counters make the session fail instead
}

bool envFlag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' && std::string_view(value) != "0";
}

bool layerAvailable(const char* name) {
  std::uint32_t count = 0;
  if (vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(count);
  if (vkEnumerateInstanceLayerProperties(&count, layers.data()) != VK_SUCCESS) return false;
  for (const VkLayerProperties& layer : layers) {
    if (std::strcmp(layer.layerName, name) == 0) return true;
  }
  return false;
}

}  // namespace

Result<Instance> Instance::create(const InstanceOptions& options) {
  OPENVGF_TRY(loadVulkanLibrary());
  bool validate = options.validate || envFlag("OPENVGF_VALIDATE");
  std::uint32_t loaderVersion = 0;
  if (vkEnumerateInstanceVersion(&loaderVersion) != VK_SUCCESS || loaderVersion < VK_API_VERSION_1_3) {
    return environmentError("Vulkan loader: expected version 1.3 or newer, got {}; {}",
                            apiVersionString(loaderVersion), kNoDriverHelp);
  }
  if (validate && !layerAvailable(kValidationLayer)) {
    return environmentError("--validate: expected the layer {}, which is not installed; install vulkan-validationlayers",
                            kValidationLayer);
  }

  Instance instance;
  VkApplicationInfo app = vkStruct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "openvgf";
  app.pEngineName = "openvgf";
  app.apiVersion = VK_API_VERSION_1_3;

  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  VkDebugUtilsMessengerCreateInfoEXT messengerInfo = vkStruct<VkDebugUtilsMessengerCreateInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
  messengerInfo.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                  VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messengerInfo.pfnUserCallback = onMessage;
  messengerInfo.pUserData = instance.counters_.get();

  VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT validationFeatures =
      vkStruct<VkValidationFeaturesEXT>(VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT);
  validationFeatures.enabledValidationFeatureCount = 1;
  validationFeatures.pEnabledValidationFeatures = enables;

  VkInstanceCreateInfo info = vkStruct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  info.pApplicationInfo = &app;
  if (validate) {
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    // Chained so that messages from vkCreateInstance/vkDestroyInstance are caught too.
    info.pNext = &messengerInfo;
    if (options.synchronizationValidation) {
      extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);  // provided by the layer
      validationFeatures.pNext = &messengerInfo;
      info.pNext = &validationFeatures;
    }
  }
  info.enabledLayerCount = static_cast<std::uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();

  VkResult result = vkCreateInstance(&info, nullptr, &instance.instance_);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER || result == VK_ERROR_INITIALIZATION_FAILED) {
    return environmentError("no Vulkan driver (ICD) found: vkCreateInstance returned {}; {}", resultName(result),
                            kNoDriverHelp);
  }
  OPENVGF_VK_TRY(result);

  if (validate) {
    auto createMessenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance.instance_, "vkCreateDebugUtilsMessengerEXT"));
    if (createMessenger == nullptr) {
      return environmentError("--validate: expected {} to be available", VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    }
    OPENVGF_VK_TRY(createMessenger(instance.instance_, &messengerInfo, nullptr, &instance.messenger_));
  }

  std::uint32_t count = 0;
  result = vkEnumeratePhysicalDevices(instance.instance_, &count, nullptr);
  if (result == VK_ERROR_INITIALIZATION_FAILED || (result == VK_SUCCESS && count == 0)) {
    return environmentError("no Vulkan device found; {}", kNoDriverHelp);
  }
  OPENVGF_VK_TRY(result);
  instance.physicalDevices_.resize(count);
  OPENVGF_VK_TRY(vkEnumeratePhysicalDevices(instance.instance_, &count, instance.physicalDevices_.data()));
  instance.physicalDevices_.resize(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    instance.snapshots_.push_back(snapshotDevice(instance.instance_, instance.physicalDevices_[i], i));
  }
  return instance;
}

Instance::Instance(Instance&& other) noexcept
    : counters_(std::move(other.counters_)),
      instance_(std::exchange(other.instance_, VK_NULL_HANDLE)),
      messenger_(std::exchange(other.messenger_, VK_NULL_HANDLE)),
      physicalDevices_(std::move(other.physicalDevices_)),
      snapshots_(std::move(other.snapshots_)) {
  other.counters_ = std::make_unique<ValidationCounters>();
}

Instance& Instance::operator=(Instance&& other) noexcept {
  if (this != &other) {
    destroy();
    counters_ = std::exchange(other.counters_, std::make_unique<ValidationCounters>());
    instance_ = std::exchange(other.instance_, VK_NULL_HANDLE);
    messenger_ = std::exchange(other.messenger_, VK_NULL_HANDLE);
    physicalDevices_ = std::move(other.physicalDevices_);
    snapshots_ = std::move(other.snapshots_);
  }
  return *this;
}

Instance::~Instance() { destroy(); }

void Instance::destroy() {
  if (messenger_ != VK_NULL_HANDLE) {
    auto destroyMessenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroyMessenger != nullptr) destroyMessenger(instance_, messenger_, nullptr);
    messenger_ = VK_NULL_HANDLE;
  }
  if (instance_ != VK_NULL_HANDLE) {
    vkDestroyInstance(instance_, nullptr);
    instance_ = VK_NULL_HANDLE;
  }
}

namespace {

// Name, type, identity, subgroup facts and limits. Returns the device's API version.
std::uint32_t snapshotProperties(VkPhysicalDevice device, DeviceSnapshot& s) {
  VkPhysicalDeviceVulkan13Properties props13 = vkStruct<VkPhysicalDeviceVulkan13Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES);
  VkPhysicalDeviceVulkan12Properties props12 = vkStruct<VkPhysicalDeviceVulkan12Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES);
  VkPhysicalDeviceVulkan11Properties props11 = vkStruct<VkPhysicalDeviceVulkan11Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES);
  VkPhysicalDeviceProperties2 props = vkStruct<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
  VkPhysicalDeviceProperties basic{};
  vkGetPhysicalDeviceProperties(device, &basic);
  bool is13 = basic.apiVersion >= VK_API_VERSION_1_3;
  bool is12 = basic.apiVersion >= VK_API_VERSION_1_2;
  props.pNext = &props11;
  if (is12) props11.pNext = &props12;
  if (is13) props12.pNext = &props13;
  vkGetPhysicalDeviceProperties2(device, &props);

  const VkPhysicalDeviceProperties& p = props.properties;
  s.name = p.deviceName;
  switch (p.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: s.type = DeviceType::IntegratedGpu; break;
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: s.type = DeviceType::DiscreteGpu; break;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: s.type = DeviceType::VirtualGpu; break;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: s.type = DeviceType::Cpu; break;
    default: s.type = DeviceType::Other; break;
  }
  s.apiVersion = p.apiVersion;
  s.driverVersion = p.driverVersion;
  s.vendorId = p.vendorID;
  s.deviceId = p.deviceID;
  std::memcpy(s.pipelineCacheUuid.data(), p.pipelineCacheUUID, 16);
  std::memcpy(s.deviceUuid.data(), props11.deviceUUID, 16);
  std::memcpy(s.driverUuid.data(), props11.driverUUID, 16);
  if (is12) {
    s.driverName = props12.driverName;
    s.driverInfo = props12.driverInfo;
  }
  s.subgroupSize = props11.subgroupSize;
  if (props11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) s.subgroupOperations = props11.subgroupSupportedOperations;
  if (is12) {
    if (props12.shaderRoundingModeRTEFloat16) s.roundingModeRte |= kFloatWidth16;
    if (props12.shaderRoundingModeRTEFloat32) s.roundingModeRte |= kFloatWidth32;
    if (props12.shaderRoundingModeRTEFloat64) s.roundingModeRte |= kFloatWidth64;
  }
  if (is13) {
    s.minSubgroupSize = props13.minSubgroupSize;
    s.maxSubgroupSize = props13.maxSubgroupSize;
    s.limits.maxBufferSize = props13.maxBufferSize;
  }
  s.limits.maxStorageBufferRange = p.limits.maxStorageBufferRange;
  s.limits.minStorageBufferOffsetAlignment = p.limits.minStorageBufferOffsetAlignment;
  s.limits.maxMemoryAllocationSize = props11.maxMemoryAllocationSize;
  for (int i = 0; i < 3; ++i) {
    s.limits.maxComputeWorkGroupCount[i] = p.limits.maxComputeWorkGroupCount[i];
    s.limits.maxComputeWorkGroupSize[i] = p.limits.maxComputeWorkGroupSize[i];
  }
  s.limits.maxComputeWorkGroupInvocations = p.limits.maxComputeWorkGroupInvocations;
  s.limits.maxComputeSharedMemorySize = p.limits.maxComputeSharedMemorySize;
  s.limits.maxBoundDescriptorSets = p.limits.maxBoundDescriptorSets;
  s.limits.maxPerStageDescriptorStorageBuffers = p.limits.maxPerStageDescriptorStorageBuffers;
  s.limits.maxPushConstantsSize = p.limits.maxPushConstantsSize;
  s.limits.timestampPeriod = p.limits.timestampPeriod;

  return p.apiVersion;
}

// Queue families (compute, timestamps, a transfer-only family) and device-local memory.
void snapshotQueuesAndMemory(VkPhysicalDevice device, DeviceSnapshot& s) {
  std::uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &familyCount, families.data());
  for (const VkQueueFamilyProperties& family : families) {
    if ((family.queueFlags & VK_QUEUE_TRANSFER_BIT) && !(family.queueFlags & (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT))) {
      s.dedicatedTransferQueue = true;
    }
    if (family.queueFlags & VK_QUEUE_COMPUTE_BIT) {
      if (!s.hasComputeQueue || family.timestampValidBits > s.timestampValidBits) {
        s.timestampValidBits = family.timestampValidBits;
      }
      s.hasComputeQueue = true;
    }
  }

  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(device, &memory);
  for (std::uint32_t i = 0; i < memory.memoryHeapCount; ++i) {
    if (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) s.deviceLocalBytes += memory.memoryHeaps[i].size;
  }
}

// Core and extension features, chaining only the structs of extensions the device offers.
void snapshotFeatures(VkPhysicalDevice device, DeviceSnapshot& s, bool is12, bool is13) {
  VkPhysicalDeviceVulkan13Features f13 = vkStruct<VkPhysicalDeviceVulkan13Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
  VkPhysicalDeviceVulkan12Features f12 = vkStruct<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  VkPhysicalDeviceVulkan11Features f11 = vkStruct<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  VkPhysicalDeviceFeatures2 f = vkStruct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  f.pNext = &f11;
  if (is12) f11.pNext = &f12;
  if (is13) f12.pNext = &f13;
  // Extension feature structs may only be chained when the device offers the extension.
  std::uint32_t extCount = 0;
  vkEnumerateDeviceExtensionProperties(device, nullptr, &extCount, nullptr);
  std::vector<VkExtensionProperties> exts(extCount);
  if (extCount > 0) vkEnumerateDeviceExtensionProperties(device, nullptr, &extCount, exts.data());
  exts.resize(extCount);
  bool coopMatExt = false, coopMatKhrExt = false, coopMat2Ext = false, executableExt = false, bf16Ext = false;
  for (const VkExtensionProperties& e : exts) {
    if (std::strcmp(e.extensionName, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) == 0) coopMatExt = true;
    if (std::strcmp(e.extensionName, kKhrCooperativeMatrixExtension) == 0) coopMatKhrExt = true;
    if (std::strcmp(e.extensionName, kNvCooperativeMatrix2Extension) == 0) coopMat2Ext = true;
    if (std::strcmp(e.extensionName, kKhrShaderBfloat16Extension) == 0) bf16Ext = true;
    if (std::strcmp(e.extensionName, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME) == 0) s.externalMemoryHost = true;
    if (std::strcmp(e.extensionName, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME) == 0) executableExt = true;
  }
  if (s.externalMemoryHost) {
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT hostProps = vkStruct<VkPhysicalDeviceExternalMemoryHostPropertiesEXT>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT);
    VkPhysicalDeviceProperties2 withHost = vkStruct<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
    withHost.pNext = &hostProps;
    vkGetPhysicalDeviceProperties2(device, &withHost);
    s.minImportedHostPointerAlignment = hostProps.minImportedHostPointerAlignment;
  }
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coopMat =
      vkStruct<VkPhysicalDeviceCooperativeMatrixFeaturesNV>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV);
  if (coopMatExt) {
    coopMat.pNext = f.pNext;
    f.pNext = &coopMat;
  }
  CooperativeMatrixFeaturesKhr coopMatKhr{kStructCooperativeMatrixFeaturesKhr, nullptr, VK_FALSE, VK_FALSE};
  if (coopMatKhrExt) {
    coopMatKhr.pNext = f.pNext;
    f.pNext = &coopMatKhr;
  }
  CooperativeMatrix2FeaturesNv coopMat2{};
  coopMat2.sType = kStructCooperativeMatrix2FeaturesNv;
  if (coopMatKhrExt && coopMat2Ext) {
    coopMat2.pNext = f.pNext;
    f.pNext = &coopMat2;
  }
  ShaderBfloat16FeaturesKhr bf16{kStructShaderBfloat16FeaturesKhr, nullptr, VK_FALSE, VK_FALSE, VK_FALSE};
  if (bf16Ext) {
    bf16.pNext = f.pNext;
    f.pNext = &bf16;
  }
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable =
      vkStruct<VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR>(
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR);
  if (executableExt) {
    executable.pNext = f.pNext;
    f.pNext = &executable;
  }
  vkGetPhysicalDeviceFeatures2(device, &f);
  s.pipelineExecutableInfo = executable.pipelineExecutableInfo == VK_TRUE;
  auto set = [&](Feature feature, VkBool32 on) {
    if (on) s.features.add(feature);
  };
  set(Feature::ShaderInt16, f.features.shaderInt16);
  set(Feature::ShaderInt64, f.features.shaderInt64);
  set(Feature::ShaderFloat64, f.features.shaderFloat64);
  set(Feature::StorageBuffer16BitAccess, f11.storageBuffer16BitAccess);
  set(Feature::UniformAndStorageBuffer16BitAccess, f11.uniformAndStorageBuffer16BitAccess);
  if (is12) {
    set(Feature::StorageBuffer8BitAccess, f12.storageBuffer8BitAccess);
    set(Feature::UniformAndStorageBuffer8BitAccess, f12.uniformAndStorageBuffer8BitAccess);
    set(Feature::ShaderInt8, f12.shaderInt8);
    set(Feature::ShaderFloat16, f12.shaderFloat16);
    set(Feature::TimelineSemaphore, f12.timelineSemaphore);
    set(Feature::VulkanMemoryModel, f12.vulkanMemoryModel);
    set(Feature::ShaderBufferInt64Atomics, f12.shaderBufferInt64Atomics);
  }
  if (is13) {
    set(Feature::SubgroupSizeControl, f13.subgroupSizeControl);
    set(Feature::Synchronization2, f13.synchronization2);
    set(Feature::ShaderIntegerDotProduct, f13.shaderIntegerDotProduct);
    set(Feature::Maintenance4, f13.maintenance4);
  }
  set(Feature::CooperativeMatrixNv, coopMatExt ? coopMat.cooperativeMatrix : VK_FALSE);
  set(Feature::CooperativeMatrixKhr, coopMatKhrExt ? coopMatKhr.cooperativeMatrix : VK_FALSE);
  set(Feature::CooperativeMatrixWorkgroupScope,
      coopMatKhrExt && coopMat2Ext && coopMatKhr.cooperativeMatrix && coopMat2.cooperativeMatrixWorkgroupScope &&
          coopMat2.cooperativeMatrixFlexibleDimensions);
  set(Feature::CooperativeMatrixBfloat16, coopMatKhrExt && bf16Ext && coopMatKhr.cooperativeMatrix &&
                                              bf16.shaderBFloat16Type && bf16.shaderBFloat16CooperativeMatrix);
}

}  // namespace

DeviceSnapshot snapshotDevice(VkInstance instance, VkPhysicalDevice device, std::uint32_t index) {
  DeviceSnapshot s;
  s.index = index;
  const std::uint32_t apiVersion = snapshotProperties(device, s);
  snapshotQueuesAndMemory(device, s);
  snapshotFeatures(device, s, apiVersion >= VK_API_VERSION_1_2, apiVersion >= VK_API_VERSION_1_3);
  snapshotCooperativeMatrices(instance, device, s);
  return s;
}

}  // namespace openvgf::vulkan
