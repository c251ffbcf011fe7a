// SPDX-License-Identifier: Apache-2.0
// Encoder / decoder / Builder round trips: every field of the File model survives
// encode -> decode, re-encoding is byte-identical, and the bytes follow the 0.4.3 layout
// rules (header, alignment, unpadded sizes, omitted defaults, CONST00 padding). Layout
// oracles read the bytes directly (offsets and flatbuffer vtables), not through the decoder.
#include <flatbuffers/flatbuffers.h>
#include <gtest/gtest.h>

#include <cstring>

#include "vgf/builder.h"
#include "common/bytes.h"
#include "vgf/decoder.h"
#include "vgf/encoder.h"
#include "vgf/vgf_generated.h"

namespace openvgf::vgf {
namespace {

/// A builder that uses every feature of the model.
Builder fullBuilder() {
  Builder b(321);
  ModuleId graph =
      b.addModule("graph_partition_0", "main", {0x07230203u, 0x00010600u, 42u, 7u}, ModuleType::Graph);
  ModuleId glsl = b.addSourceModule("glsl_shader", "entry", CodeKind::Glsl, "void main() {}");
  ModuleId hlsl =
      b.addSourceModule("hlsl_shader", "CSMain", CodeKind::Hlsl, "[numthreads(1,1,1)] void CSMain() {}");
  ModuleId substituted = b.addModule("substituted", "main", {});
  ResourceId in = b.addResource(ResourceCategory::Input, 100, {1, 8, 8, 4}, kUnset, kDescriptorTypeTensorArm);
  ResourceId out = b.addResource(ResourceCategory::Output, 14, {1, 4}, kUnset, kDescriptorTypeTensorArm);
  ResourceId mid = b.addResource(ResourceCategory::Intermediate, 99, {2, 3}, 5);
  ResourceId mid2 = b.addResource(ResourceCategory::Intermediate, 1000460000, {6}, 5, 1);
  b.setStrides(mid, {12, 4});
  b.setSampler(mid2, SamplerConfig{1, 2, 3, 4, 5});
  ResourceId weights = b.addResource(ResourceCategory::Constant, 14, {16, 2, 2, 16});
  ResourceId bias = b.addResource(ResourceCategory::Constant, 99, {5});
  ResourceId dynamic = b.addResource(ResourceCategory::Intermediate, 76, {INT64_MIN, 3});
  std::vector<std::uint8_t> weightBytes(1024);
  for (std::size_t i = 0; i < weightBytes.size(); ++i) weightBytes[i] = static_cast<std::uint8_t>(i * 7);
  ConstantId c0 = b.addConstant(weights, weightBytes, 3);
  ConstantId c1 = b.addConstant(bias, std::vector<std::uint8_t>{1, 2, 3, 4, 5});
  SegmentId s0 = b.addSegment("graph_segment_0", graph, {DescriptorSet{kUnset, {{0, in}, {1, mid}}}},
                              {{0, in}}, {{1, mid}}, {c0, c1});
  b.setConstantBindings(s0, {{10000, c1}, {0, c0}});
  SegmentId s1 = b.addSegment("compute_segment_1", glsl,
                              {DescriptorSet{2, {{0, mid}, {3, mid2}}}, DescriptorSet{kUnset, {{5, out}}}},
                              {{0, mid}, {3, mid2}}, {{5, out}}, {}, {8, 4, 1});
  b.setPushConstantRanges(s1, {{32, 0, 16}, {32, 16, 8}});
  b.addSegment("hlsl_segment", hlsl, {}, {}, {{9, dynamic}}, {}, {1, 1, 1});
  b.addSegment("substituted_segment", substituted, {}, {}, {}, {c1}, {2, 2, 2});
  b.setInputs({{0, in}}, {"x"});
  b.setOutputs({{5, out}, {9, dynamic}}, {"y", "z"});
  return b;
}

void expectSameContent(const File& a, const File& b) {
  ASSERT_EQ(a.modules.size(), b.modules.size());
  for (std::size_t i = 0; i < a.modules.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(a.modules[i].type, b.modules[i].type);
    EXPECT_EQ(a.modules[i].name, b.modules[i].name);
    EXPECT_EQ(a.modules[i].entryPoint, b.modules[i].entryPoint);
    EXPECT_EQ(a.modules[i].codeKind, b.modules[i].codeKind);
    EXPECT_EQ(a.modules[i].hasCode, b.modules[i].hasCode);
    EXPECT_TRUE(std::equal(a.modules[i].spirv.begin(), a.modules[i].spirv.end(), b.modules[i].spirv.begin(),
                           b.modules[i].spirv.end()));
    EXPECT_EQ(a.modules[i].source, b.modules[i].source);
  }
  ASSERT_EQ(a.resources.size(), b.resources.size());
  for (std::size_t i = 0; i < a.resources.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(a.resources[i].descriptorType, b.resources[i].descriptorType);
    EXPECT_EQ(a.resources[i].vkFormat, b.resources[i].vkFormat);
    EXPECT_EQ(a.resources[i].category, b.resources[i].category);
    EXPECT_EQ(a.resources[i].hasDescription, b.resources[i].hasDescription);
    EXPECT_EQ(a.resources[i].shape, b.resources[i].shape);
    EXPECT_EQ(a.resources[i].strides, b.resources[i].strides);
    EXPECT_EQ(a.resources[i].sampler, b.resources[i].sampler);
    EXPECT_EQ(a.resources[i].aliasGroup, b.resources[i].aliasGroup);
  }
  ASSERT_EQ(a.segments.size(), b.segments.size());
  for (std::size_t i = 0; i < a.segments.size(); ++i) {
    SCOPED_TRACE(i);
    const Segment& x = a.segments[i];
    const Segment& y = b.segments[i];
    EXPECT_EQ(x.type, y.type);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.moduleIndex, y.moduleIndex);
    ASSERT_EQ(x.setInfos.size(), y.setInfos.size());
    for (std::size_t k = 0; k < x.setInfos.size(); ++k) {
      EXPECT_EQ(x.setInfos[k].setIndex, y.setInfos[k].setIndex);
      EXPECT_EQ(x.setInfos[k].bindings, y.setInfos[k].bindings);
    }
    EXPECT_EQ(x.inputs, y.inputs);
    EXPECT_EQ(x.outputs, y.outputs);
    EXPECT_EQ(x.constants, y.constants);
    EXPECT_EQ(x.dispatchShape, y.dispatchShape);
    EXPECT_EQ(x.pushConstantRanges, y.pushConstantRanges);
    EXPECT_EQ(x.constantBindings, y.constantBindings);
    EXPECT_EQ(x.hasExplicitConstantBindings, y.hasExplicitConstantBindings);
  }
  ASSERT_EQ(a.constants.size(), b.constants.size());
  for (std::size_t i = 0; i < a.constants.size(); ++i) {
    EXPECT_EQ(a.constants[i].mrtIndex, b.constants[i].mrtIndex);
    EXPECT_EQ(a.constants[i].sparsityDimension, b.constants[i].sparsityDimension);
    EXPECT_TRUE(std::equal(a.constants[i].data.begin(), a.constants[i].data.end(),
                           b.constants[i].data.begin(), b.constants[i].data.end()));
  }
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.outputs, b.outputs);
  EXPECT_EQ(a.inputNames, b.inputNames);
  EXPECT_EQ(a.outputNames, b.outputNames);
  EXPECT_EQ(a.vkHeaderVersion, b.vkHeaderVersion);
}

