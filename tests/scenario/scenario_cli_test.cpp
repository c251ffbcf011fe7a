// SPDX-License-Identifier: Apache-2.0
// `openvgf scenario` through the binary, on lavapipe with the validation layer: one test per
// command type (dispatch_compute with push constants and two descriptor sets, checked against
// values computed here; dispatch_graph on the model-converter fixture, checked bit for bit
// against `openvgf run --check`, which judges it with the reference interpreter; barriers
// between dependent dispatches), scenario-runner's own example scenarios run unchanged with
// the results its tests expect, and refusals that name the JSON path of what is unsupported.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>

#include "tests/support/cli_runner.h"
#include "tosa/npy.h"

namespace openvgf::testing {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;
using tosa::npy::DataType;

const fs::path kData = OPENVGF_TEST_DATA;
const fs::path kArm = kData / "scenario" / "arm";
const fs::path kSpv = OPENVGF_SCENARIO_SPV;

class ScenarioCli : public ::testing::Test {
 protected:
  void SetUp() override { env_ = "XDG_CACHE_HOME=" + dir_ / "cache"; }

  // Copies scenario-runner's scenario `name` and the SPIR-V it names into the scratch folder,
  // as its tests stage them.
  std::string stageArm(const std::string& name, const std::vector<std::string>& spvs) {
    fs::copy_file(kArm / name, dir_.path() / name, fs::copy_options::overwrite_existing);
    for (const std::string& spv : spvs) {
      fs::copy_file(kSpv / spv, dir_.path() / spv, fs::copy_options::overwrite_existing);
    }
    return dir_ / name;
  }
  std::string writeText(const std::string& name, const std::string& text) {
    std::ofstream(dir_.path() / name) << text;
    return dir_ / name;
  }
  template <typename T>
  void writeNpy(const std::string& name, DataType type, tosa::Shape shape, const std::vector<T>& values) {
    tosa::npy::Array a{type, std::move(shape), {}};
    a.data.resize(values.size() * sizeof(T));
    std::memcpy(a.data.data(), values.data(), a.data.size());
    ASSERT_TRUE(tosa::npy::writeFile(dir_.path() / name, a));
  }
  tosa::npy::Array readNpy(const std::string& name) {
    auto a = tosa::npy::readFile(dir_.path() / name);
    EXPECT_TRUE(a) << a.error().message();
    return a ? *a : tosa::npy::Array{};
  }
  template <typename T>
  std::vector<T> values(const tosa::npy::Array& a) {
    std::vector<T> out(a.data.size() / sizeof(T));
    std::memcpy(out.data(), a.data.data(), out.size() * sizeof(T));
    return out;
  }
  CommandResult scenario(const std::string& file) { return runCli("scenario --validate " + file, env_); }

  ScratchDir dir_{"scenario_cli"};
  std::string env_;
};

std::vector<float> randomFloats(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-100.0f, 100.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// dispatch_compute: a tensor and a buffer in, a tensor out, push constants, sets 0 and 1,
// rangeND of fewer than 3 counts, relative paths.
TEST_F(ScenarioCli, DispatchComputeWithPushConstantsMatchesHandComputedValues) {
  fs::copy_file(kSpv / "scale_add.spv", dir_.path() / "scale_add.spv");
  std::vector<std::int32_t> a(37), b(37);
  for (int i = 0; i < 37; ++i) {
    a[i] = i - 10;
    b[i] = 3 * i;
  }
  writeNpy("a.npy", DataType::Int32, {37}, a);
  writeNpy("b.npy", DataType::Int32, {37}, b);
  writeNpy("push.npy", DataType::Int32, {2}, std::vector<std::int32_t>{-7, 37});
  const std::string file = writeText("scale_add.json", R"({
    "resources": [
      {"shader": {"uid": "scaleAdd", "src": "scale_add.spv", "type": "SPIR-V", "push_constants_size": 8}},
      {"tensor": {"uid": "a", "dims": [37], "format": "VK_FORMAT_R32_SINT", "shader_access": "readonly", "src": "a.npy"}},
      {"buffer": {"uid": "b", "size": 148, "shader_access": "readonly", "src": "b.npy"}},
      {"raw_data": {"uid": "params", "src": "push.npy"}},
      {"tensor": {"uid": "y", "dims": [37], "format": "VK_FORMAT_R32_SINT", "shader_access": "writeonly", "dst": "y.npy"}}
    ],
    "commands": [
      {"dispatch_compute": {"shader_ref": "scaleAdd", "push_data_ref": "params", "rangeND": [5],
                            "bindings": [{"set": 0, "id": 0, "resource_ref": "a"},
                                         {"set": 1, "id": 3, "resource_ref": "b"},
                                         {"set": 0, "id": 1, "resource_ref": "y"}]}}
    ]})");
  CommandResult r = scenario(file);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("wrote " + dir_ / "y.npy"));
  tosa::npy::Array y = readNpy("y.npy");
  EXPECT_EQ(y.dtype, DataType::Int32);
  EXPECT_EQ(y.shape, (tosa::Shape{37}));
  std::vector<std::int32_t> expected(37);
  for (int i = 0; i < 37; ++i) expected[i] = (i - 10) * -7 + 3 * i;
  EXPECT_EQ(values<std::int32_t>(y), expected);
}

