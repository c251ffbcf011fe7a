// SPDX-License-Identifier: Apache-2.0
// Verifier: valid fixtures pass with the expected profiles; each broken graph (built valid,
// then damaged) fails with a message naming the operator, the tensor and the rule.
#include "tosa/verifier.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tosa/builder.h"
#include "tosa/reader.h"

namespace openvgf::tosa {
namespace {

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

std::string dataPath(const char* rel) {
  return std::string(OPENVGF_TEST_DATA) + "/tosa/" + rel;
}

std::string errorOf(const Graph& g) {
  Status s = verify(g);
  if (s) return "(valid)";
  EXPECT_EQ(s.error().exitCode(), 2);
  return s.error().message();
}

Graph convGraph() {
  Builder b;
  Value x = b.input("x", DType::Int8, {1, 6, 6, 2});
  HostTensor w(DType::Int8, {4, 3, 3, 2});
  Value wv = b.constant(w, "w");
  Value y = b.conv2d(x, wv, std::nullopt, {.pad = {1, 1, 1, 1}, .name = "y"});
  Value r = b.rescale(y, {.outType = DType::Int8, .multiplier = {1 << 30}, .shift = {35}, .name = "r"});
  b.output(b.clamp(r, -100, 100, NanMode::Propagate, "out"));
  return b.build().value();
}

Operator& opProducing(Graph& g, std::string_view name) {
  for (Operator& op : g.mainBlock()->operators) {
    if (!op.outputs.empty() && op.outputs[0] == name) return op;
  }
  throw std::runtime_error("no such op");
}

TEST(TosaVerifier, FixturesAreValid) {
  struct Case {
    const char* file;
    Requirements req;
  };
  for (const Case& c :
       {Case{"simple_maxpool2d/model.tosa", {{"PRO-INT"}, {}}},
        Case{"test_add_1x4x4x4_f32/model.tosa", {{"PRO-FP"}, {}}},
        Case{"test_conv2d_1x1_1x32x32x8_f32_st11_padSAME_dilat11/model.tosa", {{"PRO-FP"}, {}}}}) {
    auto g = readGraph(std::filesystem::path(dataPath(c.file)));
    ASSERT_TRUE(g);
    Status s = verify(*g);
    EXPECT_TRUE(s) << c.file << ": " << s.error().message();
    EXPECT_EQ(requirements(*g), c.req) << c.file;
  }
}

TEST(TosaVerifier, BuiltGraphIsValidAndReportsProfiles) {
  Graph g = convGraph();
  EXPECT_EQ(errorOf(g), "(valid)");
  EXPECT_EQ(requirements(g), (Requirements{{"PRO-INT"}, {}}));

  Builder b;
  Value x = b.input("x", DType::Int16, {1, 4});
  Value y = b.rescale(x, {.outType = DType::Int8,
                          .multiplier = {1 << 30},
                          .shift = {40},
                          .roundingMode = RoundingMode::DoubleRound});
  Value c = b.input("c", DType::Bool, {1});
  auto out = b.condIf(
      c, {y}, [](Builder&, const std::vector<Value>& in) { return in; },
      [](Builder& e, const std::vector<Value>& in) { return std::vector<Value>{e.negate(in[0])}; });
  b.output(out[0]);
  auto built = b.build();
  ASSERT_TRUE(built) << built.error().message();
  EXPECT_EQ(errorOf(*built), "(valid)");
  EXPECT_EQ(requirements(*built), (Requirements{{"PRO-INT"}, {"EXT-CONTROLFLOW", "EXT-DOUBLEROUND"}}));
}

TEST(TosaVerifier, UndefinedName) {
  Graph g = convGraph();
  opProducing(g, "r").inputs[0] = "nope";
  EXPECT_CONTAINS(errorOf(g), "regions[0].blocks[0] 'main': operators[");
  EXPECT_CONTAINS(errorOf(g), "RESCALE: input 'nope': undefined tensor");
}

TEST(TosaVerifier, DuplicateDefinition) {
  Graph g = convGraph();
  opProducing(g, "out").outputs[0] = "r";
  EXPECT_CONTAINS(errorOf(g), "CLAMP: output 'r': duplicate definition (already produced by operators[");
  Graph d = convGraph();
  d.mainBlock()->tensors.push_back(d.mainBlock()->tensors[0]);
  EXPECT_CONTAINS(errorOf(d), "tensors: duplicate definition of tensor 'x'");
}

TEST(TosaVerifier, ElementCountsThatOverflowInt64AreRefused) {
  Graph g = convGraph();
  constexpr std::int64_t kMaxDim = 2147483647;  // the largest int32 dimension a .tosa file holds
  for (Tensor& t : g.mainBlock()->tensors) {
    if (t.name == "x") t.shape = {kMaxDim, kMaxDim, kMaxDim, 2};  // 2^94 elements
  }
  EXPECT_CONTAINS(errorOf(g), "tensor 'x': shape [2147483647,2147483647,2147483647,2]: expected at most 2^63 - 1 "
                              "elements (tensor_size_t, MAX_LOG2_SIZE 63 of level none), got more");
  Graph big = convGraph();
  for (Tensor& t : big.mainBlock()->tensors) {
    if (t.name == "x") t.shape = {1, kMaxDim, kMaxDim, 2};  // 2^63 - 2^33 + 2: still representable
  }
  EXPECT_EQ(errorOf(big).find("2^63"), std::string::npos);
}

TEST(TosaVerifier, Cycle) {
  Builder b;
  Value x = b.input("x", DType::Fp32, {2});
  Value a = b.add(x, x, "a");
  Value c = b.sub(a, x, "c");
  b.output(c);
  Graph g = b.build().value();
  // a = add(x, c): a and c now depend on each other.
  opProducing(g, "a").inputs[1] = "c";
  EXPECT_CONTAINS(errorOf(g), "part of a cycle");
}

TEST(TosaVerifier, OutputNeverProduced) {
  Graph g = convGraph();
  Tensor t;
  t.name = "ghost";
  t.dtype = DType::Int8;
  t.shape = {1};
  g.mainBlock()->tensors.push_back(t);
  g.mainBlock()->outputs.push_back("ghost");
  EXPECT_CONTAINS(errorOf(g), "outputs: 'ghost' is never produced");
  g.mainBlock()->outputs.back() = "missing";
  EXPECT_CONTAINS(errorOf(g), "outputs: 'missing' is undefined");
}

TEST(TosaVerifier, TypeMismatch) {
  Graph g = convGraph();
  g.mainBlock()->findTensor("x")->dtype = DType::Fp32;
  EXPECT_CONTAINS(errorOf(g),
                  "CONV2D: input x weight x acc_type: expected a type combination of a TOSA 1.0 profile "
                  "or extension, got FP32 x INT8 x INT32");
  Builder b;
  Value x = b.input("x", DType::Fp32, {2});
  b.output(b.add(x, b.input("y", DType::Fp32, {2}), "s"));
  Graph h = b.build().value();
  h.mainBlock()->findTensor("y")->dtype = DType::Fp16;
  EXPECT_CONTAINS(errorOf(h), "operators[0] ADD: input2 'y': expected type FP32, got FP16");
  h.mainBlock()->findTensor("y")->dtype = DType::Fp32;
  h.mainBlock()->findTensor("s")->dtype = DType::Int32;
  EXPECT_CONTAINS(errorOf(h), "ADD: output 's': expected type FP32, got INT32");
}

TEST(TosaVerifier, ConvShapeRule) {
  Graph g = convGraph();
  g.mainBlock()->findTensor("y")->shape = {1, 5, 6, 4};
  EXPECT_CONTAINS(
      errorOf(g),
      "CONV2D: output 'y': expected shape [1,6,6,4] (from the inputs and attributes), got [1,5,6,4]");
  Graph s = convGraph();
  std::get<ConvAttrs>(opProducing(s, "y").attrs).stride = {4, 4};
  EXPECT_CONTAINS(errorOf(s),
                  "OH: OH = (IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y) / stride_y + 1 must "
                  "divide exactly and be >= 1, got (5) / 4");
  Graph p = convGraph();
  std::get<ConvAttrs>(opProducing(p, "y").attrs).pad = {-1, 1, 1, 1};
  EXPECT_NE(errorOf(p), "(valid)");
}

TEST(TosaVerifier, AttributeRanges) {
  Builder b;
  Value x = b.input("x", DType::Int8, {1, 4, 4, 1});
  b.output(b.maxPool2d(x, {.kernel = {2, 2}, .pad = {0, 0, 0, 0}, .name = "p"}));
  Graph g = b.build().value();
  std::get<MaxPool2dAttrs>(opProducing(g, "p").attrs).pad = {2, 0, 0, 0};
  std::get<MaxPool2dAttrs>(opProducing(g, "p").attrs).stride = {3, 2};
  g.mainBlock()->findTensor("p")->shape = {1, 2, 2, 1};
  EXPECT_CONTAINS(errorOf(g), "MAX_POOL2D: pad: expected 0 <= pad < kernel");

  Graph c = convGraph();
  auto& clampAttrs = std::get<ClampAttrs>(opProducing(c, "out").attrs);
  std::swap(clampAttrs.minVal, clampAttrs.maxVal);
  EXPECT_CONTAINS(errorOf(c), "CLAMP: min_val/max_val: expected min_val <= max_val");

  Graph r = convGraph();
  auto& rescale = std::get<RescaleAttrs>(opProducing(r, "r").attrs);
  rescale.scale32 = false;
  rescale.roundingMode = RoundingMode::DoubleRound;
  EXPECT_CONTAINS(errorOf(r), "RESCALE: rounding_mode: DOUBLE_ROUND requires scale32");
}

TEST(TosaVerifier, ZeroPointsAndCtc) {
  Builder b;
  Value x = b.input("x", DType::Fp32, {1, 3, 3, 1});
  HostTensor w(DType::Fp32, {1, 1, 1, 1});
  b.output(b.conv2d(x, b.constant(w), std::nullopt, {.inputZp = 3, .name = "y"}));
  EXPECT_CONTAINS(errorOf(b.build().value()), "CONV2D: input_zp 'input_zp_");
  EXPECT_CONTAINS(errorOf(b.build().value()),
                  "expected 0 (ERROR_IF input_zp != 0 for non-int8 types), got 3");

  // A zero point computed by another operator is not a compile-time constant.
  Graph g = convGraph();
  Operator& conv = opProducing(g, "y");
  Tensor computed;
  computed.name = "zp_computed";
  computed.dtype = DType::Int8;
  computed.shape = {1};
  g.mainBlock()->tensors.push_back(computed);
  Operator id;
  id.op = Op::Identity;
  id.inputs = {conv.inputs[3]};
  id.outputs = {"zp_computed"};
  conv.inputs[3] = "zp_computed";
  g.mainBlock()->operators.insert(g.mainBlock()->operators.begin(), id);
  EXPECT_CONTAINS(errorOf(g), "input_zp 'zp_computed': expected a compile-time constant");
  VerifyOptions dynamic;
  dynamic.allowDynamic = true;
  EXPECT_TRUE(verify(g, dynamic));
  EXPECT_EQ(requirements(g).extensions, (std::vector<std::string>{"EXT-DYNAMIC"}));
}

TEST(TosaVerifier, ControlFlowSignature) {
  Builder b;
  Value c = b.input("c", DType::Bool, {1});
  Value x = b.input("x", DType::Fp32, {2});
  auto out = b.condIf(
      c, {x}, [](Builder&, const std::vector<Value>& in) { return in; },
      [](Builder& e, const std::vector<Value>& in) { return std::vector<Value>{e.exp(in[0])}; });
  b.output(out[0]);
  Graph g = b.build().value();
  std::get<CondIfAttrs>(g.mainBlock()->operators.back().attrs).elseGraph = "nowhere";
  EXPECT_CONTAINS(errorOf(g), "COND_IF: else_graph: graph 'nowhere' not found");
  Graph h = b.build().value();
  h.regions[2].blocks[0].tensors[0].shape = {3};
  EXPECT_NE(errorOf(h), "(valid)");
}

TEST(TosaVerifier, ShapeValuesAreNotGraphOutputs) {
  Builder b;
  b.output(b.constShape({2, 3}, "s"));
  EXPECT_CONTAINS(errorOf(b.build().value()), "outputs: 's': expected a tensor, got a shape_t value");
}

TEST(TosaVerifier, VerifyAllCollectsEveryProblem) {
  Graph g = convGraph();
  opProducing(g, "r").inputs[0] = "nope";
  g.mainBlock()->outputs.push_back("missing");
  std::vector<Error> errors = verifyAll(g);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_CONTAINS(errors[0].message(), "undefined tensor");
  EXPECT_CONTAINS(errors[1].message(), "'missing' is undefined");
}

}  // namespace
}  // namespace openvgf::tosa
