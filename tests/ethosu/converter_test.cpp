// SPDX-License-Identifier: Apache-2.0
// End-to-end Ethos-U tests: TOSA int8 graph -> converter -> vela_bin_stream -> simulator,
// compared byte for byte with the TOSA reference interpreter; plus refusals and the
// weight/scale encodings read back through the runner's decoders.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "ethosu/command_stream.h"
#include "ethosu/cop1.h"
#include "ethosu/disassembler.h"
#include "ethosu/scale_stream.h"
#include "ethosu/weight_codec.h"
#include "ethosu/weight_order.h"
#include "tests/ethosu/graph_util.h"

namespace openvgf::ethosu_test {
namespace {

namespace fu = ::openvgf::ethosu;

/// Whether the suite runs for a U85 configuration (OPENVGF_ETHOSU_TEST_TARGET).
bool onU85() { return defaultTestTarget().starts_with("ethos-u85"); }

TEST(EthosUConvert, ConvRescaleAcrossShapesStridesPaddingsAndZeroPoints) {
  std::mt19937 rng(7);
  struct Case {
    tosa::Shape in;
    int cout, kh, kw;
    std::vector<std::int32_t> stride, pad, dilation;
    int inZp, outZp, weightZp;
  };
  const std::vector<Case> cases = {
      {{1, 8, 8, 16}, 16, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, -3, 5, 0},   // the §1.7 shape
      {{1, 9, 7, 5}, 12, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, 0, -7, 3},    // part-kernel-first (IFM depth <= 8)
      {{1, 10, 11, 40}, 24, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, 12, 0, 0}, // 1x1, IFM depth > 32
      {{1, 12, 12, 8}, 8, 5, 3, {3, 2}, {1, 1, 1, 0}, {1, 1}, -128, 127, -5},
      {{1, 11, 13, 6}, 10, 3, 3, {1, 1}, {2, 2, 2, 2}, {2, 2}, 4, -4, 0},  // dilation 2
      {{1, 4, 20, 3}, 130, 2, 9, {1, 1}, {0, 1, 4, 4}, {1, 1}, 1, 2, 0},   // > 128 output channels, 9-wide kernel
  };
  for (const Case& c : cases) {
    GraphBuilder g;
    std::string x = g.input("x", c.in);
    g.output(g.conv(x, c.cout, c.kh, c.kw, c.stride, c.pad, c.dilation, c.inZp, c.outZp, rng, false, c.weightZp));
    expectBitExact(g.graph(), rng);
  }
}

TEST(EthosUConvert, ConvWithFusedClampOnEveryConfiguration) {
  for (std::string_view target :
       {"ethos-u55-32", "ethos-u55-64", "ethos-u55-128", "ethos-u55-256", "ethos-u65-256", "ethos-u65-512"}) {
    std::mt19937 rng(11);
    GraphBuilder g;
    std::string x = g.input("x", {1, 7, 9, 20});
    std::string y = g.conv(x, 19, 3, 3, {1, 2}, {1, 1, 1, 1}, {1, 1}, 3, -20, rng);
    g.output(g.clamp(y, -20, 100));
    auto model = expectBitExact(g.graph(), rng, std::string(target));
    EXPECT_EQ(model.stats.npuOperations, 1u) << target;
  }
}

TEST(EthosUConvert, DepthwiseConv) {
  std::mt19937 rng(3);
  for (int stride : {1, 2}) {
    GraphBuilder g;
    std::string x = g.input("x", {1, 9, 10, 24});
    const std::vector<std::int32_t> pad = stride == 1 ? std::vector<std::int32_t>{1, 1, 1, 1} : std::vector<std::int32_t>{1, 1, 1, 0};
    std::string y = g.conv(x, 0, 3, 3, {stride, stride}, pad, {1, 1}, -2, 6, rng, true, 1);
    g.output(g.clamp(y, 6, 127));
    expectBitExact(g.graph(), rng);
  }
}

TEST(EthosUConvert, FullyConnectedAsMatMul) {
  std::mt19937 rng(5);
  GraphBuilder g;
  std::string x = g.input("x", {1, 3, 50});
  std::vector<std::int64_t> b(50 * 20);
  for (auto& v : b) v = std::uniform_int_distribution<int>(-128, 127)(rng);
  std::string bt = g.constant(DType::Int8, {1, 50, 20}, b);
  std::string acc = g.op(Op::MatMul, std::monostate{}, {x, bt, g.scalar(DType::Int8, 9), g.scalar(DType::Int8, -4)},
                         {1, 3, 20}, DType::Int32);
  g.output(g.rescale(acc, DType::Int8, {1518500250}, {42}, 0, -1, false));
  expectBitExact(g.graph(), rng);
}

TEST(EthosUConvert, Pools) {
  std::mt19937 rng(9);
  {
    GraphBuilder g;
    std::string x = g.input("x", {1, 9, 9, 12});
    tosa::MaxPool2dAttrs a{{3, 3}, {2, 2}, {1, 1, 1, 1}, tosa::NanMode::Propagate};
    g.output(g.op(Op::MaxPool2d, a, {x}, {1, 5, 5, 12}, DType::Int8));
    expectBitExact(g.graph(), rng);
  }
  {
    GraphBuilder g;
    std::string x = g.input("x", {1, 8, 6, 10});
    tosa::AvgPool2dAttrs a{{2, 3}, {2, 3}, {0, 0, 0, 0}, DType::Int32};
    g.output(g.op(Op::AvgPool2d, a, {x, g.scalar(DType::Int8, -5), g.scalar(DType::Int8, 7)}, {1, 4, 2, 10}, DType::Int8));
    expectBitExact(g.graph(), rng);
  }
  {
    GraphBuilder g;  // global average pool 7x7 (49: a non power of two reciprocal)
    std::string x = g.input("x", {1, 7, 7, 33});
    tosa::AvgPool2dAttrs a{{7, 7}, {1, 1}, {0, 0, 0, 0}, DType::Int32};
    g.output(g.op(Op::AvgPool2d, a, {x, g.scalar(DType::Int8, 3), g.scalar(DType::Int8, -3)}, {1, 1, 1, 33}, DType::Int8));
    expectBitExact(g.graph(), rng);
  }
}

TEST(EthosUConvert, PaddedAveragePoolDividesByTheInBoundsCount) {
  std::mt19937 rng(19);
  struct Case {
    tosa::Shape in;
    std::vector<std::int32_t> kernel, stride, pad;  // pad: top, bottom, left, right
    int inZp, outZp;
    std::size_t npuOps;
  };
  const std::vector<Case> cases = {
      {{1, 4, 4, 4}, {3, 3}, {1, 1}, {1, 1, 1, 1}, 0, 0, 9},          // SAME 3x3: 3 row runs x 3 column runs
      {{1, 9, 10, 13}, {3, 3}, {2, 2}, {1, 1, 1, 0}, -7, 12, 6},      // stride 2, no right padding
      {{1, 8, 7, 5}, {5, 3}, {2, 3}, {2, 1, 0, 2}, 100, 90, 6},      // uneven kernel, strides and padding
      {{1, 3, 3, 6}, {4, 4}, {1, 1}, {1, 2, 2, 1}, -128, -128, 9},    // kernel larger than the input
      {{1, 1, 10, 17}, {1, 7}, {1, 3}, {0, 0, 3, 3}, 5, -5, 3},        // padding along W only
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("in {}x{} kernel {}x{}", c.in[1], c.in[2], c.kernel[0], c.kernel[1]));
    GraphBuilder g;
    std::string x = g.input("x", c.in);
    const std::int64_t oh = (c.in[1] + c.pad[0] + c.pad[1] - c.kernel[0]) / c.stride[0] + 1;
    const std::int64_t ow = (c.in[2] + c.pad[2] + c.pad[3] - c.kernel[1]) / c.stride[1] + 1;
    tosa::AvgPool2dAttrs a{c.kernel, c.stride, c.pad, DType::Int32};
    g.output(g.op(Op::AvgPool2d, a, {x, g.scalar(DType::Int8, c.inZp), g.scalar(DType::Int8, c.outZp)}, {1, oh, ow, c.in[3]},
                  DType::Int8));
    auto model = expectBitExact(g.graph(), rng);
    EXPECT_EQ(model.stats.npuOperations, c.npuOps);
    ASSERT_EQ(lastOutputs().size(), 1u);
    EXPECT_GT(std::set<std::uint8_t>(lastOutputs()[0].begin(), lastOutputs()[0].end()).size(), 4u);
  }
  {
    GraphBuilder g;  // with a fused CLAMP and a TABLE after it (run as its own operation)
    std::string x = g.input("x", {1, 6, 6, 8});
    tosa::AvgPool2dAttrs a{{3, 3}, {1, 1}, {1, 1, 1, 1}, DType::Int32};
    std::string p = g.op(Op::AvgPool2d, a, {x, g.scalar(DType::Int8, 3), g.scalar(DType::Int8, -3)}, {1, 6, 6, 8}, DType::Int8);
    std::vector<std::int64_t> table(256);
    for (int i = 0; i < 256; ++i) table[static_cast<std::size_t>(i)] = 127 - i;
    std::string t = g.constant(DType::Int8, {256}, table);
    g.output(g.op(Op::Table, std::monostate{}, {g.clamp(p, -40, 60), t}, {1, 6, 6, 8}, DType::Int8));
    auto model = expectBitExact(g.graph(), rng);
    EXPECT_EQ(model.stats.npuOperations, 10u);
  }
  // A PAD with the input zero point before the pool (count_include_pad): padded elements
  // count in the divisor and add 0; alone, and together with the pool's own padding.
  struct PadCase {
    std::vector<std::int64_t> padding;  // PAD: N before/after, H, W, C
    std::vector<std::int32_t> poolPad;
    tosa::Shape out;
  };
  for (const PadCase& c : {PadCase{{0, 0, 1, 1, 1, 1, 0, 0}, {0, 0, 0, 0}, {1, 7, 5, 6}},
                           PadCase{{0, 0, 1, 0, 0, 1, 0, 0}, {1, 0, 2, 1}, {1, 7, 7, 6}}}) {
    GraphBuilder g;
    std::string x = g.input("x", {1, 7, 5, 6});
    const tosa::Shape ps{1, 7 + c.padding[2] + c.padding[3], 5 + c.padding[4] + c.padding[5], 6};
    std::string padded = g.op(Op::Pad, std::monostate{}, {x, g.shapeConst(c.padding), g.scalar(DType::Int8, -4)}, ps, DType::Int8);
    tosa::AvgPool2dAttrs a{{3, 3}, {1, 1}, c.poolPad, DType::Int32};
    g.output(g.op(Op::AvgPool2d, a, {padded, g.scalar(DType::Int8, -4), g.scalar(DType::Int8, 6)}, c.out, DType::Int8));
    expectBitExact(g.graph(), rng);
    ASSERT_EQ(lastOutputs().size(), 1u);
    EXPECT_GT(std::set<std::uint8_t>(lastOutputs()[0].begin(), lastOutputs()[0].end()).size(), 4u);
  }
  {
    GraphBuilder g;  // a PAD value other than the zero point would add a constant per padded element
    std::string x = g.input("x", {1, 4, 4, 2});
    std::string padded = g.op(Op::Pad, std::monostate{}, {x, g.shapeConst({0, 0, 1, 1, 1, 1, 0, 0}), g.scalar(DType::Int8, 9)},
                              {1, 6, 6, 2}, DType::Int8);
    tosa::AvgPool2dAttrs a{{3, 3}, {1, 1}, {0, 0, 0, 0}, DType::Int32};
    g.output(g.op(Op::AvgPool2d, a, {padded, g.scalar(DType::Int8, 0), g.scalar(DType::Int8, 0)}, {1, 4, 4, 2}, DType::Int8));
    auto r = converter::ethosu::compile(g.graph(), {}, "m.tosa");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("only the input zero point 0 can be folded into an average pool"), std::string::npos)
        << r.error().message();
  }
  {
    GraphBuilder g;  // windows that hold no input element at all are refused
    std::string x = g.input("x", {1, 4, 4, 2});
    std::string padded = g.op(Op::Pad, std::monostate{}, {x, g.shapeConst({0, 0, 2, 0, 0, 0, 0, 0}), g.scalar(DType::Int8, 0)},
                              {1, 6, 4, 2}, DType::Int8);
    tosa::AvgPool2dAttrs a{{2, 2}, {1, 1}, {1, 0, 0, 0}, DType::Int32};
    g.output(g.op(Op::AvgPool2d, a, {padded, g.scalar(DType::Int8, 0), g.scalar(DType::Int8, 0)}, {1, 6, 3, 2}, DType::Int8));
    auto r = converter::ethosu::compile(g.graph(), {}, "m.tosa");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("output row 0 has a pooling window of padding only"), std::string::npos)
        << r.error().message();
    EXPECT_EQ(r.error().exitCode(), 2);
  }
}

