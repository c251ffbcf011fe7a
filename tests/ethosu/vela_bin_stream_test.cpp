// SPDX-License-Identifier: Apache-2.0
// vela_bin_stream block chains: the three historical layouts, unknown and external blocks,
// COP1/COP2 recognition, write -> parse round trip, and malformed chains. Streams are framed
// by hand here (name, u32 size, flag, padding) as the oracle for the writer.
#include <gtest/gtest.h>

#include <cstring>

#include "ethosu/vela_bin_stream.h"

namespace openvgf::ethosu {
namespace {

void block(std::vector<std::uint8_t>& out, const std::string& name, const std::vector<std::uint8_t>& data,
           std::uint8_t external = 0) {
  std::uint8_t header[32] = {};
  std::memcpy(header, name.data(), name.size());
  std::uint32_t size = static_cast<std::uint32_t>(data.size());
  std::memcpy(header + 16, &size, 4);
  header[20] = external;
  out.insert(out.end(), header, header + 32);
  out.insert(out.end(), data.begin(), data.end());
  out.resize((out.size() + 15) / 16 * 16, 0);
}

std::vector<std::uint8_t> ints(std::initializer_list<std::int32_t> values) {
  std::vector<std::uint8_t> out(values.size() * 4);
  std::size_t i = 0;
  for (std::int32_t v : values) std::memcpy(out.data() + 4 * i++, &v, 4);
  return out;
}

const std::vector<std::uint8_t> kCop1 = {'C', 'O', 'P', '1', 1, 0, 16, 0};

TEST(VelaBinStream, CurrentLayoutMatchesHandFraming) {
  std::vector<std::uint8_t> expected;
  block(expected, "vela_bin_stream", {});
  block(expected, "cmd_data", kCop1);
  block(expected, "weight_data", {1, 2, 3});
  block(expected, "scratch_size", ints({983312}));
  block(expected, "inputs", ints({1, 1, 1, 1, 3, 224, 224, 1, 802816, 1}));
  block(expected, "outputs", ints({1, 1, 1, 1, 1, 1, 4, 1, 2704, 1}));
  block(expected, "vela_end_stream", {});
  VelaIo in{{1, 1, 1, 3, 224, 224}, 1, 802816, 1};
  VelaIo out{{1, 1, 1, 1, 1, 4}, 1, 2704, 1};
  std::vector<std::uint8_t> weights = {1, 2, 3};
  Result<std::vector<std::uint8_t>> written = makeVelaBinStream(kCop1, weights, 983312, {in}, {out});
  ASSERT_TRUE(written);
  EXPECT_EQ(*written, expected);
  Result<VelaStream> stream = parseVelaBinStream(expected);
  ASSERT_TRUE(stream) << stream.error().message();
  EXPECT_EQ(stream->blocks.size(), 7u);
  EXPECT_EQ(stream->blocks[1].headerOffset, 32u);
  EXPECT_EQ(stream->layout, VelaLayout::ScratchSize6D);
  EXPECT_EQ(stream->commandStreamMagic, "COP1");
  EXPECT_EQ(stream->scratchSize, 983312u);
  EXPECT_EQ(stream->inputs, (std::vector<VelaIo>{in}));
  EXPECT_EQ(stream->outputs, (std::vector<VelaIo>{out}));
  EXPECT_TRUE(stream->unknownBlocks.empty());
}

TEST(VelaBinStream, Version07Layout4D) {
  std::vector<std::uint8_t> bytes;
  block(bytes, "vela_bin_stream", {});
  block(bytes, "cmd_data", {'C', 'O', 'P', '2', 0, 0, 0, 0});
  block(bytes, "weight_data", {});
  block(bytes, "scratch_size", ints({100}));
  block(bytes, "inputs", ints({2, 1, 8, 8, 3, 1, 0, 1, 1, 4, 4, 3, 1, 192, 1}));
  block(bytes, "outputs", ints({1, 1, 1, 1, 10, 1, 400, 1}));
  block(bytes, "vela_end_stream", {});
  Result<VelaStream> stream = parseVelaBinStream(bytes);
  ASSERT_TRUE(stream) << stream.error().message();
  EXPECT_EQ(stream->layout, VelaLayout::ScratchSize4D);
  EXPECT_EQ(stream->ioRank, 4);
  EXPECT_EQ(stream->commandStreamMagic, "COP2");
  ASSERT_EQ(stream->inputs.size(), 2u);
  EXPECT_EQ(stream->inputs[1].shape, (std::array<std::int32_t, 6>{1, 4, 4, 3, 0, 0}));
  EXPECT_EQ(stream->inputs[1].offset, 192);
}

TEST(VelaBinStream, Version06ScratchDataUnknownAndExternalBlocks) {
  std::vector<std::uint8_t> bytes;
  block(bytes, "vela_bin_stream", {});
  std::string key(64, 'a');
  block(bytes, "cmd_data", std::vector<std::uint8_t>(key.begin(), key.end()), 1);
  block(bytes, "weight_data", {5});
  block(bytes, "vela_model", {1, 2, 3, 4, 5});
  block(bytes, "scratch_data", std::vector<std::uint8_t>(48, 0));
  block(bytes, "inputs", ints({0}));
  block(bytes, "outputs", ints({0}));
  block(bytes, "persistent_size", ints({16}));
  block(bytes, "vela_end_stream", {});
  Result<VelaStream> stream = parseVelaBinStream(bytes);
  ASSERT_TRUE(stream) << stream.error().message();
  EXPECT_EQ(stream->layout, VelaLayout::ScratchData4D);
  EXPECT_EQ(stream->scratchSize, 48u);
  EXPECT_EQ(stream->unknownBlocks, (std::vector<std::string>{"vela_model"}));
  EXPECT_EQ(stream->persistentSize, std::optional<std::uint32_t>(16));
  ASSERT_EQ(stream->externalBlocks.size(), 1u);
  EXPECT_EQ(stream->externalBlocks[0].block, "cmd_data");
  EXPECT_EQ(stream->externalBlocks[0].key, key);
  EXPECT_TRUE(stream->commandStream.empty());
}

std::string parseError(const std::vector<std::uint8_t>& bytes) {
  std::vector<std::uint8_t> copy(bytes);
  Result<VelaStream> stream = parseVelaBinStream(copy);
  return stream ? "parsed" : stream.error().message();
}

TEST(VelaBinStream, MalformedChains) {
  std::vector<std::uint8_t> good;
  block(good, "vela_bin_stream", {});
  block(good, "cmd_data", kCop1);
  block(good, "vela_end_stream", {});
  EXPECT_EQ(parseError(good), "parsed");
  EXPECT_EQ(parseError({}),
            "vela_bin_stream: expected at least the 'vela_bin_stream' and 'vela_end_stream' blocks, "
            "got 0 bytes");
  auto bytes = good;
  bytes[0] = 'x';
  EXPECT_EQ(
      parseError(bytes),
      "vela_bin_stream: block 0: expected the first block to be 'vela_bin_stream', got 'xela_bin_stream'");
  bytes = good;
  bytes.resize(good.size() - 32);
  EXPECT_EQ(parseError(bytes),
            "vela_bin_stream: block 1 'cmd_data': expected the last block to be 'vela_end_stream'");
  bytes = good;
  std::uint32_t huge = 0xFFFFFFF0u;
  std::memcpy(bytes.data() + 32 + 16, &huge, 4);
  EXPECT_EQ(parseError(bytes),
            "vela_bin_stream: block 1 'cmd_data': size: expected at most 48 (bytes left in the "
            "stream), got 4294967280");
  bytes = good;
  bytes[64] = 'Q';
  EXPECT_EQ(parseError(bytes),
            "vela_bin_stream: block 1 'cmd_data': expected a command stream starting with COP1 or "
            "COP2, got \"QOP1\"");
  bytes = good;
  std::memset(bytes.data() + 32, 'n', 16);
  EXPECT_EQ(parseError(bytes),
            "vela_bin_stream: block 1: name: expected at most 15 characters and a NUL, got "
            "\"nnnnnnnnnnnnnnnn\"");
  bytes = good;
  bytes[32 + 20] = 7;
  EXPECT_EQ(parseError(bytes), "vela_bin_stream: block 1 'cmd_data': external: expected 0 or 1, got 7");
  bytes = good;
  block(bytes, "cmd_data", kCop1);
  EXPECT_EQ(
      parseError(bytes),
      "vela_bin_stream: block 2 'vela_end_stream': expected the last block, got 48 more bytes after it");
  std::vector<std::uint8_t> badIo;
  block(badIo, "vela_bin_stream", {});
  block(badIo, "cmd_data", kCop1);
  block(badIo, "inputs", ints({2, 1, 2, 3}));
  block(badIo, "vela_end_stream", {});
  EXPECT_EQ(parseError(badIo),
            "vela_bin_stream: block 2 'inputs': size: expected 4 + count * 28 (4-D records) or 4 + "
            "count * 36 (6-D records) bytes for count 2, got 16");
  // Every truncation fails cleanly.
  for (std::size_t length = 0; length < good.size(); ++length) {
    EXPECT_NE(parseError(std::vector<std::uint8_t>(good.begin(), good.begin() + length)), "parsed") << length;
  }
}

TEST(VelaBinStream, WriterRejectsLongNames) {
  EXPECT_FALSE(writeVelaBinStream({{"a_very_long_block_name", {}, false}}));
}

}  // namespace
}  // namespace openvgf::ethosu
