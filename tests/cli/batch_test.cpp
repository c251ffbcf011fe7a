// SPDX-License-Identifier: Apache-2.0
// `openvgf batch` (issue 34 item 1) as a user runs it, on lavapipe: a folder of 50 inputs with
// one corrupt .npy gives 49 outputs equal to the sums computed here, names the bad one with its
// error and exits non-zero; a re-run skips the 49 without rewriting them; folders of named
// inputs for a model of two inputs and two outputs; device selection and usage errors; and
// `openvgf bench --devices`, which times the same pool on each device alone and together.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "tests/support/cli_runner.h"
#include "tosa/builder.h"
#include "tosa/npy.h"

namespace openvgf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::CommandResult;
using testing::runCli;
namespace fs = std::filesystem;

const std::vector<std::int32_t> kBias{10, 20, 30, 40};

class Batch : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("openvgf-batch-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "cache");
    env_ = "XDG_CACHE_HOME=" + (dir_ / "cache").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  CommandResult run(const std::string& arguments) const { return runCli(arguments, env_); }

  // y = x + [10, 20, 30, 40], x int32 [4].
  std::string writeBiasModel() const {
    tosa::Builder b;
    tosa::Value x = b.input("x", tosa::DType::Int32, {4});
    b.output(b.add(x, b.constant(tosa::DType::Int32, {4}, kBias), "y"));
    EXPECT_TRUE(b.write(dir_ / "bias.tosa"));
    return path("bias.tosa");
  }

  void writeInts(const std::string& name, const std::vector<std::int32_t>& values) const {
    tosa::HostTensor t(tosa::DType::Int32, {static_cast<std::int64_t>(values.size())});
    for (std::size_t i = 0; i < values.size(); ++i) t.as<std::int32_t>()[i] = values[i];
    fs::create_directories((dir_ / name).parent_path());
    EXPECT_TRUE(tosa::npy::writeTensor(dir_ / name, t));
  }

  std::vector<std::int32_t> readInts(const std::string& name) const {
    Result<tosa::HostTensor> t = tosa::npy::readTensor(dir_ / name, tosa::DType::Int32);
    EXPECT_TRUE(t) << t.error().message();
    if (!t) return {};
    return {t->as<std::int32_t>().begin(), t->as<std::int32_t>().end()};
  }

  fs::path dir_;
  std::string env_;
};

std::vector<std::int32_t> itemValues(int i) { return {i, -i, 2 * i, 1000 + i}; }

std::string itemName(int i) { return (i < 10 ? "item0" : "item") + std::to_string(i); }

// (device, inode) of a file: a rewrite through temp + rename changes the inode.
std::pair<dev_t, ino_t> identity(const fs::path& file) {
  struct stat s {};
  EXPECT_EQ(::stat(file.c_str(), &s), 0) << file;
  return {s.st_dev, s.st_ino};
}

TEST_F(Batch, FiftyItemsWithOneCorruptThenAResumeSkipsTheRest) {
  const std::string model = writeBiasModel();
  for (int i = 0; i < 50; ++i) writeInts("in/" + itemName(i) + ".npy", itemValues(i));
  // item17 loses the last element's bytes: a header that promises more data than the file has.
  const fs::path bad = dir_ / "in/item17.npy";
  fs::resize_file(bad, fs::file_size(bad) - 4);

  const std::string command = "batch " + model + " " + path("in") + " -o " + path("out") + " --devices all --jobs 3";
  CommandResult first = run(command);
  EXPECT_EQ(first.exitCode, 2) << first.output;
  EXPECT_THAT(first.output, HasSubstr("batch: item 'item17' (" + bad.string() + ") failed: " + bad.string()));
  EXPECT_THAT(first.output, HasSubstr("batch: 49 done, 1 failed, 0 skipped ("));
  std::vector<std::pair<dev_t, ino_t>> written;
  for (int i = 0; i < 50; ++i) {
    const std::string out = "out/" + itemName(i) + ".npy";
    if (i == 17) {
      EXPECT_FALSE(fs::exists(dir_ / out));
      continue;
    }
    std::vector<std::int32_t> expected = itemValues(i);
    for (std::size_t k = 0; k < 4; ++k) expected[k] += kBias[k];
    EXPECT_EQ(readInts(out), expected) << out;
    written.push_back(identity(dir_ / out));
  }
  // Nothing else in OUTDIR: no temporary file of an atomic write is left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "out"), fs::directory_iterator()), 49);

  CommandResult again = run(command);
  EXPECT_EQ(again.exitCode, 2) << again.output;
  EXPECT_THAT(again.output, HasSubstr("batch: 0 done, 1 failed, 49 skipped ("));
  EXPECT_THAT(again.output, HasSubstr("item 'item17'"));
  std::size_t k = 0;
  for (int i = 0; i < 50; ++i) {
    if (i == 17) continue;
    EXPECT_EQ(identity(dir_ / ("out/" + itemName(i) + ".npy")), written[k++]) << "rewritten: item " << i;
  }

  // Repaired, the one item left runs and the batch succeeds.
  writeInts("in/item17.npy", itemValues(17));
  CommandResult repaired = run(command);
  EXPECT_EQ(repaired.exitCode, 0) << repaired.output;
  EXPECT_THAT(repaired.output, HasSubstr("batch: 1 done, 0 failed, 49 skipped ("));
  EXPECT_EQ(readInts("out/item17.npy"), (std::vector<std::int32_t>{27, 3, 64, 1057}));

  // An output that is not a whole .npy (a foreign or damaged file) is not taken as written.
  std::ofstream(dir_ / "out/item03.npy", std::ios::binary | std::ios::trunc) << "not an npy";
  CommandResult damaged = run(command + " -q");
  EXPECT_EQ(damaged.exitCode, 0) << damaged.output;
  EXPECT_THAT(damaged.output, HasSubstr("batch: 1 done, 0 failed, 49 skipped ("));
  EXPECT_EQ(readInts("out/item03.npy"), (std::vector<std::int32_t>{13, 17, 36, 1043}));
}

