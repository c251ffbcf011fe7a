// SPDX-License-Identifier: Apache-2.0
// `openvgf run` and `openvgf devices` as a user runs them: the test writes a .vgf (vgf::Builder)
// and .npy inputs, runs the binary on lavapipe with --validate, and checks exit codes,
// messages and the .npy outputs against values computed here.
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "shaders/affine_s3b1.h"
#include "shaders/binary_f32.h"
#include "shaders/chain_add.h"
#include "shaders/chain_minus1.h"
#include "shaders/chain_scale2.h"
#include "shaders/shared_sum.h"
#include "test_models.h"
#include "tests/support/cli_runner.h"
#include "tosa/npy.h"
#include "tests/support/temp_dir.h"

using openvgf::testing::CommandResult;
using openvgf::testing::runCli;

namespace openvgf {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

class RunCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::processTempDir("openvgf-cli-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // Keep the pipeline cache inside the test directory.
    env_ = "XDG_CACHE_HOME=" + (dir_ / "cache").string();
  }
  void TearDown() override { if (!std::getenv("OPENVGF_KEEP_TEST_DIR")) fs::remove_all(dir_); }

  std::string write(vgf::Builder& builder, const std::string& name) {
    Result<std::vector<std::uint8_t>> bytes = builder.finish();
    EXPECT_TRUE(bytes) << bytes.error().message();
    fs::path path = dir_ / name;
    EXPECT_TRUE(writeFileAtomic(path, std::span<const std::uint8_t>(*bytes)));
    return path.string();
  }
  std::string writeNpy(const std::string& name, tosa::Shape shape, const std::vector<float>& values) {
    tosa::HostTensor t(tosa::DType::Fp32, std::move(shape));
    std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
    fs::path path = dir_ / name;
    EXPECT_TRUE(tosa::npy::writeTensor(path, t));
    return path.string();
  }
  std::vector<float> readNpy(const fs::path& path) {
    Result<tosa::npy::Array> array = tosa::npy::readFile(path);
    EXPECT_TRUE(array) << (array ? "" : array.error().message());
    if (!array) return {};
    EXPECT_EQ(array->dtype, tosa::npy::DataType::Float32);
    std::vector<float> out(array->data.size() / 4);
    std::memcpy(out.data(), array->data.data(), array->data.size());
    return out;
  }

  fs::path dir_;
  std::string env_;
};

std::vector<float> chainInput() {
  std::vector<float> x(testing::kChainN);
  for (int i = 0; i < testing::kChainN; ++i) x[i] = static_cast<float>(i % 17) - 8.5f;
  return x;
}

TEST_F(RunCli, RunsAChainModelAndWritesTheOutput) {
  vgf::Builder b;
  testing::buildChain(b, k_chain_add, k_chain_scale2, k_chain_minus1);
  std::string model = write(b, "chain.vgf");
  std::vector<float> x = chainInput();
  std::string input = writeNpy("x.npy", {1, testing::kChainN}, x);
  fs::path output = dir_ / "y.npy";
  CommandResult r = runCli("run " + model + " --input " + input + " --output " + output.string() + " --validate", env_);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::vector<float> y = readNpy(output);
  ASSERT_EQ(y.size(), x.size());
  for (int i = 0; i < testing::kChainN; ++i) EXPECT_EQ(y[i], 3.0f * x[i] + 2.0f * static_cast<float>(i) - 1.0f);
  EXPECT_TRUE(fs::exists(dir_ / "cache" / "openvgf")) << "pipeline cache directory";
}

