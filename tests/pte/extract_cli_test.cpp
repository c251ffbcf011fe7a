// SPDX-License-Identifier: Apache-2.0
// `openvgf extract` and `openvgf inspect` on .pte programs built in this test, run as a
// user would: byte-exact payload files with the documented names, a correct manifest
// (offsets and sizes from the test writer, SHA-256 from Python's hashlib), --plan and
// --delegate selection, and exit code 2 with a precise message for broken programs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"
#include "common/file_io.h"
#include "ethosu/vela_bin_stream.h"
#include "pte_writer.h"
#include "vgf/builder.h"

namespace openvgf::pte {
namespace {

using openvgf::testing::runCli;
using openvgf::testing::ScratchDir;
using testing::TestProgram;

std::vector<std::uint8_t> sampleVgf() {
  vgf::Builder b;
  vgf::ModuleId m = b.addModule("mul", "main", {0x07230203u, 5, 6});
  vgf::ResourceId in = b.addResource(vgf::ResourceCategory::Input, 99, {8});
  vgf::ResourceId out = b.addResource(vgf::ResourceCategory::Output, 99, {8});
  b.addSegment("mul", m, {vgf::DescriptorSet{vgf::kUnset, {{0, in}, {1, out}}}}, {{0, in}}, {{1, out}}, {},
               {1, 1, 1});
  b.setInputs({{0, in}}, {"a"});
  b.setOutputs({{1, out}}, {"b"});
  return *b.finish();
}

std::vector<std::uint8_t> sampleVela() {
  std::vector<std::uint8_t> cmd = {'C', 'O', 'P', '1', 1, 0, 16, 0};
  std::vector<std::uint8_t> weights(33, 0x11);
  return *ethosu::makeVelaBinStream(cmd, weights, 512, {ethosu::VelaIo{{1, 1, 1, 1, 2, 2}, 1, 0, 1}},
                                    {ethosu::VelaIo{{1, 1, 1, 1, 1, 2}, 1, 16, 1}});
}

TestProgram sampleProgram() {
  TestProgram spec;
  spec.payloads = {sampleVgf(), sampleVela(), {9, 8, 7}};
  spec.plans = {{"forward",
                 {{"VgfBackend", 0, {{"output_format", "vgf"}}},
                  {"EthosUBackend", 1, {{"output_format", "vela"}}},
                  {"QnnBackend", 2, {}}}},
                {"method/2", {{"VgfBackend", 0, {}}}}};
  return spec;
}

std::string pythonSha256(const std::string& path) {
  std::string command =
      std::string(OPENVGF_TEST_PYTHON) +
      " -c \"import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest())\" " + path;
  FILE* pipe = popen(command.c_str(), "r");
  char line[128] = {};
  if (pipe == nullptr || fgets(line, sizeof(line), pipe) == nullptr) return {};
  pclose(pipe);
  std::string out(line);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

void checkExtraction(const TestProgram& spec, const std::string& name) {
  ScratchDir dir(name);
  testing::WrittenProgram written = testing::writeProgram(spec);
  std::string pte = dir / "model.pte";
  ASSERT_TRUE(writeFileAtomic(pte, written.bytes));
  std::string out = dir / "out";
  openvgf::testing::CommandResult result = runCli("extract " + pte + " -o " + out);
  ASSERT_EQ(result.exitCode, 0) << result.output;

  struct Expected {
    std::string file, plan, backend;
    std::size_t planIndex, index, payload;
    std::string kind;
  } expected[] = {
      {"forward_0_VgfBackend.vgf", "forward", "VgfBackend", 0, 0, 0, "vgf"},
      {"forward_1_EthosUBackend.ethosu.bin", "forward", "EthosUBackend", 0, 1, 1, "vela_bin_stream"},
      {"forward_2_QnnBackend.bin", "forward", "QnnBackend", 0, 2, 2, "raw"},
      {"method_2_0_VgfBackend.vgf", "method/2", "VgfBackend", 1, 0, 0, "vgf"},
  };
  nlohmann::json manifest = nlohmann::json::parse(*readFile(out + "/manifest.json"));
  EXPECT_EQ(manifest["source"], pte);
  ASSERT_EQ(manifest["delegates"].size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    const Expected& e = expected[i];
    SCOPED_TRACE(e.file);
    std::string path = out + "/" + e.file;
    Result<std::vector<std::uint8_t>> bytes = readFile(path);
    ASSERT_TRUE(bytes);
    EXPECT_EQ(*bytes, spec.payloads[e.payload]);  // byte-identical
    const nlohmann::json& entry = manifest["delegates"][i];
    EXPECT_EQ(entry["file"], e.file);
    EXPECT_EQ(entry["plan"], e.plan);
    EXPECT_EQ(entry["plan_index"], e.planIndex);
    EXPECT_EQ(entry["index"], e.index);
    EXPECT_EQ(entry["backend_id"], e.backend);
    EXPECT_EQ(entry["location"], spec.segments ? "SEGMENT" : "INLINE");
    EXPECT_EQ(entry["data_index"], e.payload);
    EXPECT_EQ(entry["offset"], written.payloadOffsets[e.payload]);
    EXPECT_EQ(entry["size"], spec.payloads[e.payload].size());
    EXPECT_EQ(entry["payload_kind"], e.kind);
    EXPECT_EQ(entry["sha256"], pythonSha256(path));
    EXPECT_FALSE(entry.contains("problem"));
  }
  // The extracted VGF is a valid VGF for the CLI too.
  openvgf::testing::CommandResult inspect = runCli("inspect " + out + "/forward_0_VgfBackend.vgf");
  EXPECT_EQ(inspect.exitCode, 0) << inspect.output;
}

TEST(ExtractCli, InlinePayloads) {
  checkExtraction(sampleProgram(), "extract_inline");
}

TEST(ExtractCli, SegmentPayloadsWithHeader) {
  TestProgram spec = sampleProgram();
  spec.segments = true;
  spec.headerLength = 32;
  checkExtraction(spec, "extract_segment");
  spec.headerLength = 24;
  checkExtraction(spec, "extract_segment24");
}

TEST(ExtractCli, PlanAndDelegateSelection) {
  ScratchDir dir("extract_select");
  std::string pte = dir / "model.pte";
  TestProgram spec = sampleProgram();
  ASSERT_TRUE(writeFileAtomic(pte, testing::writeProgram(spec).bytes));
  openvgf::testing::CommandResult result =
      runCli("extract " + pte + " -o " + (dir / "a") + " --plan forward --delegate 1");
  ASSERT_EQ(result.exitCode, 0) << result.output;
  nlohmann::json manifest = nlohmann::json::parse(*readFile(dir / "a/manifest.json"));
  ASSERT_EQ(manifest["delegates"].size(), 1u);
  EXPECT_EQ(manifest["delegates"][0]["file"], "forward_1_EthosUBackend.ethosu.bin");
  EXPECT_FALSE(std::filesystem::exists(dir / "a/forward_0_VgfBackend.vgf"));
  EXPECT_EQ(*readFile(dir / "a/forward_1_EthosUBackend.ethosu.bin"), spec.payloads[1]);

  result = runCli("extract " + pte + " -o " + (dir / "b") + " --plan 1");
  ASSERT_EQ(result.exitCode, 0) << result.output;
  EXPECT_EQ(nlohmann::json::parse(*readFile(dir / "b/manifest.json"))["delegates"].size(), 1u);

  result = runCli("extract " + pte + " -o " + (dir / "c") + " --plan nope");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.output.find("--plan: expected a plan name or index ('forward', 'method/2'), got 'nope'"),
            std::string::npos)
      << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "c"));
  result = runCli("extract " + pte + " -o " + (dir / "d") + " --delegate 5");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.output.find("--delegate: expected a delegate index that exists"), std::string::npos);
}