/// ADD/SUB in the TOSA int8 form: RESCALE both inputs to int32 (one by exactly 2^19).
std::string quantAddSub(GraphBuilder& g, Op kind, const std::string& a, const std::string& b, bool firstPlain) {
  std::string ra = firstPlain ? g.rescale(a, DType::Int32, {1 << 30}, {11}, 3, 0)
                              : g.rescale(a, DType::Int32, {644245094}, {11}, 3, 0);
  std::string rb = firstPlain ? g.rescale(b, DType::Int32, {1288490189}, {12}, -9, 0)
                              : g.rescale(b, DType::Int32, {1 << 30}, {11}, -9, 0);
  tosa::Shape shape = g.shapeOf(ra);
  for (std::size_t i = 0; i < shape.size(); ++i) shape[i] = std::max(shape[i], g.shapeOf(rb)[i]);
  std::string sum = g.op(kind, std::monostate{}, {ra, rb}, shape, DType::Int32);
  return g.rescale(sum, DType::Int8, {1717986918}, {50}, 0, 4);
}

TEST(EthosUConvert, AddSubMulPatterns) {
  std::mt19937 rng(21);
  for (Op kind : {Op::Add, Op::Sub}) {
    for (bool firstPlain : {true, false}) {
      GraphBuilder g;
      std::string a = g.input("a", {1, 5, 6, 7});
      std::string b = g.input("b", {1, 5, 6, 7});
      g.output(quantAddSub(g, kind, a, b, firstPlain));
      expectBitExact(g.graph(), rng);
    }
  }
  {
    GraphBuilder g;  // broadcast of a per-channel vector in the second input
    std::string a = g.input("a", {1, 4, 4, 8});
    std::string b = g.input("b", {1, 1, 1, 8});
    g.output(quantAddSub(g, Op::Sub, a, b, false));
    expectBitExact(g.graph(), rng);
  }
  {
    GraphBuilder g;  // broadcast in the first input: the operands are swapped on the NPU
    std::string a = g.input("a", {1, 1, 4, 8});
    std::string b = g.input("b", {1, 3, 4, 8});
    g.output(quantAddSub(g, Op::Sub, a, b, true));
    expectBitExact(g.graph(), rng);
  }
  {
    GraphBuilder g;
    std::string a = g.input("a", {1, 6, 5, 9});
    std::string b = g.input("b", {1, 6, 5, 9});
    std::string ra = g.rescale(a, DType::Int32, {1 << 30}, {30}, -7, 0);
    std::string rb = g.rescale(b, DType::Int32, {1 << 30}, {30}, 11, 0);
    std::string p = g.op(Op::Mul, std::monostate{}, {ra, rb, g.scalar(DType::Int8, 0)}, {1, 6, 5, 9}, DType::Int32);
    g.output(g.clamp(g.rescale(p, DType::Int8, {1503238554}, {38}, 0, -2), -100, 100));
    expectBitExact(g.graph(), rng);
  }
}

