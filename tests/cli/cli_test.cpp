// SPDX-License-Identifier: Apache-2.0
// The `openvgf` command as a new user meets it (issue 17 item 6): global flags anywhere, -q
// quiet, complete --target and --passes messages, unknown commands and foreign files named,
// .tosa / .pte models run and benched directly, the zoo -> bench steps of docs/performance.md, EXT-VARIABLE
// `state:` inputs with and without --check, --dump-constant in TOSA layout. Runs the binary on
// lavapipe with --validate where a device is used; expected values are computed here.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/file_io.h"
#include "tests/pte/pte_writer.h"
#include "tests/support/cli_runner.h"
#include "tosa/builder.h"
#include "tosa/npy.h"

namespace openvgf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::CommandResult;
using testing::runCli;
namespace fs = std::filesystem;

const std::string kAdd = std::string(OPENVGF_TEST_DATA) + "/tosa/test_add_1x4x4x4_f32";
const std::string kConv = std::string(OPENVGF_TEST_DATA) + "/tosa/test_conv2d_1x1_1x32x32x8_f32_st11_padSAME_dilat11";

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("openvgf-cli-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "cache");
    env_ = "XDG_CACHE_HOME=" + (dir_ / "cache").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string addInputs() const { return " -i " + kAdd + "/placeholder_0.npy -i " + kAdd + "/placeholder_1.npy"; }
  CommandResult run(const std::string& arguments) const { return runCli(arguments, env_); }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return path(name);
  }

  // acc += x; y = acc, with acc an int32 variable starting at 10, 20, 30.
  std::string writeAccumulator() const {
    tosa::HostTensor init(tosa::DType::Int32, {3});
    for (int i = 0; i < 3; ++i) init.as<std::int32_t>()[i] = 10 * (i + 1);
    tosa::Builder b;
    tosa::Value acc = b.variable("acc", init);
    tosa::Value sum = b.add(b.variableRead(acc, "old"), b.input("x", tosa::DType::Int32, {3}), "y");
    b.variableWrite(acc, sum);
    b.output(sum);
    EXPECT_TRUE(b.write(dir_ / "acc.tosa"));
    return path("acc.tosa");
  }

  std::string writeInts(const std::string& name, std::vector<std::int32_t> values) const {
    tosa::HostTensor t(tosa::DType::Int32, {static_cast<std::int64_t>(values.size())});
    for (std::size_t i = 0; i < values.size(); ++i) t.as<std::int32_t>()[i] = values[i];
    EXPECT_TRUE(tosa::npy::writeTensor(dir_ / name, t));
    return path(name);
  }

  std::vector<std::int32_t> readInts(const std::string& file) const {
    Result<tosa::HostTensor> t = tosa::npy::readTensor(file, tosa::DType::Int32);
    EXPECT_TRUE(t) << t.error().message();
    if (!t) return {};
    return {t->as<std::int32_t>().begin(), t->as<std::int32_t>().end()};
  }

  fs::path dir_;
  std::string env_;
};

TEST_F(Cli, GlobalFlagsAreAcceptedAfterTheSubcommand) {
  const std::string model = kAdd + "/model.tosa";
  CommandResult quiet = run("inspect " + model + " -q");
  EXPECT_EQ(quiet.exitCode, 0) << quiet.output;
  CommandResult verbose = run("inspect " + model + " --verbose");
  EXPECT_EQ(verbose.exitCode, 0) << verbose.output;
  EXPECT_THAT(verbose.output, HasSubstr("TosaInput_0"));
  CommandResult mixed = run("-v reference " + model + addInputs() + " -q");
  EXPECT_EQ(mixed.exitCode, 0) << mixed.output;
}

