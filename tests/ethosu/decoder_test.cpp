// SPDX-License-Identifier: Apache-2.0
// Decoder, disassembler and weight/scale format tests, anchored on the Vela 3.10 golden
// payload of specs/ethosu.md §1.7 and the scale record example of §3.1.
#include <gtest/gtest.h>

#include <map>

#include "ethosu/command_stream.h"
#include "ethosu/cop1.h"
#include "ethosu/disassembler.h"
#include "ethosu/scale_stream.h"
#include "ethosu/weight_codec.h"
#include "ethosu/weight_order.h"
#include "runner/ethosu/simulator.h"
#include "tests/ethosu/test_util.h"

namespace openvgf::ethosu {
namespace {

// specs/ethosu.md §1.7: CONV 3x3 pad 1, IFM 8x8x16 int8, U55-128, 82 words.
constexpr std::uint32_t kGolden[] = {
    0x31504f43, 0x00100001, 0x00001807, 0x10060000, 0x00000005, 0x00000005, 0x00000005, 0x004a0002,
    0x0001010f, 0x00004000, 0x00000000, 0x00004001, 0x00000000, 0x00004002, 0x00000000, 0x00004003,
    0x00000000, 0x0007010b, 0xffff010c, 0x0007010a, 0x000f0104, 0x00004006, 0x00000001, 0x00004005,
    0x00000080, 0x00004004, 0x00000010, 0xfffd0109, 0x00010105, 0x00000107, 0x00010100, 0x00010101,
    0x00010103, 0x00010102, 0x0001011f, 0x00004010, 0x00000400, 0x00004011, 0x00000000, 0x00004012,
    0x00000000, 0x00004013, 0x00000000, 0x0007011b, 0xffff011c, 0x0007011a, 0x00070112, 0x00070111,
    0x000f0113, 0x00004016, 0x00000001, 0x00004015, 0x00000080, 0x00004014, 0x00000010, 0x00050118,
    0x00010114, 0x00020121, 0x00020120, 0x00000122, 0x00000128, 0x00004020, 0x00000000, 0x00004021,
    0x00000ce0, 0x00000129, 0x00004022, 0x00000d00, 0x00004023, 0x000000a0, 0x00000125, 0x00050126,
    0x007f0127, 0x00070116, 0x00070115, 0x000f0117, 0x0006010d, 0x000e012d, 0x00000124, 0x0000012f,
    0x00000002, 0xffff0000};

std::vector<std::uint8_t> toBytes(std::span<const std::uint32_t> words) {
  std::vector<std::uint8_t> out;
  for (std::uint32_t w : words) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(w >> (8 * i)));
  }
  return out;
}

TEST(EthosUDecoder, GoldenPayloadHeader) {
  auto payload = readCop1(toBytes(kGolden));
  ASSERT_TRUE(payload) << payload.error().message();
  EXPECT_EQ(payload->optimizerParam, 0x0010u);
  EXPECT_EQ(payload->config, 0x00001807u);
  EXPECT_EQ(payload->id, 0x10060000u);
  EXPECT_EQ(payload->shramKb(), 24u);
  auto config = acceleratorFromConfigWord(payload->config);
  ASSERT_TRUE(config);
  EXPECT_EQ(config->name, "ethos-u55-128");
  EXPECT_EQ(payload->commandStream.size(), 74u * 4);
  // Rewriting gives back the same 82 words.
  auto rewritten = writeCop1(*payload);
  ASSERT_TRUE(rewritten);
  EXPECT_EQ(*rewritten, toBytes(kGolden));
}