TEST(VgfCodec, RoundTripsEveryField) {
  Builder b = fullBuilder();
  Result<std::vector<std::uint8_t>> bytes = b.finish();
  ASSERT_TRUE(bytes) << bytes.error().message();
  Result<File> decoded = decode(*bytes);
  ASSERT_TRUE(decoded) << decoded.error().message();
  expectSameContent(b.file(), *decoded);
  EXPECT_EQ(decoded->version, (Version{0, 4, 3}));
  EXPECT_FALSE(decoded->legacyMagic);
  EXPECT_FALSE(decoded->legacyConstantSection);
  // The module without code keeps its SPIR-V tag but has no code table.
  EXPECT_EQ(decoded->modules[3].codeKind, CodeKind::Spirv);
  EXPECT_FALSE(decoded->modules[3].hasCode);
  // Segments without explicit bindings decode as identity bindings.
  EXPECT_FALSE(decoded->segments[3].hasExplicitConstantBindings);
  EXPECT_EQ(decoded->segments[3].constantBindings, (std::vector<ConstantBinding>{{1, 1}}));
  EXPECT_EQ(decoded->segments[0].constantBindings, (std::vector<ConstantBinding>{{10000, 1}, {0, 0}}));
  EXPECT_EQ(decoded->resources[4].descriptorType, kNoDescriptorType);
}