/// ADD/SUB with explicit input and output rescales.
struct AddSubScales {
  std::int64_t ma, sa, za, mb, sb, zb, mo, so, zo;
  bool doubleRound;
};

std::string rescaledAddSub(GraphBuilder& g, Op kind, const std::string& a, const std::string& b, const AddSubScales& q) {
  std::string ra = g.rescale(a, DType::Int32, {q.ma}, {q.sa}, q.za, 0, q.doubleRound);
  std::string rb = g.rescale(b, DType::Int32, {q.mb}, {q.sb}, q.zb, 0, q.doubleRound);
  tosa::Shape shape = g.shapeOf(ra);
  for (std::size_t i = 0; i < shape.size(); ++i) shape[i] = std::max(shape[i], g.shapeOf(rb)[i]);
  std::string sum = g.op(kind, std::monostate{}, {ra, rb}, shape, DType::Int32);
  return g.rescale(sum, DType::Int8, {q.mo}, {q.so}, 0, q.zo, q.doubleRound);
}

TEST(EthosUConvert, AddSubWithGeneralInputScales) {
  std::mt19937 rng(23);
  struct Case {
    AddSubScales q;
    std::size_t npuOps;  // 1: fused into one elementwise op; 3: input rescales run first
  };
  const std::vector<Case> cases = {
      // The zoo's residual add: one input scaled by 2^10, the other by ~998.05.
      {{2093009312, 21, -3, 1073741824, 20, 5, 1288490189, 39, -1, true}, 3},
      // Both scales integers (2^10 and 3): OPA_OPB_16, one operation.
      {{1 << 30, 20, 7, 3 << 20, 20, -128, 1717986918, 40, 2, true}, 1},
      // One scale exactly 2^19: the hardware's own operand shift, one operation.
      {{644245094, 11, 3, 1 << 30, 11, -9, 1717986918, 50, 4, true}, 1},
      // Arbitrary scales, single rounding, shifts on both sides of 31.
      {{1518500250, 33, 100, 1947236311, 24, -100, 1431655765, 37, 9, false}, 3},
      {{1073741825, 40, -128, 2147483647, 28, 127, 1073741824, 34, 0, true}, 3},
      // 512 and 256 (integers) with single rounding of the output.
      {{1 << 29, 20, 0, 1 << 29, 21, 0, 1 << 30, 40, 0, false}, 1},
      // An integer scale too large for the 16-bit OPA/OPB multipliers (2^17): decomposed.
      {{1 << 30, 13, 1, 1 << 30, 14, 2, 1 << 30, 48, 0, true}, 3},
  };
  for (Op kind : {Op::Add, Op::Sub}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(fmt::format("{} {}*2^-{} {}*2^-{}", tosa::toString(kind), c.q.ma, c.q.sa, c.q.mb, c.q.sb));
      GraphBuilder g;
      std::string a = g.input("a", {1, 5, 6, 7});
      std::string b = g.input("b", {1, 5, 6, 7});
      g.output(rescaledAddSub(g, kind, a, b, c.q));
      auto model = expectBitExact(g.graph(), rng);
      EXPECT_EQ(model.stats.npuOperations, onU85() ? 1u : c.npuOps);  // U85: IFM_SCALE / IFM2_SCALE
      ASSERT_EQ(lastOutputs().size(), 1u);
      EXPECT_GT(std::set<std::uint8_t>(lastOutputs()[0].begin(), lastOutputs()[0].end()).size(), 8u);  // not saturated
    }
  }
  // Broadcast of either operand with general scales (the first operand broadcast swaps the
  // operands on the NPU, which matters for SUB), and a fused CLAMP.
  const AddSubScales general{1518500250, 30, 4, 1105322465, 29, -6, 1374389535, 38, 3, true};
  for (Op kind : {Op::Add, Op::Sub}) {
    for (bool firstBroadcast : {false, true}) {
      GraphBuilder g;
      std::string a = g.input("a", firstBroadcast ? tosa::Shape{1, 1, 4, 8} : tosa::Shape{1, 3, 4, 8});
      std::string b = g.input("b", firstBroadcast ? tosa::Shape{1, 3, 4, 8} : tosa::Shape{1, 1, 1, 8});
      g.output(g.clamp(rescaledAddSub(g, kind, a, b, general), -50, 90));
      auto model = expectBitExact(g.graph(), rng);
      EXPECT_EQ(model.stats.npuOperations, onU85() ? 1u : 3u);
    }
  }
  // Random scales and zero points.
  std::uniform_int_distribution<std::int64_t> mult(1 << 30, (std::int64_t{1} << 31) - 1);
  std::uniform_int_distribution<int> zp(-128, 127), inShift(12, 34), jitter(-1, 1);
  for (int i = 0; i < 12; ++i) {
    AddSubScales q{mult(rng), inShift(rng), zp(rng), mult(rng), inShift(rng), zp(rng), mult(rng), 0, zp(rng), i % 2 == 0};
    // Sums of about 2^(39 - min shift) scaled back to about the int8 range.
    q.so = 63 - std::min(q.sa, q.sb) + jitter(rng);
    SCOPED_TRACE(fmt::format("random case {}", i));
    GraphBuilder g;
    std::string a = g.input("a", {1, 3, 5, 9});
    std::string b = g.input("b", {1, 3, 5, 9});
    g.output(rescaledAddSub(g, i % 3 == 0 ? Op::Sub : Op::Add, a, b, q));
    expectBitExact(g.graph(), rng);
    ASSERT_EQ(lastOutputs().size(), 1u);
    EXPECT_GT(std::set<std::uint8_t>(lastOutputs()[0].begin(), lastOutputs()[0].end()).size(), 8u);
  }
}

