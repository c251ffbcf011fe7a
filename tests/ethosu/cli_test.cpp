// SPDX-License-Identifier: Apache-2.0
// The Ethos-U commands as a user runs them: `openvgf inspect` (golden disassembly of a small
// model, reviewed by hand once) and `openvgf run --check` (verdict and exit codes), plus
// clear errors for malformed payloads.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/file_io.h"
#include "ethosu/cop1.h"
#include "ethosu/disassembler.h"
#include "ethosu/registers.h"
#include "ethosu/vela_bin_stream.h"
#include "runner/ethosu/session.h"
#include "tests/ethosu/graph_util.h"
#include "tests/support/cli_runner.h"
#include "tosa/npy.h"
#include "tosa/writer.h"

using openvgf::testing::CommandResult;
using openvgf::testing::runCli;

namespace openvgf::ethosu_test {
namespace {

namespace fs = std::filesystem;

fs::path tempDir() {
  fs::path dir = fs::temp_directory_path() / fmt::format("openvgf_ethosu_{}", ::testing::UnitTest::GetInstance()->random_seed() + getpid());
  fs::create_directories(dir);
  return dir;
}

/// CONV 3x3 (the fact sheet's §1.7 shape) with a fused ReLU, then a 2x2 max pool.
tosa::Graph smallModel() {
  std::mt19937 rng(1);
  GraphBuilder g;
  std::string x = g.input("x", {1, 8, 8, 16});
  std::string y = g.clamp(g.conv(x, 16, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, -3, 5, rng), 5, 127);
  tosa::MaxPool2dAttrs a{{2, 2}, {2, 2}, {0, 0, 0, 0}, tosa::NanMode::Propagate};
  g.output(g.op(Op::MaxPool2d, a, {y}, {1, 4, 4, 16}, DType::Int8, "y"));
  return g.graph();
}

/// Runs dir/small.ethosu on a random input with `--check dir/small.tosa`: bit-exact or fail.
void expectCheckPasses(const fs::path& dir, unsigned seed) {
  std::mt19937 rng(seed);
  ASSERT_TRUE(tosa::npy::writeTensor(dir / "x.npy", randomInt8({1, 8, 8, 16}, rng)));
  CommandResult run = runCli("run " + (dir / "small.ethosu").string() + " --input " + (dir / "x.npy").string() +
                             " --check " + (dir / "small.tosa").string());
  EXPECT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("check: PASS"), std::string::npos) << run.output;
}

TEST(EthosUCli, DisassemblyOfASmallModelMatchesTheGoldenText) {
  auto model = converter::ethosu::compile(smallModel(), {}, "small.tosa");
  ASSERT_TRUE(model) << model.error().message();
  auto loaded = runner::ethosu::loadModel(model->velaBinStream, "small.ethosu");
  ASSERT_TRUE(loaded) << loaded.error().message();
  const std::string text = ::openvgf::ethosu::disassemble(loaded->commands, loaded->accelerator.product);
  const fs::path golden = fs::path(OPENVGF_TEST_DATA) / "ethosu" / "small_conv_pool.txt";
  if (std::getenv("OPENVGF_UPDATE_GOLDEN")) {
    ASSERT_TRUE(writeFileAtomic(golden, text));
  }
  auto expected = readFile(golden);
  ASSERT_TRUE(expected) << expected.error().message();
  EXPECT_EQ(text, std::string(expected->begin(), expected->end()));
}

TEST(EthosUCli, InspectAndRunWithCheck) {
  const fs::path dir = tempDir();
  const tosa::Graph graph = smallModel();
  ASSERT_TRUE(tosa::writeGraph(graph, dir / "small.tosa"));
  auto model = converter::ethosu::compile(graph, {}, "small.tosa");
  ASSERT_TRUE(model);
  ASSERT_TRUE(writeFileAtomic(dir / "small.ethosu", model->velaBinStream));
  std::mt19937 rng(5);
  ASSERT_TRUE(tosa::npy::writeTensor(dir / "x.npy", randomInt8({1, 8, 8, 16}, rng)));

  CommandResult inspect = runCli("inspect " + (dir / "small.ethosu").string());
  EXPECT_EQ(inspect.exitCode, 0) << inspect.output;
  EXPECT_NE(inspect.output.find("accelerator: Ethos-U55 (ethos-u55-128) 128 MACs/cycle, 24 KB SHRAM"), std::string::npos) << inspect.output;
  EXPECT_NE(inspect.output.find("NPU_OP_CONV"), std::string::npos);
  EXPECT_NE(inspect.output.find("NPU_OP_POOL mode=MAX"), std::string::npos);
  CommandResult json = runCli("inspect --json " + (dir / "small.ethosu").string());
  EXPECT_EQ(json.exitCode, 0) << json.output;
  EXPECT_NE(json.output.find("\"format\": \"vela_bin_stream\""), std::string::npos) << json.output;

  CommandResult run = runCli("run " + (dir / "small.ethosu").string() + " --input " + (dir / "x.npy").string() +
                             " --output " + (dir / "y.npy").string() + " --check " + (dir / "small.tosa").string());
  EXPECT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("output 'y': bit-exact (256 elements)"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("check: PASS"), std::string::npos) << run.output;
  auto y = tosa::npy::readTensor(dir / "y.npy", DType::Int8);
  ASSERT_TRUE(y) << y.error().message();
  EXPECT_EQ(y->shape, (tosa::Shape{1, 4, 4, 16}));

  // A stream that disagrees with the graph: corrupt one weight value so the check fails.
  std::vector<std::uint8_t> bad = model->velaBinStream;
  // weight_data is the third block: find it and flip a bit in the middle of the weights.
  const std::size_t cmdPadded = (model->cop1.size() + 15) / 16 * 16;
  const std::size_t weightStart = 32 + 32 + cmdPadded + 32;
  bad[weightStart + 200] ^= 0x02;
  ASSERT_TRUE(writeFileAtomic(dir / "bad.ethosu", bad));
  CommandResult mismatch = runCli("run " + (dir / "bad.ethosu").string() + " --input " + (dir / "x.npy").string() +
                                  " --check " + (dir / "small.tosa").string());
  EXPECT_EQ(mismatch.exitCode, 1) << mismatch.output;
  EXPECT_NE(mismatch.output.find("check: FAIL"), std::string::npos) << mismatch.output;

  // Malformed inputs: clear messages, exit code 2.
  std::vector<std::uint8_t> truncated(model->velaBinStream.begin(), model->velaBinStream.begin() + 100);
  ASSERT_TRUE(writeFileAtomic(dir / "truncated.ethosu", truncated));
  CommandResult t = runCli("inspect " + (dir / "truncated.ethosu").string());
  EXPECT_EQ(t.exitCode, 2) << t.output;
  EXPECT_NE(t.output.find("truncated.ethosu: vela_bin_stream: block 1 'cmd_data': size"), std::string::npos) << t.output;

  std::vector<std::uint8_t> badOpcode = model->cop1;
  badOpcode[32] = 0x06;  // first command becomes 0x106, which does not exist
  badOpcode[33] = 0x01;
  ASSERT_TRUE(writeFileAtomic(dir / "opcode.bin", badOpcode));
  CommandResult o = runCli("inspect " + (dir / "opcode.bin").string());
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("command 0 (word 0): expected a known Ethos-U55 cmd0 opcode, got 0x106"), std::string::npos)
      << o.output;
  fs::remove_all(dir);
}

