// SPDX-License-Identifier: Apache-2.0
// The first hour of a new user (issue 35 item 4), through the `openvgf` binary on real files:
// mistyped commands, flags and values answered with the nearest valid one; success lines and
// an output preview, silenced by -q; the one uint8/int8 rule (bytes taken as they are, with a
// warning when values change) and the unsigned interface of Arm's GRAPH VGFs kept by
// `convert`; the log level from -v and OPENVGF_LOG_LEVEL. Expected values are computed here
// from the inputs, the VGF decoder and the accelerator table, not from the command's output.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/file_io.h"
#include "ethosu/accelerator.h"
#include "tests/pte/pte_writer.h"
#include "tests/support/cli_runner.h"
#include "tosa/builder.h"
#include "tosa/npy.h"
#include "vgf/decoder.h"

namespace openvgf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::CommandResult;
using testing::runCli;
namespace fs = std::filesystem;

const std::string kData = OPENVGF_TEST_DATA;
const std::string kAdd = kData + "/tosa/test_add_1x4x4x4_f32";
const std::string kArmGraph = kData + "/vgf-graph/simple_conv2d_rescale_graph.vgf";

class FirstHour : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("openvgf-first-hour-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "cache");
    env_ = "XDG_CACHE_HOME=" + (dir_ / "cache").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  CommandResult run(const std::string& arguments, const std::string& env = "") const {
    return runCli(arguments, env_ + " " + env);
  }
  std::string addInputs() const { return " -i " + kAdd + "/placeholder_0.npy -i " + kAdd + "/placeholder_1.npy"; }

  // y = CAST(x) to INT32 of an INT8 input x[4]: shows the INT8 value each input byte became.
  std::string writeCastModel() const {
    tosa::Builder b;
    b.output(b.cast(b.input("x", tosa::DType::Int8, {4}), tosa::DType::Int32, "y"));
    EXPECT_TRUE(b.write(dir_ / "cast.tosa"));
    return path("cast.tosa");
  }
  std::string writeArray(const std::string& name, tosa::npy::DataType type, tosa::Shape shape,
                         std::vector<std::uint8_t> bytes) const {
    tosa::npy::Array array;
    array.dtype = type;
    array.shape = std::move(shape);
    array.data = std::move(bytes);
    EXPECT_TRUE(tosa::npy::writeFile(dir_ / name, array));
    return path(name);
  }

  fs::path dir_;
  std::string env_;
};

TEST_F(FirstHour, MistypedCommandsAndFlagsAreNamedWithTheNearestOne) {
  CommandResult command = run("conver " + kAdd + "/model.tosa -o " + path("x.vgf"));
  EXPECT_EQ(command.exitCode, 2);
  EXPECT_THAT(command.output, HasSubstr("unknown command 'conver' (did you mean 'convert'?)"));

  // Before: "--input is required", which names neither the bad flag nor the fix.
  CommandResult flag = run("run " + kAdd + "/model.tosa --inptu " + kAdd + "/placeholder_0.npy");
  EXPECT_EQ(flag.exitCode, 2);
  EXPECT_THAT(flag.output, HasSubstr("run: unknown option '--inptu' (did you mean '--input'?)"));
  EXPECT_THAT(flag.output, Not(HasSubstr("required")));

  CommandResult version = run("--verison");
  EXPECT_EQ(version.exitCode, 2);
  EXPECT_THAT(version.output, HasSubstr("unknown option '--verison' (did you mean '--version'?)"));
  EXPECT_THAT(version.output, Not(HasSubstr("subcommand is required")));
  CommandResult right = run("--version");
  EXPECT_EQ(right.exitCode, 0) << right.output;
  EXPECT_THAT(right.output, HasSubstr("openvgf "));

  // Global flags stay valid after the subcommand, and values that look like flags are values.
  CommandResult global = run("convert " + kAdd + "/model.tosa -q -o " + path("q.vgf"));
  EXPECT_EQ(global.exitCode, 0) << global.output;
}