TEST(EthosUConvert, ElementwiseWithConstantOperandsFromReadOnlyData) {
  std::mt19937 rng(22);
  {
    GraphBuilder g;  // ADD of a per-channel constant (bias-like), broadcast over H and W
    std::string a = g.input("a", {1, 5, 5, 6});
    std::string k = g.constant(DType::Int8, {1, 1, 1, 6}, {-100, -3, 0, 5, 77, 127});
    g.output(quantAddSub(g, Op::Add, a, k, false));
    expectBitExact(g.graph(), rng);
  }
  {
    GraphBuilder g;  // INT8 x INT8 -> INT32 MUL with a constant, no input rescales
    std::string a = g.input("a", {1, 3, 4, 5});
    std::string k = g.constant(DType::Int8, {1, 3, 4, 5}, std::vector<std::int64_t>(60, -7));
    std::string p = g.op(Op::Mul, std::monostate{}, {a, k, g.scalar(DType::Int8, 0)}, {1, 3, 4, 5}, DType::Int32);
    g.output(g.rescale(p, DType::Int8, {1 << 30}, {33}, 0, 1));
    expectBitExact(g.graph(), rng);
  }
}

TEST(EthosUConvert, StandaloneRescaleClampAndTable) {
  std::mt19937 rng(4);
  {
    GraphBuilder g;
    std::string x = g.input("x", {1, 3, 5, 6});
    g.output(g.rescale(x, DType::Int8, {1395864371}, {31}, 10, -10, true));
    expectBitExact(g.graph(), rng);
  }
  {
    GraphBuilder g;  // per-channel
    std::string x = g.input("x", {1, 3, 5, 4});
    g.output(g.rescale(x, DType::Int8, {1395864371, 1 << 30, 2000000000, 1100000000}, {31, 30, 33, 29}, -1, 2, false));
    expectBitExact(g.graph(), rng);
  }
  {
    GraphBuilder g;
    std::string x = g.input("x", {1, 4, 4, 3});
    g.output(g.clamp(x, -50, 60));
    expectBitExact(g.graph(), rng);
  }
  {
    GraphBuilder g;
    std::string x = g.input("x", {1, 4, 5, 6});
    std::vector<std::int64_t> table(256);
    for (int i = 0; i < 256; ++i) table[static_cast<std::size_t>(i)] = static_cast<std::int8_t>((i * 37) ^ 0x55);
    std::string y = g.op(Op::Table, std::monostate{}, {x, g.constant(DType::Int8, {256}, table)}, {1, 4, 5, 6}, DType::Int8);
    // Two tables in a row: the LUT is reloaded between them.
    std::string z = g.op(Op::Table, std::monostate{}, {y, g.constant(DType::Int8, {256}, std::vector<std::int64_t>(table.rbegin(), table.rend()))},
                         {1, 4, 5, 6}, DType::Int8);
    g.output(z);
    expectBitExact(g.graph(), rng);
  }
}

TEST(EthosUConvert, TableFusedIntoTheProducingConvolution) {
  std::mt19937 rng(14);
  GraphBuilder g;
  std::string x = g.input("x", {1, 6, 6, 12});
  std::string y = g.conv(x, 12, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, -3, rng);
  std::vector<std::int64_t> table(256);
  for (int i = 0; i < 256; ++i) table[static_cast<std::size_t>(i)] = (i * 7 % 256) - 128;
  g.output(g.op(Op::Table, std::monostate{}, {y, g.constant(DType::Int8, {256}, table)}, {1, 6, 6, 12}, DType::Int8));
  auto model = expectBitExact(g.graph(), rng);
  EXPECT_EQ(model.stats.npuOperations, 1u);
}

TEST(EthosUConvert, DataMovementAsViews) {
  std::mt19937 rng(8);
  GraphBuilder g;
  std::string x = g.input("x", {1, 6, 6, 8});
  // PAD folded into a convolution (pad value = input zero point).
  std::string padded = g.op(Op::Pad, std::monostate{}, {x, g.shapeConst({0, 0, 1, 1, 2, 0, 0, 0}), g.scalar(DType::Int8, 5)},
                            {1, 8, 8, 8}, DType::Int8);
  std::string c1 = g.conv(padded, 6, 3, 3, {1, 1}, {0, 0, 0, 0}, {1, 1}, 5, 0, rng);      // 6x6x6
  std::string c2 = g.conv(x, 10, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, 0, 1, rng);          // 6x6x10
  tosa::AxisAttrs cat;
  cat.axis = 3;
  std::string joined = g.op(Op::Concat, cat, {c1, c2, x}, {1, 6, 6, 24}, DType::Int8);  // x copied in
  std::string sliced = g.op(Op::Slice, std::monostate{}, {joined, g.shapeConst({0, 1, 2, 3}), g.shapeConst({1, 4, 3, 16})},
                            {1, 4, 3, 16}, DType::Int8);
  std::string c3 = g.conv(sliced, 7, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, -1, 2, rng);
  std::string flat = g.op(Op::Reshape, std::monostate{}, {c3, g.shapeConst({1, 12, 7})}, {1, 12, 7}, DType::Int8);
  g.output(flat);
  g.output(sliced);  // a strided view as an output gets its own dense copy
  expectBitExact(g.graph(), rng);
}

/// MobileNetV2-style stack: stem conv, two inverted-residual blocks (one with a residual
/// ADD), global average pool and a fully connected classifier.
TEST(EthosUConvert, MobileNetV2StyleStack) {
  std::mt19937 rng(2024);
  GraphBuilder g;
  std::string x = g.input("image", {1, 16, 16, 3});
  std::string stem = g.clamp(g.conv(x, 16, 3, 3, {2, 2}, {0, 1, 0, 1}, {1, 1}, -1, -128, rng), -128, 127);
  auto block = [&](const std::string& in, int expand, int out, int stride, bool residual) {
    const int cin = static_cast<int>(g.shapeOf(in)[3]);
    std::string e = g.clamp(g.conv(in, cin * expand, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, -128, -128, rng), -128, 127);
    std::vector<std::int32_t> pad = stride == 1 ? std::vector<std::int32_t>{1, 1, 1, 1} : std::vector<std::int32_t>{0, 1, 0, 1};
    std::string d = g.clamp(g.conv(e, 0, 3, 3, {stride, stride}, pad, {1, 1}, -128, -128, rng, true), -128, 127);
    std::string p = g.conv(d, out, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, -128, 3, rng);
    if (!residual) return p;
    return quantAddSub(g, Op::Add, in, p, true);
  };
  std::string b1 = block(stem, 4, 16, 1, true);
  std::string b2 = block(b1, 6, 24, 2, false);
  tosa::AvgPool2dAttrs avg{{4, 4}, {1, 1}, {0, 0, 0, 0}, DType::Int32};
  std::string pooled = g.op(Op::AvgPool2d, avg, {b2, g.scalar(DType::Int8, 3), g.scalar(DType::Int8, -3)}, {1, 1, 1, 24}, DType::Int8);
  std::string flat = g.op(Op::Reshape, std::monostate{}, {pooled, g.shapeConst({1, 1, 24})}, {1, 1, 24}, DType::Int8);
  std::vector<std::int64_t> w(24 * 10);
  for (auto& v : w) v = std::uniform_int_distribution<int>(-128, 127)(rng);
  std::string acc = g.op(Op::MatMul, std::monostate{}, {flat, g.constant(DType::Int8, {1, 24, 10}, w), g.scalar(DType::Int8, -3),
                                                        g.scalar(DType::Int8, 0)},
                         {1, 1, 10}, DType::Int32);
  g.output(g.rescale(acc, DType::Int8, {1200000000}, {40}, 0, 0));
  auto model = expectBitExact(g.graph(), rng);
  EXPECT_EQ(model.stats.npuOperations, 10u);
  ASSERT_EQ(lastOutputs().size(), 1u);
  std::set<std::uint8_t> distinct(lastOutputs()[0].begin(), lastOutputs()[0].end());
  EXPECT_GT(distinct.size(), 5u);
  EXPECT_GT(model.stats.macs, 0u);
  EXPECT_GT(model.stats.cycles, 0u);
  EXPECT_GT(model.stats.weightBytes, 0u);
  EXPECT_EQ(model.stats.scaleBytes % 16, 0u);
}

