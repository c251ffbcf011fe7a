// SPDX-License-Identifier: Apache-2.0
// The installed C++ API (openvgf/openvgf.hpp) on lavapipe with the validation layer on:
// models opened from .tosa (converted, then cached), .vgf and .pte files run and match
// independent results (TensorFlow's output shipped with the fixture, the reference
// interpreter, sums computed here); errors are exceptions with the CLI's messages and codes.
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "openvgf/openvgf.hpp"
#include "common/file_io.h"
#include "converter/graph_segments.h"
#include "tests/api/api_test_util.h"
#include "tests/pte/pte_writer.h"
#include "tests/pte/vgf_program.h"
#include "tosa/builder.h"
#include "tosa/npy.h"
#include "tosa/reference/reference.h"
#include "vgf/decoder.h"

namespace openvgf {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

class ApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::freshTestDir("api");
    options_ = testing::modelOptions(dir_ / "cache");
  }
  void TearDown() override { fs::remove_all(dir_); }

  template <typename Body>
  void expectError(Body&& body, ErrorCode code, const std::string& text) {
    testing::expectError(std::forward<Body>(body), code, text);
  }

  fs::path dir_;
  ModelOptions options_;
};

TEST_F(ApiTest, TosaModelMatchesTensorFlowAndIsCachedAfterTheFirstOpen) {
  const std::vector<Tensor> inputs = testing::addInputs();
  const std::vector<float> expected = testing::readFloats(testing::addDir() / "tf_result.npy");

  Model first = Model::open(testing::addModel(), options_);
  EXPECT_EQ(first.format(), ModelFormat::Tosa);
  EXPECT_FALSE(first.fromCache());
  ASSERT_EQ(first.inputs().size(), 2u);
  EXPECT_EQ(first.inputs()[0].dtype, DataType::Float32);
  EXPECT_EQ(first.inputs()[0].shape, testing::kAddShape0);
  EXPECT_EQ(first.inputs()[0].byteSize, 16u * 4);
  ASSERT_EQ(first.outputs().size(), 1u);
  Session session = first.createSession();
  std::vector<Tensor> outputs = session.run(inputs);
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].dtype(), DataType::Float32);
  EXPECT_EQ(outputs[0].shape(), (Shape{1, 4, 4, 4}));
  ASSERT_EQ(outputs[0].elementCount(), static_cast<std::int64_t>(expected.size()));
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_FLOAT_EQ(outputs[0].dataAs<float>()[i], expected[i]) << i;

  Model second = Model::open(testing::addModel(), options_);
  EXPECT_TRUE(second.fromCache());
  std::vector<Tensor> again = second.createSession().run(inputs);
  EXPECT_EQ(std::memcmp(again[0].data(), outputs[0].data(), outputs[0].byteSize()), 0);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "cache" / "models"), fs::directory_iterator()), 1);

  // Another target is another cache entry, not a stale hit.
  ModelOptions native = options_;
  native.target = "native";
  EXPECT_FALSE(Model::open(testing::addModel(), native).fromCache());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "cache" / "models"), fs::directory_iterator()), 2);
  ModelOptions uncached = options_;
  uncached.modelCache = false;
  EXPECT_FALSE(Model::open(testing::addModel(), uncached).fromCache());
}

TEST_F(ApiTest, ConvertedVgfRunsByNameAndIntoCallerMemory) {
  const std::string vgf = (dir_ / "add.vgf").string();
  ConvertStats stats = convert(testing::addModel(), vgf);
  EXPECT_GT(stats.kernels, 0u);
  EXPECT_EQ(stats.outputBytes, fs::file_size(vgf));
  Model model = Model::open(vgf, options_);
  EXPECT_EQ(model.format(), ModelFormat::Vgf);
  Session session = model.createSession();
  std::vector<Tensor> inputs = testing::addInputs();
  std::map<std::string, Tensor> named{{model.inputs()[1].name, inputs[1]}, {model.inputs()[0].name, inputs[0]}};
  std::vector<Tensor> byName = session.runNamed(named);

  std::vector<float> memory(64, -1.0f);
  std::vector<Tensor> outputs{Tensor::view(DataType::Float32, {1, 4, 4, 4}, memory.data(), memory.size() * 4)};
  session.run(inputs, outputs);
  EXPECT_EQ(outputs[0].data(), memory.data()) << "a matching output view is written in place";
  for (std::size_t i = 0; i < memory.size(); ++i) {
    EXPECT_EQ(memory[i], testing::addResult(inputs[0], inputs[1], static_cast<std::int64_t>(i))) << i;
    EXPECT_EQ(byName[0].dataAs<float>()[i], memory[i]) << i;
  }
  EXPECT_GT(session.profile().hostMs, 0.0);
}

