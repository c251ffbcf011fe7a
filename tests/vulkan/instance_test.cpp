// SPDX-License-Identifier: Apache-2.0
// vulkan/ against the real loader and lavapipe with the validation layer on: instance,
// device with only requested features, arenas, a pipeline-cache round trip.
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "vulkan/commands.h"
#include "vulkan/device.h"
#include "vulkan/instance.h"
#include "vulkan/memory.h"
#include "vulkan/pipeline.h"
#include "tests/support/temp_dir.h"

namespace openvgf::vulkan {
namespace {

TEST(Instance, EnumeratesLavapipeWithValidation) {
  Result<Instance> instance = Instance::create({.validate = true});
  ASSERT_TRUE(instance) << instance.error().message();
  EXPECT_TRUE(instance->validationEnabled());
  ASSERT_FALSE(instance->devices().empty());
  Result<std::size_t> chosen = chooseDevice(instance->devices(), "llvmpipe");
  ASSERT_TRUE(chosen) << chosen.error().message();
  const DeviceSnapshot& s = instance->devices()[*chosen];
  EXPECT_EQ(s.type, DeviceType::Cpu);
  EXPECT_GT(s.limits.maxStorageBufferRange, 0u);
  EXPECT_TRUE(s.features.has(Feature::Synchronization2));

  FeatureSet wanted;
  wanted.add(Feature::Synchronization2);
  wanted.add(Feature::ShaderInt8);
  Result<Device> device = Device::create(*instance, *chosen, {.features = wanted});
  ASSERT_TRUE(device) << device.error().message();
  EXPECT_EQ(device->enabledFeatures(), wanted);
  EXPECT_TRUE(device->robustBufferAccess());  // a CPU device: shaders' buffer accesses are bounded

  Result<Arena> staging = Arena::create(*device, 4096, MemoryUse::Upload, "staging");
  ASSERT_TRUE(staging) << staging.error().message();
  ASSERT_NE(staging->mapped(), nullptr);
  staging->mapped()[4095] = 1;
  Result<Arena> local = Arena::create(*device, 1 << 20, MemoryUse::DeviceLocal, "device");
  ASSERT_TRUE(local);
  EXPECT_EQ(local->mapped(), nullptr);
  Result<Arena> huge = Arena::create(*device, ~0ull >> 2, MemoryUse::DeviceLocal, "constants");
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message().find("constants memory"), std::string::npos);

  ArenaLayout layout;
  EXPECT_EQ(layout.place(3, 16), 0u);
  EXPECT_EQ(layout.place(5, 16), 16u);
  EXPECT_EQ(layout.size, 21u);

  Result<DescriptorPool> pool = DescriptorPool::create(*device, 2, 4);
  ASSERT_TRUE(pool);
  Result<TimestampQueries> queries = TimestampQueries::create(*device, 4);
  ASSERT_TRUE(queries) << queries.error().message();

  std::filesystem::path dir = openvgf::testing::processTempDir("openvgf-pc-test");
  std::filesystem::remove_all(dir);
  {
    Result<PipelineCache> cache = PipelineCache::create(*device, dir);
    ASSERT_TRUE(cache);
    EXPECT_FALSE(cache->loadedFromDisk());
    ASSERT_TRUE(cache->save());
  }
  Result<PipelineCache> again = PipelineCache::create(*device, dir);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->loadedFromDisk());
  Result<PipelineCache> off = PipelineCache::create(*device, {});
  ASSERT_TRUE(off);
  EXPECT_TRUE(off->path().empty());
  EXPECT_TRUE(off->save());
  std::filesystem::remove_all(dir);

  EXPECT_EQ(instance->validationErrors(), 0u);
  EXPECT_EQ(instance->validationWarnings(), 0u);
}

TEST(Instance, MissingDriverIsAnEnvironmentError) {
  const char* old = std::getenv("VK_DRIVER_FILES");
  std::string saved = old ? old : "";
  setenv("VK_DRIVER_FILES", "/nonexistent/openvgf_icd.json", 1);
  Result<Instance> instance = Instance::create({});
  if (old) setenv("VK_DRIVER_FILES", saved.c_str(), 1); else unsetenv("VK_DRIVER_FILES");
  ASSERT_FALSE(instance);
  EXPECT_EQ(instance.error().exitCode(), 1);
  EXPECT_NE(instance.error().message().find("mesa-vulkan-drivers"), std::string::npos) << instance.error().message();
}

}  // namespace
}  // namespace openvgf::vulkan