TEST(EthosUConvert, ArenaReusesDeadIntermediates) {
  std::mt19937 rng(12);
  GraphBuilder g;
  std::string t = g.input("x", {1, 16, 16, 16});
  for (int i = 0; i < 4; ++i) t = g.clamp(t, -100 + i, 100 - i);
  g.output(t);
  auto model = expectBitExact(g.graph(), rng);
  // Input and output (4 KiB each) stay exclusive; of the three 4 KiB intermediates at most two
  // are alive at once, so the arena is 4 x 4 KiB rather than 5.
  EXPECT_EQ(model.stats.scratchSize, 4u * 4096u);
  EXPECT_EQ(model.stats.npuOperations, 4u);
}

TEST(EthosUConvert, RefusesWhatTheNpuCannotRunExactly) {
  std::mt19937 rng(1);
  auto refuse = [](const tosa::Graph& graph, const std::string& needle) {
    auto r = converter::ethosu::compile(graph, {}, "m.tosa");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find(needle), std::string::npos) << r.error().message();
    EXPECT_EQ(r.error().exitCode(), 2);
  };
  {
    GraphBuilder g;  // valid TOSA, which the verifier lets through
    std::string x = g.input("x", {1, 4, 4, 4});
    g.output(g.op(Op::Transpose, tosa::TransposeAttrs{{0, 2, 1, 3}}, {x}, {1, 4, 4, 4}, DType::Int8, "swapped"));
    refuse(g.graph(), "TRANSPOSE 'swapped' (operator 0): operator TRANSPOSE is not supported by the Ethos-U backend");
  }
  {
    GraphBuilder g;
    std::string x = g.input("x", {1, 4, 4, 4});
    g.output(g.op(Op::Abs, std::monostate{}, {x}, {1, 4, 4, 4}, DType::Int8, "absolute"));
    refuse(g.graph(), "ABS: input1: expected a type combination of a TOSA 1.0 profile");  // tosa::verify first
  }
  {
    GraphBuilder g;
    std::string x = g.input("x", {1, 4, 4, 4});
    g.output(g.op(Op::Reverse, tosa::AxisAttrs{1}, {x}, {1, 4, 4, 4}, DType::Int8, "mirrored"));
    refuse(g.graph(), "REVERSE 'mirrored' (operator 0): operator REVERSE is not supported by the Ethos-U backend");
  }
  {
    GraphBuilder g;  // conv without the RESCALE output stage
    std::string x = g.input("x", {1, 4, 4, 4});
    std::string y = g.conv(x, 4, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, 0, 0, rng);
    g.block().outputs.push_back(g.block().operators.back().inputs[0]);
    g.output(y);
    refuse(g.graph(), "must feed exactly one RESCALE to INT8");
  }
  {
    GraphBuilder g;  // ADD with a per-channel input rescale (no per-channel IFM scale exists)
    std::string a = g.input("a", {1, 2, 2, 2});
    std::string b = g.input("b", {1, 2, 2, 2});
    std::string ra = g.rescale(a, DType::Int32, {1 << 30, 1 << 29}, {12, 12}, 0, 0);
    std::string rb = g.rescale(b, DType::Int32, {1 << 29}, {12}, 0, 0);
    std::string s = g.op(Op::Add, std::monostate{}, {ra, rb}, {1, 2, 2, 2}, DType::Int32);
    g.output(g.rescale(s, DType::Int8, {1 << 30}, {40}, 0, 0));
    refuse(g.graph(), "per-channel input RESCALE");
  }
  {
    GraphBuilder g;
    std::string x = g.input("x", {1, 4, 4, 4});
    g.output(g.clamp(x, -1, 1));
    auto r = converter::ethosu::compile(g.graph(), {"ethos-u99-1"}, "m.tosa");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("expected one of ethos-u55-32"), std::string::npos);
  }
}

// Ethos-U65-512: two cores split every operation by OFM depth (PARALLEL_MODE 1); each core has
// its own weight and scale stream for the channels it computes.

const std::string kU65_512 = "ethos-u65-512";

TEST(EthosUTwoCore, ConvolutionsAcrossChannelCountsAndBlockSplits) {
  std::mt19937 rng(512);
  struct Case {
    tosa::Shape in;
    int cout, kh, kw;
    std::vector<std::int32_t> stride, pad, dilation;
  };
  const std::vector<Case> cases = {
      {{1, 8, 8, 16}, 16, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}},   // one 16-deep block: 8 channels per core
      {{1, 9, 7, 5}, 12, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}},    // part-kernel-first
      {{1, 6, 6, 40}, 1, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}},    // one channel: core 1 idle
      {{1, 5, 6, 7}, 5, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}},     // odd channel count
      {{1, 11, 13, 6}, 19, 3, 3, {1, 1}, {2, 2, 2, 2}, {2, 2}},  // dilation 2, 10 + 9 channels
      {{1, 4, 20, 3}, 130, 2, 9, {1, 1}, {0, 1, 4, 4}, {1, 1}},  // several blocks per core
      {{1, 3, 3, 200}, 150, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}}, // deep IFM and OFM
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("in depth {} out depth {}", c.in[3], c.cout));
    GraphBuilder g;
    std::string x = g.input("x", c.in);
    g.output(g.conv(x, c.cout, c.kh, c.kw, c.stride, c.pad, c.dilation, 3, -4, rng, false, 1));
    auto model = expectBitExact(g.graph(), rng, kU65_512);
    EXPECT_EQ(model.stats.npuOperations, 1u);
  }
}

