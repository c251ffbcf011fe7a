// SPDX-License-Identifier: Apache-2.0
// Builder: one small graph per TOSA 1.0 operator, each built -> written -> read back equal,
// and output shapes checked against hand-computed values from the spec's formulas.
#include "tosa/builder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "tosa/reader.h"
#include "tosa/verifier.h"
#include "tosa/writer.h"

namespace openvgf::tosa {
namespace {

HostTensor filled(DType t, Shape s) {
  HostTensor h(t, std::move(s));
  for (std::size_t i = 0; i < h.bytes.size(); ++i) h.bytes[i] = static_cast<std::uint8_t>(i * 7 + 1);
  return h;
}

struct OpCase {
  Op op;
  std::function<void(Builder&)> build;
  Shape expected;  // shape of the (first) graph output; hand-computed
};

// The common 1x8x8x4 graph input.
Value x4(Builder& b, DType t = DType::Fp32) { return b.input("x", t, {1, 8, 8, 4}); }

void addCasesArgMaxToTable(std::vector<OpCase>& c) {
  using F = DType;
  c.push_back({Op::ArgMax, [&](Builder& b) { b.output(b.argmax(x4(b), 3)); }, {1, 8, 8}});
  c.push_back({Op::AvgPool2d,
               [&](Builder& b) {
                 b.output(
                     b.avgPool2d(x4(b, F::Int8),
                                 {.kernel = {3, 3}, .stride = {1, 1}, .pad = {1, 1, 1, 1}, .inputZp = -3}));
               },
               {1, 8, 8, 4}});
  c.push_back({Op::Conv2d,
               [&](Builder& b) {
                 Value w = b.constant(filled(F::Fp32, {6, 3, 3, 4}));
                 // OH = (8 - 1 + 0 + 1 - 2 * 2) / 2 + 1 = 3
                 b.output(b.conv2d(x4(b), w, std::nullopt,
                                   {.pad = {0, 1, 0, 1}, .stride = {2, 2}, .dilation = {2, 2}}));
               },
               {1, 3, 3, 6}});
  c.push_back({Op::Conv3d,
               [&](Builder& b) {
                 Value x = b.input("x", F::Int8, {1, 4, 6, 6, 2});
                 Value w = b.constant(filled(F::Int8, {5, 2, 3, 3, 2}));
                 Value bias = b.constant(filled(F::Int32, {5}));
                 b.output(b.conv3d(x, w, bias, {.inputZp = 5, .weightZp = -1}));
               },
               {1, 3, 4, 4, 5}});
  c.push_back({Op::DepthwiseConv2d,
               [&](Builder& b) {
                 Value w = b.constant(filled(F::Fp32, {3, 3, 4, 2}));
                 b.output(b.depthwiseConv2d(x4(b), w, std::nullopt, {.pad = {1, 1, 1, 1}}));
               },
               {1, 8, 8, 8}});
  c.push_back({Op::Fft2d,
               [&](Builder& b) {
                 Value re = b.input("re", F::Fp32, {1, 8, 16});
                 Value im = b.input("im", F::Fp32, {1, 8, 16});
                 auto [r, i] = b.fft2d(re, im, true);
                 b.output(r);
                 b.output(i);
               },
               {1, 8, 16}});
  c.push_back({Op::MatMul,
               [&](Builder& b) {
                 Value a = b.input("a", F::Int8, {2, 3, 5});
                 Value m = b.input("m", F::Int8, {2, 5, 7});
                 b.output(b.matmul(a, m, {.aZp = 1, .bZp = 2}));
               },
               {2, 3, 7}});
  c.push_back({Op::MaxPool2d,
               [&](Builder& b) {
                 b.output(b.maxPool2d(x4(b, F::Int16), {.kernel = {2, 2}}));
               },
               {1, 4, 4, 4}});
  c.push_back({Op::Rfft2d,
               [&](Builder& b) {
                 auto [r, i] = b.rfft2d(b.input("x", F::Fp32, {1, 4, 8}));
                 b.output(r);
                 b.output(i);
               },
               {1, 4, 5}});
  c.push_back({Op::TransposeConv2d,
               [&](Builder& b) {
                 Value w = b.constant(filled(F::Fp16, {3, 3, 3, 4}));
                 // OH = (8 - 1) * 2 + 0 + 1 + 3 = 18
                 b.output(b.transposeConv2d(x4(b, F::Fp16), w, std::nullopt,
                                            {.outPad = {0, 1, 0, 1}, .stride = {2, 2}}));
               },
               {1, 18, 18, 3}});
  c.push_back({Op::Clamp, [&](Builder& b) { b.output(b.clamp(x4(b, F::Int8), -5, 100)); }, {1, 8, 8, 4}});
  for (Op op : {Op::Erf, Op::Sigmoid, Op::Tanh, Op::Ceil, Op::Cos, Op::Exp, Op::Floor, Op::Log,
                Op::Reciprocal, Op::Rsqrt, Op::Sin, Op::Abs, Op::Identity}) {
    c.push_back({op, [op](Builder& b) { b.output(b.addOperator(op, {x4(b)}, {}).at(0)); }, {1, 8, 8, 4}});
  }
  for (Op op : {Op::BitwiseNot, Op::Clz}) {
    c.push_back({op,
                 [op](Builder& b) { b.output(b.addOperator(op, {x4(b, F::Int32)}, {}).at(0)); },
                 {1, 8, 8, 4}});
  }
  c.push_back({Op::LogicalNot, [&](Builder& b) { b.output(b.logicalNot(x4(b, F::Bool))); }, {1, 8, 8, 4}});
  c.push_back({Op::Negate, [&](Builder& b) { b.output(b.negate(x4(b, F::Int8), 3, -2)); }, {1, 8, 8, 4}});
  auto bin = [](Op op, DType t) {
    return OpCase{op,
                  [op, t](Builder& b) {
                    Value a = b.input("a", t, {2, 1, 3});
                    Value y = b.input("b", t, {2, 4, 1});
                    Attributes attrs;
                    if (op == Op::ArithmeticRightShift) attrs = ArithmeticRightShiftAttrs{true};
                    if (op == Op::Maximum || op == Op::Minimum) attrs = NanModeAttrs{NanMode::Ignore};
                    b.output(b.addOperator(op, {a, y}, attrs).at(0));
                  },
                  {2, 4, 3}};
  };
  for (Op op :
       {Op::Add, Op::Sub, Op::Maximum, Op::Minimum, Op::Pow, Op::Equal, Op::Greater, Op::GreaterEqual}) {
    c.push_back(bin(op, F::Fp32));
  }
  for (Op op : {Op::ArithmeticRightShift, Op::BitwiseAnd, Op::BitwiseOr, Op::BitwiseXor, Op::IntDiv,
                Op::LogicalLeftShift, Op::LogicalRightShift}) {
    c.push_back(bin(op, F::Int32));
  }
  for (Op op : {Op::LogicalAnd, Op::LogicalOr, Op::LogicalXor}) c.push_back(bin(op, F::Bool));
  c.push_back({Op::Mul,
               [&](Builder& b) {
                 Value a = b.input("a", F::Int32, {2, 3});
                 b.output(b.mul(a, b.input("b", F::Int32, {1, 3}), 4));
               },
               {2, 3}});
  c.push_back({Op::Table,
               [&](Builder& b) {
                 std::vector<std::int32_t> t(513);
                 for (int i = 0; i < 513; ++i) t[static_cast<std::size_t>(i)] = i * 60 - 15000;
                 b.output(b.table(b.input("x", F::Int16, {4}), t));
               },
               {4}});
}

void addCasesSelectOnward(std::vector<OpCase>& c) {
  using F = DType;
  c.push_back({Op::Select,
               [&](Builder& b) {
                 Value cnd = b.input("c", F::Bool, {2, 1});
                 b.output(b.select(cnd, b.input("a", F::Int8, {1, 3}), b.input("b", F::Int8, {2, 3})));
               },
               {2, 3}});
  for (Op op : {Op::ReduceMax, Op::ReduceMin, Op::ReduceProduct, Op::ReduceSum}) {
    c.push_back({op,
                 [op](Builder& b) {
                   b.output(b.addOperator(op, {x4(b)}, AxisAttrs{2, NanMode::Propagate}).at(0));
                 },
                 {1, 8, 1, 4}});
  }
  for (Op op : {Op::ReduceAll, Op::ReduceAny}) {
    c.push_back({op,
                 [op](Builder& b) {
                   b.output(b.addOperator(op, {x4(b, F::Bool)}, AxisAttrs{0, NanMode::Propagate}).at(0));
                 },
                 {1, 8, 8, 4}});
  }
  c.push_back({Op::Concat,
               [&](Builder& b) {
                 Value a = b.input("a", F::Fp16, {2, 3});
                 b.output(b.concat({a, b.input("b", F::Fp16, {2, 5}), a}, 1));
               },
               {2, 11}});
  c.push_back({Op::Pad,
               [&](Builder& b) {
                 b.output(b.pad(x4(b, F::Int8), {0, 0, 1, 2, 3, 4, 0, 1}, -128));
               },
               {1, 11, 15, 5}});
  c.push_back({Op::Reshape, [&](Builder& b) { b.output(b.reshape(x4(b), {16, 16})); }, {16, 16}});
  c.push_back({Op::Reverse, [&](Builder& b) { b.output(b.reverse(x4(b), 1)); }, {1, 8, 8, 4}});
  c.push_back({Op::Slice,
               [&](Builder& b) {
                 b.output(b.slice(x4(b), {0, 1, 2, 0}, {1, 3, 6, 4}));
               },
               {1, 3, 6, 4}});
  c.push_back({Op::Tile, [&](Builder& b) { b.output(b.tile(x4(b), {2, 1, 3, 1})); }, {2, 8, 24, 4}});
  c.push_back({Op::Transpose,
               [&](Builder& b) {
                 b.output(b.transpose(b.input("x", F::Int8, {2, 3, 5}), {2, 0, 1}));
               },
               {5, 2, 3}});
  c.push_back({Op::Gather,
               [&](Builder& b) {
                 Value v = b.input("v", F::Fp32, {2, 10, 4});
                 b.output(b.gather(v, b.input("i", F::Int32, {2, 6})));
               },
               {2, 6, 4}});
  c.push_back({Op::Scatter,
               [&](Builder& b) {
                 Value v = b.input("v", F::Int16, {2, 10, 4});
                 Value i = b.input("i", F::Int32, {2, 3});
                 b.output(b.scatter(v, i, b.input("x", F::Int16, {2, 3, 4})));
               },
               {2, 10, 4}});
  c.push_back({Op::Resize,
               [&](Builder& b) {
                 // OH = ((8 - 1) * 4 - 0 + 2) / 2 + 1 = 16 ... with scale 4/2 and border 2.
                 b.output(b.resize(x4(b, F::Int8), {4, 2, 4, 2}, {0, 0}, {2, 2}, ResizeMode::Bilinear));
               },
               {1, 16, 16, 4}});
  c.push_back({Op::Cast, [&](Builder& b) { b.output(b.cast(x4(b), F::Bf16)); }, {1, 8, 8, 4}});
  c.push_back({Op::Rescale,
               [&](Builder& b) {
                 b.output(b.rescale(x4(b, F::Int32), {.outType = F::Int8,
                                                      .multiplier = {1 << 30, 1 << 29, 1 << 30, 3 << 28},
                                                      .shift = {31, 32, 33, 40},
                                                      .outputZp = -4,
                                                      .roundingMode = RoundingMode::DoubleRound}));
               },
               {1, 8, 8, 4}});
  c.push_back({Op::Const,
               [&](Builder& b) {
                 Value k = b.constant(F::Int4, {5}, std::vector<int>{-7, 7, 0, 3, -1});
                 b.output(k);
               },
               {5}});
  c.push_back({Op::ConstShape,
               [&](Builder& b) {
                 Value s = b.constShape({3, 2});
                 b.output(b.reshape(b.input("x", F::Fp32, {6}), {3, 2}));
                 (void)s;
               },
               {3, 2}});
  c.push_back({Op::Custom,
               [&](Builder& b) {
                 CustomAttrs a{"my_op", "my_domain", {1, 2, 3}};
                 b.output(b.custom({x4(b)}, a, {{F::Fp32, {4}}}).at(0));
               },
               {4}});
  c.push_back(
      {Op::CondIf,
       [&](Builder& b) {
         Value cnd = b.input("c", F::Bool, {1});
         Value x = x4(b);
         Value k = b.splat(F::Fp32, {1, 1, 1, 1}, 2.0);
         auto out = b.condIf(
             cnd, {x},
             [&](Builder& t, const std::vector<Value>& in) { return std::vector<Value>{t.add(in[0], k)}; },
             [&](Builder& e, const std::vector<Value>& in) { return std::vector<Value>{e.sub(in[0], k)}; });
         b.output(out.at(0));
       },
       {1, 8, 8, 4}});
  c.push_back({Op::WhileLoop,
               [&](Builder& b) {
                 Value i = b.input("i", F::Int32, {1});
                 Value limit = b.constant(F::Int32, {1}, std::vector<int>{10});
                 Value one = b.constant(F::Int32, {1}, std::vector<int>{1});
                 auto out = b.whileLoop(
                     {i}, [&](Builder& cb, const std::vector<Value>& in) { return cb.greater(limit, in[0]); },
                     [&](Builder& bb, const std::vector<Value>& in) {
                       return std::vector<Value>{bb.add(in[0], one)};
                     });
                 b.output(out.at(0));
               },
               {1}});
  c.push_back({Op::VariableRead,
               [&](Builder& b) {
                 Value state = b.variable("state", filled(F::Fp32, {2, 2}));
                 Value x = b.input("x", F::Fp32, {2, 2});
                 Value y = b.add(b.variableRead(state), x);
                 b.variableWrite(state, y);
                 b.output(y);
               },
               {2, 2}});
}

std::vector<OpCase> cases() {
  std::vector<OpCase> c;
  addCasesArgMaxToTable(c);
  addCasesSelectOnward(c);
  return c;
}

TEST(TosaBuilder, EveryOpRoundTrips) {
  std::set<Op> covered;
  for (const OpCase& c : cases()) {
    SCOPED_TRACE(std::string(toString(c.op)));
    Builder b;
    c.build(b);
    auto g = b.build();
    ASSERT_TRUE(g) << g.error().message();
    const Block& main = *g->mainBlock();
    ASSERT_FALSE(main.outputs.empty());
    const Tensor* out = g->findTensor(main, main.outputs[0]);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->shape, c.expected);
    auto bytes = writeGraph(*g);
    ASSERT_TRUE(bytes) << bytes.error().message();
    auto back = readGraph(*bytes, "built.tosa");
    ASSERT_TRUE(back) << back.error().message();
    EXPECT_EQ(*back, *g);
    auto moved = std::move(b).build();
    ASSERT_TRUE(moved);
    EXPECT_EQ(*moved, *g);
    Status ok = verify(*g);
    EXPECT_TRUE(ok) << ok.error().message();
    for (const Region& r : g->regions) {
      for (const Block& blk : r.blocks) {
        for (const Operator& op : blk.operators) covered.insert(op.op);
      }
    }
  }
  // Every TOSA 1.0 op except the VARIABLE* trio (written as IDENTITY by TOSA tools) is built.
  for (std::uint32_t i = 1; i <= kMaxOp; ++i) {
    Op op = static_cast<Op>(i);
    if (op == Op::Variable || op == Op::VariableRead || op == Op::VariableWrite) continue;
    EXPECT_TRUE(covered.contains(op)) << toString(op);
  }
}

TEST(TosaBuilder, ConvInfersTypesAndZeroPoints) {
  Builder b;
  Value x = b.input("x", DType::Int8, {1, 5, 5, 2});
  Value w = b.constant(filled(DType::Int8, {3, 3, 3, 2}), "w");
  Value y = b.conv2d(x, w, std::nullopt, {.stride = {2, 2}, .inputZp = -128, .name = "y"});
  EXPECT_EQ(y.name, "y");
  EXPECT_EQ(y.dtype, DType::Int32);
  EXPECT_EQ(y.shape, (Shape{1, 2, 2, 3}));  // (5 - 1 - 2) / 2 + 1 = 2
  b.output(y);
  auto g = b.build();
  ASSERT_TRUE(g);
  const Operator& conv = g->mainBlock()->operators.back();
  ASSERT_EQ(conv.inputs.size(), 5u);
  const Tensor* izp = g->mainBlock()->findTensor(conv.inputs[3]);
  ASSERT_NE(izp, nullptr);
  EXPECT_EQ(izp->dtype, DType::Int8);
  EXPECT_EQ(static_cast<std::int8_t>(izp->data->at(0)), -128);
  const Tensor* bias = g->mainBlock()->findTensor(conv.inputs[2]);
  EXPECT_EQ(bias->dtype, DType::Int32);
  EXPECT_EQ(std::get<ConvAttrs>(conv.attrs).accType, DType::Int32);
}

TEST(TosaBuilder, ErrorsAreStickyAndNamed) {
  Builder b;
  Value x = b.input("x", DType::Fp32, {1, 5, 5, 2});
  Value w = b.constant(filled(DType::Fp32, {3, 2, 2, 2}));
  // (5 - 1 - 1) / 2 is not exact.
  Value y = b.conv2d(x, w, std::nullopt, {.stride = {2, 2}});
  EXPECT_TRUE(y.name.empty());
  b.output(b.add(y, y));
  auto g = b.build();
  ASSERT_FALSE(g);
  EXPECT_NE(g.error().message().find("CONV2D"), std::string::npos) << g.error().message();
  EXPECT_NE(
      g.error().message().find("OH = (IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y) / stride_y + 1 "
                               "must divide exactly"),
      std::string::npos)
      << g.error().message();

  Builder d;
  d.input("x", DType::Fp32, {1});
  d.input("x", DType::Fp32, {1});
  EXPECT_NE(d.build().error().message().find("tensor 'x': expected a unique name"), std::string::npos);
}

TEST(TosaBuilder, FloatEncodings) {
  EXPECT_EQ(floatToBits(DType::Fp16, 1.0), 0x3C00);
  EXPECT_EQ(floatToBits(DType::Fp16, 65504.0), 0x7BFF);
  EXPECT_EQ(floatToBits(DType::Fp16, 65520.0), 0x7C00);  // rounds to inf
  EXPECT_EQ(floatToBits(DType::Fp16, -0.0), 0x8000);
  EXPECT_EQ(floatToBits(DType::Fp16, 5.960464477539063e-08), 0x0001);  // 2^-24
  EXPECT_EQ(floatToBits(DType::Fp16, 1.0 + 1.0 / 2048), 0x3C00);       // tie to even
  EXPECT_EQ(floatToBits(DType::Bf16, 1.0), 0x3F80);
  EXPECT_EQ(floatToBits(DType::Bf16, -2.0), 0xC000);
  EXPECT_EQ(floatToBits(DType::Fp8E4M3, 448.0), 0x7E);
  EXPECT_EQ(floatToBits(DType::Fp8E4M3, 1.0), 0x38);
  EXPECT_EQ(floatToBits(DType::Fp8E4M3, 1000.0), 0x7F);  // no inf: NaN
  EXPECT_EQ(floatToBits(DType::Fp8E5M2, 1.0), 0x3C);
  EXPECT_EQ(floatToBits(DType::Fp8E5M2, 57344.0), 0x7B);
  EXPECT_EQ(floatToBits(DType::Fp8E5M2, 1.0e6), 0x7C);
}

}  // namespace
}  // namespace openvgf::tosa
