// SPDX-License-Identifier: Apache-2.0
// Pure decisions over DeviceSnapshots: device choice, SPIR-V capability -> feature mapping,
// pipeline-cache compatibility.
#include "vulkan/snapshot.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include <fmt/format.h>

namespace openvgf::vulkan {
namespace {

// VkSubgroupFeatureFlagBits values.
constexpr std::uint32_t kSubgroupBasic = 0x1, kSubgroupVote = 0x2, kSubgroupArithmetic = 0x4,
                        kSubgroupBallot = 0x8, kSubgroupShuffle = 0x10, kSubgroupShuffleRelative = 0x20,
                        kSubgroupClustered = 0x40, kSubgroupQuad = 0x80;

struct CapabilityRule {
  std::uint32_t capability;
  const char* name;
  std::uint32_t features;   // Feature bits needed (0: none)
  std::uint32_t subgroup;   // VkSubgroupFeatureFlags needed (0: none)
};

constexpr std::uint32_t bit(Feature f) { return static_cast<std::uint32_t>(f); }

// Capabilities a Vulkan 1.3 compute module may declare, and what each needs from the device.
// SPIR-V spec §3.31 Capability; Vulkan spec appendix "SPIR-V Environment", table
// "List of SPIR-V Capabilities and corresponding Vulkan features".
constexpr CapabilityRule kRules[] = {
    {0, "Matrix", 0, 0},
    {1, "Shader", 0, 0},
    {8, "Float16Buffer", bit(Feature::ShaderFloat16), 0},
    {9, "Float16", bit(Feature::ShaderFloat16), 0},
    {10, "Float64", bit(Feature::ShaderFloat64), 0},
    {11, "Int64", bit(Feature::ShaderInt64), 0},
    {12, "Int64Atomics", bit(Feature::ShaderBufferInt64Atomics), 0},
    {22, "Int16", bit(Feature::ShaderInt16), 0},
    {39, "Int8", bit(Feature::ShaderInt8), 0},
    {61, "GroupNonUniform", 0, kSubgroupBasic},
    {62, "GroupNonUniformVote", 0, kSubgroupVote},
    {63, "GroupNonUniformArithmetic", 0, kSubgroupArithmetic},
    {64, "GroupNonUniformBallot", 0, kSubgroupBallot},
    {65, "GroupNonUniformShuffle", 0, kSubgroupShuffle},
    {66, "GroupNonUniformShuffleRelative", 0, kSubgroupShuffleRelative},
    {67, "GroupNonUniformClustered", 0, kSubgroupClustered},
    {68, "GroupNonUniformQuad", 0, kSubgroupQuad},
    {4433, "StorageBuffer16BitAccess", bit(Feature::StorageBuffer16BitAccess), 0},
    {4434, "UniformAndStorageBuffer16BitAccess", bit(Feature::UniformAndStorageBuffer16BitAccess), 0},
    {4448, "StorageBuffer8BitAccess", bit(Feature::StorageBuffer8BitAccess), 0},
    {4449, "UniformAndStorageBuffer8BitAccess", bit(Feature::UniformAndStorageBuffer8BitAccess), 0},
    {5345, "VulkanMemoryModel", bit(Feature::VulkanMemoryModel), 0},
    {6016, "DotProductInputAll", bit(Feature::ShaderIntegerDotProduct), 0},
    {6017, "DotProductInput4x8Bit", bit(Feature::ShaderIntegerDotProduct), 0},
    {6018, "DotProductInput4x8BitPacked", bit(Feature::ShaderIntegerDotProduct), 0},
    {6019, "DotProduct", bit(Feature::ShaderIntegerDotProduct), 0},
    {5357, "CooperativeMatrixNV", bit(Feature::CooperativeMatrixNv), 0},
    {6022, "CooperativeMatrixKHR", bit(Feature::CooperativeMatrixKhr), 0},
    {5116, "BFloat16TypeKHR", bit(Feature::CooperativeMatrixBfloat16), 0},
    {5118, "BFloat16CooperativeMatrixKHR", bit(Feature::CooperativeMatrixBfloat16), 0},
    // A property per float width, checked through the RoundingModeRTE execution mode.
    {4467, "RoundingModeRTE", 0, 0},
};

// Names of capabilities openvgf refuses, for the message only.
std::string capabilityName(std::uint32_t capability) {
  switch (capability) {
    case 4: return "Addresses";
    case 5: return "Linkage";
    case 6: return "Kernel";
    case 4435: return "StoragePushConstant16";
    case 4436: return "StorageInputOutput16";
    case 4450: return "StoragePushConstant8";
    case 5347: return "PhysicalStorageBufferAddresses";
    default: return fmt::format("{}", capability);
  }
}

}  // namespace

std::string_view featureName(Feature f) {
  switch (f) {
    case Feature::StorageBuffer8BitAccess: return "storageBuffer8BitAccess";
    case Feature::UniformAndStorageBuffer8BitAccess: return "uniformAndStorageBuffer8BitAccess";
    case Feature::StorageBuffer16BitAccess: return "storageBuffer16BitAccess";
    case Feature::UniformAndStorageBuffer16BitAccess: return "uniformAndStorageBuffer16BitAccess";
    case Feature::ShaderInt8: return "shaderInt8";
    case Feature::ShaderInt16: return "shaderInt16";
    case Feature::ShaderInt64: return "shaderInt64";
    case Feature::ShaderFloat16: return "shaderFloat16";
    case Feature::ShaderFloat64: return "shaderFloat64";
    case Feature::SubgroupSizeControl: return "subgroupSizeControl";
    case Feature::Synchronization2: return "synchronization2";
    case Feature::TimelineSemaphore: return "timelineSemaphore";
    case Feature::VulkanMemoryModel: return "vulkanMemoryModel";
    case Feature::ShaderIntegerDotProduct: return "shaderIntegerDotProduct";
    case Feature::ShaderBufferInt64Atomics: return "shaderBufferInt64Atomics";
    case Feature::Maintenance4: return "maintenance4";
    case Feature::CooperativeMatrixNv: return "cooperativeMatrix";
    case Feature::CooperativeMatrixKhr: return "cooperativeMatrix (KHR)";
    case Feature::CooperativeMatrixWorkgroupScope: return "cooperativeMatrixWorkgroupScope";
    case Feature::CooperativeMatrixBfloat16: return "shaderBFloat16CooperativeMatrix";
  }
  return "unknown";
}

std::string_view featureExtension(Feature f) {
  switch (f) {
    case Feature::CooperativeMatrixNv: return "VK_NV_cooperative_matrix";
    case Feature::CooperativeMatrixKhr: return "VK_KHR_cooperative_matrix";
    case Feature::CooperativeMatrixWorkgroupScope: return "VK_NV_cooperative_matrix2";
    case Feature::CooperativeMatrixBfloat16: return "VK_KHR_shader_bfloat16";
    default: return "";
  }
}

std::string_view capabilityForFeature(Feature f) {
  if (f == Feature::Maintenance4) return "ExecutionMode LocalSizeId";
  if (f == Feature::CooperativeMatrixWorkgroupScope) return "CooperativeMatrixKHR (Workgroup scope)";
  for (const CapabilityRule& rule : kRules) {
    if (rule.features == bit(f)) return rule.name;
  }
  return featureName(f);
}

std::vector<Feature> features(FeatureSet set) {
  std::vector<Feature> out;
  for (std::uint32_t i = 0; i < kFeatureCount; ++i) {
    if (set.bits & (1u << i)) out.push_back(static_cast<Feature>(1u << i));
  }
  return out;
}

std::string_view toString(DeviceType type) {
  switch (type) {
    case DeviceType::IntegratedGpu: return "integrated-gpu";
    case DeviceType::DiscreteGpu: return "discrete-gpu";
    case DeviceType::VirtualGpu: return "virtual-gpu";
    case DeviceType::Cpu: return "cpu";
    case DeviceType::Other: break;
  }
  return "other";
}

DeviceCaps deviceCaps(const DeviceSnapshot& device) {
  DeviceCaps caps;
  caps.name = device.name;
  caps.vendorId = device.vendorId;
  caps.cpu = device.type == DeviceType::Cpu;
  caps.subgroupSize = device.subgroupSize;
  caps.maxComputeWorkGroupInvocations = device.limits.maxComputeWorkGroupInvocations;
  caps.maxComputeSharedMemorySize = device.limits.maxComputeSharedMemorySize;
  caps.shaderFloat16 = device.features.has(Feature::ShaderFloat16);
  caps.roundingModeRteFloat16 = (device.roundingModeRte & kFloatWidth16) != 0;
  caps.shaderIntegerDotProduct = device.features.has(Feature::ShaderIntegerDotProduct);
  caps.shaderInt8 = device.features.has(Feature::ShaderInt8);
  caps.shaderFloat64 = device.features.has(Feature::ShaderFloat64);
  caps.vulkanMemoryModel = device.features.has(Feature::VulkanMemoryModel);
  caps.cooperativeMatrixNv = device.features.has(Feature::CooperativeMatrixNv);
  caps.cooperativeMatrixKhr = device.features.has(Feature::CooperativeMatrixKhr);
  caps.bfloat16Matrices = device.features.has(Feature::CooperativeMatrixBfloat16);
  caps.coopMatShapesNv = device.coopMatShapesNv;
  caps.coopMatShapesKhr = device.coopMatShapesKhr;
  if (device.features.has(Feature::CooperativeMatrixWorkgroupScope)) caps.coopMatWorkgroup = device.coopMatWorkgroup;
  return caps;
}

std::string apiVersionString(std::uint32_t version) {
  return fmt::format("{}.{}.{}", (version >> 22) & 0x7Fu, (version >> 12) & 0x3FFu, version & 0xFFFu);
}

int deviceTypeRank(DeviceType type) {
  switch (type) {
    case DeviceType::DiscreteGpu: return 4;
    case DeviceType::IntegratedGpu: return 3;
    case DeviceType::VirtualGpu: return 2;
    case DeviceType::Cpu: return 1;
    case DeviceType::Other: break;
  }
  return 0;
}

Result<std::size_t> chooseDevice(std::span<const DeviceSnapshot> devices, std::string_view selector) {
  constexpr std::uint32_t kVulkan13 = (1u << 22) | (3u << 12);
  auto eligible = [&](const DeviceSnapshot& d) {
    return (d.apiVersion & ~0xFFFu) >= kVulkan13 && d.hasComputeQueue;
  };
  auto describe = [&]() {
    std::string list;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      list += fmt::format("{}  {}: {} ({}, Vulkan {})", list.empty() ? "" : "\n", i, devices[i].name,
                          toString(devices[i].type), apiVersionString(devices[i].apiVersion));
    }
    return list;
  };
  if (devices.empty()) {
    return environmentError(
        "no Vulkan device found: expected a Vulkan 1.3 driver; install mesa-vulkan-drivers (lavapipe runs on "
        "the CPU) or your GPU vendor's driver, and the loader libvulkan1");
  }
  auto checkEligible = [&](std::size_t i) -> Result<std::size_t> {
    if (!eligible(devices[i])) {
      return environmentError("device {} ({}): expected Vulkan 1.3 with a compute queue, got Vulkan {}{}", i,
                              devices[i].name, apiVersionString(devices[i].apiVersion),
                              devices[i].hasComputeQueue ? "" : " without a compute queue");
    }
    return i;
  };
  if (!selector.empty()) {
    bool digits = std::all_of(selector.begin(), selector.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits) {
      std::size_t index = 0;
      for (char c : selector) {
        index = index * 10 + static_cast<std::size_t>(c - '0');
        if (index > devices.size()) break;
      }
      if (index >= devices.size()) {
        return invalidInput("--device {}: expected an index below {}, the devices are:\n{}", selector,
                            devices.size(), describe());
      }
      return checkEligible(index);
    }
    auto lower = [](std::string_view s) {
      std::string out(s);
      for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return out;
    };
    std::string needle = lower(selector);
    for (std::size_t i = 0; i < devices.size(); ++i) {
      if (lower(devices[i].name).find(needle) != std::string::npos) return checkEligible(i);
    }
    return invalidInput("--device {}: expected an index or a substring of a device name, the devices are:\n{}",
                        selector, describe());
  }
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (!eligible(devices[i])) continue;
    if (!best || deviceTypeRank(devices[i].type) > deviceTypeRank(devices[*best].type)) best = i;
  }
  if (!best) {
    return environmentError(
        "no Vulkan 1.3 device with a compute queue: expected one, the devices are:\n{}\nupdate the driver "
        "(mesa-vulkan-drivers 22.3 or newer provides lavapipe with Vulkan 1.3)",
        describe());
  }
  return *best;
}

