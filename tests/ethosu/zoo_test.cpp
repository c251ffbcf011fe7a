// SPDX-License-Identifier: Apache-2.0
// The model zoo's int8 MobileNetV2 (benchmarks/models, small input resolution) through the
// Ethos-U backend: converted, simulated and compared byte for byte with the TOSA reference
// interpreter. Its residual ADDs rescale both inputs with arbitrary multipliers, so this
// covers the decomposed ADD lowering on a whole network.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "benchmarks/models/zoo.h"
#include "tests/ethosu/graph_util.h"
#include "tests/support/cli_runner.h"

namespace openvgf::ethosu_test {
namespace {

/// The zoo's int8 MobileNetV2 at 32x32.
Result<tosa::Graph> smallMobileNetV2Int8() {
  const benchmarks::ModelInfo* info = benchmarks::findModel("mobilenet_v2_int8");
  if (info == nullptr) return invalidInput("the zoo has no mobilenet_v2_int8");
  benchmarks::ZooOptions options;
  options.batch = 1;
  options.resolution = 32;
  return info->build(options).graph();
}

TEST(EthosUZoo, MobileNetV2Int8IsBitExact) {
  auto graph = smallMobileNetV2Int8();
  ASSERT_TRUE(graph) << graph.error().message();
  std::mt19937 rng(77);
  auto model = expectBitExact(*graph, rng);
  // 52 convolutions (stem, 16 expand, 17 depthwise, 17 project, head), the classifier, the
  // global average pool and 10 residual ADDs of 3 operations each (their input rescales are
  // not integers or 2^19, so each input is rescaled to int32 first).
  EXPECT_EQ(model.stats.npuOperations, 52u + 1u + 1u + 30u);
  ASSERT_EQ(lastOutputs().size(), 1u);
  EXPECT_GT(std::set<std::uint8_t>(lastOutputs()[0].begin(), lastOutputs()[0].end()).size(), 16u);
}

TEST(EthosUZoo, MobileNetV2Int8IsBitExactOnTwoCores) {
  // Ethos-U65-512: every convolution split between the cores by OFM channel parity.
  auto graph = smallMobileNetV2Int8();
  ASSERT_TRUE(graph) << graph.error().message();
  std::mt19937 rng(78);
  auto model = expectBitExact(*graph, rng, "ethos-u65-512");
  EXPECT_EQ(model.stats.npuOperations, 52u + 1u + 1u + 30u);
  ASSERT_EQ(lastOutputs().size(), 1u);
  EXPECT_GT(std::set<std::uint8_t>(lastOutputs()[0].begin(), lastOutputs()[0].end()).size(), 16u);
}

TEST(EthosUZoo, MobileNetV2Int8IsBitExactOnU85) {
  // Ethos-U85-256 (one weight decoder) and -1024 (four): each residual ADD is one operation
  // (IFM_SCALE / IFM2_SCALE carry the input rescales).
  auto graph = smallMobileNetV2Int8();
  ASSERT_TRUE(graph) << graph.error().message();
  for (const char* target : {"ethos-u85-256", "ethos-u85-1024"}) {
    SCOPED_TRACE(target);
    std::mt19937 rng(85);
    auto model = expectBitExact(*graph, rng, target);
    EXPECT_EQ(model.stats.npuOperations, 52u + 1u + 1u + 10u);
    ASSERT_EQ(lastOutputs().size(), 1u);
    EXPECT_GT(std::set<std::uint8_t>(lastOutputs()[0].begin(), lastOutputs()[0].end()).size(), 16u);
  }
}

/// The integer after `label` in `--stats` output, or -1.
std::int64_t statValue(const std::string& output, const std::string& label) {
  std::smatch m;
  if (!std::regex_search(output, m, std::regex(label + R"(:\s+(\d+))"))) return -1;
  return std::stoll(m[1]);
}

// The zoo's mobilenet_v2_int8 at its real 224x224 resolution, as a user runs it: written by the
// zoo library, `openvgf convert --target ethos-u85-N --stats` for every U85 configuration, and
// `openvgf run --check` of the ethos-u85-256 stream against the TOSA reference interpreter.
TEST(EthosUZoo, MobileNetV2Int8At224ConvertsForEveryU85ConfigurationAndRunsBitExact) {
  using openvgf::testing::CommandResult;
  using openvgf::testing::runCli;
  openvgf::testing::ScratchDir dir("ethosu_zoo_u85");
  const benchmarks::ModelInfo* info = benchmarks::findModel("mobilenet_v2_int8");
  ASSERT_NE(info, nullptr);
  benchmarks::ZooOptions options;
  options.batch = 1;
  auto written = benchmarks::writeModel(*info, options, dir.path(), {false, true});
  ASSERT_TRUE(written) << written.error().message();
  const std::string tosaFile = written->tosaPath.string();
  std::int64_t previousCycles = 0;
  for (const auto& [target, macsPerCycle] : {std::pair{"ethos-u85-128", 128}, {"ethos-u85-256", 256},
                                             {"ethos-u85-512", 512}, {"ethos-u85-1024", 1024}, {"ethos-u85-2048", 2048}}) {
    SCOPED_TRACE(target);
    CommandResult convert = runCli(fmt::format("convert {} --target {} --stats -o {}", tosaFile, target,
                                               dir / (std::string(target) + ".ethosu")));
    ASSERT_EQ(convert.exitCode, 0) << convert.output;
    EXPECT_NE(convert.output.find(fmt::format("target:            {}", target)), std::string::npos) << convert.output;
    const std::int64_t commands = statValue(convert.output, "commands");
    const std::int64_t weightBytes = statValue(convert.output, "weight bytes");
    const std::int64_t macs = statValue(convert.output, "MACs");
    const std::int64_t cycles = statValue(convert.output, "estimated cycles");
    // 64 operations of at least a dozen register writes each.
    EXPECT_GT(commands, 64 * 12) << convert.output;
    EXPECT_GT(weightBytes, 0) << convert.output;
    EXPECT_EQ(macs, written->macs) << convert.output;  // the zoo counts them from the graph
    // No configuration beats its MAC rate; doubling the MACs per cycle must pay.
    EXPECT_GE(cycles, macs / macsPerCycle) << convert.output;
    if (previousCycles != 0) {
      EXPECT_LT(cycles, previousCycles) << convert.output;
    }
    previousCycles = cycles;
  }
  CommandResult run = runCli(fmt::format("run {} --input {} --check {}", dir / "ethos-u85-256.ethosu",
                                         (written->folder / "inputs" / "input.npy").string(), tosaFile));
  EXPECT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("check: PASS (bit-exact with the TOSA reference)"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace openvgf::ethosu_test