TEST(EthosUTwoCore, DepthwiseFullyConnectedPoolsAndElementwise) {
  std::mt19937 rng(65);
  for (int channels : {24, 9, 1}) {
    GraphBuilder g;
    std::string x = g.input("x", {1, 9, 10, channels});
    std::string y = g.conv(x, 0, 3, 3, {2, 2}, {1, 1, 1, 0}, {1, 1}, -2, 6, rng, true, 1);
    g.output(g.clamp(y, 6, 127));
    expectBitExact(g.graph(), rng, kU65_512);
  }
  {
    GraphBuilder g;
    std::string x = g.input("x", {1, 3, 50});
    std::vector<std::int64_t> b(50 * 21);
    for (auto& v : b) v = std::uniform_int_distribution<int>(-128, 127)(rng);
    std::string acc = g.op(Op::MatMul, std::monostate{},
                           {x, g.constant(DType::Int8, {1, 50, 21}, b), g.scalar(DType::Int8, 9), g.scalar(DType::Int8, -4)},
                           {1, 3, 21}, DType::Int32);
    g.output(g.rescale(acc, DType::Int8, {1518500250}, {42}, 0, -1, false));
    expectBitExact(g.graph(), rng, kU65_512);
  }
  {
    GraphBuilder g;
    std::string x = g.input("x", {1, 9, 9, 13});
    tosa::MaxPool2dAttrs a{{3, 3}, {2, 2}, {1, 1, 1, 1}, tosa::NanMode::Propagate};
    g.output(g.op(Op::MaxPool2d, a, {x}, {1, 5, 5, 13}, DType::Int8));
    expectBitExact(g.graph(), rng, kU65_512);
  }
  {
    GraphBuilder g;
    std::string x = g.input("x", {1, 8, 6, 10});
    tosa::AvgPool2dAttrs a{{2, 3}, {2, 3}, {0, 0, 0, 0}, DType::Int32};
    g.output(g.op(Op::AvgPool2d, a, {x, g.scalar(DType::Int8, -5), g.scalar(DType::Int8, 7)}, {1, 4, 2, 10}, DType::Int8));
    expectBitExact(g.graph(), rng, kU65_512);
  }
  {
    GraphBuilder g;  // padded average pool (split into unpadded pools)
    std::string x = g.input("x", {1, 9, 10, 13});
    tosa::AvgPool2dAttrs a{{3, 3}, {2, 2}, {1, 1, 1, 0}, DType::Int32};
    g.output(g.op(Op::AvgPool2d, a, {x, g.scalar(DType::Int8, -7), g.scalar(DType::Int8, 12)}, {1, 5, 5, 13}, DType::Int8));
    expectBitExact(g.graph(), rng, kU65_512);
  }
  for (Op kind : {Op::Add, Op::Sub}) {
    GraphBuilder g;
    std::string a = g.input("a", {1, 5, 6, 7});
    std::string b = g.input("b", {1, 1, 1, 7});
    g.output(quantAddSub(g, kind, a, b, false));
    expectBitExact(g.graph(), rng, kU65_512);
  }
  {
    GraphBuilder g;
    std::string a = g.input("a", {1, 6, 5, 9});
    std::string b = g.input("b", {1, 6, 5, 9});
    std::string ra = g.rescale(a, DType::Int32, {1 << 30}, {30}, -7, 0);
    std::string rb = g.rescale(b, DType::Int32, {1 << 30}, {30}, 11, 0);
    std::string prod = g.op(Op::Mul, std::monostate{}, {ra, rb, g.scalar(DType::Int8, 0)}, {1, 6, 5, 9}, DType::Int32);
    g.output(g.clamp(g.rescale(prod, DType::Int8, {1503238554}, {38}, 0, -2), -100, 100));
    expectBitExact(g.graph(), rng, kU65_512);
  }
  {
    GraphBuilder g;  // tables (loaded into both cores' SHRAM), standalone rescale
    std::string x = g.input("x", {1, 4, 5, 6});
    std::vector<std::int64_t> table(256);
    for (int i = 0; i < 256; ++i) table[static_cast<std::size_t>(i)] = static_cast<std::int8_t>((i * 37) ^ 0x55);
    std::string y = g.op(Op::Table, std::monostate{}, {x, g.constant(DType::Int8, {256}, table)}, {1, 4, 5, 6}, DType::Int8);
    g.output(g.rescale(y, DType::Int8, {1395864371}, {31}, 10, -10, true));
    expectBitExact(g.graph(), rng, kU65_512);
  }
}

/// The register values at the first NPU_OP_CONV/DEPTHWISE of a compiled model.
std::map<std::uint16_t, std::uint32_t> registersAtFirstConv(const converter::ethosu::CompiledModel& model,
                                                            std::vector<fu::Command>* all = nullptr) {
  std::map<std::uint16_t, std::uint32_t> regs;
  auto cop = fu::readCop1(model.cop1);
  EXPECT_TRUE(cop) << (cop ? "" : cop.error().message());
  if (!cop) return regs;
  auto config = fu::acceleratorFromConfigWord(cop->config);
  EXPECT_TRUE(config);
  if (!config) return regs;
  auto commands = fu::decodeCommandStream(cop->commandStream, config->product);
  EXPECT_TRUE(commands);
  if (!commands) return regs;
  if (all) *all = *commands;
  for (const fu::Command& c : *commands) {
    if (!c.isCmd1 && (c.code == 0x002 || c.code == 0x003)) break;
    regs[static_cast<std::uint16_t>(c.code | (c.isCmd1 ? 0x4000 : 0))] = c.isCmd1 ? c.data : c.param;
  }
  return regs;
}

TEST(EthosUTwoCore, StreamsFollowVelasPerCoreLayout) {
  // A 3x3 convolution with 20 output channels and known bias/scales: core 0 must get the
  // records and weights of channels 0, 2, ..., 18 and core 1 those of 1, 3, ..., 19, each
  // stream ordered for half the OFM block depth; scales before weights, all 16-byte aligned.
  std::mt19937 rng(20);
  const int cout = 20, cin = 6;
  std::vector<std::int64_t> w(static_cast<std::size_t>(cout * 3 * 3 * cin)), bias(cout), mult(cout), shift(cout);
  for (auto& v : w) v = std::uniform_int_distribution<int>(-127, 127)(rng);
  for (int c = 0; c < cout; ++c) {
    bias[static_cast<std::size_t>(c)] = 1000 * c - 7;
    mult[static_cast<std::size_t>(c)] = (std::int64_t{1} << 30) + c;
    shift[static_cast<std::size_t>(c)] = 33 + c % 5;
  }
  GraphBuilder g;
  std::string x = g.input("x", {1, 5, 5, cin});
  tosa::ConvAttrs a;
  a.pad = {1, 1, 1, 1};
  a.stride = {1, 1};
  a.dilation = {1, 1};
  a.accType = DType::Int32;
  std::string acc = g.op(Op::Conv2d, a,
                         {x, g.constant(DType::Int8, {cout, 3, 3, cin}, w), g.constant(DType::Int32, {cout}, bias),
                          g.scalar(DType::Int8, 0), g.scalar(DType::Int8, 0)},
                         {1, 5, 5, cout}, DType::Int32);
  g.output(g.rescale(acc, DType::Int8, mult, shift, 0, 0));
  auto model = expectBitExact(g.graph(), rng, kU65_512);
  std::vector<fu::Command> commands;
  auto regs = registersAtFirstConv(model, &commands);
  ASSERT_FALSE(commands.empty());
  EXPECT_EQ(commands[0].code, 0x123);  // PARALLEL_MODE first, = 1
  EXPECT_EQ(commands[0].param, 1u);
  auto cop = fu::readCop1(model.cop1);
  ASSERT_TRUE(cop);
  EXPECT_EQ(cop->config & 0xF, 9u);  // CONFIG counts both cores: 2^9 = 512 MACs
  EXPECT_EQ(cop->shramKb(), 96u);
  const int blockDepth = static_cast<int>(regs[0x117]) + 1;
  EXPECT_EQ(blockDepth % 16 == 0 || blockDepth >= cout, true) << blockDepth;
  const std::uint32_t scaleBase[2] = {regs[0x4022], regs[0x4092]}, scaleLength[2] = {regs[0x4023], regs[0x4093]};
  const std::uint32_t weightBase[2] = {regs[0x4020], regs[0x4090]}, weightLength[2] = {regs[0x4021], regs[0x4091]};
  // Layout: scales 0, weights 0, scales 1, weights 1.
  EXPECT_EQ(scaleBase[0] % 16, 0u);
  EXPECT_EQ(weightBase[0], scaleBase[0] + scaleLength[0]);
  EXPECT_EQ(scaleBase[1], weightBase[0] + weightLength[0]);
  EXPECT_EQ(weightBase[1], scaleBase[1] + scaleLength[1]);
  for (int core = 0; core < 2; ++core) {
    SCOPED_TRACE(fmt::format("core {}", core));
    EXPECT_EQ(scaleLength[core], 112u);  // 10 records of 10 bytes, padded to 16
    EXPECT_EQ(weightLength[core] % 16, 0u);
    auto records = fu::decodeScaleStream(std::span(model.weightData).subspan(scaleBase[core], scaleLength[core]), 10);
    ASSERT_TRUE(records);
    for (int j = 0; j < 10; ++j) {
      const auto c = static_cast<std::size_t>(2 * j + core);
      EXPECT_EQ((*records)[static_cast<std::size_t>(j)].bias, bias[c]);
      EXPECT_EQ((*records)[static_cast<std::size_t>(j)].scale, static_cast<std::uint32_t>(mult[c]));
      EXPECT_EQ((*records)[static_cast<std::size_t>(j)].shift, shift[c]);
    }
    auto decoded = fu::decodeWeightStream(std::span(model.weightData).subspan(weightBase[core], weightLength[core]), 1 << 20);
    ASSERT_TRUE(decoded);
    fu::WeightLayout l;
    l.ofmDepth = 10;
    l.kernelHeight = l.kernelWidth = 3;
    l.ifmDepth = cin;
    l.ofmBlockDepth = blockDepth / 2;
    l.traversal = (regs[0x122] >> 2) & 1 ? fu::WeightTraversal::PartKernelFirst
                                         : fu::WeightTraversal::DepthFirst;
    auto order = fu::weightStreamOrder(l);
    ASSERT_EQ(order.size(), decoded->size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (order[i] < 0) continue;
      const std::int64_t perChannel = 3 * 3 * cin;
      const std::int64_t channel = 2 * (order[i] / perChannel) + core;
      ASSERT_EQ((*decoded)[i], w[static_cast<std::size_t>(channel * perChannel + order[i] % perChannel)]) << i;
    }
  }

  // One output channel: core 1 gets core 0's addresses with length 0.
  GraphBuilder one;
  std::string xi = one.input("x", {1, 4, 4, 8});
  one.output(one.conv(xi, 1, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, 0, 0, rng));
  auto single = expectBitExact(one.graph(), rng, kU65_512);
  auto r1 = registersAtFirstConv(single);
  EXPECT_EQ(r1[0x4090], r1[0x4020]);
  EXPECT_EQ(r1[0x4091], 0u);
  EXPECT_EQ(r1[0x4092], r1[0x4022]);
  EXPECT_EQ(r1[0x4093], 0u);
}

