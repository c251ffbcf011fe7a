// SPDX-License-Identifier: Apache-2.0
// api::checkOutputs with EXT-VARIABLE state: `state:` inputs seed the reference's variables,
// `state:` outputs are judged (a copy of a graph output must equal it, a never-written state
// must equal its input), and a wrong state fails. Outputs here are made by hand, not by a run.
#include <gtest/gtest.h>

#include "api/check.h"
#include "tosa/builder.h"

namespace openvgf::api {
namespace {

tosa::HostTensor ints(std::vector<std::int32_t> values) {
  tosa::HostTensor t(tosa::DType::Int32, {static_cast<std::int64_t>(values.size())});
  for (std::size_t i = 0; i < values.size(); ++i) t.as<std::int32_t>()[i] = values[i];
  return t;
}

runner::TensorInfo info(const std::string& name) {
  runner::TensorInfo t;
  t.name = name;
  t.dtype = tosa::DType::Int32;
  t.shape = {3};
  t.bytes = 12;
  return t;
}

const runner::OutputCheck* find(const std::vector<runner::OutputCheck>& checks, const std::string& name) {
  for (const runner::OutputCheck& c : checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

TEST(CheckOutputs, StateOutputsAreJudged) {
  // y = acc + x; acc = y; and a second variable `idle` that is never written.
  tosa::Builder b;
  tosa::Value acc = b.variable("acc", ints({10, 20, 30}));
  b.variable("idle", ints({7, 8, 9}));
  tosa::Value sum = b.add(b.variableRead(acc, "old"), b.input("x", tosa::DType::Int32, {3}), "y");
  b.variableWrite(acc, sum);
  b.output(sum);
  Result<tosa::Graph> graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();

  const std::vector<runner::TensorInfo> inputs{info("x"), info("state:acc"), info("state:idle")};
  const std::vector<runner::TensorInfo> outputs{info("y"), info("state:acc"), info("state:idle")};
  const std::vector<tosa::HostTensor> in{ints({1, 2, 3}), ints({100, 200, 300}), ints({7, 8, 9})};

  Result<std::vector<runner::OutputCheck>> good =
      checkOutputs(*graph, "acc.tosa", inputs, in, outputs,
                   std::vector<tosa::HostTensor>{ints({101, 202, 303}), ints({101, 202, 303}), ints({7, 8, 9})});
  ASSERT_TRUE(good) << good.error().message();
  ASSERT_EQ(good->size(), 3u);
  for (const runner::OutputCheck& c : *good) EXPECT_TRUE(c.verdict.pass) << c.name << ": " << c.verdict.message;

  Result<std::vector<runner::OutputCheck>> badState =
      checkOutputs(*graph, "acc.tosa", inputs, in, outputs,
                   std::vector<tosa::HostTensor>{ints({101, 202, 303}), ints({101, 202, 304}), ints({7, 8, 9})});
  ASSERT_TRUE(badState);
  EXPECT_TRUE(find(*badState, "y")->verdict.pass);
  EXPECT_FALSE(find(*badState, "state:acc")->verdict.pass);
  EXPECT_TRUE(find(*badState, "state:idle")->verdict.pass);

  Result<std::vector<runner::OutputCheck>> badIdle =
      checkOutputs(*graph, "acc.tosa", inputs, in, outputs,
                   std::vector<tosa::HostTensor>{ints({101, 202, 303}), ints({101, 202, 303}), ints({0, 8, 9})});
  ASSERT_TRUE(badIdle);
  EXPECT_FALSE(find(*badIdle, "state:idle")->verdict.pass);

  // The state input is what the reference starts from: y computed from the initial value
  // instead of the given state fails.
  Result<std::vector<runner::OutputCheck>> fromInitial =
      checkOutputs(*graph, "acc.tosa", inputs, in, outputs,
                   std::vector<tosa::HostTensor>{ints({11, 22, 33}), ints({11, 22, 33}), ints({7, 8, 9})});
  ASSERT_TRUE(fromInitial);
  EXPECT_FALSE(find(*fromInitial, "y")->verdict.pass);
}

TEST(CheckOutputs, StateThatIsNoGraphOutputIsJudgedByItsOwnRule) {
  // y = acc + x; acc = acc + acc (a tensor that is not a graph output).
  tosa::Builder b;
  tosa::Value acc = b.variable("acc", ints({10, 20, 30}));
  tosa::Value old = b.variableRead(acc, "old");
  b.output(b.add(old, b.input("x", tosa::DType::Int32, {3}), "y"));
  b.variableWrite(acc, b.add(old, old, "twice"));
  Result<tosa::Graph> graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  const std::vector<runner::TensorInfo> inputs{info("x"), info("state:acc")};
  const std::vector<runner::TensorInfo> outputs{info("y"), info("state:acc")};
  const std::vector<tosa::HostTensor> in{ints({1, 2, 3}), ints({5, 6, 7})};
  Result<std::vector<runner::OutputCheck>> good = checkOutputs(
      *graph, "acc.tosa", inputs, in, outputs, std::vector<tosa::HostTensor>{ints({6, 8, 10}), ints({10, 12, 14})});
  ASSERT_TRUE(good) << good.error().message();
  ASSERT_EQ(good->size(), 2u);
  EXPECT_TRUE(find(*good, "y")->verdict.pass);
  EXPECT_TRUE(find(*good, "state:acc")->verdict.pass);
  Result<std::vector<runner::OutputCheck>> bad = checkOutputs(
      *graph, "acc.tosa", inputs, in, outputs, std::vector<tosa::HostTensor>{ints({6, 8, 10}), ints({10, 12, 15})});
  ASSERT_TRUE(bad);
  EXPECT_FALSE(find(*bad, "state:acc")->verdict.pass);
}

}  // namespace
}  // namespace openvgf::api
