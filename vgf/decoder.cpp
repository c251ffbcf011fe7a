// SPDX-License-Identifier: Apache-2.0
// VGF decoder (see decoder.h). The order of checks follows specs/vgf.md §1.10: header and
// section ranges, then each flatbuffer section through the Verifier, then field meanings,
// then cross references. Multi-byte values outside flatbuffer tables are read with loadLe
// (common/bytes.h) because pre-0.4.3 files place sections only 4-byte aligned.
#include "vgf/decoder.h"
#include "common/bytes.h"

#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "vgf/vgf_generated.h"

namespace openvgf::vgf {
namespace {

namespace schema = openvgf::vgf::fb;

constexpr std::uint8_t kOldMagic[4] = {0xC3, 0xD2, 0xE1, 0xF0};
constexpr char kConst00[8] = {'C', 'O', 'N', 'S', 'T', '0', '0', '\0'};
constexpr std::size_t kConstHeaderBytes = 16;
constexpr std::size_t kConstRecordBytes = 24;

/// int64 vector elements may sit only 4-byte aligned in memory (old files): copy bytewise.
std::vector<std::int64_t> copyInt64s(const flatbuffers::Vector<std::int64_t>* vector) {
  std::vector<std::int64_t> out;
  if (vector == nullptr) return out;
  out.resize(vector->size());
  if (!out.empty()) std::memcpy(out.data(), vector->Data(), out.size() * sizeof(std::int64_t));
  return out;
}

std::vector<std::uint32_t> copyUint32s(const flatbuffers::Vector<std::uint32_t>* vector) {
  std::vector<std::uint32_t> out;
  if (vector == nullptr) return out;
  out.reserve(vector->size());
  for (std::uint32_t value : *vector) out.push_back(value);
  return out;
}

std::string copyString(const flatbuffers::String* text) {
  return text == nullptr ? std::string() : std::string(text->string_view());
}

/// Raw scalar of a table field, read without assuming alignment. Generated tables derive
/// privately from flatbuffers::Table, so callers pass the table reinterpreted as its base.
template <typename T>
T rawField(const flatbuffers::Table* table, flatbuffers::voffset_t slot, T defaultValue) {
  const std::uint8_t* address = table->GetAddressOf(slot);
  return address == nullptr ? defaultValue : loadLe<T>(address);
}

std::string hexBytes(std::span<const std::uint8_t> bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    out += fmt::format("{}{:02X}", i == 0 ? "" : " ", bytes[i]);
  }
  return out;
}

/// Returns the verified root table of a flatbuffer section.
template <typename T>
Result<const T*> sectionRoot(std::span<const std::uint8_t> file, const SectionRange& range,
                             std::string_view section, std::string_view rootName) {
  if (range.size < 4) {
    return invalidInput("{}: expected a flatbuffer of at least 4 bytes, got a size of {}", section,
                        range.size);
  }
  if (range.size > FLATBUFFERS_MAX_BUFFER_SIZE) {
    return invalidInput("{}: expected a flatbuffer of at most {} bytes, got a size of {}", section,
                        FLATBUFFERS_MAX_BUFFER_SIZE, range.size);
  }
  const std::uint8_t* data = file.data() + range.offset;
  if (reinterpret_cast<std::uintptr_t>(data) % 4 != 0) {
    return invalidInput("{}: expected a 4-byte aligned section, got offset {}", section, range.offset);
  }
  flatbuffers::Verifier verifier(data, static_cast<std::size_t>(range.size));
  if (!verifier.VerifyBuffer<T>(nullptr)) {
    return invalidInput(
        "{}: expected a valid {} flatbuffer, got {} bytes at offset {} that fail verification", section,
        rootName, range.size, range.offset);
  }
  return flatbuffers::GetRoot<T>(data);
}

Status checkModuleType(std::uint8_t raw, std::string_view where) {
  if (raw > 1) return invalidInput("{}: expected 0 (COMPUTE) or 1 (GRAPH), got {}", where, raw);
  return {};
}

Status decodeModules(std::span<const std::uint8_t> bytes, File& file) {
  constexpr std::string_view kSection = "module table";
  OPENVGF_ASSIGN_OR_RETURN(
      const schema::ModuleTable* root,
      sectionRoot<schema::ModuleTable>(bytes, file.moduleSection, kSection, "ModuleTable"));
  if (root->modules() == nullptr) return {};
  for (flatbuffers::uoffset_t i = 0; i < root->modules()->size(); ++i) {
    const schema::Module* entry = root->modules()->Get(i);
    Module module;
    std::uint8_t type = static_cast<std::uint8_t>(entry->type());
    OPENVGF_TRY(checkModuleType(type, fmt::format("{}: modules[{}].type", kSection, i)));
    module.type = static_cast<ModuleType>(type);
    module.name = copyString(entry->name());
    module.entryPoint = copyString(entry->entry_point());
    std::uint8_t tag = static_cast<std::uint8_t>(entry->code_type());
    if (tag > 3) {
      return invalidInput("{}: modules[{}].code_type: expected 0 (NONE) to 3 (HLSL), got {}", kSection, i,
                          tag);
    }
    module.codeKind = static_cast<CodeKind>(tag);
    module.hasCode = module.codeKind != CodeKind::None && entry->code() != nullptr;
    if (module.hasCode) {
      switch (module.codeKind) {
        case CodeKind::Spirv:
          if (const auto* words = entry->code_as_SPIRV()->words()) {
            module.spirv = std::span<const std::uint32_t>(words->data(), words->size());
          }
          break;
        case CodeKind::Glsl: module.source = copyString(entry->code_as_GLSL()->code()); break;
        case CodeKind::Hlsl: module.source = copyString(entry->code_as_HLSL()->code()); break;
        case CodeKind::None: break;
      }
    }
    file.modules.push_back(std::move(module));
  }
  return {};
}

Status decodeResources(std::span<const std::uint8_t> bytes, File& file) {
  constexpr std::string_view kSection = "model resource table";
  OPENVGF_ASSIGN_OR_RETURN(
      const schema::ModelResourceTable* root,
      sectionRoot<schema::ModelResourceTable>(bytes, file.resourceSection, kSection, "ModelResourceTable"));
  if (root->mrt_entry() == nullptr) return {};
  for (flatbuffers::uoffset_t i = 0; i < root->mrt_entry()->size(); ++i) {
    const schema::ModelResourceTableEntry* entry = root->mrt_entry()->Get(i);
    Resource resource;
    resource.descriptorType = entry->vk_descriptor_type();
    resource.vkFormat = entry->vk_format();
    std::uint8_t category = static_cast<std::uint8_t>(entry->category());
    if (category > 3) {
      return invalidInput("{}: mrt_entry[{}].category: expected 0 (INPUT) to 3 (CONSTANT), got {}", kSection,
                          i, category);
    }
    resource.category = static_cast<ResourceCategory>(category);
    const schema::Description* description = entry->description();
    resource.hasDescription = description != nullptr;
    if (description != nullptr) {
      resource.shape = copyInt64s(description->shape());
      resource.strides = copyInt64s(description->strides());
    }
    std::uint8_t extra = static_cast<std::uint8_t>(entry->extra_config_type());
    if (extra > 1) {
      return invalidInput(
          "{}: mrt_entry[{}].extra_config_type: expected 0 (NONE) or 1 (SamplerConfig), got {}", kSection, i,
          extra);
    }
    if (const schema::SamplerConfig* sampler = entry->extra_config_as_SamplerConfig()) {
      resource.sampler =
          SamplerConfig{sampler->min_filter(), sampler->mag_filter(), sampler->address_mode_u(),
                        sampler->address_mode_v(), sampler->border_color()};
    }
    resource.aliasGroup = entry->alias_group_id();
    file.resources.push_back(std::move(resource));
  }
  return {};
}

std::vector<BindingSlot> copySlots(
    const flatbuffers::Vector<flatbuffers::Offset<schema::BindingSlot>>* slots) {
  std::vector<BindingSlot> out;
  if (slots == nullptr) return out;
  for (const schema::BindingSlot* slot : *slots) out.push_back({slot->binding(), slot->mrt_index()});
  return out;
}

Status decodeSequence(std::span<const std::uint8_t> bytes, File& file) {
  constexpr std::string_view kSection = "model sequence table";
  OPENVGF_ASSIGN_OR_RETURN(
      const schema::ModelSequenceTable* root,
      sectionRoot<schema::ModelSequenceTable>(bytes, file.sequenceSection, kSection, "ModelSequenceTable"));
  if (root->segments() != nullptr) {
    for (flatbuffers::uoffset_t i = 0; i < root->segments()->size(); ++i) {
      const schema::SegmentInfo* entry = root->segments()->Get(i);
      Segment segment;
      std::uint8_t type = static_cast<std::uint8_t>(entry->type());
      OPENVGF_TRY(checkModuleType(type, fmt::format("{}: segments[{}].type", kSection, i)));
      segment.type = static_cast<ModuleType>(type);
      segment.name = copyString(entry->name());
      segment.moduleIndex = entry->module_index();
      if (entry->set_infos() != nullptr) {
        for (const schema::DescriptorSetInfo* set : *entry->set_infos()) {
          segment.setInfos.push_back({set->set_index(), copySlots(set->bindings())});
        }
      }
      segment.inputs = copySlots(entry->inputs());
      segment.outputs = copySlots(entry->outputs());
      segment.constants = copyUint32s(entry->constants());
      if (const auto* dispatch = entry->dispatch_shape()) {
        if (dispatch->size() != 3) {
          return invalidInput("{}: segments[{}].dispatch_shape: expected 3 values, got {}", kSection, i,
                              dispatch->size());
        }
        segment.dispatchShape =
            std::array<std::uint32_t, 3>{dispatch->Get(0), dispatch->Get(1), dispatch->Get(2)};
      }
      if (entry->push_constant_ranges() != nullptr) {
        for (const schema::PushConstantRange* range : *entry->push_constant_ranges()) {
          segment.pushConstantRanges.push_back({range->stage_flags(), range->offset(), range->size()});
        }
      }
      if (const auto* bindings = entry->constant_bindings()) {
        segment.hasExplicitConstantBindings = true;
        for (const schema::GraphConstantBinding* binding : *bindings) {
          segment.constantBindings.push_back({binding->graph_constant_id(), binding->constant_table_index()});
        }
      } else {
        // Files without explicit bindings: graph constant id == constant-table index.
        for (std::uint32_t index : segment.constants) segment.constantBindings.push_back({index, index});
      }
      file.segments.push_back(std::move(segment));
    }
  }
  file.inputs = copySlots(root->inputs());
  file.outputs = copySlots(root->outputs());
  if (root->input_names() != nullptr) {
    for (const flatbuffers::String* name : *root->input_names()) file.inputNames.push_back(copyString(name));
  }
  if (root->output_names() != nullptr) {
    for (const flatbuffers::String* name : *root->output_names())
      file.outputNames.push_back(copyString(name));
  }
  return {};
}

Status decodeRawConstants(std::span<const std::uint8_t> section, File& file) {
  constexpr std::string_view kSection = "constant section";
  if (section.size() < kConstHeaderBytes) {
    return invalidInput("{}: expected at least {} bytes (CONST00 magic and count), got {}", kSection,
                        kConstHeaderBytes, section.size());
  }
  std::uint64_t count = loadLe<std::uint64_t>(section.data() + 8);
  std::uint64_t maxCount = (section.size() - kConstHeaderBytes) / kConstRecordBytes;
  if (count > maxCount) {
    return invalidInput("{}: count: expected at most {} records in a {}-byte section, got {}", kSection,
                        maxCount, section.size(), count);
  }
  std::size_t payloadStart = kConstHeaderBytes + static_cast<std::size_t>(count) * kConstRecordBytes;
  std::span<const std::uint8_t> payload = section.subspan(payloadStart);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t* record = section.data() + kConstHeaderBytes + i * kConstRecordBytes;
    Constant constant;
    constant.mrtIndex = loadLe<std::uint32_t>(record);
    constant.sparsityDimension = loadLe<std::int32_t>(record + 4);
    std::uint64_t size = loadLe<std::uint64_t>(record + 8);
    std::uint64_t offset = loadLe<std::uint64_t>(record + 16);
    if (offset > payload.size()) {
      return invalidInput("{}: constants[{}].offset: expected at most {} (payload bytes), got {}", kSection,
                          i, payload.size(), offset);
    }
    if (size > payload.size() - offset) {
      return invalidInput(
          "{}: constants[{}].size: expected at most {} (payload bytes after offset {}), got {}", kSection, i,
          payload.size() - offset, offset, size);
    }
    constant.data = payload.subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(size));
    file.constants.push_back(constant);
  }
  return {};
}

