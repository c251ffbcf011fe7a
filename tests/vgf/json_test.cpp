// SPDX-License-Identifier: Apache-2.0
// vgf_dump-shaped JSON of Arm's max-pool fixture (expected document written by hand from
// the vgf_dump key list in specs/vgf.md §2).
#include "vgf/json.h"

#include <gtest/gtest.h>

#include "common/file_io.h"
#include "vgf/builder.h"
#include "vgf/decoder.h"

namespace openvgf::vgf {
namespace {

TEST(VgfJson, MaxpoolFixtureMatchesVgfDumpStructure) {
  std::vector<std::uint8_t> bytes =
      *readFile(std::string(OPENVGF_TEST_DATA) + "/vgf/single_maxpool_graph_v0_4_3.vgf");
  Result<File> file = decode(bytes);
  ASSERT_TRUE(file);
  nlohmann::json expected = nlohmann::json::parse(R"({
    "header": {"major": 0, "minor": 4, "patch": 3},
    "modules": [{"index": 0, "type": "GRAPH", "name": "single_maxpool", "entry_point": "main",
                 "shader_type": "SPIR-V", "shader_code_available": true}],
    "resources": [
      {"index": 0, "category": "INPUT", "vk_descriptor_type": "VK_DESCRIPTOR_TYPE_TENSOR_ARM",
       "vk_format": "VK_FORMAT_R8_SINT", "shape": [1, 16, 16, 16], "stride": []},
      {"index": 1, "category": "OUTPUT", "vk_descriptor_type": "VK_DESCRIPTOR_TYPE_TENSOR_ARM",
       "vk_format": "VK_FORMAT_R8_SINT", "shape": [1, 8, 8, 16], "stride": []}],
    "model_sequence": {
      "segments": [{"index": 0, "type": "GRAPH", "module_index": 0, "name": "segment_maxpool_graph1",
                    "inputs": [{"index": 0, "binding": 0, "mrt_index": 0}],
                    "outputs": [{"index": 0, "binding": 1, "mrt_index": 1}],
                    "descriptor_set_infos": [{"set_index": 0, "bindings": [
                        {"index": 0, "binding": 0, "mrt_index": 0}, {"index": 1, "binding": 1, "mrt_index": 1}]}],
                    "push_constant_ranges": [], "constants": [], "dispatch_shape": [0, 0, 0]}],
      "inputs": [{"index": 0, "name": "input_0", "binding": 0, "mrt_index": 0}],
      "outputs": [{"index": 0, "name": "output_0", "binding": 1, "mrt_index": 1}]},
    "constants": []
  })");
  EXPECT_EQ(toJson(*file), expected) << toJson(*file).dump(4);
}

TEST(VgfJson, OptionalKeys) {
  Builder b;
  ResourceId r = b.addResource(ResourceCategory::Intermediate, 100, {2}, 7, 1);
  b.setSampler(r, SamplerConfig{1, 0, 2, 2, 3});
  nlohmann::json json = toJson(b.file());
  EXPECT_EQ(json["resources"][0]["alias_group_id"], 7);
  EXPECT_EQ(json["resources"][0]["sampler_config"]["border_color"], 3);
  EXPECT_EQ(json["resources"][0]["vk_descriptor_type"], "VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER");
}

}  // namespace
}  // namespace openvgf::vgf
