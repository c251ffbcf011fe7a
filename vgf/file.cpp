// SPDX-License-Identifier: Apache-2.0
// Names and sizes of the raw Vulkan enum values stored in a VGF (specs/vgf.md §1.6), used
// by the JSON dump, the text summary, npy export and the runner's buffer sizing.
#include "vgf/file.h"
#include "vgf/signless.h"

#include <fmt/format.h>

namespace openvgf::vgf {

std::string formatName(std::uint32_t vkFormat) {
  switch (static_cast<VkFormatValue>(vkFormat)) {
    case VkFormatValue::Undefined: return "VK_FORMAT_UNDEFINED";
    case VkFormatValue::R8Uint: return "VK_FORMAT_R8_UINT";
    case VkFormatValue::R8Sint: return "VK_FORMAT_R8_SINT";
    case VkFormatValue::R16Uint: return "VK_FORMAT_R16_UINT";
    case VkFormatValue::R16Sint: return "VK_FORMAT_R16_SINT";
    case VkFormatValue::R16Sfloat: return "VK_FORMAT_R16_SFLOAT";
    case VkFormatValue::R32Uint: return "VK_FORMAT_R32_UINT";
    case VkFormatValue::R32Sint: return "VK_FORMAT_R32_SINT";
    case VkFormatValue::R32Sfloat: return "VK_FORMAT_R32_SFLOAT";
    case VkFormatValue::R64Sint: return "VK_FORMAT_R64_SINT";
    case VkFormatValue::R8BoolArm: return "VK_FORMAT_R8_BOOL_ARM";
    case VkFormatValue::R16SfloatBfloat16Arm: return "VK_FORMAT_R16_SFLOAT_FPENCODING_BFLOAT16_ARM";
    case VkFormatValue::R8SfloatFloat8E4M3Arm: return "VK_FORMAT_R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM";
    case VkFormatValue::R8SfloatFloat8E5M2Arm: return "VK_FORMAT_R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM";
  }
  return fmt::format("VK_FORMAT_{}", vkFormat);
}

std::uint32_t signlessFormat(std::uint32_t vkFormat) {
  switch (static_cast<VkFormatValue>(vkFormat)) {
    case VkFormatValue::R8Uint: return static_cast<std::uint32_t>(VkFormatValue::R8Sint);
    case VkFormatValue::R16Uint: return static_cast<std::uint32_t>(VkFormatValue::R16Sint);
    case VkFormatValue::R32Uint: return static_cast<std::uint32_t>(VkFormatValue::R32Sint);
    default: return vkFormat;
  }
}

std::uint32_t formatElementBytes(std::uint32_t vkFormat) {
  switch (static_cast<VkFormatValue>(vkFormat)) {
    case VkFormatValue::R8Uint:
    case VkFormatValue::R8Sint:
    case VkFormatValue::R8BoolArm:
    case VkFormatValue::R8SfloatFloat8E4M3Arm:
    case VkFormatValue::R8SfloatFloat8E5M2Arm: return 1;
    case VkFormatValue::R16Uint:
    case VkFormatValue::R16Sint:
    case VkFormatValue::R16Sfloat:
    case VkFormatValue::R16SfloatBfloat16Arm: return 2;
    case VkFormatValue::R32Uint:
    case VkFormatValue::R32Sint:
    case VkFormatValue::R32Sfloat: return 4;
    case VkFormatValue::R64Sint: return 8;
    case VkFormatValue::Undefined: return 0;
  }
  return 0;
}

std::string descriptorTypeName(std::uint32_t descriptorType) {
  switch (descriptorType) {
    case 0: return "VK_DESCRIPTOR_TYPE_SAMPLER";
    case 1: return "VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER";
    case 2: return "VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE";
    case 3: return "VK_DESCRIPTOR_TYPE_STORAGE_IMAGE";
    case 4: return "VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER";
    case 5: return "VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER";
    case 6: return "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER";
    case 7: return "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER";
    case 8: return "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC";
    case 9: return "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC";
    case 10: return "VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT";
    case kDescriptorTypeTensorArm: return "VK_DESCRIPTOR_TYPE_TENSOR_ARM";
    case kNoDescriptorType: return "none";
    default: break;
  }
  return fmt::format("VK_DESCRIPTOR_TYPE_{}", descriptorType);
}

std::string_view toString(ModuleType type) {
  return type == ModuleType::Graph ? "GRAPH" : "COMPUTE";
}

std::string_view toString(CodeKind kind) {
  switch (kind) {
    case CodeKind::Spirv: return "SPIR-V";
    case CodeKind::Glsl: return "GLSL";
    case CodeKind::Hlsl: return "HLSL";
    case CodeKind::None: break;
  }
  return "None";
}

std::string_view toString(ResourceCategory category) {
  switch (category) {
    case ResourceCategory::Input: return "INPUT";
    case ResourceCategory::Output: return "OUTPUT";
    case ResourceCategory::Intermediate: return "INTERMEDIATE";
    case ResourceCategory::Constant: return "CONSTANT";
  }
  return "INPUT";
}

}  // namespace openvgf::vgf
