// SPDX-License-Identifier: Apache-2.0
// `openvgf convert` and `openvgf run --check` as a user runs them: exit codes, messages,
// --stats, and no output file left behind on failure.
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/file_io.h"
#include "tests/converter/loop_graphs.h"
#include "tests/support/cli_runner.h"
#include "tosa/builder.h"
#include "tosa/npy.h"
#include "vgf/decoder.h"
#include "vgf/encoder.h"
#include "tests/support/temp_dir.h"

using openvgf::testing::CommandResult;
using openvgf::testing::runCli;

namespace openvgf::testing {
namespace {

namespace fs = std::filesystem;
const fs::path kData = OPENVGF_TEST_DATA;

fs::path tempDir() {
  fs::path dir = processTempDir("openvgf-convert-cli-test");
  fs::create_directories(dir);
  return dir;
}

TEST(ConvertCli, ConvertsAndPrintsStats) {
  const fs::path out = tempDir() / "add.vgf";
  fs::remove(out);
  CommandResult r = runCli(fmt::format("convert {} -o {} --stats", (kData / "tosa/test_add_1x4x4x4_f32/model.tosa").string(), out.string()));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(fs::exists(out));
  for (const char* key : {"kernels:", "split-K GEMMs:", "unique modules:", "peak live bytes:", "sum without aliasing:",
                          "constant bytes:"}) {
    EXPECT_NE(r.output.find(key), std::string::npos) << key << "\n" << r.output;
  }
}

// `convert --target native` converts for the device --device names, the one `run --device`
// would open (the device's name is in the target line); a selector that names no device, or
// --device with a target that is the same for every device, is refused before any work.
TEST(ConvertCli, NativeConvertsForTheDeviceDeviceNames) {
  const std::string model = (kData / "tosa/test_add_1x4x4x4_f32/model.tosa").string();
  const fs::path out = tempDir() / "add_native.vgf";
  fs::remove(out);
  CommandResult devices = runCli("devices");
  ASSERT_EQ(devices.exitCode, 0) << devices.output;
  CommandResult r = runCli(fmt::format("convert {} -o {} --target native --device 0 --stats --no-cache", model,
                                       out.string()));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const std::size_t line = r.output.find("target:                 native (");
  ASSERT_NE(line, std::string::npos) << r.output;
  const std::size_t open = line + std::string("target:                 native (").size();
  const std::string name = r.output.substr(open, r.output.find(')', open) - open);
  EXPECT_NE(devices.output.find("0: " + name), std::string::npos) << "device 0 is " << name << "\n" << devices.output;

  CommandResult none = runCli(fmt::format("convert {} -o {} --target native --device 9", model,
                                          (tempDir() / "none.vgf").string()));
  EXPECT_EQ(none.exitCode, 2) << none.output;
  EXPECT_NE(none.output.find("--target native"), std::string::npos) << none.output;
  EXPECT_FALSE(fs::exists(tempDir() / "none.vgf"));
  CommandResult portable = runCli(fmt::format("convert {} -o {} --device 0", model, (tempDir() / "p.vgf").string()));
  EXPECT_EQ(portable.exitCode, 2) << portable.output;
  EXPECT_NE(portable.output.find("--device 0: expected --target native"), std::string::npos) << portable.output;
}

TEST(ConvertCli, RunCheckPassesOnFixture) {
  const fs::path dir = kData / "tosa/test_conv2d_1x1_1x32x32x8_f32_st11_padSAME_dilat11";
  const fs::path out = tempDir() / "conv.vgf";
  CommandResult c = runCli(fmt::format("convert {} -o {} --no-cache", (dir / "model.tosa").string(), out.string()));
  ASSERT_EQ(c.exitCode, 0) << c.output;
  CommandResult r = runCli(fmt::format("run {} -i {} --check {}", out.string(), (dir / "placeholder_0.npy").string(),
                             (dir / "model.tosa").string()));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("TosaOutput_0: PASS"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("check: PASS"), std::string::npos) << r.output;
}

TEST(ConvertCli, BadInputExitsTwoWithoutOutput) {
  const fs::path bad = tempDir() / "garbage.tosa";
  {
    FILE* f = std::fopen(bad.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("this is not a flatbuffer", f);
    std::fclose(f);
  }
  const fs::path out = tempDir() / "garbage.vgf";
  fs::remove(out);
  CommandResult r = runCli(fmt::format("convert {} -o {}", bad.string(), out.string()));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST(ConvertCli, UnsupportedOperatorNamesItAndExitsTwo) {
  tosa::Builder b;
  tosa::Value x = b.input("x", tosa::DType::Fp32, {4});
  auto outs = b.custom({x}, tosa::CustomAttrs{"my_op", "my_domain", {}}, {{tosa::DType::Fp32, {4}, "y"}});
  b.output(outs[0]);
  const fs::path model = tempDir() / "custom.tosa";
  ASSERT_TRUE(b.write(model));
  const fs::path out = tempDir() / "custom.vgf";
  fs::remove(out);
  CommandResult r = runCli(fmt::format("convert {} -o {}", model.string(), out.string()));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("operators[0] CUSTOM (FP32 -> FP32)"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

// Where -o may point: /dev/null and a FIFO are written through (never replaced by a regular
// file), a symbolic link keeps pointing at the file it names, a replaced file keeps its mode,
// and a folder or a missing folder is refused before the conversion.
TEST(ConvertCli, OutputPathsDevNullFifoSymlinkAndMode) {
  const std::string model = (kData / "tosa/test_add_1x4x4x4_f32/model.tosa").string();
  CommandResult null = runCli(fmt::format("convert {} -o /dev/null --stats", model));
  EXPECT_EQ(null.exitCode, 0) << null.output;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));

  const fs::path dir = tempDir() / "outputs";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path fifo = dir / "pipe.vgf";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The shell starts a reader that counts the bytes coming through the FIFO.
  CommandResult piped = runCli(fmt::format("convert {} -o {} & wc -c < {}; wait", model, fifo.string(), fifo.string()));
  EXPECT_EQ(piped.exitCode, 0) << piped.output;
  EXPECT_NE(piped.output.find("3192"), std::string::npos) << piped.output;  // the VGF's size (--stats above)
  EXPECT_TRUE(fs::is_fifo(fifo));

  const fs::path real = dir / "real.vgf", link = dir / "link.vgf";
  ASSERT_TRUE(writeFileAtomic(real, std::string_view("old")));
  ASSERT_EQ(::chmod(real.c_str(), 0604), 0);
  fs::create_symlink(real, link);
  CommandResult linked = runCli(fmt::format("convert {} -o {}", model, link.string()));
  EXPECT_EQ(linked.exitCode, 0) << linked.output;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(fs::file_size(real), 3192u);
  EXPECT_EQ(fs::status(real).permissions(), fs::perms(0604));

  CommandResult folder = runCli(fmt::format("convert {} -o {}", model, dir.string()));
  EXPECT_EQ(folder.exitCode, 2) << folder.output;
  EXPECT_NE(folder.output.find("--output " + dir.string() + ": expected a file path, got a folder"), std::string::npos)
      << folder.output;
  CommandResult missing = runCli(fmt::format("convert {} -o {}", model, (dir / "absent/m.vgf").string()));
  EXPECT_EQ(missing.exitCode, 2) << missing.output;
  EXPECT_NE(missing.output.find("does not exist"), std::string::npos) << missing.output;
  fs::remove_all(dir);
}

// Shapes too large to run: a 2^40-element ADD (valid TOSA, far past what a Vulkan buffer or
// the reference holds) and one whose element count overflows int64 (invalid TOSA).
TEST(ConvertCli, HugeAndOverflowingShapesExitTwoNamingTheTensor) {
  tosa::Builder b;
  tosa::Value x = b.input("x", tosa::DType::Fp32, {1 << 20, 1 << 20});
  tosa::Value y = b.input("y", tosa::DType::Fp32, {1 << 20, 1 << 20});
  b.output(b.add(x, y, "sum"));
  const fs::path model = tempDir() / "huge_add.tosa";
  ASSERT_TRUE(b.write(model));
  const fs::path out = tempDir() / "huge_add.vgf";
  fs::remove(out);
  for (const std::string& command : {fmt::format("convert {} -o {}", model.string(), out.string()),
                                     fmt::format("reference {} -o {}", model.string(), (tempDir() / "sum.npy").string())}) {
    CommandResult r = runCli(command);
    EXPECT_EQ(r.exitCode, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("huge_add.tosa"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("'x'"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("1099511627776 elements"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(tempDir() / "sum.npy"));
}

// The `kernels:` count of `convert --stats` output (-1 if absent).
// An fp32 .npy input of `shape` whose element i is (i % period) * step + offset.
bool writeSawtooth(const fs::path& path, tosa::Shape shape, std::size_t period, float step, float offset) {
  tosa::HostTensor values(tosa::DType::Fp32, std::move(shape));
  auto v = values.as<float>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % period) * step + offset;
  auto array = tosa::npy::fromHostTensor(values);
  return array && tosa::npy::writeFile(path, *array);
}

// `openvgf run VGF -i INPUT --check MODEL` exits 0 with "check: PASS" for each VGF.
void expectRunChecksPass(std::initializer_list<fs::path> vgfs, const fs::path& input, const fs::path& model) {
  for (const fs::path& vgf : vgfs) {
    CommandResult r = runCli(fmt::format("run {} -i {} --check {}", vgf.string(), input.string(), model.string()));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("check: PASS"), std::string::npos) << r.output;
  }
}

int kernelCount(const std::string& statsOutput) {
  const std::size_t at = statsOutput.find("kernels:");
  return at == std::string::npos ? -1 : std::atoi(statsOutput.c_str() + at + std::string_view("kernels:").size());
}

// Two nested WHILE_LOOPs of 1000 trips each, each loop under its own trip limit: unrolling them
// took `convert` (and `run` of the .tosa) past 110 s; the inlining budget refuses them within
// a fraction of a second, naming the loop and the budget.
TEST(ConvertCli, NestedLoopsOverTheInliningBudgetFailFastNamingTheLoop) {
  const fs::path model = tempDir() / "nested_loops.tosa";
  ASSERT_TRUE(nestedCountedLoops(1000, 1000).write(model));
  const fs::path input = tempDir() / "nested_loops_x.npy";
  tosa::HostTensor x(tosa::DType::Int32, {4});
  auto array = tosa::npy::fromHostTensor(x);
  ASSERT_TRUE(array && tosa::npy::writeFile(input, *array));
  const fs::path out = tempDir() / "nested_loops.vgf";
  const fs::path y = tempDir() / "nested_loops_y.npy";
  fs::remove(out);
  fs::remove(y);
  for (const std::string& command :
       {fmt::format("convert {} -o {} --no-cache", model.string(), out.string()),
        fmt::format("run {} -i {} -o {}", model.string(), input.string(), y.string())}) {
    const auto start = std::chrono::steady_clock::now();
    CommandResult r = runCli(command);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.exitCode, 2) << command << "\n" << r.output;
    EXPECT_LT(seconds, 20.0) << command;
    for (const char* part : {"nested_loops.tosa", "WHILE_LOOP (cond_graph '", "body_graph '",
                             "exceeds the budget of 16384 operators for inlined control flow (kMaxInlinedNodes"}) {
      EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output;
    }
  }
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(y));
}

// A converted chain of four kernels (a, b, c intermediates; a and c share an alias group) with
// the segment that writes c removed: the next segment reads c, which nothing writes. The old
// check accepted it because a, of the same group, was written earlier (issue 33, point 4).
TEST(ConvertCli, RunRefusesAReadOfATensorNoSegmentWritesEvenIfItsAliasGroupWasWritten) {
  const fs::path model = tempDir() / "exp_chain.tosa";
  tosa::Builder b;
  tosa::Value x = b.input("x", tosa::DType::Fp32, {1, 8, 8, 4});
  b.output(b.exp(b.exp(b.exp(b.exp(x, "a"), "b"), "c"), "y"));
  ASSERT_TRUE(b.write(model));
  const fs::path vgfPath = tempDir() / "exp_chain.vgf";
  CommandResult c = runCli(fmt::format("convert {} -o {} --passes none --no-cache", model.string(), vgfPath.string()));
  ASSERT_EQ(c.exitCode, 0) << c.output;
  const fs::path input = tempDir() / "exp_chain_x.npy";
  ASSERT_TRUE(writeSawtooth(input, {1, 8, 8, 4}, 7, 0.125f, -0.5f));
  CommandResult whole = runCli(fmt::format("run {} -i {} --check {}", vgfPath.string(), input.string(), model.string()));
  ASSERT_EQ(whole.exitCode, 0) << whole.output;

  auto bytes = readFile(vgfPath);
  ASSERT_TRUE(bytes);
  Result<vgf::File> file = vgf::decode(*bytes);
  ASSERT_TRUE(file) << file.error().message();
  ASSERT_EQ(file->segments.size(), 4u);
  // Segment 2 writes c, segment 3 reads it; a (segment 0 -> 1) shares c's group.
  const std::uint32_t cIndex = file->segments[3].inputs.at(0).mrtIndex;
  const std::uint32_t aIndex = file->segments[1].inputs.at(0).mrtIndex;
  ASSERT_NE(file->resources[cIndex].aliasGroup, vgf::kUnset);
  ASSERT_EQ(file->resources[aIndex].aliasGroup, file->resources[cIndex].aliasGroup) << "a and c no longer share a group";
  const std::string removedName = file->segments[2].name, readerName = file->segments[3].name;
  file->segments.erase(file->segments.begin() + 2);
  Result<std::vector<std::uint8_t>> encoded = vgf::encode(*file);
  ASSERT_TRUE(encoded) << encoded.error().message();
  const fs::path mutated = tempDir() / "exp_chain_segment2_removed.vgf";
  ASSERT_TRUE(writeFileAtomic(mutated, std::span<const std::uint8_t>(*encoded)));
  const fs::path out = tempDir() / "exp_chain_y.npy";
  fs::remove(out);
  CommandResult r = runCli(fmt::format("run {} -i {} -o {}", mutated.string(), input.string(), out.string()));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  for (const std::string& part : {mutated.string(), fmt::format("segments[2] '{}'", readerName),
                                  fmt::format("resources[{}]", cIndex),
                                  std::string("to be written by an earlier segment before it is read")}) {
    EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output;
  }
  EXPECT_FALSE(fs::exists(out));
}

// --passes / --dump-after / --verify-each on y = MUL(EXP(SUB(x, c)), x) with c constant.
class ConvertPassesCli : public ::testing::Test {
 protected:
  void SetUp() override {
    tosa::Builder b;
    tosa::Value x = b.input("x", tosa::DType::Fp32, {1, 8, 8, 4});
    tosa::Value c = b.splat(tosa::DType::Fp32, {1, 1, 1, 4}, 0.5, "c");
    tosa::Value a = b.sub(x, c, "a");
    tosa::Value e = b.exp(a, "e");
    b.output(b.mul(e, x, 0, "y"));
    ASSERT_TRUE(b.write(model_));
    ASSERT_TRUE(writeSawtooth(input_, {1, 8, 8, 4}, 13, 0.25f, -1.5f));
  }

  fs::path model_ = tempDir() / "chain.tosa";
  fs::path input_ = tempDir() / "chain_x.npy";
};

TEST_F(ConvertPassesCli, DisablingFusionGivesMoreKernelsThatStillCheck) {
  const fs::path fused = tempDir() / "chain_fused.vgf";
  CommandResult all = runCli(fmt::format("convert {} -o {} --stats --verify-each", model_.string(), fused.string()));
  ASSERT_EQ(all.exitCode, 0) << all.output;
  EXPECT_EQ(kernelCount(all.output), 1) << all.output;
  for (const char* passes : {"none", "fold-constants,eliminate-dead-code", "eliminate-dead-code,fold-constants"}) {
    SCOPED_TRACE(passes);
    const fs::path out = tempDir() / "chain_unfused.vgf";
    CommandResult c = runCli(fmt::format("convert {} -o {} --stats --passes {}", model_.string(), out.string(), passes));
    ASSERT_EQ(c.exitCode, 0) << c.output;
    EXPECT_EQ(kernelCount(c.output), 3) << c.output;
    CommandResult r = runCli(fmt::format("run {} -i {} --check {}", out.string(), input_.string(), model_.string()));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("check: PASS"), std::string::npos) << r.output;
  }
  CommandResult r = runCli(fmt::format("run {} -i {} --check {}", fused.string(), input_.string(), model_.string()));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("check: PASS"), std::string::npos) << r.output;
}

TEST_F(ConvertPassesCli, UnknownPassExitsTwoListingTheValidNames) {
  const fs::path out = tempDir() / "chain_bad.vgf";
  fs::remove(out);
  CommandResult r = runCli(fmt::format("convert {} -o {} --passes fold-constants,fuse-everything", model_.string(), out.string()));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("'fuse-everything'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fold-constants, elide-reshapes, eliminate-dead-code, fuse-epilogues, fuse-elementwise"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out));
  // --help lists the same passes, the last ones included.
  CommandResult help = runCli("convert --help");
  EXPECT_EQ(help.exitCode, 0) << help.output;
  EXPECT_NE(help.output.find("fuse-transposes, fuse-rows, fold-crops"), std::string::npos) << help.output;
  // A dump after a pass that does not run is refused too.
  r = runCli(fmt::format("convert {} -o {} --passes none --dump-after fuse-elementwise", model_.string(), out.string()));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("expected input or a pass that runs (input)"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(ConvertPassesCli, DumpAfterPrintsTheGraphOrWritesAFile) {
  const fs::path out = tempDir() / "chain_dump.vgf";
  const fs::path dump = tempDir() / "chain_input.txt";
  fs::remove(dump);
  // --dump-after takes one value, so the model path after it stays the positional argument.
  CommandResult r = runCli(fmt::format("convert --dump-after fuse-elementwise {} -o {} --dump-after input={}", model_.string(),
                                out.string(), dump.string()));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  // After fusion: one node carrying the chain, with result types.
  EXPECT_NE(r.output.find("after fuse-elementwise (changed)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("input  x: FP32[1,8,8,4]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("const  c: FP32[1,1,1,4]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("SUB(x, c) -> a: FP32[1,8,8,4]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("|> [4] MUL(e, x, shift_0) -> y: FP32[1,8,8,4]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("output y"), std::string::npos) << r.output;
  // Before the passes (in the file): three separate nodes, nothing on stdout about it.
  EXPECT_EQ(r.output.find("before the passes"), std::string::npos) << r.output;
  auto text = readFile(dump);
  ASSERT_TRUE(text) << dump;
  const std::string listing(text->begin(), text->end());
  EXPECT_NE(listing.find("before the passes"), std::string::npos) << listing;
  EXPECT_NE(listing.find("node   [2] EXP(a) -> e: FP32[1,8,8,4]"), std::string::npos) << listing;
  EXPECT_NE(listing.find("node   [4] MUL(e, x, shift_0) -> y: FP32[1,8,8,4]"), std::string::npos) << listing;
}

// --precision fp16 / bf16 / fp16x3 / bf16x3 / fp32-bf16 need such cooperative matrices: the portable target refuses
// them, naming what they need; an unknown precision and --precision with arm-graph output are
// refused too, and --help explains each.
TEST(ConvertCli, ReducedPrecisionsNeedCooperativeMatricesAndUnknownValuesAreRefused) {
  const fs::path model = tempDir() / "precision.tosa";
  tosa::Builder b;
  b.output(b.exp(b.input("x", tosa::DType::Fp32, {2, 3})));
  ASSERT_TRUE(b.write(model));
  const fs::path out = tempDir() / "precision.vgf";
  fs::remove(out);
  CommandResult r = runCli(fmt::format("convert {} -o {} --precision fp16", model.string(), out.string()));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("--precision fp16: expected a target with fp16 cooperative matrices"), std::string::npos)
      << r.output;
  r = runCli(fmt::format("convert {} -o {} --precision bf16", model.string(), out.string()));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("--precision bf16: expected a target with bf16 cooperative matrices (--target native on a "
                          "GPU that has VK_KHR_cooperative_matrix and VK_KHR_shader_bfloat16)"),
            std::string::npos)
      << r.output;
  r = runCli(fmt::format("convert {} -o {} --precision fp16x3", model.string(), out.string()));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("--precision fp16x3: expected a target with fp16 cooperative matrices"),
            std::string::npos)
      << r.output;
  for (const std::string split : {"bf16x3", "fp32-bf16"}) {
    r = runCli(fmt::format("convert {} -o {} --precision {}", model.string(), out.string(), split));
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--precision " + split + ": expected a target with bf16 cooperative matrices (--target "
                            "native on a GPU that has VK_KHR_cooperative_matrix and VK_KHR_shader_bfloat16)"),
              std::string::npos)
        << r.output;
    EXPECT_FALSE(fs::exists(out));
  }
  r = runCli(fmt::format("convert {} -o {} --precision fp64", model.string(), out.string()));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("expected fp32, fp16, bf16, fp16x3, bf16x3 or fp32-bf16, got 'fp64'"), std::string::npos)
      << r.output;
  r = runCli("convert --help");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("fp16x3: fp32 MATMUL and CONV2D operands each split into two fp16"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("fp32-bf16: per GEMM as many bf16 products (3 or 6) as TOSA's"), std::string::npos)
      << r.output;
  r = runCli(fmt::format("convert {} -o {} --format arm-graph --precision fp16", model.string(), out.string()));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_FALSE(fs::exists(out));
  r = runCli(fmt::format("convert {} -o {} --precision fp32", model.string(), out.string()));
  EXPECT_EQ(r.exitCode, 0) << r.output;
}

// A softmax over attention scores whose values come out of per-head MATMULs, as a user would
// convert it: fuse-rows makes the softmax one kernel, fuse-transposes lets the projection
// store its heads transposed; `run --check` passes with and without those two passes.
TEST(ConvertRowsCli, SoftmaxAndHeadTransposesFuseAndCheck) {
  const fs::path model = tempDir() / "heads_softmax.tosa";
  const fs::path input = tempDir() / "heads_softmax_x.npy";
  {
    tosa::Builder b;
    tosa::Value x = b.input("x", tosa::DType::Fp32, {1, 16, 32});
    std::vector<float> w(32 * 32);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 7) % 11) * 0.05f - 0.25f;
    auto project = [&](const char* name) { return b.matmul(x, b.constant(tosa::DType::Fp32, {1, 32, 32}, w, name)); };
    tosa::Value q = b.reshape(b.transpose(b.reshape(project("wq"), {1, 16, 4, 8}), {0, 2, 1, 3}), {4, 16, 8});
    tosa::Value k = b.reshape(b.transpose(b.reshape(project("wk"), {1, 16, 4, 8}), {0, 2, 3, 1}), {4, 8, 16});
    tosa::Value scores = b.matmul(q, k);
    tosa::Value e = b.exp(b.sub(scores, b.reduceMax(scores, 2)));
    b.output(b.mul(e, b.reciprocal(b.reduceSum(e, 2)), 0, "probs"));
    ASSERT_TRUE(b.write(model));
    ASSERT_TRUE(writeSawtooth(input, {1, 16, 32}, 17, 0.125f, -1.0f));
  }
  const fs::path fused = tempDir() / "heads_softmax.vgf";
  CommandResult c = runCli(fmt::format("convert {} -o {} --stats --verify-each --dump-after fuse-rows", model.string(),
                                       fused.string()));
  ASSERT_EQ(c.exitCode, 0) << c.output;
  // Two projections storing transposed heads, the scores MATMUL and the softmax.
  EXPECT_EQ(kernelCount(c.output), 4) << c.output;
  EXPECT_NE(c.output.find("|> [6] TRANSPOSE("), std::string::npos) << c.output;
  EXPECT_NE(c.output.find("|> [15] TRANSPOSE("), std::string::npos) << c.output;
  EXPECT_NE(c.output.find("|> [27] MUL(exp_21, reciprocal_23, shift_24) -> probs"), std::string::npos) << c.output;
  const fs::path unfused = tempDir() / "heads_softmax_unfused.vgf";
  CommandResult u = runCli(fmt::format("convert {} -o {} --stats --passes fold-constants,elide-reshapes,"
                                       "eliminate-dead-code,fuse-epilogues,fuse-elementwise",
                                       model.string(), unfused.string()));
  ASSERT_EQ(u.exitCode, 0) << u.output;
  EXPECT_EQ(kernelCount(u.output), 10) << u.output;
  expectRunChecksPass({fused, unfused}, input, model);
}