TEST_F(ApiTest, ProfilingSessionReportsEveryDispatch) {
  Model model = Model::open(testing::addModel(), options_);
  Session session = model.createSession({.profile = true});
  session.run(testing::addInputs());
  Profile profile = session.profile();
  ASSERT_FALSE(profile.segments.empty());
  double sum = 0;
  for (const Profile::Segment& s : profile.segments) {
    EXPECT_FALSE(s.name.empty());
    EXPECT_GE(s.gpuMs, 0.0);
    sum += s.gpuMs;
  }
  EXPECT_NEAR(sum, profile.gpuMs, 1e-6);
  EXPECT_GE(profile.hostMs, profile.gpuMs);
}

TEST_F(ApiTest, WrongInputsAreExceptionsNamingTheInput) {
  Model model = Model::open(testing::addModel(), options_);
  Session session = model.createSession();
  const std::string first = model.inputs()[0].name;
  std::vector<Tensor> inputs = testing::addInputs();
  expectError([&] { session.run({inputs[0]}); }, ErrorCode::InvalidInput, "expected 2 inputs");
  expectError([&] { session.run({inputs[0], inputs[1], inputs[1]}); }, ErrorCode::InvalidInput, "expected 2 inputs");
  expectError([&] { session.run({Tensor(DataType::Float32, {1, 4, 4}), inputs[1]}); }, ErrorCode::InvalidInput,
              "input '" + first + "': expected shape [1,4,4,1], got [1,4,4]");
  expectError([&] { session.run({Tensor(DataType::Int8, {1, 4, 4, 1}), inputs[1]}); }, ErrorCode::InvalidInput,
              "expected dtype FP32, got INT8");
  expectError([&] { session.runNamed({{"nope", inputs[0]}, {first, inputs[1]}}); },
              ErrorCode::InvalidInput, "input 'nope': expected one of the model's inputs");
  std::vector<float> small(3);
  expectError([&] { Tensor::view(DataType::Float32, {2, 2}, small.data(), small.size() * 4); },
              ErrorCode::InvalidInput, "expected 16 bytes of data, got 12");
  // The session still runs after refusing bad inputs.
  EXPECT_EQ(session.run(inputs).size(), 1u);
}

TEST_F(ApiTest, FilesThatAreNoModelAreRefusedWithWhatTheyLookLike) {
  auto write = [&](const std::string& name, std::string bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return (dir_ / name).string();
  };
  const std::string garbage = write("garbage.bin", "hello, this is not a model");
  expectError([&] { Model::open(garbage, options_); }, ErrorCode::InvalidInput,
              garbage + ": cannot run a file of unknown format: expected a TOSA flatbuffer, a VGF, an ExecuTorch "
                        "program or an Ethos-U command stream");
  const std::string onnx = write("model.onnx", std::string("\x08\x07\x12\x07pytorch", 10));
  expectError([&] { Model::open(onnx, options_); }, ErrorCode::InvalidInput, "cannot run an ONNX model");
  const std::string tflite = write("model.tflite", std::string("\x1c\0\0\0TFL3\0\0\0\0", 12));
  expectError([&] { Model::open(tflite, options_); }, ErrorCode::InvalidInput, "cannot run a TensorFlow Lite model");
  expectError([&] { Model::open((dir_ / "missing.tosa").string(), options_); }, ErrorCode::InvalidInput,
              "missing.tosa: cannot open");
  std::string truncated = testing::readBytes(testing::addModel());
  truncated.resize(truncated.size() / 2);
  const std::string half = write("half.tosa", truncated);
  expectError([&] { Model::open(half, options_); }, ErrorCode::InvalidInput, half + ":");
}