TEST_F(FirstHour, ValuesOutOfRangeOrListSayWhatIsValid) {
  CommandResult repeat = run("run " + kAdd + "/model.tosa" + addInputs() + " --repeat 0");
  EXPECT_EQ(repeat.exitCode, 2);
  EXPECT_THAT(repeat.output, HasSubstr("--repeat: expected a whole number of at least 1, got '0'"));
  EXPECT_LT(repeat.output.size(), 200u) << repeat.output;  // no 1.79e308 range
  CommandResult delegate = run("extract x.pte -o " + path("d") + " --delegate=-1");
  EXPECT_EQ(delegate.exitCode, 2);
  EXPECT_THAT(delegate.output, HasSubstr("--delegate: expected a whole number of at least 0, got '-1'"));

  const std::string model = kAdd + "/model.tosa";
  CommandResult target = run("convert " + model + " -o " + path("t.vgf") + " --target ethos-u55-182");
  EXPECT_EQ(target.exitCode, 2);
  EXPECT_THAT(target.output, HasSubstr("got 'ethos-u55-182' (did you mean 'ethos-u55-128'?)"));
  CommandResult prefix = run("convert " + model + " -o " + path("t.vgf") + " --target ethos-u85");
  EXPECT_THAT(prefix.output, HasSubstr("(did you mean 'ethos-u85-128', 'ethos-u85-256', 'ethos-u85-512', "
                                       "'ethos-u85-1024' or 'ethos-u85-2048'?)"));
  CommandResult precision = run("convert " + model + " -o " + path("t.vgf") + " --precision fp61");
  EXPECT_EQ(precision.exitCode, 2);
  EXPECT_THAT(precision.output, HasSubstr("got 'fp61' (did you mean 'fp16'?)"));
  CommandResult format = run("convert " + model + " -o " + path("t.vgf") + " --format arm-grpah");
  EXPECT_EQ(format.exitCode, 2);
  EXPECT_THAT(format.output, HasSubstr("got 'arm-grpah' (did you mean 'arm-graph'?)"));
  CommandResult passes = run("convert " + model + " -o " + path("t.vgf") + " --passes fold-constnats");
  EXPECT_EQ(passes.exitCode, 2);
  EXPECT_THAT(passes.output, HasSubstr("(did you mean 'fold-constants'?)"));
  CommandResult runTarget = run("run " + model + addInputs() + " --target portabel");
  EXPECT_EQ(runTarget.exitCode, 2);
  EXPECT_THAT(runTarget.output, HasSubstr("(did you mean 'portable'?)"));
  CommandResult memory = run("bench " + model + " --upload-memory hots");
  EXPECT_EQ(memory.exitCode, 2);
  EXPECT_THAT(memory.output, HasSubstr("--upload-memory: expected auto or host, got 'hots' (did you mean 'host'?)"));
  CommandResult chunk = run("bench " + model + " --upload-chunk=-2");
  EXPECT_EQ(chunk.exitCode, 2);
  EXPECT_THAT(chunk.output, HasSubstr("--upload-chunk: expected a number of at least 0, got '-2'"));
  CommandResult overlap = run("bench " + model + " --overlap=-1");
  EXPECT_EQ(overlap.exitCode, 2);
  EXPECT_THAT(overlap.output, HasSubstr("--overlap: expected a whole number of at least 0, got '-1'"));
  CommandResult start = run("bench " + model + " --start 0");
  EXPECT_EQ(start.exitCode, 2);
  EXPECT_THAT(start.output, HasSubstr("--start: expected a whole number of at least 1, got '0'"));
  EXPECT_FALSE(fs::exists(path("t.vgf")));
}

TEST_F(FirstHour, ConvertHelpListsEveryTarget) {
  CommandResult help = run("convert --help");
  EXPECT_EQ(help.exitCode, 0);
  std::string flat = help.output;  // CLI11 wraps nothing, but be safe about line breaks
  std::replace(flat.begin(), flat.end(), '\n', ' ');
  for (const ethosu::AcceleratorConfig& config : ethosu::acceleratorConfigs()) {
    EXPECT_THAT(flat, HasSubstr(std::string(config.name))) << "convert --help misses " << config.name;
  }
}

