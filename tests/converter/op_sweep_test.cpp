// SPDX-License-Identifier: Apache-2.0
// Every case of the operator sweep (tests/support/op_sweep_cases.h) converted, run by
// runner::Session on lavapipe with the validation layer, and judged against the reference
// interpreter with the TOSA compliance checker (integers bit-exact). The DEPTHWISE_CONV2D cases
// run again converted for a CPU device (ConvertOptions::forCpuDevice: run-time shapes, the
// row-window kernel), with two more that give its parameters a zero point and dilations, and
// so do the elementwise cases (shapes, broadcast strides and RESCALE zero points at run time).
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
#include "tosa/op_table.h"
#include "tosa/reference/reference.h"
#include "vgf/decoder.h"

namespace openvgf::testing {
namespace {

void expectMatchesReference(const Case& c, bool forCpuDevice) {
  auto [graph, inputs] = buildCase(c);
  ASSERT_TRUE(graph) << graph.error().message();

  converter::ConvertOptions options;
  options.cacheDir = std::filesystem::temp_directory_path() / "openvgf-converter-test-cache";
  options.forCpuDevice = forCpuDevice;
  auto converted = converter::convert(*graph, options);
  ASSERT_TRUE(converted) << converted.error().message();
  auto file = vgf::decode(converted->vgf);
  ASSERT_TRUE(file) << file.error().message();
  auto model = runner::Model::create(*file, c.name + ".vgf");
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

class OpSweep : public ::testing::TestWithParam<Case> {};

TEST_P(OpSweep, MatchesReference) { expectMatchesReference(GetParam(), false); }

class OpSweepCpu : public ::testing::TestWithParam<Case> {};

TEST_P(OpSweepCpu, MatchesReference) { expectMatchesReference(GetParam(), true); }

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

// DEPTHWISE_CONV2D cases of the CPU device's 64-bit-word kernel (DW_LANES in
// shaders/depthwise_conv2d.comp: 2 fp32 or 8 int8 channels per word): a bias per channel, a
// last tile of fewer columns than an invocation owns (4 int8, 8 fp32), batches, and the
// epilogues whose results it packs itself:
// an int8 RESCALE per channel (its scales in registers, DW_SCALE_SLOT), two of them (read per
// output), none (int32 words) and an fp32 CLAMP.
void addDepthwiseWordCases(std::vector<Case>& cases) {
  auto int8Case = [](const char* name, std::int64_t channels, int rescales) {
    return Case{name, [channels, rescales](tosa::Builder& b, auto& in, auto& rng) {
                  Value x = input(b, in, rng, DType::Int8, {2, 9, 10, channels}, -128, 127);
                  Value w = b.constant(randomTensor(DType::Int8, {3, 3, channels, 1}, rng, -127, 127));
                  Value bias = b.constant(randomTensor(DType::Int32, {channels}, rng, -20000, 20000));
                  tosa::ConvParams p;
                  p.pad = {1, 1, 1, 2};
                  p.stride = {2, 2};
                  p.inputZp = 3;
                  Value y = b.depthwiseConv2d(x, w, bias, p);
                  for (int r = 0; r < rescales; ++r) {
                    tosa::RescaleParams s;
                    for (std::int64_t c = 0; c < channels; ++c) {
                      s.multiplier.push_back(static_cast<std::int32_t>((1 << 30) + c * 7919 * (r + 1)));
                      s.shift.push_back(static_cast<std::int32_t>(r == 0 ? 38 + c % 3 : 30 + c % 2));
                    }
                    s.inputZp = r == 0 ? 0 : -2;
                    s.outputZp = r == 0 ? -5 : 4;
                    y = b.rescale(y, s);
                  }
                  b.output(y);
                }};
  };
  cases.push_back(int8Case("DEPTHWISE_CONV2D_INT8_words_rescale", 24, 1));
  cases.push_back(int8Case("DEPTHWISE_CONV2D_INT8_words_two_rescales", 16, 2));
  cases.push_back(int8Case("DEPTHWISE_CONV2D_INT8_words_int32", 8, 0));
  cases.push_back({"DEPTHWISE_CONV2D_FP32_words_clamp", [](tosa::Builder& b, auto& in, auto& rng) {
                     Value x = input(b, in, rng, DType::Fp32, {2, 6, 11, 6}, -2, 2);
                     Value w = b.constant(randomTensor(DType::Fp32, {3, 3, 6, 1}, rng, -1, 1));
                     Value bias = b.constant(randomTensor(DType::Fp32, {6}, rng, -1, 1));
                     tosa::ConvParams p;
                     p.pad = {1, 1, 1, 1};
                     b.output(b.clamp(b.depthwiseConv2d(x, w, bias, p), 0.0, 2.5));
                   }});
}

// DEPTHWISE_CONV2D for a CPU device: the sweep's cases (batch 2, multiplier 2, a 3x2 kernel,
// stride 2 along x, uneven pads) and an int8 and an fp32 case with zero points, dilations
// 2 and 3, stride 2 along y and pads wider than the dilated kernel's reach past the edge.
std::vector<Case> depthwiseCpuCases() {
  std::vector<Case> cases;
  for (Case& c : sweepCases()) {
    if (c.name.starts_with("DEPTHWISE_CONV2D_")) cases.push_back(std::move(c));
  }
  for (DType t : {DType::Int8, DType::Fp32}) {
    cases.push_back({fmt::format("DEPTHWISE_CONV2D_{}_zp_dilated", t == DType::Int8 ? "INT8" : "FP32"),
                     [t](tosa::Builder& b, auto& in, auto& rng) {
                       Value x = input(b, in, rng, t, {1, 9, 11, 16}, -typeMax(t), typeMax(t));
                       Value w = b.constant(randomTensor(t, {3, 3, 16, 1}, rng, -typeMax(t), typeMax(t)));
                       tosa::ConvParams p;
                       p.pad = {3, 3, 4, 3};
                       p.stride = {2, 1};
                       p.dilation = {2, 3};
                       if (t == DType::Int8) {
                         p.inputZp = -7;
                         p.weightZp = 5;
                       }
                       b.output(b.depthwiseConv2d(x, w, std::nullopt, p));
                     }});
  }
  addDepthwiseWordCases(cases);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Depthwise, OpSweepCpu, ::testing::ValuesIn(depthwiseCpuCases()),
                         [](const ::testing::TestParamInfo<Case>& param) { return param.param.name; });

// The elementwise kernel for a CPU device: every sweep case whose operators are all
// elementwise (RESCALE, TABLE, CAST, broadcasting binaries, ...).
std::vector<Case> elementwiseCpuCases() {
  std::vector<Case> cases;
  for (Case& c : sweepCases()) {
    auto [graph, inputs] = buildCase(c);
    if (!graph || graph->mainBlock() == nullptr || graph->mainBlock()->operators.empty()) continue;
    const auto& ops = graph->mainBlock()->operators;
    if (std::all_of(ops.begin(), ops.end(), [](const tosa::Operator& op) { return tosa::isElementwise(op.op); })) {
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Elementwise, OpSweepCpu, ::testing::ValuesIn(elementwiseCpuCases()),
                         [](const ::testing::TestParamInfo<Case>& param) { return param.param.name; });

}  // namespace
}  // namespace openvgf::testing