// model-converter's GRAPH-segment VGF (int8 RESCALE -> CONV2D -> RESCALE): lowered at open,
// cached, and bit-exact against the reference interpreter on the TOSA graph it carries.
TEST_F(ApiTest, GraphSegmentVgfIsLoweredAndMatchesTheReference) {
  const std::string path = (fs::path(OPENVGF_TEST_DATA) / "vgf-graph" / "simple_conv2d_rescale_graph.vgf").string();
  Model model = Model::open(path, options_);
  EXPECT_EQ(model.format(), ModelFormat::Vgf);
  EXPECT_FALSE(model.fromCache());
  ASSERT_EQ(model.inputs().size(), 1u);
  ASSERT_EQ(model.outputs().size(), 1u);
  const TensorInfo& in = model.inputs()[0];
  EXPECT_EQ(in.dtype, DataType::Int8);
  Tensor x(in.dtype, in.shape);
  for (std::int64_t i = 0; i < x.elementCount(); ++i) x.dataAs<std::int8_t>()[i] = static_cast<std::int8_t>(i * 37 % 256 - 128);
  std::vector<Tensor> outputs = model.createSession().run({x});

  Result<std::vector<std::uint8_t>> bytes = readFile(path);
  ASSERT_TRUE(bytes) << bytes.error().message();
  Result<vgf::File> file = vgf::decode(*bytes);
  ASSERT_TRUE(file) << file.error().message();
  Result<converter::GraphRun> graph = converter::decodeGraphModel(*file, {}, path);
  ASSERT_TRUE(graph) << graph.error().message();
  tosa::HostTensor hostX(tosa::DType::Int8, in.shape);
  std::memcpy(hostX.bytes.data(), x.data(), x.byteSize());
  Result<tosa::reference::RunResult> expected = tosa::reference::run(graph->graph, std::vector<tosa::HostTensor>{hostX});
  ASSERT_TRUE(expected) << expected.error().message();
  const tosa::HostTensor& want = expected->outputs[0].value;
  ASSERT_EQ(outputs[0].shape(), want.shape);
  ASSERT_EQ(outputs[0].byteSize(), want.bytes.size());
  EXPECT_EQ(std::memcmp(outputs[0].data(), want.bytes.data(), want.bytes.size()), 0);

  EXPECT_TRUE(Model::open(path, options_).fromCache());  // the second open does not lower again
}

TEST_F(ApiTest, StateInputsStartFromTheVariablesInitialValue) {
  // acc += x; out = acc: two runs without the state input, the second fed the first's state.
  tosa::HostTensor init(tosa::DType::Int32, {4});
  for (int i = 0; i < 4; ++i) init.as<std::int32_t>()[i] = 100 * (i + 1);
  tosa::Builder b;
  tosa::Value x = b.input("x", tosa::DType::Int32, {4});
  tosa::Value acc = b.variable("acc", init);
  tosa::Value sum = b.add(b.variableRead(acc, "old"), x, "sum");
  b.variableWrite(acc, sum);
  b.output(sum);
  ASSERT_TRUE(b.write(dir_ / "acc.tosa"));
  Result<tosa::Graph> graph = b.build();
  ASSERT_TRUE(graph);

  Model model = Model::open((dir_ / "acc.tosa").string(), options_);
  ASSERT_EQ(model.inputs().size(), 2u);
  EXPECT_EQ(model.inputs()[1].name, "state:acc");
  Session session = model.createSession();
  Tensor xs(DataType::Int32, {4});
  for (int i = 0; i < 4; ++i) xs.dataAs<std::int32_t>()[i] = i - 7;
  std::vector<Tensor> outputs = session.run({xs});  // state:acc left out: its initial value
  tosa::reference::VariableState state;
  tosa::HostTensor xh(tosa::DType::Int32, {4});
  std::memcpy(xh.bytes.data(), xs.data(), 16);
  Result<tosa::reference::RunResult> want = tosa::reference::run(*graph, std::vector<tosa::HostTensor>{xh}, {}, &state);
  ASSERT_TRUE(want) << want.error().message();
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(std::memcmp(outputs[0].data(), want->outputs[0].value.bytes.data(), 16), 0);
  EXPECT_EQ(std::memcmp(outputs[1].data(), state.find("acc")->bytes.data(), 16), 0);
  // Feeding the state back by name continues the accumulation.
  std::vector<Tensor> next = session.runNamed({{"x", xs}, {"state:acc", outputs[1]}});
  want = tosa::reference::run(*graph, std::vector<tosa::HostTensor>{xh}, {}, &state);
  ASSERT_TRUE(want);
  EXPECT_EQ(std::memcmp(next[0].data(), want->outputs[0].value.bytes.data(), 16), 0);
}