TEST_F(FirstHour, ConvertAndExtractSayWhatTheyWrote) {
  CommandResult convert = run("convert " + kAdd + "/model.tosa -o " + path("add.vgf"));
  ASSERT_EQ(convert.exitCode, 0) << convert.output;
  Result<std::vector<std::uint8_t>> bytes = readFile(path("add.vgf"));
  ASSERT_TRUE(bytes);
  Result<vgf::File> file = vgf::decode(*bytes);
  ASSERT_TRUE(file) << file.error().message();
  const std::size_t dispatches = file->segments.size();
  EXPECT_THAT(convert.output,
              HasSubstr(fmt::format("wrote {} ({} dispatch{}, ", path("add.vgf"), dispatches, dispatches == 1 ? "" : "es")));
  EXPECT_TRUE(std::regex_search(convert.output, std::regex(R"(, ([0-9]+ bytes|[0-9]+\.[0-9] kB)\)\n)"))) << convert.output;
  EXPECT_EQ(run("-q convert " + kAdd + "/model.tosa -o " + path("quiet.vgf")).output, "");

  pte::testing::TestProgram spec;
  spec.payloads.push_back(*bytes);
  spec.plans.push_back(pte::testing::oneDelegatePlan("forward", {{1, 4, 4, 1}, {1, 4, 4, 4}}, {{1, 4, 4, 4}}));
  ASSERT_TRUE(writeFileAtomic(path("add.pte"), pte::testing::writeProgram(spec).bytes));
  CommandResult extract = run("extract " + path("add.pte") + " -o " + path("out"));
  ASSERT_EQ(extract.exitCode, 0) << extract.output;
  std::vector<std::string> written;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir_ / "out")) written.push_back(entry.path().string());
  ASSERT_EQ(written.size(), 2u);  // the payload and manifest.json
  for (const std::string& out : written) EXPECT_THAT(extract.output, HasSubstr("wrote " + out + " (")) << out;
  EXPECT_EQ(run("extract -q " + path("add.pte") + " -o " + path("out2")).output, "");
}

TEST_F(FirstHour, RunPreviewsTheOutputsAndSaysWhereItWroteThem) {
  Result<tosa::HostTensor> want = tosa::npy::readTensor(kAdd + "/tf_result.npy", tosa::DType::Fp32);
  ASSERT_TRUE(want);
  std::span<const float> values = want->as<float>();
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  const std::string shape = "FP32 (1, 4, 4, 4): " + fmt::format("min {:.6g}, max {:.6g}", *lo, *hi);
  const std::string first = fmt::format("first 8 of 64: {:.6g} {:.6g}", values[0], values[1]);

  CommandResult shown = run("run " + kAdd + "/model.tosa" + addInputs() + " --validate");
  ASSERT_EQ(shown.exitCode, 0) << shown.output;
  EXPECT_THAT(shown.output, HasSubstr(shape));
  EXPECT_THAT(shown.output, HasSubstr(first));
  EXPECT_THAT(shown.output, HasSubstr("outputs not written: add -o FILE.npy"));

  CommandResult written = run("run " + kAdd + "/model.tosa" + addInputs() + " -o " + path("y.npy"));
  ASSERT_EQ(written.exitCode, 0) << written.output;
  EXPECT_THAT(written.output, HasSubstr("wrote " + path("y.npy") + " ("));
  EXPECT_THAT(written.output, HasSubstr(shape));
  EXPECT_THAT(written.output, Not(HasSubstr("not written")));
  EXPECT_EQ(run("run -q " + kAdd + "/model.tosa" + addInputs() + " -o " + path("q.npy")).output, "");
}

// The rule of docs/limits.md "uint8 and int8": an array of the other signedness is taken byte
// for byte, and values that change (200 -> -56) are named in a warning; values that do not
// change pass silently.
TEST_F(FirstHour, Uint8ForAnInt8InputIsTakenByteForByteWithAWarning) {
  const std::string model = writeCastModel();
  const std::string changing = writeArray("u8.npy", tosa::npy::DataType::Uint8, {4}, {1, 200, 127, 128});
  CommandResult r = run("run " + model + " -i " + changing + " -o " + path("y.npy") + " --validate");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("input 'x': " + changing + ": 2 of 4 values of this uint8 array read differently as "
                                  "the INT8 input (element [1]: 200 -> -56)"));
  Result<tosa::HostTensor> y = tosa::npy::readTensor(path("y.npy"), tosa::DType::Int32);
  ASSERT_TRUE(y);
  EXPECT_EQ(std::vector<std::int32_t>(y->as<std::int32_t>().begin(), y->as<std::int32_t>().end()),
            (std::vector<std::int32_t>{1, -56, 127, -128}));

  const std::string fitting = writeArray("small.npy", tosa::npy::DataType::Uint8, {4}, {1, 2, 3, 127});
  CommandResult quiet = run("run " + model + " -i " + fitting + " -o " + path("z.npy"));
  ASSERT_EQ(quiet.exitCode, 0) << quiet.output;
  EXPECT_THAT(quiet.output, Not(HasSubstr("read differently")));
}