Status decodeLegacyConstants(std::span<const std::uint8_t> bytes, File& file) {
  constexpr std::string_view kSection = "constant section";
  OPENVGF_ASSIGN_OR_RETURN(const schema::ConstantSection* root,
                           sectionRoot<schema::ConstantSection>(bytes, file.constantSection, kSection,
                                                                "ConstantSection (format 0.3)"));
  file.legacyConstantSection = true;
  if (root->data() == nullptr) return {};
  for (const schema::ConstantData* entry : *root->data()) {
    Constant constant;
    constant.mrtIndex = entry->mrt_index();
    constant.sparsityDimension = rawField<std::int64_t>(reinterpret_cast<const flatbuffers::Table*>(entry),
                                                        schema::ConstantData::VT_SPARSITY_DIMENSION, 0);
    if (const auto* raw = entry->raw())
      constant.data = std::span<const std::uint8_t>(raw->data(), raw->size());
    file.constants.push_back(constant);
  }
  return {};
}

Status decodeConstants(std::span<const std::uint8_t> bytes, File& file) {
  const SectionRange& range = file.constantSection;
  if (range.size < 8) {
    return invalidInput("constant section: expected at least 8 bytes, got a size of {}", range.size);
  }
  std::span<const std::uint8_t> section =
      bytes.subspan(static_cast<std::size_t>(range.offset), static_cast<std::size_t>(range.size));
  if (std::memcmp(section.data(), kConst00, sizeof(kConst00)) == 0) return decodeRawConstants(section, file);
  return decodeLegacyConstants(bytes, file);
}

