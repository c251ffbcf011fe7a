// SPDX-License-Identifier: Apache-2.0
// runner::Model validation and its device check against fake DeviceSnapshots (no GPU).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runner/model.h"
#include "shaders/binary_f32.h"
#include "shaders/binary_i8.h"
#include "shaders/chain_add.h"
#include "shaders/chain_minus1.h"
#include "shaders/chain_scale2.h"
#include "test_models.h"

namespace openvgf::runner {
namespace {

using ::testing::HasSubstr;
using V = vgf::VkFormatValue;

vulkan::DeviceSnapshot fakeDevice() {
  vulkan::DeviceSnapshot d;
  d.name = "Fake GPU";
  d.apiVersion = (1u << 22) | (3u << 12);
  d.hasComputeQueue = true;
  d.limits.maxStorageBufferRange = 1u << 27;
  d.limits.maxBoundDescriptorSets = 4;
  d.limits.maxComputeWorkGroupCount = {65535, 65535, 65535};
  d.features.bits = ~0u;
  d.subgroupOperations = 0xFF;
  return d;
}

// A mutable copy of a built model's File (its spans still view the builder's storage).
struct Built {
  vgf::Builder builder;
  vgf::File file;
};

std::unique_ptr<Built> chainModel() {
  auto built = std::make_unique<Built>();
  openvgf::testing::buildChain(built->builder, k_chain_add, k_chain_scale2, k_chain_minus1);
  built->file = built->builder.file();
  return built;
}

TEST(Model, DescribesTheChain) {
  auto chain = chainModel();
  vgf::File& file = chain->file;
  Result<Model> model = Model::create(file, "chain.vgf");
  ASSERT_TRUE(model) << model.error().message();
  ASSERT_EQ(model->inputs().size(), 1u);
  EXPECT_EQ(model->inputs()[0].name, "x");
  EXPECT_EQ(model->inputs()[0].dtype, tosa::DType::Fp32);
  EXPECT_EQ(model->inputs()[0].bytes, 4000u);
  ASSERT_EQ(model->segments().size(), 4u);
  EXPECT_EQ(model->segments()[1].bindings[0].set, 1u);
  EXPECT_EQ(model->segments()[0].bindings[2].access, Access::Write);
  EXPECT_EQ(model->segments()[0].bindings[1].access, Access::Read);
  // glslang's SPIR-V 1.6 output uses ExecutionMode LocalSizeId, hence maintenance4.
  vulkan::FeatureSet maintenance4;
  maintenance4.add(vulkan::Feature::Maintenance4);
  EXPECT_EQ(model->requiredFeatures(), maintenance4);
  EXPECT_TRUE(model->checkDevice(fakeDevice()));
}

TEST(Model, DefaultNamesWhenTheFileHasNone) {
  auto chain = chainModel();
  vgf::File& file = chain->file;
  file.inputNames.clear();
  file.outputNames.clear();
  Result<Model> model = Model::create(file, "chain.vgf");
  ASSERT_TRUE(model);
  EXPECT_EQ(model->inputs()[0].name, "input_0");
  EXPECT_EQ(model->outputs()[0].name, "output_0");
}

TEST(Model, RefusesGraphSegmentsNamingTheExtension) {
  auto chain = chainModel();
  vgf::File& file = chain->file;
  file.segments[2].type = vgf::ModuleType::Graph;
  Result<Model> model = Model::create(file, "graph.vgf");
  ASSERT_FALSE(model);
  EXPECT_EQ(model.error().kind(), ErrorKind::Unsupported);
  EXPECT_EQ(model.error().exitCode(), 2);
  EXPECT_THAT(model.error().message(), HasSubstr("graph.vgf: segments[2] 'add_input': expected a COMPUTE segment, "
                                                 "got a GRAPH segment"));
  EXPECT_THAT(model.error().message(), HasSubstr("VK_ARM_data_graph"));
}

TEST(Model, RefusesModulesWithoutSpirv) {
  auto chain = chainModel();
  vgf::File& file = chain->file;
  file.modules[1].codeKind = vgf::CodeKind::Glsl;
  Result<Model> model = Model::create(file, "m.vgf");
  ASSERT_FALSE(model);
  EXPECT_THAT(model.error().message(), HasSubstr("modules[1] 'scale2': expected embedded SPIR-V code, got GLSL source"));
}

TEST(Model, ChecksBindingsResourcesAndConstants) {
  {
    auto chain = chainModel();
    vgf::File& file = chain->file;
    file.segments[0].setInfos[0].bindings[1].mrtIndex = 99;
    Result<Model> model = Model::create(file, "m.vgf");
    ASSERT_FALSE(model);
    EXPECT_EQ(model.error().message(),
              "m.vgf: segments[0] 'add_const': set_infos[0].bindings[1]: mrt_index: expected < 6, got 99");
  }
  {
    auto chain = chainModel();
    vgf::File& file = chain->file;
    file.constants[0].data = file.constants[0].data.first(12);
    Result<Model> model = Model::create(file, "m.vgf");
    ASSERT_FALSE(model);
    EXPECT_EQ(model.error().message(),
              "m.vgf: constants[0]: expected 4000 bytes for resources[1] (R32_SFLOAT [1,1000]), got 12");
  }
  {
    auto chain = chainModel();
    vgf::File& file = chain->file;
    file.resources[2].shape[1] = INT64_MIN;
    Result<Model> model = Model::create(file, "m.vgf");
    ASSERT_FALSE(model);
    EXPECT_EQ(model.error().message(), "m.vgf: resources[2]: shape[1]: expected a static dimension >= 1, got dynamic");
  }
  {
    auto chain = chainModel();
    vgf::File& file = chain->file;
    file.resources[3].descriptorType = vgf::kDescriptorTypeTensorArm;
    Result<Model> model = Model::create(file, "m.vgf");
    ASSERT_FALSE(model);
    EXPECT_THAT(model.error().message(), HasSubstr("resources[3]: expected a STORAGE_BUFFER resource, got TENSOR_ARM"));
  }
  {
    auto chain = chainModel();
    vgf::File& file = chain->file;
    file.segments[0].outputs.push_back({0, 1});  // writes the constant
    Result<Model> model = Model::create(file, "m.vgf");
    ASSERT_FALSE(model);
    EXPECT_THAT(model.error().message(), HasSubstr("expected a writable (OUTPUT or INTERMEDIATE) resource"));
  }
  {
    auto chain = chainModel();
    vgf::File& file = chain->file;
    file.segments[3].dispatchShape.reset();
    EXPECT_THAT(Model::create(file, "m.vgf").error().message(),
                HasSubstr("segments[3] 'minus_one': dispatch_shape: expected workgroup counts, got none"));
  }
}

TEST(Model, DeviceCheckNamesTheMissingCapability) {
  vgf::Builder b;
  openvgf::testing::buildBinary(b, V::R8Sint, k_binary_i8);
  vgf::File file = b.file();
  Result<Model> model = Model::create(file, "int8.vgf");
  ASSERT_TRUE(model) << model.error().message();
  vulkan::FeatureSet needed = model->requiredFeatures();
  EXPECT_TRUE(needed.has(vulkan::Feature::ShaderInt8));
  EXPECT_TRUE(needed.has(vulkan::Feature::StorageBuffer8BitAccess));

  vulkan::DeviceSnapshot device = fakeDevice();
  device.features.bits &= ~static_cast<std::uint32_t>(vulkan::Feature::ShaderInt8);
  Status status = model->checkDevice(device);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().kind(), ErrorKind::Unsupported);
  EXPECT_EQ(status.error().message(),
            "int8.vgf: modules[0] 'binary' (segment 'add'): needs SPIR-V capability Int8 (device feature shaderInt8), "
            "expected Fake GPU to support it");
}

TEST(Model, DeviceCheckNamesATensorOverMaxStorageBufferRange) {
  vgf::Builder b;
  openvgf::testing::buildBinary(b, V::R32Sfloat, k_binary_f32);
  vgf::File file = b.file();
  file.resources[2].shape = {64, 1024, 1024};  // 256 MiB output
  Result<Model> model = Model::create(file, "big.vgf");
  ASSERT_TRUE(model) << model.error().message();
  Status status = model->checkDevice(fakeDevice());
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message(),
            "big.vgf: output 'c' (resources[2]): expected at most maxStorageBufferRange = 134217728 bytes per tensor "
            "on Fake GPU, got 268435456 bytes");
}

TEST(Model, DeviceCheckLimitsDispatchSize) {
  auto chain = chainModel();
  vgf::File& file = chain->file;
  Result<Model> model = Model::create(file, "m.vgf");
  ASSERT_TRUE(model);
  vulkan::DeviceSnapshot device = fakeDevice();
  device.limits.maxComputeWorkGroupCount[0] = 8;
  EXPECT_THAT(model->checkDevice(device).error().message(),
              HasSubstr("segment 'add_const': dispatch_shape[0]: expected at most maxComputeWorkGroupCount[0] = 8"));
}

}  // namespace
}  // namespace openvgf::runner