// The inputs of an Ethos-U stream bind like every other model's (openvgf::bindInputs): a
// value without a name takes the first input not named. The stream's own binder bound it by
// its position among the --input arguments, so `-i b=B -i A` was refused as "given twice".
TEST(EthosUCli, InputsBindByNameOrInTheGraphsOrder) {
  const fs::path dir = tempDir();
  GraphBuilder g;  // a - b with b a per-channel vector: the two inputs differ in size
  std::string a = g.input("a", {1, 4, 4, 8});
  std::string b = g.input("b", {1, 1, 1, 8});
  std::string ra = g.rescale(a, DType::Int32, {644245094}, {11}, 3, 0);
  std::string rb = g.rescale(b, DType::Int32, {1 << 30}, {11}, -9, 0);
  std::string diff = g.op(Op::Sub, std::monostate{}, {ra, rb}, {1, 4, 4, 8}, DType::Int32);
  g.output(g.rescale(diff, DType::Int8, {1717986918}, {50}, 0, 4));
  ASSERT_TRUE(tosa::writeGraph(g.graph(), dir / "sub.tosa"));
  auto model = converter::ethosu::compile(g.graph(), {}, "sub.tosa");
  ASSERT_TRUE(model) << model.error().message();
  const std::string stream = (dir / "sub.ethosu").string();
  ASSERT_TRUE(writeFileAtomic(stream, model->velaBinStream));
  std::mt19937 rng(9);
  const std::string fileA = (dir / "a.npy").string(), fileB = (dir / "b.npy").string();
  ASSERT_TRUE(tosa::npy::writeTensor(fileA, randomInt8({1, 4, 4, 8}, rng)));
  ASSERT_TRUE(tosa::npy::writeTensor(fileB, randomInt8({1, 1, 1, 8}, rng)));
  const std::string check = " --check " + (dir / "sub.tosa").string();
  for (const std::string& inputs : {" -i " + fileA + " -i " + fileB, " -i b=" + fileB + " -i " + fileA,
                                    " -i " + fileA + " -i b=" + fileB, " -i b=" + fileB + " -i a=" + fileA}) {
    CommandResult run = runCli("run " + stream + inputs + check);
    EXPECT_EQ(run.exitCode, 0) << inputs << "\n" << run.output;
    EXPECT_NE(run.output.find("check: PASS"), std::string::npos) << inputs << "\n" << run.output;
  }
  CommandResult twice = runCli("run " + stream + " -i b=" + fileB + " -i b=" + fileB + check);
  EXPECT_EQ(twice.exitCode, 2);
  EXPECT_NE(twice.output.find(stream + ": --input: input 'b': expected one value, got it twice"), std::string::npos)
      << twice.output;
  CommandResult count = runCli("run " + stream + " -i " + fileA);
  EXPECT_EQ(count.exitCode, 2);
  EXPECT_NE(count.output.find(stream + ": --input: expected 2 inputs ('#0', '#1'), got 1 (no value for '#1')"),
            std::string::npos)
      << count.output;
  CommandResult unnamed = runCli("run " + stream + " -i a=" + fileA + " -i " + fileB);
  EXPECT_EQ(unnamed.exitCode, 2);
  EXPECT_NE(unnamed.output.find("named inputs need --check MODEL.tosa"), std::string::npos) << unnamed.output;
  fs::remove_all(dir);
}

