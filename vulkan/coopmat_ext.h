// SPDX-License-Identifier: Apache-2.0
// VK_KHR_cooperative_matrix (Vulkan 1.3.255) and VK_NV_cooperative_matrix2 are newer than
// Debian 12's Vulkan headers (1.3.239), so the feature structures device creation needs are
// and the properties and queries the snapshot reads are declared here, laid out as the Vulkan
// registry defines them. Component types and scopes have the values of the VkComponentTypeNV /
// VkScopeNV enums the headers do have.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

namespace openvgf::vulkan {

inline constexpr const char* kKhrCooperativeMatrixExtension = "VK_KHR_cooperative_matrix";
inline constexpr const char* kNvCooperativeMatrix2Extension = "VK_NV_cooperative_matrix2";

inline constexpr auto kStructCooperativeMatrixFeaturesKhr = static_cast<VkStructureType>(1000506000);
inline constexpr auto kStructCooperativeMatrix2FeaturesNv = static_cast<VkStructureType>(1000593000);
inline constexpr const char* kKhrShaderBfloat16Extension = "VK_KHR_shader_bfloat16";
inline constexpr auto kStructShaderBfloat16FeaturesKhr = static_cast<VkStructureType>(1000141000);

struct CooperativeMatrixFeaturesKhr {  // VkPhysicalDeviceCooperativeMatrixFeaturesKHR
  VkStructureType sType;
  void* pNext;
  VkBool32 cooperativeMatrix;
  VkBool32 cooperativeMatrixRobustBufferAccess;
};

struct CooperativeMatrix2FeaturesNv {  // VkPhysicalDeviceCooperativeMatrix2FeaturesNV
  VkStructureType sType;
  void* pNext;
  VkBool32 cooperativeMatrixWorkgroupScope;
  VkBool32 cooperativeMatrixFlexibleDimensions;
  VkBool32 cooperativeMatrixReductions;
  VkBool32 cooperativeMatrixConversions;
  VkBool32 cooperativeMatrixPerElementOperations;
  VkBool32 cooperativeMatrixTensorAddressing;
  VkBool32 cooperativeMatrixBlockLoads;
};

struct ShaderBfloat16FeaturesKhr {  // VkPhysicalDeviceShaderBfloat16FeaturesKHR
  VkStructureType sType;
  void* pNext;
  VkBool32 shaderBFloat16Type;
  VkBool32 shaderBFloat16DotProduct;
  VkBool32 shaderBFloat16CooperativeMatrix;
};

inline constexpr auto kStructCooperativeMatrixPropertiesKhr = static_cast<VkStructureType>(1000506001);
inline constexpr auto kStructCooperativeMatrixFlexibleDimensionsNv = static_cast<VkStructureType>(1000593001);
inline constexpr auto kStructCooperativeMatrix2PropertiesNv = static_cast<VkStructureType>(1000593002);
inline constexpr auto kComponentTypeBfloat16 = static_cast<VkComponentTypeNV>(1000141000);

struct CooperativeMatrixPropertiesKhr {  // VkCooperativeMatrixPropertiesKHR
  VkStructureType sType;
  void* pNext;
  std::uint32_t MSize, NSize, KSize;
  VkComponentTypeNV AType, BType, CType, ResultType;
  VkBool32 saturatingAccumulation;
  VkScopeNV scope;
};

struct CooperativeMatrix2PropertiesNv {  // VkPhysicalDeviceCooperativeMatrix2PropertiesNV
  VkStructureType sType;
  void* pNext;
  std::uint32_t cooperativeMatrixWorkgroupScopeMaxWorkgroupSize;
  std::uint32_t cooperativeMatrixFlexibleDimensionsMaxDimension;
  std::uint32_t cooperativeMatrixWorkgroupScopeReservedSharedMemory;
};

struct CooperativeMatrixFlexibleDimensionsNv {  // VkCooperativeMatrixFlexibleDimensionsPropertiesNV
  VkStructureType sType;
  void* pNext;
  std::uint32_t MGranularity, NGranularity, KGranularity;
  VkComponentTypeNV AType, BType, CType, ResultType;
  VkBool32 saturatingAccumulation;
  VkScopeNV scope;
  std::uint32_t workgroupInvocations;
};

using PfnCooperativeMatrixPropertiesKhr = VkResult(VKAPI_PTR*)(VkPhysicalDevice, std::uint32_t*,
                                                                CooperativeMatrixPropertiesKhr*);
using PfnCooperativeMatrixFlexibleDimensionsNv = VkResult(VKAPI_PTR*)(VkPhysicalDevice, std::uint32_t*,
                                                                       CooperativeMatrixFlexibleDimensionsNv*);

}  // namespace openvgf::vulkan
