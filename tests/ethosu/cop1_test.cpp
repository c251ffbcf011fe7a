// SPDX-License-Identifier: Apache-2.0
// COP1 round trips, malformed-input errors and the CONFIG images of the configurations
// (vela_bin_stream is tested in tests/pte/vela_test.cpp).
#include <gtest/gtest.h>

#include <cstring>

#include "ethosu/cop1.h"

namespace openvgf::ethosu {
namespace {

Cop1Payload samplePayload() {
  Cop1Payload p;
  p.config = configWord(*findAccelerator("ethos-u55-128"));
  p.commandStream = {0xFF, 0xFF, 0x00, 0x00};  // NPU_OP_STOP 0xffff... little-endian 0xffff0000
  p.commandStream = {0x00, 0x00, 0xFF, 0xFF};
  return p;
}

TEST(EthosUPayload, ConfigWordsMatchVela) {
  // specs/ethosu.md §1.7 (Vela 3.10, U55-128) and the CONFIG word of the Vela U85-256 stream in
  // tests/data/ethosu/vela_u85 (macs 2^8, stream version 1, two AXI SRAM ports, one decoder).
  EXPECT_EQ(configWord(*findAccelerator("ethos-u55-128")), 0x00001807u);
  EXPECT_EQ(configWord(*findAccelerator("ethos-u85-256")), 0x20000118u);
  for (const AcceleratorConfig& c : acceleratorConfigs()) {
    auto back = acceleratorFromConfigWord(configWord(c));
    ASSERT_TRUE(back) << c.name << ": " << back.error().message();
    EXPECT_EQ(back->name, c.name);
  }
  auto bad = acceleratorFromConfigWord(0x30000118u);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("product 3"), std::string::npos) << bad.error().message();
  bad = acceleratorFromConfigWord(0x20000108u);  // U85 with the U55 stream version
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("cmd_stream_version 0"), std::string::npos) << bad.error().message();
}

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

}  // namespace
}  // namespace openvgf::ethosu