TEST_F(Cli, QuietPrintsOnlyWhatWasAskedFor) {
  const std::string model = kAdd + "/model.tosa";
  CommandResult loud = run("reference " + model + addInputs() + " -o " + path("r.npy"));
  ASSERT_EQ(loud.exitCode, 0) << loud.output;
  EXPECT_THAT(loud.output, HasSubstr("TosaOutput_0 FP32 [1,4,4,4]"));
  CommandResult reference = run("-q reference " + model + addInputs() + " -o " + path("r.npy"));
  EXPECT_EQ(reference.exitCode, 0);
  EXPECT_EQ(reference.output, "");
  const std::string everything = addInputs() + " -o " + path("y.npy") + " --repeat 3 --profile " + path("t.json") +
                                 " --check " + model + " --validate";
  CommandResult loudRun = run("run " + model + everything);
  ASSERT_EQ(loudRun.exitCode, 0) << loudRun.output;
  EXPECT_THAT(loudRun.output, HasSubstr("check: PASS"));
  EXPECT_THAT(loudRun.output, HasSubstr("3 runs on"));
  EXPECT_THAT(loudRun.output, HasSubstr("total GPU time"));
  fs::remove(path("y.npy"));
  CommandResult quietRun = run("run " + model + everything + " -q");
  EXPECT_EQ(quietRun.exitCode, 0);
  EXPECT_EQ(quietRun.output, "");
  EXPECT_TRUE(fs::exists(path("y.npy")));
  EXPECT_TRUE(fs::exists(path("t.json")));
  // What was asked for is still printed.
  CommandResult stats = run("-q convert " + model + " -o " + path("a.vgf") + " --stats");
  EXPECT_EQ(stats.exitCode, 0);
  EXPECT_THAT(stats.output, HasSubstr("kernels:"));
}

// `run --pipeline-stats` prints the driver's statistics of each pipeline where `devices` says
// the device has them, and otherwise refuses naming the extension it lacks (lavapipe in
// Debian 12 has none), before running anything.
TEST_F(Cli, PipelineStatisticsWhereTheDeviceReportsThem) {
  CommandResult devices = run("devices");
  ASSERT_EQ(devices.exitCode, 0) << devices.output;
  ASSERT_THAT(devices.output, HasSubstr("pipeline statistics (run --pipeline-stats"));
  const bool reported = devices.output.find("VK_KHR_pipeline_executable_properties): yes") != std::string::npos;
  CommandResult r = run("run " + kConv + "/model.tosa -i " + kConv + "/placeholder_0.npy -o " + path("y.npy") +
                        " --pipeline-stats --validate");
  if (reported) {
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("pipeline "));
    EXPECT_THAT(r.output, HasSubstr("CONV2D"));
    EXPECT_TRUE(fs::exists(path("y.npy")));
  } else {
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr("pipeline statistics need VK_KHR_pipeline_executable_properties, which the "
                                    "driver does not offer"));
    EXPECT_FALSE(fs::exists(path("y.npy")));
  }
}

TEST_F(Cli, TargetAndPassesErrorsListTheChoices) {
  const std::string model = kAdd + "/model.tosa";
  CommandResult target = run("convert " + model + " -o " + path("x.vgf") + " --target fastest");
  EXPECT_EQ(target.exitCode, 2);
  EXPECT_THAT(target.output, HasSubstr("--target: expected one of portable, native, ethos-u55-32, ethos-u55-64, "
                                       "ethos-u55-128, ethos-u55-256, ethos-u65-256, ethos-u65-512, ethos-u85-128, "
                                       "ethos-u85-256, ethos-u85-512, ethos-u85-1024, ethos-u85-2048, got 'fastest'"));
  CommandResult passes = run("convert " + model + " -o " + path("x.vgf") + " --passes \"\"");
  EXPECT_EQ(passes.exitCode, 2);
  EXPECT_THAT(passes.output, HasSubstr("--passes: expected all, none or a comma-separated list of fold-constants"));
  EXPECT_THAT(passes.output, HasSubstr("got an empty value"));
  EXPECT_FALSE(fs::exists(path("x.vgf")));
  CommandResult runTarget = run("run " + model + addInputs() + " --target ethos-u55-128");
  EXPECT_EQ(runTarget.exitCode, 2);
  EXPECT_THAT(runTarget.output, HasSubstr("model.tosa: target: expected portable or native"));
}