// scenario-runner's test_mark_boundary: two dependent dispatches around a mark_boundary; its
// test expects outBufferAdd2 = A + B + B. Buffers are written as int8 bytes, shape [size].
TEST_F(ScenarioCli, ArmMarkBoundaryScenarioRunsUnchanged) {
  const std::string file = stageArm("mark_boundary.json", {"add_shader.spv"});
  const std::vector<float> a = randomFloats(10, 1), b = randomFloats(10, 2);
  writeNpy("inBufferA.npy", DataType::Float32, {10}, a);
  writeNpy("inBufferB.npy", DataType::Float32, {10}, b);
  CommandResult r = scenario(file);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  tosa::npy::Array out = readNpy("outBufferAdd2.npy");
  EXPECT_EQ(out.dtype, DataType::Int8);
  EXPECT_EQ(out.shape, (tosa::Shape{40}));
  std::vector<float> got = values<float>(out);
  ASSERT_EQ(got.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(got[i], (a[i] + b[i]) + b[i]) << i;
  EXPECT_EQ(values<float>(readNpy("outBufferAdd.npy"))[3], a[3] + b[3]);
}

// scenario-runner's test_shader push-constant scenario: output = input + push constants.
TEST_F(ScenarioCli, ArmPushConstantScenarioRunsUnchanged) {
  const std::string file = stageArm("shader_push_constants.json", {"add_shader_with_push_constants.spv"});
  const std::vector<float> in = randomFloats(10, 3), data = randomFloats(10, 4);
  writeNpy("inBufferAA.npy", DataType::Float32, {10}, in);
  writeNpy("data.npy", DataType::Float32, {10}, data);
  CommandResult r = scenario(file);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::vector<float> got = values<float>(readNpy("outBufferAddPush.npy"));
  ASSERT_EQ(got.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(got[i], in[i] + data[i]) << i;
}

// scenario-runner's test_barrier buffer scenario with implicit barriers off and an explicit
// buffer barrier (dispatch_barrier) between the two add-one dispatches: 42 + 1 + 1.
TEST_F(ScenarioCli, ArmExplicitBufferBarrierScenarioOrdersDependentDispatches) {
  const std::string file = stageArm("buffer_barrier_explicit.json", {"addOne.spv"});
  writeNpy("input.npy", DataType::Uint8, {256}, std::vector<std::uint8_t>(256, 42));
  CommandResult r = scenario(file);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(values<std::uint8_t>(readNpy("output.npy")), std::vector<std::uint8_t>(256, 44));
}

// dispatch_graph on Arm's model-converter VGF (a GRAPH segment): the scenario's output equals
// `openvgf run --check`'s, and that run passes the reference interpreter's check.
TEST_F(ScenarioCli, DispatchGraphMatchesRunCheckedAgainstTheReference) {
  const std::string vgf = (kData / "vgf-graph" / "simple_conv2d_rescale_graph.vgf").string();
  std::vector<std::uint8_t> x(720 * 1280 * 4);
  std::mt19937 rng(7);
  for (std::uint8_t& v : x) v = static_cast<std::uint8_t>(rng());
  writeNpy("x.npy", DataType::Uint8, {1, 720, 1280, 4}, x);
  const std::string file = writeText("graph.json", R"({
    "commands": [{"dispatch_graph": {"graph_ref": "net", "bindings": [
        {"set": 0, "id": 1, "resource_ref": "out"}, {"set": 0, "id": 0, "resource_ref": "in"}]}}],
    "resources": [
      {"graph": {"uid": "net", "src": ")" + vgf + R"("}},
      {"tensor": {"uid": "in", "dims": [1, 720, 1280, 4], "format": "VK_FORMAT_R8_UINT", "shader_access": "readonly", "src": "x.npy"}},
      {"tensor": {"uid": "out", "dims": [1, 720, 1280, 4], "format": "VK_FORMAT_R8_UINT", "shader_access": "writeonly", "dst": "y.npy"}}
    ]})");
  CommandResult r = scenario(file);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  CommandResult run = runCli("run " + vgf + " --input " + dir_ / "x.npy" + " -o " + dir_ / "ref.npy" + " --check", env_);
  ASSERT_EQ(run.exitCode, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("check: PASS"));
  tosa::npy::Array y = readNpy("y.npy"), ref = readNpy("ref.npy");
  EXPECT_EQ(y.dtype, DataType::Uint8);
  EXPECT_EQ(y.shape, (tosa::Shape{1, 720, 1280, 4}));
  EXPECT_TRUE(y.data == ref.data);
}

struct Refusal {
  std::string name;
  std::string resources;  // JSON array body
  std::string commands;
  std::string message;
};

// Everything outside the supported subset, and inconsistent scenarios, exit 2 naming the JSON
// path, before anything runs (no dst file is written).
TEST_F(ScenarioCli, UnsupportedAndInconsistentScenariosAreRefusedNamingTheField) {
  fs::copy_file(kSpv / "scale_add.spv", dir_.path() / "scale_add.spv");
  writeNpy("b40.npy", DataType::Float32, {10}, randomFloats(10, 5));
  const std::string vgf = (kData / "vgf-graph" / "simple_conv2d_rescale_graph.vgf").string();
  const std::string out = R"({"buffer": {"uid": "out", "size": 148, "shader_access": "readwrite", "dst": "out.npy"}})";
  const std::string shader = R"({"shader": {"uid": "s", "src": "scale_add.spv", "type": "SPIR-V", "push_constants_size": 8}})";
  const std::string graph = R"({"graph": {"uid": "g", "src": ")" + vgf + R"("}})";
  const std::string in = R"({"tensor": {"uid": "in", "dims": [1, 720, 1280, 4], "format": "VK_FORMAT_R8_UINT", "shader_access": "readonly"}})";
  const std::vector<Refusal> cases = {
      {"image", R"({"image": {"uid": "i", "dims": [4, 4], "format": "VK_FORMAT_R8G8B8A8_UNORM", "shader_access": "readonly"}}, )" + out, "",
       "resources[0].image: resource kind 'image' is not supported by openvgf"},
      {"unknown field", R"({"tensor": {"uid": "t", "dims": [2], "format": "VK_FORMAT_R8_SINT", "shader_access": "readonly", "colour": 1}}, )" + out, "",
       "resources[0].tensor.colour: unknown field"},
      {"memory group", R"({"buffer": {"uid": "m", "size": 4, "shader_access": "readonly", "memory_group": {"id": "x"}}}, )" + out, "",
       "resources[0].buffer.memory_group: not supported by openvgf"},
      {"glsl", R"({"shader": {"uid": "s", "src": "add.comp", "type": "GLSL"}}, )" + out, "",
       "resources[0].shader.type: 'GLSL' shaders are not supported"},
      {"format", R"({"tensor": {"uid": "t", "dims": [2], "format": "VK_FORMAT_R8G8_SINT", "shader_access": "readonly"}}, )" + out, "",
       "resources[0].tensor.format: expected one of VK_FORMAT_R8_BOOL_ARM"},
      {"buffer size", R"({"buffer": {"uid": "b", "size": 44, "shader_access": "readonly", "src": "b40.npy"}}, )" + out, "",
       "resources[0].buffer.src: 'b40.npy' holds 40 bytes of data, expected size 44"},
      {"tensor dtype", R"({"tensor": {"uid": "t", "dims": [10], "format": "VK_FORMAT_R32_SINT", "shader_access": "readonly", "src": "b40.npy"}}, )" + out, "",
       "resources[0].tensor.src: 'b40.npy' holds float32, expected int32 for VK_FORMAT_R32_SINT"},
      {"tensor shape", R"({"tensor": {"uid": "t", "dims": [2, 5], "format": "VK_FORMAT_R32_SFLOAT", "shader_access": "readonly", "src": "b40.npy"}}, )" + out, "",
       "resources[0].tensor.src: 'b40.npy' has shape 10, expected dims 2x5"},
      {"fragment", out, R"({"dispatch_fragment": {"vertex_shader_ref": "v", "fragment_shader_ref": "f", "bindings": []}})",
       "commands[0].dispatch_fragment: command 'dispatch_fragment' is not supported by openvgf"},
      {"undeclared", shader + ", " + out,
       R"({"dispatch_compute": {"shader_ref": "s", "push_data_ref": "nothing", "rangeND": [1], "bindings": []}})",
       "commands[0].dispatch_compute.push_data_ref: 'nothing' names no resource"},
      {"unbound descriptor", shader + R"(, {"raw_data": {"uid": "p", "src": "b40.npy"}}, )" + out,
       R"({"dispatch_compute": {"shader_ref": "s", "push_data_ref": "p", "rangeND": [1], "bindings": [{"set": 0, "id": 1, "resource_ref": "out"}]}})",
       "commands[0].dispatch_compute.bindings: resources[0] (shader 's') uses set 0 binding 0, expected a binding for it"},
      {"substitution", graph + ", " + in + ", " + out,
       R"({"dispatch_graph": {"graph_ref": "g", "bindings": [], "shader_substitutions": []}})",
       "commands[0].dispatch_graph.shader_substitutions: not supported by openvgf"},
      {"graph id", graph + ", " + in + ", " + out,
       R"({"dispatch_graph": {"graph_ref": "g", "bindings": [{"set": 0, "id": 0, "resource_ref": "in"}, {"set": 0, "id": 5, "resource_ref": "out"}]}})",
       "commands[0].dispatch_graph.bindings[1]: id 5 is neither an input nor an output of 'simple_conv2d_rescale_graph.vgf' "
       "(inputs: ids 0; outputs: ids 1)"},
      {"graph shape", graph + ", " + in + ", " + out,
       R"({"dispatch_graph": {"graph_ref": "g", "bindings": [{"set": 0, "id": 0, "resource_ref": "in"}, {"set": 0, "id": 1, "resource_ref": "out"}]}})",
       "commands[0].dispatch_graph.bindings[1]: output 0 (id 1) of 'simple_conv2d_rescale_graph.vgf' holds 3686400 bytes, "
       "buffer 'out' has size 148"},
      {"graph unbound", graph + ", " + in + ", " + out,
       R"({"dispatch_graph": {"graph_ref": "g", "bindings": [{"set": 0, "id": 0, "resource_ref": "in"}]}})",
       "commands[0].dispatch_graph.bindings: output 0 (id 1) of 'simple_conv2d_rescale_graph.vgf' is not bound"},
  };
  for (const Refusal& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string file =
        writeText("refused.json", "{\"resources\": [" + c.resources + "], \"commands\": [" + c.commands + "]}");
    CommandResult r = scenario(file);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr(file + ": " + c.message));
    EXPECT_FALSE(fs::exists(dir_.path() / "out.npy"));
  }
}

TEST_F(ScenarioCli, HelpExplainsTheSupportedSubset) {
  CommandResult r = runCli("scenario --help", env_);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("dispatch_graph"));
  EXPECT_THAT(r.output, HasSubstr("Refused, naming the JSON path"));
}

}  // namespace
}  // namespace openvgf::testing