// Without --check the outputs keep the stream's NHWC shape: `run x.ethosu -o` wrote the
// (1,4,4,16) output as (4,4,16), every leading 1 dropped. --output-dir names them output_<i>.
TEST(EthosUCli, OutputsKeepTheirFullShapeWithoutCheck) {
  const fs::path dir = tempDir();
  const tosa::Graph graph = smallModel();
  auto model = converter::ethosu::compile(graph, {}, "small.tosa");
  ASSERT_TRUE(model) << model.error().message();
  ASSERT_TRUE(writeFileAtomic(dir / "small.ethosu", model->velaBinStream));
  std::mt19937 rng(12);
  const tosa::HostTensor x = randomInt8({1, 8, 8, 16}, rng);
  ASSERT_TRUE(tosa::npy::writeTensor(dir / "x.npy", x));
  for (const std::string& out : {" --output " + (dir / "y.npy").string(), " --output-dir " + (dir / "out").string()}) {
    CommandResult run = runCli("run " + (dir / "small.ethosu").string() + " --input " + (dir / "x.npy").string() + out);
    ASSERT_EQ(run.exitCode, 0) << run.output;
  }
  auto reference = tosa::reference::run(graph, std::vector<tosa::HostTensor>{x});
  ASSERT_TRUE(reference) << reference.error().message();
  for (const fs::path& file : {dir / "y.npy", dir / "out" / "output_0.npy"}) {
    auto y = tosa::npy::readTensor(file, DType::Int8);
    ASSERT_TRUE(y) << file << ": " << y.error().message();
    EXPECT_EQ(y->shape, (tosa::Shape{1, 4, 4, 16})) << file;
    EXPECT_EQ(y->bytes, reference->outputs[0].value.bytes) << file;
  }
  fs::remove_all(dir);
}

