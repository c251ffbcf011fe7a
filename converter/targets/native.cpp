// SPDX-License-Identifier: Apache-2.0
// The native target: probes the first Vulkan device through the loader with a few raw
// Vulkan calls (the loader is opened at run time, so the converter has no link-time
// Vulkan dependency) and sizes tiles and workgroups from its limits. Optional shader
// features found on the device are recorded in the Target.
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include <vulkan/vulkan.h>

#include "converter/targets/target.h"

namespace openvgf::converter {
namespace {

// VK_KHR_cooperative_matrix and VK_NV_cooperative_matrix2 structures, newer than Debian 12's
// Vulkan headers (1.3.239), laid out as the Vulkan registry defines them. Component types and
// scopes have the values of the VkComponentTypeNV / VkScopeNV enums the headers do have.
constexpr const char* kKhrCooperativeMatrixExtension = "VK_KHR_cooperative_matrix";
constexpr const char* kNvCooperativeMatrix2Extension = "VK_NV_cooperative_matrix2";
constexpr auto kStructCoopMatFeaturesKhr = static_cast<VkStructureType>(1000506000);
constexpr auto kStructCoopMatPropertiesKhr = static_cast<VkStructureType>(1000506001);
constexpr auto kStructCoopMat2FeaturesNv = static_cast<VkStructureType>(1000593000);
constexpr auto kStructFlexibleDimensionsNv = static_cast<VkStructureType>(1000593001);
constexpr auto kStructCoopMat2PropertiesNv = static_cast<VkStructureType>(1000593002);
constexpr const char* kKhrShaderBfloat16Extension = "VK_KHR_shader_bfloat16";
constexpr auto kStructBfloat16FeaturesKhr = static_cast<VkStructureType>(1000141000);
constexpr auto kComponentTypeBfloat16 = static_cast<VkComponentTypeNV>(1000141000);

struct CoopMatFeaturesKhr {
  VkStructureType sType;
  void* pNext;
  VkBool32 cooperativeMatrix, cooperativeMatrixRobustBufferAccess;
};
struct CoopMatPropertiesKhr {
  VkStructureType sType;
  void* pNext;
  std::uint32_t MSize, NSize, KSize;
  VkComponentTypeNV AType, BType, CType, ResultType;
  VkBool32 saturatingAccumulation;
  VkScopeNV scope;
};
struct CoopMat2FeaturesNv {
  VkStructureType sType;
  void* pNext;
  VkBool32 workgroupScope, flexibleDimensions, reductions, conversions, perElementOperations, tensorAddressing,
      blockLoads;
};
struct Bfloat16FeaturesKhr {
  VkStructureType sType;
  void* pNext;
  VkBool32 type, dotProduct, cooperativeMatrix;
};
struct CoopMat2PropertiesNv {
  VkStructureType sType;
  void* pNext;
  std::uint32_t workgroupScopeMaxWorkgroupSize, flexibleDimensionsMaxDimension, workgroupScopeReservedSharedMemory;
};
struct FlexibleDimensionsNv {
  VkStructureType sType;
  void* pNext;
  std::uint32_t MGranularity, NGranularity, KGranularity;
  VkComponentTypeNV AType, BType, CType, ResultType;
  VkBool32 saturatingAccumulation;
  VkScopeNV scope;
  std::uint32_t workgroupInvocations;
};
using GetCoopMatPropertiesKhr = VkResult(VKAPI_PTR*)(VkPhysicalDevice, std::uint32_t*, CoopMatPropertiesKhr*);
using GetFlexibleDimensionsNv = VkResult(VKAPI_PTR*)(VkPhysicalDevice, std::uint32_t*, FlexibleDimensionsNv*);

/// The kind of GEMM a (A, C, result) component-type triple is, if openvgf has one.
std::optional<CoopMatTypes> coopMatTypes(VkComponentTypeNV a, VkComponentTypeNV b, VkComponentTypeNV c,
                                         VkComponentTypeNV result) {
  if (a != b || c != result) return std::nullopt;
  if (a == VK_COMPONENT_TYPE_FLOAT16_NV && c == VK_COMPONENT_TYPE_FLOAT32_NV) return CoopMatTypes::F16xF16ToF32;
  if (a == VK_COMPONENT_TYPE_FLOAT16_NV && c == VK_COMPONENT_TYPE_FLOAT16_NV) return CoopMatTypes::F16xF16ToF16;
  if (a == VK_COMPONENT_TYPE_SINT8_NV && c == VK_COMPONENT_TYPE_SINT32_NV) return CoopMatTypes::S8xS8ToS32;
  if (a == kComponentTypeBfloat16 && c == VK_COMPONENT_TYPE_FLOAT32_NV) return CoopMatTypes::Bf16xBf16ToF32;
  return std::nullopt;
}

/// The subgroup-scope shapes vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR lists.
std::vector<CoopMatShape> coopMatShapesKhr(VkPhysicalDevice device, GetCoopMatPropertiesKhr query) {
  std::vector<CoopMatShape> shapes;
  std::uint32_t count = 0;
  if (query == nullptr || query(device, &count, nullptr) != VK_SUCCESS || count == 0) return shapes;
  std::vector<CoopMatPropertiesKhr> props(count, CoopMatPropertiesKhr{});
  for (auto& p : props) p.sType = kStructCoopMatPropertiesKhr;
  if (query(device, &count, props.data()) != VK_SUCCESS) return shapes;
  props.resize(count);
  for (const auto& p : props) {
    auto types = coopMatTypes(p.AType, p.BType, p.CType, p.ResultType);
    if (p.scope != VK_SCOPE_SUBGROUP_NV || !types || p.saturatingAccumulation) continue;
    shapes.push_back(CoopMatShape{static_cast<int>(p.MSize), static_cast<int>(p.NSize), static_cast<int>(p.KSize), *types});
  }
  return shapes;
}

/// The fp16 workgroup-scope entries of vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV.
CoopMatWorkgroupLimits coopMatWorkgroupLimits(VkPhysicalDevice device, GetFlexibleDimensionsNv query,
                                              const CoopMat2PropertiesNv& props) {
  CoopMatWorkgroupLimits limits;
  std::uint32_t count = 0;
  if (query == nullptr || query(device, &count, nullptr) != VK_SUCCESS || count == 0) return limits;
  std::vector<FlexibleDimensionsNv> entries(count, FlexibleDimensionsNv{});
  for (auto& e : entries) e.sType = kStructFlexibleDimensionsNv;
  if (query(device, &count, entries.data()) != VK_SUCCESS) return limits;
  entries.resize(count);
  // Every workgroup size listed for fp16 x fp16 -> fp32; the largest is the default.
  for (const auto& e : entries) {
    if (e.scope != VK_SCOPE_WORKGROUP_NV || e.saturatingAccumulation) continue;
    auto types = coopMatTypes(e.AType, e.BType, e.CType, e.ResultType);
    if (types == CoopMatTypes::F16xF16ToF32 && static_cast<int>(e.workgroupInvocations) > limits.invocations) {
      limits.granularityM = static_cast<int>(e.MGranularity);
      limits.granularityN = static_cast<int>(e.NGranularity);
      limits.granularityK = static_cast<int>(e.KGranularity);
      limits.invocations = static_cast<int>(e.workgroupInvocations);
    }
    if (types == CoopMatTypes::F16xF16ToF32) limits.invocationCounts.push_back(static_cast<int>(e.workgroupInvocations));
  }
  for (const auto& e : entries) {
    if (e.scope == VK_SCOPE_WORKGROUP_NV && !e.saturatingAccumulation &&
        coopMatTypes(e.AType, e.BType, e.CType, e.ResultType) == CoopMatTypes::F16xF16ToF16 &&
        static_cast<int>(e.workgroupInvocations) == limits.invocations) {
      limits.fp16Accumulators = true;
    }
  }
  limits.maxDimension = static_cast<int>(props.flexibleDimensionsMaxDimension);
  limits.reservedShared = static_cast<int>(props.workgroupScopeReservedSharedMemory);
  return limits;
}

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
  const bool coopMatKhrExt = hasExt(kKhrCooperativeMatrixExtension);
  const bool coopMat2Ext = coopMatKhrExt && hasExt(kNvCooperativeMatrix2Extension);
  const bool bf16Ext = coopMatKhrExt && hasExt(kKhrShaderBfloat16Extension);
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coopMat{};
  coopMat.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
  CoopMatFeaturesKhr coopMatKhr{kStructCoopMatFeaturesKhr, nullptr, VK_FALSE, VK_FALSE};
  CoopMat2FeaturesNv coopMat2{};
  coopMat2.sType = kStructCoopMat2FeaturesNv;
  CoopMat2PropertiesNv coopMat2Props{kStructCoopMat2PropertiesNv, nullptr, 0, 0, 0};
  Bfloat16FeaturesKhr bf16{kStructBfloat16FeaturesKhr, nullptr, VK_FALSE, VK_FALSE, VK_FALSE};
  auto chain = [](void*& head, auto& next) {
    next.pNext = head;
    head = &next;
  };
  if (coopMatExt) chain(f12.pNext, coopMat);
  if (coopMatKhrExt) chain(f12.pNext, coopMatKhr);
  if (bf16Ext) chain(f12.pNext, bf16);
  if (coopMat2Ext) {
    chain(f12.pNext, coopMat2);
    chain(props12.pNext, coopMat2Props);
  }
  properties2(device, &props);
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
  // Devices without the NV extension (AMD, Intel, newer drivers) list their shapes through KHR.
  if (coopMatKhrExt && coopMatKhr.cooperativeMatrix == VK_TRUE && t.fp16Arithmetic &&
      f12.vulkanMemoryModel == VK_TRUE && t.subgroupSize != 0) {
    t.cooperativeMatrixKhr = true;
    const auto queryKhr = reinterpret_cast<GetCoopMatPropertiesKhr>(proc("vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
    const bool bf16Matrices = bf16Ext && bf16.type == VK_TRUE && bf16.cooperativeMatrix == VK_TRUE;
    auto isBf16 = [](const CoopMatShape& s) { return s.types == CoopMatTypes::Bf16xBf16ToF32; };
    if (!t.cooperativeMatrixNv) {
      t.coopMatShapes = coopMatShapesKhr(device, queryKhr);
      if (f12.shaderInt8 != VK_TRUE) {
        std::erase_if(t.coopMatShapes, [](const CoopMatShape& s) { return s.types == CoopMatTypes::S8xS8ToS32; });
      }
      if (!bf16Matrices) std::erase_if(t.coopMatShapes, isBf16);
      t.coopMatKhrEncoding = !t.coopMatShapes.empty();
    } else if (bf16Matrices) {
      // NV lists no bf16 shapes; KHR does (usable with the KHR encoding, --precision bf16).
      for (const CoopMatShape& s : coopMatShapesKhr(device, queryKhr)) {
        if (isBf16(s)) t.coopMatShapes.push_back(s);
      }
    }
    if (coopMat2Ext && coopMat2.workgroupScope == VK_TRUE && coopMat2.flexibleDimensions == VK_TRUE) {
      t.coopMatWorkgroup = coopMatWorkgroupLimits(
          device,
          reinterpret_cast<GetFlexibleDimensionsNv>(proc("vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV")),
          coopMat2Props);
    }
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
