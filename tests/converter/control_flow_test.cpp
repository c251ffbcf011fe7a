// SPDX-License-Identifier: Apache-2.0
// COND_IF and WHILE_LOOP whose conditions fold at conversion time: inlined / unrolled by
// the converter, run on the test device and compared with the reference interpreter; a
// condition computed from a model input is refused as Unsupported.
#include <gtest/gtest.h>

#include "tests/converter/loop_graphs.h"
#include "tests/converter/reference_check.h"
#include "tosa/builder.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::Value;

class ControlFlowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vulkanAvailable()) GTEST_SKIP() << "no Vulkan device";
  }
  std::mt19937 rng{11};
};

TEST_F(ControlFlowTest, CondIfOnFoldedComparisonTakesOneBranch) {
  for (int threshold : {2, 9}) {
    SCOPED_TRACE(threshold);
    tosa::Builder b;
    auto x = b.input("x", DType::Int32, {6});
    auto five = b.constant<std::int32_t>(DType::Int32, {1}, {5});
    auto t = b.constant<std::int32_t>(DType::Int32, {1}, {threshold});
    auto cond = b.greater(five, t, "cond");  // computed at conversion time
    auto outs = b.condIf(
        cond, {x},
        [&](tosa::Builder& bb, const std::vector<Value>& in) {
          return std::vector<Value>{bb.add(in[0], in[0])};
        },
        [&](tosa::Builder& bb, const std::vector<Value>& in) {
          return std::vector<Value>{bb.sub(in[0], five)};
        });
    b.output(outs[0]);
    auto graph = b.build();
    ASSERT_TRUE(graph) << graph.error().message();
    expectCompliant(*graph, {randomTensor(rng, DType::Int32, {6}, -1000, 1000)});
  }
}

TEST_F(ControlFlowTest, WhileLoopWithConstantTripCountIsUnrolled) {
  // i = 0; acc = x; while (i < 4) { acc = acc * 2 + x; i = i + 1 }
  tosa::Builder b;
  auto x = b.input("x", DType::Fp32, {2, 3});
  auto i0 = b.constant<std::int32_t>(DType::Int32, {1}, {0});
  auto outs = b.whileLoop(
      {i0, x, x},
      [&](tosa::Builder& bb, const std::vector<Value>& in) {
        return bb.greater(bb.constant<std::int32_t>(DType::Int32, {1}, {4}), in[0]);
      },
      [&](tosa::Builder& bb, const std::vector<Value>& in) {
        auto two = bb.constant<float>(DType::Fp32, {1, 1}, {2.0f});
        auto next = bb.add(bb.mul(in[1], two), in[2]);
        return std::vector<Value>{bb.add(in[0], bb.constant<std::int32_t>(DType::Int32, {1}, {1})), next,
                                  in[2]};
      });
  b.output(outs[1]);
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  expectCompliant(*graph, {randomTensor(rng, DType::Fp32, {2, 3}, -1.0, 1.0)});
}

TEST_F(ControlFlowTest, NestedLoopsUnderTheInliningBudgetMatchTheReference) {
  // 24 x 30 trips: 1440 unrolled operators, under kMaxInlinedNodes; y = x + 720 x.
  auto graph = nestedCountedLoops(24, 30).build();
  ASSERT_TRUE(graph) << graph.error().message();
  expectCompliant(*graph, {randomTensor(rng, DType::Int32, {4}, -1000, 1000)});
}

TEST_F(ControlFlowTest, ConditionFromModelInputIsUnsupported) {
  tosa::Builder b;
  auto x = b.input("x", DType::Int32, {1});
  auto cond = b.greater(x, b.constant<std::int32_t>(DType::Int32, {1}, {0}));
  auto outs = b.condIf(
      cond, {x},
      [&](tosa::Builder& bb, const std::vector<Value>& in) {
        return std::vector<Value>{bb.add(in[0], in[0])};
      },
      [&](tosa::Builder&, const std::vector<Value>& in) { return std::vector<Value>{in[0]}; });
  b.output(outs[0]);
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  converter::ConvertOptions options;
  options.cacheDir = testCacheDir();
  auto model = converter::convert(*graph, options);
  ASSERT_FALSE(model);
  EXPECT_EQ(model.error().kind(), ErrorKind::Unsupported);
  EXPECT_NE(model.error().message().find("expected a condition that is constant at conversion time"),
            std::string::npos)
      << model.error().message();
}

}  // namespace
}  // namespace openvgf::testing