TEST(EthosUDecoder, GoldenCommandsDecodeToTheDocumentedRegisterValues) {
  auto payload = readCop1(toBytes(kGolden));
  ASSERT_TRUE(payload);
  auto commands = decodeCommandStream(payload->commandStream, Product::U55);
  ASSERT_TRUE(commands) << commands.error().message();
  // 74 words: 18 cmd1 (36 words) + 38 cmd0.
  EXPECT_EQ(commands->size(), 56u);
  std::map<std::pair<bool, std::uint16_t>, Command> last;
  for (const Command& c : *commands) last[{c.isCmd1, c.code}] = c;
  auto p0 = [&](std::uint16_t code) { return last.at({false, code}).param; };
  auto d1 = [&](std::uint16_t code) { return last.at({true, code}).data; };
  EXPECT_EQ(p0(cmd0::kIfmRegion), 1);
  EXPECT_EQ(d1(cmd1::kIfmBase0), 0u);
  EXPECT_EQ(p0(cmd0::kIfmHeight1M1), 0xFFFF);
  EXPECT_EQ(d1(cmd1::kIfmStrideC), 1u);
  EXPECT_EQ(d1(cmd1::kIfmStrideY), 0x80u);
  EXPECT_EQ(d1(cmd1::kIfmStrideX), 0x10u);
  EXPECT_EQ(static_cast<std::int16_t>(p0(cmd0::kIfmZeroPoint)), -3);
  EXPECT_EQ(p0(cmd0::kIfmPrecision), 0x0001);
  EXPECT_EQ(d1(cmd1::kOfmBase0), 0x400u);
  EXPECT_EQ(p0(cmd0::kOfmZeroPoint), 5);
  EXPECT_EQ(p0(cmd0::kOfmPrecision), 0x0001);
  EXPECT_EQ(p0(cmd0::kKernelStride), 0);
  EXPECT_EQ(p0(cmd0::kKernelWidthM1), 2);
  EXPECT_EQ(d1(cmd1::kWeightLength), 3296u);
  EXPECT_EQ(d1(cmd1::kScaleBase), 0xD00u);
  EXPECT_EQ(d1(cmd1::kScaleLength), 160u);
  EXPECT_EQ(p0(cmd0::kActivationMin), 5);
  EXPECT_EQ(p0(cmd0::kActivationMax), 127);
  EXPECT_EQ(p0(cmd0::kIfmIbEnd), 6);
  EXPECT_EQ(p0(cmd0::kAbStart), 14);
  EXPECT_EQ(p0(cmd0::kOfmBlkDepthM1), 15);
  EXPECT_EQ(commands->at(54).code, cmd0::kOpConv);
  EXPECT_EQ(commands->back().code, cmd0::kOpStop);
  EXPECT_EQ(commands->back().param, 0xFFFF);
  // Re-encoding reproduces the words exactly.
  std::vector<std::uint32_t> words = encodeCommands(*commands);
  EXPECT_EQ(toBytes(words), payload->commandStream);
}

