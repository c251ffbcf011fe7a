// SPDX-License-Identifier: Apache-2.0
// A byte-for-byte guard for refactors of the front end and the kernels: every model of the
// zoo (batch 1), every case of the operator sweep and a few fused-chain, control-flow and
// variable graphs are written as .tosa, read back, dumped as JSON, converted for three
// Vulkan targets and compiled for two Ethos-U configurations; the SHA-256 of each result is
// compared with tests/data/vgf_hashes.txt, recorded from the code before the refactor. A
// recorded result that differs or is no longer produced fails; a result the list does not
// have yet (a graph added later) is only reported.
//
// The list is only ever rewritten on purpose, by running this test with
// OPENVGF_RECORD_HASHES=<file> (it then writes that file instead of comparing) and
// committing the result with a message that says why the bytes changed. The hashes depend on
// the glslang and SPIRV-Tools of Debian 12 (scripts/install-deps.sh).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "benchmarks/models/zoo.h"
#include "common/sha256.h"
#include "converter/convert.h"
#include "converter/ethosu/compiler.h"
#include "tests/support/op_sweep_cases.h"
#include "tosa/builder.h"
#include "tosa/json.h"
#include "tosa/reader.h"
#include "tosa/writer.h"

namespace openvgf::testing {
namespace {

using converter::CoopMatShape;
using converter::CoopMatTypes;
using tosa::DType;
using tosa::Value;

const std::filesystem::path kHashFile = std::filesystem::path(OPENVGF_TEST_DATA) / "vgf_hashes.txt";

/// Hand-built targets, so the hashes do not depend on this machine's Vulkan device.
std::vector<converter::Target> targets() {
  converter::Target gpu = converter::portableTarget();
  gpu.name = "gpu";
  gpu.caps.subgroupSize = 32;
  gpu.caps.maxInvocations = 1024;
  gpu.caps.maxSharedBytes = 49152;
  gpu.caps.fp16Arithmetic = true;
  gpu.caps.fp16RoundingRte = true;
  gpu.caps.integerDotProduct = true;
  gpu.caps.cooperativeMatrixNv = true;
  gpu.caps.coopMatShapes = {CoopMatShape{16, 16, 16, CoopMatTypes::F16xF16ToF32},
                            CoopMatShape{16, 8, 16, CoopMatTypes::F16xF16ToF16},
                            CoopMatShape{16, 8, 32, CoopMatTypes::S8xS8ToS32},
                            CoopMatShape{16, 16, 32, CoopMatTypes::S8xS8ToS32}};
  // What `native` makes of a CPU device (lavapipe): large register blocks without shared
  // memory (A broadcast between the 8 lanes of a subgroup), no split-K, run-time shapes.
  converter::Target cpu = converter::portableTarget();
  cpu.name = "cpu";
  cpu.caps.subgroupSize = 8;
  cpu.caps.maxInvocations = 1024;
  cpu.caps.maxSharedBytes = 32768;
  cpu.caps.fp16Arithmetic = true;
  cpu.caps.fp16RoundingRte = true;
  cpu.caps.integerDotProduct = true;
  cpu.caps.float64 = true;
  cpu.tuning.gemmLargeMinGroups = 1;
  cpu.tuning.gemmSplitKGroups = 0;
  cpu.tuning.gemmLarge.stages = 0;
  cpu.tuning.runtimeShapes = true;
  converter::Target portable = converter::portableTarget();
  return {portable, gpu, cpu};
}

std::string sha256Of(std::span<const std::uint8_t> bytes) { return Sha256().update(bytes).hexDigest(); }
std::string sha256Of(std::string_view text) { return Sha256().update(text).hexDigest(); }

/// Lines "<key> -> <sha256 or outcome>" of one graph.
class Recorder {
 public:
  explicit Recorder(std::filesystem::path cacheDir) : cacheDir_(std::move(cacheDir)) {}

