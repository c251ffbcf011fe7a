// SPDX-License-Identifier: Apache-2.0
// Plain-data description of a Vulkan physical device and the pure decisions made from it:
// which device to use, which optional features a SPIR-V module needs (from its OpCapability
// list), and whether an on-disk pipeline cache belongs to this device and driver. None of
// these touch Vulkan, so unit tests drive them with fake snapshots (STYLE.md item 14).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/device_caps.h"
#include "common/error.h"

namespace openvgf::vulkan {

/// The optional device features openvgf may enable. Only those a model needs are enabled.
enum class Feature : std::uint32_t {
  StorageBuffer8BitAccess = 1u << 0,            // Vulkan12 storageBuffer8BitAccess
  UniformAndStorageBuffer8BitAccess = 1u << 1,  // Vulkan12
  StorageBuffer16BitAccess = 1u << 2,           // Vulkan11 storageBuffer16BitAccess
  UniformAndStorageBuffer16BitAccess = 1u << 3, // Vulkan11
  ShaderInt8 = 1u << 4,                         // Vulkan12 shaderInt8
  ShaderInt16 = 1u << 5,                        // core shaderInt16
  ShaderInt64 = 1u << 6,                        // core shaderInt64
  ShaderFloat16 = 1u << 7,                      // Vulkan12 shaderFloat16
  ShaderFloat64 = 1u << 8,                      // core shaderFloat64
  SubgroupSizeControl = 1u << 9,                // Vulkan13 subgroupSizeControl
  Synchronization2 = 1u << 10,                  // Vulkan13 synchronization2
  TimelineSemaphore = 1u << 11,                 // Vulkan12 timelineSemaphore
  VulkanMemoryModel = 1u << 12,                 // Vulkan12 vulkanMemoryModel
  ShaderIntegerDotProduct = 1u << 13,           // Vulkan13 shaderIntegerDotProduct
  ShaderBufferInt64Atomics = 1u << 14,          // Vulkan12 shaderBufferInt64Atomics
  Maintenance4 = 1u << 15,                      // Vulkan13 maintenance4 (ExecutionMode LocalSizeId)
  CooperativeMatrixNv = 1u << 16,               // VK_NV_cooperative_matrix cooperativeMatrix (device extension)
  CooperativeMatrixKhr = 1u << 17,              // VK_KHR_cooperative_matrix cooperativeMatrix (device extension)
  // VK_NV_cooperative_matrix2 cooperativeMatrixWorkgroupScope and cooperativeMatrixFlexibleDimensions:
  // KHR matrices at workgroup scope, of any multiple of the listed granularities.
  CooperativeMatrixWorkgroupScope = 1u << 18,
  // VK_KHR_shader_bfloat16 shaderBFloat16Type and shaderBFloat16CooperativeMatrix: bf16 matrices.
  CooperativeMatrixBfloat16 = 1u << 19,
};
inline constexpr std::uint32_t kFeatureCount = 20;

/// A set of Features (bit mask).
struct FeatureSet {
  std::uint32_t bits = 0;
  bool has(Feature f) const { return (bits & static_cast<std::uint32_t>(f)) != 0; }
  void add(Feature f) { bits |= static_cast<std::uint32_t>(f); }
  FeatureSet operator|(FeatureSet o) const { return {bits | o.bits}; }
  FeatureSet& operator|=(FeatureSet o) { bits |= o.bits; return *this; }
  /// Features of this set that `available` lacks.
  FeatureSet minus(FeatureSet available) const { return {bits & ~available.bits}; }
  bool empty() const { return bits == 0; }
  bool operator==(const FeatureSet&) const = default;
};
/// Vulkan spelling of the feature, e.g. "shaderInt8".
std::string_view featureName(Feature f);
/// The device extension a feature needs enabled, or empty for core features.
std::string_view featureExtension(Feature f);
/// Every feature of the set, in bit order.
std::vector<Feature> features(FeatureSet set);

enum class DeviceType { Other, IntegratedGpu, DiscreteGpu, VirtualGpu, Cpu };
std::string_view toString(DeviceType type);

/// Device limits openvgf checks or reports.
struct DeviceLimits {
  std::uint32_t maxStorageBufferRange = 0;            // bytes per descriptor
  std::uint64_t minStorageBufferOffsetAlignment = 1;  // bytes
  std::uint64_t maxMemoryAllocationSize = 0;          // bytes (Vulkan11)
  std::uint64_t maxBufferSize = 0;                    // bytes (Vulkan13 maintenance4)
  std::array<std::uint32_t, 3> maxComputeWorkGroupCount{};
  std::array<std::uint32_t, 3> maxComputeWorkGroupSize{};
  std::uint32_t maxComputeWorkGroupInvocations = 0;
  std::uint32_t maxComputeSharedMemorySize = 0;       // bytes
  std::uint32_t maxBoundDescriptorSets = 0;
  std::uint32_t maxPerStageDescriptorStorageBuffers = 0;
  std::uint32_t maxPushConstantsSize = 0;             // bytes
  float timestampPeriod = 0;                          // ns per tick
};

/// Everything openvgf decides from, captured once per physical device.
struct DeviceSnapshot {
  std::uint32_t index = 0;  // position in vkEnumeratePhysicalDevices
  std::string name;
  DeviceType type = DeviceType::Other;
  std::uint32_t apiVersion = 0;     // VK_MAKE_API_VERSION encoding
  std::uint32_t driverVersion = 0;  // vendor encoding
  std::uint32_t vendorId = 0;
  std::uint32_t deviceId = 0;
  std::string driverName;  // VkPhysicalDeviceVulkan12Properties::driverName
  std::string driverInfo;
  std::array<std::uint8_t, 16> pipelineCacheUuid{};
  std::array<std::uint8_t, 16> deviceUuid{};
  std::array<std::uint8_t, 16> driverUuid{};
  std::uint32_t subgroupSize = 0;
  std::uint32_t minSubgroupSize = 0;
  std::uint32_t maxSubgroupSize = 0;
  std::uint32_t subgroupOperations = 0;  // VkSubgroupFeatureFlags supported in compute
  std::uint32_t roundingModeRte = 0;     // kFloatWidth* bits: shaderRoundingModeRTEFloat16/32/64
  bool hasComputeQueue = false;
  std::uint32_t timestampValidBits = 0;  // of the compute queue family; 0 = no timestamps
  std::uint64_t deviceLocalBytes = 0;    // sum of DEVICE_LOCAL heaps
  bool externalMemoryHost = false;       // VK_EXT_external_memory_host offered (import of host pointers)
  std::uint64_t minImportedHostPointerAlignment = 0;  // bytes; pointer and size of an import are multiples
  bool dedicatedTransferQueue = false;   // a queue family with TRANSFER but neither COMPUTE nor GRAPHICS
  // VK_KHR_pipeline_executable_properties with pipelineExecutableInfo: the driver reports
  // statistics (registers, code size, ...) of the code it compiled for a pipeline.
  bool pipelineExecutableInfo = false;
  DeviceLimits limits;
  FeatureSet features;  // supported optional features
  // Cooperative-matrix shapes of the kinds openvgf's GEMMs use, as the device lists them
  // (vkGetPhysicalDeviceCooperativeMatrixProperties{NV,KHR}, subgroup scope, not saturating),
  // and VK_NV_cooperative_matrix2's workgroup-scope fp16 entries. Empty where the feature is off.
  std::vector<CoopMatShape> coopMatShapesNv;
  std::vector<CoopMatShape> coopMatShapesKhr;
  CoopMatWorkgroupLimits coopMatWorkgroup;
};

/// The facts of `device` the converter's native target decides from (common/device_caps.h).
DeviceCaps deviceCaps(const DeviceSnapshot& device);

/// "1.3.239"
std::string apiVersionString(std::uint32_t version);

/// How chooseDevice prefers device kinds: higher is better (discrete 4, integrated 3, virtual
/// 2, CPU 1, other 0). DevicePool's "all" takes every usable device of the best rank.
int deviceTypeRank(DeviceType type);

/// Picks the device to run on. `selector` empty: the best eligible device, ranked discrete >
/// integrated > virtual > CPU > other (first in enumeration order on ties). A selector of
/// digits is a device index; anything else is a case-insensitive substring of the name.
/// Eligible = Vulkan 1.3 with a compute queue. Returns the index into `devices`.
Result<std::size_t> chooseDevice(std::span<const DeviceSnapshot> devices, std::string_view selector);

/// Float widths of the RoundingModeRTE execution mode (float controls, Vulkan 1.2 properties).
inline constexpr std::uint32_t kFloatWidth16 = 1u << 0, kFloatWidth32 = 1u << 1, kFloatWidth64 = 1u << 2;

/// What a compute module declares that decides what it needs from a device. The runner fills
/// it from its SPIR-V reflection (vgf/spirv_info.h), so the words are parsed in one place.
struct ShaderDeclarations {
  std::span<const std::uint32_t> capabilities;  // OpCapability operands
  bool localSizeId = false;                     // OpExecutionModeId LocalSizeId or LocalSizeHintId
  std::uint32_t roundingModeRte = 0;            // kFloatWidth* bits of OpExecutionMode RoundingModeRTE
  bool workgroupScopeMatrices = false;          // an OpTypeCooperativeMatrixKHR of Workgroup scope
};

/// What a module needs from a device.
struct ShaderNeeds {
  FeatureSet features;                   // optional features to enable (maintenance4 for LocalSizeId)
  std::uint32_t subgroupOperations = 0;  // VkSubgroupFeatureFlags, from the GroupNonUniform* capabilities
  std::uint32_t roundingModeRte = 0;     // kFloatWidth* bits: shaderRoundingModeRTEFloat<width> properties
};

/// Maps a module's declarations to device needs. Unsupported naming the capability for one
/// openvgf cannot enable on any device (Kernel, Addresses, CooperativeMatrixKHR, ...).
Result<ShaderNeeds> shaderNeeds(const ShaderDeclarations& declarations);

/// The SPIR-V capability spelling for a Feature, used in "module needs capability X" messages.
std::string_view capabilityForFeature(Feature f);

/// Header prefixed by openvgf to a VkPipelineCache blob on disk. The blob is only reused when
/// vendor, device, driver version and the device / driver / pipeline-cache UUIDs all match.
inline constexpr std::size_t kPipelineCacheHeaderBytes = 72;
std::vector<std::uint8_t> pipelineCacheHeader(const DeviceSnapshot& device);
/// The Vulkan cache blob inside `file` if the file was written for exactly this device and
/// driver (our header and the blob's own VkPipelineCacheHeaderVersionOne both checked);
/// nullopt otherwise (stale, foreign or corrupt caches are ignored, not errors).
std::optional<std::span<const std::uint8_t>> compatiblePipelineCache(std::span<const std::uint8_t> file,
                                                                     const DeviceSnapshot& device);
/// File name of the cache for this device under the cache directory.
std::string pipelineCacheFileName(const DeviceSnapshot& device);

}  // namespace openvgf::vulkan
