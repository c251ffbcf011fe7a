// SPDX-License-Identifier: Apache-2.0
// common/bytes.h, the one little-endian reader and writer: hand-computed values at odd
// offsets, signed fields, and writes read back.
#include <gtest/gtest.h>

#include "common/bytes.h"

namespace openvgf {
namespace {

TEST(Bytes, LoadsLittleEndianFieldsAtAnyOffset) {
  const std::uint8_t b[] = {0xFF, 0x78, 0x56, 0x34, 0x12, 0xF0, 0xDE, 0xBC, 0x9A, 0x80};
  EXPECT_EQ(loadLe<std::uint32_t>(b + 1), 0x12345678u);
  EXPECT_EQ(loadLe<std::uint16_t>(std::span<const std::uint8_t>(b), 3), 0x1234u);
  EXPECT_EQ(loadLe<std::uint64_t>(b + 1), 0x9ABCDEF012345678u);
  EXPECT_EQ(loadLe<std::uint64_t>(b + 2), 0x809ABCDEF0123456u);
  EXPECT_EQ(loadLe<std::int32_t>(b + 6), static_cast<std::int32_t>(0x809ABCDEu));  // negative
  EXPECT_EQ(loadLe<std::int16_t>(b + 8), -32614);  // 0x809A
  EXPECT_EQ(loadLe<std::uint8_t>(b), 0xFF);
}

TEST(Bytes, WritesReadBack) {
  std::vector<std::uint8_t> out;
  appendLe<std::uint32_t>(out, 0x11223344u);
  appendLe<std::int16_t>(out, -2);
  appendLe<std::int64_t>(out, -0x0102030405060708);
  EXPECT_EQ(out, (std::vector<std::uint8_t>{0x44, 0x33, 0x22, 0x11, 0xFE, 0xFF, 0xF8, 0xF8, 0xF9, 0xFA, 0xFB, 0xFC,
                                            0xFD, 0xFE}));
  EXPECT_EQ(loadLe<std::int64_t>(out.data() + 6), -0x0102030405060708);
  std::uint8_t field[5] = {};
  storeLe<std::uint32_t>(field + 1, 0xA1B2C3D4u);
  EXPECT_EQ(field[0], 0);
  EXPECT_EQ(field[1], 0xD4);
  EXPECT_EQ(field[4], 0xA1);
}

}  // namespace
}  // namespace openvgf