TEST(EthosUEncoding, WeightOrderIsAPermutationThatRoundTripsThroughTheCodec) {
  std::mt19937 rng(31);
  for (auto traversal : {fu::WeightTraversal::DepthFirst, fu::WeightTraversal::PartKernelFirst, fu::WeightTraversal::Depthwise}) {
    const bool dw = traversal == fu::WeightTraversal::Depthwise;
    fu::WeightLayout l;
    l.ofmDepth = 37;
    l.kernelHeight = 10;
    l.kernelWidth = 9;
    l.ifmDepth = dw ? 1 : 45;
    l.ofmBlockDepth = 16;
    l.traversal = traversal;
    std::vector<std::int16_t> values(static_cast<std::size_t>(l.ofmDepth * l.kernelHeight * l.kernelWidth * l.ifmDepth));
    for (auto& w : values) w = static_cast<std::int16_t>(std::uniform_int_distribution<int>(-255, 255)(rng));
    const std::vector<std::int64_t> order = fu::weightStreamOrder(l);
    EXPECT_EQ(fu::weightStreamLength(l, ~std::uint64_t{0} >> 1), order.size());
    std::vector<std::int16_t> ordered;
    for (std::int64_t i : order) ordered.push_back(i < 0 ? std::int16_t{0} : values[static_cast<std::size_t>(i)]);
    auto bytes = fu::encodeWeightStream(ordered);
    EXPECT_EQ(bytes.size() % 16, 0u);
    auto decoded = fu::decodeWeightStream(bytes, order.size());
    ASSERT_TRUE(decoded) << decoded.error().message();
    ASSERT_EQ(order.size(), decoded->size());
    std::vector<std::int16_t> back(values.size(), 0);
    std::vector<int> seen(values.size(), 0);
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (order[i] >= 0) {
        back[static_cast<std::size_t>(order[i])] = (*decoded)[i];
        ++seen[static_cast<std::size_t>(order[i])];
      } else {
        ASSERT_EQ((*decoded)[i], 0);
      }
    }
    EXPECT_EQ(back, values);
    for (int count : seen) ASSERT_EQ(count, 1);
  }
}

TEST(EthosUEncoding, WeightBitstreamPicksTheSmallestCodingAndRoundTrips) {
  std::mt19937 rng(77);
  for (int range : {0, 1, 3, 20, 120, 255}) {
    for (std::size_t n : {1u, 11u, 12u, 13u, 1000u, 40000u}) {
      std::vector<std::int16_t> values(n);
      for (auto& v : values) v = static_cast<std::int16_t>(std::uniform_int_distribution<int>(-range, range)(rng));
      auto bytes = fu::encodeWeightStream(values);
      auto decoded = fu::decodeWeightStream(bytes, n);
      ASSERT_TRUE(decoded) << decoded.error().message() << " range " << range << " n " << n;
      ASSERT_EQ(*decoded, values) << "range " << range << " n " << n;
      // Never larger than the uncompressed form (9 bits per weight + headers + padding).
      EXPECT_LE(bytes.size(), (n * 9 + 35 * (n / 32768 + 1) + 3 + 7) / 8 + 16) << range << " " << n;
      if (range <= 3 && n >= 1000) {
        EXPECT_LT(bytes.size(), n * 9 / 16) << range;
      }
    }
  }
}

TEST(EthosUEncoding, ScaleStreamRoundTrips) {
  const std::vector<fu::ScaleRecord> records = {{-1234567, 1518500250, 38},
                                                 {0, 0, 0},
                                                 {(std::int64_t{1} << 39) - 1, 0xFFFFFFFF, 63},
                                                 {-(std::int64_t{1} << 39), 1, 1}};
  auto bytes = fu::encodeScaleStream(records);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->size(), 48u);
  const std::vector<std::uint8_t> first(bytes->begin(), bytes->begin() + 10);
  EXPECT_EQ(first, (std::vector<std::uint8_t>{0x79, 0x29, 0xed, 0xff, 0xff, 0x9a, 0x79, 0x82, 0x5a, 0x26}));
  auto back = fu::decodeScaleStream(*bytes, 4);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, records);
  // Out of range for the format: a 41-bit bias.
  const std::vector<fu::ScaleRecord> tooWide = {{std::int64_t{1} << 40, 1, 1}};
  EXPECT_FALSE(fu::encodeScaleStream(tooWide));
  // U85 layouts: 32-bit bias + 31-bit scale, 48-bit bias + 15-bit scale.
  const std::vector<fu::ScaleRecord> u85 = {{-1234567, 0x7FFFFFFF, 38}};
  auto acc32 = fu::encodeScaleStream(u85, fu::ScaleFormat::U85Acc32);
  ASSERT_TRUE(acc32);
  EXPECT_EQ(std::vector<std::uint8_t>(acc32->begin(), acc32->begin() + 10),
            (std::vector<std::uint8_t>{0x79, 0x29, 0xed, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x26, 0x00}));
  const std::vector<fu::ScaleRecord> u85wide = {{-(std::int64_t{1} << 40), 0x7FFF, 5}};
  auto acc48 = fu::encodeScaleStream(u85wide, fu::ScaleFormat::U85Acc48);
  ASSERT_TRUE(acc48);
  EXPECT_EQ(std::vector<std::uint8_t>(acc48->begin(), acc48->begin() + 10),
            (std::vector<std::uint8_t>{0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0x7f, 0x05, 0x00}));
  EXPECT_EQ(*fu::decodeScaleStream(*acc48, 1, fu::ScaleFormat::U85Acc48), u85wide);
  EXPECT_FALSE(fu::encodeScaleStream(u85, fu::ScaleFormat::U85Acc48));  // scale needs more than 15 bits
}

