// SPDX-License-Identifier: Apache-2.0
// ExecuTorch programs with VgfBackend delegates, built here as ExecuTorch lays them out
// (tests/pte/pte_writer.h: delegate payload = a whole GRAPH-segment VGF, DelegateCall args =
// inputs then outputs, an aten::view_copy between two delegates): the plan analysis
// (pte/run_plan.h), `openvgf run program.pte` on lavapipe against the reference interpreter on
// the composed TOSA graph, `--check`, the refusal of real non-delegated operators, and what
// `inspect` says.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "converter/arm_graph_vgf.h"
#include "pte/run_plan.h"
#include "tests/pte/vgf_program.h"
#include "tests/support/cli_runner.h"
#include "tosa/builder.h"
#include "tosa/npy.h"
#include "tosa/reference/reference.h"

namespace openvgf::pte::testing {
namespace {

using ::testing::HasSubstr;
using openvgf::testing::CommandResult;
using openvgf::testing::runCli;
using openvgf::testing::ScratchDir;
using tosa::DType;
using tosa::Value;

TEST(PteRunPlan, DelegatesAndAViewBetweenThem) {
  WrittenProgram written = writeProgram(vgfProgram("aten::view_copy", "out", false));
  auto prog = readProgram(written.bytes);
  ASSERT_TRUE(prog) << prog.error().message();
  auto plan = planVgfExecution(*prog, "forward");
  ASSERT_TRUE(plan) << plan.error().message();
  ASSERT_EQ(plan->steps.size(), 3u);
  EXPECT_EQ(plan->delegates, 2u);
  EXPECT_EQ(plan->steps[0].kind, Step::Kind::Delegate);
  EXPECT_EQ(plan->steps[0].inputs, (std::vector<std::int32_t>{0}));
  EXPECT_EQ(plan->steps[0].outputs, (std::vector<std::int32_t>{1}));
  EXPECT_EQ(plan->steps[1].kind, Step::Kind::Copy);
  EXPECT_EQ(plan->steps[1].op, "aten::view_copy.out");
  EXPECT_EQ(plan->steps[1].inputs, (std::vector<std::int32_t>{1}));
  EXPECT_EQ(plan->steps[1].outputs, (std::vector<std::int32_t>{3}));
  EXPECT_EQ(plan->steps[2].delegate, 1u);
  EXPECT_EQ(plan->outputs, (std::vector<std::int32_t>{4}));
  EXPECT_THAT(formatRunnability(*prog), HasSubstr("plan 'forward': runs with `openvgf run` (2 VgfBackend delegate call(s), "
                                                  "1 copy/view step(s))"));
}

TEST(PteRunPlan, RefusesOperatorsThatAreNotCopiesAndNamesThem) {
  WrittenProgram written = writeProgram(vgfProgram("aten::add", "out", false));
  auto prog = readProgram(written.bytes);
  ASSERT_TRUE(prog) << prog.error().message();
  auto plan = planVgfExecution(*prog, "forward");
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().kind(), ErrorKind::Unsupported);
  EXPECT_THAT(plan.error().message(), HasSubstr("got one operation that openvgf cannot run: aten::add.out (instruction 1)"));
  auto missing = planVgfExecution(*prog, "backward");
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message(), HasSubstr("--plan: expected one of the program's plans ('forward'), got 'backward'"));
}

TEST(PteRunPlan, ReadBeforeWriteIsRefused) {
  TestProgram p = vgfProgram("aten::view_copy", "out", false);
  p.plans[0].instructions = {{TestInstruction::Kind::Delegate, 1, 0, {3, 4}}};
  WrittenProgram written = writeProgram(p);
  auto prog = readProgram(written.bytes);
  ASSERT_TRUE(prog) << prog.error().message();
  auto plan = planVgfExecution(*prog, "0");
  ASSERT_FALSE(plan);
  EXPECT_THAT(plan.error().message(), HasSubstr("instruction 0: value 3: expected it to be a plan input or written by an earlier "
                                                "instruction"));
}

class PteRunCli : public ::testing::TestWithParam<bool> {
 protected:
  std::string write(const std::string& name, const std::vector<std::uint8_t>& bytes) {
    std::ofstream(dir_ / name, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                      static_cast<std::streamsize>(bytes.size()));
    return dir_ / name;
  }
  ScratchDir dir_{"pte_run"};
};

TEST_P(PteRunCli, RunsTheDelegatesAndMatchesTheReference) {
  const std::string env = "XDG_CACHE_HOME=" + dir_ / "cache";
  const std::string pte = write("program.pte", writeProgram(vgfProgram("aten::view_copy", "out", GetParam())).bytes);
  tosa::HostTensor x(DType::Fp32, {1, 4, 4, 2});
  const std::vector<float> values = ramp(32, 0.75f, 0.125f);
  std::memcpy(x.bytes.data(), values.data(), x.bytes.size());
  ASSERT_TRUE(tosa::npy::writeTensor(dir_ / "x.npy", x));
  CommandResult r = runCli("run " + pte + " --input " + dir_ / "x.npy" + " -o " + dir_ / "y.npy" + " --validate --check", env);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("delegates[0] (instruction 0): a: PASS"));
  EXPECT_THAT(r.output, HasSubstr("delegates[1] (instruction 2): y: PASS"));
  EXPECT_THAT(r.output, HasSubstr("check: PASS"));
  auto y = tosa::npy::readTensor(dir_ / "y.npy", DType::Fp32, {1, 64});
  ASSERT_TRUE(y) << y.error().message();
  tosa::reference::RunOptions precise;
  precise.precise = true;
  auto expected = tosa::reference::run(composedModel(), std::vector<tosa::HostTensor>{x}, precise);
  ASSERT_TRUE(expected) << expected.error().message();
  auto verdicts = tosa::reference::checkOutputs(*expected, std::vector<tosa::HostTensor>{*y});
  ASSERT_TRUE(verdicts) << verdicts.error().message();
  for (const auto& v : *verdicts) EXPECT_TRUE(v.pass) << v.message;
  CommandResult i = runCli("inspect " + pte, env);
  EXPECT_EQ(i.exitCode, 0) << i.output;
  EXPECT_THAT(i.output, HasSubstr("plan 'forward': runs with `openvgf run`"));
}

INSTANTIATE_TEST_SUITE_P(Layouts, PteRunCli, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "Segments" : "Inline"; });

TEST(PteRunRefusal, NonDelegatedOperatorIsNamedAndNothingIsWritten) {
  ScratchDir dir("pte_refuse");
  const std::string pte = dir / "add.pte";
  const auto bytes = writeProgram(vgfProgram("aten::add", "out", false)).bytes;
  std::ofstream(pte, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  tosa::HostTensor x(DType::Fp32, {1, 4, 4, 2});
  ASSERT_TRUE(tosa::npy::writeTensor(dir / "x.npy", x));
  CommandResult r = runCli("run " + pte + " --input " + dir / "x.npy" + " -o " + dir / "y.npy");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("add.pte: execution_plan[0] 'forward': expected only VgfBackend delegates and plain copies/views "
                                  "between them, got one operation that openvgf cannot run: aten::add.out (instruction 1)"));
  EXPECT_FALSE(std::filesystem::exists(dir / "y.npy"));
  CommandResult i = runCli("inspect " + pte);
  EXPECT_EQ(i.exitCode, 0) << i.output;
  EXPECT_THAT(i.output, HasSubstr("plan 'forward': does not run with `openvgf run`:"));
}

}  // namespace
}  // namespace openvgf::pte::testing
