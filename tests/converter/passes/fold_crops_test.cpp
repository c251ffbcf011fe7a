// SPDX-License-Identifier: Apache-2.0
// fold-crops: a SLICE dropping trailing rows and columns of an NHWC tensor that only CONV2D
// input 0 reads becomes a crop alias; any other start, cropped dimension or reader keeps it.
#include <gtest/gtest.h>

#include "converter/passes/passes.h"
#include "tests/converter/graph_util.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::Op;

// x [1,6,6,4] -> SLICE(start, size) -> c; y = CONV2D(c, w, b) 1x1 stride 2 (or `reader`).
// With `reshapedTo`, the SLICE reads x RESHAPEd to that shape first.
converter::Program sliceThenRead(std::vector<std::int64_t> start, std::vector<std::int64_t> size, Op reader,
                                 std::vector<std::int64_t> reshapedTo = {}) {
  GraphBuilder g;
  g.input("x", DType::Fp32, {1, 6, 6, 4});
  std::string sliced = "x";
  if (!reshapedTo.empty()) {
    g.shapeConst("to", reshapedTo);
    g.tensor("r", DType::Fp32, reshapedTo);
    g.op(Op::Reshape, {}, {"x", "to"}, {"r"});
    sliced = "r";
  }
  g.shapeConst("start", start);
  g.shapeConst("size", size);
  g.tensor("c", DType::Fp32, size);
  g.op(Op::Slice, {}, {sliced, "start", "size"}, {"c"});
  if (reader == Op::Conv2d) {
    g.constant("w", DType::Fp32, {2, 1, 1, size[3]}, std::vector<float>(static_cast<std::size_t>(2 * size[3]), 0.5f));
    g.constant("b", DType::Fp32, {2}, std::vector<float>{0.0f, 1.0f});
    g.constant("izp", DType::Fp32, {1}, std::vector<float>{0.0f});
    g.constant("wzp", DType::Fp32, {1}, std::vector<float>{0.0f});
    g.tensor("y", DType::Fp32, {1, (size[1] - 1) / 2 + 1, (size[2] - 1) / 2 + 1, 2});
    tosa::ConvAttrs attrs;
    attrs.pad = {0, 0, 0, 0};
    attrs.stride = {2, 2};
    attrs.dilation = {1, 1};
    attrs.accType = DType::Fp32;
    g.op(Op::Conv2d, attrs, {"c", "w", "b", "izp", "wzp"}, {"y"});
  } else {
    g.tensor("y", DType::Fp32, size);
    g.op(reader, {}, {"c"}, {"y"});
  }
  g.output("y");
  auto program = converter::makeProgram(g.graph());
  EXPECT_TRUE(program) << (program ? "" : program.error().message());
  return program ? std::move(*program) : converter::Program{};
}

// fold-crops runs, reports no change and leaves the program as it was.
void expectNoCropFolded(converter::Program& program) {
  const std::string before = converter::dumpProgram(program);
  auto changed = converter::passes::foldCrops(program);
  ASSERT_TRUE(changed);
  EXPECT_FALSE(*changed) << before;
  EXPECT_EQ(converter::dumpProgram(program), before);
}

TEST(FoldCrops, TrailingCropReadByAConvolutionBecomesACropAlias) {
  converter::Program program = sliceThenRead({0, 0, 0, 0}, {1, 5, 5, 4}, Op::Conv2d);
  auto changed = converter::passes::foldCrops(program);
  ASSERT_TRUE(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ(converter::dumpProgram(program), "crop c -> x\n7 CONV2D(c, w, b, izp, wzp) -> y\n");
  EXPECT_TRUE(converter::verifyProgram(program));
}

TEST(FoldCrops, OtherSlicesAndReadersKeepTheSlice) {
  struct Case {
    std::vector<std::int64_t> start, size;
    Op reader;
  };
  const Case cases[] = {{{0, 1, 0, 0}, {1, 5, 5, 4}, Op::Conv2d},   // starts inside
                        {{0, 0, 0, 0}, {1, 5, 5, 2}, Op::Conv2d},   // crops channels
                        {{0, 0, 0, 0}, {1, 5, 5, 4}, Op::Exp}};     // read contiguously
  for (const Case& c : cases) {
    converter::Program program = sliceThenRead(c.start, c.size, c.reader);
    expectNoCropFolded(program);
  }
}

// A crop of a RESHAPEd tensor (x [1,6,6,4] read as [1,4,9,4]) has the reshape's row pitch,
// not that of the buffer the alias names, so it stays a copy.
TEST(FoldCrops, CropOfAReshapedViewKeepsTheSlice) {
  converter::Program program = sliceThenRead({0, 0, 0, 0}, {1, 3, 5, 4}, Op::Conv2d, {1, 4, 9, 4});
  auto elided = converter::passes::elideReshapes(program);
  ASSERT_TRUE(elided);
  ASSERT_TRUE(*elided) << "r becomes an alias of x";
  expectNoCropFolded(program);
}

TEST(FoldCrops, VerifierRejectsACropReadContiguously) {
  converter::Program program = sliceThenRead({0, 0, 0, 0}, {1, 5, 5, 4}, Op::Exp);
  program.nodes.erase(program.nodes.begin());
  program.aliases["c"] = "x";
  program.crops.insert("c");
  EXPECT_FALSE(converter::verifyProgram(program));
}

}  // namespace
}  // namespace openvgf::testing
