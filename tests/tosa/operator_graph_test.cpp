// SPDX-License-Identifier: Apache-2.0
// tosa::operatorGraph (tosa/intermediates.h), the split behind `openvgf compare --per-operator`:
// one operator as a graph of its own, with the producers of inputs that have no given value taken
// along. The split graph must compute what the whole graph computes (checked with the reference
// interpreter on both), and state or missing values are refused, naming what is missing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "tosa/builder.h"
#include "tosa/intermediates.h"
#include "tosa/reference/reference.h"

namespace openvgf::tosa {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

HostTensor floats(std::vector<float> values) {
  HostTensor t(DType::Fp32, {1, static_cast<std::int64_t>(values.size())});
  for (std::size_t i = 0; i < values.size(); ++i) t.as<float>()[i] = values[i];
  return t;
}

std::function<bool(const std::string&)> named(std::set<std::string> names) {
  return [names](const std::string& name) { return names.contains(name); };
}

// The main block's operator that writes `tensor`.
std::size_t producerOf(const Graph& graph, const std::string& tensor) {
  const auto& ops = graph.mainBlock()->operators;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].outputs.empty() && ops[i].outputs[0] == tensor) return i;
  }
  ADD_FAILURE() << "no producer of " << tensor;
  return 0;
}

// x -> a = x + c -> m = a * a -> y = m - c
Graph chain() {
  Builder b;
  Value x = b.input("x", DType::Fp32, {1, 4});
  Value c = b.constant(floats({0.5f, 1.5f, -2.0f, 3.0f}), "c");
  Value a = b.add(x, c, "a");
  Value m = b.mul(a, a, 0, "m");
  b.output(b.sub(m, c, "y"));
  Result<Graph> graph = std::move(b).build();
  EXPECT_TRUE(graph) << graph.error().message();
  return std::move(*graph);
}

TEST(OperatorGraph, GivenInputsBecomeInputsAndConstantsTravel) {
  const Graph graph = chain();
  Result<OperatorGraph> sub = operatorGraph(graph, producerOf(graph, "y"), named({"x", "a", "m", "y"}), named({"y"}));
  ASSERT_TRUE(sub) << sub.error().message();
  const Block& block = *sub->graph.mainBlock();
  EXPECT_EQ(sub->upstream, 0u);
  ASSERT_EQ(block.operators.size(), 1u);
  EXPECT_EQ(block.operators[0].op, Op::Sub);
  EXPECT_THAT(block.inputs, ElementsAre("m"));
  EXPECT_THAT(block.outputs, ElementsAre("y"));
  const Tensor* c = block.findTensor("c");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->data.has_value());
  // m given as 10 each: y = 10 - c.
  Result<reference::RunResult> run = reference::run(sub->graph, std::vector<HostTensor>{floats({10, 10, 10, 10})});
  ASSERT_TRUE(run) << run.error().message();
  EXPECT_THAT(run->outputs[0].value.as<float>(), ElementsAre(9.5f, 8.5f, 12.0f, 7.0f));
}

// Inputs without a given value are computed by their producers, taken along in order: the split
// graph then computes exactly what the whole graph does.
TEST(OperatorGraph, ProducersOfInputsWithoutValuesAreTakenAlong) {
  const Graph graph = chain();
  Result<OperatorGraph> sub = operatorGraph(graph, producerOf(graph, "y"), named({"x"}), named({"y"}));
  ASSERT_TRUE(sub) << sub.error().message();
  EXPECT_EQ(sub->upstream, 2u);
  std::vector<Op> ops;
  for (const Operator& op : sub->graph.mainBlock()->operators) ops.push_back(op.op);
  EXPECT_THAT(ops, ElementsAre(Op::Add, Op::Mul, Op::Sub));
  EXPECT_THAT(sub->graph.mainBlock()->inputs, ElementsAre("x"));
  const std::vector<HostTensor> x{floats({1, 2, 3, 4})};
  Result<reference::RunResult> whole = reference::run(graph, x);
  Result<reference::RunResult> split = reference::run(sub->graph, x);
  ASSERT_TRUE(whole && split);
  EXPECT_EQ(split->outputs[0].value.bytes, whole->outputs[0].value.bytes);
  // (1 + 0.5)^2 - 0.5, by hand.
  EXPECT_FLOAT_EQ(split->outputs[0].value.as<float>()[0], 1.75f);
}

TEST(OperatorGraph, RefusesMissingValuesAndState) {
  const Graph graph = chain();
  Result<OperatorGraph> missing = operatorGraph(graph, producerOf(graph, "y"), named({}), named({"y"}));
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message(),
              HasSubstr("before it: input 'x': expected a value (given, constant or computed before it), got none"));

  Builder b;
  Value x = b.input("x", DType::Fp32, {1, 4});
  Value v = b.variable("acc", floats({1, 2, 3, 4}));
  Value y = b.add(x, b.variableRead(v, "acc_value"), "y");
  b.variableWrite(v, y);
  b.output(y);
  Result<Graph> stateful = std::move(b).build();
  ASSERT_TRUE(stateful) << stateful.error().message();
  Result<OperatorGraph> read = operatorGraph(*stateful, producerOf(*stateful, "acc_value"), named({"x"}), named({"acc_value"}));
  ASSERT_FALSE(read);
  EXPECT_THAT(read.error().message(), HasSubstr("expected no EXT-VARIABLE state"));
  // The ADD reading the value the device returned is judged alone.
  Result<OperatorGraph> add = operatorGraph(*stateful, producerOf(*stateful, "y"), named({"x", "acc_value"}), named({"y"}));
  ASSERT_TRUE(add) << add.error().message();
  EXPECT_THAT(add->graph.mainBlock()->inputs, ElementsAre("x", "acc_value"));
}

// A COND_IF keeps its bodies: the split graph runs them as the whole graph does.
TEST(OperatorGraph, ControlFlowKeepsItsBodies) {
  Builder b;
  Value x = b.input("x", DType::Fp32, {1, 4});
  Value flag = b.input("flag", DType::Bool, {1});
  Value k = b.constant(floats({1, 1, 1, 1}), "k");
  std::vector<Value> out = b.condIf(
      flag, {x}, [&](Builder& t, const std::vector<Value>& in) { return std::vector<Value>{t.add(in[0], k)}; },
      [&](Builder& e, const std::vector<Value>& in) { return std::vector<Value>{e.sub(in[0], k)}; });
  b.output(out.at(0));
  Result<Graph> graph = std::move(b).build();
  ASSERT_TRUE(graph) << graph.error().message();
  const std::string y = graph->mainBlock()->outputs.at(0);
  Result<OperatorGraph> sub = operatorGraph(*graph, producerOf(*graph, y), named({"x", "flag"}), named({y}));
  ASSERT_TRUE(sub) << sub.error().message();
  EXPECT_EQ(sub->graph.regions.size(), graph->regions.size());
  HostTensor on(DType::Bool, {1});
  on.bytes[0] = 1;
  std::vector<HostTensor> inputs{floats({1, 2, 3, 4}), on};
  std::vector<HostTensor> ordered;
  for (const std::string& name : sub->graph.mainBlock()->inputs) ordered.push_back(name == "x" ? inputs[0] : inputs[1]);
  Result<reference::RunResult> split = reference::run(sub->graph, ordered);
  ASSERT_TRUE(split) << split.error().message();
  EXPECT_THAT(split->outputs[0].value.as<float>(), ElementsAre(2.0f, 3.0f, 4.0f, 5.0f));
}

}  // namespace
}  // namespace openvgf::tosa
