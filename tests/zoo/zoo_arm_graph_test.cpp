// SPDX-License-Identifier: Apache-2.0
// Every model of the zoo (small resolution) written as an Arm-style GRAPH VGF (`convert
// --format arm-graph`), decoded and lowered, gets exactly the kernels (SPIR-V modules and
// dispatch grids, in order) that converting its .tosa gives: the GRAPH path runs the same
// fused, tiled kernels. The int8 CNNs are also run both ways on lavapipe and must agree bit for
// bit.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "benchmarks/models/zoo.h"
#include "common/sha256.h"
#include "converter/arm_graph_vgf.h"
#include "converter/lower_vgf.h"
#include "tests/converter/run_util.h"
#include "vgf/decoder.h"

namespace openvgf::benchmarks {
namespace {

converter::LowerOptions lowerOptions() {
  converter::LowerOptions o;
  o.useCache = false;
  o.convert.cacheDir = std::filesystem::temp_directory_path() / "openvgf-converter-test-cache";
  return o;
}

std::vector<std::string> kernels(const vgf::File& file) {
  std::vector<std::string> out;
  for (const vgf::Segment& s : file.segments) {
    const vgf::Module& m = file.modules[s.moduleIndex];
    std::span<const std::uint8_t> code(reinterpret_cast<const std::uint8_t*>(m.spirv.data()), m.spirv.size_bytes());
    const auto d = s.dispatchShape.value_or(std::array<std::uint32_t, 3>{0, 0, 0});
    out.push_back(fmt::format("{} {}x{}x{}", sha256Hex(code), d[0], d[1], d[2]));
  }
  return out;
}

TEST(ZooArmGraph, EveryModelLowersToTheKernelsOfItsTosa) {
  ZooOptions options;
  options.batch = 1;
  options.resolution = 32;
  for (const ModelInfo& info : zooModels()) {
    SCOPED_TRACE(info.name);
    auto graph = info.build(options).graph();
    ASSERT_TRUE(graph) << graph.error().message();
    auto direct = converter::convert(*graph, lowerOptions().convert);
    ASSERT_TRUE(direct) << direct.error().message();
    auto arm = converter::writeArmGraphVgf(*graph);
    ASSERT_TRUE(arm) << arm.error().message();
    auto armFile = vgf::decode(*arm);
    ASSERT_TRUE(armFile) << armFile.error().message();
    ASSERT_EQ(armFile->segments.size(), 1u);
    EXPECT_EQ(armFile->segments[0].type, vgf::ModuleType::Graph);
    auto lowered = converter::lowerGraphSegments(*arm, *armFile, {}, info.name + ".vgf", lowerOptions());
    ASSERT_TRUE(lowered) << lowered.error().message();
    auto directFile = vgf::decode(direct->vgf);
    auto loweredFile = vgf::decode(lowered->vgf);
    ASSERT_TRUE(directFile && loweredFile);
    EXPECT_EQ(kernels(*loweredFile), kernels(*directFile));
    if (info.name.ends_with("_int8")) {
      std::vector<tosa::HostTensor> inputs;
      const tosa::Block& block = *graph->mainBlock();
      for (std::size_t i = 0; i < block.inputs.size(); ++i) {
        const tosa::Tensor* t = block.findTensor(block.inputs[i]);
        inputs.push_back(deterministicInput(t->shape, t->dtype, 1000 + i));
      }
      auto a = testing::runOnDevice(*directFile, inputs);
      if (!a && a.error().kind() == ErrorKind::Environment) GTEST_SKIP() << a.error().message();
      ASSERT_TRUE(a) << a.error().message();
      auto b = testing::runOnDevice(*loweredFile, inputs);
      ASSERT_TRUE(b) << b.error().message();
      ASSERT_EQ(a->size(), b->size());
      for (std::size_t o = 0; o < a->size(); ++o) EXPECT_TRUE((*a)[o] == (*b)[o]) << "output " << o;
    }
  }
}

}  // namespace
}  // namespace openvgf::benchmarks
