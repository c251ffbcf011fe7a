// SPDX-License-Identifier: Apache-2.0
// A small helper to write TOSA int8 graphs in tests (tensors, constants, operators) and the
// common oracle check: compile for Ethos-U, run the package in the simulator, and compare
// every output byte with the TOSA reference interpreter.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "converter/ethosu/compiler.h"
#include "runner/ethosu/session.h"
#include "tosa/graph.h"
#include "tosa/reference/reference.h"

namespace openvgf::ethosu_test {

using tosa::DType;
using tosa::Op;

class GraphBuilder {
 public:
  GraphBuilder() {
    graph_.regions.push_back(tosa::Region{"main", {tosa::Block{}}});
    block().name = "main";
  }
  tosa::Block& block() { return graph_.regions[0].blocks[0]; }
  const tosa::Graph& graph() const { return graph_; }

  std::string input(const std::string& name, tosa::Shape shape, DType type = DType::Int8) {
    tensor(name, std::move(shape), type);
    block().inputs.push_back(name);
    return name;
  }
  void output(const std::string& name) { block().outputs.push_back(name); }

  std::string constant(DType type, tosa::Shape shape, const std::vector<std::int64_t>& values) {
    const std::string name = fmt::format("c{}", counter_++);
    tosa::Tensor& t = tensor(name, shape, type);
    const std::size_t bytes = tosa::hostElementBytes(type);
    std::vector<std::uint8_t> data(values.size() * bytes);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto u = static_cast<std::uint64_t>(values[i]);
      for (std::size_t b = 0; b < bytes; ++b) data[i * bytes + b] = static_cast<std::uint8_t>(u >> (8 * b));
    }
    t.data = std::move(data);
    return name;
  }
  std::string scalar(DType type, std::int64_t v) { return constant(type, {1}, {v}); }
  std::string shapeConst(const std::vector<std::int64_t>& v) {
    return constant(DType::Shape, {static_cast<std::int64_t>(v.size())}, v);
  }

  std::string op(Op kind, tosa::Attributes attrs, std::vector<std::string> inputs, tosa::Shape outShape, DType outType,
                 std::string outName = {}) {
    if (outName.empty()) outName = fmt::format("t{}", counter_++);
    tensor(outName, std::move(outShape), outType);
    tosa::Operator o;
    o.op = kind;
    o.attrs = std::move(attrs);
    o.inputs = std::move(inputs);
    o.outputs = {outName};
    block().operators.push_back(std::move(o));
    return outName;
  }

  const tosa::Shape& shapeOf(const std::string& name) { return block().findTensor(name)->shape; }

  // Common int8 patterns -----------------------------------------------------------------

  std::string rescale(const std::string& in, DType outType, std::vector<std::int64_t> mult, std::vector<std::int64_t> shift,
                      std::int64_t inZp, std::int64_t outZp, bool doubleRound = true) {
    // Copies: adding constants below reallocates the tensor list.
    const tosa::Shape shape = block().findTensor(in)->shape;
    const DType inType = block().findTensor(in)->dtype;
    tosa::RescaleAttrs a;
    a.scale32 = true;
    a.roundingMode = doubleRound ? tosa::RoundingMode::DoubleRound : tosa::RoundingMode::SingleRound;
    a.perChannel = mult.size() > 1;
    const std::int64_t n = static_cast<std::int64_t>(mult.size());
    std::string m = constant(DType::Int32, {n}, mult);
    std::string s = constant(DType::Int8, {n}, shift);
    std::string iz = scalar(inType, inZp);
    std::string oz = scalar(outType, outZp);
    return op(Op::Rescale, a, {in, m, s, iz, oz}, shape, outType);
  }

  std::string clamp(const std::string& in, int lo, int hi) {
    tosa::ClampAttrs a;
    a.minVal = {static_cast<std::uint8_t>(lo)};
    a.maxVal = {static_cast<std::uint8_t>(hi)};
    return op(Op::Clamp, a, {in}, shapeOf(in), DType::Int8);
  }

