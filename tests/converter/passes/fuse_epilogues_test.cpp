// SPDX-License-Identifier: Apache-2.0
// fuse-epilogues: CONV2D -> RESCALE -> CLAMP and MATMUL -> ADD(residual) fuse; a consumer
// whose other input is produced later, or an intermediate with two readers, does not.
#include <gtest/gtest.h>

#include "converter/passes/passes.h"
#include "tests/converter/graph_util.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::Op;

void conv(GraphBuilder& g, const std::string& out) {
  g.input("x", DType::Int8, {1, 4, 4, 2});
  g.constant<std::int8_t>("w", DType::Int8, {3, 1, 1, 2}, {1, 2, 3, 4, 5, 6});
  g.constant<std::int32_t>("b", DType::Int32, {3}, {0, 0, 0});
  g.constant<std::int8_t>("zp", DType::Int8, {1}, {0});
  g.tensor(out, DType::Int32, {1, 4, 4, 3});
  g.op(Op::Conv2d, tosa::ConvAttrs{{0, 0, 0, 0}, {1, 1}, {1, 1}, false, DType::Int32}, {"x", "w", "b", "zp", "zp"}, {out});
}

TEST(FuseEpilogues, ConvRescaleClamp) {
  GraphBuilder g;
  conv(g, "acc");
  g.constant<std::int32_t>("m", DType::Int32, {1}, {1 << 30});
  g.constant<std::int8_t>("s", DType::Int8, {1}, {31});
  g.constant<std::int32_t>("izp", DType::Int32, {1}, {0});
  g.constant<std::int8_t>("ozp", DType::Int8, {1}, {0});
  g.tensor("q", DType::Int8, {1, 4, 4, 3});
  tosa::RescaleAttrs ra;
  ra.scale32 = true;
  g.op(Op::Rescale, ra, {"acc", "m", "s", "izp", "ozp"}, {"q"});
  g.tensor("y", DType::Int8, {1, 4, 4, 3});
  g.op(Op::Clamp, tosa::ClampAttrs{{0}, {100}, tosa::NanMode::Propagate}, {"q"}, {"y"});
  g.output("y");
  auto program = converter::makeProgram(g.graph());
  ASSERT_TRUE(program);
  auto changed = converter::passes::fuseEpilogues(*program);
  ASSERT_TRUE(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ(converter::dumpProgram(*program),
            "3 CONV2D(x, w, b, zp, zp) -> acc |> RESCALE(acc, m, s, izp, ozp) -> q |> CLAMP(q) -> y\n");
}

TEST(FuseEpilogues, SharedIntermediateIsNotFused) {
  GraphBuilder g;
  conv(g, "acc");
  g.tensor("y1", DType::Int32, {1, 4, 4, 3});
  g.tensor("y2", DType::Int32, {1, 4, 4, 3});
  g.op(Op::Add, {}, {"acc", "acc"}, {"y1"});
  g.op(Op::Sub, {}, {"acc", "y1"}, {"y2"});
  g.output("y2");
  auto program = converter::makeProgram(g.graph());
  ASSERT_TRUE(program);
  auto before = converter::dumpProgram(*program);
  auto changed = converter::passes::fuseEpilogues(*program);
  ASSERT_TRUE(changed);
  EXPECT_FALSE(*changed);
  EXPECT_EQ(converter::dumpProgram(*program), before);
}

TEST(FuseEpilogues, MatMulResidualAdd) {
  GraphBuilder g;
  g.input("a", DType::Fp32, {1, 4, 8});
  g.input("b", DType::Fp32, {1, 8, 4});
  g.input("r", DType::Fp32, {1, 4, 4});
  g.constant<float>("zp", DType::Fp32, {1}, {0.0f});
  g.tensor("mm", DType::Fp32, {1, 4, 4});
  g.op(Op::MatMul, {}, {"a", "b", "zp", "zp"}, {"mm"});
  g.tensor("y", DType::Fp32, {1, 4, 4});
  g.op(Op::Add, {}, {"r", "mm"}, {"y"});
  g.output("y");
  auto program = converter::makeProgram(g.graph());
  ASSERT_TRUE(program);
  auto changed = converter::passes::fuseEpilogues(*program);
  ASSERT_TRUE(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ(converter::dumpProgram(*program), "1 MATMUL(a, b, zp, zp) -> mm |> ADD(r, mm) -> y\n");
}

}  // namespace
}  // namespace openvgf::testing