TEST_F(RunCli, NamedInputsOutputDirRepeatAndProfile) {
  vgf::Builder b;
  testing::buildMultiIo(b, k_binary_f32, k_affine_s3b1);
  std::string model = write(b, "multi.vgf");
  std::vector<float> a(37), bv(37);
  for (int i = 0; i < 37; ++i) {
    a[i] = static_cast<float>(i);
    bv[i] = static_cast<float>(100 - 2 * i);
  }
  std::string pa = writeNpy("a.npy", {37}, a), pb = writeNpy("b.npy", {37}, bv);
  fs::path out = dir_ / "out";
  fs::path trace = dir_ / "trace.json";
  CommandResult r = runCli("run " + model + " --input b=" + pb + " --input a=" + pa + " --output-dir " + out.string() +
                         " --repeat 5 --profile " + trace.string() + " --validate --no-pipeline-cache",
                     env_);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("5 runs on llvmpipe"));
  EXPECT_THAT(r.output, HasSubstr("median"));
  EXPECT_THAT(r.output, HasSubstr("total GPU time"));
  std::vector<float> sum = readNpy(out / "sum.npy"), scaled = readNpy(out / "scaled.npy");
  ASSERT_EQ(sum.size(), 37u);
  ASSERT_EQ(scaled.size(), 37u);
  for (int i = 0; i < 37; ++i) {
    EXPECT_EQ(sum[i], a[i] + bv[i]);
    EXPECT_EQ(scaled[i], 3.0f * (a[i] + bv[i]) + 1.0f);
  }
  Result<std::vector<std::uint8_t>> text = readFile(trace);
  ASSERT_TRUE(text);
  nlohmann::json json = nlohmann::json::parse(text->begin(), text->end());
  int slices = 0;
  for (const nlohmann::json& e : json["traceEvents"]) slices += e["ph"] == "X";
  EXPECT_EQ(slices, 10);  // 2 segments x 5 runs
  EXPECT_FALSE(fs::exists(dir_ / "cache" / "openvgf"));
}

TEST_F(RunCli, BadInputsExitWithCode2) {
  vgf::Builder b;
  testing::buildMultiIo(b, k_binary_f32, k_affine_s3b1);
  std::string model = write(b, "multi.vgf");
  std::string good = writeNpy("good.npy", {37}, std::vector<float>(37, 1.0f));
  std::string wrong = writeNpy("wrong.npy", {36}, std::vector<float>(36, 1.0f));
  CommandResult count = runCli("run " + model + " --input " + good + " --output-dir " + (dir_ / "o").string(), env_);
  EXPECT_EQ(count.exitCode, 2) << count.output;
  EXPECT_THAT(count.output, HasSubstr(model + ": --input: expected 2 inputs ('a', 'b'), got 1 (no value for 'b')"));
  CommandResult shape = runCli("run " + model + " --input " + good + " --input " + wrong + " --output-dir " +
                             (dir_ / "o").string(),
                         env_);
  EXPECT_EQ(shape.exitCode, 2) << shape.output;
  EXPECT_THAT(shape.output, HasSubstr(model + ": input 'b': " + wrong + ": expected shape [37], got [36]"));
  CommandResult name = runCli("run " + model + " --input zz=" + good + " --input " + good, env_);
  EXPECT_EQ(name.exitCode, 2) << name.output;
  EXPECT_THAT(name.output, HasSubstr(model + ": --input: input 'zz': expected one of the model's inputs ('a', 'b'), got an "
                                              "unknown name"));
  CommandResult single = runCli("run " + model + " --input " + good + " --input " + good + " --output " +
                              (dir_ / "one.npy").string(),
                          env_);
  EXPECT_EQ(single.exitCode, 2) << single.output;
  EXPECT_THAT(single.output, HasSubstr("--output: expected a model with one output, got 2"));
  EXPECT_FALSE(fs::exists(dir_ / "o"));
  EXPECT_FALSE(fs::exists(dir_ / "one.npy"));
}

