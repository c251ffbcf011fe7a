// SPDX-License-Identifier: Apache-2.0
// Arm's committed VGF test files (tests/data/vgf, see third_party_notes.md) decode with the
// values specs/vgf.md §1.2, §1.7 and §6 lists for them.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/file_io.h"
#include "vgf/decoder.h"
#include "vgf/encoder.h"

namespace openvgf::vgf {
namespace {

std::vector<std::uint8_t> fixture(const std::string& name) {
  Result<std::vector<std::uint8_t>> bytes = readFile(std::string(OPENVGF_TEST_DATA) + "/vgf/" + name);
  EXPECT_TRUE(bytes) << name;
  return bytes ? *bytes : std::vector<std::uint8_t>{};
}

void expectMaxpoolModel(const File& file) {
  EXPECT_EQ(file.vkHeaderVersion, 999);
  ASSERT_EQ(file.modules.size(), 1u);
  EXPECT_EQ(file.modules[0].type, ModuleType::Graph);
  EXPECT_EQ(file.modules[0].name, "single_maxpool");
  EXPECT_EQ(file.modules[0].entryPoint, "main");
  EXPECT_EQ(file.modules[0].codeKind, CodeKind::Spirv);
  ASSERT_EQ(file.modules[0].spirv.size(), 1u);
  EXPECT_EQ(file.modules[0].spirv[0], 0u);
  ASSERT_EQ(file.resources.size(), 2u);
  EXPECT_EQ(file.resources[0].category, ResourceCategory::Input);
  EXPECT_EQ(file.resources[0].vkFormat, 14u);
  EXPECT_EQ(file.resources[0].descriptorType, kDescriptorTypeTensorArm);
  EXPECT_EQ(file.resources[0].shape, (std::vector<std::int64_t>{1, 16, 16, 16}));
  EXPECT_TRUE(file.resources[0].strides.empty());
  EXPECT_EQ(file.resources[0].aliasGroup, kUnset);
  EXPECT_EQ(file.resources[1].category, ResourceCategory::Output);
  EXPECT_EQ(file.resources[1].shape, (std::vector<std::int64_t>{1, 8, 8, 16}));
  ASSERT_EQ(file.segments.size(), 1u);
  const Segment& segment = file.segments[0];
  EXPECT_EQ(segment.type, ModuleType::Graph);
  EXPECT_EQ(segment.name, "segment_maxpool_graph1");
  EXPECT_EQ(segment.moduleIndex, 0u);
  ASSERT_EQ(segment.setInfos.size(), 1u);
  EXPECT_EQ(segment.setInfos[0].setIndex, kUnset);  // absent means unset, not 0
  EXPECT_EQ(segment.setInfos[0].bindings, (std::vector<BindingSlot>{{0, 0}, {1, 1}}));
  EXPECT_EQ(segment.inputs, (std::vector<BindingSlot>{{0, 0}}));
  EXPECT_EQ(segment.outputs, (std::vector<BindingSlot>{{1, 1}}));
  EXPECT_EQ(segment.dispatchShape, (std::array<std::uint32_t, 3>{0, 0, 0}));
  EXPECT_TRUE(segment.constants.empty());
  EXPECT_EQ(file.inputNames, (std::vector<std::string>{"input_0"}));
  EXPECT_EQ(file.outputNames, (std::vector<std::string>{"output_0"}));
  EXPECT_EQ(file.inputs, (std::vector<BindingSlot>{{0, 0}}));
  EXPECT_EQ(file.outputs, (std::vector<BindingSlot>{{1, 1}}));
  EXPECT_TRUE(file.constants.empty());
}

TEST(VgfFixtures, SingleMaxpool043) {
  std::vector<std::uint8_t> bytes = fixture("single_maxpool_graph_v0_4_3.vgf");
  ASSERT_EQ(bytes.size(), 768u);
  Result<File> file = decode(bytes);
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_EQ(file->version, (Version{0, 4, 3}));
  EXPECT_EQ(file->moduleSection, (SectionRange{128, 112}));
  EXPECT_EQ(file->sequenceSection, (SectionRange{240, 304}));
  EXPECT_EQ(file->resourceSection, (SectionRange{544, 208}));
  EXPECT_EQ(file->constantSection, (SectionRange{752, 16}));
  EXPECT_FALSE(file->legacyConstantSection);
  expectMaxpoolModel(*file);
}

TEST(VgfFixtures, SingleMaxpoolPre040) {
  std::vector<std::uint8_t> bytes = fixture("single_maxpool_graph_pre_v0_4_0.vgf");
  ASSERT_EQ(bytes.size(), 776u);
  Result<File> file = decode(bytes);
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_EQ(file->version, (Version{0, 3, 0}));
  EXPECT_EQ(file->moduleSection, (SectionRange{128, 112}));
  EXPECT_EQ(file->sequenceSection, (SectionRange{240, 304}));
  EXPECT_EQ(file->resourceSection, (SectionRange{544, 208}));
  EXPECT_EQ(file->constantSection, (SectionRange{752, 24}));
  EXPECT_TRUE(file->legacyConstantSection);
  expectMaxpoolModel(*file);
}

void expectConvModel(const File& file) {
  ASSERT_EQ(file.resources.size(), 3u);
  const Resource& weights = file.resources[2];
  EXPECT_EQ(weights.category, ResourceCategory::Constant);
  EXPECT_EQ(weights.vkFormat, 14u);
  EXPECT_EQ(weights.descriptorType, kNoDescriptorType);
  EXPECT_EQ(weights.shape, (std::vector<std::int64_t>{16, 2, 2, 16}));
  ASSERT_EQ(file.constants.size(), 1u);
  EXPECT_EQ(file.constants[0].mrtIndex, 2u);
  EXPECT_EQ(file.constants[0].sparsityDimension, -1);
  EXPECT_EQ(file.constants[0].data.size(), 1024u);
  ASSERT_EQ(file.segments.size(), 1u);
  EXPECT_EQ(file.segments[0].name, "segment_conv2d_rescale_graph2");
  EXPECT_EQ(file.segments[0].constants, (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(file.segments[0].constantBindings, (std::vector<ConstantBinding>{{0, 0}}));
}

TEST(VgfFixtures, Conv2dRescale043) {
  std::vector<std::uint8_t> bytes = fixture("simple_conv2d_rescale_graph_v0_4_3.vgf");
  ASSERT_EQ(bytes.size(), 1912u);
  Result<File> file = decode(bytes);
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_EQ(file->version, (Version{0, 4, 3}));
  EXPECT_EQ(file->moduleSection, (SectionRange{128, 112}));
  EXPECT_EQ(file->sequenceSection, (SectionRange{240, 316}));
  EXPECT_EQ(file->resourceSection, (SectionRange{560, 288}));
  EXPECT_EQ(file->constantSection, (SectionRange{848, 1064}));
  expectConvModel(*file);
  // The payload starts after the 16-byte head and one 24-byte record.
  EXPECT_EQ(file->constants[0].data.data(), bytes.data() + 848 + 40);
}

TEST(VgfFixtures, Conv2dRescaleOutdatedUnalignedSections) {
  std::vector<std::uint8_t> bytes = fixture("simple_conv2d_rescale_graph_outdated.vgf");
  ASSERT_EQ(bytes.size(), 1940u);
  Result<File> file = decode(bytes);
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_EQ(file->version, (Version{0, 3, 0}));
  EXPECT_EQ(file->resourceSection, (SectionRange{556, 288}));
  EXPECT_EQ(file->constantSection, (SectionRange{844, 1096}));
  EXPECT_TRUE(file->legacyConstantSection);
  expectConvModel(*file);
  // Both versions carry the same weights.
  std::vector<std::uint8_t> newer = fixture("simple_conv2d_rescale_graph_v0_4_3.vgf");
  Result<File> newerFile = decode(newer);
  ASSERT_TRUE(newerFile);
  EXPECT_TRUE(std::equal(file->constants[0].data.begin(), file->constants[0].data.end(),
                         newerFile->constants[0].data.begin(), newerFile->constants[0].data.end()));
}

TEST(VgfFixtures, UpgradeThroughEncoderKeepsContent) {
  // Decoding a 0.3.0 file and encoding it gives a 0.4.3 file with the same content.
  std::vector<std::uint8_t> bytes = fixture("simple_conv2d_rescale_graph_outdated.vgf");
  Result<File> file = decode(bytes);
  ASSERT_TRUE(file);
  Result<std::vector<std::uint8_t>> upgraded = encode(*file);
  ASSERT_TRUE(upgraded) << upgraded.error().message();
  Result<File> again = decode(*upgraded);
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_EQ(again->version, (Version{0, 4, 3}));
  EXPECT_FALSE(again->legacyConstantSection);
  expectConvModel(*again);
  EXPECT_EQ(*encode(*again), *upgraded);
}

}  // namespace
}  // namespace openvgf::vgf
