// SPDX-License-Identifier: Apache-2.0
// vgf_dump-shaped JSON of Arm's max-pool fixture (expected document written by hand from
// the vgf_dump key list in specs/vgf.md §2), and .npy export of a constant read back with
// NumPy.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/file_io.h"
#include "vgf/builder.h"
#include "vgf/decoder.h"
#include "vgf/json.h"
#include "vgf/npy_export.h"

namespace openvgf::vgf {
namespace {

TEST(VgfJson, MaxpoolFixtureMatchesVgfDumpStructure) {
  std::vector<std::uint8_t> bytes = *readFile(std::string(OPENVGF_TEST_DATA) + "/vgf/single_maxpool_graph_v0_4_3.vgf");
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

TEST(VgfNpy, ConstantReadsBackWithNumpy) {
  Builder b;
  ResourceId k = b.addResource(ResourceCategory::Constant, 99, {2, 3});
  std::vector<std::uint8_t> payload;
  for (std::int32_t v : {1, -2, 3, -4, 5, 600000}) {
    for (int i = 0; i < 4; ++i) payload.push_back(static_cast<std::uint8_t>(static_cast<std::uint32_t>(v) >> (8 * i)));
  }
  b.addConstant(k, payload);
  Result<std::vector<std::uint8_t>> npy = constantToNpy(b.file(), 0);
  ASSERT_TRUE(npy) << npy.error().message();
  EXPECT_EQ(npy->size() % 64, 24u % 64);  // 64-byte aligned header then 24 data bytes
  std::filesystem::path path = std::filesystem::temp_directory_path() / "openvgf_vgf_npy_test.npy";
  ASSERT_TRUE(writeFileAtomic(path, *npy));
  std::string command = std::string(OPENVGF_TEST_PYTHON) +
                        " -c \"import numpy as np,sys; a=np.load(sys.argv[1]); print(a.dtype, a.shape, a.ravel().tolist())\" " +
                        path.string();
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char line[256] = {};
  ASSERT_NE(fgets(line, sizeof(line), pipe), nullptr);
  pclose(pipe);
  std::filesystem::remove(path);
  EXPECT_EQ(std::string(line), "int32 (2, 3) [1, -2, 3, -4, 5, 600000]\n");
}

TEST(VgfNpy, SizeMismatchAndBadIndex) {
  Builder b;
  ResourceId k = b.addResource(ResourceCategory::Constant, 99, {3});
  b.addConstant(k, std::vector<std::uint8_t>{1, 2, 3});
  EXPECT_EQ(constantToNpy(b.file(), 0).error().message(),
            "constant 0: expected 12 bytes for shape [3,] of VK_FORMAT_R32_SINT, got 3");
  EXPECT_EQ(constantToNpy(b.file(), 4).error().message(), "constant 4: expected an index < 1 (constant count), got 4");
}

}  // namespace
}  // namespace openvgf::vgf