// Bad VGFs of the classes a mutation campaign found crashing the driver or running with wrong
// results: a binding the module uses left unbound, renumbered bindings, a corrupted module.
TEST_F(RunCli, MismatchedBindingsAndInvalidSpirvExitWithCode2) {
  std::uint32_t f32 = testing::raw(vgf::VkFormatValue::R32Sfloat);
  auto model = [&](const std::string& name, std::uint32_t outBinding, std::uint32_t inBinding,
                   std::vector<std::uint32_t> spirv) {
    vgf::Builder b;
    vgf::ModuleId m = b.addModule("binary", "main", std::move(spirv));
    vgf::ResourceId a = b.addResource(vgf::ResourceCategory::Input, f32, {37});
    vgf::ResourceId bb = b.addResource(vgf::ResourceCategory::Input, f32, {37});
    vgf::ResourceId c = b.addResource(vgf::ResourceCategory::Output, f32, {37});
    b.addSegment("add", m, {{.setIndex = 0, .bindings = {{0, a}, {inBinding, bb}, {outBinding, c}}}},
                 {{0, a}, {inBinding, bb}}, {{outBinding, c}}, {}, {1, 1, 1});
    b.setInputs({{0, a}, {inBinding, bb}}, {"a", "b"});
    b.setOutputs({{outBinding, c}}, {"c"});
    return write(b, name);
  };
  std::string x = writeNpy("x.npy", {37}, std::vector<float>(37, 1.0f));
  auto run = [&](const std::string& path) {
    return runCli("run " + path + " --validate --input " + x + " --input " + x + " --output " +
                      (dir_ / "c.npy").string(),
                  env_);
  };
  std::string unbound = model("unbound.vgf", 0xFFFFFFFFu, 1, testing::words(k_binary_f32));
  CommandResult r = run(unbound);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("unbound.vgf: segments[0] 'add': set 0 binding 2: modules[0] 'binary' uses a storage "
                                  "buffer there"));
  std::string swapped = model("swapped.vgf", 1, 2, testing::words(k_binary_f32));
  r = run(swapped);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("swapped.vgf: segments[0] 'add': set 0 binding 1 (output 'c' (resources[2])): "
                                  "expected modules[0] 'binary' to write a tensor the segment lists in outputs"));
  std::vector<std::uint32_t> corrupt = testing::words(k_binary_f32);
  corrupt[corrupt.size() - 3] = 0xFFFFu;  // inside the function body: no instruction has opcode 65535
  r = run(model("corrupt.vgf", 2, 1, corrupt));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("corrupt.vgf: segments[0] 'add': modules[0] 'binary': "));
  EXPECT_FALSE(fs::exists(dir_ / "c.npy"));
  r = run(model("good.vgf", 2, 1, testing::words(k_binary_f32)));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(readNpy(dir_ / "c.npy"), std::vector<float>(37, 2.0f));
}

TEST_F(RunCli, SharedMemoryNeedsABarrierThatOrdersIt) {
  // A module whose workgroup exchanges values through shared memory runs, and its barrier works:
  // c[i] = a[i] + b[63 - i] where 63 - i < 37, else a[i] (one workgroup of 64).
  vgf::Builder b;
  testing::buildBinary(b, vgf::VkFormatValue::R32Sfloat, k_shared_sum);
  std::string model = write(b, "shared.vgf");
  std::vector<float> a(37), bv(37), expected(37);
  for (int i = 0; i < 37; ++i) {
    a[i] = static_cast<float>(i);
    bv[i] = 100.0f * static_cast<float>(i);
  }
  for (int i = 0; i < 37; ++i) expected[i] = a[i] + (63 - i < 37 ? bv[63 - i] : 0.0f);
  CommandResult r = runCli("run " + model + " --validate --input " + writeNpy("a.npy", {37}, a) + " --input " +
                               writeNpy("b.npy", {37}, bv) + " --output " + (dir_ / "c.npy").string(),
                           env_);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(readNpy(dir_ / "c.npy"), expected);
  // The mutation campaign's file (tests/fuzz/README.md): its GEMM's barrier orders subgroup memory
  // only, and lavapipe ran it with outputs that changed with MALLOC_PERTURB_.
  const std::string data = std::string(OPENVGF_TEST_DATA) + "/vgf/fuzz_barrier_orders_no_shared_memory";
  r = runCli("run " + data + ".vgf --input " + data + "_input.npy --output " + (dir_ / "y.npy").string(), env_);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("fuzz_barrier_orders_no_shared_memory.vgf: segments[0]"));
  EXPECT_THAT(r.output, HasSubstr("OpControlBarrier at word"));
  EXPECT_THAT(r.output, HasSubstr("got execution scope 2, memory scope 2, semantics 0x80"));
  EXPECT_FALSE(fs::exists(dir_ / "y.npy"));
}

