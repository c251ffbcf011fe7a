// SPDX-License-Identifier: Apache-2.0
// The cache folder as untrusted input (issue 33 item 1, docs/limits.md "Caches"), through the
// CLI on the data folder's models: one model's cache entry copied over another's, a flipped
// byte in an entry, two cached SPIR-V modules swapped, a damaged lowered GRAPH VGF, and a
// cache folder other users may write. Every run must give what a run with an empty cache
// folder gives (the independent result), bit for bit, and warn about the entry it rebuilt.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/file_io.h"
#include "tests/support/cli_runner.h"

namespace openvgf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::CommandResult;
namespace fs = std::filesystem;

const std::string kData = std::string(OPENVGF_TEST_DATA) + "/tosa/";
const std::string kAdd = kData + "test_add_1x4x4x4_f32";
const std::string kConv = kData + "test_conv2d_1x1_1x32x32x8_f32_st11_padSAME_dilat11";

class CacheTampering : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("openvgf-cache-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path cache(const std::string& name = "cache") const { return dir_ / name; }
  CommandResult cli(const std::string& arguments, const std::string& cacheName = "cache") const {
    return testing::runCli(arguments, "XDG_CACHE_HOME=" + cache(cacheName).string());
  }
  static std::string inputs(const std::string& model) {
    std::string flags;
    for (const auto& entry : fs::directory_iterator(model)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("placeholder_", 0) == 0) flags += " -i " + entry.path().string();
    }
    return flags;
  }
  // `run` of `model` (a folder of the data set, or a file) into a fresh output folder; its outputs' bytes.
  std::vector<std::vector<std::uint8_t>> run(const std::string& model, const std::string& modelFile,
                                             const std::string& out, const std::string& cacheName = "cache",
                                             std::string* log = nullptr) const {
    CommandResult r = cli("run " + modelFile + inputs(model) + " --output-dir " + (dir_ / out).string(), cacheName);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    if (log != nullptr) *log = r.output;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir_ / out)) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::vector<std::vector<std::uint8_t>> bytes;
    for (const fs::path& f : files) bytes.push_back(readFile(f).value());
    return bytes;
  }
  std::vector<fs::path> entries(const std::string& folder) const {
    std::vector<fs::path> files;
    if (fs::exists(cache() / "openvgf" / folder)) {
      for (const auto& entry : fs::directory_iterator(cache() / "openvgf" / folder)) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
  }
  static void flipByte(const fs::path& file, std::size_t fromEnd) {
    std::vector<std::uint8_t> bytes = readFile(file).value();
    bytes[bytes.size() - 1 - fromEnd] ^= 0x10;
    ASSERT_TRUE(writeFileAtomic(file, std::span<const std::uint8_t>(bytes)));
  }

  fs::path dir_;
};

TEST_F(CacheTampering, AnotherModelsEntryCopiedOverIsRebuiltNotServed) {
  const auto addCold = run(kAdd, kAdd + "/model.tosa", "add-cold", "cold-add");
  const auto convCold = run(kConv, kConv + "/model.tosa", "conv-cold", "cold-conv");
  run(kAdd, kAdd + "/model.tosa", "add-warm");
  const std::vector<fs::path> afterAdd = entries("models");
  ASSERT_EQ(afterAdd.size(), 1u);
  run(kConv, kConv + "/model.tosa", "conv-warm");
  std::vector<fs::path> afterConv = entries("models");
  ASSERT_EQ(afterConv.size(), 2u);
  const fs::path convEntry = afterConv[0] == afterAdd[0] ? afterConv[1] : afterConv[0];
  fs::copy_file(afterAdd[0], convEntry, fs::copy_options::overwrite_existing);

  std::string log;
  EXPECT_EQ(run(kConv, kConv + "/model.tosa", "conv-tampered", "cache", &log), convCold);
  EXPECT_THAT(log, HasSubstr(convEntry.filename().string()));
  EXPECT_THAT(log, HasSubstr("stored under another key"));
  // Rebuilt and overwritten: the next run reads it without a word.
  EXPECT_EQ(run(kConv, kConv + "/model.tosa", "conv-again", "cache", &log), convCold);
  EXPECT_THAT(log, Not(HasSubstr("cache entry ignored")));
  EXPECT_EQ(run(kAdd, kAdd + "/model.tosa", "add-again"), addCold);
}