TEST_F(Cli, UnknownCommandIsNamed) {
  CommandResult r = run("frobnicate " + kAdd + "/model.tosa");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_THAT(r.output, HasSubstr("unknown command 'frobnicate': expected one of convert, inspect, reference"));
  EXPECT_THAT(r.output, HasSubstr("devices"));
}

TEST_F(Cli, ConvertSaysWhatToDoWithProgramsAndVgfs) {
  ASSERT_EQ(run("convert " + kAdd + "/model.tosa -o " + path("add.vgf")).exitCode, 0);
  Result<std::vector<std::uint8_t>> vgf = readFile(path("add.vgf"));
  ASSERT_TRUE(vgf);
  pte::testing::TestProgram spec;
  spec.payloads.push_back(*vgf);
  spec.plans.push_back(pte::testing::oneDelegatePlan("forward", {{1, 4, 4, 1}, {1, 4, 4, 4}}, {{1, 4, 4, 4}}));
  const std::vector<std::uint8_t> pte = pte::testing::writeProgram(spec).bytes;
  ASSERT_TRUE(writeFileAtomic(path("add.pte"), pte));

  CommandResult fromPte = run("convert " + path("add.pte") + " -o " + path("x.vgf"));
  EXPECT_EQ(fromPte.exitCode, 2);
  EXPECT_THAT(fromPte.output, HasSubstr("add.pte: expected a TOSA flatbuffer, got an ExecuTorch program: `openvgf "
                                        "extract " + path("add.pte") + " -o DIR`"));
  EXPECT_THAT(fromPte.output, HasSubstr("`openvgf run " + path("add.pte") + "`"));
  CommandResult fromVgf = run("convert " + path("add.vgf") + " -o " + path("x.vgf"));
  EXPECT_EQ(fromVgf.exitCode, 2);
  EXPECT_THAT(fromVgf.output, HasSubstr("got a VGF file, which is already converted: run it with `openvgf run"));
  EXPECT_FALSE(fs::exists(path("x.vgf")));

  // And the program runs as the message says.
  CommandResult ran = run("run " + path("add.pte") + addInputs() + " -o " + path("y.npy") + " --validate");
  EXPECT_EQ(ran.exitCode, 0) << ran.output;
  Result<tosa::HostTensor> y = tosa::npy::readTensor(path("y.npy"), tosa::DType::Fp32);
  Result<tosa::HostTensor> want = tosa::npy::readTensor(kAdd + "/tf_result.npy", tosa::DType::Fp32);
  ASSERT_TRUE(y && want);
  EXPECT_EQ(y->bytes, want->bytes);
}

TEST_F(Cli, ForeignFilesAreNamedForWhatTheyLookLike) {
  const std::string onnx = write("model.onnx", std::string("\x08\x07\x12\x07pytorch", 10));
  const std::string tflite = write("model.tflite", std::string("\x1c\0\0\0TFL3\0\0\0\0", 12));
  const std::string torch = write("model.pt", std::string("PK\x03\x04", 4) + std::string(22, '\0') +
                                                 std::string("\x10\0\0\0", 4) + "archive/data.pkl");
  const std::string text = write("notes.txt", "just some text");
  const std::string input = " -i " + kAdd + "/placeholder_0.npy";
  struct Case {
    std::string file;
    std::string looksLike;
  };
  for (const Case& c : {Case{onnx, "an ONNX model"}, Case{tflite, "a TensorFlow Lite model"},
                        Case{torch, "a PyTorch model"}, Case{text, "a file of unknown format"}}) {
    CommandResult r = run("run " + c.file + input);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.file + ": cannot run " + c.looksLike + ": expected a TOSA flatbuffer, a VGF, "
                                    "an ExecuTorch program or an Ethos-U command stream"));
    CommandResult inspected = run("inspect " + c.file);
    EXPECT_EQ(inspected.exitCode, 2);
    EXPECT_THAT(inspected.output, HasSubstr(c.file + ": unrecognised file (" + c.looksLike + ")"));
    CommandResult converted = run("convert " + c.file + " -o " + path("x.vgf"));
    EXPECT_EQ(converted.exitCode, 2);
    EXPECT_THAT(converted.output, HasSubstr("got " + c.looksLike));
  }
}

