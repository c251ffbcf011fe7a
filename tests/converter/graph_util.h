// SPDX-License-Identifier: Apache-2.0
// Small helpers for converter tests: build single-op and multi-op TOSA graphs directly in
// the IR, make seeded random host data, and convert + run them on the test harness.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "converter/convert.h"
#include "converter/passes/passes.h"
#include "tests/converter/vk_harness.h"
#include "tosa/builder.h"
#include "tosa/graph.h"
#include "vgf/decoder.h"

namespace openvgf::testing {

/// The Program of `graph` after the pipeline passes named in `passes` (in pipeline order,
/// the Program verified after each); failures are test failures.
inline converter::Program programAfter(const tosa::Graph& graph, std::vector<std::string> passes) {
  auto program = converter::makeProgram(graph);
  EXPECT_TRUE(program) << program.error().message();
  if (!program) return {};
  converter::passes::PassOptions options;
  options.enabled = std::move(passes);
  options.verifyEach = true;
  Status status = converter::passes::runPasses(*program, options);
  EXPECT_TRUE(status) << status.error().message();
  return std::move(*program);
}

class GraphBuilder {
 public:
  GraphBuilder() {
    graph_.regions.push_back(tosa::Region{"main", {tosa::Block{}}});
    graph_.regions[0].blocks[0].name = "main";
  }
  tosa::Block& block() { return graph_.regions[0].blocks[0]; }
  const tosa::Graph& graph() const { return graph_; }

  std::string input(const std::string& name, tosa::DType type, tosa::Shape shape) {
    tensor(name, type, std::move(shape));
    block().inputs.push_back(name);
    return name;
  }
  std::string tensor(const std::string& name, tosa::DType type, tosa::Shape shape) {
    tosa::Tensor t;
    t.name = name;
    t.dtype = type;
    t.shape = std::move(shape);
    block().tensors.push_back(std::move(t));
    return name;
  }
  template <typename T>
  std::string constant(const std::string& name, tosa::DType type, tosa::Shape shape, const std::vector<T>& values) {
    tensor(name, type, shape);
    std::vector<std::uint8_t> bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    block().tensors.back().data = std::move(bytes);
    tosa::Operator op;
    op.op = tosa::Op::Const;
    op.outputs = {name};
    block().operators.push_back(std::move(op));
    return name;
  }
  std::string shapeConst(const std::string& name, const std::vector<std::int64_t>& values) {
    return constant(name, tosa::DType::Shape, {static_cast<std::int64_t>(values.size())}, values);
  }
  void op(tosa::Op kind, tosa::Attributes attrs, std::vector<std::string> inputs, std::vector<std::string> outputs) {
    tosa::Operator o;
    o.op = kind;
    o.attrs = std::move(attrs);
    o.inputs = std::move(inputs);
    o.outputs = std::move(outputs);
    block().operators.push_back(std::move(o));
  }
  void output(const std::string& name) { block().outputs.push_back(name); }

 private:
  tosa::Graph graph_;
};

template <typename T>
std::vector<std::uint8_t> bytesOf(const std::vector<T>& v) {
  std::vector<std::uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <typename T>
std::vector<T> valuesOf(const std::vector<std::uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

template <typename T>
std::vector<T> randomInts(std::mt19937& rng, std::size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(dist(rng));
  return v;
}
inline std::vector<float> randomFloats(std::mt19937& rng, std::size_t n, float lo = -1.0f, float hi = 1.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

/// The Program of a graph built with tosa::Builder (a builder error fails the test).
inline converter::Program programOf(const tosa::Builder& b) {
  auto graph = b.build();
  EXPECT_TRUE(graph) << graph.error().message();
  if (!graph) return {};
  auto program = converter::makeProgram(*graph);
  EXPECT_TRUE(program) << program.error().message();
  return program ? *program : converter::Program{};
}

inline std::filesystem::path testCacheDir() {
  return std::filesystem::temp_directory_path() / "openvgf-converter-test-cache";
}

/// Converts (for `target`: "portable", or a target built by hand) and runs; fails the test
/// on conversion error or validation messages. ("native" needs the running device's facts:
/// tests/converter/run_util.h convertRunCheck.)
inline std::vector<std::vector<std::uint8_t>> convertAndRun(const tosa::Graph& graph,
                                                            const std::vector<std::vector<std::uint8_t>>& inputs,
                                                            const std::string& target = "portable") {
  converter::ConvertOptions options;
  options.target = target;
  options.cacheDir = testCacheDir();
  auto model = converter::convert(graph, options);
  if (!model) {
    ADD_FAILURE() << model.error().message();
    return {};
  }
  auto file = vgf::decode(model->vgf);
  if (!file) {
    ADD_FAILURE() << file.error().message();
    return {};
  }
  auto run = runVgf(*file, inputs);
  if (!run) {
    ADD_FAILURE() << run.error().message();
    return {};
  }
  for (const auto& m : run->validationMessages) ADD_FAILURE() << "validation: " << m;
  return run->outputs;
}

}  // namespace openvgf::testing
