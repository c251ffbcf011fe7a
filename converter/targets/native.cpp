// SPDX-License-Identifier: Apache-2.0
// The native target: probes the first Vulkan device through the loader with a few raw
// Vulkan calls (the loader is opened at run time, so the converter has no link-time
// Vulkan dependency) and sizes tiles and workgroups from its limits. Optional shader
// features found on the device are recorded in the Target.
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <vulkan/vulkan.h>

#include "converter/targets/target.h"

namespace openvgf::converter {
namespace {

/// The subgroup-scope shapes of the kinds openvgf's cooperative-matrix GEMM uses.
std::vector<CoopMatShape> coopMatShapes(VkPhysicalDevice device, PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV query) {
  std::vector<CoopMatShape> shapes;
  if (query == nullptr) return shapes;
  std::uint32_t count = 0;
  if (query(device, &count, nullptr) != VK_SUCCESS || count == 0) return shapes;
  std::vector<VkCooperativeMatrixPropertiesNV> props(count);
  for (auto& p : props) p.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV;
  if (query(device, &count, props.data()) != VK_SUCCESS) return shapes;
  props.resize(count);
  for (const auto& p : props) {
    if (p.scope != VK_SCOPE_SUBGROUP_NV || p.AType != p.BType || p.CType != p.DType) continue;
    CoopMatShape shape{static_cast<int>(p.MSize), static_cast<int>(p.NSize), static_cast<int>(p.KSize)};
    if (p.AType == VK_COMPONENT_TYPE_FLOAT16_NV && p.CType == VK_COMPONENT_TYPE_FLOAT32_NV) {
      shape.types = CoopMatTypes::F16xF16ToF32;
    } else if (p.AType == VK_COMPONENT_TYPE_FLOAT16_NV && p.CType == VK_COMPONENT_TYPE_FLOAT16_NV) {
      shape.types = CoopMatTypes::F16xF16ToF16;
    } else if (p.AType == VK_COMPONENT_TYPE_SINT8_NV && p.CType == VK_COMPONENT_TYPE_SINT32_NV) {
      shape.types = CoopMatTypes::S8xS8ToS32;
    } else {
      continue;
    }
    shapes.push_back(shape);
  }
  return shapes;
}

struct Loader {
  void* handle = nullptr;
  ~Loader() {
    if (handle != nullptr) dlclose(handle);
  }
};

Result<Target> probeNativeTarget() {
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

  VkPhysicalDeviceVulkan12Properties props12{};
  props12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES;
  VkPhysicalDeviceSubgroupProperties subgroup{};
  subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  subgroup.pNext = &props12;
  VkPhysicalDeviceProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props.pNext = &subgroup;
  properties2(device, &props);
  VkPhysicalDeviceVulkan12Features f12{};
  f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  VkPhysicalDeviceVulkan13Features f13{};
  f13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
  f13.pNext = &f12;
  std::uint32_t extCount = 0;
  extensions(device, nullptr, &extCount, nullptr);
  std::vector<VkExtensionProperties> exts(extCount);
  extensions(device, nullptr, &extCount, exts.data());
  exts.resize(extCount);
  auto hasExt = [&](const char* name) {
    for (const auto& e : exts) {
      if (std::strcmp(e.extensionName, name) == 0) return true;
    }
    return false;
  };
  // The feature struct of an extension may only be chained when the device offers it.
  const bool coopMatExt = hasExt(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coopMat{};
  coopMat.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
  if (coopMatExt) f12.pNext = &coopMat;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &f13;
  features2(device, &features);

  Target t = portableTarget();
  t.name = "native";
  t.deviceName = props.properties.deviceName;
  t.subgroupSize = subgroup.subgroupSize;
  t.maxInvocations = static_cast<int>(std::min<std::uint32_t>(props.properties.limits.maxComputeWorkGroupInvocations, 1024));
  t.maxSharedBytes = static_cast<int>(std::min<std::uint32_t>(props.properties.limits.maxComputeSharedMemorySize, 49152));
  t.fp16Arithmetic = f12.shaderFloat16 == VK_TRUE;
  t.fp16RoundingRte = props12.shaderRoundingModeRTEFloat16 == VK_TRUE;
  t.integerDotProduct = f13.shaderIntegerDotProduct == VK_TRUE;
  // Cooperative-matrix modules also declare Float16 (fp16 fragments) and VulkanMemoryModel
  // (GL_KHR_memory_scope_semantics), so all three must be there.
  if (coopMatExt && coopMat.cooperativeMatrix == VK_TRUE && t.fp16Arithmetic && f12.vulkanMemoryModel == VK_TRUE &&
      t.subgroupSize != 0) {
    t.coopMatShapes = coopMatShapes(device, reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
                                                proc("vkGetPhysicalDeviceCooperativeMatrixPropertiesNV")));
    // Int8 fragments are stored in shared memory as int8_t (Int8 capability).
    if (f12.shaderInt8 != VK_TRUE) {
      std::erase_if(t.coopMatShapes, [](const CoopMatShape& s) { return s.types == CoopMatTypes::S8xS8ToS32; });
    }
    t.cooperativeMatrixNv = !t.coopMatShapes.empty();
  }
  applyTuningTable(t, deviceClass(props.properties.vendorID,
                                   props.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU));
  if (const char* spec = std::getenv("OPENVGF_TUNING"); spec != nullptr) {
    if (Status tuned = applyTuningOverrides(t, spec); !tuned) {
      destroyInstance(instance, nullptr);
      return Unexpected(tuned.error());
    }
  }
  destroyInstance(instance, nullptr);
  return t;
}

}  // namespace

Result<Target> nativeTarget() {
  // Probed once per process: the devices do not change while it runs, and every Vulkan
  // instance loads and unloads the driver, which some drivers do not survive many times over
  // (on an NVIDIA H100, a test process that probed before each of a few dozen runs saw a
  // later vkCreateInstance fail; probing once made the same tests pass).
  static const Result<Target> probed = probeNativeTarget();
  return probed;
}

}  // namespace openvgf::converter
