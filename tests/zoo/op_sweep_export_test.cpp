// SPDX-License-Identifier: Apache-2.0
// openvgf-op-sweep (benchmarks/models/op_sweep_main.cpp) through its binary: the files it writes
// are the sweep case the tests run (same inputs), a .tosa that `openvgf reference` runs to the
// hand-computed sum, and a selection naming no case is refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <vector>

#include "tests/support/cli_runner.h"
#include "tests/support/op_sweep_cases.h"
#include "tosa/npy.h"

namespace openvgf::testing {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

const std::string kTool = OPENVGF_OP_SWEEP;

std::vector<std::int32_t> ints(const fs::path& path) {
  auto t = tosa::npy::readTensor(path, DType::Int32);
  EXPECT_TRUE(t) << (t ? "" : t.error().message());
  if (!t) return {};
  auto v = t->as<std::int32_t>();
  return {v.begin(), v.end()};
}

TEST(OpSweepExport, WritesTheSweepCaseThatTheReferenceRunsToTheSum) {
  ScratchDir dir("op_sweep_export");
  CommandResult r = runCommand(kTool + " --out " + dir / "sweep" + " --cases ADD_INT32");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("wrote 1 case(s)"));
  const fs::path inputs = dir.path() / "sweep/ADD_INT32/inputs";
  const std::vector<std::int32_t> a = ints(inputs / "in0.npy"), b = ints(inputs / "in1.npy");
  // ADD_INT32 adds a [2, 3, 5] and a [2, 1, 5] tensor (broadcast over the middle axis).
  ASSERT_EQ(a.size(), 30u);
  ASSERT_EQ(b.size(), 10u);

  // The inputs are the ones op_sweep_test feeds this case.
  const Case* addInt32 = nullptr;
  const std::vector<Case> cases = allCases();
  for (const Case& c : cases) {
    if (c.name == "ADD_INT32") addInt32 = &c;
  }
  ASSERT_NE(addInt32, nullptr);
  BuiltCase built = buildCase(*addInt32);
  ASSERT_EQ(built.inputs.size(), 2u);
  auto builtA = built.inputs[0].as<std::int32_t>();
  EXPECT_EQ(a, std::vector<std::int32_t>(builtA.begin(), builtA.end()));

  CommandResult ref = runCli("reference " + dir / "sweep/ADD_INT32.tosa" + " -i " + (inputs / "in0.npy").string() +
                             " " + (inputs / "in1.npy").string() + " -o " + dir / "sum.npy");
  ASSERT_EQ(ref.exitCode, 0) << ref.output;
  const std::vector<std::int32_t> sum = ints(dir.path() / "sum.npy");
  ASSERT_EQ(sum.size(), a.size());
  for (std::size_t i = 0; i < 2; ++i) {
    for (std::size_t j = 0; j < 3; ++j) {
      for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(sum[i * 15 + j * 5 + k], a[i * 15 + j * 5 + k] + b[i * 5 + k]);
    }
  }
}

TEST(OpSweepExport, ListsTheCasesAndRefusesASelectionNamingNone) {
  CommandResult list = runCommand(kTool + " --list");
  ASSERT_EQ(list.exitCode, 0) << list.output;
  EXPECT_THAT(list.output, HasSubstr("CONV2D_INT8"));
  EXPECT_THAT(list.output, HasSubstr("RESCALE_INT8_INT8_pc"));

  ScratchDir dir("op_sweep_export_none");
  CommandResult none = runCommand(kTool + " --out " + dir / "sweep" + " --cases NO_SUCH_OP");
  EXPECT_EQ(none.exitCode, 2);
  EXPECT_THAT(none.output, HasSubstr("no case name contains any of the --cases substrings"));
}

}  // namespace
}  // namespace openvgf::testing