TEST(ExtractCli, AFailingExtractLeavesNoManifestAndNoTemporaryFolder) {
  ScratchDir dir("extract_fail");
  std::string pte = dir / "model.pte";
  ASSERT_TRUE(writeFileAtomic(pte, testing::writeProgram(sampleProgram()).bytes));
  // The third payload's name is taken by a folder, so moving it into place fails after the
  // first two: the manifest, written last, must not appear.
  std::filesystem::create_directories(dir / "out/forward_2_QnnBackend.bin");
  openvgf::testing::CommandResult result = runCli("extract " + pte + " -o " + (dir / "out"));
  EXPECT_EQ(result.exitCode, 1) << result.output;
  EXPECT_NE(result.output.find("forward_2_QnnBackend.bin"), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "out/manifest.json"));
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) left.push_back(entry.path().filename());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"model.pte", "out"}));  // no temporary folder beside it
  // An output path that is a file is refused before anything is read.
  result = runCli("extract " + pte + " -o " + pte);
  EXPECT_EQ(result.exitCode, 2) << result.output;
  EXPECT_NE(result.output.find("expected a folder, got a file"), std::string::npos) << result.output;
}

TEST(InspectPteCli, SummaryAndJson) {
  ScratchDir dir("inspect_pte");
  std::string pte = dir / "model.pte";
  ASSERT_TRUE(writeFileAtomic(pte, testing::writeProgram(sampleProgram()).bytes));
  openvgf::testing::CommandResult text = runCli("inspect " + pte);
  ASSERT_EQ(text.exitCode, 0) << text.output;
  EXPECT_NE(text.output.find("delegate [1] EthosUBackend: INLINE index 1"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("command stream COP1 (8 bytes), weights 33 bytes, scratch 512 bytes"),
            std::string::npos);
  EXPECT_NE(text.output.find("spec output_format = vgf"), std::string::npos);
  EXPECT_NE(text.output.find("VGF format 0.4.3"), std::string::npos);
  EXPECT_NE(text.output.find("inputs:  a (binding 0, mrt 0, VK_FORMAT_R32_SINT [8])"), std::string::npos);
  openvgf::testing::CommandResult json = runCli("inspect --json " + pte);
  ASSERT_EQ(json.exitCode, 0) << json.output;
  nlohmann::json doc = nlohmann::json::parse(json.output);
  EXPECT_EQ(doc["execution_plans"][0]["delegates"][0]["vgf"]["model_sequence"]["inputs"][0]["name"], "a");
  EXPECT_EQ(doc["execution_plans"][0]["delegates"][1]["vela_bin_stream"]["scratch_size"], 512);
  EXPECT_EQ(doc["execution_plans"][1]["name"], "method/2");
}

TEST(InspectPteCli, BrokenProgramsExitWithCode2) {
  ScratchDir dir("pte_broken");
  std::string pte = dir / "model.pte";
  TestProgram spec = sampleProgram();
  spec.segments = true;
  spec.headerLength = 32;
  std::vector<std::uint8_t> good = testing::writeProgram(spec).bytes;
  auto bytes = good;
  testing::putLe<std::uint32_t>(bytes, 12, 8);
  ASSERT_TRUE(writeFileAtomic(pte, bytes));
  for (const char* command : {"inspect ", "extract "}) {
    std::string extra = std::string(command) == "extract " ? " -o " + (dir / "out") : "";
    openvgf::testing::CommandResult result = runCli(command + pte + extra);
    EXPECT_EQ(result.exitCode, 2) << result.output;
    EXPECT_NE(result.output.find(pte + ": extended header: length: expected at least 24, got 8"),
              std::string::npos)
        << result.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
  for (std::size_t length = 16; length < good.size(); length += 16 * openvgf::testing::kSanitizerStride) {
    ASSERT_TRUE(writeFileAtomic(pte, std::span<const std::uint8_t>(good.data(), length)));
    openvgf::testing::CommandResult result = runCli("inspect " + pte);
    EXPECT_EQ(result.exitCode, 2) << length << result.output;
    EXPECT_NE(result.output.find("openvgf: error: " + pte + ": "), std::string::npos) << result.output;
  }
  // An invalid VGF payload: inspect fails naming the delegate; extract still writes the bytes.
  TestProgram broken = sampleProgram();
  broken.payloads[0].resize(300);
  ASSERT_TRUE(writeFileAtomic(pte, testing::writeProgram(broken).bytes));
  openvgf::testing::CommandResult result = runCli("inspect " + pte);
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(
      result.output.find(pte + ": execution_plan[0] 'forward': delegates[0] (VgfBackend): payload: header: "),
      std::string::npos)
      << result.output;
  result = runCli("extract " + pte + " -o " + (dir / "x"));
  EXPECT_EQ(result.exitCode, 0) << result.output;
  EXPECT_EQ(*readFile(dir / "x/forward_0_VgfBackend.vgf"), broken.payloads[0]);
  nlohmann::json manifest = nlohmann::json::parse(*readFile(dir / "x/manifest.json"));
  EXPECT_TRUE(manifest["delegates"][0].contains("problem"));
}

}  // namespace
}  // namespace openvgf::pte