// A libFuzzer find (tests/fuzz/README.md): one word of a convolution's SPIR-V changed an array
// length from 4 to 35332, so a Function variable int[35332][35332] (5 GB per invocation) made
// lavapipe take 24 GB and 50 s to build the pipeline. It is refused before any pipeline, fast.
TEST_F(RunCli, ModulesWithGigabytesOfPrivateMemoryAreRefused) {
  const std::string data = std::string(OPENVGF_TEST_DATA) + "/vgf/fuzz_private_array_5gb.vgf";
  const auto start = std::chrono::steady_clock::now();
  // The model is checked before its inputs are read, so any .npy will do.
  CommandResult r =
      runCli("run " + data + " --input " + writeNpy("x.npy", {1, 6, 6, 2}, std::vector<float>(72)), env_);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("fuzz_private_array_5gb.vgf: segments[0] 'CONV2D_4': modules[0] 'conv2d_0'"));
  EXPECT_THAT(r.output,
              HasSubstr("expected at most 65536 bytes of private memory per invocation (Private and "
                        "Function variables), got 4993400960"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

// Issue 33, item 7: the 64-element ADD of tests/data/tosa/test_add_1x4x4x4_f32 as `convert`
// wrote it, with its dispatch_shape edited from [1, 1, 1] to [65535, 256, 1]. Every workgroup
// past the first repeats the same 64 additions: lavapipe spent 6.6 s on it, [65535, 65535, 1]
// about half an hour. A dispatch may have at most one workgroup per element of the largest
// tensor it binds, so the file is refused before any Vulkan object exists.
TEST_F(RunCli, ADispatchWithMoreWorkgroupsThanElementsIsRefused) {
  const std::string data = std::string(OPENVGF_TEST_DATA) + "/vgf/integrity/add_dispatch_65535x256x1.vgf";
  const std::string fixture = std::string(OPENVGF_TEST_DATA) + "/tosa/test_add_1x4x4x4_f32/";
  CommandResult r = runCli("run " + data + " -i " + fixture + "placeholder_0.npy -i " + fixture +
                               "placeholder_1.npy -o " + (dir_ / "y.npy").string(),
                           env_);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("add_dispatch_65535x256x1.vgf: segments[0] 'ADD_0': dispatch_shape [65535, 256, "
                                  "1]: expected at most 64 workgroups (one per element of the largest tensor the "
                                  "segment binds: output 'TosaOutput_0' (resources[2])), got 16776960"));
  EXPECT_FALSE(fs::exists(dir_ / "y.npy"));
}

// Issue 33's inconsistent files, as committed (tests/data/vgf/integrity/, made by the tests
// that build them from a fresh conversion: ExtentsCli.* and
// ConvertCli.RunRefusesAReadOfATensorNoSegmentWritesEvenIfItsAliasGroupWasWritten). Each is
// valid in every other respect and ran with exit 0 and a wrong answer before its check;
// each must exit 2 naming the file, the segment, the binding and both sides, with no output.
TEST_F(RunCli, CommittedInconsistentFilesAreRefusedNamingWhatIsWrong) {
  const std::string dir = std::string(OPENVGF_TEST_DATA) + "/vgf/integrity/";
  struct Refusal {
    const char* file;
    const char* input;
    const char* message;
  };
  const Refusal refusals[] = {
      {"shrunk_intermediate.vgf", "extents_x.npy",
       "shrunk_intermediate.vgf: segments[0] 'CONV2D_4': set 0 binding 3 (intermediate tensor resources[3] "
       "R32_SFLOAT [1,1,1,1]): expected the R32_SFLOAT tensor of 384 elements that modules[0] 'conv2d_0' was "
       "converted for, got R32_SFLOAT of 1 elements"},
      {"swapped_weight_bias.vgf", "extents_x.npy",
       "swapped_weight_bias.vgf: segments[0] 'CONV2D_4': set 0 binding 1 (constant tensor resources[2] R32_SFLOAT "
       "[6]): expected the R32_SFLOAT tensor of 216 elements"},
      {"output_2_rows.vgf", "extents_x.npy",
       "output_2_rows.vgf: segments[1] 'MAX_POOL2D_5': set 0 binding 1 (output 'y' (resources[4])): expected the "
       "R32_SFLOAT tensor of 96 elements that modules[1] 'pool2d_1' was converted for, got R32_SFLOAT of 48 elements"},
      {"output_8_rows.vgf", "extents_x.npy", "got R32_SFLOAT of 192 elements"},
      {"exp_chain_segment2_removed.vgf", "exp_chain_x.npy",
       "exp_chain_segment2_removed.vgf: segments[2] 'EXP_3': set 0 binding 0: expected intermediate tensor "
       "resources[3] R32_SFLOAT [1,8,8,4] to be written by an earlier segment before it is read, got a read first "
       "(its alias group 0 holds resources[1], another tensor, at that point)"},
  };
  for (const Refusal& refusal : refusals) {
    SCOPED_TRACE(refusal.file);
    const fs::path y = dir_ / "y.npy";
    CommandResult r = runCli("run " + dir + refusal.file + " -i " + dir + refusal.input + " -o " + y.string(), env_);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr(refusal.message));
    EXPECT_FALSE(fs::exists(y));
  }
}

