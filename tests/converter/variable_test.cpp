// SPDX-License-Identifier: Apache-2.0
// EXT-VARIABLE state as a model input/output pair "state:<name>": a converted accumulator
// graph run twice on the test device, feeding the state output back, against the reference
// interpreter run twice with one VariableState.
#include <gtest/gtest.h>

#include "tests/converter/reference_check.h"
#include "tosa/builder.h"
#include "vgf/decoder.h"

namespace openvgf::testing {
namespace {

using tosa::DType;

class VariableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vulkanAvailable()) GTEST_SKIP() << "no Vulkan device";
  }
  std::mt19937 rng{7};
};

TEST_F(VariableTest, AccumulatorStateRoundTrips) {
  const tosa::Shape shape = {2, 5};
  auto init = randomTensor(rng, DType::Int32, shape, -100, 100);
  tosa::Builder b;
  auto x = b.input("x", DType::Int32, shape);
  auto acc = b.variable("acc", init);
  auto old = b.variableRead(acc, "old");
  auto sum = b.add(old, x, "sum");
  b.variableWrite(acc, sum);
  b.output(sum);
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();

  converter::ConvertOptions options;
  options.cacheDir = testCacheDir();
  auto model = converter::convert(*graph, options);
  ASSERT_TRUE(model) << model.error().message();
  auto file = vgf::decode(model->vgf);
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_EQ(file->inputNames, (std::vector<std::string>{"x", "state:acc"}));
  EXPECT_EQ(file->outputNames, (std::vector<std::string>{"sum", "state:acc"}));

  tosa::reference::VariableState state;
  std::vector<std::uint8_t> stateBytes = init.bytes;
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE(run);
    auto xv = randomTensor(rng, DType::Int32, shape, -1000, 1000);
    auto ref = tosa::reference::run(*graph, std::vector<tosa::HostTensor>{xv}, {}, &state);
    ASSERT_TRUE(ref) << ref.error().message();
    auto out = convertAndRun(*graph, {xv.bytes, stateBytes});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0], ref->outputs[0].value.bytes);
    ASSERT_NE(state.find("acc"), nullptr);
    EXPECT_EQ(out[1], state.find("acc")->bytes);
    stateBytes = out[1];
  }
}

}  // namespace
}  // namespace openvgf::testing
