// SPDX-License-Identifier: Apache-2.0
// The pass driver and the Program checker: pass selection keeps the pipeline order, the
// after-pass hook sees every pass that ran, a pass that breaks the Program is caught and
// named (a deliberately broken pass in a test-only pipeline), and verifyProgram rejects
// each kind of broken invariant.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "converter/passes/passes.h"
#include "tests/converter/graph_util.h"

namespace openvgf::testing {
namespace {

using converter::passes::PassInfo;
using converter::passes::PassOptions;
using tosa::DType;
using tosa::Op;

// y = MUL(EXP(SUB(x, m)), x), plus a dead ADD.
tosa::Graph chainGraph() {
  GraphBuilder g;
  g.input("x", DType::Fp32, {2, 3});
  g.input("m", DType::Fp32, {2, 3});
  g.tensor("a", DType::Fp32, {2, 3});
  g.tensor("b", DType::Fp32, {2, 3});
  g.tensor("dead", DType::Fp32, {2, 3});
  g.tensor("y", DType::Fp32, {2, 3});
  g.op(Op::Sub, {}, {"x", "m"}, {"a"});
  g.op(Op::Add, {}, {"x", "m"}, {"dead"});
  g.op(Op::Exp, {}, {"a"}, {"b"});
  g.op(Op::Mul, {}, {"b", "x"}, {"y"});
  g.output("y");
  return g.graph();
}

converter::Program chainProgram() {
  auto program = converter::makeProgram(chainGraph());
  EXPECT_TRUE(program);
  return *program;
}

TEST(PassPipeline, SelectedPassesRunInPipelineOrder) {
  converter::Program program = chainProgram();
  std::vector<std::string> seen;
  PassOptions options;
  options.enabled.emplace(std::vector<std::string>{"fuse-elementwise", "eliminate-dead-code"});
  options.verifyEach = true;
  options.afterPass = [&](std::string_view pass, bool changed, const converter::Program&) {
    seen.push_back(fmt::format("{}:{}", pass, changed));
  };
  ASSERT_TRUE(converter::passes::runPasses(program, options));
  EXPECT_EQ(seen,
            (std::vector<std::string>{"input:false", "eliminate-dead-code:true", "fuse-elementwise:true"}));
  EXPECT_EQ(converter::dumpProgram(program), "0 SUB(x, m) -> a |> EXP(a) -> b |> MUL(b, x) -> y\n");
}

TEST(PassPipeline, NoPassesLeavesTheProgram) {
  converter::Program program = chainProgram();
  const std::string before = converter::dumpProgram(program);
  PassOptions options;
  options.enabled.emplace();
  ASSERT_TRUE(converter::passes::runPasses(program, options));
  EXPECT_EQ(converter::dumpProgram(program), before);
}

TEST(PassPipeline, StopAfterEndsThePipeline) {
  converter::Program program = chainProgram();
  std::vector<std::string> seen;
  PassOptions options;
  options.stopAfter = "eliminate-dead-code";
  options.afterPass = [&](std::string_view pass, bool, const converter::Program&) {
    seen.emplace_back(pass);
  };
  ASSERT_TRUE(converter::passes::runPasses(program, options));
  EXPECT_EQ(seen,
            (std::vector<std::string>{"input", "fold-constants", "elide-reshapes", "eliminate-dead-code"}));
}

// Deliberately broken: drops the first node, so its result is read but never computed.
Result<bool> dropFirstNode(converter::Program& program) {
  program.nodes.erase(program.nodes.begin());
  return true;
}

TEST(PassPipeline, VerifyEachNamesTheBrokenPass) {
  static constexpr PassInfo kBroken[] = {
      {"eliminate-dead-code", converter::passes::eliminateDeadCode},
      {"drop-first-node", dropFirstNode},
      {"fuse-elementwise", converter::passes::fuseElementwise},
  };
  {
    converter::Program program = chainProgram();
    PassOptions options;
    options.pipeline = kBroken;
    options.verifyEach = true;
    auto status = converter::passes::runPasses(program, options);
    ASSERT_FALSE(status);
    EXPECT_EQ(status.error().kind(), ErrorKind::Internal);
    EXPECT_NE(status.error().message().find("pass drop-first-node left an invalid program"),
              std::string::npos)
        << status.error().message();
    EXPECT_NE(status.error().message().find("input 'a'"), std::string::npos) << status.error().message();
  }
  {
    // Without the check the broken Program goes on unnoticed by the driver.
    converter::Program program = chainProgram();
    PassOptions options;
    options.pipeline = kBroken;
    options.verifyEach = false;
    EXPECT_TRUE(converter::passes::runPasses(program, options));
  }
}

TEST(PassPipeline, ParsePassList) {
  auto all = converter::passes::parsePassList("all");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), converter::passes::passPipeline().size());
  auto none = converter::passes::parsePassList("none");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  auto some = converter::passes::parsePassList("fuse-epilogues,fold-constants");
  ASSERT_TRUE(some);
  EXPECT_EQ(*some, (std::vector<std::string>{"fuse-epilogues", "fold-constants"}));
  for (const char* bad : {"fold", "fold-constants,", "", "all,none"}) {
    auto r = converter::passes::parsePassList(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().kind(), ErrorKind::InvalidInput);
    EXPECT_NE(r.error().message().find("fold-constants, elide-reshapes, eliminate-dead-code"),
              std::string::npos)
        << r.error().message();
  }
}

