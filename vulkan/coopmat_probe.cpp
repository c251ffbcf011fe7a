// SPDX-License-Identifier: Apache-2.0
// The cooperative-matrix shapes a device lists, for DeviceSnapshot: the kinds of GEMM openvgf
// has kernels for (fp16 or bf16 or int8 operands), at subgroup scope from the NV and KHR
// queries, and VK_NV_cooperative_matrix2's workgroup-scope fp16 entries.
#include <optional>
#include <vector>

#include "vulkan/api.h"
#include "vulkan/coopmat_ext.h"
#include "vulkan/instance.h"

namespace openvgf::vulkan {
namespace {

/// The kind of GEMM a (A, B, C, result) component-type quadruple is, if openvgf has one.
std::optional<CoopMatTypes> gemmTypes(VkComponentTypeNV a, VkComponentTypeNV b, VkComponentTypeNV c,
                                      VkComponentTypeNV result) {
  if (a != b || c != result) return std::nullopt;
  if (a == VK_COMPONENT_TYPE_FLOAT16_NV && c == VK_COMPONENT_TYPE_FLOAT32_NV) return CoopMatTypes::F16xF16ToF32;
  if (a == VK_COMPONENT_TYPE_FLOAT16_NV && c == VK_COMPONENT_TYPE_FLOAT16_NV) return CoopMatTypes::F16xF16ToF16;
  if (a == VK_COMPONENT_TYPE_SINT8_NV && c == VK_COMPONENT_TYPE_SINT32_NV) return CoopMatTypes::S8xS8ToS32;
  if (a == kComponentTypeBfloat16 && c == VK_COMPONENT_TYPE_FLOAT32_NV) return CoopMatTypes::Bf16xBf16ToF32;
  return std::nullopt;
}

// Runs a two-call Vulkan enumeration (count, then entries with sType set).
template <class Entry, class Query>
std::vector<Entry> enumerateEntries(VkPhysicalDevice device, Query query, VkStructureType sType) {
  std::uint32_t count = 0;
  if (query == nullptr || query(device, &count, nullptr) != VK_SUCCESS || count == 0) return {};
  std::vector<Entry> entries(count, Entry{});
  for (Entry& e : entries) e.sType = sType;
  if (query(device, &count, entries.data()) != VK_SUCCESS) return {};
  entries.resize(count);
  return entries;
}

std::vector<CoopMatShape> shapesNv(VkInstance instance, VkPhysicalDevice device) {
  auto query = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  std::vector<CoopMatShape> shapes;
  for (const auto& p : enumerateEntries<VkCooperativeMatrixPropertiesNV>(
           device, query, VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV)) {
    const std::optional<CoopMatTypes> types = gemmTypes(p.AType, p.BType, p.CType, p.DType);
    if (p.scope != VK_SCOPE_SUBGROUP_NV || !types || *types == CoopMatTypes::Bf16xBf16ToF32) continue;
    shapes.push_back({static_cast<int>(p.MSize), static_cast<int>(p.NSize), static_cast<int>(p.KSize), *types});
  }
  return shapes;
}

std::vector<CoopMatShape> shapesKhr(VkInstance instance, VkPhysicalDevice device) {
  auto query = reinterpret_cast<PfnCooperativeMatrixPropertiesKhr>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  std::vector<CoopMatShape> shapes;
  for (const auto& p : enumerateEntries<CooperativeMatrixPropertiesKhr>(device, query,
                                                                         kStructCooperativeMatrixPropertiesKhr)) {
    const std::optional<CoopMatTypes> types = gemmTypes(p.AType, p.BType, p.CType, p.ResultType);
    if (p.scope != VK_SCOPE_SUBGROUP_NV || !types || p.saturatingAccumulation) continue;
    shapes.push_back({static_cast<int>(p.MSize), static_cast<int>(p.NSize), static_cast<int>(p.KSize), *types});
  }
  return shapes;
}

// The fp16 x fp16 -> fp32 workgroup-scope entries: every workgroup size listed, the largest
// (with its granularities) as the default, and whether fp16 accumulators come at that size.
CoopMatWorkgroupLimits workgroupLimits(VkInstance instance, VkPhysicalDevice device) {
  auto query = reinterpret_cast<PfnCooperativeMatrixFlexibleDimensionsNv>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV"));
  const auto entries = enumerateEntries<CooperativeMatrixFlexibleDimensionsNv>(
      device, query, kStructCooperativeMatrixFlexibleDimensionsNv);
  CoopMatWorkgroupLimits limits;
  auto typesOf = [](const CooperativeMatrixFlexibleDimensionsNv& e) -> std::optional<CoopMatTypes> {
    if (e.scope != VK_SCOPE_WORKGROUP_NV || e.saturatingAccumulation) return std::nullopt;
    return gemmTypes(e.AType, e.BType, e.CType, e.ResultType);
  };
  for (const auto& e : entries) {
    if (typesOf(e) != CoopMatTypes::F16xF16ToF32) continue;
    if (static_cast<int>(e.workgroupInvocations) > limits.invocations) {
      limits.granularityM = static_cast<int>(e.MGranularity);
      limits.granularityN = static_cast<int>(e.NGranularity);
      limits.granularityK = static_cast<int>(e.KGranularity);
      limits.invocations = static_cast<int>(e.workgroupInvocations);
    }
    limits.invocationCounts.push_back(static_cast<int>(e.workgroupInvocations));
  }
  for (const auto& e : entries) {
    if (typesOf(e) == CoopMatTypes::F16xF16ToF16 && static_cast<int>(e.workgroupInvocations) == limits.invocations) {
      limits.fp16Accumulators = true;
    }
  }
  CooperativeMatrix2PropertiesNv props{kStructCooperativeMatrix2PropertiesNv, nullptr, 0, 0, 0};
  VkPhysicalDeviceProperties2 withProps{};
  withProps.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  withProps.pNext = &props;
  vkGetPhysicalDeviceProperties2(device, &withProps);
  limits.maxDimension = static_cast<int>(props.cooperativeMatrixFlexibleDimensionsMaxDimension);
  limits.reservedShared = static_cast<int>(props.cooperativeMatrixWorkgroupScopeReservedSharedMemory);
  return limits;
}

}  // namespace

void snapshotCooperativeMatrices(VkInstance instance, VkPhysicalDevice device, DeviceSnapshot& s) {
  if (s.features.has(Feature::CooperativeMatrixNv)) s.coopMatShapesNv = shapesNv(instance, device);
  if (s.features.has(Feature::CooperativeMatrixKhr)) s.coopMatShapesKhr = shapesKhr(instance, device);
  if (s.features.has(Feature::CooperativeMatrixWorkgroupScope)) s.coopMatWorkgroup = workgroupLimits(instance, device);
}

}  // namespace openvgf::vulkan