TEST_F(Batch, FoldersOfNamedInputsForAModelOfTwoInputsAndTwoOutputs) {
  tosa::Builder b;
  tosa::Value x = b.input("x", tosa::DType::Int32, {3});
  tosa::Value y = b.input("y", tosa::DType::Int32, {3});
  b.output(b.add(x, y, "sum"));
  b.output(b.add(x, x, "twice"));
  ASSERT_TRUE(b.write(dir_ / "two.tosa"));
  // items/a and items/b are items (sub-folders); c, given itself, is one; d lacks y.npy.
  writeInts("items/a/x.npy", {1, 2, 3});
  writeInts("items/a/y.npy", {10, 20, 30});
  writeInts("items/b/x.npy", {-1, -2, -3});
  writeInts("items/b/y.npy", {5, 5, 5});
  writeInts("items/d/x.npy", {0, 0, 0});
  writeInts("c/x.npy", {7, 8, 9});
  writeInts("c/y.npy", {1, 1, 1});
  CommandResult r = run("batch " + path("two.tosa") + " " + path("items") + " " + path("c") + " -o " + path("out"));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("batch: item 'd' (" + path("items/d") + ") failed: " + path("items/d/y.npy")));
  EXPECT_THAT(r.output, HasSubstr("batch: 3 done, 1 failed, 0 skipped"));
  EXPECT_EQ(readInts("out/a/sum.npy"), (std::vector<std::int32_t>{11, 22, 33}));
  EXPECT_EQ(readInts("out/a/twice.npy"), (std::vector<std::int32_t>{2, 4, 6}));
  EXPECT_EQ(readInts("out/b/sum.npy"), (std::vector<std::int32_t>{4, 3, 2}));
  EXPECT_EQ(readInts("out/b/twice.npy"), (std::vector<std::int32_t>{-2, -4, -6}));
  EXPECT_EQ(readInts("out/c/sum.npy"), (std::vector<std::int32_t>{8, 9, 10}));
  EXPECT_FALSE(fs::exists(dir_ / "out/d"));

  // A file where the model needs a folder of named inputs.
  CommandResult file = run("batch " + path("two.tosa") + " " + path("c/x.npy") + " -o " + path("out"));
  EXPECT_EQ(file.exitCode, 2) << file.output;
  EXPECT_THAT(file.output, HasSubstr("expected a folder of <input name>.npy files"));
}

