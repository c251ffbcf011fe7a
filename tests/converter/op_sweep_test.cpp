// SPDX-License-Identifier: Apache-2.0
// Every case of the operator sweep (tests/support/op_sweep_cases.h) converted, run by
// runner::Session on lavapipe with the validation layer, and judged against the reference
// interpreter with the TOSA compliance checker (integers bit-exact).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "converter/convert.h"
#include "runner/context.h"
#include "runner/model.h"
#include "runner/session.h"
#include "tests/support/op_sweep_cases.h"
#include "tests/support/sanitizer_stride.h"
#include "tosa/reference/reference.h"
#include "vgf/decoder.h"

namespace openvgf::testing {
namespace {

class OpSweep : public ::testing::TestWithParam<Case> {};

TEST_P(OpSweep, MatchesReference) {
  auto [graph, inputs] = buildCase(GetParam());
  ASSERT_TRUE(graph) << graph.error().message();

  converter::ConvertOptions options;
  options.cacheDir = std::filesystem::temp_directory_path() / "openvgf-converter-test-cache";
  auto converted = converter::convert(*graph, options);
  ASSERT_TRUE(converted) << converted.error().message();
  auto file = vgf::decode(converted->vgf);
  ASSERT_TRUE(file) << file.error().message();
  auto model = runner::Model::create(*file, GetParam().name + ".vgf");
  ASSERT_TRUE(model) << model.error().message();
  runner::ContextOptions contextOptions;
  contextOptions.validate = true;
  contextOptions.pipelineCache = false;
  auto context = runner::Context::create(contextOptions, *model);
  if (!context && context.error().kind() == ErrorKind::Environment) GTEST_SKIP() << context.error().message();
  ASSERT_TRUE(context) << context.error().message();
  auto session = runner::Session::create(**context, *model);
  ASSERT_TRUE(session) << session.error().message();
  auto actual = session->run(inputs);
  ASSERT_TRUE(actual) << actual.error().message();

  tosa::reference::RunOptions refOptions;
  refOptions.precise = true;
  auto expected = tosa::reference::run(*graph, inputs, refOptions);
  ASSERT_TRUE(expected) << expected.error().message();
  auto verdicts = tosa::reference::checkOutputs(*expected, *actual);
  ASSERT_TRUE(verdicts) << verdicts.error().message();
  for (const auto& v : *verdicts) EXPECT_TRUE(v.pass) << v.message;
}

// The sanitizer trees take the first, third, ... case of each operator (the operator is the
// name up to its first type, e.g. REDUCE_SUM of REDUCE_SUM_FP16_axis0): every operator still
// runs there (tests/support/sanitizer_stride.h says why), and Release takes every case.
std::vector<Case> sweepCases() {
  std::vector<Case> cases = allCases();
  if (kSanitizerStride == 1) return cases;
  std::map<std::string, std::size_t> seen;
  std::vector<Case> sample;
  for (Case& c : cases) {
    std::size_t typeAt = c.name.size();
    for (const char* type : {"_INT", "_UINT", "_FP", "_BF", "_BOOL"}) typeAt = std::min(typeAt, c.name.find(type));
    if (seen[c.name.substr(0, typeAt)]++ % 2 == 0) sample.push_back(std::move(c));
  }
  return sample;
}

INSTANTIATE_TEST_SUITE_P(Ops, OpSweep, ::testing::ValuesIn(sweepCases()),
                         [](const ::testing::TestParamInfo<Case>& param) { return param.param.name; });

}  // namespace
}  // namespace openvgf::testing
