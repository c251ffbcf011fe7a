// SPDX-License-Identifier: Apache-2.0
// Whole models: the fixture graphs (tests/data/tosa, outputs compared with TensorFlow's
// tf_result.npy and with the reference interpreter), multi-op blocks that real networks
// use (conv -> rescale -> clamp, residual, depthwise-separable, attention, int8 block), the
// determinism of convert, and the shape of what we write (decoder validation, JSON).
#include <cmath>

#include <gtest/gtest.h>

#include "tests/converter/run_util.h"
#include "tosa/builder.h"
#include "tosa/npy.h"
#include "tosa/reader.h"
#include "vgf/json.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::HostTensor;
using tosa::Value;

const std::filesystem::path kData = OPENVGF_TEST_DATA;

HostTensor randomInt8(tosa::Shape shape, std::mt19937& rng) {
  HostTensor t(DType::Int8, std::move(shape));
  std::uniform_int_distribution<int> dist(-128, 127);
  for (auto& v : t.as<std::int8_t>()) v = static_cast<std::int8_t>(dist(rng));
  return t;
}

class Models : public ::testing::Test {
 protected:
  std::mt19937 rng{7767517};
};

void checkFixture(const std::string& name, int inputCount) {
  const auto dir = kData / "tosa" / name;
  auto graph = tosa::readGraph(dir / "model.tosa");
  ASSERT_TRUE(graph) << graph.error().message();
  const tosa::Block* main = graph->mainBlock();
  std::vector<HostTensor> inputs;
  for (int i = 0; i < inputCount; ++i) {
    const tosa::Tensor* t = main->findTensor(main->inputs[static_cast<std::size_t>(i)]);
    auto value = tosa::npy::readTensor(dir / fmt::format("placeholder_{}.npy", i), t->dtype, t->shape);
    ASSERT_TRUE(value) << value.error().message();
    inputs.push_back(std::move(*value));
  }
  auto outcome = convertRunCheck(*graph, inputs);
  expectAllPass(outcome);
  ASSERT_EQ(outcome.outputs.size(), 1u);
  auto expected = tosa::npy::readTensor(dir / "tf_result.npy", DType::Fp32, outcome.outputs[0].shape);
  ASSERT_TRUE(expected) << expected.error().message();
  auto got = outcome.outputs[0].as<float>();
  auto want = expected->as<float>();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5 * std::max(1.0f, std::fabs(want[i]))) << i;
}

TEST_F(Models, FixtureAddMatchesTensorFlow) { checkFixture("test_add_1x4x4x4_f32", 2); }

TEST_F(Models, FixtureConv2dWithTransposedWeightsMatchesTensorFlow) {
  checkFixture("test_conv2d_1x1_1x32x32x8_f32_st11_padSAME_dilat11", 1);
}

TEST_F(Models, FixtureMaxPoolInt8MatchesReference) {
  auto graph = tosa::readGraph(kData / "tosa" / "simple_maxpool2d" / "model.tosa");
  ASSERT_TRUE(graph) << graph.error().message();
  const tosa::Block* main = graph->mainBlock();
  const tosa::Tensor* in = main->findTensor(main->inputs[0]);
  expectAllPass(convertRunCheck(*graph, {randomInt8(in->shape, rng)}));
}