TEST_F(CacheTampering, FlippedByteInAConvertedModelIsRebuilt) {
  const auto cold = run(kConv, kConv + "/model.tosa", "cold", "cold-cache");
  run(kConv, kConv + "/model.tosa", "warm");
  ASSERT_EQ(entries("models").size(), 1u);
  flipByte(entries("models")[0], 40);  // inside the payload's constants
  std::string log;
  EXPECT_EQ(run(kConv, kConv + "/model.tosa", "tampered", "cache", &log), cold);
  EXPECT_THAT(log, HasSubstr("content hash mismatch"));
}

TEST_F(CacheTampering, SwappedSpirvModulesDoNotChangeWhatConvertWrites) {
  ASSERT_EQ(cli("convert " + kAdd + "/model.tosa -o " + (dir_ / "add-cold.vgf").string(), "cold").exitCode, 0);
  ASSERT_EQ(cli("convert " + kAdd + "/model.tosa -o " + (dir_ / "add.vgf").string()).exitCode, 0);
  ASSERT_EQ(cli("convert " + kConv + "/model.tosa -o " + (dir_ / "conv.vgf").string()).exitCode, 0);
  std::vector<fs::path> spirv = entries("spirv");
  ASSERT_GE(spirv.size(), 2u);
  // Swap every pair, so the ADD's module is certainly one of them.
  for (std::size_t i = 0; i + 1 < spirv.size(); i += 2) {
    fs::rename(spirv[i], dir_ / "swap");
    fs::rename(spirv[i + 1], spirv[i]);
    fs::rename(dir_ / "swap", spirv[i + 1]);
  }
  CommandResult r = cli("convert " + kAdd + "/model.tosa -o " + (dir_ / "add-again.vgf").string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(readFile(dir_ / "add-again.vgf").value(), readFile(dir_ / "add-cold.vgf").value());
  EXPECT_THAT(r.output, HasSubstr("stored under another key"));
}

TEST_F(CacheTampering, DamagedLoweredGraphVgfIsLoweredAgain) {
  const std::string graph = (dir_ / "add-graph.vgf").string();
  ASSERT_EQ(cli("convert --format arm-graph " + kAdd + "/model.tosa -o " + graph).exitCode, 0);
  const auto cold = run(kAdd, graph, "cold", "cold-cache");
  run(kAdd, graph, "warm");
  ASSERT_EQ(entries("lowered").size(), 1u);
  flipByte(entries("lowered")[0], 0);
  std::string log;
  EXPECT_EQ(run(kAdd, graph, "tampered", "cache", &log), cold);
  EXPECT_THAT(log, HasSubstr("cache entry ignored"));
}

TEST_F(CacheTampering, FolderOtherUsersMayWriteIsNotUsed) {
  const auto cold = run(kAdd, kAdd + "/model.tosa", "cold", "cold-cache");
  run(kAdd, kAdd + "/model.tosa", "warm");
  const fs::path models = cache() / "openvgf" / "models";
  ASSERT_EQ(::chmod(models.c_str(), 0777), 0);
  // Whatever another user put there is not read.
  flipByte(entries("models")[0], 40);
  std::string log;
  EXPECT_EQ(run(kAdd, kAdd + "/model.tosa", "shared", "cache", &log), cold);
  EXPECT_THAT(log, HasSubstr("writable by other users"));
  EXPECT_THAT(log, Not(HasSubstr("content hash mismatch")));
}

}  // namespace
}  // namespace openvgf