  void addGraph(const std::string& name, const tosa::Graph& built) {
    auto bytes = tosa::writeGraph(built);
    ASSERT_TRUE(bytes) << name << ": " << bytes.error().message();
    lines_["tosa " + name] = sha256Of(*bytes);
    auto graph = tosa::readGraph(*bytes, name + ".tosa");
    ASSERT_TRUE(graph) << name << ": " << graph.error().message();
    lines_["json " + name] = sha256Of(tosa::toJson(*graph));
    for (const converter::Target& target : targets_) {
      converter::ConvertOptions options;
      options.customTarget = target;
      options.cacheDir = cacheDir_;
      auto converted = converter::convert(*graph, options);
      lines_[fmt::format("vgf-{} {}", target.name, name)] =
          converted ? sha256Of(converted->vgf) : outcome(converted.error());
    }
    for (const char* accelerator : {"ethos-u55-128", "ethos-u65-512"}) {
      auto compiled = converter::ethosu::compile(*graph, {accelerator}, name);
      lines_[fmt::format("{} {}", accelerator, name)] =
          compiled ? sha256Of(compiled->velaBinStream) : outcome(compiled.error());
    }
  }

  const std::map<std::string, std::string>& lines() const { return lines_; }

 private:
  // A refused conversion is recorded by its kind and message, so a change in what is refused
  // (or how it is explained) shows too.
  static std::string outcome(const Error& error) {
    return fmt::format("refused:{}:{}", static_cast<int>(error.kind()), sha256Of(error.message()).substr(0, 16));
  }

