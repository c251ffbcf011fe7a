// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect` on VGF files, run as a user would: the text summary, --json with
// vgf_dump's key structure on Arm's four fixtures, --dump-spirv / --dump-constant (read back
// with NumPy), and corrupted files giving exit code 2 with the section and field named.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>

#include "tests/support/cli_runner.h"
#include "common/file_io.h"
#include "vgf/builder.h"

namespace openvgf {
namespace {

using testing::runCli;
using testing::ScratchDir;

std::string fixture(const std::string& name) {
  return std::string(OPENVGF_TEST_DATA) + "/vgf/" + name;
}

std::set<std::string> keysOf(const nlohmann::json& object) {
  std::set<std::string> keys;
  for (auto it = object.begin(); it != object.end(); ++it) keys.insert(it.key());
  return keys;
}

TEST(InspectVgfCli, JsonHasVgfDumpKeyStructure) {
  for (const char* name :
       {"single_maxpool_graph_v0_4_3.vgf", "single_maxpool_graph_pre_v0_4_0.vgf",
        "simple_conv2d_rescale_graph_v0_4_3.vgf", "simple_conv2d_rescale_graph_outdated.vgf"}) {
    SCOPED_TRACE(name);
    testing::CommandResult result = runCli("inspect --json " + fixture(name));
    ASSERT_EQ(result.exitCode, 0) << result.output;
    nlohmann::json json = nlohmann::json::parse(result.output);
    EXPECT_EQ(keysOf(json),
              (std::set<std::string>{"constants", "header", "model_sequence", "modules", "resources"}));
    EXPECT_EQ(keysOf(json["header"]), (std::set<std::string>{"major", "minor", "patch"}));
    EXPECT_EQ(keysOf(json["modules"][0]),
              (std::set<std::string>{"entry_point", "index", "name", "shader_code_available", "shader_type",
                                     "type"}));
    for (const auto& resource : json["resources"]) {
      EXPECT_EQ(keysOf(resource), (std::set<std::string>{"category", "index", "shape", "stride",
                                                         "vk_descriptor_type", "vk_format"}));
    }
    EXPECT_EQ(keysOf(json["model_sequence"]), (std::set<std::string>{"inputs", "outputs", "segments"}));
    const auto& segment = json["model_sequence"]["segments"][0];
    EXPECT_EQ(keysOf(segment),
              (std::set<std::string>{"constants", "descriptor_set_infos", "dispatch_shape", "index", "inputs",
                                     "module_index", "name", "outputs", "push_constant_ranges", "type"}));
    EXPECT_EQ(keysOf(segment["descriptor_set_infos"][0]), (std::set<std::string>{"bindings", "set_index"}));
    EXPECT_EQ(keysOf(segment["inputs"][0]), (std::set<std::string>{"binding", "index", "mrt_index"}));
    EXPECT_EQ(keysOf(json["model_sequence"]["inputs"][0]),
              (std::set<std::string>{"binding", "index", "mrt_index", "name"}));
    EXPECT_EQ(json["modules"][0]["type"], "GRAPH");
    EXPECT_EQ(json["resources"][0]["vk_format"], "VK_FORMAT_R8_SINT");
    EXPECT_EQ(json["resources"][0]["vk_descriptor_type"], "VK_DESCRIPTOR_TYPE_TENSOR_ARM");
  }
  testing::CommandResult conv =
      runCli("inspect --json " + fixture("simple_conv2d_rescale_graph_outdated.vgf"));
  nlohmann::json json = nlohmann::json::parse(conv.output);
  EXPECT_EQ(json["header"], nlohmann::json::parse(R"({"major":0,"minor":3,"patch":0})"));
  EXPECT_EQ(json["constants"],
            nlohmann::json::parse(R"([{"index":0,"mrt_index":2,"sparsity_dimension":-1}])"));
  EXPECT_EQ(json["resources"][2]["vk_descriptor_type"], "none");
  EXPECT_EQ(json["resources"][2]["category"], "CONSTANT");
  EXPECT_EQ(json["resources"][2]["shape"], nlohmann::json::parse("[16,2,2,16]"));
}

TEST(InspectVgfCli, TextSummary) {
  testing::CommandResult result = runCli("inspect " + fixture("simple_conv2d_rescale_graph_v0_4_3.vgf"));
  ASSERT_EQ(result.exitCode, 0) << result.output;
  EXPECT_NE(result.output.find("VGF format 0.4.3"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("input_0 (binding 0, mrt 0, VK_FORMAT_R8_SINT [1,16,16,16])"),
            std::string::npos);
  EXPECT_NE(result.output.find("[2] CONSTANT VK_FORMAT_R8_SINT [16,2,2,16] none"), std::string::npos);
  EXPECT_NE(result.output.find("[0] mrt 2 1024 bytes"), std::string::npos);
  EXPECT_NE(result.output.find("GRAPH 'segment_conv2d_rescale_graph2' module 0 dispatch 0x0x0"),
            std::string::npos);
}

TEST(InspectVgfCli, DumpSpirvAndConstant) {
  ScratchDir dir("inspect_vgf_dump");
  testing::CommandResult spirv = runCli("inspect " + fixture("single_maxpool_graph_v0_4_3.vgf") +
                                        " --dump-spirv 0 -o " + (dir / "m.spv"));
  ASSERT_EQ(spirv.exitCode, 0) << spirv.output;
  EXPECT_EQ(*readFile(dir / "m.spv"), (std::vector<std::uint8_t>{0, 0, 0, 0}));

  std::string vgf = fixture("simple_conv2d_rescale_graph_v0_4_3.vgf");
  testing::CommandResult npy = runCli("inspect " + vgf + " --dump-constant 0 -o " + (dir / "c.npy"));
  ASSERT_EQ(npy.exitCode, 0) << npy.output;
  std::string check =
      std::string(OPENVGF_TEST_PYTHON) +
      " -c \"import numpy as np,sys; a=np.load(sys.argv[1]); print(a.dtype, a.shape, a.nbytes)\" " +
      (dir / "c.npy");
  FILE* pipe = popen(check.c_str(), "r");
  char line[128] = {};
  ASSERT_NE(fgets(line, sizeof(line), pipe), nullptr);
  pclose(pipe);
  EXPECT_EQ(std::string(line), "int8 (16, 2, 2, 16) 1024\n");

  testing::CommandResult raw = runCli("inspect " + vgf + " --dump-constant 0 -o " + (dir / "c.bin"));
  ASSERT_EQ(raw.exitCode, 0) << raw.output;
  std::vector<std::uint8_t> file = *readFile(vgf);
  EXPECT_EQ(*readFile(dir / "c.bin"),
            std::vector<std::uint8_t>(file.begin() + 888, file.begin() + 888 + 1024));

  testing::CommandResult missing = runCli("inspect " + vgf + " --dump-constant 0");
  EXPECT_EQ(missing.exitCode, 2);
  EXPECT_NE(missing.output.find("expected an output file with -o FILE"), std::string::npos);
  testing::CommandResult badIndex = runCli("inspect " + vgf + " --dump-constant 3 -o " + (dir / "x.npy"));
  EXPECT_EQ(badIndex.exitCode, 2);
  EXPECT_NE(badIndex.output.find("--dump-constant: expected a constant index < 1, got 3"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "x.npy"));
}

std::string numpyDescribe(const std::string& path) {
  std::string check =
      std::string(OPENVGF_TEST_PYTHON) +
      " -c \"import numpy as np,sys; a=np.load(sys.argv[1]); print(a.dtype, a.shape, a.ravel().tolist())\" " +
      path;
  FILE* pipe = popen(check.c_str(), "r");
  char line[256] = {};
  if (pipe == nullptr || fgets(line, sizeof(line), pipe) == nullptr) return {};
  pclose(pipe);
  return line;
}

TEST(InspectVgfCli, DumpConstantDtypesAndSizeCheck) {
  ScratchDir dir("inspect_vgf_npy");
  vgf::Builder b;
  vgf::ResourceId ints = b.addResource(vgf::ResourceCategory::Constant, 99, {2, 3});
  std::vector<std::uint8_t> payload;
  for (std::int32_t v : {1, -2, 3, -4, 5, 600000}) {
    for (int i = 0; i < 4; ++i)
      payload.push_back(static_cast<std::uint8_t>(static_cast<std::uint32_t>(v) >> (8 * i)));
  }
  b.addConstant(ints, payload);
  vgf::ResourceId halves = b.addResource(vgf::ResourceCategory::Constant, 76, {2});
  b.addConstant(halves, std::vector<std::uint8_t>{0x00, 0x3C, 0x00, 0xC0});  // 1.0, -2.0
  vgf::ResourceId wrong = b.addResource(vgf::ResourceCategory::Constant, 99, {3});
  b.addConstant(wrong, std::vector<std::uint8_t>{1, 2, 3});
  std::string path = dir / "c.vgf";
  ASSERT_TRUE(writeFileAtomic(path, *b.finish()));
  ASSERT_EQ(runCli("inspect " + path + " --dump-constant 0 -o " + (dir / "i.npy")).exitCode, 0);
  EXPECT_EQ(numpyDescribe(dir / "i.npy"), "int32 (2, 3) [1, -2, 3, -4, 5, 600000]\n");
  ASSERT_EQ(runCli("inspect " + path + " --dump-constant 1 -o " + (dir / "h.npy")).exitCode, 0);
  EXPECT_EQ(numpyDescribe(dir / "h.npy"), "float16 (2,) [1.0, -2.0]\n");
  testing::CommandResult bad = runCli("inspect " + path + " --dump-constant 2 -o " + (dir / "w.npy"));
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.output.find(path + ": constant 2: expected a payload of shape [3] x 4 bytes, got 3 bytes"),
            std::string::npos)
      << bad.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "w.npy"));
}