TEST(VgfCodec, ReEncodingIsByteIdentical) {
  Builder b = fullBuilder();
  std::vector<std::uint8_t> first = *b.finish();
  Result<File> decoded = decode(first);
  ASSERT_TRUE(decoded);
  Result<std::vector<std::uint8_t>> second = encode(*decoded);
  ASSERT_TRUE(second) << second.error().message();
  EXPECT_EQ(first, *second);
}

TEST(VgfCodec, HeaderAndSectionLayoutFollowFormat043) {
  std::vector<std::uint8_t> bytes = *fullBuilder().finish();
  ASSERT_GE(bytes.size(), 128u);
  EXPECT_EQ(std::memcmp(bytes.data(), "VGF1", 4), 0);
  EXPECT_EQ(loadLe<std::uint16_t>(bytes, 4), 321);
  EXPECT_EQ(loadLe<std::uint16_t>(bytes, 6), 0);
  EXPECT_EQ(bytes[8], 0);
  EXPECT_EQ(bytes[9], 4);
  EXPECT_EQ(bytes[10], 3);
  for (std::size_t i = 11; i < 16; ++i) EXPECT_EQ(bytes[i], 0) << i;
  for (std::size_t i = 80; i < 128; ++i) EXPECT_EQ(bytes[i], 0) << i;
  std::uint64_t expectedOffset = 128;
  for (int s = 0; s < 4; ++s) {
    std::uint64_t offset = loadLe<std::uint64_t>(bytes, 16 + 16 * s);
    std::uint64_t size = loadLe<std::uint64_t>(bytes, 24 + 16 * s);
    EXPECT_EQ(offset, expectedOffset) << s;
    EXPECT_EQ(offset % 8, 0u) << s;
    // Padding is zero bytes, not counted in the size.
    for (std::uint64_t p = offset + size; p < (offset + size + 7) / 8 * 8 && p < bytes.size(); ++p) {
      EXPECT_EQ(bytes[p], 0) << s;
    }
    expectedOffset = (offset + size + 7) / 8 * 8;
    if (s == 3) {
      EXPECT_EQ(offset + size, bytes.size());  // no padding after the last section
    }
  }
}

TEST(VgfCodec, ConstantSectionIsConst00WithPaddedPayloads) {
  std::vector<std::uint8_t> bytes = *fullBuilder().finish();
  std::uint64_t offset = loadLe<std::uint64_t>(bytes, 64);
  std::uint64_t size = loadLe<std::uint64_t>(bytes, 72);
  // 16-byte head + 2 records of 24 + 1024 + (5 padded to 8).
  EXPECT_EQ(size, 16u + 48u + 1024u + 8u);
  EXPECT_EQ(std::memcmp(bytes.data() + offset, "CONST00\0", 8), 0);
  EXPECT_EQ(loadLe<std::uint64_t>(bytes, offset + 8), 2u);
  // record 0: mrt 4, sparsity 3, size 1024, offset 0; record 1: mrt 5, -1, 5, 1024.
  EXPECT_EQ(loadLe<std::uint32_t>(bytes, offset + 16), 4u);
  EXPECT_EQ(loadLe<std::int32_t>(bytes, offset + 20), 3);
  EXPECT_EQ(loadLe<std::uint64_t>(bytes, offset + 24), 1024u);
  EXPECT_EQ(loadLe<std::uint64_t>(bytes, offset + 32), 0u);
  EXPECT_EQ(loadLe<std::uint32_t>(bytes, offset + 40), 5u);
  EXPECT_EQ(loadLe<std::int32_t>(bytes, offset + 44), -1);
  EXPECT_EQ(loadLe<std::uint64_t>(bytes, offset + 48), 5u);
  EXPECT_EQ(loadLe<std::uint64_t>(bytes, offset + 56), 1024u);
  const std::uint8_t* payload = bytes.data() + offset + 64;
  EXPECT_EQ(payload[1], 7);
  EXPECT_EQ(payload[1024], 1);
  EXPECT_EQ(payload[1028], 5);
  for (int i = 1029; i < 1032; ++i) EXPECT_EQ(payload[i], 0);
}

