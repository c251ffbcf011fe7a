// SPDX-License-Identifier: Apache-2.0
// `--target native` converts for the device that will run the model (issue 32): the device a
// selector picks (api::nativeDeviceCaps, by the rule runner::Context opens devices with), its
// facts (vulkan::deviceCaps of its snapshot) and the target made from them
// (converter::nativeTarget). Two fake devices, a CPU one listed first and a GPU with NV
// cooperative matrices second; no Vulkan call.
#include <gtest/gtest.h>

#include "api/devices.h"
#include "converter/convert.h"
#include "converter/targets/fingerprint.h"
#include "converter/targets/target.h"
#include "vulkan/snapshot.h"

namespace openvgf::testing {
namespace {

vulkan::DeviceSnapshot fakeDevice(std::uint32_t index, std::string name, vulkan::DeviceType type) {
  vulkan::DeviceSnapshot d;
  d.index = index;
  d.name = std::move(name);
  d.type = type;
  d.apiVersion = (1u << 22) | (3u << 12);
  d.hasComputeQueue = true;
  d.limits.maxComputeWorkGroupInvocations = 1024;
  d.limits.maxComputeSharedMemorySize = 49152;
  return d;
}

std::vector<vulkan::DeviceSnapshot> twoDevices() {
  vulkan::DeviceSnapshot cpu = fakeDevice(0, "Fake CPU rasterizer", vulkan::DeviceType::Cpu);
  cpu.vendorId = 0x10005;
  cpu.subgroupSize = 8;
  vulkan::DeviceSnapshot gpu = fakeDevice(1, "Fake Tensor GPU", vulkan::DeviceType::DiscreteGpu);
  gpu.vendorId = 0x10DE;
  gpu.subgroupSize = 32;
  gpu.roundingModeRte = vulkan::kFloatWidth16;
  for (vulkan::Feature f : {vulkan::Feature::ShaderFloat16, vulkan::Feature::ShaderInt8,
                            vulkan::Feature::VulkanMemoryModel, vulkan::Feature::ShaderIntegerDotProduct,
                            vulkan::Feature::CooperativeMatrixNv}) {
    gpu.features.add(f);
  }
  gpu.coopMatShapesNv = {{16, 16, 16, CoopMatTypes::F16xF16ToF32}, {16, 8, 32, CoopMatTypes::S8xS8ToS32}};
  // Listed by a query whose feature is off: must not reach the target.
  gpu.coopMatShapesKhr = {{16, 16, 16, CoopMatTypes::Bf16xBf16ToF32}};
  return {cpu, gpu};
}

TEST(NativeDevice, TheTargetIsMadeForTheDeviceTheSelectorPicks) {
  const std::vector<vulkan::DeviceSnapshot> devices = twoDevices();
  // No selector: the runner's choice, the discrete GPU, though the CPU device is listed first.
  Result<DeviceCaps> best = api::nativeDeviceCaps(devices, "");
  ASSERT_TRUE(best) << best.error().message();
  EXPECT_EQ(best->name, "Fake Tensor GPU");
  Result<DeviceCaps> byIndex = api::nativeDeviceCaps(devices, "0");
  ASSERT_TRUE(byIndex) << byIndex.error().message();
  EXPECT_EQ(byIndex->name, "Fake CPU rasterizer");
  Result<DeviceCaps> byName = api::nativeDeviceCaps(devices, "tensor");
  ASSERT_TRUE(byName) << byName.error().message();
  EXPECT_EQ(*byName, *best);

  const converter::Target gpu = converter::nativeTarget(*best);
  EXPECT_EQ(gpu.deviceName, "Fake Tensor GPU");
  EXPECT_EQ(gpu.caps.subgroupSize, 32u);
  EXPECT_TRUE(gpu.caps.cooperativeMatrixNv);
  EXPECT_FALSE(gpu.caps.cooperativeMatrixKhr);
  EXPECT_EQ(gpu.caps.coopMatShapes, best->coopMatShapesNv);
  EXPECT_TRUE(gpu.caps.fp16Arithmetic && gpu.caps.fp16RoundingRte && gpu.caps.integerDotProduct);

  const converter::Target cpu = converter::nativeTarget(*byIndex);
  EXPECT_EQ(cpu.deviceName, "Fake CPU rasterizer");
  EXPECT_EQ(cpu.caps.subgroupSize, 8u);
  EXPECT_FALSE(cpu.caps.cooperativeMatrixNv || cpu.caps.fp16Arithmetic || cpu.caps.integerDotProduct);
  EXPECT_TRUE(cpu.caps.coopMatShapes.empty());
  // Each device class has its own tuning-table tiles (the CPU class: 8x8 register blocks for
  // every GEMM, without shared memory on its 8-lane subgroups, no split-K).
  EXPECT_EQ(cpu.tuning.gemmLarge, (converter::GemmTile{64, 64, 16, 8, 8, 0}));
  EXPECT_EQ(cpu.tuning.gemmLargeMinGroups, 1);
  EXPECT_EQ(cpu.tuning.gemmSplitKGroups, 0);
  EXPECT_NE(gpu.tuning.gemmSplitKGroups, 0);
  // So the caches keep them apart.
  EXPECT_NE(converter::fingerprint(cpu), converter::fingerprint(gpu));
}

TEST(NativeDevice, ASelectorThatPicksNothingIsAnErrorNamingTheTarget) {
  const std::vector<vulkan::DeviceSnapshot> devices = twoDevices();
  Result<DeviceCaps> missing = api::nativeDeviceCaps(devices, "7");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("--target native"), std::string::npos) << missing.error().message();
  EXPECT_NE(missing.error().message().find("7"), std::string::npos) << missing.error().message();
}

TEST(NativeDevice, NativeNeedsTheDeviceAndTuningAppliesToItsTable) {
  converter::ConvertOptions options;
  options.target = "native";
  Result<converter::Target> none = converter::resolveTarget(options);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message().find("expected the device the model will run on"), std::string::npos)
      << none.error().message();

  Result<DeviceCaps> cpu = api::nativeDeviceCaps(twoDevices(), "0");
  ASSERT_TRUE(cpu) << cpu.error().message();
  options.device = *cpu;
  Result<converter::Target> table = converter::resolveTarget(options);
  ASSERT_TRUE(table) << table.error().message();
  options.tuning = "gemm=64x64x16/4x4/1";
  Result<converter::Target> tuned = converter::resolveTarget(options);
  ASSERT_TRUE(tuned) << tuned.error().message();
  EXPECT_EQ(tuned->tuning.gemm, (converter::GemmTile{64, 64, 16, 4, 4, 1}));
  EXPECT_NE(converter::fingerprint(*tuned), converter::fingerprint(*table));
  options.tuning = "gemm=1x2";
  Result<converter::Target> bad = converter::resolveTarget(options);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("OPENVGF_TUNING: entry 'gemm=1x2'"), std::string::npos) << bad.error().message();
}

}  // namespace
}  // namespace openvgf::testing
