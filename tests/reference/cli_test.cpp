// SPDX-License-Identifier: Apache-2.0
// `openvgf reference` run as a user would: outputs written by name, exit codes and messages.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "common/file_io.h"
#include "graph_helpers.h"
#include "tests/support/cli_runner.h"
#include "tosa/npy.h"
#include "tosa/writer.h"

using openvgf::testing::CommandResult;
using openvgf::testing::runCli;

namespace openvgf::tosa {
namespace {

using namespace reftest;

const std::string kAdd = std::string(OPENVGF_TEST_DATA) + "/tosa/test_add_1x4x4x4_f32/";

class ReferenceCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("openvgf_reference_cli_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(ReferenceCli, WritesEachOutputByNameAndMatchesTheFixture) {
  CommandResult r = runCli("reference " + kAdd + "model.tosa --input " + kAdd + "placeholder_0.npy --input TosaInput_1=" +
                           kAdd + "placeholder_1.npy --output-dir " + dir_.string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("TosaOutput_0 FP32 [1,4,4,4]"), std::string::npos) << r.output;
  auto got = npy::readTensor(dir_ / "TosaOutput_0.npy", DType::Fp32);
  ASSERT_TRUE(got) << got.error().message();
  auto want = npy::readTensor(kAdd + "tf_result.npy", DType::Fp32);
  ASSERT_TRUE(want);
  auto g = floatValues(*got);
  auto w = floatValues(*want);
  ASSERT_EQ(g.size(), w.size());
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], 1e-5 * std::max(1.0, std::fabs(w[i])));
}

TEST_F(ReferenceCli, PreciseWritesFloat64) {
  std::filesystem::create_directories(dir_);
  const auto out = dir_ / "out.npy";
  CommandResult r = runCli("reference " + kAdd + "model.tosa --precise -i " + kAdd + "placeholder_0.npy -i " + kAdd +
                           "placeholder_1.npy --output " + out.string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  auto array = npy::readFile(out);
  ASSERT_TRUE(array) << array.error().message();
  EXPECT_EQ(array->dtype, npy::DataType::Float64);
  EXPECT_EQ(array->shape, (Shape{1, 4, 4, 4}));
}

TEST_F(ReferenceCli, BadInputsExitWithCode2) {
  CommandResult missing = runCli("reference " + kAdd + "model.tosa --input " + kAdd + "placeholder_0.npy --output-dir " +
                                 dir_.string());
  EXPECT_EQ(missing.exitCode, 2);
  EXPECT_NE(missing.output.find("expected 2 inputs"), std::string::npos) << missing.output;
  EXPECT_FALSE(std::filesystem::exists(dir_));
  CommandResult swapped = runCli("reference " + kAdd + "model.tosa --input " + kAdd + "placeholder_1.npy --input " + kAdd +
                                 "placeholder_0.npy");
  EXPECT_EQ(swapped.exitCode, 2);
  EXPECT_NE(swapped.output.find("expected shape [1,4,4,1]"), std::string::npos) << swapped.output;
  CommandResult unknown = runCli("reference " + kAdd + "model.tosa --input nope=" + kAdd + "placeholder_0.npy");
  EXPECT_EQ(unknown.exitCode, 2);
  EXPECT_NE(unknown.output.find("'nope'"), std::string::npos) << unknown.output;
  CommandResult notTosa = runCli("reference " + kAdd + "placeholder_0.npy");
  EXPECT_EQ(notTosa.exitCode, 2) << notTosa.output;
  // Found by the mutation campaign: "(1,04, 4, 1)" is no Python literal and numpy refuses it.
  auto bytes = readFile(kAdd + "placeholder_0.npy");
  ASSERT_TRUE(bytes);
  std::string text(bytes->begin(), bytes->end());
  const std::size_t at = text.find("(1, 4, 4, 1)");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 12, "(1,04, 4, 1)");
  std::filesystem::create_directories(dir_);
  ASSERT_TRUE(writeFileAtomic(dir_ / "zeros.npy", std::vector<std::uint8_t>(text.begin(), text.end())));
  CommandResult zeros = runCli("reference " + kAdd + "model.tosa --input " + (dir_ / "zeros.npy").string() + " --input " +
                               kAdd + "placeholder_1.npy --output " + (dir_ / "y.npy").string());
  EXPECT_EQ(zeros.exitCode, 2) << zeros.output;
  EXPECT_NE(zeros.output.find((dir_ / "zeros.npy").string() + ": npy header: expected a dimension without leading zeros"),
            std::string::npos)
      << zeros.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "y.npy"));
  // Also from the campaign: a header ending in a vertical tab instead of a newline.
  std::string unterminated(bytes->begin(), bytes->end());
  const std::size_t newline = unterminated.find('\n');
  ASSERT_NE(newline, std::string::npos);
  unterminated[newline] = '\x0b';
  ASSERT_TRUE(writeFileAtomic(dir_ / "vt.npy", std::vector<std::uint8_t>(unterminated.begin(), unterminated.end())));
  CommandResult vt = runCli("reference " + kAdd + "model.tosa --input " + (dir_ / "vt.npy").string() + " --input " + kAdd +
                            "placeholder_1.npy --output " + (dir_ / "y.npy").string());
  EXPECT_EQ(vt.exitCode, 2) << vt.output;
  EXPECT_NE(vt.output.find((dir_ / "vt.npy").string() + ": npy header: expected a header that ends with a newline, got "
                                                         "byte 0x0b"),
            std::string::npos)
      << vt.output;
}