/// Whether a field is stored in a table, read from the vtable bytes directly.
bool stored(const void* table, flatbuffers::voffset_t slot) {
  const auto* base = static_cast<const std::uint8_t*>(table);
  std::int32_t soffset;
  std::memcpy(&soffset, base, 4);
  const std::uint8_t* vtable = base - soffset;
  std::uint16_t vtableSize;
  std::memcpy(&vtableSize, vtable, 2);
  if (slot + 2u > vtableSize) return false;
  std::uint16_t fieldOffset;
  std::memcpy(&fieldOffset, vtable + slot, 2);
  return fieldOffset != 0;
}

TEST(VgfCodec, SchemaDefaultsAreOmittedAndVectorsWritten) {
  std::vector<std::uint8_t> bytes = *fullBuilder().finish();
  namespace schema = openvgf::vgf::fb;
  const auto* resources =
      flatbuffers::GetRoot<schema::ModelResourceTable>(bytes.data() + loadLe<std::uint64_t>(bytes, 48));
  const auto* in = resources->mrt_entry()->Get(0);
  EXPECT_FALSE(stored(in, schema::ModelResourceTableEntry::VT_CATEGORY));        // INPUT
  EXPECT_FALSE(stored(in, schema::ModelResourceTableEntry::VT_ALIAS_GROUP_ID));  // unset
  EXPECT_FALSE(stored(in, schema::ModelResourceTableEntry::VT_EXTRA_CONFIG_TYPE));
  EXPECT_TRUE(stored(in, schema::ModelResourceTableEntry::VT_VK_DESCRIPTOR_TYPE));
  EXPECT_TRUE(stored(in->description(), schema::Description::VT_STRIDES));  // empty but present
  const auto* mid = resources->mrt_entry()->Get(2);
  EXPECT_TRUE(stored(mid, schema::ModelResourceTableEntry::VT_ALIAS_GROUP_ID));
  const auto* constant = resources->mrt_entry()->Get(4);
  EXPECT_EQ(constant->vk_descriptor_type(), 0xFFFFFFFFu);

  const auto* sequence =
      flatbuffers::GetRoot<schema::ModelSequenceTable>(bytes.data() + loadLe<std::uint64_t>(bytes, 32));
  const auto* s0 = sequence->segments()->Get(0);
  EXPECT_FALSE(stored(s0->set_infos()->Get(0), schema::DescriptorSetInfo::VT_SET_INDEX));
  EXPECT_FALSE(stored(s0->set_infos()->Get(0)->bindings()->Get(0), schema::BindingSlot::VT_BINDING));
  EXPECT_FALSE(stored(s0->set_infos()->Get(0)->bindings()->Get(0), schema::BindingSlot::VT_MRT_INDEX));
  EXPECT_FALSE(stored(s0, schema::SegmentInfo::VT_MODULE_INDEX));
  ASSERT_NE(s0->dispatch_shape(), nullptr);
  EXPECT_EQ(s0->dispatch_shape()->size(), 3u);  // zeros for a graph segment, still written
  EXPECT_TRUE(stored(s0, schema::SegmentInfo::VT_PUSH_CONSTANT_RANGES));
  EXPECT_TRUE(stored(s0, schema::SegmentInfo::VT_CONSTANT_BINDINGS));
  const auto* s1 = sequence->segments()->Get(1);
  EXPECT_TRUE(stored(s1->set_infos()->Get(0), schema::DescriptorSetInfo::VT_SET_INDEX));
  EXPECT_FALSE(stored(s1, schema::SegmentInfo::VT_TYPE));  // COMPUTE
  EXPECT_FALSE(stored(s1, schema::SegmentInfo::VT_CONSTANT_BINDINGS));

  const auto* modules = flatbuffers::GetRoot<schema::ModuleTable>(bytes.data() + 128);
  EXPECT_TRUE(stored(modules->modules()->Get(0), schema::Module::VT_TYPE));   // GRAPH
  EXPECT_FALSE(stored(modules->modules()->Get(1), schema::Module::VT_TYPE));  // COMPUTE
  EXPECT_TRUE(stored(modules->modules()->Get(3), schema::Module::VT_CODE_TYPE));
  EXPECT_FALSE(stored(modules->modules()->Get(3), schema::Module::VT_CODE));  // no code table
}