// A libFuzzer find: one bit turned the BuiltIn of a MAX_POOL2D's uvec3 GlobalInvocationId
// variable into LocalInvocationIndex, a scalar. Debian's spirv-val accepts that, and lavapipe's
// compiler crashed on it (inside LLVM, in the fuzz target's ASan build).
TEST_F(RunCli, BuiltinsOfTheWrongShapeAreRefused) {
  const std::string data = std::string(OPENVGF_TEST_DATA) + "/vgf/fuzz_builtin_vector_as_index.vgf";
  CommandResult r = runCli(
      "run " + data + " --input " + writeNpy("x.npy", {1, 16, 16, 16}, std::vector<float>(4096)), env_);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("fuzz_builtin_vector_as_index.vgf: segments[0] 'MAX_POOL2D_0': modules[0] "
                                  "'pool2d_0': variable %46: BuiltIn LocalInvocationIndex: expected a 32-bit "
                                  "integer scalar, got a 3-component 32-bit integer vector"));
}

TEST_F(RunCli, GraphSegmentWithAShaderModuleIsRefused) {
  vgf::Builder b;
  std::uint32_t f32 = testing::raw(vgf::VkFormatValue::R32Sfloat);
  vgf::ModuleId m = b.addModule("graph", "main", testing::words(k_binary_f32), vgf::ModuleType::Graph);
  vgf::ResourceId x = b.addResource(vgf::ResourceCategory::Input, f32, {37});
  vgf::ResourceId y = b.addResource(vgf::ResourceCategory::Output, f32, {37});
  b.addSegment("tosa_graph", m, {{.setIndex = 0, .bindings = {{0, x}, {1, y}}}}, {{0, x}}, {{1, y}});
  b.setInputs({{0, x}}, {"x"});
  b.setOutputs({{1, y}}, {"y"});
  std::string model = write(b, "graph.vgf");
  std::string input = writeNpy("x.npy", {37}, std::vector<float>(37, 0.0f));
  CommandResult r = runCli("run " + model + " --input " + input + " --output " + (dir_ / "y.npy").string(), env_);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  // GRAPH segments are lowered to compute shaders; this one holds a compute shader instead of a graph.
  EXPECT_THAT(r.output, HasSubstr("graph.vgf: modules[0] 'graph': word"));
  EXPECT_THAT(r.output, HasSubstr("expected a graph module (OpGraphEntryPointARM), got a shader entry point"));
  EXPECT_FALSE(fs::exists(dir_ / "y.npy"));
}

TEST_F(RunCli, ArmDataGraphFixtureWithAPlaceholderModuleIsRefused) {
  // A VGF written by Arm's VGF library tests (tests/data/vgf, see third_party_notes.md): its
  // GRAPH module is a one-word placeholder, so there is no graph to lower.
  std::string model = std::string(OPENVGF_TEST_DATA) + "/vgf/single_maxpool_graph_v0_4_3.vgf";
  std::string input = writeNpy("x.npy", {1, 16, 16, 16}, std::vector<float>(16 * 16 * 16, 1.0f));
  CommandResult r = runCli("run " + model + " --input " + input + " --output " + (dir_ / "y.npy").string(), env_);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("single_maxpool_graph_v0_4_3.vgf: segments[0] 'segment_maxpool_graph1': modules[0]"));
  EXPECT_THAT(r.output, HasSubstr("expected a GRAPH module with SPIR-V code"));
  EXPECT_FALSE(fs::exists(dir_ / "y.npy"));
}

