// SPDX-License-Identifier: Apache-2.0
// VGFs with GRAPH segments at the converter level: the model-converter fixture decodes with its
// constant; both graph-constant conventions bind the right payloads; a GRAPH -> COMPUTE ->
// GRAPH sequence sharing memory through alias groups lowers into one COMPUTE VGF that runs on
// lavapipe (validation on) and gives the hand-computed result; and every case of the operator
// sweep, written as an Arm-style VGF and lowered, gets exactly the kernels the .tosa path gets
// (INT4 cases, which the SPIR-V encoding widens to INT8, are run against the reference instead).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "common/sha256.h"
#include "converter/arm_graph_vgf.h"
#include "converter/lower_vgf.h"
#include "tests/converter/graph_vgf_util.h"
#include "tests/converter/run_util.h"
#include "tests/support/op_sweep_cases.h"
#include "tests/tosa/spirv_test_util.h"
#include "tosa/builder.h"
#include "tosa/spirv/encoder.h"

namespace openvgf::testing {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

const fs::path kData = OPENVGF_TEST_DATA;

std::vector<std::uint8_t> readBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

converter::LowerOptions testLowerOptions() {
  converter::LowerOptions o;
  o.useCache = false;
  o.convert.cacheDir = fs::temp_directory_path() / "openvgf-converter-test-cache";
  return o;
}

/// Per segment: SHA-256 of its module's code and its dispatch grid.
std::vector<std::string> kernels(std::span<const std::uint8_t> bytes) {
  std::vector<std::string> out;
  auto file = vgf::decode(bytes);
  if (!file) return {file.error().message()};
  for (const vgf::Segment& s : file->segments) {
    const vgf::Module& m = file->modules[s.moduleIndex];
    std::span<const std::uint8_t> code(reinterpret_cast<const std::uint8_t*>(m.spirv.data()), m.spirv.size_bytes());
    const auto d = s.dispatchShape.value_or(std::array<std::uint32_t, 3>{0, 0, 0});
    out.push_back(fmt::format("{} {}x{}x{}", sha256Hex(code), d[0], d[1], d[2]));
  }
  return out;
}

TEST(GraphVgf, ModelConverterFixtureDecodesWithItsSparseConstant) {
  const auto bytes = readBytes(kData / "vgf-graph/simple_conv2d_rescale_graph.vgf");
  auto file = vgf::decode(bytes);
  ASSERT_TRUE(file) << file.error().message();
  ASSERT_EQ(file->constants.size(), 1u);
  EXPECT_EQ(file->constants[0].sparsityDimension, 3);
  auto run = converter::decodeGraphModel(*file, {}, "fixture.vgf");
  ASSERT_TRUE(run) << run.error().message();
  const tosa::Block& block = *run->graph.mainBlock();
  EXPECT_EQ(block.inputs, (std::vector<std::string>{"input"}));
  EXPECT_EQ(block.outputs, (std::vector<std::string>{"output"}));
  std::vector<tosa::Op> ops;
  const tosa::Tensor* weights = nullptr;
  for (const tosa::Operator& op : block.operators) {
    if (op.op == tosa::Op::Const) continue;
    ops.push_back(op.op);
    if (op.op == tosa::Op::Conv2d) weights = block.findTensor(op.inputs[1]);
  }
  EXPECT_EQ(ops, (std::vector<tosa::Op>{tosa::Op::Rescale, tosa::Op::Conv2d, tosa::Op::Rescale, tosa::Op::Rescale}));
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->shape, (tosa::Shape{4, 3, 3, 4}));
  ASSERT_TRUE(weights->data.has_value());
  EXPECT_TRUE(std::equal(weights->data->begin(), weights->data->end(), file->constants[0].data.begin(),
                         file->constants[0].data.end()));
}

