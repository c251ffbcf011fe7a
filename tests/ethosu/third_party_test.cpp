// SPDX-License-Identifier: Apache-2.0
// Streams compiled by Arm's Vela, not by openvgf, with the inputs and outputs recorded next to
// them (tests/data/ethosu/kws_cnn_small_int8, origin in third_party_notes.md): the ML-zoo
// keyword-spotting CNN for ethos-u55-128, ethos-u55-256 and ethos-u85-256. Each .tflite is
// repackaged as a vela_bin_stream by tflite_to_ethosu.py; `openvgf inspect` must name every
// command and `openvgf run` must reproduce the recorded output byte for byte, both for the
// stream and for a .pte that carries it as its EthosUBackend delegate. This checks the
// simulator against a compiler that is independent of openvgf's.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/file_io.h"
#include "tests/pte/pte_writer.h"
#include "tests/support/cli_runner.h"
#include "tosa/npy.h"

namespace openvgf::ethosu_test {
namespace {

namespace fs = std::filesystem;
using openvgf::testing::CommandResult;
using openvgf::testing::runCli;
using openvgf::testing::ScratchDir;

struct VelaCase {
  const char* folder;
  const char* model;
  const char* accelerator;  // as `openvgf inspect` names it
};

const VelaCase kCases[] = {
    {"u55", "model_u55_128", "ethos-u55-128"},
    {"u55", "model_u55_256", "ethos-u55-256"},
    {"u85", "model_u85_256", "ethos-u85-256"},
};

std::vector<std::uint8_t> readOrFail(const fs::path& path) {
  auto bytes = readFile(path);
  EXPECT_TRUE(bytes) << bytes.error().message();
  return bytes ? *bytes : std::vector<std::uint8_t>{};
}

class VelaStreams : public ::testing::TestWithParam<VelaCase> {};

TEST_P(VelaStreams, InspectNamesEveryCommandAndRunReproducesTheRecordedOutput) {
  const VelaCase& c = GetParam();
  const fs::path data = fs::path(OPENVGF_TEST_DATA) / "ethosu" / "kws_cnn_small_int8" / c.folder;
  const fs::path script = fs::path(OPENVGF_TEST_DATA).parent_path() / "ethosu" / "tflite_to_ethosu.py";
  ScratchDir dir(std::string("vela_") + c.model);
  const std::string stream = dir / (std::string(c.model) + ".ethosu");
  const std::string convert =
      std::string(OPENVGF_TEST_PYTHON) + " " + script.string() + " " + (data / (std::string(c.model) + ".tflite")).string() +
      " " + stream;
  ASSERT_EQ(std::system(convert.c_str()), 0) << convert;

  CommandResult inspect = runCli("inspect " + stream);
  ASSERT_EQ(inspect.exitCode, 0) << inspect.output;
  EXPECT_NE(inspect.output.find(std::string("(") + c.accelerator + ")"), std::string::npos) << inspect.output;
  EXPECT_EQ(inspect.output.find("UNKNOWN"), std::string::npos) << inspect.output;
  EXPECT_NE(inspect.output.find("NPU_OP_STOP"), std::string::npos);

  tosa::HostTensor input(tosa::DType::Int8, {1, 490});
  input.bytes = readOrFail(data / "input.bin");
  ASSERT_EQ(input.bytes.size(), 490u);
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

INSTANTIATE_TEST_SUITE_P(KeywordSpottingCnnSmall, VelaStreams, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<VelaCase>& p) { return std::string(p.param.model); });

}  // namespace
}  // namespace openvgf::ethosu_test