// An Ethos-U stream runs in the simulator: no Vulkan device, and --devices is refused.
TEST_F(Batch, AnEthosUStreamRunsInTheSimulator) {
  tosa::Builder b;
  b.output(b.clamp(b.input("x", tosa::DType::Int8, {1, 2, 2, 8}), -10, 10, tosa::NanMode::Propagate, "y"));
  ASSERT_TRUE(b.write(dir_ / "clamp.tosa"));
  CommandResult converted = run("convert " + path("clamp.tosa") + " --target ethos-u55-128 -o " + path("clamp.ethosu"));
  ASSERT_EQ(converted.exitCode, 0) << converted.output;
  for (int item = 0; item < 3; ++item) {
    tosa::HostTensor x(tosa::DType::Int8, {1, 2, 2, 8});
    for (int i = 0; i < 32; ++i) x.as<std::int8_t>()[i] = static_cast<std::int8_t>(item * 7 + i - 16);
    fs::create_directories(dir_ / "in");
    ASSERT_TRUE(tosa::npy::writeTensor(dir_ / ("in/x" + std::to_string(item) + ".npy"), x));
  }
  CommandResult r = run("batch " + path("clamp.ethosu") + " " + path("in") + " -o " + path("out"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("batch: 3 done, 0 failed, 0 skipped"));
  for (int item = 0; item < 3; ++item) {
    Result<tosa::HostTensor> y = tosa::npy::readTensor(dir_ / ("out/x" + std::to_string(item) + ".npy"), tosa::DType::Int8);
    ASSERT_TRUE(y) << y.error().message();
    for (int i = 0; i < 32; ++i) {
      EXPECT_EQ(y->as<std::int8_t>()[i], std::clamp(item * 7 + i - 16, -10, 10)) << "item " << item << " [" << i << "]";
    }
  }
  CommandResult devices = run("batch " + path("clamp.ethosu") + " " + path("in") + " -o " + path("o2") + " --devices all");
  EXPECT_EQ(devices.exitCode, 2) << devices.output;
  EXPECT_THAT(devices.output, HasSubstr("devices 'all': expected none: an Ethos-U stream runs in openvgf's simulator"));
}

TEST_F(Batch, DeviceSelectionAndUsageErrorsAreRefusedBeforeAnyItemRuns) {
  const std::string model = writeBiasModel();
  writeInts("one/a.npy", {1, 2, 3, 4});
  writeInts("two/a.npy", {5, 6, 7, 8});
  const std::string base = "batch " + model + " " + path("one") + " -o " + path("out");
  struct Case {
    std::string arguments;
    std::string message;
  };
  const std::vector<Case> cases{
      {" --devices 99", "device 99: expected an index below"},
      {" --devices no-such-gpu", "'no-such-gpu': expected an index or a substring of a device name"},
      {" --devices 0,,0", "got an empty entry"},
      {" --jobs 0", "--jobs"},
      {" " + path("missing"), "missing: expected a .npy file or a folder"},
      {" " + path("two"), "both have the name 'a'"},
  };
  for (const Case& c : cases) {
    CommandResult r = run(base + c.arguments);
    EXPECT_EQ(r.exitCode, 2) << c.arguments << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.message)) << c.arguments;
    EXPECT_THAT(r.output, Not(HasSubstr(" done, "))) << c.arguments;
    EXPECT_FALSE(fs::exists(dir_ / "out/a.npy")) << c.arguments;
  }
  CommandResult help = run("batch --help");
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_THAT(help.output, HasSubstr("--devices"));
  EXPECT_THAT(help.output, HasSubstr("<input name>.npy"));
  EXPECT_THAT(help.output, HasSubstr("skipped"));
}

// `bench --devices` on lavapipe named twice (two sessions of one device, as a pool allows):
// every timed item ran and was counted once, the efficiency is the ratio it claims, and the
// options of the one-device measurement are refused beside it.
TEST_F(Batch, BenchDevicesTimesEachDeviceAloneThenTogether) {
  const std::string model = writeBiasModel();
  CommandResult r = run("bench " + model + " --devices 0,0 --iterations 3 --warmup 1 --jobs 2 --json");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const nlohmann::json report = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  EXPECT_EQ(report["model"], model);
  EXPECT_EQ(report["in_flight"], 2);
  ASSERT_EQ(report["alone"].size(), 2u);
  double sumAlone = 0;
  for (const nlohmann::json& device : report["alone"]) {
    EXPECT_EQ(device["index"], 0);
    EXPECT_EQ(device["samples"].size(), 3u);
    EXPECT_GT(device["items_per_s"].get<double>(), 0);
    sumAlone += device["items_per_s"].get<double>();
  }
  // Two sessions of device 0, 3 timed items each: 6 items, all reported as device 0's.
  EXPECT_EQ(report["together_items_by_device"]["0"], 6);
  EXPECT_EQ(report["together_items_by_device"].size(), 1u);
  EXPECT_NEAR(report["efficiency"].get<double>(), report["together_items_per_s"].get<double>() / sumAlone, 1e-3);

  CommandResult text = run("bench " + model + " --devices 0 --iterations 2 --warmup 0");
  ASSERT_EQ(text.exitCode, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("alone: "));
  EXPECT_THAT(text.output, HasSubstr("all 1 together: "));
  EXPECT_THAT(text.output, HasSubstr("scaling efficiency: "));

  for (const char* clash : {" --pipelined 2", " --device 0", " --start 1"}) {
    CommandResult refused = run("bench " + model + " --devices 0" + std::string(clash));
    EXPECT_EQ(refused.exitCode, 2) << clash << ": " << refused.output;
    EXPECT_THAT(refused.output, HasSubstr("excludes")) << clash;
  }
  CommandResult jobsAlone = run("bench " + model + " --jobs 2");
  EXPECT_EQ(jobsAlone.exitCode, 2) << jobsAlone.output;
  CommandResult noDevice = run("bench " + model + " --devices 99");
  EXPECT_EQ(noDevice.exitCode, 2) << noDevice.output;
  EXPECT_THAT(noDevice.output, HasSubstr("device 99: expected an index below"));
}

}  // namespace
}  // namespace openvgf