  std::filesystem::path cacheDir_;
  std::vector<converter::Target> targets_ = targets();
  std::map<std::string, std::string> lines_;
};

std::map<std::string, std::string> readRecorded() {
  std::map<std::string, std::string> recorded;
  std::ifstream in(kHashFile);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t space = line.find(' ');
    if (space == std::string::npos) continue;
    recorded[line.substr(space + 1)] = line.substr(0, space);
  }
  return recorded;
}

/// Compares `computed` with the recorded lines whose key's graph name starts with `section`,
/// or, with OPENVGF_RECORD_HASHES set, appends them to that file.
void compareOrRecord(const std::string& section, const std::map<std::string, std::string>& computed) {
  if (const char* record = std::getenv("OPENVGF_RECORD_HASHES"); record != nullptr && *record != '\0') {
    std::ofstream out(record, std::ios::app);
    for (const auto& [key, value] : computed) out << value << ' ' << key << '\n';
    ASSERT_TRUE(out.good()) << "cannot write " << record;
    GTEST_SKIP() << "recorded " << computed.size() << " lines in " << record;
  }
  const auto recorded = readRecorded();
  ASSERT_FALSE(recorded.empty()) << kHashFile << ": expected recorded hashes";
  std::size_t compared = 0;
  std::vector<std::string> unrecorded;
  for (const auto& [key, value] : computed) {
    auto it = recorded.find(key);
    if (it == recorded.end()) {
      unrecorded.push_back(key);
      continue;
    }
    EXPECT_EQ(value, it->second) << key << ": bytes differ from the recorded ones";
    ++compared;
  }
  // A graph added since the list was recorded (a new sweep case) has nothing to be compared
  // with yet; it is named so that it can be recorded on purpose.
  if (!unrecorded.empty()) {
    std::printf("%zu results not in %s (first: %s); record them with OPENVGF_RECORD_HASHES\n", unrecorded.size(),
                kHashFile.filename().c_str(), unrecorded.front().c_str());
  }
  for (const auto& [key, value] : recorded) {
    const std::string graph = key.substr(key.find(' ') + 1);
    if (graph.starts_with(section) && !computed.contains(key)) ADD_FAILURE() << key << ": recorded but not produced";
  }
  EXPECT_GT(compared, 0u);
}

class VgfHashes : public ::testing::Test {
 protected:
  // The SPIR-V cache the other converter tests share. Its key covers the template, every
  // include, the defines, glslang's version and the optimisation level, so a cached module
  // is the module this build would compile; sharing it saves recompiling the operator sweep's
  // kernels, which converter_op_sweep_test has compiled already (most of this test's time).
  std::filesystem::path cacheDir_ = std::filesystem::temp_directory_path() / "openvgf-converter-test-cache";
};

TEST_F(VgfHashes, ZooModels) {
  Recorder recorder(cacheDir_);
  for (const benchmarks::ModelInfo& model : benchmarks::zooModels()) {
    SCOPED_TRACE(model.name);
    auto graph = model.build(benchmarks::ZooOptions{}).graph();
    ASSERT_TRUE(graph) << graph.error().message();
    recorder.addGraph("zoo/" + model.name, *graph);
  }
  compareOrRecord("zoo/", recorder.lines());
}

TEST_F(VgfHashes, OperatorSweep) {
  Recorder recorder(cacheDir_);
  for (const Case& c : allCases()) {
    SCOPED_TRACE(c.name);
    auto graph = buildCase(c).graph;  // the graph op_sweep_test converts
    ASSERT_TRUE(graph) << graph.error().message();
    recorder.addGraph("sweep/" + c.name, *graph);
  }
  compareOrRecord("sweep/", recorder.lines());
}

tosa::HostTensor ramp(DType type, tosa::Shape shape, int modulo, int offset) {
  tosa::HostTensor t(type, std::move(shape));
  for (std::int64_t i = 0; i < t.size(); ++i) {
    const auto at = static_cast<std::size_t>(i);
    const int v = static_cast<int>(i * 7 % modulo) + offset;
    switch (type) {
      case DType::Int8: t.as<std::int8_t>()[at] = static_cast<std::int8_t>(v); break;
      case DType::Int32: t.as<std::int32_t>()[at] = v; break;
      case DType::Fp32: t.as<float>()[at] = static_cast<float>(v) / 8.0f; break;
      default: break;
    }
  }
  return t;
}

/// Fused chains the zoo and the sweep do not reach: per-channel RESCALE then TABLE in a GEMM
/// epilogue, INT48 accumulators rescaled (64-bit path), CASTs inside elementwise chains,
/// control flow folded at conversion time, a variable.
std::vector<std::pair<std::string, tosa::Builder>> chainGraphs() {
  std::vector<std::pair<std::string, tosa::Builder>> graphs;
  {
    tosa::Builder b;
    Value x = b.input("x", DType::Int8, {1, 6, 6, 8});
    Value w = b.constant(ramp(DType::Int8, {4, 3, 3, 8}, 200, -100));
    Value acc = b.conv2d(x, w, std::nullopt, {.pad = {1, 1, 1, 1}, .inputZp = -3});
    Value q = b.rescale(acc, {.outType = DType::Int8, .multiplier = {1 << 30, 1395864371, 1717986918, 1518500250},
                              .shift = {38, 39, 40, 38}, .outputZp = 2});
    std::vector<std::int32_t> table(256);
    for (int i = 0; i < 256; ++i) table[static_cast<std::size_t>(i)] = (i * 53 % 256) - 128;
    b.output(b.clamp(b.table(q, table), -100, 90));
    graphs.emplace_back("conv_int8_rescale_table_clamp", std::move(b));
  }
  {
    tosa::Builder b;
    Value x = b.input("x", DType::Int16, {1, 5, 5, 4});
    Value w = b.constant(ramp(DType::Int8, {3, 3, 3, 4}, 120, -60));
    Value acc = b.conv2d(x, w, std::nullopt, {.pad = {1, 1, 1, 1}});
    Value q = b.rescale(acc, {.outType = DType::Int16, .multiplier = {1518500250}, .shift = {40},
                              .roundingMode = tosa::RoundingMode::DoubleRound});
    std::vector<std::int32_t> table(513);
    for (int i = 0; i < 513; ++i) table[static_cast<std::size_t>(i)] = (i - 256) * 100;
    b.output(b.table(q, table));
    graphs.emplace_back("conv_int16_int48_rescale_table16", std::move(b));
  }
  {
    tosa::Builder b;
    Value x = b.input("x", DType::Int8, {4, 10});
    Value y = b.input("y", DType::Fp32, {4, 10});
    Value f = b.cast(b.cast(x, DType::Fp16), DType::Fp32);
    Value s = b.sigmoid(b.add(f, y));
    Value m = b.maximum(s, b.splat(DType::Fp32, {1, 1}, 0.25), tosa::NanMode::Ignore);
    b.output(b.cast(b.mul(m, b.splat(DType::Fp32, {1, 1}, 100.0)), DType::Int16));
    graphs.emplace_back("cast_chain", std::move(b));
  }
  {
    tosa::Builder b;
    Value x = b.input("x", DType::Fp16, {1, 8, 16});
    Value w = b.input("w", DType::Fp16, {1, 16, 24});
    Value mm = b.matmul(x, w, {.outType = DType::Fp32});
    b.output(b.cast(b.tanh(b.sub(mm, b.splat(DType::Fp32, {1, 1, 1}, 0.5))), DType::Bf16));
    graphs.emplace_back("matmul_fp16_epilogue_cast", std::move(b));
  }
  {
    tosa::Builder b;
    Value x = b.input("x", DType::Int32, {6});
    Value five = b.constant<std::int32_t>(DType::Int32, {1}, {5});
    Value cond = b.greater(five, b.constant<std::int32_t>(DType::Int32, {1}, {2}));
    auto outs = b.condIf(
        cond, {x}, [](tosa::Builder& t, const std::vector<Value>& in) { return std::vector<Value>{t.add(in[0], in[0])}; },
        [&](tosa::Builder& e, const std::vector<Value>& in) { return std::vector<Value>{e.sub(in[0], five)}; });
    b.output(outs[0]);
    graphs.emplace_back("cond_if_folded", std::move(b));
  }
  {
    tosa::Builder b;
    Value x = b.input("x", DType::Fp32, {2, 3});
    Value i0 = b.constant<std::int32_t>(DType::Int32, {1}, {0});
    auto outs = b.whileLoop(
        {i0, x, x},
        [](tosa::Builder& c, const std::vector<Value>& in) {
          return c.greater(c.constant<std::int32_t>(DType::Int32, {1}, {4}), in[0]);
        },
        [](tosa::Builder& body, const std::vector<Value>& in) {
          Value next = body.add(body.mul(in[1], body.splat(DType::Fp32, {1, 1}, 2.0)), in[2]);
          return std::vector<Value>{body.add(in[0], body.constant<std::int32_t>(DType::Int32, {1}, {1})), next, in[2]};
        });
    b.output(outs[1]);
    graphs.emplace_back("while_loop_unrolled", std::move(b));
  }
  {
    tosa::Builder b;
    Value x = b.input("x", DType::Fp32, {2, 4});
    Value state = b.variable("acc", ramp(DType::Fp32, {2, 4}, 9, -4));
    Value sum = b.add(b.variableRead(state), x);
    b.variableWrite(state, sum);
    b.output(b.exp(sum));
    graphs.emplace_back("variable_accumulator", std::move(b));
  }
  {
    // A COND_IF on a CONST condition, and one whose branch writes and reads a variable.
    tosa::Builder b;
    Value x = b.input("x", DType::Fp32, {5});
    Value state = b.variable("s", ramp(DType::Fp32, {5}, 11, -5));
    Value yes = b.constant(DType::Bool, {1}, std::vector<int>{1});
    Value no = b.constant(DType::Bool, {1}, std::vector<int>{0});
    auto first = b.condIf(
        no, {x}, [](tosa::Builder& t, const std::vector<Value>& in) { return std::vector<Value>{t.exp(in[0])}; },
        [](tosa::Builder& e, const std::vector<Value>& in) { return std::vector<Value>{e.abs(in[0])}; });
    auto second = b.condIf(
        yes, {first[0]},
        [&](tosa::Builder& t, const std::vector<Value>& in) {
          Value sum = t.add(t.variableRead(state), in[0]);
          t.variableWrite(state, sum);
          return std::vector<Value>{t.mul(sum, in[0])};
        },
        [](tosa::Builder& e, const std::vector<Value>& in) { return std::vector<Value>{e.negate(in[0])}; });
    Value after = b.variableRead(state);
    b.variableWrite(state, b.sub(after, x));
    b.output(b.add(second[0], after));
    graphs.emplace_back("cond_if_constant_with_variable", std::move(b));
  }
  return graphs;
}

TEST_F(VgfHashes, FusedChainsAndControlFlow) {
  Recorder recorder(cacheDir_);
  for (auto& [name, builder] : chainGraphs()) {
    SCOPED_TRACE(name);
    auto graph = builder.build();
    ASSERT_TRUE(graph) << graph.error().message();
    recorder.addGraph("chain/" + name, *graph);
  }
  compareOrRecord("chain/", recorder.lines());
}

TEST_F(VgfHashes, FixtureFiles) {
  Recorder recorder(cacheDir_);
  for (const char* fixture : {"simple_maxpool2d", "test_add_1x4x4x4_f32", "test_conv2d_1x1_1x32x32x8_f32_st11_padSAME_dilat11"}) {
    SCOPED_TRACE(fixture);
    auto graph = tosa::readGraph(std::filesystem::path(OPENVGF_TEST_DATA) / "tosa" / fixture / "model.tosa");
    ASSERT_TRUE(graph) << graph.error().message();
    recorder.addGraph(std::string("fixture/") + fixture, *graph);
  }
  compareOrRecord("fixture/", recorder.lines());
}

}  // namespace
}  // namespace openvgf::testing