TEST_F(ApiTest, ProgramWithOneVgfDelegateRuns) {
  const std::string vgf = (dir_ / "add.vgf").string();
  convert(testing::addModel(), vgf);
  std::string payload = testing::readBytes(vgf);
  pte::testing::TestProgram spec;
  spec.payloads.push_back({payload.begin(), payload.end()});
  spec.plans.push_back(pte::testing::oneDelegatePlan("forward", {{1, 4, 4, 1}, {1, 4, 4, 4}}, {{1, 4, 4, 4}}));
  const fs::path pteFile = dir_ / "add.pte";
  testing::writeBytes(pteFile, pte::testing::writeProgram(spec).bytes);
  Model model = Model::open(pteFile.string(), options_);
  EXPECT_EQ(model.format(), ModelFormat::Pte);
  std::vector<Tensor> inputs = testing::addInputs();
  std::vector<Tensor> outputs = model.createSession().run(inputs);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(outputs[0].dataAs<float>()[i], testing::addResult(inputs[0], inputs[1], i));

  ModelOptions missingPlan = options_;
  missingPlan.plan = "decode";
  expectError([&] { Model::open(pteFile.string(), missingPlan); }, ErrorCode::InvalidInput,
              "add.pte: --plan: expected one of the program's plans ('forward'), got 'decode'");
}

// Two GRAPH-segment delegates with a view between them, as `openvgf run program.pte` runs
// them: against the reference interpreter on the same model written as one TOSA graph.
TEST_F(ApiTest, ProgramWithGraphDelegatesMatchesTheReferenceOnTheWholeModel) {
  const fs::path pteFile = dir_ / "two.pte";
  testing::writeBytes(pteFile, pte::testing::writeProgram(pte::testing::vgfProgram("aten::view_copy", "out", true)).bytes);
  Model model = Model::open(pteFile.string(), options_);
  EXPECT_EQ(model.format(), ModelFormat::Pte);
  EXPECT_FALSE(model.fromCache());
  ASSERT_EQ(model.inputs().size(), 1u);
  EXPECT_EQ(model.inputs()[0].name, "input_0");
  EXPECT_EQ(model.inputs()[0].shape, (Shape{1, 4, 4, 2}));
  ASSERT_EQ(model.outputs().size(), 1u);
  EXPECT_EQ(model.outputs()[0].name, "output_0");
  EXPECT_EQ(model.outputs()[0].shape, (Shape{1, 64}));
  tosa::HostTensor x(tosa::DType::Fp32, {1, 4, 4, 2});
  const std::vector<float> values = pte::testing::ramp(32, 0.75f, 0.125f);
  std::memcpy(x.bytes.data(), values.data(), x.bytes.size());
  Session session = model.createSession({.profile = true});
  std::vector<Tensor> outputs = session.runNamed({{"input_0", Tensor::copyOf(DataType::Float32, x.shape, x.bytes.data(), x.bytes.size())}});
  const Profile profile = session.profile();  // both delegates' dispatches, in order
  ASSERT_GE(profile.segments.size(), 2u);
  EXPECT_THAT(profile.segments.front().name, ::testing::StartsWith("delegates[0] "));
  EXPECT_THAT(profile.segments.back().name, ::testing::StartsWith("delegates[1] "));
  EXPECT_GT(profile.gpuMs, 0.0);

  tosa::reference::RunOptions precise;
  precise.precise = true;
  auto expected = tosa::reference::run(pte::testing::composedModel(), std::vector<tosa::HostTensor>{x}, precise);
  ASSERT_TRUE(expected) << expected.error().message();
  tosa::HostTensor y(tosa::DType::Fp32, {1, 64});
  ASSERT_EQ(outputs[0].byteSize(), y.bytes.size());
  std::memcpy(y.bytes.data(), outputs[0].data(), y.bytes.size());
  auto verdicts = tosa::reference::checkOutputs(*expected, std::vector<tosa::HostTensor>{y});
  ASSERT_TRUE(verdicts) << verdicts.error().message();
  for (const auto& v : *verdicts) EXPECT_TRUE(v.pass) << v.message;
  EXPECT_TRUE(Model::open(pteFile.string(), options_).fromCache());  // both delegates lowered once

  // An operator that is not a copy between the delegates is named.
  testing::writeBytes(pteFile, pte::testing::writeProgram(pte::testing::vgfProgram("aten::add", "out", false)).bytes);
  expectError([&] { Model::open(pteFile.string(), options_); }, ErrorCode::Unsupported,
              "two.pte: execution_plan[0] 'forward': expected only VgfBackend delegates and plain copies/views between "
              "them, got one operation that openvgf cannot run: aten::add.out (instruction 1)");
}