  /// CONV2D (or DEPTHWISE_CONV2D) + per-channel RESCALE to int8, random weights/bias/scales.
  std::string conv(const std::string& in, int cout, int kh, int kw, std::vector<std::int32_t> stride,
                   std::vector<std::int32_t> pad, std::vector<std::int32_t> dilation, int inZp, int outZp,
                   std::mt19937& rng, bool depthwise = false, int weightZp = 0) {
    const tosa::Shape s = shapeOf(in);
    const std::int64_t cin = s[3];
    if (depthwise) cout = static_cast<int>(cin);
    std::uniform_int_distribution<int> byte(-127, 127);
    std::vector<std::int64_t> w(static_cast<std::size_t>(cout * kh * kw * (depthwise ? 1 : cin)));
    for (auto& v : w) v = byte(rng);
    std::vector<std::int64_t> bias(static_cast<std::size_t>(cout)), mult(bias.size()), shift(bias.size());
    for (std::size_t c = 0; c < bias.size(); ++c) {
      bias[c] = std::uniform_int_distribution<int>(-3000, 3000)(rng);
      mult[c] = std::uniform_int_distribution<std::int64_t>(1 << 30, (std::int64_t{1} << 31) - 1)(rng);
      shift[c] = std::uniform_int_distribution<int>(38, 42)(rng);
    }
    tosa::Shape wshape = depthwise ? tosa::Shape{kh, kw, cin, 1} : tosa::Shape{cout, kh, kw, cin};
    std::string wt = constant(DType::Int8, wshape, w);
    std::string b = constant(DType::Int32, {cout}, bias);
    tosa::ConvAttrs a;
    a.pad = pad;
    a.stride = stride;
    a.dilation = dilation;
    a.accType = DType::Int32;
    const std::int64_t oh = (s[1] - 1 + pad[0] + pad[1] - (kh - 1) * dilation[0]) / stride[0] + 1;
    const std::int64_t ow = (s[2] - 1 + pad[2] + pad[3] - (kw - 1) * dilation[1]) / stride[1] + 1;
    std::string acc = op(depthwise ? Op::DepthwiseConv2d : Op::Conv2d, a,
                         {in, wt, b, scalar(DType::Int8, inZp), scalar(DType::Int8, weightZp)}, {1, oh, ow, cout},
                         DType::Int32);
    return rescale(acc, DType::Int8, mult, shift, 0, outZp);
  }

 private:
  tosa::Tensor& tensor(const std::string& name, tosa::Shape shape, DType type) {
    tosa::Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.dtype = type;
    block().tensors.push_back(std::move(t));
    return block().tensors.back();
  }

  tosa::Graph graph_;
  int counter_ = 0;
};

inline tosa::HostTensor randomInt8(const tosa::Shape& shape, std::mt19937& rng) {
  tosa::HostTensor t(DType::Int8, shape);
  std::uniform_int_distribution<int> byte(-128, 127);
  for (auto& b : t.bytes) b = static_cast<std::uint8_t>(byte(rng));
  return t;
}

/// The simulator outputs of the last expectBitExact call (to check that a test is not vacuous).
inline std::vector<std::vector<std::uint8_t>>& lastOutputs() {
  static std::vector<std::vector<std::uint8_t>> outputs;
  return outputs;
}

/// The target of tests that do not name one: OPENVGF_ETHOSU_TEST_TARGET, else ethos-u55-128
/// (CTest runs the converter suite again for U85 configurations this way).
inline std::string defaultTestTarget() {
  const char* target = std::getenv("OPENVGF_ETHOSU_TEST_TARGET");
  return target && *target ? target : "ethos-u55-128";
}

/// Compiles, simulates and compares with the reference; returns the compiled model.
inline converter::ethosu::CompiledModel expectBitExact(const tosa::Graph& graph, std::mt19937& rng,
                                                       const std::string& target = defaultTestTarget()) {
  converter::ethosu::CompileOptions options;
  options.target = target;
  auto compiled = converter::ethosu::compile(graph, options, "test.tosa");
  EXPECT_TRUE(compiled) << (compiled ? "" : compiled.error().message());
  if (!compiled) return {};
  const tosa::Block* block = graph.mainBlock();
  std::vector<tosa::HostTensor> inputs;
  std::vector<std::vector<std::uint8_t>> raw;
  for (const std::string& name : block->inputs) {
    inputs.push_back(randomInt8(block->findTensor(name)->shape, rng));
    raw.push_back(inputs.back().bytes);
  }
  auto expected = tosa::reference::run(graph, inputs);
  EXPECT_TRUE(expected) << (expected ? "" : expected.error().message());
  auto model = runner::ethosu::loadModel(compiled->velaBinStream, "test.ethosu");
  EXPECT_TRUE(model) << (model ? "" : model.error().message());
  if (!expected || !model) return std::move(*compiled);
  auto actual = runner::ethosu::runModel(*model, raw, "test.ethosu");
  EXPECT_TRUE(actual) << (actual ? "" : actual.error().message());
  if (!actual) return std::move(*compiled);
  lastOutputs() = *actual;
  EXPECT_EQ(actual->size(), expected->outputs.size());
  for (std::size_t i = 0; i < actual->size() && i < expected->outputs.size(); ++i) {
    const auto& want = expected->outputs[i].value.bytes;
    const auto& got = (*actual)[i];
    EXPECT_EQ(got.size(), want.size());
    std::size_t mismatches = 0, first = 0;
    for (std::size_t k = 0; k < std::min(got.size(), want.size()); ++k) {
      if (got[k] != want[k] && mismatches++ == 0) first = k;
    }
    EXPECT_EQ(mismatches, 0u) << "output " << i << ": first mismatch at element " << first << ": got "
                              << int(static_cast<std::int8_t>(got[first])) << ", want "
                              << int(static_cast<std::int8_t>(want[first]));
  }
  return std::move(*compiled);
}

}  // namespace openvgf::ethosu_test
