// SPDX-License-Identifier: Apache-2.0
// VGF encoder (see encoder.h). Flatbuffer sections are built with the generated Create*
// helpers and a FlatBufferBuilder without force_defaults, so schema-default scalars are left
// out exactly as Arm's writer leaves them out; vectors are always written (possibly empty),
// dispatch_shape always has three values. Binding-slot tables are written once per use
// rather than shared, which keeps the output a pure function of the File.
#include "vgf/encoder.h"

#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <limits>

#include "vgf/decoder.h"
#include "vgf/vgf_generated.h"

namespace openvgf::vgf {
namespace {

namespace schema = openvgf::vgf::fb;

constexpr std::size_t kSectionAlignment = 8;

std::size_t alignUp(std::size_t value, std::size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

template <typename T>
void store(std::vector<std::uint8_t>& out, std::size_t offset, T value) {
  std::memcpy(out.data() + offset, &value, sizeof(T));
}

using SlotVector = flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<schema::BindingSlot>>>;

SlotVector writeSlots(flatbuffers::FlatBufferBuilder& builder, const std::vector<BindingSlot>& slots) {
  std::vector<flatbuffers::Offset<schema::BindingSlot>> offsets;
  offsets.reserve(slots.size());
  for (const BindingSlot& slot : slots) {
    offsets.push_back(schema::CreateBindingSlot(builder, slot.binding, slot.mrtIndex));
  }
  return builder.CreateVector(offsets);
}

std::vector<std::uint8_t> finished(flatbuffers::FlatBufferBuilder& builder) {
  return std::vector<std::uint8_t>(builder.GetBufferPointer(),
                                   builder.GetBufferPointer() + builder.GetSize());
}

std::vector<std::uint8_t> writeModules(const File& file) {
  flatbuffers::FlatBufferBuilder builder;
  std::vector<flatbuffers::Offset<schema::Module>> modules;
  for (const Module& module : file.modules) {
    auto name = builder.CreateString(module.name);
    auto entry = builder.CreateString(module.entryPoint);
    flatbuffers::Offset<void> code;
    if (module.hasCode) {
      switch (module.codeKind) {
        case CodeKind::Spirv:
          code = schema::CreateSPIRV(builder, builder.CreateVector(module.spirv.data(), module.spirv.size()))
                     .Union();
          break;
        case CodeKind::Glsl:
          code = schema::CreateGLSL(builder, builder.CreateString(module.source)).Union();
          break;
        case CodeKind::Hlsl:
          code = schema::CreateHLSL(builder, builder.CreateString(module.source)).Union();
          break;
        case CodeKind::None: break;
      }
    }
    modules.push_back(schema::CreateModule(builder, static_cast<schema::ModuleType>(module.type), name, entry,
                                           static_cast<schema::ModuleCode>(module.codeKind), code));
  }
  builder.Finish(schema::CreateModuleTable(builder, builder.CreateVector(modules)));
  return finished(builder);
}

std::vector<std::uint8_t> writeSequence(const File& file) {
  flatbuffers::FlatBufferBuilder builder;
  std::vector<flatbuffers::Offset<schema::SegmentInfo>> segments;
  for (const Segment& segment : file.segments) {
    auto name = builder.CreateString(segment.name);
    std::vector<flatbuffers::Offset<schema::DescriptorSetInfo>> sets;
    for (const DescriptorSetInfo& set : segment.setInfos) {
      auto bindings = writeSlots(builder, set.bindings);
      sets.push_back(schema::CreateDescriptorSetInfo(builder, bindings, set.setIndex));
    }
    auto setVector = builder.CreateVector(sets);
    auto inputs = writeSlots(builder, segment.inputs);
    auto outputs = writeSlots(builder, segment.outputs);
    auto constants = builder.CreateVector(segment.constants);
    std::array<std::uint32_t, 3> shape =
        segment.dispatchShape.value_or(std::array<std::uint32_t, 3>{0, 0, 0});
    auto dispatch = builder.CreateVector(shape.data(), shape.size());
    std::vector<flatbuffers::Offset<schema::PushConstantRange>> ranges;
    for (const PushConstantRange& range : segment.pushConstantRanges) {
      ranges.push_back(schema::CreatePushConstantRange(builder, range.stageFlags, range.offset, range.size));
    }
    auto rangeVector = builder.CreateVector(ranges);
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<schema::GraphConstantBinding>>> bindingVector;
    if (segment.hasExplicitConstantBindings) {
      std::vector<flatbuffers::Offset<schema::GraphConstantBinding>> bindings;
      for (const ConstantBinding& binding : segment.constantBindings) {
        bindings.push_back(
            schema::CreateGraphConstantBinding(builder, binding.graphConstantId, binding.constantIndex));
      }
      bindingVector = builder.CreateVector(bindings);
    }
    segments.push_back(schema::CreateSegmentInfo(builder, static_cast<schema::ModuleType>(segment.type), name,
                                                 segment.moduleIndex, setVector, inputs, outputs, constants,
                                                 dispatch, rangeVector, bindingVector));
  }
  auto segmentVector = builder.CreateVector(segments);
  auto inputs = writeSlots(builder, file.inputs);
  auto outputs = writeSlots(builder, file.outputs);
  auto inputNames = builder.CreateVectorOfStrings(file.inputNames);
  auto outputNames = builder.CreateVectorOfStrings(file.outputNames);
  builder.Finish(
      schema::CreateModelSequenceTable(builder, segmentVector, inputs, outputs, inputNames, outputNames));
  return finished(builder);
}

std::vector<std::uint8_t> writeResources(const File& file) {
  flatbuffers::FlatBufferBuilder builder;
  std::vector<flatbuffers::Offset<schema::ModelResourceTableEntry>> entries;
  for (const Resource& resource : file.resources) {
    flatbuffers::Offset<schema::Description> description;
    if (resource.hasDescription) {
      auto shape = builder.CreateVector(resource.shape);
      auto strides = builder.CreateVector(resource.strides);
      description = schema::CreateDescription(builder, shape, strides);
    }
    flatbuffers::Offset<void> extra;
    schema::ExtraConfig extraType = schema::ExtraConfig::NONE;
    if (resource.sampler) {
      const SamplerConfig& s = *resource.sampler;
      extra = schema::CreateSamplerConfig(builder, s.minFilter, s.magFilter, s.addressModeU, s.addressModeV,
                                          s.borderColor)
                  .Union();
      extraType = schema::ExtraConfig::SamplerConfig;
    }
    entries.push_back(
        schema::CreateModelResourceTableEntry(builder, resource.descriptorType, resource.vkFormat,
                                              static_cast<schema::ResourceCategory>(resource.category),
                                              description, extraType, extra, resource.aliasGroup));
  }
  builder.Finish(schema::CreateModelResourceTable(builder, builder.CreateVector(entries)));
  return finished(builder);
}

std::vector<std::uint8_t> writeConstants(const File& file) {
  std::size_t payloadBytes = 0;
  for (const Constant& constant : file.constants)
    payloadBytes += alignUp(constant.data.size(), kSectionAlignment);
  const std::size_t recordsEnd = 16 + 24 * file.constants.size();
  std::vector<std::uint8_t> out(recordsEnd + payloadBytes, 0);
  std::memcpy(out.data(), "CONST00", 8);  // includes the terminating NUL
  store<std::uint64_t>(out, 8, file.constants.size());
  std::size_t offset = 0;
  for (std::size_t i = 0; i < file.constants.size(); ++i) {
    const Constant& constant = file.constants[i];
    std::size_t record = 16 + 24 * i;
    store<std::uint32_t>(out, record, constant.mrtIndex);
    store<std::int32_t>(out, record + 4, static_cast<std::int32_t>(constant.sparsityDimension));
    store<std::uint64_t>(out, record + 8, constant.data.size());
    store<std::uint64_t>(out, record + 16, offset);
    if (!constant.data.empty())
      std::memcpy(out.data() + recordsEnd + offset, constant.data.data(), constant.data.size());
    offset += alignUp(constant.data.size(), kSectionAlignment);
  }
  return out;
}

Status checkWriterRules(const File& file) {
  for (std::size_t i = 0; i < file.resources.size(); ++i) {
    const Resource& resource = file.resources[i];
    if (resource.category == ResourceCategory::Constant && resource.aliasGroup != kUnset) {
      return invalidInput(
          "model resource table: mrt_entry[{}].alias_group_id: expected no alias group on a CONSTANT "
          "resource, got {}",
          i, resource.aliasGroup);
    }
  }
  for (std::size_t i = 0; i < file.constants.size(); ++i) {
    if (file.constants[i].sparsityDimension > std::numeric_limits<std::int32_t>::max()) {
      return invalidInput(
          "constant section: constants[{}].sparsity_dimension: expected a value that fits int32, got {}", i,
          file.constants[i].sparsityDimension);
    }
  }
  for (std::size_t i = 0; i < file.modules.size(); ++i) {
    const Module& module = file.modules[i];
    if (module.hasCode && module.codeKind == CodeKind::None) {
      return invalidInput(
          "module table: modules[{}].code_type: expected SPIR-V, GLSL or HLSL for a module with code, "
          "got NONE",
          i);
    }
  }
  return {};
}

}  // namespace

Result<std::vector<std::uint8_t>> encode(const File& file) {
  OPENVGF_TRY(validate(file));
  OPENVGF_TRY(checkWriterRules(file));
  const std::vector<std::uint8_t> sections[4] = {writeModules(file), writeSequence(file),
                                                 writeResources(file), writeConstants(file)};
  std::vector<std::uint8_t> out(kHeaderSize, 0);
  std::memcpy(out.data(), "VGF1", 4);
  store<std::uint16_t>(out, 4, file.vkHeaderVersion);
  out[8] = 0;
  out[9] = 4;
  out[10] = 3;
  for (int s = 0; s < 4; ++s) {
    // Zero padding to the next 8-byte boundary before each section (none after the last).
    out.resize(alignUp(out.size(), kSectionAlignment), 0);
    store<std::uint64_t>(out, 16 + 16 * s, out.size());
    store<std::uint64_t>(out, 24 + 16 * s, sections[s].size());
    out.insert(out.end(), sections[s].begin(), sections[s].end());
  }
  return out;
}

}  // namespace openvgf::vgf
