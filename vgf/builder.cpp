// SPDX-License-Identifier: Apache-2.0
// vgf::Builder (see builder.h). Ids are positions in the File's lists; ids made by another
// builder are caught by the cross-reference validation in finish().
#include "vgf/builder.h"

#include "vgf/encoder.h"

namespace openvgf::vgf {

Builder::Builder(std::uint16_t vkHeaderVersion) {
  file_.vkHeaderVersion = vkHeaderVersion;
}

ModuleId Builder::addModule(std::string name, std::string entryPoint, std::vector<std::uint32_t> spirv,
                            ModuleType type) {
  Module module;
  module.type = type;
  module.name = std::move(name);
  module.entryPoint = std::move(entryPoint);
  module.codeKind = CodeKind::Spirv;
  module.hasCode = !spirv.empty();
  spirv_.push_back(std::move(spirv));
  module.spirv = spirv_.back();
  file_.modules.push_back(std::move(module));
  return ModuleId{static_cast<std::uint32_t>(file_.modules.size() - 1)};
}

ModuleId Builder::addSourceModule(std::string name, std::string entryPoint, CodeKind language,
                                  std::string source, ModuleType type) {
  Module module;
  module.type = type;
  module.name = std::move(name);
  module.entryPoint = std::move(entryPoint);
  module.codeKind = language;
  module.hasCode = language != CodeKind::None;
  module.source = std::move(source);
  file_.modules.push_back(std::move(module));
  return ModuleId{static_cast<std::uint32_t>(file_.modules.size() - 1)};
}

ResourceId Builder::addResource(ResourceCategory category, std::uint32_t vkFormat,
                                std::vector<std::int64_t> shape, std::uint32_t aliasGroup,
                                std::uint32_t descriptorType) {
  Resource resource;
  resource.category = category;
  resource.vkFormat = vkFormat;
  resource.descriptorType = category == ResourceCategory::Constant ? kNoDescriptorType : descriptorType;
  resource.shape = std::move(shape);
  resource.aliasGroup = aliasGroup;
  file_.resources.push_back(std::move(resource));
  return ResourceId{static_cast<std::uint32_t>(file_.resources.size() - 1)};
}

void Builder::setStrides(ResourceId resource, std::vector<std::int64_t> strides) {
  if (resource.value < file_.resources.size()) file_.resources[resource.value].strides = std::move(strides);
}

void Builder::setSampler(ResourceId resource, const SamplerConfig& sampler) {
  if (resource.value < file_.resources.size()) file_.resources[resource.value].sampler = sampler;
}

ConstantId Builder::addConstant(ResourceId resource, std::vector<std::uint8_t> bytes,
                                std::int64_t sparsityDimension) {
  constantBytes_.push_back(std::move(bytes));
  Constant constant;
  constant.mrtIndex = resource.value;
  constant.sparsityDimension = sparsityDimension;
  constant.data = constantBytes_.back();
  file_.constants.push_back(constant);
  return ConstantId{static_cast<std::uint32_t>(file_.constants.size() - 1)};
}

ConstantId Builder::addConstant(ResourceId resource, std::span<const std::uint8_t> bytes,
                                std::int64_t sparsityDimension) {
  return addConstant(resource, std::vector<std::uint8_t>(bytes.begin(), bytes.end()), sparsityDimension);
}

std::vector<BindingSlot> Builder::toSlots(const std::vector<Slot>& slots) {
  std::vector<BindingSlot> out;
  out.reserve(slots.size());
  for (const Slot& slot : slots) out.push_back({slot.binding, slot.resource.value});
  return out;
}

SegmentId Builder::addSegment(std::string name, ModuleId module, std::vector<DescriptorSet> sets,
                              std::vector<Slot> inputs, std::vector<Slot> outputs,
                              std::vector<ConstantId> constants, std::array<std::uint32_t, 3> dispatch) {
  Segment segment;
  segment.name = std::move(name);
  segment.moduleIndex = module.value;
  if (module.value < file_.modules.size()) segment.type = file_.modules[module.value].type;
  for (const DescriptorSet& set : sets) segment.setInfos.push_back({set.setIndex, toSlots(set.bindings)});
  segment.inputs = toSlots(inputs);
  segment.outputs = toSlots(outputs);
  for (ConstantId constant : constants) {
    segment.constants.push_back(constant.value);
    segment.constantBindings.push_back({constant.value, constant.value});
  }
  segment.dispatchShape = dispatch;
  file_.segments.push_back(std::move(segment));
  return SegmentId{static_cast<std::uint32_t>(file_.segments.size() - 1)};
}

void Builder::setPushConstantRanges(SegmentId segment, std::vector<PushConstantRange> ranges) {
  if (segment.value < file_.segments.size())
    file_.segments[segment.value].pushConstantRanges = std::move(ranges);
}

void Builder::setConstantBindings(SegmentId segment,
                                  std::vector<std::pair<std::uint32_t, ConstantId>> bindings) {
  if (segment.value >= file_.segments.size()) return;
  Segment& target = file_.segments[segment.value];
  target.hasExplicitConstantBindings = true;
  target.constantBindings.clear();
  for (const auto& [graphConstantId, constant] : bindings) {
    target.constantBindings.push_back({graphConstantId, constant.value});
  }
}

void Builder::setInputs(std::vector<Slot> slots, std::vector<std::string> names) {
  file_.inputs = toSlots(slots);
  file_.inputNames = std::move(names);
}

void Builder::setOutputs(std::vector<Slot> slots, std::vector<std::string> names) {
  file_.outputs = toSlots(slots);
  file_.outputNames = std::move(names);
}

Result<std::vector<std::uint8_t>> Builder::finish() const {
  return encode(file_);
}

}  // namespace openvgf::vgf