// A stride-2 projection behind a crop, as exporters write it to meet TOSA's stride rule:
// fold-crops drops the SLICE kernel (`--dump-after` shows the crop alias), and `run --check`
// passes with and without the pass.
TEST(ConvertCropsCli, StridedProjectionReadsTheUncroppedInput) {
  const fs::path model = tempDir() / "crop_projection.tosa";
  const fs::path input = tempDir() / "crop_projection_x.npy";
  {
    tosa::Builder b;
    tosa::Value x = b.input("x", tosa::DType::Fp32, {1, 8, 8, 16});
    std::vector<float> w(8 * 16);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 5) % 13) * 0.05f - 0.3f;
    tosa::ConvParams p;
    p.pad = {0, 0, 0, 0};
    p.stride = {2, 2};
    p.dilation = {1, 1};
    tosa::Value c = b.slice(x, {0, 0, 0, 0}, {1, 7, 7, 16}, "crop");
    b.output(b.conv2d(c, b.constant(tosa::DType::Fp32, {8, 1, 1, 16}, w), std::nullopt, p));
    ASSERT_TRUE(b.write(model));
    ASSERT_TRUE(writeSawtooth(input, {1, 8, 8, 16}, 23, 0.1f, -1.0f));
  }
  const fs::path folded = tempDir() / "crop_projection.vgf";
  CommandResult c = runCli(fmt::format("convert {} -o {} --stats --verify-each --dump-after fold-crops", model.string(),
                                       folded.string()));
  ASSERT_EQ(c.exitCode, 0) << c.output;
  EXPECT_EQ(kernelCount(c.output), 1) << c.output;
  EXPECT_NE(c.output.find("crop   crop: FP32[1,7,7,16] = x"), std::string::npos) << c.output;
  const fs::path copied = tempDir() / "crop_projection_copied.vgf";
  CommandResult u = runCli(fmt::format("convert {} -o {} --stats --passes fold-constants,eliminate-dead-code",
                                       model.string(), copied.string()));
  ASSERT_EQ(u.exitCode, 0) << u.output;
  EXPECT_EQ(kernelCount(u.output), 2) << u.output;
  expectRunChecksPass({folded, copied}, input, model);
}

}  // namespace
}  // namespace openvgf::testing