TEST_F(ReferenceCli, InvalidGraphIsRefusedWithCode2) {
  // TRANSPOSE with perms that are not a permutation: an ERROR_IF the verifier reports.
  GraphBuilder b;
  auto x = b.input(ints(DType::Int8, {2, 3}, {}));
  auto out = b.tensor(DType::Int8, {3, 2});
  b.op(Op::Transpose, {x}, {out}, TransposeAttrs{{0, 0}});
  b.output(out);
  std::filesystem::create_directories(dir_);
  ASSERT_TRUE(writeGraph(b.graph(), dir_ / "bad.tosa"));
  ASSERT_TRUE(npy::writeTensor(dir_ / "x.npy", ints(DType::Int8, {2, 3}, {1, 2, 3, 4, 5, 6})));
  CommandResult r = runCli("reference " + (dir_ / "bad.tosa").string() + " --input " + (dir_ / "x.npy").string() +
                           " --output " + (dir_ / "y.npy").string());
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("TRANSPOSE"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "y.npy"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "y.npy"));
}

// docs/limits.md: the interpreter holds at most 2^28 elements per tensor; a graph that claims
// more is refused before any input is read (the input file need not even exist).
TEST_F(ReferenceCli, TensorsOverTheInterpretersLimitAreRefusedBeforeReadingInputs) {
  GraphBuilder b;
  const std::string x = b.tensor(DType::Int8, {1, 16384, 16384, 2});  // 2^29 elements
  b.block().inputs.push_back(x);
  const std::string out = b.tensor(DType::Int8, {1, 16384, 16384, 2});
  b.op(Op::Identity, {x}, {out});
  b.output(out);
  std::filesystem::create_directories(dir_);
  ASSERT_TRUE(writeGraph(b.graph(), dir_ / "big.tosa"));
  CommandResult r = runCli("reference " + (dir_ / "big.tosa").string() + " --input " + (dir_ / "missing.npy").string() +
                           " --output " + (dir_ / "y.npy").string());
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find((dir_ / "big.tosa").string()), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("expected at most 268435456 elements (the reference interpreter's limit)"), std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "y.npy"));
}

