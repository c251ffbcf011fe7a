// SPDX-License-Identifier: Apache-2.0
// The native target: probes the first Vulkan device through the loader with a few raw
// Vulkan calls (the loader is opened at run time, so the converter has no link-time
// Vulkan dependency) and sizes tiles and workgroups from its limits. Optional shader
// features found on the device are recorded in the Target.
#include <dlfcn.h>

#include <cstring>
#include <vector>

#include <vulkan/vulkan.h>

#include "converter/targets/target.h"

namespace openvgf::converter {
namespace {

struct Loader {
  void* handle = nullptr;
  ~Loader() {
    if (handle != nullptr) dlclose(handle);
  }
};

}  // namespace

Result<Target> nativeTarget() {
  Loader loader;
  loader.handle = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (loader.handle == nullptr) return environmentError("--target native: cannot load libvulkan.so.1: {}", dlerror());
  auto getInstanceProc = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(loader.handle, "vkGetInstanceProcAddr"));
  if (getInstanceProc == nullptr) return environmentError("--target native: libvulkan.so.1 has no vkGetInstanceProcAddr");
  auto createInstance = reinterpret_cast<PFN_vkCreateInstance>(getInstanceProc(nullptr, "vkCreateInstance"));
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "openvgf-probe";
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  if (createInstance == nullptr || createInstance(&info, nullptr, &instance) != VK_SUCCESS) {
    return environmentError("--target native: vkCreateInstance failed (no Vulkan 1.3 driver?)");
  }
  auto proc = [&](const char* name) { return getInstanceProc(instance, name); };
  auto destroyInstance = reinterpret_cast<PFN_vkDestroyInstance>(proc("vkDestroyInstance"));
  auto enumerate = reinterpret_cast<PFN_vkEnumeratePhysicalDevices>(proc("vkEnumeratePhysicalDevices"));
  auto properties2 = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(proc("vkGetPhysicalDeviceProperties2"));
  auto features2 = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2>(proc("vkGetPhysicalDeviceFeatures2"));
  auto extensions = reinterpret_cast<PFN_vkEnumerateDeviceExtensionProperties>(proc("vkEnumerateDeviceExtensionProperties"));
  std::uint32_t count = 0;
  if (enumerate == nullptr || enumerate(instance, &count, nullptr) != VK_SUCCESS || count == 0) {
    if (destroyInstance != nullptr) destroyInstance(instance, nullptr);
    return environmentError("--target native: expected a Vulkan device, got none");
  }
  std::vector<VkPhysicalDevice> devices(count);
  enumerate(instance, &count, devices.data());
  VkPhysicalDevice device = devices[0];

  VkPhysicalDeviceSubgroupProperties subgroup{};
  subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  VkPhysicalDeviceProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props.pNext = &subgroup;
  properties2(device, &props);
  VkPhysicalDeviceVulkan12Features f12{};
  f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  VkPhysicalDeviceVulkan13Features f13{};
  f13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
  f13.pNext = &f12;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &f13;
  features2(device, &features);
  std::uint32_t extCount = 0;
  extensions(device, nullptr, &extCount, nullptr);
  std::vector<VkExtensionProperties> exts(extCount);
  extensions(device, nullptr, &extCount, exts.data());
  auto hasExt = [&](const char* name) {
    for (const auto& e : exts) {
      if (std::strcmp(e.extensionName, name) == 0) return true;
    }
    return false;
  };

  Target t = portableTarget();
  t.name = "native";
  t.deviceName = props.properties.deviceName;
  t.subgroupSize = subgroup.subgroupSize;
  t.maxInvocations = static_cast<int>(std::min<std::uint32_t>(props.properties.limits.maxComputeWorkGroupInvocations, 1024));
  t.maxSharedBytes = static_cast<int>(std::min<std::uint32_t>(props.properties.limits.maxComputeSharedMemorySize, 49152));
  t.fp16Arithmetic = f12.shaderFloat16 == VK_TRUE;
  t.integerDotProduct = f13.shaderIntegerDotProduct == VK_TRUE;
  t.cooperativeMatrixNv = hasExt("VK_NV_cooperative_matrix");
  // Larger register blocks where shared memory and invocations allow (desktop GPUs).
  if (t.maxSharedBytes >= 32768 && t.maxInvocations >= 256) t.gemm = GemmTile{128, 64, 16, 8, 4};
  // A CPU device (lavapipe) runs every GEMM fastest with the large register block, whatever
  // the grid; a GPU keeps its `gemm` tile for every size.
  t.gemmLargeMinGroups = props.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? 1 : 0;
  destroyInstance(instance, nullptr);
  return t;
}

}  // namespace openvgf::converter
