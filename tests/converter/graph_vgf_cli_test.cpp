// SPDX-License-Identifier: Apache-2.0
// VGFs with GRAPH segments through the `openvgf` CLI as a user runs them: the model-converter
// fixture and the three Vulkan-Samples graph modules run on lavapipe under the validation
// layer and pass `--check` (against the graph they carry); the lowered VGF is cached (the
// second run does not lower again) and lowered once per distinct input shape when dimensions
// are dynamic; `convert --format arm-graph`, `convert arm.vgf`, `inspect arm.vgf`; bad modules
// exit 2 with a message and leave no output file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <random>

#include "tests/converter/graph_vgf_util.h"
#include "tests/support/cli_runner.h"
#include "tests/tosa/spirv_test_util.h"
#include "tosa/npy.h"
#include "tosa/spirv/grammar.h"

namespace openvgf::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

const fs::path kData = OPENVGF_TEST_DATA;
constexpr std::int64_t kDynamic = std::numeric_limits<std::int64_t>::min();

std::uint32_t format(vgf::VkFormatValue f) { return static_cast<std::uint32_t>(f); }

class GraphVgfCli : public ::testing::Test {
 protected:
  void SetUp() override { env_ = "XDG_CACHE_HOME=" + dir_ / "cache"; }

  std::string writeFile(const std::string& name, const std::vector<std::uint8_t>& bytes) {
    std::ofstream(dir_ / name, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                      static_cast<std::streamsize>(bytes.size()));
    return dir_ / name;
  }
  std::string writeNpy(const std::string& name, tosa::npy::DataType type, tosa::Shape shape, std::uint32_t seed) {
    tosa::npy::Array a{type, shape, {}};
    a.data.resize(static_cast<std::size_t>(tosa::elementCount(shape)) * tosa::npy::elementBytes(type));
    std::mt19937 rng(seed);
    if (type == tosa::npy::DataType::Float32) {
      std::uniform_real_distribution<float> d(-2.0f, 2.0f);
      for (std::size_t i = 0; i < a.data.size(); i += 4) {
        const float v = d(rng);
        std::memcpy(a.data.data() + i, &v, 4);
      }
    } else {
      for (std::uint8_t& b : a.data) b = static_cast<std::uint8_t>(rng());
    }
    EXPECT_TRUE(tosa::npy::writeFile(dir_ / name, a));
    return dir_ / name;
  }

  ScratchDir dir_{"graph_vgf_cli"};
  std::string env_;
};

TEST_F(GraphVgfCli, ModelConverterFixtureRunsPassesCheckAndIsLoweredOnce) {
  const std::string model = (kData / "vgf-graph/simple_conv2d_rescale_graph.vgf").string();
  const std::string x = writeNpy("x.npy", tosa::npy::DataType::Uint8, {1, 720, 1280, 4}, 1);
  CommandResult first = runCli("-v run " + model + " --input " + x + " -o " + dir_ / "y.npy" + " --validate --check", env_);
  EXPECT_EQ(first.exitCode, 0) << first.output;
  EXPECT_THAT(first.output, HasSubstr("lowered 1 GRAPH segment run(s) into"));
  EXPECT_THAT(first.output, HasSubstr("check: PASS"));
  auto y = tosa::npy::readFile(dir_ / "y.npy");
  ASSERT_TRUE(y) << y.error().message();
  EXPECT_EQ(y->dtype, tosa::npy::DataType::Uint8);  // the model declares R8_UINT
  EXPECT_EQ(y->shape, (tosa::Shape{1, 720, 1280, 4}));
  CommandResult second = runCli("-v run " + model + " --input " + x + " -o " + dir_ / "y2.npy" + " --check", env_);
  EXPECT_EQ(second.exitCode, 0) << second.output;
  EXPECT_THAT(second.output, HasSubstr("lowered VGF from the cache"));
  EXPECT_THAT(second.output, Not(HasSubstr("GRAPH segment run(s) into")));
  EXPECT_THAT(second.output, HasSubstr("check: PASS"));
}