TEST_F(RunCli, MissingDriverExitsWithCode1) {
  vgf::Builder b;
  testing::buildChain(b, k_chain_add, k_chain_scale2, k_chain_minus1);
  std::string model = write(b, "chain.vgf");
  std::string input = writeNpy("x.npy", {1, testing::kChainN}, chainInput());
  CommandResult r = runCli("run " + model + " --input " + input + " --output " + (dir_ / "y.npy").string(),
                     env_ + " VK_DRIVER_FILES=/nonexistent/icd.json VK_ICD_FILENAMES=/nonexistent/icd.json");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("mesa-vulkan-drivers"));
  EXPECT_FALSE(fs::exists(dir_ / "y.npy"));
  CommandResult devices = runCli("devices", "VK_DRIVER_FILES=/nonexistent/icd.json VK_ICD_FILENAMES=/nonexistent/icd.json");
  EXPECT_EQ(devices.exitCode, 1) << devices.output;
  // No loader at all: the binary still starts (libvulkan is opened at run time) and says so.
  CommandResult noLoader = runCli("run " + model + " --input " + input + " --output " + (dir_ / "y.npy").string(),
                            env_ + " OPENVGF_VULKAN_LIBRARY=/nonexistent/libvulkan.so.1");
  EXPECT_EQ(noLoader.exitCode, 1) << noLoader.output;
  EXPECT_THAT(noLoader.output, HasSubstr("the Vulkan loader /nonexistent/libvulkan.so.1 cannot be loaded"));
  EXPECT_THAT(noLoader.output, HasSubstr("libvulkan1"));
  EXPECT_FALSE(fs::exists(dir_ / "y.npy"));
}

TEST(DevicesCli, ListsLavapipeAsTextAndJson) {
  CommandResult text = runCli("devices");
  ASSERT_EQ(text.exitCode, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("llvmpipe"));
  EXPECT_THAT(text.output, HasSubstr("maxStorageBufferRange"));
  EXPECT_THAT(text.output, HasSubstr("subgroup size"));
  EXPECT_THAT(text.output, HasSubstr("host I/O: dedicated transfer queue "));
  CommandResult json = runCli("devices --json");
  ASSERT_EQ(json.exitCode, 0) << json.output;
  nlohmann::json parsed = nlohmann::json::parse(json.output);
  ASSERT_FALSE(parsed["devices"].empty());
  bool found = false;
  for (const nlohmann::json& d : parsed["devices"]) {
    if (d["type"] == "cpu") {
      found = true;
      EXPECT_TRUE(d["features"]["synchronization2"].get<bool>());
      EXPECT_GT(d["limits"]["maxStorageBufferRange"].get<std::uint64_t>(), 0u);
      // Host I/O facts agree with the feature list and with each other; lavapipe offers
      // host-memory import and has one queue family (no transfer-only one).
      const nlohmann::json& io = d["host_io"];
      EXPECT_EQ(io["timeline_semaphore"].get<bool>(), d["features"]["timelineSemaphore"].get<bool>());
      EXPECT_TRUE(io["external_memory_host"].get<bool>());
      const auto alignment = io["min_imported_host_pointer_alignment"].get<std::uint64_t>();
      EXPECT_TRUE(alignment != 0 && (alignment & (alignment - 1)) == 0) << alignment;
      EXPECT_FALSE(io["dedicated_transfer_queue"].get<bool>());
      // A CPU device's memory is all host memory: its device-local heap is host-visible.
      EXPECT_EQ(io["host_visible_device_local_bytes"].get<std::uint64_t>(), d["device_local_bytes"].get<std::uint64_t>());
      EXPECT_THAT(text.output, HasSubstr("VK_EXT_external_memory_host yes (import alignment " +
                                         std::to_string(alignment) + " bytes)"));
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace openvgf