TEST(VgfCodec, EmptyFileEncodesAndDecodes) {
  Builder b;
  std::vector<std::uint8_t> bytes = *b.finish();
  EXPECT_EQ(loadLe<std::uint64_t>(bytes, 72), 16u);  // empty CONST00: magic + count 0
  Result<File> file = decode(bytes);
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_TRUE(file->modules.empty());
  EXPECT_TRUE(file->constants.empty());
}

TEST(VgfCodec, EncoderRejectsBrokenReferences) {
  Builder b;
  ResourceId in = b.addResource(ResourceCategory::Input, 100, {4});
  b.addConstant(in, std::vector<std::uint8_t>{1, 2, 3, 4});
  Result<std::vector<std::uint8_t>> bytes = b.finish();
  ASSERT_FALSE(bytes);
  EXPECT_EQ(
      bytes.error().message(),
      "constant section: constants[0].mrt_index: expected an entry of category CONSTANT, got mrt_entry[0] of "
      "category INPUT");

  Builder c;
  c.addSegment("s", ModuleId{3}, {}, {}, {});
  ASSERT_FALSE(c.finish());
  EXPECT_EQ(c.finish().error().message(),
            "model sequence table: segments[0].module_index: expected < 0 (module count), got 3");

  Builder d;
  ModuleId m = d.addModule("m", "main", {1});
  d.addSegment("s", m, {DescriptorSet{kUnset, {{0, ResourceId{7}}}}}, {}, {});
  ASSERT_FALSE(d.finish());
  EXPECT_EQ(d.finish().error().message(),
            "model sequence table: segments[0].set_infos[0].bindings[0].mrt_index: expected < 0 (model "
            "resource table "
            "size), got 7");

  Builder e;
  ResourceId k = e.addResource(ResourceCategory::Constant, 14, {1});
  e.file();
  File file = e.file();
  file.resources[k.value].aliasGroup = 3;
  ASSERT_FALSE(encode(file));
  EXPECT_EQ(encode(file).error().message(),
            "model resource table: mrt_entry[0].alias_group_id: expected no alias group on a CONSTANT "
            "resource, got 3");
}

TEST(VgfCodec, FormatHelpers) {
  EXPECT_EQ(formatName(14), "VK_FORMAT_R8_SINT");
  EXPECT_EQ(formatName(1000460001), "VK_FORMAT_R16_SFLOAT_FPENCODING_BFLOAT16_ARM");
  EXPECT_EQ(formatName(12345), "VK_FORMAT_12345");
  EXPECT_EQ(formatElementBytes(111), 8u);
  EXPECT_EQ(formatElementBytes(76), 2u);
  EXPECT_EQ(formatElementBytes(1000460000), 1u);
  EXPECT_EQ(formatElementBytes(12345), 0u);
  EXPECT_EQ(descriptorTypeName(kDescriptorTypeTensorArm), "VK_DESCRIPTOR_TYPE_TENSOR_ARM");
  EXPECT_EQ(descriptorTypeName(7), "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER");
  EXPECT_EQ(descriptorTypeName(kNoDescriptorType), "none");
}

}  // namespace
}  // namespace openvgf::vgf
