// SPDX-License-Identifier: Apache-2.0
// The typed model of a VGF container (format 0.4.3; specs/vgf.md §1) shared by the
// encoder, the decoder, the converter and the runner.
//
// A decoded File is a view: SPIR-V words and constant payloads are spans into the buffer
// that was decoded (usually a MappedFile), which must outlive the File. Everything small
// (names, shapes, bindings) is copied. Absent optional fields keep their schema defaults:
// set_index and alias_group_id are kUnset ("no value"), not 0.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace openvgf::vgf {

inline constexpr std::uint32_t kUnset = 0xFFFFFFFFu;
/// Largest tensor a VGF storage buffer can hold (bytes): a descriptor range is a 32-bit number
/// on every Vulkan device. The converter writes nothing larger and the runner refuses it.
inline constexpr std::uint64_t kMaxTensorBytes = 0xFFFFFFFFull;
/// vk_descriptor_type of CONSTANT resources ("no descriptor").
inline constexpr std::uint32_t kNoDescriptorType = 0xFFFFFFFFu;
/// Raw VkDescriptorType values openvgf writes or recognises.
inline constexpr std::uint32_t kDescriptorTypeStorageBuffer = 7;
inline constexpr std::uint32_t kDescriptorTypeTensorArm = 1000460000;

/// Raw VkFormat values used for tensor element types (specs/vgf.md §1.6).
enum class VkFormatValue : std::uint32_t {
  Undefined = 0,
  R8Uint = 13,
  R8Sint = 14,
  R16Uint = 74,
  R16Sint = 75,
  R16Sfloat = 76,
  R32Uint = 98,
  R32Sint = 99,
  R32Sfloat = 100,
  R64Sint = 111,
  R8BoolArm = 1000460000,
  R16SfloatBfloat16Arm = 1000460001,
  R8SfloatFloat8E4M3Arm = 1000460002,
  R8SfloatFloat8E5M2Arm = 1000460003,
};
/// "VK_FORMAT_R8_SINT" etc.; "VK_FORMAT_<number>" for values openvgf does not know.
std::string formatName(std::uint32_t vkFormat);
/// Bytes per element of a known tensor format, 0 if unknown.
std::uint32_t formatElementBytes(std::uint32_t vkFormat);
/// "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER" etc.; "none" for kNoDescriptorType;
/// "VK_DESCRIPTOR_TYPE_<number>" for values openvgf does not know.
std::string descriptorTypeName(std::uint32_t descriptorType);

enum class ModuleType : std::uint8_t { Compute = 0, Graph = 1 };
enum class CodeKind : std::uint8_t { None = 0, Spirv = 1, Glsl = 2, Hlsl = 3 };
enum class ResourceCategory : std::uint8_t { Input = 0, Output = 1, Intermediate = 2, Constant = 3 };
/// Schema spellings: "COMPUTE", "GRAPH"; "SPIR-V", "GLSL", "HLSL", "None"; "INPUT", ...
std::string_view toString(ModuleType type);
std::string_view toString(CodeKind kind);
std::string_view toString(ResourceCategory category);

struct Version {
  std::uint8_t major = 0;
  std::uint8_t minor = 4;
  std::uint8_t patch = 3;
  bool operator==(const Version&) const = default;
};

struct SectionRange {
  std::uint64_t offset = 0;  // file-relative
  std::uint64_t size = 0;    // unpadded
  bool operator==(const SectionRange&) const = default;
};

struct Module {
  ModuleType type = ModuleType::Compute;
  std::string name;
  std::string entryPoint;
  CodeKind codeKind = CodeKind::Spirv;  // union tag; may be set with no code (placeholder)
  bool hasCode = false;                 // code table present
  std::span<const std::uint32_t> spirv;  // when codeKind == Spirv
  std::string source;                    // GLSL / HLSL text
};

struct SamplerConfig {
  std::uint32_t minFilter = 0;
  std::uint32_t magFilter = 0;
  std::uint32_t addressModeU = 0;
  std::uint32_t addressModeV = 0;
  std::uint32_t borderColor = 0;
  bool operator==(const SamplerConfig&) const = default;
};

struct Resource {
  std::uint32_t descriptorType = 0;  // raw VkDescriptorType; kNoDescriptorType for constants
  std::uint32_t vkFormat = 0;        // raw VkFormat
  ResourceCategory category = ResourceCategory::Input;
  bool hasDescription = true;
  std::vector<std::int64_t> shape;    // logical dims; INT64_MIN = dynamic
  std::vector<std::int64_t> strides;  // bytes; empty = packed
  std::optional<SamplerConfig> sampler;
  std::uint32_t aliasGroup = kUnset;
};

struct BindingSlot {
  std::uint32_t binding = 0;
  std::uint32_t mrtIndex = 0;
  bool operator==(const BindingSlot&) const = default;
};

struct DescriptorSetInfo {
  std::uint32_t setIndex = kUnset;  // kUnset: the set number is the position in Segment::setInfos
  std::vector<BindingSlot> bindings;
};

struct PushConstantRange {
  std::uint32_t stageFlags = 0;
  std::uint32_t offset = 0;
  std::uint32_t size = 0;
  bool operator==(const PushConstantRange&) const = default;
};

/// Explicit graph-constant binding (SegmentInfo field 9, newer files).
struct ConstantBinding {
  std::uint32_t graphConstantId = 0;
  std::uint32_t constantIndex = 0;
  bool operator==(const ConstantBinding&) const = default;
};

struct Segment {
  ModuleType type = ModuleType::Compute;
  std::string name;
  std::uint32_t moduleIndex = 0;
  std::vector<DescriptorSetInfo> setInfos;
  std::vector<BindingSlot> inputs;
  std::vector<BindingSlot> outputs;
  std::vector<std::uint32_t> constants;  // constant-section indexes
  std::optional<std::array<std::uint32_t, 3>> dispatchShape;  // workgroup counts
  std::vector<PushConstantRange> pushConstantRanges;
  std::vector<ConstantBinding> constantBindings;  // identity of `constants` when absent in the file
  bool hasExplicitConstantBindings = false;
};

struct Constant {
  std::uint32_t mrtIndex = 0;
  std::int64_t sparsityDimension = -1;   // -1 dense
  std::span<const std::uint8_t> data;    // unpadded payload
};

struct File {
  Version version;
  std::uint16_t vkHeaderVersion = 0;
  bool legacyMagic = false;
  SectionRange moduleSection, sequenceSection, resourceSection, constantSection;
  bool legacyConstantSection = false;  // 0.3.x flatbuffer constants

  std::vector<Module> modules;
  std::vector<Resource> resources;  // the model resource table (MRT)
  std::vector<Segment> segments;    // in execution order
  std::vector<Constant> constants;
  std::vector<BindingSlot> inputs;  // model interface
  std::vector<BindingSlot> outputs;
  std::vector<std::string> inputNames;   // positional with inputs (may be empty)
  std::vector<std::string> outputNames;
};

}  // namespace openvgf::vgf
