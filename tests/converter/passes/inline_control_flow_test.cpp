// SPDX-License-Identifier: Apache-2.0
// inline-control-flow: a COND_IF on a condition computed from constants becomes its taken
// branch, a WHILE_LOOP with a constant trip count is unrolled, a condition computed from a
// model input is refused, and a Program without control flow is left alone.
#include <fmt/format.h>
#include <algorithm>
#include <gtest/gtest.h>

#include "converter/passes/passes.h"
#include "common/limits.h"
#include "tests/converter/graph_util.h"
#include "tests/converter/loop_graphs.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::Value;

TEST(InlineControlFlow, CondIfBecomesTheTakenBranch) {
  for (int threshold : {2, 9}) {
    tosa::Builder b;
    Value x = b.input("x", DType::Int32, {4});
    Value five = b.constant<std::int32_t>(DType::Int32, {1}, {5}, "five");
    Value limit = b.constant<std::int32_t>(DType::Int32, {1}, {threshold}, "limit");
    Value cond = b.greater(five, limit, "cond");
    auto outs = b.condIf(
        cond, {x},
        [](tosa::Builder& t, const std::vector<Value>& in) { return std::vector<Value>{t.add(in[0], in[0], "twice")}; },
        [&](tosa::Builder& e, const std::vector<Value>& in) { return std::vector<Value>{e.sub(in[0], five, "less")}; });
    b.output(outs[0]);
    converter::Program program = programOf(b);
    ASSERT_EQ(program.nodes.size(), 2u);  // GREATER, COND_IF (the CONSTs are tensors)
    auto changed = converter::passes::inlineControlFlow(program);
    ASSERT_TRUE(changed) << changed.error().message();
    EXPECT_TRUE(*changed);
    const std::string out = outs[0].name;
    if (threshold == 2) {
      EXPECT_EQ(converter::dumpProgram(program), fmt::format("2 GREATER(five, limit) -> cond\n"
                                                             "3 ADD(x, x) -> cond_if_0_then@0/twice\n"
                                                             "3 IDENTITY(cond_if_0_then@0/twice) -> {}\n", out));
    } else {
      EXPECT_EQ(converter::dumpProgram(program), fmt::format("2 GREATER(five, limit) -> cond\n"
                                                             "3 SUB(x, five) -> cond_if_0_else@0/less\n"
                                                             "3 IDENTITY(cond_if_0_else@0/less) -> {}\n", out));
    }
    EXPECT_TRUE(converter::verifyProgram(program));
  }
}

TEST(InlineControlFlow, WhileLoopIsUnrolled) {
  // i = 0; while (i < 3) { i = i + 1; acc = acc * acc }
  tosa::Builder b;
  Value x = b.input("x", DType::Fp32, {2});
  Value i0 = b.constant<std::int32_t>(DType::Int32, {1}, {0});
  auto outs = b.whileLoop(
      {i0, x},
      [](tosa::Builder& c, const std::vector<Value>& in) {
        return c.greater(c.constant<std::int32_t>(DType::Int32, {1}, {3}), in[0]);
      },
      [](tosa::Builder& body, const std::vector<Value>& in) {
        return std::vector<Value>{body.add(in[0], body.constant<std::int32_t>(DType::Int32, {1}, {1})),
                                  body.mul(in[1], in[1])};
      });
  b.output(outs[1]);
  converter::Program program = programOf(b);
  ASSERT_TRUE(converter::passes::inlineControlFlow(program));
  std::size_t muls = 0, loops = 0;
  for (const converter::Node& node : program.nodes) {
    muls += node.op.op == tosa::Op::Mul ? 1 : 0;
    loops += node.op.op == tosa::Op::WhileLoop ? 1 : 0;
  }
  EXPECT_EQ(muls, 3u);
  EXPECT_EQ(loops, 0u);
  EXPECT_TRUE(converter::verifyProgram(program));
}

std::size_t countOps(const converter::Program& program, tosa::Op op) {
  return static_cast<std::size_t>(std::count_if(program.nodes.begin(), program.nodes.end(),
                                                [&](const converter::Node& node) { return node.op.op == op; }));
}

TEST(InlineControlFlow, NestedLoopsUnrollTheProductOfTheirTripCounts) {
  converter::Program program = programOf(nestedCountedLoops(24, 30));
  ASSERT_TRUE(converter::passes::inlineControlFlow(program));
  EXPECT_EQ(countOps(program, tosa::Op::WhileLoop), 0u);
  // Per inner trip a counter ADD and an accumulator ADD, per outer trip one counter ADD.
  EXPECT_EQ(countOps(program, tosa::Op::Add), 24u * 30u * 2u + 24u);
  EXPECT_TRUE(converter::verifyProgram(program));
}

TEST(InlineControlFlow, NestedLoopsOverTheBudgetAreRefusedNamingTheLoopAndTheBudget) {
  // 1000 x 1000 trips would unroll to two million operators; 90 x 90 needs just over the
  // budget (2 * 8100 inner ADDs, 90 outer counters, 180 IDENTITYs binding inner results).
  static_assert(kMaxInlinedNodes == 16384, "the trip counts below are chosen around this budget");
  for (std::int32_t trips : {90, 1000}) {
    SCOPED_TRACE(trips);
    converter::Program program = programOf(nestedCountedLoops(trips, trips));
    auto changed = converter::passes::inlineControlFlow(program);
    ASSERT_FALSE(changed);
    EXPECT_EQ(changed.error().kind(), ErrorKind::Unsupported);
    const std::string& message = changed.error().message();
    EXPECT_NE(message.find("WHILE_LOOP (cond_graph '"), std::string::npos) << message;
    EXPECT_NE(message.find("exceeds the budget of 16384 operators for inlined control flow (kMaxInlinedNodes"),
              std::string::npos)
        << message;
  }
}

TEST(InlineControlFlow, ConditionFromAModelInputIsUnsupported) {
  tosa::Builder b;
  Value x = b.input("x", DType::Int32, {1});
  Value cond = b.greater(x, b.constant<std::int32_t>(DType::Int32, {1}, {0}));
  auto outs = b.condIf(
      cond, {x}, [](tosa::Builder& t, const std::vector<Value>& in) { return std::vector<Value>{t.add(in[0], in[0])}; },
      [](tosa::Builder&, const std::vector<Value>& in) { return std::vector<Value>{in[0]}; });
  b.output(outs[0]);
  converter::Program program = programOf(b);
  auto changed = converter::passes::inlineControlFlow(program);
  ASSERT_FALSE(changed);
  EXPECT_EQ(changed.error().kind(), ErrorKind::Unsupported);
  EXPECT_NE(changed.error().message().find("operators[2] COND_IF: expected a condition that is constant at conversion time"),
            std::string::npos)
      << changed.error().message();
}

TEST(InlineControlFlow, ProgramWithoutControlFlowIsUnchanged) {
  tosa::Builder b;
  Value x = b.input("x", DType::Fp32, {3});
  b.output(b.exp(x, "y"));
  converter::Program program = programOf(b);
  const std::string before = converter::dumpProgram(program);
  auto changed = converter::passes::inlineControlFlow(program);
  ASSERT_TRUE(changed);
  EXPECT_FALSE(*changed);
  EXPECT_EQ(converter::dumpProgram(program), before);
}

}  // namespace
}  // namespace openvgf::testing
