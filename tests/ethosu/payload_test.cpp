// SPDX-License-Identifier: Apache-2.0
// COP1 and vela_bin_stream round trips and malformed-input errors.
#include <gtest/gtest.h>

#include <cstring>

#include "runner/ethosu/payload.h"

namespace openvgf::runner::ethosu {
namespace {

Cop1Payload samplePayload() {
  Cop1Payload p;
  p.config = makeConfigWord(Product::U55, 128, 24);
  p.commandStream = {0xFF, 0xFF, 0x00, 0x00};  // NPU_OP_STOP 0xffff... little-endian 0xffff0000
  p.commandStream = {0x00, 0x00, 0xFF, 0xFF};
  return p;
}

TEST(EthosUPayload, ConfigWordMatchesVela) { EXPECT_EQ(makeConfigWord(Product::U55, 128, 24), 0x00001807u); }

TEST(EthosUPayload, Cop1RoundTripAndErrors) {
  auto bytes = writeCop1(samplePayload());
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->size(), 36u);
  auto back = readCop1(*bytes);
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->commandStream, samplePayload().commandStream);
  // Bad magic.
  auto bad = *bytes;
  bad[0] = 'X';
  auto r = readCop1(bad);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("word 0: expected the COP1 magic"), std::string::npos) << r.error().message();
  // COP2 is refused as unsupported.
  std::memcpy(bad.data(), "COP2", 4);
  r = readCop1(bad);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind(), ErrorKind::Unsupported);
  // Truncated: the COMMAND_STREAM length exceeds the payload.
  auto cut = *bytes;
  cut.resize(32);
  r = readCop1(cut);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("COMMAND_STREAM: expected at most 0 words, got length 1"), std::string::npos)
      << r.error().message();
  // Unknown driver action.
  auto unknown = *bytes;
  unknown[16] = 0x09;
  r = readCop1(unknown);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("word 4: expected a driver action"), std::string::npos) << r.error().message();
  // Size not a multiple of 4.
  auto odd = *bytes;
  odd.push_back(0);
  EXPECT_FALSE(readCop1(odd));
}

TEST(EthosUPayload, VelaBinStreamRoundTripAndLayout) {
  VelaBinStream s;
  s.cmdData = *writeCop1(samplePayload());
  s.weightData = {1, 2, 3};
  s.scratchSize = 4096;
  VelaIo in;
  in.shape = {1, 1, 1, 4, 4, 3};
  in.offset = 64;
  s.inputs = {in};
  VelaIo out;
  out.shape = {1, 1, 1, 1, 1, 10};
  out.offset = 0;
  s.outputs = {out};
  auto bytes = writeVelaBinStream(s);
  // Layout per specs/pte.md §3.2: every block 32-byte header + data padded to 16.
  EXPECT_EQ(bytes.size() % 16, 0u);
  EXPECT_EQ(std::memcmp(bytes.data(), "vela_bin_stream", 16), 0);
  EXPECT_EQ(std::memcmp(bytes.data() + 32, "cmd_data", 9), 0);
  EXPECT_EQ(bytes[48], 36);  // size of cmd_data
  EXPECT_EQ(std::memcmp(bytes.data() + bytes.size() - 32, "vela_end_stream", 16), 0);
  auto back = readVelaBinStream(bytes);
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(*back, s);
  // Truncated stream: missing the end marker.
  auto cut = bytes;
  cut.resize(cut.size() - 32);
  auto r = readVelaBinStream(cut);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("vela_end_stream"), std::string::npos);
  // A block size that runs past the end.
  auto big = bytes;
  big[48] = 0xFF;
  big[49] = 0xFF;
  r = readVelaBinStream(big);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("block 'cmd_data' at offset 32"), std::string::npos) << r.error().message();
  // Wrong first block.
  auto first = bytes;
  first[0] = 'x';
  EXPECT_FALSE(readVelaBinStream(first));
}

}  // namespace
}  // namespace openvgf::runner::ethosu