// specs/ethosu.md §1.7: Vela 3.10's command stream for CONV 3x3 pad 1, IFM 8x8x16 (zp -3) at
// region 1 offset 0, OFM at 0x400 (zp 5), weights at region 0 offset 0 (0xce0 bytes), scales
// at 0xd00, ReLU, U55-128. The payload words after the COP1 header.
constexpr std::uint32_t kVelaConvStream[] = {
    0x0001010f, 0x00004000, 0x00000000, 0x00004001, 0x00000000, 0x00004002, 0x00000000, 0x00004003,
    0x00000000, 0x0007010b, 0xffff010c, 0x0007010a, 0x000f0104, 0x00004006, 0x00000001, 0x00004005,
    0x00000080, 0x00004004, 0x00000010, 0xfffd0109, 0x00010105, 0x00000107, 0x00010100, 0x00010101,
    0x00010103, 0x00010102, 0x0001011f, 0x00004010, 0x00000400, 0x00004011, 0x00000000, 0x00004012,
    0x00000000, 0x00004013, 0x00000000, 0x0007011b, 0xffff011c, 0x0007011a, 0x00070112, 0x00070111,
    0x000f0113, 0x00004016, 0x00000001, 0x00004015, 0x00000080, 0x00004014, 0x00000010, 0x00050118,
    0x00010114, 0x00020121, 0x00020120, 0x00000122, 0x00000128, 0x00004020, 0x00000000, 0x00004021,
    0x00000ce0, 0x00000129, 0x00004022, 0x00000d00, 0x00004023, 0x000000a0, 0x00000125, 0x00050126,
    0x007f0127, 0x00070116, 0x00070115, 0x000f0117, 0x0006010d, 0x000e012d, 0x00000124, 0x0000012f,
    0x00000002, 0xffff0000};

/// Runs Vela's own register stream (with weights and scales of our choosing placed where the
/// stream expects them) and compares the OFM with the TOSA reference of the same convolution:
/// the simulator's reading of a second, independent producer's stream.
TEST(EthosUVelaStream, GoldenConvStreamComputesTheTosaConvolution) {
  std::mt19937 rng(99);
  std::vector<std::int64_t> w(16 * 3 * 3 * 16), bias(16), mult(16), shift(16);
  for (auto& v : w) v = std::uniform_int_distribution<int>(-3, 3)(rng);
  for (int c = 0; c < 16; ++c) {
    bias[static_cast<std::size_t>(c)] = std::uniform_int_distribution<int>(-300, 300)(rng);
    mult[static_cast<std::size_t>(c)] = std::uniform_int_distribution<std::int64_t>(1 << 30, (std::int64_t{1} << 31) - 1)(rng);
    shift[static_cast<std::size_t>(c)] = std::uniform_int_distribution<int>(33, 36)(rng);
  }
  GraphBuilder g;
  std::string x = g.input("x", {1, 8, 8, 16});
  tosa::ConvAttrs a;
  a.pad = {1, 1, 1, 1};
  a.stride = {1, 1};
  a.dilation = {1, 1};
  a.accType = DType::Int32;
  std::string acc = g.op(Op::Conv2d, a,
                         {x, g.constant(DType::Int8, {16, 3, 3, 16}, w), g.constant(DType::Int32, {16}, bias),
                          g.scalar(DType::Int8, -3), g.scalar(DType::Int8, 0)},
                         {1, 8, 8, 16}, DType::Int32);
  g.output(g.clamp(g.rescale(acc, DType::Int8, mult, shift, 0, 5), 5, 127));

  // Region 0 as the stream expects it: weights at 0 (at most 0xce0 bytes), scales at 0xd00.
  fu::WeightLayout layout;
  layout.ofmDepth = 16;
  layout.kernelHeight = layout.kernelWidth = 3;
  layout.ifmDepth = 16;
  layout.ofmBlockDepth = 16;
  layout.traversal = fu::WeightTraversal::DepthFirst;
  std::vector<std::int16_t> ordered;
  for (std::int64_t i : fu::weightStreamOrder(layout)) ordered.push_back(i < 0 ? 0 : static_cast<std::int16_t>(w[static_cast<std::size_t>(i)]));
  auto weights = fu::encodeWeightStream(ordered);
  ASSERT_LE(weights.size(), 0xce0u);
  std::vector<fu::ScaleRecord> records;
  for (int c = 0; c < 16; ++c) {
    const auto k = static_cast<std::size_t>(c);
    records.push_back({bias[k], static_cast<std::uint32_t>(mult[k]), static_cast<std::uint8_t>(shift[k])});
  }
  auto scales = fu::encodeScaleStream(records);
  ASSERT_TRUE(scales);
  std::vector<std::uint8_t> region0(0xd00 + 160, 0xFF);
  std::copy(weights.begin(), weights.end(), region0.begin());
  std::copy(scales->begin(), scales->end(), region0.begin() + 0xd00);
  tosa::HostTensor input = randomInt8({1, 8, 8, 16}, rng);
  std::vector<std::uint8_t> region1(0x800, 0);
  std::copy(input.bytes.begin(), input.bytes.end(), region1.begin());

  std::vector<std::uint8_t> streamBytes;
  for (std::uint32_t word : kVelaConvStream) {
    for (int i = 0; i < 4; ++i) streamBytes.push_back(static_cast<std::uint8_t>(word >> (8 * i)));
  }
  auto commands = fu::decodeCommandStream(streamBytes, fu::Product::U55);
  ASSERT_TRUE(commands) << commands.error().message();
  runner::ethosu::MemoryRegions regions{};
  regions[0] = region0;
  regions[1] = region1;
  runner::ethosu::Simulator sim(*fu::findAccelerator("ethos-u55-128"));
  Status st = sim.run(*commands, regions);
  ASSERT_TRUE(st) << st.error().message();
  auto expected = tosa::reference::run(g.graph(), std::vector<tosa::HostTensor>{input});
  ASSERT_TRUE(expected) << expected.error().message();
  const std::vector<std::uint8_t> got(region1.begin() + 0x400, region1.end());
  EXPECT_EQ(got, expected->outputs[0].value.bytes);
  std::set<std::uint8_t> distinct(got.begin(), got.end());
  EXPECT_GT(distinct.size(), 10u);
}

}  // namespace
}  // namespace openvgf::ethosu_test