// docs/limits.md: control flow nests at most 256 deep (TOSA level "none", MAX_NESTING). The
// main block calls g0, g0 calls g1, ...: 257 levels are refused by the verifier, naming the file.
TEST_F(ReferenceCli, ControlFlowNestedDeeperThanMaxNestingIsRefused) {
  auto nested = [](int levels) {
    GraphBuilder b;
    const std::string c = b.input(ints(DType::Bool, {1}, {}));
    const std::string x = b.input(ints(DType::Int32, {1}, {}));
    const std::string y = b.tensor(DType::Int32, {1});
    b.op(Op::CondIf, {c, x}, {y}, CondIfAttrs{"g0", "g0"});
    b.output(y);
    for (int level = 0; level < levels; ++level) {
      // A branch takes the operator's inputs after the condition; each level spells its own.
      Block g;
      g.name = "g" + std::to_string(level);
      g.tensors = {makeTensor("x", DType::Int32, {1}), makeTensor("y", DType::Int32, {1})};
      g.inputs = {"x"};
      g.outputs = {"y"};
      const std::string next = "g" + std::to_string(level + 1);
      if (level + 1 < levels) {
        g.tensors.push_back(makeTensor("c", DType::Bool, {1}, ints(DType::Bool, {1}, {1}).bytes));
        g.operators.push_back(makeOp(Op::Const, {}, {"c"}));
        g.operators.push_back(makeOp(Op::CondIf, {"c", "x"}, {"y"}, CondIfAttrs{next, next}));
      } else {
        g.operators.push_back(makeOp(Op::Abs, {"x"}, {"y"}));
      }
      b.graph().regions.push_back(Region{g.name, {g}});
    }
    return b.graph();
  };
  std::filesystem::create_directories(dir_);
  ASSERT_TRUE(npy::writeTensor(dir_ / "c.npy", ints(DType::Bool, {1}, {1})));
  ASSERT_TRUE(npy::writeTensor(dir_ / "x.npy", ints(DType::Int32, {1}, {-7})));
  auto reference = [&](const std::string& name) {
    return runCli("reference " + (dir_ / name).string() + " --input " + (dir_ / "c.npy").string() + " --input " +
                  (dir_ / "x.npy").string() + " --output " + (dir_ / "y.npy").string());
  };
  // 256 levels below the main block: the deepest block sits at depth 256, the limit itself.
  ASSERT_TRUE(writeGraph(nested(256), dir_ / "deep.tosa"));
  CommandResult r = reference("deep.tosa");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  auto y = npy::readFile(dir_ / "y.npy");
  ASSERT_TRUE(y);
  std::int32_t value = 0;
  std::memcpy(&value, y->data.data(), 4);
  EXPECT_EQ(value, 7);  // ABS at the deepest level
  std::filesystem::remove(dir_ / "y.npy");
  ASSERT_TRUE(writeGraph(nested(257), dir_ / "deeper.tosa"));
  r = reference("deeper.tosa");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("deeper.tosa"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("expected nesting depth <= 256 (MAX_NESTING)"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "y.npy"));
}

// docs/limits.md: a WHILE_LOOP whose condition never turns false stops at the interpreter's
// iteration limit with an error that names the file and the loop, instead of running forever.
TEST_F(ReferenceCli, AWhileLoopThatNeverEndsStopsAtTheIterationLimit) {
  GraphBuilder b;
  const std::string i = b.input(ints(DType::Int32, {1}, {}));
  const std::string out = b.tensor(DType::Int32, {1});
  b.op(Op::WhileLoop, {i}, {out}, WhileLoopAttrs{"cond", "body"});
  b.output(out);
  Block cond;
  cond.name = "cond";
  cond.tensors = {makeTensor("ci", DType::Int32, {1}), makeTensor("cr", DType::Bool, {1})};
  cond.inputs = {"ci"};
  cond.outputs = {"cr"};
  cond.operators.push_back(makeOp(Op::Equal, {"ci", "ci"}, {"cr"}));  // always true
  Block body;
  body.name = "body";
  body.tensors = {makeTensor("bi", DType::Int32, {1}), makeTensor("bo", DType::Int32, {1})};
  body.inputs = {"bi"};
  body.outputs = {"bo"};
  body.operators.push_back(makeOp(Op::Identity, {"bi"}, {"bo"}));
  b.graph().regions.push_back(Region{"cond", {cond}});
  b.graph().regions.push_back(Region{"body", {body}});
  std::filesystem::create_directories(dir_);
  ASSERT_TRUE(writeGraph(b.graph(), dir_ / "forever.tosa"));
  ASSERT_TRUE(npy::writeTensor(dir_ / "i.npy", ints(DType::Int32, {1}, {0})));
  CommandResult r = runCli("reference " + (dir_ / "forever.tosa").string() + " --input " + (dir_ / "i.npy").string() +
                           " --output " + (dir_ / "y.npy").string());
  EXPECT_NE(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("forever.tosa"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("WHILE_LOOP did not finish after 1000000 iterations"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "y.npy"));
}

}  // namespace
}  // namespace openvgf::tosa
