// SPDX-License-Identifier: Apache-2.0
// Tests of the benchmark harness: latency statistics against hand-computed values,
// deterministic inputs, runner::runBenchmark on lavapipe, and `openvgf bench` end to end
// (text, JSON, exit codes).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "runner/benchmark.h"
#include "shaders/chain_add.h"
#include "shaders/chain_minus1.h"
#include "shaders/chain_scale2.h"
#include "tests/runner/test_models.h"
#include "tests/support/cli_runner.h"
#include "vgf/builder.h"
#include "vgf/decoder.h"
#include "tests/support/temp_dir.h"

using openvgf::testing::CommandResult;
using openvgf::testing::runCli;

namespace openvgf {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

TEST(BenchStats, OddCountHandComputed) {
  std::vector<double> v = {5, 1, 3, 2, 4};
  runner::LatencyStats s = runner::summarize(v);
  EXPECT_EQ(s.count, 5);
  EXPECT_EQ(s.minMs, 1);
  EXPECT_EQ(s.medianMs, 3);
  EXPECT_EQ(s.p90Ms, 5);  // nearest rank ceil(0.9 * 5) = 5
  EXPECT_EQ(s.meanMs, 3);
}

TEST(BenchStats, EvenCountAndP90) {
  std::vector<double> v = {10, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  runner::LatencyStats s = runner::summarize(v);
  EXPECT_EQ(s.medianMs, 5.5);
  EXPECT_EQ(s.p90Ms, 9);  // rank 9 of 10
  EXPECT_EQ(runner::summarize(std::vector<double>{}).count, 0);
}

TEST(BenchInputs, DeterministicAndInRange) {
  runner::TensorInfo info;
  info.dtype = tosa::DType::Fp32;
  info.shape = {2, 3, 4};
  tosa::HostTensor a = runner::benchmarkInput(info, 7);
  tosa::HostTensor b = runner::benchmarkInput(info, 7);
  tosa::HostTensor c = runner::benchmarkInput(info, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (float v : a.as<float>()) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
  }
  info.dtype = tosa::DType::Int32;
  tosa::HostTensor ints = runner::benchmarkInput(info, 1);
  for (std::int32_t v : ints.as<std::int32_t>()) {
    EXPECT_GE(v, -1000);
    EXPECT_LE(v, 1000);
  }
}

class Bench : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::processTempDir("openvgf-bench-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    env_ = "XDG_CACHE_HOME=" + (dir_ / "cache").string();
    vgf::Builder b;
    testing::buildChain(b, k_chain_add, k_chain_scale2, k_chain_minus1);
    Result<std::vector<std::uint8_t>> bytes = b.finish();
    ASSERT_TRUE(bytes) << bytes.error().message();
    bytes_ = *bytes;
    model_ = (dir_ / "chain.vgf").string();
    ASSERT_TRUE(writeFileAtomic(model_, std::span<const std::uint8_t>(bytes_)));
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::string env_;
  std::string model_;
  std::vector<std::uint8_t> bytes_;
};

TEST_F(Bench, MeasuresTheChainModel) {
  Result<vgf::File> file = vgf::decode(bytes_);
  ASSERT_TRUE(file) << file.error().message();
  Result<runner::Model> model = runner::Model::create(*file, "chain.vgf");
  ASSERT_TRUE(model) << model.error().message();
  runner::BenchmarkOptions options;
  options.device = std::getenv("OPENVGF_TEST_DEVICE") ? std::getenv("OPENVGF_TEST_DEVICE") : "";
  options.warmup = 1;
  options.iterations = 7;
  options.gpuIterations = 3;
  options.cacheDir = dir_ / "pipelines";
  Result<runner::BenchmarkResult> r = runner::runBenchmark(*model, options);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FALSE(r->device.empty());
  EXPECT_EQ(r->segments, 4u);  // t1 = x + c0, t2 = 2 t1, t3 = t2 + x, y = t3 - 1
  EXPECT_EQ(r->wall.count, 7);
  EXPECT_GT(r->wall.minMs, 0.0);
  EXPECT_LE(r->wall.minMs, r->wall.medianMs);
  EXPECT_LE(r->wall.medianMs, r->wall.p90Ms);
  EXPECT_GT(r->inferencesPerS, 0.0);
  EXPECT_GT(r->sessionCreateColdMs, 0.0);
  EXPECT_GT(r->sessionCreateWarmMs, 0.0);
  EXPECT_GE(r->deviceBytes, 4u * testing::kChainN);  // at least the constant
  EXPECT_EQ(r->batch, 1);
  if (r->gpu.count > 0) {
    EXPECT_EQ(r->gpu.count, 3);
    EXPECT_GT(r->gpu.medianMs, 0.0);
  }
  // The cold run left a pipeline cache behind for the warm one.
  EXPECT_FALSE(fs::is_empty(dir_ / "pipelines"));
  std::string text = runner::formatText(*r);
  EXPECT_THAT(text, HasSubstr("session creation"));
  EXPECT_THAT(text, HasSubstr("median"));
}

TEST_F(Bench, NonEmptyCacheDirIsRefused) {
  fs::create_directories(dir_ / "full");
  ASSERT_TRUE(writeFileAtomic(dir_ / "full" / "x", std::string_view("x")));
  CommandResult r = runCli("bench " + model_ + " --cache-dir " + (dir_ / "full").string(), env_);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("expected an empty or absent folder"));
}

TEST_F(Bench, CliPrintsJson) {
  CommandResult r = runCli("bench " + model_ + " --warmup 1 --iterations 5 --gpu-iterations 2 --json", env_);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  nlohmann::json j = nlohmann::json::parse(r.output);
  for (const char* key : {"device", "session_create_cold_ms", "session_create_warm_ms", "first_inference_ms",
                          "min_ms", "median_ms", "p90_ms", "gpu_median_ms", "inferences_per_s",
                          "peak_device_memory_bytes", "openvgf_version"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["iterations"], 5);
}

TEST_F(Bench, CliTextAndBadInput) {
  CommandResult r = runCli("bench " + model_ + " --warmup 0 --iterations 2", env_);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("latency over 2 runs"));
  ASSERT_TRUE(writeFileAtomic(dir_ / "not.vgf", std::string_view("this is not a VGF")));
  r = runCli("bench " + (dir_ / "not.vgf").string(), env_);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("not.vgf: cannot run a file of unknown format: expected a TOSA flatbuffer, a VGF, "
                                  "an ExecuTorch program or an Ethos-U command stream"));
  r = runCli("bench " + model_ + " --iterations 0", env_);
  EXPECT_EQ(r.exitCode, 2) << r.output;
}