TEST_F(Models, Int8ConvRescaleClampBlock) {
  tosa::Builder b;
  Value x = b.input("x", DType::Int8, {1, 12, 12, 8});
  HostTensor w = randomInt8({16, 3, 3, 8}, rng);
  HostTensor bias(DType::Int32, {16});
  for (std::size_t i = 0; i < 16; ++i) bias.as<std::int32_t>()[i] = static_cast<std::int32_t>(i * 97) - 700;
  tosa::ConvParams cp;
  cp.pad = {1, 1, 1, 1};
  cp.stride = {1, 1};
  cp.dilation = {1, 1};
  cp.inputZp = -12;
  Value acc = b.conv2d(x, b.constant(w), b.constant(bias), cp);
  tosa::RescaleParams rp;
  rp.outType = DType::Int8;
  rp.multiplier = std::vector<std::int32_t>(16, 1395864371);
  for (int i = 0; i < 16; ++i) rp.multiplier[static_cast<std::size_t>(i)] += i * 1000003;
  rp.shift = std::vector<std::int32_t>(16, 41);
  rp.outputZp = -5;
  Value q = b.rescale(acc, rp);
  b.output(b.clamp(q, -128, 100));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  auto outcome = convertRunCheck(*graph, {randomInt8({1, 12, 12, 8}, rng)});
  expectAllPass(outcome);
  EXPECT_EQ(outcome.stats.kernels, 1u);  // CONV2D + RESCALE + CLAMP in one kernel
}

TEST_F(Models, Fp32ResidualBlock) {
  tosa::Builder b;
  Value x = b.input("x", DType::Fp32, {1, 10, 10, 16});
  tosa::ConvParams cp;
  cp.pad = {1, 1, 1, 1};
  cp.stride = {1, 1};
  cp.dilation = {1, 1};
  Value c1 = b.conv2d(x, b.constant(randomFp32({16, 3, 3, 16}, rng, -0.2f, 0.2f)), b.constant(randomFp32({16}, rng)), cp);
  // The residual ADD joins conv 1's epilogue (after its CLAMP). The block ends in a conv:
  // the reference's chained rule for an elementwise op after a conv does not yet include
  // the conv's own dot-product tolerance, so an output that ends in ADD would be judged
  // with a few-ulp bound (reported to the reference owner).
  Value r1 = b.add(b.clamp(c1, 0.0, 6.0), x);
  b.output(b.conv2d(r1, b.constant(randomFp32({16, 3, 3, 16}, rng, -0.2f, 0.2f)), b.constant(randomFp32({16}, rng)), cp));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  auto outcome = convertRunCheck(*graph, {randomFp32({1, 10, 10, 16}, rng)});
  expectAllPass(outcome);
  EXPECT_EQ(outcome.stats.kernels, 2u);  // CLAMP and the residual ADD fused into conv 1
}

TEST_F(Models, DepthwiseSeparableBlock) {
  tosa::Builder b;
  Value x = b.input("x", DType::Fp32, {1, 9, 9, 12});
  tosa::ConvParams dp;
  dp.pad = {1, 1, 1, 1};
  dp.stride = {2, 2};
  dp.dilation = {1, 1};
  Value d = b.depthwiseConv2d(x, b.constant(randomFp32({3, 3, 12, 1}, rng)), b.constant(randomFp32({12}, rng)), dp);
  Value r = b.clamp(d, 0.0, 6.0);
  tosa::ConvParams pw;
  pw.pad = {0, 0, 0, 0};
  pw.stride = {1, 1};
  pw.dilation = {1, 1};
  Value p = b.conv2d(r, b.constant(randomFp32({24, 1, 1, 12}, rng)), b.constant(randomFp32({24}, rng)), pw);
  b.output(b.clamp(p, 0.0, 6.0));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  expectAllPass(convertRunCheck(*graph, {randomFp32({1, 9, 9, 12}, rng)}));
}

TEST_F(Models, AttentionWithSoftmax) {
  // q, k, v [1, 6, 16]: softmax(q k^T / 4) v, softmax from EXP / REDUCE_SUM / RECIPROCAL.
  tosa::Builder b;
  Value x = b.input("x", DType::Fp32, {6, 16});
  Value x3 = b.reshape(x, {1, 6, 16});
  Value q = b.matmul(x3, b.constant(randomFp32({1, 16, 16}, rng, -0.3f, 0.3f)));
  Value k = b.matmul(x3, b.constant(randomFp32({1, 16, 16}, rng, -0.3f, 0.3f)));
  Value v = b.matmul(x3, b.constant(randomFp32({1, 16, 16}, rng, -0.3f, 0.3f)));
  Value kt = b.transpose(k, {0, 2, 1});
  Value scores = b.mul(b.matmul(q, kt), b.constant(DType::Fp32, {1, 1, 1}, std::vector<float>{0.25f}));
  Value shifted = b.sub(scores, b.reduceMax(scores, 2));
  Value e = b.exp(shifted);
  Value probs = b.mul(e, b.reciprocal(b.reduceSum(e, 2)));
  Value out = b.matmul(probs, v);
  b.output(b.reshape(out, {6, 16}));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  expectAllPass(convertRunCheck(*graph, {randomFp32({6, 16}, rng)}));
}

