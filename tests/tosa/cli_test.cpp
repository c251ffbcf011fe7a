// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect` on .tosa files, run as a user would: the summary of the fixtures, --json,
// and malformed files (each exit code 2 with a message naming the problem).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>

#include "common/file_io.h"
#include "tests/support/cli_runner.h"
#include "tests/tosa/raw_graph.h"
#include "tosa/builder.h"
#include "tosa/writer.h"

using openvgf::testing::CommandResult;
using openvgf::testing::runCli;

namespace openvgf::tosa {
namespace {

namespace fs = std::filesystem;

class TosaCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("openvgf_tosa_cli_{}", ::getpid());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, std::span<const std::uint8_t> bytes) {
    fs::path p = dir_ / name;
    EXPECT_TRUE(writeFileAtomic(p, bytes));
    return p.string();
  }
  std::string write(const std::string& name, const Graph& g) {
    auto bytes = writeGraph(g);
    EXPECT_TRUE(bytes);
    return write(name, *bytes);
  }

  fs::path dir_;
};

std::string fixture(const char* rel) {
  return std::string(OPENVGF_TEST_DATA) + "/tosa/" + rel;
}

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

TEST_F(TosaCli, SummaryOfFixtures) {
  CommandResult r = runCli("inspect " + fixture("test_conv2d_1x1_1x32x32x8_f32_st11_padSAME_dilat11/model.tosa"));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_CONTAINS(r.output, "format 1.1.0 (draft)");
  EXPECT_CONTAINS(r.output, "  TosaInput_0  FP32 [1,32,32,8]");
  EXPECT_CONTAINS(r.output, "  TosaOutput_0  FP32 [1,32,32,16]");
  EXPECT_CONTAINS(r.output, "  CONST                    3");
  EXPECT_CONTAINS(r.output, "constants: 3 tensors, 580 bytes");
  EXPECT_CONTAINS(r.output, "profiles: PRO-FP");
  CommandResult m = runCli("inspect " + fixture("simple_maxpool2d/model.tosa"));
  EXPECT_EQ(m.exitCode, 0);
  EXPECT_CONTAINS(m.output, "profiles: PRO-INT");
}

TEST_F(TosaCli, JsonPrintsTheWholeGraph) {
  CommandResult r = runCli("inspect --json " + fixture("simple_maxpool2d/model.tosa"));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_CONTAINS(r.output, "\"op\": \"MAX_POOL2D\"");
  EXPECT_CONTAINS(r.output, "\"nan_mode\": \"PROPAGATE\"");
  EXPECT_CONTAINS(r.output, "\"location\": \"loc(unknown)\"");
}

TEST_F(TosaCli, MalformedFilesExitWithCode2) {
  auto bytes = readFile(fixture("test_add_1x4x4x4_f32/model.tosa"));
  ASSERT_TRUE(bytes);
  std::vector<std::uint8_t> cut(bytes->begin(), bytes->begin() + 300);
  CommandResult truncated = runCli("inspect " + write("cut.tosa", cut));
  EXPECT_EQ(truncated.exitCode, 2);
  EXPECT_CONTAINS(truncated.output, "cut.tosa: expected a valid TOSA flatbuffer");

  std::vector<RawTensor> shortData = {{"w", {4, 4}, 5, std::vector<std::uint8_t>(8, 0)}};
  CommandResult s = runCli("inspect " + write("short.tosa", rawGraph(1, 0, 67, shortData)));
  EXPECT_EQ(s.exitCode, 2);
  EXPECT_CONTAINS(s.output, "tensors 'w': data: expected 64 bytes for shape [4,4] of INT32, got 8 bytes");

  // Issue 33 item 8: bytes past the shape, and values both inline and in an external range.
  std::vector<RawTensor> longData = {{"w", {3}, 5, std::vector<std::uint8_t>(20, 0)}};
  CommandResult l = runCli("inspect " + write("long.tosa", rawGraph(1, 0, 67, longData)));
  EXPECT_EQ(l.exitCode, 2);
  EXPECT_CONTAINS(l.output, "tensors 'w': data: expected 12 bytes for shape [3] of INT32 (with padding to "
                            "8 bytes, at most 16), got 20 bytes (data longer than shape)");
  EXPECT_CONTAINS(l.output, "long.tosa");
  std::vector<RawTensor> padded = {{"w", {3}, 5, std::vector<std::uint8_t>(16, 0)}};
  EXPECT_EQ(runCli("inspect " + write("padded.tosa", rawGraph(1, 0, 67, padded))).exitCode, 0);
  std::vector<RawTensor> both = {{"w", {2}, 5, std::vector<std::uint8_t>(8, 0), 16, 8}};
  CommandResult b = runCli("inspect " + write("both.tosa", rawGraph(1, 0, 67, both)));
  EXPECT_EQ(b.exitCode, 2);
  EXPECT_CONTAINS(b.output, "tensors 'w': data and offset/size: expected the values inline or in an "
                            "external range, got both");
  EXPECT_CONTAINS(b.output, "both.tosa");

  std::vector<RawTensor> t = {{"x", {1}, 5, {}}};
  CommandResult op = runCli("inspect " + write("op.tosa", rawGraph(1, 0, 123, t)));
  EXPECT_EQ(op.exitCode, 2);
  EXPECT_CONTAINS(op.output, "op: expected a TOSA 1.0 operator number 1..75, got 123");

  CommandResult old = runCli("inspect " + write("old.tosa", rawGraph(0, 80, 1, t)));
  EXPECT_EQ(old.exitCode, 2);
  EXPECT_CONTAINS(old.output, "pre-1.0 (0.x) file");

  std::vector<std::uint8_t> wrongId = *bytes;
  std::memcpy(wrongId.data() + 4, "TOSX", 4);
  CommandResult id = runCli("inspect " + write("id.tosa", wrongId));
  EXPECT_EQ(id.exitCode, 2);
  EXPECT_CONTAINS(id.output, "unrecognised file");
}

TEST_F(TosaCli, InvalidGraphsExitWithCode2) {
  auto graph = [] {
    Builder b;
    Value x = b.input("x", DType::Fp32, {2, 3});
    Value a = b.add(x, x, "a");
    b.output(b.mul(a, x, 0, "m"));
    return b.build().value();
  };
  Graph undefined = graph();
  undefined.mainBlock()->operators.back().inputs[1] = "ghost";
  CommandResult u = runCli("inspect " + write("undefined.tosa", undefined));
  EXPECT_EQ(u.exitCode, 2);
  EXPECT_CONTAINS(
      u.output,
      "undefined.tosa: regions[0].blocks[0] 'main': operators[2] MUL: input 'ghost': undefined tensor");

  Graph cycle = graph();
  cycle.mainBlock()->operators[0].inputs[1] = "m";
  CommandResult c = runCli("inspect " + write("cycle.tosa", cycle));
  EXPECT_EQ(c.exitCode, 2);
  EXPECT_CONTAINS(c.output, "part of a cycle");

  Graph mismatch = graph();
  mismatch.mainBlock()->findTensor("a")->dtype = DType::Int32;
  CommandResult t = runCli("inspect " + write("types.tosa", mismatch));
  EXPECT_EQ(t.exitCode, 2);
  EXPECT_CONTAINS(t.output, "operators[0] ADD: output 'a': expected type FP32, got INT32");
}

}  // namespace
}  // namespace openvgf::tosa
