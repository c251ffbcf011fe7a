// SPDX-License-Identifier: Apache-2.0
// Hostile VGF input: every header field, every section offset and size, truncation at every
// 16th byte, flatbuffer garbage, absurd counts and broken cross references. Each must give
// an InvalidInput/Unsupported error naming the section, entry and field, and never read out
// of bounds (the ASan/UBSan build runs the same tests). Truncated inputs are copied into
// exactly-sized buffers so that ASan sees any over-read.
#include <flatbuffers/flatbuffers.h>
#include <gtest/gtest.h>

#include <cstring>

#include "common/file_io.h"
#include "vgf/decoder.h"
#include "vgf/vgf_generated.h"

namespace openvgf::vgf {
namespace {

namespace schema = openvgf::vgf::fb;

std::vector<std::uint8_t> fixture(const std::string& name) {
  return *readFile(std::string(OPENVGF_TEST_DATA) + "/vgf/" + name);
}

template <typename T>
void put(std::vector<std::uint8_t>& bytes, std::size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof(T));
}

std::string decodeError(const std::vector<std::uint8_t>& bytes) {
  // Own allocation of exactly the input size.
  std::vector<std::uint8_t> copy(bytes.begin(), bytes.end());
  Result<File> file = decode(copy);
  if (file) return "decoded";
  EXPECT_TRUE(file.error().kind() == ErrorKind::InvalidInput ||
              file.error().kind() == ErrorKind::Unsupported);
  return file.error().message();
}

TEST(VgfCorruption, HeaderFields) {
  const std::vector<std::uint8_t> good = fixture("simple_conv2d_rescale_graph_v0_4_3.vgf");
  auto bytes = good;
  bytes[0] = 'X';
  EXPECT_EQ(decodeError(bytes),
            "header: magic: expected \"VGF1\" (56 47 46 31) or C3 D2 E1 F0, got 58 47 46 31");
  bytes = good;
  put<std::uint32_t>(bytes, 0, 0xF0E1D2C3u);  // the deprecated magic is accepted
  EXPECT_EQ(decodeError(bytes), "decoded");
  bytes = good;
  bytes[8] = 1;
  EXPECT_EQ(decodeError(bytes), "header: version: expected a format version 0.0 to 0.4, got 1.4.3");
  bytes = good;
  bytes[9] = 5;
  EXPECT_EQ(decodeError(bytes), "header: version: expected a format version 0.0 to 0.4, got 0.5.3");
  bytes = good;
  bytes[10] = 9;  // patch is not checked
  EXPECT_EQ(decodeError(bytes), "decoded");
  // vkHeaderVersion and the reserved fields are not checked.
  for (std::size_t offset : {4u, 6u, 11u, 12u, 80u, 100u, 127u}) {
    bytes = good;
    bytes[offset] ^= 0x5A;
    EXPECT_EQ(decodeError(bytes), "decoded") << offset;
  }
  EXPECT_EQ(decodeError(std::vector<std::uint8_t>(good.begin(), good.begin() + 127)),
            "header: expected at least 128 bytes, got a 127-byte file");
}

TEST(VgfCorruption, SectionOffsetsAndSizes) {
  const std::vector<std::uint8_t> good = fixture("simple_conv2d_rescale_graph_v0_4_3.vgf");
  const char* names[4] = {"module", "sequence", "resource", "constant"};
  for (int s = 0; s < 4; ++s) {
    SCOPED_TRACE(s);
    auto bytes = good;
    put<std::uint64_t>(bytes, 16 + 16 * s, 1913);
    EXPECT_EQ(
        decodeError(bytes),
        fmt::format("header: {}_section.offset: expected at most the file size 1912, got 1913", names[s]));
    bytes = good;
    put<std::uint64_t>(bytes, 16 + 16 * s, 0xFFFFFFFFFFFFFFF0ull);
    EXPECT_NE(decodeError(bytes).find(fmt::format("header: {}_section.offset", names[s])), std::string::npos);
    bytes = good;
    std::uint64_t offset;
    std::memcpy(&offset, good.data() + 16 + 16 * s, 8);
    put<std::uint64_t>(bytes, 24 + 16 * s, 1912 - offset + 1);
    EXPECT_EQ(decodeError(bytes),
              fmt::format("header: {}_section.size: expected at most {} (bytes after offset {}), "
                          "got {}",
                          names[s], 1912 - offset, offset, 1912 - offset + 1));
    bytes = good;
    put<std::uint64_t>(bytes, 24 + 16 * s, 0xFFFFFFFFFFFFFFFFull);  // offset + size would wrap
    EXPECT_NE(decodeError(bytes).find(fmt::format("header: {}_section.size", names[s])), std::string::npos);
    // A section moved onto other bytes fails verification or meaning checks, never crashes.
    for (std::uint64_t moved = 0; moved < 1912; moved += 4) {
      bytes = good;
      put<std::uint64_t>(bytes, 16 + 16 * s, moved);
      put<std::uint64_t>(bytes, 24 + 16 * s, std::min<std::uint64_t>(64, 1912 - moved));
      decodeError(bytes);
    }
  }
  auto bytes = good;
  put<std::uint64_t>(bytes, 24, 3);
  EXPECT_EQ(decodeError(bytes), "module table: expected a flatbuffer of at least 4 bytes, got a size of 3");
  bytes = good;
  put<std::uint64_t>(bytes, 16, 130);
  EXPECT_EQ(decodeError(bytes), "module table: expected a 4-byte aligned section, got offset 130");
  bytes = good;
  put<std::uint64_t>(bytes, 72, 7);
  EXPECT_EQ(decodeError(bytes), "constant section: expected at least 8 bytes, got a size of 7");
}

TEST(VgfCorruption, TruncationAtEvery16thByte) {
  for (const char* name :
       {"simple_conv2d_rescale_graph_v0_4_3.vgf", "simple_conv2d_rescale_graph_outdated.vgf",
        "single_maxpool_graph_pre_v0_4_0.vgf"}) {
    const std::vector<std::uint8_t> good = fixture(name);
    for (std::size_t length = 0; length < good.size(); length += 16) {
      std::string error = decodeError(std::vector<std::uint8_t>(good.begin(), good.begin() + length));
      EXPECT_NE(error, "decoded") << name << " " << length;
      EXPECT_EQ(error.rfind("header: ", 0), 0u) << error;  // the header's ranges catch every cut
    }
  }
}

TEST(VgfCorruption, FlatbufferGarbage) {
  const std::vector<std::uint8_t> good = fixture("simple_conv2d_rescale_graph_v0_4_3.vgf");
  struct Case {
    std::size_t offset, size;
    const char* message;
  } cases[] = {
      {128, 112,
       "module table: expected a valid ModuleTable flatbuffer, got 112 bytes at offset 128 that fail "
       "verification"},
      {240, 316,
       "model sequence table: expected a valid ModelSequenceTable flatbuffer, got 316 bytes at offset 240 "
       "that fail verification"},
      {560, 288,
       "model resource table: expected a valid ModelResourceTable flatbuffer, got 288 bytes at offset 560 "
       "that fail verification"},
  };
  for (const Case& c : cases) {
    auto bytes = good;
    std::memset(bytes.data() + c.offset, 0xFF, c.size);
    EXPECT_EQ(decodeError(bytes), c.message);
  }
  // Bit flips anywhere in the sections: errors or successes, never a crash.
  std::uint32_t state = 12345;
  for (int round = 0; round < 3000; ++round) {
    auto bytes = good;
    for (int flips = 0; flips < 3; ++flips) {
      state = state * 1664525u + 1013904223u;
      std::size_t at = 128 + (state >> 8) % (good.size() - 128);
      bytes[at] ^= static_cast<std::uint8_t>(1u << (state & 7));
    }
    decodeError(bytes);
  }
}

TEST(VgfCorruption, AbsurdCounts) {
  const std::vector<std::uint8_t> good = fixture("simple_conv2d_rescale_graph_v0_4_3.vgf");
  auto bytes = good;
  put<std::uint64_t>(bytes, 848 + 8, 0x8000000000000000ull);
  EXPECT_EQ(
      decodeError(bytes),
      "constant section: count: expected at most 43 records in a 1064-byte section, got 9223372036854775808");
  bytes = good;
  put<std::uint64_t>(bytes, 848 + 16 + 8, 0xFFFFFFFFFFFFFFF8ull);
  EXPECT_EQ(decodeError(bytes),
            "constant section: constants[0].size: expected at most 1024 (payload bytes after offset 0), got "
            "18446744073709551608");
  bytes = good;
  put<std::uint64_t>(bytes, 848 + 16 + 16, 1025);
  EXPECT_EQ(decodeError(bytes),
            "constant section: constants[0].offset: expected at most 1024 (payload bytes), got 1025");
  // The module vector's element count: root table -> modules vector length.
  bytes = good;
  std::uint32_t root;
  std::memcpy(&root, good.data() + 128, 4);
  const auto* table = flatbuffers::GetRoot<schema::ModuleTable>(good.data() + 128);
  std::size_t lengthAt = reinterpret_cast<const std::uint8_t*>(table->modules()) - good.data();
  put<std::uint32_t>(bytes, lengthAt, 0x7FFFFFFFu);
  EXPECT_EQ(decodeError(bytes).rfind("module table: expected a valid ModuleTable flatbuffer", 0), 0u);
}

TEST(VgfCorruption, CrossReferences) {
  const std::vector<std::uint8_t> good = fixture("simple_conv2d_rescale_graph_v0_4_3.vgf");
  auto bytes = good;
  put<std::uint32_t>(bytes, 848 + 16, 0);
  EXPECT_EQ(decodeError(bytes),
            "constant section: constants[0].mrt_index: expected an entry of category CONSTANT, "
            "got mrt_entry[0] of category INPUT");
  bytes = good;
  put<std::uint32_t>(bytes, 848 + 16, 9);
  EXPECT_EQ(decodeError(bytes),
            "constant section: constants[0].mrt_index: expected < 3 (model resource table size), got 9");
  bytes = good;
  put<std::int32_t>(bytes, 848 + 20, -2);
  EXPECT_EQ(decodeError(bytes),
            "constant section: constants[0].sparsity_dimension: expected -1 (dense) or >= 0, got -2");
}

/// A VGF assembled from raw section bytes with a header written by this test.
std::vector<std::uint8_t> assemble(const std::vector<std::vector<std::uint8_t>>& sections) {
  std::vector<std::uint8_t> out(128, 0);
  std::memcpy(out.data(), "VGF1", 4);
  out[9] = 4;
  out[10] = 3;
  for (int s = 0; s < 4; ++s) {
    out.resize((out.size() + 7) / 8 * 8, 0);
    put<std::uint64_t>(out, 16 + 16 * s, out.size());
    put<std::uint64_t>(out, 24 + 16 * s, sections[s].size());
    out.insert(out.end(), sections[s].begin(), sections[s].end());
  }
  return out;
}

std::vector<std::uint8_t> bytesOf(flatbuffers::FlatBufferBuilder& b) {
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

std::vector<std::uint8_t> emptyConst() {
  std::vector<std::uint8_t> c(16, 0);
  std::memcpy(c.data(), "CONST00", 8);
  return c;
}

std::vector<std::uint8_t> oneModule(std::uint8_t type, std::uint8_t codeType) {
  flatbuffers::FlatBufferBuilder b;
  auto words = schema::CreateSPIRV(b, b.CreateVector(std::vector<std::uint32_t>{1}));
  auto module =
      schema::CreateModule(b, static_cast<schema::ModuleType>(type), b.CreateString("m"),
                           b.CreateString("main"), static_cast<schema::ModuleCode>(codeType), words.Union());
  b.Finish(schema::CreateModuleTable(b, b.CreateVector(std::vector{module})));
  return bytesOf(b);
}

std::vector<std::uint8_t> oneResource(std::uint8_t category) {
  flatbuffers::FlatBufferBuilder b;
  auto entry =
      schema::CreateModelResourceTableEntry(b, 7, 100, static_cast<schema::ResourceCategory>(category));
  b.Finish(schema::CreateModelResourceTable(b, b.CreateVector(std::vector{entry})));
  return bytesOf(b);
}

std::vector<std::uint8_t> oneSegment(std::uint32_t moduleIndex, std::uint32_t mrtIndex,
                                     std::size_t dispatchCount, std::vector<std::uint32_t> constants) {
  flatbuffers::FlatBufferBuilder b;
  auto slot = schema::CreateBindingSlot(b, 0, mrtIndex);
  auto set = schema::CreateDescriptorSetInfo(b, b.CreateVector(std::vector{slot}));
  std::vector<std::uint32_t> dispatch(dispatchCount, 1);
  auto segment = schema::CreateSegmentInfo(b, schema::ModuleType::COMPUTE, b.CreateString("s"), moduleIndex,
                                           b.CreateVector(std::vector{set}), 0, 0, b.CreateVector(constants),
                                           b.CreateVector(dispatch));
  b.Finish(schema::CreateModelSequenceTable(b, b.CreateVector(std::vector{segment})));
  return bytesOf(b);
}

TEST(VgfCorruption, FieldMeaningsAndReferences) {
  EXPECT_EQ(decodeError(assemble({oneModule(0, 1), oneSegment(0, 0, 3, {}), oneResource(0), emptyConst()})),
            "decoded");
  EXPECT_EQ(decodeError(assemble({oneModule(2, 1), oneSegment(0, 0, 3, {}), oneResource(0), emptyConst()})),
            "module table: modules[0].type: expected 0 (COMPUTE) or 1 (GRAPH), got 2");
  EXPECT_EQ(decodeError(assemble({oneModule(0, 9), oneSegment(0, 0, 3, {}), oneResource(0), emptyConst()})),
            "module table: modules[0].code_type: expected 0 (NONE) to 3 (HLSL), got 9");
  EXPECT_EQ(decodeError(assemble({oneModule(0, 1), oneSegment(0, 0, 3, {}), oneResource(4), emptyConst()})),
            "model resource table: mrt_entry[0].category: expected 0 (INPUT) to 3 (CONSTANT), got 4");
  EXPECT_EQ(decodeError(assemble({oneModule(0, 1), oneSegment(0, 0, 2, {}), oneResource(0), emptyConst()})),
            "model sequence table: segments[0].dispatch_shape: expected 3 values, got 2");
  EXPECT_EQ(decodeError(assemble({oneModule(0, 1), oneSegment(1, 0, 3, {}), oneResource(0), emptyConst()})),
            "model sequence table: segments[0].module_index: expected < 1 (module count), got 1");
  EXPECT_EQ(
      decodeError(assemble({oneModule(0, 1), oneSegment(0, 5, 3, {}), oneResource(0), emptyConst()})),
      "model sequence table: segments[0].set_infos[0].bindings[0].mrt_index: expected < 1 (model resource "
      "table size), got 5");
  EXPECT_EQ(decodeError(assemble({oneModule(0, 1), oneSegment(0, 0, 3, {0}), oneResource(0), emptyConst()})),
            "model sequence table: segments[0].constants[0]: expected < 0 (constant count), got 0");
  // A raw constant section that is only a magic has no count.
  std::vector<std::uint8_t> shortConst = emptyConst();
  shortConst.resize(8);
  EXPECT_EQ(decodeError(assemble({oneModule(0, 1), oneSegment(0, 0, 3, {}), oneResource(0), shortConst})),
            "constant section: expected at least 16 bytes (CONST00 magic and count), got 8");
  // Not CONST00 and not a legacy flatbuffer.
  std::vector<std::uint8_t> junk(16, 0xEE);
  EXPECT_EQ(decodeError(assemble({oneModule(0, 1), oneSegment(0, 0, 3, {}), oneResource(0), junk}))
                .rfind("constant section: expected a valid ConstantSection (format 0.3) flatbuffer", 0),
            0u);
}

}  // namespace
}  // namespace openvgf::vgf