TEST(EthosUDecoder, GoldenDisassemblyLines) {
  auto payload = readCop1(toBytes(kGolden));
  ASSERT_TRUE(payload);
  auto commands = decodeCommandStream(payload->commandStream, Product::U55);
  ASSERT_TRUE(commands);
  std::string text = disassemble(*commands, Product::U55);
  EXPECT_NE(text.find("0000 @0x0000 NPU_SET_IFM_REGION region=1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("NPU_SET_IFM_ZERO_POINT -3\n"), std::string::npos);
  EXPECT_NE(text.find("NPU_SET_IFM_PRECISION type=signed precision=8b format=NHWC scale_mode=OPA_OPB_16 round_mode=DBL\n"),
            std::string::npos);
  EXPECT_NE(text.find("NPU_SET_OFM_PRECISION type=signed precision=8b format=NHWC scale_mode=PER_CHANNEL round_mode=DBL\n"),
            std::string::npos);
  EXPECT_NE(text.find("NPU_SET_KERNEL_STRIDE stride_x=1 stride_y=1 weight_order=DEPTH_FIRST dilation_x=1 dilation_y=1"),
            std::string::npos);
  EXPECT_NE(text.find("NPU_SET_WEIGHT_LENGTH 3296\n"), std::string::npos);
  EXPECT_NE(text.find("0054 @0x0120 NPU_OP_CONV\n"), std::string::npos) << text;
  EXPECT_NE(text.find("0055 @0x0124 NPU_OP_STOP 65535\n"), std::string::npos);
}

TEST(EthosUDecoder, GoldenConvWithoutItsWeightBytesFailsClearly) {
  auto payload = readCop1(toBytes(kGolden));
  ASSERT_TRUE(payload);
  auto commands = decodeCommandStream(payload->commandStream, Product::U55);
  ASSERT_TRUE(commands);
  auto info = acceleratorFromConfigWord(payload->config);
  ASSERT_TRUE(info);
  // Regions sized like the example; the weight bytes are not part of the golden vector, so
  // the region holds zeros: a chain of tiny slices that never reaches the end marker.
  std::vector<std::uint8_t> weights(0xD00 + 160, 0);
  weights[2] = 0x40;  // NEWPAL = 1 (bit 22) in the first slice
  std::vector<std::uint8_t> scratch(0x400 + 8 * 8 * 16, 0);
  runner::ethosu::MemoryRegions regions{};
  regions[0] = weights;
  regions[1] = scratch;
  runner::ethosu::Simulator sim(*info);
  Status s = sim.run(*commands, regions);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind(), ErrorKind::InvalidInput);
  EXPECT_NE(s.error().message().find("command 54 (NPU_OP_CONV): WEIGHT_BASE/LENGTH: weight stream"), std::string::npos) << s.error().message();
}

TEST(EthosUDecoder, ConfigWordsOfTwoCoreAndOneCoreAccelerators) {
  // Ethos-U65-512's CONFIG counts both cores: 512 MACs, 96 KB SHRAM (Vela driver_actions.py).
  EXPECT_EQ(configWord(*findAccelerator("ethos-u65-512")), 0x10006009u);
  auto u65_512 = acceleratorFromConfigWord(0x10006009u);
  ASSERT_TRUE(u65_512) << u65_512.error().message();
  EXPECT_EQ(u65_512->cores, 2);
  EXPECT_EQ(u65_512->shramBanks, 48);
  EXPECT_EQ(u65_512->ofmUblock.d, 8);
  auto u65_256 = acceleratorFromConfigWord(0x10003008u);
  ASSERT_TRUE(u65_256);
  EXPECT_EQ(u65_256->cores, 1);
  EXPECT_FALSE(acceleratorFromConfigWord(0x00006009u));  // a U55 with 512 MACs
  // The disassembler names the parallel mode.
  EXPECT_NE(disassembleCommand(Command{0, 0, cmd0::kParallelMode, false, 1, 0}, Product::U65).find("DUAL_CORE_DEPTH"),
            std::string::npos);
  EXPECT_NE(disassembleCommand(Command{0, 0, cmd0::kParallelMode, false, 0, 0}, Product::U65).find("SINGLE_CORE"),
            std::string::npos);
}

TEST(EthosUDecoder, RejectsMalformedStreams) {
  // Not a multiple of 4.
  std::vector<std::uint8_t> odd = {1, 2, 3};
  auto r = decodeCommandStream(odd, Product::U55);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("multiple of 4"), std::string::npos);
  // Truncated cmd1.
  auto truncated = toBytes(std::vector<std::uint32_t>{0x0001010f, 0x00004000});
  r = decodeCommandStream(truncated, Product::U55);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("command 1 (word 1)"), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("payload word"), std::string::npos);
  // Unknown opcode 0x106.
  r = decodeCommandStream(toBytes(std::vector<std::uint32_t>{0x00000106}), Product::U55);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("command 0 (word 0): expected a known Ethos-U55 cmd0 opcode, got 0x106"),
            std::string::npos) << r.error().message();
  // Reserved header bits.
  r = decodeCommandStream(toBytes(std::vector<std::uint32_t>{0x00000400}), Product::U55);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("reserved bits"), std::string::npos);
  // Out-of-range field: IFM_PRECISION format 2.
  r = decodeCommandStream(toBytes(std::vector<std::uint32_t>{0x00000000 | 0x105 | (0x80u << 16)}), Product::U55);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("NPU_SET_IFM_PRECISION: field format"), std::string::npos) << r.error().message();
  // Region 8 does not exist.
  r = decodeCommandStream(toBytes(std::vector<std::uint32_t>{0x0008010f}), Product::U55);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("NPU_SET_IFM_REGION"), std::string::npos);
  // U65-only register on U55, accepted on U65.
  auto parallel = toBytes(std::vector<std::uint32_t>{0x00000123});
  EXPECT_FALSE(decodeCommandStream(parallel, Product::U55));
  EXPECT_TRUE(decodeCommandStream(parallel, Product::U65));
  // U65 addresses carry bits 39:32 in param; U55 refuses them.
  auto highAddress = toBytes(std::vector<std::uint32_t>{0x00014000, 0x10});
  EXPECT_FALSE(decodeCommandStream(highAddress, Product::U55));
  EXPECT_TRUE(decodeCommandStream(highAddress, Product::U65));
}

TEST(EthosUWeights, ScaleRecordExampleFromTheFactSheet) {
  const std::vector<std::uint8_t> bytes = {0x79, 0x29, 0xed, 0xff, 0xff, 0x9a, 0x79, 0x82, 0x5a, 0x26};
  auto records = decodeScaleStream(bytes, 1);
  ASSERT_TRUE(records);
  EXPECT_EQ(records->at(0).bias, -1234567);
  EXPECT_EQ(records->at(0).scale, 1518500250u);
  EXPECT_EQ(records->at(0).shift, 38);
  std::vector<std::uint8_t> encoded;
  runner::ethosu::testing::appendScaleRecord(encoded, -1234567, 1518500250u, 38);
  EXPECT_EQ(encoded, bytes);
  EXPECT_FALSE(decodeScaleStream(bytes, 2));
}