#ifdef OPENVGF_ZOO
TEST_F(Cli, ReadmeZooToBenchSteps) {
  // docs/performance.md: openvgf-zoo writes <out>/<model>.tosa (<model>_b<N>.tosa with --batch N) and
  // `openvgf bench` takes the .tosa directly; here with a model small enough for lavapipe.
  CommandResult zoo = testing::runCommand(std::string(OPENVGF_ZOO) + " --out " + path("zoo") +
                                         " --models conv3x3_7x7x512 --batch 2 --no-weights --no-inputs");
  ASSERT_EQ(zoo.exitCode, 0) << zoo.output;
  ASSERT_TRUE(fs::exists(path("zoo/conv3x3_7x7x512_b2.tosa"))) << zoo.output;
  CommandResult bench = run("bench " + path("zoo/conv3x3_7x7x512_b2.tosa") +
                            " --warmup 0 --iterations 2 --gpu-iterations 1 --cache-dir " + path("bench-cache"));
  ASSERT_EQ(bench.exitCode, 0) << bench.output;
  // "cold" is named for what it is, and Mesa's shader cache was kept in the bench's folder.
  EXPECT_THAT(bench.output, HasSubstr("ms cold (empty caches)"));
  EXPECT_THAT(bench.output, HasSubstr("ms warm (caches from disk)"));
  EXPECT_TRUE(fs::exists(path("bench-cache/driver"))) << "the driver's shader cache did not go to the bench folder";

  // --start: whole `openvgf run` processes, cold in a new cache folder of their own (not this
  // user's, which the measurement above filled and which stays as it was), then warm from it.
  auto entries = [&] {
    std::set<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(path("cache"))) names.insert(e.path().string());
    return names;
  };
  const std::set<std::string> before = entries();
  CommandResult start = run("bench " + path("zoo/conv3x3_7x7x512_b2.tosa") +
                            " --warmup 0 --iterations 1 --gpu-iterations 1 --start 1 --json");
  ASSERT_EQ(start.exitCode, 0) << start.output;
  std::smatch cold, warm;
  ASSERT_TRUE(std::regex_search(start.output, cold, std::regex("\"start_cold_s\": ([0-9.]+)"))) << start.output;
  ASSERT_TRUE(std::regex_search(start.output, warm, std::regex("\"start_warm_s\": ([0-9.]+)"))) << start.output;
  // The cold process converts the .tosa and compiles every pipeline; the warm one finds both cached.
  EXPECT_GT(std::stod(cold[1]), std::stod(warm[1])) << start.output;
  EXPECT_GT(std::stod(warm[1]), 0.0);
  EXPECT_EQ(entries(), before) << "a --start process used this user's cache folder";
  CommandResult text = run("bench " + path("zoo/conv3x3_7x7x512_b2.tosa") + " --warmup 0 --iterations 1 --start 1");
  ASSERT_EQ(text.exitCode, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr(" s cold (empty openvgf and driver caches), "));
  EXPECT_THAT(text.output, HasSubstr(" s warm (the caches of the cold run)"));
}
#endif

