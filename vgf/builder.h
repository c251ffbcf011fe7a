// SPDX-License-Identifier: Apache-2.0
// vgf::Builder: the typed way to write a VGF. It owns everything it is given (SPIR-V
// words, constant bytes, names), hands out typed ids so a resource id cannot be passed
// where a constant id is expected, and produces the file bytes with finish().
//
//   vgf::Builder b;
//   auto module = b.addModule("conv0", "main", spirvWords);
//   auto in = b.addResource(vgf::ResourceCategory::Input, R32Sfloat, {1, 8, 8, 4});
//   ...
//   auto seg = b.addSegment("conv0", module, {{.bindings = {{0, in}, {1, out}}}}, {{0, in}}, {{1, out}});
//   b.setInputs({{0, in}}, {"x"});
//   OPENVGF_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, b.finish());
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "vgf/file.h"

namespace openvgf::vgf {

struct ModuleId {
  std::uint32_t value = 0;
  bool operator==(const ModuleId&) const = default;
};
struct ResourceId {
  std::uint32_t value = 0;
  bool operator==(const ResourceId&) const = default;
};
struct ConstantId {
  std::uint32_t value = 0;
  bool operator==(const ConstantId&) const = default;
};
struct SegmentId {
  std::uint32_t value = 0;
  bool operator==(const SegmentId&) const = default;
};

/// A (binding, resource) pair: descriptor-set bindings and segment / model interface slots.
struct Slot {
  std::uint32_t binding = 0;
  ResourceId resource;
};

struct DescriptorSet {
  std::uint32_t setIndex = kUnset;  // kUnset: the set number is the position in the list
  std::vector<Slot> bindings;
};

class Builder {
 public:
  explicit Builder(std::uint16_t vkHeaderVersion = 0);
  Builder(Builder&&) = default;
  Builder& operator=(Builder&&) = default;
  Builder(const Builder&) = delete;  // the File's spans point into this builder's storage
  Builder& operator=(const Builder&) = delete;

  /// A SPIR-V module (COMPUTE unless `type` says GRAPH). Empty `spirv` writes the module
  /// with no code table (a module the consumer substitutes).
  ModuleId addModule(std::string name, std::string entryPoint, std::vector<std::uint32_t> spirv,
                     ModuleType type = ModuleType::Compute);
  /// A GLSL or HLSL source module.
  ModuleId addSourceModule(std::string name, std::string entryPoint, CodeKind language, std::string source,
                           ModuleType type = ModuleType::Compute);

  /// A model resource table entry. CONSTANT resources always get kNoDescriptorType; the
  /// others `descriptorType` (STORAGE_BUFFER unless given).
  ResourceId addResource(ResourceCategory category, std::uint32_t vkFormat, std::vector<std::int64_t> shape,
                         std::uint32_t aliasGroup = kUnset,
                         std::uint32_t descriptorType = kDescriptorTypeStorageBuffer);
  void setStrides(ResourceId resource, std::vector<std::int64_t> strides);
  void setSampler(ResourceId resource, const SamplerConfig& sampler);

  /// A constant payload backing a CONSTANT resource.
  ConstantId addConstant(ResourceId resource, std::vector<std::uint8_t> bytes,
                         std::int64_t sparsityDimension = -1);
  ConstantId addConstant(ResourceId resource, std::span<const std::uint8_t> bytes,
                         std::int64_t sparsityDimension = -1);

  /// A segment; its type is its module's type. `dispatch` is the workgroup counts.
  SegmentId addSegment(std::string name, ModuleId module, std::vector<DescriptorSet> sets,
                       std::vector<Slot> inputs, std::vector<Slot> outputs,
                       std::vector<ConstantId> constants = {},
                       std::array<std::uint32_t, 3> dispatch = {0, 0, 0});
  void setPushConstantRanges(SegmentId segment, std::vector<PushConstantRange> ranges);
  /// Explicit graph-constant ids for the segment's constants (SegmentInfo field 9).
  void setConstantBindings(SegmentId segment, std::vector<std::pair<std::uint32_t, ConstantId>> bindings);

  /// The model interface; `names` pair positionally with `slots` (may be empty).
  void setInputs(std::vector<Slot> slots, std::vector<std::string> names = {});
  void setOutputs(std::vector<Slot> slots, std::vector<std::string> names = {});

  /// The File built so far; it views this builder's storage.
  const File& file() const { return file_; }

  /// Validates and encodes (vgf::encode). The builder stays usable.
  Result<std::vector<std::uint8_t>> finish() const;

 private:
  static std::vector<BindingSlot> toSlots(const std::vector<Slot>& slots);

  File file_;
  // deque: stable addresses for the spans in file_, also across moves of the builder.
  std::deque<std::vector<std::uint32_t>> spirv_;
  std::deque<std::vector<std::uint8_t>> constantBytes_;
};

}  // namespace openvgf::vgf
