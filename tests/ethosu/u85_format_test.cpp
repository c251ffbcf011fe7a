// SPDX-License-Identifier: Apache-2.0
// The U85 parts of the format library: CONFIG words of every configuration, decoding and
// naming the commands U85 adds, the weight orders (each weight exactly once, padding
// elsewhere), and round trips of the fast weight decoder's stream, the standard stream with
// U85 end-of-stream handling, and both U85 scale-record formats.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>

#include "ethosu/accelerator.h"
#include "ethosu/command_stream.h"
#include "ethosu/disassembler.h"
#include "ethosu/registers.h"
#include "ethosu/scale_stream.h"
#include "ethosu/weight_codec.h"
#include "ethosu/weight_order.h"

namespace openvgf::ethosu {
namespace {

TEST(EthosU85Format, ConfigWordOfEveryConfigurationRoundTrips) {
  for (int macs : {128, 256, 512, 1024, 2048}) {
    const std::string name = fmt::format("ethos-u85-{}", macs);
    const std::optional<AcceleratorConfig> config = findAccelerator(name);
    ASSERT_TRUE(config) << name;
    EXPECT_EQ(config->product, Product::U85);
    const std::uint32_t word = configWord(*config);
    EXPECT_EQ(word >> 28, 2u) << name;           // product 2
    EXPECT_EQ((word >> 4) & 15, 1u) << name;     // cmd_stream_version 1
    EXPECT_EQ(1u << (word & 15), static_cast<unsigned>(config->macs)) << name;  // MACs of the whole NPU
    Result<AcceleratorConfig> back = acceleratorFromConfigWord(word);
    ASSERT_TRUE(back) << back.error().message();
    EXPECT_EQ(back->name, config->name);
  }
  EXPECT_EQ(configWord(*findAccelerator("ethos-u85-256")), 0x20000118u);
  // Product 3 does not exist; a U85 word with an unknown core count is refused.
  EXPECT_FALSE(acceleratorFromConfigWord(0x30000118u));
}

TEST(EthosU85Format, CommandsU85AddsDecodeAndDisassembleByName) {
  Emitter e;
  e.cmd1(cmd1::kOpScalar, 0xFFFFFF80u);
  e.cmd0(cmd0::kIfmBroadcast, 8);  // SCALAR
  e.cmd0(cmd0::kWeightFormat, 1);  // FWD
  e.cmd0(cmd0::kResizeXScaleNM1, 3);
  e.cmd0(cmd0::kResizeYOffset, 0xFFE);  // -2 in 12 bits
  e.cmd1(cmd1::kResizeX, 0x00030145);
  e.cmd0(cmd0::kDmaIdxRegion, 2);
  e.cmd1(cmd1::kDmaIdx, 0x100);
  e.cmd1(cmd1::kDmaSrcStride1, 0xFFFFFFC0u, 0xFF);  // 40-bit: bits 39:32 in the param
  e.cmd1(cmd1::kDmaDstStride0, 64);
  e.cmd1(cmd1::kWeight3Length, 4096);
  e.op(cmd0::kOpResize, 2);  // NEAREST
  e.cmd1(cmd1::kOpBranch, 8);
  e.op(cmd0::kOpStop, 0xFFFF);
  std::vector<std::uint8_t> bytes(e.words().size() * 4);
  std::memcpy(bytes.data(), e.words().data(), bytes.size());
  Result<std::vector<Command>> commands = decodeCommandStream(bytes, Product::U85, "u85");
  ASSERT_TRUE(commands) << commands.error().message();
  const std::string text = disassemble(*commands, Product::U85);
  for (const char* expected :
       {"NPU_SET_OP_SCALAR", "NPU_SET_IFM_BROADCAST", "SCALAR", "NPU_SET_WEIGHT_FORMAT", "FWD",
        "NPU_SET_RESIZE_X_SCALE_N_M1", "NPU_SET_RESIZE_Y_OFFSET", "NPU_SET_RESIZE_X", "NPU_SET_DMA0_IDX_REGION",
        "NPU_SET_DMA0_IDX", "NPU_SET_DMA0_SRC_STRIDE1 -64", "NPU_SET_DMA0_DST_STRIDE0 64", "NPU_SET_WEIGHT3_LENGTH 4096",
        "NPU_OP_RESIZE mode=NEAREST", "NPU_OP_BRANCH", "NPU_OP_STOP"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  }
  EXPECT_EQ(text.find("UNKNOWN"), std::string::npos) << text;
  // The same words are not a U55 stream: OP_RESIZE and OP_SCALAR do not exist there.
  EXPECT_FALSE(decodeCommandStream(bytes, Product::U55, "u55"));
  // Encoding the decoded commands gives the words back.
  EXPECT_EQ(encodeCommands(*commands), e.words());
}

/// Every weight index appears exactly once over the streams; the rest is padding (-1).
void expectPermutation(const std::vector<std::vector<std::int64_t>>& streams, std::int64_t weights, const std::string& what) {
  std::vector<int> seen(static_cast<std::size_t>(weights), 0);
  for (const auto& stream : streams) {
    for (std::int64_t index : stream) {
      if (index < 0) continue;
      ASSERT_LT(index, weights) << what;
      ++seen[static_cast<std::size_t>(index)];
    }
  }
  for (std::int64_t i = 0; i < weights; ++i) ASSERT_EQ(seen[static_cast<std::size_t>(i)], 1) << what << " weight " << i;
}

TEST(EthosU85Format, WeightOrdersVisitEveryWeightOnce) {
  struct Case {
    int o, kh, kw, i, stride;
    WeightTraversal traversal;
    int macs, cores, ublockDepth, blockDepth;
  };
  const Case cases[] = {
      {16, 3, 3, 8, 1, WeightTraversal::DepthFirst, 256, 1, 16, 16},
      {40, 1, 1, 100, 1, WeightTraversal::DepthFirst, 256, 1, 16, 32},
      {24, 5, 5, 3, 2, WeightTraversal::PartKernelFirst, 512, 1, 16, 16},
      {32, 3, 3, 32, 1, WeightTraversal::Depthwise, 256, 1, 16, 16},
      {64, 3, 3, 24, 1, WeightTraversal::DepthFirst, 1024, 2, 16, 32},
      {50, 3, 3, 16, 2, WeightTraversal::PartKernelFirst, 2048, 4, 16, 16},
      {16, 7, 7, 16, 2, WeightTraversal::Depthwise, 2048, 4, 16, 16},
  };
  for (const Case& c : cases) {
    U85WeightLayout l;
    l.ofmDepth = c.o;
    l.kernelHeight = c.kh;
    l.kernelWidth = c.kw;
    l.ifmDepth = c.traversal == WeightTraversal::Depthwise ? 1 : c.i;
    l.ofmBlockDepth = c.blockDepth;
    l.ofmUblockDepth = c.ublockDepth;
    l.ifmBlockDepth = u85IfmBlockDepth(c.traversal, 8, c.macs, c.ublockDepth, false);
    l.strideX = l.strideY = c.stride;
    l.macs = c.macs;
    l.cores = c.cores;
    l.traversal = c.traversal;
    const std::string what = fmt::format("{}x{}x{}x{} macs {} cores {} traversal {}", c.o, c.kh, c.kw, l.ifmDepth, c.macs,
                                         c.cores, static_cast<int>(c.traversal));
    std::vector<std::vector<std::int64_t>> streams;
    for (int s = 0; s < c.cores; ++s) {
      streams.push_back(u85WeightStreamOrder(l, s));
      EXPECT_EQ(streams.back().size(), u85WeightStreamLength(l, ~std::uint64_t{0} >> 1)) << what;
    }
    expectPermutation(streams, std::int64_t{c.o} * c.kh * c.kw * l.ifmDepth, what);
    expectPermutation({u85FastWeightOrder(l)}, std::int64_t{c.o} * c.kh * c.kw * l.ifmDepth, what + " (FWD)");
  }
}

TEST(EthosU85Format, FastWeightStreamRoundTrips) {
  std::mt19937 rng(85);
  for (int distinct : {1, 3, 4, 12, 16, 40, 200}) {
    for (int offset : {-128, -3, 0, 40}) {
      std::vector<std::int16_t> palette;
      for (int k = 0; k < distinct; ++k) palette.push_back(static_cast<std::int16_t>(offset + k * (distinct > 16 ? 1 : 7)));
      std::vector<std::int16_t> values(1 + rng() % 700);
      for (auto& v : values) v = palette[rng() % palette.size()];
      const std::vector<std::uint8_t> stream = encodeFastWeightStream(values);
      ASSERT_FALSE(stream.empty()) << distinct << " " << offset;
      EXPECT_EQ(stream.size() % 32, 0u);
      Result<std::vector<std::int16_t>> back = decodeFastWeightStream(stream, values.size());
      ASSERT_TRUE(back) << back.error().message();
      EXPECT_EQ(*back, values) << distinct << " values from " << offset;
    }
  }
  // More than 16 distinct values spanning 256 or more cannot be coded; a short stream is
  // refused, not over-read.
  std::vector<std::int16_t> wide;
  for (int v = -200; v <= 100; ++v) wide.push_back(static_cast<std::int16_t>(v));
  EXPECT_TRUE(encodeFastWeightStream(wide).empty());
  EXPECT_FALSE(decodeFastWeightStream(std::vector<std::uint8_t>(16, 0), 10));
}

TEST(EthosU85Format, ConcatenatedStandardStreamsDecodeToTheEndOnU85) {
  std::vector<std::int16_t> a = {1, -2, 3, 0, 0, 255, -255}, b = {7, 7, 7, -1};
  std::vector<std::uint8_t> stream = encodeWeightStream(a);
  const std::vector<std::uint8_t> second = encodeWeightStream(b);
  stream.insert(stream.end(), second.begin(), second.end());
  Result<std::vector<std::int16_t>> first = decodeWeightStream(stream, 100, StreamEnd::First);
  ASSERT_TRUE(first) << first.error().message();
  EXPECT_EQ(*first, a);
  Result<std::vector<std::int16_t>> all = decodeWeightStream(stream, 100, StreamEnd::AllBytes);
  ASSERT_TRUE(all) << all.error().message();
  std::vector<std::int16_t> both = a;
  both.insert(both.end(), b.begin(), b.end());
  EXPECT_EQ(*all, both);
  EXPECT_FALSE(decodeWeightStream(stream, 8, StreamEnd::AllBytes));  // more values than allowed
}

TEST(EthosU85Format, ScaleRecordsOfBothAccumulatorFormatsRoundTrip) {
  const std::vector<ScaleRecord> acc32 = {{-5, 0x7FFFFFFF, 31}, {(std::int64_t{1} << 31) - 1, 1, 0}, {-(std::int64_t{1} << 31), 0x40000000, 63}};
  auto bytes = encodeScaleStream(acc32, ScaleFormat::U85Acc32);
  ASSERT_TRUE(bytes) << bytes.error().message();
  EXPECT_EQ(bytes->size(), 32u);
  auto back = decodeScaleStream(*bytes, acc32.size(), ScaleFormat::U85Acc32);
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(*back, acc32);
  const std::vector<ScaleRecord> acc48 = {{(std::int64_t{1} << 47) - 1, 0x7FFF, 20}, {-(std::int64_t{1} << 47), 1, 1}};
  bytes = encodeScaleStream(acc48, ScaleFormat::U85Acc48);
  ASSERT_TRUE(bytes) << bytes.error().message();
  back = decodeScaleStream(*bytes, acc48.size(), ScaleFormat::U85Acc48);
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(*back, acc48);
  // Out of range for the format: named by channel.
  const std::vector<ScaleRecord> tooBig = {{0, 1, 0}, {std::int64_t{1} << 31, 1, 0}};
  auto refused = encodeScaleStream(tooBig, ScaleFormat::U85Acc32);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("1"), std::string::npos);
  EXPECT_FALSE(encodeScaleStream(std::vector<ScaleRecord>{{0, 0x8000, 0}}, ScaleFormat::U85Acc48));
}

}  // namespace
}  // namespace openvgf::ethosu
