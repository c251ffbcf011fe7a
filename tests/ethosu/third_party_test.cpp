// SPDX-License-Identifier: Apache-2.0
// Streams compiled by Arm's Vela, not by openvgf, with the inputs and outputs recorded next to
// them (tests/data/ethosu/kws_*, origin in third_party_notes.md): three ML-zoo keyword-spotting
// networks (CNN, fully connected DNN, depthwise-separable CNN) for ethos-u55-128/-256 and
// ethos-u85-128/-256/-512/-1024/-2048. Each .tflite is repackaged as a vela_bin_stream by
// tflite_to_ethosu.py; `openvgf inspect` must name every command and `openvgf run` must
// reproduce the recorded output byte for byte, both for the stream and for a .pte that carries
// it as its EthosUBackend delegate. This checks the simulator against a compiler that is
// independent of openvgf's.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>

#include "common/file_io.h"
#include "tests/pte/pte_writer.h"
#include "tests/ethosu/vela_data.h"
#include "tests/support/cli_runner.h"
#include "tosa/npy.h"

namespace openvgf::ethosu_test {
namespace {

namespace fs = std::filesystem;
using openvgf::testing::CommandResult;
using openvgf::testing::runCli;
using openvgf::testing::ScratchDir;

struct VelaCase {
  const char* network;  // folder under tests/data/ethosu
  const char* folder;
  const char* model;
  const char* accelerator;  // as `openvgf inspect` names it
  std::int64_t inputSize;   // int8 elements of the one (1, N) input
};

const VelaCase kCases[] = {
    {"kws_cnn_small_int8", "u55", "model_u55_128", "ethos-u55-128", 490},
    {"kws_cnn_small_int8", "u55", "model_u55_256", "ethos-u55-256", 490},
    {"kws_cnn_small_int8", "u85", "model_u85_128", "ethos-u85-128", 490},
    {"kws_cnn_small_int8", "u85", "model_u85_256", "ethos-u85-256", 490},
    {"kws_cnn_small_int8", "u85", "model_u85_2048", "ethos-u85-2048", 490},
    {"kws_dnn_medium_int8", "u85", "model_u85_512", "ethos-u85-512", 250},
    {"kws_ds_cnn_large_clustered_int8", "u85", "model_u85_1024", "ethos-u85-1024", 490},
};

std::vector<std::uint8_t> readOrFail(const fs::path& path) {
  auto bytes = readFile(path);
  EXPECT_TRUE(bytes) << bytes.error().message();
  return bytes ? *bytes : std::vector<std::uint8_t>{};
}

class VelaStreams : public ::testing::TestWithParam<VelaCase> {};

TEST_P(VelaStreams, InspectNamesEveryCommandAndRunReproducesTheRecordedOutput) {
  const VelaCase& c = GetParam();
  const fs::path data = velaDataFolder(c.network, c.folder);
  ScratchDir dir(std::string("vela_") + c.network + "_" + c.model);
  const std::string stream = repackageVelaModel(c.network, c.folder, c.model, dir.path()).string();
  ASSERT_FALSE(stream.empty()) << c.model;

  CommandResult inspect = runCli("inspect " + stream);
  ASSERT_EQ(inspect.exitCode, 0) << inspect.output;
  EXPECT_NE(inspect.output.find(std::string("(") + c.accelerator + ")"), std::string::npos) << inspect.output;
  // Every command named: the disassembler prints UNKNOWN_<opcode> for a code it cannot name.
  EXPECT_EQ(inspect.output.find("UNKNOWN"), std::string::npos) << inspect.output;
  EXPECT_EQ(inspect.output.find("unknown"), std::string::npos) << inspect.output;
  EXPECT_NE(inspect.output.find("NPU_OP_STOP"), std::string::npos);

  tosa::HostTensor input(tosa::DType::Int8, {1, c.inputSize});
  input.bytes = readOrFail(data / "input.bin");
  ASSERT_EQ(input.bytes.size(), static_cast<std::size_t>(c.inputSize));
  ASSERT_TRUE(tosa::npy::writeTensor(dir / "input.npy", input));
  CommandResult run = runCli("run " + stream + " -i " + (dir / "input.npy") + " -o " + (dir / "output.npy"));
  ASSERT_EQ(run.exitCode, 0) << run.output;
  auto output = tosa::npy::readTensor(dir / "output.npy", tosa::DType::Int8);
  ASSERT_TRUE(output) << output.error().message();
  EXPECT_EQ(output->bytes, readOrFail(data / "output.bin"));

  // The same stream as the EthosUBackend delegate of an ExecuTorch program.
  pte::testing::TestProgram spec;
  spec.payloads = {readOrFail(stream)};
  spec.plans = {{"forward", {{"EthosUBackend", 0, {{"output_format", "vela"}}}}}};
  ASSERT_TRUE(writeFileAtomic(dir / "program.pte", pte::testing::writeProgram(spec).bytes));
  CommandResult pteRun = runCli("run " + (dir / "program.pte") + " -i " + (dir / "input.npy") + " -o " + (dir / "pte.npy"));
  ASSERT_EQ(pteRun.exitCode, 0) << pteRun.output;
  EXPECT_NE(pteRun.output.find("program.pte: execution_plan[0] 'forward' delegates[0] (EthosUBackend): ran"),
            std::string::npos) << pteRun.output;
  auto pteOutput = tosa::npy::readTensor(dir / "pte.npy", tosa::DType::Int8);
  ASSERT_TRUE(pteOutput) << pteOutput.error().message();
  EXPECT_EQ(pteOutput->bytes, readOrFail(data / "output.bin"));
  CommandResult pteInspect = runCli("inspect " + (dir / "program.pte"));
  EXPECT_EQ(pteInspect.exitCode, 0) << pteInspect.output;
  EXPECT_NE(pteInspect.output.find(c.accelerator), std::string::npos) << pteInspect.output;
}

INSTANTIATE_TEST_SUITE_P(KeywordSpotting, VelaStreams, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<VelaCase>& p) {
                           std::string name = std::string(p.param.network) + "_" + p.param.model;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// The recorded outputs above are softmax scores, mostly saturated at -128, so an arithmetic slip
// can leave them unchanged. Vela lowers one network to the same integer arithmetic for every
// accelerator (TFLite's int8 semantics), so the five CNN streams, which the simulator runs
// through different paths (U55 vs U85 weight and scale formats, one to four cores), must agree
// on every output byte for any input.
TEST(VelaAccelerators, EveryAcceleratorComputesTheSameOutputsForRandomInputs) {
  ScratchDir dir("vela_agree");
  const std::pair<const char*, const char*> streams[] = {
      {"u55", "model_u55_128"}, {"u55", "model_u55_256"}, {"u85", "model_u85_128"},
      {"u85", "model_u85_256"}, {"u85", "model_u85_2048"}};
  std::vector<std::string> files;
  for (const auto& [folder, model] : streams) {
    files.push_back(repackageVelaModel("kws_cnn_small_int8", folder, model, dir.path()).string());
    ASSERT_FALSE(files.back().empty()) << model;
  }
  std::mt19937 rng(490);
  std::set<std::vector<std::uint8_t>> distinct;
  for (int sample = 0; sample < 6; ++sample) {
    tosa::HostTensor input(tosa::DType::Int8, {1, 490});
    input.bytes.resize(490);
    for (std::uint8_t& b : input.bytes) b = static_cast<std::uint8_t>(rng());
    ASSERT_TRUE(tosa::npy::writeTensor(dir / "x.npy", input));
    std::vector<std::uint8_t> first;
    for (const std::string& file : files) {
      CommandResult run = runCli("run " + file + " -i " + (dir / "x.npy") + " -o " + (dir / "y.npy"));
      ASSERT_EQ(run.exitCode, 0) << run.output;
      auto output = tosa::npy::readTensor(dir / "y.npy", tosa::DType::Int8);
      ASSERT_TRUE(output) << output.error().message();
      if (first.empty()) first = output->bytes;
      EXPECT_EQ(output->bytes, first) << file << ", input " << sample;
    }
    distinct.insert(first);
  }
  EXPECT_GT(distinct.size(), 3u);  // the inputs really lead to different scores
}

}  // namespace
}  // namespace openvgf::ethosu_test