TEST_F(Models, Int8QuantisedBlockWithPoolAndTable) {
  tosa::Builder b;
  Value x = b.input("x", DType::Int8, {1, 8, 8, 4});
  tosa::ConvParams cp;
  cp.pad = {0, 0, 0, 0};
  cp.stride = {1, 1};
  cp.dilation = {1, 1};
  Value acc = b.conv2d(x, b.constant(randomInt8({8, 1, 1, 4}, rng)), std::nullopt, cp);
  tosa::RescaleParams rp;
  rp.outType = DType::Int8;
  rp.multiplier = {1518500250};
  rp.shift = {38};
  Value q = b.rescale(acc, rp);
  std::vector<std::int32_t> table(256);
  for (int i = 0; i < 256; ++i) table[static_cast<std::size_t>(i)] = std::clamp(static_cast<int>(std::lround(127.0 * std::tanh((i - 128) / 32.0))), -128, 127);
  Value t = b.table(q, table);
  tosa::AvgPoolParams ap;
  ap.kernel = {2, 2};
  ap.stride = {2, 2};
  Value pooled = b.avgPool2d(t, ap);
  b.output(b.reshape(pooled, {1, 4 * 4 * 8}));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  expectAllPass(convertRunCheck(*graph, {randomInt8({1, 8, 8, 4}, rng)}));
}

TEST_F(Models, VariableBecomesStateInputOutputPair) {
  // acc += x; y = acc * 2, run for two steps feeding the state back.
  tosa::Builder b;
  Value x = b.input("x", DType::Fp32, {4});
  HostTensor init(DType::Fp32, {4});
  Value acc = b.variable("acc", init);
  Value next = b.add(b.variableRead(acc), x);
  b.variableWrite(acc, next);
  b.output(b.mul(next, b.constant(DType::Fp32, {1}, std::vector<float>{2.0f})));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  auto converted = converter::convert(*graph);
  ASSERT_TRUE(converted) << converted.error().message();
  auto file = vgf::decode(converted->vgf);
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_EQ(file->inputNames, (std::vector<std::string>{"x", "state:acc"}));
  ASSERT_EQ(file->outputNames.size(), 2u);
  EXPECT_EQ(file->outputNames[1], "state:acc");
  auto model = runner::Model::create(*file, "state.vgf");
  ASSERT_TRUE(model) << model.error().message();
  runner::ContextOptions options;
  options.validate = true;
  options.pipelineCache = false;
  auto context = runner::Context::create(options, *model);
  ASSERT_TRUE(context) << context.error().message();
  auto session = runner::Session::create(**context, *model);
  ASSERT_TRUE(session) << session.error().message();
  HostTensor in(DType::Fp32, {4});
  for (std::size_t i = 0; i < 4; ++i) in.as<float>()[i] = static_cast<float>(i) + 0.5f;
  HostTensor state = init;
  for (int step = 1; step <= 2; ++step) {
    auto out = session->run(std::vector<HostTensor>{in, state});
    ASSERT_TRUE(out) << out.error().message();
    ASSERT_EQ(out->size(), 2u);
    state = (*out)[1];
    for (std::size_t i = 0; i < 4; ++i) {
      const float expected = static_cast<float>(step) * (static_cast<float>(i) + 0.5f);
      EXPECT_EQ(state.as<float>()[i], expected);
      EXPECT_EQ((*out)[0].as<float>()[i], 2 * expected);
    }
  }
}

