// SPDX-License-Identifier: Apache-2.0
// What `openvgf run` needs, as installed API: .npy files (NpyArray, readNpy, writeNpy),
// Model::bindInputs, Session::check against the reference interpreter, profiles as a Chrome
// trace and a summary, and the early output checks. On the ADD fixture (TensorFlow's inputs
// and result) and on hand-made arrays.
#include <cstring>

#include <nlohmann/json.hpp>

#include "api_test_util.h"
#include "tosa/builder.h"
#include "tosa/writer.h"

namespace openvgf::testing {
namespace {

using ::testing::HasSubstr;

class RunToolsTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = freshTestDir("run-tools"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(RunToolsTest, NpyArraysConvertToTheInputsTypeAndRoundTrip) {
  // TensorFlow's first input of the fixture: float32 [1,4,4,1].
  NpyArray a = NpyArray::read((addDir() / "placeholder_0.npy").string());
  EXPECT_EQ(a.shape(), kAddShape0);
  EXPECT_EQ(a.numpyType(), "float32");
  Tensor t = a.toTensor(TensorInfo{"a", DataType::Float32, kAddShape0, 64});
  EXPECT_EQ(t.dtype(), DataType::Float32);
  EXPECT_EQ(readFloats(addDir() / "placeholder_0.npy"),
            std::vector<float>(t.dataAs<float>(), t.dataAs<float>() + t.elementCount()));

  // Written and read back: the same values.
  writeNpy(path("copy.npy"), t);
  Tensor back = readNpy(path("copy.npy"), DataType::Float32);
  ASSERT_EQ(back.byteSize(), t.byteSize());
  EXPECT_EQ(std::memcmp(back.data(), t.data(), t.byteSize()), 0);

  // Int8 written unsigned is uint8: -56 is the bit pattern of 200.
  std::int8_t bits[2] = {-56, 7};
  writeNpy(path("u8.npy"), Tensor::copyOf(DataType::Int8, {2}, bits, 2), /*asUnsigned=*/true);
  NpyArray u8 = NpyArray::read(path("u8.npy"));
  EXPECT_EQ(u8.numpyType(), "uint8");
  Tensor wide = u8.toTensor(DataType::Int32);
  EXPECT_EQ(wide.dataAs<std::int32_t>()[0], 200);
  EXPECT_EQ(wide.dataAs<std::int32_t>()[1], 7);
}

TEST_F(RunToolsTest, NpyErrorsNameTheContextTheFileAndWhatWasExpected) {
  NpyArray a = NpyArray::read((addDir() / "placeholder_0.npy").string());
  expectError([&] { a.toTensor(TensorInfo{"x", DataType::Float32, {1, 4, 4, 4}, 256}, "m.vgf: input 'x'"); },
              ErrorCode::InvalidInput, "m.vgf: input 'x': ");
  expectError([&] { a.toTensor(TensorInfo{"x", DataType::Float32, {1, 4, 4, 4}, 256}); }, ErrorCode::InvalidInput,
              "expected shape [1,4,4,4], got [1,4,4,1]");
  writeBytes(dir_ / "broken.npy", {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0});
  expectError([&] { NpyArray::read(path("broken.npy")); }, ErrorCode::InvalidInput, "broken.npy");
  expectError([&] { NpyArray::read(path("missing.npy")); }, ErrorCode::InvalidInput, "missing.npy: cannot open");
}

TEST_F(RunToolsTest, InputsBindByNameOrInOrder) {
  Model model = Model::open(addModel(), modelOptions(dir_ / "cache"));
  const std::string first = model.inputs()[0].name, second = model.inputs()[1].name;
  EXPECT_EQ(model.bindInputs({"", ""}), (std::vector<int>{0, 1}));
  EXPECT_EQ(model.bindInputs({second, ""}), (std::vector<int>{1, 0}));
  EXPECT_EQ(model.bindInputs({"", first}), (std::vector<int>{1, 0}));
  expectError([&] { model.bindInputs({""}, "m: --input"); }, ErrorCode::InvalidInput,
              "m: --input: expected 2 inputs ('" + first + "', '" + second + "'), got 1");
  expectError([&] { model.bindInputs({"nope", ""}); }, ErrorCode::InvalidInput, "input 'nope'");
}

TEST_F(RunToolsTest, CheckPassesTheRunsOutputsAndFailsAChangedOne) {
  ModelOptions options = modelOptions(dir_ / "cache");
  options.check = true;
  Model model = Model::open(addModel(), options);
  Session session = model.createSession();
  const std::vector<Tensor> given = addInputs();
  const std::map<std::string, Tensor> inputs{{model.inputs()[0].name, given[0]}, {model.inputs()[1].name, given[1]}};
  std::vector<Tensor> outputs = session.runNamed(inputs);
  CheckReport report = session.check(inputs, outputs);
  EXPECT_TRUE(report.pass);
  ASSERT_EQ(report.outputs.size(), 1u);
  EXPECT_EQ(report.outputs[0].output, model.outputs()[0].name);
  EXPECT_THAT(report.outputs[0].line, HasSubstr("PASS"));

  // The property a check must have: one element off by far more than fp32 rounding fails.
  Tensor changed = outputs[0].clone();
  changed.dataAs<float>()[5] += 1.0f;
  CheckReport bad = session.check(inputs, {changed});
  EXPECT_FALSE(bad.pass);
  EXPECT_THAT(bad.outputs[0].line, HasSubstr("FAIL"));

  // The same against the graph named as the reference.
  ModelOptions withReference = modelOptions(dir_ / "cache");
  withReference.reference = addModel();
  Model referenced = Model::open(addModel(), withReference);
  Session second = referenced.createSession();
  EXPECT_TRUE(second.check(inputs, second.runNamed(inputs)).pass);
  EXPECT_FALSE(second.check(inputs, {changed}).pass);
}

// Session::checkOperators: each operator alone on the run's own values; the ADD's output with
// one element moved by 1 (far beyond fp32 rounding) fails and names the ADD; a model opened
// without its intermediates has nothing to split and is refused.
TEST_F(RunToolsTest, CheckOperatorsJudgesEachOperatorOnTheRunsValues) {
  ModelOptions options = modelOptions(dir_ / "cache");
  options.keepIntermediates = true;
  options.check = true;
  Model model = Model::open(addModel(), options);
  Session session = model.createSession();
  const std::vector<Tensor> given = addInputs();
  const std::map<std::string, Tensor> inputs{{model.inputs()[0].name, given[0]}, {model.inputs()[1].name, given[1]}};
  std::vector<Tensor> outputs = session.runNamed(inputs);
  OperatorReport report = session.checkOperators(inputs, outputs);
  EXPECT_TRUE(report.pass);
  ASSERT_EQ(report.operators.size(), 1u);
  EXPECT_EQ(report.operators[0].op, "ADD");
  EXPECT_TRUE(report.operators[0].notJudged.empty());
  ASSERT_EQ(report.operators[0].outputs.size(), 1u);
  EXPECT_EQ(report.operators[0].outputs[0].output, model.outputs()[0].name);

  outputs[0] = outputs[0].clone();
  outputs[0].dataAs<float>()[5] += 1.0f;
  OperatorReport bad = session.checkOperators(inputs, outputs);
  EXPECT_FALSE(bad.pass);
  EXPECT_FALSE(bad.inconclusive);
  ASSERT_EQ(bad.operators.size(), 1u);
  ASSERT_EQ(bad.operators[0].outputs.size(), 1u);
  EXPECT_EQ(bad.operators[0].outputs[0].failures, 1);
  EXPECT_THAT(bad.operators[0].outputs[0].line, HasSubstr("FAIL"));

  Model plain = Model::open(addModel(), modelOptions(dir_ / "cache"));
  Session plainSession = plain.createSession();
  expectError([&] { plainSession.checkOperators(inputs, plainSession.runNamed(inputs)); }, ErrorCode::InvalidInput,
              "per-operator check: expected a .tosa opened with keepIntermediates");
}

TEST_F(RunToolsTest, ACheckWithNothingToJudgeAgainstIsRefusedAtOpen) {
  ConvertStats stats = convert(addModel(), path("add.vgf"));
  ASSERT_GT(stats.outputBytes, 0u);
  ModelOptions options = modelOptions(dir_ / "cache");
  options.check = true;
  expectError([&] { Model::open(path("add.vgf"), options); }, ErrorCode::InvalidInput, "add.vgf");
}

TEST_F(RunToolsTest, ProfilesBecomeAChromeTraceAndASummary) {
  Model model = Model::open(addModel(), modelOptions(dir_ / "cache"));
  SessionOptions profiled;
  profiled.profile = true;
  Session session = model.createSession(profiled);
  std::vector<Profile> runs;
  for (int i = 0; i < 3; ++i) {
    session.run(addInputs());
    runs.push_back(session.profile());
    ASSERT_EQ(runs.back().timestampsNs.size(), runs.back().segments.size() + 1);
  }
  nlohmann::json trace = nlohmann::json::parse(chromeTrace(runs));
  std::size_t slices = 0;
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (event.value("ph", "") == "X") {
      ++slices;
      EXPECT_GE(event["dur"].get<double>(), 0.0);
    }
  }
  EXPECT_EQ(slices, 3 * runs[0].segments.size());
  EXPECT_THAT(profileSummary(runs), HasSubstr(runs[0].segments[0].name));
}

TEST_F(RunToolsTest, OutputPathsAreCheckedBeforeTheWorkAndWrittenWhole) {
  std::filesystem::create_directories(dir_ / "folder");
  expectError([&] { checkWritableFile(path("folder"), "--output"); }, ErrorCode::InvalidInput,
              "--output " + path("folder") + ": expected a file path, got a folder");
  checkWritableFile(path("file.npy"), "--output");
  expectError([&] { checkWritableFile(path("new/file.npy"), "--output"); }, ErrorCode::InvalidInput, "does not exist");
  writeBytes(dir_ / "file", {1, 2});
  expectError([&] { checkWritableFolder(path("file"), "--output-dir"); }, ErrorCode::InvalidInput, "expected a folder");
  writeFile(path("out.txt"), "hello");
  EXPECT_EQ(readBytes(dir_ / "out.txt"), "hello");
}

TEST_F(RunToolsTest, ReferenceModelReadsOnceRunsAndReportsRequireViolations) {
  // The ADD fixture against TensorFlow's result.
  ReferenceModel add = ReferenceModel::open(addModel());
  ASSERT_EQ(add.inputs().size(), 2u);
  EXPECT_EQ(add.inputs()[0].shape, kAddShape0);
  EXPECT_EQ(add.outputs()[0].dtype, DataType::Float32);
  EXPECT_EQ(add.bindInputs({add.inputs()[1].name, ""}), (std::vector<int>{1, 0}));
  const std::vector<Tensor> given = addInputs();
  const std::vector<NamedTensor> out = add.run({{"", given[0]}, {"", given[1]}});
  EXPECT_EQ(toDoubles(out[0].tensor), [] {
    std::vector<double> tf;
    for (float v : readFloats(addDir() / "tf_result.npy")) tf.push_back(v);
    return tf;
  }());

  // y = a + b in INT32: 2^31 - 1 + 1 overflows, which TOSA's REQUIRE calls unpredictable.
  tosa::Builder b;
  b.output(b.add(b.input("a", tosa::DType::Int32, {2}), b.input("b", tosa::DType::Int32, {2}), "y"));
  Result<tosa::Graph> graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  ASSERT_TRUE(tosa::writeGraph(*graph, dir_ / "add_i32.tosa"));
  ReferenceModel overflow = ReferenceModel::open(path("add_i32.tosa"));
  const std::int32_t a[2] = {2147483647, 5}, one[2] = {1, 1};
  const std::vector<NamedTensor> inputs{{"a", Tensor::copyOf(DataType::Int32, {2}, a, 8)},
                                        {"b", Tensor::copyOf(DataType::Int32, {2}, one, 8)}};
  std::vector<std::string> warnings;
  ReferenceOptions options;
  options.onWarning = [&](const std::string& w) { warnings.push_back(w); };
  const std::vector<NamedTensor> y = overflow.run(inputs, options);
  EXPECT_EQ(toDoubles(y[0].tensor)[1], 6.0);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("add_i32.tosa: unpredictable result (REQUIRE failed)"));
  EXPECT_THAT(warnings[0], HasSubstr("overflows INT32"));
  options.strict = true;
  expectError([&] { overflow.run(inputs, options); }, ErrorCode::Runtime, "overflows INT32");
}

TEST(ToDoubles, DecodesEveryElementType) {
  const std::uint16_t half[2] = {0x3C00, 0xC000};  // fp16 1.0, -2.0
  EXPECT_EQ(toDoubles(Tensor::copyOf(DataType::Float16, {2}, half, 4)), (std::vector<double>{1.0, -2.0}));
  const std::uint16_t bf16[1] = {0x3FC0};  // 1.5
  EXPECT_EQ(toDoubles(Tensor::copyOf(DataType::BFloat16, {1}, bf16, 2)), (std::vector<double>{1.5}));
  const bool flags[2] = {true, false};
  EXPECT_EQ(toDoubles(Tensor::copyOf(DataType::Bool, {2}, flags, 2)), (std::vector<double>{1.0, 0.0}));
  const double wide[1] = {0.1};
  EXPECT_EQ(toDoubles(Tensor::copyOf(DataType::Float64, {1}, wide, 8)), (std::vector<double>{0.1}));
}

}  // namespace
}  // namespace openvgf::testing