TEST_F(Cli, StateInputsDefaultToTheInitialValueAndCheckJudgesThem) {
  const std::string tosaModel = writeAccumulator();
  ASSERT_EQ(run("convert " + tosaModel + " -o " + path("acc.vgf")).exitCode, 0);
  const std::string x = writeInts("x.npy", {1, 2, 3});

  CommandResult fromTosa = run("run " + tosaModel + " -i " + x + " --output-dir " + path("out") + " --validate");
  ASSERT_EQ(fromTosa.exitCode, 0) << fromTosa.output;
  EXPECT_EQ(readInts(path("out/y.npy")), (std::vector<std::int32_t>{11, 22, 33}));
  EXPECT_EQ(readInts(path("out/state_acc.npy")), (std::vector<std::int32_t>{11, 22, 33}));

  CommandResult noState = run("run " + path("acc.vgf") + " -i " + x + " --output-dir " + path("none"));
  EXPECT_EQ(noState.exitCode, 2);
  EXPECT_THAT(noState.output, HasSubstr("acc.vgf: --input: expected 2 inputs ('x', 'state:acc'), got 1 (no value for "
                                        "'state:acc'); `state:` inputs start from the variables' initial values when "
                                        "the model is a .tosa or --check names the .tosa"));
  EXPECT_FALSE(fs::exists(path("none")));

  CommandResult checked = run("run " + path("acc.vgf") + " -i " + x + " --check " + tosaModel + " --validate");
  EXPECT_EQ(checked.exitCode, 0) << checked.output;
  EXPECT_THAT(checked.output, HasSubstr("y: PASS"));
  EXPECT_THAT(checked.output, HasSubstr("state:acc: PASS"));
  EXPECT_THAT(checked.output, HasSubstr("check: PASS"));

  const std::string state = writeInts("s.npy", {100, 200, 300});
  CommandResult fed = run("run " + path("acc.vgf") + " -i x=" + x + " -i state:acc=" + state + " --check " + tosaModel +
                          " --output-dir " + path("fed") + " --validate");
  EXPECT_EQ(fed.exitCode, 0) << fed.output;
  EXPECT_THAT(fed.output, HasSubstr("check: PASS"));
  EXPECT_EQ(readInts(path("fed/y.npy")), (std::vector<std::int32_t>{101, 202, 303}));
}

// Two `state:` inputs and one file too few: `run` used to give the first its initial value
// and bind the unnamed file to the second by position (the API refused the same call). Now
// both front ends bind through openvgf::bindInputs: a state input given a file is named.
TEST_F(Cli, AnUnnamedFileNeverBindsToOneStateWhileAnotherKeepsItsInitialValue) {
  tosa::HostTensor accInit(tosa::DType::Int32, {3}), biasInit(tosa::DType::Int32, {3});
  for (int i = 0; i < 3; ++i) {
    accInit.as<std::int32_t>()[i] = 10 * (i + 1);
    biasInit.as<std::int32_t>()[i] = 100 * (i + 1);
  }
  tosa::Builder b;
  tosa::Value acc = b.variable("acc", accInit);
  tosa::Value bias = b.variable("bias", biasInit);
  tosa::Value partial = b.add(b.variableRead(acc, "old_acc"), b.input("x", tosa::DType::Int32, {3}), "partial");
  tosa::Value sum = b.add(partial, b.variableRead(bias, "old_bias"), "y");
  b.variableWrite(acc, sum);
  b.variableWrite(bias, sum);
  b.output(sum);
  ASSERT_TRUE(b.write(dir_ / "two_states.tosa"));
  const std::string x = writeInts("x.npy", {1, 2, 3});
  const std::string s = writeInts("s.npy", {5, 5, 5});

  CommandResult ambiguous = run("run " + path("two_states.tosa") + " -i " + x + " -i " + s + " --output-dir " +
                                path("amb"));
  EXPECT_EQ(ambiguous.exitCode, 2) << ambiguous.output;
  EXPECT_THAT(ambiguous.output, HasSubstr("two_states.tosa: --input: expected 3 inputs ("));
  EXPECT_THAT(ambiguous.output, HasSubstr("), got 2"));
  EXPECT_FALSE(fs::exists(path("amb")));

  CommandResult named = run("run " + path("two_states.tosa") + " -i " + x + " -i state:bias=" + s + " --output-dir " +
                            path("named"));
  ASSERT_EQ(named.exitCode, 0) << named.output;
  EXPECT_EQ(readInts(path("named/y.npy")), (std::vector<std::int32_t>{16, 27, 38}));  // x + acc's initial value + s
}