Status checkSlots(const std::vector<BindingSlot>& slots, std::size_t resourceCount, std::string_view where) {
  for (std::size_t j = 0; j < slots.size(); ++j) {
    if (slots[j].mrtIndex >= resourceCount) {
      return invalidInput("{}[{}].mrt_index: expected < {} (model resource table size), got {}", where, j,
                          resourceCount, slots[j].mrtIndex);
    }
  }
  return {};
}

}  // namespace

Status validate(const File& file) {
  constexpr std::string_view kSequence = "model sequence table";
  const std::size_t resourceCount = file.resources.size();
  for (std::size_t i = 0; i < file.segments.size(); ++i) {
    const Segment& segment = file.segments[i];
    if (segment.moduleIndex >= file.modules.size()) {
      return invalidInput("{}: segments[{}].module_index: expected < {} (module count), got {}", kSequence, i,
                          file.modules.size(), segment.moduleIndex);
    }
    for (std::size_t k = 0; k < segment.setInfos.size(); ++k) {
      OPENVGF_TRY(checkSlots(segment.setInfos[k].bindings, resourceCount,
                             fmt::format("{}: segments[{}].set_infos[{}].bindings", kSequence, i, k)));
    }
    OPENVGF_TRY(
        checkSlots(segment.inputs, resourceCount, fmt::format("{}: segments[{}].inputs", kSequence, i)));
    OPENVGF_TRY(
        checkSlots(segment.outputs, resourceCount, fmt::format("{}: segments[{}].outputs", kSequence, i)));
    for (std::size_t j = 0; j < segment.constants.size(); ++j) {
      if (segment.constants[j] >= file.constants.size()) {
        return invalidInput("{}: segments[{}].constants[{}]: expected < {} (constant count), got {}",
                            kSequence, i, j, file.constants.size(), segment.constants[j]);
      }
    }
    for (std::size_t j = 0; j < segment.constantBindings.size(); ++j) {
      if (segment.constantBindings[j].constantIndex >= file.constants.size()) {
        return invalidInput(
            "{}: segments[{}].constant_bindings[{}].constant_table_index: expected < {} (constant "
            "count), got {}",
            kSequence, i, j, file.constants.size(), segment.constantBindings[j].constantIndex);
      }
    }
  }
  OPENVGF_TRY(checkSlots(file.inputs, resourceCount, fmt::format("{}: inputs", kSequence)));
  OPENVGF_TRY(checkSlots(file.outputs, resourceCount, fmt::format("{}: outputs", kSequence)));
  for (std::size_t i = 0; i < file.constants.size(); ++i) {
    const Constant& constant = file.constants[i];
    if (constant.mrtIndex >= resourceCount) {
      return invalidInput(
          "constant section: constants[{}].mrt_index: expected < {} (model resource table size), got {}", i,
          resourceCount, constant.mrtIndex);
    }
    const Resource& resource = file.resources[constant.mrtIndex];
    if (resource.category != ResourceCategory::Constant) {
      return invalidInput(
          "constant section: constants[{}].mrt_index: expected an entry of category CONSTANT, got "
          "mrt_entry[{}] of category {}",
          i, constant.mrtIndex, toString(resource.category));
    }
    if (constant.sparsityDimension < -1) {
      return invalidInput(
          "constant section: constants[{}].sparsity_dimension: expected -1 (dense) or >= 0, got {}", i,
          constant.sparsityDimension);
    }
  }
  return {};
}