TEST(EthosUWeights, OrderLengthsMatchTheFactSheet) {
  WeightLayout l;
  l.ofmDepth = 16;
  l.kernelHeight = 3;
  l.kernelWidth = 3;
  l.ifmDepth = 16;
  l.ofmBlockDepth = 16;
  l.traversal = WeightTraversal::DepthFirst;
  EXPECT_EQ(weightStreamOrder(l).size(), 4608u);
  l.traversal = WeightTraversal::PartKernelFirst;
  EXPECT_EQ(weightStreamOrder(l).size(), 3072u);
  // Every OHWI weight appears exactly once in either order.
  for (WeightTraversal t : {WeightTraversal::DepthFirst, WeightTraversal::PartKernelFirst}) {
    l.traversal = t;
    l.ifmDepth = 19;
    l.ofmDepth = 21;
    l.ofmBlockDepth = 16;
    std::vector<int> seen(21 * 3 * 3 * 19, 0);
    for (std::int64_t idx : weightStreamOrder(l)) {
      if (idx >= 0) ++seen[static_cast<std::size_t>(idx)];
    }
    for (int s : seen) ASSERT_EQ(s, 1);
  }
}

TEST(EthosUWeights, DecodesVelasCompressedTestVector) {
  // ethos-u-vela ethosu/mlw_codec/test/test_mlw_codec.py: palette, zero runs and Golomb-Rice
  // coding of 39 weights in 32 bytes.
  const std::vector<std::uint8_t> bytes = {
      0xb8, 0x00, 0x5c, 0x71, 0x5e, 0x1f, 0xfc, 0x01, 0x03, 0x05, 0x08, 0x0c, 0x10, 0x90, 0x38, 0x12, 0xd7, 0x99, 0x3a, 0xd2, 0x99, 0x24, 0xae, 0x23, 0x9d, 0xa9, 0x23, 0x00, 0xf0, 0xff, 0xff, 0xff};
  ASSERT_EQ(bytes.size(), 32u);
  std::vector<std::int16_t> expected;
  for (int r = 0; r < 3; ++r) {
    for (int v : {0, 2, 3, 0, -1, -2, -3, 0, 0, 0, 1, -250, 240}) expected.push_back(static_cast<std::int16_t>(v));
  }
  auto decoded = decodeWeightStream(bytes, 1000);
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_EQ(*decoded, expected);
  // Any truncation is an error, never a crash.
  for (std::size_t cut = 0; cut < 28; ++cut) {
    auto r = decodeWeightStream(std::span<const std::uint8_t>(bytes.data(), cut), 1000);
    EXPECT_FALSE(r) << cut;
  }
}

TEST(EthosUWeights, UncompressedStreamRoundTrips) {
  for (std::size_t n : {1u, 17u, 1000u, 40000u}) {
    std::vector<std::int16_t> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::int16_t>(static_cast<int>((i * 37) % 511) - 255);
    auto decoded = decodeWeightStream(runner::ethosu::testing::encodeUncompressed(values), n);
    ASSERT_TRUE(decoded) << decoded.error().message();
    EXPECT_EQ(*decoded, values);
  }
  // Truncated: drop the tail.
  std::vector<std::int16_t> values(100, 3);
  auto bytes = runner::ethosu::testing::encodeUncompressed(values);
  bytes.resize(20);
  auto r = decodeWeightStream(bytes, 100);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("end of data"), std::string::npos) << r.error().message();
}

TEST(EthosURescale, MatchesTosaApplyScale32) {
  using runner::ethosu::rescaleValue;
  // TOSA apply_scale_32(value, multiplier, shift, double_round) computed by hand:
  // 1000 * 0x40000000 >> 31 = 500 exactly.
  EXPECT_EQ(rescaleValue(1000, 0x40000000u, 31, 0), 500);
  // 3 * 2^30 / 2^32 = 0.75 -> single round 1, double round: shift > 31 adds 2^30 -> still 1.
  EXPECT_EQ(rescaleValue(3, 1u << 30, 32, 2), 1);
  // -3 * 2^30 >> 32 with NATURAL: (-3*2^30 + 2^31) >> 32 = floor(-0.25) = -1.
  EXPECT_EQ(rescaleValue(-3, 1u << 30, 32, 2), -1);
  // DBL: round = 2^31 - 2^30 for negatives: (-3*2^30 + 2^30) >> 32 = floor(-0.5) = -1.
  EXPECT_EQ(rescaleValue(-3, 1u << 30, 32, 0), -1);
  // -2 * 2^30 >> 32 = -0.5: NATURAL rounds up to 0; DBL rounds away from zero to -1.
  EXPECT_EQ(rescaleValue(-2, 1u << 30, 32, 2), 0);
  EXPECT_EQ(rescaleValue(-2, 1u << 30, 32, 0), -1);
  // TRUNCATE toward zero: -7/4 -> -1, 7/4 -> 1.
  EXPECT_EQ(rescaleValue(-7, 1, 2, 1), -1);
  EXPECT_EQ(rescaleValue(7, 1, 2, 1), 1);
  // Shift 0 is the identity multiply.
  EXPECT_EQ(rescaleValue(-5, 3, 0, 0), -15);
}

}  // namespace
}  // namespace openvgf::ethosu
