// SPDX-License-Identifier: Apache-2.0
// The model zoo's int8 MobileNetV2 (benchmarks/models, small input resolution) through the
// Ethos-U backend: converted, simulated and compared byte for byte with the TOSA reference
// interpreter. Its residual ADDs rescale both inputs with arbitrary multipliers, so this
// covers the decomposed ADD lowering on a whole network.
#include <gtest/gtest.h>

#include <set>

#include "benchmarks/models/zoo.h"
#include "tests/ethosu/graph_util.h"

namespace openvgf::ethosu_test {
namespace {

TEST(EthosUZoo, MobileNetV2Int8IsBitExact) {
  const benchmarks::ModelInfo* info = benchmarks::findModel("mobilenet_v2_int8");
  ASSERT_NE(info, nullptr);
  benchmarks::ZooOptions options;
  options.batch = 1;
  options.resolution = 32;
  auto graph = info->build(options).graph();
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
  const benchmarks::ModelInfo* info = benchmarks::findModel("mobilenet_v2_int8");
  ASSERT_NE(info, nullptr);
  benchmarks::ZooOptions options;
  options.batch = 1;
  options.resolution = 32;
  auto graph = info->build(options).graph();
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
  const benchmarks::ModelInfo* info = benchmarks::findModel("mobilenet_v2_int8");
  ASSERT_NE(info, nullptr);
  benchmarks::ZooOptions options;
  options.batch = 1;
  options.resolution = 32;
  auto graph = info->build(options).graph();
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

}  // namespace
}  // namespace openvgf::ethosu_test