Result<File> decode(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kHeaderSize) {
    return invalidInput("header: expected at least {} bytes, got a {}-byte file", kHeaderSize, bytes.size());
  }
  File file;
  const std::uint8_t* header = bytes.data();
  if (std::memcmp(header, "VGF1", 4) != 0) {
    if (std::memcmp(header, kOldMagic, 4) != 0) {
      return invalidInput("header: magic: expected \"VGF1\" (56 47 46 31) or C3 D2 E1 F0, got {}",
                          hexBytes(bytes.first(4)));
    }
    file.legacyMagic = true;
  }
  file.vkHeaderVersion = loadLe<std::uint16_t>(header + 4);
  file.version = Version{header[8], header[9], header[10]};
  if (file.version.major != 0 || file.version.minor > 4) {
    return unsupported("header: version: expected a format version 0.0 to 0.4, got {}.{}.{}",
                       file.version.major, file.version.minor, file.version.patch);
  }
  static constexpr std::string_view kNames[4] = {"module", "sequence", "resource", "constant"};
  SectionRange* ranges[4] = {&file.moduleSection, &file.sequenceSection, &file.resourceSection,
                             &file.constantSection};
  const std::uint64_t fileSize = bytes.size();
  for (int s = 0; s < 4; ++s) {
    std::uint64_t offset = loadLe<std::uint64_t>(header + 16 + 16 * s);
    std::uint64_t size = loadLe<std::uint64_t>(header + 24 + 16 * s);
    if (offset > fileSize) {
      return invalidInput("header: {}_section.offset: expected at most the file size {}, got {}", kNames[s],
                          fileSize, offset);
    }
    if (size > fileSize - offset) {
      return invalidInput("header: {}_section.size: expected at most {} (bytes after offset {}), got {}",
                          kNames[s], fileSize - offset, offset, size);
    }
    *ranges[s] = SectionRange{offset, size};
  }
  OPENVGF_TRY(decodeModules(bytes, file));
  OPENVGF_TRY(decodeSequence(bytes, file));
  OPENVGF_TRY(decodeResources(bytes, file));
  OPENVGF_TRY(decodeConstants(bytes, file));
  OPENVGF_TRY(validate(file));
  return file;
}

}  // namespace openvgf::vgf
