// SPDX-License-Identifier: Apache-2.0
// The pure decisions of vulkan/ over fake DeviceSnapshots: device choice, SPIR-V capabilities
// -> features, pipeline-cache compatibility. No Vulkan device needed.
#include <gtest/gtest.h>

#include "vulkan/snapshot.h"

namespace openvgf::vulkan {
namespace {

constexpr std::uint32_t kVulkan13 = (1u << 22) | (3u << 12) | 239;
constexpr std::uint32_t kVulkan12 = (1u << 22) | (2u << 12);

DeviceSnapshot fake(std::string name, DeviceType type, std::uint32_t api = kVulkan13) {
  DeviceSnapshot s;
  s.name = std::move(name);
  s.type = type;
  s.apiVersion = api;
  s.hasComputeQueue = true;
  s.vendorId = 0x10de;
  s.deviceId = 0x2330;
  s.deviceUuid.fill(7);
  s.driverUuid.fill(9);
  s.pipelineCacheUuid.fill(3);
  return s;
}

TEST(ChooseDevice, PrefersDiscreteThenIntegratedThenVirtualThenCpu) {
  std::vector<DeviceSnapshot> devices = {fake("llvmpipe", DeviceType::Cpu), fake("virt", DeviceType::VirtualGpu),
                                         fake("igpu", DeviceType::IntegratedGpu),
                                         fake("NVIDIA H100", DeviceType::DiscreteGpu)};
  EXPECT_EQ(*chooseDevice(devices, ""), 3u);
  devices.pop_back();
  EXPECT_EQ(*chooseDevice(devices, ""), 2u);
  devices.pop_back();
  EXPECT_EQ(*chooseDevice(devices, ""), 1u);
  devices.pop_back();
  EXPECT_EQ(*chooseDevice(devices, ""), 0u);
}

TEST(ChooseDevice, SkipsDevicesBelowVulkan13) {
  std::vector<DeviceSnapshot> devices = {fake("old gpu", DeviceType::DiscreteGpu, kVulkan12),
                                         fake("llvmpipe", DeviceType::Cpu)};
  EXPECT_EQ(*chooseDevice(devices, ""), 1u);
  devices.pop_back();
  Result<std::size_t> none = chooseDevice(devices, "");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().kind(), ErrorKind::Environment);
  EXPECT_NE(none.error().message().find("no Vulkan 1.3 device"), std::string::npos);
}

TEST(ChooseDevice, SelectorByIndexAndByNameSubstring) {
  std::vector<DeviceSnapshot> devices = {fake("llvmpipe (LLVM 15.0.6, 256 bits)", DeviceType::Cpu),
                                         fake("NVIDIA H100 80GB HBM3", DeviceType::DiscreteGpu)};
  EXPECT_EQ(*chooseDevice(devices, "0"), 0u);
  EXPECT_EQ(*chooseDevice(devices, "LLVMPIPE"), 0u);
  EXPECT_EQ(*chooseDevice(devices, "h100"), 1u);
  Result<std::size_t> bad = chooseDevice(devices, "7");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind(), ErrorKind::InvalidInput);
  EXPECT_NE(bad.error().message().find("1: NVIDIA H100 80GB HBM3 (discrete-gpu, Vulkan 1.3.239)"), std::string::npos)
      << bad.error().message();
  EXPECT_FALSE(chooseDevice(devices, "radeon"));
}

TEST(ChooseDevice, NoDevicesSaysWhatToInstall) {
  Result<std::size_t> none = chooseDevice({}, "");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().exitCode(), 1);
  EXPECT_NE(none.error().message().find("mesa-vulkan-drivers"), std::string::npos);
  EXPECT_NE(none.error().message().find("libvulkan1"), std::string::npos);
}

// Needs of a module declaring these capabilities (and nothing else).
Result<ShaderNeeds> needsOf(std::initializer_list<std::uint32_t> capabilities) {
  std::vector<std::uint32_t> list(capabilities);
  return shaderNeeds({.capabilities = list});
}

TEST(ShaderNeeds, MapsCapabilitiesToFeatures) {
  EXPECT_TRUE(needsOf({1})->features.empty());
  FeatureSet f = needsOf({1, 39, 4448, 22, 4433, 9, 11})->features;
  EXPECT_TRUE(f.has(Feature::ShaderInt8));
  EXPECT_TRUE(f.has(Feature::StorageBuffer8BitAccess));
  EXPECT_TRUE(f.has(Feature::ShaderInt16));
  EXPECT_TRUE(f.has(Feature::StorageBuffer16BitAccess));
  EXPECT_TRUE(f.has(Feature::ShaderFloat16));
  EXPECT_TRUE(f.has(Feature::ShaderInt64));
  EXPECT_FALSE(f.has(Feature::ShaderFloat64));
  EXPECT_EQ(features(f).size(), 6u);
  EXPECT_EQ(needsOf({1, 61, 63})->subgroupOperations, 0x5u);
}

TEST(ShaderNeeds, LocalSizeIdNeedsMaintenance4) {
  std::vector<std::uint32_t> shader = {1};
  FeatureSet f = shaderNeeds({.capabilities = shader, .localSizeId = true})->features;
  EXPECT_TRUE(f.has(Feature::Maintenance4));
  EXPECT_EQ(features(f).size(), 1u);
  EXPECT_EQ(capabilityForFeature(Feature::Maintenance4), "ExecutionMode LocalSizeId");
}