Result<ShaderNeeds> shaderNeeds(const ShaderDeclarations& declarations) {
  ShaderNeeds needs;
  for (std::uint32_t capability : declarations.capabilities) {
    const CapabilityRule* rule = std::find_if(std::begin(kRules), std::end(kRules),
                                              [&](const CapabilityRule& r) { return r.capability == capability; });
    if (rule == std::end(kRules)) {
      return unsupported("SPIR-V module: capability {}: expected a capability a Vulkan 1.3 compute device can enable",
                         capabilityName(capability));
    }
    needs.features.bits |= rule->features;
    needs.subgroupOperations |= rule->subgroup;
  }
  // Vulkan spec VUID-RuntimeSpirv-LocalSizeId-06434: LocalSizeId needs maintenance4.
  if (declarations.localSizeId) needs.features.add(Feature::Maintenance4);
  if (declarations.workgroupScopeMatrices) needs.features.add(Feature::CooperativeMatrixWorkgroupScope);
  needs.roundingModeRte = declarations.roundingModeRte;
  return needs;
}

namespace {
constexpr char kCacheMagic[8] = {'O', 'V', 'G', 'F', 'P', 'C', '0', '1'};

void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
}  // namespace

// Layout: magic[8], vendorId, deviceId, driverVersion, apiVersion (4 x u32 LE),
// deviceUuid[16], driverUuid[16], pipelineCacheUuid[16] = 72 bytes.
std::vector<std::uint8_t> pipelineCacheHeader(const DeviceSnapshot& device) {
  std::vector<std::uint8_t> out(kCacheMagic, kCacheMagic + 8);
  put32(out, device.vendorId);
  put32(out, device.deviceId);
  put32(out, device.driverVersion);
  put32(out, device.apiVersion);
  out.insert(out.end(), device.deviceUuid.begin(), device.deviceUuid.end());
  out.insert(out.end(), device.driverUuid.begin(), device.driverUuid.end());
  out.insert(out.end(), device.pipelineCacheUuid.begin(), device.pipelineCacheUuid.end());
  return out;
}

