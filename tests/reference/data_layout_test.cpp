// SPDX-License-Identifier: Apache-2.0
// Data layout operators and GATHER / SCATTER.
#include "graph_helpers.h"

namespace openvgf::tosa {
namespace {

using namespace reftest;
using ::testing::ElementsAre;

const HostTensor k2x3 = ints(DType::Int16, {2, 3}, {1, 2, 3, 4, 5, 6});

TEST(DataLayout, ConcatPadReshapeReverse) {
  GraphBuilder b;
  auto x = b.input(k2x3);
  auto y = b.input(ints(DType::Int16, {2, 1}, {7, 8}));
  auto out = b.tensor(DType::Int16, {2, 4});
  b.op(Op::Concat, {x, y}, {out}, AxisAttrs{1});
  b.output(out);
  auto r = b.run();
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_THAT(intValues(r->outputs[0].value), ElementsAre(1, 2, 3, 7, 4, 5, 6, 8));
  EXPECT_THAT(intValues(runOp(Op::Pad, {k2x3, shapeValue({1, 0, 0, 1}), ints(DType::Int16, {1}, {-9})}, DType::Int16,
                              {3, 4}, {}, {false, true, true})),
              ElementsAre(-9, -9, -9, -9, 1, 2, 3, -9, 4, 5, 6, -9));
  EXPECT_THAT(intValues(runOp(Op::Reshape, {k2x3, shapeValue({3, 2})}, DType::Int16, {3, 2})), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(intValues(runOp(Op::Reverse, {k2x3}, DType::Int16, {2, 3}, AxisAttrs{1})), ElementsAre(3, 2, 1, 6, 5, 4));
  std::string msg = runOpError(Op::Reshape, {k2x3, shapeValue({4, 2})}, DType::Int16, {4, 2});
  EXPECT_NE(msg.find("expected 6 elements"), std::string::npos) << msg;
}

TEST(DataLayout, SliceTileTranspose) {
  EXPECT_THAT(intValues(runOp(Op::Slice, {k2x3, shapeValue({1, 1}), shapeValue({1, 2})}, DType::Int16, {1, 2})),
              ElementsAre(5, 6));
  EXPECT_THAT(intValues(runOp(Op::Tile, {ints(DType::Int8, {1, 2}, {1, 2}), shapeValue({2, 2})}, DType::Int8, {2, 4})),
              ElementsAre(1, 2, 1, 2, 1, 2, 1, 2));
  EXPECT_THAT(intValues(runOp(Op::Transpose, {k2x3}, DType::Int16, {3, 2}, TransposeAttrs{{1, 0}})),
              ElementsAre(1, 4, 2, 5, 3, 6));
  std::string msg = runOpError(Op::Slice, {k2x3, shapeValue({1, 2}), shapeValue({1, 2})}, DType::Int16, {1, 2});
  EXPECT_NE(msg.find("start + size"), std::string::npos) << msg;
  msg = runOpError(Op::Transpose, {k2x3}, DType::Int16, {3, 2}, TransposeAttrs{{0, 0}});
  EXPECT_NE(msg.find("permutation"), std::string::npos) << msg;
}

TEST(DataLayout, DeclaredShapeMismatchIsAnError) {
  std::string msg = runOpError(Op::Transpose, {k2x3}, DType::Int16, {2, 3}, TransposeAttrs{{1, 0}});
  EXPECT_NE(msg.find("expected shape [3,2]"), std::string::npos) << msg;
}

TEST(GatherScatter, Basic) {
  auto values = ints(DType::Int32, {1, 3, 2}, {1, 2, 3, 4, 5, 6});
  auto idx = ints(DType::Int32, {1, 2}, {2, 0});
  EXPECT_THAT(intValues(runOp(Op::Gather, {values, idx}, DType::Int32, {1, 2, 2})), ElementsAre(5, 6, 1, 2));
  auto zeros = floats(DType::Fp32, {1, 3, 1}, {0, 0, 0});
  EXPECT_THAT(floatValues(runOp(Op::Scatter, {zeros, ints(DType::Int32, {1, 1}, {1}), floats(DType::Fp32, {1, 1, 1}, {7})},
                                DType::Fp32, {1, 3, 1})),
              ElementsAre(0, 7, 0));
}

}  // namespace
}  // namespace openvgf::tosa