TEST(VerifyProgram, AcceptsEveryStageOfThePipeline) {
  converter::Program program = chainProgram();
  EXPECT_TRUE(converter::verifyProgram(program));
  PassOptions options;
  options.verifyEach = true;
  ASSERT_TRUE(converter::passes::runPasses(program, options));
  EXPECT_TRUE(converter::verifyProgram(program));
}

void expectInvalid(const converter::Program& program, const std::string& needle) {
  auto status = converter::verifyProgram(program);
  ASSERT_FALSE(status) << needle;
  EXPECT_EQ(status.error().kind(), ErrorKind::InvalidInput);
  EXPECT_NE(status.error().message().find(needle), std::string::npos) << status.error().message();
}

TEST(VerifyProgram, RejectsBrokenInvariants) {
  {
    converter::Program p = chainProgram();
    std::swap(p.nodes[0], p.nodes[2]);  // EXP before the SUB that computes its input
    expectInvalid(p, "node [2] EXP: input 'a': expected a value computed before the node");
  }
  {
    converter::Program p = chainProgram();
    p.nodes[1].op.outputs[0] = "a";  // written twice
    expectInvalid(p, "output 'a': expected a tensor written once");
  }
  {
    converter::Program p = chainProgram();
    p.nodes[0].op.outputs[0] = "x";  // overwrites a model input
    expectInvalid(p, "output 'x': expected a tensor written once");
  }
  {
    converter::Program p = chainProgram();
    p.nodes[0].op.inputs[1] = "nowhere";
    expectInvalid(p, "input 'nowhere': expected a tensor of the program, got an unknown name");
  }
  {
    converter::Program p = chainProgram();
    p.nodes.pop_back();  // nothing computes the model output
    expectInvalid(p, "model output 'y': expected a value the program computes");
  }
  {
    converter::Program p = chainProgram();
    p.aliases["b"] = "dead";
    p.aliases["dead"] = "x";  // alias of an alias
    expectInvalid(p, "alias b -> dead: expected a base that is not itself an alias");
  }
  {
    converter::Program p = chainProgram();
    tosa::Tensor wide = *p.find("x");
    wide.name = "wide";
    wide.shape = {4, 3};
    p.tensors["wide"] = wide;
    p.aliases["a"] = "wide";  // 6 elements viewed as 12
    expectInvalid(p, "alias a -> wide: expected the same type and element count");
  }
  {
    converter::Program p = chainProgram();
    ASSERT_TRUE(converter::passes::fuseElementwise(p));
    auto fused = std::find_if(p.nodes.begin(), p.nodes.end(),
                              [](const converter::Node& n) { return !n.epilogue.empty(); });
    ASSERT_NE(fused, p.nodes.end());    // SUB |> EXP |> MUL
    fused->epilogue[0].chainInput = 1;  // EXP has one input
    expectInvalid(p, "expected input 1 to be the previous result 'a'");
  }
}

}  // namespace
}  // namespace openvgf::testing