TEST_F(Cli, DumpConstantOfATosaGraphIsInTosaLayout) {
  // The fixture's CONV2D weights are layer_1 [1,1,8,16] transposed; the VGF stores the
  // kernel's [K = 8, OC = 16] layout of the same numbers.
  const std::string model = kConv + "/model.tosa";
  CommandResult tosaDump = run("inspect " + model + " --dump-constant layer_1 -o " + path("w.npy"));
  ASSERT_EQ(tosaDump.exitCode, 0) << tosaDump.output;
  Result<tosa::npy::Array> tosaWeights = tosa::npy::readFile(path("w.npy"));
  ASSERT_TRUE(tosaWeights);
  EXPECT_EQ(tosaWeights->shape, (tosa::Shape{1, 1, 8, 16}));
  ASSERT_EQ(run("inspect " + model + " --dump-constant 1 -o " + path("w1.npy")).exitCode, 0);
  EXPECT_EQ(readFile(path("w1.npy"))->size(), readFile(path("w.npy"))->size()) << "index 1 is layer_1";
  ASSERT_EQ(run("convert " + model + " -o " + path("conv.vgf")).exitCode, 0);
  ASSERT_EQ(run("inspect " + path("conv.vgf") + " --dump-constant 0 -o " + path("v.npy")).exitCode, 0);
  Result<tosa::npy::Array> vgfWeights = tosa::npy::readFile(path("v.npy"));
  ASSERT_TRUE(vgfWeights);
  EXPECT_EQ(vgfWeights->shape, (tosa::Shape{8, 16}));
  EXPECT_EQ(vgfWeights->data, tosaWeights->data);

  CommandResult unknown = run("inspect " + model + " --dump-constant nope -o " + path("n.npy"));
  EXPECT_EQ(unknown.exitCode, 2);
  EXPECT_THAT(unknown.output, HasSubstr(model + ": --dump-constant: expected the name or index (< 3) of a constant of "
                                                "the main block ('layer_0', 'layer_1', 'layer_2'), got 'nope'"));
  CommandResult noOutput = run("inspect " + model + " --dump-constant layer_1");
  EXPECT_EQ(noOutput.exitCode, 2);
  EXPECT_THAT(noOutput.output, HasSubstr("expected an output file with -o FILE"));
  EXPECT_FALSE(fs::exists(path("n.npy")));
}

TEST_F(Cli, MessagesNameTheFile) {
  const std::string model = kAdd + "/model.tosa";
  CommandResult unknown = run("reference " + model + " -i nope=" + kAdd + "/placeholder_0.npy -i " + kAdd +
                              "/placeholder_1.npy");
  EXPECT_EQ(unknown.exitCode, 2);
  EXPECT_THAT(unknown.output, HasSubstr(model + ": --input: input 'nope': expected one of the model's inputs ('TosaInput_0', "));
  CommandResult twice = run("reference " + model + " -i TosaInput_0=" + kAdd + "/placeholder_0.npy -i TosaInput_0=" +
                            kAdd + "/placeholder_0.npy");
  EXPECT_EQ(twice.exitCode, 2);
  EXPECT_THAT(twice.output, HasSubstr(model + ": --input: input 'TosaInput_0': expected one value, got it twice"));
  CommandResult count = run("run " + model + " -i " + kAdd + "/placeholder_0.npy");
  EXPECT_EQ(count.exitCode, 2);
  EXPECT_THAT(count.output, HasSubstr(model + ": --input: expected 2 inputs"));
  EXPECT_THAT(count.output, Not(HasSubstr("state:")));
}