TEST_F(GraphVgfCli, VulkanSamplesGraphModulesRunAndPassCheck) {
  struct Sample {
    std::string module;
    std::vector<tosa::HostTensor> constants;
    std::uint32_t format;
    tosa::npy::DataType npy;
    tosa::Shape in, out;
  };
  std::mt19937 rng(5);
  auto random = [&](tosa::DType t, tosa::Shape s) {
    tosa::HostTensor h(t, std::move(s));
    for (std::size_t i = 0; i < h.bytes.size(); i += tosa::hostElementBytes(t)) {
      if (t == tosa::DType::Fp32) {
        const float v = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
        std::memcpy(h.bytes.data() + i, &v, 4);
      } else {
        h.bytes[i] = static_cast<std::uint8_t>(std::uniform_int_distribution<int>(-8, 8)(rng));
      }
    }
    return h;
  };
  const std::vector<Sample> samples = {
      {"conv2d", {random(tosa::DType::Fp32, {3, 3, 3, 3}), random(tosa::DType::Fp32, {3})}, format(vgf::VkFormatValue::R32Sfloat),
       tosa::npy::DataType::Float32, {1, 20, 20, 3}, {1, 20, 20, 3}},
      {"conv2d_int8", {random(tosa::DType::Int8, {4, 3, 3, 4})}, format(vgf::VkFormatValue::R8Uint), tosa::npy::DataType::Uint8,
       {1, 720, 1280, 4}, {1, 720, 1280, 4}},
      {"pooling", {}, format(vgf::VkFormatValue::R32Sfloat), tosa::npy::DataType::Float32, {1, 10, 10, 3}, {1, 5, 5, 3}},
  };
  for (const Sample& s : samples) {
    SCOPED_TRACE(s.module);
    GraphVgfSpec spec;
    spec.module = loadSpirv(kData / "vgf-graph" / (s.module + ".spvasm.spv"));
    spec.inputs = {{s.format, s.in, "x"}};
    spec.outputs = {{s.format, s.out, "y"}};
    spec.constants = s.constants;
    const std::string model = writeFile(s.module + ".vgf", writeGraphVgf(spec));
    const std::string x = writeNpy(s.module + "_x.npy", s.npy, s.in, 3);
    CommandResult r = runCli("run " + model + " --input " + x + " -o " + dir_ / (s.module + "_y.npy") + " --validate --check", env_);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("check: PASS"));
  }
}

TEST_F(GraphVgfCli, DynamicShapesAreLoweredOncePerInputShape) {
  const std::uint32_t f32 = format(vgf::VkFormatValue::R32Sfloat);
  GraphVgfSpec spec;
  spec.module = unshapedPoolClamp();
  spec.inputs = {{f32, {kDynamic, kDynamic, kDynamic, kDynamic}, "x"}};
  spec.outputs = {{f32, {kDynamic, kDynamic, kDynamic, kDynamic}, "y"}};
  const std::string model = writeFile("dynamic.vgf", writeGraphVgf(spec));
  const std::string a = writeNpy("a.npy", tosa::npy::DataType::Float32, {1, 8, 6, 2}, 7);
  const std::string b = writeNpy("b.npy", tosa::npy::DataType::Float32, {2, 4, 10, 3}, 8);
  CommandResult r1 = runCli("-v run " + model + " --input " + a + " -o " + dir_ / "ya.npy" + " --validate --check", env_);
  EXPECT_EQ(r1.exitCode, 0) << r1.output;
  EXPECT_THAT(r1.output, HasSubstr("lowered 1 GRAPH segment run(s)"));
  EXPECT_THAT(r1.output, HasSubstr("check: PASS"));
  CommandResult r2 = runCli("-v run " + model + " --input " + b + " -o " + dir_ / "yb.npy" + " --check", env_);
  EXPECT_EQ(r2.exitCode, 0) << r2.output;
  EXPECT_THAT(r2.output, HasSubstr("lowered 1 GRAPH segment run(s)"));
  auto yb = tosa::npy::readFile(dir_ / "yb.npy");
  ASSERT_TRUE(yb) << yb.error().message();
  EXPECT_EQ(yb->shape, (tosa::Shape{2, 2, 5, 3}));
  CommandResult r3 = runCli("-v run " + model + " --input " + a + " -o " + dir_ / "ya2.npy", env_);
  EXPECT_EQ(r3.exitCode, 0) << r3.output;
  EXPECT_THAT(r3.output, HasSubstr("lowered VGF from the cache"));
  // `convert` has no input arrays to fix the dimensions.
  CommandResult c = runCli("convert " + model + " -o " + dir_ / "lowered.vgf", env_);
  EXPECT_EQ(c.exitCode, 2) << c.output;
  EXPECT_THAT(c.output, HasSubstr("input 'x': its shape is dynamic; expected an input array to fix it"));
  EXPECT_FALSE(fs::exists(dir_ / "lowered.vgf"));
}