// Arm's GRAPH VGF declares its input and output R8_UINT: `convert` keeps that, the converted
// file takes the same uint8 array without a warning, gives uint8 values equal to the GRAPH
// VGF's own, and an int8 array with negative values is warned about.
TEST_F(FirstHour, ArmGraphVgfKeepsItsUnsignedInterfaceThroughConvert) {
  ASSERT_EQ(run("convert " + kArmGraph + " -o " + path("compute.vgf")).exitCode, 0);
  Result<std::vector<std::uint8_t>> bytes = readFile(path("compute.vgf"));
  ASSERT_TRUE(bytes);
  Result<vgf::File> file = vgf::decode(*bytes);
  ASSERT_TRUE(file) << file.error().message();
  ASSERT_EQ(file->segments.front().type, vgf::ModuleType::Compute);
  for (const auto* slots : {&file->inputs, &file->outputs}) {
    for (const vgf::BindingSlot& slot : *slots) {
      EXPECT_EQ(file->resources[slot.mrtIndex].vkFormat, static_cast<std::uint32_t>(vgf::VkFormatValue::R8Uint));
    }
  }
  std::vector<std::uint8_t> x(1 * 720 * 1280 * 4);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint8_t>(i * 37 % 256);
  const std::string u8 = writeArray("x.npy", tosa::npy::DataType::Uint8, {1, 720, 1280, 4}, x);
  CommandResult converted = run("run " + path("compute.vgf") + " -i " + u8 + " -o " + path("y.npy"));
  ASSERT_EQ(converted.exitCode, 0) << converted.output;
  EXPECT_THAT(converted.output, Not(HasSubstr("read differently")));
  EXPECT_THAT(converted.output, HasSubstr("UINT8 (1, 720, 1280, 4)"));
  CommandResult graph = run("run " + kArmGraph + " -i " + u8 + " -o " + path("y_graph.npy"));
  ASSERT_EQ(graph.exitCode, 0) << graph.output;
  Result<tosa::npy::Array> y = tosa::npy::readFile(path("y.npy"));
  Result<tosa::npy::Array> yGraph = tosa::npy::readFile(path("y_graph.npy"));
  ASSERT_TRUE(y && yGraph);
  EXPECT_EQ(y->dtype, tosa::npy::DataType::Uint8);
  EXPECT_EQ(y->data, yGraph->data);

  const std::string s8 = writeArray("x_s8.npy", tosa::npy::DataType::Int8, {1, 720, 1280, 4}, x);
  CommandResult signedInput = run("run " + path("compute.vgf") + " -i " + s8);
  ASSERT_EQ(signedInput.exitCode, 0) << signedInput.output;
  const std::size_t negative = static_cast<std::size_t>(std::count_if(x.begin(), x.end(), [](std::uint8_t v) { return v >= 128; }));
  EXPECT_THAT(signedInput.output, HasSubstr(fmt::format("{} of {} values of this int8 array read differently as the "
                                                        "UINT8 input", negative, x.size())));
}

// The library logs what it did at info level: hidden by default (also in library use, where
// nothing sets a level), shown with OPENVGF_LOG_LEVEL=info or -v.
TEST_F(FirstHour, LogLevelComesFromTheEnvironmentOrTheFlags) {
  const std::string lower = "convert " + kArmGraph + " -o " + path("a.vgf");
  ASSERT_EQ(run(lower).exitCode, 0);
  const std::string open = "run " + kAdd + "/model.tosa" + addInputs();
  CommandResult plain = run(open);
  ASSERT_EQ(plain.exitCode, 0) << plain.output;
  EXPECT_THAT(plain.output, Not(HasSubstr("[info]")));
  EXPECT_THAT(plain.output, Not(HasSubstr("[debug]")));
  CommandResult info = run(open, "OPENVGF_LOG_LEVEL=info");
  EXPECT_THAT(info.output, HasSubstr("[info] device: "));
  EXPECT_THAT(info.output, Not(HasSubstr("[debug]")));
  CommandResult debug = run(open, "OPENVGF_LOG_LEVEL=DEBUG");
  EXPECT_THAT(debug.output, HasSubstr("[debug] "));
  CommandResult verbose = run("-v " + open);
  EXPECT_THAT(verbose.output, HasSubstr("[debug] "));
  CommandResult quiet = run("-q " + open, "OPENVGF_LOG_LEVEL=debug");  // the flag wins
  EXPECT_THAT(quiet.output, Not(HasSubstr("[debug]")));
  CommandResult bad = run(open, "OPENVGF_LOG_LEVEL=inf");
  EXPECT_EQ(bad.exitCode, 0) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("OPENVGF_LOG_LEVEL: log level: expected trace, debug, info, warn, error or off, "
                                    "got 'inf' (did you mean 'info'?)"));
}

