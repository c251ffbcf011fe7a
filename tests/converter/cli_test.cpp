// SPDX-License-Identifier: Apache-2.0
// `openvgf convert` and `openvgf run --check` as a user runs them: exit codes, messages,
// --stats, and no output file left behind on failure.
#include <cstdio>
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tosa/builder.h"

namespace openvgf::testing {
namespace {

namespace fs = std::filesystem;
const fs::path kData = OPENVGF_TEST_DATA;

struct CliRun {
  int code = -1;
  std::string output;
};

CliRun runCli(const std::string& args) {
  CliRun r;
  std::string command = std::string(OPENVGF_CLI) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) r.output += buffer;
  int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

fs::path tempDir() {
  fs::path dir = fs::temp_directory_path() / "openvgf-convert-cli-test";
  fs::create_directories(dir);
  return dir;
}

TEST(ConvertCli, ConvertsAndPrintsStats) {
  const fs::path out = tempDir() / "add.vgf";
  fs::remove(out);
  CliRun r = runCli(fmt::format("convert {} -o {} --stats", (kData / "tosa/test_add_1x4x4x4_f32/model.tosa").string(), out.string()));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out));
  for (const char* key : {"kernels:", "unique modules:", "peak live bytes:", "sum without aliasing:", "constant bytes:"}) {
    EXPECT_NE(r.output.find(key), std::string::npos) << key << "\n" << r.output;
  }
}

TEST(ConvertCli, RunCheckPassesOnFixture) {
  const fs::path dir = kData / "tosa/test_conv2d_1x1_1x32x32x8_f32_st11_padSAME_dilat11";
  const fs::path out = tempDir() / "conv.vgf";
  CliRun c = runCli(fmt::format("convert {} -o {} --no-cache", (dir / "model.tosa").string(), out.string()));
  ASSERT_EQ(c.code, 0) << c.output;
  CliRun r = runCli(fmt::format("run {} -i {} --check {}", out.string(), (dir / "placeholder_0.npy").string(),
                             (dir / "model.tosa").string()));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("TosaOutput_0: PASS"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("check: PASS"), std::string::npos) << r.output;
}

TEST(ConvertCli, BadInputExitsTwoWithoutOutput) {
  const fs::path bad = tempDir() / "garbage.tosa";
  {
    FILE* f = std::fopen(bad.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("this is not a flatbuffer", f);
    std::fclose(f);
  }
  const fs::path out = tempDir() / "garbage.vgf";
  fs::remove(out);
  CliRun r = runCli(fmt::format("convert {} -o {}", bad.string(), out.string()));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST(ConvertCli, UnsupportedOperatorNamesItAndExitsTwo) {
  tosa::Builder b;
  tosa::Value x = b.input("x", tosa::DType::Fp32, {4});
  auto outs = b.custom({x}, tosa::CustomAttrs{"my_op", "my_domain", {}}, {{tosa::DType::Fp32, {4}, "y"}});
  b.output(outs[0]);
  const fs::path model = tempDir() / "custom.tosa";
  ASSERT_TRUE(b.write(model));
  const fs::path out = tempDir() / "custom.vgf";
  fs::remove(out);
  CliRun r = runCli(fmt::format("convert {} -o {}", model.string(), out.string()));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("operators[0] CUSTOM (FP32 -> FP32)"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace openvgf::testing