TEST_F(GraphVgfCli, ConvertToArmGraphInspectAndLowerAgain) {
  const fs::path tosaDir = kData / "tosa/test_conv2d_1x1_1x32x32x8_f32_st11_padSAME_dilat11";
  const std::string tosaModel = (tosaDir / "model.tosa").string();
  const std::string input = (tosaDir / "placeholder_0.npy").string();
  const std::string arm = dir_ / "arm.vgf";
  CommandResult c = runCli("convert " + tosaModel + " --format arm-graph -o " + arm, env_);
  ASSERT_EQ(c.exitCode, 0) << c.output;
  CommandResult i = runCli("inspect " + arm, env_);
  EXPECT_EQ(i.exitCode, 0) << i.output;
  EXPECT_THAT(i.output, HasSubstr("GRAPH 'graph_partition_0' entry 'graph_partition_0'"));
  EXPECT_THAT(i.output, HasSubstr("segments[0] 'graph_segment_0': TOSA graph 'graph_partition_0' (1 inputs, 1 outputs"));
  EXPECT_THAT(i.output, HasSubstr("= CONV2D("));
  EXPECT_THAT(i.output, HasSubstr("= TRANSPOSE("));
  CommandResult l = runCli("convert " + arm + " -o " + dir_ / "ours.vgf" + " --stats", env_);
  ASSERT_EQ(l.exitCode, 0) << l.output;
  EXPECT_THAT(l.output, HasSubstr("GRAPH segment runs:     1"));
  CommandResult r = runCli("run " + dir_ / "ours.vgf" + " --input " + input + " --check " + tosaModel, env_);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("check: PASS"));
  CommandResult self = runCli("run " + arm + " --input " + input + " --check --validate", env_);
  EXPECT_EQ(self.exitCode, 0) << self.output;
  EXPECT_THAT(self.output, HasSubstr("check: PASS"));
  // A COMPUTE VGF carries no graph to check against.
  CommandResult none = runCli("run " + dir_ / "ours.vgf" + " --input " + input + " --check", env_);
  EXPECT_EQ(none.exitCode, 2) << none.output;
  EXPECT_THAT(none.output, HasSubstr("--check: expected MODEL.tosa for a VGF of COMPUTE segments"));
  // --format arm-graph needs a TOSA graph.
  CommandResult twice = runCli("convert " + arm + " --format arm-graph -o " + dir_ / "again.vgf", env_);
  EXPECT_EQ(twice.exitCode, 2) << twice.output;
  EXPECT_FALSE(fs::exists(dir_ / "again.vgf"));
}

TEST_F(GraphVgfCli, InspectListsAGraphModule) {
  CommandResult r = runCli("inspect " + (kData / "vgf-graph/conv2d.spvasm.spv").string());
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("graph 'main': 1 inputs, 1 outputs, 2 graph constants"));
  EXPECT_THAT(r.output, HasSubstr("input 0 '' FP32[1,20,20,3] (set 0 binding 0)"));
  EXPECT_THAT(r.output, HasSubstr("graph constant 0: FP32[3,3,3,3]"));
  EXPECT_THAT(r.output, HasSubstr("CONV2D(%40, graph_constant[0], graph_constant[1], const %34 = [0], const %35 = [0]) : FP32[1,20,20,3]"));
}

TEST_F(GraphVgfCli, BrokenGraphModuleExitsTwoAndWritesNothing) {
  auto words = loadSpirv(kData / "vgf-graph/pooling.spvasm.spv");
  const std::size_t at = findInstructions(words, tosa::spirv::kOpExtInst, 1).at(0);
  words[at + 5] = words[at + 9];  // kernel := the input tensor
  const std::uint32_t f32 = format(vgf::VkFormatValue::R32Sfloat);
  GraphVgfSpec spec;
  spec.module = words;
  spec.inputs = {{f32, {1, 10, 10, 3}, "x"}};
  spec.outputs = {{f32, {1, 5, 5, 3}, "y"}};
  const std::string model = writeFile("broken.vgf", writeGraphVgf(spec));
  const std::string x = writeNpy("x.npy", tosa::npy::DataType::Float32, {1, 10, 10, 3}, 9);
  CommandResult r = runCli("run " + model + " --input " + x + " -o " + dir_ / "y.npy", env_);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr(fmt::format("broken.vgf: modules[0] 'graph': word {} AVG_POOL2D: kernel <id> 37: expected a "
                                              "constant instruction", at)));
  EXPECT_FALSE(fs::exists(dir_ / "y.npy"));
}

}  // namespace
}  // namespace openvgf::testing