TEST(EthosUCli, ConvertToEthosUWritesTheFileAndPrintsStats) {
  const fs::path dir = tempDir();
  ASSERT_TRUE(tosa::writeGraph(smallModel(), dir / "small.tosa"));
  CommandResult convert = runCli("convert " + (dir / "small.tosa").string() + " --target ethos-u55-64 --stats -o " +
                                 (dir / "small.ethosu").string());
  ASSERT_EQ(convert.exitCode, 0) << convert.output;
  const std::string& out = convert.output;
  EXPECT_NE(out.find("target:            ethos-u55-64"), std::string::npos) << out;
  EXPECT_NE(out.find("npu operations:    2"), std::string::npos) << out;
  // 8x8x16 outputs x 3x3x16 taps.
  EXPECT_NE(out.find("MACs:              147456"), std::string::npos) << out;
  EXPECT_NE(out.find("scale bytes:       160"), std::string::npos) << out;
  // 147456 MACs / 64 per cycle + a 2x2 max pool over 4x4x16 outputs (256 x 4 / 8-element micro-blocks).
  EXPECT_NE(out.find("estimated cycles:  2432"), std::string::npos) << out;
  expectCheckPasses(dir, 6);
  // Bad input: an unknown target, an unsupported operator; nothing is written.
  CommandResult bad = runCli("convert " + (dir / "small.tosa").string() + " --target ethos-u55-100 -o " +
                             (dir / "other.ethosu").string());
  EXPECT_EQ(bad.exitCode, 2) << bad.output;
  EXPECT_FALSE(fs::exists(dir / "other.ethosu"));
  fs::remove_all(dir);
}

TEST(EthosUCli, TwoCoreTargetConvertsRunsAndDisassembles) {
  const fs::path dir = tempDir();
  ASSERT_TRUE(tosa::writeGraph(smallModel(), dir / "small.tosa"));
  CommandResult convert = runCli("convert " + (dir / "small.tosa").string() + " --target ethos-u65-512 -o " +
                                 (dir / "small.ethosu").string());
  ASSERT_EQ(convert.exitCode, 0) << convert.output;
  expectCheckPasses(dir, 8);
  CommandResult inspect = runCli("inspect " + (dir / "small.ethosu").string());
  EXPECT_EQ(inspect.exitCode, 0) << inspect.output;
  EXPECT_NE(inspect.output.find("Ethos-U65 (ethos-u65-512) 512 MACs/cycle, 96 KB SHRAM, 2 cores"), std::string::npos) << inspect.output;
  EXPECT_NE(inspect.output.find("NPU_SET_PARALLEL_MODE mode=DUAL_CORE_DEPTH"), std::string::npos) << inspect.output;
  EXPECT_NE(inspect.output.find("NPU_SET_WEIGHT1_BASE"), std::string::npos) << inspect.output;
  EXPECT_NE(inspect.output.find("NPU_SET_SCALE1_LENGTH 80"), std::string::npos) << inspect.output;
  fs::remove_all(dir);
}

