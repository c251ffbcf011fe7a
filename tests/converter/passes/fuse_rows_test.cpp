// SPDX-License-Identifier: Apache-2.0
// fuse-rows: a softmax becomes one node; a chain whose inner result is read outside ends
// where that result is final; reductions over other axes and over rows too long for one
// workgroup start no chain.
#include <gtest/gtest.h>

#include "converter/kernels/rowwise.h"
#include "converter/passes/passes.h"
#include "tests/converter/graph_util.h"
#include "tosa/builder.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::Value;

converter::Program fused(const tosa::Graph& graph) { return programAfter(graph, {"fuse-elementwise", "fuse-rows"}); }

// x -> softmax over the last axis; `e` (the exponentials) also leaves the graph if asked.
tosa::Graph softmax(tosa::Shape shape, bool exposeExp = false) {
  tosa::Builder b;
  Value x = b.input("x", DType::Fp32, shape);
  Value m = b.reduceMax(x, static_cast<std::int32_t>(shape.size()) - 1, tosa::NanMode::Propagate, "m");
  Value e = b.exp(b.sub(x, m, "d"), "e");
  Value r = b.reciprocal(b.reduceSum(e, static_cast<std::int32_t>(shape.size()) - 1, "s"), "r");
  b.output(b.mul(e, r, 0, "y"));
  if (exposeExp) b.output(e);
  auto graph = b.build();
  EXPECT_TRUE(graph) << graph.error().message();
  return *graph;
}

TEST(FuseRows, SoftmaxBecomesOneNode) {
  converter::Program program = fused(softmax({3, 4, 10}));
  EXPECT_EQ(converter::dumpProgram(program),
            "0 REDUCE_MAX(x) -> m |> SUB(x, m) -> d |> EXP(d) -> e |> REDUCE_SUM(e) -> s |> RECIPROCAL(s) -> r "
            "|> MUL(e, r, shift_0) -> y\n");
}

TEST(FuseRows, AnInnerResultReadOutsideEndsTheChain) {
  // `e` is a model output, so the first chain ends with it and a second one starts at the sum.
  converter::Program program = fused(softmax({3, 10}, /*exposeExp=*/true));
  EXPECT_EQ(converter::dumpProgram(program),
            "0 REDUCE_MAX(x) -> m |> SUB(x, m) -> d |> EXP(d) -> e\n"
            "3 REDUCE_SUM(e) -> s |> RECIPROCAL(s) -> r |> MUL(e, r, shift_0) -> y\n");
}

TEST(FuseRows, OnlyLastAxisReductionsOfRowsThatFitStartAChain) {
  struct Case {
    tosa::Shape shape;
    std::int32_t axis;
  };
  for (const Case& c : {Case{{10, 3}, 0}, Case{{2, converter::kMaxRowLength + 1}, 1}}) {
    tosa::Builder b;
    Value x = b.input("x", DType::Fp32, c.shape);
    b.output(b.reciprocal(b.reduceSum(x, c.axis, "s"), "r"));
    auto graph = b.build();
    ASSERT_TRUE(graph) << graph.error().message();
    converter::Program program = fused(*graph);
    EXPECT_EQ(program.nodes.size(), 2u) << converter::dumpProgram(program);
  }
}

}  // namespace
}  // namespace openvgf::testing
