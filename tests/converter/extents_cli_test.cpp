// SPDX-License-Identifier: Apache-2.0
// Bound resources against the extents their shaders were compiled for, as a user meets them:
// a model converted by `openvgf convert` (a biased CONV2D feeding a MAX_POOL2D through an
// intermediate) is edited the way an inconsistent file would be — an intermediate shrunk to
// [1,1,1,1], the CONV2D's weight and bias bindings swapped, the output grown or shrunk — and
// `openvgf run` must refuse each with exit 2, naming the segment, the binding and both sizes,
// before it writes an output. Every edit keeps the file valid otherwise (the decoder, the
// interface and the dataflow checks accept it); each ran with exit 0 and a wrong answer before
// the converter recorded the extents (issue 33, item 6).
#include <filesystem>
#include <functional>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/file_io.h"
#include "tests/support/cli_runner.h"
#include "tosa/builder.h"
#include "tosa/npy.h"
#include "vgf/decoder.h"
#include "vgf/encoder.h"
#include "tests/support/temp_dir.h"

namespace openvgf::testing {
namespace {

namespace fs = std::filesystem;
using tosa::DType;
using tosa::Value;

class ExtentsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = processTempDir("openvgf-extents-cli-test");
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // y = MAX_POOL2D(CONV2D(x, w, b)): x [1,8,8,4], w [6,3,3,4], b [6], y [1,4,4,6].
    tosa::Builder b;
    Value x = b.input("x", DType::Fp32, {1, 8, 8, 4});
    std::vector<float> w(6 * 3 * 3 * 4), bias(6);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * 0.125f;
    for (std::size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(i) - 2.5f;
    Value conv = b.conv2d(x, b.constant<float>(DType::Fp32, {6, 3, 3, 4}, w, "w"),
                          b.constant<float>(DType::Fp32, {6}, bias, "b"), {.pad = {1, 1, 1, 1}, .name = "conv"});
    b.output(b.maxPool2d(conv, {.kernel = {2, 2}, .name = "y"}));
    ASSERT_TRUE(b.write(model_));
    tosa::HostTensor input(DType::Fp32, {1, 8, 8, 4});
    auto values = input.as<float>();
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(static_cast<int>(i % 11) - 5) * 0.25f;
    auto array = tosa::npy::fromHostTensor(input);
    ASSERT_TRUE(array && tosa::npy::writeFile(input_, *array));
    CommandResult c = runCli(fmt::format("convert {} -o {} --no-cache", model_.string(), vgf_.string()));
    ASSERT_EQ(c.exitCode, 0) << c.output;
    auto bytes = readFile(vgf_);
    ASSERT_TRUE(bytes) << bytes.error().message();
    bytes_ = std::move(*bytes);
  }

  // Decodes the converted VGF, applies `edit`, encodes it as `name` and returns its path.
  fs::path mutated(const std::string& name, const std::function<void(vgf::File&)>& edit) {
    auto file = vgf::decode(bytes_);
    EXPECT_TRUE(file) << file.error().message();
    if (!file) return {};
    edit(*file);
    auto encoded = vgf::encode(*file);
    EXPECT_TRUE(encoded) << encoded.error().message();
    const fs::path path = dir_ / name;
    if (encoded) {
      EXPECT_TRUE(writeFileAtomic(path, std::span<const std::uint8_t>(*encoded)));
    }
    return path;
  }

  // `run` exits 2 without an output and names the file, the segment, the binding and sizes.
  void expectRefused(const fs::path& vgf, std::initializer_list<std::string> parts) {
    const fs::path y = dir_ / "y.npy";
    fs::remove(y);
    CommandResult r = runCli(fmt::format("run {} -i {} -o {}", vgf.string(), input_.string(), y.string()));
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find(vgf.filename().string() + ": segments["), std::string::npos) << r.output;
    for (const std::string& part : parts) EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output;
    EXPECT_FALSE(fs::exists(y));
  }

  // The index of the first resource of `category`, and of the segment binding it.
  static std::uint32_t firstResource(const vgf::File& file, vgf::ResourceCategory category) {
    for (std::uint32_t i = 0; i < file.resources.size(); ++i) {
      if (file.resources[i].category == category) return i;
    }
    ADD_FAILURE() << "no resource of category " << vgf::toString(category);
    return 0;
  }

  fs::path dir_;
  fs::path model_ = processTempDir("openvgf-extents-model.tosa");
  fs::path input_ = processTempDir("openvgf-extents-x.npy");
  fs::path vgf_ = processTempDir("openvgf-extents-model.vgf");
  std::vector<std::uint8_t> bytes_;
};

TEST_F(ExtentsCli, TheConvertedModelRunsAndChecks) {
  CommandResult r = runCli(fmt::format("run {} -i {} --check {}", vgf_.string(), input_.string(), model_.string()));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("check: PASS"), std::string::npos) << r.output;
}

TEST_F(ExtentsCli, AShrunkIntermediateIsRefused) {
  const fs::path vgf = mutated("shrunk_intermediate.vgf", [](vgf::File& file) {
    file.resources[firstResource(file, vgf::ResourceCategory::Intermediate)].shape = {1, 1, 1, 1};
  });
  // The CONV2D writes it (binding 3: input, weights, bias, output) before the pool reads it.
  expectRefused(vgf, {"'CONV2D", "set 0 binding 3", "expected the R32_SFLOAT tensor of 384 elements",
                      "got R32_SFLOAT of 1 elements"});
}

TEST_F(ExtentsCli, SwappedWeightAndBiasBindingsAreRefused) {
  const fs::path vgf = mutated("swapped_weight_bias.vgf", [](vgf::File& file) {
    for (vgf::Segment& seg : file.segments) {
      std::vector<vgf::BindingSlot*> constants;
      for (vgf::DescriptorSetInfo& set : seg.setInfos) {
        for (vgf::BindingSlot& slot : set.bindings) {
          if (file.resources[slot.mrtIndex].category == vgf::ResourceCategory::Constant) constants.push_back(&slot);
        }
      }
      if (constants.size() != 2) continue;
      const std::uint32_t first = constants[0]->mrtIndex, second = constants[1]->mrtIndex;
      constants[0]->mrtIndex = second;
      constants[1]->mrtIndex = first;
      for (vgf::BindingSlot& slot : seg.inputs) {
        if (slot.mrtIndex == first || slot.mrtIndex == second) slot.mrtIndex = slot.mrtIndex == first ? second : first;
      }
      return;
    }
    ADD_FAILURE() << "no segment binds two constants";
  });
  expectRefused(vgf, {"'CONV2D", "set 0 binding 1", "expected the R32_SFLOAT tensor of 216 elements",
                      "got R32_SFLOAT of 6 elements"});
}

TEST_F(ExtentsCli, AGrownOrShrunkOutputIsRefused) {
  for (std::int64_t rows : {8, 2}) {
    SCOPED_TRACE(rows);
    const fs::path vgf = mutated(fmt::format("output_{}_rows.vgf", rows), [&](vgf::File& file) {
      file.resources[firstResource(file, vgf::ResourceCategory::Output)].shape = {1, rows, 4, 6};
    });
    expectRefused(vgf, {"'MAX_POOL2D", "set 0 binding 1", "expected the R32_SFLOAT tensor of 96 elements",
                        fmt::format("got R32_SFLOAT of {} elements", rows * 4 * 6)});
  }
}

}  // namespace
}  // namespace openvgf::testing
