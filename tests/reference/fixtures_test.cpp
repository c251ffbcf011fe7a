// SPDX-License-Identifier: Apache-2.0
// Real .tosa fixtures (tests/data/tosa/, see third_party_notes.md): the add and conv2d
// models reproduce the framework's tf_result.npy; simple_maxpool2d matches a hand check.
#include <cmath>

#include "graph_helpers.h"
#include "tosa/npy.h"
#include "tosa/reader.h"

namespace openvgf::tosa {
namespace {

using namespace reftest;

const std::string kData = std::string(OPENVGF_TEST_DATA) + "/tosa/";

void expectMatchesFramework(const std::string& dir, const std::vector<std::string>& inputFiles) {
  auto graph = readGraph(std::filesystem::path(kData + dir + "/model.tosa"));
  ASSERT_TRUE(graph) << graph.error().message();
  const Block* main = graph->mainBlock();
  ASSERT_NE(main, nullptr);
  ASSERT_EQ(main->inputs.size(), inputFiles.size());
  std::vector<HostTensor> inputs;
  for (std::size_t i = 0; i < inputFiles.size(); ++i) {
    const Tensor* t = main->findTensor(main->inputs[i]);
    ASSERT_NE(t, nullptr);
    auto in = npy::readTensor(kData + dir + "/" + inputFiles[i], t->dtype, t->shape);
    ASSERT_TRUE(in) << in.error().message();
    inputs.push_back(std::move(*in));
  }
  auto result = reference::run(*graph, inputs);
  ASSERT_TRUE(result) << result.error().message();
  ASSERT_EQ(result->outputs.size(), 1u);
  const HostTensor& out = result->outputs[0].value;
  auto expected = npy::readTensor(kData + dir + "/tf_result.npy", DType::Fp32, out.shape);
  ASSERT_TRUE(expected) << expected.error().message();
  auto got = floatValues(out);
  auto want = floatValues(*expected);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(std::fabs(got[i] - want[i]), 1e-5 * std::max(1.0, std::fabs(want[i]))) << "element " << i;
  }
  EXPECT_TRUE(result->diagnostics.empty());
}

TEST(Fixtures, AddMatchesTensorFlow) {
  expectMatchesFramework("test_add_1x4x4x4_f32", {"placeholder_0.npy", "placeholder_1.npy"});
}

TEST(Fixtures, Conv2dMatchesTensorFlow) {
  expectMatchesFramework("test_conv2d_1x1_1x32x32x8_f32_st11_padSAME_dilat11", {"placeholder_0.npy"});
}

TEST(Fixtures, SimpleMaxPool2dMatchesAHandCheck) {
  auto graph = readGraph(std::filesystem::path(kData + "simple_maxpool2d/model.tosa"));
  ASSERT_TRUE(graph) << graph.error().message();
  const Block* main = graph->mainBlock();
  ASSERT_EQ(main->inputs.size(), 1u);
  const Tensor* t = main->findTensor(main->inputs[0]);
  ASSERT_EQ(t->shape, (Shape{1, 16, 16, 16}));
  std::vector<std::int64_t> values(16 * 16 * 16);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int64_t>((i * 37 + 11) % 256) - 128;
  std::vector<HostTensor> inputs{ints(DType::Int8, {1, 16, 16, 16}, values)};
  auto result = reference::run(*graph, inputs);
  ASSERT_TRUE(result) << result.error().message();
  auto out = intValues(result->outputs[0].value);
  ASSERT_EQ(out.size(), 8u * 8u * 16u);
  for (int y = 0; y < 8; ++y) {
    for (int x = 0; x < 8; ++x) {
      for (int c = 0; c < 16; ++c) {
        std::int64_t m = -128;
        for (int dy = 0; dy < 2; ++dy) {
          for (int dx = 0; dx < 2; ++dx) {
            m = std::max(m, values[static_cast<std::size_t>(((2 * y + dy) * 16 + 2 * x + dx) * 16 + c)]);
          }
        }
        ASSERT_EQ(out[static_cast<std::size_t>((y * 8 + x) * 16 + c)], m) << y << "," << x << "," << c;
      }
    }
  }
}

}  // namespace
}  // namespace openvgf::tosa
