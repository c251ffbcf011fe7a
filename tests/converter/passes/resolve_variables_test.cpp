// SPDX-License-Identifier: Apache-2.0
// resolve-variables: reads and writes become IDENTITY nodes over the `state:<name>` model
// input/output pair, in program order; a variable nothing writes is passed through.
#include <gtest/gtest.h>

#include "converter/passes/passes.h"
#include "tests/converter/graph_util.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::Value;

TEST(ResolveVariables, ReadsAndWritesFollowProgramOrder) {
  tosa::Builder b;
  Value x = b.input("x", DType::Fp32, {4});
  tosa::HostTensor init(DType::Fp32, {4});
  Value acc = b.variable("acc", init);
  Value first = b.variableRead(acc, "first");
  b.variableWrite(acc, b.add(first, x, "sum"));
  b.output(b.variableRead(acc, "second"));
  converter::Program program = programOf(b);
  EXPECT_TRUE(converter::verifyProgram(program));  // unresolved variables are valid too
  auto changed = converter::passes::resolveVariables(program);
  ASSERT_TRUE(changed) << changed.error().message();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(converter::dumpProgram(program),
            "0 IDENTITY(state:acc) -> first\n"
            "1 ADD(first, x) -> sum\n"
            "2 IDENTITY(sum) -> state:acc#2\n"
            "3 IDENTITY(state:acc#2) -> second\n");
  EXPECT_EQ(program.inputs, (std::vector<std::string>{"x", "state:acc"}));
  EXPECT_EQ(program.outputs, (std::vector<std::string>{"second", "state:acc#2"}));
  EXPECT_EQ(program.outputNames, (std::vector<std::string>{"second", "state:acc"}));
  EXPECT_TRUE(program.variables.empty());
  EXPECT_TRUE(converter::verifyProgram(program));
  auto again = converter::passes::resolveVariables(program);
  ASSERT_TRUE(again);
  EXPECT_FALSE(*again);
}

TEST(ResolveVariables, UnwrittenVariableIsPassedThrough) {
  tosa::Builder b;
  Value x = b.input("x", DType::Int32, {2});
  tosa::HostTensor init(DType::Int32, {2});
  Value state = b.variable("s", init);
  b.output(b.add(b.variableRead(state, "r"), x, "y"));
  converter::Program program = programOf(b);
  ASSERT_TRUE(converter::passes::resolveVariables(program));
  EXPECT_EQ(converter::dumpProgram(program),
            "0 IDENTITY(state:s) -> r\n"
            "1 ADD(r, x) -> y\n"
            "2 IDENTITY(state:s) -> state:s#out\n");
  EXPECT_EQ(program.outputs, (std::vector<std::string>{"y", "state:s#out"}));
  EXPECT_EQ(program.outputNames, (std::vector<std::string>{"y", "state:s"}));
}

}  // namespace
}  // namespace openvgf::testing
