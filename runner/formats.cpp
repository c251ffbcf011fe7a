// SPDX-License-Identifier: Apache-2.0
// The VkFormat <-> tosa::DType table (see formats.h).
#include "runner/formats.h"

#include <string>

#include "vgf/file.h"

namespace openvgf::runner {
namespace {

using vgf::VkFormatValue;
using tosa::DType;

struct FormatRow {
  VkFormatValue format;
  const char* name;
  std::uint32_t bytes;
  std::optional<DType> dtype;  // the TOSA type read from this format
};

constexpr FormatRow kFormats[] = {
    {VkFormatValue::R8BoolArm, "R8_BOOL_ARM", 1, DType::Bool},
    {VkFormatValue::R8Sint, "R8_SINT", 1, DType::Int8},
    {VkFormatValue::R16Sint, "R16_SINT", 2, DType::Int16},
    {VkFormatValue::R32Sint, "R32_SINT", 4, DType::Int32},
    {VkFormatValue::R64Sint, "R64_SINT", 8, DType::Int48},
    {VkFormatValue::R16Sfloat, "R16_SFLOAT", 2, DType::Fp16},
    {VkFormatValue::R32Sfloat, "R32_SFLOAT", 4, DType::Fp32},
    {VkFormatValue::R16SfloatBfloat16Arm, "R16_SFLOAT_BFLOAT16_ARM", 2, DType::Bf16},
    {VkFormatValue::R8SfloatFloat8E4M3Arm, "R8_SFLOAT_FLOAT8E4M3_ARM", 1, DType::Fp8E4M3},
    {VkFormatValue::R8SfloatFloat8E5M2Arm, "R8_SFLOAT_FLOAT8E5M2_ARM", 1, DType::Fp8E5M2},
    // Unsigned model inputs and outputs: the signless TOSA type of their width (formatForDType
    // finds the SINT rows first).
    {VkFormatValue::R8Uint, "R8_UINT", 1, DType::Int8},
    {VkFormatValue::R16Uint, "R16_UINT", 2, DType::Int16},
    {VkFormatValue::R32Uint, "R32_UINT", 4, DType::Int32},
};

const FormatRow* find(std::uint32_t vkFormat) {
  for (const FormatRow& row : kFormats) {
    if (static_cast<std::uint32_t>(row.format) == vkFormat) return &row;
  }
  return nullptr;
}

}  // namespace

std::optional<tosa::DType> dtypeForFormat(std::uint32_t vkFormat) {
  const FormatRow* row = find(vkFormat);
  return row ? row->dtype : std::nullopt;
}

std::optional<std::uint32_t> formatForDType(tosa::DType dtype) {
  if (dtype == DType::Int4) return static_cast<std::uint32_t>(VkFormatValue::R8Sint);
  for (const FormatRow& row : kFormats) {
    if (row.dtype == dtype) return static_cast<std::uint32_t>(row.format);
  }
  return std::nullopt;
}

std::uint32_t storageElementBytes(std::uint32_t vkFormat) {
  const FormatRow* row = find(vkFormat);
  return row ? row->bytes : 0;
}

std::string formatShortName(std::uint32_t vkFormat) {
  const FormatRow* row = find(vkFormat);
  if (row) return row->name;
  return "VkFormat(" + std::to_string(vkFormat) + ")";
}

}  // namespace openvgf::runner