TEST(ShaderNeeds, CooperativeMatrixNvNeedsItsDeviceExtension) {
  FeatureSet f = needsOf({1, 9, 5345, 5357})->features;
  EXPECT_TRUE(f.has(Feature::CooperativeMatrixNv));
  EXPECT_TRUE(f.has(Feature::ShaderFloat16));
  EXPECT_TRUE(f.has(Feature::VulkanMemoryModel));
  EXPECT_EQ(capabilityForFeature(Feature::CooperativeMatrixNv), "CooperativeMatrixNV");
  EXPECT_EQ(featureName(Feature::CooperativeMatrixNv), "cooperativeMatrix");
  EXPECT_EQ(featureExtension(Feature::CooperativeMatrixNv), "VK_NV_cooperative_matrix");
  EXPECT_EQ(featureExtension(Feature::ShaderFloat16), "");
  // Packed int8 dot products (the native target's int8 GEMM path).
  EXPECT_TRUE(needsOf({1, 6018, 6019})->features.has(Feature::ShaderIntegerDotProduct));
}

TEST(ShaderNeeds, CooperativeMatrixKhrAndWorkgroupScopeNeedTheirExtensions) {
  std::vector<std::uint32_t> caps = {1, 9, 5345, 6022};
  FeatureSet subgroup = shaderNeeds({.capabilities = caps})->features;
  EXPECT_TRUE(subgroup.has(Feature::CooperativeMatrixKhr));
  EXPECT_FALSE(subgroup.has(Feature::CooperativeMatrixWorkgroupScope));
  EXPECT_EQ(featureExtension(Feature::CooperativeMatrixKhr), "VK_KHR_cooperative_matrix");
  EXPECT_EQ(capabilityForFeature(Feature::CooperativeMatrixKhr), "CooperativeMatrixKHR");
  // Workgroup scope has no capability of its own: the module's matrix types declare it.
  FeatureSet workgroup = shaderNeeds({.capabilities = caps, .workgroupScopeMatrices = true})->features;
  EXPECT_TRUE(workgroup.has(Feature::CooperativeMatrixWorkgroupScope));
  EXPECT_EQ(featureExtension(Feature::CooperativeMatrixWorkgroupScope), "VK_NV_cooperative_matrix2");
  EXPECT_EQ(featureName(Feature::CooperativeMatrixWorkgroupScope), "cooperativeMatrixWorkgroupScope");
}

TEST(ShaderNeeds, RoundingModeRteIsAPropertyPerFloatWidth) {
  std::vector<std::uint32_t> caps = {1, 4467};  // Shader, RoundingModeRTE
  Result<ShaderNeeds> needs = shaderNeeds({.capabilities = caps, .roundingModeRte = kFloatWidth16});
  EXPECT_TRUE(needs->features.empty());
  EXPECT_EQ(needs->roundingModeRte, kFloatWidth16);
  EXPECT_EQ(needsOf({1})->roundingModeRte, 0u);
}

TEST(ShaderNeeds, RefusesCapabilitiesNoComputeDeviceEnables) {
  Result<ShaderNeeds> kernel = needsOf({1, 6});
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.error().kind(), ErrorKind::Unsupported);
  EXPECT_EQ(kernel.error().message(),
            "SPIR-V module: capability Kernel: expected a capability a Vulkan 1.3 compute device can enable");
  Result<ShaderNeeds> addresses = needsOf({5347});
  ASSERT_FALSE(addresses);
  EXPECT_NE(addresses.error().message().find("PhysicalStorageBufferAddresses"), std::string::npos);
}

TEST(FeatureNames, UseVulkanAndSpirvSpelling) {
  EXPECT_EQ(featureName(Feature::ShaderInt8), "shaderInt8");
  EXPECT_EQ(capabilityForFeature(Feature::ShaderInt8), "Int8");
  EXPECT_EQ(capabilityForFeature(Feature::StorageBuffer8BitAccess), "StorageBuffer8BitAccess");
}

std::vector<std::uint8_t> cacheFile(const DeviceSnapshot& device) {
  std::vector<std::uint8_t> file = pipelineCacheHeader(device);
  EXPECT_EQ(file.size(), kPipelineCacheHeaderBytes);
  std::uint32_t vkHeader[4] = {32, 1, device.vendorId, device.deviceId};
  const auto* p = reinterpret_cast<const std::uint8_t*>(vkHeader);
  file.insert(file.end(), p, p + 16);
  file.insert(file.end(), device.pipelineCacheUuid.begin(), device.pipelineCacheUuid.end());
  file.insert(file.end(), {1, 2, 3, 4});  // driver payload
  return file;
}

TEST(PipelineCache, AcceptsOnlyTheSameDeviceAndDriver) {
  DeviceSnapshot device = fake("gpu", DeviceType::DiscreteGpu);
  std::vector<std::uint8_t> file = cacheFile(device);
  auto blob = compatiblePipelineCache(file, device);
  ASSERT_TRUE(blob);
  EXPECT_EQ(blob->size(), 36u);

  DeviceSnapshot newDriver = device;
  newDriver.driverUuid[0] = 1;
  EXPECT_FALSE(compatiblePipelineCache(file, newDriver));
  DeviceSnapshot otherVersion = device;
  otherVersion.driverVersion = 5;
  EXPECT_FALSE(compatiblePipelineCache(file, otherVersion));
  DeviceSnapshot otherCacheUuid = device;
  otherCacheUuid.pipelineCacheUuid[15] = 0;
  EXPECT_FALSE(compatiblePipelineCache(cacheFile(otherCacheUuid), device));
  EXPECT_FALSE(compatiblePipelineCache(std::span(file).first(80), device));
  EXPECT_FALSE(compatiblePipelineCache({}, device));
  EXPECT_EQ(pipelineCacheFileName(device), "pipelines-10de-2330-07070707070707070707070707070707.bin");
}

}  // namespace
}  // namespace openvgf::vulkan