TEST_F(Bench, CliPipelinedReportsHostToHostTimings) {
  CommandResult r = runCli("bench " + model_ + " --warmup 1 --iterations 6 --gpu-iterations 2 --pipelined 2 --json", env_);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  nlohmann::json j = nlohmann::json::parse(r.output);
  for (const char* key : {"serial_pinned", "pipelined", "pipelined_pinned"}) {
    ASSERT_TRUE(j[key].is_object()) << key;
    EXPECT_GE(j[key]["runs"].get<int>(), 6) << key;
    EXPECT_GT(j[key]["period_ms"].get<double>(), 0.0) << key;
    EXPECT_LE(j[key]["latency_median_ms"].get<double>(), j[key]["latency_p90_ms"].get<double>()) << key;
  }
  EXPECT_EQ(j["serial_pinned"]["in_flight"], 1);
  EXPECT_EQ(j["pipelined"]["in_flight"], 2);
  EXPECT_EQ(j["pipelined"]["pinned"], false);
  EXPECT_EQ(j["pipelined_pinned"]["pinned"], true);
  r = runCli("bench " + model_ + " --pipelined 9", env_);
  EXPECT_EQ(r.exitCode, 2) << r.output;
}

TEST_F(Bench, CliTransferComparesWithVkCmdCopyBuffer) {
  CommandResult r = runCli("bench --transfer 1 --iterations 2", env_);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("host <-> device transfers of 1.0 MiB"));
  EXPECT_THAT(r.output, HasSubstr("upload from pinned memory (wall)"));
  EXPECT_THAT(r.output, HasSubstr("upload from pageable memory (wall)"));
  EXPECT_THAT(r.output, HasSubstr("% of vkCmdCopyBuffer"));
  r = runCli("bench --transfer 1 --iterations 2 --json", env_);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  // stderr shares the pipe: a driver's warning may precede the JSON object on stdout.
  const std::size_t start = r.output.find('{');
  ASSERT_NE(start, std::string::npos) << r.output;
  nlohmann::json j = nlohmann::json::parse(r.output.substr(start));
  EXPECT_EQ(j["bytes"], 1048576);
  EXPECT_GT(j["pinned_upload"]["gb_per_s"].get<double>(), 0.0);
  r = runCli("bench " + model_ + " --transfer 1", env_);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("expected a model or --transfer, got both"));
  r = runCli("bench", env_);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("expected a model (or --transfer MIB), got none"));
}

}  // namespace
}  // namespace openvgf