/// conv2d.spv (graph constants 0: weights [3,3,3,3], 1: bias [3]) in a VGF whose constants are
/// stored bias first, bound explicitly.
TEST(GraphVgf, ExplicitAndImplicitConstantBindingsGiveTheSamePayloads) {
  tosa::HostTensor weights(tosa::DType::Fp32, {3, 3, 3, 3});
  for (std::size_t i = 0; i < weights.as<float>().size(); ++i) weights.as<float>()[i] = static_cast<float>(i);
  tosa::HostTensor bias(tosa::DType::Fp32, {3});
  for (std::size_t i = 0; i < 3; ++i) bias.as<float>()[i] = 100.0f + static_cast<float>(i);
  const std::uint32_t f32 = static_cast<std::uint32_t>(vgf::VkFormatValue::R32Sfloat);
  GraphVgfSpec spec;
  spec.module = loadSpirv(kData / "vgf-graph/conv2d.spvasm.spv");
  spec.inputs = {{f32, {1, 20, 20, 3}, "x"}};
  spec.outputs = {{f32, {1, 20, 20, 3}, "y"}};
  auto payloadsOf = [](const std::vector<std::uint8_t>& bytes) -> Result<std::pair<std::vector<std::uint8_t>, std::vector<std::uint8_t>>> {
    OPENVGF_ASSIGN_OR_RETURN(vgf::File file, vgf::decode(bytes));
    OPENVGF_ASSIGN_OR_RETURN(converter::GraphRun run, converter::decodeGraphModel(file, {}, "t.vgf"));
    const tosa::Block& b = *run.graph.mainBlock();
    for (const tosa::Operator& op : b.operators) {
      if (op.op == tosa::Op::Conv2d) return std::make_pair(*b.findTensor(op.inputs[1])->data, *b.findTensor(op.inputs[2])->data);
    }
    return invalidInput("no CONV2D");
  };
  spec.constants = {weights, bias};
  auto implicit = payloadsOf(writeGraphVgf(spec));
  ASSERT_TRUE(implicit) << implicit.error().message();
  EXPECT_EQ(implicit->first, weights.bytes);
  EXPECT_EQ(implicit->second, bias.bytes);
  spec.constants = {bias, weights};
  spec.bindings = {{0, 1}, {1, 0}};
  auto bound = payloadsOf(writeGraphVgf(spec));
  ASSERT_TRUE(bound) << bound.error().message();
  EXPECT_EQ(bound->first, weights.bytes);
  EXPECT_EQ(bound->second, bias.bytes);
  // Without bindings the same file binds graph constant 0 to the bias: its shape is refused.
  spec.bindings.clear();
  auto wrong = payloadsOf(writeGraphVgf(spec));
  ASSERT_FALSE(wrong);
  EXPECT_THAT(wrong.error().message(), HasSubstr("graph constant 0 (constants[0], resources[0]): expected the module's shape "
                                                 "[3,3,3,3], got [3]"));
}