TEST(EthosUCli, U85TargetConvertsRunsAndDisassembles) {
  const fs::path dir = tempDir();
  ASSERT_TRUE(tosa::writeGraph(smallModel(), dir / "small.tosa"));
  CommandResult convert = runCli("convert " + (dir / "small.tosa").string() + " --target ethos-u85-256 --stats -o " +
                                 (dir / "small.ethosu").string());
  ASSERT_EQ(convert.exitCode, 0) << convert.output;
  EXPECT_NE(convert.output.find("target:            ethos-u85-256"), std::string::npos) << convert.output;
  EXPECT_NE(convert.output.find("npu operations:    2"), std::string::npos) << convert.output;
  EXPECT_NE(convert.output.find("estimated cycles:"), std::string::npos) << convert.output;
  expectCheckPasses(dir, 85);
  CommandResult inspect = runCli("inspect " + (dir / "small.ethosu").string());
  EXPECT_EQ(inspect.exitCode, 0) << inspect.output;
  EXPECT_NE(inspect.output.find("Ethos-U85 (ethos-u85-256) 256 MACs/cycle (CONFIG 0x20000118"), std::string::npos)
      << inspect.output;
  EXPECT_NE(inspect.output.find("NPU_SET_WEIGHT_FORMAT format=SWD"), std::string::npos) << inspect.output;
  EXPECT_NE(inspect.output.find("NPU_SET_ACC_FORMAT format=I32 input=RESET output=ENABLE microblock="), std::string::npos)
      << inspect.output;
  EXPECT_EQ(inspect.output.find("UNKNOWN"), std::string::npos) << inspect.output;
  fs::remove_all(dir);
}

// Item 3 of issue 17: the compiler verifies the graph before lowering it, so malformed graphs
// (which used to segfault) and graphs too large for the scratch arena exit 2 naming the file,
// and nothing is written.
TEST(EthosUCli, MalformedOrOversizedGraphsAreRefusedBeforeLowering) {
  const fs::path dir = tempDir();
  std::vector<std::pair<std::string, tosa::Graph>> cases;
  {
    GraphBuilder g;
    g.input("x", {1, 4, 4, 16});
    g.output(g.op(Op::Reshape, std::monostate{}, {}, {1, 256}, DType::Int8, "y"));
    cases.emplace_back("reshape_without_inputs", g.graph());
  }
  {
    GraphBuilder g;
    const std::string y = g.clamp(g.input("x", {1, 4, 4, 16}), -128, 127);
    g.output(y);
    g.block().operators.back().outputs.clear();
    cases.emplace_back("op_without_outputs", g.graph());
  }
  {
    GraphBuilder g;
    g.output(g.clamp(g.input("x", tosa::Shape(16, 1)), -128, 127));
    cases.emplace_back("rank16", g.graph());
  }
  {
    GraphBuilder g;  // 512 Mi int8 elements: twice the scratch arena's limit
    g.output(g.clamp(g.input("x", {1, 16384, 16384, 2}), -128, 127));
    cases.emplace_back("oversized", g.graph());
  }
  for (const auto& [name, graph] : cases) {
    const fs::path model = dir / (name + ".tosa");
    ASSERT_TRUE(tosa::writeGraph(graph, model)) << name;
    const fs::path out = dir / (name + ".ethosu");
    CommandResult r = runCli("convert " + model.string() + " --target ethos-u55-128 -o " + out.string());
    EXPECT_EQ(r.exitCode, 2) << name << ": " << r.output;
    EXPECT_NE(r.output.find(model.string()), std::string::npos) << name << ": " << r.output;
    EXPECT_FALSE(fs::exists(out)) << name;
    if (name == "oversized") {
      EXPECT_NE(r.output.find("scratch arena's limit"), std::string::npos) << r.output;
    }
  }
  fs::remove_all(dir);
}