std::optional<std::span<const std::uint8_t>> compatiblePipelineCache(std::span<const std::uint8_t> file,
                                                                     const DeviceSnapshot& device) {
  std::vector<std::uint8_t> expected = pipelineCacheHeader(device);
  if (file.size() < expected.size() || !std::equal(expected.begin(), expected.end(), file.begin())) {
    return std::nullopt;
  }
  std::span<const std::uint8_t> blob = file.subspan(expected.size());
  // VkPipelineCacheHeaderVersionOne: headerSize, headerVersion, vendorID, deviceID (u32 each),
  // pipelineCacheUUID[16] (Vulkan spec §10.7.4).
  constexpr std::size_t kVkHeader = 32;
  if (blob.size() < kVkHeader) return std::nullopt;
  std::uint32_t fields[4];
  std::memcpy(fields, blob.data(), sizeof(fields));
  if (fields[0] < kVkHeader || fields[0] > blob.size() || fields[1] != 1 || fields[2] != device.vendorId ||
      fields[3] != device.deviceId ||
      !std::equal(device.pipelineCacheUuid.begin(), device.pipelineCacheUuid.end(), blob.begin() + 16)) {
    return std::nullopt;
  }
  return blob;
}

std::string pipelineCacheFileName(const DeviceSnapshot& device) {
  std::string uuid;
  for (std::uint8_t b : device.deviceUuid) uuid += fmt::format("{:02x}", b);
  return fmt::format("pipelines-{:04x}-{:04x}-{}.bin", device.vendorId, device.deviceId, uuid);
}

}  // namespace openvgf::vulkan