TEST(GraphVgf, GraphComputeGraphSequenceLowersAndRuns) {
  using tosa::DType;
  const std::int64_t n = 40;
  std::vector<float> c1(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) c1[static_cast<std::size_t>(i)] = static_cast<float>(i % 9) - 4.0f;
  // G1: t1 = x + c1 (c1 a graph constant).
  tosa::Builder g1;
  g1.output(g1.add(g1.input("x", DType::Fp32, {n}), g1.constant(DType::Fp32, {n}, c1, "c1"), "t1"));
  auto e1 = tosa::spirv::encodeGraph(*g1.build());
  ASSERT_TRUE(e1) << e1.error().message();
  // The COMPUTE segment: t2 = t1 + t1, from the converter.
  tosa::Builder a;
  tosa::Value t = a.input("t1", DType::Fp32, {n});
  a.output(a.add(t, t, "t2"));
  auto compute = converter::convert(*a.build(), testLowerOptions().convert);
  ASSERT_TRUE(compute) << compute.error().message();
  auto la = vgf::decode(compute->vgf);
  ASSERT_TRUE(la) << la.error().message();
  ASSERT_EQ(la->segments.size(), 1u);
  ASSERT_EQ(la->resources.size(), 2u);
  // G2: y = clamp(t2, -10, 10).
  tosa::Builder g2;
  g2.output(g2.clamp(g2.input("t2", DType::Fp32, {n}), -10.0, 10.0, tosa::NanMode::Propagate, "y"));
  auto e2 = tosa::spirv::encodeGraph(*g2.build());
  ASSERT_TRUE(e2) << e2.error().message();

  const std::uint32_t f32 = static_cast<std::uint32_t>(vgf::VkFormatValue::R32Sfloat);
  vgf::Builder b;
  const vgf::ResourceId c = b.addResource(vgf::ResourceCategory::Constant, f32, {n});
  const vgf::ConstantId cid = b.addConstant(c, std::span<const std::uint8_t>(e1->constants.at(0).value.bytes));
  const vgf::ResourceId x = b.addResource(vgf::ResourceCategory::Input, f32, {n}, vgf::kUnset, vgf::kDescriptorTypeTensorArm);
  // t1 and t2 each have a tensor view (GRAPH side) and a buffer view (COMPUTE side) sharing an alias group.
  const vgf::ResourceId t1Tensor = b.addResource(vgf::ResourceCategory::Intermediate, f32, {n}, 0, vgf::kDescriptorTypeTensorArm);
  const vgf::ResourceId t1Buffer = b.addResource(vgf::ResourceCategory::Intermediate, f32, {n}, 0);
  const vgf::ResourceId t2Buffer = b.addResource(vgf::ResourceCategory::Intermediate, f32, {n}, 1);
  const vgf::ResourceId t2Tensor = b.addResource(vgf::ResourceCategory::Intermediate, f32, {n}, 1, vgf::kDescriptorTypeTensorArm);
  const vgf::ResourceId y = b.addResource(vgf::ResourceCategory::Output, f32, {n}, vgf::kUnset, vgf::kDescriptorTypeTensorArm);
  const vgf::ModuleId m1 = b.addModule("graph1", "main", e1->words, vgf::ModuleType::Graph);
  b.addSegment("g1", m1, {{0, {{0, x}, {1, t1Tensor}}}}, {{0, x}}, {{1, t1Tensor}}, {cid});
  const vgf::Segment& cs = la->segments[0];
  std::vector<std::uint32_t> code(la->modules[cs.moduleIndex].spirv.begin(), la->modules[cs.moduleIndex].spirv.end());
  const vgf::ModuleId mc = b.addModule("double", "main", code);
  auto mapped = [&](std::uint32_t mrt) { return mrt == la->inputs[0].mrtIndex ? t1Buffer : t2Buffer; };
  vgf::DescriptorSet set{cs.setInfos[0].setIndex, {}};
  for (const vgf::BindingSlot& s : cs.setInfos[0].bindings) set.bindings.push_back({s.binding, mapped(s.mrtIndex)});
  b.addSegment("double", mc, {set}, {{cs.inputs[0].binding, t1Buffer}}, {{cs.outputs[0].binding, t2Buffer}}, {}, *cs.dispatchShape);
  const vgf::ModuleId m2 = b.addModule("graph2", "main", e2->words, vgf::ModuleType::Graph);
  b.addSegment("g2", m2, {{0, {{0, t2Tensor}, {1, y}}}}, {{0, t2Tensor}}, {{1, y}});
  b.setInputs({{0, x}}, {"x"});
  b.setOutputs({{1, y}}, {"y"});
  auto bytes = b.finish();
  ASSERT_TRUE(bytes) << bytes.error().message();
  auto file = vgf::decode(*bytes);
  ASSERT_TRUE(file) << file.error().message();

  auto lowered = converter::lowerGraphSegments(*bytes, *file, {}, "mixed.vgf", testLowerOptions());
  ASSERT_TRUE(lowered) << lowered.error().message();
  EXPECT_EQ(lowered->graphRuns, 2u);
  const auto loweredKernels = kernels(lowered->vgf);
  const auto computeKernel = kernels(compute->vgf);
  ASSERT_EQ(loweredKernels.size(), 3u);  // G1's ADD, the file's COMPUTE segment, G2's CLAMP
  EXPECT_EQ(loweredKernels[1], computeKernel[0]);
  auto loweredFile = vgf::decode(lowered->vgf);
  ASSERT_TRUE(loweredFile) << loweredFile.error().message();
  tosa::HostTensor input(DType::Fp32, {n});
  for (std::int64_t i = 0; i < n; ++i) input.as<float>()[static_cast<std::size_t>(i)] = static_cast<float>(i % 13) - 6.0f;
  auto out = runOnDevice(*loweredFile, {input});
  if (!out && out.error().kind() == ErrorKind::Environment) GTEST_SKIP() << out.error().message();
  ASSERT_TRUE(out) << out.error().message();
  for (std::int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    EXPECT_EQ((*out)[0].as<float>()[k], std::clamp(2.0f * (input.as<float>()[k] + c1[k]), -10.0f, 10.0f)) << i;
  }
}

bool hasInt4(const tosa::Graph& g) {
  for (const tosa::Tensor& t : g.mainBlock()->tensors) {
    if (t.dtype == tosa::DType::Int4) return true;
  }
  return false;
}

class ArmGraphSweep : public ::testing::TestWithParam<Case> {};

TEST_P(ArmGraphSweep, LowersToTheKernelsOfTheTosaPath) {
  auto [graph, inputs] = buildCase(GetParam());
  ASSERT_TRUE(graph) << graph.error().message();
  auto armVgf = converter::writeArmGraphVgf(*graph);
  ASSERT_TRUE(armVgf) << armVgf.error().message();
  auto file = vgf::decode(*armVgf);
  ASSERT_TRUE(file) << file.error().message();
  if (hasInt4(*graph)) {
    // The decoded graph carries the INT4 weights as INT8: judge it on the GPU instead.
    auto run = converter::decodeGraphModel(*file, {}, "arm.vgf");
    ASSERT_TRUE(run) << run.error().message();
    expectAllPass(convertRunCheck(run->graph, inputs));
    return;
  }
  auto lowered = converter::lowerGraphSegments(*armVgf, *file, {}, "arm.vgf", testLowerOptions());
  ASSERT_TRUE(lowered) << lowered.error().message();
  auto direct = converter::convert(*graph, testLowerOptions().convert);
  ASSERT_TRUE(direct) << direct.error().message();
  EXPECT_EQ(kernels(lowered->vgf), kernels(direct->vgf));
}

INSTANTIATE_TEST_SUITE_P(Ops, ArmGraphSweep, ::testing::ValuesIn(allCases()),
                         [](const ::testing::TestParamInfo<Case>& param) { return param.param.name; });

}  // namespace
}  // namespace openvgf::testing
