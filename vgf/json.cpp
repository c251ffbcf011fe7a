// SPDX-License-Identifier: Apache-2.0
// vgf_dump-shaped JSON (see json.h). Descriptor set numbers are printed resolved (the
// position when set_index is unset), as vgf_dump's decoder accessor reports them; optional
// keys (sampler_config, alias_group_id) appear only when the file has them.
#include "vgf/json.h"

namespace openvgf::vgf {
namespace {

using nlohmann::json;

json slotsJson(const std::vector<BindingSlot>& slots) {
  json out = json::array();
  for (std::size_t i = 0; i < slots.size(); ++i) {
    out.push_back({{"index", i}, {"binding", slots[i].binding}, {"mrt_index", slots[i].mrtIndex}});
  }
  return out;
}

json modelSlotsJson(const std::vector<BindingSlot>& slots, const std::vector<std::string>& names) {
  json out = slotsJson(slots);
  // vgf_dump pairs names with slots only when the counts agree.
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i]["name"] = names.size() == slots.size() ? names[i] : std::string();
  }
  return out;
}

}  // namespace

json toJson(const File& file) {
  json root;
  root["header"] = {
      {"major", file.version.major}, {"minor", file.version.minor}, {"patch", file.version.patch}};

  json modules = json::array();
  for (std::size_t i = 0; i < file.modules.size(); ++i) {
    const Module& module = file.modules[i];
    bool available = module.hasCode && (module.codeKind == CodeKind::Spirv ? !module.spirv.empty() : true);
    modules.push_back({{"index", i},
                       {"type", toString(module.type)},
                       {"name", module.name},
                       {"entry_point", module.entryPoint},
                       {"shader_type", toString(module.codeKind)},
                       {"shader_code_available", available}});
  }
  root["modules"] = modules;

  json resources = json::array();
  for (std::size_t i = 0; i < file.resources.size(); ++i) {
    const Resource& resource = file.resources[i];
    json entry = {{"index", i},
                  {"category", toString(resource.category)},
                  {"vk_descriptor_type", descriptorTypeName(resource.descriptorType)},
                  {"vk_format", formatName(resource.vkFormat)},
                  {"shape", resource.shape},
                  {"stride", resource.strides}};
    if (resource.sampler) {
      entry["sampler_config"] = {{"min_filter", resource.sampler->minFilter},
                                 {"mag_filter", resource.sampler->magFilter},
                                 {"address_mode_u", resource.sampler->addressModeU},
                                 {"address_mode_v", resource.sampler->addressModeV},
                                 {"border_color", resource.sampler->borderColor}};
    }
    if (resource.aliasGroup != kUnset) entry["alias_group_id"] = resource.aliasGroup;
    resources.push_back(entry);
  }
  root["resources"] = resources;

  json segments = json::array();
  for (std::size_t i = 0; i < file.segments.size(); ++i) {
    const Segment& segment = file.segments[i];
    json sets = json::array();
    for (std::size_t k = 0; k < segment.setInfos.size(); ++k) {
      const DescriptorSetInfo& set = segment.setInfos[k];
      sets.push_back({{"bindings", slotsJson(set.bindings)},
                      {"set_index", set.setIndex == kUnset ? static_cast<std::uint32_t>(k) : set.setIndex}});
    }
    json ranges = json::array();
    for (std::size_t r = 0; r < segment.pushConstantRanges.size(); ++r) {
      const PushConstantRange& range = segment.pushConstantRanges[r];
      ranges.push_back(
          {{"index", r}, {"stage_flags", range.stageFlags}, {"offset", range.offset}, {"size", range.size}});
    }
    json dispatch = json::array();
    if (segment.dispatchShape) dispatch = *segment.dispatchShape;
    json entry = {{"index", i},
                  {"type", toString(segment.type)},
                  {"module_index", segment.moduleIndex},
                  {"name", segment.name},
                  {"inputs", slotsJson(segment.inputs)},
                  {"outputs", slotsJson(segment.outputs)},
                  {"descriptor_set_infos", sets},
                  {"push_constant_ranges", ranges},
                  {"constants", segment.constants},
                  {"dispatch_shape", dispatch}};
    if (segment.hasExplicitConstantBindings) {
      json bindings = json::array();
      for (const ConstantBinding& binding : segment.constantBindings) {
        bindings.push_back(
            {{"graph_constant_id", binding.graphConstantId}, {"constant_index", binding.constantIndex}});
      }
      entry["constant_bindings"] = bindings;
    }
    segments.push_back(entry);
  }
  root["model_sequence"] = {{"segments", segments},
                            {"inputs", modelSlotsJson(file.inputs, file.inputNames)},
                            {"outputs", modelSlotsJson(file.outputs, file.outputNames)}};

  json constants = json::array();
  for (std::size_t i = 0; i < file.constants.size(); ++i) {
    constants.push_back({{"index", i},
                         {"mrt_index", file.constants[i].mrtIndex},
                         {"sparsity_dimension", file.constants[i].sparsityDimension}});
  }
  root["constants"] = constants;
  return root;
}

std::string dumpJson(const nlohmann::json& json, int indent) {
  return json.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace openvgf::vgf