// Sizes a vela_bin_stream claims are checked before anything is allocated or run: the scratch
// arena (a 624-byte file used to grow to 4.2 GB), I/O tensors whose byte count overflows 64
// bits, and commands that reach past the arena. Each exits 2 naming the file.
TEST(EthosUCli, StreamClaimsBeyondTheLimitsExitTwoNamingTheFile) {
  const fs::path dir = tempDir();
  auto model = converter::ethosu::compile(smallModel(), {}, "small.tosa");
  ASSERT_TRUE(model) << model.error().message();
  auto good = ::openvgf::ethosu::parseVelaBinStream(model->velaBinStream);
  ASSERT_TRUE(good) << good.error().message();
  std::mt19937 rng(9);
  ASSERT_TRUE(tosa::npy::writeTensor(dir / "x.npy", randomInt8({1, 8, 8, 16}, rng)));
  struct Case {
    std::string name, expected;
    std::vector<std::uint8_t> cop1;
    std::uint32_t scratchSize;
    std::vector<::openvgf::ethosu::VelaIo> inputs, outputs;
  };
  const Case base{"", "", model->cop1, *good->scratchSize, good->inputs, good->outputs};
  std::vector<Case> cases;
  cases.push_back(base);
  cases.back().name = "scratch";
  cases.back().expected = "scratch_size: 4294967295 bytes exceeds the simulator's limit of 268435456 bytes";
  cases.back().scratchSize = 0xFFFFFFFF;
  cases.push_back(base);
  cases.back().name = "io_overflow";
  cases.back().expected = "expected at most 268435456 bytes (the scratch arena's limit)";
  cases.back().inputs[0].shape = {65536, 65536, 65536, 65536, 1, 1};  // 2^64 bytes: 0 when wrapped
  cases.push_back(base);
  cases.back().name = "outside";
  cases.back().expected = "expected within the scratch arena";
  // Room for the input only: the convolution's output lands past the end of the arena.
  cases.back().scratchSize = static_cast<std::uint32_t>(good->inputs[0].offset + 8 * 8 * 16);
  // Zero strides keep every access of a 65536 x 65536 output in bounds: 2^44 multiply-
  // accumulates, which ran for hours before the simulator's work limit.
  cases.push_back(base);
  cases.back().name = "work";
  cases.back().expected = "the simulator's work limit";
  {
    auto loaded = runner::ethosu::loadModel(model->velaBinStream, "small.ethosu");
    ASSERT_TRUE(loaded) << loaded.error().message();
    ::openvgf::ethosu::Cop1Payload payload = loaded->payload;
    for (const ::openvgf::ethosu::Command& command : loaded->commands) {
      if (::openvgf::ethosu::isOperation(command)) break;
      const std::string_view name = ::openvgf::ethosu::commandName(loaded->accelerator.product, command.code, command.isCmd1);
      const std::size_t at = command.wordOffset * 4;
      if (name.find("STRIDE_") != std::string::npos && name.find("KERNEL") == std::string::npos) {
        std::fill_n(payload.commandStream.begin() + static_cast<std::ptrdiff_t>(at + 4), 4, 0);
      } else if (name.starts_with("NPU_SET_OFM_HEIGHT") || name.starts_with("NPU_SET_OFM_WIDTH") ||
                 name.starts_with("NPU_SET_IFM_HEIGHT") || name.starts_with("NPU_SET_IFM_WIDTH")) {
        payload.commandStream[at + 2] = payload.commandStream[at + 3] = 0xFF;
      }
    }
    auto cop1 = ::openvgf::ethosu::writeCop1(payload);
    ASSERT_TRUE(cop1) << cop1.error().message();
    cases.back().cop1 = *cop1;
  }
  for (const Case& c : cases) {
    const fs::path file = dir / (c.name + ".ethosu");
    auto stream = ::openvgf::ethosu::makeVelaBinStream(c.cop1, model->weightData, c.scratchSize, c.inputs, c.outputs);
    ASSERT_TRUE(stream) << stream.error().message();
    ASSERT_TRUE(writeFileAtomic(file, *stream));
    CommandResult r = runCli("run " + file.string() + " --input " + (dir / "x.npy").string() + " --output " +
                             (dir / (c.name + ".npy")).string());
    EXPECT_EQ(r.exitCode, 2) << c.name << ": " << r.output;
    EXPECT_NE(r.output.find(file.string()), std::string::npos) << c.name << ": " << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.name << ": " << r.output;
    EXPECT_FALSE(fs::exists(dir / (c.name + ".npy"))) << c.name;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace openvgf::ethosu_test