TEST_F(FirstHour, InspectNamesCapabilitiesShowsSmallConstantsAndReadsNpy) {
  CommandResult graph = run("inspect " + kArmGraph);
  ASSERT_EQ(graph.exitCode, 0) << graph.output;
  EXPECT_THAT(graph.output, HasSubstr("TensorsARM"));
  EXPECT_THAT(graph.output, HasSubstr("GraphARM"));
  EXPECT_THAT(graph.output, Not(HasSubstr("Capability4")));
  // Constant operands with their values: RESCALE's multiplier and shift, a normalised scale
  // (multiplier in [2^30, 2^31), shift in [2, 62]) as TOSA requires of scale32 int8 rescales.
  const std::regex rescale(R"(RESCALE\(%[0-9]+, const %[0-9]+ = \[([0-9]+)\], const %[0-9]+ = \[([0-9]+)\], const %[0-9]+ = \[-?[0-9]+\], const %[0-9]+ = \[-?[0-9]+\]\))");
  std::size_t rescales = 0;
  for (auto it = std::sregex_iterator(graph.output.begin(), graph.output.end(), rescale); it != std::sregex_iterator(); ++it) {
    const long long multiplier = std::stoll((*it)[1]);
    const int shift = std::stoi((*it)[2]);
    EXPECT_GE(multiplier, 1LL << 30) << it->str();
    EXPECT_LT(multiplier, 1LL << 31) << it->str();
    EXPECT_GE(shift, 2) << it->str();
    EXPECT_LE(shift, 62) << it->str();
    ++rescales;
  }
  EXPECT_EQ(rescales, 3u) << graph.output;  // the fixture's three RESCALEs

  // A VGF of ours: each dense constant of at most 16 values shows them (the conv's bias here),
  // as the test decodes them from the file.
  const std::string convModel = kData + "/tosa/test_conv2d_1x1_1x32x32x8_f32_st11_padSAME_dilat11/model.tosa";
  ASSERT_EQ(run("convert " + convModel + " -o " + path("conv.vgf")).exitCode, 0);
  Result<std::vector<std::uint8_t>> bytes = readFile(path("conv.vgf"));
  ASSERT_TRUE(bytes);
  Result<vgf::File> file = vgf::decode(*bytes);
  ASSERT_TRUE(file);
  CommandResult vgfListing = run("inspect " + path("conv.vgf"));
  std::size_t shown = 0;
  for (std::size_t i = 0; i < file->constants.size(); ++i) {
    const vgf::Constant& c = file->constants[i];
    const vgf::Resource& r = file->resources[c.mrtIndex];
    if (r.vkFormat != static_cast<std::uint32_t>(vgf::VkFormatValue::R32Sfloat) || c.data.size() > 64) continue;
    std::string values;
    for (std::size_t at = 0; at < c.data.size(); at += 4) {
      float v;
      std::memcpy(&v, c.data.data() + at, 4);
      values += fmt::format(" {:.9g}", v);
    }
    EXPECT_THAT(vgfListing.output, HasSubstr(fmt::format("[{}] mrt {} {} bytes ={}\n", i, c.mrtIndex, c.data.size(), values)));
    ++shown;
  }
  EXPECT_EQ(shown, 1u) << vgfListing.output;

  // A .tosa: each constant of at most 16 values with its values and the operator input reading it.
  CommandResult tosaListing = run("inspect " + convModel);
  ASSERT_EQ(tosaListing.exitCode, 0) << tosaListing.output;
  EXPECT_THAT(tosaListing.output, HasSubstr("constants of up to 16 values:"));
  EXPECT_TRUE(std::regex_search(tosaListing.output, std::regex(R"(\n  \S+  FP32 \[16\] = (-?[0-9.e+-]+ ){15}-?[0-9.e+-]+  \(CONV2D input 2\)\n)")))
      << tosaListing.output;

  const std::string npy = writeArray("x.npy", tosa::npy::DataType::Uint8, {4}, {1, 200, 127, 128});
  CommandResult array = run("inspect " + npy);
  ASSERT_EQ(array.exitCode, 0) << array.output;
  EXPECT_THAT(array.output, HasSubstr(npy + ": NumPy array, uint8 (4,), 4 elements, 4 data bytes\n"
                                      "min 1, max 200, mean 114; first 4: 1 200 127 128\n"));
  CommandResult json = run("inspect --json " + npy);
  EXPECT_THAT(json.output, HasSubstr("\"dtype\": \"uint8\""));
  EXPECT_THAT(json.output, HasSubstr("\"max\": 200.0"));
}

}  // namespace
}  // namespace openvgf
