// SPDX-License-Identifier: Apache-2.0
// Graphs made with tosa::Builder, written as .tosa bytes, read back and verified, then run on
// the reference interpreter: the interpreter understands what the writer produces (control
// flow regions, IDENTITY-style variables, CONST_SHAPE tables).
#include "graph_helpers.h"
#include "tosa/builder.h"
#include "tosa/reader.h"
#include "tosa/verifier.h"
#include "tosa/writer.h"

namespace openvgf::tosa {
namespace {

using namespace reftest;
using ::testing::ElementsAre;

Result<Graph> roundTrip(const Builder& b) {
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::uint8_t> bytes, b.serialize());
  OPENVGF_ASSIGN_OR_RETURN(Graph g, readGraph(bytes, "built.tosa"));
  OPENVGF_TRY(verify(g));
  return g;
}

TEST(BuilderRoundTrip, Int8ConvWithPerChannelDoubleRoundRescale) {
  Builder b;
  auto x = b.input("x", DType::Int8, {1, 2, 2, 1});
  auto w = b.constant(DType::Int8, {2, 1, 1, 1}, std::vector<int>{3, -2});
  auto bias = b.constant(DType::Int32, {2}, std::vector<int>{10, 0});
  auto acc = b.conv2d(x, w, bias, ConvParams{});
  RescaleParams rp;
  rp.outType = DType::Int8;
  rp.multiplier = {1 << 30, 1 << 30};
  rp.shift = {31, 32};
  rp.outputZp = -1;
  rp.roundingMode = RoundingMode::DoubleRound;
  b.output(b.rescale(acc, rp));
  auto graph = roundTrip(b);
  ASSERT_TRUE(graph) << graph.error().message();
  std::vector<HostTensor> inputs{ints(DType::Int8, {1, 2, 2, 1}, {1, 2, 3, 4})};
  auto r = reference::run(*graph, inputs);
  ASSERT_TRUE(r) << r.error().message();
  // oc0 = 3x + 10 scaled by 0.5 (ties up); oc1 = -2x scaled by 0.25 with double rounding; then -1.
  EXPECT_THAT(intValues(r->outputs[0].value), ElementsAre(6, -2, 7, -2, 9, -3, 10, -3));
}

TEST(BuilderRoundTrip, WhileLoopAndVariable) {
  Builder b;
  auto i0 = b.input("i", DType::Int32, {1});
  auto a0 = b.input("a", DType::Int32, {1});
  auto limit = b.constant(DType::Int32, {1}, std::vector<int>{3});
  auto one = b.constant(DType::Int32, {1}, std::vector<int>{1});
  auto results = b.whileLoop(
      {i0, a0}, [&](Builder& c, const std::vector<Value>& in) { return c.greater(limit, in[0]); },
      [&](Builder& body, const std::vector<Value>& in) {
        return std::vector<Value>{body.add(in[0], one), body.add(in[1], in[1])};
      });
  auto state = b.variable("total", ints(DType::Int32, {1}, {100}));
  auto before = b.variableRead(state);
  auto after = b.add(before, results[1]);
  b.variableWrite(state, after);
  b.output(after);
  auto graph = roundTrip(b);
  ASSERT_TRUE(graph) << graph.error().message();
  std::vector<HostTensor> inputs{ints(DType::Int32, {1}, {0}), ints(DType::Int32, {1}, {1})};
  reference::VariableState vars;
  auto r1 = reference::run(*graph, inputs, {}, &vars);
  ASSERT_TRUE(r1) << r1.error().message();
  EXPECT_THAT(intValues(r1->outputs[0].value), ElementsAre(108));  // 100 + 1 * 2^3
  auto r2 = reference::run(*graph, inputs, {}, &vars);
  ASSERT_TRUE(r2);
  EXPECT_THAT(intValues(r2->outputs[0].value), ElementsAre(116));
}

}  // namespace
}  // namespace openvgf::tosa