TEST_F(ApiTest, ReferenceInspectAndDevices) {
  std::vector<Tensor> inputs = testing::addInputs();
  Model model = Model::open(testing::addModel(), options_);
  std::vector<NamedTensor> outputs = reference(testing::addModel(),
                                               {{model.inputs()[1].name, inputs[1]}, {"", inputs[0]}});
  const std::vector<float> expected = testing::readFloats(testing::addDir() / "tf_result.npy");
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].name, model.outputs()[0].name);
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_FLOAT_EQ(outputs[0].tensor.dataAs<float>()[i], expected[i]);
  std::vector<NamedTensor> precise = reference(testing::addModel(), {{"", inputs[0]}, {"", inputs[1]}},
                                               {.precise = true});
  EXPECT_EQ(precise[0].tensor.dtype(), DataType::Float64);
  expectError([&] { reference(testing::addModel(), {{"", inputs[0]}}); }, ErrorCode::InvalidInput,
              "expected 2 inputs");

  EXPECT_THAT(inspect(testing::addModel()), HasSubstr("TOSA flatbuffer, format 1."));
  EXPECT_THAT(inspect(testing::addModel(), true), HasSubstr("\"regions\""));

  std::vector<DeviceInfo> devices = listDevices();
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(std::count_if(devices.begin(), devices.end(), [](const DeviceInfo& d) { return d.isDefault; }), 1);
  EXPECT_TRUE(std::any_of(devices.begin(), devices.end(), [&](const DeviceInfo& d) {
    return d.name == model.deviceName() && d.usable;
  }));
}

TEST(ApiTypes, DataTypesHaveTosaNamesAndSizes) {
  EXPECT_STREQ(toString(DataType::Int8), "INT8");
  EXPECT_STREQ(toString(DataType::Float16), "FP16");
  EXPECT_STREQ(toString(DataType::Float64), "FP64");
  EXPECT_EQ(elementSize(DataType::Int48), 8u);
  EXPECT_EQ(elementSize(DataType::Bool), 1u);
  EXPECT_EQ(elementSize(DataType::BFloat16), 2u);
  Tensor t(DataType::Int16, {2, 3});
  EXPECT_EQ(t.byteSize(), 12u);
  EXPECT_TRUE(t.ownsData());
  Tensor shared = t;
  shared.dataAs<std::int16_t>()[5] = 7;
  EXPECT_EQ(t.dataAs<std::int16_t>()[5], 7) << "copies share the buffer";
  Tensor deep = t.clone();
  deep.dataAs<std::int16_t>()[5] = 9;
  EXPECT_EQ(t.dataAs<std::int16_t>()[5], 7) << "clone() copies";
}

}  // namespace
}  // namespace openvgf
