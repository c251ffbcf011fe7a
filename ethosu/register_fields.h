// SPDX-License-Identifier: Apache-2.0
// Building blocks of the register tables (registers.cpp for U55/U65, registers_u85.cpp):
// enumerations shared by all products and small constructors for fields and registers.
// Private to ethosu/.
#pragma once

#include <array>

#include "ethosu/registers.h"

namespace openvgf::ethosu::tables {

inline constexpr std::array kSignedness = {FieldValue{0, "unsigned"}, FieldValue{1, "signed"}};
inline constexpr std::array kPrecision = {FieldValue{0, "8b"}, FieldValue{1, "16b"}, FieldValue{2, "32b"},
                                          FieldValue{3, "64b"}};
inline constexpr std::array kFormat = {FieldValue{0, "NHWC"}, FieldValue{1, "NHCWB16"}};
inline constexpr std::array kOfmScaleMode = {FieldValue{0, "PER_CHANNEL"}, FieldValue{1, "GLOBAL"}};
inline constexpr std::array kUpscale = {FieldValue{0, "NONE"}, FieldValue{1, "NEAREST"}, FieldValue{2, "ZEROS"}};
inline constexpr std::array kWeightOrder = {FieldValue{0, "DEPTH_FIRST"}, FieldValue{1, "PART_KERNEL_FIRST"}};
inline constexpr std::array kDecomposition = {FieldValue{0, "D8X8"}, FieldValue{1, "D4X4"}};
inline constexpr std::array kRegionMode = {FieldValue{0, "EXTERNAL"}, FieldValue{1, "INTERNAL"}};
inline constexpr std::array kStrideMode1D = {FieldValue{0, "D1"}};
inline constexpr std::array kStrideMode = {FieldValue{0, "D1"}, FieldValue{1, "D2"}, FieldValue{2, "D3"}};

constexpr FieldInfo field(std::string_view name, int lsb, int bits, FieldKind kind = FieldKind::Unsigned,
                          std::uint32_t max = 0) {
  return FieldInfo{name, static_cast<std::uint8_t>(lsb), static_cast<std::uint8_t>(bits), kind, {}, max};
}
constexpr FieldInfo enumField(std::string_view name, int lsb, int bits, std::span<const FieldValue> values) {
  return FieldInfo{name, static_cast<std::uint8_t>(lsb), static_cast<std::uint8_t>(bits), FieldKind::Enum, values, 0};
}

// Field lists shared by several registers.
inline constexpr std::array kNoFields = std::array<FieldInfo, 0>{};
inline constexpr std::array kSizeM1 = {field("value", 0, 16, FieldKind::SizeM1)};
inline constexpr std::array kSigned16 = {field("value", 0, 16, FieldKind::Signed)};
inline constexpr std::array kMask16 = {field("mask", 0, 16)};
inline constexpr std::array kPadSmall = {field("pad", 0, 7)};
inline constexpr std::array kPadLarge = {field("pad", 0, 8, FieldKind::Unsigned, 128)};
inline constexpr std::array kLength32 = {field("length", 16, 32)};
inline constexpr std::array kLength20 = {field("length", 16, 20)};
inline constexpr std::array kKernelStrideFields = {
    field("stride_x_lsb", 0, 1), field("stride_y_lsb", 1, 1), enumField("weight_order", 2, 1, kWeightOrder),
    field("dilation_x", 3, 1), field("dilation_y", 4, 1), enumField("decomposition", 5, 1, kDecomposition),
    field("stride_x_msb", 6, 1), field("stride_y_msb", 9, 1)};

constexpr RegisterInfo reg0(std::uint16_t code, std::string_view name, std::span<const FieldInfo> fields) {
  return RegisterInfo{code, false, name, fields, PayloadKind::None};
}
constexpr RegisterInfo reg1(std::uint16_t code, std::string_view name, std::span<const FieldInfo> fields) {
  return RegisterInfo{code, true, name, fields, PayloadKind::Fields};
}
constexpr RegisterInfo address(std::uint16_t code, std::string_view name) {
  return RegisterInfo{code, true, name, {}, PayloadKind::Address};
}

}  // namespace openvgf::ethosu::tables