TEST(InspectVgfCli, CorruptFilesExitWithCode2AndPreciseMessage) {
  ScratchDir dir("inspect_vgf_corrupt");
  std::vector<std::uint8_t> good = *readFile(fixture("simple_conv2d_rescale_graph_v0_4_3.vgf"));
  struct Case {
    std::size_t offset;
    std::uint8_t value;
    std::string message;
  } cases[] = {
      {9, 7, "header: version: expected a format version 0.0 to 0.4, got 0.7.3"},
      {17, 0xFF, "header: module_section.offset: expected at most the file size 1912, got 65408"},
      {41, 0xFF, "header: sequence_section.size: expected at most 1672 (bytes after offset 240), got 65340"},
      {129, 0x7F, "module table: expected a valid ModuleTable flatbuffer"},
      {848 + 16, 1,
       "constant section: constants[0].mrt_index: expected an entry of category CONSTANT, got "
       "mrt_entry[1] of category OUTPUT"},
  };
  for (const Case& c : cases) {
    auto bytes = good;
    bytes[c.offset] = c.value;
    std::string path = dir / "bad.vgf";
    ASSERT_TRUE(writeFileAtomic(path, bytes));
    testing::CommandResult result = runCli("inspect " + path);
    EXPECT_EQ(result.exitCode, 2) << result.output;
    EXPECT_NE(result.output.find(path + ": " + c.message), std::string::npos) << result.output;
  }
  // Truncation at every 16th byte through the CLI.
  for (std::size_t length = 16; length < good.size(); length += 16 * testing::kSanitizerStride) {
    std::string path = dir / "cut.vgf";
    ASSERT_TRUE(writeFileAtomic(path, std::span<const std::uint8_t>(good.data(), length)));
    testing::CommandResult result = runCli("inspect " + path);
    EXPECT_EQ(result.exitCode, 2) << length << result.output;
    EXPECT_NE(result.output.find(path + ": header: "), std::string::npos) << result.output;
  }
}

}  // namespace
}  // namespace openvgf