// Issue 33 item 5: outputs 'a/b' and 'a_b' would both become a_b.npy; run, reference and the
// Ethos-U path refuse before writing anything rather than keep one of them.
TEST_F(Cli, OutputNamesThatShareAFileNameAreRefusedBeforeAnythingIsWritten) {
  tosa::Builder b;
  tosa::Value x = b.input("x", tosa::DType::Int32, {3});
  b.output(b.identity(x, "a/b"));
  b.output(b.add(x, x, "a_b"));
  ASSERT_TRUE(b.write(dir_ / "two.tosa"));
  const std::string x3 = writeInts("x.npy", {1, 2, 3});
  for (const std::string command : {"run", "reference"}) {
    CommandResult r = run(command + " " + path("two.tosa") + " -i " + x3 + " --output-dir " + path(command));
    EXPECT_EQ(r.exitCode, 2) << command << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr("outputs 'a/b' and 'a_b' would both be written to")) << command;
    EXPECT_FALSE(fs::exists(dir_ / command)) << command;
  }
  // Distinct file names are written, each with its own tensor.
  tosa::Builder c;
  tosa::Value y = c.input("x", tosa::DType::Int32, {3});
  c.output(c.identity(y, "a/b"));
  c.output(c.add(y, y, "a-b"));
  ASSERT_TRUE(c.write(dir_ / "distinct.tosa"));
  CommandResult r = run("run " + path("distinct.tosa") + " -i " + x3 + " --output-dir " + path("out"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(readInts(path("out/a_b.npy")), (std::vector<std::int32_t>{1, 2, 3}));
  EXPECT_EQ(readInts(path("out/a-b.npy")), (std::vector<std::int32_t>{2, 4, 6}));
}

// Issue 33 item 8: a graph that lists one tensor twice as an output converted to a VGF that
// `run` refused; convert now refuses it, naming the tensor, and writes nothing.
TEST_F(Cli, ConvertRefusesAnInterfaceThatListsATensorTwice) {
  tosa::Builder b;
  tosa::Value x = b.input("x", tosa::DType::Int32, {3});
  tosa::Value y = b.add(x, x, "y");
  b.output(y);
  b.output(y);
  ASSERT_TRUE(b.write(dir_ / "twice.tosa"));
  CommandResult r = run("convert " + path("twice.tosa") + " -o " + path("twice.vgf"));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("output 'y' is listed twice"));
  EXPECT_THAT(r.output, HasSubstr("twice.tosa"));
  EXPECT_FALSE(fs::exists(dir_ / "twice.vgf"));
}

// Issue 33 item 8: a FIFO given as an input blocked forever in open(); it is refused at once.
TEST_F(Cli, AFifoAsAnInputIsRefusedAtOnce) {
  const fs::path fifo = dir_ / "in.npy";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // `timeout` turns a hang into exit 124, which the expectation below reports.
  CommandResult r = testing::runCommand(env_ + " timeout 20 " + std::string(OPENVGF_CLI) + " run " + kAdd +
                                        "/model.tosa -i " + fifo.string() + " -i " + kAdd + "/placeholder_1.npy");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("expected a regular file, got a FIFO"));
  EXPECT_THAT(r.output, HasSubstr(fifo.string()));
}

// Issue 33 item 8: a 250-byte output name failed after the work was done, because the
// temporary file beside it had a longer name; names the file system cannot hold are refused
// before any work.
TEST_F(Cli, LongOutputNamesAreWrittenAndTooLongOnesRefusedUpFront) {
  const std::string longName = path(std::string(246, 'v') + ".vgf");  // 250 bytes
  CommandResult r = run("convert " + kAdd + "/model.tosa -o " + longName);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(fs::exists(longName));
  const std::string tooLong = path(std::string(300, 'w') + ".vgf");
  r = run("convert " + kAdd + "/model.tosa -o " + tooLong);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the file name is 304 bytes; the file system allows at most 255"));
}

}  // namespace
}  // namespace openvgf
