// SPDX-License-Identifier: Apache-2.0
// Ethos-U models through the installed API (openvgf.hpp "Ethos-U models", openvgf.h):
// Model::open of a vela_bin_stream and of a .pte carrying one as its EthosUBackend delegate,
// runs in the simulator, the tensors' names, types and full shapes, Session::check against
// the reference interpreter, and the options that need a Vulkan device refused by name. The
// oracles are independent of the simulator: Arm Vela's streams with the outputs recorded
// beside them (tests/data/ethosu), and the TOSA reference interpreter.
#include <cstring>
#include <fstream>
#include <random>

#include "openvgf/openvgf.h"
#include "tests/api/api_test_util.h"
#include "tests/ethosu/graph_util.h"
#include "tests/ethosu/vela_data.h"
#include "tests/pte/pte_writer.h"
#include "tests/support/cli_runner.h"
#include "tosa/writer.h"

namespace openvgf::testing {
namespace {

namespace fs = std::filesystem;
using ethosu_test::GraphBuilder;

std::vector<std::uint8_t> fileBytes(const fs::path& path) {
  std::string bytes = readBytes(path);
  return {bytes.begin(), bytes.end()};
}

/// CONV 3x3 with a fused ReLU, then a 2x2 max pool: x (1,8,8,16) -> y (1,4,4,16), INT8.
tosa::Graph convPool() {
  std::mt19937 rng(1);
  GraphBuilder g;
  std::string x = g.input("x", {1, 8, 8, 16});
  std::string y = g.clamp(g.conv(x, 16, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, -3, 5, rng), 5, 127);
  tosa::MaxPool2dAttrs a{{2, 2}, {2, 2}, {0, 0, 0, 0}, tosa::NanMode::Propagate};
  g.output(g.op(tosa::Op::MaxPool2d, a, {y}, {1, 4, 4, 16}, tosa::DType::Int8, "y"));
  return g.graph();
}

Tensor randomInput(const Shape& shape, unsigned seed) {
  std::mt19937 rng(seed);
  Tensor t(DataType::Int8, shape);
  for (std::int64_t i = 0; i < t.elementCount(); ++i) t.dataAs<std::int8_t>()[i] = static_cast<std::int8_t>(rng());
  return t;
}

std::vector<std::uint8_t> bytesOf(const Tensor& t) {
  const auto* data = static_cast<const std::uint8_t*>(t.data());
  return {data, data + t.byteSize()};
}

/// small.tosa and small.ethosu (compiled by openvgf::convert for ethos-u55-128) in `dir`.
struct SmallModel {
  std::string tosa, stream;
};
SmallModel writeSmallModel(const ScratchDir& dir) {
  SmallModel m{dir / "small.tosa", dir / "small.ethosu"};
  EXPECT_TRUE(tosa::writeGraph(convPool(), m.tosa));
  ConvertOptions options;
  options.target = "ethos-u55-128";
  convert(m.tosa, m.stream, options);
  return m;
}

/// A .pte whose one plan calls `stream` as its EthosUBackend delegate.
std::string writeProgram(const ScratchDir& dir, const std::string& stream, const std::string& name) {
  pte::testing::TestProgram spec;
  spec.payloads = {fileBytes(stream)};
  spec.plans = {{"forward", {{"EthosUBackend", 0, {{"output_format", "vela"}}}}}};
  const std::string path = dir / name;
  writeBytes(path, pte::testing::writeProgram(spec).bytes);
  return path;
}

void expectError(ErrorCode code, const std::string& text, const std::function<void()>& call) {
  try {
    call();
    ADD_FAILURE() << "expected an error containing: " << text;
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

// The stream's tensors keep their full NHWC shapes: `run x.ethosu -o` used to write the
// (1,4,4,16) output as (4,4,16), every leading 1 dropped.
TEST(EthosUApi, StreamOpensWithFullShapesAndRunsLikeTheReference) {
  ScratchDir dir("api_ethosu_small");
  const SmallModel small = writeSmallModel(dir);
  const Model model = Model::open(small.stream);
  EXPECT_EQ(model.format(), ModelFormat::EthosU);
  EXPECT_EQ(model.path(), small.stream);
  EXPECT_EQ(model.source(), small.stream);
  EXPECT_EQ(model.deviceName(), "Ethos-U55 simulator (ethos-u55-128)");
  EXPECT_FALSE(model.fromCache());
  ASSERT_EQ(model.inputs().size(), 1u);
  ASSERT_EQ(model.outputs().size(), 1u);
  EXPECT_EQ(model.inputs()[0].name, "input_0");
  EXPECT_EQ(model.inputs()[0].dtype, DataType::Int8);
  EXPECT_EQ(model.inputs()[0].shape, (Shape{1, 8, 8, 16}));
  EXPECT_EQ(model.inputs()[0].byteSize, 1024u);
  EXPECT_EQ(model.outputs()[0].name, "output_0");
  EXPECT_EQ(model.outputs()[0].shape, (Shape{1, 4, 4, 16}));

  Session session = model.createSession();
  for (unsigned seed : {3u, 4u}) {
    const Tensor x = randomInput({1, 8, 8, 16}, seed);
    std::vector<Tensor> y = session.run({x});
    ASSERT_EQ(y.size(), 1u);
    EXPECT_EQ(y[0].dtype(), DataType::Int8);
    EXPECT_EQ(y[0].shape(), (Shape{1, 4, 4, 16}));
    std::vector<NamedTensor> want = reference(small.tosa, {{"x", x}});
    ASSERT_EQ(want.size(), 1u);
    EXPECT_EQ(bytesOf(y[0]), bytesOf(want[0].tensor)) << "seed " << seed;
    const Profile profile = session.profile();
    EXPECT_EQ(profile.npuOperations, 2u);  // the convolution and the pool
    EXPECT_EQ(profile.macs, 8u * 8 * 16 * 3 * 3 * 16);
    EXPECT_TRUE(session.pipelineStatistics().empty());
  }
  // Any shape with the input's element count is taken (the stream does not know the rank);
  // another count or type is refused naming the input.
  const Tensor flat = randomInput({1024}, 3);
  EXPECT_EQ(bytesOf(session.run({flat})[0]), bytesOf(session.run({randomInput({1, 8, 8, 16}, 3)})[0]));
  expectError(ErrorCode::InvalidInput, small.stream + ": input 'input_0': expected INT8 [1,8,8,16] (1024 elements), got INT8 [1,8,8,8]",
              [&] { session.run({randomInput({1, 8, 8, 8}, 1)}); });
  expectError(ErrorCode::InvalidInput, "input 'input_0': expected INT8",
              [&] { session.run({Tensor(DataType::Int16, {1, 8, 8, 16})}); });
  expectError(ErrorCode::InvalidInput, "expected 1 input ('input_0'), got 0", [&] { session.run({}); });
  // runAsync finishes the run before it returns; the handle gives the outputs once.
  RunHandle handle = session.runAsync({randomInput({1, 8, 8, 16}, 3)});
  EXPECT_TRUE(handle.valid());
  EXPECT_EQ(bytesOf(handle.wait()[0]), bytesOf(session.run({randomInput({1, 8, 8, 16}, 3)})[0]));
}

TEST(EthosUApi, ReferenceNamesTheTensorsAndChecksBitForBit) {
  ScratchDir dir("api_ethosu_check");
  const SmallModel small = writeSmallModel(dir);
  ModelOptions options;
  options.reference = small.tosa;
  const Model model = Model::open(small.stream, options);
  EXPECT_EQ(model.inputs()[0].name, "x");
  EXPECT_EQ(model.outputs()[0].name, "y");
  EXPECT_EQ(model.outputs()[0].shape, (Shape{1, 4, 4, 16}));
  EXPECT_EQ(model.bindInputs({"x"}), (std::vector<int>{0}));
  Session session = model.createSession();
  const std::map<std::string, Tensor> inputs{{"x", randomInput({1, 8, 8, 16}, 5)}};
  std::vector<Tensor> outputs = session.runNamed(inputs);
  CheckReport report = session.check(inputs, outputs);
  EXPECT_TRUE(report.pass);
  ASSERT_EQ(report.outputs.size(), 1u);
  EXPECT_EQ(report.outputs[0].output, "y");
  EXPECT_EQ(report.outputs[0].line, "output 'y': bit-exact (256 elements)");
  // One output byte changed: the check names it.
  outputs[0].dataAs<std::int8_t>()[7] ^= 1;
  report = session.check(inputs, outputs);
  EXPECT_FALSE(report.pass);
  EXPECT_NE(report.outputs[0].line.find("output 'y': MISMATCH: 1 of 256 bytes differ, first at byte 7"), std::string::npos)
      << report.outputs[0].line;

  // A graph of other tensors is refused at open, naming the graph and the tensor.
  GraphBuilder g;
  g.output(g.clamp(g.input("x", {1, 8, 8, 8}), -128, 127));
  const std::string other = dir / "other.tosa";
  ASSERT_TRUE(tosa::writeGraph(g.graph(), other));
  options.reference = other;
  expectError(ErrorCode::InvalidInput, other + ": input 'x': expected 1024 bytes", [&] { Model::open(small.stream, options); });
  // Without a reference there is nothing to check against.
  expectError(ErrorCode::InvalidInput, "an Ethos-U stream carries no TOSA graph",
              [&] { Model::open(small.stream).createSession().check({{"input_0", inputs.at("x")}}, outputs); });
  ModelOptions check;
  check.check = true;
  expectError(ErrorCode::InvalidInput, small.stream + ": check: expected a reference", [&] { Model::open(small.stream, check); });
}

// What needs a Vulkan device is refused by name, not ignored.
TEST(EthosUApi, DeviceOptionsAreRefusedNamingTheOption) {
  ScratchDir dir("api_ethosu_refuse");
  const SmallModel small = writeSmallModel(dir);
  const std::string refusal = "expected a model that runs on a Vulkan device, got an Ethos-U command stream";
  ModelOptions device;
  device.device = "0";
  expectError(ErrorCode::Unsupported, small.stream + ": device '0': " + refusal, [&] { Model::open(small.stream, device); });
  ModelOptions validate;
  validate.validate = true;
  expectError(ErrorCode::Unsupported, "validate (the Vulkan validation layer): " + refusal,
              [&] { Model::open(small.stream, validate); });
  ModelOptions statistics;
  statistics.pipelineStatistics = true;
  expectError(ErrorCode::Unsupported, "pipelineStatistics: " + refusal, [&] { Model::open(small.stream, statistics); });
  // Conversion and cache options do not apply and are ignored.
  ModelOptions ignored;
  ignored.target = "native";
  ignored.modelCache = false;
  ignored.inputShapes = {{7}};
  const Model model = Model::open(small.stream, ignored);
  expectError(ErrorCode::Unsupported, "SessionOptions::profile (GPU timestamps): " + refusal,
              [&] { model.createSession({.profile = true}); });
  expectError(ErrorCode::InvalidInput, "runs in flight: expected 1 to 8, got 9", [&] { model.createSession({.inFlight = 9}); });
  expectError(ErrorCode::Unsupported, "allocatePinned", [&] { model.allocatePinned(DataType::Int8, {1, 8, 8, 16}); });
  std::vector<std::int8_t> memory(1024);
  expectError(ErrorCode::Unsupported, "importPinned",
              [&] { model.importPinned(DataType::Int8, {1, 8, 8, 16}, memory.data(), memory.size()); });
  EXPECT_EQ(model.importAlignment(), 0u);
  Session session = model.createSession({.inFlight = 2});
  expectError(ErrorCode::Unsupported, "keepOnDevice: " + refusal,
              [&] { session.run({randomInput({1, 8, 8, 16}, 1)}, RunOptions{.keepOnDevice = true}); });
  expectError(ErrorCode::Unsupported, "shareDeviceOf", [&] { Model::open(small.stream, {}, model); });
  EXPECT_FALSE(model.sharesDeviceWith(model));
  // A bare COP1 payload has no I/O placement.
  const std::string cop1 = dir / "bare.bin";
  {
    std::vector<std::uint8_t> stream = fileBytes(small.stream);
    auto parsed = ::openvgf::ethosu::parseVelaBinStream(stream);
    ASSERT_TRUE(parsed) << parsed.error().message();
    writeBytes(cop1, {parsed->commandStream.begin(), parsed->commandStream.end()});
  }
  expectError(ErrorCode::InvalidInput, cop1 + ": a bare COP1 payload has no input/output placement",
              [&] { Model::open(cop1); });
}

struct VelaStream {
  const char* network;
  const char* folder;
  const char* model;
  std::int64_t inputSize;
  std::int64_t outputSize;
};

// Arm Vela's streams (not openvgf's compiler) reproduce the outputs recorded beside them,
// as a .ethosu file and as the EthosUBackend delegate of a .pte, through the C++ and the C API.
TEST(EthosUApi, VelaStreamsReproduceTheRecordedOutputs) {
  ScratchDir dir("api_ethosu_vela");
  for (const VelaStream& c : {VelaStream{"kws_cnn_small_int8", "u55", "model_u55_128", 490, 12},
                              VelaStream{"kws_dnn_medium_int8", "u85", "model_u85_512", 250, 12}}) {
    SCOPED_TRACE(c.model);
    const fs::path data = ethosu_test::velaDataFolder(c.network, c.folder);
    const std::string stream = ethosu_test::repackageVelaModel(c.network, c.folder, c.model, dir.path()).string();
    ASSERT_FALSE(stream.empty());
    const std::vector<std::uint8_t> input = fileBytes(data / "input.bin");
    const std::vector<std::uint8_t> recorded = fileBytes(data / "output.bin");
    ASSERT_EQ(input.size(), static_cast<std::size_t>(c.inputSize));
    ASSERT_EQ(recorded.size(), static_cast<std::size_t>(c.outputSize));
    const std::string program = writeProgram(dir, stream, std::string(c.model) + ".pte");
    for (const std::string& path : {stream, program}) {
      const Model model = Model::open(path);
      EXPECT_EQ(model.format(), ModelFormat::EthosU);
      EXPECT_EQ(model.inputs()[0].shape, (Shape{1, 1, 1, c.inputSize}));
      EXPECT_EQ(model.outputs()[0].shape, (Shape{1, 1, 1, c.outputSize}));
      if (path == program) {
        EXPECT_EQ(model.source(), program + ": execution_plan[0] 'forward' delegates[0] (EthosUBackend)");
      }
      // The recorded input as TFLite shaped it, (1, N).
      Tensor x = Tensor::copyOf(DataType::Int8, {1, c.inputSize}, input.data(), input.size());
      EXPECT_EQ(bytesOf(model.createSession().run({x})[0]), recorded) << path;
    }
    // The C API runs the same stream through the same Model.
    openvgf_model* cModel = nullptr;
    openvgf_status* status = openvgf_model_open(stream.c_str(), nullptr, &cModel);
    ASSERT_EQ(status, nullptr) << openvgf_status_message(status);
    openvgf_tensor_info info{};
    ASSERT_EQ(openvgf_model_output(cModel, 0, &info), nullptr);
    EXPECT_STREQ(info.name, "output_0");
    EXPECT_EQ(info.dtype, OPENVGF_INT8);
    ASSERT_EQ(info.rank, 4u);
    EXPECT_EQ(info.shape[3], c.outputSize);
    EXPECT_NE(std::string(openvgf_model_device_name(cModel)).find("simulator"), std::string::npos);
    openvgf_session* cSession = nullptr;
    ASSERT_EQ(openvgf_session_create(cModel, nullptr, &cSession), nullptr);
    const std::int64_t inShape[] = {1, 1, 1, c.inputSize};
    const std::int64_t outShape[] = {1, 1, 1, c.outputSize};
    std::vector<std::uint8_t> out(recorded.size());
    const openvgf_tensor in{OPENVGF_INT8, 4, inShape, const_cast<std::uint8_t*>(input.data()), input.size()};
    const openvgf_tensor result{OPENVGF_INT8, 4, outShape, out.data(), out.size()};
    status = openvgf_session_run(cSession, &in, 1, &result, 1);
    EXPECT_EQ(status, nullptr) << openvgf_status_message(status);
    openvgf_status_free(status);
    EXPECT_EQ(out, recorded);
    openvgf_session_release(cSession);
    openvgf_model_release(cModel);
  }
}

// A .pte of two Ethos-U delegates is refused naming both; one of another backend goes to the
// device path, which names what it cannot run.
TEST(EthosUApi, ProgramsWithSeveralEthosUDelegatesAreRefused) {
  ScratchDir dir("api_ethosu_two");
  const SmallModel small = writeSmallModel(dir);
  pte::testing::TestProgram spec;
  spec.payloads = {fileBytes(small.stream)};
  spec.plans = {{"forward", {{"EthosUBackend", 0, {}}, {"EthosUBackend", 0, {}}}}};
  const std::string path = dir / "two.pte";
  writeBytes(path, pte::testing::writeProgram(spec).bytes);
  expectError(ErrorCode::Unsupported,
              path + ": more than one Ethos-U delegate (execution_plan[0] 'forward' delegates[0] (EthosUBackend) and "
                     "execution_plan[0] 'forward' delegates[1] (EthosUBackend))",
              [&] { Model::open(path); });
  ModelOptions plan;
  plan.plan = "other";
  expectError(ErrorCode::InvalidInput, "plan 'other': expected an Ethos-U (EthosUBackend) delegate in it",
              [&] { Model::open(path, plan); });
}

}  // namespace
}  // namespace openvgf::testing