TEST_F(Models, CondIfWithConstantConditionIsInlined) {
  tosa::Builder b;
  Value x = b.input("x", DType::Fp32, {5});
  Value cond = b.constant(DType::Bool, {1}, std::vector<int>{0});
  auto outs = b.condIf(
      cond, {x}, [](tosa::Builder& t, const std::vector<Value>& in) { return std::vector<Value>{t.exp(in[0])}; },
      [](tosa::Builder& e, const std::vector<Value>& in) { return std::vector<Value>{e.abs(in[0])}; });
  b.output(outs[0]);
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  auto outcome = convertRunCheck(*graph, {randomFp32({5}, rng)});
  expectAllPass(outcome);
  ASSERT_EQ(outcome.outputs.size(), 1u);
  EXPECT_EQ(outcome.stats.kernels, 1u);  // ABS of the else branch, written straight to the output
}

TEST_F(Models, DataDependentLoopIsAClearError) {
  tosa::Builder b;
  Value x = b.input("x", DType::Int32, {1});
  auto outs = b.whileLoop(
      {x}, [](tosa::Builder& c, const std::vector<Value>& in) {
        return c.greater(c.constant(DType::Int32, {1}, std::vector<int>{10}), in[0]);
      },
      [](tosa::Builder& body, const std::vector<Value>& in) {
        return std::vector<Value>{body.add(in[0], body.constant(DType::Int32, {1}, std::vector<int>{1}))};
      });
  b.output(outs[0]);
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  auto converted = converter::convert(*graph);
  ASSERT_FALSE(converted);
  EXPECT_EQ(converted.error().kind(), ErrorKind::Unsupported);
  EXPECT_NE(converted.error().message().find("WHILE_LOOP: expected a condition that is constant"), std::string::npos)
      << converted.error().message();
}

TEST_F(Models, ConvertIsDeterministic) {
  auto graph = tosa::readGraph(kData / "tosa" / "test_conv2d_1x1_1x32x32x8_f32_st11_padSAME_dilat11" / "model.tosa");
  ASSERT_TRUE(graph) << graph.error().message();
  converter::ConvertOptions a;
  a.useCache = false;
  a.threads = 1;
  converter::ConvertOptions c;
  c.useCache = false;
  c.threads = 4;
  auto first = converter::convert(*graph, a);
  auto second = converter::convert(*graph, c);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->vgf, second->vgf);
}

TEST_F(Models, OutputPassesDecoderValidationAndDumpsAsJson) {
  auto graph = tosa::readGraph(kData / "tosa" / "test_add_1x4x4x4_f32" / "model.tosa");
  ASSERT_TRUE(graph) << graph.error().message();
  auto converted = converter::convert(*graph);
  ASSERT_TRUE(converted) << converted.error().message();
  auto file = vgf::decode(converted->vgf);
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_TRUE(vgf::validate(*file));
  EXPECT_EQ(file->inputNames, graph->mainBlock()->inputs);
  EXPECT_EQ(file->outputNames, graph->mainBlock()->outputs);
  // vgf_dump's layout: header, modules, resources, constants, model_sequence{segments, inputs, outputs}.
  nlohmann::json json = vgf::toJson(*file);
  for (const char* key : {"header", "modules", "resources", "constants", "model_sequence"}) {
    EXPECT_TRUE(json.contains(key)) << key << " in " << json.dump();
  }
  for (const char* key : {"segments", "inputs", "outputs"}) {
    EXPECT_TRUE(json["model_sequence"].contains(key)) << key << " in " << json.dump();
  }
  EXPECT_EQ(json["model_sequence"]["segments"][0]["type"], "COMPUTE");
  ASSERT_EQ(file->segments.size(), 1u);
  EXPECT_EQ(file->segments[0].type, vgf::ModuleType::Compute);
  EXPECT_TRUE(file->segments[0].dispatchShape.has_value());
}

}  // namespace
}  // namespace openvgf::testing
